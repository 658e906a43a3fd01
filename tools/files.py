"""The file tools: read_file, write_file and edit_file.

All three take a path relative to the workspace and pass it through `safe_path`, so they cannot
touch anything outside it. read_file shows numbered lines and reads only the window it shows, so
large files are cheap to look at. write_file and edit_file replace files atomically: a crash or
a full disk leaves either the old file or the new one, never a half-written mix.

edit_file writes a file back in the encoding it found: UTF-8 (stray invalid bytes kept as they
were), UTF-16 with its byte order mark, or Latin-1 for legacy 8-bit files.
"""

import codecs
import contextlib
import io
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

from tools.base import Tool, ToolError
from tools.paths import safe_path

# read_file shows at most this many lines per call.
DEFAULT_LINE_LIMIT = 2000
MAX_LINE_LIMIT = 2000
# Longer lines are cut, so one minified line cannot fill the model's context.
MAX_LINE_CHARS = 2000
# A UTF-8 character takes at most 4 bytes, so this many bytes always hold MAX_LINE_CHARS.
MAX_LINE_BYTES = MAX_LINE_CHARS * 4
# The whole read_file result stays under this many characters.
MAX_OUTPUT_CHARS = 100_000
# A NUL byte in this many leading bytes marks a file as binary.
BINARY_CHECK_BYTES = 8 * 1024
# Files are scanned for line breaks in chunks of this size.
SCAN_CHUNK_BYTES = 1024 * 1024
# When more lines remain after the window, count them only if the rest is at most this big.
COUNT_REMAINING_LIMIT_BYTES = 8 * 1024 * 1024
# A directory given to read_file or edit_file is listed, up to this many entries.
DIRECTORY_LISTING_LIMIT = 50
# read_file cannot find line breaks in UTF-16 by scanning bytes, so it decodes such a file
# whole; above this size it asks for a UTF-8 copy instead of filling memory.
MAX_UTF16_READ_BYTES = 8 * 1024 * 1024
# edit_file holds a file several times over (bytes, text, the edited text, bytes again), so
# above this size it refuses, before reading anything, and points to bash instead.
MAX_EDIT_BYTES = 10 * 1024 * 1024

LINE_NUMBER_PREFIX = re.compile(r"^ *\d+\t", re.MULTILINE)
NON_ASCII_BYTE = re.compile(rb"[\x80-\xff]")
# Decoding with errors="surrogateescape" turns each byte that is not valid UTF-8 into one
# character in this range, and encoding turns it back into the same byte.
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def read_file(workspace: Path, path: str, offset: int = 1, limit: int = DEFAULT_LINE_LIMIT) -> str:
    """Return lines offset .. offset+limit-1 of a text file, each as '{number:>6}\\t{line}'."""
    if offset < 1:
        raise ToolError(f"read_file: offset is a line number starting at 1, got {offset}.")
    if not 1 <= limit <= MAX_LINE_LIMIT:
        raise ToolError(f"read_file: limit must be from 1 to {MAX_LINE_LIMIT} lines, got {limit}.")
    target = _existing_file(workspace, path, "read_file")

    size = target.stat().st_size
    with open(target, "rb") as file:
        head = file.read(BINARY_CHECK_BYTES)
        utf16_codec = _utf16_codec(head)
        if utf16_codec:
            if size > MAX_UTF16_READ_BYTES:
                return (
                    f"This is a UTF-16 text file ({size} bytes), too large for read_file. "
                    f"Make a UTF-8 copy with bash (iconv -f UTF-16 -t UTF-8 {path} > copy.txt) "
                    "and read that."
                )
            # Transcoded to UTF-8, the file goes through the same line-by-line code as any other.
            file.seek(0)
            text = file.read()[2:].decode(utf16_codec, errors="replace")
            return _show_lines(io.BytesIO(text.encode("utf-8")), path, offset, limit)
        if b"\0" in head:
            return (
                f"This is a binary file ({size} bytes); read_file shows text only. "
                "Use bash (e.g. file, xxd | head) to inspect it."
            )
        return _show_lines(file, path, offset, limit)


def write_file(workspace: Path, path: str, content: str) -> str:
    """Create or overwrite a file with `content` (UTF-8), creating parent directories."""
    target = safe_path(workspace, path)
    if target.is_dir():
        raise ToolError(
            f"write_file: {path} is a directory. Send the path of a file, "
            f"e.g. '{path.rstrip('/')}/name.txt'."
        )
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"write_file: content cannot be written as UTF-8 ({exc.reason} at character "
            f"{exc.start}). Send plain text."
        ) from exc

    existed = target.exists()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, data)
    except (FileExistsError, NotADirectoryError) as exc:
        raise ToolError(
            f"write_file: cannot create {path}: part of its directory path is an existing file."
        ) from exc
    except OSError as exc:
        raise ToolError(f"write_file: cannot write {path}: {exc.strerror or exc}.") from exc

    line_count = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
    what_happened = "overwrote the previous content" if existed else "new file"
    return f"Wrote {len(data)} bytes ({line_count} lines) to {path} ({what_happened})."


def edit_file(
    workspace: Path, path: str, old_text: str, new_text: str, replace_all: bool = False
) -> str:
    """Replace `old_text` with `new_text`; it must occur exactly once unless `replace_all`."""
    if not old_text:
        raise ToolError(
            "edit_file: old_text is empty. Send the exact text to replace, copied from read_file "
            "without the line-number prefixes. To write a whole file, use write_file."
        )
    if old_text == new_text:
        raise ToolError("edit_file: old_text and new_text are identical, so nothing would change.")
    target = _existing_file(workspace, path, "edit_file")
    size = target.stat().st_size
    if size > MAX_EDIT_BYTES:
        raise ToolError(
            f"edit_file: {path} is {size} bytes, over edit_file's limit of {MAX_EDIT_BYTES} "
            f"bytes. Change it with bash instead (e.g. sed -i 's/old/new/' {path}, or a short "
            "python script), then check the result with read_file."
        )

    raw = target.read_bytes()
    text, encoding, bom = _decode_for_editing(raw)
    old, new = _match_file_newlines(text, old_text, new_text)

    count = text.count(old)
    if count == 0:
        raise _not_found_error(path, old_text, text)
    if count > 1 and not replace_all:
        lines = ", ".join(str(number) for number in _line_numbers_of(text, old))
        raise ToolError(
            f"edit_file: old_text was found {count} times in {path} (starting on lines {lines}), "
            "but must match exactly once. Add surrounding lines to old_text to make it unique, "
            f"or set replace_all to true to replace all {count}."
        )

    try:
        # Strict, so that only bytes read from the file can come back as escaped bytes below.
        new.encode(encoding)
    except UnicodeEncodeError as exc:
        character = exc.object[exc.start]
        if encoding == "latin-1":
            raise ToolError(
                f"edit_file: {path} is not UTF-8 and is kept in its own 8-bit encoding "
                f"(Latin-1), but new_text contains {character!r}, which it cannot hold. "
                "Use only Latin-1 characters in new_text."
            ) from exc
        raise ToolError(
            f"edit_file: new_text contains {character!r}, which cannot be written as "
            f"{encoding.upper()}. Send plain text."
        ) from exc
    updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    # surrogateescape writes the stray bytes of a mostly-UTF-8 file back as they were.
    data = bom + updated.encode(encoding, errors="surrogateescape")
    try:
        write_atomically(target, data)
    except OSError as exc:
        raise ToolError(f"edit_file: cannot write {path}: {exc.strerror or exc}.") from exc

    plural = "" if count == 1 else "s"
    return f"Replaced {count} occurrence{plural} in {path}."


def write_atomically(target: Path, data: bytes) -> None:
    """Replace the content of `target` with `data` so that it is never seen half-written.

    The data goes to a temporary file in the same directory (a rename is only atomic within
    one file system), is flushed to disk, and is then renamed over the target. An existing
    file keeps its permission bits; a new one gets the usual ones for this process's umask.
    """
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_UMASK

    # The name is shortened so prefix + name + random part stay within file name limits.
    descriptor, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name[:100]}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as temp_file:
            temp_file.write(data)
            temp_file.flush()
            os.fsync(temp_file.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def _current_umask() -> int:
    # The umask can only be read by setting it, so set it back straight away.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


def _existing_file(workspace: Path, path: str, tool_name: str) -> Path:
    """The resolved path of an existing regular file, or a ToolError that helps find one."""
    target = safe_path(workspace, path)
    if target.is_dir():
        raise ToolError(
            f"{tool_name}: {path} is a directory, not a file. It contains:\n"
            f"{_list_directory(target)}\nCall {tool_name} with the path of a file."
        )
    if not target.exists():
        hint = " To create a new file, use write_file." if tool_name == "edit_file" else ""
        raise ToolError(
            f"{tool_name}: file not found: {path}. Check the path (it is relative to the "
            f"workspace); bash with ls or find can help.{hint}"
        )
    if not target.is_file():
        raise ToolError(f"{tool_name}: {path} is not a regular file (a pipe, socket or device).")
    return target


def _list_directory(directory: Path) -> str:
    try:
        entries = sorted(directory.iterdir(), key=lambda entry: entry.name)
    except OSError as exc:
        return f"(cannot list it: {exc.strerror or exc})"
    if not entries:
        return "(nothing; it is empty)"
    names = [entry.name + ("/" if entry.is_dir() else "") for entry in entries]
    listing = "\n".join(names[:DIRECTORY_LISTING_LIMIT])
    if len(names) > DIRECTORY_LISTING_LIMIT:
        listing += f"\n... and {len(names) - DIRECTORY_LISTING_LIMIT} more"
    return listing


def _show_lines(file: BinaryIO, path: str, offset: int, limit: int) -> str:
    """The numbered lines read_file shows, read from `file` (UTF-8 or close to it)."""
    size = file.seek(0, os.SEEK_END)
    file.seek(0)
    if size == 0:
        return "(empty file)"

    lines_skipped = _skip_lines(file, offset - 1)
    if lines_skipped < offset - 1:
        raise _past_end_error(path, offset, total_lines=lines_skipped)

    shown, more_remains, window_end = _read_window(file, offset, limit)
    if not shown:
        # The file ends with a line break right before the requested line.
        raise _past_end_error(path, offset, total_lines=offset - 1)

    if not more_remains:
        return "\n".join(shown)

    last_shown = offset + len(shown) - 1
    total_lines = None
    if size - window_end <= COUNT_REMAINING_LIMIT_BYTES:
        file.seek(window_end)
        total_lines = last_shown + _count_lines(file.read())
    total = str(total_lines) if total_lines is not None else f"more than {last_shown}"
    note = (
        f"[showing lines {offset}-{last_shown} of {total}; "
        f"call read_file with offset={last_shown + 1} to read more]"
    )
    return "\n".join([*shown, note])


def _skip_lines(file: BinaryIO, count: int) -> int:
    """Move past `count` lines and return how many there were (fewer if the file ended).

    Line breaks are counted a chunk at a time with bytes.count, which runs at memory speed,
    so reaching the end of a large file does not mean decoding or splitting all of it.
    """
    skipped = 0
    ends_mid_line = False
    while skipped < count:
        chunk = file.read(SCAN_CHUNK_BYTES)
        if not chunk:
            # A last line without a line break still counts as a line.
            return skipped + (1 if ends_mid_line else 0)
        newlines = chunk.count(b"\n")
        if skipped + newlines >= count:
            # The wanted line starts inside this chunk: step back to just after its line break.
            rest_of_chunk = chunk.split(b"\n", count - skipped)[-1]
            file.seek(-len(rest_of_chunk), os.SEEK_CUR)
            return count
        skipped += newlines
        ends_mid_line = not chunk.endswith(b"\n")
    return skipped


def _read_window(file: BinaryIO, first_number: int, limit: int) -> tuple[list[str], bool, int]:
    """Read up to `limit` numbered lines from the current position.

    Returns the formatted lines, whether more of the file remains after them, and the byte
    position just after the last line shown.
    """
    shown: list[str] = []
    output_chars = 0
    window_end = file.tell()
    while len(shown) < limit:
        # readline with a size bounds memory even for a file that is one enormous line.
        raw = file.readline(MAX_LINE_BYTES)
        if not raw:
            return shown, False, window_end
        truncated = False
        if not raw.endswith(b"\n") and len(raw) == MAX_LINE_BYTES:
            truncated = True
            _skip_rest_of_line(file)
        line = raw.removesuffix(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS]
            truncated = True
        if truncated:
            line += " … [line truncated]"

        entry = f"{first_number + len(shown):>6}\t{line}"
        if shown and output_chars + len(entry) + 1 > MAX_OUTPUT_CHARS:
            return shown, True, window_end
        shown.append(entry)
        output_chars += len(entry) + 1
        window_end = file.tell()

    more_remains = bool(file.read(1))
    return shown, more_remains, window_end


def _skip_rest_of_line(file: BinaryIO) -> None:
    while True:
        piece = file.readline(SCAN_CHUNK_BYTES)
        if not piece or piece.endswith(b"\n"):
            return


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def _past_end_error(path: str, offset: int, total_lines: int) -> ToolError:
    return ToolError(
        f"read_file: offset {offset} is past the end of {path}, which has {total_lines} "
        f"lines. Call read_file with an offset from 1 to {total_lines}."
    )


def _utf16_codec(head: bytes) -> str | None:
    """The codec of a file that starts with a UTF-16 byte order mark, else None."""
    if head.startswith(codecs.BOM_UTF32_LE):
        return None  # FF FE 00 00 starts UTF-32, which we leave to bash like other binaries.
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be"
    return None


def _decode_for_editing(raw: bytes) -> tuple[str, str, bytes]:
    """Return (text, encoding, byte order mark) of a file's bytes, for edit_file.

    `bom + text.encode(encoding, errors="surrogateescape")` gives `raw` back exactly.
    """
    utf16_codec = _utf16_codec(raw)
    if utf16_codec:
        with contextlib.suppress(UnicodeDecodeError):
            return raw[2:].decode(utf16_codec), utf16_codec, raw[:2]

    bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
    body = raw[len(bom) :]
    text = body.decode("utf-8", errors="surrogateescape")
    stray_bytes = len(ESCAPED_BYTE.findall(text))
    utf8_bytes = len(NON_ASCII_BYTE.findall(body)) - stray_bytes
    # A file is edited as UTF-8 if it has a UTF-8 BOM or if more of its non-ASCII bytes form
    # valid UTF-8 characters than not: a UTF-8 file with a stray byte (a pasted Latin-1
    # character, a cut-off write) passes. A legacy 8-bit file does not: its accented letters
    # are single bytes, and one is almost never followed by the continuation bytes UTF-8 needs.
    if bom or stray_bytes == 0 or utf8_bytes > stray_bytes:
        return text, "utf-8", bom
    # Latin-1 maps every byte to one character and back, so the bytes around the edit
    # are written back exactly as they were.
    return raw.decode("latin-1"), "latin-1", b""


def _match_file_newlines(text: str, old_text: str, new_text: str) -> tuple[str, str]:
    """Rewrite the model's line breaks in the file's style (CRLF or LF) so an edit matches.

    The model usually sends LF even for a CRLF file. If the file mixes both styles and the
    text as sent is found where the converted text is not, the text is used as sent.
    """
    file_newline = "\r\n" if "\r\n" in text else "\n"
    old = old_text.replace("\r\n", "\n").replace("\n", file_newline)
    new = new_text.replace("\r\n", "\n").replace("\n", file_newline)
    if old != old_text and old not in text and old_text in text:
        return old_text, new_text
    return old, new


def _line_numbers_of(text: str, needle: str, limit: int = 10) -> list[int]:
    """Line numbers where the first few occurrences of `needle` start."""
    numbers = []
    start = text.find(needle)
    while start >= 0 and len(numbers) < limit:
        numbers.append(text.count("\n", 0, start) + 1)
        start = text.find(needle, start + len(needle))
    return numbers


def _not_found_error(path: str, old_text: str, file_text: str) -> ToolError:
    message = (
        f"edit_file: old_text was not found in {path}. Call read_file on that region and copy "
        "the text exactly, including indentation and blank lines."
    )
    if LINE_NUMBER_PREFIX.search(old_text):
        message += (
            " old_text seems to include read_file's line-number prefixes (a number and a tab); "
            "leave those out."
        )
    if "\ufffd" in old_text and "\ufffd" not in file_text:
        message += (
            " old_text contains \ufffd, which read_file shows in place of bytes that are not "
            "valid UTF-8; it cannot be matched. Choose old_text that avoids those characters."
        )
    return ToolError(message)


READ_FILE = Tool(
    name="read_file",
    description=(
        "Read a text file in the workspace. Each line comes back as its line number, a tab, "
        "then the text; the number and tab are not part of the file. Shows up to 2000 lines "
        "from offset (1-based); use offset and limit to page through long files."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "Line number to start at (default 1).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LINE_LIMIT,
                "description": f"Number of lines to show (default {DEFAULT_LINE_LIMIT}).",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    handler=read_file,
)

WRITE_FILE = Tool(
    name="write_file",
    description=(
        "Create a file in the workspace, or overwrite it, with the given content; parent "
        "directories are created. To change part of an existing file, prefer edit_file."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "content": {"type": "string", "description": "The complete new file content."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
    handler=write_file,
)

EDIT_FILE = Tool(
    name="edit_file",
    description=(
        "Replace old_text with new_text in an existing file. old_text must match the file "
        "exactly (copy it from read_file, without the line-number prefixes) and occur once, "
        "unless replace_all is true; include surrounding lines to make it unique."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workspace."},
            "old_text": {"type": "string", "description": "The exact text to replace."},
            "new_text": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence instead of exactly one (default false).",
            },
        },
        "required": ["path", "old_text", "new_text"],
        "additionalProperties": False,
    },
    handler=edit_file,
)
