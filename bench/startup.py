"""How long planloop takes to be ready, measured against importing the SDK alone.

    python bench/startup.py [--repeat 5]

  python -c pass            the interpreter alone
  import anthropic          the SDK alone: the floor for anything that calls the model
  agent.py --help           must not import the SDK at all (target: under 0.2 s)
  headless first request    `agent.py -p hi` until the fake API receives the request
                            (target: within 1.1x of `import anthropic`)
  interactive prompt        `agent.py` on a pseudo-terminal until the prompt reads keys
                            (the SDK then loads in the background while the user types)

Each figure is the best of --repeat runs, so a busy machine disturbs it less.
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fakeapi import FakeMessagesAPI, text  # noqa: E402

AGENT = str(ROOT / "agent.py")
PROMPT_READY = b"\x1b[?2004h"  # prompt_toolkit turns on bracketed paste as it draws the prompt


def run_once(command: list[str], env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def first_request(env: dict, workspace: Path) -> float:
    """Seconds from starting `agent.py -p` to the fake API receiving its first request."""
    arrived: list[float] = []

    def reply(body: dict) -> dict:
        arrived.append(time.perf_counter())
        return {"content": [text("hi")]}

    with FakeMessagesAPI(script=[reply], api_key="bench") as api:
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, AGENT, "-p", "hi"],
            cwd=workspace,
            env={**env, "ANTHROPIC_BASE_URL": api.base_url},
            check=True,
            capture_output=True,
        )
    return arrived[0] - started


def interactive_prompt(env: dict, workspace: Path) -> float:
    """Seconds from starting `agent.py` on a terminal to the prompt reading keys."""
    master, replica = pty.openpty()
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, AGENT],
        cwd=workspace,
        env={**env, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"},
        stdin=replica,
        stdout=replica,
        stderr=replica,
        start_new_session=True,
    )
    os.close(replica)
    seen = b""
    try:
        while PROMPT_READY not in seen:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                raise RuntimeError(f"no prompt after 30 s: {seen[-500:]!r}")
            seen += os.read(master, 65536)
        return time.perf_counter() - started
    finally:
        proc.kill()
        proc.wait()
        os.close(master)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")},
            "ANTHROPIC_API_KEY": "bench",
            "PLANLOOP_HOME": str(workspace / "home"),
            "MODEL_ID": "bench-model",
        }
        measures = {
            "python -c pass": lambda: run_once([sys.executable, "-c", "pass"], env),
            "import anthropic": lambda: run_once([sys.executable, "-c", "import anthropic"], env),
            "agent.py --help": lambda: run_once([sys.executable, AGENT, "--help"], env),
            "headless first request": lambda: first_request(env, workspace),
            "interactive prompt": lambda: interactive_prompt(env, workspace),
        }
        print(f"start-up (best of {args.repeat})")
        seconds = {}
        for name, measure in measures.items():
            seconds[name] = min(measure() for _ in range(args.repeat))
            print(f"  {name:24} {seconds[name] * 1000:8.0f} ms")
    ratio = seconds["headless first request"] / seconds["import anthropic"]
    print(f"  headless first request / import anthropic: {ratio:.2f}x (target: at most 1.1x)")


if __name__ == "__main__":
    main()
