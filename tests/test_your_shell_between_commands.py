"""Your start-up files edited while planloop runs count from the next command.

What your shell sources (and so what no sandboxed command may change) is worked out from your
`.bashrc` and the files it sources, before each command. Reading a long one takes a while, so
the answer is kept while those files are as they were; these tests edit them between two
commands, each edit in its own way, and the second command must find the workspace file held.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run
from test_sandbox_escapes import home, needs_bwrap

from tools import kept
from tools.bash import run_bash
from tools.sandbox import Bubblewrap

__all__ = ["home"]  # the fixture, used by name

# A `.bashrc` of the length people have: long enough that reading it is worth keeping.
LONG_BASHRC = "".join(f"alias a{n}='ls -la'\nexport V{n}=\"$HOME/x{n}\"\n" for n in range(150))


def append_to(workspace: Path, name: str) -> str:
    """The output of a sandboxed command appending a line to the workspace file `name`."""
    return run(run_bash(workspace, f"echo changed >> {name}", sandbox=Bubblewrap()))


@pytest.fixture
def settled_at_once(home: Path, monkeypatch) -> Path:
    """Your home, with a long `.bashrc`; an answer is kept however new the files it read are,
    so that a kept answer is what the second command meets."""
    monkeypatch.setattr(kept, "SETTLED_NS", 0)
    monkeypatch.setenv("HOME", str(home))
    for name in ("ZDOTDIR", "XDG_CONFIG_HOME", "AUTOENV_ENV_FILENAME"):
        monkeypatch.delenv(name, raising=False)
    (home / ".bashrc").write_text(LONG_BASHRC)
    return home


@needs_bwrap
def test_a_workspace_file_your_bashrc_starts_sourcing_is_held_at_the_next_command(
    settled_at_once: Path, workspace: Path
):
    (workspace / "env.sh").write_text("export A=1\n")
    assert "[exit code: 0]" in append_to(workspace, "env.sh")  # (nothing sources it yet)
    with (settled_at_once / ".bashrc").open("a") as bashrc:
        bashrc.write(f". {workspace}/env.sh\n")
    assert "Read-only file system" in append_to(workspace, "env.sh")
    assert (workspace / "env.sh").read_text() == "export A=1\nchanged\n"


@needs_bwrap
def test_a_file_made_where_your_bashrc_sources_a_pattern_is_followed_at_the_next_command(
    settled_at_once: Path, workspace: Path
):
    shell_d = settled_at_once / ".config/shell"
    shell_d.mkdir(parents=True)
    (shell_d / "aliases.sh").write_text("alias ll='ls -l'\n")
    with (settled_at_once / ".bashrc").open("a") as bashrc:
        bashrc.write('for f in ~/.config/shell/*.sh; do . "$f"; done\n')
    (workspace / "env.sh").write_text("export A=1\n")
    assert "[exit code: 0]" in append_to(workspace, "env.sh")
    (shell_d / "project.sh").write_text(f". {workspace}/env.sh\n")  # (the bashrc unchanged)
    assert "Read-only file system" in append_to(workspace, "env.sh")


@needs_bwrap
def test_a_start_up_file_made_while_planloop_runs_is_read_at_the_next_command(
    settled_at_once: Path, workspace: Path
):
    (workspace / "env.sh").write_text("export A=1\n")
    assert "[exit code: 0]" in append_to(workspace, "env.sh")
    (settled_at_once / ".bash_profile").write_text(f"source {workspace}/env.sh\n")
    assert "Read-only file system" in append_to(workspace, "env.sh")


@needs_bwrap
def test_autoenv_loaded_from_your_bashrc_holds_the_workspace_env_at_the_next_command(
    settled_at_once: Path, workspace: Path
):
    # autoenv sources each folder's `.env` as shell code on `cd`: once your shell loads it, the
    # workspace's `.env` is code you run, and held like an `.envrc`.
    (workspace / ".env").write_text("A=1\n")
    assert "[exit code: 0]" in append_to(workspace, "notes.txt")
    with (settled_at_once / ".bashrc").open("a") as bashrc:
        bashrc.write("source ~/.autoenv/activate.sh\n")
    output = append_to(workspace, ".env")
    assert "Read-only file system" in output
    assert (workspace / ".env").read_text() == "A=1\n"


@needs_bwrap
def test_a_zdotdir_set_in_planloops_environment_is_followed_at_once(
    settled_at_once: Path, workspace: Path, monkeypatch
):
    # The same files kept, but the environment says to read others: they are read.
    zdotdir = settled_at_once / "zsh"
    zdotdir.mkdir()
    (zdotdir / ".zshrc").write_text(f". {workspace}/env.zsh\n")
    (workspace / "env.zsh").write_text("export A=1\n")
    assert "[exit code: 0]" in append_to(workspace, "env.zsh")
    monkeypatch.setenv("ZDOTDIR", str(zdotdir))
    assert "Read-only file system" in append_to(workspace, "env.zsh")
