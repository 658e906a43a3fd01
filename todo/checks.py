"""Completion evidence: the shell command an item carries to prove it done.

    todo_write moves "Tests pass" {check: "pytest -q"} to completed
        --> the permission policy is asked, as for a bash call with that command
        --> run_bash in the sandbox, with a short timeout
        --> exit 0: stored as verified (✓ checked)
            else:   the whole write is refused with the output's tail; the list stays as it was

The todo middleware does not know how commands run here; whoever builds the agent hands it a
`CheckRunner`. `bash_check_runner` is the one the CLI uses: the bash tool's runner with the
same sandbox, behind the same permission policy, so a check can do nothing a bash call could
not (headless without a sandbox, it needs --yes).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

CHECK_TIMEOUT_SECONDS = 60
OUTPUT_TAIL_CHARS = 1500  # what the model reads of a failed check


@dataclass
class CheckResult:
    """The outcome of one check: passed or not, and the tail of its output (with its exit)."""

    passed: bool
    output: str


# run_check(command, ctx) -> CheckResult, where ctx is the run's AgentContext.
CheckRunner = Callable[[str, Any], Awaitable[CheckResult]]


def bash_check_runner(
    sandbox: object = None, permissions: Any = None, timeout: int = CHECK_TIMEOUT_SECONDS
) -> CheckRunner:
    """A CheckRunner that runs each check like a bash call: asked about by `permissions` (a
    PermissionPolicy, or None to ask nobody) and run by `tools.bash.run_bash` in `sandbox`."""

    async def run_check(command: str, ctx: Any) -> CheckResult:
        refusal = await permission_refusal(permissions, command, ctx)
        if refusal:
            return CheckResult(False, f"The check was not run: {refusal}")
        from tools.base import ToolError
        from tools.bash import run_bash  # here: the todo list loads without the process code

        try:
            output = await run_bash(ctx.workspace, command, timeout, sandbox=sandbox)
        except ToolError as err:
            return CheckResult(False, f"The check could not start: {err}")
        return CheckResult(output.endswith("[exit code: 0]"), tail(output))

    return run_check


async def permission_refusal(permissions: Any, command: str, ctx: Any) -> str:
    """Ask the permission policy about `command` as if it were a bash call; '' if allowed."""
    if permissions is None:
        return ""
    from middleware.base import BeforeToolCallContext
    from middleware.permissions import CHECK_CALL_ID  # the policy words its question for a check

    call = {"type": "tool_use", "id": CHECK_CALL_ID, "name": "bash", "input": {"command": command}}
    verdict = await permissions.before_tool_call(
        BeforeToolCallContext(
            assistant_message={"role": "assistant", "content": [call]},
            tool_call=call,
            args={"command": command},
            context=ctx,
        )
    )
    return verdict.reason if verdict is not None and verdict.block else ""


def tail(output: str, limit: int = OUTPUT_TAIL_CHARS) -> str:
    """The last `limit` characters of `output`, starting at a line."""
    if len(output) <= limit:
        return output
    cut = output[-limit:]
    return "[...]\n" + cut.split("\n", 1)[-1]
