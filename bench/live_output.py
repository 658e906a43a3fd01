"""What showing a running command's last lines costs, for a command that prints a lot.

    python bench/live_output.py [MEGABYTES]

Runs one bash command that prints MEGABYTES (default 300) of 100-character lines, three ways:
without a listener (no terminal), with the terminal's listener drawing the spinner and the last
lines into /dev/null (as in an interactive session), and the same command run by bash
directly into /dev/null (the floor). Prints the wall-clock seconds, planloop's own CPU seconds
and how often the listener was called, the best of three rounds.
"""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from cli.render import TerminalUI  # noqa: E402
from tools.bash import run_bash  # noqa: E402
from tools.process import output_heard_by  # noqa: E402
from tools.sandbox import NoSandbox  # noqa: E402

ROUNDS = 3


def command(megabytes: int) -> str:
    line = "x" * 99
    return f"yes {line} | head -c {megabytes * 1024 * 1024}"


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(workspace: Path, megabytes: int, ui: TerminalUI | None) -> tuple[float, float, int]:
    calls = [0]
    call = {"id": "bench", "name": "bash", "input": {"command": "bench"}}

    def listener(text: str) -> None:
        calls[0] += 1
        if ui is not None:
            ui.tool_output(call, text)

    async def run() -> str:
        if ui is None:
            return await run_bash(workspace, command(megabytes), sandbox=NoSandbox())
        ui.tool_started(call)
        try:
            with output_heard_by(listener):
                return await run_bash(workspace, command(megabytes), sandbox=NoSandbox())
        finally:
            ui.progress.stop()

    cpu, wall = own_cpu_seconds(), time.perf_counter()
    asyncio.run(run())
    return time.perf_counter() - wall, own_cpu_seconds() - cpu, calls[0]


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as folder, open(os.devnull, "w") as devnull:
        workspace = Path(folder)
        start = time.perf_counter()
        subprocess.run(["bash", "-c", command(megabytes)], stdout=devnull, check=True)
        alone = time.perf_counter() - start
        print(f"{megabytes} MB of output; bash alone into /dev/null: {alone:.2f} s")
        ui = TerminalUI(Console(file=devnull, force_terminal=True, width=100), workspace)
        timed(workspace, 1, None)  # the first start loads what every later one reuses
        best: dict[str, tuple[float, float, int]] = {}
        for _ in range(ROUNDS):  # alternated, the best of each: the machine may be busy
            for name, listener_ui in (("no listener", None), ("terminal listener", ui)):
                result = timed(workspace, megabytes, listener_ui)
                best[name] = min(best.get(name, result), result)
        for name, (wall, cpu, calls) in best.items():
            print(f"{name:18} {wall:6.2f} s wall  {cpu:6.2f} s planloop CPU  {calls} calls")


if __name__ == "__main__":
    main()
