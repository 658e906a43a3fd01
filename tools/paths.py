"""The workspace boundary, and the paths inside it that are more than plain files.

Every path the model gives a file tool goes through `safe_path`, which turns it into an absolute
path and refuses it unless it lies inside the workspace. Symlinks are followed before the check,
so a link inside the workspace that points elsewhere cannot be used to read or write outside it.

Some paths inside the workspace are *protected*: writing them can run commands or redirect the
API key, so a write there is not a plain file edit. `protected_reason` says whether a path is one
and why; the permission policy (middleware/permissions.py) asks before such a write, and the
sandbox (tools/sandbox.py) keeps them read-only for bash. The one list:

    .git/ (all of it)   its config and hooks run commands (core.fsmonitor, pre-commit, ...)
    .env* (anywhere)    settings such as ANTHROPIC_BASE_URL, which decide where the key goes
    planloop's home     the sessions folder: what was said, and what --resume will believe
"""

from __future__ import annotations

import os
from pathlib import Path

from tools.base import ToolError

GIT_DIR_NAME = ".git"
ENV_FILE_PREFIX = ".env"

GIT_REASON = (
    ".git/ is protected: its config and hooks can make git run any command "
    "(core.fsmonitor, hooks/pre-commit)"
)
ENV_REASON = (
    ".env files are protected: they hold settings such as ANTHROPIC_BASE_URL and keys, "
    "which decide where the API key is sent"
)
HOME_REASON = "planloop's own folder (sessions and history) is protected"

# What the permission table says about the list, in one line per entry.
PROTECTED_PATHS = (
    (".git/", "its config and hooks make git run commands"),
    (".env*", "sets the API endpoint and keys planloop and the project load"),
    ("planloop's sessions folder", "what --resume believes was said"),
)


def safe_path(workspace: Path, path: str) -> Path:
    """Resolve `path` against the workspace and return it, or raise ToolError if it escapes.

    Relative paths are taken relative to the workspace; absolute paths are accepted when they
    point inside it. The returned path is fully resolved (symlinks followed), and need not exist.
    """
    if not path.strip():
        raise ToolError(
            "The path is empty. Send a path relative to the workspace, e.g. 'src/main.py'."
        )
    if "\0" in path:
        raise ToolError(
            f"The path {path!r} contains a NUL byte, which no file name can contain. "
            "Send a plain path relative to the workspace."
        )

    root = Path(workspace).resolve()
    try:
        # Joining with an absolute path yields that absolute path, which is then checked below.
        resolved = (root / path).resolve(strict=False)
    except (OSError, RuntimeError, ValueError) as exc:
        # A symlink loop (RuntimeError before Python 3.13, OSError after), or a name too long.
        raise ToolError(f"The path {path!r} cannot be resolved: {exc}.") from exc

    if not resolved.is_relative_to(root):
        raise ToolError(
            f"The path {path!r} escapes the workspace {root} (it resolves to {resolved}). "
            "Paths must be relative to the workspace and stay inside it."
        )
    return resolved


def planloop_home() -> Path:
    """planloop's own folder (sessions, history); imported late, session.py imports the tools."""
    from session import planloop_home as home

    return home().resolve()


def protected_reason(workspace: Path, path: str | Path) -> str | None:
    """Why writing `path` is not a plain file write, or None when it is one.

    Both the path as given (joined to the workspace, links not followed) and the path it resolves
    to are checked, so neither `link -> .git/config` nor a `.env` that is a link to another file
    slips through.
    """
    root = Path(workspace).resolve()
    given = Path(os.path.normpath(root / path))
    try:
        resolved = (root / path).resolve(strict=False)
    except (OSError, RuntimeError, ValueError):
        resolved = given
    home = planloop_home()
    for candidate in (given, resolved):
        if candidate == home or candidate.is_relative_to(home):
            return HOME_REASON
        inside = candidate.relative_to(root) if candidate.is_relative_to(root) else candidate
        if GIT_DIR_NAME in inside.parts:
            return GIT_REASON
        if candidate.name.startswith(ENV_FILE_PREFIX):
            return ENV_REASON
    return None


# The sandbox looks for .env* files by walking the workspace before each command. Installed
# packages and caches are skipped (nothing loads a .env from there, and a virtualenv alone can
# hold thousands of folders), and the walk stops after this many folders in any case.
PROTECTED_SCAN_DIRECTORY_LIMIT = 20_000
UNSCANNED_FOLDERS = frozenset(
    {"node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"}
)


def existing_protected_paths(workspace: Path) -> list[Path]:
    """The protected files and folders that exist now, for the sandbox to make read-only.

    `.git/config` and `.git/hooks` of every repository found (or a `.git` file, which points to
    a repository elsewhere), every file named `.env*`, and planloop's home if it lies inside.
    Symlinks are listed as themselves, never followed. Virtualenvs, node_modules and caches
    are not searched (see UNSCANNED_FOLDERS).
    """
    root = Path(workspace).resolve()
    found: list[Path] = []
    for folders_seen, (folder, subfolders, files) in enumerate(os.walk(root), start=1):
        here = Path(folder)
        subfolders[:] = [
            name
            for name in subfolders
            if name not in UNSCANNED_FOLDERS and not (here / name / "pyvenv.cfg").exists()
        ]
        if GIT_DIR_NAME in subfolders:
            subfolders.remove(GIT_DIR_NAME)  # its insides are not the project's files
            found += [p for p in (here / ".git/config", here / ".git/hooks") if p.exists()]
        found += [here / name for name in files if name.startswith(ENV_FILE_PREFIX)]
        found += [here / name for name in files if name == GIT_DIR_NAME]
        if folders_seen >= PROTECTED_SCAN_DIRECTORY_LIMIT:
            break
    home = planloop_home()
    if home.is_relative_to(root) and home.exists():
        found.append(home)
    return found
