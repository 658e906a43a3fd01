"""Key files judged by what happens to them while a command runs, not by what is left at the end.

The person saves the key into a `.env` while a sandboxed command runs. The command reads it and
moves it aside (or removes it) before planloop compares the files, so nothing is left to find.
These drive `python agent.py` against the fake API (root and an unprivileged user) for a key
file in a subfolder, in the root under a task that races planloop with its own inotify watch,
and under a foreground command; and the watch itself (tools/folder_watch.py) with real inotify
events, in the order a lost race leaves them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ctypes
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import API_KEY
from test_binds_replaced import (
    HOLD_LOCK,
    KEY_LINE,
    assert_never_sent,
    done_or_stopped,
    person_after,
    wait_for,
    write_owned,
)
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders

import tools.files
import tools.folder_watch as folder_watch
from fakeapi import text, tool_use
from tools import bind_watch, event_queues, key_copies
from tools.bind_watch import (
    SandboxStart,
    may_hold_the_key,
    read_allocated,
    what_was_lost,
    why_seen,
)
from tools.event_queues import OWN_READS, begin_own_read, own_read_done
from tools.folder_watch import (
    MADE_CLOSED,
    MOVED_AWAY,
    REMOVED,
    FolderWatch,
    Mappings,
)
from tools.paths import read_small_file
from tools.sandbox import holds_known_secret

__all__ = ["user_folders"]  # a fixture, used by name below

EXIT_STOPPED = 3
REVERSED = API_KEY[::-1]


def never_sent(api, *needles: str) -> None:
    assert_never_sent(api, *needles)
    assert not any(needle in result for result in tool_results(api) for needle in needles)


# ---- end to end ------------------------------------------------------------------------


def task_stopped_when_the_person_writes(
    api, env, user_folders, task: str, path: Path, content: str, *needles: str, later=False
) -> str:
    """Start `task` in the background; once it has made `started`, the person writes `content`
    to `path` (`later`: after the model's next step, a look at the task's output); then the
    model asks for the task's output (and, if it still could, runs `cat notes.txt | rev`). The
    run must stop with the task's output kept from the model and none of `needles` (nor the
    key) sent; returns what planloop said, its line breaks undone."""
    user, workspace, planloop_home, home = user_folders

    def a_look(_body: dict) -> dict:
        wait_for(workspace / "started")
        return {"content": [tool_use("task_output", {"task_id": "bg-1"})]}

    def meanwhile(_body: dict) -> dict:
        wait_for(workspace / "started")
        write_owned(path, content, user)
        done_or_stopped(workspace / "copied", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 30})]}

    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    if later:
        api.add(a_look)
    api.add(meanwhile)
    api.add({"content": [tool_use("bash", {"command": "cat notes.txt | rev"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    never_sent(api, *needles, REVERSED, API_KEY)
    assert result.returncode == EXIT_STOPPED, result.stderr
    flat = " ".join(result.stderr.split())
    assert "bg-1 was stopped and its output kept from the model" in flat, result.stderr
    return flat


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_that_reads_the_key_saved_into_a_file_of_another_name_stops_the_run(
    api, env, user_folders
):
    # No key file's name: the person pastes the key into the app's settings while a task runs.
    user, workspace, _, _ = user_folders
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.json", "{}\n", user)
    if user == "nobody":
        os.chown(workspace / "config", 65534, 65534)
    task = (
        HOLD_LOCK + "touch started; until grep -q key config/settings.json; do sleep 0.01; "
        "done; rev config/settings.json; touch copied; sleep 600"
    )
    settings = json.dumps({"anthropic_api_key": API_KEY}) + "\n"
    path = workspace / "config" / "settings.json"
    said = task_stopped_when_the_person_writes(api, env, user_folders, task, path, settings)
    assert "settings.json" in said


# A task maps a key file into memory before the person fills it in: through the mapping it reads
# the key and overwrites it, and neither raises a file event. It maps the file before giving it
# its name, and waits until somebody has read it. The person fills it in after the model's next
# step (later, as people do): by then planloop's watch has taken the file in. A mapping made or
# let go of between two of planloop's reads is not seen (README), and planloop may read the file
# elsewhere first (what a sandbox made now would hide), which is all the task waits for.
MAPPER = """
import base64, ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
events = libc.inotify_init1(0)
libc.inotify_add_watch(events, b".", 0x10)  # IN_CLOSE_NOWRITE: somebody read a file here
fd = os.open(".making", os.O_RDWR | os.O_CREAT, 0o644)
address = libc.mmap(None, 4096, 3, 1, fd, 0)  # read and write, shared
os.close(fd)
os.rename(".making", ".env.local")  # mapped before anybody could read it as a key file
while b".env.local\\0" not in os.read(events, 4096):
    pass
open("started", "w").close()
while os.stat(".env.local").st_size == 0:
    time.sleep(0.001)
page = (ctypes.c_char * 4096).from_address(address)
size = os.stat(".env.local").st_size
line = page[:size]
page[0:size] = b"#" * size
print(base64.b32encode(line[::-1]).decode(), flush=True)
open("copied", "w").close()
"""  # and it ends: the mapping is gone before planloop may look for it


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_that_reads_a_key_file_through_a_memory_mapping_stops_the_run(
    api, env, user_folders
):
    user, workspace, _, _ = user_folders
    write_owned(workspace / "mapper.py", MAPPER, user)
    task = HOLD_LOCK + "python3 mapper.py"
    encoded = base64.b32encode(KEY_LINE.encode()[::-1]).decode()
    path = workspace / ".env.local"
    said = task_stopped_when_the_person_writes(
        api, env, user_folders, task, path, KEY_LINE, encoded, later=True
    )
    assert "mapped into memory" in said


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_that_reads_and_moves_a_key_file_made_in_a_subfolder_stops_the_run(
    api, env, user_folders
):
    # config/ holds nothing the sandbox binds. The person saves config/.env while a task runs;
    # the task reads it and moves it to a name that is no key file's, before any comparison.
    user, workspace, _, _ = user_folders
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.py", "DEBUG = True\n", user)
    if user == "nobody":
        os.chown(workspace / "config", 65534, 65534)
    task = (
        HOLD_LOCK + "touch started; until [ -s config/.env ]; do sleep 0.01; done; "
        "rev config/.env > notes.txt; mv config/.env config/settings.bak; touch copied; "
        "cat notes.txt; sleep 600"
    )
    path = workspace / "config" / ".env"
    said = task_stopped_when_the_person_writes(api, env, user_folders, task, path, KEY_LINE)
    assert "config/" in said  # the person is told which file


GRAB = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
libc.inotify_add_watch(fd, b".", 0x2 | 0x8)  # IN_MODIFY | IN_CLOSE_WRITE
open("started", "w").close()
while True:
    if b".env" in os.read(fd, 4096):
        try:
            os.rename(".env", "cfg.bak")  # before planloop reads it, when this side wins
        except OSError:
            continue
        break
open("notes.txt", "w").write(open("cfg.bak").read()[::-1])
open("copied", "w").close()
print(open("notes.txt").read(), flush=True)
"""


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_task_that_renames_a_new_root_env_on_its_own_event_stops_the_run(api, env, user_folders):
    # The task watches the workspace itself and renames the person's new .env the moment it is
    # written: planloop then finds no .env to read, and reads it under its new name. Whichever
    # side wins the race, the run stops (the rule is tested without a race below).
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / "grab.py", GRAB, user)
    task = HOLD_LOCK + "python3 grab.py; sleep 600"

    def meanwhile(_body: dict) -> dict:
        wait_for(workspace / "started")
        write_owned(workspace / ".env", KEY_LINE, user)
        done_or_stopped(workspace / "copied", workspace / "lock")
        return {"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 30})]}

    api.add({"content": [tool_use("bash", {"command": task, "run_in_background": True})]})
    api.add(meanwhile)
    api.add({"content": [tool_use("bash", {"command": "cat notes.txt"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    never_sent(api, REVERSED, API_KEY)
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert "bg-1 was stopped" in " ".join(result.stderr.split()), result.stderr


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_foreground_command_that_reads_and_moves_a_new_env_has_its_output_withheld(
    api, env, user_folders
):
    # One ordinary command (a long build): the person saves .env while it runs; it reads the
    # key and moves the file aside before it ends, when planloop used to compare only.
    user, workspace, planloop_home, home = user_folders
    command = (
        "touch started; until [ -s .env ]; do sleep 0.01; done; rev .env; "
        "mv .env build.cfg; echo built"
    )
    person_after(workspace / "started", lambda: write_owned(workspace / ".env", KEY_LINE, user))
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("bash", {"command": "rev build.cfg"})]})  # never asked for
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    never_sent(api, REVERSED, API_KEY)
    assert result.returncode == EXIT_STOPPED, result.stderr
    assert len(api.accepted) == 1  # the run stopped with the command's result
    flat = " ".join(result.stderr.split())
    # Read before the command renamed it, followed to its new name (a busy machine), or found
    # there by the comparison at the command's end (a machine busier still): either way what
    # it held is told.
    read = "its output is withheld: .env came to hold the API key"
    followed = "its output is withheld: build.cfg came to hold the API key or a secret"
    assert read in flat or followed in flat, result.stderr
    assert "planloop stopped the run" in flat


# Writes an env file holding no key, waits until somebody else (planloop) has read its bytes
# (a read of the file before the write, still empty, is no read of them), then removes it:
# what a test's fixture does, with planloop as fast as it can be.
WRITE_READ_REMOVE = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
path = sys.argv[1]
libc.inotify_add_watch(fd, os.path.dirname(path).encode() or b".", 0x1)  # IN_ACCESS: bytes read
open(path, "w").write("DEBUG=1\n")
while os.path.basename(path).encode() + b"\0" not in os.read(fd, 4096):
    pass
os.remove(path)
"""


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_command_that_makes_and_removes_env_files_without_the_key_goes_on(api, env, user_folders):
    # What tests and setup scripts do: copy the example and append to it, make one and remove
    # it once planloop could read it, in the root and in a folder they make; rename one; and
    # churn empty .env names.
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".env.example", "DEBUG=1\n", user)
    write_owned(workspace / "wrr.py", WRITE_READ_REMOVE, user)
    command = (
        "cp .env.example .env && echo PORT=1 >> .env && cat .env && "
        "timeout 60 python3 wrr.py .env.test && mkdir -p sub && "
        "timeout 60 python3 wrr.py sub/.env && cp .env.example sub/.env.local && "
        "mv sub/.env.local sub/env.bak && "
        "for i in $(seq 50); do touch .env.x; rm .env.x; done; echo fine"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("bash", {"command": command, "run_in_background": True})]})
    api.add({"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 60})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, _, third = tool_results(api)
    assert "PORT=1" in first and "fine" in first and "withheld" not in first
    assert "fine" in third and "withheld" not in third


# ---- the watch, driven with real events in the order a lost race leaves them --------------


class Watched:
    """A FolderWatch on `workspace` as a task's start makes it, on a loop of its own."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.start = SandboxStart(workspace, frozenset(), frozenset())
        self.changes = 0

    async def run(self, steps) -> dict[str, str]:
        def changed() -> None:
            self.changes += 1

        watch = FolderWatch(changed)
        watch.add(self.start)
        try:
            for step in steps:
                step()  # all before the loop reads an event: planloop has lost every race
                await asyncio.sleep(0.05)  # the loop reads what came
            watch.look()
            await asyncio.sleep(0.05)
            return watch.finish()
        finally:
            watch.close()

    def __call__(self, *steps) -> dict[str, str]:
        return asyncio.run(self.run(steps))


@pytest.fixture(autouse=True)
def planloop_key(monkeypatch):
    """The key planloop runs with, which the watch looks for."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)


def key_file(path: Path, content: str = KEY_LINE) -> None:
    path.write_text(content)


def test_a_key_file_renamed_before_planloop_read_it_is_read_under_its_new_name(tmp_path):
    watched = Watched(tmp_path)
    found = watched(
        lambda: (key_file(tmp_path / ".env"), os.rename(tmp_path / ".env", tmp_path / "cfg.bak"))
    )
    assert str(tmp_path / "cfg.bak") in found
    why = why_seen(watched.start, list(what_was_lost_paths(watched.start, found)))
    assert "as .env while it ran, and was renamed" in why


def what_was_lost_paths(start: SandboxStart, found: dict[str, str]) -> list[str]:
    class NoView:
        def view_now(self, workspace):
            return None

    return what_was_lost(NoView(), start, None, found).seen


def test_a_key_file_written_then_removed_unread_counts(tmp_path):
    (tmp_path / "config").mkdir()
    env = tmp_path / "config" / ".env"
    watched = Watched(tmp_path)
    found = watched(lambda: (key_file(env), env.unlink()))
    assert found == {str(env): REMOVED}
    assert what_was_lost_paths(watched.start, found) == [str(env)]
    assert "removed before planloop could read it" in why_seen(watched.start, [str(env)])


def test_a_key_file_written_then_moved_out_of_the_workspace_unread_counts(tmp_path):
    workspace, outside = tmp_path / "work", tmp_path / "elsewhere"
    workspace.mkdir()
    outside.mkdir()
    found = Watched(workspace)(
        lambda: (
            key_file(workspace / ".env.local"),
            os.rename(workspace / ".env.local", outside / "x"),
        )
    )
    assert found == {str(workspace / ".env.local"): MOVED_AWAY}


def test_a_key_file_in_a_folder_made_or_renamed_while_it_runs_counts(tmp_path):
    (tmp_path / "config").mkdir()
    found = Watched(tmp_path)(
        lambda: (tmp_path / "new").mkdir(),
        lambda: key_file(tmp_path / "new" / ".env"),
        lambda: os.rename(tmp_path / "config", tmp_path / "conf"),
        lambda: key_file(tmp_path / "conf" / ".env.prod"),
    )
    assert set(found) == {str(tmp_path / "new" / ".env"), str(tmp_path / "conf" / ".env.prod")}


def exchange(first: Path, second: Path) -> None:
    """Swap two names at once, as `renameat2(RENAME_EXCHANGE)` does."""
    libc = ctypes.CDLL(None, use_errno=True)
    at_cwd, rename_exchange = -100, 2
    if libc.renameat2(at_cwd, bytes(first), at_cwd, bytes(second), rename_exchange) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")


def test_folders_exchanged_while_it_runs_are_followed_under_their_new_names(tmp_path):
    # A task swaps two folders many times, then saves the key in one: the watch keeps track
    # (it used to fail on the swap and count the whole workspace as read).
    for name in ("a", "b"):
        (tmp_path / name / "sub").mkdir(parents=True)

    def swap_and_save() -> None:
        for _ in range(20):
            exchange(tmp_path / "a", tmp_path / "b")
        exchange(tmp_path / "a", tmp_path / "b")
        key_file(tmp_path / "a" / "sub" / ".env")

    found = Watched(tmp_path)(swap_and_save, lambda: key_file(tmp_path / "b" / ".env.local"))
    # Found by name, not by losing track of the whole workspace; (the one saved between the
    # swaps is judged after the swaps that followed it: as moved, or as holding the key).
    assert str(tmp_path) not in found
    assert set(found) == {str(tmp_path / "a" / "sub" / ".env"), str(tmp_path / "b" / ".env.local")}
    assert found[str(tmp_path / "b" / ".env.local")] == ""


def test_folders_exchanged_then_one_swapped_for_a_link_are_watched_where_they_are(tmp_path):
    # Two folders swapped, then one of them swapped with a link out, all before planloop
    # read the events: each folder is watched at the name it has now, none through the link.
    workspace, outside = tmp_path / "work", tmp_path / "outside"
    for name in ("a", "g"):
        (workspace / name).mkdir(parents=True)
    outside.mkdir()
    (workspace / "l").symlink_to(outside)

    def swap() -> None:
        exchange(workspace / "a", workspace / "g")
        exchange(workspace / "a", workspace / "l")  # `a` is the link now, `l` a folder

    found = Watched(workspace)(
        swap,
        lambda: key_file(workspace / "l" / ".env"),
        lambda: key_file(workspace / "g" / ".env.local"),
    )
    assert found == {str(workspace / "l" / ".env"): "", str(workspace / "g" / ".env.local"): ""}


@pytest.mark.parametrize("then", ["removed", "written over", "kept", "a folder, removed"])
def test_a_key_file_exchanged_with_a_decoy_is_judged_at_the_decoys_name(tmp_path, then):
    # renameat2(RENAME_EXCHANGE) of a new key file with a decoy, then a read of the key under
    # the decoy's name: the exchange's events read as the key file renamed and renamed back,
    # so the watch read the decoy's text at the key file's name and let the read go.
    decoy = tmp_path / "decoy"
    if then.startswith("a folder"):
        decoy.mkdir()
    else:
        decoy.write_text("X=1\n")

    def exchange_and_take() -> None:
        key_file(tmp_path / ".env.local")
        exchange(tmp_path / ".env.local", decoy)
        assert API_KEY in decoy.read_text()
        if then.endswith("removed"):
            decoy.unlink()
        elif then == "written over":
            decoy.write_text("X=1\n")

    found = Watched(tmp_path)(exchange_and_take)
    assert str(decoy) in found
    assert str(tmp_path / ".env.local") not in found  # the decoy's text, not the key, is there


def test_a_key_file_renamed_away_and_back_at_once_counts_nothing(tmp_path):
    # The same events as an exchange, with the file back where it was and nothing at the
    # other name: no key was in it, so nothing counts.
    env = tmp_path / ".env.local"

    def away_and_back() -> None:
        key_file(env, "DEBUG=1\n")
        os.rename(env, tmp_path / "env.tmp")
        os.rename(tmp_path / "env.tmp", env)

    found = Watched(tmp_path)(away_and_back, lambda: (tmp_path / "env.tmp").write_text("x\n"))
    assert found == {}


def writer_beside_planloops_reads(
    monkeypatch, path: Path, lines: int, read_too: bool, last: str = "LAST=x\n"
) -> list[int]:
    """A script that adds a line to `path` as each of planloop's reads of it begins (reading
    the file first when `read_too`), `lines` times, `last` the last: the file is written in
    every round of a look, as by a script that adds a line every few milliseconds on a busy
    machine. Returns how many lines are still to come (counted here: a read of the file
    would be one more)."""
    from tools import folder_watch

    real_open = folder_watch.open_for_key
    left = [lines]

    def open_while_written(name, **kwargs):
        if name == str(path) and left[0] > 0:
            left[0] -= 1
            if read_too:
                path.read_bytes()
            with path.open("a") as file:
                file.write(f"LINE_{left[0]}=x\n" if left[0] else last)
        return real_open(name, **kwargs)

    monkeypatch.setattr(folder_watch, "open_for_key", open_while_written)
    return left


def test_a_key_file_only_written_all_along_is_read_again_not_counted(tmp_path, monkeypatch):
    # `cp .env.example .env.local`, then a line added again and again: past the rounds of one
    # look nobody but planloop read it, so it is read again at the next look, not counted as
    # read (which stopped the script's task).
    env = tmp_path / ".env.local"
    left = writer_beside_planloops_reads(monkeypatch, env, lines=60, read_too=False)
    assert watched_until_written(tmp_path, env, left) == {}


def watched_until_written(tmp_path: Path, env: Path, left: list[int]) -> dict[str, str]:
    """A task's watch of `tmp_path` while `env` is made and then written beside each of
    planloop's reads (`writer_beside_planloops_reads`), until its last line: what it found.
    The lines come only as planloop reads, so the looks that read them are waited for."""

    async def run() -> dict[str, str]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            key_file(env, "DEBUG=1\n")
            while left[0] > 0 and not watch.exposed:  # read on at each look, or counted
                await asyncio.sleep(0.01)
            return watch.finish()
        finally:
            watch.close()

    return asyncio.run(run())


def test_a_key_file_read_and_written_all_along_counts(tmp_path, monkeypatch):
    env = tmp_path / ".env.local"
    writer_beside_planloops_reads(monkeypatch, env, lines=60, read_too=True)
    assert str(env) in Watched(tmp_path)(lambda: key_file(env, "DEBUG=1\n"))


def test_the_key_appended_read_before_its_event_and_cut_back_counts(tmp_path, monkeypatch):
    # A task made `.env.local` and holds it open. You append the key; the task reads it in the
    # microseconds between the bytes landing and the append's event being queued (a busy
    # `pread`, or woken by file notifications of its own), then cuts the file back. The queue
    # then says read, write, write, and planloop reads the file as it was before: the key was
    # read, though planloop never saw it there.
    from tools.folder_watch import IN_ACCESS, IN_MODIFY

    env = tmp_path / ".env.local"
    key_file(env, "DEBUG=1\n")
    held = os.open(env, os.O_RDWR)
    taken = FolderWatch._events

    def as_the_race_queues_them(watch: FolderWatch) -> list | None:
        events = taken(watch)
        ours = [event for event in events or [] if event[2] == env.name]
        reads = [event for event in ours if event[1] == IN_ACCESS]
        writes = [event for event in ours if event[1] == IN_MODIFY]
        if reads and writes:  # the command's read goes before the append it read
            events.remove(reads[0])
            events.insert(events.index(writes[0]), reads[0])
        return events

    def appended_read_and_cut_back() -> None:
        with open(env, "a") as person:
            person.write(KEY_LINE)
        os.pread(held, 4096, 0)
        os.ftruncate(held, len("DEBUG=1\n"))

    monkeypatch.setattr(FolderWatch, "_events", as_the_race_queues_them)
    try:
        found = Watched(tmp_path)(lambda: None, appended_read_and_cut_back)
    finally:
        os.close(held)
    assert env.read_text() == "DEBUG=1\n"  # the key is gone from it
    assert found == {str(env): ""}


def test_a_pipe_made_at_a_key_file_s_name_counts_at_once(tmp_path):
    # A task makes `.env.local` a named pipe it reads: the key you then add to it goes to the
    # task, and no write into a pipe raises an event, nor leaves a file planloop could read.
    env = tmp_path / ".env.local"
    assert Watched(tmp_path)(lambda: os.mkfifo(env)) == {str(env): folder_watch.PIPED}
    other = tmp_path / "notes.fifo"  # a pipe of another name holds nothing of yours
    assert Watched(tmp_path)(lambda: os.mkfifo(other)) == {}


def test_a_pipe_of_another_name_counts_once_something_is_written_into_it(tmp_path):
    # A task runs `mkfifo settings.json && rev < settings.json`, and the model asks you to
    # paste the key into settings.json: it goes to the task, leaving nothing to read.
    fifo = tmp_path / "settings.json"

    def pasted() -> None:
        writer = os.open(fifo, os.O_RDWR)  # (a reader of its own, so the write cannot block)
        os.write(writer, b"ANTHROPIC_API_KEY=...\n")
        os.close(writer)

    assert Watched(tmp_path)(lambda: os.mkfifo(fifo), pasted) == {str(fifo): folder_watch.PIPED}
    fifo.unlink()
    assert Watched(tmp_path)(lambda: os.mkfifo(fifo)) == {}  # made, nothing written: nothing


def test_files_written_are_judged_briefly_once_planloop_is_ending(tmp_path, monkeypatch):
    # Judging each file a task wrote can take a tenth of a second: a task writing them without
    # end held SIGTERM off. Once planloop is ending, a look has ENDING_LOOK_SECONDS of CPU
    # time (a few small files are judged as ever); what is left then counts as lost (withheld).
    def written_then_ending() -> None:
        for number in range(3):
            (tmp_path / f"notes{number}.txt").write_text("DEBUG=1\n")
        event_queues.ENDING.set()

    try:
        assert Watched(tmp_path)(written_then_ending) == {}
        monkeypatch.setattr(event_queues, "ENDING_LOOK_SECONDS", 0)
        found = Watched(tmp_path)(written_then_ending)
    finally:
        event_queues.ENDING.clear()
    assert found == {str(tmp_path): folder_watch.LOST_TRACK}


@pytest.mark.parametrize("name", ["notes{}.txt", ".env.s{}"])
def test_a_ctrl_c_while_written_files_are_judged_ends_the_look(tmp_path, monkeypatch, name):
    # Each judging can cost most of a second (16 MiB of a key file's name, 1 MiB of another),
    # and the event loop that serves Ctrl-C waits for the look: a command that wrote forty held
    # it off for 16 s. What is left when one comes counts as lost (withheld), as at SIGTERM.
    judged = []

    def judging_as_ctrl_c_comes(data: bytes, *secrets) -> bool:
        judged.append(data)
        if len(judged) == 1:
            event_queues.CTRL_C_COUNT[0] += 1  # as cli/signals.py counts one, at once
        return False

    def written() -> None:
        for number in range(3):
            (tmp_path / name.format(number)).write_text("DEBUG=1\n")

    assert Watched(tmp_path)(written) == {}  # no Ctrl-C: judged, and none held the key
    monkeypatch.setattr(folder_watch, "holds_the_key", judging_as_ctrl_c_comes)
    for number in range(3):
        (tmp_path / name.format(number)).unlink()
    assert Watched(tmp_path)(written) == {str(tmp_path): folder_watch.LOST_TRACK}


def test_the_file_a_key_file_name_links_to_is_judged_as_a_key_file(tmp_path):
    # A task makes `.env.local` a link to `notes.txt`: the key you then add to `.env.local`
    # lands in a file of another name, judged only by what it holds when planloop reads it,
    # and the task had read it and written it back without the key by then.
    notes = tmp_path / "notes.txt"

    def linked() -> None:
        notes.write_text("")
        os.symlink("notes.txt", tmp_path / ".env.local")

    def you_add_your_key_and_the_task_takes_it() -> None:
        with open(tmp_path / ".env.local", "a") as you:
            you.write(KEY_LINE)
        notes.read_text()
        notes.write_text("A=1\n")

    found = Watched(tmp_path)(linked, you_add_your_key_and_the_task_takes_it)
    assert str(notes) in found


@pytest.mark.parametrize("way", ["a link to a link", "a linked folder"])
def test_a_link_on_the_way_from_a_key_file_name_pointed_elsewhere_later_is_followed(tmp_path, way):
    # `.env.local -> mid -> a.txt` (or `.env.local -> dir/notes.txt`, `dir -> first`), and then
    # the task points `mid` (or `dir`) elsewhere: no event names `.env.local`, but the key you
    # add to it lands in the new file, which the task reads and writes back without the key.
    notes = tmp_path / "later" / "notes.txt"
    notes.parent.mkdir()
    notes.write_text("")
    (tmp_path / "first").mkdir()
    (tmp_path / "first" / "notes.txt").write_text("")
    (tmp_path / "a.txt").write_text("")
    on_the_way, first, later = {
        "a link to a link": ("mid", "a.txt", "later/notes.txt"),
        "a linked folder": ("dir", "first", "later"),
    }[way]
    key_name_leads_to = "mid" if way == "a link to a link" else "dir/notes.txt"

    def linked() -> None:
        os.symlink(first, tmp_path / on_the_way)
        os.symlink(key_name_leads_to, tmp_path / ".env.local")

    def pointed_elsewhere() -> None:
        os.symlink(later, tmp_path / "new-link")
        os.rename(tmp_path / "new-link", tmp_path / on_the_way)

    def you_add_your_key_and_the_task_takes_it() -> None:
        with open(tmp_path / ".env.local", "a") as you:
            you.write(KEY_LINE)
        notes.read_text()
        notes.write_text("A=1\n")

    found = Watched(tmp_path)(linked, pointed_elsewhere, you_add_your_key_and_the_task_takes_it)
    assert str(notes) in found


def test_a_read_long_before_two_quick_writes_counts_nothing(tmp_path, monkeypatch):
    # `source .env.local` in one command, `echo A=1 >> .env.local; echo B=2 >> .env.local` in a
    # later one: the read came before the writes by more than a writer's pause.
    monkeypatch.setattr(folder_watch, "READ_BESIDE_WRITE_SECONDS", 0.01)
    env = tmp_path / ".env.local"
    key_file(env, "DEBUG=1\n")

    def appended_twice() -> None:
        for line in ("A=1\n", "B=2\n"):
            with open(env, "a") as command:
                command.write(line)

    assert Watched(tmp_path)(lambda: None, env.read_text, appended_twice) == {}
    # The same read just before them may have read what the first put there.
    monkeypatch.setattr(folder_watch, "READ_BESIDE_WRITE_SECONDS", 60)
    assert Watched(tmp_path)(lambda: None, env.read_text, appended_twice) == {str(env): ""}


def test_a_look_ends_its_rounds_after_its_time_and_reads_on_at_the_next(tmp_path, monkeypatch):
    # Two hundred key files rewritten in a loop made each look take seconds of the event
    # loop's time: its rounds now end after LOOK_SECONDS, and the next look goes on.
    from tools import folder_watch

    monkeypatch.setattr(folder_watch, "LOOK_SECONDS", 0)
    env = tmp_path / ".env.local"
    left = writer_beside_planloops_reads(monkeypatch, env, lines=5, read_too=False)

    async def one_look_then_the_rest() -> tuple[int, dict]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            key_file(env, "DEBUG=1\n")
            watch.take_stock()  # one look, and the loop reads the watch again
            after_one = 5 - left[0]
            while left[0] > 0:  # the next looks come by themselves
                await asyncio.sleep(0.01)
            return after_one, watch.finish()
        finally:
            watch.close()

    after_one, found = asyncio.run(one_look_then_the_rest())
    assert after_one == 1  # one round: the file was read once
    assert found == {}


def test_a_key_file_written_all_along_is_judged_when_the_writes_stop(tmp_path, monkeypatch):
    # Only written while planloop looked, then the key goes in with the last line: found.
    env = tmp_path / ".env.local"
    left = writer_beside_planloops_reads(monkeypatch, env, 30, read_too=False, last=KEY_LINE)
    assert watched_until_written(tmp_path, env, left) == {str(env): ""}


def test_env_files_without_the_key_and_empty_churn_count_nothing_and_scan_nothing(tmp_path):
    env = tmp_path / ".env"

    def churn() -> None:
        for _ in range(200):
            (tmp_path / ".env.x").touch()
            (tmp_path / ".env.x").unlink()

    watched = Watched(tmp_path)
    found = watched(
        churn,
        lambda: key_file(env, "DEBUG=1\n"),  # cp .env.example .env
        lambda: env.write_text("DEBUG=1\nPORT=2\n"),  # an append, read by planloop
        lambda: os.rename(env, tmp_path / "env.bak"),
        lambda: (tmp_path / "env.bak").unlink(),
    )
    assert found == {}
    # Key-file names changing are judged by their events: no whole-workspace comparison.
    assert watched.changes == 0


# ---- planloop's own read, placed in the queue by a mark made before it ---------------------

MARK, END = -2, -3  # stand for the marks before and after planloop's read


def after_planloop_read(tmp_path: Path, held: bytes, *events: int) -> dict[str, str]:
    """What the watch makes of `events` on `.env.test` (MARK and END: the marks of planloop's
    read of it), queued after planloop read `held` from it: it had seen the file made, then
    read it (marked before and after)."""
    from tools.folder_watch import IN_CREATE, IN_ISDIR

    watch = FolderWatch(lambda: None)
    watch.paths, watch.folders, watch.marks_wd = {1: str(tmp_path)}, {str(tmp_path): 1}, 2
    path = str(tmp_path / ".env.test")
    watch._note([(1, IN_CREATE, ".env.test")])
    number = begin_own_read(path)
    own_read_done(path, held)
    window = watch.windows[path]
    window.pending, window.seen = number, held  # as `_read_events` leaves them
    watch.pending_reads[number] = path
    marks = {MARK: str(number), END: f"{number}."}
    watch._note(
        [(2, IN_CREATE | IN_ISDIR, marks[m]) if m in marks else (1, m, ".env.test") for m in events]
    )
    watch._gone(set(watch.moving))
    return watch.exposed_since(0)


def test_a_write_queued_before_planloop_s_mark_is_in_what_it_read(tmp_path):
    from tools.folder_watch import (
        IN_ACCESS,
        IN_CLOSE_NOWRITE,
        IN_CLOSE_WRITE,
        IN_DELETE,
        IN_MODIFY,
    )

    # The command wrote, planloop marked, opened and read it all, then the command removed it:
    # what planloop read is what was there, so nothing is lost (it used to read again, find the
    # file gone, and stop the run).
    ours = (MARK, IN_ACCESS, IN_CLOSE_NOWRITE, END)
    quiet = after_planloop_read(tmp_path, b"DEBUG=1\n", IN_MODIFY, IN_CLOSE_WRITE, *ours, IN_DELETE)
    assert quiet == {}
    # Written after planloop's mark: what it read may be older than what the command read.
    late = after_planloop_read(tmp_path, b"DEBUG=1\n", MARK, IN_MODIFY, IN_ACCESS, IN_DELETE)
    assert late == {str(tmp_path / ".env.test"): REMOVED}
    # The same write before the mark, read by somebody, then written over: what they read,
    # planloop never saw.
    over = after_planloop_read(
        tmp_path, b"DEBUG=1\n", IN_MODIFY, IN_ACCESS, IN_MODIFY, *ours, IN_DELETE
    )
    assert over == {str(tmp_path / ".env.test"): ""}


def comparison_read(path: str) -> None:
    may_hold_the_key(path)  # what a comparison at a tool call reads of a `.env` a task made


def sandbox_read(path: str) -> None:
    holds_known_secret(Path(path))  # what a sandbox being made reads, to hide it or not


def tool_file_read(path: str) -> None:
    with contextlib.suppress(OSError):
        read_small_file(path)  # a `.env` a tool's config names, read as the tool would


@pytest.mark.parametrize("own_read", [comparison_read, sandbox_read, tool_file_read])
def test_planloop_s_own_read_between_a_command_s_two_writes_is_its_own(tmp_path, own_read):
    # `cp .env.example .env && echo PORT=2 >> .env` while planloop compares at a tool call:
    # its read between the two writes is no command's, so nothing was read and written over.
    env = tmp_path / ".env"
    found = Watched(tmp_path)(
        lambda: (key_file(env, "DEBUG=1\n"), own_read(str(env)), key_file(env, "PORT=2\n"))
    )
    assert found == {}
    # A write before planloop's read is still read by the watch: the key in it counts.
    found = Watched(tmp_path)(lambda: (key_file(env), own_read(str(env))))
    assert found == {str(env): ""}


def test_reads_between_planloop_s_marks_that_a_write_separates_count_as_a_command_s(tmp_path):
    from tools.folder_watch import IN_ACCESS, IN_DELETE, IN_MODIFY

    env = str(tmp_path / ".env.test")
    # planloop read once between its marks: of two reads a write separates, one is somebody
    # else's, of what planloop never saw, written over since.
    two = (MARK, IN_ACCESS, IN_MODIFY, IN_ACCESS, END, IN_DELETE)
    assert after_planloop_read(tmp_path, b"DEBUG=1\n", *two) == {env: ""}
    # One read, then a write: planloop's own read, of what it holds (removed unread since).
    one = (MARK, IN_ACCESS, IN_MODIFY, END, IN_DELETE)
    assert after_planloop_read(tmp_path, b"DEBUG=1\n", *one) == {env: REMOVED}
    # But planloop read no byte (an empty file), which raises no read event: that read was
    # somebody's, of what the write then replaced.
    assert after_planloop_read(tmp_path, b"", *one) == {env: ""}


def test_another_watch_s_read_between_a_command_s_two_writes_is_planloop_s(tmp_path):
    # Two tasks run, each with its watch. `cp .env.example .env && echo PORT=2 >> .env` in
    # one: the other watch's read of the new `.env`, between the two writes, is in this watch's
    # queue too, and is planloop's, not a command's.
    env = tmp_path / ".env"
    other = FolderWatch(lambda: None)  # read when it looks, as a watch with no loop is
    other.add(SandboxStart(tmp_path, frozenset(), frozenset()))
    newest = max(OWN_READS, default=0)
    try:
        found = Watched(tmp_path)(
            lambda: (key_file(env, "DEBUG=1\n"), other.look(), key_file(env, "DEBUG=1\nPORT=2\n"))
        )
    finally:
        other.close()
    assert str(env) in [OWN_READS[n][0] for n in list(OWN_READS) if n > newest], "no read"
    assert found == {}


def test_a_write_between_planloop_s_mark_and_its_read_is_not_a_read(tmp_path, monkeypatch):
    # The script's first write lands after planloop's first mark and before its read: what
    # planloop read holds it, and nobody else read the file before the second write.
    env = tmp_path / ".env"
    first: list = []

    def written_first(fd: int, limit: int):
        if not first:
            first.append(key_file(env, "DEBUG=1\nSQL=1\n"))
        return read_allocated(fd, limit)

    monkeypatch.setattr(bind_watch, "read_allocated", written_first)
    found = Watched(tmp_path)(
        lambda: (
            key_file(env, "DEBUG=1\n"),
            may_hold_the_key(str(env)),
            key_file(env, "DEBUG=1\nSQL=1\nPORT=2\n"),
        )
    )
    assert first, "planloop did not read the file"
    assert found == {}


def a_task_reading_beside(env: Path, theirs: list, saved: str):
    """A read of planloop's own during which a task, woken by an event, reads `env` and keeps
    its file open. `saved`: when the person saves the key (SAVED_WHEN); with WRITTEN_OVER the
    task writes over it before planloop's read is closed. Once: the watch's own reads of what
    was written come after."""

    def a_read_and_maybe_a_write() -> None:
        handle = open(env, "rb")  # noqa: SIM115 (left open, as the task leaves it)
        handle.read()
        theirs.append(handle)
        if saved == CLOSED_FIRST:  # `cat .env > /tmp/k; echo DEBUG=2 > .env`
            handle.close()
        if saved in (WRITTEN_OVER, WRITTEN_OVER_FIRST, CLOSED_FIRST):
            key_file(env, "DEBUG=2\n")

    def beside(fd: int, limit: int):
        if theirs:
            return read_allocated(fd, limit)
        if saved in (WRITTEN_OVER_FIRST, CLOSED_FIRST):  # between planloop's marks, before its read
            a_read_and_maybe_a_write()
            return read_allocated(fd, limit)
        data = read_allocated(fd, limit)
        if saved == SAVED_WHEN[1]:
            key_file(env)
        a_read_and_maybe_a_write()
        return data

    return beside


WRITTEN_OVER = "before, and written over while it is open"
WRITTEN_OVER_FIRST = "before, and written over before planloop's read in its window"
CLOSED_FIRST = "before, read and closed, and written over before planloop's read"
SAVED_WHEN = [
    "before planloop's read",
    "while it is open",
    WRITTEN_OVER,
    WRITTEN_OVER_FIRST,
    CLOSED_FIRST,
]


@pytest.mark.parametrize("saved", SAVED_WHEN)
def test_a_task_s_read_beside_planloop_s_own_read_still_counts(tmp_path, monkeypatch, saved):
    # The task reads the key in the window planloop takes for its own read, then writes over
    # it (after that read, or during it): that window does not hide the task's read.
    env = tmp_path / ".env"
    env.write_text("DEBUG=1\n")
    theirs: list = []
    monkeypatch.setattr(bind_watch, "read_allocated", a_task_reading_beside(env, theirs, saved))
    found = Watched(tmp_path)(
        lambda: (
            key_file(env) if saved != SAVED_WHEN[1] else None,
            may_hold_the_key(str(env)),
            key_file(env, "DEBUG=2\n") if saved not in SAVED_WHEN[2:] else None,
        )
    )
    for handle in theirs:
        handle.close()
    assert found == {str(env): ""}


@pytest.mark.parametrize("saved", [WRITTEN_OVER, CLOSED_FIRST])
def test_a_task_s_read_beside_the_watch_s_own_read_still_counts(tmp_path, monkeypatch, saved):
    # The same race against the read the watch makes of the key the person just saved.
    env = tmp_path / ".env"
    env.write_text("DEBUG=1\n")
    theirs: list = []
    reading_beside = a_task_reading_beside(env, theirs, saved)
    monkeypatch.setattr(bind_watch, "read_allocated", reading_beside)
    found = Watched(tmp_path)(lambda: key_file(env))
    for handle in theirs:
        handle.close()
    assert theirs, "the watch did not read the file"
    assert found == {str(env): ""}


def test_a_command_s_read_between_two_writes_still_counts(tmp_path):
    env = tmp_path / ".env"
    found = Watched(tmp_path)(
        lambda: (key_file(env, "DEBUG=1\n"), env.read_text(), key_file(env, "PORT=2\n"))
    )
    assert found == {str(env): ""}


def test_the_marks_are_planloop_s_own_and_come_around_its_read(tmp_path):
    # The real queue: the first mark's event, the read's, the second mark's, in that order and
    # on the marks' watch, named by the read's number.
    from tools.folder_watch import IN_CREATE, IN_ISDIR

    (tmp_path / ".env").write_text("DEBUG=1\n")

    async def run() -> tuple[list[tuple[int, int, str, int]], int | None, int]:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        watch.loop.remove_reader(watch.fd)
        newest = max(OWN_READS, default=0)
        may_hold_the_key(str(tmp_path / ".env"))
        numbers = [number for number in list(OWN_READS) if number > newest]
        assert len(numbers) == 1 and OWN_READS[numbers[0]][0] == str(tmp_path / ".env")
        number = numbers[0]
        events = watch._events() or []
        marks_wd = watch.marks_wd
        watch.close()
        return [e for e in events if e[0] == marks_wd or e[2] == ".env"], marks_wd, number

    events, marks_wd, number = asyncio.run(run())
    marks = [str(number), f"{number}."]
    assert [(wd, name) for wd, _, name, _ in events if wd == marks_wd] == [
        (marks_wd, name) for name in marks
    ]
    begun, ended = (events.index((marks_wd, IN_CREATE | IN_ISDIR, name, 0)) for name in marks)
    reads = [i for i, (_, mask, name, _) in enumerate(events) if name == ".env" and mask & 1]
    assert reads and all(begun < i < ended for i in reads)  # IN_ACCESS, between the two marks


def test_a_read_of_a_file_no_watch_judges_is_not_marked(tmp_path):
    # A sandbox being made reads git's and the shells' configs by the hundred: no marks.
    (tmp_path / ".gitconfig").write_text("[user]\n")
    (tmp_path / ".env").write_text("DEBUG=1\n")
    watch = FolderWatch(lambda: None)
    watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
    try:
        newest = max(OWN_READS, default=0)
        read_small_file(tmp_path / ".gitconfig")
        assert [n for n in list(OWN_READS) if n > newest] == []
        read_small_file(tmp_path / ".env")
        assert [OWN_READS[n][0] for n in list(OWN_READS) if n > newest] == [str(tmp_path / ".env")]
    finally:
        watch.close()


def test_a_key_file_removed_after_planloop_read_it_once_is_judged_by_what_it_held(tmp_path):
    # planloop keeps its last read of a key file open: rewritten and removed before it could
    # read again, the file is judged by what it held when it was removed.
    env = tmp_path / ".env.test"

    def rewritten_and_removed(content: str):
        return lambda: (env.write_text(content), env.unlink())

    watched = Watched(tmp_path)
    assert watched(lambda: key_file(env, "DEBUG=1\n"), rewritten_and_removed("PORT=2\n")) == {}
    found = watched(lambda: key_file(env, "DEBUG=1\n"), rewritten_and_removed(KEY_LINE))
    assert found == {str(env): REMOVED}
    # What planloop keeps is of that file only: one made again at the name, and removed
    # before planloop could read it, is not judged by the one before.
    found = watched(
        lambda: key_file(env, "DEBUG=1\n"),
        env.unlink,
        lambda: (key_file(env, KEY_LINE), env.unlink()),
    )
    assert found == {str(env): REMOVED}


def test_a_key_file_given_another_name_counts_when_it_is_written(tmp_path):
    # A task made .env (from the example) and a hard link to it; reads and writes through the
    # link raise events under that name only. Written while linked, .env counts as read.
    from tools.folder_watch import SECOND_NAME

    env, link = tmp_path / ".env", tmp_path / "x" / "notes.txt"
    (tmp_path / "x").mkdir()
    found = Watched(tmp_path)(
        lambda: key_file(env, "DEBUG=1\n"),
        lambda: os.link(env, link),
        lambda: env.write_text("DEBUG=1\nPORT=2\n"),
    )
    assert found == {str(env): SECOND_NAME}
    # Also when the link is gone by the time planloop reads the write: it was made meanwhile.
    env.unlink()
    link.unlink()
    found = Watched(tmp_path)(
        lambda: key_file(env, "DEBUG=1\n"),
        lambda: os.link(env, link),
        lambda: (env.write_text("DEBUG=1\nPORT=2\n"), link.unlink()),
    )
    assert found == {str(env): SECOND_NAME}
    # Without a second name, the same writes count nothing.
    env.unlink()
    found = Watched(tmp_path)(
        lambda: key_file(env, "DEBUG=1\n"),
        lambda: env.write_text("DEBUG=1\nPORT=2\n"),
    )
    assert found == {}


def test_a_pipe_made_with_a_key_file_name_does_not_hold_the_watch(tmp_path):
    # planloop keeps a key file it read open; a FIFO at that name is not reopened (an open of a
    # pipe for reading waits for a writer, on the event loop). It counts as read at once
    # (`test_a_pipe_made_at_a_key_file_s_name_counts_at_once`), and the watch goes on.
    found = Watched(tmp_path)(
        lambda: os.mkfifo(tmp_path / ".env.local"), lambda: key_file(tmp_path / ".env")
    )
    assert found == {str(tmp_path / ".env.local"): folder_watch.PIPED, str(tmp_path / ".env"): ""}


def test_a_mapping_is_found_in_a_process_planloop_started_and_only_while_it_lasts(tmp_path):
    key_file = tmp_path / ".env.local"
    key_file.write_text("DEBUG=1\n")
    info = key_file.stat()
    holder = subprocess.Popen(
        [sys.executable, "-c", MAP_AND_WAIT, str(key_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout.readline() == b"mapped\n"
        assert Mappings().hold(info.st_dev, info.st_ino, str(key_file))
        # Told by its path where the device a mapping shows is another (overlayfs, btrfs).
        assert Mappings().hold(info.st_dev + 1, info.st_ino, str(key_file))
        assert not Mappings().hold(info.st_dev + 1, info.st_ino, str(tmp_path / "x"))
        kept = Mappings()
        assert kept.hold(info.st_dev, info.st_ino, str(key_file))
    finally:
        holder.communicate(b"go\n")
    assert not Mappings().hold(info.st_dev, info.st_ino, str(key_file))
    assert kept.hold(info.st_dev, info.st_ino, str(key_file))  # looked up once, then kept


def test_the_processes_are_looked_through_once_a_round_not_once_a_file(tmp_path, monkeypatch):
    # Each look reads the memory map of every process planloop started: a task that starts a
    # thousand and writes two hundred key files at once held planloop's event loop (and its
    # SIGTERM) for minutes when every file read looked again.
    looks = []
    real_look = Mappings._look
    monkeypatch.setattr(Mappings, "_look", staticmethod(lambda: looks.append(1) or real_look()))

    def many_key_files() -> None:
        for number in range(50):
            key_file(tmp_path / f".env.{number}", f"N={number}\n")

    assert Watched(tmp_path)(many_key_files) == {}
    assert 1 <= len(looks) <= 5


def test_many_key_files_written_at_once_on_a_slow_machine_are_judged_not_lost(
    tmp_path, monkeypatch
):
    # On a loaded machine a round of reads took longer than a look may spend noting events.
    # The events of planloop's own reads, which come after the round, were then noted with
    # no time left: the look was cut short, every file was read again at the next one, and so
    # on, until the watch said it had lost track and stopped a task that did nothing wrong.
    real_look = Mappings._look

    def slow_look():
        time.sleep(folder_watch.NOTE_SECONDS * 1.5)  # what a busy machine makes of a round
        return real_look()

    monkeypatch.setattr(Mappings, "_look", staticmethod(slow_look))

    def many_key_files() -> None:
        for number in range(50):
            key_file(tmp_path / f".env.{number}", f"N={number}\n")

    assert Watched(tmp_path)(many_key_files) == {}


MAP_AND_WAIT = """
import mmap, sys
with open(sys.argv[1], "r+b") as file:
    mapping = mmap.mmap(file.fileno(), 0)
print("mapped", flush=True)
sys.stdin.readline()
"""


def test_a_file_in_a_folder_made_and_left_unwatched_is_read_at_the_last_look(tmp_path, monkeypatch):
    # A folder made with no watch left (inotify's watches used up): what the person saved
    # there is read at the end, as any file written.
    real_watch = FolderWatch._watch

    def closed_to_it(self, folder, follow=True):
        if folder.endswith("/cfg"):
            self.not_a_folder = False  # out of watches (ENOSPC)
            return None
        return real_watch(self, folder, follow)

    monkeypatch.setattr(FolderWatch, "_watch", closed_to_it)
    settings = tmp_path / "cfg" / "local.json"
    found = Watched(tmp_path)(
        lambda: (tmp_path / "cfg").mkdir(),
        lambda: settings.write_text(json.dumps({"apiKey": os.environ["ANTHROPIC_API_KEY"]})),
    )
    assert str(settings) in found


@pytest.mark.parametrize("end", ["closed again", "removed"])
def test_a_folder_made_closed_to_the_watch_counts_as_read(tmp_path, monkeypatch, end):
    # As an unprivileged user, `mkdir -m 0 cfg` cannot be watched (EACCES). Opened up, the key
    # saved there and read, then closed or removed as the command ends: no look afterwards
    # finds it (the last look once walked it, and found nothing), so the folder counts as read.
    real_watch = FolderWatch._watch

    def refused_for_cfg(self, folder, follow=True):
        if folder.endswith("/cfg"):
            self.refused, self.not_a_folder = True, False  # what inotify_add_watch's EACCES sets
            return None
        return real_watch(self, folder, follow)

    monkeypatch.setattr(FolderWatch, "_watch", refused_for_cfg)
    folder = tmp_path / "cfg"
    settings = folder / "local.json"
    found = Watched(tmp_path)(
        lambda: folder.mkdir(),
        lambda: settings.write_text(json.dumps({"apiKey": os.environ["ANTHROPIC_API_KEY"]})),
        lambda: folder.chmod(0) if end == "closed again" else shutil.rmtree(folder),
    )
    if folder.exists():
        folder.chmod(0o700)  # (for the clean-up)
    assert found.get(str(folder)) == MADE_CLOSED, found


@pytest.mark.parametrize("made", ["cfg", "x/cfg"])
def test_a_folder_made_and_renamed_before_planloop_looked_is_watched_at_its_new_name(
    tmp_path, made
):
    # `mkdir cfg; mv cfg cfg2` (or a folder made inside another that is renamed): by the time
    # planloop read that cfg was made, it was gone, and no watch moved with the rename.
    def make_and_rename() -> None:
        (tmp_path / made).mkdir(parents=True)
        top = made.split("/")[0]
        os.rename(tmp_path / top, tmp_path / f"{top}2")

    settings = tmp_path / f"{made.split('/')[0]}2" / "/".join(made.split("/")[1:]) / "local.json"
    found = Watched(tmp_path)(
        make_and_rename,
        lambda: settings.write_text(json.dumps({"apiKey": os.environ["ANTHROPIC_API_KEY"]})),
    )
    assert str(settings) in found, found


def test_the_search_for_copies_reading_a_key_file_is_not_taken_for_a_commands_read(tmp_path):
    # At planloop's start the search for copies of the key reads the workspace in a thread of
    # its own while the first command runs. With a big home, or on a busy machine, it read the
    # .env a command had just copied from the example, before the command appended to it: the
    # watch took that read for the command's, and the append for a key read and written over,
    # and stopped a command that did nothing wrong (seen in CI, as root and as nobody).
    env = tmp_path / ".env"
    place = key_copies.Place(tmp_path, key_copies.WORKSPACE_DEPTH, False)

    def copied_searched_appended() -> None:
        env.write_text("DEBUG=1\n")
        search = key_copies.KeyCopySearch((place,), (), key_copies.search_secrets_of(None))
        search.run()
        assert search.files_read == 1  # it read the .env, as the search at the start does
        with env.open("a") as file:
            file.write("PORT=1\n")

    assert Watched(tmp_path)(copied_searched_appended) == {}


def test_read_file_of_a_key_file_a_task_writes_is_not_taken_for_the_tasks_read(tmp_path):
    # The model reads .env.local while a task appends to it: read_file's read came between
    # two of the task's writes, and the watch took it for the task's, and stopped the run.
    env = tmp_path / ".env.local"

    def written_read_appended() -> None:
        env.write_text("DEBUG=1\n")
        assert "DEBUG=1" in tools.files.read_file(tmp_path, ".env.local")
        with env.open("a") as file:
            file.write("PORT=1\n")

    assert Watched(tmp_path)(written_read_appended) == {}


def test_a_command_appending_to_and_reading_its_env_during_a_slow_look_goes_on(
    tmp_path, monkeypatch
):
    # `cp .env.example .env && echo PORT=1 >> .env && cat .env` on a busy machine: while
    # planloop's look at the copy went through the processes (for mappings) the command
    # appended and read the file, and the round outlasted the look's time. The append and the
    # read were taken for a key read and written over (or for a read of what planloop never
    # saw), and the run stopped (a CI failure, as root and as nobody). Nothing was written
    # over: the file holds what the command read, to be read at the next look.
    env = tmp_path / ".env"
    left = appended_and_read_at_each_look(monkeypatch, env, times=1)
    assert Watched(tmp_path)(lambda: env.write_text("DEBUG=1\n")) == {}
    assert left == [0]


def appended_and_read_at_each_look(monkeypatch, env: Path, times: int) -> list[int]:
    """A command that appends to `env` and reads it as each of planloop's next `times` rounds
    of reads goes through the processes (for mappings), on a machine so busy that the round
    outlasts the look's time. Returns how many are still to come."""
    real_look = Mappings._look
    left = [times]

    def busy_look():
        if left[0] > 0:
            left[0] -= 1
            with env.open("a") as file:
                file.write("PORT=1\n")
            env.read_bytes()
            time.sleep(folder_watch.LOOK_SECONDS * 1.5)
        return real_look()

    monkeypatch.setattr(Mappings, "_look", staticmethod(busy_look))
    return left


def test_a_key_file_appended_and_read_at_the_last_look_is_read_once_more(tmp_path, monkeypatch):
    # The same race in the look made as the command ends: the file is read once more then,
    # not counted as read unseen.
    env = tmp_path / ".env"
    left = appended_and_read_at_each_look(monkeypatch, env, times=1)
    watch = FolderWatch(lambda: None)  # no event loop: read only when looked at
    watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
    try:
        env.write_text("DEBUG=1\n")
        assert watch.finish() == {}
    finally:
        watch.close()
    assert left == [0]


def test_a_key_file_appended_and_read_after_each_of_planloops_reads_counts(tmp_path, monkeypatch):
    # Written and read again after every read planloop makes, up to the count: what the
    # command read last was never seen by planloop.
    env = tmp_path / ".env"
    appended_and_read_at_each_look(monkeypatch, env, times=10_000)
    watch = FolderWatch(lambda: None)
    watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
    try:
        env.write_text("DEBUG=1\n")
        assert watch.finish() == {str(env): ""}
    finally:
        watch.close()


def test_planloops_reads_of_a_key_file_in_two_threads_take_turns(tmp_path, monkeypatch):
    # Three read_file calls at once while a task appended to .env.local: the marks of two
    # reads went around each other's, the task's write between the reads split them into two
    # stretches, and the watch took that for the task reading what planloop never saw.
    env = tmp_path / ".env.local"
    other_began, other_may_end = threading.Event(), threading.Event()

    class Turn:  # a file's turn, which says when the other thread asks for it
        lock = threading.RLock()

        def acquire(self, timeout: float = -1) -> bool:
            if threading.current_thread() is not threading.main_thread():
                other_began.set()
            return self.lock.acquire(timeout=timeout)

        def release(self) -> None:
            self.lock.release()

    monkeypatch.setattr(event_queues, "TURNS", (Turn(),))

    def read_in_another_thread() -> None:
        begin_own_read(str(env))
        data = env.read_bytes()
        other_began.set()
        other_may_end.wait()
        own_read_done(str(env), data)

    def two_reads_around_a_write() -> None:
        env.write_text("DEBUG=1\n")
        begin_own_read(str(env))
        other = threading.Thread(target=read_in_another_thread)
        other.start()
        assert other_began.wait(30)  # waiting for its turn (or, taking none, read already)
        with env.open("a") as file:  # the task's append
            file.write("PORT=1\n")
        own_read_done(str(env), env.read_bytes())
        other_may_end.set()
        other.join()

    assert Watched(tmp_path)(two_reads_around_a_write) == {}


@pytest.mark.parametrize("reader", ["read_file", "read_small_file", "edit_file", "update_file"])
def test_planloop_reads_a_key_file_a_task_appends_to_in_one_call(tmp_path, monkeypatch, reader):
    # A task appended to .env.local between read_file's read of it and a second read call
    # that looked for the end: the second read was a stretch of its own, which the watch took
    # for the task reading what planloop never saw, and stopped the run. (read_small_file
    # reads the configs a sandbox is made from, a tool's dotenv file among them; edit_file
    # and a new tool's update_file read the file before the person is asked.)
    env = tmp_path / ".env.local"
    real_read = os.read
    appended = []

    def read_then_the_task_appends(fd: int, count: int) -> bytes:
        data = real_read(fd, count)
        with contextlib.suppress(OSError):
            if not appended and os.path.samestat(os.fstat(fd), os.stat(env)):
                appended.append(True)
                with env.open("a") as file:
                    file.write("PORT=1\n")
        return data

    def written_then_read() -> None:
        env.write_text("DEBUG=1\n")
        with monkeypatch.context() as patched:
            patched.setattr(os, "read", read_then_the_task_appends)
            if reader == "read_file":
                assert "DEBUG=1" in tools.files.read_file(tmp_path, ".env.local")
            elif reader == "read_small_file":
                assert read_small_file(env) == "DEBUG=1\n"
            else:
                seen = []
                try:
                    if reader == "edit_file":
                        tools.files.edit_file(tmp_path, ".env.local", "DEBUG=1", "DEBUG=2")
                    else:
                        tools.files.update_file("x", tmp_path, ".env.local", seen.append)
                except tools.files.ToolError as refused:  # not asked: the write is refused
                    seen.append(str(refused))
                assert appended, seen  # read first

    assert Watched(tmp_path)(written_then_read) == {}
    assert appended


def test_a_key_file_the_search_reads_marked_is_found_at_its_other_names(tmp_path, monkeypatch):
    # The search comes to a .env holding the key while a watch judges it, and reads it as
    # planloop's own reads are. A name it has deep in a package store, which the search
    # reaches last and here not at all, is found as for any copy with several names.
    monkeypatch.setattr(key_copies, "SEARCH_FILES", 200)
    store = tmp_path / "node_modules"
    (store / "zz").mkdir(parents=True)
    for index in range(300):
        (store / f"f{index}.js").write_bytes(b"x")
    env = tmp_path / ".env"
    env.write_text(KEY_LINE)
    os.link(env, store / "zz" / "cache.txt")
    place = key_copies.Place(tmp_path, key_copies.WORKSPACE_DEPTH, False)
    search = key_copies.KeyCopySearch((place,), (), key_copies.search_secrets_of(None))
    search.workspace = tmp_path
    watch = FolderWatch(lambda: None)
    watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
    try:
        search.run()
    finally:
        watch.close()
    assert search.cut_short  # node_modules was not read to its end
    assert sorted(search.found) == [env, store / "zz" / "cache.txt"]


def folder_and_file_made_read_and_removed(workspace: Path) -> None:
    """`cp .env.example .env && npm test`: a test run makes a folder and a file beside the new
    .env, reads the file back, and removes both before planloop looks."""
    (workspace / ".env").write_text("DEBUG=1\n")
    (workspace / "tmp-run").mkdir()
    (workspace / "tmp-run" / "out.txt").write_text("1\n")
    (workspace / "tmp-run" / "out.txt").unlink()
    (workspace / "tmp-run").rmdir()
    (workspace / "cache.tmp").write_text("x\n")
    (workspace / "cache.tmp").read_text()
    (workspace / "cache.tmp").unlink()


@pytest.mark.parametrize("may_link", [False, True])
def test_names_made_and_gone_beside_a_new_key_file_count_only_where_links_can_be_made(
    tmp_path, may_link
):
    # Made and gone before planloop could look, a folder or a file read may have been a
    # second name of the new .env (`mkdir n; ln .env n/h`). Where the sandbox's filter
    # refuses hard links no command can make one, and a test run's temporary files are just
    # that: the run goes on.
    watched = Watched(tmp_path)
    watched.start.may_link = may_link
    found = watched(lambda: folder_and_file_made_read_and_removed(tmp_path))
    assert (str(tmp_path / ".env") in found) is may_link


@needs_bwrap
def test_a_sandbox_with_the_filter_is_known_to_make_no_hard_links(tmp_path):
    from tools.bind_watch import sandbox_start
    from tools.sandbox import Bubblewrap

    sandbox = Bubblewrap()
    argv, _ = sandbox.wrap(tmp_path, "true")
    start = sandbox_start(sandbox, tmp_path, argv)
    assert sandbox.filter_file is not None  # the filter this machine's bwrap takes
    assert start is not None and start.may_link is False


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_test_run_beside_a_new_env_goes_on(api, env, user_folders):
    # `cp .env.example .env && npm test`: the run makes and removes a folder and a file read
    # back, which no command in a sandbox that refuses hard links can have made a second
    # name of the .env. In the foreground and as a background task.
    user, workspace, planloop_home, home = user_folders
    write_owned(workspace / ".env.example", "DEBUG=1\n", user)
    command = (
        "python3 -c \"import os, shutil; shutil.copy('.env.example', '{}'); "
        "os.makedirs('run/a'); open('run/a/o', 'w').write('1'); shutil.rmtree('run'); "
        "open('c.tmp', 'w').write('x'); open('c.tmp').read(); os.remove('c.tmp')\" && echo fine"
    )
    api.add({"content": [tool_use("bash", {"command": command.format(".env")})]})
    background = {"command": command.format(".env.local"), "run_in_background": True}
    api.add({"content": [tool_use("bash", background)]})
    api.add({"content": [tool_use("task_output", {"task_id": "bg-1", "wait": 60})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, _, third = tool_results(api)
    assert "fine" in first and "fine" in third


@pytest.mark.parametrize("ending", [False, True])
def test_a_watch_far_behind_stops_catching_up_when_planloop_is_ending(
    tmp_path, monkeypatch, ending
):
    # A task rewrote two hundred key files in a loop; SIGTERM came while a check between
    # commands was catching up with their events, look after look, and planloop ended 15 to
    # 20 s later. Once a signal that ends planloop has come, what is left counts as lost (its
    # output is withheld), and the count ends with the look under way.
    monkeypatch.setattr(folder_watch, "MAX_EVENT_BYTES", 2 * folder_watch.LARGEST_EVENT)
    looks = []
    real_look = FolderWatch.look

    def counted(self) -> None:
        looks.append(True)
        real_look(self)

    monkeypatch.setattr(FolderWatch, "look", counted)
    watch = FolderWatch(lambda: None)  # no event loop: read only when looked at
    watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
    try:
        for number in range(20):
            (tmp_path / f".env.{number}").write_text("N=1\n")
        if ending:
            event_queues.ENDING.set()
        found = watch.take_stock()
    finally:
        event_queues.ENDING.clear()
        watch.close()
    if ending:
        assert len(looks) == 1 and found == {str(tmp_path): folder_watch.LOST_TRACK}
    else:
        assert len(looks) > 1 and found == {}


def test_a_watch_stops_looking_on_the_loop_once_planloop_is_ending(tmp_path, monkeypatch):
    # Each look of a storm held the event loop a tenth of a second or more, and planloop took
    # seconds to end between them: once ending, the loop makes no more looks.
    looks = []
    real_look = FolderWatch.look
    monkeypatch.setattr(FolderWatch, "look", lambda self: (looks.append(1), real_look(self)))

    async def run() -> bool:
        watch = FolderWatch(lambda: None)
        watch.add(SandboxStart(tmp_path, frozenset(), frozenset()))
        try:
            event_queues.ENDING.set()
            (tmp_path / ".env.1").write_text("N=1\n")
            watch._read_as_it_comes()  # what the loop calls as the events come
            return watch.paused
        finally:
            event_queues.ENDING.clear()
            watch.close()

    assert asyncio.run(run()) and looks == []


def test_sigterm_tells_the_watches_at_once_while_the_loop_is_held():
    import signal

    from cli.signals import run_signals

    ended = []

    async def run() -> bool:
        with run_signals(lambda: None, ended.append):
            os.kill(os.getpid(), signal.SIGTERM)
            told = event_queues.ENDING.is_set()  # before the loop had any turn
            await asyncio.sleep(0)
            while not ended:  # the loop's own handler still runs
                await asyncio.sleep(0.01)
            return told

    before = {signum: signal.getsignal(signum) for signum in (2, 1, 15)}
    try:
        assert asyncio.run(run()) and ended == [signal.SIGTERM]
    finally:
        event_queues.ENDING.clear()
        for signum, handler in before.items():  # as this test process had them
            signal.signal(signum, handler)
