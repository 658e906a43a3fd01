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
made, a sandbox made now reads the `.env` a tool loads, a watch reads a key file just written.
Those reads are in the queues too, and a watch that took one for a command's would see write,
read, write (`cp .env.example .env`, then `echo X >> .env`) and count the key as read and lost.
So every such read opens through `open_own` and ends with `own_read_done`, which, when an open
watch judges the file as a key file, put a mark in every queue before and after it: a folder
made and removed at once in a folder of planloop's own, named by the read's number (`N` before,
`N.` after). A watch looks the number up in `OWN_READS` (which file, and what planloop found in
it) and judges the reads and writes between the two marks together (tools/folder_watch.py):
they are ordered as they happened, and only which of those reads is planloop's cannot be told.
planloop's reads of one file take turns (`TURNS`), so that two of them never share their marks.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import itertools
import os
import shutil
import tempfile
import threading
import time
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


class SignalFlag:
    """A flag that a signal handler sets, and other threads read: `threading.Event` without
    its lock.

    Python runs a handler between two steps of whatever the main thread does, the handler of
    an earlier signal included. Event.set takes a lock, so a second SIGTERM that came while
    the first one's handler held it (`pkill -f agent.py` reaches planloop and the process that
    waits for it, which passes its copy on) waited for that lock forever: planloop hung, and
    only SIGKILL ended it. One assignment needs no lock."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def clear(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set


# Set when a signal that ends planloop arrived (SIGTERM, SIGHUP: cli/signals.py sets it in the
# signal's own handler, which Python runs between two steps of a look that holds the event
# loop). A watch catching up with a storm of events then stops there, and counts what is left
# as lost, rather than keep planloop from ending for seconds.
ENDING = SignalFlag()
# The Ctrl-Cs so far, counted the same way: a wait that holds the event loop (the first
# command's wait for the search for copies of the key) ends when one comes.
CTRL_C_COUNT = [0]
# Once planloop is ending, a look that began after it (what a stopped command made, taken stock
# of) may go on this long, in CPU seconds: an ordinary one takes milliseconds, and a SIGTERM is
# still answered within a second.
ENDING_LOOK_SECONDS = 0.3


class SignalCheck:
    """For work that holds the event loop (which serves Ctrl-C and SIGTERM only once it gets
    control back), checked between two of its pieces: why it should stop now, or None. A
    Ctrl-C, SIGTERM or SIGHUP that came since it began stops it; so does ENDING_LOOK_SECONDS
    of CPU time in one begun once planloop was ending."""

    def __init__(self) -> None:
        self.ctrl_c = CTRL_C_COUNT[0]
        self.ending = ENDING.is_set()
        self.started = time.thread_time()

    def stop_why(self) -> str | None:
        if CTRL_C_COUNT[0] != self.ctrl_c:
            return "Ctrl-C came"
        if ENDING.is_set() and (
            not self.ending or time.thread_time() - self.started > ENDING_LOOK_SECONDS
        ):
            return "planloop is ending"
        return None


# The watches with a queue open: each has `watches_key_file(path)`, whether it judges the reads
# of a key file at `path` (a read of any other file is not marked: a sandbox being made reads
# git's and the shells' configs by the hundred).
OPEN_WATCHES: weakref.WeakSet[Any] = weakref.WeakSet()

# planloop's own reads, by number: the file, and what it read once done (UNTOLD until then,
# None when it could not tell, NOT_OPENED when the open failed). The newest MAX_OWN_READS: a
# watch far behind finds none for an older number, and takes the reads beside it for a
# command's.
OWN_READS: dict[int, list] = {}
MAX_OWN_READS = 10_000
UNTOLD, NOT_OPENED = "untold", "not opened"
_numbers = itertools.count(1)
_registry = threading.Lock()
_reading = threading.local()  # this thread's read begun and not yet done: path -> number

# planloop's own reads of one file take turns across its threads. Two at once put their marks
# around each other's reads, and a task's write between those reads splits them into two
# stretches, which a watch must take for a command's read of what planloop never saw: three
# `read_file` calls at once, while a task appended to `.env.local`, stopped the run. A file's
# turn is one of these locks, picked by its path; a read waits at most TURN_SECONDS for it (a
# reader that never said it was done), then goes on beside the other, judged as before.
TURNS = tuple(threading.RLock() for _ in range(64))
TURN_SECONDS = 0.5


def open_own(path: str | os.PathLike[str], flags: int) -> int:
    """`os.open(path, flags)` for a read of planloop's own, marked in every queue first. The
    caller says what it read with `own_read_done`, whether the read went well or not."""
    path = os.fspath(path)
    if not judged_by_a_watch(path):
        return os.open(path, flags)
    number = begin_own_read(path)
    try:
        return os.open(path, flags)
    except OSError:
        _end(path, number, NOT_OPENED)
        raise


def judged_by_a_watch(path: str) -> bool:
    """Whether a watch judges the reads of `path` (a key file in a folder it watches): a read of
    planloop's own of it must be marked (`open_own`), or it counts as a command's."""
    try:
        watches = list(OPEN_WATCHES)
    except RuntimeError:  # a watch opened or closed by another thread meanwhile
        return True  # marked, to be sure: a mark no watch judges is one folder event
    return any(watch.watches_key_file(path) for watch in watches)


def begin_own_read(path: str) -> int:
    """Number a read of planloop's own of `path` and mark its start; returns the number, or 0
    when no mark could be made (the reads beside it then count as commands')."""
    reading = _reading.__dict__.setdefault("paths", {})
    for earlier, number in list(reading.items()):
        _end(earlier, number, None)  # its reader never said: what it read is not known
    turn = TURNS[hash(path) % len(TURNS)]
    if turn.acquire(timeout=TURN_SECONDS):
        _reading.__dict__.setdefault("turns", {})[path] = turn
    with _registry:  # the oldest goes, which another thread may be adding to meanwhile
        number = next(_numbers)
        OWN_READS[number] = [path, UNTOLD]
        while len(OWN_READS) > MAX_OWN_READS:
            del OWN_READS[next(iter(OWN_READS))]
    reading[path] = number
    return number if _mark(str(number)) else 0


def own_read_done(path: str | os.PathLike[str], data: bytes | None | str) -> None:
    """What a read opened with `open_own` (or begun with `begin_own_read`) read, and its end
    mark: None when it could not tell, NOT_OPENED when it opened nothing."""
    path = os.fspath(path)
    number = _reading.__dict__.get("paths", {}).get(path)
    if number is not None:
        _end(path, number, data)


def _end(path: str, number: int, data: bytes | None | str) -> None:
    _reading.__dict__.get("paths", {}).pop(path, None)
    entry = OWN_READS.get(number)
    if entry is not None:
        entry[1] = data
    _mark(f"{number}.")
    turn = _reading.__dict__.get("turns", {}).pop(path, None)
    if turn is not None:  # the next read of the file may begin
        turn.release()


def own_read_of(name: str) -> tuple[int, bool] | None:
    """The number of the read a mark's name tells, and whether it ended; None for another name."""
    ended = name.endswith(".")
    digits = name[:-1] if ended else name
    return (int(digits), ended) if digits.isdigit() else None


def _mark(name: str) -> bool:
    """A folder made and removed at once in `marks_folder()`: its creation is queued in every
    watch, under a name no other event has (the kernel merges an event with the same one queued
    just before it, so two opens of one file could read as one)."""
    folder = marks_folder()
    if folder is None:
        return False
    try:
        os.mkdir(os.path.join(folder, name))
    except OSError:
        return False
    with contextlib.suppress(OSError):
        os.rmdir(os.path.join(folder, name))
    return True


@functools.cache
def marks_folder() -> str | None:
    """A folder of planloop's own, outside any workspace, where only `_mark` makes anything."""
    try:
        folder = tempfile.mkdtemp(prefix="planloop-marks-")
    except OSError:
        return None
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
