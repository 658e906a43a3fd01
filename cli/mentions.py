"""`@path` in a prompt attaches that file: a window of it, as read_file shows it.

    why does @src/app.py fail?   ->   why does @src/app.py fail?

                                      <attached-file path="src/app.py">
                                           1	import os
                                           ...
                                      </attached-file>

What a mention is: `@` at the start of the prompt or after a space or an opening bracket, then a
path (`@"a name with spaces"` in quotes). So `ada@example.com` and `x@y` are not mentions, and
neither is anything inside backticks. A trailing `.`, `,`, `:` or `)` ends the sentence, not the
path. A word with no `/` or `.` in it (`@dataclass`, `@ada`) is a mention only when something
of that name exists in the workspace; otherwise it is sent as typed.

The window is read_file's own (tools/files.py): the same numbered lines and limits, reached the
same race-free way (tools/beneath.py). Each line starts with its number, so nothing in the file
can close the tag. A mention that cannot be attached stops the whole prompt before anything is
sent: a missing file, a path outside the workspace, a protected one (`.env*`, `.git/`,
planloop's home), a folder, a pipe, a binary file.

The stale-write guard counts an attached file as read, as it counts a read_file call, so the
model may edit it without reading it again. `mention_candidates` lists the paths that complete
a partial mention, for the prompt's Tab completion.
"""

from __future__ import annotations

import contextvars
import html
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cli.flags import UsageError
from middleware.stale_writes import StaleWriteGuard
from tools.base import ToolError
from tools.beneath import Fingerprint
from tools.file_call import FileCall, file_call
from tools.files import read_file
from tools.paths import ENV_FILE_PREFIX, GIT_DIR_NAME, protected_reason, safe_path

if TYPE_CHECKING:
    from agent import Agent
    from cli.render import TerminalUI

# `@` that no letter, digit or other mark touches on its left, then a quoted or a bare path.
MENTION = re.compile(r'(?<![^\s(\[{])@(?:"([^"\n]+)"|([^\s"`]+))')
CODE_SPAN = re.compile(r"`+[^`]*`+")  # `inline code` and ```blocks```: sent as typed
TRAILING_PUNCTUATION = ".,;:!?)]}'"
NUMBERED_LINE = re.compile(r"^ *\d+\t")
MAX_MENTIONS = 20  # files attached to one prompt
ATTACHMENT_TAG = (
    "attached-file"  # each file follows the prompt in one; the resume banner cuts there
)
MAX_CANDIDATES = 100  # paths offered to complete one mention


class MentionError(UsageError):
    """A mention that cannot be attached: the prompt is not sent (headless: exit 2)."""


@dataclass(frozen=True)
class Attachment:
    """One attached file: the path as typed, read_file's window, and what the model now knows."""

    path: str
    window: str
    seen: dict[str, Fingerprint]  # canonical path -> fingerprint, for the stale-write guard

    def block(self) -> str:
        path = html.escape(self.path)
        return f'<{ATTACHMENT_TAG} path="{path}">\n{self.window}\n</{ATTACHMENT_TAG}>'

    def describe(self) -> str:
        """'src/app.py (40 lines)' or 'big.log (lines 1-2000; more follow)'."""
        lines = sum(1 for line in self.window.splitlines() if NUMBERED_LINE.match(line))
        if self.window.rstrip().endswith("to read more]"):
            return f"{self.path} (lines 1-{lines}; more follow)"
        return f"{self.path} ({lines} line{'' if lines == 1 else 's'})"


def find_mentions(prompt: str) -> list[str]:
    """The paths mentioned in `prompt`, in order, each once (code spans left out)."""
    found: list[str] = []
    for match in MENTION.finditer(CODE_SPAN.sub(" ", prompt)):
        quoted, bare = match.groups()
        path = quoted if quoted is not None else bare.rstrip(TRAILING_PUNCTUATION)
        if path and path not in found:
            found.append(path)
    return found


def attach_mentions(workspace: Path, prompt: str) -> tuple[str, list[Attachment]]:
    """The prompt with every mentioned file attached after it; MentionError if one cannot be."""
    attachments = []
    for path in find_mentions(prompt):
        looks_like_a_path = "/" in path or "." in path
        if not looks_like_a_path and not os.path.lexists(workspace / path):
            continue  # @dataclass, @ada: a word, not a file
        attachments.append(attach(workspace, path))
        if len(attachments) > MAX_MENTIONS:
            raise MentionError(f"at most {MAX_MENTIONS} files can be attached to one prompt.")
    if not attachments:
        return prompt, []
    return "\n\n".join([prompt, *(a.block() for a in attachments)]), attachments


def attach(workspace: Path, path: str) -> Attachment:
    """read_file's window of `path`, after the checks a mention must pass."""
    try:
        safe_path(workspace, path)
    except ToolError:
        raise MentionError(
            f"@{path} is outside the workspace {workspace}; nothing was sent."
        ) from None
    refused(workspace, path, path)
    # read_file notes what it opened (canonical path and fingerprint) in the call's FileCall,
    # as it does for the stale-write guard: the file actually read is checked again below, so
    # a link swapped in after the check above is caught.
    try:
        window, call = contextvars.copy_context().run(read_noting, workspace, path)
    except ToolError as err:
        reason = str(err).removeprefix("read_file: ").split(". ")[0].rstrip(".")
        raise MentionError(f"@{path}: {reason}; nothing was sent.") from None
    for canonical in call.touched:
        refused(workspace, path, canonical)
    if not NUMBERED_LINE.match(window) and window != "(empty file)":
        reason = window.split(";")[0].split(". ")[0]  # "This is a binary file (812 bytes)"
        raise MentionError(f"@{path}: {reason}; only text can be attached. Nothing was sent.")
    return Attachment(path, window, dict(call.touched))


def read_noting(workspace: Path, path: str) -> tuple[str, FileCall]:
    """read_file's window, and the FileCall in which it noted what it opened."""
    call = file_call("@mention")  # the current call of this (copied) context
    return read_file(workspace, path), call


def refused(workspace: Path, typed: str, path: str) -> None:
    """MentionError when `path` is protected: a mention must not send .env or .git/ content."""
    why = protected_reason(workspace, path, reading=True)
    if why is not None:
        raise MentionError(f"@{typed} cannot be attached: {why}. Nothing was sent.")


def remember_seen(agent: Agent, attachments: list[Attachment]) -> None:
    """Tell the stale-write guard that the model has now seen these files, as with read_file."""
    for middleware in agent.hooks.middlewares:
        if isinstance(middleware, StaleWriteGuard):
            for attachment in attachments:
                middleware.seen.update(attachment.seen)


def attach_to_prompt(agent: Agent, ui: TerminalUI, prompt: str) -> str:
    """The prompt to send, with its mentions attached; each attachment gets one dim line.

    Raises MentionError (nothing is to be sent) when a mention cannot be attached.
    """
    expanded, attachments = attach_mentions(agent.workspace, prompt)
    for attachment in attachments:
        ui.print_line(f"attached {attachment.describe()}", "dim")
    remember_seen(agent, attachments)
    return expanded


def mention_candidates(workspace: Path, partial: str) -> list[str]:
    """Paths that complete `partial` (what follows `@`), for Tab: folders end with '/'.

    Only entries inside the workspace; `.git` and `.env*` (which cannot be attached) are left
    out, and other dot entries unless `partial`'s last part starts with a dot.
    """
    folder, _, prefix = partial.rpartition("/")
    try:
        where = safe_path(workspace, folder or ".")
        entries = list(os.scandir(where))
    except (ToolError, OSError):
        return []
    candidates = []
    for entry in entries:
        name = entry.name
        hidden = name.startswith(".") and not prefix.startswith(".")
        never = name == GIT_DIR_NAME or name.startswith(ENV_FILE_PREFIX)
        if not name.startswith(prefix) or hidden or never:
            continue
        path = f"{folder}/{name}" if folder else name
        candidates.append(path + ("/" if entry.is_dir(follow_symlinks=False) else ""))
    return sorted(candidates)[:MAX_CANDIDATES]
