"""The pieces every tool is built from.

A `Tool` pairs a handler function with the JSON schema the model sees. Before a handler runs,
`validate_input` checks the model's arguments against that schema, so handlers can trust the
types of their arguments. A `ToolError` is a failure the model should read and react to: its
message becomes the text of an error tool result, so it is written for the model and says what
was wrong and what to send instead.
"""

import inspect
import json
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from redaction import redact


@dataclass(frozen=True)
class Tool:
    """A function the model can call: its name, a description, an input schema and a handler.

    The handler is called as `handler(workspace, **validated_input)` and returns the text the
    model reads, either directly or as an awaitable.

    A tool that writes or reads files of the workspace names the input that holds the path:

        Tool(..., writes="path")   the permission policy asks before a write to a protected
                                   path (.git/, .env*, planloop's home; tools/paths.py), and the
                                   stale-write guard refuses to replace a file the model has
                                   not seen in its current state
        Tool(..., reads="path")    the stale-write guard notes what the model has now seen

    The protections go by these declarations, never by a tool's name. A tool that writes files
    without declaring it gets neither question nor guard, so declare every path a tool writes.
    Writing through `update_file` (tools/files.py) also keeps the tool inside the workspace
    when a racing command swaps a folder for a link, and refuses protected files nobody approved
    (behind the permission policy an undeclared tool's too: nothing was approved for it).
    """

    name: str
    description: str
    input_schema: dict
    handler: Callable[..., str | Awaitable[str]]
    writes: str | None = None
    reads: str | None = None

    def __post_init__(self) -> None:
        properties = self.input_schema.get("properties", {})
        for kind, name in (("writes", self.writes), ("reads", self.reads)):
            if name is not None and properties.get(name, {}).get("type") != "string":
                raise ValueError(
                    f"tool {self.name!r}: {kind}={name!r} must name a string input of its schema"
                )

    def schema(self) -> dict:
        """The tool definition as sent to the Messages API."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }


class ToolError(Exception):
    """A failure the model should read; str(exc) becomes the is_error tool result text."""


# What a string's and an array's length bounds count.
_UNITS = {"string": "characters", "array": "items"}

# How each JSON schema type is named in messages to the model.
_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
}


def validate_input(tool: Tool, raw_input: object) -> dict:
    """Check the model's input against `tool.input_schema` and return the arguments to use.

    What the schema declares is what is checked, nested arrays and objects included: `type`,
    `required`, `properties`, `additionalProperties`, `items`, `enum`, `minimum`/`maximum`,
    `minLength`/`maxLength` and `minItems`/`maxItems`. Two leniencies, because models send
    them: an array or object encoded as a JSON string is decoded once, and a null for an
    optional argument leaves it out. Raises ToolError with a message for the model;
    `raw_input` is never modified.
    """
    if not isinstance(raw_input, dict):
        raise ToolError(
            f"{tool.name}: the input must be a JSON object of named arguments, "
            f"got {_describe_value(raw_input)}. Send {_example_call(tool)}"
        )
    try:
        arguments = _checked(raw_input, tool.input_schema, "")
    except _Mismatch as mismatch:
        raise ToolError(f"{tool.name}: {mismatch}. Send {_example_call(tool)}") from None
    declared = tool.input_schema.get("properties")
    if declared is None:
        return arguments
    # Arguments the schema allows but does not name have no parameter in the handler.
    return {name: value for name, value in arguments.items() if name in declared}


class _Mismatch(Exception):
    """Where the input differs from the schema; becomes the text of a ToolError."""


def _label(where: str) -> str:
    """How a place in the input is named: 'argument 'path'' at the top, 'todos[2].status' below."""
    if not where:
        return "the input"
    return where if "[" in where or "." in where else f"argument '{where}'"


def _checked(value: object, schema: dict, where: str) -> object:
    """`value` checked against `schema` (converted where allowed), or raise _Mismatch.

    `where` is the path to the value, e.g. "todos[2].status" ("" for the whole input).
    """
    expected = schema.get("type")
    # Some Anthropic-compatible models send nested arguments as a JSON string. Decode it once,
    # and only keep the result if it is the declared type, so "[1, 2]" becomes a list but a
    # doubly encoded string is still refused.
    if expected in ("array", "object") and isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = None
        if _has_type(decoded, expected):
            value = decoded
    # 30.0 is how some clients serialise an integer; it means 30.
    if expected == "integer" and isinstance(value, float) and value.is_integer():
        value = int(value)

    if not _has_type(value, expected) or ("enum" in schema and value not in schema["enum"]):
        raise _Mismatch(
            f"{_label(where)} must be {_describe_expected(schema)}, got {_describe_value(value)}"
        )
    low, high = _bounds(schema)
    if low is not None or high is not None:
        size = len(value) if expected in _UNITS else value
        if (low is not None and size < low) or (high is not None and size > high):
            shown = _count(size, expected)
            raise _Mismatch(f"{_label(where)} must be {_describe_expected(schema)}, got {shown}")
    if isinstance(value, list) and "items" in schema:
        return [_checked(item, schema["items"], f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict) and expected == "object":
        return _checked_object(value, schema, where)
    return value


def _checked_object(value: dict, schema: dict, where: str) -> dict:
    properties: dict = schema.get("properties", {})
    prefix = f"{where}." if where else ""
    if schema.get("additionalProperties") is False:
        unknown = [name for name in value if name not in properties]
        if unknown:
            listed = ", ".join(f"'{prefix}{name}'" for name in unknown)
            accepted = ", ".join(f"'{name}'" for name in properties) or "none"
            raise _Mismatch(f"unknown argument {listed}. Accepted arguments: {accepted}")
    required = schema.get("required", [])
    for name in required:
        if value.get(name) is None:  # a null for a required argument counts as missing
            expected = _describe_expected(properties.get(name, {}))
            raise _Mismatch(f"{_label(prefix + name)} is required ({expected})")
    checked = {}
    for name, item in value.items():
        if item is None and name not in required:
            # Models send null for an optional argument they mean to leave out; leaving it
            # out lets the handler use its default.
            continue
        spec = properties.get(name)
        checked[name] = item if spec is None else _checked(item, spec, prefix + name)
    return checked


async def call_handler(tool: Tool, workspace: Path, args: dict) -> str:
    """Run the tool's handler with validated arguments and return its text.

    Handlers may be plain functions or coroutines; an awaitable result is awaited. The key
    and token planloop uses are replaced by [redacted] (redaction.py). A call a person
    approved to write a protected file runs only while no sandboxed task could see the file.
    """
    from tools.file_call import approved_files_alone  # late: it imports this module

    with approved_files_alone(workspace, tool.name):
        result = tool.handler(workspace, **args)
        if inspect.isawaitable(result):
            result = await result
    if not isinstance(result, str):
        raise TypeError(f"handler of tool {tool.name!r} returned {type(result).__name__}, not str")
    # planloop's own key never reaches the model, whatever printed it: a command that read it
    # from a parent folder's .env, a file by another name, git's objects, a tool of your own.
    return redact(result)


def _has_type(value: object, expected: str | None) -> bool:
    # bool is a subclass of int in Python, but true/false is not a number in JSON.
    if expected == "string":
        return isinstance(value, str)
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return math.isfinite(value)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "array":
        return isinstance(value, list)
    if expected == "object":
        return isinstance(value, dict)
    # No type (or one this subset does not know) means anything goes.
    return True


def _describe_expected(spec: dict) -> str:
    """E.g. 'a string', 'an integer from 1 to 600', 'one of "a", "b"', 'an array of at most 20
    items'."""
    expected = spec.get("type")
    if spec.get("enum") is not None:
        return "one of " + ", ".join(json.dumps(choice) for choice in spec["enum"])
    text = _TYPE_NAMES.get(expected, "a value")
    low, high = _bounds(spec)
    if low is not None and high is not None:
        text += f" from {low} to {_count(high, expected)}"
    elif low is not None:
        text += f" of at least {_count(low, expected)}"
    elif high is not None:
        text += f" of at most {_count(high, expected)}"
    return text


def _count(number: float, expected: str | None) -> str:
    """'3', or '3 items' / '1 character' for the length of an array or string."""
    unit = _UNITS.get(expected)
    if unit is None:
        return str(number)
    return f"{number} {unit if number != 1 else unit[:-1]}"


def _bounds(spec: dict) -> tuple[int | float | None, int | float | None]:
    """The declared lower and upper bound: of the value, its length, or its item count."""
    expected = spec.get("type")
    if expected == "string":
        return spec.get("minLength"), spec.get("maxLength")
    if expected == "array":
        return spec.get("minItems"), spec.get("maxItems")
    return spec.get("minimum"), spec.get("maximum")


def _describe_value(value: object) -> str:
    """Name a value the way the model wrote it: JSON types, with a short excerpt."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        excerpt = redact(json.dumps(value, ensure_ascii=False))  # before the cut: whole
        if len(excerpt) > 60:
            excerpt = excerpt[:57] + '..."'
        return f"the string {excerpt}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _example_call(tool: Tool) -> str:
    """A template of a valid input, e.g. {"path": <string>, "offset": <integer, optional>}."""
    properties: dict = tool.input_schema.get("properties", {})
    required = set(tool.input_schema.get("required", []))
    parts = []
    for name, spec in properties.items():
        placeholder = spec.get("type", "value")
        if name not in required:
            placeholder += ", optional"
        parts.append(f'"{name}": <{placeholder}>')
    return "{" + ", ".join(parts) + "}"
