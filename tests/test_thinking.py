"""Extended thinking against the strict fake: the setting, the rules of a tool loop, the display."""

from __future__ import annotations

import io

import pytest
from conftest import run, run_cli
from rich.console import Console
from test_context import (
    ScriptedModel,
    assert_pairs_intact,
    placeholders,
    starts_from_notes,
    with_context,
)

from cli.render import TerminalUI
from fakeapi import redacted_thinking, text, thinking, tool_use
from fakeapi.validate import RequestRejected, validate_request
from model import default_thinking


def test_adaptive_is_the_default_only_where_the_model_has_it():
    assert default_thinking("claude-sonnet-4-6") == "adaptive"
    assert default_thinking("claude-opus-4-7") == "adaptive"
    assert default_thinking("claude-opus-4-1") == "off"  # manual thinking only: needs a budget
    assert default_thinking("test-model") == "off"


@pytest.mark.parametrize(
    ("setting", "sent"),
    [
        (None, {"type": "adaptive"}),
        ("off", None),
        (2048, {"type": "enabled", "budget_tokens": 2048}),
    ],
)
def test_the_setting_becomes_the_requests_thinking_field(api, make_agent, setting, sent):
    api.add({"content": [text("ok")]})
    agent = make_agent(thinking=setting)
    agent.model = "claude-sonnet-4-6"
    agent.thinking = setting or default_thinking(agent.model)
    run(agent.run("hi"))
    assert api.accepted[0].get("thinking") == sent


@pytest.mark.parametrize("budget", [1000, 16_000, 50_000])
def test_a_budget_the_api_would_refuse_is_refused_before_any_request(make_agent, budget):
    with pytest.raises(ValueError, match="at least 1024 tokens and below max_tokens"):
        make_agent(thinking=budget)


def test_thinking_then_a_tool_call_goes_back_first_and_signed(api, make_agent):
    call = tool_use("bash", {"command": "echo hi"})
    api.add({"content": [thinking("List the folder first.\nThen read."), call]})
    api.add({"content": [thinking("It printed hi."), text("Done.")]})
    agent = make_agent(thinking="adaptive")
    assert run(agent.run("go")) == "Done."
    second = api.accepted[1]
    assert second["thinking"] == {"type": "adaptive"}
    block = second["messages"][1]["content"][0]
    assert block["type"] == "thinking" and block["signature"]


def test_redacted_thinking_goes_back_exactly(api, make_agent):
    call = tool_use("bash", {"command": "true"})
    api.add({"content": [redacted_thinking("sealed"), call]})
    api.add({"content": [text("ok")]})
    agent = make_agent(thinking=4096)
    run(agent.run("go"))
    assert api.accepted[1]["messages"][1]["content"][0]["type"] == "redacted_thinking"


def test_the_fake_refuses_a_tool_loop_that_lost_its_thinking_and_edited_redacted_data():
    def body(first_block: dict) -> dict:
        call = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {}}
        result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}
        return {
            "model": "m",
            "max_tokens": 2000,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [first_block, call]},
                {"role": "user", "content": [result]},
            ],
        }

    with pytest.raises(RequestRejected, match="must start with a thinking block"):
        validate_request(body({"type": "text", "text": "Let me look."}), lambda t, s: True)
    # Adaptive thinking may skip thinking in a turn: the service accepts its own answer.
    adaptive = {**body({"type": "text", "text": "Let me look."}), "thinking": {"type": "adaptive"}}
    validate_request(adaptive, lambda t, s: True)
    edited = {"type": "redacted_thinking", "data": "sealed.AAAA"}
    with pytest.raises(RequestRejected, match="redacted_thinking block data is invalid"):
        validate_request(body(edited), lambda t, s: False)


def test_a_setting_changed_mid_tool_loop_applies_from_a_clean_input(api, make_agent):
    api.add({"content": [tool_use("bash", {"command": "true"})]})
    agent = make_agent(thinking="off", max_turns=1)
    run(agent.run("start"))  # stopped by the turn limit with the loop still open
    agent.thinking = 2048
    api.add({"content": [text("Loop closed.")]})
    run(agent.run("go on"))
    assert "thinking" not in api.accepted[1]  # the open loop began without thinking
    api.add({"content": [thinking("Now I can think."), text("ok")]})
    run(agent.run("next"))
    assert api.accepted[2]["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_a_resumed_session_sends_its_thinking_blocks_back(api, env, workspace):
    api.add({"content": [thinking("Look first."), tool_use("bash", {"command": "echo hi"})]})
    api.add({"content": [thinking("Fine."), text("Looked.")]})
    args = ("--model", "claude-sonnet-4-6", "--yes", "--no-sandbox")
    first = run_cli("-p", "look", *args, cwd=workspace, env=env)
    assert first.returncode == 0, first.stderr
    api.add({"content": [thinking("Go on."), text("Resumed.")]})
    resumed = run_cli("-p", "go on", "--resume", *args, cwd=workspace, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "Resumed.\n"
    sent = api.accepted[2]
    assert sent["thinking"] == {"type": "adaptive"}
    kinds = [b["type"] for m in sent["messages"] if m["role"] == "assistant" for b in m["content"]]
    assert kinds.count("thinking") == 2  # both came back signed; the fake checked them


def test_a_bad_thinking_flag_is_one_line_and_exit_2(env, workspace):
    for value in ("lots", "512", "20000"):
        result = run_cli("-p", "hi", "--thinking", value, cwd=workspace, env=env)
        assert result.returncode == 2
        assert "--thinking" in result.stderr and len(result.stderr.splitlines()) == 1


def test_compaction_with_thinking_on_keeps_the_loops_last_thinking(api, make_agent, workspace):
    from test_context import write_files

    write_files(workspace, count=8, chars=12_000)
    steps = [
        {
            "content": [
                thinking(f"Read file {i} next."),
                tool_use("read_file", {"path": f"f{i}.txt"}),
            ]
        }
        for i in range(8)
    ]
    model = ScriptedModel(api, [*steps, {"content": [thinking("All read."), text("Done.")]}])
    api.context_limit = 12_000
    agent, _ = with_context(make_agent, window=12_000, thinking="adaptive")
    assert run(agent.run("read all the files")) == "Done."
    assert model.compaction_calls
    after = next(r for r in model.requests if starts_from_notes(r))
    assert after["messages"][1]["content"][0]["type"] == "thinking"
    for request in model.requests:
        assert_pairs_intact(request)


def test_thinking_is_shown_folded_and_in_full_after_the_toggle(api, make_agent, workspace):
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=100, color_system=None), workspace)
    api.add({"content": [thinking("First idea.\nSecond idea.\nThird."), text("Answer.")]})
    agent = make_agent(ui=ui, thinking="adaptive")
    run(agent.run("think"))
    assert "∴ First idea. … (+2 lines; /thinking shows them)" in output.getvalue()
    assert "Second idea." not in output.getvalue()
    ui.thinking_in_full = True
    api.add({"content": [thinking("One.\nTwo."), text("Again.")]})
    run(agent.run("again"))
    assert "∴ One.\n  Two." in output.getvalue()


def test_compaction_keeps_the_loops_first_thinking_when_later_replies_have_none(
    api, make_agent, workspace
):
    from test_context import write_files

    write_files(workspace, count=8, chars=12_000)
    first = {"content": [thinking("Read them all."), tool_use("read_file", {"path": "f0.txt"})]}
    later = [{"content": [tool_use("read_file", {"path": f"f{i}.txt"})]} for i in range(1, 8)]
    model = ScriptedModel(api, [first, *later, {"content": [text("Done.")]}])
    api.context_limit = 12_000
    agent, _ = with_context(make_agent, window=12_000, thinking=4096)
    assert run(agent.run("read all the files")) == "Done."  # manual thinking: the fake checks
    for request in model.requests:
        assert_pairs_intact(request)
    assert any(placeholders(r) for r in model.requests)  # the loop's old output was cleared


def test_the_view_page_shows_thinking_redacted_thinking_and_server_calls_escaped():
    from view import render_call

    content = [
        {"type": "thinking", "thinking": "Check <script>.", "signature": "s"},
        {"type": "redacted_thinking", "data": "opaque"},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"q": "<b>"},
        },
    ]
    html, _ = render_call(content, {}, None)
    assert "Check &lt;script&gt;." in html and "<script>" not in html
    assert "thinking (kept encrypted by the API)" in html
    assert "web_search" in html and "&lt;b&gt;" in html
