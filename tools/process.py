"""Starting, watching and ending shell commands: what bash and background tasks share.

    command = await start_command(watch, argv, env, workspace, supervise=True)
        argv runs in the workspace in a session of its own, stdin closed, stdout and stderr
        merged into one pipe; `watch` (a ProcessWatch) gets the output as it comes
    await command.wait(timeout)   True once it has exited, False if the time ran out first
    command.stop()                end it now, with everything it started (callable any time)
    await command.finish()        end what is left, wait for the end, then returncode and
                                  stopped_leftovers are known; always call it, in a finally
    BoundedOutput                 a watch that keeps the first and last HEAD/TAIL_BYTES, and
                                  tells a listener the newest output as it comes (LiveTail)
    with output_heard_by(listener):   the listener of the tool calls run in the block: the
                                  terminal, which shows a command's last lines as it runs
    describe_exit(returncode)     "0", "137 (killed by SIGKILL)", as a shell would say it

Nothing a command starts may outlive it, nor planloop: not on a timeout, a Ctrl-C, task_stop
or planloop's exit, and not when planloop itself is killed with SIGKILL, which runs no code of
ours. Three layers do it:

1. The kernel ends the tree when planloop dies.
   - Without a sandbox, every command runs under tools/supervisor.py, a small stdlib-only
     program that is a child subreaper (PR_SET_CHILD_SUBREAPER: whatever the command starts
     stays below it, even after setsid, a double fork or `env -i`) and gets SIGTERM from the
     kernel when planloop dies (PR_SET_PDEATHSIG); it then kills its whole tree. It also ends
     the tree when asked (stop) and when the command exits (after a short grace).
   - In bubblewrap, the command is pid 1's child in a pid namespace of its own, and
     `--die-with-parent` kills that namespace, and everything in it, with planloop.
2. `stop()` asks the supervisor (SIGTERM), or, with a sandbox that keeps its own processes,
   kills the process group.
3. `finish()` sweeps afterwards for what a broken layer may have left: SIGKILL to the process
   group, and to every process whose environment carries the command's MARKER_VARIABLE.

Why a supervisor: PR_SET_PDEATHSIG alone reaches only the process that sets it, so a killed
planloop would take bash with it but not bash's children. A pid namespace of our own needs root
or unprivileged user namespaces, which many systems turn off, and makes `$$` read 1. A cgroup
needs a delegated hierarchy, and someone alive to kill it. The supervisor works for any user on
any Linux; it costs one small Python start per unsandboxed command (bench/process.py).

Limits, without the sandbox: a command can kill its own supervisor (then only the sweep of
layer 3 remains, which misses a process that both left the group and cleared its environment),
hand work to something outside its tree (a service manager, `at`, a daemon it talks to), or
start a setuid program its user may not signal. Without the sandbox it can do anything the user
can anyway; the aim is that nothing survives by accident.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path

from redaction import StreamRedactor
from tools.landlock import READY_VARIABLE
from tools.paths import open_workspace

# How much of the output the model sees: the beginning and the end, each this many bytes.
HEAD_BYTES = 16 * 1024
TAIL_BYTES = 16 * 1024

# After a command is stopped, how long to wait for its end to be noticed (the exit reaped, the
# pipe closed). SIGKILL acts at once; this only covers the event loop and the supervisor.
CLEANUP_WAIT_SECONDS = 2.0

# Every process a command starts inherits this variable with a value unique to the command,
# so its leftovers can be found in /proc even after they left the process group.
MARKER_VARIABLE = "PLANLOOP_COMMAND_ID"
# A process may fork while we kill; sweep /proc again until a sweep finds nothing.
MAX_KILL_SWEEPS = 10

# Read once, as planloop starts, and run as `-c` code: not from disk at each command, where
# a workspace that is planloop's own checkout (someone working on planloop) could have had it
# rewritten by a file tool, to run before the command you approved.
SUPERVISOR_SOURCE = Path(__file__).with_name("supervisor.py").read_text()

# A sandboxed command is started once bwrap has made every mount of its sandbox: its first step
# inside (tools/landlock.py) writes a byte to the descriptor READY_VARIABLE names. Until then, a
# later sandbox could not tell what this one's mount namespace holds (tools/sandbox.py:
# `beyond_running_tasks`). At most this long: a sandbox that says nothing is started anyway.
SANDBOX_MADE_SECONDS = 10.0
# The sandboxed commands running now, foreground and background: bwrap's pid, and its start
# time (a pid freed when one ends may be another process's by the time it is looked up).
RUNNING_SANDBOXES: dict[int, int | None] = {}

# What a listener hears of a running command: the newest LIVE_BYTES of its output, at most once
# every LIVE_INTERVAL_SECONDS. Enough for the last few lines, and cheap however fast it prints.
LIVE_BYTES = 4096
LIVE_INTERVAL_SECONDS = 0.1

# Who hears the output of the tool call running now (the loop sets it around each call). A
# context variable, because the tool runs in a task of its own, which starts with a copy of the
# loop's context: a call hears only its own listener.
_output_listener: ContextVar[Callable[[str], None] | None] = ContextVar(
    "planloop_output_listener", default=None
)


@contextlib.contextmanager
def output_heard_by(listener: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, a command bash starts passes its newest output to `listener`."""
    token = _output_listener.set(listener)
    try:
        yield
    finally:
        _output_listener.reset(token)


def output_listener() -> Callable[[str], None] | None:
    """The listener of the tool call running now, if the loop set one."""
    return _output_listener.get()


class ProcessWatch(asyncio.SubprocessProtocol):
    """Notices when a command exits and when every writer has closed its output pipe.

    A protocol is used rather than `asyncio.create_subprocess_exec` because `Process.wait()`
    only returns once the output pipe is closed too, and a background child holding the pipe
    would then keep the call waiting past the command's own exit. Subclasses decide what
    happens to the output (`pipe_data_received`).
    """

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.exited = loop.create_future()  # the command itself has exited
        self.output_closed = loop.create_future()  # every writer has closed the pipe

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if not self.output_closed.done():
            self.output_closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


class LiveTail:
    """The end of a running command's output, passed to a listener as text, now and then.

    Each chunk costs a copy of at most LIVE_BYTES; the listener hears the newest LIVE_BYTES,
    decoded, at most once per LIVE_INTERVAL_SECONDS, and once more after the last chunk of a
    burst, so a line printed just before a long wait is heard too.
    """

    def __init__(self, listener: Callable[[str], None]) -> None:
        self.listener = listener
        self.recent = bytearray()
        self.scheduled: asyncio.TimerHandle | None = None

    def feed(self, data: bytes) -> None:
        self.recent += data[-LIVE_BYTES:]
        del self.recent[:-LIVE_BYTES]
        if self.scheduled is None:
            loop = asyncio.get_running_loop()
            self.scheduled = loop.call_later(LIVE_INTERVAL_SECONDS, self.tell)

    def tell(self) -> None:
        self.scheduled = None
        start = 0  # the window may begin inside a character: skip its continuation bytes
        while start < min(4, len(self.recent)) and 0x80 <= self.recent[start] < 0xC0:
            start += 1
        # final=False leaves a character still coming in for the next time, not a U+FFFD.
        text, _ = codecs.utf_8_decode(bytes(self.recent[start:]), "replace", False)
        self.listener(text)

    def close(self) -> None:
        """The command is over: nothing more is passed on."""
        if self.scheduled is not None:
            self.scheduled.cancel()
            self.scheduled = None


class BoundedOutput(ProcessWatch):
    """Collects a command's merged output: a bounded head and tail.

    The event loop calls `pipe_data_received` as data arrives; each chunk is folded into the
    head and tail at once, so the pipe is drained as fast as it is filled, and a command that
    prints gigabytes costs HEAD_BYTES + TAIL_BYTES of memory. With a `listener`, the newest
    output is also passed on as it comes (LiveTail).

    The key is redacted as the output comes in, before any of it is cut (the head's end, the
    tail's start, the live window): cut first, a key across a cut would keep all but one end.
    `total_bytes` counts the redacted stream.
    """

    def __init__(self, listener: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.head = bytearray()
        self.tail = bytearray()
        self.total_bytes = 0
        self.live = LiveTail(listener) if listener is not None else None
        self.redactor = StreamRedactor()

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if self.live is not None:
            self.live.close()
        super().pipe_connection_lost(fd, exc)

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        data = self.redactor.feed(data)
        if not data:
            return
        if self.live is not None:
            self.live.feed(data)
        self.total_bytes += len(data)
        room_in_head = HEAD_BYTES - len(self.head)
        if room_in_head > 0:
            self.head += data[:room_in_head]
            data = data[room_in_head:]
        if data:
            self.tail += data[-TAIL_BYTES:]
            del self.tail[:-TAIL_BYTES]

    def text(self) -> str:
        """The output as text, with a marker where the middle was cut out."""
        # What the redactor still holds (the start of a key, or not) ends the output: it is
        # over when this is asked.
        held = self.redactor.held
        cut_bytes = self.total_bytes - len(self.head) - len(self.tail)
        if cut_bytes == 0:
            # Head and tail are contiguous: decode them together so a character split
            # between them survives.
            return (self.head + self.tail + held).decode("utf-8", errors="replace")
        # Decoding each part separately turns a character cut at a boundary into one U+FFFD.
        head = self.head.decode("utf-8", errors="replace")
        tail = (self.tail + held).decode("utf-8", errors="replace")
        return f"{head}\n... [{cut_bytes} bytes cut from the middle of the output] ...\n{tail}"

    @property
    def was_cut(self) -> bool:
        return self.total_bytes > len(self.head) + len(self.tail)


class RunningCommand:
    """A started command: wait for it, stop it, and finish it (see the module docstring)."""

    def __init__(
        self,
        transport: asyncio.SubprocessTransport,
        watch: ProcessWatch,
        marker: str,
        report_fd: int | None,
    ) -> None:
        self.transport = transport
        self.watch = watch
        self.marker = marker
        self.report_fd = report_fd  # where the supervisor writes its report; None: unsupervised
        self.pid = transport.get_pid()  # the supervisor's (or the sandbox's) pid, and the group's
        self.returncode: int | None = None  # the command's, once finished
        self.stopped_leftovers = False  # processes it left running had to be killed

    async def wait(self, timeout: float | None) -> bool:
        """Wait up to `timeout` seconds for the command to exit; whether it has."""
        done, _ = await asyncio.wait({self.watch.exited}, timeout=timeout)
        return bool(done)

    def stop(self) -> None:
        """End the command and everything it started, now (the end is noticed in finish)."""
        if self.watch.exited.done():
            return
        if self.report_fd is None:
            kill_process_group(self.pid)
            return
        # The supervisor kills its whole tree, setsid'd and orphaned processes included.
        # os.kill, not the transport: Popen.send_signal would reap the exit asyncio waits for.
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)

    async def finish(self) -> None:
        """Stop what is left, wait for the end, sweep for stragglers; set the results."""
        swept = False
        RUNNING_SANDBOXES.pop(self.pid, None)
        try:
            self.stop()
            await self._until_ended()
            # Whatever the first layers missed (the command may have killed its supervisor).
            swept = kill_process_group(self.pid)
            swept = kill_marked_processes(self.marker) or swept
            if swept:
                await self._until_ended()  # output written just before the kill, the exit
        finally:
            self.transport.close()
        report = self._read_report()
        if report is None:
            self.returncode = self.transport.get_returncode()
        else:
            self.returncode, self.stopped_leftovers = report
        self.stopped_leftovers = self.stopped_leftovers or swept

    async def _until_ended(self) -> None:
        ended = {self.watch.exited, self.watch.output_closed}
        await asyncio.wait(ended, timeout=CLEANUP_WAIT_SECONDS)

    def _read_report(self) -> tuple[int, bool] | None:
        """The supervisor's `<returncode> <stopped>` line, or None if it wrote none."""
        if self.report_fd is None:
            return None
        try:
            line = os.read(self.report_fd, 64).decode()
        except BlockingIOError:
            line = ""  # it never got to write (killed): the transport's returncode tells
        finally:
            os.close(self.report_fd)
            self.report_fd = None
        try:
            returncode, stopped = line.split()
            return int(returncode), stopped == "1"
        except ValueError:
            return None


async def start_command(
    watch: Callable[[], ProcessWatch],
    argv: list[str],
    env: dict[str, str],
    workspace: Path,
    *,
    supervise: bool = True,
) -> RunningCommand:
    """Start `argv` in the workspace, stdin closed, stdout and stderr merged into one pipe.

    A new session makes the started process the leader of its own process group, so the group
    id is its pid and one killpg reaches every child it started; it never reads our terminal.
    `supervise`: run it under tools/supervisor.py (False for a sandbox that ends its own
    processes with planloop). OSError if it cannot start (E2BIG: an argument is too long).
    """
    marker = uuid.uuid4().hex
    env = {**env, MARKER_VARIABLE: marker}
    report_read, report_write = os.pipe() if supervise else (None, None)
    options: dict = {"pass_fds": (report_write,)} if supervise else {}
    # A sandbox that says when it is made (its argv has the step that does).
    made_read = made_write = None
    if env.pop(READY_VARIABLE, None) is not None:
        made_read, made_write = os.pipe()
        env[READY_VARIABLE] = str(made_write)
        options["pass_fds"] = (made_write,)
    if supervise:
        os.set_blocking(report_read, False)
        # -I -S: the supervisor reads nothing from the environment or the workspace.
        head = [sys.executable, "-I", "-S", "-c", SUPERVISOR_SOURCE, str(os.getpid())]
        head.append(str(report_write))
        argv = [*head, "--", *argv]
        # planloop's own interpreter, through the kernel's link to it: it runs even where the
        # path that started planloop cannot be followed again (a virtual environment in a
        # folder the user may not search, an interpreter upgraded since).
        options["executable"] = "/proc/self/exe"
    # It starts in the workspace folder as opened and checked now, not wherever the path
    # leads at the fork: another session's command may move it (tools/paths.py).
    # The descriptor is close-on-exec: the child changes into it before its exec, and no
    # command inherits it (a host descriptor of the workspace would see past the sandbox's
    # mounts, through `..`).
    folder = open_workspace(workspace)
    loop = asyncio.get_running_loop()
    try:
        # The fork happens on this thread, the event loop's. The kernel's parent-death signal
        # (the supervisor's, and bwrap's --die-with-parent) fires when the forking *thread*
        # ends, so commands must be started from a thread that lives as long as planloop:
        # the front end keeps one event loop, on the main thread, for the whole session.
        transport, protocol = await loop.subprocess_exec(
            watch,
            *argv,
            cwd=f"/proc/self/fd/{folder}",  # (the child's copy, until its exec)
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            **options,
        )
    except BaseException:
        if supervise:
            os.close(report_read)
        if made_read is not None:
            os.close(made_read)
        raise
    finally:
        os.close(folder)
        if supervise:
            os.close(report_write)  # the supervisor holds the only writer now
        if made_write is not None:
            os.close(made_write)  # the sandbox holds the only writers now
    started = RunningCommand(transport, protocol, marker, report_read)
    if not supervise:
        found = _stat(started.pid)
        RUNNING_SANDBOXES[started.pid] = found[2] if found else None
    if made_read is not None:
        try:
            await _made(made_read)
        except BaseException:  # (Ctrl-C while it was made: nothing of it goes on unwatched)
            started.stop()
            started.transport.close()
            RUNNING_SANDBOXES.pop(started.pid, None)
            raise
        finally:
            os.close(made_read)
    return started


async def _made(fd: int) -> None:
    """Wait until the sandbox's first step writes to `fd`, or every writer is gone (bwrap
    ended), or SANDBOX_MADE_SECONDS passed."""
    loop = asyncio.get_running_loop()
    made = loop.create_future()
    loop.add_reader(fd, lambda: made.done() or made.set_result(None))
    try:
        await asyncio.wait({made}, timeout=SANDBOX_MADE_SECONDS)
    finally:
        loop.remove_reader(fd)


def processes_below(roots: list[int]) -> list[tuple[int, int]]:
    """Each process in the trees of `roots` (roots included), with its start time."""
    if not roots:
        return []
    children: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (found := _stat(int(entry))) is not None:
            children.setdefault(found[1], []).append(int(entry))
            starts[int(entry)] = found[2]
    below, pending = [], [pid for pid in roots if pid in starts]
    while pending:
        pid = pending.pop()
        below.append((pid, starts[pid]))
        pending += children.get(pid, [])
    return below


def running_sandbox_pids() -> list[int]:
    """The pids (bwrap's) of the sandboxed commands running now: those planloop started that
    are still the processes it started, and those of every other planloop session whose
    processes this user can read (a second terminal in the same project, a session in a
    folder around this one), whose commands can reach this workspace as well."""
    own = [
        pid
        for pid, start in RUNNING_SANDBOXES.items()
        if (found := _stat(pid)) is not None and found[2] == start
    ]
    return own + [pid for pid in _other_sessions_sandboxes() if pid not in own]


def _other_sessions_sandboxes() -> list[int]:
    """The bwrap processes whose environment carries MARKER_VARIABLE, as every command's does
    (`start_command`). Only planloop's count: leaving a mount out for a sandbox is safe only
    where an untrusted command runs in it, one that can reach what the mount protects already
    (an editor's flatpak sandbox holds none). A command that calls itself bwrap and carries
    the variable is such a command too: its own sandbox's mounts are what it is judged by."""
    needle = f"{MARKER_VARIABLE}=".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in RUNNING_SANDBOXES:
            continue
        try:
            with open(f"/proc/{entry}/comm", "rb") as file:
                if file.read() != b"bwrap\n":
                    continue
            with open(f"/proc/{entry}/environ", "rb") as file:
                environ = file.read()
        except OSError:  # gone, or another user's
            continue
        if environ.startswith(needle) or b"\0" + needle in environ:
            found.append(int(entry))
    return found


def parent_of(pid: int) -> int | None:
    """A process's parent's pid; None once it is gone."""
    found = _stat(pid)
    return found[1] if found is not None else None


def _stat(pid: int) -> tuple[str, int, int] | None:
    """A process's state letter, its parent's pid and its start time; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()  # the name may hold anything
        return fields[0].decode(), int(fields[1]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def kill_marked_processes(marker: str) -> bool:
    """SIGKILL every process whose environment carries this command's marker.

    This finds what the process group misses: children that called setsid. A process that
    replaced its environment (env -i) is not found; the supervisor or the sandbox finds that one.
    Returns whether any process was killed.
    """
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    killed_any = False
    for _ in range(MAX_KILL_SWEEPS):
        killed = 0
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/environ", "rb") as environ:
                    if needle not in environ.read().split(b"\0"):
                        continue
                os.kill(int(entry.name), signal.SIGKILL)
                killed += 1
            except (OSError, ValueError):
                continue  # gone already, or not ours to read
        killed_any = killed_any or killed > 0
        if killed == 0:
            break
    return killed_any


def kill_process_group(process_group_id: int) -> bool:
    """SIGKILL every process in the group; return whether any was still there."""
    try:
        os.killpg(process_group_id, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        # The group is gone: everything in it has already exited.
        return False
    return True


def describe_exit(returncode: int | None) -> str:
    """Exit code as a shell reports it: a process killed by signal N exits with 128 + N."""
    if returncode is None:
        return "unknown (the process did not report its exit)"
    if returncode < 0:
        signal_number = -returncode
        try:
            signal_name = signal.Signals(signal_number).name
        except ValueError:
            signal_name = f"signal {signal_number}"
        return f"{128 + signal_number} (killed by {signal_name})"
    return str(returncode)
