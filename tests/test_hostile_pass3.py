"""A third hostile pass on the sandbox: what a sandboxed command (or a prompt-injected model)
could still reach, tried through the real CLI against the fake API, as root and as an
ordinary user.

Each test asserts what the person would notice: a kernel setting of the machine, a file of
the repository's git, a secret outside the workspace, a command that ran unasked.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import RecordingUI, fake_api_client, outside_tmp, results_by_id

from agent import Agent
from fakeapi import text, tool_use
from middleware import PermissionPolicy
from tools import default_tools, paths, sandbox
from tools.sandbox import Bubblewrap, bubblewrap_works

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
NOBODY = 65534
needs_sandbox = pytest.mark.skipif(
    bubblewrap_works() is not True, reason=f"no bubblewrap sandbox here: {bubblewrap_works()}"
)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root (and setpriv) to run planloop both as root and as an ordinary user",
)
USERS = [pytest.param(None, id="root"), pytest.param(NOBODY, id="nobody")]
pytestmark = [needs_sandbox, needs_root]


@pytest.fixture
def place() -> Iterator[Path]:
    """A workspace, a planloop home and a user's home that root and nobody can both use (not
    pytest's 0700 folders), outside /tmp: the sandbox's /tmp is private, which would hide the
    user's home from a command whether or not the sandbox hides its secrets."""
    root = outside_tmp("planloop-pass3-")
    root.chmod(0o755)
    for folder in ("work", "home", "user-home"):
        (root / folder).mkdir()
    yield root
    shutil.rmtree(root, ignore_errors=True)


def own(place: Path, user: int | None) -> None:
    """Hand everything in `place` to `user` (None: root keeps it)."""
    if user is None:
        return
    for folder, _, files in os.walk(place):
        os.chown(folder, user, user)
        for name in files:
            os.chown(os.path.join(folder, name), user, user, follow_symlinks=False)


def planloop(
    api, env: dict, place: Path, user: int | None, *, before: tuple[str, ...] = (), more=()
) -> subprocess.CompletedProcess:
    """`python agent.py -p go` in place/work, headless with default flags, as `user`.

    `before` is a program that execs planloop (unshare, a keyring wrapper); a real exec,
    so the process is as a person starts it.
    """
    own(place, user)
    env = {
        **env,
        "PLANLOOP_HOME": str(place / "home"),
        "HOME": str(place / "user-home"),
        **dict(more),
    }
    drop = () if user is None else as_user(user)
    argv = [*before, *drop, sys.executable, str(AGENT), "-p", "go"]  # before runs as root
    return subprocess.run(
        argv, cwd=place / "work", env=env, capture_output=True, text=True, timeout=120
    )


def as_user(user: int) -> tuple[str, ...]:
    return ("setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups")


def result_of(api, turn: int, call: dict) -> dict:
    return results_by_id(api.accepted[turn])[call["id"]]


# ---- the kernel's settings ---------------------------------------------------------------


@pytest.mark.parametrize("user", USERS)
def test_a_command_cannot_change_the_kernels_settings(api, env, place, user):
    """As root, /proc/sys was writable from the sandbox: core_pattern then runs a program of the
    command's choice as root, outside any sandbox, at the next crash. Shown here with the
    domain name, in a UTS namespace of the test's own so that the machine's stays untouched."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare (util-linux) to keep the domain name change to this test")
    call = tool_use(
        "bash",
        {"command": "echo planloop-pwned > /proc/sys/kernel/domainname; "
                    "echo now: $(cat /proc/sys/kernel/domainname)"},
    )  # fmt: skip
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    run = planloop(api, env, place, user, before=("unshare", "--uts", "--"))
    assert run.returncode == 0, run.stderr
    output = result_of(api, 1, call)["content"]
    assert "domainname: Read-only file system" in output or "Permission denied" in output
    assert "now: planloop-pwned" not in output


# ---- a workspace too large to scan -------------------------------------------------------


def test_a_command_let_through_before_the_scan_gave_up_does_not_run(api, workspace, monkeypatch):
    """The permission policy lets a sandboxed command through; only then does the scan find
    the workspace too large to finish. Such a command ran with part of the workspace
    unscanned, so an existing `.env` or `.git` past the limit was writable. A command made the
    workspace that large on purpose (here: more entries at the top than the limit)."""
    monkeypatch.setattr(
        sandbox, "scan_workspace", functools.partial(paths.scan_workspace, entry_limit=200)
    )
    (workspace / "zz").mkdir()
    (workspace / "zz" / ".env").write_text("SECRET=yours\n")
    flood = tool_use("bash", {"command": "touch f{1..300} && echo flooded"})
    write = tool_use("bash", {"command": "echo pwned >> zz/.env; echo ran"})
    api.add({"content": [flood]})
    api.add({"content": [write]})
    api.add({"content": [text("Done.")]})
    sandbox_ = Bubblewrap()
    policy = PermissionPolicy(ask=None, sandboxed=True, sandbox=sandbox_)  # headless
    agent = Agent(
        client=fake_api_client(api.base_url),
        workspace=workspace,
        model="test-model",
        ui=RecordingUI(),
        middleware=[policy],
        tools=default_tools(sandbox_),
    )
    asyncio.run(agent.run("go"))
    assert "flooded" in result_of(api, 1, flood)["content"]
    refused = result_of(api, 2, write)
    assert refused["is_error"] is True
    assert "did not run" in refused["content"] and "too large to scan" in refused["content"]
    assert (workspace / "zz" / ".env").read_text() == "SECRET=yours\n"


# ---- git directories by content ----------------------------------------------------------


@pytest.mark.parametrize("user", USERS)
def test_a_bare_repository_made_by_a_command_is_reported_and_bash_asks_from_then_on(
    api, env, place, user
):
    """`git init --bare .` turns the workspace itself into a repository (the read-only `.git`
    placeholder does not stop it): the person's next `git log` there runs its core.pager."""
    work = place / "work"
    marker = place / "pager-ran"
    plant = tool_use(
        "bash",
        {"command": f"git init -q --bare . && git config core.pager 'touch {marker}; cat' "
                    "&& echo planted"},
    )  # fmt: skip
    second = tool_use("bash", {"command": "echo second > second.txt"})
    api.add({"content": [plant]})
    api.add({"content": [second]})
    api.add({"content": [text("Done.")]})
    run = planloop(api, env, place, user)
    assert run.returncode == 0, run.stderr
    planted = result_of(api, 1, plant)["content"]
    assert "the workspace itself is a new git repository" in planted
    assert "the workspace itself (a new git repository)" in run.stderr  # said on the terminal
    refused = result_of(api, 2, second)
    assert refused["is_error"] is True and "git repository by its content" in refused["content"]
    assert not (work / "second.txt").exists()
    # The closing note names it again, so the person looks before running git there.
    assert "check them before you use git" in run.stderr
    assert not marker.exists()


@pytest.mark.parametrize("user", USERS)
def test_an_existing_bare_repository_in_the_workspace_is_read_only(api, env, place, user):
    """A bare repository inside the workspace (a test fixture, a mirror) is a git directory
    whatever its name; its config was writable, and `git -C it log` obeyed the new pager."""
    work = place / "work"
    fixture = work / "fixtures" / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(fixture)], check=True)
    config_before = (fixture / "config").read_text()
    marker = place / "pager-ran"
    plant = tool_use(
        "bash", {"command": f"git -C fixtures/origin.git config core.pager 'touch {marker}; cat'"}
    )
    api.add({"content": [plant]})
    api.add({"content": [text("Done.")]})
    run = planloop(api, env, place, user)
    assert run.returncode == 0, run.stderr
    assert (fixture / "config").read_text() == config_before
    # The person's own git in that folder, with a pager forced on: nothing planted runs.
    subprocess.run(
        ["git", "-c", f"safe.directory={fixture}", "-C", str(fixture), "-p", "branch"],
        capture_output=True,
        env={**os.environ, "GIT_PAGER": ""},
    )
    assert not marker.exists()


@pytest.mark.parametrize("user", USERS)
def test_a_hooks_folder_named_in_your_own_git_config_is_read_only(api, env, place, user):
    """`core.hooksPath = .githooks` in the person's global config makes every repository's own
    .githooks folder the one git runs; only the repository's config was read for it."""
    work = place / "work"
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / ".githooks").mkdir()
    hook = work / ".githooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    global_config = place / "gitconfig"
    global_config.write_text("[core]\n\thooksPath = .githooks\n")
    append = tool_use("bash", {"command": "echo 'touch /tmp/planted' >> .githooks/pre-commit"})
    rewrite = tool_use("write_file", {"path": ".githooks/pre-commit", "content": "evil\n"})
    api.add({"content": [append]})
    api.add({"content": [rewrite]})
    api.add({"content": [text("Done.")]})
    run = planloop(api, env, place, user, more={"GIT_CONFIG_GLOBAL": str(global_config)})
    assert run.returncode == 0, run.stderr
    assert "Read-only file system" in result_of(api, 1, append)["content"]
    assert result_of(api, 2, rewrite)["is_error"] is True  # protected: asks, refused headless
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"


# ---- secrets outside the workspace -------------------------------------------------------

# Runs planloop in a session keyring of its own that holds a secret, as a login's keyring can.
# (The entry's name must not hold the tests' key, "test-key": the reader script would then be a
# copy of the key to planloop, which hides it from commands.)
KEYRING_WRAPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SESSION = ctypes.c_long(-3)
assert libc.syscall(250, 1, b"planloop-test", 0, 0, 0) > 0  # KEYCTL_JOIN_SESSION_KEYRING
assert libc.syscall(248, b"user", b"planloop-keyring-entry", b"s3cr3t-in-keyring", 17, SESSION) > 0
os.execvp(sys.argv[1], sys.argv[1:])
"""

READ_KEYRING = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
key = libc.syscall(250, 10, ctypes.c_long(-3), b"user", b"planloop-keyring-entry", 0)  # SEARCH
buffer = ctypes.create_string_buffer(64)
size = libc.syscall(250, 11, ctypes.c_long(key), buffer, 64)  # KEYCTL_READ
print("key", key, "read", buffer.raw[:max(size, 0)], "errno", ctypes.get_errno())
"""


@pytest.mark.parametrize("user", USERS)
def test_a_command_cannot_read_the_session_keyring(api, env, place, user):
    """The kernel keyring is in no namespace: a sandboxed command read a key of the session it
    was started from (where a login keeps Kerberos tickets, for example)."""
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs /usr/bin/python3, a Python every user can run, for the reader")
    (place / "work" / "read_keyring.py").write_text(READ_KEYRING)
    call = tool_use("bash", {"command": "/usr/bin/python3 read_keyring.py"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    # planloop is started from a session keyring that holds a secret (possessed by the
    # session, so readable by whoever it runs as), as a login's keyring can be.
    wrapper = (sys.executable, "-c", KEYRING_WRAPPER)
    run = planloop(api, env, place, user, before=wrapper)
    assert run.returncode == 0, run.stderr
    output = result_of(api, 1, call)["content"]
    assert "s3cr3t-in-keyring" not in output
    assert "key -1" in output


@pytest.mark.parametrize("user", USERS)
def test_secrets_in_the_environment_do_not_reach_a_sandboxed_command(api, env, place, user):
    """Your environment is trusted; a sandboxed command is not. Tokens and passwords in it
    stay out (a command that needs one runs outside the sandbox, after a yes)."""
    call = tool_use("bash", {"command": "env"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    secrets = {
        "GITHUB_TOKEN": "ghp_secret1",
        "AWS_SECRET_ACCESS_KEY": "aws_secret2",
        "OPENAI_API_KEY": "sk_secret3",
        "PGPASSWORD": "pg_secret4",
        # Names written as one word, or that unlock a password manager; tokens by their form.
        "NGROK_AUTHTOKEN": "ngrok_secret5",
        "TAILSCALE_AUTHKEY": "tskey_secret6",
        "SYSTEM_ACCESSTOKEN": "azure_secret7",
        "AZURE_STORAGE_CONNECTION_STRING": "AccountKey=azure_secret8",
        "BW_SESSION": "bitwarden_secret9",
        "BUNDLE_GITHUB__COM": "x-access-token:bundler_secret10",
        "REPO_URL": "https://ghp_Secret11abcdefghijklmnop@github.com/o/r",
        "SOME_SETTING": "ghp_Secret12abcdefghijklmnopqrstuvwxyz",
    }
    harmless = {"TOKENIZERS_PARALLELISM": "false", "AWS_REGION": "eu-west-1"}
    run = planloop(api, env, place, user, more={**secrets, **harmless})
    assert run.returncode == 0, run.stderr
    output = result_of(api, 1, call)["content"]
    assert not [value for value in secrets.values() if value in output]
    assert "TOKENIZERS_PARALLELISM=false" in output and "AWS_REGION=eu-west-1" in output


@pytest.mark.parametrize("user", USERS)
def test_logins_of_other_tools_in_the_home_folder_are_hidden(api, env, place, user):
    """~/.ssh and ~/.aws were hidden, but not other agents' logins, database password files
    or a browser's profile."""
    home = place / "user-home"
    secrets = {
        ".claude/.credentials.json": "claude-login",
        ".pgpass": "db:5432:*:me:pgpass-secret",
        ".config/google-chrome/Default/Cookies": "cookie-secret",
        ".terraformrc": "token = tf-secret",
    }
    for name, content in secrets.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(content)
        (home / name).parent.chmod(0o755)
    names = " ".join(f"~/{name}" for name in secrets)
    call = tool_use("bash", {"command": f"cat {names}; echo read"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    run = planloop(api, env, place, user)
    assert run.returncode == 0, run.stderr
    output = result_of(api, 1, call)["content"]
    assert "read" in output
    assert not [content for content in secrets.values() if content in output]


# ---- names a command chooses -------------------------------------------------------------


@pytest.mark.parametrize("user", USERS)
def test_a_new_files_name_cannot_start_a_line_of_its_own_on_the_terminal(api, env, place, user):
    """A new `.env` is reported by name; a folder name with a line break in it made the report
    end early and print a line of the command's choosing, as if planloop had said it."""
    call = tool_use(
        "bash", {"command": "mkdir $'a\\nplanloop: all clear, nothing was created' && "
                            "touch $'a\\nplanloop: all clear, nothing was created/.env'"},
    )  # fmt: skip
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    run = planloop(api, env, place, user)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert not [line for line in lines if line.startswith("planloop: all clear")]
    assert "a\\nplanloop: all clear, nothing was created/.env (a new .env file)" in run.stderr
    note = result_of(api, 1, call)["content"]
    assert "[a\\nplanloop: all clear, nothing was created/.env is a new .env file." in note


# ---- folders the scan cannot look into ---------------------------------------------------


@pytest.mark.parametrize("user", USERS)
def test_a_folder_closed_to_the_scan_keeps_what_is_in_it_read_only(api, env, place, user):
    """As an ordinary user, a command closed a folder (`chmod 000`, or 644: listed but not
    entered): the next scan could not see the `.env` in it, so the command after could open
    the folder again and change the file. Root's scan reads every folder anyway."""
    work = place / "work"
    for folder in ("closed", "unsearchable/deep"):
        (work / folder).mkdir(parents=True)
        (work / folder / ".env").write_text("SECRET=yours\n")
    close = tool_use("bash", {"command": "chmod 000 closed && chmod 644 unsearchable"})
    change = tool_use(
        "bash",
        {"command": "chmod 755 closed unsearchable; "
                    "echo pwned >> closed/.env; echo pwned >> unsearchable/deep/.env"},
    )  # fmt: skip
    api.add({"content": [close]})
    api.add({"content": [change]})
    api.add({"content": [text("Done.")]})
    run = planloop(api, env, place, user)
    assert run.returncode == 0, run.stderr
    os.chmod(work / "closed", 0o755)
    os.chmod(work / "unsearchable", 0o755)
    assert (work / "closed" / ".env").read_text() == "SECRET=yours\n"
    assert (work / "unsearchable" / "deep" / ".env").read_text() == "SECRET=yours\n"
