"""Your own git config's relative hooks folder, in a workspace that is no repository yet.

`core.hooksPath = .githooks` in your ~/.gitconfig means each repository's own `.githooks`.
Before the person runs `git init` (scaffold first, commit later), that folder is already the
one their first commit will run: a command or write_file that filled it would have planted
code that runs outside the sandbox. It is held like any repository's hooks folder.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_hostile_pass4 import AS_NOBODY, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use

__all__ = ["user_folders"]  # a fixture, used by name below

YOUR_CONFIG = "[core]\n\thooksPath = .githooks\n[user]\n\temail = me@x.test\n\tname = me\n"


def commit_on_the_host(user: str, workspace: Path, home: Path) -> None:
    """The person makes the folder a repository and commits, outside any sandbox."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["HOME"] = str(home)
    as_user = AS_NOBODY if user == "nobody" else []
    for argv in (["git", "init", "-q", "."], ["git", "add", "-A"], ["git", "commit", "-qm", "x"]):
        subprocess.run([*as_user, *argv], cwd=workspace, env=env, capture_output=True, timeout=60)


@needs_bwrap
@pytest.mark.parametrize("above", ["no repository", "a repository"])
def test_your_relative_hooks_folder_is_held_before_the_first_git_init(
    api, env, user_folders, above
):
    # A repository above the workspace (a dotfiles ~/.git, the monorepo a new project is made
    # in) changes nothing: `git init` in the workspace makes a nested repository, whose hooks
    # folder is the workspace's own `.githooks`.
    user, workspace, planloop_home, home = user_folders
    if above == "a repository":
        subprocess.run(["git", "init", "-q", str(workspace.parent)], check=True)
    (home / ".gitconfig").write_text(YOUR_CONFIG)
    marker = home / "hook-ran"
    hook = f"#!/bin/sh\ntouch {marker}\n"
    plant = f"mkdir -p .githooks; printf '{hook}' > .githooks/post-commit; echo finished"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    write = {"path": ".githooks/pre-commit", "content": hook}
    api.add({"content": [tool_use("write_file", write)]})
    api.add({"content": [text("Done.")]})
    own = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    own.update(PLANLOOP_HOME=str(planloop_home), HOME=str(home))
    result = run_as(user, api, own, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, written = tool_results(api)
    assert "Read-only file system" in ran, ran
    assert "did not" in written or "was not changed" in written, written
    assert not any((workspace / ".githooks").glob("*"))
    (workspace / "a.txt").write_text("a\n")
    commit_on_the_host(user, workspace, home)
    assert (workspace / ".git" / "HEAD").exists()  # the commit happened, no hook of a command's
    assert not marker.exists()
