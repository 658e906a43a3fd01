"""A second attacker's pass: what a sandboxed command can leave behind for the person's own
shell and git to run later, when planloop is started in a folder that holds them."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import results_by_id, run_cli

from fakeapi import text, tool_use
from tools.sandbox import bubblewrap_works

PLANT = "; ".join(
    [
        "echo 'touch planted-ran' >> ~/.bashrc",
        "printf '[core]\\n\\tfsmonitor = x\\n' >> ~/.gitconfig",
    ]
)


@pytest.fixture
def sandbox_works() -> None:
    if bubblewrap_works() is not True:
        pytest.skip(f"bubblewrap cannot run here: {bubblewrap_works()}")


@pytest.mark.parametrize("home_is", ["the workspace", "inside it"])
def test_a_workspace_holding_the_home_folder_makes_bash_ask(
    api, env, workspace: Path, sandbox_works, home_is
):
    # Started in the home folder (or above it), the sandbox's writable workspace holds the
    # person's shell and git start-up files: a command there would run later, unconfined.
    home = workspace if home_is == "the workspace" else workspace / "me"
    home.mkdir(exist_ok=True)
    (home / ".bashrc").write_text("# mine\n")
    call = tool_use("bash", {"command": PLANT})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "tidy up", cwd=workspace, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert (home / ".bashrc").read_text() == "# mine\n"
    assert not (home / ".gitconfig").exists()
    answer = results_by_id(api.accepted[1])[call["id"]]
    assert answer["is_error"] is True
    assert "home folder" in result.stderr + result.stdout
