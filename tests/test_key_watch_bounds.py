"""The key-file watch (tools/folder_watch.py) at its bounds.

A command that makes folders past MAX_WATCHED_FOLDERS while it runs leaves the new ones
unwatched: a key file saved there could be read and renamed away unseen, so the person is told,
and a task's folders are polled, as for any folder inotify cannot watch. A command that reads
files in a tight loop fills the event queue as fast as planloop reads it: planloop takes a bounded
batch per wake-up, so its event loop (timeouts, Ctrl-C, the next model turn) keeps running and
the events held in memory stay bounded. These use real inotify events.
"""

from __future__ import annotations

import array
import asyncio
import ctypes
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
import spawn
from conftest import AGENT, API_KEY, outside_tmp, wait_for_file
from test_binds_replaced import KEY_LINE
from test_hostile_pass4 import needs_bwrap

import tools.folder_watch as folder_watch
from fakeapi import text, tool_use
from tools.bind_watch import SandboxStart
from tools.folder_watch import EVENT_HEADER, MAX_EVENT_BYTES, FolderWatch, watch_key_files
from tools.tasks import TaskManager


@pytest.fixture(autouse=True)
def planloop_key(monkeypatch):
    """The key planloop runs with, which the watch looks for."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)


@pytest.fixture
def few_folders(monkeypatch):
    """A bound of 3 watched folders, so that passing it takes three mkdirs, not 10 000 (and
    none more for the folders a command makes)."""
    monkeypatch.setattr(folder_watch, "MAX_WATCHED_FOLDERS", 3)
    monkeypatch.setattr(folder_watch, "MORE_FOR_NEW_FOLDERS", 0)
    monkeypatch.setattr(folder_watch, "UNWATCHED_TOLD", set())


class Told:
    """A sandbox that keeps what planloop tells the person."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def notify(self, line: str) -> None:
        self.lines.append(line)


async def settle(watch: FolderWatch) -> None:
    """Until the loop has read every event queued now (a state, not a time)."""
    while queued(watch.fd):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0)


def queued(fd: int | None) -> int:
    """Bytes of events waiting in inotify queue `fd`."""
    if fd is None:
        return 0
    size = array.array("i", [0])
    fcntl.ioctl(fd, termios.FIONREAD, size, True)
    return size[0]


# ---- folders made past the bound while a command runs -----------------------------------


def test_a_folder_made_past_the_bound_by_a_foreground_command_is_said_while_it_runs(
    tmp_path, few_folders
):
    # The command makes folders until the bound is passed, then cfg/, where you save .env.
    (tmp_path / "a").mkdir()
    sandbox = Told()

    async def run() -> tuple[list[str], set[str]]:
        watch = watch_key_files(sandbox, SandboxStart(tmp_path, frozenset(), frozenset()))
        assert watch is not None and sandbox.lines == []  # 2 folders: all watched at the start
        for name in ("b", "c", "cfg"):
            (tmp_path / name).mkdir()
        await settle(watch)
        told = list(sandbox.lines)  # while the command still runs
        unwatched = set(watch.unwatched)
        watch.finish()
        return told, unwatched

    told, unwatched = asyncio.run(run())
    assert str(tmp_path / "cfg") in unwatched
    assert len(told) == 1, told
    assert "cannot watch" in told[0] and str(tmp_path / "cfg") in told[0]
    assert folder_watch.WHY_UNWATCHED in told[0]  # why: more folders than are watched


def made_past_the_bound(workspace: Path, name: str) -> FolderWatch:
    """A command's watch of `workspace` (which holds `a`), and three folders it makes, the
    last, `name`, past the bound of three (`few_folders`)."""
    watch = watch_key_files(Told(), SandboxStart(workspace, frozenset(), frozenset()))
    for folder in ("b", "c", name):
        (workspace / folder).mkdir()
    return watch


@pytest.mark.parametrize("end", ["left", "removed", "closed", "replaced by a link"])
def test_a_key_saved_in_a_folder_made_past_the_bound_is_read_or_counted_at_the_end(
    tmp_path, few_folders, end
):
    # No event tells of what is written there: the last look reads what it holds now. Taken
    # away before then (removed, closed, a link in its place), nothing is left to read: the
    # folder counts as read.
    (tmp_path / "a").mkdir()
    cfg = tmp_path / "cfg"

    async def run() -> dict[str, str]:
        watch = made_past_the_bound(tmp_path, "cfg")
        await settle(watch)
        (cfg / "local.json").write_text(f'{{"apiKey": "{API_KEY}"}}')
        if end in ("removed", "replaced by a link"):
            shutil.rmtree(cfg)
        if end == "replaced by a link":  # to a folder of nothing: the last look reads that
            cfg.symlink_to(tmp_path / "a")
        if end == "closed":
            (cfg / "sub").mkdir()
            (cfg / "sub").chmod(0)  # (root lists it all the same: a folder gone)
            os.rename(cfg / "local.json", cfg / "sub" / "x")
            if os.geteuid() == 0:
                shutil.rmtree(cfg)
        found = watch.finish()
        if (cfg / "sub").exists():
            (cfg / "sub").chmod(0o700)
        return found

    found = asyncio.run(run())
    if end == "left":
        assert str(cfg / "local.json") in found
    else:
        assert found.get(str(cfg)) == folder_watch.GONE_UNWATCHED, found


def test_a_folder_past_the_bound_made_again_before_planloop_looked_counts_as_read(
    tmp_path, few_folders
):
    # planloop behind (a walk of thousands of new folders first): by the time it reads that
    # cfg was made, cfg is another folder, empty. Its removal, told by the events, counts.
    (tmp_path / "a").mkdir()
    cfg = tmp_path / "cfg"

    async def run() -> dict[str, str]:
        watch = made_past_the_bound(tmp_path, "cfg")
        (cfg / "local.json").write_text(f'{{"apiKey": "{API_KEY}"}}')
        shutil.rmtree(cfg)
        cfg.mkdir()
        return watch.finish()

    found = asyncio.run(run())
    assert found.get(str(cfg)) == folder_watch.GONE_UNWATCHED, found


def test_a_folder_past_the_bound_renamed_is_followed_not_counted(tmp_path, few_folders):
    # A build's `-working` folder renamed when done: the same folder, read at its new name.
    (tmp_path / "a").mkdir()

    async def run() -> dict[str, str]:
        watch = made_past_the_bound(tmp_path, "s-working")
        await settle(watch)
        (tmp_path / "s-working" / "data.bin").write_text("x")
        os.rename(tmp_path / "s-working", tmp_path / "s")
        return watch.finish()

    assert asyncio.run(run()) == {}


def test_a_folder_made_past_the_bound_under_a_task_is_said_and_polled(tmp_path, few_folders):
    (tmp_path / "a").mkdir()
    sandbox = Told()

    async def run() -> tuple[list[str], bool]:
        tasks = TaskManager(tmp_path / "tasks", sandbox)
        tasks.folder_watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        tasks.poll_if_unwatched()  # as a task's start does
        assert sandbox.lines == [] and tasks.poller is None
        for name in ("b", "c", "cfg"):
            (tmp_path / name).mkdir()
        await settle(tasks.folder_watch)
        polled = tasks.poller is not None
        tasks.folder_watch.close()
        if tasks.poller is not None:
            await tasks.poller  # no task runs: it ends at once
        return list(sandbox.lines), polled

    told, polled = asyncio.run(run())
    assert len(told) == 1, told
    assert "cannot watch" in told[0] and str(tmp_path / "cfg") in told[0]
    assert "every 2 s" in told[0]
    assert polled


def test_folders_past_the_bound_are_said_once(tmp_path, few_folders):
    sandbox = Told()

    async def run() -> None:
        watch = watch_key_files(sandbox, SandboxStart(tmp_path, frozenset(), frozenset()))
        assert watch is not None
        for round in range(3):
            for name in range(4):
                (tmp_path / f"r{round}-{name}").mkdir()
            await settle(watch)
        watch.finish()

    asyncio.run(run())
    # A command making folders makes thousands: one notice, not one per batch of them.
    named = [line for line in sandbox.lines if "cannot watch" in line]
    assert len(named) == 1, named


# ---- a flood of read events ---------------------------------------------------------------


def flood(folder: Path, reads: int) -> None:
    """`reads` alternating one-byte reads of two files: distinct events, which the kernel does
    not merge into one."""
    (folder / "a").write_text("a")
    (folder / "b").write_text("b")
    fa, fb = os.open(folder / "a", os.O_RDONLY), os.open(folder / "b", os.O_RDONLY)
    try:
        for _ in range(reads // 2):
            os.pread(fa, 1, 0)
            os.pread(fb, 1, 0)
    finally:
        os.close(fa)
        os.close(fb)


def test_one_wake_up_reads_a_bounded_batch_of_a_read_flood(tmp_path):
    # 12 000 read events (32 bytes each) queued before planloop reads any: more than one batch.
    async def run() -> tuple[int, int, int]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        watch.loop.remove_reader(watch.fd)  # this test wakes it itself
        flood(tmp_path, 12_000)
        before = queued(watch.fd)
        events = watch._events()
        after = queued(watch.fd)
        watch.close()
        return before, len(events or ()), after

    before, taken, after = asyncio.run(run())
    assert before > MAX_EVENT_BYTES
    assert taken <= MAX_EVENT_BYTES // EVENT_HEADER.size
    assert after > 0  # the rest waits for the next wake-up: the loop runs meanwhile


def test_the_loop_runs_between_batches_of_a_read_flood(tmp_path):
    # Once the watch has taken its first events, this coroutine runs again before the whole
    # backlog is read, not after it.
    async def run() -> int:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        flood(tmp_path, 12_000)
        before = queued(watch.fd)
        while queued(watch.fd) >= before:
            await asyncio.sleep(0)
        left = queued(watch.fd)
        await settle(watch)
        watch.close()
        return left

    assert asyncio.run(run()) > 0


def test_a_key_file_renamed_behind_a_read_flood_is_still_followed_when_the_watch_closes(
    tmp_path,
):
    # The backlog is more than one batch; the command's end reads through it to the rename.
    async def run() -> dict[str, str]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        watch.loop.remove_reader(watch.fd)
        flood(tmp_path, 12_000)
        (tmp_path / ".env").write_text(KEY_LINE)
        os.rename(tmp_path / ".env", tmp_path / "notes.txt")
        return watch.finish()

    found = asyncio.run(run())
    assert str(tmp_path / "notes.txt") in found


def test_a_key_file_renamed_while_the_kernel_drops_events_counts_as_read(tmp_path):
    # More read events than the kernel queues (`fs.inotify.max_queued_events`): the .env saved
    # meanwhile and its rename to notes.txt are among those dropped. Nothing is left to follow,
    # so the workspace counts as read, said as events lost.
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())

    async def run() -> dict[str, str]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        watch.loop.remove_reader(watch.fd)
        flood(tmp_path, limit + 2)
        (tmp_path / ".env").write_text(KEY_LINE)
        os.rename(tmp_path / ".env", tmp_path / "notes.txt")
        return watch.finish()

    found = asyncio.run(run())
    assert found == {str(tmp_path): folder_watch.LOST_TRACK}
    assert "dropped some" in found[str(tmp_path)]


# A tree renamed back and forth until `stop` appears (or two minutes pass): each rename makes the
# watch walk the tree again, as the folder at each name may be the other one.
RENAME_LOOP = """
import os, time
open("renaming", "w").close()
end = time.monotonic() + 120
while not os.path.exists("stop") and time.monotonic() < end:
    os.rename("big", "big2")
    os.rename("big2", "big")
"""


@needs_bwrap
def test_sigterm_while_a_task_renames_a_tree_in_a_loop_ends_planloop(api, env, workspace):
    # Each rename costs the watch a walk of 200 folders, far more than the rename costs the
    # task. The watch's looks used to note every event of a batch, however long: SIGTERM went
    # unserved for minutes. Now a look stops after LOOK_SECONDS and the queue waits as long,
    # and a watch that cannot catch up says it lost track, which stops the task.
    for number in range(200):
        (workspace / "big" / f"d{number}").mkdir(parents=True)
    (workspace / "storm.py").write_text(RENAME_LOOP)
    task = {"command": "python3 storm.py", "run_in_background": True}
    api.add({"content": [tool_use("bash", task)]})
    api.add({"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 110})]})
    api.add({"content": [text("Done.")]})
    proc = spawn.Popen(
        [sys.executable, str(AGENT), "-p", "go"],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_file(workspace / "renaming")
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)  # it hung for minutes; now a few seconds
    finally:
        (workspace / "stop").touch()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    # Ended by SIGTERM, or just before it by the task stopped for the events it made.
    assert proc.returncode in (143, 3), stderr
    assert "Traceback" not in stderr


def test_a_workspace_of_many_folders_is_watched_without_losing_track(tmp_path):
    # A node project: thousands of folders. Listing each as its watch begins queues events of
    # its own (about six a folder), more than the kernel keeps for 2,700 folders; nothing was
    # lost, and a key file saved once the watch is on is still judged.
    for number in range(5_000):
        (tmp_path / "node_modules" / f"package{number}").mkdir(parents=True)

    async def run() -> tuple[dict[str, str], int]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        watched = len(watch.folders)
        (tmp_path / "node_modules" / "package4999" / ".env").write_text(KEY_LINE)
        os.rename(tmp_path / "node_modules" / "package4999" / ".env", tmp_path / "notes.txt")
        return watch.finish(), watched

    found, watched = asyncio.run(run())
    assert watched == 5_002
    assert folder_watch.LOST_TRACK not in found.values()
    assert str(tmp_path / "notes.txt") in found


def many_folders(workspace: Path) -> Path:
    """A node project's worth of folders: listing them queues more events than the kernel
    keeps (about six a folder, 16,384 by default)."""
    for number in range(5_000):
        (workspace / "node_modules" / f"package{number}").mkdir(parents=True)
    return workspace


@needs_bwrap
def test_a_command_in_a_workspace_of_many_folders_has_its_output(tmp_path):
    # As it ends, the watch until the next command lists every folder while the command's own
    # watch, which asks for reads, still looks: its queue once overflowed, and `echo hi` was
    # withheld as if the key could have been read unseen.
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap

    workspace = many_folders(tmp_path / "work")
    box = Bubblewrap()
    result = asyncio.run(run_bash(workspace, "echo hi", sandbox=box))
    assert result.startswith("hi\n"), result
    assert box.exposures == []


@needs_bwrap
def test_a_task_runs_on_beside_commands_in_a_workspace_of_many_folders(tmp_path):
    # The scan before each command lists every folder, on the loop that reads the task's watch:
    # the task was stopped and the run with it, at the first command beside a dev server.
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap
    from tools.tasks import RUNNING

    workspace = many_folders(tmp_path / "work")
    box = Bubblewrap()
    manager = TaskManager(tmp_path / "session.tasks", box)

    async def run() -> tuple[str, str]:
        task = await manager.start(workspace, "echo started; exec sleep 120", 180, box)
        while task.output.total < len("started"):
            await asyncio.sleep(0.05)
        result = await run_bash(workspace, "echo hi", sandbox=box)
        manager.check_running()
        status = task.status
        manager.stop(task.id)
        return result, status

    result, status = asyncio.run(run())
    assert result.startswith("hi\n"), result
    assert status == RUNNING
    assert box.exposures == []


@needs_bwrap
def test_a_command_that_renames_a_tree_of_many_folders_has_its_output(tmp_path):
    # A renamed folder is walked for what below it is not watched yet: that walk, too, keeps
    # the queue short (it once lost track at `mv node_modules node_modules.old`).
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap

    workspace = many_folders(tmp_path / "work")
    box = Bubblewrap()
    command = "mv node_modules node_modules.old && echo moved"
    result = asyncio.run(run_bash(workspace, command, sandbox=box))
    assert result.startswith("moved\n"), result
    assert box.exposures == []


# ---- a watched folder moved where no watch is, and back --------------------------------------


@pytest.mark.parametrize("back", ["renamed back", "made again"])
def test_a_key_read_in_a_folder_moved_out_of_sight_and_back_counts(tmp_path, few_folders, back):
    # A task moves `a` (watched) into a folder past the bound, reads the .env you saved there,
    # empties it, and puts `a` back (or makes a new one): the watch must not take the `a` it
    # then sees for a folder that just arrived, forgetting what happened to the old one.
    (tmp_path / "a").mkdir()
    watch = FolderWatch(changed=lambda: None)
    watch.add(SandboxStart(workspace=tmp_path, held=frozenset(), hidden=frozenset()))
    try:
        assert watch.take_stock() == {}
        for name in ("u1", "u2"):  # made while it runs: the second one past the bound
            (tmp_path / name).mkdir()
        watch.take_stock()
        (hiding,) = watch.unwatched
        (tmp_path / "a" / ".env").write_text(KEY_LINE)  # you save the key
        away = Path(hiding) / "hide"
        os.rename(tmp_path / "a", away)
        assert API_KEY in (away / ".env").read_text()
        (away / ".env").write_text("X=1\n")
        if back == "renamed back":
            os.rename(away, tmp_path / "a")
        else:
            (tmp_path / "a").mkdir()
        found = watch.take_stock()
        assert str(tmp_path / "a" / ".env") in found, found
        # And `a` is watched on: a key saved there later is seen too.
        later = time.monotonic()
        (tmp_path / "a" / ".env").write_text(KEY_LINE)
        assert watch.take_stock(since=later), "a key saved into a/.env afterwards went unseen"
    finally:
        watch.close()


def test_folders_other_programs_make_beside_a_bound_file_outside_the_workspace_stop_nothing(
    tmp_path, few_folders
):
    # A hidden file's folder outside the workspace (your home, /tmp) is watched for that file
    # being replaced. Folders other programs make and remove there (a build's temporary ones,
    # another user's closed ones) are no command's: a command cannot write outside the
    # workspace. They are neither walked nor counted, however many come and go.
    workspace, home = tmp_path / "work", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    hidden = home / ".bash_history"
    hidden.write_text("ls\n")
    start = SandboxStart(workspace, frozenset(), frozenset({str(hidden)}))
    watch = FolderWatch(changed=lambda: None)
    watch.add(start)
    try:
        assert watch.take_stock() == {}
        for name in ("t1", "t2", "t3", "t4"):
            (home / name / "sub").mkdir(parents=True)
            (home / name / "sub" / ".env").write_text(KEY_LINE)  # not the command's doing
        assert watch.take_stock() == {}
        for name in ("t1", "t2", "t3", "t4"):
            shutil.rmtree(home / name)
        assert watch.take_stock() == {}
        assert not [f for f in watch.folders if f.startswith(str(home) + os.sep)]
    finally:
        watch.close()


def test_a_folder_renamed_twice_through_a_new_one_stays_watched(tmp_path):
    # `mkdir n; mv x n/h; mv n/h config` in an instant: neither rename's halves meet (n had no
    # watch yet), so `config` looks new while x looks gone, and both are x's one kernel watch.
    # The key you save in config/.env, read and emptied before planloop looks, must count.
    (tmp_path / "x").mkdir()
    watch = FolderWatch(changed=lambda: None)
    watch.add(SandboxStart(workspace=tmp_path, held=frozenset(), hidden=frozenset()))
    try:
        assert watch.take_stock() == {}
        os.mkdir(tmp_path / "n")
        os.rename(tmp_path / "x", tmp_path / "n" / "h")
        os.rename(tmp_path / "n" / "h", tmp_path / "config")
        watch.take_stock()
        later = time.monotonic()
        env = tmp_path / "config" / ".env"
        env.write_text(KEY_LINE)
        assert API_KEY in env.read_text()
        env.write_text("X=1\n")
        found = watch.take_stock(since=later)
        assert str(env) in found, found
    finally:
        watch.close()


@pytest.mark.parametrize(
    "made", ["a hard link, gone again", "another file, kept", "another file, gone again"]
)
def test_a_key_file_read_through_a_hard_link_made_before_planloop_read_it_counts(tmp_path, made):
    # You save a new a/.env; before planloop reads it, a task links it to b/x, reads the key and
    # empties the file through x, and removes x: no event names .env. A file of its own made
    # meanwhile is no second name, and stops nothing.
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    watch = FolderWatch(changed=lambda: None)
    watch.add(SandboxStart(workspace=tmp_path, held=frozenset(), hidden=frozenset()))
    try:
        assert watch.take_stock() == {}
        env, other = tmp_path / "a" / ".env", tmp_path / "b" / "x"
        if made == "a hard link, gone again":
            env.write_text(KEY_LINE)
            os.link(env, other)
            assert API_KEY in other.read_text()
            other.write_text("X=1\n")
            other.unlink()
        else:  # a setup script's copy of the example, beside a file of its own
            env.write_text("DEBUG=1\n")
            other.write_text("notes\n")
            if made == "another file, gone again":
                other.unlink()
        found = watch.take_stock()
        assert (str(env) in found) == (made == "a hard link, gone again"), found
    finally:
        watch.close()


@pytest.mark.parametrize("link", ["removed again", "kept, in a folder made for it"])
def test_a_key_file_linked_read_and_emptied_during_planloops_read_counts(
    tmp_path, monkeypatch, link
):
    # You save a new a/.env; as planloop opens it to read, a task links it to x, reads the key
    # and empties the file through x, all before planloop's read: planloop reads "X=1". Removed
    # again, x's reads (a name made and gone while .env waited) tell it was a second name, if
    # only after planloop's read; kept in a folder made for it, which no watch followed yet,
    # the file's count of names, taken again after the read, tells.
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    env = tmp_path / "a" / ".env"
    other = tmp_path / "b" / "x" if link == "removed again" else tmp_path / "n" / "h"
    real_read = folder_watch.read_opened

    def task_first(descriptor: int) -> bytes | None:
        if not (tmp_path / "done").exists():
            (tmp_path / "done").touch()
            other.parent.mkdir(exist_ok=True)
            os.link(env, other)
            assert API_KEY in other.read_text()
            other.write_text("X=1\n")
            if link == "removed again":
                other.unlink()
        return real_read(descriptor)

    watch = FolderWatch(changed=lambda: None)
    watch.add(SandboxStart(workspace=tmp_path, held=frozenset(), hidden=frozenset()))
    try:
        assert watch.take_stock() == {}
        env.write_text(KEY_LINE)
        monkeypatch.setattr(folder_watch, "read_opened", task_first)
        found = watch.take_stock()
    finally:
        watch.close()
    assert found.get(str(env)) == folder_watch.SECOND_NAME, found


@pytest.mark.parametrize(
    "waits", ["a key file, the folder made before", "a key file, the folder made after", "nothing"]
)
def test_a_folder_made_and_gone_while_a_key_file_waits_counts_as_its_second_name(tmp_path, waits):
    # You save a new .env; before planloop reads it, a task links it to n/h in a folder made
    # just before or after the save, reads the key and empties the file through n/h, and
    # removes both: every event of that is n's, which had no watch yet. A folder made and gone
    # with no key file waiting stops nothing.
    env, folder = tmp_path / ".env", tmp_path / "n"
    watch = FolderWatch(changed=lambda: None)
    watch.add(SandboxStart(workspace=tmp_path, held=frozenset(), hidden=frozenset()))
    try:
        assert watch.take_stock() == {}
        if waits != "a key file, the folder made after":
            folder.mkdir()
        if waits != "nothing":
            env.write_text(KEY_LINE)
            folder.mkdir(exist_ok=True)
            os.link(env, folder / "h")
            assert API_KEY in (folder / "h").read_text()
            (folder / "h").write_text("X=1\n")
            (folder / "h").unlink()
        folder.rmdir()
        found = watch.take_stock()
    finally:
        watch.close()
    if waits == "nothing":
        assert found == {}
    else:
        assert found.get(str(env)) == folder_watch.SECOND_NAME, found


def link_into_place(descriptor: int, path: Path) -> None:
    """linkat(AT_SYMLINK_FOLLOW) of /proc/self/fd/N, as a program links an O_TMPFILE file (os.link
    calls link(2), which would link the /proc entry itself)."""
    libc = ctypes.CDLL(None, use_errno=True)
    at_fdcwd, at_symlink_follow = -100, 0x400
    source = f"/proc/self/fd/{descriptor}".encode()
    if libc.linkat(at_fdcwd, source, at_fdcwd, bytes(path), at_symlink_follow) != 0:
        raise OSError(ctypes.get_errno(), "linkat")


def test_a_key_read_through_the_descriptor_a_nameless_file_was_made_with_counts():
    # A task makes config/.env with no name (O_TMPFILE), links it into place and keeps its
    # descriptor: its reads and writes through it are told under `#<inode>`, not `.env`. You
    # write the key in place; it reads it and writes over it through that descriptor. (Not in
    # /tmp, which may be a file system that cannot link a nameless file into place.)
    tmp_path = outside_tmp("planloop-nameless-")
    config = tmp_path / "config"
    config.mkdir()
    watch = FolderWatch(changed=lambda: None)
    watch.add(SandboxStart(workspace=tmp_path, held=frozenset(), hidden=frozenset()))
    nameless = os.open(config, os.O_TMPFILE | os.O_RDWR, 0o644)
    try:
        assert watch.take_stock() == {}
        os.write(nameless, b"X=0\n")
        env = config / ".env"
        link_into_place(nameless, env)
        assert watch.take_stock() == {}  # its own file, nothing in it
        later = time.monotonic()
        with open(env, "a") as file:  # you, in place
            file.write(KEY_LINE)
        assert API_KEY.encode() in os.pread(nameless, 4096, 0)
        os.ftruncate(nameless, 0)
        os.pwrite(nameless, b"X=1\n", 0)
        assert str(env) in watch.take_stock(since=later)
    finally:
        os.close(nameless)
        watch.close()
