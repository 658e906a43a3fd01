"""The permission table (/permissions) tells the truth in every mode, row by row, and Ctrl-D
at an approval question refuses the command and ends the turn.

Found unchecked by mutation testing (bench/mutation.sh): with --yes, or without the sandbox,
single rows of the table, or the answer to Ctrl-D, could change without any test noticing.
"""

import pytest
from conftest import run

from fakeapi import text, tool_use
from middleware.permissions import PermissionPolicy

PROTECTED_ROW = "write_file, edit_file on .git/, .env*, .vscode/, planloop's home"
FILE_TOOLS_ROW = "read_file, write_file, edit_file"
OUTSIDE_ROW = "any path outside the workspace"


def never_asked(question: str) -> str:
    raise AssertionError(f"nobody should be asked: {question}")


def table(**options) -> dict[str, str]:
    return {rule.what: rule.verdict for rule in PermissionPolicy(**options).rules()}


@pytest.mark.parametrize(
    ("options", "asks"),
    [
        ({"ask": never_asked}, "asks"),
        ({"ask": None}, "refused"),
        ({"ask": None, "allow_all": True}, "runs freely"),
    ],
)
def test_the_whole_table_with_the_sandbox(options, asks):
    assert table(sandboxed=True, **options) == {
        "bash": "runs freely",
        "bash with outside_sandbox": asks,
        FILE_TOOLS_ROW: "runs freely",
        PROTECTED_ROW: asks,
        OUTSIDE_ROW: "refused",
    }


@pytest.mark.parametrize(
    ("options", "asks"),
    [
        ({"ask": never_asked}, "asks"),
        ({"ask": None}, "refused"),
        ({"ask": None, "allow_all": True}, "runs freely"),
    ],
)
def test_the_whole_table_without_the_sandbox(options, asks):
    assert table(sandboxed=False, **options) == {
        "bash": asks,
        FILE_TOOLS_ROW: "runs freely",
        PROTECTED_ROW: asks,
        OUTSIDE_ROW: "refused",
    }


def test_every_row_says_why():
    for sandboxed in (True, False):
        for rule in PermissionPolicy(ask=None, sandboxed=sandboxed).rules():
            assert rule.why, rule
    protected = next(
        r for r in PermissionPolicy(ask=None, sandboxed=True).rules() if r.what == PROTECTED_ROW
    )
    from tools.paths import PROTECTED_PATHS

    # one reason for each protected kind
    assert protected.why.count("; ") == len(PROTECTED_PATHS) - 1 == 3


def test_ctrl_d_at_the_question_refuses_the_command_and_ends_the_turn(api, make_agent, workspace):
    first = tool_use("bash", {"command": "touch never"})
    second = tool_use("bash", {"command": "touch never-either"})
    api.add({"content": [first, second]})
    api.add({"content": [text("Understood.")]})
    questions = []

    def ctrl_d(question: str) -> tuple[str, str]:
        questions.append(question)
        return "interrupt", ""

    agent = make_agent(middleware=[PermissionPolicy(ask=ctrl_d, sandboxed=False)])
    run(agent.run("make two files"))
    assert questions == ["Run this command?\ntouch never"]  # asked once, then the turn ended
    assert agent.context.stop_reason == "Interrupted by the user."
    assert not (workspace / "never").exists() and not (workspace / "never-either").exists()
    results = [b for b in agent.messages[-1]["content"] if b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [first["id"], second["id"]]
    assert all(r["is_error"] and "Interrupted by the user" in r["content"] for r in results)


def test_always_for_a_file_under_git_still_asks_the_next_time(api, make_agent, workspace):
    (workspace / ".git" / "hooks").mkdir(parents=True)
    calls = [
        tool_use("write_file", {"path": ".git/hooks/pre-commit", "content": f"echo {n}\n"})
        for n in range(2)
    ]
    api.add({"content": calls})
    api.add({"content": [text("Done.")]})
    answers = iter([("always", ""), ("no", "")])
    questions = []

    def person(question: str) -> tuple[str, str]:
        questions.append(question)
        return next(answers)

    run(make_agent(middleware=[PermissionPolicy(ask=person, sandboxed=True)]).run("go"))
    assert len(questions) == 2  # "always" never covers a file git runs
    assert (workspace / ".git" / "hooks" / "pre-commit").read_text() == "echo 0\n"
