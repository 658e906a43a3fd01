"""One model call: stream a reply from the Messages API and return it as a plain dict.

    request dict --stream--> events (shown live by the UI) --> final message --> reply dict

The SDK already retries rate limits, 5xx and 529 answers before a stream starts; each of its
waits is announced here (`retries_announced`), so a rate limit is never a silent pause. What
it cannot retry is an `overloaded_error` or `api_error` that arrives *inside* a stream,
after some events; that is retried here, a bounded number of times with growing waits.
Errors a person must act on (bad key, bad request, unreachable endpoint) become a
`ModelError` with one clear line. The request's `thinking` field comes from a setting
("off", "adaptive" or a budget) checked against the API's rules (`check_thinking`).

The SDK takes about a second to import, most of planloop's start-up, so it is imported only
where a call needs it: `--help` never loads it, and `preload_sdk` loads it in the background
while a person types the first prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import gc
import importlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from conversation import as_received

if TYPE_CHECKING:
    import anthropic

    from agent import UI  # the loop's one UI protocol; only its stream_event and notice are used
    from settings import Settings

DEFAULT_MODEL = "claude-sonnet-4-6"

# Extended thinking by model id prefix, first match wins: "adaptive" (the model decides how
# much to think; planloop's default), "manual" (only type "enabled" with a token budget, so
# off unless --thinking N asks for it). Source: the adaptive and extended thinking pages of
# platform.claude.com and the Bedrock model list that mirrors them, checked 2026-11-30.
# Opus 4.7 and the 5.x families take adaptive thinking only; Opus 4.6 and Sonnet 4.6 take
# both; Opus 4.5 and older, Sonnet 4.5 and older and Haiku 4.5 take manual thinking only.
THINKING_SUPPORT: list[tuple[str, str]] = [
    ("claude-fable-5", "adaptive"),
    ("claude-mythos", "adaptive"),
    ("claude-opus-5", "adaptive"),
    ("claude-sonnet-5", "adaptive"),
    ("claude-opus-4-8", "adaptive"),
    ("claude-opus-4-7", "adaptive"),
    ("claude-opus-4-6", "adaptive"),
    ("claude-sonnet-4-6", "adaptive"),
    ("claude-opus-4", "manual"),
    ("claude-sonnet-4", "manual"),
    ("claude-haiku-4-5", "manual"),
    ("claude-3-7-sonnet", "manual"),
]
# "The minimum budget is 1,024 tokens", and "budget_tokens must be set to a value less than
# max_tokens" (extended thinking).
MIN_THINKING_BUDGET = 1024
Thinking = str | int  # "off", "adaptive", or a token budget for manual thinking
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


def thinking_support(model: str) -> str | None:
    """'adaptive', 'manual', or None for a model that is not known to think."""
    for prefix, support in THINKING_SUPPORT:
        if model.startswith(prefix):
            return support
    return None


def default_thinking(model: str) -> Thinking:
    """Adaptive thinking where the model has it; otherwise off (manual needs a budget)."""
    return "adaptive" if thinking_support(model) == "adaptive" else "off"


def check_thinking(thinking: Thinking, max_tokens: int) -> None:
    """Raise ValueError, saying what to use instead, for a setting the API would refuse."""
    if thinking in ("off", "adaptive"):
        return
    if not isinstance(thinking, int) or isinstance(thinking, bool):
        raise ValueError(f"thinking must be 'off', 'adaptive' or a token budget, not {thinking!r}")
    if not MIN_THINKING_BUDGET <= thinking < max_tokens:
        raise ValueError(
            f"a thinking budget must be at least {MIN_THINKING_BUDGET} tokens and below "
            f"max_tokens ({max_tokens}), not {thinking}"
        )


def thinking_param(thinking: Thinking) -> dict | None:
    """The request's `thinking` field for a setting; None: leave the field out.

    Off leaves it out rather than sending type "disabled": the models that think only
    adaptively refuse "disabled".
    """
    if thinking == "off":
        return None
    if thinking == "adaptive":
        return {"type": "adaptive"}
    return {"type": "enabled", "budget_tokens": thinking}


GC_YOUNG_THRESHOLD = 20_000  # allocations between young collections (Python's default: 700)


def preload_sdk() -> None:
    """Start importing the SDK in a background thread; the first call then finds it loaded.

    Python's import lock makes this safe: an `import anthropic` that comes while the thread
    is still importing waits for it instead of starting over.
    """
    threading.Thread(target=load_for_good, daemon=True).start()


def load_for_good() -> None:
    """Import the SDK, then set everything loaded so far aside from the garbage collector.

    The modules, classes and schemas of planloop, the SDK and pydantic live as long as the
    process. Left in the collector's care, each full collection walks all of them again: about
    60 ms each, a few times in the first hundred turns. `gc.freeze` moves them out of its way.

    The collector then runs less often: each turn the SDK deep-copies the whole request body,
    thousands of short-lived containers in a long session, and with the default threshold
    (700) the young generation was collected about three times a turn, promoting what was
    still in flight to be walked again later: about 1.5 ms a turn at 300 turns, against
    0.6 ms at this threshold. Reference counting frees nearly all of it anyway; the collector
    is only for cycles.
    """
    importlib.import_module("anthropic")
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 10, 10)


def require_credentials(settings: Settings) -> None:
    """Fail now, with what to do, when no key or token is set, or when the workspace's .env
    chose an endpoint you have not confirmed for that folder (settings.py)."""
    from settings import require_confirmed_endpoint  # late: settings is only a type here

    if not settings.has_credentials:
        raise ModelError(
            "No API key: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in your shell "
            "(export ANTHROPIC_API_KEY=...), or put the line ANTHROPIC_API_KEY=... in a .env "
            "file in this folder."
        )
    require_confirmed_endpoint(settings)


async def import_sdk() -> None:
    """Import the SDK in a thread of its own: an import another thread began holds Python's
    import lock, and an event loop waiting for it there would answer no signal. A daemon
    thread, not the loop's executor: a cancelled wait (SIGTERM while the start-up key search
    holds the import up) ends at once, and the loop's end does not wait for the import."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def load() -> None:
        try:
            import anthropic  # noqa: F401
        except BaseException as error:  # (told to the waiting loop, which raises it)
            outcome = functools.partial(_settle, done, error)
        else:
            outcome = functools.partial(_settle, done, None)
        with contextlib.suppress(RuntimeError):  # (the loop has ended: nobody waits)
            loop.call_soon_threadsafe(outcome)

    threading.Thread(target=load, name="import anthropic", daemon=True).start()
    await done


def _settle(done: asyncio.Future, error: BaseException | None) -> None:
    if done.done():
        return  # (cancelled meanwhile)
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


def make_client(settings: Settings, **overrides: Any) -> anthropic.AsyncAnthropic:
    """A client with the key (or token) and endpoint of `settings` (settings.py), given as
    arguments: the SDK then reads no credential from the environment itself."""
    require_credentials(settings)
    import anthropic

    return anthropic.AsyncAnthropic(**settings.client_options(), **overrides)


def with_cache_breakpoints(system: str, messages: list[dict]) -> tuple[list[dict], list[dict]]:
    """Mark the system prompt and the newest block as cacheable (2 of the 4 allowed marks).

    The prefix up to the system prompt (tools + system) and the whole conversation so far are
    then read from the cache on the next call. The stored messages are not touched: the last
    message is copied before it is marked.
    """
    system_blocks = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    if not messages or not isinstance(messages[-1]["content"], list):
        return system_blocks, messages
    if messages[-1]["content"][-1].get("type") in ("thinking", "redacted_thinking"):
        return system_blocks, messages  # a paused reply may end in thinking: never marked
    last = copy.copy(messages[-1])
    last["content"] = [*last["content"][:-1], {**last["content"][-1], "cache_control": EPHEMERAL}]
    return system_blocks, [*messages[:-1], last]


def reply_to_dict(message: Any) -> dict:
    """The SDK's final message as a plain dict; content blocks as the API sent them, minus
    what the API would refuse to be sent back (conversation.as_received says what)."""
    reply = {
        "role": "assistant",
        "content": as_received([block.to_dict(mode="json") for block in message.content]),
        "stop_reason": message.stop_reason,
        "usage": message.usage.to_dict(mode="json"),
        "model": message.model,  # prices the reply even when its stream went to no UI
    }
    # A refusal says why: {"type": "refusal", "category": ..., "explanation": ...}.
    details = getattr(message, "stop_details", None)
    if details is not None:
        reply["stop_details"] = details.to_dict(mode="json")
    return reply


def error_kind(err: anthropic.APIStatusError) -> str:
    body = err.body if isinstance(err.body, dict) else {}
    return (body.get("error") or {}).get("type") or ""


def is_mid_stream(err: anthropic.APIStatusError) -> bool:
    """An error event inside a stream: the response had begun with status 200."""
    return err.status_code < 400


def is_retried_mid_stream(err: anthropic.APIStatusError) -> bool:
    return is_mid_stream(err) and error_kind(err) in MID_STREAM_WORDING


# The error events worth another try when they break a stream, and how to announce them.
MID_STREAM_WORDING = {
    "overloaded_error": "The API is overloaded",
    "api_error": "The API had an internal error",
}


def is_prompt_too_long(err: anthropic.APIStatusError) -> bool:
    """The 400 the API sends for an over-long prompt: 'prompt is too long: N tokens > M maximum'."""
    body = err.body if isinstance(err.body, dict) else {}
    message = (body.get("error") or {}).get("message") or ""
    return err.status_code == 400 and message.startswith("prompt is too long")


def is_temporary(err: anthropic.APIStatusError) -> bool:
    """Worth another try later: rate limits, trouble on the server's side, an overload."""
    return err.status_code == 429 or err.status_code >= 500 or is_retried_mid_stream(err)


async def stream_reply(client: anthropic.AsyncAnthropic, request: dict, listener: UI) -> dict:
    """Send one request, stream the events to `listener`, and return the reply dict."""
    import anthropic

    for attempt in range(STREAM_RETRIES + 1):
        try:
            with retries_announced(listener):
                async with client.messages.stream(**request) as stream:
                    async for event in stream:
                        listener.stream_event(event)
                    return reply_to_dict(await stream.get_final_message())
        except anthropic.APIStatusError as err:
            if is_prompt_too_long(err):
                raise ContextOverflow(describe_api_error(err, client)) from err
            if not is_retried_mid_stream(err) or attempt == STREAM_RETRIES:
                raise ModelError(
                    describe_api_error(err, client, attempt + 1), temporary=is_temporary(err)
                ) from err
            delay = RETRY_BASE_DELAY * 2**attempt
            listener.stream_restarted()
            listener.notice(f"{MID_STREAM_WORDING[error_kind(err)]}; retrying in {delay:.0f} s.")
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


# ---- the SDK's own retries, made visible ----------------------------------------------------
#
# Before a stream starts, the SDK retries 408, 409, 429 and 5xx answers by itself, waiting as
# long as the `retry-after` header asks. It says so only in its log; this turns those log
# records into one notice per wait, so a rate limit is never a silent pause.
#
# Both records it needs are at INFO level: the HTTP client's line for each response (its
# status), and the SDK's "Retrying request" (the wait). Not DEBUG: with DEBUG on, the SDK
# writes out the whole request (the conversation so far) for its log before every call, a
# cost that grows with the session.

SDK_LOGGER = "anthropic._base_client"  # "Retrying request to %s in %f seconds"
HTTP_LOGGER = "httpx2"  # 'HTTP Request: %s %s "%s %d %s"' (method, url, version, status, reason)


class RetryNotices(logging.Handler):
    """Reads the SDK's log: the status of each response, and each wait before a retry."""

    def __init__(self, listener: UI) -> None:
        super().__init__(logging.INFO)
        self.listener = listener
        self.status: int | None = None

    def emit(self, record: logging.LogRecord) -> None:
        message, args = str(record.msg), record.args
        if message.startswith("HTTP Request") and isinstance(args, tuple) and len(args) > 3:
            self.status = args[3]
        elif message.startswith("Retrying request") and isinstance(args, tuple) and len(args) > 1:
            if self.status is not None:  # a lost connection ends in one error line instead
                self.listener.notice(retry_notice(self.status, float(args[1])))
            self.status = None


def retry_notice(status: int, wait: float) -> str:
    """'planloop is rate limited by the API (429); it retries in 20 s, at 14:03:27.'"""
    at = time.strftime("%H:%M:%S", time.localtime(time.time() + wait))
    when = f"retrying in {wait:.0f} s, at {at}"
    if status == 429:
        return f"planloop is rate limited by the API (429); {when}."
    if status == 529:
        return f"The API is overloaded (529); {when}."
    if status is not None and status >= 500:
        return f"The API had an internal error ({status}); {when}."
    return f"The request failed ({status}); {when}."


@contextlib.contextmanager
def retries_announced(listener: UI) -> Iterator[None]:
    handler = RetryNotices(listener)
    loggers = [logging.getLogger(name) for name in (SDK_LOGGER, HTTP_LOGGER)]
    for logger in loggers:
        if logger.getEffectiveLevel() > logging.INFO:
            # Raised once and left there: records are made, and no handler of ours prints
            # them outside a call. Setting a level clears every logger's cache, which cost
            # about 0.2 ms a call when it was set and reset around each one.
            logger.setLevel(logging.INFO)
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def describe_api_error(
    err: anthropic.APIStatusError, client: anthropic.AsyncAnthropic, tries: int = 1
) -> str:
    """One line for a person: what the API said and what to do about it."""
    import anthropic

    from redaction import redact

    body = err.body if isinstance(err.body, dict) else {}
    # A proxy or gateway may echo the request's headers into its error: the key among them.
    detail = redact((body.get("error") or {}).get("message") or str(err))
    if isinstance(err, anthropic.AuthenticationError):
        return f"The API rejected the key ({detail}). Check ANTHROPIC_API_KEY."
    if isinstance(err, anthropic.PermissionDeniedError):
        return f"The key may not use this model or endpoint ({detail})."
    if isinstance(err, anthropic.NotFoundError):
        return f"Not found at {client.base_url} ({detail}). Check MODEL_ID and ANTHROPIC_BASE_URL."
    if isinstance(err, anthropic.BadRequestError):
        return f"The API rejected the request: {detail}"
    if is_mid_stream(err):  # the status is the stream's 200: the error event says what failed
        kind = error_kind(err) or "error"
        times = f", {tries} times" if tries > 1 else ""
        return f"The API's reply broke off ({kind}: {detail}{times}). Try again in a moment."
    if err.status_code == 429:
        return f"Rate limited by the API (429): {detail}. Wait a moment and try again."
    return f"API error {err.status_code}: {detail}"
