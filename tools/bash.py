"""The bash tool: run a shell command in the workspace and report its output and exit code.

The command runs as `/bin/bash -c COMMAND`, spawned through a sandbox object (tools/sandbox.py:
directly, or inside bubblewrap), in its own process group, with stdin closed and stdout and
stderr merged into one pipe. Output is read as it is produced, keeping only the first and last
few kilobytes, so a command that prints gigabytes costs little memory and the model still sees
how the output began and ended.

When the command ends, times out or is cancelled, everything it started is killed: its process
group, and every process that still carries the command's marker variable in its environment,
which also finds children that left the group with `setsid`.
"""

import asyncio
import errno
import functools
import os
import signal
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolError
from tools.sandbox import NoSandbox

DEFAULT_TIMEOUT_SECONDS = 120
MIN_TIMEOUT_SECONDS = 1
MAX_TIMEOUT_SECONDS = 600

# How much of the output the model sees: the beginning and the end, each this many bytes.
HEAD_BYTES = 16 * 1024
TAIL_BYTES = 16 * 1024

# After bash exits, a background child may still hold the output pipe open. Wait this long for
# the pipe to close before killing the group, so that output already written is not lost.
EXIT_GRACE_SECONDS = 0.5

# After the group is killed, how long to wait for the pipe to close and the process to be
# reaped. SIGKILL acts at once; this only covers the event loop noticing.
CLEANUP_WAIT_SECONDS = 2.0

# Every process a command starts inherits this variable with a value unique to the command,
# so its leftovers can be found in /proc even after they left the process group.
MARKER_VARIABLE = "PLANLOOP_COMMAND_ID"
# A process may fork while we kill; sweep /proc again until a sweep finds nothing.
MAX_KILL_SWEEPS = 10


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


async def start_command(
    watch: Callable[[], ProcessWatch], argv: list[str], env: dict[str, str], workspace: Path
) -> tuple[asyncio.SubprocessTransport, ProcessWatch]:
    """Start `argv` in the workspace, stdin closed, stdout and stderr merged into one pipe.

    A new session makes the command the leader of its own process group, so the group id is
    its pid and one killpg reaches every child it started; it never reads our terminal.
    """
    loop = asyncio.get_running_loop()
    return await loop.subprocess_exec(
        watch,
        *argv,
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


class _CommandOutput(ProcessWatch):
    """Collects the command's merged output: a bounded head and tail.

    The event loop calls `pipe_data_received` as data arrives; each chunk is folded into the
    head and tail at once, so the pipe is drained as fast as it is filled.
    """

    def __init__(self) -> None:
        super().__init__()
        self.head = bytearray()
        self.tail = bytearray()
        self.total_bytes = 0

    def pipe_data_received(self, fd: int, data: bytes) -> None:
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
        cut_bytes = self.total_bytes - len(self.head) - len(self.tail)
        if cut_bytes == 0:
            # Head and tail are contiguous: decode them together so a character split
            # between them survives.
            return (self.head + self.tail).decode("utf-8", errors="replace")
        # Decoding each part separately turns a character cut at a boundary into one U+FFFD.
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        return f"{head}\n... [{cut_bytes} bytes cut from the middle of the output] ...\n{tail}"

    @property
    def was_cut(self) -> bool:
        return self.total_bytes > len(self.head) + len(self.tail)


async def run_bash(
    workspace: Path,
    command: str,
    timeout: int = DEFAULT_TIMEOUT_SECONDS,
    *,
    sandbox: object = None,
) -> str:
    """Run `command` with bash in the workspace and return its output and exit code.

    `sandbox` is anything with `wrap(workspace, command) -> (argv, env)`; None runs the command
    directly (NoSandbox), still without the API key in its environment.
    """
    if not MIN_TIMEOUT_SECONDS <= timeout <= MAX_TIMEOUT_SECONDS:
        raise ToolError(
            f"bash: timeout must be a whole number of seconds from {MIN_TIMEOUT_SECONDS} to "
            f"{MAX_TIMEOUT_SECONDS}, got {timeout}."
        )
    sandbox = sandbox or NoSandbox()
    confined = hasattr(sandbox, "before_command")
    if confined:
        # One scan serves twice: the paths to make read-only, and what existed before.
        protected_before = sandbox.before_command(workspace)
        argv, env = sandbox.wrap(workspace, command, snapshot=protected_before)
    else:
        argv, env = sandbox.wrap(workspace, command)
    marker = uuid.uuid4().hex
    env = {**env, MARKER_VARIABLE: marker}

    try:
        transport, output = await start_command(_CommandOutput, argv, env, workspace)
    except OSError as err:
        if err.errno != errno.E2BIG:
            raise
        raise ToolError(
            f"bash: the command is too long to run ({len(command)} characters; the system takes "
            "about 128 KB in one argument). Write it to a script file with write_file and run "
            "that file with bash."
        ) from None
    timed_out = False
    stopped_background = False
    try:
        done, _ = await asyncio.wait({output.exited}, timeout=timeout)
        timed_out = not done
        if not timed_out:
            await asyncio.wait({output.output_closed}, timeout=EXIT_GRACE_SECONDS)
    finally:
        # Runs on success, timeout and cancellation alike (e.g. the user pressed Ctrl-C):
        # background children must not outlive the call, not even those that called setsid.
        stopped_background = _kill_process_group(transport.get_pid())
        stopped_background = _kill_marked_processes(marker) or stopped_background
        try:
            # Pick up output written just before the kill, and let the exit be recorded.
            await asyncio.wait({output.output_closed, output.exited}, timeout=CLEANUP_WAIT_SECONDS)
        finally:
            transport.close()

    parts = [output.text().rstrip("\n") or "(no output)"]
    if output.was_cut:
        parts.append(
            "[The output was too long and its middle was cut. To see all of it, redirect it to "
            "a file (command > out.txt 2>&1) and read that with read_file.]"
        )
    if timed_out:
        parts.append(f"[timed out after {timeout} s; the command and its children were killed]")
    elif stopped_background:
        parts.append("[processes the command left running in the background were stopped]")
    if confined:
        parts += sandbox.after_command(workspace, protected_before)  # reports, never deletes
    parts.append(f"[exit code: {_describe_exit(transport.get_returncode())}]")
    return "\n".join(parts)


def _kill_marked_processes(marker: str) -> bool:
    """SIGKILL every process whose environment carries this command's marker.

    This finds what the process group misses: children that called setsid. A process that
    replaced its environment (env -i) is not found; nothing short of a sandbox finds that one.
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


def _kill_process_group(process_group_id: int) -> bool:
    """SIGKILL every process in the group; return whether any was still there."""
    try:
        os.killpg(process_group_id, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        # The group is gone: everything in it has already exited.
        return False
    return True


def _describe_exit(returncode: int | None) -> str:
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


def make_bash(sandbox: object = None, tasks: object = None) -> Tool:
    """The bash tool, spawning its commands through `sandbox` (None: NoSandbox).

    With `tasks` (a TaskManager, tools/tasks.py) the tool also offers `run_in_background`:
    the command then starts as a background task and the call returns at once with its id.
    """
    description = (
        "Run a shell command with /bin/bash in the workspace directory; returns stdout and "
        "stderr together, then the exit code. stdin is closed, and background processes are "
        "killed when the command finishes. Long output keeps only its start and end."
        + getattr(sandbox, "description", "")
    )
    properties: dict = {
        "command": {"type": "string", "description": "The shell command to run."},
        "timeout": {
            "type": "integer",
            "minimum": MIN_TIMEOUT_SECONDS,
            "maximum": MAX_TIMEOUT_SECONDS,
            "description": f"Seconds before the command is killed "
            f"(default {DEFAULT_TIMEOUT_SECONDS}).",
        },
    }
    handler = functools.partial(run_bash, sandbox=sandbox)
    if tasks is not None:
        # Imported here: tools/tasks.py builds on this module.
        from tools import tasks as background

        description += (
            " With run_in_background, the command runs on while you work (a test suite, a "
            "build, a server): you get a task id at once, to use with task_output and task_stop."
        )
        properties["timeout"] = {
            **properties["timeout"],
            "maximum": background.MAX_TIMEOUT_SECONDS,
            "description": f"Seconds before the command is killed (default "
            f"{DEFAULT_TIMEOUT_SECONDS}, at most {MAX_TIMEOUT_SECONDS}; in the background "
            f"default {background.DEFAULT_TIMEOUT_SECONDS}, at most "
            f"{background.MAX_TIMEOUT_SECONDS}).",
        }
        properties["run_in_background"] = {
            "type": "boolean",
            "description": "Start the command as a background task and return at once.",
        }
        handler = functools.partial(run_bash_or_start, sandbox=sandbox, tasks=tasks)
    return Tool(
        name="bash",
        description=description,
        input_schema={
            "type": "object",
            "properties": properties,
            "required": ["command"],
            "additionalProperties": False,
        },
        handler=handler,
    )


async def run_bash_or_start(
    workspace: Path,
    command: str,
    timeout: int | None = None,
    run_in_background: bool = False,
    *,
    sandbox: object,
    tasks: Any,
) -> str:
    """bash with `run_in_background`: a background task of `tasks`, else `run_bash`."""
    if run_in_background:
        if timeout is None:
            return await tasks.start_in_background(workspace, command)
        return await tasks.start_in_background(workspace, command, timeout)
    return await run_bash(workspace, command, timeout or DEFAULT_TIMEOUT_SECONDS, sandbox=sandbox)


BASH = make_bash()
