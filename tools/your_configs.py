"""Workspace paths that your own configuration, or your environment, names by a path.

Programs of yours read their own configuration at start and run what it names: vim a
`source ~/proj/vim/local.vim` in ~/.vimrc, tmux a `run-shell`, systemd an `ExecStart=`, ssh a
`ProxyCommand`, starship a `[custom]` command, your shell a PATH folder it is told about by a
plain `export PATH="$HOME/proj/tools:$PATH"`. Each format has its own words for "run this", and
new ones keep coming; what they share is that the file is named by its path. So this module
does not read any format: a path in the workspace that your configuration names, wherever it
stands, is one something of yours may run later, and is held while it exists (and reported when
a command makes it: `held_when_there` in tools/shell_config.py).

    your configuration  dot files in your home (~/.vimrc, ~/.tmux.conf, ~/.direnvrc) and the
                        small text files in its dot folders (~/.ssh/config.d/x, ~/.vim/plugin/x,
                        ~/.local/share/applications/x.desktop) and ~/.config ($XDG_CONFIG_HOME),
                        a few folders down, and what vim and neovim load from their folders
                        there and from their package plugins, however deep, each part within
                        bounds of its own, through links (GNU stow's ~/.vim -> dotfiles/vim):
                        read once per run, since your home is trusted and no sandboxed command
                        can write it
    your environment    every variable's value (VIMINIT="source ~/proj/vim/init.vim", PHPRC,
                        BROWSER, DOTNET_STARTUP_HOOKS, ...), besides CODE_VARIABLES' stricter rule
    an .envrc           a path it names from its own folder, `$PWD/tools` or `$(pwd)/tools`, also
                        in an assignment (`export PATH="$PWD/tools:$PATH"`), or relatively in a
                        variable of CODE_VARIABLES (`export PYTHONPATH=lib`) or
                        ENVRC_RELATIVE_VARIABLES (`export PATH=".local/bin:$PATH"`,
                        `export GIT_CONFIG_GLOBAL=.gitconfig.local`): what direnv puts
                        into your shell's environment when it loads the .envrc (and the
                        variables of a .env its `dotenv` loads)

A path is recognised by how it is written: absolute, or from your home (`~/`, `$HOME/`,
`${HOME}/`, systemd's `%h/`), or, in an .envrc, from its folder, or, in your configuration, from
a variable whose value is a path in the workspace or above it, your environment's or one the
same file sets plainly (`export APP=~/proj` then `. "$APP/scripts/aliases.sh"`, vim's `let $APP
= $HOME . '/proj'`); it ends at a space, a quote or one of the characters that separate a path
from what follows in the shell, TOML, Lua, vim, tmux or JSON (`:`, `;`, `,`, brackets), except
where the workspace's own name holds one (`~/My\\ Project/x`, `"~/My Project/x"`). It is
compared by where it leads (`~/code/proj/x` with `~/code -> /data`). A path with a wildcard
(`*`, `?`, `[...]`) is a pattern, as ssh's `Include`, tmux's `source-file` and vim's runtimepath
take it: it names the files it matches in the workspace now (`Include ~/dotfiles/*/ssh.conf`,
`Include ~/*/ssh_config`), so one a command makes is reported (the file tools ask before making
one), and the folder it lies in, when that is in the workspace (`Include
~/dotfiles/ssh/extra-*.conf` holds ssh/). ssh reads a relative `Include` from ~/.ssh. The
workspace itself is never one (`cd ~/proj`, `safe.directory`), nor a folder a `cd` enters,
except as a folder vim or neovim loads code from (`set rtp+=~/proj`, `Plug '~/proj'`, `set
rtp+=~/projects/*`), or as one of the plugin folders of a folder named as holding them (`set
packpath+=~/projects`, lazy.nvim's `dev = { path = "~/projects" }`: PLUGIN_FOLDERS_IN): then
what they load from it is (RUNTIME_SUBFOLDERS), and so it is from each folder of the workspace
such a pattern matches (`set rtp+=~/projects/*` run in ~/projects), not the folder whole.
"""

from __future__ import annotations

import fnmatch
import functools
import glob
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from tools.environment import (
    CODE_VARIABLES,
    FOLDERS,
    NIX_SEARCH_PATH,
    ONE,
    PROGRAM,
    WordTooLong,
    code_paths_of,
    shell_words,
    variable_paths,
)
from tools.homes import your_homes

CODE_VARIABLE_NAMES = frozenset(variable for variable, _, _ in CODE_VARIABLES)

# How much of each part of your configuration (`config_file_parts`) is read, at most: enough
# for a few hundred dot files and the settings of the programs under ~/.config, not an editor's
# caches that happen to lie there. Each part has bounds of its own, so that a ~/.config of
# thousands of files (a browser's or an IDE's) does not leave ~/.vim/plugin or ~/.bashrc.d unread.
MAX_CONFIG_FILES = 2000
MAX_CONFIG_FILE_BYTES = 256 * 1024
MAX_CONFIG_BYTES = 16 * 1024 * 1024  # a part's files together: about a second at the worst
# Folders below your home that are read: ~/.config/systemd/user/default.target.wants/x.service
# and ~/.local/share/applications/x.desktop are four down. ~/.config, where programs keep only
# their settings, one further: kickstart.nvim's plugin specs are
# ~/.config/nvim/lua/custom/plugins/init.lua (the other dot folders are often whole programs:
# ~/.pyenv's plugins are a thousand files four down). Links are followed (GNU stow and most
# dotfile managers make ~/.vim and ~/.config/nvim links), each folder is read once.
MAX_CONFIG_DEPTH = 4
MAX_XDG_CONFIG_DEPTH = 5
# Entries looked at, at most, in all folders of a part together: what keeps reading a home with
# large program-owned trees (~/.pyenv, ~/.rustup, ~/.m2) to a few milliseconds at start. The
# walk is breadth first, so what is cut is the deepest, never a dot file or ~/.config's top.
MAX_CONFIG_ENTRIES = 20000
# vim's and neovim's folders in your home (besides nvim/ in ~/.config), whose RUNTIME_SUBFOLDERS
# they load code from, and those of each package plugin there, however deep: a plugin of your
# own at ~/.vim/pack/me/start/local/plugin/x.vim is six folders down, past MAX_CONFIG_DEPTH.
EDITOR_FOLDERS = (".vim", ".local/share/nvim/site")
# Files that programs write for themselves, not configuration you wrote: histories, recent-file
# lists, logs, editors' stores, swap and backup copies list the files you last opened in the
# workspace (`vim ~/proj/src/app.py` in ~/.bash_history, ~/.viminfo, an editor's
# storage.json), and holding those would keep the workspace's own sources from being edited.
# Matched against a file's own name in lower case, by how such files are named (not by a word
# anywhere on the way: ~/.config/systemd/user/backup.service and lxsession's autostart are
# configuration that runs programs).
PROGRAM_WRITTEN_FILE = re.compile(
    r"hist(?:ory|file)?(?:\.\w+)?$|^\.lesshst$|hsts$"  # .bash_history, .netrwhist, .wget-hsts
    r"|viminfo|\.shada$|recent"  # vim's and nvim's marks, recently-used.xbel, recentf
    r"|\.log(?:\.\d+)?$|xsession-errors|\.lock$"
    r"|\.db$|\.sqlite3?$|\.vscdb$|^storage\.json$|known_hosts|zcompdump"
    r"|\.sw[a-p]$|~$|\.bak$|\.orig$"  # vim's swap files, editors' backup copies
    r"|^session\.|\.session$|_session$"  # a saved editor session lists the files it had open
)
# Folders that hold what programs store for themselves (the same reason), or whole trees of
# downloaded code and data no one writes paths of theirs into: matched against the folder's own
# name in lower case.
PROGRAM_STORE_FOLDER = re.compile(
    r"(?<!c)cache"  # ~/.cache, GPUCache, __pycache__, ~/.npm/_cacache; not ccache, sccache:
    # their folders hold a config (`prefix_command`, `compiler_check`) that names a program
    r"|^(?:history|logs?|state|backups?|swap|undo|sessions|trash|crashpad)$"
    r"|storage$"  # VS Code's globalStorage and workspaceStorage, Firefox's storage
    r"|^\.(?:git|hg|svn)$|^node_modules$|^(?:site|dist)-packages$"
    r"|^(?:versions|toolchains|registry|repository)$"  # ~/.pyenv, ~/.rustup, ~/.cargo, ~/.m2
)
# Variables of your environment whose value names a workspace path that nothing runs from:
# where a shell is or was (PWD, OLDPWD; `_` is the last program it ran), the active virtualenv
# (its bin/ and pyvenv.cfg are held on their own, the rest is where pip installs), and scratch
# folders. Besides these, a folder that a cache's variable names (`*CACHE*` in the name): see
# `names_code`.
NOT_NAMING_CODE = ("PWD", "OLDPWD", "_", "VIRTUAL_ENV", "TMPDIR", "TMP", "TEMP", "TEMPDIR")
# Where a path ends: a space, quotes, and what separates a path from its neighbours in the
# shell (`:` of PATH, `;`, `&`, `|`, redirections), TOML, JSON, Lua and vim (`,`, brackets, `=`).
# A wildcard goes on: the path is a pattern (see the module's doc), and so does a `[...]` class.
PATH_END = r"""\s'"`:;,()\[\]{}<>|&=$\\"""
PATH_PART = rf"""(?:[^{PATH_END}]|\[[^\]/\s'"]+\])"""
# A path that starts inside a word (`a/b`, the second slash of `//`, `file:///x`) is no path,
# nor one inside a pattern (`**/build` of an ignore list is relative).
NOT_A_START = r"(?<![\w.~/$%\\*?])"
# What makes a part of a path a pattern: ssh's Include, tmux's source-file, vim's runtimepath and
# `source` expand these.
WILDCARD = re.compile(r"[*?[]")
# A line that may name something in the workspace by a folder above it, so without the
# workspace's name: a pattern's part with a wildcard (`Include ~/*/ssh_config`), or a folder
# that holds plugin folders (PLUGIN_FOLDERS_IN). Each begins with a plain character, which
# keeps a search through a large file quick.
NAMED_FROM_ABOVE = r"""/[^/\s'"]*[*?[]|packpath|pp[+^-]?=|dev\s*=\s*\{"""
NAMED_FROM_ABOVE_BYTES = re.compile(NAMED_FROM_ABOVE.encode())
HOME_SPELLINGS = (r"~", r"\$HOME", r"\$\{HOME\}", r"%h")
ENVRC_FOLDER_SPELLINGS = (r"\$PWD", r"\$\{PWD\}", r"\$\(pwd(?: -[LP])?\)", r"`pwd(?: -[LP])?`")
# Words before the workspace itself, on a line, that make it a folder vim or neovim loads code
# from at every start: the runtimepath and packpath (`set rtp+=~/proj`), vim-plug's
# `Plug '~/proj'`, Vundle's `Plugin`, NeoBundle's, packer's `use '~/proj'` and lazy.nvim's
# `dir = "~/proj"`. Any other mention of the workspace itself (`cd ~/proj`, git's
# `safe.directory`) names no code.
RUNTIME_FOLDER_WORDS = re.compile(
    r"\b(?:runtimepath|rtp|packpath|pp|Plug|Plugin|NeoBundle\w*|use|dir)\b"
)
# Of those, vim's options, whose folders may be patterns (`set rtp+=~/projects/*`): each folder
# they match is one vim loads code from.
RUNTIME_PATH_WORDS = re.compile(r"\b(?:runtimepath|rtp|packpath|pp)\b")
# What vim and neovim load from such a folder: plugin/ and ftdetect/ (and filetype.vim) at
# every start, the others when a file type, a colour scheme, a `require()`, a `:packadd`, a
# spell language (spell/en.vim), vim9's `import` or neovim's `vim.lsp.enable()` asks for them,
# and the files at its top that `:filetype plugin indent on` (and `off`) run. These are held, not
# the workspace: its other files are the plugin's tests and docs.
RUNTIME_SUBFOLDERS = (
    *("plugin", "ftplugin", "after", "autoload", "lua", "ftdetect", "syntax", "indent"),
    *("colors", "compiler", "keymap", "pack", "rplugin", "parser", "spell", "import", "lsp"),
    *("filetype.vim", "filetype.lua", "scripts.vim", "menu.vim"),
    *("ftplugin.vim", "ftplugin.lua", "indent.vim", "indent.lua"),
    *("ftoff.vim", "ftplugof.vim", "indoff.vim"),
)
# Words before a folder, on a line, that make it one that holds plugin folders, with the
# patterns of those in it: vim's packages (`set packpath+=~/projects`: pack/*/start/* are loaded
# at every start, pack/*/opt/* at `:packadd`) and lazy.nvim's dev mode (`dev = { path =
# "~/projects" }`: a spec marked `dev = true` is loaded from the folder of its name there).
PLUGIN_FOLDERS_IN = (
    (re.compile(r"\b(?:packpath|pp)\b"), ("pack/*/start/*", "pack/*/opt/*")),
    (re.compile(r"\bdev = \{ path ="), ("*",)),
)
# How far before a folder, on its line, those words are looked for, in characters.
WORDS_BEFORE = 100
# lazy.nvim's `dev` table, up to its `path`: often over several lines, and read as one
# (`dev = { path =`) so that the words stand on the path's line.
LAZY_DEV_PATH = re.compile(r"dev\s*=\s*\{(?:[^{}]|\{[^{}]*\})*?\bpath\s*=")
# A folder entered is where you stand, not code: `alias p='cd ~/proj/src'`.
ENTERED = re.compile(r"\b(?:cd|pushd)\s+['\"]?$")


def _pattern(spellings: Iterable[str]) -> re.Pattern[str]:
    """A path that starts with one of `spellings` (then `/`), or with `/` itself."""
    starts = "|".join(spellings)
    return re.compile(
        NOT_A_START + rf"(?:(?P<start>{starts})(?=/)|(?=/(?!/)))(?P<rest>/{PATH_PART}*)"
    )


# A path written from a variable whose value is a path (`. "$APP/scripts/aliases.sh"`, tmux's
# `source-file "${APP}/dev.conf"`): your shell and tmux put its value in, so it is read as that
# path. The value is your environment's, where it names a folder at, in or above the workspace
# (`_path_variables`), or a plain assignment's on a line of the same file that names the
# workspace (`export APP=~/code/app`).
PATH_ASSIGNMENT = re.compile(
    r"(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)="
    r"""(["']?)((?:~|\$HOME|\$\{HOME\})?/[^\s"';&|:]*)\2"""
)


def _variable_marks(variables: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """How the names of `variables` are written in a path: `$APP`, `${APP}`, lua's `vim.env.APP`."""
    return tuple(
        mark for name, _ in variables for mark in (f"${name}", f"${{{name}}}", f"vim.env.{name}")
    )


def _with_values(text: str, variables: Iterable[tuple[str, str]]) -> str:
    """`text` with each of `variables` (name, value) put in where a path is written from it."""
    values = dict(variables)
    names = "|".join(map(re.escape, values))
    # vim joins a path on with `.` or `..` (`source $APP . '/dev.vim'`), neovim's lua with
    # `..` (`dofile(vim.env.APP .. "/dev.lua")`): the value takes the join and the quote too.
    # (Not where lua sets it: `vim.env.APP = ...` names no path.)
    joined = r"""(?:\s*\.\.?\s*["'](?=/))?"""
    return re.sub(
        rf"(?:\$\{{({names})\}}|\$({names})\b|\bvim\.env\.({names})\b(?!\s*=[^=])){joined}",
        lambda match: values[match.group(1) or match.group(2) or match.group(3)],
        text,
    )


# Your home quoted on its own before the rest of a path (`APP="$HOME"/code/app`), which the
# shell joins into one word.
QUOTED_HOME = re.compile(r"""(["'])(~|\$HOME|\$\{HOME\})\1(?=/)""")


# vim's and neovim's own ways to set a variable your configs then write paths from (`let $APP
# = $HOME . '/code/app'`, `let $APP = expand('~/code/app')`, lua's `vim.env.APP =
# vim.env.HOME .. "/code/app"`): vim puts its value in `source $APP/...` as the shell does.
EDITOR_ASSIGNMENT = re.compile(
    r"(?m)^[ \t:]*(?:let[ \t]+\$|vim\.env\.)([A-Za-z_]\w*)[ \t]*=[ \t]*([^\n]*?)[ \t]*$"
)
# One piece of such a value, and the `.` or `..` that joins it to the next: a quoted string,
# your home, or expand() of a quoted string.
EDITOR_VALUE_PIECE = re.compile(
    r"""(?:'([^'\n]*)'|"([^"\\\n]*)"|(\$HOME|vim\.env\.HOME|os\.getenv\(["']HOME["']\))"""
    r"""|(?:vim\.fn\.)?expand\(\s*(?:'([^'\n]*)'|"([^"\\\n]*)")\s*\))\s*(\.\.?\s*|$)"""
)


def _editor_value(expression: str, home: Path) -> str | None:
    """The value of a vim or lua `expression` made of EDITOR_VALUE_PIECEs, with your home put
    in; None for one that holds anything else (a function, another variable)."""
    pieces: list[str] = []
    at = 0
    while at < len(expression):
        piece = EDITOR_VALUE_PIECE.match(expression, at)
        if piece is None or piece.end() == at:
            return None
        quoted = next((text for text in piece.group(1, 2, 4, 5) if text is not None), "")
        pieces.append(str(home) if piece.group(3) else quoted)
        at = piece.end()
        if not piece.group(6) and at < len(expression):
            return None
    return "".join(pieces) or None


def _plain_assignments(text: str, home: Path) -> Iterator[tuple[str, str]]:
    """(name, value) for each plain assignment of a path in `text`: a shell's (PATH_ASSIGNMENT,
    your home quoted on its own joined on) and vim's or lua's (EDITOR_ASSIGNMENT)."""
    for name, _quote, value in PATH_ASSIGNMENT.findall(QUOTED_HOME.sub(r"\2", text)):
        yield name, value
    if "$" in text or "vim.env." in text:
        for name, expression in EDITOR_ASSIGNMENT.findall(text):
            value = _editor_value(expression, home)
            if value and value.startswith(("/", "~/")):
                yield name, value


def _assigned_paths(lines: list[str], root: Path, home: Path) -> list[tuple[str, str]]:
    """The variables that plain assignments on `lines` set to a path at, in or above the
    workspace `root` (`export APP=~/code/app`, `CODE=~/code`, vim's `let $APP = ...`), with
    their values; not your home itself, nor `/`."""
    root_text = str(root).rstrip("/") or "/"
    resolved: dict[str, str] = {}
    found: list[tuple[str, str]] = []
    for line in lines:
        for name, value in _plain_assignments(line, home):
            path = re.sub(r"^(?:~|\$HOME|\$\{HOME\})(?=/)", lambda _: str(home), value)
            path = os.path.normpath(path)
            above = path not in ("/", str(home)) and (
                root_text.startswith(path + "/")
                or os.path.realpath(root).startswith(os.path.realpath(path) + "/")
            )
            if above or _rest_in(path, root_text, resolved) is not None:
                found.append((name, value))
    return found


HOME_PATHS = _pattern(HOME_SPELLINGS)
ENVRC_PATHS = _pattern((*HOME_SPELLINGS, *ENVRC_FOLDER_SPELLINGS))
# Characters a shell, vim or tmux line escapes with a backslash, in a name that holds them.
ESCAPED = re.compile(r"""([\s'"`\\()\[\]{}<>|&;$*?#!])""")


@functools.lru_cache(maxsize=8)
def _spelled_root(root: Path, home: Path) -> re.Pattern[str] | None:
    """For a workspace whose path holds a character that ends a path (`~/My Project`): the
    workspace as written, plain (`"~/My Project/x"`) or escaped (`~/My\\ Project/x`), from `/`
    or from your home, then the rest of a path in it, where an escaped character goes on."""
    if not re.search(f"[{PATH_END}]", str(root)):
        return None
    spellings = [str(root)]
    for base in dict.fromkeys((str(home), os.path.realpath(home))):
        if str(root).startswith(base.rstrip("/") + "/"):
            relative = str(root)[len(base.rstrip("/")) :]
            spellings += [start + relative for start in ("~", "$HOME", "${HOME}", "%h")]
    variants = {
        variant for spelling in spellings for variant in (spelling, ESCAPED.sub(r"\\\1", spelling))
    }
    starts = "|".join(map(re.escape, sorted(variants, key=len, reverse=True)))
    # In quotes, the path goes on to the closing quote (`"~/My Project/bin/tmux start"`).
    quoted = rf"""(?P<quote>["'])(?:{starts})(?P<quoted>/(?:(?!(?P=quote))[^\n])*)?(?P=quote)"""
    plain = rf"(?:{starts})(?P<rest>(?:/(?:[^{PATH_END}]|\\[^\n])*)*)(?![^{PATH_END}])"
    return re.compile(NOT_A_START + f"(?:{quoted}|{plain})")


@functools.lru_cache(maxsize=8)
def _root_words(root: Path, home: Path) -> tuple[str, ...]:
    """What any line that names a path in the workspace holds: a piece of the workspace's name
    that no escaping or quoting splits, or of the name of a link in your home that leads to the
    workspace (`~/work -> /data/proj`)."""
    names = [root.name]
    try:
        with os.scandir(home) as entries:
            for entry in entries:
                if entry.is_symlink() and os.path.realpath(entry.path) == str(root):
                    names.append(entry.name)
    except OSError:
        pass
    return tuple(
        dict.fromkeys(max(re.split(r"""[\s'"\\]""", name), key=len) or name for name in names)
    )


@functools.lru_cache(maxsize=8)
def _line_marks(words: tuple[str, ...]) -> re.Pattern[str]:
    """What a line that may name something in the workspace holds: one of `words`, or a folder
    above the workspace (NAMED_FROM_ABOVE)."""
    return re.compile("|".join([*map(re.escape, words), NAMED_FROM_ABOVE]))


def _lines_with(words: tuple[str, ...], text: str) -> list[str]:
    """The lines of `text` that hold one of `words` or name a folder above the workspace.

    The marks are searched for, and each one's line taken around it: a pattern that matches
    whole lines (`^.*(?:...).*$`) tries the marks at every character of every line, which made
    this the slowest part of reading your configs."""
    lines: list[str] = []
    taken_to = -1
    for mark in _line_marks(words).finditer(text):
        start = text.rfind("\n", 0, mark.start()) + 1
        if start <= taken_to:
            continue  # (on a line taken already)
        end = text.find("\n", mark.end())
        taken_to = len(text) if end < 0 else end
        lines.append(text[start:taken_to])
    return lines


def paths_named_in(text: str, root: Path, home: Path, here: Path | None = None) -> list[Path]:
    """Each path inside the workspace `root` (not `root` itself) that `text` names by a path
    (see the module's doc), compared by where it leads (`~/code/proj/x` with `~/code -> /data`),
    a pattern by the files it matches now; and, where `text` names `root` itself as a folder vim
    or neovim loads code from, what they load from it (RUNTIME_SUBFOLDERS). `here` is the folder
    `$PWD` stands for, in an .envrc; `root` is resolved."""
    return matching_now(_named_in(text, root, home, here), root)


def matching_now(named: Iterable[Path], root: Path, writing: Path | None = None) -> list[Path]:
    """`named` (`_named_in`), each pattern among them replaced by the files it matches in the
    workspace `root` now: one a command makes is new the next time this is asked. `writing`,
    a file the file tools are about to make, is one of them where a pattern matches it: they
    ask first."""
    found: list[Path] = []
    for path in named:
        rest = str(path.relative_to(root))
        if WILDCARD.search(rest):
            matches = glob.glob(os.path.join(glob.escape(str(root)), rest))
            found += sorted(map(Path, matches))
            if writing is not None and _matches(writing, path):
                found.append(writing)
        else:
            found.append(path)
    return list(dict.fromkeys(found))


def _matches(path: Path, pattern: Path) -> bool:
    """Whether `pattern` matches `path` part by part, as written or where `path` leads."""
    return any(
        len(version.parts) == len(pattern.parts)
        and all(map(_part_matches, version.parts, pattern.parts))
        for version in (path, Path(os.path.realpath(path)))
    )


def _part_matches(name: str, part: str) -> bool:
    """Whether the file name `name` is what the part `part` of a path names: itself (a folder
    named `proj[1]` too), or a match of its wildcards, which (in a shell, ssh, tmux and vim
    alike) match a leading dot only where `part` writes one."""
    if name == part or not WILDCARD.search(part):
        return name == part
    return fnmatch.fnmatchcase(name, part) and (part.startswith(".") or not name.startswith("."))


def _first_wildcard(parts: list[str]) -> int:
    """The index of the first of a path's `parts` that has a wildcard (their count: none)."""
    return next((at for at, part in enumerate(parts) if WILDCARD.search(part)), len(parts))


def _resolved(folder: str, resolved: dict[str, str]) -> str:
    """Where `folder` leads, looked up once per file read (`resolved`): a file names the same
    folders again and again."""
    if folder not in resolved:
        resolved[folder] = os.path.realpath(folder)
    return resolved[folder]


def _pattern_above(named: str, above: set[str], resolved: dict[str, str]) -> bool:
    """Whether `named`, a path on a line read for a folder above (NAMED_FROM_ABOVE) that does not
    spell the workspace's name, is a pattern whose fixed folder is one of the folders `above`
    the workspace (`~/*/ssh_config`), or leads to one: the only way it can name something in
    the workspace."""
    wildcard = WILDCARD.search(named)
    if wildcard is None:
        return False
    fixed = named[: named.rfind("/", 0, wildcard.start())] or "/"
    return fixed in above or _resolved(fixed, resolved) in above


def _rest_in(named: str, root: str, resolved: dict[str, str]) -> str | None:
    """What the path or pattern `named` (absolute, normalised) names in the workspace `root`:
    "" for `root` itself, else the rest below it (`ssh/extra-*.conf`, `ssh_config` for
    `~/*/ssh_config`); None where it names nothing there. Compared as written, then with the
    folders before its first wildcard resolved (`~/code/proj/x` with `~/code -> /data`), each
    once (`_resolved`)."""
    root_parts = root.rstrip("/").split("/")

    def rest_of(path: str) -> str | None:
        parts = path.split("/")
        if len(parts) < len(root_parts) or not all(map(_part_matches, root_parts, parts)):
            return None
        return "/".join(parts[len(root_parts) :])

    rest = rest_of(named)
    if rest is None:  # through a link to the workspace or above it
        parts = named.split("/")
        fixed = _first_wildcard(parts)
        leads_to = _resolved("/".join(parts[:fixed]) or "/", resolved).rstrip("/")
        rest = rest_of("/".join([leads_to, *parts[fixed:]]))
    return rest


def _plugin_folders_below(line: str) -> tuple[str, ...]:
    """The patterns of the plugin folders in the folder that `line` (up to it) names as one
    that holds them (PLUGIN_FOLDERS_IN); none for any other folder."""
    for words_before, folders in PLUGIN_FOLDERS_IN:
        if words_before.search(line):
            return folders
    return ()


def _named_in(
    text: str,
    root: Path,
    home: Path,
    here: Path | None = None,
    variables: tuple[tuple[str, str], ...] = (),
) -> list[Path]:
    """What `paths_named_in` returns, with each pattern as written from the workspace on
    (`<root>/*/ssh.conf`): what it matches changes as commands run, the text does not. In your
    configuration (`here` None), a path written from one of `variables` (`_path_variables`), or
    from a variable the text sets to a path in the workspace, is read with its value put in."""
    pattern = HOME_PATHS if here is None else ENVRC_PATHS
    if here is None:
        # Any path into the workspace spells the workspace's own name, however it is written
        # (`~/proj/x`, `/home/me/./proj/x`), or the name of a link to it, or of a variable
        # whose value leads there, and a slash, or names a folder above it (NAMED_FROM_ABOVE):
        # only the lines that hold both are read further, which keeps reading a few hundred
        # files to a few milliseconds.
        words = _root_words(root, home)
        marks = words + _variable_marks(variables)
        if not any(mark in text for mark in marks) and not re.search(NAMED_FROM_ABOVE, text):
            return []
        if "dev" in text:
            text = LAZY_DEV_PATH.sub("dev = { path =", text)
        lines = _lines_with(marks, text)
        # (from any line: one that sets a folder above the workspace does not spell its name)
        assigned = _assigned_paths([text], root, home) if "=" in text else []
        if assigned:
            variables = (*variables, *assigned)
            lines = _lines_with(words + _variable_marks(variables), text)
        text = "\n".join(lines)
        if variables:
            # (before the lines without a path are left out: `set rtp+=$APP` names one)
            text = _with_values(text, variables)
        text = "\n".join(line for line in text.split("\n") if "/" in line)
    root_text = str(root).rstrip("/") or "/"
    resolved: dict[str, str] = {}
    above = {str(folder) for folder in root.parents}
    # (where, the path or pattern, whether it is a plugin folder vim or neovim loads from)
    named_at: list[tuple[int, str, bool]] = []
    for match in pattern.finditer(text):
        start, rest = match.group("start"), match.group("rest").rstrip(".")
        if start is None:
            base = ""  # normpath keeps a leading "//"
        elif start in ("~", "$HOME", "${HOME}", "%h"):
            base = str(home)
        else:
            base = str(here)
        named = os.path.normpath(base + rest)
        # The words that make a folder one that holds plugin folders stand just before it on
        # its line: what is further back is not read again for each path of a long line (a
        # minified script's).
        at = match.start()
        window = max(0, at - WORDS_BEFORE)
        words_before = text[max(window, text.rfind("\n", window, at) + 1) : at]
        plugin_folders = [f"{named}/{below}" for below in _plugin_folders_below(words_before)]
        for candidate, plugin_folder in [(named, False), *((p, True) for p in plugin_folders)]:
            # A line read for a folder above names other paths too: one that does not spell
            # the workspace's name names nothing there, but for a pattern above it.
            spells_workspace = here is not None or any(word in candidate for word in words)
            if spells_workspace or _pattern_above(candidate, above, resolved):
                named_at.append((at, candidate, plugin_folder))
    spelled = _spelled_root(root, home)
    if spelled is not None:
        for match in spelled.finditer(text):
            if match.group("quote"):
                rest = match.group("quoted") or ""
            else:
                rest = re.sub(r"\\(.)", r"\1", match.group("rest")).rstrip(".")
            named_at.append((match.start(), os.path.normpath(root_text + rest), False))
    found: list[Path] = []
    for at, named, plugin_folder in named_at:
        rest = _rest_in(named, root_text, resolved)
        if rest is None or ENTERED.search(text, max(0, at - 12), at):
            continue
        line = text[text.rfind("\n", 0, at) + 1 : at]
        if not rest:
            if plugin_folder or RUNTIME_FOLDER_WORDS.search(line):
                found += [Path(root_text, name) for name in RUNTIME_SUBFOLDERS]
            continue
        if (plugin_folder or RUNTIME_PATH_WORDS.search(line)) and WILDCARD.search(rest):
            # Folders vim loads code from, among the workspace's others (`set rtp+=~/projects/*`
            # run in ~/projects): what it loads from each is held, the rest stays writable.
            found += [Path(root_text, rest, name) for name in RUNTIME_SUBFOLDERS]
        else:
            found.append(Path(root_text, rest))
        # The folder a pattern's files lie in, when it is in the workspace, is held whole: no
        # command adds a file the pattern would match (`config.d/*`, `ssh/extra-*.conf`).
        parts = rest.split("/")
        fixed = parts[: _first_wildcard(parts)]
        if fixed and fixed != parts:
            found.append(Path(root_text, *fixed))
    return list(dict.fromkeys(found))


def config_files(home: Path, config_home: Path, root: Path | None = None) -> list[Path]:
    """Your configuration files (see the module's doc), each part of them (`config_file_parts`)
    after the other."""
    return [path for part in config_file_parts(home, config_home, root) for path in part]


def config_file_parts(home: Path, config_home: Path, root: Path | None = None) -> list[list[Path]]:
    """Your configuration files, in three parts read with bounds of their own (at most
    MAX_CONFIG_FILES each): the dot files in your home and the files in its dot folders; those
    in ~/.config ($XDG_CONFIG_HOME); and what vim and neovim load from their folders in your
    home (EDITOR_FOLDERS), however deep. Each part is read shallowest first, through links, so
    that what is cut is the deepest: a ~/.config of thousands of files leaves your ~/.vim/plugin,
    ~/.bashrc.d and ~/.tmux read. The workspace `root` is not read, when it lies there or a link
    leads into it: commands write it, it is not yours."""
    skipped = "" if root is None else os.path.realpath(root).rstrip("/") + "/"
    configs = os.path.normpath(config_home)
    dot_files = _ConfigWalk(skipped, also_elsewhere=[configs])
    dot_files.walk([str(home)], MAX_CONFIG_DEPTH + 1, lambda name: name.startswith("."))
    settings = _ConfigWalk(skipped)
    settings.walk([configs], MAX_XDG_CONFIG_DEPTH)
    editors = _ConfigWalk(skipped)
    editors.walk(_editor_folders(str(home), configs), None, _loaded_by_vim)
    parts: list[list[Path]] = []
    taken: set[str] = set()
    for walk in (dot_files, settings, editors):
        part = [path for path in dict.fromkeys(walk.found) if path not in taken]
        taken.update(part)
        parts.append([Path(path) for path in part[:MAX_CONFIG_FILES]])
    return parts


def _editor_folders(home: str, configs: str) -> list[str]:
    """vim's and neovim's folders in your home (EDITOR_FOLDERS, and nvim/ in ~/.config), and
    the package plugins in them (`pack/*/start/*`, `pack/*/opt/*`)."""
    folders = [*(os.path.join(home, name) for name in EDITOR_FOLDERS), f"{configs}/nvim"]
    plugins = [
        plugin
        for folder in folders
        for kind in ("start", "opt")
        for plugin in sorted(glob.glob(f"{glob.escape(folder)}/pack/*/{kind}/*"))
    ]
    return folders + plugins


def _loaded_by_vim(name: str) -> bool:
    """Whether vim or neovim load code from the entry `name` of one of their folders (its
    package plugins are read as folders of their own: `_editor_folders`)."""
    return name in RUNTIME_SUBFOLDERS and name != "pack"


class _ConfigWalk:
    """One part of your configuration (`config_file_parts`), read breadth first within bounds
    of its own: MAX_CONFIG_FILES files and MAX_CONFIG_ENTRIES entries looked at."""

    def __init__(self, skipped: str, also_elsewhere: Iterable[str] = ()) -> None:
        self.skipped = skipped
        self.found: list[str] = []
        self.left = MAX_CONFIG_ENTRIES
        # A folder reached twice (a link to a folder above it) is read once: no link loop
        # makes the walk longer. One another part reads (`also_elsewhere`) is not read here.
        self.seen: set[tuple[int, int]] = set()
        for folder in also_elsewhere:
            try:
                info = os.stat(folder)
            except OSError:
                continue
            self.seen.add((info.st_dev, info.st_ino))

    def walk(
        self, folders: list[str], depth: int | None, first: Callable[[str], bool] | None = None
    ) -> None:
        """Reads `folders` and what is below them, `depth` levels (None: however deep); of
        `folders` themselves, only the entries whose names `first` takes."""
        level = 0
        while folders and (depth is None or level < depth):
            deeper: list[str] = []
            for folder in folders:
                if len(self.found) >= MAX_CONFIG_FILES or self.left < 0:
                    return
                deeper += self._scan(folder, first if level == 0 else None)
            folders, level = deeper, level + 1

    def _outside(self, path: str) -> bool:
        return not self.skipped or not (os.path.realpath(path) + "/").startswith(self.skipped)

    def _scan(self, folder: str, only: Callable[[str], bool] | None) -> list[str]:
        """The files of `folder` (into `found`) and its subfolders (returned)."""
        subfolders: list[str] = []
        try:
            info = os.stat(folder)
        except OSError:
            return subfolders
        if (info.st_dev, info.st_ino) in self.seen or not self._outside(folder):
            return subfolders
        self.seen.add((info.st_dev, info.st_ino))
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if only is not None and not only(entry.name):
                        continue  # (your home's own files and projects are not counted)
                    self.left -= 1
                    if self.left < 0:
                        break
                    self._take(entry, subfolders)
        except OSError:
            pass
        return subfolders

    def _take(self, entry: os.DirEntry[str], subfolders: list[str]) -> None:
        name = entry.name
        try:
            if entry.is_dir():
                if not PROGRAM_STORE_FOLDER.search(name.lower()):
                    subfolders.append(entry.path)
            elif (
                entry.is_file()
                and not PROGRAM_WRITTEN_FILE.search(name.lower())
                and entry.stat().st_size <= MAX_CONFIG_FILE_BYTES
                and (not entry.is_symlink() or self._outside(entry.path))
            ):
                self.found.append(entry.path)
        except OSError:
            pass


def _read(path: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        return os.read(fd, MAX_CONFIG_FILE_BYTES)
    except OSError:
        return b""
    finally:
        os.close(fd)


# ssh's `Include` (`Include=`, any case) with the files it reads, which ssh takes from ~/.ssh
# where they are relative (ssh_config(5)): `Include ../dotfiles/ssh/ssh.conf`.
SSH_INCLUDE = re.compile(r"^([ \t]*include\b[ \t]*=?[ \t]*)(.*)$", re.IGNORECASE | re.MULTILINE)


def with_ssh_includes_from_home(text: str) -> str:
    """`text`, a file of your ~/.ssh, with each relative path its Include lines name written
    from ~/.ssh (`~/.ssh/../dotfiles/ssh/ssh.conf`), as ssh reads it, and as a path."""

    def from_ssh_folder(line: re.Match[str]) -> str:
        words = line.group(2).split()
        return line.group(1) + " ".join(
            word if re.match(r"""["']?[/~$%]""", word) else "~/.ssh/" + word.lstrip("\"'")
            for word in words
        )

    return SSH_INCLUDE.sub(from_ssh_folder, text)


@functools.lru_cache(maxsize=8)
def _named_by_configs(
    root: Path,
    homes: tuple[Path, ...],
    config_home: Path,
    variables: tuple[tuple[str, str], ...] = (),
) -> tuple[Path, ...]:
    # Most files name nothing in the workspace: they are not even decoded (see _named_in).
    marks = (*_root_words(root, homes[0]), *_variable_marks(variables))
    words = [mark.encode() for mark in marks]
    found: list[Path] = []
    for part in config_file_parts(homes[0], config_home, root):
        found += _named_in_files(part, root, homes, words, variables)
    return tuple(dict.fromkeys(found))


def _named_in_files(
    paths: list[Path],
    root: Path,
    homes: tuple[Path, ...],
    words: list[bytes],
    variables: tuple[tuple[str, str], ...],
) -> list[Path]:
    """What the files `paths`, one part of your configuration, name in the workspace, read up
    to MAX_CONFIG_BYTES in all."""
    ssh_folder = str(homes[0] / ".ssh") + "/"
    found: list[Path] = []
    left = MAX_CONFIG_BYTES
    for path in paths:
        data = _read(str(path))
        left -= len(data)
        if left < 0:
            break
        if b"\0" in data or not (
            any(word in data for word in words) or NAMED_FROM_ABOVE_BYTES.search(data)
        ):
            continue
        text = data.decode("utf-8", "replace")
        if str(path).startswith(ssh_folder):
            text = with_ssh_includes_from_home(text)
        for home in homes:
            found += _named_in(text, root, home, variables=variables)
    return found


def named_by_your_configs(root: Path, writing: Path | None = None) -> list[Path]:
    """Each path in the workspace your configuration files name (read once per run), in each of
    your homes (tools/homes.py: your account's too, when a run moves HOME); a pattern by what
    it matches now, and `writing` where it matches one (`matching_now`)."""
    found: list[Path] = []
    for home in your_homes():
        moved = os.environ.get("XDG_CONFIG_HOME") if home == Path.home() else None
        config_home = Path(moved or home / ".config")
        homes = tuple(dict.fromkeys((home, Path(os.path.realpath(home)))))
        variables = _path_variables(Path(root), home, os.environ)
        named = _named_by_configs(Path(root), homes, config_home, variables)
        found += matching_now(named, Path(root), writing)
    return list(dict.fromkeys(found))


def _path_variables(
    root: Path, home: Path, environ: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """The variables of your environment whose value is a path at, in or above the workspace
    `root` (`APP=/home/me/code/app`), as written or where it leads: a path your configuration
    writes from one of them names the same (`. "$APP/scripts/aliases.sh"`). Not your home
    (`$HOME/` is read as such), nor where a shell stands (NOT_NAMING_CODE)."""

    def related(path: str, folder: str) -> bool:
        return path == folder or folder.startswith(f"{path}/") or path.startswith(f"{folder}/")

    root_text, real_root = str(root).rstrip("/"), os.path.realpath(root)
    found: list[tuple[str, str]] = []
    for name, value in sorted(environ.items()):
        if name in NOT_NAMING_CODE or name == "HOME" or not re.match(r"/[^:\n]*$", value):
            continue
        path = os.path.normpath(value)
        if path in ("/", str(home)):
            continue
        if related(path, root_text) or related(os.path.realpath(path), real_root):
            found.append((name, path))
    return tuple(found)


def names_code(name: str, path: Path) -> bool:
    """Whether `path`, which the variable `name` names, may be code something runs: not where a
    shell stands nor scratch space (NOT_NAMING_CODE), nor a folder where a program keeps what it
    can make again, which a cache's variable names (PIP_CACHE_DIR, CCACHE_DIR). A file such a
    variable names is a program or a configuration, not a cache, and the caches whose content
    runs (PYTHONPYCACHEPREFIX) or that name a program (CCACHE_PREFIX) are CODE_VARIABLES,
    decided by what the variable is for, not by its name."""
    if name in NOT_NAMING_CODE:
        return False
    if "CACHE" not in name.upper() or name in CODE_VARIABLE_NAMES:
        return True
    return os.path.isfile(path)


def named_by_your_environment(root: Path, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """Each path in the workspace that a variable of your environment names."""
    home = Path(os.path.expanduser("~"))
    # PATH and CODE_VARIABLES have a stricter rule of their own, with their own reason: what
    # they name is held even when it does not exist yet, by making commands ask.
    stricter = {"PATH", *CODE_VARIABLE_NAMES}
    found: list[Path] = []
    for name, value in environ.items():
        if name not in stricter:
            found += [p for p in paths_named_in(value, Path(root), home) if names_code(name, p)]
    return list(dict.fromkeys(found))


ENVRC_ASSIGNMENT = re.compile(r"(?:export\s+|local\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)\+?=")


def named_by_envrc(envrc: Path, root: Path, text: str, here: Path | None = None) -> list[Path]:
    """Each path in the workspace the .envrc `text` names by a path, `$PWD`-relative ones
    included (see the module's doc); a path assigned to a variable that names no code there
    (`names_code`) is left out, as it would be from your environment once direnv loaded it.
    `here`: the folder its words are read from, where it is not its own (a file the `.envrc`
    sources with bash's `source`)."""
    home = Path(os.path.expanduser("~"))
    here = envrc.parent if here is None else here
    found: list[Path] = []
    for line in text.split("\n"):  # bash's lines and blanks, not Python's wider ones
        line = re.sub(r"(^|[ \t])#.*", "", line)
        for piece in re.split(r"[;&|]", line):
            assigned = ENVRC_ASSIGNMENT.match(piece.strip())
            named = paths_named_in(piece, Path(root), home, here=here)
            if assigned:
                named = [path for path in named if names_code(assigned.group(1), path)]
                value = piece.strip()[assigned.end() :]
                named += relative_code_paths(assigned.group(1), value, here, root)
            found += named
    return list(dict.fromkeys(found))


# Variables that are no CODE_VARIABLES but whose relative value in an .envrc names what runs
# as surely (their absolute one is held as any variable's, `names_code`): your shell's PATH,
# and what git runs or takes its config from, at your next `git status` in the folder (the
# fsmonitor its config names, a hook of GIT_DIR's). XDG_CONFIG_HOME moves every tool's config
# in that shell (git's `.config/git/config` among them), so the folder it names is held whole;
# your own environment's is not read this way (run in your home, all of ~/.config would be).
# And direnv's own: the vim script `use vim` names for your vimrc to source, the folders `use
# node` and `use julia` load a version's bin/ and lib/ from (and run its `node --version`).
# Taken from whichever folder below you stand in, such a value also makes commands ask
# (tools/shell_config.py `_relative_export`); this holds the one beside the .envrc.
# And the folders version managers run interpreters and their plugins' commands from, which
# direnv's `layout pyenv` and `use nodenv` join a version to (`$(pyenv root)/versions/3.12/bin/
# python`, run at each load), and your own shims and tools take from your shell after it
# (`pyenv exec` runs `$PYENV_ROOT/plugins/*/bin`, asdf's shims `$ASDF_DATA_DIR/installs`, maven
# and gradle `$JAVA_HOME/bin/java`); their hook paths, the folders of scripts they source.
VERSION_MANAGER_ROOTS = ("PYENV_ROOT", "NODENV_ROOT", "RBENV_ROOT", "GOENV_ROOT", "JENV_ROOT")
VERSION_MANAGER_ROOTS += ("PLENV_ROOT", "PHPENV_ROOT", "NVM_DIR", "VOLTA_HOME", "ASDF_DIR")
VERSION_MANAGER_ROOTS += ("ASDF_DATA_DIR", "MISE_DATA_DIR", "SDKMAN_DIR", "JAVA_HOME", "GOROOT")
VERSION_MANAGER_HOOK_PATHS = ("PYENV_HOOK_PATH", "NODENV_HOOK_PATH", "RBENV_HOOK_PATH")
VERSION_MANAGER_HOOK_PATHS += ("GOENV_HOOK_PATH", "PLENV_HOOK_PATH", "PHPENV_HOOK_PATH")
ENVRC_RELATIVE_VARIABLES = {
    "PATH": FOLDERS,
    **dict.fromkeys(("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"), ONE),
    **dict.fromkeys(("GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_COMMON_DIR"), ONE),
    **dict.fromkeys(("GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EDITOR"), PROGRAM),
    **dict.fromkeys(("GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_EXTERNAL_DIFF"), PROGRAM),
    "MAKE": PROGRAM,  # (what a makefile's `$(MAKE)` runs: the environment's is make's)
    "XDG_CONFIG_HOME": ONE,
    **dict.fromkeys(("DIRENV_EXTRA_VIMRC", "NODE_VERSIONS", "JULIA_VERSIONS"), ONE),
    **dict.fromkeys(VERSION_MANAGER_ROOTS, ONE),
    **dict.fromkeys(VERSION_MANAGER_HOOK_PATHS, FOLDERS),
    # direnv's `rvm` sources `$rvm_scripts_path/rvm`, else `$rvm_path/scripts/rvm`, which
    # sources the rest of rvm from there.
    **dict.fromkeys(("rvm_scripts_path", "rvm_path"), ONE),
    # Where nix-shell and nix's `<nixpkgs>` take nix code from (`nixpkgs=./np`), whose shellHook
    # runs in your shell.
    "NIX_PATH": NIX_SEARCH_PATH,
}


def relative_code_paths(name: str, value: str, here: Path, root: Path) -> list[Path]:
    """The paths in the workspace `root` that `value`, assigned to `name` in an .envrc in the
    folder `here`, names relatively where `name` is one of CODE_VARIABLES (`export
    PYTHONPATH=lib`, `export PYTHONSTARTUP=tools/startup.py`) or ENVRC_RELATIVE_VARIABLES
    (`export PATH=".local/bin:$PATH"`, `export GIT_CONFIG_GLOBAL=.gitconfig.local`): python,
    bash, git or your shell take them from the folder your shell is in, which is the .envrc's
    own when direnv loads it there. A relative value of any other variable (`export
    DB=./dev.db`) is data."""
    try:
        words = shell_words(value)
    except WordTooLong:
        raise
    except ValueError:  # an open quote: bash refuses the line, but read it whole
        words = value.split()
    entries = code_paths_of(name, words[0], here) if words else []
    if words and name in ENVRC_RELATIVE_VARIABLES:
        entries = variable_paths(name, ENVRC_RELATIVE_VARIABLES[name], words[0])
    # A path with a variable in it (`$PYTHONPATH`, `$PWD/lib`) only the shell can tell, or
    # `paths_named_in` read it already.
    relative = [e for e in entries if e and not os.path.isabs(e) and not re.search("[$`]", e)]
    named = [Path(os.path.normpath(here / entry)) for entry in relative]
    return [path for path in named if path != root and path.is_relative_to(root)]
