"""Where a resumed session left off: the last input, the start of the last answer, the plan.

    resumed: 14 messages so far
    you> fix the failing parser test
    last answer: The parser now accepts trailing commas; the test passes.
    ╭─ todos 2/3 ─╮ ...

Only what the person typed counts as an input: a message holding tool results, a reminder
planloop added (`<reminder>`) or a background task's result (`<task-result>`) is skipped.
Everything shown is text the model or the person wrote, so it goes through `print_line`,
which makes control characters visible; long text is cut to a few lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cli.mentions import ATTACHMENT_TAG
from cli.render import checklist

if TYPE_CHECKING:
    from agent import Agent
    from cli.render import TerminalUI

SHOWN_LINES = 3
SHOWN_CHARS = 300
HARNESS_TAGS = ("<reminder>", "<task-result>")
ATTACHED_FILE = f"\n\n<{ATTACHMENT_TAG} "  # the files @path attached follow the typed text


def show_where_you_were(agent: Agent, ui: TerminalUI) -> None:
    """The resume banner: message count, last input, last answer, plan."""
    ui.print_line(f"resumed: {len(agent.messages)} messages so far", "dim")
    last_input = last_user_input(agent.messages)
    if last_input:
        ui.print_line(f"you> {shorten(last_input)}", "dim")
    answer = last_answer(agent.messages)
    if answer:
        ui.print_line(f"last answer: {shorten(answer)}", "dim")
    if agent.extra.get("todos"):
        ui.console.print(checklist(agent.extra["todos"]))


def last_user_input(messages: list[dict]) -> str:
    """The text of the last message the person typed, or ""."""
    for message in reversed(messages):
        if message["role"] != "user":
            continue
        blocks = content_blocks(message)
        if any(block.get("type") == "tool_result" for block in blocks):
            continue
        texts = [
            block.get("text", "")
            for block in blocks
            if block.get("type") == "text"
            and not block.get("text", "").lstrip().startswith(HARNESS_TAGS)
        ]
        typed = [text.split(ATTACHED_FILE)[0] for text in texts]  # not the files @path added
        if any(text.strip() for text in typed):
            return "\n".join(typed)
    return ""


def last_answer(messages: list[dict]) -> str:
    """The text of the model's last reply that said something, or ""."""
    for message in reversed(messages):
        if message["role"] != "assistant":
            continue
        texts = [b.get("text", "") for b in content_blocks(message) if b.get("type") == "text"]
        typed = [text.split(ATTACHED_FILE)[0] for text in texts]  # not the files @path added
        if any(text.strip() for text in typed):
            return "\n".join(typed)
    return ""


def content_blocks(message: dict) -> list[dict]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def shorten(text: str) -> str:
    """The first few non-empty lines, at most SHOWN_CHARS characters, marked when cut."""
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    shown = "\n  ".join(lines[:SHOWN_LINES])  # indented under the label
    cut = len(lines) > SHOWN_LINES or len(shown) > SHOWN_CHARS
    return shown[:SHOWN_CHARS].rstrip() + (" …" if cut else "")
