"""Scripts that host tools run on their own, named by their settings in the workspace.

`.vscode/tasks.json`, `.mcp.json` and the like are read-only for commands; the scripts they name
(`./scripts/watch.sh` for a folderOpen task, `node tools/mcp.js` for an MCP server) lie elsewhere
in the tree. A prompt-injected model that rewrote one would have VS Code, the dev container CLI,
a coding agent or mise run it outside the sandbox, with no command of the person's. The
end-to-end tests drive `python agent.py -p` against the fake API, as root and as an unprivileged
user, then run each script as its tool would, and check that the planted code did not run.
"""

from __future__ import annotations

import json
import subprocess
import threading
import tomllib
import tracemalloc
from pathlib import Path

import pytest
from test_git_programs import make, prefix
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools import event_queues
from tools import tool_scripts as tool_scripts_module
from tools.bind_watch import MAX_DOTENV_LINES, dotenv_bindings
from tools.environment import OPTION_FILES as OPTION_FILES_READ
from tools.paths import (
    SMALL_FILE_LIMIT,
    git_dir_of,
    protected_reason,
    read_small_file,
    scan_for_file_tools,
)
from tools.shell_config import shell_commands
from tools.toml_text import toml_data
from tools.tool_scripts import (
    EDITOR_CODE_REASON,
    EDITOR_ENV_FILE_REASON,
    MAX_YAML_ENTRIES,
    SLOW_SETTINGS_LIMIT,
    SettingsReadStopped,
    YamlTooLarge,
    read_settings,
    read_yaml,
    tool_files_when_there,
    tool_script_not_held,
    tool_scripts,
    tool_scripts_in,
)

__all__ = ["user_folders"]  # a fixture, used by name below

SETTINGS = {
    ".vscode/tasks.json": """{
  // VS Code's tasks.json allows comments and trailing commas
  "version": "2.0.0",
  "tasks": [
    {"label": "watch", "type": "shell", "command": "./scripts/watch.sh",
     "runOptions": {"runOn": "folderOpen"}, "dependsOn": ["prepare"],},
    {"label": "prepare", "type": "process", "command": "bash", "args": ["scripts/prepare"]},
    {"label": "build", "type": "shell", "command": "bash scripts/build.sh"},
  ],
}
""",
    ".devcontainer/devcontainer.json": '{"image": "debian", "initializeCommand": '
    '{"a": "bash scripts/init.sh", "b": ["python3", "scripts/init.py"]}}\n',
    ".mcp.json": json.dumps(
        {
            "mcpServers": {
                "project": {"command": "node", "args": ["tools/mcp.js"]},
                "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server"]},
                "image": {"command": "docker", "args": ["run", "-i", "ghcr.io/org/server"]},
            }
        }
    ),
    ".claude/settings.json": json.dumps(
        {
            "hooks": {
                "SessionStart": [
                    {"hooks": [{"type": "command", "command": "python3 scripts/session.py"}]}
                ],
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [{"command": '"$CLAUDE_PROJECT_DIR"/tools/check-bash'}],
                    }
                ],
            },
            "statusLine": {"type": "command", "command": "tools/status-line"},
        }
    ),
    "mise.toml": '[env]\n_.source = "{{config_root}}/scripts/env.sh"\n'
    '[hooks]\nenter = "bash scripts/enter.sh"\n',
}
# Each script they name, with what runs it as its tool would.
SCRIPTS = {
    "scripts/watch.sh": ["./scripts/watch.sh"],
    "scripts/prepare": ["bash", "scripts/prepare"],
    "scripts/init.sh": ["bash", "scripts/init.sh"],
    "scripts/init.py": ["python3", "scripts/init.py"],
    "tools/mcp.js": ["sh", "tools/mcp.js"],  # (no node here: the file is run as a script)
    "scripts/session.py": ["python3", "scripts/session.py"],
    "tools/check-bash": ["./tools/check-bash"],
    "tools/status-line": ["./tools/status-line"],
    "scripts/env.sh": ["sh", "scripts/env.sh"],
    "scripts/enter.sh": ["bash", "scripts/enter.sh"],
}


def project(workspace: Path, user: str) -> None:
    for path, content in SETTINGS.items():
        make(workspace / path, content, user, mode=0o644)
    for path in SCRIPTS:
        make(workspace / path, "#!/bin/sh\necho ok\n", user)
    make(workspace / "scripts/build.sh", "#!/bin/sh\necho build\n", user)


def rewrite_all(marker: Path) -> str:
    return (
        " ".join(
            f"printf '#!/bin/sh\\ntouch {marker}\\n' > {path};"
            for path in [*SCRIPTS, "scripts/build.sh"]
        )
        + " echo finished"
    )


@needs_bwrap
def test_a_command_cannot_rewrite_what_a_host_tool_runs_on_its_own(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    project(workspace, user)
    marker = home / "planted-ran"
    api.add({"content": [tool_use("bash", {"command": rewrite_all(marker)})]})
    api.add({"content": [tool_use("read_file", {"path": "scripts/session.py"})]})
    session = {"path": "scripts/session.py", "content": f"open('{marker}', 'w')\n"}
    api.add({"content": [tool_use("write_file", session)]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, _, written = tool_results(api)
    assert "finished" in ran
    assert ran.count("Read-only file system") == len(SCRIPTS), ran
    assert "scripts/session.py was not changed" in written
    assert ".claude/settings.json" in written and "coding agent runs it" in written
    # A task VS Code runs only when the person picks it is the project's code, as make's is.
    assert "touch" in (workspace / "scripts/build.sh").read_text()
    for argv in SCRIPTS.values():
        subprocess.run([*prefix(user), *argv], cwd=workspace, capture_output=True, timeout=60)
    assert not marker.exists()


@needs_bwrap
def test_a_script_an_mcp_server_runs_that_is_not_made_yet_makes_commands_ask(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    make(workspace / ".mcp.json", SETTINGS[".mcp.json"], user, mode=0o644)
    make(workspace / "tools/README", "built by npm run build\n", user, mode=0o644)
    marker = home / "planted-ran"
    command = f"printf 'touch {marker}' > tools/mcp.js; echo finished"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("write_file", {"path": "tools/mcp.js", "content": "x"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, written = tool_results(api)
    assert "tools/mcp.js does not exist or is a link" in ran, ran
    assert "finished" not in ran
    assert "tools/mcp.js was not changed" in written and ".mcp.json" in written
    assert not (workspace / "tools/mcp.js").exists()


def named(root: Path) -> set[str]:
    """What the host tools' settings that a workspace scan finds run, relative to `root`."""
    configs = scan_for_file_tools(root).tool_configs
    return {str(path.relative_to(root)) for path, _ in tool_scripts(root, configs).named}


def test_what_each_tool_runs_is_found_and_what_it_does_not_run_is_not(tmp_path):
    for path, content in SETTINGS.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(content)
    found = named(tmp_path)
    assert found == set(SCRIPTS)  # not build.sh, nor the npm package or the image's name


@pytest.mark.parametrize(
    ("name", "settings", "found"),
    [
        # The folder VS Code opened, by its variable, and a task's own cwd.
        (
            ".vscode/tasks.json",
            {
                "tasks": [
                    {
                        "command": "${workspaceFolder}/bin/dev",
                        "args": ["serve.py"],
                        "options": {"cwd": "${workspaceFolder}/web"},
                        "runOptions": {"runOn": "folderOpen"},
                    }
                ]
            },
            {"bin/dev", "web/serve.py"},
        ),
        # A devcontainer's initializeCommand as an argv list, in a named configuration.
        (".devcontainer/py/devcontainer.json", {"initializeCommand": ["sh", "init"]}, {"init"}),
        # VS Code reads runOn in any letter case; a task's shell and the variables it sets.
        (
            ".vscode/tasks.json",
            {
                "options": {"env": {"BASH_ENV": "${workspaceFolder}/tools/env.sh"}},
                "tasks": [
                    {
                        "command": "echo hi",
                        "options": {"shell": {"executable": "tools/mysh"}},
                        "runOptions": {"runOn": "FolderOpen"},
                    }
                ],
            },
            {"tools/env.sh", "tools/mysh"},
        ),
        # Cursor's hooks (from beside them), Copilot's `bash` key, opencode's command list and
        # plugins, Claude's key helper, Gemini's tool discovery, Codex's hooks.
        (
            ".cursor/hooks.json",
            {"hooks": {"stop": [{"command": "../scripts/stop.sh"}]}},
            {"scripts/stop.sh"},
        ),
        ("opencode.json", {"plugin": ["./tools/plug.js"]}, {"tools/plug.js"}),
        (
            "opencode.json",
            {"plugin": [["./tools/a.js", {"x": 1}], {"path": "file:./tools/b.js"}, "npm-name"]},
            {"tools/a.js", "tools/b.js"},
        ),
        (".gemini/settings.json", {"tools": {"discoveryCommand": "sh tools/d.sh"}}, {"tools/d.sh"}),
        (".codex/hooks.json", {"hooks": {"SessionStart": [{"command": "sh s.sh"}]}}, {"s.sh"}),
        # An MCP server's variables that name code; a compose file a dev container starts.
        (
            ".mcp.json",
            {"mcpServers": {"x": {"command": "npx", "args": ["-y", "x"], "env": {"ENV": "e.sh"}}}},
            {"e.sh"},
        ),
        (".devcontainer.json", {"dockerComposeFile": ["compose.yml"]}, {"compose.yml"}),
        (".github/hooks/start.json", {"hooks": {"sessionStart": [{"bash": "./go"}]}}, {"go"}),
        ("opencode.json", {"mcp": {"x": {"command": ["bun", "run", "srv.ts"]}}}, {"srv.ts"}),
        (".claude/settings.local.json", {"apiKeyHelper": "./key-helper"}, {"key-helper"}),
        (
            ".vscode/mcp.json",
            {"servers": {"x": {"command": "uv", "args": ["run", "m.py"]}}},
            {"m.py"},
        ),
        # Options every node of the hooks takes: `--require ./tools/pre.js` runs it first.
        (
            ".claude/settings.json",
            {"env": {"NODE_OPTIONS": "--require ./tools/pre.js --max-old-space-size=4096"}},
            {"tools/pre.js"},
        ),
        # The dotenv file a server starts with: its NODE_OPTIONS or LD_PRELOAD name code.
        (
            ".vscode/mcp.json",
            {"servers": {"x": {"command": "npx", "envFile": "${workspaceFolder}/tools/mcp.env"}}},
            {"tools/mcp.env"},
        ),
    ],
)
def test_the_scripts_of_each_kind_of_settings(tmp_path, name, settings, found):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(json.dumps(settings))
    assert named(tmp_path) == found


def test_mise_hooks_in_every_form_and_the_files_its_env_loads(tmp_path):
    (tmp_path / ".config").mkdir()
    (tmp_path / "bin").mkdir()
    (tmp_path / ".config/mise.toml").write_text(
        "[env]\n"
        '_.file = ".env.json"\n'
        '_.path = ["{{config_root}}/bin"]\n'
        '_.source = [{path = "scripts/a.sh"}]\n'
        "[hooks]\n"
        'cd = ["sh scripts/cd.sh"]\n'
        'leave = {script = "./scripts/leave", shell = "bash"}\n'
        "[[watch_files]]\n"
        'patterns = ["src/*.rs"]\n'
        'run = "./scripts/rebuild"\n'
    )
    root = tmp_path
    assert named(root) == {
        ".env.json",
        "bin",
        "scripts/a.sh",
        "scripts/cd.sh",
        "scripts/leave",
        "scripts/rebuild",
    }
    # The folder mise puts on PATH holds what is in it: the file tools ask for a program there.
    assert "mise runs or loads it" in protected_reason(root, "bin/tool")


def test_settings_that_cannot_be_read_make_commands_ask(tmp_path):
    (tmp_path / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "node", "args": [')
    why = tool_script_not_held(tmp_path, [tmp_path / ".mcp.json"])
    assert why and "cannot read .mcp.json" in why


def test_a_script_only_the_tool_can_place_makes_commands_ask_and_the_file_tools_refuse(tmp_path):
    tasks = {
        "tasks": [
            {
                "command": "sh ${input:folder}/fresh.sh",
                "runOptions": {"runOn": "folderOpen"},
            }
        ]
    }
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps(tasks))
    why = tool_script_not_held(tmp_path, [tmp_path / ".vscode"])
    assert why and "${input:folder}/fresh.sh" in why
    assert protected_reason(tmp_path, "deep/in/fresh.sh")
    # What the shell puts in front may be anything: any file may be what some line runs.
    assert "any file may be what it runs" in protected_reason(tmp_path, "deep/in/other.sh")


def test_no_script_is_told_for_a_task_that_is_not_run_on_folder_open(tmp_path):
    (tmp_path / ".vscode").mkdir()
    task = {"tasks": [{"label": "t", "command": "./scripts/t.sh", "runOptions": {}}]}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps(task))
    assert tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) is None
    assert named(tmp_path) == set()


def padded_past_the_limit(text: str) -> str:
    """`text` after comment lines that take it past what planloop reads of a config."""
    return "# padding\n" * (SMALL_FILE_LIMIT // 10 + 1) + text


@needs_bwrap
def test_a_git_config_too_big_to_read_whole_makes_commands_and_file_tools_ask(
    api, env, user_folders
):
    # What lies past the cut could name any hook or program: taking the first part as the
    # whole would leave `tools/hooks` writable while git runs it.
    user, workspace, planloop_home, home = user_folders
    subprocess.run([*prefix(user), "git", "init", "-q", str(workspace)], check=True)
    config = workspace / ".git" / "config"
    config.write_text(config.read_text() + padded_past_the_limit("[core]\n\thooksPath = hooks\n"))
    api.add({"content": [tool_use("bash", {"command": "mkdir hooks; echo made"})]})
    hook = {"path": "hooks/pre-commit", "content": "#!/bin/sh\nid\n"}
    api.add({"content": [tool_use("write_file", hook)]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, written = tool_results(api)
    assert ".git/config is larger than planloop reads" in ran and "made" not in ran
    assert "was not changed" in written and ".git/config is larger" in written
    assert not (workspace / "hooks").exists()


def test_host_tool_settings_too_big_to_read_whole_protect_every_file(tmp_path):
    (tmp_path / "mise.toml").write_text(padded_past_the_limit('[hooks]\nenter = "sh x.sh"\n'))
    assert "mise.toml is larger than planloop reads" in protected_reason(tmp_path, "x.sh")
    assert "mise.toml is larger" in protected_reason(tmp_path, "src/any.py")
    with pytest.raises(OSError):
        read_small_file(tmp_path / "mise.toml")


def test_a_toml_key_of_thousands_of_parts_is_not_parsed(tmp_path):
    # tomllib checks every prefix of a dotted key: time and memory in the square of its parts
    # (60,000 parts, 120 KB: 14 GB), on the event loop, for each command.
    (tmp_path / "mise.toml").write_text("[env]\n" + ".".join(["a"] * 4_000) + " = 1\n")
    with pytest.raises(ValueError, match="more than 32 parts"):
        read_settings(tmp_path / "mise.toml")
    why = tool_script_not_held(tmp_path, [tmp_path / "mise.toml"])
    assert why == "planloop cannot read mise.toml, so it cannot tell what its tool runs"
    ordinary = '[tools]\nnode = "20"\n[env]\n_.file = ".env"\na.b."c.d" = 1\n'
    assert toml_data(ordinary) == tomllib.loads(ordinary)


def test_an_hgrc_that_includes_its_includes_thousands_of_times_is_unread(tmp_path):
    # Each `%include` is read anew: 2,000 lines of `%include a` in the hgrc and 2,000 more in
    # `a` made four million reads, on the event loop, before every command.
    (tmp_path / ".hg").mkdir()
    (tmp_path / ".hg" / "hgrc").write_text("%include a\n" * 300)
    (tmp_path / ".hg" / "a").write_text("%include b\n" * 300)
    (tmp_path / ".hg" / "b").write_text("[hooks]\n")
    with pytest.raises(ValueError, match="more than 256 includes"):
        read_settings(tmp_path / ".hg" / "hgrc", "hg")
    (tmp_path / ".hg" / "hgrc").write_text("%include a\n[hooks]\nx = sh hooks/x.sh\n")
    (tmp_path / ".hg" / "a").write_text("%include b\n" * 100)
    assert read_settings(tmp_path / ".hg" / "hgrc", "hg")["hooks"] == {"x": "sh hooks/x.sh"}


def test_a_folder_open_npm_task_holds_package_json_and_what_its_scripts_run(tmp_path):
    (tmp_path / ".vscode").mkdir()
    tasks = {"tasks": [{"label": "a", "command": "true", "dependsOn": "npm: watch"}]}
    tasks["tasks"][0]["runOptions"] = {"runOn": "folderOpen"}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps(tasks))
    scripts = {"scripts": {"watch": "node tools/watch.js", "build": "node tools/build.js"}}
    (tmp_path / "package.json").write_text(json.dumps(scripts))
    # Every script: which of them npm runs is a matter of aliases, options and lifecycles.
    assert named(tmp_path) == {"package.json", "tools/watch.js", "tools/build.js"}


@needs_bwrap
def test_the_npmrc_beside_a_folder_open_npm_task_is_held_and_a_new_one_is_reported(
    api, env, user_folders
):
    # npm runs each script through the .npmrc's script-shell, with its node-options: VS Code's
    # npm task would run either on opening the folder. Most projects have no .npmrc.
    user, workspace, planloop_home, home = user_folders
    tasks = [{"type": "npm", "script": "watch", "runOptions": {"runOn": "folderOpen"}}]
    tasks.append({**tasks[0], "path": "web"})
    make(workspace / ".vscode/tasks.json", json.dumps({"tasks": tasks}), user, mode=0o644)
    for folder in (workspace, workspace / "web"):
        make(folder / "package.json", '{"scripts": {"watch": "node -e 1"}}', user, mode=0o644)
    make(workspace / ".npmrc", "fund=false\n", user, mode=0o644)
    planted = "node-options=--require ./tools/p.js"
    command = f"echo '{planted}' >> .npmrc; echo '{planted}' > web/.npmrc; echo finished"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("read_file", {"path": ".npmrc"})]})
    api.add({"content": [tool_use("write_file", {"path": ".npmrc", "content": planted})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, _, written = tool_results(api)
    assert "Read-only file system" in ran and "finished" in ran
    assert "web/.npmrc is new. It was kept, and the user was told: npm, yarn, pnpm" in ran, ran
    assert "web/.npmrc (a package manager reads it for the scripts a host tool runs)" in (
        result.stderr
    )
    assert ".npmrc was not changed" in written and "script-shell" in written
    assert (workspace / ".npmrc").read_text() == "fund=false\n"


def test_a_missing_npmrc_beside_an_npm_task_does_not_make_commands_ask(tmp_path):
    (tmp_path / ".vscode").mkdir()
    npm_task = {"type": "npm", "script": "watch", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [npm_task]}))
    (tmp_path / "package.json").write_text('{"scripts": {"watch": "node -e 1"}}')
    assert tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) is None
    assert "script-shell" in protected_reason(tmp_path, ".npmrc")
    assert "yarnPath" in protected_reason(tmp_path, ".yarnrc.yml")
    assert "preload" in protected_reason(tmp_path, "bunfig.toml")
    assert protected_reason(tmp_path, "web/.npmrc") is None


def test_a_folder_open_task_whose_program_cannot_be_told_makes_commands_ask(tmp_path):
    (tmp_path / ".vscode").mkdir()
    gulp = {"tasks": [{"type": "gulp", "task": "w", "runOptions": {"runOn": "folderOpen"}}]}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps(gulp))
    why = tool_script_not_held(tmp_path, [tmp_path / ".vscode"])
    assert why and "a gulp task" in why and ".vscode/tasks.json" in why


def test_toml_settings_codex_notify_and_mise_variables_that_name_code(tmp_path):
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/config.toml").write_text('notify = ["sh", "tools/notify.sh"]\n')
    (tmp_path / "mise.toml").write_text(
        '[env]\nBASH_ENV = "{{config_root}}/tools/env.sh"\nDATABASE = "./dev.db"\n'
    )
    assert named(tmp_path) == {"tools/notify.sh", "tools/env.sh"}


def test_an_mcp_server_given_as_a_folder_is_held_whole(tmp_path):
    (tmp_path / "tools" / "mcp").mkdir(parents=True)
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"x": {"command": "node", "args": ["tools/mcp"]}}})
    )
    assert named(tmp_path) == {"tools/mcp"}
    assert protected_reason(tmp_path, "tools/mcp/index.js")


def test_a_comma_inside_a_string_is_kept_as_written():
    from tools.tool_scripts import without_comments

    assert json.loads(without_comments('{"a": ["tools/x,]", 1,], /* c */ "b": "//",}')) == {
        "a": ["tools/x,]", 1],
        "b": "//",
    }


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        # cargo's wrapper and runners, run by every build and by rust-analyzer on opening.
        (
            ".cargo/config.toml",
            '[build]\nrustc-wrapper = "tools/wrap"\n[target.x86_64-unknown-linux-gnu]\n'
            'runner = ["sh", "tools/run.sh"]\n',
            {"tools/wrap", "tools/run.sh"},
        ),
        # rustup's toolchain by a path; a plain channel name is nothing to hold.
        ("rust-toolchain.toml", '[toolchain]\npath = "./toolchain"\n', {"toolchain"}),
        ("rust-toolchain", "stable\n", set()),
        # Zed's language server by a path.
        (
            ".zed/settings.json",
            '{"lsp": {"x": {"binary": {"path": "./bin/ls", "arguments": ["s.py"]}}}}',
            {"bin/ls", "s.py"},
        ),
        # Mercurial's hooks and extensions.
        (
            ".hg/hgrc",
            "[hooks]\nprecommit = sh hooks/pre.sh\npretxn = python:hooks/check.py:run\n"
            "[extensions]\nmine = ext/mine.py\noff = !\n",
            {"hooks/pre.sh", "hooks/check.py", "ext/mine.py"},
        ),
        # aider's lint and test commands.
        (
            ".aider.conf.yml",
            "lint-cmd: 'python: sh tools/lint.sh'\ntest-cmd: sh t.sh\n",
            {"tools/lint.sh", "t.sh"},
        ),
        # ... in any form YAML gives them: a folded block, a flow list, a quoted key.
        (
            ".aider.conf.yml",
            'lint-cmd: >\n  python: sh tools/lint.sh\n"test-cmd": [sh t.sh, "sh u.sh"]\n',
            {"tools/lint.sh", "t.sh", "u.sh"},
        ),
        # Continue's MCP server blocks, in YAML or another agent's JSON, and an assistant's.
        (
            ".continue/mcpServers/own.yaml",
            "name: own\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: own\n"
            "    command: node\n    args:\n      - tools/mcp.js\n    cwd: server\n"
            "  - name: web\n    command: npx\n    args: ['@playwright/mcp@latest']\n",
            {"server/tools/mcp.js"},
        ),
        (
            ".continue/mcpServers/copied.json",
            '{"mcpServers": {"x": {"command": "sh", "args": ["tools/x.sh"]}}}',
            {"tools/x.sh"},
        ),
        (
            ".continue/assistants/mine.yml",
            "mcpServers:\n- {name: a, command: python3, args: [tools/a.py]}\n",
            {"tools/a.py"},
        ),
    ],
)
def test_what_editors_cargo_rustup_mercurial_aider_and_continue_run(tmp_path, name, text, found):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    assert named(tmp_path) == found


def test_vs_code_settings_hold_the_files_they_name_that_exist(tmp_path):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "py").write_text("#!/bin/sh\n")
    settings = {
        "python.defaultInterpreterPath": "${workspaceFolder}/tools/py",
        "json.schemas": [{"url": "./schemas/not-made-yet.json"}],
        "files.exclude": {"**/build": True},
        "editor.fontSize": 13,
        # A schema, a linter's or formatter's config: data, or the project's own code.
        "eslint.options": {"overrideConfigFile": "./eslint.config.js"},
        "prettier.configPath": "./.prettierrc",
        "terminal.integrated.profiles.linux": {"dev": {"path": "./tools/py"}},
    }
    for name in ("eslint.config.js", ".prettierrc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    assert named(tmp_path) == {"tools/py"}
    assert tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) is None


def test_everyday_settings_make_nothing_ask(tmp_path):
    # A comments-only settings file is no settings (VS Code reads `{}`); npm
    # packages as opencode plugins are names, not files; a hook's pattern is no file.
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text("")
    (tmp_path / ".vscode" / "tasks.json").write_text('// "editor.formatOnSave": true\n')
    # (the workspace's TypeScript, before an install: VS Code asks before it uses it)
    settings = {"typescript.tsdk": "node_modules/typescript/lib"}
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "opencode.json").write_text(
        json.dumps({"plugin": ["opencode-helicone-session", "@my-org/custom-plugin"]})
    )
    hook = 'f=$(jq -r .tool_input.file_path); [[ $f == src/*.py ]] && ruff format "$f"'
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"PostToolUse": [{"hooks": [{"command": hook}]}]}})
    )
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert tool_script_not_held(tmp_path, configs) is None
    assert protected_reason(tmp_path, "src/app.py") is None


def test_an_hgrc_with_includes_and_unsets_is_read_without_failing(tmp_path):
    (tmp_path / ".hg").mkdir()
    (tmp_path / ".hg" / "hooks.rc").write_text("[hooks]\nprecommit = sh hooks/pre.sh\n")
    (tmp_path / ".hg" / "hgrc").write_text("%include hooks.rc\n%unset default-push\n[ui]\n")
    assert named(tmp_path) == {"hooks/pre.sh", ".hg/hooks.rc"}  # what it includes is held


def test_more_of_what_a_folder_open_task_runs(tmp_path):
    (tmp_path / ".vscode").mkdir()
    tasks = """{"tasks": [
      // a line comment that ends at a lone carriage return\r{"label": "a",
      "command": "npm run watch", "runOptions": {"runOn": "folderOpen"},
      "options": {"shell": {"executable": "bash", "args": ["--rcfile", "tools/rc.sh", "-c"]}}}
    ]}"""
    (tmp_path / ".vscode" / "tasks.json").write_text(tasks)
    scripts = {"prewatch": "sh tools/pre.sh", "watch": "node tools/watch.js"}
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    assert named(tmp_path) == {"package.json", "tools/pre.sh", "tools/watch.js", "tools/rc.sh"}


def test_a_package_json_too_big_to_read_for_a_folder_open_task_makes_commands_ask(tmp_path):
    (tmp_path / ".vscode").mkdir()
    task = {"type": "npm", "script": "watch", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode" / "tasks.json").write_text(json.dumps({"tasks": [task]}))
    (tmp_path / "package.json").write_text(" " * (SMALL_FILE_LIMIT + 1) + "{}")
    assert "package.json" in (tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) or "")


@pytest.mark.parametrize(
    "line",
    [
        "npm_config_userconfig=tools/npmrc npm test",
        "NPM_CONFIG_USERCONFIG=tools/npmrc npm test",
        "npm --userconfig tools/npmrc test",
        "npm --userconfig=tools/npmrc test",
    ],
)
def test_an_npmrc_a_hook_names_that_is_too_big_to_read_makes_commands_ask(tmp_path, line):
    # npm reads it whole: past what planloop reads, its script-shell may be any file.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".git" / "hooks" / "pre-commit").write_text(f"#!/bin/sh\n{line}\n")
    (tmp_path / "package.json").write_text('{"scripts": {"test": "echo ok"}}')
    (tmp_path / "tools").mkdir()
    npmrc = tmp_path / "tools" / "npmrc"
    npmrc.write_text("script-shell=./tools/sh\n")
    assert "git's hook .git/hooks/pre-commit runs it" in protected_reason(tmp_path, "tools/sh")
    assert protected_reason(tmp_path, "src/any.py") is None
    npmrc.write_text(padded_past_the_limit("script-shell=./tools/sh\n"))
    why = "tools/npmrc, which is larger than planloop reads"
    assert why in (protected_reason(tmp_path, "src/any.py") or "")


def test_variables_an_agent_sets_for_every_hook_count(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"env": {"BASH_ENV": "e.sh"}}))
    assert named(tmp_path) == {"e.sh"}


def test_a_gitdir_file_is_read_as_git_reads_it(tmp_path):
    # git takes off line ends only: `gitdir: .rg ` names the folder `.rg ` (with its space).
    (tmp_path / ".git").write_text("gitdir: .rg \n")
    assert git_dir_of(tmp_path / ".git") == tmp_path / ".rg "


def test_a_git_include_too_big_to_read_whole_makes_everything_ask(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "inc.cfg").write_text(padded_past_the_limit("[core]\n\tpager = x\n"))
    with (tmp_path / ".git" / "config").open("a") as config:
        config.write("[include]\n\tpath = ../tools/inc.cfg\n")
    assert "tools/inc.cfg is larger than planloop reads" in protected_reason(tmp_path, "x")


def test_the_interpreter_of_a_virtualenv_named_by_vs_code_settings_does_not_make_commands_ask(
    tmp_path,
):
    # venv and uv make bin/python a link (to python3, then to the system's): its bin/ is held
    # as every virtualenv's is, so no command can point it elsewhere.
    bin_folder = tmp_path / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (bin_folder / "python3").symlink_to("/usr/bin/python3")
    (bin_folder / "python").symlink_to("python3")
    (tmp_path / ".vscode").mkdir()
    interpreter = {"python.defaultInterpreterPath": "${workspaceFolder}/.venv/bin/python"}
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(interpreter))
    assert tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) is None
    # Held with its bin/, not on its own: no "not made read-only" note for a link out.
    assert tool_scripts_in(tmp_path, [tmp_path / ".vscode"]) == []
    # A link out of a virtualenv's bin/ into the tree, which commands can change, still asks.
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "py").write_text("#!/bin/sh\n")
    (bin_folder / "python").unlink()
    (bin_folder / "python").symlink_to("../../tools/py")
    assert "does not exist or is a link" in tool_script_not_held(tmp_path, [tmp_path / ".vscode"])


def test_a_file_an_hgrc_includes_that_is_not_made_yet_makes_commands_ask(tmp_path):
    (tmp_path / ".hg").mkdir()
    (tmp_path / ".hg" / "hgrc").write_text("%include ../tools/hg.rc\n[ui]\n")
    why = tool_script_not_held(tmp_path, [tmp_path / ".hg"])
    assert why and "tools/hg.rc does not exist" in why


@pytest.mark.parametrize(
    "command",
    [
        "npm run watch -- --port 3000",
        "npm run -s watch",
        "cd web && npm run watch",
        "npm --prefix web run watch",
        "npm ci && npm run watch 2>&1 | tee dev.log",
        "yarn --cwd web watch",
    ],
)
def test_a_package_script_a_folder_open_task_runs_in_any_common_form_is_held(tmp_path, command):
    (tmp_path / ".vscode").mkdir()
    task = {"label": "w", "command": command, "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    scripts = {"scripts": {"watch": "sh ../tools/watch.sh"}}
    (tmp_path / "web").mkdir()
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"watch": "sh web/w.sh"}}))
    (tmp_path / "web" / "package.json").write_text(json.dumps(scripts))
    found = named(tmp_path)
    assert found & {"package.json", "web/package.json"}, found
    assert found & {"web/w.sh", "tools/watch.sh"}, found


def test_a_claude_hook_that_runs_an_npm_script_holds_what_the_script_runs(tmp_path):
    (tmp_path / ".claude").mkdir()
    hook = {"hooks": [{"type": "command", "command": "npm run lint --silent"}]}
    (tmp_path / ".claude/settings.json").write_text(json.dumps({"hooks": {"PostToolUse": [hook]}}))
    (tmp_path / "package.json").write_text('{"scripts": {"lint": "node tools/lint.js"}}')
    assert named(tmp_path) == {"package.json", "tools/lint.js"}


def test_what_the_package_managers_settings_run_for_an_npm_task_is_held(tmp_path):
    (tmp_path / ".vscode").mkdir()
    npm_task = {"type": "npm", "script": "watch", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [npm_task]}))
    (tmp_path / "package.json").write_text('{"scripts": {"watch": "node -e 1"}}')
    (tmp_path / ".npmrc").write_text("script-shell=./tools/sh\nnode-options=--require ./n.js\n")
    (tmp_path / ".yarnrc.yml").write_text("yarnPath: .yarn/releases/yarn-4.1.0.cjs\n")
    (tmp_path / "bunfig.toml").write_text('preload = ["./tools/pre.ts"]\n')
    assert named(tmp_path) == {
        "package.json",
        "tools/sh",
        "n.js",
        ".yarn/releases/yarn-4.1.0.cjs",
        "tools/pre.ts",
    }


@pytest.mark.parametrize(
    ("name", "text", "held"),
    [
        (".yarnrc.yml", '"yarnPath": tools/y.cjs\n', "tools/y.cjs"),  # a quoted key
        (".yarnrc.yml", "{yarnPath: tools/y.cjs}\n", "tools/y.cjs"),  # the flow form
        (
            ".yarnrc.yml",
            "plugins:\n  - path: .yarn/plugins/p.cjs\n    spec: x\n",
            ".yarn/plugins/p.cjs",
        ),
        (".yarnrc.yml", "plugins: [.yarn/plugins/q.cjs]\n", ".yarn/plugins/q.cjs"),
        ("bunfig.toml", '[test]\npreload = ["./tools/setup.ts"]\n', "tools/setup.ts"),
    ],
)
def test_each_form_of_the_package_managers_settings_is_read(tmp_path, name, text, held):
    (tmp_path / ".vscode").mkdir()
    task = {"label": "w", "command": "yarn --cwd web watch", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text('{"scripts": {"watch": "node -e 1"}}')
    (tmp_path / name).write_text(text)  # yarn reads the .yarnrc.yml of each folder above
    if name == "bunfig.toml":
        (tmp_path / "web" / name).write_text(text)
        held = f"web/{held}"
    assert held in named(tmp_path)


def test_pnpms_hooks_yarns_loader_and_a_yarnrc_above_are_held_when_a_command_makes_them(tmp_path):
    (tmp_path / ".vscode").mkdir()
    task = {"label": "w", "command": "pnpm -C web install", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text("{}")
    from tools.sandbox import held_when_there_paths, scan_workspace

    watched = {path for path, _ in held_when_there_paths(tmp_path, scan_workspace(tmp_path))}
    for path in ("web/.pnpmfile.cjs", "web/.pnp.cjs", ".yarnrc.yml", "web/.yarnrc.yml"):
        assert tmp_path / path in watched, path
        assert "pnpm" in protected_reason(tmp_path, path), path


def test_a_python_module_an_mcp_server_runs_is_held_where_it_is_and_watched_where_not(tmp_path):
    # `python3 -m srv` from the project folder imports ./srv/ before any installed srv; a
    # command that made ./fetch.py would replace `python3 -m fetch` the same way.
    servers = {"own": {"command": "python3", "args": ["-m", "srv"]}}
    servers["fetch"] = {"command": "python3", "args": ["-m", "fetch.server", "--port", "8"]}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "__main__.py").write_text("print('serving')\n")
    configs = scan_for_file_tools(tmp_path).tool_configs
    modules = [path for path, _ in tool_scripts(tmp_path, configs).when_there]
    assert {tmp_path / "srv", tmp_path / "fetch.py", tmp_path / "fetch"} <= set(modules)
    assert tool_script_not_held(tmp_path, configs) is None  # nothing to ask about
    for path in ("srv/__main__.py", "fetch.py", "fetch/__init__.py"):
        assert "python imports this in place" in protected_reason(tmp_path, path), path
    assert protected_reason(tmp_path, "server.py") is None
    from tools.sandbox import read_only_candidates, scan_workspace

    held = read_only_candidates(tmp_path, scan_workspace(tmp_path))
    assert tmp_path / "srv" in held and tmp_path / "fetch.py" not in held


def test_yaml_settings_with_an_alias_or_that_do_not_parse_make_commands_ask(tmp_path):
    # Nested aliases stand for more entries than any walk could visit: such a file is unread.
    (tmp_path / ".continue" / "mcpServers").mkdir(parents=True)
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [{', '.join([f'*{a}'] * 10)}]\n" for a, b in zip("abcde", "bcdef", strict=True)
    )
    (tmp_path / ".continue/mcpServers/laughs.yaml").write_text(laughs)
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert "cannot read .continue/mcpServers/laughs.yaml" in tool_script_not_held(tmp_path, configs)
    (tmp_path / ".continue/mcpServers/laughs.yaml").write_text("command: [sh\n")
    assert "cannot read" in tool_script_not_held(tmp_path, configs)
    (tmp_path / ".continue/mcpServers/laughs.yaml").write_text("name: x\ncommand: uvx\n")
    assert tool_script_not_held(tmp_path, configs) is None


# How a folderOpen task may call a package manager, and the script file that call runs:
# (the task's command line, the files of the project, the file that must be held).
PACKAGE_CALLS = {
    "a variable before it": ("NODE_ENV=development npm run watch", {}, "tools/watch.sh"),
    "a runner before it": ("env FORCE_COLOR=1 npm run watch", {}, "tools/watch.sh"),
    "inside bash -c": ('bash -lc "npm run watch"', {}, "tools/watch.sh"),
    "an alias": ("npm t", {}, "tools/test.sh"),
    "a lifecycle": ("npm install", {}, "tools/prepare.sh"),
    "an option with a value": ("npm --loglevel silent run watch", {}, "tools/watch.sh"),
    "the folder after the script": ("npm run build --prefix web", {"web": {}}, "web/b.sh"),
    "a workspace": ("npm run build -w web", {"web": {}}, "web/b.sh"),
    "yarn's workspace": ("yarn workspace web build", {"web": {}}, "web/b.sh"),
    "pnpm's filter": ("pnpm --filter web build", {"web": {}}, "web/b.sh"),
    "an install of a workspaces root": ("npm ci", {"web": {}}, "web/b.sh"),
    "pushd": ("pushd web && npm run build", {"web": {}}, "web/b.sh"),
    "cd -P": ("cd -P web && npm run build", {"web": {}, "-P": {}}, "web/b.sh"),
    "npm's shell on the line": ("npm run --script-shell=./tools/sh watch", {}, "tools/sh"),
    "through npx": ("npx --yes npm run watch", {}, "tools/watch.sh"),
}


@pytest.mark.parametrize("case", PACKAGE_CALLS)
def test_a_package_manager_called_in_any_form_holds_what_its_package_json_runs(tmp_path, case):
    line, folders, held = PACKAGE_CALLS[case]
    task = {"label": "x", "type": "shell", "command": line, "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    scripts = {name: f"sh tools/{name}.sh" for name in ("watch", "test", "prepare")}
    package = {"scripts": scripts, "workspaces": ["web"]}
    (tmp_path / "package.json").write_text(json.dumps(package))
    (tmp_path / "pnpm-workspace.yaml").write_text("packages:\n  - web\n")
    for folder in folders:
        (tmp_path / folder).mkdir()
        member = {"name": folder, "scripts": {"build": "sh b.sh", "postinstall": "sh b.sh"}}
        (tmp_path / folder / "package.json").write_text(json.dumps(member))
    assert held in named(tmp_path), named(tmp_path)


# hgrc forms Mercurial reads as its own parser does: (the .hg/hgrc, other files, what is held).
HGRC_FORMS = {
    "a tab after %include": ("%include\t../tools/extra.rc\n", {}, "tools/extra.rc"),
    "an item after an include goes on in its section": (
        "[hooks]\n%include ../tools/hg.rc\npre-status = sh tools/h.sh\n",
        {"tools/hg.rc": "[ui]\nusername = me\n"},
        "tools/h.sh",
    ),
    "a section header's first brackets": (
        "[hooks][x]\npre-status = sh tools/h.sh\n",
        {},
        "tools/h.sh",
    ),
    "includes nested deep": (
        "%include ../a.rc\n",
        {"a.rc": "%include b.rc\n", "b.rc": "%include c.rc\n", "c.rc": "%include d.rc\n"}
        | {"d.rc": "[hooks]\npre-status = sh tools/h.sh\n"},
        "tools/h.sh",
    ),
    "a continued line is the same item": (
        "[hooks]\npre-status =\n  sh tools/h.sh\n",
        {},
        "tools/h.sh",
    ),
    "the pager, as git's": ("[pager]\npager = ./tools/pg\n", {}, "tools/pg"),
    "a merge tool": ("[merge-tools]\nmine.executable = tools/merge.sh\n", {}, "tools/merge.sh"),
}


@pytest.mark.parametrize("form", HGRC_FORMS)
def test_an_hgrc_is_read_as_mercurial_reads_it(tmp_path, form):
    hgrc, others, held = HGRC_FORMS[form]
    (tmp_path / ".hg").mkdir()
    (tmp_path / ".hg" / "hgrc").write_text(hgrc)
    for name, content in others.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    assert held in named(tmp_path), named(tmp_path)


def test_an_hgrc_line_mercurial_refuses_or_includes_without_end_leave_it_unread(tmp_path):
    (tmp_path / ".hg").mkdir()
    configs = [tmp_path / ".hg"]
    (tmp_path / ".hg" / "hgrc").write_text("  stray indented line\n")
    assert "cannot read .hg/hgrc" in tool_script_not_held(tmp_path, configs)
    (tmp_path / ".hg" / "hgrc").write_text("%include hgrc\n")  # itself, again and again
    assert "cannot read .hg/hgrc" in tool_script_not_held(tmp_path, configs)


def test_a_path_version_of_asdf_or_mise_holds_its_folder_or_makes_commands_ask(tmp_path):
    # asdf and mise run that folder's bin/node for every `node` in the folder.
    (tmp_path / "tools" / "node" / "bin").mkdir(parents=True)
    (tmp_path / ".tool-versions").write_text(f"nodejs path:{tmp_path}/tools/node  # local\n")
    assert named(tmp_path) == {"tools/node"}
    assert "path:" in protected_reason(tmp_path, "tools/node/bin/node")
    (tmp_path / ".tool-versions").unlink()
    (tmp_path / "mise.toml").write_text('[tools]\nnode = "path:./tools/node"\n')
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert "only its tool can tell" in tool_script_not_held(tmp_path, configs)
    assert protected_reason(tmp_path, "tools/node/bin/node")


@pytest.mark.parametrize(
    ("name", "version"),
    [
        (".nvmrc", "path:{root}/tools/node"),  # (mise with idiomatic version files on)
        (".python-version", "path:{root}/tools/node"),
        (".python-version", "{root}/tools/node"),  # (uv runs a python there)
    ],
)
def test_a_path_in_a_version_file_of_one_tool_holds_its_folder(tmp_path, name, version):
    (tmp_path / "tools" / "node" / "bin").mkdir(parents=True)
    (tmp_path / name).write_text(version.format(root=tmp_path) + "\n")
    assert named(tmp_path) == {"tools/node"}
    assert protected_reason(tmp_path, "tools/node/bin/node")
    (tmp_path / name).write_text("path:./tools/node\n")
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert "only its tool can tell" in tool_script_not_held(tmp_path, configs)
    (tmp_path / name).write_text("20.1.0\n")  # the everyday case: a version, nothing to hold
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert named(tmp_path) == set() and tool_script_not_held(tmp_path, configs) is None


@pytest.mark.parametrize("version", ["3.12", "cpython@3.12", "pypy3.10", "system"])
def test_uv_takes_a_word_of_python_version_that_is_no_version_for_a_path(tmp_path, version):
    # `toolchain` names the folder whose bin/python uv runs (from the shell's folder).
    (tmp_path / "toolchain" / "bin").mkdir(parents=True)
    (tmp_path / ".python-version").write_text("toolchain\n")
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert "only its tool can tell" in tool_script_not_held(tmp_path, configs)
    (tmp_path / ".python-version").write_text(version + "\n")
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert tool_script_not_held(tmp_path, configs) is None


def test_docker_compose_in_a_folder_open_task_holds_its_files_and_watches_the_missing(tmp_path):
    # A compose file a command rewrote (`privileged: true`, `/:/host` mounted) would have the
    # docker daemon start it as root on the next opening of the folder.
    tasks = [
        {"label": "up", "command": "docker compose up -d", "runOptions": {"runOn": "folderOpen"}}
    ]
    tasks.append({**tasks[0], "label": "x", "command": "podman compose -f ops/dev.yml up"})
    tasks.append({**tasks[0], "label": "y", "command": "docker run --rm -v .:/w img"})
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": tasks}))
    (tmp_path / "compose.yaml").write_text(
        "include:\n  - infra/db.yaml\nservices:\n  web:\n    extends:\n"
        "      file: common.yaml\n      service: base\n"
    )
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra/db.yaml").write_text("include:\n  - path: ../more.yaml\n")
    assert named(tmp_path) == {
        "compose.yaml",
        "infra/db.yaml",
        "more.yaml",
        "common.yaml",
        "ops/dev.yml",
    }
    configs = scan_for_file_tools(tmp_path).tool_configs
    watched = {str(p.relative_to(tmp_path)) for p, _ in tool_scripts(tmp_path, configs).when_there}
    assert {"compose.override.yaml", "docker-compose.yml"} <= watched
    assert "docker daemon" in protected_reason(tmp_path, "compose.override.yaml")


def test_an_install_holds_the_local_packages_it_depends_on_and_one_script_holds_its_own_only(
    tmp_path,
):
    # npm runs a linked `file:` dependency's postinstall and prepare on every install.
    (tmp_path / ".vscode").mkdir()
    task = {"label": "i", "command": "npm install", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    dependencies = {"x": "file:./libs/x", "y": "./libs/y", "z": "file:vendor/z.tgz", "r": "^1"}
    package = {"scripts": {"dev": "sh tools/dev.sh"}, "dependencies": dependencies}
    (tmp_path / "package.json").write_text(json.dumps(package))
    for name, deeper in (("x", {"w": "link:../w"}), ("y", {}), ("w", {})):
        (tmp_path / "libs" / name).mkdir(parents=True)
        member = {"scripts": {"postinstall": f"sh {name}.sh"}, "dependencies": deeper}
        (tmp_path / "libs" / name / "package.json").write_text(json.dumps(member))
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "z.tgz").write_bytes(b"\x1f\x8b")
    found = named(tmp_path)
    for path in ("libs/x/package.json", "libs/x/x.sh", "libs/y/y.sh", "libs/w/w.sh"):
        assert path in found, path
    assert "vendor/z.tgz" in found and "tools/dev.sh" in found
    # `yarn dev` (pnpm's, bun's) runs the root's own script alone: the others stay free.
    task["command"] = "yarn dev"
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    assert named(tmp_path) == {"package.json", "tools/dev.sh"}


def folder_open_tasks(command: str) -> str:
    """A tasks.json whose one task runs `command` when the folder is opened."""
    task = {"label": "u", "command": command, "runOptions": {"runOn": "folderOpen"}}
    return json.dumps({"tasks": [task]})


# What pass-22 forms of settings run: (settings file, its text, other files, the path held).
MORE_FORMS = {
    "git's config named by a variable": (
        ".claude/settings.json",
        json.dumps(
            {"hooks": {"Stop": [{"hooks": [{"command": "GIT_CONFIG_GLOBAL=tools/gc git status"}]}]}}
        ),
        {"tools/gc": "[core]\n\tpager = ./tools/pg\n", "tools/pg": ""},
        "tools/pg",
    ),
    "git's variables in a settings env table": (
        ".claude/settings.json",
        json.dumps({"env": {"GIT_EXTERNAL_DIFF": "tools/d.sh"}}),
        {},
        "tools/d.sh",
    ),
    "Mercurial's hgrc-not-shared": (
        ".hg/hgrc-not-shared",
        "[hooks]\npre-status = sh tools/h.sh\n",
        {},
        "tools/h.sh",
    ),
    "a VS Code workspace file's tasks": (
        "dev.code-workspace",
        json.dumps(
            {
                "tasks": {
                    "tasks": [
                        {
                            "label": "a",
                            "command": "sh tools/a.sh",
                            "runOptions": {"runOn": "folderOpen"},
                        }
                    ]
                }
            }
        ),
        {},
        "tools/a.sh",
    ),
    "a terminal profile's args": (
        ".vscode/settings.json",
        json.dumps(
            {
                "terminal.integrated.profiles.linux": {
                    "dev": {"path": "bash", "args": ["--rcfile", "tools/rc"]}
                }
            }
        ),
        {"tools/rc": ""},
        "tools/rc",
    ),
    "the terminals' PROMPT_COMMAND": (
        ".vscode/settings.json",
        json.dumps({"terminal.integrated.env.linux": {"PROMPT_COMMAND": "source ./tools/p.sh"}}),
        {},
        "tools/p.sh",
    ),
    "an MCP server in the settings": (
        ".vscode/settings.json",
        json.dumps({"mcp": {"servers": {"s": {"command": "node", "args": ["tools/mcp.js"]}}}}),
        {"tools/mcp.js": ""},
        "tools/mcp.js",
    ),
    "npm's settings given as variables": (
        ".claude/settings.json",
        json.dumps(
            {
                "env": {
                    "npm_config_script_shell": "./tools/sh",
                    "npm_config_node_options": "--require ./tools/p.js",
                }
            }
        ),
        {},
        "tools/p.js",
    ),
    "git's settings given in variables": (
        ".claude/settings.json",
        json.dumps(
            {
                "env": {
                    "GIT_CONFIG_COUNT": "1",
                    "GIT_CONFIG_KEY_0": "core.fsmonitor",
                    "GIT_CONFIG_VALUE_0": "tools/fsmon",
                }
            }
        ),
        {},
        "tools/fsmon",
    ),
    "what a GIT_CONFIG_GLOBAL file includes": (
        ".claude/settings.json",
        json.dumps({"env": {"GIT_CONFIG_GLOBAL": "tools/gc"}}),
        {
            "tools/gc": "[include]\n\tpath = more.gc\n",
            "tools/more.gc": "[core]\n\tpager = ./tools/pg\n",
        },
        "tools/more.gc",
    ),
    "an npmrc named by a variable in any case": (
        ".vscode/tasks.json",
        json.dumps(
            {
                "tasks": [
                    {
                        "label": "l",
                        "command": "npm run lint",
                        "options": {"env": {"npm_config_userconfig": "tools/npmrc"}},
                        "runOptions": {"runOn": "folderOpen"},
                    }
                ]
            }
        ),
        {"tools/npmrc": "script-shell=./tools/sh\n", "package.json": "{}"},
        "tools/sh",
    ),
    "a command line setting": (
        ".vscode/settings.json",
        json.dumps({"jest.jestCommandLine": "node ./tools/jest.js"}),
        {},
        "tools/jest.js",
    ),
    "compose's file above the folder": (
        ".vscode/tasks.json",
        folder_open_tasks("cd web && docker compose up"),
        {"compose.yaml": "services: {}\n", "web/x": ""},
        "compose.yaml",
    ),
    "compose's file named by the .env": (
        ".vscode/tasks.json",
        folder_open_tasks("docker compose up"),
        {".env": "COMPOSE_FILE=ops/c.yaml\n", "ops/c.yaml": "services: {}\n"},
        "ops/c.yaml",
    ),
}


@pytest.mark.parametrize("form", MORE_FORMS)
def test_more_forms_of_what_host_tools_run_are_held(tmp_path, form):
    settings, text_of_it, others, held = MORE_FORMS[form]
    for name, content in {settings: text_of_it, **others}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    assert held in named(tmp_path), named(tmp_path)


def test_a_dictionary_or_a_preview_page_an_editor_setting_names_is_data(tmp_path):
    (tmp_path / ".vscode").mkdir()
    settings = {
        "cSpell.customDictionaries": {"words": {"path": "${workspaceRoot}/project-words.txt"}},
        "livePreview.defaultPreviewPath": "./index.html",
    }
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "project-words.txt").write_text("planloop\n")
    (tmp_path / "index.html").write_text("<p>\n")
    assert named(tmp_path) == set()


def test_a_vs_code_workspace_file_is_protected_wherever_it_lies(tmp_path):
    # VS Code offers to open one found in the folder; its folderOpen tasks then run.
    assert "workspace file" in protected_reason(tmp_path, "dev.code-workspace")
    assert "workspace file" in protected_reason(tmp_path, "tools/team.code-workspace")
    assert protected_reason(tmp_path, "notes.code-workspace.md") is None


@pytest.mark.parametrize(
    ("settings", "held"),
    [
        ({"prolog.executablePath": "./tools/swipl"}, "tools/swipl"),  # `prolog`: no data word
        ({"markdown-preview-enhanced.pandocPath": "./tools/pandoc"}, "tools/pandoc"),
        ({"go.alternateTools": {"go": "./tools/go"}}, "tools/go"),
        ({"eslint.execArgv": ["--require", "./tools/pre.js"]}, "tools/pre.js"),
        ({"rust-analyzer.server.extraEnv": {"RUSTC_WRAPPER": "./tools/wrap"}}, "tools/wrap"),
        (
            {"jest.virtualFolders": [{"name": "a", "jestCommandLine": "node tools/j.js"}]},
            "tools/j.js",
        ),
        # A toolchain's folder, whose programs the extension runs.
        ({"go.goroot": "./tools/goroot"}, "tools/goroot"),
        ({"dart.sdkPath": "./tools/dart-sdk"}, "tools/dart-sdk"),
        ({"java.jdt.ls.java.home": "./tools/jdk"}, "tools/jdk"),
        ({"go.toolsEnvVars": {"GOFLAGS": "-toolexec=./tools/tx"}}, "tools/tx"),
        ({"php.executables": {"v8.2": "./tools/php"}}, "tools/php"),
        ({"clangd.arguments": ["--query-driver=./tools/cc"]}, "tools/cc"),
        ({"foo.templateCommand": "./tools/t"}, "tools/t"),
    ],
)
def test_more_of_what_vs_code_settings_run_is_held(tmp_path, settings, held):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / held).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / held).write_text("")
    assert held in named(tmp_path), named(tmp_path)


def test_a_built_in_named_like_a_script_an_odd_dependency_path_and_an_unbuilt_tarball(tmp_path):
    # `pnpm dedupe` installs (and runs local dependencies' scripts) even where package.json
    # has a `dedupe` script; npm takes `.libs/x` as a folder; a tarball not built yet is
    # watched, not asked about.
    (tmp_path / ".vscode").mkdir()
    task = {"label": "d", "command": "pnpm dedupe", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    dependencies = {"x": ".libs/x", "z": "file:./vendor/z.tgz"}
    package = {"scripts": {"dedupe": "echo"}, "dependencies": dependencies}
    (tmp_path / "package.json").write_text(json.dumps(package))
    (tmp_path / ".libs" / "x").mkdir(parents=True)
    (tmp_path / ".libs/x/package.json").write_text('{"scripts": {"postinstall": "sh x.sh"}}')
    assert ".libs/x/x.sh" in named(tmp_path)
    configs = scan_for_file_tools(tmp_path).tool_configs
    watched = {str(p.relative_to(tmp_path)) for p, _ in tool_scripts(tmp_path, configs).when_there}
    assert "vendor/z.tgz" in watched
    assert tool_script_not_held(tmp_path, configs) is not None  # .libs/x/x.sh is not made
    (tmp_path / ".libs/x/x.sh").write_text("")
    assert tool_script_not_held(tmp_path, configs) is None


def test_a_path_a_host_tool_sets_holds_its_folders_once_made(tmp_path):
    # `.venv/bin` or `tools` before they exist: watched, held once made, reported if a
    # command makes one; the workspace itself on it makes commands ask.
    env = {"PATH": "${workspaceFolder}/tools:/usr/bin", "PYTHONPATH": "${workspaceFolder}"}
    task = {"label": "e", "command": "eslint .", "options": {"env": env}}
    task["runOptions"] = {"runOn": "folderOpen"}
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    configs = scan_for_file_tools(tmp_path).tool_configs
    watched = {p for p, _ in tool_scripts(tmp_path, configs).when_there}
    assert tmp_path / "tools" in watched
    assert tool_script_not_held(tmp_path, configs) is None  # PYTHONPATH: the project's code
    env["PATH"] = ".:/usr/bin"
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [task]}))
    assert "the workspace itself" in tool_script_not_held(tmp_path, configs)


def test_a_path_exported_in_a_hook_counts_for_the_commands_after_it(tmp_path):
    (tmp_path / ".claude").mkdir()
    hook = {"hooks": [{"command": "export PATH=tools:$PATH; prettier --write ."}]}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": [hook]}}))
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert tmp_path / "tools" in {p for p, _ in tool_scripts(tmp_path, configs).when_there}


def claude_hook(command: str, env: dict | None = None) -> str:
    """Claude Code's settings with one hook running `command` (and an `env` for every hook)."""
    settings = {"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": command}]}]}}
    return json.dumps({**settings, **({"env": env} if env else {})})


FSMON = {"tools/fsm": "#!/bin/sh\n"}
INCLUDED = {"tools/inc": "[core]\n\tfsmonitor = tools/fsm\n", **FSMON}
GITCONFIG_HOME = {"tools/h/.gitconfig": "[core]\n"}
FMT_TOOL = {"tools/fmt": "#!/bin/sh\n"}
# Forms of what a hook runs that a command could change: (hook line, its env table, the files
# there, what is held: a path, or "asks" for commands that ask instead).
HOOK_FORMS = {
    "an include given to git with -c": (
        "git -c include.path=tools/inc status",
        {},
        INCLUDED,
        "tools/fsm",
    ),
    "what an include given in a variable runs": (
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=include.path GIT_CONFIG_VALUE_0=tools/inc git st",
        {},
        INCLUDED,
        "tools/fsm",
    ),
    "--config-env in two words": (
        "FSM=tools/fsm git --config-env core.fsmonitor=FSM status",
        {},
        FSMON,
        "tools/fsm",
    ),
    "--config-env of a variable the hooks' env sets": (
        "git --config-env=core.fsmonitor=FSM status",
        {"FSM": "tools/fsm"},
        FSMON,
        "tools/fsm",
    ),
    "HOME set by readonly": ("readonly HOME=tools/h; git status", {}, GITCONFIG_HOME, "tools/h"),
    "HOME set by a function's local": (
        "f() { local HOME=tools/h; git status; }; f",
        {},
        GITCONFIG_HOME,
        "tools/h",
    ),
    "HOME from where a cd went": (
        "cd tools/h && HOME=$PWD git status",
        {},
        GITCONFIG_HOME,
        "tools/h",
    ),
    "XDG_CONFIG_DIRS as a list": ("XDG_CONFIG_DIRS=/etc/xdg:tools/x git status", {}, {}, "tools/x"),
    "python fed code by echo": (
        "echo 'import fmt; fmt.main()' | python3",
        {},
        {"fmt.py": ""},
        "fmt.py",
    ),
    "python given a here-string": ("python3 - <<< 'import fmt'", {}, {"fmt.py": ""}, "fmt.py"),
    "a shell given a here-string": ("sh <<< '. tools/x.sh'", {}, {"tools/x.sh": ""}, "tools/x.sh"),
    "a PATH made from the top of the tree": (
        'PATH="$(git rev-parse --show-toplevel)/tools:$PATH" prettier --write .',
        {},
        {"tools/prettier": ""},
        "tools",
    ),
    "npm's git given as a variable": (
        "npm_config_git=./tools/g npm install",
        {},
        {"tools/g": ""},
        "tools/g",
    ),
    "PYTHONHOME": ("PYTHONHOME=tools/ph python3 -c pass", {}, {"tools/ph/x": ""}, "tools/ph"),
    "go's -toolexec in GOFLAGS": (
        "GOFLAGS=-toolexec=./tools/tx go vet ./...",
        {},
        {"tools/tx": ""},
        "tools/tx",
    ),
    "an OpenSSL config": (
        "OPENSSL_CONF=tools/o.cnf openssl version",
        {},
        {"tools/o.cnf": ""},
        "tools/o.cnf",
    ),
    "lua's init file": ("LUA_INIT=@tools/x.lua lua -v", {}, {"tools/x.lua": ""}, "tools/x.lua"),
    "python -Bc": ("python3 -Bc 'import fmt'", {}, {"fmt.py": ""}, "fmt.py"),
    "a path held in a variable and run": (
        "python3 -c 'p = \"tools/x.py\"; exec(open(p).read())'",
        {},
        {"tools/x.py": ""},
        "tools/x.py",
    ),
    "node --import=": ("node --import=./tools/x.mjs -e 1", {}, {"tools/x.mjs": ""}, "tools/x.mjs"),
    "node --env-file=": (
        "node --env-file=tools/e.env -e 1",
        {},
        {"tools/e.env": ""},
        "tools/e.env",
    ),
    "node --eval=": (
        "node --eval='require(\"./tools/x.js\")'",
        {},
        {"tools/x.js": ""},
        "tools/x.js",
    ),
    "a require from process.cwd()": (
        "node -e 'require(process.cwd() + \"/tools/x.js\")'",
        {},
        {"tools/x.js": ""},
        "tools/x.js",
    ),
    "ruby's load of a path without ./": (
        "ruby -e 'load \"tools/x.rb\"'",
        {},
        {"tools/x.rb": ""},
        "tools/x.rb",
    ),
    "python's sys.path and an import": (
        "python3 -c 'import sys; sys.path.insert(0, \"tools\"); import hk'",
        {},
        {"tools/hk.py": ""},
        "tools/hk.py",
    ),
    "HOME read from input": ("read HOME <<< tools/h; git status", {}, {}, "asks"),
    "HOME added to": ("declare HOME+=/../tools/h; git status", {}, {}, "asks"),
    # (pass 26)
    "a program inline python starts": (
        "python3 -c 'import os; os.system(\"./tools/fmt\")'",
        {},
        {"tools/fmt": ""},
        "tools/fmt",
    ),
    "a program node starts": (
        'node -e \'require("child_process").execSync("./tools/fmt")\'',
        {},
        {"tools/fmt": ""},
        "tools/fmt",
    ),
    "a program in subprocess's list": (
        'python3 -c \'import subprocess; subprocess.run(["tools/fmt", "-q"])\'',
        {},
        {"tools/fmt": ""},
        "tools/fmt",
    ),
    "run_path of a path without ./": (
        "python3 -c 'import runpy; runpy.run_path(\"tools/fmt\")'",
        {},
        {"tools/fmt": ""},
        "tools/fmt",
    ),
    "HOME from realpath": ("HOME=$(realpath tools/h) git status", {}, GITCONFIG_HOME, "tools/h"),
    "HOME from a cd's pwd": (
        "export HOME=$(cd tools/h && pwd); git status",
        {},
        GITCONFIG_HOME,
        "tools/h",
    ),
    "HOME set by eval": ("eval HOME=tools/h; git status", {}, GITCONFIG_HOME, "tools/h"),
    "HOME from dirs": ("pushd tools/h >/dev/null; HOME=$(dirs -l +0) git status", {}, {}, "asks"),
    "HOME from OLDPWD": ("cd tools/h && cd ../.. && HOME=$OLDPWD git status", {}, {}, "asks"),
    "HOME through a nameref": ("declare -n r=HOME; r=tools/h; git status", {}, {}, "asks"),
    "code fed through a wrapper": (
        "echo 'import fmt' | timeout 10 python3",
        {},
        {"fmt.py": ""},
        "fmt.py",
    ),
    "code echoed unquoted": ("echo import fmt | python3", {}, {"fmt.py": ""}, "fmt.py"),
    "code printf fills in": ("printf 'import %s\\n' fmt | python3", {}, {"fmt.py": ""}, "fmt.py"),
    "a reader's here-string fed on": (
        "cat <<< 'import fmt' | python3",
        {},
        {"fmt.py": ""},
        "fmt.py",
    ),
    "code from a process substitution": (
        "python3 < <(echo 'import fmt')",
        {},
        {"fmt.py": ""},
        "fmt.py",
    ),
    # (pass 27)
    "a program started with its arguments": (
        "python3 -c 'import os; os.system(\"./tools/fmt --write\")'",
        {},
        {"tools/fmt": ""},
        "tools/fmt",
    ),
    "a script an argv list gives a shell": (
        'python3 -c \'import subprocess; subprocess.run(["sh", "tools/x.txt"])\'',
        {},
        {"tools/x.txt": ""},
        "tools/x.txt",
    ),
    "an argv given as args=": (
        "python3 -c 'import subprocess; subprocess.run(args=[\"tools/fmt\"])'",
        {},
        {"tools/fmt": ""},
        "tools/fmt",
    ),
    "posix_spawn": (
        "python3 -c 'import os; os.posix_spawn(\"tools/fmt\", [], {})'",
        {},
        {"tools/fmt": ""},
        "tools/fmt",
    ),
    "a script named by a variable of the line": (
        'X=tools/fmt; bash -c "$X"',
        {},
        FMT_TOOL,
        "tools/fmt",
    ),
    "HOME set by eval of a variable of the line": (
        "X='HOME=tools/h'; eval \"$X\"; git status",
        {},
        GITCONFIG_HOME,
        "tools/h",
    ),
    "code yes feeds": ("yes 'import fmt' | head -n1 | python3", {}, {"fmt.py": ""}, "fmt.py"),
    # (pass 28)
    "a line given with shell=True in an f-string": (
        "python3 -c 'import subprocess as s, sys; s.run(f\"./tools/fmt {sys.argv}\", shell=True)'",
        {},
        FMT_TOOL,
        "tools/fmt",
    ),
    "an argv with a variable in it": (
        'python3 -c \'import subprocess, sys; subprocess.run(["sh", "fmt.sh", sys.argv[0]])\'',
        {},
        {"fmt.sh": ""},
        "fmt.sh",
    ),
    "a program started in another folder": (
        'python3 -c \'import subprocess; subprocess.run(["./fmt"], cwd="tools")\'',
        {},
        FMT_TOOL,
        "tools/fmt",
    ),
    "perl's qx": ("perl -e 'print qx{./tools/fmt --check}'", {}, FMT_TOOL, "tools/fmt"),
    "what find finds, run": (
        "find tools/hooks -name '*.sh' -exec sh {} \\;",
        {},
        {"tools/hooks/a.sh": ""},
        "tools/hooks",
    ),
    "run-parts": ("run-parts tools/hooks", {}, {"tools/hooks/a": ""}, "tools/hooks"),
    # (pass 29)
    "find's folders after its options": (
        "find -L tools/hooks -type f -exec env {} \\;",
        {},
        {"tools/hooks/a": ""},
        "tools/hooks",
    ),
    "run-parts with a value option": (
        "run-parts --regex '.*' tools/hooks",
        {},
        {"tools/hooks/a": ""},
        "tools/hooks",
    ),
    "perl's system without parentheses": (
        "perl -e 'system \"./tools/fmt --check\"'",
        {},
        FMT_TOOL,
        "tools/fmt",
    ),
    "a line kept in a variable": (
        "python3 -c 'import subprocess as s; c = \"./tools/fmt --write\"; s.run(c, shell=True)'",
        {},
        FMT_TOOL,
        "tools/fmt",
    ),
    "a loop over a folder's files": ('for f in tools/hooks/*; do "$f"; done', {}, {}, "asks"),
    "a folder the code makes": (
        'python3 -c \'import os, subprocess as s; s.run(["./fmt"], cwd=os.path.join("a"))\'',
        {},
        {},
        "asks",
    ),
}


@pytest.mark.parametrize("form", HOOK_FORMS)
def test_what_a_hook_runs_through_gits_settings_variables_and_code_on_its_input_is_held(
    tmp_path, form
):
    line, env, files, expected = HOOK_FORMS[form]
    for name, content in {".claude/settings.json": claude_hook(line, env), **files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    configs = scan_for_file_tools(tmp_path).tool_configs
    found = tool_scripts(tmp_path, configs)
    held = {str(p.relative_to(tmp_path)) for p, _ in [*found.named, *found.when_there]}
    if expected == "asks":
        assert tool_script_not_held(tmp_path, configs), held
    else:
        assert expected in held, held


@pytest.mark.parametrize(
    "line",
    [
        # A log a hook appends to, and the package.json it reads its version from: data.
        "node -e \"require('fs').appendFileSync('./.claude/edits.log', 'edit')\"",
        "node -e \"console.log(require('./package.json').version)\"",
        "python3 -c \"open('./logs/hook.log', 'a').write('x')\"",
        # Programs started by their name, found on PATH: no file of the workspace.
        "python3 -c \"import subprocess; subprocess.run(['git', 'status'])\"",
        "node -e \"require('child_process').execSync('prettier --check .')\"",
        "python3 -c \"import os; os.system('prettier --write .')\"",
        "python3 -c \"import subprocess; subprocess.run(['npx', 'prettier', '--write', '.'])\"",
        # Settings and sources a hook reads as data; names find and xargs fill in.
        "python3 -c \"import tomllib; tomllib.load(open('./pyproject.toml', 'rb'))\"",
        "node -e \"require('fs').readFileSync('./src/index.ts')\"",
        "find . -name '*.py' -exec black {} +",
        "jq -r '.tool_input.file_path' | xargs -I{} npx prettier --write {}",
        'echo "$(date): $(jq -r .tool_name)" >> .claude/hooks.log',
        # Folders and patterns given to a program from code, and find's checkers.
        "python3 -c \"import subprocess; subprocess.run(['pytest', 'src/'])\"",
        "python3 -c \"import subprocess; subprocess.run(['go', 'vet', './...'])\"",
        "find . -name '*.py' -exec python3 -m black {} +",
        "find src -name '*.sh' -exec bash -n {} \\;",
        "python3 -c \"import subprocess; subprocess.run(['./gradlew', 'lint'], cwd='android')\"",
        # Claude Code's usual python hook: its input read with json.load, a pattern compiled.
        "python3 -c \"import json, re, sys; d = json.load(sys.stdin); re.compile(r'src/.*');"
        " open('.claude/edits.log', 'a').write(d['tool_name'])\"",
    ],
)
def test_data_an_inline_hook_reads_or_writes_is_not_held_and_asks_nothing(tmp_path, line):
    (tmp_path / "package.json").write_text('{"version": "1.0.0"}')
    (tmp_path / "src").mkdir()
    (tmp_path / "src/index.ts").write_text("")
    (tmp_path / "android").mkdir()
    (tmp_path / "android/gradlew").write_text("")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(claude_hook(line))
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert tool_script_not_held(tmp_path, configs) is None
    assert "src/index.ts" not in named(tmp_path)
    # prettier takes its config from package.json's "prettier" key (its `plugins` are code).
    assert ("package.json" in named(tmp_path)) == ("prettier" in line), named(tmp_path)


# A hook's lines through git's settings on its line, code on an interpreter's input and HOME
# set by a builtin: (the line, the file a command would rewrite, what that file then holds).
HOOK_LINES = [
    ("git -c include.path=$PWD/tools/inc status", "tools/fsm", "#!/bin/sh\ntouch {marker}\n"),
    ("echo 'import fmt' | python3", "fmt.py", "open('{marker}', 'w')\n"),
    (
        "readonly HOME=tools/h; git status",
        "tools/h/.gitconfig",
        "[core]\n\tfsmonitor = touch {marker}; false\n",
    ),
]


@needs_bwrap
def test_a_command_cannot_rewrite_what_a_hook_reaches_through_git_code_input_or_home(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    subprocess.run([*prefix(user), "git", "init", "-q", str(workspace)], check=True)
    make(workspace / "tools/inc", "[core]\n\tfsmonitor = tools/fsm\n", user, mode=0o644)
    make(workspace / "tools/fsm", "#!/bin/sh\nfalse\n", user)
    make(workspace / "fmt.py", "", user, mode=0o644)
    make(workspace / "tools/h/.gitconfig", "[user]\n\tname = x\n", user, mode=0o644)
    hooks = [{"type": "command", "command": line} for line, _, _ in HOOK_LINES]
    settings = {"hooks": {"PostToolUse": [{"hooks": hooks}]}}
    make(workspace / ".claude/settings.json", json.dumps(settings), user, mode=0o644)
    marker = home / "planted-ran"
    rewrite = " ".join(
        f"printf %s {json.dumps(content.format(marker=marker))} > {path};"
        for _, path, content in HOOK_LINES
    )
    api.add({"content": [tool_use("bash", {"command": rewrite + " echo finished"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert "finished" in ran
    assert ran.count("Read-only file system") == len(HOOK_LINES), ran
    for line, _, _ in HOOK_LINES:  # the hooks, as Claude Code runs them after its next edit
        hook = [*prefix(user), "sh", "-c", line]
        subprocess.run(hook, cwd=workspace, env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert not marker.exists()


def test_the_folders_editor_extensions_load_their_code_from_are_held(tmp_path):
    # ESLint's and Prettier's modules and the workspace's TypeScript run when the folder is
    # opened: a folder that is there is held whole, one not made yet is told once made.
    for folder in ("tools/nodep/eslint", "node_modules/prettier", ".yarn/sdks/typescript/lib"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "index.js").write_text("module.exports = {}\n")
    settings = {
        "eslint.nodePath": "./tools/nodep",
        "prettier.prettierPath": "node_modules/prettier",
        "typescript.tsdk": ".yarn/sdks/typescript/lib",
        "stylelint.stylelintPath": "node_modules/stylelint",  # not installed yet
        "python.analysis.extraPaths": ["./src"],  # the project's own code
    }
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    held = {"tools/nodep", "node_modules/prettier", ".yarn/sdks/typescript/lib"}
    assert named(tmp_path) == held
    later = tool_files_when_there(tmp_path, [tmp_path / ".vscode"])
    assert {
        str(path.relative_to(tmp_path)) for path, why in later if why == EDITOR_CODE_REASON
    } == {
        *held,
        "node_modules/stylelint",
    }
    assert tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) is None  # nothing asks


# (settings, the file they name, a command that rewrites it, one that makes another they
# name, and what the person is told of that one)
EDITOR_LOADS = [
    (
        '{"typescript.tsdk": "node_modules/typescript/lib", "eslint.nodePath": "tools/lint"}',
        "node_modules/typescript/lib/tsserver.js",
        'echo \'require("child_process").execSync("id")\' > '
        "node_modules/typescript/lib/tsserver.js",
        "mkdir -p tools/lint && echo 'module.exports = {}' > tools/lint/index.js",
        ("tools/lint is new", "an editor extension loads code from it"),
    ),
    (  # a dotenv file whatever its name: an LD_PRELOAD there runs in what the extension starts
        '{"python.envFile": "config/py.vars", "go.testEnvFile": "tools/test.vars"}',
        "config/py.vars",
        "echo LD_PRELOAD=$PWD/evil.so >> config/py.vars",
        "mkdir tools; echo X=1 > tools/test.vars",
        ("tools/test.vars is new", "an editor extension loads its variables"),
    ),
    (  # a program not built yet (most projects' `tools/ruff`): made, it is what the editor runs
        '{"ruff.path": ["${workspaceFolder}/tools/ruff"], '
        '"rust-analyzer.check.overrideCommand": ["${workspaceFolder}/tools/check.sh", "--json"]}',
        "tools/check.sh",
        "echo 'touch /tmp/x' >> tools/check.sh",
        "printf '#!/bin/sh\\n' > tools/ruff; chmod +x tools/ruff",
        ("tools/ruff is new", "an editor extension runs it"),
    ),
    (  # clangd runs each compiler its --query-driver globs match to learn its include paths
        '{"clangd.arguments": ["--query-driver=/usr/bin/gcc,${workspaceFolder}/tc/bin/*gcc"]}',
        "tc/bin/arm-gcc",
        "echo 'touch /tmp/x' >> tc/bin/arm-gcc",
        "printf '#!/bin/sh\\n' > tc/bin/new-gcc",
        ("tc/bin/new-gcc is new", "an editor extension runs it"),
    ),
]


@needs_bwrap
@pytest.mark.parametrize(
    ("settings", "kept", "plant", "made", "told"),
    EDITOR_LOADS,
    ids=["code", "dotenv", "program", "glob"],
)
def test_a_command_cannot_rewrite_what_an_editor_extension_loads(
    api, env, user_folders, settings, kept, plant, made, told
):
    user, workspace, planloop_home, home = user_folders
    make(workspace / ".vscode" / "settings.json", settings, user, 0o644)
    real = "// the real one\n"
    make(workspace / kept, real, user, 0o644)
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("bash", {"command": made})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    rewritten, new = tool_results(api)
    assert "Read-only file system" in rewritten
    assert (workspace / kept).read_text() == real
    assert told[0] in new and told[1] in result.stderr, result.stderr


def test_the_dotenv_files_editor_extensions_load_are_held_whatever_their_name(tmp_path):
    # The Python extension gives what it starts (run, tests, terminals) the variables of
    # `python.envFile`, Go's tests those of `go.testEnvFile`: an LD_PRELOAD added there runs.
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "py.vars").write_text("FOO=1\n")
    settings = {
        "python.envFile": "${workspaceFolder}/config/py.vars",
        "go.testEnvFile": "tools/test.vars",  # not made yet
    }
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    assert named(tmp_path) == {"config/py.vars"}
    later = tool_files_when_there(tmp_path, [tmp_path / ".vscode"])
    told = {str(path.relative_to(tmp_path)) for path, why in later if why == EDITOR_ENV_FILE_REASON}
    assert told == {"config/py.vars", "tools/test.vars"}
    assert tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) is None  # nothing asks


def test_dotenv_files_past_what_a_look_parses_make_commands_ask(tmp_path):
    # python-dotenv takes microseconds a line, on the loop, before each command: an mcp.json
    # naming one 1 MiB file forty times held SIGTERM off for minutes. Each file is parsed once a
    # look, and past MAX_DOTENV_LINES lines in all, what the rest load cannot be told.
    (tmp_path / "tools").mkdir()
    for script in ("tools/start.py", "hook.so"):
        (tmp_path / script).write_text("")
    (tmp_path / "small.env").write_text("PYTHONSTARTUP=./tools/start.py\n")
    (tmp_path / "one.env").write_text("X=1\n" * (MAX_DOTENV_LINES // 2))
    (tmp_path / "two.env").write_text("LD_PRELOAD=./hook.so\n" + "Y=2\n" * (MAX_DOTENV_LINES // 2))
    files = ["small.env", "one.env", "one.env", "one.env", "two.env"]
    servers = {f"s{i}": {"command": "npx", "envFile": name} for i, name in enumerate(files)}
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "mcp.json").write_text(json.dumps({"servers": servers}))
    configs = [tmp_path / ".vscode"]
    why = tool_script_not_held(tmp_path, configs)
    assert why is not None and "past the 20,000 lines of dotenv files a look reads" in why, why
    assert why.startswith(".vscode/mcp.json names "), why
    (tmp_path / "two.env").write_text("LD_PRELOAD=./hook.so\n")  # one.env read once, not thrice
    assert named(tmp_path) >= {"tools/start.py", "hook.so"}
    assert tool_script_not_held(tmp_path, configs) is None


def continue_servers(root: Path, count: int) -> list[Path]:
    """A repository's Continue MCP servers, one settings file each (any number may be)."""
    (root / ".continue" / "mcpServers").mkdir(parents=True)
    for number in range(count):
        server = f"name: s{number}\ncommand: node\nargs: [tools/s{number}.js]\n"
        (root / ".continue" / "mcpServers" / f"s{number}.yaml").write_text(server)
    return [root / ".continue"]


@pytest.mark.parametrize("signal_came", ["SIGTERM", "Ctrl-C"])
def test_a_signal_during_a_look_stops_it_at_the_next_file(tmp_path, monkeypatch, signal_came):
    # The event loop, which serves Ctrl-C and SIGTERM, waits for a look at the host tools'
    # settings: forty YAML files of 250 KiB held SIGTERM off for 14 s. The signal's own
    # handler counts it at once (cli/signals.py), and the look stops before the next file.
    configs = continue_servers(tmp_path, 3)
    ending, ctrl_c_count = threading.Event(), [0]
    monkeypatch.setattr(event_queues, "ENDING", ending)
    monkeypatch.setattr(event_queues, "CTRL_C_COUNT", ctrl_c_count)
    read = []

    def the_signal_comes_as_the_first_is_read(path, *args):
        read.append(path.name)
        if signal_came == "SIGTERM":
            ending.set()
        else:
            ctrl_c_count[0] += 1
        return read_settings(path, *args)

    monkeypatch.setattr(tool_scripts_module, "read_settings", the_signal_comes_as_the_first_is_read)
    said = "planloop is ending" if signal_came == "SIGTERM" else "Ctrl-C came"
    with pytest.raises(SettingsReadStopped, match=said):
        tool_scripts(tmp_path, configs)
    assert len(read) == 1
    # A look that begins after it (what a stopped command made, taken stock of) reads the
    # settings still, for ENDING_LOOK_SECONDS of CPU time if planloop is ending.
    monkeypatch.setattr(tool_scripts_module, "read_settings", read_settings)
    why = tool_script_not_held(tmp_path, configs)
    assert why is not None and ".js does not exist" in why  # all of them read: commands ask
    if signal_came == "SIGTERM":
        monkeypatch.setattr(event_queues, "ENDING_LOOK_SECONDS", 0)
        with pytest.raises(SettingsReadStopped):
            tool_scripts(tmp_path, configs)


def test_yaml_pairs_and_sets_count_toward_the_entries_a_document_may_hold():
    # `!!pairs` gives tuples and `!!set` a set: a walk that passed them by let a document of
    # hundreds of thousands of nodes through, composed again at every look.
    pairs = "x: !!pairs [" + ", ".join(["{a: [1, 2, 3, 4, 5, 6, 7, 8, 9]}"] * 12_000) + "]\n"
    with pytest.raises(YamlTooLarge):
        read_yaml(pairs)
    members = "\n".join(f"  ? k{number}" for number in range(MAX_YAML_ENTRIES + 1))
    with pytest.raises(YamlTooLarge):
        read_yaml("x: !!set\n" + members + "\n")
    assert read_yaml("x: !!pairs [{a: 1}]\n") == {"x": [("a", 1)]}


def test_slow_settings_are_read_to_a_quarter_of_a_mib_and_one_mib_a_look(tmp_path):
    # libyaml composes 1 MiB of list items in 1.7 s, in one call that no signal interrupts;
    # and thirty files of 250 KiB made one command take minutes.
    configs = continue_servers(tmp_path, 5)
    servers = sorted((tmp_path / ".continue" / "mcpServers").iterdir())
    (tmp_path / "tools").mkdir()
    for number in range(5):
        (tmp_path / "tools" / f"s{number}.js").write_text("")
    assert tool_script_not_held(tmp_path, configs) is None
    big = servers[0]
    big.write_text(big.read_text() + "# padding\n" * (SLOW_SETTINGS_LIMIT // 10))
    assert tool_script_not_held(tmp_path, configs) == (
        f"planloop cannot read {big.relative_to(tmp_path)}, so it cannot tell what its tool runs"
    )
    padding = "# padding\n" * (SLOW_SETTINGS_LIMIT // 10 - 10)  # each just under the bound
    for server in servers:
        server.write_text(server.read_text().partition("# padding")[0] + padding)
    assert tool_scripts(tmp_path, configs).unread == servers[4:]  # (1 MiB in the first four)
    assert "cannot read .continue/mcpServers/s" in tool_script_not_held(tmp_path, configs)


def test_a_program_an_editor_setting_names_is_held_once_made(tmp_path):
    # `ruff.path` before `tools/ruff` is built: told when a command makes it, held once there,
    # and the file tools ask before making it; a value naming a folder is data.
    (tmp_path / "docs").mkdir()
    settings = {"ruff.path": ["${workspaceFolder}/tools/ruff"], "x.serverPath": "./docs"}
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    configs = [tmp_path / ".vscode"]
    assert named(tmp_path) == set()
    later = {str(p.relative_to(tmp_path)) for p, _ in tool_files_when_there(tmp_path, configs)}
    assert later == {"tools/ruff"}
    assert tool_script_not_held(tmp_path, configs) is None  # nothing asks
    assert protected_reason(tmp_path, "tools/ruff") is not None
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "ruff").write_text("#!/bin/sh\n")
    assert named(tmp_path) == {"tools/ruff"}
    assert tool_script_not_held(tmp_path, configs) is None


def test_each_compiler_of_a_query_driver_list_or_glob_is_held(tmp_path, monkeypatch):
    # clangd's `--query-driver` is a comma-separated list of globs (`*` crosses `/`).
    for name in ("tc/bin/arm-gcc", "tc/bin/sub/x-gcc", "tc/bin/ld", "cc/cc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("#!/bin/sh\n")
    drivers = "/usr/bin/gcc,${workspaceFolder}/cc/cc,${workspaceFolder}/tc/bin/*gcc,/opt/*/gcc"
    settings = {"clangd.arguments": ["--background-index", f"--query-driver={drivers}"]}
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    configs = [tmp_path / ".vscode"]
    assert named(tmp_path) == {"cc/cc"}
    matched = {"tc/bin/arm-gcc", "tc/bin/sub/x-gcc"}
    for name in matched:
        assert "editor extension runs this program" in protected_reason(tmp_path, name)
    assert protected_reason(tmp_path, "tc/bin/ld") is None
    assert tool_script_not_held(tmp_path, configs) is None
    (tmp_path / "tc/bin/new-gcc").write_text("")  # told by the next look
    later = {str(p.relative_to(tmp_path)) for p, _ in tool_files_when_there(tmp_path, configs)}
    assert later == {"cc/cc", *matched, "tc/bin/new-gcc"}
    monkeypatch.setattr("tools.tool_scripts.MAX_FOLDER_ENTRIES", 3)  # too big to look through
    assert "tc/bin/*gcc" in tool_script_not_held(tmp_path, configs)


# What an editor's env file names that runs: the Python extension starts tests, the debugger
# and terminals with its variables (`python.envFile`, or `.env` when no setting names one).
ENV_FILE_CODE = (
    "PYTHONPATH=lib\nNODE_OPTIONS=--require ./tools/pre.js\n"
    "PYTHONSTARTUP=./tools/start.py\nLD_PRELOAD=./tools/hook.so\n"
)
ENV_FILE_NAMED = {"lib", "tools/pre.js", "tools/start.py", "tools/hook.so"}
# An editor's: the person runs the project's code from lib/ (tests, the debugger), so only the
# modules python runs at every start count there, held once made.
EDITOR_ENV_FILE_NAMED = ENV_FILE_NAMED - {"lib"}


def watched(root: Path) -> set[str]:
    """What the host tools' settings run once a command makes it, relative to `root`."""
    configs = scan_for_file_tools(root).tool_configs
    return {str(path.relative_to(root)) for path, _ in tool_scripts(root, configs).when_there}


ENV_FILE_SETTINGS = [
    ("config/dev.vars", '{"python.envFile": "${workspaceFolder}/config/dev.vars"}'),
    (".env", None),  # no settings at all: the extension's default
    (".env", "{}"),  # settings that name no env file
]


@pytest.mark.parametrize(("env_file", "settings"), ENV_FILE_SETTINGS)
def test_the_code_an_editor_env_file_names_is_held(tmp_path, env_file, settings):
    for path in (*ENV_FILE_NAMED - {"lib"}, "lib/x.py"):
        make(tmp_path / path, "# real\n", "root")
    make(tmp_path / env_file, ENV_FILE_CODE, "root")
    if settings is not None:
        make(tmp_path / ".vscode" / "settings.json", settings, "root")
    assert named(tmp_path) >= EDITOR_ENV_FILE_NAMED
    assert not {"lib", "lib/x.py"} & named(tmp_path)  # the person's code, theirs to edit
    assert "lib/sitecustomize.py" in watched(tmp_path)


def test_a_named_env_file_takes_the_place_of_the_default_one(tmp_path):
    make(tmp_path / ".env", "PYTHONPATH=old\n", "root")  # not loaded once another is named
    make(tmp_path / "dev.vars", "PYTHONPATH=lib\n", "root")
    make(tmp_path / ".vscode" / "settings.json", '{"python.envFile": "dev.vars"}', "root")
    assert "lib/sitecustomize.py" in watched(tmp_path)
    assert "old/sitecustomize.py" not in watched(tmp_path)


# Each line doubles the one before: 450 bytes that python-dotenv would expand to gigabytes.
DOUBLING_LINES = "V0=0123456789\n" + "".join(
    f"V{n}=${{V{n - 1}}}${{V{n - 1}}}\n" for n in range(1, 23)
)


def test_an_env_file_that_doubles_its_values_costs_no_memory_and_its_paths_still_count(tmp_path):
    make(tmp_path / "tools" / "start.py", "# real\n", "root")
    make(tmp_path / ".env", DOUBLING_LINES + "PYTHONSTARTUP=./tools/start.py\n", "root")
    tracemalloc.start()
    try:
        held = named(tmp_path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * 1024 * 1024, f"{peak} bytes to read a 450-byte .env"
    assert "tools/start.py" in held  # read as written: the plain path is still held


def test_an_env_file_that_doubles_one_of_your_variables_is_not_expanded_either():
    # A value of your environment is the seed (`${PATH}`): the file alone looks harmless.
    doubling = "V0=${SEED}\n" + "".join(f"V{n}=${{V{n - 1}}}${{V{n - 1}}}\n" for n in range(1, 12))
    assert dotenv_bindings(doubling, {"SEED": "x" * 4096}) is None
    assert dotenv_bindings("A=${SEED}/lib\n", {"SEED": "/home/me"}) == {"A": "/home/me/lib"}


def test_the_code_an_mcp_server_s_env_file_names_is_held(tmp_path):
    for path in ENV_FILE_NAMED - {"lib"}:
        make(tmp_path / path, "# real\n", "root")
    make(tmp_path / "tools" / "mcp.env", ENV_FILE_CODE, "root")
    server = {"command": "npx", "envFile": "${workspaceFolder}/tools/mcp.env"}
    make(tmp_path / ".vscode" / "mcp.json", json.dumps({"servers": {"x": server}}), "root")
    assert named(tmp_path) >= ENV_FILE_NAMED | {"tools/mcp.env"}


@needs_bwrap
@pytest.mark.parametrize(("env_file", "settings"), ENV_FILE_SETTINGS[:2], ids=["named", "default"])
def test_a_command_cannot_rewrite_the_code_an_editor_env_file_names(
    api, env, user_folders, env_file, settings
):
    user, workspace, planloop_home, home = user_folders
    make(workspace / env_file, ENV_FILE_CODE, user, 0o644)
    if settings is not None:
        make(workspace / ".vscode" / "settings.json", settings, user, 0o644)
    for path in ("lib/util.py", "tools/pre.js", "tools/start.py", "tools/hook.so"):
        make(workspace / path, "# real\n", user, 0o644)
    plant = "echo x > tools/pre.js; echo x >tools/start.py; echo 'import os' > lib/sitecustomize.py"
    api.add({"content": [tool_use("bash", {"command": plant + "; echo y >> lib/util.py"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (planted,) = tool_results(api)
    assert planted.count("Read-only file system") == 2, planted
    assert (workspace / "tools" / "start.py").read_text() == "# real\n"
    # The project's own code stays the command's to change; a start-up module it makes there
    # is told at once and at the end.
    assert (workspace / "lib" / "util.py").read_text() == "# real\ny\n"
    assert "lib/sitecustomize.py" in planted
    assert "lib/sitecustomize.py" in " ".join(result.stderr.split())


def test_a_carriage_return_at_a_lines_end_is_part_of_the_name_the_shell_runs(tmp_path):
    # bash splits words at blanks and lines at line feeds only: a task's `./watch.sh\r` (a
    # settings file saved with Windows line ends) runs the file `watch.sh\r`, and a CRLF
    # .envrc's `source_env tools/env.sh\r` sources `env.sh\r`.
    (tmp_path / "scripts").mkdir()
    for name in ("watch.sh", "watch.sh\r"):
        (tmp_path / "scripts" / name).write_text("#!/bin/sh\n")
    task = {"label": "w", "command": "./scripts/watch.sh\r", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "tasks.json").write_text(json.dumps({"tasks": [task]}))
    assert named(tmp_path) == {"scripts/watch.sh\r"}
    envrc = "source_env tools/env.sh\r\nexport A=1\r\n"
    assert list(shell_commands(envrc)) == [
        ["source_env", "tools/env.sh\r"],
        ["export", "A=1\r"],
    ]


def test_the_language_servers_and_formatters_of_a_helix_project_are_held(tmp_path):
    (tmp_path / ".helix").mkdir()
    (tmp_path / ".helix" / "languages.toml").write_text(
        '[language-server.mine]\ncommand = "tools/ls.sh"\nargs = ["--stdio"]\n'
        '[[language]]\nname = "python"\nformatter = { command = "tools/fmt.sh" }\n'
    )
    (tmp_path / "tools").mkdir()
    for name in ("ls.sh", "fmt.sh"):
        (tmp_path / "tools" / name).write_text("#!/bin/sh\n")
    assert named(tmp_path) == {"tools/ls.sh", "tools/fmt.sh"}


@pytest.mark.parametrize("odd", ["\x1c", "\x85", "\u2028", "\xa0"])
def test_a_path_version_is_read_as_the_version_managers_break_words_and_lines(tmp_path, odd):
    # Python's splitlines() and split() break at more than asdf and mise do: `path:./a<odd>b`
    # is one word, one line to mise, and it runs that folder's bin/, not ./a's.
    for name in ("a", f"a{odd}b"):
        (tmp_path / name / "bin").mkdir(parents=True)
    (tmp_path / ".tool-versions").write_text(f"nodejs path:{tmp_path}/a{odd}b\n")
    assert f"a{odd}b" in named(tmp_path)


@pytest.mark.parametrize(
    ("line", "runs"),
    [
        ("script-shell=./tools/sh ; the shell", "tools/sh"),  # an inline comment
        ("script-shell = ./tools/sh\x1cx", "tools/sh\x1cx"),  # no line break to npm
        ("script-shell=./tools/sh\x85", "tools/sh\x85"),  # not trimmed by npm
        ("script-shell='./tools/sh'", "tools/sh"),
    ],
)
def test_an_npmrc_is_read_as_npm_reads_it(tmp_path, line, runs):
    (tmp_path / ".vscode").mkdir()
    npm_task = {"type": "npm", "script": "watch", "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode/tasks.json").write_text(json.dumps({"tasks": [npm_task]}))
    (tmp_path / "package.json").write_text('{"scripts": {"watch": "node -e 1"}}')
    (tmp_path / ".npmrc").write_text(line + "\n", newline="")
    assert runs in named(tmp_path)


@pytest.mark.parametrize(
    ("profile", "runs"),
    [
        ({"path": "/bin/bash", "args": ["rcx"]}, "rcx"),  # bash's first operand: its script
        ({"path": "/bin/bash", "env": {"BASH_ENV": "tools/env.sh"}}, "tools/env.sh"),
        ({"path": "tools dir/sh"}, "tools dir/sh"),  # one program, from the folder
    ],
)
def test_the_automation_profile_every_task_runs_through_is_held(tmp_path, profile, runs):
    # VS Code runs each task, a folderOpen one too, as `<path> <args...> -c '<task>'` with
    # the profile's env: what it names runs as a terminal profile's does.
    for name in ("rcx", "tools/env.sh", "tools dir/sh"):
        make(tmp_path / name, "echo setting up\n", "root")
    settings = {"terminal.integrated.automationProfile.linux": profile}
    make(tmp_path / ".vscode/settings.json", json.dumps(settings), "root")
    make(tmp_path / ".vscode/tasks.json", folder_open_tasks("echo hi"), "root")
    assert runs in named(tmp_path), named(tmp_path)
    assert "VS Code" in protected_reason(tmp_path, runs)  # the file tools ask too
    assert tool_script_not_held(tmp_path, [tmp_path / ".vscode"]) is None


# A C compiler's options a host tool sets for what it runs: gopls's `go list` runs cgo, which
# runs gcc with CGO_CFLAGS; make's rules and build scripts run it with CFLAGS and LDFLAGS.
COMPILER_SETTINGS = [
    ({"go.toolsEnvVars": {"CGO_CFLAGS": "-O2 -fplugin=./x.so"}}, "x.so"),
    ({"go.toolsEnvVars": {"CGO_LDFLAGS": "-Wl,-plugin,./lto.so"}}, "lto.so"),
    ({"go.toolsEnvVars": {"CGO_CXXFLAGS": "-Xclang -load -Xclang tc/p.so"}}, "tc/p.so"),
    ({"go.toolsEnvVars": {"CGO_CPPFLAGS": "-fpass-plugin=tc/pass.so"}}, "tc/pass.so"),
    ({"terminal.integrated.env.linux": {"CFLAGS": "-B./tc/"}}, "tc"),
    ({"terminal.integrated.env.linux": {"CFLAGS": "-B tc"}}, "tc"),
    ({"terminal.integrated.env.linux": {"CXXFLAGS": "-wrapper ./tc/w,-v"}}, "tc/w"),
    ({"terminal.integrated.env.linux": {"CFLAGS": "-specs=dev.specs"}}, "dev.specs"),
    ({"terminal.integrated.env.linux": {"LDFLAGS": "-fuse-ld=./tc/ld"}}, "tc/ld"),
    ({"mcp": {"servers": {"s": {"command": "make", "env": {"CFLAGS": "@tc/flags"}}}}}, "tc/flags"),
]


@pytest.mark.parametrize(("settings", "held"), COMPILER_SETTINGS)
def test_what_a_compiler_option_a_host_tool_sets_loads_or_runs_is_held(tmp_path, settings, held):
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    for path in ("x.so", "lto.so", "dev.specs", "tc/p.so", "tc/pass.so", "tc/w", "tc/ld"):
        make(tmp_path / path, "", "root")
    make(tmp_path / "tc/flags", "", "root")
    assert held in named(tmp_path), named(tmp_path)


def test_a_compiler_option_that_loads_nothing_from_the_workspace_holds_nothing(tmp_path):
    # A bare plugin, linker or wrapper name is looked up elsewhere; the plugin's own options,
    # the linker's, and folders to include or link from are no code that runs.
    flags = "-fplugin=annobin -fplugin-arg-annobin-x=./y -fuse-ld=lld -wrapper gdb,--args"
    ld_flags = "-Wl,-plugin-opt=./o -Wl,-rpath,./lib -L./lib"
    settings = {"go.toolsEnvVars": {"CGO_CFLAGS": f"{flags} -I./include", "LDFLAGS": ld_flags}}
    (tmp_path / ".vscode").mkdir()
    (tmp_path / ".vscode" / "settings.json").write_text(json.dumps(settings))
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert named(tmp_path) == set()
    assert tool_script_not_held(tmp_path, configs) is None


@needs_bwrap
@pytest.mark.parametrize(
    ("flags", "files"),
    [("-O2 -fplugin=./x.so", {}), ("-O2 @flags.rsp", {"flags.rsp": "-fplugin=./x.so\n"})],
)
def test_a_command_cannot_rewrite_the_plugin_cgo_s_compiler_loads(
    api, env, user_folders, flags, files
):
    user, workspace, planloop_home, home = user_folders
    settings = {"go.toolsEnvVars": {"CGO_CFLAGS": flags}}
    make(workspace / ".vscode" / "settings.json", json.dumps(settings), user, 0o644)
    for name, content in files.items():  # (an option file, whose options load the plugin)
        make(workspace / name, content, user, 0o644)
    make(workspace / "x.so", "the real plugin\n", user, 0o644)
    api.add({"content": [tool_use("bash", {"command": "echo planted > x.so; echo finished"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (planted,) = tool_results(api)
    assert "x.so: Read-only file system" in planted and "finished" in planted, planted
    assert (workspace / "x.so").read_text() == "the real plugin\n"


# What the options inside a compiler's option files load: an `@file` (nested ones too, and the
# linker's through `-Wl,`) and a gcc specs file (its `%include`s too), as the compiler reads
# them in the folder it runs in.
OPTION_FILES = [
    ({"go.toolsEnvVars": {"CGO_CFLAGS": "-O2 @flags.rsp"}}, {"flags.rsp": "-fplugin=./x.so"}),
    (
        {"go.toolsEnvVars": {"CGO_CFLAGS": "-specs=my.specs"}},
        {"my.specs": "*cc1:\n+ -fplugin=./x.so\n"},
    ),
    (
        {"go.toolsEnvVars": {"CGO_CFLAGS": "--specs my.specs"}},
        {"my.specs": "%include <inc.specs>\n", "inc.specs": "*cc1:\n%{O2:-fplugin=./x.so}\n"},
    ),
    (
        {"terminal.integrated.env.linux": {"CFLAGS": "@${workspaceFolder}/f.rsp"}},
        {"f.rsp": "-O2 @more.rsp", "more.rsp": "'-fplugin=./x.so'"},
    ),
    ({"go.toolsEnvVars": {"CGO_LDFLAGS": "-Wl,@ld.rsp"}}, {"ld.rsp": "-plugin ./x.so"}),
]


@pytest.mark.parametrize(("settings", "files"), OPTION_FILES)
def test_what_a_compiler_s_option_file_loads_is_held(tmp_path, settings, files):
    make(tmp_path / ".vscode" / "settings.json", json.dumps(settings), "root")
    make(tmp_path / "x.so", "", "root")
    for name, content in files.items():
        make(tmp_path / name, content, "root")
    assert {"x.so", *files} <= named(tmp_path), named(tmp_path)
    assert tool_script_not_held(tmp_path, scan_for_file_tools(tmp_path).tool_configs) is None


def test_a_compiler_s_option_file_planloop_cannot_read_makes_commands_ask(tmp_path):
    # Past OPTION_FILES nested files, what the compiler loads is unknown: commands ask.
    settings = {"go.toolsEnvVars": {"CGO_CFLAGS": "@f0.rsp"}}
    make(tmp_path / ".vscode" / "settings.json", json.dumps(settings), "root")
    for index in range(OPTION_FILES_READ):
        make(tmp_path / f"f{index}.rsp", f"@f{index + 1}.rsp", "root")
    (tmp_path / f"f{OPTION_FILES_READ}.rsp").mkdir()
    configs = scan_for_file_tools(tmp_path).tool_configs
    why = tool_script_not_held(tmp_path, configs)
    assert why is not None and f"f{OPTION_FILES_READ}.rsp" in why, why
    (tmp_path / f"f{OPTION_FILES_READ}.rsp").rmdir()
    make(tmp_path / f"f{OPTION_FILES_READ - 1}.rsp", "-O2", "root")
    assert tool_script_not_held(tmp_path, configs) is None


# Where gcc takes the programs it runs (cc1, as, collect2) from, and programs a build runs as it
# runs make's CC: held once made, and until then commands ask (a command could make them).
TASK_WITH_COMPILER_PATH = {
    "version": "2.0.0",
    "tasks": [{"command": "COMPILER_PATH=tc gcc -c m.c", "runOptions": {"runOn": "folderOpen"}}],
}
BUILD_PROGRAM_SETTINGS = [
    ("settings.json", {"go.toolsEnvVars": {"COMPILER_PATH": "./tc"}}, "tc"),
    ("settings.json", {"go.toolsEnvVars": {"GCC_EXEC_PREFIX": "./tc/"}}, "tc"),
    ("tasks.json", TASK_WITH_COMPILER_PATH, "tc"),
    (
        "settings.json",
        {"terminal.integrated.env.linux": {"COMPILER_PATH": "/usr/lib:${workspaceFolder}/tc"}},
        "tc",
    ),
    (
        "settings.json",
        {"go.toolsEnvVars": {"PKG_CONFIG": "./tc/pkg-config --static"}},
        "tc/pkg-config",
    ),
    ("settings.json", {"go.toolsEnvVars": {"GOCACHEPROG": "./tc/cacheprog"}}, "tc/cacheprog"),
    ("settings.json", {"terminal.integrated.env.linux": {"FC": "./tc/gfortran"}}, "tc/gfortran"),
]


@pytest.mark.parametrize(("name", "settings", "held"), BUILD_PROGRAM_SETTINGS)
def test_what_a_build_s_program_variable_names_is_held_or_asked_for(tmp_path, name, settings, held):
    make(tmp_path / ".vscode" / name, json.dumps(settings), "root")
    configs = scan_for_file_tools(tmp_path).tool_configs
    why = tool_script_not_held(tmp_path, configs)
    assert why is not None and "tc" in why, why
    make(tmp_path / "tc" / "cc1", "", "root")
    if held != "tc":
        make(tmp_path / held, "", "root")
    assert held in named(tmp_path), named(tmp_path)
    assert tool_script_not_held(tmp_path, configs) is None
