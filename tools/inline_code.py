"""What code given to an interpreter on a command line names: the text of `python3 -c '...'`,
`node -e '...'`, `perl -e`, and the code `echo` or a here-string gives one on its input.

A host tool's line (a hook, a task, git's config) may carry code. What that code loads or starts
from the folder it runs in is run outside the sandbox later, like a script the line names, so
tools/git_programs.py holds it. Code cannot be followed by patterns, so this reads what its text
plainly names, by where a name stands:

    loaded        where a module is loaded by name or path (`require("./x")`, `import "./x"`)
    running       where a file is loaded or a program started by its path (`load "x.rb"`,
                  `os.system(...)`, `subprocess.run(["tools/fmt"])`, perl's `do`)
    any_path      every quoted path with a slash, in code that evaluates text it reads or
                  starts programs (the path may reach the call through a variable)
    lines         whole command lines given to a shell or as an argv (`system("./x --w")`)
    folders       where the code starts its programs (`cwd="tools"`, `os.chdir(...)`)
    modules       python's imports, and the folders it puts on `sys.path`
    packages      node's packages loaded by name (`require("yaml")`), from node_modules

Data a hook only reads or writes (its log, package.json read for a version, a settings file
parsed) is not named: holding it would make the file tools ask there, or a command fail.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from tools.build_files import BUILD_TOOLS
from tools.node_packages import package_name
from tools.spans import insides

# What code given on the line loads: python's `import x` / `from x import y` and the files it
# opens to run.
PYTHON_IMPORTS = re.compile(
    r"(?:^|[;\s])(?:from|import)\s+([A-Za-z_][\w.]*(?:\s+as\s+\w+)?(?:\s*,\s*[A-Za-z_][\w.]*(?:\s+as\s+\w+)?)*)"
)
# Any quoted word without blanks, and any quoted text.
QUOTED_IN_CODE = re.compile(r"""['"`]([^'"`\s]+)['"`]""")
QUOTED_TEXT = re.compile(r"""['"`]([^'"`]*)['"`]""")
# Where a module's name or a relative path may stand (node's `require("x")` is a package).
# (Blanks are taken whole, `*+`, here and below: blanks that two or three quantifiers may share
# out were read again for every share, cubic in a run of blanks; tools/spans.py says why that
# matters.)
LOADING_IN_CODE = re.compile(r"""\b(?:require|import|from)\s*+\(?\s*+['"`]([^'"`\s]++)['"`]""")
# Where only a path stands: a file loaded (ruby's `load`, php's `include`, lua's `dofile`, R's
# `source`, perl's `do`, python's `run_path` and `exec(open(...))`), or a program started
# (`system`, `os.system`, `execSync`, `spawn`, `subprocess.run([...])`, `Popen`, `args=[...]`).
# (`load` alone, not a method: `toml.load(...)` reads data.)
RUNNING_IN_CODE = re.compile(
    r"""(?:(?<![.\w])load|\b(?:require_relative|require_once|loadfile|dofile|include(?:_once)?"""
    r"""|source|do|run_path|exec_file|execfile|runfile|system|popen|Popen|exec[lv]p?e?"""
    r"""|(?:posix_)?spawn\w*|exec(?:File)?(?:Sync)?|run|call|check_call|check_output|getoutput"""
    r"""|getstatusoutput|capture2e?|capture3|pipeline|fork|Worker)|\bexec\s*+\(\s*+open)"""
    r"""\s*+\(?\s*+(?:args\s*+=\s*+)?[\[(]?\s*+['"`]([^'"`\s]++)['"`]"""
)
# A path taken from where the code runs (`require(process.cwd() + "/tools/x.js")`).
FROM_HERE_IN_CODE = re.compile(
    r"""(?:cwd\(\)|getcwd\(\)|__dirname|Dir\.pwd)\s*\+\s*['"`](/[^'"`\s]+)['"`]"""
)
# A whole command line given from code to a call that starts it, read as a line whether a
# shell splits it or the call takes it as the program (`os.system("./tools/fmt --write")`,
# `subprocess.run(f"./fmt {f}", shell=True)`, `spawnSync("./x -q", {shell: true})`, perl's
# `qx{...}`, ruby's `%x{...}`, `Open3.capture2e`, php's `proc_open`, `execa`).
SHELL_LINE_IN_CODE = re.compile(
    r"""\b(?:system|popen|Popen|exec\w*|shell_exec|passthru|getoutput|getstatusoutput|run|call"""
    r"""|check_call|check_output|spawn\w*|create_subprocess_\w+|capture\w*|proc_open|split)"""
    r"""\s*+\(?\s*+(?:args\s*+=\s*+)?[frbu]{0,2}['"`]([^'"`]++)['"`]"""
    r"""|\bopen\s*+\(\s*+[^,()]++,\s*+(?:['"]-\|['"]\s*+,\s*+)?['"]([^'"]++)['"]"""
)
# perl's `qx{...}` and ruby's `%x{...}`, found apart from SHELL_LINE_IN_CODE (tools/spans.py: a
# regex read on to the end from each one that does not close).
PERL_COMMANDS = (("qx{", "}"), ("%x{", "}"))
# An argv list given to a call that starts a program (`subprocess.run(["sh", "tools/x.txt"])`,
# `["sh", "fmt.sh", f]`, `spawnSync("bash", ["fmt.sh", f])`): its quoted words, read as the
# command line they start (words the code makes are left out).
ARGV_IN_CODE = re.compile(
    r"""\b(?:run|call|check_call|check_output|Popen|spawn\w*|execFile\w*|system|exec\w*"""
    r"""|create_subprocess_exec|capture\w*|execa\w*)\s*+\(\s*+(?:args\s*+=\s*+)?"""
    r"""((?:[frbu]{0,2}['"`][^'"`]*['"`]\s*,\s*)?[\[(][^\])]*[\])])"""
)
# Where code starts its programs (`cwd="tools"`, `{cwd: "tools"}`, `os.chdir("tools")`,
# perl's `chdir "tools"`), and a move to a folder the code makes (`cwd=d`, `chdir(p.join(...))`).
FOLDER_IN_CODE = re.compile(
    r"""\b(?:cwd\s*+[=:]\s*+|chdir\s*+\(?\s*+)[frbu]{0,2}['"`]([^'"`]++)['"`]"""
)
FOLDER_COMPUTED = re.compile(r"""\b(?:cwd\s*+[=:]|chdir\b)\s*+\(?\s*+(?![frbu]{0,2}['"`])[\w$.]""")
# Code that runs text it reads (a builtin, not a method: `json.load(sys.stdin)` and
# `re.compile(...)` run nothing), or starts programs, or loads a module whose name it makes:
# any path it names may be what it runs.
# A list of quoted words (`["make", "-s", "lint"]`), in linear time (no backtracking).
LIST_IN_CODE = re.compile(r"""\[(?:\s*+(?:"[^"\n]*+"|'[^'\n]*+')\s*+,?)++\s*+\]""")
# Programs whose name alone says they read a file of the folder (tools/build_files.py).
NAMED_RUNNERS = frozenset((*BUILD_TOOLS, "npm", "pnpm", "yarn", "bun", "npx"))
EVALUATES = re.compile(
    r"(?<![.\w])(?:exec|eval|compile|loadstring|load)\s*\(|\b(?:instance|class|module)_eval\b"
    r"|\b(?:subprocess|child_process|system|popen|Popen|spawn\w*|exec[lv]p?e?|execSync)\b"
    r"|\b(?:require|import)\s*\(\s*[^'\"`\s)]"
)
# Data a quoted path names, even where code could run it: a log, a document, settings read.
DATA_SUFFIXES = (".json", ".log", ".txt", ".md", ".csv", ".tsv", ".lock", ".html", ".svg")
DATA_SUFFIXES += (".toml", ".yaml", ".yml", ".ini", ".cfg", ".xml")
PYTHON_LOADS_BY_NAME = re.compile(
    r"""(?:__import__|import_module|run_module)\s*\(\s*['"]([A-Za-z_][\w.]*)['"]"""
)


@dataclass
class CodeNames:
    """What a piece of code names (module docstring): paths as written, relative to where the
    code runs (or, for `running`, to each of `folders` when it moves)."""

    loaded: list[str] = field(default_factory=list)
    running: list[str] = field(default_factory=list)
    any_path: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)
    module_folders: list[str] = field(default_factory=list)
    packages: list[str] = field(default_factory=list)  # `require("yaml")`: from node_modules
    folder_computed: bool = False  # it moves to a folder it makes (`cwd=os.path.join(...)`)


def piped(opened: str) -> str:
    """The command of perl's `open(F, "./fmt |")`: what its quotes hold, less a `|` and the
    blanks at its end (at least one character, as `([^'"]+?)\\s*\\|?` took it)."""
    command = opened.removesuffix("|").rstrip()
    return command or opened[:1]


def names_in_code(code: str, python: bool = False) -> CodeNames:
    """What `code` names (CodeNames); `python` for python's imports too. Paths that are data
    (DATA_SUFFIXES) are left out where a name may be data; what is loaded or started by a path
    is code whatever its name (ruby's `load "x.conf"`)."""
    quoted = QUOTED_IN_CODE.findall(code) + [p.lstrip("/") for p in FROM_HERE_IN_CODE.findall(code)]
    names = CodeNames()
    names.loaded = [p for p in LOADING_IN_CODE.findall(code) if not _data(p) and _relative(p)]
    names.running = [p for p in RUNNING_IN_CODE.findall(code) if _relative(p)]
    # `system("./fmt --write")`, perl's `open(F, "./fmt |")` (a file it opens is no line)
    given = SHELL_LINE_IN_CODE.findall(code)
    names.lines = [a for a, _ in given] + [piped(c) for _, c in given if c and "|" in code]
    names.lines += [line for line in insides(code, *PERL_COMMANDS) if line]
    # An argv ends at its closing bracket: none after the last one (an unclosed `run([`, over
    # and over), and the search is over there, not read to the end from each.
    last_closer = max(code.rfind("]"), code.rfind(")"))
    argvs = ARGV_IN_CODE.findall(code, 0, last_closer + 1)
    names.lines += [shlex.join(QUOTED_TEXT.findall(argv)) for argv in argvs]
    if EVALUATES.search(code):
        names.any_path = [p for p in quoted if "/" in p and not _data(p) and _relative(p)]
        # A line kept in a variable first (`c = "./tools/fmt --write"; run(c, shell=True)`).
        texts = QUOTED_TEXT.findall(code)
        # (A text of blanks alone has no first word.)
        lines = [t for t in texts if " " in t and t.strip() and _relative(t)]
        names.lines += [t for t in lines if "/" in t.split()[0]]
        # An argv kept in a variable first (`cmd = ["make", "-s", "lint"]; call(cmd)`), and a
        # program of a build tool's or a package manager's name kept so (`MAKE = "make"`):
        # what they start reads the Makefile, package.json, as a line naming them does.
        lists = LIST_IN_CODE.findall(code, 0, last_closer + 1)
        names.lines += [shlex.join(QUOTED_TEXT.findall(each)) for each in lists]
        names.lines += [t for t in texts if t.split() and t.split()[0] in NAMED_RUNNERS]
    names.packages = [p for p in map(package_name, LOADING_IN_CODE.findall(code)) if p]
    names.folders = FOLDER_IN_CODE.findall(code)
    names.folder_computed = bool(FOLDER_COMPUTED.search(code))
    if python:
        imported = PYTHON_IMPORTS.findall(code)
        names.modules = [m.split()[0] for each in imported for m in each.split(",")]
        names.modules += PYTHON_LOADS_BY_NAME.findall(code)
        if "sys.path" in code:  # (asked once: asked of each quoted word, it was quadratic)
            names.module_folders = [p for p in quoted if _relative(p)]
    return names


def _data(path: str) -> bool:
    return path.lower().endswith(DATA_SUFFIXES)


def _relative(text: str) -> bool:
    """Whether a quoted word of code is a path from where it runs (`./x`, `tools/x.py`, `x.rb`),
    not an address, a package (`@scope/x`, `node:fs`) or a system file."""
    return not (os.path.isabs(text) or text.startswith(("@", "~", "$", "-")) or ":" in text)


# awk's program text that starts a program: `system(...)`, a pipe to or from a command
# (`print | "cmd"`, `"cmd" | getline`, gawk's `|&`: a run of `|` of odd length, as awk reads
# `||` first; a regex's `|` too, which only awk's reading tells apart), and gawk's `@`
# (`@include "x"`, `@load "x"`, a call by the name a variable holds).
AWK_STARTS = re.compile(r"\bsystem\b|@|(?<!\|)(?:\|\|)*+\|(?!\|)")
# sed's commands of one letter, and what stands between and before them (addresses' numbers,
# `$`, `,`, `+`, `~`, `!`, blocks, a regex address's `I` and `M`).
SED_ALONE = frozenset("=dDgGhHlLnNpPqQxzF" + "0123456789$,+~!;{}IM \t\n")
SED_TO_LINE_END = frozenset("aicrRwW#")  # (text, a file's name, a comment: to the line's end)
SED_LABELS = frozenset("btT:v")  # (a label, past blanks: to a blank, `;`, `}` or `#`)
SED_LABEL = re.compile(r"[ \t]*+[^\s;}#]*+")
SED_FLAGS = re.compile(r"[gpiImM0-9e]*+")
# A bracket of a regex, without a backslash (`[^]a-z[:digit:]]`).
SED_BRACKET = re.compile(r"\[\^?+\]?+(?:\[([:.=])[^\]\\\n]*?\1\]|[^\]\[\\\n])*+\]")


def awk_starts_programs(text: str) -> bool:
    """Whether awk's program text may start a program (AWK_STARTS)."""
    return AWK_STARTS.search(text) is not None


def sed_starts_programs(script: str) -> bool:
    """Whether a sed script runs a command line: GNU sed's `e` command, or an `s` command's
    `e` flag (the pattern space run as a line). Read command by command, as sed reads it; a
    script read otherwise here than sed may read it (a regex's bracket that holds its
    delimiter or a backslash, a part left open, a letter that is no command) counts as one
    that does."""
    at = 0
    while at < len(script):
        char = script[at]
        if char in SED_ALONE:
            at += 1
        elif char in SED_TO_LINE_END:
            at = _line_end(script, at)
        elif char in SED_LABELS:
            at = SED_LABEL.match(script, at + 1).end()
        elif char in "/\\sy":
            # (an address `/x/` or `\%x%`; `s/x/y/flags`; `y/abc/xyz/`)
            at += 1 if char != "/" else 0
            delimiter = script[at : at + 1]
            if delimiter in ("", "\n", "\\"):
                return True
            at = _sed_part(script, at + 1, delimiter, regex=char != "y")
            if char in "sy" and at >= 0:
                at = _sed_part(script, at, delimiter, regex=False)
            if at < 0:
                return True
            if char == "s":
                flags = SED_FLAGS.match(script, at)
                if "e" in flags[0]:
                    return True
                at = (
                    _line_end(script, at)
                    if script[flags.end() : flags.end() + 1] == "w"
                    else flags.end()
                )
        else:
            return True  # (`e`, or what sed does not take for a command)
    return False


def _line_end(script: str, at: int) -> int:
    """Where the text that starts at `at` ends: at the line's end, past lines that end in a
    backslash (sed's `a\\` text)."""
    while at < len(script) and script[at] != "\n":
        at += 2 if script[at] == "\\" else 1
    return at


def _sed_part(script: str, at: int, delimiter: str, regex: bool) -> int:
    """Past the `delimiter` that closes a part of a sed command whose text starts at `at`
    (an address, an `s` command's pattern or replacement), or -1 where it is not read as sed
    reads it. In a regex, GNU sed reads a bracket (`[/]`) whole."""
    while at < len(script):
        char = script[at]
        if char == delimiter:
            return at + 1
        if char == "\n":
            return -1
        if char == "[" and regex:
            found = SED_BRACKET.match(script, at)
            if found is None or delimiter in found[0]:
                return -1
            at = found.end()
        else:
            at += 2 if char == "\\" else 1
    return -1
