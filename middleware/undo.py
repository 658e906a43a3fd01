"""Remember what each input's file writes replaced, so that `/undo` can put it back.

    a tool that declares writes= is about to run  ->  first time this input touches the file:
                                                      record its content now ("before"), or
                                                      that there was no file
    the tool has run                              ->  record a digest of what it left ("after")
    bash ran in this input                        ->  record that, once: its changes are not
                                                      known, so /undo says it cannot undo them

The records go to `on_record` as they are made (the terminal appends them to the session log,
session.py), and `replay` rebuilds the history from a log after `--resume`. Which tools write,
and which input is the path, comes from each tool's `writes=` declaration (tools/base.py), so a
new tool that declares it is covered without a line here. Files are known by their canonical
path, the one the walk beneath the workspace reaches (tools/beneath.py).

Putting files back (`plan_undo`, `apply_undo`) goes through the same walk: a restore never
leaves the workspace, never writes a protected path (.git/, .env*, planloop's home), and does
nothing to a file that changed between the question and the answer. A file above
UNDO_MAX_BYTES is not copied: /undo says it cannot put that one back.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
)
from redaction import redact, redact_bytes
from tools.base import ToolError
from tools.beneath import (
    Fingerprint,
    Target,
    fingerprint,
    located,
    open_for_reading,
    open_target,
    replace_file,
    target_of,
)
from tools.file_call import protection

# Above this size a file's content is not kept: the session log would grow by that much for
# every input that changes it. 1 MiB holds any source file people edit by hand.
UNDO_MAX_BYTES = 1024 * 1024
# bash may change any file, and what it changed is not known: only that it ran.
COMMAND_TOOLS = ("bash",)
PROMPT_CHARS = 80  # of an input's text, to name it in the /undo list


@dataclass
class FileBefore:
    """One file as it was before an input first changed it, and what the input left there."""

    path: str  # canonical, relative to the workspace
    existed: bool
    content: bytes | None  # None: not kept (over the size limit, or the saved copy is altered)
    size: int = 0
    why_not_kept: str = ""
    # A digest of what the file tools left: None for "no file"; `after_known` False until a
    # tool of this input has run on the file (a process that died mid-call never says).
    after: str | None = None
    after_known: bool = False


@dataclass
class InputChanges:
    """What one input (one run of the loop) changed through the file tools."""

    run_id: str
    prompt: str
    files: dict[str, FileBefore] = field(default_factory=dict)
    ran_commands: bool = False
    undone: bool = False


@dataclass
class FileState:
    """A file as it is now: a digest of its content (None: no file) and its fingerprint."""

    digest: str | None
    fingerprint: Fingerprint | None
    regular: bool = True  # False: something else is there (a folder, a pipe)


class UndoRecorder(Middleware):
    """Record the content before the first change of each file in each input."""

    def __init__(self, on_record: Callable[[dict], None] | None = None) -> None:
        self.on_record = on_record  # where each record goes (the session log); None: memory only
        self.inputs: list[InputChanges] = []
        self.pending: dict[str, str] = {}  # tool call id -> the canonical path it writes

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        context = ctx.context
        if ctx.tool_call["name"] in COMMAND_TOOLS:
            changes = self.current(context)
            if not changes.ran_commands:
                self.add({"event": "commands", "run": changes.run_id, "input": changes.prompt})
            return None
        path = declared_write(ctx)
        if path is None:
            return None
        changes = self.current(context)
        try:
            relative = target_of(context.workspace, path).relative
            if relative not in changes.files:  # only the first change of an input counts
                # Read through the path itself, not the canonical path just found: a command
                # may have made a link of it since, and the copy is kept under the canonical
                # path of the file actually read (see read_before).
                before = await asyncio.to_thread(read_before, context.workspace, path)
                if before is None:
                    return None  # a folder or a pipe: the tool refuses to write it
                relative = before.path
                if relative not in changes.files:
                    self.add(before_record(changes, before))
        except (ToolError, OSError):
            return None  # the tool itself refuses this path, with its reason
        self.pending[ctx.tool_call["id"]] = relative
        return None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, *, signal: asyncio.Event | None = None
    ) -> AfterToolCallResult | None:
        relative = self.pending.pop(ctx.tool_call["id"], None)
        if relative is None:
            return None
        # Also after an error: a write cancelled after its rename did write (tools/beneath.py).
        try:
            now = await asyncio.to_thread(file_state, ctx.context.workspace, relative)
        except (ToolError, OSError):
            return None
        run = ctx.context.run_id
        self.add({"event": "after", "run": run, "path": relative, "sha256": now.digest})
        return None

    # ---- the history ---------------------------------------------------------------------

    def current(self, context: AgentContext) -> InputChanges:
        """The changes of the input now running, made on its first record."""
        if self.inputs and self.inputs[-1].run_id == context.run_id:
            return self.inputs[-1]
        changes = InputChanges(context.run_id, input_text(context.messages))
        self.inputs.append(changes)
        return changes

    def add(self, entry: dict) -> None:
        """Apply one record to the history and hand it to `on_record`."""
        self.apply(entry)
        if self.on_record is not None:
            self.on_record(entry)

    def apply(self, entry: dict) -> None:
        """Apply one record (made now, or replayed from a log) to the history."""
        run = entry.get("run")
        if not isinstance(run, str):
            return
        changes = next((c for c in reversed(self.inputs) if c.run_id == run), None)
        if changes is None:
            changes = InputChanges(run, str(entry.get("input") or ""))
            self.inputs.append(changes)
        event, path = entry.get("event"), entry.get("path")
        if event == "commands":
            changes.ran_commands = True
        elif event == "undone":
            changes.undone = True
        elif event == "before" and isinstance(path, str) and path not in changes.files:
            changes.files[path] = file_before(entry)
        elif event == "after" and isinstance(path, str) and path in changes.files:
            changes.files[path].after = entry.get("sha256")
            changes.files[path].after_known = True

    def replay(self, entries: list[dict]) -> None:
        """Rebuild the history from a session log's records (`--resume`)."""
        for entry in entries:
            self.apply(entry)

    def forget(self) -> None:
        """A fresh session starts with nothing to undo."""
        self.inputs.clear()
        self.pending.clear()

    def next_to_undo(self) -> tuple[InputChanges | None, bool]:
        """The latest input with file changes not undone yet, and whether it or a later input
        ran commands (whose changes /undo cannot know)."""
        commands = False
        for changes in reversed(self.inputs):
            commands = commands or changes.ran_commands
            if changes.files and not changes.undone:
                return changes, commands
        return None, commands

    def mark_undone(self, changes: InputChanges) -> None:
        self.add({"event": "undone", "run": changes.run_id})


def declared_write(ctx: BeforeToolCallContext) -> str | None:
    """The path the called tool declares it writes (`writes=`), if any."""
    tool = ctx.context.tools.get(ctx.tool_call["name"])
    name = getattr(tool, "writes", None)
    path = ctx.args.get(name) if name else None
    return path if isinstance(path, str) else None


def input_text(messages: list[dict]) -> str:
    """The text of the input now running: the last user message that holds no tool results."""
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") != "user":
            continue
        if isinstance(content, str):
            return shorten(content)
        if any(block.get("type") == "tool_result" for block in content):
            continue
        texts = [block.get("text", "") for block in content if block.get("type") == "text"]
        return shorten(texts[-1] if texts else "")
    return ""


def shorten(text: str) -> str:
    # (redacted whole before it is cut: a key cut short is no longer one redaction finds)
    line = " ".join(redact(text).split())
    return line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1] + "…"


# ---- records ------------------------------------------------------------------------------------


def before_record(changes: InputChanges, before: FileBefore) -> dict:
    """The log record of a file's content before the input's first change to it."""
    entry: dict = {
        "event": "before",
        "run": changes.run_id,
        "input": changes.prompt,
        "path": before.path,
        "existed": before.existed,
        "size": before.size,
    }
    if before.content is None:
        entry["kept"] = False
        if before.why_not_kept:
            entry["why"] = before.why_not_kept
        return entry
    entry["sha256"] = digest_of(before.content)
    # The log's redaction sees text only: a key in a copy kept as base64 (a Latin-1 file), or
    # in UTF-16, would reach the disk. Removed here, the copy no longer matches its digest, and
    # `file_before` does not restore it, as for a key removed from a text copy.
    content = redact_bytes(before.content)
    try:
        entry["text"] = content.decode("utf-8")
    except UnicodeDecodeError:
        entry["base64"] = base64.b64encode(content).decode("ascii")
    return entry


def file_before(entry: dict) -> FileBefore:
    """A `before` record read back. A copy whose digest no longer matches (the log removes API
    keys from what it writes, redaction.py) is not restored: it would not be the file."""
    existed, size = bool(entry.get("existed")), entry.get("size")
    before = FileBefore(str(entry["path"]), existed, None, size if isinstance(size, int) else 0)
    if not existed:
        return before
    if entry.get("kept") is False:
        why = entry.get("why")
        before.why_not_kept = why if isinstance(why, str) and why else too_large(before.size)
        return before
    try:
        if isinstance(entry.get("text"), str):
            content = entry["text"].encode("utf-8")
        else:
            content = base64.b64decode(str(entry.get("base64")), validate=True)
    except (ValueError, UnicodeEncodeError):
        content = None
    if content is None or digest_of(content) != entry.get("sha256"):
        before.why_not_kept = "its saved copy is not the file (a secret was removed from the log)"
        return before
    before.content = content
    return before


def too_large(size: int) -> str:
    return (
        f"it was {size:,} bytes, over the {UNDO_MAX_BYTES // 1024} KiB limit for undo, "
        "so no copy was kept"
    )


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---- reading files beneath the workspace ---------------------------------------------------


def read_before(workspace: Path, path: str) -> FileBefore | None:
    """The file `path` leads to, as it is now (None: something other than a file).

    The copy is named by the canonical path of the file opened, the one its bytes were read
    from: a path that led to one file when it was looked up and to another (a link to `.env`)
    when it was opened is never recorded as holding that other file's content, which /undo
    would then write into it. A protected file's content is not kept at all: /undo never
    writes one (plan_file), and a copy of `.env` would only hold the key.
    """
    try:
        fd, target = open_target(workspace, path)
    except FileNotFoundError as missing:  # named by the canonical path the walk found missing
        return FileBefore(str(missing.filename), existed=False, content=None)
    except NotADirectoryError:
        return FileBefore(target_of(workspace, path).relative, existed=False, content=None)
    except ToolError:
        return None  # a pipe, a device: not a file to restore
    relative = target.relative
    with os.fdopen(fd, "rb") as file:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return None
        why = protection(workspace, path, target)
        if why:
            before = FileBefore(relative, True, None, status.st_size)
            before.why_not_kept = f"{why}; restore it yourself if you need to"
            return before
        if status.st_size > UNDO_MAX_BYTES:
            return FileBefore(relative, True, None, status.st_size)
        content = file.read(UNDO_MAX_BYTES + 1)
    if len(content) > UNDO_MAX_BYTES:  # it grew while being read
        return FileBefore(relative, True, None, len(content))
    return FileBefore(relative, True, content, len(content))


def file_state(workspace: Path, relative: str) -> FileState:
    """What is at a canonical path now: a digest of the file, or None when there is none."""
    try:
        fd, _ = open_for_reading(workspace, relative)
    except (FileNotFoundError, NotADirectoryError):
        return FileState(None, None)
    except ToolError:
        return FileState(None, None, regular=False)
    with os.fdopen(fd, "rb") as file:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            return FileState(None, None, regular=False)
        digest = hashlib.sha256()
        while chunk := file.read(1024 * 1024):
            digest.update(chunk)
    return FileState(digest.hexdigest(), fingerprint(status))


# ---- undoing -----------------------------------------------------------------------------------


@dataclass
class FileUndo:
    """What /undo does to one file: restore it, delete it (the input created it), or nothing."""

    before: FileBefore
    action: str  # "restore", "delete", "nothing" (already as it was) or "cannot"
    why: str = ""  # for "cannot": the reason
    changed_since: bool = False  # someone (a person, a command) changed it after the input
    now: FileState | None = None

    @property
    def path(self) -> str:
        return self.before.path

    def describe(self) -> str:
        """One line for the list shown before the question."""
        if self.action == "restore":
            what = "restored to its content before that input"
        elif self.action == "delete":
            what = "deleted: that input created it"
        elif self.action == "nothing":
            what = "nothing to do: it is already as it was before"
        else:
            what = f"cannot be undone: {self.why}"
        return what

    def warning(self) -> str:
        """A second line for a file that changed after the input, else ''."""
        if not self.changed_since:
            return ""
        return "! it changed after planloop wrote it (by you or a command): asks again first"


def plan_undo(workspace: Path, changes: InputChanges) -> list[FileUndo]:
    """What undoing `changes` would do to each file, judged from the files as they are now."""
    plans = []
    for before in changes.files.values():
        plans.append(plan_file(workspace, before))
    return plans


def plan_file(workspace: Path, before: FileBefore) -> FileUndo:
    if before.existed and before.content is None:
        return FileUndo(before, "cannot", before.why_not_kept or too_large(before.size))
    try:
        target = target_of(workspace, before.path)
        why = protection(workspace, before.path, target) or elsewhere(before.path, target)
        now = file_state(workspace, before.path)
    except (ToolError, OSError) as err:
        return FileUndo(before, "cannot", f"it cannot be reached now ({err})")
    if why:
        return FileUndo(before, "cannot", f"{why}; restore it yourself if you need to")
    if not now.regular:
        return FileUndo(before, "cannot", "something other than a file is there now", now=now)
    wanted = digest_of(before.content) if before.content is not None else None
    if now.digest == wanted:
        return FileUndo(before, "nothing", now=now)
    changed = not before.after_known or now.digest != before.after
    action = "restore" if before.existed else "delete"
    return FileUndo(before, action, changed_since=changed, now=now)


def elsewhere(path: str, target: Target) -> str | None:
    """Why /undo must not touch `path` when it leads somewhere else now, else None.

    The path was recorded as the file tool reached it, links resolved. A link put in its place
    since (or in place of a folder on the way) would have /undo delete or overwrite another
    file, one planloop never wrote, whose content may even be the same.
    """
    if target.relative == path:
        return None
    return f"it is a link to {target.relative} now"


def apply_file(workspace: Path, plan: FileUndo) -> str:
    """Restore or delete one file; return what happened, in a few words.

    The file must still be exactly as it was when the list was shown (its fingerprint):
    anything newer is left alone.
    """
    expected = plan.now.fingerprint if plan.now else None

    def check(target: Target) -> None:
        why = protection(workspace, plan.path, target) or elsewhere(plan.path, target)
        if why:
            raise ToolError(f"{why}; not written")
        if target.fingerprint != expected:
            raise ToolError("it changed again while you answered; left as it is")

    try:
        if plan.action == "restore":
            replace_file(workspace, plan.path, plan.before.content or b"", check=check)
            return "restored"
        if plan.action == "delete":
            delete_file(workspace, plan.path, check)
            return "deleted"
    except ToolError as err:
        return f"not undone: {err}"
    except OSError as err:
        return f"not undone: {err.strerror or err}"
    return "left as it is"


def delete_file(workspace: Path, relative: str, check: Callable[[Target], None]) -> None:
    """Remove the file at a canonical path, reached one opened folder at a time (no link is
    followed on the way), after `check` accepted what is there."""
    with located(workspace, relative) as where:
        if where.folder is None or where.name == ".":
            raise FileNotFoundError(errno.ENOENT, "it is gone already", relative)
        status = os.stat(where.name, dir_fd=where.folder, follow_symlinks=False)
        if not stat.S_ISREG(status.st_mode):
            raise ToolError("it is no longer a regular file; left as it is")
        check(Target(where.relative, fingerprint(status), where.in_git_dir))
        os.unlink(where.name, dir_fd=where.folder)
