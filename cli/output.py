"""/output: the whole result of a tool call, paged, when its preview on screen was cut.

    /output      the result of the last tool call
    /output N    N calls back: /output 2 is the call before the last

The screen shows a result's first and last lines (cli/render.py); this shows all of it, in the
pager (cli/pager.py). The results are read from the conversation, which keeps every one as the
model got it: earlier inputs', those that context clearing leaves out of the requests, and those
a resumed session replayed. bash's output is there as the model saw it: a command that printed
more than 32 KB keeps its first and last 16 KB, with a note where the middle was cut
(tools/process.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.pager import page_for
from cli.render import describe_call

if TYPE_CHECKING:
    from agent import Agent


def calls_and_results(messages: list[dict]) -> list[tuple[dict, dict]]:
    """Every tool call that has a result, with that result, oldest first."""
    calls: dict[str, dict] = {}
    pairs = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_use":
                calls[block["id"]] = block
            elif block.get("type") == "tool_result":
                call = calls.get(block["tool_use_id"], {"name": "?", "input": {}})
                pairs.append((call, block))
    return pairs


def result_text(result: dict) -> str:
    """A tool_result's content as text (a list of blocks: their text, others named)."""
    content = result.get("content", "")
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        kind = block.get("type")
        parts.append(block.get("text", "") if kind == "text" else f"[{kind} block]")
    return "\n".join(parts)


async def output_command(agent: Agent, ui: Any, line: str) -> None:
    """/output [N]: page the whole result of the last tool call, or of the Nth from the end."""
    words = line.split()[1:]
    if len(words) > 1 or (words and not (words[0].isdigit() and int(words[0]) >= 1)):
        ui.notice("Use /output for the last tool call's result, or /output N for N calls back.")
        return
    back = int(words[0]) if words else 1
    pairs = calls_and_results(agent.messages)
    if not pairs:
        ui.print_line("No tool call has a result yet in this session.", "dim")
        return
    if back > len(pairs):
        ui.notice(f"This session has {len(pairs)} tool results; /output {len(pairs)} is the first.")
        return
    call, result = pairs[-back]
    number = len(pairs) - back + 1
    error = ", an error" if result.get("is_error") else ""
    title = f"> {describe_call(call)}  (tool call {number} of {len(pairs)}{error})"
    await page_for(agent, ui.console, f"{title}\n{result_text(result)}")
