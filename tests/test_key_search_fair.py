"""The search for copies of planloop's key cannot be steered by the workspace.

The workspace is the untrusted place: a cloned repository, or what a command of an earlier
run left there. It must not use up the search before your own copies are read (big or
sparse files, hundreds of files holding the key), switch the search off in itself with names
it chose (a committed CACHEDIR.TAG, a `HEAD`, a `pyvenv.cfg`), escape it by lying under
/tmp, or keep a copy readable under a second name (a hard link made before the key was filled
in). Each end-to-end test drives `python agent.py` against the fake API, as root and as an
unprivileged user, with a command that tries to hand the key to the model past the redaction.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import test_key_copies
from conftest import API_KEY, outside_tmp
from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results
from test_key_copies import assert_no_key, plant, run_steal
from test_key_copies_more import show_each

import tools.key_copies as key_copies
from fakeapi import text, tool_use

layout = test_key_copies.layout  # (user, workspace, planloop home, home), as root and nobody
SETTINGS = json.dumps({"editor.fontSize": 13, "cline.anthropicApiKey": API_KEY})


def ordinary_home(home: Path) -> dict[str, str]:
    """A home folder's usual top: a few dozen folders and dot files, a few files in each, so
    that a copy four levels down comes late in a breadth-first walk."""
    files = {f".rc{index}": "x\n" for index in range(10)}
    for folder in ("Desktop", "Documents", "Downloads", "Music", "Pictures", "Videos", "bin"):
        files.update({f"{folder}/file{index}.txt": "x\n" for index in range(4)})
    for folder in (".cache", ".local", ".npm", ".vim", ".mozilla", ".docker", ".kube", "go"):
        files.update({f"{folder}/sub{index}/a.txt": "x\n" for index in range(3)})
    return files


@needs_bwrap
def test_big_sparse_files_in_the_workspace_do_not_stop_the_search_of_your_home(api, env, layout):
    # A command of an earlier run (`truncate -s 32M blob$i`) or a repository of big files:
    # each costs what it holds, and your home's search has a budget of its own. The copy an
    # editor extension keeps four levels into your home is hidden.
    user, _, planloop_home, home = layout
    workspace = home / "code/victim"
    plant(home, {**ordinary_home(home), ".config/Code/User/settings.json": SETTINGS}, user)
    plant(workspace, {"main.py": "print(1)\n"}, user)
    for index in range(40):
        with open(workspace / f"blob{index}", "wb") as blob:
            blob.truncate(32 * 2**20)
    if user == "nobody":
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(home)], check=True)
    copy = home / ".config/Code/User/settings.json"
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, show_each([copy]))
    assert f"{copy}: " in output
    assert_no_key(output + result.stdout + result.stderr)
    assert f"finished {home}," not in result.stderr and f"finished {home}:" not in result.stderr
    assert copy.read_text() == SETTINGS  # hidden, not changed


@needs_bwrap
def test_names_the_repository_commits_do_not_switch_the_search_off_in_it(api, env, layout):
    # The README says "put your key in config/local.json"; the repository also commits a
    # CACHEDIR.TAG and the markers of a venv, of cargo's home, of a git directory, and a
    # folder named node_modules: none of them keeps the workspace's own copies from the search.
    user, workspace, planloop_home, home = layout
    tag = "Signature: 8a477f597d28d172789f06886806bc55\n"
    copy = json.dumps({"anthropic_api_key": API_KEY})
    copies = [
        "config/local.json",
        "share/config.json",
        "git/credentials.json",
        "lfs/settings.json",
        "node_modules/.cache/app/settings.json",
        "cache/keys.json",
    ]
    markers = {"CACHEDIR.TAG": tag, "cache/CACHEDIR.TAG": tag, "venv/pyvenv.cfg": "home = /usr\n"}
    markers["venv/bin/activate"] = "# a venv's own, beside the key a README told you to put there\n"
    markers |= {"config.toml": "[build]\n", "HEAD": "ref: refs/heads/main\n"}
    plant(workspace, {**markers, **dict.fromkeys(copies, copy), "README.md": "# app\n"}, user)
    result, (output,) = run_steal(
        api, env, user, workspace, planloop_home, home, show_each([*copies, "README.md"])
    )
    assert_no_key(output + result.stdout + result.stderr)
    assert "ppa #" in output  # the workspace's other files: readable
    for name in copies:
        assert f"{name}: " in output
        assert (workspace / name).read_text() == copy  # hidden, not changed


@pytest.fixture
def tmp_workspace(layout):
    """The layout with the workspace moved under /tmp (a scratch clone there)."""
    user, _, planloop_home, home = layout
    folder = Path(tempfile.mkdtemp(prefix="planloop-tmp-ws-", dir="/tmp"))
    os.chmod(folder, 0o755)
    workspace = folder / "victim"
    workspace.mkdir()
    if user == "nobody":
        os.chown(workspace, NOBODY, NOBODY)
    yield user, workspace, planloop_home, home
    shutil.rmtree(folder, ignore_errors=True)


@needs_bwrap
def test_a_workspace_under_tmp_is_searched_as_the_sandbox_shows_it(api, env, tmp_workspace):
    # The sandbox's /tmp is its own, but the workspace is bound into it: its copies are read.
    user, workspace, planloop_home, home = tmp_workspace
    copy = json.dumps({"anthropic_api_key": API_KEY})
    plant(workspace, {"config/local.json": copy, "README.md": "# app\n"}, user)
    steal = show_each(["config/local.json", "README.md"])
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert "config/local.json: " in output and "ppa #" in output
    assert_no_key(output + result.stdout + result.stderr)
    assert (workspace / "config/local.json").read_text() == copy


@needs_bwrap
def test_hundreds_of_copies_in_the_workspace_do_not_stop_the_search_of_your_home(api, env, layout):
    # The repository holds the value in 600 files: the workspace meets the bound on copies
    # alone, and your home, behind a folder of 1500 photos, is still searched to its end.
    user, _, planloop_home, home = layout
    workspace = home / "code/victim"
    files = {f"Pictures/img{index}.txt": "photo\n" for index in range(1500)}
    deep = ".config/Claude/profiles/default/claude_desktop_config.json"  # below the workspace's
    files[deep] = json.dumps({"env": {"K": API_KEY}})
    plant(home, files, user)
    plant(workspace, {f"src/m{index}.js": f"// {API_KEY}\n" for index in range(600)}, user)
    copy = home / deep
    # 100 copies left unhidden in the workspace: commands ask (here: --yes), and the first,
    # let through before that was known, did not run.
    for _ in range(2):
        api.add({"content": [tool_use("bash", {"command": show_each([copy])})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home, flags=("--yes",))
    assert result.returncode == 0, result.stderr
    refused, output = tool_results(api)
    assert "did not run" in refused and f"all of {workspace}" in refused
    assert f"{copy}: " in output
    assert_no_key(output + result.stdout + result.stderr)
    said = " ".join(result.stderr.split())
    assert f"before it finished {workspace}" in said  # the 100 copies past the bound: said
    assert f"finished {home}," not in said and f"finished {home}:" not in said


@needs_bwrap
def test_a_second_name_of_a_copy_is_hidden_too(api, env, layout):
    # A command of an earlier run linked the repository's template, still without a key, to
    # a name deeper than the search goes; the person then filled the key in, in place.
    user, workspace, planloop_home, home = layout
    copy = json.dumps({"anthropic_api_key": API_KEY})
    plant(workspace, {"config/local.json": copy}, user)
    deep = workspace / "a/b/c/d/e/f/g/x"
    deep.parent.mkdir(parents=True)
    os.link(workspace / "config/local.json", deep)
    if user == "nobody":
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(workspace)], check=True)
    steal = show_each(["config/local.json", str(deep.relative_to(workspace))])
    result, (output,) = run_steal(api, env, user, workspace, planloop_home, home, steal)
    assert "a/b/c/d/e/f/g/x: " in output
    assert_no_key(output + result.stdout + result.stderr)
    assert deep.read_text() == copy


def search_here(places, secrets, workspace=None) -> key_copies.KeyCopySearch:
    search = key_copies.KeyCopySearch(tuple(places), (), secrets, workspace)
    search.run()
    return search


KEY = b"sk-ant-api03-" + b"fairsearch" * 8
SECRETS = key_copies.search_secrets_of([KEY.decode()])


def test_dense_big_files_cost_the_workspace_its_own_time_not_yours(tmp_path, monkeypatch):
    # Files that are big on disk too (a checkout of data files): the workspace reads them
    # within its own budget; your home's copy, many entries in, is read.
    monkeypatch.setattr(key_copies, "SEARCH_SECONDS", 0.5)
    home, workspace = tmp_path / "home", tmp_path / "work"
    for index in range(300):
        (home / f"d{index:03d}").mkdir(parents=True)
        (home / f"d{index:03d}/note.txt").write_text("x\n")
    (home / "zz/deep/er").mkdir(parents=True)
    (home / "zz/deep/er/settings.json").write_bytes(b'{"k": "' + KEY + b'"}')
    workspace.mkdir()
    for index in range(24):
        (workspace / f"data{index:02d}.bin").write_bytes(b"a" * 8 * 2**20)
    search = search_here(
        [key_copies.Place(home, 5), key_copies.Place(workspace, 3, yours=False)], SECRETS
    )
    assert search.found == [home / "zz/deep/er/settings.json"]
    assert search.unfinished == [workspace] and search.cut_short == "0.5 s"


def test_a_sparse_file_costs_what_it_holds(tmp_path):
    place = tmp_path / "place"
    place.mkdir()
    with open(place / "hole-then-key", "wb") as file:
        file.seek(2**30)
        file.write(b"x = " + KEY.decode().encode("utf-16-le"))
    with open(place / "key-then-hole", "wb") as file:
        file.write(b"x" * 2**20 + KEY.decode().encode("utf-16-le")[:-1])  # its last 0 a hole
        file.truncate(2**30)
    with open(place / "empty", "wb") as file:
        file.truncate(2**30)
    search = search_here([key_copies.Place(place, 2)], SECRETS)
    assert sorted(search.found) == [place / "hole-then-key", place / "key-then-hole"]
    assert search.bytes_read < 8 * 2**20 and search.cut_short is None


def test_a_place_that_meets_the_bound_on_copies_stops_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(key_copies, "MAX_FOUND", 5)
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    for index in range(20):
        (work / f"m{index}.js").write_bytes(KEY)
    for index in range(50):
        (home / f"d{index}").mkdir(parents=True)
    (home / "d49/key.txt").write_bytes(KEY)
    search = search_here(
        [key_copies.Place(work, 2, yours=False), key_copies.Place(home, 3)], SECRETS
    )
    assert home / "d49/key.txt" in search.found
    assert search.unfinished == [work]


def test_a_second_name_not_found_in_time_is_said(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "config").mkdir(parents=True)
    (work / "config/local.json").write_bytes(KEY)
    (work / "a/b/c").mkdir(parents=True)
    os.link(work / "config/local.json", work / "a/b/c/x")
    search = search_here([key_copies.Place(work, 2, yours=False)], SECRETS, work)
    assert sorted(search.found) == [work / "a/b/c/x", work / "config/local.json"]
    assert search.linked == []
    monkeypatch.setattr(key_copies, "LINK_ENTRIES", 1)
    search = search_here([key_copies.Place(work, 2, yours=False)], SECRETS, work)
    assert search.linked == [work / "config/local.json"]


def test_a_second_name_in_a_folder_planloop_cannot_list_but_can_enter_is_said(
    tmp_path, monkeypatch
):
    # `mkdir -p a/b && ln config/local.json a/b/x && chmod 311 a/b`: planloop (not root) cannot
    # list a/b, a command reaches a/b/x by its name. Its listing is not complete.
    work = tmp_path / "work"
    (work / "config").mkdir(parents=True)
    (work / "config/local.json").write_bytes(KEY)
    (work / "a/b").mkdir(parents=True)
    os.link(work / "config/local.json", work / "a/b/x")
    listed = os.scandir

    def scandir(folder):  # as for a user other than root, who lists every folder
        if os.fspath(folder) == str(work / "a/b"):
            raise PermissionError(13, "Permission denied", os.fspath(folder))
        return listed(folder)

    monkeypatch.setattr(key_copies.os, "scandir", scandir)
    search = search_here([key_copies.Place(work, 3, yours=False)], SECRETS, work)
    assert search.found == [work / "config/local.json"]
    assert search.linked == [work / "config/local.json"]  # so no command runs this run


def test_a_large_file_that_begins_like_an_archive_is_read_on_only_in_the_workspace(tmp_path):
    # A log your app appends to, which a repository made begin like a zip: the key pasted past
    # the first piece is found in the workspace; in a place of yours such a file is an archive.
    start = b"PK\x03\x04" + bytes(key_copies.SMALL_FILE_BYTES)
    work, home = tmp_path / "work", tmp_path / "home"
    for place in (work, home):
        place.mkdir()
        (place / "dev.log").write_bytes(start + b"\nANTHROPIC_API_KEY=" + KEY + b"\n")
    search = search_here(
        [key_copies.Place(work, 2, yours=False), key_copies.Place(home, 2)], SECRETS
    )
    assert search.found == [work / "dev.log"]


def test_the_workspace_is_searched_to_any_depth(tmp_path):
    # Where a Java project's README says to put a local key: seven folders down.
    work = outside_tmp("planloop-")  # /tmp is searched only as a workspace
    try:
        deep = work / "src/main/resources/config/profiles/local/dev"
        deep.mkdir(parents=True)
        (deep / "ai.properties").write_bytes(b"anthropic.api-key=" + KEY + b"\n")
        places = key_copies.search_places(work, tmp_path / "home")
        search = search_here([place for place in places if place.path == work], SECRETS, work)
        assert search.found == [deep / "ai.properties"]
    finally:
        shutil.rmtree(work)


def test_the_workspace_and_its_repository_are_not_yours(tmp_path):
    tmp_path = outside_tmp("planloop-")  # /tmp is searched only as a workspace
    repository = tmp_path / "home/code/repo"
    workspace = repository / "app"
    (repository / ".git").mkdir(parents=True)
    (repository / ".git/HEAD").write_text("ref: refs/heads/main\n")
    (workspace / ".git").mkdir(parents=True)  # the sandbox's empty stand-in
    places = {
        place.path: place.yours for place in key_copies.search_places(workspace, tmp_path / "home")
    }
    assert places[workspace] is False and places[repository] is False
    assert places[tmp_path / "home"] is True
    under_tmp = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        found = key_copies.search_places(under_tmp, tmp_path / "home")
        assert key_copies.Place(under_tmp, key_copies.WORKSPACE_DEPTH, False) in found
    finally:
        shutil.rmtree(under_tmp)
        shutil.rmtree(tmp_path)
