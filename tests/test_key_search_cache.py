"""What the search for copies of planloop's key remembers between runs, and what it cannot.

A file read by one run and unchanged since is not read again (tools/key_copies.py, the
memory in planloop's home), so a big JavaScript project's node_modules costs its listing, not
its reading, from the second run on, and no notice. The workspace is untrusted: a command of an
earlier run can make files, hard links, and rewrite a file keeping its size and mtime (`touch
-d`); the key can change; the record can be damaged or another user's. None of that may keep a
copy of the key readable. The end-to-end tests drive `python agent.py` against the fake API, as
root and as an unprivileged user.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
import test_key_copies
from conftest import API_KEY
from test_hostile_pass4 import AS_NOBODY, NOBODY, needs_bwrap, run_as, tool_results
from test_key_copies import assert_no_key, plant
from test_key_copies_more import show_each

import tools.key_copies as key_copies
from fakeapi import FakeMessagesAPI, text, tool_use

layout = test_key_copies.layout
COPY = json.dumps({"anthropic_api_key": API_KEY})
TEMPLATE = json.dumps({"anthropic_api_key": "x" * len(API_KEY)})  # the same size
NOTICE = "search for copies of the API key"
HEAD = len(key_copies.MEMORY_MAGIC) + 16 + 32 + 4  # magic, salt, digest, count


@pytest.fixture
def folders(layout):
    """The layout, with planloop's home the user's own (the memory is written there)."""
    user, workspace, planloop_home, home = layout
    if user == "nobody":
        for path in (workspace, planloop_home, home):
            os.chown(path, NOBODY, NOBODY)
    return layout


def run(api, env, user, workspace, planloop_home, home, command: str = "true"):
    """One headless run whose one command is `command`: (result, that command's output)."""
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    return result, tool_results(api)[-1]


def record(planloop_home: Path) -> Path:
    return planloop_home / key_copies.MEMORY_FOLDER / key_copies.MEMORY_NAME


def remembered(planloop_home: Path) -> set[bytes]:
    """The files the record holds, read as it lies (whatever key it was learnt for)."""
    try:
        data = record(planloop_home).read_bytes()
    except OSError:
        return set()
    body = data[HEAD:-32]
    size = key_copies.IDENTITY_BYTES
    return {body[index : index + size] for index in range(0, len(body), size)}


def identity(path: Path) -> bytes:
    return key_copies.identity(os.lstat(path))


def wait_for(state, what: str, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while not state():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.2)


def settle(*paths: Path) -> None:
    """Until the files' last change is old enough to be remembered (CTIME_SETTLED_NS): a file
    changed within its ctime's tick of being read is read again next run."""
    newest = max(os.lstat(path).st_ctime_ns for path in paths)
    wait_for(lambda: time.time_ns() > newest + key_copies.CTIME_SETTLED_NS + 10**8, "settled")


def learnt(planloop_home: Path, *paths: Path) -> None:
    """Until the record holds each of `paths` as it is now."""
    wanted = {identity(path) for path in paths}
    wait_for(lambda: wanted <= remembered(planloop_home), f"{paths} remembered")


def fill_in_place(path: Path, content: str) -> None:
    """Rewrite `path` in place, the same size, its mtime put back (`touch -d`)."""
    before = os.lstat(path)
    with open(path, "r+b") as file:
        file.write(content.encode())
    seconds, nanoseconds = divmod(before.st_mtime_ns, 10**9)
    subprocess.run(["touch", "-d", f"@{seconds}.{nanoseconds:09d}", str(path)], check=True)
    after = os.lstat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def child_starts(user: str) -> bool:
    """Whether planloop, run as `user`, can start the search's child (its interpreter may lie
    where the user cannot reach it: then the search runs in planloop's thread)."""
    prefix = AS_NOBODY if user == "nobody" else []
    return subprocess.run([*prefix, "test", "-x", sys.executable]).returncode == 0


def js_project(workspace: Path, files: int, user: str) -> list[Path]:
    """A JavaScript project: `files` files of packages in node_modules, 60 to a package."""
    made = []
    for index in range(files):
        package = workspace / f"node_modules/pkg{index // 60}" / ("lib", "dist", "")[index % 3]
        package.mkdir(parents=True, exist_ok=True)
        path = package / f"f{index % 60}.js"
        path.write_text(f"module.exports = function f(a) {{ return a + {index}; }};\n" * 20)
        made.append(path)
    plant(workspace, {"package.json": '{"name": "app"}\n', "src/index.js": "f(1)\n"}, user)
    return made


@needs_bwrap
def test_a_file_filled_in_since_with_its_size_and_mtime_kept_is_read_again(api, env, folders):
    # The repository's template, remembered as holding no key, and a hard link an earlier
    # run's command made to it deep in a store. The person pastes the key in, in place, and
    # the mtime is set back: its ctime is not, so it is read again, and hidden at both names.
    user, workspace, planloop_home, home = folders
    plant(workspace, {"config/local.json": TEMPLATE, "README.md": "# app\n"}, user)
    link = workspace / "node_modules/.cache/app/x"
    link.parent.mkdir(parents=True)
    os.link(workspace / "config/local.json", link)
    settle(link)
    run(api, env, user, workspace, planloop_home, home)
    learnt(planloop_home, link)
    fill_in_place(workspace / "config/local.json", COPY)
    names = ["config/local.json", str(link.relative_to(workspace)), "README.md"]
    result, output = run(api, env, user, workspace, planloop_home, home, show_each(names))
    assert "config/local.json: " in output and "node_modules/.cache/app/x: " in output
    assert "ppa #" in output  # what holds no key stays readable
    assert_no_key(output + result.stdout + result.stderr)
    assert link.read_text() == COPY


@needs_bwrap
def test_a_new_key_finds_nothing_remembered(api, env, folders):
    # A file read while planloop used another key holds the new one: what was learnt for the
    # old key says nothing about it.
    user, workspace, planloop_home, home = folders
    plant(workspace, {"config/local.json": COPY, "README.md": "# app\n"}, user)
    settle(workspace / "config/local.json")
    other_key = "other-key-" + "q" * 16
    with FakeMessagesAPI(script=[], api_key=other_key) as other:
        other_env = {**env, "ANTHROPIC_API_KEY": other_key, "ANTHROPIC_BASE_URL": other.base_url}
        run(other, other_env, user, workspace, planloop_home, home)
    learnt(planloop_home, workspace / "config/local.json")  # holds no copy of that key
    steal = show_each(["config/local.json", "README.md"])
    result, output = run(api, env, user, workspace, planloop_home, home, steal)
    assert "config/local.json: " in output and "ppa #" in output
    assert_no_key(output + result.stdout + result.stderr)


@needs_bwrap
def test_a_damaged_or_foreign_record_is_not_believed(api, env, folders):
    # A record that says the file holding the key holds none: damaged (its checksum no longer
    # matches), then whole but another user's. Neither is believed; garbage does not stop
    # planloop either.
    user, workspace, planloop_home, home = folders
    plant(workspace, {"README.md": "# app\n"}, user)
    settle(workspace / "README.md")
    run(api, env, user, workspace, planloop_home, home)
    learnt(planloop_home, workspace / "README.md")
    plant(workspace, {"config/local.json": COPY}, user)
    data = record(planloop_home).read_bytes()
    body = data[:-32]
    (count,) = struct.unpack("<I", body[HEAD - 4 : HEAD])
    forged = body[: HEAD - 4] + (count + 1).to_bytes(4, "little") + body[HEAD:]
    forged += identity(workspace / "config/local.json")
    owner = NOBODY if user == "nobody" else 0
    steal = show_each(["config/local.json", "README.md"])
    for content, owned_by in (
        (b"garbage", owner),
        (forged + data[-32:], owner),  # the old checksum
        (forged + hashlib.sha256(forged).digest(), 0 if user == "nobody" else NOBODY),
    ):
        record(planloop_home).write_bytes(content)
        os.chown(record(planloop_home), owned_by, owned_by)
        os.chmod(record(planloop_home), 0o644)  # readable: only the owner tells it is foreign
        result, output = run(api, env, user, workspace, planloop_home, home, steal)
        assert "config/local.json: " in output and "ppa #" in output
        assert_no_key(output + result.stdout + result.stderr)


KEY = b"sk-ant-api03-" + b"memorytest" * 8
SECRETS = key_copies.search_secrets_of([KEY.decode()])


def search(place: Path, memory: Path) -> key_copies.KeyCopySearch:
    found = key_copies.KeyCopySearch((key_copies.Place(place, 3),), (), SECRETS, memory=memory)
    found.search()
    found.remember()
    return found


def test_a_file_changed_while_or_just_before_it_is_read_is_not_remembered(tmp_path, monkeypatch):
    place, memory = tmp_path / "place", tmp_path / "memory"
    place.mkdir()
    (place / "fresh.txt").write_text("x\n")
    assert search(place, memory).learnt == set()  # changed within the last CTIME_SETTLED_NS
    monkeypatch.setattr(key_copies, "CTIME_SETTLED_NS", 0)
    holds_from = key_copies.KeyCopySearch.holds_from

    def changed_while_read(self, fd, size):
        with open(place / "fresh.txt", "a") as file:  # a command of the workspace, meanwhile
            file.write("y\n")
        return holds_from(self, fd, size)

    monkeypatch.setattr(key_copies.KeyCopySearch, "holds_from", changed_while_read)
    assert search(place, memory).learnt == set()
    monkeypatch.setattr(key_copies.KeyCopySearch, "holds_from", holds_from)
    (place / "fresh.txt").write_text("x\n")
    assert search(place, memory).learnt == {identity(place / "fresh.txt")}
    again = search(place, memory)
    assert again.files_read == 0 and again.learnt == {identity(place / "fresh.txt")}


def test_the_record_holds_no_form_of_the_key_and_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(key_copies, "MEMORY_FILES", 10)
    memory = tmp_path / "memory"
    older = {bytes([index]) * 16 for index in range(8)}
    newer = {bytes([100 + index]) * 16 for index in range(8)}
    key_copies.save_memory(memory, SECRETS, older)
    key_copies.save_memory(memory, SECRETS, newer)
    salt, known = key_copies.load_memory(memory, SECRETS)
    assert len(known) == 10 and newer <= known
    data = memory.read_bytes()
    for secret in SECRETS:
        assert secret not in data
        assert hashlib.sha256(secret).digest() not in data
        assert hashlib.blake2b(secret, digest_size=32).digest() not in data
    another = key_copies.search_secrets_of(["another"])
    assert key_copies.load_memory(memory, another) == (None, set())
    memory.write_bytes(data[:-1])  # cut short
    assert key_copies.load_memory(memory, SECRETS) == (None, set())
    os.symlink(tmp_path / "elsewhere", tmp_path / "link")
    (tmp_path / "elsewhere").write_bytes(data)
    assert key_copies.load_memory(tmp_path / "link", SECRETS) == (None, set())


def test_the_two_searches_saving_at_once_keep_what_both_learnt(tmp_path):
    # Your places' search and the workspace's end together and save together; each save is
    # read, added to and written whole. Side by side, many times over, nothing is lost.
    import multiprocessing

    memory = tmp_path / "memory"
    mine = [{bytes([1, index]) * 8} for index in range(40)]
    theirs = [{bytes([2, index]) * 8} for index in range(40)]

    def saves(sets: list[set[bytes]]) -> None:
        for learnt in sets:
            key_copies.save_memory(memory, SECRETS, learnt)

    children = [multiprocessing.get_context("fork").Process(target=saves, args=(sets,))
                for sets in (mine, theirs)]  # fmt: skip
    for child in children:
        child.start()
    for child in children:
        child.join()
    _, known = key_copies.load_memory(memory, SECRETS)
    assert known == set().union(*mine, *theirs)


def test_the_notice_names_the_stores_left_on_one_line(tmp_path):
    place = tmp_path / "work"
    search = key_copies.KeyCopySearch((), (), SECRETS)
    search.cut_short = "5 s"
    search.unfinished = [place]
    search.left = {place: ([str(place / "node_modules"), str(place / "cache")], True)}
    notice = key_copies.cut_short_notice(search)
    assert "\n" not in notice
    assert f"finished {place} (left: node_modules, cache; files tools wrote, read last)" in notice
    search.left = {place: ([str(place / "src")], False)}
    assert "stays readable to commands" in key_copies.cut_short_notice(search)
