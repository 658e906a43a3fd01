"""What reading your configuration files costs once per run (tools/your_configs.py).

    python bench/your_configs.py [--runs 3]

A home whose ~/.config holds 1, 4 and 16 MB (the most read) of text written as configs are:
comments, settings, paths elsewhere, globs (`"**/*.pyc"`), C-style comments. None names the
workspace, so every file is read and judged. Side by side in one run, seconds per read:

    whole lines     the lines worth reading picked by one pattern that matches whole lines
                    (`^.*(?:marks).*$`), as before
    as shipped      the marks searched for, and each one's line taken around it
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import your_configs  # noqa: E402

# One line in ten names a glob or holds a C-style comment, as in configs that have them.
PLAIN = (
    "# Settings for this program; see its manual for the rest.",
    "font = DejaVu Sans Mono 11",
    'theme = "solarized-dark"',
    "bind-key C-a send-prefix",
    "export PATH=/usr/local/bin:/usr/bin:/bin",
    "set -g history-limit 50000",
    '  "editor.rulers": [80, 100],',
    "[section]",
    "enabled = true",
)
MARKED = (
    "include /usr/share/nano/*.nanorc",
    '  "files.exclude": { "**/*.pyc": true, "**/__pycache__": true },',
    "/* the panel's colours */ .panel { background: #202020; }",
)
LINES = PLAIN * 3 + MARKED


def whole_lines(words: tuple[str, ...], text: str) -> list[str]:
    either = "|".join([*map(re.escape, words), your_configs.NAMED_FROM_ABOVE])
    return re.findall(r"^.*(?:" + either + r").*$", text, re.MULTILINE)


def fill(config: Path, megabytes: int) -> None:
    chooser = random.Random(megabytes)
    written, number = 0, 0
    while written < megabytes * 1024 * 1024:
        folder = config / f"program{number % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        text = "\n".join(chooser.choice(LINES) for _ in range(chooser.randint(20, 400))) + "\n"
        (folder / f"settings{number}.conf").write_text(text)
        written, number = written + len(text), number + 1


def seconds_per_read(home: Path, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        your_configs._named_by_configs.cache_clear()  # (read once per run)
        started = time.perf_counter()
        your_configs.named_by_your_configs(home / "proj")
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    shipped = your_configs._lines_with
    print(f"seconds to read your configs, best of {args.runs} runs")
    print(f"{'~/.config':<12}{'whole lines':>14}{'as shipped':>14}")
    for megabytes in (1, 4, 16):
        with tempfile.TemporaryDirectory() as scratch:
            home = Path(scratch)
            (home / "proj").mkdir()
            fill(home / ".config", megabytes)
            os.environ["HOME"] = str(home)
            row = []
            for lines_with in (whole_lines, shipped):
                your_configs._lines_with = lines_with
                row.append(seconds_per_read(home, args.runs))
            your_configs._lines_with = shipped
        print(f"{megabytes:>3} MB{'':<6}{row[0]:>14.3f}{row[1]:>14.3f}")


if __name__ == "__main__":
    main()
