"""Nothing a command starts outlives it, nor planloop: tools/process.py and tools/supervisor.py.

The end-to-end cases start `python agent.py` headless with a background task that forks in
every way a process can leave its parent (setsid, a double fork, `env -i`), kill planloop with
SIGKILL, and wait until every process of the task is gone: with and without the sandbox, as
root and as an unprivileged user. Every wait is for a state, checked a bounded number of times.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import spawn
from conftest import run, wait_for_file
from test_background import read_stderr_until

from fakeapi import text, tool_use
from tools.bash import run_bash
from tools.sandbox import Bubblewrap, NoSandbox, bubblewrap_works

# Processes that must die with planloop: CI runs these again as real execs.
pytestmark = pytest.mark.real_exec

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
NOBODY = 65534
CHECKS = 400  # of the process table, 0.05 s apart: 20 s at most, usually a few checks
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed"
)


def processes_carrying(token: str) -> list[int]:
    """Host pids of live processes whose command line holds `token` (in any pid namespace)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_until(condition, what: str) -> None:
    for _ in range(CHECKS):
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} never happened")


def clean_up(proc, number: int) -> None:
    """After a failed check: end planloop and the task, so nothing is left behind."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(timeout=30)
    for pid in processes_carrying(str(number)):
        os.kill(pid, signal.SIGKILL)


def escaping_tree(number: int) -> str:
    """A task whose processes all carry `number`: bash, a setsid child, an env -i orphan."""
    return (
        f"setsid sleep {number} & "  # left the process group
        f"(env -i setsid sleep {number + 1} &); "  # double fork, no marker in its environment
        f"echo KEY={number} > .env.task; "  # a file the task made: it stays
        f"touch started; while :; do sleep 1; done; : {number}"
    )


def script_a_waiting_run(api, command: str) -> None:
    """Start `command` as bg-1, declare the wait for it: planloop then waits, alive."""
    plan = [{"content": "Let the task run", "status": "in_progress"}]
    api.add({"content": [tool_use("bash", {"command": command, "run_in_background": True})]})
    api.add({"content": [tool_use("todo_write", {"todos": plan, "wait_for_tasks": ["bg-1"]})]})
    api.add({"content": [text("Waiting for it.")]})


def kill_planloop_and_expect_the_tree_gone(proc, workspace: Path, number: int) -> None:
    read_stderr_until(proc, "Waiting for bg-1")
    wait_for_file(workspace / "started")
    carrying = [str(number), str(number + 1)]
    wait_until(
        lambda: all(processes_carrying(f"sleep\0{n}") for n in carrying), "both sleeps starting"
    )
    assert len(processes_carrying(str(number))) >= 3  # bash (and its supervisor or bwrap) too
    proc.kill()  # SIGKILL: planloop runs no code of its own after this
    proc.wait(timeout=30)
    wait_until(lambda: processes_carrying(str(number)) == [], "the end of the task's processes")
    assert processes_carrying(f"sleep\0{number + 1}") == []
    assert (workspace / ".env.task").read_text() == f"KEY={number}\n"


@pytest.mark.parametrize(
    "flags",
    [
        pytest.param(["--no-sandbox"], id="no-sandbox"),
        pytest.param([], id="bubblewrap", marks=needs_bwrap),
    ],
)
def test_a_task_and_everything_it_started_die_when_planloop_is_sigkilled(
    api, env, workspace, flags
):
    number = random.randrange(10**6, 10**7)
    script_a_waiting_run(api, escaping_tree(number))
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "run it", "--yes", *flags],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        kill_planloop_and_expect_the_tree_gone(proc, workspace, number)
    finally:
        clean_up(proc, number)


@pytest.fixture
def unprivileged_folder():
    """A workspace and a planloop home an unprivileged user may write."""
    if os.geteuid() != 0:
        pytest.skip("switching to another user needs root; this run is already unprivileged")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed, so the user cannot be switched")
    folder = Path(tempfile.mkdtemp(prefix="planloop-nobody-"))
    for path in (folder / "work", folder / "home"):
        path.mkdir()
        os.chown(path, NOBODY, NOBODY)
    os.chmod(folder, 0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("sandboxed", [False, True], ids=["no-sandbox", "bubblewrap"])
def test_as_an_unprivileged_user_the_tree_dies_with_planloop_too(
    api, env, unprivileged_folder, sandboxed
):
    as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    check = subprocess.run([*as_nobody, sys.executable, "-c", "import anthropic"], check=False)
    if check.returncode != 0:
        pytest.skip("the unprivileged user cannot run this Python and its packages")
    if sandboxed:
        if shutil.which("bwrap") is None:
            pytest.skip("bubblewrap (bwrap) is not installed")
        works = "import sys, tools.sandbox as s; sys.exit(s.bubblewrap_works() is not True)"
        probe = [*as_nobody, sys.executable, "-c", works]
        if subprocess.run(probe, cwd=AGENT.parent, check=False).returncode != 0:
            pytest.skip("bubblewrap cannot start a sandbox for an unprivileged user here")
    workspace = unprivileged_folder / "work"
    number = random.randrange(10**6, 10**7)
    script_a_waiting_run(api, escaping_tree(number))
    flags = [] if sandboxed else ["--no-sandbox"]
    proc = subprocess.Popen(
        [*as_nobody, sys.executable, str(AGENT), "-p", "run it", "--yes", *flags],
        cwd=workspace,
        env={**env, "PLANLOOP_HOME": str(unprivileged_folder / "home"), "HOME": "/nonexistent"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        kill_planloop_and_expect_the_tree_gone(proc, workspace, number)
    finally:
        clean_up(proc, number)


# ---- the bash tool, without the CLI ----------------------------------------------------------


def bash(workspace: Path, command: str, sandbox=None) -> str:
    return run(run_bash(workspace, command, timeout=20, sandbox=sandbox))


def test_an_orphan_that_cleared_its_environment_is_still_killed_when_the_command_ends(workspace):
    # Neither the process group nor the marker finds it; the supervisor (a subreaper) does.
    number = random.randrange(10**6, 10**7)
    result = bash(workspace, f"(env -i setsid sleep {number} &); echo started")
    assert result.startswith("started\n")
    assert "[processes the command left running in the background were stopped]" in result
    wait_until(lambda: processes_carrying(f"sleep\0{number}") == [], "the orphan's end")


def test_a_background_child_may_finish_its_output_within_the_grace(workspace):
    result = bash(workspace, "(sleep 0.1; echo late) & echo early")
    assert result == "early\nlate\n[exit code: 0]"


def test_the_command_starts_with_default_signals_so_a_closed_pipe_ends_it_quietly(workspace):
    # Python ignores SIGPIPE; a command started from it must not: `yes` would then complain.
    assert bash(workspace, "yes | head -n 1") == "y\n[exit code: 0]"


def test_a_command_killed_by_a_signal_is_reported_as_a_shell_would(workspace):
    assert bash(workspace, "kill -TERM $$") == "(no output)\n[exit code: 143 (killed by SIGTERM)]"


def test_a_command_that_kills_its_supervisor_still_loses_its_children(workspace):
    number = random.randrange(10**6, 10**7)
    result = bash(workspace, f"setsid sleep {number} & kill -9 $PPID; sleep 1")
    assert "[exit code:" in result
    wait_until(lambda: processes_carrying(f"sleep\0{number}") == [], "the child's end")


@needs_bwrap
def test_in_bubblewrap_commands_run_without_a_supervisor(workspace):
    if bubblewrap_works() is not True:
        pytest.skip(f"bubblewrap cannot run here: {bubblewrap_works()}")
    # The sandbox's pid namespace ends the tree with planloop; the supervisor would only cost.
    assert bash(workspace, "echo $$", Bubblewrap()).startswith("2\n")  # bwrap's init is 1
    assert "supervisor" not in bash(workspace, "cat /proc/$PPID/cmdline", Bubblewrap())
    # Without it, the supervisor runs as code read when planloop started, not from its file:
    # in planloop's own checkout as the workspace, a file tool could have rewritten that.
    supervisor = bash(workspace, "tr '\\0' ' ' < /proc/$PPID/cmdline", NoSandbox())
    assert " -I -S -c " in supervisor and "def main(" in supervisor
    assert "supervisor.py" not in supervisor.split(" -c ")[0]


@needs_bwrap
def test_no_sandbox_is_made_through_a_path_a_running_task_could_move(workspace):
    # bwrap finds where each mount goes by its path, and makes a missing one with mkdir: a
    # task that swapped a folder on that way for a link to the host (`/oldroot/...`) had bwrap
    # make a folder there. A task cannot move what its own sandbox pinned when it started; a
    # path protected since then it can (and change it, too), so new sandboxes leave it out
    # while the task runs (the task's notes say so: tools/tasks.py).
    from tools.process import BoundedOutput, start_command

    sandbox = Bubblewrap()
    if bubblewrap_works() is not True or not sandbox.landlock:
        pytest.skip("needs bubblewrap and Landlock, whose step says when a sandbox is made")
    (workspace / "config").mkdir()
    (workspace / "config" / ".env.example").write_text("DEBUG=1\n")  # protected from the start
    change = "echo X=1 >> config/.env.example; echo Y=1 >> app/deploy/.env.test; echo ran"

    def destinations(argv: list[str]) -> list[str]:
        return [word for word in argv if word.startswith(str(workspace / "app"))]

    async def a_task_then_commands() -> tuple[str, str, list[str], list[str]]:
        argv, env = sandbox.wrap(workspace, "touch started; exec sleep 60")
        task = await start_command(BoundedOutput, argv, env, workspace, supervise=False)
        try:
            wait_for_file(workspace / "started")
            (workspace / "app" / "deploy").mkdir(parents=True)
            (workspace / "app" / "deploy" / ".env.test").write_text("DEBUG=1\n")  # made since
            while_running, during = await ran(workspace, change)
        finally:
            await task.finish()
        after, ended = await ran(workspace, "echo Y=2 >> app/deploy/.env.test; echo ran")
        return while_running, after, during, ended

    async def ran(workspace: Path, command: str) -> tuple[str, list[str]]:
        argv, env = sandbox.wrap(workspace, command)
        started = await start_command(BoundedOutput, argv, env, workspace, supervise=False)
        await started.wait(30)
        await started.finish()
        return started.watch.text(), destinations(argv)

    while_running, after, during, ended = run(a_task_then_commands())
    assert during == [] and ended != []  # no mount through `app` while the task ran
    assert "config/.env.example: Read-only file system" in while_running
    assert "ran" in while_running and "Y=1" in (workspace / "app/deploy/.env.test").read_text()
    assert "Read-only file system" in after  # the task ended: protected again


def test_the_launcher_dies_with_planloop_until_bwrap_takes_over():
    # Between planloop's fork and bwrap's own --die-with-parent, the launcher is all there is:
    # planloop killed then left the command running on, under init. It asks to be killed with
    # its parent, and ends at once if that parent is gone already.
    from tools.sandbox import LAUNCHER_SOURCE

    ask = (  # prctl(PR_GET_PDEATHSIG)
        "import ctypes; v = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(v)); "
        "print(v.value)"
    )

    def launch(parent: int) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-I", "-S", "-c", LAUNCHER_SOURCE, "/", str(parent)]
        return subprocess.run([*argv, sys.executable, "-c", ask], capture_output=True, text=True)

    assert launch(os.getpid()).stdout == f"{int(signal.SIGKILL)}\n"  # held across the exec
    orphaned = launch(os.getpid() + 1)  # another parent than the one it has: planloop died
    assert orphaned.returncode == 0 and orphaned.stdout == ""


@needs_bwrap
def test_a_sandbox_cancelled_while_it_is_made_does_not_run_on(workspace, monkeypatch):
    # start_command waits for the sandbox's first step to say bwrap is done; a Ctrl-C in that
    # wait must not leave the command running, unwatched, until planloop ends.
    import asyncio

    from tools import process
    from tools.process import RUNNING_SANDBOXES, BoundedOutput, start_command

    sandbox = Bubblewrap()
    if bubblewrap_works() is not True or not sandbox.landlock:
        pytest.skip("needs bubblewrap and Landlock, whose step says when a sandbox is made")
    number = random.randrange(10**6, 10**7)

    async def cancelled(fd: int) -> None:
        raise asyncio.CancelledError

    monkeypatch.setattr(process, "_made", cancelled)

    async def start() -> None:
        argv, env = sandbox.wrap(workspace, f"sleep {number}")
        await start_command(BoundedOutput, argv, env, workspace, supervise=False)

    with pytest.raises(asyncio.CancelledError):
        run(start())
    assert RUNNING_SANDBOXES == {}
    wait_until(lambda: processes_carrying(f"sleep\0{number}") == [], "the cancelled command's end")
