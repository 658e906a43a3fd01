"""A run with HOME moved (CI, `sudo -E`, a wrapper's `HOME=$PWD/.home`): the home the password
database gives your account is still where your shell, git and ssh read their settings in
every other terminal, and where your keys lie (tools/homes.py). Each rule about "your home"
covers it too."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import API_KEY, account_home_at, outside_tmp, run

from tools import protected_reason
from tools.bash import run_bash
from tools.sandbox import Bubblewrap

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap not installed")


@pytest.fixture
def account() -> Iterator[Path]:
    """Your account's home, outside /tmp: the sandbox's own /tmp would hide it anyway."""
    folder = outside_tmp("planloop-account-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def moved_home() -> Iterator[Path]:
    """The HOME a run is given."""
    folder = outside_tmp("planloop-moved-home-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@needs_bwrap
def test_planloop_in_your_account_s_home_asks_before_commands_and_file_writes(
    account, moved_home, monkeypatch
):
    # `cd ~ && HOME=/tmp/h planloop`: ~/.gitconfig and ~/.bashrc are the ones your git and shell
    # read everywhere else; a write there runs at your next `git status`.
    write(account / ".gitconfig", "[user]\n\tname = you\n")
    write(account / ".bashrc", "alias ll='ls -l'\n")
    with account_home_at(account, moved_home, monkeypatch):
        sandbox = Bubblewrap()
        sandbox.before_command(account)  # (what the permission policy asks it before bash)
        assert "lies inside the workspace" in (sandbox.must_ask or "")
        for name in (".gitconfig", ".bashrc", ".config/git/config"):
            assert protected_reason(account, name) is not None, name


def test_a_file_your_account_s_shell_or_ssh_runs_is_held_when_home_moves(
    account, moved_home, monkeypatch
):
    # Your account's ~/.bashrc sources a file of the dotfiles repository planloop runs in, and
    # its ~/.ssh/config runs a proxy from there: both run outside any sandbox later.
    dotfiles = account / "dotfiles"
    write(account / ".bashrc", "source ~/dotfiles/shell/aliases.sh\n")
    write(account / ".ssh/config", "Host *\n  ProxyCommand ~/dotfiles/bin/proxy %h %p\n")
    write(dotfiles / "shell/aliases.sh", "alias ll='ls -l'\n")
    write(dotfiles / "bin/proxy", "#!/bin/sh\n")
    write(dotfiles / "README.md", "my dotfiles\n")
    with account_home_at(account, moved_home, monkeypatch):
        assert protected_reason(dotfiles, "shell/aliases.sh") is not None
        assert protected_reason(dotfiles, "bin/proxy") is not None
        assert protected_reason(dotfiles, "README.md") is None


@needs_bwrap
def test_the_key_and_git_passwords_in_your_account_s_home_are_hidden_when_home_moves(
    account, moved_home, workspace, monkeypatch
):
    # Another project's .env holds planloop's key; your account's git keeps passwords in the
    # file its `credential.helper = store --file` names.
    write(account / "code/bot/.env", f"ANTHROPIC_API_KEY={API_KEY}\n")
    write(account / ".gitconfig", "[credential]\n\thelper = store --file ~/.creds-work\n")
    write(account / ".creds-work", "https://you:GIT-PASSWORD@example.com\n")
    write(account / "code/notes.txt", "NOT-SECRET\n")
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    with account_home_at(account, moved_home, monkeypatch):
        files = " ".join(str(account / name) for name in ("code/bot/.env", ".creds-work"))
        command = f"cat {files} {account}/code/notes.txt"
        output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert "NOT-SECRET" in output
    assert API_KEY not in output and "GIT-PASSWORD" not in output
