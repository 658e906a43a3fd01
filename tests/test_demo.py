"""`--demo`: the scripted session plays end to end with no key and no endpoint of the user's."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import spawn

AGENT = Path(__file__).resolve().parent.parent / "agent.py"


def test_demo_runs_with_no_key_and_shows_the_reminder_and_the_guard(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    # An endpoint nobody listens on: the demo must use its own local fake, never this one.
    env |= {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "PLANLOOP_DEMO_FAST": "1"}
    env |= {"PLANLOOP_HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path), "COLUMNS": "200"}
    demo = spawn.run(
        [sys.executable, str(AGENT), "--demo"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    out = demo.stdout
    assert "the reminder was added after the tool results" in out
    assert "the finalization guard sent them back" in out
    assert "ok: greet works" in out  # the real bash tool ran the test the model wrote
    assert "10 model calls, all accepted by the strict fake API" in out

    # The last line is the command that shows the session as a page; it works.
    command = out.strip().splitlines()[-1]
    session = command.split("--view ", 1)[1].strip()
    assert Path(session).is_relative_to(tmp_path)  # everything stayed in the temporary folder
    viewed = spawn.run(
        [sys.executable, str(AGENT), "--view", session],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert viewed.returncode == 0, viewed.stderr
    page = Path(viewed.stdout.strip()).read_text()
    assert page.count('class="call"') == 10
    assert 'class="added reminder"' in page and 'class="added correction"' in page
