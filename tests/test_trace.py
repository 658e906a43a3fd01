"""`--trace`: every request as the API received it, every reply with its usage, no secrets."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import API_KEY, run_cli

from fakeapi import text, tool_use
from wiretrace import REDACTED

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
AUTH_TOKEN = "token-that-must-stay-secret-42"


def trace_records(home: Path) -> tuple[Path, list[dict]]:
    [trace] = (home / "sessions").glob("*/*.trace.jsonl")
    return trace, [json.loads(line) for line in trace.read_text().splitlines()]


def test_trace_holds_each_request_exactly_as_the_api_received_it(
    api, env, workspace, isolated_home
):
    (workspace / "notes.txt").write_text("remember the milk\n")
    done = {"todos": [{"content": "Read the note", "status": "completed"}]}
    api.add({"content": [tool_use("todo_write", done)]})
    api.add({"content": [tool_use("read_file", {"path": "notes.txt"})]})
    api.add({"content": [text("The note says: remember the milk.")]})
    result = run_cli("-p", "what does notes.txt say?", "--trace", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr

    trace, records = trace_records(isolated_home)
    requests = [r["body"] for r in records if r["type"] == "request"]
    replies = [r["reply"] for r in records if r["type"] == "reply"]
    assert requests == api.accepted  # system, tools, messages and cache marks, byte for byte
    assert requests[0]["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert [r["type"] for r in records] == ["request", "reply"] * 3
    assert replies[-1]["content"] == [{"type": "text", "text": "The note says: remember the milk."}]
    assert all(reply["usage"]["input_tokens"] > 0 for reply in replies)
    # Beside the session log, named after the same id.
    session_id = trace.name.removesuffix(".trace.jsonl")
    assert any(p.name.startswith(session_id + ".json") for p in trace.parent.iterdir())


def test_trace_never_holds_the_key_or_the_auth_token(api, env, workspace, isolated_home):
    env["ANTHROPIC_AUTH_TOKEN"] = AUTH_TOKEN
    # A person pastes both into the prompt; the model repeats the key in its answer.
    api.add({"content": [text(f"Your key is {API_KEY}. Please rotate it.")]})
    prompt = f"is my key {API_KEY} or {AUTH_TOKEN} valid?"
    result = run_cli("-p", prompt, "--trace", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr

    trace, records = trace_records(isolated_home)
    written = trace.read_text()
    assert API_KEY not in written
    assert AUTH_TOKEN not in written
    request, reply = records[0]["body"], records[1]["reply"]
    assert (
        request["messages"][0]["content"][0]["text"] == f"is my key {REDACTED} or {REDACTED} valid?"
    )
    assert reply["content"][0]["text"] == f"Your key is {REDACTED}. Please rotate it."


def test_without_the_flag_no_trace_is_written(api, env, workspace, isolated_home):
    api.add({"content": [text("Hi.")]})
    result = run_cli("-p", "hello", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert list((isolated_home / "sessions").glob("*/*.trace.jsonl")) == []
