"""What looking through a hidden folder for links costs (tools/sandbox.py `linked_secrets`).

    python bench/link_search.py [--runs 5]

Before each command the sandbox looks through each hidden folder of your home for links, so
as to hide what they lead to. A hidden folder of `ENTRIES` files (gcloud's logs, a browser
profile's cache), flat and in folders of 100, is looked through at a bound of 1,000 entries
in all (as before) and at LINK_SEARCH_ENTRIES in all, LINK_SEARCH_FOLDER_ENTRIES a folder (as
shipped): milliseconds per hidden folder, the best of `--runs`. On a shared 2-core machine,
idle and busy:

    flat                 1,000 entries     0.5 to 1 ms
    flat                 5,000 entries     0.5 to 1 ms   (its one folder counts 1,000)
    in folders of 100    1,000 entries       2 to 16 ms
    in folders of 100    5,000 entries      20 to 47 ms
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import sandbox  # noqa: E402

ENTRIES = 50_000


def make_folder(base: Path, flat: bool) -> Path:
    """A hidden folder of ENTRIES empty files, in one folder or in folders of 100."""
    folder = base / ("flat" if flat else "nested")
    for number in range(ENTRIES):
        place = folder / "logs" if flat else folder / "logs" / f"{number // 100:04d}"
        place.mkdir(parents=True, exist_ok=True)
        (place / f"{number:05d}.log").touch()
    return folder


def best_of(runs: int, folder: Path) -> float:
    """The fastest of `runs` looks through `folder`, in milliseconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        sandbox.linked_secrets(folder)
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    shipped = sandbox.LINK_SEARCH_ENTRIES
    with tempfile.TemporaryDirectory() as base:
        for flat in (True, False):
            folder = make_folder(Path(base), flat)
            for bound in (1000, shipped):
                sandbox.LINK_SEARCH_ENTRIES = bound
                shape = "flat" if flat else "in folders of 100"
                print(f"{shape:18} {bound:>7,} entries  {best_of(runs, folder):7.2f} ms")
    sandbox.LINK_SEARCH_ENTRIES = shipped


if __name__ == "__main__":
    main()
