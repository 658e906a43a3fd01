"""Make untrusted text safe to print: every control character becomes a visible symbol.

Model text, tool output and file contents can hold terminal escape sequences that set the
window title, write the clipboard (OSC 52), clear the screen or move the cursor to hide part
of a line. planloop prints none of them raw. `visible` keeps newlines and tabs and shows
everything else that a terminal would act on:

    "\\x1b[2J"        ->  "␛[2J"          C0 controls become the Control Pictures block (U+2400)
    "\\x9b"           ->  "\\x9b"          C1 controls become their escape, as text
    "\\u202e"         ->  "<U+202E>"       bidi overrides, which reorder what the eye reads

Every function in cli/ that prints text it did not write itself passes it through here. Text
that a parser reads first (Markdown decodes `&#x202E;` into the character itself) is passed
through here again after parsing: `Sanitized` does that to whatever a renderable produces.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# Bidi embeddings, overrides, isolates and marks: they change the order in which a line is shown.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}]")


def visible_char(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟, with ␛ for ESC
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """`text` with newlines and tabs kept and every other control character shown as a symbol."""
    text = text.replace("\r\n", "\n")  # a Windows line end is a line end, not a hidden return
    if UNSAFE.search(text) is None:  # the common case costs one scan
        return text
    return UNSAFE.sub(lambda match: visible_char(match.group()), text)


def has_hidden_characters(text: str) -> bool:
    """True when a terminal would act on part of `text` instead of showing it."""
    return UNSAFE.search(text.replace("\r\n", "\n")) is not None


class Sanitized:
    """A rich renderable whose output is made visible after it is rendered.

    rich's Markdown parser turns entities such as `&#x202E;` into characters, after `visible`
    has seen the text; sanitizing the rendered segments catches what the parser made.
    """

    def __init__(self, renderable: Any) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.segment import Segment

        for segment in console.render(self.renderable, options):
            if segment.control or UNSAFE.search(segment.text) is None:
                yield segment
            else:
                yield Segment(visible(segment.text), segment.style)
