"""A file of any name that comes to hold the key while a task runs: judged by what it holds,
whatever the task does with its name afterwards, and said when there were too many to read.

The person pastes the key into `config/settings.json` while a background task runs. A task that
watches the file can read it at once and then hide it from planloop's next look: make the name
a link to a hard link it made before (the person's settings still read the same), or flood the
workspace with files so that the one written is no longer among those read.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from conftest import API_KEY
from test_binds_replaced import HOLD_LOCK
from test_hostile_pass4 import needs_bwrap, user_folders
from test_key_file_events import Watched, task_stopped_when_the_person_writes, write_owned

import tools.folder_watch as folder_watch
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
def test_a_task_that_makes_the_written_file_a_link_to_its_own_hard_link_is_stopped(
    api, env, user_folders
):
    user, workspace, _, _ = user_folders
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.json", "{}\n", user)
    write_owned(workspace / "swap.py", SWAPPER, user)
    if user == "nobody":
        os.chown(workspace / "config", 65534, 65534)
    task = HOLD_LOCK + "python3 swap.py; sleep 600"
    path = workspace / "config" / "settings.json"
    said = task_stopped_when_the_person_writes(api, env, user_folders, task, path, SETTINGS)
    assert "settings.json" in said
    assert (workspace / "config" / "settings.json").read_text() == SETTINGS  # as the person left it


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
