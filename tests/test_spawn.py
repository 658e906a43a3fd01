"""The warm start of tests/spawn.py behaves as a real `python agent.py` would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import spawn

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
warm_only = pytest.mark.skipif(
    os.environ.get("PLANLOOP_TEST_REAL_SPAWN") == "1", reason="every start is a real exec"
)


def test_a_warm_start_and_a_real_exec_print_the_same_help_and_status(workspace):
    def start(real_exec: bool) -> subprocess.CompletedProcess:
        return spawn.run(
            [sys.executable, str(AGENT), "--help"],
            cwd=workspace,
            capture_output=True,
            text=True,
            timeout=60,
            real_exec=real_exec,
        )

    warm, real = start(real_exec=False), start(real_exec=True)
    assert real.returncode == 0 and "usage" in real.stdout
    assert (warm.returncode, warm.stdout, warm.stderr) == (real.returncode, real.stdout, "")


@warm_only
def test_a_warm_child_is_a_new_session_with_only_its_stdio_and_dies_by_its_signal(workspace):
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    }
    proc = spawn.Popen(
        [sys.executable, str(AGENT)],  # waits for a first prompt on stdin
        cwd=workspace,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert isinstance(proc, spawn.WarmChild) and proc.pid != os.getpid()
    assert os.getsid(proc.pid) == proc.pid
    assert Path(f"/proc/{proc.pid}/cwd").resolve() == workspace.resolve()
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=20) == -signal.SIGKILL
    proc.stdin.close()
