"""What the middlewares and a file tool tell each other about one tool call.

The permission policy and the stale-write guard decide before the tool runs, from the path in
the call. The tool opens the file a moment later, and a racing command may have changed what
the path leads to in between. So a decision is not left at "this path was fine": the middlewares
write what they decided into the call's `FileCall`, and the tool checks it against the file it
actually opened (tools/beneath.py), then notes what it read or wrote there:

    permission policy   approved      the canonical paths of protected files a person allowed
    stale-write guard   expected      what each file must still be when it is replaced
    the tool            touched       what it read or wrote: canonical path -> fingerprint

A write that reaches a protected file the policy did not approve for this call, or a file that
is not the one the guard checked, is refused by the tool itself. Where no permission policy
looked at the call (the bare loop, `Agent(middleware=[])`, a direct call from a script), there is
no decision to enforce, and protected files are written like any other: the policy is what
protects them.

The `FileCall` travels in a context variable: the middlewares set it in the loop's task, and
the tool's task and thread start with a copy of that context, so they see the same object.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from tools.base import ToolError
from tools.beneath import Fingerprint, Target
from tools.letter_case import as_on_disk, ignores_case
from tools.paths import GIT_REASON, protected_reason


@dataclass
class FileCall:
    """The decisions about one tool call (`call_id`), and what its tool opened."""

    call_id: str
    # Set by the permission policy (None: no policy decided about this call).
    approved: set[str] | None = None
    # Set by the stale-write guard: a file written must be exactly as the guard saw it
    # (None: there was no file), and a path the guard did not see is not written at all.
    expected: dict[str, Fingerprint | None] | None = None
    touched: dict[str, Fingerprint] = field(default_factory=dict)


_current: ContextVar[FileCall | None] = ContextVar("planloop_file_call", default=None)


def file_call(call_id: str) -> FileCall:
    """The `FileCall` of this tool call, for a middleware's before_tool_call; made on first use."""
    current = _current.get()
    if current is None or current.call_id != call_id:
        current = FileCall(call_id)
        _current.set(current)
    return current


# What the permission policy puts in `approved` when a person (or --yes) allowed a bash call to
# run outside the sandbox. bash runs such a call only when it finds this mark: with no policy
# (the bare loop) nobody asked, so nothing leaves the sandbox.
OUTSIDE_SANDBOX_APPROVED = "bash: outside the sandbox"


def current_file_call() -> FileCall | None:
    """The `FileCall` of the call a tool is running for, if a middleware made one."""
    return _current.get()


def protection(workspace: Path, path: str, target: Target) -> str | None:
    """Why writing this target is not a plain write: by the name given, the one walked to, or
    a git directory on the way, whatever it is called; because the sandbox hides the file for
    holding planloop's key (the file a `.env` link leads to); or because sandboxed commands
    find it read-only, wherever it is named from."""
    # Imported here: tools/sandbox.py imports this module.
    from tools.sandbox import held_for_commands_reason, key_file_reason
    from tools.tool_scripts import read_once

    if target.in_git_dir:
        return GIT_REASON
    spellings = [path, target.relative]
    root = Path(workspace).resolve()
    if ignores_case(root):  # `.VSCODE/tasks.json` is `.vscode/tasks.json`
        spellings += as_on_disk(root, target.relative)
    with read_once():  # each spelling asks what the host tools' settings run: read them once
        return (
            next((why for name in spellings if (why := protected_reason(workspace, name))), None)
            or key_file_reason(workspace, target.relative)
            or held_for_commands_reason(workspace, target.relative)
        )


def approved_files_alone(workspace: Path, tool_name: str) -> AbstractContextManager[None]:
    """For a call a person approved to write protected files: held while the tool runs, and
    refused (ToolError) while a sandboxed command or task of any of your planloop sessions runs
    (tools/task_lock.py). Nothing to hold for any other call."""
    from tools.task_lock import no_sandbox_runs  # late: tools/tasks.py imports this module

    call = current_file_call()
    given = (call.approved or ()) if call is not None else ()
    approved = [path for path in given if path != OUTSIDE_SANDBOX_APPROVED]
    if not approved:
        return contextlib.nullcontext()
    root = Path(workspace).resolve()
    return no_sandbox_runs([root / path for path in sorted(approved)], tool_name)


def write_check(
    tool_name: str, workspace: Path, path: str, *, read: Fingerprint | None = None
) -> Callable[[Target], None]:
    """The check `replace_file` runs on the target it actually opened; it raises ToolError.

    `read` is the fingerprint of the file as the tool itself read it (an edit, an append): the
    file must still be exactly that when it is replaced.
    """
    call = current_file_call()

    def check(target: Target) -> None:
        relative, found = target.relative, target.fingerprint
        _refuse_unapproved(tool_name, workspace, path, target, call)
        if call is not None and call.expected is not None:
            if relative not in call.expected:
                raise ToolError(
                    f"{tool_name}: {path} changed on disk while it was being checked (it now "
                    f"leads to {relative}). Nothing was written. Read it with read_file, then "
                    "send the change again."
                )
            if call.expected[relative] != found:
                raise _changed(tool_name, path)
        if read is not None and read != found:
            raise _changed(tool_name, path)

    return check


def read_check(tool_name: str, workspace: Path, path: str) -> Callable[[Target], None]:
    """The check a writing tool runs on the file it opened to read (an edit), before it reads
    a byte: a protected file that no approval covers is refused there, in the same words as
    its write. Refused only once read, the answer would depend on the content (whether
    old_text is in it), and a name made a link to `.env` would tell the model about the key.
    """
    call = current_file_call()

    def check(target: Target) -> None:
        _refuse_unapproved(tool_name, workspace, path, target, call)

    return check


def _refuse_unapproved(
    tool_name: str, workspace: Path, path: str, target: Target, call: FileCall | None
) -> None:
    relative = target.relative
    if call is None or call.approved is None or relative in call.approved:
        return
    why = protection(workspace, path, target)
    if why:
        raise _protected(tool_name, path, relative, why)


def refuse_key_holder(tool_name: str, path: str, relative: str, data: bytes) -> None:
    """Refuse to change a file whose bytes, as the tool read them, hold planloop's key, unless
    a person approved it in this call. `protection` judged the file at the path; this judges
    what the tool opened and read, whatever the path leads to now. Called before the answer
    depends on the content (an edit's found / not found), so it is the same for any edit."""
    # Imported here: tools/sandbox.py imports this module.
    from tools.sandbox import KEY_FILE_REASON, holds_the_key

    call = current_file_call()
    if call is None or call.approved is None or relative in call.approved:
        return
    if holds_the_key(data):
        raise _protected(tool_name, path, relative, KEY_FILE_REASON)


def _protected(tool_name: str, path: str, relative: str, why: str) -> ToolError:
    return ToolError(
        f"{tool_name}: {path} leads to {relative}, which is protected: {why}. Nothing was "
        "written, because no approval covers that file in this call (the path may have "
        "changed after it was checked). Leave it as it is and go on with the task."
    )


def note_touched(relative: str, seen: Fingerprint) -> None:
    """Tell the stale-write guard what the tool read or wrote (what the model now knows)."""
    call = current_file_call()
    if call is not None:
        call.touched[relative] = seen


def _changed(tool_name: str, path: str) -> ToolError:
    return ToolError(
        f"{tool_name}: {path} changed on disk while this call was running (a command or "
        "someone else changed it). Nothing was written. Read it again with read_file, then "
        "send the change based on what is there now."
    )
