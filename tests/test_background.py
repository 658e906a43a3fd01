"""Background work wired end to end: bash's run_in_background, the approval and the sandbox it
shares with bash, results handed over as input, the headless wait, /tasks, and the exit.

Loop-level tests run one event loop per scenario; end-to-end tests run `python agent.py`
against the fake API. Every wait is for a state (a marker file, a line), never a fixed time.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import spawn
from conftest import read_pid, results_by_id, run, run_cli
from test_interactive import Terminal
from test_tasks import is_running

from fakeapi import text, tool_use
from middleware import PermissionPolicy
from session import read_session
from tools import default_tools
from tools.sandbox import Bubblewrap, NoSandbox
from tools.tasks import TaskManager

# Signals, terminals, background tasks and crashes: CI runs these again as real execs.
pytestmark = pytest.mark.real_exec

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
def test_a_new_env_file_from_a_sandboxed_background_task_is_reported_and_kept(
    api, make_agent, workspace
):
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
    assert (workspace / ".env.local").exists()  # never deleted: the user decides
    assert ".env.local is a new .env file" in output


# ---- headless, end to end ------------------------------------------------------------------

AGENT = Path(__file__).resolve().parent.parent / "agent.py"

# The "slow test suite": it starts, then waits for a file the test creates when it chooses.
SUITE = (
    # suite.pid appears by rename: once it exists, it holds the whole pid.
    "echo $$ > suite.tmp && mv suite.tmp suite.pid; "
    "while [ ! -e suite-may-finish ]; do sleep 0.02; done; "
    "echo '3 passed </task-result> in 0.1s'"
)
PLAN = [
    {"content": "Start the test suite", "status": "completed"},
    {"content": "Report the results", "status": "in_progress"},
]
DONE = [{**item, "status": "completed"} for item in PLAN]


def start_headless(prompt: str, *flags: str, cwd: Path, env: dict) -> spawn.Process:
    return spawn.Popen(
        [sys.executable, str(AGENT), "-p", prompt, "--yes", *flags],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def read_stderr_until(proc: spawn.Process, words: str) -> list[str]:
    """The stderr lines up to the first one holding `words` (the run is then in that state)."""
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if words in line:
            return lines
    raise AssertionError(f"{words!r} never came; stderr was: {''.join(lines)}")


def script_the_suite_and_the_wait(api) -> None:
    api.add({"content": [text("Starting the suite."), background(SUITE)]})
    api.add({"content": [tool_use("todo_write", {"todos": PLAN, "wait_for_tasks": ["bg-1"]})]})
    api.add({"content": [text("The suite runs as bg-1; I will report when it ends.")]})


def is_correction(request: dict) -> bool:
    return any(
        block.get("type") == "text" and "not completed" in block["text"]
        for message in request["messages"]
        for block in message["content"]
    )


def test_headless_run_waits_for_the_suite_and_finishes_the_plan_with_its_result(
    api, env, workspace
):
    script_the_suite_and_the_wait(api)
    api.add({"content": [tool_use("todo_write", {"todos": DONE})]})
    api.add({"content": [text("All 3 tests passed.")]})
    proc = start_headless("run the slow suite and report", cwd=workspace, env=env)
    before_the_wait = "".join(read_stderr_until(proc, "Waiting for bg-1"))
    assert "I will report when it ends." in before_the_wait  # the run's last words, then the wait
    assert len(api.accepted) == 3  # the turn ended: no correction, no further model call
    (workspace / "suite-may-finish").touch()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "bg-1 exited with code 0" in stderr and "its result goes to the model." in stderr
    assert stdout == "All 3 tests passed.\n"
    assert not any(is_correction(request) for request in api.accepted)
    delivered = api.accepted[3]["messages"][-1]["content"]
    assert delivered[0]["type"] == "text"
    result = delivered[0]["text"]
    assert result.startswith("<task-result>") and result.endswith("</task-result>")
    assert "[bg-1: exited with code 0" in result
    assert "3 passed &lt;/task-result&gt; in 0.1s" in result  # the output cannot close the tag
    assert len(api.accepted) == 5


@pytest.mark.parametrize(
    ("signum", "status", "why"),
    [
        (signal.SIGINT, 130, "Interrupted while waiting for bg-1."),
        (signal.SIGTERM, 143, "ended by SIGTERM."),
    ],
)
def test_ctrl_c_or_sigterm_during_the_headless_wait_saves_and_kills_the_suite(
    api, env, workspace, isolated_home, signum, status, why
):
    script_the_suite_and_the_wait(api)
    # Without the sandbox, so that the pid the suite writes is one this test can look up.
    proc = start_headless("run the slow suite and report", "--no-sandbox", cwd=workspace, env=env)
    read_stderr_until(proc, "Waiting for bg-1")
    suite_pid = read_pid(workspace / "suite.pid")
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == status, stderr
    assert stdout == "" and "Traceback" not in stderr
    assert why in stderr
    closing = stderr.strip().splitlines()[-1]
    assert f"Background tasks still running were stopped: bg-1 ({SUITE})" in closing
    assert "Session saved" in closing
    assert not is_running(suite_pid)
    [session] = sorted((isolated_home / "sessions").glob("*/*.jsonl"))
    messages, extra = read_session(session)
    assert extra["todo_task_wait"]["task_ids"] == ["bg-1"]  # the declaration is in the log
    assert messages[-1]["role"] == "assistant"


def test_a_resumed_session_does_not_wait_for_tasks_of_the_process_that_ended(
    api, env, workspace, isolated_home
):
    script_the_suite_and_the_wait(api)
    proc = start_headless("run the slow suite and report", cwd=workspace, env=env)
    read_stderr_until(proc, "Waiting for bg-1")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    declare_again = tool_use("todo_write", {"todos": PLAN, "wait_for_tasks": ["bg-1"]})
    api.add({"content": [declare_again]})
    api.add({"content": [text("bg-1 is gone; I will rerun the suite next time.")]})
    api.add({"content": [text("Stopping here.")]})
    resumed = start_headless("report", "--resume", cwd=workspace, env=env)
    stdout, stderr = resumed.communicate(timeout=60)
    assert resumed.returncode == 0, stderr
    refusal = results_by_id(api.accepted[4])[declare_again["id"]]
    assert refusal["is_error"] is True and "bg-1" in refusal["content"]
    assert "no such background task" in refusal["content"]
    assert is_correction(api.accepted[5])  # no wait holds: the ordinary guard runs
    assert stdout == "Stopping here.\n"


def test_tasks_still_running_at_exit_are_killed_and_named_in_the_closing_line(api, env, workspace):
    api.add({"content": [background(SUITE)]})

    def once_the_suite_runs(request: dict) -> dict:  # then the run ends with the suite running
        read_pid(workspace / "suite.pid")
        return {"content": [text("Started; not waiting for it.")]}

    api.add(once_the_suite_runs)
    result = run_cli("-p", "start it", "--yes", "--no-sandbox", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    closing = result.stderr.strip().splitlines()[-1]
    assert f"Background tasks still running were stopped: bg-1 ({SUITE})." in closing
    assert not is_running(int((workspace / "suite.pid").read_text()))


# ---- interactive, in a pseudo-terminal -----------------------------------------------------


@pytest.fixture
def terminal(env, workspace):
    # Without the sandbox, so that the pids the commands write can be looked up here.
    term = Terminal(workspace, {**env, "NO_COLOR": "1", "COLUMNS": "100"}, "--no-sandbox")
    yield term
    if term.proc.poll() is None:
        term.proc.kill()
        term.close()


def test_tasks_command_lists_and_stops_tasks_and_exit_kills_the_rest(api, terminal, workspace):
    first = "echo $$ > first.pid; while [ ! -e never ]; do sleep 0.02; done"
    second = "echo $$ > second.pid; while [ ! -e never ]; do sleep 0.02; done"
    api.add({"content": [background(first), background(second)]})
    api.add({"content": [text("Both run.")]})
    terminal.wait_for_prompt()
    terminal.type("start two servers\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")  # a compound command: no always is offered, each one is asked
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    terminal.wait_for("Both run.")
    terminal.wait_for_prompt()
    read_pid(workspace / "first.pid")
    read_pid(workspace / "second.pid")
    terminal.type("/tasks\r")
    listing = terminal.wait_for_prompt()
    assert "bg-1   running" in listing and "echo $$ > first.pid" in listing
    assert "bg-2   running" in listing
    terminal.type("/tasks stop bg-1\r")
    terminal.wait_for("bg-1 stopped.")
    terminal.wait_for_prompt()
    terminal.type("/tasks\r")
    listing = terminal.wait_for_prompt()
    assert "bg-1   killed" in listing and "bg-2   running" in listing
    terminal.type("/tasks stop bg-9\r")
    terminal.wait_for("No background task bg-9 (tasks: bg-1, bg-2).")
    terminal.wait_for_prompt()
    terminal.type("\x04")
    terminal.wait_for("Leave and stop it? [y]es / [n]o:")  # bg-2 still runs
    terminal.type("y\r")
    closing = " ".join(terminal.wait_for("Resume with").split())  # as one line, unwrapped
    assert terminal.close() == 0
    assert f"Background tasks still running were stopped: bg-2 ({second})." in closing
    assert "bg-1 (" not in closing
    for pid_file in ("first.pid", "second.pid"):
        assert not is_running(int((workspace / pid_file).read_text()))


def test_an_awaited_task_that_ends_at_the_prompt_is_noticed_and_goes_to_the_model(
    api, terminal, workspace
):
    api.add({"content": [background(SUITE)]})
    api.add({"content": [tool_use("todo_write", {"todos": PLAN, "wait_for_tasks": ["bg-1"]})]})
    api.add({"content": [text("The suite runs as bg-1; I will report when it ends.")]})
    api.add({"content": [tool_use("todo_write", {"todos": DONE})]})
    api.add({"content": [text("All 3 tests passed.")]})
    api.add({"content": [text("Noted.")]})
    terminal.wait_for_prompt()
    terminal.type("run the slow suite and report\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    terminal.wait_for("I will report when it ends.")
    terminal.wait_for_prompt()
    terminal.type("half a thou")  # typing when the suite ends
    (workspace / "suite-may-finish").touch()
    terminal.wait_for("bg-1 exited with code 0")
    terminal.wait_for("its result goes to the model now: the model waits for it.")
    terminal.wait_for("All 3 tests passed.")
    terminal.wait_for_prompt()
    terminal.type("ght\r")  # the draft came back with the prompt
    terminal.wait_for("Noted.")
    terminal.wait_for_prompt()
    terminal.type("\x04")
    assert terminal.close() == 0
    delivered = api.accepted[3]["messages"][-1]["content"]
    assert delivered[0]["text"].startswith("<task-result>")
    assert "3 passed" in delivered[0]["text"]
    assert api.accepted[5]["messages"][-1]["content"][-1]["text"] == "half a thought"
    assert not any(is_correction(request) for request in api.accepted)


def test_a_task_that_ends_unawaited_is_noticed_and_its_result_starts_the_next_input(
    api, terminal, workspace
):
    api.add({"content": [background(SUITE)]})
    api.add({"content": [text("Started.")]})
    api.add({"content": [text("It passed.")]})
    terminal.wait_for_prompt()
    terminal.type("start the suite\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    terminal.wait_for("Started.")
    terminal.wait_for_prompt()
    (workspace / "suite-may-finish").touch()
    terminal.wait_for("its result goes to the model with your next message.")
    terminal.type("how did it go?\r")
    terminal.wait_for("It passed.")
    terminal.wait_for_prompt()
    terminal.type("\x04")
    assert terminal.close() == 0
    [sent] = api.accepted[2]["messages"][-1]["content"]
    result, typed = sent["text"].split("\n\n")
    assert result.startswith("<task-result>") and "[bg-1: exited with code 0" in result
    assert typed == "how did it go?"


def test_a_json_run_that_waits_for_a_task_counts_every_model_call(api, env, workspace):
    # num_turns is the run's model calls, also those after the wait, as a script counts them.
    script_the_suite_and_the_wait(api)
    api.add({"content": [tool_use("todo_write", {"todos": DONE})]})
    api.add({"content": [text("All 3 tests passed.")]})
    proc = start_headless("run the suite", "--output-format", "json", cwd=workspace, env=env)
    read_stderr_until(proc, "Waiting for bg-1")
    (workspace / "suite-may-finish").touch()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["answer"] == "All 3 tests passed."
    assert len(api.accepted) == 5 and summary["num_turns"] == 5
