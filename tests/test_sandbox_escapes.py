"""Ways out of the sandbox that a hostile repository or model would try, and what stops them.

Each test plays the attacker through `python agent.py` (a scripted model against the fake API)
or, for the unprivileged user, through the same bwrap argv run with setpriv, and then checks
what the person cares about: git on the host ran nothing planted, no file outside the
workspace changed, no host socket answered, no file of the person's is gone.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import (
    API_KEY,
    account_home_at,
    outside_tmp,
    results_by_id,
    run,
    run_cli,
    terminal_env,
)
from test_hostile_pass4 import tool_results

from fakeapi import text, tool_use
from middleware import PermissionPolicy
from tools import named_keys, protected_reason
from tools.base import ToolError
from tools.bash import make_bash, run_bash
from tools.files import read_file
from tools.paths import scan_workspace
from tools.sandbox import (
    LANDLOCK_PYTHON,
    MAX_ENV_FILES_HELD,
    Bubblewrap,
    hidden_paths,
    private_folder,
)
from tools.seccomp import (
    AUDIT_ARCH_I386,
    AUDIT_ARCH_X86_64,
    UnsupportedMachine,
    unix_socket_filter,
)

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None,
    reason="bubblewrap (bwrap) is not installed; apt-get install bubblewrap to test the sandbox",
)
NOBODY = 65534
CLOCK_REALTIME_COARSE = 5  # linux/time.h; the clock file times are stamped with


def git(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    """The person's own git on the host, with a home of its own and no system config."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)


def setup_git(*args: str, cwd: Path, home: Path) -> None:
    """Git run by the test to build a repository: it must work."""
    done = git(*args, cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr


def planted(marker: Path) -> str:
    """A git config section that makes the next `git status` create `marker`."""
    return f"[core]\\n\\tfsmonitor = touch {marker}\\n"


@pytest.fixture
def home() -> Iterator[Path]:
    """The person's home folder, with secrets a command must not read.

    Not under /tmp, which the sandbox replaces with an empty one: there the secrets would be
    out of sight anyway, and the test would prove nothing.
    """
    folder = outside_tmp("planloop-test-home-")
    (folder / ".ssh").mkdir(parents=True)
    (folder / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL\n")
    (folder / ".netrc").write_text("machine x login y password NETRC-PASSWORD\n")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def hostile_repo(workspace: Path, home: Path) -> Path:
    """A repository with what real ones have: husky hooks, a submodule, a worktree, .env files."""
    setup_git("init", "-q", "-b", "main", cwd=workspace, home=home)
    (workspace / ".husky").mkdir()
    (workspace / ".husky" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (workspace / ".husky" / "pre-commit").chmod(0o755)
    setup_git("config", "core.hooksPath", ".husky", cwd=workspace, home=home)
    (workspace / "shared.gitconfig").write_text("[user]\n\tname = shared\n")
    setup_git("config", "include.path", "../shared.gitconfig", cwd=workspace, home=home)
    (workspace / ".env").write_text("DEBUG=1\n")
    for folder in ("backend", "services/api", "target/debug", "tests"):
        (workspace / folder).mkdir(parents=True)
    (workspace / "backend" / ".env").write_text("USER_SECRET=1\n")
    (workspace / "services" / "api" / ".env").write_text("API=1\n")
    (workspace / "target" / "debug" / "build.o").write_text("x")
    (workspace / "tests" / ".env.test").write_text("TEST=1\n")
    setup_git("add", "-A", cwd=workspace, home=home)
    setup_git("commit", "-qm", "start", cwd=workspace, home=home)
    setup_git("rm", "-q", "tests/.env.test", cwd=workspace, home=home)
    setup_git("commit", "-qm", "no test env", cwd=workspace, home=home)
    setup_git("branch", "other", "HEAD~1", cwd=workspace, home=home)
    (workspace / ".git" / "modules").mkdir()
    setup_git(
        "init", "-q", "--separate-git-dir", str(workspace / ".git/modules/sub"), "sub",
        cwd=workspace, home=home,
    )  # fmt: skip
    setup_git("worktree", "add", "-q", "inner-tree", "-b", "inner", cwd=workspace, home=home)
    # The submodule names a hooks folder that does not exist yet.
    setup_git("config", "core.hooksPath", "../.hooks-missing", cwd=workspace / "sub", home=home)
    return workspace


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its bytes; links by their targets."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = os.readlink(path).encode()
        elif path.is_file():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


class SocketStandIn:
    """A unix socket outside the workspace, standing for docker.sock or a D-Bus bus."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / "docker.sock"
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(self.path))
        self.server.listen(8)
        self.server.setblocking(False)

    def answered(self) -> bool:
        """Whether anyone connected: a connection waits in the backlog until accepted."""
        try:
            self.server.accept()[0].close()
        except BlockingIOError:
            return False
        return True

    def connect_command(self) -> str:
        return (
            'python3 -c "import socket; s = socket.socket(socket.AF_UNIX); '
            f"s.connect('{self.path}'); print('CONNECTED')\" 2>&1 | tail -1"
        )


# ---- the whole attack through the real CLI, as root -----------------------------------------


@needs_bwrap
def test_no_route_out_of_the_sandbox_through_the_cli(
    api, env, hostile_repo, home, tmp_path, isolated_home
):
    ws = hostile_repo
    marker = tmp_path / "git-ran-planted-code"
    host_tmp_marker = Path("/tmp") / f"planloop-host-{uuid.uuid4().hex}"
    host_tmp_marker.write_text("HOST-TMP-CONTENT\n")
    escaped = Path("/etc") / f"planloop-escape-{uuid.uuid4().hex}"
    stand_in = SocketStandIn(tmp_path / "run")
    plant = planted(marker)
    before = files_of(ws)
    git_routes = [
        # commondir pointing at a folder of our own with a config
        f"mkdir -p .git/planted && printf '{plant}' > .git/planted/config && "
        "echo planted > .git/commondir",
        # move .git away and make a new one: the read-only binds would move with it
        f"mv .git .git-old && mkdir .git && cp -r .git-old/. .git/ && "
        f"printf '{plant}' >> .git/config",
        f"printf '{plant}' >> .git/modules/sub/config; "
        f"echo 'touch {marker}' > .git/modules/sub/hooks/post-checkout",
        f"mkdir -p evil && cp -r .git/modules/sub/. evil/ && printf '{plant}' >> evil/config && "
        "printf 'gitdir: ../evil\\n' > sub/.git",
        f"printf '{plant}' >> .git/worktrees/inner-tree/config.worktree; "
        "printf 'gitdir: ../evil\\n' > inner-tree/.git",
        f"echo 'touch {marker}' >> .husky/pre-commit",
        f"printf '{plant}' >> shared.gitconfig",
        f"mkdir -p .hooks-missing && echo 'touch {marker}' > .hooks-missing/pre-commit",
        "git commit --allow-empty -m x",
    ]
    mount_pulls = [
        "mkdir -p p1/.git && ln -s /proc p1/.git/hooks; mkdir p2 && ln -s /proc p2/.git; "
        "mkdir p3 && ln -s / p3/.git; mkdir p4 && ln -s /tmp p4/.git; ln -s /proc .env.proc",
        "cat /proc/*/environ p1/.git/hooks/*/environ p2/.git/*/environ p3/.git/proc/*/environ "
        ".env.proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c '^ANTHROPIC_API_KEY='; "
        f"cat {host_tmp_marker} p3/.git{host_tmp_marker} p4/.git/{host_tmp_marker.name} 2>&1; "
        f"touch p3/.git/tmp/{host_tmp_marker.name}-w p4/.git/{host_tmp_marker.name}-w; true",
    ]
    # renameat2(RENAME_EXCHANGE): a planted git folder swapped with .git in one step.
    exchange = [
        f"mkdir -p swap && cp -r .git/. swap/ && printf '{plant}' >> swap/config && python3 -c "
        '"import ctypes; libc = ctypes.CDLL(None, use_errno=True); '
        "done = libc.renameat2(-100, b'swap', -100, b'.git', 2); "
        "print('exchange', done, ctypes.get_errno())\""
    ]
    capabilities = [
        f"grep CapEff /proc/self/status; mount -o remount,bind,rw / && touch {escaped}; "
        f"touch {escaped}; true"
    ]
    sockets = [stand_in.connect_command()]
    secrets = [f"cat ~/.ssh/id_ed25519 ~/.netrc 2>&1; ls -A {isolated_home}"]
    env_files = [
        "touch backend/pyvenv.cfg && rm backend/pyvenv.cfg",
        "rm -rf target",
        "echo X=1 >> .env; echo X=1 >> backend/.env; echo NEW=1 > services/.env.local",
        "mkdir -p tests; git show other:tests/.env.test > tests/.env.test; git checkout -q other",
    ]
    commands = git_routes + exchange + mount_pulls + capabilities + sockets + secrets + env_files
    calls = [tool_use("bash", {"command": command}) for command in commands]
    husky_write = tool_use("write_file", {"path": ".husky/pre-commit", "content": "touch x\n"})
    include_edit = tool_use(
        "edit_file", {"path": "shared.gitconfig", "old_text": "shared", "new_text": "x"}
    )
    api.add({"content": [*calls, husky_write, include_edit]})
    api.add({"content": [text("Done.")]})

    result = run_cli("-p", "go", cwd=ws, env={**env, "HOME": str(home)}, timeout=120)

    assert result.returncode == 0, result.stderr
    results = results_by_id(api.accepted[1])
    pairs = zip(commands, calls, strict=True)
    output = {command: results[call["id"]]["content"] for command, call in pairs}
    everything = "\n".join(output.values())
    # Git: nothing planted runs when the person uses git on the host afterwards.
    for repo in (ws, ws / "sub", ws / "inner-tree"):
        git("status", cwd=repo, home=home)
    git("commit", "-q", "--allow-empty", "-m", "by the person", cwd=ws, home=home)
    assert not marker.exists()
    assert not (ws / ".hooks-missing" / "pre-commit").exists()
    assert "Read-only file system" in output[git_routes[0]]
    assert "Device or resource busy" in output[git_routes[1]]
    assert f"exchange -1 {errno.EBUSY}" in output[exchange[0]]  # .git is a mount point
    for route in git_routes[2:-1]:  # submodule, its gitdir file, worktree, hooks, include
        assert "Read-only file system" in output[route], route
    assert results[husky_write["id"]]["is_error"] and results[include_edit["id"]]["is_error"]
    # Host mounts: the API key, the host's /tmp and /proc stay out of reach.
    assert API_KEY not in everything
    assert output[mount_pulls[1]].startswith("0\n")  # no environ with the key in it
    assert "HOST-TMP-CONTENT" not in everything
    assert not Path(f"{host_tmp_marker}-w").exists()
    assert "p2/.git was not made read-only: it points to /proc" in output[mount_pulls[1]]
    assert "p3/.git was not made read-only: it points to /," in output[mount_pulls[1]]
    # Capabilities: none, and the read-only system stays read-only.
    assert "CapEff:\t0000000000000000" in output[capabilities[0]]
    assert not escaped.exists()
    # Sockets: the stand-in for docker.sock never saw a connection.
    assert "CONNECTED" not in output[sockets[0]]
    assert not stand_in.answered()
    # Secrets in the home folder and planloop's own sessions appear empty.
    assert "PRIVATE-KEY-MATERIAL" not in everything and "NETRC-PASSWORD" not in everything
    assert "sessions" not in output[secrets[0]]
    # .env files: none of the person's is gone or changed; a new one is kept and reported.
    after = files_of(ws)
    for name in (".env", "backend/.env", "services/api/.env"):
        assert after[name] == before[name]
    assert (ws / "services" / ".env.local").read_text() == "NEW=1\n"
    assert "services/.env.local is a new .env file" in output[env_files[2]]
    assert "tests/.env.test is a new .env file" in output[env_files[3]]
    for name in ("services/.env.local", "tests/.env.test", "p1/.git", "p2/.git"):
        assert (
            name in result.stderr.split("These appeared while sandboxed commands ran")[0]
        )  # at once
        assert (
            name in result.stderr.split("These appeared while sandboxed commands ran")[1]
        )  # at exit
    # Everything that was in the workspace before is still there, but what the commands removed
    # themselves (target/ is the person's choice to delete in this script).
    assert set(before) - set(after) <= {"target/debug/build.o"}
    host_tmp_marker.unlink()


@needs_bwrap
@pytest.mark.parametrize(
    ("key", "value", "plant"),
    [
        ("core.hooksPath", "web/../hooks", "mkdir -p elsewhere/hooks && printf "
         "'#!/bin/sh\\ntouch {marker}\\n' > elsewhere/hooks/pre-commit && "
         "chmod +x elsewhere/hooks/pre-commit"),
        ("include.path", "../web/../shared.gitconfig",
         "printf '{config}' > elsewhere/shared.gitconfig"),
    ],
    ids=["hooks-folder", "included-config"],
)  # fmt: skip
def test_git_config_naming_a_path_up_out_of_a_folder_makes_commands_ask(
    api, env, workspace, home, tmp_path, key, value, plant
):
    """`web/../hooks` is `hooks` to a reader of the text, but git asks the kernel, which
    follows web first: a command that turns web into a link picks the hooks git runs."""
    marker = tmp_path / "git-ran-planted-code"
    setup_git("init", "-q", "-b", "main", cwd=workspace, home=home)
    for folder in ("web", "hooks", "elsewhere/web"):
        (workspace / folder).mkdir(parents=True)
    (workspace / "shared.gitconfig").write_text("[user]\n\tname = shared\n")
    setup_git("config", key, value, cwd=workspace, home=home)
    swap = "mv web web-old && ln -s elsewhere/web web && "
    command = swap + plant.format(marker=marker, config=planted(marker))
    call = tool_use("bash", {"command": command})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})

    result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)}, timeout=120)

    assert result.returncode == 0, result.stderr
    answer = results_by_id(api.accepted[1])[call["id"]]
    assert answer["is_error"] and f"`{value}`" in answer["content"], answer["content"]
    assert not (workspace / "web").is_symlink()  # it never ran
    git("status", cwd=workspace, home=home)
    git("commit", "-q", "--allow-empty", "-m", "by the person", cwd=workspace, home=home)
    assert not marker.exists()


@needs_bwrap
def test_a_hooks_folder_only_git_can_tell_makes_the_file_tools_ask_too(
    api, env, workspace, home, tmp_path
):
    """With `lnk/../hooks`, git runs web/hooks/pre-commit (lnk leads to web/sub): commands
    ask, and the file tools, which would hold only the `hooks` of the text, ask too."""
    marker = tmp_path / "git-ran-planted-code"
    setup_git("init", "-q", "-b", "main", cwd=workspace, home=home)
    (workspace / "web/sub").mkdir(parents=True)
    (workspace / "web/hooks").mkdir()
    (workspace / "web/hooks/pre-commit").write_text("#!/bin/sh\ntrue\n")
    (workspace / "web/hooks/pre-commit").chmod(0o755)
    (workspace / "lnk").symlink_to("web/sub")
    setup_git("config", "core.hooksPath", "lnk/../hooks", cwd=workspace, home=home)
    hook = "web/hooks/pre-commit"
    planted_hook = f"#!/bin/sh\ntouch {marker}\n"
    api.add({"content": [tool_use("bash", {"command": "echo ran"})]})
    api.add({"content": [tool_use("read_file", {"path": hook})]})
    api.add({"content": [tool_use("write_file", {"path": hook, "content": planted_hook})]})
    api.add({"content": [text("Done.")]})

    result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)}, timeout=120)

    assert result.returncode == 0, result.stderr
    ran, _, written = tool_results(api)
    assert "The file tools cannot write either" in ran, ran
    assert "was not changed" in written and "`lnk/../hooks`" in written, written
    assert (workspace / hook).read_text() == "#!/bin/sh\ntrue\n"
    git("commit", "-q", "--allow-empty", "-m", "by the person", cwd=workspace, home=home)
    assert not marker.exists()


@needs_bwrap
def test_git_init_fails_in_a_workspace_that_is_not_a_repository(
    api, env, workspace, home, tmp_path
):
    marker = tmp_path / "git-ran-planted-code"
    top = tool_use("bash", {"command": f"git init && git config core.fsmonitor 'touch {marker}'"})
    nested = tool_use(
        "bash",
        {"command": f"git init -q nested && git -C nested config core.fsmonitor 'touch {marker}'"},
    )
    api.add({"content": [top, nested]})
    api.add({"content": [text("Done.")]})

    result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)}, timeout=60)

    assert result.returncode == 0, result.stderr
    results = results_by_id(api.accepted[1])
    assert "Read-only file system" in results[top["id"]]["content"]
    assert not (workspace / ".git").exists()  # the read-only placeholder is gone again
    assert git("status", cwd=workspace, home=home).returncode != 0  # still no repository
    assert not marker.exists()
    # A repository made below the top cannot be refused; it is reported at once and at exit.
    assert "nested/.git is a new git repository" in results[nested["id"]]["content"]
    at_once, at_exit = result.stderr.split("These appeared while sandboxed commands ran")
    assert "nested/.git" in at_once and "nested/.git" in at_exit


# ---- the pieces, one by one --------------------------------------------------------------------


def test_the_scan_has_no_skip_rule_a_command_can_trigger(workspace: Path):
    for folder in ("venv", "node_modules/pkg", "a/__pycache__"):
        (workspace / folder).mkdir(parents=True)
        (workspace / folder / ".env").write_text("")
    (workspace / "venv" / "pyvenv.cfg").write_text("")
    scan = scan_workspace(workspace)
    found = {str(path.relative_to(workspace)) for path in scan.env_files}
    assert found == {"venv/.env", "node_modules/pkg/.env", "a/__pycache__/.env"}
    assert scan.incomplete is None


def test_a_reused_listing_cannot_hide_a_new_env_file_behind_an_old_mtime(
    workspace: Path, monkeypatch
):
    monkeypatch.setattr("tools.paths.CTIME_TRUST_MARGIN_NS", -(10**18))  # reuse at once
    (workspace / "a").mkdir()
    cache: dict = {}
    scan_workspace(workspace, cache=cache)
    listed = cache[str(workspace / "a")]
    scan_workspace(workspace, cache=cache)
    assert cache[str(workspace / "a")] is listed  # an unchanged folder is not listed again
    before = os.stat(workspace / "a")
    # ctime comes from the kernel's coarse clock: wait until it has moved on, so the change
    # below gets a ctime of its own, as a command's change always would after the margin.
    while time.clock_gettime_ns(CLOCK_REALTIME_COARSE) <= before.st_ctime_ns:
        pass
    (workspace / "a" / ".env").write_text("")
    os.utime(workspace / "a", ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime put back
    assert workspace / "a" / ".env" in scan_workspace(workspace, cache=cache).env_files


def test_a_workspace_too_large_to_scan_makes_bash_ask(workspace: Path, monkeypatch):
    for number in range(30):
        (workspace / f"f{number}").write_text("")
    assert "too large" in scan_workspace(workspace, entry_limit=10).incomplete
    monkeypatch.setattr(
        "tools.sandbox.scan_workspace", lambda root, cache: scan_workspace(root, 10, cache=cache)
    )
    sandbox = Bubblewrap(user_namespace=False)
    told = []
    sandbox.notify = told.append
    sandbox.before_command(workspace)
    sandbox.before_command(workspace)
    assert len(told) == 1 and "too large" in told[0]  # said once
    policy = PermissionPolicy(ask=None, sandboxed=True, sandbox=sandbox)

    class Context:
        tools = {"bash": make_bash(sandbox)}  # bash in this very sandbox

    class Call:
        tool_call = {"name": "bash"}
        args = {"command": "true"}
        context = Context()

    assert policy._needs_approval(Call()).command == "true"  # bash asks, as without a sandbox


def test_a_launcher_python_inside_the_workspace_makes_bash_ask(workspace: Path, monkeypatch):
    # A project's own .venv: a command could replace its python, which runs unconfined
    # before the next command. planloop uses the base interpreter; if even that lies inside
    # the workspace, commands ask.
    monkeypatch.setattr("tools.sandbox.LAUNCHER_PYTHON", str(workspace / ".venv/bin/python3"))
    sandbox = Bubblewrap(user_namespace=False)
    sandbox.before_command(workspace)
    assert "lies inside the workspace" in sandbox.must_ask


def test_core_hooks_path_and_included_configs_are_protected_for_the_file_tools(
    hostile_repo: Path,
):
    assert "core.hooksPath" in protected_reason(hostile_repo, ".husky/pre-commit")
    assert "core.hooksPath" in protected_reason(hostile_repo, ".husky/new-hook")
    assert protected_reason(hostile_repo, "shared.gitconfig") is not None
    assert protected_reason(hostile_repo, "backend/app.py") is None


def test_secrets_are_hidden_unless_reopened(home: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    assert home / ".ssh" in hidden_paths() and home / ".netrc" in hidden_paths()
    assert home / ".ssh" not in hidden_paths([home / ".ssh"])
    assert home / ".aws" not in hidden_paths()  # what does not exist needs no hiding


@needs_bwrap
def test_a_key_your_ssh_config_names_outside_ssh_is_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A cloud's `.pem` kept in ~/keys, which ~/.ssh/config names (or a file it includes).
    monkeypatch.setenv("HOME", str(home))
    (home / "keys").mkdir()
    (home / "keys/deploy.pem").write_text("PEM-PRIVATE-KEY\n")
    (home / "keys/other.pem").write_text("INCLUDED-KEY\n")
    (home / "keys/notes.txt").write_text("NOT-SECRET\n")
    (home / ".ssh/config").write_text("Host prod\n  IdentityFile ~/keys/deploy.pem\nInclude x\n")
    (home / ".ssh/x").write_text("Host other\n  IdentityFile=%d/keys/other.pem\n")
    command = "cat ~/keys/deploy.pem ~/keys/other.pem ~/keys/notes.txt"
    output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert "NOT-SECRET" in output
    assert "PEM-PRIVATE-KEY" not in output and "INCLUDED-KEY" not in output


def secrets_in(home: Path, names: list[str]) -> Path:
    """~/keys, holding a secret file of each of `names` and a notes.txt that is none."""
    keys = home / "keys"
    keys.mkdir()
    for name in names:
        (keys / name).write_text(f"SECRET-{name}\n")
    (keys / "notes.txt").write_text("NOT-SECRET\n")
    return keys


def secrets_read(workspace: Path, names: list[str]) -> list[str]:
    """Those of `names` in ~/keys whose secret a sandboxed `cat` reads (notes.txt it must)."""
    command = "cd ~/keys && cat notes.txt " + " ".join(names)
    output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert "NOT-SECRET" in output
    return [name for name in names if f"SECRET-{name}" in output]


@needs_bwrap
def test_keys_your_kubeconfig_and_git_config_name_by_path_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A cluster's client key beside a kubeconfig KUBECONFIG names, a token file ~/.kube/config
    # names, git's `http.sslKey` and the key of `core.sshCommand`: each kept in ~/keys.
    monkeypatch.setenv("HOME", str(home))
    names = ["cluster.key", "token", "ssl.key", "deploy.pem", "ci.pem"]
    keys = secrets_in(home, names)
    (keys / "work.yaml").write_text("users:\n- name: w\n  user:\n    client-key: cluster.key\n")
    monkeypatch.setenv("KUBECONFIG", str(keys / "work.yaml"))
    (home / ".kube").mkdir()
    (home / ".kube/config").write_text(f'users:\n- user:\n    tokenFile: "{keys}/token"\n')
    (home / ".gitconfig").write_text(
        '[http "https://git.example.com"]\n\tsslKey = ~/keys/ssl.key\n'
        "[core]\n\tsshCommand = ssh -o IdentitiesOnly=yes -vi ~/keys/deploy.pem\n"
    )
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -p 2222 -oIdentityFile=$HOME/keys/ci.pem")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_keys_your_configs_name_with_variables_tokens_and_conditional_includes_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # ssh expands your `${VARIABLE}`s and its `%` tokens (`%h`: a key per host); git runs a
    # helper through the shell (`$HOME`, a `!` line) and reads a conditional include's file in
    # the repositories it names, the workspace maybe among them; a tool expands a `~` your
    # variable keeps.
    monkeypatch.setenv("HOME", str(home))
    names = ["deploy.pem", "db.example.com.pem", "me_id.pem", "work-store", "bang", "env", "aws"]
    secrets_in(home, names)
    (home / ".ssh/config").write_text(
        "IdentityFile ${HOME}/keys/deploy.pem\nHost *.example.com\n  IdentityFile ~/keys/%h.pem\n"
        "  IdentityFile %d/keys/%r_id.pem\n"
    )
    (home / ".gitconfig").write_text(
        '[includeIf "gitdir:~/work/"]\n\tpath = .gitconfig-work\n'
        '[credential "https://b.example"]\n\thelper = "!git credential-store --file ~/keys/bang"\n'
        '[credential "https://e.example"]\n\thelper = "store --file=$HOME/keys/env"\n'
    )
    (home / ".gitconfig-work").write_text(
        "[credential]\n\thelper = store --file ~/keys/work-store\n"
    )
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "~/keys/aws")
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_secret_files_your_git_settings_name_from_includes_and_variables_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Secrets split out to a file `[include]` reads (dotfiles), the settings a CI runner gives
    # by variables, Gerrit's cookie file, a client certificate that holds its key, the token
    # file a `!` helper's shell line reads, and Git Credential Manager's plain-text store: git
    # uses each of them outside.
    monkeypatch.setenv("HOME", str(home))
    names = ["store", "ssl.key", "deploy.pem", "env-store", "env.key", "cookies", "tok"]
    names.append("netrc")  # (git's contrib netrc helper, given its file: `netrc -f FILE`)
    keys = secrets_in(home, names + ["client.pem"])
    (keys / "tok").chmod(0o700)  # (a token file with an execute bit is no program)
    (keys / "client.pem").write_text("-----BEGIN PRIVATE KEY-----\nSECRET-client.pem\n")
    (keys / "gcm/git/https/h").mkdir(parents=True)  # Git Credential Manager's store, moved
    (keys / "gcm/git/https/h/u.credential").write_text("SECRET-gcm/git/https/h/u.credential\n")
    (home / ".gitconfig").write_text(
        "[include]\n\tpath = ~/.config/git/secrets.inc\n"
        "[credential]\n\tplaintextStorePath = ~/keys/gcm\n"
        "[http]\n\tcookieFile = ~/keys/cookies\n\tsslCert = ~/keys/client.pem\n"
        '[credential "https://gh.example"]\n'
        '\thelper = "!f() { echo \\"password=$(cat ~/keys/tok)\\"; }; f"\n'
        '[credential "https://corp.example"]\n\thelper = netrc -f ~/keys/netrc\n'
    )
    (home / ".config/git").mkdir(parents=True)
    (home / ".config/git/secrets.inc").write_text(
        "[credential]\n\thelper = store --file ~/keys/store\n[http]\n\tsslKey = ~/keys/ssl.key\n"
        "[core]\n\tsshCommand = ssh -i ~/keys/deploy.pem\n"
    )
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "credential.helper")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "store --file ~/keys/env-store")
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'http.sslkey'='~/keys/env.key'")
    assert secrets_read(workspace, [*names, "client.pem", "gcm/git/https/h/u.credential"]) == []


# The ways your environment can give git an include (a CI runner's or a wrapper's).
INCLUDES_YOUR_VARIABLES_GIVE = {
    "count": {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "include.path"},
    "parameters": {"GIT_CONFIG_PARAMETERS": "'include.path'='{file}'"},
    "condition": {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "includeIf.gitdir:~/work/.path"},
}


@needs_bwrap
@pytest.mark.parametrize("given_by", sorted(INCLUDES_YOUR_VARIABLES_GIVE))
def test_secret_files_named_in_a_file_your_git_variables_include_are_hidden(
    home: Path, workspace: Path, monkeypatch, given_by: str
):
    # git reads the included file's settings in every repository (a conditional include's in
    # those it names, the workspace maybe among them), so it uses the keys they name.
    monkeypatch.setenv("HOME", str(home))
    names = ["ssl.key", "store", "cookies", "deploy.pem"]
    secrets_in(home, names)
    included = home / ".gitconfig-ci"
    included.write_text(
        "[http]\n\tsslKey = ~/keys/ssl.key\n\tcookieFile = ~/keys/cookies\n"
        "[credential]\n\thelper = store --file ~/keys/store\n"
        "[core]\n\tsshCommand = ssh -i ~/keys/deploy.pem\n"
    )
    for name in ("GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in INCLUDES_YOUR_VARIABLES_GIVE[given_by].items():
        monkeypatch.setenv(name, value.format(file=included))
    if given_by != "parameters":
        monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(included))
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_ssh_keys_of_a_config_given_by_f_of_variables_and_of_many_includes_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # git's ssh reads a work config `-F` names, gets `-i` through your variable or ssh's `%d`,
    # keeps `#` and brackets inside a name, and reads every file of a folder of one config
    # per host.
    monkeypatch.setenv("HOME", str(home))
    hosts = [f"h{number:02}.pem" for number in range(24)]
    names = ["work.pem", "deploy.pem", "pct.pem", "prod#2.pem", "ci[prod].pem", *hosts]
    keys = secrets_in(home, names)
    (keys / "ssh_config").write_text("Host *\n  IdentityFile ~/keys/work.pem\n")
    (home / ".ssh/config").write_text(
        "IdentityFile ~/keys/prod#2.pem # the second\nIdentityFile ~/keys/ci[prod].pem\n"
        "Include conf.d/*\n"
    )
    (home / ".ssh/conf.d").mkdir()
    for host in hosts:
        (home / ".ssh/conf.d" / host).write_text(f"Host {host}\n  IdentityFile ~/keys/{host}\n")
    (home / ".gitconfig").write_text("[core]\n\tsshCommand = ssh -F ~/keys/ssh_config\n")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.setenv("KEYS", str(keys))
    monkeypatch.setenv("GIT_SSH_COMMAND", "ssh -i $KEYS/deploy.pem -i %d/keys/pct.pem")
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_ssh_keys_a_proxy_command_or_a_remote_shell_variable_gives_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A jump host's key in your ssh config's ProxyCommand (and the config it gives by -F), and
    # the keys your borg, rsync, cvs, Subversion and ansible variables hand their ssh.
    monkeypatch.setenv("HOME", str(home))
    variables = ["BORG_RSH", "RSYNC_RSH", "CVS_RSH", "SVN_SSH", "ANSIBLE_SSH_ARGS"]
    names = ["bastion.pem", "jump.pem", *(name.lower() for name in variables)]
    keys = secrets_in(home, names)
    (keys / "jump_config").write_text("Host jump\n  IdentityFile ~/keys/jump.pem\n")
    (home / ".ssh/config").write_text(
        "Host *.internal\n  ProxyCommand ssh -i ~/keys/bastion.pem -W %h:%p ec2-user@bastion\n"
        "Host db\n  ProxyCommand=exec ssh -F ~/keys/jump_config -W %h:%p jump\n"
    )
    for variable in variables:
        ssh = "" if variable.startswith("ANSIBLE") else "ssh -p 22 "
        monkeypatch.setenv(variable, f"{ssh}-i ~/keys/{variable.lower()}")
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_keys_a_kubeconfig_names_in_json_quoted_or_flow_form_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # The same YAML to kubectl: a JSON kubeconfig (`kubectl config view --raw -o json`), a
    # quoted key, a flow mapping.
    monkeypatch.setenv("HOME", str(home))
    names = ["json.key", "quoted.key", "flow-token"]
    keys = secrets_in(home, names)
    user = {"name": "u", "user": {"client-certificate": "c.crt", "client-key": "json.key"}}
    (keys / "config.json").write_text(json.dumps({"kind": "Config", "users": [user]}, indent=2))
    (home / ".kube").mkdir()
    (home / ".kube/config").write_text(
        f'users:\n- name: q\n  user:\n    "client-key": {keys}/quoted.key\n'
        f"- {{name: f, user: {{tokenFile: '{keys}/flow-token'}}}}\n"
    )
    monkeypatch.setenv("KUBECONFIG", str(keys / "config.json"))
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_client_keys_your_registry_and_http_tools_configs_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # The configs are hidden; the client keys they name are kept anywhere, and pip's client
    # certificate (like a certificate the others name) holds its private key in the same PEM.
    monkeypatch.setenv("HOME", str(home))
    names = ["npm.key", "pip.pem", "curl.key", "curl.crt", "yarn.key", "wget.key", "npm.crt"]
    names.append("npm-ci.key")  # (npm and yarn put your `${VARIABLES}` in)
    keys = secrets_in(home, names)
    (keys / "curl.crt").write_text("-----BEGIN CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\n")
    (keys / "npm.crt").write_text("-----BEGIN CERTIFICATE-----\nSECRET-npm.crt-IS-NONE\n")
    monkeypatch.setenv("CI_KEYS", str(keys))
    (home / ".npmrc").write_text(
        "//npm.corp.example/:certfile=~/keys/npm.crt\n//npm.corp.example/:keyfile=~/keys/npm.key\n"
        "//ci.example/:keyfile=${CI_KEYS}/npm-ci.key\n"
    )
    (home / ".config/pip").mkdir(parents=True)
    (home / ".config/pip/pip.conf").write_text(f"[global]\nclient-cert = {keys}/pip.pem\n")
    (home / ".curlrc").write_text(f'cert = "{keys}/curl.crt"\n--key {keys}/curl.key\n')
    (home / ".yarnrc.yml").write_text(
        f'npmRegistries:\n  "//y":\n    httpsKeyFilePath: {keys}/yarn.key\n'
    )
    (home / ".wgetrc").write_text(f"private_key = {keys}/wget.key\n")
    assert secrets_read(workspace, names) == ["npm.crt"]  # (a certificate alone is no secret)


@needs_bwrap
def test_the_curlrc_your_curl_home_moves_and_the_key_it_names_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # curl reads $CURL_HOME/.curlrc before your home's: its password and the key it names.
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, ["curl.key"])
    (keys / "curlrc").mkdir()
    (keys / "curlrc/.curlrc").write_text(
        f"user = me:SECRET-curlrc/.curlrc\nkey = {keys}/curl.key\n"
    )
    monkeypatch.setenv("CURL_HOME", str(keys / "curlrc"))
    assert secrets_read(workspace, ["curl.key", "curlrc/.curlrc"]) == []


@needs_bwrap
def test_client_keys_your_curlrc_names_by_short_option_or_for_a_proxy_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # curl reads its config's options as on its command line: `-E` is `--cert`, and an HTTPS
    # proxy gets a client key of its own (`proxy-key`, `proxy-cert` with `proxy-cert-type`).
    monkeypatch.setenv("HOME", str(home))
    names = ["short.pem", "proxy.key", "proxy.p12", "netrc"]  # (and its `netrc-file`)
    keys = secrets_in(home, names)
    (keys / "short.pem").write_text("-----BEGIN PRIVATE KEY-----\nSECRET-short.pem\n")
    (home / ".curlrc").write_text(
        f"-E {keys}/short.pem\nproxy-key = {keys}/proxy.key\n--proxy-cert {keys}/proxy.p12\n"
        f"proxy-cert-type = P12\n-e /not/a/key\nnetrc-file = {keys}/netrc\n"
    )
    assert secrets_read(workspace, names) == []


# Tools' own variables that move a secret hidden in your home, and where the secret then lies
# in the file or folder each names (nothing: the named file itself).
SECRETS_TOOLS_VARIABLES_MOVE = {
    "GRADLE_USER_HOME": "gradle.properties",
    "DBT_PROFILES_DIR": "profiles.yml",
    "COMPOSER_HOME": "auth.json",
    "SNOWFLAKE_HOME": "connections.toml",
    "IPYTHONDIR": "profile_default/history.sqlite",
    "JUPYTER_RUNTIME_DIR": "jpserver-1234.json",
    "JUPYTER_CONFIG_DIR": "jupyter_server_config.json",
    "HTTPIE_CONFIG_DIR": "sessions/api.example/default.json",
    "BITWARDENCLI_APPDATA_DIR": "data.json",
    "HEX_HOME": "hex.config",
    "BUNDLE_USER_CONFIG": "",
    "BUNDLE_USER_HOME": "config",
    "S3CMD_CONFIG": "",
    "SBT_CREDENTIALS": "",
    "HCLOUD_CONFIG": "",
    "SCW_CONFIG_PATH": "",
    "PASSWORD_STORE_DIR": "work/github.gpg",
    "ANDROID_USER_HOME": "adbkey",
    "MINIKUBE_HOME": ".minikube/ca.key",
    "OCI_CLI_KEY_FILE": "",
    "LLM_USER_PATH": "keys.json",
    "CONTINUE_GLOBAL_DIR": "config.yaml",
    "AICHAT_CONFIG_DIR": "config.yaml",
    "OP_CONFIG_DIR": "config",
    "HUB_CONFIG": "",
    "STEPPATH": "secrets/intermediate_ca_key",
    "TELEPORT_HOME": "keys/proxy.example/alice",
    "JFROG_CLI_HOME_DIR": "jfrog-cli.conf.v6",
    "INFLUX_CONFIGS_PATH": "",
    "WAKATIME_HOME": ".wakatime.cfg",
    "BORG_KEYS_DIR": "repo_key",
    "CONDARC": "",
    "B2_ACCOUNT_INFO": "",
    "MODAL_CONFIG_PATH": "",
    "CF_HOME": ".cf/config.json",
    "IBMCLOUD_HOME": ".bluemix/config.json",
    "PUB_CACHE": "credentials.json",
    "FETCHMAILHOME": "fetchmailrc",
    "WEECHAT_HOME": "sec.conf",
    "HGRCPATH": "",
    "LINODE_CLI_CONFIG": "",
    "TUNNEL_ORIGIN_CERT": "",
    "MYSQL_HOME": "my.cnf",
}


@needs_bwrap
def test_secrets_tools_own_variables_move_out_of_your_home_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Each variable's value is a file or folder of its own name, lowercased, in ~/keys.
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, [])
    names = []
    for variable, inside in SECRETS_TOOLS_VARIABLES_MOVE.items():
        monkeypatch.setenv(variable, str(keys / variable.lower()))
        name = f"{variable.lower()}/{inside}" if inside else variable.lower()
        (keys / name).parent.mkdir(parents=True, exist_ok=True)
        (keys / name).write_text(f"SECRET-{name}\n")
        names.append(name)
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_client_keys_yarn_twine_poetry_and_conda_take_from_your_environment_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Each tool's own variable for its client key, or for a certificate with the key in it;
    # and Poetry's config.toml `client-cert`. A certificate alone stays readable.
    monkeypatch.setenv("HOME", str(home))
    variables = [
        "YARN_HTTPS_KEY_FILE_PATH",
        "YARN_HTTPS_CERT_FILE_PATH",
        "TWINE_CLIENT_CERT",
        "POETRY_CERTIFICATES_CORP_CLIENT_CERT",
        "CONDA_CLIENT_SSL_CERT_KEY",
        "CONDA_CLIENT_SSL_CERT",
    ]
    names = [*(name.lower() for name in variables), "poetry.pem", "public.crt"]
    keys = secrets_in(home, names)
    for name in names[:-1]:
        (keys / name).write_text(f"-----BEGIN PRIVATE KEY-----\nSECRET-{name}\n")
    (keys / "public.crt").write_text("-----BEGIN CERTIFICATE-----\nSECRET-public.crt\n")
    for variable in variables:
        monkeypatch.setenv(variable, str(keys / variable.lower()))
    (home / ".config/pypoetry").mkdir(parents=True)
    (home / ".config/pypoetry/config.toml").write_text(
        f'[certificates.corp]\nclient-cert = "{keys}/poetry.pem"\n'
    )
    assert secrets_read(workspace, names) == ["public.crt"]
    monkeypatch.setenv("YARN_HTTPS_CERT_FILE_PATH", str(keys / "public.crt"))
    assert secrets_read(workspace, ["public.crt"]) == ["public.crt"]


@needs_bwrap
def test_the_password_files_of_your_ansible_vault_identities_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, ["dev.txt", "prod.txt"])
    monkeypatch.setenv(
        "ANSIBLE_VAULT_IDENTITY_LIST", f"dev@~/keys/dev.txt,{keys}/prod.txt,x@prompt"
    )
    assert secrets_read(workspace, ["dev.txt", "prod.txt"]) == []


@needs_bwrap
def test_the_yarnrc_your_yarn_rc_filename_names_is_hidden(home: Path, workspace: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    (home / ".yarnrc.ci.yml").write_text('npmAuthToken: "SECRET-yarnrc"\n')
    monkeypatch.setenv("YARN_RC_FILENAME", ".yarnrc.ci.yml")
    output = run(run_bash(workspace, "cat ~/.yarnrc.ci.yml; echo read", sandbox=Bubblewrap()))
    assert "read" in output and "SECRET-yarnrc" not in output


# Keys and passwords more tools keep at their usual places in your home.
MORE_HOME_SECRETS = [
    ".local/share/gem/credentials",
    ".minikube/certs/key.pem",
    ".minikube/machines/minikube/id_rsa",
    ".local/share/mkcert/rootCA-key.pem",
    ".local/share/caddy/pki/authorities/local/root.key",
    ".config/chezmoi/key.txt",
    ".secrets",
    ".config/pdm/config.toml",
    ".lima/_config/user",
]


@needs_bwrap
def test_the_keys_more_tools_keep_in_your_home_are_hidden(home: Path, workspace: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    for name in MORE_HOME_SECRETS:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"SECRET-{name}\n")
    (home / ".local/share/notes.txt").write_text("NOT-SECRET\n")
    command = "cd ~ && cat .local/share/notes.txt " + " ".join(MORE_HOME_SECRETS)
    output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert "NOT-SECRET" in output
    assert [name for name in MORE_HOME_SECRETS if f"SECRET-{name}" in output] == []


# Key and password files your tools' configs name by path, as their variables may (those are
# hidden too): each config names ~/keys/<name>.
CONFIGS_NAMING_KEYS = {
    "ansible.key": (".ansible.cfg", "[defaults]\nprivate_key_file = {}\n"),
    "vault.txt": (".ansible.cfg", "vault_password_file = {}\n"),
    "pg.key": (".pg_service.conf", "[prod]\nhost=db\nsslkey={}\n"),
    "pgpass": (".pg_service.conf", "passfile={}\n"),
    "token": (".aws/config", "[profile ci]\nweb_identity_token_file={}\n"),
    "aws.json": (".aws/config", "[default]\ncredential_process = cat {}\n"),
    "gcloud.json": (
        ".config/gcloud/configurations/config_work",
        "[auth]\ncredential_file_override = {}\n",
    ),
    "oci.pem": (".oci/config", "[DEFAULT]\nkey_file={}\n"),
    "mysql.key": (".my.cnf", "[client]\nssl-key={}\n"),
    "twine.pem": (".pypirc", "[pypi]\nclient_cert={}\n"),
    "conda.key": (".condarc", "client_ssl_cert_key: {}\n"),
    "hg.key": (".hgrc", "[auth]\ncorp.prefix = https://hg.corp\ncorp.key = {}\n"),
    "sftp.key": (".config/rclone/rclone.conf", "[backup]\ntype = sftp\nkey_file = {}\n"),
    "drive.json": (".config/rclone/rclone.conf", "service_account_file = {}\n"),
    "secring.gpg": (".gradle/gradle.properties", "signing.secretKeyRingFile={}\n"),
    "gs.json": (".boto", "[Credentials]\ngs_service_key_file = {}\n"),
    "deploy": (".m2/settings.xml", "<server><privateKey>{}</privateKey></server>\n"),
}


@needs_bwrap
def test_key_and_password_files_your_tools_configs_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, list(CONFIGS_NAMING_KEYS))
    for name, (config, line) in CONFIGS_NAMING_KEYS.items():
        (home / config).parent.mkdir(parents=True, exist_ok=True)
        with open(home / config, "a") as settings:
            settings.write(line.format(keys / name))
    assert secrets_read(workspace, list(CONFIGS_NAMING_KEYS)) == []


@needs_bwrap
def test_client_certificates_a_tool_may_read_a_key_from_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A PKCS#12 bundle (binary, its key inside) that curl's `cert-type = P12` names, also
    # with its password after a colon, or git's `http.sslCert`, and a DER one of wget's: the
    # tool may read a key from each. A public PEM certificate stays readable.
    monkeypatch.setenv("HOME", str(home))
    names = ["client.p12", "pw.p12", "wget.der"]
    keys = secrets_in(home, [*names, "public.crt"])
    for name in names:  # (a DER structure's first bytes: no text)
        (keys / name).write_bytes(b"0\x82\x0a\x1b\x02\x01\x03" + f"SECRET-{name}\n".encode())
    (keys / "public.crt").write_text(
        "-----BEGIN CERTIFICATE-----\nSECRET-public.crt\n-----END CERTIFICATE-----\n"
    )
    (home / ".curlrc").write_text('cert = "~/keys/pw.p12:secret"\ncert-type = P12\n')
    (home / ".gitconfig").write_text(
        '[http]\n\tsslCert = ~/keys/client.p12\n[http "https://b.example"]\n'
        "\tsslCert = ~/keys/public.crt\n"
    )
    (home / ".wgetrc").write_text("certificate = ~/keys/wget.der\ncertificate_type = DER\n")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    assert secrets_read(workspace, [*names, "public.crt"]) == ["public.crt"]


@needs_bwrap
def test_the_client_certificate_your_git_variable_names_is_hidden_where_it_may_hold_a_key(
    home: Path, workspace: Path, monkeypatch
):
    # GIT_SSL_CERT is http.sslCert from your environment (a CI runner's): a PEM with its key
    # beside the certificate, or any form GIT_SSL_CERT_TYPE gives but PEM, is a key to git.
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, ["both.pem", "public.crt"])
    (keys / "both.pem").write_text(
        "-----BEGIN CERTIFICATE-----\nSECRET-both.pem\n-----END CERTIFICATE-----\n"
        "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n"
    )
    (keys / "public.crt").write_text(
        "-----BEGIN CERTIFICATE-----\nSECRET-public.crt\n-----END CERTIFICATE-----\n"
    )
    monkeypatch.setenv("GIT_SSL_CERT", str(keys / "both.pem"))
    assert secrets_read(workspace, ["both.pem", "public.crt"]) == ["public.crt"]
    monkeypatch.setenv("GIT_SSL_CERT", str(keys / "public.crt"))
    monkeypatch.setenv("GIT_SSL_CERT_TYPE", "P12")
    assert secrets_read(workspace, ["both.pem", "public.crt"]) == ["both.pem"]


@needs_bwrap
def test_npms_global_config_is_hidden_where_it_holds_a_login(
    home: Path, workspace: Path, monkeypatch
):
    # nvm's node is on PATH from ~/.nvm/versions/node/v20/bin; `npm login --location=global`
    # keeps the token in etc/npmrc beside it. One with registry settings alone stays readable.
    prefix = home / ".nvm/versions/node/v20"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "etc").mkdir()
    (prefix / "etc/npmrc").write_text("//registry.npmjs.org/:_authToken=SECRET-NPM-TOKEN\n")
    other = home / "tools"
    (other / "bin").mkdir(parents=True)
    (other / "etc").mkdir()
    (other / "etc/npmrc").write_text("registry=https://npm.example.com/\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{prefix / 'bin'}:{other / 'bin'}:{os.environ['PATH']}")
    command = f"cat {prefix / 'etc/npmrc'} {other / 'etc/npmrc'}"
    output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert "registry=https://npm.example.com/" in output
    assert "SECRET-NPM-TOKEN" not in output


@needs_bwrap
def test_client_keys_npms_global_config_names_are_hidden(home: Path, workspace: Path, monkeypatch):
    # npm reads `keyfile` and `certfile` from its global config too: nvm's etc/npmrc beside
    # the node on PATH, or the file NPM_CONFIG_GLOBALCONFIG names.
    names = ["nvm.key", "global.key", "global.pem"]
    keys = secrets_in(home, names)
    (keys / "global.pem").write_text("-----BEGIN PRIVATE KEY-----\nSECRET-global.pem\n")
    prefix = home / ".nvm/versions/node/v20"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "etc").mkdir()
    (prefix / "etc/npmrc").write_text("//npm.corp.example/:keyfile=~/keys/nvm.key\n")
    (keys / "globalrc").write_text(
        f"//npm.corp.example/:keyfile={keys}/global.key\n"
        f"//npm.corp.example/:certfile={keys}/global.pem\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{prefix / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("NPM_CONFIG_GLOBALCONFIG", str(keys / "globalrc"))
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_client_keys_the_systems_ssh_pip_and_wget_configs_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A managed machine's /etc/ssh/ssh_config.d/*.conf, /etc/pip.conf and /etc/wgetrc name a
    # key for every user (`~` is yours): stood in for by files outside /etc, since a test must
    # not write the system's own.
    monkeypatch.setenv("HOME", str(home))
    names = ["corp.pem", "pip.pem", "wget.key"]
    keys = secrets_in(home, names)
    etc = home / "etc"
    (etc / "ssh/ssh_config.d").mkdir(parents=True)
    (etc / "ssh/ssh_config").write_text("Include ssh_config.d/*.conf\n")
    (etc / "ssh/ssh_config.d/corp.conf").write_text("Host *\n  IdentityFile ~/keys/corp.pem\n")
    (etc / "pip.conf").write_text(f"[global]\nclient-cert = {keys}/pip.pem\n")
    (etc / "wgetrc").write_text("private_key = ~/keys/wget.key\n")
    monkeypatch.setattr(named_keys, "SYSTEM_SSH_CONFIG", str(etc / "ssh/ssh_config"))
    system = (str(etc / "pip.conf"), str(etc / "wgetrc"))  # (each tool reads its settings)
    tools = [
        tool._replace(system_configs=system) if tool.system_configs else tool
        for tool in named_keys.TOOL_KEY_SETTINGS
    ]
    monkeypatch.setattr(named_keys, "TOOL_KEY_SETTINGS", tuple(tools))
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_a_reopened_secret_can_be_read(home: Path, workspace: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    command = "cat ~/.ssh/id_ed25519 ~/.netrc 2>&1"
    hidden = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    reopened = run(run_bash(workspace, command, sandbox=Bubblewrap(allow_read=[home / ".ssh"])))
    assert "PRIVATE-KEY-MATERIAL" not in hidden and "NETRC-PASSWORD" not in hidden
    assert "PRIVATE-KEY-MATERIAL" in reopened and "NETRC-PASSWORD" not in reopened
    assert "Permission denied" not in hidden  # it reads as empty, not as an error


@needs_bwrap
def test_keys_other_tools_keep_in_the_home_are_hidden(home: Path, workspace: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    names = (
        ".config/sops/age/keys.txt",
        ".android/adbkey",
        ".minikube/profiles/minikube/client.key",
        ".msmtprc",
        ".hgrc",  # [auth] passwords, beside the settings Mercurial reads
        ".aliyun/config.json",
        ".config/pypoetry/auth.toml",
        ".tsh/keys/proxy/user",
        ".cloudflared/cert.pem",
        ".condarc",
        ".config/solana/id.json",
        ".ethereum/keystore/UTC--key",
        ".thunderbird/abc.default/logins.json",
        ".local/share/TelegramDesktop/tdata/key_datas",
        ".pki/nssdb/key4.db",
        ".config/syncthing/key.pem",
        ".config/msmtp/config",
        ".config/aerc/accounts.conf",
        ".mbsyncrc",
        ".gitlab-runner/config.toml",
        ".talos/config",
        ".local/share/jupyter/runtime/jpserver-1.json",
        ".config/Slack/Cookies",
        ".mongodb/mongosh/mongosh_repl_history",
        ".bundle/config",
        ".local/share/python_keyring/keyring_pass.cfg",
        ".curlrc",
        ".wgetrc",  # wget's password
        ".minikube/ca.key",
        ".config/argocd/config",
        ".config/helm/registry/config.json",
        ".config/twilio-cli/config.json",
        ".lftp/bookmarks",
        ".config/exercism/user.json",
        ".bash_eternal_history",  # histories at places shell settings choose
        ".local/share/zsh/history",
        ".qwen/oauth_creds.json",  # another agent's login
        ".local/share/amp/secrets.json",
        ".local/share/crush/crush.json",
        ".config/gptme/config.toml",
        ".cf/config.json",
        ".step/secrets/root_ca_key",
        ".config/exoscale/exoscale.toml",
        ".upcloud.yaml",
        ".b2_account_info",
        ".config/openstack/clouds.yaml",
        ".config/JetBrains/IntelliJIdea2025.3/c.kdbx",
        ".local/share/kwalletd/kdewallet.kwl",
        ".config/dvc/config",
        ".config/b2/account_info",
        ".config/pnpm/rc",
        ".config/Claude/claude_desktop_config.json",
    )
    for name in names:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"SECRET-OF {name}\n")
    command = "cat " + " ".join(f"~/{name}" for name in names) + " 2>&1; echo read"
    output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert "read" in output and "SECRET-OF" not in output


@needs_bwrap
def test_secrets_of_your_account_s_home_are_hidden_when_home_points_elsewhere(
    home: Path, workspace: Path, tmp_path: Path, monkeypatch
):
    # A run with HOME moved (CI, `sudo -E`, a wrapper's `HOME=$PWD/.home`): the home the
    # password database gives is still yours, with your keys and other sessions in it.
    account = outside_tmp("planloop-account-")  # (the sandbox's own /tmp would hide it anyway)
    try:
        for name in (".ssh/id_ed25519", ".npmrc", ".planloop/sessions/other.jsonl", "notes"):
            (account / name).parent.mkdir(parents=True, exist_ok=True)
            (account / name).write_text(f"SECRET-OF {name}\n")
        with account_home_at(account, home, monkeypatch):
            command = f"cd {account} && cat .ssh/id_ed25519 .npmrc .planloop/sessions/* notes"
            output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    finally:
        shutil.rmtree(account)
    assert "SECRET-OF notes" in output  # (the folder is there to read)
    assert output.count("SECRET-OF") == 1


def test_your_account_s_dot_files_kept_in_the_workspace_are_protected_when_home_moves(
    home: Path, tmp_path: Path, monkeypatch
):
    # planloop runs in the dotfiles repository with HOME moved for the run: the `.gitconfig`
    # your account's home links there is what git reads in your other terminals.
    account, dotfiles = tmp_path / "account", tmp_path / "account" / "dotfiles"
    (dotfiles / "git").mkdir(parents=True)
    (dotfiles / "git" / ".gitconfig").write_text("[user]\n\tname = you\n")
    (account / ".gitconfig").symlink_to("dotfiles/git/.gitconfig")
    with account_home_at(account, home, monkeypatch):
        why = protected_reason(dotfiles, "git/.gitconfig")
    assert why is not None, "the file your account's ~/.gitconfig links to"


@needs_bwrap
def test_ordinary_commands_still_work_in_the_sandbox(hostile_repo: Path, home: Path, monkeypatch):
    monkeypatch.setenv("HOME", str(home))
    command = (
        "ls >/dev/null && python3 -c 'import socket; socket.socketpair(); print(1 + 1)' && "
        "git status --short | head -1; git log --oneline | wc -l"
    )
    output = run(run_bash(hostile_repo, command, sandbox=Bubblewrap()))
    assert output.startswith("2\n") and "[exit code: 0]" in output


def test_the_filter_checks_the_architecture_first_and_refuses_unix_sockets():
    program = unix_socket_filter("x86_64")
    words = [program[i : i + 8] for i in range(0, len(program), 8)]
    assert len(program) % 8 == 0
    assert words[0][:2] == (0x20).to_bytes(2, "little")  # load the architecture
    constants = {int.from_bytes(word[4:], "little") for word in words}
    # Only the families let through are named; AF_UNIX (and AF_VSOCK) fall to the refusal.
    allowed = {socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK}
    assert {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, *allowed, 41, 102, 359} <= constants
    assert 0x80000000 in constants  # a foreign ABI is killed
    with pytest.raises(UnsupportedMachine):
        unix_socket_filter("riscv64")


# ---- an unprivileged user ------------------------------------------------------------------


def as_nobody_or_skip(tmp_path: Path) -> Path:
    """A workspace owned by an ordinary user, or a skip saying why there cannot be one."""
    if os.geteuid() != 0:
        pytest.skip("already unprivileged: the other tests run as this user")
    if shutil.which("setpriv") is None or shutil.which("bwrap") is None:
        pytest.skip("setpriv or bwrap is missing, so no ordinary user can be switched to")
    probe = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         "bwrap", "--ro-bind", "/", "/", "true"],
        capture_output=True, text=True,
    )  # fmt: skip
    if probe.returncode != 0:
        pytest.skip(f"an ordinary user cannot start bwrap here: {probe.stderr.strip()}")
    place = outside_tmp("planloop-test-nobody-")
    place.chmod(0o755)
    return place


@needs_bwrap
def test_an_unprivileged_user_cannot_get_out_either(tmp_path: Path, monkeypatch):
    place = as_nobody_or_skip(tmp_path)
    try:
        home, ws, marker = place / "home", place / "work", place / "git-ran-planted-code"
        (home / ".ssh").mkdir(parents=True)
        (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL\n")
        ws.mkdir()
        git("init", "-q", cwd=ws, home=home)
        (ws / ".env").write_text("DEBUG=1\n")
        stand_in = SocketStandIn(place / "run")
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(place)], check=True)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("PLANLOOP_HOME", str(home / ".planloop"))
        attack = (
            f"printf '{planted(marker)}' >> .git/config; mv .git .git-old; "
            "echo X=1 >> .env; mount -o remount,bind,rw / && echo REMOUNTED; "
            f"cat ~/.ssh/id_ed25519; {stand_in.connect_command()}; id -u"
        )
        attack = f"{{ {attack}; }} 2>&1"
        # Built by root for the ordinary user, whose own home it is (its account's too): the
        # views of the homes are made of what that user can reach.
        with account_home_at(home, home, monkeypatch):
            argv, env = Bubblewrap(user_namespace=False).wrap(ws, attack)
        # The test's own Python may sit where the ordinary user cannot reach; the launcher and
        # the Landlock step inside need only the standard library, so the system's Python serves.
        argv[0] = "/usr/bin/python3"
        argv = ["/usr/bin/python3" if word == LANDLOCK_PYTHON else word for word in argv]
        # planloop's private folder (the filter, the empty file) belongs to the user who runs
        # planloop; here that is root building the argv for another user, who may not reach it
        # (an earlier test in this process can have put it under a root-only folder), so the
        # ordinary user is given a copy of its own.
        theirs = place / "private"
        shutil.copytree(private_folder(), theirs)
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(theirs)], check=True)
        ours = str(private_folder())
        argv = [word.replace(ours, str(theirs)) for word in argv]
        done = subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv],
            env={**env, "HOME": str(home)}, cwd=ws, capture_output=True, text=True,
        )  # fmt: skip
        output = done.stdout
        assert output.rstrip().endswith(str(NOBODY)), (output, done.stderr)  # it ran, as nobody
        git("status", cwd=ws, home=home)
        assert not marker.exists()
        assert (ws / ".git").is_dir() and not (ws / ".git-old").exists()
        assert (ws / ".env").read_text() == "DEBUG=1\n"
        assert "REMOUNTED" not in output and "PRIVATE-KEY-MATERIAL" not in output
        assert "CONNECTED" not in output and not stand_in.answered()
    finally:
        shutil.rmtree(place, ignore_errors=True)


# ---- the terminal ------------------------------------------------------------------------------


@needs_bwrap
@pytest.mark.real_exec
def test_the_terminal_names_a_new_env_file_at_once_and_again_at_exit(api, workspace, isolated_home):
    from test_interactive import Terminal

    env = terminal_env(api, isolated_home, columns=200)
    api.add({"content": [tool_use("bash", {"command": "echo A=1 > .env.planted"})]})
    api.add({"content": [text("All set.")]})
    with Terminal(workspace, env) as terminal:
        terminal.wait_for_prompt()
        terminal.type("go\r")
        terminal.wait_for(
            "sandbox: .env.planted (a new .env file) appeared"
        )  # at once, before the answer
        terminal.wait_for("All set.")
        terminal.wait_for_prompt()
        terminal.type("/exit\r")
        terminal.wait_for("These appeared while sandboxed commands ran")
        terminal.wait_for(".env.planted")  # again at exit
        assert terminal.close() == 0
    assert (workspace / ".env.planted").read_text() == "A=1\n"


@needs_bwrap
def test_a_workspace_of_more_env_files_than_a_sandbox_holds_runs_no_command(workspace: Path):
    # A repository that ships thousands of `.env.local` files: each is one bind, bwrap takes a
    # few thousand words, and working them out held the event loop (no SIGTERM) for minutes.
    for n in range(MAX_ENV_FILES_HELD + 1):
        (workspace / "t" / str(n)).mkdir(parents=True)
        (workspace / "t" / str(n) / ".env.local").write_text("DEBUG=1\n")
    too_many = f"holds {MAX_ENV_FILES_HELD + 1:,} .env files, more than a sandbox can keep"
    with pytest.raises(ToolError, match=re.escape(too_many)):
        run(run_bash(workspace, "touch ran", sandbox=Bubblewrap()))
    assert not (workspace / "ran").exists()


@needs_bwrap
def test_what_a_hidden_folder_links_to_is_hidden_in_the_workspace_and_in_run(
    home: Path, workspace: Path, monkeypatch
):
    # planloop run in the dotfiles repository that stow links into ~/.ssh file by file, and a
    # token a secrets manager decrypts into /run (agenix, sops-nix) with a link in ~/.config/gh:
    # each file a hidden folder's link leads to is hidden, there too; the rest stays.
    monkeypatch.setenv("HOME", str(home))
    os.unlink(home / ".ssh" / "id_ed25519")
    stowed = workspace / "ssh" / ".ssh" / "id_ed25519"
    stowed.parent.mkdir(parents=True)
    stowed.write_text("SECRET-OF stow\n")
    (home / ".ssh" / "id_ed25519").symlink_to(stowed)
    (workspace / "README").write_text("CONTROL\n")
    files = [stowed]
    run_folder = None
    if os.access("/run", os.W_OK):  # (root: CI)
        run_folder = Path(tempfile.mkdtemp(prefix="planloop-test-secrets-", dir="/run"))
        token = run_folder / "gh-hosts.yml"
        token.write_text("SECRET-OF run\n")
        (home / ".config" / "gh").mkdir(parents=True)
        (home / ".config" / "gh" / "hosts.yml").symlink_to(token)
        files.append(token)
    try:
        command = "cat README " + " ".join(map(str, files)) + " 2>&1; echo read"
        output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
        assert "CONTROL" in output and "read" in output and "SECRET-OF" not in output, output
        with pytest.raises(ToolError):  # nor does read_file show it to the model
            read_file(workspace, "ssh/.ssh/id_ed25519")
    finally:
        if run_folder is not None:
            shutil.rmtree(run_folder)


@needs_bwrap
def test_a_secrets_hard_link_in_the_workspace_is_hidden_there_too(home: Path, monkeypatch):
    # Dot files kept with `ln`: the dotfiles repository's ssh/id_ed25519 is ~/.ssh/id_ed25519
    # by another name, read neither by a command nor by read_file; a file shared so that is
    # no secret (an editor's config) stays readable.
    monkeypatch.setenv("HOME", str(home))
    dotfiles = home / "dotfiles"
    (dotfiles / "ssh").mkdir(parents=True)
    os.link(home / ".ssh/id_ed25519", dotfiles / "ssh/id_ed25519")
    (home / "init.lua").write_text("EDITOR-CONFIG\n")
    os.link(home / "init.lua", dotfiles / "init.lua")
    command = "cat init.lua ssh/id_ed25519"
    output = run(run_bash(dotfiles, command, sandbox=Bubblewrap()))
    assert "EDITOR-CONFIG" in output and "PRIVATE-KEY-MATERIAL" not in output
    assert "EDITOR-CONFIG" in read_file(dotfiles, "init.lua")
    with pytest.raises(ToolError, match="secrets the sandbox hides"):
        read_file(dotfiles, "ssh/id_ed25519")


@needs_bwrap
def test_a_hard_link_to_a_secret_in_a_linked_hidden_folder_is_hidden_too(home: Path, monkeypatch):
    # stow's `~/.aws -> private/aws`: the hidden folder is a link, and the workspace's second
    # name of the credentials is the file it leads to.
    monkeypatch.setenv("HOME", str(home))
    (home / "private/aws").mkdir(parents=True)
    (home / "private/aws/credentials").write_text("AWS-SECRET-KEY\n")
    (home / ".aws").symlink_to("private/aws")
    work = home / "work"
    work.mkdir()
    os.link(home / "private/aws/credentials", work / "aws-creds")
    (work / "notes.txt").write_text("NOT-SECRET\n")
    output = run(run_bash(work, "cat notes.txt aws-creds", sandbox=Bubblewrap()))
    assert "NOT-SECRET" in output and "AWS-SECRET-KEY" not in output
    with pytest.raises(ToolError, match="secrets the sandbox hides"):
        read_file(work, "aws-creds")


@needs_bwrap
def test_a_hard_link_to_a_secret_elsewhere_in_your_home_is_hidden_too(home: Path, monkeypatch):
    # A dotfiles manager that hard-links: ~/.aws/credentials and ~/.ssh/id_ed25519 are the
    # files in ~/dotfiles, which a command run in another folder sees through your home.
    monkeypatch.setenv("HOME", str(home))
    dotfiles = home / "dotfiles"
    (dotfiles / "aws").mkdir(parents=True)
    (dotfiles / "ssh").mkdir()
    (dotfiles / "aws/credentials").write_text("AWS-SECRET-KEY\n")
    (home / ".aws").mkdir()
    os.link(dotfiles / "aws/credentials", home / ".aws/credentials")
    os.link(home / ".ssh/id_ed25519", dotfiles / "ssh/id_ed25519")
    (dotfiles / "vimrc").write_text("EDITOR-CONFIG\n")
    work = home / "work"
    work.mkdir()
    sandbox = Bubblewrap()
    command = "cat ~/dotfiles/vimrc ~/dotfiles/aws/credentials ~/dotfiles/ssh/id_ed25519"
    output = run(run_bash(work, command, sandbox=sandbox))
    assert "EDITOR-CONFIG" in output
    assert "AWS-SECRET-KEY" not in output and "PRIVATE-KEY-MATERIAL" not in output
    assert sandbox.must_ask is None


@needs_bwrap
def test_a_secret_with_another_name_outside_your_home_makes_commands_ask(home: Path, monkeypatch):
    # Where the other name lies, planloop cannot tell without looking through every folder.
    monkeypatch.setenv("HOME", str(home))
    elsewhere = home.parent / "backup"
    elsewhere.mkdir()
    os.link(home / ".ssh/id_ed25519", elsewhere / "id_ed25519")
    work = home / "work"
    work.mkdir()
    sandbox = Bubblewrap()
    sandbox.before_command(work)
    run(run_bash(work, "true", sandbox=sandbox))
    assert f"{home}/.ssh/id_ed25519, a secret the sandbox hides, has another name" in (
        sandbox.must_ask or ""
    )


def test_a_package_file_pnpm_links_from_its_store_is_read_beside_a_large_hidden_folder(
    home: Path, monkeypatch
):
    # pnpm links each package's files from its store: read_file looks them up among the hidden
    # secrets by device and inode, and a browser profile of tens of thousands of files, hidden
    # whole, must not make every such file count as a secret.
    monkeypatch.setenv("HOME", str(home))
    profile = home / ".mozilla/firefox/abc.default/cache2/entries"
    profile.mkdir(parents=True)
    for number in range(25_000):
        (profile / f"{number:05}").touch()
    store = home / ".local/share/pnpm/store/v3/files/00"
    store.mkdir(parents=True)
    (store / "index.js").write_text("module.exports = 'PACKAGE-CODE';\n")
    work = home / "work"
    (work / "node_modules/pkg").mkdir(parents=True)
    os.link(store / "index.js", work / "node_modules/pkg/index.js")
    assert "PACKAGE-CODE" in read_file(work, "node_modules/pkg/index.js")
