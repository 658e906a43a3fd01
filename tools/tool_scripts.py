"""Scripts that host tools run on their own, named by their settings in the workspace.

The settings themselves are held (HOST_TOOL_CONFIG in tools/paths.py). What they name often lies
elsewhere in the tree, and the tool runs it outside the sandbox as surely as it reads the
settings, without anyone typing a command:

    VS Code           .vscode/tasks.json: each task with `"runOn": "folderOpen"`, and the tasks
                      it dependsOn, when the folder is opened
    dev containers    devcontainer.json's initializeCommand, on your machine, before the
                      container is built and each time the folder is reopened in it
    coding agents     each `command` (with its `args`) of their hook and MCP settings, and a few
                      keys that are commands themselves (Claude Code's apiKeyHelper, ...):
                      .claude/settings.json, .mcp.json, .cursor/hooks.json, .vscode/mcp.json,
                      .gemini/settings.json, .github/hooks/*.json, .codex/config.toml, ...
    mise              what its [hooks] run when the shell enters the folder, and the files its
                      [env] loads (_.source, _.file) or puts on your PATH (_.path)
    JetBrains IDEs    the run configurations that .idea/startup.xml's startup tasks (or yours
                      in workspace.xml) name, when the project opens: a shell script's file or
                      text, a Python script or module, an npm script
    git               each line of a hook (tools/paths.py `git_hook_files`), at a commit, a
                      push or a checkout: `make lint`, `npm test`, `npx lint-staged`

Each command line is read as git's are (tools/git_programs.py `program_paths`), from the folder
that holds the settings (the project the tool opened), or from the `cwd` they give: its program
when written as a path, and each later word written as a path, counted while nothing is there
only where it stands as a script (`node tools/mcp.js`), as MCP servers' arguments are mostly
package and image names. The tools' own variables for that folder (`${workspaceFolder}`,
`$CLAUDE_PROJECT_DIR`, mise's `{{config_root}}`) are put in first; any other expansion makes
the script a path that cannot be told.

What is found is held like git's programs: an existing file is bound read-only for sandboxed
commands and the file tools ask before writing it; one that does not exist yet, lies behind a
link, or cannot be told makes commands ask (`tool_script_not_held`), and so do settings that
cannot be read, since what they run is then unknown. What such a script imports or sources in
turn is the project's code, as a Makefile's is, and is not held (a virtualenv's installed
packages are, always: tools/shell_config.py).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import re
import shlex
import stat
import threading
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from dotenv_text import dotenv_values
from tools.base import ToolError
from tools.bind_watch import MAX_DOTENV_LINES, dotenv_bindings, dotenv_lines
from tools.build_files import (
    BUILD_FILE_REASON,
    BUILD_TOOLS,
    CannotTell,
    build_files,
    json5_strings,
    literal_tilde,
    local_paths,
    make_variable_files,
    option_values,
    per_file_code,
    unescaped,
    up_to,
)
from tools.environment import code_paths_of, expand_variables, link_inside, without_secrets
from tools.event_queues import SignalCheck
from tools.git_programs import (
    COMPOSE_PROGRAMS,
    EXPANSION,
    INTERPRETERS,
    MAX_FOLDER_ENTRIES,
    OTHER_SHELLS,
    PACKAGE_RUNNERS,
    PYTHONS,
    SHELL_BLANKS,
    SHELL_FLAGS,
    ByName,
    UntoldProgram,
    is_script_name,
    loaded_by_name,
    node_names_held,
    npm_option,
    npm_words,
    npmrc_programs,
    program_name,
    program_paths,
    run_by_npx,
    runs_something,
    variable_paths,
)
from tools.hook_lines import hook_lines, read_hook_lines, shell_scripts
from tools.node_packages import (
    NODE_PACKAGE_REASON,
    NodeNames,
    bin_paths,
    config_packages,
    package_name,
    package_paths,
)
from tools.paths import (
    CODE_WORKSPACE_SUFFIX,
    GIT_DIR_NAME,
    GIT_HOOK_NAMES,
    HOOK_TREES,
    IDIOMATIC_VERSION_FILES,
    MISE_FILE,
    MISE_FOLDER,
    RUN_CONFIGURATION_SUFFIX,
    SMALL_FILE_LIMIT,
    common_dir_of,
    git_dir_of,
    read_git_config,
    read_small_file,
    unread_reason,
)
from tools.per_file_configs import (
    INTO_PACKAGES,
    JS_SUFFIXES,
    PACKAGE_FILES,
    PACKAGE_KEYS,
    PER_FILE_CONFIG_REASON,
    PER_FILE_CONFIGS,
    looked_for_by,
    tool_of,
    walks_into_packages,
)
from tools.process import processes_below, running_sandbox_pids
from tools.python_starts import python_starts
from tools.shell_config import PYTHON_PATH_REASON, VENV_CONFIG_NAME, start_files_in
from tools.spans import delimited_in_lines, replaced
from tools.toml_text import toml_data

TASKS, DEVCONTAINER, COMMANDS, MISE = "tasks", "devcontainer", "commands", "mise"
CARGO, TOOLCHAIN, ZED, HG, AIDER, EDITOR = "cargo", "toolchain", "zed", "hg", "aider", "editor"
HELIX, IDEA = "helix", "idea"
VERSIONS, CODE_WORKSPACE = "versions", "code-workspace"
ONE_VERSION = "one-version"  # `.nvmrc`, `.python-version`: one tool's version alone
GIT_HOOK = "git-hook"  # a hook's script, which tools/paths.py `git_hook_files` finds
# A hook is read up to here, and the hooks of a look up to HOOKS_PER_LOOK in all: each line is
# read as a command line, about 7 µs a character for one of many words, and a hook is a few
# KiB (pre-commit's, lefthook's, husky's). Past them, what it runs is unknown: commands ask.
HOOK_FILE_LIMIT = 32 * 1024
HOOKS_PER_LOOK = 64 * 1024
MAX_HOOK_LINES = 1000
MAX_HOOK_TREES = 16  # working trees a hook is read from (worktrees, submodules)
MAX_HOOK_HELPERS = 64  # hooks and the scripts they run, read in a look
STAGED_RUNNERS = ("lint-staged", "nano-staged")  # (their configs list command lines)
LINE_RUNNERS = (*STAGED_RUNNERS, "lefthook")  # (and lefthook's have `run:` lines)
# The tools whose data configs name packages they load from node_modules (`"extends":
# "@commitlint/config-conventional"`, prettier's `plugins`): tools/node_packages.py.
PACKAGE_LOADERS = ("eslint", "prettier", "stylelint", "commitlint", "markdownlint-cli")
# Scripts a hook runs by their interpreter's name (`python3 tools/check.py`), read as its code.
CODE_SUFFIXES = {".py": "python", ".js": "node", ".mjs": "node", ".cjs": "node", ".rb": "ruby"}
CODE_SUFFIXES |= {".pl": "perl", ".php": "php"}
# The command lines a look reads, in all: the settings' own (an agent's hooks, tasks) and the
# package.json scripts they run. Each word is read as a command line's (about 70 µs a word),
# and a repository can ship many settings files, or name many packages; a project's are a few
# KiB. Past it, what the rest run is unknown: commands ask.
COMMANDS_PER_LOOK = 256 * 1024
# The files under each host tool's entry (HOST_TOOL_CONFIG) whose commands the tool runs by
# itself, as (name or pattern under the entry, "" for the entry itself; how it is read).
SETTINGS_FILES: dict[str, tuple[tuple[str, str], ...]] = {
    ".vscode": (("tasks.json", TASKS), ("mcp.json", COMMANDS), ("settings.json", EDITOR)),
    ".devcontainer": (("devcontainer.json", DEVCONTAINER), ("*/devcontainer.json", DEVCONTAINER)),
    ".devcontainer.json": (("", DEVCONTAINER),),
    ".claude": (("settings.json", COMMANDS), ("settings.local.json", COMMANDS)),
    ".mcp.json": (("", COMMANDS),),
    ".cursor": (("mcp.json", COMMANDS), ("hooks.json", COMMANDS)),
    ".gemini": (("settings.json", COMMANDS),),
    ".qwen": (("settings.json", COMMANDS),),
    ".roo": (("mcp.json", COMMANDS),),
    ".kiro": (("settings/mcp.json", COMMANDS), ("hooks/*.kiro.hook", COMMANDS)),
    ".amazonq": (
        ("mcp.json", COMMANDS),
        ("default.json", COMMANDS),
        ("cli-agents/*.json", COMMANDS),
    ),
    ".kilocode": (("mcp.json", COMMANDS),),
    ".kilo": (("kilo.json", COMMANDS), ("kilo.jsonc", COMMANDS)),
    ".factory": (("settings.json", COMMANDS), ("hooks.json", COMMANDS), ("mcp.json", COMMANDS)),
    ".windsurf": (("hooks.json", COMMANDS),),
    ".augment": (("settings.json", COMMANDS),),
    ".tabnine": (("agent/settings.json", COMMANDS),),
    ".github/hooks": (("*.json", COMMANDS),),
    ".codex": (("config.toml", COMMANDS), ("hooks.json", COMMANDS)),
    ".opencode": (("opencode.json", COMMANDS), ("opencode.jsonc", COMMANDS)),
    ".mise": (("config.toml", MISE),),
    ".cargo": (("config.toml", CARGO), ("config", CARGO)),
    **dict.fromkeys(("rust-toolchain.toml", "rust-toolchain"), (("", TOOLCHAIN),)),
    ".tool-versions": (("", VERSIONS),),
    **dict.fromkeys(IDIOMATIC_VERSION_FILES, (("", ONE_VERSION),)),
    ".zed": (("settings.json", ZED),),
    ".helix": (("languages.toml", HELIX),),
    ".hg": (("hgrc", HG), ("hgrc-not-shared", HG)),
    ".aider.conf.yml": (("", AIDER),),
    ".idea": (("startup.xml", IDEA), ("workspace.xml", IDEA)),
    # Continue's MCP server blocks (YAML, or another agent's JSON copied in) and assistants.
    ".continue": tuple(
        (pattern, COMMANDS)
        for folder in ("mcpServers", "assistants", "agents")
        for pattern in (f"{folder}/*.yaml", f"{folder}/*.yml", f"{folder}/*.json")
    )
    + (("config.yaml", COMMANDS), ("config.json", COMMANDS)),
    **dict.fromkeys(
        ("opencode.json", "opencode.jsonc", "kilo.json", "kilo.jsonc"), (("", COMMANDS),)
    ),
    **dict.fromkeys(("crush.json", ".crush.json"), (("", COMMANDS),)),
}
# Keys of coding agents' settings whose value is a command line (or a program's argv), besides
# `command`: Claude Code's credential and telemetry helpers, GitHub Copilot's hooks' `bash`.
COMMAND_KEYS = ("command", "bash", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport")
COMMAND_KEYS += ("otelHeadersHelper",)
# Gemini CLI's tool discovery and calls, and its MCP server's; Codex's notify program.
COMMAND_KEYS += ("discoveryCommand", "callCommand", "toolDiscoveryCommand", "toolCallCommand")
COMMAND_KEYS += ("serverCommand", "mcpServerCommand", "notify")
# Keys whose value names files the agent loads as code: opencode's plugins.
PLUGIN_KEYS = ("plugin", "plugins")
# The package managers' settings beside a package.json whose script they run: npm's .npmrc
# (its script-shell runs the script, its node-options go into NODE_OPTIONS), yarn's (yarnPath
# and yarn-path name the program run instead of yarn, which VS Code picks when a yarn.lock is
# there) and bun's bunfig.toml (preload). Most projects have none, so one is held while it is
# there and reported when a command makes it (`npm_settings`), not asked about.
# The package managers' settings and the code they load themselves beside a package.json:
# pnpm's hooks file, and the module loader yarn's Plug'n'Play writes and node runs first, with
# what it loads the packages from (yarn berry keeps no node_modules: the packages' code is in
# its cache's zip files and unplugged folders) and yarn's own release and plugins.
PACKAGE_SETTINGS = (".npmrc", ".yarnrc.yml", ".yarnrc", "bunfig.toml")
PACKAGE_SETTINGS += (".pnpmfile.cjs", ".pnp.cjs", ".pnp.loader.mjs", ".pnp.data.json")
PACKAGE_SETTINGS += (".yarn/cache", ".yarn/unplugged", ".yarn/releases", ".yarn/plugins")
# (and the lockfiles an install follows: a `file:` or tarball source there runs its scripts)
PACKAGE_SETTINGS += ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml")
PACKAGE_SETTINGS += ("bun.lock", "bun.lockb")
# Those of them that name a program run for each script (`package_manager_programs`).
PROGRAM_SETTINGS = (".npmrc", ".yarnrc.yml", ".yarnrc", "bunfig.toml")
YARN1_PATH = re.compile(r"^yarn-path[ \t]+(\S+)", re.MULTILINE)
NPM_SETTINGS_REASON = (
    "npm, yarn, pnpm and bun run the scripts a host tool starts on its own (a VS Code npm "
    "task, on opening the folder) as it says: npm's script-shell and node-options, yarn's "
    "yarnPath and plugins (yarn reads its .yarnrc.yml in each folder above too), bun's "
    "preload, pnpm's .pnpmfile.cjs, yarn's .pnp.cjs loader and the packages it loads from "
    ".yarn (cache, unplugged), and an install the packages its lockfile names"
)
# Links followed on the way to a script before giving up (`_links_held`), as the kernel does.
MAX_LINKS = 40
# Where the files an hgrc's `%include` lines read are listed among its parsed sections.
INCLUDED = "%include"
# How Mercurial reads each line of an hgrc (each matched at the line's start, ASCII spaces).
HG_LINE = {
    name: re.compile(pattern, re.ASCII)
    for name, pattern in {
        "comment": r"(;|#)",
        "continued": r"\s+(\S|\S.*\S)\s*$",
        "include": r"%include\s+(\S|\S.*\S)\s*$",
        "empty": r"(;|#|\s*$)",
        "section": r"\[([^\[]+)\]",
        # (`[^=]*?\s*=` as Mercurial writes it: blanks taken by the name only when more of it
        # follows, so that a long run of them with no `=` is read once, not once a character.)
        "item": r"([^=\s](?:[^=\s]|\s++(?=[^=\s]))*+)\s*+=\s*+(.*\S|)",
        "unset": r"%unset\s+(\S+)",
    }.items()
}
MAX_HG_INCLUDES = 16
# And this many in all, each read anew as Mercurial reads it: an hgrc of 2,000 `%include a`
# lines, and `a` of 2,000 `%include b`, took four million reads before each command.
MAX_HG_INCLUDED = 256
# mise's [env] directives that name files: one it sources, dotenv files it loads (variables such
# as LD_PRELOAD make programs run code), and folders it puts on your PATH.
MISE_ENV_FILES = ("source", "file", "path")
# What a tool puts in for the folder it opened: VS Code's and the dev container's variables,
# the agents' `$<NAME>_PROJECT_DIR` (CLAUDE_, GEMINI_, FACTORY_, ...), JetBrains'
# `$PROJECT_DIR$`, mise's template.
PROJECT_VARIABLE = re.compile(
    r"\$\{(?:workspaceFolder|workspaceRoot|localWorkspaceFolder)\}"
    r"|\$PROJECT_DIR\$"
    r"|\$\{?[A-Z]+_PROJECT_DIR\}?"
    r"|\{\{\s*config_root\s*\}\}"
)
ENVIRONMENT_VARIABLE = re.compile(r"\$\{(?:env|localEnv):(\w+)\}")  # VS Code's ${env:NAME}
# A mise template other than config_root: what it makes is known only to mise. Found as
# `\{\{.*?\}\}|\{%.*?%\}` would find it, in linear time (tools/spans.py).
TEMPLATES = (("{{", "}}"), ("{%", "%}"))
# Files that mise's config_root is the folder above of: .mise/config.toml, mise/conf.d/x.toml,
# .config/mise.toml, .config/mise/config.toml.
MISE_SUBFOLDERS = (".mise", MISE_FOLDER, ".config", "conf.d")

REASONS = {
    TASKS: "VS Code runs it when the folder is opened (a folderOpen task of {settings})",
    DEVCONTAINER: "VS Code runs it on your machine when the folder is opened in a container "
    "(the initializeCommand of {settings})",
    COMMANDS: "a coding agent runs it on its own (a hook, helper or MCP server that {settings} "
    "names)",
    MISE: "mise runs or loads it when the shell enters the folder ({settings} names it)",
    CARGO: "cargo runs it for every build, as rust-analyzer does on opening the folder "
    "({settings} names it)",
    TOOLCHAIN: "rustup runs the toolchain there whenever rustc or cargo starts in the folder "
    "({settings} names it)",
    ZED: "Zed starts it as a language server on opening the folder ({settings} names it)",
    HELIX: "Helix starts it as a language server or formatter when it opens a file here "
    "({settings} names it)",
    HG: "Mercurial runs it as a hook or loads it as an extension ({settings} names it)",
    AIDER: "aider runs it after each change it makes ({settings} names it as lint-cmd or test-cmd)",
    EDITOR: "VS Code or an extension of it runs or loads it ({settings} names it)",
    VERSIONS: "asdf and mise run the tool's programs from there in every shell here ({settings} "
    "names it as a `path:` version)",
    ONE_VERSION: "mise and asdf run the tool's programs from there in every shell here "
    "({settings} names it as a `path:` version), and uv a python it names",
    CODE_WORKSPACE: "VS Code runs it or loads it for the workspace file {settings} (a folderOpen "
    "task, an interpreter, a terminal's profile)",
    IDEA: "a JetBrains IDE runs it when the project opens (a startup task of {settings} names "
    "the run configuration)",
    GIT_HOOK: "git's hook {settings} runs it, or a tool that reads it, at your next commit, push "
    "or checkout",
}
# JetBrains' startup tasks: the components of .idea/startup.xml (the project's) and of
# workspace.xml (yours) that name the run configurations the IDE runs when the project opens,
# and the components that define run configurations (.idea/runConfigurations/*.xml and
# .run/*.run.xml; workspace.xml's own).
IDEA_STARTUP = ("ProjectStartupSharedConfiguration", "ProjectStartupLocalConfiguration")
IDEA_DEFINED = ("ProjectRunConfigurationManager", "RunManager")
# workspace.xml is read in every JetBrains project, and a large project's grows past the 1 MiB
# other settings are read up to: one left unread would make every command ask.
IDEA_FILE_LIMIT = 16 * 1024 * 1024
# The XML of one is parsed a piece at a time, so that a look can stop between two pieces
# (`go_on`): expat holds the interpreter for a whole call, 2 s for 16 MiB of empty tags.
XML_PIECE = 1024 * 1024
# And up to here in all, in one look, in bytes and in tags (expat takes most of a microsecond
# a tag, 3 s for 16 MiB of `<x/>`): a startup task's configurations are looked up in every file
# of .idea/runConfigurations, and four of 16 MiB took 14 s a look. A large project's
# workspace.xml holds 200,000 tags in 16 MiB. Past either, the rest are unread: commands ask.
IDEA_PER_LOOK = 2 * IDEA_FILE_LIMIT
IDEA_TAGS_PER_LOOK = 500_000
# YAML and TOML settings are read up to here: libyaml takes 1.7 s to compose 1 MiB of list
# items, all in one call, and tomllib 0.7 s; a tool's own settings are a few KiB.
SLOW_SETTINGS_LIMIT = 256 * 1024
SLOW_SETTINGS_SUFFIXES = (".yaml", ".yml", ".toml")
# And up to here in all, in one look: Continue reads every file of .continue/mcpServers, and
# thirty of 250 KiB made a command take minutes. Past it, the rest are unread: commands ask.
SLOW_SETTINGS_PER_LOOK = 1024 * 1024


class ToolScripts(NamedTuple):
    """What the host tools' settings in a workspace run: each path, with why it is protected;
    the words whose path cannot be told, with why; and settings that could not be read."""

    named: list[tuple[Path, str]]
    untold: list[tuple[UntoldProgram, str]]
    unread: list[Path]
    unknown: list[tuple[str, str]]  # (what is run, the settings that run it)
    # Files they run only once made (the module of a `python -m x`, a compose.yaml), with why:
    # held while they exist, and reported when a command makes one (tools/sandbox.py).
    when_there: list[tuple[Path, str]]
    # The linters and formatters they run that take a config from each file's folder, with the
    # project each runs in (`per_file_configs`).
    per_file: list[tuple[Path, str]]


def settings_files(config: Path) -> list[tuple[Path, str]]:
    """The files of one host tool's entry (`scan.tool_configs`) that name what it runs, each
    with how it is read: those of SETTINGS_FILES that exist, and mise's own files."""
    name, parent = config.name, config.parent.name
    if name in GIT_HOOK_NAMES:  # (no host tool's entry has a hook's name)
        return [(config, GIT_HOOK)] if os.path.isfile(config) else []
    kinds = SETTINGS_FILES.get(name) or SETTINGS_FILES.get(f"{parent}/{name}", ())
    if name.endswith(CODE_WORKSPACE_SUFFIX):
        kinds = (("", CODE_WORKSPACE),)
    if not kinds and (MISE_FILE.fullmatch(name) or parent == MISE_FOLDER):
        kinds = (("*.toml", MISE),) if os.path.isdir(config) else (("", MISE),)  # mise/conf.d
    found: list[tuple[Path, str]] = []
    for pattern, kind in kinds:
        matches = (
            [str(config)] if not pattern else glob.glob(f"{glob.escape(str(config))}/{pattern}")
        )
        found += [(Path(path), kind) for path in sorted(matches) if os.path.isfile(path)]
    return found


def project_of(config: Path, kind: str) -> Path:
    """The folder a tool opened when it reads the settings of the entry `config`: the folder
    that holds the entry (`.github/hooks`: the one above), for mise its config_root; for a
    git hook the top of the working tree, where git runs it."""
    if kind == GIT_HOOK:
        trees = (folder for folder in config.parents if os.path.lexists(folder / GIT_DIR_NAME))
        return configured_tree(next(trees, config.parent))
    if f"{config.parent.name}/{config.name}" in SETTINGS_FILES:
        return config.parent.parent
    folder = config.parent
    while kind == MISE and folder.name in MISE_SUBFOLDERS and folder != folder.parent:
        folder = folder.parent
    return folder


def configured_tree(tree: Path) -> Path:
    """Where git runs a hook of the repository at `tree` from: the `core.worktree` its config
    names (your GIT_WORK_TREE first), else `tree`."""
    git_dir = git_dir_of(tree / GIT_DIR_NAME)
    worktree = os.environ.get("GIT_WORK_TREE")
    for config in [] if git_dir is None or worktree else [git_dir, common_dir_of(git_dir)]:
        for key, value in read_git_config(config / "config") if config else []:
            worktree = value if key == "core.worktree" else worktree
    if not worktree or git_dir is None:
        return tree
    return Path(os.path.normpath(git_dir / os.path.expanduser(worktree)))


# The keys of an editor's settings whose value is a program, or what a program loads its code
# from, by how their last part ends (`python.defaultInterpreterPath`, `clangd.path`,
# `go.toolsGopath`, `rust-analyzer.server.path`, `eslint.nodePath`), or whole; and words of
# keys that name data (`json.schemas`' `url`, `prettier.configPath`, `ignorePath`).
EDITOR_PROGRAM_ENDINGS = ("path", "executable", "command", "interpreter", "binary", "exe")
EDITOR_PROGRAM_KEYS = ("args", "arguments", "program", "runtime", "server", "shell")
EDITOR_DATA_WORDS = {"config", "schema", "schemas", "ignore", "log", "logs", "cache", "output"}
EDITOR_DATA_WORDS |= {"url", "dictionary", "dictionaries", "preview", "spell", "template"}
EDITOR_DATA_WORDS |= {"templates", "snippet", "snippets", "theme", "icon", "font"}
# Endings no data word undoes (`foo.templateCommand` is a command all the same).
EDITOR_COMMAND_ENDINGS = ("command", "executable", "interpreter", "binary")
EDITOR_PROGRAM_TABLES = ("alternatetools", "executables")  # (`php.executables: {v8.2: ...}`)
# Keys whose value is a toolchain's folder, whose programs the extension runs (`go.goroot`,
# `dart.sdkPath`, `java.jdt.ls.java.home`): held as a folder, where other keys hold files only.
EDITOR_TOOLCHAIN_ENDINGS = ("goroot", "gopath", "sdkpath", "sdkpaths", "jdkpath")
EDITOR_TOOLCHAIN_KEYS = ("sdk", "home")  # whole (`java.home`), not `typescript.tsdk`'s ending

# Keys (in lower case) whose value is the folder an extension loads its code from, and runs
# when you open the folder: ESLint's and Prettier's module, stylelint's, the TypeScript that
# VS Code's own TypeScript support runs once you chose "Use Workspace Version" (yarn's
# `.yarn/sdks/typescript/lib`, or `node_modules/typescript/lib`).
EDITOR_CODE_FOLDER_KEYS = ("eslint.nodepath", "prettier.prettierpath", "stylelint.stylelintpath")
EDITOR_CODE_FOLDER_KEYS += ("typescript.tsdk", "js/ts.tsdk.path")
EDITOR_CODE_REASON = (
    "an editor extension loads its code from it when you open the folder (`eslint.nodePath`, "
    "`prettier.prettierPath`, `typescript.tsdk` in the editor's settings)"
)
# A key whose value is a dotenv file an extension loads into what it starts (`python.envFile`,
# `go.testEnvFile`): its LD_PRELOAD or PYTHONPATH runs code, as a `.env*` file's would.
EDITOR_ENV_FILE_ENDING = "envfile"
EDITOR_ENV_FILE_REASON = (
    "an editor extension loads this file's variables into what it starts (`python.envFile` in "
    "the editor's settings): LD_PRELOAD, PYTHONPATH or NODE_OPTIONS there run code"
)
# A program an editor setting names by a path (`ruff.path`): most projects have not built their
# `tools/ruff` or `.venv/bin/ruff` yet, so one not there is held once made and told, not asked.
EDITOR_PROGRAM_REASON = (
    "an editor extension runs this program (`ruff.path`, clangd's `--query-driver` in the "
    "editor's settings)"
)
# The file VS Code's Python extension loads when no `python.envFile` names another: in every
# folder it opens, with or without settings.
PYTHON_ENV_FILE_KEY, PYTHON_ENV_FILE_DEFAULT = "python.envFile", "${workspaceFolder}/.env"
PYTHON_ENV_FILE_SHOWN = ".env (the Python extension's default `python.envFile`)"

# How a settings value that names a file by its path begins (a glob is a pattern, not a file).
PATH_STARTS = ("./", "../", "/", "~/", "${workspaceFolder}/", "${workspaceRoot}/", "${userHome}/")

# A package manager called in any form runs what the package.json of its folder names: which
# of its scripts is a matter of aliases (`npm t`), options anywhere on the line, and the
# lifecycle of each subcommand (`npm install` runs prepare too), so all of them are held, with
# the files npm runs when a script is missing (`npm start`: server.js; an install: node-gyp
# on binding.gyp). The options that name the folder of the package.json; the words that run
# one script of that folder alone, without these options (WORKSPACE_OPTIONS) or a
# subcommand of another kind, which may run the scripts of each workspace package too.
RUN_WORDS = ("run", "run-script", "rs", "urn", "test", "t", "tst", "start", "stop", "restart")
FOLDER_OPTIONS = ("--prefix", "-C", "--dir", "--cwd")
WORKSPACE_OPTIONS = ("-w", "--workspace", "--workspaces", "-ws", "--filter", "-F", "-r")
WORKSPACE_OPTIONS += ("--recursive", "--include-workspace-root", "-W", "--workspace-root")
NPM_SELECTS = ("workspace", "workspaces", "include-workspace-root")  # (as npm_option names them)
PACKAGE_DEFAULTS = ("server.js", "binding.gyp")
PACKAGE_JSON, PNPM_WORKSPACE = "package.json", "pnpm-workspace.yaml"
INSTALL_WORDS = ("install", "i", "add", "ci", "remove", "up", "upgrade", "update")
# The commands of yarn, pnpm and bun themselves: one of these runs, not a script of its name.
BUILT_INS = ("add", "audit", "autoclean", "bin", "cache", "check", "config", "constraints")
BUILT_INS += ("create", "dedupe", "deploy", "dlx", "doctor", "env", "exec", "explain", "fetch")
BUILT_INS += ("generate-lock-entry", "global", "help", "import", "info", "init", "install", "it")
BUILT_INS += ("install-test", "licenses", "link", "list", "ln", "login", "logout", "ls", "npm")
BUILT_INS += ("outdated", "owner", "pack", "patch", "patch-commit", "pm", "plugin", "policies")
BUILT_INS += ("prune", "publish", "rebuild", "rb", "recursive", "remove", "rm", "root", "run")
BUILT_INS += ("sdk", "search", "self-update", "server", "set", "setup", "stage", "start", "store")
BUILT_INS += ("tag", "team", "test", "unlink", "unplug", "up", "update", "upgrade")
BUILT_INS += ("upgrade-interactive", "version", "versions", "why", "workspace", "workspaces", "x")
BUILT_INS += ("approve-builds", "ignored-builds", "cat-file", "cat-index", "find-hash")
BUILT_INS += ("trust", "untrusted")
DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "optionalDependencies")
DEPENDENCY_FIELDS += ("peerDependencies", "overrides", "resolutions")
# What `docker compose` (or podman's) reads from its folder when no `-f` names the files: the
# first of COMPOSE_FILES, and its override beside it. The options that name files or folder.
COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")
COMPOSE_OVERRIDES = tuple(name.replace(".y", ".override.y") for name in COMPOSE_FILES)
COMPOSE_FILE_OPTIONS = ("-f", "--file", "--env-file")
COMPOSE_FOLDER_OPTIONS = ("--project-directory",)
COMPOSE_REASON = (
    "docker compose starts the containers it describes, with the docker daemon's rights (root "
    "on your machine: a host folder mounted, a privileged container), when a host tool runs it"
)
MAX_COMPOSE_FILES = 64
PACKED = (".tgz", ".tar.gz", ".tar")
LOCAL_PACKAGE_REASON = (
    "an install by a host tool's package manager unpacks it as a dependency and runs its "
    "install scripts"
)
WORKSPACE_MEMBER_REASON = (
    "a package manager a host tool runs runs the scripts of each workspace package (or local "
    "one) it reads"
)
MAX_WORKSPACE_MATCHES = 2000  # folders a workspace pattern may match (`**` walks the tree)

# Settings whose relative paths start beside them, not in the project: Cursor's hooks.json
# (`./hooks/format.sh` is `.cursor/hooks/format.sh`).
PATHS_BESIDE = (".cursor/hooks.json",)


def _beside(settings: Path) -> bool:
    return f"{settings.parent.name}/{settings.name}" in PATHS_BESIDE


def read_settings(path: Path, kind: str = "", run_files: Iterable[Path] = ()) -> Any:
    """The settings in `path`, parsed as their tool reads them: Mercurial's INI, YAML (aider's,
    Continue's), TOML (cargo's `config` too; a `rust-toolchain` that is not TOML names a
    channel, nothing to hold), else JSON with comments and trailing commas (as VS Code and the
    agents read theirs). ValueError or OSError when they cannot be. `run_files`: the
    JetBrains run configuration files a scan found, wherever they lie."""
    limit = _size_limit(path, kind)
    text = read_small_file(path, limit)
    if kind == GIT_HOOK and getattr(_once, "found", None) is not None:
        _once.hook_bytes += len(text)
        if _once.hook_bytes > HOOKS_PER_LOOK:
            raise OSError(errno.EFBIG, "past the hooks a look reads", str(path))
    if limit == SLOW_SETTINGS_LIMIT:
        counted_as_slow(path, text)
    text = text.removeprefix("\ufeff")
    if kind == GIT_HOOK:
        return {"text": text, "folder": str(path.parent), "path": str(path)}  # (`hook_runs`)
    if kind == IDEA:
        return read_idea_startup(path, text, run_files)
    if kind == HG:
        settings: dict[str, dict[str, str]] = {}
        included: list[str] = []
        read_hgrc(path, text, settings, included)
        return {**settings, INCLUDED: dict.fromkeys(included, "")}
    if kind == VERSIONS:  # asdf's: `nodejs 20.1.0 path:./tools/node`, `#` to the line's end
        return {"tools": tool_versions(text)}
    if kind == ONE_VERSION:  # `20.1.0`, `path:./tools/node`: each word may be the version
        words = [
            word for tool, versions in tool_versions(text).items() for word in (tool, *versions)
        ]
        return {"versions": words, "python": path.name.startswith(".python-version")}
    if kind == AIDER or path.suffix in (".yaml", ".yml"):
        return read_yaml(text)
    if kind == TOOLCHAIN and path.suffix != ".toml":
        try:
            return toml_data(text)
        except ValueError:
            return {}
    if path.suffix == ".toml" or kind == CARGO:
        return toml_data(text)
    plain = without_comments(text)
    return json.loads(plain) if plain.strip() else {}  # an empty file is no settings


def counted_as_slow(path: Path, text: str) -> None:
    """Counts `text`, read from `path`, among the YAML and TOML settings a look reads
    (SLOW_SETTINGS_PER_LOOK): OSError past them, and what the rest run cannot be told."""
    if getattr(_once, "found", None) is not None:
        _once.slow_bytes += len(text)
        if _once.slow_bytes > SLOW_SETTINGS_PER_LOOK:
            raise OSError(errno.EFBIG, "past the YAML and TOML settings a look reads", str(path))


def _size_limit(path: Path, kind: str) -> int:
    """How many bytes of a settings file of this kind are read: past it, it is unread."""
    if kind == IDEA:
        return IDEA_FILE_LIMIT
    if kind == GIT_HOOK:
        return HOOK_FILE_LIMIT
    slow = kind in (AIDER, CARGO, TOOLCHAIN) or path.suffix in SLOW_SETTINGS_SUFFIXES
    return SLOW_SETTINGS_LIMIT if slow else SMALL_FILE_LIMIT


def read_hgrc(
    path: Path, text: str, settings: dict[str, dict[str, str]], included: list[str], depth: int = 0
) -> None:
    """An hgrc's items into `settings` by section, read by Mercurial's own rules (HG_LINE):
    lines end at `\n` or `\r` alone, a section is what the first `[...]` of a line names, an
    indented line continues the item before it, `%unset` drops an item, and `%include FILE`
    (from the hgrc's folder, `~` and variables put in) reads that file with sections of its
    own, after which this one's section goes on. Each file included goes to `included`: it is
    held as the hgrc's programs are. A line Mercurial refuses (it then runs nothing), includes
    nested past MAX_HG_INCLUDES or more than MAX_HG_INCLUDED in all: ValueError, as for
    settings that cannot be read."""
    section, item = "", None
    lines = [*re.split(r"\r\n|\r|\n", text.removeprefix("\ufeff")), ""]  # ("": the last ends)
    parts: list[str] = []  # the item's value, line by line: joined once, when it ends
    for line in lines:
        if item is not None:
            if HG_LINE["comment"].match(line):
                continue
            if more := HG_LINE["continued"].match(line):
                parts.append(more.group(1))
                continue
            settings[section][item] = "\n".join(parts)
            item = None
        if include := HG_LINE["include"].match(line):
            name = expand_variables(os.path.expanduser(include.group(1)))
            name = os.path.normpath(path.parent / name)
            included.append(name)
            if depth >= MAX_HG_INCLUDES:
                raise ValueError(f"includes nested deeper than {MAX_HG_INCLUDES}")
            if len(included) > MAX_HG_INCLUDED:  # (each read anew: 2,000 lines of 2,000 ...)
                raise ValueError(f"more than {MAX_HG_INCLUDED} includes")
            go_on()
            # Not made yet: held as missing. Too big or unreadable: the hgrc is unread.
            with contextlib.suppress(FileNotFoundError):
                read_hgrc(Path(name), read_small_file(Path(name)), settings, included, depth + 1)
        elif HG_LINE["empty"].match(line):
            continue
        elif header := HG_LINE["section"].match(line):
            section = header.group(1)
        elif found := HG_LINE["item"].match(line):
            item, parts = found.group(1), [found.group(2)]
            settings.setdefault(section, {})[item] = found.group(2)
        elif unset := HG_LINE["unset"].match(line):
            settings.get(section, {}).pop(unset.group(1), None)
        else:
            raise ValueError(f"Mercurial refuses the line {line[:80]!r}")


def read_idea_startup(path: Path, text: str, run_files: Iterable[Path] = ()) -> dict:
    """What the startup tasks of an .idea file run: each run configuration they name, with
    the file that defines it, looked up by name (the IDE's own id adds the type's name, which
    the file does not give) in .idea/runConfigurations, the project's .run/*.run.xml and the
    other `*.run.xml` of `run_files` in the project (the IDE reads them all, and which of
    several definitions wins is its own: each counts), and workspace.xml; and the names none
    defines. ValueError for XML the IDE cannot read."""
    components = _idea_components(path, text)
    startup = [c for c in components if c.get("name") in IDEA_STARTUP]
    names = {task.get("name") for c in startup for task in c.iter("configuration")} - {None}
    if not names:
        return {}
    idea = path.parent
    files = sorted(glob.glob(f"{glob.escape(str(idea))}/runConfigurations/*.xml"))
    files += sorted(glob.glob(f"{glob.escape(str(idea.parent))}/.run/*.run.xml"))
    files += [str(file) for file in run_files if file.is_relative_to(idea.parent)]
    files = list(dict.fromkeys(files))
    found = []
    for file in [Path(name) for name in files] + [idea / "workspace.xml"]:
        if not os.path.isfile(file):
            continue
        for component in _idea_components(file):
            if component.get("name") in IDEA_DEFINED:
                found += [
                    (each, file)
                    for each in component.iter("configuration")
                    if each.get("name") in names and each.get("default") != "true"
                ]
    return {"found": found, "missing": sorted(names - {each.get("name") for each, _ in found})}


def _idea_components(path: Path, text: str | None = None) -> list[ElementTree.Element]:
    """The components of a JetBrains XML file (`text`, else read), each file parsed once a
    look (workspace.xml both names startup tasks and defines configurations), and
    IDEA_PER_LOOK and IDEA_TAGS_PER_LOOK of them in all: past it, OSError as for a file too
    big."""
    looking = getattr(_once, "found", None) is not None
    if looking and str(path) in _once.idea:
        return _once.idea[str(path)]
    text = read_small_file(path, IDEA_FILE_LIMIT) if text is None else text
    if looking:
        _once.idea_bytes += len(text)
        _once.idea_tags += text.count("<")
        if _once.idea_bytes > IDEA_PER_LOOK or _once.idea_tags > IDEA_TAGS_PER_LOOK:
            raise OSError(errno.EFBIG, "past the JetBrains settings a look reads", str(path))
    components = list(_xml(text.removeprefix("\ufeff")).iter("component"))
    if looking:
        _once.idea[str(path)] = components
    return components


def _xml(text: str) -> ElementTree.Element:
    parser = ElementTree.XMLParser()
    try:
        for start in range(0, len(text), XML_PIECE):
            go_on()
            parser.feed(text[start : start + XML_PIECE])
        return parser.close()  # (expat refuses entities that grow past bounds)
    except ElementTree.ParseError as error:
        raise ValueError(f"not XML: {error}") from error


# How many lists, tables and values a YAML document may stand for, its aliases followed.
MAX_YAML_ENTRIES = 100_000


class YamlTooLarge(ValueError):
    """A YAML document whose aliases stand for more than MAX_YAML_ENTRIES entries: what the
    tool reads from it cannot be told (tools/build_files.py makes commands ask)."""


def read_yaml(text: str) -> Any:
    """A YAML document as data. An alias (`*name`) is the same list or table again, which a
    walk over the data visits once for each: a few of them nested stand for more entries than
    any walk could visit (the "billion laughs"), or, pointing at themselves, for endless ones.
    So aliases count for what they stand for, and past MAX_YAML_ENTRIES the document is
    refused (YamlTooLarge). An everyday anchor (`types_or: &code [...]`, `*code` below) reads."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, where the wheel has it
    try:
        data = yaml.load(text, Loader=loader)  # a safe loader: it makes no objects
    except yaml.YAMLError as error:
        raise ValueError(f"not YAML: {error}") from None
    stack, visited = [data], 0
    while stack:
        node = stack.pop()
        visited += 1
        if visited > MAX_YAML_ENTRIES:
            raise YamlTooLarge(f"a YAML document of more than {MAX_YAML_ENTRIES:,} entries")
        if isinstance(node, (list, dict, tuple, set)):  # (`!!pairs` are tuples, `!!set` a set)
            stack += node.values() if isinstance(node, dict) else node
    return data


# (One search for either: a `find` of each read to the end of the text from every comment.)
LINE_END = re.compile(r"[\r\n]")
# JSON5 ends a line (and a `//` comment) at U+2028 and U+2029 too.
JSON5_LINE_END = re.compile("[\r\n\u2028\u2029]")
NOT_BLANK = re.compile(r"\S")


def without_comments(text: str, blanked: bool = False, json5: bool = False) -> str:
    """JSON with comments (`//`, `/* */`) and trailing commas, as plain JSON: each is dropped
    where it stands outside a string (`"tools/x,]"` is a name, and stays one). `blanked`: as
    strip-json-comments does it, each comment becomes blanks (its line breaks kept, so what
    follows keeps its column, which YAML reads) and the commas stay. `json5`: a `//` comment
    ends where JSON5 ends it, at U+2028 and U+2029 too."""
    out: list[str] = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if char == '"':
            end = index + 1
            while end < length and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[index : end + 1])
            index = end + 1
        elif text.startswith(("//", "/*"), index):
            end = _comment_end(text, index, JSON5_LINE_END if json5 else LINE_END)
            if blanked:
                out.append(NOT_BLANK.sub(" ", text[index:end]))
            index = end
        elif char in "]}" and not blanked:
            while out and not out[-1].strip():  # the blanks, then a trailing comma, go
                out.pop()
            if out and out[-1] == ",":
                out.pop()
            out.append(char)
            index += 1
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _comment_end(text: str, start: int, line_end: re.Pattern[str] = LINE_END) -> int:
    """Where the comment at `start` ends: a `//` one at its line's end (`line_end`), a `/* */`
    one past its `*/` (or at the text's end)."""
    if text.startswith("//", start):
        found = line_end.search(text, start)  # (a lone `\r` ends a line too)
        return found.start() if found else len(text)
    end = text.find("*/", start + 2)
    return len(text) if end < 0 else end + 2


# The data configs their tools read as YAML, though they may look like JSON: one without a
# suffix (`.prettierrc`, `.stylelintrc`, `.lintstagedrc`, `.commitlintrc`: prettier's,
# cosmiconfig's and lint-staged's loaders take YAML there, and a legacy `.eslintrc` is YAML
# to ESLint once its JSON comments are blanked out), and a YAML one.
YAML_READ_SUFFIXES = ("", ".yaml", ".yml")
# What the tools' YAML (1.2: js-yaml, `yaml`) reads as a character of a name or a comment, and
# PyYAML (1.1) does not: the control characters it refuses, and NEL, LS and PS, which it takes
# for line breaks (`"p\x85.mjs"` is a plugin's name to prettier, `p .mjs` to PyYAML).
CONTENT_TO_THE_TOOLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


def data_readings(config: Path, text: str) -> list[Any]:
    """A data config (not TOML) as each of its tools may read it: JSON with comments, and for
    one they read as YAML (YAML_READ_SUFFIXES), or that is no JSON, YAML as written and with
    its JSON comments blanked out. One text can be both and mean two things
    (`{"x": /* ", "plugins": ["p.mjs"], "b": " */ 1} // "}` names the plugin to YAML alone),
    so what any reading names counts. JSON5 is no YAML (YAML would read its strings' escapes
    otherwise: `'\\x78'`). ValueError where none reads it; YamlTooLarge as read_yaml."""
    text = text.removeprefix("\ufeff")
    readings = []
    with contextlib.suppress(ValueError):
        readings.append(json.loads(without_comments(text, json5=config.suffix == ".json5")))
    if config.suffix == ".json5" or (readings and config.suffix not in YAML_READ_SUFFIXES):
        if not readings:
            raise ValueError(f"{config.name} is no JSON")
        return readings
    # (the tools' YAML takes characters PyYAML refuses or breaks a line at, in a comment or a
    # name: read with a stand-in for each, put back in what is read; and as written, as Go's
    # YAML reads it, which breaks a line at NEL too)
    plain, stands_for = _with_stand_ins(text)
    written = (text, without_comments(text, blanked=True)) if stands_for else ()
    texts = {**dict.fromkeys(written, {}), plain: stands_for}
    texts.setdefault(without_comments(plain, blanked=True), stands_for)
    for each, put_back in texts.items():
        try:
            readings.append(_put_back(read_yaml(each), put_back))
        except YamlTooLarge:
            raise
        except ValueError:
            continue
    if not readings:
        raise ValueError(f"{config.name} is neither JSON nor YAML")
    return readings


def _with_stand_ins(text: str) -> tuple[str, dict[str, str]]:
    """`text` with each character of CONTENT_TO_THE_TOOLS in it as one PyYAML reads as any
    other of a name (one past the first plane that the text does not hold: a file of a MiB
    holds a quarter of them at most), and what each stand-in stands for."""
    found = sorted(set(CONTENT_TO_THE_TOOLS.findall(text)))
    if not found:
        return text, {}
    held = set(text)
    free = (chr(code) for code in range(0x10000, 0x110000) if chr(code) not in held)
    stand_in = dict(zip(found, free, strict=False))
    return CONTENT_TO_THE_TOOLS.sub(lambda each: stand_in[each[0]], text), {
        new: old for old, new in stand_in.items()
    }


def _put_back(data: Any, stands_for: dict[str, str]) -> Any:
    """YAML's `data` with each stand-in in its strings (keys too) put back as the character it
    stands for (`_with_stand_ins`). A list or mapping is changed in place, each once (an
    anchor may give one twice, or inside itself)."""
    if not stands_for:
        return data
    table = str.maketrans(stands_for)
    stack, seen = [data], set()
    while stack:
        node = stack.pop()
        if id(node) in seen or not isinstance(node, (list, dict)):
            continue
        seen.add(id(node))
        if isinstance(node, list):
            node[:] = [_translated(each, table) for each in node]
            stack += node
        else:
            pairs = [(_translated(key, table), value) for key, value in node.items()]
            node.clear()
            node.update((key, _translated(value, table)) for key, value in pairs)
            stack += node.values()
    return _translated(data, table)


def _translated(value: Any, table: dict[int, str]) -> Any:
    return value.translate(table) if isinstance(value, str) else value


def put_in(text: str, project: Path) -> str:
    """`text` with the tool's own variables for the project folder, your home and your
    environment put in (PROJECT_VARIABLE, `${userHome}`, `${env:NAME}`)."""
    text = PROJECT_VARIABLE.sub(lambda _: str(project), text)
    text = text.replace("${userHome}", str(Path.home())).replace("${pathSeparator}", "/")
    if ENVIRONMENT_VARIABLE.search(text):
        environ = without_secrets()  # (a path of `${env:GITHUB_TOKEN}` is quoted in notices)
        text = ENVIRONMENT_VARIABLE.sub(lambda found: environ.get(found.group(1), ""), text)
    return text


def as_command_line(command: Any, args: Any = None) -> str | None:
    """A command (a string, an argv list, or VS Code's `{"value": ...}`) and its arguments as
    one command line, or None when it is none of these."""
    command = _value(command)
    words = [_value(arg) for arg in args] if isinstance(args, list) else []
    if isinstance(command, list):
        words = [_value(word) for word in command] + words
        command = None
    if not all(isinstance(word, str) for word in words):
        return None
    if isinstance(command, str):
        return " ".join([command, *(shlex.quote(word) for word in words)])
    return shlex.join(words) if words else None


def _value(item: Any) -> Any:
    return item.get("value") if isinstance(item, dict) else item


class Run(NamedTuple):
    """One thing a tool runs on its own: a command line (None for none), the folder it runs in
    (`cwd` as the settings give it, None for the project), the variables it sets for it, files
    it runs or loads by a path, and what it runs that planloop cannot tell at all ("" for
    nothing)."""

    line: str | None
    cwd: Any = None
    env: Any = None
    files: tuple[str, ...] = ()
    unknown: str = ""
    existing: bool = False  # only files count, or one not made yet (a value may be data)
    # Folders or files an extension loads code from: held while there, told once one is made.
    loads: tuple[str, ...] = ()
    loads_why: str = EDITOR_CODE_REASON
    # Globs of programs (clangd's `--query-driver`): what they match is held, a new match told.
    patterns: tuple[str, ...] = ()
    # Dotenv files whose variables it starts with (`python.envFile`), as if set in `env`.
    env_files: tuple[str, ...] = ()
    # What it starts is the person's own run of the project's code (the editor's tests, its
    # debugger, its terminals): a PYTHONPATH folder there is where that code lives, and only the
    # modules python runs at every start count, held while there and told when made.
    person_runs: bool = False
    # The line is one a hook's reader gave, its values put in (tools/hook_lines.py): not
    # read as a shell's lines again.
    read_as_lines: bool = False


def folder_open_tasks(settings: Any) -> Iterator[Run]:
    """What VS Code runs of a tasks.json when the folder is opened: each task with
    `"runOn": "folderOpen"` (in any letter case, as VS Code reads it) and the tasks it
    depends on, each with the shell, variables and folder its options give (the file's own,
    then Linux's, then the task's)."""
    if not isinstance(settings, dict) or not isinstance(settings.get("tasks"), list):
        return
    tasks = [task for task in settings["tasks"] if isinstance(task, dict)]
    by_label = {task.get("label") or task.get("taskName"): task for task in tasks}
    runs = [task for task in tasks if _on_open(_dict(task.get("runOptions")).get("runOn"))]
    for task in runs:  # grows while it is walked: what each depends on runs first
        needs = task.get("dependsOn")
        for need in [needs] if isinstance(needs, str | dict) else _list(needs or []):
            needed = _task_named(need, by_label, tasks)
            if needed not in runs:
                runs.append(needed)
    linux = _dict(settings.get("linux"))
    for task in runs:
        mine = {**task, **_dict(task.get("linux"))}
        options = {**_dict(settings.get("options")), **_dict(linux.get("options"))}
        options |= _dict(mine.get("options"))
        shell = _dict(options.get("shell"))
        common = {"cwd": options.get("cwd"), "env": options.get("env")}
        if isinstance(shell.get("executable"), str):  # the shell, and its own arguments
            yield Run(as_command_line(shell["executable"], shell.get("args")), options.get("cwd"))
        if "unknown" in mine:
            yield Run(None, unknown=mine["unknown"])
        elif "command" in mine:
            yield Run(as_command_line(mine["command"], mine.get("args")), **common)
        elif mine.get("type") == "npm" and isinstance(mine.get("script"), str):
            where = mine.get("path") if isinstance(mine.get("path"), str) else None
            yield Run(f"npm run {shlex.quote(mine['script'])}", cwd=where)
        elif "command" in settings or "command" in linux:  # the 0.1.0 form's global command
            command = linux.get("command", settings.get("command"))
            arguments = mine.get("args", linux.get("args", settings.get("args")))
            yield Run(as_command_line(command, arguments), **common)
        else:  # gulp, grunt, typescript, an extension's task: its program is its own
            yield Run(None, unknown=f"a {mine.get('type') or 'provided'!s} task run on opening")


def _on_open(run_on: Any) -> bool:
    return isinstance(run_on, str) and run_on.lower() == "folderopen"


def _task_named(need: Any, by_label: dict, tasks: list[dict]) -> dict:
    """The task a dependsOn item names: a label of this file, an npm script's (`npm: watch`,
    or `{"type": "npm", "script": "watch"}`), or else one planloop cannot tell."""
    if isinstance(need, str) and need in by_label:
        return by_label[need]
    if isinstance(need, str) and need.startswith("npm: "):
        need = {"type": "npm", "script": need.removeprefix("npm: ")}
    if isinstance(need, dict):
        same = [task for task in tasks if all(task.get(k) == v for k, v in need.items())]
        return same[0] if same else need
    return {"unknown": f"the task {need!r} a folderOpen task depends on"}


def _dict(item: Any) -> dict:
    return item if isinstance(item, dict) else {}


def initialize_commands(settings: Any) -> Iterator[Run]:
    """A devcontainer.json's initializeCommand (a string, an argv list, or an object of
    either, whose commands run side by side), and the compose files whose containers it
    starts on your machine (`dockerComposeFile`: a service there may mount any folder)."""
    command = _dict(settings).get("initializeCommand")
    for each in command.values() if isinstance(command, dict) else [command]:
        if (line := as_command_line(each)) is not None:
            yield Run(line)
    compose = _dict(settings).get("dockerComposeFile")
    files = tuple(name for name in _list(compose) if isinstance(name, str))
    if files:
        yield Run(None, files=files)


def agent_commands(settings: Any) -> Iterator[Run]:
    """Each object in a coding agent's settings that names a command (COMMAND_KEYS: a hook, a
    status line, an MCP server with its `args`, `cwd`, `env` and `envFile`, whose variables
    such as NODE_OPTIONS name code), and the plugins it loads. The settings' own `env` table
    (Claude's: variables for every hook) is each command's environment too."""
    shared = settings.get("env") if isinstance(settings, dict) else None
    shared = shared if isinstance(shared, dict) else {}
    stack = [settings]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack += node
        elif isinstance(node, dict):
            for key, value in node.items():
                if key in PLUGIN_KEYS:  # a path; a plain name is an npm package
                    # (in any form: `["./p.js", {options}]`, `{"path": "./p.js"}`)
                    paths = [v for v in _strings(value) if _a_path(v)]
                    yield Run(None, files=tuple(v.removeprefix("file:") for v in paths))
                elif key == "env":  # variables for every hook (Claude's settings' `env`)
                    yield Run(None, env=value)
                elif key == "envFile":  # a dotenv file an MCP server starts with (VS Code's)
                    yield Run(None, files=tuple(_strings(value)), env_files=tuple(_strings(value)))
                elif key not in COMMAND_KEYS:
                    stack.append(value)
                elif (line := as_command_line(value, node.get("args"))) is not None:
                    yield Run(line, node.get("cwd"), {**shared, **_dict(node.get("env"))})


def mise_runs(settings: Any) -> Iterator[Run]:
    """What a mise config runs or loads when the shell enters its folder: what its [hooks] and
    [[watch_files]] run, the files its [env] sources or loads, the folders it puts on PATH,
    and its variables that name code (`BASH_ENV`)."""
    settings = _dict(settings)
    lines = _strings(settings.get("hooks"))
    watches = settings.get("watch_files")
    for watch in watches if isinstance(watches, list) else []:
        lines += _strings(_dict(watch).get("run"))
    # A template mise alone fills in is an expansion: `${mise}` stands for it.
    yield from (Run(_templates_marked(line)) for line in lines)
    env = settings.get("env")
    for table in env if isinstance(env, list) else [env]:
        directives = _dict(_dict(table).get("_"))
        for key in MISE_ENV_FILES:
            for item in _list(directives.get(key)):
                paths = _strings(_dict(item).get("path") if isinstance(item, dict) else item)
                yield Run(None, files=tuple(paths))
        variables = {k: v for k, v in _dict(table).items() if k != "_" and isinstance(v, str)}
        yield Run(None, env=variables)
    yield from version_paths(settings)  # [tools] node = "path:./tools/node"


def cargo_runs(settings: Any) -> Iterator[Run]:
    """What cargo runs for a build by the paths its config names: rustc, its wrappers and
    rustdoc, each target's runner and linker, and credential providers."""
    build = _dict(_dict(settings).get("build"))
    for key in ("rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc"):
        yield Run(as_command_line(build.get(key)))
    for target in _dict(_dict(settings).get("target")).values():
        for key in ("runner", "linker"):
            yield Run(as_command_line(_dict(target).get(key)))
    stack = [settings]
    while stack:
        node = stack.pop()
        for key, value in _dict(node).items():
            if key in ("credential-provider", "global-credential-providers"):
                for each in (
                    value if key.startswith("global") and isinstance(value, list) else [value]
                ):
                    yield Run(as_command_line(each))
            elif isinstance(value, dict):
                stack.append(value)


# How the version managers split a .tool-versions line into words: asdf's shell at spaces and
# tabs, mise at Unicode's White_Space, Go's asdf at those and NBSP; Python's `split()` takes
# the separators 0x1c to 0x1f too. A line ends at a line feed for all of them.
VERSION_WORD_BREAKS = (f"[{SHELL_BLANKS}]", r"(?![\x1c-\x1f])\s", r"\s")


def tool_versions(text: str) -> dict[str, list[str]]:
    """Each tool of a .tool-versions file with its versions, as any of the managers reads them
    (`VERSION_WORD_BREAKS`): a `path:` version any of them takes is held."""
    tools: dict[str, list[str]] = {}
    for line in text.split("\n"):
        line = line.split("#", 1)[0].removesuffix("\r")
        for breaks in VERSION_WORD_BREAKS:
            words = [word for word in re.split(f"{breaks}+", line) if word]
            if words:
                versions = tools.setdefault(words[0], [])
                versions += [word for word in words[1:] if word not in versions]
    return tools


def version_paths(settings: Any) -> Iterator[Run]:
    """The `path:` versions of asdf's .tool-versions or mise's [tools] (`node =
    "path:./tools/node"`): the folders whose bin/ they run for the tool in every shell and
    editor here. A relative one is taken from the shell's folder: only the tool can tell."""
    for value in _dict(_dict(settings).get("tools")).values():
        versions = [
            _dict(item).get("version") if isinstance(item, dict) else item for item in _list(value)
        ]
        for version in _strings(versions):
            if version.startswith("path:"):
                path = os.path.normpath(os.path.expanduser(version.removeprefix("path:")))
                yield Run(None, files=(path if os.path.isabs(path) else f"${{PWD}}/{path}",))


# What uv reads in .python-version as a request, not a path: a version (`3.12`, `3.13t`,
# `cpython@3.12`, `pypy3.10`) or a python's name alone (`system`, `pypy`).
PYTHON_REQUEST = re.compile(
    r"[a-z]*+[@-]?\d[\w.+@-]*+|system|default|any|cpython|pypy|graalpy|pyodide|python3?+"
)


def one_version_paths(settings: Any) -> Iterator[Run]:
    """The folder a one-tool version file (`.nvmrc`) names as a `path:` version, and, in
    .python-version, a path as uv takes it (a python, or the folder of one): relative ones are
    taken from the shell's folder, which only the tool can tell."""
    python = bool(_dict(settings).get("python"))
    for word in _strings(_list(_dict(settings).get("versions"))):
        # uv takes any word that is no version, nor a python's name, as a path where one is
        # there: `toolchain` runs toolchain/bin/python.
        path_word = python and ("/" in word or not PYTHON_REQUEST.fullmatch(word.lower()))
        if word.startswith("path:") or path_word:
            path = os.path.normpath(os.path.expanduser(word.removeprefix("path:")))
            yield Run(None, files=(path if os.path.isabs(path) else f"${{PWD}}/{path}",))


def toolchain_runs(settings: Any) -> Iterator[Run]:
    """A rust-toolchain.toml's `path` toolchain: a folder whose bin/rustc rustup runs."""
    path = _dict(_dict(settings).get("toolchain")).get("path")
    if isinstance(path, str):
        yield Run(None, files=(path,))


def zed_runs(settings: Any) -> Iterator[Run]:
    """The language servers Zed's settings give by a path (`lsp.<name>.binary`)."""
    for server in _dict(_dict(settings).get("lsp")).values():
        binary = _dict(_dict(server).get("binary"))
        yield Run(
            as_command_line(binary.get("path"), binary.get("arguments")), env=binary.get("env")
        )


def helix_runs(settings: Any) -> Iterator[Run]:
    """The language servers and formatters a project's `.helix/languages.toml` names, which
    Helix merges into its own by default (`[language-server.x] command`, a language's
    `formatter`), with their arguments and variables."""
    settings = _dict(settings)
    for server in _dict(settings.get("language-server")).values():
        server = _dict(server)
        yield Run(
            as_command_line(server.get("command"), server.get("args")),
            env=server.get("environment"),
        )
    for language in (
        settings.get("language", []) if isinstance(settings.get("language"), list) else []
    ):
        formatter = _dict(_dict(language).get("formatter"))
        yield Run(as_command_line(formatter.get("command"), formatter.get("args")))


def hg_runs(settings: Any) -> Iterator[Run]:
    """Mercurial's hooks (a command line, or `python:path.py:function`) and extensions (a
    file or folder, `!` for one turned off), and the programs it runs as git runs its pager
    and editor: [ui] editor and ssh, the pager, watchman, merge tools, extdiff's commands and
    `!` aliases."""
    sections = {name: _dict(items) for name, items in _dict(settings).items()}
    ui, tools = sections.get("ui", {}), sections.get("merge-tools", {})
    lines = [ui.get("editor"), ui.get("ssh"), sections.get("pager", {}).get("pager")]
    lines.append(sections.get("fsmonitor", {}).get("watchman_exe"))
    lines += [value for key, value in tools.items() if key.endswith(".executable")]
    lines += [value for key, value in sections.get("extdiff", {}).items() if "." not in key]
    lines += [value for key, value in sections.get("extdiff", {}).items() if key.startswith("cmd.")]
    lines += [v.removeprefix("!") for v in sections.get("alias", {}).values() if v.startswith("!")]
    yield from (Run(line) for line in lines if isinstance(line, str) and line)
    for value in sections.get("hooks", {}).values():
        if value.startswith("python:"):
            module = value.removeprefix("python:").rpartition(":")[0]
            yield Run(None, files=(module,) if "/" in module or module.endswith(".py") else ())
        else:
            yield Run(value)
    for value in sections.get("extensions", {}).values():
        if value and not value.startswith("!"):
            yield Run(None, files=(value,))
    yield Run(None, files=tuple(_dict(settings).get(INCLUDED, {})))  # `%include ../hg.rc`


def hook_runs(settings: Any) -> Iterator[Run]:
    """Each command line of a git hook's shell script: each line, those a `\\` continues
    joined, comments left out. A `make lint` or `npm test` there runs the Makefile's recipe or
    package.json's script, as a task's line does. A hook in another language (its `#!` names
    python, node, ruby, perl, php) is read as code given to that interpreter, from the top of
    the tree and from its own folder (`require("../../scripts/x.js")`); python's, also for the
    command lines it starts (tools/python_starts.py); one that starts what only running it can
    tell, or in a language planloop cannot read, makes what it runs unknown."""
    text, folder = _dict(settings).get("text", ""), _dict(settings).get("folder")
    hook = _dict(settings).get("sourced_by") or _dict(settings).get("path")
    hook = hook or os.path.join(folder or "", "hook")
    helper = bool(_dict(settings).get("helper"))
    top = _dict(settings).get("top") or folder or ""
    interpreter = _dict(settings).get("interpreter") or _hook_interpreter(text)
    # (an interpreter of no language planloop knows, `#!/usr/bin/awk -f`, is not a shell)
    code_flags = INTERPRETERS.get(interpreter, ()) if interpreter else SHELL_FLAGS
    if not code_flags:
        yield Run(None, unknown=f"a hook run by {interpreter}")
        return
    if why := _shebang_why(text):
        yield Run(None, unknown=why)
        return
    if interpreter in OTHER_SHELLS:  # (its quotes and comments are not sh's: no line is read)
        yield Run(None, unknown=f"a hook in {interpreter}, whose lines planloop does not read")
        return
    if code_flags != SHELL_FLAGS:
        # Whole code, not a line: only python's is worked out (tools/python_starts.py), and
        # not through a link, which python and node take their folder from.
        if interpreter not in PYTHONS:
            yield Run(None, unknown=f"a hook in {interpreter}, whose code planloop does not follow")
            return
        if os.path.islink(_dict(settings).get("path") or ""):
            yield Run(None, unknown="a python hook that is a link, run from where it leads")
            return
        started, call = python_starts(text, hook, top, without_secrets())
        if call:
            yield Run(None, unknown=f"its {call}, whose program only running it can tell")
            return
        for started_line in started:  # (read as a hook's line: `os.system("make lint")`)
            for line, why in hook_lines(started_line, hook, top, without_secrets()):
                yield Run(line, read_as_lines=True) if line is not None else Run(None, unknown=why)
        line = f"{interpreter} {code_flags[0]} {shlex.quote(text)}"
        yield from (Run(line, read_as_lines=True), Run(line, cwd=folder, read_as_lines=True))
        return
    if text.count("\n") > MAX_HOOK_LINES:
        yield Run(None, unknown=f"more than {MAX_HOOK_LINES:,} lines of commands")
        return
    for line, why in read_hook_lines(text, hook, top, without_secrets(), helper):
        yield Run(line, read_as_lines=True) if line is not None else Run(None, unknown=why)


def _run_by_shell(settings: Any, project: Path) -> dict[Path, str]:
    """The files a shell hook runs with a shell or sources (`sh tools/check`), from `project`,
    each with the shell's name that reads it, or "source" (hook_lines `shell_scripts`)."""
    settings = _dict(settings)
    interpreter = _hook_interpreter(settings.get("text", ""))
    if interpreter and INTERPRETERS.get(interpreter, SHELL_FLAGS) != SHELL_FLAGS:
        return {}  # (read as code: `hook_runs`)
    hook = settings.get("sourced_by") or settings.get("path", "")
    text, helper = settings.get("text", ""), settings.get("helper", False)
    words = shell_scripts(text, hook, str(project), without_secrets(), helper)
    return {
        Path(os.path.normpath(project / os.path.expanduser(word))): shell for word, shell in words
    }


def _a_hook_helper(path: Path) -> bool:
    """Whether a file a hook runs is a script to read as the hook is: one of a shell's name
    (`.sh`), or one that names its interpreter (`#!`), not a build file a tool reads."""
    if path.suffix in (".sh", ".bash", ".zsh", ".ksh") and os.path.isfile(path):
        return True
    try:  # (without blocking: a FIFO put there has no writer)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, 2) == b"#!"
    except OSError:
        return False
    finally:
        os.close(fd)


def _shebang_why(text: str) -> str | None:
    """Why a hook's `#!` line may run more than its interpreter: one named by a relative path
    (`#!./tools/sh`), a word given to it that is no option (`#!/bin/sh tools/wrapper` runs
    tools/wrapper), or `env` given variables or options (`-S BASH_ENV=x bash`,
    `--rcfile x`)."""
    first = text.partition("\n")[0]
    words = first[2:].split() if first.startswith("#!") else []
    if words and len(first.encode()) > 255:  # (the kernel refuses it; git runs it with sh)
        return "its `#!` line, longer than the kernel reads"
    if not words:
        return None
    if not words[0].startswith("/"):
        return f"its `#!` line, whose interpreter `{_one_line(words[0][:60])}` is a relative path"
    rest = words[1:]
    if program_name(words[0]) == "env":
        rest = rest[1:] if rest[:1] == ["-S"] else rest
        rest = rest[1:]  # (the interpreter env starts, by its name on your PATH)
        if words[1:2] != ["-S"] and len(words) > 2:
            rest = words[2:]  # (without -S the kernel gives env one word)
    for word in rest:
        if "=" in word or word.startswith("--") or not re.fullmatch(r"-[A-Za-z]++", word):
            return f"its `#!` line, which gives its interpreter `{_one_line(word[:60])}`"
        if "k" in word[1:] or "i" in word[1:]:  # (`-k`: words set variables; `-i` reads rc files)
            return f"its `#!` line, which gives its interpreter `{word}`"
    return None


def _hook_interpreter(text: str) -> str:
    """The program a hook's `#!` line names (`#!/usr/bin/env python3 -u`: python), "" for none
    (git runs such a hook with its shell)."""
    first = text.partition("\n")[0]
    words = first[2:].split() if first.startswith("#!") else []
    if words and program_name(words[0]) == "env":  # (`env -S python3 -u`, `env X=1 node`)
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return program_name(words[0]) if words else ""


def aider_runs(settings: Any) -> Iterator[Run]:
    """aider's lint and test commands (`lint-cmd: python: flake8`, a language before them)."""
    for key in ("lint-cmd", "test-cmd"):
        for value in _strings(_dict(settings).get(key)):
            yield Run(re.sub(r"^\w+:\s", "", value))


def editor_paths(settings: Any) -> Iterator[Run]:
    """What an editor's settings run: the files they name under a key that names a program or
    what one loads, watched until made (`"python.defaultInterpreterPath": "./tools/py"`, a
    language server's `serverPath`), a terminal or automation profile's program with its `args` and
    `env`, the variables its terminals start with (`PROMPT_COMMAND`, `NODE_OPTIONS`) and the
    dotenv files an extension loads (`python.envFile`), command lines
    (`jest.jestCommandLine`) and the MCP servers of its `mcp` setting. A schema, a
    dictionary, or a linter's or formatter's config is data, or the project's own code."""
    settings = _dict(settings)
    options = list(_option_values(settings))
    keyed = [(key, text) for key, text in _keyed_strings(settings) if not text.startswith("-")]
    keyed += options
    named = [
        text
        for key, text in keyed
        if _names_a_program(key) and "*" not in text and _a_file_path(text)
    ]
    yield Run(None, files=tuple(named), existing=True)
    globs = [text for key, text in options if _names_a_program(key) and glob.has_magic(text)]
    yield Run(None, patterns=tuple(text for text in globs if _a_file_path(text)))
    toolchains = [text for key, text in keyed if _names_a_toolchain(key) and _a_file_path(text)]
    yield Run(None, files=tuple(toolchains))  # a folder; one not made yet makes commands ask
    # (before installing, most projects have none yet: that one is told when made, not asked)
    loads = [text for key, text in keyed if key.lower() in EDITOR_CODE_FOLDER_KEYS]
    yield Run(None, loads=tuple(text for text in loads if "*" not in text))
    keys = _keyed_strings(settings)
    env_files = [text for key, text in keys if key.lower().endswith(EDITOR_ENV_FILE_ENDING)]
    yield Run(None, loads=tuple(env_files), loads_why=EDITOR_ENV_FILE_REASON)
    if PYTHON_ENV_FILE_KEY not in settings:
        env_files.append(PYTHON_ENV_FILE_DEFAULT)
    yield Run(None, env_files=tuple(env_files), person_runs=True)
    for key, text in _keyed_strings(settings):  # (nested too: `jest.virtualFolders`)
        if key.rsplit(".", 1)[-1].lower().endswith("commandline"):
            yield Run(text)
    for key, value in settings.items():
        last = str(key).rsplit(".", 1)[-1].lower()
        if str(key).startswith("terminal.integrated.profiles."):
            for profile in _dict(value).values():
                yield from _profile_runs(profile)
        elif str(key).startswith("terminal.integrated.automationProfile."):
            yield from _profile_runs(value)  # every task runs through it, folderOpen ones too
        elif ("env" in last or "env" in str(key).lower().split(".")[-2:-1]) and isinstance(
            value, dict
        ):
            # the variables of a tool's processes: the terminals', rust-analyzer's extraEnv
            yield Run(None, env=value)
            if isinstance(value.get("PROMPT_COMMAND"), str):
                yield Run(value["PROMPT_COMMAND"])  # bash runs it at every prompt
        elif last.endswith("argv") and isinstance(value, list):  # node's, for a language server
            yield Run(None, env={"NODE_OPTIONS": " ".join(_strings(value))})
        elif key == "mcp":
            yield from agent_commands(value)


def _option_values(settings: dict) -> Iterator[tuple[str, str]]:
    """Each path an option among a language server's arguments names after its `=`, with its
    key: each of a comma-separated list, which clangd's `--query-driver=/usr/bin/gcc,./tc/*gcc`
    takes as globs."""
    for key, text in _keyed_strings(settings):
        if text.startswith("-"):
            for value in text.partition("=")[2].split(","):
                yield key, value


def _profile_runs(profile: Any) -> Iterator[Run]:
    """What a VS Code terminal profile (or the automation profile tasks run through) starts:
    its `path` with its `args` and `env`. The path is one program however it is spaced
    (`tools dir/sh`, which a command line would split), so it is held as a file, and its args
    are read after its name (`bash rcx` runs rcx); a list of paths is tried in turn, so each
    may be the one that runs."""
    profile = _dict(profile)
    for path in _strings(profile.get("path")):
        if "/" in path:  # (a bare name is looked up on PATH)
            yield Run(None, files=(path,))
        yield Run(as_command_line([os.path.basename(path)], profile.get("args")))
    yield Run(None, env=profile.get("env"))


def idea_startup_runs(settings: Any) -> Iterator[Run]:
    """What the run configurations a JetBrains startup task names run (`read_idea_startup`):
    a Shell Script's file (or its text, as a command line) and its interpreter with its
    options, a Python script (or the module of `-m`) and its interpreter with its options,
    an npm script with its package.json; the file of one defined in .run/, which lies
    outside .idea/; and a name no file defines (a command could define it in .run/) as what
    cannot be told."""
    for configuration, file in _dict(settings).get("found", []):
        if file.name.endswith(".run.xml"):
            yield Run(None, files=(str(file),))
        yield from _configuration_runs(configuration)
    for name in _dict(settings).get("missing", []):
        yield Run(
            None, unknown=f"the run configuration {name!r} of a startup task, defined nowhere"
        )


def _configuration_runs(configuration: ElementTree.Element) -> Iterator[Run]:
    """What one IntelliJ run configuration runs, by its type."""
    option = {o.get("name"): o.get("value") for o in configuration.iter("option")}
    env = {e.get("name"): e.get("value") for e in configuration.iter("env") if e.get("name")}
    kind = configuration.get("type")
    if kind == "ShConfigurationType":
        cwd = option.get("SCRIPT_WORKING_DIRECTORY")
        if option.get("EXECUTE_SCRIPT_FILE") == "false":
            yield Run(option.get("SCRIPT_TEXT") or None, cwd=cwd, env=env)
        else:
            yield Run(None, files=tuple(_strings([option.get("SCRIPT_PATH")])))
        interpreter = option.get("INTERPRETER_PATH")
        if isinstance(interpreter, str) and "/" in interpreter:
            yield Run(None, files=(interpreter,))
        yield from _interpreter_options(option, interpreter or "bash", cwd, env)
    elif kind == "PythonConfigurationType":
        cwd = option.get("WORKING_DIRECTORY")
        script = option.get("SCRIPT_NAME")
        if isinstance(script, str) and option.get("MODULE_MODE") == "true":
            yield Run(f"python -m {shlex.quote(script)}", cwd=cwd, env=env)
        elif isinstance(script, str):
            yield Run(None, files=(script,), env=env)
        sdk = option.get("SDK_HOME")
        if option.get("IS_MODULE_SDK") != "true" and sdk and _local_path(sdk):
            yield Run(None, files=(sdk,))  # the interpreter the IDE runs, not the module's
        yield from _interpreter_options(option, "python", cwd, env)
    elif kind == "js.build_tools.npm":
        package = configuration.find("package-json")
        where = os.path.dirname(package.get("value", "")) if package is not None else None
        command = configuration.find("command")
        words = ["npm", command.get("value", "run") if command is not None else "run"]
        words += [s.get("value", "") for s in configuration.iter("script")]
        yield Run(shlex.join(words), cwd=where or None, env=env)
    else:  # Gradle, a JAR, an application's main class...: only the IDE can tell
        name = configuration.get("name")
        yield Run(None, unknown=f"the {kind} run configuration {name!r} of a startup task")


def _interpreter_options(option: dict, interpreter: str, cwd: Any, env: dict) -> Iterator[Run]:
    """The INTERPRETER_OPTIONS of a run configuration, which the IDE puts between the
    interpreter and the script: `bash tools/pre.sh scripts/s.sh` runs tools/pre.sh."""
    options = option.get("INTERPRETER_OPTIONS")
    if isinstance(options, str) and options.strip():
        yield Run(f"{shlex.quote(os.path.basename(interpreter))} {options}", cwd=cwd, env=env)


def _local_path(text: str) -> bool:
    """Whether an SDK's home is a path here, not a remote one (`ssh://`, `docker://`) or
    Windows' (`C:\\Python\\python.exe`), which no file of the workspace can be."""
    return "://" not in text and not re.match(r"[A-Za-z]:[\\/]", text)


def code_workspace_runs(settings: Any) -> Iterator[Run]:
    """What a VS Code workspace file runs: its `tasks` (as tasks.json's) and `settings`."""
    settings = _dict(settings)
    yield from folder_open_tasks(settings.get("tasks"))
    yield from editor_paths(settings.get("settings"))


def _a_file_path(text: str) -> bool:
    """Whether a settings value reads as a file's path: written as one (`./tools/py`), or a
    relative path of a word without blanks (`tools/py`, which VS Code takes from the folder)."""
    return text.startswith(PATH_STARTS) or ("/" in text and not any(c.isspace() for c in text))


def _keyed_strings(item: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Each string in `item` with the keys it stands under, joined by dots (in a list: the
    list's key): `cSpell.customDictionaries.words.path`."""
    if isinstance(item, str):
        yield key, item
    elif isinstance(item, dict):
        for name, value in item.items():
            yield from _keyed_strings(value, f"{key}.{name}" if key else str(name))
    elif isinstance(item, list):
        for value in item:
            yield from _keyed_strings(value, key)


def _names_a_toolchain(key: str) -> bool:
    """Whether a settings key names a toolchain's folder (`go.goroot`, `dart.sdkPath`)."""
    last = key.rsplit(".", 1)[-1].lower()
    return last.endswith(EDITOR_TOOLCHAIN_ENDINGS) or last in EDITOR_TOOLCHAIN_KEYS


def _names_a_program(key: str) -> bool:
    """Whether a settings key names a program, or a folder or file one loads its code from:
    by how its last part ends, or a table of programs (`go.alternateTools`); not where a word
    of its parts but the first (the extension's name: `prolog`) names data."""
    parts = key.split(".")
    words = {w.lower() for part in parts[1:] for w in re.findall(r"[a-z]+|[A-Z][a-z]*", part)}
    last = parts[-1].lower()
    if words & EDITOR_DATA_WORDS and not last.endswith(EDITOR_COMMAND_ENDINGS):
        return False
    in_a_table = any(part.lower() in EDITOR_PROGRAM_TABLES for part in parts[:-1])
    return last.endswith(EDITOR_PROGRAM_ENDINGS) or last in EDITOR_PROGRAM_KEYS or in_a_table


def _a_path(text: str) -> bool:
    return text.startswith((*PATH_STARTS, "file:"))


def _list(item: Any) -> list:
    return item if isinstance(item, list) else [item]


def _strings(item: Any) -> list[str]:
    """Every string in `item`, however deep in lists and tables (mise's hook forms: a string, a
    list, `{script = ..., shell = ...}`)."""
    if isinstance(item, str):
        return [item]
    if isinstance(item, dict):
        return [text for key, value in item.items() if key != "shell" for text in _strings(value)]
    if isinstance(item, list):
        return [text for value in item for text in _strings(value)]
    return []


# What `tool_scripts` found for (root, settings) within a `read_once` of this thread (`found`
# is None outside any): the file tools check in a thread of their own while a command is made
# ready on the event loop's. Also the dotenv files the settings name (`envFile`), each read
# once, and how many lines of them were parsed (`dotenv_lines`): python-dotenv takes a few
# microseconds a line, on the loop, and settings may name one big file a hundred times. The
# bytes of YAML and TOML read (`slow_bytes`, see SLOW_SETTINGS_PER_LOOK), and the JetBrains
# files' components (`idea`, with `idea_bytes` and `idea_tags`). And what tells
# `go_on` that a signal came since the look began (`signals`).
_once = threading.local()


class SettingsReadStopped(ToolError):
    """Ctrl-C, SIGTERM or SIGHUP came while a look read the host tools' settings."""


def go_on() -> None:
    """Between two files (or two pieces of one) of a look: SettingsReadStopped if a Ctrl-C,
    SIGTERM or SIGHUP came since the look began. The event loop, which serves them, waits for
    the look, and a repository can ship settings by the hundred. Each piece is bounded (a
    file's size, XML_PIECE, MAX_DOTENV_LINES), so the stop comes within a fraction of a
    second. A look that began once planloop was ending has ENDING_LOOK_SECONDS."""
    if getattr(_once, "found", None) is None:
        return  # (outside a look: nothing to stop)
    if why := _once.signals.stop_why():
        raise SettingsReadStopped(f"{why}: planloop stopped reading the host tools' settings")


@contextlib.contextmanager
def read_once() -> Iterator[None]:
    """Within it, each workspace's host tool settings are read once: making one command ready
    (its binds, whether it must ask, what runs only once made) or taking stock after it asks
    the same of them several times, and a big tasks.json costs seconds a reading. All of them
    then answer from the same moment's files, as one look would."""
    outermost = getattr(_once, "found", None) is None
    if outermost:
        _once.found, _once.dotenv, _once.dotenv_lines, _once.slow_bytes = {}, {}, 0, 0
        _once.hook_bytes = _once.script_bytes = _once.idea_bytes = _once.idea_tags = 0
        _once.idea = {}
        _once.signals = SignalCheck()
    try:
        yield
    finally:
        if outermost:
            _once.found = _once.dotenv = _once.idea = None


def tool_scripts(root: Path, tool_configs: Iterable[Path]) -> ToolScripts:
    """What the host tools' settings among `tool_configs` (a workspace scan's) run, each path
    inside the workspace `root`, as named and as resolved (read once within `read_once`)."""
    key = (root, tuple(tool_configs))
    with read_once():
        if key not in _once.found:
            _once.found[key] = _tool_scripts(*key)
        return _once.found[key]


def _tool_scripts(root: Path, tool_configs: Iterable[Path]) -> ToolScripts:
    named: list[tuple[Path, str]] = []
    untold: list[tuple[UntoldProgram, str]] = []
    unread: list[Path] = []
    unknown: list[tuple[str, str]] = []
    by_name = ByName()
    tool_configs = list(tool_configs)
    read = list(_settings_read(root, tool_configs, unread))
    hooks_read = {path for path, _, kind, _ in read if kind == GIT_HOOK}
    if not any(kind == EDITOR and project == root for _, _, kind, project in read):
        # No settings of VS Code's here: its Python extension loads the .env all the same.
        read.append((Path(PYTHON_ENV_FILE_SHOWN), {}, EDITOR, root))
    for path, settings, kind, project in read:
        go_on()
        shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        why = REASONS[kind].format(settings=shown)
        if kind == GIT_HOOK:  # (run from the top of its working tree: `hook_lines`)
            settings = {**settings, "top": str(project)}
        try:
            found, told, cannot = run_by(settings, kind, project, by_name)
        except RecursionError:  # nested deeper than python walks
            unread.append(path)
            continue
        if kind == GIT_HOOK:
            # What a hook names that is not there yet, or is a link (`node_modules/.bin/x`),
            # is held once made, and told. (A path only its shell can tell makes commands ask:
            # tools/hook_lines.py puts in what the hook itself makes plain.)
            later = [each for each in found if os.path.islink(each) or not os.path.lexists(each)]
            # Each is told when a command makes it, or makes it anew: one missing at this look
            # is held from the next, but its first content is what the commit runs.
            by_name.when_there += [(each, why) for each in found]
            found = [each for each in found if each not in later]
            # A script of the workspace the hook runs (`./scripts/hooks/pre-commit.sh`,
            # `. .git/hooks/lint.sh`) is read as the hook is: its `make lint` runs at the
            # commit as surely.
            run_by_shell = _run_by_shell(settings, project)
            helpers = [
                each
                for each in found
                if each.is_relative_to(root)
                and "node_modules" not in each.relative_to(root).parts  # (a package's code)
                and each not in hooks_read
                and (each in run_by_shell or _a_hook_helper(each) or each.suffix in CODE_SUFFIXES)
            ]
            room = max(0, MAX_HOOK_HELPERS - len(hooks_read))
            if len(helpers) > room:
                unknown.append((f"more than {MAX_HOOK_HELPERS} hooks and scripts they run", shown))
            # A helper is read with its caller's `$0` where it is sourced; a variable it does
            # not set may be its caller's.
            caller = settings.get("sourced_by") or settings.get("path", "")
            for helper in helpers[:room]:
                hooks_read.add(helper)
                try:
                    helper_settings = {**read_settings(helper, GIT_HOOK), "helper": True}
                except (OSError, ValueError):
                    unread.append(helper)
                    continue
                shell = run_by_shell.get(helper)
                if shell == "source":
                    helper_settings["sourced_by"] = caller
                if shell:
                    # (`fish tools/check`: the shell the line names reads it, whatever its `#!`
                    # names; fish's, zsh's lines are not read, and what it runs is unknown)
                    helper_settings["interpreter"] = "sh" if shell == "source" else shell
                elif not helper_settings["text"].startswith("#!"):
                    # (`python3 tools/check.py`: its interpreter is the line's, by its name)
                    helper_settings["interpreter"] = CODE_SUFFIXES.get(helper.suffix, "")
                read.append((helper, helper_settings, GIT_HOOK, project))
        named += [(each, why) for each in found]
        if any(os.path.realpath(each) == str(root) for each in found):
            # (`PATH=.:$PATH`, `python3 .`: any file of the workspace may be what runs)
            unknown.append(("the workspace itself as a program or a PATH folder", shown))
        untold += [(program, why) for program in told]
        unknown += [(what, shown) for what in cannot]
    inside: list[tuple[Path, str]] = []
    for path, why in named:
        for version in dict.fromkeys((path, Path(os.path.realpath(path)))):
            if version != root and version.is_relative_to(root):
                inside.append((version, why))
    when_there = [
        (p, why) for p, why in dict.fromkeys(by_name.when_there) if p.is_relative_to(root)
    ]
    untold_now = list(dict.fromkeys(untold))
    per_file = list(dict.fromkeys(by_name.per_file))
    found = list(dict.fromkeys(inside))
    return ToolScripts(found, untold_now, unread, unknown, when_there, per_file)


def _settings_read(
    root: Path, tool_configs: list[Path], unread: list[Path]
) -> Iterator[tuple[Path, Any, str, Path]]:
    """(file, its settings, their kind, the folder the tool opened) for each settings file of
    `tool_configs`; one that cannot be read goes to `unread`."""
    run_files = [c for c in tool_configs if c.name.endswith(RUN_CONFIGURATION_SUFFIX)]
    for config in tool_configs:
        for path, kind in settings_files(config):
            go_on()
            try:
                settings = read_settings(path, kind, run_files)
            except (OSError, ValueError, RecursionError):
                unread.append(path)  # (`%include` of hg, nesting deeper than python goes)
                continue
            if kind == GIT_HOOK:
                # git runs a hook from the top of the working tree that commits: the one that
                # holds the hooks folder, and the workspace's own (a linked worktree's hooks
                # are its main checkout's; a submodule's lie in its superproject's .git; a
                # global core.hooksPath lies outside).
                trees = [project_of(config, kind), _working_tree(root)]
                trees += sorted(HOOK_TREES.get(path, ()))
                trees = list(dict.fromkeys(trees))
                if len(trees) > MAX_HOOK_TREES:
                    unread.append(path)  # (read from each: past this many, commands ask)
                    continue
                for tree in trees:
                    yield path, settings, kind, tree
                continue
            yield path, settings, kind, path.parent if _beside(path) else project_of(config, kind)


def _working_tree(root: Path) -> Path:
    """The top of the working tree the workspace `root` lies in (itself when none)."""
    trees = (folder for folder in (root, *root.parents) if os.path.lexists(folder / GIT_DIR_NAME))
    return next(trees, root)


def run_by(
    settings: Any, kind: str, project: Path, by_name: ByName | None = None
) -> tuple[list[Path], list[UntoldProgram], list[str]]:
    """The paths that parsed settings of this kind run or load, from the folder `project`; the
    words whose path cannot be told; and what they run that cannot be told at all. What they
    run by a name goes to `by_name` (`python -m x`), and what the package.json of each package
    manager they call names is among the paths."""
    by_name = ByName() if by_name is None else by_name
    untold: list[UntoldProgram] = []
    found: list[Path] = []
    unknown: list[str] = []
    readers = {TASKS: folder_open_tasks, DEVCONTAINER: initialize_commands, MISE: mise_runs}
    readers |= {CARGO: cargo_runs, TOOLCHAIN: toolchain_runs, ZED: zed_runs, HG: hg_runs}
    readers |= {HELIX: helix_runs, GIT_HOOK: hook_runs}
    readers |= {AIDER: aider_runs, EDITOR: editor_paths, VERSIONS: version_paths}
    readers |= {ONE_VERSION: one_version_paths}
    readers |= {CODE_WORKSPACE: code_workspace_runs, IDEA: idea_startup_runs}
    for run in readers.get(kind, agent_commands)(settings):
        go_on()
        if run.unknown:
            unknown.append(run.unknown)
            continue
        if not _within_commands_per_look([run.line]):
            unknown.append(f"command lines past the {COMMANDS_PER_LOOK // 1024} KiB a look reads")
            break
        folder = _folder(run.cwd, project)
        if folder is None:
            # Run from a folder only the tool knows (`${fileDirname}`): each file it names
            # may be any file of that name.
            somewhere = ByName()
            paths = _run_paths(run, project, project, [], somewhere, unknown)
            paths += [path for path, _ in somewhere.when_there]
            paths += [project / PACKAGE_JSON for _ in somewhere.calls]
            untold += [UntoldProgram(project, f"${{cwd}}/{path.name}") for path in paths]
        else:
            found += _run_paths(run, folder, project, untold, by_name, unknown)
    # What the package managers and compose called run, and what their scripts call in turn.
    packages = by_name.packages_read
    while by_name.calls:
        go_on()
        base, program, words = by_name.calls.pop()
        if program in PACKAGE_RUNNERS and base is not None:
            # `npx x` starts node as npm's settings there say (node-options, script-shell).
            settings = [(base / name, NPM_SETTINGS_REASON) for name in PACKAGE_SETTINGS]
            by_name.when_there += settings
            continue
        if program in BUILD_TOOLS:  # `make lint`: the Makefile, as npm's package.json
            if base is None:
                untold.append(UntoldProgram(project, f"${{PWD}}/{program}'s build file"))
                continue
            if program in PER_FILE_CONFIGS:  # (each file's own config, anywhere below)
                walks = walks_into_packages(program, words)  # (into node_modules too)
                by_name.per_file.append(
                    (project, f"{program} {INTO_PACKAGES[program][0]}" if walks else program)
                )
            try:
                held, told = build_files(program, words, base, project)
            except CannotTell as why:
                unknown.append(str(why))
                continue
            found += held
            by_name.when_there += [(path, BUILD_FILE_REASON) for path in told]
            for config in held if program in PACKAGE_LOADERS else []:
                # (`"extends": "@commitlint/config-conventional"`: loaded from node_modules)
                try:
                    loaded = _named_packages(config, program, base, project)
                except CannotTell as why:
                    unknown.append(str(why))
                    continue
                by_name.when_there += [(path, NODE_PACKAGE_REASON) for path in loaded]
            if program == "prettier":  # (`--plugin prettier-plugin-x`: a package, by its name)
                plugins = NodeNames()
                for name in filter(None, map(package_name, option_values(words, "--plugin"))):
                    package_paths(name, base, project, found=plugins)
                by_name.when_there += [(path, NODE_PACKAGE_REASON) for path in plugins.paths]
            for config in held if program in LINE_RUNNERS else []:
                # (what lint-staged runs for staged files, lefthook's `run:`: each is a command
                # line of its own)
                try:
                    lines = staged_commands(config, lefthook=program == "lefthook")
                except CannotTell as why:
                    unknown.append(str(why))
                    continue
                for line in lines:
                    go_on()  # (a config may list many long lines)
                    found += program_paths(line, base, untold, False, by_name)
                    environ = without_secrets()
                    for each, why in hook_lines(line, "sh", str(base), environ, programs_only=True):
                        unknown += [f"{_shown(project, config)}: {why}"] if each is None else []
            continue
        if program in COMPOSE_PROGRAMS:
            found += _compose_files(base, program, words, project, untold, by_name, unknown)
            continue
        try:
            folders = _package_folders(base, program, words, project, untold)
        except CannotTell as why:
            unknown.append(str(why))
            continue
        found += _call_programs(base, words, untold, unknown) if base is not None else []
        if base is not None:
            _bins_called(base, program, words, project, by_name)
        for folder in (folder for folder in folders if folder not in packages):
            go_on()
            packages.add(folder)
            # (A member a command adds later, `packages/new` under `packages/*`, is told: its
            # package.json is among these at the next look, missing from the last.)
            by_name.when_there.append((folder / PACKAGE_JSON, WORKSPACE_MEMBER_REASON))
            if os.path.isfile(folder):
                found.append(folder)  # a packed package (`file:./vendor/x.tgz`)
                continue
            if folder.name.endswith(PACKED):  # not built yet: held once it is
                by_name.when_there.append((folder, LOCAL_PACKAGE_REASON))
                continue
            if (scripts := npm_scripts(folder)) is None:
                unknown.append(f"the scripts of {folder / PACKAGE_JSON}, too big or not JSON")
                continue
            if not _within_commands_per_look(scripts.values()):
                unknown.append(
                    f"the scripts of {folder / PACKAGE_JSON}, past the "
                    f"{COMMANDS_PER_LOOK // 1024} KiB of command lines a look reads"
                )
                continue
            found += _package_runs(folder, project, untold, by_name, unknown)
    unknown += [f"the options of {file}" for file in by_name.unread]
    by_name.unread.clear()  # (told once, for these settings)
    return found, untold, unknown


def _run_paths(
    run: Run,
    folder: Path,
    project: Path,
    untold: list[UntoldProgram],
    by_name: ByName,
    unknown: list[str],
) -> list[Path]:
    """The paths one Run names, from `folder`; a dotenv file it loads that cannot be read
    goes to `unknown`."""
    found: list[Path] = []
    from_files = env_file_variables(run.env_files, folder, project, unknown)
    variables = {**from_files, **_dict(run.env)}
    environment = {str(name): put_in(str(value), project) for name, value in variables.items()}
    if run.line is not None:
        line = put_in(run.line, project)
        found += program_paths(line, folder, untold, False, by_name, environment)
        if not run.read_as_lines:
            # A shell runs the line: what it makes plain is read again with its values in
            # (`M=make; $M lint`, `cd web` then `make`), and what only the shell can tell
            # (`$(cat ci/tool) lint`) makes commands ask, as in a hook.
            environ = {**without_secrets(), **environment}
            lines = hook_lines(line, "sh", str(folder), environ, programs_only=True)
            for each, why in lines:
                if each is None:
                    unknown.append(why)
                elif each != line:
                    found += program_paths(each, folder, untold, False, by_name, environment)
    for name, value in environment.items():
        loaded_by_name(name, value, folder, by_name)  # `NODE_OPTIONS=--require dotenv/config`
        for path in code_paths_of(name, value, folder, by_name.unread):
            # (the project folder itself on PYTHONPATH is where its own code is imported from)
            named = [p for p in _literal(path, folder, untold) if p != project]
            if run.person_runs and name == "PYTHONPATH":
                by_name.when_there += [(p, PYTHON_PATH_REASON) for p in start_files_in(named)]
            else:
                found += named
        if runs_something(name):  # `"GIT_CONFIG_GLOBAL": "tools/gitconfig"`
            found += variable_paths(name, value, folder, untold, by_name)
    # Whatever the program is, a make it starts reads them (a terminal's, where `make` is typed);
    # the reason is the one a make on the line gives, so a file both name is told once.
    try:
        held, told = make_variable_files(environment, folder)
    except CannotTell as why:
        unknown.append(str(why))
        held, told = [], []
    by_name.when_there += [(path, BUILD_FILE_REASON) for path in told]
    found += held
    for path in run.files:
        named = _literal(put_in(path, project), folder, untold)
        found += _existing_programs(named, by_name) if run.existing else named
    for path in run.loads:
        for each in _literal(put_in(path, project), folder, untold):
            if each == project:
                continue  # the project itself is what the person edits
            if os.path.lexists(each):
                found.append(each)
            by_name.when_there.append((each, run.loads_why))  # told when a command makes it
    for pattern in run.patterns:
        for each in _literal(put_in(pattern, project), folder, untold):
            _glob_matches(str(each), project, untold, by_name)
    return found


def _glob_matches(
    pattern: str, project: Path, untold: list[UntoldProgram], by_name: ByName
) -> None:
    """Each file a program glob matches, as clangd matches it (`*` across `/` too), under the
    folder its fixed part names in the project, to `by_name.when_there`: held while there, and
    one a command makes is found by the next look and told. A glob fixed outside the project
    (`/usr/bin/*gcc`) is the person's; one whose folder holds more than MAX_FOLDER_ENTRIES
    entries cannot be looked through at each command, and goes to `untold`: commands ask."""
    magic = re.search(r"[*?[]", pattern)
    base = Path(os.path.dirname(pattern[: magic.start()] if magic else pattern))
    if not base.is_relative_to(project):
        return
    seen = 0
    for top, folders, files in os.walk(base):
        seen += len(folders) + len(files)
        if seen > MAX_FOLDER_ENTRIES:
            untold.append(UntoldProgram(project, pattern))
            return
        matches = [Path(top, name) for name in files if fnmatchcase(f"{top}/{name}", pattern)]
        by_name.when_there += [(path, EDITOR_PROGRAM_REASON) for path in matches]


def _existing_programs(named: list[Path], by_name: ByName) -> list[Path]:
    """Of the programs an editor setting names (`Run.existing`), the files there; each but a
    folder (a value naming one is data) goes to `by_name.when_there` too, as the editor runs
    one a command makes, which is then told."""
    by_name.when_there += [(p, EDITOR_PROGRAM_REASON) for p in named if not os.path.isdir(p)]
    return [each for each in named if os.path.isfile(each)]


def env_file_variables(
    paths: Iterable[str], folder: Path, project: Path, unknown: list[str]
) -> dict[str, str]:
    """The variables of the dotenv files `paths` (as settings name them, from `folder`), read
    from each file's text as data: planloop's own environment never takes them. One past
    what a look parses goes to `unknown`: what its variables load cannot be told."""
    variables: dict[str, str] = {}
    for path in paths:
        for each in _literal(put_in(path, project), folder, []):  # (untold: as a `loads`)
            read = dotenv_file(each)
            if read is None:
                unknown.append(f"{_shown(project, each)}, {TOO_MANY_DOTENV_LINES}")
            variables |= read or {}
    return variables


TOO_MANY_DOTENV_LINES = f"past the {MAX_DOTENV_LINES:,} lines of dotenv files a look reads"


def dotenv_file(path: Path) -> dict[str, str] | None:
    """The variables a dotenv file sets, as python-dotenv reads it with your environment; none
    if it cannot be read. One whose `${...}` would take seconds to find, or build more than a
    few MiB (each line doubling the one before), is read as written, not expanded: the paths
    it names plainly still count. Each file is read once a look (`read_once`), and None once
    the files read in it add up to more than MAX_DOTENV_LINES lines."""
    if getattr(_once, "dotenv", None) is None:
        with read_once():
            return dotenv_file(path)
    if path not in _once.dotenv:
        go_on()
        _once.dotenv[path] = _dotenv_variables(path)
    return _once.dotenv[path]


def _dotenv_variables(path: Path) -> dict[str, str] | None:
    if _once.dotenv_lines > MAX_DOTENV_LINES:
        return None  # (not even read: a thousand files of 1 MiB take a while to)
    with contextlib.suppress(OSError, ValueError):
        text = read_small_file(path)
        _once.dotenv_lines += dotenv_lines(text)
        if _once.dotenv_lines > MAX_DOTENV_LINES:
            return None
        values = dotenv_bindings(text, without_secrets())
        if values is None:
            values = dotenv_values(text)
        return {name: value for name, value in values.items() if value is not None}
    return {}


def _templates_marked(text: str) -> str:
    """`text` with each mise template as `${mise}`: an expansion only mise makes."""
    return replaced(text, delimited_in_lines(text, *TEMPLATES), "${mise}")


def _literal(text: str, folder: Path, untold: list[UntoldProgram]) -> list[Path]:
    """The file a settings value names by a path, from `folder`; one made by a template or a
    variable only the tool knows goes to `untold`."""
    text = os.path.expanduser(text)
    if any(delimited_in_lines(text, *TEMPLATES)) or EXPANSION.search(text):
        untold.append(UntoldProgram(folder, _templates_marked(text)))
        return []
    return [Path(os.path.normpath(folder / text))]


def _package_folders(
    base: Path | None,
    program: str,
    words: tuple[str, ...],
    project: Path,
    untold: list[UntoldProgram],
) -> list[Path]:
    """The folders whose package.json a package manager called from `base` with `words` runs:
    its own (or the one `--prefix`, `--cwd`, `-C` name), and, unless it runs one script of its
    own alone (`npm run watch`, `yarn test`, `pnpm dev`), its workspace packages and the local
    packages it depends on (`"x": "file:./libs/x"`: an install runs their scripts too)."""
    if base is None:
        untold.append(UntoldProgram(project, f"${{PWD}}/{PACKAGE_JSON}"))  # `cd "$d" && npm i`
        return []
    words = words[: words.index("--")] if "--" in words else words  # the rest: the script's
    folder = base
    for value in _folders_given(program, words):
        if EXPANSION.search(value):
            untold.append(UntoldProgram(project, f"{value}/{PACKAGE_JSON}"))
            return []
        folder = Path(os.path.normpath(folder / os.path.expanduser(value)))
    if program == "npm":  # (`npm --browser run install` installs: `run` is --browser's)
        plain = [word.value or "" for word in npm_words(words, 0) if not word.option]
    else:
        plain = [word for word in words if not word.startswith("-")]
    script = plain[1:2] if plain[:1] == ["run"] else plain[:1]
    if script and ("/" in script[0] or is_script_name(script[0])):
        return []  # a file it runs (`bun run srv.ts`), read as the line's own script
    selects = any(
        word.partition("=")[0] in WORKSPACE_OPTIONS or _npm_reads_as(program, word, NPM_SELECTS)
        for word in words
    )
    if plain[:1] == ["workspace"]:  # `yarn workspace web build`: one script of web's
        return [folder, *workspace_packages(folder)]
    own = plain[:1] and (plain[0] in RUN_WORDS or _own_script(program, plain[0], folder))
    if own and not selects:
        return [folder]
    return local_dependencies([folder, *workspace_packages(folder)], untold)


def _folders_given(program: str, words: tuple[str, ...]) -> list[str]:
    """The folders a package manager's `words` move it to, in their order (`--prefix web`,
    `-C web`, `--cwd=web`); npm's as npm reads its options: `npm --prefi web` (the one option a
    word begins), `npm --browser x -C web`, `npm --yes=--prefix web`."""
    if program == "npm":
        given = npm_words(words, 0)
        return [word.value for word in given if word.option == "prefix" and word.value is not None]
    folders = []
    for index, word in enumerate(words):
        option, joined, value = word.partition("=")
        if option in FOLDER_OPTIONS:
            folders.append(value if joined else "".join(words[index + 1 : index + 2]))
    return folders


def _npm_reads_as(program: str, word: str, options: tuple[str, ...]) -> bool:
    """Whether npm, `program`, reads `word` as one of `options` (named without dashes)."""
    return program == "npm" and npm_option(word) in options


def _own_script(program: str, word: str, folder: Path) -> bool:
    """Whether `yarn WORD` (pnpm's, bun's) runs the script WORD of the package.json in `folder`
    alone, as those managers do for a name that is no subcommand of theirs."""
    if program not in ("yarn", "pnpm", "bun") or word in INSTALL_WORDS or word in BUILT_INS:
        return False  # (a command of its own comes first: `pnpm dedupe` installs)
    return word in (npm_scripts(folder) or {})


def local_dependencies(folders: list[Path], untold: list[UntoldProgram]) -> list[Path]:
    """`folders`, and the local packages their package.json files depend on, in turn: a folder
    (`file:./libs/x`, `link:`, `portal:`, a plain relative path) or a packed one (`.tgz`) whose
    install scripts an install runs, every time for a linked folder."""
    found, waiting = list(folders), list(folders)
    while waiting:
        if len(found) > MAX_WORKSPACE_MATCHES:
            raise CannotTell(f"more than {MAX_WORKSPACE_MATCHES:,} local packages")
        folder = waiting.pop()
        if not os.path.isdir(folder):
            continue  # a packed package: held as the file it is
        with contextlib.suppress(OSError, ValueError, RecursionError):
            package = _dict(read_settings(folder / PACKAGE_JSON))
            specs = [s for field in DEPENDENCY_FIELDS for s in _strings(package.get(field))]
            specs += _strings(_dict(package.get("pnpm")).get("overrides"))  # (pnpm's own)
            for spec in specs:
                spec = re.sub(r"^npm:(@[^/@]+/)?[^@]+@", "", spec)  # an alias: `npm:v@file:./v`
                # (a repository on this machine: npm clones it and runs its `prepare`)
                spec = re.sub(r"^git\+file://(localhost)?", "", spec).split("#")[0]
                path = re.sub(r"^(file|link|portal):", "", spec)
                if path == spec and not spec.startswith((".", "/", "~/")):
                    continue  # a version or a registry's name (npm: a path starts so)
                for dependency in _literal(path, folder, untold):
                    if dependency not in found:
                        found.append(dependency)
                        waiting.append(dependency)
    return found


def _call_programs(
    base: Path, words: tuple[str, ...], untold: list[UntoldProgram], unknown: list[str]
) -> list[Path]:
    """What a package manager's options on the line run for every script: npm's
    `--script-shell`, what `--node-options` loads, and what an npmrc it is given runs; one
    planloop cannot read goes to `unknown` (npm reads it whole: past the limit, any shell)."""
    found: list[Path] = []
    for index, word in enumerate(words[: words.index("--")] if "--" in words else words):
        option, joined, value = word.partition("=")
        value = value if joined else (words[index + 1] if index + 1 < len(words) else "")
        if option == "--script-shell" and "/" in value:
            found += _literal(value, base, untold)
        elif option in ("--userconfig", "--globalconfig"):  # an npmrc, and what it runs
            for rc in _literal(value, base, untold):
                if why := unread_reason(rc):
                    unknown.append(f"the npmrc {value}, which {why}")
                found += [
                    rc,
                    *(p for line in npmrc_programs(rc) for p in _literal(line, base, untold)),
                ]
        elif option == "--node-options":
            found += [base / path for path in code_paths_of("NODE_OPTIONS", value)]
    return found


def _compose_files(
    base: Path | None,
    program: str,
    words: tuple[str, ...],
    project: Path,
    untold: list[UntoldProgram],
    by_name: ByName,
    unknown: list[str],
) -> list[Path]:
    """The compose files a `docker compose` call from `base` reads: those `-f` names (and the
    env file, which may name others), or those the `.env` there names (COMPOSE_FILE), or the
    first of COMPOSE_FILES in the folder or the nearest above it in the project with its
    override, and the files each includes or extends. One of those that is not made yet goes
    to `by_name.when_there`: most folders have but one of the names."""
    if program in ("docker", "podman") and [w for w in words if not w.startswith("-")][:1] != [
        "compose"
    ]:
        return []  # `docker run ...`: what it runs is on the line itself
    if base is None:
        untold.append(UntoldProgram(project, f"${{PWD}}/{COMPOSE_FILES[0]}"))
        return []
    folder, named = base, []
    for index, word in enumerate(words):
        option, joined, value = word.partition("=")
        value = value if joined else (words[index + 1] if index + 1 < len(words) else "")
        if option in COMPOSE_FILE_OPTIONS:
            named.append(value)
        elif option in COMPOSE_FOLDER_OPTIONS:
            named_folder = _literal(value, base, untold)
            if not named_folder:
                return []
            folder = named_folder[0]
    env_file = [folder / ".env"] if os.path.lexists(folder / ".env") else []
    found: list[Path] = []
    for value in named:
        found += _literal(value, base, untold)
    from_env = dotenv_file(folder / ".env")
    if from_env is None:
        unknown.append(f"{_shown(project, folder / '.env')}, {TOO_MANY_DOTENV_LINES}")
        from_env = {}
    found += variable_paths("COMPOSE_FILE", from_env.get("COMPOSE_FILE", ""), folder)
    if not any(option.partition("=")[0] in ("-f", "--file") for option in words):
        for above in up_to(folder, project):  # compose looks up until it finds one
            present = [above / name for name in COMPOSE_FILES if os.path.lexists(above / name)]
            for name in (*COMPOSE_FILES, *COMPOSE_OVERRIDES):
                if not os.path.lexists(above / name):
                    by_name.when_there.append((above / name, COMPOSE_REASON))
                elif name in COMPOSE_OVERRIDES and present:
                    found.append(above / name)
            if present:
                found.append(present[0])
                break
    return env_file + found + _compose_includes(found, untold, unknown)


def _compose_includes(
    files: list[Path], untold: list[UntoldProgram], unknown: list[str]
) -> list[Path]:
    """The compose files that `files` include (`include:`) or extend (`extends: file:`), and
    those they include in turn, each from the folder of the file that names it."""
    found: list[Path] = []
    waiting, seen = list(files), set(files)
    while waiting and len(seen) <= MAX_COMPOSE_FILES:
        path = waiting.pop()
        try:
            compose = _dict(read_yaml(read_small_file(path)))
        except FileNotFoundError:
            continue
        except ValueError as error:
            if "not YAML" not in str(error):  # (one compose refuses runs nothing)
                unknown.append(f"the compose file {path.name}, which it cannot read ({error})")
            continue
        except OSError:
            unknown.append(f"the compose file {path.name}, which it cannot read")
            continue
        named = [
            _dict(item).get("path") if isinstance(item, dict) else item
            for item in _list(compose.get("include"))
        ]
        for service in _dict(compose.get("services")).values():
            named.append(_dict(_dict(service).get("extends")).get("file"))
        for text in _strings(named):
            for each in _literal(text, path.parent, untold):
                if each not in seen:
                    seen.add(each)
                    found.append(each)
                    waiting.append(each)
    return found


def workspace_packages(folder: Path) -> list[Path]:
    """The workspace packages of the package.json (`workspaces`) or pnpm-workspace.yaml in
    `folder` that exist: each folder of their patterns with a package.json."""
    patterns: list[str] = []
    with contextlib.suppress(OSError, ValueError, RecursionError):
        declared = _dict(read_settings(folder / PACKAGE_JSON)).get("workspaces")
        declared = _dict(declared).get("packages") if isinstance(declared, dict) else declared
        patterns += _strings(declared)
    with contextlib.suppress(OSError, ValueError):
        pnpm = read_yaml(read_small_file(folder / PNPM_WORKSPACE))
        patterns += _strings(_dict(pnpm).get("packages"))
    matches = (
        match
        for pattern in patterns
        if not pattern.startswith("!") and not os.path.isabs(pattern)
        for match in glob.iglob(f"{glob.escape(str(folder))}/{pattern}", recursive=True)
    )
    found = []
    for count, match in enumerate(matches):
        if count >= MAX_WORKSPACE_MATCHES:  # (a command can fill `packages/` with files)
            raise CannotTell(
                f"the workspace packages of {folder / PACKAGE_JSON}, whose patterns match "
                f"more than {MAX_WORKSPACE_MATCHES:,} entries"
            )
        if os.path.isfile(os.path.join(match, PACKAGE_JSON)):
            found.append(Path(os.path.normpath(match)))
    return [path for path in found if path.is_relative_to(folder)]


def _named_packages(config: Path, program: str, base: Path, project: Path) -> list[Path]:
    """What the packages a tool's data config names by a name (in any reading of it,
    `_data_configs`) lead to in node_modules, held while there and told when made
    (tools/node_packages.py `config_packages`): as node finds them from the config's folder,
    from where the tool runs (prettier resolves its plugins from there, and first tries the
    name as a file there), and from the folders markdownlint-cli2's `modulePaths` adds; and,
    for markdownlint-cli2, each module its config names as a file from those folders, where
    it imports one that no package holds."""
    readings = _data_configs(config, program)
    try:
        named = list(
            dict.fromkeys(name for each in readings for name in config_packages(each, program))
        )
    except ValueError as why:
        raise CannotTell(f"{config}: {why}") from None
    starts = [config.parent, base]
    for each in readings:
        extra = _dict(each).get("modulePaths")
        starts += [config.parent / p for p in _list(extra) if isinstance(p, str)]
    loaded = NodeNames()
    for package in named:
        for start in dict.fromkeys(starts):
            package_paths(package, start, project, found=loaded)
    files = [base / name for name in named] if program == "prettier" else []  # (its `import()`)
    if program == "markdownlint-cli":
        # (`"customRules": ["rules/x.cjs"]` is ./rules/x.cjs where no package `rules` is)
        modules = [module for each in readings for module in _markdownlint_modules(each)]
        files += [
            Path(os.path.normpath(start / module))
            for module in modules
            for start in dict.fromkeys(starts)
        ]
    return [*loaded.paths, *files]


MARKDOWNLINT_MODULE_KEYS = ("customRules", "markdownItPlugins", "outputFormatters")


def _markdownlint_modules(settings: Any) -> list[str]:
    """The modules a markdownlint-cli2 config has it import, as written: each entry of its
    MARKDOWNLINT_MODULE_KEYS, or the first item of one given with its parameters (`[id, {}]`);
    not a URL (`file:`) nor a path from your home (`~`)."""
    modules = []
    for key in MARKDOWNLINT_MODULE_KEYS:
        for entry in _list(_dict(settings).get(key, [])):
            module = entry[0] if isinstance(entry, list) and entry else entry
            if isinstance(module, str) and module and ":" not in module and module[0] != "~":
                modules.append(module)
    return modules


QUOTED_STRING = re.compile(r"""["']([^"'\n]{1,214}+)["']""")  # (214: npm's longest name)


def _data_configs(config: Path, program: str) -> list[Any]:
    """A tool's data config as each of its tools may read it (`data_readings`; package.json:
    under the tool's key), or none for a JavaScript one (the project's code) or one that
    cannot be read."""
    if config.suffix in JS_SUFFIXES or not os.path.isfile(config):
        return []
    try:
        text = read_small_file(config, SMALL_FILE_LIMIT)
        readings = [toml_data(text)] if config.suffix == ".toml" else data_readings(config, text)
    except OSError:
        return []
    except (ValueError, RecursionError):
        # (JSON5, which neither reads: every string it holds may be a name the tool loads,
        # read as JSON5 reads it, `'\\q'` is `q`; and each quoted part, should its quotes pair
        # otherwise)
        names = [*json5_strings(text), *QUOTED_STRING.findall(unescaped(text))]
        return [{"plugins": list(dict.fromkeys(names))}]
    if config.name in PACKAGE_FILES:
        key = PACKAGE_KEYS.get(program, program)  # (commitlint's)
        return [_dict(settings).get(key) for settings in readings]
    return readings


def staged_commands(config: Path, lefthook: bool = False) -> list[str]:
    """The command lines a lint-staged or nano-staged data config lists for its globs (a
    line, or a list of them; in package.json under the tool's key; in each reading of one
    without a suffix, `data_readings`), or a lefthook config
    gives as `run:` (of its commands and jobs, wherever they lie). A JavaScript config is
    the project's code, held as it is; a folder or a script lefthook runs is held whole."""
    if config.suffix in (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts") or config.is_dir():
        return []
    try:
        if config.suffix in YAML_READ_SUFFIXES:
            # (`.lintstagedrc`: YAML to lint-staged, which JSON may read apart; a YAML one:
            # lint-staged's YAML 1.2 and lefthook's Go YAML read NEL apart, `data_readings`)
            # As YAML settings are (SLOW_SETTINGS_LIMIT): libyaml composes one in a single call,
            # seconds a MiB, in which no Ctrl-C is answered. Past it, commands ask.
            text = read_small_file(config, SLOW_SETTINGS_LIMIT)
            counted_as_slow(config, text)
            readings = data_readings(config, text)
        else:
            try:
                readings = [read_settings(config)]  # (JSON, TOML or YAML, by the suffix)
            except ValueError:
                readings = [read_yaml(read_small_file(config, SMALL_FILE_LIMIT))]
    except (OSError, ValueError, RecursionError) as error:
        # The tool reads it all the same (Go's YAML takes a second document, past 256 KiB...):
        # what it runs is unknown.
        raise CannotTell(f"{config}, which planloop cannot read ({error})") from None
    if lefthook or "lefthook" in config.name:  # (and the files it extends, whatever their names)
        return [line for settings in readings for line in _run_lines(settings)]
    lines = []
    for settings in readings:
        listed = _dict(settings)
        if config.name in PACKAGE_FILES:
            listed = {**_dict(listed.get("lint-staged")), **_dict(listed.get("nano-staged"))}
        for value in listed.values():
            lines += (
                [value]
                if isinstance(value, str)
                else [v for v in _list(value) if isinstance(v, str)]
            )
    # Each as lint-staged runs it without a shell, and as it runs it with `--shell`.
    return list(dict.fromkeys(each for line in lines for each in (_as_words(line), line)))


def _as_words(line: str) -> str:
    """A command line that lint-staged runs without a shell, as a shell line of the same words:
    its `~` names the folder `~` of the tree, not your home."""
    try:
        return shlex.join(literal_tilde(word) for word in shlex.split(line))
    except ValueError:  # (unbalanced quotes: read as written, which asks or names nothing)
        return line


# lefthook's `{name}` in a command: one of the config's `templates:` (its own, `{files}`, are
# words lefthook fills with file names).
LEFTHOOK_TEMPLATE = re.compile(r"\{(\w+)\}")
# The keys of a lefthook command, job or script whose value is a command line it runs:
# `run:`, `files:` (a command that lists the files) and a script's `runner:`.
LEFTHOOK_LINES = ("run", "files", "runner")
ASSIGNABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+")  # a name a shell can set (`env:`'s keys)


def _run_lines(settings: Any) -> list[str]:
    """Each command line lefthook runs, as its settings give them (a read file: bounded),
    however nested (LEFTHOOK_LINES): with the config's `templates:` put in, from the folder
    a command's `root:` names (read as `cd ROOT && LINE`), and with the variables its `env:`
    and those of the groups around it set (`export NODE_OPTIONS='--require ./x.js'; LINE`)."""
    templates = _dict(_dict(settings).get("templates"))
    lines: list[str] = []
    stack: list[tuple[Any, dict]] = [(settings, {})]
    while stack:
        node, env = stack.pop()
        if isinstance(node, dict):
            env = {**env, **_dict(node.get("env"))}
            root = node.get("root")
            here = f"cd {shlex.quote(root)} && " if isinstance(root, str) and root else ""
            exported = " ".join(
                f"{name}={shlex.quote(str(value))}"
                for name, value in env.items()
                if isinstance(name, str) and ASSIGNABLE.fullmatch(name)
            )
            here += f"export {exported}; " if exported else ""
            for key in LEFTHOOK_LINES:
                if isinstance(node.get(key), str):
                    line = LEFTHOOK_TEMPLATE.sub(
                        lambda found: str(templates.get(found[1], found[0])), node[key]
                    )
                    lines.append(here + line)
            stack += [(value, env) for value in node.values()]
        elif isinstance(node, list):
            stack += [(value, env) for value in node]
    return lines


def npm_scripts(folder: Path) -> dict | None:
    """The scripts of the package.json in `folder` ({} when there is none yet: held, missing,
    as the file that will name them), or None when it cannot be read (too big, not JSON)."""
    try:
        return _dict(_dict(read_settings(folder / PACKAGE_JSON)).get("scripts"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError):
        return None


def _within_commands_per_look(lines: Iterable[Any]) -> bool:
    """Whether these command lines, with those read before them in this look, are within
    COMMANDS_PER_LOOK (outside a look: always)."""
    if getattr(_once, "found", None) is None:
        return True
    _once.script_bytes += sum(len(line) for line in lines if isinstance(line, str))
    return _once.script_bytes <= COMMANDS_PER_LOOK


def _package_runs(
    folder: Path, project: Path, untold: list[UntoldProgram], by_name: ByName, unknown: list[str]
) -> list[Path]:
    """What a package manager runs from `folder`: its package.json, the command line of each
    of its scripts, the files it runs where a script is missing, and what the package
    managers' settings there name. A script is a shell's line (`sh -c`), read as a hook's
    lines are: a line only the shell can tell (`$(cat cmd) lint`) goes to `unknown`."""
    found = [folder / PACKAGE_JSON]
    looked: set[tuple[Path, str]] = set()  # (`x && x && x ...`: each looked for once)
    lines = []
    for name, script in (npm_scripts(folder) or {}).items():
        if not isinstance(script, str):
            continue  # (npm runs only strings)
        for line, why in read_hook_lines(script, "sh", str(folder), without_secrets()):
            if line is None:
                package = _shown(project, folder / PACKAGE_JSON)
                unknown.append(f"the script `{_one_line(name)}` of {package}: {why}")
            else:
                lines.append(line)
    for line in lines:
        named_before = len(by_name.programs)
        found += program_paths(line, folder, untold, False, by_name)
        # A program named alone (`eslint .`, `node x.js`) is looked for in each node_modules/.bin
        # up the tree first: npm puts them on the script's PATH.
        for base, program in by_name.programs[named_before:]:
            if (base, program) not in looked:
                looked.add((base, program))
                node_names_held(bin_paths(program, base, project), by_name)
    found += [folder / name for name in PACKAGE_DEFAULTS if os.path.lexists(folder / name)]
    for settings_folder in up_to(folder, project):
        unknown += unread_package_settings(settings_folder, project)
        for path in package_manager_programs(settings_folder):
            found += _literal(path, settings_folder, untold)
    return found


def _bins_called(
    base: Path, program: str, words: tuple[str, ...], project: Path, by_name: ByName
) -> None:
    """The program a package manager runs from node_modules/.bin by its name: `npm exec x`,
    `pnpm exec x`, `yarn exec x`, `bun x x`, and `yarn x` (pnpm's, bun's) where x is neither a
    command of theirs nor a script of the package.json there."""
    plain = [word for word in words if not word.startswith("-")]
    scripts = npm_scripts(base) or {}
    if plain[:1] in (["exec"], ["x"]) and len(plain) > 1:
        named = plain[1]
    elif program in ("yarn", "pnpm", "bun") and plain[:1] == ["run"] and len(plain) > 1:
        named = plain[1] if plain[1] not in scripts else ""  # (`yarn run lint-staged`)
    elif program in ("yarn", "pnpm", "bun") and plain and plain[0] not in BUILT_INS:
        named = plain[0] if plain[0] not in scripts else ""
    else:
        return
    # The tool it runs reads its files as it would run alone (`yarn lint-staged`, `npm x
    # prettier@3 --check .`: lint-staged's config, prettier's).
    for tool in map(program_name, run_by_npx(named, base, by_name)):
        if tool in BUILD_TOOLS and named in words:
            by_name.calls.append((base, tool, words[words.index(named) + 1 :]))


def package_manager_programs(folder: Path) -> list[str]:
    """The files the package managers' settings in `folder` (PACKAGE_SETTINGS) run for a
    script: npm's script-shell and what its node-options load, yarn's yarnPath (yarn-path in
    the first yarn's .yarnrc) and plugins, bun's preloads. A settings file too big or
    unreadable names none here: it is held, and where a tool runs from `folder`, commands ask
    (`unread_package_settings`), for its tool reads it whole."""
    found = npmrc_programs(folder / ".npmrc")
    with contextlib.suppress(OSError, ValueError):
        yarn = _dict(read_yaml(read_small_file(folder / ".yarnrc.yml")))
        found += _strings(yarn.get("yarnPath"))
        for plugin in _list(yarn.get("plugins")):  # `- path: .yarn/plugins/x.cjs`, or the path
            found += _strings(_dict(plugin).get("path") if isinstance(plugin, dict) else plugin)
    with contextlib.suppress(OSError, ValueError):
        text = read_small_file(folder / ".yarnrc")
        found += [match.strip("\"'") for match in YARN1_PATH.findall(text)]
    with contextlib.suppress(OSError, ValueError):
        bun = toml_data(read_small_file(folder / "bunfig.toml"))
        for table in (bun, _dict(bun.get("run")), _dict(bun.get("test"))):
            found += _strings(table.get("preload"))
    return found


def unread_package_settings(folder: Path, project: Path) -> list[str]:
    """The package managers' settings in `folder` that `package_manager_programs` reads but
    planloop cannot (`unread_reason`: larger than it reads), each said as what planloop
    cannot tell: npm, yarn and bun read them whole, and past the limit one may name any
    file as the shell or program they run for a script."""
    return [
        f"{_shown(project, folder / name)}, which {why}"
        for name in PROGRAM_SETTINGS
        if (why := unread_reason(folder / name))
    ]


def _folder(cwd: Any, project: Path) -> Path | None:
    """The folder a command runs in: `cwd` (a string, from the project) or the project; None
    when `cwd` holds a variable the tool alone knows."""
    if not isinstance(cwd, str) or not cwd:
        return project
    cwd = os.path.expanduser(put_in(cwd, project))
    if EXPANSION.search(cwd):
        return None
    return Path(os.path.normpath(project / cwd))


def tool_scripts_in(root: Path, tool_configs: list[Path]) -> list[Path]:
    """The paths of `tool_scripts` for the sandbox to hold read-only, but for those inside a
    host tool's entry (held with it: `.claude/hooks/check.sh`) and a virtualenv's links (held
    with its bin/: `.venv/bin/python`, which leads out of the workspace)."""
    root = Path(os.path.realpath(root))
    named = tool_scripts(root, tool_configs).named
    return [
        path
        for path, _ in named
        if not any(path == config or path.is_relative_to(config) for config in tool_configs)
        and not (os.path.islink(path) and _links_held(root, path))
    ]


def tool_script_not_held(root: Path, tool_configs: list[Path]) -> str | None:
    """Why something the host tools' settings run cannot be kept read-only, or None: settings
    planloop cannot read (what they run is unknown), a path only the tool can tell, or a script
    that does not exist yet (a command could make it) or lies behind a link (a command could
    point the link elsewhere)."""
    root = Path(os.path.realpath(root))
    found = tool_scripts(root, tool_configs)
    if cannot_tell := _cannot_tell_what_runs(root, found):
        return cannot_tell
    for program, why in found.untold:
        return f"`{_one_line(program.word)}` is a path only its tool can tell, and {why}"
    for path, why in found.named:
        if not os.path.exists(path) or (
            link_inside(str(root), str(path)) and not _links_held(root, path)
        ):
            return f"{_shown(root, path)} does not exist or is a link, and {why}"
    return None


def _cannot_tell_what_runs(root: Path, found: ToolScripts) -> str | None:
    for path in found.unread:
        return f"planloop cannot read {_shown(root, path)}, so it cannot tell what its tool runs"
    for what, settings in found.unknown:
        what = _one_line(what)  # (it may quote a file's name)
        if what.startswith("its "):  # (a hook's line: tools/hook_lines.py)
            return f"{_one_line(settings)}: {what}; planloop cannot tell what it runs"
        return f"{_one_line(settings)} names {what}; planloop cannot tell what it runs"
    return None


# Said where commands ask because of `any_file_may_run`: the file tools cannot do the work
# instead (middleware/permissions.py tells the model so).
FILE_TOOLS_ASK_TOO = "and the file tools before every write"
ANY_FILE_MAY_RUN = "so any file may be what it runs"  # (how the file tools' question says so)


def any_file_may_run(root: Path, tool_configs: list[Path]) -> str | None:
    """Why the file tools must ask before every write in the workspace, or None: a host tool's
    settings (a hook) could not be read or run what planloop cannot tell, so any file may be
    what they run at the person's next commit, as for commands, which ask too."""
    root = Path(os.path.realpath(root))
    cannot_tell = _cannot_tell_what_runs(root, tool_scripts(root, tool_configs))
    return f"{cannot_tell}, {ANY_FILE_MAY_RUN}" if cannot_tell else None


def _links_held(root: Path, path: Path) -> bool:
    """Whether each link on the way to `path` lies in a virtualenv's bin/, which sandboxed
    commands cannot change (`.venv/bin/python` -> `python3` -> `/usr/bin/python3.12`, as venv
    and uv make it), and it ends outside the workspace or in such a bin/: no command can point
    it elsewhere."""
    for _ in range(MAX_LINKS):
        folder = path.parent
        in_venv_bin = folder.name == "bin" and os.path.lexists(folder.parent / VENV_CONFIG_NAME)
        if not path.is_relative_to(root):
            return True
        if not in_venv_bin or link_inside(str(root), str(folder)):
            return False
        if not os.path.islink(path):
            return True
        path = Path(os.path.normpath(folder / os.readlink(path)))
    return False


def tool_script_reason(
    root: Path, candidate: Path, tool_configs: list[Path], per_file_configs: Iterable[Path] = ()
) -> str | None:
    """Why the file tools must ask before writing `candidate`: a host tool's settings run it
    (or a folder of theirs holds it), a path only the tool can tell may be it, or a tool they
    run takes it as a per-file config (`per_file_configs`, the scan's, tell which tools the
    nested configs' own lines run too)."""
    root = Path(os.path.realpath(root))
    found = tool_scripts(root, tool_configs)
    for program, why in found.untold:
        if program.may_be(candidate):
            return (
                f"{_shown(root, candidate)} is protected: it may be what `{program.word}` is: {why}"
            )
    for path, why in [*found.named, *npm_settings(root, tool_configs)]:
        if candidate == path or (os.path.isdir(path) and candidate.is_relative_to(path)):
            return f"{_shown(root, path)} is protected: {why}"
    for path, why in found.when_there:
        if candidate == path or candidate.is_relative_to(path):
            return f"{_shown(root, path)} is protected: {why}"
    in_packages = _in_packages(root, candidate)
    for project, program in _per_file(root, tool_configs, list(per_file_configs))[2]:
        # (a new one too: the tool takes it at its next run, as it would one a command made)
        if candidate.is_relative_to(project) and looked_for_by(
            program, candidate.name, in_packages
        ):
            return f"{_shown(root, candidate)} is protected: {PER_FILE_CONFIG_REASON}"
    return None


def _in_packages(root: Path, path: Path) -> bool:
    """Whether `path` lies in a `node_modules` folder of the workspace `root`. By the paths'
    text: a lint-staged project's node_modules holds thousands of package.json files."""
    top = os.path.join(root, "")
    return (
        str(path).startswith(top) and f"{os.sep}node_modules{os.sep}" in str(path)[len(top) - 1 :]
    )


def per_file_configs(
    root: Path, tool_configs: list[Path], configs: list[Path]
) -> list[tuple[Path, str]]:
    """Of `configs` (a workspace scan's `per_file_configs`), those a linter or formatter the
    host tools run takes as the config of the files it checks beside them, with the local code
    each names (a plugin, `./plug.mjs`), and why: held while they exist, and told when a
    command makes one (tools/per_file_configs.py says why they count wherever they lie)."""
    return list(_per_file(Path(os.path.realpath(root)), tool_configs, configs)[0])


def per_file_config_not_held(
    root: Path, tool_configs: list[Path], configs: list[Path]
) -> str | None:
    """Why one of those configs cannot be kept read-only, or None: it is a link (a command could
    point it elsewhere), or it is there but planloop cannot read what code it names."""
    return _per_file(Path(os.path.realpath(root)), tool_configs, configs)[1]


def _per_file(
    root: Path, tool_configs: list[Path], configs: list[Path]
) -> tuple[list[tuple[Path, str]], str | None, list[tuple[Path, str]]]:
    """Both answers at once, with the tool runs they were read for, read once within
    `read_once`, as `tool_scripts` is."""
    key = ("per-file", root, tuple(tool_configs), tuple(configs))
    with read_once():
        if key not in _once.found:
            _once.found[key] = _per_file_read(root, tool_configs, configs)
        return _once.found[key]


def _per_file_read(
    root: Path, tool_configs: list[Path], configs: list[Path]
) -> tuple[list[tuple[Path, str]], str | None, list[tuple[Path, str]]]:
    # The tools the host tools run, and those the nested configs' own lines run in turn
    # (`web/.lintstagedrc.json`'s `prettier --check`): read in rounds, each with the new ones.
    runs = list(tool_scripts(root, tool_configs).per_file)
    found: list[tuple[Path, str]] = []
    cannot: str | None = None
    done: set[tuple[Path, str]] = set()
    for _ in range(MAX_PER_FILE_ROUNDS):
        new = [run for run in runs if run not in done]
        done.update(new)
        more: list[tuple[Path, str]] = []
        for config in configs if new else []:
            go_on()
            held, why = _per_file_config(root, config, new, more)
            found += held
            cannot = cannot or why
        runs += [run for run in dict.fromkeys(more) if run not in runs]
    if any(run not in done for run in runs):
        cannot = cannot or "nested configs whose lines run tools that read nested configs, deeper"
    return list(dict.fromkeys(found)), cannot, runs


MAX_PER_FILE_ROUNDS = 4


def _per_file_config(
    root: Path, config: Path, new: list[tuple[Path, str]], more: list[tuple[Path, str]]
) -> tuple[list[tuple[Path, str]], str | None]:
    """What one of the scan's per-file configs brings for the tool runs `new` of this round,
    with why it cannot be held, if so; the tool runs its own lines add go to `more`."""
    path, in_packages = str(config), _in_packages(root, config)
    runs_here = [
        (where, p)
        for where, p in new
        if path.startswith(os.path.join(where, "")) and looked_for_by(p, config.name, in_packages)
    ]
    if not runs_here:
        return [], None
    programs = [tool_of(program) for _, program in runs_here]
    project = runs_here[0][0]  # (where the tool runs, as far as planloop can tell)
    if os.path.islink(config):
        return [], f"{_shown(root, config)} is a link, and {PER_FILE_CONFIG_REASON}"
    cannot = None
    try:
        if config.name in PACKAGE_FILES:
            keys = [PACKAGE_KEYS[p] for p in programs if p in PACKAGE_KEYS]
            seen = _unchanged_since(config, keys)
            if seen in _WITHOUT_THEIR_KEYS:
                return [], None  # (read at an earlier look, and not changed since)
            code = _package_config_code(config, keys, project, more)
            if code is None:
                _remember_without_keys(seen)
                return [], None  # (no key of theirs: they pass it by)
        else:
            code = per_file_code(config, project, more)
        # (and the packages it names: `"plugins": ["prettier-plugin-x"]`)
        loaders = [p for p in dict.fromkeys(programs) if p in PACKAGE_LOADERS]
        code += [path for p in loaders for path in _named_packages(config, p, project, root)]
    except CannotTell as why:
        cannot = f"{why}, and {PER_FILE_CONFIG_REASON}"
        code = []
    return [(path, PER_FILE_CONFIG_REASON) for path in [config, *code]], cannot


# A lint-staged project's node_modules holds thousands of package.json files, none with the
# key: each is read once, then known by what a change to it would change (its inode, size,
# and change time, which no command can set back), not read again at each look. Only one
# unchanged for a while is remembered: the change time has the clock's coarse steps, and two
# writes within one step would look the same. And none a running command maps to write: a
# write through a page it made dirty already changes neither time (`_mapped_for_writing`).
PackageSeen = tuple[str, tuple[str, ...], int, int, int, int]  # path, keys, dev, inode, size, ctime
_WITHOUT_THEIR_KEYS: set[PackageSeen] = set()
MAX_REMEMBERED_PACKAGES = 200_000
SETTLED_NS = 2_000_000_000
MAPPINGS_FRESH_NS = 1_000_000_000  # (half of SETTLED_NS: see `_mapped_for_writing`)
_MAPPED: dict[str, tuple[int, frozenset[int] | None]] = {}


def _unchanged_since(config: Path, keys: list[str]) -> PackageSeen | None:
    try:
        info = os.stat(config, follow_symlinks=False)
    except OSError:
        return None
    return (str(config), tuple(keys), info.st_dev, info.st_ino, info.st_size, info.st_ctime_ns)


def _remember_without_keys(seen: PackageSeen | None) -> None:
    if seen is None or seen[-1] > time.time_ns() - SETTLED_NS:
        return
    mapped = _mapped_for_writing()
    if mapped is None or seen[3] in mapped:
        return  # (a running command may change it through its mapping, unseen)
    if len(_WITHOUT_THEIR_KEYS) >= MAX_REMEMBERED_PACKAGES:
        _WITHOUT_THEIR_KEYS.clear()
    _WITHOUT_THEIR_KEYS.add(seen)


def _mapped_for_writing() -> frozenset[int] | None:
    """The inode of each file a running sandboxed command maps shared and writable (of any
    device: btrfs shows mappings by another device number than stat gives); None when
    planloop cannot read a command's mappings. Looked at most once a second.

    Such a mapping writes without a trace once its page is dirty: the kernel stamps the change
    time only at the fault that makes the page writable. A fault after this look stamps a time
    within a second of now, not settled (SETTLED_NS) when remembered; a page made writable
    before it belongs to a mapping that is here now, whether or not it is closed later."""
    now = time.time_ns()
    when, mapped = _MAPPED.get("last", (0, None))
    if now - when < MAPPINGS_FRESH_NS:
        return mapped
    found: set[int] | None = set()
    for pid, _ in processes_below(running_sandbox_pids()):
        try:
            with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as maps:
                lines = maps.readlines()
        except FileNotFoundError:
            continue  # (it ended: its mappings with it)
        except OSError:
            found = None
            break
        for line in lines:  # `start-end rw-s offset 08:01 inode path`
            fields = line.split(maxsplit=5)
            if len(fields) >= 5 and fields[1][1:2] == "w" and fields[1][3:4] == "s":
                with contextlib.suppress(ValueError):
                    found.add(int(fields[4]))
    mapped = frozenset(found) if found is not None else None
    _MAPPED["last"] = (now, mapped)
    return mapped


def _package_config_code(
    package: Path, keys: list[str], project: Path, more: list[tuple[Path, str]] | None = None
) -> list[Path] | None:
    """The local code that the config under one of `keys` in a package.json (or package.yaml)
    names, or None when it has none of those keys (or is no JSON, which stops the tool too)."""
    try:
        text = read_small_file(package)
    except OSError as error:
        raise CannotTell(f"{package}, which planloop cannot read ({error.strerror})") from None
    # The tools read it more leniently than python does (a BOM, a control character YAML
    # allows them): one python cannot read that names their key is theirs to run, unknown.
    unread = CannotTell(f"{package}, which names {' or '.join(keys)} but planloop cannot parse")
    if package.suffix == ".json":
        try:
            data = json.loads(text.removeprefix("\ufeff"))
        except ValueError:
            if any(f'"{key}"' in text for key in keys):
                raise unread from None
            return None
        found = [key for key in keys if isinstance(data, dict) and key in data]
        named = json.dumps([data[key] for key in found])
        code = local_paths(named, package.parent) + local_paths(named, project)
    else:  # (package.yaml: a top-level key of theirs, in any YAML style; its paths count)
        try:
            data = read_yaml(text)
        except (ValueError, RecursionError):
            if any(key in text for key in keys):
                raise unread from None
            data = None
        pattern = r"^[\"']?{}[\"']?[ \t]*+:"
        found = [
            key
            for key in keys
            if key in _dict(data) or re.search(pattern.format(re.escape(key)), text, re.M)
        ]
        code = local_paths(text, package.parent) + local_paths(text, project)
    if not found:
        return None
    # (lint-staged's key lists command lines, which run)
    staged = PACKAGE_KEYS["lint-staged"] in found
    return code + (per_file_code(package, project, more) if staged else [])


def tool_files_when_there(root: Path, tool_configs: list[Path]) -> list[tuple[Path, str]]:
    """The files the host tools run only once they are made (ToolScripts.when_there), with
    why (for tools/sandbox.py `held_when_there_paths`)."""
    return tool_scripts(Path(os.path.realpath(root)), tool_configs).when_there


def npm_settings(root: Path, tool_configs: list[Path]) -> list[tuple[Path, str]]:
    """The package managers' settings (PACKAGE_SETTINGS) beside each package.json whose
    scripts the host tools run on their own, whether they exist or not, with why (for
    tools/shell_config.py `held_when_there`)."""
    root = Path(os.path.realpath(root))
    named = tool_scripts(root, tool_configs).named
    packages = [path.parent for path, _ in named if path.name == PACKAGE_JSON]
    found = [folder / name for folder in packages for name in PACKAGE_SETTINGS]
    above = [upper for folder in packages for upper in up_to(folder, root)[1:]]
    found += [upper / ".yarnrc.yml" for folder in packages for upper in up_to(folder, root)]
    # npm in a workspace's member takes its settings from the workspace's root (`.npmrc` there,
    # as yarn its .yarnrc.yml), and an install there runs the root package.json's scripts.
    found += [upper / ".npmrc" for upper in above]
    found += [upper / PACKAGE_JSON for upper in above if os.path.lexists(upper / PACKAGE_JSON)]
    return [(path, NPM_SETTINGS_REASON) for path in dict.fromkeys(found)]


def _shown(root: Path, path: Path) -> str:
    return _one_line(str(path.relative_to(root)) if path.is_relative_to(root) else str(path))


def _one_line(text: str) -> str:
    # A file name is the workspace's choosing: a line break in it would start a line of its own.
    return text.replace("\r", "\\r").replace("\n", "\\n")
