"""What your own configuration, your environment or an .envrc names in the workspace by a path.

A sandboxed command must not change a file that something of yours runs later outside the
sandbox: a PATH folder a plain `export PATH=...` adds (in an .envrc, or in ~/.bashrc when
planloop's own environment does not have it yet), the file ~/.vimrc sources, tmux runs or an
ssh ProxyCommand is, what VIMINIT or BROWSER name, and the Makefile, package.json or module an
.envrc runs by the tool's name. Each test drives `python agent.py` end to end against the fake
API, as root and as an unprivileged user.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.your_configs import MAX_CONFIG_FILES, config_files

__all__ = ["user_folders"]  # the fixture, used by name


@pytest.fixture
def project(user_folders):
    """(user, workspace ~/proj, planloop home, home): the workspace in the home folder, as
    people keep their projects."""
    user, _work, planloop_home, home = user_folders
    workspace = home / "proj"
    workspace.mkdir()
    if user == "nobody":
        os.chown(workspace, NOBODY, NOBODY)
    return user, workspace, planloop_home, home


def write(path: Path, content: str, user: str) -> None:
    """A file (and the folders it needs) owned by the test's user, who owns the home."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    if user == "nobody":
        for made in [path, *path.parents]:
            if made.stat().st_uid == NOBODY:
                break  # the home, or a folder made before
            os.chown(made, NOBODY, NOBODY)


def run(api, env, project, command: str, extra_env: dict | None = None, write_to: str = ""):
    """The tool result of `command` (and, with `write_to`, of a write_file there after it)."""
    user, workspace, planloop_home, home = project
    api.add({"content": [tool_use("bash", {"command": command})]})
    if write_to:
        api.add({"content": [tool_use("write_file", {"path": write_to, "content": "x"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home), **(extra_env or {})}
    env.pop("XDG_CONFIG_HOME", None)
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    return "\n".join(tool_results(api))


def each_writes(files: list[str]) -> str:
    """A command that tries to change each file, and says how each try went."""
    return "; ".join(f'echo planted >> {name} 2>/dev/null; echo "{name} rc=$?"' for name in files)


def assert_held(api, env, project, held: list[str], writable: list[str] | None = None) -> None:
    """Makes each of `held` and `writable` in the workspace and tries to change them all in one
    command: those of `held` stay as they were, the others change."""
    user, workspace, _planloop_home, _home = project
    writable = writable or []
    for name in [*held, *writable]:
        write(workspace / name, "#!/bin/sh\n", user)
    output = run(api, env, project, each_writes([*held, *writable]))
    for name in held:
        assert f"{name} rc=1" in output, output
        assert (workspace / name).read_text() == "#!/bin/sh\n"
    for name in writable:
        assert f"{name} rc=0" in output, output


@needs_bwrap
def test_a_path_folder_an_envrc_or_your_bashrc_adds_by_assignment_is_held(api, env, project):
    # direnv's commonest line, and your own ~/.bashrc's, when planloop's environment does not
    # have them yet (an .envrc not allowed yet, planloop started from an IDE or cron): a `git`
    # planted in the folder would run at the next `git` you type in that shell.
    user, workspace, _planloop_home, home = project
    write(
        workspace / ".envrc",
        'export PATH="$PWD/tools:$PATH"\nPATH=${PWD}/bin2:$PATH\n'
        'export PYTHONPATH="$(pwd)/src"\nexport CFLAGS="-fplugin=$PWD/js/hook.so"\n',
        user,
    )
    write(
        home / ".bashrc",
        'export PATH="$HOME/proj/sbin:$PATH"\nPATH=~/proj/scripts:$PATH\n'
        "export EDITOR=~/proj/ed.sh\n",
        user,
    )
    files = ["tools/git", "bin2/git", "src/sitecustomize.py", "js/hook.so", "sbin/git"]
    assert_held(api, env, project, [*files, "scripts/git", "ed.sh"])


@needs_bwrap
def test_a_relative_path_an_envrc_exports_for_code_is_held(api, env, project):
    # python, gcc and bash take these from the folder the person's shell is in, the .envrc's
    # own when direnv loads it: every python there would import lib/sitecustomize.py, and an
    # interactive one would run tools/startup.py. A relative value of another variable is data.
    # (An .envrc's NODE_OPTIONS that has node load code makes commands ask instead.)
    user, workspace, _planloop_home, _home = project
    envrc = "export PYTHONPATH=lib\nexport PYTHONSTARTUP=tools/startup.py\n"
    envrc += 'export CFLAGS="-fplugin=./js/pre.so"\nexport DB=./dev.db\n'
    write(workspace / ".envrc", envrc, user)
    held = ["lib/sitecustomize.py", "tools/startup.py", "js/pre.so"]
    assert_held(api, env, project, held, writable=["dev.db"])


@needs_bwrap
def test_what_the_variables_of_a_dotenv_an_envrc_loads_name_is_held(api, env, project):
    # direnv exports a .env's variables into the person's shell as it does the .envrc's own:
    # python would import lib/sitecustomize.py, gcc load js/pre.so. (A BASH_ENV there asks:
    # the lines of the file it names are not read.)
    user, workspace, _planloop_home, _home = project
    write(workspace / ".envrc", "dotenv\ndotenv_if_exists conf\n", user)
    write(workspace / ".env", "PYTHONPATH=./lib\n", user)
    write(workspace / "conf/.env", 'export CFLAGS="-fplugin=./js/pre.so"\n', user)
    assert_held(api, env, project, ["lib/sitecustomize.py", "js/pre.so"])


@needs_bwrap
def test_what_a_tool_an_envrc_runs_by_name_reads_is_held(api, env, project):
    # direnv runs these on every `cd` into the folder, with no new `direnv allow`: the makefile's
    # recipe, package.json's script, the module `python -m` runs, and the script a recipe runs.
    user, workspace, _planloop_home, _home = project
    write(
        workspace / ".envrc",
        'eval "$(make -s env)"\neval "$(npm run -s env)"\neval "$(python3 -m tools.env)"\n',
        user,
    )
    originals = {
        "Makefile": "env:\n\t@./scripts/env.sh\n",
        "package.json": '{"scripts": {"env": "echo export B=1"}}\n',
        "tools/__init__.py": "",
        "tools/env.py": "print('export D=1')\n",
        "scripts/env.sh": "echo export A=1\n",
    }
    for name, content in originals.items():
        write(workspace / name, content, user)
    output = run(api, env, project, each_writes(list(originals)))
    for name, content in originals.items():
        assert f"{name} rc=1" in output, output
        assert (workspace / name).read_text() == content


@needs_bwrap
def test_files_your_own_configs_and_variables_name_are_held(api, env, project):
    # Your editor, tmux, systemd, ssh, your prompt and direnv's own rc run these by a path;
    # and so do the programs that read VIMINIT, BROWSER, ERL_AFLAGS.
    user, workspace, _planloop_home, home = project
    configs = {
        ".vimrc": "source ~/proj/vim/local.vim\nsource ~/proj/vim/after.vim\n",
        ".tmux.conf": "run-shell ~/proj/tmux/init.sh\nset -g status-right '#(~/proj/status.sh)'\n",
        ".ssh/config": "Host x\n  ProxyCommand ~/proj/bin/proxy %h %p\n",
        ".config/nvim/init.lua": f'dofile("{workspace}/nvim/extra.lua")\n',
        ".config/systemd/user/sync.service": "[Service]\nExecStart=%h/proj/sync.sh\n",
        ".config/starship.toml": '[custom.p]\ncommand = "~/proj/prompt.sh"\n',
        ".config/direnv/direnvrc": 'source "$HOME/proj/lib.sh"\n',
    }
    for name, content in configs.items():
        write(home / name, content, user)
    files = ["vim/local.vim", "tmux/init.sh", "status.sh", "bin/proxy", "nvim/extra.lua"]
    files += ["sync.sh", "prompt.sh", "lib.sh", "vim/init.vim", "bin/browser", "erl/boot.erl"]
    for name in files:
        write(workspace / name, "\n", user)
    variables = {
        "VIMINIT": f"source {workspace}/vim/init.vim",
        "BROWSER": f"{workspace}/bin/browser",
        "ERL_AFLAGS": f"-eval 'file:eval(\"{workspace}/erl/boot.erl\")'",
    }
    output = run(api, env, project, each_writes(files), variables, write_to="vim/after.vim")
    assert "your own configuration names" in output  # the file tools ask, and none can here
    assert not (workspace / "vim" / "after.vim").exists()
    for name in files:
        assert f"{name} rc=1" in output, output
        assert (workspace / name).read_text() == "\n"


@needs_bwrap
def test_a_folder_your_bashrc_names_that_a_command_makes_is_reported(api, env, project):
    # A folder that does not exist cannot be held; the one a command makes is told at once.
    user, workspace, _planloop_home, home = project
    write(home / ".profile", 'export PATH="$HOME/proj/tools:$PATH"\n', user)
    plant = "mkdir tools && printf '#!/bin/sh\\nid\\n' > tools/git && chmod +x tools/git"
    output = run(api, env, project, plant)
    assert "[tools is new." in output, output
    assert "your own configuration names" in output


@needs_bwrap
def test_what_is_only_mentioned_stays_writable(api, env, project):
    # Histories and editors' stores list the files you last opened, a `cd` enters a folder,
    # OLDPWD is where your shell was, TMPDIR is scratch space, and a makefile lists sources
    # it builds: none of these runs, and the workspace's own sources must stay editable.
    user, workspace, _planloop_home, home = project
    write(home / ".bash_history", "vim ~/proj/src/app.py\n", user)
    write(home / ".bashrc", "alias p='cd ~/proj/lib'\n", user)
    write(home / ".config/Code/User/globalStorage/storage.json", f'"{workspace}/src/b.py"', user)
    write(workspace / ".envrc", 'export TMPDIR="$PWD/tmp"\neval "$(make -s env)"\n', user)
    write(workspace / "Makefile", "build: src/main.c\n\tcc src/main.c\n", user)
    files = ["src/app.py", "src/b.py", "lib/x.py", "tmp/scratch", "src/main.c"]
    for name in files:
        write(workspace / name, "\n", user)
    output = run(api, env, project, each_writes(files), {"OLDPWD": str(workspace / "src")})
    for name in files:
        assert f"{name} rc=0" in output, output
        assert (workspace / name).read_text() == "\nplanted\n"


def test_reading_your_configuration_is_bounded(tmp_path, monkeypatch):
    # A home with an editor's thousands of files under ~/.config is read only in part, and
    # what is read first is what programs read first: dot files, then ~/.config's top.
    home = tmp_path / "home"
    for index in range(MAX_CONFIG_FILES + 200):
        (home / ".config" / "app" / "deep" / f"{index // 100}").mkdir(parents=True, exist_ok=True)
        (home / ".config" / "app" / "deep" / f"{index // 100}" / f"f{index}").write_text("x")
    (home / ".vimrc").write_text("source ~/proj/x.vim\n")
    (home / ".config" / "starship.toml").write_text("")
    started = time.monotonic()
    files = config_files(home, home / ".config")
    assert len(files) <= MAX_CONFIG_FILES + 1  # the part in ~/.config, and ~/.vimrc
    assert files[:2] == [home / ".vimrc", home / ".config" / "starship.toml"]
    assert time.monotonic() - started < 10


@needs_bwrap
def test_a_folder_your_vimrc_names_made_by_a_command_is_told_as_your_editors(api, env, project):
    # `set rtp+=~/proj`: vim loads spell/ from the workspace. The line that tells of the new
    # folder names what runs it as your own configuration does, not as a shell or direnv would.
    user, workspace, planloop_home, home = project
    write(home / ".vimrc", "set rtp+=~/proj\n", user)
    api.add({"content": [tool_use("bash", {"command": "mkdir spell && echo x > spell/en.vim"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    env.pop("XDG_CONFIG_HOME", None)
    result = run_as(user, api, env, workspace, home)
    flat = " ".join(result.stderr.split())
    assert "spell (a program your own configuration sets up, your editor" in flat, flat
