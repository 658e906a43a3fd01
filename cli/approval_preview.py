"""What a protected write would change, shown in its approval box before anyone says yes.

    write_file, the file exists   -> the diff of the file now and the content sent
    write_file, a new file        -> the content sent, as added lines
    edit_file                     -> the diff of the file now and the file with the edit made
    any other writing tool        -> nothing more: only that tool knows what it will write

All of it is the model's text, so it is shown like any subject of a question (cli/render.py):
made visible (cli/sanitize.py), and when it is long, folded to its head and tail until `v` has
shown all of it. The file is read the way the diffs after an edit read it (cli/diffs.py: inside
the workspace, bounded); a file too large or binary to read is said, not shown. The API key is
shown as [redacted], in the diff as in read_file's output.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text

from cli.diffs import SNAPSHOT_LIMIT_BYTES, STYLES, diff_lines, redacted, snapshot
from cli.sanitize import lines_as_run, shown_exactly
from tools.textio import match_file_newlines

FOLDED_HEAD, FOLDED_TAIL = 12, 6  # lines of a long preview shown until `v` shows all


@dataclass
class ChangePreview:
    """A title ("new file, 3 lines") and the lines under it: '+', '-', '@@' or ' ' diff lines."""

    title: str
    lines: list[str]


def proposed_change(workspace: Path, call: dict | None) -> ChangePreview | None:
    """What `call` (a write_file or edit_file call) would do to its file, or None."""
    if not isinstance(call, dict) or not isinstance(call.get("input"), dict):
        return None
    args, name = call["input"], call.get("name")
    path = args.get("path")
    if name not in ("write_file", "edit_file") or not isinstance(path, str):
        return None
    before = snapshot(workspace, path)
    exists = os.path.lexists(workspace / path)
    if name == "write_file":
        content = args.get("content")
        if not isinstance(content, str):
            return None
        return written(before, exists, content)
    return edited(before, args)


def written(before: str | None, exists: bool, content: str) -> ChangePreview:
    added = redacted(["+" + line for line in lines_as_run(content)])
    count = f"{len(added)} line{'' if len(added) == 1 else 's'}"
    if not exists:
        return ChangePreview(f"new file, {count}:", added)
    if before is None or len(content.encode("utf-8", "replace")) > SNAPSHOT_LIMIT_BYTES:
        return ChangePreview(
            f"replaces a file too large or binary to compare; the new content, {count}:", added
        )
    lines = diff_lines(before, content)
    return ChangePreview("the change:" if lines else "no change: the content is the same", lines)


def edited(before: str | None, args: dict) -> ChangePreview | None:
    old_text, new_text = args.get("old_text"), args.get("new_text")
    if before is None or not isinstance(old_text, str) or not isinstance(new_text, str):
        return None  # the tool reports a missing file or a bad call itself
    if not old_text:
        return None
    old, new = match_file_newlines(before, old_text, new_text)
    count = before.count(old)
    if count == 0:
        return ChangePreview("old_text is not in the file now: the edit will fail", [])
    if count > 1 and not args.get("replace_all"):
        return ChangePreview(f"old_text is in the file {count} times: the edit will fail", [])
    after = before.replace(old, new) if args.get("replace_all") else before.replace(old, new, 1)
    return ChangePreview("the change:", diff_lines(before, after))


def is_long_preview(preview: ChangePreview | None, max_lines: int, max_chars: int) -> bool:
    if preview is None:
        return False
    lines = preview.lines
    return len(lines) > max_lines or any(len(line) > max_chars for line in lines)


def preview_text(preview: ChangePreview, *, folded: bool, max_chars: int) -> Text:
    """The preview coloured as a diff; folded: its head and tail, each line cut to max_chars."""
    lines = preview.lines
    if folded and len(lines) > FOLDED_HEAD + FOLDED_TAIL:
        hidden = len(lines) - FOLDED_HEAD - FOLDED_TAIL
        lines = [
            *lines[:FOLDED_HEAD],
            f"… {hidden} more lines: type v to see them …",
            *lines[-FOLDED_TAIL:],
        ]
    shown = Text(shown_exactly(preview.title), style="dim")
    for line in lines:
        if folded and len(line) > max_chars:
            line = f"{line[:max_chars]}… ({len(line) - max_chars:,} more characters)"
        # (Combining marks stay: a file's text in Hindi or Vietnamese is made of them.)
        shown.append("\n" + shown_exactly(line, marks=False), style=STYLES.get(line[:1], ""))
    return shown
