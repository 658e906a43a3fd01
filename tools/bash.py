"""The bash tool: run a shell command in the workspace and report its output and exit code.

    bash {"command": "pytest -q", "timeout"?: 120}
      --> /bin/bash -c COMMAND in the workspace, through the sandbox (tools/sandbox.py)
      --> "<the output: its first and last 16 KB>\n[exit code: 0]"
      --> output longer than that: also kept whole, bounded, in <session>.tasks/<call id>.out
          (first 4 MiB + last 1 MiB, the key redacted), which /output pages (cli/output.py)

Two inputs come with what they need:
    run_in_background   with background tasks (tools/tasks.py): start it, return a task id
    outside_sandbox     with a sandbox: run this one command without it; the permission policy
                        (middleware/permissions.py) asks the person every time

How a command is started, watched and ended, with everything it started and on every path
(timeout, Ctrl-C, planloop killed), is tools/process.py; this module builds the call and words
the result.
"""

import contextlib
import dataclasses
import errno
import functools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolError
from tools.bind_watch import (
    NO_SANDBOX_NOW,
    check_failed,
    key_seen,
    replaced_notes,
    sandbox_start,
    watch_key_files,
    what_was_lost,
    why_seen,
)
from tools.file_call import OUTSIDE_SANDBOX_APPROVED, current_file_call
from tools.process import (
    HEAD_BYTES,
    TAIL_BYTES,
    BoundedOutput,
    describe_exit,
    output_listener,
    start_command,
)
from tools.sandbox import NoSandbox
from tools.task_lock import command_running
from tools.tasks import OutputFile

DEFAULT_TIMEOUT_SECONDS = 120
MIN_TIMEOUT_SECONDS = 1
MAX_TIMEOUT_SECONDS = 600

# A tool call's id names the file of its whole output; an id of any other shape gets no file.
FILE_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def whole_output_path(folder: Path | None, call_id: str) -> Path | None:
    """Where the whole output of call `call_id` is kept in `folder` (the session's), if at all."""
    if folder is None or not FILE_SAFE_ID.fullmatch(call_id):
        return None
    return Path(folder) / f"{call_id}.out"


class OutputWithWholeCopy(BoundedOutput):
    """BoundedOutput that also keeps all of a long output in a file, for the person (/output).

    Only output the model gets cut has a file: once it outgrows HEAD_BYTES + TAIL_BYTES, the
    file is started with everything so far (the head and tail still hold all of it) and goes on
    as a background task's output file does (OutputFile: bounded, the key redacted). Writing it
    never fails the command: on an error the file is given up and removed.
    """

    def __init__(self, listener: Callable[[str], None] | None, path: Path | None) -> None:
        super().__init__(listener)
        self.path = path
        self.copy: OutputFile | None = None

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        too_long = self.total_bytes + len(data) > HEAD_BYTES + TAIL_BYTES
        if self.copy is None and self.path is not None and too_long:
            # All of it so far: head and tail, redacted, and what the redactor holds back
            # (raw: the file's own redactor goes on from there with `data`).
            self._keep_whole(bytes(self.head + self.tail + self.redactor.held))
        super().pipe_data_received(fd, data)
        if self.copy is not None:
            self._keep_whole(data)

    def _keep_whole(self, data: bytes) -> None:
        try:
            if self.copy is None:
                self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                self.copy = OutputFile(self.path)
            self.copy.write(data)
        except OSError:
            self.give_up_copy()

    def give_up_copy(self) -> None:
        if self.copy is not None:
            self.copy.file.close()
            self.path.unlink(missing_ok=True)
        self.copy, self.path = None, None

    def finish_copy(self) -> None:
        """The command is over: put the kept end into the file and close it."""
        if self.copy is not None:
            try:
                self.copy.finish()
            except OSError:
                self.give_up_copy()


async def run_bash(
    workspace: Path,
    command: str,
    timeout: int = DEFAULT_TIMEOUT_SECONDS,
    *,
    sandbox: object = None,
    keep_whole_output_in: Path | None = None,
) -> str:
    """Run `command` with bash in the workspace and return its output and exit code.

    `sandbox` is anything with `wrap(workspace, command) -> (argv, env)`; None runs the command
    directly (NoSandbox), still without the API key in its environment. With
    `keep_whole_output_in` (a file outside the workspace), output too long for the result is
    also kept there (OutputWithWholeCopy); the result is the same either way.
    """
    if not MIN_TIMEOUT_SECONDS <= timeout <= MAX_TIMEOUT_SECONDS:
        raise ToolError(
            f"bash: timeout must be a whole number of seconds from {MIN_TIMEOUT_SECONDS} to "
            f"{MAX_TIMEOUT_SECONDS}, got {timeout}."
        )
    sandbox = sandbox or NoSandbox()
    # While it runs, no planloop session replaces a file its sandbox holds (tools/task_lock.py).
    async with command_running(sandbox):
        return await _run_bash(workspace, command, timeout, sandbox, keep_whole_output_in)


async def _run_bash(
    workspace: Path, command: str, timeout: int, sandbox: object, keep_whole_output_in: Path | None
) -> str:
    confined = hasattr(sandbox, "before_command")
    one_look = getattr(sandbox, "reading_once", contextlib.nullcontext)
    with one_look():  # the workspace's settings read once for all of it
        if confined:
            # One scan serves twice: the paths to make read-only, and what existed before.
            protected_before = sandbox.before_command(workspace)
            argv, env = sandbox.wrap(workspace, command, snapshot=protected_before)
        else:
            argv, env = sandbox.wrap(workspace, command)
        # What its binds sit on, before it starts: a file replaced on the host meanwhile is
        # no longer hidden or held in its sandbox (tools/bind_watch.py).
        binds = sandbox_start(sandbox, workspace, argv) if confined else None
    # A key file the person saves while it runs is judged when it is written, in every folder
    # (tools/folder_watch.py): one read and then moved away is gone by the end.
    keys = watch_key_files(sandbox, binds)
    if confined:
        # What the watch between commands saw while this one was made ready: its binds did
        # not hide it (tools/between_commands.py).
        seen_meanwhile = getattr(sandbox, "written_while_it_started", dict)(workspace)
        if keys is not None:
            keys.take_in(seen_meanwhile)

    supervise = not getattr(sandbox, "confines_processes", False)
    # The terminal shows the newest lines while the command runs (the loop sets the listener).
    watch = functools.partial(OutputWithWholeCopy, output_listener(), keep_whole_output_in)
    try:
        started = await start_command(watch, argv, env, workspace, supervise=supervise)
    except OSError as err:
        if keys is not None:
            keys.close()
        if err.errno != errno.E2BIG:
            raise
        raise ToolError(
            f"bash: the command is too long to run ({len(command)} characters; the system takes "
            "about 128 KB in one argument). Write it to a script file with write_file and run "
            "that file with bash."
        ) from None
    cancelled = True
    try:
        timed_out = not await started.wait(timeout)
        cancelled = False
    finally:
        # On success, timeout and cancellation alike (e.g. the user pressed Ctrl-C): nothing
        # the command started outlives the call, not even what called setsid.
        await started.finish()
        started.watch.finish_copy()
        if confined:
            # Watched until the next command from now, while this one's watch still looks:
            # a file written as it ends is seen by one of them (tools/between_commands.py).
            getattr(sandbox, "watch_from_now", _no_watch)(workspace)
        if cancelled and confined:
            # Ctrl-C, SIGTERM: what the command made before it was stopped is still reported,
            # at once and at exit. Left for later, a scan would count it as already there.
            try:
                with one_look():
                    sandbox.after_command(workspace, protected_before)
                    if binds is not None:
                        lost = what_was_lost(sandbox, binds, written=keys.finish() if keys else ())
            except Exception as error:  # (a file it made may make the look fail: fail closed)
                check_failed(sandbox, "it", "a command was stopped", error)
                binds = None
            if binds is not None:
                if lost.unknown:
                    check_failed(sandbox, "it", "a command was stopped", NO_SANDBOX_NOW)
                elif lost.seen:
                    key_seen(sandbox, binds, lost.seen, "it", "a command was stopped")
                replaced_notes(sandbox, binds, lost.replaced, "a command")

    output = started.watch
    try:
        with one_look():  # what it did, taken stock of in one look at the workspace's settings
            written = keys.finish() if keys is not None else ()
            lost = what_was_lost(sandbox, binds, written=written) if binds is not None else None
            made = sandbox.after_command(workspace, protected_before) if confined else []
    except Exception as error:
        if not confined:
            raise
        # A file the command made can make this look fail (a NUL in a `.pth` line): what it
        # could read is not known, so its output counts as holding the key.
        failed: Exception | str | None = error
    else:
        failed = NO_SANDBOX_NOW if lost is not None and lost.unknown else None
    if failed is not None:
        line = check_failed(sandbox, "it", "a command's output was kept from the model", failed)
        return f"[its output is withheld: {line}]\n[exit code: {describe_exit(started.returncode)}]"
    if lost is not None and lost.seen:
        # It could read the key: in any encoding, past the redaction of the plain value.
        key_seen(sandbox, binds, lost.seen, "it", "a command's output was kept from the model")
        why = why_seen(binds, lost.seen)
        withheld = (
            f"[its output is withheld: {why}, so it could read the API key or a secret; the "
            "user was told]"
        )
        parts = [withheld, *replaced_notes(sandbox, binds, lost.replaced, "the command")]
        parts += made
        parts.append(f"[exit code: {describe_exit(started.returncode)}]")
        return "\n".join(parts)
    parts = [output.text().rstrip("\n") or "(no output)"]
    if output.was_cut:
        parts.append(
            "[The output was too long and its middle was cut. To see all of it, redirect it to "
            "a file (command > out.txt 2>&1) and read that with read_file.]"
        )
    if timed_out:
        parts.append(f"[timed out after {timeout} s; the command and its children were killed]")
    elif started.stopped_leftovers:
        parts.append("[processes the command left running in the background were stopped]")
    if lost is not None:
        parts += replaced_notes(sandbox, binds, lost.replaced, "the command")
    if confined:
        parts += made  # reports, never deletes
        parts += sandbox.explain(output.text(), started.returncode)  # why git writes failed
    parts.append(f"[exit code: {describe_exit(started.returncode)}]")
    return "\n".join(parts)


def _no_watch(workspace: Path) -> None:
    """A sandbox that keeps no watch between commands (an embedder's own)."""


def make_bash(sandbox: object = None, tasks: Any = None) -> Tool:
    """The bash tool, spawning its commands through `sandbox` (None: NoSandbox).

    With `tasks` (a TaskManager, tools/tasks.py: anything with `start_in_background` and the
    `default_timeout` and `max_timeout` of a task) the tool also offers `run_in_background`.
    With a sandbox that confines writes, it offers `outside_sandbox`.
    """
    description = (
        "Run a shell command with /bin/bash in the workspace directory; returns stdout and "
        "stderr together, then the exit code. stdin is closed, and background processes are "
        "killed when the command finishes. Long output keeps only its start and end."
        + getattr(sandbox, "description", "")
    )
    timeout_help = f"Seconds before the command is killed (default {DEFAULT_TIMEOUT_SECONDS})."
    properties: dict = {
        "command": {"type": "string", "description": "The shell command to run."},
        "timeout": {
            "type": "integer",
            "minimum": MIN_TIMEOUT_SECONDS,
            "maximum": MAX_TIMEOUT_SECONDS,
            "description": timeout_help,
        },
    }
    if tasks is not None:
        description += (
            " With run_in_background, the command runs on while you work (a test suite, a "
            "build, a server): you get a task id at once, to use with task_output and task_stop."
        )
        properties["timeout"]["maximum"] = tasks.max_timeout
        properties["timeout"]["description"] = (
            f"Seconds before the command is killed (default {DEFAULT_TIMEOUT_SECONDS}, at most "
            f"{MAX_TIMEOUT_SECONDS}; in the background default {tasks.default_timeout}, at most "
            f"{tasks.max_timeout})."
        )
        properties["run_in_background"] = {
            "type": "boolean",
            "description": "Start the command as a background task and return at once.",
        }
    if getattr(sandbox, "confines_writes", False):
        network = "" if getattr(sandbox, "allow_network", False) else "no network, "
        description += (
            " If the sandbox stopped a command that the task really needs (a read-only file "
            f"system, {network}git metadata it may not write: git init, git commit, pip "
            "install), you may run that command again with outside_sandbox: true; the user is "
            "asked every time. Never use it first."
        )
        properties["outside_sandbox"] = {
            "type": "boolean",
            "description": "Run this command outside the sandbox, after the user approves. Only "
            "after the sandbox refused the same command.",
        }
    return Tool(
        name="bash",
        description=description,
        input_schema={
            "type": "object",
            "properties": properties,
            "required": ["command"],
            "additionalProperties": False,
        },
        handler=functools.partial(bash, sandbox=sandbox, tasks=tasks),
    )


def runs_commands(tool: Tool | None) -> bool:
    """Whether `tool` runs bash's handler: the registered BASH, `make_bash()`, or a copy of
    either with its own name or description (`dataclasses.replace(BASH, description=...)`)."""
    handler = getattr(tool, "handler", None)
    return isinstance(handler, functools.partial) and handler.func is bash


def sandbox_of(tool: Tool | None) -> object:
    """The sandbox a bash tool spawns its commands through (None: none, or no bash tool)."""
    return tool.handler.keywords.get("sandbox") if runs_commands(tool) else None


def in_sandbox(tool: Tool, sandbox: object, tasks: Any = None) -> Tool:
    """`tool`, a bash tool, spawning its commands through `sandbox` (with `tasks`, else its
    own), its name, description and schema as they are: a changed copy runs where the
    registered one does."""
    tasks = tasks if tasks is not None else tool.handler.keywords.get("tasks")
    return dataclasses.replace(tool, handler=functools.partial(bash, sandbox=sandbox, tasks=tasks))


async def bash(
    workspace: Path,
    command: str,
    timeout: int | None = None,
    run_in_background: bool = False,
    outside_sandbox: bool = False,
    *,
    sandbox: object,
    tasks: Any,
) -> str:
    """The bash tool's handler: in the sandbox or (asked and approved) outside, now or as a task."""
    # The permission policy asked the person (or --yes allowed it) and marked this call; with no
    # policy (the bare loop, Agent(middleware=[])) nobody asked, and the command stays inside.
    if outside_sandbox and not outside_sandbox_approved():
        raise ToolError(
            "bash: outside_sandbox needs a person's approval, and this agent has no permission "
            "policy to ask for it. Run the command without outside_sandbox, in the sandbox."
        )
    if outside_sandbox:
        refuse_while_confined_tasks_run(tasks)
    outside = NoSandbox() if outside_sandbox else None
    if run_in_background:
        timeout = timeout or tasks.default_timeout
        return await tasks.start_in_background(workspace, command, timeout, sandbox=outside)
    timeout = timeout or DEFAULT_TIMEOUT_SECONDS
    keep = whole_output_file(workspace, tasks)
    return await run_bash(
        workspace, command, timeout, sandbox=outside or sandbox, keep_whole_output_in=keep
    )


def whole_output_file(workspace: Path, tasks: Any) -> Path | None:
    """The file for this call's whole output: in the session's folder of command outputs (the
    background tasks' folder), never in the workspace; None without a session or a call id."""
    call = current_file_call()  # made for every call by the permission policy
    folder = getattr(tasks, "folder", None)
    if call is None or folder is None:
        return None
    if Path(folder).resolve().is_relative_to(workspace.resolve()):
        return None  # the model could read or replace it there
    return whole_output_path(folder, call.call_id)


def refuse_while_confined_tasks_run(tasks: Any) -> None:
    """A ToolError while a sandboxed background task runs: no command may then run outside.

    A task's sandbox makes the .git and .env files that existed when it started read-only. One
    that a command outside creates meanwhile (`git init sub`, `git clone`) would be writable to
    that task, which could plant a hook or an fsmonitor for the next git on the host.
    """
    running = [task.id for task in tasks.running() if task.confined] if tasks else []
    if running:
        raise ToolError(
            f"bash: outside_sandbox cannot run while sandboxed background tasks run "
            f"({', '.join(running)}): their sandboxes would not protect a .git or .env that "
            "this command creates. Stop them with task_stop (or wait for them with task_output "
            "and wait), then send this command again."
        )


def outside_sandbox_approved() -> bool:
    """Whether the permission policy approved running this very call outside the sandbox."""
    call = current_file_call()
    return call is not None and OUTSIDE_SANDBOX_APPROVED in (call.approved or ())


BASH = make_bash()
