"""Shared fixtures: a strict fake Messages API on 127.0.0.1 and agents wired to it.

Every loop test goes through the real `anthropic` SDK to the fake, which rejects any
request the real API would reject, so a test that passes has sent only valid requests.

End-to-end tests start `python agent.py` through `spawn.run` / `spawn.Popen`: a real separate
process, forked from a warm parent that has already imported the SDK (spawn.py says what is
shared with that parent and why the tests still stand). `PLANLOOP_TEST_REAL_SPAWN=1` makes
every start a real exec instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpcore2
import pytest
import spawn

from agent import Agent, QuietUI
from fakeapi import FakeMessagesAPI

API_KEY = "test-key"
AGENT = Path(__file__).resolve().parent.parent / "agent.py"
# Every new client loads the system CA bundle into a TLS context of its own: about 40 ms of
# CPU, a few hundred times in the suite. The tests talk plain HTTP to 127.0.0.1, so one context,
# built as the SDK builds it, serves every client built here; each still has its own pool.
SHARED_TLS = httpcore2.default_ssl_context()


def fake_api_client(base_url: str, **options) -> anthropic.AsyncAnthropic:
    """A real SDK client for the fake API at `base_url`, with no retries unless asked."""
    http_client = anthropic.DefaultAsyncHttpxClient(verify=SHARED_TLS)
    options = {"api_key": API_KEY, "max_retries": 0, **options}
    return anthropic.AsyncAnthropic(base_url=base_url, http_client=http_client, **options)


# Tests that CI must see pass, never skip: the real-exec run of signals, terminals, tasks and
# crashes, and the page in a real browser. With PLANLOOP_TEST_NO_SKIPS=1 (.ci/run) a skip of one
# of these is reported as a failure, so a missing Chromium or a broken start cannot hide.
MUST_RUN_MARKERS = ("real_exec", "browser")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    must_run = any(item.get_closest_marker(marker) for marker in MUST_RUN_MARKERS)
    if report.skipped and must_run and os.environ.get("PLANLOOP_TEST_NO_SKIPS") == "1":
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped, which PLANLOOP_TEST_NO_SKIPS=1 forbids: {reason}"
    return report


@pytest.fixture(scope="session", autouse=True)
def warm_parent() -> Iterator[None]:
    """Each test process starts its warm parent on first use (spawn.py); end it with the tests."""
    yield
    spawn.stop_warm_parent()


# Folders the tests make outside /tmp: only there can a test show what a command would see,
# the sandbox's /tmp being its own. planloop's search for copies of its key reads the two
# folders above the workspace; each of these sits two levels below a folder of its own, so that
# no test's search reads /var/tmp, where another test plants keys and removes them at any time.
OUTSIDE_TMP = "/var/tmp"
MADE_OUTSIDE_TMP: list[str] = []


def outside_tmp(prefix: str) -> Path:
    """A new empty folder (0755) outside /tmp, the only one in a new folder of its own."""
    outer = tempfile.mkdtemp(prefix=prefix, dir=OUTSIDE_TMP)
    os.chmod(outer, 0o755)
    MADE_OUTSIDE_TMP.append(outer)
    folder = Path(outer) / "own"
    folder.mkdir()
    folder.chmod(0o755)
    return folder


@pytest.fixture(scope="session", autouse=True)
def remove_what_was_made_outside_tmp() -> Iterator[None]:
    """Tests remove their own folders; the folders holding them go when the tests end."""
    yield
    for outer in MADE_OUTSIDE_TMP:
        shutil.rmtree(outer, ignore_errors=True)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch) -> Path:
    """Sessions and history go to a temporary folder, never to the real home."""
    home = tmp_path_factory.mktemp("planloop-home")
    monkeypatch.setenv("PLANLOOP_HOME", str(home))
    return home


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    fake = FakeMessagesAPI(script=[], api_key=API_KEY)
    with fake:
        yield fake
    # Whatever the test asserted, no request it caused may have been rejected.
    assert fake.rejections == [], fake.rejections


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


class RecordingUI(QuietUI):
    """Collects what the loop tells the user, so tests can check it."""

    def __init__(self) -> None:
        self.notices: list[str] = []
        self.started: list[str] = []
        self.finished: list[tuple[str, bool]] = []
        self.harness: list[str] = []
        self.replies: list[dict] = []

    def reply_finished(self, reply: dict) -> None:
        self.replies.append(reply)

    def harness_message(self, text: str) -> None:
        self.harness.append(text)

    def notice(self, text: str) -> None:
        self.notices.append(text)

    def tool_started(self, call: dict) -> None:
        self.started.append(call["name"])

    def tool_finished(self, call: dict, result) -> None:
        self.finished.append((call["name"], result.is_error))


@pytest.fixture
def make_agent(api: FakeMessagesAPI, workspace: Path):
    """Build an Agent that talks to the fake API through the real SDK.

    Unless a test says otherwise it is the bare loop of the lesson (`middleware=[]`, bash
    without a sandbox), so each test adds only the middlewares it is about.
    """

    def build(**kwargs) -> Agent:
        client = fake_api_client(api.base_url)
        kwargs.setdefault("ui", RecordingUI())
        kwargs.setdefault("middleware", [])
        kwargs.setdefault("sandbox", False)
        return Agent(client=client, workspace=workspace, model="test-model", **kwargs)

    return build


def run(coro):
    return asyncio.run(coro)


def wait_for_file(path: Path, seconds: float = 20) -> None:
    """Wait until a command under test has written `path`, i.e. it is surely running."""
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.02)


def read_pid(path: Path, seconds: float = 20) -> int:
    """The pid a command under test wrote with `echo $$ > path`, once its whole line is there.

    The shell creates the file before it writes to it, so it can exist still empty."""
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, f"{path.name} was never written"
        time.sleep(0.02)
    return int(path.read_text())


def planloop_process(started: int) -> int:
    """The process that runs planloop, once it runs: the one a test starts forks first thing
    and waits (first_fork.py). Its pid once it has forked, else `started`."""
    try:
        children = Path(f"/proc/{started}/task/{started}/children").read_text().split()
    except OSError:
        return started
    return int(children[0]) if children else started


def user_messages(request: dict) -> list[dict]:
    return [m for m in request["messages"] if m["role"] == "user"]


def last_user_blocks(request: dict) -> list[dict]:
    return request["messages"][-1]["content"]


def results_by_id(request: dict) -> dict[str, dict]:
    """The tool_result blocks of the last user message of a request, by tool_use_id."""
    return {
        b["tool_use_id"]: b for b in last_user_blocks(request) if b.get("type") == "tool_result"
    }


def own_user_home(planloop_home: Path) -> Path:
    """An empty home folder for one run, next to its planloop home. Runs in parallel must not
    share the real one: a pager another test ran rewrites ~/.lesshst, and a run whose sandbox
    holds that file read-only sees it replaced on the host and stops its task."""
    home = planloop_home.with_name(planloop_home.name + "-user")
    home.mkdir(exist_ok=True)
    return home


@pytest.fixture
def env(api, isolated_home) -> dict:
    """The environment of an end-to-end run: the fake API's address and key, never real ones,
    and a home of its own. Its notices are not wrapped: where a line breaks depends on the
    length of a test's own folder, which moves from run to run, and a phrase looked for would
    be cut in two."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    return {
        **clean,
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": api.base_url,
        "PLANLOOP_HOME": str(isolated_home),
        "HOME": str(own_user_home(isolated_home)),
        "MODEL_ID": "test-model",
        "COLUMNS": "2000",
    }


def terminal_env(api: FakeMessagesAPI, home: Path, columns: int = 100) -> dict:
    """The environment of planloop in a test's pseudo-terminal: the fake API, no colour, and a
    home of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "MODEL_ID"))}
    env.update(
        ANTHROPIC_API_KEY=API_KEY,
        ANTHROPIC_BASE_URL=api.base_url,
        MODEL_ID="test-model",
        PLANLOOP_HOME=str(home),
        HOME=str(own_user_home(home)),
        NO_COLOR="1",
        COLUMNS=str(columns),
    )
    return env


def run_cli(
    *args: str, cwd: Path, env: dict, stdin: str = "", timeout: float = 60
) -> subprocess.CompletedProcess:
    """`python agent.py ARGS` in `cwd`, to the end; its output and exit code (tests/spawn.py)."""
    return spawn.run(
        [sys.executable, str(AGENT), *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextlib.contextmanager
def account_home_at(account: Path, home: Path, monkeypatch) -> Iterator[None]:
    """Within it, the password database gives `account` as your home, and HOME is `home`
    (a run with HOME moved: CI, `sudo -E`, a wrapper's `HOME=$PWD/.home`)."""
    from tools.homes import account_home

    entry = pwd.getpwuid(os.getuid())
    yours = pwd.struct_passwd((*entry[:5], str(account), entry[6]))
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: yours)
    monkeypatch.setenv("HOME", str(home))
    account_home.cache_clear()
    try:
        yield
    finally:
        account_home.cache_clear()
