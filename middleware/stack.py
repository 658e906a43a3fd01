"""How several middlewares combine into one set of hooks for the loop.

The rules (one per hook):

- transform_context, transform_system_prompt: chained; each sees the previous output.
- convert_to_llm: the last middleware that implements it wins; the others are skipped.
- before_tool_call: in order; the first `block=True` short-circuits the rest.
- after_tool_call: in order; each non-None field of a result replaces the previous value.
- should_stop_after_turn: logical OR, and every middleware is asked (so counters stay honest).
- after_model_response: the reply is threaded through; injected messages are concatenated.
  A `stop` from any middleware wins, whatever the order: a guard that wants one more model
  call must not undo another middleware's decision to end the run (the messages a lost
  `loop_to_model` injected go with it, since the model call they were for never comes).
  Otherwise the last middleware that states a decision wins; "no decision" (None) never
  cancels one. With no decision stated at all the result is "natural": the turn goes on
  if the reply asked for tools and ends if it did not.

Only middlewares that override a hook are called for it, so a hook nobody uses costs nothing.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
    ShouldStopAfterTurnContext,
    ToolResult,
    TurnAction,
)

HOOKS = (
    "transform_context",
    "convert_to_llm",
    "transform_system_prompt",
    "before_tool_call",
    "after_tool_call",
    "should_stop_after_turn",
    "after_model_response",
)


def overrides(middleware: Middleware, hook: str) -> bool:
    """True if this middleware's class implements `hook` itself (not the base placeholder)."""
    return getattr(type(middleware), hook) is not getattr(Middleware, hook)


class MiddlewareStack:
    """The composed hooks of a list of middlewares, in the order they were given."""

    def __init__(self, middlewares: list[Middleware]) -> None:
        self.middlewares = list(middlewares)
        self.by_hook = {hook: [m for m in self.middlewares if overrides(m, hook)] for hook in HOOKS}

    async def transform_context(self, messages: list[dict], signal: asyncio.Event) -> list[dict]:
        for m in self.by_hook["transform_context"]:
            messages = await m.transform_context(messages, signal=signal)
        return messages

    async def convert_to_llm(self, messages: list[dict]) -> list[dict]:
        owners = self.by_hook["convert_to_llm"]
        return await owners[-1].convert_to_llm(messages) if owners else messages

    async def transform_system_prompt(self, system_prompt: str, signal: asyncio.Event) -> str:
        for m in self.by_hook["transform_system_prompt"]:
            system_prompt = await m.transform_system_prompt(system_prompt, signal=signal)
        return system_prompt

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: asyncio.Event
    ) -> BeforeToolCallResult | None:
        for m in self.by_hook["before_tool_call"]:
            try:
                verdict = await m.before_tool_call(ctx, signal=signal)
            except Exception as err:
                # A check that cannot finish blocks the call, and the session goes on: a
                # command running beside it can swap a path for a link while it is looked at.
                reason = (
                    f"{ctx.tool_call['name']} was not run: planloop could not check it "
                    f"({type(err).__name__}: {err}). If a command is changing that path, wait "
                    "for it; then call the tool again."
                )
                return BeforeToolCallResult(block=True, reason=reason)
            if verdict is not None and verdict.block:
                return verdict
        return None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: asyncio.Event
    ) -> tuple[ToolResult, bool]:
        """Return the (possibly rewritten) result and whether some middleware asked to terminate."""
        result, terminate = ctx.result, False
        for m in self.by_hook["after_tool_call"]:
            # Each middleware sees the result as the earlier ones left it.
            change = await m.after_tool_call(
                replace(ctx, result=result, is_error=result.is_error), signal=signal
            )
            if change is None:
                continue
            result = apply_override(result, change)
            if change.terminate is not None:
                terminate = change.terminate
        return result, terminate

    async def should_stop_after_turn(self, ctx: ShouldStopAfterTurnContext) -> bool:
        votes = [
            await m.should_stop_after_turn(ctx) for m in self.by_hook["should_stop_after_turn"]
        ]
        return any(votes)

    async def after_model_response(
        self, response: dict, ctx: AgentContext, signal: asyncio.Event
    ) -> TurnAction:
        combined = TurnAction(response=response, decision="natural")
        overruled: list[dict] = []  # injected by a loop_to_model that a stop may overrule
        for m in self.by_hook["after_model_response"]:
            action = await m.after_model_response(combined.response, ctx, signal=signal)
            if action is None:
                continue
            if action.response is not None:
                combined.response = action.response
            for message in action.inject_messages:
                if message.get("role") != "user":
                    raise ValueError(
                        f"{type(m).__name__} injected a message with role {message.get('role')!r}; "
                        "inject_messages are user messages, added after the tool results."
                    )
            combined.inject_messages += action.inject_messages
            if action.decision == "loop_to_model":
                overruled += action.inject_messages
            if action.decision is not None and combined.decision != "stop":
                combined.decision = action.decision
        if combined.decision == "stop":
            kept = [m for m in combined.inject_messages if not any(m is o for o in overruled)]
            combined.inject_messages = kept
        return combined


def apply_override(result: ToolResult, change: AfterToolCallResult) -> ToolResult:
    """Field by field: a non-None field in `change` replaces the one in `result`."""
    return ToolResult(
        content=result.content if change.content is None else change.content,
        is_error=result.is_error if change.is_error is None else change.is_error,
        details=result.details if change.details is None else change.details,
    )
