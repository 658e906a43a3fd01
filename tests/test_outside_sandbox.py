"""bash's outside_sandbox: one command without the sandbox, asked of the person every time.

Most cases use a stand-in sandbox that confines nothing but marks its commands, so a command
can tell where it ran without bubblewrap; the end-to-end cases use the real one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import results_by_id, run, run_cli
from test_interactive import Terminal
from test_permissions import Asker

from fakeapi import text, tool_use
from middleware import PermissionPolicy
from tools import default_tools
from tools.sandbox import Bubblewrap, NoSandbox, bubblewrap_works, clean_environment
from tools.tasks import TaskManager

# Writes where the command ran: "inside" in the stand-in sandbox, "outside" without it.
WHERE = "echo ${IN_SANDBOX:-outside} >> where.txt"


class MarkingSandbox:
    """Stands in for bubblewrap: confines nothing, but its commands see IN_SANDBOX=inside."""

    confines_writes = True
    description = " Commands run in a sandbox."

    def protected_paths(self, workspace: Path) -> list[Path]:
        return []

    def wrap(self, workspace: Path, command: str, protected=None):
        return ["/bin/bash", "-c", command], {**clean_environment(), "IN_SANDBOX": "inside"}


def outside(command: str = WHERE, **more) -> dict:
    return tool_use("bash", {"command": command, "outside_sandbox": True, **more})


def where(workspace: Path) -> list[str]:
    path = workspace / "where.txt"
    return path.read_text().split() if path.exists() else []


def test_the_input_is_offered_only_when_a_sandbox_is_in_use(tmp_path):
    [plain, *_] = default_tools()
    [sandboxed, *_] = default_tools(Bubblewrap())
    [unsandboxed, *_] = default_tools(NoSandbox(), TaskManager(tmp_path, NoSandbox()))
    assert "outside_sandbox" not in plain.input_schema["properties"]
    assert "outside_sandbox" not in unsandboxed.input_schema["properties"]
    assert sandboxed.input_schema["properties"]["outside_sandbox"]["type"] == "boolean"
    # The model learns when to use it: after a refusal by the sandbox, never first.
    assert "Never use it first" in sandboxed.description
    assert "read-only file system" in sandboxed.description


def test_it_is_asked_every_time_even_after_always(api, make_agent, workspace):
    inside = tool_use("bash", {"command": WHERE})
    first, second, third = outside(), outside(), outside()
    api.add({"content": [inside, first]})
    api.add({"content": [second]})
    api.add({"content": [third]})
    api.add({"content": [text("Done.")]})
    asker = Asker(("always", ""), ("yes", ""), ("no", "not now"))
    policy = PermissionPolicy(ask=asker, sandboxed=True)
    run(make_agent(tools=default_tools(MarkingSandbox()), middleware=[policy]).run("go"))
    question = f"Run this command OUTSIDE the sandbox? (asked every time)\n{WHERE}"
    assert asker.questions == [question] * 3  # the sandboxed command was never asked about
    assert where(workspace) == ["inside", "outside", "outside"]
    declined = results_by_id(api.accepted[3])[third["id"]]
    assert declined["is_error"] is True and "not now" in declined["content"]


def test_after_always_for_it_the_next_plain_command_stays_in_the_sandbox(
    api, make_agent, workspace
):
    api.add({"content": [outside()]})
    api.add({"content": [tool_use("bash", {"command": WHERE})]})
    api.add({"content": [text("Done.")]})
    policy = PermissionPolicy(ask=Asker(("always", "")), sandboxed=True)
    run(make_agent(tools=default_tools(MarkingSandbox()), middleware=[policy]).run("go"))
    assert where(workspace) == ["outside", "inside"]


def test_headless_it_is_refused_and_the_model_is_told_what_to_do(api, make_agent, workspace):
    call = outside()
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    policy = PermissionPolicy(ask=None, sandboxed=True)
    run(make_agent(tools=default_tools(MarkingSandbox()), middleware=[policy]).run("go"))
    refusal = results_by_id(api.accepted[1])[call["id"]]
    assert refusal["is_error"] is True
    assert "without outside_sandbox" in refusal["content"] and "--yes" in refusal["content"]
    assert where(workspace) == []


def test_the_bare_loop_has_nobody_to_approve_it_so_the_command_stays_inside(
    api, make_agent, workspace
):
    call = outside()
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    run(make_agent(tools=default_tools(MarkingSandbox()), middleware=[]).run("go"))
    refusal = results_by_id(api.accepted[1])[call["id"]]
    assert refusal["is_error"] is True and "no permission policy" in refusal["content"]
    assert where(workspace) == []


def test_a_background_task_asks_the_same_and_runs_outside(api, make_agent, workspace, tmp_path):
    manager = TaskManager(tmp_path / "tasks", MarkingSandbox())
    # The one inside runs in the foreground: no outside command runs while a sandboxed
    # background task does (its binds would not cover what the outside one creates).
    inside = tool_use("bash", {"command": WHERE})
    call = outside(run_in_background=True)
    api.add({"content": [inside, call]})
    api.add({"content": [text("Done.")]})
    asker = Asker(("always", ""))
    policy = PermissionPolicy(ask=asker, sandboxed=True)
    agent = make_agent(tools=default_tools(MarkingSandbox(), manager), middleware=[policy])

    async def scenario():
        await agent.run("go")
        for task in manager.tasks.values():
            await task.done.wait()

    run(scenario())
    assert len(asker.questions) == 1 and "OUTSIDE the sandbox" in asker.questions[0]
    assert sorted(where(workspace)) == ["inside", "outside"]


def test_the_rule_is_in_the_permission_table():
    def verdicts(**options) -> dict[str, str]:
        return {rule.what: rule.verdict for rule in PermissionPolicy(**options).rules()}

    assert verdicts(ask=print, sandboxed=True)["bash with outside_sandbox"] == "asks"
    assert verdicts(ask=None, sandboxed=True)["bash with outside_sandbox"] == "refused"
    yes = verdicts(ask=None, sandboxed=True, allow_all=True)
    assert yes["bash with outside_sandbox"] == "runs freely"
    assert "bash with outside_sandbox" not in verdicts(ask=print, sandboxed=False)


# ---- end to end, in bubblewrap ---------------------------------------------------------------


@pytest.fixture
def sandbox_works():
    if shutil.which("bwrap") is None or bubblewrap_works() is not True:
        pytest.skip(f"bubblewrap cannot run here: {bubblewrap_works()}")


@pytest.mark.parametrize("yes", [False, True], ids=["headless", "headless-yes"])
def test_through_the_cli_only_yes_lets_a_command_write_outside_the_workspace(
    api, env, workspace, tmp_path, sandbox_works, yes
):
    # Beside the workspace, under /tmp: in the sandbox that is a private tmpfs.
    sandboxed = tool_use("bash", {"command": f"echo written > {tmp_path / 'sandboxed.txt'}"})
    unsandboxed = outside(f"echo written > {tmp_path / 'outside.txt'}")
    api.add({"content": [sandboxed]})
    api.add({"content": [unsandboxed]})
    api.add({"content": [text("Done.")]})
    flags = ["--yes"] if yes else []
    result = run_cli("-p", "write it", *flags, cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "sandboxed.txt").exists()
    second = results_by_id(api.accepted[2])[unsandboxed["id"]]
    if yes:
        assert second.get("is_error") is not True and "[exit code: 0]" in second["content"]
        assert (tmp_path / "outside.txt").read_text() == "written\n"
    else:
        assert second["is_error"] is True and "--yes" in second["content"]
        assert not (tmp_path / "outside.txt").exists()


@pytest.mark.real_exec
def test_in_the_terminal_always_is_not_offered_and_each_request_asks(
    api, env, workspace, tmp_path, sandbox_works
):
    log = tmp_path / "outside.txt"
    api.add({"content": [outside(f"echo first >> {log}")]})
    api.add({"content": [outside(f"echo second >> {log}")]})
    api.add({"content": [text("Both ran.")]})
    with Terminal(workspace, {**env, "NO_COLOR": "1", "COLUMNS": "100"}) as terminal:
        terminal.wait_for_prompt()
        terminal.type("write twice\r")
        terminal.wait_for("OUTSIDE the sandbox? (asked every time)")
        assert "[a]lways" not in terminal.wait_for("[y]es / [n]o: ")  # not even offered
        terminal.type("a\r")
        terminal.wait_for("Please type y or n (not 'a').")
        terminal.type("y\r")
        terminal.wait_for("OUTSIDE the sandbox? (asked every time)")  # asked again
        terminal.type("y\r")
        terminal.wait_for("Both ran.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert log.read_text() == "first\nsecond\n"
