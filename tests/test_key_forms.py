"""planloop's key in forms and places the file tools and the sandbox must know from the start.

- A workspace file that holds the key under a name no key file has (`config/local.json`), met
  by the file tools before any command ran (before the key-copy search had reported it): an edit
  that puts one character into the key would make the next read show the rest of it.
- The key in base64 broken into lines, as `base64` writes it (76 characters a line) and a YAML
  block indents it: every decoder skips the line breaks.

Each drives `python agent.py` against the fake API with a key of a real key's length (a short
one would fit on one line of base64).
"""

from __future__ import annotations

import base64
import contextvars
import json
import textwrap
import tracemalloc

import pytest
from conftest import run_cli
from test_hostile_pass4 import needs_bwrap, run_as, tool_results
from test_key_copies import layout, plant

from fakeapi import FakeMessagesAPI, text, tool_use
from tools import sandbox
from tools.base import ToolError
from tools.bind_watch import holds_the_key
from tools.file_call import file_call
from tools.files import edit_file

__all__ = ["layout"]  # a fixture, used by name below

LONG_KEY = "sk-ant-api03-" + "Zq7KwP3xR9" * 9 + "-AA"  # as long as a real key
INVISIBLE = "\u2063"  # a character the model can drop again


@pytest.fixture
def long_key_env(env):
    """(fake API, environment) for a run with LONG_KEY."""
    with FakeMessagesAPI(api_key=LONG_KEY) as api:
        yield api, {**env, "ANTHROPIC_API_KEY": LONG_KEY, "ANTHROPIC_BASE_URL": api.base_url}


def sent_text(api) -> str:
    """Everything planloop sent, as JSON text with INVISIBLE taken out of it."""
    return json.dumps(api.accepted, ensure_ascii=False).replace(INVISIBLE, "")


def wrapped_base64(value: str) -> str:
    """`value` in base64 as the `base64` tool writes it: 76 characters a line."""
    return base64.encodebytes(value.encode()).decode()


def test_an_edit_cannot_break_the_key_open_before_any_command_ran(long_key_env, workspace):
    api, env = long_key_env
    config = workspace / "config" / "local.json"
    config.parent.mkdir()
    original = json.dumps({"anthropic": {"api_key": LONG_KEY}}, indent=2) + "\n"
    config.write_text(original)
    into_the_key = {"old_text": "sk-ant-", "new_text": "sk-ant-" + INVISIBLE}
    api.add({"content": [tool_use("read_file", {"path": "config/local.json"})]})
    api.add({"content": [tool_use("edit_file", {"path": "config/local.json", **into_the_key})]})
    api.add({"content": [tool_use("read_file", {"path": "config/local.json"})]})
    api.add({"content": [tool_use("write_file", {"path": "config/local.json", "content": "{}"})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "check the config", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    first_read, edit, second_read, write = tool_results(api)
    assert "[redacted]" in first_read and "[redacted]" in second_read
    for refused in (edit, write):
        assert "protected" in refused and "holds planloop's API key" in refused, refused
    assert config.read_text() == original
    assert LONG_KEY not in sent_text(api) and LONG_KEY not in result.stdout + result.stderr


def test_the_edit_judges_the_file_it_opened_whatever_the_path_check_saw(monkeypatch, workspace):
    # The check by path runs before the tool opens the file; a command may put another file at
    # the path in between. The tool judges the bytes it read, and refuses alike.
    monkeypatch.setenv("ANTHROPIC_API_KEY", LONG_KEY)
    monkeypatch.setattr(sandbox, "key_file_reason", lambda workspace, relative: None)
    (workspace / "settings.ini").write_text(f"[llm]\nkey = {LONG_KEY}\n")

    def edit_as_a_call() -> None:
        file_call("call-1").approved = set()  # a permission policy looked, approved nothing
        edit_file(workspace, "settings.ini", "sk-ant-", "sk-ant-" + INVISIBLE)

    with pytest.raises(ToolError, match="holds planloop's API key"):
        contextvars.copy_context().run(edit_as_a_call)  # the call's context stays in here
    assert (workspace / "settings.ini").read_text() == f"[llm]\nkey = {LONG_KEY}\n"


def test_a_key_in_base64_broken_into_lines_is_not_shown_by_read_file(long_key_env, workspace):
    api, env = long_key_env
    (workspace / "key.b64").write_text(wrapped_base64(LONG_KEY))
    secret = "apiVersion: v1\nkind: Secret\ndata:\n  key: |\n"
    indented = textwrap.indent(wrapped_base64(LONG_KEY), "    ")  # a YAML block
    (workspace / "secret.yaml").write_text(secret + indented)
    for name in ("key.b64", "secret.yaml"):
        api.add({"content": [tool_use("read_file", {"path": name})]})
    api.add({"content": [text("Done.")]})
    result = run_cli("-p", "look", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    for shown in tool_results(api):
        assert "holds planloop's API key" in shown, shown
    lines = [line.strip() for line in wrapped_base64(LONG_KEY).splitlines()]
    assert not any(line in sent_text(api) for line in lines)


@needs_bwrap
def test_a_key_in_base64_broken_into_lines_is_hidden_from_commands(env, layout):
    user, workspace, planloop_home, home = layout
    with FakeMessagesAPI(api_key=LONG_KEY) as api:
        plant(home, {"projects/bot/anthropic.key.b64": wrapped_base64(LONG_KEY)}, user)
        plant(workspace.parent, {"other/key.b64": wrapped_base64(LONG_KEY)}, user)
        plant(home, {"projects/bot/plain.b64": wrapped_base64("an ordinary value")}, user)
        steal = (
            "cat ~/projects/bot/anthropic.key.b64 ../other/key.b64 | base64 -d | rev; "
            "echo; base64 -d ~/projects/bot/plain.b64"
        )
        api.add({"content": [tool_use("bash", {"command": steal})]})
        api.add({"content": [text("Done.")]})
        run_env = {**env, "ANTHROPIC_API_KEY": LONG_KEY, "ANTHROPIC_BASE_URL": api.base_url}
        run_env |= {"PLANLOOP_HOME": str(planloop_home), "HOME": str(home)}
        result = run_as(user, api, run_env, workspace, home)
        assert result.returncode == 0, result.stderr
        (output,) = tool_results(api)
    assert "an ordinary value" in output  # a file without the key: readable
    assert LONG_KEY[::-1] not in output and LONG_KEY not in output
    assert (home / "projects/bot/anthropic.key.b64").read_text() == wrapped_base64(LONG_KEY)


# --- judging a file costs what its data costs ---------------------------------------------------


def test_a_dotenv_file_that_doubles_its_value_each_line_is_judged_without_building_it(
    monkeypatch,
):
    # 275 bytes whose python-dotenv expansion would be 2^27 characters: judged as holding the
    # key (too big to expand: hidden from commands) in a few megabytes.
    monkeypatch.setenv("ANTHROPIC_API_KEY", LONG_KEY)
    bomb = "A=xxxxxxxx\n" + "A=${A}${A}\n" * 24  # 2^27 characters
    tracemalloc.start()
    try:
        judged = holds_the_key(bomb.encode())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert judged is True
    assert peak < 64 * 1024 * 1024, f"{peak} bytes at most"


def test_a_key_joined_over_a_quoted_line_break_is_found(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", LONG_KEY)
    split = f'K1={LONG_KEY[:40]}\nKEY="\n${{K1}}{LONG_KEY[40:]}"\n'
    assert holds_the_key(split.encode())
    assert not holds_the_key(b'K1=sk-ant-\nKEY="\n${K1}other"\n')


def test_a_sparse_key_file_is_judged_by_its_data_not_its_size(monkeypatch, workspace):
    # `truncate -s 16M .env.1`, as many times as a command likes: reading 16 MiB of zeros for
    # each, before every command, held planloop for minutes.
    monkeypatch.setenv("ANTHROPIC_API_KEY", LONG_KEY)
    sparse = workspace / ".env.1"
    with open(sparse, "wb") as file:
        file.truncate(16 * 1024 * 1024 - 1)
    # Judged once first: what a first call compiles and caches (some 800 KB) is no reading, and
    # left the room another test's threads allocating meanwhile could fill.
    sandbox.holds_known_secret(sparse)
    tracemalloc.start()
    try:
        judged = sandbox.holds_known_secret(sparse)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert judged is False and peak < 1024 * 1024, f"{peak} bytes at most"
    with open(sparse, "r+b") as file:  # the key written into the middle of it
        file.seek(8 * 1024 * 1024)
        file.write(f"ANTHROPIC_API_KEY={LONG_KEY}\n".encode())
    assert sandbox.holds_known_secret(sparse)
