"""The interactive session: read a prompt, run it as one user input, repeat.

    › prompt ──> a slash command? ──yes──> run it here (/help lists them)
                       │ no
                       v
                  agent.run(prompt)        Ctrl-C cancels just this run

In a terminal the prompt is prompt_toolkit's: a paste is one prompt however many lines it
has (bracketed paste), Alt-Enter (or Esc, then Enter) starts a new line, and ↑ recalls
earlier prompts, kept in planloop's home (approval answers are read elsewhere and never
enter it). Piped stdin is read a line at a time.

Tab completes a slash command, and a path after `@` (cli/completion.py); a mistyped
command is refused with the nearest one. A line starting with `//` or a space is a message,
not a command: `//etc/hosts is odd` sends `/etc/hosts is odd`.

Ctrl-C at the prompt drops a line with text (it stays on the screen; a fresh prompt follows);
on an empty line it arms the exit, and a second one within 2 seconds leaves. Every signal is
handled on the event loop (cli/signals.py), so one that comes just as the prompt appears is
not lost: it reaches the prompt, or the run, whichever is going on.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent import Interrupted
from cli.autosave import Autosave
from cli.completion import make_completer, nearest_command
from cli.context_view import loaded_instructions_line, show_context
from cli.flags import command_name
from cli.mentions import MentionError, attach_to_prompt
from cli.model_command import MODEL_KEY, switch_model
from cli.output import output_command
from cli.permissions_view import permissions_command
from cli.render import TerminalUI, checklist, own_words, plan_history
from cli.resume_view import show_where_you_were
from cli.signals import Terminated, blocking_read, run_on_a_new_loop, run_signals, terminated_by
from cli.tasks import (
    IdleWatch,
    confirm_leaving,
    killing_tasks_at_exit,
    read_unless_results_come,
    tasks_command,
    with_task_results,
)
from cli.undo import undo_command
from middleware import CancelSignal
from middleware.context import find_context_manager
from model import ModelError
from session import list_sessions, make_private_folder, planloop_home
from tools.tasks import find_task_manager

if TYPE_CHECKING:
    from agent import Agent

EXIT_OK = 0
PROMPT = "› "
SECOND_CTRL_C_SECONDS = 2.0
NEWLINE_KEY = "Alt-Enter"


@dataclass(frozen=True)
class SlashCommand:
    """A command for planloop itself: a one-line description for /help, and what it does."""

    description: str
    run: Callable[[Agent, TerminalUI, str], Any]  # may be async: Ctrl-C then cancels it, as a run


class EndSession(Exception):
    """Raised by /exit: leave the prompt, save the session, say how to resume."""


class LineCleared(Exception):
    """Ctrl-C on a line with text: drop the line, read a fresh one; the exit is not armed."""


def show_help(agent: Agent, ui: TerminalUI, line: str) -> None:
    width = max(len(name) for name in SLASH_COMMANDS)
    for name, command in SLASH_COMMANDS.items():
        ui.print_line(f"  {name:{width}}  {command.description}")
    ui.print_line(
        f"{NEWLINE_KEY} (or Esc, then Enter) starts a new line · ↑ recalls a prompt · "
        "Tab completes a /command or an @path (@path attaches that file) · Ctrl-C cancels a "
        "run, clears the line, and twice on an empty line leaves",
        "dim",
    )
    ui.print_line(
        "A line starting with // or a space is sent as a message: //etc/hosts is odd sends "
        "/etc/hosts is odd",
        "dim",
    )


def show_todos(agent: Agent, ui: TerminalUI, line: str) -> None:
    """/todos: the plan; /todos --history: how it got there, one entry per accepted write."""
    if line.split()[1:] == ["--history"]:
        ui.console.print(plan_history(agent.extra.get("todo_history")))
        return
    ui.console.print(checklist(agent.extra.get("todos")))


async def compact(agent: Agent, ui: TerminalUI, line: str) -> None:
    """/compact [focus]: replace the conversation so far with notes, now."""
    manager = find_context_manager(agent)
    if manager is None:
        ui.notice("This agent has no context management.")
        return
    focus = line.removeprefix("/compact").strip()
    agent.context.signal = CancelSignal()  # a Ctrl-C of an earlier run must not stop this one
    try:  # cancelled as a run is: Ctrl-C reaches agent.cancel (see SignalRouter)
        compacted = await manager.compact(list(agent.messages), focus)
    except (ModelError, Interrupted) as err:
        ui.notice(f"Not compacted: {err or 'interrupted'}. Nothing is lost.")
        return
    if not compacted:
        ui.notice("Nothing to compact yet.")


def toggle_thinking(agent: Agent, ui: TerminalUI, line: str) -> None:
    """/thinking: show the model's thinking in full, or folded to its first line."""
    ui.thinking_in_full = not ui.thinking_in_full
    shown = "in full" if ui.thinking_in_full else "folded to its first line"
    ui.print_line(f"Thinking is shown {shown}; the model thinks: {agent.thinking}.", "dim")


def show_cost(agent: Agent, ui: TerminalUI, line: str) -> None:
    if ui.usage.replies:
        ui.show_totals()
    else:
        ui.print_line("No model calls yet in this session.", "dim")


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
    chosen_model = agent.extra.get(MODEL_KEY)
    autosave.start_new(agent)
    if chosen_model:  # a /model choice goes on in the new session, and its --resume
        agent.extra[MODEL_KEY] = chosen_model
    ui.print_line(
        f"New session {autosave.session.id}; {old_id} stays on disk "
        f"({command_name()} --resume {old_id}).",
        "dim",
    )


def end_session(agent: Agent, ui: TerminalUI, line: str) -> None:
    raise EndSession


# Slash commands: name -> SlashCommand(description, handler(agent, ui, line)).
# Add a command by adding an entry; /help lists them in this order.
SLASH_COMMANDS: dict[str, SlashCommand] = {
    "/help": SlashCommand("list these commands", show_help),
    "/todos": SlashCommand("show the plan; /todos --history shows how it changed", show_todos),
    "/sessions": SlashCommand("list the saved sessions of this folder", show_sessions),
    "/clear": SlashCommand("start a new session; the old one stays on disk", clear_session),
    "/compact": SlashCommand("sum up the conversation so far: /compact [focus]", compact),
    "/permissions": SlashCommand("what asks, your rules; forget N, save N", permissions_command),
    "/cost": SlashCommand("show the tokens and cost of this session", show_cost),
    "/context": SlashCommand("how full the context window is, and what fills it", show_context),
    "/thinking": SlashCommand("show thinking in full, or folded again", toggle_thinking),
    "/undo": SlashCommand("put back the files the last input changed (asks first)", undo_command),
    "/model": SlashCommand(
        "show the model; /model NAME switches from the next input", switch_model
    ),
    "/tasks": SlashCommand("list the background tasks; /tasks show|stop ID", tasks_command),
    "/output": SlashCommand("page the last result (Ctrl-O); /output N: N back", output_command),
    "/exit": SlashCommand("save the session and leave (also /quit or Ctrl-D)", end_session),
    "/quit": SlashCommand("the same as /exit", end_session),
}


# ---- where a signal goes ------------------------------------------------------------------


class SignalRouter:
    """Sends each signal to what is going on: a run, the prompt, or the next prompt."""

    def __init__(self) -> None:
        self.running: Agent | None = None  # set while a run goes on
        self.prompt_app: Any = None  # prompt_toolkit's Application while it reads a prompt
        self.pending_ctrl_c = False  # came between a run and the prompt
        self.ending: int | None = None  # SIGTERM or SIGHUP: end the session
        self.last_ctrl_c_at_prompt = float("-inf")

    def ctrl_c(self) -> None:
        if self.running is not None:
            self.running.cancel()
        elif self.prompt_is_reading():
            self.prompt_app.key_processor.send_sigint()  # its Ctrl-C key: clears the line
        else:
            self.pending_ctrl_c = True

    def end(self, signum: int) -> None:
        self.ending = signum
        if self.running is not None:
            self.running.cancel(terminated_by(signum))
        elif self.prompt_is_reading():
            self.prompt_app.exit(exception=EOFError())

    def prompt_is_reading(self) -> bool:
        app = self.prompt_app
        return app is not None and app.is_running and not app.future.done()

    def second_ctrl_c_at_prompt(self) -> bool:
        """Count a Ctrl-C at the prompt; True when it is the second within 2 seconds."""
        now = time.monotonic()
        second = now - self.last_ctrl_c_at_prompt < SECOND_CTRL_C_SECONDS
        self.last_ctrl_c_at_prompt = now
        return second


# ---- reading a prompt ---------------------------------------------------------------------


class TerminalInput:
    """prompt_toolkit's prompt: multi-line paste, a newline key, history of prompts only, Tab
    completion, and Ctrl-C that drops a typed line before it arms the exit."""

    def __init__(self, signals: SignalRouter, workspace: Path) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings

        self.signals = signals
        bindings = KeyBindings()

        @bindings.add("escape", "enter")  # what Alt-Enter sends in most terminals
        def _newline(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        # Ctrl-O on an empty line runs /output: the last tool call's whole result, one key away.
        @bindings.add("c-o")
        def _output(event: Any) -> None:
            if not event.current_buffer.text:
                event.current_buffer.text = "/output"
                event.current_buffer.validate_and_handle()

        # The key (in raw mode the terminal sends it as a byte) and SIGINT (SignalRouter passes
        # it on) both come here. On a line with text it ends that line as a shell does: the
        # text stays on the screen (to copy back) and a fresh prompt follows. Only Ctrl-C on
        # an empty line counts towards leaving, so clearing a half-typed prompt is never one
        # key from losing the session.
        @bindings.add("c-c")
        @bindings.add("<sigint>")
        def _ctrl_c(event: Any) -> None:
            empty = not event.current_buffer.text.strip()
            event.app.exit(exception=KeyboardInterrupt if empty else LineCleared)

        history_file = planloop_home() / "prompt-history"
        try:
            make_private_folder(history_file.parent)
            history_file.touch(mode=0o600)  # what you typed is yours alone
            history_file.chmod(0o600)  # also a history written before with 0644
            history = FileHistory(str(history_file))
        except OSError:  # a read-only home: history for this session only
            history = InMemoryHistory()
        self.session: Any = PromptSession(
            history=history,
            key_bindings=bindings,
            prompt_continuation="  ",
            completer=make_completer(workspace, SLASH_COMMANDS),
            complete_while_typing=False,  # Tab asks; typing alone never opens a menu
        )
        self.draft = ""  # a prompt put aside while a task's result went to the model

    async def read(self) -> str | None:
        """The next prompt; None if put aside; KeyboardInterrupt for Ctrl-C, EOFError to leave."""
        if self.signals.pending_ctrl_c:
            self.signals.pending_ctrl_c = False
            raise KeyboardInterrupt
        self.signals.prompt_app = self.session.app
        draft, self.draft = self.draft, ""
        try:
            # The signals stay with SignalRouter, which passes a Ctrl-C on to the prompt.
            return await self.session.prompt_async(PROMPT, handle_sigint=False, default=draft)
        finally:
            self.signals.prompt_app = None

    def is_reading(self) -> bool:
        return self.signals.prompt_is_reading()

    async def show_above(self, show: Callable[[], None]) -> None:
        """Print above the prompt being read, which is then drawn again as it was."""
        from prompt_toolkit.application import run_in_terminal

        await run_in_terminal(show)

    def put_aside(self) -> None:
        """End the read with None; what was typed comes back at the next read."""
        self.draft = self.session.default_buffer.text
        self.session.app.exit(result=None)


class PipedInput:
    """stdin that is not a terminal (a script, a test): one prompt per line."""

    def __init__(self, signals: SignalRouter) -> None:
        self.signals = signals

    async def read(self) -> str:
        if self.signals.pending_ctrl_c:
            self.signals.pending_ctrl_c = False
            raise KeyboardInterrupt
        with blocking_read():
            return input(f"\n{PROMPT}")

    # The read blocks the event loop: nothing can end it early or print above it.
    def is_reading(self) -> bool:
        return True

    async def show_above(self, show: Callable[[], None]) -> None:
        show()

    def put_aside(self) -> None:
        pass


# ---- the session --------------------------------------------------------------------------


def interactive(agent: Agent, ui: TerminalUI, autosave: Autosave) -> int:
    """Run prompts until the user leaves; return the exit status."""
    ui.print_line(f"planloop · {agent.model} · {agent.workspace}", "bold")
    ui.print_line(
        f"session {autosave.session.id} · /help lists the commands · {NEWLINE_KEY} for a new "
        "line · Ctrl-C cancels a run, twice on an empty line leaves · Ctrl-D exits",
        "dim",
    )
    if loaded := loaded_instructions_line(agent):
        ui.print_line(loaded, "dim")
    if agent.messages:
        show_where_you_were(agent, ui)
    signals = SignalRouter()
    ending = run_on_a_new_loop(killing_tasks_at_exit(agent, prompt_loop(agent, ui, signals)))
    if ending is not None:
        raise Terminated(ending)  # run_cli prints the closing note and exits 128 + the signal
    ui.show_closing(autosave.closing_note(agent))  # empty when nothing was asked
    report = getattr(getattr(agent, "sandbox", None), "closing_report", None)
    if report and report():
        ui.print_line(own_words(report()), "yellow")  # new .env / .git files, named again
    return EXIT_OK


async def prompt_loop(agent: Agent, ui: TerminalUI, signals: SignalRouter) -> int | None:
    """Read and run prompts; return the signal that ended the session, if one did."""
    in_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    reader = TerminalInput(signals, agent.workspace) if in_terminal else PipedInput(signals)
    idle = IdleWatch(agent)
    with run_signals(signals.ctrl_c, signals.end):
        while signals.ending is None:
            try:
                line = await read_unless_results_come(reader, idle, ui)
            except LineCleared:
                signals.last_ctrl_c_at_prompt = float("-inf")  # typing shows you mean to stay
                continue
            except KeyboardInterrupt:
                if signals.second_ctrl_c_at_prompt():
                    break
                ui.print_line("Ctrl-C again to leave (or Ctrl-D)", "dim")
                continue
            except EOFError:
                if await may_leave(agent, ui, signals):
                    break
                continue
            signals.last_ctrl_c_at_prompt = float("-inf")  # only two Ctrl-C in a row leave
            if line is None:  # the tasks the model waits for have ended: it goes on
                await run_input(agent, ui, signals, "")
                continue
            message = as_message(line)
            if message is None:
                ends = await run_slash_command(agent, ui, signals, line.strip())
                if ends and await may_leave(agent, ui, signals):
                    break
                continue
            if not message:
                continue
            try:  # @path mentions attach files; one that cannot be attached sends nothing
                message = attach_to_prompt(agent, ui, message)
            except MentionError as err:
                ui.notice(str(err))
                continue
            await run_input(agent, ui, signals, message)
    ui.console.print()
    return signals.ending


async def may_leave(agent: Agent, ui: TerminalUI, signals: SignalRouter) -> bool:
    """Leaving stops the background tasks still running: ask first (cli/tasks.py).

    SIGTERM or SIGHUP always leave; Ctrl-C at the question reaches it as a run's would.
    """
    if signals.ending is not None:
        return True
    signals.running = agent
    try:
        return await confirm_leaving(agent, ui) or signals.ending is not None
    finally:
        signals.running = None


def as_message(line: str) -> str | None:
    """The message a line sends, or None for a slash command.

    `//` or a leading space sends a line that starts with a path as a message:
    `//etc/hosts is odd` sends `/etc/hosts is odd`, and so does ` /etc/hosts is odd`.
    """
    if line[:1].isspace():
        return line.strip()
    if line.startswith("//"):
        return line[1:].strip()
    return None if line.startswith("/") else line.strip()


async def run_slash_command(agent: Agent, ui: TerminalUI, signals: SignalRouter, line: str) -> bool:
    """Run a slash command here; an unknown one is refused, never sent to the model.

    An async command (one that calls the model, like /compact) is cancelled by Ctrl-C, as a
    run is. Returns True when the command ends the session.
    """
    name = line.split()[0]
    command = SLASH_COMMANDS.get(name)
    if command is None:
        nearest = nearest_command(name, SLASH_COMMANDS)
        guess = f" Did you mean {nearest}?" if nearest else ""
        ui.notice(
            f"Unknown command {name}.{guess} /help lists them; a line starting with // is "
            "sent as a message."
        )
        return False
    try:
        outcome = command.run(agent, ui, line)
        if asyncio.iscoroutine(outcome):
            signals.running = agent
            try:
                await outcome
            finally:
                signals.running = None
    except EndSession:
        return True
    return False


async def run_input(agent: Agent, ui: TerminalUI, signals: SignalRouter, prompt: str) -> None:
    """One user input; a temporary API error returns to the prompt with nothing lost."""
    autosave = agent.checkpoint  # the Autosave of cli/autosave.py
    signals.running = agent
    try:
        # Results of background tasks the model has not read yet come first (cli/tasks.py).
        await agent.run(await with_task_results(find_task_manager(agent), prompt))
    except ModelError as err:
        if not err.temporary:
            raise  # a bad key or a rejected request: one line and exit
        ui.notice(f"{err} Nothing is lost; type 'continue' to try again.")
        return
    finally:
        signals.running = None
        ui.stop_progress()  # also after an error, before it is printed
        autosave.end_of_run(agent)
    if agent.context.stop_reason and signals.ending is None:
        ui.notice(agent.context.stop_reason)
