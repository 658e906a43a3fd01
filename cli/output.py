"""/output: the whole result of a tool call, paged, when its preview on screen was cut.

    /output      the result of the last tool call
    /output N    N calls back: /output 2 is the call before the last

The screen shows a result's first and last lines (cli/render.py); this shows all of it, in the
pager (cli/pager.py). The results are read from the conversation, which keeps every one as the
model got it: earlier inputs', those that context clearing leaves out of the requests, and those
a resumed session replayed.

bash's result is cut for the model to its first and last 16 KB (tools/process.py). So a command
whose output was cut also left all of it in a file beside the session (tools/bash.py; the first
4 MiB and the last 1 MiB, the key redacted), and /output pages that file when it is there,
saying so in the title line. Without it (removed, or a session of an older version) /output
pages the result as the model saw it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.pager import page_for
from cli.render import describe_call
from tools.bash import whole_output_path
from tools.tasks import FILE_HEAD_BYTES, find_task_manager

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


# What an output file holds where its middle was dropped, right after the first FILE_HEAD_BYTES
# (tools/tasks.py OutputFile.finish).
DROPPED_NOTE = re.compile(rb"\n\.\.\. \[(\d+) bytes not kept\] \.\.\.\n")


def read_whole_output(path: Path | None) -> tuple[str, int] | None:
    """A command's kept whole output and how many bytes in its middle were not kept; None when
    there is no such file."""
    try:
        kept = path.read_bytes() if path is not None else None
    except OSError:
        return None
    if kept is None:
        return None
    note = DROPPED_NOTE.match(kept, FILE_HEAD_BYTES)
    dropped = int(note.group(1)) if note else 0
    return kept.decode("utf-8", errors="replace"), dropped


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
    text, whole = result_text(result), ""
    folder = getattr(find_task_manager(agent), "folder", None)
    kept = read_whole_output(whole_output_path(folder, call.get("id", "")))
    if kept is not None:
        exit_line = text.rpartition("\n")[2]  # bash's last line: how the command ended
        text, dropped = kept
        if exit_line.startswith("[exit code:"):
            text = text.rstrip("\n") + "\n" + exit_line
        whole = ", its whole output"
        if dropped:
            whole += f"; the middle {dropped:,} bytes were not kept"
    title = f"> {describe_call(call)}  (tool call {number} of {len(pairs)}{error}{whole})"
    await page_for(agent, ui.console, f"{title}\n{text}")
