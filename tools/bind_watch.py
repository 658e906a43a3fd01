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
`${...}` expanded) at the moment it is written, in every folder of the workspace, and one
written and then moved away or removed before planloop could read it counts as read
(`FolderWatch`, tools/folder_watch.py: for foreground commands and background tasks alike).

bash (foreground) and the background tasks (tools/tasks.py) act on what is found; the exposure
middleware (middleware/exposure.py) stops or pauses the run.
"""

from __future__ import annotations

import collections
import contextlib
import errno
import functools
import io
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dotenv.variables import parse_variables

from dotenv_text import parse_stream
from redaction import WIDE_ENCODINGS, secret_values
from tools.event_queues import open_own, own_read_done

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
    # What happened to a key file found read, said instead of "came to hold the key" (one
    # written and removed unread: tools/folder_watch.py); filled by `what_was_lost`.
    how: dict[str, str] = field(default_factory=dict)
    # Secrets a sandbox would hide that were not there (your first REPL's history): watched
    # for, so that one made while a task runs is hidden there at once (tools/rehide.py).
    may_appear: frozenset[str] = frozenset()
    # Hidden in the running sandbox only after it could read them (tools/rehide.py): a task may
    # still hold one open, so one that comes to hold the key counts as read.
    rehidden: set[str] = field(default_factory=set)
    # Whether its commands can make hard links: not when its seccomp filter refuses them
    # (tools/seccomp.py), which leaves a key file no second name a command made.
    may_link: bool = True
    # The folders it shows as views, and the entries it shows in them (`Bubblewrap.views_of`):
    # nothing made or replaced there on the host reaches it.
    views: frozenset[str] = frozenset()
    shown: frozenset[str] = frozenset()


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
    start = SandboxStart(Path(workspace), held, hidden, keyed=key_files(hidden))
    if hasattr(sandbox, "views_of"):
        start.views, start.shown = sandbox.views_of(argv)
    # A bind in a view sits on the view's own entry, which no rename on the host takes away.
    found = {path: identity(path) for path in held | hidden if not in_a_view(start, path)}
    start.identities = {path: ident for path, ident in found.items() if ident is not None}
    may_appear = getattr(sandbox, "secrets_not_there", frozenset)()
    start.may_appear = frozenset(path for path in may_appear if not unseen(start, path))
    options = argv[: argv.index("--")] if "--" in argv else argv  # not the command's words
    start.may_link = "--seccomp" not in options
    return start


def in_a_view(start: SandboxStart, path: str) -> bool:
    """Whether `path` is an entry of a folder the sandbox of `start` shows as a view (its
    folder followed as it leads now)."""
    return os.path.realpath(os.path.dirname(path)) in start.views


def unseen(start: SandboxStart, path: str) -> bool:
    """Whether `path` is not there for the sandbox of `start`: it lies in a view, and the
    entry of the view it is, or lies in, was not shown there (it was hidden, or made since)."""
    entry = Path(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
    while entry.parent != entry:
        if str(entry.parent) in start.views:
            return str(entry) not in start.shown
        entry = entry.parent
    return False


def is_key_name(path: str) -> bool:
    """Whether a file's name says it holds keys (`.env`, `.env.local`, `docker.env`)."""
    return _is_env_name()(os.path.basename(path))


@functools.cache
def _is_env_name() -> Any:
    from tools.paths import is_env_name  # tools.paths imports the tools; late, as elsewhere

    return is_env_name


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
    opened = open_for_key(path)
    if not isinstance(opened, int):
        return opened
    data = read_opened(opened)
    own_read_done(path, data)
    return data


def open_for_key(path: str, marked: bool = True) -> int | bytes | None:
    """`path` opened for `read_opened`, or what `read_for_key` answers when it cannot be.
    Opened through `open_own` (`marked`), unless a watch reads it in its own look and marks
    that read itself."""
    opener = open_own if marked else os.open
    try:
        return opener(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return b""  # a link: it holds no key itself (what it leads to is judged as a file)
        return None if os.path.lexists(path) else b""


def read_opened(fd: int) -> bytes | None:
    """What `read_for_key` answers of the file open as `fd`, which it closes."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""  # a link, folder or pipe put there holds no key itself
        return read_allocated(fd, KEY_SEARCH_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)


HOLE_KEPT = 1024  # zeros that stand for a hole: more than any form of the key spans
READ_PIECE = 1024 * 1024


def read_allocated(fd: int, limit: int) -> bytes | None:
    """The bytes of the regular file open as `fd`, each hole in it (the unwritten part of a
    sparse file, which reads as zeros) cut to HOLE_KEPT zeros; None when it holds more than
    `limit` bytes of data. A command's `truncate -s 16M .env.1` then costs nothing to judge,
    however many it makes."""
    size = os.fstat(fd).st_size
    parts: list[bytes] = []
    taken = position = 0
    while position < size:
        try:
            start = os.lseek(fd, position, os.SEEK_DATA)
        except OSError as err:  # ENXIO: a hole from here to the end; else no SEEK_DATA here
            start = size if err.errno == errno.ENXIO else position
        if start > position:
            parts.append(bytes(min(start - position, HOLE_KEPT)))
        try:
            end = min(os.lseek(fd, start, os.SEEK_HOLE), size) if start < size else size
        except OSError:
            end = size
        while start < end:
            piece = os.pread(fd, min(end - start, READ_PIECE), start)
            if not piece:  # it shrank meanwhile
                return b"".join(parts)
            taken += len(piece)
            if taken > limit:
                return None
            parts.append(piece)
            start += len(piece)
        position = end
    return b"".join(parts)


def holds_the_key(data: bytes, secrets: list[str] | None = None) -> bool:
    """Whether a file holding `data` gives the key (or auth token) to whoever reads it as a
    program reads a key file: its bytes in UTF-8, UTF-16 or UTF-32, in base64 whole or broken
    into lines (a Kubernetes Secret, `base64 key.txt`), or a value python-dotenv makes of it
    with `${...}` expanded (`K1=sk-ant-` then `KEY=${K1}rest` holds no line with the key, and
    every dotenv reader still gets it). Variables are expanded from the file alone: what
    `${ANTHROPIC_API_KEY}` would take from an environment is not in the file."""
    # Imported here: tools.key_copies imports this module.
    from tools.key_copies import base64_only, holds_any, holds_wrapped, search_secrets_of

    found = secret_values() if secrets is None else secrets
    forms = search_secrets_of(found)  # each encoding, and base64
    if holds_any(data, forms) or holds_wrapped(data, base64_only(forms)):
        return True
    return expands_to_the_key(data, found)


def expands_to_the_key(data: bytes, found: list[str]) -> bool:
    """Whether python-dotenv, reading `data`, makes one of `found` of its values with `${...}`
    expanded from the file alone (`holds_the_key`); a file too big to expand counts as one."""
    for encoding, reference in REFERENCE_STARTS:
        if reference not in data:
            continue
        try:
            text = data.decode(encoding).lstrip("\ufeff")
        except UnicodeDecodeError:
            continue
        if not BINDING.search(text) and not NODE_BINDING.search(text):
            continue  # no `NAME=` line: nothing a dotenv reader takes (source code's `${x}`)
        if len(data) > DOTENV_JUDGED_BYTES or too_many_lines(text):
            return True  # too big to expand: judged as holding it
        expanded = dotenv_expanded(text)
        if expanded is None or any(secret in value for value in expanded for secret in found):
            return True
        expanded = node_dotenv_expanded(text)
        if expanded is None or any(secret in value for value in expanded for secret in found):
            return True
    return False


# A binding as Node's dotenv reads one: `NAME=value` or `NAME: value`, the value in single,
# double or back quotes (over lines, too) or bare up to a `#`.
NODE_BINDING = re.compile(
    r"""^[ \t]*+(?:export[ \t]++)?([\w.-]++)(?:[ \t]*+=[ \t]*+|:[ \t]++)"""
    r"""('(?:\\'|[^'])*+'|"(?:\\"|[^"])*+"|`(?:\\`|[^`])*+`|[^#\r\n]*+)""",
    re.MULTILINE,
)
# dotenv-expand's `${EXPRESSION}` (not after a backslash), with its operators: the name ends at the
# first of them, `${NAME:-default}`, `${NAME-default}`, `${NAME:+word}`, `${NAME+word}`.
NODE_REFERENCE = re.compile(r"(?<!\\)\$\{([^{}]+)\}")
NODE_OPERATOR = re.compile(r":\+|\+|:-|-")
NODE_EXPANSION_ROUNDS = 8


def node_dotenv_expanded(text: str) -> list[str] | None:
    """The values Node's dotenv with dotenv-expand (Next.js's, Vite's) reads from `text`: each
    name's last value, `${NAME}` put in from the file's values whatever their order (`K=${A}`
    first, `A=...` below), references within references too; None past EXPANDED_CHARS."""
    if too_costly_to_expand(text) or too_many_lines(text):
        return None
    values: dict[str, str] = {}
    for name, value in NODE_BINDING.findall(text):
        quoted = value[:1] in ("'", '"', "`") and value[-1:] == value[:1] and len(value) > 1
        values[name] = value[1:-1] if quoted else value.strip()
    for _ in range(NODE_EXPANSION_ROUNDS):  # (`A=${B}`, `B=${C}`: each round goes one deeper)
        if not any("${" in value for value in values.values()):
            break
        new = {name: _put_in(value, name, values) for name, value in values.items()}
        if sum(len(value) for value in new.values()) > EXPANDED_CHARS:
            return None  # (`A=${B}${B}`, `B=${A}${A}`: doubled at each round)
        values = new
    return [value for value in values.values() if value]


def _put_in(value: str, name: str, values: dict[str, str]) -> str:
    """`value` with each `${OTHER}` replaced by that name's value, or by its default (`${X:-d}`);
    a name's own (`PATH=${PATH}:x`) comes from an environment, not the file: empty here. The
    word of `${X:+word}` is put in whatever X holds: your environment, which wins over the
    file, may give X a value (the key built from `${HOME:+sk-ant-}${REST}` is a key)."""

    def put_in(found: re.Match[str]) -> str:
        operator = NODE_OPERATOR.search(found[1])
        if operator is None:
            other, word = found[1], ""
        else:
            other, word = found[1][: operator.start()], found[1][operator.end() :]
            if operator[0].endswith("+"):
                return word
        return (values.get(other) if other != name else "") or word

    return NODE_REFERENCE.sub(put_in, value)


# Expanding `${...}` costs what the values built cost: `A=${A}${A}` on each of 40 lines would
# build a value of a trillion characters. Past these bounds a file is judged as holding the key
# (hidden from commands, not shown): no .env of a person's comes near them.
DOTENV_JUDGED_BYTES = 1024 * 1024
EXPANDED_CHARS = 4 * 1024 * 1024  # all values built, together
# Finding the `${...}` costs too: python-dotenv's pattern reads from each `${` on to the `}`
# that ends it, so 2,000 of them before 500 KB without one took 28 s, at start. Past this many
# characters so read (about half a second), a file counts as too costly.
EXPANSION_SCAN_LIMIT = 20_000_000


# Parsing costs too, some 10 µs a line in python-dotenv, whatever the line holds (`NAME=`, a
# comment, a word it cannot parse): a file of 262,144 lines and one `${` took 2.6 s, on the
# event loop, each time a task wrote one. No .env of a person's, nor a configure script, comes
# near this many lines.
MAX_DOTENV_LINES = 20_000


def dotenv_lines(text: str) -> int:
    """How many lines python-dotenv parses in `text` (it ends one at each CR or LF)."""
    return text.count("\n") + text.count("\r")


def too_many_lines(text: str) -> bool:
    """Whether `text` has more lines than MAX_DOTENV_LINES."""
    return dotenv_lines(text) > MAX_DOTENV_LINES


def too_costly_to_expand(text: str) -> bool:
    """Whether looking for the `${...}` of a dotenv file's `text` could take seconds: what the
    pattern reads from each `${` to the next `}` (or the end), added up. Each step of this
    count reads as much as it adds, so it stops within that limit too."""
    cost, start = 0, text.find("${")
    while start != -1:
        end = text.find("}", start)
        cost += (len(text) if end == -1 else end) - start
        if cost > EXPANSION_SCAN_LIMIT:
            return True
        start = text.find("${", start + 2)
    return False


# `${` in each encoding a dotenv file is read in: no variable is expanded in a file without it.
REFERENCE_STARTS = tuple((name, "${".encode(name)) for name in ("utf-8", *WIDE_ENCODINGS))
BINDING = re.compile(r"(?m)^[ \t]*(?:export[ \t]+)?[A-Za-z_][\w.]*[ \t]*=")


def dotenv_expanded(text: str) -> list[str] | None:
    """The values python-dotenv reads from `text` with interpolation, each `${NAME}` taken from
    the file's earlier lines (as `dotenv_values` does without an environment); None when they
    would add up to more than EXPANDED_CHARS, or finding them could take seconds."""
    values = dotenv_bindings(text)
    return None if values is None else [value for value in values.values() if value]


def dotenv_bindings(text: str, environ: Mapping[str, str] | None = None) -> dict | None:
    """Each name `text` binds and its value, as `dotenv_values` gives them with interpolation:
    `${NAME}` from the file's earlier lines first, then from `environ`. None, without building
    them, when they would add up to more than EXPANDED_CHARS (`A=${A}${A}` line after line, or
    `${PATH}` doubled) or finding or parsing them could take seconds."""
    if too_costly_to_expand(text) or too_many_lines(text):
        return None
    values: dict[str, str | None] = {}
    lookup = collections.ChainMap(values, environ or {})
    built = 0
    with contextlib.suppress(Exception):  # a file no parser makes sense of gives what it gave
        for binding in parse_stream(io.StringIO(text)):
            if binding.key is None:
                continue
            if binding.value is None:  # `NAME` alone: python-dotenv's None
                values[binding.key] = None
                continue
            pieces = [atom.resolve(lookup) for atom in parse_variables(binding.value)]
            built += sum(len(piece) for piece in pieces)
            if built > EXPANDED_CHARS:
                return None  # measured before it is built
            values[binding.key] = "".join(pieces)
    return values


def what_was_lost(
    sandbox: Any, start: SandboxStart, view_now: Any = None, written: Any = ()
) -> Lost:
    """Compare the sandbox made at `start` with the files now and with a sandbox made now.

    `view_now` (what `sandbox.view_now` returns) may be given when the caller has it already;
    `written`: key files seen holding the key (or rewritten or gone unread) while the command
    ran (`FolderWatch.exposed_since`: with what happened to each, kept in `start.how`). A file
    a sandbox made now would hide, and this one did not, held the key or a secret while the
    command could read it (or came to hold it: a key added in place reads through a read-only
    bind).
    """
    lost = Lost()
    # A hidden file replaced on the host (a `.env` saved by `sed -i`, a shell history a closing
    # terminal rewrites) was readable from then on. A key file (`key_files`) stops the run
    # whatever it holds now: the command could read it, then rewrite it without the key. The
    # others stop it when they hold the key now, and are otherwise told like a held file
    # replaced, since the command could change them too.
    replaced_hidden = replaced_since(start, start.hidden)
    lost.seen = [path for path in replaced_hidden if path in start.keyed or may_hold_the_key(path)]
    lost.seen += [path for path in sorted(start.rehidden) if may_hold_the_key(path)]
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
        and not unseen(start, path)
    ]
    if isinstance(written, dict):
        start.how.update({path: how for path, how in written.items() if how})
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
        appeared = [
            path
            for path in now[1] - start.hidden
            if identity(path) not in hidden_then
            and not in_its_own_tmp(path, start.workspace)
            and not unseen(start, path)
        ]
        # A key file a sandbox made now only holds read-only may give the key all the same
        # (`holds_the_key`: expanded, every encoding): one that appeared or was replaced since
        # the start, which the command could read and rewrite.
        appeared += [
            path
            for path in now[0] - now[1]
            if is_key_name(path)
            and start.identities.get(path) != identity(path)
            and not unseen(start, path)
            and may_hold_the_key(path)
        ]
        lost.seen = sorted({*lost.seen, *appeared})
    return lost


def in_its_own_tmp(path: str, workspace: Path) -> bool:
    """Whether `path` lies in /tmp but not in the workspace: every sandbox has a /tmp of its own
    (tools/sandbox.py), where no file of the host's /tmp is seen (a home folder under /tmp)."""
    return path.startswith("/tmp/") and not Path(path).is_relative_to(workspace)


# What making a sandbox changes in the Bubblewrap object beyond its answer: the reason commands
# must ask (and the line that tells it), the paths it could not bind (said once, in the next
# command's notes), the package folders and files held for their hard links (said once), the hooks
# stand-ins it mounted. A look made only to compare leaves them as the next command finds them.
SANDBOX_STATE = (
    "must_ask",
    "skipped",
    "not_files",
    "packages_held",
    "linked_held",
    "hooks_stand_ins",
    "notify",
)


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
            else start.how.get(path) or "came to hold the API key or a secret after it started"
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
    _exposed(sandbox, line)
    created = getattr(sandbox, "created", None)
    names = ", ".join(shown(start.workspace, path) for path in paths)
    record = f"files written while {who} could read {names} (they may hold a copy of the key)"
    if created is not None and record not in created:
        created.append(record)
    return line


# Why a look found nothing to compare with: `wrap` refuses to make a sandbox now (a file
# naming a path no file can have, a copy of the key under a name not found).
NO_SANDBOX_NOW = "no sandbox could be made now to compare its own with"


def check_failed(sandbox: Any, who: str, done: str, error: Exception | str) -> str:
    """The look after a command or task ended failed (`error`: a file it made that no path
    routine expected, a NUL in a `.pth` line, say; or NO_SANDBOX_NOW): what it could read is
    not known, so it counts as if it had read the key. Told and left for the exposure
    middleware, as `key_seen` does. Returns the line."""
    why = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    line = f"{done}: planloop could not check what {who} could read ({why})"
    line += "; it may have read the API key"
    _exposed(sandbox, line)
    return line


def _exposed(sandbox: Any, line: str) -> None:
    """Left for the exposure middleware (`exposures`) and told the person at once."""
    exposures = getattr(sandbox, "exposures", None)
    if exposures is not None:
        exposures.append(line)
    notify = getattr(sandbox, "notify", None)
    if notify is not None:
        notify(f"sandbox: {line}.")


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


# The watch of key files lives in its own module, which builds on this one: its names are found
# here too (`from tools.bind_watch import FolderWatch`), looked up when first asked for, so that
# either module may be imported first.
FROM_FOLDER_WATCH = frozenset(
    {"FolderWatch", "KeyFileWindow", "watch_key_files", "IN_ACCESS", "IN_CLOSE_WRITE"}
    | {"IN_CREATE", "IN_MODIFY", "IN_DELETE", "IN_MOVED_FROM", "IN_MOVED_TO"}
)


def __getattr__(name: str) -> Any:
    if name in FROM_FOLDER_WATCH:
        from tools import folder_watch

        return getattr(folder_watch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
