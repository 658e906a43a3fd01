"""A git hook's lines are read as a host tool's are (tools/tool_scripts.py `hook_runs`).

The hook itself is held with `.git` (or `core.hooksPath`), but what it runs by a name reads
files of the working tree: `make lint` the Makefile, `npm test` package.json and npm's .npmrc,
`npx lint-staged` the commands lint-staged's config lists, `lefthook run` lefthook.yml. A
sandboxed command that rewrote one of those would have the person's next `git commit` run it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_git_programs import make, prefix
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.paths import host_tool_settings, protected_reason, scan_for_file_tools
from tools.sandbox import held_when_there_paths
from tools.shell_config import identities, made_since
from tools.tool_scripts import (
    npm_settings,
    tool_files_when_there,
    tool_script_not_held,
    tool_scripts_in,
)

__all__ = ["user_folders"]  # a fixture, used by name below


def repository(root: Path, hooks_path: str = "") -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if hooks_path:
        subprocess.run(["git", "-C", str(root), "config", "core.hooksPath", hooks_path], check=True)
    return root


def hook(root: Path, relative: str, lines: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + lines)
    path.chmod(0o755)


def held(root: Path) -> set[str]:
    settings = host_tool_settings(root, scan_for_file_tools(root))
    return {str(path.relative_to(root)) for path in tool_scripts_in(root, settings)}


def held_once_made(root: Path) -> set[str]:
    settings = host_tool_settings(root, scan_for_file_tools(root))
    found = tool_files_when_there(root, settings) + npm_settings(root, settings)
    return {str(path.relative_to(root)) for path, _ in found}


@pytest.mark.parametrize(
    ("hook_file", "hooks_path"),
    [
        (".git/hooks/pre-commit", ""),
        (".husky/pre-commit", ".husky"),
        (".githooks/pre-push", ".githooks"),
    ],
)
def test_what_a_hook_runs_by_a_name_reads_is_held(tmp_path, hook_file, hooks_path):
    root = repository(tmp_path, hooks_path)
    hook(root, hook_file, 'set -e\nmake lint\nif [ -n "$CI" ]; then\n  npm test\nfi\n')
    (root / "Makefile").write_text("lint:\n\t./lint.sh\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "node test.js"}}))
    assert {"Makefile", "package.json"} <= held(root)
    # One a command could make where make looks first, and npm's settings beside package.json.
    assert {"GNUmakefile", ".npmrc", ".yarnrc.yml"} <= held_once_made(root)
    assert tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root))) is None
    reason = protected_reason(root, "Makefile")
    assert reason is not None and f"git's hook {hook_file} runs it" in reason


@pytest.mark.parametrize(
    ("line", "build_file"),
    [
        # A build tool behind a program that only starts it.
        ("timeout 60 make -s lint", "Makefile"),
        ("flock /tmp/lint.lock make lint", "Makefile"),
        ("nix develop -c make lint", "Makefile"),
        # ... or named by a variable with a default, as hooks let you choose another make.
        ("MAKE=${MAKE:-make}; $MAKE -s lint", "Makefile"),
        ("MAKE=${MAKE:-make}\n$MAKE -s lint", "Makefile"),
        ('"${MAKE:-make}" lint', "Makefile"),
        ("stdbuf -oL just lint", "justfile"),
        # Other tools that read what to run, or code to load, from their folder.
        ("ninja lint", "build.ninja"),
        ("bundle exec rubocop", "Gemfile"),
        ("bundle exec rubocop", ".rubocop.yml"),
        ("rake lint", "Rakefile"),
        ("composer lint", "composer.json"),
        ("deno task lint", "deno.json"),
        ("npx gulp lint", "gulpfile.js"),
        ("cargo make check", "Makefile.toml"),
        ("invoke lint", "tasks.py"),
        ("poetry run poe lint", "pyproject.toml"),
        ("overcommit --run", ".overcommit.yml"),
        ("npx stylelint '**/*.css'", ".stylelintrc.json"),
        ("npx stylelint --custom-formatter=fmt.mjs '**/*.css'", "fmt.mjs"),
        ("swift build", "Package.swift"),
        ("swift package --disable-sandbox lefthook", "Package.resolved"),
        ("swift test", "Package@swift-5.9.swift"),
    ],
)
def test_a_build_tool_a_hook_runs_in_any_form_holds_its_file(tmp_path, line, build_file):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    (root / build_file).write_text("")
    assert build_file in held(root)


def test_swifts_package_programs_hold_its_files_and_its_scripts_still_ask(tmp_path):
    # `swift package X` runs SwiftPM's program, which reads Package.swift (held as a build
    # file's), not a script of swift's own, which planloop cannot read.
    root = repository(tmp_path)
    line = "swift package --build-path .build/lefthook --disable-sandbox lefthook run pre-commit"
    hook(root, ".git/hooks/pre-commit", line + "\n")
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert tool_script_not_held(root, settings) is None
    assert {"Package.swift", "Package.resolved", ".swiftpm"} <= held_once_made(root)
    hook(root, ".git/hooks/pre-push", "swift scripts/check.swift\n")
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "a script run by swift" in (tool_script_not_held(root, settings) or "")


def test_a_hook_in_another_language_is_read_as_its_code(tmp_path):
    """A python hook is worked out by python's parser; node's code, whose modules load from
    places only node follows (`require("#fmt")`, `module.paths`), asks."""
    root = repository(tmp_path)
    python = "import subprocess, sys\nsys.exit(subprocess.call(['make', '-s', 'lint']))\n"
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/usr/bin/env python3\n" + python)
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "Makefile" in held(root) and tool_script_not_held(root, settings) is None
    node = 'require("../../scripts/verify.js")(process.argv[2]);\n'
    (root / ".git" / "hooks" / "commit-msg").write_text("#!/usr/bin/env node\n" + node)
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "a hook in node" in (tool_script_not_held(root, settings) or "")


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess\ncmd = ['make', '-s', 'lint']\nsubprocess.call(cmd)\n",
        "import subprocess\nMAKE = 'make'\nsubprocess.call([MAKE, '-s', 'lint'])\n",
    ],
)
def test_a_python_hook_that_keeps_its_command_in_a_variable_is_read(tmp_path, code):
    root = repository(tmp_path)
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/usr/bin/env python3\n" + code)
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    assert "Makefile" in held(root)


PYTHON_HOOKS_READ_PLAINLY = [
    "import subprocess\ndef run(cmd, check=True):\n    return subprocess.run(cmd, check=check)\n"
    "run(['make', 'lint'])\nrun(['npm', 'test'], check=False)\n",
    "import os, subprocess\nsubprocess.run([os.environ.get('MAKE', 'make'), 'lint'])\n",
    "import subprocess, sys\nsubprocess.run(['make', 'lint', 'MSG=' + sys.argv[1]])\n",
    # pre-commit's hook as its 2.x releases wrote it, in python
    "import os, sys\nfrom shutil import which\nINSTALL_PYTHON = '/usr/bin/python3'\n"
    "ARGS = ['hook-impl', '--config=.pre-commit-config.yaml', '--hook-type=pre-commit']\n"
    "HERE = os.path.dirname(os.path.abspath(__file__))\nARGS.append(f'--hook-dir={HERE}')\n"
    "ARGS.extend(sys.argv[1:])\nif os.access(INSTALL_PYTHON, os.X_OK):\n"
    "    CMD = [INSTALL_PYTHON, '-mpre_commit']\nelif which('pre-commit'):\n"
    "    CMD = ['pre-commit']\nelse:\n    raise SystemExit(1)\nCMD.extend(ARGS)\n"
    "os.execvp(CMD[0], CMD)\n",
]


@pytest.mark.parametrize(
    ("code", "build_file"),
    [
        ("import subprocess\nM = 'ma' + 'ke'\nsubprocess.call([M, 'lint'])\n", "Makefile"),
        ("import subprocess as s\ns.call('make lint'.split())\n", "Makefile"),
        ("import subprocess\nsubprocess.run(['make', 'lint'], cwd='web')\n", "web/Makefile"),
        (
            "import os\nos.system(f'make -C {os.path.dirname(__file__)}/../../web')\n",
            "web/Makefile",
        ),
        ("import os\nflag = '-C'\nos.execlp('make', 'make', flag, 'web')\n", "web/Makefile"),
        (
            "import os, sys\nargs = ['lint']\nargs.insert(0, 'make')\nos.execvp(args[0], args)\n",
            "Makefile",
        ),
    ],
)
def test_what_a_python_hook_starts_is_worked_out_and_held(tmp_path, code, build_file):
    """A command a python hook builds (`"ma" + "ke"`, a split line, an f-string, a `cwd`) is
    worked out by python's parser, and what it runs is held."""
    root = repository(tmp_path)
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/usr/bin/env python3\n" + code)
    (root / "web").mkdir()
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    (root / "web" / "Makefile").write_text("lint:\n\ttrue\n")
    assert tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root))) is None
    assert build_file in held(root)


@pytest.mark.parametrize("code", PYTHON_HOOKS_READ_PLAINLY)
def test_a_python_hook_that_names_what_it_starts_leaves_commands_unasked(tmp_path, code):
    root = repository(tmp_path)
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/usr/bin/env python3\n" + code)
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    assert tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root))) is None


@pytest.mark.parametrize(
    ("interpreter", "code", "_what"),
    [
        ("python3", "import subprocess\nsubprocess.run(open('ci/cmd').read().split())\n", "open"),
        ("python3", "from subprocess import run as r\nr(open('ci/cmd').read())\n", "r(open"),
        (
            "python3",
            "import subprocess\nstart = subprocess.run\nstart(['make'])\n",
            "`subprocess.run`",
        ),
        ("python3", "import os\ngetattr(os, 'system')(open('ci/cmd').read())\n", "getattr"),
        ("python3", "exec(open('ci/hook.py').read())\n", "exec"),
        # A function that runs text, taken as a value: what calls it later, and with what.
        ("python3", "r = exec\nr(open('ci/hook.py').read())\n", "r = exec"),
        ("python3", "list(map(eval, open('ci/exprs').read().split()))\n", "map(eval"),
        ("python3", "[eval][0](open('ci/expr').read())\n", "[eval][0]"),
        ("python3", "import importlib\nimportlib.import_module(open('ci/m').read())\n", "import"),
        ("python3", "import pickle\npickle.load(open('ci/state', 'rb'))\n", "pickle"),
        (
            "python3",
            "import glob, subprocess\nfor f in glob.glob('ci/*.sh'):\n"
            "    subprocess.run(['sh', f])\n",
            "f]",
        ),
        (
            "python3",
            "import subprocess\ndef go(c):\n    subprocess.run(c)\ngo(open('ci/cmd').read())\n",
            "subprocess.run(c)",
        ),
        ("perl", "system(qw(make lint));\n", "perl"),
        (
            "node",
            "require('child_process').execSync(require('fs').readFileSync('ci/cmd'))\n",
            "node",
        ),
    ],
)
def test_a_hook_whose_code_starts_what_only_running_tells_makes_commands_ask(
    tmp_path, interpreter, code, _what
):
    """A whole hook in python is read by python's own parser: a program it takes from a file,
    a loop or a call's result asks. In another language, code that starts programs asks."""
    root = repository(tmp_path)
    (root / ".git" / "hooks" / "pre-commit").write_text(f"#!/usr/bin/env {interpreter}\n{code}")
    reason = tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))
    assert reason is not None and ".git/hooks/pre-commit" in reason, reason


def test_a_hook_in_a_language_planloop_cannot_read_makes_commands_ask(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-push", "")
    (root / ".git" / "hooks" / "pre-push").write_text("#!/usr/bin/java --source 21\nclass H {}\n")
    reason = tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))
    assert reason is not None and "a hook run by java" in reason, reason


def test_what_pre_commit_s_local_hooks_run_is_read_as_a_hook_s_lines(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", 'exec pre-commit hook-impl --hook-type=pre-commit "$@"\n')
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        "  - {id: lint, name: lint, entry: make -s lint, language: system}\n"
        "  - {id: mod, name: mod, entry: python3 -m tools.lintmod, language: system}\n"
        "  - {id: again, name: again, entry: pre-commit run, language: system}\n"
    )
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    (root / "tools" / "lintmod").mkdir(parents=True)
    (root / "tools" / "lintmod" / "__main__.py").write_text("print('ok')\n")
    # The Makefile, and the package python takes `tools.lintmod` from (held whole).
    assert {".pre-commit-config.yaml", "Makefile", "tools"} <= held(root)


def test_a_script_a_hook_runs_is_read_as_the_hook_is(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "./scripts/hooks/pre-commit.sh\n. .git/hooks/lint.sh\n")
    hook(root, "scripts/hooks/pre-commit.sh", "make -s -C m1 lint\n")
    (root / ".git" / "hooks" / "lint.sh").write_text("exec make -C m2 lint\n")
    for folder in ("m1", "m2"):
        (root / folder).mkdir()
        (root / folder / "Makefile").write_text("lint:\n\ttrue\n")
    assert {"scripts/hooks/pre-commit.sh", "m1/Makefile", "m2/Makefile"} <= held(root)


@pytest.mark.parametrize(
    "line",
    [
        'sh "~/scripts/lint.sh"',
        '"~/scripts/lint.sh"',
        ". '~/scripts/lint.sh'",
        "sh \\~/scripts/lint.sh",
        'bash ~"/scripts/lint.sh"',
        'X="~/scripts/lint.sh"; sh "$X"',
        "sh -c \"sh '~/scripts/lint.sh'\"",
        "npm run lint",
    ],
)
def test_a_script_a_hook_names_by_a_quoted_tilde_is_the_workspace_s_and_held(tmp_path, line):
    # The shell keeps a quoted `~` as written: git runs the hook from the top of the tree,
    # where it names the folder `~`, not your home.
    root = repository(tmp_path, ".husky")
    hook(root, ".husky/pre-commit", line + "\n")
    hook(root, "~/scripts/lint.sh", "make -s -C m1 lint\n")
    (root / "m1").mkdir()
    (root / "m1" / "Makefile").write_text("lint:\n\ttrue\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"lint": 'sh "~/scripts/lint.sh"'}}))
    assert {"~/scripts/lint.sh", "m1/Makefile"} <= held(root)
    reason = protected_reason(root, "~/scripts/lint.sh")
    assert reason is not None and "runs it" in reason, reason


@pytest.mark.parametrize(
    "line",
    [
        "cd src && sh /proc/self/cwd/check.sh",
        "cd src && /proc/thread-self/cwd/check.sh",
        "cd src && sh /dev/fd/../cwd/check.sh",
        "cd src && sh < /proc/self/cwd/check.sh",
        "sh /proc/self/cwd/src/check.sh",
        "sh /proc/1/cwd/check.sh",
        "cd /proc/self/cwd/src && sh check.sh",
        'PATH="/proc/self/cwd/src:$PATH"\ncheck.sh',
        "make -C src -f /proc/self/cwd/check.mk",
    ],
)
def test_a_path_each_process_reads_as_its_own_in_a_hook_makes_commands_ask(tmp_path, line):
    # /proc/self (and /dev/fd, into it) is the process's that looks the path up: the hook's
    # shell, in the folder it moved to, not planloop's own.
    root = repository(tmp_path, ".husky")
    hook(root, ".husky/pre-commit", line + "\n")
    for folder in (root, root / "src"):
        hook(folder, "check.sh", "echo check\n")
        (folder / "check.mk").write_text("lint:\n\ttrue\n")
    reason = tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))
    assert reason is not None and ".husky/pre-commit" in reason, reason


def test_a_script_a_hook_runs_after_a_cd_is_held_from_there(tmp_path):
    root = repository(tmp_path, ".husky")
    hook(root, ".husky/pre-commit", "cd src && sh check.sh\n")
    hook(root, "src/check.sh", "echo check\n")
    assert "src/check.sh" in held(root)
    assert tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root))) is None


def test_a_standard_module_beside_a_python_script_a_hook_runs_is_held(tmp_path):
    # python puts the script's folder first on its path: `import argparse` in tools/check.py
    # takes tools/argparse.py.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "python3 tools/check.py\n")
    (root / "tools").mkdir()
    (root / "tools" / "check.py").write_text("import argparse\n")
    (root / "tools" / "argparse.py").write_text("")
    assert "tools/argparse.py" in held_once_made(root)


def test_a_workspace_package_a_command_adds_under_a_glob_is_told(tmp_path):
    # `npm run lint --workspaces` runs the script of every package `packages/*` matches, the
    # one a command adds too.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "npm run lint --workspaces --if-present\n")
    (root / "package.json").write_text(json.dumps({"workspaces": ["packages/*"]}))
    (root / "packages" / "a").mkdir(parents=True)
    (root / "packages" / "a" / "package.json").write_text(json.dumps({"scripts": {"lint": "x"}}))
    before = identities(held_when_there_paths(root, scan_for_file_tools(root)))
    (root / "packages" / "new").mkdir()
    (root / "packages" / "new" / "package.json").write_text(json.dumps({"scripts": {"lint": "y"}}))
    made = made_since(before, held_when_there_paths(root, scan_for_file_tools(root)))
    assert {path for path, _ in made} == {root / "packages" / "new" / "package.json"}


def test_the_configs_of_the_tools_a_husky_hook_runs_are_held(tmp_path):
    root = repository(tmp_path, ".husky")
    hook(root, ".husky/pre-commit", "npx lint-staged\n")
    hook(root, ".husky/commit-msg", 'npx --no -- commitlint --edit "$1"\n')
    package = {"lint-staged": {"*.js": "eslint --fix"}}
    (root / "package.json").write_text(json.dumps(package))
    (root / ".lintstagedrc.json").write_text(json.dumps({"*.css": "stylelint"}))
    (root / "commitlint.config.js").write_text("module.exports = {}\n")
    assert {"package.json", ".lintstagedrc.json", "commitlint.config.js"} <= held(root)
    # npx starts node as npm's settings say (`node-options=--require ./x.cjs`).
    assert {".npmrc", "lint-staged.config.js", ".commitlintrc.yml"} <= held_once_made(root)


def hook_running_npm(root: Path, settings: str, text: str) -> str | None:
    """Why commands ask where a pre-commit hook runs an npm script beside the package
    manager's `settings` file holding `text` (`script-shell=./tools/sh`), or None."""
    hook(repository(root), ".git/hooks/pre-commit", "npm run -s lint\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"lint": "echo linted"}}))
    (root / "tools").mkdir()
    (root / "tools" / "sh").write_text("#!/bin/sh\n")
    (root / settings).write_text(text)
    return tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))


@pytest.mark.parametrize("name", [".npmrc", ".yarnrc.yml", ".yarnrc", "bunfig.toml"])
def test_package_managers_settings_too_big_to_read_for_a_hooks_npm_make_commands_ask(
    tmp_path, name
):
    # npm reads its .npmrc whole: past what planloop reads, its script-shell may be any file
    # of the workspace, which the next `git commit` runs (yarn's and bun's settings alike).
    why = hook_running_npm(tmp_path, name, "# notes\n" * (1 << 17) + "script-shell=./tools/sh\n")
    assert f"{name}, which is larger than planloop reads" in (why or ""), why


def test_a_small_npmrc_for_a_hooks_npm_is_read_as_before(tmp_path):
    assert hook_running_npm(tmp_path, ".npmrc", "script-shell=./tools/sh\n") is None
    assert "tools/sh" in held(tmp_path)


def test_lefthook_s_config_and_what_it_names_are_held(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", 'lefthook run "pre-commit" "$@"\n')
    (root / "lefthook.yml").write_text(
        "extends:\n  - tools/shared.yml\nrc: ./tools/rc.sh\n"
        "pre-commit:\n  commands:\n    lint:\n      run: make lint\n"
    )
    (root / "tools").mkdir()
    (root / "tools" / "shared.yml").write_text("pre-push: {}\n")
    (root / "tools" / "rc.sh").write_text("export X=1\n")
    (root / ".lefthook").mkdir()
    assert {"lefthook.yml", "tools/shared.yml", "tools/rc.sh", ".lefthook"} <= held(root)
    assert {"lefthook-local.yml", ".config/lefthook.yml"} <= held_once_made(root)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("lefthook.json", '{\n  "extends": [\n    "tools/shared.yml"\n  ]\n}\n'),
        ("lefthook.json", '{"extends": ["tools/shared.yml"], "pre-commit": {}}\n'),
        ("lefthook.toml", 'extends = [\n  "tools/shared.yml",\n]\n'),
    ],
)
def test_lefthook_s_extends_is_read_as_its_format_writes_a_list(tmp_path, name, text):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", 'lefthook run "pre-commit" "$@"\n')
    (root / name).write_text(text)
    (root / "tools").mkdir()
    (root / "tools" / "shared.yml").write_text(
        "pre-commit:\n  commands:\n    x:\n      run: true\n"
    )
    assert "tools/shared.yml" in held(root)


HOOKS_AS_TOOLS_WRITE_THEM = {
    # pre-commit's: the python it was installed with, or pre-commit on PATH.
    "pre-commit": """
        INSTALL_PYTHON=/usr/bin/python3
        ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)
        HERE="$(cd "$(dirname "$0")" && pwd)"
        ARGS+=(--hook-dir "$HERE" -- "$@")
        if [ -x "$INSTALL_PYTHON" ]; then
            exec "$INSTALL_PYTHON" -mpre_commit "${ARGS[@]}"
        elif command -v pre-commit > /dev/null; then
            exec pre-commit "${ARGS[@]}"
        else
            echo 'pre-commit not found' 1>&2
            exit 1
        fi
    """,
    # husky 8's: its helper beside the hook, then the project's command.
    "husky": """
        . "$(dirname -- "$0")/_/husky.sh"
        npx lint-staged
    """,
    # commitlint's, as its guide gives it.
    "commitlint": """
        . "$(dirname -- "$0")/_/husky.sh"
        npx --no -- commitlint --edit ${1}
    """,
    # git-lfs's: git lfs, if it is there.
    "git-lfs": """
        command -v git-lfs >/dev/null 2>&1 || { printf >&2 "git-lfs is missing\\n"; exit 2; }
        git lfs pre-push "$@"
    """,
    # lefthook's: its program from $LEFTHOOK_BIN, PATH or node_modules.
    "lefthook": """
        call_lefthook()
        {
          if test -n "$LEFTHOOK_BIN"
          then
            "$LEFTHOOK_BIN" "$@"
          elif lefthook -h >/dev/null 2>&1
          then
            lefthook "$@"
          else
            dir="$(git rev-parse --show-toplevel)"
            "$dir/node_modules/lefthook/bin/index.js" "$@"
          fi
        }
        call_lefthook run "pre-commit" "$@"
    """,
    # lefthook 1.x's, which picks its binary by your machine's name and kind.
    "lefthook-1": """
        if [ "$LEFTHOOK_VERBOSE" = "1" -o "$LEFTHOOK_VERBOSE" = "true" ]; then
          set -x
        fi
        if [ "$LEFTHOOK" = "0" ]; then
          exit 0
        fi
        call_lefthook()
        {
          if test -n "$LEFTHOOK_BIN"
          then
            "$LEFTHOOK_BIN" "$@"
          elif lefthook -h >/dev/null 2>&1
          then
            lefthook "$@"
          else
            dir="$(git rev-parse --show-toplevel)"
            osArch=$(uname | tr '[:upper:]' '[:lower:]')
            cpuArch=$(uname -m | sed 's/aarch64/arm64/;s/x86_64/x64/')
            if test -f "$dir/node_modules/lefthook-${osArch}-${cpuArch}/bin/lefthook"
            then
              "$dir/node_modules/lefthook-${osArch}-${cpuArch}/bin/lefthook" "$@"
            elif test -f "$dir/node_modules/lefthook/bin/index.js"
            then
              "$dir/node_modules/lefthook/bin/index.js" "$@"
            elif bundle exec lefthook -h >/dev/null 2>&1
            then
              bundle exec lefthook "$@"
            else
              echo "Can't find lefthook in PATH"
            fi
          fi
        }
        call_lefthook run "pre-commit" "$@"
    """,
    # lefthook 2's, which also tries each package manager's way to start it (SwiftPM's too).
    "lefthook-2": """
        if [ "$LEFTHOOK_VERBOSE" = "1" -o "$LEFTHOOK_VERBOSE" = "true" ]; then
          set -x
        fi

        if [ "$LEFTHOOK" = "0" ]; then
          exit 0
        fi

        call_lefthook()
        {
          if test -n "$LEFTHOOK_BIN"
          then
            "$LEFTHOOK_BIN" "$@"
          elif lefthook -h >/dev/null 2>&1
          then
            lefthook "$@"
          elif /home/me/go/bin/lefthook -h >/dev/null 2>&1
          then
            /home/me/go/bin/lefthook "$@"
          else
            dir="$(git rev-parse --show-toplevel)"
            osArch=$(uname | tr '[:upper:]' '[:lower:]')
            cpuArch=$(uname -m | sed 's/aarch64/arm64/;s/x86_64/x64/')
            if test -f "$dir/node_modules/lefthook-${osArch}-${cpuArch}/bin/lefthook"
            then
              "$dir/node_modules/lefthook-${osArch}-${cpuArch}/bin/lefthook" "$@"
            elif test -f "$dir/node_modules/@evilmartians/lefthook/bin/lefthook-${osArch}-${cpuArch}/lefthook"
            then
              "$dir/node_modules/@evilmartians/lefthook/bin/lefthook-${osArch}-${cpuArch}/lefthook" "$@"
            elif test -f "$dir/node_modules/@evilmartians/lefthook-installer/bin/lefthook"
            then
              "$dir/node_modules/@evilmartians/lefthook-installer/bin/lefthook" "$@"
            elif test -f "$dir/node_modules/lefthook/bin/index.js"
            then
              "$dir/node_modules/lefthook/bin/index.js" "$@"
            elif go tool lefthook -h >/dev/null 2>&1
            then
              go tool lefthook "$@"
            elif bundle exec lefthook -h >/dev/null 2>&1
            then
              bundle exec lefthook "$@"
            elif yarn lefthook -h >/dev/null 2>&1
            then
              yarn lefthook "$@"
            elif pnpm lefthook -h >/dev/null 2>&1
            then
              pnpm lefthook "$@"
            elif swift package lefthook >/dev/null 2>&1
            then
              swift package --build-path .build/lefthook --disable-sandbox lefthook "$@"
            elif command -v mint >/dev/null 2>&1
            then
              mint run csjones/lefthook-plugin "$@"
            elif uv run lefthook -h >/dev/null 2>&1
            then
              uv run lefthook "$@"
            elif composer exec lefthook -- -h >/dev/null 2>&1
            then
              composer exec lefthook -- "$@"
            elif mise exec -- lefthook -h >/dev/null 2>&1
            then
              mise exec -- lefthook "$@"
            elif devbox run lefthook -h >/dev/null 2>&1
            then
              devbox run lefthook "$@"
            else
              echo "Can't find lefthook in PATH"
            fi
          fi
        }

        call_lefthook run "pre-commit" "$@"
    """,  # noqa: E501 (its lines as lefthook writes them)
    # husky 8's helper, which its hooks source.
    "husky-8-helper": """
        if [ -z "$husky_skip_init" ]; then
          debug () {
            if [ "$HUSKY_DEBUG" = "1" ]; then
              echo "husky (debug) - $1"
            fi
          }
          readonly hook_name="$(basename -- "$0")"
          debug "starting $hook_name..."
          if [ "$HUSKY" = "0" ]; then
            debug "HUSKY env variable is set to 0, skipping hook"
            exit 0
          fi
          if [ -f ~/.huskyrc ]; then
            debug "sourcing ~/.huskyrc"
            . ~/.huskyrc
          fi
          readonly husky_skip_init=1
          export husky_skip_init
          sh -e "$0" "$@"
          exitCode="$?"
          if [ $exitCode != 0 ]; then
            echo "husky - $hook_name hook exited with code $exitCode (error)"
          fi
          exit $exitCode
        fi
    """,
    # husky 9's runner, which its stubs source.
    "husky-9-runner": """
        [ "$HUSKY" = "2" ] && set -x
        n=$(basename "$0")
        s=$(dirname "$(dirname "$0")")/$n
        [ ! -f "$s" ] && exit 0
        i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"
        [ -f "$i" ] && . "$i"
        [ "${HUSKY-}" = "0" ] && exit 0
        export PATH="node_modules/.bin:$PATH"
        sh -e "$s" "$@"
        c=$?
        [ $c != 0 ] && echo "husky - $n script failed (code $c)"
        exit $c
    """,
}


@pytest.mark.parametrize("lines", HOOKS_AS_TOOLS_WRITE_THEM.values(), ids=HOOKS_AS_TOOLS_WRITE_THEM)
def test_the_hooks_tools_install_leave_commands_running_unasked(tmp_path, lines):
    # Their variables and `$(...)` paths are the shell's to tell; a hook that cannot be told
    # through them is the project's code, as a recipe is, and does not make every command ask.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "\n".join(line.strip() for line in lines.splitlines()))
    (root / "package.json").write_text("{}")
    (root / ".pre-commit-config.yaml").write_text("repos: []\n")
    assert tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root))) is None


def test_a_file_not_named_as_a_hook_is_not_read_as_one(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit.sample", "make lint\n")
    hook(root, ".git/hooks/notes", "make lint\n")
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    assert "Makefile" not in held(root)


@needs_bwrap
def test_a_command_cannot_plant_what_the_person_s_next_commit_runs(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    subprocess.run([*prefix(user), "git", "init", "-q", str(workspace)], check=True)
    config = ["git", "-C", str(workspace), "config", "core.hooksPath", ".husky"]
    subprocess.run([*prefix(user), *config], check=True)
    make(workspace / ".husky" / "pre-commit", "#!/bin/sh\nmake -s lint\nnpx lint-staged\n", user)
    make(workspace / "Makefile", "lint:\n\t@echo linted\n", user, mode=0o644)
    make(workspace / ".lintstagedrc.json", '{"*.js": "eslint"}', user, mode=0o644)
    make(workspace / "package.json", "{}", user, mode=0o644)
    make(workspace / ".npmrc", "fund=false\n", user, mode=0o644)
    marker = home / "planted-ran"
    planted = f"lint:\\n\\t@touch {marker}\\n"
    command = (
        f"printf '{planted}' > Makefile; "
        'echo \'{"*.js": "touch x"}\' > .lintstagedrc.json; '
        "echo 'node-options=--require ./x.cjs' >> .npmrc; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    for name in ("Makefile", ".lintstagedrc.json", ".npmrc"):
        assert f"{name}: Read-only file system" in ran, ran
    assert "finished" in ran
    assert (workspace / ".npmrc").read_text() == "fund=false\n"
    subprocess.run([*prefix(user), "make", "-s", "lint"], cwd=workspace, capture_output=True)
    assert not marker.exists()


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess\nclass Hook:\n    def check(self, cmd=('make', 'lint')):\n"
        "        subprocess.run(cmd)\nHook().check(['tools/fmt'])\n",
        "import subprocess\nCMD = ['make']\nwith open('ci/steps') as f:\n    pass\n"
        "subprocess.run(CMD)\n",
        "import json, subprocess\nCMD = ['make']\nglobals().update(json.load(open('ci/h.json')))\n"
        "subprocess.run(CMD)\n",
        "import subprocess\ndef wrap(fn):\n    return fn\n@wrap\ndef check(cmd):\n"
        "    subprocess.run(cmd)\ncheck(['make'])\n",
        "import os, subprocess\nenv = dict(os.environ, PATH='tools:' + os.environ['PATH'])\n"
        "subprocess.run(['lint'], env=env)\n",
        "import os, subprocess\nos.environ['PATH'] = 'tools:' + os.environ['PATH']\n"
        "subprocess.run(['lint'])\n",
        "import subprocess\nsubprocess.Popen(['make', 'lint'], -1, 'tools/fmt').wait()\n",
        "import os, subprocess, sys\n"
        "ROOT = os.path.join(os.path.dirname(sys.argv[0]), '..', '..')\n"
        "subprocess.run([os.path.join(ROOT, 'tools', 'fmt')])\n",
        "import site\nsite.addsitedir('tools')\nimport lint\n",
        "import os, subprocess\nos.fchdir(os.open('web', os.O_RDONLY))\n"
        "subprocess.run(['./fmt'])\n",
        "import ctypes\nctypes.cdll['./tools/libfmt.so']\n",
        "import timeit\ntimeit.timeit(open('ci/bench.txt').read(), number=1)\n",
        "import logging.config\nlogging.config.fileConfig('ci/logging.ini')\n",
        "# coding: utf-7\nimport subprocess\nsubprocess.run(['make'])\n",
        # A hook that starts nothing by name, whose annotation typing evaluates as code.
        'import os, typing\ndef f(x: \'f(__import__("os").system("sh ci/x"))\'): pass\n'
        "typing.get_type_hints(f)\n",
        "import inspect\ndef f(x: 'ci'): pass\ninspect.get_annotations(f, eval_str=True)\n",
    ],
)
def test_a_python_hook_in_a_form_not_worked_out_makes_commands_ask(tmp_path, code):
    """Only the plain forms are worked out (top-level statements, `if`, helper functions, the
    calls and modules that start programs or make paths); a class, `with`, `globals()`, a
    decorator, `env=`, a changed os.environ, `sys.argv[0]`, `site`, `os.fchdir`, `ctypes`,
    `timeit`, `logging.config` or a coding other than UTF-8 asks."""
    root = repository(tmp_path)
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/usr/bin/env python3\n" + code)
    reason = tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))
    assert reason is not None and ".git/hooks/pre-commit" in reason, reason


@pytest.mark.parametrize(
    "first_line", ["#!/usr/bin/awk -f", "#!/usr/bin/env " + "python3" + " " * 260 + "-u"]
)
def test_a_hook_the_kernel_runs_otherwise_than_it_reads_makes_commands_ask(tmp_path, first_line):
    """An interpreter of no language planloop knows is no shell; a `#!` line past what the
    kernel reads makes git run the file with sh."""
    root = repository(tmp_path)
    (root / ".git" / "hooks" / "pre-commit").write_text(f"{first_line}\nmake lint\n")
    reason = tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))
    assert reason is not None and ".git/hooks/pre-commit" in reason, reason


def test_a_python_hook_s_path_parent_is_pathlib_s(tmp_path):
    root = repository(tmp_path)
    code = "import subprocess\nfrom pathlib import Path\nHERE = Path('web/sub/')\n"
    code += "subprocess.run([HERE.parent / 'fmt'])\n"
    (root / ".git" / "hooks" / "pre-commit").write_text("#!/usr/bin/env python3\n" + code)
    (root / "web" / "sub").mkdir(parents=True)
    (root / "web" / "fmt").write_text("#!/bin/sh\ntrue\n")
    assert "web/fmt" in held(root)


def test_a_python_commit_msg_check_that_starts_nothing_reads_unasked(tmp_path):
    root = repository(tmp_path)
    code = "import re, sys\nwith open(sys.argv[1]) as f:\n    message = f.read()\n"
    code += "for line in message.splitlines():\n    pass\n"
    code += "if not re.match(r'(feat|fix): ', message):\n    sys.exit('bad message')\n"
    (root / ".git" / "hooks" / "commit-msg").write_text("#!/usr/bin/env python3\n" + code)
    assert tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root))) is None


PRE_COMMIT_HOOK = 'exec pre-commit hook-impl --hook-type=pre-commit "$@"\n'


@pytest.mark.parametrize("language", ["script", "unsupported_script"])
def test_a_pre_commit_script_hook_holds_its_script_by_either_name(tmp_path, language):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", PRE_COMMIT_HOOK)
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        f"  - {{id: lint, name: lint, entry: lint.sh, language: {language}}}\n"
    )
    (root / "lint.sh").write_text("#!/bin/sh\ntrue\n")
    assert "lint.sh" in held(root)


def test_a_pre_commit_config_with_an_anchor_is_read_whole(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", PRE_COMMIT_HOOK)
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        "  - {id: a, name: a, entry: ./lint, language: system, types_or: &code [python]}\n"
        "  - {id: b, name: b, entry: ./check, language: system, types_or: *code}\n"
    )
    for script in ("lint", "check"):
        (root / script).write_text("#!/bin/sh\ntrue\n")
    assert {"lint", "check"} <= held(root)
    assert tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root))) is None


def test_a_pre_commit_config_whose_aliases_stand_for_too_much_makes_commands_ask(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", PRE_COMMIT_HOOK)
    pairs = zip("abcdef", "bcdefg", strict=True)
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{b}: &{b} [{', '.join([f'*{a}'] * 10)}]\n" for a, b in pairs
    )
    (root / ".pre-commit-config.yaml").write_text(
        laughs + "repos:\n- repo: local\n  hooks:\n"
        "  - {id: a, name: a, entry: ./lint, language: system, args: *g}\n"
    )
    (root / "lint").write_text("#!/bin/sh\ntrue\n")
    reason = tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))
    assert reason is not None and "more than 100,000 entries" in reason, reason


def test_what_lefthook_s_commands_run_is_held(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", 'lefthook run "pre-commit" "$@"\n')
    (root / "lefthook.yml").write_text(
        "pre-commit:\n  commands:\n    lint:\n      run: ./scripts/lint.sh {staged_files}\n"
        "  jobs:\n    - name: fmt\n      run: make -s fmt\n"
    )
    (root / "scripts").mkdir()
    (root / "scripts" / "lint.sh").write_text("#!/bin/sh\ntrue\n")
    (root / "Makefile").write_text("fmt:\n\ttrue\n")
    assert {"scripts/lint.sh", "Makefile"} <= held(root)


def test_a_comment_after_lefthook_s_script_folder_is_no_part_of_it(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", 'lefthook run "pre-commit" "$@"\n')
    (root / "lefthook.yml").write_text("source_dir: .hooks/  # the team's hook scripts\n")
    (root / ".hooks" / "pre-commit").mkdir(parents=True)
    assert ".hooks" in held(root)


def test_lefthook_configs_past_a_mib_of_yaml_a_look_make_commands_ask(tmp_path):
    # YAML is composed in one call no signal interrupts, seconds a MiB: lefthook.yml and the
    # files it extends count toward the MiB a look reads, as other YAML settings do.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "lefthook run pre-commit\n")
    padding = "#" * 250_000 + "\n"
    extended = [f"ci/part{number}.yml" for number in range(5)]
    (root / "ci").mkdir()
    for name in extended:
        (root / name).write_text(padding + LEFTHOOK_LINT)
    (root / "lefthook.yml").write_text(f"extends: {json.dumps(extended[:3])}\n" + LEFTHOOK_LINT)
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert tool_script_not_held(root, settings) is None  # (three: 750 KB)
    (root / "lefthook.yml").write_text(f"extends: {json.dumps(extended)}\n" + LEFTHOOK_LINT)
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "which planloop cannot read" in (tool_script_not_held(root, settings) or "")


@pytest.mark.parametrize(
    ("line", "files"),
    [
        # A project manager's run reads its scripts there, and builds the project first.
        ("uv run ruff check .", {"pyproject.toml", "setup.py", "hatch_build.py"}),
        ("pdm run lint", {"pyproject.toml", ".pdm-python"}),
        ("hatch run lint", {"pyproject.toml", "hatch_build.py"}),
        ("pipenv run lint", {"Pipfile"}),
        # The package tox builds for each run.
        ("tox -e lint", {"tox.ini", "setup.py", "pyproject.toml"}),
        # Linters whose configs load code: init-hook, local plugins, plugins, extra-path.
        ("pylint src", {".pylintrc", "pyproject.toml"}),
        ("flake8 .", {".flake8", "setup.cfg"}),
        ("mypy .", {"mypy.ini"}),
        ("gitlint", {".gitlint"}),
    ],
)
def test_what_python_s_project_tools_read_before_they_run_is_held(tmp_path, line, files):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    for name in files:
        (root / name).write_text("[tox]\n" if name == "tox.ini" else "")
    assert files <= held(root)


def test_a_tilde_in_what_pre_commit_or_lint_staged_runs_is_a_folder_of_the_tree(tmp_path):
    """Neither runs its commands through a shell: `~/bin/mylint` is the folder named `~` at
    the top of the tree, which a command could fill, not your home's bin/."""
    root = repository(tmp_path, ".husky")
    hook(root, ".git/hooks/pre-commit", PRE_COMMIT_HOOK)
    hook(root, ".husky/pre-commit", "npx lint-staged\n")
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        "  - {id: lint, name: lint, entry: ~/bin/mylint, language: system}\n"
    )
    (root / ".lintstagedrc.json").write_text(json.dumps({"*.js": "~/bin/fmt --fix"}))
    (root / "~" / "bin").mkdir(parents=True)
    for script in ("mylint", "fmt"):
        (root / "~" / "bin" / script).write_text("#!/bin/sh\ntrue\n")
    assert {"~/bin/mylint", "~/bin/fmt"} <= held(root)


@pytest.mark.parametrize(
    "line",
    [
        "git grep -O./tools/pg TODO\n",  # (opens the matches with that program)
        "tar --use-compress-program=./tools/pg -cf x.tar src\n",
        "tar -cI./tools/pg -f x.tar src\n",  # (a bundle: -c, then -I with its value)
        "tar -cf x.tar -I'./tools/pg -9' src\n",  # (the program with its arguments)
        "tar '--use-compress-program=tools/pg --fast' -cf x.tar src\n",
        "tar -cf x.tar -I{root}/tools/pg src\n",  # (by its full path: a container's /workspaces)
    ],
)
def test_a_program_an_option_names_with_its_value_glued_on_is_held(tmp_path, line):
    root = repository(tmp_path)
    line = line.replace("{root}", str(root))
    hook(root, ".git/hooks/pre-commit", line)
    (root / "tools").mkdir()
    (root / "tools" / "pg").write_text("#!/bin/sh\ntrue\n")
    (root / "include").mkdir()
    assert "tools/pg" in held(root)


def test_a_script_an_option_names_by_its_bare_name_glued_on_is_held(tmp_path):
    # `--custom-formatter=fmt.mjs`: a name without a folder, but named as a script is.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "lint-css --reporter=fmt.mjs src\n")
    (root / "fmt.mjs").write_text("export default () => ''\n")
    assert "fmt.mjs" in held(root)


@pytest.mark.parametrize("option", ["--exec-path=tools", "--exec-path=./tools"])
def test_the_folder_gits_exec_path_names_is_held_whole(tmp_path, option):
    # `git --exec-path=tools check-size` runs tools/git-check-size.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", f"git {option} check-size\n")
    (root / "tools").mkdir()
    (root / "tools" / "git-check-size").write_text("#!/bin/sh\ntrue\n")
    assert "tools" in held(root)
    hook(root, ".git/hooks/pre-commit", f"git {option.replace('tools', 'web/../tools')} x\n")
    (root / "web").mkdir()  # (which a command could make a link)
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "is a path only its tool can tell" in (tool_script_not_held(root, settings) or "")


LEFTHOOK_LINT = "pre-commit:\n  commands:\n    lint:\n      run: ./scripts/lint.sh\n"


@pytest.mark.parametrize(
    ("hook_line", "config", "text"),
    [
        # Go's YAML reads the first document; PyYAML refuses a second one.
        ("lefthook run pre-commit", "lefthook.yml", LEFTHOOK_LINT + "---\n# generated\n"),
        # Past what planloop reads of a settings file, and of a build file.
        ("lefthook run pre-commit", "lefthook.yml", "#" * 300_000 + "\n" + LEFTHOOK_LINT),
        (
            "pre-commit run",
            ".pre-commit-config.yaml",
            "#" * 1_100_000 + "\nrepos:\n- repo: local\n  hooks:\n"
            "  - {id: lint, name: lint, entry: lint, language: script}\n",
        ),
        # Past the quarter MiB of YAML planloop composes of one settings file.
        (
            "pre-commit run",
            ".pre-commit-config.yaml",
            "#" * 300_000 + "\nrepos:\n- repo: local\n  hooks:\n"
            "  - {id: lint, name: lint, entry: lint, language: script}\n",
        ),
    ],
    ids=["second-document", "lefthook-past-bound", "pre-commit-past-bound", "yaml-past-bound"],
)
def test_a_config_the_tool_reads_but_planloop_cannot_makes_commands_ask(
    tmp_path, hook_line, config, text
):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", hook_line + "\n")
    (root / config).write_text(text)
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "which planloop cannot read" in (tool_script_not_held(root, settings) or "")
    assert "so any file may be what it runs" in (protected_reason(root, "scripts/lint.sh") or "")


@pytest.mark.parametrize(
    ("line", "files"),
    [
        # prek, pre-commit's drop-in: the same config, and the scripts of its local hooks.
        ("prek run\n", {".pre-commit-config.yaml", "lint"}),
        # markdownlint-cli2's name ends in a version-like digit, which a lookup drops.
        ('npx markdownlint-cli2 "**/*.md"\n', {".markdownlint-cli2.jsonc"}),
    ],
    ids=["prek", "markdownlint-cli2"],
)
def test_a_tool_known_by_another_name_holds_its_config(tmp_path, line, files):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line)
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        "  - {id: lint, name: lint, entry: lint, language: script}\n"
    )
    (root / "lint").write_text("#!/bin/sh\ntrue\n")
    (root / ".markdownlint-cli2.jsonc").write_text("{}\n")
    assert files <= held(root)


def test_prek_s_own_config_comes_first_and_its_local_hooks_are_held(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "prek run\n")
    (root / "prek.toml").write_text(
        '[[repos]]\nrepo = "local"\n[[repos.hooks]]\nid = "fmt"\nname = "fmt"\n'
        'entry = "sh tools/fmt.sh"\nlanguage = "system"\n'
    )
    (root / "tools").mkdir()
    (root / "tools" / "fmt.sh").write_text("true\n")
    assert {"prek.toml", "tools/fmt.sh"} <= held(root)
    (root / "prek.toml").unlink()  # (one a command makes would be read before the YAML one)
    (root / ".pre-commit-config.yaml").write_text("repos: []\n")
    assert "prek.toml" in held_once_made(root)


def test_the_file_tasks_a_hooks_mise_run_runs_are_held(tmp_path):
    # What `mise generate git-pre-commit` writes; mise runs mise-tasks/pre-commit.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "export MISE_PRE_COMMIT=1\nexec mise run pre-commit\n")
    (root / "mise-tasks").mkdir()
    (root / "mise-tasks" / "pre-commit").write_text("#!/bin/sh\nruff check .\n")
    assert "mise-tasks" in held(root)
    assert ".config/mise/tasks" in held_once_made(root)


@pytest.mark.parametrize(
    ("line", "lockfile"),
    [("uv run pytest\n", "uv.lock"), ("npm install\n", "package-lock.json")],
)
def test_the_lockfile_a_hooks_install_follows_is_held(tmp_path, line, lockfile):
    # `uv run` syncs the environment from uv.lock first, `npm install` from package-lock.json:
    # a `path` or `file:` source written there is built, and its setup or install script runs.
    root = repository(tmp_path)
    hook(root, ".git/hooks/post-checkout", line)
    (root / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    (root / "package.json").write_text('{"name": "app"}\n')
    (root / lockfile).write_text("{}\n")
    assert lockfile in held(root) | held_once_made(root)


def test_a_pre_commit_hook_repositorys_tool_holds_what_it_reads_here(tmp_path):
    # pre-commit installs flake8 from its repository and runs it here: it reads setup.cfg,
    # whose local plugins it loads. A hook of no known tool holds nothing.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "pre-commit run\n")
    (root / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: https://github.com/PyCQA/flake8\n  rev: 7.1.1\n  hooks:\n"
        "  - id: flake8\n- repo: https://github.com/pre-commit/pre-commit-hooks\n"
        "  rev: v5.0.0\n  hooks:\n  - id: trailing-whitespace\n- repo: meta\n  hooks:\n"
        "  - id: check-hooks-apply\n"
    )
    (root / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n")
    assert {".pre-commit-config.yaml", "setup.cfg"} <= held(root)
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert tool_script_not_held(root, settings) is None


def test_a_pre_commit_script_hook_is_taken_from_the_top_of_the_tree(tmp_path):
    # `pre-commit install -c ci/pre-commit.yaml`: pre-commit runs a local script hook's entry
    # from the top of the repository, not from the config's folder.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "pre-commit run -c ci/pre-commit.yaml\n")
    (root / "ci").mkdir()
    (root / "ci" / "pre-commit.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        "  - {id: lint, name: lint, entry: lint, language: script}\n"
    )
    (root / "lint").write_text("#!/bin/sh\ntrue\n")
    assert {"ci/pre-commit.yaml", "lint"} <= held(root) | held_once_made(root)
    assert "lint" in held(root)


@pytest.mark.parametrize(
    ("config", "script"),
    [
        # A command's `root:`: lefthook runs its line from that folder (monorepos).
        ("pre-commit:\n  commands:\n    lint:\n      root: api/\n      run: ./scripts/lint.sh\n",
         "api/scripts/lint.sh"),
        # `files:`, a command lefthook runs to list the files.
        ("pre-commit:\n  commands:\n    lint:\n      files: ./scripts/changed.sh\n"
         "      run: echo {files}\n", "scripts/changed.sh"),
        # A script's `runner:`.
        ("pre-commit:\n  scripts:\n    check.sh:\n      runner: ./scripts/with-env.sh sh\n",
         "scripts/with-env.sh"),
        # A template put into a `run:` line.
        ("templates:\n  lint: ./scripts/lint.sh\npre-commit:\n  commands:\n    lint:\n"
         "      run: '{lint} --all'\n", "scripts/lint.sh"),
        # A `run:` line of a file it extends, by a glob, whatever its name.
        ("extends:\n  - hooks/*.yml\n", "scripts/from-extended.sh"),
        # The variables a command's `env:` (or its group's) sets for its line: node loads
        # what NODE_OPTIONS requires before `eslint` runs.
        ("pre-commit:\n  env:\n    NODE_OPTIONS: --require ./scripts/preload.js\n"
         "  commands:\n    lint:\n      run: npx eslint .\n", "scripts/preload.js"),
    ],
    ids=["root", "files", "runner", "templates", "extends-glob", "env"],
)  # fmt: skip
def test_what_lefthook_runs_by_its_other_settings_is_held(tmp_path, config, script):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", 'lefthook run "pre-commit" "$@"\n')
    (root / "lefthook.yml").write_text(config)
    (root / "hooks").mkdir()
    (root / "hooks" / "lint.yml").write_text(
        "pre-commit:\n  commands:\n    more:\n      run: ./scripts/from-extended.sh\n"
    )
    (root / script).parent.mkdir(parents=True, exist_ok=True)
    (root / script).write_text("#!/bin/sh\ntrue\n")
    assert script in held(root)


@pytest.mark.parametrize(
    ("line", "config", "text", "code"),
    [
        ("mypy app.py", "mypy.ini", "[mypy]\nplugins = tools/typeplug.py\n", "tools/typeplug.py"),
        ("flake8 app.py", ".flake8", "[flake8:local-plugins]\npaths = ./tools\n", "tools"),
        ("gitlint", ".gitlint", "[general]\nextra-path = ./gitlint_rules\n", "gitlint_rules"),
        ("pylint app.py", ".pylintrc", "[MAIN]\nload-plugins = team_checks\n", "team_checks.py"),
        # (the folder pylint's init-hook puts on python's path, whole)
        (
            "pylint app.py",
            ".pylintrc",
            "[MAIN]\ninit-hook = import sys; sys.path.insert(0, 'tools')\nload-plugins = x\n",
            "tools",
        ),
        ("pylint app.py", "tox.ini", "[pylint.MAIN]\nload-plugins = x\n", "tox.ini"),
        (
            "mypy app.py",
            "pyproject.toml",
            '[tool.mypy]\nplugins = ["tools/typeplug.py"]\n',
            "tools/typeplug.py",
        ),
    ],
    ids=["mypy", "flake8", "gitlint", "pylint", "pylint-init-hook", "pylint-tox", "mypy-pyproject"],
)
def test_the_code_a_linters_settings_load_is_held(tmp_path, line, config, text, code):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    (root / config).write_text(text)
    (root / "tools").mkdir()
    (root / "tools" / "typeplug.py").write_text("def plugin(version): ...\n")
    (root / "gitlint_rules").mkdir()
    (root / "team_checks.py").write_text("def register(linter): ...\n")
    assert {config, code} <= held(root)


def test_a_pylint_init_hook_that_does_more_than_set_the_path_makes_commands_ask(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "pylint app.py\n")
    (root / ".pylintrc").write_text("[MAIN]\ninit-hook = exec(open('ci/hook.py').read())\n")
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "init-hook" in (tool_script_not_held(root, settings) or "")
    (root / ".pylintrc").write_text("[MAIN]\ninit-hook = import sys; sys.path.append('.')\n")
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert tool_script_not_held(root, settings) is None and "." not in held(root)


@pytest.mark.parametrize(
    ("line", "files", "expected"),
    [
        # A config an option names, in place of those the tool looks for.
        (
            "npx lint-staged --config ci/staged.json",  # (and what it lists to run)
            {"ci/staged.json": '{"*.js": "node tools/fmt.js"}', "tools/fmt.js": ""},
            "tools/fmt.js",
        ),
        ("npx eslint -c ci/eslint.config.js .", {"ci/eslint.config.js": ""}, "ci/eslint.config.js"),
        # The rules eslint and markdownlint load as code.
        ("npx eslint --rulesdir lint-rules .", {"lint-rules/no-x.js": ""}, "lint-rules"),
        ("markdownlint -r ./md/rule.js docs", {"md/rule.js": ""}, "md/rule.js"),
        # markdownlint-cli2's JavaScript config, and stylelint's in `.config`.
        ("npx markdownlint-cli2 docs", {".markdownlint.cjs": ""}, ".markdownlint.cjs"),
        (
            "npx stylelint '**/*.css'",
            {".config/stylelintrc.json": "{}"},
            ".config/stylelintrc.json",
        ),
        ("rake -f ci/build.rake lint", {"ci/build.rake": ""}, "ci/build.rake"),
        # ninja in another folder, and the files its build file includes from there.
        ("ninja -C out lint", {"out/build.ninja": "include rules.ninja\n"}, "out/build.ninja"),
        (
            "ninja -C out lint",
            {"out/build.ninja": "subninja sub/x.ninja\n", "out/sub/x.ninja": ""},
            "out/sub/x.ninja",
        ),
    ],
)
def test_what_a_tool_is_told_to_read_by_an_option_is_held(tmp_path, line, files, expected):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    assert expected in held(root)


@pytest.mark.parametrize(
    "line",
    [
        "npx --yes lint-staged@16",  # (a major pinned, as husky hooks often do)
        "npx @scope/x@1 && npx lint-staged@^16.1",
        "npm exec --yes -- lint-staged@16",
        "yarn lint-staged",  # (yarn runs node_modules/.bin/lint-staged: no script of that name)
        "yarn run lint-staged",
        "pnpm exec lint-staged",
        "node node_modules/lint-staged/bin/lint-staged.js",
    ],
)
def test_a_tool_run_by_a_versioned_name_a_package_manager_or_node_reads_its_config(tmp_path, line):
    # Each form runs the project's own lint-staged, which runs what its config lists.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    (root / "package.json").write_text('{"name": "app", "scripts": {"test": "true"}}')
    (root / ".lintstagedrc.json").write_text('{"*.js": "node tools/fmt.js"}')
    (root / "tools").mkdir()
    (root / "tools/fmt.js").write_text("")
    assert {".lintstagedrc.json", "tools/fmt.js"} <= held(root)


@pytest.mark.parametrize(
    "config",
    [
        '{"customRules": ["./md-rule.cjs"], "modulePaths": ["tools"]}',
        "customRules:\n  - ./md-rule.cjs\nmodulePaths:\n  - tools\n",
    ],
)
def test_a_rule_markdownlint_finds_through_its_module_paths_is_held(tmp_path, config):
    # markdownlint-cli2 resolves `./md-rule.cjs` from the config's folder, then from each of
    # `modulePaths`: tools/md-rule.cjs runs at the next commit.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", 'markdownlint-cli2 "**/*.md"\n')
    name = ".markdownlint-cli2.jsonc" if config.startswith("{") else ".markdownlint-cli2.yaml"
    (root / name).write_text(config)
    (root / "tools").mkdir()
    (root / "tools/md-rule.cjs").write_text("module.exports = [];\n")
    assert "tools/md-rule.cjs" in held(root)


def test_a_ninja_include_only_ninja_can_tell_makes_commands_ask(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "ninja lint\n")
    (root / "build.ninja").write_text("builddir = out\ninclude $builddir/rules.ninja\n")
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert "only ninja can tell" in (tool_script_not_held(root, settings) or "")


@pytest.mark.parametrize(
    ("line", "files", "expected"),
    [
        # pylint reads any table under [tool.pylint], init-hook too ...
        (
            "pylint src",
            {"pyproject.toml": "[tool.pylint.main]\ninit-hook = 'import sys; "
             "sys.path.insert(0, \"tools/lint\")'\n", "tools/lint/rules.py": ""},
            "tools/lint",
        ),
        # ... every section of its own file, and the pylint ones of setup.cfg.
        (
            "pylint src",
            {".pylintrc": "[MESSAGES CONTROL]\nload-plugins=team_rules\n", "team_rules.py": ""},
            "team_rules.py",
        ),
        (
            "pylint src",
            {"setup.cfg": "[pylint.main]\nload-plugins=team_rules\n", "team_rules.py": ""},
            "team_rules.py",
        ),
        # A settings file an option names, with the code it has the linter load.
        (
            "pylint --rcfile=ci/pylintrc src",
            {"ci/pylintrc": '[MAIN]\ninit-hook=import sys; sys.path.insert(0, "ci/plugins")\n',
             "ci/plugins/checks.py": ""},
            "ci/plugins",
        ),
        (
            "flake8 --append-config ci/flake8.cfg src",
            {"ci/flake8.cfg": "[flake8:local-plugins]\npaths = ./ci/plugins\n",
             "ci/plugins/checks.py": ""},
            "ci/plugins",
        ),
        (
            "mypy --config-file ci/mypy.ini src",
            {"ci/mypy.ini": "[mypy]\nplugins = ci/plug.py\n", "ci/plug.py": ""},
            "ci/plug.py",
        ),
        # Code the options themselves have it load.
        ("gitlint --extra-path tools/rules", {"tools/rules/r.py": ""}, "tools/rules"),
        (
            "pylint --init-hook='import sys; sys.path.insert(0, \"tools/rules\")' "
            "--load-plugins=checks src",
            {"tools/rules/checks.py": ""},
            "tools/rules",
        ),
    ],
)  # fmt: skip
def test_the_code_a_python_linter_is_told_to_load_is_held(tmp_path, line, files, expected):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    assert expected in held(root)


@pytest.mark.parametrize(
    ("line", "asks"),
    [
        # make and uv go up physically from where web leads, which a command can make a link.
        ("cd web && make -C .. lint", True),
        ("cd web && uv run --directory .. pytest", True),
        ("make -C web/.. lint", True),
        # The shell's own cd goes back up the path it came down (logically).
        ("cd web && cd .. && make lint", False),
        ("make -C web lint", False),
    ],
)
def test_a_tool_sent_up_out_of_a_folder_makes_commands_ask(tmp_path, line, asks):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    (root / "web").mkdir()
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    (root / "web" / "Makefile").write_text("lint:\n\ttrue\n")
    settings = host_tool_settings(root, scan_for_file_tools(root))
    assert (tool_script_not_held(root, settings) is not None) is asks


@pytest.mark.parametrize(
    "line",
    [
        "uvx --from ./tools/x python -c 'import x'",
        "uvx --from tools/x x-lint",
        "pip install ./tools/x",
        "python3 -m pip install -e tools/x",
        "uv pip install ./tools/x",
    ],
)
def test_a_local_project_an_installer_builds_is_held_whole(tmp_path, line):
    # Building it runs its setup.py, in-tree backend or build hook, outside the sandbox.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line + "\n")
    (root / "tools" / "x").mkdir(parents=True)
    (root / "tools" / "x" / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    assert "tools/x" in held(root)


def test_an_in_tree_build_backend_is_held_for_a_project_manager_s_run(tmp_path):
    # uv run builds the project first, with the backend its backend-path puts first.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "uv run pytest\n")
    (root / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["_build"]\n'
    )
    (root / "_build").mkdir()
    (root / "_build" / "backend.py").write_text("")
    assert "_build" in held(root)


def test_npm_in_a_workspace_member_holds_the_root_s_settings_and_package(tmp_path):
    # npm takes a member's settings from the workspace's root, and an install there runs the
    # root package.json's scripts.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "cd web && npm test\n")
    (root / "package.json").write_text(json.dumps({"private": True, "workspaces": ["web"]}))
    (root / "web").mkdir()
    (root / "web" / "package.json").write_text(json.dumps({"scripts": {"test": "node --test"}}))
    assert {".npmrc", "package.json", "web/.npmrc"} <= held_once_made(root)
