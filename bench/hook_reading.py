"""What reading a git hook's lines costs (tools/hook_lines.py, tools/git_programs.py).

    python bench/hook_reading.py [--runs 3]

A look reads each hook of the repository, up to 32 KiB a hook (HOOK_FILE_LIMIT), for the
programs it runs. Hooks of that size, written as generated hooks are and as a hostile
repository would write them (a simple command every two characters, or a quote every
three), side by side in one run, milliseconds per hook:

    split each time   each line split into its simple commands again for each thing read
                      of it, and no bound on the commands of a hook, as before
    as shipped        each line split once (tools/hook_lines.py `_segments`), and a hook of
                      more than MAX_COMMANDS commands left unread: commands ask
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import hook_lines  # noqa: E402

HOOK_SIZE = 32 * 1024
GENERATED = """#!/bin/sh
# installed by the project's hook manager
if [ -z "$SKIP_HOOKS" ]; then . "$(dirname -- "$0")/_/init.sh"; fi
npx lint-staged --config .lintstagedrc.json || exit 1
echo "checked $(git rev-parse --short HEAD)" # done
make -C web lint 'x y' "a $(printf '%s' "b")"
"""
SHAPES = {
    "generated": GENERATED,
    "commands": "a;" * 500 + "\n",  # (one simple command every two characters)
    "quotes": '"a"' * 330 + "\n",
}


def ms_per_hook(text: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        hook_lines._READ.clear()
        hook_lines._SPLIT.clear()
        started = time.perf_counter()
        for _ in hook_lines.hook_lines(text, "/w/.git/hooks/pre-commit", "/w", {"PATH": "/bin"}):
            pass
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    shipped = (hook_lines._segments, hook_lines.MAX_COMMANDS)
    print(f"ms to read a hook of {HOOK_SIZE // 1024} KiB, best of {args.runs} runs")
    print(f"{'hook':<12}{'split each time':>18}{'as shipped':>14}")
    for name, piece in SHAPES.items():
        text = piece * (HOOK_SIZE // len(piece))
        row = []
        for segments, most in ((hook_lines._split, 10**9), shipped):
            hook_lines._segments, hook_lines.MAX_COMMANDS = segments, most
            row.append(ms_per_hook(text, args.runs))
        hook_lines._segments, hook_lines.MAX_COMMANDS = shipped
        print(f"{name:<12}{row[0]:>18.0f}{row[1]:>14.0f}")


if __name__ == "__main__":
    main()
