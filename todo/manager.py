"""TodoManager: the model's plan as validated state, replaced whole on every update.

    todo_write(todos) --> validate every item --> all good? swap the list in --> short summary
                                   |
                                   +--> any problem: TodoError, the old list stays exactly as it was

The list itself lives in a mapping that the caller owns (the agent's checkpointed `extra`,
under the key "todos"), so saving a session saves the plan. `render()` only displays.

Two opt-in rules make the plan harder to fake (both on in the CLI):

- `keep_items`: nothing vanishes. A new list must carry every unfinished item of the old one,
  or resend it as `cancelled` with a `reason`. A cancelled item counts as finished, shows
  struck through, and is dropped from the list at the next write.
- `checks`: an item may carry `check`, a shell command that proves it done. The manager only
  says which checks are due (`due_checks`); the middleware runs them. A completed item whose
  check passed is stored with `"verified": true`; one without a check is only claimed done.
"""

from __future__ import annotations

import json
from collections.abc import Callable

PENDING, IN_PROGRESS, COMPLETED = "pending", "in_progress", "completed"
CANCELLED = "cancelled"  # only with keep_items
STATUSES = (PENDING, IN_PROGRESS, COMPLETED)
FINISHED = (COMPLETED, CANCELLED)
STORED_STATUSES = (*STATUSES, CANCELLED)  # what a saved list may hold, whatever the options
MARKS = {PENDING: "[ ]", IN_PROGRESS: "[>]", COMPLETED: "[x]", CANCELLED: "[-]"}
MAX_ITEMS = 20
MAX_CONTENT_CHARS = 500
MAX_CHECK_CHARS = 1000
MAX_REASON_CHARS = 300
TODOS_KEY = "todos"


class TodoError(ValueError):
    """A rejected update; the message tells the model what to send instead."""


class TodoManager:
    def __init__(
        self,
        store: Callable[[], dict] | None = None,
        max_items: int = MAX_ITEMS,
        *,
        keep_items: bool = False,
        checks: bool = False,
    ) -> None:
        own: dict = {}
        self.store = store or (lambda: own)
        self.max_items = max_items
        self.keep_items = keep_items
        self.checks = checks

    @property
    def statuses(self) -> tuple[str, ...]:
        """The statuses this manager accepts."""
        return STORED_STATUSES if self.keep_items else STATUSES

    @property
    def items(self) -> list[dict]:
        """The current list (an empty list when there is none yet). Do not mutate it."""
        return self.store().get(TODOS_KEY) or []

    def unfinished(self) -> list[dict]:
        """The items still to do: neither completed nor cancelled."""
        return [item for item in self.items if item["status"] not in FINISHED]

    def update(self, todos: object) -> str:
        """Validate the whole list, then swap it in; return a short summary for the model."""
        return self.replace(self.validate(todos))

    def replace(self, validated: list[dict]) -> str:
        """Swap in a list that `validate` returned (checks already run); return the summary."""
        self.store()[TODOS_KEY] = validated
        return f"{self.summary()}\n{self.render()}" if validated else "Todo list cleared."

    def validate(self, todos: object) -> list[dict]:
        """A new, normalised list; raises TodoError naming the item, the field and the fix."""
        if isinstance(todos, str):
            todos = decode_json_list(todos)
        if not isinstance(todos, list):
            raise TodoError(
                f"todos must be a list of {{content, status}} objects, not {type_name(todos)}."
            )
        if len(todos) > self.max_items:
            raise TodoError(
                f"The list has {len(todos)} items; at most {self.max_items} are allowed. "
                "Merge small steps into larger ones."
            )
        validated: list[dict] = []
        seen: dict[str, int] = {}
        for index, item in enumerate(todos):
            checked = validate_item(index, item, self.statuses, self.checks)
            content = checked["content"]
            if content in seen:
                raise TodoError(
                    f"todos[{index}].content repeats todos[{seen[content]}] ({content!r}); "
                    "each item must be a different step."
                )
            seen[content] = index
            validated.append(checked)
        if self.keep_items:
            self.check_nothing_vanishes(validated)
        elif not validated and self.unfinished():
            left = ", ".join(repr(item["content"]) for item in self.unfinished())
            raise TodoError(
                f"An empty list would drop unfinished items: {left}. "
                "Send the list with those items marked completed (or still open) instead."
            )
        check_one_in_progress(validated, "completed or cancelled" if self.keep_items else COMPLETED)
        return self.carried_forward(validated)

    def check_nothing_vanishes(self, new: list[dict]) -> None:
        """Every unfinished item of the current list is in `new` (maybe cancelled, with reason)."""
        sent = {item["content"] for item in new}
        missing = [item["content"] for item in self.unfinished() if item["content"] not in sent]
        if not missing:
            return
        names = ", ".join(repr(content) for content in missing)
        example = json.dumps({"content": missing[0], "status": CANCELLED, "reason": "why"})
        raise TodoError(
            f"the list leaves out unfinished items: {names}. Send them again with their status, "
            f"or, to drop one on purpose, resend it as cancelled with a reason: {example}."
        )

    def carried_forward(self, new: list[dict]) -> list[dict]:
        """`new` as it will be stored: items cancelled before are dropped now, and a completed
        item keeps `verified` while its check is the one that passed."""
        old = {item["content"]: item for item in self.items}
        kept = []
        for item in new:
            before = old.get(item["content"], {})
            if item["status"] == CANCELLED and before.get("status") == CANCELLED:
                continue  # cancelled at the last write: its one showing is over
            if (
                item["status"] == COMPLETED
                and before.get("verified")
                and before.get("check") == item.get("check")
            ):
                item = {**item, "verified": True}
            kept.append(item)
        return kept

    def due_checks(self, new: list[dict]) -> list[int]:
        """The places in a validated `new` list whose check must pass before it is stored:
        completed items with a check that has not passed already."""
        return [
            index
            for index, item in enumerate(new)
            if item["status"] == COMPLETED and item.get("check") and not item.get("verified")
        ]

    def summary(self) -> str:
        items = self.items
        current = [item["content"] for item in items if item["status"] == IN_PROGRESS]
        now = f"; in progress: {current[0]}" if current else ""
        return f"Todo list updated: {done_count(items)}{now}."

    def render(self) -> str:
        """The list as plain text, one line per item, and a done count."""
        return render_items(self.items)


def render_items(items: list[dict]) -> str:
    """A list of items as plain text, one line per item, and a done count."""
    if not items:
        return "(no todo list)"
    lines = [f"{MARKS[item['status']]} {item['content']}{item_note(item)}" for item in items]
    lines.append(f"({done_count(items)})")
    return "\n".join(lines)


def item_note(item: dict) -> str:
    """What the text display adds after an item: how it was finished, or its check."""
    if item["status"] == CANCELLED:
        return f" (cancelled: {item.get('reason', '')})"
    if item.get("verified"):
        return " (✓ checked)"
    if item.get("check"):
        return f" (check: {item['check']})"
    return ""


def done_count(items: list[dict]) -> str:
    """'2/4 done', with how many of the done ones a check proved and how many were cancelled.

    Cancelled items are not counted in the total: they are not part of the work any more.
    """
    work = [item for item in items if item["status"] != CANCELLED]
    done = sum(item["status"] == COMPLETED for item in work)
    checked = sum(bool(item.get("verified")) for item in work)
    cancelled = len(items) - len(work)
    parts = [f"{done}/{len(work)} done"]
    if checked:
        parts.append(f"{checked} checked")
    if cancelled:
        parts.append(f"{cancelled} cancelled")
    return ", ".join(parts)


def decode_json_list(text: str) -> object:
    """Some compatible models send the list as a JSON string; decode it once, never eval it."""
    try:
        decoded = json.loads(text)
    except ValueError:
        raise TodoError(
            "todos must be a list of {content, status} objects; got a string that is not JSON."
        ) from None
    if not isinstance(decoded, list):
        raise TodoError(
            f"todos must be a list of {{content, status}} objects; got a string holding "
            f"{type_name(decoded)}."
        )
    return decoded


def validate_item(
    index: int, item: object, statuses: tuple[str, ...] = STATUSES, checks: bool = False
) -> dict:
    """One item as it will be stored: content, status, and check or reason where they apply."""
    where = f"todos[{index}]"
    if not isinstance(item, dict):
        raise TodoError(
            f"{where} must be an object like "
            f'{{"content": "...", "status": "pending"}}, not {type_name(item)}.'
        )
    content = item.get("content")
    if not isinstance(content, str):
        raise TodoError(
            f"{where}.content must be a string describing the step, not {type_name(content)}."
        )
    content = content.strip()
    if not content:
        raise TodoError(f"{where}.content is empty; describe the step in a few words.")
    if len(content) > MAX_CONTENT_CHARS:
        raise TodoError(
            f"{where}.content has {len(content)} characters; at most {MAX_CONTENT_CHARS} "
            "are allowed (a short step, not its details)."
        )
    status = item.get("status")
    normal = status.strip().lower() if isinstance(status, str) else None
    if normal not in statuses:
        raise TodoError(f"{where}.status is {status!r}; use one of: {', '.join(statuses)}.")
    checked = {"content": content, "status": normal}
    if normal == CANCELLED:
        checked["reason"] = optional_text(item, "reason", where, MAX_REASON_CHARS)
        if not checked["reason"]:
            raise TodoError(
                f'{where} is cancelled without a reason; add "reason": a few words on why '
                "the step is dropped (or keep it open)."
            )
    if item.get("check") is not None:
        if not checks:
            raise TodoError(
                f"{where}.check: checks are not available here; send the item without check."
            )
        if check := optional_text(item, "check", where, MAX_CHECK_CHARS):
            checked["check"] = check
    return checked


def optional_text(item: dict, key: str, where: str, limit: int) -> str:
    """A stripped optional string field of an item ('' when absent)."""
    value = item.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TodoError(f"{where}.{key} must be a string, not {type_name(value)}.")
    value = value.strip()
    if len(value) > limit:
        raise TodoError(f"{where}.{key} has {len(value)} characters; at most {limit} are allowed.")
    return value


def check_one_in_progress(items: list[dict], finished: str = COMPLETED) -> None:
    """Unless everything is finished, exactly one item is the step being worked on."""
    if all(item["status"] in FINISHED for item in items):
        return
    active = [i for i, item in enumerate(items) if item["status"] == IN_PROGRESS]
    if len(active) == 1:
        return
    if not active:
        raise TodoError(
            "No item is in_progress. Mark exactly one item (the step you are on now) as "
            f"in_progress, unless every item is {finished}."
        )
    places = ", ".join(f"todos[{i}]" for i in active)
    raise TodoError(
        f"{len(active)} items are in_progress ({places}); exactly one may be. "
        "Keep the step you are on now in_progress and set the others to pending or completed."
    )


def type_name(value: object) -> str:
    names = {
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        dict: "an object",
        list: "a list",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)
