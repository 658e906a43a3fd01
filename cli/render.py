"""What the user sees: answers as Markdown, tool lines, diffs, the checklist, costs, approvals.

`TerminalUI` is the interactive output; `HeadlessUI` sends progress to stderr and leaves the
final answer to the caller. Both implement the loop's UI protocol (`agent.UI`).

    model_started  -> spinner "waiting for the model 3s"
    stream_event   -> text, rendered as Markdown one finished paragraph at a time;
                      the paragraph still coming in is shown under the spinner
    reply_finished -> a dim line with tokens and cost (and the context use above 50%)
    tool_started   -> "> bash ls", spinner "running bash 2s"
    tool_output    -> the command's last lines under the spinner, as they come
    tool_finished  -> the result's first and last lines (/output pages all of it), or a diff
    harness_message -> a reminder or correction with its item list; a reminder repeated
                      over the same list is one counting line ("plan reminder ×3")
    notice         -> one line

Everything printed that planloop did not write itself goes through `cli.sanitize.visible`
first, and is printed as rich `Text` (never parsed as markup), so no escape sequence from a
model, a command or a file reaches the terminal.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

from rich.cells import cell_len
from rich.console import Console, Group
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.spinner import Spinner
from rich.style import Style
from rich.table import Table
from rich.text import Text

from cli.approval_preview import ChangePreview, is_long_preview, preview_text, proposed_change
from cli.diffs import diff_lines, render_diff, snapshot
from cli.sanitize import (
    Sanitized,
    has_hidden_characters,
    has_unseen_characters,
    letters_beyond_ascii,
    lines_as_run,
    shown_exactly,
    visible,
)
from cli.usage import Usage
from middleware import ToolResult
from middleware.context import short_tokens
from middleware.permissions import Approval, Rule
from redaction import redact
from todo.manager import CANCELLED, MARKS, done_count
from todo.middleware import CORRECTION, NO_PLAN, read_note
from todo.record import describe_entry

STYLES = {
    "pending": "",
    "in_progress": "bold yellow",
    "completed": "green",
    "cancelled": "dim strike",
}
# A tool's result is previewed by its first and last lines: a failing test's assertion and
# the exit code are at the end. A result at most one line longer than both is shown whole.
PREVIEW_HEAD_LINES = 3
PREVIEW_TAIL_LINES = 5
LIVE_LINES = 3  # of a running command's output, shown under the spinner, each cut to the width
DIFFED_TOOLS = ("edit_file", "write_file")
SPINNER_DELAY = 0.3  # seconds a wait lasts before the spinner appears
STREAM_PREVIEW_LINES = 8  # of the paragraph still coming in, shown under the spinner
CONTEXT_SHOWN_ABOVE = 0.5  # of the window: from here on each reply's line says how full it is
# An approval subject (a command, a path) longer than this is summed up in its box: its line
# count, first and last lines. It is approved only after `v` has shown all of it, so nothing
# can hide in lines that scrolled away (a `curl … | sh` above 200 comment lines).
APPROVAL_LINES = 20
APPROVAL_LINE_CHARS = 400
# Rows of the screen the question needs besides the box's text: its borders, the warnings
# under it, the answer hint and the prompt. A box whose text would need more than the rest of
# this terminal's rows is summed up too: its first lines would scroll away before the answer.
APPROVAL_SCREEN_ROOM = 8
EDGE_LINES = 5  # first and last lines shown of a long subject
# A new Markdown block starts after a blank line, at a line that is not indented and is not a
# list item (a loose list or a list item's second paragraph stays in one block).
BLOCK_START = re.compile(r"[^\s\-*+\d>|]")
FENCE = re.compile(r" {0,3}(```|~~~)")
# rich's Markdown parser takes about 30 µs a character of list items or headings, in the event
# loop's thread, where no signal is answered meanwhile: 4 s for a block of 128 KB, which a reply
# may be. A longer block (one with no blank line) is printed as it was written.
MAX_MARKDOWN_CHARS = 16 * 1024
# Text without any of these is plain prose, printed without the (slow) Markdown parser. The
# blanks before a list item or after an underline are a line's own: `^\s*` read across lines,
# from every line's start, which took 12 s for a reply of 40 KB of blank lines (tools/spans.py).
MARKDOWN_SYNTAX = re.compile(
    r"[#*_`\[\]<>|~\\&]|^[^\S\n]*+(?:[-+]|\d+[.)])\s|^ {4}|^[=-]++[^\S\n]*+$", re.M
)


def fits_on_one_line(text: str, width: int) -> bool:
    return "\n" not in text and "\t" not in text and cell_len(text) < width


def checklist(items: list[dict] | None) -> Panel:
    """The plan as a panel: verified items (✓ checked) apart from those only claimed done,
    cancelled ones struck through with their reason."""
    items = items or []
    body = Text()
    for number, item in enumerate(items):
        if number:
            body.append("\n")
        line = visible(f"{MARKS[item['status']]} {item['content']}")
        body.append(line, style=STYLES[item["status"]])
        if item["status"] == CANCELLED:
            body.append(visible(f"  cancelled: {item.get('reason', '')}"), style="dim")
        elif item.get("verified"):
            body.append("  ✓ checked", style="bold green")
        elif item.get("check"):
            body.append(visible(f"  check: {item['check']}"), style="dim")
    if not items:
        body = Text("(no plan yet)")
    # "todos 2/3" counts the work left in the plan: cancelled items are not part of it.
    title = "todos " + done_count(items).replace(" done", "", 1).replace(", ", " · ")
    return Panel(body, title=title, title_align="left", expand=False)


def plan_history(entries: list[dict] | None) -> Text:
    """The record of the plan, one block per accepted write: 'v3' and what changed."""
    entries = [entry for entry in entries or [] if isinstance(entry, dict)]
    if not entries:
        return Text("(no record of the plan yet)", style="dim")
    text = Text()
    for entry in entries:
        if text:
            text.append("\n")
        text.append(f"v{entry.get('version', '?')}", style="bold")
        for line in describe_entry(entry):
            text.append("\n  " + visible(line))
    return text


def permission_table(rules: list[Rule]) -> Table:
    """The permission policy as /permissions shows it: what, what happens, why."""
    table = Table(title="permissions", title_justify="left", show_lines=False)
    for column in ("what", "", "why"):
        table.add_column(column)
    for rule in rules:
        table.add_row(Text(rule.what), Text(rule.verdict), Text(rule.why))
    return table


def describe_call(call: dict) -> str:
    args = call.get("input") or {}
    main = args.get("command") or args.get("path") if isinstance(args, dict) else None
    if call["name"] == "todo_write":
        return "todo_write"
    if not main:
        return f"{call['name']} {json.dumps(args)[:80]}"
    # As the approval box shows it: split at line feeds alone, and what shows as nothing
    # written out (`setup<U+200B>.sh`), so the line reads as what runs.
    lines = lines_as_run(str(main)) or [""]
    more = f"  (+{len(lines) - 1} lines)" if len(lines) > 1 else ""
    return f"{call['name']} {shown_exactly(lines[0])}{more}"


def split_finished_blocks(text: str) -> tuple[str, str]:
    """Split streamed Markdown into the blocks that are complete and the rest still coming.

    A block is complete once a blank line outside a code fence is followed by the first line
    of a new block; a code fence is complete at its closing line.
    """
    cut, offset, in_fence, after_blank = 0, 0, False, False
    for line in text.splitlines(keepends=True):
        if not line.endswith("\n"):  # the last line is still coming in; its start is known
            if after_blank and not in_fence and BLOCK_START.match(line):
                cut = offset
            break
        if FENCE.match(line):
            if in_fence:
                cut = offset + len(line)  # the closing fence ends the block
            elif after_blank:
                cut = offset
            in_fence, after_blank = not in_fence, False
        elif not in_fence:
            if not line.strip():
                after_blank = True
            elif after_blank and BLOCK_START.match(line):
                cut, after_blank = offset, False
            else:
                after_blank = False
        offset += len(line)
    return text[:cut], text[cut:]


class Progress:
    """A spinner with the seconds elapsed, on the last line, while planloop waits.

    It is shown only on a real terminal (not a pipe, not TERM=dumb), and only once a wait has
    lasted SPINNER_DELAY seconds: a quick tool call or reply draws nothing, which keeps each
    turn cheap and the screen still. rich draws it from a thread and keeps it below anything
    printed meanwhile; `stop` erases it.
    """

    def __init__(self, console: Console) -> None:
        self.console = console
        self.enabled = console.is_interactive
        self.lock = threading.Lock()  # the ticker and the printing thread share the screen
        self.ticker: threading.Thread | None = None
        self.live: Live | None = None
        self.spinner = Spinner("dots", style="cyan")
        self.label = ""
        self.started = 0.0
        self.preview = ""
        self.output: list[str] = []  # a running command's last lines, shown under the spinner

    def show(self, label: str, preview: str = "") -> None:
        if not self.enabled:
            return
        with self.lock:
            if label != self.label:
                self.label, self.started, self.output = label, time.monotonic(), []
            self.preview = preview
        if self.ticker is None:
            self.ticker = threading.Thread(target=self.tick, daemon=True)
            self.ticker.start()

    def tick(self) -> None:
        """Start the spinner once the current wait is old enough (runs for good, in a thread)."""
        while True:
            time.sleep(0.1)
            with self.lock:
                waited = time.monotonic() - self.started
                if self.label and self.live is None and waited >= SPINNER_DELAY:
                    self.live = Live(
                        self,
                        console=self.console,
                        transient=True,
                        refresh_per_second=8,
                        redirect_stdout=False,
                        redirect_stderr=False,
                    )
                    self.live.start()

    def stop(self) -> None:
        with self.lock:
            if self.live is not None:
                self.live.stop()
                self.live = None
            self.label, self.preview, self.output = "", "", []

    def show_output(self, text: str) -> None:
        """Show the last lines of `text` (a running command's newest output) under the spinner.

        Called at most ten times a second (tools/process.py LiveTail); rich redraws on its own
        clock, so a command that prints fast costs no more redraws than one that prints slowly.
        """
        if not self.enabled:
            return
        lines = last_lines(text, LIVE_LINES)
        with self.lock:
            if self.label:  # else the call is over and the spinner gone
                self.output = lines

    def __rich__(self) -> Any:
        seconds = time.monotonic() - self.started
        self.spinner.text = Text(f"{self.label} {seconds:.0f}s", style="dim")
        parts: list[Any] = [self.spinner]
        if self.preview:
            tail = "\n".join(self.preview.splitlines()[-STREAM_PREVIEW_LINES:])
            parts.insert(0, Text(tail))
        for line in self.output:  # one screen line each: cut at the width, never wrapped
            parts.append(Text("  " + line, style="dim", no_wrap=True, overflow="ellipsis"))
        return parts[0] if len(parts) == 1 else Group(*parts)


def last_lines(text: str, count: int) -> list[str]:
    """The last `count` non-blank lines of a command's output, made visible.

    A carriage return ends a line too: a progress bar that redraws its line shows its latest
    state, not every state it went through.
    """
    redrawn = (line.rstrip("\r").rpartition("\r")[2] for line in text.split("\n"))
    lines = [line for line in redrawn if line.strip()]
    return [visible(line.expandtabs()) for line in lines[-count:]]


def result_preview(text: str) -> str:
    """A tool result's first and last lines, with a count of those between (/output shows all).
    Lines end at line feeds alone: a U+2028 in a name a note quotes must not start a line that
    reads as planloop's own (`.env.local<U+2028>! planloop: nothing else changed`)."""
    lines = lines_as_run(text)
    if len(lines) <= PREVIEW_HEAD_LINES + PREVIEW_TAIL_LINES + 1:
        return "\n".join(lines)
    hidden = len(lines) - PREVIEW_HEAD_LINES - PREVIEW_TAIL_LINES
    middle = f"… {hidden} more lines (/output shows all) …"
    return "\n".join([*lines[:PREVIEW_HEAD_LINES], middle, *lines[-PREVIEW_TAIL_LINES:]])


class TerminalUI:
    """Interactive output: Markdown answers, tool calls with a preview or a diff, costs."""

    show_diffs = True

    def __init__(self, console: Console, workspace: Path | None = None) -> None:
        self.console = console
        self.workspace = (workspace or Path.cwd()).resolve()
        self.progress = Progress(console)
        self.model = ""
        self.text = ""  # streamed text not yet printed (the paragraph still coming in)
        self.blocks_in_text = 0  # Markdown blocks printed so far of the text block streaming in
        self.usage = Usage()  # the session so far
        self.styles: dict[str, tuple[str, str]] = {}  # escape codes before and after
        self.fixed_width: tuple[object, int] | None = None  # (file, width): see `line_width`
        self.before: dict[str, str] = {}  # call id -> the file's text before an edit
        self.thinking_in_full = False  # /thinking: whole thinking blocks, not their first line
        self.printed_in_reply = 0  # Markdown blocks printed of the reply streaming in
        self.running_call = ""  # the id of the tool call running now, whose output is shown
        self.context_window: int | None = None  # the model's window, set by the front end
        # Whether the reply now finishing streamed to this UI: a compaction's call does not,
        # and its input is the transcript to sum up, not the conversation's context.
        self.reply_streamed = False
        # The last plan reminder shown (its kind and items) and how many times in a row.
        self.last_reminder: tuple[str, tuple[str, ...]] | None = None
        self.reminder_count = 0

    def new_session(self) -> None:
        """/clear: the totals and the reminder count start again with the new session."""
        self.usage = Usage()
        self.last_reminder, self.reminder_count = None, 0

    # ---- the loop's UI protocol -------------------------------------------------------------

    def model_started(self) -> None:
        self.progress.show("waiting for the model")

    def stream_event(self, event: Any) -> None:
        if self.show_thinking_event(event):
            return
        if event.type == "message_start":
            self.model = event.message.model
            self.text = ""  # a retried stream starts over
            self.printed_in_reply = 0
            self.reply_streamed = True
        elif event.type == "content_block_start" and event.content_block.type == "text":
            if not self.text:  # text blocks in a row (an answer with citations) are one text
                self.blocks_in_text = 0
        elif event.type == "content_block_start":
            self.flush_text()  # the text before a call, a search or a result ends here
            if event.content_block.type in ("tool_use", "server_tool_use"):
                self.progress.show(f"writing a {visible(event.content_block.name)} call")
        elif event.type == "message_stop":
            self.flush_text()
        elif event.type == "text":
            self.text += event.text
            finished, self.text = split_finished_blocks(self.text)
            if finished:
                self.print_markdown(finished)
            self.progress.show("writing", visible(self.text))
        elif event.type == "content_block_stop" and event.content_block.type == "text":
            self.progress.show("waiting for the model", visible(self.text))

    def stream_restarted(self) -> None:
        """A stream broke off and is tried again: drop its unprinted text, say what was shown."""
        self.text = ""
        if self.printed_in_reply:
            self.print_line("↻ The answer above broke off; it starts over below.", "dim")
        self.printed_in_reply = 0

    # ---- thinking ---------------------------------------------------------------------------

    def show_thinking_event(self, event: Any) -> bool:
        """Show thinking dimmed, folded to its first line (`/thinking` shows it whole).

        True when the event was about thinking (and needs nothing more).
        """
        block = getattr(event, "content_block", None)
        kind = getattr(block, "type", None)
        if event.type == "content_block_start" and kind in ("thinking", "redacted_thinking"):
            self.flush_text()
            self.progress.show("thinking")
        elif event.type == "thinking":
            lines = event.snapshot.strip().splitlines()
            self.progress.show("thinking", visible(lines[-1]) if lines else "")
        elif event.type == "content_block_stop" and kind == "thinking":
            self.print_thinking(block.thinking)
        elif event.type == "content_block_stop" and kind == "redacted_thinking":
            self.print_line("∴ (thinking the API keeps encrypted)", "dim italic")
        else:
            return event.type == "signature"
        return True

    def print_thinking(self, thinking: str) -> None:
        lines = [line for line in thinking.strip().splitlines() if line.strip()]
        if not lines:
            return
        self.progress.stop()
        if self.thinking_in_full:
            self.print_line("∴ " + "\n  ".join(lines), "dim italic")
            return
        folded = f" … (+{len(lines) - 1} lines; /thinking shows them)" if len(lines) > 1 else ""
        self.print_line(f"∴ {lines[0]}{folded}", "dim italic")

    # ---- the reply's end ----------------------------------------------------------------------

    def reply_finished(self, reply: dict) -> None:
        """The reply's line: its tokens and cost; while the context is more than half full,
        how full (the cache split is in /cost)."""
        self.progress.stop()
        usage = Usage.of_reply(reply.get("model") or self.model, reply.get("usage") or {})
        self.usage.add(usage)
        line = usage.brief_line()
        in_conversation, self.reply_streamed = self.reply_streamed, False
        if in_conversation and self.context_window and not usage.web_searches:
            share = usage.input_total / self.context_window
            if share > CONTEXT_SHOWN_ABOVE:
                line += f" · context {round(100 * share)}% of {short_tokens(self.context_window)}"
        self.print_line(line, "dim")

    def tool_started(self, call: dict) -> None:
        self.flush_text()
        self.print_line(f"> {describe_call(call)}", "cyan")
        args = call.get("input")
        if self.show_diffs and call["name"] in DIFFED_TOOLS and isinstance(args, dict):
            before = snapshot(self.workspace, args.get("path"))
            if before is not None:
                self.before[call["id"]] = before
        self.running_call = call["id"]
        self.progress.show(f"running {visible(call['name'])}")

    def tool_output(self, call: dict, text: str) -> None:
        if call["id"] == self.running_call:  # nothing of a call that is over
            self.progress.show_output(text)

    def tool_finished(self, call: dict, result: ToolResult) -> None:
        self.running_call = ""
        self.progress.stop()
        before = self.before.pop(call["id"], None)
        if call["name"] == "todo_write" and not result.is_error:
            return  # the checklist panel shows it
        if before is not None and not result.is_error:
            after = snapshot(self.workspace, call["input"].get("path"))
            lines = diff_lines(before, after) if after is not None else []
            if lines:
                self.print_line(result.content, "dim")
                self.console.print(render_diff(lines))
                return
        self.print_line(result_preview(result.content), "red" if result.is_error else "dim")

    def harness_message(self, text: str) -> None:
        """What planloop added for the model, in full: a reminder or a correction with its
        item list. A reminder that repeats the list shown last is one line that counts."""
        note = read_note(text)
        if note is None:  # no note of the todo list: its text, without the tags
            lines = re.sub(r"</?\w+>", "", text).strip().splitlines() or [""]
            self.print_line("↻ planloop added a note for the model: " + "\n  ".join(lines), "dim")
            return
        items = "".join(f"\n  {item}" for item in note.items)
        if note.kind == CORRECTION:
            self.last_reminder = None
            self.print_line(f"↻ planloop sent the model back: not completed yet:{items}", "dim")
            return
        turns = f"{note.turns} turns without " + ("a plan" if note.kind == NO_PLAN else "an update")
        shown = (note.kind, tuple(note.items))
        if shown == self.last_reminder:
            self.reminder_count += 1
            same = "" if note.kind == NO_PLAN else "; the same list as above"
            self.print_line(f"↻ plan reminder ×{self.reminder_count} ({turns}{same})", "dim")
            return
        self.last_reminder, self.reminder_count = shown, 1
        if note.kind == NO_PLAN:
            self.print_line(f"↻ plan reminder ({turns}): the model was asked to write one", "dim")
        else:
            self.print_line(f"↻ plan reminder ({turns}), the list sent to the model:{items}", "dim")

    def notice(self, text: str) -> None:
        self.flush_text()  # a stream cut short (Ctrl-C, a retry) may have left text unprinted
        self.progress.stop()
        self.print_line(own_words(f"! {text}"), "yellow")

    # ---- more for the front end -------------------------------------------------------------

    def print_line(self, text: str, style: str = "") -> None:
        """Untrusted text, made visible, wrapped at word boundaries, never read as markup; never
        the key (a workspace's settings can name a path made of `${env:ANTHROPIC_API_KEY}`,
        and a notice names that path)."""
        shown = visible(redact(text))
        if "\t" in shown and shown.isascii():  # as rich would expand them (file windows)
            shown = shown.expandtabs(self.console.tab_size)
        lines = shown.split("\n")
        width = self.line_width()
        if all(fits_on_one_line(line, width) for line in lines):
            # Fast path for the short lines of every turn (tool line, preview, cost line):
            # rich's layout costs about 0.3 ms a line, writing the styled lines a few µs.
            with self.progress.lock:
                if self.progress.live is None:  # else rich must draw it above the spinner
                    self.console.file.write("".join(self.styled(x, style) + "\n" for x in lines))
                    self.console.file.flush()
                    return
        self.console.print(Text(shown, style=style))

    def line_width(self) -> int:
        """The console's width. rich asks the terminal afresh each time (four system calls), as
        a terminal can be resized; a file or a pipe (headless output) keeps the width it had."""
        file = self.console.file
        if self.fixed_width is not None and self.fixed_width[0] is file:
            return self.fixed_width[1]
        width = self.console.width
        if not self.console.is_terminal:
            self.fixed_width = (file, width)
        return width

    def styled(self, text: str, style: str) -> str:
        # The escape codes around a line depend on the style alone: rendered once per style.
        codes = self.styles.get(style)
        if codes is None:
            rich_style = Style.parse(style)
            if self.console.no_color:
                rich_style = rich_style.without_color
            rendered = rich_style.render("\0", color_system=self.console._color_system)
            codes = self.styles[style] = tuple(rendered.split("\0"))
        return f"{codes[0]}{text}{codes[1]}"

    def print_markdown(self, text: str) -> None:
        if not text.strip():
            return
        if self.blocks_in_text:  # the blank line rich puts between blocks of one document
            self.console.print()
        self.blocks_in_text += 1
        self.printed_in_reply += 1
        if MARKDOWN_SYNTAX.search(text) is None:  # plain prose: skip the Markdown parser
            self.print_line(" ".join(text.split("\n")).strip())
        elif len(text) > MAX_MARKDOWN_CHARS:
            self.print_line(text.strip("\n"))  # as written: the parser would hold the loop up
        else:
            self.console.print(Sanitized(Markdown(visible(text), hyperlinks=False)))

    def flush_text(self) -> None:
        text, self.text = self.text, ""
        self.print_markdown(text)

    def stop_progress(self) -> None:
        """Erase the spinner and print any text still held: the input is over."""
        self.flush_text()
        self.progress.stop()

    def show_todos(self, items: list[dict]) -> None:
        self.flush_text()
        self.console.print(checklist(items))

    def show_totals(self) -> None:
        if self.usage.replies:
            self.print_line(self.usage.total_line(), "dim")

    def show_closing(self, note: str) -> None:
        """The last lines of a session: its total cost, and how to resume it."""
        self.show_totals()
        if note:
            self.print_line(note, "dim")

    async def ask_approval(self, question: str) -> Approval:
        """Show the subject exactly, ask yes / no (with a reason) / always; re-ask on anything else.

        `question`'s first line asks (the box title); the rest is the subject: the command or
        the path. A protected write also shows what it would change (cli/approval_preview.py).
        "Always" is offered only where the question says what it would allow
        (`question.always`, middleware/permissions.py). The answer is read without blocking
        the event loop, so a Ctrl-C or SIGTERM while it waits cancels the turn like anywhere
        else (`Agent.cancel` in agent.py); Ctrl-D answers "interrupt". Control characters in
        the subject are shown as symbols, with a warning: they could otherwise hide part of it.
        """
        always = getattr(question, "always", None)
        no_reason = getattr(question, "no_reason", False)
        preview = proposed_change(self.workspace, getattr(question, "call", None))
        question, _, subject = question.partition("\n")
        waiting_for = self.progress.label  # shown again once the answer is in
        self.stop_progress()
        width, height = self.console.size
        room = height - APPROVAL_SCREEN_ROOM
        subject_rows = screen_rows(lines_as_run(subject) or [""], width)
        preview_rows = screen_rows(preview.lines, width) + 2 if preview is not None else 0
        summed_up = is_long(subject) or subject_rows > room
        long = summed_up or is_long_preview(preview, APPROVAL_LINES, APPROVAL_LINE_CHARS)
        long = long or subject_rows + preview_rows > room
        self.show_subject(question, subject, preview, long, summed_up)
        viewed = not long  # a long subject is approved only once seen in full
        answers = ("y", "yes", "a", "always") if always else ("y", "yes")
        if viewed:
            self.print_line(answer_hint(always), "dim")
        try:
            while True:
                answer = (await read_answer(approval_prompt(viewed, always))).lower()
                if answer in ("v", "view"):
                    self.console.print(Text(shown_exactly(subject)))
                    if preview is not None:
                        self.console.print(
                            preview_text(preview, folded=False, max_chars=APPROVAL_LINE_CHARS)
                        )
                    self.show_subject(question, subject, preview, long, summed_up)  # (beside it)
                    viewed = True
                elif answer in answers and not viewed:
                    self.print_line(
                        "This is long and only its first and last lines are shown: type v to "
                        "see all of it before you approve it (or n to decline).",
                        "yellow",
                    )
                elif answer in answers:
                    if answer.startswith("a"):
                        self.print_line(
                            f"From now on in this session: {shorten(always)} run without "
                            "asking (/permissions lists the rules).",
                            "dim",
                        )
                    if waiting_for:
                        self.progress.show(waiting_for)
                    return ("always" if answer.startswith("a") else "yes"), ""
                elif answer in ("n", "no") and no_reason:
                    return "no", ""
                elif answer in ("n", "no"):
                    return "no", await read_answer("Reason for the model (optional): ")
                else:
                    choices = ("y, n or a" if always else "y or n") if viewed else "v or n"
                    self.print_line(f"Please type {choices} (not {answer!r}).", "yellow")
        except EOFError:
            self.console.print()
            return "interrupt", ""
        except asyncio.CancelledError:  # the turn was cancelled while the question waited
            self.console.print()
            raise

    def show_subject(
        self,
        question: str,
        subject: str,
        preview: ChangePreview | None = None,
        long: bool = False,
        summed_up: bool | None = None,
    ) -> None:
        """The approval box: the whole subject, or, `summed_up` (a long one, `is_long`, by
        default), its line count, first and last lines; and under it what a write would change
        (folded when `long`)."""
        lines = lines_as_run(subject) or [""]
        summed_up = is_long(subject) if summed_up is None else summed_up
        title = f"{question} ({len(lines)} lines)" if summed_up else question
        # (each line of a summary cut to one row of this terminal, so that it fits the screen
        # beside the question)
        row = max(self.console.size.width - 4 - len("… (999,999 more characters)"), 20)
        shown = subject_summary(lines, min(row, APPROVAL_LINE_CHARS)) if summed_up else subject
        body: Any = Text(shown_exactly(shown))
        if preview is not None:
            change = preview_text(preview, folded=long, max_chars=APPROVAL_LINE_CHARS)
            body = Group(body, Text(""), change)
        self.console.print(Panel(body, title=Text(title), title_align="left", style="yellow"))
        changed = preview.lines if preview is not None else []
        if any(has_hidden_characters(text, crlf_is_newline=False) for text in [subject, *changed]):
            self.print_line(
                "! This contains control characters (shown as ␛, ␍ and the like) that a "
                "terminal would hide or act on. Read it carefully before you answer.",
                "bold red",
            )
        if has_unseen_characters(subject) or any(has_unseen_characters(x, False) for x in changed):
            self.print_line(
                "! This contains characters that show as nothing or as a blank (shown as "
                "<U+200B> and the like): the words they are in are not the ones they look like.",
                "bold red",
            )
        if beyond := letters_beyond_ascii("\n".join([subject, *changed])):
            self.print_line(
                f"! Beyond ASCII here: {', '.join(beyond)}. A look-alike of a letter names "
                "another file or program.",
                "yellow",
            )


def is_long(subject: str) -> bool:
    """Whether an approval subject would not fit the box: it is then summed up, not shown."""
    lines = lines_as_run(subject)
    return len(lines) > APPROVAL_LINES or any(len(line) > APPROVAL_LINE_CHARS for line in lines)


def screen_rows(lines: list[str], width: int) -> int:
    """The rows `lines` take in a box `width` columns wide, inside its borders: each one at
    least, a long one as many as it wraps to."""
    inside = max(width - 4, 1)
    return sum(max(1, -(-cell_len(line) // inside)) for line in lines)


def subject_summary(lines: list[str], max_chars: int = APPROVAL_LINE_CHARS) -> str:
    """A long subject's first and last lines, each cut to `max_chars`, and what is between."""

    def cut(line: str) -> str:
        if len(line) <= max_chars:
            return line
        return f"{line[:max_chars]}… ({len(line) - max_chars:,} more characters)"

    if len(lines) <= 2 * EDGE_LINES:
        return "\n".join(cut(line) for line in lines)
    hidden = len(lines) - 2 * EDGE_LINES
    middle = f"… {hidden} more lines: type v to see them …"
    return "\n".join([*map(cut, lines[:EDGE_LINES]), middle, *map(cut, lines[-EDGE_LINES:])])


def approval_prompt(viewed: bool, always: str | None = None) -> str:
    if not viewed:
        return "[v]iew all of it / [n]o: "
    if always:
        return f"[y]es / [n]o / [a]lways for {shorten(always)}: "
    return "[y]es / [n]o: "


def answer_hint(always: str | None) -> str:
    if always:
        return "Answer y, n or a (always: for the rest of this session); there is no default."
    return "Answer y or n; there is no default (no always: this is asked every time)."


def shorten(text: str | None, limit: int = 120) -> str:
    """What an always covers, made visible and short enough for one prompt line."""
    shown = visible(text or "")
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


async def read_answer(prompt: str) -> str:
    """One line typed at a question (not input(): it stays out of the prompt's ↑ history).

    The event loop waits for the line to be ready, so its signal handlers keep running.
    """
    sys.stdout.write(prompt)
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    try:
        loop.add_reader(sys.stdin.fileno(), lambda: ready.done() or ready.set_result(None))
    except (PermissionError, ValueError):  # a regular file: a read never waits
        ready.set_result(None)
    else:
        try:
            await ready
        finally:
            loop.remove_reader(sys.stdin.fileno())
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.strip()


def print_error(text: str) -> None:
    """A one-line error for a person on stderr: made visible, wrapped only at word boundaries."""
    console = Console(stderr=True, highlight=False)
    line = own_words(f"planloop: {redact(text)}")
    console.print(Text(line), soft_wrap=not console.is_terminal)


def own_words(text: str) -> str:
    """planloop's own line, which may name a file a command made: each character in it that
    shows as nothing, or breaks the line where the terminal would not (U+2028), written out
    (`.env<U+200B>` is not your `.env`), as in the approval box."""
    return shown_exactly(text, marks=False)


class HeadlessUI(TerminalUI):
    """Headless output: progress to stderr; the final answer is printed to stdout by the caller.

    Text is held back until it is clear it was not the final answer (a tool call or another
    model call follows), so the answer does not show up twice. No per-reply cost lines: the
    totals are printed once at the end (`show_totals`).
    """

    show_diffs = False

    def __init__(self, console: Console, workspace: Path | None = None) -> None:
        super().__init__(console, workspace)
        self.held_text: list[str] = []  # text of complete replies, not yet shown
        self.streaming_text: list[str] = []  # text of the reply on its way in
        self.text_continues = False  # the last block streamed was text

    def stream_restarted(self) -> None:
        self.streaming_text.clear()  # the text of a stream that broke off is no answer
        self.text_continues = False

    def stream_event(self, event: Any) -> None:
        if event.type == "message_start":
            self.model = event.message.model
            self.text_continues = False
            self.streaming_text.clear()  # a retried stream starts over: drop the partial text
            self.show_held_text()
        elif event.type == "content_block_stop" and event.content_block.type == "text":
            if self.text_continues:  # text blocks in a row (citations) are one text
                self.streaming_text[-1] += event.content_block.text
            else:
                self.streaming_text.append(event.content_block.text)
            self.text_continues = True
        elif event.type == "content_block_stop":
            self.text_continues = False
        elif event.type == "message_stop":
            self.held_text.extend(self.streaming_text)
            self.streaming_text.clear()

    def reply_finished(self, reply: dict) -> None:
        self.progress.stop()
        self.usage.add(Usage.of_reply(reply.get("model") or self.model, reply.get("usage") or {}))

    def tool_started(self, call: dict) -> None:
        self.show_held_text()
        super().tool_started(call)

    def show_held_text(self) -> None:
        for text in self.held_text:
            self.print_line(text, "dim")
        self.held_text.clear()
