"""Key files judged by what happens to them while sandboxed commands run, not by what they hold
when planloop looks (`FolderWatch`).

A key file (`.env`, `.env.local`, `config/.env`) the person saves while a command runs is in no
command's view at its start, so the sandbox cannot hide it: the command can read it. Comparing
the files when the command ends (tools/bind_watch.py `what_was_lost`) only finds the ones still
there; a command that reads the new file and moves or removes it leaves nothing to find. So
every folder of the workspace is watched with inotify while a command (foreground or in the
background) runs, and a key-file name is judged by its events:

    written              read at once: holding the key, it counts as read by the command
    renamed (cookie)     followed, and read under its new name (`cfg.bak`); renamed on before
                         planloop read it, it is read at both names (an exchange of two
                         names queues what `mv a b; mv b a` does)
    written, then gone   removed or moved out of sight before planloop could read it: it cannot
                         be cleared, so it counts as read (a file made and removed empty does
                         not: nothing was written into it; one removed that planloop still has
                         open from an earlier read is judged by what it held then and at the end)

planloop's own reads are told from the command's by their place in the queue: marks before and
after each (tools/event_queues.py) say which file it read and what it found there, and a write
queued before its first mark is in what it read. Between the two marks, reads that a write
separates cannot all be planloop's: one of them read what planloop never saw (`_judge_own_read`).

Where inotify cannot watch a folder (none, out of watches, past MAX_WATCHED_FOLDERS), that is
said once and the comparisons at the end of a command, at each tool call and every few seconds
while a task runs stay the only check there; also for a folder made while a command runs, past
the bound (`unwatched_now`).

The events are read a bounded batch at a time (MAX_EVENT_BYTES): a command that reads files
in a tight loop makes events as fast as planloop can take them, and reading until the queue is
empty would hold planloop's event loop (timeouts, Ctrl-C, the next model turn) for as long as
it goes on, with every event in memory. What is still queued when a foreground command's watch
closes counts as lost, as an overflow of the kernel's queue does (`_overflowed`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import itertools
import os
import re
import select
import stat
import struct
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.base import ToolError
from tools.beneath import open_for_reading
from tools.bind_watch import (
    KEY_SEARCH_BYTES,
    SandboxStart,
    holds_the_key,
    is_key_name,
    open_for_key,
    read_for_key,
    read_opened,
)
from tools.event_queues import (
    ENDING,
    FOLDERS_BETWEEN,
    NOT_OPENED,
    OPEN_WATCHES,
    OWN_READS,
    READ_ON_A_LOOP,
    SignalCheck,
    begin_own_read,
    keep_queues_short,
    marks_folder,
    own_read_done,
    own_read_of,
)

# inotify(7): what a rename over, an unlink or a creation in a watched folder reports, and the
# writes and reads of the files in it.
IN_ACCESS, IN_MODIFY, IN_CLOSE_WRITE, IN_CLOSE_NOWRITE, IN_OPEN = 0x1, 0x2, 0x8, 0x10, 0x20
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_Q_OVERFLOW, IN_IGNORED, IN_ONLYDIR, IN_ISDIR = 0x4000, 0x8000, 0x01000000, 0x40000000
IN_DONT_FOLLOW = 0x02000000
NAMES_CHANGED = IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
WRITES = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE
# Bytes put into a file: a write, or a file renamed in whole. A file made and closed without
# these holds nothing (`touch .env.x`).
FILLS = IN_MODIFY | IN_MOVED_TO
# A read that returned bytes. A close without writing also ends planloop's own read; an open
# alone, or a read of nothing (a file just made, not yet written), gives nobody a key. A read
# through a memory mapping raises no event at all.
READS = IN_ACCESS | IN_CLOSE_NOWRITE
WATCHED = NAMES_CHANGED | WRITES | READS | IN_ONLYDIR
# What makes a file of another name worth reading for the key at the next look: bytes written
# (closed or not: a file kept open for writing may never be closed), a file renamed in, or a
# new name for a file (a hard link to a key file, or an O_TMPFILE file linked into place, whose
# writes came under a name that never was in the folder).
OTHER_WRITES = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE
EVENT_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded
LARGEST_EVENT = EVENT_HEADER.size + 256  # a name of NAME_MAX bytes and its NUL
# Rounds of "read the written key files, then the events that came meanwhile" in one wake-up.
# A key file still written after that many (or after LOOK_SECONDS) is read again at the next
# look, soon, whether only written (a script adding a line every few milliseconds) or also read
# (`echo X >> .env && cat .env`: it holds what was read); one still written and read when a
# command's output is judged (`take_stock`) is taken as read with the key.
SETTLE_ROUNDS = 20
# A look's rounds end after this long, too: a task rewriting two hundred key files in a loop
# made each round cost some 0.15 s and a look of twenty 3 s, which held planloop's event loop
# (Ctrl-C, SIGTERM, the next model turn) for as long as the task went on.
LOOK_SECONDS = 0.1
# The noting of a look's events ends after this long too (one event at least): a task renaming
# a tree of folders in a loop makes each rename cost a walk of the tree, and a batch of them held
# the loop for minutes. What is left waits for the next look, in order (`_note`), and the queue
# is left unread as long meanwhile. A watch that cannot keep up finds out by what waits, not by
# how long it has waited (a busy machine is slow, not hostile): MAX_SET_ASIDE events set aside,
# or the kernel's queue overflowing meanwhile, count as lost track.
NOTE_SECONDS = 0.1
# Files made and gone while a key file waited, kept to see whether one is read (a hard link).
MAX_GONE_MADE = 1000
# Folders of one workspace watched at most: each costs a watch of `fs.inotify.max_user_watches`,
# shared by all your programs, and a walk at each command's start. Past it, folders are checked
# by comparison only (said once).
MAX_WATCHED_FOLDERS = 10_000
# Room beyond it for folders made while a command runs (an install's): one left unwatched, and
# removed before the command ends, counts as read (GONE_UNWATCHED), which stops the run.
MORE_FOR_NEW_FOLDERS = 10_000

# Bytes of events taken in one wake-up: at most 1 024 events (16 bytes and a name each), some
# tens of milliseconds of Python. The loop runs its other work between two such reads.
MAX_EVENT_BYTES = 16 * 1024
# A walk of the workspace's folders takes the queued events in after every FOLDERS_BETWEEN
# folders (each listing queues about six: tools/event_queues.py); a watch read by a thread
# takes them in as they come. Either holds at most MAX_SET_ASIDE of them (some 10 MB), four
# times what the kernel keeps by default (fs.inotify.max_queued_events), before the kernel's
# queue fills again.
MAX_SET_ASIDE = 65_536
DRAIN_SECONDS = 0.2  # how soon a watch read by a thread of its own sees that it should stop
# Reads of the queue a watch takes when it closes, before it counts what is left as lost: 512 KiB,
# what the kernel queues at most (`fs.inotify.max_queued_events`, 16 384 events by default, of
# 32 bytes for a name of up to 16). More came after the command ended, from a task reading on.
CLOSING_READS = 512 * 1024 // MAX_EVENT_BYTES

# Key files planloop keeps its last read of open, to judge one removed by what it held: few,
# as descriptors are a limited resource (`_keep`).
MAX_KEPT = 64
# Other files written while commands ran that are read for the key at the next comparison:
# the newest this many, each up to OTHER_FILE_BYTES, OTHERS_BYTES in all per look.
MAX_OTHERS = 2_000
OTHER_FILE_BYTES = 1024 * 1024
OTHERS_BYTES = 32 * 1024 * 1024
# Of those, the newest this many are opened at their write event and judged through that
# descriptor: a task that read the key cannot hide the file from the judging by removing its
# name or making it a link to a hard link it made before. Few, as descriptors are limited.
MAX_OTHER_FDS = 256
# Other files whose inode is remembered by name, the newest (`_names_now`).
MAX_REMEMBERED_NAMES = 10_000
# Names whose file was removed or renamed over while a watch looked, with its inode where it
# was known, for every later watch of this process (one per command, one between commands): a
# program that keeps the file open still writes under that name (`ln log .hl && rm log && :
# > log`, then the server logs the key), whatever the name holds now, so such a write is judged
# at the file's other names too (`_names_now`).
NAMES_LOST: dict[str, int | None] = {}
# Entries of a folder looked through for the other names of a file written under a name gone.
MAX_FOLDER_LOOK = 10_000
# How far a file's timestamp may lag the clock (a coarse clock stamps it).
TIMESTAMP_SLACK_NS = 1_000_000_000
# The name inotify gives a write to a file with no name (O_TMPFILE): `#` and its inode.
ANONYMOUS = re.compile(r"#(\d+)")
# Key files whose inodes are kept, to know a hard link to one when it is made (`_linked_to`).
MAX_KEY_INODES = 10_000

# A write's bytes can be read before the kernel queues its event: an append to a key file
# that a command holds open, read in those microseconds (a busy `pread`, or a command woken
# by notifications of its own) and cut back at once, queues read, write, write. So a read
# taken in this soon before a write counts as a read of what the write put there. The gap
# is the writer's own time between copying its bytes and queuing the event: microseconds,
# or the kernel's pause for a writer with too many unsaved pages (at most 0.2 s at a time).
READ_BESIDE_WRITE_SECONDS = 2.0

# How soon a rename seen without its other half is looked at again (`_gone`).
MOVE_SETTLE_SECONDS = 0.01

REMOVED = "was written while it ran and removed before planloop could read it"
MOVED_AWAY = "was written while it ran and moved where planloop cannot see before it could read it"
RENAMED = "came to hold the API key or a secret as {} while it ran, and was renamed"
SECOND_NAME = (
    "was written while it ran and has, or had, another name (a hard link), through which it "
    "could be read and written back unseen"
)
MAPPED = (
    "was written while it ran and a command had it mapped into memory, through which it could "
    "be read and changed without a file event"
)
# Events dropped by the kernel (its queue was full): said of the workspace as a whole.
LOST_TRACK = (
    "had more file events at once than planloop could take while it ran, and the kernel dropped "
    "some, so a key file saved meanwhile could have been read and moved away unseen"
)
GONE_UNWATCHED = (
    "was made while it ran where planloop could not watch it (out of watches, or past the "
    "folders it watches) and was removed, replaced or closed before it ended, so a key file "
    "saved there could have been read and taken away unseen"
)
PIPED = (
    "was made or written while it ran and is a named pipe, not a file: what is written into "
    "it (the key you paste) goes to whoever reads the pipe, unseen by planloop"
)
MADE_CLOSED = (
    "was made while it ran closed to planloop's watch, so a key file saved there could have "
    "been read and taken away unseen"
)
# Read by somebody and written over before planloop read it: said as a key found ("came to hold
# the API key"), which is what the command could read.
UNREAD = ""
UNREADABLE = (
    "was written while it ran and cannot be read by planloop, though a command may open it up again"
)


def holds_it_at_that_name(how: str) -> bool:
    """Whether a file exposed with `how` holds the key (or may: planloop cannot read it) at the
    name it was exposed by: found holding it, renamed there holding it, or closed to planloop;
    not one removed, moved away, or judged by its events alone."""
    return not how or how.startswith(RENAMED.split("{}")[0]) or how == UNREADABLE


@dataclass
class KeyFileWindow:
    """What happened to one key file since planloop last read it (`FolderWatch`)."""

    written: bool = False  # written (or made, or renamed over) since then
    read_since: bool = False  # read by anyone after that write
    # When planloop took in the last read of what it had seen (no write since): a write's bytes
    # can be read before its event is queued (`READ_BESIDE_WRITE_SECONDS`).
    read_at: float | None = None
    unread: bool = False  # a write somebody read was written over before planloop read it
    # The number of the watch's own read of it (tools/event_queues.py) whose first mark is not
    # in the queue yet: a write queued before that mark was done before planloop read, so what
    # it read (`seen`) holds it.
    pending: int = 0
    filled: bool = False  # bytes were put in that planloop has not read yet
    came_from: str = ""  # the key file's name before a rename planloop followed
    seen: bytes | None = None  # what planloop read of it since its last write
    # Left at a name the key file was renamed to and then from, before planloop read it: a
    # rename on, or an exchange that left the key file here (`_note`). `absent`: no file was
    # there at planloop's read, so the next event of that name tells which it was.
    maybe_here: bool = False
    absent: bool = False


@dataclass
class OwnRead:
    """The reads and writes of one key file between the two marks of a read of planloop's own
    (tools/event_queues.py): the queue orders them, but which read is planloop's is not told."""

    reads: int = 0  # stretches between writes with a read in them, before the last write
    read_now: bool = False  # a read since the last write (or the first mark)
    wrote: bool = False  # a write came between the marks


class FolderWatch:
    """Watches every folder of the workspace and the folders holding what running sandboxes
    bind, and calls `changed` soon after a bound name in one of them is replaced, removed or
    made, or a key file is found read (module doc).

    A background task may run for a day: comparing only when the model next calls a tool
    leaves it that long with the key. This narrows the window to the time the event takes to
    arrive; a command polling the file can still win that race, so the comparisons at each
    tool call stay.

    A key file (`is_key_name`, or a hidden one `key_files` counts) written in a watched folder
    is read at once, before anything else planloop does, and one found holding the key is kept
    in `exposed` whatever it holds later: a task that read it can rewrite it without the key.
    A write that somebody read and that was written over before planloop could read it (write,
    read, write: the events arrive together) counts the same, since what was read is gone; one
    command writing a file twice (`cp .env.example .env` then `echo X >> .env`) reads nothing
    between and is not one. So does a write removed, or moved out of the watched folders,
    before planloop read it. Lost events (the queue overflowed) leave nothing to judge by: the
    workspace counts as read, for every command that ran meanwhile.

    Key files are judged here without a look at the whole workspace: a `.env.x` made and removed
    a thousand times a second costs one read each, never a scan (a scan on the event loop would
    hold back the very event it should act on).

    Where inotify is missing, or out of watches (another program, or a task, used them up),
    a folder goes unwatched: `unwatched` says which, and the caller checks at each tool call
    and every few seconds while it waits instead.
    """

    def __init__(self, changed: Any, unwatched_now: Any = None, threaded: bool = False) -> None:
        self.changed = changed
        # Read by a thread of its own, not an event loop (`_drain`): a watch that waits for
        # the next command, while the person types, when no loop runs.
        self.threaded = threaded
        self.drainer: threading.Thread | None = None
        self.wake: tuple[int, int] | None = None  # a pipe that wakes the drainer to stop
        self.stop_draining = threading.Event()
        # Called (soon, on the loop) when there is something to say: a folder went unwatched
        # while commands ran (one made past MAX_WATCHED_FOLDERS or when inotify is out of
        # watches), to be said and polled; or other files were passed over (`passed_over`).
        self.unwatched_now = unwatched_now
        self.said_unwatched = False  # once per watch: a command making folders makes thousands
        self.behind = False  # the last read of the queue stopped at MAX_EVENT_BYTES
        self.cut_short = False  # the last `_note` ran out of time: the rest is in `aside`
        self.paused = False  # the queue is left unread for a while after a look cut short
        self.soon = False  # a look is asked for on the loop (`_look_soon`)
        self.lost = 0  # times events were lost (`_overflowed`)
        self.folder_gone_unseen = False  # a folder made and gone before its walk, in this batch
        # Whether a command watched can make hard links (a sandbox without the seccomp filter
        # that refuses them): only then does a name made and gone unseen count as a second name.
        self.may_link = False
        self.aside: list[tuple[int, int, str, int]] = []  # taken in early (`set_aside`)
        self.fd: int | None = None
        self.names: dict[int, set[str]] = {}  # watch descriptor -> bound names in that folder
        self.keyed: dict[int, set[str]] = {}  # watch descriptor -> hidden key files' names
        # Folder -> names a key file's name links to (`_key_name_linked`), and the links on
        # the way there: key files too. A link on the way -> the key names that pass through it.
        self.linked_keys: dict[str, set[str]] = {}
        self.link_origins: dict[str, set[str]] = {}
        self.folders: dict[str, int] = {}
        self.paths: dict[int, str] = {}  # watch descriptor -> folder
        self.loop: Any = None
        self.pending = False
        self.windows: dict[str, KeyFileWindow] = {}
        self.exposed: dict[str, float] = {}  # key file -> when it was found (time.monotonic)
        self.how: dict[str, str] = {}  # key file -> what happened to it, when not "read"
        self.moving: dict[int, tuple[str, KeyFileWindow | None, bool]] = {}  # by cookie
        self.unsettled: set[str] = set()  # key files still written at a look's last round
        self.unwatched: set[str] = set()  # folders no watch could be added for
        # Of those, the ones made while it watched, past MAX_WATCHED_FOLDERS or out of watches,
        # each with its identity when first seen (one made again by that name is another):
        # what was written in them is read at the last look, as any file written
        # (`exposed_since`). One made closed to planloop is not among them: it counts as read
        # (MADE_CLOSED), since the command decides what a later look there would find.
        self.unwatched_made: dict[str, tuple[int, int] | None] = {}  # with its (device, inode)
        self.refused = False  # the last watch not added was refused for want of permission
        self.not_a_folder = False  # the last watch not added found no folder there (a link)
        self.workspaces: set[str] = set()  # of the starts added: where lost events are said
        self.key_inodes: dict[str, tuple[int, int]] = {}  # key file read -> (device, inode)
        self.linked: set[str] = set()  # key files given another name while commands ran
        # Files made while key files waited to be read, gone before planloop looked: the key
        # files, which count as linked if one of these is then read (`_read_of_a_gone_name`).
        self.gone_made: dict[str, list[str]] = {}
        # Key files (device, inode) a command had mapped into memory when planloop read them:
        # a write to one later is read through the mapping unseen (`mapped_by_our_commands`).
        self.mapped: set[tuple[int, int]] = set()
        self.marks_wd: int | None = None  # the watch of planloop's marks (`_own_read_mark`)
        # Key file -> planloop's own reads of it begun in the queue and not yet ended, by number.
        self.own_reads: dict[str, dict[int, OwnRead]] = {}
        self.pending_reads: dict[int, str] = {}  # this watch's reads whose first mark is queued
        self.piped: set[str] = set()  # key-file names found a named pipe in this look's reads
        self.others_written: set[str] = set()  # other files noted for a write, not a name made
        # Key file -> planloop's last read of it, still open, and what it read (`_keep`).
        self.kept: dict[str, tuple[int, bytes | None]] = {}
        self.found = False  # a key file was exposed since `_read` last looked
        # Other files written while commands ran, judged by their content at the next look for
        # what was exposed (`_judge_others`): the key saved into `config/settings.json`. Each
        # with the descriptor opened at its write, or None (past MAX_OTHER_FDS, or not a file).
        self.others: dict[str, int | None] = {}
        self.with_fds: dict[str, None] = {}  # those of them with a descriptor, oldest first
        self.other_fds = 0
        # The inode of each other file opened (by path), and the names each inode was opened
        # under: a write that comes under a name gone since is judged at the others.
        self.inode_of: dict[str, int] = {}
        self.names_of: dict[int, set[str]] = {}
        self.folders_looked: set[str] = set()  # looked through by `_names_now`, in a batch
        self.since_ns = time.time_ns() - TIMESTAMP_SLACK_NS  # files written after: `_names_now`
        self.passed_over = 0  # other files left unjudged, past MAX_OTHERS (said once)
        self.too_big = 0  # other files left unjudged, past OTHER_FILE_BYTES (said once)

    def add(self, start: SandboxStart) -> None:
        """Watch the folders of every path `start` binds, and every folder of the workspace."""
        folders: dict[str, set[str]] = {str(start.workspace): set()}
        self.workspaces.add(str(start.workspace))
        self.may_link = self.may_link or start.may_link
        keyed: dict[str, set[str]] = {}
        for path in start.held | start.hidden:
            real = os.path.realpath(path)
            for where in {path, real}:
                folder, name = os.path.split(where)
                folders.setdefault(folder, set()).add(name)
                if path in start.keyed:
                    keyed.setdefault(folder, set()).add(name)
        for path in start.may_appear:  # in the folders there are, as a bound name is
            folder, name = os.path.split(path)
            if os.path.isdir(folder):
                folders.setdefault(folder, set()).add(name)
        try:
            self._open()
        except OSError:
            self.unwatched.update(folders)
            self.unwatched.add(str(start.workspace))
            return
        for folder, names in folders.items():
            wd = self._watch(folder)
            if wd is not None:
                self.names.setdefault(wd, set()).update(names)
                self.keyed.setdefault(wd, set()).update(keyed.get(folder, ()))
        self._watch_tree(str(start.workspace))
        self._start_draining()

    def _start_draining(self) -> None:
        """For a threaded watch: read the kernel's events in a thread of its own from now on,
        woken by `wake` when it must stop (not when its wait runs out: a command would wait)."""
        if not self.threaded or self.fd is None or self.drainer is not None:
            return
        if self.wake is None:
            self.wake = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.stop_draining.clear()
        self.drainer = threading.Thread(target=self._drain, daemon=True)
        self.drainer.start()

    def _drain(self) -> None:
        """Take the kernel's events into `aside` as they come, until the first `look`: the
        kernel keeps only 16,384 (a checkout, an `npm install` while the person types), and
        no event loop reads them. Once `aside` holds as many, the kernel's queue fills, and its
        overflow is read as lost track."""
        while not self.stop_draining.is_set():
            if len(self.aside) >= MAX_SET_ASIDE:
                self.stop_draining.wait(DRAIN_SECONDS)
                continue
            with contextlib.suppress(OSError, ValueError, TypeError):
                ready = select.select([self.fd, self.wake[0]], [], [], DRAIN_SECONDS)[0]
                if self.fd in ready and not self.stop_draining.is_set():
                    events = self._events()
                    if events is None:
                        return
                    self.aside = events

    def _stop_draining(self) -> None:
        """The thread stops before planloop reads the queue itself, so that the two reads do
        not take events out of order."""
        if self.drainer is not None:
            self.stop_draining.set()
            if self.drainer is not threading.current_thread():  # its own read failed: closing
                with contextlib.suppress(OSError):
                    os.write(self.wake[1], b"\0")
                self.drainer.join()
                with contextlib.suppress(OSError):
                    os.read(self.wake[0], 64)
            self.drainer = None

    def _watch(self, folder: str, follow: bool = True) -> int | None:
        """Watch `folder`; a link there is followed only with `follow` (a bound path's folder,
        which may be reached through one), never in a walk of the workspace: a folder a command
        swapped for a link is no folder of the workspace any more."""
        wd = self.folders.get(folder)
        if wd is not None:
            return wd
        mask = self._mask() | (0 if follow else IN_DONT_FOLLOW)
        wd = _LIBC.inotify_add_watch(self.fd, os.fsencode(folder), mask)
        if wd < 0:
            # Unreadable, or out of watches (ENOSPC): said, and checked by polling. Gone, or
            # no folder (a link, unfollowed): nothing to watch; a folder made at that name later
            # is an event in the folder above, which is watched.
            failure = ctypes.get_errno()
            self.refused = failure in (errno.EACCES, errno.EPERM)
            self.not_a_folder = failure in (errno.ENOTDIR, errno.ENOENT)
            if not self.not_a_folder and os.path.isdir(folder):
                self.unwatched.add(folder)
            return None
        self.folders[folder] = wd
        self.paths[wd] = folder
        return wd

    def _watch_tree(self, root: str, new: bool = False, renamed: bool = False) -> None:
        """Watch `root` and every folder below it (links not followed). `new`: a folder made or
        moved in while a command runs, whose files may have been written before its watch
        began: they are read as written (key files, and other files as any written).
        `renamed`: a folder renamed within the watched ones, whose watches moved with it; one
        below it not watched yet (made and renamed before planloop looked) is taken as new."""
        folders, listed = [root], 0
        while folders:
            folder = folders.pop()
            listed += 1
            if listed % FOLDERS_BETWEEN == 0:
                self.set_aside()
                keep_queues_short()  # the other watches this walk's listings queue events on
            if renamed and folder in self.folders:
                with contextlib.suppress(OSError), os.scandir(folder) as entries:
                    folders += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
                continue
            bound = MAX_WATCHED_FOLDERS + (MORE_FOR_NEW_FOLDERS if new else 0)
            if folder not in self.folders and len(self.folders) >= bound:
                self.unwatched.add(folder)
                if new:
                    self.unwatched_made.setdefault(folder, _folder_identity(folder))
                continue
            if self._watch(folder, follow=False) is None:
                if self.not_a_folder:
                    continue  # gone, or swapped for a link meanwhile (which leads elsewhere)
                if new and self.refused:
                    # Made closed to planloop (`mkdir -m 0`): what is saved there, and read,
                    # can be removed or closed off again before any later look, unseen.
                    self._expose(folder, MADE_CLOSED)
                elif new and os.path.isdir(folder):
                    self.unwatched_made.setdefault(folder, _folder_identity(folder))
                continue
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    with contextlib.suppress(OSError):
                        if entry.is_dir(follow_symlinks=False):
                            folders.append(entry.path)
                        elif is_key_name(entry.name):
                            if entry.is_symlink():
                                self._key_name_linked(entry.path)
                            if new:
                                self.windows[entry.path] = KeyFileWindow(written=True, filled=True)
                        elif new and entry.is_file(follow_symlinks=False):
                            self._note_other(entry.path)
        if self.aside:
            self._look_soon()  # the kernel's queue may be empty: nothing wakes it

    def set_aside(self) -> None:
        """Take the queued events in now, to be read as if still queued: listing a folder
        queues events of its own (its read, on its watch and its parent's), and a walk of
        thousands of folders would otherwise fill the kernel's queue, which loses track."""
        while len(self.aside) < MAX_SET_ASIDE:
            events = self._events()
            if events is None:
                return
            self.aside += events
            if not self.behind:
                return

    def exposed_since(self, since: float, last: bool = False) -> dict[str, str]:
        """The key files found holding the key (or rewritten unread, or gone unread) at `since`
        or later, each with what happened to it ("" for found holding the key); and the other
        files written meanwhile that hold it now: all of them when this is the `last` look
        before a command's output goes to the model, else those within a look's budget."""
        if last:
            self._note_unwatched_made()
        self._judge_others(None if last else OTHERS_BYTES)
        return {
            path: self.how.get(path, "")
            for path, when in sorted(self.exposed.items())
            if when >= since
        }

    def _note_unwatched_made(self) -> None:
        """Each file now in a folder made while this watched and left unwatched (`unwatched_made`),
        as a file written: no event told what was written there (at most MAX_OTHERS of them).
        One gone or replaced (another folder, or a link, by that name), or that cannot be listed
        to its end, counts as read (GONE_UNWATCHED): what was saved and read there may have been
        taken away with it. (A file removed from one that stays leaves no trace: a stated limit.)"""
        for folder, identity in sorted(self.unwatched_made.items()):
            failed: list[OSError] = []
            for parent, _folders, names in os.walk(folder, onerror=failed.append):
                for name in names[:MAX_OTHERS]:
                    self._note_other(os.path.join(parent, name))
            if failed or identity is None or _folder_identity(folder) != identity:
                self._expose(folder, GONE_UNWATCHED)
        self.unwatched_made.clear()

    def finish(self, since: float = 0) -> dict[str, str]:
        """Take in the last events, stop watching, and return every key file exposed (at
        `since` or later): for a foreground command, when it ends."""
        found = self.take_stock(since)
        self.close()
        return found

    def take_stock(self, since: float = 0) -> dict[str, str]:
        """Take in the events queued now, and return every key file exposed at `since` or
        later, watching on (read by its own thread again, if it has one)."""
        lost = self.lost
        self.look()
        for _ in range(CLOSING_READS):
            if not self.behind or self.lost > lost:  # (lost: what is left tells nothing more)
                break
            if ENDING.is_set():  # planloop is ending: what is left counts as lost, now
                break
            self.look()
        if self.behind and self.fd is not None:
            # Still more (a task reads in a loop meanwhile): what is left is lost with the watch.
            self._overflowed()
        if self._read_unsettled() and not ENDING.is_set():
            self.look()  # written after planloop's read, then read: read now, once more
        for path in self._read_unsettled():
            # Still written and read as the count is made (a task on in the background): what
            # was read cannot be told.
            del self.windows[path]
            self.unsettled.discard(path)
            self._expose(path, UNREAD)
        self._gone(set(self.moving))
        found = self.exposed_since(since, last=True)
        self._start_draining()
        return found

    def _read_unsettled(self) -> list[str]:
        """The key files written after planloop's last read of them and read by somebody since."""
        return [
            path
            for path in sorted(self.unsettled)
            if path in self.windows and self.windows[path].read_since
        ]

    def take_in(self, found: dict[str, str]) -> None:
        """Count key files another watch found exposed (`found`, as `finish` gives them) as
        exposed now: those it saw written just before this watch began."""
        for path, how in found.items():
            self._expose(path, how)

    def close(self) -> None:
        """Stop watching (no sandboxed task runs any more)."""
        self.unwatched, self.said_unwatched, self.workspaces = set(), False, set()
        self.may_link = False
        self.unwatched_made = {}
        self._stop_draining()
        if self.wake is not None:
            for end in self.wake:
                os.close(end)
            self.wake = None
        if self.fd is None:
            return
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self.fd)
        READ_ON_A_LOOP.discard(self)
        OPEN_WATCHES.discard(self)
        os.close(self.fd)
        self.fd, self.names, self.keyed, self.folders, self.paths = None, {}, {}, {}, {}
        self.linked_keys, self.link_origins = {}, {}
        self.pending, self.windows, self.exposed, self.how, self.moving = False, {}, {}, {}, {}
        self.unsettled = set()
        # A watch added again later starts reading at once (`_read_on`, `_look_soon`).
        self.paused = self.soon = self.cut_short = False
        self.key_inodes, self.linked, self.marks_wd, self.aside = {}, set(), None, []
        self.gone_made, self.own_reads, self.pending_reads = {}, {}, {}
        self.inode_of, self.names_of = {}, {}
        for fd, _ in self.kept.values():
            os.close(fd)
        self.kept = {}
        for path, fd in self.others.items():  # judged by path from now on, as before
            if fd is not None:
                os.close(fd)
                self.others[path] = None
        self.other_fds, self.with_fds = 0, {}

    def _open(self) -> None:
        if self.fd is not None:
            return
        if _LIBC is None:
            raise OSError("no inotify")
        fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.fd = fd
        try:
            self.loop = None if self.threaded else asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None  # read when looked at (`look`)
        if self.loop is not None:
            self.loop.add_reader(fd, self._read_as_it_comes)
            READ_ON_A_LOOP.add(self)
        OPEN_WATCHES.add(self)
        # Only what is made in the folder of planloop's marks: the marks of its own reads.
        folder = marks_folder()
        wd = -1 if folder is None else _LIBC.inotify_add_watch(fd, folder.encode(), IN_CREATE)
        self.marks_wd = wd if wd >= 0 else None

    def watches_key_file(self, path: str) -> bool:
        """Whether this watch judges the reads of a key file at `path` (tools/event_queues.py)."""
        folder, name = os.path.split(path)
        wd = self.folders.get(folder)
        return wd is not None and self._key_file(wd, name) is not None

    def _own_read_mark(self, name: str) -> None:
        """A mark of a read of planloop's own (tools/event_queues.py): its first opens an
        `OwnRead` of the key file it reads, its second judges it by what planloop found."""
        told = own_read_of(name)
        if told is not None and not told[1] and told[0] in self.pending_reads:
            window = self.windows.get(self.pending_reads.pop(told[0]))
            if window is not None and window.pending == told[0]:
                window.pending = 0
        entry = OWN_READS.get(told[0]) if told else None
        if told is None or entry is None:
            return  # far behind: the reads beside it count as commands'
        (number, ended), (path, data) = told, entry
        if not ended:
            if self.watches_key_file(path):
                self.own_reads.setdefault(path, {})[number] = OwnRead()
            return
        reads = self.own_reads.get(path, {})
        own_read = reads.pop(number, None)
        if not reads:
            self.own_reads.pop(path, None)
        window = self.windows.get(path)
        if own_read is not None and window is not None:
            _judge_own_read(window, own_read, data)

    def _events(self) -> list[tuple[int, int, str, int]] | None:
        """The events queued now, at most MAX_EVENT_BYTES of them (`behind` says whether more
        may wait), as (wd, mask, name, cookie); None once the watch broke."""
        events, self.aside = self.aside, []
        taken = 0
        while True:
            if MAX_EVENT_BYTES - taken < LARGEST_EVENT:
                # The rest on a later call: the reader is called again while the queue is not
                # empty, after the loop's other work.
                self.behind = True
                return events
            try:
                # A read ends at an event's end, so it may give less than asked with more
                # queued; what is asked of the next keeps the batch within its bound.
                data = os.read(self.fd, MAX_EVENT_BYTES - taken)
            except BlockingIOError:
                self.behind = False
                return events
            except OSError:
                self.close()
                return None
            taken += len(data)
            offset = 0
            while offset + EVENT_HEADER.size <= len(data):
                wd, mask, cookie, size = EVENT_HEADER.unpack_from(data, offset)
                offset += EVENT_HEADER.size
                name = data[offset : offset + size].rstrip(b"\0").decode(errors="surrogateescape")
                offset += size
                if mask & IN_ISDIR and mask & READS:
                    continue  # a folder listed: only reads of files tell of the key
                events.append((wd, mask, name, cookie))

    def _key_name_linked(self, path: str) -> None:
        """Where a key file's name is a link (`ln -s notes.txt .env.local`, a task's), the file
        it leads to is judged as a key file too: the key you save to `.env.local` lands there,
        and a file of another name would be judged only by what it holds when planloop reads
        it, which the task can have read and written back by then.

        So is every link on the way (`.env.local -> mid -> a.txt`, or a linked folder): a task
        that points `mid` elsewhere later makes no event at `.env.local`, but one at `mid`,
        which brings planloop back here to follow each key name through it again."""
        for origin in self.link_origins.get(path, set()) | {path}:
            links, target = links_on_the_way(origin)
            for where in [*links, target] if links else ():
                folder, name = os.path.split(where)
                self.linked_keys.setdefault(folder, set()).add(name)
            for link in links:
                self.link_origins.setdefault(link, set()).add(origin)

    def _key_file(self, wd: int, name: str) -> str | None:
        """The path of a key file an event names (or of a file a key file was renamed to, while
        planloop has not read it), or None for any other name."""
        folder = self.paths.get(wd)
        if not name or folder is None:
            return None
        # Cheap tests first: a command reading a tree (`grep -r`) names thousands of files a
        # second, and the queue must be read faster than they come (`_overflowed`).
        if is_key_name(name) or name in self.keyed.get(wd, ()):
            return os.path.join(folder, name)
        if self.linked_keys and name in self.linked_keys.get(folder, ()):
            return os.path.join(folder, name)
        if self.windows and (path := os.path.join(folder, name)) in self.windows:
            return path
        return None

    def _judge_others(self, budget: int | None = OTHERS_BYTES) -> None:
        """Read the other files written since the last look (the newest MAX_OTHERS, up to
        OTHER_FILE_BYTES each, and `budget` bytes of data in all, None for no bound; the rest
        waits for the next look): one that holds the key now could be read by a command still
        running, as a key file could. A sparse file costs what it holds, not its size: a task's
        `truncate -s 1M` a few hundred times no longer spends the look's budget."""
        # A look's share of the event loop's time (the rest waits for the next look), and none
        # once a Ctrl-C or SIGTERM came: what is left then counts as lost, as the events left do.
        deadline = time.monotonic() + LOOK_SECONDS if budget is not None else None
        signals = SignalCheck()
        while self.others and (budget is None or budget > 0):
            if signals.stop_why():
                self._overflowed()
                return
            if deadline is not None and time.monotonic() > deadline:
                return
            path = next(iter(self.others))
            fd = self._pop_other(path)
            try:
                info = os.fstat(fd) if fd is not None else os.lstat(path)
            except OSError:
                info = None
            if fd is None and info is not None and stat.S_ISLNK(info.st_mode):
                fd = self._open_other(path)  # made a link after the write (past MAX_OTHER_FDS)
                info = os.fstat(fd) if fd is not None else None
            written = path in self.others_written
            self.others_written.discard(path)
            if info is not None and stat.S_ISFIFO(info.st_mode) and written:
                self._expose(path, PIPED)  # what you wrote into it went to the pipe's reader
            regular = info is not None and stat.S_ISREG(info.st_mode)
            if regular and allocated(info) > OTHER_FILE_BYTES:
                self._too_big(path)
                regular = False
            if not regular:
                if fd is not None:
                    os.close(fd)
                continue
            if budget is not None:
                budget -= allocated(info)
            data = read_opened(fd) if fd is not None else read_for_key(path)
            if data and holds_the_key(data):
                self._expose(path)
            elif data is None and fd is None and closed_to_planloop(path):
                # Not to a command, which may open it up again: what it holds cannot be told.
                self._expose(path, UNREADABLE)

    def _too_big(self, path: str) -> None:
        """An other file past OTHER_FILE_BYTES is not read for the key: said once a watch."""
        self.too_big += 1
        if self.too_big == 1 and self.unwatched_now is not None:
            with contextlib.suppress(Exception):  # a failed notice must not end the loop
                self.unwatched_now()

    def _note_other(self, path: str, written: bool = False) -> None:
        """Note another file written at `path`, the newest last; opened now while few are open.

        A write (`written`: bytes written or a close after writing, which a descriptor opened
        earlier can cause, not a name made) can come under a name the file no longer has (`ln
        log .hl && rm log`, then the program that keeps it open writes), or under none (`#123`,
        an O_TMPFILE file's, linked into place since): the file is then noted at its other
        names too.
        """
        if written:
            self.others_written.add(path)
        if written and (path in NAMES_LOST or not os.path.lexists(path)):
            for name in self._names_now(path):
                self._note_other(name)
        earlier = self._pop_other(path)  # its last write's: the file there may be another now
        if earlier is not None:
            os.close(earlier)
        if self.other_fds >= MAX_OTHER_FDS:
            # The newest keep their descriptors: the oldest one gives its up, and is judged by
            # its path at the look, as a file past the bound always was.
            oldest = next(iter(self.with_fds))
            os.close(self._pop_other(oldest))
            self.others[oldest] = None
        fd = self._open_other(path)
        self.others[path] = fd
        if fd is not None:
            self.with_fds[path] = None
            self.other_fds += 1
            self._remember_inode(path, os.fstat(fd).st_ino)
        if len(self.others) > MAX_OTHERS:
            oldest = self._pop_other(next(iter(self.others)))
            if oldest is not None:
                os.close(oldest)
            self.passed_over += 1
            if self.passed_over == 1 and self.unwatched_now is not None:
                with contextlib.suppress(Exception):  # a failed notice must not end the loop
                    self.unwatched_now()

    def _name_lost(self, path: str) -> None:
        """Note that the file at `path` lost that name, with its inode where it was known
        (NAMES_LOST, the newest MAX_REMEMBERED_NAMES)."""
        NAMES_LOST.pop(path, None)
        NAMES_LOST[path] = self.inode_of.get(path)
        while len(NAMES_LOST) > MAX_REMEMBERED_NAMES:
            del NAMES_LOST[next(iter(NAMES_LOST))]

    def _remember_inode(self, path: str, inode: int) -> None:
        """Which file `path` was when opened: the newest MAX_REMEMBERED_NAMES are kept."""
        self.inode_of.pop(path, None)
        self.inode_of[path] = inode
        self.names_of.setdefault(inode, set()).add(path)
        while len(self.inode_of) > MAX_REMEMBERED_NAMES:
            oldest = next(iter(self.inode_of))
            self.names_of.get(self.inode_of.pop(oldest), set()).discard(oldest)

    def _names_now(self, path: str) -> list[str]:
        """The other names, still there, of the file written under `path`, a name it may no
        longer have: those it was opened under before, or an O_TMPFILE file's (`#<inode>`, its
        inode), and in the same folder each of that inode. Where which file it was is not
        known (the name was gone before planloop looked: `ln log .hl && rm log`), or the name
        holds another file now (`... && : > log`), also each file of the folder written while
        it watched, as that write just was, or with more than one name."""
        anonymous = ANONYMOUS.fullmatch(os.path.basename(path))
        if anonymous:
            inode: int | None = int(anonymous.group(1))
        else:
            inode = NAMES_LOST.get(path, self.inode_of.get(path))
        any_fresh = inode is None or path in NAMES_LOST
        found = set(self.names_of.get(inode, ())) if inode is not None else set()
        folder = os.path.dirname(path)
        if any_fresh and folder in self.folders_looked:
            # Its fresh files are noted already in this batch of events: a folder rebuilt
            # after `rm -rf dist` loses and writes every name at once.
            return sorted(found - {path})
        if any_fresh:
            self.folders_looked.add(folder)
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in itertools.islice(entries, MAX_FOLDER_LOOK):
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    fresh = info.st_nlink > 1 or info.st_mtime_ns >= self.since_ns
                    fresh = fresh and stat.S_ISREG(info.st_mode)
                    if info.st_ino == inode or (any_fresh and fresh):
                        found.add(entry.path)
        named = []
        for name in sorted(found - {path}):
            with contextlib.suppress(OSError):
                if any_fresh or os.lstat(name).st_ino == inode:
                    named.append(name)
        return named

    def _open_other(self, path: str) -> int | None:
        """Another file written at `path`, opened; a link there (made by a task, over the file
        it had read) is followed inside the workspace, where the file may live on under a hard
        link the task made before: `config/settings.json -> ../.hl`."""
        opened = open_for_key(path, marked=False)  # no key file's name: nothing to mark
        if isinstance(opened, int):
            return opened
        workspace = next((w for w in self.workspaces if path.startswith(w + os.sep)), None)
        if opened != b"" or workspace is None or not os.path.islink(path):
            return None
        try:
            fd, _ = open_for_reading(Path(workspace), os.path.relpath(path, workspace))
        except (OSError, ToolError):
            # Refused on its way (`../../ws/.hl` leaves the workspace and comes back): where it
            # ends, if that is inside, is what a program reading the name gets.
            try:
                real = os.path.realpath(path)
            except OSError:  # the link went while it was followed: judged by its name later
                return None
            if not real.startswith(workspace + os.sep):
                return None
            opened = open_for_key(real, marked=False)
            return opened if isinstance(opened, int) else None
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        os.close(fd)
        return None

    def _pop_other(self, path: str) -> int | None:
        fd = self.others.pop(path, None)
        self.other_fds -= fd is not None
        self.with_fds.pop(path, None)
        return fd

    def _expose(self, path: str, how: str = "") -> None:
        self.exposed[path] = time.monotonic()
        if how:
            self.how[path] = how
        self.found = True

    def _note(self, events: list, deadline: float | None = None) -> tuple[bool, set[str]]:
        """Fold `events` ((wd, mask, name[, cookie])) into the windows; whether a bound name
        changed (or events were lost), and the key files written. Past `deadline`, the events
        not noted yet go back to be taken first at the next look (`cut_short`)."""
        relevant, written = False, set()
        now = time.monotonic()
        self.folders_looked = set()
        self.cut_short = self.folder_gone_unseen = False
        for index, event in enumerate(events):
            if index and deadline is not None and time.monotonic() > deadline:
                relevant = self._put_back(events[index:]) or relevant
                break
            wd, mask, name, cookie = (*event, 0)[:4]
            if wd == self.marks_wd:
                self._own_read_mark(name)
                continue
            if mask & IN_Q_OVERFLOW:
                relevant = True
                self._overflowed()
                continue
            if mask & IN_IGNORED:  # the folder itself is gone
                self._forget(self.paths.get(wd, ""))
                continue
            if mask & NAMES_CHANGED and name in self.names.get(wd, ()):
                relevant = True
            if mask & IN_ISDIR:
                self._folder_event(wd, mask, name, cookie, written)
                continue
            path = self._key_file(wd, name)
            if path is None and self.windows and name.startswith("#"):
                path = self._made_nameless(wd, name)
            if path is None and mask & IN_CREATE and self.key_inodes:
                self._linked_to(wd, name)
            if path is None and mask & IN_CREATE and self.windows and wd in self.paths:
                self._maybe_a_second_name(os.path.join(self.paths[wd], name))
            if path is None and mask & IN_ACCESS and self.gone_made and wd in self.paths:
                self._read_of_a_gone_name(os.path.join(self.paths[wd], name))
            if path is None and mask & (IN_DELETE | IN_MOVED_TO) and wd in self.paths:
                # Its file lost that name (removed, or renamed over): a program that has it
                # open still writes under it, whatever the name holds now.
                self._name_lost(os.path.join(self.paths[wd], name))
            if path is None and mask & OTHER_WRITES and wd in self.paths:
                other = os.path.join(self.paths[wd], name)
                # A write to a file still open for writing (`cat > f`, a log) is noted once:
                # it may never be closed. A close, a rename or a new name notes it again.
                if mask & ~IN_MODIFY or other not in self.others:
                    self._note_other(other, written=bool(mask & (IN_MODIFY | IN_CLOSE_WRITE)))
            followed = mask & IN_MOVED_TO and self.moving.get(cookie, ("", None))[1] is not None
            if followed and wd in self.paths:
                path = os.path.join(self.paths[wd], name)  # a key file renamed: followed
            if path is None:
                continue
            stale = self.windows.get(path)
            if stale is not None and stale.absent and mask & (IN_CREATE | IN_MOVED_TO):
                # Made after planloop found the name empty: the rename it stood for went on.
                del self.windows[path]
            if mask & IN_MOVED_FROM:
                self._drop_kept(path)  # that file goes on under another name
                window = self.windows.pop(path, None)
                if window is not None and window.came_from:
                    # Renamed here and away again: `mv a b; mv b a` and an exchange of the
                    # two names (renameat2 RENAME_EXCHANGE) queue the same events, but the
                    # exchange leaves the key file here, to be read and removed under this
                    # name unseen. So both names are read.
                    self.windows[path] = KeyFileWindow(
                        written=True,
                        filled=window.filled,
                        came_from=window.came_from,
                        maybe_here=True,
                    )
                    written.add(path)
                self.moving[cookie] = (path, window, False)
                continue
            if mask & IN_DELETE:
                self.key_inodes.pop(path, None)  # `.env.1`, `.env.2`, ... made and removed
                self._vanished(path, self.windows.pop(path, None), REMOVED)
                self._drop_kept(path)
                continue
            if mask & (IN_CREATE | IN_MOVED_TO):
                self._key_name_linked(path)
            if mask & IN_CREATE:
                self._drop_kept(path)  # another file at that name now
            if mask & IN_MOVED_TO and self._moved_in(path, cookie, written):
                continue
            window = self.windows.setdefault(path, KeyFileWindow())
            own_reads = self.own_reads.get(path, {}).values()
            if mask & WRITES:
                window.unread = window.unread or (window.written and window.read_since)
                for own_read in own_reads:
                    own_read.reads += own_read.read_now
                    own_read.read_now, own_read.wrote = False, True
                raced = window.read_at is not None
                raced = raced and now - window.read_at <= READ_BESIDE_WRITE_SECONDS
                window.written, window.read_since, window.read_at = True, raced, None
                window.filled = window.filled or bool(mask & FILLS)
                if not window.pending:  # not done before planloop's read: read again
                    window.seen = None
                    written.add(path)
            elif mask & IN_ACCESS and own_reads:
                for own_read in own_reads:
                    own_read.read_now = True
            elif mask & IN_ACCESS and window.written:
                window.read_since = True
            elif mask & IN_ACCESS:
                window.read_at = now
        if self.folder_gone_unseen:
            self._folder_gone_unseen()
        return relevant, written

    def _put_back(self, events: list) -> bool:
        """Leave `events` to the next look, before those queued since; whether events count as
        lost (`_overflowed`): the kernel dropped some among them, which leaves the events
        before that nothing to tell, or planloop cannot keep up (MAX_SET_ASIDE of them wait:
        the kernel would have dropped some)."""
        left = events + self.aside
        self.cut_short = self.behind = True  # the next look comes after the loop's other work
        dropped = [index for index, event in enumerate(left) if event[1] & IN_Q_OVERFLOW]
        self.aside = left[dropped[-1] + 1 :] if dropped else left
        if len(self.aside) >= MAX_SET_ASIDE:
            self.aside = []
        elif not dropped:
            return False
        self._overflowed()
        return True

    def _made_nameless(self, wd: int, name: str) -> str | None:
        """The key file that the events of an O_TMPFILE file (`#<inode>`) in folder `wd` are
        about: a file made with no name, linked into place as `.env`, and read and written
        through the descriptor it was made with, whose events name it `#<inode>` alone."""
        anonymous, folder = ANONYMOUS.fullmatch(name), self.paths.get(wd)
        if anonymous is None or folder is None:
            return None
        for path in [path for path in self.windows if os.path.dirname(path) == folder]:
            with contextlib.suppress(OSError):
                if os.lstat(path).st_ino == int(anonymous.group(1)):
                    return path
        return None

    def _maybe_a_second_name(self, made: str) -> None:
        """A file made at `made` while a key file written since planloop last read it waits
        to be read: a hard link to it (`ln a/.env b/x`) reads and rewrites it with events that
        name `x` alone. One found to be that file, or gone before planloop could look (linked,
        read, emptied and removed in an instant), counts as its second name (`linked`). A key
        file bound in the sandbox cannot be linked there (another mount)."""
        waiting = [path for path, window in self.windows.items() if window.written]
        waiting = [path for path in waiting if not self._bound(path)]
        if not waiting:
            return
        try:
            info = os.lstat(made)
        except OSError:
            # Gone already: what it was cannot be told. Read before it went, it may have been
            # the key file read through (`_read_of_a_gone_name`); a build's temporary file,
            # written and removed, was not read. No command here can make a hard link: it was
            # another file.
            if not self.may_link:
                return
            self.gone_made[made] = waiting
            if len(self.gone_made) > MAX_GONE_MADE:  # a build's churn: the oldest goes
                del self.gone_made[next(iter(self.gone_made))]
            return
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            for path in waiting:
                with contextlib.suppress(OSError):
                    known = os.lstat(path)
                    if (known.st_dev, known.st_ino) == (info.st_dev, info.st_ino):
                        self.linked.add(path)

    def _read_of_a_gone_name(self, other: str) -> None:
        """A read of `other`, made while key files waited and gone before planloop could look:
        they count as having had it as a second name."""
        self.linked.update(self.gone_made.pop(other, ()))

    def _bound(self, path: str) -> bool:
        """Whether a sandbox binds `path` (hidden or held): a name of the folder's watch."""
        folder, name = os.path.split(path)
        return name in self.names.get(self.folders.get(folder, -1), ())

    def _linked_to(self, wd: int, name: str) -> None:
        """A file made in a watched folder: when it is another name of a key file (`ln .env
        x/notes.txt`), that key file's later writes cannot be judged by its own events."""
        with contextlib.suppress(OSError, KeyError):
            info = os.lstat(os.path.join(self.paths[wd], name))
            if info.st_nlink > 1:
                inode = (info.st_dev, info.st_ino)
                self.linked.update(p for p, known in self.key_inodes.items() if known == inode)

    def _vanished(self, path: str, window: KeyFileWindow | None, how: str) -> None:
        """Key file `path` was removed or moved out of sight: judged by what planloop read of
        it since its last write; written and never read by planloop, it counts as read."""
        if window is None:
            return
        if window.unread:
            self._expose(path, UNREAD)
        elif window.seen is not None:
            if holds_the_key(window.seen):
                self._expose(path)
        elif window.filled and (how != REMOVED or self._held_the_key_when_removed(path)):
            self._expose(path, how)

    def _judge_mapping(
        self, path: str, window: KeyFileWindow, identity: tuple[int, int], mappings: Mappings
    ) -> None:
        """A key file a command has mapped into memory is read and changed through the mapping
        without a file event. A mapping made before the person fills the file in lives until
        after: it is seen at planloop's read of the file being made (the command's own open and
        close), and a write to it later counts as read. `mappings`: the commands' now."""
        if identity not in self.mapped and mappings.hold(*identity, path):
            self.mapped.add(identity)
        if window.filled and identity in self.mapped:
            self._expose(path, MAPPED)

    def _held_the_key_when_removed(self, path: str) -> bool:
        """Whether the file removed at `path` may have held the key: True unless planloop still
        has it open from its last read (`kept`), it has no name left, and neither what planloop
        read then nor what it holds now gives the key. A write through a descriptor still open
        raises events under its old name; one through a memory mapping raises none: a file
        seen mapped (`_judge_mapping`) may have held it."""
        fd, read_then = self.kept.pop(path, (None, None))
        if fd is None:
            return True
        try:
            info = os.fstat(fd)
            if info.st_nlink != 0 or info.st_size > KEY_SEARCH_BYTES or read_then is None:
                return True  # another file was removed there, or this one has other names
            if (info.st_dev, info.st_ino) in self.mapped:
                return True  # emptied through a mapping before it went: no event says so
            last = os.pread(fd, info.st_size + 1, 0)
        except OSError:
            return True
        finally:
            os.close(fd)
        return holds_the_key(read_then) or holds_the_key(last)

    def _drop_kept(self, path: str) -> None:
        """Stop keeping planloop's last read of `path`: the file at that name is another now."""
        fd, _ = self.kept.pop(path, (None, None))
        if fd is not None:
            os.close(fd)

    def _keep(self, path: str, fd: int, data: bytes | None) -> None:
        """Keep `fd` (planloop's read of key file `path`, which gave `data`) open, so that the
        file can still be judged by what it held once it is removed (until another file takes
        its name: `_drop_kept`)."""
        self._drop_kept(path)
        self.kept[path] = (fd, data)
        if len(self.kept) > MAX_KEPT:  # the oldest goes
            os.close(self.kept.pop(next(iter(self.kept)))[0])

    def _moved_in(self, path: str, cookie: int, written: set[str]) -> bool:
        """A file renamed to `path`: a key file planloop follows (its window moves with it, to
        be read under the new name); False when nothing followed it here."""
        self._vanished(path, self.windows.pop(path, None), REMOVED)  # renamed over
        self._drop_kept(path)
        old, window, _ = self.moving.pop(cookie, ("", None, False))
        if window is None:
            return False
        window.written, window.came_from = True, window.came_from or old
        self.windows[path] = window
        written.add(path)
        return True

    def _folder_event(self, wd: int, mask: int, name: str, cookie: int, written: set[str]) -> None:
        """A folder made, removed or renamed in a watched folder: watch what is new, follow a
        rename (watches keep their folder, so their paths change), forget what left."""
        folder = self.paths.get(wd)
        if folder is None or not name:
            return
        path = os.path.join(folder, name)
        if mask & IN_DELETE or mask & (IN_CREATE | IN_MOVED_TO) and path in self.unwatched_made:
            # One left unwatched, removed or made again (`rm -rf cfg; mkdir cfg`): told by its
            # events, however late planloop reads them, not only by its identity at the end.
            self._taken_away(path)
        if mask & IN_MOVED_FROM:
            self.moving[cookie] = (path, None, True)
            return
        # A folder that had this name left for where no watch is (into a folder past the bound:
        # the other half of its move never came before this later event). Judged as gone now,
        # its watch let go: else what happened to its files there (a key read, then emptied)
        # would be taken for the state of a folder that just arrived, and the old folder's
        # late judging would let go of this one's watch.
        self._gone({c for c, (old, _, folder) in self.moving.items() if folder and old == path})
        if mask & IN_MOVED_TO and cookie in self.moving:
            old = self.moving.pop(cookie)[0]
            if path not in self.folders:
                self._renamed(old, path)
            if self._watched_there(path):
                # (`mkdir cfg; mv cfg cfg2` before planloop looked: cfg was never watched)
                before = set(self.windows)
                self._watch_tree(path, new=True, renamed=True)
                written.update(set(self.windows) - before)
                return
            # Renamed over a watched folder, exchanged with it (`renameat2`'s RENAME_EXCHANGE),
            # or changed again before planloop read this: which watch is which name cannot be
            # told by following, so both names are watched again from scratch, as folders
            # moved in.
            for name in (old, path):
                self._forget(name)
            for name in (old, path):
                before = set(self.windows)
                self._watch_tree(name, new=self._in_a_workspace(name))
                written.update(set(self.windows) - before)
        elif mask & (IN_CREATE | IN_MOVED_TO) and self._in_a_workspace(path):
            # (Outside, in the folder of a bound file: no command can write there, so the
            # folders other programs make, another user's closed ones too, are not walked.)
            before = set(self.windows)
            self._watch_tree(path, new=True)
            written.update(set(self.windows) - before)
            if mask & IN_CREATE and path not in self.folders and self.not_a_folder:
                self.folder_gone_unseen = True  # judged with the batch (`_folder_gone_unseen`)

    def _folder_gone_unseen(self) -> None:
        """A folder made and gone before planloop could watch it, in the batch of events that
        wrote key files planloop has not read since (made just before the save, or after it):
        `mkdir n; ln .env n/h`, the key read and the file emptied through `n/h`, and both
        removed, raise no event that names .env (they are `n`'s, and `n` had no watch yet). So
        each counts as having had a second name there (`linked`), as a file made and gone does
        once it is seen read (`_maybe_a_second_name`): in a folder no read is seen."""
        if not self.may_link:  # no command here can make a hard link (tools/seccomp.py)
            return
        waiting = [path for path, window in self.windows.items() if window.written]
        self.linked.update(path for path in waiting if not self._bound(path))

    def _in_a_workspace(self, path: str) -> bool:
        return any(path.startswith(workspace + os.sep) for workspace in self.workspaces)

    def _watched_there(self, folder: str) -> bool:
        """Whether the folder at `folder` now is the one its watch follows (the kernel answers
        a watch asked for again on a folder it watches with that watch's number), or no watch
        follows one there (never watched: past the bound, or made and renamed unseen)."""
        wd = self.folders.get(folder)
        if wd is None or self.fd is None:
            return True
        mask = self._mask() | IN_DONT_FOLLOW
        return _LIBC.inotify_add_watch(self.fd, os.fsencode(folder), mask) == wd

    def _mask(self) -> int:
        """What a folder's watch asks for. Between two commands reads are the person's own (`rg`
        over the tree), or a task's, which its own watch judges: a threaded watch asks only for
        what changes."""
        return WATCHED & ~READS if self.threaded else WATCHED

    def _taken_away(self, path: str) -> None:
        """A folder left unwatched (`unwatched_made`) at or below `path` was removed, made again
        or moved out of sight: what was saved in it cannot be read, so it counts as read."""
        for folder in [f for f in self.unwatched_made if f == path or f.startswith(path + os.sep)]:
            self._expose(folder, GONE_UNWATCHED)

    def _renamed(self, old: str, new: str) -> None:
        """Folder `old` is `new` now: its watches, and the files planloop follows in it."""

        def moved(path: str) -> str | None:
            if path == old or path.startswith(old + os.sep):
                return new + path[len(old) :]
            return None

        for wd, path in list(self.paths.items()):
            if (now := moved(path)) is not None:
                del self.folders[path]
                self.paths[wd], self.folders[now] = now, wd
        for path in list(self.unwatched_made):  # (a build's `-working` folder renamed)
            if (now := moved(path)) is not None:
                self.unwatched_made[now] = self.unwatched_made.pop(path)
        for path in list(self.windows):
            # A key file's window at `old` itself came by a file renamed there, and stays with
            # that file: only an exchange moves a folder from a file's name.
            if path != old and (now := moved(path)) is not None:
                self.windows[now] = self.windows.pop(path)

    def _forget(self, folder: str) -> None:
        """Stop following `folder` and what lies below it (removed, or moved out of sight): a
        key file there that planloop has not read counts as gone unread."""
        if not folder:
            return
        below = folder + os.sep
        for path in [path for path in self.folders if path == folder or path.startswith(below)]:
            wd = self.folders.pop(path)
            if self.paths.get(wd, path) != path:
                # The kernel's watch follows this folder under another name now (moved there
                # unseen, `mv x n/h; mv n/h config`, and watched as new): it stays.
                continue
            self.paths.pop(wd, None)
            if self.fd is not None:
                _LIBC.inotify_rm_watch(self.fd, wd)
        for path in [path for path in self.windows if path.startswith(below)]:
            window = self.windows.pop(path)
            if not window.absent:  # an absent one's file had gone on before the folder went
                self._vanished(path, window, MOVED_AWAY)

    def _gone(self, cookies: set[int]) -> None:
        """Renames (of `cookies`) whose other half never came: moved out of the watched
        folders. The two halves of one rename are queued one after the other, so planloop's
        read may fall between them: a rename is judged at the look after the one that saw it."""
        for cookie in cookies & set(self.moving):
            path, window, folder = self.moving.pop(cookie)
            if folder:
                self._taken_away(path)
                self._forget(path)
            else:
                self._vanished(path, window, MOVED_AWAY)

    def _overflowed(self) -> None:
        """Events were lost: nothing can be told of what happened meanwhile. A key file saved
        then may have been read and renamed to any name, or removed, with no trace left to
        look for; so every command that ran meanwhile counts as having read one."""
        self.lost += 1
        for workspace in self.workspaces:
            self._expose(workspace, LOST_TRACK)
        # Their marks may be among what was lost: planloop's reads begun start afresh.
        self.own_reads, self.pending_reads = {}, {}
        for window in self.windows.values():
            window.pending = 0

    def look(self) -> None:
        """Take in the events queued now (as their arrival would), without waiting for the loop:
        before a comparison, so that a key file written just before counts."""
        self._stop_draining()
        if self.fd is not None:
            self._read()

    def _read(self) -> None:
        unwatched = len(self.unwatched)
        try:
            self._read_events()
        except Exception:
            # The rest of the batch, read from the kernel already, would be lost unseen: as
            # when the kernel drops events, nothing can be told of what happened meanwhile.
            self._overflowed()
        finally:
            grew = len(self.unwatched) > unwatched
            if grew and self.unwatched_now is not None and not self.said_unwatched:
                self.said_unwatched = True
                # Now, not later on the loop: a foreground command's last look is followed by
                # the watch's close, which forgets the folders.
                with contextlib.suppress(Exception):  # a failed notice must not end the loop
                    self.unwatched_now()

    def _read_events(self) -> None:
        earlier = set(self.moving)
        events = self._events()
        if events is None:
            return
        relevant, written = self._note(events, time.monotonic() + NOTE_SECONDS)
        deadline = time.monotonic() + LOOK_SECONDS
        written, self.unsettled = written | self.unsettled, set()
        # Each key file costs a read and a judging (up to 16 MiB each: some 0.7 s), so a Ctrl-C
        # or SIGTERM that comes meanwhile ends the look there: what is left counts as lost.
        signals = SignalCheck()
        for _ in range(SETTLE_ROUNDS):
            written = {path for path in written if path in self.windows}
            if not written or self.cut_short:
                break
            contents: dict[str, tuple[bytes | None, bool]] = {}  # what was read; the key in it?
            # Looked up once a round, at its first read, for every file read in it: a task with
            # a thousand processes makes each look cost some 0.1 s of the event loop's time.
            mappings = Mappings()
            for path in written:
                if signals.stop_why():
                    self._overflowed()
                    return
                window = self.windows[path]
                number = begin_own_read(path)
                if number and self.marks_wd is not None:
                    window.pending = number
                    self.pending_reads[number] = path
                data = opened = open_for_key(path, marked=False)  # marked just above
                if isinstance(opened, int):
                    kept = _reopen(opened)
                    # Read at once, its names counted just before and after: a link made and
                    # removed around the read is all the time between them would let through
                    # (the look for mappings below scans every process of the commands).
                    info = _names_of(opened)
                    data = read_opened(opened)
                    after = _names_of(kept) if kept is not None else None
                # Marked done at once: a command's write and read inside the marks cannot be
                # told from planloop's read, so the look for mappings stays outside them.
                own_read_done(path, data if isinstance(opened, int) else NOT_OPENED)
                if isinstance(opened, int) and info is not None and stat.S_ISFIFO(info.st_mode):
                    # A pipe at a key file's name: what you add to it goes to its reader, and no
                    # write into a pipe raises an event. Made or opened for writing is enough.
                    data = None
                    self.piped.add(path)
                if isinstance(opened, int):
                    if info is not None:
                        self.key_inodes[path] = (info.st_dev, info.st_ino)
                        if len(self.key_inodes) > MAX_KEY_INODES:  # the oldest goes
                            del self.key_inodes[next(iter(self.key_inodes))]
                        names = max(info.st_nlink, after.st_nlink if after else 0)
                        if names > 1 or path in self.linked:
                            # Read and rewritten under its other name, it raises events there,
                            # which tell nothing of this file: what it held cannot be told.
                            self._expose(path, SECOND_NAME)
                        else:
                            identity = (info.st_dev, info.st_ino)
                            self._judge_mapping(path, window, identity, mappings)
                    if kept is not None:
                        self._keep(path, kept, data)
                keyed = data is None or holds_the_key(data)
                contents[path] = data, keyed
                if data is not None and (data or os.path.lexists(path)):
                    window.seen = data
            more = self._events()
            if more is None:
                return
            # Noted in a time of their own: a round of reads slower than NOTE_SECONDS (a busy
            # machine) left none for the events of those very reads, so every look was cut
            # short and read every file again, until the watch said it had lost track.
            more_relevant, written_after = self._note(more, time.monotonic() + NOTE_SECONDS)
            relevant = relevant or more_relevant
            if self.cut_short:  # what came after these reads is not noted yet: read again
                written |= written_after
                break
            written = written_after
            # Read with nothing written after: what it held is what anyone could read since. A
            # file renamed or removed meanwhile was followed, or judged, by `_note`.
            for path, (data, keyed) in contents.items():
                if path in written or path not in self.windows:
                    continue
                if path in self.own_reads:  # its end mark is still queued (far behind)
                    written.add(path)
                    continue
                window = self.windows.pop(path)
                if path in self.linked:  # given a second name before planloop's read ended
                    self._expose(path, SECOND_NAME)
                elif window.unread:
                    self._expose(path, UNREAD)
                elif path in self.piped:
                    self.piped.discard(path)
                    self._expose(path, PIPED)
                elif keyed:
                    renamed = os.path.basename(window.came_from)
                    self._expose(path, RENAMED.format(renamed) if renamed else "")
                elif not data and not os.path.lexists(path) and window.maybe_here:
                    window.absent = True  # renamed away before: the next event tells
                    self.windows[path] = window
                elif window.filled and not data and not os.path.lexists(path):
                    self._expose(path, REMOVED)  # gone, and no event said where
            if time.monotonic() > deadline:
                break
        for path in written:  # written after planloop's last read: read at the next look
            window = self.windows.get(path)
            if window is not None and window.unread and not self.cut_short:
                del self.windows[path]  # a write somebody read was written over meanwhile
                self._expose(path, UNREAD)
            elif window is not None:
                # Read by somebody since, it still holds what they read: a write over it would
                # make it unread (a command's `echo X >> .env && cat .env` while a look on a
                # busy machine ran out of time was taken for that, and stopped the run).
                self.unsettled.add(path)
        if not self.windows:  # no key file waits to be read: no read of a gone name matters
            self.gone_made.clear()
        if not self.cut_short:  # (else a rename's other half may wait among the events left)
            self._gone(earlier)
            if (self.moving or self.unsettled) and self.loop is not None:  # the next look, soon
                self.loop.call_later(MOVE_SETTLE_SECONDS, self._soon)
        elif self.loop is not None and not self.paused:
            # The events left wait as long as the look took: the loop's other work (a model
            # turn, SIGTERM) has as much of its time as the watch. (`_read_on` looks then.)
            self.paused = True
            self.loop.remove_reader(self.fd)
            self.loop.call_later(NOTE_SECONDS, self._read_on)
        found, self.found = self.found, False
        if (relevant or found) and not self.pending and self.loop is not None:
            self.pending = True
            self.loop.call_soon(self._changed)

    def _look_soon(self) -> None:
        """A look after the loop's other work, once however often asked for before it runs
        (each walk of a look asks), and none while reading pauses (`_read_on` looks then)."""
        if self.loop is not None and not self.soon and not self.paused:
            self.soon = True
            self.loop.call_soon(self._soon)

    def _soon(self) -> None:
        self.soon = False
        if not self.paused:  # (asked for by a look that was then cut short: `_read_on` looks)
            self._read_as_it_comes()

    def _read_on(self) -> None:
        """The pause after a look cut short is over: read the queue again as it fills."""
        self.paused = False
        if self.fd is not None and self.loop is not None:
            self.loop.add_reader(self.fd, self._read_as_it_comes)
            self._read_as_it_comes()

    def _read_as_it_comes(self) -> None:
        """A look the event loop makes as events come; none once planloop is ending (SIGTERM).
        Each look of a storm (two hundred key files rewritten in a loop) holds the loop for a
        tenth of a second or more, and planloop took seconds to end between them. What is left
        is taken at the last count (`take_stock`), or counted as lost there."""
        if not ENDING.is_set():
            self.look()
        elif self.loop is not None and self.fd is not None and not self.paused:
            self.paused = True
            self.loop.remove_reader(self.fd)

    def _changed(self) -> None:
        self.pending = False
        with contextlib.suppress(Exception):  # a failed look must not end the event loop
            self.changed()


def links_on_the_way(path: str, most: int = 40) -> tuple[list[str], str]:
    """Each link met on the way to what `path` leads to, in the real folder it is in, and where
    the way ends (as `os.path.realpath` walks it, which tells only the end). Stops after `most`
    links, as the kernel does, so a loop of links ends."""
    links: list[str] = []
    parts = list(reversed(path.split("/")))
    resolved = "/"
    while parts and len(links) < most:
        part = parts.pop()
        if part in ("", "."):
            continue
        if part == "..":
            resolved = os.path.dirname(resolved)
            continue
        here = os.path.join(resolved, part)
        try:
            target = os.readlink(here)
        except OSError:  # not a link, or not there (yet): the way goes on through the name
            resolved = here
            continue
        links.append(here)
        if target.startswith("/"):
            resolved = "/"
        parts.extend(reversed(target.split("/")))
    return links, resolved


def _folder_identity(path: str) -> tuple[int, int] | None:
    """The (device, inode) of the folder at `path` itself, a link not followed; None if none."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode) else None


def _judge_own_read(window: KeyFileWindow, own_read: OwnRead, data: bytes | None | str) -> None:
    """What the reads and writes of a key file between the marks of planloop's read of it
    (`own_read`) tell, given what it read (`data`; NOT_OPENED when it could not open it).

    planloop found the key, or could not tell: a read beside it may have taken the key, so the
    write still unjudged counts as read, and one written over meanwhile as read and lost. Else
    planloop's read raised a read event of its own unless it read no byte (an empty file, a
    hole, or no file): reads that writes separate into two stretches, or any read beside one
    that raised none, may be a command's of what planloop never saw, written over since. With
    one stretch, which is planloop's, every read in it read what planloop read; and with no
    write between the marks, so did every read since the last write before them."""
    if not window.written:
        return  # a key file nobody wrote while commands ran is not theirs to read
    found = data is None or (isinstance(data, bytes) and holds_the_key(data))
    stretches = own_read.reads + own_read.read_now
    if found:
        window.read_since = True
        window.unread = window.unread or own_read.wrote
    elif not isinstance(data, bytes) or not data.strip(b"\0"):
        window.unread = window.unread or own_read.reads > 0
        window.read_since = window.read_since or own_read.read_now
    elif stretches > 1:
        window.unread = True
    elif not own_read.wrote:
        window.read_since = False


def watch_key_files(sandbox: Any, start: SandboxStart | None) -> FolderWatch | None:
    """A watch of `start`'s workspace for the key files written while a foreground command
    runs (`FolderWatch.finish` when it ends); folders it cannot watch are said once."""
    if start is None:
        return None

    def tell() -> None:
        new = sorted(watch.unwatched - UNWATCHED_TOLD)
        notify = getattr(sandbox, "notify", None)
        if watch.passed_over == 1 and notify is not None:
            notify(passed_over_notice())
        if watch.too_big == 1 and notify is not None:
            notify(too_big_notice())
        if new and notify is not None:
            UNWATCHED_TOLD.update(new)
            notify(
                f"planloop: cannot watch {unwatched_names(new)} for key files written while a "
                f"command runs ({WHY_UNWATCHED}); they are checked when it ends instead."
            )

    # Also a folder the command makes past the bound: said while it runs, checked at its end.
    watch = FolderWatch(lambda: None, tell)
    watch.add(start)
    tell()
    return watch


# Why a folder can go unwatched, said with it.
WHY_UNWATCHED = (
    f"inotify is missing or out of watches, or the workspace has over {MAX_WATCHED_FOLDERS} folders"
)


def too_big_notice() -> str:
    """Said once when a file commands wrote was too big to read for the API key."""
    return (
        f"planloop: commands wrote a file of more than {OTHER_FILE_BYTES // (1024 * 1024)} MiB; "
        "files that big are not read for the API key, so a key you saved into one meanwhile "
        "may have been read by a command."
    )


def allocated(info: os.stat_result) -> int:
    """What a file holds on disk: a sparse file's holes, which read as zeros, cost nothing."""
    return min(info.st_size, info.st_blocks * 512)


def passed_over_notice() -> str:
    """Said once when commands wrote more files than planloop reads for the key at a look."""
    return (
        f"planloop: commands wrote more than {MAX_OTHERS:,} files before planloop's next look; "
        f"only the newest {MAX_OTHERS:,} are read for the API key, so a key you saved "
        "into another file meanwhile may have been read by a command."
    )


def unwatched_names(folders: list[str]) -> str:
    """The first few of `folders`, for a notice."""
    more = len(folders) - 3
    return ", ".join(folders[:3]) + (f" and {more} more" if more > 0 else "")


UNWATCHED_TOLD: set[str] = set()  # folders said unwatched once in this process


def closed_to_planloop(path: str) -> bool:
    """Whether the file at `path` is there but its mode keeps planloop out (`chmod 200`); not
    one removed meanwhile, or a link."""
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC))
    except PermissionError:
        return True
    except OSError:
        return False
    return False


class Mappings:
    """The files that processes planloop started (commands, background tasks, in a sandbox or
    not) have mapped into memory, looked up at the first question (`hold`) and kept: reads and
    writes through a mapping raise no inotify event, so what a file held when written cannot
    be told. Only planloop's descendants are looked at (/proc/PID/stat gives each one's
    parent), and a process that cannot be looked into is passed by. A mapping is told by its
    inode and its device, or its path (the sandbox binds the workspace at its own path): on
    overlayfs or a btrfs subvolume the device a mapping shows is not the one `stat` gives."""

    def __init__(self) -> None:
        self.found: set[tuple[bytes, bytes]] | None = None  # (inode, device or path) pairs

    def hold(self, device: int, inode: int, path: str) -> bool:
        """Whether the file at `path` (`device`, `inode`) is among them."""
        if self.found is None:
            self.found = self._look()
        number = str(inode).encode()
        shown_device = f"{os.major(device):02x}:{os.minor(device):02x}".encode()
        return (number, shown_device) in self.found or (number, os.fsencode(path)) in self.found

    @staticmethod
    def _look() -> set[tuple[bytes, bytes]]:
        children: dict[int, list[int]] = {}
        with contextlib.suppress(OSError), os.scandir("/proc") as entries:
            for entry in entries:
                if entry.name.isdigit():
                    with contextlib.suppress(OSError, ValueError, IndexError):
                        with open(f"/proc/{entry.name}/stat", "rb") as file:
                            # After the command's name, in parentheses (which may hold any byte).
                            parent = int(file.read().rpartition(b")")[2].split()[1])
                        children.setdefault(parent, []).append(int(entry.name))
        found: set[tuple[bytes, bytes]] = set()
        pending = list(children.get(os.getpid(), ()))
        while pending:
            pid = pending.pop()
            pending += children.get(pid, ())
            with contextlib.suppress(OSError), open(f"/proc/{pid}/maps", "rb") as file:
                for line in file:
                    # Address, permissions, offset, device (major:minor in hex), inode, path.
                    fields = line.rstrip(b"\n").split(maxsplit=5)
                    if len(fields) < 5 or fields[4] == b"0":  # anonymous memory
                        continue
                    found.add((fields[4], fields[3]))
                    if len(fields) > 5:
                        found.add((fields[4], fields[5].removesuffix(b" (deleted)")))
        return found


def _names_of(fd: int) -> os.stat_result | None:
    """`fstat` of `fd` (its `st_nlink`: how many names the file has), None if it fails."""
    try:
        return os.fstat(fd)
    except OSError:
        return None


def _reopen(fd: int) -> int | None:
    """The regular file open as `fd`, opened again on its own: a copy (dup) would share its
    open, and planloop's read would then not close (no IN_CLOSE_NOWRITE) until the copy did.
    Not a pipe or a device (whose open may wait, or do something)."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None


def _libc() -> Any:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1, libc.inotify_add_watch  # noqa: B018 (present, or AttributeError)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()
