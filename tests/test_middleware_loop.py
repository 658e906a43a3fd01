"""The hooks at their seven points in the real loop, checked in the requests the fake receives."""

from __future__ import annotations

import io
import json

from conftest import results_by_id, run

from fakeapi import text, tool_use
from middleware import (
    AfterToolCallResult,
    BeforeToolCallResult,
    Middleware,
    ToolCallLog,
    TurnAction,
)
from tools import Tool


def user_text(value: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": value}]}


class Decide(Middleware):
    """States a decision (and injects a note) on the first reply only."""

    def __init__(self, decision: str | None, note: str | None = None) -> None:
        self.decision, self.note, self.fired = decision, note, False

    async def after_model_response(self, response, ctx, *, signal=None):
        if self.fired:
            return None
        self.fired = True
        inject = [user_text(self.note)] if self.note else []
        return TurnAction(inject_messages=inject, decision=self.decision)


def test_stop_on_a_reply_with_tool_calls_answers_them_and_runs_nothing(api, make_agent, workspace):
    calls = [tool_use("bash", {"command": "touch a"}), tool_use("bash", {"command": "touch b"})]
    api.add({"content": [text("Starting."), *calls]})
    api.add({"content": [text("Next input answered.")]})
    agent = make_agent(middleware=[Decide("stop"), Decide(None)])

    async def two_inputs():
        first = await agent.run("go")
        return first, await agent.run("and now?")

    first, second = run(two_inputs())
    assert first == "Starting."
    assert second == "Next input answered."
    assert not (workspace / "a").exists() and not (workspace / "b").exists()
    last = api.accepted[1]["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "tool_result", "text"]
    assert all(b["is_error"] and "Not run: the run was stopped" in b["content"] for b in last[:2])


def test_loop_to_model_skips_the_tools_and_puts_the_injection_after_the_results(
    api, make_agent, workspace
):
    call = tool_use("bash", {"command": "touch skipped"})
    api.add({"content": [call]})
    api.add({"content": [text("Understood.")]})
    agent = make_agent(middleware=[Decide("loop_to_model", note="Check the tests first.")])
    assert run(agent.run("go")) == "Understood."
    assert not (workspace / "skipped").exists()
    last = api.accepted[1]["messages"][-1]["content"]
    assert last[0]["tool_use_id"] == call["id"] and last[0]["is_error"] is True
    assert (last[1]["type"], last[1]["text"]) == ("text", "Check the tests first.")


def test_injected_empty_text_never_reaches_the_api(api, make_agent):
    api.add({"content": [text("One.")]})
    api.add({"content": [text("Two.")]})
    agent = make_agent(middleware=[Decide("loop_to_model", note="   ")])
    assert run(agent.run("go")) == "Two."
    assert api.accepted[1]["messages"][-1]["content"][0]["text"] == "Continue."


class Block(Middleware):
    async def before_tool_call(self, ctx, *, signal=None):
        if ctx.args.get("path") == "secret.txt":
            return BeforeToolCallResult(block=True, reason="secret.txt is off limits.")
        return None


def test_before_tool_call_block_becomes_an_error_result(api, make_agent, workspace):
    (workspace / "secret.txt").write_text("hunter2")
    (workspace / "open.txt").write_text("hello")
    blocked = tool_use("read_file", {"path": "secret.txt"})
    allowed = tool_use("read_file", {"path": "open.txt"})
    api.add({"content": [blocked, allowed]})
    api.add({"content": [text("ok")]})
    run(make_agent(middleware=[Block()]).run("read both"))
    results = results_by_id(api.accepted[1])
    assert results[blocked["id"]]["content"] == "secret.txt is off limits."
    assert results[blocked["id"]]["is_error"] is True
    assert "hello" in results[allowed["id"]]["content"]


class Terminate(Middleware):
    async def after_tool_call(self, ctx, *, signal=None):
        return AfterToolCallResult(content="[output withheld]", terminate=True)


def test_after_tool_call_rewrites_the_result_and_terminate_ends_after_the_batch(
    api, make_agent, workspace
):
    first = tool_use("bash", {"command": "echo secret; touch one"})
    second = tool_use("bash", {"command": "touch two"})
    api.add({"content": [first, second]})
    log = io.StringIO()
    agent = make_agent(middleware=[ToolCallLog(log), Terminate()])
    run(agent.run("go"))
    assert len(api.accepted) == 1  # no further model call
    assert (workspace / "one").exists() and (workspace / "two").exists()  # the batch finished
    results = [b for b in agent.messages[-1]["content"] if b["type"] == "tool_result"]
    assert [r["content"] for r in results] == ["[output withheld]"] * 2
    entries = [json.loads(line) for line in log.getvalue().splitlines()]
    assert [e["input"]["command"] for e in entries] == ["echo secret; touch one", "touch two"]


class KeepLastMessage(Middleware):
    async def transform_context(self, messages, *, signal=None):
        return messages[-1:]


class Shout(Middleware):
    async def convert_to_llm(self, messages):
        last = messages[-1]
        blocks = [
            {**b, "text": b["text"].upper()} if b["type"] == "text" else b for b in last["content"]
        ]
        return [*messages[:-1], {**last, "content": blocks}]


def test_context_hooks_shape_the_request_but_not_the_stored_conversation(api, make_agent):
    api.add({"content": [text("first answer")]})
    api.add({"content": [text("second answer")]})
    agent = make_agent(middleware=[KeepLastMessage(), Shout()])

    async def two_inputs():
        await agent.run("hello")
        await agent.run("again")

    run(two_inputs())
    sent = api.accepted[1]["messages"]
    assert sent == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "AGAIN", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "user", "assistant"]
    assert agent.messages[2]["content"][0]["text"] == "again"


class TrimInPlace(Middleware):
    """A careless hook: it edits the list it is given instead of returning a new one."""

    async def transform_context(self, messages, *, signal=None):
        del messages[:-1]
        messages.append({"role": "assistant", "content": [text("planted")]})
        messages.pop()
        return messages


def test_a_hook_that_edits_its_list_in_place_leaves_the_transcript_whole(api, make_agent):
    api.add({"content": [text("first answer")]})
    api.add({"content": [text("second answer")]})
    agent = make_agent(middleware=[TrimInPlace()])

    async def two_inputs():
        await agent.run("hello")
        await agent.run("again")

    run(two_inputs())
    assert [len(request["messages"]) for request in api.accepted] == [1, 1]
    assert [m["role"] for m in agent.messages] == ["user", "assistant", "user", "assistant"]
    assert agent.messages[0]["content"][0]["text"] == "hello"


class CancelOnFirstCall(Middleware):
    """A hook that pulls the cancellation signal, as a UI would on Ctrl-C."""

    async def before_tool_call(self, ctx, *, signal=None):
        signal.set()
        return None


def test_cancellation_signal_reaches_hooks_and_stops_at_the_next_safe_point(
    api, make_agent, workspace
):
    calls = [tool_use("bash", {"command": "touch a"}), tool_use("bash", {"command": "touch b"})]
    api.add({"content": calls})
    api.add({"content": [text("Resumed.")]})
    agent = make_agent(middleware=[CancelOnFirstCall()])

    async def scenario():
        await agent.run("go")
        return agent.context.stop_reason

    assert run(scenario()) == "Interrupted by the user."
    assert not (workspace / "a").exists() and not (workspace / "b").exists()
    results = [b for b in agent.messages[-1]["content"] if b["type"] == "tool_result"]
    assert len(results) == 2 and all("Interrupted" in r["content"] for r in results)


def test_a_cancel_set_before_a_tool_starts_means_the_handler_never_runs(api, make_agent):
    started = []

    async def record(workspace):
        started.append(True)  # the first step of the handler, before any await
        return "ran"

    probe = Tool("probe", "Records that it ran.", {"type": "object", "properties": {}}, record)
    api.add({"content": [tool_use("probe", {})]})
    agent = make_agent(tools=[probe], middleware=[CancelOnFirstCall()])

    run(agent.run("go"))
    assert started == []
    [result] = [b for b in agent.messages[-1]["content"] if b["type"] == "tool_result"]
    assert result["is_error"] and "Interrupted" in result["content"]
