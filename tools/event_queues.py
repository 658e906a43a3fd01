"""The kernel's queues of file events, and planloop's own work in them.

Walks. A watch that asks for reads (a foreground command's, the background tasks':
tools/folder_watch.py) gets events for every folder planloop lists: its read, on the folder's
watch and its parent's. A walk of the workspace (a scan before a command, a new watch's) runs on
the event loop and holds it, so nobody reads them meanwhile; the kernel keeps 16,384 and drops
the rest, which a watch must read as lost track (the key could have been read unseen). In a
workspace of a few thousand folders, a `node_modules`, every command's output would be withheld.

So each walk, every FOLDERS_BETWEEN folders, sets aside what is queued on the watches read by
its own thread's loop: they read it later as if still queued, and drop the folder listings as
they take it in.

Reads. planloop reads key files itself while commands run: a comparison reads a `.env` a task
made, a sandbox made now reads the `.env` a tool loads. Those reads are in the queues too, and a
watch that took one for a command's would see write, read, write (`cp .env.example .env`, then
`echo X >> .env`) and count the key as read and lost. So every such read opens through
`open_own`, which first tells each open watch (`OPEN_WATCHES`) whose key file it is: the watch
puts a mark in its queue before the read, and takes the reads after the mark, up to the close,
as its own. A command's read in that window is taken for planloop's too, so the reader says
what it read (`own_read_done`): when that held the key, the command may have read it beside.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from typing import Any

FOLDERS_BETWEEN = 256  # folders listed between two set-asides: about 1,500 events at most

# The watches read by an event loop: each has `loop`, `fd`, `aside`, `set_aside()`, `look()`.
READ_ON_A_LOOP: weakref.WeakSet[Any] = weakref.WeakSet()


def keep_queues_short() -> None:
    """Set aside the events queued now on each watch that this thread's event loop reads (a
    watch read by another thread is not touched: its events would be taken out of order)."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        return
    for watch in list(READ_ON_A_LOOP):
        if watch.loop is running and watch.fd is not None:
            watch.set_aside()
            if watch.aside:  # the kernel's queue may be empty now: nothing wakes its reader
                running.call_soon(watch.look)


# The watches with a queue open: each has `before_own_read(path)` (whether it marked the read
# to come), `own_read_done(path, data)` and `own_read_failed(path)` (it never opened).
OPEN_WATCHES: weakref.WeakSet[Any] = weakref.WeakSet()


def open_own(path: str | os.PathLike[str], flags: int) -> int:
    """`os.open(path, flags)` for a read of planloop's own, told first to every open watch."""
    path = os.fspath(path)
    marked = [watch for watch in list(OPEN_WATCHES) if watch.before_own_read(path)]
    try:
        return os.open(path, flags)
    except OSError:
        for watch in marked:
            watch.own_read_failed(path)
        raise


def own_read_done(path: str | os.PathLike[str], data: bytes | None) -> None:
    """What a read opened with `open_own` read: None when it could not tell (too big, say)."""
    path = os.fspath(path)
    for watch in list(OPEN_WATCHES):
        watch.own_read_done(path, data)
