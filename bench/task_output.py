"""What a background task that prints a lot costs: time, memory and disk.

    python bench/task_output.py [--bytes 1000000000]

Starts `yes | head -c BYTES` as a background task (tools/tasks.py), waits for it with
task_output, and prints the wall time, the growth of this process's peak memory, the size of
the output file, and the length of what the model reads.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.tasks import MAX_WAIT_SECONDS, TaskManager  # noqa: E402


class PlainSandbox:
    def wrap(self, workspace: Path, command: str) -> tuple[list[str], dict[str, str]]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        return ["/bin/bash", "-c", command], env


async def measure(total: int, folder: Path) -> tuple[float, int, str]:
    manager = TaskManager(folder / "tasks", PlainSandbox())
    started = time.perf_counter()
    task = await manager.start(folder, f"yes | head -c {total}")
    text = await manager.task_output(folder, task.id, wait=MAX_WAIT_SECONDS)
    return time.perf_counter() - started, task.output.path.stat().st_size, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bytes", type=int, default=1_000_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        seconds, file_size, text = asyncio.run(measure(args.bytes, Path(folder)))
        peak_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"output produced:        {args.bytes / 1e6:,.0f} MB")
    print(f"wall time:              {seconds:.2f} s ({args.bytes / 1e6 / seconds:,.0f} MB/s)")
    print(f"peak memory growth:     {(peak_after - peak_before) / 1024:.1f} MiB")
    print(f"output file on disk:    {file_size / 2**20:.2f} MiB")
    print(f"task_output text:       {len(text):,} characters")


if __name__ == "__main__":
    main()
