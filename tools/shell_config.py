"""Files in the workspace that your shell, direnv or editor runs later, on their own, outside the
sandbox: found by reading your own configuration, and held like a folder on your PATH.

    your environment    paths its variables name (ZDOTDIR, PERL5LIB, ...: CODE_VARIABLES in
                        tools/environment.py)
    your shell          files your ~/.bashrc, ~/.zshrc, config.fish, ... `source` by a full path
                        (`source ~/dotfiles/sh/aliases.sh`, planloop run in ~/dotfiles)
    direnv              what an `.envrc` loads besides itself: source_env, dotenv, watch_file,
                        PATH_add (and `layout node|php`, which add a PATH folder, and
                        `load_prefix DIR`, which puts DIR/bin and DIR/lib on PATH and
                        LD_LIBRARY_PATH; `layout go|perl|ruby|python` where it moves
                        `direnv_layout_dir`; what it gives `layout python|anaconda`: the
                        interpreter, the conda and its folder, `$VIRTUAL_ENV/bin`), with the
                        variables put in that it sets plainly before (`BIN=tools`), a `.env`
                        its `dotenv` loads sets or your environment gives, read with the files it
                        sources and the lines `eval` is given plainly (a word only its shell
                        can tell, a loop's `$f`, a command word it makes, or a `use X` planloop
                        does not read, makes commands ask), and the nix
                        files of `use flake` / `use nix` / `use devenv` (`$PWD` is the
                        `.envrc`'s folder): what they import, a flake's local inputs, the files
                        it names through `self`, devenv's imported folders
    your shell, direnv  any other existing file they name by a literal path, wherever the word
                        stands (`eval "$(./scripts/env.sh)"`, `~/dotfiles/bin/prompt-init`):
                        a script they run is run later as surely as one they source
    a virtualenv        bin/ and pyvenv.cfg of each folder in the workspace, at any depth,
                        that holds a pyvenv.cfg (.venv, services/api/.venv): VS Code's Python
                        extension runs its python when the folder is opened (or the
                        interpreter is picked) and sources its activate in each new terminal,
                        and pyvenv.cfg chooses what that python is; and the rest of it, whole:
                        the site-packages that python imports, the programs an activated
                        terminal runs (`pytest`, `black`), what a hook's `uv run` or pre-commit
                        runs, and its tools' settings there (pip.conf, etc/ipython); a conda
                        environment whole too (its standard library and shared libraries); and
                        the python a virtualenv was made from, where it lies in the workspace
    node_modules        whole, where its .bin is on your PATH or an .envrc puts it there
                        (`layout node`): the programs there run its packages' code, which
                        requires more of them (`node_modules_on_path`)
    python's start      a site-packages (or Debian's dist-packages) folder's .pth files and
                        start-up modules (PYTHON_START_NAMES): that python runs them at every
                        start; a command may add one (pip does), so a new or changed one is
                        reported rather than held (`python_start_files`)

Each such path that exists is bound read-only for sandboxed commands; one that does not exist
yet, or is reached through a link inside the workspace, cannot be held, so commands ask
(`not_held`); the file tools ask before writing any of them (`protected_reason` in
tools/paths.py).

Some paths run later only when they exist, and most workspaces do not have them
(`held_when_there`):

    direnv.vim          the vim script an `.envrc`'s `use vim` names (.vimrc.local)
    a tool an .envrc    what a program the `.envrc` runs by its bare name reads from the folder
    runs                (pixi's `eval "$(pixi shell-hook)"`, devbox's, flox's `use flox`): its
                        manifest and the scripts it names, its environment's activation scripts;
                        devenv's devenv.local.nix and devenv.local.yaml, and the devenv.yaml of
                        a folder its devenv.yaml imports
    completions         share/bash-completion (and share/zsh, share/fish) beside a folder that
                        is or will be on your PATH (`X/bin`): bash-completion sources
                        `X/share/bash-completion/completions/<command>` at your next Tab
    python's path       the start-up modules (PYTHON_START_NAMES) in the workspace itself, its
                        src/ and any folder a .pth file of an environment of yours outside
                        names: an editable install there (poetry's, hatch's virtualenvs, `pip
                        install --user -e .`) puts them on the path of every start of that
                        python (`python_path_start_files`)

These are held while they exist; a command that creates one (or replaces it) is reported after
it ran, since a missing folder cannot be held without making it on your side first.
"""

from __future__ import annotations

import ast
import contextlib
import errno
import glob
import itertools
import json
import os
import re
import shlex
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from urllib.parse import parse_qs

from tools.environment import (
    CODE_VARIABLES,
    FOLDERS,
    PROGRAM,
    WordTooLong,
    link_inside,
    looks_secret,
    nix_search_path_entries,
    path_folders_in,
    secret_value,
    variable_paths,
    variable_paths_in,
    variable_reason,
    without_secrets,
)
from tools.homes import your_homes
from tools.kept import kept_while_unchanged, looked_at, pattern_folders
from tools.toml_text import toml_data
from tools.your_configs import (
    CODE_VARIABLE_NAMES,
    ENVRC_FOLDER_SPELLINGS,
    ENVRC_RELATIVE_VARIABLES,
    named_by_envrc,
    named_by_your_configs,
    named_by_your_environment,
)

# Start-up files of the shells people use, in the home folder (or in $ZDOTDIR for zsh's).
SHELL_START_FILES = (
    *(".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_aliases", ".bash_logout"),
    *(".kshrc", ".mkshrc", ".tcshrc", ".cshrc"),
)
ZSH_START_FILES = (".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout")
# Files read while following what those source in turn: enough for any real set of dotfiles.
MAX_START_FILES = 100
# A command loses these leading words, so that `[ -f ~/x ] && . ~/x` and `if [ -r ~/x ]; then
# source ~/x; fi` are seen.
LEADING_WORDS = ("then", "else", "do", "!", "{", "(", "command", "builtin")
LEADING_WORDS += ("if", "elif", "while", "until", "time", "exec")
# direnv's: `strict_env PATH_add bin` runs `PATH_add bin` (with bash's errexit set, or unset),
# as does the function both call, given the mode first (`__env_strictness strict PATH_add bin`).
STRICTNESS = "__env_strictness"
LEADING_WORDS += ("strict_env", "unstrict_env", STRICTNESS)
PREFIXES = ("command", "builtin", "exec", "time")  # (those that take options)
# A word's quoted and plain pieces, side by side (`BIN="$PWD"/bin` is one word). A backslash
# quotes the character after it outside single quotes: `"dev\"local\".sh"` is one piece.
WORD_PIECE = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\[\s\S])*)"|((?:[^'"\\]|\\[\s\S]?)+)""")

# direnv's functions that run, or load the variables of, the file they name.
DIRENV_SOURCES = ("source_env", "source_env_if_exists", "source", ".", "dotenv", "dotenv_if_exists")
# VS Code's Python extension runs `<venv>/bin/python` on folder open, and sources
# `<venv>/bin/activate` in each new terminal; shell plugins (zsh-autoswitch-virtualenv) too.
VENV_REASON = (
    "a virtualenv's bin/ in the workspace is protected: editors run its python when the folder "
    "is opened, and new terminals source its activate"
)
DIRENV_REASON = (
    "a file an .envrc loads is protected: direnv runs it (or re-evaluates it, nix's files) "
    "each time your shell enters the folder"
)
PYTHON_START_REASON = (
    "python runs a site-packages (or dist-packages) folder's .pth files, the modules they "
    "import and sitecustomize (also one in a folder a .pth adds) each time it starts, and "
    "editors start a workspace environment's python when the folder is opened"
)
PYTHON_PATH_REASON = (
    "python runs sitecustomize (and what its own start-up imports, such as "
    "apport_python_hook) from the first folder of its path that has it, and an editable "
    "install of the project in an environment of yours (poetry's, hatch's, pip install -e) "
    "puts the workspace or its src/ on that path at every start"
)
# The folders python's `site` reads .pth files from: every Python's site-packages, and the
# dist-packages of Debian's and Ubuntu's python, which (in each virtualenv made from it too)
# adds lib/python3/dist-packages, lib/python3.X/dist-packages and
# local/lib/python3.X/dist-packages when they exist.
SITE_FOLDER_NAMES = ("site-packages", "dist-packages")
# What python imports at every start by its name, from the first folder of its path that has
# it: a virtualenv's site folders, and a folder a .pth adds, come before the base python's own.
# Besides `site`'s two hooks, what the base installations' own start-up files import; those
# of the base a virtualenv names are read too (`interpreter_start_imports`), these are here
# because the base can gain them after the scan (an apt or pip install outside).
PYTHON_START_NAMES = (
    "sitecustomize",
    "usercustomize",
    # Debian's and Ubuntu's /etc/python3.X/sitecustomize.py imports it (apport's crash hook).
    "apport_python_hook",
    # setuptools' distutils-precedence.pth imports it, in the base's site folders too, which
    # a virtualenv made with --system-site-packages runs.
    "_distutils_hack",
)
# The settings of pyvenv.cfg that choose what `interpreter_start_imports` reads.
VENV_BASE_SETTINGS = ("home", "include-system-site-packages")
# The start-up files of a base installation read for what they import (a few at most).
MAX_BASE_START_FILES = 200
# Environments of yours outside the workspace whose .pth files are read for a path into it.
MAX_OUTSIDE_ENVIRONMENTS = 200
VENV_BASE_REASON = (
    "the python a virtualenv of the workspace was made from is protected where it lies in the "
    "workspace: that virtualenv's python runs its standard library at every start, outside "
    "the sandbox"
)
NODE_MODULES_REASON = (
    "a node_modules folder whose .bin is on your PATH (direnv's `layout node`) is protected: "
    "the programs you run from there (eslint, tsc, prettier) run its packages' code, which "
    "loads more of them"
)
VENV_PACKAGES_REASON = (
    "a virtualenv's installed packages and settings in the workspace are protected: its python "
    "imports them, and its tools read them (pip.conf, etc/ipython), wherever it runs outside "
    "the sandbox (your editor, its activated terminals' `pytest` or `pip`, a hook's pre-commit "
    "or `uv run`)"
)
# Where tools that keep a project's virtualenv outside it make them, under your home: poetry
# (its default), pipenv, virtualenvwrapper (WORKON_HOME too) and hatch.
OUTSIDE_VENV_HOMES = (
    ".cache/pypoetry/virtualenvs/*",
    ".local/share/virtualenvs/*",
    ".virtualenvs/*",
    ".local/share/hatch/env/virtual/*/*",
)
# The files of one start-up package (`_distutils_hack/`) looked at for a change: a few at most.
MAX_START_PACKAGE_FILES = 500
SHELL_REASON = (
    "a file your shell's start-up files source is protected: every new shell of yours runs it"
)
SHELL_RUN_REASON = (
    "a file your shell's start-up files name is protected: every new shell of yours may run it"
)
DIRENV_RUN_REASON = (
    "a file an .envrc names is protected: direnv may run it each time your shell enters the folder"
)
VENV_CONFIG_REASON = (
    "a virtualenv's pyvenv.cfg in the workspace is protected: it chooses the python (and the "
    "code) that the virtualenv's bin/ starts, and whether bin/ is held at all"
)
# The file that makes a folder a virtualenv (PEP 405), for python, editors and the scan alike.
VENV_CONFIG_NAME = "pyvenv.cfg"
VENV_ACTIVATE = "activate"  # bin/activate: what shells and their plugins source on `cd`
CONDA_META = "conda-meta"  # what every conda environment holds: a record of what it installed
# What `conda activate` sources from an environment (VS Code's terminals activate the one
# picked as the interpreter): each script in them runs in your shell.
CONDA_ACTIVATE_FOLDERS = ("etc/conda/activate.d", "etc/conda/deactivate.d")
CONDA_ACTIVATE_REASON = (
    "a conda environment's activate.d in the workspace is protected: `conda activate` runs its "
    "scripts in your shell"
)
# The names shells' and editors' helpers look for to activate a project's virtualenv by
# itself (`source .venv/bin/activate`, whatever else the folder holds): a bin/ written there
# is one pyvenv.cfg away from a held one.
VENV_FOLDER_NAMES = (".venv", "venv")
# direnv's layouts that add a workspace folder to your PATH (its stdlib's `layout_node` and
# `layout_php` run `PATH_add` on these); the others use .direnv/, which is held as a host
# tool's folder.
DIRENV_LAYOUT_PATHS = {"node": "node_modules/.bin", "php": "vendor/bin"}
# Programs an `.envrc` runs by a bare name that then run, in your shell, what their own files in
# the folder say, each time direnv loads it: no literal in the `.envrc` names those files.
# `*` stands for each existing entry.
ENVRC_TOOLS: dict[str, tuple[str, ...]] = {
    # `eval "$(pixi shell-hook)"`: the manifest's [activation] scripts and env, the activate.d
    # scripts of the environment's packages, and the environment's bin/ first on PATH.
    # (Its manifest, pixi.toml or else pyproject.toml, is added by `tools_run_by_envrc`.)
    "pixi": (".pixi/config.toml", ".pixi/envs/*/bin", ".pixi/envs/*/etc/conda"),
    # `eval "$(devbox generate direnv --print-envrc)"`: devbox.json's shell.init_hook, its
    # plugins' files, and the environment devbox generated (scripts, profile, bin/).
    "devbox": ("devbox.json", "devbox.lock", "devbox.d", ".devbox"),
    # `use flox`: the environment's manifest ([hook] on-activate, [profile]) and what it built.
    "flox": (".flox",),
    # `eval "$(make -s env)"`: make runs the recipe its makefile (and what it includes) says.
    "make": ("GNUmakefile", "makefile", "Makefile", "*.mk"),
    # `eval "$(npm run -s env)"` and its kin run package.json's script (with the script-shell
    # of an .npmrc; yarn runs the yarnPath of its .yarnrc.yml instead of itself).
    "npm": ("package.json", ".npmrc"),
    "pnpm": ("package.json", ".npmrc"),
    "yarn": ("package.json", ".yarnrc.yml", ".yarnrc"),
    "bun": ("package.json", "bunfig.toml"),
    # `eval "$(just env)"`, `eval "$(task env)"`: the recipe in the justfile or Taskfile.
    "just": ("justfile", ".justfile", "Justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml"),
}
DIRENV_LAYOUT_REASON = (
    "the folder an .envrc's direnv_layout_dir names is protected: direnv's layouts (go, perl, "
    "ruby, python) put the programs they install there first on your PATH each time your "
    "shell enters the folder"
)
DIRENV_VIMRC_REASON = (
    "a vim script an .envrc's `use vim` names is protected: the direnv.vim plugin sources it "
    "into your vim each time vim loads the folder's environment"
)
ENVRC_TOOL_REASON = (
    "a file of a tool an .envrc runs by name (pixi, make, npm, just, python -m, ...) is "
    "protected: direnv has that tool run what its files in the folder say each time your "
    "shell enters the folder"
)
YOUR_CONFIG_REASON = (
    "a path your own configuration names (a dot file in your home, a file in its dot folders or "
    "in ~/.config) is protected: the program it configures (your editor, tmux, ssh, systemd, "
    "your prompt, your shell's PATH) may run it"
)
YOUR_ENVIRONMENT_REASON = (
    "a path a variable of your environment names is protected: the program that reads the "
    "variable (your editor, php, dotnet, a browser launcher, ...) may run it"
)
ENVRC_NAMED_REASON = (
    "a path an .envrc names is protected: direnv puts it into your shell's environment "
    "(PATH, PYTHONPATH, NODE_OPTIONS, ...) each time your shell enters the folder"
)
# The reasons that say only that something names a path, not what runs it: another reason for
# the same path, where there is one, tells the person more (tools/paths.py protected_reason).
NAMED_ONLY_REASONS = (YOUR_CONFIG_REASON, YOUR_ENVIRONMENT_REASON, ENVRC_NAMED_REASON)
# bash-completion (2.12 and later) looks for a command's completion in
# X/share/bash-completion/completions for each folder X/bin or X/sbin on PATH, and sources the
# file it finds at the first Tab after that command. zsh's fpath and fish's XDG_DATA_DIRS take
# the same layout from a prefix that is added to them (nix profiles, conda's activation).
COMPLETION_FOLDERS = ("share/bash-completion", "share/zsh", "share/fish")
COMPLETION_REASON = (
    "the shell completions beside a folder on your PATH are protected: bash-completion sources "
    "X/share/bash-completion/completions/<command> (X/bin on PATH) when you next press Tab"
)
# Where a path may start inside a word of the shell: after a command substitution's `$(` or
# backquote, a subshell's parenthesis, an assignment's `=` (`V=$(tools/version.sh)`,
# `alias x=~/bin/x`) or a redirection.
WORD_PIECES = re.compile(r"\$\(|[`()=<> \t\n]")  # (a carriage return is in the word)
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# What only the shell can tell in a word (in an `.envrc`'s, once the variables it knows are put
# in): another expansion (`${BIN:-bin}`, `$(direnv_layout_dir)`, a backquote), a pattern
# (`.envrc.d/*.sh`), brace expansion (`scripts/{dev,local}.sh`, `{1..3}`), or a folder of
# bash's directory stack where a word (or an entry of an assignment's value) starts: `~+` and
# `~-` (its PWD and OLDPWD, where the shell stands) and `~1`, `~+1`, `~-1` (direnv's `pushd`
# puts the folder you stand in there).
DIRECTORY_STACK = re.compile(r"~[-+0-9]")
# Folders that are those of whichever process looks them up: its working folder, root and open
# files (`/proc/self/cwd/bin` on PATH is the `bin` of the folder you stand in; /dev/fd, and
# /dev/stdin and its kin, lead into /proc/self).
PROCESS_FOLDERS = re.compile(r"/(?:proc|dev/fd)(?:/|$)")


def names_a_process_folder(path: str) -> bool:
    """Whether `path` leads through PROCESS_FOLDERS, by its letters or by a link on the way,
    also where a `..` comes after one (/dev/fd is /proc/self/fd, so `/dev/fd/../cwd` is
    /proc/self/cwd, which the letters alone put elsewhere): an absolute path whose folder each
    process reads as its own, as a relative one."""
    parts = [part for part in path.split("/") if part not in ("", ".")]
    for end, part in enumerate(parts):
        if part == ".." and names_a_process_folder("/" + "/".join(parts[:end])):
            return True
    parts = list(Path(os.path.normpath(re.sub("^/+", "/", path))).parts)  # (`//proc` is /proc)
    for end in range(2, len(parts) + 1):
        prefix = os.path.join(*parts[:end])
        if PROCESS_FOLDERS.match(prefix):
            return True
        try:
            target = os.path.join(os.path.dirname(prefix), os.readlink(prefix))
        except OSError:
            continue
        if PROCESS_FOLDERS.match(os.path.normpath(target)) or names_a_process_folder(target):
            return True
    return False


def taken_from_where_you_stand(entry: str) -> bool:
    """Whether the entry of a path list (PATH's, GIT_CONFIG_GLOBAL's) names a place only the
    folder you stand in can tell: empty (`.`), relative, `~name` for no user there is (bash
    leaves it as written: a folder named `~name` here), or through PROCESS_FOLDERS. A value
    put in (`$HOME`) is judged where it is."""
    if entry.startswith("$"):
        return False
    expanded = os.path.expanduser(entry) if entry.startswith("~") else entry
    return not os.path.isabs(expanded) or names_a_process_folder(expanded)


SHELL_ONLY = re.compile(
    r"[$`*?\[]|\{[^{}]*(?:,|\.\.)[^{}]*\}|(?:^|[\s=:])" + DIRECTORY_STACK.pattern
)


def literal_path(word: str, base: Path | None, home: Path | None = None) -> Path | None:
    """A word of a shell line as the path it names, or None when it is not a plain one.

    `~`, `$HOME` and `${HOME}` are expanded, to `home` where given (the home of the start-up
    file it is read from), else to $HOME; a word with any other variable, a command
    substitution or a glob is left out (its path cannot be known without running the shell).
    Brace expansion (`{dev,local}.sh`) and `~+`, `~-`, `~1` are left out likewise.
    A relative path is taken from `base`; with no base (a start-up file, which the shell reads
    wherever it starts, and `source name` looks on PATH first), it is left out.
    """
    for spelt in ("$HOME", "${HOME}", "~"):
        if word == spelt or word.startswith(spelt + "/"):
            word = str(home or Path.home()) + word[len(spelt) :]
    if not word or SHELL_ONLY.search(word):
        return None
    word = os.path.expanduser(word)  # (`~user`)
    if not os.path.isabs(word):
        if base is None:
            return None
        word = str(base / word)
    return Path(os.path.normpath(word))


# `$PWD` (and `$(pwd)`) in an `.envrc`: the folder direnv runs it in, which is its own.
ENVRC_FOLDER = re.compile("(?:" + "|".join(ENVRC_FOLDER_SPELLINGS) + r")(?!\w)")


def envrc_word(word: str, base: Path) -> str:
    """A word of an `.envrc` with `$PWD` put in as its folder `base`, as direnv's shell would."""
    return ENVRC_FOLDER.sub(lambda _: str(base), word)


# A variable in a word of an `.envrc` that the file or your environment may give a plain value.
ENVRC_VARIABLE = re.compile(r"\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})")
# A word that adds to a variable (`BIN+=/bin`), or makes it an array (`BIN=(a b)`,
# `BIN[1]=b`): its value is then the shell's to tell.
APPENDED = re.compile(r"([A-Za-z_]\w*)(?:\+=|=\(|\[)")
# Words that set the variables named after them (`export BIN=tools`).
SETTING_WORDS = ("export", "local", "readonly", "declare", "typeset")


# How deep an `.envrc` is followed into the files it sources (`source_env .envrc.local`, which
# may source another in turn), and how many files are read for one `.envrc` in all.
MAX_ENVRC_DEPTH = 8
MAX_ENVRC_FILES = 50
# What moves the shell to another folder, and how many folders an `.envrc`'s lines are read
# from after the `cd`s planloop follows.
MOVES = ("cd", "pushd", "popd")
MAX_MOVES = 8
# What may run a file's `cd` more than once, or not where it stands: a loop, a function.
REPEATS = re.compile(
    r"(?:^|[\s;&|(){}])(?:for|while|until|select|function)(?![^\s;&|(){}])|\(\s*\)"
)
# direnv's functions that source a file into the `.envrc`'s shell after entering the file's
# folder (its relative words are from there); bash's `source` and `.` stay where they are.
ENVRC_SOURCERS = ("source_env", "source_env_if_exists", "source_up", "source_up_if_exists")
# What `eval` is given when it runs a program's output (`eval "$(pixi shell-hook)"`): that
# program's files are read as a tool's (`tools_run_by_envrc`), not as lines of the `.envrc`.
EVAL_OF_OUTPUT = re.compile(r"\$\([^()]*\)|`[^`]*`")


def envrc_steps(
    envrc: Path, environ: Mapping[str, str] | None = None
) -> list[tuple[Path, list[str]]]:
    """(folder, words) of each command direnv's shell runs for an `.envrc` (`shell_commands`),
    each word with `$PWD` put in as that folder (`envrc_word`) and each variable direnv's shell
    would give a plain value: one a command sets earlier (`BIN=tools`, `export
    BIN=$PWD/tools`), else your environment's. One set otherwise (from a command's output, by
    `for` or `read`, or twice) stays as written, as does one set nowhere: only the shell can
    tell them (`envrc_untold`).

    The commands of a file it sources are read in its place, with the variables set so far,
    as the shell runs them (`source_env .envrc.local`, whose `PATH_add` puts a folder on your
    PATH as surely as the `.envrc`'s own), from the folder direnv enters for it
    (`envrc_files`); and so are the words `eval` is given plainly (`eval "PATH_add bin"`).
    `environ`: your environment less its secrets where not given (`without_secrets`)."""
    return _EnvrcReader(envrc, environ).steps


def envrc_lines(envrc: Path) -> list[tuple[Path, str]]:
    """(folder, line) of each command of `envrc_steps`, written again as a line of the shell,
    its values put in: what a reader of lines (`named_by_envrc`) takes as direnv's shell runs
    it (`B=tools/bin`, then `export PATH="$PWD/$B:$PATH"`, is `export PATH=/ws/tools/bin:$PATH`)."""
    return [(base, " ".join(map(_written_again, words))) for base, words in envrc_steps(envrc)]


def _written_again(word: str) -> str:
    """A word as a line of the shell spells it: an assignment's `NAME=` bare (a reader of
    lines knows it by that), the rest in double quotes where it holds a blank or a quote."""
    assigned = ASSIGNMENT.match(word)
    name = assigned[0] if assigned else ""
    value = word[len(name) :]
    if re.search(r"""[\s'"\\]""", value):
        value = '"' + re.sub(r'(["\\`])', r"\\\1", value) + '"'
    return name + value


def envrc_files(envrc: Path) -> list[tuple[Path, Path]]:
    """(file, folder) of the `.envrc` and each file it sources that exists (`envrc_steps`),
    with the folder its relative words are read from."""
    return _EnvrcReader(envrc).files


class _EnvrcReader:
    """Reads an `.envrc` and the files it sources, as one shell runs them (`envrc_steps`)."""

    def __init__(
        self, envrc: Path, environ: Mapping[str, str] | None = None, base: Path | None = None
    ) -> None:
        # Your environment less its secrets (`without_secrets`): a value put in may be quoted
        # in the reasons the model reads (`source_env "$GITHUB_TOKEN"` names a missing file).
        self.environ = without_secrets(os.environ if environ is None else environ)
        self.steps: list[tuple[Path, list[str]]] = []
        self.values: dict[str, str | None] = {}
        self.files: list[tuple[Path, Path]] = []
        # A file sourced past MAX_ENVRC_DEPTH or MAX_ENVRC_FILES: what it loads is not read.
        self.unread: list[Path] = []
        # What an `eval` past MAX_ENVRC_DEPTH of them is given, likewise.
        self.unread_eval: str | None = None
        # A `cd` (or pushd, popd) whose folder is not followed: the line, shortened.
        self.unfollowed_move: str | None = None
        # Why a file it reads cannot be read as its shell reads it (`read_commands`), or is
        # larger than planloop reads: what follows there may put any folder on PATH.
        self.unreadable: str | None = None
        # A command that changes what direnv's stdlib runs (`_replaces_direnv`): its line, why.
        self.replaced: str | None = None
        # Where a function's body is read (`enter_body`): "{", or "(" to the end of the file.
        self.in_body: str | None = None
        # The plain values put in where functions' bodies were read, and why a later command
        # makes them stale (`watch_bodies`).
        self.body_values: dict[str, str] = {}
        self.stale_body: str | None = None
        self.envrc = envrc
        self.read(envrc, envrc.parent if base is None else base, 0)

    def read(self, path: Path, base: Path, depth: int, unsure: bool = False) -> None:
        """Read the file `path` from `base`; after a plain `cd DIR` of the `.envrc` itself,
        each later line from DIR as well as from where it was (the `cd` may fail, direnv
        goes on past it, or stand in an `if` or a subshell that did not move it). `unsure`:
        it is sourced where bash may not run it, or in a subshell (`if ...; then source x;
        fi`), so what it sets is unknown after it, as a value set there itself is."""
        if self.hidden_secret(path):
            return
        self.files.append((path, base))
        text = self.text_of(path)
        if path == self.envrc and path.name == ".env" and direnv_loads_dotenvs():
            # direnv loads it as its `dotenv` loads the `.env` beside an `.envrc`; autoenv, where
            # you use it too, sources it as shell code.
            shell_code = path.name in sourced_by_a_cd_hook()
            text = "dotenv\n" + (text if shell_code else "")
        folders, in_body = [base], self.in_body
        for words, subshell in self.commands(text, path):
            subshell = subshell or unsure
            moved = [new for folder in folders for new in self.take(words, folder, depth, subshell)]
            if moved and (depth > 0 or REPEATS.search(text) or len(folders) >= MAX_MOVES):
                # (in a loop or a function it may move any number of times; a file sourced
                # by `source` moves the one that sources it)
                self.unfollowed_move = self.unfollowed_move or _short_line(words[0], words[1:])
                moved = []
            for folder in moved:
                self.files.append((path, folder))
            folders = list(dict.fromkeys([*folders, *moved]))
        self.in_body = in_body  # (a body the file left open ends with it)

    def hidden_secret(self, path: Path) -> bool:
        """Whether `path` is a file the sandbox hides from commands (`hidden_from_commands`:
        `source_env ~/.config/shell/secrets.sh`, or an `.envrc` that is a link to your shell's
        history), noted as one only its shell can tell: planloop reads none of it, for what it
        reads goes into the reasons the model reads, values and lines alike."""
        if not _hidden_from_commands(path):
            return False
        where = "it is a file" if path == self.envrc else f"it sources {path}, a file"
        why = "planloop does not read it, and what it sets or loads only its shell can tell"
        self.unreadable = self.unreadable or f"{where} the sandbox hides as a secret: {why}"
        return True

    def text_of(self, path: Path) -> str:
        """The text of a file it reads; "" for one it cannot, noted where it is too big."""
        # Imported here: tools.paths imports this module.
        from tools.paths import SMALL_FILE_LIMIT, read_small_file

        try:
            return read_small_file(path)
        except OSError as error:
            if error.errno == errno.EFBIG:  # (never its first part taken for the whole)
                why = f"larger than planloop reads ({SMALL_FILE_LIMIT:,} bytes)"
                where = "it is" if path == self.envrc else f"it sources {path},"
                self.unreadable = self.unreadable or f"{where} {why}"
            return ""

    def commands(self, text: str, path: Path | None) -> list[tuple[list[str], bool]]:
        """`read_commands` of the text of `path` (None: what `eval` is given); where only its
        shell can read it, noted, and its lines read one at a time (what they name is held)."""
        try:
            return read_commands(text)
        except WordTooLong as error:
            where = "" if path in (None, self.envrc) else f"it sources {path}, where "
            self.unreadable = self.unreadable or f"{where}{error}"
            return [(words, False) for words in shell_commands(text)]

    def take(self, words: list[str], base: Path, depth: int, subshell: bool = False) -> list[Path]:
        """Note the command `words` run in `base` (in a subshell: what it sets is gone after),
        and read what it sources or `eval`s; the folder it moves to, for a `cd` planloop can
        follow."""
        # Imported here: tools.hook_lines imports tools.paths, which imports this module.
        from tools.hook_lines import program_index

        line, header = _short_line(words[0], words[1:]), _function_header(words)
        # (its body's first command, read here as the lines of its body below are)
        words = words if header is None else header[2]
        subshell = self.enter_body(header, subshell)
        before = words[: program_index(words)]  # (`CDPATH=tools cd web`)
        words = words[len(before) :] or words  # (kept whole: `X=1` sets X)
        replaced = _replaces_direnv(header and header[0], words, before)
        self.replaced = self.replaced or (replaced and f"its line `{line}` {replaced}")
        if not words:
            return []
        for code in (code for word in [*before, *words] for code in substitutions(word)):
            self.substituted(code, base, depth)
        if words[0] in SPECIAL_BUILTINS:  # (before the values it sets are put in)
            self.set_before_a_special_builtin(before, base)
        told = self.told(words, base) if self.in_body else {}
        words = [_put_in(envrc_word(word, base), self.values, self.environ) for word in words]
        words = path_add_as_export(as_run(as_written(words)), base, self.values, self.environ)
        _remember(words, self.values, base, subshell)
        # (`: "${BIN:=tools}"` sets BIN where it is unset or empty: a value the shell tells)
        for word in [*before, *words]:
            self.values.update((found[2], None) for found in ASSIGNING_EXPANSION.finditer(word))
        self.watch_bodies(told, before, line)
        self.steps.append((base, words))
        if words[0] in MOVES:
            return self.moved(words, base, any(word.startswith("CDPATH=") for word in before))
        given = code_given(words)
        if given is not None and not SHELL_ONLY.search(given):  # (`eval "$x"`: `envrc_untold`)
            if depth >= MAX_ENVRC_DEPTH:
                self.unread_eval = self.unread_eval or given
            # (a shell's `-c` runs in a shell of its own, which keeps what it sets)
            apart = subshell or words[0] != "eval"
            for inner, within in self.commands(given, None) if depth < MAX_ENVRC_DEPTH else ():
                # (`eval "cd x"` moves the file's shell)
                if self.take(inner, base, depth + 1, apart or within):
                    self.unfollowed_move = self.unfollowed_move or _short_line(inner[0], inner[1:])
            return []
        sourced = sourced_by(words[0], words[1:], base)
        # Read once from each folder: bash's `source sub/.envrc` after `source_env sub` reads
        # its relative words from another folder.
        if sourced is None or sourced in self.files:
            return []
        if depth >= MAX_ENVRC_DEPTH or len(self.files) >= MAX_ENVRC_FILES:
            self.unread.append(sourced[0])
        elif os.path.isfile(sourced[0]):
            self.read(*sourced, depth + 1, subshell)
        return []

    def set_before_a_special_builtin(self, before: list[str], base: Path) -> None:
        """Note the variables the words `before` a special builtin set (`B=x :`, `B=x export
        C`, `B=x . ./env.sh`), run in `base`: a POSIX shell keeps them after it (sh, and bash
        after `set -o posix` or with POSIXLY_CORRECT), bash's own mode not, so each is one only
        the shell can tell from here on (in what the builtin sources, too). They stand as a
        command of their own, for what reads the variables it sets (`IFS=/ :`)."""
        assigned = [word for word in before if PREFIX_ASSIGNMENT.match(word)]
        if not assigned:
            return
        written = [_put_in(envrc_word(word, base), self.values, self.environ) for word in assigned]
        self.steps.append((base, as_written(written)))
        self.values.update((PREFIX_ASSIGNMENT.match(word)[1], None) for word in assigned)

    def enter_body(self, header: tuple[str, str, list[str]] | None, subshell: bool) -> bool:
        """Note whether the command with this function `header` (`_function_header`), run in a
        `subshell` or not, stands in a function's body: from a header, each command after it in
        a block (those of a body in parentheses, `f() (`, to the end of the file: its end is
        not read); whether it runs apart from the file's shell, as a body's command does."""
        if header is not None:
            self.in_body = "(" if header[1] == "(" and not header[2] else "{"
        elif not subshell and self.in_body != "(":
            self.in_body = None
        return subshell or self.in_body is not None

    def told(self, words: list[str], base: Path) -> dict[str, str]:
        """The plain values `_put_in` gives the variables of the command `words` run in `base`,
        but that of a variable in its own new value (`PATH="$PATH:/opt/bin"`)."""
        told: dict[str, str] = {}
        for word in words:
            own = assigned[1] if (assigned := ASSIGNED.match(word)) else None
            for found in ENVRC_VARIABLE.finditer(envrc_word(word, base)):
                name = found[1] or found[2]
                value = self.values[name] if name in self.values else self.environ.get(name)
                if name != own and value is not None and not SPLIT.search(value):
                    told[name] = value
        return told

    def watch_bodies(self, told: dict[str, str], before: list[str], line: str) -> None:
        """Keep the values a function's body was read with (`told`), and note the first command
        (`line`, with the variables set for it alone `before`) after which one of them has
        another: bash puts them in where the function runs (`DIR=config/local load_env`, or
        `DIR` set again before the call), and planloop read the body where it stands."""
        for name, value in told.items():
            self.body_values.setdefault(name, value)
        set_for_it = {found[1]: found.string for word in before if (found := ASSIGNED.match(word))}
        for name, value in self.body_values.items() if self.stale_body is None else ():
            now = self.values[name] if name in self.values else self.environ.get(name)
            if now != value or set_for_it.get(name, f"{name}={value}") != f"{name}={value}":
                why = f"bash puts in the value {name} has where the function runs"
                than = "than the one planloop read a function's body with"
                self.stale_body = f"its line `{line}` may give {name} another value {than}: {why}"
                return

    def substituted(self, code: str, base: Path, depth: int) -> None:
        """Read the commands of a command's output (or a process substitution), run in `base`
        in a subshell of its own: what they set, and where they move, is gone after it; a move
        among them makes the folder of what follows there, but `pwd`, one only the shell can
        tell (`$(cd "$(dirname "$0")" && pwd)` is read)."""
        if depth >= MAX_ENVRC_DEPTH:
            self.unread_eval = self.unread_eval or code
            return
        try:
            commands = read_commands(code)
        except WordTooLong:  # (its quotes were taken out with the word's: read as it stands)
            commands = [(words, True) for words in shell_commands(code)]
        kept, moved = self.unfollowed_move, None
        for inner, _ in commands:
            if moved is not None and inner[0] != "pwd":
                kept = kept or moved
            self.unfollowed_move = None
            if self.take(inner, base, depth + 1, subshell=True) or self.unfollowed_move:
                moved = moved or _short_line(inner[0], inner[1:])
        self.unfollowed_move = kept

    def moved(self, words: list[str], base: Path, cdpath_before: bool = False) -> list[Path]:
        """The folder a plain `cd DIR` moves to from `base`; any other move (`cd "$X"`, `cd -`,
        `cd` alone, pushd and popd, a `cd` through CDPATH) is noted as one only the shell can
        tell. bash's `cd` looks in CDPATH's folders before the one it stands in, whether your
        environment gives it or the file sets it, even for this command alone (`cdpath_before`:
        `CDPATH=tools cd web` enters tools/web)."""
        named = words[1] if words[0] == "cd" and len(words) == 2 else "-"
        plain = not named.startswith("-") and not SHELL_ONLY.search(named)
        folder = literal_path(named, base) if plain else None
        cdpath = cdpath_before or "CDPATH" in self.values or self.environ.get("CDPATH")
        if folder is None or cdpath:
            self.unfollowed_move = self.unfollowed_move or _short_line(words[0], words[1:])
            return []
        return [folder]


def path_add_as_export(
    words: list[str], base: Path, values: Mapping[str, str | None], environ: Mapping[str, str]
) -> list[str]:
    """The command `words`, run in `base`, as what it sets: direnv's `path_add VAR DIR...` is
    `export "VAR=DIR...:$VAR"`, each DIR made absolute from where it runs (its `expand_path`),
    read as the `.envrc`'s own `export` of VAR is (`path_add GIT_CONFIG_GLOBAL gc` gives git
    a config; its first word names no folder). `path_add PATH DIR` is `PATH_add DIR`. One
    whose name or folders only its shell can tell, or with a `:` (which splits a value), stays
    as it is (`envrc_untold` asks)."""
    if words[0] != "path_add" or len(words) < 2 or not NAME.fullmatch(words[1]):
        return words
    name, given = words[1], words[2:]
    if name == "PATH":
        return ["PATH_add", *given]
    folders = [literal_path(word or ".", base) for word in given]
    if any(folder is None for folder in folders) or any(":" in word for word in given):
        return words
    entries = [str(folder) for folder in folders]
    if name in values or name in environ:  # (else direnv's value is the folders alone)
        entries.append(_put_in(f"${name}", values, environ))
    return ["export", f"{name}={':'.join(entry for entry in entries if entry)}"]


# The special builtins of POSIX shells (and bash's `source`): a variable set for one of them
# (`B=x :`) stays set after it in a POSIX shell (`set_before_a_special_builtin`).
SPECIAL_BUILTINS = (":", ".", "source", "eval", "exec", "exit", "export", "readonly", "return")
SPECIAL_BUILTINS += ("set", "shift", "times", "trap", "unset", "break", "continue")
# A variable set for the command after it (`B=x :`, `B+=x :`), with its name.
PREFIX_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*)\+?=")


# Where a command's output (`$(...)`, not arithmetic's `$((`), a backquoted part or a process
# substitution (`<(...)`) begins in a word.
SUBSTITUTION = re.compile(r"\$\((?!\()|[<>]\(|`")


def substitutions(word: str) -> list[str]:
    """The code of each command's output, backquoted part and process substitution of a word,
    outermost first (those inside are read with its lines): `X="$(source ./v.sh; echo $V)"`
    runs `source ./v.sh` as surely as a line of its own."""
    found, at = [], 0
    while opener := SUBSTITUTION.search(word, at):
        if opener[0] == "`":
            end = word.find("`", opener.end())
            end = len(word) if end < 0 else end
            found.append(word[opener.end() : end])
            at = end + 1
            continue
        depth, at = 1, opener.end()
        while at < len(word) and depth:
            depth += {"(": 1, ")": -1}.get(word[at], 0)
            at += 1
        found.append(word[opener.end() : at - (depth == 0)])
    return found


def code_given(words: list[str]) -> str | None:
    """The code a command gives a shell as a string, or None: what `eval` is given, or the
    command string of a shell's `-c` (`bash -c "source env.local"`)."""
    if words[0] == "eval":
        return " ".join(words[1:])
    kind, operand = shell_operand(words[1:])
    return operand if os.path.basename(words[0]) in SCRIPT_SHELLS and kind == "code" else None


# A command word that starts a function's header (`f()`, glued to its body: `f(){`, `f()(. x`),
# with what follows the parentheses in it.
FUNCTION_HEADER = re.compile(r"""([^\s()$`'"=<>|&;]+)\(\)(.*)""", re.DOTALL)


def _function_header(words: list[str]) -> tuple[str, str, list[str]] | None:
    """(its name, its body's opener, the words of the command its body begins with on the
    line) where the command `words` defines a function (`f() { PATH_add bin`, `f () (`,
    `function f {`, `f(){ . ./x.sh`, `f()(. ./x.sh)`), else None. (Only the command's first
    words define one: an argument that ends in `()`, `PATH_add bin "x()"`, defines nothing.)"""
    keyword = words[0] == "function" and len(words) > 1
    first, rest = words[keyword], words[keyword + 1 :]
    if glued := FUNCTION_HEADER.fullmatch(first):
        name, rest = glued[1], [glued[2], *rest]
    elif rest[:1] and rest[0].startswith("()"):  # (`f () {`, `f (){`)
        name, rest = first, [rest[0][2:], *rest[1:]]
    elif keyword:
        name = first
    else:
        return None
    rest = [word for word in rest if word]
    opener = rest[0][:1] if rest and rest[0][:1] in ("{", "(") else ""
    if opener:
        rest = [rest[0][1:], *rest[1:]] if rest[0] != opener else rest[1:]
    return name, opener, [word for word in rest if word]


# What direnv's stdlib runs by its name, where a function the `.envrc` defines of that name runs
# in its place, for the stdlib's own calls too (path_add's `expand_path` and `echo`, source_env's
# `pushd` and `has cygpath`): its functions, bash's builtins and the program source_env looks
# for. planloop reads their calls as theirs.
DIRENV_STDLIB = (
    *("has", "join_args", "expand_path", "dotenv", "dotenv_if_exists", "user_rel_path"),
    *("find_up", "source_env", "source_env_if_exists", "env_vars_required", "watch_file"),
    *("watch_dir", "_source_up", "source_up", "source_up_if_exists", "fetchurl", "source_url"),
    *("direnv_load", "direnv_apply_dump", "PATH_add", "path_add", "MANPATH_add", "PATH_rm"),
    *("path_rm", "load_prefix", "semver_search", "layout", "use", "rvm", "direnv_version"),
    *("on_git_branch", "log_status", "log_error", "strict_env", "unstrict_env", "__main__"),
    *("__env_strictness", "__dump_at_exit"),
    *("realpath.dirname", "realpath.basename", "realpath.absolute"),
    *("layout_go", "layout_node", "layout_perl", "layout_php", "layout_python"),
    *("layout_python2", "layout_python3", "layout_anaconda", "layout_pipenv", "layout_pyenv"),
    *("layout_ruby", "layout_julia", "use_julia", "use_rbenv", "use_node", "use_nodenv"),
    *("use_nix", "use_flake", "use_guix", "use_vim"),
)
BASH_BUILTINS = (".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd")
BASH_BUILTINS += ("command", "compgen", "complete", "compopt", "continue", "declare", "dirs")
BASH_BUILTINS += ("disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc")
BASH_BUILTINS += ("fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local")
BASH_BUILTINS += ("logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray")
BASH_BUILTINS += ("readonly", "return", "set", "shift", "shopt", "source", "suspend", "test")
BASH_BUILTINS += ("times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias")
BASH_BUILTINS += ("unset", "wait")
DIRENV_RUNS = frozenset((*DIRENV_STDLIB, *BASH_BUILTINS, "cygpath"))
# The variable direnv's stdlib runs as direnv itself (`"$direnv" dotenv bash`, `"$direnv"
# watch`, and at the end of every load `"$direnv" dump`): set by the file, or by a dotenv it
# loads, it runs what it names.
DIRENV_PROGRAM = "direnv"
SETS_DIRENV_PROGRAM = f"sets `${DIRENV_PROGRAM}`, which direnv's stdlib runs as direnv"


def _replaces_direnv(defined: str | None, words: list[str], before: list[str]) -> str | None:
    """Why an `.envrc` command (`words`, with the variables set for it alone `before`) changes
    what direnv's stdlib runs, or None: the function it defines (`defined`) of a name the
    stdlib runs (DIRENV_RUNS: `expand_path() { ... }`), a builtin it turns off or loads
    (`enable -n echo`), or DIRENV_PROGRAM set for it (`_untold_by` reads the file's own)."""
    if defined in DIRENV_RUNS:
        what = f"defines `{defined}` in place of direnv's or bash's own"
    elif words[:1] == ["enable"] and any(re.fullmatch(r"-\w*[nfd]\w*", w) for w in words[1:]):
        what = "turns off or loads a builtin of bash"
    elif any(word.startswith(f"{DIRENV_PROGRAM}=") for word in before):
        what = SETS_DIRENV_PROGRAM
    else:
        return None
    return f"{what}, so planloop cannot tell what direnv's functions that call it do"


def sourced_by(command: str, args: list[str], base: Path) -> tuple[Path, Path] | None:
    """(file, folder its words are read from) that the `.envrc` command `command args`, run
    in `base`, sources into its shell, or None: `source_env FILE` (a folder's `.envrc`) and
    `source_up [NAME]` enter the file's folder first; `source` and `.` do not."""
    if command in ("source_up", "source_up_if_exists"):
        name = args[0] if args else ".envrc"
        for folder in base.parents:
            if (found := literal_path(name, folder)) is not None and os.path.isfile(found):
                return found, found.parent
        return None
    if command not in (*ENVRC_SOURCERS, "source", ".") or not args:
        return None
    named = literal_path(args[0], base)
    if named is None:
        return None
    if command not in ENVRC_SOURCERS:
        return named, base
    named = named / ".envrc" if os.path.isdir(named) else named
    return named, named.parent


# The files that are one of the shell's own descriptors: bash's `source` of one reads what the
# descriptor gives (`source /dev/stdin < env.sh`, `source /dev/fd/3 3< env.sh`). Another
# process's (`/proc/1234/fd/0`) is one only the shell can tell.
DESCRIPTOR_FILE = re.compile(
    r"/dev/(?:(stdin)|(stdout)|(stderr)|fd/(\d+))|/proc/(?:(?:self|thread-self)/fd/(\d+)|\d+/fd/\d+)"
)
# A command's output that is one file's text as it stands: `$(cat F)`, `$(< F)`, `<(cat F)`.
FILE_TEXT = re.compile(r"(?:\$\(|<\(|`)\s*(?:cat\s+(?:--\s+)?|<\s*)([^\s()`<>|;&]+)\s*[)`]")


def as_run(words: list[str]) -> list[str]:
    """A command's words (its program first) as what it runs: its redirections left out (`source
    env.sh 2>/dev/null`), and bash's other ways to source a file's text spelt as `source FILE`:
    `source -- FILE`, `source /dev/stdin < FILE` (or `<> FILE`, the last of them; another
    descriptor the command opens: `source /dev/fd/3 3< FILE`), `source <(cat FILE)`, `eval
    "$(cat FILE)"`, `eval "$(< FILE)"`. A shell given its script as its input (`bash < FILE`)
    is given it as its operand."""
    # Imported here: tools.hook_lines imports tools.paths, which imports this module.
    from tools.hook_lines import REDIRECTION

    command, rest, args = words[0], iter(words[1:]), []
    read_from: dict[str, str | None] = {}  # (the file each descriptor reads, where it is one)
    for word in rest:
        redirection = REDIRECTION.match(word)
        if redirection is None or word.startswith(("<(", ">(")):
            args.append(word)
            continue
        target = word[redirection.end() :] or next(rest, "")
        read_from.update(_redirected(redirection[0], target))
    given = read_from.get("0")  # (the file its standard input reads)
    if command in ("source", ".") and args[:1] == ["--"]:
        args = args[1:]
    text_of = FILE_TEXT.fullmatch(args[0]) if len(args) == 1 else None
    descriptor = descriptor_file(args[0]) if command in ("source", ".") and args else None
    if descriptor is not None and (fed := read_from.get(descriptor)):
        return ["source", fed, *args[1:]]
    if command in ("source", ".", "eval") and text_of:
        return ["source", text_of[1]]
    if os.path.basename(command) in SCRIPT_SHELLS and given and not shell_operand(args)[1]:
        return [command, *args, given]
    return [command, *args]


def _redirected(operator: str, target: str) -> dict[str, str | None]:
    """The descriptors a redirection (`operator` and its `target`) gives the command, by their
    numbers: the file it opens to read (`< F`, `3< F`, `<> F`, which reads it too), or None for
    anything else (a copy of another, `<&3`; a closed one, `<&-`; a file to write; a
    here-string's text). bash makes them in order, the last one of a descriptor wins."""
    symbol = operator.lstrip("0123456789")
    number = operator[: len(operator) - len(symbol)]
    if symbol in ("&>", "&>>") or (symbol == ">&" and not number and not target.isdigit()):
        return {"1": None, "2": None}  # (`&> F`, `>& F`: its output and errors both)
    descriptor = number.lstrip("0") or ("0" if number or symbol.startswith("<") else "1")
    return {descriptor: target if symbol in ("<", "<>") else None}


def descriptor_file(word: str) -> str | None:
    """The number of the shell's descriptor a word of `source` names (DESCRIPTOR_FILE: "0" for
    `/dev/stdin`, "3" for `/dev/fd/3` or `../../dev/fd/3`), "?" for another process's, or None
    for any other file."""
    if not word.startswith(("/", "../")):
        return None
    found = DESCRIPTOR_FILE.fullmatch(os.path.normpath(re.sub("/+", "/", f"/{word}")))
    if found is None:
        return None
    standard = next((str(at) for at in range(3) if found[at + 1]), None)
    number = standard or found[4] or found[5]
    return (number.lstrip("0") or "0") if number else "?"


# What the shell splits a value put in unquoted at, or matches against files.
SPLIT = re.compile(r"[\s*?\[]")


def _put_in(word: str, values: Mapping[str, str | None], environ: Mapping[str, str]) -> str:
    # Imported here: tools.hook_lines imports tools.paths, which imports this module.
    from tools.hook_lines import SHELLS_OWN

    def value(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        told = values[name] if name in values else environ.get(name)
        # What bash sets itself, whatever the file or your environment gave it, only the shell
        # can tell: `$_` (the last word of the command before: `mkdir -p .tools/bin; PATH_add
        # "$_"`), what `read` sets given no name, ... (SHELLS_OWN), and OLDPWD, the folder you
        # stand in after direnv's `pushd`.
        told = None if name == "OLDPWD" or SHELLS_OWN.fullmatch(name) else told
        # A value with a blank or a pattern, put in unquoted, is split into words (`P="PATH_add
        # bin"; $P` runs PATH_add) or matched against files: left for the shell to tell.
        return match[0] if told is None or SPLIT.search(told) else told

    return ENVRC_VARIABLE.sub(value, word)


# Builtins that set a variable each of their words may name, to what only the shell can tell:
# `read D`, `printf -v D`, `getopts a D` (`?` once the options end), `wait -p D`, `mapfile D`,
# `select D in ...`, `coproc D { ...; }` (D and D_PID).
NAMING_BUILTINS = ("read", "unset", "printf", "getopts", "wait", "mapfile", "readarray")
NAMING_BUILTINS += ("select", "coproc")
IDENTIFIERS = re.compile(r"[A-Za-z_]\w*")
# The options of NAMING_BUILTINS that take a value, which bash also takes glued to the option
# (`read -d:`), and of those the ones whose value is a variable to set (`printf -vPATH`, `read
# -raPATH`, `wait -pPATH`).
VALUE_OPTIONS = {"printf": "v", "read": "adinNptu", "wait": "p", "mapfile": "dnOsuCc"}
VALUE_OPTIONS["readarray"] = VALUE_OPTIONS["mapfile"]
NAME_OPTIONS = {"printf": "v", "read": "a", "wait": "p"}
# A word that names a variable, or an element of one (`PATH[0]` is PATH itself).
VARIABLE_WORD = re.compile(r"([A-Za-z_]\w*)(?:\[.*\])?", re.DOTALL)


def names_a_builtin_sets(words: list[str]) -> list[str]:
    """The variables the NAMING_BUILTINS command `words` may set: each word that names one
    (other words read as names fail closed), and one glued to an option that takes it."""
    names = [match[1] for word in words[1:] if (match := VARIABLE_WORD.fullmatch(word))]
    for word in words[1:]:
        if word == "--":
            break
        for at, letter in enumerate(word[1:] if word.startswith("-") else "", 1):
            if letter in VALUE_OPTIONS.get(words[0], ""):
                glued = VARIABLE_WORD.fullmatch(word[at + 1 :])
                if glued and letter in NAME_OPTIONS.get(words[0], ""):
                    names.append(glued[1])
                break
    return list(dict.fromkeys(names))


# A redirection that has bash pick a descriptor and set a variable to it: `exec {D}>log`.
NAMED_DESCRIPTOR = re.compile(r"\{([A-Za-z_]\w*)\}(?=[<>]|$)")


def _remember(
    words: list[str], values: dict[str, str | None], base: Path, subshell: bool = False
) -> None:
    """Note what the command `words`, run in `base`, sets: a plain value, or None where only
    the shell knows it (a loop's variable, `read`'s, `printf -v`'s, an array, one added to
    (`BIN+=/bin`) or unset, one set from what is left unknown, or set again, or set in a
    `subshell`, which bash drops with it: `(BIN=tools/bin)`, then `PATH_add "$BIN"` adds the
    `.envrc`'s own folder). `dotenv` sets what its file does (`dotenv_settings`), over your
    environment's."""
    if subshell:
        set_there: dict[str, str | None] = {}
        _remember(words, set_there, base)
        values.update(dict.fromkeys(set_there))
        return
    first, rest = words[0], words[1:]
    values.update((match[1], None) for word in words if (match := APPENDED.match(word)))
    values.update((match[1], None) for word in words if (match := NAMED_DESCRIPTOR.match(word)))
    if first in DOTENV_LOADERS:
        values.update(dotenv_settings(dotenv_path(rest, base)))
    elif first == "for" and rest:
        values[rest[0]] = None
    elif first in NAMING_BUILTINS:
        values.update((name, None) for name in names_a_builtin_sets(words))
        if first == "coproc":  # (and NAME_PID, or COPROC and COPROC_PID unnamed)
            values.update(dict.fromkeys(("COPROC", "COPROC_PID", *(f"{w}_PID" for w in rest[:1]))))
    elif first in ("let", "(("):
        values.update((name, None) for word in rest for name in IDENTIFIERS.findall(word))
    elif first in SETTING_WORDS or all(ASSIGNMENT.match(word) for word in words):
        # (`declare -n B=TOOLS` makes B another name for TOOLS: `$B` is TOOLS' value)
        reference = any(re.fullmatch(r"-\w*n\w*", word) for word in rest)
        for word in rest if first in SETTING_WORDS else words:
            name, equals, value = word.partition("=")
            if equals and name.isidentifier():
                plain = not SHELL_ONLY.search(value) and values.get(name, value) == value
                values[name] = value if plain and not reference else None


def shell_commands(text: str) -> Iterable[list[str]]:
    """The simple commands of a shell file, each as its words, quotes removed (a small reader:
    enough to find `source FILE` and direnv's functions, nothing is run). A file whose lines
    only its shell can read (`read_commands`) is read one line at a time, each as it stands:
    your own start-up files still show the files they name."""
    try:
        return [as_written(words) for words, _ in read_commands(text)]
    except WordTooLong:  # (SplitByTheShell)
        lines = text.split("\n")
        return [as_written(w) for line in lines for w, _ in _line_commands(line, [0, 0])]


# What bash reads past its lines' ends: a here-document (its text is no command, but a `'` in
# it would open a quote for a line reader).
HERE_DOCUMENT = re.compile(r"<<(?!<)")
# A `[[ ... ]]` test in a line's own code (`outside_quotes`), to the first `]]` that ends a word.
TEST = re.compile(r"(?<![^\s;&|(])\[\[(?=\s)(.*?)\s\]\](?=[\s;&|)]|$)")


def read_commands(text: str) -> list[tuple[list[str], bool]]:
    """(words, whether it runs in a subshell) of each simple command of a shell file, as bash
    reads it: lines, comments and quotes nested as the hooks' reader reads them (`shell_lines`:
    `Q="$(printf '"')"` is one word, `${X:- #}` holds no comment, `<(true)#x` is one word).
    Raises SplitByTheShell, with why, for what planloop does not read as bash does: a quote or
    expansion left open at the end, a here-document, a `[[ ... ]]` pattern whose parentheses
    run past its end, or what shells read apart."""
    # Imported here: tools.git_programs imports tools.paths, which imports this module.
    from tools.git_programs import SplitByTheShell, outside_quotes, read_by_a_shell, shell_lines

    try:
        lines = shell_lines(text)
    except SplitByTheShell as error:
        raise SplitByTheShell(
            f"its text holds {error}, so planloop cannot tell its lines"
        ) from None
    commands: list[tuple[list[str], bool]] = []
    # How deep in subshells and in blocks the next command stands (`_line_commands`).
    subshells = [0, 0]
    for line in lines:
        plain = outside_quotes(line)
        if HERE_DOCUMENT.search(plain):
            why = "starts a here-document, whose lines planloop does not read"
            raise SplitByTheShell(f"its line `{_short_line(line, [])}` {why}")
        commands += _line_commands(_patterns_blanked(line, plain), subshells)
    if len(read_by_a_shell(text).open) > 1:  # (its last line runs on to the end)
        raise SplitByTheShell("its text leaves a quote or expansion open to its end")
    return commands


def _patterns_blanked(line: str, plain: str) -> str:
    """`line` with what the parentheses of each `[[ ... ]]` test hold turned to `_` where it
    would split a line (blanks, `|`, `&`, `;`, `<`, `>`, the parentheses): bash reads a
    pattern's as one word, which runs nothing (`=~ ^(darwin|linux)`, `== @(a|b)`). `plain` is
    the line's own code (`outside_quotes`), so quotes and command outputs stay as written. (A
    `#` in them, which a reader would take for a comment, the hooks' reader refuses itself.)"""
    from tools.git_programs import SplitByTheShell  # (here: it imports this module in turn)

    kept = list(line)
    for test in TEST.finditer(plain):
        depth = 0
        for at in range(test.start(1), test.end(1)):
            depth += plain[at] == "("
            if depth and plain[at] in "()| \t&;<>":
                kept[at] = "_"
            depth -= depth > 0 and plain[at] == ")"
        if depth:
            why = "has a test pattern whose parentheses run past its `]]`"
            raise SplitByTheShell(f"its line `{_short_line(line, [])}` {why}")
    return "".join(kept)


def _line_commands(line: str, subshells: list[int]) -> list[tuple[list[str], bool]]:
    """`read_commands` of one line, split where the hooks' reader splits it (`_segments`);
    `subshells` holds how deep in subshells, and in blocks that may not run (`if`, a loop, a
    function's body: BLOCKS), the line starts, and is left where it ends. A command counts as
    run apart from the file's shell (what it sets is unknown after it) in a subshell, a
    pipeline, the background or a block, and after `&&` or `||`: it may not have run."""
    commands = []
    for segment, apart in _segments_apart(line):
        words = _split_words(segment)
        opened = bool(words) and words[0].startswith("(") and not words[0].startswith("((")
        last = words[-1] if words else ""
        closed = max(0, len(last) - len(last.rstrip(")")) - last.count("("))
        words = [_unquoted(word) for word in _out_of_subshell(words)]
        in_block = max(subshells[1], subshells[1] + _blocks_opened(words)) > 0  # (`{ B=x`)
        inside = subshells[0] + opened > 0 or in_block or apart
        subshells[0] = max(0, subshells[0] + opened - closed)
        subshells[1] = max(0, subshells[1] + _blocks_opened(words))
        while words and words[0] in LEADING_WORDS:
            # (`command -- source x`, `command -p bash x`: options of the word before)
            taken = words[0] in PREFIXES and words[1:2] in (["--"], ["-p"])
            words = words[1 + (taken or words[0] == STRICTNESS) :]
        if words:
            commands.append((words, inside))
    return commands


# What opens a block of commands that may not run, or run more than once (a function's body
# too), and what ends one, where a command starts.
BLOCKS = ("if", "case", "while", "until", "for", "select", "{")
BLOCK_ENDS = ("fi", "esac", "done", "}")


def _blocks_opened(words: list[str]) -> int:
    """How many blocks the keywords a command starts with open, less those they end (a
    function's header first: `f() {`, `function f {`)."""
    header = 2 if words[:1] == ["function"] or words[1:2] == ["()"] else 0
    words = words[header or (bool(words) and words[0].endswith("()")) :]
    opened = 0
    for word in words:
        if word not in (*LEADING_WORDS, *BLOCKS, *BLOCK_ENDS):
            break
        opened += (word in BLOCKS) - (word in BLOCK_ENDS)
    return opened


def _segments_apart(line: str) -> list[tuple[str, bool]]:
    """The simple commands of a line, split where the hooks' reader splits them (at `;`, `&&`,
    `||`, `|` and `&` outside quotes), each with whether it may not run, or runs apart from the
    file's shell: a part of a pipeline, one run in the background, one after `&&` or `||`."""
    from tools.git_programs import SplitByTheShell, outside_quotes  # (here: it imports this)

    try:
        plain = outside_quotes(line)
    except SplitByTheShell:
        return [(line, False)] if line.strip() else []
    found, start, before = [], 0, ""
    for operator in re.finditer(r"&&|\|\||[;&|]", plain):
        apart = before in ("&&", "||", "|") or operator[0] in ("|", "&")
        found.append((line[start : operator.start()], apart))
        start, before = operator.end(), operator[0]
    found.append((line[start:], before in ("&&", "||", "|")))
    return [(segment, apart) for segment, apart in found if segment.strip()]


def _split_words(command: str) -> list[str]:
    """A command's words as written: split at blanks outside quotes and expansions (the blank
    in `"$(printf ' ')"` is the word's), or at every blank where shells read its quotes apart."""
    from tools.git_programs import outside_quotes  # (here: it imports this module in turn)

    try:
        plain = outside_quotes(command)
    except WordTooLong:  # (SplitByTheShell)
        plain = command
    # (only blanks and redirections end a word: a carriage return is part of it, `source
    # ./env.sh\r` sources the file `env.sh\r`)
    return [command[word.start() : word.end()] for word in WORD_OR_REDIRECTION.finditer(plain)]


# A word, or a redirection with its target where it is glued to it: bash ends a word at an
# unquoted `<` or `>` (`source env.sh>/dev/null` sources env.sh), and takes digits before one
# for the file descriptor it redirects only where they start the word (`2>/dev/null`).
WORD_OR_REDIRECTION = re.compile(
    r"(?:(?<![^ \t\n])\d+)?(?:<<<|<<-?|&>>?|>>|>&|<&|<>|>\||[<>])[^ \t\n<>]*|[^ \t\n<>]+"
)


def _out_of_subshell(words: list[str]) -> list[str]:
    """A command's words as written less the parentheses of a subshell it stands in, which
    need no blank (`(source ./env.sh)` sources env.sh); `((`, `$(...)` and `f()` stay."""
    if words and words[0].startswith("(") and not words[0].startswith("(("):
        words = [words[0][1:], *words[1:]] if words[0] != "(" else words
    while words and words[-1].endswith(")") and words[-1].count(")") > words[-1].count("("):
        words = [*words[:-1], words[-1][:-1]]
    return [word for word in words if word]


def _unquoted(word: str) -> str:
    """`word` as the shell gives it to a command: quotes taken out, and the backslashes that
    quote a character outside single quotes (`P\\ATH_add` runs PATH_add). A `$` the quotes
    keep (`'$B'`, `\\$B`) is LITERAL_DOLLAR, so that no value is put in there (`as_written`),
    and so is one that starts no expansion of a name after the quotes are out (BARE_DOLLAR)."""
    unquoted = "".join(
        a.replace("$", LITERAL_DOLLAR).replace("~", QUOTED_TILDE)
        or re.sub(r'\\([$`"\\])|' + BARE_DOLLAR, _kept, b.replace("~", QUOTED_TILDE))
        or re.sub(r"\\(.)|" + BARE_DOLLAR, _kept, c.replace("\\~", QUOTED_TILDE))
        for a, b, c in WORD_PIECE.findall(word)
    )
    return kept_tildes(unquoted) if QUOTED_TILDE in unquoted else unquoted


# A `~` quotes keep (`"~/bin"`, `\~`), while the words are read.
QUOTED_TILDE = "\ue001"


def kept_tildes(word: str) -> str:
    """`word` with each QUOTED_TILDE a `~` again, and one where bash would have put your home
    in, were it not quoted (`PATH="~/bin:$PATH"`), read as the folder named `~` it is left as
    (`./~/bin`): git's search of PATH and GIT_CONFIG_GLOBAL take it from where they run."""
    pieces = word.split(QUOTED_TILDE)
    kept = pieces[0]
    for piece in pieces[1:]:
        kept += ("./~" if _at_a_tilde_place(kept) else "~") + piece
    return kept


def _at_a_tilde_place(before: str) -> bool:
    """Whether a word's `~` after the text `before` stands where bash puts your home in, left
    unquoted: the word's start, after the `=` of an assignment, or after a `:` in its value."""
    return (
        not before or before.endswith(":") and "=" in before or bool(ASSIGNMENT.fullmatch(before))
    )


# A `$` before a backslash or last in its piece of a word: bash keeps `$\B` and `"./$"B` as
# written, and sh `$"B"` and `$'B'` too, where bash translates `$"B"` by message catalogs
# and reads `$'B'` as C's escapes: no value is put in at it, and the word is one only the
# shell can tell.
BARE_DOLLAR = r"\$(?=\\|\Z)"


# A `$` that quotes keep in a word, which the shell expands nothing at: a character no file
# holds, turned back into `$` once values are put in (`as_written`).
LITERAL_DOLLAR = "\ue000"


def _kept(escaped: re.Match[str]) -> str:
    return LITERAL_DOLLAR if "$" in (escaped[0], escaped[1]) else escaped[1]


def as_written(words: list[str]) -> list[str]:
    """`words` with each `$` its quotes kept (LITERAL_DOLLAR) a `$` again."""
    return [word.replace(LITERAL_DOLLAR, "$") for word in words]


def _read(path: Path) -> str:
    # Imported here: tools.paths imports this module. A FIFO or /dev/zero in its place (a
    # command's doing, in the workspace) is refused, not waited on or read without end.
    from tools.paths import read_small_file

    looked_at(path)  # (an answer kept while your start-up files are unchanged reads them here)
    try:
        return read_small_file(path)
    except OSError:
        return ""


def start_files() -> list[Path]:
    """Your shells' start-up files that exist: bash, sh, zsh (in $ZDOTDIR too), ksh, csh, fish;
    in each of your homes (tools/homes.py: your account's too, when a run moves HOME)."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    files = [Path(xdg) / "fish" / "config.fish"] if xdg else []
    for home in your_homes():
        files += [home / name for name in SHELL_START_FILES + ZSH_START_FILES]
        files.append(home / ".config" / "fish" / "config.fish")
    if os.environ.get("ZDOTDIR"):
        files += [Path(os.environ["ZDOTDIR"]) / name for name in ZSH_START_FILES]
    looked_at(*files)  # (one made later is read then)
    return [path for path in dict.fromkeys(files) if os.path.isfile(path)]


def _your_shells_key() -> tuple[object, ...]:
    """What an answer about your start-up files depends on besides the files themselves: your
    environment (HOME, ZDOTDIR, XDG_CONFIG_HOME, the values a sourced path puts in) and homes."""
    return tuple(os.environ.items()), tuple(your_homes())


def sourced_by_your_shell() -> list[Path]:
    """Every file your shells' start-up files `source` (or `.`), followed through the files
    those source in turn: by a literal path, or one with what can be told put in
    (`sourced_paths`: `. "${XDG_CONFIG_HOME:-$HOME/.config}/shell/secrets.sh"`,
    `f=~/.config/shell/env.sh; . "$f"`, a file's own folder, `. "${BASH_SOURCE%/*}/x.sh"`),
    each file a pattern matches (`for f in ~/.config/shell/*.sh; do . "$f"; done`); also where
    `eval` or zsh's `emulate sh -c` is given the line. Asked several times per command, and
    reading a long `.bashrc` takes a tenth of a second: kept while the files and folders it
    read are unchanged."""
    return list(_sourced_by_your_shell(_your_shells_key())[0])


def untold_by_your_shell(root: Path) -> str | None:
    """Why a file of the workspace `root` that your shells' start-up files source sources one
    planloop cannot tell (`. "$DIR/x.sh"`, `. ./x.sh` from where your terminal starts): your
    own start-up files are yours to trust, and one they cannot tell is left out, but that
    file's text is the workspace's, so what it sources may be any file, which no read-only
    bind can hold."""
    root = Path(os.path.realpath(root))
    for path, why in _sourced_by_your_shell(_your_shells_key())[1]:
        real = Path(os.path.realpath(path))
        if real.is_relative_to(root):
            return f"{real.relative_to(root)}, which your shell's start-up files source, {why}"
    return None


@kept_while_unchanged
def _sourced_by_your_shell(
    _key: tuple[object, ...],
) -> tuple[tuple[Path, ...], tuple[tuple[Path, str], ...]]:
    """(what `sourced_by_your_shell` finds, and (file, why) for each `source` whose file only
    its shell can tell: `_source_untold`)."""
    from tools.hook_lines import program_index  # (here: tools.hook_lines imports this module)

    files = start_files()
    sourced: list[Path] = []
    untold: list[tuple[Path, str]] = []
    # What each file's shell has set when it starts reading it: the sourcing file's values.
    values_at_start: dict[Path, dict[str, list[str]]] = {}
    for path in files:  # grows while it is walked
        home, values = home_of(path), dict(values_at_start.get(path, {}))
        text, unread = _read_sourced(path)
        untold += [(path, unread)] if unread else []
        for words in _commands_run(text):
            words = [_own_folder_put_in(word, path) for word in words]
            _note_values(words, values, home)
            words = words[program_index(words) :]  # (`QUIET=1 source x`, `2>/dev/null . x`)
            words = as_run(words) if words else words  # (`source -- x`, `. x 2>/dev/null`)
            if not words or words[0] not in ("source", ".") or len(words) < 2:
                continue
            if why := _source_untold(words[1], values, home):
                untold.append((path, why))
            for named in sourced_paths(words[1], values, home):
                if named in files or named in sourced:
                    continue
                sourced.append(named)
                values_at_start[named] = dict(values)
                if len(files) < MAX_START_FILES and os.path.isfile(named):
                    files.append(named)
                elif os.path.isfile(named):
                    untold.append((named, f"is past the {MAX_START_FILES} files planloop reads"))
    return tuple(sourced), tuple(untold)


def _read_sourced(path: Path) -> tuple[str, str | None]:
    """A start-up or sourced file's text, and why it was not read where it is there but
    cannot be (larger than planloop reads, no longer a regular file), or None."""
    text = _read(path)
    if text or not os.path.lexists(path):
        return text, None
    try:
        # Imported here: tools.paths imports this module.
        from tools.paths import read_small_file

        read_small_file(path)
    except OSError as error:
        return "", f"is a file planloop cannot read ({error.strerror})"
    return "", None


# A sourced file's own folder, as bash spells it there, in a word or in its whole text
# (`${BASH_SOURCE%/*}`, `$(dirname "${BASH_SOURCE[0]}")`), and the folder `cd` then `pwd`
# prints of a path put in.
OWN_SOURCE_FOLDER = re.compile(
    r"\$\{BASH_SOURCE(?:\[0\])?%/\*\}"
    r'|\$\(\s*dirname\s+(?:--\s+)?"?(?:\$BASH_SOURCE\b|\$\{BASH_SOURCE(?:\[0\])?\})"?\s*\)'
)
FOLDER_PRINTED = re.compile(r'\$\(\s*cd\s+(?:--\s+)?"?(/[^()$`"]*?)"?\s*&&\s*pwd\s*\)')


def _own_folder_put_in(word: str, path: Path) -> str:
    """`word` of the file at `path` with its own folder put in where bash's spellings name
    it (OWN_SOURCE_FOLDER: `. "${BASH_SOURCE%/*}/aliases.sh"` sources the file beside it),
    and `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)` so put in, told exactly."""
    if "BASH_SOURCE" not in word:
        return word
    folder = str(path.parent)
    word = OWN_SOURCE_FOLDER.sub(lambda _: folder, word)
    return FOLDER_PRINTED.sub(lambda found: os.path.normpath(found[1]), word)


def _source_untold(word: str, values: Mapping[str, list[str]], home: Path) -> str | None:
    """Why `source WORD` reads a file only its shell can tell, or None: a variable with no
    value that can be told, an expansion not followed (`possible_words`), a path that is not
    absolute (bash looks for it on PATH, then where the shell was started)."""
    possible = possible_words(word, values, home)
    if possible and all(
        _told_path(expanded, home) for each in possible for expanded in brace_expanded(each)
    ):
        return None
    return f"sources `{word[:60]}`, a file only its shell can tell"


def _told_path(word: str, home: Path) -> str | None:
    """The absolute path a word of a start-up file of `home` names, with `~` put in, or None
    where it is not absolute or holds what only the shell can tell."""
    path = os.path.expanduser(re.sub(r"^~(?=/|$)", lambda _: str(home), word))
    if not os.path.isabs(path) or re.search(r"[$`]|(?:^|[\s=:])~[+-]", path):
        return None
    return path


# How deep the code `eval` is given is read in a start-up file, how many words one word with
# variables may stand for, and how many files a pattern names at most.
MAX_EVAL_DEPTH = 4
MAX_POSSIBLE_WORDS = 64
UNTOLD = "\0"  # (a variable's value only its shell can tell: no word holds this character)
MAX_PATTERN_FILES = 200
# A variable put into a word: `$NAME`, `${NAME}`, or with the value it gives where that is
# unset or empty (`${NAME:-default}`, `${NAME-default}`, `${NAME:=default}`): the name and
# what follows it in the braces.
PUT_IN = re.compile(r"\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)(:?[-=]|\}))")
# zsh's glob qualifiers after a pattern (`~/.zsh/*.zsh(N)`, `(.N)`).
GLOB_QUALIFIERS = re.compile(r"\([\w.^:-]*\)$")


def _commands_run(text: str, depth: int = 0) -> Iterator[list[str]]:
    """The commands of a start-up file, each followed by those of the code it hands `eval`, a
    shell's `-c` or zsh's `emulate -c` (`emulate sh -c '. ~/.profile'`), and by the command a
    zsh loop runs on its own line (`for f (lib/*.zsh) source $f`)."""
    for command in shell_commands(text):
        words: list[str] | None = command
        while words:  # (and the command a zsh loop on the line runs: `repeat 3 source x`)
            yield words
            code = code_given(words)
            if words[0] == "emulate" and "-c" in words[:-1]:
                code = words[words.index("-c") + 1]
            if code is not None and depth < MAX_EVAL_DEPTH:
                yield from _commands_run(code, depth + 1)
            words = _short_loop_body(words)


# zsh's loops whose body may follow on their own line with no `do` (its SHORT_LOOPS, on by
# default): `for f (lib/*.zsh) source $f`, `for f (a b) { source $f }`, `repeat 3 source x`.
SHORT_LOOPS = ("for", "foreach", "select", "repeat")


def _short_loop_body(words: list[str]) -> list[str] | None:
    """The command a zsh loop on one line runs (`for f (a b) source $f`: `source $f`), braces
    taken off; None for a loop of any other form."""
    if words[0] not in SHORT_LOOPS or len(words) < 3:
        return None
    if words[0] == "repeat":
        body = words[2:]
    else:
        ends = [at for at, word in enumerate(words[2:], 2) if word.endswith(")")]
        if not words[2].startswith("(") or not ends:
            return None
        body = words[ends[0] + 1 :]
    if body[:1] == ["{"]:
        body = body[1:-1] if body[-1:] == ["}"] else body[1:]
    return body or None


def _note_values(words: list[str], values: dict[str, list[str]], home: Path) -> None:
    """Note the words each variable the command `words` sets may hold (`possible_words`),
    with those it held before (it may be set in a branch that did not run): a plain
    assignment's, `export`'s and its kin's, and each word of a `for NAME in WORDS` loop. One a
    builtin sets (`read -r THEME < theme`, `getopts`, `printf -v`), or a zsh loop of another
    form, may hold anything: UNTOLD."""
    if words[0] in NAMING_BUILTINS:
        values.update((name, [UNTOLD]) for name in names_a_builtin_sets(words))
        return
    if words[0] == "for" and len(words) > 2 and words[2] == "in":
        given = [(words[1], word) for word in words[3:]]
    elif words[0] in SHORT_LOOPS and len(words) > 1 and words[1].isidentifier():
        # (zsh's `for f (lib/*.zsh)`, `foreach f (...)`: words only zsh splits and matches)
        values[words[1]] = [UNTOLD]
        return
    else:
        setting = words[1:] if words[0] in SETTING_WORDS else words
        assigned = (word.partition("=") for word in setting if ASSIGNMENT.match(word))
        given = [(name, value) for name, _, value in assigned]
    for name, word in given:
        possible = possible_words(word, values, home)
        values[name] = list(dict.fromkeys([*values.get(name, []), *possible]))
        del values[name][MAX_POSSIBLE_WORDS:]


def possible_words(word: str, values: Mapping[str, list[str]], home: Path) -> list[str]:
    """The words `word` may be once its variables are put in: each value the file set before
    (`values`), your environment's, and the value an expansion gives where the variable is
    unset (`${XDG_CONFIG_HOME:-$HOME/.config}`); HOME is `home`. [] where a variable has none
    of these, or is put in another way (`${X#prefix}`), which only the shell can tell."""
    found = PUT_IN.search(word)
    if found is None:
        return [word]
    name = found[1] or found[2]
    if UNTOLD in values.get(name, []):
        return []
    told = [str(home)] if name == "HOME" else [*values.get(name, [])]
    told += [os.environ[name]] if name in os.environ and name != "HOME" else []
    rest = word[found.end() :]
    if found[3] not in (None, "}"):  # (a value of its own, to the brace that ends it)
        depth = 1
        for at, char in enumerate(rest):
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth == 0:
                told += possible_words(rest[:at], values, home)
                rest = rest[at + 1 :]
                break
        else:
            return []
    afters = possible_words(rest, values, home)
    words = [word[: found.start()] + value + after for value in told for after in afters]
    return list(dict.fromkeys(words))[:MAX_POSSIBLE_WORDS]


def sourced_paths(word: str, values: Mapping[str, list[str]], home: Path) -> list[Path]:
    """The files `source WORD` in a start-up file of `home` may read: each of its
    `possible_words` as a path (`~` put in; one that is not absolute is looked for on PATH
    first, and left out), and for a pattern (or brace expansion, `~/.{exports,extra}`) each
    file it matches."""
    found: list[Path] = []
    for possible in possible_words(word, values, home):
        for expanded in brace_expanded(possible):
            path = _told_path(expanded, home)
            if path is None:
                continue
            if not glob.has_magic(path):
                found.append(Path(os.path.normpath(path)))
                looked_at(path)
                continue
            pattern = GLOB_QUALIFIERS.sub("", path)
            looked_at(*pattern_folders(pattern))  # (a file made there may match it)
            matches = sorted(glob.glob(pattern))[:MAX_PATTERN_FILES]
            found += [Path(os.path.normpath(match)) for match in matches]
    return list(dict.fromkeys(found))


# A list bash's brace expansion makes words of, with no list inside (`{exports,extra}`).
BRACE_LIST = re.compile(r"\{([^{}]*,[^{}]*)\}")


def brace_expanded(word: str) -> list[str]:
    """The words bash's brace expansion makes of `word` (`~/.{exports,extra}`: two), up to
    MAX_POSSIBLE_WORDS; a range (`{1..3}`) is left as it stands."""
    found = BRACE_LIST.search(word)
    if found is None:
        return [word]
    words: list[str] = []
    for choice in found[1].split(","):
        words += brace_expanded(word[: found.start()] + choice + word[found.end() :])
    return list(dict.fromkeys(words))[:MAX_POSSIBLE_WORDS]


# An expansion that sets its variable where it is unset (`: ${X_API_KEY:=v}`), up to its value.
SET_WHERE_UNSET = re.compile(r"\$\{([A-Za-z_]\w*):?=")
# An expansion that gives a value of its own (`${X_API_KEY:-v}`, `${X:+v}`), up to that value.
OWN_VALUE = re.compile(r"\$\{[A-Za-z_]\w*:?[-=+]")
# What fish runs a command after, which `set` may follow.
FISH_LEADING_WORDS = ("and", "or", "not", "begin", "if", "while")
# A name a shell file may set.
NAME = re.compile(r"[A-Za-z_]\w*")
# A `$` before a quote: bash's `$'...'` and `$"..."`, whose text is a value written there.
DOLLAR_QUOTE = re.compile(r"\$(?=['\"])")


def sets_a_secret(text: str) -> bool:
    """Whether the shell file `text` sets a variable that no sandboxed command gets from your
    environment: one named for a secret (`looks_secret`) to a value written there, by any
    command of any line (`[ -t 1 ] && export X_API_KEY=v`, `export EDITOR=vim X_API_KEY=v`,
    `declare -gx`, `readonly`, `: ${X_API_KEY:=v}`, fish's `set -gx X_API_KEY v`, csh's
    `setenv X_API_KEY v`, inside `eval`'s code or an alias), or any secret by its form
    (`secret_value`)."""
    if secret_value(text):
        return True
    if not any(map(looks_secret, set(NAME.findall(text)))):  # (most name none: no reading)
        return False
    commands = shell_commands(DOLLAR_QUOTE.sub("", text))
    assigned = (pair for words in commands for pair in _assignments(words))
    return any(looks_secret(name) and _written(value) for name, value in assigned)


def _assignments(words: list[str]) -> Iterator[tuple[str, str]]:
    """(name, what its value begins with) of each variable the command `words` may set: by
    the word itself, or by one inside it where code or a value begins (`eval "export
    X_API_KEY=v"`, `alias d='X_API_KEY=v deploy'`; any `NAME=` in it counts, ASSIGNED)."""
    for at, word in enumerate(words):
        yield from ((found[1], word[found.end() :]) for found in ASSIGNED.finditer(word))
        yield from ((found[1], word[found.end() :]) for found in SET_WHERE_UNSET.finditer(word))
        if word == "setenv" and at + 2 < len(words):  # (csh's, launchctl's)
            yield words[at + 1], words[at + 2]
    # fish's, its options before the name (`set --export NAME VALUE`), also after its `and`
    # (`status is-interactive; and set -gx NAME VALUE`)
    words = list(itertools.dropwhile(lambda word: word in FISH_LEADING_WORDS, words))
    if words[:1] == ["set"]:
        named = list(itertools.dropwhile(lambda word: word.startswith("-"), words[1:]))
        yield from [(named[0], named[1])] if len(named) > 1 else []


def _written(value: str) -> bool:
    """Whether a variable's value (its start) is written where it is set, not taken from
    elsewhere (`$OTHER`, `$(pass show gh)`): as it stands, or as the value of its own that
    an expansion gives (`${X_API_KEY:-v}`). Quotes inside `eval`'s code are taken out."""
    value = value.lstrip("'\"")
    if own := OWN_VALUE.match(value):
        return _written(value[own.end() :])
    return value[:1] not in ("", "$", "`", "}")


def home_of(path: Path) -> Path:
    """The home whose shell reads the start-up file `path`: the one of your homes it lies in
    (your account's `~/.bashrc` expands `~` to your account's home), else $HOME."""
    return next((home for home in your_homes() if path.is_relative_to(home)), Path.home())


def named_files(text: str, base: Path | None, home: Path | None = None) -> list[Path]:
    """Each existing file that a word of the shell file `text` names by a literal path
    (`literal_path`), wherever the word stands: a command run by its path, inside `$(...)` or
    backquotes, an argument. A script run by its path runs as surely as one sourced
    (`eval "$(./scripts/env.sh)"`, `~/dotfiles/bin/prompt-init bash`), and a program's argument
    may be one it runs (`python3 tools/env.py`). Folders are left out: a `cd ~/project` is no
    reason to hold a whole project. An assignment's plain value is left out too
    (`export DB=./dev.db` names data the project writes); the variables that name code are
    held from your environment, where direnv and your shell put them (CODE_VARIABLES in
    tools/environment.py), and a value that runs something (`$(...)`) is still read."""
    return files_named_by(shell_commands(text), base, home)


def files_named_by(
    commands: Iterable[list[str]], base: Path | None, home: Path | None = None
) -> list[Path]:
    """`named_files` of these commands, each given as its words."""
    found: list[Path] = []
    for words in commands:
        for word in words:
            if ASSIGNMENT.match(word) and "$(" not in word and "`" not in word:
                continue
            for piece in WORD_PIECES.split(word):
                named = literal_path(piece.strip("'\""), base, home) if piece else None
                if named is None or named in found:
                    continue
                looked_at(named)  # (one made later counts then)
                if os.path.isfile(named):
                    found.append(named)
    return found


def run_by_your_shell() -> list[Path]:
    """Every existing file your shells' start-up files, and the files they source, name by a
    literal path (`named_files`): what they may run besides what they source. Kept as
    `sourced_by_your_shell` is."""
    return list(_run_by_your_shell(_your_shells_key()))


@kept_while_unchanged
def _run_by_your_shell(_key: tuple[object, ...]) -> tuple[Path, ...]:
    sourced = sourced_by_your_shell()
    found: list[Path] = []
    for path in [*start_files(), *sourced]:
        # (with its own folder put in: `bash "${BASH_SOURCE%/*}/motd.sh"` runs the file beside it)
        text = _own_folder_put_in(_read(path), path) if os.path.isfile(path) else ""
        found += named_files(text, None, home_of(path))
    return tuple(path for path in dict.fromkeys(found) if path not in sourced)


def run_by_envrc(envrc: Path) -> list[Path]:
    """Every existing file an `.envrc`, or a file it sources, names by a literal path, relative
    to its folder (`named_files`): direnv's allow covers the `.envrc`, not the scripts it
    runs. Its words are read as written, and with the values its shell gives its variables
    put in (`envrc_steps`): `H=scripts/dev.sh`, then `bash "$H"` runs the script as surely.
    A shell script among them is read the same way, with the files it sources
    (`scripts_run_by_envrc`): what `bash scripts/setup.sh` sources runs as surely."""
    reader = _EnvrcReader(envrc)
    readers = [reader, *scripts_run_by_envrc(reader)[0]]
    found = [named for reader in readers for named, _ in _named_with_folders(reader)]
    found += [path for reader in readers[1:] for path, _ in reader.files]
    return [path for path in dict.fromkeys(found) if path != envrc]


def loaded_by_envrc(envrc: Path) -> list[Path]:
    """What an `.envrc` has direnv load or evaluate besides itself (relative to its folder).

    direnv checks only the `.envrc` against the folders you allowed; the files it sources, or
    watches and reloads on change, and the nix files nix-direnv evaluates (whose shellHook runs
    in your shell) are not checked, and run each time your shell enters the folder.
    """
    named: list[Path] = []
    for command, args, base in direnv_calls(envrc):
        if command in DIRENV_SOURCES and args and not args[0].startswith("-"):  # (`envrc_untold`)
            named.append(literal_path(args[0], base))
        elif command in ("watch_file", "watch_dir"):
            named += [literal_path(arg, base) for arg in args]
        elif command in ("source_up", "source_up_if_exists"):
            # The nearest folder above that holds this name (`.envrc` where it names none, as
            # direnv's stdlib has it): any of them, up the workspace.
            name = args[0] if args else ".envrc"
            named += [literal_path(name, folder) for folder in base.parents]
        elif command == "use" and args:
            named += nix_files(args[0], args[1:], base)
    named += path_added_by_envrc(envrc)
    named += layout_arguments(envrc)[0]
    named += nix_code_named_by_envrc(envrc)
    return [path for path in dict.fromkeys(named) if path is not None]


def direnv_calls(envrc: Path) -> list[tuple[str, list[str], Path]]:
    """(function, arguments, the folder they are read from) of each command of an `.envrc`
    and of the files it sources (`envrc_steps`), with `use_flake x` and `layout_node` spelt
    as `use flake x` and `layout node` are."""
    return [(*_as_call(words), base) for base, words in envrc_steps(envrc)]


def _as_call(words: list[str]) -> tuple[str, list[str]]:
    """(function, arguments) of an `.envrc` command, `use_flake x` spelt as `use flake x`."""
    command, args = words[0], words[1:]
    for kind in ("use", "layout"):
        if command.startswith(kind + "_"):
            return kind, [command.removeprefix(kind + "_"), *args]
    return command, args


# direnv's functions that load a file, or put a folder on a PATH, that their words name.
DIRENV_LOADERS = (
    *DIRENV_SOURCES,
    *("source_up", "source_up_if_exists", "PATH_add", "path_add", "load_prefix"),
    *("use", "layout"),
)
# What `use X` and `layout X` planloop reads: those whose files are read above or as a tool's
# (ENVRC_TOOLS), those that only put direnv's own .direnv/ (held as a host tool's folder) or
# folders outside on a PATH, and mise's and asdf's, whose files are held as host tools'.
KNOWN_USES = ("flake", "nix", "devenv", "vim", "flox", "node", "nodenv", "julia", "rbenv")
KNOWN_USES += ("mise", "asdf")
# direnv's layouts that keep what they install in `$(direnv_layout_dir)` (.direnv/, held as a
# host tool's folder, unless the `.envrc` sets `direnv_layout_dir`, as direnv's wiki shows to
# move it: `direnv_layout_dir=.cache/direnv`), with the folders there they put first on PATH
# (python's is a virtualenv, held as one).
LAYOUT_DIR_PATHS: dict[str, tuple[str, ...]] = {
    "go": ("go/bin",),
    "perl": ("perl5/bin",),
    "ruby": ("bin", "ruby/bin"),
    **dict.fromkeys(("python", "python2", "python3", "pyenv"), ()),
}
LAYOUT_DIR = "direnv_layout_dir"
# `direnv_layout_dir() {`: the `.envrc`'s own function in place of the variable.
OWN_LAYOUT_DIR = re.compile(r"^[ \t]*(?:function[ \t]+)?direnv_layout_dir[ \t]*[({]", re.MULTILINE)
KNOWN_LAYOUTS = (*DIRENV_LAYOUT_PATHS, *LAYOUT_DIR_PATHS, "pipenv", "julia", "anaconda")
# `use_x() {`, `function layout_x {`: a function the `.envrc` defines, whose lines are read.
OWN_FUNCTION = re.compile(r"^[ \t]*(?:function[ \t]+)?((?:use|layout)_\w+)", re.MULTILINE)


def envrc_untold(envrc: Path) -> str | None:
    """Why planloop cannot tell what an `.envrc` loads or puts on a PATH, or None: a word of
    such a function that only the shell can tell (a variable set nowhere, or by a loop over a
    pattern, `for f in .envrc.d/*.sh; do source_env "$f"; done`, a command's output), or a
    `use X` or `layout X` whose function planloop does not read (`use guix`, one of your
    direnvrc's). The same for a shell script it runs (`scripts_run_by_envrc`), read as the
    `.envrc`'s own lines are."""
    reader = _EnvrcReader(envrc)
    on_path = folders_put_on_path(reader)
    if why := _untold_by(reader, envrc.parent, on_path):
        return why
    scripts, all_read = scripts_run_by_envrc(reader)
    for script in [reader, *scripts]:
        if why := _runs_unfollowed_recipe(script):
            return f"it {why}"
    for script in scripts:
        if why := _untold_by(script, envrc.parent, on_path) or _prints_untold_files(script):
            path = script.files[0][0]
            shown = path.relative_to(envrc.parent) if path.is_relative_to(envrc.parent) else path
            if why.startswith("its "):  # (its line `...`)
                return f"it runs {shown}, whose {why.removeprefix('its ')}"
            return f"it runs {shown}, which {why.removeprefix('it ')}"
    if not all_read:
        bounds = f"{MAX_ENVRC_FILES} in all"
        return f"it runs scripts past the files planloop reads ({bounds})"
    for folder, line in layout_arguments(envrc)[1]:
        if folder is None:
            why = "puts `$VIRTUAL_ENV/bin` on PATH, which only its shell can tell"
            return f"its line `{line}` {why}"
    for _, folder, line in layout_dirs(envrc):
        if folder is None:
            why = f"puts `$({LAYOUT_DIR})`'s folders on PATH, which only its shell can tell"
            return f"its line `{line}` {why}"
    return None


def _untold_by(reader: _EnvrcReader, folder: Path, on_path: list[Path]) -> str | None:
    """`envrc_untold` of the lines `reader` read, of an `.envrc` in `folder` or a script it
    runs (`on_path`: the folders the `.envrc` puts on PATH), but for its layouts."""
    if reader.unread:
        bounds = f"{MAX_ENVRC_DEPTH} deep, {MAX_ENVRC_FILES} in all"
        return f"it sources {reader.unread[0]}, past the files planloop reads ({bounds})"
    if reader.unread_eval is not None:
        line = _short_line("eval", [reader.unread_eval])
        return f"its line `{line}` is past the {MAX_ENVRC_DEPTH} evals in a row planloop reads"
    if reader.unfollowed_move is not None:
        line = reader.unfollowed_move
        return f"its line `{line}` moves its shell to a folder only the shell can tell"
    if reader.unreadable is not None:
        return reader.unreadable
    if reader.replaced is not None:
        return reader.replaced
    if reader.stale_body is not None:
        return reader.stale_body
    if DIRENV_PROGRAM in reader.values:  # (set by any means: `direnv=x`, `read`, a dotenv)
        return f"it {SETS_DIRENV_PROGRAM}, so planloop cannot tell what direnv's functions do"
    texts = [_read(path) for path, _ in reader.files]
    defined = {name for text in texts for name in OWN_FUNCTION.findall(text)}
    # (a variable set for one command, too: `CDPATH=tools cd web`)
    commands = [
        (base, words) for path, base in reader.files for words in shell_commands(_read(path))
    ]
    for base, words in commands:
        if why := (
            _names_code_value(words)
            or _sets_where_unset(words)
            or _preloading_words(words)
            or _set_by_a_builtin(words)
            or _set_for_one_command(words, base, folder)
        ):
            return f"its line `{_short_line(words[0], words[1:])}` {why}"
    for command, args, base in ((*_as_call(words), base) for base, words in reader.steps):
        line = _short_line(command, args)
        if why := (
            _untold_command(command, args)
            or _runs_unread_code(command, args)
            or _past_a_link([command, *args], base)
            or _sets_word_splitting(command, args)
            or _changes_values_assigned(command, args)
            or _makes_a_name_reference(command, args)
            or _relative_export(command, args)
            or _sets_code(command, args, base, folder)
            or _runs_workspace_code_by_variable(command, args, base, folder)
            or _runs_unread_tasks(command, args)
            or _includes_unread_makefiles(command, args, base)
            or _gives_a_program_config(command, args, base, folder)
            or _sets_git_config(command, args)
            or _runs_unfollowed_code(command, args, base, on_path)
            or _preloads_unfollowed_code(command, args, base)
            or _sets_an_untold_name(command, args, base)
            or _runs_through_a_wrapper(command, args)
            or _runs_a_program_it_names(command, args)
            or _climbs_out_of_versions(command, args)
        ):
            return f"its line `{line}` {why}"
        if command not in DIRENV_LOADERS:
            continue
        for arg in args:
            if SHELL_ONLY.search(arg):
                return f"its line `{line}` needs `{arg}`, which only its shell can tell"
            if names_a_process_folder(arg):  # (`PATH_add /proc/self/cwd/bin`)
                return f"its line `{line}` names `{arg[:60]}`, which each process reads as its own"
            if ":" in arg and command in PATH_ADDERS:  # (PATH splits it: `PATH_add "a:b"`)
                return f"its line `{line}` puts `{arg[:60]}` on PATH, which splits it at `:`"
        if command in ("use", "layout") and args and not _read_function(command, args[0], defined):
            return f"its line `{line}` runs a direnv function planloop does not read"
    return None


# Interpreters whose code loads more files of the workspace by itself (`require('./lib')`,
# `require_relative`, `do "x.pl"`, zsh's `source`), which planloop does not follow: an
# `.envrc` that runs code in one asks, for that code may be any file. (python's script or
# `-m` module is held, and what it imports is not followed: a known gap.)
UNFOLLOWED_INTERPRETERS = ("node", "nodejs", "deno", "bun", "tsx", "ts-node", "ruby", "perl")
UNFOLLOWED_INTERPRETERS += ("php", "zsh", "fish", "csh", "tcsh", "lua", "luajit", "busybox")
UNFOLLOWED_INTERPRETERS += ("julia", "Rscript", "tclsh", "pwsh", "elixir", "escript", "guile")
# Tools that build the project's code and run it, or run code its files hold as they build
# (cargo's build.rs and proc macros, `go generate`, javac's annotation processors, gradle's and
# sbt's build scripts, Template Haskell, a Rakefile): `eval "$(cargo run -q --bin envgen)"`
# compiles whatever src/ holds at each load. They count as UNFOLLOWED_INTERPRETERS, but for a
# question that runs no code of the folder (`_only_asks`).
BUILD_RUNNERS = ("cargo", "rustc", "rustup", "rust-script", "go", "zig", "dart", "flutter")
BUILD_RUNNERS += ("java", "javac", "jshell", "jbang", "kotlin", "kotlinc", "kscript", "groovy")
BUILD_RUNNERS += ("scala", "scalac", "scala-cli", "amm", "sbt", "mill", "gradle", "gradlew")
BUILD_RUNNERS += ("mvn", "mvnw", "mvnd", "ant", "lein", "clojure", "clj", "bb", "dotnet", "mono")
BUILD_RUNNERS += ("csi", "dotnet-script", "swift", "swiftc", "runghc", "runhaskell", "ghc")
BUILD_RUNNERS += ("ghci", "stack", "cabal", "ocaml", "dune", "nim", "crystal", "mix", "iex")
BUILD_RUNNERS += ("erl", "rebar3", "gleam", "raku", "racket", "sbcl", "cmake", "meson", "ninja")
BUILD_RUNNERS += ("bazel", "bazelisk", "buck2", "pants", "scons", "rake", "bundle", "gulp")
BUILD_RUNNERS += ("grunt", "npx", "pnpx", "bunx")
UNFOLLOWED_INTERPRETERS += BUILD_RUNNERS
# What such an interpreter may be asked without running code.
INFORMATION_FLAGS = ("-v", "-V", "--version", "-h", "--help")
# What a build tool may be asked besides (all its words): go's and zig's `env` and `version`,
# java's version (with the settings it shows: `java -XshowSettings:properties -version`, for
# java.home), dotnet's installed SDKs.
INFORMATION_COMMANDS = {
    "go": re.compile(r"version|env(?: -json)?(?: \w+)*"),
    "zig": re.compile(r"version|env"),
    "java": re.compile(r"(?:-XshowSettings(?::\w+)? )?-version"),
    "dotnet": re.compile(r"--info|--list-sdks|--list-runtimes"),
}
# Build tools that run the project's code even for a version: a wrapper's jar (`./gradlew
# --version`, `./mvnw -v`), or the JVM options the project's files give (Maven's
# .mvn/jvm.config, sbt's .jvmopts, mill's .mill-jvm-opts: `-javaagent:tools/a.jar`).
RUNS_PROJECT_CODE_FIRST = ("gradlew", "mvn", "mvnw", "mvnd", "sbt", "mill")


def _runs_unfollowed_code(
    command: str, args: list[str], base: Path, on_path: list[Path]
) -> str | None:
    """Why the `.envrc` command `command args`, run in `base`, runs code whose loads planloop
    does not follow, or None: one of UNFOLLOWED_INTERPRETERS given code (`node tools/env.js`,
    `ruby -e ...`, `cargo run`), or a program of the workspace that is no shell script, run by
    its path or by its name from a folder the `.envrc` puts on PATH (`./tools/env.pl`, a binary
    in bin/). Its `#!` naming python is held, as `python3 x.py` is."""
    program = os.path.basename(command)
    if program in UNFOLLOWED_INTERPRETERS and not _only_asks(program, args):
        code = f"code through {program}" if program in BUILD_RUNNERS else f"{program} code"
        return f"runs {code}, whose loads of other files planloop does not follow"
    if "/" in command:
        named = literal_path(command, base)
        files = [named] if named is not None and os.path.isfile(named) else []
    else:
        files = [folder / command for folder in on_path if os.path.isfile(folder / command)]
    for path in files:
        if why := _unfollowed_script(path):
            return why
    return None


def _any_start_of(*names: str) -> str:
    """A pattern of any start of these names (`e`, `ev`, `eva`, `eval`), as getopt takes them."""
    starts = {name[:end] for name in names for end in range(1, len(name) + 1)}
    return "|".join(sorted(map(re.escape, starts), key=len, reverse=True))


MAKE_LOADING_OPTIONS = re.compile(
    rf"--?(?:{_any_start_of('eval', 'file', 'makefile', 'include-dir', 'directory')})(?:=|$)"
    r"|-?[A-Za-z]*[fIEC][A-Za-z\d.]*$"
)
# The variables whose options every java takes, or the one a build tool starts.
JAVA_VARIABLES = ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS", "JAVA_OPTS")
JAVA_VARIABLES += ("GRADLE_OPTS", "MAVEN_OPTS")
# Variables whose options have an interpreter of UNFOLLOWED_INTERPRETERS load code before
# anything else, in every one you start while direnv has the folder loaded (npm, eslint, a
# dev server): the program, and the options, each as a word of the value starts (node takes
# `_` for `-` in their names: `--experimental_loader`). Holding the file an option names is
# not enough, as the code it loads loads more by itself (`require('../lib/x.js')`), and an
# option may name a module, which the interpreter looks up in the folder (`-rbundler/setup`
# runs the Gemfile). (The config and env files node reads give it more such options.)
PRELOADING_OPTIONS: dict[str, tuple[str, re.Pattern[str]]] = {
    "NODE_OPTIONS": (
        "node",
        re.compile(
            r"--?(?:require|r|import|(?:experimental-)?loader|env-file(?:-if-exists)?"
            r"|openssl-config|experimental-config-file|snapshot-blob)(?:=|$)"
        ),
    ),
    # (`-wrjson`: switches run together; `-Ilib` puts a folder first to load from, as
    # RUBYLIB does, from wherever you stand)
    "RUBYOPT": ("ruby", re.compile(r"-[dvwWU\d]*[rI]")),
    "PERL5OPT": ("perl", re.compile(r"-[tTwWU]*[MmdI]")),  # (a module, `-d:Trace`'s Devel::)
    **dict.fromkeys(JAVA_VARIABLES, ("java", re.compile(r"-(?:javaagent|agentpath|agentlib):"))),
    # GNU make's options from the environment (GNUMAKEFLAGS, then MAKEFLAGS; MAKE, the make a
    # `$(MAKE)` recipe runs): another makefile, code to evaluate, a folder to include from or
    # start in, by any start of their names (`--ev=`: make takes what is not ambiguous); also
    # among letters run together, a first word's without a dash (`MAKEFLAGS='I mk'`), though
    # not in a variable it sets (`CC=clang`).
    **dict.fromkeys(("MAKEFLAGS", "GNUMAKEFLAGS", "MAKE"), ("make", MAKE_LOADING_OPTIONS)),
}
# Commands that set a variable they name to what they read or make (`read NODE_OPTIONS <
# opts`, `printf -v NODE_OPTIONS ...`), which only the shell can tell.
VALUE_READERS = ("read", "printf", "mapfile", "readarray")


def _preloads_unfollowed_code(command: str, args: list[str], base: Path) -> str | None:
    """Why the `.envrc` command `command args`, run in `base`, has every interpreter of a kind
    load code whose loads planloop does not follow, or None: it gives one of
    PRELOADING_OPTIONS such an option (`export NODE_OPTIONS="--require $PWD/tools/hook.js"`,
    or in the `.env` its `dotenv` loads), or a value only its shell can tell (`read`)."""
    words = [command, *args]
    if command in DOTENV_LOADERS:
        settings = dotenv_settings(dotenv_path(args, base))
        words += [f"{name}={value}" for name, value in settings.items() if value is not None]
    if command in VALUE_READERS:
        for name in (arg for arg in args if arg in PRELOADING_OPTIONS):
            return f"gives {name} a value only its shell can tell"
    return _preloading_words(words)


def _preloading_words(words: list[str]) -> str | None:
    """Why a command of these words gives one of PRELOADING_OPTIONS an option that loads
    code (`NODE_OPTIONS=--require ./x.js`, set for a command too), or None."""
    for assigned in filter(None, map(ASSIGNED.match, words)):
        name = assigned[1]
        if name not in PRELOADING_OPTIONS:
            continue
        program, loads = PRELOADING_OPTIONS[name]
        for option in assigned.string[assigned.end() :].split():
            if loads.match(option.strip("'\"").replace("_", "-")):
                why = "whose loads of other files planloop does not follow"
                return f"gives {name} `{option[:60]}`: every {program} loads that code first, {why}"
    return None


def _only_asks(program: str, args: list[str]) -> bool:
    """Whether one of UNFOLLOWED_INTERPRETERS given `args` only says what it is, running no
    code of the folder: INFORMATION_FLAGS alone (or nothing, for an interpreter: `node` alone
    reads its input), or a build tool's INFORMATION_COMMANDS. A build tool given nothing runs
    its default task (`rake`, `gradle`, `ninja`), and one of RUNS_PROJECT_CODE_FIRST always
    runs code."""
    if program not in BUILD_RUNNERS:
        return all(arg in INFORMATION_FLAGS for arg in args)
    if not args or program in RUNS_PROJECT_CODE_FIRST:
        return False
    asked = INFORMATION_COMMANDS.get(program)
    if asked is not None and asked.fullmatch(" ".join(args)):
        return True
    return all(arg in INFORMATION_FLAGS for arg in args)


def _start_of(path: Path) -> str:
    """The first bytes of the file at `path` as text (`read_file_start`: its `#!` line, or the
    NUL of a binary), however large it is; "" where it cannot be read. Read whole, a file past
    what planloop reads would be taken for empty: a perl script for a shell one."""
    from tools.paths import read_file_start  # (tools.paths imports this module)

    looked_at(path)
    try:
        return read_file_start(path).decode(errors="replace")
    except OSError:
        return ""


def _unfollowed_script(path: Path) -> str | None:
    """Why the program `path`, run by its path, runs code whose loads planloop does not
    follow, or None: it is no shell script (`_runs_as_shell`) and no python one."""
    first = _start_of(path).partition("\n")[0]
    if _splits_its_line(first):
        return f"runs {path.name}, whose `#!` line is a command line of its own (env's `-S`)"
    if _runs_as_shell(path) or PYTHON_SHEBANG.match(first):
        return None
    return f"runs {path.name}, no shell script, whose loads planloop does not follow"


def _splits_its_line(first: str) -> bool:
    """Whether the `#!` line `first` has env split the rest of it into words (`-S`,
    `--split-string`): `#!/usr/bin/env -S sh -c ". ./lib"` runs that code, and not the file's
    own lines the way a plain `#!/bin/sh` would."""
    words = first[2:].split() if first.startswith("#!") else []
    if not words or os.path.basename(words[0]) != "env":
        return False
    return any(re.fullmatch(r"-[^-]*S.*|--split-string(?:=.*)?", word) for word in words[1:])


def _runs_as_shell(path: Path) -> bool:
    """Whether the program `path`, run by its path, runs as a shell script: its `#!` names one
    of SCRIPT_SHELLS, or it has none and is text, which bash runs as a script of its own."""
    text = _start_of(path)
    if text.startswith("#!"):
        return _is_shell_script(path)
    return "\0" not in text


# Programs all of whose words but options name the files whose text they print.
FILE_PRINTERS = ("cat", "head", "tail", "tac", "paste", "sort", "uniq", "column", "fold")


def _prints_untold_files(script: _EnvrcReader) -> str | None:
    """Why a script the `.envrc` runs prints text of files planloop cannot tell, or None: one of
    FILE_PRINTERS given a pattern or a value only its shell knows (`cat config/*.sh`), whose
    output `eval "$(./scripts/print-env.sh)"` runs as code: a file a command adds is in it."""
    for _, words in script.steps:
        if os.path.basename(words[0]) not in FILE_PRINTERS:
            continue
        for arg in (arg for arg in words[1:] if SHELL_ONLY.search(arg)):
            line = _short_line(words[0], words[1:])
            why = f"prints the files `{arg[:60]}` picks, which only its shell can tell"
            return f"its line `{line}` {why}"
    return None


def _runs_unfollowed_recipe(reader: _EnvrcReader) -> str | None:
    """`_runs_unfollowed_code` of the scripts the recipes of the tools the lines `reader` read
    run (`recipe_scripts`: a makefile's `@node tools/env.js`, `@./tools/env.pl`)."""
    for path, base in reader.files:
        tool_files = tool_files_of(path, base)
        if why := _unread_recipes(tool_files) or _recipes_run_unread(tool_files):
            return why
        for script, _, program in recipe_scripts(tool_files):
            if program in UNFOLLOWED_INTERPRETERS:
                why = "whose loads of other files planloop does not follow"
                return f"runs a recipe that runs {script.name} in {program}, {why}"
            if program == "" and (why := _unfollowed_script(script)):
                return f"runs a recipe that {why}"
    return None


# What make puts before a recipe line (`@` not to echo it, `-` to go on past its failure, `+`
# to run it under `-n` too), and its spellings of the make that runs it.
RECIPE_PREFIX = re.compile(r"^[@+-]+")
MAKE_ITSELF = ("$(MAKE)", "${MAKE}")


def _recipes_run_unread(files: list[tuple[Path, Path]]) -> str | None:
    """Why a recipe of these tool files (file, the folder the tool runs in) runs what planloop
    does not read, or None: a build tool that compiles and runs the project's code (`cargo
    run`, `go run`: `_runs_unfollowed_code`) or tasks from another file (`$(MAKE) -f
    other.mk`, `rake env`: `_runs_unread_tasks`). Each line of the file counts, whichever
    target runs."""
    for path, folder in files:
        for recipe in _recipes_of(path) if os.path.isfile(path) else ():
            for words in shell_commands(recipe):
                words = [RECIPE_PREFIX.sub("", words[0]), *words[1:]]
                words = ["make" if word in MAKE_ITSELF else word for word in words]
                command, args = words[0], words[1:]
                if command and (
                    why := _runs_unfollowed_code(command, args, folder, [])
                    or _runs_unread_tasks(command, args)
                ):
                    return f"runs a recipe of {path.name} that {why}"
    return None


# A `#!` line that runs python (`#!/usr/bin/env python3`, `#!/usr/bin/python3.12 -I`).
PYTHON_SHEBANG = re.compile(r"#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?python[\d.]*(?:\s|$)")


# Programs that run a command they are given (`timeout 60 bash x`, `env -C tools ./x`, `xargs
# -a list bash`), with options of their own that planloop does not parse.
WRAPPERS = ("env", "nice", "nohup", "timeout", "stdbuf", "setsid", "flock", "chronic", "sudo")
WRAPPERS += ("doas", "ionice", "taskset", "unshare", "watch", "script", "systemd-run", "xargs")
WRAPPERS += ("parallel", "chrt", "time", "exec", "setpriv", "runuser", "su", "sg", "nsenter")
# find's actions that run a command on what it finds.
FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir")


def _runs_through_a_wrapper(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` runs code through another program whose way
    of running it planloop does not read, or None: a wrapper (WRAPPERS) given a shell, an
    interpreter, `source` or a file by its path (`timeout 60 bash scripts/setup`, whose
    sourced files would go unheld), a folder to run it in (`env -C tools ./x`) or a command
    line its input holds (`xargs -a list bash`); and find running a command on each file."""
    program = os.path.basename(command)
    if program == "find" and any(arg in FIND_ACTIONS for arg in args):
        return "runs a command on the files find finds, which planloop does not read"
    if program not in WRAPPERS:
        return None
    for arg in args:
        name = os.path.basename(arg)
        runs = name in (*SCRIPT_SHELLS, *SOURCING, *INTERPRETERS, *UNFOLLOWED_INTERPRETERS)
        if runs or name.startswith("python") or arg.startswith(("./", "../", "/")):
            return f"runs `{arg[:60]}` through {program}, which planloop does not follow"
        if program == "env" and re.match(r"-\w*C|--chdir|-\w*S|--split-string", arg):
            return f"runs a command through env's `{arg[:60]}`, which planloop does not follow"
    return None


# Commands that run none of their words, whatever they say (`echo "needs bash"`, `[[ $SHELL ==
# *bash ]]`, `command -v node`, `which node`): direnv's functions and bash's builtins (DIRENV_RUNS:
# `layout python3`, `use node`), whose words planloop reads as theirs, and lookups of a name.
RUNS_NONE_OF_ITS_WORDS = ("[[", "which", "whereis")
# `command -v NAME` (`command` is read past: its option stands first).
LOOKUP_OPTION = re.compile(r"-p?[vV][pvV]*")
# A piece of a word that may be a command's name or path (`sh`, `/bin/sh`, `python3.12`).
COMMAND_PIECE = re.compile(r"[\w.+@/-]+")


# Version managers and shell set-ups whose subcommand here takes a shell's or an interpreter's
# name for the shell whose code it prints or the version it picks, running no program of that
# name (`mise activate bash`, `nvm use node`, `uv venv --python=python3.12`). Their `run` and
# `exec` do run one, and are not listed.
NAMES_NOT_RUN = {
    **dict.fromkeys(("mise", "rtx"), ("activate", "use", "install", "env", "hook-env")),
    **dict.fromkeys(("rbenv", "pyenv", "nodenv", "goenv", "jenv"), ("init", "install", "local")),
    **dict.fromkeys(("nvm", "fnm"), ("use", "install", "env", "alias")),
    "asdf": ("install", "local", "global", "shell", "set", "plugin", "plugin-add"),
    "volta": ("install", "pin", "setup"),
    "sdk": ("use", "install", "default", "env"),
    "pixi": ("shell-hook",),
    "direnv": ("hook",),
    "starship": ("init",),
    "zoxide": ("init",),
    "poetry": ("env",),
    "uv": ("venv", "python"),
    **dict.fromkeys(("conda", "mamba", "micromamba"), ("shell", "shell.bash", "shell.zsh")),
}


def _runs_a_program_it_names(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` may run a shell or another interpreter that one
    of its words names, in a way planloop does not follow, or None: a program that runs the
    command line it is given, which WRAPPERS does not list (`prlimit --nofile=8192 sh
    tools/setup`, `setarch x86_64 bash ...`, `direnv exec . sh ...`), or one that runs a
    command inside one of its words (awk's `system("sh tools/setup")`, sed's `e sh
    tools/setup`, tar's `--to-command=sh ...`): what such a script sources would go unheld.
    A shell's own words are read (`bash tools/setup`, its `-c`), and a word that is a path
    of its own names no program but as an absolute one (`mkdir -p .cache/node`)."""
    program = os.path.basename(command)
    if (
        program in SCRIPT_SHELLS
        or command in (*DIRENV_RUNS, *RUNS_NONE_OF_ITS_WORDS)
        or LOOKUP_OPTION.fullmatch(command)
        or ASSIGNMENT.match(command)
    ):
        return None
    subcommand = next((arg for arg in args if not arg.startswith("-")), None)
    if subcommand in NAMES_NOT_RUN.get(program, ()):
        return None
    runs_code = (*SCRIPT_SHELLS, *INTERPRETERS, *UNFOLLOWED_INTERPRETERS)
    for arg in args:
        pieces = [arg] if COMMAND_PIECE.fullmatch(arg) else COMMAND_PIECE.findall(arg)
        for piece in pieces:
            name = os.path.basename(piece) if piece.startswith("/") else piece
            if name in runs_code or re.fullmatch(r"python[\d.]*", name):
                given = "" if piece == arg else f" in `{arg[:60]}`"
                return f"runs `{piece}`{given} through {program}, which planloop does not follow"
    return None


# direnv's functions whose word joins PATH (or LD_LIBRARY_PATH) as it is.
PATH_ADDERS = ("PATH_add", "path_add", "load_prefix")
# Variables the reader puts in itself, from where it stands and whose home it is: one the file
# sets moves what they name for the lines after it (`PWD=$PWD/tools`, then `PATH_add "$PWD"`).
READER_VARIABLES = ("PWD", "OLDPWD", "HOME")
# An assignment, to an element of an array too (`PATH[0]=tools` sets PATH).
ELEMENT_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*(?:\[[^]]*\])?\+?=")


def _sets_an_untold_name(command: str, args: list[str], base: Path) -> str | None:
    """Why the `.envrc` command `command args`, run in `base`, sets a variable planloop cannot
    follow, or None: a name only its shell can tell (`export BASH${X}_ENV=x`, `export
    {BASH,X}_ENV=x`, `export $NAMES`, the names a command prints, but for a file's words,
    `_printed_names_untold`), or one of READER_VARIABLES, which planloop puts in from where
    the file stands."""
    words = args if command in SETTING_WORDS else [command, *args]
    if command not in SETTING_WORDS and not all(ELEMENT_ASSIGNMENT.match(w) for w in words):
        return None  # (a command with variables set for it: `PWD=x cmd` moves nothing after)
    for word in words if command in SETTING_WORDS else ():
        if not word.startswith(("-", "+")) and re.search(r"[$`]", word.partition("=")[0]):
            return _printed_names_untold(word, base)  # (`export $(grep -v '^#' .env | xargs)`)
    for word in (word for word in words if "=" in word and not word.startswith(("-", "+"))):
        name = re.split(r"\+?=", word, maxsplit=1)[0]
        if not re.fullmatch(r"[A-Za-z_]\w*", name):
            return f"sets `{name[:60]}`, a name (or an element) only its shell can tell"
        if name in READER_VARIABLES:
            return f"sets {name}, which moves the paths planloop reads after it"
    return None


# `export $(grep -v '^#' .env | xargs)`: a command that prints a file's words (with grep's
# filter, through xargs, which takes the quotes off), each of which export sets.
FILE_PRINTERS_FOR_EXPORT = ("cat", "grep", "egrep")


def _printed_names_untold(word: str, base: Path) -> str | None:
    """Why an `export` word whose names only its shell can tell (a variable's value, a
    command's output) may set a variable that matters, or None. The one form read is the common
    `$(cat F)` or `$(grep -v '^#' F | xargs)`, whose words are F's (held: the `.envrc` names
    it). It asks where F may set PATH, a variable that names code, or one planloop reads paths
    by (any text of F that holds such a name with a `=` after it), where F is missing (a
    command could make it), or where a word of F is a pattern. grep's `-o`, which may print a
    piece of a name, and any other filter are not read: they ask."""
    untold = f"sets names only its shell can tell (`{word[:60]}`)"
    found = re.fullmatch(r"\$\(([^()$`;&<>]*)\)", word)
    if found is None:
        return untold
    try:
        stages = [shlex.split(stage) for stage in found[1].split("|")]
    except ValueError:
        return untold
    if not stages[0] or stages[0][0] not in FILE_PRINTERS_FOR_EXPORT:
        return untold
    if any(stage != ["xargs"] for stage in stages[1:]):
        return untold  # (xargs with options or a command of its own, another filter: not read)
    files = _files_printed(stages[0])
    if files is None:
        return untold
    from tools.paths import read_small_file  # (here: tools.paths imports this module)

    for name in files:
        path = literal_path(name, base)
        try:
            text = read_small_file(path) if path is not None else None
        except OSError:  # (missing, and a command could make it; or larger than planloop reads)
            text = None
        if text is None:
            return f"sets the names the words of `{name}` give, which is no file planloop reads"
        if re.search(r"[*?[]", text):
            return f"sets the names the words of `{name}` give, one of which is a pattern"
        for named in re.finditer(r"([A-Za-z_]\w*)(?:\[[^]]*\])?\+?=", text):
            if _matters_set_by_words(named[1]):
                return f"sets {named[1]} from the words of `{name}`, which planloop does not follow"
    return None


# grep's options whose value is the rest of the word or the next one (`-e PATTERN`, `-m1`).
GREP_VALUE_LETTERS = "efmABCdD"
GREP_VALUE_OPTIONS = ("--regexp", "--file", "--max-count", "--context", "--devices")


def _files_printed(words: list[str]) -> list[str] | None:
    """The files `cat` or `grep` (`words`) prints the lines of; None where it may print only
    pieces of them (`-o`) or none are named (it reads its input)."""
    files, pattern_given, skip = [], words[0] == "cat", False
    for word in words[1:]:
        if skip:
            skip = False
        elif word.startswith("--"):
            if word in ("--only-matching", "-o"):
                return None
            skip = word in GREP_VALUE_OPTIONS
            pattern_given |= word.startswith(("--regexp", "--file"))
        elif word.startswith("-") and len(word) > 1:
            for at, letter in enumerate(word[1:]):
                if letter == "o":
                    return None
                if letter in GREP_VALUE_LETTERS:
                    skip = at == len(word) - 2  # (the value is the next word)
                    pattern_given |= letter in "ef"
                    break
        else:
            files.append(word)
    files = files if pattern_given else files[1:]  # (grep's first operand is its pattern)
    return files or None


def _matters_set_by_words(name: str) -> bool:
    """Whether setting the variable `name` for your shell matters to planloop: PATH,
    CODE_VARIABLES, ENVRC_RELATIVE_VARIABLES, ENVRC_CODE_VALUES, READER_VARIABLES, `$direnv`,
    VERSION_PREFIXES."""
    matters = ("PATH", DIRENV_PROGRAM, *READER_VARIABLES, *ENVRC_RELATIVE_VARIABLES)
    matters += VERSION_PREFIXES
    return name in matters or name in CODE_VARIABLE_NAMES or bool(_names_code_value([name]))


def _sets_word_splitting(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` changes where its shell splits a value put in
    unquoted, or None: it sets IFS for the file's shell (`IFS=_`, `export IFS=:`), where
    planloop splits at blanks only. (Set for one command, `IFS= read -r x`, it changes none.)"""
    words = args if command in SETTING_WORDS else [command, *args]
    for_the_shell = command in SETTING_WORDS or all(ASSIGNMENT.match(word) for word in words)
    if for_the_shell and any(re.match(r"IFS\+?(?:=|$)", word) for word in words):
        return "sets IFS, which changes where its shell splits the words planloop reads"
    return None


# The options of declare, typeset and local that change each value assigned to a variable
# after: to upper case (`-u`), lower case (`-l`), capitals (`-c`); ksh's `typeset` pads or cuts
# it too (`-L`, `-R`, `-Z`).
VALUE_CHANGING_OPTION = re.compile(r"[-+]\w*[ulcLRZ]\w*")


def _changes_values_assigned(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` may give a variable an attribute that changes
    each value assigned to it after (VALUE_CHANGING_OPTION), or None: `declare -u B=bin` sets
    B to `BIN`, and so does a later `B=bin`, where planloop reads values as written. An
    option only its shell can tell (`declare $OPTS B=bin`) may be one."""
    if command not in ("declare", "typeset", "local"):
        return None
    for arg in args:
        if VALUE_CHANGING_OPTION.fullmatch(arg):
            return f"gives a variable `{arg}`, an attribute that changes each value assigned to it"
        if "$" in arg.partition("=")[0]:
            return f"gives `{command}` `{arg[:60]}`, whose options only its shell can tell"
    return None


# An option of declare, typeset and local that makes a variable a name reference (`-n`, `-gn`).
NAME_REFERENCE_OPTION = re.compile(r"-\w*n\w*")


def _makes_a_name_reference(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` makes a variable a name reference, or None:
    after `declare -n P=PATH` each assignment to P sets PATH (`P=":$P"`, `export P=...`),
    where planloop reads the name an assignment is written with."""
    if command not in ("declare", "typeset", "local"):
        return None
    if any(NAME_REFERENCE_OPTION.fullmatch(arg) for arg in args):
        return "makes a name reference, whose assignments set a variable only its shell can tell"
    return None


def _past_a_link(words: list[str], base: Path) -> str | None:
    """Why a word of an `.envrc` command run in `base` (or a piece of it: `$(. ../x.sh)`) names
    another file for its shell than for planloop, or None: a `..` past a linked folder
    (`source_env sub/dev.sh`, whose `source ../x.sh` runs with `sub` a link): planloop reads
    `..` as a name's parent, and the system opens the parent of the folder the link leads to."""
    for piece in (piece for word in words for piece in WORD_PIECES.split(word)):
        named = literal_path(piece, base) if ".." in piece.split("/") else None
        if named is not None and os.path.realpath(named) != os.path.realpath(base / piece):
            return f"names `{piece[:60]}` past a linked folder, whose `..` only its shell can tell"
    return None


# The shells whose scripts an `.envrc` runs are read as its own lines (`bash scripts/setup.sh`,
# `./scripts/setup.sh` that starts with `#!/bin/sh`): what such a script sources or runs in
# turn runs at each load too. (Its `cd` and variables stay in its own shell.)
SCRIPT_SHELLS = ("sh", "bash", "dash", "ksh", "mksh", "ash")
SCRIPT_SUFFIXES = (".sh", ".bash")
# The options of those shells that take the word after them (`-o pipefail`, `--rcfile F`).
SHELL_OPTIONS_WITH_VALUES = ("o", "O")
SHELL_LONG_OPTIONS_WITH_VALUES = ("--rcfile", "--init-file")


def shell_operand(args: list[str]) -> tuple[str, str | None]:
    """What a shell of SCRIPT_SHELLS given `args` runs: ("script", the word that names its
    file), ("code", the command string of its `-c`), or ("input", None) where it reads its
    commands from its standard input (`cat env.sh | bash`, `bash -s`)."""
    rest, code, reads_input = list(args), False, False
    while rest and rest[0][:1] in ("-", "+") and rest[0] not in ("-", "--"):
        option = rest.pop(0)
        if option.startswith("--"):
            rest = rest[option in SHELL_LONG_OPTIONS_WITH_VALUES :]
            continue
        rest = rest[sum(map(option[1:].count, SHELL_OPTIONS_WITH_VALUES)) :]
        code = code or (option[0] == "-" and "c" in option)
        reads_input = reads_input or (option[0] == "-" and "s" in option)
    rest = rest[rest[:1] in (["-"], ["--"]) :]
    if code:
        return "code", rest[0] if rest else None
    if reads_input or not rest:
        return "input", None
    return "script", rest[0]


def scripts_run_by_envrc(envrc: _EnvrcReader) -> tuple[list[_EnvrcReader], bool]:
    """(a reader of each shell script the `.envrc` read by `envrc`, the files it sources and
    those scripts in turn name by a path, from the folder that names it; whether all were read,
    MAX_ENVRC_FILES at most). A script a line names is taken as run, as `run_by_envrc` holds
    it."""
    readers = [envrc]
    # Each script once from each folder it runs in: its relative words are read from there.
    seen = set(readers[0].files)
    on_path = folders_put_on_path(envrc)
    for reader in readers:  # grows while it is walked
        handed = handed_to_a_shell(reader)
        # (and the scripts a tool's recipe runs: `@./tools/setup.sh`, `@. tools/setup.sh`)
        recipes = [
            found
            for path, base in reader.files
            for found in recipe_scripts(tool_files_of(path, base))
        ]
        handed |= {
            script for script, _, program in recipes if program in (*SCRIPT_SHELLS, *SOURCING)
        }
        found_on = _found_on(on_path, reader)
        handed |= {script for script, _ in found_on if _runs_as_shell(script)}
        named = [*_named_with_folders(reader), *found_on]
        handed |= {script for script, _ in named if _runs_as_a_program(script)}
        for script, base in [*named, *((script, folder) for script, folder, _ in recipes)]:
            if (script, base) in seen or not (script in handed or _is_shell_script(script)):
                continue
            if len(seen) >= MAX_ENVRC_FILES:
                return readers[1:], False
            seen.add((script, base))
            readers.append(_EnvrcReader(script, base=base))
    return readers[1:], True


def _runs_as_a_program(path: Path) -> bool:
    """Whether the file `path`, which a line names, runs as a shell script when any program
    runs it by its path (`prlimit ./tools/setup`, awk's `system("./tools/setup")`): it may be
    run (it is executable), and a shell runs it (`_runs_as_shell`: one with no `#!` too, which
    the system hands to sh). A program of the system's (`[[ $SHELL == */bash ]]` names
    /bin/bash) is a binary, which no shell runs."""
    from tools.paths import read_file_start  # (tools.paths imports this module)

    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return False
    try:
        head = read_file_start(path)  # (a FIFO a command put there since is not waited on)
    except OSError:
        return False
    return b"\0" not in head and _runs_as_shell(path)


def folders_put_on_path(envrc: _EnvrcReader) -> list[Path]:
    """The existing folders the `.envrc` read by `envrc` puts on your PATH: by direnv's
    functions (`path_added_by_envrc`), and by a PATH it sets (`export PATH="$PWD/bin:$PATH"`,
    `export PATH="$PWD/../tools:$PATH"` from a folder below, with the values it knows put
    in), but your own PATH's folders outside the `.envrc`'s tree, which `$PATH` puts in."""
    folders = path_added_by_envrc(envrc.envrc)
    top = envrc.envrc.parent
    yours = {Path(os.path.normpath(entry)) for entry in envrc.environ.get("PATH", "").split(":")}
    for base, words in envrc.steps:
        for word in words[words[0] in SETTING_WORDS :]:
            name, equals, value = word.partition("=")
            if equals and name.removesuffix("+") == "PATH":
                named = [literal_path(entry, base) for entry in value.split(":") if entry]
                named = [path for path in named if path and path.is_dir()]
                folders += [p for p in named if p.is_relative_to(top) or p not in yours]
    return list(dict.fromkeys(folders))


def _found_on(folders: list[Path], reader: _EnvrcReader) -> list[tuple[Path, Path]]:
    """(file, the folder its line runs in) for each program the lines `reader` read run by a
    bare name that one of `folders` (those the `.envrc` puts on PATH) holds: `PATH_add bin`,
    then `dev-env`, runs bin/dev-env."""
    return [
        (folder / words[0], base)
        for base, words in reader.steps
        if "/" not in words[0] and words[0] not in (".", "..")
        for folder in folders
        if os.path.isfile(folder / words[0])
    ]


def handed_to_a_shell(reader: _EnvrcReader) -> set[Path]:
    """The files the lines `reader` read give a shell of SCRIPT_SHELLS as its script (`bash
    tools/setup`, `sh < env.local`): shell scripts, whatever their names and first lines."""
    found = set()
    for base, words in reader.steps:
        kind, operand = shell_operand(words[1:])
        if os.path.basename(words[0]) in SCRIPT_SHELLS and kind == "script" and operand:
            found.add(literal_path(operand, base))
        elif "/" in words[0] and (path := literal_path(words[0], base)) and path.is_file():
            found.add(path if _runs_as_shell(path) else None)  # (run by its path: `./setup`)
    return {path for path in found if path is not None}


def _named_with_folders(reader: _EnvrcReader) -> list[tuple[Path, Path]]:
    """(file, the folder its line runs in) for each existing file the lines `reader` read name
    by a literal path (`named_files`), as written and with the values it knows put in."""
    found = [
        (named, base) for path, base in reader.files for named in named_files(_read(path), base)
    ]
    found += [
        (named, base) for base, words in reader.steps for named in files_named_by([words], base)
    ]
    return list(dict.fromkeys(found))


def _is_shell_script(path: Path) -> bool:
    """Whether `path` is a script of SCRIPT_SHELLS: its `#!` names one (`#!/usr/bin/env bash`),
    or, with none, its name ends as a shell script's does."""
    first = _start_of(path).partition("\n")[0]
    if not first.startswith("#!"):
        return path.name.endswith(SCRIPT_SUFFIXES)
    words = first[2:].split()
    if _splits_its_line(first):
        return False  # (its line's own code runs: `_unfollowed_script`)
    if words and os.path.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return bool(words) and os.path.basename(words[0]) in SCRIPT_SHELLS


def _untold_command(command: str, args: list[str]) -> str | None:
    """Why only the shell can tell what the `.envrc` command `command args` runs, or None: a
    command word it makes (`$(echo PATH_add) bin`, `$TOOL bin`), or `eval` given words it
    makes (`eval "$LINE"`). What `eval` is given plainly is read as the file's own lines
    (`envrc_steps`), and a program's output it runs (`eval "$(pixi shell-hook)"`) holds that
    program's files (`tools_run_by_envrc`)."""
    if re.search("[$`*?]", command) and not ASSIGNMENT.match(command):
        # (the words of a `$(...)` are split apart here: the whole line says it better)
        return "runs a command its shell makes, which only the shell can tell"
    stacked = [word for word in [command, *args] if _stack_entry(word)]
    stacked += [command] if DIRECTORY_STACK.match(command) else []
    if stacked:
        # (`~+/x` is $PWD/x: the folder its shell stands in, which a line before may move)
        why = "from a folder of its shell's stack, which only it can tell"
        return f"names `{stacked[0][:60]}`, {why}"
    given = " ".join(args)
    if found := PATTERN_IN_OUTPUT.search(" ".join([command, given])):
        return f"runs `{found[0][:60]}`, a pattern's files, which only its shell can tell"
    code = code_given([command, *args])  # (eval's, or a shell's `-c`)
    if code is not None and SHELL_ONLY.search(code) and not EVAL_OF_OUTPUT.fullmatch(code):
        return f"runs `{code}`, which only its shell can tell"
    if command == "shopt" and "expand_aliases" in args:  # (off in direnv's shell, else)
        return "turns on aliases, whose commands only its shell can tell"
    if command in ("set", "shopt") and "posix" in args or _sets_posixly_correct(command, args):
        return "turns on bash's POSIX mode, whose aliases only its shell can tell"
    return _runs_code_later(command, args)


def _stack_entry(word: str) -> bool:
    """Whether an assignment `word` gives an entry from bash's directory stack (`~+`, `~-`,
    `~1`): `PYTHONPATH=~+/lib` is $PWD/lib, which planloop would read as no path at all."""
    return bool(ASSIGNMENT.match(word) and STACK_ENTRY.search(word.partition("=")[2]))


STACK_ENTRY = re.compile(r"(?:^|:)" + DIRECTORY_STACK.pattern)


def _sets_posixly_correct(command: str, args: list[str]) -> bool:
    """Whether the command sets POSIXLY_CORRECT, which puts bash in POSIX mode (aliases expand
    in a script too: `alias p=PATH_add` then `p bin` runs PATH_add)."""
    named = [command, *args] if command in SETTING_WORDS or ASSIGNMENT.match(command) else []
    return any(word.partition("=")[0] == "POSIXLY_CORRECT" for word in named)


# A command's output (or a process substitution's) whose command names files by a pattern
# (`: "$(. scripts/de?.sh)"`, `bash <(cat .envrc.d/*.sh)`): it runs whatever file matches.
PATTERN_IN_OUTPUT = re.compile(r"(?:\$\(|[<>]\(|`)[^)`]*?[*?][^)`]*")
# Programs whose output is the text of the files they are given, changed or not: `eval` of it
# runs that text (`eval "$(sed 's/^/export /' env.local)"`). (`$(cat FILE)` alone is read as
# FILE sourced: `as_run`.)
TEXT_PRINTERS = ("cat", "head", "tail", "sed", "awk", "gawk", "grep", "cut", "tr", "envsubst")
TEXT_PRINTERS += ("sort", "uniq", "tac", "paste", "column", "fold", "expand", "dd")
PRINTED_TEXT = re.compile(
    r"(?:\$\(|`)\s*(?:[\w/.-]*/)?(" + "|".join(TEXT_PRINTERS) + r")(?![\w.-])"
)


def _runs_unread_code(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` runs shell code planloop does not read, or
    None: a script a shell (or another interpreter) is given by a word only its shell can
    tell (a loop's `bash "$f"`), a shell's commands from its standard input (`cat env.sh |
    bash`), `source` given an option, its standard input or a command's output (`source
    <(pixi shell-hook)`; `as_run` reads `source <(cat FILE)`), and code made of the text a
    program prints from files (`eval "$(sed ... env.local)"`)."""
    program = os.path.basename(command)
    if program in SCRIPT_SHELLS:
        kind, script = shell_operand(args)
        if kind == "input":
            return "runs a shell on its standard input, whose commands planloop does not read"
    elif program in INTERPRETERS or program.startswith("python"):
        script = next((arg for arg in args if not arg.startswith("-")), None)
    else:
        script = None
    if script is not None and SHELL_ONLY.search(script) and code_given([command, *args]) is None:
        return f"runs the script `{script[:60]}`, which only its shell can tell"
    if command in ("source", ".") and args and args[0].startswith("-"):
        return f"gives `{command}` the option `{args[0]}`, which planloop does not read"
    if command in ("source", ".") and args and (descriptor_file(args[0]) or "(" in args[0]):
        return f"sources `{args[0][:60]}`, what a command gives, which planloop does not read"
    code = code_given([command, *args])
    if code is not None and (printed := PRINTED_TEXT.search(code)):
        return f"runs the text `{printed[1]}` prints, which planloop does not read"
    return None


# Commands of an `.envrc` that keep code in a string bash runs later, or that run what a
# variable's value says: a trap's text (at exit, or before each command: a DEBUG trap's `cd`
# moves the shell under the lines read after it), mapfile's `-C` callback, and arithmetic,
# which runs the `$(...)` of an array subscript in a value (`i='a[$(x)]'; (( i ))`).
RUNS_LATER = ("trap", "mapfile", "readarray", "let", "((")
# The words that do the same: arithmetic expansion (`$(( i ))`, `$[i]`), a subscript that is
# no plain number (`${a[i]}`, `a[i]=x`, `unset 'a[$(x)]'`, a test's `-v 'a[i]'`), a substring
# offset (`${x:i}`), and a value run through prompt expansion (`${P@P}`).
RUNS_LATER_WORD = re.compile(
    r"\$\(\(|\$\[|^\(\(|@P\}"
    r"|(?:^|\$\{[#!]?)[A-Za-z_]\w*\[(?!\d*\]|[@*]\])"
    r"|\$\{[A-Za-z_]\w*:(?![-=?+])\s*[^\d\s}-]"
)
# `[[` operators that evaluate their operands as arithmetic (`[[ i -eq 1 ]]`), and test
# operators whose operand is a variable's name, with a subscript evaluated so (`-v 'a[i]'`).
ARITHMETIC_TESTS = ("-eq", "-ne", "-lt", "-le", "-gt", "-ge")
NAME_TESTS = ("-v", "-R")


def _runs_code_later(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` runs code bash keeps in a string or a value
    until later (RUNS_LATER, RUNS_LATER_WORD), which no word of the line shows as run, or
    None."""
    # (`trap - EXIT`, `trap -p`, `trap '' INT`: a trap reset, shown or ignored runs nothing)
    inert_trap = command == "trap" and (args[:1] in (["-"], [""], ["-p"], ["-l"]) or len(args) < 2)
    if (command in RUNS_LATER or command.startswith("((")) and not inert_trap:
        return f"runs code `{command}` keeps for later, which only its shell can tell"
    if found := next(filter(None, map(RUNS_LATER_WORD.search, [command, *args])), None):
        return f"evaluates `{found.string[:60]}`, which may run code only its shell can tell"
    tests = command in ("[[", "[", "test")
    for before, word in zip(args, args[1:], strict=False) if tests else ():
        operand = before if word in ARITHMETIC_TESTS else word
        arithmetic = command == "[[" and (before in ARITHMETIC_TESTS or word in ARITHMETIC_TESTS)
        if arithmetic and not re.fullmatch(r"-?\d+", operand):
            return f"evaluates `{operand}` as arithmetic, which only its shell can tell"
        if before in NAME_TESTS and not word.isidentifier():
            return f"evaluates `{word}` as a variable's name, which only its shell can tell"
    if command in SETTING_WORDS and any(re.fullmatch(r"-\w*i\w*", arg) for arg in args):
        return "makes an integer variable, whose values its shell evaluates as arithmetic"
    return None


# Variables whose value is code a program of yours runs, or a setting that changes what every
# later command runs, rather than a path planloop could hold: an `.envrc` line that names one
# (to set it, export it, or read a value into it), or a `.env` its `dotenv` loads that sets
# one, makes commands ask. direnv exports each into your shell (all but PS1), where it stays
# while you are in the folder. (What names code by a path is read as a path: PATH,
# ENVRC_RELATIVE_VARIABLES, CODE_VARIABLES.) Each name is a pattern, with what it does.
ENVRC_CODE_VALUES = {
    # bash sources this file before every script it runs, direnv's own `bash -c` included.
    "BASH_ENV": "a file bash runs before every script, whose lines planloop does not read",
    # Your interactive bash runs it before each prompt.
    "PROMPT_COMMAND": "a command your bash runs before each prompt",
    # bash's prompt expansion runs the `$(...)` in these: PS0 after each line you type, PS1
    # and PS2 at each prompt (direnv drops PS1, a shell that sources the file does not), PS4
    # before each command traced with `set -x`, in direnv's own shell too.
    "PS[0124]": "a prompt whose `$(...)` your bash runs",
    # vim (and ex, neovim) runs it as Ex commands at start, in place of your vimrc: `source
    # tools/vimrc.vim`; gvim GVIMINIT.
    "G?VIMINIT|EXINIT": "Ex commands your vim runs at start",
    # Where each later `cd` of your shell, your git hooks and your tools looks first: with
    # CDPATH=tools, a hook's `cd web && make lint` runs tools/web/Makefile, not web's.
    "CDPATH": "where every later `cd` of your shell and your tools looks first",
    # git's settings for every git in the folder (core.fsmonitor runs at each `git status`).
    r"GIT_CONFIG_(?:COUNT|PARAMETERS|KEY_\d+|VALUE_\d+)": "settings every git here obeys",
    # lua runs the value itself as code, unless it names a file after `@` (LUA_INIT_5_4 too).
    r"LUA_INIT(?:_5_\d)?": "code every lua runs at start",
    # fzf runs this command line for its list, and the `--preview`, `--bind execute(...)`
    # commands its options give.
    "FZF_DEFAULT_(?:COMMAND|OPTS)": "commands fzf runs",
    # `perl -d` runs this as perl code in place of its debugger.
    "PERL5DB": "code `perl -d` runs",
    # Every make reads these first, whose recipes, includes and SHELL planloop does not read.
    "MAKEFILES": "makefiles every make reads first",
}
# The variables that name where git takes a whole config from, which may name programs it runs
# (core.fsmonitor, core.pager) by any path: one in the `.envrc`'s folder is the project's, and
# what it runs is not read.
GIT_CONFIG_FILES = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "XDG_CONFIG_HOME")
# The variables whose value is a command line a program runs by its first word: one with a
# pattern or an expansion left in (`export EDITOR='sh tools/ed?.sh'`) only the shell can tell.
PROGRAM_VARIABLES = [name for name, kind, _ in CODE_VARIABLES if kind == PROGRAM]
PROGRAM_VARIABLES += [name for name, kind in ENVRC_RELATIVE_VARIABLES.items() if kind == PROGRAM]


def _sets_code(command: str, args: list[str], base: Path, folder: Path) -> str | None:
    """Why the `.envrc` command `command args`, run in `base`, gives your shell code planloop
    does not read, or None: it names one of ENVRC_CODE_VALUES (or its `dotenv` file sets one),
    gives git a config in the `.envrc`'s `folder` (GIT_CONFIG_FILES), or gives a program's
    variable a command line only its shell can tell (PROGRAM_VARIABLES)."""
    words = [command, *args]
    if command in DOTENV_LOADERS:
        settings = dotenv_settings(dotenv_path(args, base))
        words += list(settings)
        if why := _dotenv_paths(settings):
            return f"loads a dotenv file that {why}"
    if why := _names_code_value(words):
        return why
    for word in words:
        name, equals, value = word.partition("=")
        if equals and name in GIT_CONFIG_FILES:
            config = literal_path(value, base)
            if config is None or config.is_relative_to(folder):
                return f"gives git the config `{value[:60]}`, whose programs planloop does not read"
        if equals and name in PROGRAM_VARIABLES and SHELL_ONLY.search(value):
            return f"gives {name} `{value[:60]}`, which only its shell can tell"
    return None


def _dotenv_paths(settings: dict[str, str | None]) -> str | None:
    """Why the variables a dotenv file sets (`settings`, `dotenv_settings`) give your shell a
    path planloop cannot hold, or None: PATH, one of CODE_VARIABLES or one git runs or reads
    its config from set to a value only direnv's parser can tell (`PATH=${T}:${PATH}`, where
    `T=tools`), or one the `.envrc`'s own `export` of it would ask for (`_relative_export`: a
    relative entry of PATH)."""
    for name, value in settings.items():
        if value is None and (name in ENVRC_RELATIVE_VARIABLES or name in CODE_VARIABLE_NAMES):
            return f"gives {name} a value only direnv's parser can tell"
    # (direnv's parser puts no home in for a `~`: `PATH=~/bin:...` names a folder `~` here)
    kept = {n: re.sub(r"(?:^|(?<=:))~", "./~", v) for n, v in settings.items() if v is not None}
    return _relative_export("export", [f"{n}={v}" for n, v in kept.items()])


# bash's expansions that set the variable they name where it is unset or empty, in any word:
# `: "${NAME:=value}"`, `${NAME=value}`, an element's (`${A[1]:=x}`), or that of the variable
# whose name another holds (`${!REF:=x}`).
ASSIGNING_EXPANSION = re.compile(r"\$\{(!?)([A-Za-z_]\w*)(?:\[[^]]*\])?:?=")


def _sets_where_unset(words: list[str]) -> str | None:
    """Why a command of these words sets a variable that matters (`_matters_set_by_words`:
    `: "${GIT_CONFIG_GLOBAL:=$PWD/gc}"`), or one whose name only its shell can tell, by an
    expansion (ASSIGNING_EXPANSION), or None: planloop reads plain assignments' values only."""
    for found in (found for word in words for found in ASSIGNING_EXPANSION.finditer(word)):
        if found[1]:
            return f"sets the variable `${found[2]}` names by `{found[0]}`, which only bash tells"
        if _matters_set_by_words(found[2]):
            return f"sets {found[2]} by `{found[0]}`, which planloop does not read as assigning it"
    return None


def _set_by_a_builtin(words: list[str]) -> str | None:
    """Why a builtin of these words sets a variable that matters (`_matters_set_by_words`) to
    what only its shell can tell, or None: `read PATH < paths`, `printf -v PYTHONPATH`, `exec
    {BASH_ENV}>x` (NAMING_BUILTINS, NAMED_DESCRIPTOR; `unset` only takes a value away)."""
    from tools.hook_lines import program_index  # (here: tools.hook_lines imports this module)

    run = words[program_index(words) :] or [""]
    named = names_a_builtin_sets(run)
    if run[0] in ("for", "select"):
        named = [word for word in run[1:2] if word.isidentifier()]
    elif run[0] not in NAMING_BUILTINS or run[0] == "unset":
        named = []
    named += [match[1] for word in words if (match := NAMED_DESCRIPTOR.match(word))]
    for name in filter(_matters_set_by_words, named):
        return f"gives {name} a value only its shell can tell (`{run[0] or 'exec'}`)"
    return None


def _set_for_one_command(words: list[str], base: Path, folder: Path) -> str | None:
    """Why the variables these words, run in `base`, set for the one command they run matter,
    or None: that command runs with them at each load, and planloop reads the values set for
    the file's shell only. One that matters (`_matters_set_by_words`: `PYTHONPATH=$PWD python3
    x.py`, `PATH=$PWD/bin:$PATH setup`) asks; a program variable that runs a file of the
    `.envrc`'s `folder` too (`GIT_SSH_COMMAND="sh x" git fetch`, not `EDITOR=vim`)."""
    from tools.hook_lines import program_index  # (here: tools.hook_lines imports this module)

    at = program_index(words)
    if at == 0 or at >= len(words) or words[at] in SETTING_WORDS:
        return None  # (`BIN=bin export X` is a special builtin's: _changes_values_assigned)
    assignments = [word for word in words[:at] if ASSIGNED.match(word)]
    for name in (ASSIGNED.match(word)[1] for word in assignments):
        if _matters_set_by_words(name) and name not in PROGRAM_VARIABLES:
            return f"sets {name} for `{words[at][:40]}`, which runs with it at each load"
    return _runs_workspace_code_by_variable("export", assignments, base, folder)


def _names_code_value(words: list[str]) -> str | None:
    """Why a command of these words sets one of ENVRC_CODE_VALUES, or None."""
    for word in words:
        for pattern, what in ENVRC_CODE_VALUES.items():
            if named := re.search(rf"(?<![\w$])(?:{pattern})(?!\w)", word):
                return f"sets {named[0]} ({what}), which planloop does not read"
    return None


# A piece of a value only the shell makes: a command's output, or a parameter expansion with an
# operator (`${PWD:-.}`, `${X#./}`), up to the entry's end.
SHELL_MADE_VALUE = re.compile(r"(?:\$\(|`|\$\{\w+[^}\w])[^:]*")


# A variable's value set by a word, whole, added to (`+=`) or one element of it (`PATH[0]=`).
ASSIGNED = re.compile(r"([A-Za-z_]\w*)(\[[^\]]*\])?(\+?)=")


def _relative_export(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` gives your shell a path only the folder you
    stand in can tell, or None: a relative or empty entry of PATH, or a relative path in one
    of git's variables or XDG_CONFIG_HOME (ENVRC_RELATIVE_VARIABLES: `export
    GIT_CONFIG_GLOBAL=.gitconfig.local`). direnv stays loaded in every folder below the
    `.envrc`'s, and git and your shell take such a path from the one you are in
    (`src/.gitconfig.local`): a command could plant it in any of them. The one beside the
    `.envrc` is held as well (tools/your_configs.py `relative_code_paths`). And a value of
    these, or of CODE_VARIABLES, that only the shell can tell: one a command's output makes
    (`export PATH="$(npm root)/.bin:$PATH"`), one with a variable left in that the file and
    your environment give no plain value (a function's `$1`, a loop's `$t`, one set nowhere),
    or an array's (`PATH[0]=bin`, `PATH=(bin)`). Added to (`PATH+=:bin`), its first entry
    goes on the end of the last one it had."""
    words = args if command in SETTING_WORDS else [command, *args]
    for assigned in filter(None, map(ASSIGNED.match, words)):
        name, element, added = assigned.groups()
        kind = ENVRC_RELATIVE_VARIABLES.get(name)
        if not (kind or name in CODE_VARIABLE_NAMES):
            continue
        value = assigned.string[assigned.end() :]
        # (a command's output, `$(npm root)`, or an expansion with an operator, `${PWD:-.}`)
        made = SHELL_MADE_VALUE.search(value)
        if made:
            return f"gives {name} `{made[0][:60]}`, which only its shell can tell"
        untold = _untold_entry(name, value)
        if untold is None and (element or value.startswith("(")):
            untold = assigned.string  # (an array's element, or an array: the shell's to tell)
        if untold is not None:
            return f"gives {name} `{untold[:60]}`, which only its shell can tell"
        if kind is None:  # (a relative entry is held beside the `.envrc`; no process's is)
            for entry in filter(names_a_process_folder, value.split(":")):
                return (
                    f"gives {name} `{entry[:60]}`, which is taken from whichever folder you are in"
                )
            continue
        entries = value.split(":") if kind == FOLDERS else variable_paths(name, kind, value)
        for entry in entries[1:] if added and kind == FOLDERS else entries:
            if DIRECTORY_STACK.match(entry):  # (`~-/bin`: not your home's)
                return f"gives {name} `{entry[:60]}`, which only its shell can tell"
            if taken_from_where_you_stand(entry):
                where = f"a relative path (`{entry}`)" if entry else "an empty entry (`.`)"
                where = f"`{entry[:60]}`" if entry.startswith("/") else where
                return f"gives {name} {where}, which is taken from whichever folder you are in"
    return None


def _untold_entry(name: str, value: str) -> str | None:
    """The first entry of the value `value` of the variable `name` (its plain ones put in)
    with an expansion only the shell can tell, or None: any `$` left but the variable's own
    value before (`$PATH` in PATH's, which is yours, or one the file set and was read so)."""
    own = re.compile(rf"\${name}(?!\w)|\$\{{{name}\}}")
    return next((entry for entry in value.split(":") if "$" in own.sub("", entry)), None)


# Variables whose value is a command line that a program runs through a shell when it starts
# another for you: git's `sh -c "$GIT_SSH_COMMAND ..."` at each fetch, `$EDITOR` at each
# commit, less's `LESSOPEN="|sh tools/lessopen %s"`, fzf's FZF_CTRL_T_COMMAND. Besides
# PROGRAM_VARIABLES, the names such variables go by (SYSTEMD_EDITOR, GH_PAGER, DIFFPROG).
COMMAND_LINE_VARIABLE = re.compile(
    r"\w*(?:EDITOR|VISUAL|PAGER|ASKPASS|BROWSER|DIFFPROG|TERMINAL)|LESS(?:OPEN|CLOSE)"
    r"|\w+_(?:COMMAND|CMD|PROG)|GIT_SSH|GIT_EXTERNAL_DIFF"
)


def _runs_workspace_code_by_variable(
    command: str, args: list[str], base: Path, folder: Path
) -> str | None:
    """Why the `.envrc` command `command args`, run in `base`, gives a program variable
    (PROGRAM_VARIABLES, COMMAND_LINE_VARIABLE) a command line that runs a file of the
    `.envrc`'s `folder`, or None. planloop holds a file such a value names, but does not read
    it as a script the `.envrc` runs: what `sh tools/ssh` or `$PWD/tools/edit` sources would
    go unheld, and a file named after the first word (`sh tools/ssh`) not even be held."""
    words = args if command in SETTING_WORDS else [command, *args]
    for assigned in filter(None, map(ASSIGNED.match, words)):
        name = assigned[1]
        if not (name in PROGRAM_VARIABLES or COMMAND_LINE_VARIABLE.fullmatch(name)):
            continue
        value = assigned.string[assigned.end() :]
        runs = list(shell_commands(value.lstrip("|")))  # (LESSOPEN's `|` pipes its output)
        for run in runs:  # grows while it is walked: a shell's `-c` code is a command line too
            kind, code = shell_operand(run[1:])
            if os.path.basename(run[0]) in SCRIPT_SHELLS and kind == "code" and code:
                runs += shell_commands(code)
            for word in run:
                if not _workspace_word(word, base, folder):
                    continue
                why = "whose code planloop does not read"
                return f"gives {name} `{value[:60]}`, which runs `{word[:60]}`, {why}"
    return None


def _workspace_word(word: str, base: Path, folder: Path) -> bool:
    """Whether `word`, a word of a command line run from `base`, may name a file of the
    `.envrc`'s `folder`: a path in it, one written relatively with a `/` (taken from whichever
    folder you are in), or an entry of `base`; or it has a `/` and only the shell can tell it.
    Not `less -R`, `code --wait`, a bare name found on PATH, a path outside or a folder
    (`fd . ~`)."""
    path = literal_path(word, base)
    if path is not None and os.path.isdir(path):
        return False
    if path is None:
        return "/" in word and bool(SHELL_ONLY.search(word))
    if "/" in word and not os.path.isabs(os.path.expanduser(word)):
        return True
    return path.is_relative_to(folder) and ("/" in word or os.path.lexists(path))


# Task runners whose task files (a Rakefile, tasks.py, mise's [tasks], SConstruct, build.ninja)
# planloop does not read for the scripts their tasks run, and makes other than `make`, whose
# makefiles ENVRC_TOOLS does not read: an `.envrc` that runs one asks.
UNREAD_TASK_RUNNERS = ("rake", "invoke", "inv", "scons", "ninja", "doit", "nox", "tox", "poe")
UNREAD_TASK_RUNNERS += ("gulp", "grunt", "jake", "cake", "fab", "ant", "mage", "makers", "redo")
UNREAD_TASK_RUNNERS += ("gmake", "bmake", "pmake", "remake", "nmake", "earthly")
# mise's (and rtx's, its former name) subcommands that run the tasks of its config.
MISE_TASK_COMMANDS = ("run", "r", "tasks", "watch", "w")
# The options by which make, just and task take their recipes from elsewhere than the files
# ENVRC_TOOLS reads (`make -f tools/env.mk`, make's `--eval` code, `just --justfile x`): their
# short letters, the short letters that take a value (the rest of a bundle is that value:
# `make -Cf` is a folder `f`), and their long names, of which GNU make takes any prefix.
TASK_FILE_OPTIONS = {
    "make": ("fE", "CIjlOoW", ("file", "makefile", "eval")),
    "just": ("f", "d", ("justfile",)),
    "task": ("t", "dCIo", ("taskfile",)),
}


def _runs_unread_tasks(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` runs tasks from a file planloop does not read
    for the scripts they run, or None: one of UNREAD_TASK_RUNNERS (`rake env`), mise's tasks
    (`mise run env`), or make, just or task given a file of recipes (TASK_FILE_OPTIONS): the
    file is held, but what its recipes run (`@sh tools/gen.sh`) and what that sources not."""
    program = os.path.basename(command)
    if all(arg in INFORMATION_FLAGS for arg in args):
        return None
    mise_tasks = program in ("mise", "rtx") and any(arg in MISE_TASK_COMMANDS for arg in args)
    if program in UNREAD_TASK_RUNNERS or mise_tasks:
        return f"runs {program}'s tasks, whose scripts planloop does not read"
    letters, value_letters, long_names = TASK_FILE_OPTIONS.get(program, ("", "", ()))
    for arg in args if letters else ():
        if arg == "--":
            break
        name, short = arg[2:].partition("=")[0], arg[1:] if arg[:2] != "--" else ""
        by_name = arg[:2] == "--" and name and any(full.startswith(name) for full in long_names)
        if by_name or (arg[:1] == "-" and _bundle_gives(short, letters, value_letters)):
            return f"runs {program} with `{arg[:60]}`, whose recipes planloop does not read"
    return None


# A makefile's lines that read other makefiles: `include`, and `-include` and `sinclude`,
# which skip one that is not there.
MAKEFILE_INCLUDE = re.compile(r"^[ \t]*(?:-include|sinclude|include)[ \t]+(.*)$", re.MULTILINE)


def _includes_unread_makefiles(command: str, args: list[str], base: Path) -> str | None:
    """Why the `.envrc` command `command args`, run in `base`, runs `make` on a makefile that
    includes one planloop does not read (ENVRC_TOOLS reads the makefiles of its folder, and of
    the folder its `-C` names, alone), or None: `include tools/env.mk`, or one only make can
    tell (`include $(wildcard tools/*.mk)`), whose recipes would run unread."""
    if os.path.basename(command) != "make":
        return None
    pieces = [piece for word in args for piece in WORD_PIECES.split(word) if piece]
    read = [p for f in [base, *_folders_named(pieces, base)] for p in envrc_tool_files("make", f)]
    for makefile in (path for path in read if os.path.isfile(path)):
        for line in MAKEFILE_INCLUDE.findall(_read(makefile)):
            for word in line.partition("#")[0].split():
                if literal_path(word, makefile.parent) not in read:
                    why = "whose recipes planloop does not read"
                    return f"runs make on {makefile.name}, which includes `{word[:60]}`, {why}"
    return None


def _bundle_gives(short: str, letters: str, value_letters: str) -> bool:
    """Whether the bundle of short options `short` (`sf` of `-sf`) holds one of `letters`
    before any letter that takes the rest as its value (`value_letters`, `C` of `-Cf`)."""
    for letter in short:
        if letter in letters:
            return True
        if letter in value_letters:
            return False
    return False


# Variables of CODE_VARIABLES that name a config, or a folder of them, whose settings name the
# programs a tool runs for you: starship's `[custom]` commands at each prompt, kubectl's exec
# credential plugins, AWS's `credential_process`, the start-up files of zsh (ZDOTDIR) and sh
# (ENV). planloop holds the config, but not what the programs it names run and source: one an
# `.envrc` points into its own folder makes commands ask, as GIT_CONFIG_FILES do.
PROGRAM_CONFIG_VARIABLES = ("ZDOTDIR", "ENV", "STARSHIP_CONFIG", "KUBECONFIG", "HGRCPATH")
PROGRAM_CONFIG_VARIABLES += ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "DOCKER_CONFIG")
PROGRAM_CONFIG_VARIABLES += ("TF_CLI_CONFIG_FILE", "TERRAFORM_CONFIG", "CARGO_HOME", "GOENV")
PROGRAM_CONFIG_VARIABLES += ("GNUPGHOME", "NPM_CONFIG_USERCONFIG", "CCACHE_CONFIGPATH")
PROGRAM_CONFIG_VARIABLES += ("OPENSSL_CONF", "R_PROFILE_USER")


def _gives_a_program_config(command: str, args: list[str], base: Path, folder: Path) -> str | None:
    """Why the `.envrc` command `command args`, run in `base`, points one of
    PROGRAM_CONFIG_VARIABLES at a config in the `.envrc`'s `folder`, or at one only its shell
    can tell (also in a `.env` its `dotenv` loads), or None."""
    words = args if command in SETTING_WORDS else [command, *args]
    if command in DOTENV_LOADERS:
        settings = dotenv_settings(dotenv_path(args, base))
        words += [
            f"{name}={value if value is not None else '$'}" for name, value in settings.items()
        ]
    for assigned in filter(None, map(ASSIGNED.match, words)):
        name, value = assigned[1], assigned.string[assigned.end() :]
        if name not in PROGRAM_CONFIG_VARIABLES:
            continue
        for entry in (entry for entry in value.split(":") if entry):
            config = literal_path(entry, base)
            if config is None or config.is_relative_to(folder):
                why = "whose programs planloop does not read"
                return f"gives {name} the config `{entry[:60]}`, {why}"
    return None


# git's options before its command that take the next word as their value (`git -C web config`).
GIT_VALUE_OPTIONS = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env")
# `git config`'s ways of only reading (its older options, and its newer commands).
GIT_CONFIG_READING = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l")
GIT_CONFIG_READING += ("get", "list", "--unset", "--unset-all", "unset", "--remove-section")
GIT_CONFIG_VALUE_OPTIONS = ("-f", "--file", "--blob", "--type", "--default", "--comment", "--value")
# The settings, less a subsection (`includeIf.<cond>.path` is `includeif.path`), that name a
# folder or a config git takes more from: hooks it runs, configs it includes, templates of
# hooks for a new repository; besides those whose value git runs (`is_program_key`).
GIT_PLACE_KEYS = ("core.hookspath", "include.path", "includeif.path", "init.templatedir")


def _sets_git_config(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` has git set a setting that names what git runs
    (`git config core.hooksPath .githooks`, `git config include.path ../project.gitconfig`,
    `git config core.fsmonitor ...`), or None: direnv runs it at each load, and planloop reads
    your repository's config as it stands, so what the setting will name is not held."""
    from tools.git_programs import is_program_key  # (here: tools.git_programs imports it)

    if os.path.basename(command) != "git":
        return None
    at = 0
    while at < len(args) and args[at].startswith("-"):
        at += 2 if args[at] in GIT_VALUE_OPTIONS else 1
    if args[at : at + 1] != ["config"]:
        return None
    words = args[at + 1 :]
    if any(word in GIT_CONFIG_READING for word in words):
        return None
    operands, taking = [], False
    for word in words:
        if not taking and not word.startswith("-") and word != "set":
            operands.append(word)
        taking = word in GIT_CONFIG_VALUE_OPTIONS
    if len(operands) < 2:
        return None
    parts = operands[0].lower().split(".")
    key = f"{parts[0]}.{parts[-1]}"
    if key in GIT_PLACE_KEYS or is_program_key(key):
        return f"has git set {operands[0]} at each load, which names what git runs or reads"
    return None


def layout_dirs(envrc: Path) -> list[tuple[str, Path | None, str]]:
    """(layout, the folder `direnv_layout_dir` names for it, its line) for each `layout X` of
    an `.envrc` (and of the files it sources) that keeps its files there (LAYOUT_DIR_PATHS),
    where the `.envrc` sets that variable before, read from the folder the layout runs in
    (the layout puts in `$(direnv_layout_dir)` then); the folder is None where only the shell
    can tell it (a value of `$(...)`, the `.envrc`'s own `direnv_layout_dir()` function)."""
    texts = [_read(path) for path, _ in envrc_files(envrc)]
    value: str | None = "$" if any(OWN_LAYOUT_DIR.search(text) for text in texts) else None
    found: list[tuple[str, Path | None, str]] = []
    for command, args, base in direnv_calls(envrc):
        for word in [command, *args] if command in SETTING_WORDS or "=" in command else []:
            name, equals, assigned = word.partition("=")
            if name.rstrip("+") == LAYOUT_DIR and equals:
                value = "$" if name.endswith("+") else assigned
        if command == "layout" and args and args[0] in LAYOUT_DIR_PATHS and value is not None:
            folder = None if SHELL_ONLY.search(value) else literal_path(value, base)
            found.append((args[0], folder, _short_line(command, args)))
    return found


# direnv's layouts that run `layout_python` (its stdlib's): it puts `$VIRTUAL_ENV/bin` first on
# PATH, the VIRTUAL_ENV set before (by the `.envrc` or your environment) taken as it is, and
# makes a virtualenv there with the interpreter `layout python X` names (`$python`, split at
# blanks: run at each load), or one a name finds on PATH.
PYTHON_LAYOUTS = ("python", "python2", "python3", "pyenv")
VIRTUAL_ENV = "VIRTUAL_ENV"


def layout_arguments(
    envrc: Path, environ: Mapping[str, str] = os.environ
) -> tuple[list[Path], list[tuple[Path | None, str]]]:
    """(the programs, (the PATH folders, their lines)) that direnv's layouts take from what the
    `.envrc` (and the files it sources) gives them: `layout python tools/py` runs tools/py;
    `layout anaconda NAME tools/conda` runs tools/conda and puts tools/ first on PATH (a bare
    `conda` is run from the folder it puts there then, the `.envrc`'s own); and a python layout
    puts `$VIRTUAL_ENV/bin` there, where VIRTUAL_ENV is set (`export VIRTUAL_ENV=$PWD/envs/dev`).
    A folder is None where only the shell can tell it (VIRTUAL_ENV from a command's output)."""
    programs: list[Path | None] = []
    folders: list[tuple[Path | None, str]] = []
    values: dict[str, str | None] = {}
    for base, words in envrc_steps(envrc, environ):
        command, args = _as_call(words)
        line = _short_line(command, args)
        kind = args[0] if command == "layout" and args else None
        interpreter = (args[1].split() or [""])[0] if kind == "python" and args[1:] else ""
        if "/" in interpreter:
            programs.append(literal_path(interpreter, base))
        if kind in PYTHON_LAYOUTS:
            venv = values[VIRTUAL_ENV] if VIRTUAL_ENV in values else environ.get(VIRTUAL_ENV, "")
            if venv != "":  # (empty: a folder in `$(direnv_layout_dir)`)
                where = None if venv is None else literal_path(venv, base)
                folders.append((where and where / "bin", line))
        if kind == "anaconda" and len(args) > 2:
            where = literal_path(os.path.dirname(args[2]) or ".", base)
            folders.append((where, line))
            programs.append(where and where / os.path.basename(args[2]))
        _remember(words, values, base)
    return [path for path in programs if path is not None], folders


def layout_dir_folders(envrc: Path) -> list[Path]:
    """The folders `layout_dirs` names, whole (as .direnv/ is), and the folders in each that
    the layout puts first on your PATH (what counts where it names the workspace itself)."""
    found: list[Path] = []
    for layout, folder, _ in layout_dirs(envrc):
        if folder is not None:
            found += [folder, *(folder / bin for bin in LAYOUT_DIR_PATHS[layout])]
    return list(dict.fromkeys(found))


# direnv's functions that join each version word they are given to a folder of versions, and
# run or put first on PATH what they find there: `layout pyenv 3.12` runs `$(pyenv
# root)/versions/3.12/bin/python`, `use julia 1.10` adds `$JULIA_VERSIONS/julia-1.10/bin` and
# runs its julia, `use node` and `use nodenv` the same from NODE_VERSIONS and `$(nodenv
# root)/versions`. None checks the word: a `/` or `..` in it (`"../..$PWD/x"`) climbs out of
# that folder to any, the workspace's too, and so does one in the prefix direnv puts before it.
VERSIONED_FUNCTIONS = (("layout", "pyenv"), ("use", "node"), ("use", "nodenv"), ("use", "julia"))
VERSION_PREFIXES = ("JULIA_VERSION_PREFIX", "NODE_VERSION_PREFIX")


def _climbs_out_of_versions(command: str, args: list[str]) -> str | None:
    """Why the `.envrc` command `command args` has direnv run a program outside the folder of
    versions it names (VERSIONED_FUNCTIONS), or None: a version word, or a prefix of
    VERSION_PREFIXES it sets, with a `/` or `..` in it."""
    if args and (command, args[0]) in VERSIONED_FUNCTIONS:
        for version in args[1:]:
            if "/" in version or ".." in version:
                return f"gives the version `{version[:60]}`, which climbs out of its folder"
    for assigned in filter(None, map(ASSIGNED.match, [command, *args])):
        value = assigned.string[assigned.end() :]
        if assigned[1] in VERSION_PREFIXES and ("/" in value or ".." in value):
            return f"gives {assigned[1]} `{value[:60]}`, which climbs out of its folder"
    return None


def _read_function(kind: str, name: str, defined: set[str]) -> bool:
    """Whether planloop reads what `use NAME` or `layout NAME` (`kind`) does: it knows the
    function, or the `.envrc` defines it (and its lines are read as the file's)."""
    known = KNOWN_USES if kind == "use" else KNOWN_LAYOUTS
    return name in known or f"{kind}_{name}" in defined


def _short_line(command: str, args: list[str]) -> str:
    line = " ".join([command, *args]).replace("\n", " ")
    return line if len(line) <= 80 else line[:77] + "..."


def untold_by_envrcs(root: Path, envrcs: Iterable[Path] = ()) -> str | None:
    """`envrc_untold` of the first `.envrc` in or above the workspace that has one, after its
    path: what direnv loads is then any file, which no read-only bind can hold."""
    root = Path(os.path.realpath(root))
    for envrc in envrcs_around(root, envrcs):
        why = envrc_untold(envrc) or _puts_on_path(envrc, root)
        why = why or _loads_unread_dotenv(envrc, root)
        if why := why or _gives_the_workspace(envrc, root):
            shown = envrc.relative_to(root) if envrc.is_relative_to(root) else envrc
            if envrc.name == ".env" and direnv_loads_dotenvs():
                shown = f"{shown} (direnv loads it: `load_dotenv` in your direnv settings)"
            return f"{shown}: {why}"
    return None


def _puts_on_path(envrc: Path, root: Path) -> str | None:
    """Why an `.envrc` that puts the workspace `root` itself on your PATH loads what planloop
    cannot hold, or None: a program a command makes there (`git`) runs in your shell, and no
    read-only bind can hold the folder commands write in (`PATH_add .`, or `layout anaconda
    dev conda`, whose bare conda's folder is the `.envrc`'s own)."""
    for folder in path_added_by_envrc(envrc):
        if Path(os.path.realpath(folder)) == root:
            return WORKSPACE_ON_PATH
    return None


def _loads_unread_dotenv(envrc: Path, root: Path) -> str | None:
    """Why an `.envrc` loads a dotenv file of the workspace `root` that planloop cannot read
    (`unread_reason`: larger than it reads), or None: direnv reads it whole, and what lies
    past the limit may give PATH any folder (`dotenv_settings` takes it for empty). One
    outside the workspace is yours to trust, as your own start-up files are."""
    from tools.paths import unread_reason  # (here: tools.paths imports this module)

    for base, words in _EnvrcReader(envrc).steps:
        path = dotenv_path(words[1:], base) if words[0] in DOTENV_LOADERS else None
        real = Path(os.path.realpath(path)) if path is not None else None
        if real is not None and real.is_relative_to(root) and (why := unread_reason(real)):
            return f"it loads the dotenv file {real.relative_to(root)}, which {why}"
    return None


WORKSPACE_ON_PATH = "it puts the workspace itself on PATH, where a command may make any program"
# How each variable whose value names what your shell, git or a program runs is read, by name.
PATH_KINDS = {name: kind for name, kind, _ in CODE_VARIABLES} | ENVRC_RELATIVE_VARIABLES


def _gives_the_workspace(envrc: Path, root: Path) -> str | None:
    """Why an `.envrc` gives PATH, a variable of CODE_VARIABLES or one git runs or reads its
    config from (ENVRC_RELATIVE_VARIABLES) the workspace `root` itself, or None: by assigning
    it (`export PATH="$PWD:$PATH"`, `export PYTHONPATH="$PWD"`, with the values the file
    knows put in, a relative entry from where its line runs), or in a dotenv file it loads.
    What a command makes there runs in your shell (`git`, `json.py`), and no read-only bind
    can hold the folder commands write in, as where your own environment names it
    (tools/environment.py `variable_paths_in`)."""
    for base, words in _EnvrcReader(envrc).steps:
        if why := _gives_nix_the_workspace(words, base, root):
            return why
        if words[0] in DOTENV_LOADERS:
            settings = dotenv_settings(dotenv_path(words[1:], base))
            words = [f"{name}={value}" for name, value in settings.items() if value is not None]
        for assigned in filter(None, map(ASSIGNED.match, words)):
            name, value = assigned[1], assigned.string[assigned.end() :]
            if name not in PATH_KINDS:
                continue
            kind = PATH_KINDS[name]
            # (an empty entry of PATH, or of PYTHONPATH's kin, is the folder you stand in)
            entries = value.split(":") if name == "PATH" else variable_paths(name, kind, value)
            named = [literal_path(entry or ".", base) for entry in entries]
            if any(path and root in (path, Path(os.path.realpath(path))) for path in named):
                if name == "PATH":
                    return WORKSPACE_ON_PATH
                return f"it gives {name} the workspace itself, where a command may make any file"
    return None


def _gives_nix_the_workspace(words: list[str], base: Path, root: Path) -> str | None:
    """Why the `.envrc` command `words`, run in `base`, gives nix's search path the workspace
    `root` itself or a folder above it (`use nix -I nixpkgs=.`), or None: nix imports any file
    there a command makes (`<nixpkgs/x.nix>`), which no read-only bind can hold."""
    command, args = _as_call(words)
    if command != "use" or args[:1] not in (["nix"], ["flake"]):
        return None
    for how, value in nix_option_values(args[1:]):
        for word in value.split() if how in ("search", "searches") else ():
            for entry in nix_search_path_entries(word):
                path = literal_path(entry, base)
                if path is not None and root.is_relative_to(os.path.realpath(path)):
                    where = "the workspace itself or a folder above it"
                    why = "where a command may make any file"
                    return f"it gives nix's search path `{entry[:60]}`, {where}, {why}"
    return None


# direnv's functions that export a dotenv file's variables into your shell.
DOTENV_LOADERS = ("dotenv", "dotenv_if_exists")


def dotenvs_loaded_by(envrc: Path) -> list[Path]:
    """The dotenv files an `.envrc` loads with `dotenv` or `dotenv_if_exists`: the one named,
    a named folder's `.env`, or the `.env` beside the `.envrc` when none is named."""
    found = [
        dotenv_path(args, base)
        for command, args, base in direnv_calls(envrc)
        if command in DOTENV_LOADERS
    ]
    return [path for path in dict.fromkeys(found) if path is not None]


def dotenv_path(args: list[str], base: Path) -> Path | None:
    """The file `dotenv ARGS` run in `base` loads (`.env` there, or in the folder named), or
    None where only the shell can tell it."""
    named = literal_path(args[0], base) if args else base
    if named is None:
        return None
    return named / ".env" if os.path.isdir(named) else named


# A line of a dotenv file whose value direnv's parser gives as written: unquoted, or quoted with
# no escape or variable in it (direnv puts in `$NAME`, from the file or your environment). Its
# blanks are Go's `\s`, which a form feed is too (`BASH_ENV\f=h.sh` sets BASH_ENV; its lines
# are split at returns and line feeds already), and its letters Go's `\w`, ASCII's (a line
# with another refuses the whole file). A quoted value runs to the line's last quote of its
# kind (`P="/usr/bin" #":tools/bin"` sets P to all of it), so a comment after one may hold no
# other. Possessive, so that a line of a million blanks is read in linear time.
DOTENV_BLANKS = " \t\f"
PLAIN_DOTENV_LINE = re.compile(
    r"""[ \t\f]*+(?:export[ \t\f]++)?([\w.]++)(?:[ \t\f]*+=[ \t\f]*+|:[ \t\f]++)"""
    r"""(?:'([^'\\]*+)'[ \t\f]*+(?:#[^']*+)?|"([^"\\$`]*+)"[ \t\f]*+(?:#[^"]*+)?"""
    r"""|([^\s#'"\\$`]*+)[ \t\f]*+(?:#.*)?)""",
    re.ASCII,
)
# A name any other line may set (direnv also reads `NAME: value`, and values over several lines).
DOTENV_NAME = re.compile(
    r"^[ \t\f]*+(?:export[ \t\f]++)?([\w.]++)[ \t\f]*+[=:]", re.MULTILINE | re.ASCII
)


def _hidden_from_commands(path: Path) -> bool:
    """`hidden_from_commands` of tools/sandbox.py (which imports this module): whether the
    sandbox hides `path` from commands as a secret."""
    from tools.sandbox import hidden_from_commands

    return hidden_from_commands(path)


def dotenv_settings(path: Path | None) -> dict[str, str | None]:
    """The variables the dotenv file `path` has direnv export, with their values where every
    line is a plain one (PLAIN_DOTENV_LINE, a blank or a comment); else each name it may set,
    with None: only direnv's parser can tell those values (an escape, `$NAME`, a value over
    several lines, a line it refuses, which leaves the file unread); with None for each of a
    file the sandbox hides from commands (`dotenv ~/.secrets`)."""
    text = _read(path) if path is not None else ""
    if path is not None and _hidden_from_commands(path):
        # Its names only: a value read there would be quoted in a reason the model reads.
        return dict.fromkeys(DOTENV_NAME.findall(text.replace("\r", "\n")))
    plain: dict[str, str | None] = {}
    for line in re.split(r"[\r\n]+", text):  # (as direnv splits them)
        if _opens_a_long_value(line):
            return dict.fromkeys(DOTENV_NAME.findall(text.replace("\r", "\n")))
        if not line.strip(DOTENV_BLANKS) or line.lstrip(DOTENV_BLANKS).startswith("#"):
            continue
        found = PLAIN_DOTENV_LINE.fullmatch(line)
        if found is None:
            return dict.fromkeys(DOTENV_NAME.findall(text.replace("\r", "\n")))
        plain[found[1]] = next(value for value in found.groups()[1:] if value is not None)
    return plain


def _opens_a_long_value(line: str) -> bool:
    """Whether direnv's dotenv parser takes `line` as the start of a value over several
    lines: after its first `=` or `:`, blanks, then a quote the line holds no other of. It
    looks before anything else, a comment's line too (`# note: 'x`): the lines up to one
    that ends with that quote are then one value, and none of them sets what it seems to."""
    at = min((found for found in (line.find("="), line.find(":")) if found >= 0), default=-1)
    if at <= 0:
        return False
    after = line[at + 1 :].lstrip(" \t")
    return after[:1] in ("'", '"') and after.count(after[0]) == 1


def path_added_by_envrc(envrc: Path) -> list[Path]:
    """The folders an `.envrc` puts on your PATH: `PATH_add`, and the layouts that call it
    (`layout node` adds node_modules/.bin, first, as surely as a literal `PATH_add` would, and
    so does `use nodenv`, which calls it; and those whose folder it gives them,
    `layout_arguments`); and for `load_prefix DIR`, DIR/bin and DIR/lib, which it puts first
    on your PATH and LD_LIBRARY_PATH (a library there is loaded by each program your shell
    starts). An empty word is the `.envrc`'s folder, as direnv's `expand_path ""` makes it
    (`PATH_add ""`)."""
    added: list[Path | None] = []
    for command, args, base in direnv_calls(envrc):
        if command in ("PATH_add", "path_add"):
            added += [literal_path(arg or ".", base) for arg in args]
        elif command == "load_prefix" and args and (prefix := literal_path(args[0] or ".", base)):
            added += [prefix / "bin", prefix / "lib"]
        elif command == "layout" and args and args[0] in DIRENV_LAYOUT_PATHS:
            added.append(base / DIRENV_LAYOUT_PATHS[args[0]])
        elif command == "use" and args[:1] == ["nodenv"]:  # (it ends with `layout_node`)
            added.append(base / DIRENV_LAYOUT_PATHS["node"])
    added += [folder for folder, _ in layout_arguments(envrc)[1]]
    return [path for path in dict.fromkeys(added) if path is not None]


def vimrcs_used_by_envrc(envrc: Path) -> list[Path]:
    """The vim scripts an `.envrc`'s `use vim [FILE]` names (`.vimrc.local` by default), which
    direnv adds to DIRENV_EXTRA_VIMRC for the direnv.vim plugin to source."""
    named = [
        literal_path(args[1] if len(args) > 1 else ".vimrc.local", base)
        for command, args, base in direnv_calls(envrc)
        if command == "use" and args[:1] == ["vim"]
    ]
    return [path for path in named if path is not None]


def tool_files_of(envrc: Path, base: Path | None = None) -> list[tuple[Path, Path]]:
    """(file, the folder the tool runs in) for the files of each program in ENVRC_TOOLS that
    the `.envrc` runs (its name is a word, or a piece of one: `eval "$(pixi shell-hook)"`,
    `~/.pixi/bin/pixi`, `use flox`, `use_flox`), in the `.envrc`'s folder, and pixi's manifest
    and the scripts its [activation] names. Missing ones are included. `base`: the folder its
    words are read from, where it is not its own (a file the `.envrc` sources with bash's
    `source`)."""
    base = envrc.parent if base is None else base
    # (file, the folder the tool runs in, from which its scripts are read)
    files: list[tuple[Path, Path]] = []
    named: set[str] = set()
    for words in shell_commands(_read(envrc)):
        pieces = [piece for word in words for piece in WORD_PIECES.split(word) if piece]
        tools = {os.path.basename(piece).removeprefix("use_") for piece in pieces}
        named |= tools
        # A tool its own option sends to another folder (`make -C web`, `make -sCweb`, `npm
        # --prefix web`, `just -d web`) reads its files there: each folder the command names
        # counts as one it may run in.
        folders = [base, *_folders_named(pieces, base)]
        for tool in (tool for tool in ENVRC_TOOLS if tool in tools):
            files += [
                (path, folder) for folder in folders for path in envrc_tool_files(tool, folder)
            ]
    if "devenv" in named:
        # devenv's local files, and an imported folder's devenv.yaml: read once they are there.
        files += [(path, base) for path in devenv_files(base)[1]]
    files += [(path, base) for path in modules_run_by_envrc(envrc, base)]
    return list(dict.fromkeys(files))


def tools_run_by_envrc(envrc: Path, base: Path | None = None) -> list[Path]:
    """The files of each program in ENVRC_TOOLS that the `.envrc` runs (`tool_files_of`), and
    the scripts their recipes run (`scripts_run_by`). Missing ones are included."""
    files = tool_files_of(envrc, base)
    found = [path for path, _ in files] + [path for path, _, _ in recipe_scripts(files)]
    return list(dict.fromkeys(found))


def recipe_scripts(files: list[tuple[Path, Path]]) -> list[tuple[Path, Path, str]]:
    """(script, the folder it runs in, the program that runs it) for each existing script a
    recipe or script of these tool files (file, the folder the tool runs in) runs by its path
    (`scripts_run_by`)."""
    return [
        (script, folder, program)
        for path, folder in files
        if os.path.isfile(path)
        for recipe in _recipes_of(path)
        for script, program in scripts_run_by(recipe, folder)
    ]


def _recipes_of(path: Path) -> list[str]:
    """The texts of the tool file `path` that run as shell lines: each script of a
    package.json, read as JSON, as npm, yarn, pnpm and bun read it (its text is no shell's:
    `"env":"sh x.sh"` would be one word), each alone (`sh -c` runs each: a quote one leaves open
    ends with it); none where it cannot be read (`_unread_recipes` makes commands ask); the
    whole text of any other (a makefile's, a justfile's)."""
    from tools.tool_scripts import PACKAGE_JSON, npm_scripts  # (here: it imports this module)

    if path.name == DEVBOX_JSON:
        return devbox_lines(path) or []
    if path.name != PACKAGE_JSON:
        return [_read(path)]
    scripts = npm_scripts(path.parent) or {}
    return [script for script in scripts.values() if isinstance(script, str)]  # (npm's only)


DEVBOX_JSON = "devbox.json"


def devbox_lines(path: Path) -> list[str] | None:
    """The shell lines of a devbox.json (JSON with comments, as devbox reads it): its
    `shell.init_hook`, which devbox's direnv line runs at each load, and its `shell.scripts`
    (`devbox run`), each a line or a list of them; None where it is no such JSON."""
    from tools.tool_scripts import without_comments  # (here: it imports this module)

    try:
        data = json.loads(without_comments(_read(path)))
    except ValueError:
        return None
    shell = data.get("shell", {}) if isinstance(data, dict) else None
    scripts = shell.get("scripts") or {} if isinstance(shell, dict) else None
    if not isinstance(scripts, dict):
        return None
    lines: list[str] = []
    for run in [shell.get("init_hook") or [], *scripts.values()]:
        run = [run] if isinstance(run, str) else run
        if not isinstance(run, list) or not all(isinstance(line, str) for line in run):
            return None
        lines += run
    return ["\n".join(lines)]


def _unread_recipes(files: list[tuple[Path, Path]]) -> str | None:
    """Why planloop cannot tell the recipes of these tool files (file, the folder the tool
    runs in), or None: a package.json it cannot read as JSON (not JSON, or too big), whose
    scripts may run any file; any other it cannot read (larger than it reads:
    `unread_reason`); a makefile that gives its recipes' shell what planloop does not read
    (tools/build_files.py `gives_its_shell`), or a shell of the workspace's own."""
    # (here: they import this module)
    from tools.build_files import MAKE_SHELL, MAKEFILES, gives_its_shell
    from tools.paths import unread_reason
    from tools.tool_scripts import PACKAGE_JSON, npm_scripts

    for path, folder in files:
        if path.name == PACKAGE_JSON and os.path.isfile(path) and npm_scripts(path.parent) is None:
            why = "which planloop cannot read as JSON (or is too big), so what it runs is untold"
            return f"runs a script of a {PACKAGE_JSON}, {why}"
        if path.name == DEVBOX_JSON and os.path.isfile(path) and devbox_lines(path) is None:
            why = (
                "holds what planloop does not read as devbox's settings: its hook may run any file"
            )
            return f"runs devbox, whose {DEVBOX_JSON} {why}"
        if why := unread_reason(path):  # (its recipes may run any file: none are read)
            return f"runs {path.name}, which {why}"
        if path.name in MAKEFILES or path.suffix == ".mk":
            text = _read(path)
            # (the shell it runs each recipe line with: the system's, or one planloop reads)
            shells = [name for _, name in MAKE_SHELL.findall(text)]
            ours = [name for name in shells if not os.path.isabs(name) or "$" in name]
            ours += [name for name in shells if Path(name).is_relative_to(folder)]
            if why := gives_its_shell(text) or (ours and f"`SHELL = {ours[0][:60]}`"):
                return f"runs a recipe of {path.name}, where {why}, which planloop does not read"
    return None


def _folders_named(pieces: list[str], base: Path) -> list[Path]:
    """The existing folders, other than `base`, that these pieces of a command name from
    `base`: a piece as it is, or the rest of a bundle of short options (`-sCweb`: `web`)."""
    found: list[Path] = []
    for piece in pieces:
        bundle = piece.startswith("-") and not piece.startswith("--")
        for rest in [piece, *(piece[at:] for at in range(2, len(piece)) if bundle)]:
            folder = literal_path(envrc_word(rest, base), base)
            if folder is not None and folder != base and os.path.isdir(folder):
                found.append(folder)
    return found


# Programs that run the script file they are given first (`node scripts/env.js`), and the
# shell's own commands that run a file's lines (`. tools/setup.sh`).
INTERPRETERS = ("sh", "bash", "zsh", "node", "deno", "bun", "tsx", "ruby", "perl", "php")
SOURCING = (".", "source")


def scripts_run_by(text: str, base: Path) -> list[tuple[Path, str]]:
    """(script, what runs it) for each existing script a recipe or script of a tool's file (a
    makefile, package.json) runs by its path, from `base`: `./scripts/env.sh` (make's `@` and
    `-` before it included), the first argument of an interpreter (`node scripts/env.js`,
    `python3 x.py`) or what `.` or `source` is given. What runs it: that program ("python"
    for any of them), or "" where it is named by its path (its `#!` chooses). Not every file
    such a file names: a makefile lists the project's sources, which build commands read and
    do not run."""
    found: list[tuple[Path, str]] = []
    for words in shell_commands(text):
        pieces = [p.lstrip("@-+") for w in words for p in WORD_PIECES.split(w) if p.strip("@-+")]
        for before, piece in zip(["", *pieces], pieces, strict=False):
            program = os.path.basename(before)
            run = piece.startswith(("./", "../")) or program in (*INTERPRETERS, *SOURCING)
            if run or (program.startswith("python") and not piece.startswith("-")):
                named = literal_path(piece.strip("'\""), base)
                if named is None or not os.path.isfile(named):
                    continue
                if program.startswith("python"):
                    program = "python"
                elif program not in (*INTERPRETERS, *SOURCING):
                    program = ""
                found.append((named, program))
    return found


def modules_run_by_envrc(envrc: Path, base: Path | None = None) -> list[Path]:
    """The files of each module an `.envrc` runs with `python -m` (`eval "$(python3 -m
    tools.env)"`), found from its folder, where direnv runs it and python looks first (or from
    `base`, the folder a file it sources runs in: the `.envrc`'s for bash's `source`): the
    module, or package, and the `__init__.py` of each package above it, which runs first.
    Missing ones are included."""
    base = envrc.parent if base is None else base
    found: list[Path] = []
    for words in shell_commands(_read(envrc)):
        pieces = [piece for word in words for piece in WORD_PIECES.split(word) if piece]
        for first, flag, module in zip(pieces, pieces[1:], pieces[2:], strict=False):
            if not os.path.basename(first).startswith("python") or flag != "-m":
                continue
            parts = module.split(".")
            if not all(part.isidentifier() for part in parts):
                continue
            found += [base.joinpath(*parts[:n], "__init__.py") for n in range(1, len(parts))]
            found += [base.joinpath(*parts[:-1], parts[-1] + ".py"), base.joinpath(*parts)]
    return found


def envrc_tool_files(tool: str, base: Path) -> list[Path]:
    """The files of `tool` (ENVRC_TOOLS) in `base` that it runs before what it starts, each
    existing entry of a `*` name; for pixi, its manifest and activation scripts too."""
    found = [
        path
        for name in ENVRC_TOOLS[tool]
        for path in (sorted(base.glob(name)) if "*" in name else [base / name])
    ]
    return found + (pixi_files(base) if tool == "pixi" else [])


def pixi_files(base: Path) -> list[Path]:
    """pixi's manifest in `base` and the scripts its [activation] names. pixi reads pixi.toml,
    or pyproject.toml's [tool.pixi] when there is none: a pixi.toml made later takes over, so
    it counts whether it exists or not."""
    manifest = base / "pixi.toml"
    manifests = [manifest] if os.path.exists(manifest) else [manifest, base / "pyproject.toml"]
    scripts = [base / script for m in manifests for script in activation_scripts(_read(m))]
    return manifests + scripts


def activation_scripts(manifest: str) -> list[str]:
    """The scripts a pixi manifest's `[activation] scripts` names, in any table (a feature's,
    a target's, pyproject.toml's [tool.pixi...]): pixi sources them into your shell."""
    try:
        tables: list[object] = [toml_data(manifest)]
    except ValueError:
        return []
    scripts: list[str] = []
    while tables:
        table = tables.pop()
        if isinstance(table, list):
            tables += table
        if not isinstance(table, dict):
            continue
        activation = table.get("activation")
        if isinstance(activation, dict) and isinstance(activation.get("scripts"), list):
            scripts += [name for name in activation["scripts"] if isinstance(name, str)]
        tables += list(table.values())
    return scripts


def completion_folders(bins: Iterable[Path]) -> list[Path]:
    """COMPLETION_FOLDERS beside each `X/bin` or `X/sbin` of `bins`."""
    return [
        folder.parent / name
        for folder in dict.fromkeys(bins)
        if folder.name in ("bin", "sbin")
        for name in COMPLETION_FOLDERS
    ]


def held_when_there(
    root: Path, envrcs: Iterable[Path] = (), below: Path | None = None
) -> list[tuple[Path, str]]:
    """(path, why) for each path in the workspace that runs later if it exists (see the
    module's doc), whether it exists or not; resolved, where it does. Held while it exists, and
    reported when a command makes it (`made_since`), rather than asked about: most workspaces
    have none of them."""
    root = Path(os.path.realpath(root))
    tools: list[Path] = []
    bins: list[Path] = [*path_folders_in(root)[0], *venv_bins(root)]
    # (`below`, a file the file tools write, is named where a pattern of yours matches it.)
    named = [(path, YOUR_CONFIG_REASON) for path in named_by_your_configs(root, below)]
    named += [(path, YOUR_ENVIRONMENT_REASON) for path in named_by_your_environment(root)]
    vimrcs: list[Path] = []
    layouts: list[Path] = []
    for envrc in envrcs_around(root, envrcs, below):
        bins += path_added_by_envrc(envrc)
        vimrcs += vimrcs_used_by_envrc(envrc)
        layouts += layout_dir_folders(envrc)
        # direnv exports a loaded .env's variables as it does the .envrc's own, and a sourced
        # file's as its own (its relative values from the folder direnv enters for it).
        for path, base in envrc_files(envrc):
            tools += tools_run_by_envrc(path, base)
            text = _read(path)
            if path == envrc:
                text = "\n".join(map(_read, [envrc, *dotenvs_loaded_by(envrc)]))
            found_here = named_by_envrc(path, root, text, base)
            named += [(named_path, ENVRC_NAMED_REASON) for named_path in found_here]
        # And as its shell runs them, the values it set plainly before put in (`B=tools/bin`,
        # then `export PATH="$PWD/$B:$PATH"`).
        for base, line in envrc_lines(envrc):
            found_here = named_by_envrc(envrc, root, line, base)
            named += [(named_path, ENVRC_NAMED_REASON) for named_path in found_here]
    bins += [path for path in layouts if path.name == "bin"]
    bins += [path for path in tools if path.name == "bin"]
    bins += [path for path, _ in named if path.name in ("bin", "sbin")]
    found = [(path, ENVRC_TOOL_REASON) for path in tools]
    found += [(path, DIRENV_VIMRC_REASON) for path in vimrcs]
    found += [(path, DIRENV_LAYOUT_REASON) for path in layouts]
    found += [(path, COMPLETION_REASON) for path in completion_folders(bins)]
    found += [(path, PYTHON_PATH_REASON) for path in python_path_start_files(root)]
    # Last: a path is named by what runs it, where that is known, before "something names it".
    found += named
    return inside_workspace(root, found)


def inside_workspace(root: Path, found: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """Those of `found` that lie in the workspace `root` (not `root` itself), each by the path
    named and by the path it resolves to, once."""
    inside: list[tuple[Path, str]] = []
    for path, why in found:
        for version in dict.fromkeys((path, Path(os.path.realpath(path)))):
            if version != root and version.is_relative_to(root):
                inside.append((version, why))
    return list(dict.fromkeys(inside))


def identities(named: list[tuple[Path, str]]) -> dict[Path, tuple[int, int] | None]:
    """The device and inode of each of `named` (`held_when_there`), None where it is missing:
    a held one keeps its own, one a command made or put in place of a link gets another."""
    found: dict[Path, tuple[int, int] | None] = {}
    for path, _ in named:
        try:
            info = os.lstat(path)
            found[path] = (info.st_dev, info.st_ino)
        except OSError:
            found[path] = None
    return found


def made_since(
    before: dict[Path, tuple[int, int] | None], named: list[tuple[Path, str]]
) -> list[tuple[Path, str]]:
    """Those of `named` (`held_when_there`, now) that exist and were missing, or were
    something else, in `before` (`identities`, earlier)."""
    now = identities(named)
    return [(path, why) for path, why in named if now[path] not in (None, before.get(path))]


def nix_files(kind: str, args: list[str], base: Path) -> list[Path | None]:
    """The files nix-direnv evaluates for `use flake [PATH]`, `use nix [FILE]`, `use devenv`,
    with the nix files those import by a path (`nix_imports`)."""
    found = _nix_entry_files(kind, args, base)
    # Only nix is read as nix: devenv.yaml's `./frontend` is devenv's, and a flake.lock's
    # `./sub` is the input flake.nix names.
    nix = [path for path in found if path is not None and path.suffix == ".nix"]
    return [*found, *nix_imports(nix)]


def _nix_entry_files(kind: str, args: list[str], base: Path) -> list[Path | None]:
    if kind == "flake":
        folder = flake_folder(args[0] if args else ".", base)
        return [] if folder is None else [folder / "flake.nix", folder / "flake.lock"]
    if kind == "nix":
        files = [literal_path(arg, base) for arg in args if arg.endswith(".nix")]
        if files:
            return files
        # nix-shell reads shell.nix, or default.nix when there is none: one made later wins.
        shell = base / "shell.nix"
        return [shell] if os.path.exists(shell) else [shell, base / "default.nix"]
    if kind == "devenv":
        read, read_when_there = devenv_files(base)
        return [*read, *(path for path in read_when_there if os.path.exists(path))]
    return []


# The options of `use nix` (nix-shell) and `use flake` (nix print-dev-env) that name nix code,
# with the word of their values that does and how it is read: an entry of nix's search path,
# whose `<NAME>` nix code imports (`-I nixpkgs=./np`), or a list of them (nix's `nix-path`
# setting), nix code (`--arg pkgs "import ./np {}"`), a string that a nix file may import
# (`--argstr src ./np`), a file, or a flake put in place of an input (`--override-input
# nixpkgs ./np`). (`--option nix-path ...` is read as `--nix-path ...`.)
NIX_CODE_OPTIONS = {
    **dict.fromkeys(("-I", "--include"), (1, "search")),
    **dict.fromkeys(("--nix-path", "--extra-nix-path"), (1, "searches")),
    **dict.fromkeys(("--expr", "-E"), (1, "code")),
    "--arg": (2, "code"),
    "--argstr": (2, "string"),
    **dict.fromkeys(("--file", "-f", "--reference-lock-file"), (1, "path")),
    **dict.fromkeys(("--override-input", "--override-flake"), (2, "flake")),
    "--inputs-from": (1, "flake"),
}


def nix_option_values(args: list[str]) -> list[tuple[str, str]]:
    """(how it is read, the value) of each option of NIX_CODE_OPTIONS in `use nix` or `use
    flake` arguments `args` (`-Inixpkgs=./np` too)."""
    found: list[tuple[str, str]] = []
    for at, option in enumerate(args):
        if option == "--option" and args[at + 1 : at + 2] in (["nix-path"], ["extra-nix-path"]):
            option, at = "--nix-path", at + 1
        elif option.startswith("-I") and option != "-I":  # (its value joined)
            found.append(("search", option[2:]))
        if option in NIX_CODE_OPTIONS and at + NIX_CODE_OPTIONS[option][0] < len(args):
            count, how = NIX_CODE_OPTIONS[option]
            found.append((how, args[at + count]))
    return found


def nix_code_named_by_envrc(envrc: Path) -> list[Path]:
    """The nix code an `.envrc` names besides the nix files it uses (`nix_files`): where the
    NIX_PATH it sets and its `use nix` and `use flake` options (NIX_CODE_OPTIONS) take nix
    code from, a folder whole with its default.nix, and what their nix files import."""
    found: list[Path] = []
    for command, args, base in direnv_calls(envrc):
        words = args if command in SETTING_WORDS else [command, *args]
        for assigned in filter(None, map(ASSIGNED.match, words)):
            if assigned[1] == "NIX_PATH":
                entries = nix_search_path_entries(assigned.string[assigned.end() :])
                found += _nix_code_at([literal_path(e, base) for e in entries], envrc.parent)
        if command != "use" or args[:1] not in (["nix"], ["flake"]):
            continue
        for how, value in nix_option_values(args[1:]):
            if how in ("search", "searches"):
                entries = [
                    entry for word in value.split() for entry in nix_search_path_entries(word)
                ]
                paths = [literal_path(entry, base) for entry in entries]
            elif how == "code":
                paths = list(named_by_nix_file(value, base, None))
            elif how == "flake":
                paths = list(flake_input_files(value, base))
            else:  # (a string names a path only with a `/`: `./np`)
                paths = [literal_path(value, base)] if how == "path" or "/" in value else []
            found += _nix_code_at(paths, envrc.parent)
    return list(dict.fromkeys(found))


def _nix_code_at(paths: list[Path | None], within: Path) -> list[Path]:
    """`paths` (a folder whole), a folder's default.nix where it is, and what the nix files
    among them in `within` import (`nix_imports`; not a nixpkgs elsewhere, thousands of files)."""
    named = [path for path in paths if path is not None]
    files = [*named, *(file for path in named for file in _if_file(path / "default.nix"))]
    return files + nix_imports(
        [f for f in files if f.suffix == ".nix" and f.is_relative_to(within)]
    )


# The flake references that name a folder on this machine (`path:./sub`, `git+file:///x`);
# without one of these, a reference with a `:` is elsewhere (`github:`, `https:`).
LOCAL_FLAKE_SCHEMES = ("path:", "git+file:")


def flake_folder(reference: str, base: Path) -> Path | None:
    """The folder whose flake.nix a flake reference names, from `base` (`.`, `./sub`,
    `path:./sub#dev`, `git+file:///abs?dir=nix`); None for a flake elsewhere, or one whose
    folder only the shell can tell (`$SOME_FOLDER`)."""
    reference, _, query = reference.split("#")[0].partition("?")
    scheme = next((s for s in LOCAL_FLAKE_SCHEMES if reference.startswith(s)), "")
    where = reference.removeprefix(scheme)
    if scheme and where.startswith("//"):
        where = where[2:]  # `git+file://` before an absolute path
    if ":" in where:
        return None
    folder = literal_path(where or ".", base)
    subfolder = parse_qs(query).get("dir")
    if folder is not None and subfolder:
        # `?dir=nix`: the flake in that folder of the tree named.
        folder = literal_path(subfolder[0], folder)
    return folder


# A nix path literal (`./nix/devshell.nix`, `../common`), with a string added to it (`./nix +
# "/devshell.nix"`): nix evaluates the file it names when an `import` or a flake's `imports`
# takes it (a folder's default.nix for a folder), and puts a file's text into the shell hook
# through `builtins.readFile ./hook.sh` or `"${./hook.sh}"`.
NIX_PATH = re.compile(r"""(?<![\w./+-])(\.{1,2}/[\w./+-]*)(?:\s*\+\s*"(/[^"$]*)")?""")
# A file inside a folder path, named in a string: `"${./scripts}/hook.sh"`.
NIX_FOLDER_FILE = re.compile(r"""\$\{\s*(\.{1,2}/[\w./+-]*)\s*\}(/[\w./+-]+)""")
# A file of the flake's own tree, through `self`, its folder: `self + "/nix/shell.nix"`,
# `"${self}/nix/shell.nix"` (`self.outPath` is the same folder).
NIX_SELF_FILE = re.compile(
    r"""(?<![\w.-])self(?:\.outPath)?\s*\+\s*"(/[^"$]*)\""""
    r"""|\$\{\s*self(?:\.outPath)?\s*\}(/[\w./+-]+)"""
)
# A flake reference to a folder here, in a string: a flake input's url (`"path:./sub"`), which
# nix evaluates as the flake in that folder.
NIX_FLAKE_REFERENCE = re.compile(r"""["']((?:path|git\+file):[^"'$\s]*)["']""")
MAX_NIX_FILES = 200


def nix_imports(files: list[Path]) -> list[Path]:
    """The files `files` name by a nix path literal, and those the nix files among them name in
    turn: every file so named (a `.nix` file made later too), and a folder's default.nix (a
    folder itself, a package's `src = ./.`, is data, and the project's code is not held for
    it). Also the flake.nix (and the flake.lock there) of a flake input in a folder here, and
    what a flake's files name through `self`, the flake's own folder."""
    found: list[Path] = []
    # Each file waits with the folder of the flake it belongs to, which its `self` stands for.
    waiting = [(path, _flake_of(path, None)) for path in files]
    seen = set(files)
    while waiting and len(seen) < MAX_NIX_FILES:
        path, flake = waiting.pop()
        for named in named_by_nix_file(_read(path), path.parent, flake):
            if os.path.isdir(named):
                named = named / "default.nix"
            if named in seen or not (named.suffix == ".nix" or os.path.isfile(named)):
                continue
            seen.add(named)
            found.append(named)
            if named.suffix == ".nix":
                waiting.append((named, _flake_of(named, flake)))
    return found


def _flake_of(path: Path, importer: Path | None) -> Path | None:
    # A flake.nix starts a flake of its own; any other file is evaluated as part of the flake
    # that imports it, whose `self` it is given.
    return path.parent if path.name == "flake.nix" else importer


def named_by_nix_file(text: str, folder: Path, flake: Path | None) -> list[Path]:
    """The paths the nix file `text` in `folder` names (see `nix_imports`); `flake`: the folder
    of the flake it belongs to, if any, which `self` stands for."""
    named: list[Path] = []
    for reference in NIX_FLAKE_REFERENCE.findall(text):
        named += flake_input_files(reference, folder)
    for literal, inside in NIX_FOLDER_FILE.findall(text):
        # The folder is copied whole, not imported: its default.nix counts only if it is there.
        named += [folder / (literal + inside), *_if_file(folder / literal / "default.nix")]
    # Those two name a folder in a way that is no import of it; what is left is.
    rest = NIX_FOLDER_FILE.sub(" ", NIX_FLAKE_REFERENCE.sub(" ", text))
    named += [folder / (literal + added) for literal, added in NIX_PATH.findall(rest)]
    if flake is not None:
        for added, interpolated in NIX_SELF_FILE.findall(text):
            named.append(flake / (added or interpolated).lstrip("/"))
    return [Path(os.path.normpath(path)) for path in named]


def flake_input_files(reference: str, folder: Path) -> list[Path]:
    """What nix evaluates for a flake input in a folder here (`path:./sub`): its flake.nix, and
    its flake.lock and default.nix where they are (an input with `flake = false` is imported as
    a folder). Nothing for an input elsewhere."""
    input_folder = flake_folder(reference, folder)
    if input_folder is None:
        return []
    optional = (input_folder / "flake.lock", input_folder / "default.nix")
    return [input_folder / "flake.nix", *(path for path in optional if os.path.isfile(path))]


def _if_file(path: Path) -> list[Path]:
    return [path] if os.path.isfile(path) else []


# devenv merges these over devenv.nix and devenv.yaml when they are there; most projects have
# none (each person keeps their own, and git ignores them).
DEVENV_LOCAL_FILES = ("devenv.local.nix", "devenv.local.yaml")
MAX_DEVENV_CONFIGS = 50


def devenv_files(base: Path) -> tuple[list[Path], list[Path]]:
    """(the files devenv evaluates for the folder `base`, those it evaluates when they are
    there): devenv.nix, devenv.yaml and devenv.lock, the local files, the flake.nix of each
    flake input in a folder here, and for each local entry of a devenv.yaml's `imports:` (the
    local one's too) that folder's devenv.nix and, in turn, its devenv.yaml, or the `.nix` file
    the entry names."""
    read = [base / "devenv.nix", base / "devenv.yaml", base / "devenv.lock"]
    read_when_there = [base / name for name in DEVENV_LOCAL_FILES]
    configs = [base / "devenv.yaml", base / "devenv.local.yaml"]
    seen = set(configs)
    while configs and len(seen) < MAX_DEVENV_CONFIGS:
        config = configs.pop()
        settings = _devenv_settings(config)
        read += devenv_input_flakes(settings, config.parent)
        for imported in devenv_imports(settings, config.parent):
            if imported.suffix == ".nix":
                read.append(imported)
                continue
            read.append(imported / "devenv.nix")
            config = imported / "devenv.yaml"
            if config not in seen:
                seen.add(config)
                read_when_there.append(config)
                configs.append(config)
    return list(dict.fromkeys(read)), list(dict.fromkeys(read_when_there))


def _devenv_settings(config: Path) -> dict:
    # Imported here: tools.tool_scripts imports this module.
    from tools.tool_scripts import read_yaml

    try:
        settings = read_yaml(_read(config))
    except ValueError:
        return {}
    return settings if isinstance(settings, dict) else {}


def devenv_local_inputs(settings: dict, folder: Path) -> dict[str, tuple[str, bool]]:
    """(url, whether nix reads it as a flake) of each input of a devenv.yaml (`settings`, in
    `folder`) that is a folder on this machine (`url: path:./local`), by its name."""
    inputs = settings.get("inputs")
    found: dict[str, tuple[str, bool]] = {}
    for name, spec in inputs.items() if isinstance(inputs, dict) else ():
        url = spec.get("url") if isinstance(spec, dict) else None
        if isinstance(url, str) and url.startswith(LOCAL_FLAKE_SCHEMES):
            found[str(name)] = (url, spec.get("flake") is not False)
    return found


def devenv_input_flakes(settings: dict, folder: Path) -> list[Path]:
    """What nix evaluates of each flake input of a devenv.yaml in a folder here, as for a
    flake's own (`flake_input_files`): devenv locks and passes every input, imported or not."""
    inputs = devenv_local_inputs(settings, folder).values()
    return [path for url, flake in inputs if flake for path in flake_input_files(url, folder)]


def devenv_imports(settings: dict, folder: Path) -> list[Path]:
    """The local paths a devenv.yaml's `imports:` lists (`./frontend`, `../shared/x.nix`, an
    absolute one), from its folder, and those it takes from an input in a folder here
    (`mylocal/module` with `mylocal` at `path:./local`); another input's is fetched."""
    entries = settings.get("imports")
    if not isinstance(entries, list):
        return []
    inputs = devenv_local_inputs(settings, folder)
    found: list[Path] = []
    for entry in (entry for entry in entries if isinstance(entry, str)):
        name, _, inside = entry.partition("/")
        if entry.startswith(("./", "../", "/")):
            found.append(Path(os.path.normpath(folder / entry)))
        elif name in inputs and (input_folder := flake_folder(inputs[name][0], folder)):
            found.append(Path(os.path.normpath(input_folder / inside)))
    return found


def envrcs_around(root: Path, envrcs: Iterable[Path], below: Path | None = None) -> list[Path]:
    """`envrcs` (those the scan found in the workspace), and the `.envrc` of each folder above
    the workspace and, for the file tools, between it and `below`."""
    folders = [*root.parents]
    if below is not None and below.is_relative_to(root):
        folders += [root, *(p for p in below.parents if p.is_relative_to(root))]
    names = cd_hook_names()
    found = [*envrcs, *(folder / name for folder in folders for name in names)]
    return [path for path in dict.fromkeys(found) if os.path.isfile(path)]


# What a shell's cd hook sources from each folder you enter, as direnv loads `.envrc`: autoenv's
# `.env` and `.env.leave` (or the names its AUTOENV_ENV_FILENAME and
# AUTOENV_ENV_LEAVE_FILENAME give), zsh-autoenv's `.autoenv.zsh` and `.autoenv_leave.zsh`.
AUTOENV_DEFAULTS = {"AUTOENV_ENV_FILENAME": ".env", "AUTOENV_ENV_LEAVE_FILENAME": ".env.leave"}
ZSH_AUTOENV_NAMES = (".autoenv.zsh", ".autoenv_leave.zsh")


def cd_hook_names(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """The names of the files loaded from each folder you enter: direnv's `.envrc` (and `.env`,
    where your direnv config has it load them: `direnv_loads_dotenvs`), and, where your
    start-up files load autoenv or zsh-autoenv (their text names it: `source
    ~/.autoenv/activate.sh`, an oh-my-zsh `plugins=(autoenv)`), its files, sourced as shell
    code. All are read as `.envrc`s are. Kept as `sourced_by_your_shell` is."""
    return _cd_hook_names(_your_shells_key(), tuple(environ.items()))


@kept_while_unchanged
def _cd_hook_names(
    _key: tuple[object, ...], environ_items: tuple[tuple[str, str], ...]
) -> tuple[str, ...]:
    environ = dict(environ_items)
    names = [".envrc", *sourced_by_a_cd_hook(environ)]
    if direnv_loads_dotenvs(environ):
        names.append(".env")
    return tuple(name for name in dict.fromkeys(names) if "/" not in name)


def sourced_by_a_cd_hook(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """The names of the files autoenv or zsh-autoenv source as shell code from each folder you
    enter, where your start-up files load either; () where they load neither. Kept as
    `sourced_by_your_shell` is."""
    return _sourced_by_a_cd_hook(_your_shells_key(), tuple(environ.items()))


@kept_while_unchanged
def _sourced_by_a_cd_hook(
    _key: tuple[object, ...], environ_items: tuple[tuple[str, str], ...]
) -> tuple[str, ...]:
    environ = dict(environ_items)
    texts = [_read(path) for path in [*start_files(), *sourced_by_your_shell()]]
    if not any("autoenv" in text.lower() for text in texts):
        return ()
    autoenv = [environ.get(name) or default for name, default in AUTOENV_DEFAULTS.items()]
    return (*autoenv, *ZSH_AUTOENV_NAMES)


# Where direnv reads its own settings: the folder DIRENV_CONFIG names, else direnv/ in your
# XDG config folder; direnv.toml there, else config.toml.
DIRENV_SETTINGS_NAMES = ("direnv.toml", "config.toml")
# `load_dotenv = true`, under [global] or at the top (direnv still reads its older spelling),
# found in text tomllib refuses but direnv's own TOML reader may take.
LOADS_DOTENVS = re.compile(r"^[ \t]*load_dotenv[ \t]*=[ \t]*true\b", re.MULTILINE)


def direnv_loads_dotenvs(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether your direnv settings say `load_dotenv = true`: then direnv loads a folder's
    `.env` when it finds no `.envrc` nearer, as an `.envrc` whose one line is `dotenv` would
    (its own reading of the file: `dotenv_settings`). Your settings are yours to trust; the
    `.env` is the workspace's. Kept while those settings are unchanged: asked for each `.env`
    an `.envrc` reader starts from."""
    return _direnv_loads_dotenvs(tuple(your_homes()), tuple(environ.items()))


@kept_while_unchanged
def _direnv_loads_dotenvs(
    homes: tuple[Path, ...], environ_items: tuple[tuple[str, str], ...]
) -> bool:
    environ = dict(environ_items)
    if environ.get("DIRENV_CONFIG"):
        folders = [Path(environ["DIRENV_CONFIG"])]
    elif environ.get("XDG_CONFIG_HOME"):
        folders = [Path(environ["XDG_CONFIG_HOME"]) / "direnv"]
    else:
        folders = [home / ".config" / "direnv" for home in homes]
    return any(_says_load_dotenv(folder) for folder in folders)


def _says_load_dotenv(folder: Path) -> bool:
    """Whether the direnv settings file in `folder` that direnv reads says `load_dotenv = true`."""
    for name in DIRENV_SETTINGS_NAMES:
        text = _read(folder / name)
        if text or os.path.isfile(folder / name):
            try:
                data = toml_data(text)
            except ValueError:  # (read by its lines, as direnv's own TOML reader may take it)
                return bool(LOADS_DOTENVS.search(text))
            settings = data.get("global")
            in_global = isinstance(settings, dict) and settings.get("load_dotenv") is True
            return in_global or data.get("load_dotenv") is True
    return False


def venv_bins(root: Path, venvs: Iterable[Path] | None = None) -> list[Path]:
    """bin/ of each virtualenv (a folder holding a pyvenv.cfg): `venvs`, those a workspace scan
    found at any depth; without them, the workspace and each folder at its top.

    A nested one counts as much as the top one: a monorepo's `services/api/.venv` is the
    interpreter its editor was pointed at, and the activate a terminal there sources.
    """
    if venvs is not None:
        # A conda environment's bin/ may be missing (one made empty): one a command makes is
        # reported. A virtualenv always has one: missing, it makes commands ask (`not_held`).
        return [
            Path(folder) / "bin"
            for folder in dict.fromkeys(venvs)
            if os.path.lexists(Path(folder) / VENV_CONFIG_NAME)
            or os.path.lexists(Path(folder) / "bin")
        ]
    folders = [root]
    try:
        with os.scandir(root) as entries:
            folders += [Path(entry.path) for entry in entries if entry.is_dir()]
    except OSError:
        pass
    return [folder / "bin" for folder in folders if os.path.lexists(folder / VENV_CONFIG_NAME)]


def loaded_as_settings(root: Path, envrcs: Iterable[Path] = ()) -> list[Path]:
    """Each existing file your shells' start-up files source or name, or that an `.envrc` in or
    above the workspace loads (dotenv, source_env, ...) or names, inside the workspace or not:
    where people keep keys (`source ~/.secrets`, `dotenv secrets.env`, and read by a command
    substitution, `export ANTHROPIC_API_KEY="$(cat ~/keys/anthropic)"` or zsh's `$(< file)`),
    to be looked into for planloop's."""
    root = Path(os.path.realpath(root))
    found = [*sourced_by_your_shell(), *run_by_your_shell()]
    for envrc in envrcs_around(root, envrcs):
        found += loaded_by_envrc(envrc) + run_by_envrc(envrc)
    return [path for path in dict.fromkeys(found) if os.path.isfile(path)]


def venv_configs(root: Path, venvs: Iterable[Path] | None = None) -> list[Path]:
    """pyvenv.cfg of each virtualenv `venv_bins` finds: its `home` line chooses the python the
    virtualenv starts, and with it the standard library and sitecustomize that python runs;
    held, it cannot be moved away either, which would let bin/ go unheld. One found by its
    bin/activate alone has none to hold: a command that makes one is reported (`run_later`)."""
    configs = [folder.parent / VENV_CONFIG_NAME for folder in venv_bins(root, venvs)]
    if venvs is None:
        return configs
    return [path for path in configs if os.path.lexists(path)]


def run_later(
    root: Path,
    envrcs: Iterable[Path] = (),
    below: Path | None = None,
    venvs: Iterable[Path] | None = None,
) -> list[tuple[Path, str]]:
    """(path, why it is protected) for each path in the workspace that something of yours runs
    later on its own (see the module's doc), whether it exists or not; resolved, where it does.
    `envrcs` and `venvs`: the `.envrc` files and virtualenvs a scan found in the workspace."""
    root = Path(os.path.realpath(root))
    venvs = None if venvs is None else list(venvs)
    found: list[tuple[Path, str]] = [
        (path, variable_reason(name)) for path, name in variable_paths_in(root)[0]
    ]
    found += [(path, SHELL_REASON) for path in sourced_by_your_shell()]
    found += [(path, SHELL_RUN_REASON) for path in run_by_your_shell()]
    on_path = [*path_folders_in(root)[0]]  # (and those an .envrc adds, below)
    for envrc in envrcs_around(root, envrcs, below):
        found += [(path, DIRENV_REASON) for path in loaded_by_envrc(envrc)]
        found += [(path, DIRENV_RUN_REASON) for path in run_by_envrc(envrc)]
        on_path += folders_put_on_path(_EnvrcReader(envrc))
    found += [(path, NODE_MODULES_REASON) for path in node_modules_on_path(on_path)]
    bins = venv_bins(root, venvs)
    found += [(path, VENV_REASON) for path in bins]
    # Whole, where it surely is one: its tools read their settings from it too (pip's
    # pip.conf, IPython's and Jupyter's etc/ and share/), and a command may add them. Of one
    # found by its activate alone, what its python imports.
    whole = [p.parent for p in bins if os.path.isfile(p.parent / VENV_CONFIG_NAME)]
    # And a conda environment, whose python takes its standard library and shared libraries
    # from there as a virtualenv takes its packages.
    whole += [v for v in dict.fromkeys(venvs or []) if os.path.isdir(v / CONDA_META)]
    found += [(path, VENV_PACKAGES_REASON) for path in whole]
    found += [(path, VENV_BASE_REASON) for path in venv_bases(root, whole)]
    rest = venv_packages(p.parent for p in bins if p.parent not in whole)
    found += [(path, VENV_PACKAGES_REASON) for path in rest]
    found += [(path, VENV_CONFIG_REASON) for path in venv_configs(root, venvs)]
    found += [(path, CONDA_ACTIVATE_REASON) for path in conda_activate_folders(venvs or [])]
    return inside_workspace(root, found)


def node_modules_on_path(folders: Iterable[Path]) -> list[Path]:
    """The node_modules folder of each existing `node_modules/.bin` among these PATH
    `folders`, whole, as a virtualenv on PATH is: its programs are links or stubs into its
    packages, whose code requires more of them (and what links there lead to), by loads
    planloop does not follow."""
    found = [
        folder.parent
        for folder in map(Path, map(os.path.normpath, folders))
        if folder.name == ".bin" and folder.parent.name == "node_modules" and folder.is_dir()
    ]
    return list(dict.fromkeys(found))


def venv_bases(root: Path, venvs: Iterable[Path]) -> list[Path]:
    """The python each virtualenv of `venvs` was made from, where it lies in the workspace `root`
    (`home = <root>/.python/bin`: a python unpacked into the project): its installation, whole,
    since the virtualenv's python runs its standard library at every start. A base that holds
    the project's own files (the workspace itself, or a folder around the virtualenv) is held
    by its `bin/` and `lib/` alone."""
    found: list[Path] = []
    for venv in venvs:
        home = venv_settings(venv).get("home")
        if not home:
            continue
        prefix = Path(os.path.normpath(venv / home)).parent  # (`home` is its bin/)
        if not prefix.is_relative_to(root):
            continue
        if prefix == root or venv.is_relative_to(prefix):  # (around the project's own files)
            found += [prefix / "bin", prefix / "lib"]
        else:
            found.append(prefix)
    return [path for path in dict.fromkeys(found) if os.path.lexists(path)]


def conda_activate_folders(venvs: Iterable[Path]) -> list[Path]:
    """The activate.d and deactivate.d of each conda environment among `venvs` that has them
    (one a command makes is reported, as a new virtualenv's bin/ is)."""
    return [
        folder / scripts
        for folder in dict.fromkeys(venvs)
        if os.path.isdir(folder / CONDA_META)
        for scripts in CONDA_ACTIVATE_FOLDERS
        if os.path.lexists(folder / scripts)
    ]


def read_only(root: Path, named: list[tuple[Path, str]]) -> list[Path]:
    """Those of `named` (`run_later`) that exist: resolved, for a read-only bind."""
    return list(dict.fromkeys(Path(os.path.realpath(p)) for p, _ in named if os.path.exists(p)))


def not_held(root: Path, named: list[tuple[Path, str]]) -> str | None:
    """Why one of `named` (`run_later`), or of your environment's variables, cannot be held
    read-only: missing (a command could create it), reached through a link inside the workspace
    (a command could point the link elsewhere), or the workspace itself."""
    root = Path(os.path.realpath(root))
    unheld = variable_paths_in(root)[1]
    if unheld:
        return unheld
    for path, why in named:
        if link_inside(str(root), str(path)) or not os.path.exists(path):
            what = why.split(" is protected")[0]
            return f"{path.relative_to(root)} ({what}) does not exist or is a link"
    return None


def is_python_start_file(path: Path) -> bool:
    """Whether python's `site` runs `path` at start-up (see PYTHON_START_NAMES)."""
    if path.parent.name not in SITE_FOLDER_NAMES:
        return False
    return path.suffix == ".pth" or path.name.removesuffix(".py") in PYTHON_START_NAMES


def python_start_files(package_roots: Iterable[Path]) -> dict[Path, tuple[int, int, int]]:
    """Each python start-up file in these site-packages folders, with its device, inode and
    change time: a file written in place keeps its inode but never its change time. Also the
    files of the modules their .pth files import, and the sitecustomize of a folder a .pth
    adds (`python_start_modules`), compiled or not."""
    found: dict[Path, tuple[int, int, int]] = {}
    for folder in dict.fromkeys(package_roots):
        if folder.name not in SITE_FOLDER_NAMES:
            continue  # node_modules: node runs nothing from there by itself
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if is_python_start_file(Path(entry.path)):
                        info = entry.stat(follow_symlinks=False)
                        found[Path(entry.path)] = (info.st_dev, info.st_ino, info.st_ctime_ns)
        except OSError:
            continue  # gone, or closed: the scan reports a closed folder itself
    for folder, modules in python_start_modules(package_roots):
        for path in _module_files(folder, modules):
            try:
                info = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            found.setdefault(path, (info.st_dev, info.st_ino, info.st_ctime_ns))
    return found


def python_start_modules(package_roots: Iterable[Path]) -> list[tuple[Path, frozenset[str]]]:
    """(folder, module names) for what python imports at every start from these site-packages
    folders and the folders their .pth files add: each module an `import` line of a .pth names
    (`import _virtualenv`, `__import__('_distutils_hack')`, an editable install's finder), and
    sitecustomize and usercustomize. python looks for them along its whole path, the folders a
    path line of a .pth adds included (an editable install's `src/`, or the project itself),
    so any of those folders counts for each. What the base python of the site folder's
    virtualenv imports at start counts too (`interpreter_start_imports`). The standard
    library's modules are left out: python finds them in its own folders first."""
    found: list[tuple[Path, frozenset[str]]] = []
    # A monorepo's virtualenvs mostly share one base python: read its files once per call.
    bases: dict[tuple[str, ...], set[str]] = {}
    for site in dict.fromkeys(package_roots):
        if site.name not in SITE_FOLDER_NAMES:
            continue
        venv = venv_of(site)
        names = set(PYTHON_START_NAMES)
        if venv is not None:
            settings = venv_settings(venv)
            base = tuple(settings.get(key, "") for key in VENV_BASE_SETTINGS)
            if base not in bases:
                bases[base] = interpreter_start_imports(venv)
            names |= bases[base]
        folders, files = [site], []
        try:
            with os.scandir(site) as entries:
                pth_files = sorted(entry.path for entry in entries if entry.name.endswith(".pth"))
        except OSError:
            continue
        for pth in pth_files:
            for line in pth_lines(_read(Path(pth))):
                if line.startswith("#") or not line.strip():
                    continue
                if line.startswith(("import ", "import\t")):  # what `site` runs
                    names.update(imported_modules(line))
                    named = paths_named_in_code(line)
                    folders += [path for path in named if os.path.isdir(path)]
                    files += [path for path in named if os.path.isfile(path)]
                else:  # a folder `site` adds to the path, relative to the .pth's folder
                    folders.append(Path(os.path.normpath(site / line.rstrip())))
        stdlib = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
        modules = frozenset(names - stdlib)
        for folder in dict.fromkeys(folders):
            found.append((folder, modules))
        # (a file the line runs by its path, `runpy.run_path('/ws/tools/boot.py')`)
        found += [(path.parent, frozenset([path.name.split(".")[0]])) for path in files]
    return found


def paths_named_in_code(line: str) -> list[Path]:
    """The absolute paths an `import` line of a .pth names in its strings: a folder it puts
    on python's path (`sys.path.insert(0, '/ws/tools'); import boot`) or a file it runs
    (`runpy.run_path('/ws/tools/boot.py')`, `exec(open(...).read())`)."""
    try:
        tree = ast.parse(line)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    strings = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)]
    paths = [text for text in strings if isinstance(text, str) and os.path.isabs(text)]
    return [Path(os.path.normpath(path)) for path in paths]


def unread_start_file(root: Path, package_roots: Iterable[Path]) -> str | None:
    """Why what python imports at every start from a site folder of the workspace `root`
    cannot be told, or None: a `.pth` there that planloop cannot read (`unread_reason`: larger
    than it reads), which `site` reads whole, so that its import lines past the limit may
    import any module (`python_start_modules` takes it for empty). One in a site folder
    outside the workspace (a link to an environment of yours) is yours to trust."""
    from tools.paths import unread_reason  # (here: tools.paths imports this module)

    root = Path(os.path.realpath(root))
    for site in dict.fromkeys(package_roots):
        real = Path(os.path.realpath(site))
        if site.name not in SITE_FOLDER_NAMES or not real.is_relative_to(root):
            continue
        with contextlib.suppress(OSError), os.scandir(real) as entries:
            for name in sorted(entry.name for entry in entries if entry.name.endswith(".pth")):
                if why := unread_reason(real / name):
                    shown = (real / name).relative_to(root)
                    return f"{shown}, which python reads at every start, {why}"
    return None


def pth_lines(text: str) -> list[str]:
    """The lines `site` reads from a .pth file, as any python reads it: up to 3.12 as a text
    file (a line ends at a line feed or a return), from 3.13 with `splitlines()` (also at a
    form feed, the separators 0x1c to 0x1e, NEL and the Unicode line separators). Both, so
    that what either version runs is held."""
    text = text.removeprefix("\ufeff")
    return list(dict.fromkeys(re.split(r"\r\n|\r|\n", text) + text.splitlines()))


def venv_of(site: Path) -> Path | None:
    """The virtualenv a site folder lies in (lib/python3.X/site-packages, and Debian's
    lib/python3/dist-packages or local/lib/python3.X/dist-packages): the nearest folder above,
    three levels at most, that holds a pyvenv.cfg."""
    for folder in list(site.parents)[:4]:
        if os.path.isfile(folder / VENV_CONFIG_NAME):
            return folder
    return None


def venv_settings(venv: Path) -> dict[str, str]:
    """The `key = value` lines of a virtualenv's pyvenv.cfg, keys in lower case."""
    settings: dict[str, str] = {}
    for line in _read(venv / VENV_CONFIG_NAME).splitlines():
        key, equals, value = line.partition("=")
        if equals:
            settings[key.strip().lower()] = value.strip()
    return settings


def _glob(folder: Path, pattern: str) -> list[Path]:
    """The paths matching `pattern` in `folder`; none where a folder on the way cannot be read
    (another user's python, named by a virtualenv of yours), rather than an error."""
    found = glob.iglob(os.path.join(glob.escape(str(folder)), pattern))
    return [Path(path) for path in itertools.islice(found, MAX_OUTSIDE_ENVIRONMENTS)]


def site_folders_of(prefix: Path) -> list[Path]:
    """The site folders (SITE_FOLDER_NAMES) a python installed at `prefix`, or a virtualenv
    there, adds to its path when they exist: lib/python3.X/site-packages and Debian's
    dist-packages, for any version."""
    found: list[Path] = []
    for pattern in ("lib/python3*/", "local/lib/python3*/"):
        for lib in sorted(_glob(prefix, pattern)):
            found += [lib / name for name in SITE_FOLDER_NAMES if os.path.isdir(lib / name)]
    return found


def venv_packages(venvs: Iterable[Path]) -> list[Path]:
    """The site folders of each of these virtualenvs (or conda environments): lib/python3.X/
    site-packages, lib64/'s where python's platform library folder is lib64 (Fedora's, and
    venvs made from it), and Debian's dist-packages; once each, as lib64 is mostly a link to
    lib."""
    once: dict[str, Path] = {}
    for venv in venvs:
        for pattern in ("lib/python3*/", "lib64/python3*/", "local/lib/python3*/"):
            for lib in sorted(_glob(venv, pattern)):
                for name in SITE_FOLDER_NAMES:
                    if os.path.isdir(lib / name):
                        once.setdefault(os.path.realpath(lib / name), lib / name)
    return list(once.values())


def interpreter_start_imports(venv: Path) -> set[str]:
    """The modules the base python of the virtualenv `venv` imports at every start through its
    own start-up files, outside the workspace: python looks for them along the virtualenv's
    path, its site folders first. The imports of the base's sitecustomize and usercustomize
    (Debian's `import apport_python_hook`), and, where the virtualenv includes the system's
    site-packages (`include-system-site-packages = true`), the `import` lines of the base's
    .pth files (setuptools' `__import__('_distutils_hack')`)."""
    settings = venv_settings(venv)
    home = settings.get("home")
    if not home or not os.path.isabs(home):
        return set()
    prefix = Path(home).parent  # `home` is the folder of the base's python: <prefix>/bin
    with_system_site = settings.get("include-system-site-packages", "").lower() == "true"
    sites = site_folders_of(prefix)
    folders = [*sorted(_glob(prefix, "lib/python3*/")), *sites]
    names: set[str] = set()
    read = 0
    for folder in dict.fromkeys(folders):
        files = [folder / f"{name}.py" for name in ("sitecustomize", "usercustomize")]
        if with_system_site and folder in sites:
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                files += sorted(Path(e.path) for e in entries if e.name.endswith(".pth"))
        for path in files:
            if read >= MAX_BASE_START_FILES or not os.path.isfile(path):
                continue
            read += 1
            text = _read(path)
            if path.suffix == ".pth":  # only its `import` lines run
                for line in pth_lines(text):
                    if line.startswith(("import ", "import\t")):
                        names |= imported_modules(line)
            else:
                names |= imported_modules(text)
    return names


def outside_environments(root: Path, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The prefixes of your python environments outside the workspace whose .pth files may put
    a folder of it on python's path (an editable install of the project): the active
    virtualenv or conda environment, the virtualenv of each folder of your PATH, those in the
    places OUTSIDE_VENV_HOMES names, and your user base (`pip install --user -e .`, read by
    every python of yours)."""
    found: list[Path] = []
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if os.path.isabs(environ.get(name, "")):
            found.append(Path(environ[name]))
    for entry in environ.get("PATH", "").split(os.pathsep):
        if os.path.isabs(entry) and os.path.isfile(Path(entry).parent / VENV_CONFIG_NAME):
            found.append(Path(entry).parent)
    homes = your_homes()  # (your account's too, when a run moves HOME)
    patterns = [os.path.join(glob.escape(str(h)), n) for h in homes for n in OUTSIDE_VENV_HOMES]
    if os.path.isabs(environ.get("WORKON_HOME", "")):
        patterns.append(os.path.join(glob.escape(environ["WORKON_HOME"]), "*"))
    for pattern in patterns:
        found += [Path(path) for path in itertools.islice(glob.iglob(pattern), 50)]
    found.append(Path(environ.get("PYTHONUSERBASE") or homes[0] / ".local"))
    found += [home / ".local" for home in homes[1:]]
    outside = [path for path in found if not Path(os.path.realpath(path)).is_relative_to(root)]
    return list(dict.fromkeys(outside))[:MAX_OUTSIDE_ENVIRONMENTS]


def python_path_folders(
    root: Path, environ: Mapping[str, str] = os.environ
) -> tuple[list[Path], frozenset[str]]:
    """The folders of the workspace that python may put on its path at start although no site
    folder in the workspace names them, and the start-up modules it would import from there.

    The workspace itself and its src/ always: where an editable install of the project in an
    environment outside points (poetry's and hatch's virtualenvs, `pip install --user -e .`),
    and that environment may be one planloop cannot see (made later, or kept elsewhere). And
    each folder of the workspace that a .pth file of one it can see adds; the modules are
    PYTHON_START_NAMES and what the base pythons of those environments import at start.
    """
    folders = [root, root / "src"]
    names = set(PYTHON_START_NAMES)
    for prefix in outside_environments(root, environ):
        if os.path.isfile(prefix / VENV_CONFIG_NAME):
            names |= interpreter_start_imports(prefix)
        for site in site_folders_of(prefix):
            with contextlib.suppress(OSError), os.scandir(site) as entries:
                pth_files = sorted(Path(e.path) for e in entries if e.name.endswith(".pth"))
            for pth in pth_files[:MAX_BASE_START_FILES]:
                for line in pth_lines(_read(pth)):
                    if line.startswith(("#", "import ", "import\t")) or not line.strip():
                        continue  # what `site` skips, or runs rather than adds
                    folder = Path(os.path.normpath(site / line.rstrip()))
                    for version in dict.fromkeys((folder, Path(os.path.realpath(folder)))):
                        if version != root and version.is_relative_to(root):
                            folders.append(version)
    stdlib = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
    return list(dict.fromkeys(folders)), frozenset(names - stdlib)


def python_path_start_files(root: Path, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The start-up modules of each of `python_path_folders`, as python would import them:
    `name.py`, a `name/` package, a sourceless `name.pyc`, and any other existing entry it
    would import (an extension module, a compiled copy in `__pycache__`, which python runs in
    place of the source it matches)."""
    folders, names = python_path_folders(root, environ)
    return start_files_in(folders, names)


def start_files_in(
    folders: Iterable[Path], names: Iterable[str] = PYTHON_START_NAMES
) -> list[Path]:
    """Where python, with `folders` on its path, would find the start-up modules `names`:
    `name.py`, a `name/` package, a sourceless `name.pyc`, and the other entries there now that
    it would import as one (an extension module, a copy in `__pycache__`)."""
    found: list[Path] = []
    names = frozenset(names)
    for folder in folders:
        for name in sorted(names):
            found += [folder / name, folder / f"{name}.py", folder / f"{name}.pyc"]
        for cached in (folder, folder / "__pycache__"):
            with contextlib.suppress(OSError), os.scandir(cached) as entries:
                found += [Path(e.path) for e in entries if is_module_entry(e.name, names)]
    return list(dict.fromkeys(found))


def imported_modules(line: str) -> set[str]:
    """The top-level modules an `import` line of a .pth file imports, as `site` runs it
    (`exec`): `import a, b.c`, `from a import b`, `__import__('a')`,
    `importlib.import_module('a')`. A line python cannot parse runs nothing."""
    try:
        tree = ast.parse(line)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
        elif isinstance(node, ast.Call) and node.args:
            function = node.func
            called = getattr(function, "id", None) or getattr(function, "attr", None)
            first = node.args[0]
            if called in ("__import__", "import_module") and isinstance(first, ast.Constant):
                names.add(str(first.value))
    return {name.split(".")[0] for name in names if name}


def is_module_entry(name: str, modules: Iterable[str]) -> bool:
    """Whether the folder entry `name` is one python may import as one of `modules`: a
    package (or namespace) folder, its source, its compiled file or an extension module
    (`_virtualenv`, `_virtualenv.py`, `_virtualenv.pyc`, `_virtualenv.cpython-312-....so`)."""
    stem = name.split(".")[0]
    return stem in modules and (name == stem or name.endswith((".py", ".pyc", ".so")))


def _module_files(folder: Path, modules: frozenset[str]) -> list[Path]:
    """The existing files in `folder` that python would import as one of `modules`, those of
    a package folder and the compiled ones in `__pycache__` included."""
    files: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            children = [
                Path(entry.path)
                for entry in entries
                if is_module_entry(entry.name, modules) or entry.name == "__pycache__"
            ]
    except (OSError, ValueError):  # (ValueError: a NUL in a `.pth` line names no folder)
        return files
    for child in children:
        if child.name == "__pycache__":
            with contextlib.suppress(OSError), os.scandir(child) as cached:
                files += [Path(e.path) for e in cached if is_module_entry(e.name, modules)]
        elif os.path.isdir(child) and not os.path.islink(child):
            for parent, _folders, names in itertools.islice(os.walk(child), 100):
                files += [Path(parent, name) for name in names][:MAX_START_PACKAGE_FILES]
        else:
            files.append(child)
    return files[: MAX_START_PACKAGE_FILES * 4]


def python_start_reason(candidate: Path, package_roots: Iterable[Path]) -> str | None:
    """For the file tools: PYTHON_START_REASON when python would import `candidate` at every
    start (`python_start_modules`), whether it exists yet or not; else None."""
    for folder, modules in python_start_modules(package_roots):
        for base in dict.fromkeys((folder, Path(os.path.realpath(folder)))):
            if candidate == base or not candidate.is_relative_to(base):
                continue
            parts = candidate.relative_to(base).parts
            if is_module_entry(parts[0], modules):
                return PYTHON_START_REASON
            if parts[0] == "__pycache__" and len(parts) > 1 and is_module_entry(parts[1], modules):
                return PYTHON_START_REASON
    return None


def venv_reason(root: Path, candidate: Path) -> str | None:
    """Why a file tool's write to `candidate` makes or changes a virtualenv, or None: any
    pyvenv.cfg (writing one turns its folder into a virtualenv, whose bin/ may already hold a
    planted python), and anything in the bin/ of a virtualenv or of a folder named like one.
    Asked by the path alone, so that a venv the scan did not reach counts too."""
    if candidate.name == VENV_CONFIG_NAME:
        return VENV_CONFIG_REASON
    for folder in candidate.parents:
        if folder == root or not folder.is_relative_to(root):
            break
        if folder.name != "bin":
            continue
        if folder.parent.name in VENV_FOLDER_NAMES:
            return VENV_REASON
        if os.path.lexists(folder.parent / VENV_CONFIG_NAME):
            return VENV_REASON
    return None


def protected_reason(
    root: Path,
    candidate: Path,
    envrcs: Iterable[Path] = (),
    venvs: Iterable[Path] | None = None,
) -> str | None:
    """Why a write to `candidate` (a path in the workspace) is one to ask about, or None;
    `envrcs`, `venvs`: those a scan found in the workspace (the `.envrc` files above and on the
    way always count)."""
    if any(is_python_start_file(path) for path in (candidate, *candidate.parents)):
        return PYTHON_START_REASON
    if candidate.is_relative_to(root) and (why := venv_reason(root, candidate)):
        return why
    named = run_later(root, envrcs, below=candidate, venvs=venvs)
    named += held_when_there(root, envrcs, candidate)
    for path, why in named:
        if candidate == path or candidate.is_relative_to(path):
            return why
    return None
