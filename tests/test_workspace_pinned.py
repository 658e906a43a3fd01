"""The workspace is the folder planloop started in, not whatever its path leads to later.

A session may run in a folder inside another session's workspace. Commands of the outer one
can move that folder and put a link in its place; had the inner session followed its path
again, its next sandbox would have bound the link's target writable (`/etc/cron.d` as root,
`~/.config/autostart`) and its file tools written there, unasked.
"""

from __future__ import annotations

import asyncio
import os
import subprocess

import pytest
from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.paths import WorkspaceMoved, pin_workspace, real_workspace
from tools.process import BoundedOutput, start_command
from tools.sandbox import Bubblewrap

__all__ = ["user_folders"]  # a fixture, used by name below

MOVED = "is no longer the folder planloop started in"


@needs_bwrap
def test_a_workspace_another_session_moves_away_is_not_followed(api, env, user_folders):
    user, outer, planloop_home, home = user_folders
    inner, outside = outer / "sub", outer.parent / "outside"
    for folder in (inner, outside):
        folder.mkdir()
        if user == "nobody":
            os.chown(folder, NOBODY, NOBODY)

    def the_outer_session_moves_it(body: dict) -> dict:
        # What a command of the session in `outer` may do: `sub` is an ordinary folder there.
        os.rename(inner, outer / "sub.real")
        os.symlink(outside, inner)
        calls = [
            tool_use("bash", {"command": "pwd; echo x > made-by-bash"}),
            tool_use("write_file", {"path": "made-by-write-file", "content": "x\n"}),
        ]
        return {"content": calls}

    api.add({"content": [tool_use("bash", {"command": "pwd"})]})
    api.add(the_outer_session_moves_it)
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, inner, home)
    assert result.returncode == 0, result.stderr
    first, by_bash, by_write_file = tool_results(api)
    assert first.startswith(str(inner))
    assert MOVED in by_bash and MOVED in by_write_file
    assert os.listdir(outside) == []


def test_the_workspace_found_elsewhere_is_refused_and_the_same_one_moved_is_followed(tmp_path):
    (tmp_path / "ws").mkdir()
    workspace = tmp_path / "ws"
    pin_workspace(workspace)
    os.rename(workspace, tmp_path / "moved")
    os.symlink(tmp_path / "moved", workspace)  # the same folder, reached through a link
    assert real_workspace(workspace) == tmp_path / "moved"
    os.unlink(workspace)
    (tmp_path / "other").mkdir()
    os.symlink(tmp_path / "other", workspace)
    with pytest.raises(WorkspaceMoved, match=f"it now leads to {tmp_path / 'other'}"):
        real_workspace(workspace)


@needs_bwrap
def test_a_link_put_at_the_workspace_after_the_look_is_not_bound(tmp_path):
    # The last moment: between planloop's look and bwrap's mount. The launcher opens the
    # workspace itself and binds that descriptor only if no link is on the way.
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    sandbox = Bubblewrap()
    pin_workspace(workspace)
    argv, env = sandbox.wrap(workspace, "touch made-here")
    os.rename(workspace, tmp_path / "ws.real")
    os.symlink(outside, workspace)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode != 0
    assert "changed while the sandbox was being made" in done.stdout + done.stderr
    assert os.listdir(outside) == []


def test_no_command_starts_in_a_folder_found_at_the_workspace_s_path_later(tmp_path):
    # Unsandboxed commands too (`--no-sandbox`, `outside_sandbox`): the folder is opened and
    # checked, and the command changes into that descriptor, not into the path again.
    workspace = tmp_path / "ws"
    workspace.mkdir()
    pin_workspace(workspace)
    os.rename(workspace, tmp_path / "ws.real")
    (tmp_path / "other").mkdir()
    os.symlink(tmp_path / "other", workspace)
    with pytest.raises(WorkspaceMoved):
        asyncio.run(start_command(BoundedOutput, ["/bin/true"], {}, workspace))


@needs_bwrap
def test_the_git_placeholder_is_removed_only_from_the_pinned_folder(tmp_path):
    # At exit the empty `.git` the sandbox made goes; moved away with a link in its place,
    # the workspace's path led to another folder's empty `.git`, which went instead.
    workspace, victim = tmp_path / "ws", tmp_path / "victim"
    workspace.mkdir()
    (victim / ".git").mkdir(parents=True)
    sandbox = Bubblewrap()
    pin_workspace(workspace)
    argv, env = sandbox.wrap(workspace, "true")
    subprocess.run(argv, env=env, cwd=workspace, check=True)
    assert (workspace / ".git").is_dir()  # the placeholder, made by bwrap
    os.rename(workspace, tmp_path / "ws.real")
    os.symlink(victim, workspace)
    sandbox._remove_placeholder(workspace)
    assert (victim / ".git").is_dir()
    os.unlink(workspace)
    os.rename(tmp_path / "ws.real", workspace)
    sandbox._remove_placeholder(workspace)
    assert not (workspace / ".git").exists()
