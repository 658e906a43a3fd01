"""TodoManager: the model's plan as validated state, replaced whole on every update.

    todo_write(todos) --> validate every item --> all good? swap the list in --> short summary
                                   |
                                   +--> any problem: TodoError, the old list stays exactly as it was

The list itself lives in a mapping that the caller owns (the agent's checkpointed `extra`,
under the key "todos"), so saving a session saves the plan. `render()` only displays.
"""

from __future__ import annotations

import json
from collections.abc import Callable

PENDING, IN_PROGRESS, COMPLETED = "pending", "in_progress", "completed"
STATUSES = (PENDING, IN_PROGRESS, COMPLETED)
MARKS = {PENDING: "[ ]", IN_PROGRESS: "[>]", COMPLETED: "[x]"}
MAX_ITEMS = 20
MAX_CONTENT_CHARS = 500
TODOS_KEY = "todos"


class TodoError(ValueError):
    """A rejected update; the message tells the model what to send instead."""


class TodoManager:
    def __init__(self, store: Callable[[], dict] | None = None, max_items: int = MAX_ITEMS) -> None:
        own: dict = {}
        self.store = store or (lambda: own)
        self.max_items = max_items

    @property
    def items(self) -> list[dict]:
        """The current list (an empty list when there is none yet). Do not mutate it."""
        return self.store().get(TODOS_KEY) or []

    def unfinished(self) -> list[dict]:
        return [item for item in self.items if item["status"] != COMPLETED]

    def update(self, todos: object) -> str:
        """Validate the whole list, then swap it in; return a short summary for the model."""
        validated = self.validate(todos)
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
            content, status = validate_item(index, item)
            if content in seen:
                raise TodoError(
                    f"todos[{index}].content repeats todos[{seen[content]}] ({content!r}); "
                    "each item must be a different step."
                )
            seen[content] = index
            validated.append({"content": content, "status": status})
        if not validated and self.unfinished():
            left = ", ".join(repr(item["content"]) for item in self.unfinished())
            raise TodoError(
                f"An empty list would drop unfinished items: {left}. "
                "Send the list with those items marked completed (or still open) instead."
            )
        check_one_in_progress(validated)
        return validated

    def summary(self) -> str:
        items = self.items
        done = sum(item["status"] == COMPLETED for item in items)
        current = [item["content"] for item in items if item["status"] == IN_PROGRESS]
        now = f"; in progress: {current[0]}" if current else ""
        return f"Todo list updated: {done}/{len(items)} done{now}."

    def render(self) -> str:
        """The list as plain text, one line per item, and a done count."""
        return render_items(self.items)


def render_items(items: list[dict]) -> str:
    """A list of items as plain text, one line per item, and a done count."""
    if not items:
        return "(no todo list)"
    lines = [f"{MARKS[item['status']]} {item['content']}" for item in items]
    done = sum(item["status"] == COMPLETED for item in items)
    lines.append(f"({done}/{len(items)} done)")
    return "\n".join(lines)


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


def validate_item(index: int, item: object) -> tuple[str, str]:
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
    if normal not in STATUSES:
        raise TodoError(f"{where}.status is {status!r}; use one of: {', '.join(STATUSES)}.")
    return content, normal


def check_one_in_progress(items: list[dict]) -> None:
    """Unless everything is completed, exactly one item is the step being worked on."""
    if all(item["status"] == COMPLETED for item in items):
        return
    active = [i for i, item in enumerate(items) if item["status"] == IN_PROGRESS]
    if len(active) == 1:
        return
    if not active:
        raise TodoError(
            "No item is in_progress. Mark exactly one item (the step you are on now) as "
            "in_progress, unless every item is completed."
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
