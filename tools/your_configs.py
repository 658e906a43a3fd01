"""Workspace paths that your own configuration, or your environment, names by a path.

Programs of yours read their own configuration at start and run what it names: vim a
`source ~/proj/vim/local.vim` in ~/.vimrc, tmux a `run-shell`, systemd an `ExecStart=`, ssh a
`ProxyCommand`, starship a `[custom]` command, your shell a PATH folder it is told about by a
plain `export PATH="$HOME/proj/tools:$PATH"`. Each format has its own words for "run this", and
new ones keep coming; what they share is that the file is named by its path. So this module
does not read any format: a path in the workspace that your configuration names, wherever it
stands, is one something of yours may run later, and is held while it exists (and reported when
a command makes it: `held_when_there` in tools/shell_config.py).

    your configuration  dot files in your home (~/.vimrc, ~/.tmux.conf, ~/.direnvrc), the files
                        directly in its dot folders (~/.ssh/config, ~/.vim/vimrc) and the small
                        text files under ~/.config ($XDG_CONFIG_HOME): read once per run, since
                        your home is trusted and no sandboxed command can write it
    your environment    every variable's value (VIMINIT="source ~/proj/vim/init.vim", PHPRC,
                        BROWSER, DOTNET_STARTUP_HOOKS, ...), besides CODE_VARIABLES' stricter rule
    an .envrc           a path it names from its own folder, `$PWD/tools` or `$(pwd)/tools`, also
                        in an assignment (`export PATH="$PWD/tools:$PATH"`): what direnv puts
                        into your shell's environment when it loads the .envrc

A path is recognised by how it is written: absolute, or from your home (`~/`, `$HOME/`,
`${HOME}/`, systemd's `%h/`), or, in an .envrc, from its folder; it ends at a space, a quote or
one of the characters that separate a path from what follows in the shell, TOML, Lua, vim,
tmux or JSON (`:`, `;`, `,`, brackets). The workspace itself is never one (`cd ~/proj`,
`safe.directory`), nor a folder a `cd` enters.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from tools.environment import CODE_VARIABLES

# How much of your configuration is read, at most: enough for a few hundred dot files and the
# settings of the programs under ~/.config, not an editor's caches that happen to lie there.
MAX_CONFIG_FILES = 2000
MAX_CONFIG_FILE_BYTES = 256 * 1024
MAX_CONFIG_DEPTH = 4  # ~/.config/systemd/user/default.target.wants/x.service
# Files and folders that programs write for themselves, not configuration you wrote: histories,
# recent-file lists, caches, logs and stores list the files you last opened in the workspace
# (`vim ~/proj/src/app.py` in ~/.bash_history, ~/.viminfo, an editor's storage.json), and
# holding those would keep the workspace's own sources from being edited. Matched in lower case
# against each name on the way.
NOT_CONFIGURATION = re.compile(
    r"hist|hsts?$|viminfo|shada|recent|cache|log$|logs$|\.log\b|state|storage|session"
    r"|backup|trash|\.lock$|\.db$|\.sqlite|\.vscdb|known_hosts|zcompdump|xsession-errors"
)
# Variables of your environment whose value names a workspace path that nothing runs from:
# where a shell is or was (PWD, OLDPWD; `_` is the last program it ran), the active virtualenv
# (its bin/ and pyvenv.cfg are held on their own, the rest is where pip installs), and scratch
# and cache folders programs write to (`*CACHE*` anywhere in the name).
NOT_NAMING_CODE = ("PWD", "OLDPWD", "_", "VIRTUAL_ENV", "TMPDIR", "TMP", "TEMP", "TEMPDIR")
# Where a path ends: a space, quotes, and what separates a path from its neighbours in the
# shell (`:` of PATH, `;`, `&`, `|`, redirections), TOML, JSON, Lua and vim (`,`, brackets, `=`).
PATH_END = r"""\s'"`:;,()\[\]{}<>|&=$*?\\"""
# A path that starts inside a word (`a/b`, the second slash of `//`, `file:///x`) is no path.
NOT_A_START = r"(?<![\w.~/$%\\])"
HOME_SPELLINGS = (r"~", r"\$HOME", r"\$\{HOME\}", r"%h")
ENVRC_FOLDER_SPELLINGS = (r"\$PWD", r"\$\{PWD\}", r"\$\(pwd(?: -[LP])?\)", r"`pwd(?: -[LP])?`")
# A folder entered is where you stand, not code: `alias p='cd ~/proj/src'`.
ENTERED = re.compile(r"\b(?:cd|pushd)\s+['\"]?$")


def _pattern(spellings: Iterable[str]) -> re.Pattern[str]:
    """A path that starts with one of `spellings` (then `/`), or with `/` itself."""
    starts = "|".join(spellings)
    return re.compile(
        NOT_A_START + rf"(?:(?P<start>{starts})(?=/)|(?=/(?!/)))(?P<rest>/[^{PATH_END}]*)"
    )


HOME_PATHS = _pattern(HOME_SPELLINGS)
ENVRC_PATHS = _pattern((*HOME_SPELLINGS, *ENVRC_FOLDER_SPELLINGS))


def paths_named_in(text: str, root: Path, home: Path, here: Path | None = None) -> list[Path]:
    """Each path inside the workspace `root` (not `root` itself) that `text` names by a path
    (see the module's doc); `here` is the folder `$PWD` stands for, in an .envrc."""
    pattern = HOME_PATHS if here is None else ENVRC_PATHS
    if here is None:
        # Any path into the workspace spells the workspace's own name, however it is written
        # (`~/proj/x`, `/home/me/./proj/x`): only the lines that hold it are read further,
        # which keeps reading a few hundred files to a few milliseconds.
        if root.name not in text:
            return []
        text = "\n".join(line for line in text.splitlines() if root.name in line)
    inside = str(root).rstrip("/") + "/"
    found: list[Path] = []
    for match in pattern.finditer(text):
        start, rest = match.group("start"), match.group("rest").rstrip(".")
        if start is None:
            base = ""  # normpath keeps a leading "//"
        elif start in ("~", "$HOME", "${HOME}", "%h"):
            base = str(home)
        else:
            base = str(here)
        named = os.path.normpath(base + rest)
        if not named.startswith(inside):
            continue
        if ENTERED.search(text, max(0, match.start() - 12), match.start()):
            continue
        path = Path(named)
        if path not in found:
            found.append(path)
    return found


def config_files(home: Path, config_home: Path, root: Path | None = None) -> list[Path]:
    """Your configuration files (see the module's doc), at most MAX_CONFIG_FILES: the dot
    files in your home and in its dot folders first, then ~/.config's, shallowest first. The
    workspace `root` is not read, when it lies there: commands write it, it is not yours."""
    found: list[str] = []
    skipped = "" if root is None else str(root).rstrip("/") + "/"

    def scan(folder: str, dots_only: bool) -> list[str]:
        subfolders: list[str] = []
        if skipped and (os.path.realpath(folder) + "/").startswith(skipped):
            return subfolders
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = entry.name
                    if dots_only and not name.startswith("."):
                        continue
                    if NOT_CONFIGURATION.search(name.lower()):
                        continue
                    try:
                        if entry.is_file() and entry.stat().st_size <= MAX_CONFIG_FILE_BYTES:
                            found.append(entry.path)
                        elif entry.is_dir(follow_symlinks=False):
                            subfolders.append(entry.path)
                    except OSError:
                        continue
        except OSError:
            pass
        return subfolders

    configs = os.path.normpath(config_home)
    for folder in scan(str(home), dots_only=True):
        if folder != configs:
            scan(folder, dots_only=False)  # ~/.ssh/config, ~/.vim/vimrc: one level only
    folders = [configs]
    for _depth in range(MAX_CONFIG_DEPTH):
        deeper: list[str] = []
        for folder in folders:
            if len(found) >= MAX_CONFIG_FILES:
                break
            deeper += scan(folder, dots_only=False)
        folders = deeper
    return [Path(path) for path in list(dict.fromkeys(found))[:MAX_CONFIG_FILES]]


def _read(path: Path) -> str:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_CONFIG_FILE_BYTES)
    except OSError:
        return ""
    return "" if b"\0" in data else data.decode("utf-8", "replace")


@functools.lru_cache(maxsize=8)
def _named_by_configs(root: Path, home: Path, config_home: Path) -> tuple[Path, ...]:
    found: list[Path] = []
    for path in config_files(home, config_home, root):
        found += paths_named_in(_read(path), root, home)
    return tuple(dict.fromkeys(found))


def named_by_your_configs(root: Path) -> list[Path]:
    """Each path in the workspace your configuration files name (read once per run)."""
    home = Path(os.path.expanduser("~"))
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    found: list[Path] = []
    for base in dict.fromkeys((home, Path(os.path.realpath(home)))):
        found += _named_by_configs(Path(root), base, config_home)
    return list(dict.fromkeys(found))


def is_code_free_variable(name: str) -> bool:
    """Whether the variable `name` names nothing that runs (NOT_NAMING_CODE)."""
    return name in NOT_NAMING_CODE or "CACHE" in name.upper()


def named_by_your_environment(root: Path, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """Each path in the workspace that a variable of your environment names."""
    home = Path(os.path.expanduser("~"))
    # PATH and CODE_VARIABLES have a stricter rule of their own, with their own reason: what
    # they name is held even when it does not exist yet, by making commands ask.
    stricter = {"PATH", *(variable for variable, _, _ in CODE_VARIABLES)}
    found: list[Path] = []
    for name, value in environ.items():
        if name not in stricter and not is_code_free_variable(name):
            found += paths_named_in(value, Path(root), home)
    return list(dict.fromkeys(found))


ENVRC_ASSIGNMENT = re.compile(r"(?:export\s+|local\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)\+?=")


def named_by_envrc(envrc: Path, root: Path, text: str) -> list[Path]:
    """Each path in the workspace the .envrc `text` names by a path, `$PWD`-relative ones
    included (see the module's doc); an assignment to a variable of NOT_NAMING_CODE is left
    out, as it would be from your environment once direnv loaded it."""
    home = Path(os.path.expanduser("~"))
    found: list[Path] = []
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*", "", line)
        for piece in re.split(r"[;&|]", line):
            assigned = ENVRC_ASSIGNMENT.match(piece.strip())
            if assigned and is_code_free_variable(assigned.group(1)):
                continue
            found += paths_named_in(piece, Path(root), home, here=envrc.parent)
    return list(dict.fromkeys(found))
