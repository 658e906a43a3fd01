"""Open and replace files beneath the workspace, one directory descriptor at a time.

A path is only a name: between the moment a path is checked and the moment it is used, a
background command can swap one of its folders for a symlink to `.git` or to another project.
So the file tools never hand a whole path to the kernel. They open the workspace as a directory
descriptor and walk to the target a component at a time with `os.open(name, dir_fd=...)` and
`O_NOFOLLOW`, so every step starts from a folder already opened and no step follows a link on
its own. A symlink met on the way is read and resolved here, by hand, and the walk refuses it
when it leads out of the workspace. What comes back is the folder that holds the target, opened,
and the *canonical* path of the target: the real names walked, links resolved. Whether the target
is protected is decided on that canonical path, the one that is actually written.

- Reading (`open_for_reading`): the last step opens with `O_NOFOLLOW | O_NONBLOCK`, so a FIFO,
  socket or device never blocks, and `fstat` on the opened object refuses anything that is not a
  regular file or a folder.
- Replacing (`replace_file`): the temporary file is created in the opened folder and renamed
  over the target with `dir_fd`, so both name that same folder. Just before the rename the
  folder is looked up again from the workspace by its canonical path; if another folder now sits
  there (a rename or `RENAME_EXCHANGE` moved it), nothing is written.

What no walk can prevent: a folder that was opened can be moved afterwards by someone allowed
to move it. Then the write lands in that folder wherever it went, which only a process that could
write there anyway can arrange; the last check above narrows that to the moment of the rename.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import errno
import os
import secrets
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TypeVar

from tools.base import ToolError
from tools.paths import check_path_text, looks_like_git_dir, real_workspace, safe_path

# Links followed in one path at most, as the kernel does (its ELOOP limit).
MAX_LINKS = 40
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
SET_ID_BITS = stat.S_ISUID | stat.S_ISGID  # never given to a file the tools write

T = TypeVar("T")

# What identifies a file's content on disk: modification time (ns), size and inode.
Fingerprint = tuple[int, int, int]


def fingerprint(status: os.stat_result) -> Fingerprint:
    return status.st_mtime_ns, status.st_size, status.st_ino


class WriteCancelled(Exception):
    """The run was cancelled before the rename: nothing was written."""


@dataclass
class Location:
    """Where a path leads: the opened folder that holds it, its name there, its canonical path.

    `folder` is None when a parent folder does not exist (and none was to be made); `name` is
    "." when the path names a folder itself; `relative` is "." for the workspace root.
    `in_git_dir` says that a folder walked through is a git directory by its content (HEAD,
    objects, refs), whatever its name: a folder renamed or exchanged with `.git` is caught
    by what it is, not by what it is called at the moment. It is judged as the folders will be
    once the path is written: the folder that gains the target (or its first missing parent)
    counts with that entry added, so a repository put together one write at a time (objects,
    refs, config, HEAD last) is a git directory already for the write that completes it.
    """

    folder: int | None
    name: str
    relative: str
    in_git_dir: bool = False


@dataclass(frozen=True)
class Target:
    """What a path leads to now: its canonical path, the fingerprint of the regular file there
    (None when there is none), and whether it lies in a git directory (see `Location`)."""

    relative: str
    fingerprint: Fingerprint | None
    in_git_dir: bool


@contextlib.contextmanager
def located(workspace: Path, path: str, *, make_parents: bool = False) -> Iterator[Location]:
    """Walk to `path` beneath the workspace; the folder descriptor is closed afterwards.

    Raises ToolError when the path, or a link on the way, leads out of the workspace.
    """
    root = real_workspace(workspace)
    if make_parents:
        safe_path(root, path)  # refuse an escape before the walk makes any folder on its way
    else:
        check_path_text(path)  # the walk refuses an escape itself, in the same words
    where = _walk(root, path, make_parents)
    try:
        yield where
    finally:
        if where.folder is not None:
            os.close(where.folder)


def target_of(workspace: Path, path: str) -> Target:
    """Where `path` leads now (for a check before the tool runs; the tool checks again)."""
    with located(workspace, path) as where:
        return _target(where)


def open_for_reading(workspace: Path, path: str) -> tuple[int, str]:
    """Open `path` for reading without blocking or following a link; return (fd, canonical).

    The descriptor may be a folder's (the caller lists it); anything else that is not a regular
    file raises ToolError. The caller closes the descriptor.
    """
    fd, target = open_target(workspace, path)
    return fd, target.relative


def open_target(workspace: Path, path: str) -> tuple[int, Target]:
    """`open_for_reading`, with the `Target` of the object actually opened: its canonical path,
    the fingerprint of the opened descriptor, and whether it lies in a git directory.

    A caller decides "protected" on this target, before it reads a byte: a name checked a
    moment earlier may lead somewhere else by now (a command made it a link to `.env`).
    A missing file raises FileNotFoundError whose `filename` is the canonical path found missing.
    """
    with located(workspace, path) as where:
        missing = FileNotFoundError(errno.ENOENT, "No such file or directory", where.relative)
        if where.folder is None:
            raise missing
        try:
            fd = os.open(where.name, READ_FLAGS, dir_fd=where.folder)
        except FileNotFoundError:
            raise missing from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a link appeared after the walk resolved this name
                raise ToolError(
                    f"{path} changed into a symlink while it was being opened. Try again."
                ) from exc
            raise
        try:
            status = os.fstat(fd)
            if not (stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode)):
                raise ToolError(
                    f"{path} is not a regular file (it is a {_kind(status.st_mode)}); only "
                    "regular files can be read. Use bash to look at it if you need to."
                )
            # The folder it was opened in, still where the walk found it after the open.
            folder = where.relative if where.name == "." else _parent(where.relative)
            _require_opened_at(where.folder, real_workspace(workspace), folder, path)
        except BaseException:
            os.close(fd)
            raise
        found = fingerprint(status) if stat.S_ISREG(status.st_mode) else None
        return fd, Target(where.relative, found, where.in_git_dir)


def _parent(relative: str) -> str:
    return str(PurePosixPath(relative).parent)


def _require_opened_at(fd: int, root: Path, relative: str, path: str) -> None:
    """Refuse a folder descriptor whose real path, as the kernel names it, is not `relative`:
    it was moved between the walk and the open, so the canonical path of what was opened in it
    would name another file. (The file itself may be renamed after it was opened, as an
    editor's save does: what was opened is still what the name led to.) Where /proc is not
    there to ask, the walk stands."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return
    expected = root if relative == "." else root / relative
    if real != str(expected):
        raise ToolError(f"{path} was moved while it was being opened. Try again.")


def replace_file(
    workspace: Path,
    path: str,
    data: bytes,
    *,
    check: Callable[[Target], None],
    stop: threading.Event | None = None,
) -> tuple[str, Fingerprint | None, Fingerprint]:
    """Replace (or create) the file at `path` with `data`, never half-written.

    `check(target)` runs before any missing parent folder is made, then on the folder actually
    opened, before the temporary file is written and again just before the rename. It raises
    ToolError to refuse (protected, changed on disk).
    `stop` is the run's cancel, seen by a thread: if it is set before the rename, the
    temporary file is removed and WriteCancelled is raised. The rename is the commit point;
    after it the file is written, whatever happens next.

    Returns (canonical path, fingerprint before, fingerprint after).
    """
    with located(workspace, path) as first_look:
        check(_target(first_look))
    with located(workspace, path, make_parents=True) as where:
        if where.name == ".":
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        folder = where.folder
        assert folder is not None  # make_parents made every missing folder
        existing = _status_at(folder, where.name)
        if existing is not None and stat.S_ISDIR(existing.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            # A link here appeared after the walk resolved the name (a race), or it is a pipe,
            # socket or device: its mode bits are not a file's to copy, so nothing is written.
            raise ToolError(f"{path} is not a regular file (it changed while being opened).")
        before = fingerprint(existing) if existing else None
        check(Target(where.relative, before, where.in_git_dir))
        # The old file's mode, less set-user-ID and set-group-ID: the new file is planloop's
        # own, written outside the sandbox, and its content is the model's; with the bit kept,
        # anyone could run that content as planloop's user (as root, for planloop run as root).
        mode = stat.S_IMODE(existing.st_mode) & ~SET_ID_BITS if existing else 0o666 & ~_UMASK

        temp_name = f".{where.name[:100]}.{secrets.token_hex(6)}.tmp"
        temp = os.open(temp_name, TEMP_FLAGS, 0o600, dir_fd=folder)
        try:
            with os.fdopen(temp, "wb") as temp_file:
                temp_file.write(data)
                temp_file.flush()
                os.fsync(temp_file.fileno())
                os.fchmod(temp_file.fileno(), mode)
                after = fingerprint(os.fstat(temp_file.fileno()))
            if stop is not None and stop.is_set():
                raise WriteCancelled
            # Checked once more as late as possible: the file there now, the folder still in place.
            now = _status_at(folder, where.name)
            check(Target(where.relative, fingerprint(now) if now else None, where.in_git_dir))
            _require_in_place(workspace, where)
            os.replace(temp_name, where.name, src_dir_fd=folder, dst_dir_fd=folder)  # commit
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp_name, dir_fd=folder)
            raise
        # A task may have moved the folder in the instant between the last check and the
        # rename (two folders swapped over and over): the file went with it. Said, not hidden.
        try:
            _require_in_place(workspace, where)
        except ToolError:
            raise ToolError(
                f"{path} was written, but its folder was moved while it was: the file now lies "
                f"at {_lies_at(folder, workspace, where.name)}. Look there before you go on."
            ) from None
        return where.relative, before, after


def _lies_at(folder: int, workspace: Path, name: str) -> str:
    """Where the file `name` of the open `folder` lies now, from the workspace if inside it."""
    try:
        now = Path(os.readlink(f"/proc/self/fd/{folder}")) / name
    except OSError:
        return "a place planloop cannot tell"
    root = real_workspace(workspace)
    return str(now.relative_to(root)) if now.is_relative_to(root) else str(now)


async def off_the_loop(work: Callable[[threading.Event], T]) -> T:
    """Run blocking file work in a thread, so Ctrl-C and signals are served while it runs.

    A thread cannot be stopped from outside, so a cancelled tool would go on writing after its
    "interrupted" result was recorded. Instead, the cancel is handed to the work as `stop`, and
    the tool waits for the work's own answer: `replace_file` checks `stop` just before its
    rename, the commit point. Cancelled before it: the temporary file is removed and the call
    ends as interrupted, with nothing written. Cancelled after it: the file *was* written, and
    the result says so, instead of an "interrupted" that would be false.
    """
    stop = threading.Event()
    # asyncio.to_thread, less the task around it: a future straight from the executor, with
    # the caller's context variables (the file call being checked, tools/file_call.py).
    context = contextvars.copy_context()
    running = asyncio.get_running_loop().run_in_executor(None, context.run, work, stop)
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        stop.set()
        try:
            return await running  # the work's own answer: written, or stopped in time
        except WriteCancelled:
            raise asyncio.CancelledError from None


def is_under_git(relative: str) -> bool:
    """Whether a canonical path lies in a `.git` folder (or is one)."""
    return ".git" in PurePosixPath(relative).parts


# ---- the walk ------------------------------------------------------------------------------


def _walk(root: Path, path: str, make_parents: bool) -> Location:
    pending = _relative_parts(root, path)
    names: list[str] = []
    folders = [os.open(root, DIRECTORY_FLAGS)]
    # How many names deep the first git directory walked is (0: the workspace itself).
    git_depth: int | None = 0 if _is_git_directory(folders[0]) else None
    # Links followed and steps retried, so that a racing command cannot keep the walk going.
    steps = 0
    retried = ""
    try:
        while pending:
            part = pending.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if not names:
                    raise _escape(root, path, "'..' leads above it")
                os.close(folders.pop())
                names.pop()
                if git_depth is not None and len(names) < git_depth:
                    git_depth = None
                continue
            if steps > MAX_LINKS:
                raise ToolError(f"The path {path!r} has too many levels of symlinks.")
            link = _link_target(folders[-1], part)
            if link is not None:
                steps += 1
                if link.startswith("/"):
                    inside = PurePosixPath(os.path.normpath(link))
                    if not inside.is_relative_to(root):
                        raise _escape(root, path, f"a link in it points to {link}")
                    while len(folders) > 1:  # start again from the workspace root
                        os.close(folders.pop())
                    names.clear()
                    git_depth = 0 if _is_git_directory(folders[0]) else None
                    pending[:0] = list(inside.relative_to(root).parts)
                else:
                    pending[:0] = link.split("/")
                continue
            if not pending or all(rest in ("", ".") for rest in pending):
                relative = "/".join([*names, part])
                # Written, `part` is one more entry of this folder (a file).
                in_git = git_depth is not None or _is_git_directory(folders[-1], (part, False))
                return Location(folders.pop(), part, relative, in_git)
            try:
                folders.append(os.open(part, DIRECTORY_FLAGS, dir_fd=folders[-1]))
            except FileNotFoundError:
                # Made, `part` is one more entry of this folder (a folder); the folders made
                # below it hold one entry each, which makes none of them a git directory.
                if git_depth is None and _is_git_directory(folders[-1], (part, True)):
                    git_depth = len(names)
                if not make_parents:
                    relative = _lexical(root, path, [*names, part, *pending])
                    return Location(None, "", relative, git_depth is not None)
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=folders[-1])
                steps += part == retried  # made twice: something keeps removing it
                retried = part
                pending.insert(0, part)  # open what is there now, the same careful way
                continue
            except NotADirectoryError as exc:  # O_NOFOLLOW on a link says this too
                if _link_target(folders[-1], part) is not None:
                    steps += 1  # it became a link since it was looked at: look again
                    pending.insert(0, part)
                    continue
                raise ToolError(
                    f"The path {path!r} goes through {'/'.join([*names, part])}, which is an "
                    "existing file, not a folder. Check the path."
                ) from exc
            names.append(part)
            if git_depth is None and _is_git_directory(folders[-1]):
                git_depth = len(names)
        # The path names a folder itself ("." or "d/.."): hand over that folder.
        return Location(folders.pop(), ".", "/".join(names) or ".", git_depth is not None)
    finally:
        for folder in folders:
            os.close(folder)


def _relative_parts(root: Path, path: str) -> list[str]:
    """The components of `path` relative to the root (an absolute path must lie inside)."""
    if not path.startswith("/"):
        return path.split("/")
    inside = PurePosixPath(os.path.normpath(path))
    if inside.is_relative_to(root):
        return list(inside.relative_to(root).parts)
    # An absolute path through a link to the workspace: safe_path accepted where it resolves.
    return list(safe_path(root, path).relative_to(root).parts)


def _link_target(folder: int, name: str) -> str | None:
    """What the symlink `name` in `folder` points to, or None when it is not a symlink."""
    try:
        return os.readlink(name, dir_fd=folder)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.EINVAL:  # exists, and is not a link
            return None
        raise


def _lexical(root: Path, path: str, parts: list[str]) -> str:
    """The canonical path of a target whose folders do not exist yet: nothing there to follow."""
    names: list[str] = []
    for part in parts:
        if part == "..":
            if not names:
                raise _escape(root, path, "'..' leads above it")
            names.pop()
        elif part not in ("", "."):
            names.append(part)
    return "/".join(names) or "."


def _escape(root: Path, path: str, why: str) -> ToolError:
    return ToolError(
        f"The path {path!r} escapes the workspace {root} ({why}). "
        "Paths must be relative to the workspace and stay inside it."
    )


def _status_at(folder: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _is_git_directory(folder: int, adding: tuple[str, bool] | None = None) -> bool:
    """Whether the opened folder is a git directory, judged as git judges it: by its content.

    `adding` is an entry (name, is a folder) that a write is about to make there: the folder
    is judged as it will be with it.
    """
    kinds = {}
    for name in ("HEAD", "objects", "refs", "commondir"):
        status = _status_at(folder, name)
        if status is not None:
            kinds[name] = stat.S_ISDIR(status.st_mode)
        elif name == "HEAD" and (adding is None or adding[0] != "HEAD"):
            return False  # no repository without a HEAD: one look for most folders, not four
    if adding is not None and adding[0] not in kinds:
        kinds[adding[0]] = adding[1]
    return looks_like_git_dir(kinds)


def _target(where: Location) -> Target:
    return Target(where.relative, _fingerprint_at(where), where.in_git_dir)


def _fingerprint_at(where: Location) -> Fingerprint | None:
    if where.folder is None:
        return None
    status = _status_at(where.folder, where.name)
    if status is None or not stat.S_ISREG(status.st_mode):
        return None
    return fingerprint(status)


def _require_in_place(workspace: Path, where: Location) -> None:
    """Refuse if the opened folder is no longer the one at its canonical path (it was moved)."""
    parent = str(PurePosixPath(where.relative).parent)
    try:
        with located(workspace, parent) as now:
            current = os.stat(now.name, dir_fd=now.folder, follow_symlinks=False)
    except (OSError, ToolError) as exc:
        raise ToolError(f"{parent} was moved while it was being written. Try again.") from exc
    opened = os.fstat(where.folder)
    if (current.st_dev, current.st_ino) != (opened.st_dev, opened.st_ino):
        raise ToolError(
            f"The folder {parent} was replaced while it was being written, so nothing was "
            "written. Try again."
        )


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def _current_umask() -> int:
    # The umask can only be read by setting it, so set it back straight away.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()
