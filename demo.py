"""`python agent.py --demo`: a scripted session, played offline, with no key.

    scripted model (DEMO_STEPS) --> fakeapi on 127.0.0.1 <--real SDK-- Agent.run (real loop)
                                          |                               |
                              narration: what the request            real tools in a
                              showed, and which file did it          temporary folder

Everything but the model is real: the loop, the middlewares, the tools and the SDK. The
model's side is a list of replies, served by the project's own fake Messages API, which also
refuses any request the real API would refuse. Before each reply, a narration line says what
the request that just arrived shows (a reminder after the tool results, a correction from the
finalization guard) and which file of planloop put it there.

The session and its trace are saved in the temporary folder; the last line prints the command
that turns them into a page (`--view`). PLANLOOP_DEMO_FAST=1 skips the pauses (for tests).
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from agent import Agent
from cli.autosave import Autosave
from cli.flags import command_name
from cli.render import TerminalUI
from fakeapi import FakeMessagesAPI, text, tool_use
from session import Session
from todo import TodoListMiddleware
from wiretrace import Trace, trace_path

DEMO_KEY = "demo-key-for-the-local-fake"  # the fake checks a key; no real key is involved
PAUSE_SECONDS = 1.6  # the model "thinking" between calls, so a person can follow
TASK = "Add a function greet(name) in greet.py with a test, and make the test pass."

GREET = 'def greet(name):\n    return "Hello " + name\n'
TEST = (
    "from greet import greet\n\n"
    'assert greet("Ada") == "Hello, Ada!", greet("Ada")\n'
    'print("ok: greet works")\n'
)


def plan(*statuses: str) -> dict:
    steps = ["Write greet.py", "Write test_greet.py", "Run the test until it passes"]
    return {"todos": [{"content": c, "status": s} for c, s in zip(steps, statuses, strict=True)]}


# Each step: the reply the model sends, and a function that narrates the request it answers.
# The narration reads the request as it arrived, so it says what really went over the wire.


def first_call(body: dict) -> str:
    names = ", ".join(tool["name"] for tool in body["tools"])
    return (
        f"→ call 1: the system prompt, {len(body['tools'])} tools ({names}) and the task. "
        "The todo rules were appended to the system prompt by todo/middleware.py; "
        "the request is built in agent.py (Agent.call_model)."
    )


def plan_stored(body: dict) -> str:
    return (
        "↳ todo_write checked the plan and stored it in agent.extra['todos']: todo/manager.py. "
        f"{results_summary(body)}"
    )


def said(line: str) -> Callable[[dict], str]:
    return lambda body: line


def reminder_added(body: dict) -> str:
    # The API wants tool results first in a user message; a reminder can only come after them.
    blocks = body["messages"][-1]["content"]
    kinds = [b["type"] if b["type"] != "text" else added_kind(b["text"]) for b in blocks]
    if "reminder" not in kinds:
        return "↳ (no reminder arrived in this request)"
    return (
        "↳ three calls without a plan update: the reminder was added after the tool results "
        f"({' + '.join(kinds)}): todo/middleware.py"
    )


def guard_corrected(body: dict) -> str:
    blocks = body["messages"][-1]["content"]
    if not any(b["type"] == "text" and "about to finish" in b["text"] for b in blocks):
        return "↳ (no correction arrived in this request)"
    return (
        "↳ the model answered with open items; the finalization guard sent them back instead "
        "of ending the turn: todo/middleware.py (finalization_guard)"
    )


DEMO_STEPS: list[tuple[Callable[[dict], str], dict]] = [
    (
        first_call,
        {
            "content": [
                text("I'll plan this first."),
                tool_use("todo_write", plan("in_progress", "pending", "pending")),
            ]
        },
    ),
    (plan_stored, {"content": [tool_use("write_file", {"path": "greet.py", "content": GREET})]}),
    (
        said(
            "↳ write_file ran inside the workspace (tools/files.py); its result is the first "
            "block of this request (agent.py: Agent.run_tools)"
        ),
        {"content": [tool_use("write_file", {"path": "test_greet.py", "content": TEST})]},
    ),
    (
        said(
            "↳ two calls since the plan was written; at three, planloop reminds the model "
            "(todo/middleware.py counts them in extra['todo_stale_iterations'])"
        ),
        {"content": [tool_use("bash", {"command": "python3 test_greet.py"})]},
    ),
    (
        reminder_added,
        {
            "content": [
                text("The test fails: the comma and the '!' are missing. Updating the plan."),
                tool_use("todo_write", plan("completed", "completed", "in_progress")),
                tool_use("read_file", {"path": "greet.py"}),
            ]
        },
    ),
    (
        said(
            "↳ the plan update set the count back to 0; read_file sent the file with line "
            "numbers: tools/files.py"
        ),
        {
            "content": [
                tool_use(
                    "edit_file",
                    {
                        "path": "greet.py",
                        "old_text": '"Hello " + name',
                        "new_text": 'f"Hello, {name}!"',
                    },
                )
            ]
        },
    ),
    (
        said(
            "↳ edit_file replaced exactly one match (it refuses an ambiguous one): tools/files.py"
        ),
        {"content": [tool_use("bash", {"command": "python3 test_greet.py"})]},
    ),
    (
        said("↳ bash ran the test in the workspace and sent back its exit code: tools/bash.py"),
        {"content": [text("greet() works and its test passes.")]},
    ),
    (
        guard_corrected,
        {"content": [tool_use("todo_write", plan("completed", "completed", "completed"))]},
    ),
    (plan_stored, {"content": [text("Done: greet.py has greet(name), and test_greet.py passes.")]}),
]


def results_summary(body: dict) -> str:
    """What the last user message carried back: one short phrase per tool result."""
    phrases = []
    for block in body["messages"][-1]["content"]:
        if block["type"] == "tool_result":
            content = block.get("content")
            output = content if isinstance(content, str) else json.dumps(content)
            first_line = (output.strip().splitlines() or [""])[0][:60]
            state = "error" if block.get("is_error") else "result"
            phrases.append(f"{state} «{first_line}»")
    return "; ".join(phrases) or "no tool results"


def added_kind(text_value: str) -> str:
    return "reminder" if text_value.lstrip().startswith("<reminder>") else "text"


def estimated_usage(body: dict, previous_size: list[int]) -> dict:
    """Plausible cache figures (four characters a token): the last request's prefix is read."""
    size = len(json.dumps(body)) // 4
    read = min(previous_size[0], size)
    previous_size[0] = size
    return {
        "input_tokens": 3,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": size - read,
    }


def scripted_model(narrate: Callable[[str], None], pause: float) -> list[Callable[[dict], dict]]:
    """The fake's script: narrate the request, wait a little, answer with the next reply."""
    previous_size = [0]

    def step(describe: Callable[[dict], str], reply: dict) -> Callable[[dict], dict]:
        def answer(body: dict) -> dict:
            narrate(describe(body))
            time.sleep(pause)
            return {**reply, "usage": estimated_usage(body, previous_size)}

        return answer

    return [step(describe, reply) for describe, reply in DEMO_STEPS]


def run_demo(console: Console) -> int:
    """Play the demo in a temporary folder; 0 when every scripted call was served and valid."""
    root = Path(tempfile.mkdtemp(prefix="planloop-demo-"))
    workspace = root / "project"
    workspace.mkdir()
    os.environ["PLANLOOP_HOME"] = str(root / "home")  # the session stays in the demo folder
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        os.environ.pop(name, None)  # no real key is needed, so none is sent, not even locally
    pause = 0.0 if os.environ.get("PLANLOOP_DEMO_FAST") else PAUSE_SECONDS

    def narrate(line: str) -> None:
        console.print(f"[dim]{escape(line)}[/]")

    # The first lines come at once: loading the SDK takes seconds on a cold start, and a
    # blank screen that long looks like a hang.
    narrate(f"planloop demo: a scripted model, the real loop and tools, in {workspace}")
    console.print(f"[bold]you>[/] {escape(TASK)}")
    with console.status("[dim]loading the Anthropic SDK…[/]"):
        import anthropic

    ui = TerminalUI(console, workspace)  # diffs read the files of the demo folder
    with FakeMessagesAPI(scripted_model(narrate, pause), api_key=DEMO_KEY) as api:
        client = anthropic.AsyncAnthropic(api_key=DEMO_KEY, base_url=api.base_url, max_retries=0)
        agent: Agent | None = None
        todos = TodoListMiddleware(extra_ref=lambda: agent.extra, on_change=ui.show_todos)
        # No approval middleware: the demo's own commands run without asking.
        agent = Agent(
            client=client, model="scripted-demo", workspace=workspace, middleware=[todos], ui=ui
        )
        session = Session(workspace)
        agent.checkpoint = Autosave(session, ui)
        agent.trace = Trace(trace_path(session.path, session.id), [DEMO_KEY])
        asyncio.run(agent.run(TASK))
        problems = api.rejections + ([f"{api.remaining} replies unused"] if api.remaining else [])
    if problems:
        console.print(f"[red]The demo did not go as scripted: {escape('; '.join(problems))}[/]")
        return 1
    narrate(
        f"✓ {len(api.accepted)} model calls, all accepted by the strict fake API. "
        f"Session and trace: {session.path.parent}. (Token figures are the fake's estimates, "
        "four characters a token.)"
    )
    console.print(f"See it as a page:  {command_name()} --view {session.path}", soft_wrap=True)
    return 0
