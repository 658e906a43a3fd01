"""One lock per workspace between sandboxed background tasks and writes to protected files.

A sandbox holds a protected file read-only (or hides it) with a bind made when it starts.
Replacing the file on the host, as a write does with its rename, takes it out from under that
bind: a sandboxed task still running could then change the new file, or write through the
temporary file it opened while the tool wrote it. The permission policy refuses such a write
while its own session's tasks run (middleware/permissions.py). This lock makes the same hold
for every planloop process in the folder (a second terminal, a second session):

    a session while a sandboxed task of its own runs      holds the folder's lock, shared
    a tool call a person approved for a protected file    takes the lock of the file's folder
                                                          and of each folder above it,
                                                          exclusively, for the call alone

Taken exclusively means that no sandboxed task runs in any session whose workspace holds the
file; a task that would start meanwhile waits for the write to end. A lock held shared by
this very process counts too: the kernel locks each open of the file on its own.

The lock file lies beside the workspace's sessions in planloop's home, which no sandbox sees,
and the kernel lets go of a lock when its process ends, so none is left behind by a crash.
Where the home cannot be written, a session sees only its own tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from tools.base import ToolError

LOCK_NAME = "tasks.lock"
# How long a task start waits for another session's protected write to end: a write takes
# milliseconds; one that takes longer than this is stuck, and the task is refused.
START_WAIT_SECONDS = 10
START_POLL_SECONDS = 0.02
NO_LINK = os.O_NOFOLLOW | os.O_CLOEXEC


def lock_path(workspace: Path) -> Path:
    from session import sessions_dir  # late: session.py imports the tools

    return sessions_dir(workspace) / LOCK_NAME


class TasksRunning:
    """A session's shared hold on its workspace's lock, while its sandboxed tasks run."""

    def __init__(self) -> None:
        self.fd: int | None = None

    async def hold(self, workspace: Path) -> None:
        """Hold the lock shared (again a no-op while held); wait for a protected write of
        another session to end first. A home that cannot be written is passed over."""
        if self.fd is not None:
            return
        from session import make_private_folder  # late: session.py imports the tools

        path = lock_path(workspace)
        try:
            make_private_folder(path.parent)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | NO_LINK, 0o600)
        except OSError:
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                self.fd = fd
                return
            except BlockingIOError:
                if loop.time() >= deadline:
                    os.close(fd)
                    raise ToolError(
                        "bash: the task did not start: another planloop session in this folder "
                        f"has been writing a protected file for {START_WAIT_SECONDS} s. Start "
                        "the task again in a moment."
                    ) from None
                await asyncio.sleep(START_POLL_SECONDS)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@contextlib.contextmanager
def no_task_runs_over(files: list[Path], tool_name: str) -> Iterator[None]:
    """Hold, for a write to these protected files, every lock a sandboxed task that could see
    them would hold: raises ToolError when one runs, in this session or another."""
    taken: list[int] = []
    try:
        for folder in dict.fromkeys(folder for file in files for folder in file.parents):
            try:
                fd = os.open(lock_path(folder), os.O_RDONLY | NO_LINK)
            except OSError:
                continue  # no session ever ran a task there
            taken.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                names = ", ".join(str(file) for file in files)
                raise ToolError(
                    f"{tool_name}: nothing was written. {names} is protected, and a sandboxed "
                    f"background task runs in {folder} (in this planloop session or another): "
                    "replacing the file now would lift its read-only hold in that task's "
                    "sandbox. Stop the task first (task_stop, or in the session that started "
                    "it), then send this change again."
                ) from None
        yield
    finally:
        for fd in taken:
            os.close(fd)
