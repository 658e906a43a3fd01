"""Seeing the whole output: a result's first and last lines, /output, a running command's last
lines under the spinner, /tasks show, and the question before leaving stops running tasks."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest
from conftest import read_pid, terminal_env
from test_interactive import Terminal
from test_tasks import is_running

from cli.render import last_lines, result_preview
from fakeapi import text, tool_use
from tools.bash import run_bash
from tools.process import LIVE_INTERVAL_SECONDS, output_heard_by

# Terminals, signals and background tasks: CI runs these again as real execs.
pytestmark = pytest.mark.real_exec

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")

# Forty numbered rows, then the line a person needs: it comes last, as in a failing test run.
LONG = "for i in $(seq 1 40); do echo row-$i; done; echo 'AssertionError: expected 3, got 4'; false"
# Prints a line, then waits for the test to create `go`. The line is computed, so the screen
# shows it only as output, never as part of the command.
LIVE = "echo live-$((6 * 7)); while [ ! -e go ]; do sleep 0.02; done; echo after-go"
# A background server: thirty rows, its pid, then it runs until it is stopped.
SERVER = "for i in $(seq 1 30); do echo request-$i; done; echo $$ > server.pid; sleep 600"


def pager_terminal(api, workspace: Path, home: Path, *args: str) -> Terminal:
    """planloop in a pseudo-terminal whose pager is cat: what it pages lands on the screen."""
    return Terminal(workspace, {**terminal_env(api, home), "PAGER": "cat"}, *args)


def approve(terminal: Terminal) -> None:
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")


# ---- the preview ----------------------------------------------------------------------------


def test_a_long_result_is_previewed_by_its_first_and_last_lines():
    lines = [f"row-{n}" for n in range(1, 41)] + ["AssertionError: boom", "[exit code: 1]"]
    shown = result_preview("\n".join(lines)).splitlines()
    assert shown[:3] == ["row-1", "row-2", "row-3"]
    assert shown[3] == "… 34 more lines (/output shows all) …"
    assert shown[-5:] == ["row-38", "row-39", "row-40", "AssertionError: boom", "[exit code: 1]"]


def test_a_result_barely_longer_than_the_preview_is_shown_whole():
    nine = "\n".join(f"row-{n}" for n in range(1, 10))
    assert result_preview(nine) == nine  # hiding one line would save nothing


def test_live_lines_are_the_last_ones_made_visible_and_a_progress_bar_shows_its_latest_state():
    output = "build\n\x1b]0;pwned\x07step 1\n\n  10%\r  50%\r 100%\nlast\tword\n"
    assert last_lines(output, 3) == ["␛]0;pwned␇step 1", " 100%", "last    word"]


# ---- the listener of a running command ---------------------------------------------------------


def test_a_line_printed_before_a_long_wait_reaches_the_listener(tmp_path):
    heard: list[str] = []

    def listener(text: str) -> None:  # lets the command end once its first line was heard
        heard.append(text)
        if "live-42" in text:
            (tmp_path / "go").touch()

    async def scenario() -> str:
        with output_heard_by(listener):
            return await run_bash(tmp_path, LIVE, timeout=30)

    result = asyncio.run(scenario())
    assert result.endswith("live-42\nafter-go\n[exit code: 0]")
    assert heard and "live-42" in heard[0]


def test_a_command_that_prints_fast_is_passed_on_at_most_ten_times_a_second(tmp_path):
    calls: list[str] = []

    async def scenario() -> str:
        with output_heard_by(calls.append):
            return await run_bash(tmp_path, "seq 1 3000000", timeout=120)

    started = time.monotonic()
    result = asyncio.run(scenario())
    elapsed = time.monotonic() - started
    assert "2999999\n3000000\n" in result and result.endswith("[exit code: 0]")
    assert len(calls) <= elapsed / LIVE_INTERVAL_SECONDS + 1
    assert all(len(call) <= 4096 for call in calls)  # the newest output only, not all of it


# ---- in a terminal -----------------------------------------------------------------------------


def test_the_failing_line_at_the_end_is_on_screen_and_output_pages_the_whole_result(
    api, workspace, isolated_home
):
    api.add({"content": [tool_use("bash", {"command": LONG})]})
    api.add({"content": [tool_use("bash", {"command": "echo second-call"})]})
    api.add({"content": [text("One test fails.")]})
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("run the tests\r")
        approve(terminal)
        shown = terminal.wait_for("AssertionError: expected 3, got 4")
        assert "row-1\nrow-2\nrow-3\n… 34 more lines (/output shows all) …\nrow-38\n" in shown
        assert "row-20" not in shown
        approve(terminal)
        terminal.wait_for("One test fails.")
        terminal.wait_for_prompt()
        terminal.type("/output\r")  # the last call
        paged = terminal.wait_for_prompt()
        assert "> bash echo second-call  (tool call 2 of 2)\nsecond-call\n[exit code: 0]" in paged
        terminal.type("/output 2\r")  # the one before
        paged = terminal.wait_for_prompt()
        rows = "\n".join(f"row-{n}" for n in range(1, 41))
        assert f"(tool call 1 of 2)\n{rows}\nAssertionError: expected 3, got 4\n" in paged
        terminal.type("/output 3\r")
        terminal.wait_for("This session has 2 tool results; /output 2 is the first.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0


def test_output_before_any_tool_call_says_there_is_none(api, workspace, isolated_home):
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("/output\r")
        terminal.wait_for("No tool call has a result yet in this session.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0


def watch_the_live_line(api, terminal: Terminal, workspace: Path) -> None:
    """The command's line is on screen under the spinner while it runs, and sanitized."""
    terminal.wait_for("running bash")
    terminal.wait_for("live-42")  # `go` does not exist yet: this is the live view
    assert "\x1b]0;pwned" not in terminal.raw  # the title sequence was shown, not obeyed
    assert "␛]0;pwned" in terminal.screen
    (workspace / "go").touch()
    terminal.wait_for("after-go")
    terminal.wait_for("Built.")
    terminal.wait_for_prompt()
    terminal.type("\x04")
    assert terminal.close() == 0


LIVE_AND_TITLE = "printf '\\033]0;pwned\\007 title\\n'; " + LIVE


def test_a_running_command_shows_its_last_line_under_the_spinner(api, workspace, isolated_home):
    api.add({"content": [tool_use("bash", {"command": LIVE_AND_TITLE})]})
    api.add({"content": [text("Built.")]})
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("build it\r")
        approve(terminal)
        watch_the_live_line(api, terminal, workspace)


@needs_bwrap
def test_a_sandboxed_command_shows_its_last_line_under_the_spinner(api, workspace, isolated_home):
    api.add({"content": [tool_use("bash", {"command": LIVE_AND_TITLE})]})
    api.add({"content": [text("Built.")]})
    with pager_terminal(api, workspace, isolated_home) as terminal:
        terminal.wait_for_prompt()
        terminal.type("build it\r")  # in the sandbox bash runs without a question
        watch_the_live_line(api, terminal, workspace)


def start_server(api, terminal: Terminal, workspace: Path) -> int:
    api.add({"content": [tool_use("bash", {"command": SERVER, "run_in_background": True})]})
    api.add({"content": [text("The server runs as bg-1.")]})
    terminal.wait_for_prompt()
    terminal.type("start the server\r")
    approve(terminal)
    terminal.wait_for("The server runs as bg-1.")
    terminal.wait_for_prompt()
    return read_pid(workspace / "server.pid")


def test_tasks_show_pages_a_running_tasks_output(api, workspace, isolated_home):
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        start_server(api, terminal, workspace)
        terminal.type("/tasks show bg-1\r")
        paged = terminal.wait_for_prompt()
        assert "bg-1 · running for" in paged and f"· {SERVER[:20]}" in paged
        rows = "\n".join(f"request-{n}" for n in range(1, 31))
        assert rows in paged
        terminal.type("/tasks show bg-7\r")
        terminal.wait_for("No background task bg-7 (tasks: bg-1).")
        terminal.wait_for_prompt()
        terminal.type("/exit\r")
        terminal.wait_for("Leave and stop it? [y]es / [n]o:")
        terminal.type("y\r")
        assert terminal.close() == 0


def test_leaving_with_a_task_running_asks_first_and_no_returns_to_the_prompt(
    api, workspace, isolated_home
):
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        pid = start_server(api, terminal, workspace)
        terminal.type("\x04")  # Ctrl-D
        terminal.wait_for("Still running: bg-1 (for i in $(seq 1 30)")
        terminal.wait_for("Leave and stop it? [y]es / [n]o:")
        terminal.type("maybe\r")
        terminal.wait_for("Please type y or n (not 'maybe').")
        terminal.type("n\r")
        terminal.wait_for_prompt()
        assert is_running(pid)
        terminal.type("/tasks\r")
        assert "bg-1   running" in terminal.wait_for_prompt()
        terminal.type("/exit\r")
        terminal.wait_for("Leave and stop it? [y]es / [n]o:")
        terminal.type("y\r")
        closing = " ".join(terminal.wait_for("Resume with").split())
        assert terminal.close() == 0
        assert "Background tasks still running were stopped: bg-1 (" in closing
        assert not is_running(pid)


def test_leaving_with_no_task_running_asks_nothing(api, workspace, isolated_home):
    api.add({"content": [tool_use("bash", {"command": "echo quick", "run_in_background": True})]})
    api.add({"content": [text("Started.")]})
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("start it\r")
        approve(terminal)
        terminal.wait_for("Started.")
        terminal.wait_for("bg-1 exited with code 0")  # it ended on its own
        terminal.wait_for_prompt()
        terminal.type("\x04")
        terminal.wait_for("Resume with")
        assert terminal.close() == 0
        assert "Leave and stop" not in terminal.screen


def test_sigterm_at_the_leaving_question_ends_planloop_and_its_tasks(api, workspace, isolated_home):
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        pid = start_server(api, terminal, workspace)
        terminal.type("\x04")
        terminal.wait_for("Leave and stop it? [y]es / [n]o:")
        terminal.proc.terminate()  # the question must not hold planloop up
        terminal.wait_for("ended by SIGTERM")
        assert terminal.close() == 143
        assert not is_running(pid)


def test_ctrl_c_at_the_leaving_question_returns_to_the_prompt(api, workspace, isolated_home):
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        pid = start_server(api, terminal, workspace)
        terminal.type("\x04")
        terminal.wait_for("Leave and stop it? [y]es / [n]o:")
        terminal.ctrl_c()
        terminal.wait_for_prompt()
        assert is_running(pid)
        terminal.type("\x04")
        terminal.wait_for("Leave and stop it? [y]es / [n]o:")
        terminal.type("\x04")  # a second Ctrl-D: yes
        terminal.wait_for("Resume with")
        assert terminal.close() == 0
        assert not is_running(pid)
