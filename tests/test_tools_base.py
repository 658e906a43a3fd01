"""Tool definitions, input validation and handler calls."""

import asyncio
from pathlib import Path

import pytest

from tools import (
    BASH,
    EDIT_FILE,
    READ_FILE,
    WRITE_FILE,
    Tool,
    ToolError,
    call_handler,
    default_tools,
    validate_input,
)


def echo(workspace: Path, **arguments: object) -> str:
    return repr(sorted(arguments.items()))


SAMPLE = Tool(
    name="sample",
    description="A tool with one argument of each supported kind.",
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "count": {"type": "integer", "minimum": 1, "maximum": 10},
            "ratio": {"type": "number"},
            "force": {"type": "boolean"},
            "items": {"type": "array"},
            "options": {"type": "object"},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    handler=echo,
)


def error_for(raw_input: object) -> str:
    with pytest.raises(ToolError) as caught:
        validate_input(SAMPLE, raw_input)
    return str(caught.value)


def test_default_tools_are_bash_read_write_edit_in_that_order():
    assert [tool.name for tool in default_tools()] == [
        "bash",
        "read_file",
        "write_file",
        "edit_file",
    ]


def test_every_default_tool_schema_has_name_description_and_object_input():
    for tool in (BASH, READ_FILE, WRITE_FILE, EDIT_FILE):
        schema = tool.schema()
        assert set(schema) == {"name", "description", "input_schema"}
        assert schema["input_schema"]["type"] == "object"
        assert set(schema["input_schema"]["required"]) <= set(schema["input_schema"]["properties"])
        assert 0 < len(schema["description"]) < 400


def test_valid_input_is_returned_as_a_new_dict():
    raw = {"path": "a.txt", "count": 3, "force": True}
    arguments = validate_input(SAMPLE, raw)
    assert arguments == raw
    assert arguments is not raw


def test_missing_required_argument_names_it_and_shows_what_to_send():
    message = error_for({"count": 2})
    assert message.startswith("sample: argument 'path' is required (a string).")
    assert '"path": <string>' in message
    assert '"count": <integer, optional>' in message


def test_wrong_type_names_argument_expected_type_and_what_was_sent():
    message = error_for({"path": 42})
    assert "argument 'path' must be a string" in message
    assert "the number 42" in message


def test_unknown_argument_is_refused_with_the_accepted_names():
    message = error_for({"path": "a", "file_path": "a"})
    assert "unknown argument 'file_path'" in message
    assert "'path', 'count', 'ratio', 'force', 'items', 'options', 'mode'" in message


def test_unknown_argument_is_accepted_but_not_passed_on_where_the_schema_allows_it():
    lenient = Tool(
        "lenient", "", {"type": "object", "properties": {"path": {"type": "string"}}}, echo
    )
    assert validate_input(lenient, {"path": "a", "file_path": "b"}) == {"path": "a"}


NESTED = Tool(
    name="plan",
    description="A nested schema like todo_write's.",
    input_schema={
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "maxItems": 2,
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "minLength": 1},
                        "status": {"type": "string", "enum": ["pending", "completed"]},
                    },
                    "required": ["content", "status"],
                },
            }
        },
        "required": ["todos"],
    },
    handler=echo,
)


def nested_error(raw_input: object) -> str:
    with pytest.raises(ToolError) as caught:
        validate_input(NESTED, raw_input)
    return str(caught.value)


def test_nested_items_are_checked_against_their_declared_shape():
    item = {"content": "a", "status": "pending"}
    assert "todos[1].status must be one of" in nested_error(
        {"todos": [item, {"content": "b", "status": "done"}]}
    )
    assert "todos[0].content is required (a string of at least 1 character)" in nested_error(
        {"todos": [{"status": "pending"}]}
    )
    assert "todos[0].content must be a string of at least 1 character, got 0" in nested_error(
        {"todos": [{"content": "", "status": "pending"}]}
    )
    assert "argument 'todos' must be an array of at most 2 items, got 3 items" in nested_error(
        {"todos": [item, item, item]}
    )
    # Keys an item's schema does not forbid pass through untouched.
    checked = validate_input(NESTED, {"todos": [{**item, "note": "x"}]})
    assert checked == {"todos": [{**item, "note": "x"}]}


def test_input_that_is_not_an_object_is_refused():
    message = error_for(["a.txt"])
    assert "input must be a JSON object" in message
    assert "got an array" in message
    assert "must be a JSON object" in error_for("a.txt")


def test_bool_is_not_accepted_as_integer_or_number():
    assert "must be an integer" in error_for({"path": "a", "count": True})
    assert "must be a number" in error_for({"path": "a", "ratio": False})


def test_integral_float_is_accepted_as_integer_and_converted():
    arguments = validate_input(SAMPLE, {"path": "a", "count": 3.0})
    assert arguments["count"] == 3
    assert type(arguments["count"]) is int


def test_fractional_float_is_not_an_integer():
    assert "must be an integer from 1 to 10" in error_for({"path": "a", "count": 2.5})


def test_integer_outside_minimum_and_maximum_says_the_range():
    assert "from 1 to 10, got 0" in error_for({"path": "a", "count": 0})
    assert "from 1 to 10, got 11" in error_for({"path": "a", "count": 11})


def test_string_outside_enum_lists_the_choices():
    message = error_for({"path": "a", "mode": "medium"})
    assert 'must be one of "fast", "slow"' in message


def test_json_string_for_array_or_object_is_decoded_once():
    raw = {"path": "a", "items": '[1, "two"]', "options": '{"deep": true}'}
    arguments = validate_input(SAMPLE, raw)
    assert arguments["items"] == [1, "two"]
    assert arguments["options"] == {"deep": True}
    assert raw["items"] == '[1, "two"]'  # the model's input is left as it was


def test_doubly_encoded_json_string_is_refused():
    message = error_for({"path": "a", "items": '"[1, 2]"'})
    assert "argument 'items' must be an array" in message


def test_string_that_is_not_json_is_refused_for_an_array():
    assert "must be an array" in error_for({"path": "a", "items": "1, 2"})


def test_json_string_for_a_string_argument_is_kept_as_text():
    assert validate_input(SAMPLE, {"path": "[1]"})["path"] == "[1]"


def test_null_leaves_an_optional_argument_out_but_does_not_satisfy_a_required_one():
    assert validate_input(SAMPLE, {"path": "a", "count": None}) == {"path": "a"}
    assert "argument 'path' is required" in error_for({"path": None})


def test_call_handler_runs_plain_and_async_handlers():
    async def async_echo(workspace: Path, **arguments: object) -> str:
        return f"{workspace.name}: {arguments}"

    async_tool = Tool("async_sample", "", {"type": "object"}, async_echo)
    workspace = Path("/tmp/project")
    assert asyncio.run(call_handler(SAMPLE, workspace, {"path": "a"})) == "[('path', 'a')]"
    assert asyncio.run(call_handler(async_tool, workspace, {"x": 1})) == "project: {'x': 1}"


def test_tool_error_raised_by_a_handler_reaches_the_caller():
    def failing(workspace: Path) -> str:
        raise ToolError("no such thing")

    tool = Tool("failing", "", {"type": "object"}, failing)
    with pytest.raises(ToolError, match="no such thing"):
        asyncio.run(call_handler(tool, Path("."), {}))
