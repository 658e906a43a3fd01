"""The fake Messages API server: a scripted, validating stand-in on 127.0.0.1.

Tests start a :class:`FakeMessagesAPI` with a script of replies, point the real ``anthropic``
SDK at its ``base_url`` and let the harness talk to it. Every ``POST /v1/messages`` is
recorded; a request that the real API would refuse is answered with the same kind of 400
(see :mod:`fakeapi.validate`) and its message kept in ``rejections``; a valid one consumes the
next script entry and gets it as JSON or, when the body asks for ``"stream": true``, as
server-sent events.

Mind the SDK's own retries: it retries 408, 409, 429 and 5xx (529 included) up to
``max_retries`` times (2 by default) before raising, and each retry is a new request that
consumes a script entry. A test that scripts one 529 and expects the harness to see it should
build its client with ``max_retries=0``; one that scripts an error and then a success is
exercising the SDK's retry unless it does the same.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from .replies import (
    HTTPErrorReply,
    MessageReply,
    Reply,
    ScriptEntry,
    StreamErrorReply,
    check_entry,
    new_message_id,
    parse_reply,
    render_message,
)
from .signing import ThinkingSigner
from .sse import Event, encode_event, message_events, stream_error_events
from .validate import RequestRejected, validate_request

MESSAGES_PATH = "/v1/messages"


class FakeMessagesAPI:
    """A local Messages API that serves a script and refuses invalid requests.

    Use it as a context manager (or call :meth:`start` and :meth:`stop`). The recorded
    traffic is kept in plain lists, in arrival order:

    * ``requests``: the body of every ``POST /v1/messages``, valid or not (parsed JSON, or the
      raw text when it did not parse);
    * ``headers``: that request's headers with lower-cased names, index for index;
    * ``accepted``: the bodies that passed validation and were given a script entry;
    * ``rejections``: the error message of every request the fake refused.

    With ``context_limit`` (tokens) a prompt longer than that is refused as the real API
    refuses it: HTTP 400, ``invalid_request_error``, ``prompt is too long: N tokens > M
    maximum``. The count is the same one reported as ``usage.input_tokens`` (four bytes of
    request body a token), so a harness that watches its usage sees the limit coming.
    """

    def __init__(
        self,
        script: Iterable[ScriptEntry] = (),
        api_key: str = "test-key",
        context_limit: int | None = None,
        clock: Callable[[], float] = time.perf_counter,
        keep_alive: bool = False,
    ) -> None:
        self.api_key = api_key
        # Streams chunked on a kept connection, as the real API does. Off by default: most tests
        # build an agent around their own client and asyncio.run() each input, and a kept
        # connection belongs to the loop that opened it (see Agent.client_for_this_loop).
        self.keep_alive = keep_alive
        self.clock = clock  # stamps `timings`; a bench may note more at each stamp
        self.context_limit = context_limit
        self.requests: list[Any] = []
        self.headers: list[dict[str, str]] = []
        self.accepted: list[dict[str, Any]] = []
        self.rejections: list[str] = []
        # (arrived, answered) perf_counter times of each request: its headers read, its reply
        # written. The gap from one reply to the next request is the client's own time.
        self.timings: list[tuple[float, float]] = []
        # Set when a client went away before its whole reply was written (Ctrl-C does this).
        self.client_hung_up = threading.Event()
        self._script: deque[ScriptEntry] = deque()
        self._lock = threading.Lock()
        self._signer = ThinkingSigner()
        self._paused: set[str] = set()  # signatures of the replies sent with pause_turn
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        for entry in script:
            self.add(entry)

    def add(self, reply: ScriptEntry) -> None:
        """Append a reply, or a callable ``fn(body) -> reply``; safe while the server runs."""
        check_entry(reply)
        with self._lock:
            self._script.append(reply)

    @property
    def remaining(self) -> int:
        """How many script entries are still unserved."""
        with self._lock:
            return len(self._script)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        if self._server is None:
            raise RuntimeError("the fake API is not running; call start() or use `with`")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeMessagesAPI:
        """Listen on a free port of 127.0.0.1 and serve from a daemon thread."""
        if self._server is not None:
            raise RuntimeError("the fake API is already running")
        self._server = _Server(self)
        # A short poll interval keeps stop() quick; tests start and stop a server each.
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fakeapi",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop open connections; the recorded lists stay readable."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        server.shutdown()
        server.close_connections()
        server.server_close()
        thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # The request handler's side: recording and taking entries, each under the lock.

    def _record(self, body: Any, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)

    def _remember_paused(self, content: list[dict[str, Any]]) -> None:
        with self._lock:
            self._paused.add(self._signer.sign(json.dumps(content, sort_keys=True)))

    def _was_paused(self, content: object) -> bool:
        """Whether `content` is, unchanged, a reply this server paused (pause_turn).

        A cache breakpoint on its blocks is no change: it marks where the cache ends.
        """
        if not isinstance(content, list):
            return False
        plain = _without_cache_marks(content)
        with self._lock:
            return self._signer.sign(json.dumps(plain, sort_keys=True)) in self._paused

    def _record_rejection(self, message: str) -> None:
        with self._lock:
            self.rejections.append(message)

    def _take(self, body: dict[str, Any]) -> ScriptEntry:
        with self._lock:
            if not self._script:
                raise RequestRejected("fake script exhausted: no reply left for this request")
            self.accepted.append(body)
            return self._script.popleft()

    def _check_context_limit(self, input_tokens: int) -> None:
        limit = self.context_limit
        if limit is not None and input_tokens > limit:
            raise RequestRejected(f"prompt is too long: {input_tokens} tokens > {limit} maximum")

    def _check_headers(self, headers: dict[str, str]) -> None:
        if (
            headers.get("x-api-key") != self.api_key
            and headers.get("authorization") != f"Bearer {self.api_key}"
        ):
            raise RequestRejected(
                "invalid x-api-key", status=401, error_type="authentication_error"
            )
        if not headers.get("anthropic-version"):
            raise RequestRejected("anthropic-version: header is required")


class _Server(ThreadingHTTPServer):
    """A threading HTTP server that knows its fake and can close its open connections."""

    daemon_threads = True

    def __init__(self, api: FakeMessagesAPI) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api = api
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        # A stream is many small writes: with Nagle's algorithm each waits for the client's
        # delayed acknowledgement (up to 40 ms), which the real API's streams do not.
        with contextlib.suppress(OSError):
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        # Kept-alive client connections would otherwise hold a handler thread each until
        # the client goes away; shutting the sockets down ends those threads now.
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 so the SDK can keep JSON connections alive, as it does with the real API.
    protocol_version = "HTTP/1.1"
    server: _Server
    _responding = False  # whether a status line has gone out for the current request

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet; what matters is recorded on the fake itself."""

    def do_POST(self) -> None:
        self._responding = False  # a kept-alive connection reuses the handler
        arrived = self.server.api.clock()
        try:
            self._handle()
            self.wfile.flush()
            self.server.api.timings.append((arrived, self.server.api.clock()))
        except (BrokenPipeError, ConnectionResetError):
            # The client hung up before the reply went out: its choice, not a fault of the fake.
            self.close_connection = True
            self.server.api.client_hung_up.set()
        except Exception as err:
            # A fault in the fake itself must fail the test, not look like a network blip
            # that the SDK quietly retries: record it, and answer a final 500 if still possible.
            message = f"fake server error: {err!r}"
            self.server.api._record_rejection(message)
            if self._responding:
                raise
            self._send_error(500, "api_error", message, {"x-should-retry": "false"})

    # Other methods go through the same path so that they get the API's 404 envelope.
    do_GET = do_PUT = do_PATCH = do_DELETE = do_POST

    def _handle(self) -> None:
        api = self.server.api
        raw = self._read_body()
        if raw is None:
            return
        path = urlsplit(self.path).path
        if self.command != "POST" or path != MESSAGES_PATH:
            api._record_rejection(f"{self.command} {path}: Not Found")
            self._send_error(404, "not_found_error", "Not Found")
            return

        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            body: Any = json.loads(raw)
            parse_error = None
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            body, parse_error = raw.decode("utf-8", "replace"), err
        api._record(body, headers)

        try:
            api._check_headers(headers)
            if parse_error is not None:
                raise RequestRejected(f"body: the request body is not valid JSON: {parse_error}")
            validate_request(body, api._signer.verify, api._was_paused)
            input_tokens = count_input_tokens(raw)
            api._check_context_limit(input_tokens)
            entry = api._take(body)
        except RequestRejected as err:
            api._record_rejection(err.message)
            self._send_error(err.status, err.error_type, err.message)
            return

        if callable(entry):
            try:
                reply: Reply = parse_reply(entry(body))
            except Exception as err:
                message = f"fake script callable failed: {err!r}"
                api._record_rejection(message)
                # The SDK would retry a 500 into the next script entry; tell it not to.
                self._send_error(500, "api_error", message, {"x-should-retry": "false"})
                return
        else:
            reply = parse_reply(entry)
        self._send_reply(reply, body, input_tokens=input_tokens)

    def _read_body(self) -> bytes | None:
        """The request body, or None after refusing a body the fake cannot frame."""
        problem = None
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            problem = "chunked request bodies are not supported"
        else:
            try:
                length = int(self.headers.get("Content-Length", "0"))
            except ValueError:
                length = -1
            if length < 0:
                problem = "invalid Content-Length header"
        if problem is not None:
            # The unread body would be taken for the next request; drop the connection.
            self.close_connection = True
            self.server.api._record_rejection(problem)
            self._send_error(400, "invalid_request_error", problem)
            return None
        return self.rfile.read(length)

    def _send_reply(self, reply: Reply, body: dict[str, Any], *, input_tokens: int) -> None:
        streamed = body.get("stream") is True
        if isinstance(reply, HTTPErrorReply):
            self._send_error(
                reply.status, reply.error["type"], reply.error["message"], reply.headers
            )
            return
        context = {
            "message_id": new_message_id(),
            "model": body["model"],
            "input_tokens": input_tokens,
            "sign": self.server.api._signer.sign,
        }
        if isinstance(reply, StreamErrorReply):
            if streamed:
                self._send_stream(stream_error_events(reply, **context))
            else:
                # Without a stream the response has not begun, so the error is a plain one.
                self._send_error(reply.status, reply.error["type"], reply.error["message"])
        elif isinstance(reply, MessageReply):
            if reply.stop_reason == "pause_turn":
                content = render_message(reply, **context)["content"]
                last = body["messages"][-1]
                if last["role"] == "assistant":  # paused again: the turn so far, then this
                    content = _without_cache_marks(last["content"]) + content
                self.server.api._remember_paused(content)
            if streamed:
                self._send_stream(message_events(reply, **context))
            else:
                self._send_json(200, render_message(reply, **context))

    def _send_json(
        self,
        status: int,
        payload: dict[str, Any],
        extra_headers: dict[str, str] | None = None,
        request_id: str | None = None,
    ) -> None:
        data = json.dumps(payload).encode()
        self._responding = True
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", request_id or _request_id())
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(
        self,
        status: int,
        error_type: str,
        message: str,
        extra_headers: dict[str, str] | None = None,
    ) -> None:
        request_id = _request_id()
        payload = {
            "type": "error",
            "error": {"type": error_type, "message": message},
            "request_id": request_id,
        }
        self._send_json(status, payload, extra_headers, request_id)

    def _send_stream(self, events: Iterator[Event]) -> None:
        # With keep_alive: chunked, the connection kept for the next request, as the real API
        # streams. Without: no Content-Length, so the stream ends when the connection closes.
        chunked = self.server.api.keep_alive
        self.close_connection = not chunked
        self._responding = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
        self.send_header("request-id", _request_id())
        self.end_headers()
        try:
            for name, data in events:
                event = encode_event(name, data)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event) if chunked else event)
                self.wfile.flush()
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            # The client stopped reading (a harness may abandon a stream); nothing to do.
            self.close_connection = True
            self.server.api.client_hung_up.set()
        except BaseException:
            # A stream that ends in the middle must look cut to the client, not complete.
            self.close_connection = True
            raise


def _without_cache_marks(content: list[Any]) -> list[Any]:
    return [
        {k: v for k, v in block.items() if k != "cache_control"}
        if isinstance(block, dict)
        else block
        for block in content
    ]


def count_input_tokens(raw: bytes) -> int:
    """The fake's token count of a request: about four bytes of JSON body a token."""
    return max(1, len(raw) // 4)


def _request_id() -> str:
    return f"req_{uuid.uuid4().hex[:24]}"
