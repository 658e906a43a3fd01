"""cli/signals.py: a signal that comes while planloop makes its event loop."""

from __future__ import annotations

import asyncio
import gc
import selectors
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cli.signals import (
    ENDING_SIGNALS,
    Terminated,
    forget_earlier_signals,
    install_fallback_handlers,
    run_on_a_new_loop,
    run_signals,
)


@pytest.fixture
def fallback_handlers():
    """planloop's handlers outside the loop, and the test runner's again afterwards."""
    handled = (signal.SIGINT, *ENDING_SIGNALS)
    previous = {signum: signal.getsignal(signum) for signum in handled}
    forget_earlier_signals()
    install_fallback_handlers()
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    forget_earlier_signals()


@pytest.mark.filterwarnings("error::RuntimeWarning")  # (a coroutine never awaited)
@pytest.mark.parametrize(
    ("signum", "raised"), [(signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)]
)
def test_a_signal_while_the_loop_is_made_ends_the_run_with_nothing_left_half_made(
    monkeypatch, fallback_handlers, signum, raised
):
    # The signal comes inside the loop's constructor, after its selector and before the rest:
    # raised there, it left a half-made loop whose clean-up printed "Exception ignored ...
    # '_ssock'" after planloop's closing line.
    made_selector = selectors.DefaultSelector

    def selector_then_the_signal() -> selectors.BaseSelector:
        selector = made_selector()
        signal.raise_signal(signum)
        return selector

    monkeypatch.setattr(selectors, "DefaultSelector", selector_then_the_signal)
    unraisable: list = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    started: list[bool] = []

    async def run() -> None:
        started.append(True)

    with pytest.raises(raised):
        run_on_a_new_loop(run())
    gc.collect()
    assert started == [] and unraisable == []


def test_with_no_signal_the_coroutine_runs_and_its_value_comes_back(fallback_handlers):
    async def run() -> str:
        return "answer"

    assert run_on_a_new_loop(run()) == "answer"


def test_a_signal_ignored_while_the_loop_is_made_leaves_a_loop_that_runs(monkeypatch):
    # (`nohup planloop`: SIGHUP is ignored; one that comes meanwhile changes nothing)
    made_selector = selectors.DefaultSelector

    def selector_then_a_hangup() -> selectors.BaseSelector:
        selector = made_selector()
        signal.raise_signal(signal.SIGHUP)
        return selector

    monkeypatch.setattr(selectors, "DefaultSelector", selector_then_a_hangup)
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:

        async def run() -> str:
            return "answer"

        assert run_on_a_new_loop(run()) == "answer"
    finally:
        signal.signal(signal.SIGHUP, previous)


@pytest.mark.parametrize("signum", ENDING_SIGNALS)
def test_a_second_copy_of_the_ending_signal_does_not_cut_the_ending_short(
    fallback_handlers, signum
):
    # `kill -TERM -- -PGID` reaches planloop twice: directly, and passed on by the process that
    # waits for it (first_fork.py). The first copy ends the run on the loop; the second one,
    # arriving once the loop's handlers are gone, must not raise in the middle of the ending
    # (it closed the loop before the killed command was reaped, and printed a traceback).
    ended: list[int] = []

    async def run() -> None:
        with run_signals(lambda: None, ended.append):
            signal.raise_signal(signum)
            while not ended:
                await asyncio.sleep(0.01)

    run_on_a_new_loop(run())
    assert ended == [signum]
    signal.raise_signal(signum)  # the passed-on copy: noted, nothing raised
    forget_earlier_signals()  # a new run of planloop in this process ends on one again
    with pytest.raises(Terminated):
        signal.raise_signal(signum)


def test_an_ending_signal_outside_the_loop_raises_once(fallback_handlers):
    with pytest.raises(Terminated):
        signal.raise_signal(signal.SIGTERM)
    signal.raise_signal(signal.SIGTERM)  # (its copy, while the closing note is written)


# A SIGTERM whose handler is interrupted by a second one at each of its steps (Python runs a
# handler between two steps of whatever the main thread does, an earlier handler included).
NESTED_SIGNALS = """
import asyncio, signal, sys
sys.path.insert(0, sys.argv[1])
from cli.signals import run_signals
from tools.event_queues import ENDING

async def main():
    with run_signals(lambda: None, lambda signum: None):
        handler = signal.getsignal(signal.SIGTERM)
        fired, inside = [0], [0]

        def each_step(frame, event, arg):
            if event == "line" and fired[0] < 50:
                fired[0] += 1
                signal.raise_signal(signal.SIGTERM)
            if event == "return" and frame.f_code is handler.__code__:
                inside[0] -= 1
            return each_step

        def each_call(frame, event, arg):
            inside[0] += frame.f_code is handler.__code__
            return each_step if inside[0] else None

        sys.settrace(each_call)
        signal.raise_signal(signal.SIGTERM)
        sys.settrace(None)
        print("handled", fired[0], ENDING.is_set(), flush=True)

asyncio.run(main())
"""


def test_a_signal_that_comes_while_the_last_one_is_handled_is_handled_too():
    # `pkill -f agent.py` reaches planloop and the process that waits for it, which passes its
    # copy on: the second SIGTERM came while the first one's handler held a lock it needed
    # too, and planloop hung until SIGKILL.
    root = Path(__file__).resolve().parent.parent
    try:
        done = subprocess.run(
            [sys.executable, "-c", NESTED_SIGNALS, str(root)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    except subprocess.TimeoutExpired:  # (killed by subprocess.run)
        pytest.fail("the nested SIGTERM never returned: planloop would hang")
    assert done.returncode == 0, done.stderr
    handled, fired, ending = done.stdout.split()
    assert handled == "handled" and int(fired) >= 1 and ending == "True"


def test_an_ending_signal_that_came_while_work_held_the_loop_still_ends_planloop(
    fallback_handlers,
):
    # A look at the settings holds the loop, stops when SIGTERM comes, and the run ends before
    # the loop could hand the signal on: it must still end planloop (143), not pass for a
    # check that failed (3).
    ended: list[int] = []

    async def run() -> None:
        with run_signals(lambda: None, ended.append):
            signal.raise_signal(signal.SIGTERM)  # (noted; the loop never gets control here)

    run_on_a_new_loop(run())
    assert ended == [signal.SIGTERM]


LATE_SIGNAL_WHILE_EXITING = """
import atexit, os, signal, sys
sys.path.insert(0, {root!r})
import cli.app

def clean_up():  # (as the sandbox removes its placeholder .git)
    os.kill(os.getpid(), signal.SIGTERM)  # a late copy of a signal sent to the process group
    open({marker!r}, "w").close()

atexit.register(clean_up)
cli.app.run_cli = lambda argv=None: 129  # (a run that a hangup ended)
cli.app.main([])
"""


def test_a_signal_that_comes_while_planloop_exits_changes_neither_status_nor_clean_up(tmp_path):
    # SIGHUP ended the run, with status 129 said; the SIGTERM that follows it to the process
    # group killed planloop in python's exit, as 143, before its clean-up was done.
    marker = tmp_path / "cleaned-up"
    script = LATE_SIGNAL_WHILE_EXITING.format(
        root=str(Path(__file__).parent.parent), marker=str(marker)
    )
    ended = subprocess.run([sys.executable, "-c", script], timeout=60, capture_output=True)
    assert ended.returncode == 129, ended.stderr
    assert marker.exists()
