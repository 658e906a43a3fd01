"""planloop's own settings: the key (or token), the endpoint and the model.

    your environment        (trusted)    --+
                                           +--> Settings(api_key, auth_token, base_url, model)
    the workspace's .env    (untrusted)  --+        passed to the SDK client explicitly

A workspace is untrusted: a cloned repository may ship a `.env` written to steer whoever
runs an agent in it. So the file is only *read*, never loaded into `os.environ`, and only
planloop's own names are taken from it:

- the key or the auth token, and the model, when your environment does not set them; only
  one of the two (the key, as the SDK prefers it): a committed template where you fill in
  `ANTHROPIC_API_KEY=` may set `ANTHROPIC_AUTH_TOKEN` to a value of its own choosing, and what
  planloop holds as a credential it redacts and searches the disk for (`credential_like`);
- the endpoint (`ANTHROPIC_BASE_URL`) only together with a key or token from that same file,
  so a repository can send its own key where it likes but never yours; and even then only
  once you have confirmed it for that folder (asked once in a terminal, remembered in
  planloop's home): a repository's committed `.env` template that ends with its own
  endpoint would otherwise receive the key you typed into its `ANTHROPIC_API_KEY=` line;
- nothing else: not `PLANLOOP_HOME` (a repository must not choose where your sessions and
  history are kept), not `LD_PRELOAD`, `BASH_ENV` or any other variable of planloop or of
  the commands it runs (those get an environment built on purpose, tools/environment.py).

Your environment always wins over the file. The values decided here go to the SDK client
as arguments (model.py), so the SDK's own look-ups in `os.environ` only ever find yours.

`make_undumpable` keeps the key out of reach of a command run without the sandbox: another
process of the same user can no longer read planloop's memory or `/proc/<pid>/environ`.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from dotenv_text import dotenv_values
from redaction import MIN_SECRET_CHARS

API_KEY = "ANTHROPIC_API_KEY"
AUTH_TOKEN = "ANTHROPIC_AUTH_TOKEN"
BASE_URL = "ANTHROPIC_BASE_URL"
MODEL = "MODEL_ID"
HOME = "PLANLOOP_HOME"  # read from the environment only (session.py)
CONFIRMED_FOLDER = "endpoints"  # in planloop's home: the endpoints you confirmed, per folder
MAX_CONFIRMED_BYTES = 64 * 1024
PR_SET_DUMPABLE = 4  # from <linux/prctl.h>

# The key and token values this process has seen, so every record planloop writes can be
# scrubbed of them, also those that came from a .env and never entered os.environ.
_seen_secrets: set[str] = set()


class SettingsError(Exception):
    """The workspace's .env cannot be read; str() is one line saying what to do."""


@dataclass(frozen=True)
class Settings:
    """Where the model calls go and with which credentials; `notices` tell the person why
    something in the workspace's .env was left out."""

    api_key: str | None = field(default=None, repr=False)  # never in a printed error
    auth_token: str | None = field(default=None, repr=False)
    base_url: str | None = None
    model: str | None = None
    notices: tuple[str, ...] = ()
    # The endpoint the workspace's .env chose and you have not confirmed for this folder: no
    # request may go out until you do (`require_confirmed_endpoint`).
    unconfirmed_endpoint: str | None = None
    # Said at start when the model came from the workspace's .env (and no --model replaced it).
    model_notice: str | None = None

    @property
    def has_credentials(self) -> bool:
        return bool(self.api_key or self.auth_token)

    def client_options(self) -> dict[str, str | None]:
        """The SDK client's arguments: one credential (the key wins, as in the SDK) and the
        endpoint (None: the SDK's default)."""
        credential = {"api_key": self.api_key} if self.api_key else {"auth_token": self.auth_token}
        return {**credential, "base_url": self.base_url}


def read_settings(workspace: Path | None, environ: Mapping[str, str] = os.environ) -> Settings:
    """planloop's settings from `environ` and, if `workspace` is given, its `.env` file.

    Raises SettingsError for a `.env` that is not a readable UTF-8 text file.
    """

    def own(name: str) -> str | None:
        return environ.get(name) or None  # an empty variable counts as unset

    path = workspace / ".env" if workspace is not None else None
    unparsed: list[int] = []
    workspace_file = read_dotenv(path, unparsed) if path is not None else {}

    def from_file(name: str) -> str | None:
        return workspace_file.get(name) or None

    notices = []
    if unparsed:  # one line, however many: python-dotenv itself warns once a line
        which = f"line {unparsed[0]}" if len(unparsed) == 1 else f"lines {unparsed[0]} and on"
        count = "" if len(unparsed) == 1 else f" ({len(unparsed)} in all)"
        notices.append(f"{path}: {which} could not be parsed{count}, and set nothing.")
    unconfirmed: str | None = None
    credentials_are_yours = bool(own(API_KEY) or own(AUTH_TOKEN))
    if credentials_are_yours:  # both from your environment: a file cannot add the other one
        api_key, auth_token = trimmed(own(API_KEY)), trimmed(own(AUTH_TOKEN))
    else:
        api_key, auth_token = trimmed(from_file(API_KEY)), trimmed(from_file(AUTH_TOKEN))
        if api_key and auth_token:
            notices.append(
                f"Ignored {AUTH_TOKEN} in {path}: a folder's .env gives one credential, and "
                f"its {API_KEY} is used."
            )
            auth_token = None
    base_url = own(BASE_URL)
    if from_file(BASE_URL) and credentials_are_yours:
        notices.append(
            f"Ignored {BASE_URL} in {path}: a folder's .env may choose the endpoint only "
            "for a key in that same file, and yours comes from your environment."
        )
    elif base_url is None and from_file(BASE_URL):
        base_url = from_file(BASE_URL)
        # The key in that file may be yours all the same: a repository's committed template
        # asks you to fill in `ANTHROPIC_API_KEY=` and sets its own endpoint further down. So
        # the endpoint is used only once you have confirmed it for this folder.
        if not endpoint_confirmed(workspace, base_url):
            unconfirmed = base_url
        # Allowed, but the whole conversation goes there: what you type, every file read and
        # every command's output. Say so, once, at start.
        notices.append(
            f"Using {BASE_URL} from {path} ({shown_endpoint(base_url)}), with the key in that "
            "same file: this conversation, with what it reads and runs, goes to that endpoint."
        )
    if from_file(HOME):
        notices.append(
            f"Ignored {HOME} in {path}: planloop's home is set only in your environment."
        )
    model_notice = None
    if not own(MODEL) and from_file(MODEL):
        # The model decides what the key pays for and, behind a routing endpoint, which
        # provider gets the conversation: a repository's choice is said, like its endpoint.
        model_notice = f"Using {MODEL} from {path} ({from_file(MODEL)}); --model replaces it."
    # Yours are secrets whatever they look like; a value of the file only when it could be a
    # credential at all, not a word or a piece of code the repository chose to blank out of
    # what the model reads and to have the disk searched for (and hidden from commands).
    _seen_secrets.update(
        value
        for value in (api_key, auth_token)
        if value and (credentials_are_yours or credential_like(value))
    )
    return Settings(
        api_key=api_key,
        auth_token=auth_token,
        base_url=base_url,
        model=own(MODEL) or from_file(MODEL),
        notices=tuple(notices),
        unconfirmed_endpoint=unconfirmed,
        model_notice=model_notice,
    )


def trimmed(credential: str | None) -> str | None:
    """A key or token without the blanks around it (` sk-ant-...`, a line end pasted along):
    what the API takes, and what redaction then finds in every copy, the padded ones too."""
    return (credential or "").strip() or None


def credential_like(value: str) -> bool:
    """Whether `value`, given by a workspace's `.env`, may be a key or token: at least
    MIN_SECRET_CHARS long, nothing but printable characters without a space, and of two kinds
    of character at least (letters, digits, signs). Keys and tokens are made so (`sk-ant-api03-`
    and random text, a gateway's hex, `test-key`); a word (`function`), a number, blanks or
    a line of code with spaces in it are what text is made of, and a repository could choose
    one to steer what is redacted and searched for."""
    if len(value) < MIN_SECRET_CHARS or not value.isprintable() or " " in value:
        return False
    kinds = {"letter" if c.isalpha() else "digit" if c.isdigit() else "sign" for c in value}
    return len(kinds) >= 2


def shown_endpoint(url: str) -> str:
    """`url` as the person must read it before the key goes there: each character beyond
    printable ASCII written out (`<U+043E>`), and then the host the client connects to. A
    look-alike (`api.anthropic.com` with a Cyrillic `o`, U+043E, for the Latin one) is another
    domain to the client (`api.xn--anthrpic-rbh.com`), one anybody could own."""
    if url.isascii() and url.isprintable():
        return url
    written = "".join(c if c.isascii() and c.isprintable() else f"<U+{ord(c):04X}>" for c in url)
    try:
        host = (urlsplit(url).hostname or "").encode("idna").decode("ascii")
    except (UnicodeError, ValueError):
        host = "none that can be written in ASCII"
    return f"{written} (not plain ASCII: the host it connects to is {host or 'not given'})"


def require_confirmed_endpoint(settings: Settings) -> None:
    """Raise SettingsError, before anything is sent, when the endpoint came from the
    workspace's .env and you have not confirmed it for that folder."""
    if settings.unconfirmed_endpoint is not None:
        raise SettingsError(
            f"this folder's .env sends your key and this conversation to "
            f"{shown_endpoint(settings.unconfirmed_endpoint)} ({BASE_URL}); nothing was sent. "
            "To use it, start "
            f"planloop once in this folder in a terminal (without -p) and confirm, or set "
            f"{BASE_URL} in your own environment."
        )


def confirmed_endpoints_file(workspace: Path) -> Path:
    """Where the endpoints you confirmed for `workspace` are kept: in planloop's home, which
    only your environment chooses, named like the folder's sessions."""
    from session import planloop_home, sessions_dir  # late: session.py imports the tools

    return planloop_home() / CONFIRMED_FOLDER / f"{sessions_dir(workspace).name}.json"


def endpoint_confirmed(workspace: Path | None, url: str) -> bool:
    """Whether you confirmed `url` as the endpoint of `workspace`'s .env."""
    return workspace is not None and url in confirmed_endpoints(workspace)


def confirmed_endpoints(workspace: Path) -> list[str]:
    """The endpoints you confirmed for `workspace`. A record that is a link, belongs to someone
    else, can be written by others or names another folder counts as none."""
    path = confirmed_endpoints_file(workspace)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return []
    with os.fdopen(descriptor, "rb") as file:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIRMED_BYTES:
            return []
        if info.st_uid != os.geteuid() or info.st_mode & 0o022:
            return []
        data = file.read(MAX_CONFIRMED_BYTES + 1)
    try:
        saved = json.loads(data)
    except ValueError:
        return []
    if not isinstance(saved, dict) or saved.get("workspace") != str(workspace.resolve()):
        return []
    endpoints = saved.get("endpoints")
    return [url for url in endpoints if isinstance(url, str)] if isinstance(endpoints, list) else []


def confirm_endpoint(workspace: Path, url: str) -> Path:
    """Remember that you confirmed `url` as the endpoint of `workspace`'s .env; return the
    record's path (0600, in planloop's 0700 home)."""
    from session import write_private_json

    path = confirmed_endpoints_file(workspace)
    endpoints = [*[known for known in confirmed_endpoints(workspace) if known != url], url]
    record = {"workspace": str(workspace.resolve()), "endpoints": endpoints}
    write_private_json(path, record, ".endpoints-")
    return path


# A .env is a few lines; one larger than this is refused, not read in part (its key may be at
# its end) nor whole (a repository's gigabyte of zeros is a megabyte in git, and gigabytes of
# memory to parse).
DOTENV_LIMIT = 16 * 1024 * 1024
# And lines: python-dotenv takes some 10 µs for each, so 16 MiB of short lines took 80 s at
# start. No person's .env has a hundredth of this many.
DOTENV_LINES = 100_000


def read_dotenv(path: Path, unparsed: list[int] | None = None) -> dict[str, str | None]:
    """The variables of a .env file, without expanding `${...}` and without touching os.environ
    (the numbers of lines no dotenv reader can parse go to `unparsed`).

    Expansion is off because it reads os.environ: `MODEL_ID=${AWS_SECRET_ACCESS_KEY}` would
    otherwise carry one of your variables to the file's endpoint. The file is opened without
    blocking and must be a regular file, so a `.env` that is a FIFO or a link to a device
    cannot hang or flood start-up.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return {}
    except OSError as err:
        raise SettingsError(f"cannot read {path} ({err.strerror}); fix or remove it") from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):  # before open(): a folder raises there
        os.close(descriptor)
        raise SettingsError(f"{path} is not a regular file; remove it or make it one")
    with open(descriptor, "rb") as file:
        data = file.read(DOTENV_LIMIT + 1)
    if len(data) > DOTENV_LIMIT:
        raise SettingsError(
            f"{path} is larger than planloop reads ({DOTENV_LIMIT // 1024 // 1024} MiB); "
            "fix or remove it"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SettingsError(f"cannot read {path} ({err}); it must be UTF-8 text") from None
    if text.count("\n") + text.count("\r") > DOTENV_LINES:  # parsed at ~10 µs a line
        raise SettingsError(
            f"{path} has more than {DOTENV_LINES:,} lines, more than planloop reads; fix or "
            "remove it"
        )
    return dotenv_values(text, unparsed)


def remember_secrets(*values: object) -> bool:
    """Count these as planloop's key or token too (a client made by a program that embeds
    planloop holds its own): redacted, searched for and hidden like the ones read here.
    Whether any was a value to remember."""
    found = {value for value in values if isinstance(value, str) and value}
    _seen_secrets.update(found)
    return bool(found)


def known_secrets() -> list[str]:
    """Every key and token value seen so far: the ones settings were read with, and any set in
    the environment now (a program that embeds planloop may set them after start-up)."""
    # Asked for several times a tool call: worked out again only when one of them changed
    # (`_seen_secrets` only grows, so its size tells).
    current = (os.environ.get(API_KEY), os.environ.get(AUTH_TOKEN), len(_seen_secrets))
    if _known[0] != current:
        _known[:] = [current, sorted(_seen_secrets | {value for value in current[:2] if value})]
    return list(_known[1])


_known: list = [None, []]  # (what known_secrets was worked out from, its answer)


def make_undumpable() -> None:
    """Make this process non-dumpable (Linux), so that processes of the same user, such as a
    command run without the sandbox, cannot read its memory or `/proc/<pid>/environ`, where
    the key lives. No core dumps and no debugger attaching as that user, either; root still can.

    Commands are unaffected: the flag is reset when a child executes a program. Elsewhere
    (no prctl) this does nothing.
    """
    import ctypes  # here, not at the top: only a start-up that holds a key needs it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
