"""`hide_again` binds an empty read-only file over a hidden file replaced on the host, in a
running sandbox only, reached without a link, and refuses where it cannot do that safely.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_binds_replaced as binds
from conftest import outside_tmp

from tools.bind_watch import identity
from tools.rehide import hide_again


@pytest.fixture
def sandbox_folder() -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("bwrap") is None:
        pytest.skip("makes its own sandbox as root")
    place = outside_tmp("planloop-rehide-unit-")
    yield place
    shutil.rmtree(place, ignore_errors=True)


def sandbox_reading(place: Path, hidden: Path, mounts: tuple[str, ...] = ()) -> subprocess.Popen:
    """bwrap, as planloop makes it, hiding `hidden`: once `go` appears in `place` it copies
    `read` (a path of its own, `hidden` unless `mounts` add one) to `seen`, then makes `done`."""
    empty = place / "empty"
    empty.write_bytes(b"")
    words = ["--ro-bind", "/", "/", "--bind", str(place), str(place)]
    words += ["--ro-bind", str(empty), str(hidden), *mounts, "--tmpfs", "/tmp"]
    words += ["--proc", "/proc", "--dev", "/dev", "--unshare-user", "--cap-drop", "ALL"]
    words += ["--unshare-pid", "--die-with-parent", "--new-session", "--unshare-net"]
    script = (
        "touch started; until [ -e go ]; do sleep 0.05; done; "
        "cat $(cat read) > seen 2>&1; touch done; sleep 600"
    )
    (place / "read").write_text(str(hidden))
    process = subprocess.Popen(["bwrap", *words, "--chdir", str(place), "bash", "-c", script])
    binds.wait_for(place / "started")
    return process


def seen_after_go(place: Path) -> str:
    (place / "go").touch()
    binds.wait_for(place / "done")
    return (place / "seen").read_text()


def test_hide_again_binds_an_empty_file_there_and_nowhere_else(sandbox_folder: Path):
    hidden = sandbox_folder / ".lesshst"
    hidden.write_text("old\n")
    sandbox = sandbox_reading(sandbox_folder, hidden)
    try:
        binds.save_by_rename(hidden, "new\n", "root")
        assert hide_again(sandbox.pid, str(hidden), identity(str(hidden))) is None
        assert seen_after_go(sandbox_folder) == ""
        assert hidden.read_text() == "new\n"  # on the host, as it was saved
    finally:
        sandbox.kill()
        sandbox.wait()


def test_hide_again_never_follows_a_link_there(sandbox_folder: Path):
    # In the sandbox the path's folder is a link (a task made it) to where the file is: the
    # file at its end is the replaced one, and still it is not hidden again.
    (sandbox_folder / "home").mkdir()
    (sandbox_folder / "elsewhere").mkdir()
    hidden = sandbox_folder / "home" / ".lesshst"
    hidden.write_text("old\n")
    home, elsewhere = str(sandbox_folder / "home"), str(sandbox_folder / "elsewhere")
    links = ("--ro-bind", home, elsewhere, "--tmpfs", home, "--symlink", elsewhere, f"{home}/in")
    sandbox = sandbox_reading(sandbox_folder, hidden, links)
    try:
        binds.save_by_rename(hidden, "new\n", "root")
        linked = f"{home}/in/.lesshst"
        (sandbox_folder / "read").write_text(linked)
        why = hide_again(sandbox.pid, linked, identity(str(hidden)))
        assert why is not None and "not the replaced file" in why
        assert seen_after_go(sandbox_folder) == "new\n"  # the proof it led there
    finally:
        sandbox.kill()
        sandbox.wait()


def test_hide_again_refuses_when_the_sandbox_is_gone(sandbox_folder: Path):
    hidden = sandbox_folder / ".lesshst"
    hidden.write_text("old\n")
    sandbox = sandbox_reading(sandbox_folder, hidden)
    sandbox.kill()
    sandbox.wait()
    binds.save_by_rename(hidden, "new\n", "root")
    assert hide_again(sandbox.pid, str(hidden), identity(str(hidden))) is not None


def test_hide_again_never_binds_in_planloops_own_namespace(sandbox_folder: Path):
    # A process that is no sandbox's (a pid reused, say): binding there would hide the
    # person's own file from the person.
    hidden = sandbox_folder / ".lesshst"
    hidden.write_text("yours\n")
    started = sandbox_folder / "started"
    shell = subprocess.Popen(["sh", "-c", f"sleep 600 & touch {started}; wait"])
    try:
        binds.wait_for(started)
        why = hide_again(shell.pid, str(hidden), identity(str(hidden)))
        assert why is not None and "own mount namespace" in why
        assert hidden.read_text() == "yours\n"
    finally:
        shell.kill()
        shell.wait()
