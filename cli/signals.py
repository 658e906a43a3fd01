"""Signals: Ctrl-C (SIGINT), a closed terminal (SIGHUP), and `kill` or `timeout` (SIGTERM).

Each one ends the run under way (everything since the last input, turn after turn) the same
way: the running command is killed, the open calls are answered and the session is saved.
Then Ctrl-C goes back to the prompt (interactive) or exits 130 (headless). SIGTERM and SIGHUP
end planloop, with the closing note and the exit status a shell reports for a process ended
by that signal: 128 + its number (143, 129).

While the event loop runs, the signals are handled on the loop (`run_signals`): during a run
each one calls `agent.cancel()`, the one way a run is cancelled (its docstring in agent.py
explains what happens next). Outside it, SIGTERM and SIGHUP raise `Terminated`, as SIGINT raises
KeyboardInterrupt, and `run_cli` turns either into the closing note.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, NoReturn, TypeVar

from tools.event_queues import CTRL_C_COUNT, ENDING

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
_ending_under_way = [False]  # a SIGTERM or SIGHUP was acted on: planloop is ending
_ending_noted = [0]  # the last one that came while the loop handled them
T = TypeVar("T")
READ_WAKE_UP_SECONDS = 0.2  # how late, at worst, a signal reaches a blocking read


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived while no run was going on.

    A BaseException, as KeyboardInterrupt is: code that goes on past a failure it expects
    (`except Exception`, a file a parser gives up on) must not go on past the person's signal
    too. A repository's `.env` that was slow to parse once held planloop at start, and the
    SIGTERM that came meanwhile was taken for the parser's failure: the run went on to its end."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"ended by {signal.Signals(signum).name}")
        self.signum = signum


def terminated_by(signum: int) -> str:
    """Who stopped the run, for the model: SIGTERM or SIGHUP is not the user's Ctrl-C."""
    why = " (its terminal closed)" if signum == signal.SIGHUP else ""
    return f"terminated by {signal.Signals(signum).name}{why}"


def exit_status(signum: int) -> int:
    """What a shell reports for a process ended by `signum`."""
    return 128 + signum


def _ending(signum: int, frame: object) -> None:
    _ending_noted[0] = signum
    ENDING.set()


def _ctrl_c(signum: int, frame: object) -> None:
    CTRL_C_COUNT[0] += 1


def raise_terminated(signum: int, frame: object) -> None:
    """Raise Terminated for the first SIGTERM or SIGHUP; a later one is only noted.

    A signal sent to planloop's whole process group (`kill -TERM -- -PGID`, a service
    manager) reaches it twice: once directly, once passed on by the process that waits for it
    (first_fork.py). Raised again while planloop ends, the copy cut the ending short: the
    event loop closed before a killed command was reaped, and a traceback followed the
    closing line."""
    if _ending_under_way[0]:
        return
    _ending_under_way[0] = True
    raise Terminated(signum)


def _end_once(on_end: Callable[[int], None], signum: int) -> None:
    _ending_under_way[0] = True
    on_end(signum)


def forget_earlier_signals() -> None:
    """For a new run of planloop in this process (a test, an embedding that went on)."""
    _ending_under_way[0] = False
    _ending_noted[0] = 0
    ENDING.clear()


def install_fallback_handlers() -> None:
    """Outside the event loop: SIGTERM and SIGHUP raise Terminated (once: `raise_terminated`),
    SIGINT KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in ENDING_SIGNALS:
        signal.signal(signum, raise_terminated)


def exit_with(status: int) -> NoReturn:
    """End the process with `status`, chosen by the run, and its clean-up done, whatever signal
    comes meanwhile.

    A signal sent to planloop's whole process group reaches it twice (first_fork.py passes on
    what it gets), and a SIGTERM may follow a hangup. Once the run is over, a late one must not
    change how it ended. Python's own exit puts the default handlers back before it is done:
    a SIGTERM 50 ms after a SIGHUP killed planloop with 143 after it had said "ended by SIGHUP",
    and one that came a little earlier cut short the clean-up registered with atexit (the empty
    `.git` the sandbox leaves in a folder that is no repository). So the signals are ignored
    from here, that clean-up runs, and the process exits without the rest of python's
    teardown, which only waits for threads nothing needs any more."""
    for signum in (signal.SIGINT, *ENDING_SIGNALS):
        signal.signal(signum, signal.SIG_IGN)
    atexit._run_exitfuncs()  # (what python's exit would run first)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # (a terminal gone, a stream closed)
            stream.flush()
    os._exit(status)


def run_on_a_new_loop(main: Coroutine[Any, Any, T]) -> T:
    """asyncio.run(main), on a loop made whole before any signal is let in (`loop_made_whole`)."""
    runner = asyncio.Runner(loop_factory=loop_made_whole)
    try:
        runner.get_loop()  # (makes it)
    except BaseException:
        main.close()  # (never started: no warning that it was never awaited)
        raise
    with runner:
        return runner.run(main)


def loop_made_whole() -> asyncio.AbstractEventLoop:
    """A new event loop; a Ctrl-C, SIGTERM or SIGHUP that comes while it is made is raised
    once it is whole (and the loop closed again).

    Raised inside the loop's constructor (a handler runs wherever the main thread is), it left
    a loop half made, whose clean-up failed later: "Exception ignored ... '_ssock'" after the
    closing line. So the signals are only noted meanwhile, then sent again to the handlers that
    were there (`install_fallback_handlers`' or the defaults)."""
    came: list[int] = []
    handled = (signal.SIGINT, *ENDING_SIGNALS)
    previous = {signum: signal.signal(signum, lambda s, _: came.append(s)) for signum in handled}
    try:
        loop = asyncio.new_event_loop()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    try:
        for signum in dict.fromkeys(came):
            signal.raise_signal(signum)  # (its handler runs before this returns)
    except BaseException:
        loop.close()
        raise
    return loop  # (whole: none came, or the handlers there only noted it)


@contextlib.contextmanager
def run_signals(on_ctrl_c: Callable[[], None], on_end: Callable[[int], None]) -> Iterator[None]:
    """Handle the three signals on the running event loop while the block runs."""
    loop = asyncio.get_running_loop()
    ENDING.clear()  # (a signal handled before, by a caller that went on: a test, an embedding)
    loop.add_signal_handler(signal.SIGINT, on_ctrl_c)
    signal.signal(signal.SIGINT, _ctrl_c)  # counted at once too, as the ending ones below
    signal.siginterrupt(signal.SIGINT, False)
    for signum in ENDING_SIGNALS:
        loop.add_signal_handler(signum, _end_once, on_end, signum)
        # The loop's own handler does nothing but wake the loop, which a long look of a key-file
        # watch holds: this one also tells the watches at once (tools/event_queues.py). The
        # loop is still woken (its wakeup fd is written for any signal with a handler).
        signal.signal(signum, _ending)
        signal.siginterrupt(signum, False)  # as the loop set it: system calls go on after it
    try:
        yield
    finally:
        for signum in (signal.SIGINT, *ENDING_SIGNALS):
            loop.remove_signal_handler(signum)
        install_fallback_handlers()  # the loop resets them to the defaults, which kill at once
        if ENDING.is_set() and not _ending_under_way[0] and _ending_noted[0]:
            # It came while work held the loop (a look at the settings, which it stopped), and
            # the block ended before the loop could hand it on: it still ends planloop.
            _end_once(on_end, _ending_noted[0])


@contextlib.contextmanager
def blocking_read() -> Iterator[None]:
    """Around a blocking read (input() of a piped prompt) in the event loop: signals raise at once.

    The loop's handlers run only when the loop gets control, which a blocking read never
    gives it: a Ctrl-C would wait for Enter. Here it raises KeyboardInterrupt inside the
    read instead, and the loop is not told about it a second time later.

    One gap is left by Python itself: a signal that arrives after input() has printed its
    question but before the read has started is noticed only when the read is interrupted,
    i.e. after Enter. A timer interrupts the read a few times a second to close that gap.
    """
    handled = (signal.SIGINT, signal.SIGALRM, *ENDING_SIGNALS)
    previous = {signum: signal.getsignal(signum) for signum in handled}
    wakeup_fd = signal.set_wakeup_fd(-1)
    install_fallback_handlers()
    signal.signal(signal.SIGALRM, lambda signum, frame: None)  # only to interrupt the read
    signal.setitimer(signal.ITIMER_REAL, READ_WAKE_UP_SECONDS, READ_WAKE_UP_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        signal.set_wakeup_fd(wakeup_fd, warn_on_full_buffer=False)  # as asyncio sets it
