"""Workspaces on a file system that ignores letter case (WSL's /mnt/c, exFAT, vfat, a FUSE mount
such as ciopfs), where `.GIT/hooks` is `.git/hooks` and `sub/.ENV` is `sub/.env`.

planloop tells protected paths by their names, spelled as they are on disk: a write to
`.VSCODE/tasks.json` is a write to `.vscode/tasks.json` there, and a read-only bind holds one
spelling only. So the file tools check a path as the disk spells it (`as_on_disk`), and
sandboxed commands ask before they run in such a workspace (tools/sandbox.py `_cannot_confine`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path

# Entries of the workspace looked at for one whose name has letters, when its own name has none.
ENTRIES_TRIED = 50


def ignores_case(root: Path) -> bool:
    """Whether `root`'s file system finds a name spelled in another case: one of its first
    entries, or the workspace itself (whose folder may lie on another file system), by its
    name with the case of each letter swapped. Where case counts, only a second name for the
    same file could answer so (`ln README rEADME`): then commands ask, which is safe."""
    candidates = [root]
    with contextlib.suppress(OSError), os.scandir(root) as entries:
        candidates += [Path(entry.path) for entry in itertools.islice(entries, ENTRIES_TRIED)]
    for path in candidates:
        other = path.name.swapcase()
        if other == path.name:
            continue  # no letters in it: says nothing
        try:
            mine, theirs = os.lstat(path), os.lstat(path.with_name(other))
        except OSError:
            continue  # not found: case counts, at least where this one lies
        if (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino):
            return True
    return False


def as_on_disk(root: Path, relative: str) -> list[str]:
    """`relative` (beneath `root`) as the disk spells it, for a workspace that ignores case:
    each part that names an entry in another case is spelled as that entry is. From the first
    part that names nothing yet, the rest is given as written and in lower case too: either
    may be a protected name (`.ENV` is made as `.ENV`, and found as `.env`; `.VSCODE/tasks.json`
    with no `.vscode` yet makes the folder that VS Code reads as `.vscode`)."""
    folder, parts = root, []
    names = Path(relative).parts
    for position, part in enumerate(names):
        try:
            listed = os.listdir(folder)
        except OSError:
            listed = []
        if part not in listed:
            part = next((name for name in listed if name.casefold() == part.casefold()), part)
        if part not in listed:
            rest = names[position:]
            return [
                os.path.join(*parts, *rest),
                os.path.join(*parts, *(name.lower() for name in rest)),
            ]
        parts.append(part)
        folder = folder / part
    return [os.path.join(*parts)] if parts else [relative]
