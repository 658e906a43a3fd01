"""The README's extension examples, run for real (and checked to be the README's own text)."""

from __future__ import annotations

import inspect
from pathlib import Path

from conftest import results_by_id, run

from examples import no_push, word_count
from examples.no_push import NoPush
from examples.word_count import WORD_COUNT
from fakeapi import text, tool_use
from middleware import TurnLimit
from tools import default_tools

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def test_readme_shows_the_examples_verbatim():
    for example in (word_count, no_push, TurnLimit):
        assert inspect.getsource(example).strip() in README, example.__name__


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
