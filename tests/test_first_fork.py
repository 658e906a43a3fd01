"""The process a person starts forks first thing and waits; planloop runs in the child
(first_fork.py). To the shell, the terminal and `kill`, the two must behave as one process."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import wait_for_file

ROOT = Path(__file__).resolve().parent.parent

# The child tells each SIGINT and SIGTERM it gets, and who sent it, as it arrives (a thread
# waits for them), and answers each line it reads. A SIGHUP it writes to the file HANGUP_AT
# names, if any (its terminal is gone by then), or ignores: only the kernel's PR_SET_PDEATHSIG
# may end it when the started process dies.
TELLS_ITS_SIGNALS = f"""
import os, signal, sys, threading
sys.path.insert(0, {str(ROOT)!r})
from first_fork import continue_in_a_fresh_child
continue_in_a_fresh_child()
def hung_up(signum=None, frame=None):
    with open(os.environ["HANGUP_AT"], "w") as told:
        told.write("SIGHUP")
signal.signal(signal.SIGHUP, hung_up if os.environ.get("HANGUP_AT") else signal.SIG_IGN)
told = {{signal.SIGINT, signal.SIGTERM}}
# The thread below blocks the hangup too: a signal goes to any thread that does not block it,
# and one the thread took would never end the main thread's wait for it at the end.
signal.pthread_sigmask(signal.SIG_BLOCK, told | {{signal.SIGHUP}})
def tell():
    while True:
        info = signal.sigwaitinfo(told)
        sender = "terminal" if info.si_code == 0x80 else info.si_pid
        print("got", signal.Signals(info.si_signo).name, "from", sender, flush=True)
threading.Thread(target=tell, daemon=True).start()
signal.pthread_sigmask(signal.SIG_UNBLOCK, {{signal.SIGHUP}})
print("child", os.getpid(), flush=True)
try:
    for line in sys.stdin:
        print("read", line.strip(), flush=True)
except OSError:  # (the terminal is gone)
    pass
if os.environ.get("HANGUP_AT"):  # its input may end with the terminal before the hangup comes
    signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.SIGHUP}})
    if not os.path.exists(os.environ["HANGUP_AT"]) and signal.sigtimedwait({{signal.SIGHUP}}, 60):
        hung_up()
"""


class OnATerminal:
    """The script above, started as a shell starts a job: on a terminal it controls."""

    def __init__(self, hangup_at: Path | None = None) -> None:
        self.started, self.master = pty.fork()
        if self.started == 0:
            if hangup_at is not None:
                os.environ["HANGUP_AT"] = str(hangup_at)
            attributes = termios.tcgetattr(0)
            attributes[3] &= ~termios.ECHO  # (the terminal's own "^C" would start a line)
            termios.tcsetattr(0, termios.TCSANOW, attributes)
            os.execv(sys.executable, [sys.executable, "-c", TELLS_ITS_SIGNALS])
        self.seen = ""
        self.child = int(self.wait_for("child ").split()[0])

    def wait_for(self, text: str) -> str:
        """Wait for the next line that starts with `text`; return the rest of it."""
        while True:
            while "\n" not in self.seen:
                ready, _, _ = select.select([self.master], [], [], 30)
                assert ready, f"{text!r} did not appear; the last line: {self.seen!r}"
                self.seen += os.read(self.master, 4096).decode().replace("\r", "")
            line, self.seen = self.seen.split("\n", 1)
            if line.startswith(text):
                return line[len(text) :]

    def answers(self) -> bool:
        os.write(self.master, b"hello\n")
        return self.wait_for("read ") == "hello"

    def end(self) -> int:
        """Close the terminal's input; the wait status of the started process."""
        os.write(self.master, b"\x04")
        return self.status()

    def status(self) -> int:
        """The wait status of the started process, once it has ended."""
        ended = os.pidfd_open(self.started)
        try:
            assert select.select([ended], [], [], 30)[0], "the started process goes on"
        finally:
            os.close(ended)
        return os.waitpid(self.started, 0)[1]


@pytest.fixture
def job() -> Iterator[OnATerminal]:
    terminal = OnATerminal()
    yield terminal
    for pid in (terminal.child, terminal.started):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(terminal.started, 0)
    os.close(terminal.master)


def test_planloop_runs_in_a_child_of_the_started_process(job):
    assert job.child != job.started
    assert os.stat(f"/proc/{job.child}").st_uid == os.getuid()
    assert int(Path(f"/proc/{job.child}/stat").read_text().rsplit(")", 1)[1].split()[1]) == (
        job.started
    )


def test_a_ctrl_c_from_the_terminal_arrives_once_and_a_kill_is_passed_on(job):
    os.write(job.master, b"\x03")  # the terminal sends SIGINT to its whole foreground group
    assert job.wait_for("got ") == "SIGINT from terminal"
    # The started process got it too, and takes its signals in order: had it passed the
    # SIGINT on, the child would get it before this SIGTERM.
    os.kill(job.started, signal.SIGTERM)
    assert job.wait_for("got ") == f"SIGTERM from {job.started}"
    os.kill(job.started, signal.SIGINT)  # `kill -INT`: only the started process gets it
    assert job.wait_for("got ") == f"SIGINT from {job.started}"
    assert os.waitstatus_to_exitcode(job.end()) == 0


def test_a_stopped_child_shows_the_job_as_stopped_and_goes_on_when_continued(job):
    os.kill(job.child, signal.SIGSTOP)  # as it would stop itself on Ctrl-Z
    _, status = os.waitpid(job.started, os.WUNTRACED)
    assert os.WIFSTOPPED(status)  # what the shell sees, and reports as "Stopped"
    os.kill(job.started, signal.SIGCONT)  # `fg` or `bg`
    assert job.answers()  # the child runs again
    assert os.waitstatus_to_exitcode(job.end()) == 0


@pytest.mark.parametrize("ended_by", [signal.SIGUSR1, signal.SIGKILL])
def test_the_started_process_ends_as_the_child_did(job, ended_by):
    os.kill(job.child, ended_by)  # (signals that end a process that does not handle them)
    status = job.status()
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == ended_by


def test_the_child_dies_with_the_started_process(job):
    child = os.pidfd_open(job.child)  # readable once the child has ended
    try:
        os.kill(job.started, signal.SIGKILL)  # `kill -9`: the started process runs nothing more
        job.status()
        ended, _, _ = select.select([child], [], [], 30)
        assert ended, "the child outlived the process that started it"
    finally:
        os.close(child)


def test_a_closed_terminal_reaches_the_child_when_the_started_process_leads_the_session(
    tmp_path,
):
    # `ssh -t host planloop`, `tmux new-session planloop`: the process started is the
    # session's leader, and the kernel sends the hangup to it alone, not to its group.
    told = tmp_path / "hung-up"
    terminal = OnATerminal(hangup_at=told)
    try:
        assert os.getsid(terminal.started) == terminal.started  # (pty.fork's setsid)
        os.close(terminal.master)  # the terminal closes
        wait_for_file(told)
        assert told.read_text() == "SIGHUP"
        # Its input ended with the terminal: the child ends, and the started process with it.
        assert os.waitstatus_to_exitcode(terminal.status()) == 0
    finally:
        for pid in (terminal.child, terminal.started):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(terminal.started, 0)


def test_planloop_leading_its_session_ends_on_a_closed_terminal_with_the_session_saved(
    api, env, workspace
):
    # `ssh -t host planloop -p ...`: the terminal closes while a command runs. The run ends as
    # SIGHUP ends it (129), though nothing can be printed any more, and the open call is
    # answered in the saved session.
    from fakeapi import text, tool_use
    from session import sessions_dir

    api.add({"content": [tool_use("bash", {"command": "touch started; sleep 60"})]})
    api.add({"content": [text("Done.")]})
    started, master = pty.fork()
    if started == 0:
        os.chdir(workspace)
        os.execve(sys.executable, [sys.executable, str(ROOT / "agent.py"), "-p", "go"], env)
    try:
        wait_for_file(workspace / "started")
        os.close(master)
        ended = os.pidfd_open(started)
        assert select.select([ended], [], [], 30)[0], "planloop went on after the hangup"
        os.close(ended)
        assert os.waitstatus_to_exitcode(os.waitpid(started, 0)[1]) == 128 + signal.SIGHUP
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(started, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(started, 0)
    (saved,) = sessions_dir(workspace.resolve()).glob("*.jsonl")
    assert "terminated by SIGHUP (its terminal closed) before this call finished" in (
        saved.read_text()
    )


def test_a_ctrl_c_while_planloop_still_loads_ends_it_quietly():
    # The signal comes before planloop's handlers are in, in the middle of its imports.
    started = subprocess.run(
        [sys.executable, "-c", LOADING_WHEN_CTRL_C_COMES],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.stderr == ""  # no KeyboardInterrupt traceback from an import
    assert started.returncode == -signal.SIGINT  # what a shell reports as 130
    assert "went on" not in started.stdout


LOADING_WHEN_CTRL_C_COMES = f"""
import os, signal, sys
sys.path.insert(0, {str(ROOT)!r})
from first_fork import close_and_fork
close_and_fork()
os.kill(os.getpid(), signal.SIGINT)  # (as the terminal sends it, to the child too)
import json
print("went on", flush=True)
"""


def test_the_waiting_process_ends_with_its_child_even_when_no_sigchld_reaches_it():
    # A SIGCHLD was seen to go missing when the child ended at once: the waiting process then
    # waited for ever, and the terminal with it. It looks for itself as well.
    started = subprocess.run(
        [sys.executable, "-c", CHILD_ENDS_UNSEEN], capture_output=True, text=True, timeout=60
    )
    assert started.returncode == 7, started.stderr


CHILD_ENDS_UNSEEN = f"""
import os, signal, sys
sys.path.insert(0, {str(ROOT)!r})
import first_fork
signal.pthread_sigmask(signal.SIG_BLOCK, first_fork.WAITED_FOR)
child = os.fork()
if child == 0:
    os._exit(7)
signal.sigwaitinfo({{signal.SIGCHLD}})  # (taken here: the stand-in never sees it)
first_fork._stand_in_for(child)
"""
