"""What commands ask about, because no read-only bind can hold it, the file tools ask about too.

When planloop finds that something of the workspace cannot be held read-only (a PATH folder
reached through a link, a relative or empty PATH or PYTHONPATH entry, one naming the workspace
itself, planloop's own virtual environment, its private folder), sandboxed commands ask, and
headless bash is disabled. The file tools are then the model's only way to change files; each
test drives `python agent.py -p` against the fake API and checks that they could not plant
what runs later outside the sandbox either.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import dotenv
import pytest
from conftest import AGENT, run_cli
from test_hostile_pass4 import NOBODY, needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.paths import PLANLOOP_CODE_REASON, protected_reason

__all__ = ["user_folders"]  # a fixture, used by name

ORIGINAL = "#!/bin/sh\necho hello\n"
PAYLOAD = "#!/bin/sh\necho PLANTED\n"


def own(path: Path, user: str) -> None:
    """Hand `path` and all below it to the unprivileged user, when the test runs as that one."""
    if user != "nobody":
        return
    for folder, folders, files in os.walk(path):
        for name in [folder, *(os.path.join(folder, entry) for entry in folders + files)]:
            os.lchown(name, NOBODY, NOBODY)


# (PATH entry, the program the model rewrites, the folder you later type its name in).
PATH_CASES = {
    # direnv's `PATH_add bin` where bin is a link, or a dotfiles setup.
    "a folder reached through a link": ("{ws}/linkbin", "linkbin/hello", "."),
    "the current folder": (".", "real/bin/hello", "real/bin"),
    "an empty entry": ("", "real/bin/hello", "real/bin"),
    "a relative folder": ("bin", "real/bin/hello", "real"),
    "the workspace itself": ("{ws}", "hello", "."),
}


@pytest.mark.parametrize("case", PATH_CASES)
def test_the_file_tools_do_not_rewrite_a_program_on_a_path_that_cannot_be_held(
    api, env, user_folders, case
):
    user, workspace, planloop_home, home = user_folders
    entry, target, typed_in = PATH_CASES[case]
    (workspace / "real" / "bin").mkdir(parents=True)
    (workspace / "linkbin").symlink_to("real/bin")
    for program in ("real/bin/hello", "hello"):
        (workspace / program).write_text(ORIGINAL)
        (workspace / program).chmod(0o755)
    own(workspace, user)
    path = f"{entry.format(ws=workspace)}:{env['PATH']}"
    api.add({"content": [tool_use("read_file", {"path": target})]})
    api.add({"content": [tool_use("write_file", {"path": target, "content": PAYLOAD})]})
    api.add({"content": [tool_use("write_file", {"path": "docs/notes.md", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PATH": path, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    _, rewrite, notes = tool_results(api)
    assert f"{target} was not changed" in rewrite and "PATH" in rewrite
    assert (workspace / target).read_text() == ORIGINAL
    # What you get when you type its name later, outside any sandbox:
    typed = subprocess.run(
        "hello", shell=True, cwd=workspace / typed_in, env={"PATH": path}, capture_output=True
    )
    assert typed.stdout == b"hello\n"
    if case == "a folder reached through a link":
        # Only that folder is held back: the rest of the workspace is written as before.
        assert (workspace / "docs" / "notes.md").read_text() == "x\n", notes
    else:
        # Any folder of the workspace may be where your shell is when you type a name.
        assert "every file in the workspace is protected" in notes
        assert not (workspace / "docs").exists()


# (the variable, its value, the file the model plants, python's start-up check).
VARIABLE_CASES = {
    "PYTHONPATH is the workspace itself": ("PYTHONPATH", "{ws}", "sitecustomize.py"),
    "PYTHONPATH is the current folder": ("PYTHONPATH", ".", "sitecustomize.py"),
    "PYTHONPATH is a relative folder": ("PYTHONPATH", "src", "src/sitecustomize.py"),
    # `export PYTHONPATH=$PYTHONPATH:/opt/x` with none set before.
    "PYTHONPATH has an empty entry": ("PYTHONPATH", ":/opt/x", "sitecustomize.py"),
    # A variable planloop's own python does not read.
    "PERL5LIB is a relative folder": ("PERL5LIB", "lib", "lib/strict.pm"),
}


@pytest.mark.parametrize("case", VARIABLE_CASES)
def test_the_file_tools_do_not_plant_start_up_code_a_relative_variable_names(
    api, env, workspace, case
):
    name, value, target = VARIABLE_CASES[case]
    value = value.format(ws=workspace)
    (workspace / "src").mkdir()
    (workspace / "lib").mkdir()
    marker = workspace.parent / "planted-code-ran"
    plant = f"import os; open({str(marker)!r}, 'w').write('ran')\n"
    api.add({"content": [tool_use("write_file", {"path": target, "content": plant})]})
    api.add({"content": [tool_use("write_file", {"path": "docs/notes.md", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    result = run_as("root", api, {**env, name: value}, workspace, workspace.parent)
    assert result.returncode == 0, result.stderr
    planted, notes = tool_results(api)
    assert f"{target} was not changed" in planted
    assert not (workspace / target).exists()
    assert f"your {name} names" in notes and "every file in the workspace is protected" in notes
    assert not (workspace / "docs").exists()
    # The next python you start in the folder, outside any sandbox:
    started = subprocess.run(
        [sys.executable, "-c", "pass"], cwd=workspace, env={**env, name: value}, check=False
    )
    assert started.returncode == 0 and not marker.exists()


def test_the_file_tools_do_not_rewrite_planloop_s_own_virtual_environment(api, env, workspace):
    # planloop installed in the project's own .venv (`uv add planloop`, run from there): its
    # dependencies lie in the workspace, and it imports them again at its next start, outside
    # any sandbox, with the key in its environment.
    venv = workspace / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # Its own copy of python-dotenv, which settings.py imports at start; the rest of planloop's
    # dependencies through a path file, as an editable install would find them.
    dotenv_folder = Path(dotenv.__file__).parent
    subprocess.run(["cp", "-r", str(dotenv_folder), str(site_packages / "dotenv")], check=True)
    (site_packages / "planloop-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    module = site_packages / "dotenv" / "__init__.py"
    original = module.read_text()
    shown = str(module.relative_to(workspace))
    marker = workspace.parent / "planted-code-ran"
    plant = original + f"\nopen({str(marker)!r}, 'w').write(__import__('os').environ['HOME'])\n"
    api.add({"content": [tool_use("read_file", {"path": shown})]})
    api.add({"content": [tool_use("write_file", {"path": shown, "content": plant})]})
    api.add({"content": [tool_use("write_file", {"path": "docs/notes.md", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    result = subprocess.run(
        [python, str(AGENT), "-p", "go"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    _, rewrite, notes = tool_results(api)
    assert f"{shown} was not changed" in rewrite and PLANLOOP_CODE_REASON in rewrite
    assert module.read_text() == original
    assert (workspace / "docs" / "notes.md").read_text() == "x\n", notes  # the rest as before
    # planloop's next start imports it:
    subprocess.run([python, "-c", "import dotenv"], cwd=workspace, check=True)
    assert not marker.exists()


@needs_bwrap
def test_the_file_tools_do_not_rewrite_planloop_s_private_folder(api, env, workspace):
    # `export TMPDIR=$PWD/.tmp`: the filter bwrap loads before every command, and the empty file
    # bound over hidden secrets, lie in the workspace.
    (workspace / ".tmp").mkdir()
    seen: dict[str, bytes] = {}

    def private(name: str) -> Path:
        (found,) = glob.glob(str(workspace / ".tmp" / "planloop-sandbox-*" / name))
        return Path(found)

    def step(name: str, tool: str):
        def reply(body: dict) -> dict:
            path = private(name)
            seen.setdefault(name, path.read_bytes())  # as planloop made it, before any write
            shown = str(path.relative_to(workspace))
            if tool == "read_file":
                return {"content": [tool_use("read_file", {"path": shown})]}
            return {"content": [tool_use("write_file", {"path": shown, "content": "x\n"})]}

        return reply

    def done(body: dict) -> dict:
        seen["after"] = private("unix-sockets.bpf").read_bytes() + private("empty").read_bytes()
        return {"content": [text("Done.")]}

    for name in ("unix-sockets.bpf", "empty"):
        api.add(step(name, "read_file"))
        api.add(step(name, "write_file"))
    api.add(done)
    env = {**env, "TMPDIR": str(workspace / ".tmp")}
    result = run_as("root", api, env, workspace, workspace.parent)
    assert result.returncode == 0, result.stderr
    _, bpf, _, empty = tool_results(api)
    for output in (bpf, empty):
        assert "was not changed" in output and "planloop's private folder" in output
    assert seen["after"] == seen["unix-sockets.bpf"] + seen["empty"]
    assert seen["empty"] == b""


def test_a_virtual_environment_planloop_imports_from_is_held_whole(workspace, monkeypatch):
    # Not the interpreter's prefix: a venv in the workspace that planloop's import path or one
    # of its modules lies in (pip's `-e git+...` source under .venv/src, say).
    for venv in ("env", "other"):
        (workspace / venv / "lib" / "site-packages").mkdir(parents=True)
        (workspace / venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (workspace / "src").mkdir()
    (workspace / "other" / "src" / "pkg").mkdir(parents=True)
    held = [str(workspace / "env" / "lib" / "site-packages"), str(workspace / "src")]
    monkeypatch.setattr(sys, "path", [*sys.path, *held])
    module = type(sys)("planted_probe")
    module.__file__ = str(workspace / "other" / "src" / "pkg" / "__init__.py")
    monkeypatch.setitem(sys.modules, "planted_probe", module)
    for path in ("env/lib/site-packages/x.py", "env/include/x.h", "other/src/pkg/__init__.py"):
        assert protected_reason(workspace, path) == PLANLOOP_CODE_REASON, path
    # A folder of the import path outside any venv (an editable install's src/): the modules
    # python imports at every start from there, and nothing else.
    assert protected_reason(workspace, "src/sitecustomize.py") == PLANLOOP_CODE_REASON
    assert protected_reason(workspace, "src/usercustomize/__init__.py") == PLANLOOP_CODE_REASON
    assert protected_reason(workspace, "src/app.py") is None


def test_what_protects_every_file_from_writes_leaves_agents_md_and_mentions_readable(
    api, env, workspace
):
    # PYTHONPATH=$PWD makes every write ask; reading AGENTS.md or an @mention sends no secret.
    (workspace / "AGENTS.md").write_text("Indent with tabs.\n")
    (workspace / "notes.txt").write_text("the mentioned file\n")
    api.add({"content": [text("Done.")]})
    more = {"PYTHONPATH": str(workspace)}
    result = run_cli("-p", "look at @notes.txt", cwd=workspace, env={**env, **more})
    assert result.returncode == 0, result.stderr
    (request,) = api.accepted
    assert "Indent with tabs." in json.dumps(request["system"])
    assert "the mentioned file" in json.dumps(request["messages"])


def test_the_file_tools_ask_before_any_write_when_a_hook_runs_what_cannot_be_told(
    api, env, user_folders
):
    """A node hook's code may load any file: planloop cannot tell which, so commands ask, and
    so do the file tools, before every write. Otherwise the model would rewrite with
    write_file what the hook loads, and the person's next commit would run it."""
    user, workspace, planloop_home, home = user_folders
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/usr/bin/env node\nrequire(process.cwd() + '/scripts/lint.js')\n")
    hook.chmod(0o755)
    (workspace / "scripts").mkdir()
    (workspace / "scripts" / "lint.js").write_text("console.log('lint ok')\n")
    own(workspace, user)
    planted = "require('child_process').execSync('touch /tmp/x')\n"
    api.add({"content": [tool_use("bash", {"command": "echo hi"})]})
    api.add({"content": [tool_use("read_file", {"path": "scripts/lint.js"})]})
    api.add({"content": [tool_use("write_file", {"path": "scripts/lint.js", "content": planted})]})
    api.add({"content": [tool_use("edit_file", {"path": "scripts/lint.js", "old_text": "lint ok",
                                                "new_text": "x"})]})  # fmt: skip
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    bash, _, rewrite, edit = tool_results(api)
    assert "The file tools cannot write either" in bash  # (not "do the work with them")
    for refused in (rewrite, edit):
        assert "scripts/lint.js was not changed" in refused, refused
        assert ".git/hooks/pre-commit" in refused and "any file may be what it runs" in refused
    assert (workspace / "scripts" / "lint.js").read_text() == "console.log('lint ok')\n"
