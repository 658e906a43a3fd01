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


@dataclass(frozen=True)
class Tool:
    """A function the model can call: its name, a description, an input schema and a handler.

    The handler is called as `handler(workspace, **validated_input)` and returns the text the
    model reads, either directly or as an awaitable.
    """

    name: str
    description: str
    input_schema: dict
    handler: Callable[..., str | Awaitable[str]]

    def schema(self) -> dict:
        """The tool definition as sent to the Messages API."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
        }


class ToolError(Exception):
    """A failure the model should read; str(exc) becomes the is_error tool result text."""


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

    Only the top level is checked: the input must be an object, required arguments must be
    present, unknown ones are refused, and each argument must have its declared type (plus
    `enum` for strings and `minimum`/`maximum` for numbers). Nested content is left to the
    handler. Raises ToolError with a message for the model. `raw_input` is never modified.
    """
    properties: dict = tool.input_schema.get("properties", {})
    required: list = tool.input_schema.get("required", [])

    if not isinstance(raw_input, dict):
        raise ToolError(
            f"{tool.name}: the input must be a JSON object of named arguments, "
            f"got {_describe_value(raw_input)}. Send {_example_call(tool)}"
        )

    unknown = [name for name in raw_input if name not in properties]
    if unknown:
        listed = ", ".join(f"'{name}'" for name in unknown)
        accepted = ", ".join(f"'{name}'" for name in properties) or "none"
        raise ToolError(
            f"{tool.name}: unknown argument {listed}. Accepted arguments: {accepted}. "
            f"Send {_example_call(tool)}"
        )

    # A null for a required argument counts as missing; see the loop below for optional ones.
    for name in required:
        if raw_input.get(name) is None:
            raise ToolError(
                f"{tool.name}: argument '{name}' is required "
                f"({_describe_expected(properties.get(name, {}))}). Send {_example_call(tool)}"
            )

    arguments = {}
    for name, value in raw_input.items():
        if value is None:
            # Some models send null for an optional argument they mean to leave out; leaving it
            # out lets the handler use its default.
            continue
        arguments[name] = _check_argument(tool, name, properties[name], value)
    return arguments


async def call_handler(tool: Tool, workspace: Path, args: dict) -> str:
    """Run the tool's handler with validated arguments and return its text.

    Handlers may be plain functions or coroutines; an awaitable result is awaited.
    """
    result = tool.handler(workspace, **args)
    if inspect.isawaitable(result):
        result = await result
    if not isinstance(result, str):
        raise TypeError(f"handler of tool {tool.name!r} returned {type(result).__name__}, not str")
    return result


def _check_argument(tool: Tool, name: str, spec: dict, value: object) -> object:
    """Return `value` (converted where the schema allows it) or raise ToolError."""
    expected = spec.get("type")

    # Some Anthropic-compatible models send nested arguments as a JSON string. Decode it once,
    # and only accept the result if it is the declared type, so "[1, 2]" becomes a list but a
    # doubly encoded string is still refused below.
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

    if not _has_type(value, expected):
        raise ToolError(
            f"{tool.name}: argument '{name}' must be {_describe_expected(spec)}, "
            f"got {_describe_value(value)}. Send {_example_call(tool)}"
        )

    allowed = spec.get("enum")
    if expected == "string" and allowed is not None and value not in allowed:
        choices = ", ".join(json.dumps(choice) for choice in allowed)
        raise ToolError(
            f"{tool.name}: argument '{name}' must be one of {choices}, "
            f"got {_describe_value(value)}."
        )

    if expected in ("integer", "number"):
        minimum, maximum = spec.get("minimum"), spec.get("maximum")
        too_small = minimum is not None and value < minimum
        too_large = maximum is not None and value > maximum
        if too_small or too_large:
            raise ToolError(
                f"{tool.name}: argument '{name}' must be {_describe_expected(spec)}, got {value}."
            )

    return value


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
    """E.g. 'a string', 'an integer from 1 to 600', 'one of "a", "b"'."""
    expected = spec.get("type")
    text = _TYPE_NAMES.get(expected, "a value")
    if expected in ("integer", "number"):
        minimum, maximum = spec.get("minimum"), spec.get("maximum")
        if minimum is not None and maximum is not None:
            text += f" from {minimum} to {maximum}"
        elif minimum is not None:
            text += f" of at least {minimum}"
        elif maximum is not None:
            text += f" of at most {maximum}"
    if expected == "string" and spec.get("enum") is not None:
        text = "one of " + ", ".join(json.dumps(choice) for choice in spec["enum"])
    return text


def _describe_value(value: object) -> str:
    """Name a value the way the model wrote it: JSON types, with a short excerpt."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        excerpt = json.dumps(value, ensure_ascii=False)
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
