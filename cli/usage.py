"""Tokens and cost: a short line per reply and a running total for the session.

Each reply's `usage` holds four counts: fresh input, input read from the prompt cache, input
written to the cache, and output (thinking included: thinking tokens are billed as output).
The cost is the sum of each count times its price, plus the web searches the server ran for
the reply. The prices come from a small table by model family; a model that is not in it
shows tokens only.
"""

from __future__ import annotations

from dataclasses import dataclass

# US dollars per million tokens: (input, cache write (5 minutes), cache read, output).
# Source: Anthropic's pricing page, platform.claude.com/docs/en/about-claude/pricing, checked
# 2026-11-30 (Sonnet 5.5 cache reads cut to $0.10 on 2026-10-07). Haiku 5.5 is priced by
# prompt length; its row is the lower band (prompts up to 100,000 tokens).
# The first prefix of the model id that matches wins, so narrower prefixes come first.
PRICES: list[tuple[str, tuple[float, float, float, float]]] = [
    ("claude-fable-5-1", (10.0, 12.5, 0.25, 50.0)),
    ("claude-fable-5", (10.0, 12.5, 1.0, 50.0)),
    ("claude-opus-4-0", (15.0, 18.75, 1.5, 75.0)),
    ("claude-opus-4-1", (15.0, 18.75, 1.5, 75.0)),
    ("claude-opus-4-2025", (15.0, 18.75, 1.5, 75.0)),  # Opus 4, dated id
    ("claude-opus-5-5", (4.0, 5.0, 0.4, 20.0)),
    ("claude-opus", (5.0, 6.25, 0.5, 25.0)),  # Opus 4.5 to 4.8 and Opus 5
    ("claude-sonnet-5-5", (2.0, 2.5, 0.1, 10.0)),
    ("claude-sonnet-5", (2.0, 2.5, 0.2, 10.0)),
    ("claude-sonnet", (3.0, 3.75, 0.3, 15.0)),  # Sonnet 4, 4.5, 4.6
    ("claude-haiku-5-5", (0.1, 0.125, 0.01, 0.5)),
    ("claude-haiku-4", (1.0, 1.25, 0.1, 5.0)),
    ("claude-3-5-haiku", (0.8, 1.0, 0.08, 4.0)),
]


# Server tools are billed per use. Source: the same pricing page, checked 2026-11-30: web
# search $10 per 1,000 searches (its tokens are counted as usual); web fetch has no fee.
WEB_SEARCH_PRICE = 10.0 / 1000


def prices_for(model: str) -> tuple[float, float, float, float] | None:
    for prefix, prices in PRICES:
        if model.startswith(prefix):
            return prices
    return None


@dataclass
class Usage:
    """Token counts of one reply or of many added up, and their cost when it is known."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    web_searches: int = 0  # run by the server (usage.server_tool_use.web_search_requests)
    cost: float | None = 0.0  # None once any part came from a model without a price
    replies: int = 0

    @classmethod
    def of_reply(cls, model: str, usage: dict) -> Usage:
        counts = cls(
            input=usage.get("input_tokens") or 0,
            cache_read=usage.get("cache_read_input_tokens") or 0,
            cache_write=usage.get("cache_creation_input_tokens") or 0,
            output=usage.get("output_tokens") or 0,
            web_searches=(usage.get("server_tool_use") or {}).get("web_search_requests") or 0,
            replies=1,
        )
        prices = prices_for(model)
        if prices is None:
            counts.cost = None
        else:
            tokens = (counts.input, counts.cache_write, counts.cache_read, counts.output)
            counts.cost = sum(n * price for n, price in zip(tokens, prices, strict=True)) / 1e6
            counts.cost += counts.web_searches * WEB_SEARCH_PRICE
        return counts

    def add(self, other: Usage) -> None:
        self.input += other.input
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.output += other.output
        self.web_searches += other.web_searches
        self.replies += other.replies
        both_known = self.cost is not None and other.cost is not None
        self.cost = self.cost + other.cost if both_known else None  # type: ignore[operator]

    def line(self) -> str:
        """`1,204 in · 18,330 cache read · 512 cache write · 230 out · $0.0123`"""
        parts = [
            f"{self.input:,} in",
            f"{self.cache_read:,} cache read",
            f"{self.cache_write:,} cache write",
            f"{self.output:,} out",
        ]
        if self.web_searches:
            parts.append(f"{self.web_searches} web search{'es' if self.web_searches > 1 else ''}")
        if self.cost is not None:
            parts.append(dollars(self.cost))
        return " · ".join(parts)

    @property
    def input_total(self) -> int:
        """All the input of the reply: fresh, read from the cache and written to it."""
        return self.input + self.cache_read + self.cache_write

    def brief_line(self) -> str:
        """The line after each reply: `19,534 in · 230 out · $0.0123` (the cache split is in
        `line`, which /cost shows)."""
        parts = [f"{self.input_total:,} in", f"{self.output:,} out"]
        if self.web_searches:
            parts.append(f"{self.web_searches} web search{'es' if self.web_searches > 1 else ''}")
        if self.cost is not None:
            parts.append(dollars(self.cost))
        return " · ".join(parts)

    def total_line(self) -> str:
        calls = "1 model call" if self.replies == 1 else f"{self.replies} model calls"
        return f"session total: {calls} · {self.line()}"


def dollars(cost: float) -> str:
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"
