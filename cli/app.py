"""Flags, building the agent, and running it interactive or headless.

Errors a person reads are one line that says what to do; exit codes: 0 done, 1 error,
2 bad usage, 3 stopped early (turn limit), 4 the model refused the task (stop reason
`refusal`), 130 interrupted (Ctrl-C), 143 and 129 ended by SIGTERM and SIGHUP (see
cli/signals.py).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from pathlib import Path
from typing import TextIO

from rich.console import Console

from agent import DEFAULT_MAX_TOKENS, Agent, Interrupted
from cli.autosave import Autosave
from cli.context_view import loaded_instructions_line
from cli.endpoint_question import confirm_workspace_endpoint
from cli.flags import UsageError, parse_args
from cli.mentions import attach_to_prompt
from cli.model_command import continue_with_saved_model
from cli.permissions_view import use_saved_rules
from cli.piped import stdin_bytes, with_piped_input
from cli.prompt import interactive
from cli.render import HeadlessUI, TerminalUI, print_error
from cli.results import ERROR, INTERRUPTED, TERMINATED, RunClock, run_summary, stop_code
from cli.sanitize import visible
from cli.signals import (
    Terminated,
    exit_status,
    exit_with,
    forget_earlier_signals,
    install_fallback_handlers,
    run_on_a_new_loop,
    run_signals,
    terminated_by,
)
from cli.stream_json import StreamJsonUI
from cli.tasks import awaited_task_ids, task_results, tasks_killed_at_exit, wait_for_tasks
from cli.undo import connect_undo
from defaults import find_middleware
from middleware.context import ContextManager
from model import ModelError, check_thinking, preload_sdk
from redaction import redact
from session import Session, SessionError, sessions_dir
from settings import SettingsError, known_secrets, make_undumpable
from todo import TodoListMiddleware
from tools.sandbox import choose_sandbox
from tools.tasks import TaskManager, find_task_manager
from view import find_session, write_view
from wiretrace import Trace, trace_path

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_REFUSED = 4  # the model declined: a script must not take the empty answer for one


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
        agent.cancel(terminated_by(signum))

    with run_signals(agent.cancel, end):
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
    agent: Agent,
    ui: HeadlessUI,
    prompt: str,
    autosave: Autosave,
    output_format: str,
    clock: RunClock,
) -> int:
    """Progress on stderr, the answer (or JSON) on stdout, a closing line on stderr."""
    print(f"session {autosave.session.id}", file=sys.stderr)  # to resume it even after a crash
    if loaded := loaded_instructions_line(agent):
        print(visible(loaded), file=sys.stderr)
    if isinstance(ui, StreamJsonUI):
        ui.started(autosave.session.id, agent.model, str(agent.workspace), sorted(agent.tools))
    try:
        answer, ending = run_on_a_new_loop(run_input(agent, prompt))
    finally:
        autosave.end_of_run(agent)
    interrupted = agent.signal.is_set()  # a partial answer is no answer: stdout stays empty
    if ending is not None:
        status, reason = exit_status(ending), f"{Terminated(ending)}."
    elif interrupted:
        status, reason = EXIT_INTERRUPTED, agent.context.stop_reason
    elif agent.context.stop_reason:
        status, reason = EXIT_STOPPED, agent.context.stop_reason
    elif agent.refusal is not None:
        status, reason = EXIT_REFUSED, refusal_line(agent.refusal)
    else:
        status, reason = EXIT_OK, "done."
    if output_format != "text":  # json, or the last line of stream-json
        summary = run_summary(
            agent=agent,
            usage=ui.usage,
            autosave=autosave,
            answer=None if interrupted else answer,
            code=stop_code(agent, ending),
            message=reason,
            status=status,
            clock=clock,
        )
        print(json.dumps(summary), flush=True)
    elif answer and not interrupted:
        print(visible(answer))
    ui.show_totals()
    # A session that could not be saved was reported when it happened: do not say it twice.
    note = " The session was not saved." if autosave.failing else closing_note(autosave, agent)
    print_error(f"{reason}{note}")
    return status


def refusal_line(details: dict) -> str:
    """The closing line of a refused headless run, with the API's reason when it gave one."""
    said = [details.get("explanation") or ""]
    if details.get("category"):
        said.append(f"category: {details['category']}")
    why = "; ".join(part.strip() for part in said if part.strip())
    return f"refused: the model declined the task{f' ({why})' if why else ''}."


def build_agent(args: argparse.Namespace, workspace: Path, ui: TerminalUI, headless: bool) -> Agent:
    """The same Agent as `Agent()`, set from the flags, plus what only a terminal needs: the
    approval question, background tasks, and the plan and compactions shown as they happen."""
    sandbox, no_sandbox_reason = choose_sandbox(
        args.sandbox, args.allow_network, [Path(path) for path in args.sandbox_allow_read]
    )
    if no_sandbox_reason:
        fallback = "bash needs --yes" if headless else "commands ask before they run"
        ui.notice(
            f"bash runs without a sandbox: {no_sandbox_reason}; {fallback}. "
            "For the sandbox: apt-get install bubblewrap"
        )
    if hasattr(sandbox, "before_command"):
        sandbox.notify = ui.notice  # a new .env or .git is said at once, not only to the model
        # A workspace too large to scan is said before bash; the key search and the watch of
        # what is written until the first command begin.
        sandbox.before_command(workspace, starting=True)
    # Background tasks: bash's run_in_background, task_output, task_stop, and the host that
    # validates task waits. The front end delivers their results and stops them (cli/tasks.py);
    # their output files go beside the session (run_cli sets the folder).
    tasks = TaskManager(sessions_dir(workspace), sandbox)
    if args.thinking is not None:  # the budget's upper bound is the agent's max_tokens
        try:
            check_thinking(args.thinking, DEFAULT_MAX_TOKENS)
        except ValueError as err:
            raise UsageError(f"--thinking: {err}") from None
    agent = Agent(
        model=args.model,
        workspace=workspace,
        max_turns=args.max_turns,
        ui=ui,
        ask=None if headless else ui.ask_approval,
        allow_all=args.yes,
        sandbox=sandbox,
        tasks=tasks,
        thinking=args.thinking,
    )
    find_middleware(agent, TodoListMiddleware).on_change = ui.show_todos
    if not headless:  # the "always" rules saved for this folder (a headless run asks nothing)
        use_saved_rules(agent, ui)
    context = find_middleware(agent, ContextManager)
    context.window = args.context_window or context.window
    ui.context_window = context.window  # each reply's line says how full it is, above half
    context.on_clear = ui.notice  # automatic clearing: one line, as a compaction

    def compacted(text: str) -> None:
        ui.notice(text)
        if isinstance(agent.checkpoint, Autosave):  # the compaction goes into the session log
            agent.checkpoint.compacted(agent, text)

    context.on_compact = compacted
    return agent


def refuse_a_path_not_utf8(workspace: Path) -> None:
    """The folder's path goes into the model's prompt, the session log and every request, all
    of them UTF-8: a path with bytes that are not (a folder made under another locale) is
    refused with one line, before a session is started, rather than failing halfway."""
    name = os.fsencode(workspace)
    try:
        name.decode("utf-8")
    except UnicodeDecodeError:
        readable = name.decode("utf-8", errors="backslashreplace")
        shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in readable)
        raise UsageError(
            f"the folder's path is not valid UTF-8 ({shown}); rename it, or run planloop "
            "from a folder whose path is"
        ) from None


def main(argv: list[str] | None = None) -> None:
    sys.stdout, sys.stderr = OutlivesItsTerminal(sys.stdout), OutlivesItsTerminal(sys.stderr)
    exit_with(run_cli(argv))


class OutlivesItsTerminal:
    """sys.stdout or sys.stderr, for a terminal that may close under planloop (a hangup: the
    window closed, ssh dropped). Each write to it then fails (EIO), and the first one, in the
    middle of a run, would turn the hangup into a crash, and python's last flush into exit
    status 120. Instead, what is left goes to /dev/null, and the run ends as a hangup should:
    killed commands, the session saved, status 129."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            self._drop_if_gone(error)
            return self._stream.write(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            self._drop_if_gone(error)
            self._stream.flush()

    def _drop_if_gone(self, error: OSError) -> None:
        if error.errno != errno.EIO:
            raise error
        nowhere = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(nowhere, self._stream.fileno())
        finally:
            os.close(nowhere)

    def __getattr__(self, name: str) -> object:  # isatty, fileno, encoding, ...
        return getattr(self._stream, name)


def run_cli(argv: list[str] | None = None) -> int:
    workspace = Path.cwd().resolve()
    clock = RunClock()
    autosave: Autosave | None = None
    agent: Agent | None = None
    ui: TerminalUI | None = None
    output_format = "text"  # json or stream-json once a headless run has read its flags

    def failed(status: int, code: str, line: str) -> int:
        """The one-line error on stderr; for a script, one JSON object on stdout too. Never the
        key, whatever the error quoted (an endpoint's reply, an exception's text)."""
        line = redact(line)
        print_error(line)
        if output_format != "text":
            summary = run_summary(
                agent=agent,
                usage=ui.usage if ui is not None else None,
                autosave=autosave,
                answer=None,
                code=code,
                message=line,
                status=status,
                clock=clock,
            )
            with contextlib.suppress(OSError):  # stdout may be gone (SIGHUP)
                print(json.dumps(summary), flush=True)
        return status

    try:
        forget_earlier_signals()
        install_fallback_handlers()
        args = parse_args(argv)
        refuse_a_path_not_utf8(workspace)
        if args.view or args.demo:  # tools for learning: no key, no agent of this folder
            return learning_tool(args, workspace)
        make_undumpable()  # before any command runs: none may read the key from this process
        preload_sdk()  # loads while the agent is built, or while the user types
        is_headless = args.prompt is not None
        output_format = args.output_format if is_headless else "text"
        prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
        if args.prompt is not None and not (prompt or "").strip():
            raise UsageError("the prompt is empty (give a task after -p)")
        if output_format == "stream-json":
            ui = StreamJsonUI(Console(stderr=True, highlight=False))
        elif is_headless:
            ui = HeadlessUI(Console(stderr=True, highlight=False))
        else:
            ui = TerminalUI(Console(highlight=False))
        if not is_headless:  # an endpoint from the folder's .env: asked once, before any request
            confirm_workspace_endpoint(workspace, ui.console)
        agent = build_agent(args, workspace, ui, is_headless)
        if is_headless:  # @path mentions attach files; an error sends nothing (exit 2)
            prompt = attach_to_prompt(agent, ui, prompt)
        if args.prompt not in (None, "-"):  # `git diff | planloop -p "review"` (cli/piped.py)
            prompt = with_piped_input(prompt, stdin_bytes(), print_error)  # after the mentions:
            # an @name in piped data is data, not a file to attach
        if args.resume:
            session = (
                Session.latest(workspace)
                if args.resume == "latest"
                else Session(workspace, args.resume)
            )
            session.load_into(agent)
            continue_with_saved_model(agent, args.model)  # a /model choice outlives the process
            for note in session.notes:
                ui.notice(note)
        else:
            session = Session(workspace)
        autosave = Autosave(session, ui)
        agent.checkpoint = autosave
        connect_undo(agent, autosave)  # /undo's records go to the log, and come back on resume
        find_task_manager(agent).folder = session.path.with_suffix(".tasks")
        if args.trace:
            agent.trace = Trace(trace_path(session.path, session.id), known_secrets())
        if is_headless:
            return headless(agent, ui, prompt, autosave, output_format, clock)
        return interactive(agent, ui, autosave)
    except (UsageError, SettingsError) as err:
        return failed(EXIT_USAGE, ERROR, str(err))
    except (ModelError, SessionError) as err:
        return failed(EXIT_ERROR, ERROR, f"{err}{closing_note(autosave, agent)}")
    except KeyboardInterrupt:
        return failed(EXIT_INTERRUPTED, INTERRUPTED, f"interrupted.{closing_note(autosave, agent)}")
    except Terminated as ended:
        note = closing_note(autosave, agent)  # saves first: the terminal may be gone (SIGHUP)
        with contextlib.suppress(OSError):
            return failed(exit_status(ended.signum), TERMINATED, f"{ended}.{note}")
        return exit_status(ended.signum)
    except Exception as err:  # one line, no traceback; PLANLOOP_DEBUG=1 shows it
        if os.environ.get("PLANLOOP_DEBUG"):
            raise
        line = f"unexpected error: {type(err).__name__}: {err}{closing_note(autosave, agent)}"
        return failed(EXIT_ERROR, ERROR, line)


def learning_tool(args: argparse.Namespace, workspace: Path) -> int:
    """--view writes a session's page and prints its path; --demo plays the offline demo."""
    if args.demo:
        from demo import run_demo

        return run_demo(Console(highlight=False))
    print(write_view(find_session(workspace, args.view)))
    return EXIT_OK


def closing_note(autosave: Autosave | None, agent: Agent | None) -> str:
    """The tail of a one-line error: where the session is, if there is one."""
    if autosave is None or agent is None:
        return ""
    notes = [autosave.closing_note(agent)]
    report = getattr(getattr(agent, "sandbox", None), "closing_report", None)
    notes.append(report() if report else "")  # new .env / .git files: named again at exit
    return "".join(f" {note}" for note in notes if note)
