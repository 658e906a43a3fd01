"""Background tasks in the front end: results as input, the headless wait, /tasks, and the
question before leaving kills the tasks still running.

    a task ends --> the model has not read its result --> the next input starts with it:
                    <task-result>[bg-1: exited with code 0 after 41 s] ...</task-result>

The loop never sees a result arrive in the middle of a tool batch: results are handed over
only where an input starts (a person's next prompt, or planloop's own input in a headless
run). Such an input moves `input_seq` like any other, so a task wait declared before it is
over and the model decides again.

Headless, a run that ends with a valid task wait does not exit: planloop waits for the awaited
tasks, hands their results over as a new input, and goes on until no wait is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any, TypeVar

from cli.pager import page_for
from cli.render import read_answer
from middleware import CancelSignal, Interrupted
from prompts import escape_tags, load_prompt
from todo.taskwait import VALID, TaskWaitBinding
from tools.tasks import EXITED, RUNNING, BackgroundTask, TaskManager, find_task_manager

if TYPE_CHECKING:
    from agent import Agent

T = TypeVar("T")


async def task_results(manager: TaskManager) -> str:
    """The results the model has not read yet, one tag each; '' when there are none.

    Reading marks them delivered. The output is the task's, so it is escaped: a line in it
    cannot close the tag and speak as planloop.
    """
    parts = []
    for task in manager.undelivered():
        result = escape_tags(await manager.read_output(task))
        parts.append(load_prompt("task_result").format(result=result))
    return "\n".join(parts)


async def with_task_results(manager: TaskManager | None, prompt: str) -> str:
    """The input to send: any undelivered results first, then what the person typed (if any)."""
    results = await task_results(manager) if manager is not None else ""
    return "\n\n".join(part for part in (results, prompt) if part)


def awaited_task_ids(agent: Agent) -> list[str]:
    """The tasks the last run ended waiting for (a wait the host confirmed), else []."""
    outcome = agent.extra.get("todo_task_wait_outcome") or {}
    binding = TaskWaitBinding.from_json(agent.extra.get("todo_task_wait"))
    current = agent.context.input_seq
    if outcome.get("status") != VALID or outcome.get("input_seq") != current:
        return []
    if binding is None or binding.input_seq != current:
        return []
    return list(binding.task_ids)


async def wait_for_tasks(manager: TaskManager, task_ids: list[str]) -> None:
    """Until every task in `task_ids` has ended (cancel this to stop waiting, not the tasks)."""
    for task_id in task_ids:
        task = manager.tasks.get(task_id)
        if task is not None:
            await task.done.wait()


@contextlib.asynccontextmanager
async def tasks_killed_at_exit(agent: Agent) -> AsyncIterator[None]:
    """Whatever ends the block (done, an error, Ctrl-C, SIGTERM), kill the tasks still running.

    It runs on the event loop that started them, where their watchers live.
    """
    try:
        yield
    finally:
        manager = find_task_manager(agent)
        if manager is not None:
            await manager.shutdown()


# ---- while the prompt waits for the person -------------------------------------------------


class IdleWatch:
    """What the interactive prompt tells the person about tasks that end, and when the model's
    wait is over (every awaited task ended, with a result to hand over)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.told: set[str] = set()

    @property
    def manager(self) -> TaskManager | None:
        return find_task_manager(self.agent)

    def notices(self) -> list[str]:
        """One line for each task that ended on its own since the last call, unread yet."""
        if self.manager is None:
            return []
        awaited = awaited_task_ids(self.agent)
        lines = []
        for task in self.manager.undelivered():
            if task.id in self.told:
                continue
            self.told.add(task.id)
            goes = "now: the model waits for it" if task.id in awaited else "with your next message"
            lines.append(f"{task.id} {task.describe()}; its result goes to the model {goes}.")
        return lines

    def wait_is_over(self) -> bool:
        """True when the last run ended waiting for tasks that have all ended now."""
        awaited = awaited_task_ids(self.agent)
        if not awaited or self.manager is None:
            return False
        tasks = [self.manager.tasks.get(task_id) for task_id in awaited]
        if any(task is None or not task.done.is_set() for task in tasks):
            return False
        return any(task in self.manager.undelivered() for task in tasks)

    async def next_end(self) -> None:
        """Until one of the tasks running now ends (forever if none runs)."""
        running = self.manager.running() if self.manager is not None else []
        if not running:
            await asyncio.Event().wait()
        waiters = {asyncio.ensure_future(task.done.wait()) for task in running}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()


async def read_unless_results_come(reader: Any, idle: IdleWatch, ui: Any) -> str | None:
    """The person's next prompt, or None when the tasks the model waits for have ended.

    Tasks that ended during the last turn are noticed first; one that ends while the prompt
    waits gets its line above the prompt. The prompt is put aside for the awaited results,
    what was typed so far kept for the next read.
    """
    for line in idle.notices():
        ui.notice(line)
    if idle.wait_is_over():
        return None
    watcher = asyncio.ensure_future(watch_while_idle(reader, idle, ui))
    try:
        return await reader.read()
    finally:
        watcher.cancel()


async def watch_while_idle(reader: Any, idle: IdleWatch, ui: Any) -> None:
    while True:
        await idle.next_end()
        lines = idle.notices()
        if lines:

            def show(lines: list[str] = lines) -> None:
                for line in lines:
                    ui.notice(line)

            await reader.show_above(show)
        if idle.wait_is_over():
            while not reader.is_reading():  # the read may be starting: let it draw first
                await asyncio.sleep(0.01)
            reader.put_aside()
            return


async def killing_tasks_at_exit(agent: Agent, work: Awaitable[T]) -> T:
    """Await `work` (the interactive session); then kill the tasks still running."""
    async with tasks_killed_at_exit(agent):
        return await work


# ---- /tasks ---------------------------------------------------------------------------------


def task_rows(manager: TaskManager) -> list[str]:
    """One line per task: id, status, run time, command (shortened to one line)."""
    rows = []
    for task in manager.tasks.values():
        seconds = round((task.ended_at or time.monotonic()) - task.started_at)
        status = f"exited {task.returncode}" if task.status == EXITED else task.status
        rows.append(f"{task.id:6} {status:10} {seconds:>6} s  {one_line(task.command)}")
    return rows


def one_line(command: str, limit: int = 60) -> str:
    """A command shortened to one line of at most `limit` characters."""
    command = " ".join(command.split())
    return command if len(command) <= limit else command[: limit - 1] + "…"


def task_page(task: BackgroundTask) -> str:
    """What /tasks show pages: the task's status and command, then all the output kept of it.

    Read from the task's output file (the first 4 MiB and the last 1 MiB, keys redacted),
    without moving the model's read position: task_output still gives the model what is new.
    """
    kept = b"".join(task.output.chunks_since(0))
    dropped = task.output.dropped_since(0)
    if dropped:  # between the head and the tail
        head = task.output.head_size
        note = f"\n... [{dropped} bytes not kept] ...\n".encode()
        kept = kept[:head] + note + kept[head:]
    output = kept.decode("utf-8", errors="replace").rstrip("\n") or "(no output yet)"
    return f"{task.id} · {task.describe()} · {task.command}\n{output}"


async def tasks_command(agent: Agent, ui: Any, line: str) -> None:
    """/tasks lists the background tasks; /tasks show ID pages one's output; /tasks stop ID
    stops one."""
    manager = find_task_manager(agent)
    words = line.split()[1:]
    if manager is None:
        ui.notice("This agent has no background tasks.")
        return
    if not words:
        rows = task_rows(manager)
        if not rows:
            ui.print_line("No background tasks yet.", "dim")
        for row in rows:
            ui.print_line(row)
        return
    if words[0] in ("show", "stop") and len(words) == 2:
        task = manager.tasks.get(words[1])
        if task is None:
            known = ", ".join(manager.tasks) or "none yet"
            ui.notice(f"No background task {words[1]} (tasks: {known}).")
        elif words[0] == "show":
            await page_for(agent, ui.console, task_page(task))
        elif task.status != RUNNING:
            ui.notice(f"{task.id} is not running: {task.describe()}.")
        else:
            manager.stop(task.id)
            ui.print_line(f"{task.id} stopped.", "dim")
        return
    ui.notice(
        "Use /tasks to list the background tasks, /tasks show ID to page one's output, or "
        "/tasks stop ID to stop one."
    )


# ---- leaving ----------------------------------------------------------------------------------


async def confirm_leaving(agent: Agent, ui: Any) -> bool:
    """Whether to leave now: at once when no task runs, else after a y/n question.

    Leaving kills the tasks still running (a test suite, a server), so the person is asked
    first; n returns to the prompt. Ctrl-C at the question means no, a second Ctrl-D yes;
    SIGTERM ends the question (the caller then leaves, as the signal asks).
    """
    manager = find_task_manager(agent)
    running = manager.running() if manager is not None else []
    if not running:
        return True
    listed = ", ".join(f"{task.id} ({one_line(task.command, 40)})" for task in running)
    them = "it" if len(running) == 1 else "them"
    ui.print_line(f"Still running: {listed}. Leaving stops {them}.", "yellow")
    agent.context.signal = CancelSignal()  # a Ctrl-C of an earlier run must not answer this
    while True:
        try:
            answer = await agent.until_cancelled(
                read_answer(f"Leave and stop {them}? [y]es / [n]o: ")
            )
        except EOFError:
            ui.console.print()
            return True
        except Interrupted:
            ui.console.print()
            return False
        if answer.lower() in ("y", "yes"):
            return True
        if answer.lower() in ("n", "no"):
            return False
        ui.print_line(f"Please type y or n (not {answer!r}).", "yellow")
