"""/undo in a real terminal: the list, the question, the files put back, and after --resume."""

from __future__ import annotations

import json
import os

import pytest
from conftest import run, run_cli, terminal_env
from test_interactive import Terminal

from examples.append_file import APPEND_FILE
from fakeapi import text, tool_use
from middleware.undo import (
    UNDO_MAX_BYTES,
    FileBefore,
    UndoRecorder,
    apply_file,
    plan_file,
    plan_undo,
)
from session import session_files
from tools import default_tools

pytestmark = pytest.mark.real_exec


def edit_and_create(api) -> None:
    """One input's replies: read notes.txt, edit it, create made.txt, answer."""
    api.add({"content": [tool_use("read_file", {"path": "notes.txt"})]})
    edit = {"path": "notes.txt", "old_text": "old line", "new_text": "new line"}
    api.add({"content": [tool_use("edit_file", edit)]})
    api.add({"content": [tool_use("write_file", {"path": "sub/made.txt", "content": "made\n"})]})
    api.add({"content": [text("Edited and created.")]})


@pytest.fixture
def env(api, isolated_home):
    return terminal_env(api, isolated_home)


def test_undo_lists_the_files_asks_and_puts_them_back(api, env, workspace):
    (workspace / "notes.txt").write_text("old line\n")
    edit_and_create(api)
    api.add({"content": [text("Understood.")]})
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("change the notes\r")
        terminal.wait_for("Edited and created.")
        terminal.wait_for_prompt()
        assert (workspace / "notes.txt").read_text() == "new line\n"
        terminal.type("/undo\r")
        listed = terminal.wait_for("Undo these changes? [y/n]:")
        assert 'Undo the file changes of "change the notes":' in listed
        assert "notes.txt     restored to its content before that input" in listed
        assert "sub/made.txt  deleted: that input created it" in listed
        assert "bash" not in listed  # no command ran: no warning
        assert (workspace / "notes.txt").read_text() == "new line\n"  # nothing before the answer
        terminal.type("maybe\r")
        terminal.wait_for("Please type y or n")
        terminal.type("y\r")
        terminal.wait_for("notes.txt: restored")
        terminal.wait_for("sub/made.txt: deleted")
        terminal.wait_for_prompt()
        assert (workspace / "notes.txt").read_text() == "old line\n"
        assert not (workspace / "sub" / "made.txt").exists()
        terminal.type("/undo\r")  # that input is undone: nothing earlier to go back to
        terminal.wait_for("Nothing to undo: every input's file changes are undone already.")
        terminal.wait_for_prompt()
        terminal.type("what now?\r")  # the model learns what was undone, with this input
        terminal.wait_for("Understood.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    sent = api.accepted[-1]["messages"][-1]["content"]
    note, prompt = sent[-2]["text"], sent[-1]["text"]
    assert note.startswith("<undo>") and "notes.txt restored, sub/made.txt deleted" in note
    assert prompt == "what now?"


def test_undo_again_goes_one_input_further_back_and_bash_is_named(api, env, workspace):
    (workspace / "notes.txt").write_text("old line\n")
    edit_and_create(api)
    api.add({"content": [tool_use("bash", {"command": "echo x > by-bash.txt"})]})
    api.add({"content": [tool_use("write_file", {"path": "second.txt", "content": "2\n"})]})
    api.add({"content": [text("Second done.")]})
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("first\r")
        terminal.wait_for("Edited and created.")
        terminal.wait_for_prompt()
        terminal.type("second\r")
        terminal.wait_for("[y]es / [n]o")  # bash asks without the sandbox
        terminal.type("y\r")
        terminal.wait_for("Second done.")
        terminal.wait_for_prompt()
        terminal.type("/undo\r")
        listed = terminal.wait_for("Undo these changes? [y/n]:")
        assert 'of "second"' in listed and "second.txt" in listed
        assert "notes.txt" not in listed
        assert "bash commands ran in this input or a later one" in listed
        terminal.type("y\r")
        terminal.wait_for("second.txt: deleted")
        terminal.wait_for_prompt()
        assert (workspace / "by-bash.txt").exists()  # bash's change stays, as the list said
        terminal.type("/undo\r")
        listed = terminal.wait_for("Undo these changes? [y/n]:")
        assert 'of "first"' in listed and "notes.txt" in listed
        terminal.type("n\r")
        terminal.wait_for("Nothing was undone.")
        terminal.wait_for_prompt()
        assert (workspace / "notes.txt").read_text() == "new line\n"
        terminal.type("\x04")
        assert terminal.close() == 0


def test_a_file_changed_since_asks_before_it_is_overwritten(api, env, workspace):
    (workspace / "notes.txt").write_text("old line\n")
    edit_and_create(api)
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("change the notes\r")
        terminal.wait_for("Edited and created.")
        terminal.wait_for_prompt()
        (workspace / "notes.txt").write_text("new line\nmy own line\n")  # the person edits
        terminal.type("/undo\r")
        listed = terminal.wait_for("Undo these changes? [y/n]:")
        assert "! it changed after planloop wrote it (by you or a command)" in listed
        terminal.type("y\r")
        terminal.wait_for("notes.txt changed after planloop wrote it (you or a command).")
        terminal.wait_for("anyway? [y/n]:")
        terminal.type("n\r")
        terminal.wait_for("notes.txt: left as it is now")
        terminal.wait_for("sub/made.txt: deleted")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert (workspace / "notes.txt").read_text() == "new line\nmy own line\n"
    assert not (workspace / "sub" / "made.txt").exists()


def test_undo_works_after_resume_and_remembers_what_was_undone(api, env, workspace):
    (workspace / "notes.txt").write_text("old line\n")
    big = "x" * (UNDO_MAX_BYTES + 1)
    (workspace / "big.txt").write_text(big)
    api.add({"content": [tool_use("read_file", {"path": "big.txt", "limit": 1})]})
    api.add({"content": [tool_use("write_file", {"path": "big.txt", "content": "small\n"})]})
    api.add({"content": [text("Big one shrunk.")]})
    edit_and_create(api)
    first = run_cli("-p", "shrink the big file", cwd=workspace, env=env)
    assert first.returncode == 0, first.stderr
    second = run_cli("-p", "change the notes", "--resume", cwd=workspace, env=env)
    assert second.returncode == 0, second.stderr
    [(_, log)] = session_files(workspace)
    events = [json.loads(line) for line in log.read_text().splitlines()]
    undo = [e for e in events if e["type"] == "undo"]
    assert {(e["event"], e.get("path")) for e in undo} >= {
        ("before", "notes.txt"),
        ("after", "notes.txt"),
        ("before", "sub/made.txt"),
        ("before", "big.txt"),
    }

    with Terminal(workspace, env, "--no-sandbox", "--resume") as terminal:
        terminal.wait_for_prompt()
        terminal.type("/undo\r")
        listed = terminal.wait_for("Undo these changes? [y/n]:")
        assert 'of "change the notes"' in listed
        terminal.type("y\r")
        terminal.wait_for("notes.txt: restored")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert (workspace / "notes.txt").read_text() == "old line\n"

    with Terminal(workspace, env, "--no-sandbox", "--resume") as terminal:
        terminal.wait_for_prompt()
        terminal.type("/undo\r")  # the undone input stays undone: one further back
        listed = terminal.wait_for("Nothing there can be undone")
        assert 'of "shrink the big file"' in listed
        assert "big.txt  cannot be undone: it was 1,048,577 bytes, over the 1024 KiB" in listed
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert (workspace / "big.txt").read_text() == "small\n"


def test_a_file_name_with_escape_sequences_is_shown_not_obeyed(api, env, workspace):
    name = "evil\x1b]0;pwned\x07.txt"
    api.add({"content": [tool_use("write_file", {"path": name, "content": "planloop's\n"})]})
    api.add({"content": [text("Written.")]})
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("write it\r")
        terminal.wait_for("Written.")
        terminal.wait_for_prompt()
        (workspace / name).write_text("changed by hand\n")  # so that it is asked about by name
        terminal.type("/undo\r")
        terminal.wait_for("Undo these changes? [y/n]:")
        terminal.type("y\r")
        terminal.wait_for("Delete it anyway? [y/n]:")
        terminal.type("y\r")
        terminal.wait_for(": deleted")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert "\x1b]0;pwned" not in terminal.raw  # the title sequence never reached the terminal
    assert not (workspace / name).exists()


def test_ctrl_c_at_the_undo_question_undoes_nothing(api, env, workspace):
    (workspace / "notes.txt").write_text("old line\n")
    edit_and_create(api)
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("change the notes\r")
        terminal.wait_for("Edited and created.")
        terminal.wait_for_prompt()
        terminal.type("/undo\r")
        terminal.wait_for("Undo these changes? [y/n]:")
        terminal.ctrl_c()
        terminal.wait_for("Nothing was undone.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert (workspace / "notes.txt").read_text() == "new line\n"
    assert (workspace / "sub" / "made.txt").exists()


def test_a_new_tool_that_declares_writes_is_recorded_without_a_line_for_it(
    api, make_agent, workspace
):
    (workspace / "log.txt").write_text("one\n")
    recorder = UndoRecorder()
    agent = make_agent(tools=[*default_tools(), APPEND_FILE], middleware=[recorder])
    api.add({"content": [tool_use("append_file", {"path": "log.txt", "text": "two\n"})]})
    api.add({"content": [tool_use("append_file", {"path": "new.txt", "text": "fresh\n"})]})
    api.add({"content": [text("Appended.")]})
    run(agent.run("append to the logs"))
    assert (workspace / "log.txt").read_text() == "one\ntwo\n"
    [changes] = recorder.inputs
    assert changes.prompt == "append to the logs"
    plans = {plan.path: plan for plan in plan_undo(workspace, changes)}
    assert plans["log.txt"].action == "restore" and not plans["log.txt"].changed_since
    assert plans["new.txt"].action == "delete"
    assert [apply_file(workspace, plan) for plan in plans.values()] == ["restored", "deleted"]
    assert (workspace / "log.txt").read_text() == "one\n"
    assert not (workspace / "new.txt").exists()


# ---- putting a file back stays inside the workspace ---------------------------------------------


def test_undo_never_writes_into_git_or_through_a_swapped_folder(workspace, tmp_path):
    (workspace / ".git").mkdir()
    git = plan_file(workspace, FileBefore(".git/config", True, b"[core]\n", 7))
    assert git.action == "cannot" and ".git/ is protected" in git.why

    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("new\n")
    plan = plan_file(workspace, FileBefore("src/a.py", True, b"old\n", 4))
    assert plan.action == "restore"
    # Between the list and the answer, a command swaps the folder for a link out of the workspace.
    (workspace / "src").rename(workspace / "src-moved")
    os.symlink(outside, workspace / "src")
    outcome = apply_file(workspace, plan)
    assert outcome.startswith("not undone") and "escapes the workspace" in outcome
    assert list(outside.iterdir()) == []


def test_a_file_changed_between_the_list_and_the_answer_is_left_alone(workspace):
    (workspace / "a.txt").write_text("planloop's\n")
    plan = plan_file(workspace, FileBefore("a.txt", True, b"before\n", 7))
    (workspace / "a.txt").write_text("the person's, written while the question waited\n")
    assert "changed again" in apply_file(workspace, plan)
    assert (workspace / "a.txt").read_text().startswith("the person's")


def test_a_key_pasted_into_an_input_is_not_kept_cut_short_in_the_undo_record(monkeypatch):
    """The undo record keeps the start of each input; a key there is redacted before the cut,
    so no part of it is left where exact-match redaction cannot see it."""
    from middleware.undo import input_text

    key = "sk-ant-api03-" + "Q7x" * 20
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    kept = input_text([{"role": "user", "content": "please use this key: " + key + " and go on"}])
    assert key[:16] not in kept and "[redacted]" in kept.lower(), kept
