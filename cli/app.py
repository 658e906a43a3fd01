"""Flags, building the agent, and running it interactive or headless.

Errors a person reads are one line that says what to do; exit codes: 0 done, 1 error,
2 bad usage, 3 stopped early (turn limit), 130 interrupted (Ctrl-C), 143 and 129 ended by
SIGTERM and SIGHUP (see cli/signals.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path

from dotenv import load_dotenv
from rich.console import Console

from agent import Agent, Interrupted
from cli.flags import UsageError, command_name, parse_args
from cli.prompt import interactive
from cli.render import HeadlessUI, TerminalUI, print_error
from cli.sanitize import visible
from cli.signals import (
    Terminated,
    exit_status,
    install_fallback_handlers,
    turn_signals,
)
from cli.tasks import awaited_task_ids, task_results, tasks_killed_at_exit, wait_for_tasks
from middleware import PermissionPolicy, StaleWriteGuard
from middleware.context import ContextManager, context_window
from model import ModelError, preload_sdk
from session import Session, SessionError, sessions_dir
from todo import TodoListMiddleware
from tools import default_tools
from tools.sandbox import choose_sandbox
from tools.tasks import TaskManager, find_task_manager, stopped_on_exit_note
from view import find_session, write_view
from wiretrace import Trace, trace_path

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


# ---- running ----------------------------------------------------------------------------------


async def run_input(agent: Agent, prompt: str) -> tuple[str, int | None]:
    """One headless input: Ctrl-C, SIGTERM and SIGHUP cancel it; return the answer and the
    ending signal (SIGTERM or SIGHUP), if one came.

    A run that ends waiting for background tasks goes on when they end, with their results
    as a new input (cli/tasks.py); Ctrl-C stops the waiting. Tasks still running at the end
    are killed.
    """
    ending: list[int] = []

    def end(signum: int) -> None:
        ending.append(signum)
        agent.cancel()

    with turn_signals(agent.cancel, end):
        async with tasks_killed_at_exit(agent):
            answer = await agent.run(prompt)
            while not agent.context.stop_reason and (awaited := awaited_task_ids(agent)):
                if not await wait_headless(agent, awaited):
                    break
                answer = await agent.run(await task_results(find_task_manager(agent)))
    return answer, (ending[0] if ending else None)


async def wait_headless(agent: Agent, awaited: list[str]) -> bool:
    """Wait for the awaited tasks; False (with the reason noted) if Ctrl-C stopped the wait."""
    if isinstance(agent.ui, HeadlessUI):
        agent.ui.show_held_text()  # the run's last words come before the wait, not after it
    agent.ui.notice(f"Waiting for {', '.join(awaited)} to end (Ctrl-C stops waiting).")
    manager = find_task_manager(agent)
    try:
        await agent.until_cancelled(wait_for_tasks(manager, awaited))
    except Interrupted:
        agent.context.stop_reason = f"Interrupted while waiting for {', '.join(awaited)}."
        return False
    for task in manager.undelivered():
        agent.ui.notice(f"{task.id} {task.describe()}; its result goes to the model.")
    return True


def headless(
    agent: Agent, ui: HeadlessUI, prompt: str, autosave: Autosave, output_format: str
) -> int:
    """Progress on stderr, the answer (or one JSON object) on stdout, a closing line on stderr."""
    print(f"session {autosave.session.id}", file=sys.stderr)  # to resume it even after a crash
    try:
        answer, ending = asyncio.run(run_input(agent, prompt))
    finally:
        autosave.end_of_run(agent)
    interrupted = agent.signal.is_set()  # a partial answer is no answer: stdout stays empty
    if ending is not None:
        status, reason = exit_status(ending), f"{Terminated(ending)}."
    elif interrupted:
        status, reason = EXIT_INTERRUPTED, agent.context.stop_reason
    elif agent.context.stop_reason:
        status, reason = EXIT_STOPPED, agent.context.stop_reason
    else:
        status, reason = EXIT_OK, "done."
    if output_format == "json":
        answer_or_none = None if interrupted else answer
        print(json.dumps(run_summary(agent, ui, autosave, answer_or_none, reason)))
    elif answer and not interrupted:
        print(visible(answer))
    ui.show_totals()
    # A session that could not be saved was reported when it happened: do not say it twice.
    note = " The session was not saved." if autosave.failing else closing_note(autosave, agent)
    print_error(f"{reason}{note}")
    return status


def run_summary(
    agent: Agent, ui: HeadlessUI, autosave: Autosave, answer: str | None, reason: str
) -> dict:
    """What `--output-format json` prints: enough for a script to go on from here."""
    usage = ui.usage  # this run's replies added up; the cost is None for an unknown model
    return {
        "answer": answer,
        "session_id": autosave.session.id,
        "stop_reason": reason,
        "turns": agent.context.turn,
        "usage": {
            "input_tokens": usage.input,
            "cache_read_input_tokens": usage.cache_read,
            "cache_creation_input_tokens": usage.cache_write,
            "output_tokens": usage.output,
        },
        "cost_usd": usage.cost,
        "plan": agent.extra.get("todos") or [],
    }


def build_agent(args: argparse.Namespace, workspace: Path, ui: TerminalUI, headless: bool) -> Agent:
    agent: Agent | None = None
    sandbox, no_sandbox_reason = choose_sandbox(args.sandbox, args.allow_network)
    if no_sandbox_reason:
        fallback = "bash needs --yes" if headless else "commands ask before they run"
        ui.notice(
            f"bash runs without a sandbox: {no_sandbox_reason}; {fallback}. "
            "For the sandbox: apt-get install bubblewrap"
        )
    permissions = PermissionPolicy(
        ask=None if headless else ui.ask_approval,
        sandboxed=getattr(sandbox, "confines_writes", False),
        allow_all=args.yes,
    )
    # Background tasks: bash's run_in_background, task_output, task_stop, and the host that
    # validates task waits. Their output files go beside the session (run_cli sets the folder).
    tasks = TaskManager(sessions_dir(workspace), sandbox)
    middleware: list = [
        TodoListMiddleware(
            extra_ref=lambda: agent.extra,
            on_change=ui.show_todos,
            validate_task_wait=tasks.validate_task_wait,
        ),
        StaleWriteGuard(),  # before the permission question: no point asking, then refusing
        permissions,
    ]

    def compacted(text: str) -> None:
        ui.notice(text)
        if isinstance(agent.checkpoint, Autosave):
            agent.checkpoint.compacted(agent, text)

    context = ContextManager(
        lambda: agent.context,
        lambda system, prompt: agent.ask_model(system, prompt),
        on_compact=compacted,
    )
    middleware.append(context)  # last, so it shapes the final request
    agent = Agent(
        model=args.model,
        workspace=workspace,
        tools=default_tools(sandbox, tasks),
        middleware=middleware,
        max_turns=args.max_turns,
        ui=ui,
    )
    context.window = args.context_window or context_window(agent.model)
    return agent


def main(argv: list[str] | None = None) -> None:
    sys.exit(run_cli(argv))


def run_cli(argv: list[str] | None = None) -> int:
    workspace = Path.cwd().resolve()
    autosave: Autosave | None = None
    agent: Agent | None = None
    try:
        install_fallback_handlers()
        load_env_file(workspace / ".env")
        args = parse_args(argv)
        if args.view or args.demo:  # tools for learning: no key, no agent of this folder
            return learning_tool(args, workspace)
        preload_sdk()  # loads while the agent is built, or while the user types
        prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
        if args.prompt is not None and not (prompt or "").strip():
            raise UsageError("the prompt is empty (give a task after -p)")
        is_headless = prompt is not None
        ui_class = HeadlessUI if is_headless else TerminalUI
        ui = ui_class(Console(stderr=is_headless, highlight=False))
        agent = build_agent(args, workspace, ui, is_headless)
        if args.resume:
            session = (
                Session.latest(workspace)
                if args.resume == "latest"
                else Session(workspace, args.resume)
            )
            session.load_into(agent)
            for note in session.notes:
                ui.notice(note)
        else:
            session = Session(workspace)
        autosave = Autosave(session, ui)
        agent.checkpoint = autosave
        find_task_manager(agent).folder = session.path.with_suffix(".tasks")
        if args.trace:
            secrets = [os.environ.get("ANTHROPIC_API_KEY"), os.environ.get("ANTHROPIC_AUTH_TOKEN")]
            agent.trace = Trace(trace_path(session.path, session.id), secrets)
        if is_headless:
            return headless(agent, ui, prompt, autosave, args.output_format)
        return interactive(agent, ui, autosave)
    except UsageError as err:
        print_error(str(err))
        return EXIT_USAGE
    except (ModelError, SessionError) as err:
        print_error(f"{err}{closing_note(autosave, agent)}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        print_error(f"interrupted.{closing_note(autosave, agent)}")
        return EXIT_INTERRUPTED
    except Terminated as ended:
        note = closing_note(autosave, agent)  # saves first: the terminal may be gone (SIGHUP)
        with contextlib.suppress(OSError):
            print_error(f"{ended}.{note}")
        return exit_status(ended.signum)
    except Exception as err:  # one line, no traceback; PLANLOOP_DEBUG=1 shows it
        if os.environ.get("PLANLOOP_DEBUG"):
            raise
        print_error(f"unexpected error: {type(err).__name__}: {err}{closing_note(autosave, agent)}")
        return EXIT_ERROR


def learning_tool(args: argparse.Namespace, workspace: Path) -> int:
    """--view writes a session's page and prints its path; --demo plays the offline demo."""
    if args.demo:
        from demo import run_demo

        return run_demo(Console(highlight=False))
    print(write_view(find_session(workspace, args.view)))
    return EXIT_OK


def load_env_file(path: Path) -> None:
    """Read the workspace's .env; variables already set in the environment win."""
    try:
        load_dotenv(path, override=False)
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path} ({err}); it must be UTF-8 text") from None


def closing_note(autosave: Autosave | None, agent: Agent | None) -> str:
    """The tail of a one-line error: where the session is, if there is one."""
    if autosave is None or agent is None:
        return ""
    note = autosave.closing_note(agent)
    return f" {note}" if note else ""


class Autosave:
    """The agent's checkpoint: save the session after every step.

    A failed save (a full disk, a read-only home) is reported once and the run goes on:
    stopping would lose the work in flight, which is worse than an unsaved session.
    """

    def __init__(self, session: Session, ui: TerminalUI) -> None:
        self.session = session
        self.ui = ui
        self.failing = False

    def __call__(self, agent: Agent) -> None:
        try:
            self.session.save(agent)
        except SessionError as err:
            if not self.failing:
                self.ui.notice(f"{err} Going on without saving.")
            self.failing = True
        else:
            self.failing = False

    def end_of_run(self, agent: Agent) -> None:
        """Note why a run stopped early, then make what it wrote durable (once per run).

        A failure here (a full disk) is not the end: the session then forgets its file and the
        next save writes the whole log again, and that save reports whether it worked.
        """
        with contextlib.suppress(SessionError):
            if agent.context.stop_reason:
                self.session.note(agent.context.stop_reason)
            self.session.sync_to_disk()

    def compacted(self, agent: Agent, text: str) -> None:
        """Save the compaction (it lives in extra), note it in the log, make it durable."""
        self(agent)
        if not self.failing:
            with contextlib.suppress(OSError, SessionError):
                self.session.note(text)
                self.session.sync_to_disk()

    def start_new(self, agent: Agent) -> None:
        """Go on in a fresh session; the current one stays on disk as it is."""
        self.session.close()
        self.session = Session(self.session.workspace)
        agent.messages.clear()
        agent.extra.clear()

    def closing_note(self, agent: Agent) -> str:
        """Save one last time; say how to resume, or why that will not work. Name the
        background tasks planloop stopped on its way out, if any."""
        notes = [stopped_on_exit_note(agent)]
        if agent.messages:
            try:
                self.session.save(agent)
                self.session.close()
            except SessionError as err:
                notes.append(f"The session was not saved: {err}")
            else:
                notes.append(
                    f"Session saved. Resume with: {command_name()} --resume {self.session.id}"
                )
        return " ".join(note for note in notes if note)
