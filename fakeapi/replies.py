"""Script entries: what the fake answers, one entry per accepted request.

A test scripts the model's side of a conversation as a list of entries. Three kinds exist:

* a message reply ``{"content": [blocks...], "stop_reason": ..., "usage": {...}}``, built
  from the block builders :func:`text`, :func:`tool_use` and :func:`thinking`;
* an HTTP error ``{"status": 529, "error": {"type": "overloaded_error", "message": ...}}``,
  optionally with ``"headers"`` (for example ``{"retry-after": "0"}``);
* an error in the middle of a stream ``{"mid_stream_error": {"type": ..., "message": ...},
  "content": [...]}``: HTTP 200, the given blocks, then an ``error`` event.

A callable ``fn(body) -> reply`` is an entry too, for replies that depend on the request (the
last tool_result, say). It is called with the accepted body; if it raises, the request is
answered with a 500 that tells the SDK not to retry, and the failure is kept in ``rejections``.

Entries are checked when they are added, so a typo in a test's script fails at the line that
wrote it rather than as a puzzling response later. This module also renders a message reply
as the complete, non-streamed Message object; :mod:`fakeapi.sse` renders it as a stream.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Block = dict[str, Any]
ReplyDict = dict[str, Any]
ScriptEntry = ReplyDict | Callable[[dict[str, Any]], ReplyDict]

STOP_REASONS = frozenset(
    {
        "end_turn",
        "tool_use",
        "max_tokens",
        "refusal",
        "pause_turn",
        "stop_sequence",
        "model_context_window_exceeded",
    }
)

# The HTTP status the real API pairs with each error type, used when a scripted stream
# error has to be delivered to a request that did not ask for a stream.
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}

_BLOCK_KEYS = {
    "text": {"type", "text", "citations"},
    "thinking": {"type", "thinking"},
    "redacted_thinking": {"type", "data"},
    "tool_use": {"type", "id", "name", "input", "partial_json"},
    # Server tools run on the API's side; their calls and results come in the reply itself.
    "server_tool_use": {"type", "id", "name", "input"},
    "web_search_tool_result": {"type", "tool_use_id", "content"},
    "web_fetch_tool_result": {"type", "tool_use_id", "content"},
    "code_execution_tool_result": {"type", "tool_use_id", "content"},
    "bash_code_execution_tool_result": {"type", "tool_use_id", "content"},
    "text_editor_code_execution_tool_result": {"type", "tool_use_id", "content"},
}
SERVER_RESULT_TYPES = frozenset(kind for kind in _BLOCK_KEYS if kind.endswith("_tool_result"))


class ScriptError(ValueError):
    """A script entry that the fake cannot serve; raised where the entry is added."""


def text(value: str) -> Block:
    """A text block for a scripted reply."""
    return {"type": "text", "text": value}


def tool_use(
    name: str,
    input: dict[str, Any] | None = None,
    id: str | None = None,
    *,
    partial_json: str | None = None,
) -> Block:
    """A tool_use block for a scripted reply, with a fresh ``toolu_`` id unless one is given.

    With ``partial_json`` the block streams only that raw, unfinished JSON as its input, as a
    call cut off by ``max_tokens`` does; the reply's stop_reason then defaults to max_tokens.
    """
    block: Block = {
        "type": "tool_use",
        "id": id if id is not None else new_tool_use_id(),
        "name": name,
        "input": dict(input or {}),
    }
    if partial_json is not None:
        block["partial_json"] = partial_json
    return block


def thinking(value: str) -> Block:
    """A thinking block for a scripted reply; the server signs it when it sends it."""
    return {"type": "thinking", "thinking": value}


def redacted_thinking(data: str = "opaque") -> Block:
    """A redacted_thinking block; the server seals `data` so that an edited copy is refused."""
    return {"type": "redacted_thinking", "data": data}


def server_tool_use(name: str, input: dict[str, Any], id: str | None = None) -> Block:
    """A call of a server tool (web_search, code_execution), with a fresh ``srvtoolu_`` id."""
    return {
        "type": "server_tool_use",
        "id": id or f"srvtoolu_{uuid.uuid4().hex[:24]}",
        "name": name,
        "input": dict(input),
    }


def web_search_result(call: Block, pages: list[tuple[str, str]]) -> Block:
    """The result block of a web_search call: one entry per (url, title)."""
    content = [
        {
            "type": "web_search_result",
            "url": url,
            "title": title,
            "encrypted_content": f"enc-{index}",
            "page_age": None,
        }
        for index, (url, title) in enumerate(pages)
    ]
    return {"type": "web_search_tool_result", "tool_use_id": call["id"], "content": content}


def cited_text(value: str, url: str, title: str, quote: str) -> Block:
    """A text block that cites a web page, as a web search answer carries it."""
    citation = {
        "type": "web_search_result_location",
        "url": url,
        "title": title,
        "encrypted_index": "idx-0",
        "cited_text": quote,
    }
    return {"type": "text", "text": value, "citations": [citation]}


def new_tool_use_id() -> str:
    return f"toolu_{uuid.uuid4().hex[:24]}"


def new_message_id() -> str:
    return f"msg_{uuid.uuid4().hex[:24]}"


@dataclass(frozen=True)
class MessageReply:
    """A scripted assistant message."""

    content: list[Block]
    stop_reason: str
    stop_sequence: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    stop_details: dict[str, Any] | None = None


@dataclass(frozen=True)
class HTTPErrorReply:
    """A scripted HTTP error response."""

    status: int
    error: dict[str, str]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamErrorReply:
    """A scripted stream that starts normally and then breaks off with an error event."""

    error: dict[str, str]
    content: list[Block] = field(default_factory=list)

    @property
    def status(self) -> int:
        """The HTTP status to use when the request was not streamed."""
        return ERROR_STATUS.get(self.error["type"], 500)


Reply = MessageReply | HTTPErrorReply | StreamErrorReply


def check_entry(entry: object) -> None:
    """Raise :class:`ScriptError` if `entry` is neither a servable reply nor a callable."""
    if not callable(entry):
        parse_reply(entry)


def parse_reply(entry: object) -> Reply:
    """Turn a reply dict into a typed reply, filling in defaults; :class:`ScriptError` if bad."""
    if not isinstance(entry, dict):
        raise ScriptError(f"a script entry must be a dict or a callable, got {entry!r}")
    entry = copy.deepcopy(entry)
    if "status" in entry:
        return _parse_http_error(entry)
    if "mid_stream_error" in entry:
        return _parse_stream_error(entry)
    return _parse_message(entry)


def _parse_http_error(entry: ReplyDict) -> HTTPErrorReply:
    _only_keys(entry, {"status", "error", "headers"}, "HTTP error entry")
    status = entry["status"]
    if not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 599:
        raise ScriptError(f"HTTP error entry: status must be an int in 400..599, got {status!r}")
    headers = entry.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise ScriptError("HTTP error entry: headers must map str to str")
    return HTTPErrorReply(status, _check_error(entry.get("error")), headers)


def _parse_stream_error(entry: ReplyDict) -> StreamErrorReply:
    _only_keys(entry, {"mid_stream_error", "content"}, "mid_stream_error entry")
    content = _check_blocks(entry.get("content", []))
    return StreamErrorReply(_check_error(entry["mid_stream_error"]), content)


def _parse_message(entry: ReplyDict) -> MessageReply:
    _only_keys(entry, {"content", "stop_reason", "stop_sequence", "usage", "stop_details"}, "reply")
    if "content" not in entry:
        raise ScriptError("reply: 'content' is required (a list of blocks)")
    # An empty list is allowed: the real API can end a turn with no content blocks at all.
    content = _check_blocks(entry["content"])
    cut_off = any("partial_json" in block for block in content)
    if "stop_reason" in entry:
        stop_reason = entry["stop_reason"]
    elif cut_off:
        stop_reason = "max_tokens"
    elif any(block["type"] == "tool_use" for block in content):
        stop_reason = "tool_use"
    else:
        stop_reason = "end_turn"
    if stop_reason not in STOP_REASONS:
        raise ScriptError(f"reply: stop_reason must be one of {sorted(STOP_REASONS)}")
    if cut_off and stop_reason not in ("max_tokens", "model_context_window_exceeded"):
        raise ScriptError(
            "reply: a block with partial_json is a cut-off call; use max_tokens or "
            "model_context_window_exceeded"
        )
    stop_sequence = entry.get("stop_sequence")
    if stop_sequence is not None and stop_reason != "stop_sequence":
        raise ScriptError("reply: stop_sequence is only meaningful with stop_reason stop_sequence")
    usage = entry.get("usage", {})
    counts = (
        [v for k, v in usage.items() if k != "server_tool_use"]
        if isinstance(usage, dict)
        else [None]
    )
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in counts):
        raise ScriptError("reply: usage must map field names to ints (server_tool_use: a dict)")
    stop_details = entry.get("stop_details")
    if stop_details is not None and (
        stop_reason != "refusal" or not isinstance(stop_details, dict)
    ):
        raise ScriptError("reply: stop_details is a dict, and only with stop_reason refusal")
    return MessageReply(content, stop_reason, stop_sequence, usage, stop_details)


def _check_error(error: object) -> dict[str, str]:
    if (
        not isinstance(error, dict)
        or set(error) != {"type", "message"}
        or not all(isinstance(v, str) for v in error.values())
    ):
        raise ScriptError(f"error must be {{'type': str, 'message': str}}, got {error!r}")
    return error


def _check_blocks(content: object) -> list[Block]:
    if not isinstance(content, list):
        raise ScriptError("reply: content must be a list of blocks")
    for index, block in enumerate(content):
        where = f"reply block {index}"
        if not isinstance(block, dict) or block.get("type") not in _BLOCK_KEYS:
            raise ScriptError(f"{where}: expected one of {sorted(_BLOCK_KEYS)}: {block!r}")
        _only_keys(block, _BLOCK_KEYS[block["type"]], where)
        kind = block["type"]
        if kind == "text" and not isinstance(block.get("text"), str):
            raise ScriptError(f"{where}: text must be a str")
        if kind == "thinking" and not isinstance(block.get("thinking"), str):
            raise ScriptError(f"{where}: thinking must be a str")
        if kind == "tool_use":
            for key in ("id", "name"):
                if not isinstance(block.get(key), str) or not block[key]:
                    raise ScriptError(f"{where}: {key} must be a non-empty str")
            block.setdefault("input", {})
            if not isinstance(block["input"], dict):
                raise ScriptError(f"{where}: input must be a dict")
            if "partial_json" in block and not isinstance(block["partial_json"], str):
                raise ScriptError(f"{where}: partial_json must be a str")
    return content


def _only_keys(entry: dict[str, Any], allowed: set[str], where: str) -> None:
    extra = set(entry) - allowed
    if extra:
        raise ScriptError(f"{where}: unknown keys {sorted(extra)} (allowed: {sorted(allowed)})")


def seal_redacted(data: str, sign: Callable[[str], str]) -> str:
    """The opaque data of a redacted_thinking block: the scripted data and its signature."""
    return f"{data}.{sign(data)}"


def output_block(block: Block, sign: Callable[[str], str]) -> Block:
    """A scripted block as the API returns it in a complete message."""
    if block["type"] == "redacted_thinking":
        return {"type": "redacted_thinking", "data": seal_redacted(block["data"], sign)}
    if block["type"] != "text" and block["type"] not in ("thinking", "tool_use"):
        return copy.deepcopy(block)  # server tool calls and results, as scripted
    if block["type"] == "thinking":
        return {
            "type": "thinking",
            "thinking": block["thinking"],
            "signature": sign(block["thinking"]),
        }
    if block["type"] == "tool_use":
        tool_input = block["input"]
        if "partial_json" in block:
            # A call cut off mid-input has no complete JSON; the SDK's own partial parser
            # would keep what it could, the fake keeps it simple and sends what parses.
            try:
                tool_input = json.loads(block["partial_json"])
            except json.JSONDecodeError:
                tool_input = {}
        return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": tool_input}
    if block.get("citations"):
        return {"type": "text", "text": block["text"], "citations": block["citations"]}
    return {"type": "text", "text": block["text"]}


def estimate_output_tokens(content: list[Block]) -> int:
    """A rough token count (four characters a token) so usage looks plausible."""
    chars = 0
    for block in content:
        if block["type"] in ("tool_use", "server_tool_use"):
            chars += len(block.get("partial_json") or json.dumps(block["input"]))
        else:
            chars += len(block.get("text") or block.get("thinking") or "")
    return max(1, chars // 4)


def render_message(
    reply: MessageReply,
    *,
    message_id: str,
    model: str,
    input_tokens: int,
    sign: Callable[[str], str],
) -> dict[str, Any]:
    """The complete Message object the API returns when the request did not stream."""
    usage = {
        "input_tokens": input_tokens,
        "output_tokens": estimate_output_tokens(reply.content),
        **reply.usage,
    }
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [output_block(block, sign) for block in reply.content],
        "stop_reason": reply.stop_reason,
        "stop_sequence": reply.stop_sequence,
        "stop_details": reply.stop_details,
        "usage": usage,
    }


# ---- shapes of real replies ------------------------------------------------------------------
#
# Scripts in the shapes the real API answers with, written for the tests (no recording is
# copied): each function returns the entries of one exchange, in order. Thinking, redacted
# thinking and server-tool blocks come back signed or as given, so that a harness that
# alters any of them on the way back is refused.


def thinking_then_tool_call(command: str = "ls") -> list[ReplyDict]:
    """A reply that thinks, says a word and calls bash; then one that thinks and answers."""
    return [
        {
            "content": [
                thinking("The user wants the folder listed.\nbash with ls does that."),
                text("Let me look."),
                tool_use("bash", {"command": command}),
            ],
            "usage": {"input_tokens": 1850, "output_tokens": 96},
        },
        {"content": [thinking("The listing came back."), text("The folder is listed above.")]},
    ]


def redacted_thinking_reply() -> list[ReplyDict]:
    """Thinking the safety systems encrypted, next to readable thinking, before a call."""
    return [
        {
            "content": [
                redacted_thinking("EmwKAhgBEgy3va3pzix"),
                thinking("Check the tests."),
                tool_use("bash", {"command": "true"}),
            ]
        },
        {"content": [text("Checked.")]},
    ]


def two_tool_calls(first: str = "a.txt", second: str = "b.txt") -> list[ReplyDict]:
    """Two calls in one reply, answered together; then the answer."""
    return [
        {
            "content": [
                text("I'll read both files."),
                tool_use("read_file", {"path": first}),
                tool_use("read_file", {"path": second}),
            ]
        },
        {"content": [text("Both read.")]},
    ]


SEARCH_PAGE = ("https://example.org/planloop", "planloop, a small agent")


def web_search_with_citations() -> list[ReplyDict]:
    """A search run by the server, then an answer whose sentence is cut at its citation.

    The usage is the server's: the input of each step it took, added up (far above the
    request), and the count of searches it ran.
    """
    search = server_tool_use("web_search", {"query": "planloop agent"})
    url, title = SEARCH_PAGE
    return [
        {
            "content": [
                text("Let me search for that."),
                search,
                web_search_result(search, [SEARCH_PAGE]),
                text("According to its page, "),
                cited_text("planloop is a small agent harness", url, title, "a small agent"),
                text(".\n\n- it runs one loop\n- it keeps a plan"),
            ],
            "usage": {
                "input_tokens": 465_000,
                "output_tokens": 230,
                "server_tool_use": {"web_search_requests": 1},
            },
        }
    ]


def paused_web_search() -> list[ReplyDict]:
    """A turn the server pauses mid-search (pause_turn), then the rest of the same turn."""
    search = server_tool_use("web_search", {"query": "planloop"})
    return [
        {"content": [text("Searching."), search], "stop_reason": "pause_turn"},
        {
            "content": [web_search_result(search, [SEARCH_PAGE]), text("Found it.")],
            "usage": {"server_tool_use": {"web_search_requests": 1}},
        },
    ]


def refusal(category: str | None = "cyber") -> list[ReplyDict]:
    """A reply cut short by the safety systems, with their reason."""
    details = {
        "type": "refusal",
        "category": category,
        "explanation": "The request could enable harm to computer systems.",
    }
    return [{"content": [text("I can")], "stop_reason": "refusal", "stop_details": details}]


def cut_off_tool_call(path: str = "big.txt") -> list[ReplyDict]:
    """A write_file call cut off by max_tokens in the middle of its input; then a reply."""
    return [
        {
            "content": [
                text("Writing the file."),
                tool_use("write_file", partial_json=f'{{"path": "{path}", "content": "aaaa'),
            ],
            "stop_reason": "max_tokens",
        },
        {"content": [text("I will write it in parts.")]},
    ]
