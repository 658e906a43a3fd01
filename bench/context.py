"""What clearing in large steps does to the prompt cache, over a long scripted run.

    python bench/context.py [--turns 120] [--output-tokens 4000] [--window 200000]

One scripted task (each turn one tool call whose output is about --output-tokens) is played
through the fake Messages API, with the context limit of the window, under three policies:

  large steps   ContextManager as shipped: past 60% of the window, clear every old result
                at once, then leave the prefix alone until it is needed again
  every turn    clear just enough, oldest first, to get back under 60%: the cut point
                moves on almost every turn
  compact only  never clear; compact at 85%

The fake does not model the prompt cache, so it is simulated here as the API documents it:
each request writes a cache entry for its whole prefix (the breakpoint on its last block),
and a later request reads the longest earlier entry that is a prefix of it. The figure that
matters is the cache-read share: the part of all input tokens read from the cache (billed
at a tenth of the price) rather than processed again; "billed" prices the input as the API
does (a cache write 1.25x, a cache read 0.1x), in input-token equivalents.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anthropic  # noqa: E402

from agent import Agent  # noqa: E402
from fakeapi import FakeMessagesAPI, text, tool_use  # noqa: E402
from middleware.context import (  # noqa: E402
    CHARS_PER_TOKEN,
    CLEAR_AT,
    KEEP_TURNS,
    ContextManager,
)
from tools import Tool  # noqa: E402


class EveryTurn(ContextManager):
    """Clear just enough, oldest result first: the smallest change each time."""

    def choose_cut(self, messages: list[dict], size: int) -> int:
        turns = [i for i, m in enumerate(messages) if m["role"] == "assistant"][:-KEEP_TURNS]
        saved = self.extra.get("context_clearing")
        try:
            for cut in (r for r in turns if r > self.cut):
                self.extra["context_clearing"] = {"cut": cut}
                if self.estimate(self.build_request(messages)) <= CLEAR_AT * self.window:
                    return cut
            return max(turns, default=self.cut)
        finally:
            self.extra["context_clearing"] = saved


class CompactOnly(ContextManager):
    def choose_cut(self, messages: list[dict], size: int) -> int:
        return self.cut


POLICIES = {"large steps": ContextManager, "every turn": EveryTurn, "compact only": CompactOnly}


def output_tool(tokens: int) -> Tool:
    def produce(workspace: Path, step: int) -> str:
        line = f"step {step}: some build output worth reading once\n"
        return line * (tokens * CHARS_PER_TOKEN // len(line))

    schema = {"type": "object", "properties": {"step": {"type": "integer"}}, "required": ["step"]}
    return Tool("produce", "Print the output of a step.", schema, produce)


def script(turns: int) -> list[dict]:
    calls = [{"content": [tool_use("produce", {"step": i})]} for i in range(turns)]
    return [*calls, {"content": [text("done")]}]


def simulated_cache_reads(requests: list[dict]) -> tuple[int, int]:
    """(tokens read from the cache, all input tokens) over the loop's requests."""
    entries: set[str] = set()
    read = total = 0
    for number, body in enumerate(requests):
        head = json.dumps([body["tools"], strip_marks(body["system"])])
        prefix_hash = hashlib.sha256(head.encode())
        hashes, lengths, length = [], [], len(head)
        for message in body["messages"]:
            part = json.dumps(strip_marks(message))
            prefix_hash.update(part.encode())
            length += len(part)
            hashes.append(prefix_hash.hexdigest())
            lengths.append(length)
        hits = [n for h, n in zip(hashes, lengths, strict=True) if h in entries]
        cached = max(hits) if hits else (len(head) if number else 0)  # tools + system
        read += cached // CHARS_PER_TOKEN
        total += length // CHARS_PER_TOKEN
        entries.add(hashes[-1])
    return read, total


def strip_marks(value: object) -> object:
    """The value without cache_control marks, which do not change what is cached."""
    if isinstance(value, dict):
        return {k: strip_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_marks(v) for v in value]
    return value


async def play(policy: type[ContextManager], turns: int, tokens: int, window: int) -> dict:
    requests: list[dict] = []
    compactions = 0
    steps = script(turns)

    def reply(body: dict) -> dict:
        nonlocal compactions
        if "hand-over notes" in json.dumps(body.get("system")):
            compactions += 1
            return {"content": [text("## Goal\nRun every step.\n## Next\nThe next step.")]}
        requests.append(body)
        return steps.pop(0)

    with FakeMessagesAPI(api_key="bench", context_limit=window) as api:
        for _ in range(2 * turns + 5):
            api.add(reply)
        client = anthropic.AsyncAnthropic(api_key="bench", base_url=api.base_url, max_retries=0)
        agent: Agent | None = None
        manager = policy(lambda: agent.context, lambda s, p: agent.ask_model(s, p), window=window)
        agent = Agent(
            client=client,
            model="bench",
            tools=[output_tool(tokens)],
            middleware=[manager],
            max_turns=None,
            workspace=ROOT,
        )
        await agent.run("run every step")
        assert api.rejections == [], api.rejections
    read, total = simulated_cache_reads(requests)
    largest = max(len(json.dumps(body)) // CHARS_PER_TOKEN for body in requests)
    return {
        "requests": len(requests),
        "compactions": compactions,
        "largest": largest,
        "read": read,
        "total": total,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=120)
    parser.add_argument("--output-tokens", type=int, default=4_000)
    parser.add_argument("--window", type=int, default=200_000)
    args = parser.parse_args()
    print(
        f"{args.turns} turns of ~{args.output_tokens:,} output tokens, "
        f"window {args.window:,} ({args.turns * args.output_tokens:,} tokens of output in all)"
    )
    header = ("policy", "requests", "compactions", "largest", "input", "cache read", "billed")
    print("{:<14}{:>9}{:>12}{:>9}{:>12}{:>12}{:>12}".format(*header))
    for name, policy in POLICIES.items():
        r = asyncio.run(play(policy, args.turns, args.output_tokens, args.window))
        share = 100 * r["read"] / r["total"]
        # Billed like input tokens: a cache write costs 1.25x, a cache read 0.1x.
        billed = 1.25 * (r["total"] - r["read"]) + 0.1 * r["read"]
        print(
            f"{name:<14}{r['requests']:>9}{r['compactions']:>12}"
            f"{100 * r['largest'] / args.window:>8.0f}%{r['total']:>12,}{share:>11.1f}%"
            f"{billed:>12,.0f}"
        )


if __name__ == "__main__":
    main()
