"""A sandbox hides a key file, or holds a file read-only, by binding over that one file. When the
file is replaced on the host while a command runs (an editor's safe write, `sed -i`, `dotenv
set`, git checkout: a new file renamed over the old one), Linux takes the bind away in that
command's sandbox, so it reads the key (or writes the held file). A key file made while a
command runs is in no bind at all. planloop cannot stop the kernel from doing that, so it
finds it: the command's output is kept from the model, a task is stopped, the person is told,
and a headless run stops there, before the model reads any file the command wrote meanwhile.

Each test drives `python agent.py -p` against the fake API, as root and as an unprivileged
user; the person's edits are made by the test when the command has reached a given state.
"""

from __future__ import annotations

import asyncio
import base64
import fcntl
import os
import threading
import time
from pathlib import Path

import pytest
from conftest import API_KEY, terminal_env
from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results, user_folders
from test_interactive import Terminal

from fakeapi import text, tool_use
from middleware.base import AgentContext, ShouldStopAfterTurnContext
from middleware.exposure import ExposureGuard

__all__ = ["user_folders"]  # a fixture, used by name below

EXIT_STOPPED = 3
KEY_LINE = f"ANTHROPIC_API_KEY={API_KEY}\n"
# A task holds a lock on `lock` while it runs; the name appears once it is held.
HOLD_LOCK = "exec 9>lock.new; flock 9; mv lock.new lock; "


def wait_for(path: Path, seconds: float = 60) -> None:
    """Until `path` exists (a command reached a state), failing after `seconds`."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def save_by_rename(path: Path, content: str, user: str) -> None:
    """What an editor's safe write, `sed -i` or `dotenv set` does: a new file renamed over."""
    new = path.with_name(path.name + ".saving")
    new.write_text(content)
    if user == "nobody":
        os.chown(new, NOBODY, NOBODY)
    os.rename(new, path)


def write_owned(path: Path, content: str, user: str) -> None:
    """`content` in a file of `user`'s from its first byte: the owner is set on the open file
    before the write, since a racing command may rename the path the moment it is written."""
    with open(path, "w") as file:
        if user == "nobody":
            os.fchown(file.fileno(), NOBODY, NOBODY)
        file.write(content)


def done_or_stopped(flag: Path, lock: Path, seconds: float = 60) -> None:
    """Until a task made `flag` or was stopped (it let go of `lock`): planloop watches the
    folders of what a task's sandbox binds, and often stops it before it gets that far."""
    wait_for(lock, seconds)  # named so only once the task holds it
    deadline = time.monotonic() + seconds
    with open(lock) as file:
        while not flag.exists():
            assert time.monotonic() < deadline, f"{flag.name} never appeared"
            try:
                fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                time.sleep(0.02)


def person_after(flag: Path, action) -> threading.Thread:
    """The person, in another terminal: does `action` once a command made `flag`."""

    def wait_then_act() -> None:
        wait_for(flag)
        action()

    thread = threading.Thread(target=wait_then_act, daemon=True)
    thread.start()
    return thread


def encoded(content: str) -> str:
    return base64.b64encode(content.encode()).decode()


def assert_never_sent(api, *secrets: str) -> None:
    for request in api.accepted:
        for secret in secrets:
            assert secret not in str(request)


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_that_reads_a_key_file_replaced_on_the_host_stops_the_run(api, env, user_folders):
    # The .env holds the key and is hidden; the person changes another line of it with a tool
    # that saves by rename. The task copies the now readable .env, encoded, into the
    # workspace; the model then asks to read that copy.
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".env", f"DEBUG=1\n{KEY_LINE}", user)
    watcher = (
        HOLD_LOCK + "wc -c < .env > before; touch started; "
        "while [ ! -s .env ]; do sleep 0.05; done; "
        "base64 -w0 .env > copy.txt; touch copied; sleep 600"
    )

    def you_save_your_env(_body: dict) -> dict:
        wait_for(workspace / "started")  # the task saw it empty
        save_by_rename(workspace / ".env", f"DEBUG=0\n{KEY_LINE}", user)
        done_or_stopped(workspace / "copied", workspace / "lock")  # it read the key, or not
        return {"content": [tool_use("read_file", {"path": "copy.txt"})]}

    api.add({"content": [tool_use("bash", {"command": watcher, "run_in_background": True})]})
    api.add(you_save_your_env)
    api.add({"content": [text("Done.")]})  # never asked for: the run stops first
    env = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}  # the key only in .env
    env["PLANLOOP_HOME"] = str(planloop_home)
    result = run_as(user, api, env, workspace, home)
    assert (workspace / "before").read_text().strip() == "0"  # hidden when it started
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert_never_sent(api, encoded(f"DEBUG=0\n{KEY_LINE}")[:24], API_KEY)
    (started,) = tool_results(api)  # read_file did not run, and nothing more was sent
    assert "started background task bg-1" in started.lower()
    flat = " ".join(result.stderr.split())
    assert "bg-1 was stopped and its output kept from the model" in flat, result.stderr
    assert ".env was replaced on the host" in flat
    assert "planloop stopped the run" in flat and "Session saved" in flat


def lock_released(path: Path, seconds: float = 60) -> bool:
    """Whether the lock a command holds on `path` is let go (it ended) within `seconds`."""
    wait_for(path, seconds)  # named so only once the task holds it
    deadline = time.monotonic() + seconds
    with open(path) as file:
        while time.monotonic() < deadline:
            try:
                fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                time.sleep(0.02)
    return False


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_is_stopped_when_its_key_file_is_replaced_not_at_the_next_tool_call(
    api, env, user_folders
):
    # While the model thinks (or the person is away), nothing calls a tool: the task, which
    # could now read the key, is stopped when the file is replaced, not hours later.
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".env", f"DEBUG=1\n{KEY_LINE}", user)
    task = (
        HOLD_LOCK + "touch started; while [ ! -s .env ]; do sleep 0.05; done; touch saw; sleep 600"
    )
    stopped_before_next_call: list[bool] = []

    def you_save_your_env(_body: dict) -> dict:
        wait_for(workspace / "started")
        save_by_rename(workspace / ".env", f"DEBUG=0\n{KEY_LINE}", user)
        stopped_before_next_call.append(lock_released(workspace / "lock"))
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(you_save_your_env)
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert stopped_before_next_call == [True]
    assert result.returncode == EXIT_STOPPED, result.stderr
    flat = " ".join(result.stderr.split())
    assert "bg-1 was stopped and its output kept from the model" in flat, result.stderr


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_command_running_while_a_key_file_is_replaced_has_its_output_withheld(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".env", f"DEBUG=1\n{KEY_LINE}", user)
    reader = "touch started; while [ ! -s .env ]; do sleep 0.05; done; base64 -w0 .env; rev .env"
    person_after(
        workspace / "started",
        lambda: save_by_rename(workspace / ".env", f"DEBUG=0\n{KEY_LINE}", user),
    )
    api.add({"content": [tool_use("bash", {"command": reader})]})
    api.add({"content": [tool_use("bash", {"command": "echo next"})]})  # never asked for
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert_never_sent(api, encoded(f"DEBUG=0\n{KEY_LINE}")[:24], API_KEY[::-1], API_KEY)
    assert len(api.accepted) == 1  # the run stopped with the command's result
    flat = " ".join(result.stderr.split())
    assert "a command's output was kept from the model" in flat, result.stderr
    assert "planloop stopped the run" in flat


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_hidden_history_rewritten_without_the_key_is_told_and_the_run_goes_on(
    api, env, user_folders
):
    # You close a terminal while a command runs: bash saves ~/.bash_history by rename. The
    # command could read the new history, which does not hold planloop's key: you are told,
    # and the run is not stopped for it.
    user, workspace, planloop_home, home = user_folders
    write_owned(home / ".bash_history", "ls\n", user)
    reader = "touch started; until [ -e saved ]; do sleep 0.05; done; echo read it"

    def you_close_a_terminal() -> None:
        save_by_rename(home / ".bash_history", "ls\ngit status\n", user)
        (workspace / "saved").touch()

    person_after(workspace / "started", you_close_a_terminal)
    api.add({"content": [tool_use("bash", {"command": reader})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    assert len(api.accepted) == 2  # the model heard the command's result and answered
    flat = " ".join(result.stderr.split())
    assert ".bash_history was replaced on the host while" in flat, result.stderr
    assert "planloop stopped the run" not in flat


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_key_file_made_while_a_command_runs_withholds_its_output(api, env, user_folders):
    # The README's own example: you put your key in a new .env.local while a test suite runs.
    user, workspace, planloop_home, home = user_folders
    reader = "touch started; until [ -s .env.local ]; do sleep 0.05; done; base64 -w0 .env.local"
    person_after(
        workspace / "started", lambda: write_owned(workspace / ".env.local", KEY_LINE, user)
    )
    api.add({"content": [tool_use("bash", {"command": reader})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert_never_sent(api, encoded(KEY_LINE)[:24], API_KEY)
    flat = " ".join(result.stderr.split())
    assert ".env.local came to hold the API key or a secret after it started" in flat, result.stderr


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_what_a_task_copied_from_a_new_key_file_is_not_read_next(api, env, user_folders):
    # The task's own output would be withheld; here it writes the key, encoded, to a file, and
    # the model asks read_file for that file before it ever looks at the task.
    user, workspace, planloop_home, home = user_folders
    copier = (
        HOLD_LOCK + "touch started; until [ -s .env.local ]; do sleep 0.05; done; "
        "base64 -w0 .env.local > notes.txt; touch copied; sleep 600"
    )

    def you_add_your_key(_body: dict) -> dict:
        wait_for(workspace / "started")
        write_owned(workspace / ".env.local", KEY_LINE, user)
        done_or_stopped(workspace / "copied", workspace / "lock")
        return {"content": [tool_use("read_file", {"path": "notes.txt"})]}

    api.add({"content": [tool_use("bash", {"command": copier, "run_in_background": True})]})
    api.add(you_add_your_key)
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert_never_sent(api, encoded(KEY_LINE)[:24], API_KEY)
    flat = " ".join(result.stderr.split())
    assert "bg-1 was stopped" in flat and "planloop stopped the run" in flat, result.stderr


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_held_file_replaced_on_the_host_stops_the_task_and_is_reported(api, env, user_folders):
    # mise.toml is held read-only; the person saves it by rename (or git checkout recreates it)
    # while a task keeps trying to append to it.
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / "mise.toml", "[tools]\nnode = '20'\n", user)
    writer = (
        HOLD_LOCK + "touch started; "
        "until echo '# task was here' >> mise.toml 2>/dev/null; "
        "do sleep 0.05; done; touch wrote; sleep 600"
    )

    def you_save_mise_toml(_body: dict) -> dict:
        wait_for(workspace / "started")
        save_by_rename(workspace / "mise.toml", "[tools]\nnode = '22'\n", user)
        done_or_stopped(workspace / "wrote", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add({"content": [tool_use("bash", {"command": writer, "run_in_background": True})]})
    api.add(you_save_mise_toml)
    api.add({"content": [tool_use("bash", {"command": "echo again >> mise.toml"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    _, output, again = tool_results(api)
    assert "mise.toml was replaced on the host while bg-1 ran" in output, output
    assert "bg-1: killed by planloop" in output
    assert "Read-only file system" in again  # the new one is held from the next command
    assert "again" not in (workspace / "mise.toml").read_text()
    flat = " ".join(result.stderr.split())
    assert "mise.toml was replaced on the host while bg-1 ran" in flat, result.stderr
    assert "check it before use" in flat


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_held_file_replaced_while_a_command_runs_is_reported(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".tool-versions", "nodejs 20.1.0\n", user)
    writer = (
        "touch started; until echo '# here' >> .tool-versions 2>/dev/null; do sleep 0.05; "
        "done; echo wrote"
    )
    person_after(
        workspace / "started",
        lambda: save_by_rename(workspace / ".tool-versions", "nodejs 22.1.0\n", user),
    )
    api.add({"content": [tool_use("bash", {"command": writer})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "wrote" in output
    assert ".tool-versions was replaced on the host while the command ran" in output, output
    flat = " ".join(result.stderr.split())
    assert ".tool-versions (replaced on the host while the command ran" in flat, result.stderr


class FakeSandbox:
    exposures: list[str]

    def __init__(self) -> None:
        self.exposures = ["a command could read the key"]


def test_interactive_the_person_is_asked_before_anything_else_runs():
    # With a person at the terminal, the run does not stop on its own: the person decides.
    asked: list[str] = []

    def answer(reply: str):
        def ask(question: str):
            asked.append(question)
            return reply, None

        return ask

    for reply, stops in (("yes", False), ("no", True)):
        sandbox = FakeSandbox()
        guard = ExposureGuard(sandbox, None, answer(reply))
        context = AgentContext([], "", {}, Path("."), run_id="r1")
        stopped = asyncio.run(guard.stops(context))
        assert stopped is stops and sandbox.exposures == []
        assert "could read the API key" in asked[-1]
        after = ShouldStopAfterTurnContext(context, {}, [])
        assert asyncio.run(guard.should_stop_after_turn(after)) is stops
        assert (context.stop_reason is not None) is stops


@needs_bwrap
@pytest.mark.parametrize("reply", ["n", "y"])
def test_interactive_the_person_decides_whether_the_run_goes_on(
    api, workspace, isolated_home, reply
):
    # At the terminal the run does not go on as if nothing happened: the person is asked first.
    reader = "touch started; until [ -s .env.local ]; do sleep 0.05; done; base64 -w0 .env.local"
    person_after(workspace / "started", lambda: write_owned(workspace / ".env.local", KEY_LINE, ""))
    api.add({"content": [tool_use("bash", {"command": reader})]})
    api.add({"content": [text("Going on.")]})
    with Terminal(workspace, terminal_env(api, isolated_home)) as terminal:
        terminal.wait_for_prompt()
        terminal.type("run the tests\r")
        terminal.wait_for("Let the model go on?")
        terminal.wait_for("[y]es / [n]o")
        terminal.type(f"{reply}\r")
        if reply == "n":
            # A "no" ends the run: no reason box, since the model is told nothing more.
            terminal.wait_for("planloop stopped the run")
            assert "Reason for the model" not in terminal.screen
        else:
            terminal.wait_for("Going on.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert len(api.accepted) == (1 if reply == "n" else 2)
    assert_never_sent(api, encoded(KEY_LINE)[:24], API_KEY)
