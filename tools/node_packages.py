"""What node and the package managers take from a project's `node_modules` by a name.

A host tool's line that runs node code or an npm script names few files, and yet runs many:

    node -e "require('yaml')"    node takes `yaml` from node_modules, in this folder or the
                                 nearest above it that has it, and what yaml requires in turn
    npx prettier --write .       npx runs node_modules/.bin/prettier, before any download
    "lint": "eslint ."           an npm script runs node_modules/.bin/eslint: npm puts each
                                 node_modules/.bin up the tree first on the script's PATH

So a sandboxed command that wrote `node_modules/.bin/prettier` or `node_modules/yaml/index.js`
would have its code run outside the sandbox by the next hook. For such a name this lists what
the tool would run (tools/git_programs.py `ByName.when_there`: held while it exists, reported
when a command makes it): the `.bin` entry or the package folder in each folder from where the
line runs up to the workspace's top, as far as the first one there, and, for a package found,
the packages it depends on, found as node finds them from where it lies. Each package held
is a read-only mount in every sandbox (about a quarter of a millisecond each): past
MAX_PACKAGES_HELD of them, the node_modules folders they lie in are held whole instead, which
keeps a command from writing there at all (a build's cache in node_modules/.cache included).

Only the package.json files are read; nothing is run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from tools.paths import read_small_file

NODE_MODULES = "node_modules"
BINS = ".bin"
# Packages of one name's dependencies held at most: each is a read-only mount in every
# sandbox, and a test runner's come to some hundreds.
MAX_PACKAGES_HELD = 200
# What a package needs installed beside it to run (devDependencies are its own tests').
DEPENDENCY_KEYS = ("dependencies", "optionalDependencies", "peerDependencies")
MAX_PACKAGE_JSON_BYTES = 1024 * 1024

NODE_PACKAGE_REASON = (
    "a program run later outside the sandbox (by a host tool's settings, or an npm script "
    "one runs) takes this from node_modules by its name: node's require or import, or a "
    "program npm or npx finds in node_modules/.bin"
)


@dataclass
class NodeNames:
    """The paths a line's names lead to in node_modules, and whether some were left out."""

    paths: list[Path] = field(default_factory=list)
    packages: int = 0  # package folders found
    _seen: set[Path] = field(default_factory=set)  # paths listed
    _read: set[Path] = field(default_factory=set)  # packages whose dependencies are listed


def package_name(word: str) -> str | None:
    """The package a word names to npx or to require (`prettier@3` is prettier, `@a/b/x.js`
    is @a/b), or None for what is no package's name (a path, `node:fs`, a URL)."""
    if not word or word.startswith((".", "/", "~", "-")) or ":" in word:
        return None
    parts = word.split("/")
    name = "/".join(parts[:2]) if word.startswith("@") else parts[0]
    name = name[0] + name[1:].split("@")[0]  # a version after the name (`x@1`, `@a/b@2`)
    return name if name.strip("@/") and ".." not in name else None


# How npm (npm-package-arg) tells a package spec it takes from this machine's files: one
# written as a path (`./x`, `/x`, `~/x`, a drive's `c:x`) or `file:`, a packed package
# (`x.tgz`), and a spec with a slash that names no repository (below).
LOCAL_SPEC = re.compile(r"(?i:file:)|[.]|~/|/|[a-zA-Z]:")
PACKED_SPEC = re.compile(r"[.](?:tgz|tar\.gz|tar)$", re.IGNORECASE)
ADDRESS_SPEC = re.compile(r"(?i:git\+)?[a-z]+:")  # (`git+https:`, `github:`, `npm:`)
GIT_SPEC = re.compile(r"[^@]+@[^:.]+\.[^:]+:.+")  # (`git@github.com:user/repo`)


def local_package(spec: str) -> str | None:
    """The path of the folder (or packed package) npx or `npm exec` runs a package from when
    given `spec`, as npm reads a spec: `./tools/fmt`, `file:tools/fmt` (the path after
    `file:`), `fmt@file:tools/fmt` (a name, then its spec), `tools/fmt/` and `a/b/c` (no
    repository's name), `fmt.tgz`; None for a package of the registry (`prettier@3`) or a
    repository (`user/repo`, GitHub's, `git+https://...`)."""
    name_ends = spec.find("@", 1)
    name = spec[:name_ends] if name_ends > 0 else spec
    if GIT_SPEC.fullmatch(spec) or name_ends < 0 and re.fullmatch(r"@[^/]+/[^/]+", spec):
        return None  # (a repository on a host; `@scope/name`, a scoped package's name)
    bare = name.startswith("@") or not ("/" in name or PACKED_SPEC.search(name))
    if name_ends > 0 and bare and not ADDRESS_SPEC.match(spec):
        spec = spec[name_ends + 1 :]  # (`fmt@file:tools/fmt`: the spec after the name)
    if spec.startswith("file:"):
        path = spec.removeprefix("file:")
        # (`file:///x` and `file://x` are /x; `file:/~/x` is your home's x)
        plain = path.lstrip("/")
        return path if plain == path else "~/" + plain[2:] if plain[:2] == "~/" else "/" + plain
    if LOCAL_SPEC.match(spec):
        return spec
    if ADDRESS_SPEC.match(spec) or _github_repository(spec):
        return None
    return spec if "/" in spec or PACKED_SPEC.search(spec) else None


def _github_repository(spec: str) -> bool:
    """Whether npm takes `spec` for GitHub's `user/repo` (`#branch` after it): one slash
    inside, none at its end, no `@`, `:` or blank before a `#`, and no dot first."""
    head = spec.split("#", 1)[0]
    inside = head.count("/") == 1 and not head.startswith(("/", ".")) and not head.endswith("/")
    return inside and not re.search(r"[\s@:]", head)


# The keys of a tool's data config whose values name packages it loads (`"extends":
# "@commitlint/config-conventional"`, `"plugins": ["prettier-plugin-x"]`), and the prefixes a
# tool puts before a short name (ESLint's `"extends": "airbnb"` is eslint-config-airbnb).
PACKAGE_KEYS = (
    "extends",
    "plugins",
    "parser",
    "parserPreset",
    "formatter",
    "customSyntax",
    "processors",
    "customRules",
    "markdownItPlugins",
    "outputFormatters",
)
NAME_PREFIXES = {
    "eslint": ("eslint-config", "eslint-plugin"),
    "commitlint": ("commitlint-config", "commitlint-plugin", "conventional-changelog"),
}
MAX_NAMED_PACKAGES = 512  # names a config gives (with the tool's prefixes): past them, ask


def config_packages(settings: object, program: str) -> list[str]:
    """The packages a tool's parsed data config names by a name under PACKAGE_KEYS, at any
    depth (an .eslintrc's `overrides` too), or as its whole value, each as the tool may
    resolve it: as given, and with the tool's prefix (`airbnb`, `plugin:react/recommended`:
    eslint-config-airbnb, eslint-plugin-react). Paths (`./rules.js`) are no packages:
    tools/build_files.py `local_code` holds those."""
    found: list[str] = []
    # (a config that is one string names a shared config to take whole: prettier's
    # `"@acme/prettier-config"`, in its own file or under package.json's key)
    waiting = [(settings, isinstance(settings, str))]
    while waiting:
        if len(found) > MAX_NAMED_PACKAGES:  # (past it, one left out would be writable)
            raise ValueError(f"more than {MAX_NAMED_PACKAGES} packages named in a config")
        value, named = waiting.pop()
        if isinstance(value, dict):
            waiting += [(v, named or k in PACKAGE_KEYS) for k, v in value.items()]
        elif isinstance(value, list):
            waiting += [(v, named) for v in value]
        elif isinstance(value, str) and named:
            found += _as_resolved(value, NAME_PREFIXES.get(program, ()))
    return list(dict.fromkeys(found))


def _as_resolved(word: str, prefixes: tuple[str, ...]) -> list[str]:
    word = word.split(":", 1)[1].split("/")[0] if word.startswith("plugin:") else word
    if (name := package_name(word)) is None:
        return []
    names = [name]
    for prefix in prefixes:
        if name.startswith("@") and "/" not in name:
            names.append(f"{name}/{prefix}")  # (`@scope` alone is `@scope/eslint-config`)
            continue
        scope, _, short = name.rpartition("/")
        if not short.startswith(prefix):
            names.append(f"{scope}/{prefix}-{short}" if scope else f"{prefix}-{short}")
    return names


def bin_name(package: str) -> str:
    """The program npx runs for a package given by name: its name, less a scope."""
    return package.rsplit("/", 1)[-1]


def bins_run(package: str, folder: Path, root: Path = Path("/")) -> list[str]:
    """The programs `npx PACKAGE` (`npm exec`) run from `folder` may start, first what the
    package installed there names: npm runs the bin of the package's manifest (its only one,
    else the one named like the package less its scope: `@commitlint/cli` runs commitlint),
    after a `.bin` entry of the package's name less its scope, where there is one. A package
    not installed, which npx downloads, has a manifest no one can read here: its scope's name
    stands for its bin too (`@commitlint/cli`: commitlint), as scoped tools' bins are most
    often named, beside its name less the scope."""
    short = bin_name(package)
    for above in _up_to_the_top(folder, root):
        installed = above / NODE_MODULES / package
        if above.name != NODE_MODULES and os.path.isdir(installed):
            return list(dict.fromkeys([*_manifest_bins(installed, short), short]))
    scope = package.split("/")[0].lstrip("@") if "/" in package else ""
    return list(dict.fromkeys([short, *filter(None, [scope])]))


def _manifest_bins(package: Path, short: str) -> list[str]:
    """The bin npm exec runs of the installed `package`, by its manifest; none where npm
    would find none (several bins, none named `short`) or the manifest cannot be read."""
    with contextlib.suppress(OSError, ValueError, RecursionError):
        manifest = json.loads(read_small_file(package / "package.json", MAX_PACKAGE_JSON_BYTES))
        bins = manifest.get("bin") if isinstance(manifest, dict) else None
        if isinstance(bins, str):
            return [short]  # (one file, which npm names after the package)
        if isinstance(bins, dict) and len({str(path) for path in bins.values()}) == 1:
            return [next(iter(bins))]
        if isinstance(bins, dict) and short in bins:
            return [short]
    return []


def _up_to_the_top(folder: Path, root: Path) -> list[Path]:
    if not folder.is_relative_to(root):
        return []
    return [folder, *(above for above in folder.parents if above.is_relative_to(root))]


def package_paths(
    name: str, folder: Path, root: Path = Path("/"), found: NodeNames | None = None
) -> NodeNames:
    """What node's `require(name)` from `folder` may take in the workspace `root`: the package
    folder in each node_modules from `folder` up, as far as the first one there (held, or told
    when made), and all it depends on, as node finds each from where the package lies. Found
    paths outside the workspace are left to the caller to drop."""
    found = NodeNames() if found is None else found
    waiting = [(name, folder)]
    while waiting:
        name, start = waiting.pop()
        for above in _up_to_the_top(start, root):
            if above.name == NODE_MODULES:
                continue  # node does not look for node_modules/node_modules
            candidate = above / NODE_MODULES / name
            if candidate not in found._seen:
                found._seen.add(candidate)
                found.paths.append(candidate)
            if not os.path.isdir(candidate):
                continue
            real = Path(os.path.realpath(candidate))
            if real in found._read:
                break
            found._read.add(real)
            if real != candidate:  # (pnpm's: a link into its store, held where it leads)
                found.paths.append(real)
            found.packages += 1
            if found.packages > MAX_PACKAGES_HELD:
                return _whole_stores(found)
            waiting += [(dependency, real) for dependency in _dependencies(real)]
            break
    return found


def _whole_stores(found: NodeNames) -> NodeNames:
    """Past MAX_PACKAGES_HELD: each node_modules folder a path found lies in, held whole, in
    place of what lies in it."""
    stores = []
    for path in found.paths:
        parts = path.parts
        if NODE_MODULES in parts:
            stores.append(Path(*parts[: parts.index(NODE_MODULES) + 1]))
    stores = list(dict.fromkeys(stores))
    found.paths = [p for p in found.paths if not any(p.is_relative_to(s) for s in stores)]
    found.paths += stores
    found._read |= set(stores)
    return found


def bin_paths(
    program: str, folder: Path, root: Path = Path("/"), found: NodeNames | None = None
) -> NodeNames:
    """What an npm script (or npx) run from `folder` in the workspace `root` takes for the
    program `program`: node_modules/.bin/PROGRAM in each folder from `folder` up, as far as
    the first one there, and the package that one is (a link into it: npm's; a script that
    runs a file in it by its `$basedir` path: pnpm's and cmd-shim's), with all it depends on.
    One whose package cannot be told has its node_modules held whole."""
    found = NodeNames() if found is None else found
    if not program or "/" in program or program.startswith((".", "-")):
        return found
    for above in _up_to_the_top(folder, root):
        if above.name == NODE_MODULES:
            continue
        # The folder itself too: npm's entries are links, which no read-only mount holds, and
        # a held folder keeps a command from putting a file of that name there.
        bins = above / NODE_MODULES / BINS
        for path in (bins, bins / program):
            if path not in found._seen:
                found._seen.add(path)
                found.paths.append(path)
        if not os.path.lexists(bins / program):
            continue
        entry = bins / program
        targets = [Path(os.path.realpath(entry)), *_shim_targets(entry)]
        packages = [p for p in dict.fromkeys(map(_package_of, targets)) if p is not None]
        if not packages:  # a program of no package found: what it runs may lie anywhere there
            found.paths.append(above / NODE_MODULES)
        for package in packages:
            package_paths(_name_of(package), above, root, found)
            if package not in found._read:  # (a link out of node's way)
                found.paths.append(package)
                waiting = NodeNames()
                for dependency in _dependencies(package):
                    package_paths(dependency, package, root, waiting)
                found.paths += waiting.paths
        break
    return found


# In a `.bin` entry that is a script (pnpm's and cmd-shim's, not a link): the file it runs,
# `"$basedir/../typescript/bin/tsc"`, by a path from its own folder.
SHIM_TARGET = re.compile(r"""\$\{?basedir\}?/([^"'\s$`]+)""")
MAX_SHIM_BYTES = 64 * 1024


def _shim_targets(entry: Path) -> list[Path]:
    """The files a `.bin` script runs (SHIM_TARGET), resolved; none for a link."""
    if os.path.islink(entry):
        return []
    try:
        text = read_small_file(entry, MAX_SHIM_BYTES)
    except OSError:
        return []
    named = (os.path.normpath(entry.parent / path) for path in SHIM_TARGET.findall(text))
    return [Path(os.path.realpath(path)) for path in dict.fromkeys(named)]


def _package_of(file: Path) -> Path | None:
    """The package folder a file lies in: the nearest folder above it with a package.json
    whose own folder is a node_modules (or a scope in one)."""
    for folder in file.parents:
        scoped = folder.parent.name.startswith("@") and folder.parent.parent.name == NODE_MODULES
        if folder.parent.name == NODE_MODULES or scoped:
            return folder if os.path.isfile(folder / "package.json") else None
    return None


def _name_of(package: Path) -> str | None:
    if package.parent.name.startswith("@"):
        return f"{package.parent.name}/{package.name}"
    return package.name


def _dependencies(package: Path) -> list[str]:
    """The names of what `package` needs installed to run (DEPENDENCY_KEYS of its
    package.json); none where it has no readable one."""
    with contextlib.suppress(OSError, ValueError, RecursionError):
        # (without blocking: a command can put a FIFO there before the package is held)
        manifest = json.loads(read_small_file(package / "package.json", MAX_PACKAGE_JSON_BYTES))
        names: list[str] = []
        for key in DEPENDENCY_KEYS:
            table = manifest.get(key) if isinstance(manifest, dict) else None
            if isinstance(table, dict):
                names += [name for name in table if isinstance(name, str) and package_name(name)]
        return list(dict.fromkeys(names))
    return []
