"""A git hook's shell lines as its shell will run them, or what planloop cannot tell of them.

A hook runs on your machine at your next commit, outside the sandbox. tools/tool_scripts.py
reads each of its lines as a command line, so that what a line runs (`make lint`: the
Makefile) is held read-only. That reading is only as good as the words it is given, so this
module puts in what the hook itself makes plain, and fails closed on the rest:

- the hook's own path, as hooks spell it: `$0`, `$(dirname "$0")`, `${0%/*}`,
  `$(basename "$0")`, and `$(dirname X)`, `$(cd X && pwd)` of a path so made;
- a variable the hook sets once, on a line of its own, to a value it can tell
  (`MAKE=make`, `ARGS=(--config=x.yaml)`, `ARGS+=(...)`), then your environment's value,
  then a default (`${MAKE:-make}`); one it never sets and you have not set is empty. Only
  where its shell keeps the value (`_Blocks`): one set in a part of a pipeline, by a command
  run with `&` or after `&&` or `||` is unknown, and one set in an `if` or `case` branch, a
  loop, a function or a subshell is known only inside it (in a loop's or function's body,
  which may run again, only on the lines after it);
- the arguments git gives (`"$@"`, `$1`) and the status (`$?`) are left as they are.

A line that needs anything else (a variable set from a command's output, by `read`, `for`,
`declare` or twice, one the shell sets itself, a loop over a glob, `eval`, `alias`, `trap`,
bash's arithmetic, a here-document, a script only its caller names, code given to an
interpreter that starts programs) is not guessed at: it comes back as unknown, and commands
ask, as for settings planloop cannot read. So does a hook that sets IFS, CDPATH or a prompt
bash expands (PS4, traced by `set -x`), or defines a function in the place of a command that
tests, prints or moves. Only lines that just test or print (`[ -n "$x" ]`, `echo "$x"`) may
use such values, and what they run in `$(...)` is read as a line. Values are bounded
(MAX_VALUE, MAX_LINE), so a hook is read in time linear in its size.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from tools.git_programs import (
    INTERPRETERS,
    OTHER_SHELLS,
    RUNNERS,
    SHELL_FLAGS,
    TOOL_RUNNERS,
    SplitByTheShell,
    is_program_key,
    outside_quotes,
    program_name,
    shell_lines,
    swift_subcommand,
    words_as_given,
)
from tools.inline_code import EVALUATES, awk_starts_programs, sed_starts_programs
from tools.shell_config import names_a_process_folder

# The hook's own folder and name, as hooks spell them.
OWN_FOLDER = re.compile(r"""\$\(\s*dirname\s++(?:--\s++)?("?)\$(?:0|\{0\})\1\s*\)|\$\{0%/\*\}""")
OWN_NAME = re.compile(r"""\$\(\s*basename\s++(?:--\s++)?("?)\$(?:0|\{0\})\1\s*\)|\$\{0##\*/\}""")
OWN_PATH = re.compile(r"\$(?:0|\{0\})(?!\w)")
# A plain word: no expansion, quote or operator left in it.
PLAIN = r"""(?:'[^']*+'|"[^"$`\\]*+"|[^\s'"$`\\;&|<>()]++)++"""
# What the shell prints of a path it was given plainly.
OF_A_PATH = re.compile(
    rf"""\$\(\s*(?:(dirname|basename)\s++(?:--\s++)?({PLAIN})|cd\s++({PLAIN})\s*+&&\s*+pwd)\s*\)"""
)
# Your machine's name and kind as `uname` prints them, maybe lower-cased (`tr`) or edited by
# plain substitutions (`sed 's/aarch64/arm64/;s/x86_64/x64/'`).
HOST_FACT = re.compile(
    r"""\$\(\s*uname(?:\s++(-[sm]))?+\s*+"""
    r"""(?:\|\s*+(tr\s++'\[:upper:\]'\s++'\[:lower:\]')|\|\s*+sed\s++'([^'\n]*+)')?+\s*+\)"""
)
SED_EDIT = re.compile(r"s/([\w.-]++)/([\w.-]*+)/")
# `NAME=value`, `export NAME=value`, `ARGS=(a b)`, `ARGS+=(c)`: a line that only sets one.
ASSIGNMENT = re.compile(
    r"(?:(?:export|readonly|local)[ \t]++)?+([A-Za-z_]\w*+)(\+?)="
    r"""(\([^()]*+\)|(?:'[^']*+'|"(?:[^"\\]|\\.)*+"|\$\((?:[^()]|\([^()]*+\))*+\)|[^\s;&|<>()'"])*+)"""
)
# A reference to a variable or a command's output; group `name` (and `index`, `operator`,
# `default` for `${...}` forms), or `special` for git's arguments and the status.
REFERENCE = re.compile(
    r"\$\{(?P<name>[A-Za-z_]\w*+)(?P<index>\[[@*]\])?(?:(?P<operator>:?[-=+?])(?P<default>[^{}]*+))?\}"
    r"|\$(?P<bare>[A-Za-z_]\w*+)|\$(?P<special>[@*#?$!0-9-]|\{(?:[@*#?$!-]|[0-9]++)\})"
    r"|\$\{(?P<other>[^}]*+)\}?|\$\(|`"
)
# The name in each reference (`$x`, `${x}`, `${#x}`, `${!x}`, `${x%y}`).
USED = re.compile(r"\$\{?[#!]?+([A-Za-z_]\w*+)")
# Programs that only test or print: what they are given runs nothing.
INERT = {"echo", "printf", "test", "[", "exit", "return", "true", "false"}
# The head of a `case` on a line of its own: its word is only matched against patterns.
CASE_WORD = re.compile(r"case[ \t]++(?:\"[^\"`]*+\"|[^\s;&|<>()`]++)[ \t]++in")
# A program given as the hook's arguments (`set -- make lint; "$@"`): the shell's to tell.
ARGUMENTS_RUN = re.compile(r"""(["']?)\$(?:[@*0-9]|\{[@*0-9]\})\1""")
ARITHMETIC_TEST = re.compile(r"\s-(?:eq|ne|lt|le|gt|ge|v|R)\s|\(\(")
# Programs that start another from the words given to them (`sh $x`, `env $x`, `timeout 9 $x`).
STARTS_ANOTHER = {*INTERPRETERS, *RUNNERS, *TOOL_RUNNERS, "timeout", "flock", "watch", "nix"}
STARTS_ANOTHER |= {"parallel", "find", "nix-shell", "direnv", "chronic", "entr", "ionice"}
KEYWORDS = {"if", "elif", "while", "until", "then", "do", "else", "!", "{", "}", "fi", "done"}
# Programs that make the shell run what no line shows.
SHELL_NAMES = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "rbash", "busybox"}
OPAQUE = {"eval", "alias", "unalias", "trap", "read", "mapfile", "readarray", "declare", "typeset"}
OPAQUE |= {"popd"}  # (back to a folder only the shell knows)
# `shopt -s expand_aliases`, `enable -f x.so` (a builtin loaded from a file), `hash -p ./x make`,
# `set -k` (words after a command set its variables: `bash -c x BASH_ENV=y`).
OPAQUE |= {"shopt", "enable", "hash", "set"}
# A `set` that only makes the shell stricter or louder.
PLAIN_SET = re.compile(
    r"set(?:\s++(?:[-+][euxvfCnhbmBEHT]++"
    r"|[-+]o\s++(?:errexit|nounset|pipefail|xtrace|verbose|noclobber|noglob)))*+\s*+"
)
# bash evaluates arithmetic in these, and `x[$(cmd)]` in a value runs cmd.
OPAQUE |= {"((", "let", "[["}
# git sets these for a hook: their values are git's, and are left as they are.
GITS_OWN = re.compile(r"GIT_\w+")
SPECIAL = re.compile(r"\$[@*#?$!0-9-]")
# Variables the shell sets as it runs.
SHELLS_OWN = re.compile(
    r"BASH\w*|REPLY|OPTARG|OPTIND|PIPESTATUS|S?RANDOM|SECONDS|LINENO|FUNCNAME|EPOCH\w+|MAPFILE"
    r"|COPROC\w*|DIRSTACK|GROUPS|HISTCMD|PPID|SHLVL|READLINE_\w+|COMP_\w+"
    r"|HOSTTYPE|OSTYPE|MACHTYPE|HOSTNAME|E?UID|SHELLOPTS|OPTERR|HISTFILE\w*|PS[0-4]|_"
    r"|npm_\w+|INIT_CWD"  # (npm sets these for a package's script, some from its settings)
)
# A command's output with none inside it, as a test or a print may use one.
INNER_OUTPUT = re.compile(r"\$\(([^()`]*+)\)|`([^`]*+)`")
# Values put into a line as they are (outside quotes a shell splits them, and so does the
# reader): no quote, expansion, pattern or operator of their own.
PLAIN_VALUE = re.compile(r"""[^'"$`\\*?\[;&|<>()\n]*+""")
MAX_VARIABLES = 64
# The longest value a hook's variable may take (a hook's are short: one doubled line by line,
# `A2="$A1$A1"`, grew without end), and the longest line once values are put in.
MAX_VALUE = 4096
MAX_LINE = 65536
MAX_LINES_READ = 1 << 18  # all its lines, with their values in (as COMMANDS_PER_LOOK)
# The simple commands of a text read, in all: each is read for what it runs, sets and moves,
# about 100 µs apiece, and `a;a;a;...` holds one every two characters. A hook has tens.
MAX_COMMANDS = 2000
# Variables whose value bash expands, command outputs and all, as it prompts or traces (`PS4`
# before each line `set -x` prints), or runs as a line (`PROMPT_COMMAND`).
PROMPTS = re.compile(r"(?<![\w$])(?:PS[0-4]|PROMPT_COMMAND)(?!\w)")
# A function's name where it is defined (`f() {`, `function f`). A brace is no word's end to
# the shell (only `{ ` is its keyword), and taken for one here, every `{` of a long run began a
# name that ran to the run's end: time quadratic in the line, with no signal served meanwhile.
FUNCTION = re.compile(
    r"(?:^|[\s;&|()])(?:function[ \t]++([^\s;&|()<>]++)|([^\s;&|()<>]++)[ \t]*+\(\s*+\))"
)
# A function's name that stands for no command: plain letters, digits, `_`, `-`, `.`, `:`.
FUNCTION_NAME = re.compile(r"[A-Za-z_][\w.:-]*+")
# What a line's words start with before its program: a redirection (`>/dev/null cd x`, `2>&1`)
# or a variable set for the command (`X=1 let t`).
# Programs that start the program after them, given as their next words.
WRAPPERS = {*RUNNERS, "timeout", "nice", "nohup", "stdbuf", "ionice", "chronic", "setsid"}
PATH_SET = re.compile(r"(?<![\w$])PATH\+?=")
REDIRECTION = re.compile(r"\d*+(?:<<<|<<-?|&>>?|>>|>&|<&|<>|>\||[<>])")
BEFORE_PROGRAM = re.compile(r"[A-Za-z_]\w*+\+?=.*+")
# bash's brace expansion: `{make,lint}`, `{a..z}`.
BRACES = re.compile(r"\{[^{}\s'\"]*+\}")
MAX_MOVES = 8
NAME = re.compile(r"(?<![\w$-])[A-Za-z_]\w*+(?!\w)")
# Programs that start a command line their own words give (awk's `system("sh x")`, sed's `e`,
# `tar --to-command`, an editor's `!`, `git -c alias.x='!sh x'`), which no line of the hook
# shows: the scripts that line runs with a shell, or sources, are not read.
AWKS = {"awk", "gawk", "mawk", "nawk"}
SEDS = {"sed", "gsed"}
EDITORS = {"vi", "vim", "nvim", "gvim", "view", "rvim", "rview", "vimdiff", "gvimdiff", "ex", "nvi"}
TEXT_PROGRAMS = {*AWKS, *SEDS, *EDITORS, "tar", "gtar", "git"}
# awk's options that name a script file or a module (gawk's `--include`, `--load`, mawk's
# `-W exec`), in a short option's letters before one that takes the rest as its value.
AWK_FILE_OPTIONS = ("file", "include", "load", "exec")
AWK_FILE_LETTERS = re.compile(r"-[^-Fv]*?[fEilW]")
# tar's options whose value is a command line it runs (`-I`, `-F` among a short option's).
TAR_COMMANDS = ("to-command", "use-compress-program", "info-script", "new-volume-script")
TAR_COMMANDS += ("checkpoint-action", "rsh-command", "rmt-command")
# An editor's commands given on its line (`-c`, `+cmd`, `--cmd`, `-S file`, `-s file`, `-u
# rc`, `-e`/`-E` reading them from its input, nvim's `-l script.lua`).
EDITOR_COMMAND_LETTERS = re.compile(r"\+|-[A-Za-z]*[cSsueEl]|--cmd")
# What only a shell reads in a command line: an operator, an expansion, a second line.
SHELL_SYNTAX = re.compile(r"[;&|<>$`()\n]")
MAX_TEXT_PROGRAMS = 8  # (each read from its place on: many of them, and the line asks)
MAX_SHELL_DEPTH = 4


class Untold(Exception):
    """A value only the hook's shell can tell; its text says which, or (`whole`) all why."""

    def __init__(self, what: str, whole: bool = False) -> None:
        super().__init__(what if whole else f"{what}, which only its shell can tell")


def hook_lines(
    text: str,
    hook: str,
    top: str,
    environ: Mapping[str, str],
    programs_only: bool = False,
    helper: bool = False,
) -> Iterator[tuple[str | None, str]]:
    """(line as the shell will run it, "") for each command line of a shell hook at `hook`,
    run from the top of the tree `top` with your environment `environ`; (None, why) for a
    line planloop cannot tell. A line after a `cd` comes again from where it moved to
    (`cd web` on a line of its own, then `make lint`), and as it is (the `cd` may have been
    in a subshell).

    `programs_only`: a value only the shell can tell counts only where it names what runs
    (the program, or any word given to a program that starts another, `sh $x`, `env $x`); an
    agent's or editor's line passes a file name it was handed to a formatter so.

    `helper`: a script a hook runs or sources (`hook` is then the path `$0` names: the hook's
    own, for one it sources): a variable it does not set may be one its caller set."""
    moves: list[str] = []  # the `cd`s of the lines so far, as `cd x && `
    length = 0
    for line in _lines(text, hook, top, environ, programs_only, helper):
        if line[0] is None:
            yield line
            continue
        length += len(line[0]) * (1 + len(moves))
        if length > MAX_LINES_READ:  # (each line's values put in: a hook's lines, grown)
            yield None, f"its lines, more than {MAX_LINES_READ:,} characters once values are in"
            return
        yield line
        if len(moves) > MAX_MOVES:  # (each later line would carry them all)
            yield None, f"its moves to another folder, more than {MAX_MOVES}"
            return
        if moves:
            yield "".join(moves) + line[0], ""
        moves += [f"{segment.strip()} && " for segment in _segments(line[0]) if _moves(segment)]


def shell_scripts(
    text: str, hook: str, top: str, environ: Mapping[str, str], helper: bool = False
) -> list[tuple[str, str]]:
    """The files a shell hook runs with a shell or sources (`sh tools/check`, `. ./env`,
    `fish tools/check.fish`), as written, each with the shell's name that reads it ("source"
    for one the hook's own shell sources): read as that shell reads it, whatever the file's
    name or first line."""
    found = []
    for line, _ in read_hook_lines(text, hook, top, environ, helper):
        for segment in _segments(line or ""):
            try:
                words = words_as_given(segment)
            except ValueError:
                continue
            for index, word in enumerate(words):
                shell = "source" if word in (".", "source") else program_name(word)
                if shell == "source" or shell in SHELL_NAMES or shell in OTHER_SHELLS:
                    found += [(each, shell) for each in _script_of(words, index + 1)]
    return found


def _script_of(words: list[str], start: int = 0) -> list[str]:
    """The script a shell runs, given its words from `start` on (`-o errexit x`, `+e x`); none
    for code given with `-c` (a line, read as one). By index: copying what is left of a long
    line for each shell's name in it took time quadratic in the line."""
    index = start
    while index < len(words) and words[index][:1] in ("-", "+") and words[index] != "--":
        if not words[index].startswith("--") and "c" in words[index][1:]:
            return []
        index += 2 if words[index] in ("-o", "+o", "-O", "+O") else 1
    index += 1 if words[index : index + 1] == ["--"] else 0
    return words[index : index + 1]


def read_hook_lines(
    text: str, hook: str, top: str, environ: Mapping[str, str], helper: bool = False
) -> list[tuple[str | None, str]]:
    """hook_lines, kept for the last few hooks read: a look reads a hook for its lines and
    again for the scripts it runs, and the same environment is the same object
    (tools/environment.py `without_secrets`)."""
    key = (text, hook, top, id(environ), helper)
    if key not in _READ:
        _READ[key] = list(hook_lines(text, hook, top, environ, helper=helper))
        while len(_READ) > MAX_KEPT:
            del _READ[next(iter(_READ))]
    return _READ[key]


_READ: dict[tuple[str, str, str, int, bool], list[tuple[str | None, str]]] = {}
MAX_KEPT = 16


def _moves(segment: str) -> bool:
    return _program(segment) in ("cd", "pushd", "popd")


def _lines(
    text: str,
    hook: str,
    top: str,
    environ: Mapping[str, str],
    programs_only: bool = False,
    helper: bool = False,
) -> Iterator[tuple[str | None, str]]:
    if why := _changes_the_shell(text):
        yield None, why
        return
    try:
        read = shell_lines(text)
    except SplitByTheShell as why:
        yield None, f"its text, which holds {why}"
        return
    lines = []
    for line in read:
        # (read before the hook's own path is put in: in `sh -c '. "$0"' x`, $0 is x)
        if why := _code_given_arguments(line):
            yield None, why
            continue
        lines.append(_own_spellings(line, hook, top))
    if sum(len(_segments(line)) for line in lines) > MAX_COMMANDS:
        yield None, f"its commands, more than {MAX_COMMANDS:,}"
        return
    settings = [[_setting(segment) for segment in _segments(line)] for line in lines]
    blocks = _Blocks()
    shapes = [blocks.shape(line) for line in lines]
    once = _set_once([setting for each in settings for setting in each])
    named = {setting[1] for each in settings for setting in each if setting}
    segments = [segment for line in lines for segment in _segments(line)]
    # The hook starts at the top of the tree; once it moves, only its shell knows $PWD.
    moved = any(_moves(segment) for segment in segments)
    start = {name: None for name in _set_otherwise(lines)}  # (`for f in *.sh`, `read f`)
    start |= {"PWD": None if moved else [top], "OLDPWD": None}
    # A file it sources may set any variable; one of yours outside the workspace (husky's
    # `~/.config/husky/init.sh`) is yours to trust. Where each leads is read first without it.
    values = dict(start)
    for _ in _read(lines, settings, shapes, (once, named), values, environ, False, top=top):
        pass
    sourced = [segment for segment in segments if _program(segment) in (".", "source")]
    sources = any(_sources_from_workspace(each, values, environ, top) for each in sourced)
    sources = sources or helper
    yield from _read(
        lines, settings, shapes, (once, named), dict(start), environ, sources, programs_only, top
    )


def _sources_from_workspace(
    segment: str, values: dict[str, list[str] | None], environ: Mapping[str, str], top: str
) -> bool:
    """Whether a `. FILE` may read a file of the workspace (or one only its shell can tell)."""
    try:
        words = words_as_given(_put_in(segment, values, environ, False))
    except (Untold, ValueError, SplitByTheShell):
        return True
    while words and words[0] in KEYWORDS:
        words = words[1:]
    path = os.path.expanduser(words[1]) if len(words) > 1 else ""
    return not os.path.isabs(path) or "$" in path or os.path.normpath(path).startswith(top + "/")


def _read(
    lines: list[str],
    settings: list[list[re.Match | None]],
    shapes: list[_Shape],
    set_plainly: tuple[set[str], set[str]],
    values: dict[str, list[str] | None],
    environ: Mapping[str, str],
    sources: bool,
    programs_only: bool = False,
    top: str = "",
) -> Iterator[tuple[str | None, str]]:
    """Each line with the values put in (`_expanded`), or None and why. `set_plainly`: the
    names set once on a command of their own (`_set_once`), and all names so set."""
    once, named = set_plainly
    inside: dict[str, int] = {}  # a variable set inside blocks: how many
    hidden: list[str] = []
    for line, line_settings, shape in zip(lines, settings, shapes, strict=True):
        _unhide(values, hidden)
        for name in [name for name, depth in inside.items() if depth > shape.through]:
            values[name] = None  # (its block is left: the hook's shell may not have set it)
            del inside[name]
        if "<<" in line.replace("<<<", ""):
            yield None, f"its here-document `{_short(line)}`, whose text is not read"
            continue
        if re.search(r"[<>]\(|\$\[", line):
            yield None, f"its line `{_short(line)}` needs `<(...)` or `$[...]`, only its shell's"
            continue
        if shape.repeats:
            hidden = _hide_set_later(line, line_settings, named, values)
        used: set[str] = set()  # (the names the line's commands so far put in)
        for segment, setting, depth, kept in zip(
            _segments(line), line_settings, shape.depths, shape.kept, strict=True
        ):
            if setting is None:
                used.update(USED.findall(segment))
                continue
            name, added, value = setting.groups()
            try:
                if name not in once or len(values) >= MAX_VARIABLES or values.get(name, 0) is None:
                    raise Untold(name)
                words = _words(value, values, environ, sources)
                values[name] = (values.get(name) or []) + words if added else words
            except Untold:
                values[name] = None
            if not kept or name in used:
                values[name] = None  # (set apart from the hook's shell, or after a use)
            elif depth:
                inside[name] = depth
            used.update(USED.findall(segment))
            if value.startswith("(") and ("$(" in value or "`" in value):
                yield None, f"its list `{_short(line)}`, made of a command's output"
        if why := _path_why(line, values, environ, sources, top):
            yield None, why
            continue
        if sources and any(_program(each) in (".", "source") for each in _segments(line)):
            # (a file it sources may set any of them again: what they hold after it, only
            # the shell can tell)
            values.update(dict.fromkeys(values))
        if all(line_settings):
            if not all(setting[3].startswith("(") for setting in line_settings):
                # (`X=$(make -s list)` runs make; `NODE_OPTIONS=--require ./x.js` names code)
                yield _put_in(line, values, environ, sources, lenient=True), ""
            continue
        try:
            yield _expanded(line, values, environ, sources, programs_only), ""
        except Untold as untold:
            yield None, f"its line `{_short(line)}` needs {untold}"
    _unhide(values, hidden)


def _hide_set_later(
    line: str,
    line_settings: list[re.Match | None],
    named: set[str],
    values: dict[str, list[str] | None],
) -> list[str]:
    """The variables a line of a loop's or a function's body uses that the hook sets only
    on a later line, now marked unknown: the body may run again after that line has (a loop's
    next round, a function called later), or before it (`f() { sh "$D/x"; }; D=y; f`)."""
    set_here = {setting[1] for setting in line_settings if setting}
    hidden = [
        name
        for name in dict.fromkeys(USED.findall(line))
        if name in named and name not in values and name not in set_here
    ]
    values.update(dict.fromkeys(hidden))
    return hidden


def _unhide(values: dict[str, list[str] | None], hidden: list[str]) -> None:
    for name in hidden:
        values.pop(name, None)
    hidden.clear()


def _path_why(
    line: str,
    values: dict[str, list[str] | None],
    environ: Mapping[str, str],
    sources: bool,
    top: str,
) -> str | None:
    """Why a line that sets PATH makes every program named later one planloop cannot tell: it
    puts a folder of the workspace (or one only the shell can tell) before yours; npm's
    `node_modules/.bin` (husky's runner) is looked in as npm's own."""
    if not PATH_SET.search(line):
        return None
    for segment in _segments(_put_in(line, values, environ, sources, lenient=True)):
        try:
            words = shlex.split(segment)
        except ValueError:
            return f"its PATH, set on `{_short(line)}`"
        for word in words:
            name, equals, value = word.partition("=")
            if not equals or name.removeprefix("export ").rstrip("+") != "PATH":
                continue
            for entry in value.split(":"):
                outside = os.path.isabs(entry) and not (entry + "/").startswith(top + "/")
                outside = outside and not names_a_process_folder(entry)  # (`/proc/self/cwd`)
                if not (outside or entry.rstrip("/").endswith("node_modules/.bin")):
                    return f"its PATH, which looks for programs in `{_short(entry)}` first"
    return None


def _changes_the_shell(text: str) -> str | None:
    """Why no line of the hook can be read for itself: it changes how the shell splits words
    (IFS), or defines a function in the place of a command that tests, prints or moves (a
    function `echo` runs what its caller's words name)."""
    bare = re.sub(r"""[\\'"]""", "", text)  # (`I\FS`, `"CDPATH"`: the names the shell sees)
    if re.search(r"(?<![\w$])IFS(?!\w)", bare):
        return "its IFS, which changes how each of its lines is split"
    if re.search(r"(?<![\w$])CDPATH(?!\w)", bare):
        return "its CDPATH, which changes where each `cd` goes"
    if prompt := PROMPTS.search(bare):  # (`PS4='+$(sh x)'` with `set -x` runs x at each line)
        return f"its {prompt[0]}, whose command outputs bash runs as it prompts or traces"
    for match in FUNCTION.finditer(text):
        name = match[1] or match[2]
        stands_in = name in INERT or name in KEYWORDS or name in ("cd", "pushd", "command")
        if stands_in or name in ("builtin", "time") or not FUNCTION_NAME.fullmatch(name):
            return f"its function `{name}`, which stands in for a command"
    return None


def _setting(segment: str) -> re.Match | None:
    """A simple command that only sets a variable (`MAKE=make`, `export M="make -s"`)."""
    return ASSIGNMENT.fullmatch(segment.strip())


def _own_spellings(line: str, hook: str, top: str) -> str:
    """`line` with the hook's own path put in where it spells it, and what the shell prints
    of a path it was given plainly (`$(dirname /x/y)`, `$(git rev-parse --show-toplevel)`)."""
    folder, name = os.path.dirname(hook) or ".", os.path.basename(hook)  # (`sh -c`: $0 is sh)
    line = OWN_FOLDER.sub(lambda _: shlex.quote(folder), line)
    line = OWN_NAME.sub(lambda _: shlex.quote(name), line)
    line = OWN_PATH.sub(lambda _: shlex.quote(hook), line)
    line = re.sub(r"\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)", shlex.quote(top), line)
    line = HOST_FACT.sub(_host_fact, line)
    for _ in range(8):  # (`$(dirname "$(dirname "$0")")`: from the inside out)
        printed = OF_A_PATH.sub(_of_a_path, line)
        if printed == line:
            break
        line = printed
    return line


def _host_fact(match: re.Match) -> str:
    """What `uname` prints here, lower-cased or edited as the line asks (lefthook's hook picks
    its binary by them): a fact of your machine, not of the workspace."""
    system = os.uname()
    value = system.machine if match[1] == "-m" else system.sysname
    if match[2] is not None:
        value = value.lower()
    for edit in (match[3] or "").split(";"):
        if SED_EDIT.fullmatch(edit.strip()):
            old, new = SED_EDIT.fullmatch(edit.strip()).groups()
            value = value.replace(old, new, 1)
    return shlex.quote(value)


def _of_a_path(match: re.Match) -> str:
    program, path, folder = match.groups()
    (word,) = shlex.split(path or folder) or [""]
    if folder is not None:
        return shlex.quote(word)
    return shlex.quote(os.path.dirname(word) if program == "dirname" else os.path.basename(word))


def _set_once(set_plainly: list[re.Match | None]) -> set[str]:
    """The names set on a line of their own once (and added to with `+=`), and nowhere else
    (`for f in`, `read f`, `${f:=x}`, `declare f` set them where no value can be told)."""
    counts: dict[str, int] = {}
    for setting in set_plainly:
        if setting and not setting[2]:
            counts[setting[1]] = counts.get(setting[1], 0) + 1
    return {name for name, count in counts.items() if count == 1}


def _set_otherwise(lines: list[str]) -> set[str]:
    """The names a line sets other than by a simple command of its own: each name a command
    that does more than test or print still shows once its references are left out (`for f
    in`, `read -r f`, `${f:=x}`, `printf -v f`, `f+=x y`)."""
    shown: set[str] = set()
    for segment in (segment for line in lines for segment in _segments(line)):
        if _setting(segment) or _inert(segment):
            continue
        rest = REFERENCE.sub(" ", re.sub(r"'[^']*'", " ", segment))
        shown.update(NAME.findall(rest))
    return shown


def _runs_what_it_is_given(program: str, segment: str) -> str | None:
    """Why a command runs a script only its caller names: a shell given an argument of the
    hook's or a function's (`f() { sh "$1"; }`), or what xargs hands a shell or interpreter."""
    words = segment.split()
    for index, word in enumerate(words):
        if word in (".", "source") or program_name(word.strip("\"'")) in SHELL_NAMES:
            script = _script_of(words, index + 1)
            if script and ARGUMENTS_RUN.fullmatch(script[0]):
                return f"`{word} {script[0]}`, a script only its caller names"
    if program == "xargs" and any(program_name(word) in INTERPRETERS for word in words[1:]):
        return "what xargs hands a shell or an interpreter, which only its input names"
    return None


def _runs_code_that_runs(program: str, segment: str, programs_only: bool = False) -> bool:
    """Whether a command gives an interpreter code that starts programs or evaluates more
    (`perl -e "system(q(make lint))"`, `python3 -c '...subprocess...'`): its forms are the
    language's to tell, not a line's. (`programs_only`: code is read by the paths it names,
    as settings' lines always were.)"""
    flags = INTERPRETERS.get(program_name(program), ())
    if programs_only or not flags or flags == SHELL_FLAGS:
        return False  # (a shell's `-c` is a line, read as one)
    flags = tuple(flag for flag in flags if flag != "-m")  # (python's `-m x` names a module)
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    for index, word in enumerate(words[1:], start=1):
        if word in flags or word.startswith(flags) and word[:2] != "--":
            code = word[2:] if word not in flags else " ".join(words[index + 1 : index + 2])
            return EVALUATES.search(code) is not None
    return False


def _segments(line: str) -> tuple[str, ...]:
    """The simple commands of a line, split at `;`, `&&`, `||`, `|` and `&` outside quotes and
    commands' outputs, nested as the shell nests them (`echo "$(printf ";")"` is one). A line
    whose quotes shells read apart is one (its hook asks already: `shell_lines`). Kept for the
    lines split last, up to SPLIT_KEPT characters: a line is split again for each thing read
    of it."""
    global _split_chars
    segments = _SPLIT.get(line)
    if segments is None:
        if _split_chars + len(line) > SPLIT_KEPT:
            _SPLIT.clear()
            _OWN_CODE.clear()
            _split_chars = 0
        segments = _SPLIT[line] = _split(line)
        _split_chars += len(line)
    return segments


SPLIT_KEPT = 1 << 20
_SPLIT: dict[str, tuple[str, ...]] = {}
_OWN_CODE: dict[str, str] = {}  # (each line's `outside_quotes`, for `_commands`)
_split_chars = 0


def _split(line: str) -> tuple[str, ...]:
    try:
        plain = _OWN_CODE[line] = outside_quotes(line)
    except SplitByTheShell:
        return (line,) if line.strip() else ()
    segments, start = [], 0
    for operator in re.finditer(r"[;&|]", plain):
        segments.append(line[start : operator.start()])
        start = operator.end()
    return tuple(segment for segment in [*segments, line[start:]] if segment.strip())


def _operator(plain: str, at: int) -> str:
    """What the `;`, `&` or `|` at `at` of a line's own code is, by the characters beside it:
    "and-or" (`&&`, `||`), "pipe" (`|`, `|&`), "background" (`&`), "arm" (a case arm's end:
    `;;`, `;&`, `;;&`), "list" (`;`), or "redirection" (`2>&1`, `&>x`, `>|x`: no operator)."""
    char, before, after = plain[at], plain[at - 1 : at], plain[at + 1 : at + 2]
    if char == ";":
        return "arm" if ";" in (before, after) or after == "&" else "list"
    if char in (before, after):
        return "and-or"
    if char == "|":
        return "redirection" if before == ">" else "pipe"
    if before == ";":
        return "arm"
    if before == "|":
        return "pipe"
    return "redirection" if before in ("<", ">") or after == ">" else "background"


def _commands(line: str) -> list[tuple[int, str, str]]:
    """The simple commands of a line as (how many `_segments` pieces it spans, its own code
    with quotes and expansions blanked, the operator after it); a case arm's end stands as
    one of none."""
    segments = _segments(line)  # (which keeps the line's own code)
    plain = _OWN_CODE.get(line)
    if plain is None:  # (quotes shells read apart: its hook asks already)
        return [(len(segments), "", "end")]
    pieces, start = [], 0
    for found in re.finditer(r"[;&|]", plain):
        pieces.append((plain[start : found.start()], _operator(plain, found.start())))
        start = found.end()
    pieces.append((plain[start:], "end"))
    commands, count, texts = [], 0, []
    for text, operator in pieces:
        if text.strip():
            count, texts = count + 1, [*texts, text]
        if count and operator != "redirection" or operator == "arm":  # (`;;` of its own)
            commands.append((count, " ".join(texts), operator))
            count, texts = 0, []
    return commands


@dataclass
class _Shape:
    """Where a line's simple commands (`_segments`) stand among the compound commands the
    hook opens: `depths`, how many each stands in; `kept`, whether a variable it sets stays
    set in the hook's shell for the rest of the line; `through`, how many blocks stand all
    through the line; `repeats`, whether part of it is a loop's or a function's body, which
    may run again after its later lines have."""

    depths: list[int]
    kept: list[bool]
    through: int
    repeats: bool


@dataclass
class _Block:
    closer: str  # `fi`, `done`, `esac`, `}` or `)`
    repeats: bool  # a loop's or a function's body
    case: str = ""  # in a `case`: "head" (up to `in`), "pattern" (up to `)`) or "body"


class _Blocks:
    """The compound commands a hook's lines open and close, read line by line as its shell
    nests them. A branch of an `if` or a `case`, a loop's or a function's body, a `{ ... }`
    group and a `( ... )` subshell may not run, or run apart from the hook's own shell: a
    value set inside holds only inside. So does one set in a part of a pipeline (each part
    runs in a subshell), by a command run with `&`, or after `&&` or `||` (it may not run).
    A word it cannot place leaves the blocks as they were."""

    def __init__(self) -> None:
        self.stack: list[_Block] = []
        self.repeating = 0  # (loops' and functions' bodies among them)
        self.function_next = False  # (after `f()`: the block that follows is its body)
        self.joined = False  # (the last line ended in `|`, `&&` or `||`: it goes on)
        self.low = 0  # (the fewest blocks left standing since it was set)

    def shape(self, line: str) -> _Shape:
        start = len(self.stack)
        commands = _commands(line)
        depths, lows, lost, repeats = [], [], [], self.repeating > 0
        ends, end = [], "end"  # (what ends the and-or list each command is in)
        for _, _, operator in reversed(commands):
            end = end if operator in ("and-or", "pipe") else operator
            ends.append(end)
        ends.reverse()
        for index, (_, text, operator) in enumerate(commands):
            # (the first command of an and-or list runs, in this shell unless piped or sent
            # off with `&`; the rest may not run, and a pipeline's parts run apart)
            before = commands[index - 1][2] if index else ("pipe" if self.joined else "list")
            piped = before in ("and-or", "pipe") or operator == "pipe"
            lost.append(piped or ends[index] == "background")
            depths.append(len(self.stack))
            repeats = repeats or self.repeating > 0
            self.low = len(self.stack)
            self._read(re.findall(r"[()]|[^\s()]++", text))
            if operator == "arm" and self.stack and self.stack[-1].case == "body":
                self.stack[-1].case = "pattern"  # (`;;`: the next arm's pattern)
                self.low = min(self.low, len(self.stack) - 1)
            lows.append(self.low)
        self.joined = bool(commands) and commands[-1][2] in ("and-or", "pipe")
        # (a value set at a depth holds while no later command of the line leaves it)
        shape = _Shape([], [], min([start, *lows]), repeats or self.repeating > 0)
        least, kept = len(self.stack), []
        for index in range(len(commands) - 1, -1, -1):
            least = min(least, lows[index])
            kept.append(not lost[index] and least >= depths[index])
        kept.reverse()
        for (count, _, _), depth, each in zip(commands, depths, kept, strict=True):
            shape.depths += [depth] * count
            shape.kept += [each] * count
        return shape

    def _read(self, tokens: list[str]) -> None:
        """Open and close the blocks a simple command's words (quotes blanked) start or end."""
        at_start, index = True, 0
        while index < len(tokens):
            token, top = tokens[index], self.stack[-1] if self.stack else None
            index += 1
            if top and top.case in ("head", "pattern"):
                if token == "in" and top.case == "head":
                    top.case = "pattern"
                elif token == "esac" and top.case == "pattern":
                    self._close()
                elif token == ")" and top.case == "pattern":
                    top.case, at_start = "body", True
            elif token == "(":
                self._open(")", False)  # (a subshell; or an array's, a header's, closed)
            elif token == ")" and top and top.closer == ")":
                self._close()
            elif not at_start:
                continue  # (a word given to a program)
            elif tokens[index : index + 2] == ["(", ")"] or token == "function":
                index += 1 if token == "function" else 2  # (`f() {`, `function f {`)
                index += 2 if tokens[index : index + 2] == ["(", ")"] else 0
                self.function_next = True
            elif token in ("if", "while", "until", "for", "select", "case", "{"):
                closer = {"if": "fi", "case": "esac", "{": "}"}.get(token, "done")
                self._open(closer, closer == "done")
                at_start = token not in ("for", "select", "case")
                self.stack[-1].case = "head" if token == "case" else ""
            elif token in ("then", "elif", "else") and top and top.closer == "fi":
                self.low = min(self.low, len(self.stack) - 1)  # (another branch)
            elif token in ("fi", "done", "esac", "}") and top and top.closer == token:
                self._close()
                at_start = False
            elif token not in ("!", "time", "do", "then", "elif", "else"):
                at_start = self.function_next = False  # (the program)

    def _open(self, closer: str, repeats: bool) -> None:
        repeats = repeats or self.function_next
        self.stack.append(_Block(closer, repeats))
        self.repeating += repeats
        self.function_next = False

    def _close(self) -> None:
        self.repeating -= self.stack.pop().repeats
        self.low = min(self.low, len(self.stack))


def _program(segment: str) -> str:
    """The program of a simple command (`program_index`), with its quotes and backslashes
    taken off (`\\cd`, `'let'` are cd and let)."""
    words = segment.split()
    index = program_index(words)
    if index >= len(words):
        return ""
    program = words[index]
    if program.startswith("(("):
        return "(("
    return program if "$" in program or "`" in program else re.sub(r"""[\\'"]""", "", program)


def program_index(words: list[str]) -> int:
    """Where the program of a simple command's `words` stands, as the shell finds it (their
    number where there is none): after keywords, `time`, a case arm's pattern (`Linux) cd
    web`), redirections (`>/dev/null cd web`), variables set for it (`X=1 let t`) and a
    function's header (`f() {`). Read by index, in one pass: a line of a thousand keywords or
    headers is read in time linear in its length."""
    index = 3 if len(words) > 3 and words[0] == "case" and words[2] == "in" else 0
    # (`case "$x" in Linux) cd web ;; esac`, on one line)
    while index < len(words):
        word = words[index]
        if word in KEYWORDS or word in ("(", ")", "function", "command", "builtin", "time", "-p"):
            index += 1
        elif REDIRECTION.fullmatch(word):
            index += 2  # (and its target)
        elif REDIRECTION.match(word) or BEFORE_PROGRAM.fullmatch(word):
            index += 1
        elif word.endswith(")") and "(" not in word.rstrip(")") and "$" not in word:
            index += 1  # (a case arm's pattern: `Linux)`, `*)`)
        elif word.endswith("()") and not word.startswith("(("):
            index += 1  # (a function's header, `f() {`: its body's first command is read)
        elif index + 1 < len(words) and words[index + 1] in ("()", "{"):
            index += 2  # (`f () {`, `function f {`)
        else:
            break
    return index


def _expanded(
    line: str,
    values: dict[str, list[str] | None],
    environ: Mapping[str, str],
    sources: bool,
    programs_only: bool = False,
) -> str:
    """`line` with the values the hook makes plain put in; Untold where a command needs one
    only its shell can tell (a line that only tests or prints may use any)."""
    for segment in _segments(line):
        program = _program(segment)
        if _setting(segment):
            continue  # (set above, in order)
        if program == "set" and PLAIN_SET.fullmatch(segment.strip()):
            continue  # (`set -eu`, `set -o pipefail`)
        if program in OPAQUE and not _inert(segment) or ARGUMENTS_RUN.fullmatch(program):
            raise Untold(f"`{program}`, which runs what only its shell can tell", whole=True)
        if why := _runs_what_it_is_given(program, segment):
            raise Untold(why, whole=True)
        if _runs_code_that_runs(program, segment, programs_only):
            name = program_name(program)
            raise Untold(
                f"code given to {name} that starts programs, which only {name} can tell", whole=True
            )
        if _inert(segment):
            _inert_check(segment, values, environ, sources)
            continue
        if CASE_WORD.fullmatch(segment.strip()):
            # (`case "$x" in`: the word is only matched, as a test's; what it runs to get it,
            # `case "$(eval ...)" in`, is read, and what its arms run)
            _inert_check(segment, values, environ, sources)
            continue
        if why := _reads_what_no_line_shows(program, segment, line, programs_only):
            raise Untold(why, whole=True)
        # (`X=1 $Y`: past a variable set for it, the program is read with the whole segment)
        plain_start = not re.match(r"\s*[A-Za-z_]\w*\+?=", segment)
        if programs_only and plain_start and program_name(program) not in STARTS_ANOTHER:
            _put_in(program, values, environ, sources)  # (a `$(` or `$X` there raises)
            continue
        _put_in(segment, values, environ, sources)  # (raises for what cannot be told)
    return _put_in(line, values, environ, sources, lenient=True)


def _words(
    value: str, values: dict[str, list[str] | None], environ: Mapping[str, str], sources: bool
) -> list[str]:
    """The words a plain assignment's value stands for (`(a b)` an array's)."""
    text = _put_in(value[1:-1] if value.startswith("(") else value, values, environ, sources)
    if len(text) > MAX_VALUE:  # (before shlex, whose time grows fast with its text)
        raise Untold(f"a value of more than {MAX_VALUE:,} characters", whole=True)
    try:
        if value.startswith("("):
            return shlex.split(text)
        return [" ".join(shlex.split(text))]
    except ValueError:  # (an open quote)
        raise Untold("a quote") from None


def _put_in(
    text: str,
    values: dict[str, list[str] | None],
    environ: Mapping[str, str],
    sources: bool,
    lenient: bool = False,
) -> str:
    """`text` with each reference outside single quotes replaced by its value; Untold for one
    that cannot be told (`lenient`: left as it is, for the reader to judge)."""
    out, at, quote, length = [], 0, "", 0
    while at < len(text):
        if length > MAX_LINE:  # (many references to a long value)
            if lenient:
                return text
            raise Untold(
                f"a line of more than {MAX_LINE:,} characters once its values are in", whole=True
            )
        char = text[at]
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "\\":
            out.append(text[at : at + 2])
            at += 2
            continue
        elif char == "'" and not quote:
            quote = "'"
        elif char == '"':
            quote = "" if quote else '"'
        elif char == "$" and text[at + 1 : at + 2] in ("'", '"') and not lenient:
            raise Untold("`$'...'`")  # (`$'\x6dake'` is `make`)
        elif char == "{" and not quote and not lenient and _braces(text, at):
            raise Untold(f"`{_braces(text, at)}`")  # (bash's `{make,lint}`)
        elif char in "$`" and (reference := REFERENCE.match(text, at)):
            try:
                out.append(_value(reference, values, environ, sources, quoted=bool(quote)))
                length += len(out[-1])
            except Untold:
                if not lenient:
                    raise
                out.append(reference[0])
            at = reference.end()
            continue
        out.append(char)
        at += 1
    return "".join(out)


def _braces(text: str, at: int) -> str:
    """The brace expansion that starts at `at` (`{make,lint}`, `{1..3}`), or ""."""
    found = BRACES.match(text, at)
    return found[0] if found and ("," in found[0] or ".." in found[0]) else ""


def _reads_what_no_line_shows(
    program: str, segment: str, line: str = "", programs_only: bool = False
) -> str | None:
    """Why a command runs what no line of the hook shows: a shell that reads its script from
    its input (`sh < x`, `cat x | sh`) or is given its caller's words as code (`sh -c '. "$0"'
    x`), a file sourced from a descriptor (`. /dev/fd/3`), `exec` that only moves the hook's
    input, a program that runs another's line (`flock -c`, `script -c`, `su -c`), awk's and
    sed's script files, `git submodule foreach`, and an interpreter planloop cannot read."""
    try:
        words = shlex.split(segment)
    except ValueError:
        return f"`{_short(segment.strip())}`, whose quotes do not close"
    name = program_name(program)
    started = _without_redirections(words)
    keywords = next((i for i, word in enumerate(started) if word not in KEYWORDS), len(started))
    started = started[keywords:]  # (in one cut: one a keyword, of a thousand, took long)
    if started[:1] == ["command"] and started[1:2] in (["-v"], ["-V"]):
        started = []  # (`command -v bash` looks for it, and runs nothing)
    for index, word in enumerate(started):
        if word in KEYWORDS or word in ("(", ")", "time", "command", "builtin"):
            continue
        if word.startswith("-") or BEFORE_PROGRAM.fullmatch(word) or word.isdigit():
            continue  # (`nice -n 5 sh`, `env X=1 sh`, `timeout 60 sh`)
        if program_name(word) not in SHELL_NAMES:
            if word == program or program_name(word) in WRAPPERS:
                continue  # (the program, or one that starts the next word: `exec sh`)
            break  # (`echo sh`: a word, no shell)
        rest = started[index + 1 :]
        code = _code_after_options(rest, 0)
        if code is not None and ARGUMENTS_RUN.search(code):
            return f"`{word} -c` given its caller's words, which only its caller names"
        # (a terminal's shell alone reads what the person types; fed, it reads a file)
        fed = not programs_only or "|" in line or "<" in segment
        if fed and (code is None and not _script_of(rest) or "-s" in rest):
            return f"`{word}` reading its script from its input, which no line shows"
        break
    if name in (".", "source") and len(words) > 1 and words[1].startswith(("/dev/", "/proc/")):
        return f"`{name} {words[1]}`, a file only its shell can tell"
    if name == "exec" and len(words) > 1 and REDIRECTION.match(words[1]) and _reads_a_file(words):
        return "`exec` moving the hook's input to a file, which only its shell follows"
    if name in ("flock", "script", "su", "runuser", "sg") and any(map(_code_flag, words[1:])):
        return f"`{name} -c`, a line given as a word"
    if name in ("awk", "gawk", "mawk", "nawk", "sed", "gsed") and "-f" in words:
        return f"`{name} -f`, whose script file may start programs"
    if why := _line_given_in_words(words):
        return why
    if name in ("cd", "pushd") and "-P" in words:  # (a logical `cd lnk/..` stays where it was)
        return f"`{name} -P`, which goes where the kernel takes a link, not where the line says"
    if name in ("perl", "ruby") and any(w.startswith(("-I", "-M", "-m", "-r")) for w in words):
        return f"`{name}` loading modules from folders only it searches (`-I`, `-M`, `-r`)"
    if name in ("node", "nodejs") and any(w.startswith("--env-file") for w in words):
        return "`node --env-file`, whose NODE_OPTIONS only node reads"
    if name == "git" and "foreach" in words:
        return "`git submodule foreach`, which runs in each submodule's folder"
    at = next((index for index, word in enumerate(words) if program_name(word) == name), 0)
    if name == "swift" and swift_subcommand(words[at:]):
        return None  # (SwiftPM's: it reads Package.swift, held as a build tool's file)
    if name in INTERPRETERS and not INTERPRETERS[name] and name not in (".", "source"):
        return f"a script run by {name}, which planloop cannot read"
    return None


def _line_given_in_words(words: list[str], depth: int = 0) -> str | None:
    """Why a command starts a command line its words give (TEXT_PROGRAMS), wherever such a
    program stands among them (`xargs sed ...`, `find . -exec awk ...`), or in the code a
    shell is given (`sh -c "awk '...'"`): planloop does not read such a line for the scripts
    it runs with a shell or sources, so, as for `python3 -c` code that starts programs, the
    command asks."""
    found = [i for i, word in enumerate(words) if program_name(word) in TEXT_PROGRAMS]
    shells = [i for i, word in enumerate(words) if program_name(word) in SHELL_NAMES]
    if len(found) + len(shells) > MAX_TEXT_PROGRAMS:
        return f"more than {MAX_TEXT_PROGRAMS} programs that run lines given in their words"
    found = [index for index in found if _stands_as_program(words, index)]
    for index in found:
        name, given = program_name(words[index]), words[index + 1 :]
        if name in AWKS or name in SEDS:
            why = (_awk_why if name in AWKS else _sed_why)(name, given)
        else:
            why = _other_line_why(name, given, words[:index])
        if why:
            return why
    for index in shells if depth < MAX_SHELL_DEPTH else []:
        code = _code_after_options(words, index + 1) or ""
        for segment in _segments(code) if code else ():
            try:
                inner = shlex.split(segment)
            except ValueError:
                return f"`{_short(segment.strip())}`, whose quotes do not close"
            if why := _line_given_in_words(inner, depth + 1):
                return why
    return None


def _stands_as_program(words: list[str], index: int) -> bool:
    """Whether the word at `index` is a program the command starts: its own, or one a runner
    starts past the runner's options and their values (`xargs -n 1 sed`, `env X=1 awk`, `find
    . -exec sed`); a word given to another program (`grep -r sed src`) is none."""
    start = program_index(words)
    at = index - 1
    while at >= start:
        word = words[at]
        if word in ("-exec", "-execdir", "-ok", "-okdir") or program_name(word) in STARTS_ANOTHER:
            return True
        value = at > start and words[at - 1][:1] == "-"  # (`sudo -u x sed`)
        if not (
            word[:1] in ("-", "+") or word.isdigit() or BEFORE_PROGRAM.fullmatch(word) or value
        ):
            return False
        at -= 1
    return True


def _awk_why(name: str, words: list[str]) -> str | None:
    """Why awk's words may start a program: a script file or module it loads, or program
    text that starts one (the values of `-F` and `-v` are data)."""
    value = False
    for word in words:
        if value or word in ("-F", "-v", "--field-separator", "--assign"):
            value = not value
            continue
        if word.startswith(("-F", "-v", "--field-separator=", "--assign=")):
            continue
        option = word[2:].partition("=")[0] if word.startswith("--") else ""
        long_file = option and any(each.startswith(option) for each in AWK_FILE_OPTIONS)
        if long_file or AWK_FILE_LETTERS.match(word):
            return f"`{name} {word}`, whose script file may start programs"
        if awk_starts_programs(word):
            return f"code given to {name} that starts programs, which only {name} can tell"
    return None


def _sed_why(name: str, words: list[str]) -> str | None:
    """Why sed's words may run a command line: a script file, or a script that does (its
    `-e` scripts joined, as sed joins them, or else its first word that is no option)."""
    scripts, operands, index = [], [], 0
    while index < len(words):
        word, index = words[index], index + 1
        if word == "--":
            operands += words[index:]
            break
        option, equals, value = word[2:].partition("=") if word.startswith("--") else ("", "", "")
        if option and "file".startswith(option):
            return f"`{name} {word}`, whose script file may start programs"
        if option and ("expression".startswith(option) or "line-length".startswith(option)):
            given = value if equals else " ".join(words[index : index + 1])
            index += 0 if equals else 1
            scripts += [given] if "expression".startswith(option) else []
        elif word.startswith("-") and word != "-" and not option:
            for at, letter in enumerate(word[1:], start=2):
                if letter == "f":
                    return f"`{name} {word}`, whose script file may start programs"
                if letter in "el":  # (their value: the rest of the word, or the next one)
                    given = word[at:] or " ".join(words[index : index + 1])
                    index += 0 if word[at:] else 1
                    scripts += [given] if letter == "e" else []
                    break
                if letter == "i":
                    break  # (`-i.bak`: the rest is a suffix)
        elif not word.startswith("--"):
            operands.append(word)
    script = "\n".join(scripts) if scripts else " ".join(operands[:1])
    if sed_starts_programs(script):
        return f"code given to {name} that starts programs, which only {name} can tell"
    return None


def _other_line_why(name: str, words: list[str], before: list[str]) -> str | None:
    """Why tar, an editor or git runs a command line its words give: an editor's commands,
    and a line of tar's command options or of a `-c` setting of git's that starts a shell
    (`_starts_a_shell`; one that only names a program, `tar -I ./tools/pg`, is read).
    `before`: the words before the program (`X=... git --config-env=alias.x=X x`)."""
    set_for_it = dict(word.partition("=")[::2] for word in before if "=" in word)
    for index, word in enumerate(words):
        if name in ("tar", "gtar"):
            given = _tar_commands(words, index)
            shown = f"`{name} {_short(word)}`"
        elif name in EDITORS and EDITOR_COMMAND_LETTERS.match(word):
            return f"`{name} {word}`, whose commands only {name} can tell"
        elif name == "git" and (word == "-c" or word.startswith("--config-env")):
            given = _git_setting_line(words, index, set_for_it)
            given = [given] if given is not None else []
            shown = f"`git {_short(word if word != '-c' else ' '.join(words[index : index + 2]))}`"
        else:
            continue
        if any(map(_starts_a_shell, given)):
            return f"{shown}, a command line that starts a shell, whose scripts no line shows"
    if name == "ex":
        return "`ex`, whose commands only its input holds"
    return None


def _tar_commands(words: list[str], index: int) -> list[str]:
    """The command line tar's option at `index` gives (TAR_COMMANDS, or `-I`, `-F` among a
    bundle's letters, the value glued on or the next word; in the old form, `tar xIf`, each
    later word may be it)."""
    word = words[index]
    if word.startswith("--"):
        option, equals, value = word[2:].partition("=")
        if not option or not any(each.startswith(option) for each in TAR_COMMANDS):
            return []
        value = value if equals else " ".join(words[index + 1 : index + 2])
        return [value.removeprefix("exec=")]  # (`--checkpoint-action=exec=CMD`)
    if not word.startswith("-") and index > 0:
        return []
    letters = word.removeprefix("-")
    at = min((letters.find(letter) for letter in "IF" if letter in letters), default=-1)
    if at < 0:
        return []
    if not word.startswith("-"):
        return words[index + 1 :]
    return [letters[at + 1 :] or " ".join(words[index + 1 : index + 2])]


def _git_setting_line(words: list[str], index: int, set_for_it: dict[str, str]) -> str | None:
    """The command line a `-c KEY=VALUE` (or `--config-env=KEY=VARIABLE`, its value set for
    the command, `set_for_it`, or else `$VARIABLE`: only the shell can tell it) of git's at
    `index` sets, for a key whose value git runs (an alias's, with its `!` taken off), or
    None."""
    word = words[index]
    setting = (
        word.removeprefix("--config-env=")
        if "=" in word
        else " ".join(words[index + 1 : index + 2])
    )
    key, _, value = setting.partition("=")
    section, _, rest = key.lower().partition(".")
    if not is_program_key(f"{section}.{rest.rpartition('.')[2]}"):
        return None
    if word != "-c":  # (the variable's value, where the command sets it)
        value = set_for_it.get(value, f"${value}")
    if section in ("alias", "submodule"):
        # (else a git subcommand; a variable's value only the shell can tell may be either)
        return value[1:] if value.startswith("!") else value if value.startswith("$") else None
    return value


def _starts_a_shell(line: str) -> bool:
    """Whether a command line given as a word starts a shell or sources a file, or holds what
    only a shell reads (an operator, an expansion): the scripts that shell runs or sources are
    not read from a word (`shell_scripts` reads the hook's lines)."""
    if SHELL_SYNTAX.search(line):
        return True
    try:  # (split by blanks alone where nothing is quoted: one a word, for each word)
        words = shlex.split(line) if re.search(r"""['"\\]""", line) else line.split()
    except ValueError:
        return True
    return any(
        word in (".", "source") or program_name(word) in (*SHELL_NAMES, *OTHER_SHELLS)
        for word in words
    )


def _code_given_arguments(line: str) -> str | None:
    """Why a shell given code on a line runs what its caller names: `sh -c '. "$0"' x`."""
    for segment in _segments(line):
        try:
            words = shlex.split(segment)
        except ValueError:
            continue
        for index, word in enumerate(words):
            if program_name(word) not in SHELL_NAMES:
                continue
            code = _code_after_options(words, index + 1) or ""
            if ARGUMENTS_RUN.search(code) or re.search(r"\$\{?[0-9@*]", code):
                return f"`{word} -c` given its caller's words, which only its caller names"
    return None


def _code_after_options(words: list[str], start: int) -> str | None:
    """The code a shell's `-c` gives among its options from `start` (`sh -e -o pipefail -c
    CODE`), or None for no `-c`: options end at the first other word (its script), as the
    shell reads them. (Looking further, past each shell name of a long line, took time
    quadratic in the line.)"""
    index = start
    while index < len(words):
        word = words[index]
        if _code_flag(word):
            return words[index + 1] if index + 1 < len(words) else ""
        if word[:1] not in ("-", "+") or word in ("-", "--"):
            return None
        index += 2 if word in ("-o", "+o", "-O", "+O") else 1
    return None


def _without_redirections(words: list[str]) -> list[str]:
    """`words` less redirections and their targets (`sh < x` gives sh no script)."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif REDIRECTION.fullmatch(word):
            skip = True
        elif not REDIRECTION.match(word):
            kept.append(word)
    return kept


def _reads_a_file(words: list[str]) -> bool:
    """Whether redirections read from a file other than the terminal or nothing (`exec < x`,
    `exec 3<x`; `exec 1>&2` and `exec < /dev/tty` only move where output goes, or ask you)."""
    for index, word in enumerate(words):
        if (found := re.fullmatch(r"\d*+(<>?|<&)(.*+)", word)) is None:
            continue
        target = found[2] or (words[index + 1] if index + 1 < len(words) else "")
        if target not in ("/dev/tty", "/dev/null", "-") and not target.isdigit():
            return True
    return False


def _code_flag(word: str) -> bool:
    return word[:1] == "-" and word[:2] != "--" and "c" in word[1:]


def _inert(segment: str) -> bool:
    """Whether a command only tests or prints (`printf -v x` sets x; bash's `[[` evaluates
    a value as arithmetic, `x[$(cmd)]` running cmd, where it compares numbers or tests `-v`)."""
    program = _program(segment)
    if program == "[[":
        return ARITHMETIC_TEST.search(segment) is None
    if program in ("test", "[") and re.search(r"\s-[vR]\s", segment):
        return False  # (`test -v 'a[$(cmd)]'` evaluates the subscript)
    return program in INERT and not (program == "printf" and "-v" in segment.split())


def _inert_check(
    segment: str, values: dict[str, list[str] | None], environ: Mapping[str, str], sources: bool
) -> None:
    """A command that only tests or prints may use any variable, but what it runs to get a
    value is read as a line (`echo "$(eval "$(cat x)")"` runs what x holds), and a value it
    computes (`${x:0:n}`, bash's arithmetic) only its shell can tell: Untold."""
    for _ in range(16):  # (from the inside out)
        inner = INNER_OUTPUT.search(segment)
        if inner is None:
            break
        _expanded(inner[1] if inner[1] is not None else inner[2], values, environ, sources)
        segment = segment[: inner.start()] + "x" + segment[inner.end() :]
    else:
        raise Untold("outputs of commands nested past 16")
    if "$(" in segment or "`" in segment:
        raise Untold("a command's output")
    for reference in REFERENCE.finditer(segment):
        if reference["other"] is not None or reference["operator"] not in (None, "-", ":-"):
            raise Untold(f"`{reference[0][:40]}`")


def _value(
    reference: re.Match,
    values: dict[str, list[str] | None],
    environ: Mapping[str, str],
    sources: bool,
    quoted: bool,
) -> str:
    if reference["special"] is not None:
        return reference[0]  # git's arguments, the status
    name = reference["name"] or reference["bare"]
    if name is None:
        raise Untold(f"`{reference[0]}`")  # a command's output, `${#x}`, `${x%y}`
    if SHELLS_OWN.fullmatch(name):
        raise Untold(f"`${name}`")  # (`[[ $x =~ y ]]` sets BASH_REMATCH, `read` REPLY)
    if GITS_OWN.fullmatch(name) and name not in values:
        return reference[0]
    operator = reference["operator"]
    if operator and operator.lstrip(":") not in "-":
        raise Untold(f"`{reference[0]}`")  # `${x:=y}` sets it, `${x:+y}`, `${x:?y}`
    if name in values:
        words = values[name]
        if words is None:
            raise Untold(f"`${name}`")
    elif name in environ:
        words = [environ[name]]
    elif sources:
        raise Untold(f"`${name}`")  # (a file the hook sources may set it)
    else:
        words = []  # set by no one: empty
    if operator is not None and not "".join(words):
        default = _put_in(reference["default"], values, environ, sources)
        words = shlex.split(default) if default.strip() else []
    if not all(PLAIN_VALUE.fullmatch(SPECIAL.sub("", word)) for word in words):
        raise Untold(f"`${name}`")
    if reference["index"]:  # `"${ARGS[@]}"`: each word a word of its own
        joined = " ".join(shlex.quote(word) if "$" not in word else word for word in words)
        return f'"{joined}"' if quoted else joined
    return " ".join(words)


def _short(line: str) -> str:
    return line if len(line) <= 80 else line[:77] + "..."
