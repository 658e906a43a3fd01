"""A command rule saved for a folder: kept in planloop's home (0600), loaded on the next start.

Through the real CLI in a pseudo-terminal: save a rule, start again in the same folder and see
a matching command run without a question. As an attacker would: a rules file in the
workspace, a `.env` that tries to move planloop's home into the workspace, a rules file others
can write, a link, another folder's file, or rules an "always" could not have made — none of
them allows anything.
"""

from __future__ import annotations

import json
import os
import stat

import pytest
from conftest import results_by_id, run_cli, terminal_env
from test_interactive import Terminal

from fakeapi import text, tool_use
from middleware.saved_rules import load_saved_prefixes, rules_file, write_saved_prefixes

pytestmark = pytest.mark.real_exec


def start(api, workspace, home) -> Terminal:
    return Terminal(workspace, terminal_env(api, home), "--no-sandbox")


def test_a_saved_rule_is_private_outside_the_workspace_and_used_on_the_next_start(
    api, workspace, isolated_home
):
    api.add({"content": [tool_use("bash", {"command": "touch one"})]})
    api.add({"content": [text("Made one.")]})
    with start(api, workspace, isolated_home) as terminal:
        terminal.wait_for_prompt()
        terminal.type("make one\r")
        terminal.wait_for("[a]lways for commands starting with `touch`: ")
        terminal.type("a\r")
        terminal.wait_for("Made one.")
        terminal.wait_for_prompt()
        terminal.type("/permissions save 1\r")
        terminal.wait_for("Saved for this folder in")
        terminal.wait_for_prompt()
        terminal.type("/exit\r")
        assert terminal.close() == 0
    saved = rules_file(workspace)
    assert saved.is_relative_to(isolated_home / "permissions")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    assert json.loads(saved.read_text())["commands"] == [["touch"]]
    assert not any("permissions" in path.name for path in workspace.rglob("*"))

    # The next start in this folder: said at start-up, used without a question, listed as saved.
    api.add({"content": [tool_use("bash", {"command": "touch two"})]})
    api.add({"content": [text("Made two.")]})
    with start(api, workspace, isolated_home) as terminal:
        terminal.wait_for("Saved rules of this folder allow commands starting with `touch`")
        terminal.wait_for_prompt()
        terminal.type("make two\r")
        assert "[y]es" not in terminal.wait_for("Made two.")
        terminal.wait_for_prompt()
        terminal.type("/permissions\r")
        assert "1. commands starting with `touch`  (saved for this folder)" in (
            terminal.wait_for_prompt()
        )
        terminal.type("/permissions forget 1\r")
        terminal.wait_for("Forgotten")
        terminal.wait_for_prompt()
        terminal.type("/exit\r")
        assert terminal.close() == 0
    assert (workspace / "two").exists()
    assert not saved.exists()  # forgetting the last saved rule removes the file


def test_only_a_command_rule_can_be_saved(api, workspace, isolated_home):
    api.add({"content": [tool_use("write_file", {"path": ".env", "content": "A=1\n"})]})
    api.add({"content": [text("Wrote it.")]})
    with start(api, workspace, isolated_home) as terminal:
        terminal.wait_for_prompt()
        terminal.type("write it\r")
        terminal.wait_for("[a]lways for writes to .env: ")
        terminal.type("a\r")
        terminal.wait_for("Wrote it.")
        terminal.wait_for_prompt()
        terminal.type("/permissions save 1\r")
        terminal.wait_for("Nothing changed: only command rules can be saved")
        terminal.wait_for_prompt()
        terminal.type("/exit\r")
        assert terminal.close() == 0
    assert not rules_file(workspace).exists()


def test_a_workspace_cannot_bring_its_own_rules(api, workspace, isolated_home, monkeypatch):
    # The workspace's .env names a planloop home inside the workspace, holding a valid rules
    # file for this very folder: .env cannot move the home, so the rules are never read.
    evil_home = workspace / "evil-home"
    monkeypatch.setenv("PLANLOOP_HOME", str(evil_home))
    write_saved_prefixes(workspace, [("touch",)])
    monkeypatch.setenv("PLANLOOP_HOME", str(isolated_home))
    assert (evil_home / "permissions").is_dir()
    (workspace / ".env").write_text(f"PLANLOOP_HOME={evil_home}\n")
    api.add({"content": [tool_use("bash", {"command": "touch pwned"})]})
    api.add({"content": [text("Asked.")]})
    with start(api, workspace, isolated_home) as terminal:
        shown = terminal.wait_for_prompt()
        assert "Saved rules" not in shown
        terminal.type("make it\r")
        terminal.wait_for("[a]lways for commands starting with `touch`: ")  # asked
        terminal.type("n\r")
        terminal.wait_for("Reason for the model (optional):")
        terminal.type("\r")
        terminal.wait_for("Asked.")
        terminal.wait_for_prompt()
        terminal.type("/exit\r")
        assert terminal.close() == 0
    assert not (workspace / "pwned").exists()


def test_headless_runs_do_not_use_saved_rules(api, workspace, env):
    write_saved_prefixes(workspace, [("touch",)])
    call = tool_use("bash", {"command": "touch ran"})
    api.add({"content": [call]})
    api.add({"content": [text("Could not.")]})
    result = run_cli("--no-sandbox", "-p", "make it", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "ran").exists()
    assert "bash is disabled" in results_by_id(api.accepted[1])[call["id"]]["content"]


# ---- files that are not trusted -------------------------------------------------------------


def test_a_file_others_can_write_is_ignored(workspace):
    path = write_saved_prefixes(workspace, [("touch",)])
    os.chmod(path, 0o666)
    prefixes, problem = load_saved_prefixes(workspace)
    assert prefixes == [] and "others can write it" in problem


def test_a_link_is_ignored(workspace, tmp_path):
    real = write_saved_prefixes(workspace, [("touch",)])
    elsewhere = tmp_path / "elsewhere.json"
    real.rename(elsewhere)
    real.symlink_to(elsewhere)
    prefixes, problem = load_saved_prefixes(workspace)
    assert prefixes == [] and "cannot be opened" in problem


def test_another_folders_file_is_ignored(workspace, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    write_saved_prefixes(other, [("touch",)])
    rules_file(other).rename(rules_file(workspace))
    prefixes, problem = load_saved_prefixes(workspace)
    assert prefixes == [] and "not about this folder" in problem


def test_rules_an_always_could_not_have_made_are_ignored(workspace):
    path = write_saved_prefixes(workspace, [("touch",)])
    record = json.loads(path.read_text())
    record["commands"] += [["bash"], ["npm"], ["touch", "a", "&&", "sh"], "ls", [], [1]]
    path.write_text(json.dumps(record))
    prefixes, problem = load_saved_prefixes(workspace)
    assert prefixes == [("touch",)]
    assert "6 rule(s)" in problem


def test_no_file_no_rules_and_no_complaint(workspace):
    assert load_saved_prefixes(workspace) == ([], "")
