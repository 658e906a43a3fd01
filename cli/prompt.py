"""The interactive prompt: read a line, run it as one user input, repeat.

Lines starting with a slash are commands for planloop itself (see SLASH_COMMANDS); every
other line goes to the model. Ctrl-C during a turn cancels only that turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import Interrupted
from cli.render import TerminalUI, checklist, permission_table
from middleware import PermissionPolicy
from middleware.context import context_status, find_context_manager
from model import ModelError
from session import list_sessions, planloop_home

if TYPE_CHECKING:
    from agent import Agent
    from cli.app import Autosave

EXIT_OK = 0


def show_todos(agent: Agent, ui: TerminalUI, line: str) -> None:
    ui.console.print(checklist(agent.extra.get("todos")))


async def compact(agent: Agent, ui: TerminalUI, line: str) -> None:
    """/compact [focus]: replace the conversation so far with notes, now."""
    manager = find_context_manager(agent)
    if manager is None:
        ui.notice("This agent has no context management.")
        return
    focus = line.removeprefix("/compact").strip()
    agent.context.signal = asyncio.Event()  # a Ctrl-C of an earlier turn must not stop this one
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        compacted = await manager.compact(list(agent.messages), focus)
    except (ModelError, Interrupted) as err:
        ui.notice(f"Not compacted: {err or 'interrupted'}. Nothing is lost.")
        return
    finally:
        loop.remove_signal_handler(signal.SIGINT)
    if not compacted:
        ui.notice("Nothing to compact yet.")


def show_permissions(agent: Agent, ui: TerminalUI, line: str) -> None:
    policies = [m for m in agent.hooks.middlewares if isinstance(m, PermissionPolicy)]
    if not policies:
        ui.print_line("No permission policy: every tool call runs.")
        return
    ui.console.print(permission_table(policies[0].rules()))


def show_cost(agent: Agent, ui: TerminalUI, line: str) -> None:
    if ui.usage.replies:
        ui.show_totals()
    else:
        ui.print_line("No model calls yet in this session.", "dim")


async def run_input(agent: Agent, prompt: str) -> str:
    """One user input, with Ctrl-C cancelling just this turn."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        return await agent.run(prompt)
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        if isinstance(agent.ui, TerminalUI):
            agent.ui.stop_progress()  # also after an error, before it is printed


def show_sessions(agent: Agent, ui: TerminalUI, line: str) -> None:
    current = getattr(agent.checkpoint, "session", None)
    summaries = list_sessions(agent.workspace)
    if not summaries:
        ui.print_line("(no saved sessions for this folder yet)", "dim")
    for summary in summaries:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(summary.modified))
        plan = f" · todos {summary.todos_done}/{summary.todos_total}" if summary.todos_total else ""
        mark = "*" if current is not None and current.id == summary.id else " "
        prompt = " ".join(summary.first_prompt.split())[:60]
        ui.print_line(f"{mark} {summary.id}  {when}  {summary.messages} messages{plan}  {prompt}")


def clear_session(agent: Agent, ui: TerminalUI, line: str) -> None:
    autosave = agent.checkpoint
    old_id = autosave.session.id
    autosave.start_new(agent)
    ui.print_line(
        f"New session {autosave.session.id}; {old_id} stays on disk "
        f"(python agent.py --resume {old_id}).",
        "dim",
    )


# Slash commands: name -> handler(agent, ui, line). Add a command by adding an entry;
# a handler may be async (it then runs on the prompt's event loop).
SLASH_COMMANDS: dict[str, Callable[[Agent, TerminalUI, str], Any]] = {
    "/todos": show_todos,
    "/sessions": show_sessions,
    "/clear": clear_session,
    "/compact": compact,
    "/permissions": show_permissions,
    "/cost": show_cost,
}


def interactive(agent: Agent, ui: TerminalUI, autosave: Autosave) -> int:
    console = ui.console
    ui.print_line(f"planloop · {agent.model} · {agent.workspace}", "bold")
    console.print(
        f"[dim]session {autosave.session.id} · /todos shows the plan · /sessions, /clear · "
        "Ctrl-C cancels a turn, "
        "Ctrl-D exits[/]"
    )
    if agent.messages:
        ui.print_line(f"resumed: {len(agent.messages)} messages so far", "dim")
        if agent.extra.get("todos"):
            console.print(checklist(agent.extra["todos"]))
    history = load_history()
    with asyncio.Runner() as runner:
        while True:
            try:
                line = input("\n› ").strip()
            except (EOFError, KeyboardInterrupt):
                console.print()
                break
            if not line:
                continue
            if line in ("/exit", "/quit"):
                break
            command = SLASH_COMMANDS.get(line.split()[0]) if line.startswith("/") else None
            if command is not None:
                outcome = command(agent, ui, line)
                if asyncio.iscoroutine(outcome):
                    runner.run(outcome)
                continue
            try:
                runner.run(run_input(agent, line))
            except ModelError as err:
                if not err.temporary:
                    raise  # a bad key or a rejected request: one line and exit
                ui.notice(f"{err} Nothing is lost; type 'continue' to try again.")
                continue
            finally:
                autosave.end_of_run(agent)
            if agent.context.stop_reason:
                ui.notice(agent.context.stop_reason)
            show_context_status(agent, ui)
    save_history(history)
    ui.show_closing(autosave.closing_note(agent))  # empty when nothing was asked
    return EXIT_OK


def show_context_status(agent: Agent, ui: TerminalUI) -> None:
    status = context_status(agent)
    if status:
        ui.print_line(status, "dim")


def load_history() -> Path | None:
    try:
        import readline  # line editing and ↑ history for input(), where available
    except ImportError:
        return None
    path = planloop_home() / "history"
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    return path


def save_history(path: Path | None) -> None:
    if path is None:
        return
    import readline

    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        readline.set_history_length(1000)
        readline.write_history_file(path)
