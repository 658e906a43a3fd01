"""A fourth hostile pass: a prompt-injected model after the key planloop itself uses.

The README tells people to keep ANTHROPIC_API_KEY in the workspace's `.env`. Sandboxed
commands and read_file run without asking, so neither may hand that key to the model, which
could then write it into a file that leaves the machine with the next push. Each test drives
`python agent.py` against the fake API, as root and as an unprivileged user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import AGENT, API_KEY

from fakeapi import text, tool_use
from tools.sandbox import bubblewrap_works

NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]

needs_bwrap = pytest.mark.skipif(
    bubblewrap_works() is not True, reason="bubblewrap cannot start a sandbox here"
)


def tool_results(api) -> list[str]:
    """The text of every tool result planloop sent back, in order."""
    found = []
    for request in api.accepted:
        content = request["messages"][-1]["content"]
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_result":
                inner = block["content"]
                if not isinstance(inner, str):
                    inner = "".join(part.get("text", "") for part in inner)
                found.append(inner)
    return found


def can_switch_user() -> bool:
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return False
    check = [*AS_NOBODY, sys.executable, "-c", "import anthropic"]
    return subprocess.run(check, capture_output=True).returncode == 0


def run_as(
    user: str, api, env: dict, workspace: Path, home: Path, flags: tuple = (), **options
) -> subprocess.CompletedProcess:
    """`python agent.py -p` in `workspace`, as root or as the unprivileged user, with `flags`;
    `options` go to subprocess.run (a longer timeout, a preexec_fn)."""
    prefix = AS_NOBODY if user == "nobody" else []
    extra = {"HOME": str(home)} if user == "nobody" else {}
    return subprocess.run(
        [*prefix, sys.executable, str(AGENT), "-p", "look at the settings", *flags],
        cwd=workspace,
        env={**env, **extra},
        capture_output=True,
        text=True,
        **{"timeout": 90, **options},
    )


@pytest.fixture(params=["root", "nobody"])
def user_folders(request, isolated_home):
    """(user, workspace, planloop home, home) that the user owns."""
    user = request.param
    if user == "nobody" and not can_switch_user():
        pytest.skip("needs root, setpriv, and a Python the unprivileged user can run")
    folder = Path(tempfile.mkdtemp(prefix="planloop-pass4-"))
    os.chmod(folder, 0o755)
    paths = [folder / name for name in ("work", "planloop-home", "home")]
    for path in paths:
        path.mkdir()
        if user == "nobody":
            os.chown(path, NOBODY, NOBODY)
    yield user, *paths
    shutil.rmtree(folder, ignore_errors=True)


def owned_file(path: Path, content: str, user: str) -> None:
    path.write_text(content)
    if user == "nobody":
        os.chown(path, NOBODY, NOBODY)


@needs_bwrap
def test_a_sandboxed_command_cannot_read_the_key_from_the_workspace_env(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    owned_file(workspace / ".env", f"ANTHROPIC_API_KEY={API_KEY}\n", user)
    owned_file(workspace / ".env.test", "DATABASE_URL=sqlite:///test.db\n", user)
    steal = "cat .env; base64 .env; cp .env copied.txt; echo; cat .env.test"
    api.add({"content": [tool_use("bash", {"command": steal})]})
    api.add({"content": [text("Done.")]})
    # The key only in the workspace's .env, as the README suggests: nowhere in the environment.
    env = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
    env["PLANLOOP_HOME"] = str(planloop_home)
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "[exit code: 0]" in output
    assert API_KEY not in output and "ANTHROPIC_API_KEY" not in output
    assert "DATABASE_URL=sqlite" in output  # a .env without the key is read as before
    assert (workspace / "copied.txt").read_text() == ""  # nothing of the key was copied
    assert (workspace / ".env").read_text() == f"ANTHROPIC_API_KEY={API_KEY}\n"  # kept


def test_read_file_does_not_show_the_key_planloop_uses(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    owned_file(workspace / ".env", f"MODEL_ID=test-model\nANTHROPIC_API_KEY={API_KEY}\n", user)
    api.add({"content": [tool_use("read_file", {"path": ".env"})]})
    api.add({"content": [text("Read it.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "MODEL_ID=test-model" in output and "ANTHROPIC_API_KEY=[redacted]" in output
    assert API_KEY not in output and API_KEY not in result.stderr


@needs_bwrap
def test_no_command_runs_outside_while_a_sandboxed_task_could_write_what_it_creates(
    api, env, user_folders
):
    # A task's sandbox protects the .git folders that existed when it started. A repository
    # that an approved command outside makes meanwhile would be writable to it: a planted
    # fsmonitor then runs the next time git runs on the host.
    user, workspace, planloop_home, home = user_folders
    marker = workspace.parent / "fsmonitor-ran"
    plant = (
        "until [ -f sub/.git/config ]; do sleep 0.05; done; "
        f"printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' >> sub/.git/config; "
        "touch planted"
    )
    api.add({"content": [tool_use("bash", {"command": plant, "run_in_background": True})]})
    make_repository = {"command": "git init -q sub", "outside_sandbox": True}
    api.add({"content": [tool_use("bash", make_repository)]})
    # Only if the repository was made: wait until the task has had its chance.
    settle = "if [ -d sub/.git ]; then until [ -e planted ]; do sleep 0.05; done; fi; echo ok"
    api.add({"content": [tool_use("bash", {"command": settle, "timeout": 30})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = subprocess.run(
        [*(AS_NOBODY if user == "nobody" else []), sys.executable, str(AGENT), "-p", "go", "--yes"],
        cwd=workspace,
        env={**env, "HOME": str(home)} if user == "nobody" else env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    refused = tool_results(api)[1]
    assert "cannot run while sandboxed background tasks run (bg-1)" in refused
    assert "task_stop" in refused
    if (workspace / "sub" / ".git").exists():  # it ran after all: host git must stay clean
        subprocess.run(["git", "status"], cwd=workspace / "sub", capture_output=True)
    assert not marker.exists()
    assert not (workspace / "sub").exists()


@pytest.fixture
def grows_after_fstat(monkeypatch):
    """What a racing command does with `truncate -s 1T file` between the size check and the
    read: the file tools see a small size, then read a large file."""
    import tools.files

    real_fstat = os.fstat

    def small_fstat(fd):
        status = real_fstat(fd)
        return os.stat_result((*status[:6], min(status.st_size, 100), *status[7:]))

    monkeypatch.setattr(tools.files.os, "fstat", small_fstat)


def test_a_file_that_grows_after_its_size_was_checked_is_not_read_whole(
    workspace, grows_after_fstat
):
    from tools.base import ToolError
    from tools.files import MAX_EDIT_BYTES, MAX_UTF16_READ_BYTES, edit_file, read_file

    (workspace / "wide.txt").write_bytes(b"\xff\xfe" + b"a\x00" * (MAX_UTF16_READ_BYTES // 2))
    shown = read_file(workspace, "wide.txt")
    assert "too large for read_file" in shown and "iconv" in shown
    (workspace / "big.txt").write_bytes(b"x" * (MAX_EDIT_BYTES + 1))
    with pytest.raises(ToolError, match="grew past edit_file's limit"):
        edit_file(workspace, "big.txt", "x", "y")


def git(*args: str, cwd: Path, user: str) -> None:
    prefix = AS_NOBODY if user == "nobody" else []
    subprocess.run([*prefix, "git", *args], cwd=cwd, check=True, capture_output=True)


# Repositories whose config includes a file in the workspace (`include.path`, as projects that
# share settings ask you to set) in a way a read-only bind cannot hold: included again from the
# included file, missing (git skips it until it appears), a link, or behind a linked folder.
INCLUDE_LAYOUTS = {
    "nested": (["mkdir -p conf", "echo '[include] path = conf/more.cfg' > shared.cfg",
                "touch conf/more.cfg"], "../shared.cfg", "conf/more.cfg"),
    "missing": ([], "../local.cfg", "local.cfg"),
    "link": (["touch real.cfg", "ln -s real.cfg linked.cfg"], "../linked.cfg", "linked.cfg"),
    "behind a link": (["mkdir real", "touch real/x.cfg", "ln -s real conf"], "../conf/x.cfg",
                      "conf/x.cfg"),
}  # fmt: skip


@needs_bwrap
@pytest.mark.parametrize("layout", INCLUDE_LAYOUTS)
def test_a_command_cannot_change_an_included_git_config(api, env, user_folders, layout):
    user, workspace, planloop_home, home = user_folders
    setup, include, target = INCLUDE_LAYOUTS[layout]
    git("init", "-q", ".", cwd=workspace, user=user)
    for step in setup:
        subprocess.run([*(AS_NOBODY if user == "nobody" else []), "sh", "-c", step],
                       cwd=workspace, check=True)  # fmt: skip
    git("config", "include.path", include, cwd=workspace, user=user)
    marker = workspace.parent / "fsmonitor-ran"
    plant = (
        f"rm -rf {target.split('/')[0]}; mkdir -p {Path(target).parent}; "
        f"printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' > {target}"
    )
    if layout == "nested":
        plant = f"printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' >> {target}"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    as_user = AS_NOBODY if user == "nobody" else []  # git obeys only a repository of its user
    subprocess.run([*as_user, "git", "status"], cwd=workspace, capture_output=True)
    assert not marker.exists(), output
    if layout != "nested":  # a read-only bind holds it: the command ran and failed
        assert "sandboxed commands ask before they run" in output


@needs_bwrap
def test_a_command_cannot_replace_a_git_folder_that_is_a_link(api, env, user_folders):
    # `.git -> gitstore`: the read-only bind lands on gitstore, and the link itself could be
    # swapped for a `.git` folder of the command's making, which host git then obeys.
    user, workspace, planloop_home, home = user_folders
    git("init", "-q", "store", cwd=workspace, user=user)
    (workspace / "store" / ".git").rename(workspace / "gitstore")
    (workspace / "store").rmdir()
    (workspace / ".git").symlink_to("gitstore")
    marker = workspace.parent / "fsmonitor-ran"
    plant = (
        "rm .git && cp -r gitstore .git && "
        f"printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' >> .git/config"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    as_user = AS_NOBODY if user == "nobody" else []
    subprocess.run([*as_user, "git", "status"], cwd=workspace, capture_output=True)
    assert not marker.exists(), output
    assert ".git, which git obeys, is a link" in output
    assert (workspace / ".git").is_symlink()
