"""What Tab offers at the prompt, and the nearest command to a mistyped one.

    /to<Tab>         ──> /todos                  (the names in SLASH_COMMANDS)
    read @src/ma<Tab> ──> read @src/main.py       (paths in the workspace)

Paths are listed one folder at a time, relative to the workspace, the way a shell completes
them: no folder outside the workspace is listed (`..`, an absolute path, or a link that leads
out), `.git` never, names that start with a dot only when the typed part does, and at most
PATH_CANDIDATES_MAX names. File names are workspace text: one holding a control or bidi
character, or a space, is left out rather than put into the prompt.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from cli.sanitize import visible

PATH_CANDIDATES_MAX = 50


def path_candidates(workspace: Path, typed: str) -> list[str]:
    """Workspace paths that complete `typed` (a folder ends with "/"), sorted, at most 50."""
    folder_part, _, name_part = typed.rpartition("/")
    if typed.startswith("/") or ".." in Path(folder_part).parts:
        return []
    root = workspace.resolve()
    folder = (root / folder_part).resolve()  # a link inside the workspace may be followed...
    if folder != root and root not in folder.parents:
        return []  # ...but never one that leads out of it
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    prefix = f"{folder_part}/" if folder_part else ""
    found = []
    for entry in entries:
        if not entry.name.startswith(name_part) or not shown_name(entry.name, name_part):
            continue
        is_folder = entry.is_dir(follow_symlinks=False) or links_to_folder_inside(entry, root)
        found.append(f"{prefix}{entry.name}{'/' if is_folder else ''}")
        if len(found) == PATH_CANDIDATES_MAX:
            break
    return found


def shown_name(name: str, typed: str) -> bool:
    """Whether a name may be offered: no .git, dot names only when asked for, plain text."""
    if name == ".git" or (name.startswith(".") and not typed.startswith(".")):
        return False
    return visible(name) == name and not any(char.isspace() for char in name)


def links_to_folder_inside(entry: os.DirEntry, root: Path) -> bool:
    """A link to a folder completes with "/" only when that folder is in the workspace."""
    if not entry.is_symlink():
        return False
    target = Path(entry.path).resolve()
    return target.is_dir() and (target == root or root in target.parents)


def nearest_command(name: str, commands: Iterable[str]) -> str | None:
    """The command a mistyped name most likely meant (`/todo` -> `/todos`), or None."""
    commands = list(commands)
    starting = [command for command in commands if command.startswith(name)]
    if len(starting) == 1:
        return starting[0]
    close = difflib.get_close_matches(name, commands, n=1, cutoff=0.6)
    return close[0] if close else None


def make_completer(workspace: Path, commands: Iterable[str]) -> Any:
    """prompt_toolkit's completer for the prompt: slash commands, then `@path` mentions."""
    from prompt_toolkit.completion import Completer, Completion

    names = list(commands)

    class PromptCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterator[Any]:
            before = document.text_before_cursor
            if before.startswith("/") and not any(char.isspace() for char in before):
                for name in names:
                    if name.startswith(before):
                        yield Completion(name, start_position=-len(before))
                return
            word = before.split()[-1] if before and not before[-1].isspace() else ""
            if word.startswith("@"):
                typed = word[1:]
                for path in path_candidates(workspace, typed):
                    name = path.rstrip("/").rpartition("/")[2]  # the menu shows names only
                    shown = f"{name}/" if path.endswith("/") else name
                    yield Completion(path, start_position=-len(typed), display=shown)

    return PromptCompleter()
