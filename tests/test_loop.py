"""The agent loop against the strict fake API: tools, bad input, stop reasons, faults, cancel."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from conftest import results_by_id, run

import model
from fakeapi import text, thinking, tool_use
from middleware import Middleware, TurnAction
from model import ModelError
from tools import Tool, ToolError, default_tools


def test_plain_answer_ends_the_turn_and_is_returned(api, make_agent):
    api.add({"content": [text("Hello there.")]})
    agent = make_agent()
    assert run(agent.run("hi")) == "Hello there."
    assert [m["role"] for m in agent.messages] == ["user", "assistant"]
    request = api.accepted[0]
    assert request["stream"] is True
    assert "temperature" not in request
    assert [t["name"] for t in request["tools"]] == ["bash", "read_file", "write_file", "edit_file"]


def test_tool_round_trip_writes_file_and_sends_result_back(api, make_agent, workspace):
    call = tool_use("write_file", {"path": "notes/a.txt", "content": "one\ntwo\n"})
    api.add({"content": [text("Writing."), call]})
    api.add({"content": [text("Done.")]})
    agent = make_agent()
    assert run(agent.run("write a file")) == "Done."
    assert (workspace / "notes/a.txt").read_text() == "one\ntwo\n"
    result = results_by_id(api.accepted[1])[call["id"]]
    assert "is_error" not in result and "notes/a.txt" in result["content"]


def test_several_calls_get_results_in_call_order(api, make_agent, workspace):
    (workspace / "a.txt").write_text("alpha\n")
    calls = [
        tool_use("read_file", {"path": "a.txt"}),
        tool_use("bash", {"command": "echo hi"}),
        tool_use("read_file", {"path": "missing.txt"}),
    ]
    api.add({"content": calls})
    api.add({"content": [text("ok")]})
    run(make_agent().run("go"))
    blocks = api.accepted[1]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in blocks] == [c["id"] for c in calls]
    assert "alpha" in blocks[0]["content"]
    assert "hi" in blocks[1]["content"]
    assert blocks[2]["is_error"] is True and "not found" in blocks[2]["content"].lower()


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (tool_use("launch_rockets", {}), "Unknown tool 'launch_rockets'. Use one of: bash"),
        (tool_use("read_file", {}), "path"),
        (tool_use("read_file", {"path": 7}), "path"),
        (tool_use("write_file", {"path": "../outside.txt", "content": "x"}), "workspace"),
        (tool_use("edit_file", {"path": "a.txt", "old_text": "", "new_text": "x"}), "old_text"),
    ],
)
def test_bad_tool_calls_become_error_results_and_the_loop_goes_on(
    api, make_agent, workspace, call, expected
):
    (workspace / "a.txt").write_text("abc\n")
    api.add({"content": [call]})
    api.add({"content": [text("recovered")]})
    assert run(make_agent().run("go")) == "recovered"
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True
    assert expected in result["content"]
    assert not (workspace.parent / "outside.txt").exists()


def test_a_handler_that_raises_becomes_an_error_result(api, make_agent):
    def explode(workspace, what: str) -> str:
        raise RuntimeError(f"cannot {what}")

    def refuse(workspace, what: str) -> str:
        raise ToolError(f"will not {what}; ask for something else")

    schema = {"type": "object", "properties": {"what": {"type": "string"}}, "required": ["what"]}
    tools = [Tool("explode", "Fails.", schema, explode), Tool("refuse", "Refuses.", schema, refuse)]
    calls = [tool_use("explode", {"what": "fly"}), tool_use("refuse", {"what": "swim"})]
    api.add({"content": calls})
    api.add({"content": [text("ok")]})
    run(make_agent(tools=tools).run("go"))
    results = results_by_id(api.accepted[1])
    assert results[calls[0]["id"]]["content"] == "explode failed: RuntimeError: cannot fly"
    assert results[calls[1]["id"]]["content"] == "will not swim; ask for something else"
    assert all(r["is_error"] for r in results.values())


def test_call_cut_off_by_max_tokens_is_not_run_and_is_explained(api, make_agent, workspace):
    cut = tool_use("write_file", partial_json='{"path": "big.txt", "content": "aaaa')
    api.add({"content": [text("Writing the file."), cut], "stop_reason": "max_tokens"})
    api.add({"content": [text("I will write it in parts.")]})
    assert run(make_agent().run("write big")) == "I will write it in parts."
    assert not (workspace / "big.txt").exists()
    result = results_by_id(api.accepted[1])[cut["id"]]
    assert result["is_error"] is True
    assert "cut off at the output token limit" in result["content"]


def test_text_cut_off_by_max_tokens_is_shown_as_truncated(api, make_agent):
    api.add({"content": [text("The answer is long and")], "stop_reason": "max_tokens"})
    agent = make_agent()
    assert run(agent.run("explain")) == "The answer is long and"
    assert any("cut off" in n for n in agent.ui.notices)


def test_refusal_ends_the_turn_with_a_note(api, make_agent):
    api.add({"content": [text("I can't help with that.")], "stop_reason": "refusal"})
    agent = make_agent()
    run(agent.run("something bad"))
    assert len(api.accepted) == 1
    assert any("declined" in n for n in agent.ui.notices)


def test_a_stop_sequence_ends_the_turn_like_end_turn(api, make_agent):
    api.add({"content": [text("Here is the list")], "stop_reason": "stop_sequence"})
    agent = make_agent()
    assert run(agent.run("list")) == "Here is the list"
    assert len(api.accepted) == 1 and agent.context.stop_reason is None


def test_a_blank_prompt_is_refused_before_any_request(api, make_agent):
    agent = make_agent()
    with pytest.raises(ValueError, match="The prompt is empty"):
        run(agent.run("  \n "))
    assert api.requests == [] and agent.messages == []


def test_pause_turn_sends_the_content_back_and_continues(api, make_agent):
    api.add({"content": [text("Searching…")], "stop_reason": "pause_turn"})
    api.add({"content": [text("Found it.")]})
    assert run(make_agent().run("search")) == "Found it."
    second = api.accepted[1]["messages"]
    # As documented: the paused reply goes back last, with no user message after it.
    assert len(second) == 2 and second[1]["role"] == "assistant"
    assert [(b["type"], b["text"]) for b in second[1]["content"]] == [("text", "Searching…")]


def test_thinking_blocks_go_back_unchanged_with_their_signature(api, make_agent):
    call = tool_use("bash", {"command": "true"})
    api.add({"content": [thinking("Let me check the folder first."), call]})
    api.add({"content": [text("ok")]})
    agent = make_agent()
    run(agent.run("go"))
    sent = api.accepted[1]["messages"][1]["content"][0]
    assert sent["type"] == "thinking" and sent["thinking"] == "Let me check the folder first."
    assert sent["signature"]  # the fake verified it matches what it signed


def test_overloaded_error_mid_stream_is_retried(api, make_agent, monkeypatch):
    monkeypatch.setattr(model, "RETRY_BASE_DELAY", 0.01)
    overloaded = {"type": "overloaded_error", "message": "Overloaded"}
    api.add({"mid_stream_error": overloaded, "content": [text("partial")]})
    api.add({"content": [text("second try worked")]})
    agent = make_agent()
    assert run(agent.run("go")) == "second try worked"
    assert any("overloaded" in n for n in agent.ui.notices)


def test_overloaded_mid_stream_gives_up_after_bounded_retries(api, make_agent, monkeypatch):
    monkeypatch.setattr(model, "RETRY_BASE_DELAY", 0.01)
    for _ in range(model.STREAM_RETRIES + 1):
        api.add({"mid_stream_error": {"type": "overloaded_error", "message": "Overloaded"}})
    agent = make_agent()
    with pytest.raises(ModelError, match="Overloaded"):
        run(agent.run("go"))
    assert len(api.accepted) == model.STREAM_RETRIES + 1
    assert agent.messages[-1]["role"] == "user"  # nothing half-received was kept


def test_bad_request_becomes_one_clear_model_error(api, make_agent):
    message = "max_tokens: Field required"
    api.add({"status": 400, "error": {"type": "invalid_request_error", "message": message}})
    with pytest.raises(
        ModelError, match="The API rejected the request: max_tokens: Field required"
    ):
        run(make_agent().run("go"))


def test_turn_limit_stops_a_runaway_loop_with_a_reason(api, make_agent):
    for _ in range(3):
        api.add({"content": [tool_use("bash", {"command": "echo again"})]})
    agent = make_agent(max_turns=3)
    run(agent.run("loop forever"))
    assert len(api.accepted) == 3
    assert "Stopped after 3 model calls" in agent.context.stop_reason
    assert agent.messages[-1]["role"] == "user"  # the last calls were answered


def test_turn_limit_also_counts_paused_turns(api, make_agent):
    for _ in range(4):
        api.add({"content": [text("Still searching…")], "stop_reason": "pause_turn"})
    agent = make_agent(max_turns=3)
    run(agent.run("search"))
    assert len(api.accepted) == 3
    assert "Stopped after 3 model calls" in agent.context.stop_reason


def test_turn_limit_also_counts_turns_a_hook_sends_back_to_the_model(api, make_agent):
    class AlwaysAgain(Middleware):
        async def after_model_response(self, response, ctx, *, signal=None):
            note = {"role": "user", "content": [{"type": "text", "text": "Once more."}]}
            return TurnAction(inject_messages=[note], decision="loop_to_model")

    for _ in range(4):
        api.add({"content": [text("Done, I think.")]})
    agent = make_agent(max_turns=3, middleware=[AlwaysAgain()])
    run(agent.run("go"))
    assert len(api.accepted) == 3
    assert "Stopped after 3 model calls" in agent.context.stop_reason


def test_cancel_kills_a_running_command_and_keeps_the_conversation_valid(
    api, make_agent, workspace
):
    slow = tool_use("bash", {"command": "touch started; sleep 30; touch finished"})
    never = tool_use("bash", {"command": "touch never"})
    api.add({"content": [slow, never]})
    api.add({"content": [text("Back again.")]})
    agent = make_agent()

    async def scenario():
        task = asyncio.ensure_future(agent.run("slow"))
        while not (workspace / "started").exists():
            await asyncio.sleep(0.02)
        started = time.monotonic()
        agent.cancel()
        await task
        cancel_seconds = time.monotonic() - started
        answer = await agent.run("are you there?")
        return cancel_seconds, answer

    cancel_seconds, answer = run(scenario())
    assert cancel_seconds < 5
    assert answer == "Back again."
    assert not (workspace / "never").exists()
    results = results_by_id_from(api.accepted[1]["messages"][2])
    assert all(r["is_error"] and "Interrupted by the user" in r["content"] for r in results)
    # the new input follows the interrupted results in the same user message
    assert api.accepted[1]["messages"][2]["content"][-1]["text"].startswith("are you there")


def results_by_id_from(message: dict) -> list[dict]:
    return [b for b in message["content"] if b["type"] == "tool_result"]


def test_cancel_during_a_model_call_keeps_the_conversation_valid(api, make_agent):
    cancelled = threading.Event()

    def held_reply(body):
        # The reply is held until the cancel has been handled, however slow the machine is.
        cancelled.wait(timeout=30)
        return {"content": [text("too late")]}

    api.add(held_reply)
    api.add({"content": [text("fresh answer")]})
    agent = make_agent()

    async def scenario():
        task = asyncio.ensure_future(agent.run("first"))
        while not api.requests:  # the model call is under way
            await asyncio.sleep(0.01)
        agent.cancel()
        await task
        cancelled.set()
        return await agent.run("second")

    assert run(scenario()) == "fresh answer"
    assert agent.context.stop_reason is None
    second = api.accepted[-1]["messages"]
    assert [m["role"] for m in second] == ["user"]
    assert [b["text"] for b in second[0]["content"]] == ["first", "second"]


def test_a_crash_mid_batch_still_leaves_every_call_answered(api, make_agent):
    from middleware import Middleware

    class Broken(Middleware):  # (a check that raises blocks its call instead: test_permissions)
        async def after_tool_call(self, ctx, *, signal=None):
            raise RuntimeError("hook bug")

    call = tool_use("bash", {"command": "true"})
    api.add({"content": [call]})
    agent = make_agent(middleware=[Broken()])
    with pytest.raises(RuntimeError):
        run(agent.run("go"))
    last = agent.messages[-1]
    assert last["role"] == "user" and last["content"][0]["tool_use_id"] == call["id"]


def test_default_tools_are_the_four_workspace_tools():
    assert [t.name for t in default_tools()] == ["bash", "read_file", "write_file", "edit_file"]


def test_checkpoint_is_called_with_a_valid_conversation(api, make_agent):
    snapshots = []
    api.add({"content": [tool_use("bash", {"command": "true"})]})
    api.add({"content": [text("ok")]})
    agent = make_agent(checkpoint=lambda a: snapshots.append([m["role"] for m in a.messages]))
    run(agent.run("go"))
    assert ["user", "assistant", "user"] in snapshots
    assert snapshots[-1] == ["user", "assistant", "user", "assistant"]


def test_empty_or_blank_replies_never_make_an_invalid_request(api, make_agent):
    api.add({"content": []})
    api.add({"content": [text("\n\n"), tool_use("bash", {"command": "true"})]})
    api.add({"content": [text("  ")]})
    api.add({"content": [text("Now with words.")]})
    agent = make_agent()

    async def three_inputs():
        await agent.run("first")
        await agent.run("second")
        return await agent.run("third")

    assert run(three_inputs()) == "Now with words."
    sent = api.accepted[-1]["messages"]
    assert all(m["content"] for m in sent)
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert [b["type"] for b in sent[1]["content"]] == ["tool_use"]


def test_agent_with_no_arguments_takes_everything_from_the_environment(api, workspace, monkeypatch):
    from agent import Agent

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    monkeypatch.setenv("MODEL_ID", "model-from-env")
    monkeypatch.chdir(workspace)
    api.add({"content": [tool_use("write_file", {"path": "here.txt", "content": "x"})]})
    api.add({"content": [text("Written.")]})
    agent = Agent()
    assert run(agent.run("write here")) == "Written."
    assert api.accepted[0]["model"] == "model-from-env"
    assert (workspace / "here.txt").read_text() == "x"
    assert agent.messages[-1] == {"role": "assistant", "content": [text("Written.")]}


def test_agent_without_a_key_says_how_to_set_one(monkeypatch):
    from agent import Agent

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with pytest.raises(ModelError, match="set ANTHROPIC_API_KEY"):
        Agent()


def test_each_input_can_run_in_its_own_event_loop(api, workspace, monkeypatch):
    """Scripts call asyncio.run(agent.run(...)) once per input; the agent must allow it.

    The API keeps the connection open between requests, and a kept connection belongs to the
    event loop that opened it: the agent's own client must not carry it into the next loop.
    """
    from agent import Agent

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
    api.keep_alive = True  # as the real API keeps it
    api.add({"content": [text("one")]})
    api.add({"content": [text("two")]})
    agent = Agent(workspace=workspace, middleware=[], sandbox=False)
    assert run(agent.run("first")) == "one"
    agent.cancel()  # a stray cancel between inputs must not stop the next one
    assert run(agent.run("second")) == "two"
