"""A workspace whose file system ignores letter case (WSL's /mnt/c, exFAT, a FUSE mount): there
`.VSCODE/tasks.json` is `.vscode/tasks.json`, and `sub/.ENV` is `sub/.env`.

The suite's file systems count case, so the tests make one name answer to its other spelling
the way such a file system does, by a second name for the same file (`ln README rEADME`): that
is what planloop looks at to tell (tools/letter_case.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from conftest import run_cli
from test_hostile_pass4 import needs_bwrap, tool_results

from fakeapi import text, tool_use
from tools.letter_case import as_on_disk, ignores_case


def answers_to_either_case(workspace: Path) -> None:
    """Make `workspace` look, to planloop's test, like a file system that ignores case; among
    other entries, which answer only to their own spelling."""
    workspace.mkdir(exist_ok=True)
    for name in ("Makefile", "docs", "src", ".git", "LICENSE", "setup.cfg"):
        (workspace / name).mkdir()
    (workspace / "README").write_text("hello\n")
    os.link(workspace / "README", workspace / "readme")


def test_a_workspace_is_told_by_a_name_found_in_another_case(tmp_path):
    (tmp_path / "README").write_text("hello\n")
    (tmp_path / "readme").write_text("another file\n")  # two files: case counts here
    assert not ignores_case(tmp_path)
    (tmp_path / "readme").unlink()
    assert not ignores_case(tmp_path)
    answers_to_either_case(tmp_path / "other")
    assert ignores_case(tmp_path / "other")


def test_a_path_is_checked_as_the_disk_spells_it(tmp_path):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".env").write_text("A=1\n")
    assert as_on_disk(tmp_path, "sub/.ENV") == ["sub/.env"]
    assert as_on_disk(tmp_path, ".VSCODE/Tasks.json") == [
        ".vscode/Tasks.json",
        ".vscode/tasks.json",
    ]
    assert as_on_disk(tmp_path, "src/New.py") == ["src/New.py", "src/new.py"]
    # No such folder yet: the one it would make is read as `.claude` by Claude Code.
    assert as_on_disk(tmp_path, ".Claude/Settings.json") == [
        ".Claude/Settings.json",
        ".claude/settings.json",
    ]


@needs_bwrap
def test_protected_paths_spelled_in_another_case_ask_and_commands_ask(api, env, workspace):
    answers_to_either_case(workspace)
    (workspace / ".vscode").mkdir()
    (workspace / "sub").mkdir()
    (workspace / "sub" / ".env").write_text("API_URL=https://api.example.com\n")
    task = '{"version": "2.0.0", "tasks": [{"runOptions": {"runOn": "folderOpen"}}]}'
    api.add({"content": [tool_use("write_file", {"path": ".VSCODE/tasks.json", "content": task})]})
    api.add({"content": [tool_use("write_file", {"path": "sub/.ENV", "content": "API_URL=x\n"})]})
    hook = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "id"}]}]}}'
    api.add(
        {"content": [tool_use("write_file", {"path": ".Claude/settings.json", "content": hook})]}
    )
    api.add({"content": [tool_use("write_file", {"path": "src/app.py", "content": "print(1)\n"})]})
    api.add({"content": [tool_use("bash", {"command": "echo ran > ran.txt"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "set up the editor", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    vscode, env_file, claude, plain, command = tool_results(api)
    assert "was not changed. .vscode is protected" in vscode, vscode
    assert "was not changed. .claude is protected" in claude, claude
    assert not (workspace / ".Claude").exists()
    assert "was not changed" in env_file, env_file
    assert not (workspace / ".VSCODE").exists()
    assert (workspace / "sub" / ".env").read_text() == "API_URL=https://api.example.com\n"
    assert "ENV" not in " ".join(os.listdir(workspace / "sub"))
    assert (workspace / "src" / "app.py").read_text() == "print(1)\n"  # the rest is as usual
    assert "ignores letter case" in command and not (workspace / "ran.txt").exists(), command
