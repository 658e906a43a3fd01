"""The interactive session in a real terminal (a pseudo-terminal), typed into like a person."""

from __future__ import annotations

import codecs
import os
import pty
import re
import select
import signal
import sys
import time
from pathlib import Path

import pytest
import spawn
from conftest import results_by_id, terminal_env, wait_for_file

from fakeapi import text, tool_use
from session import read_session

# Signals, terminals, background tasks and crashes: CI runs these again as real execs.
pytestmark = pytest.mark.real_exec

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
# Escape sequences: CSI (colours, cursor moves), OSC (titles), and the short two-byte ones.
ANSI = re.compile(
    r"\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]"
)
# prompt_toolkit turns bracketed paste on each time it draws the prompt, once the terminal is
# in raw mode and keys reach it: the moment a person can type.
PROMPT_READY = "\x1b[?2004h"
PROMPT_MARK = "[prompt]"
TERMINAL_ENV = {
    "TERM": "xterm",  # a real terminal: the prompt is drawn only once it reads keys
    "PROMPT_TOOLKIT_NO_CPR": "1",  # this test terminal does not answer cursor-position queries
}


class Terminal:
    """agent.py on a pseudo-terminal: type keys, wait for text on the screen."""

    def __init__(self, cwd: Path, env: dict, *args: str) -> None:
        self.master, replica = pty.openpty()
        self.proc = spawn.Popen(
            [sys.executable, str(AGENT), *args],
            cwd=cwd,
            env={**env, **TERMINAL_ENV},
            stdin=replica,
            stdout=replica,
            stderr=replica,
            start_new_session=True,
        )
        os.close(replica)
        self.raw = ""  # everything the program wrote, escape sequences included
        self.screen = ""  # the same as text: escape sequences removed, the prompt marked
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
                # A read can also end inside an escape sequence: strip the whole text again.
                self.raw += chunk
                marked = self.raw.replace(PROMPT_READY, PROMPT_MARK)
                self.screen = ANSI.sub("", marked).replace("\r", "")
        raise AssertionError(f"{pattern!r} did not appear; screen so far:\n{self.screen}")

    def wait_for_prompt(self) -> str:
        """Wait until the prompt is drawn and reads keys; return the text before it."""
        return self.wait_for(PROMPT_MARK)

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=15)
        finally:
            if self.master >= 0:
                os.close(self.master)
                self.master = -1

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        """A test that failed half way leaves no planloop running behind it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.close()


@pytest.fixture
def terminal(api, workspace, isolated_home):
    env = terminal_env(api, isolated_home)
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
    terminal.wait_for_prompt()
    terminal.type("run the slow thing\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    wait_for_file(workspace / "started")
    terminal.ctrl_c()
    terminal.wait_for("Interrupted by the user.")
    terminal.wait_for_prompt()
    terminal.type("hello\r")
    terminal.wait_for("Hi again.")
    terminal.wait_for_prompt()
    terminal.type("\x04")  # Ctrl-D at the prompt
    terminal.wait_for("agent.py --resume")  # the command as it was started
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
    terminal.wait_for_prompt()
    terminal.type("clean up\r")
    terminal.wait_for("rm -rf build")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("n\r")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("keep the build folder\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("a\r")
    terminal.wait_for("All set.")  # the third command ran without a question
    terminal.wait_for_prompt()
    terminal.type("/todos\r")
    terminal.wait_for("(no plan yet)")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    declined = results_by_id(api.accepted[1])[first["id"]]
    assert declined["is_error"] is True
    assert (
        declined["content"]
        == "The user declined this command. The user said: keep the build folder"
    )
    assert (workspace / "made-1").exists() and (workspace / "made-2").exists()
    assert terminal.screen.count("[y]es / [n]o") == 2


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
    terminal.wait_for_prompt()
    terminal.type("fix it\r")
    shown = terminal.wait_for("Still working on it.")
    assert "todos 1/2" in shown
    assert "[x] Read the code" in shown and "[>] Write the fix" in shown
    terminal.wait_for_prompt()
    terminal.type("/todos\r")  # the same list again, on demand
    shown = terminal.wait_for_prompt()
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
    terminal.wait_for_prompt()
    terminal.type("hello\r")
    terminal.wait_for("type 'continue' to try again")
    terminal.wait_for_prompt()
    terminal.type("continue\r")
    terminal.wait_for("Back online.")
    terminal.wait_for_prompt()
    terminal.type("\x04")
    assert terminal.close() == 0
    [message] = api.accepted[-1]["messages"]
    assert [b["text"] for b in message["content"]] == ["hello", "continue"]


def test_ctrl_c_at_the_approval_question_cancels_the_turn(api, terminal, workspace):
    call = tool_use("bash", {"command": "touch never"})
    api.add({"content": [call]})
    api.add({"content": [text("Understood.")]})
    terminal.wait_for_prompt()
    terminal.type("make a file\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.ctrl_c()
    terminal.wait_for("Interrupted by the user.")
    terminal.wait_for_prompt()
    terminal.type("never mind\r")
    terminal.wait_for("Understood.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert not (workspace / "never").exists()
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True and "Interrupted by the user" in result["content"]


def test_two_ctrl_c_at_the_prompt_leave_and_one_only_clears_the_line(api, terminal):
    api.add({"content": [text("Fresh start.")]})
    terminal.wait_for_prompt()
    terminal.type("half a thought")
    terminal.wait_for("half a thought")
    terminal.ctrl_c()  # drops the line for a fresh prompt; does not count towards leaving
    terminal.wait_for_prompt()
    terminal.ctrl_c()  # on the empty line: the first of two
    shown = terminal.wait_for("Ctrl-C again to leave")
    assert "Ctrl-C again" not in shown
    terminal.wait_for_prompt()
    terminal.type("hello\r")
    terminal.wait_for("Fresh start.")
    terminal.wait_for_prompt()
    terminal.ctrl_c()
    terminal.wait_for("Ctrl-C again to leave")
    terminal.wait_for_prompt()
    terminal.ctrl_c()
    assert terminal.close() == 0
    [message] = api.accepted[0]["messages"]
    assert message["content"][0]["text"] == "hello"  # the cleared line was never sent


def test_a_pasted_multi_line_prompt_is_one_prompt(api, terminal):
    api.add({"content": [text("Got all three.")]})
    terminal.wait_for_prompt()
    terminal.type("\x1b[200~first line\rsecond line\rthird line\x1b[201~")  # a bracketed paste
    terminal.wait_for("third line")
    terminal.type("\r")
    terminal.wait_for("Got all three.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert len(api.accepted) == 1
    [message] = api.accepted[0]["messages"]
    assert message["content"][0]["text"] == "first line\nsecond line\nthird line"


def test_alt_enter_starts_a_new_line_in_the_same_prompt(api, terminal):
    api.add({"content": [text("Two lines received.")]})
    terminal.wait_for_prompt()
    terminal.type("line one\x1b\r")  # Alt-Enter: Esc, then Enter
    terminal.type("line two")
    terminal.wait_for("line two")
    terminal.type("\r")
    terminal.wait_for("Two lines received.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    [message] = api.accepted[0]["messages"]
    assert message["content"][0]["text"] == "line one\nline two"


def test_help_lists_the_commands_and_an_unknown_one_is_refused_locally(api, terminal):
    terminal.wait_for_prompt()
    terminal.type("/help\r")
    shown = terminal.wait_for_prompt()
    assert "/todos" in shown and "show the plan" in shown and "/exit" in shown
    terminal.type("/frobnicate now\r")
    shown = terminal.wait_for_prompt()
    assert "Unknown command /frobnicate" in shown and "/help" in shown
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert api.requests == []  # nothing went to the model


def test_up_arrow_recalls_prompts_but_never_approval_answers(api, terminal, isolated_home):
    api.add({"content": [tool_use("bash", {"command": "echo hi"})]})
    api.add({"content": [text("Ran it.")]})
    api.add({"content": [text("Again.")]})
    terminal.wait_for_prompt()
    terminal.type("say hi\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    terminal.wait_for("Ran it.")
    terminal.wait_for_prompt()
    terminal.type("\x1b[A")  # ↑ brings back the last prompt, not the "y"
    terminal.wait_for("say hi")
    terminal.type("\r")
    terminal.wait_for("Again.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert api.accepted[2]["messages"][-1]["content"][-1]["text"] == "say hi"
    history = (isolated_home / "prompt-history").read_text()
    assert "+say hi" in history and "+y" not in history


def test_a_second_ctrl_c_right_after_a_cancelled_turn_does_not_leave(api, terminal, workspace):
    slow = tool_use("bash", {"command": "touch started; sleep 30"})
    api.add({"content": [slow]})
    api.add({"content": [text("Still here.")]})
    terminal.wait_for_prompt()
    terminal.type("run it\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    wait_for_file(workspace / "started")
    terminal.ctrl_c()  # cancels the turn
    terminal.wait_for("Interrupted by the user.")
    terminal.ctrl_c()  # right after: at most clears the (empty) line
    terminal.wait_for("Ctrl-C again to leave")
    terminal.wait_for_prompt()
    terminal.type("are you there\r")
    terminal.wait_for("Still here.")
    terminal.wait_for_prompt()
    terminal.type("\x04")
    assert terminal.close() == 0


def test_sighup_in_a_turn_kills_the_command_saves_and_exits_129(
    api, terminal, workspace, isolated_home
):
    slow = tool_use("bash", {"command": "touch started; sleep 30; touch finished"})
    api.add({"content": [slow]})
    terminal.wait_for_prompt()
    terminal.type("run it\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    wait_for_file(workspace / "started")
    terminal.proc.send_signal(signal.SIGHUP)  # what closing the terminal window sends
    terminal.wait_for("ended by SIGHUP")
    terminal.wait_for("Resume with:")
    assert terminal.close() == 129
    assert not (workspace / "finished").exists()
    [session] = sorted((isolated_home / "sessions").glob("*/*.jsonl"))
    last = read_session(session)[0][-1]
    assert last["role"] == "user" and last["content"][0]["is_error"] is True


def test_sigterm_at_the_approval_question_cancels_saves_and_exits_143(
    api, terminal, workspace, isolated_home
):
    call = tool_use("bash", {"command": "touch never"})
    api.add({"content": [call]})
    terminal.wait_for_prompt()
    terminal.type("make a file\r")
    terminal.wait_for("[y]es / [n]o")
    terminal.proc.send_signal(signal.SIGTERM)
    terminal.wait_for("ended by SIGTERM")
    assert terminal.close() == 143
    assert not (workspace / "never").exists()
    [session] = sorted((isolated_home / "sessions").glob("*/*.jsonl"))
    last = read_session(session)[0][-1]
    assert last["role"] == "user" and last["content"][0]["tool_use_id"] == call["id"]
    assert last["content"][0]["is_error"] is True


def test_sigterm_at_the_prompt_saves_and_exits_143(api, terminal):
    api.add({"content": [text("Hello.")]})
    terminal.wait_for_prompt()
    terminal.type("hi\r")
    terminal.wait_for("Hello.")
    terminal.wait_for_prompt()
    terminal.proc.send_signal(signal.SIGTERM)
    terminal.wait_for("ended by SIGTERM")
    terminal.wait_for("Resume with:")
    assert terminal.close() == 143


def test_permissions_command_shows_the_policy(terminal):
    terminal.wait_for_prompt()
    terminal.type("/permissions\r")
    shown = terminal.wait_for_prompt()
    assert "bash" in shown and "asks" in shown and "no sandbox" in shown
    assert ".git/" in shown and ".env*" in shown
    terminal.type("\x04")
    assert terminal.close() == 0


def test_a_protected_write_asks_first_and_a_no_writes_nothing(api, terminal, workspace):
    call = tool_use("write_file", {"path": ".env", "content": "ANTHROPIC_BASE_URL=http://x.test\n"})
    api.add({"content": [call]})
    api.add({"content": [text("Left it alone.")]})
    terminal.wait_for_prompt()
    terminal.type("change the endpoint\r")
    terminal.wait_for("Allow write_file on a protected path?")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("n\r")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("\r")
    terminal.wait_for("Left it alone.")
    terminal.wait_for_prompt()
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
    terminal.wait_for_prompt()
    terminal.type("show me\r")
    terminal.wait_for(f"model says {SHOWN}")
    terminal.wait_for(f"file says {SHOWN}")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("y\r")
    terminal.wait_for(f"bash says {SHOWN}")
    terminal.wait_for("Done.")
    terminal.wait_for_prompt()
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
    terminal.wait_for_prompt()
    terminal.type("list files\r")
    shown = terminal.wait_for("[y]es / [n]o")
    assert "touch HIDDEN_RAN #␛[2K␛[G│ ls -la" in shown
    assert "control characters" in shown and "no default" in shown
    terminal.type("yes please\r")
    terminal.wait_for("Please type y or n")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("\r")  # a bare Enter is not an answer either
    terminal.wait_for("Please type y or n")
    terminal.wait_for("[y]es / [n]o")
    terminal.type("no\r")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("looks odd\r")
    terminal.wait_for("Not run, then.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert not (workspace / "HIDDEN_RAN").exists()
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["content"] == "The user declined this command. The user said: looks odd"


def test_cost_command_and_closing_line_show_the_session_totals(api, terminal):
    api.add({"content": [text("Hello.")], "usage": {"input_tokens": 1200, "output_tokens": 30}})
    terminal.wait_for_prompt()
    terminal.type("/cost\r")
    terminal.wait_for("No model calls yet")
    terminal.type("hi\r")
    terminal.wait_for("Hello.")
    terminal.wait_for("1,200 in · 30 out")
    terminal.wait_for_prompt()
    terminal.type("/cost\r")
    terminal.wait_for("session total: 1 model call · 1,200 in")
    terminal.wait_for_prompt()
    terminal.type("\x04")
    terminal.wait_for("session total: 1 model call · 1,200 in")
    terminal.wait_for("agent.py --resume")  # the command as it was started
    assert terminal.close() == 0
