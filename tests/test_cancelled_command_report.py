"""A command stopped by Ctrl-C or SIGTERM is still looked at: what it created is reported.

The report of new `.git`, `.env*` and host tools' configuration comes from comparing the scan
before a command with the one after it. A command that planted `.vscode/tasks.json` (run when
the folder opens) and then hung was never compared: Ctrl-C, or a `timeout` around a headless
run, skipped the look after it, and every later scan counted the file as already there.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import spawn
from conftest import AGENT, wait_for_file
from test_hostile_pass4 import needs_bwrap

from fakeapi import tool_use

PLANT = (
    "mkdir -p .vscode && echo '{\"tasks\": []}' > .vscode/tasks.json && "
    "git init -q lib && touch planted && sleep 600"
)


@needs_bwrap
@pytest.mark.real_exec
@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_what_a_stopped_command_created_is_reported(api, env, workspace, sent, code):
    api.add({"content": [tool_use("bash", {"command": PLANT})]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "set things up"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_file(workspace / "planted")
    proc.send_signal(sent)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr
    flat = "".join(stderr.split())
    assert "sandbox:.vscode(ahosttool'sconfiguration)appearedwhileacommandran" in flat, stderr
    assert "sandbox:lib/.git(anewgitrepository)appearedwhileacommandran" in flat, stderr
    closing = stderr.strip().splitlines()[-6:]
    assert any(".vscode" in line for line in closing), stderr
