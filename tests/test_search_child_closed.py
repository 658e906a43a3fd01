"""The child that searches for copies of the key gets the key only once no one else can read it.

A new interpreter can be read by any process of the same user until it makes itself
non-dumpable. A command of another session, run outside the sandbox, once opened the child's
stdin in that instant and read the key (in all the forms the search looks for) when planloop
wrote it. The child now closes itself, looks for another process that holds its input or its
memory open, and only then says READY; planloop writes the question after that, or searches in
its own process, closed as it is.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tools import key_copies
from tools.key_copies import KeyCopySearch, Place

SECRET = b"sk-ant-api03-" + b"Q" * 60

# Opens the search child's input (its stdin pipe) as soon as the child is there, says so, and
# then reads whatever planloop writes there, to the end.
WATCHER = r"""
import os, sys, time
parent, mark, loot = int(sys.argv[1]), sys.argv[2], sys.argv[3]
while True:
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                found = ppid == parent and b"search_in_child" in cmdline.read()
        except OSError:
            continue
        if found:
            fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY)
            open(mark, "w").close()
            data = b""
            while chunk := os.read(fd, 65536):
                data += chunk
            open(loot, "wb").write(data)
            sys.exit(0)
    time.sleep(0.01)
"""


def test_a_process_that_opened_the_childs_input_early_gets_no_key(tmp_path: Path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_bytes(b"key: " + SECRET + b"\n")
    mark, loot = tmp_path / "opened", tmp_path / "loot"
    # The instant before the child closes itself, held open until the watcher is in.
    wait = f"import os, time\nwhile not os.path.exists({str(mark)!r}): time.sleep(0.01)\n"
    monkeypatch.setattr(key_copies, "CHILD_START", wait + key_copies.CHILD_START)
    watcher = subprocess.Popen(
        [sys.executable, "-c", WATCHER, str(os.getpid()), str(mark), str(loot)]
    )
    try:
        search = KeyCopySearch((Place(home, 2, True),), (), (SECRET,))
        search.run_in_child()
        watcher.wait(timeout=60)  # (it ends once planloop closed the pipe: EOF)
    finally:
        watcher.kill()
    assert loot.read_bytes() == b""  # nothing was written to a watched child
    assert home / "notes.txt" in search.found  # planloop searched in its own process instead
