"""A hook's lines are read with the values the hook makes plain, and fail closed on the rest.

A hook runs at the person's next commit, outside the sandbox. What its lines run by a name
(`make lint`: the Makefile) is held read-only (tests/test_git_hook_lines.py). A hook that
keeps its command in a variable, moves to another folder first, or runs a folder of scripts
by a pattern would otherwise hold nothing, and a sandboxed command could rewrite what the
commit then runs: tools/hook_lines.py puts in what the hook itself makes plain, and a line
that needs a value only its shell can tell makes commands ask.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_git_hook_lines import held, hook, repository

from tools.paths import host_tool_settings, scan_for_file_tools
from tools.sandbox import held_when_there_paths
from tools.shell_config import identities, made_since
from tools.tool_scripts import tool_script_not_held


def why_commands_ask(root) -> str | None:
    return tool_script_not_held(root, host_tool_settings(root, scan_for_file_tools(root)))


@pytest.mark.parametrize(
    ("lines", "build_file"),
    [
        ('M="make -s"\n$M lint\n', "Makefile"),  # a command and its option in one variable
        ('ARGS=(-C web)\nARGS+=(-s)\nmake "${ARGS[@]}" lint\n', "web/Makefile"),
        ("cd web\nmake lint\n", "web/Makefile"),  # a move on a line of its own lasts
        ("cd web && npm run lint\nmake lint\n", "web/Makefile"),
        ('make -C "$(git rev-parse --show-toplevel)/web" lint\n', "web/Makefile"),
        ('cd "$(dirname "$0")/../.."\nmake lint\n', "Makefile"),  # from .git/hooks to the top
        ('make -C "$PWD/web" lint\n', "web/Makefile"),
        ('ROOT="$(cd "$(dirname "$0")/../.." && pwd)"\nmake -C "$ROOT/web" lint\n', "web/Makefile"),
        ("echo done \\\\\nmake lint\n", "Makefile"),  # an escaped `\` ends the line
        ('M=${MAKE:-make}\n"$M" lint\n', "Makefile"),
    ],
)
def test_a_value_the_hook_makes_plain_is_put_in(tmp_path, lines, build_file):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    (root / "web").mkdir()
    (root / build_file).write_text("lint:\n\ttrue\n")
    assert build_file in held(root)
    assert why_commands_ask(root) is None


@pytest.mark.parametrize(
    "lines",
    [
        "M=$(command -v make)\n$M lint\n",  # a command's output
        "declare M=make\n$M lint\n",
        ": ${M:=make}\n$M lint\n",
        "M=make\nM=rm\n$M lint\n",  # set twice: which one runs is the shell's to tell
        "alias m=make\nm lint\n",
        'for f in scripts/hooks/*.sh; do sh "$f"; done\n',  # a folder of scripts by a pattern
        'ls scripts/hooks | while read -r f; do sh "scripts/hooks/$f"; done\n',
        'eval "$(cat .hookrc)"\n',
        "python3 - <<EOF\nimport subprocess\nsubprocess.call(['make', 'lint'])\nEOF\n",
        'cd web\nmake -C "$PWD" lint\n',  # where it moved, $PWD is not the top
        '. ./hooks.env\n"$LINT" .\n',  # a file it sources may set any variable
        'set -- make lint\n"$@"\n',  # the hook's arguments as the program
        'perl -e "exit system(q(make lint))"\n',  # code whose forms are its language's
        "M=$(cat .m)\necho '\n'; $M lint\n",  # a quote that spans lines
        "echo() { $1 lint; }\necho make\n",  # a function in the place of a command
        "IFS=,\nx=make,lint\n$x\n",  # split where no reader splits
        "{make,lint}\n",  # bash's brace expansion
        "$'\\x6dake' lint\n",
        "python3 -c 'import subprocess as s; s.call(\"make lint\".split())'\n",
    ],
)
def test_a_line_that_needs_a_value_only_the_shell_can_tell_makes_commands_ask(tmp_path, lines):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    (root / "hooks.env").write_text("LINT=true\n")
    why = why_commands_ask(root)
    assert why is not None and ".git/hooks/pre-commit" in why, why


def test_a_line_that_only_tests_or_prints_may_use_any_value(tmp_path):
    root = repository(tmp_path)
    lines = 'files=$(git diff --cached --name-only)\n[ -z "$files" ] && exit 0\n'
    hook(root, ".git/hooks/pre-commit", lines + 'echo "checking $files"\nmake lint\n')
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    assert "Makefile" in held(root)
    assert why_commands_ask(root) is None


@pytest.mark.parametrize(
    "run",
    [
        "sh scripts/check",
        ". scripts/check",
        "bash -e scripts/check",
        'GIT_X=scripts/check\nsh "$GIT_X"',  # git's names, set by the hook itself
        "sh -o errexit scripts/check",
        "sh +e scripts/check",
        "exec sh scripts/check",
        "timeout 60 sh scripts/check",
        "command . scripts/check",
    ],
)
def test_a_script_a_hook_runs_with_a_shell_is_read_as_the_hook_is(tmp_path, run):
    # Without a `#!` or a shell's suffix: how the hook runs it says what it is.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", run + "\n")
    (root / "scripts").mkdir()
    (root / "scripts/check").write_text("make -C web lint\n")
    (root / "web").mkdir()
    (root / "web/Makefile").write_text("lint:\n\ttrue\n")
    assert {"scripts/check", "web/Makefile"} <= held(root)


@pytest.mark.parametrize(
    ("makefile", "included"),
    [
        ("MK := mk\ninclude $(MK)/rules.mk\n", "mk/rules.mk"),
        ("include $(CURDIR)/mk/rules.mk\n", "mk/rules.mk"),
        ("-include ${CURDIR}/mk/rules.mk\n", "mk/rules.mk"),
    ],
)
def test_a_makefile_include_of_a_variable_the_makefile_sets_plainly_is_held(
    tmp_path, makefile, included
):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "make lint\n")
    (root / "Makefile").write_text(makefile + "lint:\n\ttrue\n")
    (root / "mk").mkdir()
    (root / included).write_text("X = 1\n")
    assert {"Makefile", included} <= held(root)
    assert why_commands_ask(root) is None


@pytest.mark.parametrize(
    "makefile",
    [
        "MK := $(shell cat .mkdir)\ninclude $(MK)/rules.mk\n",  # a command's output
        "MK := mk\nMK := other\ninclude $(MK)/rules.mk\n",  # set twice
        "include $(UNSET_ANYWHERE)/rules.mk\n",
    ],
)
def test_a_makefile_include_only_make_can_tell_makes_commands_ask(tmp_path, makefile):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "make lint\n")
    (root / "Makefile").write_text(makefile + "lint:\n\ttrue\n")
    why = why_commands_ask(root)
    assert why is not None and "only make can tell" in why, why


def test_a_pre_commit_local_hook_that_needs_what_only_a_shell_can_tell_makes_commands_ask(
    tmp_path,
):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "pre-commit run\n")
    config = "repos:\n- repo: local\n  hooks:\n  - id: lint\n    name: lint\n"
    config += "    entry: bash -c 'for f in tools/*.sh; do sh \"$f\"; done'\n    language: system\n"
    (root / ".pre-commit-config.yaml").write_text(config)
    why = why_commands_ask(root)
    assert why is not None and "pre-commit" in why, why


def test_the_main_checkouts_hooks_are_read_from_a_linked_worktree(tmp_path):
    # `git worktree add`: the usual way to give an agent a checkout of its own. Its hooks are
    # the main checkout's, and git runs them from the top of the worktree that commits.
    main = repository(tmp_path / "main")
    ident = ["-c", "user.name=a", "-c", "user.email=a@b"]
    subprocess.run(["git", "-C", str(main), *ident, "commit", "-q", "--allow-empty", "-m", "x"])
    worktree = tmp_path / "agent"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(worktree)], check=True)
    hook(main, ".git/hooks/pre-commit", "make lint\n")
    (worktree / "Makefile").write_text("lint:\n\ttrue\n")
    assert "Makefile" in held(worktree)


def test_a_global_hooks_folder_is_read_from_the_workspace(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "githooks").mkdir(parents=True)
    (home / ".gitconfig").write_text("[core]\n\thooksPath = ~/githooks\n")
    monkeypatch.setenv("HOME", str(home))
    root = repository(tmp_path / "project")
    hook(home, "githooks/pre-commit", "make lint\n")
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    assert "Makefile" in held(root)


def test_a_workspace_pattern_a_command_fills_past_its_bound_makes_commands_ask(tmp_path):
    # Empty files under `packages/` once pushed a real member past the bound, unsaid: its
    # package.json was no longer held, and the hook's `npm run lint --workspaces` ran it.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "npm run lint --workspaces\n")
    (root / "package.json").write_text('{"workspaces": ["packages/*"]}')
    (root / "packages/real").mkdir(parents=True)
    (root / "packages/real/package.json").write_text('{"scripts": {"lint": "true"}}')
    assert "packages/real/package.json" in held(root)
    for n in range(2_100):
        (root / "packages" / f"f{n:04}").write_text("")
    why = why_commands_ask(root)
    assert why is not None and "more than 2,000 entries" in why, why


def test_cargo_members_past_the_bound_make_commands_ask(tmp_path):
    # Past 200, the members left out had their build.rs writable, unsaid.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "cargo check\n")
    (root / "Cargo.toml").write_text('[workspace]\nmembers = ["crates/*"]\n')
    for n in range(201):
        (root / f"crates/c{n}").mkdir(parents=True)
        (root / f"crates/c{n}/Cargo.toml").write_text(f'[package]\nname = "c{n}"\n')
    why = why_commands_ask(root)
    assert why is not None and "more than 200 members" in why, why


@pytest.mark.parametrize(
    "lines",
    [
        "[[ $(cat n) -lt 80 ]] && exit 0\n",  # bash's arithmetic runs `x[$(cmd)]`
        "(( n < 80 )) && exit 0\n",
        'echo "$(eval "$(cat build/lint.cmd)")"\n',  # a print of what a command runs
        '[[ "$x" =~ (.*) ]]\nsh "${BASH_REMATCH[1]}"\n',  # what the shell sets itself
        "CDPATH=scripts\ncd fmt\n./run\n",
        "PS4='+$(sh scripts/chec?.sh)'\nset -x\n:\nset +x\n",  # bash runs it as it traces
        "printf\t-v C scripts/fmt\nsh $C\n",
        'f() { sh "$1"; }\nf scripts/fmt\n',  # a script only the caller names
        "echo scripts/fmt | xargs sh\n",
        "A0="
        + "a" * 1000
        + "\n"
        + "".join(f'A{n}="$A{n - 1}$A{n - 1}"\n' for n in range(1, 14))
        + 'sh "$A13"\n',  # (doubled line by line: once it took minutes to read)
    ],
)
def test_more_that_only_the_shell_can_tell_makes_commands_ask(tmp_path, lines):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    why = why_commands_ask(root)
    assert why is not None and ".git/hooks/pre-commit" in why, why


RUN_CHECK = 'sh "${D}check.sh"\n'  # (with D empty: the top's check.sh, not scripts/check.sh)


def hook_running_a_check_sh(root: Path, lines: str) -> Path:
    bash_hook_running_check_sh(root, lines)
    (root / "scripts").mkdir()
    (root / "scripts" / "check.sh").write_text("true\n")
    return root


@pytest.mark.parametrize(
    "lines",
    [
        "D=scripts/ | true\n" + RUN_CHECK,  # a pipeline's parts run in subshells
        "D=scripts/ &\nwait\n" + RUN_CHECK,
        "{\n  D=scripts/\n} &\nwait\n" + RUN_CHECK,
        "(\n  D=scripts/\n)\n" + RUN_CHECK,
        '[ -n "$CI" ] && D=scripts/\n' + RUN_CHECK,  # it may not run
        '[ -z "$CI" ] ||\n  D=scripts/\n' + RUN_CHECK,
        'if [ -n "$CI" ]; then\n  D=scripts/\nfi\n' + RUN_CHECK,
        'case "$CI" in\n  true)\n    D=scripts/\n    ;;\nesac\n' + RUN_CHECK,
        'while [ -n "$CI" ]; do\n  D=scripts/\n  break\ndone\n' + RUN_CHECK,
        "setdir() {\n  D=scripts/\n}\n" + RUN_CHECK,  # a function never called
        'if [ -n "$CI" ]; then\n  D=scripts/\nelse\n  ' + RUN_CHECK + "fi\n",
        'case "$CI" in\n  true)\n    D=scripts/\n    ;;\n  *)\n    ' + RUN_CHECK + "esac\n",
        "for n in 1 2; do\n  " + RUN_CHECK + "  D=scripts/\ndone\n",  # (the next round's)
        "for n in 1 2; do\n  " + RUN_CHECK + "  D=scripts/\n  D=scripts/\ndone\n",
        "check() {\n  " + RUN_CHECK + "}\nD=scripts/\ncheck\n",  # (set before the call)
        RUN_CHECK.strip() + "; D=scripts/\n",
    ],
)
def test_a_value_the_hook_s_shell_may_not_keep_where_it_is_used_makes_commands_ask(tmp_path, lines):
    root = hook_running_a_check_sh(tmp_path, lines)
    why = why_commands_ask(root)
    assert why is not None and "needs `$D`" in why, why


@pytest.mark.parametrize(
    "lines",
    [
        "D=scripts/ && " + RUN_CHECK,
        "D=scripts/\n" + RUN_CHECK.strip() + " 2>&1 | tee log\n",
        'if [ -z "$CI" ]; then\n  D=scripts/\n  ' + RUN_CHECK + "fi\n",
        'case "$CI" in\n  *)\n    D=scripts/\n    ' + RUN_CHECK + "    ;;\nesac\n",
        "check() {\n  D=scripts/\n  " + RUN_CHECK + "}\ncheck\n",
        "D=scripts/\ncheck() {\n  " + RUN_CHECK + "}\ncheck\n",
        "(\n  D=scripts/\n  " + RUN_CHECK + ")\n",
    ],
)
def test_a_value_set_where_it_is_used_in_the_same_block_is_put_in(tmp_path, lines):
    root = hook_running_a_check_sh(tmp_path, lines)
    assert why_commands_ask(root) is None
    assert "scripts/check.sh" in held(root)


@pytest.mark.parametrize("lines", ["cd web && make lint\n", "cd web\nmake lint\n"])
def test_a_cd_your_cdpath_may_send_elsewhere_makes_commands_ask(tmp_path, monkeypatch, lines):
    # (direnv exports an `.envrc`'s CDPATH=tools: the hook's `cd web` enters tools/web)
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    for folder in ("web", "tools/web"):
        (root / folder).mkdir(parents=True)
        (root / folder / "Makefile").write_text("lint:\n\ttrue\n")
    monkeypatch.setenv("CDPATH", "tools")
    why = why_commands_ask(root)
    assert why is not None and ".git/hooks/pre-commit" in why, why
    # A folder spelt from here is never looked up in CDPATH.
    hook(root, ".git/hooks/pre-commit", lines.replace("cd web", "cd ./web"))
    assert why_commands_ask(root) is None
    assert "web/Makefile" in held(root)


def test_a_submodules_hook_is_read_from_the_submodule(tmp_path):
    # Its hooks lie in the superproject's .git/modules/sub/hooks; git runs them from sub/.
    root = repository(tmp_path)
    (root / ".git/modules/sub/hooks").mkdir(parents=True)
    (root / ".git/modules/sub/HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git/modules/sub/config").write_text("[core]\n\tworktree = ../../../sub\n")
    (root / "sub").mkdir()
    (root / "sub/.git").write_text("gitdir: ../.git/modules/sub\n")
    hook(root, ".git/modules/sub/hooks/pre-commit", "make lint\n")
    (root / "sub/Makefile").write_text("lint:\n\ttrue\n")
    assert "sub/Makefile" in held(root)


@pytest.mark.parametrize(
    "lines",
    [
        "./build/lint.sh\n",
        "sh build/lint.sh 2>/dev/null\n",
        "true \f# ; ./build/lint.sh\n",  # a `#` inside a word is no comment to the shell
        "echo a#b; ./build/lint.sh\n",
    ],
)
def test_a_script_a_hook_names_that_a_command_makes_is_told(tmp_path, lines):
    # Held only from the next look: its first content is what the commit runs.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    before = identities(held_when_there_paths(root, scan_for_file_tools(root)))
    (root / "build").mkdir()
    (root / "build/lint.sh").write_text("touch /tmp/ran\n")
    made = made_since(before, held_when_there_paths(root, scan_for_file_tools(root)))
    assert root / "build/lint.sh" in {path for path, _ in made}


def test_a_package_script_that_sets_ifs_makes_commands_ask(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "npm run lint\n")
    script = "IFS=,; y=sh,scripts/fmt; $y"  # `sh scripts/fmt` to the shell, one word to a reader
    (root / "package.json").write_text(json.dumps({"scripts": {"lint": script}}))
    reason = why_commands_ask(root)
    assert reason is not None and "the script `lint` of package.json: its IFS" in reason, reason


@pytest.mark.parametrize(
    "script",
    [
        "$(cat ci/tool) lint",  # the program is what a file of the workspace says
        'eval "$(cat ci/cmd)"',
        "`cat ci/tool` lint",
        "for f in ci/*.sh; do sh $f; done",
        'sh -c "$npm_package_config_check"',  # (npm's own values, from its settings)
        "cd web\nX=$(ls); $X",
    ],
)
def test_a_package_script_only_its_shell_can_tell_makes_commands_ask(tmp_path, script):
    """npm runs a script as `sh -c`: it is read as a hook's lines are, not word by word."""
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "npm run check\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"check": script}}))
    reason = why_commands_ask(root)
    assert reason is not None and "the script `check` of package.json: its" in reason, reason


@pytest.mark.parametrize(
    ("script", "build_file"),
    [
        ("M=make; $M lint", "Makefile"),
        ("cd web && make lint", "web/Makefile"),
        ("$0 ci/check.sh", "ci/check.sh"),  # (`sh -c`: $0 is sh)
        ("eslint . && tsc --noEmit && echo $npm_package_version", "package.json"),
        ("echo lint $(git rev-parse --short HEAD)#; make lint", "Makefile"),  # one word
    ],
)
def test_a_package_script_read_plainly_holds_what_it_runs(tmp_path, script, build_file):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "npm run check\n")
    (root / "package.json").write_text(json.dumps({"scripts": {"check": script}}))
    for folder in ("web", "ci"):
        (root / folder).mkdir()
    for path in ("Makefile", "web/Makefile", "ci/check.sh"):
        (root / path).write_text("lint:\n\ttrue\n")
    assert why_commands_ask(root) is None
    assert build_file in held(root)


@pytest.mark.parametrize(
    "line",
    [
        "$(cat ci/tool) lint",  # ci/tool is held, but what it names (make's Makefile) is not
        'eval "$(cat ci/cmd)"',
        "for f in ci/*.sh; do sh $f; done",
        "X=$(cat ci/tool); timeout 60 $X lint",
        "f=$(cat ci/n); [[ $f -eq 1 ]] && make",  # (bash's arithmetic runs `x[$(cmd)]`)
    ],
)
def test_a_task_line_whose_program_only_its_shell_can_tell_makes_commands_ask(tmp_path, line):
    """A folderOpen task's shell line is read as a hook's is, for what it starts."""
    (tmp_path / ".vscode").mkdir()
    task = {"label": "w", "type": "shell", "command": line, "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode" / "tasks.json").write_text(json.dumps({"tasks": [task]}))
    reason = why_commands_ask(tmp_path)
    assert reason is not None and ".vscode/tasks.json: its line" in reason, reason


def test_a_task_line_that_hands_a_file_name_to_a_formatter_reads_plainly(tmp_path):
    """Only what starts a program must be told: a file name given to a formatter is a word."""
    (tmp_path / ".vscode").mkdir()
    line = 'f=$(git diff --name-only); M=make; [[ $f == *.py ]] && $M fmt FILE="$f"'
    task = {"label": "w", "type": "shell", "command": line, "runOptions": {"runOn": "folderOpen"}}
    (tmp_path / ".vscode" / "tasks.json").write_text(json.dumps({"tasks": [task]}))
    (tmp_path / "Makefile").write_text("fmt:\n\ttrue\n")
    assert why_commands_ask(tmp_path) is None
    assert "Makefile" in held(tmp_path)


@pytest.mark.parametrize(
    "lines",
    [
        "./tools/$HOSTTYPE/fmt\n",  # bash sets it, and does not export it
        'mkdir -p tools/bin && cd "$_"\n./fmt\n',
        "sh < tools/steps\n",  # a shell reading its script from its input
        "cat tools/steps | sh\n",
        "dd if=tools/steps status=none | bash -s\n",
        "exec < tools/steps\nsh\n",
        "exec 3< tools/steps\n. /dev/fd/3\n",
        "flock /tmp/lock -c 'sh tools/steps'\n",
        "script -qc 'sh tools/steps' /dev/null\n",
        "sh -c '. \"$0\"' tools/steps\n",  # $0 there is the word after the code
        "bash -c 'source \"$1\"' _ tools/steps\n",
        "set -k\nbash -c true BASH_ENV=tools/steps\n",
        "awk -f tools/check.awk VERSION\n",
        "sed -n -f tools/check.sed VERSION\n",
        "tclsh tools/check.tcl\n",
        "printf -v I\\FS :\nC=sh:tools/fmt\n$C\n",
        'function [ { env "$1"; }\nt=$(ls tools/bin/*)\n[ "$t" ]\n',
        'case "$(eval "$(cat tools/step)")" in\n*) ;;\nesac\n',
        "t=$(cat tools/step)\necho <(eval $t) >/dev/null\n",
        't=$(cat tools/limit)\necho "limit: $[t]"\n',
        't=$(cat tools/limit)\ntest -v "$t"\n',  # (`a[$(cmd)]` runs cmd)
        "t=$(cat tools/limit)\ntime (( t < 80 ))\n",
        "t=$(cat tools/limit)\nX=1 let t\n",
        "t=$(cat tools/limit)\n\\let t\n",
        "\\alias make=./tools/fmt\nmake\n",
        "git submodule foreach ./tools/fmt\n",
        'export PATH="$PWD/tools:$PATH"\nsteps\n',
        "PATH=tools:$PATH\n. helpers\n",
        "perl -Itools -MFmt -e 1\n",  # (tools/Fmt.pm, found where only perl searches)
        "node --env-file=tools/node.env tools/x.js\n",  # (its NODE_OPTIONS: only node reads them)
    ],
)
def test_what_only_the_shell_follows_past_the_lines_makes_commands_ask(tmp_path, lines):
    """What a hook runs that no line of it shows (a script read from a shell's input, a
    program found on a PATH the hook sets, a name only bash sets), or a command word hidden
    behind a quote, a redirection or `time`, asks."""
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "#!/bin/bash\n" + lines)
    (root / "tools").mkdir()
    for name in ("steps", "fmt", "step", "limit", "check.awk", "check.sed", "check.tcl"):
        (root / "tools" / name).write_text("./tools/fmt\n")
    why = why_commands_ask(root)
    assert why is not None and ".git/hooks/pre-commit" in why, why


@pytest.mark.parametrize(
    "lines",
    [
        "git diff --cached --name-only | awk '/\\.py$/ {system(\"sh tools/check \" $0)}'\n",
        "awk 'BEGIN { \"sh tools/check\" | getline v }'\n",
        "awk 'BEGIN { print 1 ||| \"sh tools/check\" }'\n",  # (`||` and then a pipe)
        "awk '@include \"tools/check.awk\"'\n",
        "gawk --inc=tools/check.awk 1\n",
        "echo | sed 'e sh tools/check'\n",
        "echo | sed -n -e p -e '1!e sh tools/check'\n",
        "echo | sed --expression='s/.*/sh tools\\/check/e'\n",
        "echo | sed 's/[/]/x/e;s/a/b/'\n",  # (GNU sed reads `[/]` whole)
        "echo | sed 'b  a;e sh tools/check'\n",
        "find . -name '*.py' -exec sed '$e sh tools/check' {} +\n",
        "tar -xf x.tar --to-command='sh tools/check'\n",
        "tar -xf x.tar -I 'sh tools/check'\n",
        "tar --checkpoint-act=exec='sh tools/check' -cf x.tar VERSION\n",
        "vim -es -c '!sh tools/check' -c q\n",
        "git -c alias.chk='!sh tools/check' chk\n",
        "git -c core.pager='sh tools/check' log\n",
        "env LC_ALL=C nice -n 5 sed -n 'e sh tools/check' VERSION\n",
        'sh -c "awk \'BEGIN { system(\\"sh tools/check\\") }\'"\n',
    ],
)
def test_a_line_that_starts_a_line_its_own_words_give_makes_commands_ask(tmp_path, lines):
    """awk's program text, sed's script, tar's command options, an editor's commands and
    git's `-c` settings may start a command line no line of the hook shows: what that line
    sources (tools/check's `. ./tools/lib`) would go unheld, so commands ask, as for code
    given to python that starts programs."""
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    (root / "tools").mkdir()
    (root / "tools" / "check").write_text(". ./tools/lib\n")
    (root / "tools" / "lib").write_text("true\n")
    why = why_commands_ask(root)
    assert why is not None and "needs" in why and ".git/hooks/pre-commit" in why, why


@pytest.mark.parametrize(
    "lines",
    [
        "git diff --cached --name-only | awk '/\\.py$/ || NR == 1 {print $1}'\n",
        "awk -F'|' -v 'sep=|' '{print $2 sep}' VERSION\n",
        "sed -n 's/^version = //p' VERSION\n",
        "grep -rn sed VERSION && make -n ex\n",  # (words, not programs)
        "sed -i.bak -e 's/e/E/g' -e '/^#/d' VERSION\n",
        "sed '/^$/d;s/[[:space:]]*$//;1!G;h;$!d' VERSION\n",
        "tar -czf out.tar.gz VERSION && tar -cf x.tar -I zstd VERSION\n",
        "git -c color.ui=false -c core.pager=cat -c alias.l=log l -1\n",
    ],
)
def test_awk_sed_tar_and_git_that_start_nothing_read_plainly(tmp_path, lines):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    (root / "VERSION").write_text("version = 1\n")
    assert why_commands_ask(root) is None


@pytest.mark.parametrize(
    "first_line",
    [
        "#!/bin/sh tools/wrapper",  # the kernel runs `/bin/sh tools/wrapper HOOK`
        "#!tools/interp",
        "#!/usr/bin/env -S BASH_ENV=tools/rc bash",
        "#!/usr/bin/env -S PATH=tools:/usr/bin:/bin sh",
        "#!/usr/bin/env -S bash --rcfile tools/rc -i",
    ],
)
def test_a_hook_whose_first_line_runs_more_than_its_interpreter_makes_commands_ask(
    tmp_path, first_line
):
    root = repository(tmp_path)
    (root / ".git" / "hooks" / "pre-commit").write_text(f"{first_line}\ntrue\n")
    reason = why_commands_ask(root)
    assert reason is not None and ("its `#!` line" in reason or "a hook run by" in reason), reason


@pytest.mark.parametrize(
    "lines",
    [
        'case "$(uname)" in\nLinux) cd web ;;\nesac\n./fmt\n',
        'case "$(uname)" in Linux) cd web ;; esac\n./fmt\n',
        ">/dev/null cd web\n./fmt\n",
        "\\cd web\n./fmt\n",
        "'cd' web\n./fmt\n",
    ],
)
def test_a_move_in_a_case_arm_or_behind_a_quote_or_redirection_is_followed(tmp_path, lines):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    (root / "web").mkdir()
    (root / "web" / "fmt").write_text("#!/bin/sh\ntrue\n")
    assert "web/fmt" in held(root)


def test_a_sourced_helper_reads_its_callers_path_and_variables(tmp_path):
    """A file a hook sources runs as the hook: its `$0` is the hook's path, and a variable it
    does not set is one the hook may have set, or set again by what it sourced."""
    root = repository(tmp_path)
    (root / "tools").mkdir()
    (root / "tools" / "common.sh").write_text(
        'ROOT="$(dirname "$0")/../.."\nsh "$ROOT/tools/fmt.sh"\n'
    )
    (root / "tools" / "fmt.sh").write_text("true\n")
    hook(root, ".git/hooks/pre-commit", ". tools/common.sh\n")
    assert "tools/fmt.sh" in held(root)
    (root / "tools" / "common.sh").write_text('"$BIN/fmt"\n')
    hook(root, ".git/hooks/pre-commit", "BIN=tools/bin\n. tools/common.sh\n")
    assert "tools/common.sh: its line" in (why_commands_ask(root) or "")
    (root / "tools" / "env.sh").write_text("BIN=tools/bin\n")
    hook(root, ".git/hooks/pre-commit", 'BIN=tools/default\n. tools/env.sh\n"$BIN/fmt"\n')
    assert "needs `$BIN`" in (why_commands_ask(root) or "")


def test_a_script_a_hook_runs_by_its_interpreter_s_name_is_read_as_its_code(tmp_path):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "python3 tools/check.py\n")
    (root / "tools").mkdir()
    (root / "tools" / "check.py").write_text(
        "import subprocess\nsubprocess.run(['sh', 'tools/fmt.sh'])\n"
    )
    (root / "tools" / "fmt.sh").write_text("true\n")
    assert "tools/fmt.sh" in held(root)
    (root / "tools" / "check.py").write_text(
        "import subprocess\nsubprocess.run(open('cmd').read())\n"
    )
    assert "tools/check.py: its `open('cmd').read()`" in (why_commands_ask(root) or "")


def test_scripts_a_hook_runs_past_the_bound_make_commands_ask(tmp_path):
    root = repository(tmp_path)
    (root / "tools").mkdir()
    for n in range(70):
        (root / "tools" / f"h{n}.sh").write_text("true\n")
    hook(root, ".git/hooks/pre-commit", "".join(f"sh tools/h{n}.sh\n" for n in range(70)))
    assert "more than 64 hooks and scripts they run" in (why_commands_ask(root) or "")


@pytest.mark.parametrize(
    ("makefile", "read"),
    [
        ("lint:\n\ttrue\n$(eval $(file <mk/extra.mk))\n", "mk/extra.mk"),
        ("load mk/plugin.so\nlint:\n\ttrue\n", "mk/plugin.so"),
    ],
)
def test_what_make_reads_into_itself_or_loads_is_held(tmp_path, makefile, read):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", "make -s lint\n")
    (root / "Makefile").write_text(makefile)
    (root / "mk").mkdir()
    (root / read).write_text("")
    assert read in held(root)


def test_the_commands_lint_staged_lists_are_read_as_command_lines(tmp_path):
    """husky's `npx lint-staged` runs each command its config lists for the staged files."""
    root = repository(tmp_path, ".husky")
    hook(root, ".husky/pre-commit", "npx lint-staged\n")
    config = {"*.js": "sh tools/fix.sh", "*.py": ["ruff check", "make lint"]}
    (root / ".lintstagedrc.json").write_text(json.dumps(config))
    (root / "tools").mkdir()
    (root / "tools" / "fix.sh").write_text("true\n")
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    (root / "package.json").write_text("{}")
    assert {"tools/fix.sh", "Makefile"} <= held(root)
    (root / ".lintstagedrc.json").write_text(json.dumps({"*.js": "$(cat tools/cmd)"}))
    assert ".lintstagedrc.json: its line `$(cat tools/cmd)`" in (why_commands_ask(root) or "")


@pytest.mark.parametrize(
    ("line", "config", "settings", "code"),
    [
        (
            "npx --no -- commitlint --edit $1",
            ".commitlintrc.json",
            {"extends": ["./tools/cl.js"]},
            "tools/cl.js",
        ),
        (
            "npx prettier --check .",
            ".prettierrc.json",
            {"plugins": ["./tools/pp.mjs"]},
            "tools/pp.mjs",
        ),
        ("npx eslint .", ".eslintrc.json", {"parser": "./tools/ep"}, "tools/ep.js"),
    ],
)
def test_local_code_a_tool_s_data_config_loads_is_held(tmp_path, line, config, settings, code):
    root = repository(tmp_path, ".husky")
    hook(root, ".husky/commit-msg", line + "\n")
    (root / config).write_text(json.dumps(settings))
    (root / "tools").mkdir()
    (root / code).write_text("module.exports = {}\n")
    assert code in held(root)


def test_a_hook_is_read_from_the_working_tree_the_repository_s_config_names(tmp_path):
    """With `core.worktree`, git runs its hooks from that folder, not the one holding .git."""
    root = repository(tmp_path)
    (root / "sub").mkdir()
    (root / "sub" / "fmt").write_text("#!/bin/sh\ntrue\n")
    subprocess.run(
        ["git", "-C", str(root), "config", "core.worktree", str(root / "sub")], check=True
    )
    hook(root, ".git/hooks/pre-commit", "./fmt\n")
    assert "sub/fmt" in held(root)


@pytest.mark.parametrize(
    "lines",
    [
        "echo 'needs bash'\nmake lint\n",
        "if ! command -v bash >/dev/null; then exit 0; fi\nmake lint\n",
        '[ "$SHELL" = /bin/bash ] && make lint\n',
        "sh ./tools/check.sh\nmake lint\n",
        "exec 1>&2\nmake lint\n",  # (git's sample hooks: output to stderr)
        "exec < /dev/tty\nmake lint\n",  # (a hook that asks you a question)
    ],
)
def test_a_shell_named_as_a_word_or_given_its_script_reads_plainly(tmp_path, lines):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    (root / "tools").mkdir()
    (root / "tools" / "check.sh").write_text("true\n")
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    assert why_commands_ask(root) is None
    assert "Makefile" in held(root)


@pytest.mark.parametrize(
    "lines",
    [
        "cd web || exit 1\n../scripts/fmt\n",  # (a command turns web into a link: x beside it)
        "./lnk/../scripts/fmt\n",
        "cd -P lnk/.. || exit 1\n./fmt\n",
        "set -P\ncd lnk/.. || exit 1\n./fmt\n",
    ],
)
def test_a_path_up_out_of_a_workspace_folder_makes_commands_ask(tmp_path, lines):
    """The kernel follows a link before `..`: `web/../x` is x beside where web leads, and a
    command can turn web into a link, so only the kernel can tell what runs."""
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", lines)
    for folder in ("web", "scripts", "lnk"):
        (root / folder).mkdir()
    (root / "scripts" / "fmt").write_text("#!/bin/sh\ntrue\n")
    reason = why_commands_ask(root)
    assert reason is not None and ".git/hooks/pre-commit" in reason, reason


@pytest.mark.parametrize(
    "line",
    [
        "echo pre-commit $(git rev-parse --short HEAD)#; sh check.sh\n",  # one word
        'echo "$(printf ")" " #")"; sh check.sh\n',  # quotes of the output's own
        "echo `git rev-parse HEAD`#; sh check.sh\n",
    ],
)
def test_a_hash_inside_or_right_after_a_command_s_output_hides_no_command(tmp_path, line):
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", line)
    (root / "check.sh").write_text("true\n")
    assert "check.sh" in held(root)


def bash_hook_running_check_sh(root: Path, lines: str) -> Path:
    repository(root)
    hook(root, ".git/hooks/pre-commit", lines)
    path = root / ".git" / "hooks" / "pre-commit"
    path.write_text(path.read_text().replace("#!/bin/sh", "#!/bin/bash", 1))
    (root / "check.sh").write_text("true\n")
    return root


@pytest.mark.parametrize(
    "line",
    [
        '[[ "$(git branch --show-current)" =~ ^(main| #) ]] && echo on-main; sh check.sh\n',
        "[[ $(git config user.email) =~ (@corp| #) ]] || sh check.sh\n",
        '[[ "$(git branch --show-current)" == @(main| #) ]] && echo on-main; sh check.sh\n',
        "[[ $(git branch --show-current) =~ ^(main|\n#) ]] && sh check.sh\n",
    ],
)
def test_a_hash_inside_a_pattern_s_parentheses_makes_commands_ask(tmp_path, line):
    # bash reads the regex or glob whole, blanks and `#` included: the line goes on to check.sh
    root = bash_hook_running_check_sh(tmp_path, line)
    why = why_commands_ask(root)
    assert why is not None and ".git/hooks/pre-commit" in why, why


@pytest.mark.parametrize(
    "lines",
    [
        '[[ "$(git branch --show-current)" =~ ^(main|master)$ ]] || exit 0\nsh check.sh\n',
        "files=(\n  a.txt  # the first\n)\n(\n  # in a subshell\n  sh check.sh\n)\n",
    ],
)
def test_a_pattern_s_parentheses_an_array_or_a_subshell_read_as_ever(tmp_path, lines):
    root = bash_hook_running_check_sh(tmp_path, lines)
    assert why_commands_ask(root) is None
    assert "check.sh" in held(root)


def test_ansi_c_quoting_that_bash_and_sh_read_apart_makes_commands_ask(tmp_path):
    root = repository(tmp_path)
    path = root / ".git" / "hooks" / "pre-commit"
    path.write_text("#!/bin/bash\necho $'it\\'s checking' ; sh scripts/check.sh # '\n")
    path.chmod(0o755)
    why = why_commands_ask(root)
    assert why is not None and "$'...'" in why, why
    # Read alike by both (no `\'` in it), it asks nothing.
    path.write_text("#!/bin/bash\necho $'\\e[1mchecking\\e[0m'\nmake lint\n")
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    assert why_commands_ask(root) is None
    assert "Makefile" in held(root)


@pytest.mark.parametrize("shell", ["fish", "csh", "tcsh", "pwsh", "zsh"])
def test_a_hook_in_a_shell_whose_quoting_is_not_sh_s_makes_commands_ask(tmp_path, shell):
    # fish reads `\'` inside single quotes as a quote: this line runs scripts/check.sh; zsh
    # runs the code of a glob's `e` qualifier.
    root = repository(tmp_path)
    path = root / ".git" / "hooks" / "pre-commit"
    line = "echo 'it\\'s checking' ; sh scripts/check.sh # '"
    line = "echo *(e:'sh scripts/check.sh':)" if shell == "zsh" else line
    path.write_text(f"#!/usr/bin/env {shell}\n{line}\n")
    path.chmod(0o755)
    why = why_commands_ask(root)
    assert why is not None and f"a hook in {shell}" in why, why


@pytest.mark.parametrize(
    ("shell", "script"),
    [
        ("fish", "scripts/check.fish"),
        ("csh", "scripts/check.csh"),
        ("pwsh", "scripts/check.ps1"),
        ("zsh", "scripts/check.zsh"),
        ("zsh", "scripts/check"),  # no `#!`: zsh reads it all the same
    ],
)
def test_a_script_a_hook_runs_with_a_shell_whose_lines_are_not_sh_s_makes_commands_ask(
    tmp_path, shell, script
):
    # `make lint` in it runs the Makefile's recipe at the commit; held or asked, never neither.
    root = repository(tmp_path)
    hook(root, ".git/hooks/pre-commit", f"{shell} {script}\n")
    (root / "scripts").mkdir()
    (root / script).write_text("#!/bin/sh\nmake lint\n" if shell == "csh" else "make lint\n")
    (root / "Makefile").write_text("lint:\n\ttrue\n")
    why = why_commands_ask(root)
    assert why is not None and f"a hook in {shell}" in why, why
    # Run with sh, its lines are read and what they run is held.
    hook(root, ".git/hooks/pre-commit", f"sh {script}\n")
    assert why_commands_ask(root) is None
    assert "Makefile" in held(root)
