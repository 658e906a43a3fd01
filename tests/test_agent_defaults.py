"""`Agent()` is the product, what `python agent.py` has; `middleware=[]` is the bare loop.

The hostile commands are the model's: one appends a command hook to `.git/config`, one writes
outside the workspace. Whatever the machine offers, the product either runs them in the
sandbox, where they fail, or refuses them; neither leaves a trace on the host.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import API_KEY, fake_api_client, results_by_id, run
from rich.console import Console
from test_readme_examples import PYTHON_BLOCKS

from agent import Agent
from cli.app import build_agent
from cli.flags import parse_args
from cli.render import HeadlessUI
from defaults import find_middleware
from examples.no_push import NoPush
from fakeapi import text, tool_use
from middleware import PermissionPolicy, StaleWriteGuard, TurnLimit
from middleware.context import ContextManager, context_window
from middleware.exposure import ExposureGuard
from middleware.undo import UndoRecorder
from prompts.project import ProjectInstructions
from settings import confirm_endpoint
from todo import TodoListMiddleware
from tools import BASH, READ_FILE, Tool, make_bash
from tools.sandbox import NoSandbox, bubblewrap_works
from tools.tasks import TaskManager
from wiretrace import Trace

ROOT = Path(__file__).resolve().parent.parent
SANDBOX_WORKS = bubblewrap_works() is True
PRODUCT = [
    TodoListMiddleware,
    StaleWriteGuard,
    PermissionPolicy,
    UndoRecorder,
    ContextManager,
    ProjectInstructions,
    TurnLimit,
]
GIT_CONFIG = "[core]\n\tbare = false\n"


def kinds(agent: Agent) -> list[type]:
    return [type(m) for m in agent.hooks.middlewares]


def product(agent: Agent) -> list[type]:
    """PRODUCT, after the one that comes first with the sandbox: a command that could read
    the key after all stops the run (middleware/exposure.py)."""
    sandboxed = getattr(agent.sandbox, "confines_writes", False)
    return [*([ExposureGuard] if sandboxed else []), *PRODUCT]


def a_git_repository(folder: Path) -> Path:
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(GIT_CONFIG)
    return folder


def script_hostile_commands(api, outside: Path) -> tuple[dict, dict]:
    """The model tries to plant a hook in .git/config and to write outside the workspace."""
    plant = "printf '\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config"
    hook = tool_use("bash", {"command": plant})
    escape = tool_use("bash", {"command": f"echo pwned > {outside}"})
    api.add({"content": [hook, escape]})
    api.add({"content": [text("Done.")]})
    return hook, escape


def assert_sandboxed_or_refused(api, folder: Path, outside: Path, calls: tuple[dict, dict]):
    """Nothing changed on the host, and the hook's write failed or was refused.

    (The write outside may succeed in the sandbox's private /tmp; the host never sees it.)
    """
    assert (folder / ".git" / "config").read_text() == GIT_CONFIG
    assert not outside.exists()
    hook, _ = calls
    result = results_by_id(api.accepted[1])[hook["id"]]
    assert result.get("is_error") or "[exit code: 0]" not in result["content"], result


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file just outside the workspace that no command may create."""
    return tmp_path / "outside-the-workspace.txt"


# ---- Agent() from code --------------------------------------------------------------------


@pytest.mark.parametrize("bwrap_on_path", [True, False], ids=["bwrap-on-path", "no-bwrap"])
def test_python_c_agent_with_no_arguments_sandboxes_or_refuses_hostile_bash(
    api, env, workspace, outside, bwrap_on_path
):
    if bwrap_on_path and not SANDBOX_WORKS:
        pytest.skip("bubblewrap cannot start a sandbox on this machine")
    a_git_repository(workspace)
    calls = script_hostile_commands(api, outside)
    code = (
        "import asyncio; from agent import Agent; agent = Agent(); "
        "print(asyncio.run(agent.run('tidy up'))); print(sorted(agent.tools))"
    )
    child_env = {**env, "PYTHONPATH": str(ROOT)}
    if not bwrap_on_path:  # as on a machine without bubblewrap: bash must be refused
        child_env["PATH"] = str(Path(sys.executable).parent)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=workspace,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "Done."
    assert "'todo_write'" in done.stdout
    assert "todo_write" in [tool["name"] for tool in api.accepted[0]["tools"]]
    assert_sandboxed_or_refused(api, workspace, outside, calls)
    if not bwrap_on_path:
        refusals = [r["content"] for r in results_by_id(api.accepted[1]).values()]
        assert all("bash is disabled" in refusal for refusal in refusals), refusals


def test_the_readmes_first_snippet_gets_the_product(api, tmp_path, outside, monkeypatch):
    """The README's `Agent()` block, pasted into a folder, against a model that turns hostile."""
    snippet = next(block for block in PYTHON_BLOCKS if "agent = Agent()" in block)
    folder = a_git_repository(tmp_path / "project")
    env_file = f"ANTHROPIC_API_KEY={API_KEY}\nANTHROPIC_BASE_URL={api.base_url}\n"
    (folder / ".env").write_text(env_file)
    confirm_endpoint(folder, api.base_url)  # the person said yes to it once, in a terminal
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "MODEL_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(folder)
    calls = script_hostile_commands(api, outside)
    saved = dict(os.environ)
    output = io.StringIO()
    try:
        with contextlib.redirect_stdout(output):
            exec(compile(snippet, "<README.md>", "exec"), {"__name__": "__main__"})
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert "todo_write" in output.getvalue()
    assert_sandboxed_or_refused(api, folder, outside, calls)


def test_agent_has_the_products_middlewares_in_order(api, workspace):
    agent = Agent(client=fake_api_client(api.base_url), workspace=workspace, model="claude-opus-4")
    assert kinds(agent) == product(agent)
    assert "todo_write" in agent.tools
    assert find_middleware(agent, ContextManager).window == context_window("claude-opus-4")


def test_without_a_sandbox_bash_is_refused_unless_someone_approves(api, workspace):
    questions: list[str] = []

    def ask(question: str) -> tuple[str, str]:
        questions.append(question)
        return "yes", ""

    for options, runs in (({}, False), ({"ask": ask}, True), ({"allow_all": True}, True)):
        (workspace / "ran.txt").unlink(missing_ok=True)
        call = tool_use("bash", {"command": "echo hi > ran.txt"})
        api.add({"content": [call]})
        api.add({"content": [text("Done.")]})
        client = fake_api_client(api.base_url)
        agent = Agent(client=client, workspace=workspace, sandbox=False, **options)
        run(agent.run("go"))
        assert (workspace / "ran.txt").exists() is runs, options
        result = results_by_id(api.accepted[-1])[call["id"]]
        assert bool(result.get("is_error")) is not runs, result
    assert questions == ["Run this command?\necho hi > ran.txt"]


def test_middleware_empty_is_the_bare_loop(api, workspace):
    agent = Agent(
        client=fake_api_client(api.base_url), workspace=workspace, middleware=[], sandbox=False
    )
    assert kinds(agent) == [TurnLimit]
    assert sorted(agent.tools) == ["bash", "edit_file", "read_file", "write_file"]


def test_more_middleware_blocks_before_the_product_asks(api, workspace):
    asked: list[str] = []

    def ask(question: str) -> tuple[str, str]:
        asked.append(question)
        return "yes", ""

    push = tool_use("bash", {"command": "git push origin main"})
    status = tool_use("bash", {"command": "echo clean > status.txt"})
    api.add({"content": [push, status]})
    api.add({"content": [text("Committed locally.")]})
    agent = Agent(
        client=fake_api_client(api.base_url),
        workspace=workspace,
        sandbox=False,
        ask=ask,
        more_middleware=[NoPush()],
    )
    assert kinds(agent) == [NoPush, *product(agent)]
    run(agent.run("ship it"))
    results = results_by_id(api.accepted[1])
    assert results[push["id"]]["content"] == "Pushing is not allowed here; commit locally instead."
    assert asked == ["Run this command?\necho clean > status.txt"]  # never about the push
    assert (workspace / "status.txt").read_text() == "clean\n"


# ---- the CLI builds the same Agent ----------------------------------------------------------


@pytest.mark.parametrize("flags", [[], ["--no-sandbox", "--yes", "--context-window", "50000"]])
def test_the_cli_builds_the_same_agent_and_adds_only_the_terminal(
    api, env, workspace, monkeypatch, flags
):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ui = HeadlessUI(Console(file=io.StringIO()))
    args = parse_args([*flags, "-p", "task"])
    agent = build_agent(args, workspace, ui, headless=True)
    assert kinds(agent) == product(agent)
    assert {"todo_write", "task_output", "task_stop"} <= set(agent.tools)
    assert find_middleware(agent, TodoListMiddleware).on_change == ui.show_todos
    policy = find_middleware(agent, PermissionPolicy)
    assert policy.ask is None and policy.allow_all is ("--yes" in flags)
    window = find_middleware(agent, ContextManager).window
    assert window == (50000 if flags else context_window(agent.model))


# ---- the wire trace records every model call ---------------------------------------------------


def test_the_trace_records_compactions_call_too(api, make_agent, tmp_path):
    """wiretrace.py's diagram: Agent.stream writes the trace, for ask_model as for the loop."""
    api.add({"content": [text("notes")]})
    api.add({"content": [text("Done.")]})
    agent = make_agent()
    agent.trace = Trace(tmp_path / "trace.jsonl")
    assert run(agent.ask_model("Summarize.", "the transcript")) == "notes"
    run(agent.run("go"))
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    assert [line.count('"type": "request"') for line in lines] == [1, 0, 1, 0]


def test_tasks_give_bash_its_background_and_the_todo_list_its_wait(api, workspace, tmp_path):
    sandbox = NoSandbox()
    manager = TaskManager(tmp_path / "tasks", sandbox)
    agent = Agent(
        client=fake_api_client(api.base_url), workspace=workspace, sandbox=sandbox, tasks=manager
    )
    schemas = {tool.name: tool.schema()["input_schema"] for tool in agent.tools.values()}
    assert "run_in_background" in schemas["bash"]["properties"]
    assert "wait_for_tasks" in schemas["todo_write"]["properties"]
    assert {"task_output", "task_stop"} <= set(schemas)
    plain = Agent(client=fake_api_client(api.base_url), workspace=workspace, sandbox=sandbox)
    assert "wait_for_tasks" not in plain.tools["todo_write"].schema()["input_schema"]["properties"]
    assert "task_output" not in plain.tools


# ---- a changed bash is still the sandboxed bash -------------------------------------------


def changed_bash_tools() -> dict[str, Tool]:
    """bash as an extender changes it: a longer description, another name, a fresh make_bash()."""
    return {
        "described": dataclasses.replace(BASH, description=BASH.description + " Prefer rg."),
        "renamed": dataclasses.replace(BASH, name="shell"),
        "made": make_bash(),
    }


@pytest.mark.skipif(not SANDBOX_WORKS, reason="bubblewrap cannot start a sandbox here")
@pytest.mark.parametrize("kind", ["described", "renamed", "made"])
def test_a_changed_copy_of_bash_runs_in_the_agents_sandbox(api, workspace, outside, kind):
    tool = changed_bash_tools()[kind]
    a_git_repository(workspace)
    plant = "printf '\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config"
    call = tool_use(tool.name, {"command": f"echo pwned > {outside}; {plant}"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    agent = Agent(
        client=fake_api_client(api.base_url),
        workspace=workspace,
        tools=[tool, READ_FILE],
    )  # headless: nobody to ask, so a command that would need a question is refused
    run(agent.run("go"))
    result = results_by_id(api.accepted[-1])[call["id"]]
    assert "Read-only file system" in result["content"], result  # it ran, confined
    assert not outside.exists()
    assert (workspace / ".git" / "config").read_text() == GIT_CONFIG
    assert agent.tools[tool.name].description == tool.description  # the extender's own words


def test_a_tool_named_bash_that_runs_commands_its_own_way_is_asked_about(api, workspace):
    ran: list[str] = []

    def own_bash(workspace: Path, command: str) -> str:
        ran.append(command)
        return "ran"

    tool = Tool(
        name="bash",
        description="Run a command.",
        input_schema={
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
        handler=own_bash,
    )
    call = tool_use("bash", {"command": "touch x"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})
    agent = Agent(client=fake_api_client(api.base_url), workspace=workspace, tools=[tool])
    run(agent.run("go"))
    # Whether the agent has a sandbox or not, this bash does not spawn through it: headless,
    # nobody can approve it, so it does not run.
    assert ran == []
    result = results_by_id(api.accepted[-1])[call["id"]]
    assert result.get("is_error") and "bash is disabled" in result["content"], result
    if SANDBOX_WORKS:
        assert "does not run its commands in the agent's sandbox" in result["content"]


@pytest.mark.skipif(not SANDBOX_WORKS, reason="bubblewrap cannot make a sandbox here")
def test_agent_from_code_watches_the_workspace_from_the_start_as_the_terminal_does(api, workspace):
    # A key saved into a file while the first request is on its way is judged by this watch;
    # without it, nothing looks until the first command's own scan.
    import tools.between_commands as between

    Agent(client=fake_api_client(api.base_url), workspace=workspace)
    root = str(Path(workspace).resolve())
    try:
        assert root in between._watches
    finally:
        between.key_files_written_while_it_started(Path(root))


@pytest.mark.skipif(not SANDBOX_WORKS, reason="bubblewrap cannot make a sandbox here")
def test_agent_given_a_sandbox_watches_from_the_start_and_a_started_one_is_not_begun_again(
    api, workspace
):
    # The README's background-task form: `Agent(sandbox=sandbox, tasks=manager)`.
    import tools.between_commands as between
    from tools.sandbox import Bubblewrap
    from tools.tasks import TaskManager

    root = Path(workspace).resolve()
    sandbox = Bubblewrap()
    manager = TaskManager(Path(workspace).parent / "tasks", sandbox)
    client = fake_api_client(api.base_url)
    Agent(client=client, workspace=workspace, sandbox=sandbox, tasks=manager)
    try:
        assert str(root) in between._watches
        scans = []
        sandbox.before_command = lambda *args, **kwargs: scans.append(args)
        Agent(client=client, workspace=workspace, sandbox=sandbox, tasks=manager)
        assert scans == []  # begun once for this workspace (as the terminal does it)
    finally:
        between.key_files_written_while_it_started(root)


def test_agent_given_its_own_client_hides_and_redacts_that_clients_key(workspace, monkeypatch):
    # The key lives only in the embedder's client, not in the environment: it is planloop's
    # key all the same, kept out of what the model reads.
    import secrets

    from fakeapi import FakeMessagesAPI

    own_key = "sk-ant-api03-" + secrets.token_urlsafe(60)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    (workspace / "config").mkdir()
    (workspace / "config" / "local.json").write_text(json.dumps({"key": own_key}) + "\n")
    with FakeMessagesAPI(script=[], api_key=own_key) as api:
        call = tool_use("read_file", {"path": "config/local.json"})
        api.add({"content": [call]})
        api.add({"content": [text("Done.")]})
        client = fake_api_client(api.base_url, api_key=own_key)
        run(Agent(client=client, workspace=workspace, sandbox=False).run("go"))
        assert api.rejections == []
        result = results_by_id(api.accepted[-1])[call["id"]]
    assert own_key not in json.dumps(api.requests) and "[redacted]" in str(result)
