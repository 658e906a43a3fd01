"""The configuration that host tools act on by themselves is protected like a git hook.

VS Code runs a tasks.json task on folder open, mise runs its hooks when the shell enters the
folder, direnv loads its cache, Mercurial runs its hgrc hooks for a shell prompt's `hg status`.
A sandboxed command that changed one of them would have code run outside the sandbox later, with
no command of the person's. Each test drives `python agent.py` against the fake API, as root and
as an unprivileged user.
"""

from __future__ import annotations

import os
from pathlib import Path

from test_hostile_pass4 import NOBODY, needs_bwrap, owned_file, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.paths import protected_reason

__all__ = ["user_folders"]  # a fixture, used by name below

TASKS = '{"tasks": [{"label": "build", "command": "make"}]}\n'
PLANTED = '{"tasks": [{"command": "touch /tmp/ran", "runOptions": {"runOn": "folderOpen"}}]}'


def prepare(workspace: Path, user: str) -> None:
    for folder in (".vscode", "src/mise"):
        (workspace / folder).mkdir(parents=True)
    owned_file(workspace / ".vscode/tasks.json", TASKS, user)
    owned_file(workspace / "mise.toml", '[tools]\npython = "3.11"\n', user)
    owned_file(workspace / "src/mise/app.py", "print('app')\n", user)
    if user == "nobody":
        for folder in (".vscode", "src", "src/mise"):
            os.chown(workspace / folder, NOBODY, NOBODY)


@needs_bwrap
def test_a_command_cannot_change_what_an_editor_or_mise_runs_on_its_own(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    prepare(workspace, user)
    attack = (
        f"echo '{PLANTED}' > .vscode/tasks.json; echo '[hooks]' >> mise.toml; "
        "rm -f mise.toml; echo '# edited' >> src/mise/app.py; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": attack})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "finished" in output and "Read-only file system" in output
    assert (workspace / ".vscode/tasks.json").read_text() == TASKS
    assert (workspace / "mise.toml").read_text() == '[tools]\npython = "3.11"\n'
    # A code folder that happens to be called mise/ is the project's, and stays writable.
    assert (workspace / "src/mise/app.py").read_text() == "print('app')\n# edited\n"


@needs_bwrap
def test_a_new_editor_folder_is_kept_and_reported_at_once_and_at_exit(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    make = "mkdir .idea && echo '<project/>' > .idea/workspace.xml && echo made"
    api.add({"content": [tool_use("bash", {"command": make})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "made" in output
    assert ".idea is new" in output and "JetBrains" in output
    assert (workspace / ".idea/workspace.xml").read_text() == "<project/>\n"  # nothing deleted
    # Told on the terminal when it happened, and once more in planloop's last words.
    assert result.stderr.count(".idea (a host tool's configuration)") == 2, result.stderr


def test_write_file_asks_before_it_changes_an_editors_settings(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    prepare(workspace, user)
    settings = {"path": ".vscode/settings.json", "content": '{"python.defaultInterpreterPath": 1}'}
    api.add({"content": [tool_use("write_file", settings)]})
    api.add({"content": [text("Done.")]})
    # Headless without --yes: nobody can be asked, so the write is refused.
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert ".vscode is protected" in output and "VS Code" in output
    assert not (workspace / ".vscode/settings.json").exists()


def test_the_protected_names_are_the_ones_tools_read_and_no_more():
    root = Path("/work")
    for path in (
        ".vscode/tasks.json",
        ".idea/workspace.xml",
        ".direnv/nix-profile.rc",
        ".hg/hgrc",
        ".jj/repo/config.toml",
        ".mise/config.toml",
        "mise/config.toml",
        "mise/conf.d/hooks.toml",
        "app/.config/mise.toml",
        "mise.local.toml",
        ".mise.production.toml",
        ".envrc",
        ".sl/config",
        "_darcs/prefs/defaults",
        ".helix/languages.toml",
        ".zed/settings.json",
        ".cargo/config.toml",
        "crates/app/.cargo/config",
        ".Rprofile",
        ".ghci",
        ".octaverc",
        ".pryrc",
        ".irbrc",
        ".pdbrc",
        ".perldb",
        "readline.py",
        "rlcompleter.py",
        ".poetry/plugins/x.pth",
        ".nvmrc",
        "web/.node-version",
        ".python-version",
        ".java-version",
        ".sdkmanrc",
        ".shadowenv.d/500_default.lisp",
        "_opam/bin/git",
        "global.json",
    ):
        assert protected_reason(root, path), path
    for path in ("src/mise/app.py", "mise/README.md", "docs/vscode.md", "mise.txt", "idea/x"):
        assert protected_reason(root, path) is None, path


@needs_bwrap
def test_what_cargo_runs_when_an_editor_opens_the_folder_cannot_be_planted(api, env, user_folders):
    # rust-analyzer runs `cargo metadata` on opening the folder, and cargo runs the
    # rustc-wrapper that .cargo/config.toml names.
    user, workspace, planloop_home, home = user_folders
    (workspace / ".cargo").mkdir()
    owned_file(workspace / ".cargo/config.toml", "[build]\njobs = 2\n", user)
    if user == "nobody":
        os.chown(workspace / ".cargo", NOBODY, NOBODY)
    wrapper = '[build]\nrustc-wrapper = "w.sh"\n'
    plant = f"printf '{wrapper}' >> .cargo/config.toml; echo finished"
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [tool_use("read_file", {"path": ".cargo/config.toml"})]})
    write = {"path": ".cargo/config.toml", "content": wrapper}
    api.add({"content": [tool_use("write_file", write)]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, _, written = tool_results(api)
    assert "Read-only file system" in ran, ran
    assert ".cargo is protected" in written and "cargo" in written
    assert (workspace / ".cargo/config.toml").read_text() == "[build]\njobs = 2\n"


@needs_bwrap
def test_a_java_version_naming_a_folder_of_the_workspace_is_reported_and_held(
    api, env, user_folders
):
    # jenv and SDKMAN take a version's name as a folder under their own, `../` and all: a
    # command that writes one naming its own jdk/ has your next `java` (or, with SDKMAN's
    # auto_env, your next prompt's `git`) run its code. Made new: reported; there: read-only.
    user, workspace, planloop_home, home = user_folders
    owned_file(workspace / ".sdkmanrc", "java=17.0.9-tem\n", user)
    plant = (
        "mkdir -p jdk/bin && printf '#!/bin/sh\\n' > jdk/bin/java && "
        "echo ../../../../../../..$PWD/jdk > .java-version; "
        "echo java=../../../..$PWD/jdk >> .sdkmanrc; echo finished"
    )
    api.add({"content": [tool_use("bash", {"command": plant})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert ".sdkmanrc: Read-only file system" in ran and "finished" in ran
    assert ".java-version is new" in ran and "jenv runs the java" in ran
    assert ".java-version (a host tool's configuration)" in " ".join(result.stderr.split())
    assert (workspace / ".sdkmanrc").read_text() == "java=17.0.9-tem\n"
