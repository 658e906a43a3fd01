"""What mutation testing of the loop and its middlewares found unchecked by the fast tests."""

from __future__ import annotations

import io
import json

from conftest import run

from agent import refusal_notice
from fakeapi import text, tool_use
from middleware import ToolCallLog


def test_the_tool_call_log_has_one_line_per_call_with_name_input_error_flag_and_size(
    api, make_agent, workspace
):
    (workspace / "notes.txt").write_text("hello\n")
    ok = tool_use("read_file", {"path": "notes.txt"})
    missing = tool_use("read_file", {"path": "gone.txt"})
    api.add({"content": [ok, missing]})
    api.add({"content": [text("Done.")]})
    log = io.StringIO()
    agent = make_agent(middleware=[ToolCallLog(log)])
    run(agent.run("read"))
    results = {b["tool_use_id"]: b for b in agent.messages[-2]["content"]}
    entries = [json.loads(line) for line in log.getvalue().splitlines()]
    assert entries == [
        {
            "tool": "read_file",
            "input": {"path": "notes.txt"},
            "is_error": False,
            "output_chars": len(results[ok["id"]]["content"]),
        },
        {
            "tool": "read_file",
            "input": {"path": "gone.txt"},
            "is_error": True,
            "output_chars": len(results[missing["id"]]["content"]),
        },
    ]
    assert entries[0]["output_chars"] > len("hello")


def test_a_refusal_notice_gives_the_apis_explanation_and_category_when_it_has_them():
    full = refusal_notice({"type": "refusal", "explanation": " Not this. ", "category": "cyber"})
    assert full.startswith("The model declined this request: Not this. (category: cyber). ")
    only_category = refusal_notice({"type": "refusal", "category": "cyber"})
    assert only_category.startswith("The model declined this request: (category: cyber). ")
    bare = refusal_notice({"type": "refusal"})
    assert bare.startswith("The model declined this request. The request is set aside")
    assert all("your next input starts clean" in n for n in (full, only_category, bare))
