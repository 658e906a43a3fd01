"""The permission policy, the stale-write guard and edit_file's size limit, through the loop."""

from __future__ import annotations

import asyncio
import os
import tracemalloc
from pathlib import Path

import pytest
from conftest import results_by_id, run

from fakeapi import text, tool_use
from middleware import PermissionPolicy, StaleWriteGuard
from tools import ToolError
from tools.files import MAX_EDIT_BYTES, edit_file

EVIL_CONFIG = "[core]\n\tfsmonitor = touch /tmp/planloop-pwned\n"


class Asker:
    """A person at the approval question: gives the scripted answers, records the questions."""

    def __init__(self, *answers: tuple[str, str]) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []

    def __call__(self, question: str) -> tuple[str, str]:
        self.questions.append(question)
        return self.answers.pop(0)


def never_asked(question: str) -> tuple[str, str]:
    raise AssertionError(f"nobody should have been asked: {question}")


def one_call_then_done(api, call: dict) -> None:
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})


@pytest.fixture
def repo(workspace: Path) -> Path:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("[core]\n\tbare = false\n")
    return workspace


@pytest.mark.parametrize(
    "path, content",
    [
        (".git/config", EVIL_CONFIG),
        (".git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/planloop-pwned\n"),
        (".env", "ANTHROPIC_BASE_URL=http://attacker.example\n"),
        ("sub/.env.local", "ANTHROPIC_BASE_URL=http://attacker.example\n"),
    ],
)
def test_headless_write_to_a_protected_path_is_refused_and_nothing_changes(
    api, make_agent, repo, path, content
):
    call = tool_use("write_file", {"path": path, "content": content})
    one_call_then_done(api, call)
    policy = PermissionPolicy(ask=None, sandboxed=True)
    assert run(make_agent(middleware=[policy]).run("go")) == "Done."
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True
    assert "was not changed" in result["content"] and "--yes" in result["content"]
    target = repo / path
    assert not target.exists() or target.read_text() != content


def test_edit_through_a_symlink_into_git_is_refused_too(api, make_agent, repo):
    (repo / "notes.txt").symlink_to(repo / ".git" / "config")
    call = tool_use("edit_file", {"path": "notes.txt", "old_text": "bare", "new_text": "x"})
    one_call_then_done(api, call)
    run(make_agent(middleware=[PermissionPolicy(ask=None, sandboxed=True)]).run("go"))
    assert results_by_id(api.accepted[1])[call["id"]]["is_error"] is True
    assert "bare = false" in (repo / ".git" / "config").read_text()


def test_interactive_protected_write_asks_and_a_yes_writes(api, make_agent, repo):
    call = tool_use("write_file", {"path": ".env", "content": "DEBUG=1\n"})
    one_call_then_done(api, call)
    asker = Asker(("yes", ""))
    agent = make_agent(middleware=[PermissionPolicy(ask=asker, sandboxed=True)])
    run(agent.run("go"))
    assert (repo / ".env").read_text() == "DEBUG=1\n"
    [question] = asker.questions
    assert question.splitlines()[0] == "Allow write_file on a protected path?"
    assert ".env" in question and "ANTHROPIC_BASE_URL" in question
    assert agent.context.input_seq == 2  # the user input, then the person's answer


def test_a_write_asked_about_because_a_hook_may_run_any_file_says_so(api, make_agent, repo):
    # A hook in a language planloop does not follow: any file may be what it runs.
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/usr/bin/env node\nrequire('child_process').execSync('./tools/fmt')\n")
    hook.chmod(0o755)
    call = tool_use("write_file", {"path": "tools/fmt", "content": "#!/bin/sh\nid\n"})
    one_call_then_done(api, call)
    asker = Asker(("no", ""))
    run(make_agent(middleware=[PermissionPolicy(ask=asker, sandboxed=True)]).run("go"))
    [question] = asker.questions
    assert question.splitlines()[0] == "Allow write_file on a file a host tool may run?"
    assert "a hook in node" in question and not (repo / "tools" / "fmt").exists()


def test_a_declined_protected_write_passes_the_reason_to_the_model(api, make_agent, repo):
    call = tool_use("write_file", {"path": ".git/config", "content": EVIL_CONFIG})
    one_call_then_done(api, call)
    asker = Asker(("no", "leave git alone"))
    run(make_agent(middleware=[PermissionPolicy(ask=asker, sandboxed=True)]).run("go"))
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True
    assert result["content"] == "The user declined this change. The user said: leave git alone"
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()


def test_cancel_at_the_approval_question_ends_the_question_and_the_turn(api, make_agent, repo):
    """agent.cancel() (what Ctrl-C and SIGTERM call) stops a question that is still waiting."""
    call = tool_use("bash", {"command": "touch never"})
    later = tool_use("bash", {"command": "touch never-either"})
    api.add({"content": [call, later]})
    api.add({"content": [text("Understood.")]})
    agent = None
    question_ended = []

    async def ask_and_wait(question: str) -> tuple[str, str]:
        agent.cancel()  # as the signal handler would, while the person has not answered yet
        try:
            await asyncio.Event().wait()  # nobody ever answers
        finally:
            question_ended.append(question)
        return "yes", ""

    agent = make_agent(middleware=[PermissionPolicy(ask=ask_and_wait, sandboxed=False)])
    run(agent.run("make a file"))
    assert question_ended == ["Run this command?\ntouch never"]  # cancelled, then asked no more
    assert agent.context.stop_reason == "Interrupted by the user."
    assert agent.context.input_seq == 1  # nobody answered: no input boundary
    assert not (repo / "never").exists() and not (repo / "never-either").exists()
    results = [b for b in agent.messages[-1]["content"] if b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [call["id"], later["id"]]
    assert all(r["is_error"] and "Interrupted by the user" in r["content"] for r in results)
    api.add({"content": [text("Understood.")]})
    assert run(agent.run("never mind")) == "Understood."  # the next request is valid


def test_always_stops_asking_and_later_approvals_are_not_input_boundaries(api, make_agent, repo):
    # "Always" covers the file it was given for (tests/test_tool_declarations.py: only that one).
    calls = [tool_use("write_file", {"path": ".env", "content": f"A={n}\n"}) for n in range(3)]
    api.add({"content": calls})
    api.add({"content": [text("Done.")]})
    asker = Asker(("always", ""))
    agent = make_agent(middleware=[PermissionPolicy(ask=asker, sandboxed=True)])
    run(agent.run("go"))
    assert len(asker.questions) == 1
    assert (repo / ".env").read_text() == "A=2\n"
    assert agent.context.input_seq == 2


def test_yes_flag_allows_protected_writes_without_asking(api, make_agent, repo):
    call = tool_use("write_file", {"path": ".git/hooks/post-merge", "content": "echo hi\n"})
    one_call_then_done(api, call)
    policy = PermissionPolicy(ask=never_asked, sandboxed=False, allow_all=True)
    agent = make_agent(middleware=[policy])
    run(agent.run("go"))
    assert (repo / ".git" / "hooks" / "post-merge").exists()
    assert agent.context.input_seq == 1


def test_sandboxed_bash_runs_without_a_question(api, make_agent, workspace):
    one_call_then_done(api, tool_use("bash", {"command": "touch ran"}))
    run(make_agent(middleware=[PermissionPolicy(ask=never_asked, sandboxed=True)]).run("go"))
    assert (workspace / "ran").exists()


def test_unsandboxed_bash_asks_with_the_exact_command(api, make_agent, workspace):
    one_call_then_done(api, tool_use("bash", {"command": "touch ran"}))
    asker = Asker(("yes", ""))
    run(make_agent(middleware=[PermissionPolicy(ask=asker, sandboxed=False)]).run("go"))
    assert asker.questions == ["Run this command?\ntouch ran"]
    assert (workspace / "ran").exists()


def test_unsandboxed_bash_headless_is_refused_with_how_to_allow_it(api, make_agent, workspace):
    call = tool_use("bash", {"command": "touch ran"})
    one_call_then_done(api, call)
    run(make_agent(middleware=[PermissionPolicy(ask=None, sandboxed=False)]).run("go"))
    assert "--yes" in results_by_id(api.accepted[1])[call["id"]]["content"]
    assert not (workspace / "ran").exists()


def test_the_policy_describes_itself_as_a_table():
    interactive = {
        r.what: r.verdict for r in PermissionPolicy(ask=never_asked, sandboxed=True).rules()
    }
    assert interactive["bash"] == "runs freely"
    assert interactive["write_file, edit_file on .git/, .env*, .vscode/, planloop's home"] == "asks"
    headless = {r.what: r.verdict for r in PermissionPolicy(ask=None, sandboxed=False).rules()}
    assert headless["bash"] == "refused"
    assert headless["any path outside the workspace"] == "refused"


# ---- stale writes ---------------------------------------------------------------------------


def guarded_run(api, make_agent, calls: list[dict]) -> dict[str, dict]:
    """Run the calls one reply each through a StaleWriteGuard; return the results by id."""
    for call in calls:
        api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    run(make_agent(middleware=[StaleWriteGuard()]).run("go"))
    results = {}
    for request in api.accepted[1:]:
        results.update(results_by_id(request))
    return results


def test_edit_after_a_command_changed_the_file_is_refused(api, make_agent, workspace):
    (workspace / "app.py").write_text("x = 1\n")
    read = tool_use("read_file", {"path": "app.py"})
    change = tool_use("bash", {"command": "echo 'y = 2' >> app.py"})
    edit = tool_use("edit_file", {"path": "app.py", "old_text": "x = 1", "new_text": "x = 3"})
    results = guarded_run(api, make_agent, [read, change, edit])
    assert results[edit["id"]]["is_error"] is True
    assert "changed on disk" in results[edit["id"]]["content"]
    assert "read_file" in results[edit["id"]]["content"]
    assert (workspace / "app.py").read_text() == "x = 1\ny = 2\n"


def test_overwriting_a_file_never_read_is_refused(api, make_agent, workspace):
    (workspace / "notes.txt").write_text("keep me\n")
    write = tool_use("write_file", {"path": "notes.txt", "content": "gone\n"})
    results = guarded_run(api, make_agent, [write])
    assert "has not been read" in results[write["id"]]["content"]
    assert (workspace / "notes.txt").read_text() == "keep me\n"


def test_read_then_edit_then_edit_again_works(api, make_agent, workspace):
    (workspace / "app.py").write_text("a = 1\n")
    calls = [
        tool_use("read_file", {"path": "app.py"}),
        tool_use("edit_file", {"path": "app.py", "old_text": "a = 1", "new_text": "a = 2"}),
        tool_use("edit_file", {"path": "app.py", "old_text": "a = 2", "new_text": "a = 3"}),
        tool_use("write_file", {"path": "new.py", "content": "b = 1\n"}),
        tool_use("write_file", {"path": "new.py", "content": "b = 2\n"}),
    ]
    results = guarded_run(api, make_agent, calls)
    assert not any(result.get("is_error") for result in results.values())
    assert (workspace / "app.py").read_text() == "a = 3\n"
    assert (workspace / "new.py").read_text() == "b = 2\n"


# ---- edit_file's size limit -----------------------------------------------------------------


def test_edit_file_refuses_a_huge_file_without_reading_it(tmp_path: Path):
    big = tmp_path / "big.log"
    with open(big, "wb") as file:  # sparse: the size without the disk space
        file.truncate(MAX_EDIT_BYTES + 1)
    tracemalloc.start()
    try:
        with pytest.raises(ToolError) as refused:
            edit_file(tmp_path, "big.log", "a", "b")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "bash" in str(refused.value) and "sed" in str(refused.value)
    assert peak < 1024 * 1024
    assert os.path.getsize(big) == MAX_EDIT_BYTES + 1


# ---- a reply cut off by a full context window -----------------------------------------------


def test_call_cut_off_by_a_full_context_window_is_not_run(api, make_agent, workspace):
    cut = tool_use("write_file", partial_json='{"path": "big.txt", "content": "aaaa')
    api.add({"content": [text("Writing."), cut], "stop_reason": "model_context_window_exceeded"})
    api.add({"content": [text("I will write it in parts.")]})
    run(make_agent().run("write big"))
    assert not (workspace / "big.txt").exists()
    result = results_by_id(api.accepted[1])[cut["id"]]
    assert result["is_error"] is True and "was not run" in result["content"]


def test_text_cut_off_by_a_full_context_window_is_reported_as_truncated(api, make_agent):
    api.add(
        {
            "content": [text("The answer is long and")],
            "stop_reason": "model_context_window_exceeded",
        }
    )
    agent = make_agent()
    run(agent.run("explain"))
    assert any("cut off" in notice and "context window" in notice for notice in agent.ui.notices)


def test_a_check_a_racing_command_breaks_blocks_the_call_and_the_session_goes_on(
    api, make_agent, repo, monkeypatch
):
    # A background task swapping d/t.txt for a link and back can make resolving it fail midway
    # (python's realpath saw a link whose target was gone by the time it read it). The check
    # cannot finish: the call is refused, nothing is written, and the model is told.
    (repo / "d").mkdir()
    real_realpath = os.path.realpath

    def racing_realpath(path, *args, **kwargs):
        if os.fspath(path).endswith(os.path.join("d", "t.txt")):
            raise FileNotFoundError(2, "No such file or directory", os.fspath(path))
        return real_realpath(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", racing_realpath)
    call = tool_use("write_file", {"path": "d/t.txt", "content": "new\n"})
    one_call_then_done(api, call)
    policy = PermissionPolicy(ask=None, sandboxed=True)
    assert run(make_agent(middleware=[policy]).run("go")) == "Done."
    result = results_by_id(api.accepted[1])[call["id"]]
    assert result["is_error"] is True
    assert "was not run: planloop could not check it" in result["content"]
    assert not (repo / "d" / "t.txt").exists()
