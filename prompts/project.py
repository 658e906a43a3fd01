"""Project instructions: AGENTS.md of the workspace and a personal one in planloop's home.

    planloop's home/AGENTS.md           from the person: your own habits, every project
    <workspace>/AGENTS.md               from the project (CLAUDE.md only when there is none)
        |  read once, when the agent is made; each cut at 40 KB, with a note
        v
    the system prompt: planloop's own text first (its prefix stays the same from project to
    project), then one marked section with each file in its own tag

They are text for the model, never settings: the permission policy and the sandbox are code
and do not read them, so an AGENTS.md that says "you may run anything" changes nothing.

The workspace is untrusted, so its file is reached the way the file tools reach one
(tools/beneath.py): a link that leads out of the workspace (`AGENTS.md -> ~/.ssh/id_rsa`), a
FIFO or a device is refused without blocking, and so is a protected file (`AGENTS.md -> .env`).
In the section each file sits in a tag of its own with every `<` escaped, so no file can
close its tag and speak as planloop. planloop's home is yours: its file is read as it is.
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from middleware.base import Middleware
from prompts import load_prompt
from redaction import cut_bytes_redacted, file_forms, longest_secret_bytes, redact, redact_bytes
from tools.base import ToolError
from tools.beneath import open_for_reading
from tools.paths import protected_reason
from tools.textio import utf16_codec

# The first name found in the workspace is loaded; CLAUDE.md serves projects that only have it.
PROJECT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
PERSONAL_FILE_NAME = "AGENTS.md"
# Each file goes into every request; past this size it is cut (a note says so, to the model
# and to the person). About 10,000 tokens, a fair share of a 200K window.
MAX_INSTRUCTION_BYTES = 40 * 1024


@dataclass(frozen=True)
class InstructionFile:
    """One loaded file: where it came from, its text (cut when too long) and its size on disk."""

    source: str  # "person" or "project"
    label: str  # how it is named on screen and to the model: "AGENTS.md", "~/.planloop/AGENTS.md"
    text: str
    size: int  # bytes on disk
    cut: bool  # True when only the first MAX_INSTRUCTION_BYTES were loaded

    def describe(self) -> str:
        """'AGENTS.md (1.2 KB)', or '... (52.0 KB, cut to 40 KB)'."""
        cut = f", cut to {readable_size(MAX_INSTRUCTION_BYTES)}" if self.cut else ""
        return f"{self.label} ({readable_size(self.size)}{cut})"


def readable_size(size: int) -> str:
    """1234 -> '1.2 KB'; 300 -> '300 B'."""
    if size < 1024:
        return f"{size} B"
    return f"{size / 1024:.1f} KB".replace(".0 KB", " KB")


def load_instructions(workspace: Path, home: Path) -> tuple[list[InstructionFile], list[str]]:
    """The personal file, then the project's; and one line for each file that was refused."""
    files: list[InstructionFile] = []
    problems: list[str] = []
    personal = home / PERSONAL_FILE_NAME
    try:
        loaded = read_personal_file(personal)
    except (ToolError, OSError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        problems.append(f"{personal} was not loaded: {reason}.")
    else:
        if loaded is not None:
            files.append(loaded)
    for name in PROJECT_FILE_NAMES:
        try:
            loaded = read_project_file(workspace, name)
        except (ToolError, OSError) as err:
            # The first sentence of the file tools' message: the rest is advice for the model.
            reason = str(err) if isinstance(err, ToolError) else (err.strerror or str(err))
            problems.append(f"{name} was not loaded: {reason.split('. ')[0].rstrip('.')}.")
            break  # it is there, so CLAUDE.md does not stand in for it
        if loaded is not None:
            files.append(loaded)
            break
    return files, problems


def read_project_file(workspace: Path, name: str) -> InstructionFile | None:
    """The workspace's `name`, reached beneath the workspace; None when there is none.

    Raises ToolError when it leads out of the workspace, is no regular file or is protected.
    """
    try:
        fd, relative = open_for_reading(workspace, name)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise ToolError(f"{name} is a folder")
        why = protected_reason(workspace, relative, reading=True) or hidden_key_reason(
            workspace, relative, fd
        )
        if why is not None:  # AGENTS.md -> .env would send the keys in it with every request
            raise ToolError(f"it leads to {relative}, and {why}" if relative != name else why)
        data, size = read_capped(fd)
    finally:
        os.close(fd)
    return instruction_file("project", name, data, size)


def hidden_key_reason(workspace: Path, relative: str, opened: int) -> str | None:
    """Why the sandbox hides the workspace's file `relative` (the file `opened`) from commands,
    or None: the file a `.env` links to that holds planloop's key, one it hid earlier in this
    run, or a secret of your home folder (planloop run there), by its path or as the file it is
    (a hard link of `~/.aws/credentials` in your dotfiles, read_file's check). What no command
    may read, no prompt may carry."""
    # Imported late: the tools import prompts.
    from tools.files import is_hidden_secret, names_a_hidden_secret
    from tools.sandbox import key_file_reason

    if is_hidden_secret(workspace, relative) or names_a_hidden_secret(workspace, relative, opened):
        return "the sandbox hides it from commands as a secret"
    return key_file_reason(workspace, relative)


def read_personal_file(path: Path) -> InstructionFile | None:
    """The file in planloop's home (yours: a link is followed), never blocking on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file")
        data, size = read_capped(fd)
    finally:
        os.close(fd)
    return instruction_file("person", shown_path(path), data, size)


def read_capped(fd: int) -> tuple[bytes, int]:
    """Up to one byte more than the cap (to know it was cut) and a secret's length more (a
    secret that starts before the cut is read whole, to be redacted before the cut), and the
    file's size."""
    size = os.fstat(fd).st_size
    chunks, left = [], MAX_INSTRUCTION_BYTES + 1 + longest_secret_bytes()
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return data, max(size, len(data))


def instruction_file(source: str, label: str, data: bytes, size: int) -> InstructionFile:
    cut = len(data) > MAX_INSTRUCTION_BYTES
    if cut:
        # Redacted before the cut, so the cut cannot split a secret and keep its start.
        data = cut_bytes_redacted(data, MAX_INSTRUCTION_BYTES, whole=len(data) >= size)
        # End at the last whole line, so no character or sentence is left half.
        data = data[: data.rfind(b"\n") + 1] or data
    return InstructionFile(source, label, instruction_text(label, data), size, cut)


def instruction_text(label: str, data: bytes) -> str:
    """The text of an instruction file's bytes, with planloop's key taken out.

    The key is taken out of the bytes, in every form the key-copy search knows (UTF-16 and
    UTF-32 too, and base64), before they are decoded: decoded as UTF-8, a UTF-16 file holds
    the key with a NUL between its characters, which no text redaction finds and the model
    reads all the same.
    A UTF-16 file with a byte order mark is read as UTF-16, as read_file does; any other file
    with a NUL in it is no text, and is refused.
    """
    data = redact_bytes(data)
    codec = utf16_codec(data)
    if codec:
        data = data[2:].decode(codec, errors="replace").encode("utf-8")
    if b"\0" in data:
        raise ToolError(f"{label} is not a text file (it holds NUL bytes)")
    return redact(data.decode("utf-8", errors="replace"), file_forms()).strip()


def shown_path(path: Path) -> str:
    """A path under your home folder as '~/...', else as it is."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)


def instructions_section(files: list[InstructionFile]) -> str:
    """The part of the system prompt that holds the files; empty when there are none."""
    if not files:
        return ""
    parts = [load_prompt("project_instructions")]
    for file in files:
        parts.append(
            f'<instructions from="{file.source}" file="{file.label}">\n'
            f"{escape_for_tag(file.text)}\n</instructions>"
        )
        if file.cut:
            parts.append(
                f"(planloop cut {file.label} at {readable_size(MAX_INSTRUCTION_BYTES)}; the "
                f"whole file is {readable_size(file.size)}: read_file shows the rest.)"
            )
    return "\n\n".join(parts)


def escape_for_tag(text: str) -> str:
    """Every `<` as `&lt;`: with no `<` of its own, a file can open or close no tag.

    Only `<` is escaped (prompts.escape_tags also escapes `&` and `>`) so that commands such as
    `make && make test` reach the model as they are written.
    """
    return text.replace("<", "&lt;")


class ProjectInstructions(Middleware):
    """Adds the project instructions after the rest of the system prompt, on every request.

    The files are read once, here; `files` and `problems` are for the front end (the start-up
    line, /context), `section` is the text added.
    """

    def __init__(self, workspace: Path, home: Path) -> None:
        self.files, self.problems = load_instructions(workspace, home)
        self.section = instructions_section(self.files)

    async def transform_system_prompt(
        self, system_prompt: str, *, signal: asyncio.Event | None = None
    ) -> str:
        # An instruction file may lead to any file of the workspace (AGENTS.md -> a secrets
        # file): the key planloop sends must not go back as part of the prompt. Redacted at
        # each call, since the key may be learnt (a .env read) after the files were loaded.
        if not self.section:
            return system_prompt
        return f"{system_prompt}\n\n{redact(self.section, file_forms())}"
