"""Routes out of the sandbox found by attacking it without its other tests in view.

- A vsock reaches the virtual machine's host past the network namespace, as a unix socket
  reaches the host's services: a sandboxed command may not open one, as root or as a user.
- planloop's own Python code (a virtual environment in the workspace, say) is writable by
  every command; what a command plants there runs, unconfined and with the key, the next time
  planloop starts. So sandboxed commands ask first there, as they do without a sandbox.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest
import spawn
from conftest import AGENT, run

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
