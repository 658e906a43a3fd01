"""The wire trace: every request exactly as sent and every reply with its usage.

    Agent.stream:  request --> Trace.request() --> one JSON line {"type": "request", "call": n, ...}
                   request --> the model (stream_reply in model.py)
                   reply   <-- the model
                   reply   --> Trace.reply()   --> one JSON line {"type": "reply", "call": n, ...}

`Agent.stream` makes every model call, the loop's (`call_model`) and compaction's
(`ask_model`), so both are traced.

`python agent.py --trace` writes the file next to the session, `<sessions folder>/<id>.trace.jsonl`,
so a learner can see what the middlewares did to a request (the todo system prompt, the
reminders after the tool results, the `cache_control` marks) and what each call cost.

The request line holds the body the SDK posts (`"stream": true` included). The key travels in
a header, not in the body, but a person may still paste it into a prompt or a file the model
reads: every line is scrubbed of the key and the auth token before it is written.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path

REDACTED = "[redacted]"
SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
MIN_SECRET_LENGTH = 8  # shorter values would blank out ordinary words


def trace_path(session_path: Path, session_id: str) -> Path:
    """Where the trace of a session lives: beside its log, named after its id."""
    return session_path.parent / f"{session_id}.trace.jsonl"


class Trace:
    """Appends request and reply records to a JSON Lines file, secrets removed."""

    def __init__(self, path: Path, secrets: Iterable[str | None] = ()) -> None:
        self.path = path
        found = [os.environ.get(name) for name in SECRET_VARIABLES]
        self.secrets = sorted(
            {s for s in [*found, *secrets] if s and len(s) >= MIN_SECRET_LENGTH},
            key=len,
            reverse=True,  # a longer secret that contains a shorter one goes first
        )
        self.calls = 0

    def request(self, request: dict) -> None:
        """Record one request body, as the SDK sends it for a streamed call."""
        self.calls += 1
        self.write({"type": "request", "call": self.calls, "body": {**request, "stream": True}})

    def reply(self, reply: dict) -> None:
        """Record the reply of the last request: content, stop reason and usage."""
        self.write({"type": "reply", "call": self.calls, "reply": reply})

    def write(self, record: dict) -> None:
        line = json.dumps({"v": 1, "time": time.time(), **record}, ensure_ascii=False)
        for secret in self.secrets:
            # json.dumps escapes some characters, so scrub both spellings of the value.
            line = line.replace(secret, REDACTED)
            line = line.replace(json.dumps(secret, ensure_ascii=False)[1:-1], REDACTED)
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as file:
            file.write(line + "\n")


def read_trace(path: Path) -> list[dict]:
    """The records of a trace file; lines that do not parse (a torn last line) are skipped."""
    records = []
    for line in path.read_text(encoding="utf-8").split("\n"):  # (not at a U+2028 in one)
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records
