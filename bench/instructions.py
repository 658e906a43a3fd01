"""Instructions per turn, counted by valgrind: the work of each loop, whatever the machine's load.

    python bench/instructions.py [--turns 100]

bench/per_turn.py times the gap at the fake between one reply and the next request; on a busy
machine its figures swing, and a time alone does not tell work from waiting. This counts the
instructions each client executes in user space (valgrind's cachegrind, all its threads) over a
run of BASE_TURNS turns and one of BASE_TURNS + --turns; their difference over --turns is one
turn's work, start-up left out. The loops are per_turn.py's: the bare streaming loop, planloop
(`agent.py -p`), and the bare loop sending planloop's own request bodies again (the replay).

Not counted: the kernel's work for the system calls, the time spent waiting (for a thread, the
processor, the disk), and planloop's child processes (the search for copies of the key, which
is start-up work and runs in both of planloop's runs alike). Where this ratio is small and
per_turn.py's is not, the difference is in those.

Needs valgrind (`apt-get install valgrind`); each run takes a minute or two.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import per_turn  # noqa: E402  (its fake, its loops and its key)

BASE_TURNS = 20
INSTRUCTIONS = re.compile(r"I\s+refs:\s+([\d,]+)")


def count(loop: str, turns: int, recording: Path) -> int:
    """Instructions of one run of `loop` against a fresh fake; "planloop" records its
    requests in `recording`, and "replay" sends those again."""
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp) / "work"
        workspace.mkdir()
        (workspace / per_turn.FILE_NAME).write_text(per_turn.FILE_TEXT)
        record = ["--record", str(recording)] if loop == "planloop" else []
        serve = [sys.executable, per_turn.__file__, "--serve", str(turns), *record]
        fake = subprocess.Popen(
            [*serve, "--pid-file", str(Path(tmp) / "pid")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        base_url = fake.stdout.readline().strip()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env |= {"ANTHROPIC_API_KEY": per_turn.API_KEY, "ANTHROPIC_BASE_URL": base_url}
        env |= {"PLANLOOP_HOME": str(Path(tmp) / "home")}
        env.pop("MODEL_ID", None)
        if loop == "planloop":
            prompt = f"Read {per_turn.FILE_NAME} again and again."
            client = [str(per_turn.ROOT / "agent.py"), "-p", prompt, "--max-turns", str(turns + 10)]
        else:
            client = [per_turn.__file__, f"--{loop}", base_url]
            client.append(str(recording) if loop == "replay" else str(turns))
        valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no"]
        valgrind.append("--cachegrind-out-file=/dev/null")
        run = subprocess.run(
            [*valgrind, sys.executable, *client], cwd=workspace, env=env, capture_output=True
        )
        fake.communicate("done\n")
    found = INSTRUCTIONS.search(run.stderr.decode(errors="replace"))
    if run.returncode != 0 or found is None:
        raise SystemExit(f"{loop}: exit {run.returncode}\n{run.stderr.decode()[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=100, help="turns counted (default 100)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    per_turn.RECORDINGS.mkdir(exist_ok=True)
    per_loop = {}
    try:
        for loop in ("bare", "planloop", "replay"):
            # The replay sends the bodies of planloop's run of the same length, just before.
            runs = []
            for turns in (BASE_TURNS, BASE_TURNS + args.turns):
                recording = per_turn.RECORDINGS / f"instructions-{turns}.json"
                runs.append(count(loop, turns, recording))
                print(f"  {loop}, {turns} turns: {runs[-1]:,} instructions", file=sys.stderr)
            per_loop[loop] = (runs[1] - runs[0]) / args.turns
    finally:
        shutil.rmtree(per_turn.RECORDINGS, ignore_errors=True)
    print(f"instructions per turn, turns {BASE_TURNS + 1} to {BASE_TURNS + args.turns}")
    for loop, per in per_loop.items():
        print(f"  {loop:9} {per / 1e6:8.2f} million")
    print(f"  planloop / bare:   {per_loop['planloop'] / per_loop['bare']:.2f}x")
    print(f"  planloop / replay: {per_loop['planloop'] / per_loop['replay']:.2f}x")


if __name__ == "__main__":
    main()
