"""Small policies written as middlewares: a turn limit, bash approval, and a tool-call log.

Each one is a complete example of "a new behaviour is one middleware": it overrides one
hook and the loop never learns it exists.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Literal, TextIO

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
    ShouldStopAfterTurnContext,
)

Approval = tuple[Literal["yes", "no", "always", "interrupt"], str]


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


HEADLESS_BASH_REFUSAL = (
    "bash is disabled: this agent runs without a person to approve commands. Do the work "
    "with read_file, write_file and edit_file, or tell the user to rerun with --yes to allow bash."
)


class BashApproval(Middleware):
    """Ask before every bash command; `ask` is None when nobody can answer (headless).

    `ask(command)` returns ("yes", ""), ("no", reason), ("always", "") or ("interrupt", "").
    "always" allows bash for the rest of this session.
    """

    def __init__(self, ask: Callable[[str], Approval] | None) -> None:
        self.ask = ask
        self.always = False

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        if ctx.tool_call["name"] != "bash" or self.always:
            return None
        if self.ask is None:
            return BeforeToolCallResult(block=True, reason=HEADLESS_BASH_REFUSAL)
        answer, reason = self.ask(ctx.args["command"])
        if answer == "always":
            self.always = True
        if answer in ("yes", "always"):
            return None
        if answer == "interrupt" and signal is not None:
            signal.set()  # Ctrl-C at the question cancels the whole turn
            return BeforeToolCallResult(block=True, reason="Interrupted by the user.")
        why = f" The user said: {reason}" if reason else ""
        return BeforeToolCallResult(block=True, reason=f"The user declined this command.{why}")


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
