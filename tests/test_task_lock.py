"""The lock between sandboxed commands and approved protected writes (tools/task_lock.py), when
its file in planloop's home is not planloop's own: a pipe or another user's file, put there
while the home was open to others. planloop must neither hang on it nor trust it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AGENT

from tools.task_lock import LOCK_NAME

NOBODY = 65534

# Opens the lock as an approved write would, then as a command would; prints what happened.
TRY_THE_LOCK = """
import asyncio
from pathlib import Path
from tools.base import ToolError
from tools.task_lock import hold_shared, no_sandbox_runs
try:
    with no_sandbox_runs([Path("/w/.envrc")], "write_file"):
        print("written")
except ToolError as error:
    print("refused:", error)
print("command holds:", asyncio.run(hold_shared()))
"""


def try_the_lock(home: Path) -> str:
    env = {**os.environ, "PLANLOOP_HOME": str(home)}
    # (in a process of its own, with a timeout: before the fix, the open of a pipe never returned)
    run = [sys.executable, "-c", TRY_THE_LOCK]
    result = subprocess.run(
        run, cwd=AGENT.parent, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_pipe_at_the_lock_refuses_the_write_at_once_and_commands_run(isolated_home):
    os.mkfifo(isolated_home / LOCK_NAME)
    out = try_the_lock(isolated_home)
    assert "refused: write_file: nothing was written" in out and "remove that file" in out
    assert "command holds: None" in out


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file of another user needs root")
def test_another_users_file_at_the_lock_is_not_trusted(isolated_home):
    lock = isolated_home / LOCK_NAME
    lock.write_text("")
    os.chown(lock, NOBODY, NOBODY)
    out = try_the_lock(isolated_home)
    assert "refused: write_file: nothing was written" in out and "not a file of yours" in out


def test_planloops_own_lock_lets_the_write_go_when_nothing_runs(isolated_home):
    out = try_the_lock(isolated_home)  # no file yet: no sandboxed command ever ran
    assert out.startswith("written") and "command holds: " in out
    assert "command holds: None" not in out  # the command made the lock and held it
    out = try_the_lock(isolated_home)  # the file it made is planloop's: used as it is
    assert out.startswith("written")
