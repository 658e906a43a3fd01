"""Command rules kept for one folder in planloop's home, so an "always" can outlast a session.

    /permissions save 2
        --> <planloop home>/permissions/<end of the folder's path>-<hash>.json   (0600, in 0700)
            {"workspace": "/home/me/project", "commands": [["npm", "test"], ["git", "status"]]}
    the next start in that folder
        --> the rules are loaded, and /permissions lists them as saved

Only planloop's home holds them, a place only your own environment chooses (PLANLOOP_HOME):
nothing in the workspace is read, so a repository cannot bring its own rules. A file that is a
link, belongs to someone else, can be written by others, names another folder, or holds a rule
that an "always" could not have made (`bash`, `npm` alone, `a && b`) is not trusted: it is
ignored, and the start-up says why.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from middleware.command_prefix import is_valid_prefix

MAX_FILE_BYTES = 64 * 1024  # a few hundred rules; anything larger was not written here
FOLDER = "permissions"


def rules_file(workspace: Path) -> Path:
    """Where the saved rules of `workspace` live: named like its sessions folder."""
    from session import planloop_home, sessions_dir  # late: session.py imports the tools

    return planloop_home() / FOLDER / f"{sessions_dir(workspace).name}.json"


def load_saved_prefixes(workspace: Path) -> tuple[list[tuple[str, ...]], str]:
    """The saved command rules of `workspace`, and why some or all were ignored ('' if none)."""
    path = rules_file(workspace)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return [], ""
    except OSError as err:
        return [], f"{path} cannot be opened ({err.strerror or err}); no saved rules are used"
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
            return [], f"{path} is not a small regular file; no saved rules are used"
        if info.st_uid != os.geteuid() or info.st_mode & 0o022:
            return [], (
                f"{path} belongs to another user or others can write it; no saved rules are "
                "used (chmod 600 it, or delete it)"
            )
        data = file.read(MAX_FILE_BYTES + 1)
    try:
        saved = json.loads(data)
    except ValueError:
        return [], f"{path} is not valid JSON; no saved rules are used"
    if not isinstance(saved, dict) or saved.get("workspace") != str(workspace.resolve()):
        return [], f"{path} is not about this folder; no saved rules are used"
    commands = saved.get("commands")
    commands = commands if isinstance(commands, list) else []
    prefixes = [tuple(prefix) for prefix in commands if is_valid_prefix(prefix)]
    skipped = len(commands) - len(prefixes)
    problem = ""
    if skipped:
        problem = f"{skipped} rule(s) in {path} are not command prefixes and were ignored"
    return list(dict.fromkeys(prefixes)), problem


def write_saved_prefixes(workspace: Path, prefixes: list[tuple[str, ...]]) -> Path:
    """Replace the saved rules of `workspace` with `prefixes` (the file goes when none is left)."""
    from session import write_private_json

    path = rules_file(workspace)
    if not prefixes:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return path
    record = {"workspace": str(workspace.resolve()), "commands": [list(p) for p in prefixes]}
    write_private_json(path, record, ".rules-")
    return path
