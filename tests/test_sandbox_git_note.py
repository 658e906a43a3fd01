"""A command that fails on git metadata in the sandbox is told why, and what to do instead."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from tools.bash import run_bash
from tools.sandbox import GIT_WRITES_REFUSED, Bubblewrap, bubblewrap_works

pytestmark = pytest.mark.skipif(
    bubblewrap_works() is not True, reason="bubblewrap cannot start a sandbox here"
)


def sandboxed(workspace: Path, command: str) -> str:
    return asyncio.run(run_bash(workspace, command, 30, sandbox=Bubblewrap()))


def test_a_refused_git_write_says_why_and_an_ordinary_failure_does_not(workspace: Path):
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    refused = sandboxed(workspace, "git config core.fsmonitor 'touch /tmp/x'")
    assert "Read-only file system" in refused or "could not lock" in refused
    assert GIT_WRITES_REFUSED in refused and "outside the sandbox" in refused
    ordinary = sandboxed(workspace, "ls no-such-file")
    assert "[exit code: 2]" in ordinary and GIT_WRITES_REFUSED not in ordinary


def test_git_init_in_a_folder_that_is_no_repository_says_why(workspace: Path):
    result = sandboxed(workspace, "git init")
    assert "[exit code: 0]" not in result and GIT_WRITES_REFUSED in result
