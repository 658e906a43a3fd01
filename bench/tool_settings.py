"""What a big host tool settings file costs each bash command, read once per look or not.

    python bench/tool_settings.py [--runs 3]

A workspace whose `.vscode/tasks.json` holds a folderOpen task that depends on a chain of N
tasks (every one of which planloop reads for what it runs). `true` is run through the bash
tool in the sandbox, side by side in one run:

    read once       as shipped: making a command ready, and taking stock after it, each read
                    the settings once (tools/tool_scripts.py `read_once`)
    every question  each question about them (the binds, whether to ask, what runs only once
                    made, what a command made) reads them again, as before `read_once`
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.bash import run_bash  # noqa: E402
from tools.sandbox import Bubblewrap, bubblewrap_works  # noqa: E402


def workspace_with_tasks(folder: Path, chain: int) -> Path:
    tasks = [
        {"label": f"t{i}", "type": "shell", "command": f"echo {i}", "dependsOn": [f"t{i + 1}"]}
        for i in range(chain)
    ]
    del tasks[-1]["dependsOn"]
    tasks[0]["runOptions"] = {"runOn": "folderOpen"}
    (folder / ".vscode").mkdir(parents=True)
    (folder / ".vscode" / "tasks.json").write_text(json.dumps({"tasks": tasks}))
    return folder


def per_command_ms(workspace: Path, sandbox: Bubblewrap, runs: int) -> float:
    asyncio.run(run_bash(workspace, "true", sandbox=sandbox))  # once, to warm up
    start = time.perf_counter()
    for _ in range(runs):
        asyncio.run(run_bash(workspace, "true", sandbox=sandbox))
    return (time.perf_counter() - start) / runs * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not bubblewrap_works():
        sys.exit("bubblewrap cannot make a sandbox here")
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-api03-" + "x" * 80)
    print(f"{'tasks':>6} {'read once':>12} {'every question':>16}")
    for chain in (10, 1000, 3000):
        with tempfile.TemporaryDirectory() as folder:
            workspace = workspace_with_tasks(Path(folder), chain)
            once = Bubblewrap()
            once.before_command(workspace, starting=True)
            each = Bubblewrap()
            each.reading_once = contextlib.nullcontext  # every question reads them again
            with_span = per_command_ms(workspace, once, args.runs)
            without = per_command_ms(workspace, each, args.runs)
            print(f"{chain:>6} {with_span:>10.0f}ms {without:>14.0f}ms")


if __name__ == "__main__":
    main()
