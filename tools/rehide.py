"""Hide again, in a running task's sandbox, a hidden file replaced on the host.

The sandbox hides a shell history, `~/.lesshst` and the like by binding an empty file over
each (tools/sandbox.py). In your home, that file is the view's own (`home_views`), out of the
host's reach; elsewhere (a history your HISTFILE keeps outside your home, a home that is the
workspace) it sits on the host's folder entry. When the host renames a new file over one there
while a background task runs (bash and zsh save their history so when a terminal closes, `less`
at exit), Linux drops that bind in the task's mount namespace, and tools/bind_watch.py finds
it. For a file that has no key file's name and holds no key, planloop binds an empty read-only
file over the new one in the running sandbox instead of stopping the task: a long `npm run dev`
lives through a closed terminal. The task could read the new file until then, and the person is
told so.

    hidden_again(bwrap_pid, start, paths)  -> those of `paths` hidden again (tools/tasks.py)
    hidden_too(bwrap_pid, start, paths)    -> those of `paths`, new secrets, hidden there too
    hide_again(bwrap_pid, path, identity)  -> None once hidden again, else why not

A child forked for it (entering a user namespace takes a single-threaded process) makes itself
non-dumpable, so that no process of the task can trace it, enters the user namespace owning the
sandbox's mount namespace and that mount namespace, finds `path` there without following any
link (the task may have swapped a folder on the way), checks that it is the replaced file, and
binds over it an empty file of a tmpfs made there: the sandbox's /tmp hides planloop's own
empty file, and an unprivileged user may mount only inside the sandbox's namespaces. Whatever
fails, the caller stops the task as before (tools/tasks.py).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import signal
import stat
import time
from pathlib import Path

from tools.bind_watch import (
    Identity,
    SandboxStart,
    holds_the_key,
    is_key_name,
    open_for_key,
    read_opened,
)
from tools.event_queues import own_read_done

# The new mount API's system calls have one number on every architecture Linux gives them.
OPEN_TREE, MOVE_MOUNT, FSOPEN, FSCONFIG, FSMOUNT, MOUNT_SETATTR = 428, 429, 430, 431, 432, 442
OPEN_TREE_CLONE, AT_EMPTY_PATH = 1, 0x1000
MOVE_MOUNT_F_EMPTY_PATH, MOVE_MOUNT_T_EMPTY_PATH = 0x4, 0x40
FSCONFIG_CMD_CREATE, FSOPEN_CLOEXEC, FSMOUNT_CLOEXEC = 6, 1, 1
READ_ONLY_ATTRIBUTES = 0x1 | 0x2 | 0x4 | 0x8  # MOUNT_ATTR_RDONLY, NOSUID, NODEV, NOEXEC
NS_GET_USERNS = 0xB701
PR_SET_DUMPABLE = 4

# The child's exit status, and what each says; anything else is a failure too.
WHY_NOT = {
    1: "it failed",
    2: "it could not enter the sandbox's namespaces",
    3: "the path there is not the replaced file (a link, or another file)",
    4: "no empty file could be bound there",
}
CHILD_SECONDS = 5  # a few system calls: more means it is stuck, and is killed


class MountAttributes(ctypes.Structure):
    """struct mount_attr, for mount_setattr."""

    _fields_ = [(name, ctypes.c_uint64) for name in ("set", "clear", "propagation", "userns")]


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long


def hidden_again(bwrap_pid: int, start: SandboxStart, paths: list[str]) -> list[str]:
    """Those of `paths`, replaced on the host, hidden again in the sandbox of the bwrap started
    as `bwrap_pid` (`start`'s): hidden files that are no key file and hold no key now. Each
    one's new identity becomes the one its sandbox hides, so it is not found replaced again."""
    done = []
    for path in paths:
        if path not in start.hidden or path in start.keyed:
            continue
        identity = judged_identity(path)
        if identity is not None and hide_again(bwrap_pid, path, identity) is None:
            start.identities[path] = identity
            start.rehidden.add(path)
            done.append(path)
    return done


def hidden_too(bwrap_pid: int, start: SandboxStart, paths: list[str]) -> list[str]:
    """Those of `paths`, secrets of your home that appeared while the task ran (the history
    your first Python REPL or `less` writes), hidden in its sandbox now: no key file, outside
    the workspace, and no key in them. Each is then one its sandbox hides from the start."""
    done = []
    for path in paths:
        if is_key_name(path) or Path(path).is_relative_to(start.workspace):
            continue
        identity = judged_identity(path)
        if identity is not None and hide_again(bwrap_pid, path, identity) is None:
            start.hidden = start.hidden | {path}
            start.identities[path] = identity
            start.rehidden.add(path)
            done.append(path)
    return done


def hide_again(bwrap_pid: int, path: str, identity: Identity) -> str | None:
    """Bind an empty read-only file over `path` in the sandbox of the bwrap started as
    `bwrap_pid`, if `path` there is the file of `identity` reached without a link. None once
    done, else why not (nothing was bound then)."""
    try:
        user_ns, mount_ns = sandbox_namespaces(bwrap_pid)
    except (OSError, ValueError, IndexError) as error:
        return f"its sandbox's namespaces could not be opened ({error})"
    try:
        if os.fstat(mount_ns).st_ino == os.stat("/proc/self/ns/mnt").st_ino:
            return "it runs in planloop's own mount namespace"  # never bind on the host
        if os.fstat(user_ns).st_ino == os.stat("/proc/self/ns/user").st_ino:
            os.close(user_ns)  # root without a user namespace: already privileged there
            user_ns = -1
        return child_status(fork_to_bind(user_ns, mount_ns, path, identity))
    except OSError as error:
        return f"no child could do it ({error})"
    finally:
        for descriptor in (user_ns, mount_ns):
            if descriptor >= 0:
                os.close(descriptor)


def sandbox_namespaces(bwrap_pid: int) -> tuple[int, int]:
    """Descriptors of the user namespace that owns the sandbox's mount namespace, and of that
    mount namespace, as the sandbox's first process (bwrap's only child) has them."""
    with open(f"/proc/{bwrap_pid}/task/{bwrap_pid}/children") as file:
        children = file.read().split()
    if len(children) != 1:
        raise OSError(errno.ESRCH, "the sandbox's process is gone")
    child = int(children[0])
    folder = os.open(f"/proc/{child}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        mount_ns = os.open("ns/mnt", os.O_RDONLY | os.O_CLOEXEC, dir_fd=folder)
        # Checked after the namespace was opened: still bwrap's child, so not another process
        # that took a number freed meanwhile.
        if parent_of(folder) != bwrap_pid:
            os.close(mount_ns)
            raise OSError(errno.ESRCH, "the sandbox's process is gone")
    finally:
        os.close(folder)
    try:
        return fcntl.ioctl(mount_ns, NS_GET_USERNS), mount_ns
    except OSError:
        os.close(mount_ns)
        raise


def parent_of(process_folder: int) -> int:
    """The parent's pid of the process whose /proc folder is open as `process_folder`."""
    stat_fd = os.open("stat", os.O_RDONLY | os.O_CLOEXEC, dir_fd=process_folder)
    try:
        line = os.read(stat_fd, 4096).decode()
    finally:
        os.close(stat_fd)
    return int(line.rsplit(")", 1)[1].split()[1])  # after the name, which may hold anything


def fork_to_bind(user_ns: int, mount_ns: int, path: str, identity: Identity) -> int:
    """The wait status of a forked child that binds the empty file (`bind_in_sandbox`)."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            status = bind_in_sandbox(user_ns, mount_ns, path, identity)
        finally:
            os._exit(status)  # never back into planloop's own code
    deadline = time.monotonic() + CHILD_SECONDS
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1]
        time.sleep(0.005)


def child_status(status: int) -> str | None:
    """None for a child that hid the file, else what its exit status says."""
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return None
    return WHY_NOT.get(code, f"it was ended by signal {-code}" if code < 0 else "it failed")


def bind_in_sandbox(user_ns: int, mount_ns: int, path: str, identity: Identity) -> int:
    """The child's work; returns its exit status (WHY_NOT)."""
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # before it enters: the task cannot attach to it
    try:
        if user_ns >= 0:
            check(LIBC.setns(user_ns, 0x10000000))  # CLONE_NEWUSER
        check(LIBC.setns(mount_ns, 0x00020000))  # CLONE_NEWNS: also moves it to that root
    except OSError:
        return 2
    target = find_exactly(path, identity)
    if target is None:
        return 3
    try:
        empty = empty_file_mount()
        moved = MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH
        syscall(MOVE_MOUNT, empty, b"", target, b"", moved)
        info = os.fstat(empty)
    except OSError:
        return 4
    # Looked up again: the path leads to the empty file now.
    return 0 if find_exactly(path, (info.st_dev, info.st_ino)) is not None else 4


def find_exactly(path: str, identity: Identity | None) -> int | None:
    """`path` opened as a place (O_PATH) from the root, each folder and the file itself taken
    as they are, never through a link; None when one is a link, or the file is not a regular
    file of `identity` (when given)."""
    *folders, name = [part for part in path.split("/") if part]
    if {".", ".."} & {*folders, name}:
        return None  # planloop's paths are normalized: such a path is none of its own
    folder = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in folders:
            inner = os.open(part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        found = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return None  # a link on the way (ENOTDIR), or missing
    finally:
        os.close(folder)
    info = os.fstat(found)
    if not stat.S_ISREG(info.st_mode) or identity not in (None, (info.st_dev, info.st_ino)):
        os.close(found)
        return None
    return found


def empty_file_mount() -> int:
    """A detached read-only mount of an empty file, on a tmpfs made in the current namespaces."""
    context = syscall(FSOPEN, b"tmpfs", FSOPEN_CLOEXEC)
    syscall(FSCONFIG, context, FSCONFIG_CMD_CREATE, None, None, 0)
    tmpfs = syscall(FSMOUNT, context, FSMOUNT_CLOEXEC, 0)
    os.close(os.open("empty", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o444, dir_fd=tmpfs))
    empty = syscall(OPEN_TREE, tmpfs, b"empty", OPEN_TREE_CLONE | os.O_CLOEXEC)
    attributes = MountAttributes(READ_ONLY_ATTRIBUTES, 0, 0, 0)
    size = ctypes.sizeof(attributes)
    syscall(MOUNT_SETATTR, empty, b"", AT_EMPTY_PATH, ctypes.byref(attributes), size)
    return empty


def syscall(number: int, *arguments: object) -> int:
    """A system call by number (Python 3.11 has none of the mount API's); OSError on failure.
    Numbers are passed as C longs: whole registers, whatever the call reads of them."""
    words = [ctypes.c_long(word) if isinstance(word, int) else word for word in arguments]
    return check(LIBC.syscall(ctypes.c_long(number), *words))


def check(result: int) -> int:
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def judged_identity(path: str) -> Identity | None:
    """The identity of the file at `path` now, when what it holds was read and holds no key:
    what may be hidden again. None for a link, a file that cannot be read, or the key inside."""
    opened = open_for_key(path)
    if not isinstance(opened, int):
        return None
    info = os.fstat(opened)
    data = read_opened(opened)  # it closes the file
    own_read_done(path, data)  # as `read_for_key` tells the watches of planloop's own reads
    if data is None or holds_the_key(data) or not stat.S_ISREG(info.st_mode):
        return None
    return info.st_dev, info.st_ino
