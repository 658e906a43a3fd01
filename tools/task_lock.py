"""One lock between sandboxed commands and writes to protected files, in every planloop session.

A sandbox holds a protected file read-only (or hides one that holds the key) with a bind made
when it starts. Replacing the file on the host, as a write does with its rename, takes it out
from under that bind: a sandboxed command still running could then change the new file, read
it, or write through the temporary file it opened while the tool wrote it. Within a session,
calls run one after another, and the permission policy refuses such a write while the
session's own background tasks run (middleware/permissions.py). Other sessions run alongside:
a second terminal in the same project, a session in a folder inside this one, or anywhere
else (a sandbox hides the key's copies in your home and beside its workspace too). So the
lock is one for planloop's home, that is for all of your sessions:

    a sandboxed command, while it runs                 holds the lock shared
    a session, while a sandboxed task of its own runs  holds it shared
    a tool call a person approved for a protected      takes it exclusively, without waiting,
    file                                               for the call alone; refused if it cannot

Taken exclusively means that no sandboxed command or task of yours runs anywhere; one that
would start meanwhile waits for the write to end. A lock this very process holds shared counts
too: the kernel locks each open of the file on its own.

The lock file lies in planloop's home, which no sandbox sees, and the kernel lets go of a lock
when its process ends, so none is left behind by a crash. Where the home cannot be written,
a session sees only its own tasks; sessions with another home (another user) do not see each
other's.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import stat
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from tools.base import ToolError

LOCK_NAME = "sandboxes.lock"
# How long a command or task waits for a protected write of another session to end: a write
# takes milliseconds; one that takes longer than this is stuck, and the command is refused.
START_WAIT_SECONDS = 10
START_POLL_SECONDS = 0.02
NO_LINK = os.O_NOFOLLOW | os.O_CLOEXEC


def lock_path() -> Path:
    from session import planloop_home  # late: session.py imports the tools

    return planloop_home() / LOCK_NAME


def open_lock(flags: int) -> int:
    """The lock file, opened without waiting and without following a link; OSError unless it
    is a regular file of yours. (Made while the home was open to others, a pipe there would
    stop planloop in `open`, and another user's file, held locked, every write or command.)"""
    fd = os.open(lock_path(), flags | NO_LINK | os.O_NONBLOCK, 0o600)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
        os.close(fd)
        raise OSError(errno.EPERM, f"{lock_path()} is not a file of yours")
    return fd


async def hold_shared() -> int | None:
    """The lock, held shared (an open descriptor to close), once no protected write runs; None
    where the home cannot be written. Raises ToolError when a write is stuck."""
    from session import make_private_folder  # late: session.py imports the tools

    path = lock_path()
    try:
        make_private_folder(path.parent)
        fd = open_lock(os.O_RDWR | os.O_CREAT)
    except OSError:
        return None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if loop.time() >= deadline:
                os.close(fd)
                raise ToolError(
                    "bash: the command did not start: another planloop session has been "
                    f"writing a protected file for {START_WAIT_SECONDS} s. Send it again in a "
                    "moment."
                ) from None
            await asyncio.sleep(START_POLL_SECONDS)


@contextlib.asynccontextmanager
async def command_running(sandbox: object) -> AsyncIterator[None]:
    """Held around one command: shared, when its sandbox holds or hides files by binds."""
    fd = await hold_shared() if getattr(sandbox, "confines_writes", False) else None
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


class TasksRunning:
    """A session's shared hold, while its sandboxed background tasks run."""

    def __init__(self) -> None:
        self.fd: int | None = None

    async def hold(self) -> None:
        if self.fd is None:
            self.fd = await hold_shared()

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@contextlib.contextmanager
def no_sandbox_runs(files: list[Path], tool_name: str) -> Iterator[None]:
    """Held for a call approved to write these protected files: raises ToolError while a
    sandboxed command or task of any of your planloop sessions runs."""
    try:
        fd = open_lock(os.O_RDONLY)
    except FileNotFoundError:
        fd = None
    except OSError as error:
        # Not planloop's lock: whether a sandbox runs cannot be told, so nothing is replaced.
        raise ToolError(
            f"{tool_name}: nothing was written: {error.strerror or error} ({lock_path()}). "
            "Tell the user to remove that file; planloop makes it again."
        ) from None
    if fd is None:
        yield  # no sandboxed command ever ran with this home
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            names = ", ".join(str(file) for file in files)
            raise ToolError(
                f"{tool_name}: nothing was written. {names} is protected, and a sandboxed "
                "command or background task of a planloop session runs (this one's or another "
                "one's): replacing the file now would lift its read-only hold, or its hiding, in "
                "that sandbox. Stop this session's tasks with task_stop, or wait until the other "
                "session's command ends, then send this change again."
            ) from None
        yield
    finally:
        os.close(fd)
