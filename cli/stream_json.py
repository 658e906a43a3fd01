"""`--output-format stream-json`: one JSON object per line on stdout, as the run goes.

    {"type": "system", "subtype": "init", "session_id", "model", "cwd", "tools"}
    {"type": "assistant", "text": ...}              a text block of a reply, once it is complete
    {"type": "tool_use", "id", "name", "input"}     a call the model made
    {"type": "tool_result", "tool_use_id", "is_error", "content"}   what a call that ran returned
    {"type": "plan", "todos": [...]}                the plan, each time it changes
    {"type": "note", "text": ...}                   what planloop added for the model (a reminder)
    {"type": "notice", "text": ...}                 what planloop told the person
    {"type": "result", ...}                         last: the object of --output-format json

A script reads the lines as they come, so it can show progress or stop a run early, and the
last line alone is what `--output-format json` prints. Progress for a person still goes to
stderr, as in any headless run. Text and calls are sent when their reply is complete, never
half-streamed: a stream that breaks off and is tried again sends nothing twice.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from cli.render import HeadlessUI
from middleware import ToolResult
from redaction import redact


class StreamJsonUI(HeadlessUI):
    """A headless UI that also writes each event of the run as one JSON line."""

    def __init__(self, *args: Any, out: TextIO | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out = out or sys.stdout
        self.reply_blocks: list[dict] = []  # the blocks of the reply streaming in, once complete
        # Events before the init line (a notice while the agent is built) wait for it: a
        # script can count on the first line naming the session.
        self.before_init: list[dict] | None = []

    def emit(self, event: dict) -> None:
        if self.before_init is not None:
            self.before_init.append(event)
            return
        self.out.write(redact(json.dumps(event)) + "\n")  # (a notice may name the key: render.py)
        self.out.flush()

    def started(self, session_id: str, model: str, cwd: str, tools: list[str]) -> None:
        """The first line: the session, the model, the folder and the tools; then what waited."""
        waiting, self.before_init = self.before_init or [], None
        self.emit(
            {
                "type": "system",
                "subtype": "init",
                "session_id": session_id,
                "model": model,
                "cwd": cwd,
                "tools": tools,
            }
        )
        for event in waiting:
            self.emit(event)

    # ---- the loop's UI protocol, each also as a line -----------------------------------------

    def stream_event(self, event: Any) -> None:
        super().stream_event(event)
        if event.type == "message_start":
            self.reply_blocks.clear()  # a retried stream starts over
        elif event.type == "content_block_stop":
            block = event.content_block
            if block.type == "text" and block.text:
                self.reply_blocks.append({"type": "assistant", "text": block.text})
            elif block.type == "tool_use":
                self.reply_blocks.append(
                    {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
                )
        elif event.type == "message_stop":
            for block in self.reply_blocks:
                self.emit(block)
            self.reply_blocks.clear()

    def stream_restarted(self) -> None:
        super().stream_restarted()
        self.reply_blocks.clear()

    def tool_finished(self, call: dict, result: ToolResult) -> None:
        super().tool_finished(call, result)
        self.emit(
            {
                "type": "tool_result",
                "tool_use_id": call["id"],
                "is_error": result.is_error,
                "content": result.content,
            }
        )

    def harness_message(self, text: str) -> None:
        super().harness_message(text)
        self.emit({"type": "note", "text": text})

    def notice(self, text: str) -> None:
        super().notice(text)
        self.emit({"type": "notice", "text": text})

    def show_todos(self, items: list[dict]) -> None:
        super().show_todos(items)
        self.emit({"type": "plan", "todos": items})
