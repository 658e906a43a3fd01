"""The bash tool: output, exit codes, timeouts, cancellation and bounded output."""

import asyncio
import time
import tracemalloc
from pathlib import Path

import pytest

from tools import BASH, ToolError, validate_input
from tools.bash import run_bash
from tools.process import HEAD_BYTES, TAIL_BYTES


def bash(workspace: Path, command: str, timeout: int = 10) -> str:
    return asyncio.run(run_bash(workspace, command, timeout=timeout))


def is_running(pid: int) -> bool:
    """True if the process exists and is not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state != "Z"


def wait_until_gone(pid: int, seconds: float = 30.0) -> bool:
    # (The state is what is awaited; the ceiling only ends a hang. 3 s was once too short on
    # a loaded machine, where the kill of a cancelled command's group came later.)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not is_running(pid):
            return True
        time.sleep(0.02)
    return False


def test_output_and_exit_code_are_reported(tmp_path: Path):
    assert bash(tmp_path, "echo hello") == "hello\n[exit code: 0]"


def test_nonzero_exit_is_reported_not_raised(tmp_path: Path):
    result = bash(tmp_path, "echo partial; exit 3")
    assert result == "partial\n[exit code: 3]"


def test_stderr_is_merged_with_stdout_in_order(tmp_path: Path):
    result = bash(tmp_path, "echo one; echo two >&2; echo three")
    assert result == "one\ntwo\nthree\n[exit code: 0]"


def test_command_without_output_says_so(tmp_path: Path):
    assert bash(tmp_path, "true") == "(no output)\n[exit code: 0]"


def test_command_runs_in_the_workspace(tmp_path: Path):
    result = bash(tmp_path, "pwd; touch made_here")
    assert result.splitlines()[0] == str(tmp_path.resolve())
    assert (tmp_path / "made_here").exists()


def test_stdin_is_closed_so_cat_returns_at_once(tmp_path: Path):
    started = time.monotonic()
    assert bash(tmp_path, "cat", timeout=5) == "(no output)\n[exit code: 0]"
    assert time.monotonic() - started < 2


def test_bytes_that_are_not_utf8_are_replaced(tmp_path: Path):
    result = bash(tmp_path, r"printf 'caf\xe9 \xff\xfe ok\n'")
    assert result == "caf\ufffd \ufffd\ufffd ok\n[exit code: 0]"


def test_timeout_kills_the_command_and_its_children(tmp_path: Path):
    command = "echo started; sleep 100 & echo $! > child.pid; sleep 100"
    started = time.monotonic()
    result = bash(tmp_path, command, timeout=1)
    assert time.monotonic() - started < 5
    assert result.startswith("started\n")
    assert "[timed out after 1 s; the command and its children were killed]" in result
    assert result.endswith("[exit code: 137 (killed by SIGKILL)]")
    assert wait_until_gone(int((tmp_path / "child.pid").read_text()))


def test_background_child_does_not_keep_the_call_waiting(tmp_path: Path):
    # The background sleep holds the output pipe open after bash exits.
    started = time.monotonic()
    result = bash(tmp_path, "sleep 100 & echo $! > child.pid; echo done", timeout=30)
    assert time.monotonic() - started < 5
    assert result == (
        "done\n[processes the command left running in the background were stopped]\n[exit code: 0]"
    )
    assert wait_until_gone(int((tmp_path / "child.pid").read_text()))


def test_cancellation_kills_the_process_group_and_propagates(tmp_path: Path):
    async def cancel_while_running() -> None:
        # child.pid appears by rename, so once it exists both pid files are complete.
        command = (
            "echo $$ > bash.pid; sleep 100 & echo $! > child.tmp && mv child.tmp child.pid; "
            "sleep 100"
        )
        task = asyncio.create_task(run_bash(tmp_path, command, timeout=60))
        while not (tmp_path / "child.pid").exists() and not task.done():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_while_running())
    assert wait_until_gone(int((tmp_path / "bash.pid").read_text()))
    assert wait_until_gone(int((tmp_path / "child.pid").read_text()))


def test_huge_output_keeps_head_and_tail_and_reports_the_cut(tmp_path: Path):
    total = 200_000_000
    # tracemalloc counts what this call allocates, whatever earlier tests left behind.
    tracemalloc.start()
    try:
        result = bash(tmp_path, f"yes | head -c {total}", timeout=60)
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert peak_bytes < 20 * 1024 * 1024  # far below the 200 MB produced
    assert len(result) < HEAD_BYTES + TAIL_BYTES + 1000
    assert f"[{total - HEAD_BYTES - TAIL_BYTES} bytes cut from the middle of the output]" in result
    *output, hint, exit_line = result.split("\n")
    assert output[:2] == ["y", "y"] and output[-2:] == ["y", "y"]
    assert "read_file" in hint  # the hint says how to see everything
    assert exit_line == "[exit code: 0]"


def test_multibyte_characters_cut_at_the_boundaries_do_not_break_decoding(tmp_path: Path):
    # One ASCII byte at each end puts a two-byte 'é' across both the head and tail boundaries.
    result = bash(tmp_path, "printf a; for i in $(seq 40000); do printf 'é'; done; printf b")
    head, tail = result.split(" bytes cut from the middle of the output] ...\n")
    assert head.startswith("aéé")
    # The head ends in half an 'é' (one replacement character); the tail starts with the other.
    assert head.split("\n... [")[0].endswith("é\ufffd")
    assert tail.startswith("\ufffdé")
    assert tail.split("\n")[0].endswith("éb")


def test_timeout_outside_the_allowed_range_is_refused(tmp_path: Path):
    for timeout in (0, 601):
        with pytest.raises(ToolError, match="from 1 to 600"):
            bash(tmp_path, "true", timeout=timeout)
    with pytest.raises(ToolError, match="from 1 to 600"):
        validate_input(BASH, {"command": "true", "timeout": 700})
