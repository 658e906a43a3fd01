"""The terminal's fast path for short lines writes what rich itself would show.

Most lines of a turn (the tool line, a file window's preview) skip rich's layout, which costs
a fraction of a millisecond per line; the screen must not change for it.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.text import Text

from cli.render import TerminalUI

CASES = [
    "> read_file notes.txt",
    "     1\tline 1: the quick brown fox\n     2\tline 2\n\n    10\tend  ",
    "a\tb\tc",
    "wide ü\tcafé\n中文\tx",  # not ASCII: left to rich
    "x" * 200 + "\nshort",  # too wide: rich wraps it
]


def console(color: bool) -> Console:
    colors = "standard" if color else None
    return Console(file=io.StringIO(), width=60, force_terminal=color, color_system=colors)


@pytest.mark.parametrize("text", CASES)
def test_a_printed_line_reads_the_same_as_rich_prints_it(text):
    ui = TerminalUI(console(color=False))
    ui.print_line(text, "dim")
    expected = console(color=False)
    expected.print(Text(text, style="dim"))
    assert ui.console.file.getvalue() == expected.file.getvalue()


def test_the_fast_path_keeps_the_style_of_every_line():
    ui = TerminalUI(console(color=True))
    ui.print_line("first\nsecond", "red")
    written = ui.console.file.getvalue()
    assert written.count("\x1b[31m") == 2 and written.endswith("\n")
    assert "first" in written and "second" in written
