"""Where else a command could read planloop's key: copies found by content, and second paths.

The sandbox (tools/sandbox.py) hides secrets by where they are: SECRET_HOME_PATHS, the
workspace's `.env` files, those above it. Two things slip past a list of places:

- Copies. People paste the one key into every project (`~/code/chatbot/.env`,
  `../other/.env`), into a systemd user unit's `Environment=`, `~/.tmux.conf`, other tools'
  configs (Claude Desktop's, Crush's, LiteLLM's, aider's `oauth-keys.env`). No list of such
  places ends; what a file holds does tell. `KeyCopySearch` reads the small files in the places
  a key is likely kept, once per run (again only when the key or the places change), in a
  thread started before the first command, and notes each file that holds the key in any
  encoding redaction knows. Every sandbox made after that hides them (KEY_FILES).

      where      your home folder, SEARCH_DEPTH levels down; the folder holding the workspace
                 and the one above it (your other projects), SIBLING_DEPTH levels down
      not        the workspace (scanned on its own, and a command could flood it to use up
                 the search), what the sandbox hides already, /tmp (the sandbox's is its
                 own), the system's folders, and folders that hold packages or a VCS's
                 objects (SKIPPED_FOLDERS: the bulk of the entries, and no keys)
      bounds     SEARCH_ENTRIES entries, SEARCH_FILES files of at most MAX_FILE_BYTES, and
                 SEARCH_SECONDS; the search stops at the first bound reached, shallow
                 folders first, which is where keys are kept

- Second paths. A file is hidden by a bind at one path, while the host may show the same
  folder at another (`/data/home` bound on `/home`, a devcontainer's volume, a btrfs
  subvolume mounted twice), which a command finds in /proc/self/mountinfo. `other_paths`
  looks there for every other path that leads to the same file, so it is hidden there too.
"""

from __future__ import annotations

import collections
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from redaction import secret_encodings

SEARCH_DEPTH = 5  # ~/.local/share/jupyter/jupyter_ai/config.json is five levels down
SIBLING_DEPTH = 4  # <folder above>/<project>/<sub>/.env, and a home folder's ~/code/x/.env
SEARCH_ENTRIES = 200_000
SEARCH_FILES = 20_000
MAX_FILE_BYTES = 256 * 1024  # key files are small; logs and databases are not read
SEARCH_SECONDS = 5.0
MAX_FOUND = 500  # each is one bind in every sandbox
# Folders of packages, build output and version control: thousands of files each, written by
# tools rather than by you. Only the person's own files are searched (no command can write
# outside the workspace), so skipping these by name hides nothing a command could plant.
SKIPPED_FOLDERS = frozenset(
    {".git", ".hg", ".svn", ".jj", "node_modules", "site-packages", "dist-packages"}
    | {"__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache"}
    | {".pytest_cache", "target", ".gradle", ".m2", ".cargo", ".rustup", ".npm", ".pnpm-store"}
    | {".cache", ".vscode-server", ".nvm", ".pyenv", ".conda"}
)
# System folders: what every command needs, never a copy of your key.
SYSTEM_FOLDERS = tuple(
    Path(folder)
    for folder in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
    + ("/proc", "/sys", "/dev", "/run", "/boot", "/tmp", "/nix", "/snap")
)


@dataclass
class KeyCopySearch:
    """One search (see the module's notes): `found` holds the real path of each file that holds
    the key, once `done` is set; `cut_short` says which bound stopped it, if one did."""

    roots: tuple[tuple[Path, int], ...]  # (folder, depth)
    skipped: tuple[Path, ...]  # the workspace and what the sandbox hides already
    secrets: tuple[bytes, ...]
    found: list[Path] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    cut_short: str | None = None
    seconds: float = 0.0
    files_read: int = 0

    def result(self) -> list[Path]:
        """The files found, once the search has ended (it ends within SEARCH_SECONDS, unless a
        read hangs, on a network filesystem say: then what was found so far)."""
        self.done.wait(SEARCH_SECONDS + 5)
        return list(self.found)

    def start(self) -> None:
        threading.Thread(target=self.run, name="key-copy-search", daemon=True).start()

    def run(self) -> None:
        began = time.monotonic()
        try:
            self.search(began + SEARCH_SECONDS)
        finally:
            self.seconds = time.monotonic() - began
            self.done.set()

    def search(self, deadline: float) -> None:
        pending = collections.deque((root, 0, depth) for root, depth in self.roots)
        seen_folders: set[tuple[int, int]] = set()
        entries = 0
        longest = max(len(secret) for secret in self.secrets)
        while pending:
            folder, depth, most = pending.popleft()
            if self.skips(folder):
                continue
            try:
                info = os.stat(folder, follow_symlinks=False)
                if (info.st_dev, info.st_ino) in seen_folders:
                    continue  # reached from two roots (the home folder holds the workspace's)
                seen_folders.add((info.st_dev, info.st_ino))
                with os.scandir(folder) as listing:
                    children = list(listing)
            except OSError:
                continue  # not readable by planloop: not by a command either
            for entry in children:
                entries += 1
                if entries > SEARCH_ENTRIES or time.monotonic() > deadline:
                    self.cut_short = (
                        f"more than {SEARCH_ENTRIES} entries"
                        if entries > SEARCH_ENTRIES
                        else f"{SEARCH_SECONDS:.0f} s"
                    )
                    return
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if depth + 1 < most and entry.name not in SKIPPED_FOLDERS:
                            pending.append((Path(entry.path), depth + 1, most))
                    elif entry.is_file(follow_symlinks=False):
                        if self.files_read >= SEARCH_FILES:
                            self.cut_short = f"more than {SEARCH_FILES} files"
                            return
                        if entry.stat(follow_symlinks=False).st_size <= MAX_FILE_BYTES:
                            self.files_read += 1
                            self.look_at(Path(entry.path), longest)
                except OSError:
                    continue
                if len(self.found) >= MAX_FOUND:
                    self.cut_short = f"{MAX_FOUND} files hold the key"
                    return

    def skips(self, folder: Path) -> bool:
        # No link is followed from a root, and the roots are resolved: `folder` is real.
        return any(folder == other or folder.is_relative_to(other) for other in self.skipped)

    def look_at(self, path: Path, longest: int) -> None:
        """Notes `path` when it holds the key. Not a FIFO or device: only regular files come
        here, opened without blocking and checked again once open."""
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return
            data = os.read(fd, MAX_FILE_BYTES + longest)
        finally:
            os.close(fd)
        if any(secret in data for secret in self.secrets):
            self.found.append(path)


_searches: dict[tuple, KeyCopySearch] = {}
_lock = threading.Lock()


def search_roots(workspace: Path, home: Path) -> tuple[tuple[Path, int], ...]:
    """The folders to search, each with its depth: the home folder, and the two folders above
    the workspace. Not /tmp (the sandbox's own is private) nor a system folder nor `/`."""
    candidates = [(home, SEARCH_DEPTH)]
    candidates += [(folder, SIBLING_DEPTH) for folder in list(workspace.parents)[:2]]
    roots: dict[Path, int] = {}
    for folder, depth in candidates:
        real = Path(os.path.realpath(folder))
        if len(real.parts) <= 1 or any(real.is_relative_to(s) for s in SYSTEM_FOLDERS):
            continue
        roots[real] = max(depth, roots.get(real, 0))
    return tuple(roots.items())


def key_copy_search(workspace: Path, hidden: list[Path]) -> KeyCopySearch | None:
    """The search for copies of the key around `workspace`, started now unless one for the same
    key and places was started already in this run; None when there is no key to look for.
    `hidden`: what the sandbox hides already, not searched."""
    secrets = tuple(sorted({secret for secret, _ in secret_encodings()}))
    if not secrets:
        return None
    root = Path(os.path.realpath(workspace))
    roots = search_roots(root, Path.home())
    skipped = (root, *(Path(os.path.realpath(path)) for path in hidden), *SYSTEM_FOLDERS)
    key = (secrets, roots)  # the workspace counts only through the roots: one search a run
    with _lock:
        search = _searches.get(key)
        if search is None:
            search = KeyCopySearch(roots, skipped, secrets)
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
