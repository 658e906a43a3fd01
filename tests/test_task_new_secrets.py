"""A background task keeps the sandbox it started with: a file holding the key that appears
while it runs (you put your key in a new `.env.local`) is shown empty to new commands, but not
to that task. Its output could then carry the key to the model in any encoding (`base64`), past
the redaction of the plain value. planloop stops such a task and keeps its output from the model.
"""

from __future__ import annotations

import base64
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import API_KEY, run_cli
from test_binds_replaced import HOLD_LOCK, done_or_stopped
from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use

__all__ = ["user_folders"]  # a fixture, used by name below

WATCHER = (
    HOLD_LOCK + "until [ -s .env.local ]; do sleep 0.05; done; "
    "base64 -w0 .env.local; echo; touch printed; sleep 600"
)


def wait_for(path: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_that_could_read_a_new_key_file_is_stopped_and_its_output_withheld(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders

    def you_add_your_key(_body: dict) -> dict:
        wait_for(workspace / "lock")  # the task runs
        key_file = workspace / ".env.local"
        key_file.write_text(f"ANTHROPIC_API_KEY={API_KEY}\n")
        if user == "nobody":
            os.chown(key_file, NOBODY, NOBODY)
        # It read and printed it, or planloop, watching the folder, stopped it first.
        done_or_stopped(workspace / "printed", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add({"content": [tool_use("bash", {"command": WATCHER, "run_in_background": True})]})
    api.add(you_add_your_key)
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    # The task could read the key: it is stopped, and so is the headless run, before the
    # task_output (or anything that could read what the task wrote) runs.
    assert result.returncode == 3, result.stderr
    (started,) = tool_results(api)
    assert "bg-1" in started
    encoded = base64.b64encode(f"ANTHROPIC_API_KEY={API_KEY}\n".encode()).decode()
    for sent in api.accepted:
        assert encoded[:24] not in str(sent) and API_KEY not in str(sent)
    flat = "".join(result.stderr.split())
    assert "bg-1wasstoppedanditsoutputkeptfromthemodel" in flat, result.stderr
    # Named as in the workspace.
    assert ".env.localcametoholdtheAPIkeyorasecretafteritstarted" in flat
    # A new command, in the next run, sees the file empty.
    api.add({"content": [tool_use("bash", {"command": "wc -c < .env.local"})]})
    api.add({"content": [text("Done.")]})
    again = run_as(user, api, env, workspace, home)
    assert again.returncode == 0, again.stderr
    assert tool_results(api)[-1].startswith("0")


@needs_bwrap
def test_a_repository_you_make_while_a_task_runs_is_named_as_one_the_task_can_still_change(
    api, env, workspace
):
    # New commands get the new repository's .git read-only; the running task's sandbox was made
    # before it existed. It is not stopped (a dev server may well run on), but you are told.
    def you_make_a_repository(_body: dict) -> dict:
        subprocess.run(["git", "init", "-q", "sub"], cwd=workspace, check=True)
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add({"content": [tool_use("bash", {"command": "sleep 600", "run_in_background": True})]})
    api.add(you_make_a_repository)
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "serve", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    _, output = tool_results(api)
    assert "sub/.git became protected after bg-1 started" in output, output
    assert "running for" in output  # not stopped
    flat = "".join(result.stderr.split())
    assert "sub/.gitbecameprotectedafterbg-1started" in flat, result.stderr
