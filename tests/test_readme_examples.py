"""The README, tried as a reader would: every snippet runs as written, every claim checked.

- every ```python block of README.md runs as pasted, in a fresh namespace, in an empty
  folder whose `.env` points the SDK at the fake API (so `Agent()` reads it from there);
- the session transcript near the top is real `--demo` output;
- pasting a shell block never starts an interactive agent that would read the next line;
- the flags, the layout table and the extension examples match the code;
- README.zh-CN.md carries the same code blocks, in the same order.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import shlex
import tempfile
from pathlib import Path

import pytest
from conftest import API_KEY, results_by_id, run
from rich.console import Console

import tools
from cli.flags import parse_args
from examples import no_push, word_count
from examples.no_push import NoPush
from examples.word_count import WORD_COUNT
from fakeapi import text, tool_use
from settings import confirm_endpoint
from tools import default_tools

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_ZH = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
# What starts planloop as a program (the checkout's agent.py or the installed command).
AGENT_COMMAND = re.compile(r"(?:^|&&\s*|;\s*)(?:python3? \S*agent\.py|planloop)\b([^;&|]*)")
# Flags after which planloop does its job and exits, reading no further input from the terminal.
ONE_SHOT_FLAGS = {"-p", "--print", "--demo", "--view", "--help", "-h"}


def code_blocks(markdown: str, language: str | None = None) -> list[str]:
    blocks = [(lang, body) for lang, body in FENCE.findall(markdown)]
    return [body for lang, body in blocks if language is None or lang == language]


PYTHON_BLOCKS = code_blocks(README, "python")


def block_id(block: str) -> str:
    return next(line for line in block.splitlines() if line.strip())[:40]


# ---- every Python block runs as pasted ---------------------------------------------------


@pytest.fixture
def pasted_into_a_fresh_folder(api, tmp_path, monkeypatch):
    """An empty folder as cwd whose .env points at the fake API; all restored after."""
    saved = dict(os.environ)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "MODEL_ID"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".env").write_text(
        f"ANTHROPIC_API_KEY={API_KEY}\nANTHROPIC_BASE_URL={api.base_url}\n"
    )
    confirm_endpoint(tmp_path, api.base_url)  # the person said yes to it once, in a terminal
    monkeypatch.chdir(tmp_path)
    registered = list(tools.TOOLS)  # a block may register a tool, as the README shows
    yield api
    tools.TOOLS[:] = registered
    os.environ.clear()
    os.environ.update(saved)


def script_for(block: str) -> list[dict]:
    """What the fake model answers while a block runs: a plan where the block shows one."""
    if "TodoListMiddleware" in block:
        plan = [
            {"content": "Rename config.py to settings.py", "status": "completed"},
            {"content": "Fix the imports", "status": "completed"},
        ]
        return [
            {"content": [tool_use("todo_write", {"todos": plan})]},
            {"content": [text("Done.")]},
        ]
    return [{"content": [text("Done.")]}]


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=block_id)
def test_every_python_block_of_the_readme_runs_as_written(block, pasted_into_a_fresh_folder):
    api = pasted_into_a_fresh_folder
    for reply in script_for(block):
        api.add(reply)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(block, "<README.md>", "exec"), {"__name__": "__main__"})
    if "agent.run(" in block:  # it really talked to a model, through the .env it found
        assert api.accepted, "the block never reached the model"
        assert api.remaining == 0, "the block stopped before the model's last reply"
        assert output.getvalue().strip(), "the block printed nothing"
    if "TodoListMiddleware" in block:
        assert "Fix the imports" in output.getvalue()
    if "WORD_COUNT" in block and "Tool(" not in block:
        assert "word_count" in output.getvalue()


def test_the_readme_has_the_python_blocks_the_walkthrough_needs():
    joined = "\n".join(PYTHON_BLOCKS)
    for needed in ("Agent()", "Tool(", "TOOLS.append", "class NoPush", "TodoListMiddleware"):
        assert needed in joined, needed


def test_readme_shows_the_examples_verbatim():
    for example in (word_count, no_push):
        assert inspect.getsource(example).strip() in README, example.__name__


# ---- the transcript is real output -------------------------------------------------------


def test_the_readme_transcript_is_real_demo_output(tmp_path, monkeypatch):
    from demo import run_demo

    saved = dict(os.environ)
    monkeypatch.setenv("PLANLOOP_DEMO_FAST", "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    screen = io.StringIO()
    try:
        assert run_demo(Console(file=screen, width=80, highlight=False)) == 0
    finally:
        os.environ.clear()
        os.environ.update(saved)
    shown = [line.rstrip() for line in screen.getvalue().splitlines()]
    section = README.split("## What a session looks like")[1].split("\n## ")[0]
    transcript = code_blocks(section)[0].splitlines()
    assert len(transcript) >= 10
    position = 0
    for line in transcript:
        if line == "…":
            continue
        assert line in shown[position:], f"not in the demo's output (in this order): {line}"
        position = shown.index(line, position) + 1


# ---- shell blocks ------------------------------------------------------------------------


def agent_starts(line: str) -> list[list[str]]:
    """The argument lists of every planloop start on one shell line."""
    return [shlex.split(args.split("#")[0]) for args in AGENT_COMMAND.findall(line)]


def test_pasting_a_shell_block_never_feeds_a_later_line_to_the_agent():
    blocks = code_blocks(README, "bash")
    assert blocks, "no shell blocks found"
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip()]
        for number, line in enumerate(lines):
            for args in agent_starts(line):
                interactive = not ONE_SHOT_FLAGS & set(args)
                assert not (interactive and number < len(lines) - 1), (
                    f"pasting this block would start the agent and type the rest into it: {line}"
                )
    setup = blocks[0]
    assert "pip install" in setup
    assert all(ONE_SHOT_FLAGS & set(a) for line in setup.splitlines() for a in agent_starts(line))


def test_every_command_in_the_readme_uses_flags_that_exist():
    commands = [line for block in code_blocks(README, "bash") for line in block.splitlines()]
    commands += re.findall(r"`((?:planloop|python agent\.py)[^`]*)`", README)
    checked = 0
    for command in commands:
        for args in agent_starts(command):
            if "--help" in args:
                continue
            parse_args(["TASK" if a == "TASK" else a for a in args])  # raises on a bad flag
            checked += 1
    assert checked >= 3


def test_the_flag_table_lists_every_flag_and_only_real_ones():
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        parse_args(["--help"])
    real = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", help_text.getvalue())) - {"--help"}
    table = README.split("### Flags")[1].split("\n#")[0]
    documented = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", table))
    assert real == documented


# ---- the layout table is the source of truth for where things live ------------------------


def test_the_layout_table_matches_the_tree():
    table = README.split("### Layout")[1].split("\n#")[0]
    rows = re.findall(r"^\| `([^`]+)` \|(.*)\|$", table, re.MULTILINE)
    listed = {path for path, _ in rows}
    for path in listed:
        assert (ROOT / path).exists(), f"the layout table names {path}, which does not exist"
    top_level = {p.name for p in ROOT.glob("*.py")}
    top_level |= {f"{p.parent.name}/" for p in ROOT.glob("*/__init__.py")} | {"bench/"}
    assert top_level <= listed, f"missing from the layout table: {sorted(top_level - listed)}"
    for package, named in (("tools", "`{}.py`"), ("middleware", "`{}.py`"), ("cli", "`{}`")):
        described = dict(rows)[f"{package}/"]
        for module in (ROOT / package).glob("*.py"):
            if module.name != "__init__.py":
                assert named.format(module.stem) in described, f"{package}/{module.name}"


# ---- the Chinese walkthrough ---------------------------------------------------------------


def test_the_chinese_readme_has_the_same_code_blocks_in_the_same_order():
    assert code_blocks(README_ZH) == code_blocks(README)


def test_each_readme_links_to_the_other():
    assert "(README.zh-CN.md)" in README.split("\n## ")[0]
    assert "(README.md)" in README_ZH.split("\n## ")[0]


# ---- the examples do what the README says ----------------------------------------------------


def test_adding_a_tool_is_one_handler_and_one_schema(api, make_agent, workspace):
    (workspace / "essay.txt").write_text("one two three four")
    call = tool_use("word_count", {"path": "essay.txt"})
    escape = tool_use("word_count", {"path": "/etc/passwd"})
    api.add({"content": [call, escape]})
    api.add({"content": [text("Four words.")]})
    run(make_agent(tools=[*default_tools(), WORD_COUNT]).run("count"))
    assert "word_count" in [t["name"] for t in api.accepted[0]["tools"]]
    results = results_by_id(api.accepted[1])
    assert results[call["id"]]["content"] == "4 words"
    assert results[escape["id"]]["is_error"] is True  # the sandbox applies to new tools too


def test_adding_a_behaviour_is_one_middleware(api, make_agent, workspace):
    push = tool_use("bash", {"command": "git push origin main"})
    status = tool_use("bash", {"command": "echo clean > status.txt"})
    api.add({"content": [push, status]})
    api.add({"content": [text("Committed locally.")]})
    run(make_agent(middleware=[NoPush()]).run("ship it"))
    results = results_by_id(api.accepted[1])
    assert results[push["id"]] == {
        "type": "tool_result",
        "tool_use_id": push["id"],
        "content": "Pushing is not allowed here; commit locally instead.",
        "is_error": True,
    }
    assert "is_error" not in results[status["id"]]
    assert (workspace / "status.txt").read_text() == "clean\n"


def test_readme_permission_section_names_every_protected_path_and_sandbox_flag():
    from tools.paths import PROTECTED_PATHS

    section = README.split("### Permissions and the sandbox")[1].split("\n## ")[0]
    for path, _ in PROTECTED_PATHS:
        assert path in section, path
    for flag in ("--no-sandbox", "--allow-network", "--yes"):
        assert flag in README, flag
