"""The interactive session in a real terminal (a pseudo-terminal), typed into like a person."""

from __future__ import annotations

import codecs
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import API_KEY, results_by_id, wait_for_file

from fakeapi import text, tool_use

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """agent.py on a pseudo-terminal: type keys, wait for text on the screen."""

    def __init__(self, cwd: Path, env: dict, *args: str) -> None:
        self.master, replica = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, str(AGENT), *args],
            cwd=cwd,
            env=env,
            stdin=replica,
            stdout=replica,
            stderr=replica,
            start_new_session=True,
        )
        os.close(replica)
        self.screen = ""
        self.raw = ""  # everything written to the terminal, escape sequences included
        self.cursor = 0
        # A read can end inside a multi-byte character (the prompt's "›"); decode across reads.
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def ctrl_c(self) -> None:
        # The terminal turns the key into SIGINT for the foreground process; send it directly.
        self.proc.send_signal(2)

    def wait_for(self, pattern: str, timeout: float = 15) -> str:
        """Wait until `pattern` appears after the previous match; return the text up to it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.screen.find(pattern, self.cursor)
            if found >= 0:
                seen, self.cursor = self.screen[self.cursor : found], found + len(pattern)
                return seen
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                try:
                    chunk = self.decoder.decode(os.read(self.master, 65536))
                except OSError:
                    break
                self.raw += chunk
                self.screen += ANSI.sub("", chunk).replace("\r", "")
        raise AssertionError(f"{pattern!r} did not appear; screen so far:\n{self.screen}")

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=15)
        finally:
            if self.master >= 0:
                os.close(self.master)
                self.master = -1


@pytest.fixture
def terminal(api, workspace, isolated_home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(
        ANTHROPIC_API_KEY=API_KEY,
        ANTHROPIC_BASE_URL=api.base_url,
        MODEL_ID="test-model",
        PLANLOOP_HOME=str(isolated_home),
        TERM="dumb",
        NO_COLOR="1",
        COLUMNS="100",
    )
    # Without the sandbox, so that bash asks first: these tests answer the question.
    term = Terminal(workspace, env, "--no-sandbox")
    yield term
    if term.proc.poll() is None:
        term.proc.kill()
        term.close()


def test_ctrl_c_cancels_the_turn_and_the_session_goes_on(api, terminal, workspace):
    slow = tool_use("bash", {"command": "touch started; sleep 30; touch finished"})
    api.add({"content": [text("Running it."), slow]})
    api.add({"content": [text("Hi again.")]})
    terminal.wait_for("› ")
    terminal.type("run the slow thing\n")
    terminal.wait_for("[a]lways for this session:")
    terminal.type("y\n")
    wait_for_file(workspace / "started")
    terminal.ctrl_c()
    terminal.wait_for("Interrupted by the user.")
    terminal.wait_for("› ")
    terminal.type("hello\n")
    terminal.wait_for("Hi again.")
    terminal.wait_for("› ")
    terminal.type("\x04")  # Ctrl-D at the prompt
    terminal.wait_for("Resume with: python agent.py --resume")
    assert terminal.close() == 0
    assert not (workspace / "finished").exists()
    result = results_by_id(api.accepted[1])[slow["id"]]
    assert result["is_error"] is True and "Interrupted by the user" in result["content"]


def test_declined_command_sends_the_reason_and_always_stops_asking(api, terminal, workspace):
    first = tool_use("bash", {"command": "rm -rf build"})
    second = tool_use("bash", {"command": "touch made-1"})
    third = tool_use("bash", {"command": "touch made-2"})
    api.add({"content": [first]})
    api.add({"content": [second]})
    api.add({"content": [third]})
    api.add({"content": [text("All set.")]})
    terminal.wait_for("› ")
    terminal.type("clean up\n")
    terminal.wait_for("rm -rf build")
    terminal.wait_for("for this session:")
    terminal.type("n\n")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("keep the build folder\n")
    terminal.wait_for("for this session:")
    terminal.type("a\n")
    terminal.wait_for("All set.")  # the third command ran without a question
    terminal.wait_for("› ")
    terminal.type("/todos\n")
    terminal.wait_for("(no plan yet)")
    terminal.wait_for("› ")
    terminal.type("/exit\n")
    assert terminal.close() == 0
    declined = results_by_id(api.accepted[1])[first["id"]]
    assert declined["is_error"] is True
    assert (
        declined["content"]
        == "The user declined this command. The user said: keep the build folder"
    )
    assert (workspace / "made-1").exists() and (workspace / "made-2").exists()
    assert terminal.screen.count("for this session:") == 2


def test_checklist_is_shown_when_the_plan_changes(api, terminal):
    plan = {
        "todos": [
            {"content": "Read the code", "status": "completed"},
            {"content": "Write the fix", "status": "in_progress"},
        ]
    }
    api.add({"content": [tool_use("todo_write", plan)]})
    api.add({"content": [text("Working on the fix.")]})
    api.add({"content": [text("Still working on it.")]})  # the guard's one correction
    terminal.wait_for("› ")
    terminal.type("fix it\n")
    shown = terminal.wait_for("Still working on it.")
    assert "todos 1/2" in shown
    assert "[x] Read the code" in shown and "[>] Write the fix" in shown
    terminal.wait_for("› ")
    terminal.type("/todos\n")  # the same list again, on demand
    shown = terminal.wait_for("› ")
    assert "todos 1/2" in shown
    assert "[x] Read the code" in shown and "[>] Write the fix" in shown
    terminal.type("\x04")
    assert terminal.close() == 0


def test_a_temporary_api_error_returns_to_the_prompt_with_nothing_lost(api, terminal):
    overloaded = {
        "status": 529,
        "error": {"type": "overloaded_error", "message": "Overloaded"},
        "headers": {"retry-after-ms": "1"},  # keep the SDK's own retries quick
    }
    for _ in range(3):  # the first try and the SDK's two retries
        api.add(overloaded)
    api.add({"content": [text("Back online.")]})
    terminal.wait_for("› ")
    terminal.type("hello\n")
    terminal.wait_for("type 'continue' to try again")
    terminal.wait_for("› ")
    terminal.type("continue\n")
    terminal.wait_for("Back online.")
    terminal.wait_for("› ")
    terminal.type("\x04")
    assert terminal.close() == 0
    [message] = api.accepted[-1]["messages"]
    assert [b["text"] for b in message["content"]] == ["hello", "continue"]


def test_ctrl_c_at_the_approval_question_cancels_the_turn(api, terminal, workspace):
    call = tool_use("bash", {"command": "touch never"})
    api.add({"content": [call]})
    api.add({"content": [text("Understood.")]})
    terminal.wait_for("› ")
    terminal.type("make a file\n")
    terminal.wait_for("for this session:")
    terminal.ctrl_c()
    terminal.wait_for("Interrupted by the user.")
    terminal.wait_for("› ")
    terminal.type("never mind\n")
    terminal.wait_for("Understood.")
    terminal.wait_for("› ")
    terminal.type("/exit\n")
    assert terminal.close() == 0
    assert not (workspace / "never").exists()
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True and "Interrupted by the user" in result["content"]


def test_ctrl_c_at_an_empty_prompt_exits_cleanly(terminal):
    terminal.wait_for("› ")
    terminal.ctrl_c()
    assert terminal.close() == 0


def test_permissions_command_shows_the_policy(terminal):
    terminal.wait_for("› ")
    terminal.type("/permissions\n")
    shown = terminal.wait_for("› ")
    assert "bash" in shown and "asks" in shown and "no sandbox" in shown
    assert ".git/" in shown and ".env*" in shown
    terminal.type("\x04")
    assert terminal.close() == 0


def test_a_protected_write_asks_first_and_a_no_writes_nothing(api, terminal, workspace):
    call = tool_use("write_file", {"path": ".env", "content": "ANTHROPIC_BASE_URL=http://x.test\n"})
    api.add({"content": [call]})
    api.add({"content": [text("Left it alone.")]})
    terminal.wait_for("› ")
    terminal.type("change the endpoint\n")
    terminal.wait_for("Allow write_file on a protected path?")
    terminal.wait_for("for this session:")
    terminal.type("n\n")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("\n")
    terminal.wait_for("Left it alone.")
    terminal.wait_for("› ")
    terminal.type("\x04")
    assert terminal.close() == 0
    assert not (workspace / ".env").exists()
    assert results_by_id(api.accepted[1])[call["id"]]["is_error"] is True


ESCAPES = "\x1b]0;pwned\x07 \x1b]52;c;cGF3bmVk\x07 \x1b[2J"  # title, clipboard, clear screen
SHOWN = "␛]0;pwned␇ ␛]52;c;cGF3bmVk␇ ␛[2J"


def test_escape_sequences_from_model_bash_and_files_are_shown_not_obeyed(api, terminal, workspace):
    (workspace / "notes.txt").write_text(f"file says {ESCAPES}\n")
    api.add(
        {"content": [text(f"model says {ESCAPES}"), tool_use("read_file", {"path": "notes.txt"})]}
    )
    api.add({"content": [tool_use("bash", {"command": "cat notes.txt | sed s/file/bash/"})]})
    api.add({"content": [text("Done.")]})
    terminal.wait_for("› ")
    terminal.type("show me\n")
    terminal.wait_for(f"model says {SHOWN}")
    terminal.wait_for(f"file says {SHOWN}")
    terminal.wait_for("for this session:")
    terminal.type("y\n")
    terminal.wait_for(f"bash says {SHOWN}")
    terminal.wait_for("Done.")
    terminal.wait_for("› ")
    terminal.type("\x04")
    assert terminal.close() == 0
    for sequence in ("\x1b]", "\x07", "\x1b[2J"):
        assert sequence not in terminal.raw


def test_a_spoofed_command_is_shown_in_full_and_vague_answers_are_asked_again(
    api, terminal, workspace
):
    spoof = "touch HIDDEN_RAN #\x1b[2K\x1b[G│ ls -la"
    call = tool_use("bash", {"command": spoof})
    api.add({"content": [call]})
    api.add({"content": [text("Not run, then.")]})
    terminal.wait_for("› ")
    terminal.type("list files\n")
    shown = terminal.wait_for("for this session:")
    assert "touch HIDDEN_RAN #␛[2K␛[G│ ls -la" in shown
    assert "control characters" in shown and "no default" in shown
    terminal.type("yes please\n")
    terminal.wait_for("Please type y, n or a")
    terminal.wait_for("for this session:")
    terminal.type("\n")  # a bare Enter is not an answer either
    terminal.wait_for("Please type y, n or a")
    terminal.wait_for("for this session:")
    terminal.type("no\n")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("looks odd\n")
    terminal.wait_for("Not run, then.")
    terminal.wait_for("› ")
    terminal.type("/exit\n")
    assert terminal.close() == 0
    assert not (workspace / "HIDDEN_RAN").exists()
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["content"] == "The user declined this command. The user said: looks odd"


def test_cost_command_and_closing_line_show_the_session_totals(api, terminal):
    api.add({"content": [text("Hello.")], "usage": {"input_tokens": 1200, "output_tokens": 30}})
    terminal.wait_for("› ")
    terminal.type("/cost\n")
    terminal.wait_for("No model calls yet")
    terminal.type("hi\n")
    terminal.wait_for("Hello.")
    terminal.wait_for("1,200 in · 0 cache read · 0 cache write · 30 out")
    terminal.wait_for("› ")
    terminal.type("/cost\n")
    terminal.wait_for("session total: 1 model call · 1,200 in")
    terminal.wait_for("› ")
    terminal.type("\x04")
    terminal.wait_for("session total: 1 model call · 1,200 in")
    terminal.wait_for("Resume with: python agent.py --resume")
    assert terminal.close() == 0
