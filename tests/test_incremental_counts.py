"""What the harness remembers between turns, so that a turn's work does not grow with the session,
must give exactly what counting the whole transcript again gives."""

from __future__ import annotations

import json
from types import SimpleNamespace

from conversation import tool_result
from fakeapi import text, tool_use
from middleware.context import (
    KEEP_TURNS,
    ContextManager,
    Remembered,
    request_chars,
    unchanged_front,
    with_results_cleared,
)
from todo import TodoListMiddleware
from todo.middleware import stale_turn


def reminder_text() -> str:
    extra: dict = {}
    middleware = TodoListMiddleware(extra_ref=lambda: extra)
    return middleware.reminder(3)["content"][0]["text"]


def turn(index: int, kind: str) -> list[dict]:
    """One turn: the reply, and the user message that answers it."""
    if kind == "text":
        return [{"role": "assistant", "content": [text(f"answer {index}")]}]
    name = "todo_write" if kind.startswith("write") else "bash"
    call = tool_use(name, {"command": "true"} if name == "bash" else {"todos": []})
    answer = [tool_result(call["id"], "ok", is_error=kind == "write-refused")]
    if kind == "reminded":
        answer.append({"type": "text", "text": reminder_text()})
    return [{"role": "assistant", "content": [call]}, {"role": "user", "content": answer}]


def from_scratch(messages: list[dict]) -> tuple[int, int | None]:
    """The streak as a reader would count it: newest turn first, until the plan was written."""
    turns, since = 0, None
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] != "assistant":
            continue
        answer = messages[index + 1]["content"] if index + 1 < len(messages) else []
        stale, reminded = stale_turn(messages[index], answer)
        if not stale:
            break
        if reminded and since is None:
            since = turns
        turns += 1
    return turns, since


KINDS = ["bash", "bash", "reminded", "bash", "write", "bash", "write-refused", "reminded",
         "bash", "text", "bash", "bash", "reminded", "bash", "bash"]  # fmt: skip


def test_the_remembered_streak_matches_counting_the_whole_transcript_at_every_turn():
    extra: dict = {}
    middleware = TodoListMiddleware(extra_ref=lambda: extra)
    messages: list[dict] = [{"role": "user", "content": [text("go")]}]
    seen = []
    for index, kind in enumerate(KINDS * 3):
        messages += turn(index, kind)
        if kind == "text":
            messages.append({"role": "user", "content": [text(f"next input {index}")]})
        seen.append(middleware.stale_streak(messages))
        assert seen[-1] == from_scratch(messages), (index, kind)
    assert max(turns for turns, _ in seen) >= 5 and {s for _, s in seen} >= {None, 0, 1, 2}


def test_each_turn_of_the_streak_is_read_once_however_long_the_session(monkeypatch):
    # The turn's own work must not grow with the session: 300 turns, each read once (and the
    # newest, still unanswered, once more when its results arrive), not once per later turn.
    reads = []
    monkeypatch.setattr("todo.middleware.stale_turn", lambda *a: reads.append(1) or stale_turn(*a))
    extra: dict = {}
    middleware = TodoListMiddleware(extra_ref=lambda: extra)
    messages: list[dict] = [{"role": "user", "content": [text("go")]}]
    for index in range(300):
        messages += turn(index, "bash")
        assert middleware.stale_streak(messages) == (index + 1, None)
    assert len(reads) == 300


def test_the_streak_is_counted_again_when_the_last_message_is_replaced_or_the_session_cleared():
    extra: dict = {}
    middleware = TodoListMiddleware(extra_ref=lambda: extra)
    messages = [{"role": "user", "content": [text("go")]}]
    for index in range(4):
        messages += turn(index, "bash")
    assert middleware.stale_streak(messages) == (4, None)
    # The next input is joined to the last user message (conversation.append_user_content):
    # a new message object, with a reminder in it this time.
    last = messages[-1]
    messages[-1] = {"role": "user", "content": [*last["content"], text(reminder_text())]}
    assert middleware.stale_streak(messages) == from_scratch(messages) == (4, 0)
    messages.clear()  # /clear
    messages += [{"role": "user", "content": [text("fresh")]}, *turn(0, "bash")]
    assert middleware.stale_streak(messages) == (1, None)


def test_the_remembered_request_size_is_the_size_of_the_json_sent():
    manager = ContextManager(lambda: None, lambda system, prompt: None)
    messages: list[dict] = [{"role": "user", "content": [text("go ü")]}]
    for index in range(30):
        messages += turn(index, "bash")
        assert manager.request_chars(messages) == request_chars(messages)
        assert manager.request_chars(messages) == len(json.dumps(messages, ensure_ascii=False))
    # Replacing a message (as the conversation does to add to one) is measured anew.
    messages[-1] = {"role": "user", "content": [*messages[-1]["content"], text("more text")]}
    assert manager.request_chars(messages) == request_chars(messages)
    assert manager.request_chars([]) == request_chars([])


# ---- the context middleware: sizes, cleared copies and what clearing frees ------------------


def big_turn(index: int) -> list[dict]:
    """A turn with a long result (cleared once the cut passes it) and a short one (kept)."""
    long_call = tool_use("read_file", {"path": f"f{index}.txt"})
    short_call = tool_use("bash", {"command": "true"})
    return [
        {"role": "assistant", "content": [text(f"step {index}"), long_call, short_call]},
        {
            "role": "user",
            "content": [
                tool_result(long_call["id"], f"line of file {index} ü\n" * (40 + index)),
                tool_result(short_call["id"], "ok"),
            ],
        },
    ]


def calls_by_id(messages: list[dict]) -> dict:
    return {block["id"]: block for m in messages for block in tool_calls_of(m)}


def tool_calls_of(message: dict) -> list[dict]:
    content = message["content"]
    return [b for b in content if b.get("type") == "tool_use"] if isinstance(content, list) else []


def request_from_scratch(manager: ContextManager, messages: list[dict]) -> list[dict]:
    """The request as the rules say, built anew: notes, cleared messages up to the cut, the rest."""
    start = manager.start(messages)
    notes = [manager.notes_message()] if start else []
    until = max(start, min(manager.cut, len(messages)))
    calls = calls_by_id(messages)
    cleared = [
        with_results_cleared(m, calls) if m["role"] == "user" else m for m in messages[start:until]
    ]
    return notes + cleared + messages[until:]


def freed_from_scratch(manager: ContextManager, messages: list[dict], cut: int) -> int:
    calls = calls_by_id(messages)
    first = max(manager.cut, manager.start(messages))
    return sum(
        request_chars([m]) - request_chars([with_results_cleared(m, calls)])
        for m in messages[first:cut]
        if m["role"] == "user"
    )


def test_requests_built_from_remembered_parts_match_building_them_anew_at_every_step():
    """Each turn reuses the last turn's sizes and cleared copies; through clearing steps, a
    compaction, a replaced last message and a /clear, every request and size must be the
    one the whole transcript gives when counted again."""
    extra: dict = {}
    context = SimpleNamespace(extra=extra, overflow=None)
    manager = ContextManager(lambda: context, lambda system, prompt: None, window=1_000_000)
    messages: list[dict] = [{"role": "user", "content": [text("go")]}]
    checked_freed, cleared = [], []

    def check() -> None:
        request = manager.build_request(messages)
        assert request == request_from_scratch(manager, messages)
        cleared.append(json.dumps(request).count("Output cleared"))
        assert manager.request_chars(request) == len(json.dumps(request, ensure_ascii=False))
        assert manager.request_chars(messages) == request_chars(messages)
        starts = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
        if len(starts) > KEEP_TURNS:
            cut = max(starts[-KEEP_TURNS], manager.cut)
            assert manager.savings.total(
                messages[:cut], start=max(manager.cut, manager.start(messages))
            ) == freed_from_scratch(manager, messages, cut)
            checked_freed.append(cut)

    for index in range(40):
        messages += big_turn(index)
        if index % 7 == 3:  # the next input joins the last user message: a new object
            last = messages[-1]
            messages[-1] = {"role": "user", "content": [*last["content"], text(f"input {index}")]}
        if index in (10, 22, 23, 36):  # clearing moves its cut
            extra["context_clearing"] = {"cut": len(messages) - 2 * KEEP_TURNS}
        if index == 30:  # a compaction: notes stand for everything before an assistant message
            extra["context_compaction"] = {
                "upto": len(messages) - 4,
                "summary": "notes",
                "plan": "",
                "tokens_before": 1,
                "created": "",
            }
        check()
        check()  # twice in a row, as transform_context measures the same request twice
    assert len(set(cleared)) > 3 and len(set(checked_freed)) > 20  # the steps did happen
    assert 0 < placeholder_count(manager.build_request(messages)) < index

    messages.clear()  # /clear: the extra goes too
    extra.clear()
    messages += [{"role": "user", "content": [text("fresh")]}, *big_turn(99)]
    check()


def placeholder_count(request: list[dict]) -> int:
    return json.dumps(request).count("Output cleared")


def test_the_remembered_front_is_only_what_is_the_very_same_object_at_the_same_place():
    one, two, three = {"n": 1}, {"n": 2}, {"n": 3}
    assert unchanged_front([one, two, three], [one, two, three, {"n": 4}]) == 3
    assert unchanged_front([one, two, three], [one, two, dict(three)]) == 2  # equal, not same
    assert unchanged_front([one, two, three], [one, dict(two), three]) == 1
    assert unchanged_front([one, two, three], [two, one, three]) == 0
    assert unchanged_front([one, two, three], [one]) == 1
    assert unchanged_front([], [one]) == unchanged_front([one], []) == 0
    counted = []
    sizes = Remembered(lambda items, i: counted.append(i) or items[i]["n"])
    assert sizes.total([one, two, three]) == 6 and counted == [0, 1, 2]
    assert sizes.total([one, two, three, {"n": 10}]) == 16 and counted == [0, 1, 2, 3]
    assert sizes.total([one, {"n": 5}, three], start=1) == 8 and counted[4:] == [1, 2]
