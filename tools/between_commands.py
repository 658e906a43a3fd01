"""Files written while no command runs: the key pasted into `config/settings.json` meanwhile.

The search for copies of the key (tools/key_copies.py) runs once, at start; a command's own
watch (tools/folder_watch.py) sees what is written while that command runs. Between two
commands nothing looked: the person, asked by the model to put their key into the app's
settings, did so while the model was thinking, and the next command read it.

So from planloop's start on (when the search begins), the workspace is watched while no
command runs. Before the next command, the files written meanwhile are read for the key, and
those that hold it are hidden from the command like any copy the search found (`KEY_FILES`).
The watch goes on while the command is made ready (its binds worked out, a big workspace's
settings read) and ends only once the command's own watch has begun: what it saw meanwhile,
the binds did not hide, so it counts as seen by the command's watch. A watch that lost
track (more file events at once than the kernel keeps), or could not watch every folder, is
said once: what was written there is not known.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from tools.bind_watch import SandboxStart
from tools.folder_watch import (
    LOST_TRACK,
    MAX_WATCHED_FOLDERS,
    FolderWatch,
    holds_it_at_that_name,
)
from tools.key_copies import cut_short_notice, other_names, workspace_search

# Workspaces watched at once in one process (each watch is an inotify instance, of which a
# user has 128 by default): a program running agents in many folders keeps the newest.
MAX_WATCHED = 4

_watches: dict[str, FolderWatch] = {}  # workspace -> its watch
_taken: dict[str, float] = {}  # workspace -> when its watch's findings were last taken
_told: set[str] = set()  # workspaces whose watch lost track, said once
_let_go: set[str] = set()  # workspaces whose watch was let go for newer ones (`_keep_few`)

LOST_TRACK_NOTICE = (
    "planloop: more files changed at once between two commands than it could follow; a key "
    "saved into a file meanwhile is not known to planloop, and commands may read it."
)
UNWATCHED_NOTICE = (
    "planloop: could not watch {shown} for files written between two commands (inotify is "
    "missing or out of instances or watches); a key saved "
    "there meanwhile is not known to planloop, and commands may read it."
)


def key_files_written_between(
    root: Path, tell: Callable[[str], None], linked: list[Path] | None = None
) -> list[Path]:
    """The files of the workspace `root` written since the watch began (planloop's start, or
    the end of the last command), or since this was last asked, that hold the key now, at
    every name they have in the workspace (real paths). The watch goes on while the command
    is made ready, until its own watch has begun (`key_files_written_while_it_started`), so
    that no moment goes unwatched. `tell` says, once, a watch that lost track or could not
    watch every folder. One whose other names could not all be found (`ln
    config/settings.json notes.txt` before the key came) is added to `linked`."""
    key = str(root)
    watch = _watches.get(key)
    if watch is None and key in _let_go:
        # Let go for newer workspaces (`_keep_few`): what was written since is not known, so
        # the workspace is searched for the key again, as at start.
        _let_go.discard(key)
        watch_until_the_next_command(root)  # from before the search: no moment unwatched
        search = workspace_search(root)
        if search is not None and search.cut_short:
            tell(cut_short_notice(search))
        found = [] if search is None else search.found
        return found + names_beside(root, found, linked)
    if watch is None:
        return []
    # Folders past the bound a watch keeps (a big node_modules) are said by each command's
    # watch; those inotify refused (no instance or watch left) only here.
    past_the_bound = len(watch.folders) >= MAX_WATCHED_FOLDERS
    unwatched = [] if past_the_bound else sorted(watch.unwatched)
    found = watch.take_stock(_taken.get(key, 0))
    _taken[key] = time.monotonic()
    if LOST_TRACK in found.values() and key not in _told:
        _told.add(key)
        tell(LOST_TRACK_NOTICE)
    if unwatched and key not in _told:
        _told.add(key)
        tell(UNWATCHED_NOTICE.format(shown=unwatched_shown(root, unwatched)))
    # A key file written and read by your editor, or moved away, is no copy of the key.
    holders = [
        Path(os.path.realpath(path))
        for path, how in found.items()
        if path != key and holds_it_at_that_name(how)
    ]
    return holders + names_beside(root, holders, linked)


def key_files_written_while_it_started(root: Path) -> dict[str, str]:
    """The key files exposed in the workspace `root` since `key_files_written_between` last
    looked, as `FolderWatch.finish` gives them, and the watch ends: called once the command
    it was made ready for has a watch of its own (a command that never starts, refused, leaves
    it watching for the next). What it found, that command's binds did not hide."""
    key = str(root)
    watch = _watches.pop(key, None)
    since = _taken.pop(key, 0)
    return watch.finish(since) if watch is not None else {}


def names_beside(root: Path, holders: list[Path], linked: list[Path] | None) -> list[Path]:
    """The other names in `root` of the files `holders` that have more than one."""
    copies = {}
    for path in holders:
        with contextlib.suppress(OSError):
            info = os.stat(path, follow_symlinks=False)
            if info.st_nlink > 1:
                copies[(info.st_dev, info.st_ino)] = info.st_nlink
    if not copies:
        return []
    more, short = other_names(root, copies, holders)
    if linked is not None:
        linked += [path for path in short if path not in linked]
    return more


def unwatched_shown(root: Path, folders: list[str]) -> str:
    inside = [
        "the workspace" if folder == str(root) else os.path.relpath(folder, root)
        for folder in folders[:3]
    ]
    more = f" and {len(folders) - 3} more" if len(folders) > 3 else ""
    return ", ".join(inside) + more


def watch_until_the_next_command(root: Path) -> None:
    """Watch the workspace `root` from now (planloop starts, or a command has ended) until the
    next command starts: read by a thread of its own, as no event loop may run meanwhile (the
    terminal runs each input in one of its own). At most MAX_WATCHED workspaces at once: the
    oldest is let go, and searched again before its next command."""
    if str(root) in _watches:
        return  # watched already
    _watches[str(root)] = _watch(root)
    _keep_few()


def _watch(root: Path) -> FolderWatch:
    watch = FolderWatch(lambda: None, threaded=True)
    watch.add(SandboxStart(root, frozenset(), frozenset()))
    return watch


def _keep_few() -> None:
    while len(_watches) > MAX_WATCHED:
        oldest = next(iter(_watches))
        watch = _watches.pop(oldest)
        _taken.pop(oldest, None)
        _let_go.add(oldest)
        with contextlib.suppress(Exception):
            watch.close()
