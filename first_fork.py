"""The process you start forks once, first thing; planloop runs in the child.

Why: until its first line makes it non-dumpable, a new interpreter is open to every process of
the same user. A process that opens `/proc/<pid>/mem` in those first milliseconds may keep the
descriptor and read through it later, whatever planloop loads by then (a key from a `.env`).
A child forked after the prctl starts with memory of its own that was never dumpable, so no
one can hold it open. The process you started keeps only what it had before its first line.

It waits for the child and stands in for it to whoever started planloop:
- a signal sent to it alone (`kill`, `timeout`, a test) is passed on. One the terminal sends
  (Ctrl-C) went to the child too, as both are in the terminal's process group, so it is not
  passed on twice; but a closed terminal's hangup goes to the session's leader alone, and is
  passed on when this process leads the session;
- when the child stops (Ctrl-Z), it stops too, so that the shell sees the job stopped, and it
  continues the child when it is continued;
- it exits as the child did: with its status, or killed by the same signal;
- if it is killed itself (`kill -9`), the kernel kills the child too (PR_SET_PDEATHSIG), as
  `kill -9` of planloop did before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal

PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4  # from <linux/prctl.h>
PASSED_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
WAITED_FOR = {signal.SIGCHLD, *PASSED_ON}
FROM_THE_TERMINAL = 0x80  # si_code SI_KERNEL: the terminal sent it to its whole process group


def main() -> None:
    """The installed `planloop` command, under whatever name it is run (a link `pl`): closed
    first, then forked, then planloop (`python agent.py` does the same in agent.py's first
    lines)."""
    close_and_fork()
    from agent import main as run_planloop

    run_planloop()


def close_and_fork() -> None:
    """Make this process non-dumpable, then go on in a fresh child (`continue_in_a_fresh_child`):
    the first thing `python agent.py` and the installed command do."""
    with contextlib.suppress(OSError, AttributeError):  # (no prctl: not Linux)
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    # Until planloop's own handlers are in (cli/signals.py), a Ctrl-C ends it as a program
    # that never handles SIGINT ends: at once, quietly, with status 130. Python's default would
    # raise KeyboardInterrupt in the middle of an import and print its traceback. There is no
    # session yet to save.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    continue_in_a_fresh_child()


def continue_in_a_fresh_child() -> None:
    """Return in a new child process; the calling process waits for it and never returns.

    Call it after the process is non-dumpable and before anything secret is loaded. Where
    there is no fork (not Linux), it returns at once and planloop runs as it is."""
    if not hasattr(os, "fork") or not hasattr(signal, "sigtimedwait"):
        return
    # Blocked before the fork, so that nothing sent meanwhile is lost: a signal that arrives
    # in between stays pending for the waiting process, which passes it on.
    before = signal.pthread_sigmask(signal.SIG_BLOCK, WAITED_FOR)
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        _die_with(parent)
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        return
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # (ignored, children vanish unwaited)
    _stand_in_for(child)


def _die_with(parent: int) -> None:
    with contextlib.suppress(OSError, AttributeError):  # (no prctl: not Linux)
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # it died before the line above: the kernel will not tell
        os.kill(os.getpid(), signal.SIGKILL)


# How often the waiting process looks whether its child ended, whatever signal came: a
# SIGCHLD was seen to go missing (about one start in a hundred, when the child ended at once),
# and the waiting process then waited for ever.
CHILD_LOOK_SECONDS = 0.5


def _stand_in_for(child: int) -> None:
    while True:
        info = signal.sigtimedwait(WAITED_FOR, CHILD_LOOK_SECONDS)
        if info is not None and info.si_signo != signal.SIGCHLD:
            if info.si_code != FROM_THE_TERMINAL or _sent_to_the_leader_alone(info.si_signo):
                os.kill(child, info.si_signo)
            continue
        pid, status = os.waitpid(child, os.WNOHANG | os.WUNTRACED)
        if pid == 0:
            continue  # a SIGCHLD for something else: the child's continuing
        if os.WIFSTOPPED(status):
            os.kill(os.getpid(), signal.SIGSTOP)
            os.kill(child, signal.SIGCONT)  # (runs once this process is continued)
            continue
        _end_as(status)


def _sent_to_the_leader_alone(signum: int) -> bool:
    """Whether the kernel sent `signum` to this process only, not to its process group: a
    hangup goes to the session's leader alone (`ssh -t host planloop`, `tmux new-session
    planloop`: the process started leads the session), whose shell would pass it on to its
    jobs."""
    return signum == signal.SIGHUP and os.getsid(0) == os.getpid()


def _end_as(status: int) -> None:
    if os.WIFSIGNALED(status):
        ended_by = os.WTERMSIG(status)
        if ended_by != signal.SIGKILL:  # (which no process can handle)
            signal.signal(ended_by, signal.SIG_DFL)  # as python handles SIGINT, ignores SIGPIPE
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {ended_by})
        os.kill(os.getpid(), ended_by)
        os._exit(128 + ended_by)  # (a signal that does not end a process by default)
    os._exit(os.waitstatus_to_exitcode(status))
