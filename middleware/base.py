"""The middleware contract: seven optional hooks and the small types they exchange.

A middleware is a class that overrides only the hooks it needs. The loop in
agent.py calls each hook at one fixed point of a turn:

    user input
      -> transform_context      (the message list, before each model call)
      -> transform_system_prompt(the system prompt, before each model call)
      -> convert_to_llm         (the final messages, just before sending)
      <- model reply
      -> after_model_response   (the reply, before any tool runs)
      -> before_tool_call       (each call, after its input was validated)
      -> after_tool_call        (each result, after the handler returned)
      -> should_stop_after_turn (after each turn the run would go on from)

How several middlewares combine is the job of `stack.py`. Messages are plain
dicts in the Messages API format, the same ones the loop sends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

Decision = Literal["natural", "stop", "loop_to_model"]
INTERRUPTED_BY_USER = "Interrupted by the user."
T = TypeVar("T")


class Interrupted(Exception):
    """The cancel signal was set (Ctrl-C, SIGTERM, `Agent.cancel`); the message says so."""

    def __init__(self, message: str = INTERRUPTED_BY_USER) -> None:
        super().__init__(message)


class CancelSignal(asyncio.Event):
    """A run's cancel signal: an Event that, when set, also cancels each piece of work that
    `until_cancelled` is awaiting on it. A plain Event works too; this one spares every wait
    a second task that only waits for the signal (two model calls and a tool call per turn)."""

    def __init__(self) -> None:
        super().__init__()
        self.on_set: set[Callable[[], object]] = set()

    def set(self) -> None:
        # Once only: a second cancel of the same work would interrupt its clean-up (bash
        # killing its command, waiting for it and taking stock of what it made), and Ctrl-C
        # pressed twice, or a SIGTERM sent to planloop's whole process group, sets it twice.
        if self.is_set():
            return
        super().set()
        for cancel in list(self.on_set):
            cancel()


async def until_cancelled(work: Awaitable[T], signal: asyncio.Event) -> T:
    """Await `work`, but give up (and cancel it) as soon as `signal` is set: raise Interrupted.

    Everything that waits during a run waits through this, so one signal stops all of them;
    `Agent.cancel` in agent.py explains the whole mechanism.
    """
    if signal.is_set():
        # Already cancelled: do not start the work at all. Started side by side with the
        # waiter, a tool could spawn its process before the wait noticed the signal.
        if asyncio.iscoroutine(work):
            work.close()
        raise Interrupted
    task = asyncio.ensure_future(work)
    if isinstance(signal, CancelSignal):
        signal.on_set.add(task.cancel)
        try:
            # Cancelled by the signal, the task cleans up (kills bash) before this returns;
            # work that ends anyway (a write past its commit point) gives its own answer.
            return await task
        except asyncio.CancelledError:
            outer = asyncio.current_task()  # cancelled itself, it must hear of it
            if task.cancelled() and signal.is_set() and not (outer and outer.cancelling()):
                raise Interrupted from None
            raise
        finally:
            signal.on_set.discard(task.cancel)
    waiter = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)  # let it clean up (kill bash)
    if task.cancelled():
        raise Interrupted
    return task.result()


@dataclass
class AgentContext:
    """What a run knows about itself; hooks read it and may write `extra` and `stop_reason`."""

    messages: list[dict]
    system_prompt: str
    tools: dict[str, Any]
    workspace: Path
    # Checkpointed state under stable keys (the todo list lives here); saved with the session.
    extra: dict[str, Any] = field(default_factory=dict)
    # A new id for every user input, so that state tied to "this input" can tell when it went stale.
    run_id: str = ""
    # Counts input boundaries: each user input, each internal input (a delivered task result)
    # and each answer a person gives to an approval question moves it on. Automatic approvals
    # (--yes, "always") do not. State bound to "the current input" compares against it.
    input_seq: int = 0
    # Model calls made for the current user input.
    turn: int = 0
    # Set by whoever ends a run early, so the user is told why.
    stop_reason: str | None = None
    # Set by the loop when the API refused a request as too long for the model's context
    # window; a context middleware (middleware/context.py) shrinks the next one and clears it.
    overflow: str | None = None
    # The one cancel signal of the current input (see `Agent.cancel` in agent.py).
    signal: asyncio.Event = field(default_factory=asyncio.Event)
    # Who cancelled the run when it was not the user ("terminated by SIGTERM"), else None.
    cancel_reason: str | None = None


@dataclass
class ToolResult:
    """The outcome of one tool call. `details` is for the host (UI, logs) and never sent."""

    content: str
    is_error: bool = False
    details: Any = None


@dataclass
class BeforeToolCallContext:
    assistant_message: dict
    tool_call: dict
    args: dict
    context: AgentContext


@dataclass
class AfterToolCallContext(BeforeToolCallContext):
    result: ToolResult = field(default_factory=lambda: ToolResult(""))
    is_error: bool = False


@dataclass
class ShouldStopAfterTurnContext:
    context: AgentContext
    assistant_message: dict
    tool_results: list[dict]


@dataclass
class BeforeToolCallResult:
    block: bool = False
    reason: str | None = None


@dataclass
class AfterToolCallResult:
    """Fields left as None keep the previous value; `terminate` ends the run after this batch."""

    content: str | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None


@dataclass
class TurnAction:
    """What after_model_response wants: a replaced reply, extra messages, and a decision.

    `inject_messages` are user messages; the loop adds them after the reply's tool results.
    `decision=None` means "no opinion", so it never overrides an earlier middleware's choice;
    the stack starts from "natural" (go on after tool calls, end after a plain answer).
    """

    response: dict | None = None
    inject_messages: list[dict] = field(default_factory=list)
    decision: Decision | None = None


class Middleware:
    """Base class. Override any of the seven hooks; the others are never called.

    A middleware may also bring tools of its own (the todo list brings `todo_write`):
    the agent registers everything in `tools` next to its built-in tools.
    """

    tools: tuple = ()

    async def transform_context(
        self, messages: list[dict], *, signal: asyncio.Event | None = None
    ) -> list[dict]:
        raise NotImplementedError

    async def convert_to_llm(self, messages: list[dict]) -> list[dict]:
        raise NotImplementedError

    async def transform_system_prompt(
        self, system_prompt: str, *, signal: asyncio.Event | None = None
    ) -> str:
        raise NotImplementedError

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        raise NotImplementedError

    async def after_tool_call(
        self, ctx: AfterToolCallContext, *, signal: asyncio.Event | None = None
    ) -> AfterToolCallResult | None:
        raise NotImplementedError

    async def should_stop_after_turn(self, ctx: ShouldStopAfterTurnContext) -> bool:
        raise NotImplementedError

    async def after_model_response(
        self, response: dict, ctx: AgentContext, *, signal: asyncio.Event | None = None
    ) -> TurnAction | None:
        raise NotImplementedError
