"""Building the message list so that every request is one the Messages API accepts.

The rules kept here, whatever happened before (an error, Ctrl-C, a crash):

- every `tool_use` is answered by exactly one `tool_result` in the next user message,
  in the order of the calls, with the results first and any text after them;
- no text block is empty or only whitespace;
- two user messages never follow each other: new user content joins the last one;
- the conversation ends with a user message, except the one case the API documents: a
  reply paused by the server (`pause_turn`) goes back as it is, last, so the server resumes it;
- an input the model refused stays in the messages (and the session log) but is no longer
  sent: the API asks for a reset after a refusal, or the refusals go on;
- tool output is valid UTF-8: a lone surrogate (a file name that is not UTF-8, listed by a
  tool) becomes U+FFFD instead of making every later request fail to encode;
- a reply is kept as received, except what the API would refuse to be sent back
  (`as_received`): a lone surrogate in its text or tool input, a tool name or id outside the
  API's pattern.

Messages stay plain dicts in the API's own format, so what you read is what is sent.
"""

from __future__ import annotations

import re
import uuid

INTERRUPTED = (
    "Interrupted by the user before this call finished; it may have run in part, or not at all."
)


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


# A Python string holds surrogates only when something decoded bytes with surrogateescape.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def tool_result(tool_use_id: str, content: str, is_error: bool = False) -> dict:
    content = LONE_SURROGATE.sub("\ufffd", content) or "(no output)"
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


# What the API accepts in a tool_use block it is sent (the same patterns as a tool's name and
# a tool_result's id); a reply can break them, but the next request may not.
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]+")
INVALID_NAME_PREFIX = "invalid_name_"  # no tool is named so: such a call gets "unknown tool"


def as_received(blocks: list[dict]) -> list[dict]:
    """A reply's blocks as received, minus what would make every later request fail.

    The rule is to send a reply back exactly as it came. Two things cannot go back: a lone
    surrogate (JSON allows "\\ud800", UTF-8 does not), which becomes U+FFFD; and a tool name
    or id outside the API's pattern, which the API refuses in every later request. Rewriting
    just that field is the lesser evil: the name becomes `invalid_name_<what it said>`, which
    no tool answers to, so the call gets an error result that names it and lists the real
    tools; a bad or repeated id gets a fresh one. Thinking blocks are left untouched: their
    signature covers their text.
    """
    checked, seen_ids = [], set()
    for block in blocks:
        if block.get("type") not in ("thinking", "redacted_thinking"):
            block = without_lone_surrogates(block)
        if block.get("type") == "tool_use":
            name, call_id = block.get("name"), block.get("id")
            if not (isinstance(name, str) and TOOL_NAME.fullmatch(name)):
                readable = re.sub(r"[^a-zA-Z0-9_-]", "_", str(name))
                name = (INVALID_NAME_PREFIX + readable)[:128]
            if not (isinstance(call_id, str) and TOOL_USE_ID.fullmatch(call_id)) or (
                call_id in seen_ids
            ):
                call_id = fresh_tool_use_id()
            seen_ids.add(call_id)
            block = {**block, "name": name, "id": call_id}
        checked.append(block)
    return checked


def fresh_tool_use_id() -> str:
    return f"toolu_replaced_{uuid.uuid4().hex[:20]}"


def with_repeated_ids_replaced(content: list[dict], messages: list[dict]) -> list[dict]:
    """A reply's `content` with a fresh id for each tool call whose id an earlier message of
    the conversation used already: the API refuses ids that repeat, in every later request,
    `--resume` included (`as_received` does the same within one reply)."""
    used = {call.get("id") for message in messages for call in tool_calls(message)}
    return [
        {**block, "id": fresh_tool_use_id()}
        if block.get("type") == "tool_use" and block.get("id") in used
        else block
        for block in content
    ]


def without_lone_surrogates(value: object) -> object:
    """`value` (a str, or a list or dict of them) with each lone surrogate made U+FFFD."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            without_lone_surrogates(key): without_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


def tool_calls(message: dict) -> list[dict]:
    """The `tool_use` blocks of an assistant message (or reply), in order."""
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if block.get("type") == "tool_use"]


def as_blocks(content: str | list[dict]) -> list[dict]:
    """Content as a list of blocks, with empty or whitespace-only text blocks dropped."""
    blocks = [text_block(content)] if isinstance(content, str) else list(content)
    return [
        b for b in blocks if not (b.get("type") == "text" and not str(b.get("text", "")).strip())
    ]


def append_user_content(messages: list[dict], content: str | list[dict]) -> None:
    """Add user content at the end: joined to a trailing user message, else as a new message.

    Joining keeps tool results first (they were added first) and avoids two user messages
    in a row. Nothing is added when all the content is empty text.
    """
    blocks = as_blocks(content)
    if not blocks:
        return
    if messages and messages[-1]["role"] == "user":
        last = messages[-1]
        messages[-1] = {"role": "user", "content": as_blocks(last["content"]) + blocks}
    else:
        messages.append({"role": "user", "content": blocks})


def append_assistant_content(messages: list[dict], content: list[dict]) -> None:
    """Add a model reply as received, minus empty text blocks the API would refuse back.

    Thinking blocks and their signatures are kept untouched. A reply with nothing left
    (an empty answer) adds no message at all: an empty assistant message is invalid too.
    A reply that resumes a paused one joins it.
    """
    blocks = as_blocks(content)
    if blocks and messages and messages[-1]["role"] == "assistant":
        # Only a paused reply is left last (end_with_user_turn): what the server sends next
        # goes on with the same reply, so it joins that message.
        messages[-1] = {"role": "assistant", "content": messages[-1]["content"] + blocks}
    elif blocks:
        messages.append({"role": "assistant", "content": blocks})


def end_with_user_turn(messages: list[dict], paused: bool = False) -> None:
    """Current models refuse a conversation that ends with the assistant (prefill): nudge it.

    `paused`: the last assistant message is a reply the server paused (stop_reason
    `pause_turn`). The documented way to resume it is to send it back as it is, last, with
    no user message after it, so nothing is added then.
    """
    if paused:
        return
    if messages and messages[-1]["role"] == "assistant" and not tool_calls(messages[-1]):
        messages.append({"role": "user", "content": [text_block("Continue.")]})


# ---- setting a refused input aside ------------------------------------------------------------
#
# A position is [message index, block index]. A refused input is kept as the span of blocks
# from where it began to where the conversation ended when the next input came; a span whose
# end is still None runs to the end.


def end_position(messages: list[dict]) -> list[int]:
    """The position right after the last block: where the next content will start."""
    if not messages:
        return [0, 0]
    if messages[-1]["role"] == "assistant":
        return [len(messages), 0]
    return [len(messages) - 1, len(as_blocks(messages[-1]["content"]))]


def without_spans(messages: list[dict], spans: list[list]) -> list[dict]:
    """The messages minus the blocks inside `spans` ([start msg, start block, end or None]).

    Messages left empty are dropped and user messages that then meet are joined, so the
    result follows the same rules as the messages themselves.
    """
    if not spans:
        return messages

    def set_aside(position: tuple[int, int]) -> bool:
        for start_message, start_block, end in spans:
            after_start = position >= (start_message, start_block)
            if after_start and (end is None or position < tuple(end)):
                return True
        return False

    kept: list[dict] = []
    for index, message in enumerate(messages):
        blocks = as_blocks(message["content"])
        blocks = [b for i, b in enumerate(blocks) if not set_aside((index, i))]
        if not blocks:
            continue
        if kept and kept[-1]["role"] == message["role"] == "user":
            kept[-1] = {"role": "user", "content": kept[-1]["content"] + blocks}
        elif blocks == message["content"]:
            kept.append(message)
        else:
            kept.append({"role": message["role"], "content": blocks})
    return kept


def tool_loop_start(messages: list[dict], index: int) -> int:
    """The first assistant message of the tool loop that the message at `index` belongs to.

    A tool loop (what the API calls one assistant turn; several turns of agent.py's loop):
    assistant messages chained by user messages that answer their calls.
    """
    while (
        index >= 2
        and messages[index - 1]["role"] == "user"
        and any(b.get("type") == "tool_result" for b in as_blocks(messages[index - 1]["content"]))
        and messages[index - 2]["role"] == "assistant"
    ):
        index -= 2
    return index


def starts_with_thinking(message: dict) -> bool:
    first = as_blocks(message["content"])[:1]
    return bool(first) and first[0].get("type") in ("thinking", "redacted_thinking")


def opens_with_thinking(messages: list[dict]) -> bool:
    """Whether a request with thinking on may be sent now.

    With thinking on, an unfinished tool loop (its results are in the last user message)
    must have begun with a thinking block. A loop begun with thinking off (a session saved
    mid-loop, a setting changed since) cannot take thinking on midway.
    """
    if len(messages) < 2 or messages[-1]["role"] != "user":
        return True
    if not any(b.get("type") == "tool_result" for b in as_blocks(messages[-1]["content"])):
        return True
    if messages[-2]["role"] != "assistant":
        return True
    return starts_with_thinking(messages[tool_loop_start(messages, len(messages) - 2)])


def unanswered_calls(messages: list[dict]) -> list[dict]:
    """Calls of the last assistant message that have no result yet (all, or the rest of a batch).

    Results join the conversation one by one as their calls finish, so a run that stopped
    mid-batch leaves a user message holding the first results only.
    """
    if messages and messages[-1]["role"] == "assistant":
        return tool_calls(messages[-1])
    if len(messages) < 2 or messages[-2]["role"] != "assistant":
        return []
    answered = {b.get("tool_use_id") for b in as_blocks(messages[-1]["content"])}
    return [call for call in tool_calls(messages[-2]) if call["id"] not in answered]


def close_unanswered_calls(messages: list[dict], reason: str = INTERRUPTED) -> None:
    """Answer any dangling tool calls with an error result, so the next request is valid.

    The new results go right after the results already there, before any text.
    """
    calls = unanswered_calls(messages)
    if not calls:
        return
    missing = [tool_result(c["id"], reason, is_error=True) for c in calls]
    if messages[-1]["role"] == "assistant":
        append_user_content(messages, missing)
        return
    blocks = as_blocks(messages[-1]["content"])
    results = [b for b in blocks if b.get("type") == "tool_result"]
    others = [b for b in blocks if b.get("type") != "tool_result"]
    messages[-1] = {"role": "user", "content": results + missing + others}


def final_text(message: dict | None) -> str:
    """The text of an assistant message: text blocks in a row joined as they are (an answer
    with citations comes in pieces, cut mid-sentence), runs of text apart by blank lines."""
    if not message or not isinstance(message.get("content"), list):
        return ""
    runs: list[str] = []
    after_text = False
    for block in message["content"]:
        is_text = block.get("type") == "text"
        if is_text and after_text:
            runs[-1] += block["text"]
        elif is_text:
            runs.append(block["text"])
        after_text = is_text
    return "\n\n".join(run.strip() for run in runs if run.strip())
