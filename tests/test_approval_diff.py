"""A protected write shows what it would change in its approval box, before anyone says yes.

Driven through `python agent.py` in a pseudo-terminal against the fake API: the diff of an
existing file, the content of a new one, an edit, a long change folded until `v` shows it all,
and escape sequences in the content shown as symbols, never obeyed.
"""

from __future__ import annotations

import pytest
from conftest import terminal_env
from test_interactive import Terminal

from cli.approval_preview import proposed_change
from fakeapi import text, tool_use

pytestmark = pytest.mark.real_exec


@pytest.fixture
def terminal(api, workspace, isolated_home):
    with Terminal(workspace, terminal_env(api, isolated_home), "--no-sandbox") as term:
        yield term


def test_the_box_shows_the_diff_the_new_content_and_the_edit(api, terminal, workspace):
    (workspace / ".env").write_text("MODEL=small\nKEY=abc\n")
    overwrite = tool_use("write_file", {"path": ".env", "content": "MODEL=small\nKEY=xyz\n"})
    new_file = tool_use("write_file", {"path": ".env.local", "content": "DEBUG=1\nPORT=9\n"})
    edit = tool_use("edit_file", {"path": ".env", "old_text": "MODEL=small", "new_text": "M=big"})
    api.add({"content": [tool_use("read_file", {"path": ".env"})]})  # read before a rewrite
    api.add({"content": [overwrite]})
    api.add({"content": [new_file]})
    api.add({"content": [edit]})
    api.add({"content": [text("All three.")]})
    terminal.wait_for_prompt()
    terminal.type("set it up\r")
    box = terminal.wait_for("[a]lways for writes to .env: ")
    assert "the change:" in box and "-KEY=abc" in box and "+KEY=xyz" in box
    assert " MODEL=small" in box  # context
    terminal.type("y\r")
    box = terminal.wait_for("[a]lways for writes to .env.local: ")
    assert "new file, 2 lines:" in box and "+DEBUG=1" in box and "+PORT=9" in box
    terminal.type("y\r")
    box = terminal.wait_for("[a]lways for writes to .env: ")
    assert "-MODEL=small" in box and "+M=big" in box and " KEY=xyz" in box
    terminal.type("y\r")
    terminal.wait_for("All three.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert (workspace / ".env").read_text() == "M=big\nKEY=xyz\n"


def test_a_long_change_is_folded_until_v_shows_all_of_it(api, terminal, workspace):
    lines = [f"LINE_{number}=x" for number in range(60)]
    call = tool_use("write_file", {"path": ".env", "content": "\n".join(lines) + "\n"})
    api.add({"content": [call]})
    api.add({"content": [text("Written.")]})
    terminal.wait_for_prompt()
    terminal.type("write a long env\r")
    box = terminal.wait_for("[v]iew all of it / [n]o: ")
    assert "+LINE_0=x" in box and "+LINE_59=x" in box and "more lines: type v" in box
    assert "+LINE_30=x" not in box
    terminal.type("y\r")  # not yet: it has not been seen whole
    terminal.wait_for("type v to see all of it")
    terminal.wait_for("[v]iew all of it / [n]o: ")
    assert not (workspace / ".env").exists()
    terminal.type("v\r")
    shown = terminal.wait_for("[a]lways for writes to .env: ")
    assert all(f"+{line}" in shown for line in lines)
    terminal.type("y\r")
    terminal.wait_for("Written.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert (workspace / ".env").read_text().splitlines() == lines


def test_escape_sequences_in_the_content_are_shown_as_symbols(api, terminal, workspace):
    content = "A=1 \x1b[2K\x1b]0;pwned\x07\n"
    api.add({"content": [tool_use("write_file", {"path": ".env", "content": content})]})
    api.add({"content": [text("Declined.")]})
    terminal.wait_for_prompt()
    terminal.type("write it\r")
    box = terminal.wait_for("[a]lways for writes to .env: ")
    assert "+A=1 ␛[2K␛]0;pwned␇" in box and "control characters" in box
    terminal.type("n\r")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("\r")
    terminal.wait_for("Declined.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert "\x1b]0;pwned" not in terminal.raw and not (workspace / ".env").exists()


def test_a_git_file_shows_its_change_and_offers_no_always(api, terminal, workspace):
    (workspace / ".git").mkdir()
    call = tool_use("write_file", {"path": ".git/config", "content": "[core]\n\tpager = sh\n"})
    api.add({"content": [call]})
    api.add({"content": [text("Left it.")]})
    terminal.wait_for_prompt()
    terminal.type("configure git\r")
    box = terminal.wait_for("[y]es / [n]o: ")
    assert "new file, 2 lines:" in box and "pager = sh" in box and "[a]lways" not in box
    terminal.type("a\r")
    terminal.wait_for("Please type y or n (not 'a').")
    terminal.type("n\r")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("\r")
    terminal.wait_for("Left it.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert not (workspace / ".git" / "config").exists()


def test_an_edit_that_would_fail_says_so_instead_of_a_diff(workspace):
    (workspace / ".env").write_text("A=1\nA=1\n")
    call = {"name": "edit_file", "input": {"path": ".env", "old_text": "A=1", "new_text": "A=2"}}
    preview = proposed_change(workspace, call)
    assert preview.title == "old_text is in the file 2 times: the edit will fail"
    call["input"]["old_text"] = "B=1"
    assert "not in the file" in proposed_change(workspace, call).title
    call["input"].update(old_text="A=1", replace_all=True)
    assert proposed_change(workspace, call).lines[-2:] == ["+A=2", "+A=2"]


def test_a_new_file_of_one_line_is_counted_as_one_line(workspace):
    def write(path: str, content: str) -> dict:
        return {"name": "write_file", "input": {"path": path, "content": content}}

    one = proposed_change(workspace, write("tasks.json", "{}"))
    two = proposed_change(workspace, write("a.txt", "a\nb\n"))
    assert (one.title, two.title) == ("new file, 1 line:", "new file, 2 lines:")
