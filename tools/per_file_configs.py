"""The configs a linter, formatter or hook runner takes from the folder of each file it checks.

`prettier --check .` from the top of the tree formats `web/a.js` with `web/.prettierrc.json`,
if there is one, and loads the plugins that file names: each file's config is looked for from
its own folder up, not from where the tool runs. ESLint (flat configs since version 10, and
.eslintrc files always), stylelint and markdownlint-cli2 do the same; lint-staged runs the
commands of each staged file's nearest config, and prek the hooks of each folder's own
`.pre-commit-config.yaml` for the files there. So when a host tool's line runs one of these,
a config of theirs anywhere below is code it runs outside the sandbox: the workspace scan
notes each file of these names (`CONFIG_NAMES`), and tools/tool_scripts.py
`per_file_configs` holds those below the tool's project, with the code each names, and
reports one a command makes.

A package.json counts only where it carries the tool's key (`"prettier": {...}`): a monorepo
has one in every package, and the tools pass by those without it.
"""

from __future__ import annotations

from collections.abc import Iterable

PER_FILE_CONFIG_REASON = (
    "a linter, formatter or hook runner a host tool runs (prettier, eslint, stylelint, "
    "markdownlint-cli2, lint-staged, prek) takes the config of each file it checks from that "
    "file's folder, and loads or runs the code the config names, outside the sandbox"
)
JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts")
DATA_SUFFIXES = ("", ".json", ".json5", ".yaml", ".yml", ".toml")
PACKAGE_FILES = ("package.json", "package.yaml", "package.yml")


def js_names(*stems: str) -> tuple[str, ...]:
    return tuple(stem + suffix for stem in stems for suffix in JS_SUFFIXES)


def data_names(*stems: str) -> tuple[str, ...]:
    return tuple(stem + suffix for stem in stems for suffix in DATA_SUFFIXES)


# By the program's name as a line runs it (`markdownlint-cli2` is looked up without its version,
# as tools/build_files.py does): the names it looks for in each file's folder.
PER_FILE_CONFIGS = {
    "prettier": (*js_names("prettier.config", ".prettierrc"), *data_names(".prettierrc")),
    "eslint": (*js_names("eslint.config", ".eslintrc"), *data_names(".eslintrc")),
    "stylelint": (*js_names("stylelint.config", ".stylelintrc"), *data_names(".stylelintrc")),
    "markdownlint-cli": (
        *js_names(".markdownlint-cli2", ".markdownlint"),
        *data_names(".markdownlint-cli2", ".markdownlint"),
        ".markdownlint-cli2.jsonc",
        ".markdownlint.jsonc",
    ),
    # lint-staged (since 12.2) runs the commands of each staged file's nearest config, from
    # that config's folder, tracked or not.
    "lint-staged": (*js_names("lint-staged.config", ".lintstagedrc"), *data_names(".lintstagedrc")),
    # prek, pre-commit's drop-in, runs as a monorepo's "workspace": each folder below with a
    # config of its own is a project whose hooks run for the files there.
    "prek": ("prek.toml", ".pre-commit-config.yaml", ".pre-commit-config.yml"),
}
# (and in a `.config` folder, `stylelintrc.json` or `stylelintrc` alone: cosmiconfig looks
# there too)
PER_FILE_CONFIGS["stylelint"] += (*js_names("stylelintrc"), *data_names("stylelintrc"))
# The key of package.json (or package.yaml) each takes its config from.
PACKAGE_KEYS = {"prettier": "prettier", "eslint": "eslintConfig", "stylelint": "stylelint"}
PACKAGE_KEYS["lint-staged"] = "lint-staged"
CONFIG_NAMES = frozenset(
    [name for names in PER_FILE_CONFIGS.values() for name in names] + list(PACKAGE_FILES)
)
# prettier and ESLint pass every `node_modules` by. The others do not: stylelint's globs
# follow a link to a folder (`web -> node_modules/x` makes node_modules/x's config web's),
# markdownlint-cli2's walk into one unless its config says otherwise, and lint-staged and
# prek pass by only what git ignores (a committed node_modules, or one below a
# `/node_modules` rule that names only the top, counts; and `.gitignore` is the workspace's).
# So the scan notes these names inside node_modules too, and `looked_for_by` decides.
PASS_PACKAGES_BY = frozenset({"prettier", "eslint"})
# The options that have one of those walk into node_modules too, first the one a run is noted
# with (`prettier --with-node-modules`; `tool_of` gives the program). `--opt=true` counts.
INTO_PACKAGES = {
    "prettier": ("--with-node-modules",),
    "eslint": ("--no-ignore",),
}


def walks_into_packages(program: str, words: Iterable[str]) -> bool:
    """Whether `program` run with `words` walks into node_modules (INTO_PACKAGES)."""
    options = INTO_PACKAGES.get(program, ())
    for word in words:
        option, equals, value = word.partition("=")
        if option in options and (not equals or value.lower() not in ("false", "0", "")):
            return True
    return False


def tool_of(program: str) -> str:
    """The program of a run as noted (`prettier --with-node-modules` is prettier)."""
    return program.partition(" ")[0]


def looked_for_by(program: str, name: str, in_packages: bool = False) -> bool:
    """Whether `program` takes a file named `name` as its config where it lies (`in_packages`:
    somewhere inside a `node_modules` folder)."""
    if in_packages and program in PASS_PACKAGES_BY:
        return False
    program = tool_of(program)
    if name in PACKAGE_FILES:
        return program in PACKAGE_KEYS
    return name in PER_FILE_CONFIGS.get(program, ())
