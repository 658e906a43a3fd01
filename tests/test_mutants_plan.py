"""The plan's errors name the JSON type the model sent, so it can see what to send instead,
and the plan as text shows why a step was cancelled and which check a step waits for.

Found unchecked by mutation testing (bench/mutation.sh): the type names in TodoManager's
messages and the notes after an item could change without any test noticing.
"""

import pytest

from todo import TodoError, TodoManager


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (3.5, "not a number"),
        (7, "not a number"),
        (True, "not a boolean"),
        (["step"], "not a list"),
        ({"text": "step"}, "not an object"),
        (None, "not null"),
    ],
)
def test_a_step_whose_content_is_not_text_is_refused_naming_what_was_sent(content, named):
    with pytest.raises(TodoError) as caught:
        TodoManager().update([{"content": content, "status": "pending"}])
    assert str(caught.value).endswith(f"content must be a string describing the step, {named}.")


def test_a_type_json_cannot_send_is_named_by_its_python_name():
    with pytest.raises(TodoError) as caught:
        TodoManager().update(("a tuple", "of steps"))
    assert str(caught.value).endswith("objects, not tuple.")


def test_the_plan_shows_why_a_step_was_cancelled_and_which_check_a_step_waits_for():
    manager = TodoManager(keep_items=True, checks=True)
    manager.update(
        [
            {"content": "try the old parser", "status": "cancelled", "reason": "not needed"},
            {"content": "fix the bug", "status": "in_progress", "check": "pytest -q"},
            {"content": "write the docs", "status": "pending"},
        ]
    )
    assert manager.render().splitlines()[:3] == [
        "[-] try the old parser (cancelled: not needed)",
        "[>] fix the bug (check: pytest -q)",
        "[ ] write the docs",
    ]


def test_a_finished_plan_is_reported_without_a_step_in_progress():
    result = TodoManager().update([{"content": "ship it", "status": "completed"}])
    assert result.splitlines()[0] == "Todo list updated: 1/1 done."
