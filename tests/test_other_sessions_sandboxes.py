"""A sandbox of another planloop session counts as a running task of this one.

bwrap finds each mount point by its path, and makes a missing one (a hooks folder's empty
stand-in) with mkdir, following links. A command that can rename a folder on that way while
bwrap works can swap it for a link into bwrap's view of the host (`/oldroot/...`), and bwrap
then makes folders on the host. So a new sandbox leaves out every mount whose way passes a path
a running sandbox could rename. A second session in the same project runs its commands in
sandboxes this process did not start: they count as well.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import outside_tmp
from test_hostile_pass4 import needs_bwrap

from tools.process import MARKER_VARIABLE, processes_below
from tools.sandbox import Bubblewrap


def wait_for(path: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def hooks_stand_in(argv: list[str], hooks: Path) -> bool:
    return any(argv[at : at + 2] == ["--tmpfs", str(hooks)] for at in range(len(argv)))


@needs_bwrap
def test_a_sandbox_of_another_session_counts_as_a_running_task(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # Another session's background task, started before the repository below existed: its
    # sandbox holds nothing of it, so it can rename r/m while this session's bwrap works.
    argv, env = Bubblewrap().wrap(workspace, "touch started; exec sleep 600")
    env = {**env, MARKER_VARIABLE: "a-command-of-another-session"}
    other = subprocess.Popen(argv, env=env, cwd=workspace, start_new_session=True)
    try:
        wait_for(workspace / "started")
        subprocess.run(["git", "init", "-q", "r"], cwd=workspace, check=True)
        subprocess.run(
            ["git", "-C", str(workspace / "r"), "config", "core.hooksPath", "m/hooks"], check=True
        )
        (workspace / "r" / "m").mkdir()
        hooks = workspace / "r" / "m" / "hooks"  # missing: an empty stand-in is mounted there
        this_session = Bubblewrap()
        argv, _ = this_session.wrap(workspace, "true")
        assert not hooks_stand_in(argv, hooks), argv
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait()
    argv, _ = this_session.wrap(workspace, "true")
    assert hooks_stand_in(argv, hooks), argv  # none runs now: made as usual


@needs_bwrap
def test_a_sandbox_of_a_session_in_another_project_leaves_this_one_whole(tmp_path):
    # Its /tmp is an empty one of its own: a workspace under the host's /tmp is out of its reach.
    workspace, elsewhere = tmp_path / "ws", tmp_path / "another-project"
    for folder in (workspace, elsewhere):
        folder.mkdir()
    subprocess.run(["git", "init", "-q", "r"], cwd=workspace, check=True)
    subprocess.run(["git", "-C", str(workspace / "r"), "config", "core.hooksPath", "m/hooks"])
    (workspace / "r" / "m").mkdir()
    argv, env = Bubblewrap().wrap(elsewhere, "touch started; exec sleep 600")
    env = {**env, MARKER_VARIABLE: "a-command-of-another-session"}
    other = subprocess.Popen(argv, env=env, cwd=elsewhere, start_new_session=True)
    try:
        wait_for(elsewhere / "started")
        argv, _ = Bubblewrap().wrap(workspace, "true")
        assert hooks_stand_in(argv, workspace / "r" / "m" / "hooks"), argv
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait()


def in_a_namespace_of_its_own(pid: int) -> bool:
    ours = os.readlink("/proc/self/ns/mnt")
    for inside, _ in processes_below([pid]):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{inside}/ns/mnt") != ours:
                return True
    return False


@needs_bwrap
def test_a_sandbox_still_being_made_counts_for_nothing():
    # Until bwrap has made every mount, its process there sees a copy of the host's mounts, each
    # as writable as on the host: read as a running task, every path would be movable, and
    # this session's sandbox would leave its protections out (a loaded machine made that
    # happen: a planted hook, then run by the person's git).
    # (Outside /tmp: bwrap soon mounts a / of its own, of another file system than the host's.)
    workspace = outside_tmp("planloop-being-made-")
    subprocess.run(["git", "init", "-q", "r"], cwd=workspace, check=True)
    subprocess.run(["git", "-C", str(workspace / "r"), "config", "core.hooksPath", "m/hooks"])
    (workspace / "r" / "m").mkdir()
    argv, env = Bubblewrap().wrap(workspace, "true")
    # bwrap waits for its user namespace to be made ready, having made its mount namespace and
    # nothing in it yet.
    blocked, unblock = os.pipe()
    info, told = os.pipe()
    at = argv.index("--chdir")
    argv[at:at] = ["--userns-block-fd", str(blocked), "--info-fd", str(told)]
    argv[at:at] = [] if "--unshare-user" in argv else ["--unshare-user"]
    env = {**env, MARKER_VARIABLE: "a-command-of-another-session"}
    other = subprocess.Popen(argv, env=env, pass_fds=(blocked, told), start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not in_a_namespace_of_its_own(other.pid):
            assert time.monotonic() < deadline, "bwrap never made its namespace"
            time.sleep(0.02)
        argv, _ = Bubblewrap().wrap(workspace, "true")
        assert hooks_stand_in(argv, workspace / "r" / "m" / "hooks"), argv
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait()
        for fd in (unblock, blocked, info, told):
            os.close(fd)


# A process of a sandboxed command that enters a user namespace of its own and chroots into
# the sandbox's /tmp: its mount table then lists that one tmpfs, of another file system.
CHROOTED = """
import ctypes, os, time
if os.fork():
    os._exit(0)
workspace = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:  # CLONE_NEWUSER
    os.close(os.open("refused", os.O_CREAT | os.O_WRONLY, dir_fd=workspace))
else:
    os.chroot("/tmp")
    os.close(os.open("chrooted", os.O_CREAT | os.O_WRONLY, dir_fd=workspace))
time.sleep(600)
"""


@needs_bwrap
def test_a_task_cannot_choose_the_mount_table_its_sandbox_is_judged_by(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    command = f"python3 -c {shlex.quote(CHROOTED)}; exec sleep 600"
    argv, env = Bubblewrap().wrap(workspace, command)
    env = {**env, MARKER_VARIABLE: "a-command-of-another-session"}
    other = subprocess.Popen(argv, env=env, cwd=workspace, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not {"chrooted", "refused"} & {path.name for path in workspace.iterdir()}:
            assert time.monotonic() < deadline, "the task never chrooted"
            time.sleep(0.02)
        if (workspace / "refused").exists():
            pytest.skip("no user namespace can be made in the sandbox here")
        subprocess.run(["git", "init", "-q", "r"], cwd=workspace, check=True)
        subprocess.run(["git", "-C", str(workspace / "r"), "config", "core.hooksPath", "m/hooks"])
        (workspace / "r" / "m").mkdir()
        argv, _ = Bubblewrap().wrap(workspace, "true")
        # The task can still rename r/m: the stand-in is left out, as for any task.
        assert not hooks_stand_in(argv, workspace / "r" / "m" / "hooks"), argv
    finally:
        os.killpg(other.pid, signal.SIGKILL)
        other.wait()
