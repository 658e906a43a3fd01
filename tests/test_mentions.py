"""`@path` in a prompt attaches read_file's window of that file; a bad mention sends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import results_by_id, run_cli, terminal_env
from test_interactive import Terminal

from cli.mentions import find_mentions, mention_candidates
from fakeapi import text, tool_use
from session import sessions_dir
from tools.files import read_file

APP = "import os\nprint(os.getcwd())\n"


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text(APP)
    return workspace


def sent_text(request: dict) -> str:
    return "\n".join(b["text"] for b in request["messages"][-1]["content"] if b["type"] == "text")


def test_a_mention_attaches_the_window_read_file_shows(api, env, project):
    api.add({"content": [text("It prints the folder.")]})
    result = run_cli("-p", "what does @src/app.py print?", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    sent = sent_text(api.accepted[0])
    window = read_file(project, "src/app.py")  # the same numbered lines as the tool
    assert sent == (
        f'what does @src/app.py print?\n\n<attached-file path="src/app.py">\n{window}\n'
        "</attached-file>"
    )
    assert "     1\timport os" in sent
    assert "attached src/app.py (2 lines)" in result.stderr


def test_a_long_file_is_attached_as_read_files_first_window(api, env, project):
    (project / "big.log").write_text("".join(f"line {n}\n" for n in range(1, 3001)))
    api.add({"content": [text("Long.")]})
    result = run_cli("-p", "summarise @big.log", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    sent = sent_text(api.accepted[0])
    assert "  2000\tline 2000" in sent and "line 2001" not in sent
    assert "call read_file with offset=2001 to read more]" in sent
    assert "attached big.log (lines 1-2000; more follow)" in result.stderr


@pytest.mark.parametrize(
    ("mention", "said"),
    [
        ("@missing.py", "@missing.py: file not found: missing.py; nothing was sent."),
        ("@.env", "@.env cannot be attached: .env files are protected"),
        ("@secret-link", "@secret-link is outside the workspace"),
        ("@../outside.txt", "@../outside.txt is outside the workspace"),
        ("@src", "@src: src is a directory, not a file; nothing was sent."),
    ],
)
def test_a_mention_that_cannot_be_attached_sends_nothing(
    api, env, project, tmp_path, isolated_home, mention, said
):
    (project / ".env").write_text("OTHER_TOKEN=tok-123\n")
    (tmp_path / "outside.txt").write_text("not yours\n")
    (project / "secret-link").symlink_to(tmp_path / "outside.txt")
    result = run_cli("-p", f"look at {mention}", cwd=project, env=env)
    assert result.returncode == 2
    assert said in result.stderr and "Traceback" not in result.stderr
    assert api.requests == []  # nothing reached the API
    assert not sessions_dir(project).exists() or not any(sessions_dir(project).iterdir())


def test_a_link_to_a_protected_file_is_refused_by_where_it_leads(api, env, project):
    (project / ".env").write_text("OTHER_TOKEN=tok-123\n")
    (project / "notes.txt").symlink_to(".env")
    result = run_cli("-p", "read @notes.txt", cwd=project, env=env)
    assert result.returncode == 2
    assert "@notes.txt cannot be attached: .env files are protected" in result.stderr
    assert api.requests == []


def test_emails_words_and_code_are_not_mentions(api, env, project):
    prompt = "mail ada@example.com about @dataclass and `@src/app.py`, x@y.z"
    api.add({"content": [text("Sure.")]})
    result = run_cli("-p", prompt, cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    assert sent_text(api.accepted[0]) == prompt
    assert "attached" not in result.stderr


def test_mentions_are_found_where_a_person_writes_them():
    assert find_mentions("fix @a.py, then @b/c.py.") == ["a.py", "b/c.py"]
    assert find_mentions('(see @"my notes.md") and [@x.txt]') == ["my notes.md", "x.txt"]
    assert find_mentions("@a.py and @a.py again") == ["a.py"]
    assert find_mentions("ada@example.com `@in/code.py` ```\n@block.py\n```") == []


def test_the_model_may_edit_an_attached_file_without_reading_it_again(api, env, project):
    edit = tool_use(
        "edit_file",
        {"path": "src/app.py", "old_text": "os.getcwd()", "new_text": "os.getpid()"},
    )
    api.add({"content": [edit]})
    api.add({"content": [text("Changed.")]})
    result = run_cli("-p", "change @src/app.py to print the pid", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    assert results_by_id(api.accepted[1])[edit["id"]].get("is_error") is not True
    assert (project / "src" / "app.py").read_text() == "import os\nprint(os.getpid())\n"


def test_candidates_for_tab_stay_in_the_workspace_and_leave_secrets_out(project, tmp_path):
    (project / ".env").write_text("X=1\n")
    (project / ".git").mkdir()
    (project / ".github").mkdir()
    (project / "setup.py").write_text("")
    assert mention_candidates(project, "") == ["setup.py", "src/"]
    assert mention_candidates(project, "s") == ["setup.py", "src/"]
    assert mention_candidates(project, "src/") == ["src/app.py"]
    assert mention_candidates(project, ".") == [".github/"]
    assert mention_candidates(project, "../") == []


@pytest.mark.real_exec
def test_in_the_terminal_a_bad_mention_is_said_and_the_next_prompt_goes(
    api, project, isolated_home
):
    api.add({"content": [text("It prints the folder.")]})
    with Terminal(project, terminal_env(api, isolated_home), "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("explain @src/ap.py\r")
        terminal.wait_for("@src/ap.py: file not found: src/ap.py; nothing was sent.")
        terminal.wait_for_prompt()
        assert api.requests == []
        terminal.type("explain @src/app.py\r")
        terminal.wait_for("attached src/app.py (2 lines)")
        terminal.wait_for("It prints the folder.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert '<attached-file path="src/app.py">\n     1\timport os' in sent_text(api.accepted[0])
