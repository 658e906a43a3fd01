"""What a headless run tells a script: a stop code, and the JSON object of `--output-format json`.

    the run ends ──> stop_code()  end_turn · max_turns · max_tokens · stopped · refusal
                                  interrupted · terminated · error
                 ──> run_summary()  one JSON object: the answer, the code and its prose, the
                                    session id, turns, time, tokens, cost and the plan

A script branches on `stop_reason` (a fixed code) and `is_error`, and shows `message` (the
sentence a person would read on stderr). An error that ends planloop after the flags were read
(a bad key, an API error, a session that cannot be opened) still prints one such object, with
`stop_reason` "error", so a script never has to parse an empty stdout.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from middleware import TurnLimit

if TYPE_CHECKING:
    from agent import Agent
    from cli.autosave import Autosave
    from cli.usage import Usage

END_TURN = "end_turn"  # the model answered: the run is done
MAX_TURNS = "max_turns"  # the turn limit (--max-turns) stopped it
MAX_TOKENS = "max_tokens"  # the last answer was cut off at the output limit
STOPPED = "stopped"  # another middleware stopped it (the server paused too often, say)
REFUSAL = "refusal"  # the model declined the task
INTERRUPTED = "interrupted"  # Ctrl-C
TERMINATED = "terminated"  # SIGTERM or SIGHUP
ERROR = "error"  # planloop could not go on (an API error, a bad key, a session error)


class RunClock:
    """When the headless run started, for `duration_ms`."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def elapsed_ms(self) -> int:
        return round(1000 * (time.monotonic() - self.started))


def stop_code(agent: Agent, ending: int | None) -> str:
    """Why a finished headless run stopped, as one of the codes above."""
    if ending is not None:
        return TERMINATED
    if agent.signal.is_set():
        return INTERRUPTED
    if agent.context.stop_reason:
        limits = [m for m in agent.hooks.middlewares if isinstance(m, TurnLimit)]
        at_limit = any(agent.context.turn >= limit.max_turns for limit in limits)
        return MAX_TURNS if at_limit else STOPPED
    if agent.refusal is not None:
        return REFUSAL
    if agent.last_stop_reason == "max_tokens":
        return MAX_TOKENS
    return END_TURN


def usage_fields(usage: Usage | None) -> dict[str, Any]:
    """The tokens in the API's own names, and the cost (None for a model without a price)."""
    counts = {
        "input_tokens": usage.input if usage else 0,
        "cache_read_input_tokens": usage.cache_read if usage else 0,
        "cache_creation_input_tokens": usage.cache_write if usage else 0,
        "output_tokens": usage.output if usage else 0,
        "server_tool_use": {"web_search_requests": usage.web_searches if usage else 0},
    }
    return {"usage": counts, "cost_usd": usage.cost if usage else 0.0}


def run_summary(
    *,
    agent: Agent | None,
    usage: Usage | None,
    autosave: Autosave | None,
    answer: str | None,
    code: str,
    message: str,
    status: int,
    clock: RunClock,
) -> dict[str, Any]:
    """The one JSON object of `--output-format json` (and the last line of stream-json).

    `num_turns` counts the run's model calls, also those after a wait for background tasks
    and one that failed;
    `turns`, the older name kept for scripts that read it, counts those of its last part.
    """
    turns = agent.context.turn if agent is not None else 0
    # The replies of every part; the last part's count also holds a call that failed.
    num_turns = max(turns, usage.replies if usage is not None else 0)
    return {
        "type": "result",
        "answer": answer,
        "session_id": autosave.session.id if autosave is not None else None,
        "stop_reason": code,
        "message": message,
        "is_error": status != 0,
        "exit_code": status,
        "refusal": agent.refusal if agent is not None else None,  # the API's stop_details
        "duration_ms": clock.elapsed_ms(),
        "num_turns": num_turns,
        "turns": turns,
        **usage_fields(usage),
        "plan": (agent.extra.get("todos") or []) if agent is not None else [],
    }
