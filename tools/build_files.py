"""The build files a build tool reads when a host tool's line runs it: `make lint` in a hook,
`make watch` as a VS Code folder-open task, `cargo check` after each edit.

As npm reads package.json for `npm run lint`, make reads the Makefile and runs its recipe
outside the sandbox: a command that rewrote the Makefile, or made a GNUmakefile that make
prefers, would have its recipe run by the person's next hook. So each build file the tool
would read is held while it exists, and one a command makes where the tool would look first is
told (tools/git_programs.py `ByName.when_there`). What a recipe or a build script runs in turn
(`./scripts/lint.sh`, the crate's own code) is the project's code, as with npm's scripts.

    make, gmake   the makefile (`-f`, or GNUmakefile, makefile, Makefile in the folder `-C`
                  names), those MAKEFILES and MAKEFLAGS name (on the line or in the tool's
                  variables), and the files their `include` lines name plainly (there or in
                  an `-I` folder), and theirs
    just          the justfile there or in the nearest folder above that has one (`--justfile`),
                  the files its `import` lines name and its modules' (`mod`), and theirs
    task          the Taskfile there, and those its `includes:` name, and theirs
    cargo         Cargo.toml there (or the one `--manifest-path` names) and in each folder
                  above it (cargo looks up for the workspace's), cargo's settings there and
                  above (`.cargo/config.toml`) and the vendored folder or local registry they
                  name whole (not Cargo.lock, which cargo writes), the workspace members' and
                  the local (`path =`, `[patch]`, `paths`) crates' manifests, each package's
                  build script (build.rs, or what `build` names) with the modules compiled
                  into it (`mod gen;`, `include!`), and the source folder of each
                  crate whose code the compiler runs as it builds: a proc-macro crate, a build
                  script's dependency, and the local crates those depend on
    gradle,       settings.gradle(.kts) in the project folder (`-p`) or the nearest above that
    gradlew       has one (Gradle looks up for it), the root's and each included subproject's
                  build.gradle(.kts), the scripts they `apply from` plainly, gradle.properties
                  (`org.gradle.jvmargs` can add a Java agent), buildSrc/ and each
                  `includeBuild` folder whole (Gradle compiles and runs their code), the
                  version catalogs (gradle/libs.versions.toml, and those the settings name
                  `from(files(...))`: the plugins `alias(libs.plugins.x)` applies), an init
                  script `-I` names, the Gradle user home `-g` or GRADLE_USER_HOME names
                  (whole), and for the wrapper its jar and gradle-wrapper.properties
                  (`distributionUrl`: the Gradle it downloads and runs) and that Gradle where
                  it lies in the project (a `file:` URL's zip; with `distributionBase=PROJECT`
                  the folder it is unpacked into, whole)
    mvn, mvnw     pom.xml (`-f` names it or its folder), the pom.xml in each folder above and
                  the one each pom's `<parent>` names by its `<relativePath>` anywhere (the
                  parents it inherits from), each `<module>`'s, and .mvn/ whole (the
                  wrapper's jar and properties, jvm.config, maven.config, extensions.xml) in
                  the project folder or the nearest above that has one (Maven's base folder)
    tox           the first of tox.ini, setup.cfg, pyproject.toml, tox.toml that has its
                  settings (`[tox:tox]`, `[tool.tox]`), there or in the nearest folder above
                  (`-c`), and the toxfile.py (or `☣.py`) beside it (a plugin tox loads)
    nox           noxfile.py there (`-f`)
    pre-commit    .pre-commit-config.yaml there, or at the top of the git tree (`-c`), and
                  the file each `repo: local` hook's entry runs (`./x.sh`, `python x.py`)
    eslint,       the config each reads (JS_CONFIGS: `eslint.config.js`, `.prettierrc.json`,
    prettier,     whose `plugins` load code, `.lintstagedrc.json`, which lists the commands
    jest, vite,   lint-staged runs, their key in package.json), there or in a folder above,
    vitest,       each that is there (which one wins varies by version)
    lint-staged,
    nano-staged,
    commitlint    (prettier's, eslint's, stylelint's and markdownlint-cli2's configs in every
                  folder below count too: tools/per_file_configs.py)
    ninja, rake,  the file each reads what to run or code to load from, there or in a folder
    bundle, ...   above (TOOL_FILES: build.ninja, Rakefile, Gemfile, composer.json, deno.json,
                  gulpfile.js, Makefile.toml for `cargo make`, tasks.py, .overcommit.yml,
                  Package.swift for `swift build` or `swift package X`, ...)
    nix, pixi,    what the environment they start a command in runs first, as for an .envrc
    devbox        (flake.nix's shellHook and what it imports, pixi's activation scripts)
    mise          the task folders of `mise run` (mise-tasks/, ...), and what the [tasks] of its
                  configs run (`run` lines, `file`, `[task_config] includes`)
    lefthook      its config there or in .config/ (`lefthook.yml`, `.lefthook.toml`, ...) and
                  the `-local` one it merges, the files they `extends`, their `rc`, and the
                  script folders (`.lefthook/`, `source_dir`)
The tools run by a runner count as themselves: `uvx tox`, `uv run tox`, `pipx run tox`,
`python3 -m tox` (tools/git_programs.py `run_behind`).
What a tox env or a nox session runs in turn is the project's code, as a make recipe is.
"""

from __future__ import annotations

import configparser
import contextlib
import errno
import functools
import glob
import importlib.machinery
import itertools
import json
import os
import platform
import re
import shlex
import sys
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from tools.environment import WordTooLong, expand_variables, shell_words, without_secrets
from tools.paths import read_small_file
from tools.per_file_configs import (
    JS_SUFFIXES,
    PACKAGE_FILES,
    PER_FILE_CONFIGS,
    data_names,
    js_names,
)
from tools.shell_config import envrc_tool_files, names_a_process_folder, nix_files
from tools.spans import delimited, insides, replaced
from tools.toml_text import toml_data

GRADLE = ("gradle", "gradlew")
MAVEN = ("mvn", "mvnw")
MAKES = ("make", "gmake")
BUILD_FILE_REASON = (
    "a host tool's line or a git hook runs a build tool here (make, just, task, cargo, gradle, "
    "maven, tox, nox, pre-commit, eslint, prettier, jest, vite, lint-staged, commitlint, "
    "lefthook, uv, pdm, hatch, poetry, pylint, flake8, mypy, ...): it reads this build file "
    "and runs what it says outside the sandbox"
)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # the order make looks in
# make's variables, from its environment or its line, that name makefiles it reads: MAKEFILES'
# files before the others, and MAKEFLAGS' options (`-I mk`; `-f x.mk` too, which GNU make
# ignores there today but another make or version may not).
MAKE_VARIABLES = ("MAKEFILES", "MAKEFLAGS")
MAKE_INCLUDE_DIRS = ("-I", "--include-dir")
MAKE_FILE_OPTIONS = ("-f", "--file", "--makefile")
JUSTFILES = ("justfile", ".justfile", "Justfile", "JUSTFILE")
TASKFILES = ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml")
TASKFILES += ("Taskfile.dist.yml", "taskfile.dist.yml", "Taskfile.dist.yaml", "taskfile.dist.yaml")
# A logical line of a makefile that includes others (`include`, `-include`, `sinclude`). make
# skips C's blanks (isspace) before the directive and before each name, but splits the names
# only at a space or a tab (MAKE_BLANKS): `a<VT>b.mk` is one file.
MAKE_SPACES = " \t\n\v\f\r"
MAKE_BLANKS = " \t"
# (`load x.so` loads code into make as it reads the makefile, as an include reads make's)
MAKE_INCLUDE = re.compile(
    rf"[{MAKE_SPACES}]*-?(?:s?include|load)(?:[{MAKE_SPACES}](.*))?", re.DOTALL
)
# A file's text read into make (`$(eval $(file <mk/extra))` runs it as make's own).
MAKE_FILE_READ = re.compile(r"\$[({]file[ \t]++<[ \t]*+([^(){}]*+)[)}]")
# The shell a makefile runs its recipes with (`SHELL := ./ci/shell`).
# (also for one target, `lint: SHELL := ./ci/sh`; `!=` sets it to a command's output)
MAKE_SHELL = re.compile(
    r"^(?:[^:#=\n]*+:(?!=)[ \t]*+)?[ \t]*+(?:override[ \t]++|export[ \t]++)?SHELL[ \t]*+"
    r"([:?!+]?)=[ \t]*+(\S*+)",
    re.M,
)
# What else a makefile gives its recipes' shell: the options it starts with (`.SHELLFLAGS = -c
# ". tools/env.sh;"`), a PATH (`PATH := $(CURDIR)/bin:$(PATH)`, which make passes on changed
# as it came from the environment), a variable that names code it exports (`lint: export
# BASH_ENV := x`; a CFLAGS of its own is the recipes' to use), also for one target; and a line
# of make's own that a command's output makes (`$(eval $(shell cat x.mk))`). planloop reads
# none of them: they ask.
MAKE_LINE_START = r"^(?:[^:#=\n]*+:(?!=)[ \t]*+)?[ \t]*+(?:override[ \t]++)?"
MAKE_GIVEN_TO_SHELL = re.compile(
    MAKE_LINE_START + r"(export[ \t]++(?:override[ \t]++)?)?([.A-Za-z_][\w.]*+)"
    r"[ \t]*+(?:(?:[:?!+]|::)?=|$)",
    re.M,
)
MAKE_EVAL_OF_OUTPUT = re.compile(r"\$[({]eval[ \t]++\$[({]shell\b")
MAKE_EVAL = re.compile(r"\$([({])eval[ \t]++")  # `$(eval include x.mk)`: make reads it as a line
MAKE_WORD = re.compile(f"[^{MAKE_SPACES}]")  # where the next name of an include line starts
MAKE_WILDCARD = re.compile(r"\$[({]wildcard[ \t]++([^(){}$]*+)[)}]")  # `$(wildcard mk/*.mk)`
MAX_CACHE_ENTRIES = 10_000  # entries of a `__pycache__` read for a module's compiled copies
MAX_INCLUDED = 64  # included makefiles followed, and those they include in turn
# A makefile's variable set to a plain value (`MK := mk`), which an include may name.
MAKE_SETTING = re.compile(
    r"[ \t]*+(?:override[ \t]++|export[ \t]++)?([A-Za-z_][\w.-]*+)[ \t]*+(?::{1,3}|\?|)=[ \t]*+(.*)"
)
MAKE_REFERENCE = re.compile(r"\$(?:\(([A-Za-z_][\w.-]*+)\)|\{([A-Za-z_][\w.-]*+)\})")


class CannotTell(Exception):
    """What a build file reads by a path only its tool can tell (`include $(DIR)/rules.mk`,
    with DIR set by a command's output): tools/tool_scripts.py makes commands ask. Not a
    ValueError, which the readers take for a file they cannot parse and pass over."""


# just's `import 'x.just'` (`import?`), `mod name` and `mod name 'path'` (`mod?`), after the
# attributes a line may start with (`_just_reads`); and the string literal a text starts with.
# (Blanks are taken whole, `*+`: two runs of blanks a regex may share out are read once, not in
# every share; the files are the repository's to write, and tools/spans.py says why it matters.)
JUST_ATTRIBUTES = r"^(?:\[[^\]\n]*+\][ \t]*+)*+"
JUST_IMPORT = re.compile(JUST_ATTRIBUTES + r"import[ \t]*+\??[ \t]*+(x?['\"].*)", re.MULTILINE)
# (`set dotenv-path := ("ci/vars")` too; dotenv-filename's file just looks for up the tree)
JUST_DOTENV = re.compile(
    r"^[ \t]*+set[ \t]++dotenv-(path|filename)[ \t]*+:=[ \t(]*+(x?['\"].*)", re.MULTILINE
)
# The interpreter of its recipes, or of its script recipes: `set shell := [\n "./ci/sh",`
# (the list may span lines), `set script-interpreter`, a recipe's `[script("./ci/sh")]`.
JUST_SHELL = re.compile(
    r"^[ \t]*+set[ \t]++(?:windows-shell|shell|script-interpreter)[ \t]*+:=[ \t]*+\["
    r"[ \t\r\n]*+(x?['\"].*)"
    r"|\[[ \t]*+script[ \t]*+\([ \t]*+(x?['\"].*)",
    re.MULTILINE,
)
JUST_MOD = re.compile(
    JUST_ATTRIBUTES + r"mod(?![\w-])[ \t]*+\??[ \t]*+([A-Za-z_][\w-]*+)[ \t]*+(x?['\"].*)?",
    re.MULTILINE,
)
# A raw string (`'...'`, `'''...'''`) or one with escapes (`"..."`, `"""..."""`).
JUST_STRING = re.compile(
    r"'''(.*?)'''|\"\"\"((?:[^\\]|\\.)*?)\"\"\"|'([^']*)'|\"((?:[^\"\\]|\\.)*)\""
)
JUST_ESCAPE = re.compile(r"\\(u\{([0-9a-fA-F]{1,6})\}|.)")
JUST_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"'}
MAX_CARGO_MEMBERS = 200
# A Rust file's `mod x;` (with a `#[path = "..."]` before it) and `include!("...")`, and an
# inline module's opening (`mod a {`). Blanks are taken whole (`*+`): see JUST_ATTRIBUTES.
RUST_MOD = re.compile(
    r'(?:#\[\s*+path\s*+=\s*+"(?P<path>[^"]*+)"\s*+\]\s*+)?'
    r"(?:\bpub(?:\([^)]*+\))?\s++)?\bmod\s++(?:r#)?(?P<name>\w++)\s*+;"
)
RUST_INLINE_MOD = re.compile(r"\bmod\s++(?:r#)?\w++\s*+\{")
RUST_INCLUDE = re.compile(r'\binclude!\s*+\(\s*+"([^"]*+)"')
# A Rust comment (`mod /* x */ gen;`), found by tools/spans.py: `/\*.*?\*/` looked for each
# opener's end from every opener, and a build.rs of unclosed ones took minutes to read.
RUST_COMMENTS = (("//", "\n"), ("/*", "*/"))
RUST_STRING = re.compile(r'"([^"\n]*+)"')  # (in a raw string `r"x.rs"` or `r#"x.rs"#` too)
RUST_MACRO_PATH = re.compile(r"\binclude!\s*+[(\[{]\s*+(?:concat|env)!")
# The keys of a `[source.X]` in cargo's settings that take crates from a folder.
LOCAL_SOURCES = ("directory", "local-registry")
# The tables of a Cargo.toml that name the crates a package depends on.
DEPENDENCY_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")
GRADLE_SETTINGS = ("settings.gradle", "settings.gradle.kts")
GRADLE_BUILDS = ("build.gradle", "build.gradle.kts")
# What the wrapper script runs: this jar, which fetches and runs the Gradle the properties name.
GRADLE_WRAPPER = ("gradle/wrapper/gradle-wrapper.jar", "gradle/wrapper/gradle-wrapper.properties")
# `include ':app', ':lib:core'`, `include(":app",\n ":lib")`: the quoted project paths.
GRADLE_INCLUDE = re.compile(r"\binclude\s*+\(?((?:\s*+[\"'][^\"'$]*+[\"']\s*+,?)+)")
# The Gradle user home given on the line: held whole, as GRADLE_USER_HOME (tools/git_programs.py
# `variable_paths`), since every build runs its init.gradle and init.d/ scripts, takes JVM
# options from its gradle.properties, and the wrapper runs the Gradle it unpacked there.
# The property also comes in the java options gradle's start script passes to java
# (GRADLE_OPTS, JAVA_OPTS: `gradle_user_homes`), and Gradle reads it before GRADLE_USER_HOME.
GRADLE_USER_HOME_PROPERTY = "-Dgradle.user.home="
GRADLE_USER_HOME_OPTIONS = ("-g", "--gradle-user-home", GRADLE_USER_HOME_PROPERTY)
GRADLE_INCLUDE_BUILD = re.compile(r"\bincludeBuild\s*+\(?\s*+[\"']([^\"'$]++)[\"']")
# A version catalog (the plugin ids and versions `alias(libs.plugins.x)` applies) the settings
# add besides gradle/libs.versions.toml: `from(files("gradle/tools.toml"))`.
GRADLE_CATALOG = "gradle/libs.versions.toml"
GRADLE_CATALOG_FILE = re.compile(r"\bfrom\s*+\(?\s*+files\s*+\(\s*+[\"']([^\"'$]++)[\"']")
# A line of a .properties file: its key (up to `=`, `:` or a blank not escaped), its value.
JAVA_PROPERTY = re.compile(r"((?:\\.|[^=: \t\f\\])*)[ \t\f]*[=:]?[ \t\f]*(.*)", re.DOTALL)
GRADLE_APPLY_FROM = re.compile(r"\bapply\s*+\(?\s*+from\s*+[:=]\s*+[\"']([^\"'$]++)[\"']")
QUOTED = re.compile(r"[\"']([^\"'$]*)[\"']")
# A module's name, blanks around it taken off in Python: `\s*([^<$]+?)\s*` took time quadratic in
# a run of blanks, and the pom is the repository's to write (tools/spans.py says why it matters).
MAVEN_MODULE = re.compile(r"<(module|subproject)>([^<]*+)</\1>")
# A pom's parent (`delimited`), and the path to its pom (empty: none here, from the repository;
# `$`: the shell's or Maven's expansion, not followed).
MAVEN_PARENT = ("<parent>", "</parent>")
MAVEN_RELATIVE_PATH = re.compile(r"<relativePath\s*+(?:/>|>([^<]*+)</relativePath>)")
MAVEN_COMMENT = ("<!--", "-->")
MAX_BUILD_PROJECTS = 200  # Gradle subprojects or Maven modules followed, as for cargo's members
# An option's value among a command's words, by the option's names (`_options`).
Option = Callable[..., str | None]


# The plugin tox imports by its name from beside its config, where `toxfile.py` is there (or
# else `☣.py`): as python's import takes it, a package folder of that name comes first, then
# an extension module, then the source.
TOX_PLUGINS = tuple(
    f"{stem}{suffix}"
    for stem in ("toxfile", "☣")
    for suffix in ("", *importlib.machinery.EXTENSION_SUFFIXES, ".py")
)
TOX_FILES = ("tox.ini", "setup.cfg", "pyproject.toml", "tox.toml")  # the order tox takes them
# A setup.cfg holds tox's settings in this section, and is otherwise not tox's.
TOX_SECTION = re.compile(r"^\[tox:tox\][ \t]*$", re.MULTILINE)
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
PREK_CONFIG = "prek.toml"
PRE_COMMIT_NAMES = PER_FILE_CONFIGS["prek"]  # (prek's own, the one it shares, another spelling)
# A pre-commit hook's language whose entry is no command (a pattern, a message); one whose
# entry is a script of the config's folder (taken from there even without a slash).
PRE_COMMIT_NO_COMMAND = ("pygrep", "fail")
PRE_COMMIT_SCRIPTS = ("script", "unsupported_script")  # (pre-commit 4's name, and the old one)
# Words that are options of their own, not a short option with its value glued on: nox's
# `-fb` is --force-venv-backend, not `-f b`.
OTHER_OPTIONS = ("-fb",)


def build_files(
    program: str, words: tuple[str, ...], folder: Path, project: Path
) -> tuple[list[Path], list[Path]]:
    """(the build files there, held; every one the tool would read, made yet or not, held
    while there and told when made: `ByName.when_there`) for `program` run with `words` from
    `folder` in the workspace `project`; and a local package it installs, held whole."""
    if through := next(filter(_a_process_path, words), None):
        raise CannotTell(f"`{through[:80]}`, a path each process that opens it reads as its own")
    held, told = _build_files(program, words, folder, project)
    if program in INSTALLERS:
        held = [*held, *_local_packages(program, words, folder)]
    compiled = _compiled_copies([*held, *told])  # (toxfile.py's, noxfile.py's)
    return [*held, *(path for path in compiled if os.path.lexists(path))], [*told, *compiled]


def _a_process_path(word: str) -> bool:
    """Whether a tool's word names, alone or as an option's value (`--config=x`, `-fx`), a path
    through a folder each process reads as its own: `make -C web -f /proc/self/cwd/mk` reads
    web/mk, which planloop's own lookup cannot tell."""
    values = (word, word.partition("=")[2], word[2:] if word[:1] == "-" else "")
    return any(value.startswith("/") and names_a_process_folder(value) for value in values)


def _compiled_copies(paths: list[Path]) -> list[Path]:
    """What python runs in place of each python file of `paths` that a tool imports (tox its
    toxfile.py, nox its noxfile.py, a build backend hatch_build.py): its compiled copies in
    `__pycache__` (python trusts one whose header gives the source's time and size, and a
    command can write that)."""
    found: list[Path] = []
    for path in dict.fromkeys(path for path in paths if path.suffix == ".py"):
        folder = path.parent / "__pycache__"
        with contextlib.suppress(OSError), os.scandir(folder) as cached:
            entries = list(itertools.islice(cached, MAX_CACHE_ENTRIES + 1))
            found += [Path(e.path) for e in entries if e.name.split(".")[0] == path.stem]
            if len(entries) > MAX_CACHE_ENTRIES:  # (past the listing: by the names pythons use)
                named = [folder / f"{path.stem}.{tag}{opt}.pyc" for tag, opt in CACHE_TAGS]
                found += [copy for copy in named if os.path.lexists(copy)]
    return list(dict.fromkeys(found))


# The names CPython 3.6 to 3.20 give a module's compiled copies (`x.cpython-312.opt-1.pyc`).
CACHE_TAGS = [
    (f"cpython-3{minor}", opt) for minor in range(6, 21) for opt in ("", ".opt-1", ".opt-2")
]


def _local_packages(program: str, words: tuple[str, ...], folder: Path) -> list[Path]:
    """The local projects an installer builds, and so runs the build of (its setup.py, an
    in-tree backend, a build hook): `uvx --from ./tools/x`, `uv run --with ./x`, `pip install
    ./x` or `-e ./x`, `pipx install ./x`. Each folder there, whole."""
    values = option_values(words, *LOCAL_PACKAGE_OPTIONS)
    plain = [word for word in words if not word.startswith("-")]
    if program in ("pip", "pipx") or plain[:2] == ["pip", "install"]:
        values += [word for word in plain[1:] if word.startswith((".", "/")) or "/" in word]
    paths = [_from(folder, value) for value in values if "://" not in value and "$" not in value]
    return [path for path in dict.fromkeys(filter(None, paths)) if os.path.isdir(path)]


def _build_files(
    program: str, words: tuple[str, ...], folder: Path, project: Path
) -> tuple[list[Path], list[Path]]:
    option = _options(words)
    if program in MAKES:
        return _make_files(words, _from(folder, option("-C", "--directory")) or folder)
    if program == "just":
        return _with_what_they_read(*_justfiles(option, folder, project), _just_reads)
    if program == "task":
        folder = _from(folder, option("-d", "--dir")) or folder
        named = _from(folder, option("-t", "--taskfile"))
        taskfiles = _first_there([named] if named else [folder / n for n in TASKFILES])
        return _with_what_they_read(*taskfiles, _task_includes)
    if program == "cargo" and words[:1] == ("make",):
        # cargo-make's Makefile.toml (`cargo make lint`), and the manifests as for any cargo
        made = _first_there([p / "Makefile.toml" for p in up_to(folder, project)])
        rest = build_files("cargo", words[1:], folder, project)
        return made[0] + rest[0], made[1] + rest[1]
    if program == "cargo":
        # cargo looks for the workspace's root from the manifest's folder up, either way.
        manifest = _from(folder, option("--manifest-path"))
        start = manifest.parent if manifest else folder
        manifests = [manifest] if manifest else []
        manifests += [above / "Cargo.toml" for above in up_to(start, project)]
        manifests = list(dict.fromkeys(m for m in manifests if os.path.lexists(m)))
        held, told = _cargo_files(manifests, folder, _cargo_configs(start, project))
        return held, told
    if program in GRADLE:
        return _gradle_files(program == "gradlew", option, folder, project)
    if program in MAVEN:
        held, told = _maven_files(
            program == "mvnw", _exact_option(words, "-f", "--file"), folder, project
        )
        return held + _maven_local_repository(words, folder, held), told
    if program in CONFIG_TOOLS:
        held, told = _config_files(CONFIG_TOOLS[program], words, folder, project)
        if program in PROJECT_FILES:  # (tox: the package beside its config)
            beside = held[0].parent if held else folder
            more, more_told = _first_there([beside / name for name in PROJECT_FILES[program]])
            held, told = list(dict.fromkeys(held + more)), list(dict.fromkeys(told + more_told))
        return held, told
    if program in PROJECT_FILES:  # (from where it runs, or the project's folder above)
        candidates = [p / name for p in up_to(folder, project) for name in PROJECT_FILES[program]]
        if program in LINTER_CODE:  # (and the code their settings load)
            # A settings file an option names (`pylint --rcfile ci/pylintrc`) is read first.
            options = LINTER_CONFIG_OPTIONS.get(program, ())
            named = [_from(folder, value) for value in option_values(words, *options)]
            reads = functools.partial(_linter_code, run_in=folder)
            held, told = _first_there([*filter(None, named), *candidates], reads)
            return held + _linter_code_given(program, words, folder), told
        held, told = _first_there(candidates)
        builds = [path for config in held for path in _project_builds(config)]  # (told too)
        return held + [path for path in builds if os.path.lexists(path)], told + builds
    if program in ENVIRONMENT_STARTERS:  # `nix develop -c make lint`: its shell's files first
        found = _environment_files(program, words, folder)
        return [path for path in found if os.path.lexists(path)], found
    if program == "lefthook":  # (it runs from the top of the working tree)
        lefthook = [folder / name for name in LEFTHOOK_FILES]
        return _with_what_they_read(*_first_there(lefthook), _lefthook_reads)
    if program == "mise":  # (its task folders, below, and the tasks its configs define)
        held, told = _mise_tasks(folder, project)
        rest = build_files("mise-tasks", words, folder, project)
        return held + rest[0], told + rest[1]
    if program in JS_CONFIGS or program in TOOL_FILES:  # (which one a version takes varies)
        folder = _from(folder, option(*FOLDER_OPTIONS.get(program, ()))) or folder
        names = JS_CONFIGS.get(program) or TOOL_FILES[program]
        candidates = [p / name for p in up_to(folder, project) for name in names]
        # A file or folder an option names (`--config ci/lint-staged.js`, `--rulesdir rules`)
        # is read as well as, or instead of, the ones it looks for: both are held.
        named = [
            _from(folder, value) for value in option_values(words, *FILE_OPTIONS.get(program, ()))
        ]
        reads = {"ninja": _ninja_reads(folder), "poe": _poe_reads}.get(program, local_code)
        return _with_what_they_read(*_first_there([*filter(None, named), *candidates]), reads)
    return [], []


def _mise_tasks(folder: Path, project: Path) -> tuple[list[Path], list[Path]]:
    """What `mise run` runs of the tasks its configs define, there and in each folder above:
    each task's `run` lines, read as a hook's lines from the config's root folder (where mise
    runs them), and its `file`; the files and folders `[task_config] includes` names (task
    files, read alike, and task folders, whole). A config itself is held always
    (tools/paths.py); a task file or script not there yet is told when made."""
    configs = [p / name for p in up_to(folder, project) for name in MISE_CONFIGS]
    # (a task file's tasks run from the root of the config that includes it)
    waiting = [(config, _mise_root(config), False) for config in configs if os.path.isfile(config)]
    held: list[Path] = []
    told: list[Path] = []
    while waiting:
        config, root, task_file = waiting.pop()
        try:
            settings = toml_data(_read(config))
        except ValueError as why:
            raise CannotTell(f"{config}: {why}") from None
        tasks = settings if task_file else settings.get("tasks", {})
        includes = settings.get("task_config", {}).get("includes", [])
        for include in includes if isinstance(includes, list) and not task_file else []:
            path = Path(os.path.normpath(root / str(include)))
            told.append(path)
            if os.path.isfile(path) and path not in held and len(held) < MAX_INCLUDED:
                waiting.append((path, root, True))
            held.append(path)
        for task in tasks.values() if isinstance(tasks, dict) else []:
            task = task if isinstance(task, dict) else {"run": task}
            if isinstance(task.get("file"), str):
                script = Path(os.path.normpath(root / task["file"]))
                held, told = held + [script], told + [script]
            runs = task.get("run")
            for line in runs if isinstance(runs, list) else [runs]:
                if not isinstance(line, str):
                    continue  # (`{task = "other"}`: that task, read as its own)
                whose = f"mise's task `{line[:80]}` of {config}"
                found, later = _line_runs(_mise_marked(line, root), root, whose)
                held, told = held + found, told + later
    return [path for path in dict.fromkeys(held) if os.path.lexists(path)], told


def _poe_reads(config: Path) -> list[Path]:
    """What poe's tasks run, for a config of TOOL_FILES["poe"] (pyproject.toml's [tool.poe],
    or a tasks file's top level) and the task files its `include` names, read alike: each
    `cmd` and `shell` line, read as a hook's line from the config's folder, the module a
    `script` task imports, and the dotenv files `envfile` loads. Nothing for other files
    (what those lines name, read in turn by `_with_what_they_read`)."""
    if config.name not in TOOL_FILES["poe"]:
        return []
    found: list[Path] = []
    waiting, read = [config], set()
    while waiting and len(read) < MAX_INCLUDED:
        tasks_file = waiting.pop()
        read.add(tasks_file)
        included, runs = _poe_tasks(tasks_file)
        found += included + runs
        waiting += [path for path in included if os.path.isfile(path) and path not in read]
    return found


def _poe_tasks(config: Path) -> tuple[list[Path], list[Path]]:
    """(the task files a poe config includes, what its own tasks run)."""
    from tools.tool_scripts import read_yaml  # (it imports this module)

    text = _read(config)
    try:
        if config.suffix == ".toml":
            settings = toml_data(text)
            if isinstance(settings.get("tool"), dict):  # (a pyproject.toml's [tool.poe])
                settings = settings["tool"].get("poe", {})
        else:
            settings = json.loads(text) if config.suffix == ".json" else read_yaml(text)
    except (ValueError, RecursionError) as why:
        raise CannotTell(f"{config}: {why}") from None
    settings = settings if isinstance(settings, dict) else {}
    folder = config.parent
    includes = settings.get("include", [])
    included = [
        Path(os.path.normpath(folder / path))
        for include in (includes if isinstance(includes, list) else [includes])
        if isinstance(path := include.get("path") if isinstance(include, dict) else include, str)
    ]
    lines: list[str] = []
    envfiles = [settings.get("envfile")]
    tasks = settings.get("tasks", {})
    for task in tasks.values() if isinstance(tasks, dict) else []:
        task = {"cmd": task} if isinstance(task, str) else task if isinstance(task, dict) else {}
        lines += [task[key] for key in ("cmd", "shell") if isinstance(task.get(key), str)]
        if isinstance(task.get("script"), str):  # `pkg.tasks:lint`: python imports pkg.tasks
            module = task["script"].split(":")[0].strip()
            lines.append(f"python3 -c {shlex.quote(f'import {module}')}")
        envfiles.append(task.get("envfile"))
    runs = [
        Path(os.path.normpath(folder / name))
        for envfile in envfiles
        for name in (envfile if isinstance(envfile, list) else [envfile])
        if isinstance(name, str)
    ]
    for line in lines:
        found, later = _line_runs(line, folder, f"poe's task `{line[:80]}` of {config}")
        runs += found + later
    return included, runs


def _line_runs(
    line: str,
    folder: Path,
    whose: str,
    node_bins: Path | None = None,
    per_file: list[tuple[Path, str]] | None = None,
) -> tuple[list[Path], list[Path]]:
    """(what a tool's command line runs, what it takes by a name once made), read as a git
    hook's line is from `folder`, where the tool runs it; one that needs a value only its shell
    can tell: CannotTell, said of `whose` (`poe's task `x` of pyproject.toml`). `node_bins`:
    the top of the tree, where the tool puts each node_modules/.bin from `folder` up to it
    first on the line's PATH (lint-staged): a program it runs by its name alone is taken from
    there first. `per_file`: where the tools it runs that take configs per file go."""
    from tools.git_programs import ByName  # (these import this module)
    from tools.node_packages import bin_paths
    from tools.tool_scripts import GIT_HOOK, run_by

    by_name = ByName()
    runs, told, cannot = run_by({"text": line, "top": str(folder)}, GIT_HOOK, folder, by_name)
    if told or cannot:
        what = cannot[0] if cannot else f"`{told[0].word}`, a path only its shell can tell"
        raise CannotTell(f"{whose}: {what}")
    later = [path for path, _ in by_name.when_there]
    if per_file is not None:
        per_file += by_name.per_file
    for base, program in by_name.programs if node_bins is not None else []:
        later += bin_paths(program, base, node_bins).paths
    return runs, later


def _mise_root(config: Path) -> Path:
    """The folder a mise config is of (its `config_root`): above `.mise/`, `mise/`, `.config/`
    and `conf.d/`."""
    root = config.parent
    while root.name in (".mise", "mise", ".config", "conf.d") and root.parent != root:
        root = root.parent
    return root


def _mise_marked(line: str, root: Path) -> str:
    """A task's line with `{{config_root}}` put in; any other template is mise's alone: `$`."""
    line = line.replace("{{config_root}}", str(root)).replace("{{ config_root }}", str(root))
    return line.replace("{{", "${mise").replace("}}", "}")


def _environment_files(program: str, words: tuple[str, ...], folder: Path) -> list[Path]:
    """What a program that starts a command in an environment it builds reads first, and runs
    in the shell before the command (`nix develop -c make lint`: flake.nix's shellHook), as for
    an `.envrc` that uses it (tools/shell_config.py): nix's flake or shell.nix with the nix
    files they import, pixi's manifest and its activation scripts, devbox's files."""
    if program == "nix":
        # (its subcommand may come after options that take values, `--extra-experimental-features
        # 'nix-command flakes'`; which word after it is the flake only nix's parser knows, so
        # each plain word up to the command is taken for one, an `--override-input`'s too)
        start = next((i for i, w in enumerate(words) if w in NIX_STARTERS), None)
        if start is None:
            return []
        stop = next((i for i, w in enumerate(words) if w in ("-c", "--command")), len(words))
        references = [".", *(w for w in words[start + 1 : stop] if not w.startswith("-"))]
        found = [path for ref in references for path in nix_files("flake", [ref], folder)]
        return [path for path in dict.fromkeys(found) if path is not None]
    if program == "nix-shell":
        stop = next((i for i, w in enumerate(words) if w in ("--run", "--command")), len(words))
        files = [w for w in words[:stop] if w.endswith(".nix")]
        # (a folder given: its default.nix)
        files += [f"{w}/default.nix" for w in words[:stop] if os.path.isdir(folder / w)]
        return [path for path in nix_files("nix", files, folder) if path is not None]
    if program == "pixi" and (manifest := _options(words)("--manifest-path")):
        named = _from(folder, manifest)
        folder = named.parent if named is not None and named.suffix else named or folder
    return envrc_tool_files(program, folder)


def _config_files(
    tool: ConfigTool, words: tuple[str, ...], folder: Path, project: Path
) -> tuple[list[Path], list[Path]]:
    """(held, told) for a ConfigTool: each file it looks at up to the first that has its
    settings (a command could put them in one it passed by, or make one), and what it runs."""
    named = _glued_option(words, *tool.options)
    places = tool.places(folder, project)
    places = places[:1] if named and tool.walks_up else places  # a named file is not looked for
    if named and os.path.isdir(_from(folder, named) or folder):  # (tox's `-c` takes a folder)
        places, named = [_from(folder, named) or folder], None
    names = [named] if named else tool.names
    candidates = [Path(os.path.normpath(p / os.path.expanduser(n))) for p in places for n in names]
    told: list[Path] = []
    for path in dict.fromkeys(candidates):
        told.append(path)
        if os.path.lexists(path) and tool.carries(path):
            break
    held = [path for path in told if os.path.lexists(path)]
    # What the config runs, once: those files are no configs of the tool's (a pre-commit
    # entry's flake8 reads setup.cfg, which is no pre-commit config).
    runs = [path for config in held for path in tool.runs(config)]
    told += [path for path in dict.fromkeys(runs) if path not in told]
    return list(dict.fromkeys(held + [path for path in runs if os.path.lexists(path)])), told


def _glued_option(words: tuple[str, ...], short: str, long: str) -> str | None:
    """An option's value as argparse takes it: `-c x`, `-cx`, `--config x`, `--config=x`."""
    for index, word in enumerate(words):
        if word in (short, long) and index + 1 < len(words):
            return words[index + 1]
        if word.startswith(f"{long}="):
            return word.partition("=")[2]
        if word.startswith(short) and not word.startswith("--") and word not in OTHER_OPTIONS:
            return word[len(short) :] or None
    return None


def _has_tox_settings(path: Path) -> bool:
    if path.name == "setup.cfg":
        return bool(TOX_SECTION.search(_read(path)))
    if path.name == "pyproject.toml":
        tool = _toml(path).get("tool")
        return isinstance(tool, dict) and isinstance(tool.get("tox"), dict)
    return True  # tox.ini, tox.toml, and a file `-c` names


def _git_top(folder: Path) -> Path:
    """The top of the git tree `folder` lies in (itself where none is above)."""
    return next((a for a in (folder, *folder.parents) if os.path.lexists(a / ".git")), folder)


def _pre_commit_places(folder: Path, project: Path) -> list[Path]:
    """pre-commit takes its config from where it starts if there, else from the top of the git
    tree (it moves there before it runs)."""
    return list(dict.fromkeys([folder, _git_top(folder)]))


def _pre_commit_entries(config: Path, run_in: Path | None = None) -> list[Path]:
    """The files the hooks of a pre-commit config run, from the top of the git tree (or from
    `run_in`: prek runs a nested config's from its folder): what each
    `repo: local` entry's line (with its `args`) runs, read as a git hook's line is (its `make
    -s lint` the Makefile, its `python -m tools.lint` that module), for a `script` hook its
    first word from the top of the tree (and the config's folder); and what a hook
    repository's tool, run by its `id`, reads here (flake8's setup.cfg)."""
    from tools.tool_scripts import YamlTooLarge

    if str(config) in _PRE_COMMIT_READING:
        return []  # (an entry that runs pre-commit itself, with this config)
    try:
        if config.suffix == ".toml":  # (prek's own: `[[repos]]`, with `[[repos.hooks]]`)
            repos = toml_data(_read(config)).get("repos")
        else:
            repos = _yaml(config).get("repos")
    except (YamlTooLarge, ValueError, RecursionError) as why:  # (read all the same by the tool)
        raise CannotTell(f"{config}: {why}") from None
    except AttributeError:  # (not a mapping: pre-commit refuses it, and runs nothing)
        return []
    repos = [repo for repo in repos if isinstance(repo, dict)] if isinstance(repos, list) else []
    hooks = [
        (hook, repo.get("repo") == "local")
        for repo in repos
        if repo.get("repo") != "meta" and isinstance(repo.get("hooks"), list)
        for hook in repo["hooks"]
        if isinstance(hook, dict)
    ]
    found: list[Path] = []
    for hook, local in hooks:
        if not local:
            # A hook repository's tool (flake8, mypy, eslint), installed by pre-commit and run
            # here by its `id` (or the `entry` the config gives it): it reads its settings from
            # the tree as it would for a local hook. (Its own scripts lie in pre-commit's cache.)
            hook = {**hook, "entry": hook.get("entry") or hook.get("id"), "language": "system"}
        if not isinstance(hook.get("entry"), str) or hook.get("language") in PRE_COMMIT_NO_COMMAND:
            continue
        args = hook.get("args") if isinstance(hook.get("args"), list) else []
        try:  # (no shell: its words, each as it is, `~` and `$X` too)
            words = [*shlex.split(hook["entry"]), *map(str, args)]
        except ValueError:  # (pre-commit splits it so, and fails)
            continue
        line = shlex.join(literal_tilde(word) for word in words)
        if hook.get("language") in PRE_COMMIT_SCRIPTS and (first := hook["entry"].split()[:1]):
            # (from the top of the tree, where pre-commit runs it; and beside the config)
            for base in dict.fromkeys((_git_top(config.parent), config.parent)):
                found.append(Path(os.path.normpath(base / first[0])))
        _PRE_COMMIT_READING.add(str(config))
        try:  # (as for a git hook's line: commands ask for one only its shell can tell)
            whose = f"pre-commit's hook `{line[:80]}` of {config}"
            runs, later = _line_runs(line, run_in or _git_top(config.parent), whose)
        finally:
            _PRE_COMMIT_READING.discard(str(config))
        found += runs + later
    return found


def literal_tilde(word: str) -> str:
    """A word run without a shell, as a shell line must spell it: `~/bin/x` is the folder `~`
    where it runs (`./~/bin/x`), which no shell turns into your home."""
    return f"./{word}" if word.startswith("~") else word


# The pre-commit configs whose entries are being read (`_pre_commit_entries`).
_PRE_COMMIT_READING: set[str] = set()


def _first_there(candidates: list[Path], more=None) -> tuple[list[Path], list[Path]]:
    """The candidates that exist (held, with what `more` finds in them), and all of them (told
    when made: one made before the first there is what the tool reads then)."""
    there = [path for path in candidates if os.path.lexists(path)]
    held = there + [found for path in there for found in (more(path) if more else [])]
    return held, candidates


def _justfiles(option: Option, folder: Path, project: Path) -> tuple[list[Path], list[Path]]:
    """The justfile `--justfile` names, or those there or in the nearest folder above that has
    one; and those a command could make here."""
    named = _from(folder, option("-f", "--justfile"))
    if named:
        return [named], []
    here = [folder / name for name in JUSTFILES]
    for above in up_to(folder, project):
        there = [above / name for name in JUSTFILES if os.path.lexists(above / name)]
        if there:
            return there, here
    return [], here


def _with_what_they_read(
    held: list[Path], told: list[Path], reads: Callable[[Path], list[Path]]
) -> tuple[list[Path], list[Path]]:
    """`held` and `told` with the files each held one reads in turn (`reads`: held while
    there, told when made), and what those read (bounded), as make's `include`."""
    held, told = list(held), list(told)
    for each in held:  # (grows as it goes)
        for path in reads(each):
            if path not in held and path not in told and len(told) < MAX_INCLUDED * 4:
                told.append(path)
                held += [path] if os.path.lexists(path) else []
    return held, told


def _just_reads(justfile: Path) -> list[Path]:
    """The files a justfile's `import 'x.just'` (or `import?`) and `mod name` (or `mod? name
    'path'`) lines have just read, from its folder: a module's `name.just`, `name/mod.just`,
    `name/justfile` or `name/.justfile`, or for a path that is no file, those in that folder."""
    text, folder = _read(justfile), justfile.parent
    found = [_from(folder, _just_string(rest)) or justfile for rest in JUST_IMPORT.findall(text)]
    for name, path in JUST_MOD.findall(text):
        named = _from(folder, _just_string(path)) if path else None
        if named and not os.path.isdir(named):
            found.append(named)
        found += [] if named else [folder / f"{name}.just"]
        found += [(named or folder / name) / "mod.just", *_any_case(named or folder / name)]
    # The dotenv file it loads (whose variables reach each recipe's shell: `BASH_ENV`), and the
    # shell it runs recipes with, where they are paths here: `set dotenv-path := "ci/vars"`,
    # `set shell := ["./ci/sh", "-c"]` (a program by its name alone is on PATH).
    for setting, path in JUST_DOTENV.findall(text):
        named = _just_string(path)
        found.append(_from(folder, named) or justfile)
        if setting == "filename" and "/" not in named:  # (the nearest above that has it)
            found += [above / named for above in folder.parents]
    for programs in JUST_SHELL.findall(text):
        program = _just_string("".join(programs))
        found += [_from(folder, program) or justfile] if "/" in program else []
    return found


def _just_string(text: str) -> str:
    """The text of the just string literal `text` starts with, as just cooks it: escapes in
    a double-quoted one (`\\t`, `\\u{61}`), and with an `x` before it `~` and `$VAR` expanded
    (from this environment, which the host tool's is)."""
    expanded = text.startswith("x")
    match = JUST_STRING.match(text.removeprefix("x"))
    if not match:
        return text
    raw = match[1] if match[1] is not None else match[3]
    escaped = match[2] if match[2] is not None else match[4] or ""
    cooked = raw if raw is not None else JUST_ESCAPE.sub(_just_escape, escaped)
    return expand_variables(os.path.expanduser(cooked)) if expanded else cooked


def _just_escape(match: re.Match) -> str:
    if match[2] is None:
        return JUST_ESCAPES.get(match[1], match[0])
    with contextlib.suppress(ValueError):
        return chr(int(match[2], 16))
    return match[0]


def _any_case(folder: Path, names: tuple[str, ...] = JUSTFILES) -> list[Path]:
    """`names` in `folder`, and each file there whose name is one of them in other letters
    (just takes a module's justfile in any case)."""
    lower = {name.lower() for name in names}
    with contextlib.suppress(OSError):
        there = [folder / n for n in os.listdir(folder) if n.lower() in lower]
        return list(dict.fromkeys([*(folder / name for name in names), *there]))
    return [folder / name for name in names]


def local_code(config: Path, *also_from: Path) -> list[Path]:
    """The files of the workspace a tool's data config names by a relative path, which it
    loads as code (commitlint's `extends`, prettier's and stylelint's `plugins`, an
    .eslintrc's `parser`, rubocop's `require`): `./tools/cl.js`, or `./tools/cl` as node
    finds it; from the config's folder, and from `also_from` (where the tool runs: stylelint
    tries a plugin's path from there when the config's folder has none). A JavaScript config,
    and package.json, are the project's code, read no further."""
    if os.path.isdir(config) or config.name.startswith("package."):
        return []
    if config.suffix in JS_SUFFIXES or config.suffix in (".php", ".rb", ".py", ".go", ".coffee"):
        return []
    text = _read(config)
    folders = [config.parent, *also_from, *_module_paths(text, config.parent)]
    strings = config_strings(config, text)
    return [path for folder in folders for path in local_paths(text, folder, strings)]


# markdownlint-cli2's `modulePaths`, in a JSON list or a YAML block list: the folders it
# resolves a rule's path from after the config's own (`"customRules": ["./rule.cjs"]`).
MODULE_PATHS_JSON = re.compile(r"""["']?modulePaths["']?[ \t]*+:[ \t]*+\[([^\]]*+)\]""")
MODULE_PATHS_YAML = re.compile(r"(?m)^[ \t]*+modulePaths:[ \t]*+\n((?:[ \t]*+-[^\n]*+\n?)*+)")


def _module_paths(text: str, folder: Path) -> list[Path]:
    """The folders a config's `modulePaths` names, from `folder`."""
    if "modulePaths" not in text:
        return []
    listed = [m[1] for m in MODULE_PATHS_JSON.finditer(text)]
    listed += [m[1] for m in MODULE_PATHS_YAML.finditer(text)]
    words = [w.strip(" \t\"'-") for block in listed for w in re.split(r"[,\n]", block)]
    return [Path(os.path.normpath(folder / w)) for w in words if w and "$" not in w]


def per_file_code(
    config: Path, project: Path, per_file: list[tuple[Path, str]] | None = None
) -> list[Path]:
    """What a config in a folder below the tool's runs or loads (tools/per_file_configs.py):
    what the entries of prek's config run (prek runs them from the config's folder), the
    command lines of lint-staged's (from the config's folder, where lint-staged runs them when
    it found several configs, and from `project`, where it runs them when this is the only
    one), and the local code a data config names (`local_code`). The tools those lines run that
    take configs per file go to `per_file`."""
    if config.name in PRE_COMMIT_NAMES:
        return _pre_commit_entries(config, config.parent)
    if config.name in PER_FILE_CONFIGS["lint-staged"] or config.name in PACKAGE_FILES:
        return staged_entries(config, project, per_file)
    return list(dict.fromkeys(local_code(config, project)))


def staged_entries(
    config: Path, project: Path | None = None, per_file: list[tuple[Path, str]] | None = None
) -> list[Path]:
    """What the command lines of a lint-staged config (or its key in package.json) run, read
    as a git hook's lines are from the config's folder, where lint-staged runs them when it
    finds more than one config. A line only its shell can tell: CannotTell."""
    from tools.tool_scripts import staged_commands  # (it imports this module)

    found: list[Path] = []
    for line in staged_commands(config):
        whose = f"lint-staged's command `{line[:80]}` of {config}"
        for folder in dict.fromkeys(filter(None, (config.parent, project))):
            runs, later = _line_runs(line, folder, whose, project or folder, per_file)
            found += runs + later
    return found


# The escapes a data config's strings may spell a path's characters with (JSON's `\u002e`
# and `\/`, JSON5's and YAML's `\x2e`): the tool reads the character.
ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\U([0-9a-fA-F]{8})|\\(/)")


def unescaped(text: str) -> str:
    """`text` with each ESCAPE replaced by the character it stands for."""
    return ESCAPE.sub(
        lambda match: chr(int(match[1] or match[2] or match[3], 16)) if not match[4] else "/", text
    )


def local_paths(text: str, folder: Path, exact: Iterable[str] = ()) -> list[Path]:
    """The relative paths in a data config's `text` (LOCAL_PATH) and among its strings `exact`
    (read by its parser: a path may hold any character, `./p;.mjs`, where LOCAL_PATH ends
    one), from its `folder`, each with the files node would try for one without a suffix; at
    most MAX_INCLUDED of them."""
    found: list[Path] = []
    spelled = text if "\\" not in text else f"{text}\n{unescaped(text)}"
    relative = [match[0] for match in LOCAL_PATH.finditer(spelled)]
    relative += [string for string in exact if string.startswith(("./", "../"))]
    for name in dict.fromkeys(relative):
        path = Path(os.path.normpath(folder / name))
        found.append(path)
        if not path.suffix:  # (`require("./tools/cl")`: node tries these)
            found += [Path(f"{path}{suffix}") for suffix in JS_SUFFIXES]
            found.append(path / "index.js")
        if len(found) > MAX_INCLUDED:
            break
    return found


def config_strings(config: Path, text: str) -> list[str]:
    """Every string value of a data config, as its tools' parsers read it: TOML, or each of
    JSON with comments and YAML that reads it (`data_readings`: what a `.prettierrc` names to
    either counts), or JSON5 (`json5_strings`) where none does."""
    from tools.tool_scripts import data_readings  # (that module imports this one)

    readings: list[Any] = []
    with contextlib.suppress(ValueError, RecursionError):
        readings = [toml_data(text)] if config.suffix == ".toml" else data_readings(config, text)
    if all(reading is None for reading in readings):
        return json5_strings(text)
    strings, stack = [], list(readings)
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            strings.append(node)
        elif isinstance(node, dict):
            stack += node.values()
        elif isinstance(node, list):
            stack += node
    return strings


# What a backslash and one character stand for in a JSON5 string; any other character stands
# for itself (`\\q` is `q`), and one that ends a line is left out (the string goes on).
JSON5_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "0": "\0"}
JSON5_LINE_ENDS = "\n\r\u2028\u2029"
JSON5_HEX = {"x": 2, "u": 4}
LINE_END = re.compile(r"[\r\n\u2028\u2029]")


def json5_strings(text: str) -> list[str]:
    """Every string of a JSON5 text, as JSON5 reads it (`'prettier-plugin-\\q'` is
    `prettier-plugin-q`, `\\x2e` a dot), past its comments; in one pass over the text."""
    strings: list[str] = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if text.startswith("//", index):
            found = LINE_END.search(text, index)
            index = found.start() if found else length
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            index = length if end < 0 else end + 2
        elif char in "\"'":
            out, index = [], index + 1
            while index < length and text[index] != char:
                if text[index] != "\\" or index + 1 == length:
                    out.append(text[index])
                    index += 1
                    continue
                escaped = text[index + 1]
                digits = text[index + 2 : index + 2 + JSON5_HEX.get(escaped, 0)]
                if escaped in JSON5_HEX and re.fullmatch(r"[0-9a-fA-F]+", digits or "-"):
                    out.append(chr(int(digits, 16)))
                    index += 2 + len(digits)
                elif escaped in JSON5_LINE_ENDS:
                    index += 3 if text.startswith("\r\n", index + 1) else 2
                else:
                    out.append(JSON5_ESCAPES.get(escaped, escaped))
                    index += 2
            strings.append("".join(out))
            index += 1
        else:
            index += 1
    return strings


def _ninja_reads(folder: Path) -> Callable[[Path], list[Path]]:
    """What a build.ninja's `include` and `subninja` lines have ninja read, from the folder it
    runs in (`folder`); a path with a variable (`include $builddir/x.ninja`) only ninja can
    tell: CannotTell."""

    def reads(build_file: Path) -> list[Path]:
        found = []
        for path in NINJA_INCLUDE.findall(_read(build_file)):
            if "$" in path:
                raise CannotTell(
                    f"`include {path[:80]}` of {build_file}, a path only ninja can tell"
                )
            found.append(Path(os.path.normpath(folder / path.strip())))
        return found

    return reads


def _project_builds(config: Path) -> list[Path]:
    """What a project manager's sync builds, and so runs, besides the project's own setup.py or
    build hook, for a pyproject.toml: its in-tree backend (`_in_tree_backend`), the build hooks
    hatch's settings name (`[tool.hatch.build.hooks.custom] path`), and each local project uv
    installs (a `path` source, `[tool.uv.sources] x = { path = "libs/x" }`, and each workspace
    member), with the same files of theirs and what those build in turn (bounded)."""
    found: list[Path] = []
    waiting, seen = [config], {config}
    while waiting and len(seen) <= MAX_BUILD_PROJECTS:
        pyproject = waiting.pop()
        if pyproject.name != "pyproject.toml":
            continue
        settings, folder = _toml(pyproject), pyproject.parent
        found += _in_tree_backend(pyproject)
        tool = _dict_of(settings.get("tool"))
        hatch = _dict_of(tool.get("hatch"))
        hooks = [_dict_of(_dict_of(hatch.get("build")).get("hooks")).get("custom")]
        targets = _dict_of(_dict_of(hatch.get("build")).get("targets")).values()
        hooks += [_dict_of(_dict_of(t).get("hooks")).get("custom") for t in targets]
        hooks += [_dict_of(_dict_of(hatch.get("metadata")).get("hooks")).get("custom")]
        found += [
            folder / _dict_of(hook).get("path", "hatch_build.py")
            for hook in hooks
            if isinstance(hook, dict) and isinstance(hook.get("path", ""), str)
        ]
        uv = _dict_of(tool.get("uv"))
        sources = [
            source
            for value in _dict_of(uv.get("sources")).values()
            for source in (value if isinstance(value, list) else [value])
        ]
        local = [_dict_of(s).get("path") for s in sources]
        members = _dict_of(uv.get("workspace")).get("members")
        for pattern in members if isinstance(members, list) else []:
            if isinstance(pattern, str):
                local += glob.glob(glob.escape(str(folder)) + "/" + pattern)
        for path in (Path(os.path.normpath(folder / p)) for p in local if isinstance(p, str)):
            if not os.path.isdir(path):
                found.append(path)  # (a wheel or an sdist it installs)
                continue
            found += [path / name for name in (*PYTHON_PROJECT, "hatch_build.py")]
            if path / "pyproject.toml" not in seen:
                seen.add(path / "pyproject.toml")
                waiting.append(path / "pyproject.toml")
    if len(seen) > MAX_BUILD_PROJECTS:
        raise CannotTell(f"more than {MAX_BUILD_PROJECTS} local projects {config} builds")
    return list(dict.fromkeys(found))


def _in_tree_backend(config: Path) -> list[Path]:
    """The folders a pyproject.toml's `[build-system] backend-path` puts first on the build's
    path: the build backend that runs from there is the project's (`_build/backend.py`)."""
    if config.name != "pyproject.toml":
        return []
    paths = _dict_of(_toml(config).get("build-system")).get("backend-path")
    found = (
        [_from(config.parent, p) for p in paths if isinstance(p, str)]
        if isinstance(paths, list)
        else []
    )
    return [path for path in found if path is not None and os.path.lexists(path)]


def _lefthook_reads(config: Path) -> list[Path]:
    """The files a lefthook config names plainly: those it `extends`, its `rc` (a script it
    sources), and its script folders (`source_dir`), from the top of the tree it runs in."""
    if os.path.isdir(config):
        return []
    top = config.parent.parent if config.parent.name == ".config" else config.parent
    lines = _read(config).splitlines()
    found: list[Path] = []
    # Read as its format is (an `extends` list over several lines of JSON or TOML), and line
    # by line as YAML lists them (which also reads a file its parser would refuse).
    parsed = _lefthook_settings_values(config)
    for index, line in enumerate(lines):
        if (match := LEFTHOOK_PATH_KEY.match(line)) is None:
            continue
        rest = YAML_COMMENT.sub("", match[2]).strip().rstrip(",").strip("[]")  # (`[a, b]`, `,`)
        values = [value.strip().strip("\"'") for value in rest.split(",")] if rest else []
        for after in lines[index + 1 : index + 1 + MAX_INCLUDED] if not rest else []:
            if (item := LEFTHOOK_ITEM.match(after)) is None:
                break  # (the list under `extends:` ends)
            values.append(YAML_COMMENT.sub("", item[1]).strip().strip("\"'"))
        parsed += values
    for value in dict.fromkeys(value for value in parsed if value and "://" not in value):
        if any(char in value for char in "*?["):
            # (`extends: [hooks/*.yml]`, expanded by lefthook: the folder it searches, whole,
            # and where that is the top, what it matches now)
            folder = os.path.dirname(value)
            found += [_from(top, folder)] if folder.strip("./") else []
            found += sorted(Path(p) for p in glob.glob(str(top / value)))[:MAX_INCLUDED]
        else:
            found.append(_from(top, value))
    return [path for path in found if path is not None]


def _lefthook_settings_values(config: Path) -> list[str]:
    """The paths a lefthook config's `extends`, `rc` and `source_dir` keys give, read as JSON,
    TOML or YAML by its name; none where it does not parse."""
    from tools.tool_scripts import read_yaml, without_comments  # (that module imports this one)

    text = _read(config)
    try:
        if config.suffix in (".json", ".jsonc"):
            settings = json.loads(without_comments(text))
        elif config.suffix == ".toml":
            settings = toml_data(text)
        else:
            settings = read_yaml(text)
    except (ValueError, RecursionError):
        return []
    settings = settings if isinstance(settings, dict) else {}
    values: list[str] = []
    for key in ("extends", "rc", "source_dir", "source_dir_local"):
        value = settings.get(key)
        values += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    return values


def _task_includes(taskfile: Path) -> list[Path]:
    """The Taskfiles a Taskfile's `includes:` name from its folder (an entry's text, or its
    `taskfile:`): the file, or for a folder the Taskfile task looks for there. A URL is not in
    the workspace; task's own variables are put in (`_task_filled`)."""
    from tools.tool_scripts import YamlTooLarge  # (that module imports this one)

    try:
        includes = _yaml(taskfile).get("includes")
    except (YamlTooLarge, ValueError, RecursionError) as why:
        # task reads it all the same: Go's YAML takes the first document of several, where
        # PyYAML refuses the file, and goes deeper.
        raise CannotTell(f"{taskfile}, which planloop cannot read ({why})") from None
    except AttributeError:
        return []  # (no table: no Taskfile to task either)
    found: list[Path] = []
    # The dotenv files it loads, for the whole file and for each task (whose variables reach
    # the task's shell: `BASH_ENV`).
    data = _yaml(taskfile)
    tasks = _dict_of(data.get("tasks"))
    for owner in [data, *(task for task in tasks.values() if isinstance(task, dict))]:
        dotenv = owner.get("dotenv")
        for named in dotenv if isinstance(dotenv, list) else []:
            if isinstance(named, str):
                found.append(_from(taskfile.parent, _task_filled(named, taskfile)) or taskfile)
    for entry in includes.values() if isinstance(includes, dict) else []:
        named = entry.get("taskfile") if isinstance(entry, dict) else entry
        named = _task_filled(named, taskfile) if isinstance(named, str) else named
        path = _from(taskfile.parent, named) if isinstance(named, str) else None
        if path is None or "://" in named:
            continue
        found += [path / name for name in TASKFILES] if os.path.isdir(path) else [path]
    return found


def _task_filled(text: str, taskfile: Path) -> str:
    """A Taskfile's path with task's own variables put in (`{{.TASKFILE_DIR}}/ci/vars`,
    `./{{OS}}/Taskfile.yml`); any other template is task's alone: CannotTell."""
    values = {".TASKFILE_DIR": str(taskfile.parent), ".ROOT_DIR": str(taskfile.parent)}
    values |= {"OS": "linux" if sys.platform.startswith("linux") else sys.platform}
    values |= {"ARCH": TASK_ARCH.get(platform.machine(), platform.machine())}
    filled = TASK_TEMPLATE.sub(lambda m: values.get(m[1], m[0]), text)
    if "{{" in filled:
        raise CannotTell(f"`{text[:80]}` in {taskfile}: a value only task can tell")
    return filled


TASK_TEMPLATE = re.compile(r"\{\{[ \t]*+([.\w]++)[ \t]*+\}\}")
TASK_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}  # (Go's names for them)


def _make_files(words: tuple[str, ...], folder: Path) -> tuple[list[Path], list[Path]]:
    """(held, told) for make run with `words` in `folder`: the makefile (`-f`, or the first of
    MAKEFILES there), those MAKEFILES and MAKEFLAGS name, and what each includes."""
    flags = _make_flags(words)
    dirs = _include_dirs(flags + words, folder)
    named = _from(folder, _options(words)(*MAKE_FILE_OPTIONS))
    makefiles = [named] if named else [folder / name for name in MAKEFILES]
    held, told = _first_there(makefiles, lambda makefile: _included(makefile, folder, dirs))
    held_first, told_first = _read_first(flags, words, folder, dirs)
    # The shell it runs every recipe line with, where a makefile names one here
    # (`SHELL := ./ci/shell`): as npm's script-shell, it runs even for `echo`.
    shells = [found for each in held for found in MAKE_SHELL.findall(_read(each))]
    shells += [("", word.partition("=")[2]) for word in words if word.startswith("SHELL=")]
    for each in held:
        if why := gives_its_shell(_read(each)):
            raise CannotTell(f"{why} ({each})")
    held_shells = []
    for how, name in shells:
        name = name.replace("$(CURDIR)", str(folder)).replace("${CURDIR}", str(folder))
        if how == "!" or "$" in name:  # (a command's output, or a value only make can tell)
            raise CannotTell(f"the SHELL a makefile in {folder} sets, `{name[:80]}`")
        if "/" in name and (path := _from(folder, name)) is not None:
            held_shells.append(path)
    return held + held_first + held_shells, told + told_first


def gives_its_shell(text: str) -> str | None:
    """Why a makefile's `text` gives the shell of its recipes what planloop does not read
    (MAKE_GIVEN_TO_SHELL, MAKE_EVAL_OF_OUTPUT), or None."""
    from tools.your_configs import CODE_VARIABLE_NAMES  # (it imports this module)

    for found in MAKE_GIVEN_TO_SHELL.finditer(text):
        exported, name = found.groups()
        if name in (".SHELLFLAGS", "PATH") or exported and name in CODE_VARIABLE_NAMES:
            line = text[found.start() :].partition("\n")[0].strip()
            return f"`{line[:60]}` gives its recipes' shell {name}"
    if MAKE_EVAL_OF_OUTPUT.search(text):
        return "`$(eval $(shell ...))` makes lines only make can tell"
    return None


def make_variable_files(
    variables: Mapping[str, str], folder: Path
) -> tuple[list[Path], list[Path]]:
    """(held, told) for the makefiles that make's variables (MAKE_VARIABLES), set for what a
    host tool runs from `folder`, name: any make started there reads them before its own
    Makefile (a VS Code terminal's `MAKEFILES`, where the person types `make`)."""
    words = tuple(f"{name}={variables[name]}" for name in MAKE_VARIABLES if name in variables)
    flags = _make_flags(words)
    return _read_first(flags, words, folder, _include_dirs(flags, folder))


def _include_dirs(words: tuple[str, ...], folder: Path) -> list[Path]:
    """The `-I` folders among make's `words`, from `folder`."""
    return [_from(folder, name) or folder for name in option_values(words, *MAKE_INCLUDE_DIRS)]


def _read_first(
    flags: tuple[str, ...], words: tuple[str, ...], folder: Path, dirs: list[Path]
) -> tuple[list[Path], list[Path]]:
    """(held, told) for the makefiles make reads before its own: those MAKEFLAGS' `-f` and
    MAKEFILES name (searched as an include is), and what each includes."""
    first = [folder / name for name in option_values(flags, *MAKE_FILE_OPTIONS) if name]
    for value in _assigned(flags + words, "MAKEFILES"):
        first += [path for name in value.split() for path in _searched(name, folder, dirs)]
    first = [Path(os.path.normpath(path)) for path in first]
    there = [path for path in first if os.path.lexists(path)]
    return there + [more for path in there for more in _included(path, folder, dirs)], first


def _make_flags(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words of each MAKEFLAGS among `words`, as make reads them: a first word without a
    dash is single-letter options (`MAKEFLAGS='I mk'` is `-I mk`)."""
    flags: list[str] = []
    for value in _assigned(words, "MAKEFLAGS"):
        try:
            split = shell_words(value)
        except WordTooLong:
            raise
        except ValueError:
            continue
        if split and not split[0].startswith("-") and "=" not in split[0]:
            split[0] = f"-{split[0]}"
        flags += split
    return tuple(flags)


def _assigned(words: tuple[str, ...], name: str) -> list[str]:
    """The values `words` give the variable `name` (`MAKEFILES=a.mk`)."""
    return [word.partition("=")[2] for word in words if word.startswith(f"{name}=")]


def _included(makefile: Path, folder: Path, dirs: list[Path]) -> list[Path]:
    """The files a makefile's `include` lines name by a plain path, globs expanded, and those
    they include in turn (bounded): make takes each name from the folder it runs in, or else
    from the `-I` folders `dirs`."""
    found = [makefile]
    variables: dict[str, str | None] = {"CURDIR": str(folder)}
    for each in found:  # (grows as it goes)
        lines = _make_lines(_read(each))
        for line in lines:
            if (setting := MAKE_SETTING.fullmatch(line)) and setting[1] != "CURDIR":
                value = setting[2].strip()
                known = variables.get(setting[1], value)
                variables[setting[1]] = value if known == value and "$" not in value else None
        read = [found[1].strip() for line in lines for found in MAKE_FILE_READ.finditer(line)]
        evaluated = [text for line in lines for text in _make_evaluated(line)]
        included = [name for line in [*lines, *evaluated] for name in _make_included(line)]
        for name in [*included, *read]:
            if "$" in name:
                name = MAKE_REFERENCE.sub(lambda found: _make_value(found, variables), name)
            if "$" in name:
                raise CannotTell(f"`include {name}` of {each}, a path only make can tell")
            for path in _searched(name, folder, dirs):
                if path not in found and len(found) <= MAX_INCLUDED:
                    found.append(path)
    return found[1:]


def _make_value(reference: re.Match, variables: Mapping[str, str | None]) -> str:
    """A variable's value as an include line gets it: set plainly, once, in the makefiles
    read so far, else your environment's; as written (`$`: untold) for any other."""
    name = reference[1] or reference[2]
    if name in variables:
        return variables[name] if variables[name] is not None else reference[0]
    return without_secrets().get(name, reference[0])


def _searched(name: str, folder: Path, dirs: list[Path]) -> list[Path]:
    """Where make looks for the included makefile `name` (a glob: what it matches), up to the
    first place that has it: `folder`, then each of `dirs` for a relative name. Those before
    it are missing, and one a command made there would be read instead."""
    name = os.path.expanduser(name)
    places: list[Path] = []
    for base in [folder] if os.path.isabs(name) else [folder, *dirs]:
        matches = [Path(p) for p in glob.glob(str(base / name))]
        if glob.has_magic(name):
            # What a glob matches later is read too (`-include mk/*.mk`, a new mk/zz.mk): the
            # folder it searches is held whole.
            fixed = itertools.takewhile(lambda part: not glob.has_magic(part), Path(name).parts)
            places.append(Path(os.path.normpath(base.joinpath(*fixed))))
        if matches:
            return places + matches
        places.append(base / name)
    return places


def _make_lines(text: str) -> list[str]:
    """A makefile's logical lines as make reads them: a return before a line feed dropped, and
    a line that ends in an odd number of backslashes joined to the next with one space (the
    blanks around the join dropped); a run of backslashes before a line feed keeps half."""
    lines: list[str] = []
    # The line joined so far, in pieces: joined into one string at each line, the join read
    # everything before it again (1 MiB of `a\` lines: 21 s).
    joined: list[str] = []
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        line = line.lstrip(MAKE_BLANKS) if joined else line  # (the next line of a join)
        slashes = len(line) - len(line.rstrip("\\"))
        kept = line[: len(line) - slashes] + "\\" * (slashes // 2)
        if slashes % 2:
            # What is joined so far ends in one space, after no other blank; a piece of
            # blanks alone adds nothing, as the blanks before a join are dropped.
            piece = kept.rstrip(MAKE_BLANKS)
            if piece or not joined:
                joined.append(piece + " ")
            continue
        lines.append("".join(joined) + (kept if slashes else line))
        joined = []
    return [*lines, "".join(joined)] if joined else lines


def _make_evaluated(line: str) -> list[str]:
    """The text each `$(eval ...)` of a line has make read as makefile lines (`$(eval include
    mk/extra.mk)` includes it as a line would), to its matching parenthesis."""
    found = []
    for start in MAKE_EVAL.finditer(line):
        depth, index = 1, start.end()
        opening, closing = start[1], ")" if start[1] == "(" else "}"
        while index < len(line) and depth:
            depth += {opening: 1, closing: -1}.get(line[index], 0)
            index += 1
        found.append(line[start.end() : index - 1] if not depth else line[start.end() :])
    return found


def _make_included(line: str) -> list[str]:
    """The names an include line gives (one with a `$` make expands first: `_included`): its
    comment cut off, then each word from past the blanks before it to a space or a tab that no
    backslash escapes."""
    if not (match := MAKE_INCLUDE.fullmatch(line)) or not match[1]:
        return []
    text, names, index = _make_cut(match[1], "#")[0], [], 0
    text = MAKE_WILDCARD.sub(lambda found: found[1], text)  # `$(wildcard mk/*.mk)`: its globs
    while (word := MAKE_WORD.search(text, index)) is not None:
        name, index = _make_cut(text, MAKE_BLANKS, word.start())
        names.append(name)
    return names


def _make_cut(text: str, stops: str, start: int = 0) -> tuple[str, int]:
    """`text` from `start` up to the first of `stops` that no backslash escapes, as make's
    find_char_unquote reads it (a run of backslashes before one keeps half of them, and an odd
    run makes it a plain character), and where in `text` that one is (its length: none)."""
    pieces, kept = [], start
    # A run of backslashes is read from its first one only: read from each, a run with no stop
    # after it took time quadratic in the run.
    unescaped = re.compile(rf"(?<!\\)(\\*+)([{re.escape(stops)}])")
    for match in unescaped.finditer(text, start):
        pieces += [text[kept : match.start()], "\\" * (len(match[1]) // 2)]
        kept = match.end()
        if len(match[1]) % 2 == 0:
            return "".join(pieces), match.start(2)
        pieces.append(match[2])
    return "".join([*pieces, text[kept:]]), len(text)


def _cargo_configs(start: Path, project: Path) -> list[Path]:
    """cargo's own settings files there and above (`.cargo/config.toml`), which can put local
    crates in the place of published ones (`[patch]`, `paths`, a vendored source)."""
    names = (".cargo/config.toml", ".cargo/config")
    return [above / name for above in up_to(start, project) for name in names]


def _cargo_files(
    manifests: list[Path], folder: Path, configs: list[Path]
) -> tuple[list[Path], list[Path]]:
    """The manifests, the workspace members' and local dependencies' manifests, each package's
    build script, the source of the crates the compiler runs (`_runs_at_build`), and what
    cargo's settings put in the place of published crates: a vendored folder whole (cargo
    builds, and runs the proc macros, from there; its checksums lie beside them)."""
    held, told = list(manifests), list(configs)
    manifests = manifests + [crate for config in configs for crate in _local_dependencies(config)]
    held += [folder for config in configs for folder in _vendored_folders(config)]
    packages = list(manifests)
    for manifest in manifests:
        members = _toml(manifest).get("workspace", {}).get("members", [])
        for pattern in members if isinstance(members, list) else []:
            if isinstance(pattern, str):
                matches = glob.glob(str(manifest.parent / pattern / "Cargo.toml"))
                packages += [Path(m) for m in matches]
            if len(packages) > MAX_CARGO_MEMBERS:  # (past it, one left out would be writable)
                raise CannotTell(f"more than {MAX_CARGO_MEMBERS} members of {manifest}")
    packages = _with_local_dependencies(packages)
    held += [source for manifest in _runs_at_build(packages) for source in _lib_folder(manifest)]
    for manifest in dict.fromkeys(packages):
        package = _toml(manifest).get("package")
        build = package.get("build") if isinstance(package, dict) else None
        script = manifest.parent / (build if isinstance(build, str) else "build.rs")
        if manifest not in held:
            held.append(manifest)
        told += [manifest, script]  # (a new build.rs is built and run by the next check)
        modules = _rust_modules(script)  # (`mod gen;`: build/gen.rs is compiled into it)
        held, told = held + modules, told + modules
    if not manifests:  # none yet: one made here would be the package cargo builds
        told += [folder / "Cargo.toml", folder / "build.rs"]
    return [path for path in held if os.path.lexists(path)], told


def _rust_modules(script: Path) -> list[Path]:
    """The files compiled into a Rust file with it, as rustc finds them: each `mod x;` (x.rs or
    x/mod.rs beside a crate root or a mod.rs, in a folder of the file's name beside any other
    file), `#[path = "p"] mod x;` and `include!("p")` (from the file's folder), and theirs in
    turn; those not there yet too, told when made. A module declared inside an inline one
    (`mod a { mod b; }`, a/b.rs) is past these rules: CannotTell."""
    found: list[Path] = []
    waiting = [(script, True)]
    while waiting:
        source, root = waiting.pop()
        text = (_read(source) if os.path.isfile(source) else "") + "\n"
        text = replaced(text, delimited(text, *RUST_COMMENTS), " ")
        if RUST_INLINE_MOD.search(text) and RUST_MOD.search(text):
            raise CannotTell(f"{source} declares modules inside an inline module")
        beside = source.parent
        folder = beside if root or source.name == "mod.rs" else beside / source.stem
        named: list[tuple[Path, bool]] = []
        for match in RUST_MOD.finditer(text):
            path, name = match["path"], match["name"]
            if path is not None:
                named.append((Path(os.path.normpath(beside / path)), False))
            else:
                named += [(folder / f"{name}.rs", False), (folder / name / "mod.rs", False)]
        for match in RUST_INCLUDE.finditer(text):
            named.append((Path(os.path.normpath(beside / match[1])), root))  # (read as its own)
        # Any other `.rs` file the text names (`#[cfg_attr(unix, path = "x.rs")]`,
        # `include!["x.rs"]`, a raw string): held too, as rustc may take it.
        files = [m[1] for m in RUST_STRING.finditer(text) if m[1].endswith(".rs")]
        named += [(Path(os.path.normpath(beside / name)), False) for name in files]
        if RUST_MACRO_PATH.search(text):  # (`include!(concat!(env!(...), ...))`)
            raise CannotTell(f"{source} builds a path to a file it compiles in")
        for path, path_root in named:
            if path not in found and len(found) < MAX_INCLUDED:
                found.append(path)
                waiting.append((path, path_root))
    return found


def _local_dependencies(manifest: Path, kinds: tuple[str, ...] = DEPENDENCY_TABLES) -> list[Path]:
    """The manifests of the crates `manifest` depends on by a `path`, in the tables `kinds`
    (also a target's: `[target.'cfg(unix)'.dependencies]`, and the workspace's own)."""
    data = _toml(manifest)
    base = manifest.parent.parent if manifest.parent.name == ".cargo" else manifest.parent
    tables = [data, data.get("workspace", {})]
    tables += [t for t in data.get("target", {}).values() if isinstance(t, dict)]
    groups = [table.get(kind) for table in tables for kind in kinds if isinstance(table, dict)]
    # A crate put in the place of a published one: `[patch.crates-io] x = { path = ... }`,
    # the older `[replace]`, and a settings file's `paths = ["../x"]`.
    patches = data.get("patch", {})
    groups += list(patches.values()) if isinstance(patches, dict) else []
    groups.append(data.get("replace"))
    found = [
        Path(os.path.normpath(base / entry["path"])) / "Cargo.toml"
        for entries in groups
        if isinstance(entries, dict)
        for entry in entries.values()
        if isinstance(entry, dict) and isinstance(entry.get("path"), str)
    ]
    paths = data.get("paths")
    if isinstance(paths, list):
        found += [base / path / "Cargo.toml" for path in paths if isinstance(path, str)]
    return found


def _vendored_folders(config: Path) -> list[Path]:
    """The folders a cargo settings file takes crates from instead of the registry (`[source.X]
    directory = "vendor"`, as `cargo vendor` writes it, or `local-registry = "reg"`: its
    index and `.crate` files). Cargo.lock stays writable, as a sandboxed `cargo build` or
    `cargo add` writes it; with every local source held it can only choose a version that
    was there before the command."""
    sources = _toml(config).get("source", {})
    base = config.parent.parent  # (beside .cargo/)
    return [
        Path(os.path.normpath(base / source[kind]))
        for source in (sources.values() if isinstance(sources, dict) else [])
        if isinstance(source, dict)
        for kind in LOCAL_SOURCES
        if isinstance(source.get(kind), str)
    ]


def _with_local_dependencies(manifests: list[Path]) -> list[Path]:
    """`manifests` and, over and over, the local crates they depend on (bounded)."""
    found = list(dict.fromkeys(manifests))
    for manifest in found:  # (grows as it goes)
        for more in _local_dependencies(manifest):
            if more not in found and os.path.isfile(more):
                found.append(more)
            if len(found) > MAX_CARGO_MEMBERS:
                raise CannotTell(f"more than {MAX_CARGO_MEMBERS} local crates from {manifest}")
    return found


def _runs_at_build(manifests: list[Path]) -> list[Path]:
    """The crates among `manifests` whose code the compiler runs while it builds: each
    proc-macro crate, each crate a build script uses (`[build-dependencies]`), and the local
    crates those depend on."""
    runs = [m for m in manifests if _is_proc_macro(m)]
    runs += [d for m in manifests for d in _local_dependencies(m, ("build-dependencies",))]
    return [m for m in _with_local_dependencies(runs) if os.path.isfile(m)]


def _is_proc_macro(manifest: Path) -> bool:
    lib = _toml(manifest).get("lib", {})
    return isinstance(lib, dict) and (
        lib.get("proc-macro") is True or lib.get("proc_macro") is True
    )


def _lib_folder(manifest: Path) -> list[Path]:
    """The folder of a crate's library source (src/, or the folder of what `[lib] path` names)."""
    lib = _toml(manifest).get("lib", {})
    path = lib.get("path") if isinstance(lib, dict) else None
    source = manifest.parent / (path if isinstance(path, str) else "src/lib.rs")
    folder = Path(os.path.normpath(source.parent))
    return [folder] if os.path.isdir(folder) else []


def _gradle_files(
    wrapper: bool, option: Option, folder: Path, project: Path
) -> tuple[list[Path], list[Path]]:
    """What Gradle reads and runs for a build started in `folder` (see the table above)."""
    start = _from(folder, option("-p", "--project-dir")) or folder
    searched = up_to(start, project)
    root = next((a for a in searched if _any_there(a, GRADLE_SETTINGS)), start)
    # A settings file a command makes between here and the root becomes the build's root.
    told = [a / name for a in _until(searched, root) for name in GRADLE_SETTINGS]
    projects = [start, root, *_gradle_subprojects(root)]
    told += [p / name for p in dict.fromkeys(projects) for name in GRADLE_BUILDS]
    told += [root / "gradle.properties", root / "buildSrc"]
    told += [root / GRADLE_CATALOG, *_gradle_catalogs(root)]
    if wrapper:  # the script's own folder, or the root's where the line names another path
        wrappers = [f / name for f in dict.fromkeys((folder, root)) for name in GRADLE_WRAPPER]
        told += wrappers + [d for w in wrappers for d in _gradle_distribution(w)]
    init_script = _from(folder, option("-I", "--init-script"))
    told += [init_script] if init_script else []
    told += [home] if (home := _from(folder, option(*GRADLE_USER_HOME_OPTIONS))) else []
    held = _with_applied([path for path in told if os.path.lexists(path)])
    return list(dict.fromkeys(held + _gradle_included_builds(root))), told


def gradle_user_homes(java_options: str) -> list[str]:
    """The Gradle user homes (as written) that java options name (`-Dgradle.user.home=gh` in
    GRADLE_OPTS or JAVA_OPTS); java keeps the last, any of them may be it."""
    try:
        words = shell_words(java_options)
    except WordTooLong:
        raise
    except ValueError:  # an open quote: the start script would fail, but read it whole
        words = java_options.split()
    homes = [word.removeprefix(GRADLE_USER_HOME_PROPERTY) for word in words]
    return [home for home, word in zip(homes, words, strict=True) if home and home != word]


def _gradle_catalogs(root: Path) -> list[Path]:
    """The version catalogs the settings name by a plain path besides the default one
    (`versionCatalogs { create("tools") { from(files("gradle/tools.toml")) } }`)."""
    named = [n for s in GRADLE_SETTINGS for n in GRADLE_CATALOG_FILE.findall(_read(root / s))]
    return [path for name in named if (path := _from(root, name))]


def _gradle_distribution(properties: Path) -> list[Path]:
    """The Gradle the wrapper's properties have it run from the workspace: a `distributionUrl`
    that is a path or a `file:` URL (taken from the properties' folder, as the wrapper takes
    it), and with `distributionBase=PROJECT` (or `zipStoreBase`) the folder in the project it
    unpacks that Gradle into (or keeps its zip in), whose Gradle it runs with no second look
    once the `.ok` marker beside it is there."""
    if properties.name != "gradle-wrapper.properties" or not properties.is_file():
        return []
    settings = _java_properties(_read(properties))
    url = urllib.parse.urlsplit(settings.get("distributionUrl", ""))
    found = []
    if url.scheme in ("", "file") and url.path:
        found.append(Path(os.path.normpath(properties.parent / urllib.parse.unquote(url.path))))
    project = properties.parent.parent.parent  # (the wrapper's jar lies in gradle/wrapper/)
    name = os.path.splitext(url.path.rpartition("/")[2])[0]
    for base, path in (("distributionBase", "distributionPath"), ("zipStoreBase", "zipStorePath")):
        if settings.get(base) == "PROJECT":
            where = settings.get(path, "wrapper/dists")
            found.append(Path(os.path.normpath(f"{project}/{where}/{name}")))
    return found


def _java_properties(text: str) -> dict[str, str]:
    """The keys and values of a Java .properties file as java.util.Properties reads them: a
    line ends at \\n, \\r or both, goes on past an odd number of backslashes at its end (a
    comment's does not), and a backslash escapes the character after it (`file\\:../x.zip`)."""
    found: dict[str, str] = {}
    logical = ""
    for line in [*re.split(r"\r\n|\r|\n", text), ""]:
        line = line.lstrip(" \t\f")
        if not logical and line.startswith(("#", "!")):
            continue
        if (len(line) - len(line.rstrip("\\"))) % 2:
            logical += line[:-1]
            continue
        match = JAVA_PROPERTY.fullmatch(logical + line)
        if match and match[1]:
            found[_unescaped(match[1])] = _unescaped(match[2])
        logical = ""
    return found


def _unescaped(text: str) -> str:
    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", _escape, text)


def _escape(match: re.Match) -> str:
    code = match[1]
    if code.startswith("u") and len(code) == 5:
        return chr(int(code[1:], 16))
    return {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(code, code)


def _gradle_subprojects(root: Path) -> list[Path]:
    """The folders of the projects the root's settings `include` by a plain path (`:lib:core`
    is lib/core, and lib is a project too); a script-made list is not followed."""
    folders: list[Path] = []
    for settings in (root / name for name in GRADLE_SETTINGS):
        for quoted in GRADLE_INCLUDE.findall(_read(settings)):
            for project_path in QUOTED.findall(quoted):
                parts = [part for part in project_path.split(":") if part]
                folders += [root.joinpath(*parts[:n]) for n in range(1, len(parts) + 1)]
    if len(folders := list(dict.fromkeys(folders))) > MAX_BUILD_PROJECTS:
        raise CannotTell(f"more than {MAX_BUILD_PROJECTS} projects in {root}'s Gradle settings")
    return folders


def _gradle_included_builds(root: Path) -> list[Path]:
    """The folders the settings `includeBuild`: held whole, as buildSrc, since Gradle compiles
    and runs the plugins they provide (build-logic), and settings do not say plainly which do."""
    named = [n for s in GRADLE_SETTINGS for n in GRADLE_INCLUDE_BUILD.findall(_read(root / s))]
    return [path for name in named if (path := _from(root, name)) and os.path.isdir(path)]


def _with_applied(paths: list[Path]) -> list[Path]:
    """`paths` and, over and over, the scripts the Gradle scripts among them run with
    `apply from: 'gradle/x.gradle'` (bounded; a URL is not in the workspace)."""
    found = list(paths)
    for script in found:  # (grows as it goes)
        if not script.name.endswith((".gradle", ".gradle.kts")):
            continue
        for name in GRADLE_APPLY_FROM.findall(_read(script)):
            applied = _from(script.parent, name)
            if "://" in name or not applied or applied in found or not applied.is_file():
                continue
            if len(found) < len(paths) + MAX_BUILD_PROJECTS:
                found.append(applied)
    return found


def _maven_files(
    wrapper: bool, named: str | None, folder: Path, project: Path
) -> tuple[list[Path], list[Path]]:
    """What Maven reads for a build started in `folder` (see the table above)."""
    pom = _from(folder, named) or folder / "pom.xml"
    pom = pom / "pom.xml" if os.path.isdir(pom) else pom
    searched = up_to(pom.parent, project)
    base = next((a for a in searched if os.path.isdir(a / ".mvn")), pom.parent)
    # A .mvn a command makes nearer than the base folder becomes the base folder.
    told = [pom, *(a / ".mvn" for a in _until(searched, base))]
    told += [folder / ".mvn"] if wrapper else []  # the wrapper reads the one beside it
    parents = [a / "pom.xml" for a in searched[1:]]  # (`<relativePath>` is ../pom.xml)
    modules = _maven_modules(pom)
    told += _maven_parents([pom, *modules])
    held = [path for path in [*told, *parents, *modules] if os.path.lexists(path)]
    return list(dict.fromkeys(held)), told


def _maven_local_repository(words: tuple[str, ...], folder: Path, held: list[Path]) -> list[Path]:
    """A Maven local repository in the workspace (`-Dmaven.repo.local=.m2/repository`, on the
    line, in `.mvn/maven.config` or in your MAVEN_OPTS), whole: Maven runs the plugins' jars it
    finds there."""
    configs = [path / "maven.config" for path in held if path.name == ".mvn"]
    given = [*words, *(w for c in configs for w in _read(c).split())]
    given += os.environ.get("MAVEN_OPTS", "").split()
    return maven_repositories(given, folder)


def maven_repositories(words: list[str], folder: Path) -> list[Path]:
    """The local repositories `-Dmaven.repo.local=x` names among `words` (`-D x=y` and
    `--define x=y` too, as Maven's CLI takes them), from `folder`, where they are folders."""
    given = [
        f"-D{word}" if before in ("-D", "--define") else word.replace("--define=", "-D", 1)
        for before, word in zip(("", *words), words, strict=False)  # (one short: the last)
    ]
    prefix = "-Dmaven.repo.local="
    repositories = [word.removeprefix(prefix) for word in given if word.startswith(prefix)]
    if any("$" in path for path in repositories):
        raise CannotTell("a Maven local repository whose path only the shell or Maven can tell")
    paths = [_from(folder, path) for path in repositories]
    return [path for path in paths if path is not None and os.path.isdir(path)]


def _maven_modules(pom: Path) -> list[Path]:
    """The pom.xml of each `<module>` (or Maven 4's `<subproject>`) `pom` names, and theirs in
    turn (bounded): a module names its folder, or its pom file."""
    found = [pom]
    for each in found:  # (grows as it goes)
        for _, written in MAVEN_MODULE.findall(_read(each)):
            name = written.strip()
            if "$" in name:
                raise CannotTell(f"the module `{name[:80]}` of {each}, a path only Maven can tell")
            if not name:
                continue
            module = each.parent / name
            module = module / "pom.xml" if os.path.isdir(module) else module
            module = Path(os.path.normpath(module))
            if module not in found and module.is_file():
                found.append(module)
            if len(found) > MAX_BUILD_PROJECTS:
                raise CannotTell(f"more than {MAX_BUILD_PROJECTS} Maven modules from {pom}")
    return found[1:]


def _maven_parents(poms: list[Path]) -> list[Path]:
    """The poms `poms` inherit from by their `<parent>`'s `<relativePath>`, wherever in the
    workspace, and theirs in turn (bounded): Maven takes the build's plugins from them too. One
    not there yet is among them, as a command may make it."""
    found = list(poms)
    for each in found:  # (grows as it goes)
        text = _read(each) if os.path.isfile(each) else ""
        text = replaced(text, delimited(text, MAVEN_COMMENT), "")
        for parent in insides(text, MAVEN_PARENT):
            named = _relative_path(parent)
            path = _from(each.parent, "../pom.xml" if named is None else named)
            path = path / "pom.xml" if path and os.path.isdir(path) else path
            if path and path not in found and len(found) < len(poms) + MAX_BUILD_PROJECTS:
                found.append(path)
    return found[len(poms) :]


def _relative_path(parent: str) -> str | None:
    """The first `<relativePath>` of a `<parent>` that names no expansion, blanks taken off
    ("" for `<relativePath/>`), or None."""
    for match in MAVEN_RELATIVE_PATH.finditer(parent):
        if match[1] is None or "$" not in match[1]:
            return (match[1] or "").strip()
    return None


def _any_there(folder: Path, names: tuple[str, ...]) -> bool:
    return any(os.path.lexists(folder / name) for name in names)


def _until(folders: list[Path], last: Path) -> list[Path]:
    """`folders` up to and with `last` (all of them where `last` is not among them)."""
    return folders[: folders.index(last) + 1] if last in folders else folders


def _yaml(path: Path) -> Any:
    """A YAML build file's data (`read_yaml`), read as the tools' YAML settings are: up to
    SLOW_SETTINGS_LIMIT, counted among the YAML a look reads (libyaml composes a file in one
    call, seconds a MiB, in which no Ctrl-C is answered), and parsed once while its text is the
    same (a Taskfile's includes and its dotenv files are two reads of one file). None where
    there is none; CannotTell past the bounds."""
    from tools.tool_scripts import SLOW_SETTINGS_LIMIT, counted_as_slow  # (it imports this one)

    text = _read(path, SLOW_SETTINGS_LIMIT)
    try:
        counted_as_slow(path, text)
    except OSError as error:
        raise CannotTell(f"{path}, which planloop cannot read ({error.strerror})") from None
    failed, data = _parsed_yaml(text)
    if failed:
        raise data
    return data


@functools.lru_cache(maxsize=16)
def _parsed_yaml(text: str) -> tuple[bool, Any]:
    """(whether it failed, the data or the error) of `read_yaml(text)`: a failure is kept too,
    so that a file refused once is not composed again at every look."""
    from tools.tool_scripts import read_yaml  # (that module imports this one)

    try:
        return False, read_yaml(text)
    except (ValueError, RecursionError) as error:
        return True, error


def _read(path: Path, limit: int | None = None) -> str:
    """A build file's text; "" where there is none. One that is there but planloop cannot read
    (past SMALL_FILE_LIMIT, or `limit`, not a plain file) its tool reads all the same:
    CannotTell."""
    try:
        return read_small_file(path) if limit is None else read_small_file(path, limit)
    except OSError as error:
        missing = (errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP)
        if error.errno in missing or os.path.isdir(path):
            return ""  # (none there, nor one its tool could read; a folder is read as one)
        raise CannotTell(f"{path}, which planloop cannot read ({error.strerror})") from None


def _linter_code(config: Path, run_in: Path | None = None) -> list[Path]:
    """The code a linter's settings file names for it to load (LINTER_CODE), from the file's
    folder: each path (a folder whole), and each module's file or package folder there, where
    they are. (pylint's init-hook, python the settings run, is theirs to hold.)"""
    values: list[str] = []
    if config.suffix == ".toml":
        tool = _dict_of(_toml(config).get("tool"))
        value = _dict_of(tool.get("mypy")).get("plugins")
        values += value if isinstance(value, list) else [value]
        # pylint takes its keys from any table under [tool.pylint] (`main`, `master`, ...).
        pylint = _dict_of(tool.get("pylint"))
        for table in [pylint, *(t for t in pylint.values() if isinstance(t, dict))]:
            value = table.get("load-plugins")
            values += value if isinstance(value, list) else [value]
            if isinstance(table.get("init-hook"), str):
                values += _pylint_path(config, table["init-hook"])
    else:
        parser = configparser.RawConfigParser(strict=False)
        with contextlib.suppress(configparser.Error):
            parser.read_string(_read(config))
        for section, key in (pair for pairs in LINTER_CODE.values() for pair in pairs):
            if parser.has_option(section, key):
                values += re.split(r"[,\s]+", parser.get(section, key))
        # pylint reads every section of its own file, and the `pylint.*` ones of a shared one.
        shared = config.name in ("setup.cfg", "tox.ini")
        for section in parser.sections():
            if shared and not section.lower().startswith("pylint"):
                continue
            if parser.has_option(section, "load-plugins"):
                values += re.split(r"[,\s]+", parser.get(section, "load-plugins"))
            if parser.has_option(section, "init-hook"):
                values += _pylint_path(config, parser.get(section, "init-hook"))
    found: list[Path] = []
    # A relative path from the settings' folder, or from where the linter runs (pylint's
    # init-hook runs there; flake8 takes an appended config's paths from there too).
    bases = dict.fromkeys([config.parent, *([run_in] if run_in else [])])
    for value in (v.strip() for v in values if isinstance(v, str) and v.strip()):
        for base in bases:
            if "/" in value or value.endswith(".py"):
                found.append(Path(os.path.normpath(base / os.path.expanduser(value))))
            else:  # a module: its file, or its package, beside the settings
                module = base / value.split(":")[0].replace(".", "/")
                found += [module.with_name(module.name + ".py"), module]
    return [path for path in dict.fromkeys(found) if os.path.lexists(path)]


def _linter_code_given(program: str, words: tuple[str, ...], folder: Path) -> list[Path]:
    """The code a linter's own options have it load, from the folder it runs in: gitlint's
    `--extra-path` (a folder or file of rules), pylint's `--load-plugins` (modules) and the
    folders its `--init-hook` puts on python's path, where they are."""
    found: list[Path] = []
    if program == "gitlint":
        found += [_from(folder, value) for value in option_values(words, "-e", "--extra-path")]
    if program == "pylint":
        for hook in option_values(words, "--init-hook"):
            found += [_from(folder, path) for path in _pylint_path(folder / "pylint", hook)]
        for value in option_values(words, "--load-plugins"):
            for module in filter(None, re.split(r"[,\s]+", value)):
                base = folder / module.replace(".", "/")
                found += [base.with_name(base.name + ".py"), base]
    return [path for path in dict.fromkeys(filter(None, found)) if os.path.lexists(path)]


# pylint's init-hook as most projects write it: put a folder on python's path.
PYLINT_PATH_CALL = re.compile(
    r"""sys\.path\.(?:insert\(\s*-?\d+\s*,|append\()\s*(["'])([^"'\\]*)\1\s*\)"""
)


def _pylint_path(config: Path, hook: str) -> list[str]:
    """The folders pylint's init-hook puts on python's path (`./`-relative, to be held whole:
    pylint loads its plugins from them); CannotTell where it does more than that, which only
    running it can tell."""
    folders = [os.path.normpath(found[2]) for found in PYLINT_PATH_CALL.finditer(hook)]
    rest = PYLINT_PATH_CALL.sub("", hook).replace("import sys", "")
    # (what runs from the settings' folder itself is found as modules there; a folder above
    # it, or one given whole, would hold too much to be held)
    if rest.strip(" \t\n;\"'") or any(f.startswith(("..", "/")) for f in folders):
        raise CannotTell(f"{config}: pylint's init-hook runs python planloop does not follow")
    return [f"./{folder}" for folder in folders if folder != "."]


def _dict_of(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _toml(path: Path) -> dict:
    text = _read(path)
    with contextlib.suppress(ValueError):
        return toml_data(text)
    return {}


def _options(words: tuple[str, ...]) -> Option:
    """A lookup of an option's first value among `words`: `-C web`, `-Cweb`, `--directory=web`."""

    def value(*names: str) -> str | None:
        return next(iter(option_values(words, *names)), None)

    return value


def option_values(words: tuple[str, ...], *names: str) -> list[str]:
    """Each value among `words` of the option `names`, as getopt takes it: `-I mk`, `-Iinc`,
    after other flags (`-sC web`, `-sCweb`), `--include-dir=x`, and a long one shortened
    (`--dir=web`, `--include x`). Read loosely (a word that only looks so counts too): a value
    too many holds a file more, one too few would leave the one the tool reads writable."""
    found: list[str] = []
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else None
        for name in names:
            if name.startswith("--"):
                given, joined, value = word.partition("=")
                if not (len(given) > 3 and given.startswith("--") and name.startswith(given)):
                    continue
            elif word.startswith("-") and not word.startswith("--") and name[1:] in word[1:]:
                value = word[word.index(name[1:], 1) + len(name) - 1 :]
                joined = value
            else:
                continue
            if joined:
                found.append(value)
            elif following is not None:
                found.append(following)
            else:
                continue
            break
    return found


def _exact_option(words: tuple[str, ...], short: str, long: str) -> str | None:
    """An option's value given only as `-f pom.xml`, `--file pom.xml` or `--file=pom.xml`:
    Maven's other options start with the same letter (`-fae`, `-ff`)."""
    for index, word in enumerate(words):
        if word in (short, long) and index + 1 < len(words):
            return words[index + 1]
        if word.startswith(f"{long}="):
            return word.partition("=")[2]
    return None


def _from(folder: Path, path: str | None) -> Path | None:
    return None if not path else Path(os.path.normpath(folder / os.path.expanduser(path)))


def up_to(folder: Path, project: Path) -> list[Path]:
    """`folder`, and each folder above it up to `project` where it lies in `project`."""
    if not folder.is_relative_to(project):
        return [folder]
    return [folder, *(above for above in folder.parents if above.is_relative_to(project))]


def _here(folder: Path, _: Path) -> list[Path]:
    return [folder]


class ConfigTool(NamedTuple):
    """A tool that runs what one config file says: the short and long option that name another
    (`-c tox.ini`), the names it looks for, the folders it looks in from where it starts and the
    workspace (the first there is read; with `walks_up`, those above only for its own names),
    whether a file there has its settings (else it looks on), and what that file has it run
    besides (`_config_files`)."""

    options: tuple[str, str]
    names: tuple[str, ...]
    places: Callable[[Path, Path], list[Path]] = _here
    walks_up: bool = False
    carries: Callable[[Path], bool] = os.path.lexists
    runs: Callable[[Path], list[Path]] = lambda _: []


CONFIG_TOOLS = {
    "tox": ConfigTool(
        ("-c", "--conf"),
        TOX_FILES,
        places=up_to,
        walks_up=True,
        carries=_has_tox_settings,
        # the plugin tox loads from beside it, by either of its names
        runs=lambda config: [config.parent / name for name in TOX_PLUGINS],
    ),
    "nox": ConfigTool(("-f", "--noxfile"), ("noxfile.py",)),
    "pre-commit": ConfigTool(
        ("-c", "--config"), (PRE_COMMIT_CONFIG,), _pre_commit_places, runs=_pre_commit_entries
    ),
}
# prek, its drop-in, reads the same config, run alike, or first a `prek.toml` of its own.
CONFIG_TOOLS["prek"] = CONFIG_TOOLS["pre-commit"]._replace(names=PER_FILE_CONFIGS["prek"])
# A relative path as a data config gives it (`"./tools/cl.js"`, `- ../shared/rules`). Only
# ASCII blanks end one: a name may hold U+0085 or U+00A0, which the tools keep in it.
LOCAL_PATH = re.compile(r"""(?<![\w.@/$-])\.\.?+/[^\s"'`,;()\[\]{}<>*?|&]++""", re.ASCII)
# The JavaScript tools that read a config file as they start, from the folder they run in or
# one above (`npx eslint .`), by the names they look for: a JavaScript one is code that runs,
# and a data one names code it loads (prettier's and a legacy .eslintrc's `plugins`) or lists
# the commands it runs (lint-staged's, nano-staged's: what husky's pre-commit hook runs), as
# does the key of the tool's name in package.json.
JS_CONFIGS = {
    "eslint": PER_FILE_CONFIGS["eslint"],
    "prettier": PER_FILE_CONFIGS["prettier"],
    "jest": (*js_names("jest.config"), "jest.config.json"),
    "vite": js_names("vite.config"),
    "vitest": js_names("vitest.config", "vite.config"),
    "lint-staged": PER_FILE_CONFIGS["lint-staged"],
    "nano-staged": (*js_names("nano-staged", ".nano-staged"), *data_names(".nano-staged")),
    "commitlint": (*js_names("commitlint.config", ".commitlintrc"), *data_names(".commitlintrc")),
}
JS_CONFIGS["nano-staged"] += data_names("nano-staged", ".nanostagedrc")
# cosmiconfig, which these read their config with, looks in a `.config` folder too.
JS_CONFIGS["commitlint"] += (
    *js_names(".config/commitlintrc"),
    *data_names(".config/commitlintrc"),
)
for _tool in ("prettier", "jest", "lint-staged", "nano-staged", "commitlint"):
    JS_CONFIGS[_tool] += ("package.json", "package.yaml")  # (their key there)
# lefthook's config, there or in .config/ (`lefthook.yml`, `.lefthook.toml`, ...), with the
# `-local` one it merges, and the folders of the scripts it runs (`source_dir`).
LEFTHOOK_FILES = tuple(
    f"{where}{dot}lefthook{local}{suffix}"
    for where, dot in (("", ""), ("", "."), (".config/", ""))
    for local in ("", "-local")
    for suffix in (".yml", ".yaml", ".toml", ".json", ".jsonc")
)
LEFTHOOK_FILES += (".lefthook", ".lefthook-local")
# The keys of a lefthook config that name files it reads or runs (a line `key: path`, or a
# list item under `extends:`), read as lines: YAML, TOML (`key = "path"`) or JSON alike.
LEFTHOOK_PATH_KEY = re.compile(
    r"[ \t]*+[\"']?(extends|rc|source_dir|source_dir_local)[\"']?[ \t]*+[:=][ \t]*+(.*)"
)
LEFTHOOK_ITEM = re.compile(r"[ \t]*+-[ \t]++(.*)")
# A comment at the end of a YAML or TOML line (`source_dir: .hooks/  # the team's`).
YAML_COMMENT = re.compile(r"[ \t]#.*")
# Other tools a hook or a task runs that read what to run, or code to load, from a file of
# their folder or one above: its build file (ninja's, rake's, mage's, invoke's), its list of
# tasks (deno's, composer's, poe's), its Ruby or PHP config (bundler evaluates the Gemfile,
# rubocop requires what .rubocop.yml names), or a hook manager's config (overcommit's).
TOOL_FILES = {
    "ninja": ("build.ninja",),
    "rake": ("Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb", "rakelib"),
    "bundle": ("Gemfile", "gems.rb", ".bundle"),
    "rubocop": (".rubocop.yml", ".rubocop_todo.yml", "Gemfile"),
    "composer": ("composer.json",),
    "deno": ("deno.json", "deno.jsonc", "package.json"),
    "gulp": (*js_names("gulpfile"), "gulpfile.babel.js"),
    "grunt": ("Gruntfile.js", "Gruntfile.coffee", "gruntfile.js", "gruntfile.coffee"),
    "mage": ("magefile.go", "magefiles"),
    "invoke": ("tasks.py", "tasks", "invoke.yaml", "invoke.yml", "invoke.json", "invoke.py"),
    "poe": ("pyproject.toml", "poe_tasks.toml", "poe_tasks.yaml", "poe_tasks.json"),
    "overcommit": (".overcommit.yml",),
    "stylelint": PER_FILE_CONFIGS["stylelint"],
    "markdownlint-cli2": (
        *js_names(".markdownlint-cli2"),
        ".markdownlint-cli2.jsonc",
        ".markdownlint-cli2.yaml",
    ),
    "php-cs-fixer": (".php-cs-fixer.php", ".php-cs-fixer.dist.php"),
    # (`swift build`, `swift package X`: SwiftPM compiles and runs the manifest, takes the
    # pinned versions, and its mirrors and registries from .swiftpm/configuration)
    "swift": ("Package.swift", "Package.resolved", ".swiftpm"),
}
TOOL_FILES["inv"] = TOOL_FILES["invoke"]
# The manifests SwiftPM prefers for a version of its own (`Package@swift-5.9.swift`).
TOOL_FILES["swift"] += tuple(
    f"Package@swift-{major}{minor}.swift"
    for major in range(4, 8)
    for minor in ("", *(f".{n}" for n in range(11)))
)
# The options by which these tools are given a file or folder to read or load code from
# (a config, rules, a build file) and a folder to run in, in place of where they start.
FILE_OPTIONS = {
    "eslint": ("-c", "--config", "--rulesdir", "--resolve-plugins-relative-to"),
    "prettier": ("--config", "--plugin", "--plugin-search-dir"),
    "jest": ("-c", "--config"),
    "vite": ("-c", "--config"),
    "vitest": ("-c", "--config"),
    "lint-staged": ("-c", "--config"),
    "nano-staged": ("-c", "--config"),
    "commitlint": ("-g", "--config"),
    # (a formatter's name is a file when one is there, else a package's)
    "stylelint": ("-c", "--config", "--config-basedir", "--custom-syntax", "--custom-formatter"),
    "markdownlint": ("-c", "--config", "-r", "--rules"),
    "markdownlint-cli": ("--config",),
    "rubocop": ("-c", "--config", "-r", "--require"),
    "php-cs-fixer": ("--config",),
    "deno": ("-c", "--config"),
    "gulp": ("-f", "--gulpfile"),
    "grunt": ("--gruntfile",),
    "rake": ("-f", "--rakefile", "-R", "--rakelibdir", "-r", "--require"),
    "ninja": ("-f",),
    "bundle": ("--gemfile",),
}
FOLDER_OPTIONS = {
    "ninja": ("-C",),
    "composer": ("-d", "--working-dir"),
    "gulp": ("--cwd",),
    "grunt": ("--base",),
    "rake": ("-C", "--directory"),
    "poe": ("-C", "--directory", "--root"),
}
# mise's configs, whose `[tasks]` `mise run` runs (`_mise_tasks`).
MISE_CONFIGS = ("mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml")
MISE_CONFIGS += (".config/mise.toml", ".config/mise/config.toml", "mise/config.toml")
MISE_CONFIGS += (".mise/config.toml", ".config/mise/config.local.toml", ".rtx.toml")
# ninja's `include` and `subninja` lines (paths from the folder it runs in).
NINJA_INCLUDE = re.compile(r"^(?:include|subninja)[ \t]++(\S.*)$", re.MULTILINE)
# `mise run lint` (the hook `mise generate git-pre-commit` writes) runs its file tasks: the
# scripts in these folders, held whole. (Its config files are held always: tools/paths.py.)
TOOL_FILES["mise-tasks"] = (
    "mise-tasks",
    ".mise-tasks",
    "mise/tasks",
    ".mise/tasks",
    ".config/mise/tasks",
)
for _tool in ("stylelint", "markdownlint-cli2"):
    TOOL_FILES[_tool] += ("package.json",)
TOOL_FILES["stylelint"] += js_names(".config/stylelintrc") + data_names(".config/stylelintrc")
# (a program's name is looked up without a version at its end: `markdownlint-cli2` is
# `markdownlint-cli`, whose own files are held with them)
TOOL_FILES["markdownlint-cli"] = (*TOOL_FILES.pop("markdownlint-cli2"), ".markdownlintrc")
# markdownlint-cli2 also runs a `.markdownlint.cjs` or `.mjs` config; markdownlint-cli's
# program is `markdownlint`, which reads `.markdownlintrc` and the JSON and YAML ones.
TOOL_FILES["markdownlint-cli"] += (".markdownlint.cjs", ".markdownlint.mjs")
TOOL_FILES["markdownlint"] = (".markdownlintrc", *data_names(".markdownlint"))
# Python tools that take what they run, or code they load, from the project's own files: a
# project manager's `run` (its scripts table, and the project it builds first, whose build
# backend runs setup.py or a build hook: uv's, pdm's), and linters whose configs load code
# (pylint's init-hook and plugins, flake8's local plugins, mypy's plugins, gitlint's
# extra-path). Held whole, not read for paths: a pyproject's `./tests` is no code to hold.
PYTHON_PROJECT = ("pyproject.toml", "setup.py", "setup.cfg")
PROJECT_FILES = {
    # (with the lockfile each syncs the environment from before it runs: a `path` source there
    # is built, its setup.py run)
    "uv": (*PYTHON_PROJECT, "uv.toml", "uv.lock", "hatch_build.py", "pdm_build.py"),
    "pdm": (*PYTHON_PROJECT, "pdm.toml", "pdm.lock", ".pdm-python", "pdm_build.py"),
    "hatch": (*PYTHON_PROJECT, "hatch.toml", "hatch_build.py"),
    "poetry": (*PYTHON_PROJECT, "poetry.toml", "poetry.lock", "build.py"),
    "rye": PYTHON_PROJECT,
    "pipenv": ("Pipfile",),
    "pylint": (
        ".pylintrc",
        "pylintrc",
        ".pylintrc.toml",
        "pylintrc.toml",
        "tox.ini",
        *PYTHON_PROJECT,
    ),
    "flake": (".flake8", "setup.cfg", "tox.ini"),  # (flake8: a version number is no part of a name)
    "mypy": ("mypy.ini", ".mypy.ini", *PYTHON_PROJECT),
    "gitlint": (".gitlint",),
}
PROJECT_FILES["tox"] = PYTHON_PROJECT  # (the package it builds for each run)
# Where those linters' settings name code they load, as (section, key): a path or a module.
LINTER_CODE = {
    "flake": (("flake8:local-plugins", "paths"),),  # folders put on its path
    "mypy": (("mypy", "plugins"),),  # a file, or a module
    "gitlint": (("general", "extra-path"),),  # a folder or file of user rules
    "pylint": tuple((part, "load-plugins") for part in ("MAIN", "main", "MASTER", "master")),
}
# Installers that build a local project they are given (`_local_packages`), and the options
# that give one.
INSTALLERS = ("uv", "uvx", "pip", "pipx")
LOCAL_PACKAGE_OPTIONS = ("--from", "--with", "-w", "--with-editable", "-e", "--editable", "--spec")
# The options that name a linter's settings file in place of those it looks for.
LINTER_CONFIG_OPTIONS = {
    "pylint": ("--rcfile",),
    "flake": ("--config", "--append-config"),
    "mypy": ("--config-file",),
    "gitlint": ("-C", "--config"),
}
# Programs that start a command in an environment they build from the project's files, and
# run those files' shell code first (`nix develop -c make lint`): `_environment_files`.
ENVIRONMENT_STARTERS = ("nix", "nix-shell", "pixi", "devbox")
NIX_STARTERS = ("develop", "shell", "print-dev-env", "run")  # (nix's subcommands that do so)
BUILD_TOOLS = (*MAKES, "just", "task", "cargo", *GRADLE, *MAVEN, *CONFIG_TOOLS, *JS_CONFIGS)
BUILD_TOOLS += ("lefthook", *TOOL_FILES, *PROJECT_FILES, "uvx", "pip", "pipx")
BUILD_TOOLS += (*ENVIRONMENT_STARTERS, "mise")
