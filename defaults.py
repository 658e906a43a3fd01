"""What `Agent()` has when the caller says nothing: the product, as `python agent.py` runs it.

    Agent()                          the todo list, the stale-write guard, the permission policy
                                     and context management; bash in the sandbox where it works
    Agent(more_middleware=[mine])    the same, with yours first
    Agent(middleware=[])             the bare loop of the lesson: no middleware but the turn
                                     limit, so nothing asks (see the last paragraph)

The product's middlewares, in the order they run (the order matters, middleware/stack.py):

    ExposureGuard        middleware/    a sandboxed command could read the key after all: the
                                        run stops (headless) or asks before going on
    TodoListMiddleware   todo/          the plan, its reminder and the finalization guard;
                                        checks for "completed", no item dropped silently
    StaleWriteGuard      middleware/    no overwriting a file the model has not read as it is
    PermissionPolicy     middleware/    what runs freely, what asks `ask`, what is refused
    UndoRecorder         middleware/    each file's content before an input first changes it
                                        (after the policy: a refused call changes nothing)
    ContextManager       middleware/    every request inside the model's window (it shapes
                                        the request the others have shaped)
    ProjectInstructions  prompts/       AGENTS.md (or CLAUDE.md) and your personal one, after
                                        all of planloop's own system prompt (last: it adds
                                        after what the others added);
                                        Agent(project_instructions=False) leaves them out

bash runs in bubblewrap where it works (tools/sandbox.py). Where it cannot, bash is not
confined, so the permission policy asks `ask` before each command; with no `ask` the command
is refused, unless `allow_all` allows everything up front. The bare loop has no policy: there
an unconfined command and a write to .git/ or .env* run without a question (a call with
`outside_sandbox` is refused: only a policy's approval lets a command out of the sandbox).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from middleware import Middleware, PermissionPolicy, StaleWriteGuard
from middleware.context import ContextManager, context_window
from middleware.exposure import ExposureGuard
from middleware.permissions import AskFunction
from middleware.undo import UndoRecorder
from prompts.project import ProjectInstructions
from todo import TodoListMiddleware
from todo.checks import bash_check_runner
from tools.paths import planloop_home
from tools.sandbox import choose_sandbox

if TYPE_CHECKING:
    from agent import Agent


def pick_sandbox(sandbox: bool | object, allow_network: bool = False) -> tuple[object, str | None]:
    """Where bash runs, and why there is no sandbox when one was wanted but cannot start here.

    True: bubblewrap where it works, else no sandbox (with the reason). False: no sandbox.
    Anything else is a sandbox already made (anything with `wrap`, tools/sandbox.py).
    """
    if isinstance(sandbox, bool):
        return choose_sandbox(sandbox, allow_network)
    return sandbox, None


def default_middleware(
    agent: Agent,
    *,
    ask: AskFunction | None,
    allow_all: bool,
    tasks: Any = None,
    project_instructions: bool = True,
) -> list[Middleware]:
    """The product's middlewares for `agent`, as listed in the module docstring.

    `tasks` (a TaskManager, tools/tasks.py) lets the todo list accept a wait for background
    tasks. A front end sets the callbacks it needs afterwards (cli/app.py draws the plan as it
    changes and writes a compaction into the session log). A project instruction file that
    was refused (a link out of the workspace, say) is told to `agent.ui`.
    """
    permissions = PermissionPolicy(
        ask=ask,
        sandboxed=getattr(agent.sandbox, "confines_writes", False),
        allow_all=allow_all,
        sandbox=agent.sandbox,  # a sandbox that cannot keep its promise makes bash ask
    )
    product = [
        # First: once a sandboxed command could read the key after all, no other call runs
        # before the run is stopped (headless) or the person lets it go on.
        *exposure_guard(agent.sandbox, tasks, ask),
        # Checks, "nothing vanishes" and the record of each write (todo/). A check runs like a
        # bash call: in the same sandbox, behind the same permission policy.
        TodoListMiddleware.with_evidence(
            extra_ref=lambda: agent.extra,
            run_check=bash_check_runner(agent.sandbox, permissions),
            validate_task_wait=tasks.validate_task_wait if tasks is not None else None,
        ),
        StaleWriteGuard(),  # before the permission question: no point asking, then refusing
        permissions,
        UndoRecorder(),  # what /undo puts back; the terminal sends its records to the log
        ContextManager(
            lambda: agent.context,
            agent.ask_model,  # compaction goes through the loop's own model call
            window=context_window(agent.model),
            on_compact=lambda text: agent.ui.notice(text),
        ),
    ]
    if project_instructions:
        instructions = ProjectInstructions(agent.workspace, planloop_home())
        for problem in instructions.problems:
            agent.ui.notice(problem)
        product.append(instructions)
    return product


def exposure_guard(sandbox: object, tasks: Any, ask: AskFunction | None) -> list[Middleware]:
    """The exposure middleware, for a sandbox that can tell when its hiding was undone."""
    return [ExposureGuard(sandbox, tasks, ask)] if hasattr(sandbox, "exposures") else []


def find_middleware(agent: Agent, kind: type) -> Any:
    """The agent's first middleware of class `kind`, or None."""
    return next((m for m in agent.hooks.middlewares if isinstance(m, kind)), None)
