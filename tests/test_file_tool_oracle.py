"""A file name that a command turns into a link to `.env` between the checks and the tool.

The permission policy, the stale-write guard and the undo recorder look at a path before the
tool opens it. A background command can make that name a link to `.env` (where the README
keeps the API key) in between. Timing such a race makes a flaky test, so here the swap is made
in the planloop process itself, exactly in that gap: a start-up hook (a `sitecustomize` put on
PYTHONPATH) wraps the tool's handler, or the undo recorder's look-up, and makes the link there.
Everything else is `python agent.py` against the fake API, as it runs for a person.

What the person cares about: edit_file gives the same answer whether old_text guesses the key
right or wrong (no oracle); /undo never writes `.env`'s content into another file; and the
approval box and the diffs shown on the terminal never show the key.
"""

from __future__ import annotations

import contextvars
import os
import re
import textwrap
import time
from pathlib import Path

import pytest
from conftest import API_KEY, terminal_env
from test_hostile_pass4 import owned_file, run_as, tool_results, user_folders
from test_interactive import PROMPT_MARK, Terminal

from fakeapi import text, tool_use
from middleware.undo import read_before
from tools.base import ToolError
from tools.beneath import _require_opened_at
from tools.file_call import file_call
from tools.files import edit_file, read_file

__all__ = ["user_folders"]  # a fixture, used by name below

pytestmark = pytest.mark.real_exec

ROOT = Path(__file__).resolve().parent.parent
ENV_TEXT = f"MODEL_NOTE=kept\nANTHROPIC_API_KEY={API_KEY}\n"

# Made a link to .env in the planloop process, after the middlewares looked at the name and
# before the tool (or the undo recorder's read) opens it. RACE says where:
#   tool   the link is made when the tool starts and removed when it ends, for every call
#   undo   the link is made right after the undo recorder looked the name up, once; the
#          write_file that follows finds the name plain again (the command "lost the race")
HOOK = textwrap.dedent(
    """
    import os

    RACE, NAME = os.environ["RACE"], os.environ["RACE_NAME"]


    def _link(workspace):
        path = os.path.join(str(workspace), NAME)
        if not os.path.lexists(path):
            os.symlink(".env", path)
        return path


    def _unlink(workspace):
        path = os.path.join(str(workspace), NAME)
        if os.path.islink(path):
            os.unlink(path)


    def _wrap(tool, before, after):
        real = tool.handler

        async def handler(workspace, **arguments):
            if arguments.get("path") == NAME:
                before(workspace)
            try:
                return await real(workspace, **arguments)
            finally:
                if arguments.get("path") == NAME:
                    after(workspace)

        object.__setattr__(tool, "handler", handler)  # Tool is a frozen dataclass


    if RACE == "tool":
        from tools.files import EDIT_FILE

        _wrap(EDIT_FILE, _link, _unlink)
    elif RACE == "undo":
        import middleware.undo as undo
        from tools.files import WRITE_FILE

        real_target_of, done = undo.target_of, []

        def target_of(workspace, path):
            found = real_target_of(workspace, path)
            if path == NAME and not done:
                done.append(True)
                _link(workspace)
            return found

        undo.target_of = target_of
        _wrap(WRITE_FILE, _unlink, lambda workspace: None)
    """
)


def wait_for_either(terminal: Terminal, first: str, second: str) -> tuple[str, str]:
    """Wait until one of two texts appears; return the text before it and which it was."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for pattern in (first, second):
            try:
                return terminal.wait_for(pattern, timeout=0.1), pattern
            except AssertionError:
                continue
    raise AssertionError(f"neither {first!r} nor {second!r} appeared:\n{terminal.screen}")


def race_env(env: dict, folder: Path, race: str, name: str) -> dict:
    """`env` with the start-up hook that makes `name` a link to .env at the moment `race`."""
    hook = folder / "race-hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOOK)
    os.chmod(hook, 0o755)
    return {**env, "PYTHONPATH": f"{hook}:{ROOT}", "RACE": race, "RACE_NAME": name}


def test_edit_file_answers_alike_whether_a_guess_at_the_key_is_right_or_wrong(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    owned_file(workspace / ".env", ENV_TEXT, user)
    right, wrong = f"ANTHROPIC_API_KEY={API_KEY[:6]}", "ANTHROPIC_API_KEY=nope"
    for guess in (right, wrong, right):
        edit = {"path": "k", "old_text": guess, "new_text": "ANTHROPIC_API_KEY=mine"}
        api.add({"content": [tool_use("edit_file", edit)]})
    api.add({"content": [text("Tried.")]})
    env = race_env({**env, "PLANLOOP_HOME": str(planloop_home)}, workspace.parent, "tool", "k")
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    answers = tool_results(api)
    assert len(answers) == 3
    # The same refusal for every guess, decided before .env was searched for old_text.
    assert answers[0] == answers[1] == answers[2], answers
    assert "leads to .env, which is protected" in answers[0]
    assert "not found" not in answers[0] and "found" not in answers[0]
    assert API_KEY not in result.stderr + result.stdout
    assert (workspace / ".env").read_text() == ENV_TEXT
    assert not (workspace / "k").exists()


def test_undo_never_writes_the_content_of_env_into_another_file(api, workspace, isolated_home):
    (workspace / ".env").write_text(ENV_TEXT)
    api.add({"content": [tool_use("write_file", {"path": "k", "content": "hello\n"})]})
    api.add({"content": [text("Wrote k.")]})
    env = race_env(terminal_env(api, isolated_home), workspace.parent, "undo", "k")
    with Terminal(workspace, env, "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("write the notes\r")
        terminal.wait_for("Wrote k.")
        terminal.wait_for_prompt()
        assert (workspace / "k").read_text() == "hello\n"  # written plainly: no link any more
        terminal.type("/undo\r")
        question = "Undo these changes? [y/n]:"
        listed, asked = wait_for_either(terminal, question, PROMPT_MARK)
        if asked == question:  # say yes to whatever is offered: it must not be .env's bytes
            terminal.type("y\r")
            terminal.wait_for_prompt()
        # The copy read through the link is .env's, and is kept (if at all) as .env's: it is
        # never offered as the earlier content of k.
        assert ".env  cannot be undone" in listed
        assert not re.search(r"^\s*k\s+restored", listed, re.MULTILINE), listed
        terminal.type("\x04")
        assert terminal.close() == 0
    assert API_KEY not in (workspace / "k").read_text()
    assert (workspace / "k").read_text() == "hello\n"
    assert (workspace / ".env").read_text() == ENV_TEXT
    assert API_KEY not in terminal.screen
    sessions = list(Path(isolated_home, "sessions").rglob("*.jsonl"))
    assert sessions and all(API_KEY not in path.read_text() for path in sessions)


def test_the_approval_box_and_the_diff_after_an_edit_never_show_the_key(
    api, workspace, isolated_home
):
    (workspace / ".env").write_text(ENV_TEXT)
    rewrite = tool_use("write_file", {"path": ".env", "content": "MODEL_NOTE=changed\n"})
    edit = {"path": ".env", "old_text": "MODEL_NOTE=kept", "new_text": "MODEL_NOTE=edited"}
    api.add({"content": [tool_use("read_file", {"path": ".env"})]})  # read before a rewrite
    api.add({"content": [rewrite]})
    api.add({"content": [tool_use("edit_file", edit)]})
    api.add({"content": [text("Settings tidied.")]})
    with Terminal(workspace, terminal_env(api, isolated_home), "--no-sandbox") as terminal:
        terminal.wait_for_prompt()
        terminal.type("tidy the settings\r")
        box = terminal.wait_for("[a]lways for writes to .env: ")
        assert "-ANTHROPIC_API_KEY=[redacted]" in box and "+MODEL_NOTE=changed" in box
        terminal.type("n\r")
        terminal.wait_for("Reason for the model (optional):")
        terminal.type("\r")
        box = terminal.wait_for("[a]lways for writes to .env: ")
        assert "-MODEL_NOTE=kept" in box and " ANTHROPIC_API_KEY=[redacted]" in box
        terminal.type("y\r")  # the diff shown after the edit has the key line as context
        terminal.wait_for("Settings tidied.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert (workspace / ".env").read_text() == ENV_TEXT.replace("kept", "edited")
    assert API_KEY not in terminal.raw


# ---- the same decisions, called directly -------------------------------------------------------


def edit_as_the_policy_left_it(workspace: Path, path: str, old_text: str) -> str:
    """edit_file's answer in a call the permission policy looked at and approved nothing in."""

    def call() -> str:
        file_call("call-1").approved = set()
        try:
            return edit_file(workspace, path, old_text, "replaced")
        except ToolError as err:
            return str(err)

    return contextvars.copy_context().run(call)


def test_a_secret_the_sandbox_hides_gives_edit_file_no_answer_about_its_content(
    workspace, monkeypatch
):
    # planloop run in the home folder: ~/.ssh is inside the workspace, and hidden from commands.
    monkeypatch.setenv("HOME", str(workspace))
    (workspace / ".ssh").mkdir()
    (workspace / ".ssh" / "id_ed25519").write_text("PRIVATE KEY abc\n")
    (workspace / "via").symlink_to(".ssh/id_ed25519")
    for path in (".ssh/id_ed25519", "via"):
        right = edit_as_the_policy_left_it(workspace, path, "PRIVATE KEY a")
        wrong = edit_as_the_policy_left_it(workspace, path, "PRIVATE KEY z")
        assert right == wrong and "found" not in right, (right, wrong)
    assert (workspace / ".ssh" / "id_ed25519").read_text() == "PRIVATE KEY abc\n"
    with pytest.raises(ToolError) as refused:  # not even the names in the folder
        read_file(workspace, ".ssh")
    assert "secrets the sandbox hides" in str(refused.value) and "id_ed25519" not in str(
        refused.value
    )


def test_the_undo_copy_is_named_by_the_file_it_was_read_from(workspace):
    (workspace / ".env").write_text(ENV_TEXT)
    (workspace / "k").symlink_to(".env")
    before = read_before(workspace, "k")
    assert before is not None
    assert before.path == ".env" and before.content is None  # not k, and no copy of the key
    assert "protected" in before.why_not_kept


def test_a_file_whose_folder_moved_after_the_walk_is_not_taken_for_its_old_path(workspace):
    (workspace / "d").mkdir()
    (workspace / "d" / "notes.txt").write_text("notes\n")
    fd = os.open(workspace / "d", os.O_RDONLY | os.O_DIRECTORY)
    try:
        _require_opened_at(fd, workspace.resolve(), "d", "d/notes.txt")  # in place
        (workspace / "d").rename(workspace / "e")
        with pytest.raises(ToolError, match="was moved while it was being opened"):
            _require_opened_at(fd, workspace.resolve(), "d", "d/notes.txt")
    finally:
        os.close(fd)
