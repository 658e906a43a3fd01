"""What the terminal adds to a turn, and how long planloop takes to start.

    python bench/overhead.py [--turns 200] [--repeat 5]

The loop's own time per turn is measured by bench/per_turn.py, with the fake Messages API in a
process of its own, as a user runs planloop; this script measures the rest.

Terminal drawing: the UI calls of a scripted run are recorded once, then replayed into the
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import anthropic  # noqa: E402
from rich.console import Console  # noqa: E402

from agent import Agent, QuietUI  # noqa: E402
from cli.render import TerminalUI  # noqa: E402
from fakeapi import FakeMessagesAPI, text, tool_use  # noqa: E402
from tools import Tool  # noqa: E402

NOOP = Tool("noop", "Does nothing.", {"type": "object", "properties": {}}, lambda ws: "ok")


def script(turns: int) -> list[dict]:
    calls = [{"content": [text("step"), tool_use("noop", {})]} for _ in range(turns - 1)]
    return [*calls, {"content": [text("done")]}]


def client_for(api: FakeMessagesAPI) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="bench", base_url=api.base_url, max_retries=0)


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
        terminal_drawing(args.turns, Path(tmp))
    print()
    startup(args.repeat)


if __name__ == "__main__":
    main()
