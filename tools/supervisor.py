"""The small program between planloop and an unsandboxed command: the command's tree dies with it.

    planloop ──> python -I -S -c <this file> PARENT_PID REPORT_FD -- /bin/bash -c COMMAND
                   │ a child subreaper: every process the command starts stays below it,
                   │ even one that called setsid, double-forked or cleared its environment
                   └──> /bin/bash -c COMMAND ──> children, grandchildren, ...

(Its text is read once, as planloop starts, and given as `-c` code: tools/process.py.)
It runs the command and waits. It ends the whole tree, SIGKILL for every process below it, when

    - planloop dies, however it died (SIGKILL included): the kernel sends the supervisor
      SIGTERM (PR_SET_PDEATHSIG);
    - planloop asks it to (a timeout, Ctrl-C, task_stop, planloop's exit): SIGTERM too;
    - the command has exited and what it left running has not ended within GRACE_SECONDS.

Then it writes one line to REPORT_FD, `<returncode> <stopped>`: the command's exit code (negative
for a signal, as `subprocess` reports it) and 1 if processes the command left running had to be
killed. tools/process.py reads that line.

It imports only a few standard modules, and is started with `-I -S`, so nothing in the
workspace or the environment (PYTHONPATH, a `site` module) changes what it runs, and it starts
quickly: it stands before every unsandboxed command.
"""

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

# How long what the command left running may go on after it exited: long enough for a child to
# finish writing output, short enough that the call does not hang on a server it started.
GRACE_SECONDS = 0.5
# Killing goes top down, one level of the tree per round; give up on what cannot be killed
# (a setuid program the user may not signal, a process stuck in the kernel) after this long.
KILL_SECONDS = 2.0


def prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def direct_children() -> list[int]:
    """The pids whose parent is this process (orphans below it are reparented here)."""
    me = os.getpid()
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                # "pid (name) state ppid ...": the name may hold spaces or parentheses.
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            children.append(int(entry))
    return children


def reap(command_pid: int, status: dict) -> bool:
    """Collect every child that has exited; record the command's status. False: no child left."""
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True
        if pid == command_pid:
            status["returncode"] = returncode(wait_status)


def kill_tree(command_pid: int, status: dict) -> None:
    """SIGKILL everything below this process, until nothing is left (or KILL_SECONDS pass).

    Only direct children are signalled: an unreaped child keeps its pid, so the signal cannot
    reach an unrelated process that took over a recycled pid. When a child dies, its own
    children become ours (the subreaper), and the next round kills them.
    """
    deadline = time.monotonic() + KILL_SECONDS
    while time.monotonic() < deadline:
        for pid in direct_children():
            kill(pid)
        if not reap(command_pid, status):
            return
        signal.sigtimedwait({signal.SIGCHLD}, 0.05)


def kill(pid: int) -> bool:
    """SIGKILL `pid`; False if it is gone already, or not ours to kill (a setuid program)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        return False
    return True


def returncode(wait_status: int) -> int:
    if os.WIFSIGNALED(wait_status):
        return -os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status)


def supervise(parent_pid: int, report_fd: int, command: list[str]) -> None:
    # SIGTERM and SIGCHLD are taken one at a time with sigwaitinfo, never by a handler.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # not ignored: exited children wait to be reaped
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGCHLD})
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    # The kernel sends this when the *thread* that started us ends, not the process: planloop
    # starts commands from its event loop's thread, which lives as long as planloop does.
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent_pid:
        return  # planloop died before PDEATHSIG was set: start nothing
    os.set_inheritable(report_fd, False)  # the command cannot write a report of its own

    command_pid = os.fork()
    if command_pid == 0:
        # The command starts with the signals of a fresh process: Python ignores SIGPIPE
        # (then `yes | head` would complain instead of ending quietly) and SIGXFSZ.
        for number in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        try:
            os.execv(command[0], command)
        except OSError as err:
            os.write(2, f"cannot run {command[0]}: {err.strerror}\n".encode())
        os._exit(127)
    # Hold no copy of the output pipe: planloop sees it close once the command's tree is done.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)

    status: dict = {}
    stopped = False
    grace_ends = None
    while reap(command_pid, status):
        if "returncode" in status and grace_ends is None:
            grace_ends = time.monotonic() + GRACE_SECONDS
        wanted = {signal.SIGTERM, signal.SIGCHLD}
        if grace_ends is None:
            received = signal.sigwaitinfo(wanted)
        else:
            received = signal.sigtimedwait(wanted, max(grace_ends - time.monotonic(), 0))
        asked_to_stop = received is not None and received.si_signo == signal.SIGTERM
        if asked_to_stop or (grace_ends is not None and time.monotonic() >= grace_ends):
            # Asked to stop: everything goes. After the grace: only leftovers are there.
            stopped = "returncode" in status
            kill_tree(command_pid, status)
            break
    os.write(report_fd, f"{status.get('returncode', -signal.SIGKILL)} {int(stopped)}\n".encode())


def main(argv: list[str]) -> None:
    parent_pid, report_fd, separator, *command = argv[1:]
    if separator != "--" or not command:
        sys.exit("usage: supervisor.py PARENT_PID REPORT_FD -- COMMAND...")
    supervise(int(parent_pid), int(report_fd), command)


if __name__ == "__main__":
    main(sys.argv)
