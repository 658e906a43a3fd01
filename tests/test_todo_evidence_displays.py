"""Verified, claimed and cancelled items apart: the checklist, /todos, the record, the view."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

from rich.console import Console

from cli.prompt import show_todos
from cli.render import TerminalUI, checklist
from todo.manager import render_items
from view import SessionLog, render_page

PLAN = [
    {"content": "Fix the parser", "status": "completed", "check": "pytest -q", "verified": True},
    {"content": "Update the docs", "status": "completed"},
    {"content": "Port to Windows", "status": "cancelled", "reason": "out of scope"},
    {"content": "Release", "status": "in_progress", "check": "make dist"},
]
SGR = re.compile(r"\x1b\[([0-9;]*)m")
HISTORY = [
    {
        "version": 1,
        "tool_use_id": "toolu_1",
        "changes": [
            ["added", "Fix the parser", "in_progress"],
            ["added", "Port to Windows", "pending"],
        ],
    },
    {
        "version": 2,
        "tool_use_id": "toolu_2",
        "changes": [
            ["status", "Fix the parser", "in_progress", "completed", "checked"],
            ["cancelled", "Port to Windows", "out of scope"],
        ],
    },
]


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, color_system="truecolor", width=100), out


def struck_lines(ansi: str) -> list[str]:
    """The lines where some text is drawn with the strike attribute (SGR 9)."""
    return [
        line
        for line in ansi.splitlines()
        if any("9" in codes.split(";") for codes in SGR.findall(line))
    ]


def test_the_checklist_marks_checked_claimed_and_struck_through_cancelled_items():
    console, out = terminal()
    console.print(checklist(PLAN))
    shown = out.getvalue()
    text_console = Console(file=io.StringIO(), width=100, color_system=None)
    text_console.print(checklist(PLAN))
    lines = text_console.file.getvalue()
    assert "todos 2/3 · 1 checked · 1 cancelled" in lines
    assert "[x] Fix the parser  ✓ checked" in lines
    claimed = next(line for line in lines.splitlines() if "Update the docs" in line)
    assert "[x] Update the docs" in claimed and "✓" not in claimed
    assert "[-] Port to Windows  cancelled: out of scope" in lines
    assert "[>] Release  check: make dist" in lines
    # Struck through: the strike attribute (SGR 9) is on the cancelled item, and only there.
    [struck] = struck_lines(shown)
    assert "Port to Windows" in struck


def test_todos_and_todos_history_in_the_terminal():
    console = Console(file=io.StringIO(), width=100, color_system=None)
    ui = TerminalUI(console)
    agent = SimpleNamespace(extra={"todos": PLAN, "todo_history": HISTORY})
    show_todos(agent, ui, "/todos")
    show_todos(agent, ui, "/todos --history")
    shown = console.file.getvalue()
    assert "✓ checked" in shown and "cancelled: out of scope" in shown
    history = shown[shown.index("v1") :]
    assert history.splitlines() == [
        "v1",
        "  + Fix the parser [in_progress]",
        "  + Port to Windows [pending]",
        "v2",
        "  Fix the parser: in_progress → completed (✓ checked)",
        "  ✗ Port to Windows cancelled: out of scope",
    ]


def test_todos_history_before_any_write():
    console = Console(file=io.StringIO(), width=100, color_system=None)
    show_todos(SimpleNamespace(extra={}), TerminalUI(console), "/todos --history")
    assert "(no record of the plan yet)" in console.file.getvalue()


def test_the_text_the_model_reads_tells_checked_claimed_and_cancelled_apart():
    assert render_items(PLAN).splitlines() == [
        "[x] Fix the parser (✓ checked)",
        "[x] Update the docs",
        "[-] Port to Windows (cancelled: out of scope)",
        "[>] Release (check: make dist)",
        "(2/3 done, 1 checked, 1 cancelled)",
    ]


def test_the_view_shows_checked_claimed_cancelled_and_the_record(tmp_path):
    first = {"todos": [{"content": "Fix the parser", "status": "in_progress"},
                       {"content": "Port to Windows", "status": "pending"}]}  # fmt: skip
    second = {"todos": [{"content": "Fix the parser", "status": "completed", "check": "pytest"},
                        {"content": "Port <b>to</b> Windows", "status": "cancelled",
                         "reason": "out of <scope>"}]}  # fmt: skip
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [tool("toolu_1", first)]},
        {"role": "user", "content": [ok("toolu_1")]},
        {"role": "assistant", "content": [tool("toolu_2", second)]},
        {"role": "user", "content": [ok("toolu_2")]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]
    history = [dict(HISTORY[0]), dict(HISTORY[1])]
    history[1]["changes"] = [
        ["status", "Fix the parser", "in_progress", "completed", "checked"],
        ["cancelled", "Port <b>to</b> Windows", "out of <scope>"],
    ]
    final = [
        {**second["todos"][0], "verified": True},
        {"content": "Claimed only", "status": "completed"},
    ]
    log = SessionLog(
        "s1", tmp_path / "s1.jsonl", messages=messages, usages=[None, None, None],
        final_extra={"todos": final, "todo_history": history},
    )  # fmt: skip
    page = render_page(log)
    assert "The plan changed (v2)" in page
    assert '☑ Fix the parser <span class="proof checked">✓ checked</span>' in page
    assert (
        "☒ <s>Port &lt;b&gt;to&lt;/b&gt; Windows</s> "
        '<span class="proof">cancelled: out of &lt;scope&gt;</span>'
    ) in page
    assert 'Claimed only <span class="proof claimed">claimed</span>' in page
    assert "<b>to</b>" not in page and "<scope>" not in page  # every value escaped
    assert "The plan's record" in page
    assert "v1: + Fix the parser [in_progress]; + Port to Windows [pending]" in page
    assert "Fix the parser: in_progress → completed (✓ checked)" in page


def tool(call_id: str, todos: dict) -> dict:
    return {"type": "tool_use", "id": call_id, "name": "todo_write", "input": todos}


def ok(call_id: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "Todo list updated"}
