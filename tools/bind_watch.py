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

What counts is what the command could read while it ran, not what a file holds when planloop
looks: a command that read a replaced `.env` can write the new one (no bind is left on it) and
leave it without the key's bytes. So a hidden file that held the key at the start, or has a key
file's name (`.env`, `docker.env`), counts as read once replaced, whatever it holds later; a
history or shell file that held no key is only said replaced. A key file made or changed while a
command runs is read as planloop reads a key (`holds_the_key`: every encoding, python-dotenv's
`${...}` expanded) and, for background tasks, at the moment it is written (`FolderWatch`).

bash (foreground) and the background tasks (tools/tasks.py) act on what is found; the exposure
middleware (middleware/exposure.py) stops or pauses the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import io
import os
import stat
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv.parser import parse_stream
from dotenv.variables import parse_variables

from redaction import WIDE_ENCODINGS, secret_encodings, secret_values

Identity = tuple[int, int]


@dataclass
class SandboxStart:
    """What one sandbox bound when its command started: its view (`Bubblewrap.view_of`), and
    the identity of each bound path that existed then."""

    workspace: Path
    held: frozenset[str]
    hidden: frozenset[str]
    identities: dict[str, Identity] = field(default_factory=dict)
    # Hidden paths whose replacement counts as the key read (`key_files`).
    keyed: frozenset[str] = frozenset()


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
    return SandboxStart(Path(workspace), held, hidden, known, key_files(hidden))


def is_key_name(path: str) -> bool:
    """Whether a file's name says it holds keys (`.env`, `.env.local`, `docker.env`)."""
    from tools.paths import is_env_name  # tools.paths imports the tools; late, as elsewhere

    return is_env_name(os.path.basename(path))


def key_files(hidden: frozenset[str]) -> frozenset[str]:
    """Those of `hidden` a command that reads them once replaced is taken to have read the key
    from: a key file's name, or the key inside now (read before the command starts, so that
    nothing it writes later can change the answer). A history or shell file without the key is
    not one: a terminal closing rewrites it under a running command, and that stops no run."""
    return frozenset(path for path in hidden if is_key_name(path) or may_hold_the_key(path))


def replaced_since(start: SandboxStart, paths: frozenset[str]) -> list[str]:
    """Those of `paths` that exist now as another file than the one bound at the start."""
    return sorted(
        path
        for path in paths
        if path in start.identities and identity(path) not in (None, start.identities[path])
    )


KEY_SEARCH_BYTES = 16 * 1024 * 1024  # a history or a .env is far smaller; past this, assume it


def may_hold_the_key(path: str) -> bool:
    """Whether `path` holds planloop's key as `holds_the_key` reads it, or cannot be read to
    tell (then it may): read without following a link or waiting on a FIFO."""
    data = read_for_key(path)
    return True if data is None else holds_the_key(data)


def read_for_key(path: str) -> bytes | None:
    """What `path` holds, b"" for nothing a key could be read from (missing, a link, a folder,
    a pipe), or None when it cannot be read or is too big to search."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None if os.path.lexists(path) else b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""  # a link, folder or pipe put there holds no key itself
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(KEY_SEARCH_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if len(data) > KEY_SEARCH_BYTES else data


def holds_the_key(data: bytes, secrets: list[str] | None = None) -> bool:
    """Whether a file holding `data` gives the key (or auth token) to whoever reads it as a
    program reads a key file: its bytes in UTF-8, UTF-16 or UTF-32, or a value python-dotenv
    makes of it with `${...}` expanded (`K1=sk-ant-` then `KEY=${K1}rest` holds no line with the
    key, and every dotenv reader still gets it). Variables are expanded from the file alone:
    what `${ANTHROPIC_API_KEY}` would take from an environment is not in the file."""
    found = secret_values() if secrets is None else secrets
    if any(secret in data for secret, _ in secret_encodings(found)):
        return True
    for encoding in ("utf-8", *WIDE_ENCODINGS):
        if "${".encode(encoding) not in data:
            continue
        try:
            text = data.decode(encoding).lstrip("\ufeff")
        except UnicodeDecodeError:
            continue
        if any(secret in value for value in dotenv_expanded(text) for secret in found):
            return True
    return False


def dotenv_expanded(text: str) -> list[str]:
    """The values python-dotenv reads from `text` with interpolation, each `${NAME}` taken from
    the file's earlier lines (as `dotenv_values` does without an environment)."""
    values: dict[str, str | None] = {}
    with contextlib.suppress(Exception):  # a file no parser makes sense of gives what it gave
        for binding in parse_stream(io.StringIO(text)):
            if binding.key is None or binding.value is None:
                continue
            atoms = parse_variables(binding.value)
            values[binding.key] = "".join(atom.resolve(values) for atom in atoms)
    return [value for value in values.values() if value]


def what_was_lost(
    sandbox: Any, start: SandboxStart, view_now: Any = None, written: Any = ()
) -> Lost:
    """Compare the sandbox made at `start` with the files now and with a sandbox made now.

    `view_now` (what `sandbox.view_now` returns) may be given when the caller has it already;
    `written`: key files seen holding the key (or rewritten unread) while the command ran
    (`FolderWatch.exposed`). A file a sandbox made now would hide, and this one did not, held
    the key or a secret while the command could read it (or came to hold it: a key added in
    place reads through a read-only bind).
    """
    lost = Lost()
    # A hidden file replaced on the host (a `.env` saved by `sed -i`, a shell history a closing
    # terminal rewrites) was readable from then on. A key file (`key_files`) stops the run
    # whatever it holds now: the command could read it, then rewrite it without the key. The
    # others stop it when they hold the key now, and are otherwise told like a held file
    # replaced, since the command could change them too.
    replaced_hidden = replaced_since(start, start.hidden)
    lost.seen = [path for path in replaced_hidden if path in start.keyed or may_hold_the_key(path)]
    # Seen holding the key when written, and not hidden from the command then: a hidden file
    # still bound (same identity) was read as the empty file over it.
    lost.seen += [
        path
        for path in written
        if not (
            path in start.hidden
            and path in start.identities
            and not replaced_since(start, frozenset({path}))
        )
    ]
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
        # A key file a sandbox made now only holds read-only may give the key all the same
        # (`holds_the_key`: expanded, every encoding): one that appeared or was replaced since
        # the start, which the command could read and rewrite.
        appeared += [
            path
            for path in now[0] - now[1]
            if is_key_name(path)
            and start.identities.get(path) != identity(path)
            and may_hold_the_key(path)
        ]
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


# inotify(7): what a rename over, an unlink or a creation in a watched folder reports, and the
# writes and reads of the files in it.
IN_ACCESS, IN_MODIFY, IN_CLOSE_WRITE, IN_CLOSE_NOWRITE = 0x1, 0x2, 0x8, 0x10
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_Q_OVERFLOW, IN_ONLYDIR = 0x4000, 0x01000000
NAMES_CHANGED = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
WRITES = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE
# A read that returned bytes. A close without writing also ends planloop's own read; an open
# alone, or a read of nothing (a file just made, not yet written), gives nobody a key.
READS = IN_ACCESS | IN_CLOSE_NOWRITE
WATCHED = NAMES_CHANGED | WRITES | READS | IN_ONLYDIR
EVENT_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded
# Rounds of "read the written key files, then the events that came meanwhile" in one wake-up;
# a key file still written after that many is taken as read with the key.
SETTLE_ROUNDS = 20


@dataclass
class KeyFileWindow:
    """What happened to one key file since planloop last read it (`FolderWatch`)."""

    written: bool = False  # written (or made, or renamed over) since then
    read_since: bool = False  # read by anyone after that write
    unread: bool = False  # a write somebody read was written over before planloop read it
    own_read: bool = False  # planloop's own read is under way: its events are nobody's read


class FolderWatch:
    """Watches the folders holding what running sandboxes bind, and calls `changed` soon after
    a bound name in one of them (or a new `.env*` name) is replaced, removed or made.

    A background task may run for a day: comparing only when the model next calls a tool
    leaves it that long with the key. This narrows the window to the time the event takes to
    arrive; a command polling the file can still win that race, so the comparisons at each
    tool call stay.

    A key file (`is_key_name`, or a hidden one `key_files` counts) written in a watched folder
    is read at once, before anything else planloop does, and one found holding the key is kept
    in `exposed` whatever it holds later: a task that read it can rewrite it without the key.
    A write that somebody read and that was written over before planloop could read it (write,
    read, write: the events arrive together) counts the same, since what was read is gone; one
    command writing a file twice (`cp .env.example .env` then `echo X >> .env`) reads nothing
    between and is not one. Lost events (the queue overflowed) count every key file changed
    since the last look.

    Where inotify is missing, or out of watches (another program, or a task, used them up),
    a folder goes unwatched: `unwatched` says which, and the caller checks at each tool call
    and every few seconds while it waits instead.
    """

    def __init__(self, changed: Any) -> None:
        self.changed = changed
        self.fd: int | None = None
        self.names: dict[int, set[str]] = {}  # watch descriptor -> bound names in that folder
        self.keyed: dict[int, set[str]] = {}  # watch descriptor -> hidden key files' names
        self.folders: dict[str, int] = {}
        self.paths: dict[int, str] = {}  # watch descriptor -> folder
        self.loop: Any = None
        self.pending = False
        self.windows: dict[str, KeyFileWindow] = {}
        self.exposed: dict[str, float] = {}  # key file -> when it was found (time.monotonic)
        self.unwatched: set[str] = set()  # folders no watch could be added for
        self.last_look = time.time()

    def add(self, start: SandboxStart) -> None:
        """Watch the folders of every path `start` binds, and the workspace itself."""
        folders: dict[str, set[str]] = {str(start.workspace): set()}
        keyed: dict[str, set[str]] = {}
        for path in start.held | start.hidden:
            real = os.path.realpath(path)
            for where in {path, real}:
                folder, name = os.path.split(where)
                folders.setdefault(folder, set()).add(name)
                if path in start.keyed:
                    keyed.setdefault(folder, set()).add(name)
        try:
            self._open()
        except OSError:
            self.unwatched.update(folders)
            return
        for folder, names in folders.items():
            wd = self.folders.get(folder)
            if wd is None:
                wd = _LIBC.inotify_add_watch(self.fd, os.fsencode(folder), WATCHED)
                if wd < 0:
                    # Gone, unreadable, or out of watches (ENOSPC): said, and checked by polling.
                    if os.path.isdir(folder):
                        self.unwatched.add(folder)
                    continue
                self.folders[folder] = wd
                self.paths[wd] = folder
            self.names.setdefault(wd, set()).update(names)
            self.keyed.setdefault(wd, set()).update(keyed.get(folder, ()))

    def exposed_since(self, since: float) -> list[str]:
        """The key files found holding the key (or rewritten unread) at `since` or later."""
        return sorted(path for path, when in self.exposed.items() if when >= since)

    def close(self) -> None:
        """Stop watching (no sandboxed task runs any more)."""
        self.unwatched = set()
        if self.fd is None:
            return
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self.fd)
        os.close(self.fd)
        self.fd, self.names, self.keyed, self.folders, self.paths = None, {}, {}, {}, {}
        self.pending, self.windows, self.exposed = False, {}, {}

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

    def _events(self) -> list[tuple[int, int, str]] | None:
        """The events queued now, as (wd, mask, name); None once the watch broke."""
        events: list[tuple[int, int, str]] = []
        while True:
            try:
                data = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return events
            except OSError:
                self.close()
                return None
            offset = 0
            while offset + EVENT_HEADER.size <= len(data):
                wd, mask, _, size = EVENT_HEADER.unpack_from(data, offset)
                offset += EVENT_HEADER.size
                name = data[offset : offset + size].rstrip(b"\0").decode(errors="surrogateescape")
                offset += size
                events.append((wd, mask, name))

    def _key_file(self, wd: int, name: str) -> str | None:
        """The path of a key file an event names, or None for any other name."""
        if not name or (name not in self.keyed.get(wd, ()) and not is_key_name(name)):
            return None
        folder = self.paths.get(wd)
        return None if folder is None else os.path.join(folder, name)

    def _note(self, events: list[tuple[int, int, str]]) -> tuple[bool, set[str]]:
        """Fold `events` into the windows; whether a bound or key name changed, and the key
        files written."""
        relevant, written = False, set()
        for wd, mask, name in events:
            if mask & IN_Q_OVERFLOW:
                relevant = True
                self._overflowed()
                continue
            path = self._key_file(wd, name)
            if mask & NAMES_CHANGED and (name in self.names.get(wd, ()) or path is not None):
                relevant = True
            if path is None:
                continue
            window = self.windows.setdefault(path, KeyFileWindow())
            if mask & WRITES:
                window.unread = window.unread or (window.written and window.read_since)
                window.written, window.read_since = True, False
                written.add(path)
                relevant = True
            elif mask & READS:
                if window.own_read:
                    window.own_read = not mask & IN_CLOSE_NOWRITE  # its close ends it
                elif window.written and mask & IN_ACCESS:
                    window.read_since = True
        return relevant, written

    def _overflowed(self) -> None:
        """Events were lost: every key file in a watched folder changed since the last look
        may have been read with the key and rewritten."""
        since = self.last_look - 1
        for folder in self.folders:
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    if not is_key_name(entry.name):
                        continue
                    with contextlib.suppress(OSError):
                        if entry.stat(follow_symlinks=False).st_ctime >= since:
                            self.exposed[entry.path] = time.monotonic()

    def look(self) -> None:
        """Take in the events queued now (as their arrival would), without waiting for the loop:
        before a comparison, so that a key file written just before counts."""
        if self.fd is not None:
            self._read()

    def _read(self) -> None:
        events = self._events()
        if events is None:
            return
        relevant, written = self._note(events)
        found = False
        for _ in range(SETTLE_ROUNDS):
            if not written:
                break
            contents = {}
            for path in written:
                self.windows[path].own_read = True
                contents[path] = read_for_key(path)
            more = self._events()
            if more is None:
                return
            more_relevant, written = self._note(more)
            relevant = relevant or more_relevant
            # Read with nothing written after: what it held is what anyone could read since.
            for path, data in contents.items():
                if path in written:
                    continue
                window = self.windows.pop(path)
                if window.unread or data is None or holds_the_key(data):
                    self.exposed[path] = time.monotonic()
                    found = True
        for path in written:  # written all along: nobody can tell what it held
            self.windows.pop(path, None)
            self.exposed[path] = time.monotonic()
            found = True
        self.last_look = time.time()
        if (relevant or found) and not self.pending:
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
