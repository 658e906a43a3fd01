"""A command that could read the key, then rewrote the file it read so that it no longer holds
the key's bytes, is still taken to have read it.

Once a hidden `.env` is replaced on the host, the bind that hid it is gone in a running
command's sandbox: the command can read the new file and write it too. A key file the person
makes while a command runs is in no bind at all. Either way the command can read the key and
at once rewrite the file without it (python-dotenv's `${...}` keeps it working for the person's
app, or it is simply wiped). planloop decides by what the command could read while it ran: a
hidden key file replaced counts whatever it holds later, and a key file written meanwhile is
read as planloop reads a key, at the moment it is written, with a rewrite after a read unable
to hide what was there before.

The end-to-end tests drive `python agent.py -p` against the fake API, as root and as an
unprivileged user; the person's edits are made by the test once the command reached a state.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import API_KEY
from test_binds_replaced import (
    EXIT_STOPPED,
    HOLD_LOCK,
    KEY_LINE,
    assert_never_sent,
    done_or_stopped,
    lock_released,
    person_after,
    save_by_rename,
    wait_for,
    write_owned,
)
from test_hostile_pass4 import AGENT, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.base import ToolError
from tools.bind_watch import (
    IN_ACCESS,
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_MODIFY,
    FolderWatch,
    holds_the_key,
)
from tools.sandbox import holds_known_secret
from tools.tool_scripts import dotenv_file

__all__ = ["user_folders"]  # a fixture, used by name below

DOTTED = ".".join(API_KEY) + "."  # the key as the command prints it, past the redaction
# What the command reads the key from, and how it leaves the file afterwards: still giving the
# key to python-dotenv (no line holds its bytes), or wiped.
EXTRACT = "k=$(sed -n 's/^ANTHROPIC_API_KEY=//p' {name}); "
REWRITES = {
    "interpolated": (
        'printf \'DEBUG=0\\nK1=%s\\nANTHROPIC_API_KEY=${{K1}}%s\\n\' "${{k:0:4}}" "${{k:4}}" '
        "> {name}; "
    ),
    "wiped": "printf 'DEBUG=0\\n' > {name}; ",
}
SAY = 'echo "got: $(echo "$k" | sed \'s/./&./g\')"; '


def launderer(name: str, rewrite: str) -> str:
    """Polls `name` until it gives the key, reads it, rewrites the file, prints the key."""
    return (
        f"touch started; until grep -q ANTHROPIC_API_KEY {name} 2>/dev/null; do sleep 0.001; "
        "done; " + EXTRACT.format(name=name) + REWRITES[rewrite].format(name=name) + SAY
    )


def sent_anywhere(api, needle: str) -> bool:
    return any(needle in str(request) for request in api.accepted)


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_a_command_that_rewrites_a_replaced_env_it_read_has_its_output_withheld(
    api, env, user_folders, rewrite
):
    # The person saves .env by rename while a command runs; the command reads the key and
    # rewrites .env before it ends, when planloop compares.
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".env", f"DEBUG=1\n{KEY_LINE}", user)
    person_after(
        workspace / "started",
        lambda: save_by_rename(workspace / ".env", f"DEBUG=0\n{KEY_LINE}", user),
    )
    api.add({"content": [tool_use("bash", {"command": launderer(".env", rewrite)})]})
    api.add({"content": [tool_use("bash", {"command": "echo next"})]})  # never asked for
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert not sent_anywhere(api, DOTTED)
    assert_never_sent(api, API_KEY)
    assert len(api.accepted) == 1  # the run stopped with the command's result
    flat = " ".join(result.stderr.split())
    assert "its output is withheld: .env was replaced on the host" in flat, result.stderr
    assert "planloop stopped the run" in flat


def stopped_while_the_person_writes(api, env, user_folders, task: str, person) -> str:
    """Run `task` in the background while `person(workspace, user)` writes a key file; assert
    the run stopped before the model saw the key or anything after; the person's lines."""
    user, workspace, planloop_home, home = user_folders

    def meanwhile(_body: dict) -> dict:
        wait_for(workspace / "started")
        person(workspace, user)
        done_or_stopped(workspace / "copied", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 30})]}

    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(meanwhile)
    api.add({"content": [tool_use("bash", {"command": "echo the run goes on"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert not sent_anywhere(api, DOTTED)
    assert not sent_anywhere(api, "the run goes on")
    flat = " ".join(result.stderr.split())
    assert "bg-1 was stopped and its output kept from the model" in flat, result.stderr
    return flat


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_a_task_that_rewrites_a_replaced_env_it_read_stops_the_run(api, env, user_folders, rewrite):
    user, workspace, _, _ = user_folders
    write_owned(workspace / ".env", f"DEBUG=1\n{KEY_LINE}", user)
    task = HOLD_LOCK + launderer(".env", rewrite) + "touch copied; sleep 600"

    def you_save_your_env(workspace: Path, user: str) -> None:
        save_by_rename(workspace / ".env", f"DEBUG=0\n{KEY_LINE}", user)

    flat = stopped_while_the_person_writes(api, env, user_folders, task, you_save_your_env)
    assert ".env was replaced on the host" in flat


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
@pytest.mark.parametrize("rewrite", sorted(REWRITES))
def test_a_task_that_rewrites_a_new_key_file_it_read_stops_the_run(api, env, user_folders, rewrite):
    # The person puts the key in a new .env.local while a task runs; the task reads it and
    # rewrites it, so that by the time planloop compares it holds no line with the key.
    task = HOLD_LOCK + launderer(".env.local", rewrite) + "touch copied; sleep 600"

    def you_add_a_key_file(workspace: Path, user: str) -> None:
        write_owned(workspace / ".env.local", KEY_LINE, user)

    flat = stopped_while_the_person_writes(api, env, user_folders, task, you_add_a_key_file)
    assert ".env.local came to hold the API key" in flat


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_making_its_own_env_from_the_example_goes_on(api, env, user_folders):
    # What a setup script does: copy the example, add a line, read it back. Nobody but the
    # task wrote it, and it never held the key: the task is not stopped and the run goes on.
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".env.example", "DEBUG=1\nAPI_URL=http://localhost\n", user)
    task = (
        "cp .env.example .env && echo DEBUG_SQL=1 >> .env && cp .env.example .env.local "
        "&& cat .env .env.local && echo made"
    )
    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add({"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 60})]})
    api.add({"content": [tool_use("bash", {"command": "echo the run goes on"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    started, output, goes_on = tool_results(api)
    assert "exited with code 0" in output and "made" in output, output
    assert "withheld" not in output
    assert "the run goes on" in goes_on


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_history_saved_under_a_running_task_does_not_stop_the_run(api, env, user_folders):
    # You close a terminal while a task runs: bash saves ~/.bash_history by rename. It holds
    # no key and has no key file's name: you are told, the task is stopped (it could change
    # the new one), and the run goes on.
    user, workspace, planloop_home, home = user_folders
    write_owned(home / ".bash_history", "ls\n", user)
    write_owned(home / ".bashrc", "alias ll='ls -l'\n", user)
    task = "touch started; until [ -e saved ]; do sleep 0.05; done; echo read it; sleep 600"

    def you_close_a_terminal() -> None:
        save_by_rename(home / ".bash_history", "ls\ngit status\n", user)
        save_by_rename(home / ".bashrc", "alias ll='ls -la'\n", user)
        (workspace / "saved").touch()

    person_after(workspace / "started", you_close_a_terminal)

    def look_later(_body: dict) -> dict:
        wait_for(workspace / "saved")
        return {"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 5})]}

    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(look_later)
    api.add({"content": [tool_use("bash", {"command": "echo the run goes on"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    flat = " ".join(result.stderr.split())
    assert "planloop stopped the run" not in flat, result.stderr
    assert "the run goes on" in tool_results(api)[-1]


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_key_split_across_dotenv_variables_is_hidden_from_commands(api, env, user_folders):
    # No line holds the key, yet python-dotenv gives it whole: the file is hidden like one
    # that holds it plainly.
    user, workspace, planloop_home, home = user_folders
    half = len(API_KEY) // 2
    content = f"K1={API_KEY[:half]}\nANTHROPIC_API_KEY=${{K1}}{API_KEY[half:]}\n"
    write_owned(workspace / ".env", content, user)
    api.add({"content": [tool_use("bash", {"command": "base64 -w0 .env; echo; cat .env"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert f"K1={API_KEY[:half]}" not in output
    assert_never_sent(api, base64.b64encode(content.encode()).decode()[:8])


@needs_bwrap
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare")
def test_with_no_inotify_watch_left_a_task_is_still_stopped_between_tool_calls(api, env, tmp_path):
    # A task (or any of your programs) used up the inotify watches: planloop says so and
    # compares every few seconds while the model thinks or waits, rather than only at its next
    # tool call. The limit is lowered for planloop alone, in a user namespace of its own.
    if os.geteuid() != 0:
        pytest.skip("sets the limit in a user namespace made as root")
    workspace, home = tmp_path / "work", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    (workspace / ".env").write_text(f"DEBUG=1\n{KEY_LINE}")
    task = HOLD_LOCK + "touch started; until grep -q ANTHROPIC_API_KEY .env; do sleep 0.01; done; "
    task += "sleep 600"
    stopped_before_next_call: list[bool] = []

    def you_save_your_env(_body: dict) -> dict:
        wait_for(workspace / "started")
        save_by_rename(workspace / ".env", f"DEBUG=0\n{KEY_LINE}", "root")
        stopped_before_next_call.append(lock_released(workspace / "lock"))
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(you_save_your_env)
    api.add({"content": [text("Done.")]})
    no_watches = 'echo 0 > /proc/sys/user/max_inotify_watches && exec "$@"'
    argv = [sys.executable, str(AGENT), "-p", "go"]
    result = subprocess.run(
        ["unshare", "-Ur", "sh", "-c", no_watches, "sh", *argv],
        cwd=workspace,
        env={**env, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=150,
    )
    flat = " ".join(result.stderr.split())
    if "Permission denied" in flat or "Operation not permitted" in flat:
        pytest.skip("user namespaces are not allowed here")
    assert "cannot watch" in flat and "checked at each tool call and every" in flat, flat
    assert stopped_before_next_call == [True]
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert "bg-1 was stopped and its output kept from the model" in flat


# ---- reading a key file as programs read it --------------------------------------------


def test_a_key_split_by_interpolation_is_found_in_every_encoding():
    key = "sk-ant-test-SECRETKEY-12345"
    split = "K1=sk-ant-test-SECRET\nANTHROPIC_API_KEY=${K1}KEY-12345\n"
    for encoding in ("utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32"):
        assert holds_the_key(split.encode(encoding), [key]), encoding
    defaulted = "ANTHROPIC_API_KEY=${MISSING:-sk-ant-test-SECRETKEY-12345}\n"
    assert holds_the_key(defaulted.encode(), [key])


def test_a_reference_to_the_environment_is_not_the_key(monkeypatch):
    # The file names a variable; whoever reads the file gets the name, not the value.
    key = "sk-ant-test-SECRETKEY-12345"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    assert not holds_the_key(b"API_KEY=${ANTHROPIC_API_KEY}\nDEBUG=1\n", [key])
    assert not holds_the_key(b"K1=sk-ant-test\nX=${K1}-other\n", [key])


def test_a_dotenv_file_too_costly_to_expand_is_judged_as_holding_the_key(tmp_path):
    # python-dotenv scans from each `${` to the next `}`: 2,000 of them before 200 KB without
    # one took seconds (a repository's .env stalled planloop at start). Such a file is judged
    # as holding the key, and its plain values still count for the tools that load it.
    key = "sk-ant-test-SECRETKEY-12345"
    padded = "A=" + "${" * 2000 + "a" * 200_000 + "\nPYTHONSTARTUP=./tools/start.py\n"
    assert holds_the_key(padded.encode(), [key])
    (tmp_path / ".env").write_text(padded)
    assert dotenv_file(tmp_path / ".env")["PYTHONSTARTUP"] == "./tools/start.py"
    assert not holds_the_key(b"A=1\nB=${A}-x\n", [key])  # a person's .env is expanded
    # A generated script of 200 `${PREFIX}` in 110 KB: each `}` comes at once, a short read.
    lines = (f"echo building {i} into ${{PREFIX}}/lib/x{i}  # {'x' * 500}\n" for i in range(200))
    generated = "#!/bin/sh\nPREFIX=/usr/local\n" + "".join(lines)
    assert not holds_the_key(generated.encode(), [key])
    # A file of more `NAME=` lines than a person's .env has, and a `${`: parsing it would take
    # seconds each time a task wrote one, so it counts as holding the key, at once.
    assert holds_the_key(("A=${B}\n" + "C=d\n" * 200_000).encode(), [key])  # 800 KB
    # Any line costs the parse as much: words it cannot parse, comments.
    assert holds_the_key(("A=${B}\n" + "x\n" * 30_000).encode(), [key])
    assert holds_the_key(("A=${B}\n" + "#c\n" * 30_000).encode(), [key])


def test_a_key_file_unchanged_since_it_was_judged_is_not_read_again(tmp_path, monkeypatch):
    # Each command's sandbox judges the workspace's key files: a repository's three big ones
    # took 20 s a command. One unchanged for a second is judged as it was.
    import tools.sandbox

    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    env = tmp_path / ".env.test"
    env.write_text("DEBUG=1\n")
    old = time.time() - 10
    os.utime(env, (old, old))  # (its change time stays now: judged, but not remembered yet)
    reads = []
    monkeypatch.setattr(tools.sandbox, "SETTLED_NS", 0)
    real_read = tools.sandbox.read_allocated
    monkeypatch.setattr(
        tools.sandbox, "read_allocated", lambda *args: reads.append(1) or real_read(*args)
    )
    assert not holds_known_secret(env) and not holds_known_secret(env)
    assert len(reads) == 1
    env.write_text(f"ANTHROPIC_API_KEY={API_KEY}\n")  # changed: read again, and found
    assert holds_known_secret(env) and len(reads) == 2


# ---- the window between a write and planloop's read ------------------------------------


def watch_on(folder: Path) -> tuple[FolderWatch, int]:
    watch = FolderWatch(lambda: None)
    watch.folders[str(folder)] = 1
    watch.paths[1] = str(folder)
    return watch, 1


def test_a_write_read_and_written_over_before_planloop_read_it_counts(tmp_path):
    # The person writes .env.local, the task reads it and writes it again: the events arrive
    # together, and what was read is gone by the time planloop reads.
    watch, wd = watch_on(tmp_path)
    watch._note([(wd, IN_CREATE, ".env.local"), (wd, IN_CLOSE_WRITE, ".env.local")])
    watch._note([(wd, IN_ACCESS, ".env.local"), (wd, IN_MODIFY, ".env.local")])
    assert watch.windows[str(tmp_path / ".env.local")].unread


def test_one_command_writing_its_env_twice_does_not_count(tmp_path):
    # `cp .env.example .env` then `echo X=1 >> .env`, and a read of a file not yet written.
    watch, wd = watch_on(tmp_path)
    events = [(wd, IN_CREATE, ".env"), (wd, IN_ACCESS, "README"), (wd, IN_CLOSE_WRITE, ".env")]
    watch._note([*events, (wd, IN_MODIFY, ".env"), (wd, IN_CLOSE_WRITE, ".env")])
    assert not watch.windows[str(tmp_path / ".env")].unread
    watch._note([(wd, IN_ACCESS, "notes.txt"), (wd, IN_MODIFY, "notes.txt")])
    assert str(tmp_path / "notes.txt") not in watch.windows


@needs_bwrap
def test_a_ctrl_c_while_a_sandbox_judges_the_env_files_stops_the_command(tmp_path, monkeypatch):
    # Each `.env` of the workspace is judged for the key as the sandbox is made (16 MiB of one:
    # some 0.7 s), while the event loop, which serves Ctrl-C and SIGTERM, waits: a repository
    # of four held SIGTERM off for 5 s. One that comes meanwhile stops there.
    from tools import event_queues, sandbox

    for number in range(3):
        (tmp_path / f".env.s{number}").write_text("DEBUG=1\n")
    judged = []

    def judging_as_ctrl_c_comes(path, *args) -> bool:
        judged.append(path)
        event_queues.CTRL_C_COUNT[0] += 1  # as cli/signals.py counts one, at once
        return False

    monkeypatch.setattr(sandbox, "holds_known_secret", judging_as_ctrl_c_comes)
    with pytest.raises(ToolError, match="did not run: Ctrl-C came as its sandbox was made"):
        sandbox.Bubblewrap().wrap(tmp_path, "true")
    assert len(judged) == 1
