"""Show what an edit changed: a short coloured unified diff of a file before and after.

The file tools stay as they are and tell the model only "Replaced 1 occurrence". The terminal
reads the file itself: a snapshot when the call starts, another when it ends, and the diff of
the two. Snapshots are bounded (a regular text file inside the workspace, at most
SNAPSHOT_LIMIT_BYTES), so a huge or special file costs nothing.
"""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

from rich.text import Text

from cli.sanitize import visible

SNAPSHOT_LIMIT_BYTES = 256 * 1024
HEAD_LINES, TAIL_LINES = 16, 8  # a longer diff keeps its head and tail
CONTEXT_LINES = 2
STYLES = {"+": "green", "-": "red", "@": "cyan"}


def snapshot(workspace: Path, path: object) -> str | None:
    """The text of `path` (relative to the workspace), or None if it is not a small text file."""
    if not isinstance(path, str) or not path or "\0" in path:
        return None
    try:
        target = Path(os.path.realpath(workspace / path))
        if not target.is_relative_to(workspace):
            return None
        info = os.stat(target)
        if not stat.S_ISREG(info.st_mode) or info.st_size > SNAPSHOT_LIMIT_BYTES:
            return None
        data = target.read_bytes()
    except (OSError, ValueError):
        return None
    if b"\0" in data:  # binary, or UTF-16: not worth a line diff
        return None
    return data.decode("utf-8", errors="replace")


def diff_lines(before: str, after: str) -> list[str]:
    """The unified diff hunks of two texts, without the file header lines."""
    diff = difflib.unified_diff(
        before.splitlines(), after.splitlines(), lineterm="", n=CONTEXT_LINES
    )
    return [line for line in diff if not line.startswith(("---", "+++"))]


def render_diff(lines: list[str]) -> Text:
    """The diff coloured line by line, with the middle cut out when it is long."""
    if len(lines) > HEAD_LINES + TAIL_LINES:
        cut = len(lines) - HEAD_LINES - TAIL_LINES
        lines = [*lines[:HEAD_LINES], f"… {cut} more diff lines …", *lines[-TAIL_LINES:]]
    shown = Text(overflow="ellipsis", no_wrap=True)  # long lines end in …, never wrap
    for line in lines:
        shown.append(visible(line) + "\n", style=STYLES.get(line[:1], "dim"))
    shown.rstrip()
    return shown
