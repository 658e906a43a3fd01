"""The key pasted into a file of any name while no command runs is hidden from the next one.

The model asks the person to put their key into the app's settings; they do, while the model
is thinking. The search for copies of the key ran at start, and each command's watch sees only
what is written while it runs: the next command read the file. Now the workspace stays watched
between commands, and what came to hold the key is hidden like any copy found.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import select
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import API_KEY
from test_binds_replaced import KEY_LINE
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders
from test_key_file_events import REVERSED, write_owned

import tools.between_commands as between
import tools.folder_watch as folder_watch
from fakeapi import text, tool_use

__all__ = ["user_folders"]  # a fixture, used by name

SETTINGS = json.dumps({"anthropic_api_key": API_KEY}) + "\n"
SHOW = "rev config/settings.json; base64 -w0 config/settings.json; wc -c < config/settings.json"


def settings_without_a_key(workspace: Path, user: str) -> None:
    """The app's `config/settings.json`, its key not filled in yet, owned by `user`."""
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.json", '{"anthropic_api_key": ""}\n', user)
    if user == "nobody":
        os.chown(workspace / "config", 65534, 65534)


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_key_pasted_between_two_commands_is_hidden_from_the_next(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    settings_without_a_key(workspace, user)

    def the_person_pastes_it(_body: dict) -> dict:
        # The first command has ended; the model is thinking: no command runs now.
        write_owned(workspace / "config" / "settings.json", SETTINGS, user)
        return {"content": [tool_use("bash", {"command": SHOW})]}

    api.add({"content": [tool_use("bash", {"command": "cat config/settings.json"})]})
    api.add(the_person_pastes_it)
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, second = tool_results(api)
    assert '"anthropic_api_key": ""' in first  # the file was readable before the key came
    assert "0\n" in second  # hidden: the command finds it empty
    sent = json.dumps(api.requests)
    assert API_KEY not in sent and REVERSED not in sent
    assert (workspace / "config" / "settings.json").read_text() == SETTINGS


def test_the_watch_between_commands_is_one_per_workspace_and_few(tmp_path):
    # Each is an inotify instance (128 a user by default): a process that runs agents in
    # many folders, as this test suite does, keeps only the newest few; and none stays once
    # a command's own watch has begun, which judges what it writes.
    async def run() -> tuple[int, int, int]:
        for index in range(between.MAX_WATCHED + 3):
            folder = tmp_path / f"w{index}"
            folder.mkdir()
            between.watch_until_the_next_command(folder)
        kept = len(between._watches)
        between.key_files_written_between(tmp_path / "w6", print)  # a command is made ready
        ready = len(between._watches)
        between.key_files_written_while_it_started(tmp_path / "w6")  # and has its own watch
        return kept, ready, len(between._watches)

    expected = (between.MAX_WATCHED, between.MAX_WATCHED, between.MAX_WATCHED - 1)
    assert asyncio.run(run()) == expected


class Reads:
    """The reads of files in `folder` from now on (inotify's IN_CLOSE_NOWRITE)."""

    def __init__(self, folder: Path) -> None:
        self.fd = ctypes.CDLL(None, use_errno=True).inotify_init1(os.O_CLOEXEC)
        assert self.fd >= 0
        ctypes.CDLL(None).inotify_add_watch(self.fd, bytes(folder), 0x10)

    def wait_for(self, name: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while True:
            assert select.select([self.fd], [], [], max(0, deadline - time.monotonic()))[0]
            data = os.read(self.fd, 65536)
            while data:
                size = struct.unpack_from("iIII", data)[3]
                if data[16 : 16 + size].rstrip(b"\0") == name.encode():
                    return
                data = data[16 + size :]

    def close(self) -> None:
        os.close(self.fd)


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_key_pasted_before_the_first_command_is_hidden_from_it(api, env, user_folders):
    # planloop has started and its search for copies of the key has read the settings; the
    # model asks for the key in its first answer, and the person pastes it meanwhile.
    user, workspace, planloop_home, home = user_folders
    settings_without_a_key(workspace, user)
    reads = Reads(workspace / "config")

    def the_person_pastes_it(_body: dict) -> dict:
        reads.wait_for("settings.json")  # the search has read it, and found no key
        write_owned(workspace / "config" / "settings.json", SETTINGS, user)
        return {"content": [tool_use("bash", {"command": SHOW})]}

    api.add(the_person_pastes_it)
    api.add({"content": [text("Done.")]})
    try:
        result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    finally:
        reads.close()
    assert result.returncode == 0, result.stderr
    assert "0\n" in tool_results(api)[0]  # hidden: the command finds it empty
    sent = json.dumps(api.requests)
    assert API_KEY not in sent and REVERSED not in sent


@pytest.fixture
def planloop_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)


def test_a_program_that_runs_each_input_in_a_new_event_loop_is_watched_between_them(
    tmp_path, planloop_key
):
    # `asyncio.run(agent.run(...))` for each input, as the README's examples do: the watch
    # begun in the first loop is read in the second, and the key pasted meanwhile is found.
    settings = tmp_path / "settings.json"
    settings.write_text("{}\n")

    async def first_input() -> None:
        between.watch_until_the_next_command(tmp_path)

    async def second_input() -> list[Path]:
        return between.key_files_written_between(tmp_path, print)

    asyncio.run(first_input())
    settings.write_text(SETTINGS)
    assert asyncio.run(second_input()) == [settings.resolve()]


def test_a_key_saved_before_the_first_input_is_found_without_an_event_loop(tmp_path, planloop_key):
    # planloop starts (no event loop runs yet) and the first command comes later.
    between.watch_until_the_next_command(tmp_path)
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "key.txt").write_text(KEY_LINE)
    found = between.key_files_written_between(tmp_path, print)
    assert found == [(tmp_path / "config" / "key.txt").resolve()]


def test_a_key_saved_through_a_key_named_file_renamed_into_place_is_found(tmp_path, planloop_key):
    # An atomic save: `.env.new` written, then renamed to the file it replaces, at once.
    (tmp_path / "config").mkdir()
    between.watch_until_the_next_command(tmp_path)
    (tmp_path / ".env.new").write_text(KEY_LINE)
    os.rename(tmp_path / ".env.new", tmp_path / "config" / "key.txt")
    found = between.key_files_written_between(tmp_path, print)
    assert found == [(tmp_path / "config" / "key.txt").resolve()]


def test_a_workspace_that_cannot_be_watched_between_commands_is_said_once(
    tmp_path, planloop_key, monkeypatch
):
    # All of the person's inotify instances in use (editors and file watchers take them).
    monkeypatch.setattr(folder_watch, "_LIBC", None)
    monkeypatch.setattr(between, "_told", set())
    said: list[str] = []
    for _ in range(2):
        between.watch_until_the_next_command(tmp_path)
        between.key_files_written_between(tmp_path, said.append)
    assert len(said) == 1
    assert "could not watch the workspace for files written between two commands" in said[0]


def test_a_key_file_found_between_commands_is_found_at_its_other_names(tmp_path, planloop_key):
    # A command made a second name for the settings before the key came (`ln`); the person
    # then saved the key in place, as editors do for a file with several names.
    (tmp_path / "config").mkdir()
    settings = tmp_path / "config" / "settings.json"
    settings.write_text("{}\n")
    os.link(settings, tmp_path / "notes.txt")
    between.watch_until_the_next_command(tmp_path)
    with open(settings, "r+") as file:
        file.write(SETTINGS)
    found = between.key_files_written_between(tmp_path, print, [])
    assert sorted(found) == sorted([settings.resolve(), (tmp_path / "notes.txt").resolve()])


def test_a_key_file_whose_other_names_cannot_all_be_found_stops_commands(
    tmp_path, planloop_key, monkeypatch
):
    # The workspace is too large to list in time: the file is the search's `linked`, on which
    # no command runs (tools/sandbox.py).
    import tools.key_copies as key_copies

    monkeypatch.setattr(key_copies, "LINK_ENTRIES", -1)
    settings = tmp_path / "settings.json"
    settings.write_text("{}\n")
    os.link(settings, tmp_path / "notes.txt")
    between.watch_until_the_next_command(tmp_path)
    settings.write_text(SETTINGS)
    linked: list[Path] = []
    between.key_files_written_between(tmp_path, print, linked)
    assert linked == [settings.resolve()]


CHMOD_AND_SHOW = "chmod 600 config/settings.json; " + SHOW


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["nobody"], indirect=True)
def test_a_file_closed_to_planloop_is_hidden_as_if_it_held_the_key(api, env, user_folders):
    # Root reads through a file's mode; an ordinary user does not. A command makes the settings
    # write-only; the person can still save into them (a shell's `>` opens for writing), and the
    # next command would open them up again and read them. What they hold cannot be told.
    user, workspace, planloop_home, home = user_folders
    settings_without_a_key(workspace, user)

    def the_person_pastes_it(_body: dict) -> dict:
        with open(workspace / "config" / "settings.json", "w") as file:  # as root: mode 200
            file.write(SETTINGS)
        return {"content": [tool_use("bash", {"command": CHMOD_AND_SHOW})]}

    api.add({"content": [tool_use("bash", {"command": "chmod 200 config/settings.json"})]})
    api.add(the_person_pastes_it)
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    assert "Read-only file system" in tool_results(api)[1]  # hidden: it cannot be opened up
    sent = json.dumps(api.requests)
    assert API_KEY not in sent and REVERSED not in sent


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["nobody"], indirect=True)
def test_a_file_closed_to_the_search_is_hidden_from_commands(api, env, user_folders):
    # An earlier run's command made the settings write-only, and the key was saved into them.
    user, workspace, planloop_home, home = user_folders
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.json", SETTINGS, user)
    os.chmod(workspace / "config" / "settings.json", 0o200)
    os.chown(workspace / "config", 65534, 65534)
    api.add({"content": [tool_use("bash", {"command": CHMOD_AND_SHOW})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    assert "Read-only file system" in tool_results(api)[0]
    sent = json.dumps(api.requests)
    assert API_KEY not in sent and REVERSED not in sent


def test_the_watch_between_commands_keeps_up_with_no_event_loop(tmp_path, planloop_key):
    # The terminal runs each input in an event loop of its own; between two, the person's
    # build writes on and on (more changes than the kernel keeps), then they save the key.
    import array
    import fcntl
    import termios

    said: list[str] = []
    between.watch_until_the_next_command(tmp_path)
    watch = between._watches[str(tmp_path)]
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    for _ in range(3):
        rewrite(tmp_path, limit // 2)
        queued, deadline = array.array("i", [1]), time.monotonic() + 60
        while queued[0]:  # until its thread has taken them in
            assert time.monotonic() < deadline, "nothing reads the watch's events"
            fcntl.ioctl(watch.fd, termios.FIONREAD, queued)
            time.sleep(0.01)
    (tmp_path / "config.json").write_text(SETTINGS)
    assert between.key_files_written_between(tmp_path, said.append) == [
        (tmp_path / "config.json").resolve()
    ]
    assert said == []


def rewrite(folder: Path, writes: int) -> None:
    """`writes` alternating one-byte writes to two files: distinct events, which the kernel does
    not merge into one."""
    first, second = (os.open(folder / name, os.O_WRONLY | os.O_CREAT) for name in ("a", "b"))
    try:
        for _ in range(writes // 2):
            os.pwrite(first, b"a", 0)
            os.pwrite(second, b"b", 0)
    finally:
        os.close(first)
        os.close(second)


def test_the_watch_between_commands_asks_for_no_reads(tmp_path, planloop_key):
    # Each read_file of a turn, or the person's grep, would wake its thread for nothing.
    import array
    import fcntl
    import termios

    (tmp_path / "notes.txt").write_text("notes\n")
    between.watch_until_the_next_command(tmp_path)
    watch = between._watches[str(tmp_path)]
    watch._stop_draining()  # what the kernel queues stays there
    for _ in range(100):
        (tmp_path / "notes.txt").read_text()
    queued = array.array("i", [0])
    fcntl.ioctl(watch.fd, termios.FIONREAD, queued)
    between.key_files_written_between(tmp_path, print)
    assert queued[0] == 0


# The person's program writes the key into the settings and keeps the file open (a dev
# server's log, `cat > file` still reading, `script -f`): the file is never closed meanwhile.
KEEPS_IT_OPEN = """
import sys, time
with open(sys.argv[1], "w") as file:
    file.write(sys.argv[2])
    file.flush()
    open(sys.argv[3], "w").close()
    time.sleep(600)
"""


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_key_written_to_a_file_kept_open_is_hidden_from_the_next_command(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    settings_without_a_key(workspace, user)
    written = home / "written"
    writers: list[subprocess.Popen] = []

    def the_persons_program_writes_it(_body: dict) -> dict:
        settings = workspace / "config" / "settings.json"
        argv = [sys.executable, "-c", KEEPS_IT_OPEN, str(settings), SETTINGS, str(written)]
        writers.append(subprocess.Popen(argv))
        while not written.exists():  # the key is in the file, which is still open
            assert writers[0].poll() is None
            time.sleep(0.01)
        return {"content": [tool_use("bash", {"command": SHOW})]}

    api.add({"content": [tool_use("bash", {"command": "cat config/settings.json"})]})
    api.add(the_persons_program_writes_it)
    api.add({"content": [text("Done.")]})
    try:
        result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    finally:
        for writer in writers:
            writer.kill()
            writer.wait()
    assert result.returncode == 0, result.stderr
    _, second = tool_results(api)
    assert "0\n" in second  # hidden: the command finds it empty
    sent = json.dumps(api.requests)
    assert API_KEY not in sent and REVERSED not in sent


def test_a_key_saved_while_a_command_is_made_ready_is_handed_to_its_watch(tmp_path, planloop_key):
    # Working out a command's binds takes a moment (seconds, for a big workspace's settings);
    # the watch between commands goes on until the command's own watch has begun.
    between.watch_until_the_next_command(tmp_path)
    assert between.key_files_written_between(tmp_path, print) == []  # the command is made ready
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "key.txt").write_text(KEY_LINE)  # the person saves the key meanwhile
    found = between.key_files_written_while_it_started(tmp_path)  # its own watch has begun
    assert [Path(path).resolve() for path in found] == [(tmp_path / "config" / "key.txt").resolve()]
    assert str(tmp_path) not in between._watches


def gap_workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "work"
    (workspace / "config").mkdir(parents=True)
    (workspace / "config" / "settings.json").write_text('{"anthropic_api_key": ""}\n')
    return workspace


def read_back(text_out: str) -> None:
    assert API_KEY not in text_out and REVERSED not in text_out, text_out
    assert text_out.startswith("0\n"), text_out  # hidden: the command finds it empty


@needs_bwrap
def test_a_key_saved_as_a_command_ends_is_hidden_from_the_next(tmp_path, planloop_key, monkeypatch):
    # A command's end takes a moment (its sandbox's view is worked out again: seconds, for a
    # big workspace's settings). The watch between commands begins before the command's own
    # watch takes its last look, so that a file saved meanwhile is seen by one of them.
    import tools.bash as bash_tool
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap

    workspace = gap_workspace(tmp_path)
    box = Bubblewrap()
    judged_at_the_end = bash_tool.what_was_lost

    def the_person_pastes_it_meanwhile(*args, **kwargs):
        (workspace / "config" / "settings.json").write_text(SETTINGS)
        return judged_at_the_end(*args, **kwargs)

    async def two_commands() -> str:
        monkeypatch.setattr(bash_tool, "what_was_lost", the_person_pastes_it_meanwhile)
        await run_bash(workspace, "true", sandbox=box)
        monkeypatch.setattr(bash_tool, "what_was_lost", judged_at_the_end)
        return await run_bash(workspace, SHOW, sandbox=box)

    read_back(asyncio.run(two_commands()))


@needs_bwrap
def test_a_key_saved_while_a_background_task_runs_is_hidden_from_the_next_command(
    tmp_path, planloop_key
):
    # A task's start ends the watch between commands, as a command's does; the task is no
    # command of the model's, so the watch begins again for the next one.
    from tools.base import ToolError
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap
    from tools.tasks import TaskManager

    workspace = gap_workspace(tmp_path)
    box = Bubblewrap()
    manager = TaskManager(tmp_path / "session.tasks", box)

    async def a_task_then_a_command() -> str:
        task = await manager.start(workspace, "sleep 60", 120, box)
        try:
            (workspace / "config" / "settings.json").write_text(SETTINGS)
            try:
                return await run_bash(workspace, SHOW, sandbox=box)
            except ToolError as refused:
                return str(refused)
        finally:
            manager.stop(task.id)
            await manager.shutdown()

    shown = asyncio.run(a_task_then_a_command())
    # Hidden, or, since the task could move that file while the sandbox that hides it is
    # made (it existed before the task, which holds nothing there), not run at all.
    if "did not run" in shown:
        assert "config/settings.json" in shown and API_KEY not in shown
    else:
        read_back(shown)


@needs_bwrap
def test_a_key_saved_as_a_background_task_ends_is_hidden_from_the_next_command(
    tmp_path, planloop_key, monkeypatch
):
    import tools.tasks as tasks_module
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap
    from tools.tasks import TaskManager

    workspace = gap_workspace(tmp_path)
    box = Bubblewrap()
    manager = TaskManager(tmp_path / "session.tasks", box)
    judged_at_the_end = tasks_module.what_was_lost

    def the_person_pastes_it_meanwhile(*args, **kwargs):
        (workspace / "config" / "settings.json").write_text(SETTINGS)
        return judged_at_the_end(*args, **kwargs)

    async def a_task_that_ends_then_a_command() -> str:
        task = await manager.start(workspace, "true", 120, box)
        monkeypatch.setattr(tasks_module, "what_was_lost", the_person_pastes_it_meanwhile)
        await task.done.wait()  # its end: the last look, then its view worked out again
        monkeypatch.setattr(tasks_module, "what_was_lost", judged_at_the_end)
        return await run_bash(workspace, SHOW, sandbox=box)

    read_back(asyncio.run(a_task_that_ends_then_a_command()))


def test_an_error_while_the_watch_reads_its_events_counts_as_lost_track(
    tmp_path, planloop_key, monkeypatch
):
    # (A link removed while it is followed, in the middle of a batch of events: the rest of
    # the batch, read from the kernel already, would be lost unseen.)
    def fails(*_args, **_kwargs):
        raise FileNotFoundError("the link went while it was followed")

    between.watch_until_the_next_command(tmp_path)
    monkeypatch.setattr(folder_watch.FolderWatch, "_note", fails)
    (tmp_path / "notes.txt").write_text("x")
    told: list[str] = []
    between.key_files_written_between(tmp_path, told.append)
    assert told == [between.LOST_TRACK_NOTICE]
    between.key_files_written_while_it_started(tmp_path)


def test_a_workspace_whose_watch_was_let_go_is_searched_again_before_its_next_command(
    tmp_path, planloop_key
):
    # One process, more workspaces than watches kept (an embedder's agents): the oldest is let
    # go, and a key saved there meanwhile is found by searching it again, as at start.
    folders = [tmp_path / f"w{index}" for index in range(between.MAX_WATCHED + 1)]
    for folder in folders:
        folder.mkdir()
        between.watch_until_the_next_command(folder)
    first = folders[0]
    assert str(first) not in between._watches  # let go for the newest
    (first / "config").mkdir()
    (first / "config" / "local.json").write_text(SETTINGS)
    found = between.key_files_written_between(first, print)
    assert [path.resolve() for path in found] == [(first / "config" / "local.json").resolve()]
    for folder in folders:
        between.key_files_written_while_it_started(folder)


PLANTED_PTH = (
    "mkdir -p venv/bin venv/lib/python3.12/site-packages && echo 'home = /usr/bin' > "
    "venv/pyvenv.cfg && printf 'import os\\n/a\\000b\\n' > venv/lib/python3.12/site-packages/z.pth"
)


def a_look_that_fails(*_args, **_kwargs):
    raise ValueError("embedded null byte")  # what a file no routine expected once raised


@needs_bwrap
def test_a_command_whose_end_cannot_be_looked_at_has_its_output_withheld(tmp_path, planloop_key):
    # What the command could read is not known, so its output counts as holding the key,
    # and the run is stopped (the exposure middleware reads `exposures`).
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap

    workspace = gap_workspace(tmp_path)
    box = Bubblewrap()
    box.after_command = a_look_that_fails
    result = asyncio.run(run_bash(workspace, "echo what-it-printed", sandbox=box))
    assert "its output is withheld" in result and "what-it-printed" not in result, result
    assert any("could not check" in line for line in box.exposures)


@needs_bwrap
def test_a_task_whose_end_cannot_be_looked_at_has_its_output_withheld(tmp_path, planloop_key):
    from tools.sandbox import Bubblewrap
    from tools.tasks import TaskManager

    workspace = gap_workspace(tmp_path)
    box = Bubblewrap()
    manager = TaskManager(tmp_path / "session.tasks", box)

    async def a_task() -> object:
        task = await manager.start(workspace, "echo what-it-printed", 120, box)
        box.after_command = a_look_that_fails
        await asyncio.wait_for(task.done.wait(), 120)  # (a failed look once left it unended)
        return task

    task = asyncio.run(a_task())
    assert task.withheld and "could not check" in task.withheld
    assert any("could not check" in line for line in box.exposures)


@needs_bwrap
def test_a_pth_line_with_a_nul_is_reported_and_fails_no_look(tmp_path, planloop_key):
    # (It once made every look fail: at start, and after the command that wrote it.)
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap

    workspace = gap_workspace(tmp_path)
    box = Bubblewrap()
    result = asyncio.run(run_bash(workspace, f"{PLANTED_PTH}; echo made", sandbox=box))
    assert "made" in result and "z.pth is new" in result, result
    again = asyncio.run(run_bash(workspace, "echo again", sandbox=box))
    assert again.startswith("again"), again


@needs_bwrap
@pytest.mark.parametrize(
    ("name", "content"),
    [
        (".mcp.json", '{"mcpServers": {"x": {"command": "sh", "args": ["./a\\u0000b"]}}}'),
        (".envrc", "source_env a\x00b\n"),
        (".git", "gitdir: a\x00b\n"),
        (".claude/settings.json", '{"hooks": {"Stop": [{"hooks": [{"command": "./h\\ud800"}]}]}}'),
    ],
)
def test_settings_naming_a_path_no_file_can_have_make_commands_ask(
    tmp_path, planloop_key, name, content
):
    # (They once made planloop fail to start, and every command after; then, the check before
    # each tool call while a task ran.)
    from tools.base import ToolError
    from tools.sandbox import Bubblewrap

    (tmp_path / name).parent.mkdir(exist_ok=True)
    (tmp_path / name).write_text(content)
    box = Bubblewrap()
    box.before_command(tmp_path)
    assert box.must_ask, "commands must ask"
    box.view_now(tmp_path)  # (the check before each tool call while a task runs)
    try:
        box.wrap(tmp_path, "true")  # an approved command
    except ToolError as refused:  # one clear line, not a ValueError
        assert "names a path no file can have" in str(refused)


@needs_bwrap
def test_a_command_that_leaves_no_sandbox_to_compare_with_has_its_output_withheld(
    tmp_path, planloop_key
):
    # As a task's is: `wrap` refusing at the end (a copy of the key under a name the search
    # missed) leaves what it could read unknown.
    from tools.bash import run_bash
    from tools.sandbox import Bubblewrap

    workspace = gap_workspace(tmp_path)
    box = Bubblewrap()
    box.view_now = lambda _workspace: None
    result = asyncio.run(run_bash(workspace, "echo what-it-printed", sandbox=box))
    assert "its output is withheld" in result and "what-it-printed" not in result, result
    assert any("no sandbox could be made now" in line for line in box.exposures), box.exposures


@needs_bwrap
def test_an_approved_task_runs_on_after_commands_came_to_ask(tmp_path, planloop_key):
    # Commands ask from the start (a helper the agent settings name is missing); the person
    # approved the task, and its sandbox hides what any sandbox made now would: it is not
    # stopped at the next tool call as if nothing could be told.
    from tools.sandbox import Bubblewrap
    from tools.tasks import RUNNING, TaskManager

    workspace = gap_workspace(tmp_path)
    (workspace / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "./not-made"}}}')
    box = Bubblewrap()
    box.before_command(workspace)
    assert box.must_ask
    manager = TaskManager(tmp_path / "session.tasks", box)

    async def a_task() -> object:
        task = await manager.start(workspace, "echo started; exec sleep 120", 180, box)
        while task.output.total < len("started"):
            await asyncio.sleep(0.05)
        manager.check_running()
        status, withheld = task.status, task.withheld
        manager.stop(task.id)
        return status, withheld

    status, withheld = asyncio.run(a_task())
    assert (status, withheld) == (RUNNING, None)
    assert box.exposures == []
