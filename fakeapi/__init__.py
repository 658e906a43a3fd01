"""A strict local fake of the Anthropic Messages API, for tests.

It serves scripted replies to the real ``anthropic`` SDK over HTTP on 127.0.0.1, as JSON or
as a server-sent event stream, and refuses with the real API's kind of error every request
that the real API would refuse::

    from fakeapi import FakeMessagesAPI, text, tool_use

    with FakeMessagesAPI(script=[{"content": [tool_use("bash", {"command": "ls"})]},
                                 {"content": [text("done")]}]) as api:
        client = anthropic.AsyncAnthropic(api_key="test-key", base_url=api.base_url)
        ...
    assert api.rejections == []
"""

from .replies import (
    ScriptError,
    cited_text,
    redacted_thinking,
    server_tool_use,
    text,
    thinking,
    tool_use,
    web_search_result,
)
from .server import FakeMessagesAPI
from .validate import RequestRejected

__all__ = [
    "FakeMessagesAPI",
    "RequestRejected",
    "ScriptError",
    "cited_text",
    "redacted_thinking",
    "server_tool_use",
    "text",
    "thinking",
    "tool_use",
    "web_search_result",
]
