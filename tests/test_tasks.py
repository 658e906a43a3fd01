"""Background tasks (tools/tasks.py): start, read, stop, limits, shutdown, and the wait validator.

Each test runs its scenario in one event loop, as the interactive front end does, and waits
for states (a marker file, a byte count, a waiting reader), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import tracemalloc
from pathlib import Path

import pytest
from conftest import results_by_id, run

from conversation import INTERRUPTED
from fakeapi import text, tool_use
from todo import TaskWaitBinding, TodoListMiddleware
from tools import ToolError, default_tools
from tools.process import HEAD_BYTES, TAIL_BYTES
from tools.sandbox import NoSandbox
from tools.tasks import (
    FILE_HEAD_BYTES,
    FILE_TAIL_BYTES,
    MAX_RUNNING,
    MAX_WAIT_SECONDS,
    TaskManager,
    still_running_note,
)

MAX_WAIT = MAX_WAIT_SECONDS


class StandInSandbox:
    """What NoSandbox does: bash -c with a copy of the environment minus ANTHROPIC_*."""

    def wrap(self, workspace: Path, command: str) -> tuple[list[str], dict[str, str]]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        return ["/bin/bash", "-c", command], env


@pytest.fixture
def manager(tmp_path: Path) -> TaskManager:
    return TaskManager(tmp_path / "session-tasks", StandInSandbox())


def is_running(pid: int) -> bool:
    """True if the process exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


async def until(condition, seconds: float = 20, what: str = "the state") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} never came"
        await asyncio.sleep(0.02)


def written(path: Path) -> bool:
    """True once a command has written its whole line to `path` (it may exist still empty)."""
    return path.exists() and path.read_text().endswith("\n")


async def gone(pid: int) -> bool:
    await until(lambda: not is_running(pid), what=f"the end of process {pid}")
    return True


# ---- starting and reading ------------------------------------------------------------------


def test_tasks_are_numbered_in_start_order_and_the_model_is_told_how_to_go_on(manager, workspace):
    async def scenario():
        first = await manager.start_in_background(workspace, "true")
        second = await manager.start(workspace, "true")
        await manager.shutdown()
        return first, second.id

    message, second_id = run(scenario())
    assert message.startswith("Started background task bg-1;")
    assert 'task_output {"task_id": "bg-1"}' in message and '"wait"' in message
    assert 'task_stop {"task_id": "bg-1"}' in message
    assert second_id == "bg-2"


def test_task_output_returns_only_what_is_new_since_the_last_read(manager, workspace):
    command = "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two; exit 3"

    async def scenario():
        task = await manager.start(workspace, command)
        await until(lambda: task.output.total > 0, what="the first line")
        first = await manager.task_output(workspace, "bg-1")
        (workspace / "go").touch()
        second = await manager.task_output(workspace, "bg-1", wait=60)
        third = await manager.task_output(workspace, "bg-1")
        return first, second, third

    first, second, third = run(scenario())
    assert first.startswith("[bg-1: running for ") and "\none\n" in first
    assert first.endswith("[still running: call task_output again for what comes next]")
    assert second.startswith("[bg-1: exited with code 3 after ")
    assert second.split("\n")[1:] == ["two"]  # not "one" again
    assert third.split("\n")[1:] == ["(no new output)"]


def test_a_finished_result_is_undelivered_until_the_model_reads_how_it_ended(manager, workspace):
    async def scenario():
        task = await manager.start(workspace, "echo hi")
        await task.done.wait()
        before = [t.id for t in manager.undelivered()]
        await manager.task_output(workspace, "bg-1")
        return before, [t.id for t in manager.undelivered()]

    assert run(scenario()) == (["bg-1"], [])


@pytest.mark.parametrize("sandbox", [StandInSandbox(), NoSandbox()], ids=["stand-in", "NoSandbox"])
def test_the_task_gets_the_sandbox_environment_without_the_api_key(
    tmp_path, workspace, monkeypatch, sandbox
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-do-not-leak")
    manager = TaskManager(tmp_path / "session-tasks", sandbox)

    async def scenario():
        await manager.start(workspace, "env; echo done")
        return await manager.task_output(workspace, "bg-1", wait=60)

    output = run(scenario())
    assert "done" in output and "sk-ant-do-not-leak" not in output


def test_a_task_that_runs_past_its_timeout_is_killed_and_says_so(manager, workspace):
    async def scenario():
        task = await manager.start(workspace, "sleep 300", timeout=1)
        return task, await manager.task_output(workspace, "bg-1", wait=60)

    task, output = run(scenario())
    assert output.startswith("[bg-1: timed out after 1 s and was killed]")
    assert run(gone(task.pid))


@pytest.mark.parametrize("timeout", [0, 24 * 60 * 60 + 1])
def test_a_timeout_outside_one_second_to_a_day_is_refused(manager, workspace, timeout):
    with pytest.raises(ToolError, match="1 to 86400 seconds"):
        run(manager.start(workspace, "true", timeout=timeout))


def test_an_unknown_task_id_is_an_error_that_lists_the_tasks(manager, workspace):
    async def scenario():
        await manager.start(workspace, "true")
        try:
            await manager.task_output(workspace, "bg-9")
        finally:
            await manager.shutdown()

    with pytest.raises(ToolError, match=r"no background task 'bg-9' in this session") as error:
        run(scenario())
    assert "(tasks: bg-1)" in str(error.value)


def test_a_gigabyte_of_output_stays_bounded_in_memory_and_on_disk(manager, workspace):
    total = 1_000_000_000

    async def scenario():
        task = await manager.start(workspace, f"yes | head -c {total}")
        output = await manager.task_output(workspace, "bg-1", wait=MAX_WAIT)
        return task, output

    # tracemalloc counts what this run allocates, whatever earlier tests left behind.
    tracemalloc.start()
    try:
        task, output = run(scenario())
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert task.output.total == total
    assert peak_bytes < 20 * 1024 * 1024  # far below the gigabyte produced
    assert task.output.path.stat().st_size < FILE_HEAD_BYTES + FILE_TAIL_BYTES + 100
    lines = output.split("\n")
    assert lines[0].startswith("[bg-1: exited with code 0 after ")
    assert lines[1:3] == ["y", "y"]
    kept = FILE_HEAD_BYTES + FILE_TAIL_BYTES
    assert f"[{kept - HEAD_BYTES - TAIL_BYTES} bytes cut from the middle of the output]" in output
    assert f"[{total - kept} bytes in the middle were not kept" in output
    assert len(output) < HEAD_BYTES + TAIL_BYTES + 1000
    # The file itself: the head as written, a note on the dropped middle, then the end.
    with open(task.output.path, "rb") as saved:
        assert saved.read(4) == b"y\ny\n"
        saved.seek(FILE_HEAD_BYTES)
        assert saved.readline() == b"\n"
        assert saved.readline() == f"... [{total - kept} bytes not kept] ...\n".encode()


# ---- stopping --------------------------------------------------------------------------------


def test_task_stop_kills_the_task_and_its_children_setsid_included(manager, workspace):
    command = (
        "(setsid sleep 300 & echo $! > escaped.pid); "
        "sleep 300 & echo $! > child.pid; echo $$ > task.pid; wait"
    )

    async def scenario():
        await manager.start(workspace, command)
        await until(lambda: written(workspace / "task.pid"), what="task.pid")
        return await manager.task_stop(workspace, "bg-1")

    output = run(scenario())
    assert output.startswith("[bg-1: killed with task_stop after ")
    assert run(gone(int((workspace / "task.pid").read_text())))
    assert run(gone(int((workspace / "child.pid").read_text())))
    assert run(gone(int((workspace / "escaped.pid").read_text())))


def test_shutdown_kills_what_still_runs_and_reports_it(manager, workspace):
    async def scenario():
        quick = await manager.start(workspace, "true")
        await quick.done.wait()
        await manager.start(workspace, "echo $$ > a.pid; sleep 300")
        await manager.start(workspace, "sleep 300 & echo $! > b.pid; wait")
        await until(lambda: written(workspace / "a.pid") and written(workspace / "b.pid"))
        return await manager.shutdown()

    stopped = run(scenario())
    assert [task.id for task in stopped] == ["bg-2", "bg-3"]
    assert all(task.describe().startswith("killed on exit") for task in stopped)
    assert still_running_note(stopped) == (
        "Background tasks still running were stopped: bg-2 (echo $$ > a.pid; sleep 300), "
        "bg-3 (sleep 300 & echo $! > b.pid; wait)."
    )
    assert still_running_note([]) is None
    for name in ("a.pid", "b.pid"):
        assert run(gone(int((workspace / name).read_text())))


def test_a_ninth_running_task_is_refused_until_one_ends(manager, workspace):
    async def scenario():
        for _ in range(MAX_RUNNING):
            await manager.start(workspace, "sleep 300")
        with pytest.raises(ToolError) as refused:
            await manager.start(workspace, "sleep 300")
        manager.stop("bg-3")
        ninth = await manager.start(workspace, "true")
        await manager.shutdown()
        return str(refused.value), ninth.id

    message, ninth_id = run(scenario())
    assert message.startswith("8 background tasks are already running (bg-1, bg-2, ")
    assert "task_stop" in message
    assert ninth_id == "bg-9"


def test_ctrl_c_cancels_the_wait_and_leaves_the_task_running(api, make_agent, manager, workspace):
    read = tool_use("task_output", {"task_id": "bg-1", "wait": MAX_WAIT})
    api.add({"content": [read]})
    agent = make_agent(tools=[*default_tools(), *manager.tools()])

    async def scenario():
        task = await manager.start(workspace, "echo $$ > task.pid; sleep 300")
        running = asyncio.ensure_future(agent.run("wait for the suite"))
        await until(lambda: task.waiters == 1, what="task_output waiting")
        agent.cancel()  # what Ctrl-C does
        await running
        still_running = task.status == "running" and is_running(task.pid)
        stopped = await manager.shutdown()
        return still_running, stopped

    still_running, stopped = run(scenario())
    assert still_running
    assert [task.id for task in stopped] == ["bg-1"]
    result = agent.messages[-1]["content"][0]
    assert result["tool_use_id"] == read["id"] and result["content"] == INTERRUPTED
    assert agent.context.stop_reason == "Interrupted by the user."


# ---- planloop's validator for the task wait ------------------------------------------------


def binding(task_ids: list[str], validation: dict) -> TaskWaitBinding:
    return TaskWaitBinding(task_ids, [], "toolu_1", "run", 1, validation)


def test_validator_outcomes(manager, workspace):
    async def scenario():
        outcomes = {}
        await manager.start(workspace, "SECRET=hunter2; sleep 300")  # bg-1
        done = await manager.start(workspace, "echo finished")  # bg-2
        await done.done.wait()
        outcomes["unknown"] = await manager.validate_task_wait(["bg-1", "bg-7"], None, None)
        first = await manager.validate_task_wait(["bg-1", "bg-2"], None, None)
        outcomes["running and unread"] = first
        outcomes["again"] = await manager.validate_task_wait(
            ["bg-1"], None, binding(["bg-1"], first.validation)
        )
        await manager.task_output(workspace, "bg-2")  # the model reads how it ended
        outcomes["read"] = await manager.validate_task_wait(["bg-2"], None, None)
        manager.stop("bg-1", by="user")
        outcomes["stopped after"] = await manager.validate_task_wait(
            ["bg-1"], None, binding(["bg-1"], first.validation)
        )
        outcomes["stopped before"] = await manager.validate_task_wait(["bg-1"], None, None)
        await manager.start(workspace, "sleep 300")  # bg-3
        manager.stop("bg-3", by="model")
        outcomes["stopped by the model"] = await manager.validate_task_wait(["bg-3"], None, None)
        other = TaskManager(manager.folder, StandInSandbox())
        outcomes["earlier process"] = await manager.validate_task_wait(
            ["bg-2"], None, binding(["bg-2"], {**first.validation, "manager": other.token})
        )
        await manager.shutdown()
        return outcomes

    outcomes = run(scenario())
    status = {name: (o.status, o.bad_task_ids) for name, o in outcomes.items()}
    assert status == {
        "unknown": ("invalid", ["bg-7"]),
        "running and unread": ("valid", []),
        "again": ("valid", []),
        "read": ("invalid", ["bg-2"]),
        "stopped after": ("cancelled", ["bg-1"]),
        "stopped before": ("invalid", ["bg-1"]),
        "stopped by the model": ("invalid", ["bg-3"]),
        "earlier process": ("invalid", ["bg-2"]),
    }
    assert outcomes["stopped after"].reason == "the user stopped bg-1 after the wait was declared"
    evidence = outcomes["running and unread"].validation
    assert json.loads(json.dumps(evidence)) == evidence
    assert "hunter2" not in json.dumps(evidence)  # commands are not evidence
    assert "tasks: bg-1, bg-2" in outcomes["unknown"].reason


def test_a_run_waiting_for_a_background_task_ends_without_a_correction(
    api, make_agent, manager, workspace
):
    plan = [
        {"content": "Start the test suite", "status": "completed"},
        {"content": "Report the results", "status": "in_progress"},
    ]
    declare = tool_use("todo_write", {"todos": plan, "wait_for_tasks": ["bg-1"]})
    api.add({"content": [declare]})
    api.add({"content": [text("The suite runs as bg-1; I will report when it ends.")]})
    agent = None
    todo = TodoListMiddleware(
        extra_ref=lambda: agent.extra, validate_task_wait=manager.validate_task_wait
    )
    agent = make_agent(tools=[*default_tools(), *manager.tools()], middleware=[todo])

    async def scenario():
        await manager.start(workspace, "sleep 300")
        answer = await agent.run("run the slow suite and report")
        await manager.shutdown()
        return answer

    assert run(scenario()).startswith("The suite runs as bg-1")
    assert len(api.accepted) == 2
    assert "Waiting for bg-1" in results_by_id(api.accepted[1])[declare["id"]]["content"]
    assert agent.extra["todo_task_wait_outcome"]["status"] == "valid"
