"""Small things a new user meets in the first hour, each through the real CLI or a terminal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli, terminal_env, wait_for_file
from test_interactive import Terminal

from fakeapi import text, tool_use
from session import read_session

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
REJECTED_KEY = {"status": 401, "error": {"type": "authentication_error", "message": "invalid key"}}


def saved_sessions(home: Path) -> list[Path]:
    return sorted((home / "sessions").glob("*/*.jsonl"))


def test_one_line_and_one_byte_are_singular(api, env, workspace):
    api.add({"content": [tool_use("write_file", {"path": "a.txt", "content": "hi"})]})
    api.add({"content": [tool_use("write_file", {"path": "b.txt", "content": "x"})]})
    api.add({"content": [tool_use("write_file", {"path": "c.txt", "content": "a\nb\n"})]})
    api.add({"content": [text("Written.")]})
    result = run_cli("-p", "write", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert "Wrote 2 bytes (1 line) to a.txt (new file)." in result.stderr
    assert "Wrote 1 byte (1 line) to b.txt (new file)." in result.stderr
    assert "Wrote 4 bytes (2 lines) to c.txt (new file)." in result.stderr


def test_the_missing_key_message_needs_no_file_the_folder_does_not_have(env, workspace):
    env = {k: v for k, v in env.items() if not k.startswith("ANTHROPIC_")}
    result = run_cli("-p", "hi", cwd=workspace, env=env)
    assert result.returncode == 1
    assert not (workspace / ".env.example").exists()
    assert ".env.example" not in result.stderr
    assert "export ANTHROPIC_API_KEY=" in result.stderr and "ANTHROPIC_API_KEY=... in a .env" in (
        result.stderr
    )


def test_a_start_that_fails_at_its_first_request_keeps_the_input_to_resume(
    api, env, workspace, isolated_home
):
    # Nothing is lost: the input that never got an answer is saved, and the error line says
    # how to go on from it once the key is fixed.
    api.add({"content": [text("An earlier session.")]})
    assert run_cli("-p", "first", cwd=workspace, env=env).returncode == 0
    [earlier] = saved_sessions(isolated_home)
    api.add(REJECTED_KEY)  # the first request of the new session fails
    failed = run_cli("-p", "second", cwd=workspace, env=env)
    assert failed.returncode == 1
    assert "The API rejected the key" in failed.stderr and "--resume" in failed.stderr
    [new] = [path for path in saved_sessions(isolated_home) if path != earlier]
    assert new.stem in failed.stderr
    assert read_session(new)[0] == [
        {"role": "user", "content": [{"type": "text", "text": "second"}]}
    ]
    api.add({"content": [text("Answered now.")]})
    resumed = run_cli("-p", "go on", "--resume", new.stem, cwd=workspace, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert "Answered now." in resumed.stdout


def test_a_failing_start_of_a_resumed_session_keeps_it(api, env, workspace, isolated_home):
    api.add({"content": [text("Hello.")]})
    assert run_cli("-p", "first", cwd=workspace, env=env).returncode == 0
    [session] = saved_sessions(isolated_home)
    before = session.read_bytes()
    api.add(REJECTED_KEY)
    failed = run_cli("-p", "second", "--resume", cwd=workspace, env=env)
    assert failed.returncode == 1 and "--resume" in failed.stderr
    assert saved_sessions(isolated_home) == [session]
    assert session.read_bytes().startswith(before)


def test_the_demo_prints_its_first_lines_before_loading_the_sdk(tmp_path):
    # A real exec (the tests' warm parent has the SDK loaded already), watching two things in
    # the order they happen: the first line written, and the first import of the SDK.
    watch = (
        "import runpy, sys\n"
        "events = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'anthropic' and 'sdk' not in events: events.append('sdk')\n"
        "sys.meta_path.insert(0, Watch())\n"
        "class Out:\n"
        "    def __init__(self, real): self.real = real\n"
        "    def write(self, text):\n"
        "        if text.strip() and 'line' not in events: events.append('line')\n"
        "        return self.real.write(text)\n"
        "    def __getattr__(self, name): return getattr(self.real, name)\n"
        "sys.stdout = Out(sys.stdout)\n"
        f"sys.argv = [{str(AGENT)!r}, '--demo']\n"
        "import atexit\n"  # (planloop runs the atexit clean-up, then ends without the rest)
        "atexit.register(lambda: sys.stderr.write('EVENTS ' + ' '.join(events)))\n"
        f"runpy.run_path({str(AGENT)!r}, run_name='__main__')\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    env |= {"PLANLOOP_DEMO_FAST": "1", "PLANLOOP_HOME": str(tmp_path / "home")}
    env |= {"TMPDIR": str(tmp_path)}
    demo = subprocess.run(
        [sys.executable, "-c", watch],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert demo.stderr.endswith("EVENTS line sdk"), demo.stderr[-2000:]
    assert demo.returncode == 0
    assert demo.stdout.startswith("planloop demo:")


def test_sessions_count_cancelled_items_as_dropped_not_done(api, workspace, isolated_home):
    plan = {
        "todos": [
            {"content": "Fix the parser", "status": "in_progress"},
            {"content": "Port to Rust", "status": "pending"},
        ]
    }
    finished = {
        "todos": [
            {"content": "Fix the parser", "status": "completed"},
            {"content": "Port to Rust", "status": "cancelled", "reason": "not needed"},
        ]
    }
    api.add({"content": [tool_use("todo_write", plan)]})
    api.add({"content": [tool_use("todo_write", finished)]})
    api.add({"content": [text("Parser fixed.")]})
    env = terminal_env(api, isolated_home)
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("fix the parser\r")
        terminal.wait_for("Parser fixed.")
        terminal.wait_for_prompt()
        terminal.type("/sessions\r")
        line = terminal.wait_for("fix the parser")
        assert "todos 1/1" in line  # the cancelled item is no longer part of the work
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    [session] = saved_sessions(isolated_home)
    assert json.dumps("cancelled") in session.read_text()


@pytest.mark.real_exec
def test_sigterm_in_the_terminal_tells_the_model_it_was_terminated_not_interrupted(
    api, workspace, isolated_home
):
    running = tool_use("bash", {"command": "touch started; sleep 30"})
    api.add({"content": [running]})
    env = terminal_env(api, isolated_home)
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("run it\r")
        terminal.wait_for("[y]es / [n]o")
        terminal.type("y\r")
        wait_for_file(workspace / "started")
        terminal.proc.send_signal(signal.SIGTERM)
        terminal.wait_for("ended by SIGTERM")
        assert terminal.close() == 143
    [session] = saved_sessions(isolated_home)
    [result] = read_session(session)[0][-1]["content"]
    assert result["tool_use_id"] == running["id"] and result["is_error"] is True
    assert result["content"].startswith("planloop was terminated by SIGTERM before this call")


def test_an_endpoint_nobody_answers_at_is_one_line_and_the_input_is_kept(
    env, workspace, isolated_home
):
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens on the discard port
    failed = run_cli("-p", "hi", cwd=workspace, env=env)
    assert failed.returncode == 1
    assert "Cannot reach the API" in failed.stderr and "Traceback" not in failed.stderr
    [session] = saved_sessions(isolated_home)
    assert session.stem in failed.stderr
    assert read_session(session)[0] == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    ]
