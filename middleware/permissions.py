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

While a sandboxed background task runs, a protected write is refused without a question (also
with --yes): replacing the file would take it from under that task's read-only bind. A command
of another session is seen by the tool itself, which takes a lock (tools/task_lock.py).

"Asks" means: the person is asked in the interactive mode; in a headless run it is refused
(with an error the model can act on) unless `--yes` allowed everything up front. A path outside
the workspace is refused by the file tools themselves, whatever the answer.

The question goes through an injected function, so the front end decides how it looks:

    async ask(question: Question) -> (answer, reason)

`question` is a str: a first line that asks (e.g. "Run this command?"), then the details (the
exact command, or the path and why it is protected). It also carries, for a front end that
wants them, `question.always` (what an "always" would allow from now on, or None when it is not
offered) and `question.call` (the tool call, so a write can be shown as a diff). `answer` is
"yes", "no", "always" or "interrupt" (Ctrl-D: cancel the run). `reason` is what the person wants
the model to know after a "no".

"Always" adds a rule for the rest of the session, and /permissions lists the rules:

    bash (asking)          commands starting with the same first word(s), and only simple
                           commands (middleware/command_prefix.py): `npm test` -> `npm test`,
                           never `npm test && curl … | sh`; no rule for a compound command
    a protected file       writes to *this* file (canonical path)
    never offered          bash with outside_sandbox; a file under `.git/` or planloop's home

A command rule can be saved for this folder in planloop's home (`/permissions save N`,
middleware/saved_rules.py) and is loaded on the next start there. The question is awaited
against the run's cancel signal, like a tool (`Agent.cancel` in agent.py): a Ctrl-C or SIGTERM
while it waits cancels the question and the run. A plain function that returns the answer at
once works too (tests, scripts).
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from middleware.base import (
    BeforeToolCallContext,
    BeforeToolCallResult,
    Interrupted,
    Middleware,
    until_cancelled,
)
from middleware.command_prefix import prefix_for, starts_with
from middleware.saved_rules import load_saved_prefixes, write_saved_prefixes
from tools.base import ToolError
from tools.beneath import is_under_git, target_of
from tools.file_call import OUTSIDE_SANDBOX_APPROVED, FileCall, file_call, protection
from tools.paths import HOME_REASON, PROTECTED_PATHS
from tools.tool_scripts import ANY_FILE_MAY_RUN, FILE_TOOLS_ASK_TOO

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


# The id todo/checks.py gives the bash call it asks about for a todo item's check.
CHECK_CALL_ID = "todo-check"


class Question(str):
    """The text of an approval question, plus what a front end may show beside it.

    `always`: what an "always" answer would allow from now on ('commands starting with `npm
    test`'), or None when "always" is not offered. `call`: the tool call asked about, as
    {"name": ..., "input": ...}. `no_reason`: a "no" ends the matter, so a front end asks no
    reason for the model. It is a str, so a simple `ask` function can ignore all three.
    """

    always: str | None
    call: dict[str, Any] | None
    no_reason: bool

    def __new__(
        cls,
        text: str,
        *,
        always: str | None = None,
        call: dict[str, Any] | None = None,
        no_reason: bool = False,
    ) -> Question:
        question = super().__new__(cls, text)
        question.always, question.call, question.no_reason = always, call, no_reason
        return question


@dataclass(frozen=True)
class AlwaysRule:
    """What one "always" allows without asking again: bash commands that start with `prefix`
    (middleware/command_prefix.py), or writes to one protected file, `path` (canonical)."""

    prefix: tuple[str, ...] = ()
    path: str = ""
    saved: bool = False  # kept for this folder in planloop's home (middleware/saved_rules.py)

    def describe(self) -> str:
        if self.prefix:
            return f"commands starting with `{' '.join(self.prefix)}`"
        return f"writes to {self.path}"


@dataclass(frozen=True)
class NeedsApproval:
    """A call that needs a yes: what to ask, what to say headless, and what the rules may cover.

    `command` is a bash command that a command rule may cover (None for outside_sandbox, which
    no rule covers); `always` is the rule an "always" answer adds (None: not offered). `target`
    is the protected file a yes approves, for the tool to check (tools/file_call.py).
    """

    question: Question
    refusal: str
    command: str | None = None
    always: AlwaysRule | None = None
    target: str | None = None
    # For a protected file: what and why, to begin the refusal while sandboxed tasks run.
    protected: str | None = None


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
        # What the person said "always" to, in order: /permissions numbers them from 1.
        self.session_rules: list[AlwaysRule] = []
        self.saved_rules_of: Path | None = None  # the folder whose rules are saved (the CLI's)

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        # Made for every call, so an approval never carries over to a later call.
        call = file_call(ctx.tool_call["id"])
        call.approved = set()  # the tool enforces what is approved here, and nothing else
        needed = self._needs_approval(ctx)
        if needed is None:
            return None
        allowed = self.allow_all or self.covered(needed)
        if not allowed and self.ask is None:
            return BeforeToolCallResult(block=True, reason=needed.refusal)
        if needed.protected and (running := _sandboxed_tasks_running(ctx)):
            # Refused before anyone is asked: a yes could not be kept (tools/tasks.py says why).
            reason = f"{needed.protected}, and {WHILE_TASKS_RUN.format(tasks=', '.join(running))}"
            return BeforeToolCallResult(block=True, reason=reason)
        if allowed:
            _approve(call, needed)
            return None
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
        if answer == "always" and needed.always is not None:
            self.session_rules.append(needed.always)
        if answer in ("yes", "always"):  # an "always" where none was offered is a yes
            _approve(call, needed)
            return None
        what = "command" if ctx.tool_call["name"] == "bash" else "change"
        if ctx.tool_call.get("id") == CHECK_CALL_ID:
            what = "check"
        why = f" The user said: {reason}" if reason else ""
        return BeforeToolCallResult(block=True, reason=f"The user declined this {what}.{why}")

    def covered(self, needed: NeedsApproval) -> bool:
        """Whether a rule of this session allows the call without a question."""
        for rule in self.session_rules:
            if rule.prefix and needed.command is not None:
                if starts_with(needed.command, rule.prefix):
                    return True
            elif rule.path and needed.always is not None and rule.path == needed.always.path:
                return True
        return False

    # ---- the rules of the session, for /permissions -------------------------------------------

    def use_saved_rules(self, workspace: Path) -> str:
        """Load the command rules saved for `workspace`, and save there from now on.

        Returns why saved rules were ignored, for the front end to say ('' when all is well).
        """
        self.saved_rules_of = workspace
        prefixes, problem = load_saved_prefixes(workspace)
        known = {rule.prefix for rule in self.session_rules}
        saved = [AlwaysRule(prefix, saved=True) for prefix in prefixes if prefix not in known]
        self.session_rules[:0] = saved
        return problem

    def forget(self, number: int) -> AlwaysRule:
        """Remove rule `number` (from 1, as /permissions lists them), also from the saved ones."""
        rules = list(self.session_rules)
        rule = rules.pop(self.rule_index(number))
        if rule.saved:
            self.write_saved(rules)
        self.session_rules = rules
        return rule

    def save(self, number: int) -> Path:
        """Keep command rule `number` for this folder: loaded again on the next start here."""
        index = self.rule_index(number)
        if self.saved_rules_of is None:
            raise ValueError("this agent has no folder to save rules for")
        if not self.session_rules[index].prefix:
            raise ValueError("only command rules can be saved; a file's rule lasts the session")
        rules = list(self.session_rules)
        rules[index] = replace(rules[index], saved=True)
        path = self.write_saved(rules)  # first: a home that cannot be written changes nothing
        self.session_rules = rules
        return path

    def write_saved(self, rules: list[AlwaysRule]) -> Path:
        assert self.saved_rules_of is not None  # a saved rule came from use_saved_rules
        prefixes = [rule.prefix for rule in rules if rule.saved]
        return write_saved_prefixes(self.saved_rules_of, prefixes)

    def rule_index(self, number: int) -> int:
        if not 1 <= number <= len(self.session_rules):
            count = len(self.session_rules)
            raise ValueError(f"there is no rule {number}; /permissions lists {count}")
        return number - 1

    async def answer(self, question: str, cancel: asyncio.Event) -> Approval:
        """The person's answer, awaited against the run's cancel signal."""
        asking = self.ask(question)
        if inspect.isawaitable(asking):
            return await until_cancelled(asking, cancel)
        return asking

    def _needs_approval(self, ctx: BeforeToolCallContext) -> NeedsApproval | None:
        """What to ask about a call that needs a yes, else None."""
        name = ctx.tool_call["name"]
        shown_call = {"name": name, "input": ctx.args}
        must_ask = getattr(self.sandbox, "must_ask", None)  # the sandbox cannot keep its promise
        tool = ctx.context.tools.get(name)
        from tools.bash import runs_commands, sandbox_of  # late: it imports the middlewares

        # Bash by what it runs, not by its name: given the agent's sandbox, a command tool runs
        # unasked only when it spawns through it (a tool named bash that runs commands its own
        # way asks). Without one, `sandboxed` is the caller's word.
        commands = name == "bash" or runs_commands(tool)
        sandboxed = self.sandboxed and (self.sandbox is None or sandbox_of(tool) is self.sandbox)
        if commands and ctx.args.get("outside_sandbox"):
            question = Question(
                f"Run this command OUTSIDE the sandbox? (asked every time)\n{ctx.args['command']}",
                call=shown_call,
            )
            # No rule covers it and "always" is not offered; a yes is handed to bash for this call.
            return NeedsApproval(question, OUTSIDE_SANDBOX_REFUSAL, target=OUTSIDE_SANDBOX_APPROVED)
        if commands and (not sandboxed or must_ask):
            command = ctx.args["command"]
            prefix = prefix_for(command)
            always = AlwaysRule(prefix) if prefix else None
            asks = "Run this command?"
            if ctx.tool_call.get("id") == CHECK_CALL_ID:
                asks = "Run this check before a todo item is marked done?"
            question = Question(
                f"{asks}\n{command}", always=always and always.describe(), call=shown_call
            )
            refusal = HEADLESS_BASH_REFUSAL
            if self.sandboxed and not sandboxed:  # a command tool of its own making
                refusal = refusal.replace(
                    "this agent runs without the sandbox",
                    f"this {name} tool does not run its commands in the agent's sandbox",
                )
            elif self.sandboxed and must_ask:  # the sandbox is on, but cannot keep its promise
                refusal = refusal.replace(
                    "this agent runs without the sandbox",
                    f"the sandbox cannot confine it ({must_ask})",
                )
                if FILE_TOOLS_ASK_TOO in must_ask:  # (no other way to do the work, then)
                    refusal = refusal.replace(
                        "Do the work with read_file, write_file and edit_file, or tell",
                        "The file tools cannot write either, for the same reason: tell",
                    )
            return NeedsApproval(question, refusal, command=command, always=always)
        written = getattr(tool, "writes", None)
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
        # "Always" covers this one file, and never a file under .git or in planloop's home (the
        # saved rules live there): each of those is asked about every time.
        under_git = (
            target.in_git_dir or is_under_git(relative) or is_under_git(os.path.normpath(path))
        )
        always = None if under_git or why == HOME_REASON else AlwaysRule(path=relative)
        # (Any file: the path itself is no more protected than the rest of the workspace.)
        what = "a file a host tool may run" if ANY_FILE_MAY_RUN in why else "a protected path"
        question = Question(
            f"Allow {name} on {what}?\n{path}{leads_to}\n{why}.",
            always=always and always.describe(),
            call=shown_call,
        )
        refusal = (
            f"{name}: {path} was not changed. {why}, and nobody can approve the change in this "
            "run (headless, without --yes). Leave the file as it is and go on with the task; "
            "if the change is needed, tell the user what to change and why."
        )
        protected = f"{name}: {path} was not changed. {why}"
        return NeedsApproval(question, refusal, always=always, target=relative, protected=protected)

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
            why = "no sandbox: it can change anything you can"
            if asks == "asks" and any(rule.prefix for rule in self.session_rules):
                why += "; what the rules below allow runs without asking"
            bash = [Rule("bash", asks, why)]
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


# Said when a protected write is refused because sandboxed background tasks run.
WHILE_TASKS_RUN = (
    "sandboxed background tasks are running ({tasks}): replacing the file now would lift its "
    "read-only hold in their sandboxes, so a task could change it after the approval. Stop "
    "them with task_stop (or wait for them with task_output and wait), then send this change "
    "again."
)


def _sandboxed_tasks_running(ctx: BeforeToolCallContext) -> list[str]:
    from tools.tasks import sandboxed_tasks_running  # late: it imports the middlewares

    return sandboxed_tasks_running(ctx.context.tools)


def _approve(call: FileCall, needed: NeedsApproval) -> None:
    """Hand the approval to the tool, for the one protected file it covers."""
    if needed.target is not None and call.approved is not None:
        call.approved.add(needed.target)
