"""The evidence features in `python agent.py`: on by default, checks in the sandbox, kept on resume.

One session, end to end against the fake API: a check fails, the work is fixed, the same
write passes; an item is cancelled; the JSON output and the view show it all apart; a resume
keeps the proof, drops the cancelled item at the next write and goes on counting versions.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import results_by_id, run_cli

from fakeapi import text, tool_use
from session import read_session

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

CHECK = "grep -q fixed notes.txt"


def item(content: str, status: str, **extra) -> dict:
    return {"content": content, "status": status, **extra}


def write(*items: dict) -> dict:
    return tool_use("todo_write", {"todos": list(items)})


def the_session(home: Path) -> Path:
    [path] = sorted((home / "sessions").glob("*/*.jsonl"))
    return path


@needs_bwrap
def test_a_session_with_a_check_a_cancelled_item_the_record_and_a_resume(
    api, env, workspace, isolated_home
):
    (workspace / "notes.txt").write_text("broken\n")
    done_too_soon = write(
        item("Fix the notes", "completed", check=CHECK),
        item("Port to Windows", "cancelled", reason="out of scope"),
        item("Report", "in_progress"),
    )
    again = write(*done_too_soon["input"]["todos"])
    plan = [item("Fix the notes", "in_progress", check=CHECK), item("Port to Windows", "pending")]
    api.add({"content": [write(*plan, item("Report", "pending"))]})
    api.add({"content": [done_too_soon]})
    api.add({"content": [tool_use("bash", {"command": "echo fixed > notes.txt"})]})
    api.add({"content": [again]})
    api.add({"content": [text("Fixed; the report comes next time.")]})
    api.add({"content": [text("The report is still open.")]})  # the guard's turn
    # Headless, no --yes: the check runs only because the sandbox lets bash run freely.
    first = run_cli("-p", "fix the notes", "--output-format", "json", cwd=workspace, env=env)
    assert first.returncode == 0, first.stderr

    refused = results_by_id(api.accepted[2])[done_too_soon["id"]]
    assert refused["is_error"] is True and "[exit code: 1]" in refused["content"]
    assert "is_error" not in results_by_id(api.accepted[4])[again["id"]]
    summary = json.loads(first.stdout)
    assert summary["plan"] == [
        item("Fix the notes", "completed", check=CHECK, verified=True),
        item("Port to Windows", "cancelled", reason="out of scope"),
        item("Report", "in_progress"),
    ]
    assert "✓ checked" in first.stderr  # the checklist as it changed

    session = the_session(isolated_home)
    view = run_cli("--view", "latest", cwd=workspace, env=env)
    page = Path(view.stdout.strip()).read_text()
    assert '☑ Fix the notes <span class="proof checked">✓ checked</span>' in page
    assert "<s>Port to Windows</s>" in page
    assert "v2: Fix the notes: in_progress → completed (✓ checked)" in page

    # Resumed: the proof is kept (the check is not run again, though it would fail now), the
    # cancelled item goes, the record goes on at version 3.
    (workspace / "notes.txt").write_text("broken again\n")
    api.add({"content": [write(item("Fix the notes", "completed", check=CHECK),
                               item("Report", "completed"))]})  # fmt: skip
    api.add({"content": [text("Reported.")]})
    resumed = run_cli(
        "-p", "report", "--resume", "latest", "--output-format", "json", cwd=workspace, env=env
    )
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["plan"] == [
        item("Fix the notes", "completed", check=CHECK, verified=True),
        item("Report", "completed"),
    ]
    extra = read_session(session)[1]
    assert [entry["version"] for entry in extra["todo_history"]] == [1, 2, 3]
    assert extra["todo_history"][2]["changes"] == [
        ["status", "Report", "in_progress", "completed", "claimed"],
        ["dropped", "Port to Windows"],
    ]


def test_headless_without_a_sandbox_a_check_needs_yes(api, env, workspace):
    call = write(item("Make the file", "completed", check="touch ran"))
    api.add({"content": [call]})
    api.add({"content": [text("stop")]})  # no list was stored, so no guard turn follows
    result = run_cli("-p", "go", "--no-sandbox", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    refused = results_by_id(api.accepted[1])[call["id"]]
    assert refused["is_error"] is True
    assert "The check was not run" in refused["content"] and "--yes" in refused["content"]
    assert not (workspace / "ran").exists()

    api.add({"content": [call]})
    api.add({"content": [text("done")]})
    allowed = run_cli("-p", "go", "--no-sandbox", "--yes", cwd=workspace, env=env)
    assert allowed.returncode == 0, allowed.stderr
    assert (workspace / "ran").exists()
