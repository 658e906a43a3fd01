"""/undo: put back the files that the last input changed through the file tools.

    /undo  ->  the latest input with file changes not undone yet (middleware/undo.py)
           ->  the list: each file and what happens to it (restored / deleted / cannot)
           ->  y/n; a file changed since planloop wrote it asks once more on its own
           ->  the files put back, the input marked undone in the session log, and a note
               for the model with the next input (it must not go on from files that are gone)

/undo again goes one input further back. What bash changed is not known, so it is not undone;
the list says so when the input ran commands. The records come from the session log, so this
works after `--resume` too (`connect_undo`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from cli.render import TerminalUI, read_answer
from cli.sanitize import visible
from conversation import append_user_content, text_block
from defaults import find_middleware
from middleware import CancelSignal, Interrupted, until_cancelled
from middleware.undo import FileUndo, UndoRecorder, apply_file, plan_undo
from prompts import escape_tags, load_prompt
from session import SessionError

if TYPE_CHECKING:
    from agent import Agent
    from cli.autosave import Autosave


def connect_undo(agent: Agent, autosave: Autosave) -> None:
    """Send the recorder's records to the session log, and replay the ones a resumed log holds."""
    recorder = find_middleware(agent, UndoRecorder)
    if recorder is None:
        return

    def to_log(entry: dict) -> None:
        # A failed write is reported by the next save, which then writes the whole log again
        # with these records in it (session.py); a tool call must not fail over it.
        with contextlib.suppress(SessionError):
            autosave.session.record_undo(entry)

    recorder.on_record = to_log
    recorder.replay(autosave.session.undo_records)


async def undo_command(agent: Agent, ui: TerminalUI, line: str) -> None:
    """/undo: show what undoing the last input's file changes would do, ask, then do it."""
    recorder = find_middleware(agent, UndoRecorder)
    changes, ran_commands = recorder.next_to_undo() if recorder else (None, False)
    if changes is None:
        undone = recorder is not None and any(c.files for c in recorder.inputs)
        why = (
            "every input's file changes are undone already"
            if undone
            else ("no input changed files with the file tools")
        )
        commands = " (what bash commands changed cannot be undone this way)" if ran_commands else ""
        ui.print_line(f"Nothing to undo: {why}{commands}.")
        return
    plans = await asyncio.to_thread(plan_undo, agent.workspace, changes)
    ui.print_line(f'Undo the file changes of "{changes.prompt}":', "bold")
    width = max(len(plan.path) for plan in plans)
    for plan in plans:
        ui.print_line(f"  {plan.path:{width}}  {plan.describe()}")
        if plan.warning():
            ui.print_line(f"  {'':{width}}  {plan.warning()}", "yellow")
    if ran_commands:
        ui.print_line(
            "! bash commands ran in this input or a later one: what they changed is not "
            "listed and cannot be undone this way.",
            "yellow",
        )
    chosen = [plan for plan in plans if plan.action in ("restore", "delete")]
    if not chosen:
        recorder.mark_undone(changes)  # the next /undo goes one input further back
        ui.print_line("Nothing there can be undone; the next /undo goes one input further back.")
        return
    agent.context.signal = CancelSignal()  # a Ctrl-C of an earlier run must not count here
    try:
        if not await ask_yes(agent, ui, "Undo these changes? [y/n]: "):
            ui.print_line("Nothing was undone.", "dim")
            return
        done = [(plan, await undo_file(agent, ui, plan)) for plan in chosen]
    except Interrupted:
        ui.print_line("Nothing was undone.", "dim")
        return
    for plan, outcome in done:
        ui.print_line(f"  {plan.path}: {outcome}")
    recorder.mark_undone(changes)
    tell_the_model(agent, changes.prompt, done)


async def undo_file(agent: Agent, ui: TerminalUI, plan: FileUndo) -> str:
    """Put one file back; one that changed after planloop wrote it asks first."""
    if plan.changed_since:
        question = (  # read_answer writes it as it is: the file's name is made visible here
            f"{visible(plan.path)} changed after planloop wrote it (you or a command). "
            f"{'Delete it' if plan.action == 'delete' else 'Overwrite it with its earlier content'}"
            " anyway? [y/n]: "
        )
        if not await ask_yes(agent, ui, question):
            return "left as it is now"
    return apply_file(agent.workspace, plan)


async def ask_yes(agent: Agent, ui: TerminalUI, question: str) -> bool:
    """y or n, asked again on anything else; Ctrl-D is no, Ctrl-C raises Interrupted."""
    while True:
        try:
            answer = (await until_cancelled(read_answer(question), agent.signal)).lower()
        except EOFError:
            return False
        if answer in ("y", "yes"):
            return True
        if answer in ("n", "no"):
            return False
        ui.print_line(f"Please type y or n (not {answer!r}).", "yellow")


def tell_the_model(agent: Agent, prompt: str, done: list[tuple[FileUndo, str]]) -> None:
    """The note goes with the next input: the model saw these files as it left them."""
    put_back = ("restored", "deleted")
    changed = [f"{plan.path} {outcome}" for plan, outcome in done if outcome in put_back]
    if not changed:
        return
    note = load_prompt("undo_note").format(
        input=escape_tags(prompt), files=escape_tags(", ".join(changed))
    )
    append_user_content(agent.messages, [text_block(note)])
    agent.save()
