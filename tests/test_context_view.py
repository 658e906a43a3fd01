"""/context and the start-up line naming the project instructions, in a real terminal."""

from __future__ import annotations

import re

import pytest
from conftest import terminal_env
from test_interactive import Terminal

from fakeapi import text, tool_use

pytestmark = pytest.mark.real_exec

RULES = "Run `make check` before you say a change is done.\n"


def row(screen: str, name: str) -> tuple[int, str]:
    """The tokens and the share of the window that the table gives `name`."""
    found = re.search(rf"{re.escape(name)}\s*│\s*([\d,]+)\s*│\s*([\d.]+%)", screen)
    assert found, f"no row {name!r} in:\n{screen}"
    return int(found.group(1).replace(",", "")), found.group(2)


def test_context_shows_the_use_and_what_fills_it(api, workspace, isolated_home):
    (workspace / "AGENTS.md").write_text(RULES)
    (workspace / "notes.txt").write_text("word\n" * 2000)
    api.add({"content": [text("Reading it."), tool_use("read_file", {"path": "notes.txt"})]})
    api.add({"content": [text("It repeats one word.")]})
    env = terminal_env(api, isolated_home, columns=120)
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        banner = terminal.wait_for_prompt()
        assert f"project instructions: AGENTS.md ({len(RULES)} B)" in banner
        terminal.type("/context\r")
        before = terminal.wait_for_prompt()
        estimate = re.search(r"context: ([\d,]+) of 200K tokens \(([\d.]+%)\), estimated", before)
        assert estimate and "estimated: no model call yet" in before
        assert (int(estimate.group(1).replace(",", "")), estimate.group(2)) == row(before, "total")
        assert row(before, "messages: tool results")[0] == 0
        terminal.type("what is in notes.txt?\r")
        terminal.wait_for("It repeats one word.")
        terminal.wait_for_prompt()
        terminal.type("/context\r")
        after = terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    used = re.search(r"context: ([\d,]+) of 200K tokens \(([\d.]+)%\), as the API counted", after)
    assert used, after
    # The API's count of the last request: what the fake reported as its input tokens.
    assert int(used.group(1).replace(",", "")) > 0
    assert row(after, "system prompt: planloop's text")[0] > 100
    assert row(after, "system prompt: project instructions")[0] > 0
    assert row(after, f"AGENTS.md ({len(RULES)} B)")[0] == len(RULES.strip()) // 4
    assert re.search(r"tool schemas \(\d+ tools\)", after)
    results, share = row(after, "messages: tool results")
    numbered = len("     1\tword\n") * 2000  # what read_file sent back
    assert results >= numbered // 4 and share == f"{100 * results / 200_000:.1f}%"
    assert row(after, "messages: user text")[0] > 0
    assert row(after, "messages: assistant text")[0] > 0
    assert row(after, "messages: tool calls")[0] > 0
    assert row(after, "total")[0] > results


def test_without_instructions_the_banner_has_no_such_line(api, workspace, isolated_home):
    with Terminal(workspace, terminal_env(api, isolated_home), "--no-sandbox") as terminal:
        banner = terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert "/help lists the commands" in banner and "project instructions" not in banner
