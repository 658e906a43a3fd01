"""The system's private files appear empty in the sandbox: what not everyone may read in /etc,
/var/lib and their kin (/etc/shadow, /etc/ssl/private, a database's folder), which planloop run
as root, or through a group, could read and so could its commands.

The walk is tested on folders of the test's own making (PRIVATE_SYSTEM_FOLDERS pointed at them,
outside /tmp, which the sandbox replaces), as root and as an ordinary user; the real /etc/shadow
through `python agent.py` where the test runs as root.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import outside_tmp, results_by_id, run, run_cli
from test_sandbox_escapes import NOBODY, as_nobody_or_skip, needs_bwrap

from fakeapi import text, tool_use
from tools.bash import run_bash
from tools.sandbox import LANDLOCK_PYTHON, Bubblewrap, private_folder, private_system_files


def system_folder() -> Path:
    """A stand-in for /etc: public and private files, a private folder, a folder others may
    enter but not list, and a link to a private file."""
    etc = outside_tmp("planloop-test-etc-")
    (etc / "passwd").write_text("PUBLIC-ACCOUNTS\n")
    (etc / "shadow").write_text("SHADOW-HASHES\n")
    (etc / "shadow").chmod(0o640)
    (etc / "ssl" / "private").mkdir(parents=True)
    (etc / "ssl" / "private" / "server.key").write_text("TLS-PRIVATE-KEY\n")
    (etc / "ssl" / "private").chmod(0o700)
    (etc / "sudoers.d").mkdir()
    (etc / "sudoers.d" / "README").write_text("PUBLIC-README\n")
    (etc / "sudoers.d" / "admins").write_text("SUDO-RULES\n")
    (etc / "sudoers.d" / "admins").chmod(0o440)
    (etc / "sudoers.d").chmod(0o711)
    (etc / "shadow-link").symlink_to(etc / "shadow")
    return etc


def test_private_files_and_folders_are_found_and_public_ones_left(tmp_path: Path):
    etc = system_folder()
    found = set(private_system_files((str(etc),)))
    assert found == {etc / "shadow", etc / "ssl" / "private", etc / "sudoers.d" / "admins"}
    # A missing folder is no error: not every system has /var/backups.
    assert private_system_files((str(tmp_path / "missing"),)) == ()


def test_the_walk_stops_at_its_depth(monkeypatch):
    # /var/lib may hold a store of a hundred thousand public files; private ones sit near the top.
    monkeypatch.setattr("tools.sandbox.PRIVATE_SYSTEM_DEPTH", 1)
    etc = system_folder()
    found = set(private_system_files.__wrapped__((str(etc),)))
    assert found == {etc / "shadow"}  # ssl/private and sudoers.d/admins lie deeper


def test_a_folder_of_many_public_files_leaves_the_next_folders_private_ones_found(monkeypatch):
    # A flatpak store in /var/lib must not use up the walk before /var/log is looked at.
    monkeypatch.setattr("tools.sandbox.PRIVATE_SYSTEM_ENTRIES", 20)
    log, store = system_folder(), outside_tmp("planloop-test-var-lib-")
    for number in range(100):
        (store / f"public-{number}").write_text("PUBLIC\n")
    found = set(private_system_files.__wrapped__((str(log), str(store))))
    assert log / "shadow" in found


@needs_bwrap
def test_the_systems_private_files_appear_empty_to_a_command(workspace: Path, monkeypatch):
    etc = system_folder()
    monkeypatch.setattr("tools.sandbox.PRIVATE_SYSTEM_FOLDERS", (str(etc),))
    command = f"cd {etc} && cat passwd shadow ssl/private/server.key sudoers.d/* 2>&1"
    output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert "PUBLIC-ACCOUNTS" in output and "PUBLIC-README" in output
    for secret in ("SHADOW-HASHES", "TLS-PRIVATE-KEY", "SUDO-RULES"):
        assert secret not in output
    # Reopened by the person, it reads as it is.
    opened = Bubblewrap(allow_read=[etc / "shadow"])
    assert "SHADOW-HASHES" in run(run_bash(workspace, f"cat {etc}/shadow", sandbox=opened))


@needs_bwrap
def test_a_private_folder_that_holds_your_home_or_the_workspace_is_not_hidden(monkeypatch):
    # A service account's home in /var/lib (jenkins, postgres) is private to it: hidden, it
    # would take the toolchains and the project with it.
    lib = outside_tmp("planloop-test-var-lib-")
    home = lib / "jenkins"
    workspace = home / "workspace" / "project"
    workspace.mkdir(parents=True)
    (workspace / "build.sh").write_text("echo PROJECT-FILE\n")
    home.chmod(0o750)
    monkeypatch.setattr("tools.sandbox.PRIVATE_SYSTEM_FOLDERS", (str(lib),))
    monkeypatch.setenv("HOME", str(home))
    assert home in private_system_files((str(lib),))  # private, but kept
    output = run(run_bash(workspace, "sh build.sh", sandbox=Bubblewrap()))
    assert "PROJECT-FILE" in output


@needs_bwrap
def test_a_file_readable_through_your_group_is_hidden_from_an_ordinary_user(tmp_path: Path):
    place = as_nobody_or_skip(tmp_path)
    try:
        etc, work, home = system_folder(), place / "work", place / "home"
        work.mkdir()
        home.mkdir()
        # The ordinary user's group may read it; everyone else may not.
        os.chown(etc / "shadow", 0, NOBODY)
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(work), str(home)], check=True)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("tools.sandbox.PRIVATE_SYSTEM_FOLDERS", (str(etc),))
            patch.setenv("HOME", str(home))
            patch.setenv("PLANLOOP_HOME", str(home / ".planloop"))
            argv, env = Bubblewrap(user_namespace=False).wrap(work, f"cat {etc}/shadow; id -u")
        # As in test_sandbox_escapes: the system's Python, and the private folder copied for
        # the ordinary user (root built the argv).
        argv[0] = "/usr/bin/python3"
        argv = ["/usr/bin/python3" if word == LANDLOCK_PYTHON else word for word in argv]
        theirs = place / "private"
        shutil.copytree(private_folder(), theirs)
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(theirs)], check=True)
        argv = [word.replace(str(private_folder()), str(theirs)) for word in argv]
        as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        readable = subprocess.run([*as_nobody, "cat", str(etc / "shadow")], capture_output=True)
        assert readable.stdout == b"SHADOW-HASHES\n"  # outside the sandbox, the group reads it
        done = subprocess.run(
            [*as_nobody, *argv], env={**env, "HOME": str(home)}, cwd=work,
            capture_output=True, text=True,
        )  # fmt: skip
        assert done.stdout.rstrip().endswith(str(NOBODY)), (done.stdout, done.stderr)
        assert "SHADOW-HASHES" not in done.stdout
    finally:
        shutil.rmtree(place, ignore_errors=True)


# Private files a Debian system has: the account hashes, apt's log of what its installs printed
# (0640, once something was installed: CI's runs do), debconf's stored answers to password
# questions.
REAL_PRIVATE_FILES = ("/etc/shadow", "/var/log/apt/term.log", "/var/cache/debconf/passwords.dat")


@needs_bwrap
@pytest.mark.parametrize("private", REAL_PRIVATE_FILES)
def test_a_private_system_file_is_empty_to_a_command_run_as_root(api, env, workspace, private):
    found = Path(private)
    if os.geteuid() != 0 or not found.is_file() or found.stat().st_mode & stat.S_IROTH:
        pytest.skip(f"needs root and a private {private}, as on Debian (CI runs so)")
    if found.stat().st_size == 0:
        pytest.skip(f"{private} is empty here: hidden or not, it would read so")
    call = tool_use("bash", {"command": f"wc -c < {private}; grep -c : /etc/passwd"})
    api.add({"content": [call]})
    api.add({"content": [text("Done.")]})

    result = run_cli("-p", "go", cwd=workspace, env=env, timeout=60)

    assert result.returncode == 0, result.stderr
    shown = results_by_id(api.accepted[1])[call["id"]]["content"]
    assert shown.splitlines()[0] == "0"  # empty, where root would read it whole
    assert int(shown.splitlines()[1]) > 0  # the public list of accounts is there
