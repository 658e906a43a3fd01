"""How long read_file takes to show the first lines of a large file.

    python bench/read_file.py [--megabytes 8] [--lines 60]

Printed: the median milliseconds of 50 calls. The rest of the file after the window is
counted only when it is small (tools/textio.py COUNT_REMAINING_LIMIT_BYTES), so this stays
flat as the file grows.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.files import read_file  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=8)
    parser.add_argument("--lines", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        line = b"some line of text in a large log file\n"
        Path(folder, "big.txt").write_bytes(line * (args.megabytes * 1024 * 1024 // len(line)))
        times = []
        for _ in range(50):
            started = time.perf_counter()
            read_file(Path(folder), "big.txt", limit=args.lines)
            times.append((time.perf_counter() - started) * 1000)
    median = statistics.median(times)
    print(f"read_file, {args.lines} lines of {args.megabytes} MB: {median:.2f} ms")


if __name__ == "__main__":
    main()
