"""What the links of a hidden folder lead to, however deep: links found where a link leads,
and links beside a big folder of logs. A sandboxed `cat` reads none of it, nor does read_file
of its hard link in the workspace.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run
from test_sandbox_escapes import home, needs_bwrap

from tools.base import ToolError
from tools.bash import run_bash
from tools.files import read_file
from tools.sandbox import Bubblewrap

__all__ = ["home"]  # the fixture, used by name


@needs_bwrap
def test_a_secret_two_links_deep_from_a_hidden_folder_is_hidden_with_its_hard_link(
    home: Path, monkeypatch
):
    # A synced folder linked into ~/.aws, whose own link leads on to another store.
    monkeypatch.setenv("HOME", str(home))
    (home / "vault/a").mkdir(parents=True)
    (home / "v2").mkdir()
    (home / "v2/aws-creds").write_text("AWS-SECRET-KEY\n")
    (home / "vault/a/b").symlink_to(home / "v2")
    (home / ".aws").mkdir()
    (home / ".aws/a").symlink_to(home / "vault/a")
    work = home / "work"
    work.mkdir()
    os.link(home / "v2/aws-creds", work / "aws-creds")
    (work / "notes.txt").write_text("NOT-SECRET\n")
    command = f"cat notes.txt aws-creds {home}/v2/aws-creds"
    output = run(run_bash(work, command, sandbox=Bubblewrap()))
    assert "NOT-SECRET" in output and "AWS-SECRET-KEY" not in output
    with pytest.raises(ToolError, match="secrets the sandbox hides"):
        read_file(work, "aws-creds")


@needs_bwrap
def test_a_hidden_folders_link_beside_a_big_folder_of_logs_is_followed(
    home: Path, workspace: Path, monkeypatch
):
    # gcloud keeps a log of each command in ~/.config/gcloud/logs, looked through first.
    monkeypatch.setenv("HOME", str(home))
    gcloud = home / ".config/gcloud"
    (gcloud / "logs").mkdir(parents=True)
    for number in range(1500):  # (a few weeks of gcloud commands)
        (gcloud / "logs" / f"{number:05}.log").touch()
    (gcloud / "legacy_credentials/you@example.com").mkdir(parents=True)
    (home / "vault").mkdir()
    (home / "vault/adc.json").write_text('{"refresh_token": "SECRET-TOKEN"}\n')
    (gcloud / "legacy_credentials/you@example.com/adc.json").symlink_to(home / "vault/adc.json")
    output = run(run_bash(workspace, f"cat {home}/vault/adc.json; echo read", sandbox=Bubblewrap()))
    assert "read" in output and "SECRET-TOKEN" not in output
