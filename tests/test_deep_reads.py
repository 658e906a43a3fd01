"""read_file deep into a huge file: a cancel ends the scan, and the scan has an end of its own.

A sandboxed command makes a sparse file of a terabyte with `truncate`, and the model asks for a
line far down it. Finding that line means reading every byte before it: minutes of a thread
that a Ctrl-C or SIGTERM once had to wait for.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import spawn
from conftest import planloop_process
from test_cli import saved_sessions

from fakeapi import text, tool_use
from session import read_session
from tools import ToolError, files
from tools.beneath import WriteCancelled
from tools.files import read_file

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
TEXT = ("a line of text" + " " * 85 + "\n") * 100  # past the binary check's 8 KiB


def sparse(path: Path, size: int) -> Path:
    path.write_text(TEXT)
    os.truncate(path, size)  # holes: no line breaks, and no disk used
    return path


def test_a_scan_for_a_line_too_deep_ends_with_an_error_that_says_what_to_use(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_SCANNED_BYTES", 8 * 2**20)
    sparse(tmp_path / "big", 64 * 2**20)
    with pytest.raises(ToolError, match="gave up after .* of big") as error:
        read_file(tmp_path, "big", offset=10**9)
    assert "tail" in str(error.value)
    # Near the top, the same file reads as before.
    assert (
        read_file(tmp_path, "big", offset=99, limit=2)
        .splitlines()[0]
        .startswith("    99\ta line of text")
    )


def test_a_cancel_ends_the_scan_for_a_deep_line(tmp_path):
    sparse(tmp_path / "big", 2**40)
    stop = threading.Event()
    stop.set()  # cancelled as the read begins: the first chunk is the last
    with pytest.raises(WriteCancelled):
        read_file(tmp_path, "big", offset=10**15, stop=stop)


def open_by(pid: int, path: Path) -> bool:
    with os.scandir(f"/proc/{pid}/fd") as fds:
        for fd in fds:
            try:
                if os.readlink(fd.path) == str(path):
                    return True
            except OSError:
                continue
    return False


@pytest.mark.real_exec
def test_sigterm_while_read_file_scans_a_sparse_terabyte_ends_planloop_at_once(
    api, env, workspace, isolated_home
):
    big = sparse(workspace / "big", 2**40)
    api.add({"content": [tool_use("read_file", {"path": "big", "offset": 10**15})]})
    api.add({"content": [text("done")]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "read it"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The scan is under way once planloop holds the file open (it reads it in one go).
    while not open_by(planloop_process(proc.pid), big):
        assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    # Without a limit of its own the scan would read the terabyte first; without the cancel
    # reaching it, 4 GiB, and the call would end as "gave up", not as stopped by SIGTERM.
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143, stderr
    assert "ended by SIGTERM" in stderr and "Traceback" not in stderr
    [session] = saved_sessions(isolated_home)
    [result] = read_session(session)[0][-1]["content"]
    assert result["is_error"] and "terminated by SIGTERM" in str(result["content"]), result
