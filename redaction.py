"""Keeping the API key and token out of what planloop writes to disk and sends to the model.

    a session record --redact------------------------------> <id>.jsonl
    a task's output  --StreamRedactor (piece by piece)-----> <id>.tasks/bg-1.out
    a request        --redact_request----------------------> the model

A text that is cut (a long line, a command's output, a transcript) is redacted before the cut:
cut first, a secret across the cut keeps all but one end, which no later redaction finds.

A secret is the value of ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (and any value handed to
`add_secret`), at least MIN_SECRET_CHARS long: a shorter one would blank out ordinary words.
What is caught: the value itself, its JSON-escaped form, and in a stream the value split
between two pieces (a command's output arrives in pieces of any size). What is not: the value
transformed (base64, URL-encoded, reversed, a part of it). A command that can read the key can
always print it some other way; this keeps the key out of the files by accident, not by force.

A file planloop itself reads for the model (read_file, an instruction file, piped input) is
another matter: no command chose its form, and the key-copy search (tools/key_copies.py) judges
files by more forms than the plain one, UTF-16, UTF-32 and base64 (a Kubernetes Secret). What
the search would find the sandbox hides from commands, so those readers take out every form
the search knows (`file_forms`, `redact_bytes`), not only the plain ones.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Sequence
from typing import AnyStr

from conversation import opens_with_thinking

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 8
_added: set[str] = set()  # secrets that are not in the environment (e.g. read from a file)


def add_secret(value: str) -> None:
    """Treat `value` as a secret too (a key planloop holds without it being in os.environ)."""
    if len(value) >= MIN_SECRET_CHARS:
        _added.add(value)


def secret_values() -> list[str]:
    """Every form of every secret to look for, longest first (a longer one may hold a shorter)."""
    from settings import known_secrets  # the environment's and a workspace .env's key and token

    return list(_forms_of(frozenset((*known_secrets(), *_added))))


@functools.lru_cache(maxsize=8)
def _forms_of(values: frozenset[str]) -> tuple[str, ...]:
    # Asked for several times a turn (each session record, each file window) for the same
    # few values: the JSON forms and the order are worked out once per set of secrets.
    forms = set()
    for value in values:
        if len(value) >= MIN_SECRET_CHARS:
            forms |= {value, json.dumps(value, ensure_ascii=False)[1:-1]}
    return tuple(sorted(forms, key=len, reverse=True))


# The encodings a text file may hold a secret in besides UTF-8 (and the ASCII-compatible ones,
# which give a key the same bytes): Windows PowerShell 5 writes UTF-16 with `echo ... > .env`.
WIDE_ENCODINGS = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")


def secret_encodings(secrets: list[str] | None = None) -> list[tuple[bytes, bytes]]:
    """(a secret's bytes, REDACTED's bytes in the same encoding) for every secret in UTF-8 and
    in each of WIDE_ENCODINGS, longest first: what to look for in a file's raw bytes."""
    found = secret_values() if secrets is None else secrets
    return list(_encodings_of(tuple(found)))


@functools.lru_cache(maxsize=8)
def _encodings_of(found: tuple[str, ...]) -> tuple[tuple[bytes, bytes], ...]:
    # Asked for with every file judged and every window read_file shows: once per key.
    pairs = {
        (value.encode(encoding), REDACTED.encode(encoding))
        for value in found
        for encoding in ("utf-8", *WIDE_ENCODINGS)
    }
    return tuple(sorted(pairs, key=lambda pair: len(pair[0]), reverse=True))


def file_encodings(secrets: list[str] | None = None) -> list[tuple[bytes, bytes]]:
    """`secret_encodings`, and each form the key-copy search looks for besides (base64: a
    Kubernetes Secret holds the key so) with REDACTED in ASCII, longest first: every form of a
    secret in a file's bytes that a reader for the model takes out."""
    from tools.key_copies import search_secrets_of  # late: that module imports this one

    pairs = dict(secret_encodings(secrets))
    found = secret_values() if secrets is None else secrets
    for form in search_secrets_of(found):
        pairs.setdefault(form, REDACTED.encode())
    return sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)


def file_forms(secrets: list[str] | None = None) -> list[str]:
    """Every form of every secret to take out of a file's text shown to the model, longest
    first: `secret_values`, and each form the key-copy search looks for in bytes as a UTF-8
    reading shows it (base64; UTF-16 and UTF-32 with a NUL beside each character of an ASCII
    key, as in a file with a text head and a wide line further down)."""
    found = secret_values() if secrets is None else secrets
    return list(_file_forms_of(frozenset(found)))


@functools.lru_cache(maxsize=8)
def _file_forms_of(values: frozenset[str]) -> tuple[str, ...]:
    # Asked for once a file window, for the same few secrets: worked out once per set.
    forms = set(_forms_of(values))
    for form, _ in file_encodings(sorted(values)):
        text = form.decode("utf-8", errors="replace")
        if "\ufffd" not in text:  # a form no UTF-8 reading shows as it is
            forms.add(text)
    return tuple(sorted(forms, key=len, reverse=True))


def redact_bytes(data: bytes, secrets: list[str] | None = None) -> bytes:
    """`data` with every secret, in any form of `file_encodings`, replaced by REDACTED in that
    encoding: for raw bytes a text redaction cannot see (a file in UTF-16, a key in base64)."""
    for secret, redacted in file_encodings(secrets):
        data = data.replace(secret, redacted)
    return data


def longest_secret_bytes() -> int:
    """How far past a cut to read, so that a secret that starts before it is read whole."""
    return max((len(secret) for secret, _ in file_encodings()), default=0)


def cut_bytes_redacted(data: bytes, limit: int, *, whole: bool) -> bytes:
    """The first `limit` bytes of `data`, redacted before the cut (`redact_bytes`).

    Unless `data` is `whole` (all there was), an end of it that a secret begins with is left
    out before the cut too: the secret may go on past what was read. Read
    `longest_secret_bytes` past `limit`, so that a secret begun before the cut ends in `data`.
    """
    data = redact_bytes(data)
    if not whole:
        data = data[: len(data) - start_of_a_secret(data, [s for s, _ in file_encodings()])]
    return data[:limit]


def redact(text: str, secrets: list[str] | None = None) -> str:
    """`text` with every secret replaced by REDACTED."""
    for secret in secret_values() if secrets is None else secrets:
        text = text.replace(secret, REDACTED)
    return text


@functools.lru_cache(maxsize=8)
def secret_pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regular expression that finds any of `secrets` (None for none): for telling whether
    a line holds one at all, one search where `redact` scans once per secret. Not for large
    texts, where those scans are the faster."""
    return re.compile("|".join(map(re.escape, secrets))) if secrets else None


class StreamRedactor:
    """Redacts a byte stream that arrives in pieces, such as a command's output.

    A piece that ends with the first bytes of a secret keeps those bytes back until the next
    piece shows whether the secret goes on; `end` lets out what is still kept back.
    """

    def __init__(self, secrets: list[str] | None = None) -> None:
        found = secret_values() if secrets is None else secrets
        self.secrets = sorted({s.encode() for s in found}, key=len, reverse=True)
        self.held = b""

    def feed(self, data: bytes) -> bytes:
        """The bytes that are safe to write now."""
        if not self.secrets:
            return data
        data = self.held + data
        for secret in self.secrets:
            data = data.replace(secret, REDACTED.encode())
        keep = self.start_of_a_secret(data)
        self.held = data[len(data) - keep :] if keep else b""
        return data[: len(data) - keep]

    def end(self) -> bytes:
        """The stream is over: what was kept back is not a secret after all."""
        held, self.held = self.held, b""
        return held

    def start_of_a_secret(self, data: bytes) -> int:
        """The length of the longest end of `data` that a secret begins with."""
        return start_of_a_secret(data, self.secrets)


def start_of_a_secret(data: AnyStr, secrets: Sequence[AnyStr]) -> int:
    """The length of the longest end of `data` that one of `secrets` begins with, shorter than
    the secret: what to leave out of a text cut off there, as the rest may be the secret's."""
    if not secrets:
        return 0
    longest = min(len(data), max(len(s) for s in secrets) - 1)
    for size in range(longest, 0, -1):
        tail = data[-size:]
        if any(secret.startswith(tail) for secret in secrets):
            return size
    return 0


THINKING_TYPES = ("thinking", "redacted_thinking")


def redact_request(
    request: dict, secrets: list[str] | None = None, memo: dict | None = None
) -> tuple[dict, bool]:
    """A copy of a request with the secrets redacted from its system prompt and messages, and
    whether a thinking block was left out.

    The history may hold a secret that was none when it was written: a session saved under
    another key and resumed under this one. Thinking blocks are never changed (their signature
    covers their text): one that holds a secret is left out of the request instead, as the API
    allows for a thinking block (the caller turns thinking off for a request whose tool loop
    then no longer opens with one). Redacted thinking is encrypted and holds no text to find.

    `memo` (one per conversation, `RequestRedactor`) keeps the last request's messages and
    their redacted copies: a transcript grows at its end, so a request shares all but its last
    messages with the one before, and redacting the whole history again would cost more every
    turn of a long session. A copy is taken from it only for the very same object at the same
    place, and only for a message that was not one of the last RECENT_MESSAGES then either
    (a turn may still change those in place).
    """
    found = secret_values() if secrets is None else secrets
    if not found:
        return request, False
    copy = dict(request)
    if "system" in copy:
        copy["system"] = _redacted(copy["system"], found)
    messages = copy.get("messages")
    if not isinstance(messages, list):
        return copy, False
    memo = {} if memo is None else memo
    before = memo.get("messages", [])
    reusable = max(0, min(len(before), len(messages)) - RECENT_MESSAGES)
    # Nearly always the whole settled part is the same objects: compared and copied as slices,
    # at C speed, one message at a time only when something in it was replaced.
    if all(map(operator.is_, before[:reusable], messages[:reusable])):
        sent, dropped = memo.get("sent", [])[:reusable], memo.get("dropped", [])[:reusable]
    else:
        sent, dropped = [], []
        for index in range(reusable):
            if before[index] is messages[index]:
                sent.append(memo["sent"][index])
                dropped.append(memo["dropped"][index])
            else:
                reviewed, left_out = _redacted_message(messages[index], found)
                sent.append(reviewed)
                dropped.append(left_out)
    for entry in messages[reusable:]:
        reviewed, left_out = _redacted_message(entry, found)
        sent.append(reviewed)
        dropped.append(left_out)
    memo.update(messages=list(messages), sent=sent, dropped=dropped)
    copy["messages"] = list(sent)
    return copy, any(dropped)


RECENT_MESSAGES = 2  # the last user and assistant messages: redacted afresh every request


def _redacted_message(entry: object, secrets: list[str]) -> tuple[object, bool]:
    """One message redacted, and whether a thinking block holding a secret was left out."""
    content = entry.get("content") if isinstance(entry, dict) else None
    if not isinstance(content, list):
        return _redacted(entry, secrets), False
    blocks = [block for block in content if not _thinking_with_secret(block, secrets)]
    redacted = [_redacted(block, secrets) for block in blocks] or [
        {"type": "text", "text": REDACTED}
    ]
    return {**entry, "content": redacted}, len(blocks) < len(content)


def _thinking_with_secret(block: object, secrets: list[str]) -> bool:
    if not (isinstance(block, dict) and block.get("type") == "thinking"):
        return False
    text = block.get("thinking")
    return isinstance(text, str) and any(secret in text for secret in secrets)


class RequestRedactor:
    """Each request of one conversation, redacted for this run's key (`redact_request`, with
    its memo; a new key starts the memo again).

    When a thinking block had to be left out and the open tool loop no longer starts with
    one, the request goes without thinking: the API refuses thinking for a tool loop whose
    assistant turn does not open with a thinking block.
    """

    def __init__(self) -> None:
        self.secrets: list[str] | None = None
        self.memo: dict[str, list] = {}

    def __call__(self, request: dict) -> dict:
        secrets = secret_values()
        if secrets != self.secrets:
            self.secrets, self.memo = secrets, {}
        request, dropped_thinking = redact_request(request, secrets, self.memo)
        if (
            dropped_thinking
            and "thinking" in request
            and not opens_with_thinking(request["messages"])
        ):
            request = {key: value for key, value in request.items() if key != "thinking"}
        return request


def _redacted(value: object, secrets: list[str]) -> object:
    """`value` (a str, or a list or dict of them) redacted; thinking blocks as they are."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [_redacted(item, secrets) for item in value]
    if isinstance(value, dict):
        if value.get("type") in THINKING_TYPES:
            return value
        return {key: _redacted(item, secrets) for key, item in value.items()}
    return value
