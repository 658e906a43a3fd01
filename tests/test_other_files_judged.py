"""A file of any name that comes to hold the key while a task runs: judged by what it holds,
whatever the task does with its name afterwards, and said when there were too many to read.

The person pastes the key into `config/settings.json` while a background task runs. A task that
watches the file can read it at once and then hide it from planloop's next look: make the name
a link to a hard link made before (the person's settings still read the same; a sandboxed task
can make no hard link, but another program can), or flood the workspace with files so that the
one written is no longer among those read.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest
from conftest import API_KEY
from test_binds_replaced import wait_for
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders
from test_key_file_events import (
    EXIT_STOPPED,
    REVERSED,
    Watched,
    never_sent,
    write_owned,
)

import tools.folder_watch as folder_watch
from fakeapi import text, tool_use
from tools.bind_watch import SandboxStart
from tools.folder_watch import FolderWatch

__all__ = ["user_folders"]  # a fixture, used by name

SETTINGS = json.dumps({"anthropic_api_key": API_KEY}) + "\n"

# Links the settings to a second name before the person writes; on the write's own event, reads
# the file, then puts a link to that second name where the file was: to the person, the settings
# read the same; to a look by name, the path is a link that holds nothing itself.
SWAPPER = """
import base64, ctypes, os
libc = ctypes.CDLL(None)
events = libc.inotify_init1(0)
libc.inotify_add_watch(events, b"config", 0x8)  # IN_CLOSE_WRITE
os.link("config/settings.json", ".kept")
open("started", "w").close()
while b"settings.json" not in os.read(events, 4096):
    pass
data = open("config/settings.json", "rb").read()
os.unlink("config/settings.json")
os.symlink("../.kept", "config/settings.json")
print(base64.b64encode(data[::-1]).decode(), flush=True)
open("copied", "w").close()
"""


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_cannot_make_the_second_name_it_would_swap_in(api, env, user_folders):
    # SWAPPER's first step, a hard link to the settings, fails in the sandbox (EXDEV, as between
    # two file systems). What planloop makes of such a swap, were a link made elsewhere, is the
    # next test's.
    user, workspace, planloop_home, home = user_folders
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.json", "{}\n", user)
    write_owned(workspace / "swap.py", SWAPPER, user)
    if user == "nobody":
        os.chown(workspace / "config", 65534, 65534)
    api.add({"content": [tool_use("bash", {"command": "python3 swap.py"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "Invalid cross-device link" in output
    assert not (workspace / ".kept").exists() and not (workspace / "started").exists()
    assert os.stat(workspace / "config" / "settings.json").st_nlink == 1


def test_a_written_file_made_a_link_before_planloop_looked_is_judged_where_it_leads(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)  # the key the watch looks for
    # Every step done before the watch reads an event: planloop has lost every race.
    (tmp_path / "config").mkdir()
    settings = tmp_path / "config" / "settings.json"
    settings.write_text("{}\n")
    os.link(settings, tmp_path / ".kept")

    def write_then_swap() -> None:
        settings.write_text(SETTINGS)
        settings.unlink()
        settings.symlink_to("../.kept")

    found = Watched(tmp_path)(write_then_swap)
    assert str(settings) in found


def test_more_files_written_than_are_read_is_said_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setattr(folder_watch, "MAX_OTHERS", 5)
    said: list[str] = []

    async def run() -> FolderWatch:
        watch = FolderWatch(lambda: None, lambda: said.append("told"))
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            for index in range(12):
                (tmp_path / f"out{index}.txt").write_text("x\n")
            while watch.passed_over < 7:  # each event taken in as the loop would
                watch.look()
                await asyncio.sleep(0)
            return watch
        finally:
            watch.close()

    watch = asyncio.run(run())
    assert watch.passed_over == 7 and said == ["told"]
    notice = folder_watch.passed_over_notice()
    assert "newest" in notice and "may have been read" in notice


def test_the_files_kept_open_for_judging_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(folder_watch, "MAX_OTHER_FDS", 3)

    async def run() -> tuple[int, int]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            for index in range(10):
                (tmp_path / f"out{index}.txt").write_text("x\n")
            while len(watch.others) < 10:
                watch.look()
                await asyncio.sleep(0)
            opened = sum(fd is not None for fd in watch.others.values())
            return opened, watch.other_fds
        finally:
            watch.close()

    before = len(os.listdir("/proc/self/fd"))
    assert asyncio.run(run()) == (3, 3)
    assert len(os.listdir("/proc/self/fd")) <= before  # all closed with the watch
    assert Path(tmp_path / "out9.txt").exists()


async def taken_in(watch: FolderWatch, count: int) -> None:
    """Until the watch has noted `count` other files, each event taken in as the loop would."""
    while len(watch.others) < count:
        watch.look()
        await asyncio.sleep(0)


def watched(workspace: Path, steps, count: int, last: bool = True) -> tuple[FolderWatch, dict]:
    """Run `steps` against a watch of `workspace`; what a look finds once `count` are noted."""

    async def run() -> tuple[FolderWatch, dict]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(workspace, frozenset(), frozenset()))
        try:
            steps()
            await taken_in(watch, count)
            return watch, watch.exposed_since(0, last=last)
        finally:
            watch.close()

    return asyncio.run(run())


def test_the_newest_files_keep_their_descriptors(tmp_path, monkeypatch):
    # A task wrote hundreds of files before the person's: the person's still gets one.
    monkeypatch.setattr(folder_watch, "MAX_OTHER_FDS", 3)

    async def run() -> list[str]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            for index in range(10):
                (tmp_path / f"out{index}.txt").write_text("x\n")
            await taken_in(watch, 10)
            return [Path(path).name for path, fd in watch.others.items() if fd is not None]
        finally:
            watch.close()

    assert asyncio.run(run()) == ["out7.txt", "out8.txt", "out9.txt"]


def test_sparse_files_written_first_do_not_spend_a_looks_budget(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setattr(folder_watch, "OTHERS_BYTES", 4 * 1024 * 1024)
    (tmp_path / "config").mkdir()
    settings = tmp_path / "config" / "settings.json"

    def sparse_then_the_key() -> None:
        for index in range(40):  # 40 MiB by their sizes, nothing on disk
            with (tmp_path / f"o{index}.bin").open("wb") as sparse:
                sparse.truncate(1024 * 1024)
        settings.write_text(SETTINGS)

    _, found = watched(tmp_path, sparse_then_the_key, 41, last=False)
    assert str(settings) in found


def test_the_last_look_reads_every_file_left_however_big(tmp_path, monkeypatch):
    # Before a task's output goes to the model, a look's budget does not leave a file unread.
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setattr(folder_watch, "OTHERS_BYTES", 64 * 1024)
    (tmp_path / "config").mkdir()
    settings = tmp_path / "config" / "settings.json"

    def data_then_the_key() -> None:
        for index in range(8):
            (tmp_path / f"o{index}.bin").write_bytes(os.urandom(32 * 1024))
        settings.write_text(SETTINGS)

    _, found = watched(tmp_path, data_then_the_key, 9, last=False)
    assert str(settings) not in found  # within a look's budget: waits for the next look
    _, found = watched(tmp_path, data_then_the_key, 9, last=True)
    assert str(settings) in found


def test_a_link_that_leaves_the_workspace_and_comes_back_is_followed(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    workspace = tmp_path / "ws"
    (workspace / "config").mkdir(parents=True)
    settings = workspace / "config" / "settings.json"
    settings.write_text("{}\n")
    os.link(settings, workspace / ".kept")

    def write_then_swap() -> None:
        settings.write_text(SETTINGS)
        settings.unlink()
        settings.symlink_to("../../ws/.kept")  # out, and in again: the settings still work

    _, found = watched(workspace, write_then_swap, 1)
    assert str(settings) in found


def test_a_file_too_big_to_read_for_the_key_is_said_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    said: list[str] = []

    async def run() -> None:
        watch = FolderWatch(lambda: None, lambda: said.append("told"))
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            for index in range(2):
                data = SETTINGS.encode() + b" " * (folder_watch.OTHER_FILE_BYTES + 1)
                (tmp_path / f"settings{index}.json").write_bytes(data)
            await taken_in(watch, 2)
            watch.exposed_since(0, last=True)
            assert watch.too_big == 2
        finally:
            watch.close()

    asyncio.run(run())
    assert said == ["told"]
    assert "not read for the API key" in folder_watch.too_big_notice()


# Makes hundreds of sparse files (a look's budget by their sizes), waits for the person's write,
# prints the file reversed and ends: its last look is all that stands before its output.
SPARSE_FIRST = """
import ctypes, os
libc = ctypes.CDLL(None)
events = libc.inotify_init1(0)
libc.inotify_add_watch(events, b"config", 0x8)  # IN_CLOSE_WRITE
os.makedirs("junk", exist_ok=True)
for index in range(200):
    with open(f"junk/{index}.bin", "wb") as sparse:
        sparse.truncate(1024 * 1024)
open("started", "w").close()
while b"settings.json" not in os.read(events, 4096):
    pass
print(open("config/settings.json").read()[::-1], flush=True)
"""


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_that_ends_right_after_reading_is_judged_before_its_output_goes(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.json", "{}\n", user)
    write_owned(workspace / "sparse.py", SPARSE_FIRST, user)
    if user == "nobody":
        os.chown(workspace / "config", 65534, 65534)
    path = workspace / "config" / "settings.json"

    def meanwhile(_body: dict) -> dict:
        wait_for(workspace / "started")
        write_owned(path, SETTINGS, user)
        return {"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 60})]}

    task = {"command": "python3 sparse.py", "run_in_background": True}
    api.add({"content": [tool_use("bash", task)]})
    api.add(meanwhile)
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    never_sent(api, REVERSED, API_KEY)
    assert result.returncode == EXIT_STOPPED, result.stderr
    # Caught by a look while it runs, or by the last one once it has ended: never delivered.
    assert "its output kept from the model" in " ".join(result.stderr.split()) or (
        "bg-1's output was kept from the model" in " ".join(result.stderr.split())
    )


def test_files_in_a_folder_moved_or_copied_in_are_judged(tmp_path, monkeypatch):
    # The person moves their keys folder into the project (or copies it in) while a task
    # runs: the files were there before the new folder's watch began, and are read as written.
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    workspace, outside = tmp_path / "work", tmp_path / "keys"
    workspace.mkdir()
    (outside / "anthropic").mkdir(parents=True)
    (outside / "anthropic" / "key.json").write_text(SETTINGS)
    (outside / "anthropic" / "README").write_text("my keys\n")

    async def run() -> dict[str, str]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(workspace, frozenset(), frozenset()))
        try:
            os.rename(outside / "anthropic", workspace / "local")
            while str(workspace / "local") not in watch.folders:  # its watch has begun
                watch.look()
                await asyncio.sleep(0)
            return watch.exposed_since(0, last=True)
        finally:
            watch.close()

    assert list(asyncio.run(run())) == [str(workspace / "local" / "key.json")]


@pytest.fixture
def planloop_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)


def judged_after(workspace: Path, change) -> list[str]:
    """The files a command's watch on `workspace` finds holding the key once `change` has run
    (while the command runs): its events are queued when `change` returns."""

    async def run() -> list[str]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(workspace, frozenset(), frozenset()))
        try:
            change()
            watch.look()
            return list(watch.exposed_since(0, last=True))
        finally:
            watch.close()

    return asyncio.run(run())


def test_a_file_still_open_for_writing_is_judged(tmp_path, planloop_key):
    # `cat > config/settings.json`, a log, `script -f`: written, and not closed yet.
    (tmp_path / "config").mkdir()
    settings = tmp_path / "config" / "settings.json"
    settings.write_text('{"anthropic_api_key": ""}\n')
    writer = open(settings, "w")  # noqa: SIM115 (kept open past the look, as the program does)
    try:

        def write_and_keep_open() -> None:
            writer.write(SETTINGS)
            writer.flush()

        assert judged_after(tmp_path, write_and_keep_open) == [str(settings)]
    finally:
        writer.close()


def test_a_new_name_for_a_file_that_holds_the_key_is_judged(tmp_path, planloop_key):
    # `ln ~/keys/anthropic.json config/local.json`: no byte is written, a name is made.
    workspace, keys = tmp_path / "work", tmp_path / "keys"
    (workspace / "config").mkdir(parents=True)
    keys.mkdir()
    (keys / "anthropic.json").write_text(SETTINGS)
    local = workspace / "config" / "local.json"
    assert judged_after(workspace, lambda: os.link(keys / "anthropic.json", local)) == [str(local)]


def test_a_file_written_nameless_and_linked_into_place_is_judged(tmp_path, planloop_key):
    # O_TMPFILE, then linkat: its writes come under a name that was never in the folder.
    (tmp_path / "config").mkdir()
    saved = tmp_path / "config" / "settings.json"

    def save_nameless() -> None:
        folder = os.open(tmp_path / "config", os.O_RDONLY | os.O_DIRECTORY)
        fd = os.open(tmp_path / "config", os.O_TMPFILE | os.O_WRONLY, 0o600)
        try:
            os.write(fd, SETTINGS.encode())
            # linkat(AT_SYMLINK_FOLLOW), which a folder descriptor makes os.link call
            os.link(f"/proc/self/fd/{fd}", saved.name, dst_dir_fd=folder)
        finally:
            os.close(fd)
            os.close(folder)

    assert judged_after(tmp_path, save_nameless) == [str(saved)]


@pytest.mark.parametrize(
    ("read_first", "put_back", "next_watch"),
    [
        # A dev server keeps logs/server.log open; a command makes a second name for it and
        # removes the first; the key the server logs later comes under the name that is gone.
        (True, False, False),
        # The same before planloop ever read the log: which file it was, planloop never knew.
        (False, False, False),
        # And a new empty file put at the removed name: the writes still come under it.
        (False, True, False),
        # The name lost while one command ran, the key logged under the next watch (between
        # commands, while the model thinks).
        (False, True, True),
    ],
)
def test_a_write_under_a_name_the_file_no_longer_has_is_judged_at_its_other_name(
    tmp_path, planloop_key, read_first, put_back, next_watch
):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "other.log").write_text("an older log, not written since\n")
    old = time.time() - 3600
    os.utime(logs / "other.log", (old, old))
    log = open(logs / "server.log", "w")  # noqa: SIM115 (the server's, kept open)

    def watching() -> FolderWatch:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        return watch

    async def run() -> list[str]:
        watch = watching()
        try:
            if read_first:
                log.write("started\n")
                log.flush()
                watch.look()
                assert watch.exposed_since(0, last=True) == {}  # read once: no key yet
            os.link(logs / "server.log", logs / ".hl")
            os.unlink(logs / "server.log")
            if put_back:
                (logs / "server.log").write_text("")
            watch.look()
            assert watch.exposed_since(0, last=True) == {}
            if next_watch:
                watch.close()
                watch = watching()
            log.write(SETTINGS)
            log.flush()
            watch.look()
            return list(watch.exposed_since(0, last=True))
        finally:
            watch.close()

    try:
        assert asyncio.run(run()) == [str(logs / ".hl")]
    finally:
        log.close()


def test_a_nameless_file_written_after_it_was_linked_into_place_is_judged(tmp_path, planloop_key):
    # O_TMPFILE, linked into place, then written through the same descriptor: its writes come
    # under `#<inode>`, a name that never was in the folder.
    (tmp_path / "config").mkdir()
    saved = tmp_path / "config" / "settings.json"
    folder = os.open(tmp_path / "config", os.O_RDONLY | os.O_DIRECTORY)
    fd = os.open(tmp_path / "config", os.O_TMPFILE | os.O_WRONLY, 0o600)

    async def run() -> list[str]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            os.write(fd, b"{}\n")
            os.link(f"/proc/self/fd/{fd}", saved.name, dst_dir_fd=folder)
            watch.look()
            assert watch.exposed_since(0, last=True) == {}
            os.write(fd, SETTINGS.encode())
            watch.look()
            return list(watch.exposed_since(0, last=True))
        finally:
            watch.close()

    try:
        assert asyncio.run(run()) == [str(saved)]
    finally:
        os.close(fd)
        os.close(folder)
