"""Links the sandbox's read-only binds cannot hold by path: a link on the way to your own
settings, a settings file not made yet, and a file with a second name (a hard link).

A bind makes a path read-only; a link in the writable workspace can be pointed elsewhere, a
missing file can be created, and a file with two names can be written through the other one.
Each test drives `python agent.py` against the fake API, as root and as an unprivileged user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli
from test_hostile_pass4 import (
    AS_NOBODY,
    NOBODY,
    can_switch_user,
    needs_bwrap,
    run_as,
    tool_results,
    user_folders,
)

import tools.sandbox
from fakeapi import text, tool_use
from tools.paths import links_on_the_way, scan_workspace
from tools.sandbox import Bubblewrap, hard_linked_packages, held_for_commands_reason

__all__ = ["user_folders"]  # the fixture, used by name


def give_to(user: str, *paths: Path) -> None:
    """Everything at and below `paths` belongs to the user the test runs planloop as."""
    if user != "nobody":
        return
    for path in paths:
        os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        for folder, names, files in os.walk(path):
            for name in names + files:
                os.chown(os.path.join(folder, name), NOBODY, NOBODY, follow_symlinks=False)


def run(api, env, user_folders, *commands: str):
    """planloop, headless and without --yes, sending `commands` one by one: (what it said on
    the terminal, the tool results)."""
    user, workspace, planloop_home, home = user_folders
    for command in commands:
        api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    return " ".join(result.stderr.split()), tool_results(api)  # the terminal's lines joined


@needs_bwrap
def test_a_link_in_the_workspace_on_the_way_to_your_gitconfig_cannot_be_pointed_elsewhere(
    api, env, user_folders
):
    # A dotfiles repository with versions: ~/.gitconfig -> dotfiles/cur/gitconfig, cur -> v2.
    # The bind holds v2/gitconfig; a command re-points cur to a folder of its own making.
    user, workspace, _, home = user_folders
    (workspace / "v2").mkdir()
    (workspace / "v2" / "gitconfig").write_text("[user]\n\tname = me\n")
    os.symlink("v2", workspace / "cur")
    os.symlink(workspace / "cur" / "gitconfig", home / ".gitconfig")
    give_to(user, workspace)
    relink = (
        "mkdir evil; printf '[core]\\n\\tpager = touch planted\\n' > evil/gitconfig; "
        "rm cur; ln -s evil cur; echo finished"
    )
    said, (output,) = run(api, env, user_folders, relink)
    assert "through the link cur" in said
    assert "finished" not in output
    assert (home / ".gitconfig").read_text() == "[user]\n\tname = me\n"  # what git reads


@needs_bwrap
def test_a_program_your_local_bin_links_to_in_the_workspace_stays_read_only(api, env, user_folders):
    # stow of a bin folder: ~/.local/bin/tool -> ../../dotfiles/bin/tool, on most PATHs.
    user, workspace, _, home = user_folders
    (workspace / "bin").mkdir()
    (workspace / "bin" / "tool").write_text("#!/bin/sh\necho tool\n")
    (home / ".local" / "bin").mkdir(parents=True)
    os.symlink(workspace / "bin" / "tool", home / ".local" / "bin" / "tool")
    give_to(user, workspace, home / ".local")
    _, (output,) = run(api, env, user_folders, "echo 'echo planted' >> bin/tool; echo finished")
    assert "finished" in output and "Read-only file system" in output
    assert (home / ".local" / "bin" / "tool").read_text() == "#!/bin/sh\necho tool\n"


@needs_bwrap
def test_a_home_link_to_a_file_not_made_yet_in_the_workspace_makes_commands_ask(
    api, env, user_folders
):
    # ~/.bash_logout -> dotfiles/bashrc, which is not there yet: a command could write it.
    user, workspace, _, home = user_folders
    os.symlink(workspace / "bashrc", home / ".bash_logout")
    give_to(user, workspace)
    said, (output,) = run(api, env, user_folders, "echo 'echo planted' > bashrc; echo finished")
    assert "bashrc in the workspace, which does not exist" in said
    assert "neither a file nor a folder" not in output + said
    assert "finished" not in output
    assert not (workspace / "bashrc").exists() and not (home / ".bash_logout").exists()


@needs_bwrap
def test_a_hook_hard_linked_to_a_tracked_script_cannot_be_rewritten_through_it(
    api, env, user_folders
):
    # `ln scripts/pre-commit.sh .git/hooks/pre-commit`: one file, and .git is read-only, but
    # the script's own name is in the writable tree.
    user, workspace, _, _ = user_folders
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "scripts").mkdir()
    script = workspace / "scripts" / "pre-commit.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    os.link(script, workspace / ".git" / "hooks" / "pre-commit")
    give_to(user, workspace)
    said, (output,) = run(
        api, env, user_folders, "echo 'touch planted' >> scripts/pre-commit.sh; echo finished"
    )
    assert "has 2 names (hard links)" in said
    assert "finished" not in output
    assert (workspace / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"


def make_linked_packages(workspace: Path, cache: Path, kind: str) -> tuple[Path, Path]:
    """A package installed the way uv (a virtual environment), pnpm or Deno (node_modules), or
    conda or pixi (a whole environment, the standard library too) do by default: its files are
    hard links to the cache's. (name in the workspace, name in cache)"""
    (cache / "pkg").mkdir(parents=True)
    cached = cache / "pkg" / "index.py"
    cached.write_text("# the package\n")
    if kind == "venv":
        (workspace / ".venv").mkdir()
        (workspace / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
        (workspace / ".venv" / "bin").mkdir()  # as every virtual environment has
        package = workspace / ".venv" / "lib" / "python3.12" / "site-packages" / "pkg"
    elif kind in ("conda", "pixi"):
        environment = workspace / (".conda" if kind == "conda" else ".pixi/envs/default")
        (environment / "conda-meta").mkdir(parents=True)
        (environment / "conda-meta" / "history").write_text("# cmd: conda create\n")
        site = environment / "lib" / "python3.12" / "site-packages"
        site.mkdir(parents=True)  # linked too, and held with the environment, not apart
        os.link(cached, site / "linked.py")
        package = environment / "lib" / "python3.12"  # a module of the standard library
    elif kind == "deno":
        store = workspace / "node_modules" / ".deno"
        store.mkdir(parents=True)
        (store / ".setup-cache.bin").write_bytes(b"\0cache")  # Deno's own, not linked
        package = store / "pkg@1.0.0" / "node_modules" / "pkg"
    else:
        package = workspace / "node_modules" / ".pnpm" / "pkg@1.0.0" / "node_modules" / "pkg"
    package.mkdir(parents=True, exist_ok=True)
    os.link(cached, package / "index.py")
    return package / "index.py", cached


@needs_bwrap
def test_a_package_hard_linked_from_a_cache_outside_is_not_written_in_place(api, env, user_folders):
    user, workspace, _, _ = user_folders
    for kind in ("venv", "pnpm", "deno", "conda"):
        api.accepted.clear()
        cache = workspace.parent / f"cache-{kind}"
        inside, cached = make_linked_packages(workspace, cache, kind)
        give_to(user, workspace, cache)  # the user's own cache: writable to the user
        relative = inside.relative_to(workspace)
        append = f"echo 'import os; os.system(\"touch ~/pwned\")' >> {relative}; echo finished"
        _, (output,) = run(api, env, user_folders, append)
        assert "finished" in output and "Read-only file system" in output, kind
        assert "hard links to a package cache" in output, kind
        assert cached.read_text() == "# the package\n", kind


@pytest.mark.parametrize("kind", ["conda", "pixi", "deno"])
def test_conda_environments_and_denos_store_of_hard_links_are_held(tmp_path, kind):
    # conda links a whole environment from its package cache, its python and standard library
    # too; Deno's store in node_modules starts with files of its own, which are not links.
    workspace = tmp_path / "work"
    workspace.mkdir()
    inside, _ = make_linked_packages(workspace, tmp_path / "cache", kind)
    root = workspace.resolve()
    held = {
        "conda": root / ".conda",
        "pixi": root / ".pixi" / "envs" / "default",
        "deno": root / "node_modules" / ".deno",
    }
    assert hard_linked_packages(root, scan_workspace(root)) == [held[kind]]
    # Installed again as copies: what the package is in is made anew, as an installer does.
    made_anew = held[kind] / inside.resolve().relative_to(held[kind]).parts[0]
    shutil.rmtree(made_anew)
    inside.parent.mkdir(parents=True)
    inside.write_text("# a copy\n")
    for linked in held[kind].rglob("linked.py"):
        linked.unlink()
    assert hard_linked_packages(root, scan_workspace(root)) == []


def test_a_package_folder_of_plain_copies_stays_writable(tmp_path):
    # pip's copies (or uv's with UV_LINK_MODE=copy) share nothing with a cache: not held.
    workspace = tmp_path / "work"
    workspace.mkdir()
    inside, cached = make_linked_packages(workspace, tmp_path / "cache", "venv")
    root = workspace.resolve()
    assert hard_linked_packages(root, scan_workspace(root)) == [inside.parent.parent]
    # Installed again as copies: the package's folder is made anew, as an installer does.
    inside.unlink()
    inside.parent.rmdir()
    inside.parent.mkdir()
    inside.write_text("# a copy\n")
    assert hard_linked_packages(root, scan_workspace(root)) == []


def test_the_links_on_the_way_are_the_ones_the_kernel_follows(tmp_path):
    (tmp_path / "dotfiles" / "v2").mkdir(parents=True)
    os.symlink("v2", tmp_path / "dotfiles" / "cur")
    os.symlink("dotfiles/cur/../cur/gitconfig", tmp_path / ".gitconfig")
    real = Path(os.path.realpath(tmp_path))
    assert links_on_the_way(tmp_path / ".gitconfig")[-3:] == [
        real / ".gitconfig",
        real / "dotfiles" / "cur",
        real / "dotfiles" / "cur",
    ]


@needs_bwrap
def test_a_path_folder_reached_through_a_link_in_the_workspace_makes_commands_ask(
    api, env, workspace
):
    # PATH names tools/bin, and tools -> real: the bind would hold real/bin, not the link.
    (workspace / "real" / "bin").mkdir(parents=True)
    os.symlink("real", workspace / "tools")
    api.add({"content": [tool_use("bash", {"command": "rm tools; mkdir -p tools/bin; touch ran"})]})
    api.add({"content": [text("Done.")]})
    path = f"{workspace}/tools/bin:{env['PATH']}"
    result = run_cli("-p", "go", cwd=workspace, env={**env, "PATH": path})
    assert result.returncode == 0, result.stderr
    assert "does not exist or is a link" in " ".join(result.stderr.split())
    assert not (workspace / "ran").exists() and (workspace / "tools").is_symlink()


@needs_bwrap
def test_a_path_folder_outside_reached_through_a_link_in_the_workspace_makes_commands_ask(
    api, env, workspace, tmp_path
):
    # ~/bin -> workspace/tools, tools -> a folder outside: re-pointed, ~/bin runs the command's.
    outside = tmp_path / "outside-bin"
    outside.mkdir()
    os.symlink(outside, workspace / "tools")
    os.symlink(workspace / "tools", tmp_path / "bin")
    relink = "rm tools; mkdir tools; printf '#!/bin/sh\\necho planted\\n' > tools/git; touch ran"
    api.add({"content": [tool_use("bash", {"command": relink})]})
    api.add({"content": [text("Done.")]})
    path = f"{tmp_path}/bin:{env['PATH']}"
    result = run_cli("-p", "go", cwd=workspace, env={**env, "PATH": path})
    assert result.returncode == 0, result.stderr
    assert "is reached through the link tools" in " ".join(result.stderr.split())
    assert not (workspace / "ran").exists() and (workspace / "tools").is_symlink()


@needs_bwrap
def test_a_gitconfig_hard_linked_into_the_workspace_cannot_be_rewritten_there(
    api, env, user_folders
):
    # `ln dotfiles/gitconfig ~/.gitconfig`: the same file, one name in the workspace.
    user, workspace, _, home = user_folders
    (workspace / "gitconfig").write_text("[user]\n\tname = me\n")
    os.link(workspace / "gitconfig", home / ".gitconfig")
    give_to(user, workspace)
    plant = "printf '[core]\\n\\tpager = touch planted\\n' >> gitconfig; echo finished"
    said, (output,) = run(api, env, user_folders, plant)
    assert ".gitconfig has 2 names (hard links)" in said
    assert "finished" not in output
    assert (home / ".gitconfig").read_text() == "[user]\n\tname = me\n"


def test_a_home_folder_the_user_cannot_read_leaves_the_sandbox_working(tmp_path):
    # Run by another user (setpriv keeps HOME), or with a ~/.local closed to you: the look at
    # ~/.local/bin's links must find nothing there, not stop bwrap's start-up probe.
    if not can_switch_user():
        pytest.skip("needs root, setpriv, and a Python the unprivileged user can run")
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    os.chmod(home / ".local", 0o700)
    os.chmod(tmp_path, 0o755)
    os.chmod(home, 0o755)
    probe = "import tools.sandbox as s; print(s.bubblewrap_works())"
    run = subprocess.run(
        [*AS_NOBODY, sys.executable, "-c", probe],
        cwd=Path(__file__).resolve().parent.parent,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
    )
    assert run.stdout.strip() == "True", run.stdout + run.stderr


@needs_bwrap
def test_a_file_hard_linked_to_one_in_your_home_is_read_only_to_commands(api, env, user_folders):
    # A dotfiles folder kept with `ln` rather than symbolic links: bin/deploy in the workspace
    # is ~/.local/bin/deploy, which you run outside the sandbox. Two names inside the
    # workspace (a copy kept with `cp -al`) change nothing outside: that file stays writable.
    user, workspace, _, home = user_folders
    (home / ".local" / "bin").mkdir(parents=True)
    deploy = home / ".local" / "bin" / "deploy"
    deploy.write_text("#!/bin/sh\necho deploying\n")
    (workspace / "bin").mkdir()
    os.link(deploy, workspace / "bin" / "deploy")
    (workspace / "notes.txt").write_text("first\n")
    os.link(workspace / "notes.txt", workspace / "notes-backup.txt")
    give_to(user, workspace, home)
    plant = (
        "echo 'touch planted' >> bin/deploy; echo 'second' >> notes.txt; "
        "cat notes-backup.txt; echo finished"
    )
    said, (output,) = run(api, env, user_folders, plant)
    assert "bin/deploy: Read-only file system" in output
    assert "first\nsecond\nfinished" in output  # the file with both names inside: written
    assert "bin/deploy is read-only in sandboxed commands: another name outside" in said
    assert "another name outside the workspace (a hard link)" in output  # the model is told
    assert deploy.read_text() == "#!/bin/sh\necho deploying\n"


def test_the_file_tools_ask_before_writing_a_file_hard_linked_outside(tmp_path):
    # They replace the file (a new one under the name), which leaves the other name as it
    # was but breaks the link you made: asked, with the reason.
    workspace = tmp_path / "work"
    workspace.mkdir()
    outside = tmp_path / "init.lua"
    outside.write_text("vim.o.number = true\n")
    os.link(outside, workspace / "init.lua")
    reason = held_for_commands_reason(workspace, "init.lua")
    assert reason is not None and "another name outside the workspace" in reason
    assert held_for_commands_reason(workspace, "other.lua") is None


def test_more_files_linked_outside_than_the_sandbox_holds_make_commands_ask(tmp_path, monkeypatch):
    monkeypatch.setattr(tools.sandbox, "MAX_LINKED_HELD", 2)
    workspace = tmp_path / "work"
    (workspace / "objects").mkdir(parents=True)
    for number in range(3):  # a build tree hard-linked to a cache outside (ccache's mode)
        cached = tmp_path / f"cached{number}.o"
        cached.write_bytes(b"\x7fELF")
        os.link(cached, workspace / "objects" / f"{number}.o")
    sandbox = Bubblewrap()
    sandbox.must_ask = None  # whatever this machine lacks, only the links are looked at here
    root = workspace.resolve()
    why = sandbox._cannot_confine(root, scan_workspace(root))
    assert why is not None and "3 files with another name outside it" in why
    (tmp_path / "cached0.o").unlink()  # one name left, in the workspace: nothing to hold
    assert sandbox._cannot_confine(root, scan_workspace(root)) is None
