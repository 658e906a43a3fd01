"""The key planloop uses, against the bounds and cuts on the way to the model.

A key file is judged on all of it, however far in the key is. A text that is cut (a long line
read_file shows, a command's output head and tail, a summarizer's transcript, an instruction
file's cap) is redacted before the cut, so no cut leaves a key's start or end behind. And what
is sent is redacted for this run's key, a resumed history too. Each end-to-end test asserts that
no 8-character slice of the key reached a request the fake API accepted.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AGENT
from test_hostile_pass4 import needs_bwrap, owned_file, run_as, tool_results, user_folders

import tools.bind_watch as bind_watch
import tools.sandbox as sandbox
from cli.piped import PIPED_LIMIT, with_piped_input
from fakeapi import FakeMessagesAPI, text, thinking, tool_use
from middleware.context import render_transcript
from prompts.project import MAX_INSTRUCTION_BYTES, instruction_file
from tools.process import HEAD_BYTES, TAIL_BYTES
from tools.textio import MAX_LINE_BYTES, MAX_LINE_CHARS, read_window

__all__ = ["user_folders"]  # a fixture, used by name

# A key as long as a real one (108 characters), of characters no prompt or tool note holds.
KEY = "sk-ant-api03-" + hashlib.sha256(b"bounds").hexdigest() + hashlib.sha1(b"b").hexdigest()
KEY = (KEY + "Zq9Xw7Vu5Ts3Rp1Nm")[:108]
OTHER_KEY = "sk-ant-oth3r-" + hashlib.sha256(b"other").hexdigest()[:60]


def slices(key: str) -> list[str]:
    return [key[start : start + 8] for start in range(len(key) - 7)]


def leaked(key: str, found: object) -> list[str]:
    """The 8-character slices of `key` in `found` (a text, or anything JSON)."""
    blob = found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)
    return [piece for piece in slices(key) if piece in blob]


@pytest.fixture
def api():
    fake = FakeMessagesAPI(script=[], api_key=KEY)
    with fake:
        yield fake
    assert fake.rejections == [], fake.rejections


@pytest.fixture
def env(api, isolated_home) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    return {
        **clean,
        "ANTHROPIC_API_KEY": KEY,
        "ANTHROPIC_BASE_URL": api.base_url,
        "PLANLOOP_HOME": str(isolated_home),
        "MODEL_ID": "test-model",
    }


def test_the_key_and_its_slices_are_told_apart_from_the_rest():
    assert len(KEY) == 108 and leaked(KEY, KEY) and not leaked(KEY, KEY[::-1])
    assert not leaked(KEY, "[redacted]") and not leaked(KEY, OTHER_KEY)


# --- a key file is judged on all of it --------------------------------------------------------

PADDING = ("# " + "x" * 1022 + "\n") * 1100  # a template padded past its first MiB


@needs_bwrap
@pytest.mark.parametrize("key_in_environment", [False, True])
def test_a_key_past_the_first_mib_of_a_key_file_is_hidden(
    api, env, user_folders, key_in_environment
):
    """A repository's padded .env template, filled in at its end: planloop reads its key from
    the whole file, so the sandbox must judge the whole file too."""
    user, workspace, planloop_home, home = user_folders
    owned_file(workspace / ".env", PADDING + f"ANTHROPIC_API_KEY={KEY}\n", user)
    owned_file(workspace / "docker.env", PADDING + f"ANTHROPIC_API_KEY={KEY}\n", user)
    # Printed reversed, so that no redaction of the output can hide what a command read.
    steal = "tail -c 300 .env | rev; tail -c 300 docker.env | rev; wc -c .env docker.env"
    api.add({"content": [tool_use("bash", {"command": steal})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    if not key_in_environment:  # the key only in the .env, as the README suggests
        env.pop("ANTHROPIC_API_KEY")
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "[exit code: 0]" in output
    assert not leaked(KEY, output[::-1]) and not leaked(KEY, output)
    assert re.search(r"\b0 \.env\b", output) and re.search(r"\b0 docker\.env\b", output)
    assert (workspace / ".env").read_text().endswith(f"={KEY}\n")  # kept on the host


@pytest.fixture
def only_the_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


@pytest.mark.parametrize("start", [0, 1, 4000, 4096 - len(KEY) + 1, 4096 - 1, 3 * 4096 - 50])
def test_a_key_across_a_chunk_edge_is_found(tmp_path, monkeypatch, only_the_key, start):
    monkeypatch.setattr(bind_watch, "READ_PIECE", 4096)
    path = tmp_path / "docker.env"
    path.write_bytes(b"a" * start + KEY.encode() + b"#" * 5000)
    assert sandbox.holds_known_secret(path)
    path.write_bytes(b"a" * start + KEY.encode()[:-1] + b"#" * 5000)
    assert not sandbox.holds_known_secret(path)


def test_a_file_too_big_to_scan_counts_as_holding_the_key(tmp_path, monkeypatch, only_the_key):
    monkeypatch.setattr(bind_watch, "READ_PIECE", 4096)
    monkeypatch.setattr(sandbox, "MAX_SECRET_SCAN_BYTES", 4 * 4096)
    path = tmp_path / ".env"
    path.write_bytes(b"a" * 4 * 4096)
    assert not sandbox.holds_known_secret(path)  # read to its end: no key
    path.write_bytes(b"a" * (4 * 4096 + 1))
    assert sandbox.holds_known_secret(path)  # past the bound: hidden


# --- read_file: redacted before a line is cut ---------------------------------------------------


def long_lines() -> list[str]:
    """Lines that put the key across read_file's cuts, each a different way."""
    lines = []
    for before_cut in (1, 8, 50, 100, len(KEY) - 1):  # the key's first characters shown
        lines.append("x" * (MAX_LINE_CHARS - before_cut) + KEY + "y" * 3000)
    # Four bytes a character: the byte cut (MAX_LINE_BYTES) falls where the character cut does.
    for before_cut in (8, 60):
        lines.append("\U0001f600" * (MAX_LINE_CHARS - before_cut) + KEY + "y" * 10)
    # The key over and over: redacted, far more of the line fits in the characters shown, and
    # the read stopped inside a key.
    lines.append(KEY * 200)
    # A template's `ANTHROPIC_API_KEY=` and blanks, the key pasted at the end of the line.
    lines.append("ANTHROPIC_API_KEY=" + " " * (MAX_LINE_CHARS - 18 - (len(KEY) - 3)) + KEY)
    return lines


def test_read_file_redacts_a_key_across_its_line_cut(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    lines = long_lines()
    owned_file(workspace / "notes.txt", "".join(line + "\n" for line in lines), user)
    owned_file(workspace / ".env", f"# fill in\nANTHROPIC_API_KEY={lines[-1][18:]}\n", user)
    api.add({"content": [tool_use("read_file", {"path": "notes.txt"})]})
    api.add({"content": [tool_use("read_file", {"path": ".env"})]})
    api.add({"content": [text("Read them.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    env.pop("ANTHROPIC_API_KEY")  # planloop's key is the .env's
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    notes, dotenv = tool_results(api)
    assert not leaked(KEY, api.accepted)
    shown = notes.splitlines()
    assert len(shown) == len(lines)
    assert all(line.endswith("[line truncated]") for line in shown[:5])
    assert shown[-1].endswith("[redacted]")  # redacted, the line is short enough to show whole
    assert "ANTHROPIC_API_KEY=" in dotenv and "[redacted]" in dotenv


def test_a_line_cut_at_its_read_bound_keeps_no_start_of_a_key():
    for filler in range(MAX_LINE_BYTES - len(KEY), MAX_LINE_BYTES + 2):
        data = ("\U0001f600" * (filler // 4) + "z" * (filler % 4) + KEY * 3 + "\n").encode()
        window = read_window(io.BytesIO(data), 1, 10, [KEY])
        assert not leaked(KEY, window.lines), filler


# --- a command's output: redacted before its head and tail are cut -----------------------------


@needs_bwrap
def test_a_key_across_the_cuts_of_a_commands_output_is_redacted(api, env, user_folders):
    """The key printed so that the output's head ends inside it and its tail starts inside it
    (a file of another name holding it, a program printing it): neither half may keep a part."""
    user, workspace, planloop_home, home = user_folders
    reversed_key = KEY[::-1]
    middle = 40_000
    command = (
        f"head -c {HEAD_BYTES - 50} /dev/zero | tr '\\0' x; printf %s {reversed_key} | rev; "
        f"head -c {middle} /dev/zero | tr '\\0' y; printf %s {reversed_key} | rev; "
        f"head -c {TAIL_BYTES - 50} /dev/zero | tr '\\0' z"
    )
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    (output,) = tool_results(api)
    assert "bytes cut from the middle" in output
    assert not leaked(KEY, api.accepted)
    assert "x[redacted]y" in output and "y[redacted]z" in output


# --- what is sent: redacted for this run's key, a resumed history too ---------------------------


def run_agent(env: dict, workspace: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(AGENT), *args],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )


def test_a_resumed_session_is_redacted_for_the_key_now_in_use(api, env, tmp_path):
    """Saved under one key, a session keeps another in the clear (a file the model read, what
    it thought about it). Resumed under that other key, none of it may reach the model."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(f"spare key: {OTHER_KEY}\n")
    api.api_key = KEY
    api.add({"content": [tool_use("read_file", {"path": "notes.txt"})]})
    api.add(
        {
            "content": [
                thinking(f"The notes hold a key, {OTHER_KEY}; I will not repeat it."),
                thinking("Nothing secret in this one."),
                text(f"The file holds a spare key ({OTHER_KEY})."),
            ]
        }
    )
    first = run_agent(env, workspace, "-p", "read the notes")
    assert first.returncode == 0, first.stderr
    session = re.search(r"--resume (\S+)", first.stdout + first.stderr).group(1)
    assert leaked(OTHER_KEY, api.accepted)  # not planloop's key in that run: sent as it was

    before = len(api.accepted)
    api.api_key = OTHER_KEY
    api.add({"content": [text("Going on.")]})
    second = run_agent(
        {**env, "ANTHROPIC_API_KEY": OTHER_KEY}, workspace, "--resume", session, "-p", "go on"
    )
    assert second.returncode == 0, second.stderr
    resumed = api.accepted[before:]
    assert resumed and not leaked(OTHER_KEY, resumed)
    history = json.dumps(resumed[0]["messages"])
    assert "[redacted]" in history and "Nothing secret in this one." in history
    # The thinking without the key goes back exactly as received, signature and all (the fake
    # refuses an edited one); the one holding the key is left out, not edited.
    assert "I will not repeat it" not in history


# --- the summarizer's transcript and an instruction file's cap ----------------------------------


def test_the_summarizers_transcript_cuts_after_redacting(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    for edge in (1, 8, 50, 100):
        output = "a" * (750 - edge) + KEY + "b" * 5000 + KEY + "c" * (750 - edge)
        messages = [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": output}],
            }
        ]
        assert not leaked(KEY, render_transcript(messages, max_chars=100_000)), edge


def test_an_instruction_file_cut_at_its_cap_keeps_no_part_of_the_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    for edge in (1, 8, 50, len(KEY) - 1):
        data = b"a" * (MAX_INSTRUCTION_BYTES - edge) + KEY.encode() + b"b" * 100
        shown = instruction_file("project", "AGENTS.md", data, len(data))
        assert not leaked(KEY, shown.text), edge
    many = KEY.encode() * (2 * MAX_INSTRUCTION_BYTES // len(KEY))
    shown = instruction_file(
        "project", "AGENTS.md", many[: MAX_INSTRUCTION_BYTES + 1 + len(KEY)], len(many)
    )
    assert not leaked(KEY, shown.text)


def test_piped_input_cut_at_its_limit_keeps_no_part_of_the_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    for edge in (1, 8, 50, len(KEY) - 1):
        data = b"a" * (PIPED_LIMIT - edge) + KEY.encode() + b"b" * 100
        prompt = with_piped_input("review this", io.BytesIO(data), lambda line: None)
        assert "planloop cut the piped input" in prompt
        assert not leaked(KEY, prompt), edge
    many = KEY.encode() * (2 * PIPED_LIMIT // len(KEY))
    prompt = with_piped_input("review this", io.BytesIO(many), lambda line: None)
    assert "[redacted]" in prompt and not leaked(KEY, prompt)


def test_each_request_of_a_long_conversation_is_redacted_not_only_the_first(monkeypatch):
    # The redaction keeps each message's redacted copy from one request to the next (the
    # history is not redacted again every turn); an old message holding the key must still go
    # out redacted in every later request, and one replaced by another copy (context clearing)
    # or a new key must be redacted afresh.
    from redaction import RequestRedactor, redact_request

    def user(words: str) -> dict:
        return {"role": "user", "content": [{"type": "text", "text": words}]}

    def assistant(words: str) -> dict:
        return {"role": "assistant", "content": [{"type": "text", "text": words}]}

    history = [user(f"the key is {KEY}"), assistant("noted")]
    memo: dict = {}
    sent = []
    for turn in range(6):
        history += [user(f"turn {turn}"), assistant(f"reply {turn} quoting {KEY}")]
        request, _ = redact_request({"messages": list(history)}, [KEY], memo)
        sent.append(request)
        assert leaked(KEY, request) == [], turn
    assert KEY in history[0]["content"][0]["text"]  # what is stored stays as it was
    assert sent[-1]["messages"][0] is sent[1]["messages"][0]  # redacted once, then reused
    history[-1]["content"].append({"type": "text", "text": f"added in place {KEY}"})
    history += [user("one more"), assistant("ok")]
    request, _ = redact_request({"messages": list(history)}, [KEY], memo)
    assert "added in place" in json.dumps(request) and leaked(KEY, request) == []
    history[0] = user(f"cleared, but for {KEY[:20]}{KEY[20:]}")  # a new object in its place
    request, _ = redact_request({"messages": list(history)}, [KEY], memo)
    assert leaked(KEY, request) == [] and "cleared" in request["messages"][0]["content"][0]["text"]

    redactor = RequestRedactor()
    history = [user(f"old {OTHER_KEY}"), assistant("ok"), user("go on"), assistant("ok")]
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", KEY)
    first = redactor({"messages": list(history)})
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", OTHER_KEY)  # another key now: nothing kept counts
    second = redactor({"messages": list(history)})
    assert OTHER_KEY in json.dumps(first) and leaked(OTHER_KEY, second) == []
