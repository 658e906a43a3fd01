"""The context stays inside the window: clearing old output, compaction, recovery from overflow.

Loop tests run an Agent with a ContextManager against the strict fake, which refuses (as the
real API does) any request longer than its `context_limit`; end-to-end tests run the CLI.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import deque
from pathlib import Path

import pytest
from conftest import API_KEY, run, run_cli
from test_interactive import Terminal

from cli.prompt import compact
from fakeapi import text, tool_use
from middleware.context import (
    KEEP_TURNS,
    ContextManager,
    context_window,
    drop_unprovable_task_wait,
    find_context_manager,
)
from model import ContextOverflow
from todo import TodoListMiddleware

NOTES = "## Goal\nRead every file.\n## Next\nRead the rest."
TOO_LONG = {
    "status": 400,
    "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 201884 tokens > 200000 maximum",
    },
}


def is_compaction_call(body: dict) -> bool:
    return "hand-over notes" in json.dumps(body.get("system"))


class ScriptedModel:
    """Plays `steps` in order, and answers any compaction call with NOTES in between."""

    def __init__(self, api, steps: list) -> None:
        self.steps = deque(steps)
        self.compaction_calls: list[dict] = []
        self.requests: list[dict] = []  # the loop's own requests, compaction calls left out
        for _ in range(2 * len(steps) + 5):
            api.add(self.reply)

    def reply(self, body: dict) -> dict:
        if is_compaction_call(body):
            self.compaction_calls.append(body)
            return {"content": [text(NOTES)]}
        self.requests.append(body)
        return self.steps.popleft()


def with_context(make_agent, window: int, **kwargs):
    """An agent with the todo list and a ContextManager of the given window."""
    agent = None
    todos = TodoListMiddleware(extra_ref=lambda: agent.extra)
    manager = ContextManager(
        lambda: agent.context, lambda system, prompt: agent.ask_model(system, prompt), window=window
    )
    agent = make_agent(middleware=[todos, manager], **kwargs)
    return agent, manager


def write_files(workspace: Path, count: int, chars: int) -> None:
    for index in range(count):
        line = f"file {index} says hello; " * 3 + "\n"  # ~80 characters a line
        (workspace / f"f{index}.txt").write_text(line * (chars // len(line)))


def read_steps(count: int) -> list[dict]:
    reads = [{"content": [tool_use("read_file", {"path": f"f{i}.txt"})]} for i in range(count)]
    return [*reads, {"content": [text("All files read.")]}]


def assert_pairs_intact(request: dict) -> None:
    """Every tool_use is answered by exactly one tool_result in the very next message."""
    messages = request["messages"]
    assert messages[0]["role"] == "user"
    assert messages[-1]["role"] == "user" or is_paused_reply(messages[-1])
    for index, message in enumerate(messages[:-1]):
        if message["role"] != "assistant":
            continue
        calls = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        results = [
            b["tool_use_id"] for b in messages[index + 1]["content"] if b["type"] == "tool_result"
        ]
        assert calls == results


def is_paused_reply(message: dict) -> bool:
    """The one assistant message a request may end with: a server tool call still running."""
    blocks = message["content"]
    calls = {b["id"] for b in blocks if b["type"] == "server_tool_use"}
    answered = {b.get("tool_use_id") for b in blocks if b["type"].endswith("_tool_result")}
    return message["role"] == "assistant" and bool(calls - answered)


def starts_from_notes(request: dict) -> bool:
    first = request["messages"][0]["content"][0]
    return first["type"] == "text" and NOTES in first["text"]


def placeholders(request: dict) -> list[str]:
    return [
        block["content"]
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result" and "Output cleared" in str(block["content"])
    ]


# ---- knowing the size -----------------------------------------------------------------------


def test_known_models_have_their_window_and_unknown_ones_count_as_200k():
    assert context_window("claude-haiku-4-5-20251001") == 200_000
    assert context_window("claude-sonnet-4-6") == 200_000
    assert context_window("some-other-provider-model") == 200_000


def test_status_line_shows_the_share_of_the_window_from_the_last_usage(api, make_agent):
    agent, _ = with_context(make_agent, window=200_000)
    api.add(
        {
            "content": [text("hi")],
            "usage": {"input_tokens": 2_000, "cache_read_input_tokens": 80_000},
        }
    )
    run(agent.run("hello"))
    assert find_context_manager(agent).status() == "context 41% of 200K"


# ---- clearing -------------------------------------------------------------------------------


def test_long_task_clears_old_output_and_every_request_fits(api, make_agent, workspace):
    write_files(workspace, count=30, chars=6_000)  # 30 reads of ~1.5K tokens; window 20K
    api.context_limit = 20_000
    model = ScriptedModel(api, read_steps(30))
    agent, _ = with_context(make_agent, window=20_000)
    assert run(agent.run("read all the files")) == "All files read."
    # The fake refused nothing (the api fixture checks), so every request was inside the window.
    assert placeholders(model.requests[-1])
    for request in model.requests:
        assert_pairs_intact(request)
    last = model.requests[-1]["messages"]
    untouched = [m for m in last if m["role"] == "user"][-KEEP_TURNS:]
    assert all("Output cleared" not in json.dumps(m) for m in untouched)
    # The history itself keeps every file's full text.
    assert all(f"file {i} says hello" in json.dumps(agent.messages) for i in range(30))


def test_placeholder_names_the_tool_its_input_and_the_size(api, make_agent, workspace):
    write_files(workspace, count=14, chars=6_000)
    model = ScriptedModel(api, read_steps(14))
    agent, _ = with_context(make_agent, window=20_000)
    run(agent.run("read all the files"))
    first = placeholders(model.requests[-1])[0]
    assert 'read_file {"path": "f0.txt"}' in first
    assert "characters" in first and "Run the tool again" in first


def test_clearing_moves_in_large_steps_so_the_prefix_changes_rarely(api, make_agent, workspace):
    write_files(workspace, count=40, chars=6_000)
    model = ScriptedModel(api, read_steps(40))
    agent, _ = with_context(make_agent, window=40_000)
    run(agent.run("read all the files"))
    cleared = [len(placeholders(request)) for request in model.requests]
    changes = sum(1 for before, after in zip(cleared, cleared[1:], strict=False) if after != before)
    assert 0 < changes <= 4  # a handful of steps over 41 requests, not one per request


# ---- compaction -----------------------------------------------------------------------------


def test_compaction_continues_from_notes_plan_and_last_round(api, make_agent, workspace):
    write_files(workspace, count=12, chars=12_000)  # ~3K tokens a read; window 12K
    plan = {
        "todos": [
            {"content": "Read the files", "status": "in_progress"},
            {"content": "Report", "status": "pending"},
        ]
    }
    done = {"todos": [{**item, "status": "completed"} for item in plan["todos"]]}
    reads = read_steps(12)[:-1]
    steps = [
        {"content": [tool_use("todo_write", plan)]},
        *reads,
        {"content": [tool_use("todo_write", done)]},
        {"content": [text("All files read.")]},
    ]
    model = ScriptedModel(api, steps)
    api.context_limit = 12_000
    agent, _ = with_context(make_agent, window=12_000)
    assert run(agent.run("read all the files")) == "All files read."
    assert model.compaction_calls, "the window was crossed, so a compaction call was made"
    summary_prompt = model.compaction_calls[0]["messages"][0]["content"][0]["text"]
    assert "[tool call] read_file" in summary_prompt
    after = next(r for r in model.requests if starts_from_notes(r))
    notes = after["messages"][0]["content"][0]["text"]
    assert "[>] Read the files" in notes and "[ ] Report" in notes
    assert after["messages"][1]["role"] == "assistant"
    assert len(after["messages"]) <= 4  # notes, the last turn (and a reminder at most)
    for request in model.requests:
        assert_pairs_intact(request)
    assert agent.extra["context_compaction"]["summary"] == NOTES
    assert len(agent.messages) > 20  # the history is complete


def test_one_output_larger_than_the_window_is_cleared_rather_than_refused(
    api, make_agent, workspace
):
    write_files(workspace, count=1, chars=60_000)  # ~15K tokens; window 10K
    api.context_limit = 10_000
    model = ScriptedModel(api, read_steps(1))
    agent, _ = with_context(make_agent, window=10_000)
    assert run(agent.run("read the file")) == "All files read."
    assert 'read_file {"path": "f0.txt"}' in placeholders(model.requests[-1])[0]


def test_prompt_too_long_compacts_and_retries_once(api, make_agent, workspace):
    write_files(workspace, count=3, chars=2_000)
    model = ScriptedModel(api, read_steps(3))
    agent, _ = with_context(make_agent, window=200_000)
    run(agent.run("read the files"))
    model.steps.extend([TOO_LONG, {"content": [text("Still here.")]}])
    assert run(agent.run("and now?")) == "Still here."  # refused as too long, yet it goes on
    retry = model.requests[-1]
    assert starts_from_notes(retry)
    assert retry["messages"][-1]["content"][-1]["text"] == "and now?"
    assert len(model.compaction_calls) == 1


def test_second_overflow_in_a_row_is_a_clear_error_not_a_loop(api, make_agent, workspace):
    write_files(workspace, count=3, chars=2_000)
    model = ScriptedModel(api, read_steps(3))
    agent, _ = with_context(make_agent, window=200_000)
    run(agent.run("read the files"))
    model.steps.extend([TOO_LONG, TOO_LONG])
    with pytest.raises(ContextOverflow, match="prompt is too long"):
        run(agent.run("and now?"))
    assert len(model.compaction_calls) == 1
    assert agent.messages[-1]["content"][-1]["text"] == "and now?"  # nothing lost


def test_without_context_management_an_overflow_is_one_clear_error(api, make_agent):
    api.add(TOO_LONG)
    api.add(TOO_LONG)  # the one retry meets the same refusal
    with pytest.raises(ContextOverflow, match="The API rejected the request: prompt is too long"):
        run(make_agent().run("hello"))
    assert len(api.requests) == 2


def test_reply_cut_by_the_window_compacts_and_asks_again(api, make_agent, workspace):
    write_files(workspace, count=3, chars=2_000)
    cut = {"content": [text("Partial")], "stop_reason": "model_context_window_exceeded"}
    model = ScriptedModel(api, [*read_steps(3)[:3], cut, {"content": [text("Done after all.")]}])
    agent, _ = with_context(make_agent, window=200_000)
    assert run(agent.run("read the files")) == "Done after all."
    assert len(model.compaction_calls) == 1
    assert starts_from_notes(model.requests[-1])


def test_compact_command_uses_the_focus_and_the_next_request_starts_from_notes(
    api, make_agent, workspace
):
    write_files(workspace, count=3, chars=2_000)
    model = ScriptedModel(api, [*read_steps(3), {"content": [text("Next part done.")]}])
    agent, _ = with_context(make_agent, window=200_000)
    run(agent.run("read the files"))
    notices: list[str] = []

    class UI:
        def notice(self, text: str) -> None:
            notices.append(text)

    asyncio.run(compact(agent, UI(), "/compact the parser errors"))
    assert "Focus the notes on: the parser errors" in json.dumps(model.compaction_calls[0])
    assert run(agent.run("go on")) == "Next part done."
    assert starts_from_notes(model.requests[-1])
    assert notices == []


def test_compact_with_nothing_before_the_last_round_says_so(api, make_agent):
    agent, _ = with_context(make_agent, window=200_000)
    notices: list[str] = []

    class UI:
        def notice(self, text: str) -> None:
            notices.append(text)

    asyncio.run(compact(agent, UI(), "/compact"))
    assert notices == ["Nothing to compact yet."]


def test_a_task_wait_declared_in_the_compacted_part_is_dropped_and_a_later_one_kept():
    declare = tool_use("todo_write", {"todos": [], "wait_for_tasks": ["bg-1"]})
    summarized = [
        {"role": "user", "content": [text("run the suite")]},
        {"role": "assistant", "content": [declare]},
    ]
    extra = {"todo_task_wait": {"tool_use_id": declare["id"], "task_ids": ["bg-1"]}}
    drop_unprovable_task_wait(extra, summarized)
    assert extra["todo_task_wait"] is None

    later = {"todo_task_wait": {"tool_use_id": "toolu_kept", "task_ids": ["bg-1"]}}
    drop_unprovable_task_wait(later, summarized)
    assert later["todo_task_wait"]["task_ids"] == ["bg-1"]


# ---- end to end -----------------------------------------------------------------------------


@pytest.fixture
def env(env) -> dict:
    """The end-to-end environment (conftest), with a model of a 200K window."""
    return {**env, "MODEL_ID": "claude-haiku-4-5"}


def test_240k_token_task_with_a_200k_model_finishes(api, env, workspace):
    write_files(workspace, count=24, chars=40_000)  # 24 reads of ~10K tokens
    api.context_limit = 200_000
    model = ScriptedModel(api, read_steps(24))
    result = run_cli("-p", "read every file", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "All files read.\n"
    # The fake refused nothing over 200K tokens (the api fixture checks); old output was cleared.
    assert len(model.requests) == 25
    assert placeholders(model.requests[-1])


def test_resumed_session_that_is_too_long_compacts_first(api, env, workspace, isolated_home):
    write_files(workspace, count=3, chars=40_000)  # ~30K tokens of reads
    model = ScriptedModel(api, read_steps(3))
    first = run_cli("-p", "read every file", "--context-window", "1000000", cwd=workspace, env=env)
    assert first.returncode == 0, first.stderr
    model.steps.append({"content": [text("Picked up again.")]})
    api.context_limit = 20_000  # the saved history no longer fits this window
    resumed = run_cli(
        "-p", "go on", "--resume", "--context-window", "20000", cwd=workspace, env=env
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "Picked up again.\n"
    assert "compacted" in resumed.stderr
    assert len(model.compaction_calls) == 1
    assert starts_from_notes(model.requests[-1])
    # The log keeps every message and records the compaction: a note, and the notes in extra.
    (log,) = (isolated_home / "sessions").glob("*/*.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(r["type"] == "note" and "compacted" in r["text"] for r in records)
    extras = [r["extra"] for r in records if r["type"] == "extra"]
    assert extras[-1]["context_compaction"]["summary"] == NOTES
    assert sum(r["type"] == "message" for r in records) >= 10


@pytest.mark.real_exec
def test_compact_command_in_the_terminal_and_the_context_line(api, workspace, isolated_home):
    write_files(workspace, count=1, chars=2_000)
    model = ScriptedModel(
        api,
        [
            {"content": [tool_use("read_file", {"path": "f0.txt"})]},
            {"content": [text("Read it.")], "usage": {"input_tokens": 82_000}},
            {"content": [text("Going on from the notes.")]},
        ],
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    env.update(
        ANTHROPIC_API_KEY=API_KEY,
        ANTHROPIC_BASE_URL=api.base_url,
        MODEL_ID="claude-haiku-4-5",
        PLANLOOP_HOME=str(isolated_home),
        TERM="dumb",
        NO_COLOR="1",
        COLUMNS="200",
    )
    with Terminal(workspace, env) as terminal:
        terminal.wait_for_prompt()
        terminal.type("read the file\r")
        terminal.wait_for("Read it.")
        terminal.wait_for_prompt()
        terminal.type("/compact the file contents\r")
        terminal.wait_for("compacted 3 messages into notes")
        terminal.wait_for_prompt()
        terminal.type("go on\r")
        terminal.wait_for("Going on from the notes.")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    assert "Focus the notes on: the file contents" in json.dumps(model.compaction_calls[0])
    assert starts_from_notes(model.requests[-1])
