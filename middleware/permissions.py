"""The permission policy: what runs freely, what asks first, what is refused.

One middleware decides, before each tool call, whether it may run:

    bash, sandbox on                  runs freely  the sandbox keeps it inside the workspace
    bash, sandbox off                 asks         it could change anything you can change
    bash with outside_sandbox         asks, every  the model asks to leave the sandbox for one
                                      time         command; an "always" never covers it
    a write to a protected path       asks         .git/ hooks and config run commands, .env*
      (tools/paths.py) by any tool                 decides where the key goes
      that declares `writes`
    everything else                   runs freely  file tools stay inside the workspace

Which tools write, and which input is the path, comes from the tool's declaration
(`Tool(..., writes="path")`, tools/base.py), never from its name: write_file, edit_file and a tool
added later are treated alike. The path is judged by where it actually leads (links resolved,
tools/beneath.py), and an approval is handed to the tool for that one file (tools/file_call.py):
if a racing command makes the path lead elsewhere before the tool writes, the tool refuses.

"Asks" means: the person is asked in the interactive mode; in a headless run it is refused
(with an error the model can act on) unless `--yes` allowed everything up front. A path outside
the workspace is refused by the file tools themselves, whatever the answer.

The question goes through an injected function, so the front end decides how it looks:

    async ask(question: str) -> (answer, reason)

`question` is plain text: a first line that asks (e.g. "Run this command?"), then the details
(the exact command, or the path and why it is protected). `answer` is "yes", "no", "always"
or "interrupt" (Ctrl-D: cancel the run). "Always" means: do not ask again in this session for
unsandboxed bash, or for writes to *this* protected file; never for anything under `.git/`,
which is asked about every time. `reason` is what the person wants the model to know after a
"no". The question is awaited against the run's cancel signal, like a tool (`Agent.cancel` in
agent.py): a Ctrl-C or SIGTERM while it waits cancels the question and the run. A plain
function that returns the answer at once works too (tests, scripts).
"""

from __future__ import annotations

import asyncio
import inspect
import os
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
from tools.beneath import is_under_git, target_of
from tools.file_call import OUTSIDE_SANDBOX_APPROVED, FileCall, file_call, protection
from tools.paths import PROTECTED_PATHS

Approval = tuple[Literal["yes", "no", "always", "interrupt"], str]
AskFunction = Callable[[str], Awaitable[Approval] | Approval]

OUTSIDE_SANDBOX_REFUSAL = (
    "bash: the command did not run. Running it outside the sandbox needs a person's approval, "
    "and nobody can give it in this run (headless, without --yes). Run it in the sandbox "
    "(without outside_sandbox) or do the work another way; if it can only run outside, tell "
    "the user which command and why, so they can run it themselves or rerun with --yes."
)

HEADLESS_BASH_REFUSAL = (
    "bash is disabled: this agent runs without the sandbox and without a person to approve "
    "commands. Do the work with read_file, write_file and edit_file, or tell the user that bash "
    "needs their approval (--yes on the command line, allow_all from code)."
)


@dataclass(frozen=True)
class NeedsApproval:
    """A call that needs a yes: what to ask, what to say headless, and what "always" remembers.

    `remember` is "bash", the canonical path of a protected file, or None (never remembered).
    `target` is the protected file a yes approves, for the tool to check (tools/file_call.py).
    """

    question: str
    refusal: str
    remember: str | None
    target: str | None = None


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
        # What the person said "always" to: "bash", and canonical paths of protected files.
        self.always: set[str] = set()

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        # Made for every call, so an approval never carries over to a later call.
        call = file_call(ctx.tool_call["id"])
        call.approved = set()  # the tool enforces what is approved here, and nothing else
        needed = self._needs_approval(ctx)
        if needed is None:
            return None
        if self.allow_all or (needed.remember is not None and needed.remember in self.always):
            _approve(call, needed)
            return None
        if self.ask is None:
            return BeforeToolCallResult(block=True, reason=needed.refusal)
        try:
            answer, reason = await self.answer(needed.question, ctx.context.signal)
        except Interrupted as stop:  # the run was cancelled while the question waited
            by = ctx.context.cancel_reason  # "terminated by SIGTERM": not the user's doing
            return BeforeToolCallResult(
                block=True, reason=f"planloop was {by}." if by else str(stop)
            )
        if answer == "interrupt":
            ctx.context.signal.set()  # Ctrl-D at the question cancels the whole run
            return BeforeToolCallResult(block=True, reason="Interrupted by the user.")
        ctx.context.input_seq += 1  # a person answered: that is an input boundary
        if answer == "always" and needed.remember is not None:
            self.always.add(needed.remember)
        if answer in ("yes", "always"):
            _approve(call, needed)
            return None
        what = "command" if ctx.tool_call["name"] == "bash" else "change"
        why = f" The user said: {reason}" if reason else ""
        return BeforeToolCallResult(block=True, reason=f"The user declined this {what}.{why}")

    async def answer(self, question: str, cancel: asyncio.Event) -> Approval:
        """The person's answer, awaited against the run's cancel signal."""
        asking = self.ask(question)
        if inspect.isawaitable(asking):
            return await until_cancelled(asking, cancel)
        return asking

    def _needs_approval(self, ctx: BeforeToolCallContext) -> NeedsApproval | None:
        """What to ask about a call that needs a yes, else None."""
        name = ctx.tool_call["name"]
        must_ask = getattr(self.sandbox, "must_ask", None)  # the sandbox cannot keep its promise
        if name == "bash" and ctx.args.get("outside_sandbox"):
            question = (
                f"Run this command OUTSIDE the sandbox? (asked every time)\n{ctx.args['command']}"
            )
            # Never remembered ("always" does not cover it); a yes is handed to bash for this call.
            return NeedsApproval(
                question, OUTSIDE_SANDBOX_REFUSAL, remember=None, target=OUTSIDE_SANDBOX_APPROVED
            )
        if name == "bash" and (not self.sandboxed or must_ask):
            question = f"Run this command?\n{ctx.args['command']}"
            refusal = HEADLESS_BASH_REFUSAL
            if self.sandboxed and must_ask:  # the sandbox is on, but cannot keep its promise
                refusal = refusal.replace(
                    "this agent runs without the sandbox",
                    f"the sandbox cannot confine it ({must_ask})",
                )
            return NeedsApproval(question, refusal, remember="bash")
        written = getattr(ctx.context.tools.get(name), "writes", None)
        path = ctx.args.get(written) if written else None
        if not isinstance(path, str):
            return None
        workspace = ctx.context.workspace
        try:
            target = target_of(workspace, path)
        except (ToolError, OSError):
            return None  # the tool itself refuses it, with the reason
        why = protection(workspace, path, target)
        relative = target.relative
        if why is None:
            return None
        leads_to = "" if relative == os.path.normpath(path) else f" (it leads to {relative})"
        question = f"Allow {name} on a protected path?\n{path}{leads_to}\n{why}."
        refusal = (
            f"{name}: {path} was not changed. {why}, and nobody can approve the change in this "
            "run (headless, without --yes). Leave the file as it is and go on with the task; "
            "if the change is needed, tell the user what to change and why."
        )
        # "Always" covers this one file, and never a file under .git: each of those is asked.
        under_git = (
            target.in_git_dir or is_under_git(relative) or is_under_git(os.path.normpath(path))
        )
        return NeedsApproval(
            question, refusal, remember=None if under_git else relative, target=relative
        )

    def rules(self) -> list[Rule]:
        """The policy as a short table, for /permissions and the README."""
        if self.allow_all:
            asks = "runs freely"
        elif self.ask is None:
            asks = "refused"
        else:
            asks = "asks"
        if self.sandboxed:
            bash = [
                Rule("bash", "runs freely", "sandboxed: writes only the workspace, no network"),
                Rule(
                    "bash with outside_sandbox",
                    asks,
                    "one command without the sandbox: asked every time, even after always",
                ),
            ]
        else:
            bash = [Rule("bash", asks, "no sandbox: it can change anything you can")]
        protected = ", ".join(path for path, _ in PROTECTED_PATHS)
        return [
            *bash,
            Rule("read_file, write_file, edit_file", "runs freely", "inside the workspace only"),
            Rule(
                f"write_file, edit_file on {protected}",
                asks,
                "; ".join(f"{path}: {why}" for path, why in PROTECTED_PATHS),
            ),
            Rule("any path outside the workspace", "refused", "the file tools check every path"),
        ]


def _approve(call: FileCall, needed: NeedsApproval) -> None:
    """Hand the approval to the tool, for the one protected file it covers."""
    if needed.target is not None and call.approved is not None:
        call.approved.add(needed.target)
