"""The order of the sandbox's mounts, and package folders that are links.

bwrap mounts in the order of its argv, and a folder bound from the host (by path or from a
descriptor) shows the host's files, not the mounts made inside it before. So a file that holds
planloop's key, emptied first and then covered by a read-only bind of its folder
(`.vscode/.env`, Continue's `.continue/.env`), would be read whole. Every mount that empties a
path comes after every bind that could cover it, and `wrap` refuses to run a command if that
ever fails to hold.

python's `site` follows a `site-packages` that is a link; node follows a `node_modules` that is
one. Such a folder is looked into like a real one, and one a command turns into a link is told.
"""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

import pytest
from conftest import API_KEY, run_cli
from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results, user_folders
from test_python_start import SITE, make_environment

import tools.sandbox
from fakeapi import text, tool_use
from tools.base import ToolError
from tools.sandbox import Bubblewrap, emptied_then_covered, in_mount_order, private_folder

__all__ = ["user_folders"]  # a fixture, used by name below

KEY_LINE = f"ANTHROPIC_API_KEY={API_KEY}\n"


def give_to(user: str, *paths: Path) -> None:
    if user == "nobody":
        subprocess.run(["chown", "-hR", f"{NOBODY}:{NOBODY}", *map(str, paths)], check=True)


def key_files(workspace: Path) -> list[str]:
    """The key where people keep it beside their editor's and other agents' settings, each in
    a folder the sandbox binds read-only as a whole; and a top-level `.env` linking into one."""
    for folder in (".vscode", ".continue", ".venv/bin"):
        (workspace / folder).mkdir(parents=True)
        (workspace / folder / ".env").write_text(KEY_LINE)
    (workspace / ".venv/pyvenv.cfg").write_text("home = /usr/bin\n")
    (workspace / ".vscode/secrets.env").write_text(KEY_LINE)
    (workspace / ".env").symlink_to(".vscode/secrets.env")
    return [".vscode/.env", ".continue/.env", ".venv/bin/.env", ".env", ".vscode/secrets.env"]


@needs_bwrap
def test_a_key_file_inside_a_folder_bound_read_only_reads_as_empty(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    files = key_files(workspace)
    give_to(user, workspace)
    # Reversed and encoded: the tool result's redaction knows the key only as it is.
    read = "; ".join(
        f'echo "{name}: $(wc -c < {name}) $(rev {name}) $(base64 -w0 {name})"' for name in files
    )
    steal = f"{read}; cat {' '.join(files)} | rev > copied.txt"
    api.add({"content": [tool_use("bash", {"command": steal})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "[exit code: 0]" in output
    for name in files:
        assert f"{name}: 0  \n" in output, output
    for shape in (API_KEY, API_KEY[::-1], base64.b64encode(KEY_LINE.encode()).decode()):
        assert shape not in output and shape not in result.stderr
    assert (workspace / "copied.txt").read_text() == ""
    for name in files:  # the person's files stay as they were
        assert (workspace / name).read_text() == KEY_LINE


def bwrap_mounts(argv: list[str]) -> list[str]:
    """The mounts of a wrapped command's argv: from bwrap's first option to its last mount."""
    start = argv.index("--ro-bind")
    return argv[start : argv.index("/dev", start) + 1]


def test_every_emptying_mount_comes_after_the_binds_that_would_cover_it(workspace, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    key_files(workspace)
    root = workspace.resolve()
    argv, _ = Bubblewrap(user_namespace=False).wrap(root, "true")
    mounts = bwrap_mounts(argv)
    assert emptied_then_covered(mounts) is None

    def position(words: list[str]) -> int:
        return next(i for i in range(len(mounts)) if mounts[i : i + len(words)] == words)

    empty = str(private_folder() / "empty")
    held = {".vscode/.env": ".vscode", ".continue/.env": ".continue", ".venv/bin/.env": ".venv/bin"}
    for name, folder in {**held, ".env": ".vscode"}.items():
        hidden = position(["--ro-bind", empty, str(root / name)])
        bound = position(["--ro-bind-fd", f"@open:{root / folder}", str(root / folder)])
        assert bound < hidden, (name, mounts)


def test_the_check_finds_an_emptied_path_a_later_bind_brings_back():
    empty = str(private_folder() / "empty")
    covered = [
        "--ro-bind",
        "/",
        "/",
        "--ro-bind",
        empty,
        "/etc/hostname",
        "--ro-bind",
        "/etc",
        "/etc",
    ]
    assert "/etc/hostname would be emptied" in emptied_then_covered(covered)
    folder = ["--tmpfs", "/srv/secret", "--remount-ro", "/srv/secret", "--bind", "/srv", "/srv"]
    assert "/srv/secret would be emptied" in emptied_then_covered(folder)
    # A fresh tmpfs or /proc over it shows nothing of the host's: no problem.
    assert emptied_then_covered(["--ro-bind", empty, "/tmp/x", "--tmpfs", "/tmp"]) is None
    assert emptied_then_covered(["--ro-bind", empty, "/etc/x", "--ro-bind", "/usr", "/usr"]) is None
    # An option it does not know cannot be placed: that is a problem too.
    assert "could not be checked" in emptied_then_covered(["--dir", "/srv/b"])
    # A view of a home (tools/sandbox.py `home_views`): its tmpfs, the entries bound back onto it
    # and its own `--remount-ro` bring back nothing it hides; a bind of the home after it would.
    view = ["--tmpfs", "/home/you", "--ro-bind", empty, "/home/you/.netrc"]
    view += ["--ro-bind-try", "/home/you/code", "/home/you/code"]
    view += ["--symlink", "code", "/home/you/c"]
    view += ["--remount-ro", "/home/you"]
    assert emptied_then_covered(view) is None
    again = emptied_then_covered([*view, "--ro-bind", "/home/you", "/home/you"])
    assert "/home/you/.netrc would be emptied" in again
    assert emptied_then_covered(in_mount_order(covered)) is None
    assert emptied_then_covered(in_mount_order(folder)) is None


def test_the_order_puts_pins_first_and_read_only_binds_outermost_first(tmp_path):
    empty = str(private_folder() / "empty")
    (tmp_path / "a/b").mkdir(parents=True)
    a, b = str(tmp_path / "a"), str(tmp_path / "a/b")
    words = [
        *["--ro-bind", empty, f"{b}/.env"],
        *["--ro-bind-fd", f"@open:{b}/d", f"{b}/d"],
        *["--tmpfs", f"{a}/hooks", "--remount-ro", f"{a}/hooks"],
        *["--ro-bind-fd", f"@open:{b}", b],
        *["--bind-fd", f"@pin:{a}", a],
    ]
    assert in_mount_order(words) == [
        *["--bind-fd", f"@pin:{a}", a],
        *["--ro-bind-fd", f"@open:{b}", b],
        *["--ro-bind-fd", f"@open:{b}/d", f"{b}/d"],
        *["--ro-bind", empty, f"{b}/.env"],
        *["--tmpfs", f"{a}/hooks", "--remount-ro", f"{a}/hooks"],
    ]


def test_wrap_refuses_a_command_whose_mounts_would_show_a_hidden_key(workspace, monkeypatch):
    # Should the mounts ever be put in the wrong order, the command does not run at all.
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    key_files(workspace)
    monkeypatch.setattr(tools.sandbox, "in_mount_order", lambda words: words)
    with pytest.raises(ToolError, match=r"\.env would be emptied, then bound again"):
        Bubblewrap(user_namespace=False).wrap(workspace, "true")


@needs_bwrap
def test_a_site_packages_turned_into_a_link_is_reported_with_what_it_holds(api, env, user_folders):
    # The command moves site-packages aside and links it back: python follows the link and
    # runs the .pth file there at every start of the environment.
    user, workspace, planloop_home, home = user_folders
    make_environment(workspace)
    give_to(user, workspace)
    plant = (
        "cd python/lib/python3.11 && mv site-packages sp && ln -s sp site-packages && "
        "echo 'import os; os.system(\"touch ~/PWNED\")' > sp/zz_evil.pth && echo planted"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("bash", {"command": "echo a quiet command"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, second = tool_results(api)
    assert "planted" in first
    assert f"[{SITE} is now a link. It was kept, and the user was told" in first
    assert f"[{SITE}/zz_evil.pth is new. It was kept" in first
    assert "was told" not in second  # said once
    terminal = " ".join(result.stderr.split())
    assert f"{SITE} (a site-packages folder made a link) appeared while a command ran" in terminal
    assert f"{SITE}/zz_evil.pth (a new python start-up file)" in terminal
    assert (workspace / SITE).is_symlink()  # kept: nothing of the person's is deleted


def test_a_start_up_file_behind_a_linked_site_packages_is_reported(workspace):
    # The person's own layout: site-packages links to a folder elsewhere in the workspace.
    (workspace / SITE).parent.mkdir(parents=True)
    (workspace / "shared-site").mkdir()
    (workspace / SITE).symlink_to("../../../shared-site")
    sandbox = Bubblewrap(user_namespace=False)
    before = sandbox.before_command(workspace)
    assert workspace.resolve() / SITE in before.package_roots
    (workspace / "shared-site/zz.pth").write_text("import os\n")
    notes = sandbox.after_command(workspace, before)
    assert any(f"{SITE}/zz.pth is new" in note for note in notes), notes
    assert not any("is now a link" in note for note in notes)  # it was one already


def test_a_package_folder_linked_outside_the_workspace_is_not_looked_into(workspace, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (workspace / "node_modules").symlink_to(outside)
    scan = Bubblewrap(user_namespace=False).before_command(workspace)
    assert scan.package_roots == []  # read-only in the sandbox already
    assert scan.package_links == {workspace.resolve() / "node_modules"}


@needs_bwrap
def test_a_linked_node_modules_of_hard_links_stays_read_only(api, env, user_folders):
    # pnpm's and bun's default: each package file is a hard link to their store outside the
    # workspace. Reached through a linked node_modules, it is held like a real one: written in
    # place, the store, and every project installed from it, would change. A site-packages
    # a command makes beside it changes nothing.
    user, workspace, planloop_home, home = user_folders
    store = workspace.parent / "store"
    store.mkdir()
    (store / "index.js").write_text("module.exports = 1;\n")
    package = workspace / "deps/modules/left-pad"
    package.mkdir(parents=True)
    os.link(store / "index.js", package / "index.js")
    (workspace / "node_modules").symlink_to("deps/modules")
    give_to(user, workspace, store)
    api.add({"content": [tool_use("bash", {"command": "mkdir site-packages"})]})
    write = 'echo \'require("child_process").exec("id")\' >> node_modules/left-pad/index.js'
    api.add({"content": [tool_use("bash", {"command": write})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, second = tool_results(api)
    assert "node_modules is read-only: its files are hard links" in first
    assert "Read-only file system" in second, second
    assert (store / "index.js").read_text() == "module.exports = 1;\n"


@needs_bwrap
def test_a_planloop_home_inside_the_workspace_cannot_be_moved_out_of_its_hiding(
    api, env, user_folders
):
    # The sandbox hides the home where it is; had a command moved its folder away (`mv state
    # state2`), planloop would make a new empty home there, and the next sandbox would hide
    # that one and leave the real one, with every conversation, open under its new name.
    user, workspace, _, home = user_folders
    give_to(user, workspace)
    move = "mv state state2; echo moved=$?; ls state2/home/sessions 2>&1 | head -c 300"
    api.add({"content": [tool_use("bash", {"command": move})]})
    api.add({"content": [tool_use("bash", {"command": "ls -A state/home; echo listed"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": "state/home"}, workspace, home)
    assert result.returncode == 0, result.stderr
    moved, listed = tool_results(api)
    assert "moved=1" in moved and "Device or resource busy" in moved, moved
    assert listed.startswith("listed"), listed  # the home reads as empty in the sandbox
    assert not (workspace / "state2").exists()
    assert [p.name for p in (workspace / "state/home/sessions").iterdir()], "the log is there"


@needs_bwrap
def test_a_planloop_home_reached_through_a_link_in_the_workspace_makes_commands_ask(
    api, env, workspace
):
    # A link cannot be held read-only: a command could point it at a home of its own, with
    # saved rules and confirmed endpoints, which the next start would take as yours.
    (workspace / "real" / "home").mkdir(parents=True)
    (workspace / "lnk").symlink_to("real")
    swap = "mkdir -p real2/home && ln -sfn real2 lnk && echo swapped"
    api.add({"content": [tool_use("bash", {"command": swap})]})
    api.add({"content": [text("Done.")]})
    home = str(workspace / "lnk" / "home")
    result = run_cli("-p", "go", cwd=workspace, env={**env, "PLANLOOP_HOME": home})
    assert "PLANLOOP_HOME reaches planloop's home through the link" in result.stderr
    (refused,) = tool_results(api)
    assert "swapped" not in refused and os.readlink(workspace / "lnk") == "real"
    assert list((workspace / "real" / "home").iterdir()), "this run's home stayed the real one"
