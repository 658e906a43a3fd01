"""Keeping every request inside the model's context window: clear old tool output, then compact.

    agent.messages (complete, saved)  --transform_context-->  the request (fits the window)

    size of the next request = what the API reported for the last one (usage: input + cache
                               reads + cache writes) + what was added since (characters / 4)
      above 60% of the window:  old tool results are sent as one-line placeholders
      above 85% after that:     one model call writes hand-over notes, and the request becomes
                                notes + plan + the last turn

Only the *request* changes: `agent.messages` keeps every message, so the session on disk
stays complete and append-only. What this middleware decided lives in the checkpointed
`extra`, so a resumed session sends the same request again:

    context_usage       {"tokens", "chars"}: the reported size of the last request, and its
                        length in characters (the base of the next estimate)
    context_clearing    {"cut": i}: tool results of messages before index i are placeholders
    context_compaction  {"upto": i, "summary", "plan", "tokens_before", "created"}: messages
                        before index i are replaced by the notes

Clearing moves its cut point in large steps, because everything after a changed message
misses the prompt cache (bench/context.py measures it). When the API still refuses a request
as too long (a 400, or the stop reason `model_context_window_exceeded`), the loop marks
`AgentContext.overflow` and the next request is compacted: a session is never stuck.
"""

from __future__ import annotations

import asyncio
import json
import operator
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from conversation import starts_with_thinking, text_block, tool_calls, tool_loop_start
from middleware.base import AgentContext, Middleware, TurnAction
from prompts import escape_tags, load_prompt
from redaction import redact
from todo.manager import TodoManager

# Context windows by model id prefix, first match wins. Source: the model overview pages of
# platform.claude.com, checked 2026-11. All current models have 200K by default; the 1M
# variants (Sonnet 4.x with the context-1m beta header) need a header planloop does not send,
# so they are not assumed here: use --context-window for them.
CONTEXT_WINDOWS = {
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-3": 200_000,
}
DEFAULT_WINDOW = 200_000  # an unknown model (another provider, a test) counts as 200K

CHARS_PER_TOKEN = 4  # a rough, slightly generous rate for English, code and JSON
CLEAR_AT = 0.60  # of the window: clear old tool output
COMPACT_AT = 0.85  # of the window, after clearing: compact
MIN_CLEAR_STEP = 0.10  # of the window: move the cut only when it frees at least this much
KEEP_TURNS = 3  # the last turns (assistant message + results) are never cleared
KEEP_RESULT_CHARS = 300  # results this short stay: a placeholder would save nothing
TRANSCRIPT_SHARE = 0.5  # of the window: the most the compaction call may send
RESULT_CHARS_IN_TRANSCRIPT = 1_500  # head and tail of each tool result shown to the summarizer

AskModel = Callable[[str, str], Awaitable[str]]


def context_window(model: str) -> int:
    """The context window of a model id, in tokens (200K when the model is not known)."""
    for prefix, window in CONTEXT_WINDOWS.items():
        if model.startswith(prefix):
            return window
    return DEFAULT_WINDOW


def short_tokens(count: int) -> str:
    """200000 -> '200K', 1000000 -> '1M'."""
    if count >= 1_000_000 and count % 1_000_000 == 0:
        return f"{count // 1_000_000}M"
    return f"{round(count / 1000)}K" if count >= 1000 else str(count)


def request_chars(messages: list[dict]) -> int:
    """Characters of the messages as JSON: what the estimate counts."""
    return len(json.dumps(messages, ensure_ascii=False))


class ContextManager(Middleware):
    """Shapes each request so it fits the window; the complete history stays in agent.messages.

    `context_ref` returns the agent's context (extra, system prompt, tools, overflow flag);
    `ask_model(system, prompt)` is the agent's own model call (Agent.ask_model), so compaction
    uses the same client, retries and trace as the loop. `on_compact(text)` is called right
    after a compaction with a one-line account of it: to save the session and tell the user;
    `on_clear(text)` likewise when old tool output starts being sent as placeholders.
    """

    def __init__(
        self,
        context_ref: Callable[[], AgentContext],
        ask_model: AskModel,
        *,
        window: int = DEFAULT_WINDOW,
        on_compact: Callable[[str], None] | None = None,
        on_clear: Callable[[str], None] | None = None,
    ) -> None:
        self.context_ref = context_ref
        self.ask_model = ask_model
        self.window = window
        self.on_compact = on_compact
        self.on_clear = on_clear
        self.sent_chars: int | None = None  # length of the last request this middleware shaped
        # What each turn would otherwise redo for the whole transcript, remembered from the
        # turn before (see Remembered): the JSON size of each message sent, the cleared copy
        # of each message, and what clearing each one would free.
        self.sizes = Remembered(lambda request, index: json_chars(request[index]))
        self.cleared_copies = Remembered(cleared_copy)
        self.savings = Remembered(clearing_saves)
        self.notes: tuple[tuple[str, str], dict] | None = None  # see notes_message

    @property
    def extra(self) -> dict:
        return self.context_ref().extra

    # ---- the hooks -------------------------------------------------------------------------

    async def transform_context(
        self, messages: list[dict], *, signal: asyncio.Event | None = None
    ) -> list[dict]:
        context = self.context_ref()
        request = self.build_request(messages)
        size = self.estimate(request)
        if size > CLEAR_AT * self.window:
            cut = self.choose_cut(messages, size)
            if cut != self.cut:
                self.extra["context_clearing"] = {"cut": cut}
                request = self.build_request(messages)
                size = self.cleared_to(size, self.estimate(request))
        overflowed = context.overflow is not None
        compacted = (size > COMPACT_AT * self.window or overflowed) and await self.compact(messages)
        if compacted:
            request = self.build_request(messages)
            size = self.estimate(request)
        if size > COMPACT_AT * self.window or (overflowed and not compacted):
            # The last turn alone is too long (a huge tool output): clear its results too,
            # rather than send a request the API will refuse again.
            self.extra["context_clearing"] = {"cut": len(messages)}
            request = self.build_request(messages)
            self.cleared_to(size, self.estimate(request))
        self.sent_chars = self.request_chars(request)
        return request

    async def after_model_response(
        self, response: dict, ctx: AgentContext, *, signal: asyncio.Event | None = None
    ) -> TurnAction | None:
        usage = response.get("usage") or {}
        tokens = sum(
            usage.get(key) or 0
            for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
        )
        # A reply that used server tools (web search) reports the input of every step the
        # server took, added up: not the size of the request, so it is not taken as one.
        server_steps = any(
            isinstance(n, int) and n for n in (usage.get("server_tool_use") or {}).values()
        )
        if tokens and self.sent_chars is not None and not server_steps:
            ctx.extra["context_usage"] = {"tokens": tokens, "chars": self.sent_chars}
        if response.get("stop_reason") == "model_context_window_exceeded":
            # The reply was cut off by the window: compact, and ask again without running
            # its tool calls (they may be incomplete).
            ctx.overflow = "The reply reached the end of the model's context window."
            return TurnAction(decision="loop_to_model")
        return None

    def cleared_to(self, before: int, after: int) -> int:
        """Say in one line that old tool output was cleared, and how much that freed."""
        if self.on_clear is not None:
            self.on_clear(
                f"Context was at {round(100 * before / self.window)}% of "
                f"{short_tokens(self.window)}: old tool output is sent as one-line placeholders "
                f"now, {round(100 * after / self.window)}% (the full output stays saved)."
            )
        return after

    # ---- size ------------------------------------------------------------------------------

    def estimate(self, request: list[dict]) -> int:
        """Tokens the request will count: the last reported size plus the change since."""
        chars = self.request_chars(request)
        usage = self.extra.get("context_usage")
        if usage:
            return usage["tokens"] + (chars - usage["chars"]) // CHARS_PER_TOKEN
        context = self.context_ref()  # no usage yet (a first call, a resume): count it all
        tools = json.dumps([tool.schema() for tool in context.tools.values()])
        return (chars + len(context.system_prompt) + len(tools)) // CHARS_PER_TOKEN

    def request_chars(self, request: list[dict]) -> int:
        """`request_chars(request)`, measuring only the messages new since the last request."""
        separators = 2 + 2 * max(len(request) - 1, 0)  # the brackets, and ", " between messages
        return separators + self.sizes.total(request)

    def status(self) -> str:
        """A short line such as 'context 41% of 200K', from the last reported usage."""
        usage = self.extra.get("context_usage")
        share = round(100 * usage["tokens"] / self.window) if usage else 0
        return f"context {share}% of {short_tokens(self.window)}"

    # ---- building the request --------------------------------------------------------------

    @property
    def cut(self) -> int:
        return (self.extra.get("context_clearing") or {}).get("cut", 0)

    def start(self, messages: list[dict]) -> int:
        """Index of the first message sent as it is (0 until the first compaction)."""
        compaction = self.extra.get("context_compaction")
        if not compaction:
            return 0
        upto = compaction["upto"]
        # Notes that do not fit these messages (another session's state) are not used.
        fits = upto < len(messages) and messages[upto]["role"] == "assistant"
        return upto if fits else 0

    def build_request(self, messages: list[dict]) -> list[dict]:
        """The messages to send: notes of a compaction, then the rest with old results cleared."""
        start = self.start(messages)
        request = [self.notes_message()] if start else []
        cleared_until = max(start, min(self.cut, len(messages)))
        cleared = self.cleared_copies.values(messages[:cleared_until])
        return request + cleared[start:] + messages[cleared_until:]

    def notes_message(self) -> dict:
        """The message that stands for the compacted part: the same object while it holds, so
        the requests after a compaction share their front with the one before (Remembered)."""
        compaction = self.extra["context_compaction"]
        made_from = (compaction["plan"], compaction["summary"])
        if self.notes is None or self.notes[0] != made_from:
            notes = (
                load_prompt("compact_resume")
                .replace("{plan}", compaction["plan"])
                .replace("{summary}", compaction["summary"])
            )
            self.notes = (made_from, {"role": "user", "content": [text_block(notes)]})
        return self.notes[1]

    def choose_cut(self, messages: list[dict], size: int) -> int:
        """Where clearing should end now: before the last turns, in one large step.

        Everything up to the new cut is cleared at once and then left alone until the request
        grows again, so the cached prefix changes rarely. A step that would free little is
        not worth a cache miss: wait until it frees MIN_CLEAR_STEP of the window.
        """
        newest_turns = last_turn_starts(messages, KEEP_TURNS + 1)
        if len(newest_turns) <= KEEP_TURNS:
            return self.cut
        cut = max(newest_turns[-KEEP_TURNS], self.cut)
        # What clearing messages[first:cut] would free; messages before `first` are cleared
        # (or compacted) already.
        first = max(self.cut, self.start(messages))
        freed = self.savings.total(messages[:cut], start=first)
        crowded = size > COMPACT_AT * self.window
        if freed // CHARS_PER_TOKEN < MIN_CLEAR_STEP * self.window and not crowded:
            return self.cut
        return cut

    # ---- compaction ------------------------------------------------------------------------

    async def compact(self, messages: list[dict], focus: str = "") -> bool:
        """Replace everything before the last turn with notes from one model call.

        Returns False when there is nothing to compact (no earlier turn than the last).
        """
        overflow, self.context_ref().overflow = self.context_ref().overflow, None
        start = self.start(messages)
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=0)
        upto = keep_thinking_turn(messages, last)
        if upto <= start:
            return False
        # After a "prompt is too long" the API's own count is the size; else the estimate.
        before = refused_size(overflow) or self.estimate(self.build_request(messages))
        # The summarizer reads the full tool output (head and tail), not the placeholders.
        earlier = [self.notes_message()] if start else []
        transcript = render_transcript(
            earlier + messages[start:upto],
            max_chars=int(TRANSCRIPT_SHARE * self.window * CHARS_PER_TOKEN),
        )
        # The transcript holds file contents and command output: escaped, a `</transcript>`
        # in a file cannot close the tag and speak to the summarizer as planloop.
        prompt = f"<transcript>\n{escape_tags(transcript)}\n</transcript>"
        if focus.strip():
            prompt += f"\n\nFocus the notes on: {focus.strip()}"
        summary = await self.ask_model(load_prompt("compact"), prompt)
        self.extra["context_compaction"] = {
            "upto": upto,
            "summary": summary.strip() or "(The notes came back empty.)",
            "plan": TodoManager(lambda: self.extra).render(),
            "tokens_before": before,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        drop_unprovable_task_wait(self.extra, messages[:upto])
        if self.on_compact is not None:
            share = round(100 * before / self.window)
            self.on_compact(
                f"Context was at {share}% of {short_tokens(self.window)}: compacted "
                f"{upto} messages into notes (the full history stays saved)."
            )
        return True


# ---- helpers --------------------------------------------------------------------------------


def keep_thinking_turn(messages: list[dict], last: int) -> int:
    """Where compaction may cut so that the current tool loop keeps its thinking untouched.

    Normally the last assistant message starts what is kept. When thinking is on, the API
    wants the loop's first message (its first thinking block) kept too, as received: a later
    message of the loop may hold no thinking of its own.
    """
    if not messages or starts_with_thinking(messages[last]):
        return last
    first = tool_loop_start(messages, last)
    return first if starts_with_thinking(messages[first]) else last


PROMPT_TOO_LONG = re.compile(r"prompt is too long: (\d+) tokens")


def refused_size(overflow: str | None) -> int | None:
    """The token count in the API's 'prompt is too long: N tokens > M maximum', if given."""
    found = PROMPT_TOO_LONG.search(overflow or "")
    return int(found.group(1)) if found else None


def drop_unprovable_task_wait(extra: dict, summarized: list[dict]) -> None:
    """Drop a task wait declared by a todo_write that is now only in the notes.

    The design documents bind a wait to the update that declared it; once that update is
    compacted away, the boundary can no longer be shown, so the model must declare it again.
    """
    wait = extra.get("todo_task_wait")
    if not isinstance(wait, dict):
        return
    declared_by = wait.get("tool_use_id")
    if any(call["id"] == declared_by for message in summarized for call in tool_calls(message)):
        extra["todo_task_wait"] = None


def json_chars(message: dict) -> int:
    return len(json.dumps(message, ensure_ascii=False))


def cleared_copy(messages: list[dict], index: int) -> dict:
    """messages[index], with its long tool results cleared if it is a user message.

    The results in a user message answer the calls of the assistant message before it.
    """
    message = messages[index]
    if message["role"] != "user":
        return message
    asked = messages[index - 1] if index > 0 else {"content": []}
    return with_results_cleared(message, {call["id"]: call for call in tool_calls(asked)})


def clearing_saves(messages: list[dict], index: int) -> int:
    """Characters that clearing messages[index] takes off a request."""
    message = messages[index]
    if message["role"] != "user":
        return 0
    return json_chars(message) - json_chars(cleared_copy(messages, index))


def last_turn_starts(messages: list[dict], count: int) -> list[int]:
    """Indexes of the last `count` assistant messages (fewer if there are fewer), oldest first."""
    found: list[int] = []
    for index in range(len(messages) - 1, -1, -1):
        if len(found) == count:
            break
        if messages[index]["role"] == "assistant":
            found.append(index)
    return found[::-1]


class Remembered:
    """`compute(items, i)` for each item of a list that grows at its end, kept between calls.

    Each turn's request is the last one plus a few messages at its end (the last message may
    be replaced: conversation.py replaces it to add to it). So the values of the unchanged
    front are reused, and only the items from the first changed one on are computed again.
    An item counts as unchanged when it is the very same object at the same place: a stored
    message is never changed in place. `compute(items, i)` may read items[: i + 1] only.

    The comparison of the front runs in C (`map(operator.is_, ...)`): thousands of messages
    take microseconds, where measuring them again (json.dumps) would take milliseconds.
    """

    def __init__(self, compute: Callable[[list, int], Any]) -> None:
        self.compute = compute
        self.items: list = []  # the list of the last call
        self.computed: list = []  # compute(items, i) for each of them
        self.totals: list[int] = [0]  # totals[i]: the sum of computed[:i], for numbers

    def values(self, items: list) -> list:
        """[compute(items, i) for i in range(len(items))], computing only what changed."""
        same = unchanged_front(self.items, items)
        del self.items[same:], self.computed[same:], self.totals[same + 1 :]
        for index in range(same, len(items)):
            value = self.compute(items, index)
            self.items.append(items[index])
            self.computed.append(value)
            self.totals.append(self.totals[-1] + value if isinstance(value, int) else 0)  # sums
        return self.computed

    def total(self, items: list, start: int = 0) -> int:
        """sum(compute(items, i) for i in range(start, len(items))), from remembered values."""
        self.values(items)
        return self.totals[-1] - self.totals[min(start, len(items))]


def unchanged_front(old: list, new: list) -> int:
    """How many items at the front of `new` are the very objects at the same places in `old`."""
    shorter = min(len(old), len(new))
    if shorter and all(map(operator.is_, old[: shorter - 1], new[: shorter - 1])):
        return shorter if old[shorter - 1] is new[shorter - 1] else shorter - 1
    return next((i for i, same in enumerate(map(operator.is_, old, new)) if not same), shorter)


def with_results_cleared(message: dict, calls: dict[str, dict]) -> dict:
    """A copy of a user message whose long tool results are one-line placeholders.

    The result blocks stay (each tool_use keeps its one tool_result); only their content
    changes. The stored message is not touched.
    """
    if not isinstance(message["content"], list):
        return message
    blocks = []
    for block in message["content"]:
        if block.get("type") == "tool_result":
            size = len(json.dumps(block.get("content", ""), ensure_ascii=False))
            if size > KEEP_RESULT_CHARS:
                placeholder = cleared_placeholder(calls.get(block["tool_use_id"]), size)
                block = {**block, "content": placeholder}
        blocks.append(block)
    return {**message, "content": blocks}


def cleared_placeholder(call: dict | None, size: int) -> str:
    if call is None:
        return (
            f"[Output cleared to save context: {size:,} characters. Run the tool again if needed.]"
        )
    args = redact(json.dumps(call.get("input"), ensure_ascii=False))  # before the cut: whole
    if len(args) > 200:
        args = args[:200] + "…"
    return (
        f"[Output cleared to save context: {call['name']} {args} returned {size:,} characters. "
        "Run the tool again if you need it.]"
    )


def render_transcript(messages: list[dict], max_chars: int) -> str:
    """The conversation as plain text for the summarizer, at most about `max_chars` long.

    Tool results keep their head and tail. When the whole is still too long, the middle goes
    (the first entries hold the goal, the last ones the current state).
    """
    entries = []
    for message in messages:
        content = message["content"]
        for block in [text_block(content)] if isinstance(content, str) else content:
            kind = block.get("type")
            if kind == "text":
                entries.append(f"[{message['role']}] {block['text']}")
            elif kind == "tool_use":
                args = json.dumps(block.get("input"), ensure_ascii=False)
                entries.append(f"[tool call] {block['name']} {head_and_tail(args, 500)}")
            elif kind == "tool_result":
                output = block.get("content")
                if not isinstance(output, str):
                    output = json.dumps(output, ensure_ascii=False)
                error = " (error)" if block.get("is_error") else ""
                entries.append(
                    f"[tool result{error}] {head_and_tail(output, RESULT_CHARS_IN_TRANSCRIPT)}"
                )
    total = sum(len(entry) + 1 for entry in entries)
    if total <= max_chars:
        return "\n".join(entries)
    head, tail, budget = [], [], max_chars // 2
    for entry in entries:  # the first half of the budget from the front...
        if budget - len(entry) < 0:
            break
        head.append(entry)
        budget -= len(entry) + 1
    budget = max_chars // 2
    for entry in reversed(entries[len(head) :]):  # ...and the second half from the end
        if budget - len(entry) < 0:
            break
        tail.append(entry)
        budget -= len(entry) + 1
    left_out = len(entries) - len(head) - len(tail)
    return "\n".join([*head, f"[... {left_out} entries left out ...]", *reversed(tail)])


def head_and_tail(text: str, limit: int) -> str:
    # Redacted before the cut, while each secret is whole: a cut through one would leave its
    # start in the head (or its end in the tail) that no later redaction recognizes.
    text = redact(text)
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} [... {len(text) - limit:,} characters ...] {text[-half:]}"


def find_context_manager(agent: Any) -> ContextManager | None:
    """The agent's ContextManager, if it has one (for the CLI's /compact and status line)."""
    for middleware in agent.hooks.middlewares:
        if isinstance(middleware, ContextManager):
            return middleware
    return None
