"""`until_cancelled`: one signal stops whatever a run is waiting for, with either kind of signal.

A run's own signal is a CancelSignal (it cancels the work directly); a plain asyncio.Event,
which a program or a middleware may pass, must behave the same.
"""

from __future__ import annotations

import asyncio

import pytest

from middleware import CancelSignal, Interrupted, until_cancelled

SIGNALS = [CancelSignal, asyncio.Event]


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.mark.parametrize("make_signal", SIGNALS)
def test_work_that_ends_gives_its_result(make_signal):
    async def scenario():
        signal = make_signal()

        async def work():
            await asyncio.sleep(0)
            return "read"

        return await until_cancelled(work(), signal), signal

    result, signal = run(scenario())
    assert result == "read"
    if isinstance(signal, CancelSignal):
        assert signal.on_set == set()  # nothing left behind to cancel later


@pytest.mark.parametrize("make_signal", SIGNALS)
def test_the_signal_interrupts_the_work_after_it_cleaned_up(make_signal):
    events = []

    async def scenario():
        signal = make_signal()
        started = asyncio.Event()

        async def work():
            try:
                started.set()
                await asyncio.Event().wait()  # a command that never ends
            finally:
                await asyncio.sleep(0)  # cleaning up takes a step of its own
                events.append("killed")

        async def press_ctrl_c():
            await started.wait()
            signal.set()

        asyncio.ensure_future(press_ctrl_c())
        with pytest.raises(Interrupted):
            await until_cancelled(work(), signal)
        events.append("interrupted")

    run(scenario())
    assert events == ["killed", "interrupted"]


@pytest.mark.parametrize("make_signal", SIGNALS)
def test_work_past_its_commit_point_gives_its_own_answer(make_signal):
    async def scenario():
        signal = make_signal()
        started = asyncio.Event()

        async def write():
            started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                return "written"  # the rename had happened: the truth, not "interrupted"

        async def press_ctrl_c():
            await started.wait()
            signal.set()

        asyncio.ensure_future(press_ctrl_c())
        return await until_cancelled(write(), signal)

    assert run(scenario()) == "written"


@pytest.mark.parametrize("make_signal", SIGNALS)
def test_an_already_set_signal_starts_nothing(make_signal):
    started = []

    async def scenario():
        signal = make_signal()
        signal.set()

        async def work():
            started.append(True)

        with pytest.raises(Interrupted):
            await until_cancelled(work(), signal)

    run(scenario())
    assert started == []


@pytest.mark.parametrize("make_signal", SIGNALS)
def test_cancelling_the_caller_is_not_taken_for_the_signal(make_signal):
    cleaned = []

    async def scenario():
        signal = make_signal()
        started = asyncio.Event()

        async def work():
            try:
                started.set()
                await asyncio.Event().wait()
            finally:
                cleaned.append(True)

        caller = asyncio.ensure_future(until_cancelled(work(), signal))
        await started.wait()
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        return signal

    signal = run(scenario())
    assert cleaned == [True]
    if isinstance(signal, CancelSignal):
        assert signal.on_set == set()


@pytest.mark.parametrize("make_signal", SIGNALS)
def test_a_second_signal_does_not_cut_the_clean_up_short(make_signal):
    # Ctrl-C pressed twice, or a SIGTERM that reaches planloop twice (sent to its process
    # group): the command must still be killed, waited for and taken stock of.
    events = []

    async def scenario():
        signal = make_signal()
        started = asyncio.Event()

        async def work():
            try:
                started.set()
                await asyncio.Event().wait()
            finally:
                await asyncio.sleep(0)  # (the kill)
                await asyncio.sleep(0)  # (the wait for its end)
                events.append("cleaned up")

        async def press_ctrl_c_twice():
            await started.wait()
            signal.set()
            await asyncio.sleep(0)  # the first has reached the work: it is cleaning up
            signal.set()

        asyncio.ensure_future(press_ctrl_c_twice())
        with pytest.raises(Interrupted):
            await until_cancelled(work(), signal)

    run(scenario())
    assert events == ["cleaned up"]
