"""TodoListMiddleware: the todo_write tool, the stale-plan reminder and the finalization guard.

Why each part exists:

- The plan is state outside the model (TodoManager), so it can be checked, shown and saved.
- One todo_write per reply: the calls run one after the other, so the second would silently
  replace the first; neither is applied and the model is told to send one.
- The reminder: after a few tool turns the plan has drifted far back in the context.
  Appending the current list *after* the tool results brings it back where attention is.
- The finalization guard: models often finish the work but forget to tick the boxes, or
  stop early. One correction per user input lists what is open; it can never loop.
- The task wait (todo/taskwait.py): with a host validator, `wait_for_tasks` lets a run end
  with open items while background tasks go on. Without one the field is not offered.
- Evidence (opt-in, all on with `with_evidence`, as the CLI does): `run_check` lets an item
  carry a `check` command that must pass before it counts as completed (todo/checks.py);
  `keep_items` refuses a list that silently leaves out unfinished items and offers `cancelled`
  (todo/manager.py); `history` keeps a compact record of every accepted write (todo/record.py).

All state lives in the agent's checkpointed `extra` under these stable keys:

    todos                          the current list (or None)
    todo_stale_iterations          tool turns in a row without a successful todo_write
                                   (counted from the transcript at each reply)
    todo_guard_retries             corrections sent for the current input ({"input": id, ...})
    todo_guard_blocked             the unfinished items when the guard gave up, else None
    todo_guard_suppressed          True from then until the next user input
    todo_finalization_correction   True on the turn a correction was injected
    todo_task_wait                 the validated wait: task ids, the list, run, input boundary
                                   and the host's evidence (a TaskWaitBinding as JSON), or None
    todo_task_wait_outcome         the last wait that ended a run: valid or cancelled (+ reason)
    todo_failed_checks             {item: {"check", "output"}} for checks that failed and are not
                                   fixed yet (the guard's correction names them)
    todo_history                   one compact entry per accepted write (with `history`)
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conversation import text_block, tool_calls
from middleware import (
    AgentContext,
    BeforeToolCallContext,
    BeforeToolCallResult,
    Middleware,
    TurnAction,
)
from prompts import escape_tags, load_prompt
from todo.checks import CheckRunner
from todo.manager import MAX_ITEMS, TodoError, TodoManager, render_items
from todo.record import append_entry
from todo.taskwait import CANCELLED, VALID, TaskWaitBinding, TaskWaitValidator, is_json
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
    "todo_failed_checks": {},
}
FINALIZATION = "finalization"  # the guard's name in todo_guard_retries
MAX_CORRECTIONS = 1


def todo_schema(
    max_items: int, offer_wait: bool, offer_checks: bool = False, offer_cancel: bool = False
) -> dict:
    statuses = "pending, in_progress, completed" + (" or cancelled" if offer_cancel else "")
    # No "enum" here: the handler takes " Completed " as completed (the manager normalises case
    # and spaces before it checks), and a schema enum would refuse it before the handler runs.
    # The description names the canonical values, which is what the model should send.
    properties: dict = {
        "content": {"type": "string", "minLength": 1},
        "status": {
            "type": "string",
            "description": f"One of: {statuses} (case and surrounding spaces do not matter).",
        },
    }
    if offer_checks:
        properties["check"] = {
            "type": "string",
            "description": (
                "Optional: a shell command that proves the step done (exit code 0), e.g. "
                "'pytest -q tests/test_parser.py'. It runs when you mark the item completed; "
                "if it fails, the update is refused with its output."
            ),
        }
    if offer_cancel:
        properties["reason"] = {
            "type": "string",
            "description": "Why a cancelled item is dropped (needed with status cancelled).",
        }
    item = {"type": "object", "properties": properties, "required": ["content", "status"]}
    properties: dict = {"todos": {"type": "array", "maxItems": max_items, "items": item}}
    if offer_wait:  # only a host that can check tasks offers the field
        properties["wait_for_tasks"] = {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "description": (
                "Ids of running background tasks (bg-1, ...) whose results you are waiting for. "
                "With them you may end your turn while items are open; the results come later."
            ),
        }
    # Without a validator wait_for_tasks is not declared, so one sent anyway is refused.
    return {
        "type": "object",
        "properties": properties,
        "required": ["todos"],
        "additionalProperties": False,
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
        validate_task_wait: TaskWaitValidator | None = None,
        run_check: CheckRunner | None = None,
        keep_items: bool = False,
        history: bool = False,
    ) -> None:
        self.extra_ref = extra_ref
        self.manager = TodoManager(
            extra_ref, max_items, keep_items=keep_items, checks=run_check is not None
        )
        self.run_check = run_check
        self.history = history
        self.system_prompt = load_prompt("todo_system") if system_prompt is None else system_prompt
        self.reminder_after = reminder_after
        self.reminder_cooldown = reminder_cooldown
        self.on_change = on_change
        # Where stale_streak stopped reading: (next index, the message read last, turns, since
        # the reminder). Kept on the middleware, not in extra: it is a cache, not state.
        self.streak_so_far: tuple[int, dict, int, int | None] | None = None
        self.refused_call_ids: set[str] = set()  # todo_write calls of a reply that had several
        self.validate_task_wait = validate_task_wait
        # The run and the call a todo_write belongs to, noted by before_tool_call for a wait.
        self.context: AgentContext | None = None
        self.call_id = ""
        description = tool_description or load_prompt("todo_tool")
        if keep_items or run_check is not None:
            description += load_prompt("todo_tool_evidence") if tool_description is None else ""
        schema = todo_schema(
            max_items,
            offer_wait=validate_task_wait is not None,
            offer_checks=run_check is not None,
            offer_cancel=keep_items,
        )
        self.tools = (Tool(TOOL_NAME, description, schema, self.write_todos),)

    @classmethod
    def with_evidence(
        cls, extra_ref: Callable[[], dict], run_check: CheckRunner | None, **options
    ) -> TodoListMiddleware:
        """The todo list as planloop's CLI uses it: checks (when `run_check` is given), nothing
        vanishes (cancelled with a reason instead), and the record of every write."""
        return cls(extra_ref, run_check=run_check, keep_items=True, history=True, **options)

    # ---- the tool --------------------------------------------------------------------------

    async def write_todos(
        self, workspace: Path, todos: object, wait_for_tasks: list[str] | None = None
    ) -> str:
        try:
            validated = self.manager.validate(todos)
        except TodoError as err:  # the old list is untouched
            raise ToolError(f"todo_write rejected, the list is unchanged: {err}") from None
        # Checked before anything changes: a failed check or a wait that does not hold
        # refuses the whole call.
        validated = await self.checked(validated)
        binding = await self.checked_wait(validated, wait_for_tasks) if wait_for_tasks else None
        old = self.manager.items
        summary = self.manager.replace(validated)
        state = self.state()
        # A plain update clears any wait; one with task ids replaces it.
        state["todo_task_wait"] = binding.to_json() if binding else None
        contents = {item["content"] for item in validated if not item.get("verified")}
        state["todo_failed_checks"] = {
            content: failure
            for content, failure in state["todo_failed_checks"].items()
            if content in contents
        }
        if self.history:
            append_entry(state, old, validated, self.call_id)
        if self.on_change is not None:
            self.on_change(self.manager.items)
        if binding is None:
            return summary
        return (
            f"{summary}\nWaiting for {', '.join(binding.task_ids)}: you may end your turn with "
            "the open items. The results come as a new input; finish the plan then."
        )

    async def checked(self, todos: list[dict]) -> list[dict]:
        """Run the checks the new list makes due; all pass: the list with those items verified.

        Any failure refuses the whole write (ToolError) with each failed check's output tail,
        and is kept in `todo_failed_checks` for the guard's correction.
        """
        due = self.manager.due_checks(todos)
        if not due or self.run_check is None or self.context is None:
            return todos
        failed = self.state()["todo_failed_checks"]
        failures = []
        todos = [dict(item) for item in todos]
        for index in due:
            item = todos[index]
            result = await self.run_check(item["check"], self.context)
            if result.passed:
                item["verified"] = True
                failed.pop(item["content"], None)
                continue
            failed[item["content"]] = {"check": item["check"], "output": result.output}
            failures.append(
                f"The check of todos[{index}] ({item['content']!r}) failed:\n"
                f"$ {item['check']}\n{result.output}"
            )
        if failures:
            raise ToolError(
                "todo_write rejected, the list is unchanged: "
                + "\n\n".join(failures)
                + "\n\nFix it or keep the item open (in_progress), then send the list again."
            )
        return todos

    async def checked_wait(self, todos: list[dict], task_ids: list[str]) -> TaskWaitBinding:
        """Ask the host whether `task_ids` can be waited for; raise ToolError if not."""
        task_ids = list(dict.fromkeys(task_ids))  # each id once, in the order given
        refused = (
            f"todo_write rejected, the list is unchanged (wait_for_tasks: {', '.join(task_ids)})"
        )
        ctx = self.context
        if self.validate_task_wait is None or ctx is None:
            raise ToolError(
                f"{refused}: waiting is not available here. Call todo_write without it."
            )
        prior = self.live_wait(ctx, self.state())
        try:
            verdict = await self.validate_task_wait(task_ids, ctx, prior)
        except Exception as err:  # a lookup that failed is a wait that does not hold
            raise ToolError(
                f"{refused}: the tasks could not be checked ({type(err).__name__}: {err}). Call "
                "todo_write without wait_for_tasks and keep working, or look at the tasks with "
                "task_output."
            ) from None
        if verdict.status != VALID:
            bad = ", ".join(verdict.bad_task_ids or task_ids)
            why = verdict.reason or "they have no result left to deliver"
            if verdict.status == CANCELLED:
                why = f"they were cancelled ({why}); cancelled work cannot be waited for"
            raise ToolError(
                f"{refused}: cannot wait for {bad}: {why}. Send only ids of background tasks "
                "that are still running or have an unread result, or call todo_write without "
                "wait_for_tasks."
            )
        if not is_json(verdict.validation):
            raise ToolError(f"{refused}: the task check returned evidence that cannot be saved.")
        return TaskWaitBinding(
            task_ids=task_ids,
            todos=[dict(item) for item in todos],
            tool_use_id=self.call_id,
            run_id=ctx.run_id,
            input_seq=ctx.input_seq,
            validation=verdict.validation,
        )

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
        self.live_wait(ctx, state)  # drops a wait that new input has made stale
        calls = tool_calls(response)
        todo_calls = [call for call in calls if call["name"] == TOOL_NAME]
        self.refused_call_ids = {c["id"] for c in todo_calls} if len(todo_calls) > 1 else set()
        if not calls:
            state["todo_stale_iterations"] = 0  # a plain-text reply ends the streak
            return await self.finalization_guard(response, ctx, state)
        # The reminder: after `reminder_after` turns in a row without a successful todo_write,
        # the current list comes back after this turn's tool results, where the model looks
        # next; then at most once every `reminder_cooldown` turns. The turns are counted from
        # the transcript, so a resumed session counts the same. A reply that calls todo_write
        # gets none: its own result speaks for the plan (success updates it, an error says what
        # to fix). A rejected write still counts, so the reminder comes on the next turn.
        finished, since_reminder = self.stale_streak(ctx.messages)
        if todo_calls:
            state["todo_stale_iterations"] = finished
            return None
        turns = state["todo_stale_iterations"] = finished + 1
        cooling_down = since_reminder is not None and since_reminder + 1 < self.reminder_cooldown
        all_done = bool(self.manager.items) and not self.manager.unfinished()
        if turns < self.reminder_after or cooling_down or all_done:
            return None
        return TurnAction(inject_messages=[self.reminder(turns)])

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, *, signal: asyncio.Event | None = None
    ) -> BeforeToolCallResult | None:
        if ctx.tool_call["name"] != TOOL_NAME:
            return None
        self.context, self.call_id = ctx.context, ctx.tool_call["id"]
        if ctx.tool_call["id"] not in self.refused_call_ids:
            return None
        return BeforeToolCallResult(
            block=True,
            reason=(
                f"{len(self.refused_call_ids)} todo_write calls came in one reply, so none was "
                "applied and the list is unchanged. Send one todo_write call with the whole list."
            ),
        )

    # ---- helpers ---------------------------------------------------------------------------

    def live_wait(self, ctx: AgentContext, state: dict) -> TaskWaitBinding | None:
        """The stored wait if it still holds; a stale one is dropped.

        It holds while the run and the input boundary it was declared in are still the current
        ones (a new user input, a delivered task result or a person's answer to an approval
        question moves `input_seq`) and the list is the one that update left.
        """
        binding = TaskWaitBinding.from_json(state["todo_task_wait"])
        current = (
            binding is not None
            and binding.run_id == ctx.run_id
            and binding.input_seq == ctx.input_seq
            and binding.todos == self.manager.items
        )
        if not current:
            state["todo_task_wait"] = None
            return None
        return binding

    async def wait_ends_the_run(self, ctx: AgentContext, state: dict) -> bool:
        """Ask the host again about the declared wait; True lets the run end with open items."""
        binding = self.live_wait(ctx, state)
        if binding is None or self.validate_task_wait is None:
            return False
        try:
            verdict = await self.validate_task_wait(list(binding.task_ids), ctx, binding)
        except Exception:  # a failed lookup proves nothing: the ordinary guard runs
            verdict = None
        status = verdict.status if verdict is not None else "error"
        reason = verdict.reason.strip() if verdict is not None else ""
        outcome = {
            "task_ids": binding.task_ids,
            "unfinished": [dict(item) for item in self.manager.unfinished()],
            "input_seq": ctx.input_seq,
        }
        if status == VALID:
            if is_json(verdict.validation) and verdict.validation:
                state["todo_task_wait"] = {**binding.to_json(), "validation": verdict.validation}
            state["todo_task_wait_outcome"] = {"status": VALID, **outcome}
            return True
        state["todo_task_wait"] = None  # cancelled or no longer provable: the wait is over
        if status == CANCELLED and reason:
            state["todo_task_wait_outcome"] = {"status": CANCELLED, "reason": reason, **outcome}
            return True
        return False

    def state(self, run_id: str | None = None) -> dict:
        """The live `extra` mapping with every todo key present; a new input resets the guard."""
        extra = self.extra_ref()
        for key, default in DEFAULT_STATE.items():
            extra.setdefault(key, type(default)() if isinstance(default, dict) else default)
        if self.history:
            extra.setdefault("todo_history", [])
        if run_id is not None and extra["todo_guard_retries"].get("input") != run_id:
            extra["todo_guard_retries"] = {"input": run_id}
            extra["todo_guard_blocked"] = None
            extra["todo_guard_suppressed"] = False
        return extra

    def stale_streak(self, messages: list[dict]) -> tuple[int, int | None]:
        """The finished turns in a row without a successful todo_write, up to the newest.

        Returns their number, and how many of them came after the latest reminder among them
        (None if none had one). A plain-text reply ends the streak, and so does a todo_write
        whose result is not an error; any other turn with tool calls counts.

        The turns are read oldest first, and where the reading got to is kept, so each call
        reads only the turns added since: the work per turn does not grow with the session.
        That holds because a transcript changes only at its end (conversation.py replaces its
        last message to add to it); if the message read last is no longer there, every turn
        is read again.
        """
        start, turns, since_reminder = 0, 0, None
        if self.streak_so_far is not None:
            upto, last, kept_turns, kept_since = self.streak_so_far
            if 0 < upto <= len(messages) and messages[upto - 1] is last:
                start, turns, since_reminder = upto, kept_turns, kept_since
        for index in range(start, len(messages)):
            if messages[index]["role"] != "assistant":
                continue
            answered = index + 1 < len(messages)
            answer = messages[index + 1]["content"] if answered else []
            answer = answer if isinstance(answer, list) else []
            stale, reminded = stale_turn(messages[index], answer)
            if not stale:
                turns, since_reminder = 0, None
            elif reminded:
                turns, since_reminder = turns + 1, 0
            else:
                turns += 1
                since_reminder = None if since_reminder is None else since_reminder + 1
            if answered:  # an unanswered call is read again next time, with its results
                self.streak_so_far = (index + 2, messages[index + 1], turns, since_reminder)
        return turns, since_reminder

    def reminder(self, stale_turns: int) -> dict:
        if self.manager.items:
            listing = render_items([escaped_item(item) for item in self.manager.items])
            text = load_prompt("todo_reminder").format(turns=stale_turns, todos=listing)
        else:
            text = load_prompt("todo_no_plan").format(turns=stale_turns)
        return {"role": "user", "content": [text_block(text)]}

    async def finalization_guard(
        self, response: dict, ctx: AgentContext, state: dict
    ) -> TurnAction | None:
        """On a final answer with open items: one correction per input, then stand aside.

        A declared task wait the host still confirms lets the run end without one.
        """
        unfinished = self.manager.unfinished()
        if not unfinished or state["todo_guard_suppressed"]:
            return None
        if response.get("stop_reason") in ("refusal", "pause_turn"):
            return None  # not a final answer to argue with
        if await self.wait_ends_the_run(ctx, state):
            return None
        retries = state["todo_guard_retries"]
        if retries.get(FINALIZATION, 0) >= MAX_CORRECTIONS:
            state["todo_guard_blocked"] = {"unfinished": [dict(item) for item in unfinished]}
            state["todo_guard_suppressed"] = True
            return None
        retries[FINALIZATION] = retries.get(FINALIZATION, 0) + 1
        state["todo_finalization_correction"] = True
        failed = state["todo_failed_checks"]
        listing = "\n".join(
            f"- [{item['status']}] {escape_tags(item['content'])}"
            + failed_check_note(failed.get(item["content"]))
            for item in unfinished
        )
        correction = load_prompt("todo_finalize").format(unfinished=listing)
        return TurnAction(
            inject_messages=[{"role": "user", "content": [text_block(correction)]}],
            decision="loop_to_model",
        )


def failed_check_note(failure: dict | None) -> str:
    """What the guard says after an open item whose check failed: the command and its exit."""
    if not isinstance(failure, dict):
        return ""
    last = (failure.get("output") or "").strip().splitlines()[-1:] or [""]
    return f" (its check failed: $ {escape_tags(failure.get('check', ''))} {escape_tags(last[0])})"


def escaped_item(item: dict) -> dict:
    """The item with its text escaped, to be shown inside the harness's own tags."""
    return {**item, "content": escape_tags(item["content"])}


def stale_turn(reply: dict, answer: list[dict]) -> tuple[bool, bool]:
    """Whether a turn leaves the plan stale, and whether its answer carried a reminder.

    A turn is stale when it called tools but no todo_write among them succeeded (a call with
    no result yet counts as not succeeded).
    """
    calls = tool_calls(reply)
    failed = {
        block["tool_use_id"]: bool(block.get("is_error"))
        for block in answer
        if block.get("type") == "tool_result"
    }
    wrote_plan = any(not failed.get(c["id"], True) for c in calls if c["name"] == TOOL_NAME)
    if not calls or wrote_plan:
        return False, False
    return True, any(is_reminder(block) for block in answer)


def is_reminder(block: dict) -> bool:
    """Whether a content block is a stale-plan reminder (either wording), as written above."""
    if block.get("type") != "text":
        return False
    openings = (load_prompt(name).split("{", 1)[0] for name in ("todo_reminder", "todo_no_plan"))
    return any(block["text"].startswith(opening) for opening in openings)


# ---- what a front end shows of a note --------------------------------------------------------

REMINDER, NO_PLAN, CORRECTION = "reminder", "no_plan", "correction"
NOTE_PROMPTS = {REMINDER: "todo_reminder", NO_PLAN: "todo_no_plan", CORRECTION: "todo_finalize"}


@dataclass(frozen=True)
class TodoNote:
    """A note of this middleware, read back for display: which one, after how many turns, and
    its item lines as the model read them (unescaped: the screen is not a harness tag)."""

    kind: str  # REMINDER, NO_PLAN or CORRECTION
    turns: int | None  # the stale turns a reminder counts; None for a correction
    items: list[str]


def note_pattern(template: str) -> re.Pattern[str]:
    """A prompt template as a pattern: each `{turns}` a number, each list a group of lines."""
    parts = re.split(r"\{(\w+)\}", template.strip())
    pattern = ""
    for index, part in enumerate(parts):
        if index % 2 == 0:
            pattern += re.escape(part)
        else:
            pattern += r"(?P<turns>\d+)" if part == "turns" else r"(?P<items>.*?)"
    return re.compile(pattern, re.DOTALL)


def read_note(text: str) -> TodoNote | None:
    """What a reminder or a correction this middleware added says; None for any other text.

    The terminal uses it to show the whole item list and to count a repeated reminder,
    instead of cutting the note at its first line.
    """
    for kind, name in NOTE_PROMPTS.items():
        found = note_pattern(load_prompt(name)).fullmatch(text.strip())
        if found is None:
            continue
        fields = found.groupdict()
        lines = html.unescape(fields.get("items") or "").splitlines()
        items = [line for line in lines if line.strip()]
        turns = int(fields["turns"]) if fields.get("turns") else None
        return TodoNote(kind, turns, items)
    return None
