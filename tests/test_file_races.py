"""The file tools against a racing process: a checked path is the path that is used.

A real background process swaps a folder of the workspace for a symlink (to another folder, or
to `.git`), or exchanges two folders atomically with renameat2(RENAME_EXCHANGE), again and again,
while write_file is called a bounded number of times. Whatever the timing, nothing outside the
workspace and nothing in the git directory may change. A FIFO at a path makes read_file fail
with an error instead of blocking (and planloop's own looks at a file it checked pass it by),
and file work runs off the event loop, so a cancel is served while a write is still going on;
the rename is the write's commit point.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import hashlib
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import results_by_id, run, run_cli

from cli.diffs import snapshot as diff_snapshot
from fakeapi import text, tool_use
from middleware import PermissionPolicy
from tools import ToolError
from tools.files import WRITE_FILE, read_file, write_file

ATTEMPTS = 200
EVIL = "[core]\n\tfsmonitor = touch /tmp/planloop-pwned\n"

# The racer: swap `name` between a real folder and something else until `stop` exists.
# "link": unlink/rmdir and recreate (a symlink to TARGET, then a folder again).
# "exchange": renameat2(RENAME_EXCHANGE) of `name` and OTHER, atomically, again and again.
RACER = r"""
import ctypes, ctypes.util, os, sys
mode, name, target, ready, stop = sys.argv[1:6]
libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
def clear(folder):
    for entry in os.listdir(folder):
        try:
            os.unlink(os.path.join(folder, entry))
        except OSError:
            pass
rounds = 0
while not os.path.exists(stop):
    try:
        if mode == "exchange":
            libc.renameat2(-100, name.encode(), -100, target.encode(), 2)
        elif os.path.islink(name):
            os.unlink(name)
            os.mkdir(name)
        else:
            clear(name)
            os.rmdir(name)
            os.symlink(target, name)
    except OSError:
        pass
    rounds += 1
    if rounds == 20:
        open(ready, "w").close()
"""


def renameat2_available() -> bool:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return hasattr(libc, "renameat2")


needs_renameat2 = pytest.mark.skipif(not renameat2_available(), reason="no renameat2 in libc")


class Racer:
    """A separate process that keeps swapping one path, started and stopped by state files."""

    def __init__(self, mode: str, name: Path, target: Path, scratch: Path) -> None:
        self.ready, self.stop = scratch / "racer-ready", scratch / "racer-stop"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                RACER,
                mode,
                str(name),
                str(target),
                str(self.ready),
                str(self.stop),
            ]
        )

    def __enter__(self) -> Racer:
        while not self.ready.exists():  # it has swapped a few times: it is surely running
            assert self.process.poll() is None, "the racer died before it started"
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop.touch()
        self.process.wait(timeout=30)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` (links not followed) with a hash of its content."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


# ---- writes never leave the workspace ------------------------------------------------------


@pytest.mark.parametrize("mode", ["link", pytest.param("exchange", marks=needs_renameat2)])
def test_a_folder_swapped_for_a_link_outside_never_receives_a_write(tmp_path: Path, mode):
    workspace, outside, scratch = tmp_path / "work", tmp_path / "outside", tmp_path / "scratch"
    for folder in (workspace, outside, scratch):
        folder.mkdir()
    (outside / "bashrc").write_text("untouched\n")
    (workspace / "d").mkdir()
    if mode == "exchange":  # "d" and "l" trade places: a folder, and a link to outside
        (workspace / "l").symlink_to(outside)
    before = snapshot(outside)
    outcomes = {"written": 0, "refused": 0}
    with Racer(mode, workspace / "d", workspace / "l" if mode == "exchange" else outside, scratch):
        for attempt in range(ATTEMPTS):
            name = "bashrc" if attempt % 2 else f"new-{attempt}.txt"  # replace, and create
            try:
                write_file(workspace, f"d/{name}", "written by the tool\n")
                outcomes["written"] += 1
            except ToolError:
                outcomes["refused"] += 1
    assert snapshot(outside) == before
    assert outcomes["refused"] > 0  # the race was real: the tool met the swapped path


# ---- writes never reach the git directory --------------------------------------------------


@pytest.fixture
def git_workspace(workspace: Path) -> Path:
    git = workspace / ".git"
    for folder in ("objects", "refs/heads", "hooks"):
        (git / folder).mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "config").write_text("[core]\n\tbare = false\n")
    (workspace / "d").mkdir()
    return workspace


def real_git_dir(workspace: Path) -> Path:
    """The git directory, by its content, wherever the racer left it."""
    [git] = [p for p in workspace.iterdir() if p.is_dir() and (p / "HEAD").exists()]
    return git


def write_through_the_policy(api, make_agent, paths: list[str]) -> dict[str, dict]:
    """`write_file` on each path, 50 calls a reply, headless under the permission policy."""
    calls = [tool_use("write_file", {"path": path, "content": EVIL}) for path in paths]
    for start in range(0, len(calls), 50):
        api.add({"content": calls[start : start + 50]})
    api.add({"content": [text("Done.")]})
    run(make_agent(middleware=[PermissionPolicy(ask=None, sandboxed=True)]).run("go"))
    results = {}
    for request in api.accepted[1:]:
        results.update(results_by_id(request))
    return results


@pytest.mark.parametrize("mode", ["link", pytest.param("exchange", marks=needs_renameat2)])
def test_a_folder_swapped_with_git_never_lets_a_write_into_it(
    api, make_agent, git_workspace: Path, tmp_path: Path, mode
):
    """ "d" becomes a link to .git, or trades places with .git itself: d/config and
    d/hooks/pre-commit must never be written into the git directory."""
    workspace = git_workspace
    git_before = snapshot(workspace / ".git")
    target = workspace / ".git"
    paths = ["d/config" if n % 2 else "d/hooks/pre-commit" for n in range(ATTEMPTS)]
    with Racer(mode, workspace / "d", target, tmp_path):
        results = write_through_the_policy(api, make_agent, paths)
    assert len(results) == ATTEMPTS
    assert snapshot(real_git_dir(workspace)) == git_before
    assert not Path("/tmp/planloop-pwned").exists()


def test_a_link_to_git_that_appears_after_the_check_is_refused_by_the_tool(
    api, make_agent, git_workspace: Path
):
    """The policy saw a plain folder; the tool, writing, finds it is now a link into .git."""
    workspace = git_workspace
    swapped = []

    class SwapAfterTheCheck(PermissionPolicy):
        async def before_tool_call(self, ctx, *, signal=None):
            verdict = await super().before_tool_call(ctx, signal=signal)
            (workspace / "d").rmdir()
            (workspace / "d").symlink_to(".git")  # what a racing command does in between
            swapped.append(ctx.args["path"])
            return verdict

    call = tool_use("write_file", {"path": "d/config", "content": EVIL})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    run(make_agent(middleware=[SwapAfterTheCheck(ask=None, sandboxed=True)]).run("go"))
    result = results_by_id(api.accepted[1])[call["id"]]
    assert swapped == ["d/config"]
    assert result["is_error"] is True
    assert "leads to .git/config, which is protected" in result["content"]
    assert "fsmonitor" not in (workspace / ".git" / "config").read_text()


def test_a_git_directory_under_another_name_is_protected(api, make_agent, git_workspace: Path):
    """A git directory renamed to look like a plain folder is still one, by its content."""
    workspace = git_workspace
    (workspace / "d").rmdir()
    (workspace / ".git").rename(workspace / "d")
    results = write_through_the_policy(api, make_agent, ["d/config"])
    [result] = results.values()
    assert result["is_error"] is True and "was not changed" in result["content"]
    assert "fsmonitor" not in (workspace / "d" / "config").read_text()


# ---- reads never block ---------------------------------------------------------------------


def test_read_file_on_a_fifo_is_an_error_not_a_hang(tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.txt")  # nobody writes to it: a blocking open would never return
    message = str(pytest.raises(ToolError, read_file, tmp_path, "pipe.txt").value)
    assert "not a regular file" in message and "named pipe" in message


@needs_renameat2
def test_read_file_of_a_file_swapped_for_a_fifo_answers_every_time(tmp_path: Path):
    workspace, scratch = tmp_path / "work", tmp_path / "scratch"
    workspace.mkdir()
    scratch.mkdir()
    (workspace / "notes.txt").write_text("hello\n")
    os.mkfifo(workspace / "pipe")
    answers = {"read": 0, "refused": 0}
    # "notes.txt" trades places with the FIFO: sometimes a file, sometimes a pipe.
    with Racer("exchange", workspace / "notes.txt", workspace / "pipe", scratch):
        for _ in range(ATTEMPTS):
            try:
                read_file(workspace, "notes.txt")
                answers["read"] += 1
            except ToolError as refused:
                assert "not a regular file" in str(refused) or "not found" in str(refused)
                answers["refused"] += 1
    assert sum(answers.values()) == ATTEMPTS


def answered_unless_stuck(look, fifo: Path):
    """What `look()` answers; fails the test if it waits on `fifo` instead (ended for it by a
    writer, so that a failing test does not hang)."""
    answers, done = [], threading.Event()
    thread = threading.Thread(target=lambda: (answers.append(look()), done.set()), daemon=True)
    thread.start()
    if not done.wait(60):  # a guard against a hang only: a look that works ends at once
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join()
        pytest.fail(f"planloop waited for a writer of the FIFO {fifo}")
    return answers[0]


def made_a_fifo_once_checked(monkeypatch, path: Path) -> None:
    """A command's timing at its worst: `path` becomes a FIFO just after planloop has checked
    that it is a file it may run (os.access comes last of those checks, before the read)."""
    real_access = os.access

    def swapped(where, mode, *args, **kwargs):
        if Path(where) == path and path.is_file():
            path.unlink()
            os.mkfifo(path, 0o755)
        return real_access(where, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", swapped)


def test_a_program_an_envrc_names_made_a_fifo_after_its_check_is_not_waited_on(
    tmp_path: Path, monkeypatch
):
    from tools.shell_config import envrc_untold

    setup = tmp_path / "tools" / "setup"
    setup.parent.mkdir()
    setup.write_text("export APP_ENV=dev\n")
    setup.chmod(0o755)
    (tmp_path / ".envrc").write_text("prlimit ./tools/setup\n")
    made_a_fifo_once_checked(monkeypatch, setup)
    answered_unless_stuck(lambda: envrc_untold(tmp_path / ".envrc"), setup)
    assert stat.S_ISFIFO(os.lstat(setup).st_mode)  # (the swap did happen)


def test_a_file_a_credential_helper_names_made_a_fifo_after_its_check_is_not_waited_on(
    tmp_path: Path, monkeypatch
):
    from tools.named_keys import helper_reads

    token = tmp_path / "token"
    token.write_text("ghp_0123456789\n")
    token.chmod(0o755)  # (a file on a FAT mount: executable, and no program)
    made_a_fifo_once_checked(monkeypatch, token)
    read = answered_unless_stuck(lambda: helper_reads(f"!f() {{ cat {token}; }}; f"), token)
    assert read == [token]  # a FIFO is no program: hidden, as the token file was
    assert stat.S_ISFIFO(os.lstat(token).st_mode)


def test_through_the_cli_a_fifo_read_is_an_error_and_the_run_ends(api, env, workspace):
    os.mkfifo(workspace / "notes.txt")
    call = tool_use("read_file", {"path": "notes.txt"})
    api.add({"content": [call]})
    api.add({"content": [text("It is a pipe.")]})
    done = run_cli("-p", "read notes.txt", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert "It is a pipe." in done.stdout
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True and "not a regular file" in result["content"]


# ---- off the event loop, with a commit point -----------------------------------------------


def blocked_fsync(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """Make the next fsync wait: (reached, release). The write is then mid-way, in its thread."""
    reached, release = threading.Event(), threading.Event()
    real_fsync = os.fsync

    def waiting_fsync(fd: int) -> None:
        reached.set()
        release.wait()
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", waiting_fsync)
    return reached, release


def test_a_cancel_before_the_rename_writes_nothing(tmp_path: Path, monkeypatch):
    """While the write waits in its thread the event loop still runs and takes the cancel;
    the write then stops before its rename: nothing written, no temporary file left."""
    reached, release = blocked_fsync(monkeypatch)
    (tmp_path / "a.txt").write_text("old\n")

    async def scenario() -> bool:
        task = asyncio.ensure_future(WRITE_FILE.handler(tmp_path, path="a.txt", content="new\n"))
        await asyncio.to_thread(reached.wait)  # the loop is free while the write is blocked
        task.cancel()
        await asyncio.sleep(0)  # the cancel reaches the handler, which tells the thread
        release.set()
        await asyncio.gather(task, return_exceptions=True)
        return task.cancelled()

    assert run(scenario()) is True
    assert (tmp_path / "a.txt").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_cancel_after_the_rename_reports_the_write(tmp_path: Path, monkeypatch):
    """A cancel that arrives once the file is renamed into place cannot undo it: the result
    says it was written, not "interrupted"."""
    renamed, release = threading.Event(), threading.Event()
    real_replace = os.replace

    def replace_then_wait(*args, **kwargs) -> None:
        real_replace(*args, **kwargs)
        renamed.set()
        release.wait()

    monkeypatch.setattr(os, "replace", replace_then_wait)

    async def scenario() -> str:
        task = asyncio.ensure_future(WRITE_FILE.handler(tmp_path, path="b.txt", content="new\n"))
        await asyncio.to_thread(renamed.wait)
        task.cancel()
        await asyncio.sleep(0)
        release.set()
        return await task

    assert run(scenario()).startswith("Wrote 4 bytes (1 line) to b.txt")
    assert (tmp_path / "b.txt").read_text() == "new\n"


def test_the_terminal_diff_snapshot_never_blocks_on_a_fifo(tmp_path: Path):
    """The interactive terminal reads a file before and after an edit, to show a diff; a pipe
    at that path gives no diff instead of a frozen terminal."""
    os.mkfifo(tmp_path / "notes.txt")
    (tmp_path / "plain.txt").write_text("hello\n")
    (tmp_path / "out").symlink_to("/etc")
    assert diff_snapshot(tmp_path, "notes.txt") is None
    assert diff_snapshot(tmp_path, "out/hostname") is None  # outside the workspace
    assert diff_snapshot(tmp_path, "plain.txt") == "hello\n"


def test_a_folder_moved_in_the_instant_before_the_rename_is_said(tmp_path: Path, monkeypatch):
    """A task that swaps two folders over and over can move the folder between the last check
    and the rename: the file goes with the folder. The result says where it lies now, instead
    of "Wrote ... to d/x"."""
    (tmp_path / "d").mkdir()
    real_replace = os.replace

    def moved_then_replace(*args, **kwargs) -> None:
        os.rename(tmp_path / "d", tmp_path / "elsewhere")  # the racer's step, at the worst time
        real_replace(*args, **kwargs)

    monkeypatch.setattr(os, "replace", moved_then_replace)
    with pytest.raises(
        ToolError,
        match=r"folder was moved while it was: the file now lies at "
        r"elsewhere/x\.",
    ):
        run(WRITE_FILE.handler(tmp_path, path="d/x", content="new\n"))
    assert (tmp_path / "elsewhere/x").read_text() == "new\n"
