"""Through the real CLI: piped stdin joins a -p prompt, --version, and resume hints that work
when pasted into a shell."""

from __future__ import annotations

import os
import pty
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import spawn
from conftest import AGENT, run_cli

from cli.piped import PIPED_LIMIT
from fakeapi import text


def prompt_sent(api) -> str:
    [block] = api.accepted[-1]["messages"][-1]["content"]
    return block["text"]


def test_piped_input_is_appended_to_the_prompt(api, env, workspace):
    api.add({"content": [text("Two lines.")]})
    result = run_cli("-p", "summarise", cwd=workspace, env=env, stdin="line one\nline two\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Two lines.\n"
    assert prompt_sent(api) == "summarise\n\n<stdin>\nline one\nline two\n</stdin>"


def test_empty_piped_input_leaves_the_prompt_alone(api, env, workspace):
    api.add({"content": [text("Hi.")]})
    result = run_cli("-p", "hi", cwd=workspace, env=env, stdin=" \n")
    assert result.returncode == 0, result.stderr
    assert prompt_sent(api) == "hi"


def test_dash_reads_the_prompt_itself_from_stdin_and_nothing_more(api, env, workspace):
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "-", cwd=workspace, env=env, stdin="the task\n")
    assert result.returncode == 0, result.stderr
    assert prompt_sent(api) == "the task\n"


def test_piped_input_over_the_limit_is_cut_and_both_sides_are_told(api, env, workspace):
    api.add({"content": [text("Long.")]})
    piped = "é" * PIPED_LIMIT  # two bytes each: the cut falls inside the input, on a boundary
    result = run_cli("-p", "count", cwd=workspace, env=env, stdin=piped)
    assert result.returncode == 0, result.stderr
    assert f"longer than {PIPED_LIMIT:,} bytes" in result.stderr
    sent = prompt_sent(api)
    assert sent.count("é") == PIPED_LIMIT // 2 and "\ufffd" not in sent
    assert sent.endswith(f"[planloop cut the piped input above at {PIPED_LIMIT:,} bytes; "
                         "the rest was not read.]")  # fmt: skip


def test_a_silent_open_pipe_is_waited_for_and_said(api, env, workspace):
    api.add({"content": [text("Got it.")]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "what came?"],
        cwd=workspace,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in proc.stderr:  # the state: planloop says it waits for stdin to end
            if "Waiting for piped input on stdin to end" in line:
                break
        assert api.accepted == []
        proc.stdin.write("late data\n")
        proc.stdin.close()
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert stdout == "Got it.\n"
    assert prompt_sent(api) == "what came?\n\n<stdin>\nlate data\n</stdin>"


def test_stdin_that_is_a_terminal_is_not_read(api, env, workspace):
    api.add({"content": [text("Plain.")]})
    master, replica = pty.openpty()
    try:
        proc = spawn.Popen(
            [sys.executable, str(AGENT), "-p", "hi"],
            cwd=workspace,
            env=env,
            stdin=replica,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        os.close(replica)
        os.close(master)
    assert proc.returncode == 0, stderr
    assert prompt_sent(api) == "hi"


def test_version_prints_one_line_from_pyproject(workspace):
    project = tomllib.loads((AGENT.parent / "pyproject.toml").read_text())["project"]
    result = run_cli("--version", cwd=workspace, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"planloop {project['version']}\n" and result.stderr == ""


def test_version_never_loads_the_sdk(workspace):
    code = (
        "import sys, agent\n"
        "sys.argv = ['agent.py', '--version']\n"
        "try:\n    agent.main()\nexcept SystemExit as end:\n    assert end.code in (0, None)\n"
        "print('sdk loaded' if 'anthropic' in sys.modules else 'sdk not loaded')"
    )
    # A real exec, not spawn.run: the warm parent has the SDK imported already.
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=AGENT.parent, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.splitlines()[-1] == "sdk not loaded", result.stderr


def closing_command(stderr: str) -> tuple[str, str]:
    """The command and the session id of the closing line's resume hint."""
    found = re.search(r"Resume with: (.+) --resume (\S+)\s*$", stderr)
    assert found, stderr
    return found.group(1), found.group(2)


def test_the_closing_hint_works_when_pasted_into_a_shell(api, env, workspace):
    api.add({"content": [text("First.")]})
    api.add({"content": [text("Second.")]})
    first = run_cli("-p", "remember 42", cwd=workspace, env=env)
    assert first.returncode == 0, first.stderr
    command, session_id = closing_command(first.stderr)
    assert command.endswith(str(AGENT))  # the script as started, with its interpreter
    pasted = subprocess.run(
        ["bash", "-c", f"{command} --resume {session_id} -p 'what number?'"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout == "Second.\n"
    assert api.accepted[-1]["messages"][0]["content"][0]["text"] == "remember 42"


def test_a_relative_script_path_is_named_as_given(api, env, workspace):
    api.add({"content": [text("Hi.")]})
    relative = os.path.relpath(AGENT, workspace)
    result = subprocess.run(
        [sys.executable, relative, "-p", "hi"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    command, _ = closing_command(result.stderr)
    assert command.split()[-1] == relative


INSTALLED = Path(sys.executable).parent / "planloop"


@pytest.mark.skipif(not INSTALLED.exists(), reason="planloop is not installed in this venv")
@pytest.mark.parametrize("on_path", [True, False], ids=["on-path", "not-on-path"])
def test_the_installed_command_is_named_planloop_only_where_the_shell_finds_it(
    api, env, workspace, on_path
):
    api.add({"content": [text("Hi.")]})
    folders = [f for f in env["PATH"].split(os.pathsep) if shutil.which("planloop", path=f) is None]
    path = os.pathsep.join(([str(INSTALLED.parent)] if on_path else []) + folders)
    result = subprocess.run(
        [str(INSTALLED), "-p", "hi"],
        cwd=workspace,
        env={**env, "PATH": path},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    command, _ = closing_command(result.stderr)
    assert command == ("planloop" if on_path else str(INSTALLED))
