"""The workspace boundary, and the paths inside it that are more than plain files.

Every path the model gives a file tool goes through `safe_path`, which turns it into an absolute
path and refuses it unless it lies inside the workspace. Symlinks are followed before the check,
so a link inside the workspace that points elsewhere cannot be used to read or write outside it.

Some paths inside the workspace are *protected*: writing them can run commands or redirect the
API key, so a write there is not a plain file edit. `protected_reason` says whether a path is one
and why; the permission policy (middleware/permissions.py) asks before such a write, and the
sandbox (tools/sandbox.py) keeps them read-only for bash. The one list:

    .git/ (all of it)   its config and hooks run commands (core.fsmonitor, pre-commit, ...)
    core.hooksPath      the hooks folder a repository's config names, such as .husky/
    hook links          what a hook that is a link leads to (scripts/pre-commit.sh)
    held folders' links what a link in a folder below leads to (bin/deploy -> scripts/deploy.sh)
    .env* (anywhere)    settings such as ANTHROPIC_BASE_URL, which decide where the key goes
                        (direnv's .envrc and what it sources, .envrc.local, match this too)
    host tools' config  .vscode/, .idea/, .direnv/, .hg/, .jj/, .sl/, mise's files, other
                        coding agents' (.claude/, .cursor/, .mcp.json, ...): see
                        HOST_TOOL_CONFIG below
    your settings       dot files your home links to here (stow), a workspace a home entry
                        links to, your git config's hooks folder and includes
    PATH folders        those of your PATH inside the workspace (an activated .venv/bin)
    what runs later     paths your environment names (ZDOTDIR, PERL5LIB), files your shell's
                        start-up files or an .envrc load, a virtualenv's bin/: see
                        tools/shell_config.py
    git's programs      what your git config or the repository's runs by a path here
                        (core.pager, core.fsmonitor = ./fsmon.sh, init.templateDir):
                        tools/git_programs.py
    planloop's home     sessions (what --resume will believe was said) and saved permission rules
    what no bind holds  where commands ask because nothing can be held read-only: planloop's
                        own python and virtual environment, its private folder (TMPDIR here),
                        a PATH folder behind a link; every file, when your PATH or a variable
                        names the workspace itself or a relative or empty entry
                        (`cannot_be_held_reason`)
"""

from __future__ import annotations

import collections
import contextlib
import errno
import itertools
import os
import re
import site
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tools.base import ToolError
from tools.environment import CODE_VARIABLES, _named_by_variable, path_folders_in
from tools.event_queues import (
    FOLDERS_BETWEEN,
    SignalCheck,
    keep_queues_short,
    open_own,
    own_read_done,
)
from tools.homes import account_home, your_homes
from tools.per_file_configs import CONFIG_NAMES as PER_FILE_CONFIG_NAMES
from tools.shell_config import (
    CONDA_META,
    NAMED_ONLY_REASONS,
    PYTHON_PATH_REASON,
    SITE_FOLDER_NAMES,
    VENV_ACTIVATE,
    VENV_CONFIG_NAME,
    VENV_PACKAGES_REASON,
    cd_hook_names,
    python_start_reason,
    run_later,
    unread_start_file,
    untold_by_envrcs,
    untold_by_your_shell,
)
from tools.shell_config import protected_reason as run_later_reason

GIT_DIR_NAME = ".git"
ENV_FILE_PREFIX = ".env"
# Files that hold keys as a `.env` does, though planloop reads no setting from them: docker
# compose's `env_file:` convention (docker.env, prod.env), and the files of a `.env*` folder,
# this many folders down (cookiecutter-django keeps its keys in `.envs/.local/.django`; not
# deeper: a virtualenv is often named `.env`, and its packages are no key files). The sandbox
# hides one that holds planloop's key (`WorkspaceScan.key_files`); writing one is a plain write.
ENV_FILE_SUFFIX = ".env"
ENV_FOLDER_DEPTH = 2

GIT_REASON = (
    ".git/ is protected: its config and hooks can make git run any command "
    "(core.fsmonitor, hooks/pre-commit)"
)
ENV_REASON = (
    ".env files are protected: they hold settings such as ANTHROPIC_BASE_URL and keys, "
    "which decide where the API key is sent"
)
HOME_REASON = "planloop's own folder (sessions and history) is protected"
HOME_FILES_REASON = (
    "your home folder's dot files and folders (.bashrc, .gitconfig, .config/...), and the files "
    "in the workspace they link to, are protected: your shell, git and other programs run what "
    "they say"
)
PATH_WHY = "what is put there runs when you type its name"
PATH_REASON = f"a folder on your PATH is protected: {PATH_WHY}"
# A hook runner hands the staged files' names to a formatter (pre-commit's entries, lefthook's
# `{staged_files}`, `git diff --name-only | xargs prettier`), relative to the top: a file named
# `--plugin=fmt.mjs` is an option there, one that loads code.
OPTION_NAME_REASON = (
    "a name that begins with `-` (or has one after a blank, where `xargs` splits it and takes "
    "out its quotes) is an option to the linters and formatters that hook runners hand "
    "staged files to, and an option can load code (`--plugin=x.mjs`)"
)
# (`git diff --name-only | xargs prettier` splits `b.js --plugin=x.mjs` at its blank, and
# takes the quotes and backslashes out of each word, so `b.js ''--plugin=x.mjs` and
# `b.js \--plugin=x.mjs` are the same two words; a dash alone, `Report - Copy.txt`, is no
# option)
OPTION_IN_NAME = re.compile(r"""(?:^|\s)["'\\]*+-\S""")
PLANLOOP_CODE_REASON = (
    "planloop's own code is protected (its python, the packages it imports, the virtual "
    "environment it runs from): planloop runs it outside any sandbox, with your API key, when "
    "it next starts or imports a module"
)
PRIVATE_FOLDER_REASON = (
    "planloop's private folder is protected: it holds the sandbox's own files (the filter "
    "bwrap loads, the empty file laid over hidden secrets)"
)
# How tools/sandbox.py `private_folder` names the folder it makes in TMPDIR (or /tmp): each
# planloop running there has one.
PRIVATE_FOLDER_PREFIX = "planloop-sandbox-"
# What python imports at every start from the first folder of its path that holds one.
PYTHON_START_MODULES = ("sitecustomize", "usercustomize")
HOOKS_REASON = (
    "the repository's hooks folder (core.hooksPath) is protected: git runs the scripts in it"
)
HOOK_LINK_REASON = (
    "a git hook (or the repository's config) is a link to this file: git runs it as the hook "
    "(at a commit, a checkout, ...) or obeys it as its config"
)

# Folders that programs on the person's machine act on by themselves, when the folder is opened
# in an editor or entered in a shell, before anyone has asked to run the project's code. A
# command that changed them would have code run outside the sandbox later, like a git hook.
# (The project's own code, a Makefile or package.json's scripts, runs when the person runs it:
# that is what they review.)
# A VS Code workspace file (`dev.code-workspace`): VS Code offers to open it when the folder is
# opened, and its tasks (folderOpen ones run at once), settings and launch apply as .vscode's.
CODE_WORKSPACE_SUFFIX = ".code-workspace"
CODE_WORKSPACE_REASON = (
    "VS Code runs the folderOpen tasks and applies the settings of a workspace file it opens"
)
# A JetBrains run configuration shared as a file (`.run/app.run.xml`, or anywhere in the
# project: the IDE finds each one): a startup task that names its name runs it when the
# project opens, whichever file defines it.
RUN_CONFIGURATION_SUFFIX = ".run.xml"
RUN_CONFIGURATION_REASON = (
    "JetBrains IDEs run the run configuration it defines when a startup task names it"
)
# Version files of one tool each, which mise and asdf read as they read .tool-versions.
IDIOMATIC_VERSION_FILES = (
    *(".nvmrc", ".node-version", ".python-version", ".python-versions", ".ruby-version"),
    *(".go-version", ".bun-version", ".deno-version", ".yvmrc", ".terraform-version"),
    *(".packer-version", ".crystal-version", ".exenv-version", ".elixir-version"),
)
IDIOMATIC_VERSION_REASON = (
    "mise (with its idiomatic version files on) and asdf run the version it names, a `path:` "
    "one from the workspace, in every shell here (uv: a path in .python-version is the python "
    "it runs)"
)
HOST_TOOL_CONFIG = {
    ".vscode": "VS Code runs tasks.json's folderOpen tasks, and settings.json names programs",
    ".idea": "JetBrains IDEs run its startup tasks and the programs it names",
    ".direnv": "direnv's layouts and nix-direnv's cached environment, loaded on cd",
    ".hg": "Mercurial runs the hooks in its hgrc, and shell prompts run hg",
    ".jj": "jj runs the programs its repository config names",
    ".mise": "mise runs the hooks of its config.toml when the shell enters the folder",
    ".sl": "Sapling runs the hooks and loads the extensions of its config, and prompts run sl",
    "_darcs": "darcs runs the posthooks in its prefs",
    ".helix": "Helix starts the language servers its languages.toml names",
    ".zed": "Zed starts the language servers and tasks its settings name",
    ".tool-versions": "asdf and mise run the versions it names, `path:` ones from the workspace",
    # One tool's version alone (nvm's, pyenv's, ...): mise reads them where your settings turn
    # its idiomatic version files on (older versions did by default), asdf with
    # legacy_version_file, and a `path:` version is any folder; uv runs a path in
    # .python-version as the interpreter.
    **dict.fromkeys(IDIOMATIC_VERSION_FILES, IDIOMATIC_VERSION_REASON),
    # Neither checks a version for `../`: `../../<workspace>/jdk` is a folder of the workspace.
    ".java-version": "jenv runs the java of the version it names, which may be any folder",
    ".poetry": "Poetry 2 puts its plugins/ folder on its path at every poetry command, and "
    "runs the .pth files there as python runs a site-packages' (no hook needed)",
    ".sdkmanrc": "SDKMAN puts the versions it names first on your PATH when your shell enters "
    "the folder (sdkman_auto_env), and a version may be any folder",
    ".shadowenv.d": "shadowenv runs its .lisp files when your shell enters a folder you trusted "
    "once (the trust is the folder's, whatever the files say later)",
    "_opam": "opam's shell hook puts a local switch's bin/ first on your PATH when your shell "
    "enters the folder",
    "global.json": "dotnet takes its SDK from the folders its sdk.paths name (.NET 10), and a "
    "path may be a folder of the workspace",
    # Other coding agents' project settings: each runs commands from them when it next starts
    # here (or at its next step), in a folder the person has trusted before.
    ".claude": "Claude Code runs the hooks and status line commands its settings name",
    ".mcp.json": "Claude Code and other agents start the MCP servers it names, which are commands",
    ".cursor": "Cursor runs its hooks.json hooks and starts the MCP servers mcp.json names",
    ".gemini": "Gemini CLI runs the hooks and starts the MCP servers its settings.json names",
    "opencode.json": "opencode starts the MCP servers and loads the plugins it names",
    "opencode.jsonc": "opencode starts the MCP servers and loads the plugins it names",
    ".opencode": "opencode loads the plugins in it and starts the MCP servers its config names",
    ".windsurf": "Windsurf runs the hooks its hooks.json names",
    ".codex": "Codex starts the MCP servers its config.toml names",
    ".continue": "Continue starts the MCP servers its mcpServers/ files name",
    ".roo": "Roo Code starts the MCP servers its mcp.json names",
    ".aider.conf.yml": "aider runs its lint-cmd and test-cmd after the changes it makes",
    ".clinerules": "Cline runs the hook scripts in its hooks/ folder (TaskStart, PreToolUse, ...)",
    ".qwen": "Qwen Code starts the MCP servers its settings.json names",
    ".kiro": "Kiro starts the MCP servers its settings/mcp.json names and runs its hooks' commands",
    ".amazonq": "Amazon Q Developer starts the MCP servers its mcp.json and default.json name",
    ".kilocode": "Kilo Code starts the MCP servers its mcp.json names",
    ".kilo": "Kilo starts the MCP servers its kilo.json or kilo.jsonc names",
    "crush.json": "Crush starts the MCP servers and language servers it names",
    ".crush.json": "Crush starts the MCP servers and language servers it names",
    # rustup reads it whenever rustc or cargo starts in the folder, as shell prompts and
    # rust-analyzer do on their own: a `path` toolchain is any folder's rustc.
    "rust-toolchain.toml": "rustup runs the toolchain it names (a path: any folder's rustc)",
    "rust-toolchain": "rustup runs the toolchain it names (a path: any folder's rustc)",
    # cargo reads .cargo/config.toml in the folder it starts in and every folder above, and
    # rust-analyzer runs `cargo metadata` when the folder is opened: a rustc-wrapper, a runner.
    ".cargo": "cargo runs the rustc wrapper and runners its config names, as rust-analyzer does",
    # R sources it at every start in the folder, and RStudio or Positron start R on opening it.
    ".Rprofile": "R runs it at every start in the folder, and R editors start R on opening it",
    # The same for other REPLs started in the folder: GHCi (and `cabal repl`, the Haskell
    # language server's), Octave, pry and irb each run the folder's start-up file.
    ".ghci": "GHCi runs it at every start in the folder (`:!` runs shell commands)",
    ".octaverc": "Octave runs it at every start in the folder",
    ".pryrc": "pry runs it at every start in the folder",
    ".irbrc": "irb runs it at a start in the folder when your home has none",
    # pdb runs the folder's own after yours, as python, at every breakpoint() and `pytest --pdb`.
    ".pdbrc": "pdb runs it as python whenever a debugger starts in the folder (breakpoint())",
    ".perldb": "perl's debugger runs it as perl whenever `perl -d` starts in the folder",
    # python's interactive prompt imports these as it starts, from the folder it starts in
    # first: `python` typed in the workspace runs them.
    "readline.py": "python's interactive prompt imports it from the folder it starts in",
    "rlcompleter.py": "python's interactive prompt imports it from the folder it starts in",
    "kilo.json": "Kilo starts the MCP servers it names",
    "kilo.jsonc": "Kilo starts the MCP servers it names",
    ".factory": "Factory's Droid runs the hooks of its settings.json and hooks.json and starts "
    "the MCP servers its mcp.json names",
    # A folder inside another, as `parent/name`: the rest of .github is the project's own.
    ".github/hooks": "GitHub Copilot CLI runs the commands of its *.json hooks (sessionStart, "
    "...) when it starts in the folder",
    ".augment": "Augment (Auggie CLI and its editor extensions) runs the hooks its "
    "settings.json names",
    ".tabnine": "Tabnine CLI runs the hooks its agent/settings.json names",
    ".openhands": "OpenHands runs its setup.sh at the start of every session in the repository",
    # Vim runs these from the folder it starts in when your vimrc has `set exrc`, without a
    # question (`secure` spares files you own, and planloop writes as you); Neovim asks once
    # (vim.secure), then runs them whenever it starts there.
    ".vimrc": "Vim (with exrc set) runs it when it starts in the folder",
    "_vimrc": "Vim (with exrc set) runs it when it starts in the folder",
    ".exrc": "Vim and Neovim (with exrc set) run it when they start in the folder",
    "_exrc": "Vim (with exrc set) runs it when it starts in the folder",
    ".gvimrc": "gVim (with exrc set) runs it when it starts in the folder",
    "_gvimrc": "gVim (with exrc set) runs it when it starts in the folder",
    ".nvimrc": "Neovim (with exrc set) runs it, once trusted, when it starts in the folder",
    ".nvim.lua": "Neovim (with exrc set) runs it, once trusted, when it starts in the folder",
    ".lazy.lua": "lazy.nvim loads it as plugin specs, once trusted, when Neovim starts there",
    # proto's shims read it whenever you run a tool it manages (node, python, ...).
    ".prototools": "proto loads the plugins it names, and runs the versions, when you run node",
    # Dev containers: VS Code (and the devcontainer CLI) run initializeCommand on the host
    # before the container is built, and again each time the folder is reopened in it.
    ".devcontainer": "VS Code runs the initializeCommand of its devcontainer.json on your "
    "machine when the folder is opened in a container",
    ".devcontainer.json": "VS Code runs its initializeCommand on your machine when the folder "
    "is opened in a container",
}
# mise.toml, .mise.toml, mise.local.toml, mise.<env>.toml: mise runs their [hooks] and loads
# their [env] when the shell enters the folder. It reads mise/ and .config/mise/ too (config.toml,
# config.local.toml, config.<env>.toml, conf.d/), but projects also name a code folder mise/,
# so only those entries of it count.
# Also .miserc.toml, the early settings read before them (which MISE_ENV to load; a template
# there can run a command).
MISE_FILE = re.compile(r"\.?(?:mise|rtx|miserc)(\.[^/]+)?\.toml")  # (rtx: mise's old name)
MISE_FOLDER = "mise"
MISE_FOLDER_ENTRY = re.compile(r"(?:config|miserc)(\.[^/]+)?\.toml|conf\.d")
MISE_REASON = "mise runs the [hooks] and loads the [env] it names when the shell enters the folder"

# What the permission table says about the list, in one line per entry.
PROTECTED_PATHS = (
    (".git/", "its config and hooks (also core.hooksPath's, e.g. .husky/) make git run commands"),
    (".env*", "sets the API endpoint and keys planloop and the project load"),
    (
        ".vscode/",
        "and .idea/, .direnv/, .hg/, .jj/, mise's files, .claude/, .cursor/, .mcp.json...: "
        "their tools run them",
    ),
    ("planloop's home", "its sessions (what --resume believes was said) and saved rules"),
)


def safe_path(workspace: Path, path: str) -> Path:
    """Resolve `path` against the workspace and return it, or raise ToolError if it escapes.

    Relative paths are taken relative to the workspace; absolute paths are accepted when they
    point inside it. The returned path is fully resolved (symlinks followed), and need not exist.
    """
    check_path_text(path)
    root = Path(workspace).resolve()
    try:
        # Joining with an absolute path yields that absolute path, which is then checked below.
        resolved = (root / path).resolve(strict=False)
    except (OSError, RuntimeError, ValueError) as exc:
        # A symlink loop (RuntimeError before Python 3.13, OSError after), or a name too long.
        raise ToolError(f"The path {path!r} cannot be resolved: {exc}.") from exc

    if not resolved.is_relative_to(root):
        raise ToolError(
            f"The path {path!r} escapes the workspace {root} (it resolves to {resolved}). "
            "Paths must be relative to the workspace and stay inside it."
        )
    return resolved


def check_path_text(path: str) -> None:
    """Refuse, with a message that says what to send, a path no file can have: empty, or with
    a NUL byte."""
    if not path.strip():
        raise ToolError(
            "The path is empty. Send a path relative to the workspace, e.g. 'src/main.py'."
        )
    if "\0" in path:
        raise ToolError(
            f"The path {path!r} contains a NUL byte, which no file name can contain. "
            "Send a plain path relative to the workspace."
        )


def is_env_name(name: str) -> bool:
    """Whether a file of this name may hold keys as a `.env` does (`.env.local`, `docker.env`)."""
    return name.startswith(ENV_FILE_PREFIX) or name.endswith(ENV_FILE_SUFFIX)


def in_env_folder(folders: tuple[str, ...]) -> bool:
    """Whether a file in the folder `folders` (its names below the workspace) lies in a `.env*`
    folder, at most ENV_FOLDER_DEPTH folders down (`.envs/.local/.django`)."""
    return any(name.startswith(ENV_FILE_PREFIX) for name in folders[-ENV_FOLDER_DEPTH:])


def planloop_home() -> Path:
    """planloop's own folder (sessions, history); imported late, session.py imports the tools."""
    from session import planloop_home as home

    return home().resolve()


def protected_reason(workspace: Path, path: str | Path, *, reading: bool = False) -> str | None:
    """Why writing `path` is not a plain file write, or None when it is one.

    Both the path as given (joined to the workspace, links not followed) and the path it resolves
    to are checked, so neither `link -> .git/config` nor a `.env` that is a link to another file
    slips through. `reading`: asked before sending a file's content (AGENTS.md, an @mention),
    where only what holds secrets or steers planloop counts, not what no bind can hold
    (`cannot_be_held_reason`: with `PYTHONPATH=$PWD`, every file of the workspace).
    """
    root = Path(workspace).resolve()
    given = Path(os.path.normpath(root / path))
    try:
        resolved = (root / path).resolve(strict=False)
    except (OSError, RuntimeError, ValueError):
        resolved = given
    home = planloop_home()
    # Only when planloop runs in the home folder or above it: then its start-up files are
    # inside the workspace, and a plain write there would run later, outside any sandbox.
    inside_homes = [Path(os.path.realpath(home)) for home in your_homes()]
    inside_homes = [home for home in inside_homes if home.is_relative_to(root)]
    links = home_links()  # one look at your home folder for both questions
    linked_here = home_links_into(root, links)
    workspace_linked = home_link_to_workspace(root, links) is not None
    on_path = path_folders_in(root)[0]
    # What any `.envrc` or repository in the workspace names, as the sandbox holds it for
    # commands: `sub/.envrc` may source `../common/env.sh`, a nested repository's hook may link
    # to a sibling folder, its config may name a program anywhere in the tree.
    scan = scan_for_file_tools(root)
    names = cd_hook_names()
    envrcs = [found for found in scan.env_files if found.name in names]
    git_entries = list(scan.git_entries)
    linked_hooks = [target for entry in git_entries for target in hook_links(entry)]
    held_links: list[tuple[Path, Path, str]] | None = None  # worked out when first needed
    named_only: str | None = None
    for candidate in (given, resolved):
        if candidate == home or candidate.is_relative_to(home):
            return HOME_REASON
        if any(_is_dot_entry_of(your_home, candidate) for your_home in inside_homes):
            return HOME_FILES_REASON
        if any(candidate == linked or candidate.is_relative_to(linked) for linked in linked_here):
            return HOME_FILES_REASON
        if workspace_linked and candidate.is_relative_to(root):
            return HOME_FILES_REASON
        if any(candidate.is_relative_to(folder) for folder in on_path):
            return PATH_REASON
        # your shell, direnv, a venv
        run_later = run_later_reason(root, candidate, envrcs, scan.venvs)
        if run_later in (PYTHON_PATH_REASON, VENV_PACKAGES_REASON) and not reading:
            # A folder of planloop's own import path is that first: planloop imports from it.
            run_later = cannot_be_held_reason(root, (given, resolved)) or run_later
        if run_later in NAMED_ONLY_REASONS:
            # Only named somewhere (your configuration, your environment, an .envrc): a reason
            # that says what runs it (git, python, a host tool) comes first, if there is one.
            named_only = named_only or run_later
        elif run_later:
            return run_later
        inside = candidate.relative_to(root) if candidate.is_relative_to(root) else candidate
        if GIT_DIR_NAME in inside.parts:
            return GIT_REASON
        if candidate.name.startswith(ENV_FILE_PREFIX):
            return ENV_REASON
        if OPTION_IN_NAME.search(candidate.name):
            return OPTION_NAME_REASON
        for parent, name in itertools.pairwise(("", *inside.parts)):
            if is_host_tool_config(name, parent):
                return host_tool_config_reason(name, parent)
        hooks, includes = git_paths_around(candidate.parent)
        if any(candidate == folder or candidate.is_relative_to(folder) for folder in hooks):
            return HOOKS_REASON
        if candidate in includes:
            return GIT_REASON
        for target in [*hook_links_around(candidate.parent), *linked_hooks]:
            if candidate == target or candidate.is_relative_to(os.path.realpath(target)):
                return HOOK_LINK_REASON
        if git_program := _git_program_reason(candidate, git_entries):
            return git_program
        settings = host_tool_settings(root, scan)
        if tool_script := _tool_script_reason(root, candidate, settings, scan.per_file_configs):
            return tool_script  # scripts/watch.sh, a folderOpen task of .vscode/tasks.json
        if started := python_start_reason(candidate, scan.package_roots):
            return started  # `_virtualenv.py`, which `_virtualenv.pth` imports
        if held_links is None:
            held = _held_folders(root, scan, envrcs, on_path, linked_here)
            held_links = held_links_with_reasons(root, held)
        if linked_from_held := held_link_reason(root, candidate, held_links):
            return linked_from_held
    if named_only:
        return named_only
    if reading:
        return None
    return (
        cannot_be_held_reason(root, (given, resolved))
        or config_too_big(root, scan)
        or _any_file_may_run(root, host_tool_settings(root, scan))
        or _any_file_git_may_run(root, git_entries)
        or _any_file_direnv_may_load(root, envrcs)
    )


def cannot_be_held_reason(
    root: Path, candidates: Iterable[Path], environ: Mapping[str, str] = os.environ
) -> str | None:
    """Why writing one of `candidates` (a path as given, and as resolved) must ask although it is
    held for commands by no read-only bind: because none can hold it, commands ask before they
    run (tools/sandbox.py `_cannot_confine`), and headless, where bash is then disabled, the file
    tools would otherwise be the model's unasked way in.

    A folder on your PATH that is missing or reached through a link, planloop's own code (its
    python and packages, the virtual environment it runs from) and its private folder protect
    what lies in them; a PATH entry or a path of CODE_VARIABLES that is relative, empty or the
    workspace itself names any folder your shell may be in, so it protects every file.
    """
    root = Path(os.path.realpath(root))
    inside = [candidate for candidate in candidates if candidate.is_relative_to(root)]
    if not inside:
        return None
    held_back = [
        *((folder, PATH_REASON) for folder in path_folders_not_held(root, environ)),
        *((path, PLANLOOP_CODE_REASON) for path in planloop_code_paths(root)),
    ]
    for path, why in held_back:
        if any(candidate == path or candidate.is_relative_to(path) for candidate in inside):
            return why
    if any(_in_private_folder(candidate) for candidate in inside):
        return PRIVATE_FOLDER_REASON
    return whole_workspace_reason(root, environ)


def path_folders_not_held(root: Path, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """Each folder of your PATH in the workspace, as named and as resolved: those
    `path_folders_in` holds, and those it cannot (missing, or reached through a link)."""
    found: list[Path] = []
    for entry in environ.get("PATH", os.defpath).split(os.pathsep):
        if os.path.isabs(entry):
            for version in (os.path.normpath(entry), os.path.realpath(entry)):
                if Path(version) != root and Path(version).is_relative_to(root):
                    found.append(Path(version))
    return list(dict.fromkeys(found))


def whole_workspace_reason(root: Path, environ: Mapping[str, str] = os.environ) -> str | None:
    """Why every file in the workspace is protected, or None: your PATH, or a variable of
    CODE_VARIABLES, names the workspace itself, or a relative or empty entry, which stands for
    whatever folder your shell is in when the program runs (any folder of the workspace)."""

    def named(entry: str) -> str | None:
        if not entry:
            return "an empty entry, which stands for the folder your shell is in"
        if not os.path.isabs(entry):
            return f"a relative path ({entry!r}), which is found from the folder your shell is in"
        if str(root) in (os.path.normpath(entry), os.path.realpath(entry)):
            return "the workspace itself"
        return None

    everywhere = "so every file in the workspace is protected"
    for entry in environ.get("PATH", os.defpath).split(os.pathsep):
        if said := named(entry):
            return f"your PATH names {said}, {everywhere}: {PATH_WHY}"
    for name, kind, why in CODE_VARIABLES:
        for entry in _named_by_variable(name, kind, environ.get(name, "")):
            if said := named(entry):
                return f"your {name} names {said}, {everywhere}: {why}"
    return None


# Resolved folders planloop's python imports from, for (current folder, len(sys.path),
# len(sys.modules)): "" on the path is the current folder, and a module imported since may come
# from a new folder.
_CODE_FOLDERS: list[tuple[tuple[str, int, int], list[str], list[str]]] = []


def _code_folders() -> tuple[list[str], list[str]]:
    """planloop's import path, and the folders its loaded modules came from; both resolved."""
    key = (os.getcwd(), len(sys.path), len(sys.modules))
    if not _CODE_FOLDERS or _CODE_FOLDERS[0][0] != key:
        entries = {key[0] if entry == "" else entry for entry in sys.path}
        modules = {
            os.path.dirname(origin)
            for module in list(sys.modules.values())
            if isinstance(origin := getattr(module, "__file__", None), str)
        }
        resolved = (sorted({os.path.realpath(p) for p in group}) for group in (entries, modules))
        _CODE_FOLDERS[:] = [(key, *resolved)]
    return _CODE_FOLDERS[0][1], _CODE_FOLDERS[0][2]


def planloop_code_paths(root: Path) -> list[Path]:
    """What of planloop's own code lies in the workspace `root`, for the file tools to protect.

    Its interpreter's prefixes (the virtual environment it runs from, a pyenv python) and
    site-packages folders, wholly; a virtual environment (a folder holding pyvenv.cfg) any of
    its modules or import path lies in, wholly; and for any other folder of its import path (an
    editable install's `src/`, the folder planloop's source is run from), the modules python
    imports at every start from there. planloop's own source outside a virtual environment is
    the project being worked on, not an installation: its files are written like any other.
    """
    whole = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix]
    whole += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE:
        whole.append(site.getusersitepackages())
    whole += [sys.executable, getattr(sys, "_base_executable", "") or sys.executable]
    entries, modules = _code_folders()
    found: list[Path] = []
    for path in whole:
        found += [Path(version) for version in (os.path.normpath(path), os.path.realpath(path))]
    for folder in (*entries, *modules):
        if not Path(folder).is_relative_to(root):
            continue
        venv = next(
            (
                above
                for above in (Path(folder), *Path(folder).parents)
                if above.is_relative_to(root) and os.path.lexists(above / "pyvenv.cfg")
            ),
            None,
        )
        if venv is not None:
            found.append(venv)
        elif folder in entries:
            for name in PYTHON_START_MODULES:
                found += [Path(folder, f"{name}.py"), Path(folder, name)]
    return [path for path in dict.fromkeys(found) if path.is_relative_to(root)]


def _in_private_folder(candidate: Path) -> bool:
    """Whether `candidate` lies in a private folder of planloop's (its own or another
    planloop's) in TMPDIR, where tools/sandbox.py keeps the sandbox's own files."""
    temporary = tempfile.gettempdir()
    for folder in dict.fromkeys((os.path.normpath(temporary), os.path.realpath(temporary))):
        if candidate.is_relative_to(folder):
            parts = candidate.relative_to(folder).parts
            if parts and parts[0].startswith(PRIVATE_FOLDER_PREFIX):
                return True
    return False


def _held_folders(
    root: Path,
    scan: WorkspaceScan,
    envrcs: list[Path],
    on_path: list[Path],
    linked_here: list[Path],
) -> list[tuple[Path, str]]:
    """The folders the file tools protect (and the sandbox holds) whose links lead on, each with
    why it is protected: PATH folders, host tools' configuration, hooks folders, what runs later
    (a virtualenv's bin/, a folder your environment names) and your dot files kept here."""
    folders = [(folder, PATH_REASON) for folder in [*on_path, *path_entries()]]
    for config in scan.tool_configs:
        folders.append((config, host_tool_config_reason(config.name, config.parent.name)))
    hooks = git_paths_around(root)[0]
    hooks += [hook for entry in scan.git_entries for hook in git_config_paths(entry)[0]]
    folders += [(folder, HOOKS_REASON) for folder in hooks]
    folders += [(path, why) for path, why in run_later(root, envrcs)]
    folders += [(folder, HOME_FILES_REASON) for folder in linked_here]
    return [(folder, why) for folder, why in folders if os.path.isdir(folder)]


def _any_file_git_may_run(root: Path, git_entries: list[Path]) -> str | None:
    # (imported here: tools/git_programs.py imports this module)
    from tools.git_programs import any_file_git_may_run
    from tools.tool_scripts import ANY_FILE_MAY_RUN

    reason = any_file_git_may_run(root, git_entries)
    return f"{reason}, {ANY_FILE_MAY_RUN}" if reason else None


def _any_file_direnv_may_load(root: Path, envrcs: list[Path]) -> str | None:
    """An `.envrc` loads, or puts on PATH, what only its shell can tell (tools/shell_config.py
    `envrc_untold`), or a file of the workspace your shell sources sources such a file
    (`untold_by_your_shell`): any file may be it, as for commands, which ask."""
    from tools.tool_scripts import ANY_FILE_MAY_RUN

    reason = untold_by_envrcs(root, envrcs) or untold_by_your_shell(root)
    return f"{reason}, {ANY_FILE_MAY_RUN}" if reason else None


def _any_file_may_run(root: Path, tool_configs: list[Path]) -> str | None:
    """tools/tool_scripts.py's answer: settings whose runs planloop cannot tell (a node hook)."""
    from tools.tool_scripts import any_file_may_run

    return any_file_may_run(root, tool_configs)


def _tool_script_reason(
    root: Path, candidate: Path, tool_configs: list[Path], per_file_configs: list[Path]
) -> str | None:
    """tools/tool_scripts.py's answer: a script a host tool's settings run (a folderOpen task,
    an MCP server, an agent's hook). Imported here, late: that module reads with this one."""
    from tools.tool_scripts import tool_script_reason

    return tool_script_reason(root, candidate, tool_configs, per_file_configs)


def _git_program_reason(candidate: Path, git_entries: list[Path]) -> str | None:
    """tools/git_programs.py's answer: a program git runs by its path (core.pager,
    core.fsmonitor, ...). Imported here, late: that module reads configs with this one's parser."""
    from tools.git_programs import git_program_reason

    return git_program_reason(candidate, git_entries)


# The file tools' scans, one folder-listing cache per workspace (see `scan_workspace`): after
# the first, a scan lists again only the folders that changed.
_FILE_TOOL_SCAN_CACHES: dict[str, dict[str, FolderListing]] = {}


# The workspace's real path by the path it was given as, with the identity of the folder there
# when planloop first looked (`real_workspace`).
_REAL_WORKSPACES: dict[str, tuple[Path, tuple[int, int]]] = {}


class WorkspaceMoved(ToolError):
    """The workspace's path leads to another folder than the one planloop started in."""


def real_workspace(workspace: Path | str) -> Path:
    """The workspace's real path (every link above it resolved). The file tools ask for it
    several times a call, and resolving looks at each folder above it; it is worked out again
    only when the folder found there (by the path given, and at the real path without
    following a link) is no longer the same one: a folder above it renamed or made a link.

    The folder itself must stay the one first found there (planloop pins it at start): a
    session in a folder inside another's workspace has its folder in reach of the other's
    commands, which may move it and put a link to anywhere in its place. WorkspaceMoved then,
    and nothing is read, written or run there."""
    given = os.fspath(workspace)
    known = _REAL_WORKSPACES.get(given)
    if known is not None:
        real, identity = known
        try:
            here = os.lstat(real)
            # Given as its real path (the usual case), that one look is both.
            there = here if given == str(real) else os.stat(given)
        except OSError:
            there = here = None
        if there is not None and (there.st_dev, there.st_ino) == identity == (
            here.st_dev,
            here.st_ino,
        ):
            return real
    real = Path(os.path.realpath(given))
    try:
        info = os.stat(given)
    except OSError:
        return real
    if known is not None and (info.st_dev, info.st_ino) != known[1]:
        raise _moved(given, real)
    _REAL_WORKSPACES[given] = (real, (info.st_dev, info.st_ino))
    return real


def _moved(given: str, real: Path) -> WorkspaceMoved:
    return WorkspaceMoved(
        f"the workspace {given} is no longer the folder planloop started in: it was moved or "
        f"replaced (it now leads to {real}), so nothing is read, written or run there. Start "
        "planloop again in the folder you mean."
    )


def open_workspace(workspace: Path | str) -> int:
    """The workspace folder, opened (O_DIRECTORY, no final link followed) and checked to be the
    one `real_workspace` pinned: a command started in it through this descriptor starts
    there, whatever its path leads to by the time of the fork. WorkspaceMoved if it is not."""
    root = real_workspace(workspace)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    info = os.fstat(fd)
    pinned = _REAL_WORKSPACES.get(os.fspath(workspace))
    if pinned is not None and (info.st_dev, info.st_ino) != pinned[1]:
        os.close(fd)
        raise _moved(os.fspath(workspace), Path(os.path.realpath(root)))  # (just now)
    return fd


def workspace_identity(workspace: Path | str) -> str:
    """`=DEV:INO` of the folder `real_workspace` pinned, for the sandbox's Landlock step to
    check the folder it opens by path against (tools/landlock.py). WorkspaceMoved if another
    folder is there now."""
    fd = open_workspace(workspace)
    try:
        info = os.fstat(fd)
    finally:
        os.close(fd)
    return f"={info.st_dev}:{info.st_ino}"


def pin_workspace(workspace: Path) -> None:
    """Take the folder at `workspace` now as the workspace: from then on, the file tools and
    the sandbox refuse to work in another folder found at that path (`real_workspace`)."""
    real_workspace(workspace)


def scan_for_file_tools(root: Path) -> WorkspaceScan:
    """A scan of the workspace `root` for the file tools' questions (see `protected_reason`)."""
    cache = _FILE_TOOL_SCAN_CACHES.setdefault(str(root), {})
    return scan_workspace(root, cache=cache)


def is_host_tool_config(name: str, parent: str = "") -> bool:
    """Whether the entry `name`, in a folder named `parent`, is one a host tool acts on by itself
    (HOST_TOOL_CONFIG, mise's files, a VS Code workspace file)."""
    if name in HOST_TOOL_CONFIG or MISE_FILE.fullmatch(name):
        return True
    for suffix in (CODE_WORKSPACE_SUFFIX, RUN_CONFIGURATION_SUFFIX):
        if name.endswith(suffix) and len(name) > len(suffix):
            return True
    if f"{parent}/{name}" in HOST_TOOL_CONFIG:  # `.github/hooks`
        return True
    return parent == MISE_FOLDER and MISE_FOLDER_ENTRY.fullmatch(name) is not None


def host_tool_config_reason(name: str, parent: str = "") -> str:
    """Why the host tool's configuration `name` (in a folder named `parent`) is protected."""
    if name in HOST_TOOL_CONFIG:
        return f"{name} is protected: {HOST_TOOL_CONFIG[name]}"
    if name.endswith(CODE_WORKSPACE_SUFFIX):
        return f"{name} is protected: {CODE_WORKSPACE_REASON}"
    if name.endswith(RUN_CONFIGURATION_SUFFIX):
        return f"{name} is protected: {RUN_CONFIGURATION_REASON}"
    nested = f"{parent}/{name}"
    if nested in HOST_TOOL_CONFIG:
        return f"{nested} is protected: {HOST_TOOL_CONFIG[nested]}"
    shown = nested if parent == MISE_FOLDER else name
    return f"{shown} is protected: {MISE_REASON}"


def home_links() -> list[tuple[Path, Path]]:
    """(link, where it leads, resolved) for each link among your home's dot files,
    `~/.config`'s and `~/.local/bin`'s entries (GNU stow and the like: `~/.gitconfig ->
    ~/dotfiles/git/.gitconfig`), and for $XDG_CONFIG_HOME and $GIT_CONFIG_GLOBAL when set;
    and deeper inside the dot folders (`deep_home_links`), where stow links file by file into
    a folder that is there already (`~/.config/git/config`, `~/.ssh/config`). Of the home
    your account has too, when a run's HOME points elsewhere (`account_home`): your git and
    shell read theirs from there in every other terminal."""
    homes = your_homes()
    found = [link for home in homes for link in _dot_file_links(home)]
    for variable in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"):
        if os.environ.get(variable, "").startswith("/"):
            found.append((Path(os.environ[variable]), Path(os.path.realpath(os.environ[variable]))))
    return found


def _dot_file_links(home: Path) -> list[tuple[Path, Path]]:
    found: list[tuple[Path, Path]] = list(deep_home_links(str(home)))
    # ~/.local/bin too: it is on most PATHs, and stow links programs kept in a dotfiles
    # repository there (`~/.local/bin/tool -> ../../dotfiles/bin/tool`); so is the folder itself.
    local_bin = home / ".local" / "bin"
    if os.path.islink(local_bin):  # False where it cannot be looked at, as for another user
        found.append((local_bin, Path(os.path.realpath(local_bin))))
    folders = ((home, True), (home / ".config", False), (local_bin, False))
    for folder, dot_files_only in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_symlink() and (entry.name.startswith(".") or not dot_files_only):
                        found.append((Path(entry.path), Path(os.path.realpath(entry.path))))
        except OSError:
            continue  # no such folder, or not readable: nothing of it to protect
    return found


# How far into your home's dot folders links are looked for: stow's sit a few levels down in
# folders of settings (`~/.ipython/profile_default/startup/x.py`), and caches and package
# stores are skipped, which hold tens of thousands of entries and no settings.
DEEP_LINK_DEPTH = 5
DEEP_LINK_ENTRIES = 20_000
NOT_SETTINGS = frozenset(("node_modules", ".git", "__pycache__", "site-packages"))
NOT_SETTINGS_IN_HOME = frozenset(
    (".cache", ".npm", ".rustup", ".cargo/registry", ".cargo/git", ".pyenv/versions")
    + (".nvm/versions", ".m2/repository", ".gradle/caches", ".gradle/wrapper", ".mozilla")
    + (".local/share/Trash", ".local/share/Steam", ".local/lib", ".vscode/extensions")
    + (".vscode-server", ".var", ".local/share/containers", ".local/share/docker")
)
# The last walk, with the folders it listed and when each last changed: walked again only when
# one changed (your home is read-only to sandboxed commands, so it changes rarely).
_DEEP_LINKS: dict[str, tuple[list[tuple[Path, Path]], dict[str, int]]] = {}


def deep_home_links(home: str) -> list[tuple[Path, Path]]:
    """(link, where it leads, resolved) for each link below the first level of your home's dot
    folders (a dot folder itself, and `~/.config`'s entries, `home_links` reads), to
    DEEP_LINK_DEPTH levels and DEEP_LINK_ENTRIES entries; past those, deeper links are not
    found. Caches and package stores (NOT_SETTINGS_IN_HOME) are skipped."""
    if (kept := _DEEP_LINKS.get(home)) is not None:
        links, listed = kept
        try:
            if all(os.stat(folder).st_mtime_ns == changed for folder, changed in listed.items()):
                return links
        except OSError:
            pass  # (one is gone: walk again)
    links, listed, seen = [], {}, 0
    try:
        with os.scandir(home) as entries:
            pending = [
                (entry.path, 1)
                for entry in entries
                if entry.name.startswith(".") and entry.is_dir(follow_symlinks=False)
            ]
    except OSError:
        pending = []
    while pending and seen < DEEP_LINK_ENTRIES:
        folder, depth = pending.pop()
        if os.path.relpath(folder, home) in NOT_SETTINGS_IN_HOME:
            continue
        try:
            listed[folder] = os.stat(folder).st_mtime_ns
            with os.scandir(folder) as entries:
                for entry in itertools.islice(entries, DEEP_LINK_ENTRIES - seen):
                    seen += 1
                    deep = depth > 1 or not folder.endswith(f"{os.sep}.config")
                    if entry.is_symlink() and deep:  # (~/.config's own: home_links)
                        links.append((Path(entry.path), Path(os.path.realpath(entry.path))))
                    elif (
                        depth < DEEP_LINK_DEPTH
                        and entry.name not in NOT_SETTINGS
                        and entry.is_dir(follow_symlinks=False)
                    ):
                        pending.append((entry.path, depth + 1))
        except OSError:
            continue  # not readable: nothing of it to protect
    _DEEP_LINKS[home] = (links, listed)
    return links


def home_links_into(root: Path, links: list[tuple[Path, Path]] | None = None) -> list[Path]:
    """The files and folders inside `root` that your shell and git read as your own settings
    (`home_links`): a command that edited them would have git and every new shell run its code
    outside the sandbox. The workspace itself is left to `home_link_to_workspace`: a bind of the
    whole workspace is no sandbox."""
    root = Path(os.path.realpath(root))
    targets = (real for _, real in (home_links() if links is None else links))
    return list(
        dict.fromkeys(real for real in targets if real != root and real.is_relative_to(root))
    )


def home_link_to_workspace(root: Path, links: list[tuple[Path, Path]] | None = None) -> str | None:
    """The home entry that links to the workspace itself or to a folder holding it, if any.

    Run in a dotfiles folder that `~/.config/nvim` (or all of `~/.config`) links to, every file
    of the workspace is one your editor or shell reads as its own: no part can be kept
    read-only, so commands must ask.
    """
    root = Path(os.path.realpath(root))
    links = home_links() if links is None else links
    return next((str(link) for link, real in links if root.is_relative_to(real)), None)


def links_on_the_way(path: Path, limit: int = 40) -> list[Path]:
    """Every link met while resolving `path`, in order, each named by its real folder.

    `~/.gitconfig -> dotfiles/cur/gitconfig` with `dotfiles/cur -> v2` meets two: the home
    entry, then `dotfiles/cur`. (At most `limit` links, like the kernel's own limit.)
    """
    met: list[Path] = []
    current = Path("/")
    pending = list(Path(os.path.abspath(path)).parts[1:])
    while pending and len(met) < limit:
        name = pending.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            current = current.parent  # `current` is real: this is the kernel's `..`
            continue
        step = current / name
        try:
            target = os.readlink(step)
        except OSError:
            current = step  # not a link (or missing): taken as it is
            continue
        met.append(step)
        if os.path.isabs(target):
            current = Path("/")
        pending = list(Path(target).parts[1 if os.path.isabs(target) else 0 :]) + pending
    return met


def _named(root: Path, path: Path) -> str:
    """`path` relative to `root`, on one line (a name a command chose may hold line breaks)."""
    return str(path.relative_to(root)).replace("\r", "\\r").replace("\n", "\\n")


def home_link_not_held(root: Path, links: list[tuple[Path, Path]] | None = None) -> str | None:
    """Why a home entry that leads into the workspace (`home_links`) cannot be held, or None.

    Its resolved target is bound read-only (`home_links_into`), but two things no bind holds:
    a link on the way that lies in the workspace (`dotfiles/cur -> v2`), which a command can
    point elsewhere so that `~/.gitconfig` leads to a file of its making; and a target that
    does not exist yet, which a command can create. Binding the folder that holds such a link
    read-only instead would often mean the workspace itself (stow's folders sit at its top),
    and would keep unrelated files from being edited; so commands ask, as for git's hooks.
    """
    root = Path(os.path.realpath(root))
    for link, real in home_links() if links is None else links:
        for step in links_on_the_way(link):
            if step.is_relative_to(root):
                return (
                    f"{link} leads into the workspace through the link {_named(root, step)}, "
                    "which a command could point elsewhere (no read-only bind holds a link)"
                )
        if real != root and real.is_relative_to(root) and not os.path.lexists(real):
            return (
                f"{link} links to {_named(root, real)} in the workspace, which does not exist: "
                "a command could create it, and your shell or git would read it as your own "
                "(create it, or remove the link)"
            )
    return None


def path_link_not_held(root: Path) -> str | None:
    """A folder on your PATH reached through a link that lies in the workspace, or None.

    `~/bin -> ~/proj/tools`, `tools -> /usr/local/bin`: the folder is outside and read-only,
    but a command can point the link `tools` at a folder of its own, whose programs then run
    when you type their names. (`path_folders_in` covers a folder that resolves inside.)
    """
    root = Path(os.path.realpath(root))
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not os.path.isabs(entry):
            continue  # `path_folders_in` makes commands ask for these
        for step in links_on_the_way(Path(entry)):
            if step.is_relative_to(root):
                return (
                    f"{entry}, on your PATH, is reached through the link {_named(root, step)} "
                    "in the workspace, which a command could point elsewhere"
                )
    return None


def home_file_hard_linked(root: Path) -> str | None:
    """A dot file of your home (or your git config) with a second name that may lie in the
    workspace, or None.

    `ln ~/dotfiles/gitconfig ~/.gitconfig` makes one file of the two: written in place in the
    workspace, it is your own config. Where the other name is cannot be known without a search
    of the workspace, so one on the workspace's file system is enough to make commands ask.
    """
    try:
        device = os.stat(root).st_dev
    except OSError:
        return None
    homes = your_homes()
    files = [path for path in your_git_configs() if any(map(path.is_relative_to, homes))]
    for home in homes:
        with contextlib.suppress(OSError), os.scandir(home) as entries:
            files += [Path(entry.path) for entry in entries if entry.name.startswith(".")]
    for path in files:
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1 and info.st_dev == device:
            return (
                f"{path} has {info.st_nlink} names (hard links), and one may lie in the "
                "workspace, where a command could rewrite it; make it a copy or a symbolic link"
            )
    return None


def package_roots_in(folder: str, kinds: dict[str, bool]) -> list[Path]:
    """The folders of installed packages that `folder`'s entries (`kinds`: name -> is a folder)
    show it holds: its `site-packages` (a virtual environment's, conda's, any Python's), its
    `dist-packages` (Debian's and Ubuntu's python, and virtualenvs made from it, add them to
    the path) and its `node_modules` (not one nested in another `node_modules`); and `folder`
    itself when it is a conda environment (a `conda-meta` folder: conda's, mamba's, pixi's
    `.pixi/envs/default`), whose every file, its python and standard library too, is installed
    like a package. All, when all are there: a command could otherwise add one to make the scan
    pass over another.

    One that is a link counts too (python and node follow it): where it leads is looked at by
    each scan (`scan_workspace`), since the link's target can change while this folder's
    listing is reused.
    """
    found = []
    for name in (*SITE_FOLDER_NAMES, "node_modules"):
        if name == "node_modules" and "node_modules" in Path(folder).parts:
            continue
        if kinds.get(name) is True or (
            kinds.get(name) is False and os.path.islink(os.path.join(folder, name))
        ):
            found.append(Path(folder) / name)
    if kinds.get(CONDA_META) is True:
        found.append(Path(folder))
    return found


def linked_outside(scan: WorkspaceScan) -> list[Path]:
    """The files of the workspace that have a name the scan did not find among them: a hard
    link outside it (`ln ~/.config/nvim/init.lua dotfiles/`, a package cache's), or in a part
    the scan could not reach. Each name of such a file found in the workspace is listed."""
    names: dict[tuple[int, int], list[Path]] = {}
    for path, (device, inode, _) in scan.linked.items():
        names.setdefault((device, inode), []).append(path)
    return sorted(
        path
        for path, (device, inode, count) in scan.linked.items()
        if count > len(names[(device, inode)])
    )


def package_root_inside(root: Path, package_root: Path) -> bool:
    """Whether a package folder (`package_roots_in`) is one a command could fill: a folder, or a
    link to a folder, inside the workspace `root`. One that leads outside is read-only there."""
    if not os.path.islink(package_root):
        return True
    real = Path(os.path.realpath(package_root))
    return real.is_relative_to(root) and os.path.isdir(real)


def _is_dot_entry_of(folder: Path, path: Path) -> bool:
    """Whether `path` is, or lies under, a dot file or dot folder directly in `folder`."""
    if path == folder or not path.is_relative_to(folder):
        return False
    return path.relative_to(folder).parts[0].startswith(".")


# The sandbox scans the whole workspace before and after each command. Nothing inside the
# workspace can make the scan skip a folder; a workspace too large to scan within these limits
# is scanned no further, and its commands ask first (tools/sandbox.py).
SCAN_ENTRY_LIMIT = 500_000
SCAN_SECONDS_LIMIT = 3.0
SCAN_WAIT_FACTOR = 4  # (of the limit, on the wall clock: folders slow to answer)
# The most virtualenvs (folders holding a pyvenv.cfg) the scan holds: a monorepo has a few
# dozen at most.
MAX_VENVS = 200


@dataclass
class WorkspaceScan:
    """What one scan found: every `.env*` file and every `.git` entry, and whether it finished.

    `git_entries` maps each `.git` (folder, `gitdir:` file or link), and each folder that is a
    git directory by its content whatever its name (see `looks_like_git_dir`), to its (device,
    inode), so a `.git` that a command replaced is told from the one that was there.
    `confinement_lost` is set by the sandbox (tools/sandbox.py) when this very scan found that
    it can no longer keep its promise: the command waiting for it must not run unasked.
    """

    env_files: list[Path] = field(default_factory=list)
    # Files of other names that may hold keys (see ENV_FILE_SUFFIX): hidden from commands when
    # they hold planloop's key, and not otherwise held.
    key_files: list[Path] = field(default_factory=list)
    # The identity (see `link_identity`) of each `.env*` and host tool's configuration that is
    # a link: no bind can hold a link (the bind lands on its target), so a command may replace
    # it, which is then reported.
    protected_links: dict[Path, tuple[int, int, int]] = field(default_factory=dict)
    tool_configs: list[Path] = field(default_factory=list)  # see HOST_TOOL_CONFIG
    # The files named as a linter or formatter's config beside the files it checks
    # (tools/per_file_configs.py): held where a host tool runs that tool.
    per_file_configs: list[Path] = field(default_factory=list)
    # Each file or folder whose name is or holds an option (OPTION_NAME_REASON): told when
    # made; while one is there, sandboxed commands ask.
    option_named: list[Path] = field(default_factory=list)
    git_entries: dict[Path, tuple[int, int]] = field(default_factory=dict)
    # Each folder holding a pyvenv.cfg, at any depth: a virtualenv, whose bin/ editors and
    # shells run (tools/shell_config.py `venv_bins`). Or a bin/activate without one: what
    # oh-my-zsh's python plugin and prompt snippets source on `cd` (`venv/bin/activate`). Or a
    # conda environment (its conda-meta), whose activate.d `conda activate` runs.
    venvs: list[Path] = field(default_factory=list)
    closed_folders: list[Path] = field(default_factory=list)  # not readable: see list_folder
    # site-packages and node_modules folders (`package_roots_in`): their files may be hard
    # links to a package cache outside the workspace (tools/sandbox.py).
    package_roots: list[Path] = field(default_factory=list)
    # Those of them that are links (to a folder in the workspace or not): one that a command
    # makes where the folder was, or anew, is reported.
    package_links: set[Path] = field(default_factory=set)
    # Each file with more than one name (a hard link), with its device, inode and number of
    # names when its folder was listed: one with names the scan did not find has one outside
    # the workspace, which a command writing it in place would change (`linked_outside`).
    linked: dict[Path, tuple[int, int, int]] = field(default_factory=dict)
    # Python's start-up files in those site-packages folders, filled by the sandbox around each
    # command (tools/shell_config.py `python_start_files`), to report a new or changed one.
    python_start: dict[Path, tuple[int, int, int]] = field(default_factory=dict)
    # What runs later (tools/shell_config.py `run_later`): each path, why, and its identity
    # (None while missing), filled by the sandbox before each command to report what the
    # command added to it or changed (tools/sandbox.py `run_later_state`).
    run_later: dict[Path, tuple[str, tuple[int, int, int] | None]] | None = None
    # What runs later only if it exists (tools/shell_config.py `held_when_there`): the device
    # and inode of each, or None, filled by the sandbox to report one a command made.
    held_when_there: dict[Path, tuple[int, int] | None] = field(default_factory=dict)
    # The links in the folders held read-only, filled by the sandbox before each command
    # (`held_folder_links`): what they lead to is held too.
    held_links: list[tuple[Path, Path, Path]] | None = None
    # The hooks git runs (`git_hook_files`), listed once per scan: a command is made ready by
    # several looks that each ask (`host_tool_settings`).
    hook_files: list[Path] | None = None
    held_folders: list[Path] = field(default_factory=list)
    # What sandboxed commands find read-only (tools/sandbox.py `read_only_candidates`), worked
    # out once per scan: the check before a command and the sandbox made for it both ask.
    read_only: list[Path] | None = None
    # Of `linked`, the files held one by one (tools/sandbox.py `files_linked_outside`), worked
    # out once per scan: the list of what is held, the check's bound and the notes all ask.
    linked_held: list[Path] | None = None
    incomplete: str | None = None  # why the scan stopped early, if it did
    confinement_lost: str | None = None


def link_identity(info: os.stat_result) -> tuple[int, int, int]:
    """Device, inode and change time: a file made in place of a removed one may get the same
    inode number at once, but never the old change time."""
    return (info.st_dev, info.st_ino, info.st_ctime_ns)


def looks_like_git_dir(kinds: dict[str, bool]) -> bool:
    """Whether a folder whose entries are `kinds` (name -> is a folder) is a git directory.

    Git judges a folder by what it holds, not by its name: with a `HEAD` that is not a folder
    (a file, or a link) and an `objects` and a `refs` (or a `commondir` file naming where those
    are), git run in that folder or below it uses it as the repository, and obeys its `config`
    (core.pager, core.fsmonitor, hooks). `git init --bare .` makes one from any folder.
    Git asks no more of `objects` and `refs` than that they can be entered (access X_OK): a
    link to a folder passes, and so does an executable file. So here any entry of those names
    counts, whatever it is; a test narrower than git's would miss a repository git uses.
    """
    if kinds.get("HEAD") is not False:  # missing, or a folder
        return False
    return ("objects" in kinds and "refs" in kinds) or "commondir" in kinds


# A folder's listing is reused from the last scan while its change time (ctime) stays the same:
# any entry made, removed or renamed in it sets ctime to the current time, and unlike mtime no
# command can set ctime back. A listing made less than this long after the folder's last change
# is not reused, since a change in the same clock tick would leave ctime as it was.
CTIME_TRUST_MARGIN_NS = 2_000_000_000


@dataclass
class FolderListing:
    """What one folder held when it was last listed, and whether that listing can be reused."""

    identity: tuple[int, int, int]  # device, inode, ctime in ns
    reusable: bool
    entries: int
    subfolders: list[str]
    env_files: list[Path]
    git_entries: dict[Path, tuple[int, int]]
    tool_configs: list[Path] = field(default_factory=list)
    per_file_configs: list[Path] = field(default_factory=list)  # see WorkspaceScan
    option_named: list[Path] = field(default_factory=list)  # see WorkspaceScan
    venv: bool = False  # it holds a pyvenv.cfg (see `WorkspaceScan.venvs`)
    activate: bool = False  # it is a `bin` holding an `activate` (see `WorkspaceScan.venvs`)
    protected_links: dict[Path, tuple[int, int, int]] = field(default_factory=dict)
    closed: bool = False  # planloop may not list or enter it (see `list_folder`)
    package_roots: list[Path] = field(default_factory=list)  # see `package_roots_in`
    key_files: list[Path] = field(default_factory=list)  # see `WorkspaceScan.key_files`
    linked: dict[Path, tuple[int, int, int]] = field(default_factory=dict)  # see `WorkspaceScan`
    stopped: str | None = None  # why the listing stopped before its end (see `list_folder`)


def _note_if_linked(listing: FolderListing, entry: os.DirEntry) -> None:
    """Note `entry` in `listing.linked` when it is a file with more than one name."""
    try:  # (not contextlib.suppress: this runs for every file of the workspace)
        if entry.is_file(follow_symlinks=False):
            info = entry.stat(follow_symlinks=False)
            if info.st_nlink > 1:
                listing.linked[Path(entry.path)] = (info.st_dev, info.st_ino, info.st_nlink)
    except OSError:
        pass  # gone since the listing: nothing of it to hold


def list_folder(
    folder: str,
    info: os.stat_result,
    env_folder: bool = False,
    stop: Callable[[int], str | None] = lambda _: None,
) -> FolderListing:
    """List one folder: its subfolders (links not followed), `.env*` files and `.git` entries,
    and the other files that may hold keys (`key_files`: `docker.env`, and in an `env_folder`,
    see `in_env_folder`, every plain file).

    A folder this process may not read or enter is `closed`: what is in it cannot be known.
    Its owner (any command) can `chmod 000` it just to hide an existing `.env` or `.git` from
    the scan, and open it again in the next command; so the sandbox binds a closed folder
    read-only as a whole, which also keeps its mode as it is.

    `stop` is asked every LISTING_PIECE entries, with how many so far: a folder of half a
    million files takes seconds to list, and the scan's bounds (and a SIGTERM) are served
    between two pieces, not at its end. Its reason ends the listing (`stopped`).
    """
    identity = (info.st_dev, info.st_ino, info.st_ctime_ns)
    reusable = time.time_ns() - info.st_ctime_ns > CTIME_TRUST_MARGIN_NS
    listing = FolderListing(identity, reusable, 0, [], [], {})
    if not os.access(folder, os.R_OK | os.X_OK):
        listing.reusable = False  # look again next time: it may be opened
        listing.closed = True
        return listing
    try:
        children = []
        with os.scandir(folder) as entries:
            for entry in entries:
                children.append(entry)
                if len(children) % LISTING_PIECE == 0 and (why := stop(len(children))):
                    listing.reusable, listing.stopped = False, why
                    return listing
    except OSError:
        listing.reusable = False  # gone: look again next time
        return listing
    listing.entries = len(children)
    kinds = {}
    for entry in children:
        with contextlib.suppress(OSError):
            kinds[entry.name] = entry.is_dir(follow_symlinks=False)
    listing.package_roots = package_roots_in(folder, kinds)
    if looks_like_git_dir(kinds):
        # A repository by content (a bare one): protected and reported like a `.git`. Its
        # folders are still searched, like any other: nothing hides from the scan in there.
        listing.git_entries[Path(folder)] = (info.st_dev, info.st_ino)
    # Any entry of that name, as for `.git`: a link or a folder there is still what the
    # file tools and the sandbox must hold (python reads it as long as it can open it).
    listing.venv = VENV_CONFIG_NAME in kinds or kinds.get(CONDA_META) is True
    listing.activate = os.path.basename(folder) == "bin" and VENV_ACTIVATE in kinds
    for entry in children:
        _note_if_linked(listing, entry)
        if entry.name in PER_FILE_CONFIG_NAMES:  # (in node_modules too: see PASS_PACKAGES_BY)
            listing.per_file_configs.append(Path(entry.path))
        if OPTION_IN_NAME.search(entry.name):
            listing.option_named.append(Path(entry.path))
        if entry.name == GIT_DIR_NAME:
            with contextlib.suppress(OSError):
                git_info = entry.stat(follow_symlinks=False)
                listing.git_entries[Path(entry.path)] = (git_info.st_dev, git_info.st_ino)
        elif entry.name.startswith(ENV_FILE_PREFIX) and not entry.is_dir(follow_symlinks=False):
            listing.env_files.append(Path(entry.path))
            with contextlib.suppress(OSError):
                if entry.is_symlink():
                    env_info = entry.stat(follow_symlinks=False)
                    listing.protected_links[Path(entry.path)] = link_identity(env_info)
        elif is_host_tool_config(entry.name, os.path.basename(folder)):
            # Bound read-only as a whole; still searched below, like any folder.
            listing.tool_configs.append(Path(entry.path))
            with contextlib.suppress(OSError):
                if entry.is_symlink():
                    config_info = entry.stat(follow_symlinks=False)
                    listing.protected_links[Path(entry.path)] = link_identity(config_info)
            if entry.is_dir(follow_symlinks=False):
                listing.subfolders.append(entry.path)
        elif entry.is_dir(follow_symlinks=False):
            listing.subfolders.append(entry.path)
        elif entry.is_symlink() and _leads_to_a_virtualenv(entry.path):
            # `.venv -> envs/py311`: the virtualenv is held where it lies, but the name the
            # tools run (`.venv/bin/python`) is this link, which no bind holds.
            with contextlib.suppress(OSError):
                venv_link = entry.stat(follow_symlinks=False)
                listing.protected_links[Path(entry.path)] = link_identity(venv_link)
        elif (is_env_name(entry.name) and entry.is_file()) or (
            # Only a `.env*` folder's plain files: a virtualenv named `.env` holds links
            # (bin/python, lib64) that lead out of it, or to its own packages.
            env_folder and entry.is_file(follow_symlinks=False)
        ):
            listing.key_files.append(Path(entry.path))
    return listing


# Said of a link to a virtualenv that a command replaced: what it leads to now may be no
# virtualenv, and so protected by nothing else.
VENV_LINK_REASON = (
    "it led to a virtualenv, and your shell, editor and scripts run that virtualenv by this "
    "name (`.venv/bin/python`) outside the sandbox"
)


def _leads_to_a_virtualenv(link: str) -> bool:
    """Whether the link `link` leads to a folder holding a pyvenv.cfg or a conda-meta."""
    return os.path.isfile(os.path.join(link, VENV_CONFIG_NAME)) or os.path.isdir(
        os.path.join(link, CONDA_META)
    )


LISTING_PIECE = 4096  # entries of one folder listed between two looks at `stop`


def scan_workspace(
    workspace: Path,
    entry_limit: int = SCAN_ENTRY_LIMIT,
    seconds_limit: float = SCAN_SECONDS_LIMIT,
    cache: dict[str, FolderListing] | None = None,
) -> WorkspaceScan:
    """Walk the whole workspace, links not followed, and list its `.env*` and `.git`.

    No folder is skipped by name or content (a virtualenv or node_modules is searched like any
    other), because a command could otherwise hide a file from the scan by making a folder look
    skippable. Only the insides of `.git` are not searched: they are protected as a whole.
    With `cache` (kept by the caller between scans), a folder whose ctime has not changed is
    not listed again; see CTIME_TRUST_MARGIN_NS.
    """
    root = real_workspace(workspace)
    scan = WorkspaceScan()
    # The bound is on the scan's own work (this thread's CPU time), which a busy machine does
    # not stretch; a folder that answers slowly (a network file system) has the wall clock's.
    deadline = time.thread_time() + seconds_limit
    wall_deadline = time.monotonic() + seconds_limit * SCAN_WAIT_FACTOR
    entries_seen = 0
    signals = SignalCheck()
    too_large = (
        f"the workspace is too large to scan for protected files (more than "
        f"{{:,}} entries, or over {seconds_limit:g} s)"
    )

    def stop(listed_here: int) -> str | None:
        if why := signals.stop_why():
            return f"the scan stopped: {why}"
        late = time.thread_time() > deadline or time.monotonic() > wall_deadline
        if entries_seen + listed_here > entry_limit or late:
            return too_large.format(entries_seen + listed_here)
        return None

    folders = [str(root)]
    listed = 0
    while folders:
        folder = folders.pop()
        listed += 1
        if listed % FOLDERS_BETWEEN == 0:
            keep_queues_short()  # each listing queues events on a running task's watch
        try:
            info = os.stat(folder, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            continue  # gone since its parent was listed
        except OSError as err:
            # A path too long to name (a command nested folders past PATH_MAX): what is in
            # there cannot be known, nor bound read-only, so the scan is not complete.
            scan.incomplete = f"a folder in the workspace cannot be scanned ({err.strerror})"
            break
        if not stat.S_ISDIR(info.st_mode):
            continue  # replaced by a link or a file since its parent was listed
        cached = cache.get(folder) if cache is not None else None
        identity = (info.st_dev, info.st_ino, info.st_ctime_ns)
        if cached is not None and cached.reusable and cached.identity == identity:
            listing = cached
        else:
            parts = Path(folder).relative_to(root).parts
            listing = list_folder(folder, info, in_env_folder(parts), stop)
            if listing.stopped:
                scan.incomplete = listing.stopped
                break
            if cache is not None:
                cache[folder] = listing
        if listing.closed and folder == str(root):
            scan.incomplete = "the workspace folder itself cannot be read"
            break
        if listing.closed:
            scan.closed_folders.append(Path(folder))
        entries_seen += listing.entries
        scan.env_files += listing.env_files
        scan.key_files += listing.key_files
        scan.protected_links.update(listing.protected_links)
        scan.tool_configs += listing.tool_configs
        scan.per_file_configs += listing.per_file_configs
        scan.option_named += listing.option_named
        scan.git_entries.update(listing.git_entries)
        venv = Path(folder) if listing.venv else Path(folder).parent if listing.activate else None
        if venv is not None and venv not in scan.venvs:  # (a pyvenv.cfg and a bin/activate)
            scan.venvs.append(venv)
            if len(scan.venvs) > MAX_VENVS:
                # Each is two read-only binds for every command; past this many, commands
                # ask instead (a command could make thousands just to swell the sandbox).
                scan.incomplete = (
                    f"the workspace holds more than {MAX_VENVS} virtualenvs, more than the "
                    "sandbox holds read-only"
                )
                break
        for package_root in listing.package_roots:
            if os.path.islink(package_root):
                scan.package_links.add(package_root)
            if package_root_inside(root, package_root):
                scan.package_roots.append(package_root)
        scan.linked.update(listing.linked)
        folders += listing.subfolders
        if stop(0) is not None and not signals.stop_why():
            scan.incomplete = too_large.format(entries_seen)
            break
        if listed % FOLDERS_BETWEEN == 0 and (why := signals.stop_why()):
            scan.incomplete = f"the scan stopped: {why}"
            break
    return scan


# The most read of one small file of the workspace (a `gitdir:` file, commondir, a git config,
# a shell start-up file): far beyond any real one, and a bound on what a file can make planloop
# hold in memory.
SMALL_FILE_LIMIT = 1024 * 1024


def read_small_file(
    path: Path | str, limit: int = SMALL_FILE_LIMIT, cut: bool = False, errors: str = "replace"
) -> str:
    """The text of the regular file at `path`, of at most `limit` bytes; OSError otherwise.
    With `cut`, a larger file's whole lines within its first `limit` bytes: for a config of
    yours whose first lines name what to hide (a generated ssh config of thousands of hosts).
    `errors`: how a byte that is no UTF-8 is taken; `surrogateescape` keeps it as the byte it
    is, for a config that names a file by its path (a Latin-1 `clés` folder), as the tool
    that reads the config opens those very bytes.

    For files planloop reads outside the sandbox, which a command may have replaced: opened
    without blocking (a FIFO has no writer, and a plain open would wait for one for ever), and
    refused unless what was opened is a regular file (a link to /dev/zero would never end). A
    link is followed, as git and the shells follow it, but only to a regular file.
    """
    fd = open_own(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    data = None  # until read: a read that failed leaves its watches assuming the worst
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        data = read_whole(fd, limit)
        if data is None and cut:
            data = os.pread(fd, limit, 0).rpartition(b"\n")[0]
        if data is None:
            # Never the first part as if it were the whole: past the cut, a config may name
            # the hook or program that matters (a `.git/config` padded past 1 MiB).
            raise OSError(errno.EFBIG, "larger than planloop reads", str(path))
    finally:
        os.close(fd)
        own_read_done(path, data)
    return data.decode("utf-8", errors=errors)


def unread_reason(path: Path | str) -> str | None:
    """Why `read_small_file` would not read the file at `path`, which is there, or None (it
    reads it; nothing is there, and what a command makes there is read once it is; or a
    folder is, which no tool reads as its file either).

    For a file of the workspace whose text tells what runs later (a dotenv file an `.envrc`
    loads, a makefile it runs, a `.pth`, an `.npmrc`): its tool reads it whole, so one taken
    for empty could name anything past the limit. Its reader makes commands ask instead, with
    this reason after the file's name."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):  # (a FIFO, a device: what it gives only its tool sees)
        return "is not a regular file, so planloop does not read it"
    if info.st_size > SMALL_FILE_LIMIT:
        return f"is larger than planloop reads ({SMALL_FILE_LIMIT:,} bytes)"
    return None


def read_file_start(path: Path | str, size: int = 4096) -> bytes:
    """The first `size` bytes of the regular file at `path` (a program's `#!` line or ELF
    header), however large the file is; OSError otherwise. Opened as `read_small_file` opens a
    file a command may have replaced: a FIFO swapped in after a check is refused, not waited on."""
    fd = open_own(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    data = None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        data = os.pread(fd, size, 0)
    finally:
        os.close(fd)
        own_read_done(path, data)
    return data


def read_whole(fd: int, limit: int) -> bytes | None:
    """What the file open as `fd` holds from where it stands, None past `limit` bytes.

    One read call asks for the size fstat gives and a byte more: a file read to its end by one
    call is read whole without a second call to find the end. A key file a task writes must be
    read by planloop in one call, since a write between two calls splits planloop's read in two,
    which a watch takes for a command's read of what planloop never saw (tools/event_queues.py).
    A file with no size (in /proc) or that grows meanwhile is read on to its end."""
    size = os.fstat(fd).st_size
    asked = min(size, limit) + 1
    chunks, taken = [], 0
    while True:
        chunk = os.read(fd, asked)
        chunks.append(chunk)
        taken += len(chunk)
        if taken > limit:
            return None
        if not chunk or (taken == size and len(chunk) < asked):
            return b"".join(chunks)
        asked = limit + 1 - taken


def config_too_big(root: Path, scan: WorkspaceScan) -> str | None:
    """Why what runs from the workspace cannot be told, or None: a config in it that names
    what runs (a repository's git config, an `.envrc`, a host tool's settings, a virtualenv's
    `.pth`) is larger than planloop reads (SMALL_FILE_LIMIT), and what lies past that may name
    any file. Commands ask, and the file tools ask before every write."""
    from tools.tool_scripts import settings_files  # late: that module reads with this one's

    configs = [path for path in scan.env_files if path.name == ".envrc"]
    for entry in scan.git_entries:
        git_dir = git_dir_of(entry)
        common = common_dir_of(git_dir) if git_dir is not None else None
        for folder in (git_dir, common):
            configs += [folder / "config", folder / "config.worktree"] if folder else []
        configs += git_config_paths(entry)[1]  # the files its config includes
    configs += [path for config in scan.tool_configs for path, _ in settings_files(config)]
    for path in configs:
        with contextlib.suppress(OSError):
            info = os.stat(path)
            if stat.S_ISREG(info.st_mode) and info.st_size > SMALL_FILE_LIMIT:
                shown = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
                return (
                    f"{shown} is larger than planloop reads (1 MiB), so what it makes git, "
                    "direnv or its tool run cannot be told"
                )
    return unread_start_file(root, scan.package_roots)  # (a `.pth` padded past 1 MiB)


def git_dir_of(git_entry: Path) -> Path | None:
    """The repository folder a `.git` entry stands for: itself, or where its `gitdir:` points."""
    if os.path.isdir(git_entry):
        return git_entry
    try:
        # As git reads it: only line ends are taken off the end, so `gitdir: .rg ` (a space
        # kept) is another folder than `.rg`.
        text = read_small_file(git_entry).rstrip("\r\n")
    except OSError:
        return None
    if not text.startswith(GITDIR_PREFIX) or not text[len(GITDIR_PREFIX) :]:
        return None
    return Path(os.path.normpath(git_entry.parent / text[len(GITDIR_PREFIX) :]))


# What a `.git` file holds before the path, as git requires it (with the one space).
GITDIR_PREFIX = "gitdir: "


def common_dir_of(git_dir: Path) -> Path | None:
    """Where a worktree's `commondir` file points (the main repository), if it has one."""
    try:
        target = read_small_file(git_dir / "commondir").rstrip("\r\n")  # as git reads it
    except OSError:
        return None
    return Path(os.path.normpath(git_dir / target)) if target else None


def read_git_config(path: Path) -> list[tuple[str, str]]:
    """(section.key, value) pairs of a git config file, read as text; nothing is run.

    Section and key names are lower-cased, and a subsection is dropped: `[includeIf "gitdir:x"]
    path = y` becomes `includeif.path`. Read character by character as git reads it
    (`GIT_SPACE`), so that planloop guards the path git will use.
    """
    try:
        info = os.stat(path)
    except OSError:
        return []
    # Read as git reads it, a character at a time: half a second a MiB, and a look reads the
    # same configs many times (each repository's, yours with each). A file whose change time
    # is older than CTIME_TRUST_MARGIN_NS is taken from the last reading while it stays as it
    # was: a change, or a file put in its place, changes what is compared.
    identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    if (known := _GIT_CONFIGS_READ.get(str(path))) is not None and known[0] == identity:
        return known[1]
    try:
        text = read_small_file(path).removeprefix("\ufeff")  # git skips a BOM
    except OSError:
        return []
    pairs = GitConfigText(text).pairs()
    if time.time_ns() - info.st_ctime_ns > CTIME_TRUST_MARGIN_NS:
        _GIT_CONFIGS_READ.pop(str(path), None)
        _GIT_CONFIGS_READ[str(path)] = (identity, pairs)
        while sum(kept[0][2] for kept in _GIT_CONFIGS_READ.values()) > GIT_CONFIG_BYTES_KEPT:
            del _GIT_CONFIGS_READ[next(iter(_GIT_CONFIGS_READ))]  # (the oldest read goes first)
    return pairs


# The git configs read last (`read_git_config`): path -> (what identified it, its pairs), up
# to this many bytes of them in all.
_GIT_CONFIGS_READ: dict[str, tuple[tuple[int, ...], list[tuple[str, str]]]] = {}
GIT_CONFIG_BYTES_KEPT = 32 * 1024 * 1024


# git's own whitespace (its ctype table), not Python's: `str.strip()` and `splitlines()` also
# break at \x0b, \x0c, \x1c-\x1f, \x85 and U+2028, which git keeps inside a value, so a reader
# using them would guard `./fs` while git runs `./fs<U+001C>mon.sh`.
GIT_SPACE = " \t\r\n"
CONFIG_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}


class GitConfigText:
    """A git config's text, read as git's config parser reads it. Where git would refuse the
    file (a bad line or escape), this reads on: whatever git did take, planloop guards."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\r\n", "\n")  # git reads CR LF as LF; a lone CR is a blank
        self.at = 0

    def pairs(self) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        section = ""
        while self.at < len(self.text):
            char = self.text[self.at]
            if char in GIT_SPACE:
                self.at += 1
            elif char == "[":
                self.at += 1
                section = self._section()
            elif char.isascii() and char.isalpha():
                key = self._name("-")
                if self._skip_blanks() == "=":
                    self.at += 1
                    found.append((f"{section}.{key}", self._value()))
                elif self._next() in ("\n", ""):
                    found.append((f"{section}.{key}", ""))  # a bare key: true
                else:
                    self._to_line_end()
            else:  # `#` or `;` start a comment; anything else git refuses
                self._to_line_end()
        return found

    def _next(self) -> str:
        return self.text[self.at : self.at + 1]

    def _to_line_end(self) -> None:
        end = self.text.find("\n", self.at)
        self.at = len(self.text) if end < 0 else end + 1

    def _skip_blanks(self) -> str:
        while self._next() in (" ", "\t"):
            self.at += 1
        return self._next()

    def _name(self, also: str) -> str:
        """A section or key name: ASCII letters, digits and `also`, lower-cased."""
        start = self.at
        while (char := self._next()) and char.isascii() and (char.isalnum() or char in also):
            self.at += 1
        return self.text[start : self.at].lower()

    def _section(self) -> str:
        """`[core]`, `[remote "origin"]` or the old `[branch.main]`: the section's name."""
        name = self._name("-.")
        if self._next() not in ("]", "") and self._skip_blanks() == '"':
            self.at += 1
            while (char := self._next()) not in ('"', "\n", ""):
                self.at += 2 if char == "\\" else 1
            self.at += 1 if self._next() == '"' else 0
        if self._next() == "]":
            self.at += 1  # a key may follow on the same line
        else:
            self._to_line_end()
        return name.split(".")[0]

    def _value(self) -> str:
        """From after the `=` to the line's end: quotes dropped wherever they are, escapes
        applied, a `#` or `;` outside quotes ends it, and each blank outside quotes inside the
        value becomes one space, as git makes it; those at either end are dropped."""
        out: list[str] = []
        quoted, spaces = False, 0
        while (char := self._next()) not in ("\n", ""):
            self.at += 1
            if char in GIT_SPACE and not quoted:
                spaces += 1 if out else 0
                continue
            if char in "#;" and not quoted:
                self._to_line_end()
                break
            if spaces:
                out.append(" " * spaces)
                spaces = 0
            if char == "\\":
                escaped = self._next()
                self.at += 1
                if escaped in ("\n", ""):
                    continue  # the value goes on on the next line
                out.append(CONFIG_ESCAPES.get(escaped, escaped))
            elif char == '"':
                quoted = not quoted
            else:
                out.append(char)
        else:
            self.at += 1
        return "".join(out)


# Config files read for one repository, includes included: git stops nesting at 10 levels,
# and no real repository comes near this many.
MAX_GIT_CONFIGS = 100


def git_config_paths(git_entry: Path) -> tuple[list[Path], list[Path]]:
    """(hooks folders, included config files) that a repository's config names.

    Both make git run or read something from outside `.git`: a hooks folder named by
    `core.hooksPath` (husky's `.husky`, for example) holds scripts git runs, and a file named by
    `include.path` can set `core.fsmonitor`. A relative hooks path is relative to the folder
    holding `.git`; a relative include is relative to the config file.
    """
    git_dir = git_dir_of(git_entry)
    if git_dir is None:
        return [], []
    # Yours first (git reads them for every repository: a `core.hooksPath = .githooks` there
    # makes each repository's own .githooks folder run), then the repository's.
    config_files = [*your_git_configs(), git_dir / "config", git_dir / "config.worktree"]
    common = common_dir_of(git_dir)
    if common is not None:
        config_files.insert(-2, common / "config")
    # A relative hooks path is taken from where hooks run: the folder holding `.git`, or a
    # bare repository itself.
    worktree = git_entry.parent if git_entry.name == GIT_DIR_NAME else git_entry
    return paths_named_by(config_files, worktree)


# husky 9 sets core.hooksPath to `.husky/_`, whose stub for each hook runs the script of that
# name in `.husky` itself (`.husky/pre-commit`): that folder holds hooks as surely.
HUSKY_STUBS = "_"


def paths_named_by(
    config_files: list[Path], worktree: Path | None
) -> tuple[list[Path], list[Path]]:
    """(hooks folders, included files) that `config_files` name, includes followed.

    A relative hooks path is taken from `worktree`; with none, only a full path counts.
    """
    hooks: list[Path] = []
    includes: list[Path] = []
    # An included file may include more (relative to itself): git follows them all, so every
    # one is read here too, each once. The list grows while it is walked. Each costs up to
    # half a second (1 MiB, read as git reads it), and the event loop, which serves Ctrl-C and
    # SIGTERM, waits: one that came meanwhile stops here.
    signals = SignalCheck()
    for config in config_files:
        if why := signals.stop_why():
            raise ToolError(f"{why}: planloop stopped reading git's configuration")
        for key, value in read_git_config(config):
            if not value:
                continue
            expanded = Path(os.path.expanduser(value))
            if key == "core.hookspath" and (worktree is not None or expanded.is_absolute()):
                folder = Path(os.path.normpath((worktree or Path("/")) / expanded))
                hooks.append(folder)
                if folder.name == HUSKY_STUBS:  # its stubs run the hooks of the folder above
                    hooks.append(folder.parent)
            elif key in ("include.path", "includeif.path"):
                included = Path(os.path.normpath(config.parent / expanded))
                if included not in config_files and len(config_files) < MAX_GIT_CONFIGS:
                    includes.append(included)
                    config_files.append(included)
    return hooks, includes


def hook_links(git_entry: Path) -> list[Path]:
    """Where a repository's hooks that are links lead: the path each link names, one step taken.

    A hook is often a link into the working tree (`ln -s ../../scripts/pre-commit.sh
    .git/hooks/pre-commit`), and so, at times, is the hooks folder itself, or the repository's
    `config`. A read-only `.git` holds the link, not the file git reads through it, so that
    file must be held too. Looked at: the repository folder and its hooks folder (the common
    ones too, for a worktree) and those core.hooksPath names. A hook that links to a folder
    (git cannot run it) or into the repository itself (held with it) is left out.
    """
    git_dir = git_dir_of(git_entry)
    if git_dir is None:
        return []
    # The repository folder itself too: its `config` may be a link into the tree as well.
    folders = [git_dir, git_dir / "hooks"]
    common = common_dir_of(git_dir)
    if common is not None:
        folders += [common, common / "hooks"]
    folders += git_config_paths(git_entry)[0]
    inside = Path(os.path.realpath(git_dir))
    targets: list[Path] = []
    for folder in folders:
        if os.path.islink(folder):
            targets += _one_step(folder)  # the whole folder: held as a folder
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in itertools.islice(entries, MAX_HOOKS):
                if not entry.is_symlink():
                    continue
                for target in _one_step(Path(entry.path)):
                    real = Path(os.path.realpath(target))
                    if not (os.path.isdir(real) or real.is_relative_to(inside)):
                        targets.append(target)
    return targets


# Entries of one hooks folder looked at for links: git knows a few dozen hook names.
MAX_HOOKS = 1000


def _one_step(link: Path) -> list[Path]:
    """The path a link names, taken from the real folder that holds it; [] if it is no link."""
    try:
        named = os.readlink(link)
    except OSError:
        return []
    return [Path(os.path.normpath(Path(os.path.realpath(link.parent)) / named))]


def hook_links_around(path: Path) -> list[Path]:
    """`hook_links` of the repositories at `path` and above it (see `git_paths_around`)."""
    return [
        target
        for folder in [path, *path.parents]
        if os.path.exists(folder / GIT_DIR_NAME)
        for target in hook_links(folder / GIT_DIR_NAME)
    ]


# How much of the held folders is searched for links (`held_folder_links`): a tool's
# configuration, a PATH folder or a virtualenv's bin/ holds a few dozen entries, while a folder
# your PYTHONPATH names may hold a whole project. Links are placed there by you (a command
# cannot add one to a read-only folder), so a bound on the search is a bound on what is
# recognised, not a way in.
HELD_LINK_SEARCH_DEPTH = 4
HELD_LINK_SEARCH_ENTRIES = 5000
# A folder outside the workspace (/usr/bin on your PATH) is looked at one level deep only.
HELD_LINK_OUTSIDE_ENTRIES = 20000
HELD_LINK_REASON = "{link} links to this path, and {why}"


def held_folder_links(root: Path, folders: Iterable[Path]) -> list[tuple[Path, Path, Path]]:
    """(link, the path it names, the held folder it was found in) for each link inside the
    held `folders` whose target lies in the workspace, or is reached through it.

    A read-only bind of a folder holds the links in it, not what they lead to: `bin/deploy ->
    ../scripts/deploy.sh` in a folder on your PATH, `.vscode/tasks.json -> ../shared/tasks.json`,
    `.claude/settings.json -> ../shared/claude.json`. You run, or your editor reads, the file
    through the link, so it must be held like the folder. A folder a link leads to is searched
    in turn (`.claude/commands -> ../shared/commands`). Searched as they are on disk (their real
    paths), so that a held folder which is itself a link is searched where it leads.
    """
    root = Path(os.path.realpath(root))
    searched: list[Path] = []
    pending: collections.deque[tuple[Path, Path, int]] = collections.deque()
    found: list[tuple[Path, Path, Path]] = []
    for folder in dict.fromkeys(folders):
        real = Path(os.path.realpath(folder))
        if real.is_relative_to(root) and real != root and os.path.isdir(real):
            searched.append(real)
            pending.append((real, folder, 0))
        elif not (real.is_relative_to(root) or root.is_relative_to(real)):
            # A folder outside (~/bin on your PATH): read-only already, but a link in it may
            # lead into the workspace (`~/bin/tool -> ~/proj/tool.py`). Its own entries only.
            found += [(link, named, folder) for link, named in _links_from_outside(root, real)]
    seen = 0
    while pending and seen < HELD_LINK_SEARCH_ENTRIES:
        current, origin, depth = pending.popleft()
        with contextlib.suppress(OSError), os.scandir(current) as entries:
            for entry in itertools.islice(entries, HELD_LINK_SEARCH_ENTRIES - seen):
                seen += 1
                if not entry.is_symlink():
                    if depth + 1 < HELD_LINK_SEARCH_DEPTH and entry.is_dir(follow_symlinks=False):
                        pending.append((Path(entry.path), origin, depth + 1))
                    continue
                for link, named, _ in _links_into(root, Path(entry.path), origin):
                    found.append((link, named, origin))
                    real = Path(os.path.realpath(named))
                    inside = os.path.isdir(real) and real.is_relative_to(root)
                    if inside and not any(real.is_relative_to(other) for other in searched):
                        searched.append(real)
                        pending.append((real, origin, depth + 1))
    return found


def _links_into(root: Path, link: Path, origin: Path) -> list[tuple[Path, Path, Path]]:
    """[(link, the path it names, `origin`)] when the link `link` leads into the workspace
    `root`, or passes a link in it on the way; else []."""
    found = []
    for named in _one_step(link):
        if _leads_into(root, named):
            found.append((link, named, origin))
    return found


def _leads_into(root: Path, named: Path) -> bool:
    """Whether the path `named` is, or resolves into, or passes a link in, the workspace."""
    if named.is_relative_to(root) or Path(os.path.realpath(named)).is_relative_to(root):
        return True
    return any(step.is_relative_to(root) for step in links_on_the_way(named))


# The links of a folder outside the workspace that lead into it, per (folder, workspace): kept
# while the folder's change time stays the same. No command can change such a folder, nor the
# links outside the workspace on the way from it; a link inside the workspace on the way is
# found, and kept, like a target inside.
_OUTSIDE_LINKS: dict[tuple[Path, Path], tuple[tuple[int, int, int], list[tuple[Path, Path]]]] = {}


def _links_from_outside(root: Path, folder: Path) -> list[tuple[Path, Path]]:
    """(link, the path it names) for each link among the first entries of the real folder
    `folder`, outside the workspace, that leads into the workspace (see `_leads_into`)."""
    try:
        identity = link_identity(os.stat(folder))
    except OSError:
        return []
    known = _OUTSIDE_LINKS.get((folder, root))
    if known is not None and known[0] == identity:
        return known[1]
    found: list[tuple[Path, Path]] = []
    with contextlib.suppress(OSError), os.scandir(folder) as listing:
        for entry in itertools.islice(listing, HELD_LINK_OUTSIDE_ENTRIES):
            with contextlib.suppress(OSError):
                if entry.is_symlink():
                    target = os.readlink(entry.path)
                    if "/" not in target:
                        continue  # another entry of this folder: looked at as one, if a link
                    named = Path(os.path.normpath(folder / target))
                    if _leads_into(root, named):
                        found.append((Path(entry.path), named))
    _OUTSIDE_LINKS[(folder, root)] = (identity, found)
    return found


def _held_inside(root: Path, folders: Iterable[Path]) -> list[Path]:
    """The real paths of those of `folders` that lie in the workspace: bound read-only."""
    real = (Path(os.path.realpath(folder)) for folder in folders)
    return [folder for folder in real if folder.is_relative_to(root) and folder != root]


def path_entries() -> list[Path]:
    """The folders your PATH names by a full path, wherever they are."""
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    return [Path(entry) for entry in dict.fromkeys(entries) if os.path.isabs(entry)]


def held_link_targets(
    root: Path, links: list[tuple[Path, Path, Path]], folders: Iterable[Path]
) -> list[Path]:
    """What the links `held_folder_links` found lead to, resolved, where a read-only bind can
    hold it: an existing file or folder inside the workspace and outside the held `folders`
    (inside one, it is held with it)."""
    root = Path(os.path.realpath(root))
    held = _held_inside(root, folders)
    targets = []
    for _link, named, _origin in links:
        real = Path(os.path.realpath(named))
        if real == root or not real.is_relative_to(root) or not os.path.exists(real):
            continue
        if not any(real.is_relative_to(folder) for folder in held):
            targets.append(real)
    return list(dict.fromkeys(targets))


def held_link_not_held(
    root: Path, links: list[tuple[Path, Path, Path]], folders: Iterable[Path]
) -> str | None:
    """Why the target of a link in a held folder cannot be held read-only, or None: it does not
    exist (a command could create it), it is the workspace itself, or it is reached through
    another link in the workspace outside the held folders (a command could point that one
    elsewhere; no read-only bind holds a link)."""
    root = Path(os.path.realpath(root))
    held = _held_inside(root, folders)
    held += [target for target in held_link_targets(root, links, folders) if target.is_dir()]
    for link, named, _origin in links:
        shown = _named(root, link) if link.is_relative_to(root) else str(link)
        real = Path(os.path.realpath(named))
        if real == root:
            return f"{shown}, in a folder held read-only, links to the workspace itself"
        for step in links_on_the_way(named):
            if step.is_relative_to(root) and not any(step.parent.is_relative_to(f) for f in held):
                return (
                    f"{shown}, in a folder held read-only, leads on through the link "
                    f"{_named(root, step)}, which a command could point elsewhere"
                )
        if real.is_relative_to(root) and not os.path.lexists(real):
            return (
                f"{shown}, in a folder held read-only, links to {_named(root, real)}, which does "
                "not exist: a command could create it"
            )
    return None


def held_links_with_reasons(
    root: Path, folders: list[tuple[Path, str]]
) -> list[tuple[Path, Path, str]]:
    """(link, the path it names, why its folder is protected) for each link in the held
    `folders` (folder, why) that leads into the workspace (`held_folder_links`)."""
    reasons = {Path(folder): why for folder, why in folders}
    found = held_folder_links(root, reasons)
    return [(link, named, reasons[origin]) for link, named, origin in found]


def held_link_reason(
    root: Path, candidate: Path, links: list[tuple[Path, Path, str]]
) -> str | None:
    """For the file tools: why `candidate` is protected because one of the held `links`
    (`held_links_with_reasons`) leads to it or to a folder holding it, or None."""
    for link, named, why in links:
        for target in dict.fromkeys((named, Path(os.path.realpath(named)))):
            if candidate == target or candidate.is_relative_to(target):
                shown = _named(root, link) if link.is_relative_to(root) else str(link)
                return HELD_LINK_REASON.format(link=shown, why=why)
    return None


def your_git_configs() -> list[Path]:
    """The system and global git config files git reads before a repository's own."""
    system = os.environ.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    global_files = [os.path.join(Path.home(), ".gitconfig"), os.path.join(xdg, "git", "config")]
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        global_files = [os.environ["GIT_CONFIG_GLOBAL"]]
    # (and your account's own, where a run's HOME points elsewhere: git in your other
    # terminals reads those)
    if (account := account_home()) is not None:
        global_files += [str(account / ".gitconfig"), str(account / ".config" / "git" / "config")]
    return [Path(system), *map(Path, global_files)]


def your_git_config_paths() -> tuple[list[Path], list[Path]]:
    """The hooks folder and included configs your own git configs name by a full path.

    git uses them for every repository on the machine, so they count whether or not the
    workspace is a repository yet: a `core.hooksPath = ~/tools/githooks` or an
    `[include] path = ~/tools/git.inc` kept in this workspace runs at your next commit, or
    your next `git status`, anywhere. (A relative hooks path means each repository's own
    folder: it is found with that repository.)
    """
    return paths_named_by(your_git_configs(), worktree=None)


def git_paths_around(path: Path, workspace: Path | None = None) -> tuple[list[Path], list[Path]]:
    """The hooks folders and included configs of the repositories at `path` and above it, and
    those your own git configs name (`your_git_config_paths`).

    With `workspace` (whose parent `path` is), while no repository holds it yet: your configs'
    relative hooks folder taken from it too. `git init` there, and the first commit runs what
    a command put in `.githooks/` before.
    """
    hooks, includes = your_git_config_paths()
    # Up to the file system's root: a repository that holds the workspace can name a hooks
    # folder inside it (a monorepo's packages/app/.hooks, say).
    for folder in [path, *path.parents]:
        if os.path.exists(folder / GIT_DIR_NAME):
            more_hooks, more_includes = git_config_paths(folder / GIT_DIR_NAME)
            hooks += more_hooks
            includes += more_includes
    # Only the workspace's own `.git` decides, not a repository above it (a dotfiles ~/.git, a
    # monorepo): `git init` in the workspace makes a nested repository whose hooks folder is
    # the workspace's `.githooks` all the same. The sandbox gives the workspace its empty `.git`
    # stand-in exactly when it is no repository, and the two must agree. (A workspace that is
    # a repository has its hooks found with it, from its scan.)
    if workspace is not None and not is_repository(workspace / GIT_DIR_NAME):
        yours = paths_named_by(your_git_configs(), worktree=workspace)[0]
        hooks += [hook for hook in yours if hook.is_relative_to(workspace)]
    return hooks, includes


# The names git runs a hook by (githooks(5)); any other file of a hooks folder never runs.
GIT_HOOK_NAMES = frozenset(
    (
        *("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "commit-msg"),
        *("pre-merge-commit", "prepare-commit-msg", "post-commit", "pre-rebase", "post-merge"),
        *("post-checkout", "pre-push", "pre-receive", "update", "proc-receive", "post-receive"),
        *("post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc"),
        *("post-rewrite", "sendemail-validate", "fsmonitor-watchman", "post-index-change"),
        *("p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit"),
    )
)


def git_hook_files(root: Path, git_entries: Iterable[Path]) -> list[Path]:
    """The hooks git runs for the repositories of `git_entries` and those at `root` and above
    it: each file of a hook's name in the repository's hooks folder, its main repository's, and
    a folder its config names (husky's `.husky` and `.husky/_`)."""
    entries = [folder / GIT_DIR_NAME for folder in [root, *root.parents]]
    entries = [entry for entry in entries if os.path.lexists(entry)]
    folders: list[Path] = []
    trees: dict[Path, set[Path]] = collections.defaultdict(set)
    for entry in dict.fromkeys([*git_entries, *entries]):
        git_dir = git_dir_of(entry)
        if git_dir is None:
            continue
        common = common_dir_of(git_dir)
        used = [git_dir / "hooks", *([common / "hooks"] if common else [])]
        used += git_config_paths(entry)[0]
        folders += used
        for folder in used:  # (a worktree's or a submodule's hooks lie in another's .git)
            trees[folder].add(entry.parent)
    # Each name looked up, not the folder listed: a folder of many other files cannot push
    # a hook past a bound on the listing.
    found = [
        folder / name
        for folder in dict.fromkeys(folders)
        for name in GIT_HOOK_NAMES
        if os.path.isfile(folder / name)
    ]
    for hook in found:
        HOOK_TREES[hook] = frozenset(trees[hook.parent])
    return found


# The working trees that run each hook `git_hook_files` found (git runs it from the top of
# the tree that commits): a linked worktree's and a submodule's hooks lie in another's .git.
HOOK_TREES: dict[Path, frozenset[Path]] = {}


def host_tool_settings(root: Path, scan: WorkspaceScan) -> list[Path]:
    """What tools/tool_scripts.py reads for what host tools run on their own: the host tools'
    entries a scan found, and git's hooks (a hook's `make lint` runs the Makefile's recipe)."""
    if scan.hook_files is None:
        scan.hook_files = git_hook_files(root, scan.git_entries)
    return [*scan.tool_configs, *scan.hook_files]


def is_repository(git_entry: Path) -> bool:
    """Whether a `.git` entry is a repository git would use (not the sandbox's empty stand-in)."""
    git_dir = git_dir_of(git_entry)
    return git_dir is not None and os.path.exists(git_dir / "HEAD")
