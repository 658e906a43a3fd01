"""Kill -9 at the worst moments of a scripted run, then --resume: nothing finished is lost.

Each test kills `python agent.py` with SIGKILL at one point (waiting for a marker file, a
held model reply or text on the screen, never for a fixed time), resumes the session through
the real CLI, and checks the next request: the strict fake accepts it (the `api` fixture
fails the test otherwise) and it holds every message and result that had finished.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import spawn
from conftest import results_by_id, wait_for_file
from test_interactive import Terminal

from fakeapi import text, tool_use
from session import STOPPED_MID_CALL

# Signals, terminals, background tasks and crashes: CI runs these again as real execs.
pytestmark = pytest.mark.real_exec

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
# A command that says it started, then waits until the test lets it end (so no process
# outlives the test once the agent is killed).
HOLD = "touch started; while [ ! -e release ]; do sleep 0.05; done"


@pytest.fixture
def env(env) -> dict:
    """The end-to-end environment (conftest), on a plain terminal of a known width."""
    return {**env, "TERM": "dumb", "NO_COLOR": "1", "COLUMNS": "150"}


def start_headless(workspace: Path, env: dict, prompt: str) -> spawn.Process:
    return spawn.Popen(
        [sys.executable, str(AGENT), "-p", prompt, "--yes"],
        cwd=workspace,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def kill(proc: spawn.Process) -> None:
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=20) == -signal.SIGKILL


def resume(api, workspace: Path, env: dict) -> dict:
    """Continue the latest session headless; return the first request it sent."""
    api.add({"content": [text("Picking up again.")]})
    sent_before = len(api.accepted)
    result = spawn.run(
        [sys.executable, str(AGENT), "-p", "go on", "--resume"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Picking up again.\n"
    return api.accepted[sent_before]


def prompts_of(message: dict) -> list[str]:
    return [b["text"] for b in message["content"] if b["type"] == "text"]


def test_killed_during_the_model_call_keeps_the_input(api, env, workspace):
    release = threading.Event()

    def held_reply(body):
        release.wait(30)  # the agent is killed while it waits for this reply
        return {"content": [text("never delivered")]}

    api.add(held_reply)
    proc = start_headless(workspace, env, "start the work")
    deadline = time.monotonic() + 20
    while not api.requests:
        assert time.monotonic() < deadline, "the model was never called"
        time.sleep(0.02)
    kill(proc)
    release.set()
    [message] = resume(api, workspace, env)["messages"]
    assert prompts_of(message) == ["start the work", "go on"]


@pytest.mark.parametrize("held_call", [0, 1], ids=["first tool", "second tool of a batch"])
def test_killed_during_a_tool_keeps_the_reply_and_finished_results(api, env, workspace, held_call):
    calls = [tool_use("bash", {"command": "echo finished-one"}) for _ in range(2)]
    calls[held_call] = tool_use("bash", {"command": HOLD})
    reply = [text("Running both."), *calls]
    api.add({"content": reply})
    proc = start_headless(workspace, env, "run both")
    wait_for_file(workspace / "started")
    kill(proc)
    (workspace / "release").touch()
    request = resume(api, workspace, env)
    user, assistant, results = request["messages"]
    assert prompts_of(user) == ["run both"]
    assert [b.get("id") for b in assistant["content"]] == [None, calls[0]["id"], calls[1]["id"]]
    answered = results_by_id(request)
    held = answered[calls[held_call]["id"]]
    assert held["is_error"] is True and held["content"] == STOPPED_MID_CALL
    if held_call == 1:  # the first call had finished: its real output survived the kill
        assert "finished-one" in answered[calls[0]["id"]]["content"]
    assert prompts_of(results) == ["go on"]


def test_killed_at_the_approval_question_keeps_the_reply(api, env, workspace):
    call = tool_use("bash", {"command": "touch never"})
    api.add({"content": [text("I need to run something."), call]})
    terminal = Terminal(workspace, env, "--no-sandbox")  # so that bash asks first
    try:
        terminal.wait_for_prompt()
        terminal.type("make a file\r")
        terminal.wait_for("[y]es / [n]o")
        kill(terminal.proc)
    finally:
        terminal.close()
    request = resume(api, workspace, env)
    user, assistant, results = request["messages"]
    assert prompts_of(user) == ["make a file"]
    assert [b.get("id") for b in assistant["content"]] == [None, call["id"]]
    result = results_by_id(request)[call["id"]]
    assert result["is_error"] is True and result["content"] == STOPPED_MID_CALL
    assert not (workspace / "never").exists()
