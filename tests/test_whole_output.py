"""A long command's whole output: kept in a private, bounded file beside the session (the key
redacted), and paged by /output, where the model's result keeps only the first and last 16 KB."""

from __future__ import annotations

import asyncio
import contextvars
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import API_KEY, results_by_id
from test_long_output import approve, pager_terminal

from cli.output import read_whole_output
from fakeapi import text, tool_use
from tools.bash import run_bash, whole_output_file
from tools.file_call import file_call
from tools.tasks import FILE_HEAD_BYTES, FILE_TAIL_BYTES

pytestmark = pytest.mark.real_exec

# About 100 KB: a thousand rows, the line a person looks for, then a thousand rows more. The
# marker and the key are put together by the shell, so only the output holds them whole.
FILLER = "echo row-$i-.........................................."
BIG = (
    f"for i in $(seq 1 1000); do {FILLER}; done; echo FAILED-test_$((6 * 7)); "
    f"echo key={API_KEY[:4]}''{API_KEY[4:]}; for i in $(seq 1001 2000); do {FILLER}; done"
)


def test_output_pages_the_whole_output_of_a_command_whose_middle_the_model_never_saw(
    api, workspace, isolated_home
):
    api.add({"content": [tool_use("bash", {"command": BIG}, id="toolu_big")]})
    api.add({"content": [text("Ran it.")]})
    api.add({"content": [tool_use("bash", {"command": "echo small"}, id="toolu_small")]})
    api.add({"content": [text("Ran that too.")]})
    with pager_terminal(api, workspace, isolated_home, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("run the tests\r")
        approve(terminal)
        terminal.wait_for("Ran it.")
        terminal.wait_for_prompt()

        # The model's result is unchanged: head and tail, the middle cut.
        result = results_by_id(api.requests[-1])["toolu_big"]["content"]
        assert "bytes cut from the middle of the output" in result
        assert "FAILED-test_42" not in result

        # Kept beside the session, private, never in the workspace, the key redacted.
        [kept] = isolated_home.glob("sessions/*/*.tasks/toolu_big.out")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert not kept.resolve().is_relative_to(workspace.resolve())
        assert b"\nFAILED-test_42\nkey=[redacted]\n" in kept.read_bytes()
        assert API_KEY.encode() not in kept.read_bytes()

        terminal.type("/output\r")
        paged = terminal.wait_for_prompt()
        assert "(tool call 1 of 1, its whole output)\nrow-1-" in paged
        assert "\nrow-1000-....." in paged
        assert "\nFAILED-test_42\nkey=[redacted]\nrow-1001-" in paged
        assert "\nrow-2000-..........................................\n[exit code: 0]" in paged
        assert "cut from the middle" not in paged

        # Without the file, /output pages the result as the model saw it (Ctrl-O: /output).
        kept.unlink()
        terminal.type("\x0f")
        paged = terminal.wait_for_prompt()
        assert "(tool call 1 of 1)\nrow-1-" in paged
        assert "bytes cut from the middle of the output" in paged
        assert "FAILED-test_42" not in paged

        # Output short enough for the model whole gets no file.
        terminal.type("once more\r")
        approve(terminal)
        terminal.wait_for("Ran that too.")
        terminal.wait_for_prompt()
        assert not list(isolated_home.glob("sessions/*/*.tasks/toolu_small.out"))
        terminal.type("\x04")
        assert terminal.close() == 0


def test_output_too_long_even_for_the_file_says_how_much_of_its_middle_was_not_kept(tmp_path):
    kept = tmp_path / "session.tasks" / "toolu_1.out"
    six_mib = "head -c 6291456 /dev/zero | tr '\\0' a; echo; echo the-end"
    asyncio.run(run_bash(tmp_path, six_mib, timeout=60, keep_whole_output_in=kept))
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    text, dropped = read_whole_output(kept)
    total = 6291456 + len("\nthe-end\n")
    assert dropped == total - FILE_HEAD_BYTES - FILE_TAIL_BYTES
    assert text.startswith("a" * 1000) and text.endswith("a\nthe-end\n")
    assert f"[{dropped} bytes not kept]" in text


def test_the_whole_output_is_never_kept_in_the_workspace(tmp_path):
    workspace = tmp_path / "work"
    workspace.mkdir()

    def file_for(folder: Path) -> Path | None:
        file_call("toolu_abc")  # what the permission policy makes for every call
        return whole_output_file(workspace, SimpleNamespace(folder=folder))

    outside = tmp_path / "home" / "s.tasks"
    run = contextvars.copy_context().run  # the call's context stays in this test
    assert run(file_for, outside) == outside / "toolu_abc.out"
    assert run(file_for, workspace / ".planloop" / "s.tasks") is None
    assert whole_output_file(workspace, SimpleNamespace(folder=outside)) is None  # no call
