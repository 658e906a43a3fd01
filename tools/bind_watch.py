"""What a running sandbox no longer hides or holds, found when its command ends or is looked at.

The sandbox (tools/sandbox.py) hides a file holding the key by binding an empty file over it,
and holds a file read-only by binding it onto itself. A bind sits on the file's folder entry.
When that entry is replaced on the host (an editor's safe write, `sed -i`, `dotenv set`, a git
checkout or stash, a shell saving its history: a new file renamed over the old one) or removed
and made again, Linux takes the bind away in every other mount namespace, so a command or
background task already running then reads the real file, or writes it. No bind can prevent
that, so planloop records the device and inode of every path a sandbox binds when the command
starts and compares them afterwards:

    start  = sandbox_start(sandbox, workspace, argv)     before the command starts
    lost   = what_was_lost(sandbox, start)               when it ends, or its output is read
    lost.seen       hidden files it could read: replaced, or holding the key since it started
                    (a new .env.local, a key added in place): planloop treats the key as read
    lost.replaced   held files (or folders) replaced: the command could change the new one

bash (foreground) and the background tasks (tools/tasks.py) act on what is found; the exposure
middleware (middleware/exposure.py) stops or pauses the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redaction import secret_encodings

Identity = tuple[int, int]


@dataclass
class SandboxStart:
    """What one sandbox bound when its command started: its view (`Bubblewrap.view_of`), and
    the identity of each bound path that existed then."""

    workspace: Path
    held: frozenset[str]
    hidden: frozenset[str]
    identities: dict[str, Identity] = field(default_factory=dict)


@dataclass
class Lost:
    """What a sandbox stopped hiding or holding while its command ran."""

    seen: list[str] = field(default_factory=list)  # it could read these (the key, a secret)
    replaced: list[str] = field(default_factory=list)  # held ones it could change since
    unknown: bool = False  # no sandbox could be made now to compare with
    now: tuple[frozenset[str], frozenset[str]] | None = None  # the view of a sandbox made now


def identity(path: str) -> Identity | None:
    """The device and inode a bind on `path` sits on (a final link followed, as mount does)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def sandbox_start(sandbox: Any, workspace: Path, argv: list[str]) -> SandboxStart | None:
    """The record of a sandbox about to start from `argv`; None for a sandbox without binds.

    Taken before the command starts: a path replaced between this and bwrap's mount reads as
    replaced later (said needlessly), never the other way round.
    """
    if not hasattr(sandbox, "view_of"):
        return None
    held, hidden = sandbox.view_of(argv)
    found = {path: identity(path) for path in held | hidden}
    known = {path: ident for path, ident in found.items() if ident is not None}
    return SandboxStart(Path(workspace), held, hidden, known)


def replaced_since(start: SandboxStart, paths: frozenset[str]) -> list[str]:
    """Those of `paths` that exist now as another file than the one bound at the start."""
    return sorted(
        path
        for path in paths
        if path in start.identities and identity(path) not in (None, start.identities[path])
    )


KEY_SEARCH_BYTES = 16 * 1024 * 1024  # a history or a .env is far smaller; past this, assume it


def may_hold_the_key(path: str) -> bool:
    """Whether `path` holds planloop's key in any encoding redaction knows, or cannot be read
    to tell (then it may): read without following a link or waiting on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return os.path.lexists(path)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False  # a link, folder or pipe put there holds no key itself
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(KEY_SEARCH_BYTES + 1)
    except OSError:
        return True
    finally:
        os.close(fd)
    if len(data) > KEY_SEARCH_BYTES:
        return True
    return any(secret in data for secret, _ in secret_encodings())


def what_was_lost(sandbox: Any, start: SandboxStart, view_now: Any = None) -> Lost:
    """Compare the sandbox made at `start` with the files now and with a sandbox made now.

    `view_now` (what `sandbox.view_now` returns) may be given when the caller has it already.
    A file a sandbox made now would hide, and this one did not, held the key or a secret while
    the command could read it (or came to hold it: a key added in place reads through a
    read-only bind).
    """
    lost = Lost()
    # A hidden file replaced on the host (a `.env` saved by `sed -i`, a shell history a closing
    # terminal rewrites) was readable from then on. Only one that holds the key stops the run;
    # the others are told like a held file replaced, since the command could change them too.
    replaced_hidden = replaced_since(start, start.hidden)
    lost.seen = [path for path in replaced_hidden if may_hold_the_key(path)]
    lost.replaced = sorted(
        {*replaced_since(start, start.held - start.hidden), *set(replaced_hidden) - set(lost.seen)}
    )
    now = quiet_view_now(sandbox, start.workspace) if view_now is None else view_now
    lost.now = now
    if now is None:
        lost.unknown = True
    else:
        # By identity: a file hidden at the start under another name (the file a `.env` link
        # led to, hidden now by its own name after the link changed) was hidden all along.
        hidden_then = {start.identities[path] for path in start.hidden if path in start.identities}
        appeared = [path for path in now[1] - start.hidden if identity(path) not in hidden_then]
        lost.seen = sorted({*lost.seen, *appeared})
    return lost


# What making a sandbox changes in the Bubblewrap object beyond its answer: the reason commands
# must ask (and the line that tells it), the paths it could not bind (said once, in the next
# command's notes), the package folders held for their hard links (said once), and the hooks
# stand-ins it mounted. A look made only to compare leaves them as the next command finds them.
SANDBOX_STATE = ("must_ask", "skipped", "packages_held", "hooks_stand_ins", "notify")


def quiet_view_now(sandbox: Any, workspace: Path) -> tuple[frozenset, frozenset] | None:
    """`sandbox.view_now(workspace)`, leaving the sandbox as it was (`SANDBOX_STATE`): the next
    command finds, says and reports what it would have found had nobody looked."""
    saved = {name: getattr(sandbox, name, None) for name in SANDBOX_STATE}
    copies = {name: value.copy() for name, value in saved.items() if isinstance(value, dict | set)}
    if hasattr(sandbox, "notify"):
        sandbox.notify = None
    try:
        return sandbox.view_now(workspace)
    finally:
        for name, value in saved.items():
            if hasattr(sandbox, name):
                setattr(sandbox, name, copies.get(name, value))


def shown(workspace: Path, path: str) -> str:
    """A path as the person is told it: from the workspace when it lies there (`.env.local`)."""
    inside = path.startswith(str(workspace) + os.sep)
    return os.path.relpath(path, workspace) if inside else path


def why_seen(start: SandboxStart, paths: list[str]) -> str:
    """'.env was replaced on the host, .env.local came to hold a secret' for the person."""
    parts = []
    for path in paths:
        how = (
            "was replaced on the host, which undid its hiding"
            if path in start.hidden
            else "came to hold the API key or a secret after it started"
        )
        parts.append(f"{shown(start.workspace, path)} {how}")
    return "; ".join(parts)


def key_seen(sandbox: Any, start: SandboxStart, paths: list[str], who: str, done: str) -> str:
    """Tell the person at once (`who` and what was `done` about it: "bg-1 was stopped"), keep
    it for the closing note, and leave it for the exposure middleware (middleware/exposure.py),
    which stops the run headless, or asks before anything else runs. Returns the line."""
    line = (
        f"{done}: it could read the API key or a secret ({why_seen(start, paths)}); files "
        f"written while {who} ran may hold a copy"
    )
    exposures = getattr(sandbox, "exposures", None)
    if exposures is not None:
        exposures.append(line)
    notify = getattr(sandbox, "notify", None)
    if notify is not None:
        notify(f"sandbox: {line}.")
    created = getattr(sandbox, "created", None)
    names = ", ".join(shown(start.workspace, path) for path in paths)
    record = f"files written while {who} could read {names} (they may hold a copy of the key)"
    if created is not None and record not in created:
        created.append(record)
    return line


def replaced_notes(sandbox: Any, start: SandboxStart, paths: list[str], who: str) -> list[str]:
    """Notes for the model, and a line for the person, on held paths replaced on the host."""
    if not paths:
        return []
    names = ", ".join(shown(start.workspace, path) for path in paths)
    line = (
        f"{names} was replaced on the host while {who} ran, which undid its read-only hold "
        f"there: {who} could change the new one. It was kept; check it before use"
    )
    notify = getattr(sandbox, "notify", None)
    if notify is not None:
        notify(f"sandbox: {line}.")
    created = getattr(sandbox, "created", None)
    if created is not None:
        record = f"{names} (replaced on the host while {who} ran; it could change it)"
        if record not in created:
            created.append(record)
    return [
        f"[sandbox: {names} was replaced on the host while {who} ran, so it was no longer "
        "read-only there; the user was told. New commands hold the new one.]"
    ]


# inotify(7): what a rename over, an unlink or a creation in a watched folder reports.
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_Q_OVERFLOW, IN_ONLYDIR = 0x4000, 0x01000000
WATCHED = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ONLYDIR
EVENT_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded


class FolderWatch:
    """Watches the folders holding what running sandboxes bind, and calls `changed` soon after
    a bound name in one of them (or a new `.env*` name) is replaced, removed or made.

    A background task may run for a day: comparing only when the model next calls a tool
    leaves it that long with the key. This narrows the window to the time the event takes to
    arrive; a command polling the file can still win that race, so the comparisons at each
    tool call stay. Where inotify is missing, or out of watches, nothing is watched and those
    comparisons are all there is.
    """

    def __init__(self, changed: Any) -> None:
        self.changed = changed
        self.fd: int | None = None
        self.names: dict[int, set[str]] = {}  # watch descriptor -> bound names in that folder
        self.folders: dict[str, int] = {}
        self.loop: Any = None
        self.pending = False

    def add(self, start: SandboxStart) -> None:
        """Watch the folders of every path `start` binds, and the workspace itself."""
        try:
            self._open()
        except OSError:
            return
        folders: dict[str, set[str]] = {str(start.workspace): set()}
        for path in start.held | start.hidden:
            real = os.path.realpath(path)
            for where in {path, real}:
                folder, name = os.path.split(where)
                folders.setdefault(folder, set()).add(name)
        for folder, names in folders.items():
            wd = self.folders.get(folder)
            if wd is None:
                wd = _LIBC.inotify_add_watch(self.fd, os.fsencode(folder), WATCHED)
                if wd < 0:
                    continue  # gone, unreadable, or out of watches
                self.folders[folder] = wd
            self.names.setdefault(wd, set()).update(names)

    def close(self) -> None:
        """Stop watching (no sandboxed task runs any more)."""
        if self.fd is None:
            return
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self.fd)
        os.close(self.fd)
        self.fd, self.names, self.folders, self.pending = None, {}, {}, False

    def _open(self) -> None:
        if self.fd is not None:
            return
        if _LIBC is None:
            raise OSError("no inotify")
        fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.loop = asyncio.get_running_loop()
        self.fd = fd
        self.loop.add_reader(fd, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self.fd, 64 * 1024)
        except BlockingIOError:
            return
        except OSError:
            self.close()
            return
        relevant = False
        offset = 0
        while offset + EVENT_HEADER.size <= len(data):
            wd, mask, _, size = EVENT_HEADER.unpack_from(data, offset)
            offset += EVENT_HEADER.size
            name = data[offset : offset + size].rstrip(b"\0").decode(errors="surrogateescape")
            offset += size
            bound = name in self.names.get(wd, ())
            relevant = relevant or bound or name.startswith(".env") or bool(mask & IN_Q_OVERFLOW)
        if relevant and not self.pending:
            self.pending = True
            self.loop.call_soon(self._changed)

    def _changed(self) -> None:
        self.pending = False
        with contextlib.suppress(Exception):  # a failed look must not end the event loop
            self.changed()


def _libc() -> Any:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1, libc.inotify_add_watch  # noqa: B018 (present, or AttributeError)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()
