"""A workspace too big for the search for copies of the key: commands ask instead of running.

A cloned repository chooses how many files it ships. Past the search's bounds, the file the
person keeps the key in, a few folders down, was never read, never hidden, and a sandboxed
command printed it reversed. The sandbox cannot promise what it has not looked at, so commands
ask, as they do when the scan of protected paths cannot finish.
"""

from __future__ import annotations

import os
from pathlib import Path

from conftest import API_KEY
from test_hostile_pass4 import needs_bwrap
from test_key_copies import assert_no_key, layout, plant, run_steal
from test_key_copies_more import show_each

import tools.key_copies as key_copies

__all__ = ["layout"]  # a fixture, used by name

SECRET_FILE = "src/main/resources/application.properties"


@needs_bwrap
def test_a_repository_too_big_to_search_makes_commands_ask(api, env, layout):
    user, workspace, planloop_home, home = layout
    junk = workspace / "assets"
    junk.mkdir()
    for index in range(key_copies.SEARCH_FILES + 100):
        (junk / f"f{index}.txt").write_bytes(b"x")
    plant(workspace, {SECRET_FILE: f"anthropic.api-key={API_KEY}\n"}, user)  # owns all
    result, (output,) = run_steal(
        api, env, user, workspace, planloop_home, home, show_each([SECRET_FILE])
    )
    assert "the command did not run" in output
    # Which bound stops it first is the machine's to say: the file count, or (under load) the
    # time bound before it.
    files_bound = f"more than {key_copies.SEARCH_FILES} files" in output
    assert files_bound or f"stopped ({key_copies.SEARCH_SECONDS:g} s)" in output, output
    assert "sandboxed commands ask before they run" in result.stderr
    assert_no_key(output + result.stdout + result.stderr)
    assert (workspace / SECRET_FILE).read_text() == f"anthropic.api-key={API_KEY}\n"


def stopped(place: Path, yours: bool, folders: list[str], late: bool) -> key_copies.KeyCopySearch:
    search = key_copies.KeyCopySearch((key_copies.Place(place, 5, yours=yours),), (), (b"k" * 40,))
    search.cut_short = "5 s"
    search.unfinished = [place]
    search.left = {place: (folders, late)}
    return search


def test_only_the_workspaces_ordinary_folders_left_unread_count(tmp_path):
    # The workspace's own folders unread: a copy there could be read unseen.
    assert stopped(tmp_path, False, [str(tmp_path / "src")], False).workspace_left() == tmp_path
    # Only its package stores left (a node_modules of 200,000 entries): read last, by rule.
    late = stopped(tmp_path, False, [str(tmp_path / "node_modules")], True)
    assert late.workspace_left() is None
    # Your home cut short: the person is told; it is no reason for the workspace's commands.
    assert stopped(tmp_path, True, [str(tmp_path / "code")], False).workspace_left() is None


KEY = b"sk-ant-api03-" + b"searchcut" * 9
SECRETS = key_copies.search_secrets_of([KEY.decode()])


def searched_workspace(workspace: Path) -> key_copies.KeyCopySearch:
    search = key_copies.KeyCopySearch((key_copies.Place(workspace, 8, yours=False),), (), SECRETS)
    search.run()
    return search


def a_big_package_store(workspace: Path, files: int) -> None:
    store = workspace / "node_modules"
    store.mkdir(parents=True)
    for index in range(files):
        (store / f"f{index}.js").write_bytes(b"x")


def test_a_marker_the_repository_put_beside_a_folder_does_not_send_it_last(tmp_path, monkeypatch):
    # config/CACHEDIR.TAG, or a pyvenv.cfg at the top making lib/ a venv's library: the
    # folder the person fills in was read after node_modules, past the bound, and unread
    # "stores" only did not make commands ask.
    monkeypatch.setattr(key_copies, "SEARCH_FILES", 200)
    for marker, config in (
        ("config/CACHEDIR.TAG", "config/settings.json"),
        ("pyvenv.cfg", "lib/x.js"),
    ):
        workspace = tmp_path / marker.replace("/", "-")
        a_big_package_store(workspace, 300)
        (workspace / marker).parent.mkdir(parents=True, exist_ok=True)
        (workspace / marker).write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
        (workspace / "bin").mkdir()
        (workspace / config).parent.mkdir(parents=True, exist_ok=True)
        (workspace / config).write_bytes(b'{"key": "' + KEY + b'"}\n')
        search = searched_workspace(workspace)
        assert workspace / config in search.found, marker
        assert search.workspace_left() is None  # only node_modules left: read last by name


def test_hard_links_to_one_big_file_are_read_once(tmp_path, monkeypatch):
    # Sixty names of one 2 MiB file spent the bytes bound sixty times over, before the
    # person's file was reached.
    monkeypatch.setattr(key_copies, "SEARCH_BYTES", 8 * 1024 * 1024)
    workspace = tmp_path / "work"
    (workspace / "a").mkdir(parents=True)
    big = workspace / "a" / "big.bin"
    big.write_bytes(os.urandom(2 * 1024 * 1024))
    os.utime(big, ns=(1, 1))
    for index in range(60):
        os.link(big, workspace / "a" / f"name{index}.bin")
    (workspace / "z").mkdir()
    (workspace / "z" / "settings.json").write_bytes(b'{"key": "' + KEY + b'"}\n')
    search = searched_workspace(workspace)
    assert search.found == [workspace / "z" / "settings.json"]
    assert search.bytes_read < 3 * 1024 * 1024
