"""What judging an `.envrc` costs before a command (tools/shell_config.py `envrc_untold`).

    python bench/envrc_reading.py [--runs 3]

Each question planloop asks of an `.envrc` (what it loads, sets, runs, puts on PATH) reads its
lines again with the shell's quoting (tools/git_programs.py `ShellReader`). Files of the usual
shape and a hostile one (nine `eval`s nested in quotes, 39 KB), side by side in one run,
milliseconds per look:

    read each time   the lines read again for each question, as before
    first look       each text read once (`read_by_a_shell` keeps the last texts read)
    later look       the next command's look, the texts already kept
"""

from __future__ import annotations

import argparse
import functools
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import git_programs  # noqa: E402
from tools.shell_config import envrc_untold  # noqa: E402

USUAL = """\
# project environment
dotenv_if_exists .env.local
PATH_add bin
export NODE_ENV=development
export DATABASE_URL="postgres://localhost/app_dev"
layout python3
"""
NESTED = functools.reduce(lambda line, _: f"eval {shlex.quote(line)}", range(9), "PATH_add bin")
SHAPES = {"usual": USUAL, "nested evals": NESTED + "\n"}


def ms_per_look(envrc: Path, runs: int, clear: bool) -> float:
    best = float("inf")
    for _ in range(runs):
        if clear:
            git_programs.read_by_a_shell.cache_clear()
        started = time.perf_counter()
        envrc_untold(envrc)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    shipped = git_programs.read_by_a_shell
    print(f"ms per look at an .envrc, best of {args.runs} runs")
    print(f"{'shape':<14}{'bytes':>8}{'read each time':>16}{'first look':>12}{'later look':>12}")
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "bin").mkdir()
        envrc = Path(folder) / ".envrc"
        for name, text in SHAPES.items():
            envrc.write_text(text)
            git_programs.read_by_a_shell = lambda text: git_programs.ShellReader(text).read()
            each_time = ms_per_look(envrc, args.runs, clear=False)
            git_programs.read_by_a_shell = shipped
            first = ms_per_look(envrc, args.runs, clear=True)
            later = ms_per_look(envrc, args.runs, clear=False)
            row = f"{each_time:>16.1f}{first:>12.1f}{later:>12.1f}"
            print(f"{name:<14}{len(text):>8}{row}")


if __name__ == "__main__":
    main()
