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

from cli.sanitize import lines_as_run, visible
from redaction import redact, secret_values
from tools.base import ToolError
from tools.beneath import open_for_reading

SNAPSHOT_LIMIT_BYTES = 256 * 1024
HEAD_LINES, TAIL_LINES = 16, 8  # a longer diff keeps its head and tail
CONTEXT_LINES = 2
STYLES = {"+": "green", "-": "red", "@": "cyan"}


def snapshot(workspace: Path, path: object) -> str | None:
    """The text of `path` (relative to the workspace), or None if it is not a small text file."""
    if not isinstance(path, str) or not path or "\0" in path:
        return None
    try:
        # Opened the way the file tools open it (tools/beneath.py): never outside the workspace,
        # never blocking on a pipe swapped in at the path, judged on what was opened.
        fd, _ = open_for_reading(workspace, path)
    except (OSError, ValueError, ToolError):
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > SNAPSHOT_LIMIT_BYTES:
            return None
        data = file.read(SNAPSHOT_LIMIT_BYTES + 1)
    if b"\0" in data:  # binary, or UTF-16: not worth a line diff
        return None
    return data.decode("utf-8", errors="replace")


def diff_lines(before: str, after: str) -> list[str]:
    """The unified diff hunks of two texts, without the file header lines, the API key
    removed (redaction.py): a diff is shown on the terminal, whose scrollback, logs and shared
    screens should no more hold the key than read_file's output does."""
    # Split at line feeds alone: a return or U+2028 in a line is shown in it, not lost.
    diff = difflib.unified_diff(
        lines_as_run(before), lines_as_run(after), lineterm="", n=CONTEXT_LINES
    )
    return redacted([line for line in diff if not line.startswith(("---", "+++"))])


def redacted(lines: list[str]) -> list[str]:
    """`lines` with every secret replaced by [redacted] (a line holds the whole key or none:
    the key has no line break)."""
    secrets = secret_values()
    return [redact(line, secrets) for line in lines]


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
