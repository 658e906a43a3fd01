"""What reading a command line of nested command outputs costs (tools/git_programs.py).

    python bench/nested_outputs.py [--runs 3]

Each command's output of a line (`$(echo $(echo ...))`) is read again as a line of its own,
so outputs nested deep around a long text are read in time of their depth times their length;
a repository's `core.pager` is read for every command. Lines of such outputs, and flat lines
of the same length for comparison, side by side in one run, milliseconds per line:

    unbounded    each nested line read whatever was read before it, as before
    as shipped   the line and its nested lines read up to MAX_NESTED_READING characters in
                 all; past that the line is one too long to read, and commands ask
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import git_programs  # noqa: E402
from tools.environment import WordTooLong  # noqa: E402


def nested(depth: int, plain: int) -> str:
    return "echo " + "$(echo " * depth + "a" * plain + ")" * depth


LINES = {
    "flat 60 KB": nested(0, 60_000),
    "flat `a;`": "a;" * 30_000,
    "50 x 10 KB": nested(50, 10_000),
    "200 x 10 KB": nested(200, 10_000),
    "200 x 60 KB": nested(200, 60_000),
    "250 x 1 B": nested(250, 1),
}


def ms_per_line(line: str, runs: int) -> tuple[float, str]:
    best, outcome = float("inf"), ""
    for _ in range(runs):
        started = time.perf_counter()
        try:
            git_programs.program_paths(line, Path("/w"), [])
            outcome = "read"
        except WordTooLong:
            outcome = "asks"
        best = min(best, time.perf_counter() - started)
    return best * 1000, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    shipped = git_programs.MAX_NESTED_READING
    print(f"ms to read a line, best of {args.runs} runs")
    print(f"{'line':<14}{'unbounded':>13}{'as shipped':>13}")
    for name, line in LINES.items():
        row = []
        for most in (10**12, shipped):
            git_programs.MAX_NESTED_READING = most
            row.append(ms_per_line(line, args.runs))
        git_programs.MAX_NESTED_READING = shipped
        cells = "".join(f"{ms:>8.0f} {outcome}" for ms, outcome in row)
        print(f"{name:<14}{cells}")


if __name__ == "__main__":
    main()
