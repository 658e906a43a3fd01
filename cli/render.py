"""What the user sees: streamed text, tool lines and previews, the checklist, approvals.

`TerminalUI` is the interactive output; `HeadlessUI` sends progress to stderr and leaves the
final answer to the caller. Both implement the loop's UI protocol (see `agent.QuietUI`).
"""

from __future__ import annotations

import json
import signal
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from middleware import ToolResult
from middleware.permissions import Approval, Rule
from todo.manager import MARKS

STYLES = {"pending": "", "in_progress": "bold yellow", "completed": "green"}
PREVIEW_LINES = 6


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


def permission_table(rules: list[Rule]) -> Table:
    """The permission policy as /permissions shows it: what, what happens, why."""
    table = Table(title="permissions", title_justify="left", show_lines=False)
    for column in ("what", "", "why"):
        table.add_column(column)
    for rule in rules:
        table.add_row(escape(rule.what), rule.verdict, escape(rule.why))
    return table


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

    def ask_approval(self, question: str) -> Approval:
        """yes / no (with a reason for the model) / always; Ctrl-C here cancels the turn.

        `question`'s first line asks (the box title), the rest is the command or the path.
        """
        title, _, details = question.partition("\n")
        self.console.print(Panel(escape(details), title=escape(title), title_align="left"))
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
