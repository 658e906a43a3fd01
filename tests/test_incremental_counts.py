"""What the harness remembers between turns, so that a turn's work does not grow with the session,
must give exactly what counting the whole transcript again gives."""

from __future__ import annotations

import json

from conversation import tool_result
from fakeapi import text, tool_use
from middleware.context import ContextManager, request_chars
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
    assert len(manager.sizes) <= 2 * len(messages) + 16  # nothing kept for messages gone
