"""Request validation: refuse what the real Messages API refuses.

The point of the fake is to make a harness fail in tests for the mistakes that would make the
real API answer 400: a ``tool_use`` left without its ``tool_result``, results out of order or
after other content, empty text, an edited thinking block, a conversation that ends on an
assistant turn, too many cache breakpoints, a malformed tool definition. Messages name the
offending path (``messages.3.content.0: ...``) and borrow the real API's wording where it is
known. Where the real API is lenient and a harness should not rely on it (two user turns in a
row, which it merges), the fake is stricter on purpose.

Which keys may be null follows the SDK's request types: a field typed ``Optional`` there may
be sent as null, any other field must be left out rather than sent as null.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

TOP_LEVEL_KEYS = frozenset(
    {
        "model",
        "max_tokens",
        "messages",
        "system",
        "tools",
        "tool_choice",
        "stream",
        "stop_sequences",
        "metadata",
        "thinking",
        "top_k",
        "top_p",
        "cache_control",
        "output_config",
        "service_tier",
    }
)

TOOL_KEYS = frozenset(
    {
        "name",
        "description",
        "input_schema",
        "cache_control",
        "type",
        "strict",
        "allowed_callers",
        "defer_loading",
        "eager_input_streaming",
        "input_examples",
    }
)

# Keys each content block type may carry, per role. Image blocks are taken as they come.
# Citations are the model's: the API adds them to the text blocks of its answers. A text
# block a user sends has none (the citations guide: "citations ... in the response").
USER_BLOCK_KEYS = {
    "text": frozenset({"type", "text", "cache_control"}),
    "image": None,
    "tool_result": frozenset(
        {"type", "tool_use_id", "content", "is_error", "cache_control", "toolset_name"}
    ),
}
ASSISTANT_BLOCK_KEYS = {
    "text": frozenset({"type", "text", "cache_control", "citations"}),
    "tool_use": frozenset(
        {"type", "id", "name", "input", "cache_control", "caller", "toolset_name"}
    ),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
    # Server tools (web search, web fetch, code execution) run on the API's side: their call
    # and result both arrive in the reply, and go back in the assistant message as received.
    "server_tool_use": frozenset({"type", "id", "name", "input", "cache_control", "caller"}),
    **{
        kind: frozenset({"type", "tool_use_id", "content", "cache_control", "caller"})
        for kind in (
            "web_search_tool_result",
            "web_fetch_tool_result",
            "code_execution_tool_result",
            "bash_code_execution_tool_result",
            "text_editor_code_execution_tool_result",
        )
    },
}
SERVER_RESULT_TYPES = frozenset(k for k in ASSISTANT_BLOCK_KEYS if k.endswith("_tool_result"))
TOOL_RESULT_ITEM_KEYS = {
    "text": USER_BLOCK_KEYS["text"],
    "image": None,
}

# The patterns are written as the API prints them in its errors. Check them with fullmatch:
# with re.match, `$` also matches before a trailing newline, so "bash\n" would pass.
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_CACHE_BREAKPOINTS = 4
MIN_THINKING_BUDGET = 1024


class RequestRejected(Exception):
    """A request the API answers with an error; carries the status and error envelope fields."""

    def __init__(
        self, message: str, *, status: int = 400, error_type: str = "invalid_request_error"
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.error_type = error_type


def _reject(path: str, problem: str) -> RequestRejected:
    return RequestRejected(f"{path}: {problem}")


VerifyThinking = Callable[[str, str], bool]
WasPaused = Callable[[list], bool]


def validate_request(
    body: object, verify_thinking: VerifyThinking, was_paused: WasPaused | None = None
) -> None:
    """Raise :class:`RequestRejected` for the first problem found in a Messages request body.

    `verify_thinking(thinking, signature)` says whether a thinking block coming back in an
    assistant turn is one the server signed, unchanged (the data of a redacted_thinking block
    is checked the same way). `was_paused(content)` says whether an assistant message's
    content is a reply this server paused (stop_reason pause_turn): the one assistant message
    that may end a request.
    """
    if not isinstance(body, dict):
        raise RequestRejected("body: Input should be a valid dictionary")
    # The fake stands for current models, which take no sampling parameters: "Setting
    # temperature, top_p, or top_k to any non-default value will return a 400 error" (the
    # migration notes of Claude Opus 4.7). Older models refuse them with thinking on: "Thinking
    # isn't compatible with temperature or top_k modifications" (extended thinking, feature
    # compatibility).
    for sampling in ("temperature", "top_p", "top_k"):
        if sampling in body:
            raise RequestRejected(f"{sampling} is not supported for this model")
    for key in sorted(body):
        if key not in TOP_LEVEL_KEYS:
            raise _reject(key, "Extra inputs are not permitted")

    _check_scalars(body)
    breakpoints: list[str] = []
    if _cache_control(body, "cache_control"):
        breakpoints.append("cache_control")
    _check_thinking_config(body)
    if "system" in body:
        _check_system(body["system"], breakpoints)
    tool_names = _check_tools(body, breakpoints)
    _check_tool_choice(body, tool_names)
    _check_messages(body, breakpoints, verify_thinking, was_paused)
    if len(breakpoints) > MAX_CACHE_BREAKPOINTS:
        raise RequestRejected(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {len(breakpoints)}."
        )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_scalars(body: dict[str, Any]) -> None:
    model = body.get("model")
    if "model" not in body:
        raise _reject("model", "Field required")
    if not isinstance(model, str) or not model.strip():
        raise _reject("model", "Input should be a non-empty string")
    if "max_tokens" not in body:
        raise _reject("max_tokens", "Field required")
    if not _is_int(body["max_tokens"]):
        raise _reject("max_tokens", "Input should be a valid integer")
    # 0 is accepted: a request that only fills the prompt cache asks for no output at all.
    if body["max_tokens"] < 0:
        raise _reject("max_tokens", "Input should be greater than or equal to 0")
    if "stream" in body and not isinstance(body["stream"], bool):
        raise _reject("stream", "Input should be a valid boolean")
    if "stop_sequences" in body:
        stops = body["stop_sequences"]
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise _reject("stop_sequences", "Input should be a valid list of strings")
        if any(not s.strip() for s in stops):
            raise _reject("stop_sequences", "each stop sequence must contain non-whitespace")
    if "metadata" in body:
        metadata = body["metadata"]
        if not isinstance(metadata, dict):
            raise _reject("metadata", "Input should be a valid dictionary")
        _only_keys(metadata, {"user_id"}, "metadata")
        if metadata.get("user_id") is not None and not isinstance(metadata["user_id"], str):
            raise _reject("metadata.user_id", "Input should be a valid string")
    if "top_k" in body and (not _is_int(body["top_k"]) or body["top_k"] < 0):
        raise _reject("top_k", "Input should be a non-negative integer")
    if "top_p" in body:
        top_p = body["top_p"]
        if not isinstance(top_p, int | float) or isinstance(top_p, bool) or not 0 <= top_p <= 1:
            raise _reject("top_p", "Input should be a number between 0 and 1")
    if "service_tier" in body and body["service_tier"] not in ("auto", "standard_only"):
        raise _reject("service_tier", "Input should be 'auto' or 'standard_only'")
    if "output_config" in body and not isinstance(body["output_config"], dict):
        raise _reject("output_config", "Input should be a valid dictionary")


def _check_thinking_config(body: dict[str, Any]) -> None:
    if "thinking" not in body:
        return
    config = body["thinking"]
    if not isinstance(config, dict):
        raise _reject("thinking", "Input should be a valid dictionary")
    kind = config.get("type")
    if kind == "enabled":
        _only_keys(config, {"type", "budget_tokens", "display"}, "thinking")
        budget = config.get("budget_tokens")
        if not _is_int(budget):
            raise _reject("thinking.budget_tokens", "Input should be a valid integer")
        if budget < MIN_THINKING_BUDGET:
            raise _reject(
                "thinking.budget_tokens",
                f"Input should be greater than or equal to {MIN_THINKING_BUDGET}",
            )
        # "budget_tokens must be set to a value less than max_tokens" (extended thinking).
        if budget >= body["max_tokens"]:
            raise _reject("max_tokens", "must be greater than thinking.budget_tokens")
    elif kind == "adaptive":
        _only_keys(config, {"type", "display"}, "thinking")
    elif kind in ("disabled", "between_tools"):
        _only_keys(config, {"type"}, "thinking")
    else:
        raise _reject(
            "thinking.type",
            "Input should be 'enabled', 'adaptive', 'disabled' or 'between_tools'",
        )
    if config.get("display") not in (None, "summarized", "omitted"):
        raise _reject("thinking.display", "Input should be 'summarized' or 'omitted'")


def _check_system(system: object, breakpoints: list[str]) -> None:
    if isinstance(system, str):
        return
    if not isinstance(system, list):
        raise _reject("system", "Input should be a valid string or a list of text blocks")
    for index, block in enumerate(system):
        path = f"system.{index}"
        if not isinstance(block, dict) or block.get("type") != "text":
            raise _reject(path, "system blocks must be text blocks")
        _check_text_block(block, path, breakpoints)


def _check_tools(body: dict[str, Any], breakpoints: list[str]) -> set[str]:
    if "tools" not in body:
        return set()
    tools = body["tools"]
    if not isinstance(tools, list):
        raise _reject("tools", "Input should be a valid list")
    names: set[str] = set()
    for index, tool in enumerate(tools):
        path = f"tools.{index}"
        if not isinstance(tool, dict):
            raise _reject(path, "Input should be a valid dictionary")
        if tool.get("type") not in (None, "custom"):
            raise _reject(f"{path}.type", "only custom tools are supported by this server")
        _only_keys(tool, TOOL_KEYS, path)
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
            raise _reject(f"{path}.name", f"String should match pattern '{TOOL_NAME.pattern}'")
        if name in names:
            raise _reject("tools", f"Tool names must be unique. Duplicate: {name}")
        names.add(name)
        if "description" in tool and not isinstance(tool["description"], str):
            raise _reject(f"{path}.description", "Input should be a valid string")
        if "strict" in tool and not isinstance(tool["strict"], bool):
            raise _reject(f"{path}.strict", "Input should be a valid boolean")
        if "input_schema" not in tool:
            raise _reject(f"{path}.input_schema", "Field required")
        schema = tool["input_schema"]
        if not isinstance(schema, dict):
            raise _reject(f"{path}.input_schema", "Input should be a valid dictionary")
        if schema.get("type") != "object":
            raise _reject(f"{path}.input_schema.type", "Input should be 'object'")
        if _cache_control(tool, path):
            breakpoints.append(path)
    return names


def _check_tool_choice(body: dict[str, Any], tool_names: set[str]) -> None:
    if "tool_choice" not in body:
        return
    choice = body["tool_choice"]
    if not isinstance(choice, dict):
        raise _reject("tool_choice", "Input should be a valid dictionary")
    kind = choice.get("type")
    if kind == "tool":
        _only_keys(choice, {"type", "name", "disable_parallel_tool_use"}, "tool_choice")
        if not isinstance(choice.get("name"), str):
            raise _reject("tool_choice.name", "Field required")
    elif kind in ("auto", "any"):
        _only_keys(choice, {"type", "disable_parallel_tool_use"}, "tool_choice")
    elif kind == "none":
        _only_keys(choice, {"type"}, "tool_choice")
    else:
        raise _reject("tool_choice.type", "Input should be 'auto', 'any', 'tool' or 'none'")
    if "disable_parallel_tool_use" in choice and not isinstance(
        choice["disable_parallel_tool_use"], bool
    ):
        raise _reject("tool_choice.disable_parallel_tool_use", "Input should be a valid boolean")
    if kind in ("any", "tool") and not tool_names:
        raise RequestRejected("tool_choice may only be specified while providing tools")
    if kind == "tool" and choice["name"] not in tool_names:
        raise _reject("tool_choice.name", f"tool {choice['name']!r} is not in `tools`")
    # "Thinking isn't compatible with ... forced tool use" is a rule of manual thinking
    # (type enabled, extended thinking's feature compatibility). Adaptive thinking decides
    # per turn whether to think, and a forced call is a turn it does not think in.
    thinking = body.get("thinking")
    if kind in ("any", "tool") and isinstance(thinking, dict) and thinking["type"] == "enabled":
        raise RequestRejected("Thinking may not be enabled when tool_choice forces tool use.")


def _check_messages(
    body: dict[str, Any],
    breakpoints: list[str],
    verify_thinking: VerifyThinking,
    was_paused: WasPaused | None,
) -> None:
    if "messages" not in body:
        raise _reject("messages", "Field required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _reject("messages", "Input should be a valid list")
    if not messages:
        raise _reject("messages", "at least one message is required")

    seen_tool_use_ids: dict[str, str] = {}
    pending: tuple[int, list[str]] | None = None  # the previous assistant turn's tool calls
    uses_tools = False
    for index, message in enumerate(messages):
        path = f"messages.{index}"
        if not isinstance(message, dict):
            raise _reject(path, "Input should be a valid dictionary")
        _only_keys(message, {"role", "content"}, path)
        role = message.get("role")
        if role not in ("user", "assistant"):
            raise _reject(f"{path}.role", "Input should be 'user' or 'assistant'")
        if "content" not in message:
            raise _reject(f"{path}.content", "Field required")
        if index == 0 and role != "user":
            raise _reject(f"{path}.role", 'first message must use the "user" role')
        if index > 0 and messages[index - 1].get("role") == role:
            raise _reject(
                path,
                'roles must alternate between "user" and "assistant", '
                f'but found multiple "{role}" roles in a row',
            )

        blocks = _content_blocks(message["content"], f"{path}.content")
        if role == "assistant":
            tool_use_ids = _check_assistant_blocks(
                blocks, breakpoints, verify_thinking, seen_tool_use_ids
            )
            uses_tools = uses_tools or bool(tool_use_ids)
            pending = (index, tool_use_ids)
        else:
            results = _check_user_blocks(blocks, breakpoints)
            uses_tools = uses_tools or bool(results)
            _check_pairing(pending, results, index)
            pending = None

    # The one assistant message that may come last: a reply the server paused. "To continue,
    # pass the paused response back as-is in a subsequent request" (stop reasons, pause_turn).
    last = messages[-1]
    paused = (
        last.get("role") == "assistant" and was_paused is not None and was_paused(last["content"])
    )
    if last.get("role") == "assistant" and not paused:
        raise RequestRejected(
            "This model does not support assistant message prefill. "
            "The conversation must end with a user message."
        )
    _check_thinking_starts_tool_loop(body, messages)
    if uses_tools and not body.get("tools"):
        raise RequestRejected(
            "Requests which include `tool_use` or `tool_result` blocks must define tools."
        )


def _check_thinking_starts_tool_loop(body: dict[str, Any], messages: list[dict]) -> None:
    """With manual thinking on, the assistant turn of an unfinished tool loop opens with thinking.

    "When `thinking` is enabled, a final `assistant` message must start with a thinking block
    (preceding the lastmost set of `tool_use` and `tool_result` blocks)" (the API's error for
    it). A tool loop is one assistant turn: its first message is the one that must think
    first; the later ones may not think at all. Adaptive thinking decides per turn whether to
    think, so a turn without thinking is one of its own answers and is not refused.
    """
    thinking = body.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return
    index = len(messages) - 1
    first_of_turn = None
    # Walk back over the loop: (assistant message, user message with tool results) pairs.
    while index >= 1 and _has_tool_results(messages[index]):
        if messages[index - 1].get("role") != "assistant":
            break
        first_of_turn = index - 1
        index -= 2
    if first_of_turn is None:
        return
    content = messages[first_of_turn].get("content")
    first = content[0].get("type") if isinstance(content, list) and content else None
    if first not in ("thinking", "redacted_thinking"):
        raise _reject(
            f"messages.{first_of_turn}.content.0.type",
            f"Expected `thinking` or `redacted_thinking`, but found `{first}`. When `thinking` "
            "is enabled, a final `assistant` message must start with a thinking block.",
        )


def _has_tool_results(message: dict) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, list)
        and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def _content_blocks(content: object, path: str) -> list[tuple[str, dict[str, Any]]]:
    """The content as (path, block) pairs; a string content is checked here and yields none."""
    if isinstance(content, str):
        _check_text(content, path)
        return []
    if not isinstance(content, list):
        raise _reject(path, "Input should be a valid string or a list of content blocks")
    if not content:
        raise _reject(path, "messages must have non-empty content")
    pairs = []
    for index, block in enumerate(content):
        block_path = f"{path}.{index}"
        if not isinstance(block, dict):
            raise _reject(block_path, "Input should be a valid dictionary")
        pairs.append((block_path, block))
    return pairs


def _check_assistant_blocks(
    blocks: list[tuple[str, dict[str, Any]]],
    breakpoints: list[str],
    verify_thinking: VerifyThinking,
    seen_tool_use_ids: dict[str, str],
) -> list[str]:
    """Check an assistant turn's blocks and return its tool_use ids, in order."""
    tool_use_ids: list[str] = []
    # Thinking comes before the answer: a thinking block after text is refused, unless a
    # server tool's result came between (the model thinks again about what the tool found).
    text_seen = False
    for block_path, block in blocks:
        kind = _block_type(block, block_path, ASSISTANT_BLOCK_KEYS, "an assistant message")
        if kind in ("thinking", "redacted_thinking") and text_seen:
            raise _reject(block_path, "thinking blocks must come before the text they lead to")
        text_seen = (text_seen or kind == "text") and kind not in SERVER_RESULT_TYPES
        if kind == "text":
            _check_text_block(block, block_path, breakpoints)
        elif kind == "tool_use":
            _check_tool_use(block, block_path)
            if block["id"] in seen_tool_use_ids:
                raise _reject(
                    f"{block_path}.id",
                    f"`tool_use` ids must be unique: {block['id']} was already used at "
                    f"{seen_tool_use_ids[block['id']]}",
                )
            seen_tool_use_ids[block["id"]] = block_path
            tool_use_ids.append(block["id"])
            if _cache_control(block, block_path):
                breakpoints.append(block_path)
        elif kind == "thinking":
            _check_thinking_block(block, block_path, verify_thinking)
        elif kind == "redacted_thinking":
            _check_redacted_thinking(block, block_path, verify_thinking)
        elif kind == "server_tool_use" and not isinstance(block.get("id"), str):
            raise _reject(f"{block_path}.id", "Field required")
    return tool_use_ids


def _check_redacted_thinking(
    block: dict[str, Any], path: str, verify_thinking: VerifyThinking
) -> None:
    """The data is opaque and signed: it goes back exactly as it came ("encrypted", the
    extended thinking guide says of redacted thinking), or the request is refused."""
    data = block.get("data")
    if not isinstance(data, str) or not data:
        raise _reject(f"{path}.data", "Input should be a non-empty string")
    payload, _, signature = data.rpartition(".")
    if not payload or not verify_thinking(payload, signature):
        raise _reject(path, "redacted_thinking block data is invalid")


def _check_user_blocks(
    blocks: list[tuple[str, dict[str, Any]]], breakpoints: list[str]
) -> list[tuple[str, str]]:
    """Check a user turn's blocks and return its tool results as (block path, tool_use_id)."""
    results: list[tuple[str, str]] = []
    other_seen = False
    for block_path, block in blocks:
        if block.get("type") in ("thinking", "redacted_thinking"):
            raise _reject(block_path, "thinking blocks may only appear in assistant messages")
        kind = _block_type(block, block_path, USER_BLOCK_KEYS, "a user message")
        if kind == "tool_result":
            if other_seen:
                raise _reject(
                    block_path,
                    "`tool_result` blocks must come first in the user message content, "
                    "before any other block",
                )
            _check_tool_result(block, block_path, breakpoints)
            results.append((block_path, block["tool_use_id"]))
            continue
        other_seen = True
        if kind == "text":
            _check_text_block(block, block_path, breakpoints)
        elif _cache_control(block, block_path):
            breakpoints.append(block_path)
    return results


def _check_pairing(
    pending: tuple[int, list[str]] | None, results: list[tuple[str, str]], index: int
) -> None:
    """Every tool call of the previous assistant turn answered once, in order, by this turn."""
    call_index, calls = pending if pending is not None else (index - 1, [])
    answered: list[str] = []
    for block_path, tool_use_id in results:
        if tool_use_id not in calls:
            raise _reject(
                block_path,
                f"unexpected `tool_use_id` found in `tool_result` blocks: {tool_use_id}. "
                "Each `tool_result` block must have a corresponding `tool_use` block in the "
                "previous message.",
            )
        if tool_use_id in answered:
            raise _reject(
                block_path,
                f"duplicate `tool_result` for {tool_use_id}. Each `tool_use` block must have "
                "exactly one corresponding `tool_result` block.",
            )
        answered.append(tool_use_id)
    missing = [call for call in calls if call not in answered]
    if missing:
        raise _reject(
            f"messages.{call_index}",
            "`tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(missing)}. Each `tool_use` block must have a corresponding "
            "`tool_result` block in the next message.",
        )
    if answered != calls:
        raise _reject(
            f"messages.{index}",
            "`tool_result` blocks must be in the same order as the `tool_use` blocks they "
            f"answer: expected {', '.join(calls)}; got {', '.join(answered)}.",
        )


def _block_type(
    block: dict[str, Any],
    path: str,
    allowed: dict[str, frozenset[str] | None],
    where: str,
) -> str:
    kind = block.get("type")
    if kind not in allowed:
        raise _reject(
            f"{path}.type",
            f"Input tag {kind!r} is not a valid block type in {where} "
            f"(expected one of {', '.join(repr(k) for k in allowed)})",
        )
    keys = allowed[kind]
    if keys is not None:
        _only_keys(block, keys, path)
    return kind


def _check_text(value: object, path: str) -> None:
    if not isinstance(value, str):
        raise _reject(path, "Input should be a valid string")
    if not value:
        raise _reject(path, "text content blocks must be non-empty")
    if not value.strip():
        raise _reject(path, "text content blocks must contain non-whitespace text")


def _check_text_block(block: dict[str, Any], path: str, breakpoints: list[str]) -> None:
    if "text" not in block:
        raise _reject(f"{path}.text", "Field required")
    _check_text(block["text"], path)
    citations = block.get("citations")
    if citations is not None and not isinstance(citations, list):
        raise _reject(f"{path}.citations", "Input should be a valid list")
    if _cache_control(block, path):
        breakpoints.append(path)


def _check_tool_use(block: dict[str, Any], path: str) -> None:
    for key in ("id", "name", "input"):
        if key not in block:
            raise _reject(f"{path}.{key}", "Field required")
    if not isinstance(block["id"], str) or not TOOL_USE_ID.fullmatch(block["id"]):
        raise _reject(f"{path}.id", f"String should match pattern '{TOOL_USE_ID.pattern}'")
    if not isinstance(block["name"], str) or not TOOL_NAME.fullmatch(block["name"]):
        raise _reject(f"{path}.name", f"String should match pattern '{TOOL_NAME.pattern}'")
    if not isinstance(block["input"], dict):
        raise _reject(f"{path}.input", "Input should be a valid dictionary")
    if "caller" in block and not isinstance(block["caller"], dict):
        raise _reject(f"{path}.caller", "Input should be a valid dictionary")
    toolset = block.get("toolset_name")
    if toolset is not None and not isinstance(toolset, str):
        raise _reject(f"{path}.toolset_name", "Input should be a valid string")


def _check_thinking_block(
    block: dict[str, Any], path: str, verify_thinking: VerifyThinking
) -> None:
    if not isinstance(block.get("thinking"), str):
        raise _reject(f"{path}.thinking", "Input should be a valid string")
    signature = block.get("signature")
    if not isinstance(signature, str) or not signature:
        raise _reject(path, "thinking block signature is missing")
    if not verify_thinking(block["thinking"], signature):
        raise _reject(path, "thinking block signature is invalid")


def _check_tool_result(block: dict[str, Any], path: str, breakpoints: list[str]) -> None:
    tool_use_id = block.get("tool_use_id")
    if not isinstance(tool_use_id, str) or not tool_use_id:
        raise _reject(f"{path}.tool_use_id", "Input should be a non-empty string")
    if "is_error" in block and not isinstance(block["is_error"], bool):
        raise _reject(f"{path}.is_error", "Input should be a valid boolean")
    toolset = block.get("toolset_name")
    if toolset is not None and not isinstance(toolset, str):
        raise _reject(f"{path}.toolset_name", "Input should be a valid string")
    if _cache_control(block, path):
        breakpoints.append(path)
    content = block.get("content", "")
    # A tool may legitimately print nothing, so an empty string result is accepted; text
    # blocks inside a list result follow the usual non-empty rule.
    if isinstance(content, str):
        return
    if not isinstance(content, list):
        raise _reject(f"{path}.content", "Input should be a valid string or list of blocks")
    for index, item in enumerate(content):
        item_path = f"{path}.content.{index}"
        if not isinstance(item, dict):
            raise _reject(item_path, "Input should be a valid dictionary")
        kind = _block_type(item, item_path, TOOL_RESULT_ITEM_KEYS, "tool_result content")
        if kind == "text":
            _check_text_block(item, item_path, breakpoints)
        elif _cache_control(item, item_path):
            breakpoints.append(item_path)


def _cache_control(holder: dict[str, Any], path: str) -> bool:
    """Validate `holder`'s cache_control, if any; True when it sets a breakpoint."""
    value = holder.get("cache_control")
    if value is None:
        return False
    cc_path = path if path == "cache_control" else f"{path}.cache_control"
    if not isinstance(value, dict) or value.get("type") != "ephemeral":
        raise _reject(cc_path, "Input should be {'type': 'ephemeral', 'ttl'?: '5m' | '1h'}")
    _only_keys(value, {"type", "ttl"}, cc_path)
    if "ttl" in value and value["ttl"] not in ("5m", "1h"):
        raise _reject(f"{cc_path}.ttl", "Input should be '5m' or '1h'")
    return True


def _only_keys(holder: dict[str, Any], allowed: set[str] | frozenset[str], path: str) -> None:
    for key in sorted(holder):
        if key not in allowed:
            raise _reject(f"{path}.{key}", "Extra inputs are not permitted")
