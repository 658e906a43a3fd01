"""What runs later outside the sandbox, and where the key is kept, beyond the plain cases.

- A workspace virtualenv's pyvenv.cfg chooses the python its bin/ starts (`home =`), and the
  sandbox holds bin/ only while pyvenv.cfg is there: a command may neither rewrite it nor
  move it (or the whole `.venv`) away and back.
- An `.envrc`, or your ~/.bashrc, may run a workspace script by its path rather than source it
  (`eval "$(./scripts/env.sh)"`): direnv's allow and your shell trust it just the same.
- The key kept in a file your ~/.bashrc sources (~/.secrets), or that an `.envrc` loads
  (`dotenv secrets.env`), reads as empty to commands, as a `.env` holding it does.

Each test drives `python agent.py` against the fake API, as root and as an unprivileged user.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import API_KEY, outside_tmp
from test_hostile_pass4 import NOBODY, can_switch_user, needs_bwrap, run_as, tool_results

from fakeapi import text, tool_use

KEY_LINE = f"export ANTHROPIC_API_KEY={API_KEY}\n"


@pytest.fixture(params=["root", "nobody"])
def folders(request, isolated_home):
    """(user, workspace, planloop home, home), owned by the user, outside /tmp: the sandbox's
    /tmp is private, which would hide a home folder there whatever planloop does."""
    user = request.param
    if user == "nobody" and not can_switch_user():
        pytest.skip("needs root, setpriv, and a Python the unprivileged user can run")
    folder = outside_tmp("planloop-later-")
    os.chmod(folder, 0o755)
    paths = [folder / name for name in ("work", "planloop-home", "home")]
    for path in paths:
        path.mkdir()
        if user == "nobody":
            os.chown(path, NOBODY, NOBODY)
    yield user, *paths
    shutil.rmtree(folder, ignore_errors=True)


def make(root: Path, contents: dict[str, str], executable: tuple[str, ...] = ()) -> None:
    for name, content in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
        if name in executable:
            (root / name).chmod(0o755)


def give_to(user: str, *folders: Path) -> None:
    if user == "nobody":
        for folder in folders:
            subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(folder)], check=True)


def run(api, env: dict, user: str, workspace: Path, planloop_home: Path, home: Path):
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    return result


def as_user(user: str, command: str, home: Path, cwd: Path) -> None:
    """`command` in the person's own shell, outside the sandbox, as they would run it later."""
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    argv = [*(prefix if user == "nobody" else []), "bash", "-c", command]
    env = {"HOME": str(home), "PATH": os.environ["PATH"]}
    subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=30)


@needs_bwrap
def test_a_command_cannot_rewrite_or_move_a_virtualenv_pyvenv_cfg(api, env, folders):
    # `home =` in pyvenv.cfg moves the venv's base prefix to a folder whose sitecustomize the
    # venv's python runs; moved away, it un-holds bin/, whose activate new terminals source.
    user, workspace, planloop_home, home = folders
    config = "home = /usr/bin\ninclude-system-site-packages = false\n"
    venv = workspace / ".venv"
    make(venv, {"pyvenv.cfg": config, "bin/activate": "VIRTUAL_ENV=x\n"})
    give_to(user, workspace)
    steps = [
        "echo 'home = /tmp/evil/bin' > .venv/pyvenv.cfg; sed -i 's/usr/tmp/' .venv/pyvenv.cfg",
        "mv .venv/pyvenv.cfg .venv/pyvenv.cfg.off; mv .venv .venv-off && mv .venv-off .venv",
        "echo 'touch ~/PWNED' | tee -a .venv/bin/activate .venv-off/bin/activate;"
        " mv .venv/pyvenv.cfg.off .venv/pyvenv.cfg; mv .venv-off .venv; echo done",
    ]
    for command in steps:
        api.add({"content": [tool_use("bash", {"command": command})]})
    planted = {"path": ".venv/pyvenv.cfg", "content": "home = /tmp/evil/bin\n"}
    api.add({"content": [tool_use("read_file", {"path": ".venv/pyvenv.cfg"})]})
    api.add({"content": [tool_use("write_file", planted)]})
    api.add({"content": [text("Done.")]})
    run(api, env, user, workspace, planloop_home, home)
    *ran, _, wrote = tool_results(api)
    assert "done" in ran[-1]
    assert "Read-only file system" in ran[0] and "busy" in ran[1]
    assert (venv / "pyvenv.cfg").read_text() == config
    assert (venv / "bin/activate").read_text() == "VIRTUAL_ENV=x\n"
    assert venv.is_dir() and not (workspace / ".venv-off").exists()
    assert "pyvenv.cfg in the workspace is protected" in wrote
    as_user(user, "source .venv/bin/activate", home, workspace)
    assert not (home / "PWNED").exists()


@needs_bwrap
def test_a_script_an_envrc_runs_stays_read_only(api, env, folders):
    # direnv's allow covers the .envrc, not the scripts it runs: each time the person's shell
    # enters the folder, the rewritten script would run outside the sandbox.
    user, workspace, planloop_home, home = folders
    scripts = {
        "scripts/env.sh": "#!/bin/sh\necho export PROJECT_ENV=dev\n",
        "tools/version.sh": "#!/bin/sh\necho 1.0\n",
        "tools/env.py": "print('export X=1')\n",
    }
    envrc = (
        'export PROJECT=demo\neval "$(./scripts/env.sh)"\n'
        "export VERSION=$(tools/version.sh)\neval `python3 tools/env.py`\n"
        "export DATABASE=./dev.db\n"  # data the project writes, not code: stays writable
    )
    make(workspace, {".envrc": envrc, **scripts, "notes.txt": "x\n", "dev.db": ""}, tuple(scripts))
    give_to(user, workspace)
    plant = "#!/bin/sh\\ntouch ~/PWNED\\n"
    command = (
        "; ".join(f"printf '{plant}' > {name}" for name in scripts)
        + "; echo 'touch ~/PWNED' >> notes.txt; echo row >> dev.db; echo done"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [tool_use("read_file", {"path": "scripts/env.sh"})]})
    api.add({"content": [tool_use("write_file", {"path": "scripts/env.sh", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    run(api, env, user, workspace, planloop_home, home)
    ran, _, wrote = tool_results(api)
    assert "Read-only file system" in ran and "done" in ran
    for name, content in scripts.items():
        assert (workspace / name).read_text() == content
    assert "PWNED" in (workspace / "notes.txt").read_text()  # only named as text: a plain file
    assert (workspace / "dev.db").read_text() == "row\n"
    assert "a file an .envrc names is protected" in wrote
    as_user(user, "source .envrc", home, workspace)  # what direnv does on entering the folder
    assert not (home / "PWNED").exists()


@needs_bwrap
def test_a_program_your_bashrc_runs_from_the_workspace_stays_read_only(api, env, folders):
    # planloop run in ~/dotfiles, whose prompt program ~/.bashrc runs (not sources).
    user, _, planloop_home, home = folders
    dotfiles = home / "dotfiles"
    make(
        dotfiles,
        {"bin/prompt-init": "#!/bin/sh\necho PS1=x\n", "bin/other": "#!/bin/sh\n"},
        ("bin/prompt-init", "bin/other"),
    )
    make(home, {".bashrc": 'eval "$(~/dotfiles/bin/prompt-init bash)"\ncd ~/dotfiles\n'})
    give_to(user, home)
    command = (
        "echo 'touch ~/PWNED' >> bin/prompt-init; echo '# mine' >> bin/other; "
        "mkdir -p new && echo ok > new/file; echo done"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    run(api, env, user, dotfiles, planloop_home, home)
    (ran,) = tool_results(api)
    assert "Read-only file system" in ran and "done" in ran
    assert (dotfiles / "bin/prompt-init").read_text() == "#!/bin/sh\necho PS1=x\n"
    # A file the start-up file does not name, and the folder it enters, stay writable.
    assert (dotfiles / "bin/other").read_text().endswith("# mine\n")
    assert (dotfiles / "new/file").read_text() == "ok\n"
    as_user(user, "source ~/.bashrc", home, home)  # a new terminal
    assert not (home / "PWNED").exists()


def stolen(output: str, copied: Path) -> bool:
    """Whether the key reached the tool result, plainly or in base64, or a copy of the file."""
    encoded = base64.b64encode(KEY_LINE.encode()).decode()
    return API_KEY in output or encoded in output or API_KEY in copied.read_text()


@needs_bwrap
def test_the_key_in_a_file_your_bashrc_sources_is_not_readable(api, env, folders):
    # Dotfiles keep the key in ~/.secrets (or ~/.extra), which ~/.bashrc sources: the hidden
    # ~/.bashrc does not hide it.
    user, workspace, planloop_home, home = folders
    make(home, {".bashrc": "[ -f ~/.secrets ] && source ~/.secrets\n", ".secrets": KEY_LINE})
    make(home, {".aliases": "alias ll='ls -l'\n"})
    (home / ".bashrc").write_text((home / ".bashrc").read_text() + ". ~/.aliases\n")
    give_to(user, home, workspace)
    steal = "cp ~/.secrets copied.txt; base64 -w0 ~/.secrets; echo; cat ~/.aliases"
    api.add({"content": [tool_use("bash", {"command": steal})]})
    api.add({"content": [text("Done.")]})
    run(api, env, user, workspace, planloop_home, home)
    (output,) = tool_results(api)
    assert "alias ll=" in output  # a sourced file without the key reads as before
    assert not stolen(output, workspace / "copied.txt")
    assert (home / ".secrets").read_text() == KEY_LINE


@needs_bwrap
def test_the_key_in_a_file_an_envrc_loads_is_not_readable(api, env, folders):
    # `dotenv secrets.env` in the workspace, and `dotenv ../shared/app.env` above it.
    user, workspace, planloop_home, home = folders
    shared = workspace.parent / "shared"
    make(shared, {"app.env": KEY_LINE})
    envrc = "dotenv secrets.env\ndotenv ../shared/app.env\ndotenv plain.env\n"
    make(workspace, {".envrc": envrc, "secrets.env": KEY_LINE, "plain.env": "MODE=dev\n"})
    give_to(user, workspace, shared)
    steal = (
        "cp secrets.env copied.txt; cp ../shared/app.env copied2.txt; base64 -w0 secrets.env;"
        " echo; base64 -w0 ../shared/app.env; echo; cat plain.env; echo x > secrets.env"
    )
    api.add({"content": [tool_use("bash", {"command": steal})]})
    api.add({"content": [text("Done.")]})
    run(api, env, user, workspace, planloop_home, home)
    (output,) = tool_results(api)
    assert "MODE=dev" in output
    assert not stolen(output, workspace / "copied.txt")
    assert not stolen(output, workspace / "copied2.txt")
    assert (workspace / "secrets.env").read_text() == KEY_LINE  # kept, and read-only
    assert (shared / "app.env").read_text() == KEY_LINE
