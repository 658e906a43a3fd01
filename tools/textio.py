"""Text plumbing under the file tools: windowed reading and encodings.

Nothing here is a tool, so anything may import it (a tool, a session log) without importing a
tool module. The file tools (tools/files.py) turn what these functions return into messages
for the model.

- Windowed reading: `read_window` shows numbered lines from a byte stream and reads only the
  window it shows, so a line deep inside a large file is cheap to reach (line breaks are
  counted a chunk at a time with bytes.count, which runs at memory speed).
- Encodings: UTF-8 (stray invalid bytes kept as they were), UTF-16 with its byte order mark,
  and Latin-1 for legacy 8-bit files; `decode_for_editing` says which one a file is in, so an
  edit writes it back in the same one.

Opening and replacing files is in tools/beneath.py: it reaches a file one opened folder at a
time, so that a racing command cannot redirect it, and replaces it atomically.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from redaction import redact, secret_pattern, start_of_a_secret

# Longer lines are cut, so one minified line cannot fill the model's context.
MAX_LINE_CHARS = 2000
# A UTF-8 character takes at most 4 bytes, so this many bytes always hold MAX_LINE_CHARS.
MAX_LINE_BYTES = MAX_LINE_CHARS * 4
# A window of lines stays under this many characters.
MAX_OUTPUT_CHARS = 100_000
# A NUL byte in this many leading bytes marks a file as binary.
BINARY_CHECK_BYTES = 8 * 1024
# Files are scanned for line breaks in chunks of this size.
SCAN_CHUNK_BYTES = 1024 * 1024
# When lines remain after a window, they are counted only if the rest is at most this big:
# counting 8 MB to say "of N lines" would cost more than reading the window itself.
COUNT_REMAINING_LIMIT_BYTES = 256 * 1024

NON_ASCII_BYTE = re.compile(rb"[\x80-\xff]")
# Decoding with errors="surrogateescape" turns each byte that is not valid UTF-8 into one
# character in this range, and encoding turns it back into the same byte.
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


class PastEnd(Exception):
    """The wanted first line is past the end of the file, which has `total_lines` lines."""

    def __init__(self, total_lines: int) -> None:
        super().__init__(f"the file has {total_lines} lines")
        self.total_lines = total_lines


@dataclass
class Window:
    """Numbered lines ('{number:>6}\\t{line}') from `first` on, and what follows them.

    `more` is True when lines remain after the window; `total_lines` is the file's line count
    when it was cheap to know (the rest was small), else None.
    """

    lines: list[str]
    first: int
    more: bool
    total_lines: int | None

    @property
    def last(self) -> int:
        return self.first + len(self.lines) - 1


# Called with the bytes of each chunk read while lines are skipped, so that a caller can stop a
# scan that has no end in sight (a sparse file of a terabyte is one `truncate` away): it raises.
Checkpoint = Callable[[int], None]


def _keep_going(read: int) -> None:
    """The checkpoint of a caller that lets every scan run to its end."""


def read_window(
    file: BinaryIO,
    first: int,
    limit: int,
    secrets: Sequence[str] = (),
    checkpoint: Checkpoint = _keep_going,
) -> Window:
    """Up to `limit` numbered lines of `file` (UTF-8 or close to it) from line `first` on,
    each with `secrets` redacted before it is cut to MAX_LINE_CHARS. `checkpoint` hears of
    each chunk skipped on the way (Checkpoint).

    Raises PastEnd when the file has fewer than `first` lines.
    """
    size = file.seek(0, os.SEEK_END)
    file.seek(0)
    if size == 0:
        return Window([], first, more=False, total_lines=0)
    skipped = skip_lines(file, first - 1, checkpoint)
    if skipped < first - 1:
        raise PastEnd(skipped)
    lines, more, window_end = _numbered_lines(file, first, limit, list(secrets), checkpoint)
    if not lines:  # the file ends with a line break right before the wanted line
        raise PastEnd(first - 1)
    total = None
    if not more:
        total = first + len(lines) - 1
    elif size - window_end <= COUNT_REMAINING_LIMIT_BYTES:
        file.seek(window_end)
        total = first + len(lines) - 1 + count_lines(file.read())
    return Window(lines, first, more, total)


def skip_lines(file: BinaryIO, count: int, checkpoint: Checkpoint = _keep_going) -> int:
    """Move past `count` lines and return how many there were (fewer if the file ended)."""
    skipped = 0
    ends_mid_line = False
    while skipped < count:
        chunk = file.read(SCAN_CHUNK_BYTES)
        checkpoint(len(chunk))
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


def _numbered_lines(
    file: BinaryIO, first: int, limit: int, secrets: list[str], checkpoint: Checkpoint
) -> tuple[list[str], bool, int]:
    """Read up to `limit` numbered lines from the current position, `secrets` redacted.

    Returns the formatted lines, whether more of the file remains after them, and the byte
    position just after the last line shown.
    """
    shown: list[str] = []
    output_chars = 0
    window_end = file.tell()
    # A line is redacted before it is cut, never after: a secret across the cut would keep
    # all but its end. So a long line is read a secret's length past MAX_LINE_BYTES (a secret
    # that starts before the cut ends in what is read), and where reading stopped mid-line, an
    # end that a secret begins with is left out (it starts past the cut anyway).
    past_cut = max(map(len, map(str.encode, secrets)), default=0)
    most = MAX_LINE_BYTES + past_cut
    finder = secret_pattern(tuple(secrets))  # one search a line, not one scan per secret
    while len(shown) < limit:
        # readline with a size bounds memory even for a file that is one enormous line.
        raw = file.readline(most)
        if not raw:
            return shown, False, window_end
        truncated = False
        if not raw.endswith(b"\n") and len(raw) == most:
            truncated = True
            _skip_rest_of_line(file, checkpoint)
        raw = raw.removesuffix(b"\n").removesuffix(b"\r")
        # A character cut at the end stays out rather than becoming U+FFFD after a secret's start.
        line, _ = codecs.utf_8_decode(raw, "replace", not truncated)
        if finder is not None:
            if finder.search(line):
                line = redact(line, secrets)
            if truncated:
                line = line[: len(line) - start_of_a_secret(line, secrets)]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS]
            truncated = True
        if truncated:
            line += " … [line truncated]"

        entry = f"{first + len(shown):>6}\t{line}"
        if shown and output_chars + len(entry) + 1 > MAX_OUTPUT_CHARS:
            return shown, True, window_end
        shown.append(entry)
        output_chars += len(entry) + 1
        window_end = file.tell()

    more_remains = bool(file.read(1))
    return shown, more_remains, window_end


def _skip_rest_of_line(file: BinaryIO, checkpoint: Checkpoint) -> None:
    while True:
        piece = file.readline(SCAN_CHUNK_BYTES)
        checkpoint(len(piece))
        if not piece or piece.endswith(b"\n"):
            return


def count_lines(data: bytes) -> int:
    """Lines in `data`; a last line without a line break counts too."""
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


def utf16_codec(head: bytes) -> str | None:
    """The codec of a file that starts with a UTF-16 byte order mark, else None."""
    if head.startswith(codecs.BOM_UTF32_LE):
        return None  # FF FE 00 00 starts UTF-32, which is left to bash like other binaries.
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be"
    return None


def decode_for_editing(raw: bytes) -> tuple[str, str, bytes]:
    """Return (text, encoding, byte order mark) of a file's bytes.

    `bom + text.encode(encoding, errors="surrogateescape")` gives `raw` back exactly.
    """
    codec = utf16_codec(raw)
    if codec:
        with contextlib.suppress(UnicodeDecodeError):
            return raw[2:].decode(codec), codec, raw[:2]

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


def match_file_newlines(text: str, old_text: str, new_text: str) -> tuple[str, str]:
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


def line_numbers_of(text: str, needle: str, limit: int = 10) -> list[int]:
    """Line numbers where the first few occurrences of `needle` start."""
    numbers = []
    start = text.find(needle)
    while start >= 0 and len(numbers) < limit:
        numbers.append(text.count("\n", 0, start) + 1)
        start = text.find(needle, start + len(needle))
    return numbers
