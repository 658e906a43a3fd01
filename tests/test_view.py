"""`--view`: one self-contained page per session, checked in a real browser (headless Chromium)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import spawn
from conftest import run_cli

from fakeapi import text, tool_use
from view import read_session, render_page

AGENT = Path(__file__).resolve().parent.parent / "agent.py"
HOSTILE = (
    "<script>document.body.setAttribute('data-pwned', 'script')</script>"
    "<img src=x onerror=\"document.body.setAttribute('data-pwned', 'img')\">"
)
REMINDER = "<reminder>You have not updated your todo list for 3 turns.</reminder>"


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if path := shutil.which(name):
            return path
    return None


def chromium(*args: str) -> subprocess.CompletedProcess:
    browser = find_chromium()
    if browser is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium); page untested")
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


class Elements(HTMLParser):
    """Every element of a page as (tag, attributes), in document order."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.found.append((tag, dict(attrs)))

    def with_class(self, name: str) -> list[dict]:
        return [a for _, a in self.found if name in (a.get("class") or "").split()]

    def tags(self, tag: str) -> list[dict]:
        return [a for t, a in self.found if t == tag]


def plan(status: str) -> dict:
    return {"todos": [{"content": "Read the page", "status": status}]}


@pytest.mark.browser
def test_view_page_in_chromium_shows_timeline_reminder_checklist_and_inert_script(
    api, env, workspace, tmp_path
):
    (workspace / "page.html").write_text(HOSTILE)
    api.add({"content": [text("Planning."), tool_use("todo_write", plan("in_progress"))]})
    for _ in range(3):  # three calls without a plan update bring the reminder
        api.add({"content": [tool_use("read_file", {"path": "page.html"})]})
    api.add({"content": [text("It is a page.")]})  # open items: the guard corrects
    api.add({"content": [tool_use("todo_write", plan("completed"))]})
    api.add({"content": [text(f"Done. {HOSTILE}")]})
    result = run_cli("-p", "what is page.html?", "--trace", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr

    viewed = run_cli("--view", cwd=workspace, env={**env, "ANTHROPIC_API_KEY": ""})
    assert viewed.returncode == 0, viewed.stderr
    page = Path(viewed.stdout.strip())
    assert page.suffix == ".html" and page.is_file()

    screenshot = tmp_path / "view.png"
    shot = chromium(f"--screenshot={screenshot}", "--window-size=1200,2000", page.as_uri())
    assert screenshot.is_file() and screenshot.stat().st_size > 10_000, shot.stderr
    dom = chromium("--dump-dom", page.as_uri()).stdout
    elements = Elements(dom)

    assert len(elements.with_class("timeline")) == 1
    assert len(elements.with_class("call")) == 7
    [reminder] = elements.with_class("reminder")
    assert "added" in reminder["class"]  # the highlighted style of harness text
    assert len(elements.with_class("correction")) == 1
    assert len(elements.with_class("checklist")) == 2  # the plan, then its update
    assert elements.tags("svg"), "the token chart is missing"
    assert elements.tags("details"), "tool calls are not folded"
    # The hostile markup is shown as text and never became elements or ran.
    assert elements.tags("script") == [] and elements.tags("img") == []
    assert "data-pwned" not in elements.tags("body")[0]
    assert "&lt;script&gt;document.body.setAttribute" in dom


def test_view_page_loads_nothing_from_the_network(tmp_path, isolated_home):
    session = write_single_json_session(tmp_path)
    page = render_page(read_session(session))
    elements = Elements(page)
    assert elements.tags("script") == []
    assert all(not a.get("src") and not a.get("href") for _, a in elements.found)
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page


MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": "fix it"}]},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Plan first."},
            {"type": "tool_use", "id": "toolu_1", "name": "todo_write", "input": plan("pending")},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Todo list updated."},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"command": "cat x"}}
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": HOSTILE},
            {"type": "text", "text": REMINDER},
        ],
    },
    {"role": "assistant", "content": [{"type": "text", "text": "All done."}]},
]
USAGE = {"input_tokens": 7, "cache_read_input_tokens": 1200, "output_tokens": 30}


def write_single_json_session(folder: Path) -> Path:
    path = folder / "20260101-120000-abcd.json"
    data = {"id": "20260101-120000-abcd", "messages": MESSAGES, "extra": {"todos": None}}
    path.write_text(json.dumps(data))
    return path


def write_json_lines_session(folder: Path) -> Path:
    """The same conversation in the session log format: messages, then appended blocks."""
    records = [{"type": "start", "id": "20260101-130000-beef", "workspace": "/w", "model": "m"}]
    for message in MESSAGES:
        if message["role"] == "user" and len(message["content"]) > 1:
            # Tool results arrive as each call finishes; injected text is appended after them.
            first, *rest = message["content"]
            records.append({"type": "message", "message": {**message, "content": [first]}})
            records.append({"type": "blocks", "blocks": rest})
            continue
        record = {"type": "message", "message": message}
        if message["role"] == "assistant":
            record["usage"] = USAGE
        records.append(record)
    records.append({"type": "extra", "extra": {"todos": plan("completed")["todos"]}})
    records.append({"type": "note", "text": "Resumed after a crash."})
    records.append({"type": "future-kind", "whatever": 1})  # unknown types are skipped
    path = folder / "20260101-130000-beef.jsonl"
    path.write_text("\n".join(json.dumps({"v": 1, **r}) for r in records) + "\n")
    return path


@pytest.mark.parametrize("write", [write_single_json_session, write_json_lines_session])
def test_view_reads_both_session_formats(write, tmp_path, isolated_home, workspace):
    session = write(tmp_path)
    viewed = spawn.run(
        [sys.executable, str(AGENT), "--view", str(session)],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")},
    )
    assert viewed.returncode == 0, viewed.stderr
    page = Path(viewed.stdout.strip())
    assert page.parent == tmp_path
    html = page.read_text()
    elements = Elements(html)
    assert len(elements.with_class("call")) == 3
    assert len(elements.with_class("reminder")) == 1
    assert elements.with_class("checklist")
    assert elements.tags("script") == [] and elements.tags("img") == []
    assert "&lt;script&gt;" in html
    if session.suffix == ".jsonl":
        assert "cache read 1,200" in html  # usage from the log drives the figures and chart
        assert "Resumed after a crash." in html
        assert "Plan at the end" in html  # the last extra snapshot differs from the last write


def test_view_without_any_session_is_one_line(workspace, isolated_home):
    viewed = spawn.run(
        [sys.executable, str(AGENT), "--view"],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert viewed.returncode == 1
    assert viewed.stderr.strip().count("\n") == 0
    assert "no saved session" in viewed.stderr


def test_a_tool_call_holding_a_line_separator_is_on_the_page(api, env, workspace):
    # U+2028 is written as it is into the session's JSON lines; a record ends at "\n" alone,
    # so the model cannot tear its own call out of the page with one.
    content = "first\u2028second\u2029third\x85end\n"
    api.add({"content": [tool_use("write_file", {"path": "notes.txt", "content": content})]})
    api.add({"content": [text("Done.")]})
    ran = run_cli("-p", "go", "--yes", cwd=workspace, env=env)
    assert ran.returncode == 0, ran.stderr
    viewed = run_cli("--view", cwd=workspace, env=env)
    assert viewed.returncode == 0, viewed.stderr
    page = Path(viewed.stdout.strip()).read_text()
    assert "write_file" in page and "notes.txt" in page and "second" in page
