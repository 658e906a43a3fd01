"""Background work wired end to end: bash's run_in_background, the approval and the sandbox it
shares with bash, results handed over as input, the headless wait, /tasks, and the exit.

Loop-level tests run one event loop per scenario; end-to-end tests run `python agent.py`
against the fake API. Every wait is for a state (a marker file, a line), never a fixed time.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import results_by_id, run

from fakeapi import text, tool_use
from middleware import PermissionPolicy
from tools import default_tools
from tools.sandbox import Bubblewrap, NoSandbox
from tools.tasks import TaskManager

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@pytest.fixture
def manager(tmp_path: Path) -> TaskManager:
    return TaskManager(tmp_path / "session.tasks", NoSandbox())


def background(command: str, **more) -> dict:
    return tool_use("bash", {"command": command, "run_in_background": True, **more})


# ---- the tool ------------------------------------------------------------------------------


def test_bash_offers_run_in_background_only_with_a_task_manager(manager):
    plain, *_ = default_tools()
    [bash, *_, task_output, task_stop] = default_tools(None, manager)
    assert "run_in_background" not in plain.input_schema["properties"]
    assert bash.input_schema["properties"]["run_in_background"]["type"] == "boolean"
    assert bash.input_schema["properties"]["timeout"]["maximum"] == 24 * 60 * 60
    assert (task_output.name, task_stop.name) == ("task_output", "task_stop")


def test_a_background_command_returns_at_once_with_its_id_and_how_to_go_on(
    api, make_agent, manager, workspace
):
    start = background("touch started; while [ ! -e go ]; do sleep 0.02; done; echo ended")
    api.add({"content": [start]})
    api.add({"content": [text("It runs.")]})
    agent = make_agent(tools=default_tools(None, manager))

    async def scenario():
        await agent.run("start it")
        task = manager.tasks["bg-1"]
        running = task.status
        (workspace / "go").touch()
        await task.done.wait()
        return running, await manager.read_output(task)

    running, output = run(scenario())
    started = results_by_id(api.accepted[1])[start["id"]]["content"]
    assert running == "running"  # the turn ended while the command still ran
    assert started.startswith("Started background task bg-1;")
    assert "task_output" in started and "task_stop" in started
    assert "exited with code 0" in output and "ended" in output


def test_a_foreground_timeout_over_ten_minutes_is_refused_but_fine_in_the_background(
    api, make_agent, manager, workspace
):
    too_long = tool_use("bash", {"command": "true", "timeout": 3600})
    long_background = background("true", timeout=3600)
    api.add({"content": [too_long, long_background]})
    api.add({"content": [text("ok")]})
    agent = make_agent(tools=default_tools(None, manager))

    async def scenario():
        await agent.run("go")
        await manager.shutdown()

    run(scenario())
    results = results_by_id(api.accepted[1])
    assert results[too_long["id"]]["is_error"] is True
    assert "600" in results[too_long["id"]]["content"]
    assert results[long_background["id"]].get("is_error") is not True


@pytest.mark.parametrize("answer", ["yes", "no"])
def test_a_background_command_asks_for_approval_exactly_like_bash(
    api, make_agent, manager, workspace, answer
):
    start = background("touch ran")
    api.add({"content": [start]})
    api.add({"content": [text("ok")]})
    questions = []
    policy = PermissionPolicy(
        ask=lambda question: questions.append(question) or (answer, ""), sandboxed=False
    )
    agent = make_agent(tools=default_tools(None, manager), middleware=[policy])

    async def scenario():
        await agent.run("go")
        for task in manager.tasks.values():
            await task.done.wait()

    run(scenario())
    assert questions == ["Run this command?\ntouch ran"]
    assert (workspace / "ran").exists() == (answer == "yes")
    assert ("bg-1" in manager.tasks) == (answer == "yes")


@needs_bwrap
def test_a_sandboxed_background_task_cannot_leave_a_new_env_file(api, make_agent, workspace):
    manager = TaskManager(workspace.parent / "session.tasks", Bubblewrap())
    start = background("echo ANTHROPIC_BASE_URL=http://x.test > .env.local; echo wrote")
    api.add({"content": [start]})
    api.add({"content": [text("ok")]})
    agent = make_agent(tools=default_tools(Bubblewrap(), manager))

    async def scenario():
        await agent.run("go")
        task = manager.tasks["bg-1"]
        await task.done.wait()
        return await manager.read_output(task)

    output = run(scenario())
    assert not (workspace / ".env.local").exists()
    assert ".env.local was removed" in output
