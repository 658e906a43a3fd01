"""Files in the workspace that the person's shell, direnv or editor runs later, on its own.

A sandboxed command may follow a prompt hidden in a file it read. Whatever it writes in the
workspace must not run outside the sandbox the next time the person opens a terminal, enters the
folder, opens it in an editor or runs perl: the files their own environment and start-up files
name, what their `.envrc` loads, and a virtualenv's bin/ stay read-only, or commands ask. Each
test drives `python agent.py` against the fake API.
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from test_hostile_pass4 import needs_bwrap, owned_file, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.paths import SMALL_FILE_LIMIT, protected_reason

__all__ = ["user_folders"]  # a fixture, used by name below


def attack(api, *paths: str) -> None:
    """One command that tries to rewrite each of `paths`, then the end of the turn."""
    written = (f"echo 'touch ~/PWNED' > {shlex.quote(path)}" for path in paths)
    command = " ; ".join(written) + "; echo done"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})


def files(root: Path, contents: dict[str, str]) -> None:
    for name, content in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)


@needs_bwrap
def test_paths_your_environment_names_stay_read_only(api, env, workspace):
    # The person's zsh, prompt and perl read these from a dotfiles checkout at every start.
    files(
        workspace,
        {
            "zsh/.zshrc": "export FOO=1\n",
            "starship.toml": 'format = "$all"\n',
            "lib/strict.pm": "1;\n",
            "rb/json.rb": "1\n",
        },
    )
    attack(api, "zsh/.zshrc", "starship.toml", "lib/strict.pm", "rb/json.rb", "zsh/.zlogin")
    more = {
        "ZDOTDIR": f"{workspace}/zsh",
        "STARSHIP_CONFIG": f"{workspace}/starship.toml",
        "PERL5LIB": f"/usr/share/perl5:{workspace}/lib",
        "RUBYLIB": f"{workspace}/rb",
    }
    result = run_cli("-p", "go", cwd=workspace, env={**env, **more})
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Read-only file system" in output
    assert (workspace / "zsh/.zshrc").read_text() == "export FOO=1\n"
    assert (workspace / "starship.toml").read_text() == 'format = "$all"\n'
    assert (workspace / "lib/strict.pm").read_text() == "1;\n"
    assert (workspace / "rb/json.rb").read_text() == "1\n"
    assert not (workspace / "zsh/.zlogin").exists()  # a new file in ZDOTDIR neither


@needs_bwrap
def test_a_library_folder_your_environment_names_that_is_missing_makes_commands_ask(
    api, env, workspace
):
    # PERL5LIB set for a checkout whose lib/ is not there yet: a command could make it.
    attack(api, "ran")
    more = {"PERL5LIB": f"{workspace}/lib"}
    result = run_cli("-p", "go", cwd=workspace, env={**env, **more})
    assert result.returncode == 0, result.stderr
    assert "named by your PERL5LIB, does not exist or is a link" in said(result)
    assert not (workspace / "ran").exists()


@needs_bwrap
def test_a_library_folder_reached_through_a_link_in_the_workspace_makes_commands_ask(
    api, env, workspace
):
    (workspace / "real").mkdir()
    (workspace / "mods").symlink_to("real")  # a command could point it at a folder of its own
    attack(api, "ran")
    more = {"NODE_PATH": f"{workspace}/mods"}
    result = run_cli("-p", "go", cwd=workspace, env={**env, **more})
    assert result.returncode == 0, result.stderr
    assert "named by your NODE_PATH, does not exist or is a link" in said(result)
    assert not (workspace / "ran").exists()


def test_write_file_asks_before_it_writes_where_your_environment_loads_code_from(
    api, env, workspace
):
    (workspace / "lib").mkdir()
    api.add({"content": [tool_use("write_file", {"path": "lib/strict.pm", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    more = {"PERL5LIB": f"{workspace}/lib"}
    result = run_cli("-p", "go", "--no-sandbox", cwd=workspace, env={**env, **more})
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "a path your PERL5LIB names is protected" in output
    assert not (workspace / "lib/strict.pm").exists()


@needs_bwrap
def test_files_your_shell_sources_from_the_workspace_stay_read_only(api, env, user_folders):
    # planloop run in ~/dotfiles, which ~/.bashrc and fish's config source by name.
    user, _, planloop_home, home = user_folders
    dotfiles = home / "dotfiles"
    dotfiles.mkdir()
    if user == "nobody":
        os.chown(dotfiles, 65534, 65534)
    for folder in ("sh", "fish"):
        (dotfiles / folder).mkdir()
        if user == "nobody":
            os.chown(dotfiles / folder, 65534, 65534)
    owned_file(dotfiles / "sh/aliases.sh", "alias ll='ls -l'\n", user)
    owned_file(dotfiles / "sh/more.sh", "alias la='ls -a'\n", user)
    owned_file(dotfiles / "fish/abbr.fish", "abbr g git\n", user)
    owned_file(dotfiles / "sh/plain.sh", "echo plain\n", user)
    owned_file(
        home / ".bashrc",
        "# the usual guard\n[ -f ~/dotfiles/sh/aliases.sh ] && . ~/dotfiles/sh/aliases.sh\n"
        'if [ -r "$HOME/dotfiles/sh/more.sh" ]; then source "$HOME/dotfiles/sh/more.sh"; fi\n',
        user,
    )
    (home / ".config/fish").mkdir(parents=True)
    owned_file(home / ".config/fish/config.fish", "source ~/dotfiles/fish/abbr.fish\n", user)
    attack(api, "sh/aliases.sh", "sh/more.sh", "fish/abbr.fish", "sh/plain.sh")
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, dotfiles, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Read-only file system" in output
    assert (dotfiles / "sh/aliases.sh").read_text() == "alias ll='ls -l'\n"
    assert (dotfiles / "sh/more.sh").read_text() == "alias la='ls -a'\n"
    assert (dotfiles / "fish/abbr.fish").read_text() == "abbr g git\n"
    assert "PWNED" in (dotfiles / "sh/plain.sh").read_text()  # not sourced: a plain file


@needs_bwrap
@pytest.mark.parametrize("before", ["", "QUIET=1 ", "2>/dev/null ", "command "])
def test_a_file_your_shell_would_source_that_is_missing_makes_commands_ask(
    api, env, workspace, tmp_path, before
):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".zshrc").write_text(f"{before}source {workspace}/local.zsh\n")
    attack(api, "local.zsh")
    result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert "local.zsh (a file your shell's start-up files source)" in said(result)
    assert not (workspace / "local.zsh").exists()


def helpers_sourced_by_bashrc(api, env, workspace, tmp_path, line):
    """planloop run where ~/.bashrc sources the project's scripts/helpers.sh, whose `line`
    sources scripts/aliases.sh, which a command then tries to rewrite."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(f". {workspace}/scripts/helpers.sh\n")
    files(workspace, {"scripts/helpers.sh": line + "\n", "scripts/aliases.sh": "alias g=git\n"})
    attack(api, "scripts/aliases.sh")
    result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    return result


@needs_bwrap
@pytest.mark.parametrize(
    "line",
    [
        '. "${BASH_SOURCE%/*}/aliases.sh"',
        'source "$(dirname "${BASH_SOURCE[0]}")/aliases.sh"',
        '. "$(cd "$(dirname "$BASH_SOURCE")" && pwd)/aliases.sh"',
        'bash "${BASH_SOURCE%/*}/aliases.sh"',
        '"$(dirname "${BASH_SOURCE[0]}")/aliases.sh" --quiet',
        'repeat 1 . "${BASH_SOURCE%/*}/aliases.sh"',  # (zsh's loop with its body on the line)
    ],
)
def test_what_a_sourced_file_of_the_workspace_takes_from_its_own_folder_stays_read_only(
    api, env, workspace, tmp_path, line
):
    # ~/.bashrc sources the project's helpers, which source or run the file beside them as
    # bash spells its own folder.
    helpers_sourced_by_bashrc(api, env, workspace, tmp_path, line)
    (output,) = tool_results(api)
    assert "Read-only file system" in output
    assert (workspace / "scripts/aliases.sh").read_text() == "alias g=git\n"


@needs_bwrap
@pytest.mark.parametrize(
    "line",
    [
        '. "$HELPERS_DIR/aliases.sh"',  # (a variable only the person's shell may have set)
        "source ./scripts/aliases.sh",  # (from wherever the terminal starts)
        'eval "$(cat "${0%/*}/aliases.sh")"',
        # (a builtin sets it again, to what a data file says)
        'T=aliases.sh; read -r T < "${BASH_SOURCE%/*}/theme"; . "${BASH_SOURCE%/*}/$T"',
        'T=aliases.sh; printf -v T "%s" "$1"; . "${BASH_SOURCE%/*}/$T"',
        # (zsh's short loops: the files its glob matches and its words are zsh's to tell)
        "for f (${BASH_SOURCE%/*}/*.sh) source $f",
        'for f (aliases.sh) { . "${BASH_SOURCE%/*}/$f" }',
        "foreach f (aliases.sh)\n. ${BASH_SOURCE%/*}/$f\nend",
    ],
)
def test_a_sourced_file_of_the_workspace_that_sources_what_only_its_shell_can_tell_asks(
    api, env, workspace, tmp_path, line
):
    """Your start-up files are yours: a source they cannot tell is left out. A file of the
    workspace they source is not: what it sources may be any file, so commands ask."""
    result = helpers_sourced_by_bashrc(api, env, workspace, tmp_path, line)
    assert "scripts/helpers.sh, which your shell's start-up files source, sources" in said(result)
    assert (workspace / "scripts/aliases.sh").read_text() == "alias g=git\n"


@needs_bwrap
def test_what_an_envrc_loads_and_tool_versions_stay_read_only(api, env, workspace):
    # direnv checks only .envrc against the folders the person allowed; what it sources and the
    # nix files nix-direnv evaluates run at the next prompt in the folder.
    contents = {
        ".envrc": "source_env scripts/env.sh\nwatch_file nix/dev.nix\nuse flake\n",
        "scripts/env.sh": "export FOO=1\n",
        "nix/dev.nix": "{ }\n",
        "flake.nix": "{ outputs = _: {}; }\n",
        "flake.lock": "{}\n",
        ".tool-versions": "python 3.12.1\n",  # asdf and mise take `python path:./evil` too
    }
    files(workspace, contents)
    attack(api, *(name for name in contents if name != ".envrc"))
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Read-only file system" in output
    for name, content in contents.items():
        assert (workspace / name).read_text() == content, name


@needs_bwrap
def test_the_nix_files_an_envrc_reaches_through_pwd_inputs_self_and_devenv_stay_read_only(
    api, env, user_folders
):
    # `$PWD` is the .envrc's folder; nix evaluates a local input's flake.nix and what a flake
    # names through `self`; devenv merges devenv.local.nix and the folders devenv.yaml imports.
    contents = {
        ".envrc": 'use flake "path:$PWD#dev"\nuse devenv\n',
        "flake.nix": (
            '{ inputs.sub.url = "path:./sub";\n'
            '  outputs = { self, sub }: { devShells.x.dev = import (self + "/nix/shell.nix") {\n'
            '    hook = builtins.readFile "${self}/scripts/hook.sh"; }; }; }\n'
        ),
        "flake.lock": "{}\n",
        "sub/flake.nix": "{ outputs = _: { }; }\n",
        "nix/shell.nix": "{ hook }: { shellHook = hook; }\n",
        "scripts/hook.sh": "echo hi\n",
        "devenv.nix": "{ }\n",
        "devenv.yaml": "imports: [ ./frontend ]\n",
        "devenv.lock": "{}\n",
        "devenv.local.nix": "{ }\n",
        "frontend/devenv.nix": "{ }\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


@needs_bwrap
def test_what_devenv_imports_through_an_input_in_a_folder_here_stays_read_only(
    api, env, user_folders
):
    # An input whose url is a folder of the workspace is imported as `./local/module` would be,
    # and nix evaluates a flake input's flake.nix: devenv runs the enterShell they give.
    contents = {
        ".envrc": "use devenv\n",
        "devenv.yaml": (
            "inputs:\n  mylocal:\n    url: path:./local\n    flake: false\n"
            "  myflake:\n    url: path:./fl\nimports:\n  - mylocal/module\n  - myflake\n"
        ),
        "devenv.nix": "{ }\n",
        "devenv.lock": "{}\n",
        "local/module/devenv.nix": '{ ... }: { enterShell = "echo hi"; }\n',
        "fl/flake.nix": "{ outputs = _: { }; }\n",
        "fl/devenv.nix": "{ }\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


# What the options of `use nix` and `use flake`, and a NIX_PATH the .envrc sets, have nix
# evaluate: `<nixpkgs>` from a folder here, nix code given as an argument, a flake in place of
# an input; with what their nix files import.
NIX_CODE_NAMED_BY_ENVRCS = {
    "search-path": {
        ".envrc": "use nix -I nixpkgs=./np\n",
        "shell.nix": "with import <nixpkgs> {}; mkShell {}\n",
        "np/default.nix": "{ ... }: import ../lib/pkgs.nix\n",
        "lib/pkgs.nix": "{ }\n",
    },
    "nix-path-setting": {
        ".envrc": "use nix --option nix-path nixpkgs=./np -p hello\n",
        "shell.nix": "{ }\n",
        "np/default.nix": "{ }\n",
    },
    "nix-path": {
        ".envrc": "export NIX_PATH=nixpkgs=$PWD/np\nuse nix\n",
        "shell.nix": "with import <nixpkgs> {}; mkShell {}\n",
        "np/default.nix": "{ ... }: import ../lib/pkgs.nix\n",
        "lib/pkgs.nix": "{ }\n",
    },
    "argument": {
        ".envrc": "use nix --arg pkgs 'import ./np {}'\n",
        "shell.nix": "{ pkgs }: pkgs.mkShell {}\n",
        "np/default.nix": "{ }\n",
    },
    "override-input": {
        ".envrc": "use flake . --override-input nixpkgs ./np\n",
        "flake.nix": '{ inputs.nixpkgs.url = "github:NixOS/nixpkgs"; outputs = _: { }; }\n',
        "flake.lock": "{}\n",
        "np/flake.nix": "{ outputs = _: { }; }\n",
    },
}


@needs_bwrap
@pytest.mark.parametrize(
    "contents", NIX_CODE_NAMED_BY_ENVRCS.values(), ids=NIX_CODE_NAMED_BY_ENVRCS
)
def test_the_nix_code_an_envrc_names_to_nix_stays_read_only(api, env, user_folders, contents):
    assert_held_by_envrc(api, env, user_folders, contents)


@needs_bwrap
def test_nix_code_an_envrc_takes_from_elsewhere_runs_commands(api, env, workspace):
    envrc = (
        "export NIX_PATH=nixpkgs=https://github.com/NixOS/nixpkgs/archive/master.tar.gz\n"
        "use nix -I nixpkgs=channel:nixos-24.05 --argstr name dev\n"
        "use flake . --override-input nixpkgs github:NixOS/nixpkgs\n"
    )
    flake = '{ inputs.nixpkgs.url = "github:NixOS/nixpkgs"; outputs = _: { }; }\n'
    contents = {".envrc": envrc, "shell.nix": "{ }\n", "flake.nix": flake, "flake.lock": "{}\n"}
    assert_runs(api, env, workspace, contents)


@needs_bwrap
def test_an_envrc_that_gives_nix_the_workspace_to_search_makes_commands_ask(api, env, workspace):
    contents = {".envrc": "use nix -I nixpkgs=.\n", "shell.nix": "import <nixpkgs/x.nix>\n"}
    why = ".envrc: it gives nix's search path `.`, the workspace itself"
    assert_asks_saying(api, env, workspace, contents, why)


def assert_held_by_envrc(
    api, env, user_folders, contents: dict[str, str], flags: tuple[str, ...] = ()
) -> None:
    """With the workspace's files `contents`, one command that tries to rewrite each file but
    the .envrc runs without a question (or with `--yes` in `flags`, approved), and each stays
    as it was."""
    user, workspace, planloop_home, home = user_folders
    files(workspace, contents)
    if user == "nobody":
        subprocess.run(["chown", "-R", "65534:65534", str(workspace)], check=True)
    attack(api, *(name for name in contents if name != ".envrc"))
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home, flags)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Read-only file system" in output and "done" in output  # it ran, and asked nothing
    for name, content in contents.items():
        assert (workspace / name).read_text() == content, name


@needs_bwrap
def test_a_new_tool_versions_is_reported(api, env, workspace):
    plant = "echo 'python path:./evil' > .tool-versions"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert ".tool-versions is new" in output and "asdf and mise" in output
    assert ".tool-versions (a host tool's configuration)" in said(result)


@needs_bwrap
def test_a_one_tool_version_file_is_read_only_and_a_new_one_is_reported(api, env, workspace):
    # mise (idiomatic version files on) runs a `path:` version's bin/node in every shell here.
    files(workspace, {".nvmrc": "20\n"})
    plant = "echo path:./tools/node > .nvmrc; echo path:./tools/py > .python-version; echo done"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert ".nvmrc: Read-only file system" in output and "done" in output, output
    assert (workspace / ".nvmrc").read_text() == "20\n"
    assert ".python-version is new" in output and "mise (with its idiomatic" in output
    assert ".python-version (a host tool's configuration)" in said(result)


# A file an .envrc sources, or runs at each load (layout_python's `$python -c ...`, the
# interpreter it is given), that is not there yet: a command could make it.
MISSING_ENVRC_FILES = {
    "sourced": ("source_env_if_exists local/env.sh\n", "local/env.sh"),
    "layout-python-interpreter": ('PY=tools/py\nlayout python "$PY"\n', "tools/py"),
}


@needs_bwrap
@pytest.mark.parametrize("envrc, missing", MISSING_ENVRC_FILES.values(), ids=MISSING_ENVRC_FILES)
def test_a_file_an_envrc_loads_that_is_missing_makes_commands_ask(
    api, env, workspace, envrc, missing
):
    assert_asks_saying(
        api, env, workspace, {".envrc": envrc}, f"{missing} (a file an .envrc loads) does not exist"
    )


# direnv's `source_up` with no name loads the nearest `.envrc` above, which direnv does not check
# against the folders you allowed: one a command makes at the top runs at the next `cd sub`.
@needs_bwrap
@pytest.mark.parametrize("source_up", ["source_up", "source_up_if_exists"])
def test_the_envrc_a_bare_source_up_loads_that_is_missing_makes_commands_ask(
    api, env, workspace, source_up
):
    contents = {"sub/.envrc": f"{source_up}\nexport SUB=1\n"}
    why = ".envrc (a file an .envrc loads) does not exist"
    assert_asks_saying(api, env, workspace, contents, why)


@needs_bwrap
def test_what_an_envrc_names_through_its_own_variables_stays_read_only(api, env, user_folders):
    # direnv's shell puts in what the file set on a line of its own before (or `$PWD`): the
    # folder is on PATH, the script sourced, as surely as if they were spelt out.
    contents = {
        ".envrc": 'BIN=tools\nPATH_add "$BIN"\nexport LIB="$PWD"/lib\nsource_env "${LIB}/env.sh"\n',
        "tools/fmt": "#!/bin/sh\n",
        "lib/env.sh": "export FOO=1\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


# A script the .envrc runs through a variable it set plainly before: direnv's shell puts the
# value in, and runs the script at every load as surely as `bash scripts/dev.sh`.
ENVRC_SCRIPT_THROUGH_A_VARIABLE = {
    "run": 'H=scripts/dev.sh\nbash "$H"\n',
    "fed": 'H=scripts/dev.sh\nsource /dev/stdin < "$H"\n',
    "evaluated": 'H=scripts/dev.sh\neval "$(cat "$H")"\n',
}


@needs_bwrap
@pytest.mark.parametrize(
    "envrc",
    ENVRC_SCRIPT_THROUGH_A_VARIABLE.values(),
    ids=ENVRC_SCRIPT_THROUGH_A_VARIABLE.keys(),
)
def test_a_script_an_envrc_runs_through_its_own_variable_stays_read_only(
    api, env, user_folders, envrc
):
    contents = {".envrc": envrc, "scripts/dev.sh": "export DEV=1\n"}
    assert_held_by_envrc(api, env, user_folders, contents)


# A shell script the .envrc runs, by a shell or by its path, runs what it sources in turn.
ENVRC_SCRIPT_CHAINS = {
    "by-a-shell": "bash scripts/setup.sh\n",
    "by-its-path": "./scripts/setup.sh\n",
    "through-its-output": 'eval "$(./scripts/setup.sh)"\n',
}


@needs_bwrap
@pytest.mark.parametrize("envrc", ENVRC_SCRIPT_CHAINS.values(), ids=ENVRC_SCRIPT_CHAINS.keys())
def test_what_a_script_an_envrc_runs_sources_stays_read_only(api, env, user_folders, envrc):
    contents = {
        ".envrc": envrc,
        "scripts/setup.sh": "#!/bin/sh\n. scripts/dev.sh\n",
        "scripts/dev.sh": "export DEV=1\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


# A shell script the .envrc runs by its bare name from a folder it puts on PATH (by PATH_add
# or its own PATH), or by its path with no `#!` (bash runs such a file as a script of its own),
# or from two folders (its `. ./local.sh` sources the one where it runs), is read as one too.
ENVRC_SCRIPTS_FOUND = {
    "by-name-from-its-path": {
        ".envrc": "PATH_add bin\ndev-env\n",
        "bin/dev-env": "#!/bin/bash\n. tools/extra\n",
        "tools/extra": "export A=1\n",
    },
    "by-name-from-an-exported-path": {
        ".envrc": 'export PATH="$PWD/bin:$PATH"\ndev-env\n',
        "bin/dev-env": "#!/bin/bash\n. tools/extra\n",
        "tools/extra": "export A=1\n",
    },
    # From a folder below, a folder of the workspace above it, run from the `.envrc`'s own.
    "by-name-from-an-exported-path-above": {
        "sub/.envrc": 'export PATH="$PWD/../tools:$PATH"\ndev-setup\n',
        "tools/dev-setup": "#!/bin/sh\n. ../scripts/lib\n",
        "scripts/lib": "export A=1\n",
    },
    "by-its-path-with-no-first-line": {
        ".envrc": "./tools/setup\n",
        "tools/setup": ". tools/extra\n",
        "tools/extra": "export A=1\n",
    },
    "from-two-folders": {
        ".envrc": "bash tools/setup.sh\ncd sub && bash ../tools/setup.sh\n",
        "tools/setup.sh": ". ./local.sh\n",
        "local.sh": "export A=1\n",
        "sub/local.sh": "export A=2\n",
    },
}


# Any program may run an executable file it is given by its path, and the system hands one with
# no `#!` to sh: it is read as a script the .envrc runs.
RUN_BY_ANOTHER_PROGRAM = {
    "through-a-wrapper": "prlimit --nofile=8192 ./tools/setup\n",
    "from-awk": "awk 'BEGIN { system(\"./tools/setup\") }'\n",
}


@needs_bwrap
@pytest.mark.parametrize("envrc", RUN_BY_ANOTHER_PROGRAM.values(), ids=RUN_BY_ANOTHER_PROGRAM)
def test_what_an_executable_script_an_envrc_names_sources_stays_read_only(
    api, env, user_folders, envrc
):
    _, workspace, _, _ = user_folders
    files(workspace, {"tools/setup": ". tools/extra\n"})
    (workspace / "tools/setup").chmod(0o755)
    contents = {".envrc": envrc, "tools/setup": ". tools/extra\n", "tools/extra": "export A=1\n"}
    assert_held_by_envrc(api, env, user_folders, contents)


@needs_bwrap
@pytest.mark.parametrize("contents", ENVRC_SCRIPTS_FOUND.values(), ids=ENVRC_SCRIPTS_FOUND)
def test_what_a_script_an_envrc_runs_by_name_or_from_two_folders_sources_stays_read_only(
    api, env, user_folders, contents
):
    assert_held_by_envrc(api, env, user_folders, contents)


@needs_bwrap
@pytest.mark.parametrize("loads", ["source ~/.autoenv/activate.sh", "plugins=(git autoenv)"])
def test_what_autoenvs_env_sources_stays_read_only_where_your_shell_loads_it(
    api, env, user_folders, loads
):
    # autoenv sources a folder's .env as shell code when you enter it, as direnv an .envrc.
    home = user_folders[3]
    files(home, {".bashrc": loads + "\n"})
    contents = {".env": ". ./scripts/dev-shell.sh\n", "scripts/dev-shell.sh": "export A=1\n"}
    assert_held_by_envrc(api, env, user_folders, contents)


# Your direnv settings that have direnv load a folder's `.env` where it finds no `.envrc`
# (`load_dotenv = true`): where each is (a path under your home), and what it says.
DIRENV_SETTINGS = {
    "global": (".config/direnv/direnv.toml", "[global]\nload_dotenv = true\n"),
    "top-level-key": (".config/direnv/direnv.toml", "load_dotenv = true\n"),
    "older-file-name": (".config/direnv/config.toml", "[global]\nload_dotenv = true\n"),
}


@needs_bwrap
@pytest.mark.parametrize("settings", DIRENV_SETTINGS.values(), ids=DIRENV_SETTINGS)
def test_what_a_dotenv_direnv_loads_itself_puts_on_path_stays_read_only(
    api, env, user_folders, settings
):
    # No .envrc: direnv loads the .env as its `dotenv` would, PATH and all, at the next prompt;
    # its parser takes `NAME: value` too (python-dotenv, and so an editor, skips the line).
    workspace, home = user_folders[1], user_folders[3]
    files(home, {settings[0]: settings[1]})
    contents = {".env": f"APP_ENV: dev\nPATH: {workspace}/tools/bin:/usr/bin:/bin\n"}
    assert_held_by_envrc(api, env, user_folders, {**contents, "tools/bin/lint": "echo lint\n"})


@needs_bwrap
@pytest.mark.parametrize("where", ["DIRENV_CONFIG", "XDG_CONFIG_HOME"])
def test_a_dotenv_direnv_loads_by_settings_your_environment_points_at_makes_commands_ask(
    api, env, workspace, tmp_path, where
):
    # direnv's parser takes a quoted value to the line's last quote of its kind: PATH is
    # `/usr/bin" #":<ws>/tools/bin:...`, which only it can tell.
    folder = tmp_path / "settings" / ("direnv" if where == "XDG_CONFIG_HOME" else "")
    files(folder, {"direnv.toml": "[global]\nload_dotenv = true\n"})
    env = {**env, where: str(folder if where == "DIRENV_CONFIG" else folder.parent)}
    contents = {".env": 'PATH="/usr/bin" #":$PWD/tools/bin:$PATH"\n', "tools/bin/lint": ""}
    told = assert_asks_saying(api, env, workspace, contents, "so any file may be what it runs")
    assert ".env (direnv loads it: `load_dotenv` in your direnv settings): its line" in told


@needs_bwrap
@pytest.mark.parametrize("settings", ["", "[global]\nload_dotenv = false\n"], ids=["none", "off"])
def test_a_dotenv_direnv_does_not_load_puts_nothing_on_path(api, env, workspace, settings):
    # Without `load_dotenv`, direnv leaves a lone .env alone: tools/bin is the workspace's.
    if settings:
        files(Path(env["HOME"]), {".config/direnv/direnv.toml": settings})
    files(workspace, {".env": 'PATH="/usr/bin" #":$PWD/tools/bin:$PATH"\n'})
    api.add(
        {"content": [tool_use("bash", {"command": "mkdir -p tools/bin && echo x > tools/bin/git"})]}
    )
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert (workspace / "tools/bin/git").read_text() == "x\n"


@needs_bwrap
def test_a_file_an_envrc_names_with_an_escaped_quote_stays_read_only(api, env, user_folders):
    # Inside double quotes `\"` is a quote in the name: bash sources and runs these files.
    contents = {
        ".envrc": 'source "scripts/dev\\"local\\".sh"\nbash "scripts/run\\"me\\".sh"\n',
        'scripts/dev"local".sh': "export DEV=1\n",
        'scripts/run"me".sh': "export RUN=1\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)
    why = protected_reason(user_folders[1], 'scripts/dev"local".sh') or ""
    assert "a file an .envrc loads is protected" in why


# However a line spells what bash sources, or runs as a shell script, the file's own lines
# are read: what they source runs at each load too.
ENVRC_SHELL_CODE_SPELLINGS = {
    "shell-script-of-any-name": "bash tools/setup\n",
    "shell-script-as-input": "sh < tools/setup\n",
    "shell-command-string": 'bash -c "source tools/setup"\n',
    "after-double-dash": "source -- tools/setup\n",
    "redirection-glued": "source tools/setup>/dev/null\n",
    "redirection-first": "source 2>/dev/null tools/setup\n",
    "standard-input": "source /dev/stdin < tools/setup\n",
    "text-evaluated": 'eval "$(cat tools/setup)"\n',
    "process-substitution": "source <(cat tools/setup)\n",
    "command-double-dash": "command -- source tools/setup\n",
    # What a command's output, or a process substitution, runs is read as lines of the file.
    "in-a-command-output": 'export V="$(source tools/setup; echo "$A")"\n',
    "in-backquotes": "V=`. tools/setup`\n",
    "in-a-process-substitution": ": <(source tools/setup)\n",
}


@needs_bwrap
@pytest.mark.parametrize(
    "envrc", ENVRC_SHELL_CODE_SPELLINGS.values(), ids=ENVRC_SHELL_CODE_SPELLINGS.keys()
)
def test_what_a_file_an_envrc_runs_as_shell_code_sources_stays_read_only(
    api, env, user_folders, envrc
):
    contents = {".envrc": envrc, "tools/setup": ". tools/extra\n", "tools/extra": "export A=1\n"}
    assert_held_by_envrc(api, env, user_folders, contents)
    assert protected_reason(user_folders[1], "tools/extra")  # (write_file asks too)


# A tool's recipe the .envrc runs (`make -s env`) that sources a script, or hands one to a
# shell, runs what that script sources too, at each load. A package.json's script
# (`npm run -s env`), read as JSON however it is written: no blank after a colon, on one line,
# an escape.
MAKE_ENV, NPM_ENV = 'eval "$(make -s env)"\n', 'eval "$(npm run -s env)"\n'
ENVRC_RECIPES = {
    "sourced": (MAKE_ENV, "Makefile", "env:\n\t@. tools/setup\n"),
    "handed-to-a-shell": (MAKE_ENV, "Makefile", "env:\n\t@sh tools/setup\n"),
    "package-script-no-blank": (
        NPM_ENV,
        "package.json",
        '{\n  "scripts": {\n    "env":"sh tools/setup"\n  }\n}\n',
    ),
    "package-script-one-line": (
        'eval "$(yarn -s env)"\n',
        "package.json",
        '{"name":"app","scripts":{"env":"sh tools/setup"}}',
    ),
    "package-script-escaped": (
        'eval "$(pnpm run env)"\n',
        "package.json",
        '{"scripts": {"env": "sh tools/set\\u0075p"}}\n',
    ),
}


@needs_bwrap
@pytest.mark.parametrize("envrc, name, recipe", ENVRC_RECIPES.values(), ids=ENVRC_RECIPES.keys())
def test_what_a_recipe_an_envrc_runs_sources_stays_read_only(
    api, env, user_folders, envrc, name, recipe
):
    contents = {
        ".envrc": envrc,
        name: recipe,
        "tools/setup": ". tools/extra\n",
        "tools/extra": "export A=1\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


@needs_bwrap
def test_a_package_json_an_envrc_runs_a_script_of_that_is_no_json_makes_commands_ask(
    api, env, workspace
):
    contents = {
        ".envrc": NPM_ENV,
        "package.json": '{"scripts": {"env": "sh tools/setup"}\n',
    }
    assert_asks_saying(api, env, workspace, contents, "cannot read as JSON")


# Recipes an .envrc's make, just or task takes from a file other than the folder's own
# (`make -f`, `just --justfile`, a makefile's `include`), and task runners whose files
# planloop does not read: what the recipe runs, and what that sources, would go unheld.
ENVRC_UNREAD_RECIPES = {
    "make-file-option": {".envrc": 'eval "$(make -s -f tools/env.mk env)"\n'},
    "make-long-file-option": {".envrc": 'eval "$(make --makefile=tools/env.mk env)"\n'},
    "make-bundled-file-option": {".envrc": 'eval "$(make -sftools/env.mk env)"\n'},
    "make-include": {".envrc": 'eval "$(make -s env)"\n', "Makefile": "include tools/env.mk\n"},
    "justfile-option": {".envrc": 'eval "$(just --justfile tools/env.mk env)"\n'},
    "rake": {".envrc": 'eval "$(rake env)"\n', "Rakefile": "task(:env) { sh 'sh tools/gen.sh' }\n"},
    "mise-task": {".envrc": 'eval "$(mise run env)"\n'},
    "devbox-hook-unread": {
        ".envrc": 'eval "$(devbox generate direnv --print-envrc)"\n',
        "devbox.json": '{"shell": {"init_hook": 1}}',
    },
    # A recipe that runs make on another file.
    "recipe-make-file-option": {
        ".envrc": 'eval "$(make -s env)"\n',
        "Makefile": "env:\n\t@$(MAKE) -s -f tools/env.mk env\n",
    },
    # What the makefile gives its recipes' shell: a shell of its own, the options it starts
    # with, a PATH with the workspace's folder first.
    **{
        f"make-{name}": {".envrc": 'eval "$(make -s env)"\n', "Makefile": f"{line}\nenv:\n\t@gen\n"}
        for name, line in {
            "shell-of-its-own": "SHELL := tools/gen.sh",
            "shell-flags": '.SHELLFLAGS = -c ". tools/gen.sh;"',
            "exported-path": "export PATH := $(CURDIR)/tools:$(PATH)",
        }.items()
    },
}


@needs_bwrap
@pytest.mark.parametrize("contents", ENVRC_UNREAD_RECIPES.values(), ids=ENVRC_UNREAD_RECIPES)
def test_recipes_an_envrc_runs_from_a_file_planloop_does_not_read_make_commands_ask(
    api, env, workspace, contents
):
    contents = {
        **contents,
        "tools/env.mk": "env:\n\t@sh tools/gen.sh\n",
        "tools/gen.sh": ". ./tools/genlib\n",
        "tools/genlib": "true\n",
    }
    assert_asks_saying(api, env, workspace, contents, "planloop does not read")


# Code in a language whose loads planloop does not follow (node's `require`, perl's `do`),
# run by the .envrc, its own `#!` or a tool's recipe: the files it loads may be any.
ENVRC_UNFOLLOWED_CODE = {
    "node-script": {
        ".envrc": 'eval "$(node tools/env.js)"\n',
        "tools/env.js": "require('./lib.js');\n",
    },
    "perl-by-its-path": {
        ".envrc": "./tools/env\n",
        "tools/env": "#!/usr/bin/perl\ndo './lib.pl';\n",
    },
    # Past what planloop reads whole, a script is still told by its `#!` line.
    "big-perl-by-its-path": {
        ".envrc": "./tools/env\n",
        "tools/env": "#!/usr/bin/perl\n" + "# notes\n" * (1 << 17) + "do './lib.pl';\n",
    },
    "a-binary-by-its-name": {".envrc": "PATH_add bin\nenv-tool\n", "bin/env-tool": "\x7fELF\x00"},
    "ruby-in-a-recipe": {
        ".envrc": 'eval "$(make -s env)"\n',
        "Makefile": "env:\n\t@ruby tools/env.rb\n",
        "tools/env.rb": "require_relative 'lib'\n",
    },
    # A build tool compiles and runs what the project's files say (src/lib.rs, build.rs).
    "cargo-run": {
        ".envrc": 'eval "$(cargo run -q --offline --bin envgen)"\n',
        "Cargo.toml": '[package]\nname = "envgen"\nversion = "0.1.0"\n',
        "src/bin/envgen.rs": 'fn main() { println!("{}", envgen::vars()); }\n',
    },
    "go-run": {".envrc": "go run ./tools/envgen\n", "tools/envgen/main.go": "package main\n"},
    "cargo-run-in-a-recipe": {
        ".envrc": 'eval "$(make -s env)"\n',
        "Makefile": "env:\n\t-cargo run --quiet --bin env\n",
    },
    "go-run-in-a-recipe": {".envrc": "make -s env\n", "Makefile": "env:\n\t@go run ./tools/env\n"},
    # devbox's direnv line runs its init hook at each load (JSON with comments, as devbox reads).
    "go-run-in-devboxs-hook": {
        ".envrc": 'eval "$(devbox generate direnv --print-envrc)"\n',
        "devbox.json": '{\n  // dev\n  "shell": {"init_hook": ["go run ./tools/env"]},\n}\n',
    },
    "java-source": {
        ".envrc": 'eval "$(java tools/Env.java)"\n',
        "tools/Env.java": "class Env {}\n",
    },
    "dotnet-through-a-wrapper": {".envrc": "timeout 60 dotnet run --project tools\n"},
    # (the wrapper's jar runs even for its version)
    "gradle-wrapper-version": {".envrc": "./gradlew --version\n", "gradlew": "#!/bin/sh\n"},
}


@needs_bwrap
@pytest.mark.parametrize("contents", ENVRC_UNFOLLOWED_CODE.values(), ids=ENVRC_UNFOLLOWED_CODE)
def test_code_an_envrc_runs_whose_loads_are_not_followed_makes_commands_ask(
    api, env, workspace, contents
):
    assert_asks_saying(api, env, workspace, contents, "planloop does not follow")


# A script whose `#!` line has env split it into a command line: that line's code runs.
SPLIT_SHEBANG = '#!/usr/bin/env -S sh -c ". ./tools/lib"\necho ready\n'
ENVRC_SPLIT_SHEBANG = {
    "by-its-path": {".envrc": "./tools/setup\n", "tools/setup": SPLIT_SHEBANG},
    "by-its-name": {".envrc": "PATH_add tools\nsetup\n", "tools/setup": SPLIT_SHEBANG},
    "python": {
        ".envrc": "./tools/setup\n",
        "tools/setup": "#!/usr/bin/env -vS python3 -c 'import lib'\n",
    },
    "big": {".envrc": "./tools/setup\n", "tools/setup": SPLIT_SHEBANG + "# notes\n" * (1 << 17)},
}


@needs_bwrap
@pytest.mark.parametrize("contents", ENVRC_SPLIT_SHEBANG.values(), ids=ENVRC_SPLIT_SHEBANG)
def test_a_script_whose_hashbang_line_is_a_command_line_makes_commands_ask(
    api, env, workspace, contents
):
    contents = {**contents, "tools/lib": "", "tools/lib.py": ""}
    assert_asks_saying(api, env, workspace, contents, "is a command line of its own")


# A command line an .envrc gives a program variable, which git, less or whatever starts your
# editor runs through a shell later: the script it names, and what that sources, are the
# shell's to run (one not there yet too), and `sh -c`'s code is a command line of its own.
ENVRC_PROGRAM_COMMAND_LINES = {
    "git-ssh-command": 'export GIT_SSH_COMMAND="sh tools/ssh"\n',
    "editor-script": 'export EDITOR="sh $PWD/tools/edit"\n',
    "editor-by-its-path": 'export EDITOR="$PWD/tools/edit"\n',
    "less-input-filter": 'export LESSOPEN="|sh $PWD/tools/edit %s"\n',
    "declared-sequence-editor": 'declare -x GIT_SEQUENCE_EDITOR="bash tools/edit"\n',
    "browser-code": "export BROWSER=\"sh -c '. tools/lib'\"\n",
    "missing-askpass": 'export GIT_ASKPASS="sh tools/askpass"\n',
    "editor-option": 'export SYSTEMD_EDITOR="/usr/bin/vim -u tools/lib"\n',
}


@needs_bwrap
@pytest.mark.parametrize(
    "envrc", ENVRC_PROGRAM_COMMAND_LINES.values(), ids=ENVRC_PROGRAM_COMMAND_LINES
)
def test_a_command_line_an_envrc_gives_a_program_variable_makes_commands_ask(
    api, env, workspace, envrc
):
    contents = {".envrc": envrc, "tools/ssh": 'exec ssh "$@"\n', "tools/lib": "true\n"}
    contents["tools/edit"] = ". tools/lib\n"
    assert_asks_saying(api, env, workspace, contents, "whose code planloop does not read")


# A config an .envrc points a tool at in its own folder, whose settings name programs the tool
# runs for you (starship's `[custom]` commands, kubectl's exec plugins, AWS's
# `credential_process`, zsh's start-up files): what those programs source would go unheld.
ENVRC_PROGRAM_CONFIGS = {
    "starship": 'export STARSHIP_CONFIG="$PWD/tools/starship.toml"\n',
    "kubeconfig-after-yours": 'export KUBECONFIG="$HOME/.kube/config:$PWD/tools/kube.yaml"\n',
    "aws": 'export AWS_CONFIG_FILE="$PWD/tools/aws.cfg"\n',
    "zsh-start-up-folder": 'export ZDOTDIR="$PWD/zdot"\n',
    "sh-start-up-file": "export ENV=tools/shrc\n",
    "from-a-dotenv": "dotenv dev.vars\n",
}


@needs_bwrap
@pytest.mark.parametrize("envrc", ENVRC_PROGRAM_CONFIGS.values(), ids=ENVRC_PROGRAM_CONFIGS)
def test_a_config_that_names_programs_an_envrc_points_into_its_folder_makes_commands_ask(
    api, env, workspace, envrc
):
    contents = {".envrc": envrc, "dev.vars": "KUBECONFIG=./tools/kube.yaml\n"}
    contents |= {"tools/starship.toml": '[custom.x]\ncommand = "sh tools/lib"\n'}
    contents |= {"zdot/.zshrc": ". ./tools/lib\n", "tools/shrc": ". ./tools/lib\n"}
    assert_asks_saying(api, env, workspace, contents, "whose programs planloop does not read")


@needs_bwrap
def test_a_config_an_envrc_points_at_outside_its_folder_runs_commands(api, env, workspace):
    envrc = 'export KUBECONFIG="$HOME/.kube/dev" AWS_CONFIG_FILE=/etc/aws/config\n'
    assert_runs(api, env, workspace, {".envrc": envrc})


@needs_bwrap
def test_a_program_variable_an_envrc_gives_a_program_outside_runs_commands(api, env, workspace):
    envrc = 'export EDITOR="code --wait" PAGER="less -R" GIT_SSH_COMMAND="ssh -o BatchMode=yes"\n'
    assert_runs(api, env, workspace, {".envrc": envrc, "tools/lib": "true\n"})


# A variable that matters given a value only the .envrc's shell can tell, by a builtin, or
# set for the one command a line runs, which direnv runs with it at each load.
SET_OUT_OF_SIGHT = {
    "read": "read -r PATH < .local/paths\n",
    "printf-v": 'printf -v PYTHONPATH "%s" "$PWD/.local"\n',
    # bash takes an option's value glued to it, and a variable's element 0 is the variable.
    "printf-v-glued": 'printf -vPATH %s ".local/bin:$PATH"\n',
    "read-a-glued": "read -raPATH < .local/paths\n",
    "wait-p-glued": "wait -n -pPATH\n",
    "printf-v-element": 'printf -v "PATH[0]" %s ".local/bin:$PATH"\n',
    "loop-variable": "for BASH_ENV in .local/bin/tool; do :; done\n",
    "for-one-command": "PYTHONPATH=$PWD/.local python3 -c pass\n",
    "program-for-one-command": 'GIT_SSH_COMMAND="sh .local/bin/tool" git ls-remote origin\n',
}


@needs_bwrap
@pytest.mark.parametrize("envrc", SET_OUT_OF_SIGHT.values(), ids=SET_OUT_OF_SIGHT)
def test_a_variable_an_envrc_sets_out_of_planloops_sight_makes_commands_ask(
    api, env, workspace, envrc
):
    assert_envrc_asks(api, env, workspace, {".envrc": envrc, ".local/paths": "/usr/bin\n"})


@needs_bwrap
def test_builtins_and_one_command_settings_of_names_that_do_not_matter_run_commands(
    api, env, workspace
):
    envrc = (
        "IFS= read -r VERSION < .version\nunset PYTHONPATH\ngit config --get core.hooksPath\n"
        "git config pull.rebase true\n"
        'EDITOR=vim git --version\nCGO_ENABLED=0 printf -v GREETING "%s" hi\n'
    )
    assert_runs(api, env, workspace, {".envrc": envrc, ".version": "1.2\n"})


@needs_bwrap
def test_absolute_path_entries_of_an_envrc_run_commands(api, env, workspace):
    # Your home and another user's are where they are, wherever you stand.
    envrc = "PATH=~/bin:~root/.local/bin:/opt/tools/bin:$PATH\nexport PYTHONPATH=/opt/lib\n"
    assert_runs(api, env, workspace, {".envrc": envrc})


@needs_bwrap
def test_a_tilde_in_a_dotenv_path_makes_commands_ask(api, env, workspace):
    # direnv's parser puts no home in: this PATH starts with the folder `~/.local/bin` here.
    dotenv = "PATH=~/.local/bin:/usr/bin:/bin\n"
    assert_envrc_asks(api, env, workspace, {".envrc": "dotenv\n", ".env": dotenv})


@needs_bwrap
def test_versions_direnv_finds_in_their_own_folders_run_commands(api, env, workspace):
    envrc = "layout pyenv 3.12.1 3.11\nuse node 20\nuse julia 1.10\nJULIA_VERSION_PREFIX=jl-\n"
    assert_runs(api, env, workspace, {".envrc": envrc})


@needs_bwrap
@pytest.mark.parametrize("name", ["GITHUB_TOKEN", "ANTHROPIC_BASE_URL"])
def test_an_envrc_gets_none_of_your_secrets_put_in_to_show_the_model(api, env, workspace, name):
    # The path it names does not exist, and the reason commands ask quotes it: with your
    # token in, it would hand the token to the model, the terminal and the session log.
    env = {**env, "GITHUB_TOKEN": "ghp_" + "T0KEN" * 8}
    told = assert_asks_saying(
        api,
        env,
        workspace,
        {".envrc": f'source_env "${name}"\n'},
        "so any file may be what it runs",
    )
    assert env[name] not in told
    assert env[name] not in "\n".join(str(result) for result in tool_results(api))


# An .envrc's options that have every node (ruby, perl, java) you start while direnv has the
# folder loaded load code first: holding the file an option names is not enough, as what that
# code loads in turn is not followed (tools/hook.js requires lib/x.js).
HOOK = {"tools/hook.js": "require('../lib/x.js');\n", "lib/x.js": "module.exports = 1;\n"}
ENVRC_PRELOADED_CODE = {
    "node-require": {".envrc": 'export NODE_OPTIONS="--require $PWD/tools/hook.js"\n', **HOOK},
    "node-import-in-a-dotenv": {".envrc": "dotenv\n", ".env": 'NODE_OPTIONS="--import=./x.mjs"\n'},
    "node-added-to": {".envrc": 'NODE_OPTIONS+=" -r ./tools/hook.js"\nexport NODE_OPTIONS\n'},
    "ruby-bundler": {".envrc": "export RUBYOPT=-rbundler/setup\n", "Gemfile": ""},
    "perl-module": {".envrc": "export PERL5OPT='-w -MDevel::Env'\n"},
    "java-agent": {".envrc": 'export JAVA_TOOL_OPTIONS="-javaagent:$PWD/tools/a.jar"\n'},
    # (make's options: a makefile or code of the folder, `I mk` as `-I mk`)
    "make-eval": {".envrc": "export MAKEFLAGS='-s --eval=include tools/x.mk'\n"},
    "make-file-among-letters": {".envrc": "export MAKEFLAGS=-sf\n"},
    "make-include-folder": {".envrc": "dotenv\n", ".env": "MAKEFLAGS='I mk'\n"},
    # (make takes any start of a long option's name that is not ambiguous, GNUMAKEFLAGS before
    # MAKEFLAGS, and a `$(MAKE)` recipe runs the environment's MAKE)
    "make-eval-abbreviated": {".envrc": "export MAKEFLAGS='-j4 --ev=-include\\ .local.mk'\n"},
    "make-include-dir-abbreviated": {".envrc": "export MAKEFLAGS=--inc=mk\n"},
    "gnumakeflags": {".envrc": "export GNUMAKEFLAGS='--eval=-include .local.mk'\n"},
    "make-program-options": {".envrc": "export MAKE='make --mak=.local.mk'\n"},
    # (a folder first on the path they load modules from, as PERL5LIB and RUBYLIB)
    "perl-include-folder": {".envrc": "export PERL5OPT=-Ilib\n"},
    "ruby-include-folder": {".envrc": "export RUBYOPT='-w -Ilib'\n"},
}


@needs_bwrap
@pytest.mark.parametrize("contents", ENVRC_PRELOADED_CODE.values(), ids=ENVRC_PRELOADED_CODE)
def test_code_an_envrc_has_every_interpreter_load_first_makes_commands_ask(
    api, env, workspace, contents
):
    assert_asks_saying(api, env, workspace, contents, "loads that code first")


@needs_bwrap
def test_makefiles_an_envrc_has_every_make_read_first_make_commands_ask(api, env, workspace):
    contents = {".envrc": "export MAKEFILES=tools/x.mk\n", "tools/x.mk": "include ../y.mk\n"}
    assert_asks_saying(api, env, workspace, contents, "sets MAKEFILES (makefiles every make")


@needs_bwrap
def test_make_options_that_load_nothing_run_commands(api, env, workspace):
    envrc = 'export MAKEFLAGS="-j8 --no-print-directory -Oline CC=clang"\n'
    assert_runs(api, env, workspace, {".envrc": envrc})


@needs_bwrap
def test_options_an_envrc_reads_from_a_file_into_node_options_make_commands_ask(
    api, env, workspace
):
    contents = {".envrc": "read -r NODE_OPTIONS < .node-options\nexport NODE_OPTIONS\n"}
    contents |= {".node-options": "--require ./tools/hook.js\n", **HOOK}
    assert_asks_saying(api, env, workspace, contents, "a value only its shell can tell")


# `export $(grep -v '^#' .env | xargs)` sets what the file's words say; the file is held, and it
# may not set what runs code or where your shell looks for programs.
EXPORTED_WORDS = "export $(grep -v '^#' .env | xargs)\n"
EXPORTED_WORDS_THAT_MATTER = {
    "path": {".envrc": EXPORTED_WORDS, ".env": "DEBUG=1\nPATH=/usr/bin:bin\n"},
    "two-on-a-line": {".envrc": EXPORTED_WORDS, ".env": 'A="1 BASH_ENV=.local/bin/tool"\n'},
    "cat": {".envrc": 'export "$(cat .env)"\n', ".env": "PYTHONPATH=/srv/lib\n"},
    "pattern": {".envrc": EXPORTED_WORDS, ".env": "A=.local/bin/*\n"},
    "missing": {".envrc": EXPORTED_WORDS},
    "too-big": {".envrc": EXPORTED_WORDS, ".env": ("A=" + "1" * 1023 + "\n") * 2048 + "PATH=bin\n"},
    "a-variable": {".envrc": 'NAMES="PATH=bin:$PATH"\nexport $NAMES\n'},
    "only-matching": {".envrc": "export $(grep -o 'X.*' .env)\n", ".env": "XPATH=bin\n"},
}


@needs_bwrap
@pytest.mark.parametrize(
    "contents", EXPORTED_WORDS_THAT_MATTER.values(), ids=EXPORTED_WORDS_THAT_MATTER
)
def test_names_an_envrc_exports_from_words_it_cannot_tell_make_commands_ask(
    api, env, workspace, contents
):
    assert_asks_saying(api, env, workspace, contents, "so any file may be what it runs")


@needs_bwrap
def test_a_dotenv_an_envrc_exports_word_by_word_is_held_and_its_plain_names_run(
    api, env, workspace
):
    dotenv = "# local settings\nDATABASE_URL=postgres://localhost/dev\nNODE_ENV=development\n"
    files(workspace, {".envrc": EXPORTED_WORDS, ".env": dotenv})
    attack(api, ".env", "ran")
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert (workspace / "ran").exists()
    assert (workspace / ".env").read_text() == dotenv


@needs_bwrap
def test_an_envrc_that_asks_node_its_version_runs_no_code_of_the_workspace(api, env, workspace):
    assert_runs(api, env, workspace, {".envrc": "node --version >/dev/null\n"})


# A build tool asked what it is, or go where its folders are, builds nothing.
BUILD_TOOL_QUESTIONS = {
    "go-env": 'export GOPATH="$(go env GOPATH)"\n',
    "cargo-version": "cargo --version >/dev/null\n",
    "java-home": "java -XshowSettings:properties -version 2>/dev/null\n",
}


@needs_bwrap
@pytest.mark.parametrize("envrc", BUILD_TOOL_QUESTIONS.values(), ids=BUILD_TOOL_QUESTIONS)
def test_an_envrc_that_asks_a_build_tool_what_it_is_runs_no_code_of_the_workspace(
    api, env, workspace, envrc
):
    assert_runs(api, env, workspace, {".envrc": envrc, "Cargo.toml": "", "go.mod": "module x\n"})


# Lines people keep in an .envrc that name a shell or an interpreter and run none of it.
VERSION_MANAGER_LINES = {
    "mise": 'eval "$(mise activate bash)"\n',
    "rbenv": 'eval "$(rbenv init - bash)"\n',
    "nvm": "nvm use node\n",
    "pixi": 'eval "$(pixi shell-hook --shell bash)"\n',
    "poetry": "poetry env use python3\n",
    "uv": "uv venv --python=python3.12\n",
    "asdf": "asdf install python 3.12.1\n",
    "volta": "volta pin node\n",
    "sdkman": "sdk use java 21-tem\n",
}


@needs_bwrap
@pytest.mark.parametrize("envrc", VERSION_MANAGER_LINES.values(), ids=VERSION_MANAGER_LINES)
def test_a_version_manager_line_that_names_a_shell_runs_no_code_of_the_workspace(
    api, env, workspace, envrc
):
    assert_runs(api, env, workspace, {".envrc": envrc})


@needs_bwrap
def test_an_envrc_that_only_looks_for_a_shell_runs_no_code_of_the_workspace(api, env, workspace):
    envrc = 'command -v bash >/dev/null && echo "bash found"\n[[ $SHELL == */bash ]] || :\n'
    assert_runs(api, env, workspace, {".envrc": envrc})


@needs_bwrap
def test_what_only_the_shell_of_a_script_an_envrc_runs_can_tell_makes_commands_ask(
    api, env, workspace
):
    setup = "#!/usr/bin/env bash\n. scripts/de?.sh\n"
    contents = {".envrc": "bash scripts/setup.sh\n", "scripts/setup.sh": setup}
    assert_asks_saying(
        api,
        env,
        workspace,
        contents,
        ".envrc: it runs scripts/setup.sh, whose line `. scripts/de?.sh`",
    )


@needs_bwrap
def test_a_script_whose_output_an_envrc_runs_printing_files_a_pattern_picks_makes_commands_ask(
    api, env, workspace
):
    # Its output is code: a file a command adds under config/ would be in it.
    setup = "#!/bin/sh\ncat config/*.sh\n"
    envrc = 'eval "$(./scripts/print-env.sh)"\n'
    contents = {".envrc": envrc, "scripts/print-env.sh": setup, "config/app.sh": ""}
    assert_asks_saying(api, env, workspace, contents, "prints the files `config/*.sh` picks")


@needs_bwrap
def test_a_file_an_envrc_sources_that_is_too_big_to_read_makes_commands_ask(api, env, workspace):
    # bash sources it whole: past what planloop reads, it may put any folder on PATH.
    padding = "# notes\n" * (1 << 17)
    files(workspace, {".envrc": "source scripts/env.sh\n"})
    contents = {"scripts/env.sh": padding + "PATH_add .local/bin\n", ".local/bin/tool": ""}
    assert_asks_saying(api, env, workspace, contents, "scripts/env.sh, larger than planloop reads")


@needs_bwrap
@pytest.mark.parametrize("envrc", ["dotenv .env\n", "dotenv\n", "dotenv_if_exists .env\n"])
def test_a_dotenv_file_an_envrc_loads_that_is_too_big_to_read_makes_commands_ask(
    api, env, workspace, envrc
):
    # direnv's dotenv reads it whole and exports `PATH=tools:...`; taken for empty, a command
    # could plant tools/git unasked, which your next `git` here would run. (Long lines:
    # planloop's own reading of a `.env` stops at a count of lines first.)
    padding = ("# " + "-" * 98 + "\n") * 11_000
    contents = {".envrc": envrc, ".env": "PATH=tools:/usr/bin:/bin\n" + padding}
    why = ".envrc: it loads the dotenv file .env, which is larger than planloop reads"
    assert_asks_saying(api, env, workspace, contents, why)


@needs_bwrap
def test_a_makefile_an_envrc_runs_that_is_too_big_to_read_makes_commands_ask(api, env, workspace):
    # make reads it whole: past what planloop reads, a recipe may run any script of the
    # workspace at direnv's next load.
    makefile = "env:\n\tsh scripts/setup.sh\n" + "# notes\n" * (1 << 17)
    contents = {".envrc": "make -s env\n", "Makefile": makefile, "scripts/setup.sh": "echo\n"}
    why = ".envrc: it runs Makefile, which is larger than planloop reads"
    assert_asks_saying(api, env, workspace, contents, why)


@needs_bwrap
def test_a_small_dotenv_file_and_makefile_an_envrc_uses_are_read_as_before(api, env, workspace):
    # Read whole: a command runs with no question, and the script the recipe runs is held.
    # A big dotenv file of yours, outside the workspace, is yours to trust: it asks nothing.
    (workspace.parent / "mine.env").write_text("GREETING=hello\n" + "# notes\n" * (1 << 17))
    contents = {
        ".envrc": "dotenv .env\ndotenv ../mine.env\nmake -s env\n",
        ".env": "GREETING=hello\n",
        "Makefile": "env:\n\tsh scripts/setup.sh\n",
        "scripts/setup.sh": "echo setting up\n",
    }
    files(workspace, contents)
    attack(api, "scripts/setup.sh", "ran")
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert "Read-only file system" in tool_results(api)[0]
    assert (workspace / "scripts/setup.sh").read_text() == "echo setting up\n"
    assert (workspace / "ran").exists()


@needs_bwrap
@pytest.mark.parametrize(
    "prefix, folder", [(".local", ".local/"), ('""', "")], ids=["folder", "empty-word"]
)
def test_what_load_prefix_and_use_vim_put_in_your_environment_stays_read_only(
    api, env, user_folders, prefix, folder
):
    # `load_prefix .local` puts .local/bin first on PATH and .local/lib on LD_LIBRARY_PATH
    # (`load_prefix ""`: the .envrc's folder, as direnv's `expand_path ""` makes it);
    # `use vim` has the direnv.vim plugin source .vimrc.local into your vim.
    contents = {
        ".envrc": f"load_prefix {prefix}\nuse vim\n",
        f"{folder}bin/git": "#!/bin/sh\n",
        f"{folder}lib/libz.so.1": "\x7fELF\n",
        ".vimrc.local": "set number\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


@needs_bwrap
def test_a_path_folder_an_envrc_takes_from_its_dotenv_over_yours_stays_read_only(
    api, env, user_folders
):
    # direnv's `dotenv` exports the .env's GOBIN over the one your environment has, for the
    # lines after it: .local/bin goes first on your PATH, not ~/go/bin.
    contents = {
        ".envrc": 'dotenv\nPATH_add "$GOBIN"\n',
        ".env": "GOBIN=.local/bin\n",
        ".local/bin/tool": "#!/bin/sh\n",
    }
    assert_held_by_envrc(api, {**env, "GOBIN": "/opt/go/bin"}, user_folders, contents)


# A tool the .envrc runs in another folder by its own option reads its files there.
ENVRC_TOOL_IN_A_FOLDER = {
    "make": ('eval "$(make -s -C web env)"\n', "web/Makefile", "env:\n\t@echo A=1\n"),
    "npm": ('eval "$(npm --prefix web run -s env)"\n', "web/package.json", "{}\n"),
}


@needs_bwrap
@pytest.mark.parametrize(
    "envrc, name, content", ENVRC_TOOL_IN_A_FOLDER.values(), ids=ENVRC_TOOL_IN_A_FOLDER
)
def test_the_files_of_a_tool_an_envrc_runs_in_another_folder_stay_read_only(
    api, env, workspace, envrc, name, content
):
    files(workspace, {".envrc": envrc, name: content})
    attack(api, name)
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Read-only file system" in output and "done" in output, output
    assert (workspace / name).read_text() == content


UNTOLD_ENVRC_LINES = {
    "glob-loop": 'for f in .envrc.d/*.sh; do source_env "$f"; done\n',
    "unset-variable": 'PATH_add "$PROJECT_TOOLS/bin"\n',
    "command-output": 'source_env "$(git rev-parse --show-toplevel)/env.sh"\n',
    "set-by-read": 'read -r BIN < .bin-dir\nPATH_add "$BIN"\n',
    # Builtins that set the variable they name, over the value a line gave it before: getopts
    # (`?` once the options end), `wait -p` (empty: no job), coproc and a redirection's `{D}`
    # (numbers), select (what the person picks).
    **{
        f"set-by-{name}": f'BIN=.local/bin\n{line}\nPATH_add "$BIN"\n'
        for name, line in {
            "getopts": "getopts a BIN || true",
            "wait": "wait -p BIN",
            "coproc": "coproc BIN { :; }",
            "descriptor": "exec {BIN}>/dev/null",
            "select": "select BIN in a b; do break; done </dev/null",
        }.items()
    },
    "added-to": 'BIN=tools\nBIN+=/bin\nsource_env "$BIN/env.sh"\n',
    "unread-function": "use guix\n",
    "computed-command": "$(echo PATH_add) .local/bin\n",
    "eval-of-computed-words": 'eval "$(echo PATH_add) .local/bin"\n',
    "layout-dir-from-output": 'direnv_layout_dir="$(mktemp -d)"\nlayout go\n',
    "virtualenv-from-output": 'export VIRTUAL_ENV="$(mktemp -d)"\nlayout python3\n',
    # A relative path is taken from whichever folder below the .envrc's you stand in, where
    # direnv stays loaded: `src/.local/bin/git`, `src/.gitconfig.local`.
    "aliases": "shopt -s expand_aliases\nalias p=PATH_add\np .local/bin\n",
    # What direnv's own functions read as a path: `use node` loads and runs NODE_VERSIONS'
    # versions; direnv.vim's vimrc sources DIRENV_EXTRA_VIMRC in whichever folder vim opens.
    "relative-node-versions": "export NODE_VERSIONS=.local\nuse node\n",
    "relative-extra-vimrc": "export DIRENV_EXTRA_VIMRC=.local/bin/tool\n",
    # A version manager's root: `layout pyenv` runs its versions/3.12/bin/python at each load,
    # `use nodenv` puts its versions' bin/ first on PATH, your shims run its plugins' bin/.
    "relative-pyenv-root": "export PYENV_ROOT=.local\nlayout pyenv 3.12\n",
    "relative-rbenv-root": "export RBENV_ROOT=.local\nuse rbenv\n",
    "relative-asdf-data-dir": "export ASDF_DATA_DIR=.local\n",
    "relative-java-home": "export JAVA_HOME=.local\n",
    "relative-hook-path": "export PYENV_HOOK_PATH=/opt/hooks:.local\n",
    # direnv's `rvm` sources rvm from the folder these name.
    "relative-rvm-scripts-path": "rvm_scripts_path=.local/bin\nrvm use 3.2\n",
    "relative-rvm-path": "export rvm_path=.local\nrvm use 3.2\n",
    # Where nix takes `<nixpkgs>` from: the folder you stand in at your next nix-shell.
    "relative-nix-path": "export NIX_PATH=nixpkgs=.local:$NIX_PATH\n",
    # A version that climbs out of the folder of versions direnv joins it to: `layout pyenv`
    # runs `$(pyenv root)/versions/../../..<ws>/.local/bin/python`, `use julia` (its prefix
    # emptied) puts `/usr/..<ws>/.local/bin` first on PATH and runs its julia.
    "pyenv-version-climbing": 'layout pyenv 3.12 "../../../../../../../..$PWD/.local"\n',
    "julia-version-climbing": (
        'export JULIA_VERSIONS=/usr\nJULIA_VERSION_PREFIX=\nuse julia "..$PWD/.local"\n'
    ),
    "node-version-climbing": "use_node ../../.local\n",
    "node-version-prefix-climbing": (
        "export NODE_VERSIONS=/opt\nNODE_VERSION_PREFIX=../..\nuse node 20\n"
    ),
    # `~+` is the folder the .envrc's shell stands in ($PWD), in a value's entry or a command.
    "stack-entry-in-a-code-variable": "export PYTHONPATH=~+/.local/lib\n",
    "stack-entry-in-a-later-entry": "export NODE_PATH=/opt/node:~+/.local/lib\n",
    "stack-entry-as-a-program": 'eval "$(~+/.local/bin/tool)"\n',
    # (bash's POSIX mode expands aliases in a script too)
    "aliases-in-posix-mode": "POSIXLY_CORRECT=1\nalias p=PATH_add\np .local/bin\n",
    "aliases-after-set-o-posix": "set -o posix\nalias p=PATH_add\np .local/bin\n",
    "evals-past-the-bound": functools.reduce(
        lambda line, _: f"eval {shlex.quote(line)}", range(9), "PATH_add .local/bin"
    )
    + "\n",
    "relative-path-entry": 'export PATH=".local/bin:$PATH"\n',
    "empty-path-entry": 'PATH=":$PATH"\n',
    "relative-git-config": "export GIT_CONFIG_GLOBAL=.gitconfig.local\n",
    "relative-config-home": "export XDG_CONFIG_HOME=.config\n",
    "relative-make": "export MAKE=.local/bin/tool\n",
    # git settings the file has git write at each load: what they will name is not held yet.
    "git-hooks-folder-set": "git config core.hooksPath .local/bin\n",
    "git-include-set": "git -C . config --local include.path ../.local/bin/tool\n",
    "git-program-set": "git config set core.pager .local/bin/tool\n",
    # Paths spelt absolute that are still taken from where you stand: a process's own folder
    # (`/proc/self/cwd`, through a link too: /dev/fd), and `~name` for no user bash knows.
    "path-through-proc": "PATH=/proc/self/cwd/.local/bin:$PATH\n",
    "path-added-through-proc": "PATH_add //proc/thread-self/cwd/.local/bin\n",
    "git-config-through-proc": "export GIT_CONFIG_GLOBAL=/proc/self/cwd/.gitconfig.local\n",
    "code-variable-through-proc": "export PYTHONPATH=/proc/self/cwd/.local/lib\n",
    "path-through-dev-fd": "exec 9<.\nPATH=/dev/fd/9/.local/bin:$PATH\n",
    "tilde-of-no-user": "PATH=~no-such-user-here/.local/bin:$PATH\n",
    # A `~` the quotes keep is no home: git's search of PATH and its config take `~/...` from
    # where they run, a folder named `~` there.
    "quoted-tilde-in-path": 'export PATH="/opt/bin:~/.local/bin:$PATH"\n',
    "quoted-tilde-git-config": "export GIT_CONFIG_GLOBAL='~/.gitconfig.local'\n",
    "escaped-tilde-in-path": "PATH=\\~/.local/bin:$PATH\n",
    # A value a command's output makes: `node_modules/.bin` first on PATH.
    "path-from-output": 'export PATH="$(npm root)/.bin:$PATH"\n',
    "git-config-from-output": 'export GIT_CONFIG_GLOBAL="$(git rev-parse --show-toplevel)/.gc"\n',
    # A variable only its shell can tell in the value (a function's argument, a loop's, one
    # set nowhere), or an array's: `.local/bin` first on PATH, as `PATH_add` of it asks.
    "path-from-a-function-argument": (
        'add_tool() {\n  export PATH="$PWD/$1/bin:$PATH"\n}\nadd_tool .local\n'
    ),
    "path-from-a-loop": 'for t in .local; do export PATH="$PWD/$t/bin:$PATH"; done\n',
    "path-from-a-variable-set-nowhere": 'export PATH="$PWD/.local/$PROJECT_BIN:$PATH"\n',
    "code-variable-from-a-loop": 'for d in .local; do export PYTHONPATH="$PWD/$d/lib"; done\n',
    "path-element": "PATH[0]=.local/bin\n",
    "path-added-to-relatively": 'PATH+=":.local/bin"\n',
    # A function of direnv's stdlib, or a builtin of bash, the file replaces: direnv's own
    # PATH_add runs its `expand_path`, and that its `echo`; and `$direnv`, which the stdlib runs.
    "stdlib-function-replaced": 'expand_path() { echo "$PWD/.local/$1"; }\nPATH_add bin\n',
    "stdlib-function-replaced-glued": (
        'PATH_add(){ export PATH="$PWD/.local/bin:$PATH"; }\nPATH_add bin\n'
    ),
    "builtin-replaced": 'function echo {\n  builtin echo "$PWD/.local/bin"\n}\nPATH_add bin\n',
    "builtin-turned-off": "enable -n echo\nPATH_add bin\n",
    "direnv-program-set": "direnv=.local/bin/tool\n",
    # A function's body runs with the values where it is called, not where it is defined; and
    # one in parentheses sets nothing for the file's shell (nor does one never called).
    "function-run-with-a-value-for-it": 'B=bin\nf() { PATH_add "$B"; }\nB=.local/bin f\n',
    "function-run-after-its-value-changes": 'B=bin\nf() {\n  PATH_add "$B"\n}\nB=.local/bin\nf\n',
    "function-body-in-parentheses": 'f() (\n  B=.local/bin\n)\nPATH_add "$B"\n',
    # bash splits a value put in unquoted into words: this runs `PATH_add .local/bin`.
    "word-split-command": 'P="PATH_add .local/bin"\n$P\n',
    "brace-expansion": "source_env .envrc.{local,dev}\n",
    "tilde-plus": "PATH_add ~+/.local/bin\n",
    # bash's OLDPWD: after direnv's `pushd`, the folder you stand in.
    "tilde-minus-in-path": 'export PATH=~-/.local/bin:"$PATH"\n',
    # A move whose folder only the shell can tell: a relative word after it may be read from any.
    "cd-to-a-variable": 'cd "$TOOLS_DIR"\nPATH_add bin\n',
    "cd-in-a-function": "up() {\n  cd ..\n}\nPATH_add .local/bin\n",
    "pushd": "pushd .local\nPATH_add bin\npopd\n",
    # bash's `cd` looks in CDPATH first, however the file sets it: tools/.local, where it is.
    "cd-through-its-cdpath": "export CDPATH=tools\ncd .local\nPATH_add bin\n",
    "cd-through-a-plain-cdpath": "CDPATH=tools\ncd .local\nPATH_add bin\n",
    "cd-with-a-cdpath-before-it": "CDPATH=tools cd .local\nPATH_add bin\n",
    # bash drops what a subshell sets: this is `PATH_add ""`, the .envrc's own folder.
    "set-in-a-subshell": '(BIN=.local/bin; mkdir -p "$BIN")\nPATH_add "$BIN"\n',
    # Nor what a pipeline's part or a background command sets; and a value set in a branch, a
    # loop, a function's body or after `&&` may never be set.
    "set-in-a-pipeline": 'BIN=.local/bin | true\nPATH_add "$BIN"\n',
    "set-in-the-background": 'BIN=.local/bin &\nPATH_add "$BIN"\n',
    "set-in-a-branch": 'if [ -n "$CI" ]; then\n  BIN=.local/bin\nfi\nPATH_add "$BIN"\n',
    "set-after-and": '[ -n "$CI" ] && BIN=.local/bin\nPATH_add "$BIN"\n',
    "set-in-a-function": 'f() {\n  BIN=.local/bin\n}\nPATH_add "$BIN"\n',
    # bash splits a value put in unquoted at IFS's characters, planloop at blanks.
    "ifs": "IFS=/\nBIN=.local/bin\nPATH_add $BIN\n",
    # A POSIX shell keeps a variable set for a special builtin (`:`, `export`, `.`, `eval`):
    # bash after `set -o posix`, or once POSIXLY_CORRECT is set.
    "posix-mode": 'set -o posix\nBIN=bin\nBIN=.local/bin :\nPATH_add "$BIN"\n',
    "posixly-correct": 'POSIXLY_CORRECT=1\nBIN=bin\nBIN=.local/bin export BIN\nPATH_add "$BIN"\n',
    "posix-mode-ifs": "set -o posix\nIFS=/ :\nBIN=.local/bin\nPATH_add $BIN\n",
    # bash puts no value in at a `$` quotes keep, and `$B` of a reference is another's value.
    "dollar-in-single-quotes": "BIN=.local/bin\nPATH_add '$BIN'\n",
    "dollar-escaped": 'BIN=.local/bin\nPATH_add "\\$BIN"\n',
    # Nor at a `$` before a quote or a backslash: bash translates `$"BIN"` by message catalogs,
    # reads `$''BIN` as `BIN`, and `"$"BIN` and `$\BIN` as `$BIN` itself.
    "dollar-before-double-quotes": 'BIN=.local/bin\nPATH_add $"BIN"\n',
    "dollar-before-single-quotes": "BIN=.local/bin\nPATH_add $''BIN\n",
    "dollar-last-in-quotes": 'BIN=.local/bin\nPATH_add "$"BIN\n',
    "dollar-before-a-backslash": "BIN=.local/bin\nPATH_add $\\BIN\n",
    "name-reference": 'declare -n BIN=TOOLS\nTOOLS=bin\nPATH_add "$BIN"\n',
    # After `declare -n P=PATH`, an assignment to P sets PATH: this gives it an empty entry.
    "name-reference-assigned-to": 'declare -n P=PATH\nP=":$P"\n',
    "name-reference-exported": 'typeset -n G=GIT_CONFIG_GLOBAL\nexport G="$PWD/.gitconfig.dev"\n',
    "name-reference-in-a-function": 'f() {\n  local -n v=$1\n  v=":$v"\n}\nf PATH\n',
    # bash turns each value assigned to a variable with a case attribute to upper (or lower)
    # case, a later plain one too: this adds `.LOCAL/BIN`.
    "upper-case-attribute": 'declare -u BIN=.local/bin\nPATH_add "$BIN"\n',
    "case-attribute-before": 'typeset -l BIN\nBIN=.local/bin\nPATH_add "$BIN"\n',
    # Lines planloop does not read as bash does: a here-document's text (an apostrophe in it
    # opens no quote), and a `[[ ]]` pattern whose blanks and `#` are its own.
    "here-document": "cat <<EOF\nWelcome! Don't forget: make setup\nEOF\nPATH_add .local/bin\n",
    "test-pattern-in-parentheses": "[[ $PWD =~ (/ci/| #) ]] || PATH_add .local/bin\n",
    "test-pattern-past-its-end": "[[ $PWD =~ (/ci/| ]] ) ]] || PATH_add .local/bin\n",
    # Code bash keeps in a string, or a value, and runs later: at exit, before each command (a
    # DEBUG trap's `cd` moves the lines after it), as mapfile's callback, or in arithmetic,
    # which runs a subscript's `$(...)`, and prompt expansion.
    "exit-trap": "trap '. .local/bin/too?' EXIT\n",
    "debug-trap-cd": "trap 'cd .local 2>/dev/null' DEBUG\nPATH_add bin\n",
    "mapfile-callback": "mapfile -t -C '. .local/bin/too? #' -c 1 X < .envrc\n",
    "arithmetic-subscript": "i='a[$(. .local/bin/too?)]'\n(( i ))\n",
    "arithmetic-test": "i=$(cat .local/i)\n[[ $i -eq 1 ]] || PATH_add bin\n",
    "prompt-expansion": "P='$(. .local/bin/too?)'\n: \"${P@P}\"\n",
    # A command's output that runs a file a pattern matches.
    "pattern-in-output": 'declare -a "x=($(. .local/bin/too?))"\n',
    "pattern-in-backquotes": "echo `sh .local/bin/too?`\n",
    "pattern-in-process-substitution": "bash <(cat .local/bin/too?)\n",
    # A script a shell (or another interpreter) runs by a word only its shell can tell, or
    # commands it reads from its input; what `source` reads from a command or its input.
    "loop-to-a-shell": 'for f in .local/bin/*; do bash "$f"; done\n',
    "loop-to-python": 'for f in .local/bin/*; do python3 "$f"; done\n',
    "piped-to-a-shell": "cat .local/bin/tool | sh\n",
    "sourced-input": "cat .local/bin/tool | source /dev/stdin\n",
    "sourced-descriptor-opened-before": "exec 3<.local/bin/tool\nsource /dev/fd/3\n",
    "source-option": "source -p .local/bin tool\n",
    "printed-text": "eval \"$(sed 's/^/export /' .local/bin/tool)\"\n",
    # What direnv exports that your shell, vim or git runs as code, not a path: at each prompt,
    # at vim's start, at each `git status`; and CDPATH, which sends each later `cd` elsewhere.
    "prompt-command": "export PROMPT_COMMAND='. .local/bin/tool'\n",
    "xtrace-prompt": "PS4='+$(. .local/bin/too?)'\nset -x\n:\nset +x\n",
    "vim-start": "export VIMINIT='source .local/bin/tool'\n",
    "bash-env": "BASH_ENV=.local/bin/tool bash -c :\n",
    "editor-pattern": "export EDITOR='sh .local/bin/too?'\n",
    "cdpath": "export CDPATH=.local\n",
    "cdpath-for-one-cd": "CDPATH=/tmp cd .local\nPATH_add bin\n",
    # git's settings, given one by one or as a config of the project's: its core.fsmonitor
    # runs at the next `git status`, a program planloop does not read there.
    "git-settings": (
        "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor\n"
        "export GIT_CONFIG_VALUE_0='sh .local/bin/too?'\n"
    ),
    "git-config-here": 'export GIT_CONFIG_GLOBAL="$PWD/.gitconfig.dev"\n',
    # bash's expansions that set a variable where it is unset or empty (`${NAME:=value}`,
    # `${NAME=value}`), an element of it, or the one whose name another holds: the same
    # config, PYTHONPATH the workspace itself, `.local/bin` on PATH, then a value only the
    # shell can tell (`B` was empty: this sources `.local/bin/tool`).
    "git-config-where-unset": ': "${GIT_CONFIG_GLOBAL:=$PWD/.gitconfig.dev}"\n',
    "code-variable-where-unset": ": ${PYTHONPATH=$PWD}\nexport PYTHONPATH\n",
    "path-element-where-unset": ': "${PATH[0]:=$PWD/.local/bin}"\n',
    "set-where-unset-through-a-name": 'N=PYTHONPATH\n: "${!N:=$PWD}"\nexport PYTHONPATH\n',
    "used-after-set-where-unset": 'B=\n: "${B:=.local/bin}"\nsource_env "$B/tool"\n',
    # A name only the shell makes (BASH_ENV, X_ENV), an element of PATH, and a PWD moved
    # (what `$PWD` is after it).
    "name-made-by-an-expansion": "export BASH${X}_ENV=.local/bin/tool\n",
    "name-made-by-braces": "export {BASH,X}_ENV=.local/bin/tool\n",
    "element-of-path": "PATH[0]=$PWD/.local/bin\n",
    "pwd-moved": 'PWD=$PWD/.local\nPATH_add "$PWD/bin"\n',
    # A program that runs the command it is given, in a way planloop does not follow: a
    # shell (whose sourced files go unheld), another folder, a command line from a file.
    "shell-through-a-wrapper": "timeout 60 bash .local/bin/tool\n",
    "folder-through-env": "env -C .local ./bin/tool\n",
    "command-line-from-a-file": "xargs -a .local/bin/tool bash\n",
    "command-on-what-find-finds": "find .local -name tool -exec sh {} \\;\n",
    # Any other program given a shell, or a word that holds a command line for one: it may run
    # it (awk's `system`, sed's `e`, tar's `--to-command`).
    "shell-through-another-wrapper": "prlimit --nofile=8192 sh .local/bin/tool\n",
    "shell-by-its-path-through-another-wrapper": "setarch x86_64 /bin/bash .local/bin/tool\n",
    "shell-in-awks-program": "awk 'BEGIN { system(\"sh .local/bin/tool\") }'\n",
    "shell-in-seds-script": "echo | sed 'e sh .local/bin/tool'\n",
    "shell-in-an-option": "tar --to-command='sh .local/bin/tool' -xf tools.tar\n",
}


@needs_bwrap
@pytest.mark.parametrize("envrc", UNTOLD_ENVRC_LINES.values(), ids=UNTOLD_ENVRC_LINES.keys())
def test_what_only_an_envrcs_shell_can_tell_makes_commands_ask(api, env, workspace, envrc):
    assert_envrc_asks(api, env, workspace, {".envrc": envrc})


def assert_asks_saying(api, env, workspace, contents: dict[str, str], why: str) -> str:
    """With the workspace's files `contents`, planloop says `why` and a command asks (run
    headless, it does not run); what planloop said."""
    files(workspace, contents)
    attack(api, "ran")
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert why in said(result)
    assert not (workspace / "ran").exists()
    return said(result)


def assert_runs(api, env, workspace, contents: dict[str, str]) -> None:
    """With the workspace's files `contents`, a command runs without a question."""
    files(workspace, contents)
    attack(api, "ran")
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert (workspace / "ran").exists()


def assert_envrc_asks(api, env, workspace, contents: dict[str, str]) -> None:
    """With the workspace's files `contents`, a command asks for the .envrc's sake (and, run
    headless, does not run): what direnv loads or puts on PATH may then be any file, which a
    command could plant. (The folders it names exist: what asks is the line, not a missing
    folder.)"""
    contents = {"bin/tool": "", ".local/bin/tool": "", **contents}
    told = assert_asks_saying(api, env, workspace, contents, "so any file may be what it runs")
    whys = (".envrc: its line `", ".envrc: its text holds", ".envrc: it runs ")
    assert any(why in told for why in whys), told


# A value an .envrc takes from a file the sandbox hides (your shell's history, the `~/.secrets`
# a dotenv loads), or from a secret of your environment, stays one only its shell can tell: put
# in, it would be quoted, token and all, in the reason the model reads (and on the terminal).
HIDDEN_VALUES = {
    "sourced-history": (
        {".bash_history": "ls\nexport OPENAI_API_KEY=sk-proj-HIDDENVALUE\n"},
        {},
        'source_env ~/.bash_history\nsource_env "$OPENAI_API_KEY"\n',
        "/.bash_history, a file the sandbox hides as a secret",
    ),
    "dotenv-secrets": (
        {".secrets": "GITHUB_TOKEN=ghp_HIDDENVALUE\n"},
        {},
        'dotenv ~/.secrets\nsource_env "$GITHUB_TOKEN"\n',
        "needs `$GITHUB_TOKEN`, which only its shell can tell",
    ),
    "environment": (
        {},
        {"GITHUB_TOKEN": "ghp_HIDDENVALUE"},
        'source_env "$GITHUB_TOKEN"\n',
        "needs `$GITHUB_TOKEN`, which only its shell can tell",
    ),
}


@needs_bwrap
@pytest.mark.parametrize("home, environ, envrc, why", HIDDEN_VALUES.values(), ids=HIDDEN_VALUES)
def test_a_hidden_value_an_envrc_reads_is_never_told(
    api, env, workspace, home, environ, envrc, why
):
    files(Path(env["HOME"]), home)
    env.update(environ)
    told = assert_asks_saying(api, env, workspace, {".envrc": envrc}, why)
    assert "HIDDENVALUE" not in told and "HIDDENVALUE" not in str(api.accepted)


# What an .envrc (or a script it runs) reads as its shell does, where a reading of its words as
# written would hold a decoy the workspace holds.
UNTOLD_BESIDE_A_DECOY = {
    # direnv's `pushd` puts the folder you stand in on bash's directory stack: `~1/bin` is your
    # folder's bin/, not a folder named `~1`.
    "directory-stack": {".envrc": "PATH_add ~1/bin\n", "~1/bin/tool": "", "bin/tool": ""},
    # direnv's `path_add VAR DIR` exports VAR (the folders it is given, then its own value): a
    # folder named as the variable is no folder it puts on PATH.
    "path-add-git-config": {
        ".envrc": "path_add GIT_CONFIG_GLOBAL .gitconfig.dev\n",
        ".gitconfig.dev": "[core]\n",
        "GIT_CONFIG_GLOBAL/tool": "",
    },
    "path-add-config-home": {
        ".envrc": "path_add XDG_CONFIG_HOME .config\n",
        ".config/git/config": "[core]\n",
        "XDG_CONFIG_HOME/tool": "",
    },
    # sh (dash) keeps a variable set for a special builtin: this sources .local/bin/tool.
    "sh-keeps-a-prefix": {
        ".envrc": "sh scripts/setup.sh\n",
        "scripts/setup.sh": 'DIR=bin\nDIR=.local/bin :\n. "./$DIR/tool"\n',
        "bin/tool": "",
        ".local/bin/tool": "",
    },
}


# A dotenv file the .envrc loads, read as direnv's parser reads it: a form feed is a blank to it
# (Go's `\s`), so these set BASH_ENV; a name with a letter outside ASCII's makes it refuse the
# whole file, so that BIN is your environment's (none: `PATH_add ""`, the workspace's top).
# And PATH, or a variable that names code, set to what only the parser can tell (its `${T}`,
# from the file's own `T=.local/bin`), or to a relative path, as the .envrc's `export` of it.
DOTENV_UNTOLD = {
    "path-from-its-own-value": (
        "dotenv dev.vars\n",
        "APP_ENV=dev\nT=.local/bin\nPATH=${T}:${PATH}\n",
    ),
    "code-variable-from-its-own-value": ("dotenv dev.vars\n", "L=.local\nPYTHONPATH=$L/lib\n"),
    "relative-path": ("dotenv dev.vars\n", "PATH=.local/bin:/usr/bin:/bin\n"),
    "form-feed-before-the-equals": ("dotenv dev.vars\n", "BASH_ENV\f=.local/bin/tool\n"),
    "form-feed-first": ("dotenv dev.vars\n", "APP_ENV=dev\n\fBASH_ENV=.local/bin/tool\n"),
    "form-feed-after-export": ("dotenv dev.vars\n", "export\fBASH_ENV=.local/bin/tool\n"),
    "refused-name": ('dotenv dev.vars\nPATH_add "$BIN"\n', "BIN=.local/bin\nÉTAPE=1\n"),
    "refused-blank": ('dotenv dev.vars\nPATH_add "$BIN"\n', "BIN=.local/bin\n\v# note\n"),
    # A quoted value runs to the line's last quote of its kind, a comment's too: PATH is
    # `/usr/bin" #":$PWD/.local/bin:...`, the folder on it.
    "quote-in-a-comment": ("dotenv dev.vars\n", 'PATH="/usr/bin" #":$PWD/.local/bin:$PATH"\n'),
    "single-quote-in-a-comment": ("dotenv dev.vars\n", "PATH='/usr/bin' #':.local/bin'\n"),
    # A line with a lone quote after its first `:` or `=`, a comment's too, opens a value over
    # several lines: the later PATH is swallowed, and the relative one stands.
    "comment-opens-a-long-value": (
        "dotenv dev.vars\n",
        "PATH=.local/bin:/usr/bin:/bin\n# defaults: 'safe PATH below\nPATH='/usr/bin:/bin'\n",
    ),
    "long-value-hides-a-later-one": (
        'dotenv dev.vars\nPATH_add "$BIN"\n',
        "BIN=.local/bin\n# note: 'x\nBIN='bin'\n",
    ),
}


@needs_bwrap
@pytest.mark.parametrize("envrc, dotenv", DOTENV_UNTOLD.values(), ids=DOTENV_UNTOLD)
def test_what_only_direnv_can_tell_of_a_dotenv_an_envrc_loads_makes_commands_ask(
    api, env, workspace, envrc, dotenv
):
    assert_envrc_asks(api, env, workspace, {".envrc": envrc, "dev.vars": dotenv})


@needs_bwrap
@pytest.mark.parametrize("contents", UNTOLD_BESIDE_A_DECOY.values(), ids=UNTOLD_BESIDE_A_DECOY)
def test_what_only_an_envrcs_shell_can_tell_beside_a_decoy_makes_commands_ask(
    api, env, workspace, contents
):
    assert_envrc_asks(api, env, workspace, contents)


# Variables bash sets itself in the .envrc's shell, whatever your environment gives them: the
# last word of the command before, the folder you stand in (direnv's `pushd`), what `read`
# given no name reads.
SET_BY_BASH_ITSELF = {
    "last-argument": 'mkdir -p .local/bin\nPATH_add "$_"\n',
    "oldpwd": 'PATH_add "${OLDPWD}/.local/bin"\n',
    "reply": 'read -r < .local/bin/tool\nPATH_add "$REPLY"\n',
}


@needs_bwrap
@pytest.mark.parametrize("envrc", SET_BY_BASH_ITSELF.values(), ids=SET_BY_BASH_ITSELF)
def test_a_variable_bash_sets_itself_in_an_envrc_makes_commands_ask(api, env, workspace, envrc):
    # (what your own shell gives planloop: `_` is the program it ran)
    yours = {"_": "/usr/local/bin/planloop", "OLDPWD": "/usr/local", "REPLY": "/usr/local/bin"}
    assert_envrc_asks(api, {**env, **yours}, workspace, {".envrc": envrc, ".local/bin/tool": ""})


@needs_bwrap
def test_a_path_add_word_with_a_colon_makes_commands_ask(api, env, workspace):
    # PATH splits it into bin and .local/bin; a folder named `bin:.local/bin` is a decoy.
    files(workspace, {".envrc": 'PATH_add "bin:.local/bin"\n', "bin:.local/bin/tool": ""})
    contents = {".local/bin/tool": ""}
    assert_asks_saying(
        api, env, workspace, contents, "puts `bin:.local/bin` on PATH, which splits it at `:`"
    )


@needs_bwrap
@pytest.mark.parametrize("source", ["source .local/env", "source_env .local/env", ". .local/env"])
def test_what_a_file_sourced_where_bash_may_not_run_it_sets_makes_commands_ask(
    api, env, workspace, source
):
    # Off CI the branch never runs: BIN is empty, and direnv's `PATH_add ""` puts the
    # workspace's own top on PATH, where a command could plant a `git`.
    envrc = f'if [ -n "$CI" ]; then\n  {source}\nfi\nPATH_add "$BIN"\n'
    contents = {".envrc": envrc, ".local/env": "BIN=.local/bin\n", ".local/bin/tool": ""}
    assert_asks_saying(api, env, workspace, contents, "so any file may be what it runs")


# A folder the .envrc enters through a link (`sub` -> deep/a/b): the system opens `..` from where
# the link leads, deep/a, not from the folder the link lies in.
PARENTS_PAST_A_LINK = {"cd": "cd sub && source ../x.sh\n", "source-env": "source_env sub/dev.sh\n"}


@needs_bwrap
@pytest.mark.parametrize("envrc", PARENTS_PAST_A_LINK.values(), ids=PARENTS_PAST_A_LINK)
def test_a_parent_past_a_linked_folder_an_envrc_enters_makes_commands_and_file_tools_ask(
    api, env, workspace, envrc
):
    contents = {".envrc": envrc, "deep/a/b/dev.sh": "source ../x.sh\n", "deep/a/x.sh": ""}
    files(workspace, {**contents, "x.sh": ""})
    (workspace / "sub").symlink_to("deep/a/b")
    attack(api, "deep/a/x.sh")
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert (workspace / "deep/a/x.sh").read_text() == ""
    why = protected_reason(workspace, "deep/a/x.sh") or ""
    assert "`../x.sh` past a linked folder" in why and "any file may be what it runs" in why


# The workspace itself first on your PATH: a `git` a command makes there runs at your next git
# in the folder, and no read-only bind can hold the folder commands write in. layout_anaconda
# puts the folder of the conda it is given there, `.` for a bare name.
WORKSPACE_ON_PATH = {
    "path-add": "PATH_add .\n",
    "bare-conda": "layout anaconda dev conda\n",
    "empty-word": 'PATH_add ""\n',  # (direnv's `expand_path ""` is the .envrc's folder)
    # A PATH the file sets names it as surely, however it spells the folder.
    "exported": 'export PATH="$PWD:$PATH"\n',
    "assigned": "PATH=$(pwd)/:$PATH\n",
    "from-below": {"sub/.envrc": 'export PATH="$PWD/..:$PATH"\n'},
}


@needs_bwrap
@pytest.mark.parametrize("envrc", WORKSPACE_ON_PATH.values(), ids=WORKSPACE_ON_PATH)
def test_an_envrc_that_puts_the_workspace_on_path_makes_commands_ask(api, env, workspace, envrc):
    contents = envrc if isinstance(envrc, dict) else {".envrc": envrc}
    files(workspace, {**contents, "conda": "#!/bin/sh\n"})  # (held: the PATH asks)
    attack(api, "git")
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert ".envrc: it puts the workspace itself on PATH" in said(result)
    assert not (workspace / "git").exists()


# The workspace itself in a variable whose folders a program loads code from: every python of
# your shell imports a `json.py` a command makes there, ahead of the standard library's (as
# where your own environment's PYTHONPATH names it). A folder inside is held, not asked about.
WORKSPACE_IN_A_CODE_VARIABLE = {
    "pythonpath": ('export PYTHONPATH="$PWD"\n', "PYTHONPATH"),
    "relative": ("export PYTHONPATH=.\n", "PYTHONPATH"),
    "appended": ('export LD_LIBRARY_PATH="/opt/lib:$PWD"\n', "LD_LIBRARY_PATH"),
    "git-programs": ("export GIT_EXEC_PATH=$PWD/\n", "GIT_EXEC_PATH"),
    "nix-path": ("export NIX_PATH=nixpkgs=$PWD\n", "NIX_PATH"),
    "dotenv": ({".envrc": "dotenv\n", ".env": "NODE_PATH={ws}\n"}, "NODE_PATH"),
}


@needs_bwrap
@pytest.mark.parametrize(
    "envrc, name", WORKSPACE_IN_A_CODE_VARIABLE.values(), ids=WORKSPACE_IN_A_CODE_VARIABLE
)
def test_an_envrc_that_gives_a_code_variable_the_workspace_makes_commands_ask(
    api, env, workspace, envrc, name
):
    contents = envrc if isinstance(envrc, dict) else {".envrc": envrc}
    contents = {path: text.replace("{ws}", str(workspace)) for path, text in contents.items()}
    why = f".envrc: it gives {name} the workspace itself"
    assert_asks_saying(api, env, workspace, contents, why)


# Ways an `.envrc` puts `.local/bin` first on your PATH besides a plain `PATH_add` line: each
# is read as direnv's shell runs it.
ENVRC_PATH_FORMS = {
    "sourced": {".envrc": "source_env .envrc.local\n", ".envrc.local": "PATH_add .local/bin\n"},
    "sourced-twice": {
        ".envrc": "source_env_if_exists .envrc.local\n",
        ".envrc.local": "source_env env/local.sh\n",
        "env/local.sh": "PATH_add ../.local/bin\n",  # (from its own folder)
    },
    "eval": {".envrc": 'eval "PATH_add .local/bin"\n'},
    "backslash": {".envrc": "P\\ATH_add .local/bin\n"},
    "in-a-function": {".envrc": "local_bin() { PATH_add .local/bin; }\nlocal_bin\n"},
    # (only a command word ending in `()` defines a function; an argument defines nothing)
    "with-an-argument-like-a-header": {
        ".envrc": 'source .envrc.local "sdk()"\n',
        ".envrc.local": "PATH_add .local/bin\n",
    },
    "in-a-function-spaced": {".envrc": "local_bin () { PATH_add .local/bin; }\nlocal_bin\n"},
    "in-a-function-glued": {
        ".envrc": "local_bin(){ . ./.envrc.local; }\nlocal_bin\n",
        ".envrc.local": "PATH_add .local/bin\n",
    },
    # A comment ends at its line feed, a backslash there continues nothing; a quoted `#` or
    # one inside a word starts none; a backslash-newline joins the pieces of a word.
    "after-a-continued-comment": {".envrc": "# helpers \\\nPATH_add .local/bin\n"},
    "after-a-quoted-hash": {".envrc": 'echo "step #1"; PATH_add .local/bin\n'},
    "after-a-substitution-and-hash": {".envrc": "echo $(date)#; PATH_add .local/bin\n"},
    "continued-word": {".envrc": "PATH_\\\nadd .local/bin\n"},
    "after-if": {".envrc": 'BIN=.local/bin\nif PATH_add "$BIN"; then :; fi\n'},
    "after-its-variable-and-redirection": {
        ".envrc": 'B=.local/bin\nQ=1 2>/dev/null PATH_add "$B"\n'
    },
    "in-a-case-arm": {".envrc": 'B=.local/bin\ncase x in x) PATH_add "$B";; esac\n'},
    # (and ./bin, where a failed cd leaves it)
    "after-cd": {".envrc": "cd .local\nPATH_add bin\ncd ..\n", "bin/tool": "#!/bin/sh\n"},
    "sourced-from-two-folders": {
        ".envrc": "source_env sub\nsource sub/.envrc\n",
        "sub/.envrc": "PATH_add .local/bin\n",  # (from sub, then from the top)
        "sub/.local/bin/tool": "#!/bin/sh\n",
    },
    "exported-from-its-variable": {".envrc": 'B=.local/bin\nexport PATH="$PWD/$B:$PATH"\n'},
    # Quotes nest inside a command's output; a `#` in `${...}` or glued to `<(...)` starts no
    # comment.
    "after-a-quote-in-a-command-output": {
        ".envrc": 'Q="$(printf \'"\')"\necho ready\nPATH_add .local/bin\n'
    },
    "after-a-hash-in-a-default": {".envrc": "export M=${M:- #}; PATH_add .local/bin\n"},
    "after-a-process-substitution-and-hash": {".envrc": ": <(true)#x; PATH_add .local/bin\n"},
    # (a test's pattern in parentheses is one word to bash: its `|` and blanks split nothing)
    "after-a-test-pattern": {".envrc": "[[ $PWD =~ ^(/ci/| /tmp/)$ ]] || PATH_add .local/bin\n"},
    # What a descriptor the command opens gives `source`: the last redirection of it wins, and
    # `<>` opens its file to read as `<` does.
    "sourced-from-input-opened-read-write": {
        ".envrc": "source /dev/stdin </dev/null <>.envrc.local\n",
        ".envrc.local": "PATH_add .local/bin\n",
    },
    "sourced-from-another-descriptor": {
        ".envrc": "source /dev/fd/3 3</dev/null 3<.envrc.local\n",
        ".envrc.local": "PATH_add .local/bin\n",
    },
    # direnv's strictness wrappers run the words after them as a command.
    "strict": {".envrc": "strict_env\nstrict_env PATH_add .local/bin\n"},
    "unstrict": {".envrc": "unstrict_env PATH_add .local/bin\n"},
    "strictness": {".envrc": "__env_strictness strict PATH_add .local/bin\n"},
}


@needs_bwrap
@pytest.mark.parametrize("form", ENVRC_PATH_FORMS.values(), ids=ENVRC_PATH_FORMS.keys())
def test_a_path_folder_an_envrc_adds_however_written_stays_read_only(api, env, user_folders, form):
    contents = {**form, ".local/bin/tool": "#!/bin/sh\n"}
    assert_held_by_envrc(api, env, user_folders, contents)


# git takes a relative GIT_CONFIG_GLOBAL, or XDG_CONFIG_HOME's git/config, from the folder it
# runs in: the .envrc's own, where direnv loaded it. Its config's core.fsmonitor runs at the
# next `git status`. Such a relative path makes commands ask (above); one the person lets run
# still cannot change the file beside the .envrc.
ENVRC_RELATIVE_EXPORTS = {
    "path-entry": {".envrc": 'export PATH=".local/bin:$PATH"\n', ".local/bin/tool": "#!/bin/sh\n"},
    "git-config": {
        ".envrc": "export GIT_CONFIG_GLOBAL=.gitconfig.local\n",
        ".gitconfig.local": "[user]\n\tname = dev\n",
    },
    "config-home": {
        ".envrc": "export XDG_CONFIG_HOME=.config\n",
        ".config/git/config": "[user]\n\tname = dev\n",
    },
    "rvm-path": {".envrc": "rvm_path=rv\nrvm use 3.2\n", "rv/scripts/rvm": "rvm() { :; }\n"},
    "pyenv-root": {
        ".envrc": "export PYENV_ROOT=py\nlayout pyenv 3.12\n",
        "py/versions/3.12/bin/python": "#!/bin/sh\n",
    },
}


@needs_bwrap
@pytest.mark.parametrize("form", ENVRC_RELATIVE_EXPORTS.values(), ids=ENVRC_RELATIVE_EXPORTS.keys())
def test_what_an_envrc_exports_relatively_stays_read_only_once_approved(
    api, env, user_folders, form
):
    assert_held_by_envrc(api, env, user_folders, form, ("--yes",))


@needs_bwrap
def test_a_module_a_sourced_file_runs_is_held_where_python_looks_for_it(api, env, user_folders):
    # bash's `source` leaves the shell in the .envrc's folder: `python3 -m tools.env` there
    # runs tools/env.py of the top, not of scripts/.
    contents = {
        ".envrc": "source scripts/dev.sh\n",
        "scripts/dev.sh": 'eval "$(python3 -m tools.env)"\n',
        "tools/env.py": "print('export A=1')\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


@needs_bwrap
def test_the_layout_folder_an_envrc_moves_stays_read_only(api, env, user_folders):
    # `layout go` puts `$(direnv_layout_dir)/go/bin` first on PATH, where the .envrc says.
    contents = {
        ".envrc": "direnv_layout_dir=.cache/direnv\nlayout go\n",
        ".cache/direnv/go/bin/tool": "#!/bin/sh\n",
    }
    assert_held_by_envrc(api, env, user_folders, contents)


# What a direnv layout puts first on your PATH from what the .envrc gives it: layout_anaconda
# the folder of the conda it is given, layout_python `$VIRTUAL_ENV/bin` where VIRTUAL_ENV is set.
LAYOUT_PATH_FOLDERS = {
    "conda": ("layout anaconda dev tools/conda\n", "tools"),
    "virtualenv": ("export VIRTUAL_ENV=$PWD/envs/dev\nlayout python3\n", "envs/dev/bin"),
}


@needs_bwrap
@pytest.mark.parametrize("envrc, folder", LAYOUT_PATH_FOLDERS.values(), ids=LAYOUT_PATH_FOLDERS)
def test_the_path_folder_an_envrc_gives_a_layout_stays_read_only(
    api, env, workspace, envrc, folder
):
    files(workspace, {".envrc": envrc, "tools/conda": "#!/bin/sh\n", f"{folder}/README": ""})
    attack(api, f"{folder}/git")
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Read-only file system" in output and "done" in output, output
    assert not (workspace / folder / "git").exists()


def test_the_file_tools_ask_before_any_write_where_an_envrc_loads_what_only_its_shell_can_tell(
    workspace,
):
    files(workspace, {".envrc": UNTOLD_ENVRC_LINES["glob-loop"]})
    why = protected_reason(workspace, ".envrc.d/10-local.sh") or ""
    assert "`source_env $f` needs `$f`" in why and "any file may be what it runs" in why


def test_the_file_tools_ask_before_any_write_where_an_envrc_sources_files_past_what_is_read(
    workspace,
):
    # Each file sources the next: the last ones' PATH_add lines are not read.
    chain = {f"env/{n}.sh": f"source_env {n + 1}.sh\nPATH_add bin{n}\n" for n in range(12)}
    files(workspace, {".envrc": "source_env env/0.sh\n", **chain})
    why = protected_reason(workspace, "env/bin11/git") or ""
    assert "past the files planloop reads" in why and "any file may be what it runs" in why


@pytest.mark.parametrize(
    "text",
    [
        '. "$HELPERS_DIR/aliases.sh"\n',
        "#" * SMALL_FILE_LIMIT + "\n. ./scripts/aliases.sh\n",  # (past what planloop reads)
    ],
)
def test_the_file_tools_ask_before_any_write_where_a_sourced_file_sources_what_is_untold(
    workspace, tmp_path, monkeypatch, text
):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text(f". {workspace}/scripts/helpers.sh\n")
    files(workspace, {"scripts/helpers.sh": text})
    monkeypatch.setenv("HOME", str(home))
    why = protected_reason(workspace, "lib/any.sh") or ""
    assert "scripts/helpers.sh, which your shell's start-up files source" in why, why
    assert "any file may be what it runs" in why


@needs_bwrap
def test_a_virtualenv_not_on_path_keeps_its_bin_read_only(api, env, workspace):
    # VS Code's Python extension runs .venv/bin/python on folder open, and sources
    # .venv/bin/activate in each new terminal: planloop need not run with it activated.
    venv = workspace / ".venv"
    files(venv, {"pyvenv.cfg": "home = /usr/bin\n", "bin/activate": "VIRTUAL_ENV=x\n"})
    (venv / "bin/python").symlink_to("/usr/bin/python3")
    command = (
        "rm -f .venv/bin/python; echo 'touch ~/PWNED' > .venv/bin/python; "
        "echo 'touch ~/PWNED' >> .venv/bin/activate; echo done"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("write_file", {"path": ".venv/bin/pip", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    ran, wrote = tool_results(api)
    assert "Read-only file system" in ran
    assert os.readlink(venv / "bin/python") == "/usr/bin/python3"
    assert (venv / "bin/activate").read_text() == "VIRTUAL_ENV=x\n"
    assert "a virtualenv's bin/ in the workspace is protected" in wrote
    assert not (venv / "bin/pip").exists()


@needs_bwrap
@pytest.mark.parametrize("put_on_path", ["layout-node", "your-path"])
def test_the_packages_a_node_modules_bin_on_path_runs_stay_read_only(
    api, env, workspace, put_on_path
):
    # The person's `tool` (direnv's `layout node`, or their own PATH) runs the package's
    # bin/tool.js, which requires ../lib/x.js: node's loads are not followed, so the
    # node_modules whose .bin is on PATH is held whole, as a virtualenv on PATH is.
    files(
        workspace,
        {
            "node_modules/tool/bin/tool.js": "#!/usr/bin/env node\nrequire('../lib/x.js');\n",
            "node_modules/tool/lib/x.js": "module.exports = 1;\n",
        },
    )
    (workspace / "node_modules/.bin").mkdir()
    (workspace / "node_modules/.bin/tool").symlink_to("../tool/bin/tool.js")
    if put_on_path == "layout-node":
        files(workspace, {".envrc": "layout node\n"})
    else:
        env = {**env, "PATH": f"{workspace}/node_modules/.bin:{env['PATH']}"}
    command = "echo 'touch ~/PWNED' >> node_modules/tool/lib/x.js; echo done"
    written = {"path": "node_modules/tool/lib/y.js", "content": "x\n"}
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("write_file", written)]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    ran, wrote = tool_results(api)
    assert "Read-only file system" in ran and "done" in ran
    assert (workspace / "node_modules/tool/lib/x.js").read_text() == "module.exports = 1;\n"
    assert "node_modules folder whose .bin is on your PATH" in wrote
    assert not (workspace / "node_modules/tool/lib/y.js").exists()


def said(result: subprocess.CompletedProcess) -> str:
    """What planloop printed, on one line: the terminal wraps a notice where a long path
    (a test's own folder) ends, which moves from run to run."""
    return " ".join(result.stderr.split())


def test_a_pth_line_is_read_as_every_python_reads_it():
    from tools.shell_config import pth_lines

    # python 3.12 breaks a .pth's lines at line feeds and returns only, 3.13 at these too.
    for odd in ("\x1c", "\x0c", "\u2028"):
        text = f"\ufeffsrc{odd}import evil\r\n# comment\rlib\n"
        assert set(pth_lines(text)) >= {f"src{odd}import evil", "src", "import evil", "lib"}
