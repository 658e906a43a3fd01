"""The tools the model can call.

A tool is a handler function plus the JSON schema that tells the model how to call it (see
`Tool` in tools/base.py). The agent keeps its tools in a `{name: tool}` map: it sends each
tool's `schema()` with every request, and when the model asks for a tool by name it checks the
input with `validate_input` and runs the handler with `call_handler`. A `ToolError` raised by a
handler is shown to the model as an error result it can react to.

To add a tool, write a handler `def my_tool(workspace: Path, **arguments) -> str` (it may be
async), wrap it in a `Tool` with a short description and an input schema, and add it to the list
returned by `default_tools()`. Resolve any path argument with `safe_path` so the tool stays in
the workspace.
"""

from tools.base import Tool, ToolError, call_handler, validate_input
from tools.bash import BASH
from tools.files import EDIT_FILE, READ_FILE, WRITE_FILE
from tools.sandbox import safe_path

__all__ = [
    "BASH",
    "EDIT_FILE",
    "READ_FILE",
    "WRITE_FILE",
    "Tool",
    "ToolError",
    "call_handler",
    "default_tools",
    "safe_path",
    "validate_input",
]


def default_tools() -> list[Tool]:
    """The tools a new agent starts with: bash, read_file, write_file and edit_file."""
    return [BASH, READ_FILE, WRITE_FILE, EDIT_FILE]
