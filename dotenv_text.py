"""Dotenv files read as python-dotenv reads them, in time linear in their size, and quietly.

A workspace's `.env` is the repository's to write, and planloop reads it several times before
its first command: for its own key and model (`settings.py`), and for what the file hides or
hands to tools (`tools/bind_watch.py`, `tools/tool_scripts.py`). python-dotenv's parser takes
a comment off an unquoted value with `re.sub(r"\\s+#.*", "", value)`, which starts again at
each blank of a run of blanks and reads the rest of the run each time: one line of 100,000
spaces took 10 s a read, and no Ctrl-C or SIGTERM is served meanwhile (Python's `re` holds
the interpreter for a whole search). The rest of its parser reads each character a bounded
number of times. So python-dotenv parses, with that one step done in linear time here: the
values are python-dotenv's own, as a program that loads the file gets them.

python-dotenv's `dotenv_values` also logs a warning for each line it cannot parse, which
Python prints to the terminal when nothing else takes it: a repository's `.env` of a million
bad lines would print a million. `dotenv_values` here says nothing of them.
"""

from __future__ import annotations

import io
import re

import dotenv.parser
from dotenv.parser import Binding, parse_stream

__all__ = ["Binding", "dotenv_values", "parse_stream", "without_comment"]

UNQUOTED_VALUE = re.compile(r"([^\r\n]*)")  # the rest of the line, as python-dotenv takes it
BLANK_THEN_HASH = re.compile(r"\s#")


def without_comment(value: str) -> str:
    """An unquoted `value` as python-dotenv keeps it: cut at the first run of blanks that a
    `#` follows (`A=b #note` is `b`, `A=b#c` stays), and its trailing blanks taken off."""
    found = BLANK_THEN_HASH.search(value)
    if found is not None:
        end = found.start()
        while end and value[end - 1].isspace():  # back to the start of that run of blanks
            end -= 1
        value = value[:end]
    return value.rstrip()


def _unquoted_value(reader: dotenv.parser.Reader) -> str:
    (value,) = reader.read_regex(UNQUOTED_VALUE)
    return without_comment(value)


# The one step of python-dotenv's parser that is not linear, replaced for every caller in this
# process (it is looked up by name at each value).
dotenv.parser.parse_unquoted_value = _unquoted_value


def dotenv_values(text: str, unparsed: list[int] | None = None) -> dict[str, str | None]:
    """The variables `text` sets, without `${...}` expanded: python-dotenv's
    `dotenv_values(stream=..., interpolate=False)`, with no warning for a line it cannot
    parse (the line sets nothing). Those lines' numbers go to `unparsed`, when given."""
    values: dict[str, str | None] = {}
    for binding in parse_stream(io.StringIO(text)):
        if binding.key is not None:
            values[binding.key] = binding.value
        elif binding.error and unparsed is not None:
            unparsed.append(binding.original.line)
    return values
