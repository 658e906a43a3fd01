"""The terminal front end: flags, the interactive prompt, headless runs, and what is shown.

    python agent.py                 interactive: streamed answers, live checklist, approvals
    python agent.py -p "TASK"       headless: progress on stderr, the answer on stdout
    python agent.py --resume [ID]   go on with a saved session of this folder

Errors a person reads are one line that says what to do; exit codes: 0 done, 1 error,
2 bad usage, 3 stopped early (turn limit), 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from dotenv import load_dotenv
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from agent import Agent
from middleware import BashApproval, ToolResult
from middleware.policies import Approval
from model import ModelError
from session import Session, SessionError, planloop_home
from todo import TodoListMiddleware
from todo.manager import MARKS

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
STYLES = {"pending": "", "in_progress": "bold yellow", "completed": "green"}
PREVIEW_LINES = 6


class UsageError(Exception):
    pass


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line saying what to do (no usage block)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see: python agent.py --help)")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineParser(prog="agent.py", description="A small coding agent with a plan.")
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        metavar="PROMPT",
        help="run one task headless ('-' reads it from stdin) and print the answer",
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="allow bash commands without asking (needed for bash in headless mode)",
    )
    parser.add_argument("--model", help="model id (default: $MODEL_ID or claude-sonnet-4-6)")
    parser.add_argument(
        "--max-turns",
        type=positive_int,
        default=200,
        metavar="N",
        help="model calls allowed per user input (default: 200)",
    )
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="latest",
        metavar="ID",
        help="continue the latest (or the given) session of this folder",
    )
    return parser.parse_args(argv)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


# ---- what the user sees ---------------------------------------------------------------------


def checklist(items: list[dict] | None) -> Panel:
    items = items or []
    lines = []
    for item in items:
        line = escape(f"{MARKS[item['status']]} {item['content']}")
        style = STYLES[item["status"]]
        lines.append(f"[{style}]{line}[/]" if style else line)
    done = sum(item["status"] == "completed" for item in items)
    body = "\n".join(lines) or "(no plan yet)"
    return Panel(body, title=f"todos {done}/{len(items)}", title_align="left", expand=False)


def describe_call(call: dict) -> str:
    args = call.get("input") or {}
    main = args.get("command") or args.get("path") if isinstance(args, dict) else None
    if call["name"] == "todo_write":
        return "todo_write"
    return f"{call['name']} {main}" if main else f"{call['name']} {json.dumps(args)[:80]}"


class TerminalUI:
    """Interactive output: streamed text, tool calls with a short preview, the checklist."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.in_text = False

    def stream_event(self, event: Any) -> None:
        if event.type == "text":
            self.console.out(event.text, end="", highlight=False)
            self.in_text = True
        elif event.type == "content_block_stop" and self.in_text:
            self.console.out("")
            self.in_text = False

    def notice(self, text: str) -> None:
        if self.in_text:  # a stream cut short (Ctrl-C, a retry) left the line open
            self.console.out("")
            self.in_text = False
        self.console.print(f"[yellow]! {escape(text)}[/]")

    def tool_started(self, call: dict) -> None:
        self.console.print(f"[cyan]> {escape(describe_call(call))}[/]")

    def tool_finished(self, call: dict, result: ToolResult) -> None:
        if call["name"] == "todo_write" and not result.is_error:
            return  # the checklist panel shows it
        lines = result.content.splitlines()
        shown = "\n".join(lines[:PREVIEW_LINES])
        more = f"\n… {len(lines) - PREVIEW_LINES} more lines" if len(lines) > PREVIEW_LINES else ""
        style = "red" if result.is_error else "dim"
        self.console.print(f"[{style}]{escape(shown + more)}[/]")

    def show_todos(self, items: list[dict]) -> None:
        self.console.print(checklist(items))

    def ask_bash_approval(self, command: str) -> Approval:
        """yes / no (with a reason for the model) / always; Ctrl-C here cancels the turn."""
        self.console.print(Panel(escape(command), title="run this command?", title_align="left"))
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            answer = input("[y]es / [n]o / [a]lways for this session: ").strip().lower()
            if answer in ("a", "always"):
                return "always", ""
            if answer in ("y", "yes"):
                return "yes", ""
            return "no", input("Reason for the model (optional): ").strip()
        except (KeyboardInterrupt, EOFError):
            self.console.print()
            return "interrupt", ""
        finally:
            signal.signal(signal.SIGINT, previous)


class HeadlessUI(TerminalUI):
    """Headless output: progress to stderr; the final answer is printed to stdout by the caller.

    Text is held back until it is clear it was not the final answer (a tool call or another
    model call follows), so the answer does not show up twice.
    """

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.held_text: list[str] = []  # text of complete replies, not yet shown
        self.streaming_text: list[str] = []  # text of the reply on its way in

    def stream_event(self, event: Any) -> None:
        if event.type == "message_start":
            self.streaming_text.clear()  # a retried stream starts over: drop the partial text
            self.show_held_text()
        elif event.type == "content_block_stop" and event.content_block.type == "text":
            self.streaming_text.append(event.content_block.text)
        elif event.type == "message_stop":
            self.held_text.extend(self.streaming_text)
            self.streaming_text.clear()

    def tool_started(self, call: dict) -> None:
        self.show_held_text()
        super().tool_started(call)

    def show_held_text(self) -> None:
        for text in self.held_text:
            self.console.print(f"[dim]{escape(text)}[/]")
        self.held_text.clear()


# ---- running ----------------------------------------------------------------------------------


async def run_input(agent: Agent, prompt: str) -> str:
    """One user input, with Ctrl-C cancelling just this turn."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, agent.cancel)
    try:
        return await agent.run(prompt)
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def interactive(agent: Agent, ui: TerminalUI, autosave: Autosave) -> int:
    console = ui.console
    console.print(f"[bold]planloop[/] · {agent.model} · {agent.workspace}")
    console.print(
        f"[dim]session {autosave.session.id} · /todos shows the plan · Ctrl-C cancels a turn, "
        "Ctrl-D exits[/]"
    )
    if agent.messages:
        console.print(f"[dim]resumed: {len(agent.messages)} messages so far[/]")
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
            if line == "/todos":
                console.print(checklist(agent.extra.get("todos")))
                continue
            try:
                runner.run(run_input(agent, line))
            except ModelError as err:
                if not err.temporary:
                    raise  # a bad key or a rejected request: one line and exit
                ui.notice(f"{err} Nothing is lost; type 'continue' to try again.")
                continue
            if agent.context.stop_reason:
                ui.notice(agent.context.stop_reason)
    save_history(history)
    note = autosave.closing_note(agent)
    if note:  # nothing to say when nothing was asked
        console.print(f"[dim]{escape(note)}[/]")
    return EXIT_OK


def headless(agent: Agent, prompt: str) -> int:
    answer = asyncio.run(run_input(agent, prompt))
    if answer:
        print(answer)
    if agent.context.stop_reason:
        print(f"planloop: {agent.context.stop_reason}", file=sys.stderr)
        interrupted = agent.signal.is_set()
        return EXIT_INTERRUPTED if interrupted else EXIT_STOPPED
    return EXIT_OK


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


def build_agent(args: argparse.Namespace, workspace: Path, ui: TerminalUI, headless: bool) -> Agent:
    agent: Agent | None = None
    middleware: list = [TodoListMiddleware(extra_ref=lambda: agent.extra, on_change=ui.show_todos)]
    if not args.yes:
        middleware.append(BashApproval(ask=None if headless else ui.ask_bash_approval))
    agent = Agent(
        model=args.model,
        workspace=workspace,
        middleware=middleware,
        max_turns=args.max_turns,
        ui=ui,
    )
    return agent


def main(argv: list[str] | None = None) -> None:
    sys.exit(run_cli(argv))


def run_cli(argv: list[str] | None = None) -> int:
    workspace = Path.cwd().resolve()
    autosave: Autosave | None = None
    agent: Agent | None = None
    try:
        load_env_file(workspace / ".env")
        args = parse_args(argv)
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
        else:
            session = Session(workspace)
        autosave = Autosave(session, ui)
        agent.checkpoint = autosave
        if is_headless:
            return headless(agent, prompt)
        return interactive(agent, ui, autosave)
    except UsageError as err:
        print(f"planloop: {err}", file=sys.stderr)
        return EXIT_USAGE
    except (ModelError, SessionError) as err:
        print(f"planloop: {err}{closing_note(autosave, agent)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(f"planloop: interrupted.{closing_note(autosave, agent)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:  # one line, no traceback; PLANLOOP_DEBUG=1 shows it
        if os.environ.get("PLANLOOP_DEBUG"):
            raise
        print(
            f"planloop: unexpected error: {type(err).__name__}: {err}"
            f"{closing_note(autosave, agent)}",
            file=sys.stderr,
        )
        return EXIT_ERROR


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

    def closing_note(self, agent: Agent) -> str:
        """Save one last time; say how to resume, or why that will not work."""
        if not agent.messages:
            return ""
        try:
            self.session.save(agent)
        except SessionError as err:
            return f"The session was not saved: {err}"
        return f"Session saved. Resume with: python agent.py --resume {self.session.id}"
