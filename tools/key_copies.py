"""Where else a command could read planloop's key: copies found by content, and second paths.

The sandbox (tools/sandbox.py) hides secrets by where they are: SECRET_HOME_PATHS, the
workspace's `.env` files, those above it. Two things slip past a list of places:

- Copies. People paste the one key into every project (`~/code/chatbot/.env`,
  `../other/.env`, a venv's `bin/activate`, a Kubernetes Secret in base64), into a systemd
  unit's `Environment=`, `~/.tmux.conf`, other tools' configs (Claude Desktop's, cargo's `[env]`,
  VS Code's remote settings, conda's `activate.d`); editors leave copies of the workspace's `.env`
  beside it (Emacs's `#.env#`). No list of such places ends; what a file holds does tell.
  `KeyCopySearch` reads the files in the places a key is likely kept, once per run (again only
  when the key or the places change), in child processes started before the first command (at
  a low priority, and out of the way of planloop's own thread: see `start`), and notes
  each file that holds the key in any encoding redaction knows, or in base64. Every sandbox made
  after that hides them (KEY_FILES).

      where      your home folder, SEARCH_DEPTH levels down; the folder holding the workspace
                 and the one above it (your other projects), SIBLING_DEPTH levels down;
                 the workspace itself to any depth (WORKSPACE_DEPTH); as root, /etc,
                 cron's tables, and the files systemd units name (`EnvironmentFile=`),
                 where a server keeps such a key
      not        what the sandbox hides already, /tmp but a workspace there (the sandbox's
                 /tmp is its own, the workspace is bound into it), the system's folders, and
                 in places of yours what is known by what it is to hold only what tools
                 wrote: package stores, a VCS's objects, caches that say so (`skips_child`)
      bounds     of each place: SEARCH_ENTRIES entries, SEARCH_FILES files, SEARCH_BYTES
                 bytes (at most MAX_FILE_BYTES of what one file holds, read in pieces, a
                 sparse file's holes skipped) and MAX_FOUND copies; SEARCH_SECONDS for your
                 places, and as much again for the workspace's

  Fair to each place. The workspace is the untrusted place: a cloned repository, and what
  commands of earlier runs wrote there; the folders above it up to its repository's top are
  the repository's too. So each place is searched on its own, nested places carved out of the
  outer ones (the workspace in your home is searched as itself, not as part of your home), and
  turns go by cost: the place that has spent the least time reads next, so one of big files
  reads fewer of them while the others still have some to read. The workspace's places spend
  a time budget of their own, never yours: nothing the repository holds cuts your home's
  search short. In them no name is trusted either: a `node_modules` (a package store by its
  name, `read_last_in_the_workspace`) is sent to the end of the workspace's search, not out of
  it; a marker file beside a folder (a CACHEDIR.TAG but in cargo's `target`, a `HEAD`, a
  `pyvenv.cfg`) does not even do that, as the repository chose where to put it. When a bound
  stops the search, `cut_short` says which bound and `unfinished` which places, and the person
  is told.

  A copy found with more than one name (a command of an earlier run can `ln` the template the
  person later fills in) is hidden at every name the workspace holds: `find_other_names` lists
  the workspace by inode; when that cannot finish, no command runs (`linked`).

- Second paths. A file is hidden by a bind at one path, while the host may show the same
  folder at another (`/data/home` bound on `/home`, a devcontainer's volume, a btrfs
  subvolume mounted twice), which a command finds in /proc/self/mountinfo. `other_paths`
  looks there for every other path that leads to the same file, so it is hidden there too.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import re
import select
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from os import SEEK_DATA
from pathlib import Path

from redaction import secret_encodings
from tools.event_queues import CTRL_C_COUNT, ENDING, judged_by_a_watch
from tools.homes import your_homes

SEARCH_DEPTH = 7  # ~/miniconda3/envs/<env>/etc/conda/activate.d/env_vars.sh: six folders down
SIBLING_DEPTH = 6  # <mono>/deploy/k8s/overlays/prod/secrets.env, from <mono>/services/<ws>
# The workspace, all of it: a key pasted where its README says (src/main/resources/config/
# profiles/local/ai.properties) is as readable to commands as one at its top. Its own budget
# bounds it, and a bound reached is said.
WORKSPACE_DEPTH = 4096
SEARCH_ENTRIES = 200_000
SEARCH_FILES = 50_000  # the time bound is the one usually met first
SEARCH_BYTES = 512 * 1024 * 1024
SMALL_FILE_BYTES = 256 * 1024  # read in one go; a larger file in pieces of this size
MAX_FILE_BYTES = 32 * 1024 * 1024  # of one file: a notebook, a log, an editor's state database
SEARCH_SECONDS = 5.0  # your places', and the workspace's another as long
TURN_SECONDS = 0.01  # a place's turn: it then gives way to the one that has spent the least
MAX_FOUND = 500  # of one place: each is one bind in every sandbox
LINK_ENTRIES = 200_000  # listed in the workspace for another name of a copy
LINK_SECONDS = 2.0
TOTAL_SECONDS = SEARCH_SECONDS + LINK_SECONDS  # yours and the workspace's side by side
SIGNAL_CHECK_SECONDS = 0.05  # how often a wait for the search looks for Ctrl-C or SIGTERM
CHILD_NICENESS = 10  # the search gives way to planloop, the model's stream and your editor
# What a folder is, by its name anywhere: installed packages and tools' own output, thousands
# of files each, written by package managers and linters, never where a person pastes a key.
# (A venv, a conda env, cargo's or VS Code's folders are searched: their bin/activate,
# etc/conda/activate.d, config.toml and settings.json are where people do.)
PACKAGE_FOLDERS = frozenset(
    {"node_modules", "bower_components", "site-packages", "dist-packages", "__pycache__"}
    | {".mypy_cache", ".ruff_cache", ".pytest_cache", ".pnpm-store", "_cacache"}
)
# Folders that are a store inside a folder of a known kind, told by a file beside it: a VCS's
# objects (compressed: a key there cannot be found by its bytes anyway), a Python or Rust
# installation's library, conda's package cache, registries' downloaded sources.
STORES_BESIDE = (
    ("HEAD", frozenset({"objects", "lfs"})),  # a git directory (.git, a bare repository)
    ("requires", frozenset({"store", "cache"})),  # .hg
    ("wc.db", frozenset({"pristine"})),  # .svn
    ("conda-meta", frozenset({"pkgs", "lib", "include", "share", "Lib"})),  # a conda env
    ("pyvenv.cfg", frozenset({"lib", "lib64", "include", "share", "Lib"})),  # a venv
    ("config.toml", frozenset({"registry", "git"})),  # ~/.cargo: downloaded crates
    ("settings.xml", frozenset({"repository"})),  # ~/.m2
)
# Folder names that are a store wherever they lie beneath a folder of this name.
STORES_UNDER = {
    ".cargo": frozenset({"registry", "git"}),  # crates, with or without a config.toml
    ".m2": frozenset({"repository"}),
    ".gradle": frozenset({"caches", "wrapper", "native"}),
    "lib": frozenset({"rustlib"}),  # a Rust toolchain's libraries and sources
    "share": frozenset({"doc", "man", "locale", "icons"}),  # what packages install
}
PYTHON_LIBRARY = re.compile(r"python[23](\.\d+)?t?")  # lib/python3.12: a Python's library
# How programs and compressed archives begin (ELF, Mach-O, gzip, xz, zstd, bzip2, zip, 7z): a
# large one of yours is read no further than its first piece, as what follows is machine code,
# where no one pastes a key, or compressed, where no key is found by its bytes.
OPAQUE_STARTS = (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\x1f\x8b", b"\xfd7zXZ", b"\x28\xb5\x2f\xfd")
OPAQUE_STARTS += (b"BZh", b"PK\x03\x04", b"7z\xbc\xaf")
CACHE_TAG = "CACHEDIR.TAG"  # https://bford.info/cachedir/: "a cache, regenerated at will"
# System folders: what every command needs. Not searched, but for /etc as root (below).
SYSTEM_FOLDERS = tuple(
    Path(folder)
    for folder in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
    + ("/proc", "/sys", "/dev", "/run", "/boot", "/tmp", "/nix", "/snap")
)
# Searched as root: a server's keys are kept in /etc (systemd's EnvironmentFile=/etc/default/x,
# /etc/<app>/*.env), root's crontab (`ANTHROPIC_API_KEY=...` lines) and the files units name.
ROOT_PLACES = ((Path("/etc"), SIBLING_DEPTH), (Path("/var/spool/cron"), 3))
UNIT_FOLDERS = ("/etc/systemd/system", "/run/systemd/system", "/usr/lib/systemd/system")
USER_UNIT_FOLDER = ".config/systemd/user"
MAX_UNIT_FILES = 2_000


# What the search learnt, kept between runs in planloop's home (never the workspace's): the
# files read that did not hold the key, each by (st_dev, st_ino, st_size, st_mtime_ns,
# st_ctime_ns). A file unchanged since is not read again, so a known workspace costs its
# listing, not its reading. ctime cannot be set back by a process: a file rewritten since, its
# mtime set back with `touch -d` or not, has another, and is read. The record holds a salted
# digest of the forms searched for: for a new key nothing remembered counts.
MEMORY_FOLDER = "key-search"
MEMORY_NAME = "memory"
# What a record begins with; any other file is no record. Its last byte is raised whenever a
# file is judged otherwise (2: wrapped base64 counts): what an earlier one found clean, this
# one might not.
MEMORY_MAGIC = b"PLKEYMEM\x02"
MEMORY_FILES = 400_000  # remembered at most (16 bytes each): the newest first
IDENTITY_BYTES = 16
LEARN_SECONDS = 60.0  # after its answer, the child reads on to learn what it left, at most this
CTIME_SETTLED_NS = 2_000_000_000  # a file changed this recently may change again within its
# ctime's tick (coarse clocks): read it next time too
# Filesystems whose ctime the kernel sets on every change of a file and no process can set back.
# Others (FAT's ctime is its creation time, a network or FUSE filesystem's is the server's
# word) are read every run.
CTIME_TRUSTED = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "f2fs", "zfs", "bcachefs", "overlay"}
    | {"jfs", "reiserfs", "nilfs2"}
)


def identity(info: os.stat_result) -> bytes:
    """What the memory knows a file by: its inode and every time and size that changes with it."""
    fields = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    packed = struct.pack("<QQqqq", *fields)
    return hashlib.blake2b(packed, digest_size=IDENTITY_BYTES).digest()


def secrets_digest(salt: bytes, secrets: tuple[bytes, ...]) -> bytes:
    """Which key a record was learnt for, salted: the key is not told by it."""
    return hashlib.blake2b(b"\0".join(sorted(secrets)), key=salt, digest_size=32).digest()


def trusted_devices() -> set[int]:
    """The devices (st_dev) of the mounted filesystems whose ctime is trusted (CTIME_TRUSTED)."""
    devices: set[int] = set()
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError:
        return devices
    for line in lines:
        before, _, after = line.partition(" - ")
        fields, kind = before.split(), after.split()[:1]
        if len(fields) > 2 and kind and kind[0] in CTIME_TRUSTED:
            major, _, minor = fields[2].partition(":")
            if major.isdigit() and minor.isdigit():
                devices.add(os.makedev(int(major), int(minor)))
    return devices


def load_memory(path: Path | None, secrets: tuple[bytes, ...]) -> tuple[bytes | None, set[bytes]]:
    """(salt, identities) of the record at `path`; (None, empty) when there is none, or it is
    damaged, another user's, or learnt for another key: nothing of it counts."""
    if path is None:
        return None, set()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None, set()
    try:
        info = os.fstat(fd)
        most = len(MEMORY_MAGIC) + 16 + 32 + 4 + MEMORY_FILES * IDENTITY_BYTES + 32
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_size > most:
            return None, set()
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read(most + 1)
    except OSError:
        return None, set()
    finally:
        os.close(fd)
    head = len(MEMORY_MAGIC)
    body, check = data[:-32], data[-32:]
    if not data.startswith(MEMORY_MAGIC) or hashlib.sha256(body).digest() != check:
        return None, set()
    salt, digest = data[head : head + 16], data[head + 16 : head + 48]
    (count,) = struct.unpack("<I", data[head + 48 : head + 52] or b"\xff" * 4)
    entries = body[head + 52 :]
    if len(entries) != count * IDENTITY_BYTES or secrets_digest(salt, secrets) != digest:
        return None, set()
    return salt, {entries[i : i + IDENTITY_BYTES] for i in range(0, len(entries), IDENTITY_BYTES)}


def save_memory(path: Path, secrets: tuple[bytes, ...], learnt: set[bytes]) -> None:
    """Add `learnt` to the record at `path` (the newest first, MEMORY_FILES at most), written
    to a new file renamed over the old: never half written. The searches of your places and of
    the workspace end together and save one after the other (a lock beside the record), each
    adding to what the other saved."""
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        lock = os.open(path.parent / ".lock", flags, 0o600)
    except OSError:
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        add_to_memory(path, secrets, learnt)
    finally:
        os.close(lock)


def add_to_memory(path: Path, secrets: tuple[bytes, ...], learnt: set[bytes]) -> None:
    """`save_memory`'s work, under its lock."""
    salt, known = load_memory(path, secrets)
    salt = salt or os.urandom(16)
    entries = list(learnt)[:MEMORY_FILES]
    entries += list(known - learnt)[: MEMORY_FILES - len(entries)]
    body = MEMORY_MAGIC + salt + secrets_digest(salt, secrets)
    body += struct.pack("<I", len(entries)) + b"".join(entries)
    try:
        descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".memory-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(body + hashlib.sha256(body).digest())
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def memory_path() -> Path | None:
    """Where the memory is kept, in planloop's home (made, private, when missing); None when it
    cannot be made."""
    from session import make_private_folder, planloop_home  # late: session imports the tools

    folder = planloop_home() / MEMORY_FOLDER
    try:
        make_private_folder(folder)
    except OSError:
        return None
    return folder / MEMORY_NAME


def read_last_in_the_workspace(parent: str, name: str) -> bool:
    """Whether the workspace's folder `name`, in a folder named `parent`, is read after
    everything else there: by its name alone, a package store or a Python's library. Not by a
    marker file beside it, which the repository chooses: a `pyvenv.cfg` committed at the top
    made `lib/` a store, and the person's `lib/config.js` was left unread past a bound."""
    if name in PACKAGE_FOLDERS:
        return True
    return parent in ("lib", "lib64", "Lib") and PYTHON_LIBRARY.fullmatch(name) is not None


# Build output that tags itself with a CACHEDIR.TAG: in the workspace, only a folder of this
# name is read last for its tag (a committed `config/CACHEDIR.TAG` is an ordinary file).
TAGGED_OUTPUT = frozenset({"target"})


def skips_child(names: set[str], parent: str, name: str) -> bool:
    """Whether the folder `name`, in a folder named `parent` that holds `names`, is one of
    the stores the search passes by (see PACKAGE_FOLDERS, STORES_BESIDE, STORES_UNDER)."""
    if name in PACKAGE_FOLDERS or name in STORES_UNDER.get(parent, ()):
        return True
    if parent in ("lib", "lib64", "Lib") and PYTHON_LIBRARY.fullmatch(name):
        return True
    return any(marker in names and name in stores for marker, stores in STORES_BESIDE)


# A base64 copy is often broken into lines (`base64` writes 76 characters a line, PEM and
# openssl 64) and indented (a YAML block scalar); a program decoding it skips those blanks. So
# each form made only of base64's characters is looked for with the blanks taken out too.
BASE64_CHARACTERS = re.compile(rb"[A-Za-z0-9+/_-]+")
BLANKS = b" \t\r\n"


def base64_only(forms: Iterable[bytes]) -> tuple[bytes, ...]:
    """Those of `forms` a base64 decoder reads whole (the key itself is one: `sk-ant-...`)."""
    return _base64_only(tuple(forms))


@functools.lru_cache(maxsize=8)
def _base64_only(forms: tuple[bytes, ...]) -> tuple[bytes, ...]:
    return tuple(form for form in forms if BASE64_CHARACTERS.fullmatch(form))


def holds_wrapped(data: bytes, forms: Iterable[bytes]) -> bool:
    """Whether `data` holds one of the base64 `forms` broken into lines: found in it with the
    blanks taken out. (Cheap: one pass to take them out, then a fast scan per form.)"""
    if b"\n" not in data:
        return False
    return holds_any(data.translate(None, BLANKS), tuple(forms))


# Up to this size, one regular-expression search for all the forms at once beats one fast
# scan per form (a Python loop of `in`); past it the scans win, each running at memory speed.
ONE_SEARCH_BYTES = 64 * 1024


def holds_any(data: bytes, forms: tuple[bytes, ...]) -> bool:
    """Whether `data` holds any of `forms` (the same answer as `any(f in data for f in forms)`)."""
    if len(data) > ONE_SEARCH_BYTES:
        return any(form in data for form in forms)
    pattern = _any_of(forms)
    return pattern is not None and pattern.search(data) is not None


@functools.lru_cache(maxsize=16)
def _any_of(forms: tuple[bytes, ...]) -> re.Pattern[bytes] | None:
    return re.compile(b"|".join(map(re.escape, forms))) if forms else None


def base64_forms(secret: bytes) -> set[bytes]:
    """What base64 (standard and URL-safe) makes of `secret` wherever it lies in what is
    encoded: one form for each of the three places it may start in a group of three bytes,
    without the characters that also hold the bytes around it."""
    forms = set()
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(bytes(shift) + secret + bytes(3))
            first = -(-8 * shift // 6)  # the first character made of the secret's bits only
            last = 8 * (shift + len(secret)) // 6  # and the last
            forms.add(encoded[first:last])
    return forms


@dataclass(frozen=True)
class Place:
    """One place searched: a folder and how many levels down, or a file (depth 0).

    `yours`: a place of the person's (the home folder, /etc, the files units name, the folders
    beside the workspace). False for the workspace and the folders above it that belong to the
    same repository: what they hold, names and markers included, the repository chose, or a
    command of an earlier run. Such a place spends a time budget of its own, not yours, and
    passes nothing by for a marker or a name in it (`walk`): what another place would pass by
    it reads last."""

    path: Path
    depth: int
    yours: bool = True


@dataclass
class Account:
    """What one place has cost so far; each place has bounds of its own."""

    place: Place
    walker: Iterator[None]
    seconds: float = 0.0
    entries: int = 0
    files: int = 0
    bytes: int = 0
    found: int = 0
    # The walk's folders still to read, ordinary and last (`walk`), and the one being read.
    pending: collections.deque = field(default_factory=collections.deque)
    later: collections.deque = field(default_factory=collections.deque)
    current: tuple[str, bool] | None = None
    stores: list[str] = field(default_factory=list)  # the folders first put off to be read last

    def left(self) -> tuple[list[str], bool]:
        """The folders of this place not read to their end, and whether they are all ones
        read last (package stores, caches: files tools wrote)."""
        folders = [folder for folder, _, _, _ in self.pending]
        only_late = not folders and (self.current is None or self.current[1])
        if only_late:  # said by the stores they lie in: node_modules, not its 2,000 packages
            late = [folder for folder, _, _, _ in self.later]
            late += [self.current[0]] if self.current else []
            left = {os.path.join(folder, "") for folder in late}
            return [s for s in self.stores if any(f.startswith(s + os.sep) for f in left)], True
        if self.current is not None:
            folders.insert(0, self.current[0])
        return list(dict.fromkeys(folders)), False

    def bound_reached(self) -> str | None:
        if self.entries > SEARCH_ENTRIES:
            return f"more than {SEARCH_ENTRIES} entries"
        if self.files > SEARCH_FILES:
            return f"more than {SEARCH_FILES} files"
        if self.bytes > SEARCH_BYTES:
            return f"more than {SEARCH_BYTES // 2**20} MiB"
        if self.found >= MAX_FOUND:
            return f"{MAX_FOUND} files holding the key"
        return None


@dataclass
class KeyCopySearch:
    """One search (see the module's notes): `found` holds the real path of each file that holds
    the key, once `done` is set; `cut_short` says which bound stopped it, if one did, and
    `unfinished` the places it did not search to their end. `linked`: files found holding the
    key, in `workspace`, with another name that was not found (the search for it was cut
    short): a command may read the key there."""

    places: tuple[Place, ...]
    skipped: tuple[Path, ...]  # what the sandbox hides already, the system's folders
    secrets: tuple[bytes, ...]
    workspace: Path | None = None  # where a command could have made another name of a copy
    others: tuple[Path, ...] = ()  # places another search reads: passed by here
    found: list[Path] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    cut_short: str | None = None
    unfinished: list[Path] = field(default_factory=list)
    linked: list[Path] = field(default_factory=list)
    # Of each unfinished place: the folders left, and whether they are all read last.
    left: dict[Path, tuple[list[str], bool]] = field(default_factory=dict)
    memory: Path | None = None  # what earlier searches learnt (`load_memory`)
    copies: dict[tuple[int, int], int] = field(default_factory=dict)  # (device, inode): links
    seconds: float = 0.0
    files_read: int = 0
    bytes_read: int = 0
    entries: int = 0

    def result(self) -> list[Path] | None:
        """The files found, once the search has ended (it ends within TOTAL_SECONDS, unless a
        read hangs, on a network filesystem say: then what was found so far). None when Ctrl-C,
        SIGTERM or SIGHUP came meanwhile: the wait holds the event loop, which serves them."""
        ctrl_c = CTRL_C_COUNT[0]
        deadline = time.monotonic() + TOTAL_SECONDS + 10
        while not self.done.wait(SIGNAL_CHECK_SECONDS) and time.monotonic() < deadline:
            if ENDING.is_set() or CTRL_C_COUNT[0] != ctrl_c:
                return None
        return list(self.found)

    def workspace_left(self) -> Path | None:
        """The first of the workspace's places (not yours) that a bound stopped with ordinary
        folders still unread, or None. Only package stores and caches left (read last, where
        the repository's own files are not) is not counted: a node_modules of 200,000 entries
        would otherwise stop every run's commands."""
        theirs = {place.path for place in self.places if not place.yours}
        for place in self.unfinished:
            folders, late = self.left.get(place, ([], False))
            if place in theirs and not (late and folders):
                return place
        return None

    def start(self) -> None:
        """Search in a child process, whose answer a thread of planloop waits for.

        The search reads thousands of files in the first seconds of a run. In a thread of
        planloop's own it would hold the interpreter's lock against the event loop, and the
        first turns would stream and answer slower; a child runs beside it, at a low priority.
        It gets the key on a pipe, not in its environment, and cannot be read by a process of
        the same user (non-dumpable, as planloop is). Where no child can be started, or a
        process of the same user could take a new one over (`others_may_trace`), the search
        runs in the thread itself.
        """
        search = self.run if others_may_trace() else self.run_in_child
        threading.Thread(target=search, name="key-copy-search", daemon=True).start()

    def run(self) -> None:
        began = time.monotonic()
        try:
            self.search()
            self.remember()  # (what was read, for the next run; not read on after, `learn`)
            self.find_other_names()
        finally:
            self.seconds = time.monotonic() - began
            self.done.set()

    def run_in_child(self) -> None:
        """Your places and the workspace's each in a child of their own, side by side: each
        spends its own SEARCH_SECONDS, and what the workspace holds does not slow your places'
        child (but for sharing a processor). Other names of the copies found are looked for
        here, once both have answered (`find_other_names`)."""
        began = time.monotonic()
        yours = tuple(place for place in self.places if place.yours)
        theirs = tuple(place for place in self.places if not place.yours)
        groups = [group for group in (yours, theirs) if group]
        answers: list[dict] = [{} for _ in groups]
        threads = [
            threading.Thread(target=self.ask_child, args=(group, answer), daemon=True)
            for group, answer in zip(groups, answers, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        try:
            for answer in answers:
                self.found += [Path(path) for path in answer["found"]]
                self.cut_short = self.cut_short or answer["cut_short"]
                self.unfinished += [Path(path) for path in answer["unfinished"]]
                self.files_read += answer["files_read"]
                self.bytes_read += answer["bytes_read"]
                self.copies.update({(dev, ino): links for dev, ino, links in answer["copies"]})
                self.left.update({Path(p): (f, late) for p, f, late in answer.get("left", ())})
            self.find_other_names()
        finally:
            self.seconds = time.monotonic() - began
            self.done.set()

    def ask_child(self, group: tuple[Place, ...], answer: dict) -> None:
        """Searches `group` in a child, and puts what it found in `answer` (`answer_of`)."""
        others = [str(place.path) for place in self.places if place not in group and place.depth]
        question = {
            "memory": str(self.memory) if self.memory else None,
            "places": [[str(place.path), place.depth, place.yours] for place in group],
            "others": others,  # searched by the other child: passed by here
            "skipped": [str(path) for path in self.skipped],
            "secrets": [secret.decode("latin-1") for secret in self.secrets],
            "workspace": str(self.workspace) if self.workspace else None,
        }
        child = None
        # The question goes over a socket, not a pipe: another process can open a pipe of the
        # child's through /proc, but never a socket.
        asking, asked = socket.socketpair()
        try:
            # In a session of its own: its part that reads on after the answer (`learn`) is
            # cut short by neither Ctrl-C nor planloop's end; it ends within LEARN_SECONDS.
            with asked:
                child = subprocess.Popen(
                    [sys.executable, "-I", "-c", CHILD_START, str(PROJECT_ROOT), __file__],
                    stdin=asked.fileno(),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env={"LANG": "C.UTF-8"},  # nothing of planloop's own: no key, no PYTHON*
                    start_new_session=True,
                )
            # A new interpreter can be read by any process of the same user until it makes
            # itself non-dumpable: one could open its memory meanwhile, or copy its socket
            # (`pidfd_getfd`). So the child closes itself and then forks, and the fork, closed
            # from its start, sends back a socket of its own once it found that nothing
            # traces it and no other process holds it open (`_watched`): the question goes
            # there, and only if that socket is the fork's (`_from_the_fork`).
            with asking:
                channel = _channel_of(child, asking)
            with channel:
                channel.sendall(json.dumps(question).encode())
            output, _ = child.communicate(None, SEARCH_SECONDS + 5)
            if child.returncode != 0:
                raise subprocess.CalledProcessError(child.returncode, "the key copy search")
            answer.update(json.loads(output))
        except subprocess.TimeoutExpired:  # a read that hangs (a network filesystem): not again
            unfinished = [str(place.path) for place in group]
            answer.update(found=[], cut_short=f"{SEARCH_SECONDS:g} s", unfinished=unfinished)
            answer.update(files_read=0, bytes_read=0, copies=[], left=[])
        except (OSError, ValueError, subprocess.SubprocessError):
            # No child could start (its interpreter out of the user's reach), or it failed:
            # search here, remembering what was read, but not reading on after the answer
            # (`learn`): that would hold planloop's interpreter for as long.
            part = KeyCopySearch(
                group,
                self.skipped,
                self.secrets,
                others=tuple(map(Path, others)),
                memory=self.memory,
                workspace=self.workspace,
            )
            part.search()
            answer.update(part.answer_of())
            part.remember()
        finally:
            if child is not None and child.poll() is None:
                child.kill()  # (not told the question, or past its time)
                child.wait()

    def answer_of(self) -> dict:
        """What a search found, as a child answers it."""
        return {
            "found": [str(path) for path in self.found],
            "cut_short": self.cut_short,
            "unfinished": [str(path) for path in self.unfinished],
            "files_read": self.files_read,
            "bytes_read": self.bytes_read,
            "copies": [[dev, ino, links] for (dev, ino), links in self.copies.items()],
            "left": [[str(path), folders, late] for path, (folders, late) in self.left.items()],
        }

    def search(self) -> None:
        """The places in turns until each is done or stopped by a bound.

        Fair by cost, not by entries: the next turn goes to the place that has spent the least
        time so far, and lasts until it has spent TURN_SECONDS more, so one whose entries are
        dear (big files) reads fewer of them while the others still have some to read. Your
        places and the workspace's each spend a budget of SEARCH_SECONDS of their own: what
        the workspace holds cannot cut your home's search short. Entries, files, bytes and
        key copies are counted per place (`Account`): a place that meets one of those bounds
        stops alone."""
        self.longest = max(len(secret) for secret in self.secrets)
        self.pattern = re.compile(b"|".join(re.escape(secret) for secret in self.secrets))
        self.wrapped = base64_only(self.secrets)
        self.plain = [secret.decode("latin-1") for secret in self.secrets]
        # What a piece carries over to the next: a form across the edge, broken into lines.
        self.overlap = 2 * self.longest
        self.seen: set[tuple[int, int]] = set()
        self.trusted = trusted_devices()
        _, self.known = load_memory(self.memory, self.secrets)
        self.learnt: set[bytes] = set()  # files that hold no key, as the memory keeps them
        self.read_once: set[bytes] = set()  # files read in this search that held no key
        self.stopped: list[Account] = []  # by a bound but the copies': `learn` reads on
        self.interrupted_file = False
        folders = [place.path for place in self.places if place.depth > 0] + list(self.others)
        live = [Account(place, self.walk(place, folders)) for place in self.places]
        spent = {True: 0.0, False: 0.0}  # by group: yours, the workspace's
        self.account = live[0] if live else None
        while live:
            account = min(live, key=lambda each: each.seconds)
            left = SEARCH_SECONDS - spent[account.place.yours]
            if left <= 0:
                self.stop(account, f"{SEARCH_SECONDS:g} s")
                live.remove(account)
                continue
            self.account = account
            self.interrupted = False
            began = time.monotonic()
            self.stop_at = began + left  # a big file's read stops there too (`read_file`)
            turn_ends = began + min(left, TURN_SECONDS)
            finished = False
            while True:
                try:
                    next(account.walker)
                except StopIteration:
                    finished = True
                    break
                if account.bound_reached() or time.monotonic() > turn_ends:
                    break
            cost = time.monotonic() - began
            account.seconds += cost
            spent[account.place.yours] += cost
            bound = account.bound_reached()
            if bound or finished and self.interrupted:
                self.stop(account, bound or f"{SEARCH_SECONDS:g} s")
                live.remove(account)
            elif finished:
                live.remove(account)

    def stop(self, account: Account, bound: str) -> None:
        self.cut_short = self.cut_short or bound
        self.unfinished.append(account.place.path)
        self.left[account.place.path] = account.left()
        if account.found < MAX_FOUND:
            self.stopped.append(account)

    def learn(self) -> None:
        """After the answer: reads on where bounds stopped the search, for LEARN_SECONDS at
        most, only to learn which files hold no key (`learnt`), so that the next run finds
        them known. A copy found now is not in this run's answer (the person was told the
        place was left); not remembered, it is read again next run."""
        deadline = time.monotonic() + LEARN_SECONDS
        self.stop_at = deadline
        for account in self.stopped:
            self.account = account
            for _ in account.walker:
                if time.monotonic() > deadline or len(self.learnt) >= MEMORY_FILES:
                    return

    def remember(self) -> None:
        """Adds what this search learnt to the memory (`save_memory`)."""
        if self.memory is not None and self.learnt:
            save_memory(self.memory, self.secrets, self.learnt)

    def walk(self, place: Place, places: list[Path]) -> Iterator[None]:
        """Searches `place`, breadth first, yielding after each entry; other places inside it
        are left to their own turns. No link is followed, and the places are resolved: every
        folder reached is real.

        A store (`skips_child`) or a folder with a CACHEDIR.TAG is passed by in a place of
        yours; in the workspace's, where the repository chose those names, a package store
        (`read_last_in_the_workspace`) is read after everything else there, within the
        workspace's own budget, and the rest in order."""
        if self.skips(place.path):
            return
        if place.depth == 0:  # a file
            self.account.entries += 1
            self.read_file(str(place.path))
            yield
            return
        # Beneath a place, only a folder is compared: what is reached lies beneath `place`,
        # and a folder the sandbox hides (or another place) is passed by as a whole.
        passed = {str(path) for path in self.skipped} | {str(p) for p in places}
        passed.discard(str(place.path))
        # (folder, depth, its entries when listed already, whether read last)
        # (kept on the place's account: what is left when a bound stops it is said, and read
        # on by `learn`)
        account = self.account
        pending, later = account.pending, account.later
        pending.append((str(place.path), 0, None, False))
        while pending or later:
            folder, depth, children, late = pending.popleft() if pending else later.popleft()
            account.current = (folder, late)
            if children is None:
                if folder in passed:
                    continue
                try:
                    info = os.stat(folder, follow_symlinks=False)
                    if (info.st_dev, info.st_ino) in self.seen:
                        continue  # reached from two places
                    self.seen.add((info.st_dev, info.st_ino))
                    with os.scandir(folder) as listing:
                        children = list(listing)
                except OSError:
                    continue  # not readable by planloop: not by a command either
            names = {entry.name for entry in children}
            parent = os.path.basename(folder)
            if CACHE_TAG in names:
                if place.yours:
                    continue  # a cache, regenerated at will: its tool wrote it all
                if not late and parent in TAGGED_OUTPUT:
                    later.append((folder, depth, children, True))
                    account.stores.append(folder)
                    continue
            for entry in children:
                self.account.entries += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth + 1 < place.depth:
                            if place.yours:
                                store = skips_child(names, parent, entry.name)
                            else:
                                store = read_last_in_the_workspace(parent, entry.name)
                            if not store and not late:
                                pending.append((entry.path, depth + 1, None, False))
                            elif not store or not place.yours:
                                later.append((entry.path, depth + 1, None, True))
                                if not late:
                                    account.stores.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        self.read_file(entry.path)
                except OSError:
                    pass
                yield
        account.current = None

    def read_file(self, path: str) -> None:
        """Notes `path` when it holds the key. Not a FIFO or device: only regular files come
        here, opened without blocking and checked again once open. A large file is read in
        pieces, each with the end of the one before (a key split between two is found), up to
        MAX_FILE_BYTES of what it holds: a sparse file's holes are not read (zeros, of which a
        key is not made), so it costs what it holds, not what its size says."""
        try:
            seen = os.lstat(path)
        except OSError:
            return
        if seen.st_dev in self.trusted:
            known = identity(seen)
            if known in self.known:
                # Read by an earlier search, not changed since: an inode that held no key
                # then and, with the same ctime, holds the same bytes now (at any of its
                # names). Counted as an entry, not as a file read: it costs one lstat.
                self.learnt.add(known)
                return
        if identity(seen) in self.read_once:
            return  # another name of a file read in this search: its bytes are not read twice
        self.files_read += 1
        self.account.files += 1
        if stat.S_ISREG(seen.st_mode) and judged_by_a_watch(path):
            self.read_key_file(path, seen)
            return
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError as error:
            unreadable = error.errno == errno.EACCES and stat.S_ISREG(seen.st_mode)
            if unreadable and self.workspace and Path(path).is_relative_to(self.workspace):
                # Closed to planloop (`chmod 200`), not to a command, which may open it up
                # again: hidden as a copy, since what it holds cannot be told.
                self.found.append(Path(path))
                self.account.found += 1
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                return
            began = time.time_ns()
            self.interrupted_file = False
            if self.holds_from(fd, info.st_size) or self.joins_the_key(path, fd, info.st_size):
                self.found.append(Path(path))
                self.account.found += 1
                if info.st_nlink > 1:  # another name may show it: `find_other_names`
                    self.copies[(info.st_dev, info.st_ino)] = info.st_nlink
            elif not self.interrupted_file and identity(os.fstat(fd)) == identity(info):
                # Not changed while it was read: read at no other name in this search (sixty
                # hard links to one big file would spend the bytes bound sixty times), and,
                # read to its end on a disk of this machine's and not changed lately either,
                # remembered for later runs.
                self.read_once.add(identity(info))
                if (
                    info.st_size <= MAX_FILE_BYTES
                    and info.st_dev in self.trusted
                    and info.st_ctime_ns < began - CTIME_SETTLED_NS
                ):
                    self.learnt.add(identity(info))
        except OSError:
            return
        finally:
            os.close(fd)

    def read_key_file(self, path: str, seen: os.stat_result) -> None:
        """Read a key file a watch judges while a command runs (a `.env` the command just made,
        which this search, still under way, comes to) as planloop's own reads of it are: marked,
        and what it held told (`read_for_key`). Unmarked, the watch took this read for the
        command's, and the command's next write for a key read and written over. One that
        cannot be read, or is past what a key file holds, is taken for a copy; one with other
        names (`seen`, its lstat) is looked for at them, as `read_file` has it."""
        from tools.bind_watch import read_for_key  # late: it imports this module

        data = read_for_key(path)
        if data is None or self.holds(data):
            self.found.append(Path(path))
            self.account.found += 1
            if seen.st_nlink > 1:  # another name may show it: `find_other_names`
                self.copies[(seen.st_dev, seen.st_ino)] = seen.st_nlink
        if data is not None:
            self.bytes_read += len(data)
            self.account.bytes += len(data)

    def holds_from(self, fd: int, size: int) -> bool:
        kept = b""
        taken = 0
        position = 0
        while taken < MAX_FILE_BYTES:
            if size > SMALL_FILE_BYTES:
                try:
                    data_at = os.lseek(fd, position, SEEK_DATA)
                except OSError as error:
                    # ENXIO: only a hole from here to the end; else no SEEK_DATA: read on.
                    data_at = size if error.errno == errno.ENXIO else position
                if data_at > position:  # a hole: as many zeros as a key could span
                    zeros = bytes(min(data_at - position, self.longest))
                    if self.holds(kept + zeros):
                        return True
                    kept = (kept + zeros)[-self.overlap :]
                    position = os.lseek(fd, data_at, os.SEEK_SET)
            piece = os.read(fd, SMALL_FILE_BYTES)
            if not piece:
                return False
            first = taken == 0 and position == 0
            taken += len(piece)
            position += len(piece)
            self.bytes_read += len(piece)
            self.account.bytes += len(piece)
            data = kept + piece
            if self.holds(data):
                return True
            if first and piece.startswith(OPAQUE_STARTS) and self.account.place.yours:
                # A program or a compressed archive of yours: no pasted key further on. In the
                # workspace a file's first bytes are the repository's to choose, and a log
                # your app appends to may begin like an archive: read on.
                return False
            if time.monotonic() > self.stop_at:
                self.interrupted = True  # the place's time is up: it is said unfinished
                self.interrupted_file = True  # and this file is not known to hold no key
                return False
            kept = data[-self.overlap :]
        return False

    def joins_the_key(self, path: str, fd: int, size: int) -> bool:
        """Whether a `.env` (by its name) gives the key from halves it joins with `${...}`
        (`A=sk-ant-...`, `B=...`, `KEY=${A}${B}`): every dotenv reader gets it whole."""
        from tools.bind_watch import DOTENV_JUDGED_BYTES, expands_to_the_key
        from tools.paths import is_env_name

        if size > DOTENV_JUDGED_BYTES or not is_env_name(os.path.basename(path)):
            return False
        data = os.pread(fd, size, 0)
        self.bytes_read += len(data)
        self.account.bytes += len(data)
        return b"${" in data and expands_to_the_key(data, self.plain)

    def holds(self, data: bytes) -> bool:
        if holds_wrapped(data, self.wrapped):
            return True
        if len(data) < 16 * 1024:  # most files: one pass for all the forms is quicker
            return self.pattern.search(data) is not None
        return any(secret in data for secret in self.secrets)  # each form a fast scan

    def skips(self, path: Path) -> bool:
        return any(path == other or path.is_relative_to(other) for other in self.skipped)

    def find_other_names(self) -> None:
        """Every other name, in the workspace, of a copy found with more than one: a command of
        an earlier run may have made one (`ln config/local.json node_modules/.cache/x`) before
        the person filled the key in, where the search passes by or does not reach. Hidden at
        one name only, the file would be read at the other. The copies still short of names
        when the listing had to stop are `linked`."""
        if not self.copies or self.workspace is None:
            return
        more, short = other_names(self.workspace, self.copies, self.found)
        self.found += more
        self.linked += [path for path in short if path not in self.linked]


def other_names(
    workspace: Path, copies: dict[tuple[int, int], int], known: list[Path]
) -> tuple[list[Path], list[Path]]:
    """The names in `workspace` of the files `copies` ((device, inode) -> how many names each
    has) that `known` does not hold; and the paths of `known` in the workspace whose names were
    not all found. The workspace's folders are listed (no file is read) to their end, within
    LINK_ENTRIES and LINK_SECONDS; any name left then lies outside it, where no command makes
    one. A folder closed to planloop that it may still pass through (`chmod 311`) ends it too:
    a command may pass through to a name in it that cannot be listed."""
    found = set(known)
    more: list[Path] = []
    names: dict[tuple[int, int], int] = {}
    identities: dict[Path, tuple[int, int]] = {}  # each known copy's, stat'ed once
    for path in known:
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        key = identities[path] = (info.st_dev, info.st_ino)
        if key in copies:
            names[key] = names.get(key, 0) + 1
    inodes = {inode for _, inode in copies}
    deadline = time.monotonic() + LINK_SECONDS
    listed = 0
    pending = [str(workspace)]
    complete = True
    while pending:
        folder = pending.pop()
        if listed > LINK_ENTRIES or time.monotonic() > deadline:
            complete = False
            break
        try:
            with os.scandir(folder) as listing:
                children = list(listing)
        except OSError:
            complete = complete and not os.access(folder, os.X_OK)
            continue
        for entry in children:
            listed += 1
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                elif entry.inode() in inodes and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    key = (info.st_dev, info.st_ino)
                    if key in copies and Path(entry.path) not in found:
                        found.add(Path(entry.path))
                        more.append(Path(entry.path))
                        identities[Path(entry.path)] = key
                        names[key] = names.get(key, 0) + 1
            except OSError:
                pass
    if complete:
        return more, []
    short = [
        path
        for path, key in identities.items()
        if key in copies and names.get(key, 0) < copies[key] and path.is_relative_to(workspace)
    ]
    return more, short


def cut_short_notice(search: KeyCopySearch) -> str:
    """One line for the person when a bound stopped `search`: which places it left, and in
    each that only had package stores or caches left (read last), which folders."""
    parts = []
    late_only = True
    for place in search.unfinished[:4]:
        folders, late = search.left.get(place, ([], False))
        if not (late and folders):
            late_only = False
            parts.append(str(place))
            continue
        tops = [Path(folder) for folder in folders]
        names = ", ".join(str(top.relative_to(place)) for top in tops[:3])
        names += f" and {len(tops) - 3} more" if len(tops) > 3 else ""
        parts.append(f"{place} (left: {names}; files tools wrote, read last)")
    more = len(search.unfinished) - 4
    places = ", ".join(parts) + (f" and {more} more" if more > 0 else "")
    if late_only and parts:
        ending = "later runs go on from what this one read; a key put there is readable till then"
    else:
        ending = "a copy of the key there stays readable to commands"
    return (
        f"planloop: the search for copies of the API key stopped at {search.cut_short} before "
        f"it finished {places or 'its places'}: {ending}."
    )


_searches: dict[tuple, KeyCopySearch] = {}
_lock = threading.Lock()

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The child loads this file alone (not the tools package, which loads every tool), beside
# redaction.py, which it imports.
# It closes itself (PR_SET_DUMPABLE) first, before it loads anything: its stdin could be
# copied by another process until then. (Where that fails, the child ends, and planloop
# searches in its own process.)
CHILD_START = (
    "import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); "
    "import sys, importlib.util as u; sys.path.insert(0, sys.argv[1]); "
    "spec = u.spec_from_file_location('key_copies', sys.argv[2]); "
    "module = sys.modules['key_copies'] = u.module_from_spec(spec); "
    "spec.loader.exec_module(module); module.search_in_child()"
)


def _channel_of(child: subprocess.Popen, asking: socket.socket) -> socket.socket:
    """The socket the search's fork sent back with READY (`search_in_child`); ValueError when
    none came within SEARCH_SECONDS, or one came from another process: a copy of the child's
    first socket, taken before it closed itself, can send too."""
    asking.settimeout(SEARCH_SECONDS)
    try:
        message, descriptors, _, _ = socket.recv_fds(asking, len(READY), 4)
    except (OSError, TimeoutError):
        raise ValueError("the search's child did not say READY") from None
    channels = [socket.socket(fileno=descriptor) for descriptor in descriptors]
    if message == READY and len(channels) == 1 and _from_the_fork(child, channels[0]):
        return channels[0]
    for channel in channels:
        channel.close()
    raise ValueError("the search's child is watched by another process")


def _from_the_fork(child: subprocess.Popen, channel: socket.socket) -> bool:
    """Whether `channel` was made by a process the child forked, of this user, and still
    running: the process that made a socket pair is the peer each end names.

    It is asked for as a pidfd (SO_PEERPIDFD, Linux 6.5), which stands for that very process.
    A pid is only a number: a socket still names its maker's after the maker is gone, and
    the number is given to a new process in time, so a process of the same user could hold
    sockets "made by" each of the numbers the fork might get. Where the kernel has no
    SO_PEERPIDFD, the number is all there is (SO_PEERCRED)."""
    credentials = channel.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _ = struct.unpack("3i", credentials)
    try:
        pidfd = channel.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD)
    except OSError as error:
        if error.errno != errno.ENOPROTOOPT:
            return False  # (its maker is gone)
        return uid == os.geteuid() and _parent_of(pid) == child.pid
    try:
        pid = _pid_of(pidfd)
        parent = _parent_of(pid)
        closed = _closed_and_untraced(pid) and _closed_and_untraced(child.pid)
        # Still running after its parent was read: the number was that process's all along.
        running = not select.select([pidfd], [], [], 0)[0]
    finally:
        os.close(pidfd)
    return running and closed and uid == os.geteuid() and parent == child.pid


SO_PEERPIDFD = getattr(socket, "SO_PEERPIDFD", 77)  # from <asm-generic/socket.h>


def _pid_of(pidfd: int) -> int:
    """The number of the process a pidfd stands for, now (-1 once it has ended)."""
    try:
        with open(f"/proc/self/fdinfo/{pidfd}") as info:
            found = re.search(r"^Pid:\s*(-?\d+)", info.read(), re.MULTILINE)
    except OSError:
        return -1
    return int(found[1]) if found else -1


YAMA_SCOPE = Path("/proc/sys/kernel/yama/ptrace_scope")


def others_may_trace() -> bool:
    """Whether any process of this user may attach a debugger to a new one of planloop's: where
    Yama's ptrace_scope is 0, or there is no Yama. A debugger attached in a new interpreter's
    first instant, before its prctl, owns it from then on: it can keep it dumpable, fake what
    it sees of itself, and copy its descriptors before letting go, whatever planloop checks
    later. So no key goes to a child started so. (Root's processes are open to each other, and
    to root, in any case.)"""
    if os.geteuid() == 0:
        return False
    try:
        return YAMA_SCOPE.read_text().strip() == "0"
    except OSError:
        return True


def _closed_and_untraced(pid: int) -> bool:
    """Whether the process `pid` is non-dumpable and traced by no one, seen from here: a process
    that attached a debugger in the child's first instant (before its prctl) stays attached,
    and can turn each prctl it makes into one that leaves it open, and its own look at itself
    (`_watched`) into one that sees nothing. From outside, neither can be changed: the kernel
    gives a non-dumpable process's /proc files to root (for root, every process is open to its
    other processes anyway), and names its tracer."""
    try:
        with open(f"/proc/{pid}/status") as status:
            owner = os.fstat(status.fileno()).st_uid
            traced = re.search(r"^TracerPid:\s*[1-9]", status.read(), re.MULTILINE)
    except OSError:
        return False
    return not traced and (owner == 0 or os.geteuid() == 0)


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


READY = b"+"  # the child is closed to other processes, and none holds it open


def _watched() -> str | None:
    """In the search's child, once it is non-dumpable: a process other than planloop that
    traces it, or holds its stdin pipe or its memory open (opened in the instant before it was
    closed, as a command of another session could), and so could read the key it is to get."""
    me, parent = os.getpid(), os.getppid()
    try:
        with open("/proc/self/status") as status:
            if re.search(r"^TracerPid:\s*[1-9]", status.read(), re.MULTILINE):
                return "a process traces it"
        question = os.readlink("/proc/self/fd/0")
    except OSError:
        return None  # (no /proc: nothing to look at, nor for another to open)
    for pid in (name for name in os.listdir("/proc") if name.isdigit()):
        if int(pid) in (me, parent):
            continue
        with contextlib.suppress(OSError):
            for descriptor in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    held = os.readlink(f"/proc/{pid}/fd/{descriptor}")
                    if held == question or held.startswith(f"/proc/{me}/"):
                        return f"process {pid} holds its input or its memory open"
    return None


def search_in_child() -> None:
    """The child's side of `KeyCopySearch.start`: READY once it is closed to other processes
    and none holds it open, then the question on stdin and the answer on stdout."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # no prctl: not Linux
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE: it is about to hold the key
    # Its memory may have been opened before that (and an open one stays readable): the
    # key goes to a fork, whose memory is its own from the start, and no one else's to open.
    try:
        searching = os.fork()
    except OSError:
        os._exit(4)
    if searching:
        null = os.open(os.devnull, os.O_RDWR)
        for descriptor in (0, 1):  # (the question and the answer are the fork's)
            os.dup2(null, descriptor)
        _, status = os.waitpid(searching, 0)
        os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 5)
    if _watched():
        os._exit(3)  # (planloop then searches in its own process, closed as it is)
    # The question comes on a socket the fork makes now, which no other process can reach;
    # the one it was started with may have been copied before the child closed itself.
    mine, theirs = socket.socketpair()
    with socket.socket(fileno=os.dup(0)) as started_with, theirs:
        socket.send_fds(started_with, [READY], [theirs.fileno()])
    os.nice(CHILD_NICENESS)
    with mine, mine.makefile("rb") as asked:
        question = json.load(asked)
    search = KeyCopySearch(
        tuple(Place(Path(path), depth, yours) for path, depth, yours in question["places"]),
        tuple(Path(path) for path in question["skipped"]),
        tuple(secret.encode("latin-1") for secret in question["secrets"]),
        others=tuple(Path(path) for path in question["others"]),
        memory=Path(question["memory"]) if question.get("memory") else None,
        workspace=Path(question["workspace"]) if question.get("workspace") else None,
    )
    search.search()
    json.dump(search.answer_of(), sys.stdout)
    sys.stdout.flush()
    try:
        # What is left is done by a process of its own, so that planloop, waiting for this
        # one to end, goes on with the answer at once.
        if os.fork():
            os._exit(0)
    except OSError:
        search.remember()
        return
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):  # planloop's pipes: it reads them to their end
        os.dup2(null, descriptor)
    search.remember()
    if search.stopped and search.memory is not None:
        search.learn()
        search.remember()
    os._exit(0)


def unit_files(home: Path, as_root: bool) -> list[str]:
    """The files systemd units name with `EnvironmentFile=` (the home folder's user units, and
    as root the system's): a key kept for a service, wherever the unit put it."""
    named: list[str] = []
    folders = [*(UNIT_FOLDERS if as_root else ()), str(home / USER_UNIT_FOLDER)]
    read = 0
    for top in folders:
        for folder, _, names in os.walk(top):
            for name in names:
                read += 1
                if read > MAX_UNIT_FILES:
                    return named
                try:
                    with open(os.path.join(folder, name), "rb") as unit:
                        text = unit.read(SMALL_FILE_BYTES).decode(errors="replace")
                except OSError:
                    continue
                for line in text.splitlines():
                    key, _, value = line.strip().partition("=")
                    if key.strip() == "EnvironmentFile":
                        named += [word.lstrip("-") for word in value.split() if "/" in word]
    return named


def repository_top(workspace: Path) -> Path | None:
    """The top of the repository `workspace` lies in: the nearest folder, from the workspace
    up, with a `.git` file or a `.git` folder that is a repository (the sandbox's empty stand-in
    is none), or None."""
    for folder in (workspace, *workspace.parents):
        git = folder / ".git"
        if os.path.isfile(git) or os.path.isfile(git / "HEAD"):
            return folder
    return None


def search_places(workspace: Path, *homes: Path) -> tuple[Place, ...]:
    """The places to search: the home folders (yours, and your account's when a run moves
    HOME: tools/homes.py), the two folders above the workspace, the workspace; as root,
    ROOT_PLACES and the files systemd units name. Not /tmp but the workspace itself (the
    sandbox's /tmp is private, the workspace is bound into it), nor a system folder but those,
    nor `/`. The workspace, and the folders above it up to its repository's top, are not yours
    (`Place`)."""
    as_root = os.geteuid() == 0
    workspace = Path(os.path.realpath(workspace))
    top = repository_top(workspace) or workspace
    candidates = [(home, SEARCH_DEPTH, True) for home in homes]
    candidates += [
        (folder, SIBLING_DEPTH, not folder.is_relative_to(top))
        for folder in list(workspace.parents)[:2]
    ]
    candidates += [(workspace, WORKSPACE_DEPTH, False)]
    if as_root:
        candidates += [(folder, depth, True) for folder, depth in ROOT_PLACES]
    named = [path for home in homes for path in unit_files(home, as_root)]
    candidates += [(Path(path), 0, True) for path in named if os.path.isabs(path)]
    places: dict[Path, tuple[int, bool]] = {}
    # A file a unit names under /etc as root only: /etc is read whole then anyway, and one
    # readable without being root is the system's to keep, not a copy of the person's.
    allowed = [folder for folder, _ in ROOT_PLACES] if as_root else []
    for folder, depth, yours in candidates:
        real = Path(os.path.realpath(folder))
        if len(real.parts) <= 1:
            continue
        if depth and not os.path.isdir(real) or not depth and not os.path.isfile(real):
            continue
        if real != workspace:  # the workspace is bound into every sandbox, wherever it lies
            if real.is_relative_to("/tmp"):
                continue
            system = any(real.is_relative_to(s) for s in SYSTEM_FOLDERS)
            if system and not any(real.is_relative_to(a) for a in allowed):
                continue
        before, was_yours = places.get(real, (0, False))
        places[real] = (max(depth, before) if depth else before, yours or was_yours)
    return tuple(Place(path, depth, yours) for path, (depth, yours) in places.items())


def workspace_search(workspace: Path) -> KeyCopySearch | None:
    """A search of the workspace alone, run now, in this thread, within the search's bounds:
    for a workspace no watch looked at for a while (tools/between_commands.py). None when
    there is no key to look for."""
    secrets = search_secrets()
    if not secrets:
        return None
    root = Path(os.path.realpath(workspace))
    search = KeyCopySearch((Place(root, WORKSPACE_DEPTH, False),), (), secrets, root)
    search.run()
    return search


def search_secrets() -> tuple[bytes, ...]:
    """planloop's key and token as bytes, in every encoding redaction knows, and in base64."""
    return search_secrets_of(None)


def search_secrets_of(secrets: list[str] | None) -> tuple[bytes, ...]:
    """`secrets` (planloop's when None) as `search_secrets` gives them."""
    return _search_forms(tuple(secret for secret, _ in secret_encodings(secrets)))


@functools.lru_cache(maxsize=8)
def _search_forms(encoded: tuple[bytes, ...]) -> tuple[bytes, ...]:
    # Asked for with every file judged (bind_watch.holds_the_key): worked out once per key.
    found = set(encoded)
    for secret in encoded:
        if secret.isascii():
            found |= base64_forms(secret)
    return tuple(sorted(found))


def key_copy_search(workspace: Path, hidden: list[Path]) -> KeyCopySearch | None:
    """The search for copies of the key around `workspace`, started now unless one for the same
    key and places was started already in this run; None when there is no key to look for.
    `hidden`: what the sandbox hides already, not searched."""
    secrets = search_secrets()
    if not secrets:
        return None
    root = Path(os.path.realpath(workspace))
    places = search_places(root, *your_homes())
    allowed = [place.path for place in places]
    system = [s for s in SYSTEM_FOLDERS if not any(p.is_relative_to(s) for p in allowed)]
    skipped = (*(Path(os.path.realpath(path)) for path in hidden), *system)
    key = (secrets, places)  # one search a run
    with _lock:
        search = _searches.get(key)
        if search is None:
            search = KeyCopySearch(places, skipped, secrets, root, memory=memory_path())
            _searches[key] = search
            search.start()
    return search


@dataclass(frozen=True)
class Mount:
    """One line of /proc/self/mountinfo: the filesystem (major:minor), the folder of it that
    is mounted (`root`), and where (`point`)."""

    device: str
    root: Path
    point: Path


def unescape(field_text: str) -> str:
    """mountinfo's octal escapes (`\\040` for a space) back to the characters."""
    if "\\" not in field_text:
        return field_text
    raw = field_text.encode()
    out, index = bytearray(), 0
    while index < len(raw):
        if raw[index : index + 1] == b"\\" and raw[index + 1 : index + 4].isdigit():
            out.append(int(raw[index + 1 : index + 4], 8))
            index += 4
        else:
            out.append(raw[index])
            index += 1
    return out.decode(errors="surrogateescape")


def mount_table(text: str | None = None) -> list[Mount]:
    """This process's mounts, in the order they were made."""
    if text is None:
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as file:
                text = file.read()
        except OSError:
            return []
    mounts = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 5:
            mounts.append(Mount(fields[2], Path(unescape(fields[3])), Path(unescape(fields[4]))))
    return mounts


def holding_mount(real: Path, mounts: list[Mount]) -> Mount | None:
    """The mount `real` (a resolved path) lies on: the deepest mount point holding it, the
    last made of those at the same point (it covers the others)."""
    best: Mount | None = None
    for mount in mounts:
        if real.is_relative_to(mount.point) and (
            best is None or len(mount.point.parts) >= len(best.point.parts)
        ):
            best = mount
    return best


def other_paths(path: Path, mounts: list[Mount], avoid: list[Path]) -> list[Path]:
    """Every other path, by the mounts in `mounts`, that leads to the very file or folder at
    `path`: where the same folder of the same filesystem is mounted again. Only those that
    exist and lead to the same (device, inode) are given, and none in or under `avoid` (what a
    sandbox empties as a whole, its private /tmp, /proc, /dev)."""
    try:
        real = Path(os.path.realpath(path))
        info = os.stat(real)
    except OSError:
        return []
    holder = holding_mount(real, mounts)
    if holder is None:
        return []
    inside = holder.root / real.relative_to(holder.point)  # the path in its filesystem
    found: list[Path] = []
    for mount in mounts:
        if mount.device != holder.device or not inside.is_relative_to(mount.root):
            continue
        other = mount.point / inside.relative_to(mount.root)
        if other == real or other in found:
            continue
        if any(other == folder or other.is_relative_to(folder) for folder in avoid):
            continue
        try:
            if os.path.realpath(other) != str(other):
                continue  # a link on the way: a bind lands where it leads, already listed
            same = os.stat(other)
        except OSError:
            continue  # covered by a later mount, or not there
        if (same.st_dev, same.st_ino) == (info.st_dev, info.st_ino):
            found.append(other)
    return found
