"""Small policies written as middlewares: a turn limit and a tool-call log.

Each one is a complete example of "a new behaviour is one middleware": it overrides one
hook and the loop never learns it exists. The permission policy (what asks, what is refused)
has its own module, permissions.py.
"""

from __future__ import annotations

import asyncio
import json
from typing import TextIO

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    Middleware,
    ShouldStopAfterTurnContext,
)


class TurnLimit(Middleware):
    """End a run after `max_turns` model calls for one user input (a runaway-loop guard)."""

    def __init__(self, max_turns: int = 200) -> None:
        self.max_turns = max_turns

    async def should_stop_after_turn(self, ctx: ShouldStopAfterTurnContext) -> bool:
        if ctx.context.turn < self.max_turns:
            return False
        ctx.context.stop_reason = (
            f"Stopped after {ctx.context.turn} model calls for this input (the turn limit). "
            "Say 'continue' to go on, or raise --max-turns."
        )
        return True


class ToolCallLog(Middleware):
    """Write one JSON line per finished tool call (name, input, error flag, output size)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    async def after_tool_call(
        self, ctx: AfterToolCallContext, *, signal: asyncio.Event | None = None
    ) -> AfterToolCallResult | None:
        entry = {
            "tool": ctx.tool_call["name"],
            "input": ctx.args,
            "is_error": ctx.is_error,
            "output_chars": len(ctx.result.content),
        }
        self.stream.write(json.dumps(entry) + "\n")
        self.stream.flush()
        return None  # observe only: the result goes on unchanged
