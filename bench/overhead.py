"""How much time the harness itself adds: per turn of the loop, and at start-up.

    python bench/overhead.py [--turns 200] [--repeat 5]

Per turn: the same scripted conversation (each reply one cheap tool call) is played
through the fake Messages API twice in one run, side by side:

  raw SDK     the same requests, grown the same way, by a bare ten-line loop
  agent loop  Agent.run: hooks, validation, dispatch, conversation upkeep, tool call
  + session   the same, saving the session after every turn (what the CLI does)

The difference per turn is the loop's own overhead. The fake answers instantly, so the
figures are dominated by local work, which is the point.

Terminal drawing: the UI calls of the same run are recorded once, then replayed into the
interactive TerminalUI (Markdown, tool lines, previews, cost lines, with and without the
spinner) drawing into a string. That is what the terminal adds to each turn.

Start-up: wall time of `python -c pass`, `python -c "import agent"` and
`python agent.py --help`, best of --repeat runs; bench/startup.py goes further.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anthropic  # noqa: E402
from rich.console import Console  # noqa: E402

from agent import Agent, QuietUI  # noqa: E402
from cli.render import TerminalUI  # noqa: E402
from fakeapi import FakeMessagesAPI, text, tool_use  # noqa: E402
from session import Session  # noqa: E402
from tools import Tool  # noqa: E402

NOOP = Tool("noop", "Does nothing.", {"type": "object", "properties": {}}, lambda ws: "ok")


def script(turns: int) -> list[dict]:
    calls = [{"content": [text("step"), tool_use("noop", {})]} for _ in range(turns - 1)]
    return [*calls, {"content": [text("done")]}]


def client_for(api: FakeMessagesAPI) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="bench", base_url=api.base_url, max_retries=0)


async def raw_sdk(api: FakeMessagesAPI, turns: int) -> float:
    """The same requests, grown the same way, by the smallest loop that can send them."""
    client = client_for(api)
    messages: list[dict] = [{"role": "user", "content": "go"}]
    tools = [NOOP.schema()]
    started = time.perf_counter()
    for _ in range(turns):
        async with client.messages.stream(
            model="bench", max_tokens=1000, messages=messages, tools=tools
        ) as stream:
            async for _event in stream:
                pass
            reply = await stream.get_final_message()
        content = [block.to_dict(mode="json") for block in reply.content]
        messages.append({"role": "assistant", "content": content})
        results = [
            {"type": "tool_result", "tool_use_id": block["id"], "content": "ok"}
            for block in content
            if block["type"] == "tool_use"
        ]
        if results:
            messages.append({"role": "user", "content": results})
    return time.perf_counter() - started


async def agent_loop(api: FakeMessagesAPI, turns: int, save: bool, workspace: Path) -> float:
    agent = Agent(
        client=client_for(api),
        workspace=workspace,
        model="bench",
        tools=[NOOP],
        middleware=[],  # the bare loop: its own cost, without the product's middlewares
        max_turns=turns + 1,
    )
    if save:
        agent.checkpoint = Session(workspace).save
    started = time.perf_counter()
    await agent.run("go")
    return time.perf_counter() - started


def per_turn(turns: int, workspace: Path) -> None:
    rows = []
    for name in ("raw SDK", "agent loop", "+ session"):
        api = FakeMessagesAPI(script=script(turns), api_key="bench")
        with api:
            tracemalloc.start()
            if name == "raw SDK":
                seconds = asyncio.run(raw_sdk(api, turns))
            else:
                seconds = asyncio.run(agent_loop(api, turns, name == "+ session", workspace))
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            if api.rejections:
                raise SystemExit(f"{name}: the fake rejected a request: {api.rejections[0]}")
        rows.append((name, seconds, peak))
    base = rows[0][1]
    print(f"per turn, {turns} turns (each a streamed request through 127.0.0.1)")
    print(f"  {'':12} {'total s':>9} {'ms/turn':>9} {'overhead ms/turn':>17} {'peak MiB':>9}")
    for name, seconds, peak in rows:
        overhead = (seconds - base) / turns * 1000
        print(
            f"  {name:12} {seconds:9.3f} {seconds / turns * 1000:9.2f} {overhead:17.2f} "
            f"{peak / 2**20:9.1f}"
        )


class RecordingUI(QuietUI):
    """Keeps every call the loop makes on its UI, to replay them later."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple]] = []

    def __getattribute__(self, name: str):
        if name in ("calls", "__dict__") or name.startswith("__"):
            return object.__getattribute__(self, name)
        return lambda *args: self.calls.append((name, args))


def terminal_drawing(turns: int, workspace: Path) -> None:
    recorder = RecordingUI()
    api = FakeMessagesAPI(script=script(turns), api_key="bench")
    with api:
        agent = Agent(
            client=client_for(api),
            workspace=workspace,
            model="claude-sonnet-4-6",
            tools=[NOOP],
            middleware=[],
            max_turns=turns + 1,
            ui=recorder,
        )
        asyncio.run(agent.run("go"))
    print(f"terminal drawing per turn ({len(recorder.calls)} UI calls replayed)")
    for spinner in (False, True):
        console = Console(
            file=io.StringIO(), width=100, force_terminal=True, force_interactive=spinner
        )
        ui = TerminalUI(console, workspace)
        started = time.perf_counter()
        for name, args in recorder.calls:
            getattr(ui, name)(*args)
        ui.stop_progress()
        ms = (time.perf_counter() - started) / turns * 1000
        print(
            f"  {'with the spinner' if spinner else 'no spinner (pipe, TERM=dumb)':30} {ms:6.2f} ms"
        )


def best_of(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(
            command,
            cwd=ROOT,
            check=True,
            capture_output=True,
            env={**os.environ, "ANTHROPIC_API_KEY": "bench"},
        )
        times.append(time.perf_counter() - started)
    return min(times)


def startup(repeat: int) -> None:
    print(f"start-up (best of {repeat})")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import anthropic": [sys.executable, "-c", "import anthropic"],
        "import agent": [sys.executable, "-c", "import agent"],
        "agent.py --help": [sys.executable, "agent.py", "--help"],
    }
    seconds = {name: best_of(cmd, repeat) for name, cmd in commands.items()}
    for name, value in seconds.items():
        print(f"  {name:16} {value * 1000:8.0f} ms")
    own = seconds["import agent"] - seconds["python -c pass"]
    # agent.py no longer imports the SDK (model.py loads it for the first call).
    print(f"  planloop's own imports (import agent - python -c pass): {own * 1000:.0f} ms")
    print("  (bench/startup.py measures the time to the first request and to the prompt)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PLANLOOP_HOME"] = tmp
        per_turn(args.turns, Path(tmp))
        print()
        terminal_drawing(args.turns, Path(tmp))
    print()
    startup(args.repeat)


if __name__ == "__main__":
    main()
