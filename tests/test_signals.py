"""cli/signals.py: a signal that comes while planloop makes its event loop."""

from __future__ import annotations

import gc
import selectors
import signal
import sys

import pytest

from cli.signals import ENDING_SIGNALS, Terminated, install_fallback_handlers, run_on_a_new_loop


@pytest.fixture
def fallback_handlers():
    """planloop's handlers outside the loop, and the test runner's again afterwards."""
    handled = (signal.SIGINT, *ENDING_SIGNALS)
    previous = {signum: signal.getsignal(signum) for signum in handled}
    install_fallback_handlers()
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


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
