"""Programs git runs by a path its configuration names, kept in the workspace.

A prompt-injected model runs a sandboxed command that rewrites such a program: the pager your
~/.gitconfig names in your dotfiles repository, the repository's own `core.fsmonitor =
./fsmon.sh`, the templates folder every new clone copies its hooks from, git's system config
named by GIT_CONFIG_SYSTEM. git on the host would then run the planted code outside the
sandbox, at the next `git log`, `git status` (which shell prompts run by themselves) or clone.
Each end-to-end test drives `python agent.py -p` against the fake API, then runs git on the
host as the person would, and checks that the planted code did not run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_hostile_pass4 import (
    AS_NOBODY,
    NOBODY,
    needs_bwrap,
    run_as,
    tool_results,
    user_folders,
)

from fakeapi import text, tool_use
from tools.environment import WordTooLong
from tools.git_programs import ByName, SplitByTheShell, program_paths

__all__ = ["user_folders"]  # a fixture, used by name below

ORIGINAL = "#!/bin/sh\nexec cat\n"


def prefix(user: str) -> list[str]:
    return AS_NOBODY if user == "nobody" else []


def host(user: str, home: Path, *argv: str, cwd: Path, env: dict | None = None) -> None:
    """A command of the person's on the host, outside any sandbox (its failure is no matter)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    full = {**clean, "HOME": str(home), **(env or {})}
    subprocess.run([*prefix(user), *argv], cwd=cwd, env=full, capture_output=True, timeout=60)


def host_commit(user: str, home: Path, workspace: Path) -> None:
    """The person's next `git commit`, which runs the repository's pre-commit hook."""
    ident = {"GIT_AUTHOR_NAME": "me", "GIT_COMMITTER_NAME": "me", "EMAIL": "me@x.test"}
    host(user, home, "git", "commit", "-q", "--allow-empty", "-m", "x", cwd=workspace, env=ident)


def make(path: Path, content: str, user: str, mode: int = 0o755) -> None:
    """A file (and its folders) owned by `user`, as the person would have made it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    path.chmod(mode)
    if user == "nobody":
        for each in [path, *path.parents]:
            if each == Path("/") or os.stat(each).st_uid == NOBODY:
                break
            os.chown(each, NOBODY, NOBODY)


def dotfiles(user_folders) -> tuple[str, Path, Path, Path]:
    """(user, workspace = ~/dotfiles, planloop home, home)."""
    user, _, planloop_home, home = user_folders
    workspace = home / "dotfiles"
    workspace.mkdir()
    if user == "nobody":
        os.chown(workspace, NOBODY, NOBODY)
    return user, workspace, planloop_home, home


def run(user: str, api, env: dict, workspace: Path, planloop_home: Path, home: Path, **more):
    env = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home), **more}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    return tool_results(api)


def plant(path: str, marker: Path) -> dict:
    """A sandboxed command that rewrites the program at `path` to leave `marker` behind."""
    command = (
        f"mkdir -p {Path(path).parent}; printf '#!/bin/sh\\ntouch {marker}\\n' > {path}; "
        f"chmod +x {path}; echo finished"
    )
    return {"content": [tool_use("bash", {"command": command})]}


def write(api, path: str, exists: bool = True) -> None:
    """The model reads the program (write_file replaces no unread file), then rewrites it."""
    if exists:
        api.add({"content": [tool_use("read_file", {"path": path})]})
    api.add({"content": [tool_use("write_file", {"path": path, "content": "#!/bin/sh\nid\n"})]})


# What write_file answers, headless without --yes, for a program git runs.
REFUSED = "git runs this file"


# Keys of your ~/.gitconfig whose value git runs as a program: (the config text naming
# `{program}`, the host git command that runs it, or None where the file itself is checked).
# The other keys are checked without a run below (ALL_YOUR_KEYS).
YOUR_KEYS = {
    "core.pager": ("[core]\n\tpager = {program} -R\n", None),
    "core.fsmonitor": ("[core]\n\tfsmonitor = {program}\n", ["git", "status"]),
    "credential.helper": ('[credential "https://x.test"]\n\thelper = !{program} get\n', None),
    "alias through sh": ('[alias]\n\tsh-it = !sh -c "{program} x"\n', ["git", "sh-it"]),
}


@needs_bwrap
@pytest.mark.parametrize("key", YOUR_KEYS)
@pytest.mark.parametrize("user_folders", ["root"], indirect=True)
def test_a_program_your_git_config_names_in_the_workspace_stays_read_only(
    api, env, user_folders, key
):
    user, workspace, planloop_home, home = dotfiles(user_folders)
    config, run_it = YOUR_KEYS[key]
    make(workspace / "bin" / "prog", ORIGINAL, user)
    make(home / ".gitconfig", config.format(program="~/dotfiles/bin/prog"), user, 0o644)
    marker = home / "planted-ran"
    api.add(plant("bin/prog", marker))
    write(api, "bin/prog")
    api.add({"content": [text("Done.")]})
    ran, _, written = run(user, api, env, workspace, planloop_home, home)
    assert "finished" in ran and "Read-only file system" in ran, ran
    assert REFUSED in written
    assert (workspace / "bin" / "prog").read_text() == ORIGINAL
    if run_it:
        host(user, home, "git", "init", "-q", "repo", cwd=home)
        ident = {"GIT_AUTHOR_NAME": "me", "GIT_COMMITTER_NAME": "me", "EMAIL": "me@x.test"}
        host(user, home, *run_it, cwd=home / "repo", env=ident)
        assert not marker.exists()


@needs_bwrap
def test_your_pager_in_the_workspace_stays_read_only_for_an_unprivileged_user_too(
    api, env, user_folders
):
    user, workspace, planloop_home, home = dotfiles(user_folders)
    make(workspace / "bin" / "pager", ORIGINAL, user)
    make(home / ".gitconfig", "[core]\n\tpager = ~/dotfiles/bin/pager\n", user, 0o644)
    api.add(plant("bin/pager", home / "planted-ran"))
    api.add({"content": [text("Done.")]})
    (ran,) = run(user, api, env, workspace, planloop_home, home)
    assert "finished" in ran and "Read-only file system" in ran, ran
    assert (workspace / "bin" / "pager").read_text() == ORIGINAL


@needs_bwrap
@pytest.mark.parametrize("layout", ["missing", "behind a link"])
def test_a_program_your_git_config_names_that_no_bind_can_hold_makes_commands_ask(
    api, env, user_folders, layout
):
    # A program that does not exist yet could be created by a command; one reached through a
    # link (bin -> scripts) could be redirected by relinking. Neither is a file a bind holds.
    user, workspace, planloop_home, home = dotfiles(user_folders)
    if layout == "behind a link":
        make(workspace / "scripts" / "fsmon", ORIGINAL, user)
        os.symlink("scripts", workspace / "bin")
    make(home / ".gitconfig", "[core]\n\tfsmonitor = ~/dotfiles/bin/fsmon\n", user, 0o644)
    marker = home / "planted-ran"
    api.add(plant("bin/fsmon", marker))
    write(api, "bin/fsmon", exists=layout != "missing")
    api.add({"content": [text("Done.")]})
    ran, *_, written = run(user, api, env, workspace, planloop_home, home)
    assert "sandboxed commands ask before they run" in ran and "finished" not in ran, ran
    assert "bin/fsmon" in ran
    assert REFUSED in written
    host(user, home, "git", "init", "-q", "repo", cwd=home)
    host(user, home, "git", "status", cwd=home / "repo")
    assert not marker.exists()


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root"], indirect=True)
def test_a_helper_of_yours_planloop_cannot_read_makes_commands_ask_naming_your_config(
    api, env, user_folders
):
    # Your own config is no workspace's doing: a line that sets IFS (`IFS= read`) cannot be
    # read, so what it runs cannot be told; planloop starts, names the config, and asks.
    user, workspace, planloop_home, home = user_folders
    helper = '"!f() { IFS= read -r t < ~/tokens/x; echo password=$t; }; f"'
    make(home / ".gitconfig", f"[credential]\n\thelper = {helper}\n", user, 0o644)
    api.add(plant("bin/prog", home / "planted-ran"))
    write(api, "bin/prog", exists=False)
    api.add({"content": [text("Done.")]})
    ran, written = run(user, api, env, workspace, planloop_home, home)
    assert "sandboxed commands ask before they run" in ran and "finished" not in ran, ran
    assert f"your git config {home}/.gitconfig" in ran and "sets IFS" in ran
    assert "workspace names a path" not in ran
    assert not (workspace / "bin" / "prog").exists(), written


@needs_bwrap
def test_your_git_templates_folder_in_the_workspace_stays_read_only(api, env, user_folders):
    # init.templateDir: git copies its hooks into every repository you init or clone later.
    user, workspace, planloop_home, home = dotfiles(user_folders)
    make(workspace / "tmpl" / "description", "templates\n", user, 0o644)
    (workspace / "tmpl" / "hooks").mkdir()
    if user == "nobody":
        os.chown(workspace / "tmpl" / "hooks", NOBODY, NOBODY)
    make(home / ".gitconfig", "[init]\n\ttemplateDir = ~/dotfiles/tmpl\n", user, 0o644)
    marker = home / "planted-ran"
    api.add(plant("tmpl/hooks/post-checkout", marker))
    write(api, "tmpl/hooks/post-commit", exists=False)
    api.add({"content": [text("Done.")]})
    ran, written = run(user, api, env, workspace, planloop_home, home)
    assert "Read-only file system" in ran, ran
    assert REFUSED in written
    assert os.listdir(workspace / "tmpl" / "hooks") == []
    ident = ["-c", "user.name=me", "-c", "user.email=me@x.test"]
    host(user, home, "git", "init", "-q", "src", cwd=home)
    host(user, home, "git", *ident, "commit", "-q", "--allow-empty", "-m", "i", cwd=home / "src")
    host(user, home, "git", "clone", "-q", "src", "dst", cwd=home)
    assert (home / "dst" / ".git").is_dir()  # the clone ran, and with it any post-checkout
    assert not marker.exists()


@needs_bwrap
def test_gits_system_config_named_by_your_environment_in_the_workspace_stays_read_only(
    api, env, user_folders
):
    user, workspace, planloop_home, home = dotfiles(user_folders)
    system = workspace / "gitsys" / "config"
    make(system, "[user]\n\tname = sys\n", user, 0o644)
    make(workspace / "bin" / "fsmon", ORIGINAL, user)
    marker = home / "planted-ran"
    command = f"printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' >> gitsys/config"
    api.add({"content": [tool_use("bash", {"command": command + "; echo finished"})]})
    api.add({"content": [text("Done.")]})
    more = {"GIT_CONFIG_SYSTEM": str(system)}
    (ran,) = run(user, api, env, workspace, planloop_home, home, **more)
    assert "finished" in ran and "Read-only file system" in ran, ran
    assert system.read_text() == "[user]\n\tname = sys\n"
    host(user, home, "git", "init", "-q", "repo", cwd=home, env=more)
    host(user, home, "git", "status", cwd=home / "repo", env=more)
    assert not marker.exists()


# What a repository's own config runs from its working tree without the person asking for it:
# (config lines naming `{program}`, what the person does on the host that runs it).
REPOSITORY_KEYS = {
    "core.fsmonitor": ("[core]\n\tfsmonitor = {program}\n", [["git", "status"]]),
    "filter clean": (
        '[filter "x"]\n\tclean = {program}\n',
        [["sh", "-c", "echo '* filter=x' > .gitattributes; echo y > a.txt"], ["git", "add", "."]],
    ),
    "diff textconv": (
        '[diff "x"]\n\ttextconv = sh {program}\n',
        [
            ["sh", "-c", "echo '* diff=x' > .gitattributes; echo a > a.txt"],
            ["git", "add", "."],
            ["sh", "-c", "echo b > a.txt"],
            ["git", "diff"],
        ],
    ),  # fmt: skip
    "alias": ("[alias]\n\tt = !{program}\n", [["git", "t"]]),
}


@needs_bwrap
@pytest.mark.parametrize("key", REPOSITORY_KEYS)
def test_a_program_the_repository_config_names_in_its_tree_stays_read_only(
    api, env, user_folders, key
):
    user, workspace, planloop_home, home = user_folders
    if user == "nobody" and key != "core.fsmonitor":
        pytest.skip("one key is enough as the unprivileged user")
    config, steps = REPOSITORY_KEYS[key]
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    with (workspace / ".git" / "config").open("a") as file:
        file.write(config.format(program="./tools/prog.sh"))
    make(workspace / "tools" / "prog.sh", "#!/bin/sh\ncat\n", user)
    marker = home / "planted-ran"
    api.add(plant("tools/prog.sh", marker))
    write(api, "tools/prog.sh")
    api.add({"content": [text("Done.")]})
    ran, _, written = run(user, api, env, workspace, planloop_home, home)
    assert "finished" in ran and "Read-only file system" in ran, ran
    assert REFUSED in written
    assert (workspace / "tools" / "prog.sh").read_text() == "#!/bin/sh\ncat\n"
    ident = {"GIT_AUTHOR_NAME": "me", "GIT_COMMITTER_NAME": "me", "EMAIL": "me@x.test"}
    for step in steps:
        host(user, home, *step, cwd=workspace, env=ident)
    assert not marker.exists()


@needs_bwrap
@pytest.mark.parametrize("key", ["core.fsmonitor", "diff textconv"])
def test_a_script_named_by_a_bare_name_stays_read_only(api, env, user_folders, key):
    # `sh fsmon.sh`: git runs it from the top of the working tree, where sh opens fsmon.sh.
    user, workspace, planloop_home, home = user_folders
    config, steps = REPOSITORY_KEYS[key]
    program = "sh prog.sh" if key == "core.fsmonitor" else "prog.sh"  # textconv has its `sh`
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    with (workspace / ".git" / "config").open("a") as file:
        file.write(config.format(program=program))
    make(workspace / "prog.sh", "#!/bin/sh\ncat\n", user)
    marker = home / "planted-ran"
    api.add(plant("prog.sh", marker))
    write(api, "prog.sh")
    api.add({"content": [text("Done.")]})
    ran, _, written = run(user, api, env, workspace, planloop_home, home)
    assert "finished" in ran and "Read-only file system" in ran, ran
    assert REFUSED in written
    assert (workspace / "prog.sh").read_text() == "#!/bin/sh\ncat\n"
    ident = {"GIT_AUTHOR_NAME": "me", "GIT_COMMITTER_NAME": "me", "EMAIL": "me@x.test"}
    for step in steps:
        host(user, home, *step, cwd=workspace, env=ident)
    assert not marker.exists()


@needs_bwrap
def test_a_program_the_repository_config_names_that_does_not_exist_makes_commands_ask(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    with (workspace / ".git" / "config").open("a") as file:
        file.write("[core]\n\tfsmonitor = ./fsmon.sh\n")
    marker = home / "planted-ran"
    api.add(plant("fsmon.sh", marker))
    api.add({"content": [text("Done.")]})
    (ran,) = run(user, api, env, workspace, planloop_home, home)
    assert "fsmon.sh, which your git config or the repository's runs, does not exist" in ran
    assert not (workspace / "fsmon.sh").exists()
    host(user, home, "git", "status", cwd=workspace)
    assert not marker.exists()


# Programs whose script the repository's config names so that no bind can hold it before git
# runs it: (config line, the script a command writes, what the person then runs on the host).
NOT_TOLD_OR_NOT_MADE = {
    "textconv by the tree's top": (
        '[diff "x"]\n\ttextconv = "$(git rev-parse --show-toplevel)"/tools/conv\n',
        "tools/conv",
        "diff",
    ),
    "bash -e": ("[core]\n\tfsmonitor = bash -e fsmon\n", "fsmon", "status"),
    "awk -f": ('[diff "x"]\n\ttextconv = awk -f conv\n', "conv", "diff"),
}


@needs_bwrap
@pytest.mark.parametrize("case", NOT_TOLD_OR_NOT_MADE)
def test_a_script_the_repository_runs_that_cannot_be_told_or_is_not_made_makes_commands_ask(
    api, env, user_folders, case
):
    user, workspace, planloop_home, home = user_folders
    if user == "nobody" and case == "awk -f":
        pytest.skip("two cases are enough as the unprivileged user")
    config, script, run_it = NOT_TOLD_OR_NOT_MADE[case]
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    with (workspace / ".git" / "config").open("a") as file:
        file.write(config)
    make(workspace / ".gitattributes", "* diff=x\n", user, 0o644)
    make(workspace / "a.txt", "a\n", user, 0o644)
    if case == "textconv by the tree's top":
        make(workspace / script, '#!/bin/sh\ncat "$1"\n', user)
    ident = {"GIT_AUTHOR_NAME": "me", "GIT_COMMITTER_NAME": "me", "EMAIL": "me@x.test"}
    host(user, home, "git", "add", "a.txt", ".gitattributes", cwd=workspace, env=ident)
    marker = home / "planted-ran"
    planted = f'#!/bin/sh\ntouch {marker}\ncat "$1"\n'
    if case == "awk -f":
        planted = f'BEGIN {{ system("touch {marker}") }} {{ print }}\n'
    command = f"mkdir -p {Path(script).parent}; printf '%s' '{planted}' > {script}; echo finished"
    api.add({"content": [tool_use("bash", {"command": command})]})
    write(api, script, exists=(workspace / script).exists())
    api.add({"content": [text("Done.")]})
    ran, *_, written = run(user, api, env, workspace, planloop_home, home)
    assert "sandboxed commands ask before they run" in ran and "finished" not in ran, ran
    assert REFUSED in written
    make(workspace / "a.txt", "b\n", user, 0o644)
    host(user, home, "git", run_it, cwd=workspace, env=ident)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("~/bin/pager -R", ["~/bin/pager"]),
        ("!~/bin/x.sh arg", ["~/bin/x.sh"]),
        ("less -R", []),
        ("./fsmon.sh", ["/w/fsmon.sh"]),
        ("python3 tools/conv.py %f", ["/w/tools/conv.py"]),
        ('sh -c "exec ~/a/b now"', ["~/a/b"]),
        ("!git log --format=a/b > ~/out.txt", []),
        ("f() { ~/q/r; }; f", ["~/q/r"]),
        ("FOO=/x ssh -o Opt=/y host", []),
        ("curl https://x.test/a", []),
        ('echo "open', []),
        ("sh fsmon.sh", ["/w/fsmon.sh"]),  # a script's name: opened from the tree's top
        ("sh fsmon", ["/w/fsmon"]),  # an interpreter's script, made or not, whatever its name
        ("python3.12 -u hook", ["/w/hook"]),
        ("sh -c status", []),  # a command, not a script
        ("python3 -m black", []),  # a module
        ("fsmon.sh", []),  # the program itself: looked up on PATH
        ("python3 conv.py && make all", ["/w/conv.py"]),  # `make` is a program, `all` a word
        ("cache --timeout 3600", []),
        ("!git log --oneline", []),
        # For a shell `-e` is errexit, not code: the next word is the script.
        ("bash -e fsmon", ["/w/fsmon"]),
        ("sh -eu fsmon", ["/w/fsmon"]),
        ("!f() { bash -e run; }; f", ["/w/run"]),
        ("bash -o pipefail fsmon", ["/w/fsmon"]),  # `pipefail` is the option's value
        ("perl -e code", []),
        ("node -e code", []),
        # Interpreters by a version or build of their name, and by the word naming the script.
        ("pypy3 conv", ["/w/conv"]),
        ("python3-dbg conv", ["/w/conv"]),
        ("Rscript conv", ["/w/conv"]),
        ("fish conv", ["/w/conv"]),
        ("tcsh conv", ["/w/conv"]),
        ("julia conv", ["/w/conv"]),
        ("awk -f conv", ["/w/conv"]),
        ("make -f conv", ["/w/conv"]),
        ("deno run --allow-read conv", ["/w/conv"]),
        ("uv run conv.py", ["/w/conv.py"]),
        ("uv run tools/conv", ["/w/tools/conv"]),
        ("bun run conv", ["/w/conv"]),
        ("go run conv.go", ["/w/conv.go"]),
        ("java Conv.java", ["/w/Conv.java"]),
        # Words, not scripts: no file of that name, and no interpreter's script slot.
        ("iconv -f utf-16 -t utf8", []),
        ("git-lfs filter-process", []),
        ("git-lfs clean -- %f", []),
        ("awk '{print $1}'", []),
        ("deno fmt", []),
        # A bare name after these runners' `run` is a program of the environment's PATH.
        ("uv run ruff format .", []),
        ("poetry run black .", []),
        ("pipenv run flake8", []),
        # Where a cd's options stand, the folder comes next.
        ("cd -P tools && ./pg", ["/w/tools/pg"]),
        ("pushd -n tools && ./pg", ["/w/tools/pg"]),
        # What a shell reads on its input, or takes from a file's text, it runs.
        ("cat fsmon | sh", ["/w/fsmon"]),
        ("cat fsmon|bash -s", ["/w/fsmon"]),
        ('eval "$(cat fsmon)"', ["/w/fsmon"]),
        ('sh -c "$(cat fsmon)"', ["/w/fsmon"]),
        ("git tag v$(cat VERSION)", []),
        ("cat notes | grep x", []),
        # ... whatever stage reads it, in a group or not, and a shell reached through a runner.
        ("head -c 99999 tools/later | sh", ["/w/tools/later"]),
        ("(cat later) | bash", ["/w/later"]),
        ("{ cat later; } | bash", ["/w/later"]),
        ("cat later | env sh", ["/w/later"]),
        ("cat later | sudo -u me sh -s arg", ["/w/later"]),
        # A file a shell takes as its script through a process substitution; a diff's are data.
        ("sh <(cat tools/x)", ["/w/tools/x"]),
        ("diff <(sort a) <(sort b); bash && ls", []),
        # A move in a subshell, a pipeline's stage or a background command ends with it.
        ("(cd tools && ./x); ./y", ["/w/tools/x", "/w/y"]),
        ("cd tools | ./y", ["/w/y"]),
        ("cd tools & ./y", ["/w/y"]),
        # A hook's move to the top of the tree (none above /w here: /w itself).
        ('cd "$(git rev-parse --show-toplevel)" && ./run', ["/w/run"]),
        # A program named after a wrapper of no known kind is what it runs.
        ("timeout 60 sh later", ["/w/later"]),
        ("builtin cd tools && ./run", ["/w/tools/run"]),
        ("GIT_DIR=tools/repo git status", ["/w/tools/repo"]),
        # A shell that reads its input by name, or by code that reads it, or through xargs.
        ("cat later | sh /dev/stdin", ["/w/later", "/dev/stdin"]),
        ("sh < <(cat later)", ["/w/later"]),
        ("cat later | bash -c 'exec bash'", ["/w/later"]),
        ("cat later | xargs -0 sh -c", ["/w/later"]),
        ("git diff | sh -c 'grep x'", []),
        # What code given on the line loads from the folder (python's modules: held once made).
        ("node -e 'require(\"./tools/x.js\")'", ["/w/tools/x.js"]),
        ("GIT_PROXY_COMMAND=tools/proxy git fetch", ["/w/tools/proxy"]),
        ("python3 -c \"exec(open('tools/x.py').read())\"", ["/w/tools/x.py"]),
        ("perl -e 'do \"./tools/x.pl\"'", ["/w/tools/x.pl"]),
        ("FSM=tools/fsm git --config-env=core.fsmonitor=FSM status", ["/w/tools/fsm"]),
        ("GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='hooks'\" git commit", ["/w/hooks"]),
        ("HOME=tools/h git status", ["/w/tools/h"]),
        # A script joined to its option; a here-string and a descriptor are no files.
        ("awk -f./conv x", ["/w/conv"]),
        ("make --file=conv all", ["/w/conv"]),
        ('jq . <<< "$x"', []),
        ("sh 0<fsmon", ["/w/fsmon"]),
        ("make 2>&1", []),
        # A variable of options that load a file.
        ("NODE_OPTIONS=--require=./tools/x.js node -e 1", ["/w/tools/x.js"]),
        ("NODE_OPTIONS='-r ts-node/register' node x.js", ["/w/x.js"]),
        # A file: URL, as `--import` takes it, and the files node reads for code or options.
        ("NODE_OPTIONS='--import file:///w/tools/i%20m.mjs' node -e 1", ["/w/tools/i m.mjs"]),
        ("NODE_OPTIONS=--openssl-config=ssl.cnf node -e 1", ["/w/ssl.cnf"]),
        ('meld "$LOCAL" "$REMOTE"', []),
        ("!f() { git log $1; }; f", []),
        # A variable set for the program that names code it runs; one that names data does not.
        ("BASH_ENV=tools/env.sh bash -c true", ["/w/tools/env.sh"]),
        ("env LD_PRELOAD=./x.so git status", ["/w/x.so"]),
        ("DB=./dev.db sh run.sh", ["/w/run.sh"]),
        # A setting git is given for its run: a program key's value is a command line.
        ("!git -c core.pager=tools/pg log", ["/w/tools/pg"]),
        ("!git -c color.ui=auto log", []),
        # Where the program runs from: after `cd`, `env -C`, `uv --directory`.
        ("!cd tools && ./run", ["/w/tools/run"]),
        ("env -C tools ./run", ["/w/tools/run"]),
        ("nice -n 5 sh fsmon", ["/w/fsmon"]),
        ("uv --directory /opt/x run weather.py", ["/opt/x/weather.py"]),
        # What a shell reads on its input it runs; env's split string is a command line.
        ("<tools/fsmon.sh sh", ["/w/tools/fsmon.sh"]),
        ("env -S 'sh tools/pg.sh'", ["/w/tools/pg.sh"]),
        ("sh -c 'sh<fsmon'", ["/w/fsmon"]),
        ("bash -c 'source fsmon'", ["/w/fsmon"]),
        ("GIT_PAGER=tools/pg git log", ["/w/tools/pg"]),
        ("!git -c core.hooksPath=hooks commit", ["/w/hooks"]),
        ("env --chdir=tools ./run", ["/w/tools/run"]),
        ("pushd tools && ./run", ["/w/tools/run"]),
        ("git checkout $(./scripts/pick-branch)", ["/w/scripts/pick-branch"]),
        # A pattern is no file: `[[ $f == src/*.py ]]`.
        ("f=$(jq -r .x); [[ $f == src/*.py ]] && ruff format $f", []),
    ],
)
def test_the_program_paths_of_a_command_line_in_git_config(value, found):
    expected = [Path(os.path.expanduser(path)) for path in found]
    assert program_paths(value, Path("/w")) == expected


def test_a_bare_argument_counts_when_it_names_a_file_at_the_top_of_the_tree(tmp_path):
    (tmp_path / "conv").write_text("print(1)\n")
    assert program_paths("perl conv words", tmp_path) == [tmp_path / "conv"]
    assert program_paths("perl conv words", None) == []  # your config, no tree: no base


def test_a_bare_argument_counts_when_it_names_a_link_at_the_top_of_the_tree(tmp_path):
    # A link to a file not made yet: a command that made the file would change the program.
    (tmp_path / "conv").symlink_to("later")
    assert program_paths("mytool conv", tmp_path) == [tmp_path / "conv"]


@pytest.mark.parametrize(
    "value",
    [
        "echo $'it\\'s' ; sh tools/check.sh # '",  # bash runs tools/check.sh, sh does not
        "fish -c \"echo 'it\\'s' ; sh tools/check.sh # '\"",  # fish's quoting is not sh's
        "x=$(case $1 in a) sh tools/check.sh;; esac)",  # only a shell's parser reads its `)`
        # Code glued to its option: fish reads `\x2e` as `.`, sh as `x2e`.
        'fish -c"sh tools/check\\x2esh"',
        'fish --command="sh tools/(echo check).sh"',
        'fish -lc"sh tools/check\\x2esh"',
        'zsh -c"sh tools/check.sh"',
        "pwsh -Command:'sh tools/check.sh'",
        "pwsh -c'sh tools/check.sh'",
        "PS4='+$(sh tools/check.sh)' bash -xc true",  # bash runs it as it traces
    ],
)
def test_a_line_whose_quoting_only_its_shell_can_tell_makes_commands_ask(value):
    with pytest.raises(SplitByTheShell):
        program_paths(value, Path("/w"))


def test_command_outputs_nested_deep_around_a_long_text_make_commands_ask_at_once():
    # Each output is read again as a line of its own: 40 levels around 60,000 characters
    # would be read 40 times over (minutes, for a repository's `core.pager`, at each command).
    line = "echo " + "$(echo " * 40 + "a" * 60_000 + ")" * 40
    with pytest.raises(WordTooLong):
        program_paths(line, Path("/w"))
    # (what was read counts for that line alone: the next is read as ever)
    nested = "echo $(echo $(echo $(./scripts/branch.sh)))" + " " * 60_000
    assert program_paths(nested, Path("/w")) == [Path("/w/scripts/branch.sh")]


@pytest.mark.parametrize(
    "value", ["pwsh -NoLogo -NoProfile", "powershell -nologo", "zsh -l -i", "fish --login"]
)
def test_a_shell_given_options_that_run_no_code_is_read_plainly(value):
    # (a terminal profile's or an editor's line: it names no file, and asks nothing)
    assert program_paths(value, Path("/w")) == []


TOP = "$(git rev-parse --show-toplevel)"


@pytest.mark.parametrize(
    ("value", "untold"),
    [
        (f'"{TOP}"/tools/conv', f"{TOP}/tools/conv"),
        (f'sh "{TOP}/tools/run"', f"{TOP}/tools/run"),
        ("`git rev-parse --show-toplevel`/conv", "`git rev-parse --show-toplevel`/conv"),
        ("sh ~+/fsmon", "~+/fsmon"),
        ("bash -e $GIT_DIR/hooks/run", "$GIT_DIR/hooks/run"),
        ("<$(git rev-parse --show-toplevel)/x.sh sh", f"{TOP}/x.sh"),
        # A brace expansion makes the path: any file ending as the word does after it.
        ("{tools,x}/pg", "{tools,x}/pg"),
        # A word that ends in an expansion: any file its beginning begins.
        ("tools/pg$(true)", "tools/pg$(true)"),
        ("sh ./tools/pg${NOPE}", "./tools/pg${NOPE}"),
    ],
)
def test_a_program_whose_path_a_shell_expansion_makes_cannot_be_told(value, untold):
    from tools.git_programs import UntoldProgram

    found: list[UntoldProgram] = []
    program_paths(value, Path("/w"), found)
    assert found == [UntoldProgram(Path("/w"), untold)]


@pytest.mark.parametrize(
    "value",
    [
        'meld "$LOCAL" "$REMOTE"',
        "!f() { git log $1; }; f",
        'sh -c "cd $HOME && make"',
        "~/bin/x",
        '!git checkout "$(git branch | fzf)"',  # an argument made by a command's output
        # Refspecs and branches made by the shell: git's arguments, no file to run.
        "!f() { git fetch origin pull/$1/head:pr-$1 && git checkout pr-$1; }; f",
        "!git fetch && git rebase origin/$(git branch --show-current)",
        "!env -u GIT_DIR sh -c 'exec \"$@\"' -",
        "!cat $GIT_DIR/x",
    ],
)
def test_an_expansion_where_no_program_or_script_stands_is_told(value):
    found: list = []
    program_paths(value, Path("/w"), found)
    assert found == []


def test_your_environments_variables_are_expanded_as_gits_shell_would(monkeypatch, tmp_path):
    # Your own config: `core.sshCommand = ssh -i $HOME/.ssh/key`, `alias.e = !$EDITOR`. Their
    # values are your environment's, which git's shell has too: no command need ask for them.
    monkeypatch.setenv("EDITOR", "/usr/bin/vi")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HOOKS", str(tmp_path / "work"))
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "run").write_text("exit 0\n")
    for value in ("ssh -i $HOME/.ssh/key", "!$EDITOR", "sh ${HOOKS}/run"):
        untold: list = []
        found = program_paths(value, Path("/w"), untold)
        assert untold == [], value
    assert found == [tmp_path / "work" / "run"]  # the script named through a variable counts


def test_an_untold_program_may_be_each_file_its_words_after_the_expansion_end_with():
    from tools.git_programs import UntoldProgram

    conv = UntoldProgram(Path("/w"), f"{TOP}/tools/conv")
    assert conv.may_be(Path("/w/tools/conv")) and conv.may_be(Path("/w/sub/tools/conv"))
    assert not conv.may_be(Path("/w/tools/other"))
    # A word the shell makes whole (`"$@"`, `$1`) names no file of the tree in particular.
    assert not UntoldProgram(Path("/w"), "$HOOK").may_be(Path("/w/anything"))


@pytest.mark.parametrize(
    "config",
    [
        '[remote "origin"]\n\turl = ext::sh {program} %S\n',
        '[submodule "x"]\n\tupdate = !sh {program}\n',
        '[lfs "customtransfer.x"]\n\tpath = {program}\n',
        '[lfs "extension.x"]\n\tclean = {program} %f\n',
    ],
)
def test_the_urls_submodules_and_lfs_commands_of_a_repository_count(config, tmp_path):
    from tools.git_programs import programs_of
    from tools.paths import read_git_config

    (tmp_path / "config").write_text(config.format(program="tools/x.sh"))
    assert programs_of(read_git_config(tmp_path / "config"), Path("/w")) == [Path("/w/tools/x.sh")]


def test_a_plain_url_or_submodule_update_is_no_program(tmp_path):
    from tools.git_programs import programs_of
    from tools.paths import read_git_config

    plain = '[remote "o"]\n\turl = ../mirror/x.git\n[submodule "x"]\n\tupdate = ./rebase\n'
    (tmp_path / "config").write_text(plain)
    assert programs_of(read_git_config(tmp_path / "config"), Path("/w")) == []


ALL_YOUR_KEYS = [
    "[core]\n\tpager = {program}",
    "[core]\n\teditor = {program} --wait",
    "[core]\n\tfsmonitor = {program}",
    "[core]\n\tsshCommand = {program} -i key",
    "[core]\n\taskPass = {program}",
    '[credential "https://x.test"]\n\thelper = !{program} get',
    "[gpg]\n\tprogram = {program}",
    '[gpg "ssh"]\n\tprogram = {program}',
    "[sequence]\n\teditor = {program}",
    '[difftool "x"]\n\tcmd = {program} "$LOCAL" "$REMOTE"',
    '[mergetool "x"]\n\tcmd = {program} "$MERGED"',
    '[filter "x"]\n\tsmudge = {program} %f',
    '[diff "x"]\n\ttextconv = python3 {program}',
    "[pager]\n\tlog = {program}",
    "[alias]\n\tx = !{program} --now",
    "[init]\n\ttemplateDir = {program}",
]


@pytest.mark.parametrize("config", ALL_YOUR_KEYS)
def test_each_program_key_of_your_git_config_is_held_and_asked_for(config, tmp_path, monkeypatch):
    from tools.git_programs import git_programs_in
    from tools.paths import protected_reason

    home, workspace = tmp_path / "home", tmp_path / "home" / "dotfiles"
    (workspace / "bin").mkdir(parents=True)
    (workspace / "bin" / "prog").write_text(ORIGINAL)
    (home / ".gitconfig").write_text(config.format(program="~/dotfiles/bin/prog") + "\n")
    monkeypatch.setenv("HOME", str(home))
    for variable in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(variable, raising=False)
    assert git_programs_in(workspace) == [workspace / "bin" / "prog"]
    assert REFUSED in protected_reason(workspace, "bin/prog")
    assert protected_reason(workspace, "bin/other") is None


def test_a_program_inside_git_needs_no_stand_in_and_a_linked_home_counts(tmp_path, monkeypatch):
    # Held with .git, missing or not: git's own sample is `.git/hooks/fsmonitor-watchman`.
    from tools.git_programs import git_program_not_held, git_programs_in

    real_home = tmp_path / "data" / "me"
    workspace = real_home / "dotfiles"
    (workspace / ".git").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("[core]\n\tfsmonitor = .git/hooks/query-watchman\n")
    (workspace / "bin").mkdir()
    (workspace / "bin" / "pager").write_text(ORIGINAL)
    (tmp_path / "home").symlink_to(real_home)  # your home reached through a link
    (real_home / ".gitconfig").write_text("[core]\n\tpager = ~/dotfiles/bin/pager\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for variable in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(variable, raising=False)
    entries = [workspace / ".git"]
    assert git_programs_in(workspace, entries) == [workspace / "bin" / "pager"]
    assert git_program_not_held(workspace, entries) is None


def test_a_folder_an_interpreter_runs_as_its_script_counts(tmp_path):
    # `python3 tools/conv` runs tools/conv/__main__.py, `node tools/mcp` its index.js.
    (tmp_path / "tools" / "conv").mkdir(parents=True)
    assert program_paths("python3 tools/conv", tmp_path) == [tmp_path / "tools" / "conv"]
    assert program_paths("!cd tools/conv && make", tmp_path) == []


def test_a_script_run_from_a_folder_only_the_shell_can_tell_cannot_be_told(tmp_path):
    untold: list = []
    assert program_paths('!cd "$(git rev-parse --git-dir)/.." && ./run', tmp_path, untold) == []
    assert [program.word for program in untold] == ["${PWD}/./run"]


def test_a_script_word_ending_in_an_expansion_may_be_any_file_it_begins():
    from tools.git_programs import UntoldProgram

    untold = UntoldProgram(Path("/w"), "tools/pg$(true)")
    assert untold.may_be(Path("/w/tools/pg")) and untold.may_be(Path("/w/tools/pg.sh"))
    assert not untold.may_be(Path("/w/tools/other"))
    assert not UntoldProgram(Path("/w"), '"$@"').names_a_file()


@pytest.mark.parametrize(
    ("value", "module"),
    [
        ('"/usr/bin/python3" -m nbstripout', "nbstripout"),
        ("python3 -mpkg.tool --check", "pkg"),
        ("!cd tools && python3 -m conv fix", "tools/conv"),
    ],
)
def test_the_module_of_python_dash_m_is_each_file_python_would_take_it_from(value, module):
    # python puts the folder it starts in first on its path: a `nbstripout.py` made there runs
    # in place of the installed one, and so would a package folder or an extension module.
    by_name = ByName()
    found = program_paths(value, Path("/w"), [], True, by_name)
    modules = [path for path, _ in by_name.when_there]
    assert Path(f"/w/{module}") in modules and Path(f"/w/{module}.py") in modules
    assert any(path.name.endswith(".so") for path in modules)
    # What follows the module's name is its own arguments, no script of python's.
    assert not [path for path in found if path.is_relative_to("/w")]


def test_a_script_argument_named_dash_m_is_no_module():
    by_name = ByName()
    found = program_paths("python3 tool.py -m x", Path("/w"), [], True, by_name)
    assert found == [Path("/w/tool.py")] and by_name.when_there == []


@needs_bwrap
def test_a_module_git_runs_with_python_dash_m_is_reported_when_made_and_then_held(
    api, env, user_folders
):
    # nbstripout installs `clean = python3 -m nbstripout`: git runs it from the top of the tree,
    # where python looks first. Most trees have no such file; one a command makes is told.
    user, workspace, planloop_home, home = user_folders
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    with (workspace / ".git" / "config").open("a") as file:
        file.write('[filter "strip"]\n\tclean = python3 -m nbstripout\n')
    marker = home / "planted-ran"
    planted = f"open('{marker}', 'w')"
    made = f'echo "{planted}" > nbstripout.py; echo made'
    api.add({"content": [tool_use("bash", {"command": made})]})
    package = f'mkdir nbstripout; echo "{planted}" > nbstripout/__init__.py'
    again = f'echo "{planted}" >> nbstripout.py; {package}; echo finished'
    api.add({"content": [tool_use("bash", {"command": again})]})
    write(api, "nbstripout.py")
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, second, _, written = tool_results(api)
    assert "nbstripout.py is new. It was kept, and the user was told" in first, first
    assert "python -m" in first
    assert "nbstripout.py (python imports it for a program git or a host tool runs)" in (
        result.stderr
    )
    assert "Read-only file system" in second and "finished" in second, second
    # A package of that name would come first: it cannot be held before it is made, but told.
    assert "nbstripout is new. It was kept, and the user was told" in second, second
    assert "python imports this in place of the installed module" in written
    assert (workspace / "nbstripout.py").read_text() == planted + "\n"


@pytest.mark.parametrize("value", ['python3 -c "import json; json.tool"', "python3 -m black ."])
def test_python_with_no_script_of_its_own_takes_every_module_of_its_folder(tmp_path, value):
    # python -c and -m take every module from the folder they start in first, also those the
    # named ones import in turn (`json` imports `re`). One of the standard library's names is
    # held, with its compiled copies; any other is the project's own, told when made.
    from tools.git_programs import PYTHON_FOLDER_REASON, PYTHON_NEW_MODULE_REASON

    (tmp_path / "re.py").write_text("")
    (tmp_path / "helpers.pyc").write_bytes(b"")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "re.cpython-311.pyc").write_bytes(b"")
    (tmp_path / "__pycache__" / "conftest.cpython-311-pytest-8.pyc").write_bytes(b"")
    (tmp_path / "data").mkdir()  # no package: an installed module of that name comes first
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "my-tool.py").write_text("")  # no module's name
    by_name = ByName()
    program_paths(value, tmp_path, [], True, by_name)
    found = {str(path.relative_to(tmp_path)): why for path, why in by_name.when_there}
    assert found["re.py"] == found["__pycache__/re.cpython-311.pyc"] == PYTHON_FOLDER_REASON
    assert found["helpers.pyc"] == found["pkg"] == PYTHON_NEW_MODULE_REASON
    assert not found.keys() & {"data", "notes.txt", "my-tool.py", "__pycache__"}
    assert "__pycache__/conftest.cpython-311-pytest-8.pyc" not in found


@needs_bwrap
def test_what_python_would_import_from_a_host_tools_folder_is_held_or_told(api, env, user_folders):
    # `clean = python3 -m nbstripout` runs from the top of the tree: a module there of any name
    # runs when nbstripout or python imports that name, and so does the compiled copy of the
    # module it runs, which python trusts when its header gives the source's time and size.
    user, workspace, planloop_home, home = user_folders
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    with (workspace / ".git" / "config").open("a") as file:
        file.write('[filter "strip"]\n\tclean = python3 -m nbstripout\n')
    make(workspace / "nbstripout.py", "print('vendored')\n", user, 0o644)
    make(workspace / "helpers.py", "VALUE = 1\n", user, 0o644)
    command = (
        "echo 'X = 2' >> nbstripout.py; mkdir -p __pycache__; "
        "echo forged > __pycache__/nbstripout.cpython-311.pyc; "
        "echo 'import os' > re.py; mkdir mylib; touch mylib/__init__.py; "
        "echo 'X = 2' >> helpers.py; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (first,) = tool_results(api)
    assert first.count("Read-only file system") == 1 and "finished" in first, first
    for made in ("__pycache__/nbstripout.cpython-311.pyc", "re.py", "mylib"):
        assert f"{made} is new. It was kept, and the user was told" in first, first
        assert f"{made} (python" in result.stderr
    assert "the standard library's included. Change such files with write_file" in first
    # The project's own module is its code, changed as code is; a new one of its own name is
    # told, but not held (nothing to ask before writing it).
    assert "installed one of its name.]" in first
    assert (workspace / "nbstripout.py").read_text() == "print('vendored')\n"
    assert (workspace / "helpers.py").read_text() == "VALUE = 1\nX = 2\n"


def test_a_hook_that_starts_python_with_no_script_holds_the_modules_of_the_tree(tmp_path):
    # pre-commit's hook runs `"$INSTALL_PYTHON" -mpre_commit` from the top of the tree, where
    # python takes `yaml` (pre-commit's) or `re` from first.
    from tools.git_programs import PYTHON_FOLDER_REASON, git_files_when_there

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    hook = tmp_path / ".git/hooks/pre-commit"
    hook.write_text(
        "#!/usr/bin/env bash\nINSTALL_PYTHON=/usr/bin/python3\nARGS=(hook-impl)\n"
        'exec "$INSTALL_PYTHON" -mpre_commit "${ARGS[@]}"\n'
    )
    (tmp_path / "re.py").write_text("")
    found = dict(git_files_when_there(tmp_path, [tmp_path / ".git"]))
    assert found.get(tmp_path / "re.py") == PYTHON_FOLDER_REASON
    hook.write_text("#!/bin/sh\nexec ./scripts/check.sh\n")  # a hook of no such kind
    assert tmp_path / "re.py" not in dict(git_files_when_there(tmp_path, [tmp_path / ".git"]))


def test_a_standard_module_past_thousands_of_files_is_still_held(tmp_path):
    # A command makes more files than planloop lists at the top, then a `re.py` its listing
    # would reach after them.
    from tools.git_programs import MAX_FOLDER_ENTRIES, PYTHON_FOLDER_REASON, git_files_when_there

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    hook = tmp_path / ".git/hooks/pre-commit"
    hook.write_text('#!/bin/sh\nexec /usr/bin/python3 -mpre_commit hook-impl "$@"\n')
    modules = sorted(sys.stdlib_module_names)[:60]
    for name in modules:
        (tmp_path / f"{name}.py").write_text("")
    for number in range(2 * MAX_FOLDER_ENTRIES):
        (tmp_path / f"junk{number}").touch()
    listed = [entry.name for entry in os.scandir(tmp_path)]
    late = [name for name in listed[MAX_FOLDER_ENTRIES:] if name.endswith(".py")]
    assert late, "no module lies past the listing: the test proves nothing"
    found = dict(git_files_when_there(tmp_path, [tmp_path / ".git"]))
    assert [name for name in late if found.get(tmp_path / name) != PYTHON_FOLDER_REASON] == []


# pre-commit's own hook, as `pre-commit install` writes it from the project's virtualenv.
PRE_COMMIT_HOOK = """#!/usr/bin/env bash
# File generated by pre-commit: https://pre-commit.com
INSTALL_PYTHON={python}
ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)
HERE="$(cd "$(dirname "$0")" && pwd)"
ARGS+=(--hook-dir "$HERE" -- "$@")
if [ -x "$INSTALL_PYTHON" ]; then
    exec "$INSTALL_PYTHON" -mpre_commit "${{ARGS[@]}}"
elif command -v pre-commit > /dev/null; then
    exec pre-commit "${{ARGS[@]}}"
fi
"""


def virtualenv_with(folder: Path, package: str, main: str, user: str) -> Path:
    """A `.venv` in `folder` (no pip) with `package` installed in it, whose `__main__` is
    `main`: what `pip install` leaves in site-packages. Its site-packages folder."""
    venv = ["/usr/bin/python3", "-m", "venv", "--without-pip", str(folder / ".venv")]
    subprocess.run([*prefix(user), *venv], check=True)
    (site,) = (folder / ".venv/lib").glob("python3*/site-packages")
    make(site / package / "__init__.py", "", user, 0o644)
    make(site / package / "__main__.py", main, user, 0o644)
    return site


@needs_bwrap
def test_the_packages_of_a_virtualenv_whose_python_a_hook_runs_stay_read_only(
    api, env, user_folders
):
    # `pip install pre-commit; pre-commit install` in the project's .venv: the hook runs
    # .venv/bin/python -mpre_commit, which imports pre_commit from the venv's site-packages.
    user, workspace, planloop_home, home = user_folders
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    make(workspace / ".pre-commit-config.yaml", "repos: []\n", user, 0o644)
    hook_ran = home / "hook-ran"  # (what pre-commit's stand-in does)
    original = f"open({str(hook_ran)!r}, 'w')\n"
    site = virtualenv_with(workspace, "pre_commit", original, user)
    python = workspace / ".venv/bin/python"
    make(workspace / ".git/hooks/pre-commit", PRE_COMMIT_HOOK.format(python=python), user)
    marker = home / "planted-ran"
    main = site.relative_to(workspace) / "pre_commit/__main__.py"
    command = f'echo \'open("{marker}", "w")\' >> {main}; echo finished'
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("read_file", {"path": str(main)})]})
    api.add({"content": [tool_use("write_file", {"path": str(main), "content": "x = 1\n"})]})
    api.add({"content": [text("Done.")]})
    ran, _, written = run(user, api, env, workspace, planloop_home, home)
    assert "Read-only file system" in ran and "finished" in ran, ran
    assert "was not changed" in written and "installed packages" in written, written
    assert (site / "pre_commit/__main__.py").read_text() == original
    host_commit(user, home, workspace)
    assert hook_ran.exists() and not marker.exists()


@pytest.mark.parametrize("user_folders", ["root"], indirect=True)
@needs_bwrap
def test_a_virtualenvs_packages_stay_read_only_and_an_install_is_sent_outside(
    api, env, user_folders
):
    # No hook of its: your editor's terminals activate it, and `pytest` there runs its packages.
    user, workspace, planloop_home, home = user_folders
    site = virtualenv_with(workspace / "services/api", "fmtool", "print('fmt ok')\n", user)
    installed = site.relative_to(workspace) / "fmtool/__main__.py"
    # (and pip's settings there, which the person's next `pip install` in it reads)
    command = f"echo '[global]' > services/api/.venv/pip.conf; echo 'print(2)' >> {installed}"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    (ran,) = run(user, api, env, workspace, planloop_home, home)
    assert "Read-only file system" in ran and "outside_sandbox: true" in ran, ran
    assert (site / "fmtool/__main__.py").read_text() == "print('fmt ok')\n"
    assert not (workspace / "services/api/.venv/pip.conf").exists()


HUSKY_RUNNER = """#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
sh -e "$s" "$@"
"""


@needs_bwrap
def test_husky_9s_hooks_above_its_stubs_are_held(api, env, user_folders):
    # husky 9 sets core.hooksPath to .husky/_, whose stubs run .husky/pre-commit: the person's
    # next commit runs what a command wrote there.
    user, workspace, planloop_home, home = user_folders
    host(user, home, "git", "init", "-q", ".", cwd=workspace)
    host(user, home, "git", "config", "core.hooksPath", ".husky/_", cwd=workspace)
    make(workspace / ".husky/_/h", HUSKY_RUNNER, user)
    make(workspace / ".husky/_/pre-commit", '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n', user)
    make(workspace / ".husky/pre-commit", "echo checked\n", user, 0o644)
    marker = home / "planted-ran"
    command = f"echo 'touch {marker}' >> .husky/pre-commit; echo finished"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert "Read-only file system" in ran and "finished" in ran, ran
    assert (workspace / ".husky/pre-commit").read_text() == "echo checked\n"
    host_commit(user, home, workspace)
    assert not marker.exists()
