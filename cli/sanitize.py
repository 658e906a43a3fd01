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
import unicodedata
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


def visible(text: str, crlf_is_newline: bool = True) -> str:
    """`text` with newlines and tabs kept and every other control character shown as a symbol.

    A Windows line end is a line end, not a hidden return, in what is read; in what runs (a
    command to approve, a script's new lines) the return is part of the word before it
    (`crlf_is_newline=False`: shown as ␍)."""
    if crlf_is_newline:
        text = text.replace("\r\n", "\n")
    if UNSAFE.search(text) is None:  # the common case costs one scan
        return text
    return UNSAFE.sub(lambda match: visible_char(match.group()), text)


def has_hidden_characters(text: str, crlf_is_newline: bool = True) -> bool:
    """True when a terminal would act on part of `text` instead of showing it."""
    if crlf_is_newline:
        text = text.replace("\r\n", "\n")
    return UNSAFE.search(text) is not None


def lines_as_run(text: str) -> list[str]:
    """`text` split at its line feeds alone, as bash and most programs read it: str.splitlines
    also splits at a return, a vertical tab, a form feed, U+0085, U+2028 and more, which would
    take them out of sight (`source ./env.sh\r` would show as `source ./env.sh`)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


# Letters that show as a blank although they are none: the Hangul fillers and braille's blank.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Unicode's default-ignorable code points that are marks, not format characters: a font shows
# nothing for them, in a command and in a file's text alike (the combining grapheme joiner,
# the variation selectors, the Khmer and Mongolian invisible vowels and selectors).
IGNORABLE_MARKS = re.compile(
    "[\u034f\u17b4\u17b5\u180b-\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef\U0001d173-\U0001d17a]"
)
# What shows as nothing, or as a blank that is no space: format characters (zero-width space
# and joiners, word joiner, soft hyphen, tags), line and paragraph separators, and every space
# but the plain one. In what the person approves, `sh ./setup\u200b.sh` reads as `sh ./setup.sh`
# and runs another file. With `marks`, combining marks too (`e\u0301` is not `é`'s letter).
UNSEEN_CATEGORIES = ("Cf", "Zl", "Zp", "Zs")
MARK_CATEGORIES = ("Mn", "Me")


def is_unseen(char: str, marks: bool = False) -> bool:
    """Whether `char` shows as nothing or as a blank that is not a plain space."""
    if char == " " or char.isascii():
        return False
    category = unicodedata.category(char)
    return (
        category in UNSEEN_CATEGORIES
        or char in BLANK_LETTERS
        or IGNORABLE_MARKS.match(char) is not None
        or category == "Cn"  # unassigned: no font draws it
        or (marks and category in MARK_CATEGORIES)
    )


def shown_exactly(text: str, marks: bool = True) -> str:
    """`visible(text)`, and each character that shows as nothing or a blank (`is_unseen`) as
    `<U+200B>`: for what the person approves, which must read as what runs."""
    text = visible(text, crlf_is_newline=False)
    if text.isascii():  # the common case costs one check
        return text
    return "".join(f"<U+{ord(c):04X}>" if is_unseen(c, marks) else c for c in text)


def has_unseen_characters(text: str, marks: bool = True) -> bool:
    return not text.isascii() and any(is_unseen(char, marks) for char in text)


def letters_beyond_ascii(text: str, most: int = 8) -> list[str]:
    """The names of the characters of `text` beyond ASCII that show as something (a Cyrillic
    `а` that reads as the Latin `a`), each once: a look-alike in a command or a path names
    another file or program. Letters come first (a tick or an emoji is no look-alike of one),
    at most `most` of them all, and then how many more there are."""
    found = dict.fromkeys(c for c in text if not c.isascii() and not is_unseen(c, marks=True))
    ordered = sorted(found, key=lambda c: not unicodedata.category(c).startswith("L"))
    names = [f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in ordered[:most]]
    if len(ordered) > most:
        names.append(f"and {len(ordered) - most} more")
    return names


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
