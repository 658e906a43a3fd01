"""One model call: stream a reply from the Messages API and return it as a plain dict.

    request dict --stream--> events (shown live by the UI) --> final message --> reply dict

The SDK already retries rate limits, 5xx and 529 answers before a stream starts. What it
cannot retry is an `overloaded_error` that arrives *inside* a stream, after some events;
that is retried here, a bounded number of times with growing waits. Errors a person must
act on (bad key, bad request, unreachable endpoint) become a `ModelError` with one clear line.

The SDK takes about a second to import, most of planloop's start-up, so it is imported only
where a call needs it: `--help` never loads it, and `preload_sdk` loads it in the background
while a person types the first prompt.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import os
import threading
from typing import TYPE_CHECKING, Any

from conversation import as_received

if TYPE_CHECKING:
    import anthropic

    from agent import UI  # the loop's one UI protocol; only its stream_event and notice are used

DEFAULT_MODEL = "claude-sonnet-4-6"
STREAM_RETRIES = 3
RETRY_BASE_DELAY = 1.0  # seconds; doubles on each try
EPHEMERAL = {"type": "ephemeral"}
SDK_TOOL_INPUT_ERROR = "Unable to parse tool parameter JSON"  # how the SDK's ValueError begins


class ModelError(Exception):
    """A failed model call; str() is one line saying what to do.

    `temporary` marks a failure that may pass by itself (no connection, overloaded, rate
    limited), unlike one a person must fix (a bad key, a rejected request).
    """

    def __init__(self, message: str, *, temporary: bool = False) -> None:
        super().__init__(message)
        self.temporary = temporary


class ContextOverflow(ModelError):
    """The API refused the request because the prompt does not fit the model's context window.

    Not a dead end: the loop compacts the conversation and tries once more.
    """


def preload_sdk() -> None:
    """Start importing the SDK in a background thread; the first call then finds it loaded.

    Python's import lock makes this safe: an `import anthropic` that comes while the thread
    is still importing waits for it instead of starting over.
    """
    threading.Thread(target=importlib.import_module, args=("anthropic",), daemon=True).start()


def require_credentials() -> None:
    """Fail now, with what to do, when no key or token is set."""
    if not (os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN")):
        raise ModelError(
            "No API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment "
            "or in a .env file in this folder (see .env.example)."
        )


def make_client(**overrides: Any) -> anthropic.AsyncAnthropic:
    """A client configured from the environment (key or token, ANTHROPIC_BASE_URL)."""
    require_credentials()
    import anthropic

    return anthropic.AsyncAnthropic(**overrides)


def with_cache_breakpoints(system: str, messages: list[dict]) -> tuple[list[dict], list[dict]]:
    """Mark the system prompt and the newest block as cacheable (2 of the 4 allowed marks).

    The prefix up to the system prompt (tools + system) and the whole conversation so far are
    then read from the cache on the next call. The stored messages are not touched: the last
    message is copied before it is marked.
    """
    system_blocks = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    if not messages or not isinstance(messages[-1]["content"], list):
        return system_blocks, messages
    last = copy.copy(messages[-1])
    last["content"] = [*last["content"][:-1], {**last["content"][-1], "cache_control": EPHEMERAL}]
    return system_blocks, [*messages[:-1], last]


def reply_to_dict(message: Any) -> dict:
    """The SDK's final message as a plain dict; content blocks as the API sent them, minus
    what the API would refuse to be sent back (conversation.as_received says what)."""
    return {
        "role": "assistant",
        "content": as_received([block.to_dict(mode="json") for block in message.content]),
        "stop_reason": message.stop_reason,
        "usage": message.usage.to_dict(mode="json"),
    }


def is_overloaded_mid_stream(err: anthropic.APIStatusError) -> bool:
    body = err.body if isinstance(err.body, dict) else {}
    kind = (body.get("error") or {}).get("type")
    # A mid-stream error event arrives on a response that started with status 200.
    return err.status_code < 400 and kind in ("overloaded_error", "api_error")


def is_prompt_too_long(err: anthropic.APIStatusError) -> bool:
    """The 400 the API sends for an over-long prompt: 'prompt is too long: N tokens > M maximum'."""
    body = err.body if isinstance(err.body, dict) else {}
    message = (body.get("error") or {}).get("message") or ""
    return err.status_code == 400 and message.startswith("prompt is too long")


def is_temporary(err: anthropic.APIStatusError) -> bool:
    """Worth another try later: rate limits, trouble on the server's side, an overload."""
    return err.status_code == 429 or err.status_code >= 500 or is_overloaded_mid_stream(err)


async def stream_reply(client: anthropic.AsyncAnthropic, request: dict, listener: UI) -> dict:
    """Send one request, stream the events to `listener`, and return the reply dict."""
    import anthropic

    for attempt in range(STREAM_RETRIES + 1):
        try:
            async with client.messages.stream(**request) as stream:
                async for event in stream:
                    listener.stream_event(event)
                return reply_to_dict(await stream.get_final_message())
        except anthropic.APIStatusError as err:
            if is_prompt_too_long(err):
                raise ContextOverflow(describe_api_error(err, client)) from err
            if not is_overloaded_mid_stream(err) or attempt == STREAM_RETRIES:
                raise ModelError(
                    describe_api_error(err, client), temporary=is_temporary(err)
                ) from err
            delay = RETRY_BASE_DELAY * 2**attempt
            listener.notice(f"The API is overloaded; retrying in {delay:.0f} s.")
            await asyncio.sleep(delay)
        except ValueError as err:
            # The SDK parses a tool's input as it streams in, and gives up on JSON it cannot
            # read (a lone surrogate such as "\ud800"). Nothing of that reply can be kept.
            if not str(err).startswith(SDK_TOOL_INPUT_ERROR):
                raise
            raise ModelError(
                "The model's reply could not be read: one of its tool calls had input that is "
                "not valid JSON. Nothing was lost; try again.",
                temporary=True,
            ) from err
        except anthropic.APIConnectionError as err:
            raise ModelError(
                f"Cannot reach the API at {client.base_url} ({err}). "
                "Check ANTHROPIC_BASE_URL and your network.",
                temporary=True,
            ) from err
    raise AssertionError("unreachable")


def describe_api_error(err: anthropic.APIStatusError, client: anthropic.AsyncAnthropic) -> str:
    """One line for a person: what the API said and what to do about it."""
    import anthropic

    body = err.body if isinstance(err.body, dict) else {}
    detail = (body.get("error") or {}).get("message") or str(err)
    if isinstance(err, anthropic.AuthenticationError):
        return f"The API rejected the key ({detail}). Check ANTHROPIC_API_KEY."
    if isinstance(err, anthropic.PermissionDeniedError):
        return f"The key may not use this model or endpoint ({detail})."
    if isinstance(err, anthropic.NotFoundError):
        return f"Not found at {client.base_url} ({detail}). Check MODEL_ID and ANTHROPIC_BASE_URL."
    if isinstance(err, anthropic.BadRequestError):
        return f"The API rejected the request: {detail}"
    return f"API error {err.status_code}: {detail}"
