"""The tools the model can call.

A tool is a handler function plus the JSON schema that tells the model how to call it (see
`Tool` in tools/base.py). The agent keeps its tools in a `{name: tool}` map: it sends each
tool's `schema()` with every request, and when the model asks for a tool by name it checks the
input with `validate_input` and runs the handler with `call_handler`. A `ToolError` raised by a
handler is shown to the model as an error result it can react to.

To add a tool, write a handler `def my_tool(workspace: Path, **arguments) -> str` (it may be
async), wrap it in a `Tool` with a short description and an input schema (examples/word_count.py
is one), and add it to `TOOLS` below: `Agent()` and `python agent.py` both start from that list.
Resolve any path argument with `safe_path` so the tool stays in the workspace. Tools that hold
per-session state come with what holds it: todo_write with TodoListMiddleware (todo/).

**A tool that writes files declares it**, or it is never asked about nor checked for stale
writes (through `update_file` a protected file is then simply refused):

    Tool(..., writes="path")    # this input is a path the tool writes
    Tool(..., reads="path")     # this input is a path the tool reads

The permission policy (asks before a write to .git/, .env*, planloop's home) and the
stale-write guard (refuses to replace a file the model has not seen as it is now) go by these
declarations, never by tool names. Write through `update_file` (tools/files.py) and the write
is also race-free: it reaches the file one opened folder at a time, never follows a link out of
the workspace, and refuses a protected file the policy did not approve for this very call.
examples/append_file.py is a complete writing tool.

bash spawns its commands through a sandbox (tools/sandbox.py): `Agent` hands its own to the
registered `BASH` through `default_tools(sandbox)`, in `TOOLS` or in a list of your own (a copy
of it with another description or name runs in that sandbox too), and with
`default_tools(sandbox, tasks)` adds background tasks (tools/tasks.py): bash's
`run_in_background`, task_output and task_stop.
"""

from tools.base import Tool, ToolError, call_handler, validate_input
from tools.bash import BASH, in_sandbox, make_bash, runs_commands, sandbox_of
from tools.files import EDIT_FILE, READ_FILE, WRITE_FILE
from tools.paths import protected_reason, safe_path

__all__ = [
    "BASH",
    "EDIT_FILE",
    "READ_FILE",
    "TOOLS",
    "WRITE_FILE",
    "Tool",
    "ToolError",
    "call_handler",
    "default_tools",
    "make_bash",
    "protected_reason",
    "safe_path",
    "validate_input",
]


# The tools every agent starts with, `python agent.py` included. To add a tool, add it here
# (e.g. `from examples.word_count import WORD_COUNT` above, then WORD_COUNT in the list).
TOOLS: list[Tool] = [BASH, READ_FILE, WRITE_FILE, EDIT_FILE]


def default_tools(
    sandbox: object = None, tasks: object = None, tools: list[Tool] | None = None
) -> list[Tool]:
    """`tools` (the registered `TOOLS` if None), with the registered bash running in `sandbox`.

    `sandbox` is where bash runs its commands (tools/sandbox.py); None runs them directly.
    With `tasks` (a TaskManager, tools/tasks.py) bash can start background tasks, and
    task_output and task_stop come too. `Agent` builds its tool map with this function.
    """
    bash = BASH if sandbox is None and tasks is None else make_bash(sandbox, tasks)
    extra = tasks.tools() if tasks is not None else []
    chosen = TOOLS if tools is None else tools
    # A changed copy of bash (another description, make_bash()) runs in the same sandbox as
    # the registered one, unless it was made with a sandbox of its own: the permission policy
    # lets bash run unasked only in the agent's.
    return [
        bash if tool is BASH else in_sandbox(tool, sandbox, tasks) if unbound(tool) else tool
        for tool in chosen
    ] + extra


def unbound(tool: Tool) -> bool:
    """A bash tool made without a sandbox: `dataclasses.replace(BASH, ...)`, `make_bash()`."""
    return runs_commands(tool) and sandbox_of(tool) is None
