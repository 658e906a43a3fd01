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
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import key_copies
from tools.key_copies import KeyCopySearch, Place

SECRET = b"sk-ant-api03-" + b"Q" * 60

# Waits for the child planloop (pid argv[1]) started to search, and sets `pid` to it.
FIND_THE_CHILD = r"""
def the_child():
    while True:
        for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    if ppid == parent and b"search_in_child" in cmdline.read():
                        return pid
            except OSError:
                continue
        time.sleep(0.01)
pid = the_child()
"""

# As soon as the child planloop started is there: tries to open its input, opens its memory,
# says so, and then reads its writable memory over and over while it lives, for the key.
WATCHER = (
    r"""
import os, re, sys, time
parent, mark, loot, secret = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4].encode()
"""
    + FIND_THE_CHILD
    + r"""
try:
    os.close(os.open(f"/proc/{pid}/fd/0", os.O_RDONLY))
    seen = "input opened"
except OSError:
    seen = "input refused"
memory = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
open(mark, "w").close()
while seen.startswith("input"):
    try:
        with open(f"/proc/{pid}/maps") as maps:
            regions = [line.split() for line in maps]
    except OSError:
        break
    if not regions:
        break
    for region in (region for region in regions if "rw" in region[1]):
        start, end = (int(x, 16) for x in region[0].split("-"))
        try:
            if secret in os.pread(memory, end - start, start):
                seen += ", key read"
                break
        except OSError:
            pass
    if seen.endswith("key read"):
        break
open(loot, "w").write(seen)
"""
)


def test_a_process_that_opened_the_child_early_gets_no_key(tmp_path: Path, monkeypatch):
    """Its input cannot be opened (a socket), and the memory opened before the child closed
    itself never holds the key: the fork the question goes to has memory of its own."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_bytes(b"key: " + SECRET + b"\n")
    mark, loot = tmp_path / "opened", tmp_path / "loot"
    # The instant before the child closes itself, held open until the watcher is in.
    wait = f"import os, time\nwhile not os.path.exists({str(mark)!r}): time.sleep(0.01)\n"
    monkeypatch.setattr(key_copies, "CHILD_START", wait + key_copies.CHILD_START)
    watcher = subprocess.Popen(
        [sys.executable, "-c", WATCHER, str(os.getpid()), str(mark), str(loot), SECRET.decode()]
    )
    try:
        search = KeyCopySearch((Place(home, 2, True),), (), (SECRET,))
        search.run_in_child()
        watcher.wait(timeout=60)  # (it ends once the child it watched is gone)
    finally:
        watcher.kill()
    assert loot.read_text() == "input refused"
    assert home / "notes.txt" in search.found  # the child searched, and found the copy


# Copies the child's first socket (`pidfd_getfd`, as a process of the same user may in the
# instant before the child closes itself), says so, and peeks at what arrives there.
COPIER = (
    r"""
import ctypes, os, socket, sys, time
parent, mark, loot = int(sys.argv[1]), sys.argv[2], sys.argv[3]
libc = ctypes.CDLL(None, use_errno=True)
"""
    + FIND_THE_CHILD
    + r"""
copy = libc.syscall(438, os.pidfd_open(int(pid)), 0, 0)  # pidfd_getfd(pidfd, 0)
assert copy >= 0, os.strerror(ctypes.get_errno())
open(mark, "w").close()
copied, seen = socket.socket(fileno=copy), b""
copied.settimeout(0.05)
while os.path.exists(f"/proc/{pid}") and not seen:
    try:
        seen = copied.recv(1 << 20, socket.MSG_PEEK)
    except TimeoutError:
        pass
open(loot, "wb").write(seen)
"""
)


def test_a_copy_of_the_childs_first_socket_gets_no_question(tmp_path: Path, monkeypatch):
    """The question goes over a socket the fork makes once it is closed, which it sends back;
    a copy of the socket the child was started with (one `_watched` does not see: here it
    is not run) gets nothing."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.txt").write_bytes(b"key: " + SECRET + b"\n")
    mark, loot = tmp_path / "copied", tmp_path / "loot"
    wait = f"import os, time\nwhile not os.path.exists({str(mark)!r}): time.sleep(0.01)\n"
    start = key_copies.CHILD_START.replace(
        "module.search_in_child()", "module._watched = lambda: None; module.search_in_child()"
    )
    monkeypatch.setattr(key_copies, "CHILD_START", wait + start)
    copier = subprocess.Popen(
        [sys.executable, "-c", COPIER, str(os.getpid()), str(mark), str(loot)]
    )
    try:
        search = KeyCopySearch((Place(home, 2, True),), (), (SECRET,))
        search.run_in_child()
        copier.wait(timeout=60)
    finally:
        copier.kill()
    assert SECRET not in loot.read_bytes()
    assert home / "notes.txt" in search.found


# In a pid namespace of its own, where the next pid can be chosen: a socket whose maker is
# gone, and a search child whose fork is given that maker's number, as a process of the same
# user gets it by making sockets for each number the fork might get.
PID_REUSED = r"""
import os, socket, sys, time
sys.path.insert(0, sys.argv[1])
from tools.key_copies import _from_the_fork

here, there = socket.socketpair()
maker = os.fork()
if maker == 0:
    made, _ = socket.socketpair()
    socket.send_fds(there, [b"+"], [made.fileno()])
    os._exit(0)
_, (forged,), _, _ = socket.recv_fds(here, 1, 1)
os.waitpid(maker, 0)
child = os.fork()
if child == 0:
    with open("/proc/sys/kernel/ns_last_pid", "w") as last:
        last.write(str(maker - 1))
    if os.fork() == 0:  # the fork, under the number the maker had
        made, _ = socket.socketpair()
        socket.send_fds(there, [str(os.getpid()).encode()], [made.fileno()])
    time.sleep(60)
    os._exit(0)
number, (real,), _, _ = socket.recv_fds(here, 20, 1)

class Child:
    pid = child

print("reused" if int(number) == maker else "not reused",
      _from_the_fork(Child, socket.socket(fileno=forged)),
      _from_the_fork(Child, socket.socket(fileno=real)), flush=True)
os.killpg(0, 9)
"""


def test_a_socket_made_by_a_process_gone_is_not_the_forks_though_its_number_is(tmp_path):
    """planloop sends the question only over a socket the search's fork made. A socket keeps
    the number of its maker after the maker is gone, and the number comes back: the maker is
    asked for as the process itself (a pidfd), not as its number."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare for a pid namespace of its own")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount-proc", sys.executable, "-c", PID_REUSED, str(root)],
        capture_output=True, text=True, timeout=60, start_new_session=True,
    )  # fmt: skip
    if "Operation not permitted" in done.stderr:
        pytest.skip("no pid namespace here")
    assert done.stdout.split() == ["reused", "False", "True"], done.stdout + done.stderr
