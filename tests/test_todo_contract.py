"""The todo list's contract, checked where a user would notice it: through the tool, the loop,
a real compaction, a failed save and a real resume.

Status case, the schema's shape, the correction flag, the round counting of the reminder, the
guard's skips, and the task wait's binding across what can break it.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import spawn
from conftest import AGENT, last_user_blocks, results_by_id, run, run_cli
from test_context import ScriptedModel, read_steps, write_files
from test_todo_task_wait import WAIT, Host, is_correction, valid

from cli.app import Autosave
from cli.tasks import awaited_task_ids
from fakeapi import text, tool_use
from middleware import Middleware
from middleware.context import ContextManager
from middleware.permissions import PermissionPolicy
from session import Session, SessionError
from todo import TodoListMiddleware
from todo.manager import STATUSES, TodoManager
from todo.middleware import todo_schema


def todos(*pairs: tuple[str, str]) -> dict:
    return {"todos": [{"content": c, "status": s} for c, s in pairs]}


def bash(command: str = "true") -> dict:
    return {"content": [tool_use("bash", {"command": command})]}


@pytest.fixture
def todo_agent(make_agent):
    def build(*, before: list | None = None, after: list | None = None, **options):
        agent = None
        todo = TodoListMiddleware(extra_ref=lambda: agent.extra, **options)
        agent = make_agent(middleware=[*(before or []), todo, *(after or [])])
        return agent

    return build


# ---- status case, and the schema that lets it through -------------------------------------


def test_status_in_any_case_is_accepted_through_the_tool(api, todo_agent):
    call = tool_use("todo_write", todos(("Read", "COMPLETED"), ("Write", " In_Progress ")))
    api.add({"content": [call]})
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    agent = todo_agent()
    run(agent.run("go"))
    assert "is_error" not in results_by_id(api.accepted[1])[call["id"]]
    assert agent.extra["todos"] == todos(("Read", "completed"), ("Write", "in_progress"))["todos"]


def test_the_todo_schema_has_the_documented_shape():
    status_help = (
        "One of: pending, in_progress, completed (case and surrounding spaces do not matter)."
    )
    assert todo_schema(20, offer_wait=False) == {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "maxItems": 20,
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "description": status_help},
                    },
                    "required": ["content", "status"],
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }


def test_the_schema_describes_exactly_the_statuses_the_manager_accepts():
    for keep_items in (False, True):
        manager = TodoManager(keep_items=keep_items)
        schema = todo_schema(20, offer_wait=False, offer_cancel=keep_items)
        described = schema["properties"]["todos"]["items"]["properties"]["status"]["description"]
        named = described.removeprefix("One of: ").split(" (")[0].replace(" or ", ", ").split(", ")
        assert tuple(named) == manager.statuses
    assert TodoManager().statuses == STATUSES


# ---- the correction flag, and what counts as a round ---------------------------------------


class SeesExtra(Middleware):
    """Records extra[key] after the todo middleware has looked at each reply."""

    def __init__(self, agent_ref, key: str) -> None:
        self.agent_ref, self.key, self.seen = agent_ref, key, []

    async def after_model_response(self, response, ctx, *, signal=None):
        self.seen.append(ctx.extra.get(self.key))


def test_todo_finalization_correction_is_true_only_on_the_turn_a_correction_was_sent(
    api, todo_agent
):
    api.add({"content": [tool_use("todo_write", todos(("Only step", "in_progress")))]})
    api.add({"content": [text("Done, I think.")]})
    api.add({"content": [text("Still open, sorry.")]})
    spy = SeesExtra(None, "todo_finalization_correction")
    agent = todo_agent(after=[spy])
    run(agent.run("go"))
    assert spy.seen == [None, True, None]
    assert agent.extra["todo_finalization_correction"] is None


def test_several_tool_calls_in_one_reply_count_as_one_round(api, todo_agent):
    def three() -> dict:
        return {"content": [tool_use("bash", {"command": "true"}) for _ in range(3)]}

    api.add({"content": [tool_use("todo_write", todos(("Step", "in_progress")))]})
    api.add(three())
    api.add(three())
    api.add(bash())
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    run(todo_agent().run("go"))

    def reminded(request: dict) -> bool:
        return any("You have not updated" in b.get("text", "") for b in last_user_blocks(request))

    # Six bash calls in two replies are two rounds; the third round brings the reminder.
    assert [reminded(request) for request in api.accepted[2:5]] == [False, False, True]


# ---- the guard's skips ----------------------------------------------------------------------


def test_the_guard_does_not_argue_with_a_refusal(api, todo_agent):
    api.add({"content": [tool_use("todo_write", todos(("Step", "in_progress")))]})
    api.add({"content": [text("I can't help with that.")], "stop_reason": "refusal"})
    api.add({"content": [text("a correction would get this")]})
    agent = todo_agent()
    run(agent.run("go"))
    assert len(api.accepted) == 2


def test_the_guard_lets_a_paused_turn_go_on_as_it_is(api, todo_agent):
    api.add({"content": [tool_use("todo_write", todos(("Step", "in_progress")))]})
    api.add({"content": [text("Searching...")], "stop_reason": "pause_turn"})
    api.add({"content": [text("Found it.")]})
    api.add({"content": [text("Step still open.")]})  # now the guard speaks
    run(todo_agent().run("go"))
    assert not is_correction(api.accepted[2])  # the paused turn went on as it was
    assert is_correction(api.accepted[3])


# ---- the task wait: approvals, compaction, a failed save, a real resume ----------------------


@pytest.mark.parametrize("ask", ["no", None], ids=["person says no", "headless"])
def test_a_valid_wait_never_bypasses_an_approval(api, todo_agent, workspace, ask):
    questions: list[str] = []

    def answer(question: str):
        questions.append(question)
        return ("no", "")

    policy = PermissionPolicy(ask=answer if ask else None, sandboxed=False)
    touch = bash("touch ran")
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add(touch)
    api.add({"content": [text("Waiting.")]})
    api.add({"content": [text("Still waiting.")]})
    agent = todo_agent(before=[policy], validate_task_wait=Host(valid(), valid(), valid()))
    run(agent.run("go"))
    assert results_by_id(api.accepted[2])[touch["content"][0]["id"]]["is_error"] is True
    assert not (workspace / "ran").exists()
    assert len(questions) == (1 if ask else 0)


def test_a_real_compaction_drops_a_wait_declared_in_the_compacted_part(api, make_agent, workspace):
    write_files(workspace, count=12, chars=12_000)  # ~3K tokens a read; window 12K
    steps = [
        {"content": [tool_use("todo_write", WAIT)]},
        *read_steps(12)[:-1],
        {"content": [text("Waiting for the suite.")]},
        {"content": [text("Still open.")]},
    ]
    model = ScriptedModel(api, steps)
    api.context_limit = 12_000
    agent = None
    todo = TodoListMiddleware(
        extra_ref=lambda: agent.extra, validate_task_wait=Host(valid(), valid(), valid())
    )
    manager = ContextManager(
        lambda: agent.context, lambda system, prompt: agent.ask_model(system, prompt), window=12_000
    )
    agent = make_agent(middleware=[todo, manager])
    run(agent.run("run the suite and read the files"))
    assert model.compaction_calls, "the window was crossed, so the conversation was compacted"
    # Without the drop, the wait would still be valid and the run would end with no correction.
    assert is_correction(model.requests[-1])
    assert agent.extra["todo_task_wait"] is None


class FailingSession:
    """A session whose every save fails, as on a full disk."""

    def save(self, agent) -> None:
        raise SessionError("Cannot write the session file (No space left on device).")


def test_a_failed_save_voids_the_wait(api, todo_agent):
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add({"content": [text("Waiting.")]})
    api.add({"content": [text("Still open.")]})
    agent = todo_agent(validate_task_wait=Host(valid(), valid()))
    notices: list[str] = []
    agent.checkpoint = Autosave(FailingSession(), type("UI", (), {"notice": notices.append})())
    run(agent.run("go"))
    assert notices == [
        "Cannot write the session file (No space left on device). Going on without saving."
    ]
    assert is_correction(api.accepted[2])  # the unsaved wait did not let the run end
    assert agent.extra["todo_task_wait"] is None


@pytest.mark.real_exec
def test_a_wait_survives_a_real_resume_until_the_next_input(
    api, env, make_agent, workspace, isolated_home
):
    start = tool_use("bash", {"command": "sleep 60", "run_in_background": True})
    api.add({"content": [start]})
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add({"content": [text("The suite runs in bg-1.")]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "run the suite", "--yes", "--no-sandbox"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in proc.stderr:  # the run ended on its wait; headless now waits for bg-1
        if "Waiting for bg-1 to end" in line:
            break
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=20)
    assert proc.returncode == 143

    # Loaded as --resume loads it: the wait is the current one, as it was before the restart.
    agent = None
    todo = TodoListMiddleware(extra_ref=lambda: agent.extra)
    agent = make_agent(middleware=[todo])
    session = Session.latest(workspace)
    session.load_into(agent)
    assert awaited_task_ids(agent) == ["bg-1"]
    assert todo.live_wait(agent.context, agent.extra) is not None
    assert agent.context.input_seq == 1
    session.close()

    # The next input is a new boundary: the wait is over and the guard speaks again.
    api.add({"content": [text("Is it done?")]})
    api.add({"content": [text("Not yet.")]})
    resumed = run_cli("-p", "status?", "--resume", "latest", cwd=workspace, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert is_correction(api.accepted[4])
    agent2 = make_agent(middleware=[])
    Session.latest(workspace).load_into(agent2)
    assert agent2.context.input_seq == 2  # counted on from the saved boundary, not from 0
    assert agent2.extra["todo_task_wait"] is None
