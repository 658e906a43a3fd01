"""The fake refuses what the service refuses, and accepts what it accepts (fakeapi/validate.py)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from fakeapi import FakeMessagesAPI, server_tool_use, text, web_search_result
from fakeapi.validate import RequestRejected, validate_request

TOOLS = [{"name": "bash", "input_schema": {"type": "object"}}]


def body(messages: list[dict], **fields: Any) -> dict:
    return {"model": "m", "max_tokens": 2000, "messages": messages, **fields}


def user(content: Any = "hi") -> dict:
    return {"role": "user", "content": content}


def assistant(content: list[dict]) -> dict:
    return {"role": "assistant", "content": content}


def signed(thinking: str, signature: str) -> bool:
    return signature == "good"


def accepted(request: dict) -> bool:
    try:
        validate_request(request, signed)
    except RequestRejected:
        return False
    return True


THINKING = {"type": "thinking", "thinking": "Plan.", "signature": "good"}
ANSWER = {"type": "text", "text": "Done."}
SEARCH = server_tool_use("web_search", {"query": "x"}, id="srvtoolu_1")
FOUND = web_search_result(SEARCH, [("https://example.org", "Example")])


@pytest.mark.parametrize(
    ("request_body", "why"),
    [
        (body([user()], top_p=0.9), "top_p"),
        (body([user()], top_k=5), "top_k"),
        (body([user([{"type": "text", "text": "hi", "citations": []}])]), "citations"),
        (body([user(), assistant([ANSWER, THINKING]), user()]), "thinking blocks must come"),
        (
            body(
                [user()],
                thinking={"type": "enabled", "budget_tokens": 1024},
                tools=TOOLS,
                tool_choice={"type": "any"},
            ),
            "forces tool use",
        ),
        (body([user(), assistant([ANSWER])]), "prefill"),
    ],
    ids=["top_p", "top_k", "user citations", "text then thinking", "manual + forced", "prefill"],
)
def test_refused_as_the_service_refuses(request_body, why):
    with pytest.raises(RequestRejected, match=why):
        validate_request(request_body, signed)


@pytest.mark.parametrize(
    "request_body",
    [
        body([user()], max_tokens=0),
        body([user()], thinking={"type": "adaptive"}, tools=TOOLS, tool_choice={"type": "any"}),
        body([user(), assistant([THINKING, SEARCH, FOUND, THINKING, ANSWER]), user()]),
        body(
            [user(), assistant([text("Cited"), {**ANSWER, "citations": [{"type": "x"}]}]), user()]
        ),
    ],
    ids=["max_tokens 0", "adaptive + forced", "server tool blocks", "assistant citations"],
)
def test_accepted_as_the_service_accepts(request_body):
    assert accepted(request_body)


def post(api: FakeMessagesAPI, request: dict) -> tuple[int, dict]:
    sent = urllib.request.Request(
        f"{api.base_url}/v1/messages",
        data=json.dumps(request).encode(),
        headers={
            "x-api-key": api.api_key,
            "anthropic-version": "2023-06-01",
            "content-type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(sent) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_only_the_paused_reply_itself_may_end_a_request():
    with FakeMessagesAPI(api_key="k") as api:
        api.add({"content": [text("Searching."), SEARCH], "stop_reason": "pause_turn"})
        api.add({"content": [FOUND, text("Found.")]})
        status, paused = post(api, body([user()]))
        assert status == 200 and paused["stop_reason"] == "pause_turn"
        forged = assistant([text("Searching, I said."), SEARCH])
        assert post(api, body([user(), forged]))[0] == 400
        status, resumed = post(api, body([user(), assistant(paused["content"])]))
        assert status == 200 and resumed["content"][-1]["text"] == "Found."
