"""When a sandboxed command could read the key after all, the run does not go on as before.

The sandbox hides the key with binds, which the host can undo under a running command (a file
replaced by rename, tools/bind_watch.py), and a key file made while a command runs is in no
command's view at its start. bash and the background tasks find this when a command ends or a
task is looked at, withhold the output and leave a line in `sandbox.exposures`. This
middleware acts on it before and after every tool call:

    headless (nobody to ask)   the run stops with that line as its reason (the session is
                               saved as always); no further call runs
    interactive                the person is asked whether the model may go on; a "no" ends
                               the run the same way

The files the command wrote meanwhile may hold a copy of the key (base64, reversed): the
person is told to check them; the model is not told where the key was.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from middleware.base import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Interrupted,
    Middleware,
    ShouldStopAfterTurnContext,
    until_cancelled,
)
from middleware.permissions import AskFunction, Question

STOPPED = (
    "planloop stopped the run: {why}. Check the files written since (a copy of the key may be "
    "in any form) before the model or anyone else reads them; change the key if in doubt."
)
NOT_RUN = "Not run: planloop stopped this run because a sandboxed command could read the API key."


class ExposureGuard(Middleware):
    """Stops (headless) or pauses (asks) the run once a command could read the key."""

    def __init__(self, sandbox: Any, tasks: Any = None, ask: AskFunction | None = None) -> None:
        self.sandbox = sandbox
        self.tasks = tasks
        self.ask = ask
        self.stopped_run: str | None = None  # the run_id of the run this stopped

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        if self.tasks is not None:
            # A task that could read a key since: stopped before this call reads what it wrote.
            self.tasks.check_running()
        if await self.stops(ctx.context):
            return BeforeToolCallResult(block=True, reason=NOT_RUN)
        return None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, *, signal: asyncio.Event | None = None
    ) -> AfterToolCallResult | None:
        if await self.stops(ctx.context):
            return AfterToolCallResult(terminate=True)
        return None

    async def should_stop_after_turn(self, ctx: ShouldStopAfterTurnContext) -> bool:
        return self.stopped_run == ctx.context.run_id

    async def stops(self, context: AgentContext) -> bool:
        """Whether this run stops: already stopped, or a new exposure nobody let go on."""
        if self.stopped_run == context.run_id:
            return True
        exposures = getattr(self.sandbox, "exposures", None)
        if not exposures:
            return False
        why = "; ".join(dict.fromkeys(exposures))
        exposures.clear()
        if self.ask is not None and await self.person_goes_on(why, context):
            return False
        self.stopped_run = context.run_id
        context.stop_reason = STOPPED.format(why=why)
        return True

    async def person_goes_on(self, why: str, context: AgentContext) -> bool:
        question = Question(
            "Let the model go on? A sandboxed command could read the API key or a secret:\n"
            f"{why}.\nCheck the files written since first; a no ends this run.",
            no_reason=True,  # the model is not told why it stopped, nor where the key was
        )
        try:
            answer = await self.answer(question, context)
        except Interrupted:
            return False
        return answer[0] in ("yes", "always")

    async def answer(self, question: Question, context: AgentContext) -> Any:
        asking = self.ask(question)
        if inspect.isawaitable(asking):
            return await until_cancelled(asking, context.signal)
        return asking
