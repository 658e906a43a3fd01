"""The fake Messages API, driven by the real SDK and by plain HTTP requests."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import struct
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import anthropic
import pytest
from conftest import fake_api_client

import fakeapi.server
from fakeapi import FakeMessagesAPI, ScriptError, text, thinking, tool_use

MODEL = "claude-test"
TOOLS = [{"name": "bash", "input_schema": {"type": "object"}}]
HEADERS = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as fake:
        yield fake


def client(api: FakeMessagesAPI, **kwargs: Any) -> anthropic.AsyncAnthropic:
    return fake_api_client(api.base_url, **kwargs)


def user(content: Any = "hi") -> dict[str, Any]:
    return {"role": "user", "content": content}


def assistant(content: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def call(id: str, command: str = "ls") -> dict[str, Any]:
    return {"type": "tool_use", "id": id, "name": "bash", "input": {"command": command}}


def result(id: str, content: Any = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": id, "content": content}


def body(messages: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"model": MODEL, "max_tokens": 100, "messages": messages, **extra}


def post(
    api: FakeMessagesAPI, payload: Any, headers: dict[str, str] | None = None, path: str = ""
) -> tuple[int, dict[str, Any]]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    request = urllib.request.Request(
        api.base_url + (path or "/v1/messages"),
        data=data,
        headers={"content-type": "application/json", **(HEADERS if headers is None else headers)},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


# --- the SDK against the fake -------------------------------------------------------------


def test_streamed_text_assembles_into_the_final_message(api: FakeMessagesAPI) -> None:
    api.add({"content": [text("Hello there, this is a streamed answer.")]})

    async def go() -> tuple[list[str], Any]:
        async with (
            client(api) as c,
            c.messages.stream(model=MODEL, max_tokens=100, messages=[user()]) as stream,
        ):
            pieces = [piece async for piece in stream.text_stream]
            return pieces, await stream.get_final_message()

    pieces, message = asyncio.run(go())
    assert len(pieces) > 1
    assert message.content[0].text == "Hello there, this is a streamed answer."
    assert message.stop_reason == "end_turn"
    assert message.model == MODEL
    assert message.id.startswith("msg_")
    assert message.usage.output_tokens > 0
    assert api.accepted == api.requests
    assert api.headers[0]["authorization"] == "Bearer test-key"
    assert api.headers[0]["anthropic-version"]


def test_a_streamed_reply_leaves_the_connection_open_for_the_next_request(
    api: FakeMessagesAPI,
) -> None:
    # The real API streams chunked on a kept-alive connection; a fake that closed it after
    # each stream would give every client a reconnect per turn that no user pays.
    api.keep_alive = True
    api.add({"content": [text("one")]})
    api.add({"content": [text("two")]})
    address = api.base_url.removeprefix("http://")
    connection = http.client.HTTPConnection(address, timeout=30)
    request = json.dumps(body([user()], stream=True))
    headers = {**HEADERS, "content-type": "application/json"}
    streams, sockets = [], []
    for _ in range(2):
        connection.request("POST", "/v1/messages", body=request, headers=headers)
        response = connection.getresponse()
        streams.append(response.read().decode())
        assert response.getheader("transfer-encoding") == "chunked"
        sockets.append(connection.sock)
    connection.close()
    assert all("event: message_stop" in stream for stream in streams)
    assert sockets[0] is not None and sockets[1] is sockets[0]


def test_streamed_tool_use_gives_the_parsed_input(api: FakeMessagesAPI) -> None:
    api.add({"content": [text("Listing."), tool_use("bash", {"command": "ls -la", "n": 3})]})

    async def go() -> Any:
        async with (
            client(api) as c,
            c.messages.stream(
                model=MODEL, max_tokens=100, messages=[user()], tools=TOOLS
            ) as stream,
        ):
            return await stream.get_final_message()

    message = asyncio.run(go())
    call_block = message.content[1]
    assert call_block.type == "tool_use"
    assert call_block.id.startswith("toolu_")
    assert call_block.input == {"command": "ls -la", "n": 3}
    assert message.stop_reason == "tool_use"


def test_create_without_stream_returns_a_message(api: FakeMessagesAPI) -> None:
    api.add({"content": [tool_use("bash", {"command": "pwd"}, id="toolu_fixed")]})

    async def go() -> Any:
        async with client(api) as c:
            return await c.messages.create(
                model=MODEL, max_tokens=100, messages=[user()], tools=TOOLS
            )

    message = asyncio.run(go())
    assert message.content[0].id == "toolu_fixed"
    assert message.content[0].input == {"command": "pwd"}
    assert message.stop_reason == "tool_use"


def test_thinking_round_trips_and_tampering_is_rejected(api: FakeMessagesAPI) -> None:
    api.add({"content": [thinking("I should list files."), tool_use("bash", {"command": "ls"})]})
    api.add({"content": [text("Done.")]})

    async def go() -> tuple[Any, Any, Any, Any]:
        async with client(api) as c:
            async with c.messages.stream(
                model=MODEL, max_tokens=100, messages=[user()], tools=TOOLS
            ) as stream:
                first = await stream.get_final_message()
            blocks = [block.model_dump(exclude_none=True) for block in first.content]
            call_id = blocks[1]["id"]

            def conversation(thinking_block: dict[str, Any]) -> list[dict[str, Any]]:
                return [user(), assistant([thinking_block, blocks[1]]), user([result(call_id)])]

            second = await c.messages.create(
                model=MODEL, max_tokens=100, messages=conversation(blocks[0]), tools=TOOLS
            )
            tampered = {**blocks[0], "thinking": "I should delete files."}
            with pytest.raises(anthropic.BadRequestError) as bad:
                await c.messages.create(
                    model=MODEL, max_tokens=100, messages=conversation(tampered), tools=TOOLS
                )
            unsigned = {**blocks[0], "signature": ""}
            with pytest.raises(anthropic.BadRequestError) as missing:
                await c.messages.create(
                    model=MODEL, max_tokens=100, messages=conversation(unsigned), tools=TOOLS
                )
            return first, second, bad.value, missing.value

    first, second, bad, missing = asyncio.run(go())
    assert first.content[0].signature
    assert second.content[0].text == "Done."
    assert bad.body["error"]["message"] == (
        "messages.1.content.0: thinking block signature is invalid"
    )
    assert "signature is missing" in missing.body["error"]["message"]


def test_cut_off_tool_call_streams_partial_json(api: FakeMessagesAPI) -> None:
    api.add(
        {
            "content": [tool_use("bash", partial_json='{"command": "ec')],
            "stop_reason": "max_tokens",
        }
    )

    async def go() -> tuple[list[str], Any]:
        async with (
            client(api) as c,
            c.messages.stream(
                model=MODEL, max_tokens=100, messages=[user()], tools=TOOLS
            ) as stream,
        ):
            raw = [
                event.partial_json
                async for event in stream
                if event.type == "input_json"  # the SDK's own parsed-delta event
            ]
            return raw, await stream.get_final_message()

    raw, message = asyncio.run(go())
    assert "".join(raw) == '{"command": "ec'
    assert message.stop_reason == "max_tokens"
    assert message.content[0].type == "tool_use"


def test_http_529_raises_the_overloaded_error(api: FakeMessagesAPI) -> None:
    api.add({"status": 529, "error": {"type": "overloaded_error", "message": "Overloaded"}})

    async def go() -> None:
        async with client(api) as c:
            await c.messages.create(model=MODEL, max_tokens=100, messages=[user()])

    with pytest.raises(anthropic.APIStatusError) as caught:
        asyncio.run(go())
    err = caught.value
    assert isinstance(err, anthropic.OverloadedError)
    assert err.status_code == 529
    assert err.body["type"] == "error"
    assert err.body["error"] == {"type": "overloaded_error", "message": "Overloaded"}
    assert err.request_id and err.request_id.startswith("req_")


def test_each_sdk_retry_consumes_a_script_entry(api: FakeMessagesAPI) -> None:
    overloaded = {"type": "overloaded_error", "message": "Overloaded"}
    api.add({"status": 529, "error": overloaded, "headers": {"retry-after-ms": "1"}})
    api.add({"content": [text("second try")]})

    async def go() -> Any:
        async with client(api, max_retries=1) as c:
            return await c.messages.create(model=MODEL, max_tokens=100, messages=[user()])

    assert asyncio.run(go()).content[0].text == "second try"
    assert len(api.accepted) == 2
    assert api.remaining == 0


def test_mid_stream_error_raises_with_the_error_in_the_body(api: FakeMessagesAPI) -> None:
    overloaded = {"type": "overloaded_error", "message": "Overloaded"}
    api.add({"mid_stream_error": overloaded, "content": [text("partial answ")]})
    seen: list[str] = []

    async def go() -> None:
        async with (
            client(api) as c,
            c.messages.stream(model=MODEL, max_tokens=100, messages=[user()]) as stream,
        ):
            async for piece in stream.text_stream:
                seen.append(piece)

    with pytest.raises(anthropic.APIStatusError) as caught:
        asyncio.run(go())
    assert caught.value.body == {"type": "error", "error": overloaded}
    assert caught.value.type == "overloaded_error"
    assert "".join(seen) == "partial answ"


def test_mid_stream_error_without_stream_is_a_plain_http_error(api: FakeMessagesAPI) -> None:
    api.add({"mid_stream_error": {"type": "overloaded_error", "message": "Overloaded"}})

    async def go() -> None:
        async with client(api) as c:
            await c.messages.create(model=MODEL, max_tokens=100, messages=[user()])

    with pytest.raises(anthropic.OverloadedError):
        asyncio.run(go())


def test_bad_key_is_an_authentication_error(api: FakeMessagesAPI) -> None:
    api.add({"content": [text("never sent")]})

    async def go() -> None:
        async with client(api, api_key="wrong") as c:
            await c.messages.create(model=MODEL, max_tokens=100, messages=[user()])

    with pytest.raises(anthropic.AuthenticationError) as caught:
        asyncio.run(go())
    assert caught.value.body["error"]["type"] == "authentication_error"
    assert api.rejections == ["invalid x-api-key"]
    assert len(api.requests) == 1 and api.accepted == []
    assert api.remaining == 1


def test_exhausted_script_fails_loudly(api: FakeMessagesAPI) -> None:
    async def go() -> None:
        async with client(api) as c:
            await c.messages.create(model=MODEL, max_tokens=100, messages=[user()])

    with pytest.raises(anthropic.BadRequestError, match="fake script exhausted"):
        asyncio.run(go())
    assert api.rejections == ["fake script exhausted: no reply left for this request"]


def test_callable_entry_sees_the_request(api: FakeMessagesAPI) -> None:
    def echo_last_result(request: dict[str, Any]) -> dict[str, Any]:
        last = request["messages"][-1]["content"][0]
        return {"content": [text(f"got {last['content']}")]}

    api.add(echo_last_result)
    messages = [user(), assistant([call("toolu_a")]), user([result("toolu_a", "42 files")])]
    status, payload = post(api, body(messages, tools=TOOLS))
    assert status == 200
    assert payload["content"] == [{"type": "text", "text": "got 42 files"}]


def test_failing_callable_is_a_500_the_sdk_does_not_retry(api: FakeMessagesAPI) -> None:
    def broken(request: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("oops")

    api.add(broken)
    api.add({"content": [text("must stay unserved")]})

    async def go() -> None:
        async with client(api, max_retries=2) as c:
            await c.messages.create(model=MODEL, max_tokens=100, messages=[user()])

    with pytest.raises(anthropic.InternalServerError):
        asyncio.run(go())
    assert len(api.requests) == 1
    assert api.remaining == 1
    assert "fake script callable failed" in api.rejections[0]


def test_a_fault_in_the_fake_is_a_final_500(api: FakeMessagesAPI, monkeypatch) -> None:
    def broken_render(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("render bug")

    monkeypatch.setattr(fakeapi.server, "render_message", broken_render)
    api.add({"content": [text("x")]})
    status, payload = post(api, body([user()]))
    assert status == 500
    assert payload["error"]["type"] == "api_error"
    assert api.rejections == ["fake server error: RuntimeError('render bug')"]


def test_a_client_that_hangs_up_before_the_reply_is_not_a_fault_of_the_fake(
    api: FakeMessagesAPI,
) -> None:
    # What a Ctrl-C during a model call does to the fake: the reply finds the socket closed.
    client_gone = threading.Event()

    def answer_after_the_hang_up(request: dict[str, Any]) -> dict[str, Any]:
        client_gone.wait(20)
        return {"content": [text("too late")]}

    api.add(answer_after_the_hang_up)
    payload = json.dumps(body([user()], stream=True)).encode()
    host, port = api.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as connection:
        head = "".join(f"{name}: {value}\r\n" for name, value in HEADERS.items())
        connection.sendall(
            b"POST /v1/messages HTTP/1.1\r\nHost: fake\r\nContent-Type: application/json\r\n"
            + head.encode()
            + b"Content-Length: %d\r\n\r\n" % len(payload)
            + payload
        )
        # Close with a reset, so that the fake's first write fails at once.
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client_gone.set()
    assert api.client_hung_up.wait(20)
    assert api.rejections == []
    assert api.remaining == 0


def test_bad_script_entries_fail_where_they_are_added() -> None:
    api = FakeMessagesAPI()
    with pytest.raises(ScriptError):
        api.add({"content": [{"type": "txt", "text": "typo"}]})
    with pytest.raises(ScriptError):
        api.add({"content": [text("x")], "stop_reason": "finished"})
    with pytest.raises(ScriptError):
        api.add({"status": 529, "error": {"type": "overloaded_error"}})


def test_only_post_v1_messages_exists(api: FakeMessagesAPI) -> None:
    status, payload = post(api, body([user()]), path="/v1/complete")
    assert status == 404
    assert payload["error"]["type"] == "not_found_error"


def test_anthropic_version_header_is_required(api: FakeMessagesAPI) -> None:
    status, payload = post(api, body([user()]), headers={"x-api-key": "test-key"})
    assert status == 400
    assert payload["error"]["message"] == "anthropic-version: header is required"


def test_a_rich_valid_request_is_accepted(api: FakeMessagesAPI) -> None:
    api.add({"content": [text("fine")]})
    cache = {"type": "ephemeral"}
    messages = [
        user([{"type": "text", "text": "run two things", "cache_control": cache}]),
        assistant([{"type": "text", "text": "Running."}, call("toolu_a"), call("toolu_b", "pwd")]),
        user(
            [
                result("toolu_a", [{"type": "text", "text": "a.txt"}]),
                {**result("toolu_b", ""), "is_error": True, "cache_control": cache},
                {"type": "text", "text": "and now summarise"},
            ]
        ),
    ]
    request = body(
        messages,
        system=[{"type": "text", "text": "You are terse.", "cache_control": cache}],
        tools=[{**TOOLS[0], "description": "Run a command.", "cache_control": cache}],
        tool_choice={"type": "auto"},
        stop_sequences=["END"],
        metadata={"user_id": "u1"},
    )
    status, payload = post(api, request)
    assert api.rejections == []
    assert status == 200
    assert payload["content"] == [{"type": "text", "text": "fine"}]


# --- one rule each: the request is refused with a 400 that names the problem ---------------

ASKED = [user(), assistant([call("toolu_a"), call("toolu_b")])]

REJECTED = {
    "missing tool_result": (
        body([*ASKED, user([result("toolu_a")])], tools=TOOLS),
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: toolu_b.",
    ),
    "tool_result after text": (
        body(
            [
                *ASKED,
                user([result("toolu_a"), {"type": "text", "text": "x"}, result("toolu_b")]),
            ],
            tools=TOOLS,
        ),
        "messages.2.content.2: `tool_result` blocks must come first",
    ),
    "results out of order": (
        body([*ASKED, user([result("toolu_b"), result("toolu_a")])], tools=TOOLS),
        "messages.2: `tool_result` blocks must be in the same order",
    ),
    "unknown tool_use_id": (
        body(
            [*ASKED, user([result("toolu_a"), result("toolu_b"), result("toolu_c")])], tools=TOOLS
        ),
        "messages.2.content.2: unexpected `tool_use_id` found in `tool_result` blocks: toolu_c",
    ),
    "answered twice": (
        body(
            [*ASKED, user([result("toolu_a"), result("toolu_a"), result("toolu_b")])], tools=TOOLS
        ),
        "messages.2.content.1: duplicate `tool_result` for toolu_a",
    ),
    "tool_use id reused": (
        body(
            [*ASKED, user([result("toolu_a"), result("toolu_b")]), assistant([call("toolu_a")])]
            + [user([result("toolu_a")])],
            tools=TOOLS,
        ),
        "messages.3.content.0.id: `tool_use` ids must be unique",
    ),
    "assistant last": (
        body([user(), assistant("Sure,")]),
        "This model does not support assistant message prefill. "
        "The conversation must end with a user message.",
    ),
    "first message from assistant": (
        body([assistant("Hello"), user()]),
        'messages.0.role: first message must use the "user" role',
    ),
    "consecutive user messages": (
        body([user("one"), user("two")]),
        'messages.1: roles must alternate between "user" and "assistant"',
    ),
    "empty string content": (
        body([user("")]),
        "messages.0.content: text content blocks must be non-empty",
    ),
    "whitespace string content": (
        body([user("  \n")]),
        "messages.0.content: text content blocks must contain non-whitespace text",
    ),
    "whitespace text block": (
        body([user([{"type": "text", "text": " "}])]),
        "messages.0.content.0: text content blocks must contain non-whitespace text",
    ),
    "empty text inside a tool_result": (
        body(
            [*ASKED, user([result("toolu_a", [{"type": "text", "text": ""}]), result("toolu_b")])],
            tools=TOOLS,
        ),
        "messages.2.content.0.content.0: text content blocks must be non-empty",
    ),
    "empty content list": (
        body([user([])]),
        "messages.0.content: messages must have non-empty content",
    ),
    "unknown block key": (
        body([user([{"type": "text", "text": "hi", "id": "x"}])]),
        "messages.0.content.0.id: Extra inputs are not permitted",
    ),
    "unknown message key": (
        body([{**user(), "name": "me"}]),
        "messages.0.name: Extra inputs are not permitted",
    ),
    "thinking in a user message": (
        body([user([{"type": "thinking", "thinking": "x", "signature": "y"}])]),
        "messages.0.content.0: thinking blocks may only appear in assistant messages",
    ),
    "temperature": (
        body([user()], temperature=0.2),
        "temperature is not supported for this model",
    ),
    "unknown top-level key": (
        body([user()], max_tokens_to_sample=5),
        "max_tokens_to_sample: Extra inputs are not permitted",
    ),
    "max_tokens negative": (
        body([user()], max_tokens=-1),
        "max_tokens: Input should be greater than or equal to 0",
    ),
    "no messages": (body([]), "messages: at least one message is required"),
    "bad tool name": (
        body([user()], tools=[{"name": "run shell", "input_schema": {"type": "object"}}]),
        "tools.0.name: String should match pattern",
    ),
    # `$` in the API's patterns does not let a trailing newline through.
    "tool name with a trailing newline": (
        body([user()], tools=[{"name": "bash\n", "input_schema": {"type": "object"}}]),
        "tools.0.name: String should match pattern",
    ),
    "tool_use id with a trailing newline": (
        body([user(), assistant([call("toolu_a\n")]), user([result("toolu_a\n")])], tools=TOOLS),
        "messages.1.content.0.id: String should match pattern",
    ),
    "tool_use name with a trailing newline": (
        body(
            [user(), assistant([{**call("toolu_a"), "name": "bash\n"}]), user([result("toolu_a")])],
            tools=TOOLS,
        ),
        "messages.1.content.0.name: String should match pattern",
    ),
    "duplicate tool names": (
        body([user()], tools=[*TOOLS, *TOOLS]),
        "tools: Tool names must be unique",
    ),
    "input_schema not an object schema": (
        body([user()], tools=[{"name": "bash", "input_schema": {"type": "string"}}]),
        "tools.0.input_schema.type: Input should be 'object'",
    ),
    "tool blocks without tools": (
        body([*ASKED, user([result("toolu_a"), result("toolu_b")])]),
        "Requests which include `tool_use` or `tool_result` blocks must define tools.",
    ),
    "bad tool_choice": (
        body([user()], tools=TOOLS, tool_choice={"type": "required"}),
        "tool_choice.type: Input should be",
    ),
    "five cache_control blocks": (
        body(
            [
                user(
                    [
                        {
                            "type": "text",
                            "text": f"part {n}",
                            "cache_control": {"type": "ephemeral"},
                        }
                        for n in range(4)
                    ]
                )
            ],
            system=[{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
        ),
        "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    ),
    "system block with empty text": (
        body([user()], system=[{"type": "text", "text": ""}]),
        "system.0: text content blocks must be non-empty",
    ),
}


@pytest.mark.parametrize(("request_body", "expected"), REJECTED.values(), ids=REJECTED.keys())
def test_invalid_request_is_rejected(
    api: FakeMessagesAPI, request_body: dict[str, Any], expected: str
) -> None:
    api.add({"content": [text("must not be served")]})
    status, payload = post(api, request_body)
    assert status == 400
    assert payload["type"] == "error"
    assert payload["error"]["type"] == "invalid_request_error"
    assert expected in payload["error"]["message"]
    assert api.rejections == [payload["error"]["message"]]
    assert api.requests == [request_body]
    assert api.accepted == []
    assert api.remaining == 1


def test_invalid_json_is_rejected_and_recorded(api: FakeMessagesAPI) -> None:
    status, payload = post(api, b"{not json")
    assert status == 400
    assert "not valid JSON" in payload["error"]["message"]
    assert api.requests == ["{not json"]


def test_context_limit_refuses_a_long_prompt_as_the_real_api_does(api: FakeMessagesAPI) -> None:
    api.add({"content": [text("fits")]})

    async def ask() -> Any:
        async with client(api) as c:
            return await c.messages.create(model=MODEL, max_tokens=100, messages=[user("x" * 400)])

    counted = asyncio.run(ask()).usage.input_tokens
    api.context_limit = counted - 1  # the same request is now one token too long
    with pytest.raises(anthropic.BadRequestError) as caught:
        asyncio.run(ask())
    assert caught.value.status_code == 400
    assert caught.value.body["error"] == {
        "type": "invalid_request_error",
        "message": f"prompt is too long: {counted} tokens > {counted - 1} maximum",
    }
    assert api.remaining == 0 and len(api.accepted) == 1
