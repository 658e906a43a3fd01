"""A hostile pass over what planloop itself runs or trusts outside the sandbox.

A sandboxed command may write anything in the workspace. Nothing it writes may then be run by
planloop outside the sandbox (a pager found on a PATH entry inside the workspace), hand it the
key (a `.env` that links out of the workspace), or loosen the sandbox of later commands. Each
test drives `python agent.py` against the fake API.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import API_KEY, outside_tmp, run_cli, terminal_env
from test_hostile_pass4 import (
    NOBODY,
    needs_bwrap,
    owned_file,
    run_as,
    tool_results,
    user_folders,
)
from test_interactive import Terminal

from fakeapi import text, tool_use
from tools.environment import host_program

__all__ = ["user_folders"]  # a fixture, used by name below

PLANTED_PAGER = "#!/bin/sh\nenv > {leak}\nexec cat\n"


@needs_bwrap
@pytest.mark.real_exec
def test_a_pager_planted_on_a_path_folder_in_the_workspace_is_never_run(
    api, workspace, isolated_home
):
    # An activated virtualenv puts the workspace's .venv/bin first on PATH. Sandboxed commands
    # cannot write there (it is read-only to them), but a cloned repository can ship one.
    folder = workspace / ".venv" / "bin"
    folder.mkdir(parents=True)
    leak = workspace / ".venv" / "LEAKED"
    (folder / "less").write_text(PLANTED_PAGER.format(leak=leak))
    (folder / "less").chmod(0o755)
    api.add({"content": [tool_use("bash", {"command": "echo planted"})]})
    api.add({"content": [text("Planted.")]})
    env = terminal_env(api, isolated_home)
    env.pop("PAGER", None)
    env["PATH"] = f"{folder}:{env['PATH']}"
    with Terminal(workspace, env) as terminal:
        terminal.wait_for_prompt()
        terminal.type("look around\r")
        terminal.wait_for("Planted.")
        terminal.wait_for_prompt()
        terminal.type("/output\r")
        paged = terminal.wait_for_prompt()
        assert "planted" in paged  # shown by the real pager, or printed
        terminal.type("\x04")
        assert terminal.close() == 0
    assert not leak.exists()


@pytest.mark.real_exec
def test_the_pager_runs_without_the_key_in_its_environment(api, workspace, isolated_home, tmp_path):
    seen = tmp_path / "pager-environment"
    pager = tmp_path / "pager.sh"
    pager.write_text(PLANTED_PAGER.format(leak=seen))
    pager.chmod(0o755)
    api.add({"content": [tool_use("bash", {"command": "echo hello"})]})
    api.add({"content": [text("Said hello.")]})
    env = {**terminal_env(api, isolated_home), "PAGER": str(pager)}
    with Terminal(workspace, env, "--yes") as terminal:
        terminal.wait_for_prompt()
        terminal.type("greet\r")
        terminal.wait_for("Said hello.")
        terminal.wait_for_prompt()
        terminal.type("/output\r")
        terminal.wait_for_prompt()
        terminal.type("\x04")
        assert terminal.close() == 0
    environment = seen.read_text()
    assert "PATH=" in environment  # the pager ran, with the person's own environment
    assert API_KEY not in environment and "ANTHROPIC_" not in environment


def test_programs_are_looked_up_outside_the_workspace(tmp_path, monkeypatch):
    inside, outside = tmp_path / "work" / ".venv" / "bin", tmp_path / "bin"
    for folder in (inside, outside):
        folder.mkdir(parents=True)
        (folder / "less").write_text("#!/bin/sh\n")
        (folder / "less").chmod(0o755)
    monkeypatch.setenv("PATH", f"{inside}:.:{outside}")
    monkeypatch.chdir(tmp_path / "work")
    assert host_program("less") == str(outside / "less")
    assert host_program("less", tmp_path / "work") == str(outside / "less")
    assert host_program(str(inside / "less"), tmp_path / "work") is None
    monkeypatch.setenv("PATH", str(inside))
    assert host_program("less") is None


def test_undo_never_deletes_or_restores_another_file_through_a_link_put_in_its_place(workspace):
    from middleware.undo import FileBefore, apply_file, plan_file

    (workspace / "important").mkdir()
    (workspace / "scratch").mkdir()
    precious = workspace / "important" / "config.py"
    precious.write_text("USER DATA\n")
    # planloop created scratch/config.py (with the same text); a command then put a link to
    # the person's file in its place, and the list would say "deleted: that input created it".
    os.symlink("../important/config.py", workspace / "scratch" / "config.py")
    created = FileBefore("scratch/config.py", existed=False, content=None)
    plan = plan_file(workspace, created)
    assert plan.action == "cannot" and "link to important/config.py" in plan.why
    assert precious.read_text() == "USER DATA\n"

    # Listed while it was still the file planloop wrote; swapped for the link before the answer.
    (workspace / "scratch" / "config.py").unlink()
    (workspace / "scratch" / "config.py").write_text("planloop's\n")
    for plan in (
        plan_file(workspace, created),
        plan_file(workspace, FileBefore("scratch/config.py", True, b"old\n", 4)),
    ):
        assert plan.action in ("delete", "restore")
        (workspace / "scratch" / "config.py").unlink()
        os.symlink("../important/config.py", workspace / "scratch" / "config.py")
        assert apply_file(workspace, plan).startswith("not undone")
        assert precious.read_text() == "USER DATA\n"
        (workspace / "scratch" / "config.py").unlink()
        (workspace / "scratch" / "config.py").write_text("planloop's\n")


def key_folder(user: str) -> Path:
    """A folder outside /tmp (the sandbox's own /tmp would hide it anyway), as a person's
    ~/keys or a monorepo's root is, that `user` owns."""
    folder = outside_tmp("planloop-keys-")
    os.chmod(folder, 0o755)
    if user == "nobody":
        os.chown(folder, NOBODY, NOBODY)
    return folder


@needs_bwrap
def test_a_key_in_the_file_a_workspace_env_links_to_outside_stays_out_of_commands(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    keys = key_folder(user)
    try:
        owned_file(keys / "anthropic.env", f"ANTHROPIC_API_KEY={API_KEY}\n", user)
        os.symlink(keys / "anthropic.env", workspace / ".env")  # the monorepo's ../../.env
        steal = f"cat .env; cat {keys}/anthropic.env; echo finished"
        api.add({"content": [tool_use("bash", {"command": steal})]})
        api.add({"content": [text("Done.")]})
        # The key only in the linked file, as the README suggests: nowhere in the environment.
        env = {k: v for k, v in env.items() if k != "ANTHROPIC_API_KEY"}
        result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
        assert result.returncode == 0, result.stderr
        (output,) = tool_results(api)
        assert "finished" in output
        assert API_KEY not in output
        assert (keys / "anthropic.env").read_text() == f"ANTHROPIC_API_KEY={API_KEY}\n"
    finally:
        shutil.rmtree(keys)


@needs_bwrap
def test_a_env_link_that_a_command_replaces_is_reported(api, env, workspace, isolated_home):
    (workspace / ".env.local").write_text("MODEL_ID=test-model\n")
    os.symlink(".env.local", workspace / ".env")
    swap = "rm .env && echo ANTHROPIC_BASE_URL=http://127.0.0.1:9/x > .env && echo swapped"
    api.add({"content": [tool_use("bash", {"command": swap})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "tidy up", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "swapped" in output and ".env was replaced" in output and "API key" in output
    # On the terminal when it happened, and again in planloop's last words.
    assert result.stderr.count(".env (a link replaced)") == 2, result.stderr
    assert (workspace / ".env.local").read_text() == "MODEL_ID=test-model\n"


@needs_bwrap
def test_a_private_folder_inside_the_workspace_makes_commands_ask(api, env, workspace):
    # TMPDIR inside the project (or planloop started in /tmp itself): the filter bwrap loads
    # before every command would lie where commands can rewrite it.
    (workspace / "tmp").mkdir()
    api.add({"content": [tool_use("bash", {"command": "touch ran"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env={**env, "TMPDIR": str(workspace / "tmp")})
    assert result.returncode == 0, result.stderr
    assert "private folder" in result.stderr and "lies inside the workspace" in result.stderr
    assert not (workspace / "ran").exists()  # headless without --yes: nobody to ask


@needs_bwrap
def test_a_folder_too_deep_to_scan_makes_the_next_commands_ask(api, env, workspace):
    name = "d" * 250
    deep = f"for i in $(seq 18); do mkdir {name} && cd {name}; done; touch .env; echo made"
    api.add({"content": [tool_use("bash", {"command": deep})]})
    api.add({"content": [tool_use("bash", {"command": "touch ran"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    first, second = tool_results(api)
    assert "made" in first
    assert "cannot be scanned" in result.stderr
    assert not (workspace / "ran").exists()


@needs_bwrap
def test_dot_files_linked_from_the_home_folder_into_the_workspace_stay_read_only(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    (workspace / "git").mkdir()
    (workspace / "bash").mkdir()
    owned_file(workspace / "git" / ".gitconfig", "[user]\n\tname = me\n", user)
    owned_file(workspace / "bash" / ".bash_aliases", "alias ll='ls -l'\n", user)
    for folder in ("git", "bash"):
        if user == "nobody":
            os.chown(workspace / folder, NOBODY, NOBODY)
    # A dotfiles repository, linked into the home folder by GNU stow.
    os.symlink(workspace / "git" / ".gitconfig", home / ".gitconfig")
    os.symlink(workspace / "bash" / ".bash_aliases", home / ".bash_aliases")
    plant = (
        "echo '[core] pager = touch /tmp/pwned' >> git/.gitconfig; "
        "echo 'touch /tmp/pwned' >> bash/.bash_aliases; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("read_file", {"path": "git/.gitconfig"})]})
    edit = {"path": "git/.gitconfig", "content": "[core]\n\tpager = touch /tmp/pwned\n"}
    api.add({"content": [tool_use("write_file", edit)]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, _, written = tool_results(api)
    assert "finished" in ran and "Read-only file system" in ran
    assert "protected" in written  # headless without --yes: refused
    assert (workspace / "git" / ".gitconfig").read_text() == "[user]\n\tname = me\n"
    assert (workspace / "bash" / ".bash_aliases").read_text() == "alias ll='ls -l'\n"


@needs_bwrap
def test_dot_files_stow_links_one_by_one_deeper_down_are_read_only_too(api, env, user_folders):
    # ~/.config/git and ~/.ssh are there already (git's ignore file, known_hosts): stow links
    # the files of the dotfiles repository into them one by one. git reads
    # ~/.config/git/config for every repository, ssh its ~/.ssh/config.
    user, workspace, planloop_home, home = user_folders
    files = {"git/.config/git/config": "[user]\n\tname = me\n", "ssh/.ssh/config": "Host *\n"}
    for name, content in files.items():
        (workspace / name).parent.mkdir(parents=True)
        owned_file(workspace / name, content, user)
        (home / name.split("/", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(workspace / name, home / name.split("/", 1)[1])
    (home / ".config" / "git" / "ignore").write_text("*.swp\n")
    if user == "nobody":
        for folder in workspace.rglob("*"):
            os.chown(folder, NOBODY, NOBODY)
    plant = (
        "echo '[core] fsmonitor = touch /tmp/pwned' >> git/.config/git/config; "
        "echo 'Match exec \"touch /tmp/pwned\"' >> ssh/.ssh/config; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("read_file", {"path": "git/.config/git/config"})]})
    edit = {"path": "git/.config/git/config", "content": "[core]\n\tfsmonitor = x\n"}
    api.add({"content": [tool_use("write_file", edit)]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, _, written = tool_results(api)
    assert "finished" in ran and "Read-only file system" in ran
    assert "protected" in written  # headless without --yes: refused
    for name, content in files.items():
        assert (workspace / name).read_text() == content


@pytest.mark.parametrize(
    ("rule", "command", "covered"),
    [
        (("git", "grep"), "git grep -n TODO", True),
        (("git", "grep"), "git grep -O./x.sh TODO", False),
        (("git", "grep"), "git grep --open-files-in-pager=./x.sh TODO", False),
        (("git", "log"), "git log --oneline -5", True),
        (("git", "log"), "git log --output=/home/me/.bashrc", False),
        (("git", "diff"), "git diff --ext-diff", False),
        (("git", "rebase"), "git rebase --exec ./x.sh main", False),
        (("git", "bisect"), "git bisect run ./x.sh", False),
        (("git", "submodule"), "git submodule foreach ./x.sh", False),
        (("git", "fetch"), "git fetch --upload-pack=./x.sh origin", False),
        # git takes any unambiguous start of a long option for the whole
        (("git", "grep"), "git grep --open-files=./x.sh TODO", False),
        (("git", "rebase"), "git rebase --exe=./x.sh main", False),
        (("git", "diff"), "git diff --ext-d", False),
        (("git", "log"), "git log --oneline", True),
        # braces and globs expand into words the rule never saw
        (("git", "grep"), "git grep {-O./x.sh,a}", False),
        (("git", "log"), "git log *", False),
        (("git", "difftool"), "git difftool --extcmd=./x.sh", False),
        (("git", "clone"), "git clone --template=./t https://example.com/r", False),
        (("git", "archive"), "git archive -o ../out.tar HEAD", False),
    ],
)
def test_an_always_for_a_git_subcommand_does_not_cover_its_options_that_run_or_write(
    rule, command, covered
):
    from middleware.command_prefix import starts_with

    assert starts_with(command, rule) is covered


@needs_bwrap
def test_the_usual_planloop_home_stays_hidden_when_a_run_uses_another(api, env, workspace):
    home = key_folder("root")  # outside /tmp, which the sandbox hides anyway
    try:
        usual = home / ".planloop" / "sessions" / "other-project"
        usual.mkdir(parents=True)
        (usual / "log.jsonl").write_text('{"said": "the other project\'s secrets"}\n')
        look = f"cat {usual}/log.jsonl; echo finished"
        api.add({"content": [tool_use("bash", {"command": look})]})
        api.add({"content": [text("Done.")]})
        result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)})
        assert result.returncode == 0, result.stderr
        (output,) = tool_results(api)
        assert "finished" in output and "secrets" not in output
    finally:
        shutil.rmtree(home)


@needs_bwrap
def test_a_repository_config_that_links_into_the_tree_stays_read_only(api, env, workspace):
    import subprocess

    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    config = workspace / ".git" / "config"
    (workspace / "gitconfig").write_text(config.read_text())
    config.unlink()
    config.symlink_to("../gitconfig")  # kept in the tree, shared by a team's setup script
    plant = "echo '[core] pager = touch /tmp/pwned' >> gitconfig; echo finished"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    before = (workspace / "gitconfig").read_text()
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "finished" in output and "Read-only file system" in output
    assert (workspace / "gitconfig").read_text() == before


@needs_bwrap
def test_your_own_hooks_folder_and_included_config_in_the_workspace_hold_from_the_first_command(
    api, env, workspace, tmp_path
):
    # No .git in the workspace: the hooks folder and the include your ~/.gitconfig names (kept
    # in a tools repository) are used by git for every repository, all the same.
    home = tmp_path / "home"
    home.mkdir()
    (workspace / "githooks").mkdir()
    (workspace / "inc.cfg").write_text("# included\n")
    (home / ".gitconfig").write_text(
        f"[core]\n\thooksPath = {workspace}/githooks\n[include]\n\tpath = {workspace}/inc.cfg\n"
    )
    plant = (
        "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > githooks/pre-commit; "
        "echo '[core] fsmonitor = touch /tmp/pwned' >> inc.cfg; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("read_file", {"path": "inc.cfg"})]})
    edit = {"path": "inc.cfg", "old_text": "# included", "new_text": "[core] fsmonitor = x"}
    api.add({"content": [tool_use("edit_file", edit)]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    ran, _, edited = tool_results(api)
    assert "finished" in ran and "Read-only file system" in ran
    assert "protected" in edited  # headless without --yes: refused
    assert not (workspace / "githooks" / "pre-commit").exists()
    assert (workspace / "inc.cfg").read_text() == "# included\n"


@pytest.mark.parametrize(
    "line",
    [
        "hooksPath = .githooks\t# shared hooks, see CONTRIBUTING",
        "hooksPath = .githooks;old",
        'hooksPath = ".git"hooks',
        'hooksPath = "my hooks"  # quoted',
        "hooksPath =   spaced   out   ",
        "hooksPath = back\\\\slash",
    ],
)
def test_the_config_reader_takes_the_hooks_path_git_takes(tmp_path, line):
    import subprocess

    from tools.paths import read_git_config

    config = tmp_path / "config"
    config.write_text(f"\ufeff[core]\n\t{line}\n")
    git = subprocess.run(
        ["git", "config", "--file", str(config), "core.hooksPath"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.rstrip("\n")
    assert read_git_config(config) == [("core.hookspath", git)]


@needs_bwrap
def test_start_up_files_and_histories_where_keys_are_typed_look_empty(api, env, workspace):
    home = key_folder("root")  # outside /tmp, which the sandbox hides anyway
    try:
        names = [".bash_aliases", ".bash_login", ".zlogin", ".env", ".envrc", ".viminfo"]
        for name in names:
            (home / name).write_text(f"export ANTHROPIC_API_KEY={API_KEY}\n")
        (home / ".bashrc.d").mkdir()
        (home / ".bashrc.d" / "keys.sh").write_text(f"export ANTHROPIC_API_KEY={API_KEY}\n")
        look = f"cd {home} && grep -rc sk- . ; echo finished"
        api.add({"content": [tool_use("bash", {"command": look})]})
        api.add({"content": [text("Done.")]})
        result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)})
        assert result.returncode == 0, result.stderr
        (output,) = tool_results(api)
        assert "finished" in output
        assert ":1" not in output  # no file there holds the key, as the sandbox shows them
    finally:
        shutil.rmtree(home)


@needs_bwrap
def test_the_key_never_reaches_the_model_from_a_parent_folder_or_a_file_of_another_name(api, env):
    monorepo = key_folder("root")  # outside /tmp, as a person's projects are
    try:
        app = monorepo / "app"
        (app / "config").mkdir(parents=True)
        (monorepo / ".env").write_text(f"ANTHROPIC_API_KEY={API_KEY}\n")
        (monorepo / ".envrc").write_text(f"export ANTHROPIC_API_KEY={API_KEY}\n")
        # A name no key file has (hidden for what it holds: test_key_copies_more.py).
        (app / "config" / "app.cfg").write_text(f"ANTHROPIC_API_KEY={API_KEY}\n")
        steal = "cat ../.env ../.envrc; rev ../.env; cat config/app.cfg; echo finished"
        api.add({"content": [tool_use("bash", {"command": steal})]})
        api.add({"content": [tool_use("bash", {"command": "printenv | grep -c sk- ; true"})]})
        api.add({"content": [text("Done.")]})
        result = run_cli("-p", "go", cwd=app, env=env)
        assert result.returncode == 0, result.stderr
        read, _ = tool_results(api)
        assert "finished" in read
        assert API_KEY not in read and API_KEY[::-1] not in read  # the parent's files are empty
        # The app's own file holding the key: a copy found by its content, empty too.
        assert "ANTHROPIC_API_KEY" not in read
        for request in api.accepted:
            assert API_KEY not in json.dumps(request)
    finally:
        shutil.rmtree(monorepo)


@needs_bwrap
def test_an_editor_folder_that_is_a_link_and_gets_replaced_is_reported(api, env, workspace):
    (workspace / "editor" / "vscode").mkdir(parents=True)
    (workspace / "editor" / "vscode" / "settings.json").write_text("{}\n")
    os.symlink("editor/vscode", workspace / ".vscode")
    task = '{"tasks": [{"command": "touch /tmp/pwned", "runOptions": {"runOn": "folderOpen"}}]}'
    swap = f"rm .vscode && mkdir .vscode && echo '{task}' > .vscode/tasks.json && echo swapped"
    api.add({"content": [tool_use("bash", {"command": swap})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "swapped" in output and ".vscode was replaced" in output and "VS Code" in output
    assert result.stderr.count(".vscode (a link replaced)") == 2, result.stderr


@needs_bwrap
def test_a_folder_a_command_closes_to_planloop_is_reported(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    (workspace / "src").mkdir()
    if user == "nobody":
        os.chown(workspace / "src", NOBODY, NOBODY)
    # The person's shell can still enter it (x), and git would find a repository in it.
    hide = "mkdir src/.git && chmod 311 src && echo hidden"
    api.add({"content": [tool_use("bash", {"command": hide})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    os.chmod(workspace / "src", 0o755)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "hidden" in output
    if user == "root":  # root reads any folder: nothing is closed to it
        assert "src/.git is a new git repository" in output
        return
    assert "src can no longer be read by planloop" in output
    assert result.stderr.count("src (a folder closed to planloop") == 2, result.stderr


@needs_bwrap
def test_a_workspace_a_home_config_folder_links_to_makes_commands_and_writes_ask(
    api, env, workspace, tmp_path
):
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    os.symlink(workspace, home / ".config" / "nvim")  # editing one's editor config
    (workspace / "init.lua").write_text("-- settings\n")
    api.add({"content": [tool_use("bash", {"command": "echo 'os.execute(1)' >> init.lua"})]})
    api.add({"content": [tool_use("read_file", {"path": "init.lua"})]})
    api.add({"content": [tool_use("write_file", {"path": "init.lua", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    ran, _, written = tool_results(api)
    assert "links to the workspace" in result.stderr
    assert "protected" in written
    assert (workspace / "init.lua").read_text() == "-- settings\n"


@needs_bwrap
def test_a_folder_on_your_path_inside_the_workspace_is_read_only(api, env, workspace):
    bin_folder = workspace / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    plant = "printf '#!/bin/sh\\ntouch /tmp/x\\n' > .venv/bin/git; touch .venv/ok; echo finished"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    path = f"{bin_folder}:{env['PATH']}"  # the project's virtualenv, activated
    result = run_cli("-p", "go", cwd=workspace, env={**env, "PATH": path})
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "finished" in output and "Read-only file system" in output
    assert not (bin_folder / "git").exists()
    assert (workspace / ".venv" / "ok").exists()  # the rest of the workspace stays writable


@needs_bwrap
def test_a_path_that_names_the_current_folder_makes_commands_ask(api, env, workspace):
    api.add({"content": [tool_use("bash", {"command": "touch ran"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env={**env, "PATH": f".:{env['PATH']}"})
    assert result.returncode == 0, result.stderr
    assert "your PATH names a relative folder" in result.stderr
    assert not (workspace / "ran").exists()


@needs_bwrap
def test_secrets_by_other_names_and_addresses_with_passwords_stay_out_of_commands(
    api, env, workspace
):
    secrets = {
        "OPENAI_KEY": "sk-openai-one",
        "DB_PASS": "hunter2-two",
        "SENTRY_DSN": "https://key-three@sentry.example/1",
        "SLACK_WEBHOOK_URL": "https://hooks.example/four",
        "JWT": "eyJ-five",
        "SESSION_COOKIE": "cookie-six",
        "DATABASE_URL": "postgres://app:pw-seven@db/app",
        "DB_PW": "hunter2-eight",
        "SERVICE_CREDS": "creds-nine",
    }
    harmless = {"KEYBOARD_LAYOUT": "us", "DOCS_URL": "https://example.com/docs"}
    api.add({"content": [tool_use("bash", {"command": "env"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=workspace, env={**env, **secrets, **harmless})
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert not [name for name, value in secrets.items() if value in output]
    assert "KEYBOARD_LAYOUT=us" in output and "DOCS_URL=https://example.com/docs" in output


def test_read_file_does_not_read_what_the_sandbox_hides_when_the_workspace_holds_it(
    api, env, tmp_path
):
    home = tmp_path / "home"
    config = home / ".config"
    (config / "gh").mkdir(parents=True)
    (config / "gh" / "hosts.yml").write_text("github.com: {oauth_token: gho_SECRET}\n")
    (config / "nvim").mkdir()
    (config / "nvim" / "init.lua").write_text("-- my settings\n")
    # Editing one's editor settings: planloop started in ~/.config.
    api.add({"content": [tool_use("read_file", {"path": "gh/hosts.yml"})]})
    api.add({"content": [tool_use("read_file", {"path": "nvim/init.lua"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "go", cwd=config, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    hidden, plain = tool_results(api)
    assert "gho_SECRET" not in hidden and "secrets the sandbox hides" in hidden
    assert "my settings" in plain


def test_write_file_asks_before_it_writes_into_a_folder_on_your_path(api, env, workspace):
    bin_folder = workspace / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    api.add({"content": [tool_use("write_file", {"path": ".venv/bin/git", "content": "x\n"})]})
    api.add({"content": [text("Done.")]})
    path = f"{bin_folder}:{env['PATH']}"
    result = run_cli("-p", "go", "--no-sandbox", cwd=workspace, env={**env, "PATH": path})
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "a folder on your PATH is protected" in output
    assert not (bin_folder / "git").exists()


@needs_bwrap
def test_a_path_folder_not_made_yet_in_the_workspace_makes_commands_ask(api, env, workspace):
    api.add({"content": [tool_use("bash", {"command": "mkdir -p node_modules/.bin; touch ran"})]})
    api.add({"content": [text("Done.")]})
    path = f"{workspace}/node_modules/.bin:{env['PATH']}"  # direnv's layout node, before install
    result = run_cli("-p", "go", cwd=workspace, env={**env, "PATH": path})
    assert result.returncode == 0, result.stderr
    assert "does not exist or is a link" in result.stderr
    assert not (workspace / "ran").exists()


@needs_bwrap
def test_a_command_never_gets_the_key_under_another_name(api, env, workspace):
    api.add({"content": [tool_use("bash", {"command": "env | grep -c sk- ; true"})]})
    api.add({"content": [text("Done.")]})
    more = {"LLM_CREDS": API_KEY, "APP_CONFIG": '{"anthropic": "' + API_KEY + '"}'}
    result = run_cli("-p", "go", cwd=workspace, env={**env, **more})
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert output.startswith("0")


def test_a_env_that_is_a_folder_is_one_clear_line_not_a_crash(api, env, workspace):
    (workspace / ".env").mkdir()  # shipped by a repository
    result = run_cli("-p", "go", cwd=workspace, env=env)
    assert result.returncode != 0
    assert "is not a regular file" in result.stderr
    assert "Traceback" not in result.stderr and "IsADirectoryError" not in result.stderr
