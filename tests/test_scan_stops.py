"""A scan of the workspace stops within a folder, not only between two.

The scan lists every folder of the workspace before a command runs and before a file tool
writes. A repository can ship one folder of half a million files: listed to its end, it held
a SIGTERM or Ctrl-C for seconds, and went past the scan's own bound before it was judged.
"""

from __future__ import annotations

import re

from tools import paths
from tools.event_queues import SignalCheck
from tools.paths import LISTING_PIECE, scan_workspace


def big_folder(root, count: int) -> None:
    (root / "many").mkdir()
    for n in range(count):
        (root / "many" / f"f{n}").touch()


def test_a_signal_that_comes_while_a_big_folder_is_listed_stops_the_scan(tmp_path, monkeypatch):
    big_folder(tmp_path, 3 * LISTING_PIECE)
    asked: list[int] = []
    real_list_folder = paths.list_folder

    def listing(folder, info, env_folder=False, stop=lambda _: None):
        def counted(listed: int) -> str | None:
            asked.append(listed)
            return stop(listed)

        return real_list_folder(folder, info, env_folder, counted)

    monkeypatch.setattr(paths, "list_folder", listing)
    # A SIGTERM arrives once the scan has begun: SignalCheck then has a reason to give.
    monkeypatch.setattr(SignalCheck, "stop_why", lambda self: "planloop is ending")
    scan = scan_workspace(tmp_path)
    assert scan.incomplete == "the scan stopped: planloop is ending"
    assert asked == [LISTING_PIECE]  # (stopped at the first piece of the big folder)


def test_a_folder_past_the_scans_bound_stops_the_listing_there(tmp_path):
    big_folder(tmp_path, 3 * LISTING_PIECE)
    scan = scan_workspace(tmp_path, entry_limit=LISTING_PIECE + 10)
    assert scan.incomplete and "too large to scan" in scan.incomplete
    counted = int(re.search(r"more than ([\d,]+) entries", scan.incomplete)[1].replace(",", ""))
    assert counted < 3 * LISTING_PIECE  # (not listed to its end first)
