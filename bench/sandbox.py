"""What the sandbox costs per bash command: start-up, the protected-path scan, the /proc sweep.

    python bench/sandbox.py [WORKSPACE]

Runs `true` many times without a sandbox and in bubblewrap (where it works), times the scan
for protected files in WORKSPACE (default: this repository), and the sweep of /proc that
finds a command's leftover processes. Prints milliseconds per command.
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.bash import run_bash  # noqa: E402
from tools.paths import existing_protected_paths  # noqa: E402
from tools.process import kill_marked_processes  # noqa: E402
from tools.sandbox import Bubblewrap, NoSandbox, bubblewrap_works  # noqa: E402

RUNS = 20


def per_call_ms(action, runs: int = RUNS) -> float:
    start = time.perf_counter()
    for _ in range(runs):
        action()
    return (time.perf_counter() - start) / runs * 1000


def main() -> None:
    workspace = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT).resolve()
    found = existing_protected_paths(workspace)
    print(f"workspace: {workspace} ({len(found)} protected paths found)")
    print(
        f"protected-path scan    {per_call_ms(lambda: existing_protected_paths(workspace)):7.1f} ms"
    )
    sweep = per_call_ms(lambda: kill_marked_processes(uuid.uuid4().hex))
    print(f"/proc sweep            {sweep:7.1f} ms")
    sandboxes = [("bash, no sandbox", NoSandbox())]
    probe = bubblewrap_works()
    if probe is True:
        sandboxes.append(("bash, bubblewrap", Bubblewrap()))
    else:
        print(f"(no bubblewrap: {probe})")
    for name, sandbox in sandboxes:
        ms = per_call_ms(lambda s=sandbox: asyncio.run(run_bash(workspace, "true", sandbox=s)))
        print(f"{name:<22} {ms:7.1f} ms per command (`true`, everything included)")
    start = time.perf_counter()
    bubblewrap_works.cache_clear()
    bubblewrap_works()
    print(f"start-up probe         {(time.perf_counter() - start) * 1000:7.1f} ms (once)")


if __name__ == "__main__":
    main()
