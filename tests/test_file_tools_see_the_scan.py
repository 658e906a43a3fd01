"""The file tools ask about what commands may not change: a `.envrc` or a nested repository
anywhere in the workspace names files that later run outside the sandbox, not only those on the
way to the file written.

Before, write_file looked only at the `.envrc` files above the workspace and in the folders
leading to the target, and at the repositories above the target: `sub/.envrc` sourcing
`../common/env.sh` held that script read-only for commands, but write_file rewrote it unasked.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from test_git_programs import ORIGINAL, REFUSED, dotfiles, host, make, plant, run, write
from test_hostile_pass4 import needs_bwrap, tool_results, user_folders

from fakeapi import text, tool_use

__all__ = ["user_folders"]  # a fixture, used by name below


def write_attempt(api, path: str) -> None:
    api.add({"content": [tool_use("read_file", {"path": path})]})  # written only after a read
    api.add({"content": [tool_use("write_file", {"path": path, "content": "touch ~/PWNED\n"})]})
    api.add({"content": [text("Done.")]})


def put(root: Path, name: str, content: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def refused(api, workspace: Path, env: dict, target: Path, content: str, reason: str) -> None:
    result = run_cli("-p", "go", "--no-sandbox", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    output = tool_results(api)[-1]
    assert reason in output, output
    assert target.read_text() == content  # headless refuses what it would ask about


def test_a_script_a_sibling_envrc_sources_is_asked_about(api, env, workspace):
    script = put(workspace, "common/env.sh", "export FOO=1\n")
    put(workspace, "services/api/.envrc", "source_env ../../common/env.sh\n")
    write_attempt(api, "common/env.sh")
    refused(api, workspace, env, script, "export FOO=1\n", "a file an .envrc loads is protected")


def test_a_script_a_nested_envrc_runs_is_asked_about(api, env, workspace):
    script = put(workspace, "tools/setup.sh", "echo hi\n")
    put(workspace, "app/.envrc", 'eval "$(../tools/setup.sh)"\n')
    write_attempt(api, "tools/setup.sh")
    refused(api, workspace, env, script, "echo hi\n", "a file an .envrc names is protected")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_a_nested_repositorys_hook_linked_to_a_sibling_folder_is_asked_about(api, env, workspace):
    hook = put(workspace, "scripts/pre-commit.sh", "#!/bin/sh\nexit 0\n")
    (workspace / "vendor/lib").mkdir(parents=True)
    git("init", "-q", cwd=workspace / "vendor/lib")
    (workspace / "vendor/lib/.git/hooks/pre-commit").symlink_to(hook)
    write_attempt(api, "scripts/pre-commit.sh")
    refused(api, workspace, env, hook, "#!/bin/sh\nexit 0\n", "a git hook")


def test_a_program_a_nested_repositorys_config_names_is_asked_about(api, env, workspace):
    monitor = put(workspace, "tools/fsmonitor.sh", "#!/bin/sh\n")
    (workspace / "vendor/lib").mkdir(parents=True)
    git("init", "-q", cwd=workspace / "vendor/lib")
    git("config", "core.fsmonitor", "../../tools/fsmonitor.sh", cwd=workspace / "vendor/lib")
    write_attempt(api, "tools/fsmonitor.sh")
    refused(api, workspace, env, monitor, "#!/bin/sh\n", "git runs")


@needs_bwrap
def test_a_templates_folder_that_is_the_workspace_itself_makes_commands_ask(api, env, user_folders):
    # init.templateDir = ~/dotfiles, and planloop runs in ~/dotfiles: no bind can hold the
    # workspace read-only, and a hooks/post-checkout made there would run at your next clone.
    user, workspace, planloop_home, home = dotfiles(user_folders)
    make(home / ".gitconfig", f"[init]\n\ttemplateDir = {workspace}\n", user, 0o644)
    marker = home / "planted-ran"
    api.add(plant("hooks/post-checkout", marker))
    write(api, "hooks/post-commit", exists=False)
    api.add({"content": [text("Done.")]})
    ran, written = run(user, api, env, workspace, planloop_home, home)
    assert "sandboxed commands ask before they run" in ran and "finished" not in ran, ran
    assert "the workspace itself" in ran
    assert REFUSED in written
    assert not (workspace / "hooks").exists()
    ident = ["-c", "user.name=me", "-c", "user.email=me@x.test"]
    host(user, home, "git", "init", "-q", "src", cwd=home)
    host(user, home, "git", *ident, "commit", "-q", "--allow-empty", "-m", "i", cwd=home / "src")
    host(user, home, "git", "clone", "-q", "src", "dst", cwd=home)
    assert (home / "dst" / ".git").is_dir()
    assert not marker.exists()


@needs_bwrap
@pytest.mark.parametrize("form", ["GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS"])
def test_a_program_your_environments_git_settings_name_stays_read_only(
    api, env, user_folders, form
):
    # Settings given to every git command by the environment, as `git -c` or a tool's wrapper
    # does: the pager in ~/dotfiles/bin runs at your next `git log`.
    user, workspace, planloop_home, home = dotfiles(user_folders)
    make(workspace / "bin" / "pager", ORIGINAL, user)
    if form == "GIT_CONFIG_COUNT":
        settings = {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.pager",
            "GIT_CONFIG_VALUE_0": "~/dotfiles/bin/pager",
        }
    else:
        settings = {"GIT_CONFIG_PARAMETERS": "'core.pager'='~/dotfiles/bin/pager -R'"}
    api.add(plant("bin/pager", home / "planted-ran"))
    write(api, "bin/pager")
    api.add({"content": [text("Done.")]})
    ran, _, written = run(user, api, env, workspace, planloop_home, home, **settings)
    assert "finished" in ran and "Read-only file system" in ran, ran
    assert REFUSED in written
    assert (workspace / "bin" / "pager").read_text() == ORIGINAL
