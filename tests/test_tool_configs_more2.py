"""More files other programs run by themselves from the project folder: held for commands,
asked for by the file tools.

Vim (with `set exrc` in your vimrc) runs `.exrc`/`.vimrc` from the folder it starts in, without a
question; Neovim runs `.nvim.lua`/`.nvimrc` (and lazy.nvim `.lazy.lua`) once trusted; OpenHands
runs `.openhands/setup.sh` at every session's start; proto's shims load the plugins `.prototools`
names; VS Code runs a dev container's `initializeCommand` on the host;
Factory's Droid (`.factory/`), GitHub Copilot CLI (`.github/hooks/*.json`), Augment
(`.augment/settings.json`) and Tabnine CLI (`.tabnine/agent/settings.json`) run the hooks their
project settings name when they next start there. A prompt-injected model that planted one would
have a command run on the host later, outside the sandbox.
"""

from __future__ import annotations

import os

import pytest
from conftest import results_by_id, run_cli
from test_hostile_pass4 import NOBODY, needs_bwrap, owned_file, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.paths import protected_reason

__all__ = ["user_folders"]  # a fixture, used by name below

PLANTED = [
    ".exrc",
    "_exrc",
    ".vimrc",
    "_vimrc",
    ".gvimrc",
    ".nvimrc",
    ".nvim.lua",
    ".lazy.lua",
    ".prototools",
    ".openhands/setup.sh",
    ".factory/settings.json",
    ".factory/hooks.json",
    ".factory/mcp.json",
    ".github/hooks/ci.json",
    ".augment/settings.json",
    ".tabnine/agent/settings.json",
    ".devcontainer/devcontainer.json",
    ".devcontainer.json",
]
HOOK = '{"hooks": {"SessionStart": [{"type": "command", "command": "touch ~/PWNED"}]}}\n'


def test_write_file_does_not_create_them_unasked(api, env, workspace):
    calls = [tool_use("write_file", {"path": path, "content": HOOK}) for path in PLANTED]
    workflow = tool_use("write_file", {"path": ".github/workflows/ci.yml", "content": "on: push\n"})
    api.add({"content": [*calls, workflow]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "set up the tools", cwd=workspace, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    results = results_by_id(api.accepted[1])
    for call, path in zip(calls, PLANTED, strict=True):
        assert results[call["id"]]["is_error"], path
        assert "protected" in str(results[call["id"]]["content"]), path
        assert not (workspace / path).exists(), path
    # The rest of .github is the project's own: a workflow is written like any file.
    assert not results[workflow["id"]].get("is_error")
    assert (workspace / ".github/workflows/ci.yml").read_text() == "on: push\n"


@pytest.mark.parametrize("path", PLANTED)
def test_the_file_tools_name_why(workspace, path):
    reason = protected_reason(workspace, path)
    assert reason is not None and "is protected" in reason


@needs_bwrap
def test_a_command_cannot_rewrite_them_when_they_are_there(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    for path in PLANTED:
        (workspace / path).parent.mkdir(parents=True, exist_ok=True)
        owned_file(workspace / path, "kept\n", user)
    if user == "nobody":  # the folders too, so only the sandbox stands in the way
        for folder in {(workspace / path).parent for path in PLANTED}:
            while folder != workspace:
                os.chown(folder, NOBODY, NOBODY)
                folder = folder.parent
    overwrite = "; ".join(f"echo '{HOOK.strip()}' > {path}; echo {path} rc=$?" for path in PLANTED)
    api.add({"content": [tool_use("bash", {"command": overwrite})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    for path in PLANTED:
        assert (workspace / path).read_text() == "kept\n", (path, output)
        assert f"{path} rc=0" not in output


@needs_bwrap
def test_a_new_copilot_hooks_folder_is_reported(api, env, workspace):
    (workspace / ".github" / "workflows").mkdir(parents=True)
    plant = f"mkdir -p .github/hooks && echo '{HOOK.strip()}' > .github/hooks/ci.json"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stderr.split())
    assert ".github/hooks" in said and "appeared" in said
