"""What the terminal shows, played through the real loop into a recording console."""

from __future__ import annotations

import io

import pytest
from conftest import run
from rich.console import Console

from cli.render import TerminalUI, split_finished_blocks
from cli.sanitize import visible
from cli.usage import Usage
from fakeapi import text, tool_use
from todo import TodoListMiddleware


@pytest.fixture
def screen_agent(make_agent, workspace):
    """An agent whose TerminalUI prints into a string; returns (agent, read_screen)."""

    def build(**kwargs):
        output = io.StringIO()
        console = Console(file=output, width=80, color_system=None, highlight=False)
        ui = TerminalUI(console, workspace)
        return make_agent(ui=ui, **kwargs), output.getvalue

    return build


def test_control_characters_are_shown_as_symbols_and_newlines_and_tabs_kept():
    hostile = "a\x1b]0;title\x07b\tc\nd\x1b[2J\r\n\x9b\u202eevil\x00"
    assert visible(hostile) == "a␛]0;title␇b\tc\nd␛[2J\n\\x9b<U+202E>evil␀"
    assert visible("plain text, ünïcode, 中文") == "plain text, ünïcode, 中文"


def test_escape_sequences_from_model_and_tools_never_reach_the_screen(api, screen_agent, workspace):
    (workspace / "evil.txt").write_text("title\x1b]0;pwned\x07 clip\x1b]52;c;cGF3bmVk\x07\n")
    api.add({"content": [text("Look\x1b[2J here."), tool_use("read_file", {"path": "evil.txt"})]})
    api.add({"content": [text("Done\x1b]0;x\x07.")]})
    agent, screen = screen_agent()
    run(agent.run("go"))
    shown = screen()
    assert "\x1b" not in shown and "\x07" not in shown
    assert "Look␛[2J here." in shown and "Done␛]0;x␇." in shown
    assert "title␛]0;pwned␇ clip␛]52;c;cGF3bmVk␇" in shown


def test_finished_text_is_rendered_as_markdown(api, screen_agent):
    answer = "## Summary\n\nThe fix is **small**:\n\n- one\n- two\n\n```python\nx = 1\n```\n\nEnd."
    api.add({"content": [text(answer)]})
    agent, screen = screen_agent()
    run(agent.run("go"))
    shown = screen()
    assert "Summary" in shown and "##" not in shown
    assert "The fix is small:" in shown and "**" not in shown
    assert "• one" in shown and "• two" in shown
    assert "x = 1" in shown and "```" not in shown
    assert shown.index("Summary") < shown.index("• one") < shown.index("x = 1") < shown.index("End")


def test_markdown_blocks_are_cut_only_where_a_new_block_starts():
    done, rest = split_finished_blocks("Para one.\n\nPara two is still")
    assert (done, rest) == ("Para one.\n\n", "Para two is still")
    # a loose list, an indented continuation and an open code fence stay together
    for waiting in ("1. a\n\n2. b\n\n   more\n", "```\ncode\n\nmore code\n"):
        assert split_finished_blocks(waiting) == ("", waiting)
    assert split_finished_blocks("```\ncode\n```\nafter") == ("```\ncode\n```\n", "after")


def test_long_lines_wrap_at_word_boundaries(api, screen_agent):
    words = " ".join(f"word{n:03d}" for n in range(40))
    api.add({"content": [text(words)]})
    agent, screen = screen_agent()
    run(agent.run("go"))
    lines = [line.strip() for line in screen().splitlines() if "word" in line]
    assert len(lines) > 1
    assert all(part.startswith("word") and len(part) == 7 for ln in lines for part in ln.split())


def test_an_edit_shows_a_coloured_diff_and_the_model_gets_the_short_result(
    api, screen_agent, workspace
):
    (workspace / "app.py").write_text("def greet():\n    return 'hello'\n")
    edit = {"path": "app.py", "old_text": "'hello'", "new_text": "'hello, world'"}
    api.add({"content": [tool_use("edit_file", edit)]})
    api.add({"content": [tool_use("write_file", {"path": "app.py", "content": "pass\n"})]})
    api.add({"content": [text("Edited.")]})
    agent, screen = screen_agent()
    run(agent.run("edit"))
    shown = screen()
    assert "-    return 'hello'\n+    return 'hello, world'" in shown
    assert "-def greet():\n-    return 'hello, world'\n+pass" in shown
    model_saw = [b for b in api.accepted[1]["messages"][-1]["content"]]
    assert model_saw[0]["content"] == "Replaced 1 occurrence in app.py."


def test_a_long_diff_keeps_its_head_and_tail(api, screen_agent, workspace):
    (workspace / "big.txt").write_text("".join(f"old {n}\n" for n in range(100)))
    new = "".join(f"new {n}\n" for n in range(100))
    api.add({"content": [tool_use("write_file", {"path": "big.txt", "content": new})]})
    api.add({"content": [text("Rewritten.")]})
    agent, screen = screen_agent()
    run(agent.run("rewrite"))
    shown = screen()
    assert "-old 0" in shown and "+new 99" in shown and "more diff lines" in shown
    assert "+new 50" not in shown


def test_each_reply_shows_tokens_and_cost_and_the_session_adds_them_up(api, screen_agent):
    usage = {"input_tokens": 1000, "cache_read_input_tokens": 20_000, "output_tokens": 500}
    api.add({"content": [tool_use("read_file", {"path": "."})], "usage": usage})
    api.add({"content": [text("Hi.")], "usage": usage})
    agent, screen = screen_agent()
    agent.model = "claude-sonnet-4-6"
    run(agent.run("go"))
    agent.ui.show_totals()
    shown = screen()
    # 1000 * $3 + 20000 * $0.30 + 500 * $15 per million tokens = $0.0165; the reply's line
    # counts all input together, the total splits it by cache use.
    assert shown.count("21,000 in · 500 out · $0.0165") == 2
    assert "session total: 2 model calls · 2,000 in · 40,000 cache read" in shown
    assert "$0.0330" in shown


def test_an_unknown_model_shows_tokens_only():
    line = Usage.of_reply("my-local-model", {"input_tokens": 7, "output_tokens": 3}).line()
    assert line == "7 in · 0 cache read · 0 cache write · 3 out"


def test_the_reminder_is_announced_on_screen(api, screen_agent):
    for _ in range(3):
        api.add({"content": [tool_use("read_file", {"path": "."})]})
    api.add({"content": [text("Done.")]})
    agent = None
    todo = TodoListMiddleware(extra_ref=lambda: agent.extra)
    agent, screen = screen_agent(middleware=[todo])
    run(agent.run("look around"))
    shown = screen()
    assert shown.count("↻ plan reminder (3 turns without a plan)") == 1
    assert "<reminder>" not in shown


def test_a_tool_call_cut_off_by_max_tokens_is_shown(api, make_agent):
    cut = tool_use("write_file", partial_json='{"path": "big.txt", "content": "aaaa')
    api.add({"content": [text("Writing."), cut], "stop_reason": "max_tokens"})
    api.add({"content": [text("In parts then.")]})
    agent = make_agent()
    run(agent.run("write big"))
    assert any("its write_file call was incomplete and was not run" in n for n in agent.ui.notices)


def test_no_line_on_screen_shows_the_key(monkeypatch, workspace):
    # Whatever a notice quotes (a path a workspace file names, an error's text).
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-SCREEN-0123456789")
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=80, color_system=None), workspace)
    ui.notice("tools/sk-ant-test-SCREEN-0123456789.py does not exist")
    assert output.getvalue() == "! tools/[redacted].py does not exist\n"
