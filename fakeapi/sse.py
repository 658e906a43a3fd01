"""A scripted reply as the server-sent events of a streamed Messages response.

The event sequence follows the real API: ``message_start``, a ``ping``, then for each block
``content_block_start``, its deltas and ``content_block_stop``, and finally ``message_delta``
(stop reason and output usage) and ``message_stop``. Text, thinking and tool input arrive in
several small deltas, as they do for real, so a harness that keeps only the first or the last
delta of a block is caught.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from .replies import Block, MessageReply, StreamErrorReply, estimate_output_tokens, output_block

Event = tuple[str, dict[str, Any]]

# How many deltas a block's text is split into; small, but more than one.
DELTA_PIECES = 3


def encode_event(name: str, data: dict[str, Any]) -> bytes:
    """One event in wire form: ``event: NAME``, ``data: JSON`` and a blank line."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def message_events(
    reply: MessageReply,
    *,
    message_id: str,
    model: str,
    input_tokens: int,
    sign: Callable[[str], str],
) -> Iterator[Event]:
    """Every event of a complete streamed message."""
    yield from _opening(message_id, model, {"input_tokens": input_tokens, **reply.usage})
    for index, block in enumerate(reply.content):
        yield from _block_events(index, block, sign)
    output_tokens = reply.usage.get("output_tokens", estimate_output_tokens(reply.content))
    delta: dict[str, Any] = {"stop_reason": reply.stop_reason, "stop_sequence": reply.stop_sequence}
    if reply.stop_details is not None:
        delta["stop_details"] = reply.stop_details
    usage: dict[str, Any] = {"output_tokens": output_tokens}
    if "server_tool_use" in reply.usage:  # the final counts of server tool calls come last
        usage["server_tool_use"] = reply.usage["server_tool_use"]
    yield "message_delta", {"type": "message_delta", "delta": delta, "usage": usage}
    yield "message_stop", {"type": "message_stop"}


def stream_error_events(
    reply: StreamErrorReply,
    *,
    message_id: str,
    model: str,
    input_tokens: int,
    sign: Callable[[str], str],
) -> Iterator[Event]:
    """A stream that starts like a message and breaks off with an ``error`` event.

    The real API does this when it is overloaded after the response has begun: the HTTP
    status is already 200, so the error can only travel as an event.
    """
    yield from _opening(message_id, model, {"input_tokens": input_tokens})
    for index, block in enumerate(reply.content):
        yield from _block_events(index, block, sign)
    yield "error", {"type": "error", "error": dict(reply.error)}


def _opening(message_id: str, model: str, usage: dict[str, int]) -> Iterator[Event]:
    message = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        # Output so far is a single token; the final count comes with message_delta.
        "usage": {**usage, "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": message}
    yield "ping", {"type": "ping"}


def _block_events(index: int, block: Block, sign: Callable[[str], str]) -> Iterator[Event]:
    kind = block["type"]
    deltas: list[dict[str, Any]] = []
    if kind == "text":
        start: dict[str, Any] = {"type": "text", "text": ""}
        if block.get("citations"):  # each citation in a delta of its own, before the text
            start["citations"] = []
            deltas = [{"type": "citations_delta", "citation": c} for c in block["citations"]]
        deltas += [{"type": "text_delta", "text": piece} for piece in _pieces(block["text"])]
    elif kind == "redacted_thinking" or kind.endswith("_tool_result"):
        start = output_block(block, sign)  # whole in the start event, with no deltas
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": piece} for piece in _pieces(block["thinking"])
        ]
        # The signature comes last, in one delta of its own, as it does for real.
        deltas.append({"type": "signature_delta", "signature": sign(block["thinking"])})
    else:
        start = {"type": kind, "id": block["id"], "name": block["name"], "input": {}}
        raw = block.get("partial_json")
        if raw is None:
            raw = json.dumps(block["input"])
        # The real API opens a tool's input with an empty delta before any JSON arrives.
        deltas = [
            {"type": "input_json_delta", "partial_json": piece} for piece in ["", *_pieces(raw)]
        ]
    yield (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    for delta in deltas:
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def _pieces(value: str) -> list[str]:
    if not value:
        return []
    size = -(-len(value) // DELTA_PIECES)  # ceiling division
    return [value[i : i + size] for i in range(0, len(value), size)]
