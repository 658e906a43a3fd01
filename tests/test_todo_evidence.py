"""A plan you can trust: checks that prove an item done, no item left out silently, the record.

Driven through the real loop against the strict fake API; the checks run real commands with
the bash tool's runner (tools/bash.py), here without a sandbox (the CLI tests below use one).
"""

from __future__ import annotations

import pytest
from conftest import last_user_blocks, results_by_id, run

from fakeapi import text, tool_use
from middleware.permissions import PermissionPolicy
from todo import TodoListMiddleware
from todo.checks import CheckResult, bash_check_runner


def item(content: str, status: str, **extra) -> dict:
    return {"content": content, "status": status, **extra}


def write(*items: dict) -> dict:
    return tool_use("todo_write", {"todos": list(items)})


CHECK = "grep -q fixed notes.txt"
FIXING = [item("Fix the notes", "in_progress", check=CHECK), item("Report", "pending")]
FIXED = [item("Fix the notes", "completed", check=CHECK), item("Report", "in_progress")]


@pytest.fixture
def evidence_agent(make_agent):
    """An agent whose todo list has every evidence option on, as the CLI builds it."""

    def build(run_check=None, *, before: list | None = None, **options):
        agent = None
        run_check = run_check or bash_check_runner(timeout=10)
        todo = TodoListMiddleware.with_evidence(lambda: agent.extra, run_check, **options)
        agent = make_agent(middleware=[*(before or []), todo])
        return agent

    return build


class CountingCheck:
    """A check runner that passes or fails as told and records each command it was given."""

    def __init__(self, *passes: bool) -> None:
        self.passes = list(passes)
        self.ran: list[str] = []

    async def __call__(self, command: str, ctx) -> CheckResult:
        self.ran.append(command)
        passed = self.passes.pop(0)
        return CheckResult(passed, f"[exit code: {0 if passed else 1}]")


def result_of(api, call: dict, request: int) -> dict:
    return results_by_id(api.accepted[request])[call["id"]]


def correction(request: dict) -> str:
    blocks = last_user_blocks(request)
    return next(b["text"] for b in blocks if b["type"] == "text" and "not completed" in b["text"])


# ---- completion evidence ------------------------------------------------------------------


def test_a_failing_check_refuses_the_write_and_the_same_write_passes_once_fixed(
    api, evidence_agent, workspace
):
    (workspace / "notes.txt").write_text("broken\n")
    first, again = write(*FIXED), write(*FIXED)
    fix = tool_use("write_file", {"path": "notes.txt", "content": "fixed\n"})
    api.add({"content": [write(*FIXING)]})
    api.add({"content": [first]})
    api.add({"content": [fix]})
    api.add({"content": [again]})
    api.add({"content": [text("Fixed.")]})
    api.add({"content": [text("Reported.")]})  # the guard's turn: Report is still open
    agent = evidence_agent()
    run(agent.run("fix the notes"))

    refused = result_of(api, first, 2)
    assert refused["is_error"] is True
    assert refused["content"].startswith("todo_write rejected, the list is unchanged")
    assert f"$ {CHECK}" in refused["content"] and "[exit code: 1]" in refused["content"]
    assert "Fix it or keep the item open" in refused["content"]
    accepted = result_of(api, again, 4)
    assert "is_error" not in accepted
    assert "Fix the notes (✓ checked)" in accepted["content"]
    assert agent.extra["todos"][0] == {**FIXED[0], "verified": True}
    assert agent.extra["todo_failed_checks"] == {}


def test_the_list_stays_exactly_as_it_was_after_a_failed_check(api, evidence_agent):
    api.add({"content": [write(*FIXING)]})
    api.add({"content": [write(*FIXED, item("New step", "pending"))]})
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    agent = evidence_agent(CountingCheck(False))
    run(agent.run("go"))
    assert agent.extra["todos"] == FIXING
    assert [e["version"] for e in agent.extra["todo_history"]] == [1]


def test_a_check_that_times_out_refuses_the_write(api, evidence_agent):
    slow = [item("Wait", "completed", check="sleep 30")]
    call = write(*slow)
    api.add({"content": [write(item("Wait", "in_progress", check="sleep 30"))]})
    api.add({"content": [call]})
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    agent = evidence_agent(bash_check_runner(timeout=1))
    run(agent.run("go"))
    refused = result_of(api, call, 2)
    assert refused["is_error"] is True
    assert "timed out after 1 s" in refused["content"]
    assert agent.extra["todos"][0]["status"] == "in_progress"


def test_a_check_runs_when_an_item_is_completed_and_not_again_while_it_stays_proven(
    api, evidence_agent
):
    check = CountingCheck(True, True)
    api.add({"content": [write(item("A", "in_progress", check="true"), item("B", "pending"))]})
    api.add({"content": [write(item("A", "completed", check="true"), item("B", "in_progress"))]})
    api.add({"content": [write(item("A", "completed", check="true"), item("B", "completed"))]})
    api.add({"content": [write(item("A", "completed", check="test 1"), item("B", "completed"))]})
    api.add({"content": [text("done")]})
    agent = evidence_agent(check)
    run(agent.run("go"))
    # Pending and in_progress never run it; once verified, resending does not run it again;
    # a different command is new evidence and runs.
    assert check.ran == ["true", "test 1"]
    assert agent.extra["todos"][0]["verified"] is True
    assert "verified" not in agent.extra["todos"][1]  # claimed: completed without proof


def test_a_verified_item_reopened_loses_its_proof(api, evidence_agent):
    check = CountingCheck(True, True)
    api.add({"content": [write(item("A", "completed", check="true"))]})
    api.add({"content": [write(item("A", "in_progress", check="true"))]})
    api.add({"content": [write(item("A", "completed", check="true"))]})
    api.add({"content": [text("done")]})
    agent = evidence_agent(check)
    run(agent.run("go"))
    assert check.ran == ["true", "true"]


def test_the_model_cannot_claim_verified_itself(api, evidence_agent):
    api.add({"content": [write(item("A", "completed", verified=True))]})
    api.add({"content": [text("done")]})
    agent = evidence_agent(CountingCheck())
    run(agent.run("go"))
    assert agent.extra["todos"] == [item("A", "completed")]


def test_the_guard_lists_the_failed_checks(api, evidence_agent):
    api.add({"content": [write(*FIXING)]})
    api.add({"content": [write(*FIXED)]})
    api.add({"content": [text("All done!")]})
    api.add({"content": [text("The notes are still broken.")]})
    agent = evidence_agent(CountingCheck(False))
    run(agent.run("go"))
    said = correction(api.accepted[3])
    assert f"- [in_progress] Fix the notes (its check failed: $ {CHECK} [exit code: 1])" in said
    assert "- [pending] Report\n" in said + "\n"
    assert agent.extra["todo_failed_checks"]["Fix the notes"]["check"] == CHECK


def test_a_check_is_asked_about_like_bash_and_refused_headless_without_sandbox(
    api, evidence_agent, workspace
):
    policy = PermissionPolicy(ask=None, sandboxed=False)
    runner = bash_check_runner(None, policy)
    call = write(item("A", "completed", check="touch ran"))
    api.add({"content": [call]})
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    agent = evidence_agent(runner, before=[policy])
    run(agent.run("go"))
    refused = result_of(api, call, 1)
    assert refused["is_error"] is True
    assert "The check was not run: bash is disabled" in refused["content"]
    assert "--yes" in refused["content"]
    assert not (workspace / "ran").exists()


def test_a_check_asks_the_person_and_runs_after_a_yes(api, evidence_agent, workspace):
    questions: list[str] = []

    def ask(question: str):
        questions.append(question)
        return ("yes", "")

    policy = PermissionPolicy(ask=ask, sandboxed=False)
    api.add({"content": [write(item("A", "completed", check="touch ran"))]})
    api.add({"content": [text("done")]})
    agent = evidence_agent(bash_check_runner(None, policy), before=[policy])
    run(agent.run("go"))
    assert questions == ["Run this check before a todo item is marked done?\ntouch ran"]
    assert (workspace / "ran").exists()
    assert agent.extra["todos"][0]["verified"] is True
    assert agent.context.input_seq == 2  # a person's answer is an input boundary, as for bash


# ---- nothing vanishes -----------------------------------------------------------------------

ABC = [item("A", "completed"), item("B", "in_progress"), item("C", "pending")]


def test_leaving_out_an_unfinished_item_is_refused_and_names_it(api, evidence_agent):
    dropped = write(item("A", "completed"), item("C", "in_progress"))
    api.add({"content": [write(*ABC)]})
    api.add({"content": [dropped]})
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    agent = evidence_agent(CountingCheck())
    run(agent.run("go"))
    refused = result_of(api, dropped, 2)
    assert refused["is_error"] is True
    assert "leaves out unfinished items: 'B'" in refused["content"]
    assert '"status": "cancelled", "reason"' in refused["content"]
    assert agent.extra["todos"] == ABC


def test_an_empty_list_names_every_unfinished_item(api, evidence_agent):
    call = tool_use("todo_write", {"todos": []})
    api.add({"content": [write(*ABC)]})
    api.add({"content": [call]})
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    run(evidence_agent(CountingCheck()).run("go"))
    assert "unfinished items: 'B', 'C'" in result_of(api, call, 2)["content"]


def test_completed_items_may_be_left_out(api, evidence_agent):
    api.add({"content": [write(*ABC)]})
    api.add({"content": [write(item("B", "in_progress"), item("C", "pending"))]})
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    agent = evidence_agent(CountingCheck())
    run(agent.run("go"))
    assert [i["content"] for i in agent.extra["todos"]] == ["B", "C"]


def test_a_cancelled_item_is_accepted_not_open_for_the_guard_and_dropped_at_the_next_write(
    api, evidence_agent
):
    cancel = write(item("A", "completed"), item("B", "cancelled", reason="not needed"),
                   item("C", "in_progress"))  # fmt: skip
    api.add({"content": [write(*ABC)]})
    api.add({"content": [cancel]})
    api.add({"content": [text("C is left.")]})
    api.add({"content": [write(item("A", "completed"), item("C", "completed"))]})
    api.add({"content": [text("Done.")]})
    agent = evidence_agent(CountingCheck())
    run(agent.run("go"))
    assert "is_error" not in result_of(api, cancel, 2)
    said = correction(api.accepted[3])
    assert "- [in_progress] C" in said and "B" not in said  # cancelled is not open
    assert agent.extra["todos"] == [item("A", "completed"), item("C", "completed")]
    assert len(api.accepted) == 5  # everything finished: no second correction


def test_a_cancelled_item_resent_again_is_dropped_too(api, evidence_agent):
    cancelled = item("B", "cancelled", reason="not needed")
    api.add({"content": [write(item("A", "in_progress"), item("B", "pending"))]})
    api.add({"content": [write(item("A", "in_progress"), cancelled)]})
    api.add({"content": [write(item("A", "completed"), cancelled)]})
    api.add({"content": [text("Done.")]})
    agent = evidence_agent(CountingCheck())
    run(agent.run("go"))
    assert agent.extra["todos"] == [item("A", "completed")]


def test_cancelled_counts_as_finished_for_the_one_in_progress_rule(api, evidence_agent):
    api.add({"content": [write(item("A", "in_progress"), item("B", "pending"))]})
    api.add({"content": [write(item("A", "completed"), item("B", "cancelled", reason="moot"))]})
    api.add({"content": [text("Done.")]})
    agent = evidence_agent(CountingCheck())
    run(agent.run("go"))
    assert len(api.accepted) == 3  # accepted, and the guard had nothing to say
    assert agent.extra["todos"][1]["status"] == "cancelled"


@pytest.mark.parametrize("reason", [None, "   "], ids=["missing", "blank"])
def test_cancelled_needs_a_reason(api, evidence_agent, reason):
    call = write(item("A", "in_progress"), item("B", "cancelled", reason=reason))
    api.add({"content": [call]})
    api.add({"content": [text("stop")]})
    run(evidence_agent(CountingCheck()).run("go"))
    refused = result_of(api, call, 1)
    assert refused["is_error"] is True
    assert "todos[1] is cancelled without a reason" in refused["content"]


# ---- the record -----------------------------------------------------------------------------


def test_each_accepted_write_adds_one_compact_entry(api, evidence_agent):
    first = write(*ABC)
    api.add({"content": [first]})
    api.add({"content": [write(item("A", "completed"))]})  # refused: B and C left out
    api.add({"content": [write(item("B", "completed", check="true"),
                               item("C", "cancelled", reason="moot"))]})  # fmt: skip
    api.add({"content": [text("Done.")]})
    agent = evidence_agent(CountingCheck(True))
    run(agent.run("go"))
    history = agent.extra["todo_history"]
    assert [e["version"] for e in history] == [1, 2]
    assert history[0]["tool_use_id"] == first["id"]
    assert history[0]["changes"] == [
        ["added", "A", "completed", "claimed"],
        ["added", "B", "in_progress"],
        ["added", "C", "pending"],
    ]
    assert history[1]["changes"] == [
        ["status", "B", "in_progress", "completed", "checked"],
        ["cancelled", "C", "moot"],
        ["dropped", "A"],
    ]


# ---- opt-in -----------------------------------------------------------------------------------


def test_without_the_options_there_is_no_check_no_cancelled_and_no_record(api, make_agent):
    agent = None
    todo = TodoListMiddleware(extra_ref=lambda: agent.extra)
    agent = make_agent(middleware=[todo])
    with_check = write(item("A", "completed", check="true"))
    cancelled = write(item("A", "cancelled", reason="moot"))
    api.add({"content": [with_check]})
    api.add({"content": [cancelled]})
    api.add({"content": [write(item("A", "in_progress"))]})
    api.add({"content": [write(item("B", "in_progress"))]})  # A left out: allowed here
    api.add({"content": [text("stop")]})
    api.add({"content": [text("stop")]})
    run(agent.run("go"))
    schema = next(t for t in api.accepted[0]["tools"] if t["name"] == "todo_write")
    properties = schema["input_schema"]["properties"]["todos"]["items"]["properties"]
    assert set(properties) == {"content", "status"}
    assert "checks are not available here" in result_of(api, with_check, 1)["content"]
    assert "use one of: pending, in_progress, completed." in result_of(api, cancelled, 2)["content"]
    assert agent.extra["todos"] == [item("B", "in_progress")]
    assert "todo_history" not in agent.extra


def test_with_evidence_offers_check_and_reason_and_keeps_the_three_statuses_in_the_prompt(
    api, evidence_agent
):
    api.add({"content": [text("hi")]})
    run(evidence_agent(CountingCheck()).run("hello"))
    tool = next(t for t in api.accepted[0]["tools"] if t["name"] == "todo_write")
    properties = tool["input_schema"]["properties"]["todos"]["items"]["properties"]
    assert set(properties) == {"content", "status", "check", "reason"}
    assert '"pending" | "in_progress" | "completed"' in tool["description"]
    assert '"status": "cancelled" and a "reason"' in tool["description"]
