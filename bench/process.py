"""What the supervisor costs per unsandboxed command, and how fast a tree dies with planloop.

    python bench/process.py

Runs `true` through bash many times without a sandbox, once as planloop does (under
tools/supervisor.py) and once started directly, as before the supervisor; the difference is
the price of a tree that dies with planloop. Then starts a command that leaves a setsid child
and a double-forked orphan behind, SIGKILLs the process that started it, and times how long
until the last of them is gone. Prints milliseconds.
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.bash import run_bash  # noqa: E402
from tools.sandbox import NoSandbox  # noqa: E402

RUNS = 30


class Unsupervised(NoSandbox):
    """NoSandbox, started without the supervisor (as if the sandbox ended its own processes)."""

    confines_processes = True


def per_command_ms(sandbox: object, workspace: Path) -> tuple[float, float]:
    """Wall-clock and CPU milliseconds per command; CPU counts the started processes only,
    so it holds still on a busy machine where the wall clock does not."""
    cpu_before = children_cpu_seconds()
    start = time.perf_counter()
    for _ in range(RUNS):
        asyncio.run(run_bash(workspace, "true", sandbox=sandbox))
    wall = (time.perf_counter() - start) / RUNS * 1000
    return wall, (children_cpu_seconds() - cpu_before) / RUNS * 1000


def children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def alive(token: bytes) -> bool:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and token in (entry / "cmdline").read_bytes():
                stat = (entry / "stat").read_text()
                if stat.rsplit(")", 1)[1].split()[0] != "Z":
                    return True
        except OSError:
            continue
    return False


def ms_until_the_tree_dies_with_its_starter(workspace: Path) -> float:
    number = random.randrange(10**6, 10**7)
    command = f"setsid sleep {number} & (env -i setsid sleep {number} &); touch started; sleep 600"
    starter = textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from tools.process import BoundedOutput, start_command
        from tools.sandbox import NoSandbox
        async def main():
            argv, env = NoSandbox().wrap(Path.cwd(), {command!r})
            await start_command(BoundedOutput, argv, env, Path.cwd())
            await asyncio.sleep(600)
        asyncio.run(main())
    """)
    proc = subprocess.Popen([sys.executable, "-c", starter], cwd=workspace)
    while not (workspace / "started").exists():
        time.sleep(0.01)
    token = f"sleep\0{number}".encode()
    while not alive(token):
        time.sleep(0.01)
    start = time.perf_counter()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    while alive(token):
        time.sleep(0.001)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        supervised = per_command_ms(NoSandbox(), workspace)
        direct = per_command_ms(Unsupervised(), workspace)
        for name, (wall, cpu) in [("supervised", supervised), ("direct", direct)]:
            print(f"bash `true`, no sandbox, {name:<11} {wall:7.1f} ms, {cpu:5.1f} ms of CPU")
        added = supervised[0] - direct[0], supervised[1] - direct[1]
        print(f"the supervisor adds                  {added[0]:7.1f} ms, {added[1]:5.1f} ms of CPU")
        killed = ms_until_the_tree_dies_with_its_starter(workspace)
        print(f"SIGKILL of planloop to the tree's end {killed:7.1f} ms")


if __name__ == "__main__":
    main()
