"""TodoManager: every validation rule, its message, and the validate-then-swap guarantee."""

import json

import pytest

from todo import TodoError, TodoManager


def item(content: str, status: str = "pending") -> dict:
    return {"content": content, "status": status}


def plan(*statuses: str) -> list[dict]:
    return [item(f"step {i}", status) for i, status in enumerate(statuses, 1)]


@pytest.fixture
def manager() -> TodoManager:
    return TodoManager()


def test_update_stores_list_and_reports_summary_and_render(manager):
    result = manager.update(plan("completed", "in_progress", "pending"))
    assert result.splitlines()[0] == "Todo list updated: 1/3 done; in progress: step 2."
    assert "[x] step 1\n[>] step 2\n[ ] step 3\n(1/3 done)" in result
    assert manager.items == plan("completed", "in_progress", "pending")


def test_result_is_short_and_not_an_echo_of_the_input(manager):
    result = manager.update([{**item("step 1", "in_progress"), "activeForm": "Doing step 1"}])
    assert "activeForm" not in result and "Doing" not in result
    assert len(result.splitlines()) == 3


def test_list_lives_in_the_given_store_under_todos():
    extra: dict = {}
    TodoManager(lambda: extra).update(plan("in_progress"))
    assert extra["todos"] == [item("step 1", "in_progress")]


def test_rejected_update_leaves_previous_list_exactly_as_it_was(manager):
    manager.update(plan("in_progress", "pending"))
    before = [dict(i) for i in manager.items]
    bad = [item("new 1", "completed"), item("new 2", "doing"), item("new 3", "in_progress")]
    with pytest.raises(TodoError, match=r"todos\[1\]\.status"):
        manager.update(bad)
    assert manager.items == before


def test_stored_list_is_a_copy_of_the_callers_objects(manager):
    todos = plan("in_progress", "pending")
    manager.update(todos)
    todos[0]["status"] = "completed"
    todos.append(item("sneaked in"))
    assert manager.items == plan("in_progress", "pending")


def test_render_does_not_change_state(manager):
    manager.update(plan("in_progress"))
    manager.render()
    manager.render()
    assert manager.items == plan("in_progress")
    assert TodoManager().render() == "(no todo list)"


@pytest.mark.parametrize(
    ("todos", "message"),
    [
        ({"content": "x"}, "todos must be a list of {content, status} objects, not an object"),
        (42, "not a number"),
        (["step"], r"todos\[0\] must be an object .* not a string"),
        ([{"status": "pending"}], r"todos\[0\]\.content must be a string .* not null"),
        ([item("   ", "in_progress")], r"todos\[0\]\.content is empty"),
        ([item("x" * 501, "in_progress")], r"todos\[0\]\.content has 501 characters; at most 500"),
        ([item("a", "in_progress"), item(" a ")], r"todos\[1\]\.content repeats todos\[0\]"),
        (
            [item("a", "done")],
            r"todos\[0\]\.status is 'done'; use one of: pending, in_progress, "
            "completed",
        ),
        ([{"content": "a"}], r"todos\[0\]\.status is None; use one of"),
        ([item("a"), item("b")], "No item is in_progress"),
        (
            [item("a", "in_progress"), item("b", "in_progress")],
            r"2 items are in_progress \(todos\[0\], todos\[1\]\); exactly one may be",
        ),
    ],
)
def test_invalid_lists_are_rejected_with_an_actionable_message(manager, todos, message):
    with pytest.raises(TodoError, match=message):
        manager.update(todos)
    assert manager.items == []


def test_content_is_stored_stripped_and_500_chars_is_allowed(manager):
    manager.update([item("  write it  ", "in_progress"), item("y" * 500)])
    assert manager.items[0]["content"] == "write it"


def test_status_whitespace_and_case_are_normalised(manager):
    manager.update([item("a", " IN_PROGRESS "), item("b", "Completed"), item("c", "PENDING")])
    assert [i["status"] for i in manager.items] == ["in_progress", "completed", "pending"]


def test_other_spellings_of_status_are_rejected(manager):
    with pytest.raises(TodoError, match="'in progress'"):
        manager.update([item("a", "in progress")])


def test_all_completed_needs_no_in_progress_item(manager):
    manager.update(plan("completed", "completed"))
    assert manager.unfinished() == []


def test_at_most_twenty_items_by_default_and_the_limit_is_configurable():
    with pytest.raises(TodoError, match="The list has 21 items; at most 20"):
        TodoManager().update(plan("in_progress", *["pending"] * 20))
    small = TodoManager(max_items=2)
    with pytest.raises(TodoError, match="at most 2"):
        small.update(plan("in_progress", "pending", "pending"))
    small.update(plan("in_progress", "pending"))


def test_empty_list_accepted_when_nothing_was_there_or_all_was_completed(manager):
    assert manager.update([]) == "Todo list cleared."
    manager.update(plan("completed"))
    manager.update([])
    assert manager.items == []


def test_empty_list_rejected_while_items_are_unfinished(manager):
    manager.update(plan("completed", "in_progress"))
    with pytest.raises(TodoError, match="would drop unfinished items: 'step 2'"):
        manager.update([])
    assert len(manager.items) == 2


def test_json_string_holding_a_list_is_accepted_once(manager):
    manager.update(json.dumps(plan("in_progress")))
    assert manager.items == plan("in_progress")
    with pytest.raises(TodoError, match="holding a string"):
        manager.update(json.dumps(json.dumps(plan("in_progress"))))


def test_strings_are_never_evaluated_as_python(manager):
    with pytest.raises(TodoError, match="not JSON"):
        manager.update("[{'content': 'a', 'status': 'in_progress'}]")
    with pytest.raises(TodoError, match="not JSON"):
        manager.update("__import__('os').system('echo hacked')")


def test_unknown_keys_on_items_are_ignored(manager):
    manager.update([{"content": "a", "status": "in_progress", "activeForm": "Doing a", "id": 7}])
    assert manager.items == [item("a", "in_progress")]
