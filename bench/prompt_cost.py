"""What the fixed texts cost on every request: system prompt, todo section, tool schemas.

    python bench/prompt_cost.py

Tokens are estimated as characters / 4 (no tokenizer runs offline); compare rows with each
other, not with a bill. Everything listed here is sent with each model call, so a change
that grows it shows up here first.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from prompts import load_prompt  # noqa: E402
from todo import TodoListMiddleware  # noqa: E402
from tools import default_tools  # noqa: E402

CHARS_PER_TOKEN = 4


def row(name: str, text: str) -> tuple[str, int, int, int]:
    return name, len(text), len(text.split()), round(len(text) / CHARS_PER_TOKEN)


def main() -> None:
    todo_tool = TodoListMiddleware(extra_ref=dict).tools[0]
    rows = [
        row("system prompt", load_prompt("system")),
        row("todo system section", load_prompt("todo_system")),
    ]
    rows += [row(f"tool {t.name}", json.dumps(t.schema())) for t in [*default_tools(), todo_tool]]
    every_call = sum(r[1] for r in rows)
    rows.append(("= on every call", every_call, sum(r[2] for r in rows), every_call // 4))
    rows.append(row("reminder (when due)", load_prompt("todo_reminder")))
    rows.append(row("correction (once/input)", load_prompt("todo_finalize")))
    print(f"{'text':26} {'chars':>7} {'words':>7} {'~tokens':>8}")
    for name, chars, words, tokens in rows:
        print(f"{name:26} {chars:7} {words:7} {tokens:8}")


if __name__ == "__main__":
    main()
