"""The session log: replay, repair, old files, files planloop did not write, the lock, secrets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run, run_cli
from test_interactive import Terminal

from agent import Agent
from conversation import close_unanswered_calls, tool_result
from fakeapi import FakeMessagesAPI, text, tool_use
from session import STOPPED_MID_CALL, Session, read_session, sessions_dir
from todo import TodoListMiddleware

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
PLAN = {"todos": [{"content": "Write it", "status": "in_progress"}]}


def saved_agent(api, make_agent, workspace) -> tuple[Agent, Session]:
    """A run (a plan, a batch of two calls, an answer) saved through a Session."""
    api.add({"content": [text("Planning."), tool_use("todo_write", PLAN)]})
    write_a = tool_use("write_file", {"path": "a.txt", "content": "x"})
    api.add({"content": [write_a, tool_use("read_file", {"path": "a.txt"})]})
    api.add({"content": [text("Done.")]})
    api.add({"content": [text("Really done.")]})  # the guard's one correction
    session = Session(workspace)
    agent: Agent | None = None
    todo = TodoListMiddleware(extra_ref=lambda: agent.extra)
    agent = make_agent(middleware=[todo], checkpoint=session.save)
    run(agent.run("write a.txt"))
    session.close()
    return agent, session


def fresh_agent(make_agent) -> Agent:
    return make_agent(middleware=[TodoListMiddleware(extra_ref=lambda: {})])


def test_replaying_the_log_rebuilds_messages_and_extra_exactly(api, make_agent, workspace):
    agent, session = saved_agent(api, make_agent, workspace)
    assert read_session(session.path) == (agent.messages, agent.extra)
    records = [json.loads(line) for line in session.path.read_text().splitlines()]
    assert records[0]["type"] == "start" and records[0]["id"] == session.id
    assert all(r["v"] == 1 for r in records)
    replies = [r for r in records if r["type"] == "message" and r["message"]["role"] == "assistant"]
    assert len(replies) == 4 and all(r["usage"]["output_tokens"] > 0 for r in replies)
    assert {r["type"] for r in records} == {"start", "message", "blocks", "extra"}


def test_a_resumed_session_appends_instead_of_rewriting(api, make_agent, workspace):
    _, session = saved_agent(api, make_agent, workspace)
    before = session.path.read_bytes()
    resumed = Session(workspace, session.id)
    agent = fresh_agent(make_agent)
    resumed.load_into(agent)
    api.add({"content": [text("More.")]})
    agent.checkpoint = resumed.save
    run(agent.run("one more thing"))
    resumed.close()
    assert resumed.path.read_bytes().startswith(before)
    assert read_session(resumed.path)[0] == agent.messages


def test_a_torn_last_line_is_skipped_with_a_note_and_cut_off(api, make_agent, workspace):
    saved, session = saved_agent(api, make_agent, workspace)
    with open(session.path, "ab") as log:
        log.write(b'{"v": 1, "type": "message", "message": {"role": "us')
    resumed = Session(workspace, session.id)
    agent = fresh_agent(make_agent)
    resumed.load_into(agent)
    assert agent.messages == saved.messages
    [note] = resumed.notes
    assert "cut short" in note and "\n" not in note
    api.add({"content": [text("Fine.")]})
    agent.checkpoint = resumed.save
    run(agent.run("go on"))
    resumed.close()
    assert read_session(resumed.path)[0] == agent.messages  # the torn piece is gone


def test_unknown_record_types_are_skipped(api, make_agent, workspace):
    saved, session = saved_agent(api, make_agent, workspace)
    with open(session.path, "a") as log:
        log.write(json.dumps({"v": 1, "type": "bookmark", "at": 3}) + "\n")
    agent = fresh_agent(make_agent)
    Session(workspace, session.id).load_into(agent)
    assert agent.messages == saved.messages and agent.extra == saved.extra


def old_format_file(workspace: Path, messages: list, extra: dict, **fields) -> Path:
    path = sessions_dir(workspace) / "20250101-120000-abcd.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"version": 1, "id": path.stem, "messages": messages, "extra": extra, **fields}
    path.write_text(json.dumps(data))
    return path


def test_an_old_format_session_loads_and_goes_on_in_the_log(api, make_agent, workspace):
    call = tool_use("bash", {"command": "ls"})
    messages = [
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "content": [call]},
    ]
    old = old_format_file(workspace, messages, {"todos": PLAN["todos"]})
    session = Session.latest(workspace)
    agent = fresh_agent(make_agent)
    session.load_into(agent)
    assert agent.extra["todos"] == PLAN["todos"]
    [result] = agent.messages[-1]["content"]  # the call the old process never answered
    assert result["tool_use_id"] == call["id"] and result["content"] == STOPPED_MID_CALL
    api.add({"content": [text("Continuing.")]})
    agent.checkpoint = session.save
    run(agent.run("go on"))
    session.close()
    assert read_session(session.path)[0] == agent.messages
    assert json.loads(old.read_text())["messages"] == messages  # the old file is untouched


def test_a_partial_batch_gets_results_for_the_rest_before_any_text():
    first, second, third = (tool_use("bash", {"command": c}) for c in ("a", "b", "c"))
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [first, second, third]},
        {"role": "user", "content": [tool_result(first["id"], "done a")]},
    ]
    close_unanswered_calls(messages, "stopped")
    ids = [b["tool_use_id"] for b in messages[-1]["content"]]
    assert ids == [first["id"], second["id"], third["id"]]
    assert messages[-1]["content"][0]["content"] == "done a"
    assert messages[-1]["content"][2]["content"] == "stopped"


def log_file(workspace: Path, lines: list[dict]) -> Path:
    path = sessions_dir(workspace) / "20250101-120000-beef.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


START = {"v": 1, "type": "start", "id": "20250101-120000-beef"}
HELLO = {"v": 1, "type": "message", "message": {"role": "user", "content": "hello"}}
BAD_FILES = {
    "old format, not an object": lambda ws: old_format_file(ws, [], {}).write_text("[1, 2]"),
    "old format, newer version": lambda ws: old_format_file(ws, [], {}, version=99),
    "old format, messages of the wrong shape": lambda ws: old_format_file(ws, {"a": 1}, {}),
    "old format, unknown todo status": lambda ws: old_format_file(
        ws, [], {"todos": [{"content": "x", "status": "blocked"}]}
    ),
    "log, newer version": lambda ws: log_file(ws, [START, {**HELLO, "v": 2}]),
    "log, a message of the wrong shape": lambda ws: log_file(
        ws, [START, {"v": 1, "type": "message", "message": "hello"}]
    ),
    "log, a line that is not a record": lambda ws: log_file(ws, [START, [1, 2], HELLO]),
    "log, unknown todo status": lambda ws: log_file(
        ws,
        [START, HELLO, {"v": 1, "type": "extra", "extra": {"todos": [{"content": "x"}]}}],
    ),
}


@pytest.mark.parametrize("make_file", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_file_planloop_did_not_write_is_one_line_exit_1_and_left_unchanged(
    env, workspace, make_file
):
    make_file(workspace)
    [path] = [p for p in sessions_dir(workspace).iterdir() if p.suffix in (".json", ".jsonl")]
    before = path.read_bytes()
    result = run_cli("-p", "go on", "--resume", cwd=workspace, env=env)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert str(path) in result.stderr and "unchanged" in result.stderr
    assert path.read_bytes() == before


def test_resume_outside_the_sessions_folder_is_refused(env, workspace, tmp_path):
    outside = tmp_path / "some.json"
    outside.write_text('{"messages": []}')
    result = run_cli("-p", "x", "--resume", "../../../" + str(outside), cwd=workspace, env=env)
    assert result.returncode == 1 and "session ids look like" in result.stderr
    assert outside.read_text() == '{"messages": []}'


@pytest.mark.parametrize("planted", ["link", "second name"])
def test_a_log_that_is_a_link_or_a_second_name_is_neither_read_nor_written(
    api, env, workspace, tmp_path, planted
):
    # Planted at a log's name by another process: a one-line file of yours (no line feed, so
    # it read as one torn record) was emptied, and the conversation written into it.
    api.add({"content": [text("hi")]})
    assert run_cli("-p", "hello", cwd=workspace, env=env).returncode == 0
    [log] = sessions_dir(workspace).glob("*.jsonl")
    yours = tmp_path / "config.json"
    yours.write_text('{"auths": {"registry": {"auth": "c2VjcmV0"}}}')
    log.unlink()
    log.symlink_to(yours) if planted == "link" else os.link(yours, log)
    for resume in (["--resume", log.stem], ["--resume"]):
        api.add({"content": [text("More.")]})
        result = run_cli("-p", "go on", *resume, cwd=workspace, env=env)
        assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
        assert "not a session file of planloop's" in result.stderr
    viewed = run_cli("--view", log.stem, cwd=workspace, env=env)  # its page would show it
    assert viewed.returncode == 1 and "not a session file of planloop's" in viewed.stderr
    assert not log.with_suffix(".html").exists()
    assert yours.read_text() == '{"auths": {"registry": {"auth": "c2VjcmV0"}}}'


def test_resume_of_an_unknown_id_lists_the_recent_ones(api, env, workspace):
    api.add({"content": [text("hi")]})
    assert run_cli("-p", "hello", cwd=workspace, env=env).returncode == 0
    [saved] = sessions_dir(workspace).glob("*.jsonl")
    result = run_cli("-p", "x", "--resume", "20200101-000000-0000", cwd=workspace, env=env)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert f"Recent sessions: {saved.stem}" in result.stderr


def test_a_second_process_on_a_locked_session_is_refused(api, make_agent, env, workspace):
    _, session = saved_agent(api, make_agent, workspace)
    holder = Session(workspace, session.id)
    holder.lock()  # this test process is the writer now
    before = session.path.read_bytes()
    result = run_cli("-p", "go on", "--resume", session.id, cwd=workspace, env=env)
    holder.close()
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert f"in use by another planloop process (pid {os.getpid()})" in result.stderr
    assert session.path.read_bytes() == before


def test_the_key_and_token_never_reach_the_sessions_folder(env, workspace, isolated_home):
    key, token = "sk-ant-api03-SECRETKEY-0123456789", "token-SECRET-9876543210"
    with FakeMessagesAPI(api_key=key) as api:
        (workspace / "config.txt").write_text(f"key={key}\ntoken={token}\n")
        api.add({"content": [tool_use("read_file", {"path": "config.txt"})]})
        api.add({"content": [text("The key is " + key)]})
        env.update(
            ANTHROPIC_API_KEY=key, ANTHROPIC_AUTH_TOKEN=token, ANTHROPIC_BASE_URL=api.base_url
        )
        result = run_cli("-p", f"is {key} right?", cwd=workspace, env=env)
        assert result.returncode == 0, result.stderr
        # The conversation held the key (the prompt, the reply); what was sent did not.
        assert "The key is " + key in result.stdout
        assert key not in json.dumps(api.accepted) and "is [redacted] right?" in json.dumps(
            api.accepted[0]
        )
    files = [p for p in (isolated_home / "sessions").rglob("*") if p.is_file()]
    assert any(p.suffix == ".jsonl" for p in files)
    for path in files:
        data = path.read_bytes()
        assert key.encode() not in data and token.encode() not in data, path
    [log] = [p for p in files if p.suffix == ".jsonl"]
    assert "[redacted]" in log.read_text()


@pytest.mark.real_exec
def test_clear_starts_a_fresh_session_and_sessions_lists_both(api, env, workspace):
    plan = {"todos": [{"content": "Say hi", "status": "completed"}]}
    api.add({"content": [tool_use("todo_write", plan)]})
    api.add({"content": [text("One.")]})
    api.add({"content": [text("Two.")]})
    terminal = Terminal(workspace, env)
    terminal.wait_for_prompt()
    terminal.type("first task\r")
    terminal.wait_for("One.")
    terminal.wait_for_prompt()
    terminal.type("/clear\r")
    terminal.wait_for("stays on disk")
    terminal.wait_for_prompt()
    terminal.type("second task\r")
    terminal.wait_for("Two.")
    terminal.wait_for_prompt()
    terminal.type("/sessions\r")
    listing = terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    [second] = api.accepted[2]["messages"]  # the fresh session starts from nothing
    assert second["content"][0]["text"] == "second task"
    ids = {p.stem for p in sessions_dir(workspace).glob("*.jsonl")}
    lines = [line for line in listing.splitlines() if line[2:].split(" ")[0] in ids]
    assert len(lines) == 2 and len(ids) == 2
    [old] = [line for line in lines if "first task" in line]
    assert "4 messages" in old and "todos 1/1" in old and not old.startswith("*")
    [new] = [line for line in lines if "second task" in line]
    assert new.startswith("*") and "2 messages" in new


def test_a_history_changed_behind_the_log_is_written_whole_once(api, make_agent, workspace):
    saved, session = saved_agent(api, make_agent, workspace)
    resumed = Session(workspace, session.id)
    agent = fresh_agent(make_agent)
    resumed.load_into(agent)
    agent.messages[-1] = {"role": "user", "content": [{"type": "text", "text": "replaced"}]}
    resumed.save(agent)
    resumed.close()
    assert read_session(resumed.path)[0] == agent.messages


def test_an_interrupted_run_leaves_a_note_in_the_log(api, env, workspace):
    api.add({"content": [tool_use("bash", {"command": "touch made"})]})
    api.add({"content": [text("ok")]})
    result = run_cli("-p", "make it", "--max-turns", "1", cwd=workspace, env=env)
    assert result.returncode == 3
    [log] = sessions_dir(workspace).glob("*.jsonl")
    notes = [r for r in map(json.loads, log.read_text().splitlines()) if r["type"] == "note"]
    assert len(notes) == 1 and "Stopped after 1 model call" in notes[0]["text"]
