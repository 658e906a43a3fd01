"""The session log as the agent's checkpoint: save after every step, say how to resume.

The loop calls `agent.checkpoint(agent)` whenever the conversation is in a state worth keeping
(agent.py); the terminal front end makes that an Autosave, which writes the session log
(session.py). The interactive prompt, the headless run and the demo all use it.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from cli.flags import command_name
from defaults import find_middleware
from middleware.undo import UndoRecorder
from session import Session, SessionError
from todo.taskwait import void_unsaved_wait
from tools.tasks import stopped_on_exit_note

if TYPE_CHECKING:
    from agent import Agent
    from cli.render import TerminalUI


class Autosave:
    """The agent's checkpoint: save the session after every step.

    A failed save (a full disk, a read-only home) is reported once and the run goes on:
    stopping would lose the work in flight, which is worse than an unsaved session. It does
    void a task wait, though: a wait lets a run end with open items only once it is saved.
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
            void_unsaved_wait(agent.extra)  # an unsaved task wait does not count
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
        recorder = find_middleware(agent, UndoRecorder)
        if recorder is not None:
            recorder.forget()  # /undo goes back through this session's inputs only
        self.ui.new_session()  # /cost counts the new session from zero

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
