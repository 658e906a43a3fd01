"""The prompt in a real pseudo-terminal: Tab completion, the nearest command, messages that
start with a path, Ctrl-C on typed text, /model, /clear's hint and the resume banner."""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import pytest
from conftest import run_cli, terminal_env
from test_interactive import Terminal

from fakeapi import text, tool_use
from session import read_session

pytestmark = pytest.mark.real_exec


@pytest.fixture
def term_env(api, isolated_home) -> dict:
    return terminal_env(api, isolated_home, columns=200)  # wide: a hint is one line


def sent_texts(request: dict) -> str:
    """Everything the last user message of a request says, as one string."""
    return json.dumps(request["messages"][-1]["content"], ensure_ascii=False)


def test_tab_completes_slash_commands(api, workspace, term_env):
    with Terminal(workspace, term_env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("/tod\t")
        terminal.wait_for("/todos")
        terminal.type("\r")
        terminal.wait_for("(no plan yet)")
        terminal.wait_for_prompt()
        terminal.type("/mod\t")
        terminal.wait_for("/model")  # completion is applied after the key, not at once
        terminal.type("\r")
        terminal.wait_for("test-model · thinking off")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert api.accepted == []  # commands never reach the model


def test_tab_completes_workspace_paths_after_an_at(api, workspace, term_env, tmp_path):
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print('hi')\n")
    (workspace / ".git").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("no")
    (workspace / "away").symlink_to(outside)
    api.add({"content": [text("Read it.")]})
    with Terminal(workspace, term_env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("look at @sr\t")
        terminal.wait_for("@src/")
        terminal.type("ma\t")
        terminal.wait_for("main.py")
        terminal.type("\r")
        terminal.wait_for("Read it.")
        terminal.wait_for_prompt()
        terminal.type("and @away/\t\t\r")  # a link out of the workspace completes nothing
        terminal.wait_for("@away/ is outside the workspace")  # and attaches nothing
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert "secret.txt" not in terminal.screen
    [request] = api.accepted
    said = sent_texts(request)
    assert "look at @src/main.py" in said and "print('hi')" in said and "secret" not in said


def test_an_unknown_command_suggests_the_nearest_and_sends_nothing(api, workspace, term_env):
    with Terminal(workspace, term_env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("/todo\r")
        terminal.wait_for("Unknown command /todo. Did you mean /todos?")
        terminal.wait_for_prompt()
        terminal.type("/help\r")
        terminal.wait_for("//etc/hosts is odd sends /etc/hosts is odd")  # /help says how
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert api.accepted == []


def test_a_double_slash_or_a_leading_space_sends_a_path_as_a_message(api, workspace, term_env):
    api.add({"content": [text("Hosts noted.")]})
    api.add({"content": [text("Tmp noted.")]})
    with Terminal(workspace, term_env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("//etc/hosts is odd\r")
        terminal.wait_for("Hosts noted.")
        terminal.wait_for_prompt()
        terminal.type(" /tmp is full\r")
        terminal.wait_for("Tmp noted.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    first, second = api.accepted
    assert first["messages"][-1]["content"][0]["text"] == "/etc/hosts is odd"
    assert second["messages"][-1]["content"][0]["text"] == "/tmp is full"


def test_the_ctrl_c_key_on_typed_text_drops_it_without_arming_the_exit(api, workspace, term_env):
    api.add({"content": [text("Only this.")]})
    with Terminal(workspace, term_env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("a draft I regret\x03")  # the key itself, as a person presses it
        terminal.wait_for_prompt()
        terminal.type("again\x03")
        terminal.wait_for_prompt()
        terminal.type("\x03")  # the first Ctrl-C on an empty line arms the exit...
        shown = terminal.wait_for("Ctrl-C again to leave")
        assert "Ctrl-C again" not in shown  # ...the two on typed text did not
        terminal.wait_for_prompt()
        terminal.type("the real question\r")
        terminal.wait_for("Only this.")
        terminal.wait_for_prompt()
        terminal.type("\x03")
        terminal.wait_for("Ctrl-C again to leave")
        terminal.wait_for_prompt()
        terminal.type("\x03")
        terminal.wait_for("Resume with:")
        assert terminal.close() == 0
    [request] = api.accepted
    [message] = request["messages"]
    assert [block["text"] for block in message["content"]] == ["the real question"]


def test_model_switches_the_next_input_and_resume_continues_with_it(api, workspace, term_env):
    api.add({"content": [text("Sonnet here.")]})
    api.add({"content": [text("Haiku here.")]})
    api.add({"content": [text("Still haiku.")]})
    with Terminal(workspace, term_env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("/model claude-sonnet-4-6\r")
        terminal.wait_for("The next input goes to claude-sonnet-4-6 · thinking adaptive")
        terminal.wait_for_prompt()
        terminal.type("one\r")
        terminal.wait_for("Sonnet here.")
        terminal.wait_for_prompt()
        terminal.type("/model claude-haiku-4-5\r")
        terminal.wait_for("claude-haiku-4-5 · thinking off")
        terminal.wait_for("Thinking adaptive does not fit claude-haiku-4-5")
        terminal.wait_for_prompt()
        terminal.type("two\r")
        terminal.wait_for("Haiku here.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    with Terminal(workspace, term_env, "--no-sandbox", "--resume") as terminal:
        terminal.wait_for("planloop · claude-haiku-4-5")
        terminal.wait_for_prompt()
        terminal.type("three\r")
        terminal.wait_for("Still haiku.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    sonnet, haiku, resumed = api.accepted
    assert sonnet["model"] == "claude-sonnet-4-6" and sonnet["thinking"] == {"type": "adaptive"}
    assert haiku["model"] == "claude-haiku-4-5" and "thinking" not in haiku  # valid for haiku
    assert resumed["model"] == "claude-haiku-4-5" and len(resumed["messages"]) == 5


def test_clear_names_a_resume_command_that_works_when_pasted(
    api, env, workspace, term_env, isolated_home
):
    api.add({"content": [text("Noted.")]})
    api.add({"content": [text("Fresh.")]})
    with Terminal(workspace, term_env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("/model claude-haiku-4-5\r")
        terminal.wait_for("The next input goes to claude-haiku-4-5")
        terminal.wait_for_prompt()
        terminal.type("remember the parser\r")
        terminal.wait_for("Noted.")
        terminal.wait_for_prompt()
        terminal.type("/clear\r")
        terminal.wait_for("stays on disk (")
        hint = terminal.wait_for(").")
        terminal.wait_for_prompt()
        terminal.type("a new start\r")
        terminal.wait_for("Fresh.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    command, old_id = re.fullmatch(r"(.+) --resume (\S+)", hint.strip()).groups()
    assert "agent.py" in command
    new_session = next(p for p in isolated_home.rglob("*.jsonl") if old_id not in p.name)
    assert read_session(new_session)[1]["model"] == "claude-haiku-4-5"  # /clear kept the choice
    api.add({"content": [text("Back to the parser.")]})
    pasted = subprocess.run(
        ["bash", "-c", f"{command} --resume {shlex.quote(old_id)} -p 'go on'"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout == "Back to the parser.\n"
    resumed = api.accepted[-1]
    assert resumed["messages"][0]["content"][0]["text"] == "remember the parser"
    assert resumed["model"] == "claude-haiku-4-5"  # the session's /model choice goes on


def test_resume_shows_the_last_input_the_last_answer_and_the_plan(api, env, workspace, term_env):
    plan = {
        "todos": [
            {"content": "Find the bug", "status": "completed"},
            {"content": "Fix the parser", "status": "in_progress"},
        ]
    }
    api.add({"content": [tool_use("todo_write", plan)]})
    api.add({"content": [text("Found it.")]})
    api.add({"content": [text("Still fixing.")]})  # the guard's one correction: items are open
    done = run_cli("-p", "fix the parser bug", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    with Terminal(workspace, term_env, "--no-sandbox", "--resume") as terminal:
        banner = terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert "you> fix the parser bug" in banner
    assert "last answer: Still fixing." in banner  # the newest answer, not an older one
    assert "[x] Find the bug" in banner and "[>] Fix the parser" in banner


def test_resume_banner_cuts_a_long_answer_and_shows_escapes_as_symbols(
    api, env, workspace, term_env
):
    answer = "First \x1b[2J line.\nLine two.\nLine three.\nLine four is not shown."
    api.add({"content": [text(answer)]})
    done = run_cli("-p", "explain", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    with Terminal(workspace, term_env, "--no-sandbox", "--resume") as terminal:
        banner = terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert "last answer: First ␛[2J line." in banner
    assert "Line three. …" in banner and "Line four" not in banner
    assert "\x1b[2J" not in terminal.raw


def test_resume_banner_shows_what_was_typed_not_the_files_it_attached(
    api, env, workspace, term_env
):
    (workspace / "greet.py").write_text("def greet(name):\n    return name\n")
    api.add({"content": [text("It returns the name.")]})
    done = run_cli("-p", "what does @greet.py do?", cwd=workspace, env=env)
    assert done.returncode == 0, done.stderr
    assert "def greet" in api.accepted[-1]["messages"][0]["content"][0]["text"]  # attached
    with Terminal(workspace, term_env, "--no-sandbox", "--resume") as terminal:
        banner = terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert "you> what does @greet.py do?" in banner
    assert "attached-file" not in banner and "def greet" not in banner


def test_path_candidates_stay_in_the_workspace(workspace, tmp_path):
    from cli.completion import PATH_CANDIDATES_MAX, path_candidates

    (workspace / ".git").mkdir()
    (workspace / ".env").write_text("")
    (workspace / "bad\x1b[2Jname").write_text("")
    (workspace / "many").mkdir()
    for number in range(PATH_CANDIDATES_MAX + 10):
        (workspace / "many" / f"f{number:03}").write_text("")
    (workspace / "out").symlink_to(tmp_path)
    assert path_candidates(workspace, "") == ["many/", "out"]  # no .git, dot files, odd names
    assert path_candidates(workspace, ".") == [".env"]  # asked for, but never .git
    assert path_candidates(workspace, "out/") == []
    assert path_candidates(workspace, "../") == [] and path_candidates(workspace, "/etc/") == []
    assert len(path_candidates(workspace, "many/")) == PATH_CANDIDATES_MAX


def test_nearest_command():
    from cli.completion import nearest_command
    from cli.prompt import SLASH_COMMANDS

    assert nearest_command("/todo", SLASH_COMMANDS) == "/todos"
    assert nearest_command("/sesions", SLASH_COMMANDS) == "/sessions"
    assert nearest_command("/zzzzzz", SLASH_COMMANDS) is None


def test_thinking_stays_valid_for_the_model_switched_to():
    from cli.model_command import thinking_for

    assert thinking_for("claude-haiku-4-5", "adaptive", was_default=True) == "off"
    assert thinking_for("claude-haiku-4-5", "adaptive", was_default=False) == "off"
    assert thinking_for("claude-haiku-4-5", 4096, was_default=False) == 4096
    assert thinking_for("claude-sonnet-4-6", "off", was_default=True) == "adaptive"
    assert thinking_for("claude-sonnet-4-6", "off", was_default=False) == "off"
    assert thinking_for("some-other-model", 4096, was_default=False) == "off"
