"""No write outside the workspace, whatever the file: named pipes, sockets and devices included.

bwrap mounts the system read-only, but the kernel opens a FIFO for writing whatever the mount
says: a sandboxed command could feed a host program that reads one (a media player's command
pipe, a status bar, systemd's initctl as root). Landlock (tools/landlock.py) refuses it. Each
end-to-end test drives `python agent.py` against the fake API, as root and as an unprivileged
user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import outside_tmp
from test_hostile_pass4 import needs_bwrap, tool_results, user_folders
from test_hostile_pass5_kernel import run_planloop

from fakeapi import text, tool_use
from tools import landlock, sandbox

__all__ = ["user_folders"]  # a fixture, used by name below

needs_landlock = pytest.mark.skipif(
    landlock.abi_version() < 1, reason="this kernel has no Landlock"
)


@pytest.fixture
def host_fifo(user_folders):
    """A named pipe outside the workspace (and outside /tmp, which the sandbox replaces) that a
    host program reads: opened here for reading, so that a writer's bytes would wait in it."""
    user = user_folders[0]
    folder = outside_tmp("planloop-fifo-")
    os.chmod(folder, 0o755)
    path = folder / "player-commands"
    os.mkfifo(path, 0o666)
    os.chmod(path, 0o666)
    if user == "nobody":
        os.chown(path, 65534, 65534)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    yield path, reader
    os.close(reader)
    shutil.rmtree(folder, ignore_errors=True)


def what_arrived(reader: int) -> bytes:
    """What waits in the pipe (b"" when nothing: no writer has it open, or one wrote nothing)."""
    try:
        return os.read(reader, 4096)
    except BlockingIOError:  # a writer still has it open, and wrote nothing
        return b""


@needs_bwrap
@needs_landlock
@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background"])
def test_a_sandboxed_command_cannot_write_to_a_pipe_outside_the_workspace(
    api, env, user_folders, host_fifo, background
):
    user, workspace, planloop_home, home = user_folders
    path, reader = host_fifo
    command = f"echo 'run /bin/sh -c \"touch ~/PWNED\"' > {path}; echo exit=$? > tried.txt"
    if background:
        start = tool_use("bash", {"command": command, "run_in_background": True})
        api.add({"content": [start]})
        api.add({"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 60})]})
    else:
        api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_planloop(user, api, env, workspace, home, planloop_home)
    assert result.returncode == 0, result.stderr
    # The command has ended (it wrote its exit status): whatever it wrote is in the pipe by now.
    assert (workspace / "tried.txt").read_text().strip() != "exit=0"
    assert what_arrived(reader) == b""
    if not background:
        assert "Permission denied" in tool_results(api)[0]


EVERYDAY_WRITES = """
set -e
echo text > made.txt && mkdir -p src/pkg && mv made.txt src/pkg/moved.txt
ln -s src/pkg/moved.txt shortcut
ln src/pkg/moved.txt hard.txt 2>/dev/null || cp src/pkg/moved.txt hard.txt  # no hard links
mkfifo local-pipe && rm local-pipe
: > src/pkg/moved.txt && rm -r src
echo scratch > /tmp/scratch && cat /tmp/scratch
echo gone > /dev/null && head -c 4 /dev/zero | wc -c
cat <<EOF
a here-document (bash writes it to /tmp first)
EOF
echo all-written
"""


@needs_bwrap
@needs_landlock
def test_everyday_writes_in_the_workspace_tmp_and_dev_still_work(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    api.add({"content": [tool_use("bash", {"command": EVERYDAY_WRITES})]})
    api.add({"content": [text("Done.")]})
    result = run_planloop(user, api, env, workspace, home, planloop_home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "a here-document" in output
    assert "all-written" in output, output
    assert (workspace / "shortcut").is_symlink() and (workspace / "hard.txt").exists()


def test_without_landlock_sandboxed_commands_ask_first(monkeypatch):
    monkeypatch.setattr(landlock, "abi_version", lambda: 0)
    monkeypatch.setattr(sandbox, "seccomp_filter_file", lambda: Path("/dev/null"))
    box = sandbox.Bubblewrap()
    assert box.must_ask and "no Landlock" in box.must_ask
    assert "ask before they run" in box.must_ask
    with tempfile.TemporaryDirectory() as folder:
        argv, _ = box.wrap(Path(folder), "true")
    assert sandbox.LANDLOCK_SOURCE not in argv  # no step that would fail for every command


@needs_landlock
def test_the_step_inside_the_sandbox_refuses_to_run_the_command_when_landlock_fails(tmp_path):
    # A folder that cannot be opened makes a rule fail: the command must not run unconfined.
    marker = tmp_path / "ran"
    step = [sys.executable, "-I", "-S", "-c", sandbox.LANDLOCK_SOURCE, str(tmp_path / "gone")]
    run = subprocess.run(
        [*step, "--", "/bin/sh", "-c", f"touch {marker}"], capture_output=True, text=True
    )
    assert run.returncode == 126
    assert "the command did not run" in run.stderr
    assert not marker.exists()


@needs_bwrap
@needs_landlock
def test_the_step_refuses_a_workspace_swapped_for_a_link_after_bwrap_bound_it(tmp_path):
    # A task of another session (whose workspace holds this one) renames the folder and puts a
    # link to a host folder in its place after bwrap's mount, before the step opens the path:
    # Landlock would then allow writes under the host folder, a named pipe there included.
    workspace, host = tmp_path / "inner", tmp_path / "host"
    workspace.mkdir()
    host.mkdir()
    argv, _ = sandbox.Bubblewrap().wrap(workspace, "true")
    start = argv.index(sandbox.LANDLOCK_SOURCE) + 1
    step = argv[start : argv.index("/tmp", start)]  # the workspace, and the folder it must be
    assert step == [str(workspace), f"={workspace.stat().st_dev}:{workspace.stat().st_ino}"]
    workspace.rename(tmp_path / "inner.moved")
    workspace.symlink_to(host)
    marker = host / "written"
    landlock_step = [sys.executable, "-I", "-S", "-c", sandbox.LANDLOCK_SOURCE, *step]
    command = ["/bin/sh", "-c", f"touch {marker}"]
    run = subprocess.run([*landlock_step, "--", *command], capture_output=True, text=True)
    assert run.returncode == 126
    assert "was moved or replaced while the sandbox was made" in run.stderr
    assert not marker.exists()


@needs_landlock
def test_the_step_inside_the_sandbox_keeps_writes_to_the_folders_it_names(tmp_path):
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    step = [sys.executable, "-I", "-S", "-c", sandbox.LANDLOCK_SOURCE, str(inside)]
    script = f"touch {inside}/yes; touch {outside}/no; mkfifo {outside}/pipe; true"
    run = subprocess.run([*step, "--", "/bin/sh", "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (inside / "yes").exists()
    assert list(outside.iterdir()) == []
    assert "Permission denied" in run.stderr
