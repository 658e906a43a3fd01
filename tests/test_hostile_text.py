"""Hostile text in the workspace or in a reply cannot hold planloop up.

planloop reads files a repository ships (a pom, a git hook, mise's settings) to know what the
person's tools will run, and it looks at the model's reply before printing it. Python's `re`
holds the interpreter for a whole search, so a search that takes minutes is minutes in which
planloop answers no Ctrl-C and no SIGTERM. Each regex below once took time quadratic in the
text (a pom of 256 KiB of `<parent>`: 37 s); a file of the size planloop reads (1 MiB) would
have taken from ten minutes to an hour. Each reader is run in a process of its own, which the
test ends if it is still at work long after a linear reading would have finished.

The linear versions must find exactly what the regexes found: that is checked against the
regexes themselves, on many short texts (short, so the regexes are quick).
"""

from __future__ import annotations

import io
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import spawn
from rich.console import Console
from test_hostile_pass4 import needs_bwrap

from cli.render import MAX_MARKDOWN_CHARS, TerminalUI
from cli.signals import ENDING_SIGNALS
from dotenv_text import dotenv_values, parse_stream, without_comment
from fakeapi import text, tool_use
from tools.base import ToolError
from tools.build_files import CannotTell, _make_lines, build_files
from tools.environment import expand_variables
from tools.git_programs import EXPANSION, PATTERN, expansions, npx_packages
from tools.spans import delimited, delimited_in_lines, insides, replaced
from tools.tool_scripts import HG_LINE, HOOK_FILE_LIMIT

ROOT = Path(__file__).resolve().parent.parent
AGENT = ROOT / "agent.py"
MIB = 2**20
# A reading in linear time takes well under a second here, a quadratic one many minutes.
PATIENCE_SECONDS = 60


def finishes(code: str, tmp_path: Path) -> str:
    """Run `code` in a fresh python from the project's folder; its output, once it is done.
    (A file past SMALL_FILE_LIMIT, 1 MiB, is not read at all: the hostile ones stay under it.)"""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            cwd=ROOT,
            env={"PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=PATIENCE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"still reading after {PATIENCE_SECONDS} s: quadratic again")
    assert done.returncode == 0, done.stderr
    return done.stdout


# ---- the linear readings find what the regexes found ------------------------------------------


def short_texts(pieces: list[str], count: int = 20_000) -> list[str]:
    chance = random.Random(1)  # the same texts each run
    return ["".join(chance.choices(pieces, k=chance.randint(0, 12))) for _ in range(count)]


def test_spans_between_delimiters_are_what_the_lazy_regexes_find():
    template = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
    for line in short_texts(["{", "}", "%", "{{", "}}", "{%", "%}", "a", "\n", "\r"]):
        spans = list(delimited_in_lines(line, ("{{", "}}"), ("{%", "%}")))
        assert spans == [found.span() for found in template.finditer(line)], line
        assert replaced(line, iter(spans), "${mise}") == template.sub("${mise}", line), line
    parent, comment = re.compile(r"<parent>(.*?)</parent>", re.S), re.compile(r"<!--.*?-->", re.S)
    pieces = ["<parent>", "</parent>", "<!--", "-->", "<", ">", "-", "a", "\n", "parent>"]
    for pom in short_texts(pieces):
        assert list(insides(pom, ("<parent>", "</parent>"))) == parent.findall(pom), pom
        assert replaced(pom, delimited(pom, ("<!--", "-->")), "") == comment.sub("", pom), pom


def test_expansions_and_patterns_in_a_word_are_what_the_regexes_find():
    pieces = ["$", "{", "}", "(", ")", "`", "~", "/", "a", "_", " ", ",", "*", "\n", "${", "$("]
    brace_pattern = re.compile(r"[*?[]|\{[^{}\s]*,[^{}\s]*\}")  # as it was written before
    for word in short_texts(pieces):
        found = [match.span() for match in EXPANSION.finditer(word)]
        assert [match.span() for match in expansions(word)] == found, word
        spans = [match.span() for match in PATTERN.finditer(word)]
        assert spans == [match.span() for match in brace_pattern.finditer(word)], word


def test_npx_packages_and_hgrc_items_are_what_the_regexes_find():
    npx = re.compile(
        r"\b(?:npx|pnpx|bunx|(?:npm|pnpm|yarn)\s+exec|(?:bun|npm)\s+x)\s+(?:-\S+\s+)*([@\w][\w@./-]*)"
    )
    pieces = [
        "npx",
        "pnpx",
        "bunx",
        "npm",
        "exec",
        "bun",
        "x",
        " ",
        "\n",
        "-y",
        "-",
        "@a/b",
        "-npx",
    ]
    for hook in short_texts(pieces):
        assert npx_packages(hook) == npx.findall(hook), hook
    mercurials = re.compile(r"([^=\s][^=]*?)\s*=\s*(.*\S|)", re.ASCII)  # Mercurial's own
    for line in short_texts(["a", " ", "\t", "=", "b", "\x0b", "\u00a0", "x y"]):
        ours, theirs = HG_LINE["item"].match(line), mercurials.match(line)
        assert (ours and ours.groups()) == (theirs and theirs.groups()), line


def test_a_dotenv_value_loses_its_comment_as_python_dotenv_took_it_off():
    pieces = ["a", "b", " ", "\t", "#", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028", "\u3000"]
    for value in short_texts(pieces):
        assert without_comment(value) == re.sub(r"\s+#.*", "", value).rstrip(), value


def test_variables_are_put_in_as_os_path_expandvars_puts_them_in(monkeypatch):
    # Its search for each `${`'s `}` read to the end from every one: quadratic.
    variables = {"A": "1", "B": "two", "AB": "x$B", "_": "u", "a1": "v"}
    for name in list(os.environ):
        monkeypatch.delenv(name)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    for value in short_texts(["$", "{", "}", "A", "B", "a", "1", "_", " "]):
        assert expand_variables(value, variables) == os.path.expandvars(value), value


def test_makefile_lines_are_joined_as_make_joins_them():
    # As the join was written before it was made linear: each continuation added to the whole.
    def joined_again_each_line(text: str) -> list[str]:
        lines, current = [], ""
        for line in text.split("\n"):
            line = line.removesuffix("\r")
            line = line.lstrip(" \t") if current else line
            slashes = len(line) - len(line.rstrip("\\"))
            kept = line[: len(line) - slashes] + "\\" * (slashes // 2)
            if slashes % 2:
                current = f"{current}{kept}".rstrip(" \t") + " "
                continue
            lines.append(current + (kept if slashes else line))
            current = ""
        return [*lines, current] if current else lines

    for sample in short_texts(["a", " ", "\t", "\\", "\n", "\r", "b"]):
        assert _make_lines(sample) == joined_again_each_line(sample), sample


def test_dotenv_files_are_read_with_python_dotenv_s_values_and_no_warnings(capfd):
    lines = ["A=1 # one", "export B='two words' # c", 'C="x\\ny"', "D", "bad line", "E=#f"]
    text = "\n".join(lines) + "\n"
    assert dotenv_values(text) == {
        "A": "1",
        "B": "two words",
        "C": "x\ny",
        "D": None,
        "E": "#f",
    }
    assert capfd.readouterr().err == ""  # python-dotenv's own logs "could not parse" here


def test_sigterm_while_a_dotenv_file_is_parsed_ends_planloop(monkeypatch):
    # A `.env` slow to parse held planloop at start, and the SIGTERM that came meanwhile was
    # taken for the parser giving up on the file: the run went on to its end.
    from cli.signals import Terminated, install_fallback_handlers
    from tools import bind_watch

    def parse_as_the_signal_comes(stream):
        os.kill(os.getpid(), signal.SIGTERM)
        yield from parse_stream(stream)

    monkeypatch.setattr(bind_watch, "parse_stream", parse_as_the_signal_comes)
    handlers = {signum: signal.getsignal(signum) for signum in ENDING_SIGNALS + (signal.SIGINT,)}
    try:
        install_fallback_handlers()
        with pytest.raises(Terminated):
            bind_watch.dotenv_bindings("DEBUG=1\n")
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


# ---- hostile files and replies ----------------------------------------------------------------


# Each reads 1 MiB (or just under: files past SMALL_FILE_LIMIT are not read at all) of text
# that one of the old regexes read in quadratic time or worse, and prints "read".
HOSTILE_READINGS = {
    "gradle-settings": """
        from pathlib import Path
        from tools.build_files import build_files
        folder = Path(TMP)
        blanks = " " * (2**18 - 20)
        text = "include" + blanks + "includeBuild" + blanks + "from" + blanks + "apply" + blanks
        (folder / "settings.gradle").write_text(text)
        (folder / "build.gradle").write_text("apply" + " " * (2**20 - 100))
        build_files("gradle", ("build",), folder, folder)
    """,
    "justfile": """
        from pathlib import Path
        from tools.build_files import build_files
        folder = Path(TMP)
        (folder / "justfile").write_text("import" + " " * (2**19 - 20) + "\\nmod" + " " * 2**18)
        build_files("just", ("lint",), folder, folder)
    """,
    "makefile-include": """
        from pathlib import Path
        from tools.build_files import build_files
        folder = Path(TMP)
        (folder / "Makefile").write_text("include " + "\\\\" * 2**18 + "\\ninclude " + "a " * 2**18)
        build_files("make", ("all",), folder, folder)
    """,
    "hgrc": """
        from pathlib import Path
        from tools.tool_scripts import read_hgrc
        text = "[hooks]\\na" + " " * (2**20 - 20)
        try:
            read_hgrc(Path(TMP) / "hgrc", text, {}, [])
        except ValueError:  # Mercurial refuses the line: so does planloop, once it is read
            pass
    """,
    "hgrc-continuations": """
        from pathlib import Path
        from tools.tool_scripts import read_hgrc
        text = "[hooks]\\na = x\\n" + " y\\n" * (2**19 - 10)  # one item of half a million lines
        for _ in range(5):  # (each look reads it; 13 s a time when its lines were added one by one)
            read_hgrc(Path(TMP) / "hgrc", text, {}, [])
    """,
    "hook-npx": """
        from tools.git_programs import npx_packages
        assert npx_packages("npx " + "-npx " * 2**18) == []
    """,
    "code-given-to-python": """
        from tools.inline_code import names_in_code
        for code in ("run" + " " * 2**20, "open(a,'" + " " * 2**20, "qx{" * 2**18,
                     "require" + " " * 2**20, "chdir" + " " * 2**20, "run([" * 2**18):
            names_in_code(code, True)
    """,
    "dotenv": """
        from dotenv_text import dotenv_values
        from tools.bind_watch import dotenv_bindings
        text = "DEBUG=x" + " " * (2**20 - 20) + "y\\n"
        assert dotenv_values(text) == {"DEBUG": "x" + " " * (2**20 - 20) + "y"}
        assert dotenv_bindings(text) == dotenv_values(text)
    """,
    "dotenv-expansions": """
        from tools.bind_watch import holds_the_key
        text = "A=" + "${" * 2**18 + "x" * (2**19 - 100) + "}\\n"  # each `}` far off: costly
        assert holds_the_key(text.encode(), ["sk-ant-never-in-it"])
    """,
    "dotenv-named-often": """
        import json
        from pathlib import Path
        from tools.tool_scripts import tool_script_not_held
        folder = Path(TMP)
        (folder / "big.env").write_text("x\\n" * (2**19 - 10))  # 3-4 s of python-dotenv's parse
        servers = {f"s{i}": {"command": "npx", "envFile": "big.env"} for i in range(40)}
        (folder / ".vscode").mkdir()
        (folder / ".vscode" / "mcp.json").write_text(json.dumps({"servers": servers}))
        assert "cannot tell what it runs" in tool_script_not_held(folder, [folder / ".vscode"])
    """,
    "makefile-continuations": """
        from tools.build_files import _make_lines
        assert len(_make_lines("a\\\\\\n" * 2**19)) == 1  # one logical line of 1 MiB
    """,
    "toml-long-keys": """
        from tools.toml_text import toml_data
        for text in ("a." * 2**19, ("a." * 31 + "\\n") * 2**14, ('"' + "a" * 1000) * 1000):
            try:
                toml_data(text)
            except ValueError:
                pass
    """,
    "shell-words": """
        import json
        from pathlib import Path
        from tools.tool_scripts import tool_script_not_held
        folder = Path(TMP)
        (folder / ".claude").mkdir()
        settings = {"env": {"NODE_OPTIONS": "a" * 600_000}}  # one word: 23 s a MiB in shlex
        (folder / ".claude" / "settings.json").write_text(json.dumps(settings))
        try:
            tool_script_not_held(folder, [folder / ".claude"])
            raise AssertionError("a word too long to split was read")
        except ValueError as error:
            assert "more than 65,536 characters" in str(error)
    """,
    "expand-variables": """
        from tools.environment import expand_variables
        assert expand_variables("${" * 2**18 + "$HOME", {"HOME": "/h"}).endswith("${/h")
    """,
    "lefthook-config": """
        from pathlib import Path
        from tools.build_files import CannotTell, build_files
        folder = Path(TMP)
        blanks = " " * (2**18 - 20)
        text = "extends:" + blanks + "\\nrc" + blanks + "\\n" + "extends:\\n" + "- " * 2**18
        text += "\\nsource_dir: x" + " \\t" * 2**17 + "\\n- x" + "\\t" * 2**18 + "#"
        (folder / "lefthook.yml").write_text(text + "\\n" + "-\\t" + "\\t" * 2**18)
        try:
            build_files("lefthook", ("run", "pre-commit"), folder, folder)
        except CannotTell:  # (past what planloop reads: commands ask)
            pass
    """,
    "git-hook-lines": """
        from pathlib import Path
        from tools.tool_scripts import tool_script_not_held
        folder = Path(TMP)
        (folder / ".git" / "hooks").mkdir(parents=True)
        hook = folder / ".git" / "hooks" / "pre-commit"
        hook.write_text("make lint\\n" * 3000)
        assert "names more than 1,000 lines of commands" in tool_script_not_held(folder, [hook])
        hook.write_text(("npx " + "-x " * 300 + "\\n") * 1000)  # long lines, fewer of them
        assert "cannot read .git/hooks/pre-commit" in tool_script_not_held(folder, [hook])
        hook.write_text(("npx " + "-x " * 300 + "\\n") * 30)  # 27 KiB: read, and at once
        assert tool_script_not_held(folder, [hook]) is None
        hook.write_text(("true;" * 500 + "\\n") * 5)  # 2,500 commands on five lines
        assert "its commands, more than 2,000" in tool_script_not_held(folder, [hook])
        hook.write_text(("true;" * 500 + "\\n") * 3)  # 1,500: read
        assert tool_script_not_held(folder, [hook]) is None
    """,
    "hooks-fanning-out-to-package-scripts": """
        import json, subprocess
        from pathlib import Path
        from tools.paths import host_tool_settings, scan_for_file_tools
        from tools.tool_scripts import tool_script_not_held
        folder = Path(TMP)
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
        hooks = ("pre-commit", "pre-push", "commit-msg", "post-checkout", "post-merge")
        for name in hooks:  # five short hooks, each running the scripts of three packages
            lines = "".join(f"npm --prefix d{n} test\\n" for n in range(3))
            (folder / ".git" / "hooks" / name).write_text(lines)
        for n in range(3):
            (folder / f"d{n}").mkdir()
            scripts = {"test": " && ".join(["$x"] * 2000)}  # each word read as a command's
            (folder / f"d{n}" / "package.json").write_text(json.dumps({"scripts": scripts}))
        settings = host_tool_settings(folder, scan_for_file_tools(folder))
        for _ in range(2):  # (each command looks again)
            assert tool_script_not_held(folder, settings) is None
        scripts = {"test": " && ".join(["x"] * 50_000)}  # 250 KiB: with the rest, past the bound
        (folder / "d0" / "package.json").write_text(json.dumps({"scripts": scripts}))
        assert "KiB of command lines a look reads" in tool_script_not_held(folder, settings)
    """,
    "agent-hooks-of-long-command-lines": """
        import json
        from pathlib import Path
        from tools.tool_scripts import tool_script_not_held
        folder = Path(TMP)
        line = " && ".join(["x" * 8] * 1500)  # 18 KiB, each word read as a command's
        hooks = [{"hooks": [{"type": "command", "command": line}]} for _ in range(16)]
        (folder / ".claude").mkdir()
        (folder / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"Stop": hooks}}))
        reason = tool_script_not_held(folder, [folder / ".claude"])
        assert "command lines past the 256 KiB a look reads" in reason, reason
    """,
    "variables-with-defaults": """
        from pathlib import Path
        from tools.git_programs import program_paths
        for line in ("${a:-" * 2**17, "${" + "a" * 2**20, "${a:-" + "b" * 2**20):
            program_paths(line[:60_000], Path(TMP), [])
    """,
    "makefile-wildcards": """
        from pathlib import Path
        from tools.build_files import _make_included
        _make_included("include " + "$(wildcard " * 2**17)
        _make_included("include $(wildcard " + "a" * 2**20)
    """,
    "argv-lists-in-code": """
        from tools.inline_code import names_in_code
        # (Python's quoted words were each asked whether the code names sys.path: quadratic.)
        for code in ("subprocess.run(" + '["a",' * 2**17, "call(" + "[" * 2**20 + ")",
                     "run(" + '["' + "a" * 2**20 + ")", "os.system(x)\\n" + "['a' " * 2**18):
            names_in_code(code, True)
    """,
    "python-hook": """
        from tools.python_starts import python_starts
        # (A hook is read up to 32 KiB: twice that, in each shape its reader has.)
        for code in ("".join(f"a{n} = a{n - 1}\\n" for n in range(1, 6_000)) + "run(a5999)\\n",
                     "def f(" + ", ".join(f"p{n}" for n in range(2_000)) + "): run(p0)\\n"
                     + "f(1)\\n" * 8_000,
                     "import os\\n" + "os.system('x')\\n" * 6_000, "(" * 60_000,
                     "a = [" + "a + " * 16_000 + "'x']\\nrun(a)\\n",
                     "x.append(y)\\n" * 6_000 + "run(x)\\n", "getattr(o, 'run')\\n" * 6_000,
                     # (each `if` doubles the ways a name may go: bounded, not multiplied out)
                     "".join(f"if x:\\n a{n} = 'p'\\nelse:\\n a{n} = 'q'\\n" for n in range(900))
                     + "import os\\nos.system(" + "+".join(f"a{n}" for n in range(900)) + ")\\n"):
            python_starts(code, "/r/.git/hooks/pre-commit", "/r", {})
    """,
    "local-code": """
        from pathlib import Path
        from tools.build_files import CannotTell, local_code
        config = Path(TMP) / ".prettierrc.json"
        for text in ("./" * 2**19, "../" * 2**18, "./" + "a" * 2**20, "x./" * 2**18, '"' * 2**20):
            config.write_text(text)
            try:
                local_code(config)
            except CannotTell:  # (past what planloop reads: commands ask)
                pass
    """,
    "makefile-variables": """
        from pathlib import Path
        from tools.build_files import CannotTell, _included
        makefile = Path(TMP) / "Makefile"
        for text in ("A := " + "$(" * 2**18, "include " + "$(A" * 2**18, "A" * 2**20 + " = x"):
            makefile.write_text(text)
            try:
                _included(makefile, Path(TMP), [])
            except CannotTell:
                pass
    """,
    "program-name": """
        from tools.git_programs import program_name
        assert program_name("python" + "1" * 2**20 + "x").startswith("python")
    """,
}


# A hook is read up to 32 KiB: twice that, in each shape its reader has, each read on its own.
HOOK_SHAPES = {
    "cd-lines": '"cd a\\n" * 16_000',
    "dirname": '"$(dirname " * 8_000',
    "array": '"X=(" + "a " * 32_000 + ")"',
    "quotes": '"\'" * 64_000',
    "expansions": "'\"${' * 20_000",
    "outputs": '"M=" + "$(" * 30_000',
    "commands": '"a;" * 32_000',
    "values": '"A=1\\n" + "$A " * 20_000',
    "loops": '"for a in b\\n" * 6_000',
    "continuations": '"\\\\\\n" * 20_000',
    # (each line doubles the last value: its time once doubled with each)
    "doubling": '"A0=aaaa\\n" + "".join(f\'A{n}="$A{n - 1}$A{n - 1}"\\n\' for n in range(1, 40))',
    # (each line its value 15 times over: 60,000 characters a line, read once)
    "long-values": '"V=\'" + "x y " * 1000 + "\'\\n" + ("make " + "$V" * 15 + "\\n") * 700',
}
HOSTILE_READINGS |= {
    f"hook-lines-{name}": f"""
        from tools.hook_lines import hook_lines, shell_scripts
        text = {shape}
        list(hook_lines(text, "/r/.git/hooks/pre-commit", "/r", {{}}))
        shell_scripts(text, "/r/.git/hooks/pre-commit", "/r", {{}})
    """
    for name, shape in HOOK_SHAPES.items()
}


@pytest.mark.parametrize("reading", HOSTILE_READINGS.values(), ids=HOSTILE_READINGS.keys())
def test_hostile_text_of_the_size_planloop_reads_is_read_at_once(tmp_path, reading):
    code = f"TMP = {str(tmp_path)!r}\n" + textwrap.dedent(reading) + "print('read')\n"
    assert "read" in finishes(code, tmp_path)


@pytest.mark.parametrize(
    "pom",
    [
        "<parent>" * (MIB // 8),  # no closing tag: the lazy search read on from each one
        "<!--" * (MIB // 4),
        "<module>" + " " * (MIB - 100) + "x",  # a run of blanks two quantifiers could share
        "<parent><relativePath>" + " " * (MIB - 100) + "x</parent>",
    ],
    ids=["parents", "comments", "module-blanks", "relative-path-blanks"],
)
def test_a_hostile_pom_is_read_at_once(tmp_path, pom):
    (tmp_path / "pom.xml").write_text(pom)
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "pom.xml").write_text("<project/>")
    output = finishes(
        f"""
        from pathlib import Path
        from tools.build_files import build_files
        folder = Path({str(tmp_path)!r})
        held, told = build_files("mvn", ("compile",), folder, folder)
        print(sorted(path.name for path in held))
        """,
        tmp_path,
    )
    assert "pom.xml" in output


def test_a_build_script_of_unclosed_comments_is_read_at_once(tmp_path):
    # A hook runs cargo: build.rs is read for the modules compiled into it, comments left out.
    (tmp_path / "Cargo.toml").write_text("[package]\nname = 'x'\n")
    (tmp_path / "build.rs").write_text("mod gen; // x\nfn main() {}\n" + "/*a" * (MIB // 4))
    output = finishes(
        f"""
        from pathlib import Path
        from tools.build_files import build_files
        folder = Path({str(tmp_path)!r})
        held, told = build_files("cargo", ("clippy",), folder, folder)
        print(sorted(path.name for path in [*held, *told]))
        """,
        tmp_path,
    )
    assert "gen.rs" in output
    # Commented out, a module is none; a comment inside a declaration is a blank.
    (tmp_path / "build.rs").write_text("/* mod old; */ // mod older;\nmod /* x */ new;")
    held, told = build_files("cargo", ("clippy",), tmp_path, tmp_path)
    names = {path.name for path in [*held, *told]}
    assert "new.rs" in names and not names & {"old.rs", "older.rs"}


def test_an_ordinary_pom_still_names_its_modules_and_parent(tmp_path):
    # What the linear readings find on a pom as people write them: blanks around a module's
    # name, a commented-out parent, a parent's relative path with blanks.
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "core").mkdir()
    (tmp_path / "app" / "core" / "pom.xml").write_text("<project/>")
    (tmp_path / "app" / "pom.xml").write_text(
        "<project>\n  <!-- <parent><relativePath>../old/pom.xml</relativePath></parent> -->\n"
        "  <parent>\n    <relativePath>\n      ../base/pom.xml\n    </relativePath>\n"
        "  </parent>\n  <modules>\n    <module>\n      core\n    </module>\n"
        "  </modules>\n</project>\n"
    )
    held, told = build_files("mvn", ("compile",), tmp_path / "app", tmp_path)
    assert tmp_path / "app" / "core" / "pom.xml" in held
    assert tmp_path / "base" / "pom.xml" in told  # not made yet: told when a command makes it
    assert tmp_path / "old" / "pom.xml" not in told
    # A module only Maven can tell (a property's) is no module planloop can hold: it asks.
    pom = (tmp_path / "app" / "pom.xml").read_text()
    (tmp_path / "app" / "pom.xml").write_text(
        pom.replace("</modules>", "<module>${x}</module></modules>")
    )
    with pytest.raises(CannotTell, match="a path only Maven can tell"):
        build_files("mvn", ("compile",), tmp_path / "app", tmp_path)


def test_a_hostile_git_hook_is_read_at_once(tmp_path):
    hooks = tmp_path / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (hooks / "pre-commit").write_text("python" * (MIB // 6))  # one word of `python` alone
    (hooks / "pre-push").write_text('#!/bin/sh\n"$INSTALL_PYTHON" -mpre_commit\n')
    (tmp_path / "conv.py").write_text("")
    output = finishes(
        f"""
        from pathlib import Path
        from tools.git_programs import ByName, repository_git_programs
        by_name = ByName()
        repository_git_programs(Path({str(tmp_path / ".git")!r}), [], by_name)
        print(sorted(path.name for path, _ in by_name.when_there))
        """,
        tmp_path,
    )
    # The hook that does run `python -m` is still seen: the working tree's modules are held.
    assert "'conv.py'" in output


def test_hostile_mise_settings_are_read_at_once(tmp_path):
    output = finishes(
        """
        from tools.tool_scripts import mise_runs
        runs = list(mise_runs({"hooks": {"enter": "{{" * 2**19}, "watch_files": [
            {"run": "{%" * 2**18 + " ./tools/{{ env.X }}/run.sh"}]}))
        print([run.line[-30:] for run in runs if run.line])
        """,
        tmp_path,
    )
    assert "./tools/${mise}/run.sh" in output


@pytest.mark.parametrize(
    "reply",  # as code, made in the reading process
    ['" \\n" * 2**19', '"\\n" * 2**20'],
    ids=["blank-lines", "breaks"],
)
def test_a_reply_of_blank_lines_is_printed_at_once(tmp_path, reply):
    output = finishes(
        f"""
        import io
        from rich.console import Console
        from cli.render import TerminalUI
        shown = io.StringIO()
        ui = TerminalUI(Console(file=shown, width=80, color_system=None))
        ui.print_markdown({reply} + "done")
        print(shown.getvalue().split()[-1:])
        """,
        tmp_path,
    )
    assert "done" in output


def test_a_long_block_of_markdown_is_printed_as_written(tmp_path):
    shown = io.StringIO()
    ui = TerminalUI(Console(file=shown, width=80, color_system=None), tmp_path)
    ui.print_markdown("- a short list\n- of two items\n")
    assert "- a short" not in shown.getvalue()  # rendered: bullets, not dashes
    items = "".join(f"- item {n}\n" for n in range(MAX_MARKDOWN_CHARS // 8))
    ui.print_markdown(items)
    assert shown.getvalue().endswith(items)


def test_a_hostile_address_in_a_variable_is_judged_at_once(tmp_path):
    output = finishes(
        """
        from tools.environment import command_environment
        env = command_environment(True, {"PATH": "/usr/bin", "WORDS": "a" * 2**20,
                                         "DB": "postgres://app:hunter2@db/app"})
        print(sorted(env))
        """,
        tmp_path,
    )
    assert "WORDS" in output and "DB" not in output


@needs_bwrap
def test_a_repository_of_hostile_build_files_and_hooks_does_not_hold_planloop_up(
    api, env, workspace, isolated_home
):
    # A repository as the hostile passes shipped it: a VS Code task that runs Maven when the
    # folder is opened, a pom of `<parent>` alone, a git hook of `python` alone, and a `.env`
    # of one long run of blanks. planloop reads them before each command, to know what the
    # person's own tools would run (and the `.env` at start, for its own settings).
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "tasks.json").write_text(
        '{"version": "2.0.0", "tasks": [{"label": "build", "type": "shell", '
        '"command": "mvn compile", "runOptions": {"runOn": "folderOpen"}}]}'
    )
    (workspace / "pom.xml").write_text("<parent>" * (MIB // 8))
    (workspace / ".env").write_text("DEBUG=x" + " " * (MIB - 20) + "y\n")  # read at start
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    # (A hook is read up to 32 KiB, each line as a command line; past it, commands ask.)
    hook = "python" * (HOOK_FILE_LIMIT // 6 - 1)
    (workspace / ".git" / "hooks" / "pre-commit").write_text(hook)
    api.add({"content": [tool_use("bash", {"command": "echo hello from the sandbox"})]})
    api.add({"content": [tool_use("bash", {"command": "echo and again"})]})
    api.add({"content": [text("Both ran.")]})
    command = [sys.executable, str(AGENT), "-p", "run two commands"]
    try:
        done = spawn.run(
            command, cwd=workspace, env=env, capture_output=True, text=True,
            timeout=PATIENCE_SECONDS * 2,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("planloop was still reading the repository's files")
    assert done.returncode == 0, done.stderr
    assert "Both ran." in done.stdout
    results = [
        block for request in api.accepted[1:] for block in request["messages"][-1]["content"]
    ]
    assert "hello from the sandbox" in str(results[0]["content"]), results


def test_a_ctrl_c_while_git_s_configuration_is_read_stops_the_reading(tmp_path, monkeypatch):
    # A repository's config may include a hundred files of 1 MiB, each read as git reads it
    # (half a second a MiB) while the event loop waits: SIGTERM went unanswered for 30 s.
    from tools import event_queues, paths

    configs = []
    for number in range(3):
        (tmp_path / f"c{number}").write_text(f"[include]\n\tpath = c{number + 1}\n")
        configs.append(tmp_path / f"c{number}")
    read = []

    def reading_as_ctrl_c_comes(path):
        read.append(path)
        event_queues.CTRL_C_COUNT[0] += 1  # as cli/signals.py counts one, at once
        return [("include.path", f"c{len(read)}")]

    monkeypatch.setattr(paths, "read_git_config", reading_as_ctrl_c_comes)
    with pytest.raises(ToolError, match="Ctrl-C came: planloop stopped reading git's"):
        paths.paths_named_by([configs[0]], tmp_path)
    assert len(read) == 1
