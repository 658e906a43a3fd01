"""Other coding agents' project settings, and small files a command replaces by a FIFO.

Claude Code, Cursor, Gemini CLI, opencode, Codex, Windsurf, Continue, Roo Code and aider run
commands that their project settings name (hooks, MCP servers, plugins, lint commands) the next
time the person starts them in the folder. A sandboxed command that changed those settings would
have code run outside the sandbox later, so they are held read-only like an editor's, and a new
one is kept and reported.

planloop itself reads a few small files of the workspace outside the sandbox (a `gitdir:` file,
commondir, git configs). A command can make any of them a FIFO, which a plain open
waits on for ever, or a link to /dev/zero, which a plain read never finishes. planloop must go on.

Each test drives `python agent.py` against the fake API, as root and as an unprivileged user.
"""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

import pytest
from test_hostile_pass4 import (
    NOBODY,
    needs_bwrap,
    owned_file,
    run_as,
    tool_results,
    user_folders,
)

from fakeapi import text, tool_use
from tools.paths import protected_reason

__all__ = ["user_folders"]  # a fixture, used by name below

REVIEWED = '{"permissions": {}}\n'
REVIEWED_TOML = "[permissions]\n"  # settings planloop cannot parse would make commands ask


def reviewed(name: str) -> str:
    return REVIEWED_TOML if name.endswith(".toml") else REVIEWED


PLANTED = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "id"}]}]}}'

# Settings that already exist in the project, each of which names commands its agent runs.
EXISTING = (
    ".claude/settings.json",
    ".mcp.json",
    ".cursor/mcp.json",
    ".gemini/settings.json",
    "opencode.json",
    ".codex/config.toml",
    ".continue/mcpServers/server.yaml",
    ".roo/mcp.json",
    ".aider.conf.yml",
)
# Settings a command creates: each is kept, and reported at once and at exit.
CREATED = {
    ".cursor": "mkdir .cursor && echo '{\"hooks\": {}}' > .cursor/hooks.json",
    ".gemini": "mkdir .gemini && echo '{\"mcpServers\": {}}' > .gemini/settings.json",
    "opencode.jsonc": "echo '{\"mcp\": {}}' > opencode.jsonc",
    ".opencode": "mkdir -p .opencode/plugin && echo 'export const P = 1' > .opencode/plugin/p.ts",
    ".windsurf": "mkdir .windsurf && echo '{\"hooks\": {}}' > .windsurf/hooks.json",
}
# What the command that finds the next command stuck would have to wait on or read for ever.
STUCK = {
    "gitdir file that is a FIFO": "mkdir sub && mkfifo sub/fifo && ln -s fifo sub/.git",
    "gitdir file that is /dev/zero": "mkdir sub && ln -s /dev/zero sub/.git",
    "commondir that is a FIFO": "mkdir -p sub/.git && mkfifo sub/.git/commondir",
    "git config that is a FIFO": "mkdir -p sub/.git/hooks && mkfifo sub/.git/config",
    "git config that is /dev/zero": "mkdir -p sub/.git/hooks && ln -s /dev/zero sub/.git/config",
}


def run_agent(
    user: str, api, env: dict, workspace: Path, home: Path
) -> subprocess.CompletedProcess:
    """`python agent.py -p` in `workspace`, as root or as the unprivileged user.

    Its address space is capped, so that a regression that reads /dev/zero fails the test
    instead of filling the machine's memory; the timeout is only a safety net.
    """

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return run_as(user, api, env, workspace, home, timeout=120, preexec_fn=cap_memory)


def make_folders(workspace: Path, names: list[str], user: str) -> None:
    for name in names:
        folder = workspace / name
        folder.mkdir(parents=True, exist_ok=True)
        if user == "nobody":
            os.chown(folder, NOBODY, NOBODY)


@needs_bwrap
def test_a_command_cannot_change_another_agents_settings(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    make_folders(workspace, [str(Path(name).parent) for name in EXISTING] + ["src/claude"], user)
    for name in EXISTING:
        owned_file(workspace / name, reviewed(name), user)
    # What planloop reads or the project owns is not another agent's settings: it stays writable.
    for name in ("CLAUDE.md", "AGENTS.md", "src/claude/hooks.py"):
        owned_file(workspace / name, "kept\n", user)
    attack = "; ".join(f"echo '{PLANTED}' > {name}" for name in EXISTING)
    attack += "; rm -f .mcp.json; for f in CLAUDE.md AGENTS.md src/claude/hooks.py; do "
    attack += "echo edited >> $f; done; echo finished"
    api.add({"content": [tool_use("bash", {"command": attack})]})
    api.add({"content": [text("Done.")]})
    result = run_agent(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "finished" in output and "Read-only file system" in output
    for name in EXISTING:
        assert (workspace / name).read_text() == reviewed(name), name
    for name in ("CLAUDE.md", "AGENTS.md", "src/claude/hooks.py"):
        assert (workspace / name).read_text() == "kept\nedited\n", name


@needs_bwrap
def test_new_settings_of_another_agent_are_kept_and_reported(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    make = " && ".join(CREATED.values()) + " && echo made"
    api.add({"content": [tool_use("bash", {"command": make})]})
    api.add({"content": [text("Done.")]})
    result = run_agent(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "made" in output
    for name in CREATED:
        assert f"[{name} is new. It was kept" in output, name
        # Told on the terminal when it happened, and once more in planloop's last words.
        assert result.stderr.count(f"{name} (a host tool's configuration)") == 2, result.stderr
    assert (workspace / ".opencode/plugin/p.ts").read_text() == "export const P = 1\n"


def test_write_file_asks_before_it_changes_another_agents_hooks(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    make_folders(workspace, [".claude"], user)
    owned_file(workspace / ".claude/settings.json", REVIEWED, user)
    settings = {"path": ".claude/settings.local.json", "content": PLANTED}
    api.add({"content": [tool_use("write_file", settings)]})
    api.add({"content": [text("Done.")]})
    # Headless without --yes: nobody can be asked, so the write is refused.
    result = run_agent(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Claude Code runs the hooks" in output, output
    assert not (workspace / ".claude/settings.local.json").exists()


def test_the_reason_names_the_agent_that_would_run_the_command(tmp_path):
    assert "Gemini CLI" in protected_reason(tmp_path, ".gemini/settings.json")
    assert "opencode" in protected_reason(tmp_path, ".opencode/plugin/p.ts")
    assert "MCP servers" in protected_reason(tmp_path, "pkg/.mcp.json")
    assert protected_reason(tmp_path, "CLAUDE.md") is None
    assert protected_reason(tmp_path, "docs/claude/settings.json") is None


@needs_bwrap
@pytest.mark.parametrize("stuck", list(STUCK.values()), ids=list(STUCK))
def test_a_fifo_or_device_in_place_of_a_small_file_does_not_stop_planloop(
    api, env, user_folders, stuck
):
    user, workspace, planloop_home, home = user_folders
    api.add({"content": [tool_use("bash", {"command": f"{stuck} && echo planted"})]})
    api.add({"content": [tool_use("bash", {"command": "echo second command"})]})
    api.add({"content": [text("Done.")]})
    result = run_agent(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, second = tool_results(api)
    assert "planted" in first, first
    assert "second command" in second, second


@needs_bwrap
def test_a_fifo_at_a_protected_name_made_a_file_by_a_later_command_is_reported(
    api, env, user_folders
):
    # No bind can hold a FIFO read-only; a later command that makes it a file (an MCP server
    # the person's agent then starts) is told at that command, not only at the end.
    user, workspace, planloop_home, home = user_folders
    server = '{"mcpServers": {"x": {"command": "sh", "args": ["-c", "id"]}}}'
    commands = [
        "mkfifo .mcp.json && echo made",
        "echo between",
        f"rm .mcp.json && echo '{server}' > m.tmp && mv m.tmp .mcp.json && echo replaced",
    ]
    for command in commands:
        api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_agent(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    replaced = tool_results(api)[-1]
    assert "replaced" in replaced
    assert "[.mcp.json is a file now; it was not read-only while the command ran" in replaced
    assert "MCP servers" in replaced  # why it matters
    assert ".mcp.json (made a file where a FIFO or the like stood)" in result.stderr
