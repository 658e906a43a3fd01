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

What is locked is planloop's home folder itself, which no sandbox sees: not a file in it. A
file there can be removed while sessions hold it (by the person tidying up, or told to, as a
pipe or another user's file planted while the home was open to others would have to be), and
the next session would then lock a new file alone. The home is a folder of yours, made so
before it is used (session.make_private_folder). The kernel lets go of a lock when its process
ends, so none is left behind by a crash. Where the home cannot be made yours, a session sees
only its own tasks; sessions with another home (another user) do not see each other's.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from tools.base import ToolError

# How long a command or task waits for a protected write of another session to end: a write
# takes milliseconds; one that takes longer than this is stuck, and the command is refused.
START_WAIT_SECONDS = 10
START_POLL_SECONDS = 0.02


def open_home() -> int | None:
    """planloop's home, opened to be locked; None where it cannot be made a folder of yours."""
    from session import make_private_folder, planloop_home  # late: session.py imports the tools

    home = planloop_home()
    try:
        make_private_folder(home)
        return os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None


async def hold_shared() -> int | None:
    """The lock, held shared (an open descriptor to close), once no protected write runs; None
    where the home cannot be made yours. Raises ToolError when a write is stuck."""
    fd = open_home()
    if fd is None:
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
    fd = open_home()
    if fd is None:
        yield  # no session of this home could have run a sandboxed command either
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
