"""/context: how full the context window is, and what fills it.

    used       what the API counted for the last request (input, cache reads and writes);
               before the first call, the estimate of the next one
    the parts  of the next request as it would be sent (old results cleared, notes of a
               compaction in place of what they replaced), each estimated as characters / 4:

               system prompt   planloop's own text, then the project instructions, per file
               tool schemas    every tool's name, description and input schema
               messages        user text, tool results, assistant text, tool calls, thinking

Also here: the one line that names the project instruction files loaded at start-up
(prompts/project.py), shown under the interactive banner and on stderr when headless.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from agent import REFUSED_INPUTS
from cli.sanitize import visible
from conversation import without_spans
from defaults import find_middleware
from middleware.context import CHARS_PER_TOKEN, context_window, find_context_manager, short_tokens
from prompts.project import InstructionFile, ProjectInstructions, escape_for_tag

if TYPE_CHECKING:
    from agent import Agent
    from cli.render import TerminalUI

# Message parts, in the order the table shows them: block type -> row name.
MESSAGE_PARTS = {
    ("user", "text"): "user text",
    ("user", "tool_result"): "tool results",
    ("assistant", "text"): "assistant text",
    ("assistant", "tool_use"): "tool calls",
    ("assistant", "thinking"): "thinking",
    ("assistant", "redacted_thinking"): "thinking",
}


def instruction_files(agent: Agent) -> list[InstructionFile]:
    """The project instruction files the agent loaded (none without ProjectInstructions)."""
    instructions = find_middleware(agent, ProjectInstructions)
    return instructions.files if instructions is not None else []


def loaded_instructions_line(agent: Agent) -> str | None:
    """'project instructions: ~/.planloop/AGENTS.md (310 B) · AGENTS.md (1.2 KB)', or None."""
    files = instruction_files(agent)
    if not files:
        return None
    return "project instructions: " + " · ".join(file.describe() for file in files)


def tokens(chars: int) -> int:
    return chars // CHARS_PER_TOKEN


async def context_parts(agent: Agent) -> list[tuple[str, int]]:
    """(what, estimated tokens) for each part of the next request; indented names are details."""
    full_system = await agent.hooks.transform_system_prompt(
        agent.context.system_prompt, agent.signal
    )
    instructions = find_middleware(agent, ProjectInstructions)
    section = len(instructions.section) + 2 if instructions and instructions.section else 0
    parts = [("system prompt: planloop's text", tokens(len(full_system) - section))]
    if section:
        parts.append(("system prompt: project instructions", tokens(section)))
        for file in instructions.files:
            parts.append((f"  {file.describe()}", tokens(len(escape_for_tag(file.text)))))
    schemas = [tool.schema() for tool in agent.tools.values()]
    parts.append((f"tool schemas ({len(schemas)} tools)", tokens(len(json.dumps(schemas)))))
    parts += [(f"messages: {name}", count) for name, count in message_parts(agent).items()]
    return parts


def message_parts(agent: Agent) -> dict[str, int]:
    """Estimated tokens of the messages the next request would send, by kind of block."""
    sendable = without_spans(agent.messages, agent.extra.get(REFUSED_INPUTS, []))
    manager = find_context_manager(agent)
    request = manager.build_request(sendable) if manager is not None else sendable
    counts = dict.fromkeys(MESSAGE_PARTS.values(), 0)
    if manager is not None and manager.start(sendable):  # the first message is the notes
        counts = {"compaction notes": 0, **counts}
    for index, message in enumerate(request):
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            name = MESSAGE_PARTS.get((message["role"], block.get("type")), "other")
            if index == 0 and "compaction notes" in counts:
                name = "compaction notes"
            counts[name] = counts.get(name, 0) + tokens(len(json.dumps(block, ensure_ascii=False)))
    return counts


async def show_context(agent: Agent, ui: TerminalUI, line: str) -> None:
    """/context: the tokens used of the window, then a table of what fills the next request."""
    manager = find_context_manager(agent)
    window = manager.window if manager is not None else context_window(agent.model)
    parts = await context_parts(agent)
    estimate = sum(count for name, count in parts if not name.startswith("  "))
    usage = agent.extra.get("context_usage")
    if usage:
        used, how = usage["tokens"], "as the API counted the last request"
    else:
        used, how = estimate, "estimated: no model call yet"
    share = percent(used, window)
    ui.print_line(f"context: {used:,} of {short_tokens(window)} tokens ({share}), {how}")
    table = Table(title="the next request (≈ tokens: characters / 4)", title_justify="left")
    table.add_column("part")
    table.add_column("tokens", justify="right")
    table.add_column("of window", justify="right")
    for name, count in parts:
        style = "dim" if name.startswith("  ") else ""
        table.add_row(Text(visible(name), style=style), f"{count:,}", percent(count, window))
    table.add_row(Text("total", style="bold"), f"{estimate:,}", percent(estimate, window))
    ui.console.print(table)


def percent(count: int, window: int) -> str:
    share = 100 * count / window
    return f"{share:.1f}%" if share < 10 else f"{share:.0f}%"
