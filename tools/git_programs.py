"""Programs that git runs by a path its configuration names, when that path is in the workspace.

`core.pager = ~/dotfiles/bin/pager` in your ~/.gitconfig, with planloop run in ~/dotfiles: a
command that rewrote bin/pager would run outside the sandbox at your next `git log`. The same
holds for the repository's own `core.fsmonitor = ./fsmon.sh`, which every `git status` runs (and
shell prompts run `git status` by themselves), and for `init.templateDir`, whose hooks git copies
into every new clone. The sandbox keeps these files read-only (tools/sandbox.py), and the file
tools ask before writing them (tools/paths.py `protected_reason`).

Only files are read here, nothing is run. A value is split into shell words: its first word is
the program, and any later word written as a path (`sh ~/bin/x.sh`, `python3 tools/conv.py`)
counts too, as the script the program runs; so does a later word without a slash that names
something at the top of the working tree, ends like a script's name (`sh fsmon.sh`), or stands
where an interpreter takes its script (`bash -e fsmon`, `awk -f conv`), as git runs these from
there. Other words that name nothing (`git-lfs filter-process`, `iconv -f utf-16`) are words:
counting every one would make every command ask. A program or script whose path a shell
expansion makes (`"$(git rev-parse --show-toplevel)"/tools/conv`, `sh ~+/x`) cannot be told,
and makes commands ask. A program's own name without a slash is looked up on PATH (held with
the PATH folders), not here.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib.machinery
import itertools
import json
import os
import re
import shlex
import sys
from collections import deque
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tools.build_files import (
    BUILD_FILE_REASON,
    BUILD_TOOLS,
    INSTALLERS,
    MAKE_VARIABLES,
    MAKES,
    gradle_user_homes,
    maven_repositories,
)
from tools.environment import (
    MAX_SHELL_TEXT,
    WordTooLong,
    code_paths_of,
    expand_variables,
    node_preloads,
    shell_words,
    without_secrets,
)
from tools.inline_code import names_in_code
from tools.node_packages import (
    NODE_PACKAGE_REASON,
    NodeNames,
    bin_name,
    bin_paths,
    bins_run,
    local_package,
    package_name,
    package_paths,
)
from tools.paths import (
    GIT_DIR_NAME,
    common_dir_of,
    git_config_paths,
    git_dir_of,
    paths_named_by,
    read_git_config,
    read_small_file,
    unread_reason,
    your_git_configs,
)
from tools.shell_config import QUOTED_TILDE, kept_tildes, names_a_process_folder

# Keys (section.key, a subsection dropped: `[filter "lfs"] clean` is `filter.clean`) whose value
# git runs as a command line. The same keys count in your configs and in a repository's own:
# each is run by an ordinary git command (status, log, diff, checkout, fetch, commit), not by
# one the person starts to run the project's code. The filter and diff drivers (clean, smudge,
# process, textconv, command) are among them: `git status` runs a clean filter on a file whose
# timestamp changed, a checkout or pull runs smudge, and `git diff` or `git log -p` a textconv,
# so a command that rewrote the driver's script would have it run unasked. What such a script
# itself imports or sources from the tree is the project's code, as a Makefile's is, and is not
# held.
PROGRAM_KEYS = frozenset(
    {
        "core.pager",
        "core.editor",
        "core.fsmonitor",
        "core.sshcommand",
        "core.askpass",
        "core.gitproxy",
        "core.alternaterefscommand",
        "credential.helper",
        "gpg.program",  # also [gpg "ssh"] program and [gpg "x509"] program
        "gpg.defaultkeycommand",
        "sequence.editor",
        "diff.external",
        "diff.command",
        "diff.textconv",
        "merge.driver",
        "filter.clean",
        "filter.smudge",
        "filter.process",
        "difftool.cmd",
        "difftool.path",
        "mergetool.cmd",
        "mergetool.path",
        "interactive.difffilter",
        "uploadpack.packobjectshook",
        "remote.uploadpack",
        "remote.receivepack",
        "sendemail.sendmailcmd",
        "sendemail.smtpserver",
        "sendemail.tocmd",
        "sendemail.cccmd",
        "browser.cmd",
        "browser.path",
        "man.cmd",
        "man.path",
        "trailer.command",
        "trailer.cmd",
        "tar.command",
        "hook.command",
        "submodule.update",  # `!command` only: checkout, rebase, merge and none are words
        # git-lfs: [lfs "customtransfer.<name>"] path and args, [lfs "extension.<name>"]
        # clean and smudge, run at checkout, pull and push.
        "lfs.path",
        "lfs.args",
        "lfs.clean",
        "lfs.smudge",
    }
)
# Keys whose value is a URL, and a command line only in the `ext::` form (git fetch, pull and
# push run it, with protocol.ext.allow): `ext::sh tools/remote.sh`.
# What separates a shell's words (and, the line feed, its commands): not a carriage return,
# which is part of the word it ends (`./watch.sh\r` runs the file `watch.sh\r`).
SHELL_BLANKS = " \t\n"
URL_KEYS = frozenset({"remote.url", "remote.pushurl", "submodule.url"})
EXT_URL = "ext::"
# Sections whose every key is a command line: `[pager] log = ~/bin/x`, and aliases, of which
# only those starting with `!` run a program (the others run a git subcommand).
PROGRAM_SECTIONS = ("alias", "pager")
# git's own variables that name a program, or a config or templates folder, in your environment.
PROGRAM_VARIABLES = (
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
)
# git's variables that name its config, its repository, or where its programs and hooks come
# from: a file or folder they name in the workspace is what git reads and runs
# (`GIT_CONFIG_GLOBAL=tools/gitconfig git status` runs that file's fsmonitor).
GIT_PLACE_VARIABLES = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG", "GIT_DIR")
GIT_PLACE_VARIABLES += ("GIT_COMMON_DIR", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR")
# Variables whose value names what a program runs (`variable_paths`): also the settings git is
# given in variables (GIT_CONFIG_VALUE_<n>, GIT_CONFIG_PARAMETERS), npm's config files, PATH.
GIT_CONFIG_VALUE = re.compile(r"GIT_CONFIG_VALUE_\d+")
NPMRC_VARIABLES = ("NPM_CONFIG_USERCONFIG", "NPM_CONFIG_GLOBALCONFIG")
# The package managers' settings given as variables (npm reads `npm_config_*` in any case):
# the shell npm runs scripts with, yarn's own program, and options node loads code by.
PACKAGE_PROGRAM_VARIABLES = ("NPM_CONFIG_SCRIPT_SHELL", "YARN_YARN_PATH", "NPM_CONFIG_GIT")
PACKAGE_PROGRAM_VARIABLES += ("NPM_CONFIG_SHELL", "NPM_CONFIG_EDITOR", "NPM_CONFIG_BROWSER")
# Where programs read their own settings (git its `.gitconfig`, `git/config`): set to a folder
# of the workspace, what lies there runs later.
PATH_VARIABLE_REASON = (
    "a PATH a host tool sets names this folder: the programs in it run by their bare names"
)
HOME_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS", "ZDOTDIR")
# Other tools' programs given as variables (cargo's wrapper, make's compilers, an editor).
TOOL_PROGRAM_VARIABLES = ("RUSTC_WRAPPER", "RUSTC", "RUSTDOC", "CC", "CXX", "EDITOR", "VISUAL")
RUN_VARIABLES = (*PROGRAM_VARIABLES, *TOOL_PROGRAM_VARIABLES, *GIT_PLACE_VARIABLES, "COMPOSE_FILE")
RUN_VARIABLES += (*PACKAGE_PROGRAM_VARIABLES, "NPM_CONFIG_NODE_OPTIONS", *NPMRC_VARIABLES)
RUN_VARIABLES += ("GIT_CONFIG_PARAMETERS", "PATH", *HOME_VARIABLES, "GRADLE_USER_HOME")
# The java options gradle's start script (the wrapper's too) passes to java: the user home
# their `-Dgradle.user.home=` names is held as GRADLE_USER_HOME's, and the agents they load run.
GRADLE_JAVA_VARIABLES = ("GRADLE_OPTS", "JAVA_OPTS")
RUN_VARIABLES += (*GRADLE_JAVA_VARIABLES, "MAVEN_OPTS")  # (maven's: its local repository)


def runs_something(name: str) -> bool:
    """Whether a variable's value names what a program runs (`variable_paths`)."""
    return name.upper() in RUN_VARIABLES or GIT_CONFIG_VALUE.fullmatch(name) is not None


TEMPLATES_KEY = "init.templatedir"

GIT_PROGRAM_REASON = (
    "git runs this file: your git config or the repository's names it as a program "
    "(core.pager, core.fsmonitor, a filter, an alias, ...), or as git's own config or templates"
)


# `python -m NAME` imports NAME from the folder it starts in before anything installed: a file or
# package of that name made there later would run in its place. Python's own name for each
# form a module takes, in the order it looks: a package folder, an extension, source, bytecode.
PYTHONS = ("python", "pypy", "py")
MODULE_SUFFIXES = (*importlib.machinery.EXTENSION_SUFFIXES, ".py", ".pyc")
PYTHON_MODULE_REASON = (
    "a program run later outside the sandbox (by git, or by a host tool's settings) is "
    "`python -m` of this name, started in this folder: python imports this in place of the "
    "installed module"
)
PYTHON_FOLDER_REASON = (
    "a program run later outside the sandbox (by git, or by a host tool's settings) starts "
    "python in this folder with no script of its own (`python -c`, `python -m`): python "
    "takes every module it needs from here first, the standard library's included"
)
# A module of another name there is the project's own, changed as its code is, but a new one
# would run in place of an installed module of its name: told when a command makes one.
PYTHON_NEW_MODULE_REASON = (
    "a program run later outside the sandbox (by git, or by a host tool's settings) starts "
    "python in this folder with no script of its own (`python -c`, `python -m`): a new "
    "module here runs in place of an installed one of its name"
)
TOLD_ONLY = (PYTHON_NEW_MODULE_REASON,)  # reported when made, not held (tools/sandbox.py)
CACHED_MODULES = "__pycache__"
# Entries of a folder read for its modules (`modules_in`): its top only, not a package store.
MAX_FOLDER_ENTRIES = 10_000


def is_program_key(key: str) -> bool:
    """Whether git runs the value of `key` (lower-cased section.key) as a command line."""
    return key in PROGRAM_KEYS or key.split(".")[0] in PROGRAM_SECTIONS


# The shell's separators and keywords, after which the next word is a program again.
PUNCTUATION = (";", "&", "&&", "|", "||", "(", ")", ";;", "()", "{", "!", "<(", ">(")
PUNCTUATION += ("then", "do", "else", "elif", "if", "while", "until", "exec")
# What a script's name ends with: an argument of this form names a file to run even before it
# exists (a command could create `fsmon.sh` for `core.fsmonitor = sh fsmon.sh`).
SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh", ".fish", ".py", ".pl", ".rb", ".php", ".lua")
SCRIPT_SUFFIXES += (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".tcl", ".awk")
SCRIPT_SUFFIXES += (".sed", ".ps1", ".bat", ".cmd", ".r", ".jl", ".java", ".jar", ".go", ".mk")
SCRIPT_SUFFIXES += (".kts", ".groovy", ".swift", ".exs", ".raku", ".scm", ".rkt")

# Programs whose first argument is the script they run, whatever its name (`sh fsmon`, made by
# a command after the scan, would be run by the next `git status`), each with its flags whose
# next word is code or a module instead (`sh -c cmd`, `python3 -m black`, `perl -e code`). A
# name is taken without its version or build (`python3.12`, `pypy3`, `python3-dbg`, `lua5.4`).
SHELL_FLAGS = ("-c",)  # for a shell, `-e` is errexit: `bash -e fsmon` runs fsmon
# Shells whose quoting, comments and substitutions are not sh's (fish's `'it\'s'` is one word,
# csh's `#` and `!`, PowerShell's backtick), or that run code where sh has none (zsh's glob
# qualifier: `echo *(e:'sh x':)` runs sh x): a line of theirs is no sh line, and what their code
# runs only they can tell. (ksh, mksh, yash read a line's words and comments as sh does.)
OTHER_SHELLS = ("fish", "csh", "tcsh", "pwsh", "powershell", "zsh")
# Their options that take no value and run no code, as a terminal profile or an editor gives
# them (`pwsh -NoLogo -NoProfile`, `zsh -l -i`); PowerShell's in lower case, as it takes them.
# Any other option may hold code glued to it (`fish -cCODE`, `--command=CODE`, `-lcCODE`,
# `pwsh -Command:CODE`): it asks, as code given as the next word does.
OPTIONS_ALONE = {"-l", "--login", "-i", "--interactive", "-f", "-n", "--no-execute", "-N"}
OPTIONS_ALONE |= {"--no-config", "-P", "--private", "-nologo", "-noprofile", "-noninteractive"}
OPTIONS_ALONE |= {"-noexit", "-login", "-interactive", "-nol", "-nop", "-noni"}
INTERPRETERS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("sh", "bash", "dash", "ksh", "mksh", "yash", "ash"), SHELL_FLAGS),
    **dict.fromkeys(OTHER_SHELLS, SHELL_FLAGS),
    **dict.fromkeys(("python", "pypy", "py"), ("-c", "-m")),
    **dict.fromkeys(("perl", "julia"), ("-e", "-E")),
    **dict.fromkeys(("ruby", "lua", "luajit", "rscript", "raku", "elixir", "osascript"), ("-e",)),
    **dict.fromkeys(("node", "nodejs", "tsx", "ts-node"), ("-e", "-p", "--eval", "--print")),
    "php": ("-r",),
    **dict.fromkeys(("tclsh", "wish", "java", "groovy", "kotlin", "scala", "swift"), ()),
    **dict.fromkeys(("source", "."), ()),  # the shell's builtins that run a file
    "run-parts": (),  # runs every file of the folder it is given
}
# uv's options whose next word is a value, as it parses its line (`uv run --with x tox`).
UV_VALUE_OPTIONS = ("--from", "--with", "-w", "--with-editable", "--with-requirements")
UV_VALUE_OPTIONS += ("--python", "-p", "--index", "--default-index", "--index-url", "-i")
UV_VALUE_OPTIONS += ("--extra-index-url", "--find-links", "-f", "--constraints", "-c")
UV_VALUE_OPTIONS += ("--overrides", "--build-constraints", "-b", "--env-file", "--directory")
UV_VALUE_OPTIONS += ("--project", "--cache-dir", "--config-file", "--color", "--extra")
UV_VALUE_OPTIONS += ("--no-extra", "--group", "--only-group", "--no-group", "--package")
UV_VALUE_OPTIONS += ("--upgrade-package", "-P", "--reinstall-package", "--refresh-package")
UV_VALUE_OPTIONS += ("--index-strategy", "--keyring-provider", "--resolution", "--prerelease")
UV_VALUE_OPTIONS += ("--exclude-newer", "--link-mode", "--config-setting", "-C")
UV_VALUE_OPTIONS += ("--no-build-package", "--no-binary-package", "--python-platform")
UV_VALUE_OPTIONS += ("--python-preference", "--allow-insecure-host", "--fork-strategy")
UV_VALUE_OPTIONS += ("--torch-backend",)
# Flags of an interpreter whose next word is the option's value (`bash -o pipefail x`).
VALUE_FLAGS = {
    "shell": ("-o", "+o", "-O", "+O"),
    "python": ("-W", "-X"),
    "uv": UV_VALUE_OPTIONS,
    "run-parts": ("--regex", "-a", "--arg", "-u", "--umask"),
}
# Programs that only run the one named after them, with the flags whose next word is a value.
RUNNERS = {
    "env": ("-u", "--unset", "-C", "--chdir", "-S", "--split-string"),
    "nice": ("-n", "--adjustment"),
    **dict.fromkeys(("nohup", "command", "time", "exec", "builtin"), ()),
    "sudo": ("-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "-T"),
    # xargs runs the program after it with its input as arguments: `| xargs sh -c` runs it.
    "xargs": ("-n", "-I", "-d", "-L", "-P", "-s", "-E", "-a", "--arg-file", "--delimiter"),
    # npm's runners of a package's program: `npx --yes npm run watch` is `npm run watch`.
    **dict.fromkeys(("npx", "pnpx", "bunx"), ("-p", "--package")),
}
PACKAGE_RUNNERS = ("npx", "pnpx", "bunx")
# npm's options that take the next word for their value (those of no boolean type in its
# config: `--prefix web`, `-c 'prettier .'`, `--cache x`), as npx reads them before its
# package; any other, one npm does not know included, is a flag (`--yes`, `--offline`, `--no`).
# (npm's own line takes more, by each option's type: `npm_words`.)
NPM_VALUE_OPTIONS = ("_auth", "access", "allow-directory", "allow-file", "allow-git")
NPM_VALUE_OPTIONS += ("allow-remote", "allow-scripts", "also", "audit-level", "auth-type")
NPM_VALUE_OPTIONS += ("before", "ca", "cache", "cache-max", "cache-min", "cafile", "call", "cert")
NPM_VALUE_OPTIONS += ("cidr", "cpu", "depth", "diff", "diff-dst-prefix", "diff-src-prefix")
NPM_VALUE_OPTIONS += ("diff-unified", "editor", "expect-result-count", "expires", "fetch-retries")
NPM_VALUE_OPTIONS += ("fetch-retry-factor", "fetch-retry-maxtimeout", "fetch-retry-mintimeout")
NPM_VALUE_OPTIONS += ("fetch-timeout", "git", "globalconfig", "heading", "https-proxy", "include")
NPM_VALUE_OPTIONS += ("init-author-email", "init-author-name", "init-author-url", "init-license")
NPM_VALUE_OPTIONS += ("init-module", "init-type", "init-version", "init.author.email")
NPM_VALUE_OPTIONS += ("init.author.name", "init.author.url", "init.license", "init.module")
NPM_VALUE_OPTIONS += ("init.version", "install-strategy", "key", "libc", "local-address")
NPM_VALUE_OPTIONS += ("location", "lockfile-version", "loglevel", "logs-dir", "logs-max", "name")
NPM_VALUE_OPTIONS += ("maxsockets", "message", "min-release-age", "min-release-age-exclude")
NPM_VALUE_OPTIONS += ("node-gyp", "node-options", "noproxy", "omit", "only", "orgs", "os", "otp")
NPM_VALUE_OPTIONS += ("package", "pack-destination", "packages", "prefix", "preid")
NPM_VALUE_OPTIONS += ("provenance-file", "proxy", "registry", "replace-registry-host")
NPM_VALUE_OPTIONS += ("save-prefix", "sbom-format", "sbom-type", "scope", "scopes")
NPM_VALUE_OPTIONS += ("packages-and-scopes-permission", "orgs-permission", "password")
NPM_VALUE_OPTIONS += ("token-description", "script-shell", "searchexclude", "searchlimit")
NPM_VALUE_OPTIONS += ("searchopts", "searchstaleness", "shell", "tag", "tag-version-prefix")
NPM_VALUE_OPTIONS += ("umask", "user-agent", "userconfig", "viewer", "which", "workspace")
# npm's other options, its flags: with those above, all it knows. npm takes any word that
# begins one of them alone for it (`--prefi web` is `--prefix web`, with a warning), so a
# word is read against them all (`--pre` begins `--prefer-offline` too: npm knows no such).
NPM_FLAG_OPTIONS = ("all", "allow-same-version", "allow-scripts-pending", "allow-scripts-pin")
NPM_FLAG_OPTIONS += ("audit", "bin-links", "browser", "bypass-2fa", "color", "commit-hooks")
NPM_FLAG_OPTIONS += ("dangerously-allow-all-scripts", "description", "dev")
NPM_FLAG_OPTIONS += ("diff-ignore-all-space", "diff-name-only", "diff-no-prefix", "diff-text")
NPM_FLAG_OPTIONS += ("dry-run", "engine-strict", "expect-results", "force")
NPM_FLAG_OPTIONS += ("foreground-scripts", "format-package-lock", "fund", "git-tag-version")
NPM_FLAG_OPTIONS += ("global", "global-style", "if-present", "ignore-scripts")
NPM_FLAG_OPTIONS += ("include-attestations", "include-staged", "include-workspace-root")
NPM_FLAG_OPTIONS += ("init-private", "install-links", "json", "legacy-bundling")
NPM_FLAG_OPTIONS += ("legacy-peer-deps", "link", "long", "offline")
NPM_FLAG_OPTIONS += ("omit-lockfile-registry-resolved", "optional", "package-lock")
NPM_FLAG_OPTIONS += ("package-lock-only", "packages-all", "parseable", "prefer-dedupe")
NPM_FLAG_OPTIONS += ("prefer-offline", "prefer-online", "production", "progress", "provenance")
NPM_FLAG_OPTIONS += ("read-only", "rebuild-bundle", "save", "save-bundle", "save-dev")
NPM_FLAG_OPTIONS += ("save-exact", "save-optional", "save-peer", "save-prod", "shrinkwrap")
NPM_FLAG_OPTIONS += ("sign-git-commit", "sign-git-tag", "strict-allow-scripts")
NPM_FLAG_OPTIONS += ("strict-peer-deps", "strict-ssl", "timing", "unicode", "update-notifier")
NPM_FLAG_OPTIONS += ("usage", "version", "versions", "workspaces", "workspaces-update", "yes")
NPM_OPTIONS = (*NPM_VALUE_OPTIONS, *NPM_FLAG_OPTIONS)
# npm's short options that take a value, by the option each stands for (npx's `-p` too).
NPM_SHORTHANDS = {"C": "prefix", "c": "call", "p": "package", "w": "workspace", "L": "location"}
NPM_SHORTHANDS |= {"m": "message", "reg": "registry", "enjoy-by": "before"}
# npm's other shorthands, flags all (`-d` is `--loglevel info`, its value given), with the
# letters among them that npm reads bundled (`-yC web` is `--yes --prefix web`); bundled,
# `p` is npm's own `--parseable`, which npx's `-p` alone is not.
NPM_FLAG_SHORTHANDS = ("dd", "ddd", "quiet", "silent", "verbose", "desc", "help", "local", "no")
NPM_FLAG_SHORTHANDS += ("porcelain", "readonly", "iwr", "ws")
NPM_LETTERS = {**dict.fromkeys("adfgnqslSBDEOPHhvy?", ""), **NPM_SHORTHANDS, "p": "parseable"}
# npm's shorthands as its option parser (nopt) reads a line of npm's own: each stands for the
# words it gives (`-d` is `--loglevel info`, `-n` is `--no-yes`), and here `-p` is npm's
# `--parseable`, not npx's `--package`.
NPM_EXPANSIONS = {"enjoy-by": "--before", "d": "--loglevel info", "dd": "--loglevel verbose"}
NPM_EXPANSIONS |= {"ddd": "--loglevel silly", "quiet": "--loglevel warn", "q": "--loglevel warn"}
NPM_EXPANSIONS |= {"s": "--loglevel silent", "silent": "--loglevel silent", "desc": "--description"}
NPM_EXPANSIONS |= {"verbose": "--loglevel verbose", "help": "--usage", "local": "--no-global"}
NPM_EXPANSIONS |= {"n": "--no-yes", "no": "--no-yes", "porcelain": "--parseable", "a": "--all"}
NPM_EXPANSIONS |= {"readonly": "--read-only", "iwr": "--include-workspace-root", "c": "--call"}
NPM_EXPANSIONS |= {"ws": "--workspaces", "f": "--force", "g": "--global", "L": "--location"}
NPM_EXPANSIONS |= {"l": "--long", "m": "--message", "p": "--parseable", "C": "--prefix"}
NPM_EXPANSIONS |= {"S": "--save", "B": "--save-bundle", "D": "--save-dev", "E": "--save-exact"}
NPM_EXPANSIONS |= {"O": "--save-optional", "P": "--save-prod", "?": "--usage", "H": "--usage"}
NPM_EXPANSIONS |= {"h": "--usage", "v": "--version", "w": "--workspace", "y": "--yes"}
NPM_EXPANSIONS |= {"reg": "--registry"}
# The words nopt lets a flag take for its value besides `true` and `false` (`--yes true`), by
# the other types npm gives it: `--color always`, `--yes null`; and `--browser`, a Boolean or a
# String, takes any word but one like a short option (`--browser lint`, not `--browser -C`).
NPM_FLAG_WORDS = {"color": ("always",)}
NPM_FLAG_WORDS |= dict.fromkeys(("browser", "expect-results", "optional", "production"), ("null",))
NPM_FLAG_WORDS |= dict.fromkeys(("workspaces", "yes"), ("null",))
NPM_STRING_FLAGS = ("browser",)
# npm's options of the one type String, which take no word like an option's for their value
# (`--call --yes`: the call is "", `--yes` an option); npm's other options take any next word
# but `--` (`--prefix --yes`: the prefix is `--yes`).
NPM_STRING_OPTIONS = ("call", "diff-dst-prefix", "diff-src-prefix", "editor", "git", "heading")
NPM_STRING_OPTIONS += ("init-author-email", "init-author-name", "init-license", "init-type")
NPM_STRING_OPTIONS += ("init.author.email", "init.author.name", "init.license", "message")
NPM_STRING_OPTIONS += ("pack-destination", "preid", "save-prefix", "scope", "searchexclude")
NPM_STRING_OPTIONS += ("searchopts", "shell", "tag", "tag-version-prefix", "user-agent", "viewer")
# npm's value options of one type that is no list (a path, a number, an address, a version): a
# `--no-` before one (`--no-prefix`) makes it a flag that takes `true` or `false` alone. One of a
# list of types (`--no-otp x`, `[null, String]`) takes some words more, by its list.
NPM_ONE_TYPED = (*NPM_STRING_OPTIONS, "cache", "cafile", "globalconfig", "init-module")
NPM_ONE_TYPED += ("init.module", "node-gyp", "prefix", "provenance-file", "userconfig")
NPM_ONE_TYPED += ("cache-max", "cache-min", "diff-unified", "fetch-retries", "fetch-retry-factor")
NPM_ONE_TYPED += ("fetch-retry-maxtimeout", "fetch-retry-mintimeout", "fetch-timeout", "logs-max")
NPM_ONE_TYPED += ("maxsockets", "searchlimit", "searchstaleness", "registry", "init-version")
NPM_ONE_TYPED += ("init.version", "umask")
# Python project managers whose `run` reads the project's files first (its scripts, the
# project it builds): tools/build_files.py PROJECT_FILES.
PROJECT_RUNNERS = ("uv", "pdm", "hatch", "poetry", "rye", "pipenv")
# Programs that start a Python tool by its name (`uvx tox`, `uv tool run tox`, `pipx run tox`):
# the subcommand words before the name, and their options whose next word is a value
# (`uvx --from tox tox`). uv's `-m` takes a module, as python's does.
PIPX_VALUE_OPTIONS = ("--spec", "--python", "--index-url", "-i", "--pip-args", "--backend")
TOOL_RUNNERS = {
    "uvx": (((),), UV_VALUE_OPTIONS),
    "uv": ((("run",), ("tool", "run")), UV_VALUE_OPTIONS),
    "pipx": ((("run",),), PIPX_VALUE_OPTIONS),
    # The project managers' `run`, which starts a program of the project's environment.
    "poetry": ((("run",),), ("-C", "--directory", "-P", "--project")),
    "pdm": ((("run",),), ("-p", "--project", "--venv")),
    "hatch": ((("run",),), ("-e", "--env", "-p", "--project", "--data-dir", "--cache-dir")),
    "pipenv": ((("run",),), ("--python",)),
    "rye": ((("run",),), ("--pyproject",)),
}
MODULE_OPTIONS = ("-m", "--module")
# What ends a package's name in a runner's word (`uvx tox@4.2`, `pipx run 'tox>=4'`).
VERSION_START = re.compile(r"[@<>=!~\[;\s]")
# Names of a program's own input, as a script it is given (`cat x | sh /dev/stdin`).
STANDARD_INPUT = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
# Programs that put a file's text on their output (`cat x | bash -c 'exec bash'`).
FILE_READERS = ("cat", "head", "tail", "tac", "sed", "awk", "cut", "sort", "uniq", "rev", "tr")
FILE_READERS += ("base64", "gzip", "gunzip", "zcat", "bzcat", "xzcat", "xxd", "nl", "fold")
FILE_READERS += ("grep", "egrep", "fgrep", "rg", "jq", "yq", "envsubst", "paste", "strings")
# Programs whose arguments name programs without running them (`which npm`, `echo sh x`).
NAMES_ONLY = ("echo", "printf", "which", "type", "whereis", "grep", "man")
# Flags that move where a program runs, and with it where its relative paths start.
MOVES_TO = {
    "env": ("-C", "--chdir"),
    "uv": ("--directory", "--project"),
    "git": ("-C",),
    "make": ("-C", "--directory"),
}
# The top of the working tree, as a hook moves there: `cd "$(git rev-parse --show-toplevel)"`.
TOP_OF_THE_TREE = re.compile(r"""(["']?)\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)\1""")
# A command substitution without another inside it: `$(git rev-parse --show-toplevel)`.
COMMAND_OUTPUT = re.compile(r"\$\([^()]*\)|`[^`]*`")
SET_ASIDE = "\x00"  # where one stands while the line is split into words
# A file whose text a command's output gives as code: `eval "$(cat fsmon)"`, `$(<fsmon)`.
CODE_READ = re.compile(r"\$\(\s*(?:cat\s+|<\s*)([^\s()|;&<>]+)\s*\)")
# Redirections: the word after one is a file (read, for `<`), not the program or its argument.
REDIRECTIONS = ("<", ">", ">>", ">|", "&>", "&>>", "<>")
# Redirections whose next word is no file: a here-string's or here-document's text, a
# descriptor (`<<<"$x"`, `<<EOF`, `2>&1`).
NOT_A_FILE = ("<<<", "<<", "<<-", "<&", ">&")
# A word with these is a pattern the shell matches against names, not a file.
# What makes a word a pattern: a glob's characters, or a brace expansion (`{tools,x}/pg`).
# (The first part takes no comma, so a brace of commas alone is one look, not one per comma.)
PATTERN = re.compile(r"[*?[]|\{[^{}\s,]*+,[^{}\s]*+\}")
# A variable set for the program that follows: `BASH_ENV=tools/env.sh bash -c true`.
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
# The builtins that set the variables their words assign (`readonly HOME=tools/h`), and those
# that set a variable they name to what only the shell knows (`read HOME`, `printf -v HOME`).
SETTERS = ("export", "declare", "readonly", "typeset", "local")
SETS_BY_NAME = ("read", "printf", "for", "select", "mapfile", "readarray", "getopts")
# Where the line runs, as the shell says it; and a PATH's entry for the PATH before it.
WHERE_IT_RUNS = re.compile(r"\$\{PWD\}|\$PWD\b|\$\(\s*pwd\s*\)|`\s*pwd\s*`")
OLD_PATH = ("$PATH", "${PATH}", "${env:PATH}")
# What find, xargs and parallel put the file names in place of, and the options whose value is
# a pattern of names, not a file.
PLACEHOLDERS = ("{}", "+", ":::", "::::", ":::+", "{.}", "{/}")
PATTERN_FLAGS = ("-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex")
PATTERN_FLAGS += ("--include", "--exclude", "--glob", "-g")
FIND_OPTIONS_BEFORE_FOLDERS = ("-L", "-H", "-P", "-D", "-O", "-O1", "-O2", "-O3")
PATTERN_PROGRAMS = ("find", "grep", "egrep", "fgrep", "rg", "ag", "ack", "fd", "fdfind", "git")
LINE_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
# A variable with a default (`${MAKE:-make}`, `${MAKE-make}`), the default plain text.
DEFAULTED = re.compile(r"\$\{(\w++):?-([^{}$`\\]*+)\}")
# A folder's own path, as a command prints it (`$(realpath tools/h)`, `$(cd tools/h && pwd)`).
RESOLVED = re.compile(
    r"""\$\(\s*(?:realpath|readlink\s+-[fem])\s+([^\s()`;&|]+)\s*\)"""
    r"""|`\s*(?:realpath|readlink\s+-[fem])\s+([^\s()`;&|]+)\s*`"""
    r"""|\$\(\s*cd\s+([^\s()`;&|]+)\s*&&\s*pwd\s*\)"""
)
# Programs that run a script only when a word names it (`awk -f x`, `make -f x`, `deno run x`,
# `uv run x`): their other words are program text (`awk '{print}'`), targets or subcommands.
SCRIPT_AFTER = {
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "sed", "gsed", "make", "gmake"), "-f"),
    **dict.fromkeys(("deno", "bun", "uv", "go", "poetry", "pipenv", "pdm"), "run"),
}
# A shell expansion in a word: `$NAME`, `${...}`, `$(...)`, a backquote, a leading `~+` or
# `~-` or `~user` of no known user. What it expands to is known only when git's shell runs it.
EXPANSION_BRACED, EXPANSION_PARENTHESIZED = r"\$\{[^}]*\}", r"\$\([^)]*\)+"
EXPANSION_OTHERS = r"\$\w+|\$.?|`[^`]*`?|^~[^/]*"
EXPANSION = re.compile(f"{EXPANSION_BRACED}|{EXPANSION_PARENTHESIZED}|{EXPANSION_OTHERS}")
# EXPANSION without the parts that need a closer no longer ahead: (`}` ahead, `)` ahead) -> it.
EXPANSION_AHEAD = {
    (brace, paren): re.compile(
        "|".join(
            [EXPANSION_BRACED] * brace + [EXPANSION_PARENTHESIZED] * paren + [EXPANSION_OTHERS]
        )
    )
    for brace in (True, False)
    for paren in (True, False)
}


def expansions(word: str) -> Iterator[re.Match[str]]:
    """`EXPANSION.finditer(word)`, in time linear in the word. Past the last `}` of a word, a
    `${` cannot close, and finditer would read to the end from each one to find that out:
    quadratic in a word of `${` alone (`$(` likewise), which a hook or a tool's settings
    may hold (tools/spans.py says why that matters). Past it, the part is left out."""
    last_brace, last_paren = word.rfind("}"), word.rfind(")")
    at = 0
    while (found := EXPANSION_AHEAD[at < last_brace, at < last_paren].search(word, at)) is not None:
        yield found  # (never empty: each part takes a `$`, a backquote or a `~`)
        at = found.end()


class UntoldProgram(NamedTuple):
    """A program or script git runs whose path a shell expansion makes: `worktree` is where
    git runs it from (None for your own configs read alone), `word` the word as written."""

    worktree: Path | None
    word: str

    def may_be(self, candidate: Path) -> bool:
        """Whether `candidate` could be the file: its path ends as the word does after its last
        expansion (`"$(git rev-parse --show-toplevel)"/tools/conv`: any `.../tools/conv`), or,
        for a word that ends in one, begins as the word does before its first
        (`tools/pg$(true)`: any `tools/pg...`)."""
        if tail := self.tail():  # (or lies in it: a folder a tool runs from, `path:./x`)
            return str(candidate).endswith(tail) or f"{tail}/" in str(candidate)
        head = self.head()
        return bool(head) and str(candidate).startswith(head)

    def names_a_file(self) -> bool:
        """Whether some file of the tree may be it: not a word the shell makes whole (`$1`,
        `"$@"`), which names none."""
        return bool(self.tail() or self.head())

    def head(self) -> str:
        """The path the word's text before its first expansion makes, from the working tree
        (`tools/pg` of `tools/pg$(true)`), or "" when there is no such text."""
        pieces = [*expansions(self.word), *PATTERN.finditer(self.word)]
        start = min((piece.start() for piece in pieces), default=len(self.word))
        literal = os.path.expanduser(self.word[:start].replace('"', "").replace("'", ""))
        if not literal.strip("./") or os.path.isabs(literal) or self.worktree is None:
            return ""  # (a system path's ending is none of the workspace's business)
        return str(Path(os.path.normpath(self.worktree / literal)))

    def tail(self) -> str:
        """What the word ends with after its last expansion (or pattern), when that names a
        file (`/tools/conv`); "" for a word the shell makes whole (`$1`, `origin/$`)."""
        pieces = [*expansions(self.word), *PATTERN.finditer(self.word)]
        end = max((piece.end() for piece in pieces), default=0)
        tail = self.word[end:].rstrip("/").strip("\"'")
        return tail if tail.strip("/") else ""


@dataclass
class ByName:
    """What a command line runs by a name rather than by a path: files that run only once
    they are made, with why (those python would take the module of a `python -m x` from,
    `module_files`: held while they exist, reported when a command makes one), and each call
    of a program that runs
    what a file of its folder names (FOLDER_RUNNERS: npm's package.json, docker compose's
    compose.yaml), with the folder it is called from (None where only the shell can tell),
    the program and the words that follow (`npm run watch`: ("run", "watch"))."""

    when_there: list[tuple[Path, str]] = field(default_factory=list)
    calls: list[tuple[Path | None, str, tuple[str, ...]]] = field(default_factory=list)
    # Each program a line runs by its name alone, with the folder it runs from: npm's scripts
    # look for those in node_modules/.bin first (tools/tool_scripts.py `_package_runs`).
    programs: list[tuple[Path, str]] = field(default_factory=list)
    # Option files a compiler it runs reads that planloop cannot (too many, or unreadable):
    # what that compiler loads is unknown (tools/environment.py `_in_option_files`).
    unread: list[str] = field(default_factory=list)
    # The package folders whose package.json was read already (tools/tool_scripts.py `run_by`):
    # six hooks that each run `npm --prefix web test` read web's scripts once.
    packages_read: set[Path] = field(default_factory=set)
    # Each linter or formatter run that takes a config from the folder of each file it checks
    # (tools/per_file_configs.py), with the project it runs in: its configs anywhere below count.
    per_file: list[tuple[Path, str]] = field(default_factory=list)


# Programs that run what a file of their folder names (tools/tool_scripts.py reads it): the
# package managers (package.json) and compose (`docker compose`, compose.yaml).
NODES = ("node", "nodejs")
# Interpreters of code that takes a package from node_modules by its name (`require("yaml")`).
NODE_CODE = (*NODES, "tsx", "ts-node", "bun", "deno")
PACKAGE_MANAGERS = ("npm", "pnpm", "yarn", "bun")
COMPOSE_PROGRAMS = ("docker", "podman", "docker-compose", "podman-compose")
FOLDER_RUNNERS = (*PACKAGE_MANAGERS, *COMPOSE_PROGRAMS)


def run_by_npx(word: str, base: Path, by_name: ByName | None) -> list[str]:
    """What `npx WORD` (`npm exec WORD`) runs from `base` by a package's name: the project's
    own node_modules/.bin entries of the programs it may start (`bins_run`), and that
    package's code (held, or told when made). Those programs' names, or none for no name."""
    if (package := package_name(word)) is None:
        return []
    programs = bins_run(package, base)
    run = NodeNames()
    for program in programs:
        bin_paths(program, base, found=run)
    node_names_held(package_paths(package, base, found=run), by_name)
    return programs


def npm_option(word: str) -> str:
    """The npm option `word` gives, by its long name without dashes (`-C` and `--prefi` are
    `prefix`, `--no-prefi` is `no-prefix`), or "" for a word that is none (a package's name,
    `--` that ends npm's options). Read as npm's option parser (nopt) reads one: a name of its
    own first, then a shorthand, a bundle of letters (the last one's, which takes the next
    word: `-yC web`), and the one option or shorthand a word begins alone."""
    if not word.startswith("-") or not word.strip("-"):
        return ""
    name = word.lstrip("-").partition("=")[0]
    if name in NPM_OPTIONS:
        return name
    if name in NPM_SHORTHANDS or name in NPM_FLAG_SHORTHANDS:
        return NPM_SHORTHANDS.get(name, name)  # (`--local` is `--no-global`, no `--local-a`)
    if all(letter in NPM_LETTERS for letter in name):
        return NPM_LETTERS[name[-1]] or name[-1]
    if named := _begun(name, NPM_OPTIONS):
        return named
    if shorthand := _begun(name, (*NPM_SHORTHANDS, *NPM_FLAG_SHORTHANDS)):
        return NPM_SHORTHANDS.get(shorthand, shorthand)
    # (`--no-prefi web`: prefix set to false; `web` is no value of it)
    negated = re.match(r"(?i:no-)+", name)
    unsaid = name[negated.end() :] if negated else name
    return name[: len(name) - len(unsaid)] + (_begun(unsaid, NPM_OPTIONS) or unsaid)


def _begun(word: str, names: Iterable[str]) -> str:
    """The one name of `names` that begins with `word`, or "" for none or several."""
    begun = [name for name in names if name.startswith(word)]
    return begun[0] if len(begun) == 1 else ""


def npm_takes_value(option: str) -> bool:
    """Whether npx takes the word after the option `option` for its value, as it reads its
    words before the package: `--prefix`, not `--yes` (`npx --yes true` runs `true`) nor
    `--no-install`, nor `--prefix=web`."""
    name = npm_option(option)
    return "=" not in option and name in NPM_VALUE_OPTIONS


class NpmWord(NamedTuple):
    """A word of npm's own line as npm's option parser (nopt) reads it: an option, by its long
    name (`no-yes` for `-n`), with the value it takes and the place in the line of the word
    that gave that value (None for none, or for one given with it: `--prefix=web`, `-d`'s
    `info`); or, with `option` "", a word that is no option (its command, an argument), as
    `value` at `place`."""

    place: int
    option: str
    value: str | None = None
    value_place: int | None = None


class UnreadNpmOption(WordTooLong):
    """An npm option that npm reads by a list of types planloop does not take apart (`--no-otp
    x`: `x` may be its value or npm's command): what npm runs cannot be told, and commands
    ask, as for a line too long to read."""


def npm_words(words: list[str] | tuple[str, ...], start: int) -> Iterator[NpmWord]:
    """The words of npm's line from `words[start]` to the end of its command, read as npm's
    option parser (nopt) reads them, wherever they stand (`npm exec fmt --package=./x` is
    npm's `--package` too): a word with `=` is two (`--yes=exec` is `--yes`, then the command
    `exec`), a shorthand is the words it stands for (`-yC web` is `--yes --prefix web`), an
    option takes the next word when its type lets it (`--yes true`, `--color always`,
    `--browser lint`, `--prefix web`; not `--call --yes`), and after `--` no word is an
    option."""
    end = start
    while end < len(words) and (words[end] not in PUNCTUATION or words[end] == "exec"):
        end += 1
    ahead = deque((words[place], place) for place in range(start, end))  # still to read
    while ahead:
        word, place = ahead.popleft()
        if re.fullmatch(r"--+", word):
            yield from (NpmWord(at, "", rest) for rest, at in ahead)
            return
        if not word.startswith("-") or word == "-":
            yield NpmWord(place, "", word)
            continue
        name, joined, given = word.partition("=")
        if joined:
            ahead.appendleft((given, place))
        stands_for = _npm_expansion(name.lstrip("-"))
        if stands_for is not None:  # (re-read from its first word)
            ahead.extendleft((each, place) for each in reversed(stands_for))
            continue
        bare = name.lstrip("-")
        negated = re.match(r"(?i:no-)+", bare)
        bare = bare[negated.end() :] if negated else bare
        option = bare if bare in NPM_OPTIONS else _begun(bare, NPM_OPTIONS)
        follows = ahead[0][0] if ahead else None
        if follows is not None and _npm_takes(option, bool(negated), bool(joined), follows):
            value, value_place = ahead.popleft()
            yield NpmWord(place, "no-" * bool(negated) + (option or bare), value, value_place)
        else:
            yield NpmWord(place, "no-" * bool(negated) + (option or bare))


def _npm_expansion(name: str) -> list[str] | None:
    """The words npm's shorthand `name` (dashes taken off) stands for, or None for a word that
    is none: an option's own name first, then a shorthand, a bundle of one-letter ones (`yC`),
    an option's name begun alone (`prefi`), and a shorthand's begun alone (`verb`)."""
    letters = [NPM_EXPANSIONS.get(letter, "") for letter in name]
    if name in NPM_OPTIONS:
        return None
    if name in NPM_EXPANSIONS:
        return NPM_EXPANSIONS[name].split()
    if all(letters):  # (an empty name stands for nothing, as in npm: `-=x` is `x`)
        return " ".join(letters).split()
    if _begun(name, NPM_OPTIONS):
        return None
    shorthand = _begun(name, NPM_EXPANSIONS)
    return NPM_EXPANSIONS[shorthand].split() if shorthand else None


def _npm_takes(option: str, negated: bool, joined: bool, follows: str) -> bool:
    """Whether npm takes the word `follows` for the value of `option` (its long name, "" for one
    npm does not know), given `--no-` (`negated`), or with `=` (`joined`: the value follows).
    A flag takes `true` or `false`, and the words its other types let it; so does an option
    given `--no-`, and one npm does not know given alone. Any other takes the next word, but
    `--`, and for a String one a word like an option's."""
    if option in NPM_FLAG_OPTIONS or negated or not (option or joined):
        if follows in ("true", "false"):
            return True
        if not follows:
            return False
        if option in NPM_FLAG_OPTIONS:
            if follows in NPM_FLAG_WORDS.get(option, ()):
                return True
            return option in NPM_STRING_FLAGS and not re.match(r"-[^-]", follows)
        if option and option not in NPM_ONE_TYPED:
            raise UnreadNpmOption(f"an npm option `--no-{option}` before `{follows}`")
        return False
    if re.fullmatch(r"--+", follows):
        return False
    return not (option in NPM_STRING_OPTIONS and re.match(r"--?[^-]", follows))


def node_names_held(names: NodeNames, by_name: ByName | None) -> None:
    """What node or npm takes from node_modules by a name (tools/node_packages.py): held while
    it is there, told when a command makes it."""
    if by_name is not None:
        by_name.when_there += [(path, NODE_PACKAGE_REASON) for path in names.paths]


def module_files(module: str, base: Path) -> list[Path]:
    """The paths in `base` python would take `module` from (`python -m pkg.tool` starts with
    `pkg`): a folder of its name, a file of its name with one of MODULE_SUFFIXES, and its
    compiled copies in `__pycache__`, which run in place of its source (python trusts one whose
    header gives the source's time and size, and a command can write that)."""
    top = module.split(".")[0]
    if not top.isidentifier():
        return []  # no module python would look for
    return [
        base / top,
        *(base / f"{top}{suffix}" for suffix in MODULE_SUFFIXES),
        *_cached_copies(base, {top}),
    ]


def _cached_copies(folder: Path, names: Container[str]) -> list[Path]:
    """The compiled copies in `folder`/__pycache__ of the modules `names` (`fmt.*.pyc`)."""
    with contextlib.suppress(OSError, ValueError), os.scandir(folder / CACHED_MODULES) as cached:
        return [Path(e.path) for e in cached if e.name.split(".")[0] in names]
    return []


def modules_in(folder: Path) -> list[tuple[Path, str]]:
    """What python started in `folder` with no script of its own (`python -c`, `python -m`,
    code on its input) may import from there, with why. Such a python takes every module from
    its folder first, also those that python itself and the installed packages import on the
    way (`json` imports `re`). So each module there with a name of the standard library, and
    its compiled copies, is held (PYTHON_FOLDER_REASON); any other, as a file (`x.py`, an
    extension module) or a package folder (with an `__init__`), is the project's own, and is
    told when a command makes one (PYTHON_NEW_MODULE_REASON). At most MAX_FOLDER_ENTRIES
    entries are read (a folder is not a package store); past them, the standard library's
    names are looked up one by one, since a command could make thousands of files to put one
    of those past the listing."""
    found: list[tuple[Path, str]] = []
    listed = 0
    with contextlib.suppress(OSError, ValueError), os.scandir(folder) as entries:
        for entry in itertools.islice(entries, MAX_FOLDER_ENTRIES + 1):
            listed += 1
            if listed > MAX_FOLDER_ENTRIES:
                found += [(path, PYTHON_FOLDER_REASON) for path in _standard_modules_in(folder)]
            elif _is_module(entry):
                standard = entry.name.split(".")[0] in sys.stdlib_module_names
                why = PYTHON_FOLDER_REASON if standard else PYTHON_NEW_MODULE_REASON
                found.append((Path(entry.path), why))
    cached = _cached_copies(folder, sys.stdlib_module_names)
    return list(dict.fromkeys(found + [(path, PYTHON_FOLDER_REASON) for path in cached]))


def _standard_modules_in(folder: Path) -> list[Path]:
    """Each module of a standard library name in `folder`, by its name: a file of a module's
    form, or a package folder."""
    found = []
    for name in sys.stdlib_module_names:
        found += [folder / (name + suffix) for suffix in MODULE_SUFFIXES]
        inits = [folder / name / f"__init__{suffix}" for suffix in MODULE_SUFFIXES]
        found += [folder / name] if any(map(os.path.lexists, inits)) else []
    return [path for path in found if os.path.lexists(path)]


def _is_module(entry: os.DirEntry) -> bool:
    """Whether python imports the folder entry as a module: a file of a module's form, or a
    package folder (one with an `__init__`; a folder without one yields to an installed
    module of its name)."""
    if not entry.name.split(".")[0].isidentifier():
        return False
    if not entry.is_dir():
        return entry.name.endswith(MODULE_SUFFIXES)
    inits = (os.path.join(entry.path, f"__init__{suffix}") for suffix in MODULE_SUFFIXES)
    return any(os.path.lexists(init) for init in inits)


def is_script_name(word: str) -> bool:
    return word.lower().endswith(SCRIPT_SUFFIXES)


@functools.lru_cache(maxsize=4096)  # (a look asks it of each word, several times)
def program_name(program: str) -> str:
    """A program's name without its folder, version or build: `/usr/bin/python3.12-dbg` is
    `python`, `pypy3` is `pypy`, `Rscript` is `rscript`."""
    name = os.path.basename(program).lower().removesuffix(".exe")
    # (From the start of a run of digits only: from each one, a long run was quadratic.)
    return re.sub(r"(?<![\d.])[\d.]*+(-dbg|-debug)?$", "", name) or name


def runs_a_script(program: str, flag: str) -> bool:
    """Whether the word after `program` and its option `flag` (or "") is the script it runs:
    an interpreter's first argument, not after a code flag (`sh -c cmd`); `awk -f x`."""
    name = program_name(program)
    if name in INTERPRETERS and flag == "-s" and INTERPRETERS[name] == SHELL_FLAGS:
        return False  # `sh -s arg`: the script comes on its input, `arg` is its argument
    if name in INTERPRETERS:
        return flag not in INTERPRETERS[name] and flag not in value_flags(name)
    return SCRIPT_AFTER.get(name) == flag == "-f"


def swift_subcommand(words: list[str] | tuple[str, ...]) -> bool:
    """Whether `swift WORD ...` runs the program `swift-WORD` (SwiftPM's `swift build`, `swift
    package X`) rather than a script: swift's driver does so for a first word that is no
    option, holds no `.` or `/`, and is not `repl`."""
    first = words[1] if len(words) > 1 else ""
    return (
        bool(first)
        and first != "repl"
        and not first.startswith("-")
        and not any(mark in first for mark in "./")
    )


def runs_a_script_named(program: str, word: str, base: Path | None) -> bool:
    """Whether `program run word` runs the file `word` (`deno run conv`, `uv run conv.py`).
    uv, poetry, pipenv and pdm run a bare name from the environment's PATH (`uv run ruff`),
    and bun a package.json script of that name (`bun run lint`): a file only when it is
    written as a path or named like a script, or is there."""
    name = program_name(program)
    if SCRIPT_AFTER.get(name) != "run":
        return False
    if name in ("deno", "go") or "/" in word or is_script_name(word):
        return True
    if base is None or not os.path.lexists(base / word):
        return name == "bun" and word not in _package_scripts(base)
    return True


def _package_scripts(base: Path | None) -> dict:
    """The scripts of the package.json in `base` ({} for none, or one that cannot be read)."""
    if base is None:
        return {}
    with contextlib.suppress(OSError, ValueError, RecursionError):
        package = json.loads(read_small_file(base / "package.json"))
        scripts = package.get("scripts") if isinstance(package, dict) else None
        return scripts if isinstance(scripts, dict) else {}
    return {}


def value_flags(name: str) -> tuple[str, ...]:
    if INTERPRETERS.get(name) == SHELL_FLAGS:
        return VALUE_FLAGS["shell"]
    return VALUE_FLAGS.get(name, ())


# The characters one command line's reading reads, its nested lines' included: a command's
# output, `bash -c`'s code and an `eval`'s line are each read again as a line of their own, so
# outputs nested deep (`$(echo $(echo ...))`) would be read in time of their depth times their
# length, minutes for a line of 60 KB. Past this the line counts as one too long to read, and
# commands ask.
MAX_NESTED_READING = 4 * MAX_SHELL_TEXT
_read_so_far: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "read_so_far", default=None
)


@contextlib.contextmanager
def _reading(line: str) -> Iterator[None]:
    """Counts `line` against MAX_NESTED_READING, with every line read inside the outermost
    reading; WordTooLong past it."""
    read = _read_so_far.get()
    begun = _read_so_far.set([0]) if read is None else None
    try:
        count = _read_so_far.get()
        count[0] += len(line)
        if count[0] > MAX_NESTED_READING:
            raise WordTooLong(
                f"a command line whose nested lines hold more than {MAX_NESTED_READING:,}"
                " characters in all"
            )
        yield
    finally:
        if begun is not None:
            _read_so_far.reset(begun)


def program_paths(
    value: str,
    worktree: Path | None,
    untold: list[UntoldProgram] | None = None,
    unmade_arguments: bool = True,
    by_name: ByName | None = None,
    environment: dict[str, str] | None = None,
) -> list[Path]:
    """The files a command line from git's config names: its program, and later words written
    as paths. `~` is expanded; a relative path with a slash is taken from `worktree` (git runs
    these from the top of the working tree), and left out when there is none.

    A later word without a slash counts when it names something at the top of the tree, ends
    like a script's name, or stands where an interpreter takes its script (`sh fsmon`,
    `bash -e fsmon`, `awk -f conv`, `deno run conv`), made yet or not. A program or such a
    script whose path a shell expansion makes (`"$(git rev-parse --show-toplevel)"/x`,
    `sh ~+/x`) cannot be told: it goes to `untold`, for which commands ask.

    Without `unmade_arguments`, a later word that names nothing yet counts only where it
    stands as a script or is named like one: an MCP server's arguments are mostly package and
    image names (`@scope/server`, `ghcr.io/org/server`), not files.

    What it runs by a name goes to `by_name`: the files a `python -m NAME` would take its
    module from (most are not there, and are held only once they are: tools/sandbox.py
    `held_when_there`), and the package managers it calls. `environment`: the variables the
    tool sets for the line (a hook's `env` table).
    """
    with _reading(value):
        return _line_paths(value, worktree, untold, unmade_arguments, by_name, environment)


def _line_paths(
    value: str,
    worktree: Path | None,
    untold: list[UntoldProgram] | None,
    unmade_arguments: bool,
    by_name: ByName | None,
    environment: dict[str, str] | None,
) -> list[Path]:
    value = value.removeprefix("!")  # an alias that runs a program
    # A command's output in a word (`$(git rev-parse --show-toplevel)/tools/conv`) is part of
    # that word, not punctuation that splits it: set aside while the line is split, and the
    # command inside read as a command line of its own (`$(./scripts/branch.sh)` runs it).
    # (Nested as the shell nests them: in `"$(printf ")" " #")"; ./x`, the output ends last.)
    spans = command_outputs(value) if "$(" in value or "`" in value else []
    outputs = [value[start:end] for start, end in spans]
    found: list[Path] = []
    for output in outputs:
        inner = output[2:-1] if output.startswith("$(") else output[1:-1]
        found += program_paths(inner, worktree, untold, unmade_arguments, by_name)
    for start, end in reversed(spans):
        value = value[:start] + SET_ASIDE + value[end:]
    if len(value) > MAX_SHELL_TEXT:  # (shlex's time is in the square of a word's length)
        raise WordTooLong(f"a command line of more than {MAX_SHELL_TEXT:,} characters")
    # (shlex takes a `#` anywhere in a word for a comment: `a#b; ./x` would hide `./x`; and
    # quoting shells read apart raises, outside the `try` that takes an open quote whole)
    code = _tildes_the_quotes_keep(without_shell_comments(value))
    try:
        lexer = shlex.shlex(code, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.whitespace = SHELL_BLANKS  # a carriage return is part of a word, as in bash
        lexer.commenters = ""
        words = list(lexer)
    except ValueError:  # an open quote: git's shell would refuse it, but take it whole
        words = [word for word in re.split(f"[{SHELL_BLANKS}]+", value) if word]
    restored = iter(outputs)
    if SET_ASIDE in value:
        words = [re.sub(SET_ASIDE, lambda _: next(restored, ""), word) for word in words]
    # Your environment's variables are what git's shell has too (`ssh -i $HOME/.ssh/key`,
    # `!$EDITOR`); one it sets itself (`$GIT_DIR`, `$1`), or a command's output, cannot be told.
    # (Not $PWD: where the line runs is the base below, not where planloop runs.)
    words = [_expanded(piece) for word in words for piece in _operators(word)]
    # Each word as a program is given it (a `~` the quotes kept is a folder of that name where
    # the line runs: `sh "~/lint.sh"` runs ./~/lint.sh), and as written (`marked`): a word that
    # is a shell's code gives that shell its `~` (`sh -c "~/x"` runs your home's x).
    marked, words = words, [_as_given(word) for word in words]
    written = [word.replace(QUOTED_TILDE, "~") for word in marked]  # (make expands its own `~`)
    # Where relative paths start: the top of the tree, or where `cd DIR`, `env -C DIR` or
    # `uv --directory DIR` moved; None once moved somewhere only the shell can tell. A move
    # inside a subshell, or in a pipeline's stage or a background command (each a subshell
    # too), ends with it: `(cd tools && ./x); ./y` runs ./y from the top.
    base = worktree
    outer: list[Path | None] = []  # where each subshell still open started
    # The variables set so far: by the tool for the line (its `env` table), then on the line.
    assigned: dict[str, str] = dict(environment or {})
    pipeline_base = base  # where the pipeline being read started
    # The program of the simple command being read ("" until its word comes), and a program
    # that only runs the next one (`env`, `nice`) met before it.
    command, runner = "", ""
    # The last two words before this one that are neither options nor an option's value:
    # the program (`python3 -u hook`), and the one before it (`deno run --allow-all conv`).
    last, before_last = "", ""
    # `cat fsmon | sh`: the files cat reads are run; `echo 'import x' | python3`: the text is.
    fed, fed_code = _fed_to_an_interpreter(words)
    read_to = 0  # the words up to here were read as an `eval`'s line
    # Where the `exec` (`x`) of an npm on the line stands: the words after it are npx's, which
    # takes packages from the node_modules of `npx_from` (`--prefix web`), else where it runs.
    npx_at: int | None = None
    npx_from = base
    # The places of the words npm's options take for their values, where npm (not npx) reads
    # the words after its `exec` (`npm exec --yes true -- fmt`), as its parser does.
    npm_values: set[int] | None = None
    find_roots: list[str] = []  # the folders a `find` of the line searches

    def read_line(code: str) -> list[Path]:  # a shell's code, read as a line from here
        return program_paths(code, base, untold, unmade_arguments, by_name, assigned)

    for index, (before, word) in enumerate(zip(["", *words], marked, strict=False)):
        if index == 0 or before in PUNCTUATION:
            command, runner = "", ""
            find_roots.clear()
        if index == npx_at:
            continue  # (npm's `exec`: npx's words follow)
        if npx_at is not None and index == npx_at + 1:
            command, runner = "", "npx"
        if base is not None:
            here = str(base)
            word = WHERE_IT_RUNS.sub(lambda _, here=here: here, word)  # `HOME=$PWD`, `$(pwd)/x`
        word = RESOLVED.sub(lambda match: next(group for group in match.groups() if group), word)
        if "$" in word and assigned:  # `X=tools/fmt; bash -c "$X"`: set on the line, or by the tool
            word = LINE_VARIABLE.sub(
                lambda match: assigned.get(match[1] or match[2], match[0]), word
            )
        if "${" in word:  # `"${MAKE:-make}" lint`: your environment's value, else the default
            word = DEFAULTED.sub(lambda match: without_secrets().get(match[1]) or match[2], word)
        code_word, word = word.replace(QUOTED_TILDE, "~"), _as_given(word)
        if word in PUNCTUATION:
            if word in ("(", "<(", ">("):
                outer.append(base)
            elif word == ")" and outer:
                base = outer.pop()
            elif word in ("|", "&"):
                base = pipeline_base
            pipeline_base = base if word != "|" else pipeline_base
            continue  # (`sh; ls`: no script named `;`)
        if before == "<<<" and program_name(command) in INTERPRETERS:
            # `python3 - <<< 'import fmt'`, `sh <<< '. tools/x.sh'`: the text is its code.
            found += _code_given(program_name(command), code_word, base, read_line, by_name, untold)
            continue
        if word in ("{}", "./{}") and find_roots and _runs_what_find_finds(words[:index]):
            # `find tools -exec {} \;`, `-exec sh {} +`: every file found there runs.
            found += [_from(base, root) for root in find_roots] if base is not None else []
            continue
        # (`find -L tools`, `/usr/bin/find -O3 tools`: its folders come before its tests)
        if (
            command == "find"
            and not word.startswith("-")
            and before not in ("-D", "-O")  # (their values)
            and before
            in (
                *[w for w in words[:index] if program_name(w) == "find"],
                *find_roots,
                *FIND_OPTIONS_BEFORE_FOLDERS,
            )
        ):
            find_roots.append(word)
        if word in PLACEHOLDERS or before in PATTERN_FLAGS and command in PATTERN_PROGRAMS:
            continue  # `find -exec black {} +`, `parallel sh ::: x`; `find -name '*.py'`
        if word in REDIRECTIONS or word in NOT_A_FILE or before in NOT_A_FILE:
            continue  # the next word is a file (or text), and the program's word may come
        if word.isdigit() and words[index + 1 : index + 2] and words[index + 1] in REDIRECTIONS:
            continue  # the descriptor of `sh 0<fsmon`
        if (
            SCRIPT_AFTER.get(command) == "-f"
            and word.startswith(("--file=", "-f"))
            and (word not in ("-f", "--file="))
        ):
            # `awk -f./conv`, `make --file=conv`: the script joined to its option.
            script = word.removeprefix("--file=") if word.startswith("--") else word[2:]
            found += _told(script, base, worktree, untold) if base is not None else []
            continue
        if before in REDIRECTIONS:
            # `<tools/fsmon.sh sh`: what a program reads on its input a shell runs as a script.
            if before == "<" and base is not None:
                found += _told(word, base, worktree, untold)
            continue
        previous, program_before = last, before_last
        is_value = before in value_flags(program_name(previous)) or (
            not command
            and (
                before in RUNNERS.get(runner, ())
                or runner == "npx"
                and (npm_takes_value(before) if npm_values is None else index in npm_values)
            )
        )
        moves = MOVES_TO.get(command or runner, ())
        joined = next((f for f in moves if f.startswith("--") and word.startswith(f + "=")), "")
        if command in ("cd", "pushd") and previous == command and word.startswith("-"):
            if word == "-":  # back where it was: only the shell can tell
                base = None
            continue  # `cd -P tools`, `cd -- tools`, `pushd -n tools`: the folder comes next
        if before in moves or joined or (command in ("cd", "pushd") and previous == command):
            folder = word.removeprefix(joined + "=") if joined else word
            physical = command not in ("cd", "pushd")  # (the shell's cd is logical: `cd ..`)
            up = base is not None and worktree is not None and physical
            if up and past_a_folder_of_the_tree(base / folder, worktree):
                # `cd web && make -C ..`: make goes up from where web leads, which a command
                # can turn into a link.
                _cannot_tell(os.path.relpath(base / folder, worktree), worktree, untold)
                base = None
                continue
            through_cdpath = command in ("cd", "pushd") and _through_cdpath(folder, assigned)
            base = None if through_cdpath else _moved(base, folder, worktree)
            before_last, last = last, word  # `cd tools && ./run` runs tools/run
            continue
        if index < read_to:
            continue  # (read above, as part of an `eval`'s line)
        if before == "eval" and base is not None:
            # `eval HOME=tools/h`, `eval "export X=...; sh y"`: its words are a line of its own;
            # `eval "$(cat fsmon)"`: the file's text is.
            ends = (i for i in range(index, len(words)) if words[i] in PUNCTUATION)
            read_to = next(ends, len(words))
            found += read_line(" ".join(words[index:read_to]))
            for read in CODE_READ.findall(" ".join(words[index:read_to])):
                found += _told(read, base, worktree, untold)
            continue
        if runner == "env" and not command and before in ("-S", "--split-string"):
            # `env -S 'sh x'`
            found += program_paths(word, base, untold, unmade_arguments, by_name, assigned)
            continue
        if command == "git" and (word.startswith("--config-env=") or before == "--config-env"):
            # `git --config-env=core.fsmonitor=FSM` (or two words): the setting is that
            # variable's value, set on the line, by the tool, or in your environment.
            key, _, variable = word.removeprefix("--config-env=").partition("=")
            setting = assigned.get(variable, without_secrets().get(variable, ""))
            found += _setting_paths(key, setting, base, untold, by_name)
            continue
        if command == "git" and before == "-c":  # `git -c core.pager=tools/pg log`
            key, _, setting = word.partition("=")
            found += _setting_paths(key, setting, base, untold, by_name)
            continue
        if (module := _module_named(command, previous, before, word)) is not None:
            if base is None:
                _cannot_tell(f"${{PWD}}/{module}", worktree, untold)  # `cd "$d" && python -m x`
            elif by_name is not None:
                by_name.when_there += [
                    (p, PYTHON_MODULE_REASON) for p in module_files(module, base)
                ]
                by_name.when_there += modules_in(base)
            before_last, last = last, word  # what follows is the module's, not a script
            continue
        # After a program that is neither an interpreter nor git, a word naming one, a package
        # manager or a build tool is most likely what it runs (`timeout 60 npm run watch`,
        # `corepack yarn`, `npx cross-env X=1 npm run dev`, `xvfb-run sh later`, `flock /tmp/l
        # make lint`, `nix develop -c make`): read as a command of its own.
        is_program = not command or (
            command not in INTERPRETERS
            and command not in ("git", *FOLDER_RUNNERS, *NAMES_ONLY)
            and not is_value
            and program_name(word) in (*INTERPRETERS, *FOLDER_RUNNERS, *BUILD_TOOLS)
            and word not in (".", "source")  # (builtins no program runs: `find . -exec x`)
        )
        if (is_program or command in SETTERS) and ASSIGNMENT.match(word):
            # `BASH_ENV=tools/env.sh bash -c true`: a variable set for the program that names
            # code it runs or loads; the program's word is still to come. (`export PATH=...`
            # sets it for the commands after.)
            name, _, setting = word.partition("=")
            if name.endswith("+"):  # `HOME+=/../tools`: added to a value only the shell knows
                _cannot_tell_variable(name[:-1], worktree, untold)
                continue
            if name in SHELL_STATE:
                raise SplitByTheShell(f"a command line that sets {name}")
            assigned[name] = setting
            if command in SETTERS and runs_something(setting):
                # `declare -n r=HOME`: what `r=` sets later is HOME.
                _cannot_tell_variable(setting, worktree, untold)
            if runs_something(name):  # `GIT_PAGER=tools/pg git log`
                found += variable_paths(name, setting, base, untold, by_name)
            elif base is not None:
                unread = by_name.unread if by_name is not None else None
                named = code_paths_of(name, setting, base, unread)
                found += [_from(base, path) for path in named]
                found += loaded_by_name(name, setting, base, by_name)
            continue
        if command in SETS_BY_NAME and not is_program and runs_something(word):
            # `read HOME`, `printf -v HOME`, `for HOME in`: set to what only the shell knows.
            _cannot_tell_variable(word, worktree, untold)
            continue
        if command == "for" and index >= 3 and words[index - 1] == "in":
            # `for f in tools/hooks/*; do "$f"; done`: $f is each of those files.
            assigned[words[index - 2]] = word
        if is_program and runner == "npx" and (is_value or word.startswith("-") and "=" in word):
            # npx's own options (npm exec's): where it takes packages from, a line it runs.
            option, value = (before, word) if is_value else word.split("=", 1)
            if npm_option(option) == "prefix":
                npx_from = _moved(base, value, worktree)
                if npx_from is None:
                    _cannot_tell(f"{value}/node_modules", worktree, untold)
            elif npm_option(option) == "call":
                # `npx -c 'prettier --check .'`: a shell's line, with each node_modules/.bin
                # up from npx's folder first on its PATH, as an npm script's.
                named_before = len(by_name.programs) if by_name is not None else 0
                found += read_line(value)
                for _, program in by_name.programs[named_before:] if by_name else []:
                    if npx_from is not None:
                        node_names_held(bin_paths(program, npx_from), by_name)
            elif npm_option(option) == "package" and base is not None:
                # `npx -p ./tools/fmt fmt`: the program is that package's, from its folder.
                found += _local_package(value, base, worktree, untold)
            continue
        if is_program and (word.startswith("-") or is_value):
            continue  # an option of `env` or `nice`, or its value
        elif is_program and program_name(word) in RUNNERS:
            runner, npx_from, npm_values = program_name(word), base, None
            continue
        elif is_program:
            command = program_name(word)
            after_exec = before == "exec" and index > 1 and words[index - 2] in PACKAGE_MANAGERS
            packages_from = npx_from if runner == "npx" else base
            tools = [command]
            if runner in PACKAGE_RUNNERS or after_exec or "@" in word[1:]:
                # `npx lint-staged@16`, `npm exec -- lint-staged@16`: lint-staged; `npx
                # @commitlint/cli`: the bin its package names, commitlint
                package = package_name(word)
                named = bins_run(package, packages_from) if package and packages_from else []
                tools = [program_name(bin) for bin in named or [bin_name(package or word)]]
                command = tools[0]
            if command == "npm" and base is not None:
                if (exec_at := _npm_exec(words, index, base, worktree, untold)) is None:
                    npx_at, npx_from, npm_values = None, base, None
                else:
                    npx_at, npx_from, npm_values = exec_at.place, exec_at.folder, exec_at.values
                    found += exec_at.local  # (`npm --package ./tools/fmt exec -- fmt`)
                    for spec in exec_at.packages:  # (`npm exec --yes=./tools/fmt`)
                        found += _local_package(spec, base, worktree, untold)
                        if npx_from is not None:
                            run_by_npx(spec, npx_from, by_name)
            if by_name is not None and base is not None and "/" not in word:
                by_name.programs.append((base, word))
            for tool in tools:
                _called(tool, words, index, base, by_name, assigned, written)
            if packages_from is not None and (runner in PACKAGE_RUNNERS or after_exec):
                run_by_npx(word, packages_from, by_name)  # (`npm exec x` too)
                if runner in PACKAGE_RUNNERS and by_name is not None:
                    by_name.calls.append((base, runner, ()))  # npx reads npm's .npmrc there
            if runner in PACKAGE_RUNNERS and not word.startswith((".", "/", "~")):
                if base is not None:  # (`npx file:tools/fmt` runs that folder's package)
                    found += _local_package(word, base, worktree, untold)
                before_last, last = last, word
                continue  # a package's name (`npx -y @scope/server`), no path
        if not (word.startswith(("-", "+")) or is_value):
            before_last, last = last, word
        is_script = not is_program and (
            runs_a_script(previous, before if before.startswith("-") else "")
            and (previous not in (".", "source") or previous == command)  # (`find . -exec`)
            or (previous == "run" and runs_a_script_named(program_before, word, base))
            or (index in fed and not word.startswith("-"))
        )
        if is_script:  # `sh gradlew build`, `bash ./mvnw compile`: as `./gradlew build` is
            _called(_script_tool(previous, word), words, index, base, by_name, assigned, written)
        if before == "eval" or (before == "-c" and INTERPRETERS.get(program_name(previous))):
            # `eval "$(cat fsmon)"`, `sh -c "$(cat fsmon)"`: the file's text is the code.
            for read in CODE_READ.findall(code_word):
                found += _told(read, base, worktree, untold) if base is not None else []
        interpreter = program_name(previous)
        code_flags = INTERPRETERS.get(interpreter, ())
        if interpreter in PYTHONS and re.fullmatch(r"-[A-Za-z]*c", before) and before != "-c":
            before = "-c"  # `python3 -Bc 'import fmt'`
        if interpreter in PYTHONS and word.startswith("-c") and len(word) > 2 and not is_program:
            before, word = "-c", word[2:]  # `python3 -c'import fmt'`
        joined_code = next(
            (f for f in code_flags if f[:2] == "--" and word.startswith(f + "=")), ""
        )
        if joined_code and not is_program:
            before, word = joined_code, word.removeprefix(joined_code + "=")  # `--eval='...'`
        if not is_program and before in code_flags and code_flags != SHELL_FLAGS:
            # `python3 -c 'import fmt'`, `node -e 'require("./tools/x.js")'`: code, not a
            # command line; what it loads from the folder it runs in counts.
            found += _code_given(interpreter, code_word, base, None, by_name, untold)
            continue
        if index in fed_code:  # `echo 'import fmt' | python3`: its input is the code
            fed_to, text = fed_code[index]
            found += _code_given(fed_to, text, base, read_line, by_name, untold) if text else []
            continue
        if program_name(command) in NODES and word.startswith("-") and base is not None:
            # `node --import=./x.mjs`, `node -r ./x.js`, `--env-file=e.env`: files it loads.
            option = f"{before} {word}" if before.startswith("-") else word
            found += [_from(base, path) for path in code_paths_of("NODE_OPTIONS", option)]
            found += loaded_by_name("NODE_OPTIONS", option, base, by_name)
        expanded = EXPANSION.search(os.path.expanduser(word)) is not None
        globbed = PATTERN.search(word) is not None
        if (expanded or globbed) and (is_program or is_script):
            _cannot_tell(word, worktree, untold)
            continue
        if globbed and not any(char in SHELL_BLANKS for char in word):
            continue  # a pattern (`[[ $f == src/*.py ]]`), not a file
        relative = not os.path.isabs(os.path.expanduser(word))
        if base is None and relative and (is_script or is_program and "/" in word):
            _cannot_tell(f"${{PWD}}/{word}", worktree, untold)  # `cd "$dir" && ./run`
            continue
        shell = program_name(previous)
        other_shell = shell in OTHER_SHELLS and not is_program
        spelled = word.lower() if shell in ("pwsh", "powershell") else word
        glued = word.startswith("-") and spelled not in OPTIONS_ALONE
        if other_shell and (glued or before.startswith("-") and not word.startswith("-")):
            # `fish -c "echo 'it\'s'; sh x # '"`: code (or an option's value) in its language;
            # options alone (`pwsh -NoLogo -NoProfile`, a terminal's) run no code of their own
            raise SplitByTheShell(f"code given to {shell}, whose quoting is not sh's")
        shell_code = before == "-c" and INTERPRETERS.get(program_name(previous)) == SHELL_FLAGS
        # (A blank inside a command's output, `origin/$(git branch --show-current)`, was read
        # with that command above: the word is no command line for it.)
        spoken = _without_outputs(word)
        if word and not spoken:
            continue  # an argument made by a command's output: the command was read above
        if base is not None and word.startswith("-") and not shell_code:
            # `-O./tools/pg`, `--use-compress-program=./tools/pack`: a program may run a file
            # an option names as surely as one named alone. Only a file that is there: a folder
            # (`-I./include`) or one yet to be made (`--cache-location=./.cache/x`) is most
            # often the program's search path or its output.
            for glued, conventional in _glued_paths(word):
                path = base / glued
                if worktree is not None and _only_its_process_tells(path, worktree):
                    if conventional:  # (a bundle's other places: `-Wl../x` is no path)
                        _cannot_tell(word, worktree, untold)
                elif os.path.isfile(os.path.normpath(path)):
                    found.append(Path(os.path.normpath(path)))
        if shell_code or any(char in SHELL_BLANKS for char in spoken) and command not in NAMES_ONLY:
            # `sh -c "~/x y"`
            found += program_paths(code_word, base, untold, unmade_arguments, by_name, assigned)
            continue
        if command == "git" and word.startswith(GIT_EXEC_PATH_OPTION) and base is not None:
            # `git --exec-path=tools check`: git runs tools/git-check, a folder's programs.
            folder = word.removeprefix(GIT_EXEC_PATH_OPTION)
            if worktree is not None and past_a_folder_of_the_tree(base / folder, worktree):
                _cannot_tell(word, worktree, untold)  # (`web/../tools`, web made a link)
            elif folder:
                found += _told(folder, base, worktree, untold)
            continue
        if before in ("<", ">", ">>") or word.startswith("-") or is_value:
            continue  # a redirection's file, an option (`--format=a/b`), its value
        if "=" in word or "://" in word:
            continue  # a variable set for a program's own use, an address
        if expanded:
            continue  # an argument made by the shell: a refspec (`pull/$1/head`), a branch
        if "/" not in word:
            # A program (the first word, or one after `;`, `&&`, `|`) is looked up on PATH.
            # An argument is opened from the top of the working tree: `sh fsmon.sh`.
            if is_program or base is None:
                continue
            if not (is_script or is_script_name(word) or os.path.lexists(base / word)):
                continue  # `--timeout 3600`, `log --oneline`, `-f utf-16`: words, not files
        path = Path(os.path.expanduser(word))
        if _in_a_process_folder(str(path)):
            # `cd src && sh /proc/self/cwd/check.sh`: a folder of whichever process looks it
            # up (here the shell, in src), not of planloop's.
            if is_program or is_script or is_script_name(word):
                _cannot_tell(word, worktree, untold)
            continue
        if not path.is_absolute():
            if base is None:
                continue
            path = base / path
        if worktree is not None and past_a_folder_of_the_tree(path, worktree):
            _cannot_tell(word, worktree, untold)  # (`lnk/../x`: the kernel follows lnk first)
            continue
        path = Path(os.path.normpath(path))
        named_as_code = is_program or is_script or is_script_name(word)
        if not (unmade_arguments or named_as_code or os.path.lexists(path)):
            continue
        # A folder is no program (`!cd ~/src/x && make` names one), but an interpreter runs
        # one given as its script: python its __main__.py, node its index.js.
        if is_script or not os.path.isdir(path) or is_program and runner in PACKAGE_RUNNERS:
            found.append(path)  # (`npx ./tools/fmt`: npx runs the package in that folder)
        if is_script and program_name(previous) in PYTHONS and by_name is not None:
            # python puts a script's folder first on its path: a module there of the standard
            # library's name (`tools/argparse.py` beside `tools/check.py`) is what it imports.
            by_name.when_there += modules_in(path.parent if not os.path.isdir(path) else path)
    return found


class NpmExec(NamedTuple):
    """What an `npm ... exec` runs, its words read as npm reads them (`npm_words`)."""

    place: int  # where its `exec` (or `x`) stands
    folder: Path | None  # whose node_modules it takes packages from: `--prefix`'s, else base
    local: list[Path]  # the local packages `--package` gives it (`--package ./tools/fmt`)
    values: set[int]  # the places of the words its options take for their values (`true`)
    packages: list[str]  # what it runs from an option's word (`--yes=./tools/fmt`: that)


def _npm_exec(
    words: list[str], index: int, base: Path, top: Path | None, untold: list[UntoldProgram] | None
) -> NpmExec | None:
    """What the npm at `words[index]` runs as `npm exec` (`npm --yes true --prefix web exec`,
    `npm --package ./tools/fmt exec -- fmt`), or None where npm runs another command."""
    folder: Path | None = base
    local: list[Path] = []
    values: set[int] = set()
    command: NpmWord | None = None
    packages: list[str] = []
    for read in npm_words(words, index + 1):
        if not read.option:
            if command is not None and read.value != words[read.place]:
                packages.append(read.value or "")  # (what a flag does not take: `--yes=x`)
            command = command or read
        elif read.value_place is not None and read.value_place != read.place:
            values.add(read.value_place)
        if read.value is None or not read.option:
            continue
        if read.option == "prefix":
            folder = _moved(base, read.value, top)
            if folder is None:
                _cannot_tell(f"{read.value}/node_modules", top, untold)
        elif read.option == "package":
            local += _local_package(read.value, base, top, untold)
    if command is None or command.value not in ("exec", "x"):
        return None
    return NpmExec(command.place, folder, local, values, packages)


def _local_package(
    spec: str, base: Path, worktree: Path | None, untold: list[UntoldProgram] | None
) -> list[Path]:
    """The folder (or packed package) npx runs from `base` when given the package `spec` by
    a path or by `file:` (`npx file:tools/fmt`, `npx -p ./tools/fmt fmt`): its programs run
    as surely as `npx ./tools/fmt` does. None for a package of the registry's."""
    if EXPANSION.search(os.path.expanduser(spec)):
        _cannot_tell(spec, worktree, untold)  # (`npx "$DIR"/fmt`: only the shell can tell)
        return []
    if (path := local_package(spec)) is None:
        return []
    if worktree is not None and past_a_folder_of_the_tree(base / path, worktree):
        _cannot_tell(path, worktree, untold)  # (`file:web/../x`, web made a link)
        return []
    return _told(path, base, worktree, untold)


def _called(
    program: str,
    words: list[str],
    index: int,
    base: Path | None,
    by_name: ByName | None,
    assigned: dict[str, str],
    written: list[str] | None = None,
) -> None:
    """Note for `by_name` a package manager, compose or build tool run as `words[index]`, with
    its words up to the end of its command: what it reads (package.json, a Makefile) runs too.
    The variables set for it that name make's makefiles (`MAKEFILES=x.mk make`, or the tool's
    `env`) come first, as make takes them on its line. A tool started by a runner (`uvx tox`,
    `python3 -m tox`) is that tool, with the words after its name. make takes its words as
    `written`, quoted `~` and all: it puts your home in for a `~` itself (`make -f "~/mk"`)."""
    if (program in PROJECT_RUNNERS or program in INSTALLERS) and by_name is not None:
        # (`uv run ruff`: uv's own files; `uvx --from ./tools/x`: the local project it builds)
        ends = (i for i, w in enumerate(words[index:], index) if w in PUNCTUATION)
        own = tuple(words[index + 1 : next(ends, len(words))]) if program in INSTALLERS else ()
        by_name.calls.append((base, program, own))
    program, index = run_behind(program, words, index)
    if program in (*FOLDER_RUNNERS, *BUILD_TOOLS) and by_name is not None:
        ends = (i for i, w in enumerate(words[index:], index) if w in PUNCTUATION)
        given = written if written and program in MAKES else words
        own = given[index + 1 : next(ends, len(words))]
        set_for_make = [f"{name}={assigned[name]}" for name in MAKE_VARIABLES if name in assigned]
        set_for_make = set_for_make if program in MAKES else []
        by_name.calls.append((base, program, (*set_for_make, *own)))


# git's option that names the folder of its own programs (`git-<command>`), glued to its value
# as git takes it (alone, it prints the folder instead).
GIT_EXEC_PATH_OPTION = "--exec-path="


def _glued_paths(option: str) -> list[tuple[str, bool]]:
    """The paths an option may give with its value glued on, each with whether it stands
    where a value usually does: `--x=./tools/pack` and `-O./tools/pg`, but also each place of
    a bundle of short options, any of which may be the one that takes the rest (`-cI./pack`:
    -c, then -I), and the first word of a value that is a program with its arguments
    (`-I'./pack -9'`), or one named like a script (`--custom-formatter=fmt.mjs`). A value the
    shell makes, or your home's (`~`), is none."""
    if option.startswith("--"):
        values = [option.partition("=")[2]]
    else:
        values = [option[place:] for place in range(2, len(option))]
    paths = []
    for place, value in enumerate(values):
        first = value.split(maxsplit=1)[0] if value.split() else ""
        if "/" not in first and not is_script_name(first):
            continue
        if first.startswith("~") or EXPANSION.search(first):
            continue
        paths.append((first, place == 0))
    return paths


def _script_tool(interpreter: str, script: str) -> str:
    """The tool a script run by its interpreter is: a package's own script that node runs
    (`node node_modules/prettier/bin/prettier.cjs`) is the program of that package's name, as
    npx would run it; another is the program of its own name."""
    inside = script.rsplit("node_modules/", 1)
    package = package_name(inside[-1]) if len(inside) == 2 else None
    if program_name(interpreter) in NODES and package is not None:
        return program_name(bin_name(package))
    return program_name(script)


def run_behind(program: str, words: list[str], index: int) -> tuple[str, int]:
    """The program that `program`, the word at `index`, starts by its name, and that name's
    place, through each runner in turn (`uv run python -m tox`: `tox`); `program` and `index`
    where it starts none by its name (`python3 x.py`, `uvx` alone)."""
    while (behind := _started_by(program, words, index)) is not None:
        program, index = behind
    return program, index


def _started_by(program: str, words: list[str], index: int) -> tuple[str, int] | None:
    """The tool a runner at `index` starts, with its place: a module of python's `-m` (as the
    program it installs: `pre_commit` is `pre-commit`), or the name after a TOOL_RUNNERS
    runner's subcommand, its own options skipped; None for no such tool."""
    if program not in TOOL_RUNNERS and program not in PYTHONS:
        return None
    paths, value_options = TOOL_RUNNERS.get(program, ((), VALUE_FLAGS["python"]))
    plain: tuple[str, ...] = ()
    place = index + 1
    while place < len(words) and words[place] not in PUNCTUATION:
        word = words[place]
        if word in MODULE_OPTIONS and program in (*PYTHONS, "uv"):
            module = words[place + 1 : place + 2]
            return (module[0].replace("_", "-"), place + 1) if module else None
        if program in PYTHONS and word.startswith("-m"):
            return word[2:].replace("_", "-"), place  # `-mtox`
        if word.startswith("-"):
            place += 2 if word in value_options else 1
            continue
        if program in PYTHONS:
            return None  # a script, or code after `-c`
        if plain in paths:
            return program_name(VERSION_START.split(word)[0]), place
        plain += (word,)
        if not any(path[: len(plain)] == plain for path in paths):
            return None  # another subcommand (`uv sync`, `pipx install`)
        place += 1
    return None


def variable_paths(
    name: str,
    setting: str,
    base: Path | None,
    untold: list[UntoldProgram] | None = None,
    by_name: ByName | None = None,
) -> list[Path]:
    """What a variable set for a program from `base` names that runs (RUN_VARIABLES): the
    program lines of git's PROGRAM_VARIABLES (`GIT_PAGER=tools/pg`) and of the settings it is
    given in variables; the file or folder of GIT_PLACE_VARIABLES with, for a config file, what
    it includes and the programs they name; compose's files; the package managers' programs,
    the npmrc files named, and the files their node options load; and the folders of a PATH
    (the workspace's own folder among them when an entry is empty or relative to it)."""
    upper = name.upper()
    if name in (*PROGRAM_VARIABLES, *TOOL_PROGRAM_VARIABLES):
        return program_paths(setting, base, untold, True, by_name)
    if GIT_CONFIG_VALUE.fullmatch(name):
        # A setting of any key: a program line, or a hooks folder or a config to include, with
        # the programs that one names.
        named = _told_value(name, setting, base, untold) if base is not None and setting else []
        included = git_programs_named_by([p for p in named if p.is_file()], base, untold, by_name)
        found = program_paths(setting, base, untold, True, by_name) + named + included
        return list(dict.fromkeys(found))
    if name == "GIT_CONFIG_PARAMETERS":  # `'core.fsmonitor'='tools/x'`, as `git -c` passes on
        try:
            pairs = [word.partition("=") for word in shell_words(setting)]
        except WordTooLong:
            raise
        except ValueError:
            return []
        settings = [(k.lower(), v) for k, _, v in pairs]
        return programs_of(settings, base, untold, by_name) + _places_of(settings, base)
    if base is None or not setting:
        return []
    if upper in HOME_VARIABLES:  # git reads its config from there (`$HOME/.gitconfig`)
        entries = setting.split(":") if upper == "XDG_CONFIG_DIRS" else [setting]  # (a list)
        return [
            path for entry in entries if entry for path in _told_value(name, entry, base, untold)
        ]
    if upper in PACKAGE_PROGRAM_VARIABLES:  # (a command line: `npm_config_editor="code -w"`)
        return program_paths(setting, base, untold, True, by_name)
    if upper in NPMRC_VARIABLES:  # the npmrc, and what it runs
        named = _told_value(name, setting, base, untold)
        for rc in named if by_name is not None else []:
            if why := unread_reason(rc):  # (npm reads it whole: past the limit, any script-shell)
                shown = rc.relative_to(base) if rc.is_relative_to(base) else rc
                by_name.unread.append(f"{shown}, which {why}")
        return named + [_from(base, line) for rc in named for line in npmrc_programs(rc)]
    if upper == "NPM_CONFIG_NODE_OPTIONS":
        loaded_by_name(upper, setting, base, by_name)
        return [_from(base, path) for path in code_paths_of("NODE_OPTIONS", setting)]
    if name in GRADLE_JAVA_VARIABLES:  # the agents it loads, and the user home it moves to
        homes = [
            home
            for named in gradle_user_homes(setting)
            for home in variable_paths("GRADLE_USER_HOME", named, base, untold, by_name)
        ]
        return [_from(base, path) for path in code_paths_of(name, setting)] + homes
    if name == "MAVEN_OPTS":  # its agents, and `-Dmaven.repo.local=.m2/repository`'s plugins
        repositories = maven_repositories([w for w in setting.split() if "$" not in w], base)
        return [_from(base, path) for path in code_paths_of(name, setting)] + repositories
    if name == "GRADLE_USER_HOME":  # (tools/build_files.py `GRADLE_USER_HOME_OPTIONS`)
        folders = _told_value(name, setting, base, untold)
        if by_name is not None:  # Gradle makes it at its first build: reported when made
            by_name.when_there += [(folder, BUILD_FILE_REASON) for folder in folders]
        return [folder for folder in folders if os.path.lexists(folder)]
    if name == "COMPOSE_FILE":
        entries = [entry for entry in re.split(r"[:;,]", setting) if entry]
        return [found for entry in entries for found in _told_value(name, entry, base, untold)]
    if name == "PATH":  # an empty entry is the folder the program runs in
        top = next((p for p in (base, *base.parents) if os.path.lexists(p / GIT_DIR_NAME)), base)
        setting = TOP_OF_THE_TREE.sub(lambda _: str(top), setting)
        entries = [entry or "." for entry in setting.split(":") if entry not in OLD_PATH]
        folders = [found for entry in entries for found in _told_value(name, entry, base, untold)]
        if by_name is None:
            return folders
        # Most are made later (`.venv/bin`, `node_modules/.bin` before an install): held once
        # they are, and reported when a command makes one; the folder itself counts now.
        # (A package folder's `node_modules/.bin` is the project's own, as npm's scripts use it.)
        made_later = [f for f in folders if f != base and "node_modules" not in f.parts]
        by_name.when_there += [(f, PATH_VARIABLE_REASON) for f in made_later]
        return [f for f in folders if f == base]
    if name not in GIT_PLACE_VARIABLES:
        return []
    found = _told_value(name, setting, base, untold)
    for config in found if name.startswith("GIT_CONFIG") else []:
        found = found + paths_named_by([config], base)[1]  # what it includes, held too
        found = found + git_programs_named_by([config], base, untold, by_name)
    return found


# The npmrc keys that name a program npm runs: each script's shell, the git it fetches git
# dependencies with, the shell of `npm exec`, the editor and browser it opens.
NPMRC_PROGRAM_KEYS = ("script-shell", "git", "shell", "editor", "browser")


# What JavaScript's `trim()` takes from either end: not Python's `strip()`, which also takes
# the separators 0x1c to 0x1f and NEL, which npm keeps in a value.
JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff" + "".join(
    map(chr, range(0x2000, 0x200B))
)


def ini_value(raw: str) -> str:
    """A key or value of an npmrc as npm's ini reader takes it: trimmed; a quoted one without
    its quotes; else up to a `;` or `#` not escaped by a backslash (a comment)."""
    raw = raw.strip(JS_SPACE)
    if len(raw) > 1 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]  # (npm parses a double-quoted one as JSON: the same for a path)
    value, escaped = [], False
    for char in raw:
        if escaped:
            value.append(char if char in "\\;#" else "\\" + char)
            escaped = False
        elif char in ";#":
            break
        elif char == "\\":
            escaped = True
        else:
            value.append(char)
    return ("".join(value) + ("\\" if escaped else "")).strip(JS_SPACE)


def npmrc_programs(path: Path) -> list[str]:
    """What an npmrc file runs: its script-shell for each script, the git it fetches git
    dependencies with, and what its node-options load (as written: from npm's folder)."""
    found: list[str] = []
    with contextlib.suppress(OSError, ValueError):
        # npm's ini reader: a line ends at a line feed or a return, no other break.
        for line in re.split(r"[\r\n]+", read_small_file(path)):
            key, equals, value = line.partition("=")
            key, value = ini_value(key), ini_value(value) if equals else ""
            key = key.replace("_", "-")  # (npm reads `script_shell` as `script-shell`)
            # npm expands variables in its settings: ${PWD} is where it runs, the package's.
            value = expand_variables(value.replace("${PWD}", str(path.parent)))
            if key in NPMRC_PROGRAM_KEYS and "/" in value:
                found.append(value)
            elif key == "node-options":
                found += code_paths_of("NODE_OPTIONS", value)
    return found


def _places_of(settings: list[tuple[str, str]], base: Path | None) -> list[Path]:
    """The hooks folder and included configs these settings name, with what those run."""
    found: list[Path] = []
    for key, value in settings:
        included = key == "include.path" or key.startswith("includeif.") and key.endswith(".path")
        if base is not None and value and (key == "core.hookspath" or included):
            found.append(_from(base, os.path.expanduser(value)))
            if included:
                found += git_programs_named_by([found[-1]], base)
    return found


def _runs_what_find_finds(before: list[str]) -> bool:
    """Whether the `{}` after the words `before` it is run: the program find's last `-exec`
    starts (past a runner: `-exec env {}`) is that file itself, or an interpreter given it as
    its script, with options alone before it (not `python3 -m black {}`, `bash -n {}`, `sh -c
    '...' _ {}`, which read it as data or check it)."""
    starts = [i for i, word in enumerate(before) if word in ("-exec", "-execdir", "-ok", "-okdir")]
    started = _past_runners(before[starts[-1] + 1 :]) if starts else []
    if not started or started[0] in ("{}", "./{}"):
        return bool(starts)
    interpreter = program_name(started[0])
    checks = (*INTERPRETERS.get(interpreter, ()), "-n", "--check", "-m", "-c")
    options = started[1:]
    return interpreter in INTERPRETERS and all(
        word.startswith("-") and word not in checks for word in options
    )


def _setting_paths(
    key: str, value: str, base: Path | None, untold: list | None, by_name: ByName | None
) -> list[Path]:
    """What one setting given to git on its line (`-c`, `--config-env`) runs or reads: a
    program line, a hooks folder, a config to include and what that one runs."""
    settings = [(key.lower(), value)]
    return programs_of(settings, base, untold, by_name) + _places_of(settings, base)


def _cannot_tell_variable(name: str, worktree: Path | None, untold: list | None) -> None:
    """A variable that names what runs (`runs_something`), set to what only the shell can
    tell (`read HOME`, `PATH+=:x`): any file may be what it names, so commands ask."""
    _cannot_tell(f"${{{name}}}/…", worktree, untold)


def loaded_by_name(name: str, setting: str, base: Path, by_name: ByName | None) -> list[Path]:
    """What a variable set for a program has it load by a name, not a path, taken from the
    folder it starts in (held while there, told when made: `ByName.when_there`): the modules
    python imports at start for PYTHONWARNINGS (`ignore::fmt.W` imports fmt), and the packages
    node preloads for NODE_OPTIONS (`--require dotenv/config`: node_modules/dotenv)."""
    if by_name is None:
        return []
    if name.upper() in ("NODE_OPTIONS", "NPM_CONFIG_NODE_OPTIONS"):
        for package in filter(None, map(package_name, node_preloads(setting))):
            node_names_held(package_paths(package, base), by_name)
        return []
    if name != "PYTHONWARNINGS":
        return []
    for entry in setting.split(","):
        category = (entry.split(":") + [""] * 3)[2].strip()
        if "." in category:
            module = category.rsplit(".", 1)[0].split(".")[0]
            by_name.when_there += [(p, PYTHON_MODULE_REASON) for p in module_files(module, base)]
    return []


def _loaded_by_code(
    interpreter: str, code: str, base: Path, by_name: ByName | None, untold: list | None = None
) -> list[Path]:
    """The files that code given to `interpreter` loads or starts from `base`, by what its text
    names (tools/inline_code.py): a path where it loads a module, written as one or named like
    a script; one where it loads a file or starts a program, taken from the folder it moves to
    first if it does; the command lines it starts; and python's modules, which it takes from
    there first (held once made: ByName.when_there)."""
    names = names_in_code(code, python=interpreter in PYTHONS)
    # (A loaded name, not a path: a package, `require("fs")`, `require "json"`.)
    loaded = [p for p in names.loaded if p.startswith(("./", "../")) or is_script_name(p)]
    running = [p for p in names.running if "/" in p or is_script_name(p)]
    bases = [_from(base, folder) for folder in names.folders] or [base]
    found = [_from(base, path) for path in loaded]
    found += [_from(here, path) for path in running for here in bases]
    # Any other quoted path of code that starts programs: a file there, or one named like a
    # script (`pytest tests/`, `go vet ./...` name folders and patterns, not programs).
    found += [
        _from(here, path)
        for path in names.any_path
        for here in bases
        if is_script_name(path) or os.path.isfile(_from(here, path))
    ]
    for line in names.lines:
        for here in bases:
            found += program_paths(line, here, untold, False, by_name)
    if names.folder_computed:  # moved where only the code can tell: any file may be it
        for path in [*running, *names.any_path]:
            _cannot_tell(f"${{cwd}}/{path}", base, untold)
    # `sys.path.insert(0, "tools")`: the modules may come from any folder it names.
    folders = [base] + [_from(base, folder) for folder in names.module_folders]
    for module in names.modules if by_name is not None else []:
        for folder in folders:
            by_name.when_there += [(p, PYTHON_MODULE_REASON) for p in module_files(module, folder)]
    if interpreter in PYTHONS and by_name is not None:  # what those modules import in turn
        by_name.when_there += [found for folder in folders for found in modules_in(folder)]
    if interpreter in NODE_CODE and by_name is not None:  # `require("yaml")`: node_modules'
        for package in names.packages:
            node_names_held(package_paths(package, base), by_name)
    return list(dict.fromkeys(found))


def _code_given(
    interpreter: str,
    code: str,
    base: Path | None,
    found_by: Callable[[str], list[Path]] | None,
    by_name: ByName | None,
    untold: list | None = None,
) -> list[Path]:
    """What code given on the line or on the input of `interpreter` runs: a shell's as a line
    of its own (`found_by`, program_paths bound to this line's state), another's by what it
    loads (`_loaded_by_code`)."""
    if INTERPRETERS.get(interpreter) == SHELL_FLAGS or interpreter in ("source", "."):
        return found_by(code) if found_by is not None else []
    return _loaded_by_code(interpreter, code, base, by_name, untold) if base is not None else []


def _module_named(command: str, previous: str, before: str, word: str) -> str | None:
    """The module `word` names to a python started as `previous`: `-m x`, or `-mx` joined."""
    if command not in PYTHONS or program_name(previous) != command:
        return None
    if before == "-m":
        return word
    if word.startswith("-m") and len(word) > len("-m"):
        return word[len("-m") :]
    return None


def _fed_to_an_interpreter(
    words: list[str],
) -> tuple[set[int], dict[int, tuple[str, str]]]:
    """The places of the words of each pipeline stage whose output a shell or interpreter reads
    as code (`cat fsmon | sh`, `head -c 999 x | env bash -s arg`, `(cat x) | python3`): given
    no script of its own, it runs what comes in, so every file those stages name counts. And the
    text a stage prints to it (`echo import fmt | python3`, `cat <<< '...' | python3`, `python3
    < <(printf ...)`), by the place of its first word, with the interpreter: that is its code
    (the other words of the text map to an empty one)."""
    fed: set[int] = set()
    code: dict[int, tuple[str, str]] = {}
    command_start, readers = 0, 0
    for pipe, word in enumerate(words):
        start, command_start = command_start, pipe + 1 if word in PUNCTUATION else command_start
        if word not in ("<(", "|"):
            continue
        readers += 1
        if readers > MAX_READERS_PER_LINE:
            # Each reader looks back and ahead over the line: past these many, every word left
            # counts as read as code (files held), in time linear in the line.
            fed.update(range(pipe + 1, len(words)))
            break
        if word == "<(" and (reader := _runs_its_input(words[start:pipe])):  # `sh <(cat x)`
            inner = itertools.takewhile(lambda i: words[i] != ")", range(pipe + 1, len(words)))
            inner = [i for i in inner if words[i] not in PUNCTUATION and not words[i].isdigit()]
            if not _printed_to(reader, words, inner, code):
                fed.update(inner)
        if word != "|":
            continue
        ahead = itertools.islice(words, pipe + 1, None)
        after = list(itertools.takewhile(lambda w: w not in PUNCTUATION, ahead))
        reader = _past_runners([w for w in after if not ASSIGNMENT.match(w)])
        if reader and program_name(reader[0]) not in (*INTERPRETERS, *NAMES_ONLY, *FILE_READERS):
            # A wrapper of no known kind runs the interpreter after it (`| timeout 10 python3`).
            start = next((i for i, w in enumerate(reader) if program_name(w) in INTERPRETERS), 0)
            reader = reader[start:]
        if not reader or program_name(reader[0]) not in INTERPRETERS:
            continue
        shell = INTERPRETERS[program_name(reader[0])] == SHELL_FLAGS
        arguments = reader[1 : reader.index("-s")] if shell and "-s" in reader else reader[1:]
        stages = _stages_before(words, pipe)
        # A file's text on its input, read by code given with -c (`| bash -c 'exec bash'`).
        code_reads_it = "-c" in arguments and program_name(words[min(stages)]) in FILE_READERS
        own = [w for w in arguments if not w.startswith("-") and w not in STANDARD_INPUT]
        if own and not code_reads_it:
            continue  # it runs a script of its own (`| python3 check.py`)
        stages = sorted(index for index in stages if not words[index].isdigit())
        if code_reads_it or not _printed_to(program_name(reader[0]), words, stages, code):
            fed.update(stages)
    return fed, code


def _printed_to(
    interpreter: str, words: list[str], places: list[int], code: dict[int, tuple[str, str]]
) -> bool:
    """Whether the stage at `places` prints text of its own (`echo`, `printf`, a reader's
    here-string): then that text is `interpreter`'s code, noted in `code` at its first place."""
    if not places:
        return False
    program = program_name(words[places[0]])
    rest = places[1:]
    if program in FILE_READERS and "<<<" in (words[i] for i in rest):
        rest = [i for i in rest if words[i - 1] == "<<<"]  # `cat <<< 'import fmt'`
        text = " ".join(words[i] for i in rest)
    elif program == "yes":
        text = " ".join(words[i] for i in rest) or "y"  # (repeated: once is enough to read)
    elif program == "echo":
        rest = list(itertools.dropwhile(lambda i: re.fullmatch(r"-[neE]+", words[i]), rest))
        text = " ".join(words[i] for i in rest)
    elif program == "printf" and rest:
        form, values = words[rest[0]], [words[i] for i in rest[1:]]
        try:  # `printf 'import %s\n' fmt`: as the shell's printf fills it, near enough
            text = form.replace("%b", "%s") % tuple(values[: form.count("%")])
        except (TypeError, ValueError):
            text = " ".join([form, *values])
        text = text.replace("\\n", "\n")
    else:
        return False
    code.update({i: (interpreter, "") for i in places})
    code[places[0]] = (interpreter, text)
    return True


# Pipes and process substitutions of one line read for an interpreter reading them: more are
# taken as feeding it everything after them.
MAX_READERS_PER_LINE = 64
# The shell's operators, longest first: `);` or `)|` comes as one token from the lexer.
OPERATOR_CHARS = frozenset(";&|()<>")
OPERATORS = sorted(
    (op for op in {*PUNCTUATION, *REDIRECTIONS, *NOT_A_FILE} if set(op) <= OPERATOR_CHARS),
    key=len,
    reverse=True,
)


# Variables that change how the shell reads what follows: how words split, where `cd` goes,
# and prompts bash expands, command outputs and all (`PS4` before each line `bash -x` traces).
SHELL_STATE = ("IFS", "CDPATH", "PS0", "PS4", "PROMPT_COMMAND")


class SplitByTheShell(WordTooLong):
    """A command line whose words only its shell can tell apart (it sets IFS or CDPATH, or
    quotes or nests what shells read apart): what it runs cannot be told, and commands ask, as
    for a line too long to read."""


def without_shell_comments(line: str) -> str:
    """A command line less its comments, as the shell reads them: from a `#` that starts a
    word, outside quotes, to the line's end (`a#b` is a word, `a #b` a word and a comment).
    SplitByTheShell for quoting shells read apart (`shell_lines`)."""
    return "\n".join(shell_lines(line)) if "#" in line or "$'" in line else line


def shell_lines(text: str) -> list[str]:
    """A shell script's command lines as its shell reads them: a line ends at a line feed
    outside quotes and command outputs (a quoted text may span lines), a `\\` before a line
    feed joins the next line (not in single quotes), and a comment runs from a `#` that starts
    a word (not one right after a command's output: `$(git rev-parse HEAD)#x` is one word).
    Quotes inside a command's output inside quotes are its own (`"$(printf ")")"`). Raises
    SplitByTheShell for what shells read apart, or nesting only a shell's parser follows
    (`ShellReader`)."""
    lines, current = [], []
    for start, end, outside in read_by_a_shell(text).kept:
        pieces = text[start:end].split("\n") if outside else [text[start:end]]
        for piece in pieces[:-1]:  # (each ends a line)
            lines.append("".join([*current, piece]).strip(" \t"))
            current = []
        current.append(pieces[-1])
    lines.append("".join(current).strip(" \t"))
    return [line for line in lines if line]


@functools.lru_cache(maxsize=64)
def read_by_a_shell(text: str) -> ShellReader:
    """`text` read by ShellReader, kept for the texts read last: one look asks many questions
    of the same lines (each `.envrc` line is read for what it loads, sets and runs), and a long
    text costs a read of milliseconds each time (a 39 KB nest of `eval`s, seconds a look)."""
    return ShellReader(text).read()


def outside_quotes(line: str) -> str:
    """`line` with each character inside a quote, an expansion or an escape turned to a blank
    placeholder (`_`): what is left is the line's own code, its operators where they are."""
    kept = ["_"] * len(line)
    for start, end, outside in read_by_a_shell(line).kept:
        if outside:
            kept[start:end] = line[start:end]
    return "".join(kept)


def command_outputs(line: str) -> list[tuple[int, int]]:
    """Where each command's output of `line` that lies in no other starts and ends, quotes
    and outputs inside it nested as the shell nests them (`"$(printf ")")"`: one)."""
    return [(start, end) for start, end in read_by_a_shell(line).outputs if end > start]


# The contexts a shell's reader may be in, by what opened them: the line itself (""), a
# command's output (`$(`, or a process substitution `<(`, `>(`), whose text is code as the
# line's is; a quote (`'`, `"`, bash's ANSI-C `$'`), a parameter's expansion (`${`) and a
# backquoted command, each read to its own closer.
CODE_CONTEXTS = ("", "$(", "<(", ">(")
# Where a `#` starts a comment in code: at a word's start, after a blank or an operator (not
# after the `)` that closes a command's output: `$(git rev-parse HEAD)#x` is one word).
WORD_BREAKS = frozenset(" \t\n;&|()<>")
CASE = re.compile(r"case\b")
# A run of blanks, line ends and operators that end a word in code (a `#` after them starts a
# comment), and a run of characters that neither open nor close anything in a context, nor end
# a word.
BREAK_RUN = re.compile(r"[ \t\n;&|]++")
PLAIN_RUNS = {
    "": re.compile(r"[^\\'\"`$#()<>\n;&| \t]++"),
    **dict.fromkeys(("'", "$'"), re.compile(r"[^\\']++")),
    '"': re.compile(r'[^"\\$`]++'),
    "${": re.compile(r"[^}\\\"'`$]++"),
    "`": re.compile(r"[^`\\]++"),
}


class ShellReader:
    """A shell's text read as its shell reads it, one character at a time, with the quotes and
    expansions it opens nested as the shell nests them. What two shells read apart (bash's
    `$'it\\'s'`, a `'` in `"${x:-'}'}"`), or nesting only a shell's parser follows (a `case`
    or a here-document inside a command's output), raises SplitByTheShell."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Each run of characters the shell keeps (not a comment's, nor a `\\` that joins
        # lines), as (start, end, whether it stands outside every quote, expansion and escape).
        self.kept: list[tuple[int, int, bool]] = []
        # Where each command output not inside another starts and ends (`$(...)`, a backquote).
        self.outputs: list[list[int]] = []
        # Each context open: [its opener, for each `(` open in it whether it is a pattern's
        # (`_in_code`), the output it is, or -1].
        self.open: list[list] = [["", [], -1]]
        self.opened = dict.fromkeys(("$(", "<(", ">(", "`", '"', "'", "$'", "${"), 0)  # how many
        self.word_start = True

    def read(self) -> ShellReader:
        at = 0
        while at < len(self.text):
            at = self._step(at)
        return self

    def _step(self, at: int) -> int:
        context, char = self.open[-1][0], self.text[at]
        if context not in CODE_CONTEXTS and (run := PLAIN_RUNS[context].match(self.text, at)):
            return self._quoted(at, run.end() - at)  # (in one step: a character each was slow)
        if context in ("'", "$'"):
            return self._in_single_quotes(at, context == "$'")
        if context == "`":  # (its closer is found first, whatever quotes or `#` stand before)
            return self._close(at) if char == "`" else self._quoted(at, 2 if char == "\\" else 1)
        if char == "\\":
            self.word_start = False
            if self.text[at + 1 : at + 2] == "\n":
                return at + 2  # (a line continued: neither character is kept)
            return self._quoted(at, 2)
        if (context, char) in (('"', '"'), ("${", "}")):
            return self._close(at)
        if self.text.startswith("$$", at):  # (the shell's process number: `$${` opens nothing)
            self.word_start = False
            return self._quoted(at, 2)
        if opener := self._opener(at, context):
            return self._open(at, opener)
        if context in CODE_CONTEXTS:
            return self._in_code(at)
        return self._quoted(at, 1)

    def _opener(self, at: int, context: str) -> str:
        """The quote or expansion that opens at `at` in `context`, or ""."""
        two, one = self.text[at : at + 2], self.text[at]
        if two in ("$(", "${") or two in ("<(", ">(") and context in CODE_CONTEXTS:
            return two
        if one in '"`':
            return one
        if context == '"':
            return ""  # (`'` and `$'` are plain text inside double quotes)
        if one == "'" and context == "${" and self.opened['"']:
            raise SplitByTheShell("a `'` in `${...}` inside double quotes, which shells read apart")
        return two if two == "$'" else one if one == "'" else ""

    def _open(self, at: int, opener: str) -> int:
        self.kept.append((at, at + len(opener), False))
        output = -1
        outermost = not any(self.opened[code] for code in ("$(", "<(", ">(", "`"))
        if outermost and opener in ("$(", "`") and not self.text.startswith("$((", at):
            output = len(self.outputs)  # (`$((...))` is arithmetic, no command's)
            self.outputs.append([at, -1])
        self.open.append([opener, [], output])
        self.opened[opener] += 1
        self.word_start = opener in CODE_CONTEXTS
        return at + len(opener)

    def _close(self, at: int) -> int:
        opener, _, output = self.open.pop()
        self.opened[opener] -= 1
        if output >= 0:
            self.outputs[output][1] = at + 1
        self.kept.append((at, at + 1, False))
        self.word_start = False  # (`"a"#b`, `$(x)#b`: the word goes on)
        return at + 1

    def _in_code(self, at: int) -> int:
        char, context = self.text[at], self.open[-1]
        if char == "#" and self.word_start:
            if any(context[1]):
                # (bash reads `=~ ^(main| #)` or `@(main| #)` as one word, blanks and all: the
                # `#` is the pattern's, and the line goes on past it)
                raise SplitByTheShell("a `#` inside a pattern's parentheses, which bash reads")
            end = self.text.find("\n", at)
            return len(self.text) if end == -1 else end
        if context[0] and self.word_start and CASE.match(self.text, at):
            raise SplitByTheShell(
                "a `case` inside a command's output (its `)` is a shell parser's)"
            )
        if context[0] and self.text.startswith("<<", at) and not self.text.startswith("<<<", at):
            raise SplitByTheShell("a here-document inside a command's output")
        for run_of, word_start in ((PLAIN_RUNS[""], False), (BREAK_RUN, True)):
            if run := run_of.match(self.text, at):
                self.kept.append((at, run.end(), len(self.open) == 1))
                self.word_start = word_start
                return run.end()
        if char == ")" and context[0] and not context[1]:
            return self._close(at)
        if char == "(":
            context[1].append(self._opens_a_pattern(at))
        elif char == ")" and context[1]:
            context[1].pop()
        self.kept.append((at, at + 1, len(self.open) == 1))
        self.word_start = char in WORD_BREAKS
        return at + 1

    def _opens_a_pattern(self, at: int) -> bool:
        """Whether the `(` at `at` is part of a word bash reads whole, to its `)`: a glob's
        (`@(a|b)`, `^(main|dev)` in a regex), or one that starts the regex after `=~`. Not a
        subshell's, nor an array's (`x=(a b)`), whose comments are comments."""
        if not self.word_start:
            return self.text[at - 1] != "="
        word_end = at  # (the last word before it, past the blanks, not sliced: `( ( (` is read)
        while word_end and self.text[word_end - 1] in " \t":
            word_end -= 1
        operator_at = max(word_end - 2, 0)
        return self.text[operator_at:word_end] == "=~" and (
            operator_at == 0 or self.text[operator_at - 1] in " \t"
        )

    def _in_single_quotes(self, at: int, ansi: bool) -> int:
        if ansi and self.text[at] == "\\":
            if self.text[at + 1 : at + 2] == "'":
                # (bash reads `$'it\\'s'` as one word; sh a `$`, a quoted `it\\`, and a quote
                # opened that runs on past what bash runs)
                raise SplitByTheShell("a `\\'` in `$'...'`, which bash and sh read apart")
            return self._quoted(at, 2)
        return self._close(at) if self.text[at] == "'" else self._quoted(at, 1)

    def _quoted(self, at: int, length: int) -> int:
        end = min(at + length, len(self.text))
        self.kept.append((at, end, False))
        return end


def _without_outputs(word: str) -> str:
    """`word` less the commands' outputs in it."""
    try:
        spans = command_outputs(word) if "$(" in word or "`" in word else []
    except SplitByTheShell:  # (a word, its quotes taken off: read as the outputs it shows)
        spans = []
    for start, end in reversed(spans):
        word = word[:start] + word[end:]
    return COMMAND_OUTPUT.sub("", word)


def _tildes_the_quotes_keep(code: str) -> str:
    """`code` with each `~` its shell keeps as written for quoting a QUOTED_TILDE (`_as_given`):
    one inside quotes or escaped (`"~/x"`, `\\~/x`), and one whose name up to the next `/`
    holds a quoted character (`~"/x"`, `~"me"/x`: bash looks up no home for it)."""
    if "~" not in code:
        return code
    quoted = [True] * len(code)
    for start, end, outside in read_by_a_shell(code).kept:
        if outside:
            quoted[start:end] = [False] * (end - start)
    marked = list(code)
    for at, char in enumerate(code):
        if char != "~":
            continue
        if quoted[at] or _starts_a_name(code, at) and _its_name_is_quoted(code, quoted, at):
            marked[at] = QUOTED_TILDE
    return "".join(marked)


def _starts_a_name(code: str, at: int) -> bool:
    """Whether the `~` at `at` stands where the shell may put a home in: a word's start, or
    after an assignment's `=` or a `:` of its value."""
    return at == 0 or code[at - 1] in WORD_BREAKS or code[at - 1] in "=:"


def _its_name_is_quoted(code: str, quoted: list[bool], at: int) -> bool:
    """Whether a character of the user name after the `~` at `at` (to the first `/`, `:`, `=`
    or the word's end, outside quotes) is quoted. (Each name ends where the next may start:
    the names of a line are read once.)"""
    for index in range(at + 1, len(code)):
        if quoted[index]:
            return True
        if code[index] in "/:=" or code[index] in WORD_BREAKS:
            return False
    return False


def words_as_given(segment: str) -> list[str]:
    """A command's words as its program is given them (shlex's split, with `_as_given`): a
    `~` the quotes keep is a folder of that name (`. "~/env.sh"` reads ./~/env.sh)."""
    return [_as_given(word) for word in shlex.split(_tildes_the_quotes_keep(segment))]


def _as_given(word: str) -> str:
    """A word as its program is given it: a `~` the quotes kept where the shell would have
    put your home in is a folder named `~` where the line runs (`./~/x`), any other as it is."""
    return kept_tildes(word) if QUOTED_TILDE in word else word


def _operators(word: str) -> list[str]:
    """A token of the shell's operator characters split into its operators (`);` is `)` and
    `;`); any other word as it is."""
    if not word or word in OPERATORS or not set(word) <= OPERATOR_CHARS:
        return [word]
    pieces = []
    while word:
        piece = next((op for op in OPERATORS if word.startswith(op)), word[0])
        pieces.append(piece)
        word = word[len(piece) :]
    return pieces


def _runs_its_input(before: list[str]) -> str:
    """The interpreter whose script the file that comes next is, given options alone so far
    (`bash -e`, `source`) in the command whose words come `before` it; "" for none."""
    start = max((i + 1 for i, w in enumerate(before) if w in PUNCTUATION), default=0)
    words = before[start:][:-1] if before[-1:] == ["<"] else before[start:]  # `sh < <(...)`
    command = _past_runners([w for w in words if not ASSIGNMENT.match(w)])
    runs_it = command and all(w.startswith("-") for w in command[1:])
    return program_name(command[0]) if runs_it and program_name(command[0]) in INTERPRETERS else ""


def _past_runners(words: list[str]) -> list[str]:
    """`words` from the program a runner starts (`env sh`, `nice -n 5 sh`): the runner, its
    options and their values left out."""
    index = 0
    while index < len(words) and program_name(words[index]) in RUNNERS:
        value_flags_here = RUNNERS[program_name(words[index])]
        index += 1
        while index < len(words) and words[index].startswith("-"):
            index += 2 if words[index] in value_flags_here else 1
    return words[index:]


def _stages_before(words: list[str], pipe: int) -> list[int]:
    """The places of the words of the pipeline stages before the `|` at `pipe`, with what a
    subshell or brace group among them holds (`(cat x) | sh`, `{ cat x; } | sh`)."""
    places: list[int] = []
    depth = 0
    for index in range(pipe - 1, -1, -1):
        word = words[index]
        if word in (")", "}"):
            depth += 1
        elif word in ("(", "{") and depth:
            depth -= 1
        elif depth == 0 and word in PUNCTUATION and word != "|":
            break
        if word not in PUNCTUATION and word not in (")", "}"):
            places.append(index)
    return places


def _told_value(name: str, value: str, base: Path, untold: list | None) -> list[Path]:
    """The file or folder a variable's value names from `base` (`_told`); a value the shell
    makes whole (`HOME=$(dirs -l +0)`, `$OLDPWD`) names no file in particular, but any file
    may be it: commands ask (`_cannot_tell_variable`)."""
    shell_made = EXPANSION.search(os.path.expanduser(value)) or PATTERN.search(value)
    if shell_made and not UntoldProgram(base, value).names_a_file():
        _cannot_tell_variable(name, base, untold)
        return []
    return _told(value, base, base, untold)


def _told(word: str, base: Path, worktree: Path | None, untold: list | None) -> list[Path]:
    """The file a word names from `base`, or none when the shell makes it (then untold)."""
    if EXPANSION.search(os.path.expanduser(word)) or PATTERN.search(word):
        _cannot_tell(word, worktree, untold)
        return []
    if _in_a_process_folder(os.path.join(base, os.path.expanduser(word))):  # (`sh < ...`)
        _cannot_tell(word, worktree, untold)
        return []
    return [_from(base, word)]


def _expanded(word: str) -> str:
    """`word` with your environment's variables expanded, as git's shell would, but those
    the shell sets as it moves ($PWD, $OLDPWD): planloop's own say nothing of the line's."""
    if "$" not in word:
        return word  # (nothing to expand: most words of a line)
    held = re.sub(r"\$(\{?)(OLD)?PWD\b", lambda m: f"\0{m.group(1)}{m.group(2) or ''}", word)
    expanded = expand_variables(held)
    return re.sub(r"\0(\{?)(OLD)?", lambda m: f"${m.group(1)}{m.group(2) or ''}PWD", expanded)


def past_a_folder_of_the_tree(path: Path, top: Path) -> bool:
    """Whether `path` goes up (`..`) out of a folder (or link) below `top`, which a command
    could turn into a link: the kernel follows the link first, so `web/../x` is x beside
    where web leads, not `top/x` (git's own folder, held whole, stays as it is). A folder
    not there yet is none: what code a reader quotes (`{dirname}/../x`) names no folder."""
    parts = path.parts
    for index, part in enumerate(parts):
        if part != ".." or index == 0:
            continue
        before = Path(os.path.normpath(Path(*parts[:index])))
        inside = before != top and before.is_relative_to(top) and os.path.lexists(before)
        if inside and not before.is_relative_to(top / ".git"):
            return True
    return False


def _only_its_process_tells(path: Path, top: Path) -> bool:
    """Whether a path is one only the process that opens it can tell: one that goes up out
    of a folder of the tree (`past_a_folder_of_the_tree`), or through a folder each process
    reads as its own (`/proc/self/cwd/x`, `/dev/fd/3/x`)."""
    return past_a_folder_of_the_tree(path, top) or _in_a_process_folder(str(path))


def _in_a_process_folder(path: str) -> bool:
    """Whether the folder of a path's file is one each process reads as its own, not
    planloop's (`/proc/self/cwd/x`, `/dev/fd/3/x`). The process's own input or output,
    `/dev/stdin` or `/dev/stderr`, is no file of a folder: a line feeds it (`cat x | sh
    /dev/stdin` runs x), or it is written to."""
    return names_a_process_folder(os.path.dirname(path))


def _from(base: Path, path: str) -> Path:
    return Path(os.path.normpath(base / os.path.expanduser(path)))


def _moved(base: Path | None, folder: str, top: Path | None = None) -> Path | None:
    """Where a command runs after moving to `folder` from `base`: the top of the tree `top`
    for `cd "$(git rev-parse --show-toplevel)"`; None where only the shell can tell
    (`cd "$(dirname "$0")"`, or a move from there)."""
    if TOP_OF_THE_TREE.fullmatch(folder) and top is not None:
        # (the nearest folder up from there that holds a `.git`, as git finds it)
        return next((p for p in (top, *top.parents) if os.path.lexists(p / GIT_DIR_NAME)), top)
    if base is None or EXPANSION.search(os.path.expanduser(folder)):
        return None
    if names_a_process_folder(os.path.join(base, os.path.expanduser(folder))):
        return None  # (`cd /proc/self/cwd/web`: the shell's own folder, as it stands then)
    return _from(base, folder)


def _through_cdpath(folder: str, assigned: dict[str, str]) -> bool:
    """Whether a `cd` to `folder` may go where CDPATH leads (the tool's for the line, or your
    environment's, as direnv exports an `.envrc`'s): the shell looks a relative folder up
    there first, unless it starts with `./` or `../`, and a command can make `tools/web`
    where CDPATH=tools sends `cd web`."""
    if not (assigned.get("CDPATH") or os.environ.get("CDPATH")):
        return False
    if TOP_OF_THE_TREE.fullmatch(folder) or os.path.expanduser(folder).startswith("/"):
        return False
    return folder.split("/")[0] not in (".", "..")


def _cannot_tell(word: str, worktree: Path | None, untold: list[UntoldProgram] | None) -> None:
    """Note a word whose file only git's shell knows. Your own configs read without a working
    tree (`worktree` None) are read again with each repository's, where git runs them."""
    if untold is not None and worktree is not None and UntoldProgram(worktree, word).names_a_file():
        # (A word the shell makes whole, `"$@"` or `$1`, names no file of the tree: nothing
        # to hold, and no file it could be.)
        untold.append(UntoldProgram(worktree, word))


def git_programs_named_by(
    config_files: list[Path],
    worktree: Path | None,
    untold: list[UntoldProgram] | None = None,
    by_name: ByName | None = None,
) -> list[Path]:
    """The program files and templates folder that `config_files` (includes followed) name;
    those that cannot be told go to `untold`, what they run by a name to `by_name`
    (`program_paths`). A config of yours whose lines planloop cannot read is left out:
    `your_unread_git_config` says so, and commands ask."""
    _, includes = paths_named_by(list(config_files), worktree)
    unread = _your_unread_git_configs()
    found: list[Path] = []
    for config in dict.fromkeys([*config_files, *includes]):
        if config in unread:
            continue
        settings = list(read_git_config(config))
        found += programs_of(settings, worktree, untold, by_name)
        if worktree is not None:
            _folders_and_files_up_out_of_the_tree(settings, config, worktree, untold)
    return found


def _folders_and_files_up_out_of_the_tree(
    settings: list[tuple[str, str]],
    config: Path,
    worktree: Path,
    untold: list[UntoldProgram] | None,
) -> None:
    """A hooks folder or an included config named by a path that goes up out of a folder of
    the tree (`core.hooksPath = lnk/../hooks`): git reaches it through lnk, which a command
    can turn into a link, so only the kernel can tell which folder's hooks git runs."""
    for key, value in settings:
        if key == "core.hookspath":
            base = worktree
        elif key in ("include.path", "includeif.path"):
            base = config.parent  # (an include is taken from the file that names it)
        else:
            continue
        if value and past_a_folder_of_the_tree(base / os.path.expanduser(value), worktree):
            _cannot_tell(value, worktree, untold)


def programs_of(
    settings: Iterable[tuple[str, str]],
    worktree: Path | None,
    untold: list[UntoldProgram] | None = None,
    by_name: ByName | None = None,
) -> list[Path]:
    """The program files and templates folder that these (key, value) settings name."""
    found: list[Path] = []
    for key, value in settings:
        if key == TEMPLATES_KEY and value:
            templates = Path(os.path.expanduser(value))
            if templates.is_absolute():
                found.append(Path(os.path.normpath(templates)))
        elif key in URL_KEYS and value.startswith(EXT_URL):
            found += program_paths(value.removeprefix(EXT_URL), worktree, untold, True, by_name)
        elif value and is_program_key(key):
            if key.startswith(("alias.", "submodule.")) and not value.startswith("!"):
                continue
            found += program_paths(value, worktree, untold, True, by_name)
    return found


def settings_in_environment() -> list[tuple[str, str]]:
    """The git settings your environment gives every git command: GIT_CONFIG_COUNT with its
    GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n>, and GIT_CONFIG_PARAMETERS ('key'='value' ...,
    as `git -c` passes them on to the git commands it runs)."""
    found: list[tuple[str, str]] = []
    try:
        count = int(os.environ.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    for index in range(max(0, min(count, 1000))):
        key = os.environ.get(f"GIT_CONFIG_KEY_{index}", "")
        found.append((key.lower(), os.environ.get(f"GIT_CONFIG_VALUE_{index}", "")))
    try:
        words = shlex.split(os.environ.get("GIT_CONFIG_PARAMETERS", ""))
    except ValueError:
        words = []
    for word in words:
        key, _, value = word.partition("=")
        found.append((key.lower(), value))
    return found


def your_git_programs() -> list[Path]:
    """What your own git setup names by a full path and git runs or obeys in every repository:
    the programs and templates folder of your git configs, the programs of git's variables in
    your environment (GIT_PAGER, GIT_SSH_COMMAND, ...), GIT_TEMPLATE_DIR, and the system config
    file GIT_CONFIG_SYSTEM names (your global ones are found with your home's links)."""
    found = git_programs_named_by(your_git_configs(), worktree=None)
    found += programs_of(settings_in_environment(), worktree=None)
    for variable in PROGRAM_VARIABLES:
        found += program_paths(os.environ.get(variable, ""), worktree=None)
    for variable in ("GIT_TEMPLATE_DIR", "GIT_CONFIG_SYSTEM"):
        if os.environ.get(variable, "").startswith("/"):
            found.append(Path(os.path.normpath(os.environ[variable])))
    return found


def your_unread_git_config() -> str | None:
    """Why what your own git configs run cannot be told, or None: a command line of theirs
    that planloop cannot read (`credential.helper = "!f() { IFS= read -r t < ~/t; ...}; f"`,
    which sets IFS). Your configs are yours, not the workspace's: the reason names the config,
    and since any file may be the program that line runs, commands ask, and the file tools
    before every write."""
    for config, error in _your_unread_git_configs().items():
        return f"your git config {config} has a command line planloop cannot read ({error})"
    return None


def _your_unread_git_configs() -> dict[Path, str]:
    """Your git configs, and those they include, that hold a command line planloop cannot
    read, with why. Read alone, from no working tree: an error then is the config's own text,
    never a workspace file's (an `npm run x` alias with the workspace's package.json)."""
    _, includes = paths_named_by(your_git_configs(), worktree=None)
    unread = {}
    for config in dict.fromkeys([*your_git_configs(), *includes]):
        try:
            programs_of(read_git_config(config), worktree=None)
        except ValueError as error:
            unread[config] = str(error)
    return unread


def repository_git_programs(
    git_entry: Path,
    untold: list[UntoldProgram] | None = None,
    by_name: ByName | None = None,
) -> list[Path]:
    """The programs a repository's config names, and your configs' relative ones (taken from
    this repository's working tree, as git takes them when it runs them here)."""
    git_dir = git_dir_of(git_entry)
    if git_dir is None:
        return []
    configs = [*your_git_configs(), git_dir / "config", git_dir / "config.worktree"]
    common = common_dir_of(git_dir)
    if common is not None:
        configs.insert(-2, common / "config")
    worktree = git_entry.parent if git_entry.name == GIT_DIR_NAME else git_entry
    if by_name is not None:
        hooks = [git_dir / "hooks", *([common / "hooks"] if common else [])]
        hooks += git_config_paths(git_entry)[0]  # (`.husky` with husky's `.husky/_`)
        _named_by_hooks(hooks, worktree, by_name)
    return git_programs_named_by(configs, worktree, untold, by_name)


# In a hook's text: a python started with no script of its own (pre-commit's hook runs
# `"$INSTALL_PYTHON" -mpre_commit`), and a program npx (or `npm exec`) runs by a package's name
# (husky's `npx lint-staged`). Hooks run from the top of the working tree. A word with `python`
# in it is read once, from its start (an atomic group): read from each `python` in it, a word
# of `python` alone took time quadratic in the hook (tools/spans.py says why that matters).
HOOK_PYTHON = re.compile(
    r"(?<![\w.])(?>[\w.]*?python[\w.]*)[\"'}]*\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*[mc]", re.IGNORECASE
)
# `npx [options] package` in three pieces (`npx_packages` says why): the call, its options, the
# package's name.
NPX_CALL = re.compile(r"\b(?:npx|pnpx|bunx|(?:npm|pnpm|yarn)\s+exec|(?:bun|npm)\s+x)")
NPX_OPTIONS = re.compile(r"\s++(?:-\S++\s++)*+")
NPX_PACKAGE = re.compile(r"[@\w][\w@./-]*+")
MAX_HOOK_FILES = 100


def _named_by_hooks(folders: list[Path], worktree: Path, by_name: ByName) -> None:
    """What the hooks in `folders` take by a name from the working tree (HOOK_PYTHON,
    HOOK_NPX): held while there, told when made. What else a hook runs is the project's code,
    as a Makefile's is."""
    for folder in folders:
        with contextlib.suppress(OSError, ValueError), os.scandir(folder) as entries:
            for entry in itertools.islice(entries, MAX_HOOK_FILES):
                if entry.name.endswith(".sample") or not entry.is_file():
                    continue
                try:  # (without blocking: a FIFO put there has no writer)
                    text = read_small_file(entry.path)
                except OSError:
                    continue
                if HOOK_PYTHON.search(text):
                    by_name.when_there += modules_in(worktree)
                for word in npx_packages(text):
                    run_by_npx(word, worktree, by_name)


def npx_packages(text: str) -> list[str]:
    """The package of each `npx [options] package` in `text` (`npm exec`, `bunx`...), as
    re.findall finds `call\\s+(?:-\\S+\\s+)*(package)`, in linear time. That regex read the
    options again from each call among them (`npx -npx -npx ...` with no package after them),
    quadratic in a hook of them (tools/spans.py says why that matters). A call among the
    options of one with no package after them has none either: it is passed over."""
    packages, past = [], 0
    for call in NPX_CALL.finditer(text):
        if call.start() < past:
            continue
        options = NPX_OPTIONS.match(text, call.end())
        past = options.end() if options else call.end()
        package = NPX_PACKAGE.match(text, past) if options else None
        if package is not None:
            packages.append(package[0])
            past = package.end()
    return packages


def git_programs_around(
    path: Path,
    git_entries: list[Path] = (),
    untold: list[UntoldProgram] | None = None,
    by_name: ByName | None = None,
) -> list[Path]:
    """`your_git_programs`, and the programs of the repositories at `path` and above it and of
    `git_entries` (those a workspace scan found), each once; those that cannot be told go to
    `untold`, and what they run by a name (`python -m x`) to `by_name`."""
    found = your_git_programs()
    entries = [folder / GIT_DIR_NAME for folder in [path, *path.parents]]
    for entry in dict.fromkeys([*(e for e in entries if os.path.exists(e)), *git_entries]):
        found += repository_git_programs(entry, untold, by_name)
    return list(dict.fromkeys(found))


def untold_git_programs(path: Path, git_entries: list[Path] = ()) -> list[UntoldProgram]:
    """The programs of `git_programs_around` whose path a shell expansion makes."""
    untold: list[UntoldProgram] = []
    git_programs_around(path, git_entries, untold)
    return list(dict.fromkeys(untold))


def git_programs_in(root: Path, git_entries: list[Path] = ()) -> list[Path]:
    """The files and folders of `git_programs_around` that lie inside the workspace `root`.

    One inside a `.git` folder (the sample `core.fsmonitor = .git/hooks/fsmonitor-watchman`) is
    left out: held read-only with that folder, missing or not.
    """
    root = Path(os.path.realpath(root))
    found = (_under(root, path) for path in git_programs_around(root.parent, git_entries))
    return [
        path
        for path in dict.fromkeys(found)
        if path != root
        and path.is_relative_to(root)
        and GIT_DIR_NAME not in path.relative_to(root).parts
    ]


def git_files_when_there(root: Path, git_entries: list[Path] = ()) -> list[tuple[Path, str]]:
    """The files in the workspace `root` that programs git runs take only once they are made
    (ByName.when_there: the module of `clean = python3 -m nbstripout`, a PATH's folders), with
    why: held while they exist, and reported when a command makes one (tools/sandbox.py
    `held_when_there_paths`)."""
    root = Path(os.path.realpath(root))
    by_name = ByName()
    git_programs_around(root.parent, git_entries, by_name=by_name)
    found = ((_under(root, path), why) for path, why in by_name.when_there)
    return [(p, why) for p, why in dict.fromkeys(found) if p != root and p.is_relative_to(root)]


def _under(root: Path, path: Path) -> Path:
    """`path` taken from the resolved workspace `root` when a folder above it is reached through
    a link (`~/dotfiles/bin/pager` with a home folder behind /home -> /data/home); links inside
    the workspace are kept as they are, so that `git_program_not_held` sees them."""
    if path.is_relative_to(root):
        return path
    for folder in reversed(path.parents):
        if os.path.realpath(folder) == str(root):
            return root / path.relative_to(folder)
    return path


def git_program_not_held(root: Path, git_entries: list[Path] = ()) -> str | None:
    """Why a program git runs from the workspace cannot be kept read-only, or None.

    A read-only bind holds an existing file at the path it resolves to: a program that does not
    exist yet could be created by a command, and one behind a link could be redirected by
    changing the link. One whose path a shell expansion makes (`UntoldProgram`) could be any
    file of the repository that holds or lies in the workspace. Each way commands ask instead.
    """
    root = Path(os.path.realpath(root))
    untold: list[UntoldProgram] = []
    named = (_under(root, p) for p in git_programs_around(root.parent, git_entries, untold))
    if any(os.path.realpath(path) == str(root) for path in named):
        # init.templateDir = the workspace: its hooks/ would be copied into your next clone.
        return "your git config names the workspace itself as a program or templates folder"
    if untold:
        return _untold_reason(untold[0])
    for path in git_programs_in(root, git_entries):
        shown = str(path.relative_to(root)).replace("\r", "\\r").replace("\n", "\\n")
        if not os.path.lexists(path):
            return f"{shown}, which your git config or the repository's runs, does not exist"
        if os.path.realpath(path) != str(path):
            return f"{shown}, which your git config or the repository's runs, lies behind a link"
    return None


def _untold_reason(program: UntoldProgram) -> str:
    shown = program.word.replace("\r", "\\r").replace("\n", "\\n")
    return (
        f"`{shown}`, which your git config or the repository's runs or reads, is a path only "
        "git can tell (its shell expands it, or it goes up out of a folder that a command could "
        "turn into a link)"
    )


def any_file_git_may_run(root: Path, git_entries: list[Path] = ()) -> str | None:
    """Why the file tools must ask before every write in the workspace `root`, or None: a
    program or hooks folder git runs is a path only git can tell, so any file may be it (a
    write to `web/hooks/pre-commit`, where `lnk/../hooks` leads), as for commands, which ask."""
    if (unread := your_unread_git_config()) is not None:
        return unread
    untold = untold_git_programs(Path(os.path.realpath(root)).parent, git_entries)
    return _untold_reason(untold[0]) if untold else None


def git_program_reason(candidate: Path, git_entries: list[Path] = ()) -> str | None:
    """GIT_PROGRAM_REASON when writing `candidate` changes a program git runs, else None;
    with `git_entries`, the programs of those repositories (a workspace scan's) count too.
    A program whose path a shell expansion makes counts for each file it may be."""
    untold: list[UntoldProgram] = []
    by_name = ByName()
    named = git_programs_around(candidate.parent, git_entries, untold, by_name)
    if any(program.may_be(candidate) for program in untold):
        return GIT_PROGRAM_REASON
    for path, why in by_name.when_there:
        if candidate == path or candidate.is_relative_to(path):
            return why
    for path in named:
        real = Path(os.path.realpath(path))
        # A templates folder (or the system config's) holds what is inside it too.
        folder = os.path.isdir(path)
        if (
            candidate in (path, real)
            or folder
            and (candidate.is_relative_to(path) or candidate.is_relative_to(real))
        ):
            return GIT_PROGRAM_REASON
    return None
