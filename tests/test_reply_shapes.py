"""The shapes real replies come in (fakeapi/replies.py), played through planloop to the fake."""

from __future__ import annotations

import io
import json
import logging

from conftest import RecordingUI, fake_api_client, results_by_id, run, run_cli
from rich.console import Console

import model
from agent import Agent
from cli.render import HeadlessUI, TerminalUI
from fakeapi import replies, text, tool_use
from middleware.context import ContextManager


def play(api, entries: list[dict]) -> None:
    for entry in entries:
        api.add(entry)


def test_thinking_then_a_tool_call(api, make_agent):
    play(api, replies.thinking_then_tool_call("echo listed"))
    agent = make_agent(thinking="adaptive")
    assert run(agent.run("list the folder")) == "The folder is listed above."
    echoed = api.accepted[1]["messages"][1]["content"]
    assert [b["type"] for b in echoed] == ["thinking", "text", "tool_use"]


def test_redacted_thinking(api, make_agent):
    play(api, replies.redacted_thinking_reply())
    agent = make_agent(thinking=2048)
    assert run(agent.run("check")) == "Checked."
    echoed = api.accepted[1]["messages"][1]["content"]
    assert [b["type"] for b in echoed] == ["redacted_thinking", "thinking", "tool_use"]


def test_two_tool_calls_in_one_reply(api, make_agent, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    play(api, replies.two_tool_calls())
    assert run(make_agent().run("read both")) == "Both read."
    results = list(results_by_id(api.accepted[1]).values())
    assert "alpha" in results[0]["content"] and "beta" in results[1]["content"]


def test_web_search_with_citations_keeps_the_paragraph_and_the_list(api, make_agent):
    play(api, replies.web_search_with_citations())
    agent = make_agent()
    answer = run(agent.run("what is planloop?"))
    assert answer == (
        "Let me search for that.\n\nAccording to its page, planloop is a small agent harness.\n\n"
        "- it runs one loop\n- it keeps a plan"
    )


def test_web_search_citations_on_screen_are_one_paragraph(api, make_agent, workspace):
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=120, color_system=None), workspace)
    play(api, replies.web_search_with_citations())
    run(make_agent(ui=ui).run("what is planloop?"))
    screen = output.getvalue()
    assert "According to its page, planloop is a small agent harness." in screen
    assert "• it runs one loop" in screen  # still a list


def test_web_searches_are_shown_and_priced_and_not_taken_as_the_context_size(api, make_agent):
    play(api, replies.web_search_with_citations())
    context = ContextManager(lambda: agent.context, lambda s, p: agent.ask_model(s, p))
    ui = HeadlessUI(Console(file=io.StringIO()))
    agent = make_agent(middleware=[context], ui=ui)
    agent.model = "claude-sonnet-4-6"
    run(agent.run("what is planloop?"))
    assert ui.usage.web_searches == 1
    assert "1 web search" in ui.usage.line()
    tokens = 465_000 * 3.0 / 1e6 + 230 * 15.0 / 1e6
    assert abs(ui.usage.cost - (tokens + 0.01)) < 1e-9  # $10 per 1,000 searches
    assert "context_usage" not in agent.extra  # 465K summed tokens are not one request
    assert context.status() == "context 0% of 200K"


def test_a_paused_search_resumes_as_documented(api, make_agent):
    play(api, replies.paused_web_search())
    agent = make_agent()
    assert run(agent.run("search")) == "Found it."
    assert api.accepted[1]["messages"][-1]["role"] == "assistant"


def test_a_refusal_in_the_recorded_shape(api, make_agent):
    play(api, replies.refusal())
    api.add({"content": [text("Fine.")]})
    agent = make_agent()
    run(agent.run("attack that server"))
    assert "harm to computer systems" in agent.ui.notices[-1]
    run(agent.run("tell me a joke"))
    assert [m["role"] for m in api.accepted[1]["messages"]] == ["user"]


def test_a_cut_off_tool_call(api, make_agent, workspace):
    play(api, replies.cut_off_tool_call())
    assert run(make_agent().run("write big")) == "I will write it in parts."
    assert not (workspace / "big.txt").exists()


# ---- errors and retries, in words that match them -------------------------------------------


def test_a_mid_stream_internal_error_is_not_called_an_overload(api, make_agent, monkeypatch):
    monkeypatch.setattr(model, "RETRY_BASE_DELAY", 0.01)
    internal = {"type": "api_error", "message": "Internal server error"}
    api.add({"mid_stream_error": internal, "content": [text("partial")]})
    api.add({"content": [text("ok")]})
    agent = make_agent()
    run(agent.run("go"))
    assert agent.ui.notices == ["The API had an internal error; retrying in 0 s."]


def test_when_retries_run_out_the_error_names_the_failure_not_status_200(
    api, make_agent, monkeypatch
):
    monkeypatch.setattr(model, "RETRY_BASE_DELAY", 0.01)
    for _ in range(model.STREAM_RETRIES + 1):
        api.add({"mid_stream_error": {"type": "overloaded_error", "message": "Overloaded"}})
    try:
        run(make_agent().run("go"))
    except model.ModelError as err:
        message = str(err)
    assert "200" not in message
    assert message == (
        "The API's reply broke off (overloaded_error: Overloaded, 4 times). Try again in a moment."
    )


def test_a_rate_limit_says_so_and_when_it_retries(api, workspace):
    limited = {"type": "rate_limit_error", "message": "Number of request tokens has exceeded"}
    api.add({"status": 429, "error": limited, "headers": {"retry-after-ms": "20"}})
    api.add({"content": [text("ok")]})
    client = fake_api_client(api.base_url, max_retries=1)  # the SDK's own retry, as in use
    agent = Agent(client=client, workspace=workspace, model="test-model", ui=RecordingUI())
    assert run(agent.run("go")) == "ok"
    [notice] = agent.ui.notices
    assert notice.startswith("planloop is rate limited by the API (429); retrying in 0 s, at ")


def test_the_sdk_does_not_write_out_the_whole_conversation_for_its_log_on_each_call(
    api, make_agent
):
    # With its logger at DEBUG the SDK dumps every request (the whole conversation so far)
    # into a log record before sending it: a cost per call that grows with the session.
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(str(record.msg))
    logging.getLogger(model.SDK_LOGGER).addHandler(handler)
    try:
        api.add({"content": [tool_use("read_file", {"path": "missing.txt"})]})
        api.add({"content": [text("ok")]})
        assert run(make_agent().run("go")) == "ok"
    finally:
        logging.getLogger(model.SDK_LOGGER).removeHandler(handler)
    assert len(api.accepted) == 2
    assert not [message for message in seen if message.startswith("Request options")]


def test_a_broken_stream_on_screen_is_marked_and_not_shown_twice(
    api, make_agent, workspace, monkeypatch
):
    monkeypatch.setattr(model, "RETRY_BASE_DELAY", 0.01)
    output = io.StringIO()
    ui = TerminalUI(Console(file=output, width=100, color_system=None), workspace)
    overloaded = {"type": "overloaded_error", "message": "Overloaded"}
    api.add({"mid_stream_error": overloaded, "content": [text("First part.\n\nSecond hal")]})
    api.add({"content": [text("First part.\n\nSecond half.")]})
    run(make_agent(ui=ui).run("go"))
    screen = output.getvalue()
    assert "Second hal\n" not in screen  # the unfinished paragraph was dropped, not printed
    before, after = screen.split("↻ The answer above broke off; it starts over below.")
    assert "First part." in before and "First part." in after and "Second half." in after


def test_compaction_as_the_first_call_keeps_the_cost_and_the_apis_count(api, env, workspace):
    from test_context import TOO_LONG, ScriptedModel, read_steps, write_files

    write_files(workspace, count=3, chars=20_000)
    steps = ScriptedModel(api, read_steps(3))
    args = ("--model", "claude-sonnet-4-6", "--thinking", "off")
    assert run_cli("-p", "read every file", *args, cwd=workspace, env=env).returncode == 0
    steps.steps.extend([TOO_LONG, {"content": [text("Picked up again.")]}])
    resumed = run_cli(
        "-p", "go on", "--resume", "--output-format", "json", *args, cwd=workspace, env=env
    )
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["cost_usd"] is not None and summary["cost_usd"] > 0
    assert "Context was at 101% of 200K" in resumed.stderr  # 201,884 tokens, the API said
