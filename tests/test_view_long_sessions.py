"""The session page of a long session: the chart fits the page, the context's clearing and
compaction are on the timeline, and what planloop put into an input is labelled as its own."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path

import pytest
from conftest import run_cli
from test_view import Elements, chromium

from fakeapi import text, tool_use
from view import read_session, render_chart, render_input, render_page

NOTES = "Notes: the files were read; the suite passed."
PLAN = [{"content": "Read the files and report", "status": "in_progress"}]
DONE = [{"content": "Read the files and report", "status": "completed"}]
READS = 81  # with the task's three turns and the last two: 86 model calls
WINDOW_PX = 1000


class ScriptedModel:
    """Plays `steps` in order and answers every compaction call with NOTES."""

    def __init__(self, api, steps: list) -> None:
        self.steps = deque(steps)
        self.compactions = 0
        for _ in range(2 * len(steps) + 5):
            api.add(self.reply)

    def reply(self, body: dict) -> dict:
        if "hand-over notes" in json.dumps(body.get("system")):
            self.compactions += 1
            return {"content": [text(NOTES)]}
        return self.steps.popleft()


def long_session_steps() -> list[dict]:
    steps = [
        {"content": [text("Starting the suite."), tool_use("bash", SUITE)]},
        {"content": [tool_use("todo_write", {"todos": PLAN, "wait_for_tasks": ["bg-1"]})]},
        {"content": [text("The suite runs as bg-1; reading meanwhile.")]},
    ]
    # Small reads, whose old output clearing takes away; three large ones in a row in the
    # middle: the last turns are never cleared, so the context is compacted there.
    names = [f"f{index % 8}.txt" for index in range(READS)]
    names[40:43] = ["big0.txt", "big1.txt", "big2.txt"]
    steps += [{"content": [tool_use("read_file", {"path": name})]} for name in names]
    steps.append({"content": [tool_use("todo_write", {"todos": DONE})]})
    steps.append({"content": [text("All files read and the suite passed.")]})
    return steps


SUITE = {"command": "echo suite ok", "run_in_background": True}


@pytest.fixture
def long_session(api, env, workspace, isolated_home) -> Path:
    """A real headless run of 86 model calls: a background task whose result comes back as
    planloop's input, reads that fill a small context window (clearing, then compaction)."""
    for index in range(8):
        (workspace / f"f{index}.txt").write_text(f"file {index}\n" + "a line of words\n" * 500)
    for index in range(3):
        (workspace / f"big{index}.txt").write_text(f"big {index}\n" + "a line of words\n" * 1_900)
    model = ScriptedModel(api, long_session_steps())
    result = run_cli(
        "-p", "run the suite and read every file", "--yes", "--no-sandbox",
        "--context-window", "30000", cwd=workspace, env=env, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert model.compactions >= 1
    viewed = run_cli("--view", cwd=workspace, env={**env, "ANTHROPIC_API_KEY": ""})
    assert viewed.returncode == 0, viewed.stderr
    return Path(viewed.stdout.strip())


def test_a_long_session_page_marks_clearing_compaction_and_planloops_input(long_session):
    page = long_session.read_text()
    elements = Elements(page)
    assert len(elements.with_class("call")) == 86
    assert elements.with_class("clearing"), "clearing is not on the timeline"
    assert elements.with_class("compaction"), "compaction is not on the timeline"
    assert "the tool results of model calls 1 to 6 are sent as one-line placeholders" in page
    assert "the conversation up to model call" in page and "is sent as notes" in page
    assert NOTES in page  # the compaction's notes, folded under its mark
    [task] = elements.with_class("planloop")
    assert "input" in task["class"]
    assert "planloop: a background task&#x27;s result" in page
    assert "[bg-1: exited with code 0" in page
    # The person's input is the only one labelled User.
    assert page.count("<h3>User</h3>") == 1
    # One chart, in rows of at most 40 calls.
    assert len(elements.tags("svg")) == 3
    assert all(int(svg["width"]) <= 40 * 24 + 6 for svg in elements.tags("svg"))


@pytest.mark.browser
def test_the_chart_of_86_calls_fits_the_window_in_chromium(long_session, tmp_path):
    # A copy of the page with one measuring script (the page itself runs none: its policy
    # forbids it): how wide the page and its widest chart row are, as Chromium lays them out.
    measure = (
        "<script>const svgs = [...document.querySelectorAll('svg')];"
        "document.body.dataset.pageWidth = document.documentElement.scrollWidth;"
        "document.body.dataset.chartRight = Math.max(...svgs.map("
        "s => s.getBoundingClientRect().right));</script>"
    )
    page = long_session.read_text()
    page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    measured = tmp_path / "measured.html"
    measured.write_text(page.replace("</body>", f"{measure}</body>"))
    dom = chromium(f"--window-size={WINDOW_PX},900", "--dump-dom", measured.as_uri()).stdout
    body = Elements(dom).tags("body")[0]
    assert int(body["data-page-width"]) <= WINDOW_PX
    assert 0 < float(body["data-chart-right"]) <= WINDOW_PX
    screenshot = tmp_path / "long.png"
    shot = chromium(
        f"--screenshot={screenshot}", f"--window-size={WINDOW_PX},900", measured.as_uri()
    )
    assert screenshot.is_file(), shot.stderr


def test_a_chart_of_three_calls_keeps_its_natural_size():
    usage = {"input_tokens": 10, "output_tokens": 5}
    chart = Elements(render_chart([usage, usage, usage]))
    [svg] = chart.tags("svg")
    assert svg["width"] == str(3 * 24 + 6)  # no row padded out to 40 calls


def test_task_results_before_the_persons_words_are_split_and_escaped():
    typed = (
        "<task-result>[bg-1: exited with code 0]\n&lt;/task-result&gt;</task-result>\n\nnow fix it"
    )
    items = render_input(typed)
    assert len(items) == 2
    assert 'class="input planloop"' in items[0] and "&amp;lt;/task-result&amp;gt;" in items[0]
    assert "<h3>User</h3>" in items[1] and "now fix it" in items[1]
    # A person who types the tag is still the person: only a closed tag at the start counts.
    [only] = render_input("<task-result> unclosed, typed by hand")
    assert "<h3>User</h3>" in only


def test_an_undo_note_is_labelled_as_planloops(tmp_path, isolated_home):
    note = "<undo>The person undid the file changes of an earlier input.</undo>"
    log = tmp_path / "20260101-120000-abcd.jsonl"
    records = [
        {"type": "start", "id": "20260101-120000-abcd", "workspace": "/w", "model": "m"},
        {
            "type": "message",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        },
        {"type": "message", "message": {"role": "assistant", "content": [text("Hello.")]}},
        {
            "type": "message",
            "message": {"role": "user", "content": [{"type": "text", "text": note}]},
        },
    ]
    log.write_text("".join(json.dumps({"v": 1, **r}) + "\n" for r in records))
    page = render_page(read_session(log))
    assert "planloop: files put back by /undo" in page
    assert page.count("<h3>User</h3>") == 1
