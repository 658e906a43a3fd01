"""Background tasks: shell commands that outlive a turn, their output kept in a file.

    bash {command, run_in_background: true} --> start_in_background --> "bg-1 started ..."
        the command runs through the sandbox, started and ended by tools/process.py
        its output --> <folder>/bg-1.out: the first 4 MiB, then only the last 1 MiB
    task_output {task_id, wait?}  --> the status and the output that is new since the last read
    task_stop {task_id}           --> kill the task and everything it started
    shutdown()                    --> planloop exits: kill what still runs, say which

One `TaskManager` per session numbers its tasks bg-1, bg-2, ... in the order they start. It
also is planloop's host for the task wait of the todo list (todo/taskwait.py):
`validate_task_wait` says whether the tasks a model wants to wait for still have a result to
deliver.

The manager's watchers run on the event loop that started the tasks, so the front end keeps
one loop for the whole session (asyncio.Runner) and calls `shutdown()` on it before it closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from redaction import StreamRedactor
from todo.taskwait import CANCELLED, VALID, TaskWaitBinding, TaskWaitValidation
from tools.base import Tool, ToolError
from tools.bind_watch import (
    NO_SANDBOX_NOW,
    FolderWatch,
    SandboxStart,
    check_failed,
    key_seen,
    quiet_view_now,
    replaced_notes,
    sandbox_start,
    what_was_lost,
    why_seen,
)
from tools.folder_watch import WHY_UNWATCHED, passed_over_notice, too_big_notice

# Started, watched and ended as bash's commands are (tools/process.py): a task's output reads
# like a foreground command's, and it is stopped just as thoroughly, also when planloop dies.
from tools.process import (
    CLEANUP_WAIT_SECONDS,
    BoundedOutput,
    ProcessWatch,
    RunningCommand,
    describe_exit,
    start_command,
)
from tools.rehide import hidden_again, hidden_too
from tools.task_lock import TasksRunning

DEFAULT_TIMEOUT_SECONDS = 30 * 60
MIN_TIMEOUT_SECONDS = 1
MAX_TIMEOUT_SECONDS = 24 * 60 * 60
MAX_RUNNING = 8
MAX_WAIT_SECONDS = 600
# While a folder a task binds in cannot be watched: how often its sandbox is compared meanwhile.
POLL_SECONDS = 2

# What the output file keeps: the beginning as it was written, then a rolling window of the
# end (held in memory while the task runs, appended to the file when it ends). A task that
# prints gigabytes costs at most about 5 MiB of disk and 1 MiB of memory.
FILE_HEAD_BYTES = 4 * 1024 * 1024
FILE_TAIL_BYTES = 1 * 1024 * 1024
READ_CHUNK_BYTES = 64 * 1024

RUNNING, EXITED, KILLED, TIMED_OUT = "running", "exited", "killed", "timed out"

# Who stopped a task: the person (/tasks stop), the model (task_stop), or planloop exiting.
BY_USER, BY_MODEL, BY_SHUTDOWN = "user", "model", "shutdown"
BY_SANDBOX = "sandbox"  # a file holding the key appeared that its sandbox could not hide


class OutputFile:
    """A task's output on disk, bounded: the first FILE_HEAD_BYTES, then the last FILE_TAIL_BYTES.

    Positions are counted in the stream the command wrote (`total` bytes so far), so a reader
    can ask for "everything from position P" and learn how much of it was not kept.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        # Private (0600): it holds what a command printed, which may be anything.
        self.file = open(path, "wb", opener=private_file)  # noqa: SIM115 (closed in finish)
        self.redactor = StreamRedactor()  # the key never reaches the file, even split in two
        self.total = 0
        self.tail = bytearray()  # the end of the stream past the head, at most FILE_TAIL_BYTES
        self.tail_size = 0  # len(tail), still known once finish() has moved the tail to the file
        self.tail_in_file_at: int | None = None  # where finish() put the tail in the file

    @property
    def head_size(self) -> int:
        return min(self.total, FILE_HEAD_BYTES)

    @property
    def tail_start(self) -> int:
        """The stream position of the first byte of the kept tail."""
        return self.total - self.tail_size

    def write(self, data: bytes) -> None:
        self._keep(self.redactor.feed(data))

    def _keep(self, data: bytes) -> None:
        room = FILE_HEAD_BYTES - self.total
        if room > 0:
            self.file.write(data[:room])
            self.file.flush()  # a reader opens the file on its own
            self.total += min(room, len(data))
            data = data[room:]
        if data:
            self.total += len(data)
            self.tail += data[-FILE_TAIL_BYTES:]
            del self.tail[:-FILE_TAIL_BYTES]
            self.tail_size = len(self.tail)

    def finish(self) -> None:
        """The task ended: put the kept end into the file after a note on what was dropped."""
        if self.file.closed:
            return
        self._keep(self.redactor.end())
        if self.tail:
            dropped = self.tail_start - FILE_HEAD_BYTES
            if dropped:
                self.file.write(f"\n... [{dropped} bytes not kept] ...\n".encode())
            self.tail_in_file_at = self.file.tell()
            self.file.write(self.tail)
            self.tail = bytearray()  # read from the file from now on
        self.file.close()

    def dropped_since(self, position: int) -> int:
        """How many bytes from `position` on were in neither the head nor the tail."""
        return max(0, self.tail_start - max(position, FILE_HEAD_BYTES))

    def chunks_since(self, position: int) -> Iterator[bytes]:
        """The kept bytes from stream position `position` to the end, in bounded chunks."""
        tail_from = max(position, self.tail_start)
        with open(self.path, "rb") as reader:
            reader.seek(position)
            left = self.head_size - position
            while left > 0:
                chunk = reader.read(min(left, READ_CHUNK_BYTES))
                if not chunk:
                    break
                left -= len(chunk)
                yield chunk
            if tail_from >= self.total:
                return
            if self.tail_in_file_at is None:  # still running: the tail is in memory
                yield bytes(self.tail[tail_from - self.tail_start :])
                return
            reader.seek(self.tail_in_file_at + tail_from - self.tail_start)
            while chunk := reader.read(READ_CHUNK_BYTES):
                yield chunk


def private_file(path: str, flags: int) -> int:
    """Open `path` as only its owner may read it (an opener for `open`)."""
    return os.open(path, flags, 0o600)


class _TaskOutput(ProcessWatch):
    """Streams the command's output into its OutputFile (and notices when it exits)."""

    def __init__(self, output: OutputFile) -> None:
        super().__init__()
        self.output = output

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.output.write(data)


@dataclass
class BackgroundTask:
    """One command running (or run) in the background, and what is known about it."""

    id: str
    command: str
    output: OutputFile
    timeout: int
    process: RunningCommand
    started: float = field(default_factory=time.time)  # wall clock, kept as evidence
    started_at: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    status: str = RUNNING
    returncode: int | None = None
    stopped_by: str | None = None
    stop_event: int = 0  # the manager's event number when it was stopped
    read_position: int = 0  # stream position up to which the model has read the output
    delivered: bool = False  # the model has read the final result
    waiters: int = 0  # task_output calls waiting for it to end right now
    notes: list[str] = field(default_factory=list)  # for the model, once it has ended
    done: asyncio.Event = field(default_factory=asyncio.Event)
    watcher: asyncio.Task | None = None
    # Whether it runs in a sandbox whose read-only binds were fixed when it started.
    confined: bool = False
    # What that sandbox holds read-only and shows empty (tools/sandbox.py `view_of`), what
    # those binds sit on (tools/bind_watch.py), and where it runs; the paths held since, that
    # the person was told it may still change.
    view_at_start: tuple[frozenset[str], frozenset[str]] | None = None
    binds: SandboxStart | None = None
    workspace: Path | None = None
    told: set[str] = field(default_factory=set)
    # Held paths replaced on the host since it started, said to the person once each.
    replaced_told: set[str] = field(default_factory=set)
    checked_at_end: bool = False  # compared with the files once more after it ended
    # Notes from a comparison made before another tool call, for its next task_output.
    later_notes: list[str] = field(default_factory=list)
    # Why its output is kept from the model, once a file it could read held the key.
    withheld: str | None = None

    @property
    def pid(self) -> int:
        """The pid planloop started: the supervisor's, or the sandbox's."""
        return self.process.pid

    def describe(self) -> str:
        """The status in words: 'running for 12 s', 'exited with code 0 after 40 s', ..."""
        seconds = round((self.ended_at or time.monotonic()) - self.started_at)
        if self.status == RUNNING:
            return f"running for {seconds} s"
        if self.status == EXITED:
            return f"exited with code {describe_exit(self.returncode)} after {seconds} s"
        if self.status == TIMED_OUT:
            return f"timed out after {self.timeout} s and was killed"
        how = {
            BY_USER: " by the user",
            BY_MODEL: " with task_stop",
            BY_SHUTDOWN: " on exit",
            BY_SANDBOX: " by planloop",
        }
        return f"killed{how.get(self.stopped_by or '', '')} after {seconds} s"


class TaskManager:
    """The background tasks of one session: start, read, stop, shut down, validate waits.

    `folder` receives one output file per task (the session's folder); `sandbox` is anything
    with `wrap(workspace, command) -> (argv, env)`, the same object the bash tool spawns with.
    """

    # What bash tells the model about run_in_background's timeout.
    default_timeout = DEFAULT_TIMEOUT_SECONDS
    max_timeout = MAX_TIMEOUT_SECONDS

    def __init__(self, folder: Path, sandbox: Any) -> None:
        self.folder = Path(folder)
        self.sandbox = sandbox
        self.tasks: dict[str, BackgroundTask] = {}
        self.numbers = itertools.count(1)
        # Orders starts, validations and stops, so a stop can be told apart as "after the wait
        # was validated". The token tells this manager's evidence from an earlier process's.
        self.events = itertools.count(1)
        self.token = uuid.uuid4().hex
        self.starting = 0  # starts under way, counted against the limit before they run
        # The folders of what running tasks' sandboxes bind: a file replaced there is looked
        # at when it happens, not only at the next tool call.
        # A folder that goes unwatched while tasks run (made past the bound) is said and polled.
        self.folder_watch = FolderWatch(self.files_changed, self.poll_if_unwatched)
        self.unwatched_told: set[str] = set()
        self.passed_over_told = False  # other files past MAX_OTHERS were said
        self.too_big_told = False  # an other file past OTHER_FILE_BYTES was said
        self.poller: asyncio.Future | None = None
        # Held while a sandboxed task runs, so that no planloop session replaces a protected
        # file meanwhile (tools/task_lock.py).
        self.task_lock = TasksRunning()

    # ---- starting ------------------------------------------------------------------------

    async def start(
        self,
        workspace: Path,
        command: str,
        timeout: int = DEFAULT_TIMEOUT_SECONDS,
        sandbox: Any = None,
    ) -> BackgroundTask:
        """Start `command` in the background; raise ToolError (for the model) if it cannot.

        `sandbox` replaces the manager's for this task (bash's outside_sandbox, approved).
        """
        if not MIN_TIMEOUT_SECONDS <= timeout <= MAX_TIMEOUT_SECONDS:
            raise ToolError(
                f"timeout for a background task must be {MIN_TIMEOUT_SECONDS} to "
                f"{MAX_TIMEOUT_SECONDS} seconds (24 hours), got {timeout}."
            )
        running = self.running()
        if len(running) + self.starting >= MAX_RUNNING:
            names = ", ".join(task.id for task in running)
            raise ToolError(
                f"{MAX_RUNNING} background tasks are already running ({names}), the most at "
                "once. Stop one with task_stop, or wait for one with task_output and wait."
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        task_id = f"bg-{next(self.numbers)}"
        # As bash does: one scan of the workspace serves the sandbox's read-only binds and,
        # when the task ends, the report of what it created (nothing is deleted).
        sandbox = sandbox or self.sandbox
        if getattr(sandbox, "confines_writes", False):
            # First: its binds are then made of the files as a protected write of another
            # session, which this waits for, left them (tools/task_lock.py).
            await self.task_lock.hold()
        protected_before = None
        try:
            with getattr(sandbox, "reading_once", contextlib.nullcontext)():  # (as bash does)
                if hasattr(sandbox, "before_command"):
                    protected_before = sandbox.before_command(workspace)
                    argv, env = sandbox.wrap(workspace, command, snapshot=protected_before)
                else:
                    argv, env = sandbox.wrap(workspace, command)
                # Before it starts: what its binds sit on (a file replaced on the host since is
                # no longer hidden or held in its sandbox).
                binds = sandbox_start(sandbox, workspace, argv)
        except BaseException:
            self.release_task_lock()  # kept while another sandboxed task runs
            raise
        supervise = not getattr(sandbox, "confines_processes", False)
        output = OutputFile(self.folder / f"{task_id}.out")
        self.starting += 1
        try:
            process = await start_command(
                lambda: _TaskOutput(output), argv, env, workspace, supervise=supervise
            )
        except BaseException as err:
            self.starting -= 1
            self.release_task_lock()  # held for this one only: it did not start
            output.finish()
            if isinstance(err, OSError):
                raise ToolError(f"The background task could not start: {err}.") from None
            raise
        # Nothing below awaits until the task is in self.tasks, so no task's end in between can
        # let go of the lock this one needs.
        self.starting -= 1
        task = BackgroundTask(task_id, command, output, timeout, process)
        task.confined = bool(getattr(sandbox, "confines_writes", False))
        # What the watch between commands saw while this one was made ready, its binds did not
        # hide: counted once the task's own watch has begun (tools/between_commands.py).
        handed_over = getattr(sandbox, "written_while_it_started", None)
        if task.confined and binds is not None:
            task.view_at_start, task.workspace = (binds.held, binds.hidden), Path(workspace)
            task.binds = binds
            self.folder_watch.add(binds)
            self.poll_if_unwatched()
            if handed_over is not None:
                self.folder_watch.take_in(handed_over(workspace))
        elif handed_over is not None:
            handed_over(workspace)
        if handed_over is not None:
            # The task's own watch has begun, but it is no command's: the next command is made
            # ready under the watch between commands, as after any other (between_commands.py).
            getattr(sandbox, "watch_from_now", lambda _workspace: None)(workspace)
        self.tasks[task_id] = task
        task.watcher = asyncio.ensure_future(
            self._watch(task, workspace, sandbox, protected_before)
        )
        return task

    async def start_in_background(
        self,
        workspace: Path,
        command: str,
        timeout: int = DEFAULT_TIMEOUT_SECONDS,
        sandbox: Any = None,
    ) -> str:
        """What bash with `run_in_background: true` does: start, and tell the model how to go on."""
        task = await self.start(workspace, command, timeout, sandbox)
        return (
            f"Started background task {task.id}; it keeps running while you work "
            f"(it is killed after {task.timeout} s).\n"
            f'Read its new output with task_output {{"task_id": "{task.id}"}}, adding '
            '"wait": SECONDS to wait for it to end first.\n'
            f'Stop it with task_stop {{"task_id": "{task.id}"}}.'
        )

    async def _watch(
        self, task: BackgroundTask, workspace: Path, sandbox: Any, protected_before: Any
    ) -> None:
        """Wait for the task to end, time it out, and clean up after it (as bash does)."""
        try:
            if not await task.process.wait(task.timeout) and task.status == RUNNING:
                task.status = TIMED_OUT
        finally:
            # Also when the loop shuts down: nothing the task started outlives it.
            try:
                await task.process.finish()
            finally:
                task.returncode = task.process.returncode
                if task.status == RUNNING:
                    task.status = EXITED
                task.ended_at = task.ended_at or time.monotonic()
                end_notes: list[str] = []
                if protected_before is not None:
                    # From before its last look on: a file written as it ends is seen.
                    getattr(sandbox, "watch_from_now", lambda _workspace: None)(workspace)
                try:
                    with getattr(sandbox, "reading_once", contextlib.nullcontext)():
                        if task.binds is not None and not task.delivered:
                            # Once more after its end: what it could read or change until
                            # then is known before the model reads anything it wrote.
                            end_notes = self.compare_sandboxes(task, last=True)
                        task.notes = end_notes
                        if protected_before is not None:
                            task.notes += sandbox.after_command(workspace, protected_before)
                except Exception as error:
                    # A file the task made can make this look fail (a NUL in a `.pth` line):
                    # what it could read is not known, so its output is not given out.
                    if task.binds is not None or protected_before is not None:
                        done = f"{task.id}'s output was kept from the model"
                        line = check_failed(sandbox, "it", done, error)
                        task.withheld = task.withheld or f"[its output is withheld: {line}]"
                    else:
                        raise
                finally:
                    if task.binds is not None and not task.delivered:
                        task.checked_at_end = True
                task.output.finish()
                task.done.set()
                self.release_task_lock()
                if not any(other.binds for other in self.running()):
                    self.folder_watch.close()

    def release_task_lock(self) -> None:
        """Let go of the workspace's task lock once no sandboxed task runs or starts."""
        confined = (task for task in self.tasks.values() if task.confined)
        if not self.starting and all(task.done.is_set() for task in confined):
            self.task_lock.release()

    # ---- looking and stopping ------------------------------------------------------------

    def running(self) -> list[BackgroundTask]:
        return [task for task in self.tasks.values() if task.status == RUNNING]

    def undelivered(self) -> list[BackgroundTask]:
        """Tasks that ended on their own and whose result the model has not read yet."""
        return [
            task
            for task in self.tasks.values()
            if task.done.is_set() and task.stopped_by is None and not task.delivered
        ]

    def get(self, task_id: str) -> BackgroundTask:
        task = self.tasks.get(task_id)
        if task is None:
            known = ", ".join(self.tasks) or "none yet"
            raise ToolError(
                f"There is no background task {task_id!r} in this session (tasks: {known}). "
                "Start one with bash and run_in_background: true."
            )
        return task

    def stop(self, task_id: str, by: str = BY_USER) -> BackgroundTask:
        """Kill the task's whole process group now; the watcher records the end."""
        task = self.get(task_id)
        if task.status == RUNNING:
            task.status, task.stopped_by = KILLED, by
            task.stop_event = next(self.events)
            task.ended_at = time.monotonic()
            task.process.stop()
        return task

    async def shutdown(self) -> list[BackgroundTask]:
        """Kill every task still running and wait for their ends; return those tasks."""
        still_running = self.running()
        for task in still_running:
            self.stop(task.id, by=BY_SHUTDOWN)
        watchers = [task.watcher for task in self.tasks.values() if task.watcher is not None]
        if watchers:
            await asyncio.wait(watchers, timeout=CLEANUP_WAIT_SECONDS * 2)
        return still_running

    def compare_sandboxes(
        self, task: BackgroundTask, now: Any = None, last: bool = False
    ) -> list[str]:
        """What `task`'s sandbox (made at its start) no longer hides or holds, and what a
        sandbox made now holds that it does not (`now`: `view_now`'s, when known already).

        A file it could read that held the key or a secret (one that appeared or was filled
        since, or one replaced on the host, which undoes its hiding: tools/bind_watch.py): the
        task is stopped, its output kept from the model, since it may hold the key in any form,
        and the run is stopped or paused (middleware/exposure.py). A held path replaced on the
        host: the task could change the new one, so it is stopped and that is said; a hidden
        file without the key is hidden again in its sandbox instead (tools/rehide.py), where
        that can be done, and so is a secret of your home made meanwhile. A path held since
        (a repository or a virtualenv you made meanwhile): the task may still change it;
        the person and the model are told once, and the person decides. Returns the notes for
        the model. The `last` look, once the task has ended, reads every file it wrote that
        is still to be judged, however many bytes they hold: its output goes to the model next.
        """
        if task.binds is None or task.withheld or task.delivered or task.checked_at_end:
            return []
        # Key files seen holding the key when written, whatever they hold now.
        self.folder_watch.look()
        written = self.folder_watch.exposed_since(task.started_at, last=last)
        lost = what_was_lost(self.sandbox, task.binds, now, written)
        if task.status == RUNNING and lost.seen and not lost.unknown:
            # A history your first REPL or `less` wrote meanwhile, without the key: hidden in
            # its sandbox too, rather than the task stopped (tools/rehide.py).
            new = [path for path in lost.seen if path not in task.binds.hidden | set(written)]
            for path in hidden_too(task.pid, task.binds, new):
                lost.seen.remove(path)
                self.tell(
                    f"sandbox: {shown(task.workspace, path)} was made on the host while "
                    f"{task.id} ran; hidden in its sandbox too ({task.id} could read it until "
                    "then)."
                )
        if lost.unknown or lost.seen:
            done = f"{task.id}'s output was kept from the model"
            if task.status == RUNNING:
                self.stop(task.id, by=BY_SANDBOX)
                done = f"{task.id} was stopped and its output kept from the model"
            if lost.unknown:
                line = check_failed(self.sandbox, task.id, done, NO_SANDBOX_NOW)
                task.withheld = f"[its output is withheld: {line}]"
                return []
            task.withheld = (
                f"[its output is withheld: {why_seen(task.binds, lost.seen)}, which its sandbox "
                "could not hide; start it again to go on]"
            )
            key_seen(self.sandbox, task.binds, lost.seen, task.id, done)
            return []
        notes = []
        replaced = [path for path in lost.replaced if path not in task.replaced_told]
        if task.status == RUNNING:
            # A history a closing terminal saved stops no task: it is hidden again instead.
            for path in hidden_again(task.pid, task.binds, replaced):
                replaced.remove(path)
                self.tell(
                    f"sandbox: {shown(task.workspace, path)} was replaced on the host while "
                    f"{task.id} ran; hidden again in its sandbox ({task.id} could read the new "
                    "one until then)."
                )
        if replaced:
            task.replaced_told.update(replaced)
            notes += replaced_notes(self.sandbox, task.binds, replaced, task.id)
            if task.status == RUNNING:
                # Its sandbox no longer holds them: stopped before it changes them.
                self.stop(task.id, by=BY_SANDBOX)
                notes.append(f"[{task.id} was stopped: its sandbox no longer held them]")
        held_then, current = task.binds.held, lost.now
        if current is None:
            return notes
        root = str(task.workspace)
        held = sorted(
            path
            for path in current[0] - held_then - task.told
            if path.startswith(root + os.sep) and task.status == RUNNING
        )
        if not held:
            return notes
        task.told.update(held)
        names = ", ".join(shown(task.workspace, path) for path in held)
        # New sandboxes leave out what the task could move while they are made (tools/sandbox.py,
        # `beyond_running_tasks`): until it ends, new commands can change it too.
        self.tell(
            f"sandbox: {names} became protected after {task.id} started; {task.id} can still "
            f"change it, and so can new commands until {task.id} ends (stop it if you did not "
            "expect that)."
        )
        notes.append(
            f"[sandbox: {names} became protected after {task.id} started; {task.id} can still "
            f"change it, and so can new commands until {task.id} ends]"
        )
        return notes

    def files_changed(self) -> None:
        """A bound file (or a `.env*` name) changed in a watched folder: compare now, so that a
        task that could read the key is stopped at once (and the person told)."""
        self.check_running()
        if not any(task.binds for task in self.running()):
            self.folder_watch.close()

    def check_running(self) -> list[str]:
        """Compare every sandboxed task that is running, or ended and not yet compared, with
        the files now (`compare_sandboxes`); before each tool call, so that nothing a task
        wrote after it could read the key reaches the model. Returns notes for the model."""
        tasks = [
            task
            for task in self.tasks.values()
            if task.binds is not None
            and not (task.withheld or task.delivered)
            and not task.checked_at_end
        ]
        if not tasks:
            return []
        notes = []
        with getattr(self.sandbox, "reading_once", contextlib.nullcontext)():
            now = quiet_view_now(self.sandbox, tasks[0].workspace)
            for task in tasks:
                same = now if task.workspace == tasks[0].workspace else None
                found = self.compare_sandboxes(task, same)
                task.later_notes += found  # the model reads them with the task's output
                notes += found
        return notes

    def poll_if_unwatched(self) -> None:
        """Where a folder a task's sandbox binds in cannot be watched (no inotify, or no watch
        left: `fs.inotify.max_user_watches` and `max_user_instances` are shared by all your
        programs, and a task can use them up), compare at each tool call as always and every
        POLL_SECONDS while the model waits, rather than only when it next calls a tool."""
        unwatched = self.folder_watch.unwatched
        new = sorted(unwatched - self.unwatched_told)
        if new:
            self.unwatched_told.update(new)
            named = ", ".join(new[:3]) + (f" and {len(new) - 3} more" if len(new) > 3 else "")
            self.tell(
                f"planloop: cannot watch {named} for files replaced or written under "
                f"background tasks ({WHY_UNWATCHED}); they are checked at "
                f"each tool call and every {POLL_SECONDS} s instead."
            )
        if unwatched and (self.poller is None or self.poller.done()):
            self.poller = asyncio.ensure_future(self._poll())
        if self.folder_watch.passed_over and not self.passed_over_told:
            self.passed_over_told = True
            self.tell(passed_over_notice())
        if self.folder_watch.too_big and not self.too_big_told:
            self.too_big_told = True
            self.tell(too_big_notice())

    async def _poll(self) -> None:
        while self.folder_watch.unwatched and any(task.binds for task in self.running()):
            await asyncio.sleep(POLL_SECONDS)
            with contextlib.suppress(Exception):  # a failed look must not end the loop
                self.check_running()

    def tell(self, line: str) -> None:
        notify = getattr(self.sandbox, "notify", None)
        if notify is not None:
            notify(line)

    async def read_output(self, task: BackgroundTask) -> str:
        """The status and the output new since the last read (head and tail, as bash keeps)."""
        sandbox_notes = [*task.later_notes, *self.compare_sandboxes(task)]
        task.later_notes = []
        if task.withheld:
            waiter = asyncio.ensure_future(task.done.wait())  # its end, and the sandbox's notes
            try:
                await asyncio.wait({waiter}, timeout=CLEANUP_WAIT_SECONDS * 2)
            finally:
                waiter.cancel()
            task.read_position = task.output.total
            notes = task.notes if task.done.is_set() and not task.delivered else []
            task.delivered = task.done.is_set()
            return "\n".join([f"[{task.id}: {task.describe()}]", task.withheld, *notes])
        start, end = task.read_position, task.output.total
        final = task.done.is_set()
        view = BoundedOutput()
        for chunk in task.output.chunks_since(start):
            view.pipe_data_received(1, chunk)
        dropped = task.output.dropped_since(start)
        task.read_position = end
        first_final_read = final and not task.delivered
        if final and task.read_position == task.output.total:
            task.delivered = True  # the model has now seen how it ended
        parts = [f"[{task.id}: {task.describe()}]"]
        new = view.text().rstrip("\n")
        parts.append(new if new else "(no new output)")
        if dropped:
            parts.append(
                f"[{dropped} bytes in the middle were not kept: the output file holds the first "
                f"{FILE_HEAD_BYTES // 2**20} MiB and the last {FILE_TAIL_BYTES // 2**20} MiB.]"
            )
        if view.was_cut:
            parts.append(
                "[The new output was long and its middle was cut. To keep all of it, redirect it "
                "to a file in the workspace (command > out.txt 2>&1) and read that file.]"
            )
        parts += sandbox_notes
        if task.status == RUNNING:
            parts.append("[still running: call task_output again for what comes next]")
        elif first_final_read:
            parts += task.notes  # e.g. a new .env file the sandboxed command made
        return "\n".join(parts)

    # ---- the tools -----------------------------------------------------------------------

    async def task_output(self, workspace: Path, task_id: str, wait: int = 0) -> str:
        task = self.get(task_id)
        if wait > 0 and not task.done.is_set():
            # Cancelling this call (Ctrl-C) cancels only the waiting; the task runs on.
            waiter = asyncio.ensure_future(task.done.wait())
            task.waiters += 1
            try:
                await asyncio.wait({waiter}, timeout=wait)
            finally:
                task.waiters -= 1
                waiter.cancel()
        return await self.read_output(task)

    async def task_stop(self, workspace: Path, task_id: str) -> str:
        task = self.stop(task_id, by=BY_MODEL)
        waiter = asyncio.ensure_future(task.done.wait())
        try:
            await asyncio.wait({waiter}, timeout=CLEANUP_WAIT_SECONDS * 2)
        finally:
            waiter.cancel()
        return await self.read_output(task)

    def tools(self) -> list[Tool]:
        """task_output and task_stop, bound to this manager."""
        task_id = {"type": "string", "description": "The task's id, e.g. bg-1."}
        return [
            Tool(
                "task_output",
                "Read a background task's status (running, exited with its code, killed, timed "
                "out) and the output that is new since your last read. With wait, first wait up "
                "to that many seconds for the task to end.",
                {
                    "type": "object",
                    "properties": {
                        "task_id": task_id,
                        "wait": {
                            "type": "integer",
                            "minimum": 0,
                            "maximum": MAX_WAIT_SECONDS,
                            "description": "Seconds to wait for the task to end (default 0).",
                        },
                    },
                    "required": ["task_id"],
                    "additionalProperties": False,
                },
                self.task_output,
            ),
            Tool(
                "task_stop",
                "Stop a background task: kill it and every process it started.",
                {
                    "type": "object",
                    "properties": {"task_id": task_id},
                    "required": ["task_id"],
                    "additionalProperties": False,
                },
                self.task_stop,
            ),
        ]

    # ---- the host of the task wait -------------------------------------------------------

    async def validate_task_wait(
        self, task_ids: list[str], ctx: Any, prior: TaskWaitBinding | None
    ) -> TaskWaitValidation:
        """Whether each task exists in this session and still has a result to deliver.

        cancelled: a task the wait was validated for was stopped by the user since.
        The evidence holds the task ids, start times and an event number: nothing secret.
        """
        unknown = [task_id for task_id in task_ids if task_id not in self.tasks]
        if unknown:
            known = ", ".join(self.tasks) or "none"
            return invalid(unknown, f"no such background task in this session (tasks: {known})")
        evidence = prior.validation if prior is not None else {}
        if prior is not None and evidence.get("manager") != self.token:
            return invalid(task_ids, "the wait was declared before planloop restarted")
        tasks = [self.tasks[task_id] for task_id in task_ids]
        seen = evidence.get("started", {})
        reused = [t.id for t in tasks if t.id in seen and seen[t.id] != t.started]
        if reused:
            return invalid(reused, "these ids now name other tasks")
        validated_at = evidence.get("event", 0)
        cancelled = [
            t.id
            for t in tasks
            if t.id in seen and t.stopped_by == BY_USER and t.stop_event > validated_at
        ]
        if cancelled:
            return TaskWaitValidation(
                CANCELLED,
                reason=f"the user stopped {', '.join(cancelled)} after the wait was declared",
                bad_task_ids=cancelled,
            )
        stopped = [t.id for t in tasks if t.stopped_by is not None]
        if stopped:
            return invalid(stopped, "they were stopped, so no result is coming")
        delivered = [t.id for t in tasks if t.delivered]
        if delivered:
            return invalid(delivered, "they ended and their result was already read")
        return TaskWaitValidation(
            VALID,
            validation={
                "manager": self.token,
                "event": next(self.events),
                "started": {t.id: t.started for t in tasks},
            },
        )


def shown(workspace: Path, path: str) -> str:
    """A path as the person is told it: from the workspace when it lies there (`.env.local`)."""
    inside = path.startswith(str(workspace) + os.sep)
    return os.path.relpath(path, workspace) if inside else path


def sandboxed_tasks_running(tools: dict[str, Tool]) -> list[str]:
    """The ids of the sandboxed background tasks that have not ended yet, in the task manager
    behind these tools (found by what their handlers are, not by a name; none without one).

    While one runs, a protected file must not be replaced: the rename takes the file its sandbox
    binds read-only (or hides) out from under that bind, and the task can then write the new
    one, or write it through the temporary file it opened while the tool was writing it.
    """
    managers = {
        id(manager): manager
        for tool in tools.values()
        if isinstance(manager := getattr(tool.handler, "__self__", None), TaskManager)
    }
    return [
        task.id
        for manager in managers.values()
        for task in manager.tasks.values()
        if task.confined and not task.done.is_set()  # stopped, but maybe not gone yet
    ]


def find_task_manager(agent: Any) -> TaskManager | None:
    """The TaskManager behind the agent's task tools, if it has them (for the front end)."""
    tool = agent.tools.get("task_output")
    manager = getattr(tool.handler, "__self__", None) if tool is not None else None
    return manager if isinstance(manager, TaskManager) else None


def invalid(task_ids: list[str], reason: str) -> TaskWaitValidation:
    return TaskWaitValidation("invalid", reason=reason, bad_task_ids=list(task_ids))


def still_running_note(stopped: list[BackgroundTask]) -> str | None:
    """The closing line for the tasks `shutdown` had to kill, or None if there were none."""
    if not stopped:
        return None
    listed = ", ".join(f"{task.id} ({task.command})" for task in stopped)
    return f"Background tasks still running were stopped: {listed}."


def stopped_on_exit_note(agent: Any) -> str:
    """The closing line's part about background tasks planloop stopped on exit ('' if none)."""
    manager = find_task_manager(agent)
    if manager is None:
        return ""
    stopped = [task for task in manager.tasks.values() if task.stopped_by == BY_SHUTDOWN]
    return still_running_note(stopped) or ""
