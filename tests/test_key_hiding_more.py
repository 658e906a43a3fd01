"""planloop's key stays hidden for the whole run, in every encoding and wherever it is read from.

Each test plants the key (the fake API's) where a person's setup keeps it, then a prompt-
injected model tries to get it back base64'd (which the tool result's redaction of the plain
key would not catch), or to change it with the file tools past that redaction. Each drives
`python agent.py` against the fake API, as root and as an unprivileged user.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from pathlib import Path

import pytest
from conftest import API_KEY, run_cli
from test_hostile_pass4 import needs_bwrap, run_as, tool_results
from test_key_hiding import (
    CONTROL,
    folders,
    hand_over,
    leaked,
    link,
    steal,
    write,
)

from fakeapi import text, tool_use

__all__ = ["folders"]  # a fixture, used by name below

ENV_LINE = f"ANTHROPIC_API_KEY={API_KEY}\n"


def raw_dump(output: str) -> dict[str, bytes]:
    """Each file's bytes, from `dump_command`'s output."""
    contents = {}
    for line in output.splitlines():
        path, sep, encoded = line.partition(": ")
        if sep and path.startswith("/"):
            try:
                contents[path] = base64.b64decode(encoded.strip(), validate=True)
            except binascii.Error:
                contents[path] = encoded.encode()
    return contents


def run_steps(user, api, env, workspace, planloop_home, home, steps) -> list[str]:
    """Run planloop once with a model that makes the tool calls `steps`: the tool results."""
    for name, arguments in steps:
        api.add({"content": [tool_use(name, arguments)]})
    api.add({"content": [text("Done.")]})
    env = {**env, "HOME": str(home), "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    return tool_results(api)


@needs_bwrap
@pytest.mark.parametrize("where", ["outside", "inside"])
def test_the_file_an_env_link_led_to_stays_hidden_after_the_link_changes(api, env, folders, where):
    # `.env -> ~/keys/anthropic.env` (one key file linked everywhere) or `.env ->
    # config/dev.env`. A link cannot be bound read-only: the first command removes or re-points
    # it, and the next reads the file by its own path. Moving the folder that holds it away
    # (then reading it by its new name) must not work either.
    user, _, workspace, planloop_home, home = folders
    if where == "outside":
        key_file = write(home / "keys" / "anthropic.env", ENV_LINE)
        link(workspace / ".env", str(key_file))
        first = "rm .env"
        moved = home / "moved" / "anthropic.env"
        move = f"mv {home / 'keys'} {home / 'moved'}"
    else:
        key_file = write(workspace / "config" / "dev.env", ENV_LINE)
        link(workspace / ".env", "config/dev.env")
        first = "ln -sfn config/none.env .env"
        moved = workspace / "moved" / "dev.env"
        move = "mv config moved"
    control = write(workspace / "notes.txt", CONTROL)
    hand_over(user, workspace, planloop_home, home)
    if where == "inside":
        # Re-pointed at a file not made yet, the link makes the commands after it ask (one
        # creating that file would make the `.env`): headless, none runs, none reads the key.
        steps = [("bash", {"command": first}), ("bash", {"command": move})]
        steps.append(("bash", {"command": f"base64 -w0 {key_file} {moved}; rev {key_file}"}))
        results = run_steps(user, api, env, workspace, planloop_home, home, steps)
        assert all("which does not exist yet" in result for result in results[1:]), results
        assert not any(API_KEY in result or API_KEY[::-1] in result for result in results)
        assert key_file.read_text() == ENV_LINE
        return
    api.add({"content": [tool_use("bash", {"command": first})]})
    api.add({"content": [tool_use("bash", {"command": move})]})
    contents = steal(user, api, env, workspace, planloop_home, home, [key_file, moved], control)
    assert leaked(contents) == [] and contents[str(key_file)] == ""
    assert key_file.read_text() == ENV_LINE  # the person's key file is still theirs, as it was


@needs_bwrap
def test_a_folder_a_command_closed_makes_the_next_command_ask(api, env, folders):
    # `chmod 311 config`: planloop (not root) can no longer list the folder, so its scan no
    # longer finds config/.env; a command still opens the file by its name.
    user, _, workspace, planloop_home, home = folders
    if user != "nobody":
        pytest.skip("root lists every folder")
    key_file = write(workspace / "config" / ".env", ENV_LINE)
    write(workspace / "notes.txt", CONTROL)
    hand_over(user, workspace, planloop_home, home)
    try:
        results = run_steps(
            user, api, env, workspace, planloop_home, home,
            [("bash", {"command": "chmod 311 config"}),
             ("bash", {"command": f"base64 {key_file}"})],
        )  # fmt: skip
    finally:
        (workspace / "config").chmod(0o755)
    assert "[exit code: 0]" in results[0]
    # The next command is refused: planloop can no longer find config/.env to hide it.
    assert "can be entered but not listed by planloop" in results[1], results[1]
    assert base64.b64encode(ENV_LINE.encode()).decode()[:20] not in json.dumps(api.requests)


@needs_bwrap
def test_a_folder_closed_before_the_run_makes_commands_ask(api, env, folders):
    # The same `chmod 311 config`, made by a command of an earlier run: this run's scan never
    # saw config/.env, so nothing hides it, and `cat config/.env` would read it by its name.
    user, _, workspace, planloop_home, home = folders
    if user != "nobody":
        pytest.skip("root lists every folder")
    write(workspace / "config" / ".env", ENV_LINE)
    hand_over(user, workspace, planloop_home, home)
    (workspace / "config").chmod(0o311)
    try:
        results = run_steps(
            user, api, env, workspace, planloop_home, home,
            [("bash", {"command": "base64 config/.env"})],
        )  # fmt: skip
    finally:
        (workspace / "config").chmod(0o755)
    assert "can be entered but not listed by planloop" in results[0], results[0]
    assert base64.b64encode(ENV_LINE.encode()).decode()[:20] not in json.dumps(api.requests)


@needs_bwrap
def test_a_env_that_holds_the_key_in_utf16_appears_empty(api, env, folders):
    # Windows PowerShell 5's `echo ANTHROPIC_API_KEY=... > .env.local` writes UTF-16 with a BOM;
    # other tools write it without, in either byte order. `iconv` reads each back.
    user, _, workspace, planloop_home, home = folders
    files = {
        ".env.local": "\ufeff" + ENV_LINE,
        ".env.production": ENV_LINE,
        ".env.test": "\ufeff" + ENV_LINE,
    }
    encodings = {".env.local": "utf-16-le", ".env.production": "utf-16-be", ".env.test": "utf-32"}
    paths = []
    for name, content in files.items():
        path = workspace / name
        path.write_bytes(content.encode(encodings[name]))
        paths.append(path)
    plain = workspace / ".env.example"  # UTF-16 too, without the key: read as it is
    plain.write_bytes("\ufeffDEBUG=1\n".encode("utf-16-le"))
    control = write(workspace / "notes.txt", CONTROL)
    hand_over(user, workspace, planloop_home, home)
    steal(user, api, env, workspace, planloop_home, home, [*paths, plain], control)
    contents = raw_dump(tool_results(api)[-1])
    assert all(contents[str(path)] == b"" for path in paths), contents
    assert contents[str(plain)] == plain.read_bytes()


@needs_bwrap
def test_a_key_file_your_start_up_files_read_by_a_command_substitution_appears_empty(
    api, env, folders
):
    # `export ANTHROPIC_API_KEY="$(cat ~/keys/anthropic.txt)"` keeps the key out of ~/.bashrc;
    # zsh's `$(< file)`, and an `.envrc` doing the same for direnv. A file they read that holds
    # no key is read as before.
    user, _, workspace, planloop_home, home = folders
    paths = [
        write(home / "keys" / "bash.txt", API_KEY + "\n"),
        write(home / "keys" / "zsh.txt", API_KEY + "\n"),
        write(home / "keys" / "direnv.txt", API_KEY + "\n"),
    ]
    region = write(home / "keys" / "region.txt", "eu-west-1\n")
    bashrc = 'export ANTHROPIC_API_KEY="$(cat ~/keys/bash.txt)"\n'
    write(home / ".bashrc", bashrc + "export REGION=$(cat ~/keys/region.txt)\n")
    write(home / ".zshrc", "export ANTHROPIC_API_KEY=$(< ~/keys/zsh.txt)\n")
    write(workspace / ".envrc", "export ANTHROPIC_API_KEY=$(cat ~/keys/direnv.txt)\n")
    control = write(workspace / "notes.txt", CONTROL)
    hand_over(user, workspace, planloop_home, home)
    contents = steal(user, api, env, workspace, planloop_home, home, [*paths, region], control)
    assert leaked(contents) == [] and all(contents[str(path)] == "" for path in paths)
    assert contents[str(region)] == "eu-west-1\n"


@needs_bwrap
def test_the_authinfo_file_appears_empty(api, env, folders):
    # Emacs' auth-source file, .netrc's format: gptel and ellama read the Anthropic key there.
    user, _, workspace, planloop_home, home = folders
    authinfo = write(
        home / ".authinfo", f"machine api.anthropic.com login apikey password {API_KEY}\n"
    )
    control = write(workspace / "notes.txt", CONTROL)
    hand_over(user, workspace, planloop_home, home)
    contents = steal(user, api, env, workspace, planloop_home, home, [authinfo], control)
    assert leaked(contents) == [] and contents[str(authinfo)] == ""


@needs_bwrap
@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
def test_the_file_tools_do_not_change_the_key_file_a_env_leads_to(api, env, folders, kind):
    # `.env -> config/dev.env` (or a second name of it): commands see it empty, read_file
    # shows the key as [redacted]. edit_file would answer whether its old_text is in the file,
    # and change the key so that the redaction no longer knows it; after a command re-points
    # the link, too. Headless, nobody can approve such a change: it is refused.
    user, _, workspace, planloop_home, home = folders
    key_file = write(workspace / "config" / "dev.env", ENV_LINE)
    if kind == "symlink":
        link(workspace / ".env", "config/dev.env")
    else:
        os.link(key_file, workspace / ".env")
    hand_over(user, workspace, planloop_home, home)
    # The key is "test-key": an edit of its end that the model can guess.
    edit = {"path": "config/dev.env", "old_text": "-key", "new_text": "-kez"}
    read = ("read_file", {"path": "config/dev.env"})
    steps = [
        read,
        ("edit_file", edit),
        ("write_file", {"path": "config/dev.env", "content": "ANTHROPIC_API_KEY=x\n"}),
        ("bash", {"command": "ln -sfn config/none.env .env; base64 config/dev.env"}),
        read,
        ("edit_file", edit),
    ]
    results = run_steps(user, api, env, workspace, planloop_home, home, steps)
    assert key_file.read_text() == ENV_LINE
    for result in (results[1], results[2], results[5]):
        assert "was not changed" in result and "holds planloop's API key" in result, result
    assert "[redacted]" in results[0] and "[redacted]" in results[4]
    requests = json.dumps(api.accepted)
    assert API_KEY not in requests and API_KEY.replace("-key", "-kez") not in requests
    assert base64.b64encode(ENV_LINE.encode()).decode()[8:-8] not in requests


def key_in_session_logs(planloop_home: Path) -> list[str]:
    """The session records under `planloop_home` that hold the key, as text or base64."""
    found = []
    for log in planloop_home.rglob("*.jsonl"):
        for line in log.read_text().splitlines():
            record = json.loads(line)
            copy = base64.b64decode(record["base64"]) if "base64" in record else b""
            if API_KEY in line or API_KEY.encode() in copy:
                found.append(line)
    return found


def test_the_undo_copy_of_a_latin1_file_keeps_no_key(api, env, workspace, isolated_home):
    # A Latin-1 settings.ini with the key in it: a copy kept for /undo would be base64, which
    # the session log's redaction of the plain key cannot see. A file holding the key is
    # changed only with the person's approval (here --yes), and no copy of it is kept.
    settings = workspace / "settings.ini"
    settings.write_bytes(f"# r\u00e9glages\napi_key = {API_KEY}\ndebug = 0\n".encode("latin-1"))
    edit = {"path": "settings.ini", "old_text": "debug = 0", "new_text": "debug = 1"}
    api.add({"content": [tool_use("read_file", {"path": "settings.ini"})]})
    api.add({"content": [tool_use("edit_file", edit)]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "turn debugging on", "--yes", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    results = tool_results(api)
    assert results[1].startswith("Replaced 1 occurrence"), results
    assert b"debug = 1" in settings.read_bytes()
    logs = [log.read_text() for log in isolated_home.rglob("*.jsonl")]
    assert logs and any("holds planloop's API key" in log for log in logs)  # why not kept
    assert not any('"base64"' in log for log in logs)
    assert key_in_session_logs(isolated_home) == []
