"""The task wait: ending a run with open items while background work the host owns goes on.

    todo_write {todos, wait_for_tasks: ["bg-1"]}
        --> validator(["bg-1"], ctx, prior=None) --> valid?  the update applies and the wait is
                                                             bound to it (extra["todo_task_wait"])
                                                   else:   the whole call is refused
    ... the model ends its turn with text, items still open ...
        --> validator(["bg-1"], ctx, prior=binding) --> valid:     the run ends, no correction
                                                        cancelled: the run ends, reason kept
                                                        otherwise: the ordinary guard

The host (planloop's own background tasks in tools/tasks.py, or a library user's service)
writes the validator; this module holds only the types both sides exchange. A binding holds
the task ids, the list as that update left it, the run and the input boundary it was made in,
and the host's evidence. It is stored as JSON in the checkpointed `extra`, so the evidence must
be JSON and hold no secrets.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

VALID, CANCELLED = "valid", "cancelled"


@dataclass
class TaskWaitValidation:
    """A validator's answer.

    status: "valid" (the tasks still have a result to deliver), "cancelled" (the user stopped
    validated work since; needs a nonempty `reason`), anything else is invalid.
    validation: JSON evidence, stored with the binding and handed back as `prior`.
    reason: said to the model when the wait is refused, and kept when it was cancelled.
    bad_task_ids: the ids at fault, named in the error the model reads.
    """

    status: str
    validation: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    bad_task_ids: list[str] = field(default_factory=list)


@dataclass
class TaskWaitBinding:
    """A validated wait, tied to the update that declared it, its run and its input boundary."""

    task_ids: list[str]
    todos: list[dict]
    tool_use_id: str
    run_id: str
    input_seq: int
    validation: dict[str, Any]

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> TaskWaitBinding | None:
        """The binding saved in `extra`, or None when there is none or it cannot be read."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(**data)
        except TypeError:
            return None  # written by another version: unprovable, so no wait


TaskWaitValidator = Callable[
    [list[str], Any, "TaskWaitBinding | None"], Awaitable[TaskWaitValidation]
]


def void_unsaved_wait(extra: dict) -> None:
    """A wait counts only once it is checkpointed: after a failed save, drop it, so the run
    cannot end on a wait a restart would not know about (the ordinary guard runs instead)."""
    if extra.get("todo_task_wait") is not None:
        extra["todo_task_wait"] = None


def is_json(value: object) -> bool:
    """Whether `value` survives a save to the session file unchanged."""
    try:
        return json.loads(json.dumps(value)) == value
    except (TypeError, ValueError):
        return False
