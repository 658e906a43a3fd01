"""Files written while no command runs: the key pasted into `config/settings.json` meanwhile.

The search for copies of the key (tools/key_copies.py) runs once, at start; a command's own
watch (tools/folder_watch.py) sees what is written while that command runs. Between two
commands nothing looked: the person, asked by the model to put their key into the app's
settings, did so while the model was thinking, and the next command read it.

So from the end of the first command on, the workspace is watched while no command runs.
Before the next one, the files written meanwhile are read for the key, and those that hold it
are hidden from the command like any copy the search found (`KEY_FILES`). A watch that lost
track (more file events at once than the kernel keeps) is said once: what was written then is
not known.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from tools.bind_watch import SandboxStart
from tools.folder_watch import LOST_TRACK, FolderWatch

# Workspaces watched at once in one process (each watch is an inotify instance, of which a
# user has 128 by default): a program running agents in many folders keeps the newest.
MAX_WATCHED = 4

_watches: dict[str, tuple[FolderWatch, float]] = {}  # workspace -> its watch, judged up to when
_told: set[str] = set()  # workspaces whose watch lost track, said once

LOST_TRACK_NOTICE = (
    "planloop: more files changed at once between two commands than it could follow; a key "
    "saved into a file meanwhile is not known to planloop, and commands may read it."
)


def key_files_written_between(root: Path, tell: Callable[[str], None]) -> list[Path]:
    """The files of the workspace `root` written since the last command ended that hold the
    key now (real paths), and the watch ends: the command about to run has its own, and two
    watches reading the same events would slow the one that judges the command. `tell` says
    a watch that lost track."""
    key = str(root)
    known = _watches.pop(key, None)
    if known is None:
        return []
    watch, since = known
    try:
        if watch.loop is not _running_loop():
            return []  # its loop has ended (a program that runs each input in a new one)
        watch.look()
        found = watch.exposed_since(since, last=True)
    finally:
        watch.close()
    if LOST_TRACK in found.values() and key not in _told:
        _told.add(key)
        tell(LOST_TRACK_NOTICE)
    # Those found holding the key ("" for how): a key file written and read by your editor,
    # or moved away, is no copy of the key.
    return [Path(os.path.realpath(path)) for path, how in found.items() if not how]


def watch_until_the_next_command(root: Path) -> None:
    """Watch the workspace `root` from now (a command has ended) until the next one starts."""
    if _running_loop() is None or str(root) in _watches:
        return  # no event loop to watch on (a sandbox used outside one), or watched already
    _watches[str(root)] = (_watch(root), time.monotonic())
    _keep_few()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _watch(root: Path) -> FolderWatch:
    watch = FolderWatch(lambda: None)
    watch.add(SandboxStart(root, frozenset(), frozenset()))
    return watch


def _keep_few() -> None:
    while len(_watches) > MAX_WATCHED:
        oldest = next(iter(_watches))
        watch, _ = _watches.pop(oldest)
        with contextlib.suppress(Exception):
            watch.close()
