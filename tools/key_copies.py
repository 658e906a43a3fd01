"""Where else a command could read planloop's key: copies found by content, and second paths.

The sandbox (tools/sandbox.py) hides secrets by where they are: SECRET_HOME_PATHS, the
workspace's `.env` files, those above it. Two things slip past a list of places:

- Copies. People paste the one key into every project (`~/code/chatbot/.env`,
  `../other/.env`, a venv's `bin/activate`, a Kubernetes Secret in base64), into a systemd
  unit's `Environment=`, `~/.tmux.conf`, other tools' configs (Claude Desktop's, cargo's `[env]`,
  VS Code's remote settings, conda's `activate.d`); editors leave copies of the workspace's `.env`
  beside it (Emacs's `#.env#`). No list of such places ends; what a file holds does tell.
  `KeyCopySearch` reads the files in the places a key is likely kept, once per run (again only
  when the key or the places change), in a child process started before the first command (at
  a low priority, and out of the way of planloop's own thread: see `start`), and notes
  each file that holds the key in any encoding redaction knows, or in base64. Every sandbox made
  after that hides them (KEY_FILES).

      where      your home folder, SEARCH_DEPTH levels down; the folder holding the workspace
                 and the one above it (your other projects) and the workspace itself,
                 SIBLING_DEPTH levels down; as root, /etc, cron's tables, and the files
                 systemd units name (`EnvironmentFile=`), where a server keeps such a key
      not        what the sandbox hides already, /tmp (the sandbox's is its own), the system's
                 folders, and what is known by what it is to hold only what tools wrote:
                 package stores, a VCS's objects, caches that say so (`skips_child`)
      bounds     SEARCH_ENTRIES entries, SEARCH_FILES files, SEARCH_BYTES bytes (at most
                 MAX_FILE_BYTES of one file, read in pieces) and SEARCH_SECONDS

  Fair to each place. The folders above the workspace may be a cloned repository's own (one
  opened at its `app/`), and the workspace is one: what they hold is not the person's, and
  could be made to use up the bounds. So each place is searched on its own, nested places
  carved out of the outer ones, and the places take turns an entry at a time: a place that
  holds more than the others uses up no more than its share while they still have entries
  to read. When a bound stops the search, `cut_short` says which bound and `unfinished` which
  places, and the person is told.

- Second paths. A file is hidden by a bind at one path, while the host may show the same
  folder at another (`/data/home` bound on `/home`, a devcontainer's volume, a btrfs
  subvolume mounted twice), which a command finds in /proc/self/mountinfo. `other_paths`
  looks there for every other path that leads to the same file, so it is hidden there too.
"""

from __future__ import annotations

import base64
import collections
import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from redaction import secret_encodings

SEARCH_DEPTH = 7  # ~/miniconda3/envs/<env>/etc/conda/activate.d/env_vars.sh: six folders down
SIBLING_DEPTH = 6  # <mono>/deploy/k8s/overlays/prod/secrets.env, from <mono>/services/<ws>
SEARCH_ENTRIES = 200_000
SEARCH_FILES = 50_000  # the time bound is the one usually met first
SEARCH_BYTES = 512 * 1024 * 1024
SMALL_FILE_BYTES = 256 * 1024  # read in one go; a larger file in pieces of this size
MAX_FILE_BYTES = 32 * 1024 * 1024  # of one file: a notebook, a log, an editor's state database
SEARCH_SECONDS = 5.0
MAX_FOUND = 500  # each is one bind in every sandbox
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
# large one is read no further than its first piece, as what follows is machine code, where
# no one pastes a key, or compressed, where no key is found by its bytes.
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


def skips_child(names: set[str], parent: str, name: str) -> bool:
    """Whether the folder `name`, in a folder named `parent` that holds `names`, is one of
    the stores the search passes by (see PACKAGE_FOLDERS, STORES_BESIDE, STORES_UNDER)."""
    if name in PACKAGE_FOLDERS or name in STORES_UNDER.get(parent, ()):
        return True
    if parent in ("lib", "lib64", "Lib") and PYTHON_LIBRARY.fullmatch(name):
        return True
    return any(marker in names and name in stores for marker, stores in STORES_BESIDE)


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
    """One place searched: a folder and how many levels down, or a file (depth 0)."""

    path: Path
    depth: int


@dataclass
class KeyCopySearch:
    """One search (see the module's notes): `found` holds the real path of each file that holds
    the key, once `done` is set; `cut_short` says which bound stopped it, if one did, and
    `unfinished` the places it did not search to their end."""

    places: tuple[Place, ...]
    skipped: tuple[Path, ...]  # what the sandbox hides already, the system's folders
    secrets: tuple[bytes, ...]
    found: list[Path] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    cut_short: str | None = None
    unfinished: list[Path] = field(default_factory=list)
    seconds: float = 0.0
    files_read: int = 0
    bytes_read: int = 0
    entries: int = 0

    def result(self) -> list[Path]:
        """The files found, once the search has ended (it ends within SEARCH_SECONDS, unless a
        read hangs, on a network filesystem say: then what was found so far)."""
        self.done.wait(SEARCH_SECONDS + 5)
        return list(self.found)

    def start(self) -> None:
        """Search in a child process, whose answer a thread of planloop waits for.

        The search reads thousands of files in the first seconds of a run. In a thread of
        planloop's own it would hold the interpreter's lock against the event loop, and the
        first turns would stream and answer slower; a child runs beside it, at a low priority.
        It gets the key on a pipe, not in its environment, and cannot be read by a process of
        the same user (non-dumpable, as planloop is). Where no child can be started, the
        search runs in the thread itself.
        """
        threading.Thread(target=self.run_in_child, name="key-copy-search", daemon=True).start()

    def run(self) -> None:
        began = time.monotonic()
        try:
            self.search(began + SEARCH_SECONDS)
        finally:
            self.seconds = time.monotonic() - began
            self.done.set()

    def run_in_child(self) -> None:
        began = time.monotonic()
        question = {
            "places": [[str(place.path), place.depth] for place in self.places],
            "skipped": [str(path) for path in self.skipped],
            "secrets": [secret.decode("latin-1") for secret in self.secrets],
        }
        try:
            child = subprocess.run(
                [sys.executable, "-I", "-c", CHILD_START, str(PROJECT_ROOT), __file__],
                input=json.dumps(question).encode(),
                capture_output=True,
                env={"LANG": "C.UTF-8"},  # nothing of planloop's own: no key, no PYTHON*
                timeout=SEARCH_SECONDS + 5,
                check=True,
            )
            answer = json.loads(child.stdout)
        except subprocess.TimeoutExpired:  # a read that hangs (a network filesystem): not again
            self.cut_short = f"{SEARCH_SECONDS:.0f} s"
            self.unfinished = [place.path for place in self.places]
            self.seconds = time.monotonic() - began
            self.done.set()
            return
        except (OSError, ValueError, subprocess.SubprocessError):
            self.run()  # no child could start, or it failed: search here
            return
        self.found = [Path(path) for path in answer["found"]]
        self.cut_short = answer["cut_short"]
        self.unfinished = [Path(path) for path in answer["unfinished"]]
        self.files_read, self.bytes_read = answer["files_read"], answer["bytes_read"]
        self.seconds = time.monotonic() - began
        self.done.set()

    def search(self, deadline: float) -> None:
        """The places in turns, an entry each, until a bound stops it: a place with more
        entries than the others (a flood of files) uses up no more than its share of the
        bounds while the others still have some to read."""
        self.longest = max(len(secret) for secret in self.secrets)
        self.pattern = re.compile(b"|".join(re.escape(secret) for secret in self.secrets))
        self.seen: set[tuple[int, int]] = set()
        folders = [place.path for place in self.places if place.depth > 0]
        turns = collections.deque((place, self.walk(place, folders)) for place in self.places)
        while turns:
            place, walker = turns.popleft()
            try:
                next(walker)
            except StopIteration:
                continue
            turns.append((place, walker))
            bound = self.bound_reached(deadline)
            if bound:
                self.cut_short = bound
                self.unfinished = [place.path for place, _ in turns]
                return

    def bound_reached(self, deadline: float) -> str | None:
        if self.entries > SEARCH_ENTRIES:
            return f"more than {SEARCH_ENTRIES} entries"
        if self.files_read > SEARCH_FILES:
            return f"more than {SEARCH_FILES} files"
        if self.bytes_read > SEARCH_BYTES:
            return f"more than {SEARCH_BYTES // 2**20} MiB"
        if len(self.found) >= MAX_FOUND:
            return f"{MAX_FOUND} files holding the key"
        if time.monotonic() > deadline:
            return f"{SEARCH_SECONDS:.0f} s"
        return None

    def walk(self, place: Place, places: list[Path]) -> Iterator[None]:
        """Searches `place`, breadth first, yielding after each entry; other places inside it
        are left to their own turns. No link is followed, and the places are resolved: every
        folder reached is real."""
        if self.skips(place.path):
            return
        if place.depth == 0:  # a file
            self.entries += 1
            self.read_file(str(place.path))
            yield
            return
        # Beneath a place, only a folder is compared: what is reached lies beneath `place`,
        # and a folder the sandbox hides (or another place) is passed by as a whole.
        passed = {str(path) for path in self.skipped} | {str(p) for p in places}
        passed.discard(str(place.path))
        pending = collections.deque([(str(place.path), 0)])
        while pending:
            folder, depth = pending.popleft()
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
                continue  # a cache, regenerated at will: its tool wrote it all
            for entry in children:
                self.entries += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth + 1 < place.depth and not skips_child(names, parent, entry.name):
                            pending.append((entry.path, depth + 1))
                    elif entry.is_file(follow_symlinks=False):
                        self.read_file(entry.path)
                except OSError:
                    pass
                yield

    def read_file(self, path: str) -> None:
        """Notes `path` when it holds the key. Not a FIFO or device: only regular files come
        here, opened without blocking and checked again once open. A large file is read in
        pieces, each with the end of the one before (a key split between two is found), up to
        MAX_FILE_BYTES."""
        self.files_read += 1
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            return
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return
            kept = b""
            taken = 0
            while taken < MAX_FILE_BYTES:
                piece = os.read(fd, SMALL_FILE_BYTES)
                if not piece:
                    return
                taken += len(piece)
                self.bytes_read += len(piece)
                data = kept + piece
                if self.holds(data):
                    self.found.append(Path(path))
                    return
                if taken == len(piece) and piece.startswith(OPAQUE_STARTS):
                    return  # a program or a compressed archive: no pasted key further on
                kept = data[-(self.longest - 1) :] if self.longest > 1 else b""
        except OSError:
            return
        finally:
            os.close(fd)

    def holds(self, data: bytes) -> bool:
        if len(data) < 16 * 1024:  # most files: one pass for all the forms is quicker
            return self.pattern.search(data) is not None
        return any(secret in data for secret in self.secrets)  # each form a fast scan

    def skips(self, path: Path) -> bool:
        return any(path == other or path.is_relative_to(other) for other in self.skipped)


_searches: dict[tuple, KeyCopySearch] = {}
_lock = threading.Lock()

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The child loads this file alone (not the tools package, which loads every tool), beside
# redaction.py, which it imports.
CHILD_START = (
    "import sys, importlib.util as u; sys.path.insert(0, sys.argv[1]); "
    "spec = u.spec_from_file_location('key_copies', sys.argv[2]); "
    "module = sys.modules['key_copies'] = u.module_from_spec(spec); "
    "spec.loader.exec_module(module); module.search_in_child()"
)


def search_in_child() -> None:
    """The child's side of `KeyCopySearch.start`: the question on stdin, the answer on stdout."""
    import contextlib
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # no prctl: not Linux
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE: it is about to hold the key
    os.nice(CHILD_NICENESS)
    question = json.load(sys.stdin)
    search = KeyCopySearch(
        tuple(Place(Path(path), depth) for path, depth in question["places"]),
        tuple(Path(path) for path in question["skipped"]),
        tuple(secret.encode("latin-1") for secret in question["secrets"]),
    )
    search.run()
    answer = {
        "found": [str(path) for path in search.found],
        "cut_short": search.cut_short,
        "unfinished": [str(path) for path in search.unfinished],
        "files_read": search.files_read,
        "bytes_read": search.bytes_read,
    }
    json.dump(answer, sys.stdout)


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


def search_places(workspace: Path, home: Path) -> tuple[Place, ...]:
    """The places to search: the home folder, the two folders above the workspace, the
    workspace; as root, ROOT_PLACES and the files systemd units name. Not /tmp (the sandbox's
    own is private), nor a system folder but those, nor `/`."""
    as_root = os.geteuid() == 0
    candidates = [(home, SEARCH_DEPTH)]
    candidates += [(folder, SIBLING_DEPTH) for folder in list(workspace.parents)[:2]]
    candidates += [(workspace, SIBLING_DEPTH)]
    if as_root:
        candidates += list(ROOT_PLACES)
    candidates += [(Path(path), 0) for path in unit_files(home, as_root) if os.path.isabs(path)]
    places: dict[Path, int] = {}
    # A file a unit names under /etc as root only: /etc is read whole then anyway, and one
    # readable without being root is the system's to keep, not a copy of the person's.
    allowed = [folder for folder, _ in ROOT_PLACES] if as_root else []
    for folder, depth in candidates:
        real = Path(os.path.realpath(folder))
        if len(real.parts) <= 1 or real.is_relative_to("/tmp"):
            continue
        if depth and not os.path.isdir(real) or not depth and not os.path.isfile(real):
            continue
        system = any(real.is_relative_to(s) for s in SYSTEM_FOLDERS)
        if system and not any(real.is_relative_to(a) for a in allowed):
            continue
        places[real] = max(depth, places.get(real, 0)) if depth else places.get(real, 0)
    return tuple(Place(path, depth) for path, depth in places.items())


def search_secrets() -> tuple[bytes, ...]:
    """planloop's key and token as bytes, in every encoding redaction knows, and in base64."""
    return search_secrets_of(None)


def search_secrets_of(secrets: list[str] | None) -> tuple[bytes, ...]:
    """`secrets` (planloop's when None) as `search_secrets` gives them."""
    found = {secret for secret, _ in secret_encodings(secrets)}
    utf8 = {secret for secret, _ in secret_encodings(secrets) if secret.isascii()}
    for secret in utf8:
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
    places = search_places(root, Path.home())
    allowed = [place.path for place in places]
    system = [s for s in SYSTEM_FOLDERS if not any(p.is_relative_to(s) for p in allowed)]
    skipped = (*(Path(os.path.realpath(path)) for path in hidden), *system)
    key = (secrets, places)  # one search a run
    with _lock:
        search = _searches.get(key)
        if search is None:
            search = KeyCopySearch(places, skipped, secrets)
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
