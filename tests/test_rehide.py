"""A hidden file outside your home replaced on the host while a background task runs (a
terminal closing saves the history your HISTFILE keeps elsewhere by rename) is hidden again in
the task's sandbox, and the task goes on; the person is told it could read the new file until
then. A replaced file holding the key, or one that cannot be hidden again, still stops the task.
In your home, which a sandbox shows as a view (tools/sandbox.py `home_views`), nothing saved or
made on the host reaches a running task at all: there is nothing to hide again, or to say.

The end-to-end tests drive `python agent.py -p` against the fake API, as root and as an
unprivileged user, with the home and the workspace outside /tmp (the sandbox's /tmp is its
own); the person's edits are made by the test once the task has reached a state.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_binds_replaced as binds
from conftest import API_KEY, account_home_at, outside_tmp, run
from test_hostile_pass4 import NOBODY, can_switch_user, needs_bwrap, run_as, tool_results

from fakeapi import text, tool_use
from tools import sandbox as sandbox_module
from tools.base import ToolError
from tools.bash import run_bash
from tools.bind_watch import SandboxStart, identity, what_was_lost
from tools.rehide import hide_again
from tools.sandbox import Bubblewrap

NEW_HISTORY = "ls\ncurl -H 'Authorization: Bearer not-for-the-model' example.com\n"
SAID = "was replaced on the host while bg-1 ran; hidden again in its sandbox"


@functools.cache
def why_this_kernel_cannot() -> str | None:
    """Why a file cannot be hidden again in a running sandbox here (the new mount API:
    Linux 5.12 or later, and bwrap run as root to try it), or None when it can."""
    if os.geteuid() != 0 or shutil.which("bwrap") is None:
        return None  # the tests that need it skip for that reason of their own
    place = outside_tmp("planloop-rehide-probe-")
    try:
        hidden = place / ".lesshst"
        hidden.write_text("old\n")
        sandbox = sandbox_reading(place, hidden)
        try:
            binds.save_by_rename(hidden, "new\n", "root")
            return hide_again(sandbox.pid, str(hidden), identity(str(hidden)))
        finally:
            sandbox.kill()
            sandbox.wait()
    finally:
        shutil.rmtree(place, ignore_errors=True)


@pytest.fixture(params=["root", "nobody"])
def your_folders(request) -> Iterator[tuple[str, Path, Path, Path]]:
    """(user, workspace, planloop home, home) outside /tmp, that the user owns, with a folder
    `kept` beside them."""
    user = request.param
    if user == "nobody" and not can_switch_user():
        pytest.skip("needs root, setpriv, and a Python the unprivileged user can run")
    place = outside_tmp("planloop-rehide-")
    paths = [place / name for name in ("work", "planloop-home", "home", "kept")]
    for path in paths:
        path.mkdir()
    if user == "nobody":
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(place)], check=True)
    yield user, *paths[:3]
    shutil.rmtree(place, ignore_errors=True)


@pytest.fixture
def folders(your_folders) -> tuple[str, Path, Path, Path]:
    """(user, workspace, planloop home, kept): `kept` is where your HISTFILE and PYTHON_HISTORY
    keep your histories, outside your home (`run_keeping_histories`), on a kernel where planloop
    can hide a file again (elsewhere it stops the task, as tested in test_binds_replaced.py)."""
    if (why := why_this_kernel_cannot()) is not None:
        pytest.skip(f"this kernel cannot hide a file again in a running sandbox: {why}")
    user, workspace, planloop_home, home = your_folders
    return user, workspace, planloop_home, home.with_name("kept")


def run_keeping_histories(
    user: str, api, env: dict, workspace: Path, planloop_home: Path, kept: Path
) -> subprocess.CompletedProcess:
    """planloop run with your home beside `kept`, and your histories kept in `kept` (HISTFILE,
    PYTHON_HISTORY): hidden by a bind of the empty file, as no view shows that folder."""
    home = kept.with_name("home")
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    env.update(HISTFILE=str(kept / ".bash_history"), PYTHON_HISTORY=str(kept / ".python_history"))
    return run_as(user, api, env, workspace, home)


def reads_history_after_go(kept: Path) -> str:
    """A task that reads the history kept in `kept` once planloop has looked (`go` is made by
    a command, which only runs after that look), then keeps running."""
    return (
        binds.HOLD_LOCK + "touch started; until [ -e go ]; do sleep 0.05; done; "
        f"cat {kept}/.bash_history > seen.txt; touch read; sleep 600"
    )


def start_and_close_a_terminal(api, user: str, workspace: Path, kept: Path) -> None:
    """The model starts the task; the person closes a terminal (bash saves the history by
    rename); the model then runs a command, which makes `go`."""
    binds.write_owned(kept / ".bash_history", "ls\n", user)

    def you_close_a_terminal() -> None:
        binds.save_by_rename(kept / ".bash_history", NEW_HISTORY, user)
        (workspace / "saved").touch()

    def then_a_command(_body: dict) -> dict:
        binds.wait_for(workspace / "saved")
        return {"content": [tool_use("bash", {"command": "touch go"})]}

    binds.person_after(workspace / "started", you_close_a_terminal)
    task = reads_history_after_go(kept)
    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(then_a_command)


@needs_bwrap
def test_a_history_saved_under_a_running_task_is_hidden_again_and_the_task_goes_on(
    api, env, folders
):
    user, workspace, planloop_home, kept = folders
    start_and_close_a_terminal(api, user, workspace, kept)

    def look_at_it(_body: dict) -> dict:
        binds.done_or_stopped(workspace / "read", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add(look_at_it)
    api.add({"content": [text("Done.")]})
    result = run_keeping_histories(user, api, env, workspace, planloop_home, kept)
    assert result.returncode == 0, result.stderr
    assert (workspace / "read").exists(), result.stderr  # it went on past the save
    assert (workspace / "seen.txt").read_text() == ""  # and read the empty file there
    assert (kept / ".bash_history").read_text() == NEW_HISTORY  # the host's is untouched
    output = tool_results(api)[-1]
    assert "running for" in output and "killed" not in output, output
    flat = " ".join(result.stderr.split())
    assert f".bash_history {SAID} (bg-1 could read the new one until then)" in flat, flat
    assert "planloop stopped the run" not in flat


@needs_bwrap
def test_a_history_made_under_a_running_task_is_hidden_there_too_and_the_task_goes_on(
    api, env, folders
):
    # Your first Python REPL (or `less`) writes a history that was not there when the task
    # started, while the model waits: hidden in its sandbox at once, with no tool call to
    # prompt a look, and the task goes on.
    user, workspace, planloop_home, kept = folders
    history = kept / ".python_history"

    def you_quit_your_first_repl() -> None:
        binds.save_by_rename(history, "import os\nos.environ['T'] = 'not-for-the-model'\n", user)

    def look_once_hidden(_body: dict) -> dict:
        binds.done_or_stopped(workspace / "hidden", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    binds.person_after(workspace / "started", you_quit_your_first_repl)
    # It waits until the history is there and reads as empty: only a hiding does that.
    task = (
        binds.HOLD_LOCK + f"touch started; until [ -e {history} ] && [ ! -s {history} ]; "
        "do sleep 0.05; done; touch hidden; sleep 600"
    )
    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(look_once_hidden)
    api.add({"content": [text("Done.")]})
    result = run_keeping_histories(user, api, env, workspace, planloop_home, kept)
    assert result.returncode == 0, result.stderr
    assert (workspace / "hidden").exists(), result.stderr
    output = tool_results(api)[-1]
    assert "running for" in output and "killed" not in output, output
    flat = " ".join(result.stderr.split())
    said = ".python_history was made on the host while bg-1 ran; hidden in its sandbox too"
    assert said in flat, flat


# ---- your home, shown as a view: nothing the host saves or makes there reaches a task ------

NEW_TOKEN = "https://me:ghp_NEWnotforthemodel@github.com\n"
NEW_AWS_KEY = "wJalrXUtnFEMIK7MDENGnotforthemodel"


def reads_until_saved(path: Path) -> str:
    """A task that reads `path` again and again until the person's save is done (`saved`),
    once more after it, then keeps running: what it read is in seen.txt."""
    return (
        binds.HOLD_LOCK + "touch started; until [ -e saved ]; do "
        f"cat {path} >> seen.txt 2>/dev/null; sleep 0.01; done; "
        f"cat {path} >> seen.txt 2>/dev/null; touch read; sleep 600"
    )


def run_while_you_save(api, env, folders, path: Path, save) -> tuple[str, str]:
    """A task reads `path` in your home while you `save` (in another terminal); then the model
    looks at it. What the task read, and what planloop told the person (its lines joined; the
    task's own command among them)."""
    user, workspace, planloop_home, home = folders

    def you_save() -> None:
        save()
        if user == "nobody":
            subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(home)], check=True)
        (workspace / "saved").touch()

    def look_at_it(_body: dict) -> dict:
        binds.done_or_stopped(workspace / "read", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    binds.person_after(workspace / "started", you_save)
    task = reads_until_saved(path)
    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(look_at_it)
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    assert (workspace / "read").exists(), result.stderr  # it went on past the save
    output = tool_results(api)[-1]
    assert "running for" in output and "killed" not in output, output
    return (workspace / "seen.txt").read_text(), " ".join(result.stderr.split())


@needs_bwrap
def test_a_credential_saved_by_rename_under_a_running_task_stays_hidden_there(
    api, env, your_folders
):
    # git's credential store saves ~/.git-credentials by renaming a new file over it (after a
    # `git push` that asked for a new token): the task running meanwhile never reads it, and
    # there is nothing to hide again or to tell.
    user, workspace, planloop_home, home = your_folders
    credentials = home / ".git-credentials"
    binds.write_owned(credentials, "https://me:ghp_OLDnotforthemodel@github.com\n", user)

    seen, told = run_while_you_save(
        api,
        env,
        your_folders,
        credentials,
        lambda: binds.save_by_rename(credentials, NEW_TOKEN, user),
    )
    assert seen == "", seen
    assert credentials.read_text() == NEW_TOKEN  # the host's is untouched
    assert "on the host" not in told and "could read" not in told, told


@needs_bwrap
def test_a_secret_folder_made_under_a_running_task_is_not_there_for_it(api, env, your_folders):
    # Your first `aws configure` while a dev server runs: ~/.aws appears on the host, never in
    # the task's sandbox, and the task goes on.
    user, workspace, planloop_home, home = your_folders
    credentials = home / ".aws" / "credentials"

    def you_configure_aws() -> None:
        credentials.parent.mkdir(mode=0o700)
        credentials.write_text(f"[default]\naws_secret_access_key = {NEW_AWS_KEY}\n")

    seen, told = run_while_you_save(api, env, your_folders, credentials, you_configure_aws)
    assert seen == "", seen
    assert "on the host" not in told and "could read" not in told, told


@needs_bwrap
def test_a_home_with_more_entries_than_a_view_can_show_runs_no_command(workspace, monkeypatch):
    # bwrap takes a bounded number of words: past the bound, no command runs (none could
    # run with your home's secrets hidden), and the model is told why.
    home = outside_tmp("planloop-big-home-")
    try:
        for number in range(12):
            (home / f"notes-{number}.txt").write_text("mine\n")
        (home / ".git-credentials").write_text(NEW_TOKEN)
        monkeypatch.setattr(sandbox_module, "MAX_VIEW_ENTRIES", 10)
        with account_home_at(home, home, monkeypatch), pytest.raises(ToolError) as refused:
            run(run_bash(workspace, "cat ~/.git-credentials", sandbox=Bubblewrap()))
    finally:
        shutil.rmtree(home.parent, ignore_errors=True)
    said = str(refused.value)
    assert said.startswith("bash: the command did not run: "), said
    assert f"{home}, which holds secrets the sandbox hides, holds more entries" in said


def test_a_secret_made_in_the_hosts_tmp_is_none_a_sandbox_could_read(tmp_path):
    # Every sandbox has a /tmp of its own: a history made in a home under the host's /tmp is
    # not seen there, and stops nothing; one in a workspace under /tmp is (the workspace is).
    made = "/tmp/a-home-of-tests/.python_history"
    start = SandboxStart(Path("/var/tmp/work"), frozenset(), frozenset())
    assert what_was_lost(None, start, (frozenset(), frozenset({made}))).seen == []
    start = SandboxStart(Path("/tmp/a-home-of-tests"), frozenset(), frozenset())
    assert what_was_lost(None, start, (frozenset(), frozenset({made}))).seen == [made]


def test_a_file_hidden_again_that_comes_to_hold_the_key_counts_as_read(tmp_path, monkeypatch):
    # A task that opened the new history before planloop hid it again reads on through its
    # descriptor: when your shell then appends the key in place (zsh's INC_APPEND_HISTORY),
    # no rename tells of it, and the file counts as read all the same.
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    history = tmp_path / ".zsh_history"
    history.write_text("ls\n")
    start = SandboxStart(tmp_path / "work", frozenset(), frozenset({str(history)}))
    start.identities[str(history)] = identity(str(history))
    start.rehidden.add(str(history))
    nothing_new = (frozenset(), frozenset({str(history)}))
    assert what_was_lost(None, start, nothing_new).seen == []
    with open(history, "a") as file:
        file.write(f"export {binds.KEY_LINE}")
    assert what_was_lost(None, start, nothing_new).seen == [str(history)]


@needs_bwrap
def test_a_hidden_file_replaced_holding_the_key_still_stops_the_task(api, env, folders):
    # First the history, hidden again; then the person saves it holding the key (`history`
    # after an `export ANTHROPIC_API_KEY=...`): the task could read it, so it is stopped.
    user, workspace, planloop_home, kept = folders
    start_and_close_a_terminal(api, user, workspace, kept)
    stopped_at_once: list[bool] = []

    def you_save_the_key(_body: dict) -> dict:
        binds.done_or_stopped(workspace / "read", workspace / "lock")
        binds.save_by_rename(kept / ".bash_history", f"export {binds.KEY_LINE}", user)
        stopped_at_once.append(binds.lock_released(workspace / "lock"))
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add(you_save_the_key)
    api.add({"content": [text("Done.")]})  # never asked for: the run stops first
    result = run_keeping_histories(user, api, env, workspace, planloop_home, kept)
    assert (workspace / "read").exists(), result.stderr  # the first save stopped nothing
    assert stopped_at_once == [True]
    assert result.returncode == binds.EXIT_STOPPED, result.stderr
    binds.assert_never_sent(api, API_KEY)
    flat = " ".join(result.stderr.split())
    assert f".bash_history {SAID}" in flat, flat
    assert "bg-1 was stopped and its output kept from the model" in flat
    assert ".bash_history was replaced on the host, which undid its hiding" in flat


@needs_bwrap
def test_a_history_that_cannot_be_hidden_again_stops_the_task_as_before(api, env, folders):
    # First the history, hidden again; then it is replaced by a link (a dotfile manager's):
    # the sandbox would have to follow it, so it is not hidden again, and the task is stopped.
    user, workspace, planloop_home, kept = folders
    start_and_close_a_terminal(api, user, workspace, kept)
    binds.write_owned(kept / "kept_history", NEW_HISTORY + "make\n", user)
    stopped_at_once: list[bool] = []

    def you_link_it(_body: dict) -> dict:
        binds.done_or_stopped(workspace / "read", workspace / "lock")
        link = kept / ".bash_history.linking"
        os.symlink(kept / "kept_history", link)
        if user == "nobody":
            os.lchown(link, NOBODY, NOBODY)
        os.rename(link, kept / ".bash_history")
        stopped_at_once.append(binds.lock_released(workspace / "lock"))
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    api.add(you_link_it)
    api.add({"content": [text("Done.")]})
    result = run_keeping_histories(user, api, env, workspace, planloop_home, kept)
    assert (workspace / "read").exists(), result.stderr  # the first save stopped nothing
    assert stopped_at_once == [True]
    assert result.returncode == 0, result.stderr
    output = tool_results(api)[-1]
    assert "bg-1: killed by planloop" in output, output
    assert "[bg-1 was stopped: its sandbox no longer held them]" in output
    flat = " ".join(result.stderr.split())
    assert ".bash_history was replaced on the host while bg-1 ran, which undid" in flat, flat


# ---- hide_again itself, against a bwrap sandbox made here (as root) ----------------------


@pytest.fixture
def sandbox_folder() -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("bwrap") is None:
        pytest.skip("makes its own sandbox as root")
    place = outside_tmp("planloop-rehide-unit-")
    yield place
    shutil.rmtree(place, ignore_errors=True)


def sandbox_reading(place: Path, hidden: Path, mounts: tuple[str, ...] = ()) -> subprocess.Popen:
    """bwrap, as planloop makes it, hiding `hidden`: once `go` appears in `place` it copies
    `read` (a path of its own, `hidden` unless `mounts` add one) to `seen`, then makes `done`."""
    empty = place / "empty"
    empty.write_bytes(b"")
    words = ["--ro-bind", "/", "/", "--bind", str(place), str(place)]
    words += ["--ro-bind", str(empty), str(hidden), *mounts, "--tmpfs", "/tmp"]
    words += ["--proc", "/proc", "--dev", "/dev", "--unshare-user", "--cap-drop", "ALL"]
    words += ["--unshare-pid", "--die-with-parent", "--new-session", "--unshare-net"]
    script = (
        "touch started; until [ -e go ]; do sleep 0.05; done; "
        "cat $(cat read) > seen 2>&1; touch done; sleep 600"
    )
    (place / "read").write_text(str(hidden))
    process = subprocess.Popen(["bwrap", *words, "--chdir", str(place), "bash", "-c", script])
    binds.wait_for(place / "started")
    return process


def seen_after_go(place: Path) -> str:
    (place / "go").touch()
    binds.wait_for(place / "done")
    return (place / "seen").read_text()


def test_hide_again_binds_an_empty_file_there_and_nowhere_else(sandbox_folder: Path):
    hidden = sandbox_folder / ".lesshst"
    hidden.write_text("old\n")
    sandbox = sandbox_reading(sandbox_folder, hidden)
    try:
        binds.save_by_rename(hidden, "new\n", "root")
        assert hide_again(sandbox.pid, str(hidden), identity(str(hidden))) is None
        assert seen_after_go(sandbox_folder) == ""
        assert hidden.read_text() == "new\n"  # on the host, as it was saved
    finally:
        sandbox.kill()
        sandbox.wait()


def test_hide_again_never_follows_a_link_there(sandbox_folder: Path):
    # In the sandbox the path's folder is a link (a task made it) to where the file is: the
    # file at its end is the replaced one, and still it is not hidden again.
    (sandbox_folder / "home").mkdir()
    (sandbox_folder / "elsewhere").mkdir()
    hidden = sandbox_folder / "home" / ".lesshst"
    hidden.write_text("old\n")
    home, elsewhere = str(sandbox_folder / "home"), str(sandbox_folder / "elsewhere")
    links = ("--ro-bind", home, elsewhere, "--tmpfs", home, "--symlink", elsewhere, f"{home}/in")
    sandbox = sandbox_reading(sandbox_folder, hidden, links)
    try:
        binds.save_by_rename(hidden, "new\n", "root")
        linked = f"{home}/in/.lesshst"
        (sandbox_folder / "read").write_text(linked)
        why = hide_again(sandbox.pid, linked, identity(str(hidden)))
        assert why is not None and "not the replaced file" in why
        assert seen_after_go(sandbox_folder) == "new\n"  # the proof it led there
    finally:
        sandbox.kill()
        sandbox.wait()


def test_hide_again_refuses_when_the_sandbox_is_gone(sandbox_folder: Path):
    hidden = sandbox_folder / ".lesshst"
    hidden.write_text("old\n")
    sandbox = sandbox_reading(sandbox_folder, hidden)
    sandbox.kill()
    sandbox.wait()
    binds.save_by_rename(hidden, "new\n", "root")
    assert hide_again(sandbox.pid, str(hidden), identity(str(hidden))) is not None


def test_hide_again_never_binds_in_planloops_own_namespace(sandbox_folder: Path):
    # A process that is no sandbox's (a pid reused, say): binding there would hide the
    # person's own file from the person.
    hidden = sandbox_folder / ".lesshst"
    hidden.write_text("yours\n")
    started = sandbox_folder / "started"
    # The marker is made by the shell's one child itself: a `touch` of the shell's own could
    # still be its second child when the marker appears.
    shell = subprocess.Popen(
        ["sh", "-c", f"(touch {started}; exec sleep 600) & wait"], start_new_session=True
    )
    try:
        binds.wait_for(started)
        why = hide_again(shell.pid, str(hidden), identity(str(hidden)))
        assert why is not None and "own mount namespace" in why
        assert hidden.read_text() == "yours\n"
    finally:
        os.killpg(shell.pid, signal.SIGKILL)  # its sleep too
        shell.wait()
