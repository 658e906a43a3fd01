"""The task wait of the todo middleware: declared on todo_write, checked by a host validator.

The host here is a scripted stand-in that answers each question from a list and records what
it was asked; planloop's own validator over its background tasks is tested in test_tasks.py.
"""

from __future__ import annotations

import json

import pytest
from conftest import results_by_id, run

from fakeapi import text, tool_use
from middleware import AgentContext, Middleware, TurnAction
from middleware.permissions import PermissionPolicy
from todo import TaskWaitBinding, TaskWaitValidation, TodoListMiddleware


def todos(*pairs: tuple[str, str]) -> dict:
    return {"todos": [{"content": c, "status": s} for c, s in pairs]}


PLAN = todos(("Start the suite", "completed"), ("Report the results", "in_progress"))
DONE = todos(("Start the suite", "completed"), ("Report the results", "completed"))
WAIT = {**PLAN, "wait_for_tasks": ["bg-1"]}


def valid(**evidence) -> TaskWaitValidation:
    return TaskWaitValidation("valid", validation={"checked": 1, **evidence})


class Host:
    """A validator that answers from a script and records (task_ids, input_seq, prior)."""

    def __init__(self, *answers: TaskWaitValidation | Exception) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[list[str], int, TaskWaitBinding | None]] = []

    async def __call__(self, task_ids, ctx, prior):
        self.asked.append((task_ids, ctx.input_seq, prior))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


@pytest.fixture
def wait_agent(make_agent):
    def build(host: Host | None, *, before: list | None = None, after: list | None = None):
        agent = None
        todo = TodoListMiddleware(extra_ref=lambda: agent.extra, validate_task_wait=host)
        agent = make_agent(middleware=[*(before or []), todo, *(after or [])])
        return agent

    return build


def is_correction(request: dict) -> bool:
    last = request["messages"][-1]["content"]
    return any(b["type"] == "text" and "not completed" in b["text"] for b in last)


# ---- what the model is offered ------------------------------------------------------------


def test_wait_for_tasks_is_offered_only_with_a_validator(api, wait_agent):
    api.add({"content": [text("hi")]})
    api.add({"content": [text("hi")]})
    run(wait_agent(None).run("hello"))
    run(wait_agent(Host()).run("hello"))
    without, with_host = (
        next(t for t in request["tools"] if t["name"] == "todo_write") for request in api.accepted
    )
    assert "wait_for_tasks" not in without["input_schema"]["properties"]
    assert "wait_for_tasks" in with_host["input_schema"]["properties"]


# ---- the declaration ----------------------------------------------------------------------


def test_a_valid_wait_ends_the_run_with_open_items_and_no_correction(api, wait_agent):
    declare = tool_use("todo_write", WAIT)
    api.add({"content": [declare]})
    api.add({"content": [text("The suite runs in bg-1; I will report when it ends.")]})
    host = Host(valid(at="declared"), valid(at="final"))
    agent = wait_agent(host)
    answer = run(agent.run("run the slow suite"))
    assert answer.startswith("The suite runs in bg-1")
    assert len(api.accepted) == 2  # no correction, no extra model call
    result = results_by_id(api.accepted[1])[declare["id"]]
    assert "Waiting for bg-1" in result["content"] and "is_error" not in result
    assert agent.extra["todos"] == PLAN["todos"]  # the open item stays open
    binding = agent.extra["todo_task_wait"]
    assert binding["task_ids"] == ["bg-1"] and binding["todos"] == PLAN["todos"]
    assert binding["tool_use_id"] == declare["id"]
    assert (binding["run_id"], binding["input_seq"]) == (agent.context.run_id, 1)
    assert binding["validation"] == {"checked": 1, "at": "final"}  # refreshed by the re-check
    # First asked with no prior binding, then again with the stored one before the guard.
    assert [(ids, seq) for ids, seq, _ in host.asked] == [(["bg-1"], 1), (["bg-1"], 1)]
    assert host.asked[0][2] is None
    assert host.asked[1][2].validation == {"checked": 1, "at": "declared"}
    outcome = agent.extra["todo_task_wait_outcome"]
    assert outcome["status"] == "valid" and outcome["task_ids"] == ["bg-1"]
    assert [i["content"] for i in outcome["unfinished"]] == ["Report the results"]


@pytest.mark.parametrize(
    "answer, expected",
    [
        (
            TaskWaitValidation("invalid", reason="no such task", bad_task_ids=["bg-7"]),
            "cannot wait for bg-7: no such task",
        ),
        (RuntimeError("task table is locked"), "could not be checked (RuntimeError"),
        (TaskWaitValidation("cancelled", reason="stopped"), "cancelled work cannot be waited"),
        (TaskWaitValidation("valid", validation={"pid": object()}), "cannot be saved"),
    ],
    ids=["unknown task", "lookup failure", "cancelled", "evidence not JSON"],
)
def test_a_wait_that_does_not_hold_refuses_the_whole_update(api, wait_agent, answer, expected):
    declare = tool_use("todo_write", {**DONE, "wait_for_tasks": ["bg-1", "bg-7"]})
    api.add({"content": [tool_use("todo_write", PLAN)]})
    api.add({"content": [declare]})
    api.add({"content": [text("done?")]})
    api.add({"content": [text("no, still open")]})  # the ordinary guard's forced turn
    agent = wait_agent(Host(answer))
    run(agent.run("go"))
    result = results_by_id(api.accepted[2])[declare["id"]]
    assert result["is_error"] is True
    assert result["content"].startswith("todo_write rejected, the list is unchanged")
    assert "(wait_for_tasks: bg-1, bg-7)" in result["content"] and expected in result["content"]
    assert agent.extra["todos"] == PLAN["todos"]
    assert agent.extra["todo_task_wait"] is None
    assert is_correction(api.accepted[3])


def test_a_malformed_list_is_refused_before_the_host_is_asked(api, wait_agent):
    bad = tool_use("todo_write", {**todos(("a", "in_progress"), ("b", "in_progress")),
                                  "wait_for_tasks": ["bg-1"]})  # fmt: skip
    api.add({"content": [bad]})
    api.add({"content": [text("ok")]})
    host = Host()
    agent = wait_agent(host)
    run(agent.run("go"))
    assert "2 items are in_progress" in results_by_id(api.accepted[1])[bad["id"]]["content"]
    assert host.asked == [] and agent.extra["todo_task_wait"] is None


def test_wait_for_tasks_without_a_validator_is_refused(api, wait_agent):
    declare = tool_use("todo_write", WAIT)
    api.add({"content": [declare]})
    api.add({"content": [text("ok")]})
    agent = wait_agent(None)
    run(agent.run("go"))
    result = results_by_id(api.accepted[1])[declare["id"]]
    assert result["is_error"] is True and "unknown argument 'wait_for_tasks'" in result["content"]
    assert agent.extra["todos"] is None


# ---- asked again before the guard ----------------------------------------------------------


def test_a_cancelled_wait_ends_the_run_and_keeps_the_list_and_the_reason(api, wait_agent):
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add({"content": [text("Waiting for the suite.")]})
    host = Host(valid(), TaskWaitValidation("cancelled", reason="bg-1 was stopped by the user"))
    agent = wait_agent(host)
    run(agent.run("go"))
    assert len(api.accepted) == 2
    assert agent.extra["todos"] == PLAN["todos"]
    outcome = agent.extra["todo_task_wait_outcome"]
    assert outcome["status"] == "cancelled" and outcome["reason"] == "bg-1 was stopped by the user"
    assert [i["content"] for i in outcome["unfinished"]] == ["Report the results"]
    assert agent.extra["todo_task_wait"] is None  # a cancelled wait is over


@pytest.mark.parametrize(
    "answer",
    [
        TaskWaitValidation("invalid", reason="bg-1 is unknown"),
        TaskWaitValidation("cancelled", reason="  "),  # cancelled needs a reason
        TaskWaitValidation("stale"),
        OSError("lookup failed"),
    ],
    ids=["unknown task", "cancelled without reason", "other status", "lookup failure"],
)
def test_a_wait_the_host_no_longer_confirms_gets_the_ordinary_guard(api, wait_agent, answer):
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add({"content": [text("Waiting.")]})
    api.add({"content": [text("Sorry, still open.")]})
    agent = wait_agent(Host(valid(), answer))
    run(agent.run("go"))
    assert len(api.accepted) == 3 and is_correction(api.accepted[2])
    assert agent.extra["todo_task_wait"] is None
    assert agent.extra["todo_task_wait_outcome"] is None


# ---- what clears or invalidates it ---------------------------------------------------------


def test_an_ordinary_update_clears_the_wait(api, wait_agent):
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add({"content": [tool_use("todo_write", PLAN)]})
    api.add({"content": [text("Waiting.")]})
    api.add({"content": [text("Still open.")]})
    host = Host(valid())
    agent = wait_agent(host)
    run(agent.run("go"))
    assert agent.extra["todo_task_wait"] is None
    assert len(host.asked) == 1  # never asked again: there was no wait left
    assert is_correction(api.accepted[3])


def test_a_new_input_invalidates_the_wait(api, wait_agent):
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add({"content": [text("Waiting.")]})
    api.add({"content": [text("Here is what I know.")]})  # a new input: the wait is stale
    api.add({"content": [text("Still open.")]})
    host = Host(valid(), valid())
    agent = wait_agent(host)

    async def two_inputs():
        await agent.run("run the suite")
        await agent.run("the result of bg-1 arrived: exit 0")

    run(two_inputs())
    assert len(host.asked) == 2  # the declaration and the first run's end only
    assert agent.extra["todo_task_wait"] is None
    assert len(api.accepted) == 4 and is_correction(api.accepted[3])


def bash() -> dict:
    return {"content": [tool_use("bash", {"command": "true"})]}


@pytest.mark.parametrize("answer", ["yes", "no"])
def test_a_persons_approval_answer_invalidates_the_wait(api, wait_agent, answer):
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add(bash())
    api.add({"content": [text("Waiting.")]})
    api.add({"content": [text("Still open.")]})
    questions = []
    policy = PermissionPolicy(
        ask=lambda question: questions.append(question) or (answer, ""), sandboxed=False
    )
    agent = wait_agent(Host(valid(), valid()), before=[policy])
    run(agent.run("go"))
    assert len(questions) == 1
    assert len(api.accepted) == 4 and is_correction(api.accepted[3])
    assert agent.extra["todo_task_wait"] is None


@pytest.mark.parametrize("how", ["--yes", "always, said earlier"])
def test_an_automatic_approval_keeps_the_wait(api, wait_agent, how):
    if how == "--yes":
        policy = PermissionPolicy(ask=None, sandboxed=False, allow_all=True)
    else:
        policy = PermissionPolicy(ask=lambda question: ("always", ""), sandboxed=False)
        api.add(bash())  # asked once, before the wait: "always"
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add(bash())  # approved without asking anyone
    api.add({"content": [text("Waiting.")]})
    agent = wait_agent(Host(valid(), valid()), before=[policy])
    run(agent.run("go"))
    assert not is_correction(api.accepted[-1])
    assert agent.extra["todo_task_wait_outcome"]["status"] == "valid"
    assert agent.extra["todo_task_wait"]["task_ids"] == ["bg-1"]


# ---- what it never bypasses ----------------------------------------------------------------


class StopOnText(Middleware):
    """Ends the run on a final text reply, with a note for the model."""

    async def after_model_response(self, response, ctx, *, signal=None):
        if any(b["type"] == "tool_use" for b in response["content"]):
            return None
        return TurnAction(decision="stop")


@pytest.mark.parametrize("stopper_first", [True, False])
def test_the_guard_never_overrides_another_middlewares_stop(api, wait_agent, stopper_first):
    api.add({"content": [tool_use("todo_write", PLAN)]})
    api.add({"content": [text("Done, I think.")]})
    placement = {"before": [StopOnText()]} if stopper_first else {"after": [StopOnText()]}
    agent = wait_agent(None, **placement)
    run(agent.run("go"))
    assert len(api.accepted) == 2  # no correction turn
    assert agent.messages[-1]["content"] == [text("Done, I think.")]  # and none left behind


# ---- saved and resumed ---------------------------------------------------------------------


def reply_text(words: str) -> dict:
    return {"role": "assistant", "content": [text(words)], "stop_reason": "end_turn"}


@pytest.mark.parametrize("still_valid", [True, False])
def test_a_saved_wait_survives_json_and_is_checked_again_on_resume(api, wait_agent, still_valid):
    api.add({"content": [tool_use("todo_write", WAIT)]})
    api.add({"content": [text("Waiting.")]})
    agent = wait_agent(Host(valid(), valid()))
    run(agent.run("go"))
    saved = json.dumps(agent.extra)  # what the session file holds

    extra = json.loads(saved)
    answer = valid(at="resumed") if still_valid else TaskWaitValidation("invalid")
    host = Host(answer)
    resumed = TodoListMiddleware(extra_ref=lambda: extra, validate_task_wait=host)
    ctx = AgentContext([], "", {}, agent.workspace, extra=extra)
    ctx.run_id, ctx.input_seq = agent.context.run_id, agent.context.input_seq
    action = run(resumed.after_model_response(reply_text("Waiting."), ctx))

    [(ids, seq, prior)] = host.asked
    assert ids == ["bg-1"] and seq == 1
    assert prior == TaskWaitBinding.from_json(json.loads(saved)["todo_task_wait"])
    if still_valid:
        assert action is None  # the run ends naturally
    else:
        assert action.decision == "loop_to_model"
        assert extra["todo_task_wait"] is None
