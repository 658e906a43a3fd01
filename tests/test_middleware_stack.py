"""The composition rules of the seven hooks, each with two or three middlewares together."""

import asyncio
from pathlib import Path

import pytest

from middleware import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
    MiddlewareStack,
    ShouldStopAfterTurnContext,
    ToolResult,
    TurnAction,
)

SIGNAL = asyncio.Event()


def run(coro):
    return asyncio.run(coro)


def context() -> AgentContext:
    return AgentContext([], "system", {}, Path("."))


def call_ctx(result: ToolResult | None = None):
    call = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}
    reply = {"role": "assistant", "content": [call]}
    if result is None:
        return BeforeToolCallContext(reply, call, call["input"], context())
    return AfterToolCallContext(reply, call, call["input"], context(), result, result.is_error)


class AppendToContext(Middleware):
    def __init__(self, tag: str) -> None:
        self.tag = tag

    async def transform_context(self, messages, *, signal=None):
        return [*messages, {"role": "user", "content": self.tag}]


def test_transform_context_is_chained_in_order():
    # That the agent's own transcript survives a hook that edits its list in place is a
    # property of the loop: test_middleware_loop.py pins it.
    stack = MiddlewareStack([AppendToContext("a"), AppendToContext("b")])
    out = run(stack.transform_context([{"role": "user", "content": "hi"}], SIGNAL))
    assert [m["content"] for m in out] == ["hi", "a", "b"]


class Suffix(Middleware):
    def __init__(self, text: str) -> None:
        self.text = text

    async def transform_system_prompt(self, system_prompt, *, signal=None):
        return system_prompt + self.text


def test_transform_system_prompt_is_chained_in_order():
    stack = MiddlewareStack([Suffix(" one"), Middleware(), Suffix(" two")])
    assert run(stack.transform_system_prompt("base", SIGNAL)) == "base one two"


class Converter(Middleware):
    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.calls = 0

    async def convert_to_llm(self, messages):
        self.calls += 1
        return [{"role": "user", "content": self.tag}]


def test_convert_to_llm_last_implementation_wins_and_is_not_chained():
    first, last = Converter("first"), Converter("last")
    stack = MiddlewareStack([first, Suffix("x"), last])
    assert run(stack.convert_to_llm([])) == [{"role": "user", "content": "last"}]
    assert first.calls == 0 and last.calls == 1


class Gate(Middleware):
    def __init__(self, block: bool, reason: str = "") -> None:
        self.block, self.reason, self.seen = block, reason, 0

    async def before_tool_call(self, ctx, *, signal=None):
        self.seen += 1
        return BeforeToolCallResult(block=True, reason=self.reason) if self.block else None


def test_before_tool_call_first_block_short_circuits_the_rest():
    allow, deny, never = Gate(False), Gate(True, "no bash today"), Gate(True, "later")
    verdict = run(MiddlewareStack([allow, deny, never]).before_tool_call(call_ctx(), SIGNAL))
    assert verdict.block and verdict.reason == "no bash today"
    assert (allow.seen, deny.seen, never.seen) == (1, 1, 0)


def test_before_tool_call_with_no_block_lets_the_call_run():
    assert (
        run(MiddlewareStack([Gate(False), Gate(False)]).before_tool_call(call_ctx(), SIGNAL))
        is None
    )


class Rewrite(Middleware):
    def __init__(self, change: AfterToolCallResult | None) -> None:
        self.change = change
        self.saw: list[str] = []

    async def after_tool_call(self, ctx, *, signal=None):
        self.saw.append(ctx.result.content)
        return self.change


def test_after_tool_call_later_middlewares_override_field_by_field():
    redact = Rewrite(AfterToolCallResult(content="[redacted]", details={"by": "redact"}))
    flag = Rewrite(AfterToolCallResult(is_error=True))
    observe = Rewrite(None)
    stack = MiddlewareStack([redact, flag, observe])
    result, terminate = run(stack.after_tool_call(call_ctx(ToolResult("secret")), SIGNAL))
    assert result == ToolResult("[redacted]", is_error=True, details={"by": "redact"})
    assert not terminate
    # each middleware saw the result as the earlier ones left it
    assert (redact.saw, flag.saw, observe.saw) == (["secret"], ["[redacted]"], ["[redacted]"])


def test_after_tool_call_terminate_follows_the_same_override_rule():
    stop, keep_going = Rewrite(AfterToolCallResult(terminate=True)), Rewrite(None)
    _, terminate = run(
        MiddlewareStack([stop, keep_going]).after_tool_call(call_ctx(ToolResult("ok")), SIGNAL)
    )
    assert terminate
    undo = Rewrite(AfterToolCallResult(terminate=False))
    _, terminate = run(
        MiddlewareStack([stop, undo]).after_tool_call(call_ctx(ToolResult("ok")), SIGNAL)
    )
    assert not terminate


class Vote(Middleware):
    def __init__(self, stop: bool) -> None:
        self.stop, self.asked = stop, 0

    async def should_stop_after_turn(self, ctx):
        self.asked += 1
        return self.stop


def test_should_stop_after_turn_is_a_logical_or_of_every_middleware():
    turn = ShouldStopAfterTurnContext(context(), {}, [])
    no, yes, also_no = Vote(False), Vote(True), Vote(False)
    assert run(MiddlewareStack([no, yes, also_no]).should_stop_after_turn(turn)) is True
    assert (no.asked, yes.asked, also_no.asked) == (1, 1, 1)
    assert run(MiddlewareStack([Vote(False), Vote(False)]).should_stop_after_turn(turn)) is False


class Decide(Middleware):
    def __init__(self, decision=None, inject=(), response=None) -> None:
        self.decision, self.inject, self.response = decision, list(inject), response
        self.saw: list[dict] = []

    async def after_model_response(self, response, ctx, *, signal=None):
        self.saw.append(response)
        return TurnAction(
            response=self.response, inject_messages=self.inject, decision=self.decision
        )


def user(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def test_after_model_response_later_no_decision_does_not_cancel_an_earlier_stop():
    stack = MiddlewareStack([Decide("stop"), Decide(None), Decide(None)])
    assert run(stack.after_model_response({}, context(), SIGNAL)).decision == "stop"


def test_after_model_response_last_stated_decision_wins_unless_someone_stops():
    stack = MiddlewareStack([Decide("loop_to_model"), Decide("natural")])
    assert run(stack.after_model_response({}, context(), SIGNAL)).decision == "natural"
    stack = MiddlewareStack([Decide("natural"), Decide("loop_to_model"), Decide(None)])
    assert run(stack.after_model_response({}, context(), SIGNAL)).decision == "loop_to_model"


def test_after_model_response_reports_natural_when_nobody_decides():
    assert run(MiddlewareStack([]).after_model_response({}, context(), SIGNAL)).decision == (
        "natural"
    )
    stack = MiddlewareStack([Decide(None, inject=[user("a note")]), Decide(None)])
    action = run(stack.after_model_response({}, context(), SIGNAL))
    assert action.decision == "natural"
    assert action.inject_messages == [user("a note")]


@pytest.mark.parametrize("stop_first", [True, False])
def test_a_stop_wins_over_loop_to_model_in_either_order(stop_first):
    correction = user("finish your list")
    guard = Decide("loop_to_model", inject=[correction])
    note = user("kept: stated with the stop")
    stopper = Decide("stop", inject=[note])
    order = [stopper, guard] if stop_first else [guard, stopper]
    action = run(MiddlewareStack(order).after_model_response({}, context(), SIGNAL))
    assert action.decision == "stop"
    # The correction was written for a model call that will not happen: it goes too.
    assert action.inject_messages == [note]


def test_after_model_response_threads_the_reply_and_concatenates_injections():
    original = {"role": "assistant", "content": [{"type": "text", "text": "v1"}]}
    edited = {"role": "assistant", "content": [{"type": "text", "text": "v2"}]}
    first = Decide(inject=[user("one")], response=edited)
    second = Decide(inject=[user("two"), user("three")])
    action = run(MiddlewareStack([first, second]).after_model_response(original, context(), SIGNAL))
    assert first.saw == [original] and second.saw == [edited]
    assert action.response == edited
    assert [m["content"][0]["text"] for m in action.inject_messages] == ["one", "two", "three"]


def test_injecting_a_message_that_is_not_from_the_user_is_a_clear_error():
    note = {"role": "assistant", "content": [{"type": "text", "text": "As I said…"}]}
    stack = MiddlewareStack([Decide(inject=[user("fine")]), Decide(inject=[note])])
    with pytest.raises(ValueError, match="Decide injected a message with role 'assistant'"):
        run(stack.after_model_response({}, context(), SIGNAL))


def test_hooks_that_no_middleware_overrides_are_never_called():
    stack = MiddlewareStack([Middleware(), Suffix("!")])
    # The base class raises NotImplementedError; the stack must skip it.
    assert run(stack.transform_context([], SIGNAL)) == []
    assert run(stack.after_model_response({"x": 1}, context(), SIGNAL)).response == {"x": 1}
    assert run(stack.should_stop_after_turn(ShouldStopAfterTurnContext(context(), {}, []))) is False
