"""What a host tool's line takes from node_modules by a name (tools/node_packages.py).

`npx prettier` runs node_modules/.bin/prettier, `node -e "require('yaml')"` loads
node_modules/yaml, and an npm script's `eslint .` runs node_modules/.bin/eslint: a sandboxed
command that wrote any of those, or a package they need, would have its code run by the
person's next hook. What is there is held; what a command makes is told.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import pytest
from test_git_programs import make, prefix
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools import node_packages
from tools.node_packages import bin_paths, package_name, package_paths
from tools.paths import scan_for_file_tools
from tools.tool_scripts import tool_scripts

__all__ = ["user_folders"]  # a fixture, used by name below


def package(root: Path, name: str, dependencies: dict | None = None, bins: str = "") -> Path:
    folder = root / "node_modules" / name
    folder.mkdir(parents=True)
    manifest = {"name": name, "dependencies": dependencies or {}}
    (folder / "package.json").write_text(json.dumps(manifest))
    if bins:
        (folder / "bin").mkdir()
        (folder / "bin" / f"{bins}.js").write_text("console.log(1)\n")
        (root / "node_modules" / ".bin").mkdir(exist_ok=True)
        (root / "node_modules" / ".bin" / bins).symlink_to(f"../{name}/bin/{bins}.js")
    return folder


def relative(root: Path, paths: list[Path]) -> set[str]:
    return {str(path.relative_to(root)) for path in paths if path.is_relative_to(root)}


@pytest.mark.parametrize(
    ("word", "name"),
    [("prettier", "prettier"), ("prettier@3.1", "prettier"), ("@scope/pkg@2", "@scope/pkg")],
)
def test_a_package_name_is_told_from_what_names_no_package(word, name):
    assert package_name(word) == name
    assert package_name(f"{word}/lib/x.js") == name
    for other in ("./x", "../x", "/abs/x", "node:fs", "file:x", "-y"):
        assert package_name(other) is None


def test_a_bin_leads_to_its_package_and_all_it_depends_on(tmp_path):
    package(tmp_path, "prettier", {"helper": "1", "missing": "1"}, bins="prettier")
    package(tmp_path, "helper", {"@scope/deep": "1"})
    package(tmp_path, "@scope/deep")
    package(tmp_path, "unrelated")
    (tmp_path / "web").mkdir()
    found = relative(tmp_path, bin_paths("prettier", tmp_path / "web", tmp_path).paths)
    assert {
        "web/node_modules/.bin/prettier",  # nearer, and first if a command makes it
        "node_modules/.bin/prettier",
        "node_modules/prettier",
        "node_modules/helper",
        "node_modules/@scope/deep",
        "node_modules/missing",  # not installed: told if made
    } <= found
    assert "node_modules/unrelated" not in found


def test_a_package_linked_into_a_store_is_held_where_it_leads(tmp_path):
    # pnpm's layout: node_modules/yaml -> .pnpm/yaml@2/node_modules/yaml, and its dependency
    # beside it in the store, found from where the package really lies.
    store = tmp_path / "node_modules/.pnpm/yaml@2/node_modules"
    (store / "yaml").mkdir(parents=True)
    (store / "yaml/package.json").write_text(json.dumps({"dependencies": {"dep": "1"}}))
    (store / "dep").mkdir()
    (store / "dep/package.json").write_text("{}")
    (tmp_path / "node_modules/yaml").symlink_to(".pnpm/yaml@2/node_modules/yaml")
    found = relative(tmp_path, package_paths("yaml", tmp_path, tmp_path).paths)
    assert "node_modules/yaml" in found
    assert "node_modules/.pnpm/yaml@2/node_modules/yaml" in found
    assert "node_modules/.pnpm/yaml@2/node_modules/dep" in found


def test_past_the_packages_held_one_by_one_their_node_modules_is_held_whole(tmp_path, monkeypatch):
    # Each package held is a mount in every sandbox: a test runner's hundreds would cost each
    # command a lot. Past the bound, one mount of node_modules holds them all.
    monkeypatch.setattr(node_packages, "MAX_PACKAGES_HELD", 3)
    package(tmp_path, "tool", {f"dep{n}": "1" for n in range(5)}, bins="tool")
    for n in range(5):
        package(tmp_path, f"dep{n}")
    (tmp_path / "web").mkdir()
    found = relative(tmp_path, bin_paths("tool", tmp_path / "web", tmp_path).paths)
    assert found == {"node_modules", "web/node_modules"}  # (the nearer one: told when made)
    settings = {"hooks": {"Stop": [{"hooks": [{"command": "npx tool --fix"}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps(settings))
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    assert "node_modules" in relative(tmp_path, [path for path, _ in scripts.when_there])
    assert not scripts.untold


@pytest.mark.parametrize(
    ("line", "held"),
    [
        ("npx prettier --write .", "node_modules/prettier"),
        ("npx -y prettier@3 --check .", "node_modules/.bin/prettier"),
        ("node -e \"const y = require('yaml'); y.parse('')\"", "node_modules/yaml"),
        ("node --input-type=module -e \"import 'yaml'\"", "node_modules/yaml"),
        ("npm exec prettier -- --write .", "node_modules/.bin/prettier"),
        ("pnpm exec prettier --write .", "node_modules/.bin/prettier"),
        ("yarn prettier --write .", "node_modules/.bin/prettier"),
        ("npm run lint", "node_modules/.bin/eslint"),  # the script `eslint .`
        ("npm run lint", "node_modules/eslint"),
        ("npm run lint", "node_modules/.bin/node"),  # `node` too: .bin comes first on PATH
    ],
)
def test_what_a_hook_takes_from_node_modules_by_name_is_held_or_told(tmp_path, line, held):
    (tmp_path / "package.json").write_text(
        json.dumps({"scripts": {"lint": "eslint . && node tools/check.js"}})
    )
    package(tmp_path, "prettier", bins="prettier")
    package(tmp_path, "yaml")
    package(tmp_path, "eslint", bins="eslint")
    settings = {"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": line}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps(settings))
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    assert held in relative(tmp_path, [path for path, _ in scripts.when_there])
    assert not scripts.untold


@pytest.mark.parametrize(
    ("line", "config", "settings", "held"),
    [
        (
            'npx --no -- commitlint --edit "$1"',
            ".commitlintrc.json",
            {"extends": ["@commitlint/config-conventional"]},
            ["node_modules/@commitlint/config-conventional", "node_modules/preset"],
        ),
        (
            "npx eslint .",
            ".eslintrc.json",
            {"extends": ["airbnb", "plugin:react/recommended"], "parser": "espree"},
            ["node_modules/eslint-config-airbnb", "node_modules/eslint-plugin-react"],
        ),
        (
            "npx prettier --check .",
            "package.json",
            {"prettier": {"plugins": ["prettier-plugin-x"]}},
            ["node_modules/prettier-plugin-x", "prettier-plugin-x"],  # (a file of it, first)
        ),
        # A plugin the line names by a package's name.
        (
            "npx prettier --plugin prettier-plugin-x --check .",
            ".prettierrc.json",
            {},
            ["node_modules/prettier-plugin-x"],
        ),
        # JSON5, which planloop cannot parse: each name it holds counts.
        (
            "npx prettier --check .",
            ".prettierrc.json5",
            "// the team's\n{plugins: ['prettier-plugin-x'],}",
            ["node_modules/prettier-plugin-x"],
        ),
        # A shared config given as the whole config, and markdownlint-cli2's formatters.
        (
            "npx prettier --check .",
            ".prettierrc.json",
            "@acme/prettier-config",
            ["node_modules/@acme/prettier-config"],
        ),
        (
            "markdownlint-cli2 '**/*.md'",
            ".markdownlint-cli2.jsonc",
            {"outputFormatters": [["markdownlint-cli2-formatter-x"]]},
            ["node_modules/markdownlint-cli2-formatter-x"],
        ),
        # One no package holds it imports as a file from the config's folder.
        (
            "markdownlint-cli2 '**/*.md'",
            ".markdownlint-cli2.jsonc",
            {"customRules": ["rules/x.cjs"], "markdownItPlugins": [["plugins/y.cjs", {}]]},
            ["rules/x.cjs", "plugins/y.cjs"],
        ),
    ],
)
def test_a_package_a_tool_s_data_config_names_is_held_with_what_it_depends_on(
    tmp_path, line, config, settings, held
):
    # The tool the hook runs loads it from node_modules by that name, as `require` would.
    text = settings if config.endswith(".json5") else json.dumps(settings)
    (tmp_path / config).write_text(text)
    package(tmp_path, "@commitlint/config-conventional", {"preset": "1"})
    for name in ("preset", "eslint-config-airbnb", "eslint-plugin-react", "prettier-plugin-x"):
        package(tmp_path, name)
    package(tmp_path, "@acme/prettier-config")
    hook = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": line}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps(hook))
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    assert set(held) <= relative(tmp_path, [path for path, _ in scripts.when_there])


def test_a_hook_that_loads_nothing_by_name_holds_no_package(tmp_path):
    package(tmp_path, "prettier", bins="prettier")
    line = "node tools/hook.js && npx -y ./local-tool"
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": line}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps(settings))
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    assert not [path for path, _ in scripts.when_there if "node_modules" in path.parts]


@needs_bwrap
def test_a_command_cannot_change_what_npx_runs_and_a_new_one_is_told(api, env, user_folders):
    # The person's Claude Code runs `npx prettier --write .` after each edit, and a check that
    # needs yaml: prettier's code, installed in the project, and yaml run outside the sandbox.
    user, workspace, planloop_home, home = user_folders
    line = "npx prettier --write . && node -e \"require('yaml')\""
    hook = {"hooks": {"PostToolUse": [{"hooks": [{"command": line}]}]}}
    make(workspace / ".claude/settings.json", json.dumps(hook), user, mode=0o644)
    make(workspace / "node_modules/prettier/package.json", '{"name": "prettier"}', user, 0o644)
    make(workspace / "node_modules/prettier/bin/prettier.cjs", "console.log(1)\n", user)
    make(workspace / "node_modules/.bin/README", "bins\n", user, mode=0o644)
    os.symlink("../prettier/bin/prettier.cjs", workspace / "node_modules/.bin/prettier")
    if user == "nobody":
        os.lchown(workspace / "node_modules/.bin/prettier", 65534, 65534)
    marker = home / "planted-ran"
    planted = f"require('fs').writeFileSync('{marker}', 'ran')"
    command = (
        f'echo "{planted}" >> node_modules/prettier/bin/prettier.cjs; '
        "rm node_modules/.bin/prettier; "
        f'mkdir -p node_modules/yaml; echo "{planted}" > node_modules/yaml/index.js; '
        "echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert ran.count("Read-only file system") == 2 and "finished" in ran, ran
    assert (workspace / "node_modules/.bin/prettier").is_symlink()
    assert (workspace / "node_modules/prettier/bin/prettier.cjs").read_text() == "console.log(1)\n"
    # Not installed yet, the package the hook requires cannot be held: made, it is told.
    assert "node_modules/yaml is new. It was kept, and the user was told" in ran, ran
    assert "node_modules/yaml (node or npm takes it by name" in result.stderr
    node = subprocess.run(["which", "node"], capture_output=True, text=True).stdout.strip()
    if node:
        subprocess.run(
            [*prefix(user), node, "node_modules/.bin/prettier"],
            cwd=workspace,
            capture_output=True,
            timeout=60,
        )
    assert not marker.exists()


def test_a_husky_hook_that_runs_npx_holds_what_npx_runs(tmp_path):
    # husky 9: core.hooksPath = .husky/_, whose stubs run .husky/pre-commit: `npx lint-staged`
    # runs node_modules/.bin/lint-staged at the person's next commit.
    from tools.git_programs import git_files_when_there

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.hooksPath", ".husky/_"], check=True)
    (tmp_path / ".husky/_").mkdir(parents=True)
    (tmp_path / ".husky/_/pre-commit").write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    (tmp_path / ".husky/pre-commit").write_text("npx lint-staged\n")
    package(tmp_path, "lint-staged", {"micromatch": "4"}, bins="lint-staged")
    found = relative(
        tmp_path, [path for path, _ in git_files_when_there(tmp_path, [tmp_path / ".git"])]
    )
    assert {"node_modules/.bin/lint-staged", "node_modules/lint-staged"} <= found
    assert "node_modules/micromatch" in found  # not installed: told when made


def test_a_bin_that_is_a_script_leads_to_the_package_it_runs(tmp_path):
    # pnpm writes `.bin/tsc` as a shell script that runs ../typescript/bin/tsc: the program's
    # name is not its package's, and no link tells which package it is.
    store = tmp_path / "node_modules/.pnpm/typescript@5/node_modules/typescript"
    (store / "bin").mkdir(parents=True)
    (store / "package.json").write_text('{"name": "typescript"}')
    (store / "bin/tsc").write_text("console.log(1)\n")
    (tmp_path / "node_modules/typescript").symlink_to(".pnpm/typescript@5/node_modules/typescript")
    (tmp_path / "node_modules/.bin").mkdir()
    (tmp_path / "node_modules/.bin/tsc").write_text(
        '#!/bin/sh\nbasedir=$(dirname "$0")\nexec node "$basedir/../typescript/bin/tsc" "$@"\n'
    )
    found = relative(tmp_path, bin_paths("tsc", tmp_path, tmp_path).paths)
    assert "node_modules/.pnpm/typescript@5/node_modules/typescript" in found
    # A script that names nothing found: what it runs may be anywhere in node_modules.
    (tmp_path / "node_modules/.bin/other").write_text("#!/bin/sh\nexec node $X\n")
    assert "node_modules" in relative(tmp_path, bin_paths("other", tmp_path, tmp_path).paths)


@pytest.mark.parametrize(
    ("line", "env"),
    [
        ("node --require=dotenv/config scripts/notify.js", {}),
        ("node --import=dotenv/config scripts/notify.js", {}),
        ("NODE_OPTIONS='--require dotenv/config' node scripts/notify.js", {}),
        ("node -e 1", {"NODE_OPTIONS": "--require=dotenv/config"}),
    ],
)
def test_a_package_node_preloads_by_name_is_held(tmp_path, line, env):
    package(tmp_path, "dotenv")
    hook = {"type": "command", "command": line}
    settings = {"env": env, "hooks": {"Stop": [{"hooks": [hook]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps(settings))
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    assert "node_modules/dotenv" in relative(tmp_path, [path for path, _ in scripts.when_there])


def test_a_fifo_put_where_a_package_json_or_bin_would_be_is_not_waited_on(tmp_path):
    # A command can make these before anything holds them; a plain open() of a FIFO with no
    # writer would stop the scan before each command, and planloop with it.

    (tmp_path / "node_modules/.bin").mkdir(parents=True)
    (tmp_path / "node_modules/yaml").mkdir()
    os.mkfifo(tmp_path / "node_modules/yaml/package.json")
    os.mkfifo(tmp_path / "node_modules/.bin/tool")
    done = threading.Event()
    found: list = []

    def scan() -> None:
        found.append(relative(tmp_path, package_paths("yaml", tmp_path, tmp_path).paths))
        found.append(relative(tmp_path, bin_paths("tool", tmp_path, tmp_path).paths))
        done.set()

    threading.Thread(target=scan, daemon=True).start()
    assert done.wait(timeout=30), "the scan waited on a FIFO"
    assert "node_modules/yaml" in found[0]
    assert "node_modules" in found[1]  # a program whose package cannot be told: all held


def installed(root: Path, name: str, bin_named: str) -> Path:
    """A package installed in `root` whose one program, `bin_named`, is not named after it."""
    folder = package(root, name, bins=bin_named)
    manifest = {"name": name, "bin": {bin_named: f"bin/{bin_named}.js"}}
    (folder / "package.json").write_text(json.dumps(manifest))
    return folder


def held_by_settings(root: Path, line: str) -> set[str]:
    """What a Claude Code hook running `line` in `root` holds, or tells of when made."""
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": line}]}]}}
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text(json.dumps(settings))
    scripts = tool_scripts(root, scan_for_file_tools(root).tool_configs)
    return relative(root, [path for path, _ in [*scripts.named, *scripts.when_there]])


@pytest.mark.parametrize(
    "line", ["npm x @x/cli check", "npm exec --offline -- @x/cli check", "npm run lint"]
)
def test_the_package_npm_exec_runs_is_held_whatever_its_program_is_named(tmp_path, line):
    # npm runs the one program of @x/cli's manifest, xtool, from node_modules/@x/cli: there is
    # no node_modules/.bin/cli to lead there.
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"lint": "npm x @x/cli check"}}))
    installed(tmp_path, "@x/cli", "xtool")
    held = held_by_settings(tmp_path, line)
    assert {"node_modules/@x/cli", "node_modules/.bin/xtool"} <= held


@pytest.mark.parametrize(
    "line",
    [
        'npx --no -- @commitlint/cli --edit "$1"',
        'npm exec -- @commitlint/cli --edit "$1"',
        'npm x @commitlint/cli --edit "$1"',
    ],
)
@pytest.mark.parametrize("is_installed", [True, False])
def test_a_tool_run_by_its_scoped_package_s_name_has_its_own_config_held(
    tmp_path, line, is_installed
):
    # npm runs the program @commitlint/cli's manifest names, commitlint, which reads
    # .commitlintrc.json; one not installed yet (npx downloads it) is taken for its scope's.
    (tmp_path / ".commitlintrc.json").write_text("{}")
    if is_installed:
        installed(tmp_path, "@commitlint/cli", "commitlint")
    assert ".commitlintrc.json" in held_by_settings(tmp_path, line)


@pytest.mark.parametrize(
    "line",
    [
        "cd web && npm exec --offline -- prettier --check .",
        "npm --prefix web exec -- prettier --check .",
        "npm -C web exec -- prettier --check .",
        "npm exec --prefix web --offline -- prettier --check .",
        "npm --loglevel warn --prefix=web x --cache /tmp/c prettier --check .",
        "npx --offline --prefix web prettier --check .",
        "npx -C web prettier --check .",
        "cd web && npx --offline -c 'prettier --check .'",
        "cd web && npm exec --call='prettier --check .'",
        "npx --offline ./web/node_modules/prettier --check .",
    ],
)
def test_the_package_npm_exec_runs_from_the_folder_its_options_name_is_held(tmp_path, line):
    # npm reads its options before the package as npm does: `--prefix web` takes programs from
    # web/node_modules, `-c` runs a line with web/node_modules/.bin first on its PATH, and a
    # package given by its folder is what runs.
    package(tmp_path / "web", "prettier", bins="prettier")
    assert "web/node_modules/prettier" in held_by_settings(tmp_path, line)


@pytest.mark.parametrize(
    "line",
    [
        "npm --prefi web exec --offline -- prettier --check .",
        "npm exec --prefi=web -- prettier --check .",
        "npx --prefi web --offline prettier --check .",
        "npx -yC web prettier --check .",
        "npm --prefi web run fmt",
    ],
)
def test_npm_s_abbreviated_options_are_read_as_npm_expands_them(tmp_path, line):
    # npm takes a word that begins one option alone for that option (`--prefi` is `--prefix`,
    # with a warning), and a bundle of letters for each (`-yC` is `--yes --prefix`): web's
    # prettier is what runs.
    held = held_from_web(tmp_path, line, {"fmt": "prettier --check ."})
    assert "web/node_modules/prettier" in held


@pytest.mark.parametrize(
    "line",
    [
        "npm --browser lint -C web exec --offline -- prettier --check .",
        "npm --no-browser lint --prefix web x prettier --check .",
        "npm --browser=lint -dC web exec -- prettier --check .",
    ],
)
def test_the_word_npm_s_browser_option_takes_is_not_npm_s_command(tmp_path, line):
    # `--browser`, a flag or a program's name, takes the next word that is no short option:
    # `lint` (a script of web's) is its value, and exec runs web's own prettier.
    assert "web/node_modules/prettier" in held_from_web(tmp_path, line, {"lint": "true"})


def held_from_web(root: Path, line: str, scripts: dict[str, str]) -> set[str]:
    """`held_by_settings` of `line` in `root`, with a package in web that has `scripts` and
    its own prettier installed."""
    (root / "web").mkdir()
    (root / "web/package.json").write_text(json.dumps({"scripts": scripts}))
    package(root / "web", "prettier", bins="prettier")
    return held_by_settings(root, line)


@pytest.mark.parametrize(
    "line",
    [
        "npx file:tools/fmt --check",
        "npx file:./tools/fmt",
        "npx fmt@file:tools/fmt",
        "npx tools/fmt/ --check",  # (`tools/fmt` alone is GitHub's user/repo)
        "npx -p ./tools/fmt fmt --check",
        "npx --package=./tools/fmt fmt",
        "npm exec --package ./tools/fmt -- fmt --check",
        "npm --package=file:tools/fmt exec -- fmt",
    ],
)
def test_a_local_package_npx_is_given_by_a_spec_is_held(tmp_path, line):
    # npm links the folder a `file:` spec or a path names and runs the program its manifest
    # lists (tools/fmt/cli.js), as it does for `npx ./tools/fmt`.
    (tmp_path / "tools/fmt").mkdir(parents=True)
    manifest = {"name": "fmt", "bin": {"fmt": "cli.js"}}
    (tmp_path / "tools/fmt/package.json").write_text(json.dumps(manifest))
    (tmp_path / "tools/fmt/cli.js").write_text("#!/usr/bin/env node\n")
    assert "tools/fmt" in held_by_settings(tmp_path, line)


@pytest.mark.parametrize("line", ['npx "$TOOLS"/fmt --check', 'npx -p "file:$TOOLS/fmt" fmt'])
def test_a_package_spec_only_the_shell_can_tell_makes_commands_ask(tmp_path, line):
    # `$TOOLS/fmt` may be any folder's fmt, the workspace's tools/fmt too.
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": line}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps(settings))
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    assert [untold for untold, _ in scripts.untold if untold.may_be(tmp_path / "tools/fmt")]


@pytest.mark.parametrize(
    "line",
    [
        "npm --yes true --package ./tools/fmt exec --offline -- fmt --check",
        "npm --color always --package ./tools/fmt exec -- fmt",
        "npm --if-present false --package=./tools/fmt exec -- fmt",
        "npm --no-yes null -dp --package ./tools/fmt exec -- fmt",
        "npm --yes=exec --package ./tools/fmt -- fmt",  # (`exec` is the command)
        "npm exec --yes true --package ./tools/fmt -- fmt",
        "npm exec fmt --package=./tools/fmt",  # (npm's options wherever they stand)
        "npm exec --yes=./tools/fmt -- fmt",  # (what `--yes` does not take is the package)
    ],
)
def test_a_value_npm_s_flag_takes_does_not_hide_the_options_after_it(tmp_path, line):
    # npm's option parser lets a flag take `true` or `false` after it, and the words its type
    # lists (`--color always`): the `--package` after them is still npm's, and its folder runs.
    (tmp_path / "tools/fmt").mkdir(parents=True)
    manifest = {"name": "fmt", "bin": {"fmt": "cli.js"}}
    (tmp_path / "tools/fmt/package.json").write_text(json.dumps(manifest))
    assert "tools/fmt" in held_by_settings(tmp_path, line)


def test_an_install_after_the_word_npm_s_browser_option_takes_holds_local_packages(tmp_path):
    # `npm --browser test install` installs (`test` is the browser's name), and an install
    # runs the scripts of the local packages the project depends on.
    dependencies = {"x": "file:./libs/x"}
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": dependencies}))
    (tmp_path / "libs/x").mkdir(parents=True)
    member = {"scripts": {"postinstall": "sh x.sh"}}
    (tmp_path / "libs/x/package.json").write_text(json.dumps(member))
    assert "libs/x/x.sh" in held_by_settings(tmp_path, "npm --browser test install")


@needs_bwrap
def test_an_npm_option_read_by_a_list_of_types_makes_commands_ask(tmp_path):
    # `--no-otp x`: npm takes `x` for the option's value or for its command by the option's
    # list of types, which planloop does not take apart: what the hook runs cannot be told.
    from tools.sandbox import Bubblewrap

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    hook = tmp_path / ".git/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nnpm --no-otp x --package ./tools/fmt exec -- fmt\n")
    hook.chmod(0o755)
    box = Bubblewrap()
    box.before_command(tmp_path)
    assert box.must_ask and "--no-otp" in box.must_ask, box.must_ask
