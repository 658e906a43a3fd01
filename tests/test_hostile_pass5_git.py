"""Git on the host obeys more than `.git`: a model gets host git to run its command.

Each attack leaves something in the workspace that git, run later by the person outside any
sandbox, takes for its own: a repository it recognises by content, a hook that is a link into
the working tree, a hooks folder made where a missing one was named. The end-to-end tests drive
`python agent.py` headless (no --yes) against the fake API, as root and as an unprivileged
user, then run git on the host the way the person would, and check that the planted command did
not run.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from test_hostile_pass4 import AS_NOBODY, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.beneath import target_of
from tools.paths import protected_reason, scan_workspace
from tools.sandbox import Bubblewrap

__all__ = ["user_folders"]  # the fixture, used by name


def as_user(user: str, *command: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    """Run a command on the host as the test's user, as the person would in a terminal.

    git obeys only a repository its own user owns, so the unprivileged user's runs are that
    user's. `script` gives git a terminal, so that it starts the pager a config names.
    """
    prefix = AS_NOBODY if user == "nobody" else []
    environment = {"PATH": os.environ["PATH"], "HOME": str(home), "TERM": "xterm"}
    return subprocess.run(
        [*prefix, *command], cwd=cwd, env=environment, capture_output=True, text=True, timeout=60
    )


def in_a_terminal(command: str) -> list[str]:
    return ["script", "-qec", command, "/dev/null"]


def make(user: str, path: Path, *, folder: bool = False, content: str = "") -> None:
    """A file or folder the test's user owns."""
    if folder:
        path.mkdir(parents=True, exist_ok=True)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    if user == "nobody":
        os.chown(path, 65534, 65534)


def repository(user: str, workspace: Path, home: Path, **config: str) -> None:
    """`git init` in the workspace, as the user, with `config` (hooksPath="x") set."""
    as_user(user, "git", "init", "-q", ".", cwd=workspace, home=home).check_returncode()
    pairs = {"user.email": "me@example.com", "user.name": "me"}
    pairs.update({f"core.{key}": value for key, value in config.items()})
    for key, value in pairs.items():
        as_user(user, "git", "config", key, value, cwd=workspace, home=home).check_returncode()


def commit(user: str, workspace: Path, home: Path) -> subprocess.CompletedProcess:
    make(user, workspace / "a.txt", content="hi\n")
    as_user(user, "git", "add", "a.txt", cwd=workspace, home=home).check_returncode()
    return as_user(user, "git", "commit", "-qm", "x", cwd=workspace, home=home)


def pager_config(marker: Path) -> str:
    return f'[core]\\n\\tpager = "touch {marker}; cat"\\n'


# ---- a repository by content that git accepts: objects or refs as a link or an executable file


def test_the_scan_finds_a_repository_whose_objects_or_refs_is_no_folder(tmp_path):
    for kind in ("link", "executable"):
        bare = tmp_path / kind
        (bare / "real").mkdir(parents=True)
        (bare / "HEAD").write_text("ref: refs/heads/main\n")
        (bare / "refs").mkdir()
        if kind == "link":
            (bare / "objects").symlink_to("real")
        else:
            (bare / "objects").touch(mode=0o755)
    (tmp_path / "head-link").mkdir()
    (tmp_path / "head-link" / "HEAD").symlink_to("refs/heads/main")
    (tmp_path / "head-link" / "objects").mkdir()
    (tmp_path / "head-link" / "refs").symlink_to("../link/real")
    (tmp_path / "plain" / "HEAD").mkdir(parents=True)  # a folder called HEAD: git says no
    (tmp_path / "plain" / "objects").mkdir()
    (tmp_path / "plain" / "refs").mkdir()
    found = set(scan_workspace(tmp_path).git_entries)
    assert found == {tmp_path / "link", tmp_path / "executable", tmp_path / "head-link"}
    assert target_of(tmp_path, "executable/config").in_git_dir


@needs_bwrap
@pytest.mark.parametrize("kind", ["link", "executable file"])
def test_a_repository_with_objects_as_a_link_or_a_file_is_reported_and_held(
    api, env, user_folders, kind
):
    user, workspace, planloop_home, home = user_folders
    marker = home / "pager-ran"
    objects = "ln -s refs objects" if kind == "link" else "touch objects && chmod +x objects"
    build = (
        f"mkdir -p sub/refs && cd sub && {objects} && echo 'ref: refs/heads/main' > HEAD && "
        "printf '[core]\\n\\tbare = true\\n' > config"
    )
    plant = f"printf '{pager_config(marker)}' >> sub/config"
    api.add({"content": [tool_use("bash", {"command": build})]})
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("read_file", {"path": "sub/config"})]})
    api.add({"content": [tool_use("write_file", {"path": "sub/config", "content": "x"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    built, planted, _, written = tool_results(api)
    assert "[sub is a new git repository." in built
    assert "Read-only file system" in planted
    assert "was not changed" in written and ".git/ is protected" in written
    assert "sub (a new git repository)" in result.stderr  # told again at exit
    as_user(user, *in_a_terminal("git branch"), cwd=workspace / "sub", home=home)
    assert not marker.exists()
    assert "pager" not in (workspace / "sub" / "config").read_text()


# ---- write_file putting a repository together one piece at a time


PIECES = {
    "objects/.keep": "",
    "refs/heads/.keep": "",
    "HEAD": "ref: refs/heads/main\n",
    "config": None,  # the pager, filled in by the test
}


def test_a_write_that_completes_a_repository_counts_as_inside_it(tmp_path):
    (tmp_path / "x" / "refs").mkdir(parents=True)
    (tmp_path / "x" / "HEAD").write_text("ref: refs/heads/main\n")
    assert target_of(tmp_path, "x/objects/.keep").in_git_dir  # objects/ would be made
    assert target_of(tmp_path, "x/objects").in_git_dir  # objects as a file
    assert not target_of(tmp_path, "x/other/.keep").in_git_dir
    assert not target_of(tmp_path, "y/HEAD").in_git_dir  # a new folder holds one entry
    (tmp_path / "x" / "objects").mkdir()
    (tmp_path / "x" / "HEAD").unlink()
    assert target_of(tmp_path, "x/HEAD").in_git_dir
    assert not target_of(tmp_path, "x/refs/HEAD").in_git_dir


@pytest.mark.parametrize("last", ["HEAD", "objects/.keep", "refs/heads/.keep"])
def test_write_file_cannot_put_a_repository_together_piece_by_piece(api, env, user_folders, last):
    user, workspace, planloop_home, home = user_folders
    marker = home / "pager-ran"
    pieces = {**PIECES, "config": pager_config(marker).encode().decode("unicode_escape")}
    order = [piece for piece in pieces if piece != last] + [last]
    for piece in order:
        call = {"path": f"tools/x/{piece}", "content": pieces[piece]}
        api.add({"content": [tool_use("write_file", call)]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    *written, refused = tool_results(api)
    assert all("Wrote" in output for output in written), written
    assert "was not changed" in refused and ".git/ is protected" in refused
    x = workspace / "tools" / "x"
    assert not (x / last).exists()
    as_user(user, *in_a_terminal("git branch"), cwd=x, home=home)
    assert not marker.exists()


# ---- a hook that is a link into the working tree


@needs_bwrap
def test_a_hook_that_links_into_the_tree_cannot_be_rewritten(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    marker = home / "hook-ran"
    repository(user, workspace, home)
    checks = "#!/bin/sh\necho running checks\n"
    make(user, workspace / "scripts", folder=True)
    make(user, workspace / "scripts" / "pre-commit.sh", content=checks)
    os.chmod(workspace / "scripts" / "pre-commit.sh", 0o755)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.symlink_to("../../scripts/pre-commit.sh")
    if user == "nobody":
        os.chown(hook, 65534, 65534, follow_symlinks=False)
    planted = f"#!/bin/sh\\ntouch {marker}\\n"
    rewrite = f"printf '{planted}' > scripts/pre-commit.sh"
    move = (
        "mv scripts scripts_old && mkdir scripts && "
        f"printf '{planted}' > scripts/pre-commit.sh && chmod +x scripts/pre-commit.sh"
    )
    written = {"path": "scripts/pre-commit.sh", "content": f"#!/bin/sh\ntouch {marker}\n"}
    api.add({"content": [tool_use("bash", {"command": rewrite})]})
    api.add({"content": [tool_use("bash", {"command": move})]})
    api.add({"content": [tool_use("read_file", {"path": "scripts/pre-commit.sh"})]})
    api.add({"content": [tool_use("write_file", written)]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    rewritten, moved, _, refused = tool_results(api)
    assert "Read-only file system" in rewritten
    assert "[exit code: 0]" not in moved
    assert "was not changed" in refused and "is a link to this file" in refused
    assert (workspace / "scripts" / "pre-commit.sh").read_text() == checks
    committed = commit(user, workspace, home)
    assert "running checks" in committed.stdout + committed.stderr  # the hook ran: its own
    assert not marker.exists()


def test_a_hook_link_to_a_missing_file_or_through_a_link_makes_commands_ask(tmp_path):
    workspace = tmp_path
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.symlink_to("../../scripts/pre-commit.sh")
    sandbox = Bubblewrap()
    sandbox.must_ask = None  # whatever this machine lacks, only the hook is looked at here
    assert "which a git hook links to, does not exist" in sandbox._cannot_confine(
        workspace, scan_workspace(workspace)
    )
    (workspace / "real").mkdir()
    (workspace / "real" / "pre-commit.sh").write_text("#!/bin/sh\n")
    (workspace / "scripts").symlink_to("real")
    assert "is a link or lies behind one" in sandbox._cannot_confine(
        workspace, scan_workspace(workspace)
    )
    assert protected_reason(workspace, "real/pre-commit.sh")


# ---- a missing hooks folder whose parents are missing too


@needs_bwrap
def test_a_missing_hooks_folder_cannot_be_planted_by_moving_its_parent(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    marker = home / "hook-ran"
    repository(user, workspace, home, hooksPath="tools/githooks")
    plant = (
        "mv tools tools_old; mkdir -p tools/githooks && "
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > tools/githooks/pre-commit && "
        "chmod +x tools/githooks/pre-commit && echo planted"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("bash", {"command": "ls -A tools/githooks"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    planted, listed = tool_results(api)
    assert "planted" not in planted
    assert "pre-commit" not in listed
    assert not (workspace / "tools" / "githooks" / "pre-commit").exists()
    # The parent the sandbox made is the person's: an ordinary folder of the user's.
    tools = (workspace / "tools").stat()
    assert stat.S_ISDIR(tools.st_mode)
    assert tools.st_uid == (65534 if user == "nobody" else 0)
    commit(user, workspace, home).check_returncode()
    assert not marker.exists()


def test_a_hooks_folder_filled_where_a_stand_in_stood_is_reported(tmp_path):
    # No command can make it now; should one find a way, it is told like a new `.git`.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path), "config", "core.hooksPath", "a/b/hooks"], check=True
    )
    sandbox = Bubblewrap()
    before = sandbox.before_command(tmp_path)
    argv, _ = sandbox.wrap(tmp_path, "true", snapshot=before)
    hooks = tmp_path / "a" / "b" / "hooks"
    assert (tmp_path / "a" / "b").is_dir() and not hooks.exists()  # made, and so pinned
    assert ["--tmpfs", str(hooks), "--remount-ro", str(hooks)] == argv[
        argv.index(str(hooks)) - 1 :
    ][:4]
    assert str(tmp_path / "a" / "b") in argv
    hooks.mkdir()  # what bwrap leaves behind: an empty mount point, no news
    assert not any("hooks folder" in note for note in sandbox.after_command(tmp_path, before))
    (hooks / "pre-commit").write_text("#!/bin/sh\n")
    notes = sandbox.after_command(tmp_path, before)
    assert any("a/b/hooks is a new git hooks folder" in note for note in notes), notes
    assert "a/b/hooks (a new git hooks folder)" in sandbox.closing_report()
