"""`--output-format json` and `stream-json` as a script reads them, through the real CLI."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import spawn
from conftest import results_by_id, run_cli, wait_for_file

from fakeapi import text, tool_use

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
PLAN = {"todos": [{"content": "Say hello", "status": "completed"}]}


def test_a_finished_run_is_end_turn_with_time_turns_and_no_error(api, env, workspace):
    api.add({"content": [tool_use("todo_write", PLAN)], "usage": {"output_tokens": 7}})
    api.add({"content": [text("Hello.")], "usage": {"output_tokens": 3}})
    result = run_cli("-p", "greet", "--output-format", "json", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["stop_reason"] == "end_turn" and summary["message"] == "done."
    assert summary["is_error"] is False and summary["exit_code"] == 0
    assert summary["num_turns"] == summary["turns"] == 2
    assert isinstance(summary["duration_ms"], int) and summary["duration_ms"] > 0
    assert summary["answer"] == "Hello." and summary["plan"] == PLAN["todos"]


def test_the_turn_limit_is_the_max_turns_code_and_an_error(api, env, workspace):
    api.add({"content": [tool_use("read_file", {"path": "."})]})
    result = run_cli(
        "-p", "look", "--max-turns", "1", "--output-format", "json", cwd=workspace, env=env
    )
    assert result.returncode == 3
    summary = json.loads(result.stdout)
    assert summary["stop_reason"] == "max_turns" and summary["is_error"] is True
    assert "turn limit" in summary["message"]


def test_an_api_error_after_the_start_still_prints_one_json_object(api, env, workspace):
    api.add({"content": [tool_use("bash", {"command": "echo step one"})]})
    api.add({"status": 401, "error": {"type": "authentication_error", "message": "invalid key"}})
    result = run_cli("-p", "do it", "--yes", "--output-format", "json", cwd=workspace, env=env)
    assert result.returncode == 1
    [line] = result.stdout.splitlines()
    summary = json.loads(line)
    assert summary["stop_reason"] == "error" and summary["is_error"] is True
    assert "The API rejected the key (invalid key)" in summary["message"]
    assert summary["session_id"] in result.stderr and summary["answer"] is None
    assert summary["num_turns"] == 2


@pytest.mark.parametrize("status", [401, 500])
def test_an_error_that_echoes_the_request_headers_never_prints_the_key(api, env, workspace, status):
    # Some proxies and gateways put the request's headers into their error reply.
    echoed = f"bad request headers: Authorization: Bearer {env['ANTHROPIC_API_KEY']}"
    kind = "authentication_error" if status == 401 else "api_error"
    for _ in range(3):  # a 500 is tried again
        api.add({"status": status, "error": {"type": kind, "message": echoed}})
    result = run_cli("-p", "hi", "--output-format", "json", cwd=workspace, env=env)
    assert result.returncode == 1
    assert "bad request headers: Authorization: Bearer [redacted]" in result.stdout
    for shown in (result.stdout, " ".join(result.stderr.split())):
        assert env["ANTHROPIC_API_KEY"] not in shown.replace("\n", "")


def test_a_missing_key_prints_one_json_object_too(env, workspace):
    del env["ANTHROPIC_API_KEY"]
    result = run_cli("-p", "hi", "--output-format", "json", cwd=workspace, env=env)
    assert result.returncode == 1
    summary = json.loads(result.stdout)
    assert summary["stop_reason"] == "error" and summary["session_id"] is None
    assert summary["message"].startswith("No API key")


@pytest.mark.real_exec
def test_sigterm_is_the_terminated_code_and_the_model_hears_it_was_not_the_user(
    api, env, workspace
):
    api.add({"content": [tool_use("bash", {"command": "touch started && sleep 30"})]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "wait", "--yes", "--output-format", "json"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_file(workspace / "started")
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=20)
    assert proc.returncode == 143, stderr
    summary = json.loads(stdout)
    assert summary["stop_reason"] == "terminated" and summary["answer"] is None
    assert summary["message"] == "ended by SIGTERM."

    api.add({"content": [text("Picking up.")]})
    resumed = run_cli("-p", "go on", "--resume", cwd=workspace, env=env)
    assert resumed.returncode == 0, resumed.stderr
    first_request = api.accepted[1]
    [result] = [
        block
        for message in first_request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert result["content"].startswith("planloop was terminated by SIGTERM before this call")
    assert "Interrupted by the user" not in json.dumps(first_request)


def test_stream_json_is_one_line_per_event_and_ends_with_the_json_object(api, env, workspace):
    api.add({"content": [text("Planning."), tool_use("todo_write", PLAN)]})
    api.add({"content": [tool_use("write_file", {"path": "a.txt", "content": "hi"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", "--output-format", "stream-json", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [event["type"] for event in events] == [
        "system",
        "assistant",
        "tool_use",
        "plan",
        "tool_result",
        "tool_use",
        "tool_result",
        "assistant",
        "result",
    ]
    init = events[0]
    assert init["subtype"] == "init" and init["model"] == "test-model"
    assert init["session_id"] in result.stderr and "todo_write" in init["tools"]
    assert events[2]["name"] == "todo_write" and events[3]["todos"] == PLAN["todos"]
    write_call, write_result = events[5], events[6]
    assert write_call["input"] == {"path": "a.txt", "content": "hi"}
    assert write_result["tool_use_id"] == write_call["id"] and not write_result["is_error"]
    sent = results_by_id(api.accepted[2])[write_call["id"]]
    assert write_result["content"] == sent["content"]  # what the model read, word for word
    final = events[-1]
    assert final["stop_reason"] == "end_turn" and final["answer"] == "Done."
    assert final["session_id"] == init["session_id"]
