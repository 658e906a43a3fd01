"""TodoListMiddleware: the todo_write tool, the stale-plan reminder and the finalization guard.

Why each part exists:

- The plan is state outside the model (TodoManager), so it can be checked, shown and saved.
- One todo_write per reply: two calls in one message would race; neither is applied.
- The reminder: after a few tool rounds the plan has drifted far back in the context.
  Appending the current list *after* the tool results brings it back where attention is.
- The finalization guard: models often finish the work but forget to tick the boxes, or
  stop early. One correction per user input lists what is open; it can never loop.

All state lives in the agent's checkpointed `extra` under these stable keys:

    todos                          the current list (or None)
    todo_stale_iterations          tool rounds since the last successful todo_write
    todo_guard_retries             corrections sent for the current input ({"input": id, ...})
    todo_guard_blocked             the unfinished items when the guard gave up, else None
    todo_guard_suppressed          True from then until the next user input
    todo_finalization_correction   True on the turn a correction was injected
    todo_task_wait                 validated background-task wait (not supported yet: None)
    todo_task_wait_outcome         last outcome of such a wait (None)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from conversation import text_block, tool_calls
from middleware import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
    TurnAction,
)
from prompts import escape_tags, load_prompt
from todo.manager import MAX_ITEMS, TodoError, TodoManager, render_items
from tools import Tool, ToolError

TOOL_NAME = "todo_write"
DEFAULT_STATE = {
    "todos": None,
    "todo_stale_iterations": 0,
    "todo_guard_retries": {},
    "todo_guard_blocked": None,
    "todo_guard_suppressed": False,
    "todo_finalization_correction": None,
    "todo_task_wait": None,
    "todo_task_wait_outcome": None,
}
FINALIZATION = "finalization"  # the guard's name in todo_guard_retries
MAX_CORRECTIONS = 1


def todo_schema(max_items: int) -> dict:
    item = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "minLength": 1},
            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
        },
        "required": ["content", "status"],
    }
    return {
        "type": "object",
        "properties": {
            "todos": {"type": "array", "maxItems": max_items, "items": item},
            "wait_for_tasks": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Background task ids to wait for (only where the host supports it).",
            },
        },
        "required": ["todos"],
    }


class TodoListMiddleware(Middleware):
    def __init__(
        self,
        extra_ref: Callable[[], dict],
        *,
        tool_description: str | None = None,
        system_prompt: str | None = None,
        max_items: int = MAX_ITEMS,
        reminder_after: int = 3,
        reminder_cooldown: int = 3,
        on_change: Callable[[list[dict]], None] | None = None,
    ) -> None:
        self.extra_ref = extra_ref
        self.manager = TodoManager(extra_ref, max_items)
        self.system_prompt = load_prompt("todo_system") if system_prompt is None else system_prompt
        self.reminder_after = reminder_after
        self.reminder_cooldown = reminder_cooldown
        self.on_change = on_change
        self.refused_call_ids: set[str] = set()  # todo_write calls of a reply that had several
        description = tool_description or load_prompt("todo_tool")
        self.tools = (Tool(TOOL_NAME, description, todo_schema(max_items), self.write_todos),)

    # ---- the tool --------------------------------------------------------------------------

    def write_todos(
        self, workspace: Path, todos: object, wait_for_tasks: list | None = None
    ) -> str:
        if wait_for_tasks:
            raise ToolError(
                "wait_for_tasks is not available here: this agent has no background tasks. "
                "Call todo_write again without it."
            )
        try:
            summary = self.manager.update(todos)
        except TodoError as err:  # the old list is untouched
            raise ToolError(f"todo_write rejected, the list is unchanged: {err}") from None
        self.state()["todo_task_wait"] = None  # a plain update clears any wait declaration
        if self.on_change is not None:
            self.on_change(self.manager.items)
        return summary

    # ---- hooks -----------------------------------------------------------------------------

    async def transform_system_prompt(
        self, system_prompt: str, *, signal: asyncio.Event | None = None
    ) -> str:
        return f"{system_prompt}\n\n{self.system_prompt}" if self.system_prompt else system_prompt

    async def after_model_response(
        self, response: dict, ctx: AgentContext, *, signal: asyncio.Event | None = None
    ) -> TurnAction | None:
        state = self.state(ctx.run_id)
        state["todo_finalization_correction"] = None
        calls = tool_calls(response)
        todo_calls = [call for call in calls if call["name"] == TOOL_NAME]
        self.refused_call_ids = {c["id"] for c in todo_calls} if len(todo_calls) > 1 else set()
        if not calls:
            state["todo_stale_iterations"] = 0  # a plain-text reply ends the streak
            return self.finalization_guard(response, state)
        state["todo_stale_iterations"] += 1
        # A todo_write about to succeed resets the count, so a reminder would be out of date
        # before it is read. One that will be refused leaves the reminder due.
        if self.will_apply(todo_calls) or not self.reminder_due(state["todo_stale_iterations"]):
            return None
        return TurnAction(inject_messages=[self.reminder(state["todo_stale_iterations"])])

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        if ctx.tool_call["id"] not in self.refused_call_ids:
            return None
        return BeforeToolCallResult(
            block=True,
            reason=(
                f"{len(self.refused_call_ids)} todo_write calls came in one reply, so none was "
                "applied and the list is unchanged. Send one todo_write call with the whole list."
            ),
        )

    async def after_tool_call(
        self, ctx: AfterToolCallContext, *, signal: asyncio.Event | None = None
    ) -> AfterToolCallResult | None:
        if ctx.tool_call["name"] == TOOL_NAME and not ctx.is_error:
            self.state()["todo_stale_iterations"] = 0
        return None

    # ---- helpers ---------------------------------------------------------------------------

    def state(self, run_id: str | None = None) -> dict:
        """The live `extra` mapping with every todo key present; a new input resets the guard."""
        extra = self.extra_ref()
        for key, default in DEFAULT_STATE.items():
            extra.setdefault(key, type(default)() if isinstance(default, dict) else default)
        if run_id is not None and extra["todo_guard_retries"].get("input") != run_id:
            extra["todo_guard_retries"] = {"input": run_id}
            extra["todo_guard_blocked"] = None
            extra["todo_guard_suppressed"] = False
        return extra

    def will_apply(self, todo_calls: list[dict]) -> bool:
        """Whether the todo_write calls of one reply will change the list (one valid call)."""
        if len(todo_calls) != 1:
            return False
        args = todo_calls[0].get("input")
        if not isinstance(args, dict) or args.get("wait_for_tasks"):
            return False
        try:
            self.manager.validate(args.get("todos"))
        except TodoError:
            return False
        return True

    def reminder_due(self, stale_rounds: int) -> bool:
        """Due after `reminder_after` rounds without a plan update, then every `cooldown` rounds."""
        if self.manager.items and not self.manager.unfinished():
            return False  # everything is done: nothing to remind of
        past = stale_rounds - self.reminder_after
        return past >= 0 and past % self.reminder_cooldown == 0

    def reminder(self, stale_rounds: int) -> dict:
        if self.manager.items:
            listing = render_items([escaped_item(item) for item in self.manager.items])
            text = load_prompt("todo_reminder").format(rounds=stale_rounds, todos=listing)
        else:
            text = load_prompt("todo_no_plan").format(rounds=stale_rounds)
        return {"role": "user", "content": [text_block(text)]}

    def finalization_guard(self, response: dict, state: dict) -> TurnAction | None:
        """On a final answer with open items: one correction per input, then stand aside."""
        unfinished = self.manager.unfinished()
        if not unfinished or state["todo_guard_suppressed"]:
            return None
        if response.get("stop_reason") in ("refusal", "pause_turn"):
            return None  # not a final answer to argue with
        retries = state["todo_guard_retries"]
        if retries.get(FINALIZATION, 0) >= MAX_CORRECTIONS:
            state["todo_guard_blocked"] = {"unfinished": [dict(item) for item in unfinished]}
            state["todo_guard_suppressed"] = True
            return None
        retries[FINALIZATION] = retries.get(FINALIZATION, 0) + 1
        state["todo_finalization_correction"] = True
        listing = "\n".join(
            f"- [{item['status']}] {escape_tags(item['content'])}" for item in unfinished
        )
        correction = load_prompt("todo_finalize").format(unfinished=listing)
        return TurnAction(
            inject_messages=[{"role": "user", "content": [text_block(correction)]}],
            decision="loop_to_model",
        )


def escaped_item(item: dict) -> dict:
    """The item with its text escaped, to be shown inside the harness's own tags."""
    return {**item, "content": escape_tags(item["content"])}
