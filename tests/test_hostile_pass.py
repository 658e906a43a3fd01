"""Routes out of the sandbox found by attacking it without its other tests in view.

- A vsock reaches the virtual machine's host past the network namespace, as a unix socket
  reaches the host's services: a sandboxed command may not open one, as root or as a user.
- planloop's own Python code (a virtual environment in the workspace, say) is writable by
  every command; what a command plants there runs, unconfined and with the key, the next time
  planloop starts. So sandboxed commands ask first there, as they do without a sandbox.
- A background task that keeps swapping the folder above a protected one (`.husky` above the
  hooks folder `.husky/_`, or `tools` above a missing `tools/hooks`) with a decoy made the next
  command's read-only mount land on the decoy, and the real hooks folder was writable: the
  user's next `git commit` ran a hook.
- In a workspace that is not a repository, the empty read-only `.git` that stands in its place
  was removed after each command; a background task's sandbox then lost that cover and could
  make a repository at the top, where git on the host (a shell prompt) runs its config.
"""

from __future__ import annotations

import os
import platform
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest
import spawn
from conftest import AGENT, run, wait_for_file

from fakeapi import text, tool_use
from tools.bash import run_bash
from tools.sandbox import Bubblewrap, bubblewrap_works

needs_bwrap = pytest.mark.skipif(
    bubblewrap_works() is not True, reason=f"no working bubblewrap: {bubblewrap_works()}"
)

# Opens a vsock and tries the host (CID 2); prints what happened, for the test to read.
VSOCK_PROBE = """
import socket
try:
    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
except OSError as err:
    print("refused", err.errno)
else:
    s.settimeout(2)
    try:
        s.connect((2, 9))
        print("answered")
    except OSError as err:
        print("opened", err.errno)
"""


def host_has_vsock() -> bool:
    try:
        socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close()
    except (OSError, AttributeError):
        return False
    return True


def probe_in_sandbox(workspace: Path) -> str:
    (workspace / "probe.py").write_text(VSOCK_PROBE)
    return run(run_bash(workspace, "python3 probe.py", 30, sandbox=Bubblewrap()))


@needs_bwrap
@pytest.mark.skipif(not host_has_vsock(), reason="this machine cannot open a vsock at all")
def test_a_sandboxed_command_cannot_open_a_vsock_as_root(tmp_path):
    output = probe_in_sandbox(tmp_path)
    assert "refused 1" in output, output  # EPERM from the filter, before any connection


@needs_bwrap
@pytest.mark.skipif(not host_has_vsock(), reason="this machine cannot open a vsock at all")
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root")
def test_a_sandboxed_command_cannot_open_a_vsock_as_a_user():
    # A workspace that the unprivileged user owns, in a folder it can reach.
    workspace = Path(tempfile.mkdtemp(prefix="planloop-vsock-"))
    try:
        os.chmod(workspace, 0o755)
        os.chown(workspace, 65534, 65534)
        (workspace / "probe.py").write_text(VSOCK_PROBE)
        code = (
            "import asyncio, sys; from pathlib import Path; from tools.bash import run_bash; "
            "from tools.sandbox import Bubblewrap; "
            "print(asyncio.run(run_bash(Path(sys.argv[1]), 'python3 probe.py', 30, "
            "sandbox=Bubblewrap())))"
        )
        as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        checkout = str(AGENT.parent)
        done = subprocess.run(
            [*as_user, sys.executable, "-c", code, str(workspace)],
            cwd=checkout,
            env={**os.environ, "PYTHONPATH": checkout, "HOME": str(workspace)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        if "Permission denied" in done.stderr and "python" in done.stderr.lower():
            pytest.skip(f"the user cannot run this interpreter: {done.stderr.strip()[-200:]}")
        assert "refused 1" in done.stdout, done.stdout + done.stderr
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def workspace_with_own_venv(workspace: Path) -> Path:
    """A virtual environment in the workspace that planloop runs from; its anyio is a copy.

    Everything else comes from the test's own environment through a .pth file, so the copy
    in the workspace is the one planloop imports.
    """
    import anyio

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(workspace / ".venv")])
    [site] = (workspace / ".venv/lib").glob("python3*/site-packages")
    shutil.copytree(Path(anyio.__file__).parent, site / "anyio")
    (site / "test-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return workspace / ".venv/bin/python"


@needs_bwrap
def test_code_planted_in_planloops_own_venv_never_runs_outside(api, env, workspace, tmp_path):
    python = workspace_with_own_venv(workspace)
    outside = tmp_path / "outside" / "ran"
    outside.parent.mkdir()
    plant = (
        "cat >> .venv/lib/python3*/site-packages/anyio/__init__.py <<'END'\n"
        f"open({str(outside)!r}, 'w').write('planted code ran outside the sandbox')\n"
        "END\n"
        "rm -rf .venv/lib/python3*/site-packages/anyio/__pycache__"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    api.add({"content": [text("Hello again.")]})

    def planloop(prompt: str) -> subprocess.CompletedProcess:
        # Headless, sandbox on, no --yes: what a sandboxed command may do without asking.
        argv = [str(python), str(AGENT), "-p", prompt]
        return spawn.run(argv, cwd=workspace, env=env, capture_output=True, text=True, timeout=60)

    first = planloop("set things up")
    assert first.returncode == 0, first.stderr
    planloop("hello")  # the user's next run in the same folder
    assert not outside.exists(), "code a sandboxed command planted ran outside the sandbox"
    assert "lies inside the workspace" in first.stderr


# Swaps FOLDER with .decoy (a link to a look-alike) as fast as it can, until told to stop.
SWAPPER = """
import ctypes, os, sys
folder = sys.argv[1].encode()
libc = ctypes.CDLL(None, use_errno=True)
RENAME_EXCHANGE = 2
open("swapper-started", "w").close()
while not os.path.exists("stop-swapping"):
    libc.syscall(316, -100, folder, -100, b".decoy", RENAME_EXCHANGE)  # renameat2
if os.path.islink(folder):
    libc.syscall(316, -100, folder, -100, b".decoy", RENAME_EXCHANGE)
"""

# Writes a hook into the real hooks folder (FOLDER/LEAF, found by its marker), if it can.
PLANT_HOOK = """
for folder in %(folder)s .decoy; do
  if [ -e $folder/.real ] && mkdir -p $folder/%(leaf)s 2>/dev/null && \\
      printf '#!/bin/sh\\necho ran > %(ran)s\\n' > $folder/%(leaf)s/pre-commit 2>/dev/null && \\
      chmod +x $folder/%(leaf)s/pre-commit 2>/dev/null; then echo PLANTED; fi
done
"""


@needs_bwrap
@pytest.mark.skipif(platform.machine() != "x86_64", reason="renameat2 is called by number")
@pytest.mark.parametrize(
    ("folder", "leaf", "exists"),
    [(".husky", "_", True), ("tools", "hooks", False)],
    ids=["hooks-folder", "missing-hooks-folder"],
)
def test_a_racing_task_cannot_make_a_hooks_folder_writable(tmp_path, folder, leaf, exists):
    workspace = tmp_path / "repo"
    workspace.mkdir()
    git = ["git", "-c", "user.email=a@example.com", "-c", "user.name=A"]
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)
    hooks = f"{folder}/{leaf}"
    subprocess.run([*git, "config", "core.hooksPath", hooks], cwd=workspace, check=True)
    (workspace / folder).mkdir()
    (workspace / folder / ".real").write_text("")
    if exists:
        (workspace / hooks).mkdir()
    (workspace / "look-alike").mkdir()
    (workspace / ".decoy").symlink_to("look-alike")
    (workspace / "swapper.py").write_text(SWAPPER)
    ran = tmp_path / "hook-ran"
    (workspace / "plant.sh").write_text(PLANT_HOOK % {"folder": folder, "leaf": leaf, "ran": ran})

    sandbox = Bubblewrap()
    # Started as a background task is: through the same sandbox, running on while others run.
    argv, env = sandbox.wrap(workspace, f"python3 swapper.py {folder}")
    swapper = subprocess.Popen(argv, env=env, cwd=workspace)
    try:
        wait_for_file(workspace / "swapper-started")
        for _attempt in range(40):
            if "PLANTED" in run(run_bash(workspace, "bash plant.sh", 30, sandbox=sandbox)):
                break
    finally:
        (workspace / "stop-swapping").write_text("")
        swapper.wait(timeout=30)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "x"], cwd=workspace)
    assert not ran.exists(), "git on the host ran a hook that a sandboxed command planted"


@needs_bwrap
def test_a_background_task_cannot_make_a_repository_at_the_top(workspace, tmp_path):
    sandbox = Bubblewrap()
    planted = tmp_path / "fsmonitor-ran"
    later = (
        "touch task-started; while [ ! -e go-on ]; do sleep 0.05; done; "
        "mkdir -p .git/objects .git/refs && echo 'ref: refs/heads/main' > .git/HEAD && "
        f"printf '[core]\\n\\tfsmonitor = touch {planted}\\n' > .git/config; touch task-done"
    )
    # Started as a background task is, before a foreground command runs and ends.
    argv, env = sandbox.wrap(workspace, later, snapshot=sandbox.before_command(workspace))
    task = subprocess.Popen(argv, env=env, cwd=workspace)
    try:
        wait_for_file(workspace / "task-started")
        run(run_bash(workspace, "echo hello", 30, sandbox=sandbox))
        (workspace / "go-on").write_text("")
        wait_for_file(workspace / "task-done")
    finally:
        task.wait(timeout=30)
    subprocess.run(["git", "status"], cwd=workspace, capture_output=True)
    assert not (workspace / ".git/config").exists()
    assert not planted.exists()
