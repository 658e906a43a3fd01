"""The permission policy: what runs freely, what asks first, what is refused.

One middleware decides, before each tool call, whether it may run:

    bash, sandbox on                  runs freely  the sandbox keeps it inside the workspace
    bash, sandbox off                 asks         it could change anything you can change
    write_file / edit_file on a       asks         .git/ hooks and config run commands, .env*
      protected path (tools/paths.py)              decides where the key goes
    everything else                   runs freely  file tools stay inside the workspace

"Asks" means: the person is asked in the interactive mode; in a headless run it is refused
(with an error the model can act on) unless `--yes` allowed everything up front. A path outside
the workspace is refused by the file tools themselves, whatever the answer.

The question goes through an injected function, so the front end decides how it looks:

    async ask(question: str) -> (answer, reason)

`question` is plain text: a first line that asks (e.g. "Run this command?"), then the details
(the exact command, or the path and why it is protected). `answer` is "yes", "no", "always"
(yes, and do not ask again for this kind of call in this session) or "interrupt" (Ctrl-D:
cancel the turn); `reason` is what the person wants the model to know after a "no". The
question is awaited against the turn's cancel signal, like a tool (`Agent.cancel` in agent.py):
a Ctrl-C or SIGTERM while it waits cancels the question and the turn. A plain function that
returns the answer at once works too (tests, scripts).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from middleware.base import (
    BeforeToolCallContext,
    BeforeToolCallResult,
    Interrupted,
    Middleware,
    until_cancelled,
)
from tools.base import ToolError
from tools.paths import PROTECTED_PATHS, protected_reason, safe_path

Approval = tuple[Literal["yes", "no", "always", "interrupt"], str]
AskFunction = Callable[[str], Awaitable[Approval] | Approval]

FILE_WRITING_TOOLS = ("write_file", "edit_file")

HEADLESS_BASH_REFUSAL = (
    "bash is disabled: this agent runs without the sandbox and without a person to approve "
    "commands. Do the work with read_file, write_file and edit_file, or tell the user to rerun "
    "with --yes to allow bash."
)


@dataclass(frozen=True)
class Rule:
    """One line of the permission table: what, what happens to it, and why."""

    what: str
    verdict: Literal["runs freely", "asks", "refused"]
    why: str


class PermissionPolicy(Middleware):
    """Ask, allow or refuse each tool call, as described in the module docstring.

    `ask` is None when nobody can answer (a headless run); `allow_all` is `--yes`;
    `sandboxed` says whether bash runs inside the sandbox.
    """

    def __init__(
        self,
        *,
        ask: AskFunction | None,
        sandboxed: bool,
        allow_all: bool = False,
        sandbox: object = None,
    ) -> None:
        self.ask = ask
        self.sandboxed = sandboxed
        self.sandbox = sandbox  # its `must_ask` (a reason, or None) can make bash ask anyway
        self.allow_all = allow_all
        self.always: set[str] = set()  # kinds of call the person said "always" to

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        needs_approval = self._needs_approval(ctx)
        if needs_approval is None or self.allow_all:
            return None
        kind, question, refusal = needs_approval
        if kind in self.always:
            return None
        if self.ask is None:
            return BeforeToolCallResult(block=True, reason=refusal)
        try:
            answer, reason = await self.answer(question, ctx.context.signal)
        except Interrupted as stop:  # the turn was cancelled while the question waited
            return BeforeToolCallResult(block=True, reason=str(stop))
        if answer == "interrupt":
            ctx.context.signal.set()  # Ctrl-D at the question cancels the whole turn
            return BeforeToolCallResult(block=True, reason="Interrupted by the user.")
        ctx.context.input_seq += 1  # a person answered: that is an input boundary
        if answer == "always":
            self.always.add(kind)
        if answer in ("yes", "always"):
            return None
        what = "command" if kind == "bash" else "change"
        why = f" The user said: {reason}" if reason else ""
        return BeforeToolCallResult(block=True, reason=f"The user declined this {what}.{why}")

    async def answer(self, question: str, cancel: asyncio.Event) -> Approval:
        """The person's answer, awaited against the turn's cancel signal."""
        asking = self.ask(question)
        if inspect.isawaitable(asking):
            return await until_cancelled(asking, cancel)
        return asking

    def _needs_approval(self, ctx: BeforeToolCallContext) -> tuple[str, str, str] | None:
        """(kind, question, headless refusal) for a call that needs a yes, else None."""
        name = ctx.tool_call["name"]
        must_ask = getattr(self.sandbox, "must_ask", None)
        if name == "bash" and (not self.sandboxed or must_ask):
            return "bash", f"Run this command?\n{ctx.args['command']}", HEADLESS_BASH_REFUSAL
        if name not in FILE_WRITING_TOOLS:
            return None
        path = ctx.args["path"]
        try:
            safe_path(ctx.context.workspace, path)
        except ToolError:
            return None  # the tool itself refuses it, with the reason
        why = protected_reason(ctx.context.workspace, path)
        if why is None:
            return None
        question = f"Allow {name} on a protected path?\n{path}\n{why}."
        refusal = (
            f"{name}: {path} was not changed. {why}, and nobody can approve the change in this "
            "run (headless, without --yes). Leave the file as it is and go on with the task; "
            "if the change is needed, tell the user what to change and why."
        )
        return "protected", question, refusal

    def rules(self) -> list[Rule]:
        """The policy as a short table, for /permissions and the README."""
        if self.allow_all:
            asks = "runs freely"
        elif self.ask is None:
            asks = "refused"
        else:
            asks = "asks"
        if self.sandboxed:
            bash = Rule("bash", "runs freely", "sandboxed: writes only the workspace, no network")
        else:
            bash = Rule("bash", asks, "no sandbox: it can change anything you can")
        protected = ", ".join(path for path, _ in PROTECTED_PATHS)
        return [
            bash,
            Rule("read_file, write_file, edit_file", "runs freely", "inside the workspace only"),
            Rule(
                f"write_file, edit_file on {protected}",
                asks,
                "; ".join(f"{path}: {why}" for path, why in PROTECTED_PATHS),
            ),
            Rule("any path outside the workspace", "refused", "the file tools check every path"),
        ]
