"""The lock between sandboxed commands and approved protected writes (tools/task_lock.py): it is
planloop's home folder itself, so nothing put in the home, or removed from it, while sessions
run can hang planloop, stop its writes for good, or let a write through under a running
sandbox."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AGENT

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

# Holds the lock as a running sandboxed command does, until its input closes.
HOLD_THE_LOCK = """
import asyncio, sys
from tools.task_lock import hold_shared
print("holding", asyncio.run(hold_shared()), flush=True)
sys.stdin.read()
"""


def planloop_env(home: Path) -> dict[str, str]:
    return {**os.environ, "PLANLOOP_HOME": str(home)}


def try_the_lock(home: Path) -> str:
    # (in a process of its own, with a timeout: a pipe in the home once hung the open for good)
    result = subprocess.run(
        [sys.executable, "-c", TRY_THE_LOCK],
        cwd=AGENT.parent,
        env=planloop_env(home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def plant(home: Path, owner: int | None) -> None:
    """What a file-based lock would have trusted or hung on: a pipe and a file of someone else."""
    os.mkfifo(home / "sandboxes.lock")
    (home / "other.lock").write_text("")
    if owner is not None:
        os.chown(home / "other.lock", owner, owner)


def test_a_pipe_or_a_strangers_file_in_the_home_changes_nothing(isolated_home):
    plant(isolated_home, NOBODY if os.geteuid() == 0 else None)
    out = try_the_lock(isolated_home)
    assert out.startswith("written")  # no hang, and no refusal that lasts until a clean-up
    assert "command holds: None" not in out  # and commands still take the lock


def test_a_write_is_refused_while_a_command_holds_the_lock_whatever_is_removed(isolated_home):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LOCK],
        cwd=AGENT.parent,
        env=planloop_env(isolated_home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        held = holder.stdout.readline()
        assert held.startswith("holding") and "None" not in held  # a descriptor: it holds
        for entry in isolated_home.iterdir():  # the person tidies the home meanwhile
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        out = try_the_lock(isolated_home)
        assert out.startswith("refused: write_file: nothing was written")
        assert "a sandboxed command or background task of a planloop session runs" in out
    finally:
        holder.communicate("", timeout=30)
    assert try_the_lock(isolated_home).startswith("written")  # the command ended


def test_a_home_of_another_user_is_neither_locked_nor_trusted(isolated_home):
    if os.geteuid() != 0:
        pytest.skip("making a folder of another user needs root")
    os.chown(isolated_home, NOBODY, NOBODY)
    out = try_the_lock(isolated_home)
    # The session cannot keep anything there either (it says so at start): only its own
    # tasks are seen, as the README says.
    assert out.startswith("written") and "command holds: None" in out
