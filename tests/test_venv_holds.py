"""Virtualenvs in the workspace: editors run their python when the folder opens (or when the
person picks that interpreter), and terminals source their activate.

- A command that makes a new one (a pyvenv.cfg and a bin/ of its own) is reported at once, in
  the tool result and on the terminal, and again at exit: from the next command on it is held
  read-only as if it were the person's.
- One nested below the top (a monorepo's services/api/.venv) is held like the top one.
- The file tools ask before they write a pyvenv.cfg, or into a bin/ that one makes a
  virtualenv's, whichever comes first.

The end-to-end tests drive `python agent.py` against the fake API, as root and as an
unprivileged user.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_hostile_pass4 import needs_bwrap, tool_results
from test_run_later_more import as_user, folders, give_to, make, run

import tools.paths
from fakeapi import text, tool_use
from tools.paths import protected_reason, scan_workspace
from tools.sandbox import Bubblewrap
from tools.shell_config import run_later

__all__ = ["folders"]  # a fixture, used by name below

# What a command plants: a virtualenv whose python and activate are its own scripts.
PLANT = """
mkdir -p {venv}/bin {venv}/lib/python3.11/site-packages
printf 'home = /usr/bin\\nversion = 3.11.2\\n' > {venv}/pyvenv.cfg
printf '#!/bin/sh\\ntouch ~/PWNED\\nexec /usr/bin/python3 "$@"\\n' > {venv}/bin/python
printf 'touch ~/PWNED\\n' > {venv}/bin/activate
chmod +x {venv}/bin/python
"""


def one_line(text: str) -> str:
    """The terminal wraps long lines: compare words, not line breaks."""
    return " ".join(text.split())


@needs_bwrap
def test_a_virtualenv_a_command_makes_is_reported_at_once_and_at_exit(api, env, folders):
    user, workspace, planloop_home, home = folders
    plant = PLANT.format(venv=".venv") + PLANT.format(venv="services/api/.venv") + "echo planted"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("bash", {"command": "echo x >> .venv/bin/activate"})]})
    api.add({"content": [text("Done.")]})
    result = run(api, env, user, workspace, planloop_home, home)
    planted, again = tool_results(api)
    assert "planted" in planted
    for path in (".venv/pyvenv.cfg", ".venv/bin", "services/api/.venv/bin"):
        assert f"[{path} is new." in planted  # told at once, to the model
    said = one_line(result.stderr + result.stdout)
    assert "sandbox: .venv/bin (a virtualenv's bin/" in said  # and the person
    closing = said.split("These appeared while sandboxed commands ran")[-1]
    assert ".venv/pyvenv.cfg" in closing and "services/api/.venv/bin" in closing  # and at exit
    assert "Read-only file system" in again  # held from then on, as the person's would be
    assert "x" not in (workspace / ".venv/bin/activate").read_text()


@needs_bwrap
def test_a_nested_virtualenv_is_held_like_the_top_one(api, env, folders):
    user, workspace, planloop_home, home = folders
    venvs = [workspace / "services/api/.venv", workspace / "libs/a/b/venv"]
    for venv in venvs:
        subprocess.run(["python3", "-m", "venv", "--without-pip", str(venv)], check=True)
    give_to(user, workspace)
    python = {venv: os.readlink(venv / "bin/python") for venv in venvs}
    activate = {venv: (venv / "bin/activate").read_text() for venv in venvs}
    for venv in venvs:
        folder = venv.relative_to(workspace)
        rewrite = (
            f"echo 'touch ~/PWNED' >> {folder}/bin/activate; rm -f {folder}/bin/python; "
            f"printf '#!/bin/sh\\ntouch ~/PWNED\\n' > {folder}/bin/python; "
            f"echo 'home = /tmp/evil' > {folder}/pyvenv.cfg; echo tried"
        )
        api.add({"content": [tool_use("bash", {"command": rewrite})]})
    api.add({"content": [text("Done.")]})
    run(api, env, user, workspace, planloop_home, home)
    for output in tool_results(api):
        assert "tried" in output and "Read-only file system" in output
    for venv in venvs:
        assert os.readlink(venv / "bin/python") == python[venv]
        assert (venv / "bin/activate").read_text() == activate[venv]
        as_user(user, f"source {venv}/bin/activate; {venv}/bin/python -c 1", home, workspace)
    assert not (home / "PWNED").exists()


@needs_bwrap
def test_a_link_to_a_virtualenv_that_a_command_points_elsewhere_is_reported(api, env, folders):
    # `.venv -> envs/py311`: the virtualenv is held where it lies, but the person's
    # `.venv/bin/python` follows the link, which a command can point at a python of its own.
    user, workspace, planloop_home, home = folders
    subprocess.run(
        ["python3", "-m", "venv", "--without-pip", str(workspace / "envs/py311")], check=True
    )
    os.symlink("envs/py311", workspace / ".venv")
    give_to(user, workspace)
    swap = "mkdir -p .cache/py/bin && ln -sfn .cache/py .venv && echo swapped"
    api.add({"content": [tool_use("bash", {"command": swap})]})
    api.add({"content": [text("Done.")]})
    result = run(api, env, user, workspace, planloop_home, home)
    (swapped,) = tool_results(api)
    assert "swapped" in swapped and "[.venv was replaced by the command" in swapped, swapped
    assert "it led to a virtualenv" in swapped
    said = one_line(result.stderr + result.stdout)
    closing = said.split("These appeared while sandboxed commands ran")[-1]
    assert ".venv (a link replaced)" in closing  # and the person, at exit


@needs_bwrap
def test_the_file_tools_ask_before_they_make_a_virtualenv(api, env, folders):
    user, workspace, planloop_home, home = folders
    make(workspace, {"services/api/main.py": "print('hi')\n"})
    give_to(user, workspace)
    writes = [
        # bin/ first, pyvenv.cfg last: each step alone looks like a plain file.
        (".venv/bin/python", "#!/bin/sh\ntouch ~/PWNED\n"),
        ("services/api/venv/bin/activate", "touch ~/PWNED\n"),
        (".venv/pyvenv.cfg", "home = /usr/bin\n"),
        ("services/api/tool/pyvenv.cfg", "home = /usr/bin\n"),
    ]
    for path, content in writes:
        api.add({"content": [tool_use("write_file", {"path": path, "content": content})]})
    api.add({"content": [text("Done.")]})
    run(api, env, user, workspace, planloop_home, home)
    for (path, _), output in zip(writes, tool_results(api), strict=True):
        assert "virtualenv's" in output and "is protected" in output, (path, output)
        assert not (workspace / path).exists()


def test_a_virtualenv_changed_while_a_command_ran_is_reported(workspace):
    # The sandbox holds a virtualenv read-only for the command itself; what changes it anyway
    # (a background task started before it existed, another program) is said, not trusted.
    venv = workspace / "services/api/.venv"
    make(venv, {"pyvenv.cfg": "home = /usr/bin\n", "bin/activate": "VIRTUAL_ENV=x\n"})
    sandbox = Bubblewrap(user_namespace=False)
    before = sandbox.before_command(workspace)
    (venv / "pyvenv.cfg").write_text("home = /tmp/evil\n")
    notes = sandbox.after_command(workspace, before)
    assert any("services/api/.venv/pyvenv.cfg changed while the command ran" in n for n in notes)
    assert not any("[services/api/.venv/bin " in note for note in notes)  # only what changed
    assert "services/api/.venv/pyvenv.cfg" in sandbox.closing_report()
    before = sandbox.before_command(workspace)
    assert sandbox.after_command(workspace, before) == []  # nothing changed: nothing said


def test_more_virtualenvs_than_the_sandbox_holds_make_commands_ask(workspace, monkeypatch):
    # Each is two binds for every command: a command may not make thousands to swell them.
    monkeypatch.setattr(tools.paths, "MAX_VENVS", 2)
    for name in ("a", "b"):
        make(workspace / name, {"pyvenv.cfg": ""})
    assert scan_workspace(workspace).incomplete is None
    assert len(scan_workspace(workspace).venvs) == 2
    make(workspace / "c/d", {"pyvenv.cfg": ""})
    assert "more than 2 virtualenvs" in (scan_workspace(workspace).incomplete or "")


@pytest.mark.parametrize("nested", ["", "services/api/"])
def test_the_scan_finds_virtualenvs_at_any_depth(workspace: Path, nested: str):
    make(workspace, {f"{nested}.venv/pyvenv.cfg": "", f"{nested}.venv/bin/python": ""})
    assert scan_workspace(workspace).venvs == [workspace / nested / ".venv"]


def test_a_bin_activate_without_a_pyvenv_cfg_is_a_virtualenv_to_the_scan(workspace: Path):
    # oh-my-zsh's python plugin, and prompt snippets, source venv/bin/activate on `cd` without
    # looking for a pyvenv.cfg (an old virtualenv's, or a folder made to look like one).
    make(workspace, {"venv/bin/activate": "", ".venv/pyvenv.cfg": "", ".venv/bin/activate": ""})
    assert sorted(scan_workspace(workspace).venvs) == [workspace / ".venv", workspace / "venv"]


@needs_bwrap
def test_a_virtualenv_of_a_bin_activate_alone_is_held_and_a_new_one_reported(api, env, folders):
    user, workspace, planloop_home, home = folders
    make(workspace, {"venv/bin/activate": "VIRTUAL_ENV=x\n"})
    give_to(user, workspace)
    plant = (
        "echo 'touch ~/PWNED' >> venv/bin/activate; mkdir -p .venv/bin && "
        "echo 'touch ~/PWNED' > .venv/bin/activate && echo planted"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run(api, env, user, workspace, planloop_home, home)
    (output,) = tool_results(api)
    assert "venv/bin/activate: Read-only file system" in output and "planted" in output
    assert "[.venv/bin is new." in output  # ran unasked: no pyvenv.cfg to hold is no reason
    assert "sandbox: .venv/bin (a virtualenv's bin/" in one_line(result.stderr + result.stdout)
    assert (workspace / "venv/bin/activate").read_text() == "VIRTUAL_ENV=x\n"


@needs_bwrap
def test_a_conda_environments_activate_scripts_are_held_and_new_ones_reported(api, env, folders):
    # Made of copies (`conda create --copy`), nothing holds it for its hard links; `conda
    # activate` (VS Code's terminals do it) runs each script of its activate.d in your shell.
    # An environment is held whole; one a command makes is reported with its activate.d.
    user, workspace, planloop_home, home = folders
    make(
        workspace,
        {
            ".conda/conda-meta/history": "# cmd: conda create\n",
            ".conda/etc/conda/activate.d/env.sh": "export A=1\n",
            "envs/b/conda-meta/history": "# cmd: conda create\n",
        },
    )
    give_to(user, workspace)
    plant = (
        "echo 'touch ~/PWNED' >> .conda/etc/conda/activate.d/env.sh; "
        "mkdir -p envs/b/etc/conda/activate.d; mkdir -p envs/c/conda-meta "
        "envs/c/etc/conda/activate.d && echo 'touch ~/PWNED' > "
        "envs/c/etc/conda/activate.d/x.sh && echo planted"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run(api, env, user, workspace, planloop_home, home)
    (output,) = tool_results(api)
    assert "activate.d/env.sh: Read-only file system" in output and "planted" in output
    assert "envs/b/etc’: Read-only file system" in output
    assert "[envs/c/etc/conda/activate.d is new." in output
    said = one_line(result.stderr + result.stdout)
    assert "envs/c/etc/conda/activate.d (a conda environment's activate.d" in said
    assert (workspace / ".conda/etc/conda/activate.d/env.sh").read_text() == "export A=1\n"


def test_a_conda_environment_and_a_virtualenv_s_base_in_the_workspace_are_held_whole(workspace):
    # A conda environment's python takes its standard library from the environment, and a
    # virtualenv's python from the python it was made from: both run at every start.
    (workspace / "env/conda-meta").mkdir(parents=True)
    (workspace / "env/lib/python3.11/encodings").mkdir(parents=True)
    (workspace / ".python/lib/python3.11").mkdir(parents=True)
    (workspace / ".venv").mkdir()
    home = workspace / ".python/bin"
    (workspace / ".venv/pyvenv.cfg").write_text(f"home = {home}\nversion = 3.11.2\n")
    (workspace / "tools/bin").mkdir(parents=True)
    (workspace / "tools/lib").mkdir()
    (workspace / "tools/.venv").mkdir()
    (workspace / "tools/.venv/pyvenv.cfg").write_text("home = ../bin\n")  # (around it: parts)
    scan = scan_workspace(workspace)
    held = {str(path.relative_to(workspace)) for path, _ in run_later(workspace, venvs=scan.venvs)}
    assert {"env", ".python", "tools/bin", "tools/lib"} <= held
    assert "tools" not in held
    why = protected_reason(workspace, ".python/lib/python3.11/os.py")
    assert "was made from is protected" in why
