"""The file tools: read_file, write_file and edit_file.

All three take a path relative to the workspace and reach it through tools/beneath.py: a walk
from the opened workspace folder, one component at a time, that never leaves the workspace even
when a background command swaps a folder for a symlink halfway. read_file shows numbered lines,
reads only the window it shows, and refuses pipes and devices instead of blocking on them;
write_file and edit_file replace files atomically and refuse a protected target that no approval
covers (tools/file_call.py); edit_file writes a file back in the encoding it found. The text
plumbing is in tools/textio.py; this module is what the model sees.

Each handler does its blocking work in a thread (`off_the_loop`), so Ctrl-C and signals are
served while a file is read or written. The functions below are that blocking work, and can be
called directly (tests, scripts).
"""

import functools
import io
import os
import re
import stat
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import BinaryIO

from redaction import file_forms, redact_bytes
from tools.base import Tool, ToolError
from tools.beneath import (
    Fingerprint,
    Target,
    WriteCancelled,
    fingerprint,
    off_the_loop,
    open_target,
    replace_file,
)
from tools.event_queues import begin_own_read, judged_by_a_watch, own_read_done
from tools.file_call import (
    current_file_call,
    note_touched,
    read_check,
    refuse_key_holder,
    write_check,
)
from tools.paths import read_whole, real_workspace
from tools.textio import (
    BINARY_CHECK_BYTES,
    MAX_OUTPUT_CHARS,
    PastEnd,
    decode_for_editing,
    line_numbers_of,
    match_file_newlines,
    read_window,
    utf16_codec,
)

__all__ = [
    "EDIT_FILE",
    "MAX_EDIT_BYTES",
    "MAX_OUTPUT_CHARS",
    "READ_FILE",
    "WRITE_FILE",
    "in_thread",
    "update_file",
]

# read_file shows at most this many lines per call.
DEFAULT_LINE_LIMIT = 2000
MAX_LINE_LIMIT = 2000
# A directory given to read_file or edit_file is listed, up to this many entries.
DIRECTORY_LISTING_LIMIT = 50
# read_file cannot find line breaks in UTF-16 by scanning bytes, so it decodes such a file
# whole; above this size it asks for a UTF-8 copy instead of filling memory.
MAX_UTF16_READ_BYTES = 8 * 1024 * 1024
# edit_file holds a file several times over (bytes, text, the edited text, bytes again), so
# above this size it refuses, before reading anything, and points to bash instead.
MAX_EDIT_BYTES = 10 * 1024 * 1024

LINE_NUMBER_PREFIX = re.compile(r"^ *\d+\t", re.MULTILINE)


def read_file(
    workspace: Path,
    path: str,
    offset: int = 1,
    limit: int = DEFAULT_LINE_LIMIT,
    stop: threading.Event | None = None,
) -> str:
    """Return lines offset .. offset+limit-1 of a text file, each as '{number:>6}\\t{line}'.

    `stop`, set by a cancel (Ctrl-C, SIGTERM), ends a long scan for the offset at once; and a
    scan ends past MAX_SCANNED_BYTES anyway (a sparse file of a terabyte has no line breaks
    to count, and would keep the run waiting for minutes)."""
    if offset < 1:
        raise ToolError(f"read_file: offset is a line number starting at 1, got {offset}.")
    if not 1 <= limit <= MAX_LINE_LIMIT:
        raise ToolError(f"read_file: limit must be from 1 to {MAX_LINE_LIMIT} lines, got {limit}.")
    with open_existing_file(workspace, path, "read_file") as (opened, relative):
        status = os.fstat(opened.fileno())
        size = status.st_size
        file = _withheld_key_file(workspace, path, relative, opened, status)
        note_touched(relative, fingerprint(status))
        head = file.read(BINARY_CHECK_BYTES)
        codec = utf16_codec(head)
        if codec:
            if size > MAX_UTF16_READ_BYTES:
                return (
                    f"This is a UTF-16 text file ({size} bytes), too large for read_file. "
                    f"Make a UTF-8 copy with bash (iconv -f UTF-16 -t UTF-8 {path} > copy.txt) "
                    "and read that."
                )
            # Transcoded to UTF-8, the file goes through the same line-by-line code as any other.
            file.seek(0)
            data = read_at_most(file, MAX_UTF16_READ_BYTES)
            if data is None:  # it grew after fstat: a racing command must not fill the memory
                return (
                    f"This is a UTF-16 text file, over {MAX_UTF16_READ_BYTES} bytes, too large "
                    f"for read_file. Make a UTF-8 copy with bash (iconv -f UTF-16 -t UTF-8 {path} "
                    "> copy.txt) and read that."
                )
            text = data[2:].decode(codec, errors="replace")
            return _show_lines(io.BytesIO(text.encode("utf-8")), path, offset, limit, stop)
        if b"\0" in head:
            return (
                f"This is a binary file ({size} bytes); read_file shows text only. "
                "Use bash (e.g. file, xxd | head) to inspect it."
            )
        return _show_lines(file, path, offset, limit, stop)


# The largest file the sandbox hides for holding planloop's key that read_file still shows, with
# the key taken out: it is read whole to be judged (a .env or a Kubernetes Secret is far smaller).
MAX_KEY_FILE_READ_BYTES = 1024 * 1024


def _withheld_key_file(
    workspace: Path, path: str, relative: str, file: BinaryIO, status: os.stat_result
) -> BinaryIO:
    """`file` as read_file may show it: as it is, or, for a file the sandbox hides from
    commands for holding planloop's key (`key_file_reason`: a `.env` that holds it, the file a
    `.env` leads to, a copy the key-copy search found), its bytes with every form of the key
    the search knows taken out (`redact_bytes`). A file that still gives the key after that, as
    the sandbox reads a key file (`holds_the_key`: `K1=sk-ant-` then `KEY=${K1}rest`), or that
    is too big to judge, is refused: what no command may read, the model may not either."""
    from tools.bind_watch import holds_the_key  # late: the sandbox's modules import this one
    from tools.sandbox import key_file_reason

    small = status.st_size <= MAX_KEY_FILE_READ_BYTES
    data = _read_whole(file, workspace, relative) if small else None
    if data is not None:
        # Most files: read whole once, judged as read and shown from what was judged, with no
        # second look at the path (which a command may have pointed elsewhere meanwhile).
        hidden = key_file_reason(workspace, relative, (status, data)) is not None
        if not hidden:
            return io.BytesIO(data)
    else:
        file.seek(0)
        hidden = key_file_reason(workspace, relative) is not None
        if not hidden:
            # Judged by the path: only when it still leads to the file opened is the answer
            # about that file. One a command put at the path meanwhile (a second name of a
            # hidden key file swapped in) is treated as a hidden key file could be.
            try:
                now = os.stat(real_workspace(workspace) / relative)
            except OSError:
                now = None
            if now is not None and (now.st_dev, now.st_ino) == (status.st_dev, status.st_ino):
                return file
        data = read_at_most(file, MAX_KEY_FILE_READ_BYTES)
        if data is None and not hidden:
            raise ToolError(
                f"read_file: {path} changed while it was being opened (a command moved or "
                "replaced it). Nothing was read. Call read_file again."
            )
    shown = redact_bytes(data) if data is not None else None
    if shown is None or holds_the_key(shown):
        raise ToolError(
            f"read_file: {path} holds planloop's API key in a form that cannot be shown with "
            "the key taken out, and the sandbox hides it from commands; it is not read for the "
            "model either. Ask the user for what you need from it."
        )
    return io.BytesIO(shown)


def _read_whole(
    file: BinaryIO, workspace: Path, relative: str, limit: int = MAX_KEY_FILE_READ_BYTES
) -> bytes | None:
    """`read_at_most(file, limit)` of the file at `relative` in `workspace`; of a key file a
    watch judges while a task runs, marked as planloop's own read, with what it read told, and
    read in one call where it can be (`read_whole`; tools/event_queues.py). Unmarked, the watch
    took it for the task's read, and the task's next write to the file for a key read and
    written over: the model reading .env.local while a task appended to it stopped the run."""
    absolute = os.path.join(real_workspace(workspace), relative)
    if not judged_by_a_watch(absolute):
        return read_at_most(file, limit)
    begin_own_read(absolute)
    data = None
    try:
        data = read_whole(file.fileno(), limit)
    finally:
        own_read_done(absolute, data)
    return data


def _refuse_hidden_secret(
    tool_name: str,
    workspace: Path,
    path: str,
    relative: str,
    opened: int,
    *,
    unless_approved: bool = False,
) -> None:
    """Refuse a secret the sandbox hides, by its path or, for the file `opened` with several
    names, by another (`ln ~/.aws/credentials dotfiles/aws/`). A writing tool may still change
    one that a person approved in this call (their ~/.bashrc, with planloop run in their home
    folder)."""
    call = current_file_call()
    if unless_approved and call is not None and call.approved and relative in call.approved:
        return
    if is_hidden_secret(workspace, relative) or names_a_hidden_secret(workspace, relative, opened):
        raise ToolError(
            f"{tool_name}: {path} is one of the secrets the sandbox hides from commands "
            "(logins, keys, shell start-up files and histories); it is not read for the "
            "model either. Ask the user for what you need from it."
        )


def is_hidden_secret(workspace: Path, relative: str) -> bool:
    """Whether a canonical path in the workspace is one the sandbox hides (tools/sandbox.py):
    planloop run in your home folder or in ~/.config would otherwise read them for the model."""
    home, planloop_home = os.environ.get("HOME", ""), os.environ.get("PLANLOOP_HOME", "")
    root, inside = hidden_inside(str(workspace), home, planloop_home)
    if not inside:
        return False
    path = root / relative
    return any(path == hidden or path.is_relative_to(hidden) for hidden in inside)


def names_a_hidden_secret(workspace: Path, relative: str, opened: int) -> bool:
    """Whether the file `opened`, at `relative` in the workspace, has another name that is a
    secret the sandbox hides (tools/sandbox.py `hard_linked_secrets`)."""
    from tools.sandbox import hidden_paths, secret_identities

    info = os.fstat(opened)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return False
    own_name = real_workspace(workspace) / relative
    identity = (info.st_dev, info.st_ino)
    return bool(secret_identities({identity}, hidden_paths(workspace=workspace), {own_name}))


@functools.lru_cache(maxsize=8)
def hidden_inside(workspace: str, home: str, planloop_home: str) -> tuple[Path, tuple[Path, ...]]:
    """The workspace resolved, and the hidden secrets that lie in it (none, for most): worked
    out once per workspace, home folder and planloop home."""
    from tools.sandbox import linked_secrets, secret_paths  # the sandbox's own list

    root = Path(os.path.realpath(workspace))
    secrets = secret_paths()  # (one look at the home folder for both lists)
    found = [Path(os.path.realpath(path)) for path in secrets]
    # And what a hidden folder's links lead to (stow's, file by file: `~/.ssh/id_ed25519`
    # kept in the dotfiles repository planloop runs in), wherever the folder lies: a folded
    # `~/.ssh -> dotfiles/ssh/.ssh` is in the workspace, and its key may link elsewhere in it.
    found += [
        target
        for folder in secrets
        if os.path.isdir(folder)
        for target in linked_secrets(Path(folder), root)
    ]
    return root, tuple(path for path in found if path.is_relative_to(root))


def write_file(
    workspace: Path, path: str, content: str, *, stop: threading.Event | None = None
) -> str:
    """Create or overwrite a file with `content` (UTF-8), creating parent directories.

    `stop` is the run's cancel: set before the rename, nothing is written (tools/beneath.py).
    """
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"write_file: content cannot be written as UTF-8 ({exc.reason} at character "
            f"{exc.start}). Send plain text."
        ) from exc

    check = write_check("write_file", workspace, path)
    try:
        relative, before, after = replace_file(workspace, path, data, check=check, stop=stop)
    except IsADirectoryError as exc:
        raise ToolError(
            f"write_file: {path} is a directory. Send the path of a file, "
            f"e.g. '{path.rstrip('/')}/name.txt'."
        ) from exc
    except (FileExistsError, NotADirectoryError) as exc:
        raise ToolError(
            f"write_file: cannot create {path}: part of its directory path is an existing file."
        ) from exc
    except OSError as exc:
        raise ToolError(f"write_file: cannot write {path}: {exc.strerror or exc}.") from exc
    note_touched(relative, after)

    line_count = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    what_happened = "overwrote the previous content" if before else "new file"
    size = f"{len(data)} byte{'' if len(data) == 1 else 's'}"
    lines = f"{line_count} line{'' if line_count == 1 else 's'}"
    return f"Wrote {size} ({lines}) to {path} ({what_happened})."


def edit_file(
    workspace: Path,
    path: str,
    old_text: str,
    new_text: str,
    replace_all: bool = False,
    *,
    stop: threading.Event | None = None,
) -> str:
    """Replace `old_text` with `new_text`; it must occur exactly once unless `replace_all`."""
    if not old_text:
        raise ToolError(
            "edit_file: old_text is empty. Send the exact text to replace, copied from read_file "
            "without the line-number prefixes. To write a whole file, use write_file."
        )
    if old_text == new_text:
        raise ToolError("edit_file: old_text and new_text are identical, so nothing would change.")
    # Judged on the file opened, before a byte of it is read: what edit_file answers depends on
    # the content (whether old_text is there), so a file the model may not see must be refused
    # first, and alike for every old_text.
    opened = read_check("edit_file", workspace, path)
    with open_existing_file(workspace, path, "edit_file", check=opened) as (file, relative):
        status = os.fstat(file.fileno())
        if status.st_size > MAX_EDIT_BYTES:
            raise ToolError(
                f"edit_file: {path} is {status.st_size} bytes, over edit_file's limit of "
                f"{MAX_EDIT_BYTES} bytes. Change it with bash instead (e.g. sed -i "
                f"'s/old/new/' {path}, or a short python script), then check the result with "
                "read_file."
            )
        raw = _read_whole(file, workspace, relative, MAX_EDIT_BYTES)
    if raw is None:
        raise ToolError(
            f"edit_file: {path} grew past edit_file's limit of {MAX_EDIT_BYTES} bytes while it "
            "was read. Change it with bash instead."
        )
    refuse_key_holder("edit_file", path, relative, raw)
    text, encoding, bom = decode_for_editing(raw)
    old, new = match_file_newlines(text, old_text, new_text)

    count = text.count(old)
    if count == 0:
        raise _not_found_error(path, old_text, text)
    if count > 1 and not replace_all:
        lines = ", ".join(str(number) for number in line_numbers_of(text, old))
        raise ToolError(
            f"edit_file: old_text was found {count} times in {path} (starting on lines {lines}), "
            "but must match exactly once. Add surrounding lines to old_text to make it unique, "
            f"or set replace_all to true to replace all {count}."
        )

    try:
        # Strict, so that only bytes read from the file can come back as escaped bytes below.
        new.encode(encoding)
    except UnicodeEncodeError as exc:
        character = exc.object[exc.start]
        if encoding == "latin-1":
            raise ToolError(
                f"edit_file: {path} is not UTF-8 and is kept in its own 8-bit encoding "
                f"(Latin-1), but new_text contains {character!r}, which it cannot hold. "
                "Use only Latin-1 characters in new_text."
            ) from exc
        raise ToolError(
            f"edit_file: new_text contains {character!r}, which cannot be written as "
            f"{encoding.upper()}. Send plain text."
        ) from exc
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    # surrogateescape writes the stray bytes of a mostly-UTF-8 file back as they were.
    data = bom + updated.encode(encoding, errors="surrogateescape")
    # The file must still be the one just read: an edit of other content would undo a change.
    check = write_check("edit_file", workspace, path, read=fingerprint(status))
    try:
        relative, _, after = replace_file(workspace, path, data, check=check, stop=stop)
    except OSError as exc:
        raise ToolError(f"edit_file: cannot write {path}: {exc.strerror or exc}.") from exc
    note_touched(relative, after)

    plural = "" if count == 1 else "s"
    return f"Replaced {count} occurrence{plural} in {path}."


class open_existing_file:  # noqa: N801 - used like open(), as a context manager
    """`with open_existing_file(workspace, path, tool_name) as (file, canonical path):`

    Opens an existing regular file for reading, beneath the workspace, without following a link
    or blocking on a pipe; anything else raises a ToolError that helps find a file. A secret the
    sandbox hides is refused, and so is what `check` refuses: both judged on the file actually
    opened, before anything is read from it.
    """

    def __init__(
        self,
        workspace: Path,
        path: str,
        tool_name: str,
        *,
        check: Callable[[Target], None] | None = None,
    ) -> None:
        self.workspace, self.path, self.tool_name = workspace, path, tool_name
        self.check = check
        self.file: BinaryIO | None = None

    def __enter__(self) -> tuple[BinaryIO, str]:
        path, tool_name = self.path, self.tool_name
        try:
            fd, target = open_target(self.workspace, path)
        except FileNotFoundError:
            hint = " To create a new file, use write_file." if tool_name == "edit_file" else ""
            raise ToolError(
                f"{tool_name}: file not found: {path}. Check the path (it is relative to the "
                f"workspace); bash with ls or find can help.{hint}"
            ) from None
        except NotADirectoryError:
            raise ToolError(
                f"{tool_name}: file not found: {path}; part of its directory path is a file."
            ) from None
        except ToolError as err:
            raise ToolError(f"{tool_name}: {err}") from None
        except OSError as exc:
            raise ToolError(f"{tool_name}: cannot open {path}: {exc.strerror or exc}.") from exc
        try:  # before a directory is listed, too: the names in ~/.ssh are not for the model
            writing = tool_name != "read_file"
            _refuse_hidden_secret(
                tool_name, self.workspace, path, target.relative, fd, unless_approved=writing
            )
            if self.check is not None:
                self.check(target)
        except BaseException:
            os.close(fd)
            raise
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            listing = _list_directory(fd)
            raise ToolError(
                f"{tool_name}: {path} is a directory, not a file. It contains:\n"
                f"{listing}\nCall {tool_name} with the path of a file."
            )
        self.file = os.fdopen(fd, "rb")
        return self.file, target.relative

    def __exit__(self, *exc_info: object) -> None:
        if self.file is not None:
            self.file.close()


def update_file(
    tool_name: str,
    workspace: Path,
    path: str,
    change: Callable[[bytes | None], bytes],
    *,
    stop: threading.Event | None = None,
) -> bool:
    """Replace the file at `path` with `change(its bytes, or None if there is none)`.

    For a new tool that writes: it gets everything write_file and edit_file have. The file is
    reached without leaving the workspace (tools/beneath.py), written atomically, and only if
    it is still exactly what `change` saw; a protected file needs the permission policy's
    approval and the stale-write guard's check (tools/file_call.py), as declared by the tool's
    `writes`. Returns whether a file was there before. Raises ToolError.
    """
    seen: Fingerprint | None = None
    old: bytes | None = None
    try:
        fd, target = open_target(workspace, path)
    except FileNotFoundError:
        pass  # a new file
    except OSError as exc:
        raise ToolError(f"{tool_name}: cannot open {path}: {exc.strerror or exc}.") from exc
    else:
        with os.fdopen(fd, "rb") as file:
            status = os.fstat(fd)
            if stat.S_ISDIR(status.st_mode):
                raise ToolError(f"{tool_name}: {path} is a directory. Send the path of a file.")
            # As edit_file: judged on the file opened, before `change` sees a byte of it.
            _refuse_hidden_secret(
                tool_name, workspace, path, target.relative, fd, unless_approved=True
            )
            read_check(tool_name, workspace, path)(target)
            if status.st_size > MAX_EDIT_BYTES:
                raise ToolError(
                    f"{tool_name}: {path} is {status.st_size} bytes, over the limit of "
                    f"{MAX_EDIT_BYTES} bytes. Change it with bash instead."
                )
            old = _read_whole(file, workspace, target.relative, MAX_EDIT_BYTES)
            seen = fingerprint(status)
            if old is None:
                raise ToolError(
                    f"{tool_name}: {path} grew past the limit of {MAX_EDIT_BYTES} bytes while "
                    "it was read. Change it with bash instead."
                )
    data = change(old)
    check = write_check(tool_name, workspace, path, read=seen)
    try:
        relative, _, after = replace_file(workspace, path, data, check=check, stop=stop)
    except (FileExistsError, NotADirectoryError) as exc:
        raise ToolError(
            f"{tool_name}: cannot create {path}: part of its directory path is an existing file."
        ) from exc
    except OSError as exc:
        raise ToolError(f"{tool_name}: cannot write {path}: {exc.strerror or exc}.") from exc
    note_touched(relative, after)
    return old is not None


def in_thread(work: Callable[..., str]) -> Callable[..., Awaitable[str]]:
    """A tool handler that runs `work(workspace, **input, stop=...)` off the event loop.

    `stop` is the run's cancel, for `replace_file`'s commit point (see `off_the_loop`).
    """

    async def handler(workspace: Path, **arguments: object) -> str:
        return await off_the_loop(lambda stop: work(workspace, **arguments, stop=stop))

    return handler


def _read_in_thread(workspace: Path, **arguments: object) -> Awaitable[str]:
    # Reading changes nothing, so there is no commit point to honour; `stop` ends a long scan.
    return off_the_loop(lambda stop: read_file(workspace, **arguments, stop=stop))


def _list_directory(fd: int) -> str:
    """The entries of the opened folder `fd` (it is closed), folders marked with a '/'."""
    try:
        with os.scandir(fd) as scan:
            found = sorted(scan, key=lambda entry: entry.name)
            entries = [e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in found]
    except OSError as exc:
        return f"(cannot list it: {exc.strerror or exc})"
    finally:
        os.close(fd)
    if not entries:
        return "(nothing; it is empty)"
    listing = "\n".join(entries[:DIRECTORY_LISTING_LIMIT])
    if len(entries) > DIRECTORY_LISTING_LIMIT:
        listing += f"\n... and {len(entries) - DIRECTORY_LISTING_LIMIT} more"
    return listing


# The most read_file scans for the lines asked for: some seconds of reading, more than any text
# file a model should read by line numbers (bash's tail or sed reaches further).
MAX_SCANNED_BYTES = 4 * 2**30

# read_at_most's first read: most files are smaller, and a buffer this size is cheap to make.
FIRST_READ_BYTES = 64 * 1024


def read_at_most(file: BinaryIO, limit: int) -> bytes | None:
    """The rest of `file` if it is at most `limit` bytes, else None.

    A size checked with fstat is no bound: a command running meanwhile can grow the file (a
    sparse terabyte is one `truncate` away) before it is read.
    """
    # A first read of at most FIRST_READ_BYTES: asking for `limit` bytes at once makes Python
    # allocate that much (a megabyte for read_file's key check) for every small file read.
    data = file.read(min(limit + 1, FIRST_READ_BYTES))
    if len(data) == FIRST_READ_BYTES and limit + 1 > FIRST_READ_BYTES:
        data += file.read(limit + 1 - len(data))
    return None if len(data) > limit else data


def _scan_checkpoint(path: str, stop: threading.Event | None) -> Callable[[int], None]:
    """A textio checkpoint: cancelled when `stop` is set, refused past MAX_SCANNED_BYTES."""
    scanned = 0

    def checkpoint(read: int) -> None:
        nonlocal scanned
        scanned += read
        if stop is not None and stop.is_set():
            raise WriteCancelled  # off_the_loop's word for "stopped in time": interrupted
        if scanned > MAX_SCANNED_BYTES:
            raise ToolError(
                f"read_file: gave up after {MAX_SCANNED_BYTES // 2**30} GiB of {path} without "
                "reaching the lines asked for. Use bash (e.g. tail -c, or sed -n with a line "
                "range) for a place that deep in the file."
            )

    return checkpoint


def _show_lines(
    file: BinaryIO, path: str, offset: int, limit: int, stop: threading.Event | None = None
) -> str:
    """The numbered lines read_file shows, with a note on how to read more."""
    # The key planloop sends with every request (kept in a .env, say) is never shown: the
    # model reading it could write it where it would leave the machine. Nor in any form the
    # key-copy search knows (base64, UTF-16 further down a file): the sandbox hides a file that
    # holds it so from commands. Each line is redacted before it is cut to its shown length, so
    # no part of the key is left at the cut.
    try:
        window = read_window(file, offset, limit, file_forms(), _scan_checkpoint(path, stop))
    except PastEnd as end:
        raise _past_end_error(path, offset, end.total_lines) from None
    if not window.lines:
        return "(empty file)"
    if not window.more:
        return "\n".join(window.lines)
    # The rest is counted only when it is small (textio.COUNT_REMAINING_LIMIT_BYTES).
    total = f" of {window.total_lines}" if window.total_lines else ", more lines follow"
    note = (
        f"[showing lines {offset}-{window.last}{total}; "
        f"call read_file with offset={window.last + 1} to read more]"
    )
    return "\n".join([*window.lines, note])


def _past_end_error(path: str, offset: int, total_lines: int) -> ToolError:
    return ToolError(
        f"read_file: offset {offset} is past the end of {path}, which has {total_lines} "
        f"lines. Call read_file with an offset from 1 to {total_lines}."
    )


def _not_found_error(path: str, old_text: str, file_text: str) -> ToolError:
    message = (
        f"edit_file: old_text was not found in {path}. Call read_file on that region and copy "
        "the text exactly, including indentation and blank lines."
    )
    if LINE_NUMBER_PREFIX.search(old_text):
        message += (
            " old_text seems to include read_file's line-number prefixes (a number and a tab); "
            "leave those out."
        )
    if "\ufffd" in old_text and "\ufffd" not in file_text:
        message += (
            " old_text contains \ufffd, which read_file shows in place of bytes that are not "
            "valid UTF-8; it cannot be matched. Choose old_text that avoids those characters."
        )
    return ToolError(message)


READ_FILE = Tool(
    name="read_file",
    description=(
        "Read a text file in the workspace. Each line comes back as its line number, a tab, "
        "then the text; the number and tab are not part of the file. Shows up to 2000 lines "
        "from offset (1-based); use offset and limit to page through long files."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "Line number to start at (default 1).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LINE_LIMIT,
                "description": f"Number of lines to show (default {DEFAULT_LINE_LIMIT}).",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    handler=_read_in_thread,
    reads="path",
)

WRITE_FILE = Tool(
    name="write_file",
    description=(
        "Create a file in the workspace, or overwrite it, with the given content; parent "
        "directories are created. To change part of an existing file, prefer edit_file."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "content": {"type": "string", "description": "The complete new file content."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
    handler=in_thread(write_file),
    writes="path",
)

EDIT_FILE = Tool(
    name="edit_file",
    description=(
        "Replace old_text with new_text in an existing file. old_text must match the file "
        "exactly (copy it from read_file, without the line-number prefixes) and occur once, "
        "unless replace_all is true; include surrounding lines to make it unique."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "old_text": {"type": "string", "description": "The exact text to replace."},
            "new_text": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence instead of exactly one (default false).",
            },
        },
        "required": ["path", "old_text", "new_text"],
        "additionalProperties": False,
    },
    handler=in_thread(edit_file),
    writes="path",
)
