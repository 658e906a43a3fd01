"""What planloop says about its own work, as a person sees it: notes for the model in full, a
repeated reminder as a counter, a short line per reply with the context use above half, and one
line for each automatic clearing."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli, terminal_env
from test_context import ScriptedModel, read_steps, write_files
from test_interactive import Terminal

from fakeapi import text, tool_use

OPEN_PLAN = {
    "todos": [
        {"content": "Read the notes", "status": "in_progress"},
        {"content": "Sum them up", "status": "pending"},
    ]
}


@pytest.fixture
def wide_env(env) -> dict:
    """Lines as wide as they are: a notice is one line on stderr, not wrapped at 80 columns."""
    return {**env, "COLUMNS": "300"}


def test_reminders_show_the_list_a_repeat_counts_and_the_correction_lists_what_is_open(
    api, wide_env, workspace
):
    api.add({"content": [tool_use("todo_write", OPEN_PLAN)]})
    for _ in range(6):  # six tool turns without an update: a reminder after the 3rd and the 6th
        api.add({"content": [tool_use("read_file", {"path": "."})]})
    api.add({"content": [text("Done, I think.")]})  # items still open: the guard sends it back
    api.add({"content": [text("Stopping here.")]})
    result = run_cli("-p", "read the notes", cwd=workspace, env=wide_env)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    first = lines.index("↻ plan reminder (3 turns without an update), the list sent to the model:")
    assert lines[first + 1 : first + 4] == [
        "  [>] Read the notes",
        "  [ ] Sum them up",
        "  (0/2 done)",
    ]
    assert "↻ plan reminder ×2 (6 turns without an update; the same list as above)" in lines
    assert result.stderr.count("plan reminder") == 2
    correction = lines.index("↻ planloop sent the model back: not completed yet:")
    assert lines[correction + 1 : correction + 3] == [
        "  - [in_progress] Read the notes",
        "  - [pending] Sum them up",
    ]
    # The model got the whole reminder both times: only the screen counts instead of repeating.
    sent = [json.dumps(request["messages"][-1]) for request in api.accepted]
    assert sum("You have not updated your todo list" in message for message in sent) == 2


def test_a_changed_list_is_shown_again_in_full_not_counted(api, wide_env, workspace):
    api.add({"content": [tool_use("todo_write", OPEN_PLAN)]})
    for _ in range(3):
        api.add({"content": [tool_use("read_file", {"path": "."})]})
    done_first = {
        "todos": [{**OPEN_PLAN["todos"][0], "status": "completed"}, OPEN_PLAN["todos"][1]]
    }
    done_first["todos"][1] = {**done_first["todos"][1], "status": "in_progress"}
    api.add({"content": [tool_use("todo_write", done_first)]})
    for _ in range(3):
        api.add({"content": [tool_use("read_file", {"path": "."})]})
    all_done = {"todos": [{**item, "status": "completed"} for item in done_first["todos"]]}
    api.add({"content": [tool_use("todo_write", all_done)]})
    api.add({"content": [text("Finished.")]})
    result = run_cli("-p", "read the notes", cwd=workspace, env=wide_env)
    assert result.returncode == 0, result.stderr
    shown = result.stderr
    assert shown.count("the list sent to the model:") == 2 and "×2" not in shown
    assert "  [x] Read the notes\n  [>] Sum them up" in shown


def test_each_reply_has_a_short_line_with_the_context_above_half_and_cost_has_the_rest(
    api, workspace, isolated_home
):
    full = {"input_tokens": 1000, "cache_read_input_tokens": 5000, "output_tokens": 30}
    api.add({"content": [text("First.")], "usage": full})
    api.add({"content": [text("Second.")], "usage": {"input_tokens": 100, "output_tokens": 5}})
    env = terminal_env(api, isolated_home)
    with Terminal(workspace, env, "--no-sandbox", "--context-window", "10000") as terminal:
        terminal.wait_for_prompt()
        terminal.type("one\r")
        terminal.wait_for("First.")
        terminal.wait_for("6,000 in · 30 out · context 60% of 10K\n")
        terminal.wait_for_prompt()
        terminal.type("two\r")
        terminal.wait_for("Second.")
        terminal.wait_for("100 in · 5 out")
        assert terminal.wait_for("\n") == ""  # the context is at 1% now: not said
        terminal.wait_for_prompt()
        terminal.type("/cost\r")
        terminal.wait_for(
            "session total: 2 model calls · 1,100 in · 5,000 cache read · 0 cache write · 35 out"
        )
        terminal.wait_for_prompt()
        terminal.type("/clear\r")
        terminal.wait_for("New session")
        terminal.wait_for_prompt()
        terminal.type("/cost\r")  # the new session has cost nothing yet
        terminal.wait_for("No model calls yet in this session.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0


def test_automatic_clearing_says_so_in_one_line(api, wide_env, workspace):
    write_files(workspace, count=8, chars=8_000)  # eight reads of about 2,000 tokens each
    ScriptedModel(api, read_steps(8))
    result = run_cli(
        "-p", "read every file", "--context-window", "20000", cwd=workspace, env=wide_env
    )
    assert result.returncode == 0, result.stderr
    cleared = [line for line in result.stderr.splitlines() if "one-line placeholders" in line]
    assert cleared, result.stderr
    for line in cleared:
        assert line.startswith("! Context was at ") and line.endswith(
            "(the full output stays saved)."
        )
