"""The environment a command gets: planloop's own, minus what must not reach a command.

    os.environ --drop NEVER_PASSED--> (sandboxed: --drop HOST_SOCKETS and secrets) --> the env

A command runs what it says, and nothing else. The approval box shows the command; a variable
that makes bash, the dynamic loader or an interpreter run code of its own would add code no
one approved. So those are dropped, also from your own environment: a command that needs one
sets it in plain sight (`PYTHONPATH=src pytest`). Everything else passes as it is: PATH, HOME,
LANG, TERM, EDITOR, proxies and the like are yours and commands need them.

bwrap itself is started with this environment too (tools/sandbox.py), so a preloaded library
never runs inside /usr/bin/bwrap, where no sandbox exists yet.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import shutil
import urllib.parse
from collections.abc import Iterable, Mapping
from pathlib import Path

from redaction import file_forms

# Names a command never gets; a trailing "*" drops every name with that prefix.
NEVER_PASSED = (
    # The API key, the auth token and the endpoint: `env` must not leak the key into the
    # conversation, and no command may redirect or use it.
    "ANTHROPIC_*",
    # The dynamic loader: LD_PRELOAD and LD_AUDIT load a library into every program started,
    # LD_LIBRARY_PATH swaps the libraries a program loads.
    "LD_*",
    # glibc: iconv loads its converters, shared libraries, from GCONV_PATH; GLIBC_TUNABLES
    # reconfigures the loader and malloc (the way in of CVE-2023-4911).
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    # bash runs the file named by BASH_ENV before every script (`bash -c` included); sh and
    # an interactive bash in POSIX mode run ENV.
    "BASH_ENV",
    "ENV",
    # Exported bash functions: `BASH_FUNC_ls%%=() { ...; }` replaces `ls` inside the command.
    "BASH_FUNC_*",
    # Shell options at start-up: xtrace with a PS4 of `$(...)` runs code at every line.
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    # Run before each prompt of an interactive shell a command may start.
    "PROMPT_COMMAND",
    # Python: a startup file for interactive sessions, and folders searched first for every
    # import (a sitecustomize.py there runs in every python), or another standard library.
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    # Perl, Ruby, Node and Lua: options that load a module, or run code, in every interpreter.
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "NODE_OPTIONS",
    "LUA_INIT",
    # The JVM: agents (-javaagent) loaded into every java started.
    "JAVA_TOOL_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "_JAVA_OPTIONS",
    # git: GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_ASKPASS, GIT_EXEC_PATH,
    # GIT_TEMPLATE_DIR and GIT_CONFIG_* (any config: core.fsmonitor, core.pager...) make git
    # run programs, and GIT_DIR points it at another repository's hooks.
    "GIT_*",
)

# The doors to services of your session, for sandboxed commands only. The sandbox keeps a
# command away from your agents and daemons; these variables would hand it their addresses.
# Without the sandbox a command runs as you, after your approval, and can reach the same
# sockets by their usual paths anyway, so removing them would only break `git push` over ssh.
HOST_SOCKETS = (
    "SSH_AUTH_SOCK",  # ssh-agent: logs in anywhere with your keys
    "GPG_AGENT_INFO",  # gpg-agent: signs and decrypts as you
    "DBUS_SESSION_BUS_ADDRESS",  # the session bus: desktop services, secret stores
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DOCKER_HOST",  # a docker daemon: root on the host, for anyone who can talk to it
    "CONTAINER_HOST",  # podman's
    "DISPLAY",  # X11: reads keystrokes of every window
    "WAYLAND_DISPLAY",
    "XDG_RUNTIME_DIR",  # the folder of all of the above, per user
)


# Secrets in your environment, for sandboxed commands only, judged by the variable's name:
# GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY, PGPASSWORD, GOOGLE_APPLICATION_CREDENTIALS
# and their kin. Your environment is trusted; the command in the sandbox is not (it may follow a
# prompt hidden in a file it read), and a value it prints goes into the conversation, or into
# a file that is committed later. A command that needs a token needs the network for it too,
# so it is one to run with outside_sandbox, which the person approves, and which gets them all.
# Words anywhere in the name:
SECRET_WORDS = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL")
# Whole parts of the name between underscores (TOKENIZERS_PARALLELISM is not a token):
SECRET_PARTS = (
    *("TOKEN", "TOKENS", "APIKEY", "AUTH", "PWD", "PAT"),
    *("KEY", "PASS", "DSN", "WEBHOOK", "JWT", "COOKIE"),  # OPENAI_KEY, DB_PASS, SENTRY_DSN, ...
    *("PW", "CREDS"),  # DB_PW, SERVICE_CREDS
)
# Two parts in a row:
SECRET_PAIRS = (
    *("API_KEY", "ACCESS_KEY", "PRIVATE_KEY", "AUTH_KEY", "SIGNING_KEY", "MASTER_KEY"),
    "CONNECTION_STRING",  # AZURE_STORAGE_CONNECTION_STRING: AccountKey=... in it
)
# A part that ends with one of these, written as one word: NGROK_AUTHTOKEN, TAILSCALE_AUTHKEY,
# SYSTEM_ACCESSTOKEN (TOKENIZERS_PARALLELISM ends with none).
SECRET_ENDINGS = ("TOKEN", "TOKENS", "AUTHKEY", "ACCESSKEY", "SECRETKEY", "PRIVKEY", "APIKEY")
# Whole parts that unlock a password manager or a login: BW_SESSION (Bitwarden's CLI),
# OP_SESSION_<account> (1Password's), FASTLANE_SESSION.
SESSION_PARTS = ("SESSION",)


def looks_secret(name: str) -> bool:
    """Whether a variable's name says it holds a secret (see SECRET_WORDS and kin)."""
    name = name.upper()
    parts = name.split("_")
    if len(parts) < 2:  # PWD and OLDPWD are folders; JWT or TOKEN alone are secrets
        return any(word in name for word in SECRET_WORDS) or (
            name in SECRET_PARTS and name != "PWD"
        )
    pairs = {f"{first}_{second}" for first, second in zip(parts, parts[1:], strict=False)}
    return (
        any(word in name for word in SECRET_WORDS)
        or any(part in SECRET_PARTS or part in SESSION_PARTS for part in parts)
        or any(part.endswith(SECRET_ENDINGS) for part in parts)
        or any(pair in pairs for pair in SECRET_PAIRS)
        or (name.startswith("BUNDLE_") and "__" in name)  # Bundler's login for a host
    )


# A secret judged by its value: an address with a password in it (DATABASE_URL=postgres://
# app:hunter2@db/app, MONGODB_URI, a proxy's user:password@host), whatever the name says.
# (A scheme is read once, from where its characters start: read from each letter of a long
# word, as `[A-Za-z][A-Za-z0-9+.-]*://` is, it was quadratic in the word.)
URL_WITH_PASSWORD = re.compile(
    r"(?<![A-Za-z0-9+.-])[0-9+.-]*+[A-Za-z][A-Za-z0-9+.-]*+://"
    r"(?:[^/@\s:]*+:[^/@\s]+|[^/@\s:]{20,}+)@"  # or a token as the user: https://ghp_x@...
)
# A secret judged by its form: the tokens of well-known services, whatever the name.
KNOWN_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?:gh[pousr]_|github_pat_|glpat-|xox[abprse]-|npm_|sk-ant-|sk-proj-|hf_"
    r"|[sr]k_(?:live|test)_|SG\.|pypi-|shp(?:at|ss|ca|pa)_|dop_v1_|gsk_|sk-|AIza|ya29\.|xai-"
    r")[A-Za-z0-9_.-]{20}"  # (Stripe, SendGrid, PyPI, Shopify, DigitalOcean, Groq, OpenAI's
    # older keys, Google's API keys and OAuth tokens, xAI)
    r"|(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"  # (an AWS access key id)
    # Grafana, Replicate, Perplexity, Notion, Figma, Atlassian, Doppler, Vault, 1Password's
    # service accounts, Fly, Supabase, PlanetScale, RubyGems, Postman, Netlify, Heroku, Linear,
    # Sentry, Mapbox's secret tokens:
    r"|(?<![A-Za-z0-9])(?:glsa_|glc_|r8_|pplx-|ntn_|figd_|ATATT|dp\.(?:st|pt|ct|sa|scim|audit)\."
    r"|hv[sbr]\.|ops_|FlyV1 |fm[12]_|sbp_|sb_secret_|pscale_(?:tkn|pw|oauth)_|rubygems_|PMAK-"
    r"|nf[pcou]_|HRKU-|lin_api_|sntry[su]_|sk\.eyJ)[A-Za-z0-9_.=-]{20}"
    r"|\.atlasv1\.[A-Za-z0-9_-]{20}"  # (Terraform Cloud's, after 14 characters)
    r"|(?<![A-Za-z0-9])(?:key-|dapi)[0-9a-f]{32}(?![0-9a-f])"  # (Mailgun, Databricks)
    r"|(?<![\w:])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}"  # (a Telegram bot's)
    r"|(?<![A-Za-z0-9])v1\.0-[0-9a-f]{24,40}-[0-9a-f]{64}"  # (a Cloudflare origin CA key)
    # Webhook addresses, which are their own credentials: Slack's and Discord's.
    r"|hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{20}"
    r"|discord(?:app)?\.com/api/webhooks/[0-9]+/[A-Za-z0-9_-]{20}"
    r"|(?i:bearer|basic)\s++[A-Za-z0-9+/=_.~-]{20}"  # (an Authorization header's value)
    # A query's or fragment's parameter that names a secret, in any case and with any words
    # before (`?private_token=`, `#access_token=`, `?X-Amz-Signature=`, `?apiKey=`):
    r"|(?i:[?&#][\w.-]{0,40}?(?:token|key|secret|sig|signature|password|passwd|pwd|auth))"
    r"=[^&\s]{8}"
    r"|-{4,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}"  # (a PEM key; PGP's armored
    # one: Gradle's in-memory signing key, `ORG_GRADLE_PROJECT_signingInMemoryKey`; RFC 4716's
    # `---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----`, PuTTYgen's export)
    r"|AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{20}"  # (an age identity, in bech32's letters)
    r"|PuTTY-User-Key-File-[0-9]++:"  # (a PuTTY .ppk)
    # (a WireGuard config's key, base64 of 32 bytes)
    r"|(?:^|\n)[ \t]*+(?i:(?:private|preshared)key)[ \t]*+=[ \t]*+[A-Za-z0-9+/]{42,}+="
    r'|"private_key"\s*+:'  # (a service account's JSON)
    r"|(?i:pwd|password)=[^;\s]{6}"  # (in a connection string: `Server=x;Pwd=...`)
)


# A PEM block carried base64'd on one line (how CI systems usually carry a key in a variable):
# `LS0tLS1CRUdJTi` is `-----BEGIN`, and its first 160 characters hold any key's header.
BASE64_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{0,146}")
# A JSON Web Key's private part (`"d"`, in base64url), beside the key type every JWK has.
JWK_PRIVATE_PART = re.compile(r'"d"\s*+:\s*+"[A-Za-z0-9_-]{16}')


def secret_value(value: str) -> bool:
    """Whether a variable's value is a secret by its form (KNOWN_TOKEN, URL_WITH_PASSWORD), a
    private key base64'd, or a JSON Web Key's private part."""
    return bool(
        URL_WITH_PASSWORD.search(value)
        or KNOWN_TOKEN.search(value)
        or any(_base64_private_key(found[0]) for found in BASE64_PEM.finditer(value))
        or ('"kty"' in value and JWK_PRIVATE_PART.search(value))
    )


def _base64_private_key(text: str) -> bool:
    """Whether the base64 `text` starts a PEM private key."""
    whole = text[: len(text) // 4 * 4]  # (whole groups of four decode alone)
    header = base64.b64decode(whole).decode("ascii", errors="replace")
    return KNOWN_TOKEN.match(header) is not None and "PRIVATE KEY" in header


# shlex builds each word a character at a time (`token = token + char`): time in the square of
# a word's length (quoted blanks and all), 23 s for one of 1 MiB in a repository's settings.
# A longer text is not split (`shell_words`): 64 KiB takes a tenth of a second at worst.
MAX_SHELL_TEXT = 64 * 1024


class WordTooLong(ValueError):
    """A text longer than MAX_SHELL_TEXT: what it names cannot be told. Not an open quote,
    which callers read whole instead: a shell takes this text, and runs what it names."""


def shell_words(text: str) -> list[str]:
    """`shlex.split(text)`; WordTooLong past MAX_SHELL_TEXT."""
    if len(text) > MAX_SHELL_TEXT:
        raise WordTooLong(f"a shell line of more than {MAX_SHELL_TEXT:,} characters")
    return shlex.split(text)


def command_environment(sandboxed: bool, environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment for a command (and for bwrap, when `sandboxed`)."""
    dropped = NEVER_PASSED + (HOST_SOCKETS if sandboxed else ())
    # planloop's own key and token, under whatever name they are set, and in the forms the
    # search for copies knows (base64: a variable made with `base64 <<< "$KEY"`)
    keys = file_forms()
    return {
        name: value
        for name, value in environ.items()
        if not is_dropped(name, dropped)
        and not holds_a_key(value, keys)
        and not (sandboxed and (looks_secret(name) or secret_value(value)))
    }


def holds_a_key(value: str, keys: Iterable[str]) -> bool:
    """Whether `value` holds one of `keys` (planloop's key in its forms), also with its blanks
    and line breaks left out: `base64` wraps its output at 76 columns, and `$(base64 <<< ...)`
    keeps those breaks, one of which falls inside the key's form."""
    squeezed = value.translate(BLANKS_OUT)
    return any(key in value or key in squeezed for key in keys)


BLANKS_OUT = str.maketrans("", "", " \t\r\n\v\f")


# Variables no command gets that carry the key, a token or where it is sent (a gateway's
# `ANTHROPIC_CUSTOM_HEADERS`): never put into a repository's text either (`without_secrets`).
NEVER_QUOTED = ("ANTHROPIC_*",)


def without_secrets(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """Your environment less what no sandboxed command sees for a secret (a name that says so,
    an address with a password, planloop's key in any form, the ANTHROPIC_ variables): the
    variables planloop puts into the workspace's text as its tools would (`${NAME}` in a
    dotenv file, `$NAME` in an `.npmrc` or an hgrc), to find what they run. A path built of
    `${GITHUB_TOKEN}` would be quoted, token and all, in the reason the model reads that
    commands ask."""
    keys = tuple(file_forms())
    now = (dict(environ), keys)
    last = _LAST_WITHOUT_SECRETS
    if last and last[0] == now:
        return dict(last[1])  # (asked for each word of a line: 2,000 of them)
    found = {
        name: value
        for name, value in now[0].items()
        if not (
            looks_secret(name)
            or secret_value(value)
            or holds_a_key(value, keys)
            or is_dropped(name, NEVER_QUOTED)
        )
    }
    last[:] = [now, found]
    return dict(found)


# The last environment `without_secrets` judged, and what it kept: judging each name and value
# takes a millisecond for a few dozen, and a command line's words ask one by one.
_LAST_WITHOUT_SECRETS: list = []


# `$NAME`, as os.path.expandvars reads it (`${NAME}` is found by hand: see below).
DOLLAR_WORD = re.compile(r"\w+", re.ASCII)


def expand_variables(text: str, environ: Mapping[str, str] | None = None) -> str:
    """`text` with `$NAME` and `${NAME}` put in from `environ` (your environment less its
    secrets: `without_secrets`), exactly as os.path.expandvars does, an unknown name left
    as written; but in time linear in the text. os.path.expandvars looks for the `}` of each
    `${` anew: a line of `${` alone, 1 MiB of it, took minutes."""
    if "$" not in text:
        return text
    environ = without_secrets() if environ is None else environ
    pieces: list[str] = []
    written = 0  # text[:written] is in `pieces`
    closing = -1  # the first `}` found after a `${` (len(text): none), used again until passed
    at = text.find("$")
    while at != -1:
        end = name = None
        if text.startswith("{", at + 1):
            if closing < at + 2:
                closing = text.find("}", at + 2)
                closing = len(text) if closing == -1 else closing
            if closing < len(text):
                name, end = text[at + 2 : closing], closing + 1
        elif word := DOLLAR_WORD.match(text, at + 1):
            name, end = word.group(), word.end()
        if name is None:
            at = text.find("$", at + 1)
            continue
        if name in environ:
            pieces += [text[written:at], environ[name]]
            written = end
        at = text.find("$", end)
    return "".join(pieces) + text[written:]


def is_dropped(name: str, dropped: tuple[str, ...]) -> bool:
    """Whether `name` is one of `dropped` or starts with one of its "PREFIX*" entries.

    Upper-cased first: a variable spelled in lower case is not read by the programs above,
    but a command gets none of these names in any spelling.
    """
    name = name.upper()
    for entry in dropped:
        if entry.endswith("*") and name.startswith(entry[:-1]) or name == entry:
            return True
    return False


def host_program(name: str, workspace: Path | None = None) -> str | None:
    """Where `name` is found on PATH for planloop to run it outside the sandbox, or None.

    Like `shutil.which`, but a PATH entry that is relative, or that lies inside the workspace
    (default: the current folder), is skipped. An activated project virtualenv puts
    `.venv/bin` first on PATH, and a sandboxed command may write there: a `less` or a `bwrap`
    it planted must never be what planloop runs unconfined. An absolute `name` is refused when
    it lies in the workspace, for the same reason.
    """
    root = os.path.realpath(workspace or os.getcwd())

    def outside(path: str) -> bool:
        real = os.path.realpath(path)
        return real != root and not real.startswith(root.rstrip("/") + "/")

    if os.path.isabs(name):
        return name if outside(name) and shutil.which(name) else None
    entries = os.environ.get("PATH", os.defpath).split(os.pathsep)
    trusted = [entry for entry in entries if os.path.isabs(entry) and outside(entry)]
    found = shutil.which(name, path=os.pathsep.join(trusted))
    return found if found is not None and outside(found) else None


def path_folders_in(workspace: Path) -> tuple[list[Path], str | None]:
    """The folders on your PATH that lie inside the workspace, and why one cannot be held, if so.

    An activated `.venv/bin`, direnv's `PATH_add bin` or `layout node`: what a command puts
    there runs outside the sandbox the next time you, or your shell prompt, type its name. An
    existing folder is held read-only. One that does not exist yet (`node_modules/.bin` before
    an install), one reached through a link (which a command could point elsewhere), the
    workspace itself and a relative entry such as `.` (wherever your shell is) cannot be.
    """
    root = os.path.realpath(workspace)
    inside: list[Path] = []
    why_not: str | None = None
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not os.path.isabs(entry):
            why_not = why_not or f"your PATH names a relative folder ({entry or 'empty'!r})"
            continue
        plain, real = os.path.normpath(entry), os.path.realpath(entry)
        if real == root or plain == root:
            why_not = why_not or "your PATH names the workspace itself"
        elif any(p.startswith(root.rstrip("/") + "/") for p in (plain, real)):
            if plain != real or not os.path.isdir(real):
                why_not = why_not or f"{entry}, on your PATH, does not exist or is a link"
            else:
                inside.append(Path(real))
    return inside, why_not


# Variables of your environment that name files or folders a program on your machine runs code
# from, or reads settings that run code from, each time it starts: your shell, your prompt, an
# interpreter, the dynamic loader. Like a PATH folder (`path_folders_in`), one that lies in the
# workspace is held read-only; one that does not exist yet, is reached through a link in the
# workspace, is the workspace itself or is relative (wherever your shell is) makes commands ask,
# and the file tools ask before writing there. How a value is read:
#   FOLDERS   folders (or files: KUBECONFIG, HGRCPATH) separated by ":"
#   FILES     LD_PRELOAD's libraries, separated by spaces or ":"; a bare name is looked up in
#             the system's folders, not here
#   ONE       one file or folder
#   PROGRAM   a command line: its first word, when it is a path (a bare name is found on PATH)
#   OPTIONS   options an interpreter adds to its command line: the values of those that load
#             a file (LOADING_OPTIONS)
FOLDERS, FILES, ONE, PROGRAM, OPTIONS = "folders", "files", "one", "program", "options"
# NIX_PATH's kind: entries separated by ":", each a folder or `NAME=FOLDER` (what `<NAME>` in
# nix code imports), or a download (`nixpkgs=channel:nixos-24.05`, `https://...`), which names
# no path here (`nix_search_path_entries`).
NIX_SEARCH_PATH = "nix search path"
COMPILER_VARIABLES = ("CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS")
COMPILER_VARIABLES += ("CGO_CFLAGS", "CGO_CXXFLAGS", "CGO_CPPFLAGS", "CGO_FFLAGS", "CGO_LDFLAGS")
COMPILER_RUNS = "the C compiler loads the plugins and runs the programs its options name"
CODE_VARIABLES: tuple[tuple[str, str, str], ...] = (
    # Shells and prompts.
    ("ZDOTDIR", ONE, "zsh runs .zshenv, .zshrc and the rest from this folder in every new shell"),
    ("BASH_ENV", ONE, "bash runs this file before every script"),
    ("ENV", ONE, "sh, and bash in POSIX mode, run this file in every interactive shell"),
    ("STARSHIP_CONFIG", ONE, "the starship prompt runs the commands it names at every prompt"),
    ("INPUTRC", ONE, "readline binds keys to what it says in every bash and REPL"),
    # Interpreters' module search paths: a module there shadows the real one for every script.
    ("PYTHONPATH", FOLDERS, "every python imports from here first (a sitecustomize.py there runs)"),
    ("PYTHONSTARTUP", ONE, "interactive python runs this file"),
    ("PYTHONHOME", ONE, "every python runs its standard library from here (encodings at start)"),
    ("PYTHONUSERBASE", ONE, "every python loads the packages (and their .pth files) under it"),
    ("PERL5LIB", FOLDERS, "every perl loads its modules from here first (`use strict` too)"),
    ("PERLLIB", FOLDERS, "every perl loads its modules from here first"),
    ("RUBYLIB", FOLDERS, "every ruby loads what it requires from here first"),
    ("GEM_HOME", ONE, "ruby loads installed gems from here, and its bin/ holds their programs"),
    ("GEM_PATH", FOLDERS, "ruby loads installed gems from these folders"),
    ("NODE_PATH", FOLDERS, "node loads the modules a script requires from here"),
    ("CLASSPATH", FOLDERS, "java loads classes from here"),
    ("R_LIBS", FOLDERS, "R loads its packages from here"),
    ("R_LIBS_USER", FOLDERS, "R loads its packages from here"),
    ("R_PROFILE_USER", ONE, "R runs this file at start"),
    # The dynamic loader: a library there is loaded into every program started.
    ("LD_LIBRARY_PATH", FOLDERS, "every program loads its shared libraries from here first"),
    ("LD_PRELOAD", FILES, "every program loads these libraries"),
    ("LD_AUDIT", FILES, "every program loads these libraries"),
    ("GCONV_PATH", FOLDERS, "iconv (glibc) loads the converter libraries these folders list"),
    ("OPENSSL_CONF", ONE, "OpenSSL loads the engines and providers this config names"),
    ("OPENSSL_MODULES", ONE, "OpenSSL loads its providers from this folder"),
    ("OPENSSL_ENGINES", ONE, "OpenSSL loads its engines from this folder"),
    # Programs other programs start for you.
    ("EDITOR", PROGRAM, "git, crontab and others start this editor"),
    ("VISUAL", PROGRAM, "git, crontab and others start this editor"),
    ("PAGER", PROGRAM, "man, git and others start this pager"),
    ("MANPAGER", PROGRAM, "man starts this pager"),
    ("LESSOPEN", PROGRAM, "less runs this on every file it shows"),
    ("SUDO_ASKPASS", PROGRAM, "sudo runs this and gives it your password"),
    ("SSH_ASKPASS", PROGRAM, "ssh runs this and gives it your passphrase"),
    # Tools' own configuration that names programs they run for you, often before they do what
    # you asked (a kubeconfig per project, from an `.envrc`).
    ("KUBECONFIG", FOLDERS, "kubectl runs the exec credential plugins these kubeconfigs name"),
    ("AWS_CONFIG_FILE", ONE, "the AWS CLI and SDKs run the credential_process it names"),
    ("AWS_SHARED_CREDENTIALS_FILE", ONE, "the AWS CLI and SDKs run its credential_process too"),
    ("DOCKER_CONFIG", ONE, "docker runs its config.json's credential helpers and cli-plugins/"),
    ("TF_CLI_CONFIG_FILE", ONE, "terraform runs the credentials helper and providers it names"),
    ("TERRAFORM_CONFIG", ONE, "terraform's older name for TF_CLI_CONFIG_FILE"),
    ("CARGO_HOME", ONE, "cargo runs the rustc-wrapper and credential providers config.toml names"),
    ("RUSTUP_HOME", ONE, "rustc and cargo run the toolchains rustup installed here"),
    ("GNUPGHOME", ONE, "gpg's agent runs the pinentry-program its gpg-agent.conf names"),
    ("HGRCPATH", FOLDERS, "Mercurial runs the hooks and loads the extensions these configs name"),
    ("NPM_CONFIG_USERCONFIG", ONE, "npm runs scripts with the script-shell this npmrc names"),
    # Caches whose content runs, or that name a program: not the scratch space a cache
    # folder is (tools/your_configs.py leaves those writable).
    ("PYTHONPYCACHEPREFIX", ONE, "every python runs the bytecode here instead of its modules'"),
    ("CCACHE_PREFIX", PROGRAM, "ccache runs this program before every compiler it calls"),
    ("CCACHE_PREFIX_CPP", PROGRAM, "ccache runs this program before every preprocessor call"),
    ("CCACHE_COMPILERCHECK", PROGRAM, "ccache runs this command to know the compiler"),
    ("CCACHE_CONFIGPATH", ONE, "ccache runs the prefix_command and compiler_check it names"),
    # Options every interpreter of a kind takes as if typed: `--require ./x.js` runs x.js first.
    ("NODE_OPTIONS", OPTIONS, "every node runs the files its --require and --import options name"),
    ("GOFLAGS", OPTIONS, "go runs the program its -toolexec or -exec names, or -overlay's code"),
    ("GOENV", ONE, "go takes its settings (GOFLAGS, the toolchain) from this file"),
    ("LUA_INIT", OPTIONS, "every lua runs the file this names after an @ first"),
    ("RUBYOPT", OPTIONS, "every ruby loads the files its -r options name"),
    ("PERL5OPT", OPTIONS, "every perl loads its modules from the folders its -I options name"),
    ("JAVA_TOOL_OPTIONS", OPTIONS, "every java loads the agents its -javaagent options name"),
    ("JDK_JAVA_OPTIONS", OPTIONS, "every java loads the agents its -javaagent options name"),
    ("_JAVA_OPTIONS", OPTIONS, "every java loads the agents its -javaagent options name"),
    ("GRADLE_OPTS", OPTIONS, "gradle's java loads the agents its -javaagent options name"),
    ("JAVA_OPTS", OPTIONS, "the java of gradle and other start scripts loads these agents"),
    ("MAVEN_OPTS", OPTIONS, "maven's java loads the agents its -javaagent options name"),
    # A C compiler's options, as make's rules, cgo (`go build`, gopls) and build scripts give
    # them to gcc or clang, which pass some on to the linker (`-Wl,`) or front end (`-Xclang`).
    *((name, OPTIONS, COMPILER_RUNS) for name in COMPILER_VARIABLES),
    # Where gcc takes the programs it runs (cc1, as, collect2) from before its own: a folder
    # not made yet counts too, as a command could make it and put a cc1 there.
    ("COMPILER_PATH", FOLDERS, "gcc runs cc1, as and collect2 from these folders first"),
    ("GCC_EXEC_PREFIX", ONE, "gcc runs cc1, as and collect2 from under this prefix first"),
    # Programs a build runs, as it runs make's CC.
    ("PKG_CONFIG", PROGRAM, "cgo and build scripts run this pkg-config for a package's flags"),
    ("GOCACHEPROG", PROGRAM, "go runs this program as its build cache for every build or list"),
    ("FC", PROGRAM, "make's rules and build scripts run this Fortran compiler"),
)
# For OPTIONS: each variable's options that load a file or add a folder to load from, and
# whether any value counts ("any") or only one written as a path ("path": `--require
# ts-node/register` and `-rjson` name a package or library, `./setup.js` a file), or one with
# a "/" ("slash": a bare name is looked up elsewhere, `-fplugin=annobin` in gcc's plugin
# folder, `-fuse-ld=lld` on PATH), or the first of a comma-separated list with a "/"
# ("program": gcc's `-wrapper gdb,--args`). An option ending in "=" or ":" takes its value
# joined only; a longer one than `-r` joined after "=" (`-plugin-opt` is another option).
JAVA_AGENTS = {"-javaagent:": "any", "-agentpath:": "any"}
# A C compiler's (gcc, clang) and its linker's options that load a plugin or run a program.
COMPILER_LOADS = dict.fromkeys(("-fplugin=", "-fpass-plugin=", "-load"), "slash")  # plugins
COMPILER_LOADS |= dict.fromkeys(("-plugin", "--plugin", "--load-pass-plugin"), "slash")  # ld's
COMPILER_LOADS |= {"-iplugindir=": "any"}  # where gcc takes a bare -fplugin name from
# The folder or prefix gcc and clang take cc1, as, ld and collect2 from, or clang a GCC's.
COMPILER_LOADS |= dict.fromkeys(("-B", "--prefix", "--gcc-toolchain"), "any")
COMPILER_LOADS |= dict.fromkeys(("-specs=", "--specs"), "any")  # a specs file: what gcc runs
COMPILER_LOADS |= dict.fromkeys(("-fuse-ld=", "--ld-path"), "slash")  # the linker, by a path
COMPILER_LOADS |= {"-wrapper": "program", "@": "any"}  # (`@file`: more options, read from file)
LOADING_OPTIONS: dict[str, dict[str, str]] = {
    # (The last ones name files node reads as code or for more options: an OpenSSL config
    # loads engines, an env file may set NODE_OPTIONS again, a snapshot is a heap to run.)
    "NODE_OPTIONS": dict.fromkeys(
        ("--require", "-r", "--import", "--loader", "--experimental-loader"), "path"
    )
    | dict.fromkeys(("--openssl-config", "--env-file", "--env-file-if-exists"), "any")
    | dict.fromkeys(("--experimental-config-file", "--snapshot-blob"), "any"),
    "RUBYOPT": {"-r": "path", "-I": "any"},
    "GOFLAGS": dict.fromkeys(("-toolexec", "--toolexec", "-exec", "--exec", "-overlay"), "any"),
    "LUA_INIT": {"@": "any"},  # (otherwise the value is lua code)
    "PERL5OPT": {"-I": "any"},
    "JAVA_TOOL_OPTIONS": JAVA_AGENTS,
    "JDK_JAVA_OPTIONS": JAVA_AGENTS,
    "_JAVA_OPTIONS": JAVA_AGENTS,
    "GRADLE_OPTS": JAVA_AGENTS,
    "JAVA_OPTS": JAVA_AGENTS,
    "MAVEN_OPTS": JAVA_AGENTS,
} | dict.fromkeys(COMPILER_VARIABLES, COMPILER_LOADS)
# Where an empty entry means the current folder, as a relative one does (`PYTHONPATH=:/opt/x`,
# or `LD_LIBRARY_PATH=/opt/lib:$LD_LIBRARY_PATH` with none set before; gcc's COMPILER_PATH
# too). perl and node skip empty entries.
EMPTY_IS_CURRENT_FOLDER = ("PYTHONPATH", "LD_LIBRARY_PATH", "COMPILER_PATH")


def code_paths_of(
    name: str, value: str, base: Path | None = None, unread: list[str] | None = None
) -> list[str]:
    """The paths (as written) that `value` names when set as the variable `name`, if that is
    one of CODE_VARIABLES: `BASH_ENV=tools/env.sh` before a command in a config git or a host
    tool runs, or a mise `[env]` entry. A compiler's option files are read from `base` (the
    folder it runs in); one that cannot be read goes to `unread` (`_in_option_files`)."""
    kinds = [kind for known, kind, _ in CODE_VARIABLES if known == name]
    return _named_by_variable(name, kinds[0], value, base, unread) if kinds else []


def variable_paths(name: str, kind: str, value: str) -> list[str]:
    """The paths (as written) that `value` names when set as the variable `name`, read as a
    value of the `kind` given (FOLDERS, ONE, PROGRAM, ...), where `name` is no CODE_VARIABLE."""
    return _named_by_variable(name, kind, value)


def _named_by_variable(
    name: str, kind: str, value: str, base: Path | None = None, unread: list[str] | None = None
) -> list[str]:
    """The paths (as written, `~` expanded) a variable of CODE_VARIABLES names."""
    if not value:
        return []  # set but empty names nothing, for each of these programs
    if kind == PROGRAM:
        words = value.lstrip("|").split()  # LESSOPEN's `|lesspipe %s`, `||...`
        first = os.path.expanduser(words[0]) if words else ""
        return [first] if "/" in first else []
    if kind == OPTIONS:
        named = _loaded_by_options(LOADING_OPTIONS.get(name, {}), value)
        if name in COMPILER_VARIABLES:  # and what the options in its option files load
            named += _in_option_files(value, base, [] if unread is None else unread)
        return named
    if kind == NIX_SEARCH_PATH:
        return nix_search_path_entries(value)
    if kind == FILES:
        entries = value.replace(" ", ":").split(":")
        return [entry for entry in map(os.path.expanduser, entries) if "/" in entry]
    entries = value.split(":") if kind == FOLDERS else [value]
    if name not in EMPTY_IS_CURRENT_FOLDER:
        entries = [entry for entry in entries if entry]
    return [os.path.expanduser(entry) for entry in entries]


# What nix reads as a download, not a path, in an entry of its search path: its `:` is the
# entry's own (nix's parseNixPath keeps it, up to the next one).
NIX_DOWNLOAD_SCHEMES = ("http", "https", "file", "git", "s3", "ssh")


def nix_search_path_entries(value: str) -> list[str]:
    """The paths (as written) of the entries of a nix search path (NIX_PATH, `-I`), split as
    nix splits it: at each `:` but the one after `channel`, `flake` or a download's scheme
    (`nixpkgs=https://x.tar.gz`). Downloads and empty entries name none."""
    pieces, paths = value.split(":"), []
    while pieces:
        entry = pieces.pop(0)
        path = entry.rpartition("=")[2]  # (`NAME=PATH`: nix takes the path after the last `=`)
        download = path in ("channel", "flake") or (
            path in NIX_DOWNLOAD_SCHEMES and bool(pieces) and pieces[0].startswith("//")
        )
        if download and pieces:
            pieces.pop(0)
        elif path:
            paths.append(path)
    return paths


def _loaded_by_options(options: dict[str, str], value: str) -> list[str]:
    """The files and folders that the loading `options` in `value` name (`--require ./x.js`,
    `--require=./x.js`, `-r./x.rb`, `-javaagent:a.jar=opts`, `-Wl,-plugin,x.so`), `~`
    expanded."""
    try:
        words = shell_words(value)
    except WordTooLong:
        raise
    except ValueError:  # an open quote: the interpreter refuses it, but read it whole
        words = value.split()
    words = _passed_on(words)
    found = []
    for before, word in zip(["", *words], words, strict=False):
        for option, counts in options.items():
            joined_only = option.endswith((":", "="))
            if before == option and not joined_only:
                named = word
            elif (
                word.startswith(option)
                and word != option
                and (joined_only or len(option) <= 2 or word[len(option)] == "=")
            ):
                named = word.removeprefix(option).removeprefix("=")
                if option.endswith(":"):  # `-javaagent:agent.jar=options`
                    named = named.split("=", 1)[0]
            else:
                continue
            named = os.path.expanduser(_without_file_scheme(named))
            named = named.split(",")[0] if counts == "program" else named
            if named and _counts(counts, named):
                found.append(named)
    return found


# A C compiler reads more options from the files some of its options name, as if written in
# their place: `@file` (gcc, clang and ld; a nested one from the folder it runs in, clang's
# from the including file's too) and gcc's specs files (`-specs=`: a spec's options, and its
# `%include`s are more specs). What those options load runs as theirs does. Up to OPTION_FILES
# files are read, each up to OPTION_FILE_BYTES; past that, or where a file cannot be read, what
# the compiler loads is unknown.
OPTION_FILES = 16
OPTION_FILE_BYTES = 256 * 1024
RESPONSE_FILES = {"@": "any"}
SPECS_FILES = dict.fromkeys(("-specs=", "--specs"), "any")
SPECS_INCLUDE = re.compile(r"^%include(?:_noerr)?[ \t]+<?([^>\s]+)>?", re.MULTILINE)
# A specs file's lines that are no options: a spec's name (`*cc1:`, a suffix's `.c:`), and
# its directives (`%rename`, `%include`, taken apart above).
SPECS_NOT_OPTIONS = re.compile(r"^([*.]\S*:|%(rename|include|include_noerr)\b).*$", re.MULTILINE)


def _in_option_files(
    value: str,
    base: Path | None,
    unread: list[str],
    within: str = "",
    seen: set[str] | None = None,
) -> list[str]:
    """What the compiler options `value` load through the option files they name (as named,
    from `base`, or absolute): what those files' options name, nested files included, each
    read once (`seen`). A file not made yet is left to the caller, which counts it (a command
    could make it)."""
    found: list[str] = []
    seen = set() if seen is None else seen
    for reads, specs in ((RESPONSE_FILES, False), (SPECS_FILES, True)):
        for named in _loaded_by_options(reads, value):
            for place in _option_file_places(named, base, within):
                path = place if os.path.isabs(place) else os.path.join(base or "", place)
                found += [place] if place != named else []
                if os.path.realpath(path) in seen:
                    continue
                seen.add(os.path.realpath(path))
                text = _option_file_text(path, len(seen), unread, place)
                if text is None:
                    continue
                text = _specs_options(text) if specs else text
                found += _loaded_by_options(COMPILER_LOADS, text)
                found += _in_option_files(text, base, unread, os.path.dirname(path), seen)
    return found


def _option_file_places(named: str, base: Path | None, within: str) -> list[str]:
    """Where a compiler takes an option file named in another from: the folder it runs in
    (gcc's, counted made or not), and, where one is there, the including file's (clang's).
    A relative name with no `base` is the caller's to tell (wherever your shell is)."""
    places = [named] if base is not None or os.path.isabs(named) else []
    beside = os.path.join(within, named) if within else named
    if beside != named and os.path.isfile(beside):
        places.append(beside)
    return places


def _option_file_text(path: str, count: int, unread: list[str], shown: str) -> str | None:
    """The text of the `count`th option file read, or None: one not made yet (the caller
    counts it), or one past OPTION_FILES or that cannot be read, which goes to `unread`."""
    from tools.paths import read_small_file  # (tools/paths.py imports this module)

    if not os.path.lexists(path):
        return None
    if count > OPTION_FILES:
        unread.append(f"{shown}, one more than the {OPTION_FILES} option files read")
        return None
    try:
        return read_small_file(path, OPTION_FILE_BYTES)
    except (OSError, ValueError) as error:
        unread.append(f"{shown} ({getattr(error, 'strerror', None) or error})")
        return None


def _specs_options(text: str) -> str:
    """A specs file's text as the options its specs add (`+ -fplugin=./x.so`, `%{O2:-Btc/}`),
    one word each, with each `%include` as one more `-specs=`."""
    includes = [f"-specs={name}" for name in SPECS_INCLUDE.findall(text)]
    words = re.split(r"[\s{}|;:]+", SPECS_NOT_OPTIONS.sub("", text))
    return shlex.join([word for word in words if word] + includes)


def _passed_on(words: list[str]) -> list[str]:
    """`words` with what a C compiler passes on to its linker or front end as words of their
    own: `-Wl,-plugin,x.so` and `-Xlinker -plugin -Xlinker x.so` as `-plugin x.so`, `-Xclang
    -load -Xclang x.so` (or `-Xclang=-load`) as `-load x.so`. No other program here takes these."""
    found: list[str] = []
    for word in words:
        if word.startswith("-Wl,"):
            found += word.split(",")[1:]
        elif word.startswith("-Xclang="):
            found.append(word.removeprefix("-Xclang="))
        elif word not in ("-Xclang", "-Xlinker"):
            found.append(word)
    return found


def _counts(counts: str, named: str) -> bool:
    """Whether an option's value `named` names a file, by LOADING_OPTIONS' `counts`."""
    if counts == "path":
        return named.startswith(("./", "../", "/"))
    return counts == "any" or "/" in named


# node's options that load a module by a name as well as by a path (`--require dotenv/config`,
# `--import=tsx`): node takes the name from node_modules (tools/node_packages.py).
NODE_PRELOADS = ("--require", "-r", "--import", "--loader", "--experimental-loader")


def node_preloads(value: str) -> list[str]:
    """The modules `value`, node's options (NODE_OPTIONS, or on its line), has node load by a
    name rather than by a path: `--require dotenv/config` gives `dotenv/config`."""
    loads = dict.fromkeys(NODE_PRELOADS, "any")
    return [name for name in _loaded_by_options(loads, value) if not name.startswith(("/", "."))]


def _without_file_scheme(named: str) -> str:
    """The path of a `file:` URL node takes for `--import` (`file:///w/x.mjs`, its `%20`s
    decoded); anything else as it is."""
    url = urllib.parse.urlsplit(named)
    if url.scheme != "file" or url.netloc not in ("", "localhost"):
        return named
    return urllib.parse.unquote(url.path)


def link_inside(root: str, path: str) -> bool:
    """Whether reaching `path` (absolute) passes a link that lies inside the folder `root`.

    A command can point such a link elsewhere; a link outside the workspace (`/home` ->
    `/var/home`), it cannot.
    """
    current = "/"
    for part in os.path.normpath(path).split("/"):
        if not part:
            continue
        step = os.path.join(current, part)
        if os.path.islink(step):
            if step.startswith(root.rstrip("/") + "/"):
                return True
            step = os.path.realpath(step)
        current = step
    return False


def variable_paths_in(
    workspace: Path, environ: Mapping[str, str] = os.environ
) -> tuple[list[tuple[Path, str]], str | None]:
    """(path, variable) for each path in the workspace that a variable of CODE_VARIABLES names,
    where the variable is set, whether the path exists or not (resolved, where it does); and why
    one cannot be held read-only, if so (see CODE_VARIABLES)."""
    root = os.path.realpath(workspace)
    named: list[tuple[Path, str]] = []
    why_not: str | None = None
    for name, kind, _why in CODE_VARIABLES:
        unread: list[str] = []
        for entry in _named_by_variable(name, kind, environ.get(name, ""), None, unread):
            if not os.path.isabs(entry):
                why_not = why_not or f"your {name} names a relative path ({entry or 'empty'!r})"
                continue
            plain, real = os.path.normpath(entry), os.path.realpath(entry)
            inside = [p for p in (plain, real) if p == root or p.startswith(root + "/")]
            if not inside:
                continue
            if root in inside:
                why_not = why_not or f"your {name} names the workspace itself"
            elif link_inside(root, entry) or not os.path.exists(real):
                why_not = why_not or f"{entry}, named by your {name}, does not exist or is a link"
            named += [(Path(p), name) for p in dict.fromkeys(inside) if p != root]
        for file in unread:
            why_not = why_not or f"planloop cannot read the options of {file}, named by your {name}"
    return named, why_not


def variable_reason(name: str) -> str:
    """Why a path a variable of CODE_VARIABLES names is protected, for the file tools."""
    why = next((why for variable, _, why in CODE_VARIABLES if variable == name), "")
    return f"a path your {name} names is protected: {why}"
