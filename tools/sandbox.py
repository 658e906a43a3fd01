"""Keeping file tools inside the workspace.

Every path the model gives a file tool goes through `safe_path`, which turns it into an absolute
path and refuses it unless it lies inside the workspace. Symlinks are followed before the check,
so a link inside the workspace that points elsewhere cannot be used to read or write outside it.

This guards the file tools only; the bash tool runs arbitrary commands and is not sandboxed.
"""

from pathlib import Path

from tools.base import ToolError


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
    except (OSError, RuntimeError) as exc:
        # A symlink loop, for example (RuntimeError before Python 3.13, OSError after).
        raise ToolError(f"The path {path!r} cannot be resolved: {exc}.") from exc

    if not resolved.is_relative_to(root):
        raise ToolError(
            f"The path {path!r} escapes the workspace {root} (it resolves to {resolved}). "
            "Paths must be relative to the workspace and stay inside it."
        )
    return resolved
