"""Private keys and password files your own configs name by path, wherever they lie.

The sandbox hides the folders where such files usually are (~/.ssh, ~/.kube, ...), but a config
may keep a key anywhere: a cloud's `~/keys/deploy.pem` in your ssh config, a client key beside
a kubeconfig, git's `http.sslKey` or `core.sshCommand = ssh -i ~/work.pem`, the file git's
`credential.helper store` keeps passwords in, the client key an npmrc or a curlrc names. Only
your configs are read (your home's, and the files your environment names), never the
workspace's, and each path is worked out as the tool itself would.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import glob
import itertools
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

from tools.environment import command_environment, host_program, secret_value
from tools.kept import kept_while_unchanged, looked_at, pattern_folders
from tools.paths import read_file_start, read_small_file
from tools.toml_text import toml_data
from tools.tool_scripts import read_yaml, without_comments

# (`IdentityFile2`: an old name ssh still takes for IdentityFile)
SSH_KEY_LINE = re.compile(
    r"^[ \t]*+(IdentityFile2?|CertificateFile|Include|ProxyCommand|LocalCommand"
    r"|KnownHostsCommand)"
    r"(?:[ \t]*+=[ \t]*+|[ \t]++)([^\n]++)",
    re.IGNORECASE | re.MULTILINE,
)
# The lines of an ssh config that are a command line, which may run ssh with a key of its own
# (`ProxyCommand ssh -i ~/keys/bastion.pem -W %h:%p bastion`, the usual jump host).
SSH_COMMAND_KEYWORDS = ("proxycommand", "localcommand", "knownhostscommand")
# How deep ssh follows `Include` lines (its own limit), and how much of your ssh configs is
# read in all, each file counting at least MIN_SSH_CONFIG_COST (a glob of thousands of empty
# files costs its opens): past these, the rest is not read.
MAX_SSH_INCLUDE_DEPTH = 16
MAX_SSH_CONFIG_BYTES = 8 * 1024 * 1024
MIN_SSH_CONFIG_COST = 1024
# How the configs that name a key by its path are read: a byte that is no UTF-8 (a Latin-1
# `IdentityFile ~/clés/deploy.pem`) kept as the byte it is, so the path is the file the tool
# opens.
PATH_BYTES = "surrogateescape"
# The system's ssh config, which ssh reads after yours (a managed machine's
# `ssh_config.d/*.conf` gives everyone's `IdentityFile ~/keys/corp.pem`), and the folder its
# relative Includes are from.
SYSTEM_SSH_CONFIG = "/etc/ssh/ssh_config"


def ssh_key_files(home: str) -> tuple[Path, ...]:
    """The key and certificate files your ssh config (`home`/.ssh/config, the system's, and
    the files their `Include` lines name) gives by `IdentityFile` or `CertificateFile`: a
    cloud's `.pem` is often kept outside ~/.ssh, which is hidden whole."""
    yours = ssh_config_key_files(os.path.join(home, ".ssh", "config"), home)
    system = SYSTEM_SSH_CONFIG
    return yours + ssh_config_key_files(system, home, os.path.dirname(system))


@kept_while_unchanged
def ssh_config_key_files(config: str, home: str, folder: str = "") -> tuple[Path, ...]:
    """The key and certificate files the ssh config `config` (also one `ssh -F` names) and
    the files its `Include` lines name give, each config read once, within
    MAX_SSH_INCLUDE_DEPTH and MAX_SSH_CONFIG_BYTES. A relative path is from `folder`, else
    `home`/.ssh, as ssh takes an Include's of the system's configs and of your own."""
    folder = Path(folder or os.path.join(home, ".ssh"))
    waiting, read, found = [(Path(config), 0)], set(), []
    budget = MAX_SSH_CONFIG_BYTES
    while waiting and budget > 0:
        config_path, depth = waiting.pop(0)
        if config_path in read or depth > MAX_SSH_INCLUDE_DEPTH:
            continue
        read.add(config_path)
        looked_at(config_path)
        try:
            text = read_small_file(config_path, budget, cut=True, errors=PATH_BYTES)
        except (OSError, ValueError):
            continue
        budget -= max(len(text), MIN_SSH_CONFIG_COST)
        for keyword, value in SSH_KEY_LINE.findall(text):
            if keyword.lower() in SSH_COMMAND_KEYWORDS:
                keys, configs = ssh_command_files(value, home)
                found += keys
                waiting += [(Path(config), depth + 1) for config in configs]
                continue
            for word in ssh_words(value):
                path = os.path.normpath(folder / ssh_expanded(word, home))
                paths = _matches(path)
                if keyword.lower() != "include":
                    # ssh takes a key's name as written (`deploy[prod].pem`), but for a
                    # per-connection token, which stands for any name (`*`).
                    found += [Path(path), *paths]
                else:
                    waiting += [(path, depth + 1) for path in paths]
    return tuple(dict.fromkeys(found))


def _matches(path: str) -> list[Path]:
    """The files a path with glob characters matches, or the path itself."""
    if not glob.has_magic(path):
        return [Path(path)]
    looked_at(*pattern_folders(path))  # (a file made there may match it)
    return [Path(match) for match in sorted(glob.glob(path))]


def ssh_words(value: str) -> list[str]:
    """The words of an ssh config line's value, as ssh splits them: quotes group, and a `#`
    begins a comment only at a word's start (`~/keys/prod#2.pem` is one name). [] for an open
    quote, a line ssh refuses too."""
    quote, escaped = "", False
    for place, char in enumerate(value):
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (place == 0 or value[place - 1] in " \t"):
            value = value[:place]
            break
    try:
        return shlex.split(value)
    except ValueError:
        return []


# ssh's tokens that stand for one value wherever it connects: `%d` your home, `%u` your name,
# `%i` your uid. Any other (`%h` the host, `%r` the remote user, `%C` a hash) varies with
# the connection: a key named with one is any file of that form (`~/keys/%h.pem`).
SSH_TOKEN = re.compile(r"%(.)")


def ssh_expanded(word: str, home: str) -> str:
    """An IdentityFile's, CertificateFile's or Include's word as ssh expands it: `~`, your
    `${VARIABLE}`s (`${HOME}` is `home`), its `%` tokens; a token that varies with the
    connection becomes `*`, a glob pattern for every file it can be. `~user/` is that
    user's home, as ssh takes it from the passwd file (a shared deploy account's keys)."""
    word = re.sub(r"^~(?=/|$)", lambda _: home, word)
    word = os.path.expanduser(word) if word.startswith("~") else word
    environment = {**os.environ, "HOME": home}
    word = re.sub(r"\$\{(\w+)\}", lambda found: environment.get(found[1], "*"), word)
    fixed = {"%": "%", "d": home, "u": _user_name(), "i": str(os.getuid())}
    return SSH_TOKEN.sub(lambda found: fixed.get(found[1], "*"), word)


def _user_name() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return "*"


# A kubeconfig's keys that name a file of secrets: the user's private key, a token's file.
KUBECONFIG_KEYS = ("client-key", "tokenFile")
# The same as lines, for a kubeconfig that is no YAML document (kubectl refuses it, but a
# plain line names the file all the same).
KUBECONFIG_KEY_LINE = re.compile(
    r"^[ \t-]*+(?:client-key|tokenFile)[ \t]*+:[ \t]*+([^\r\n#]*)", re.MULTILINE
)


def kubeconfig_key_files(configs: tuple[str, ...]) -> tuple[Path, ...]:
    """The files the kubeconfigs `configs` name by `client-key` or `tokenFile`, read as YAML
    as kubectl reads them (JSON too, quoted keys, `user: {client-key: x}`). kubectl takes a
    relative path from the kubeconfig's own folder. (Read for each command: a few small
    files, and a kubeconfig changes as you switch clusters.)"""
    found = []
    for config in configs:
        try:
            text = read_small_file(config, cut=True, errors=PATH_BYTES)  # (its first lines)
        except (OSError, ValueError):
            continue
        values = [value.strip().strip("\"'") for value in KUBECONFIG_KEY_LINE.findall(text)]
        with contextlib.suppress(ValueError):  # (YamlTooLarge too: the lines are read)
            values += _values_of_keys(read_yaml(text), KUBECONFIG_KEYS)
        found += [Path(os.path.normpath(Path(config).parent / value)) for value in values if value]
    return tuple(dict.fromkeys(found))


def _values_of_keys(data: object, keys: tuple[str, ...]) -> list[str]:
    """The text values of `keys` anywhere in `data` (read_yaml's, so a walk is bounded)."""
    values, waiting = [], [data]
    while waiting:
        node = waiting.pop()
        if isinstance(node, dict):
            values += [
                value for key, value in node.items() if key in keys and isinstance(value, str)
            ]
            waiting += node.values()
        elif isinstance(node, list):
            waiting += node
    return values


# Your variables that change which git config is yours: a new value is read afresh.
GIT_CONFIG_VARIABLES = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME")
STORE_HELPERS = ("store", "credential-store", "git-credential-store")
# The settings of your git config that name a secret file, as git prints their names: also
# Gerrit's auth cookies (`http.cookieFile = ~/.gitcookies`) and a client certificate, which
# curl reads the private key from when no sslKey is given (with the form it is in,
# `http.sslCertType = P12`); the ssh key git signs with (`user.signingKey` with
# `gpg.format = ssh`), and the command that picks it when none is set; and its conditional
# includes (`[includeIf "gitdir:~/work/"] path = ~/.gitconfig-work`).
GIT_KEY_SETTINGS = (
    r"^(credential\..*helper|http\..*(sslkey|sslcert|sslcerttype|cookiefile)|core\.sshcommand"
    r"|credential\.plaintextstorepath|user\.signingkey|gpg\.ssh\.defaultkeycommand"
    r"|includeif\..*\.path)$"
)
# How many configs your conditional includes name are read, each once (git itself has no such
# bound, only one of depth; each costs a run of git). Past it, commands ask (`git_includes_cut`).
MAX_GIT_INCLUDES = 256
# Where that bound was reached: (HOME, GIT_CONFIG_GLOBAL) of the git settings read -> the count.
_GIT_INCLUDES_CUT: dict[tuple[str, str], int] = {}
# The config of the system's git (Debian's, Fedora's, Homebrew's on Linux moves it with its
# prefix; GIT_CONFIG_SYSTEM names any other).
SYSTEM_GIT_CONFIG = "/etc/gitconfig"
# Your variables that give git settings for every git you start (a CI runner's, a wrapper's):
# `GIT_CONFIG_COUNT` with its `GIT_CONFIG_KEY_<n>` and `GIT_CONFIG_VALUE_<n>`, and
# `GIT_CONFIG_PARAMETERS` (what `git -c` hands the gits it starts).
GIT_SETTING_VARIABLE = re.compile(r"GIT_CONFIG_(?:COUNT|PARAMETERS|KEY_\d+|VALUE_\d+)")


def git_settings_in_your_environment() -> tuple[tuple[str, str], ...]:
    """Your variables that give git settings (GIT_SETTING_VARIABLE), as (name, value)."""
    return tuple(
        sorted(item for item in os.environ.items() if GIT_SETTING_VARIABLE.fullmatch(item[0]))
    )


@kept_while_unchanged
def git_key_files(home: str, *your_variables: str) -> tuple[Path, ...]:
    """The secret files your own git config (global and system, asked of your git from `/`:
    never a repository's) names: where `credential.helper = store --file PATH` keeps passwords
    in plain text (or a file a `!` helper's shell line reads), `http.sslKey` (also per URL),
    `http.cookieFile`, an `http.sslCert` that holds a private key, and the `-i` key of
    `core.sshCommand`. Git's answer with HOME at `home` and GIT_CONFIG_VARIABLES at
    `your_variables` (unset where empty), as git in your other terminals reads them, the files
    they `[include]` too.

    A conditional include applies only in some repositories (the workspace may be one), never
    from `/`: the file it names is read too, whatever its condition."""
    git = host_program("git")  # never one a command could have put on PATH
    environ = _git_environment(home)
    for name, value in itertools.zip_longest(GIT_CONFIG_VARIABLES, your_variables[:3]):
        if value:
            environ[name] = value
        else:
            environ.pop(name, None)
    # Every config git reads but a repository's (with what they include): the system's, and
    # both of yours, ~/.gitconfig and $XDG_CONFIG_HOME/git/config, which `git config --global`
    # reads only the first of where both are there (before git 2.46).
    environ["GIT_DIR"] = "/dev/null"
    # (where git reads its config, there or not: one made or filled later counts)
    xdg = environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    looked_at(
        environ.get("GIT_CONFIG_SYSTEM") or SYSTEM_GIT_CONFIG, os.path.join(xdg, "git/config")
    )
    looked_at(environ.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"))
    return _named_by_git_settings(git, [[]], environ, home) if git is not None else ()


@kept_while_unchanged
def git_key_files_of_settings(home: str, settings: tuple[tuple[str, str], ...]) -> tuple[Path, ...]:
    """The secret files (as git_key_files) that the git settings your variables give
    (`settings`, from git_settings_in_your_environment) name, and those of the files they
    include (`include.path`, or `includeIf.<condition>.path` whatever its condition, a CI
    runner's `~/.gitconfig-ci`): git reads them on top of your config files in every
    repository."""
    git = host_program("git")
    if git is None or not settings:
        return ()
    environ = {
        **_git_environment(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_DIR": "/dev/null",  # (no repository's config either, were `/` one)
    }
    # No config file is read, so what git answers is what the variables set and the files
    # they include, which git follows itself as it does for --global --includes.
    environ.update(settings)
    return _named_by_git_settings(git, [[]], environ, home)


def git_includes_cut(home: str, *your_variables: str) -> str | None:
    """Why the keys your git configs name cannot all be found, or None: they include more
    than MAX_GIT_INCLUDES configs by `includeIf`, and what the rest name is not read
    (git_key_files, with the same arguments, is read first)."""
    git_key_files(home, *your_variables)  # (kept while unchanged: read once)
    for (cut_home, _), count in _GIT_INCLUDES_CUT.items():
        if cut_home == home:
            return (
                f"your git config in {home} includes more than {MAX_GIT_INCLUDES:,} configs by "
                f"`includeIf` ({count:,} read), and planloop does not read the keys the rest "
                "name"
            )
    return None


def _included_config(found_in: str, value: str, home: str) -> str:
    """The config an include's `value`, set in the config `found_in`, names: a relative one
    from that config's folder, as git takes it."""
    return os.path.normpath(os.path.join(os.path.dirname(found_in), _home_expanded(value, home)))


def _git_environment(home: str) -> dict[str, str]:
    environ = command_environment(sandboxed=False)  # no LD_PRELOAD, no key, no GIT_*
    environ["HOME"] = home
    return environ


def _named_by_git_settings(
    git: str, sources: list[list[str]], environ: dict[str, str], home: str
) -> tuple[Path, ...]:
    """The secret files that `git config SOURCE`'s GIT_KEY_SETTINGS name, and the config files
    that hold a credential themselves (`holds_a_credential`), for each of `sources` (which
    grows with each conditional include, up to MAX_GIT_INCLUDES)."""
    named: list[Path] = []
    certificates: list[Path] = []
    forms: list[str] = []  # (the certificates' forms: for any URL, as a safe side)
    whose = (environ.get("HOME", ""), environ.get("GIT_CONFIG_GLOBAL", ""))
    _GIT_INCLUDES_CUT.pop(whose, None)
    for source in sources:
        for found_in, setting, value in _git_settings([git, "config", *source], environ):
            if os.path.isabs(found_in):
                looked_at(found_in)
            if re.fullmatch(r"include\.path|includeif\..*\.path", setting):
                # (what it includes, there yet or not: git follows an `include.path` itself)
                looked_at(_included_config(found_in, value, home))
            if holds_a_credential(setting, value):
                # (a setting of your variables is in no file: such a variable is dropped)
                named += _absolute(found_in)
            if not re.search(GIT_KEY_SETTINGS, setting):
                continue
            if setting.startswith("includeif."):
                included = ["--file", _included_config(found_in, value, home), "--includes"]
                if included in sources:
                    continue  # (each read once: a config may include one that includes it)
                if len(sources) > MAX_GIT_INCLUDES:
                    _GIT_INCLUDES_CUT[whose] = len(sources)
                    continue
                sources.append(included)
            elif setting.endswith("helper"):
                named += store_file_of(value, home) or helper_reads(value, home)
                named += helper_program_keys(value, home)  # (`helper = mine`)
            elif setting == "user.signingkey":
                named += ssh_signing_keys(_home_expanded(value, home))
            elif setting == "gpg.ssh.defaultkeycommand":
                named += helper_reads(value, home)
            elif setting == "core.sshcommand":
                named += ssh_command_keys(value, home)
            elif setting.endswith("plaintextstorepath"):
                named += credential_files_in(_home_expanded(value, home))
            elif setting.endswith(("sslkey", "cookiefile")):  # (path settings: git expands `~/`)
                named += _absolute(_home_expanded(value, home))
            elif setting.endswith("sslcerttype"):
                forms.append(value)
            elif setting.endswith("sslcert"):
                certificates += _absolute(_home_expanded(value, home))
    named += certificates_with_a_key(certificates, forms)
    return tuple(dict.fromkeys(named))


# The ends of a public key's or certificate's name that ssh-keygen takes off to find the
# private key it signs with, when no agent holds that key.
PUBLIC_KEY_ENDINGS = ("-cert.pub", ".pub")


def ssh_signing_keys(signing_key: str) -> list[Path]:
    """The private key git's `user.signingKey` names (`signing_key`, `~` put in) where
    `gpg.format = ssh`, which a repository's config can set: a path, and where that is the
    public key or a certificate, the private key beside it that ssh-keygen signs with. A
    GnuPG key's ID, or a key given inline (`key::ssh-ed25519 ...`), names no file."""
    named = _absolute(signing_key)
    for ending in PUBLIC_KEY_ENDINGS:
        if signing_key.endswith(ending) and len(signing_key) > len(ending):
            named += _absolute(signing_key.removesuffix(ending))
            break
    return named


# VS Code and its forks, whose user settings may hold MCP servers (as in tools/sandbox.py).
EDITORS_WITH_MCP_SETTINGS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
# Configs in your home that tools in the sandbox read their settings from (uv's and rye's
# indexes, nix's features, cargo's registries, go's proxy), where a person may also write a
# credential (`url = "https://ci:PASS@pypi.corp/simple"`, nix's `access-tokens`, a registry's
# `token`, `GOPROXY=https://u:TOKEN@proxy`, hatch's publishing `auth`, distutils' upload
# `password`): each is hidden whole while it holds one, as a git config is. Also where your
# XDG_CONFIG_HOME, CARGO_HOME or the tools' own variables put them.
CREDENTIAL_CONFIGS = (
    ".config/uv/uv.toml",
    ".config/hatch/config.toml",
    ".config/rye/config.toml",
    ".pydistutils.cfg",
    ".config/nix/nix.conf",
    ".config/go/env",
    ".cargo/config.toml",
    ".cargo/config",
    # Editors' settings, where MCP servers may be given their tokens (VS Code's
    # `mcp.servers.*.env`, zed's `context_servers`), also on a machine edited over Remote-SSH
    *(f".config/{editor}/User/settings.json" for editor in EDITORS_WITH_MCP_SETTINGS),
    ".vscode-server/data/Machine/settings.json",
    ".config/zed/settings.json",
)
CREDENTIAL_CONFIG_VARIABLES = ("UV_CONFIG_FILE", "HATCH_CONFIG", "GOENV")
# A setting whose name says it holds a credential, given a value: `token = "cio..."`,
# `access-tokens = github.com=...`, `password: x`, hatch's `auth = "..."`.
CREDENTIAL_SETTING = re.compile(
    r"^[ \t]*[\"']?[\w.-]*?(?:token|tokens|password|passwd|secret|auth)[\"']?[ \t]*[=:][ \t]*\S",
    re.IGNORECASE | re.MULTILINE,
)


def configs_holding_a_credential(home: str) -> list[Path]:
    """Those of CREDENTIAL_CONFIGS in `home` (and where your variables put them) that hold a
    credential: a setting named for one (CREDENTIAL_SETTING), or an address with a password
    or a token of a known form (`secret_value`). (Read for each command: a few small files.)"""
    names = [os.path.join(home, name) for name in CREDENTIAL_CONFIGS]
    xdg, cargo = os.environ.get("XDG_CONFIG_HOME", ""), os.environ.get("CARGO_HOME", "")
    names += [
        os.path.join(xdg, name.removeprefix(".config/"))
        for name in CREDENTIAL_CONFIGS
        if name.startswith(".config/") and xdg
    ]
    names += [os.path.join(cargo, "config.toml"), os.path.join(cargo, "config")] if cargo else []
    names += [os.environ.get(name, "") for name in CREDENTIAL_CONFIG_VARIABLES]
    found = []
    absolute = (os.path.normpath(name) for name in names if os.path.isabs(name))
    for config in map(Path, dict.fromkeys(absolute)):
        try:
            text = read_small_file(config, cut=True)
        except (OSError, ValueError):
            continue
        if CREDENTIAL_SETTING.search(text) or secret_value(text):
            found.append(config)
    return found


# Entries looked at, at most, in Git Credential Manager's plain-text store.
MAX_STORE_ENTRIES = 2000


def credential_files_in(folder: str) -> list[Path]:
    """The password files in the folder Git Credential Manager's plain-text store is moved to
    (`credential.plaintextStorePath`: `git/https/<host>/<user>.credential`). The files, not
    the folder: a key setting's path is hidden only as a file, whatever it names."""
    if not os.path.isabs(folder):
        return []
    found = []
    looked_at(folder)  # (made later, or a folder made in it: what it holds then counts)
    for parent, _folders, files in itertools.islice(os.walk(folder), MAX_STORE_ENTRIES):
        looked_at(parent)
        found += [Path(parent, name) for name in files if name.endswith(".credential")]
    return found[:MAX_STORE_ENTRIES]


def _absolute(path: str) -> list[Path]:
    return [Path(os.path.normpath(path))] if os.path.isabs(path) else []


# The one certificate form that is text a person can read whole: any other (`P12`, `PKCS12`,
# `DER`, an engine's `ENG`) is one a tool may take a private key from.
PEM_FORMS = ("", "pem")
# A PEM block's first line (`-----BEGIN CERTIFICATE-----`), and what plain text never holds.
PEM_BEGIN = re.compile(r"^-----BEGIN [A-Z0-9 ]{1,40}-----", re.MULTILINE)
NOT_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")


def certificates_with_a_key(certificates: list[Path], forms: list[str]) -> list[Path]:
    """Those of the client `certificates` a tool may read a private key from: all of them
    where a config gives their form as other than PEM (curl's `cert-type = P12`), else each
    that holds_a_private_key."""
    if any(form.strip().strip("\"'").lower() not in PEM_FORMS for form in forms):
        return certificates
    return [path for path in certificates if holds_a_private_key(path)]


def holds_a_private_key(path: Path) -> bool:
    """Whether the client certificate at `path` may hold its private key: unless it is plain
    PEM text with no private key block, since curl reads the key from a PEM beside its
    certificate, and a PKCS#12 bundle (`client.p12`, binary) holds it. One that is not there
    holds nothing yet; one planloop cannot read whole counts as holding one."""
    looked_at(path)
    try:
        text = read_small_file(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError):
        return True
    plain_pem = PEM_BEGIN.search(text) is not None and NOT_TEXT.search(text) is None
    return "PRIVATE KEY-----" in text or not plain_pem


def holds_a_credential(setting: str, value: str) -> bool:
    """Whether a git setting holds a credential itself, so that the file it is set in is no
    less a secret than ~/.git-credentials: an address with a password or a token in it
    (`url."https://x-access-token:ghp_...@github.com/".insteadOf`, a remote's, a proxy's), a
    token of a known form (`secret_value`, as for your variables), an HTTP header git
    sends (`http.<url>.extraHeader = AUTHORIZATION: basic ...`), or a setting that its name
    says is a password or a token (`sendemail.smtpPass`, a tool's `hub.oauthtoken`)."""
    return (
        setting.endswith(".extraheader")
        or GIT_SECRET_SETTING.search(setting) is not None
        or secret_value(setting)
        or secret_value(value)
    )


# The name of a git setting that holds a password or a token (but `core.askPass`, a program).
GIT_SECRET_SETTING = re.compile(r"\.(?:smtppass|[^.]*(?:password|passwd|token|secret))$")


def _git_settings(command: list[str], environ: dict[str, str]) -> list[tuple[str, str, str]]:
    """(file, setting, value) for each setting `command` (`git config --global`, ...) finds,
    run from `/`: `file` is where it is set (`command line:` for your variables'). Git reads
    its configs as bytes, in any encoding (an old config's Latin-1 `name`): a byte that is no
    UTF-8 is kept as the byte it is (`surrogateescape`), so that a key's path with one names
    the very file git reads."""
    command = [*command, "--null", "--show-origin", "--list"]
    try:
        found = subprocess.run(command, cwd="/", env=environ, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    output = found.stdout.decode("utf-8", errors="surrogateescape")
    fields = output.split("\0")  # (origin, then `setting\nvalue`, each ended by a NUL)
    settings = []
    for origin, entry in zip(fields[0:-1:2], fields[1::2], strict=False):
        setting, _, value = entry.partition("\n")
        settings.append((origin.removeprefix("file:"), setting, value))
    return settings


def store_file_of(helper: str, home: str | None = None) -> list[Path]:
    """The file a credential helper's value (`store --file ~/.git-credentials-work`) makes git
    keep its passwords in; none for another helper. Git runs it through the shell, so `~` is
    the home git runs with (`home`, else $HOME) and your variables are put in
    (`--file $XDG_STATE_HOME/git/credentials`)."""
    try:
        words = shlex.split(helper)
    except ValueError:
        return []
    if words and words[0].startswith("!"):  # (a shell line: `!git credential-store --file x`)
        words = [*filter(None, [words[0][1:]]), *words[1:]]
        words = words[1:] if words and os.path.basename(words[0]) == "git" else words
    if not words or os.path.basename(words[0]) not in STORE_HELPERS:
        return []
    for word, after in itertools.pairwise([*words[1:], ""]):
        value = word.removeprefix("--file=") if word.startswith("--file=") else None
        value = after if word == "--file" else value
        if value:
            path = _shell_expanded(value, home or str(Path.home()))
            return [Path(os.path.normpath(path))] if os.path.isabs(path) else []
    return []


# A path a shell line names literally: absolute, or from `~` or a variable of yours (`$HOME`,
# `${XDG_STATE_HOME}`), standing as a word or after `=`, `(` or a redirection
# (`password=$(cat ~/.secrets/gh-token)`).
SHELL_LINE_PATH = re.compile(r"""(?:^|(?<=[\s"'=(<>]))((?:~|\$\w+|\$\{\w+\})?/[^\s"'`;|&<>()$]+)""")


def helper_reads(helper: str, home: str | None = None, depth: int = 0) -> list[Path]:
    """The files a credential helper's line names by a path (from `/`, `~` or a variable of
    yours, as the shell puts it in) and does not run: a token file a `!` line `cat`s
    (`!f() { echo "password=$(cat ~/.secrets/tok)"; }; f`), the file a helper is given
    (`netrc -f ~/private/netrc`, `/opt/helper --file $XDG_STATE_HOME/tok`). A program (a
    script or a binary you may run) is left readable, as a command may need it; a token file
    with an execute bit (any file on a FAT or SMB mount, WSL's /mnt/c) is no program. A
    shell script the line runs (`helper = ~/bin/git-credential-mine`) is read as the line
    is, for what it names (`wrapper_keys`)."""
    home = home if home is not None else str(Path.home())
    named = []
    for word in SHELL_LINE_PATH.findall(helper):
        for path in _absolute(_shell_expanded(word, home)):
            looked_at(path)
            if not os.path.isfile(path):  # (one in a folder you cannot read is none of yours)
                continue
            named += wrapper_keys(path, home, depth) if _a_program(path) else [path]
    return named


# Your variables whose value is a command line that prints a password or a key, which the
# tool runs for it: borg's `BORG_PASSCOMMAND`, restic's `RESTIC_PASSWORD_COMMAND`, rclone's
# `RCLONE_PASSWORD_COMMAND`, sops' `SOPS_AGE_KEY_CMD`, and any other named so (`cat
# ~/.borg-passphrase`, borg's own example).
SECRET_COMMAND_VARIABLE = re.compile(
    r"\w*(?:PASS(?:WORD|PHRASE)?|KEY|TOKEN|SECRET|CREDENTIALS?)_?(?:COMMAND|CMD)", re.IGNORECASE
)


def files_your_secret_commands_read(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The files your password and key command variables (SECRET_COMMAND_VARIABLE) name and
    do not run, read as a credential helper's line is (`helper_reads`)."""
    named = []
    for variable, command in environ.items():
        if SECRET_COMMAND_VARIABLE.fullmatch(variable):
            named += helper_reads(command)
    return named


def helper_program_keys(helper: str, home: str) -> list[Path]:
    """The files a credential helper given by its name names (`helper = mine`, which git runs
    as `git-credential-mine`, found on your PATH), where that program is a wrapper script of
    yours (`wrapper_keys`); none for a `!` line or a path, which `helper_reads` reads."""
    try:
        words = shlex.split(helper)
    except ValueError:
        return []
    if not words or words[0].startswith("!") or "/" in words[0]:
        return []
    program = shutil.which(f"git-credential-{words[0]}")
    return wrapper_keys(Path(program), home) if program else []


def _a_program(path: Path) -> bool:
    """Whether `path` is a file you may run that starts as a program does: a script's `#!`,
    or an ELF binary's header."""
    if not os.access(path, os.X_OK):
        return False
    try:
        start = read_file_start(path, 4)
    except OSError:
        return False
    return start.startswith(b"#!") or start == b"\x7fELF"


# ssh's one-letter options that take a value (its getopt string), so that `-vi KEY`, `-iKEY`
# and `-p 22 -i KEY` are all read as ssh reads them.
SSH_OPTIONS_WITH_VALUE = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
SSH_KEY_OPTION = re.compile(r"(?:IdentityFile2?|CertificateFile)(?:[ \t]*=[ \t]*|[ \t]+)(.+)", re.I)
# The options whose value is itself a command line, which may run ssh with a key of its own
# (`-o ProxyCommand="ssh -i ~/keys/bastion.pem -W %h:%p bastion"`, the usual jump host).
SSH_COMMAND_OPTION = re.compile(
    r"(?:ProxyCommand|LocalCommand|KnownHostsCommand)(?:[ \t]*=[ \t]*|[ \t]+)(.+)", re.I | re.S
)
# The shells that may be handed such a line (`ProxyCommand sh -c "ssh -i KEY -W %h:%p jump"`):
# the code after their `-c` is a command line too, not a value of ssh's `-c` (its cipher).
SHELLS = frozenset(("sh", "bash", "dash", "ksh", "mksh", "yash", "ash", "zsh"))
# How deep command lines inside command lines are read.
MAX_SSH_COMMAND_DEPTH = 8


def ssh_command_keys(command: str, home: str | None = None) -> list[Path]:
    """The key files an ssh command line (git's `core.sshCommand`, your GIT_SSH_COMMAND) gives
    by `-i KEY` or `-o IdentityFile=KEY`, and those the ssh config `-F FILE` names."""
    home = home if home is not None else str(Path.home())
    named, configs = ssh_command_files(command, home)
    for config in configs:
        named += ssh_config_key_files(config, home)
    return named


def ssh_command_files(command: str, home: str, depth: int = 0) -> tuple[list[Path], list[str]]:
    """The key files an ssh command line gives by `-i KEY` or `-o IdentityFile=KEY`, and the
    ssh configs it gives by `-F FILE`. The shell runs it, so `~` and your variables are put in
    ($HOME is `home`'s), and then ssh puts in its own (`%d`, `${VARIABLE}`) as in an
    IdentityFile. A command line inside it is read the same way, MAX_SSH_COMMAND_DEPTH deep:
    an option's (`-o ProxyCommand=...`) and a shell's code (`sh -c "ssh -i KEY ..."`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return [], []
    keys, configs, lines = [], [], _shell_code(words)
    words_left = iter(words[1:])
    for word in words_left:
        if word == "--":
            break
        if not word.startswith("-") or word == "-":
            continue
        for place, letter in enumerate(word[1:], start=2):
            if letter in SSH_OPTIONS_WITH_VALUE:
                value = word[place:] or next(words_left, "")
                if letter == "i":
                    keys.append(value)
                elif letter == "F":
                    configs.append(value)
                elif letter == "o" and (option := SSH_KEY_OPTION.fullmatch(value.strip())):
                    keys.append(option[1].strip("\"'"))
                elif letter == "o" and (option := SSH_COMMAND_OPTION.fullmatch(value.strip())):
                    lines.append(option[1])
                break
    named, inner_configs = [], []
    for word in words:  # (`GIT_SSH=~/bin/git-ssh`, `exec ~/bin/ssh-work "$@"` in it)
        for path in _absolute(_shell_expanded(word, home)):
            named += wrapper_keys(path, home, depth)
    for line in lines if depth < MAX_SSH_COMMAND_DEPTH else ():
        inner_named, inner = ssh_command_files(line, home, depth + 1)
        named += inner_named
        inner_configs += inner
    for key in keys:
        path = ssh_expanded(_shell_expanded(key, home), home)
        named += _matches(os.path.normpath(path)) if os.path.isabs(path) else []
    # (a relative config is from where the command runs: unknown here)
    paths = [_shell_expanded(config, home) for config in configs]
    paths = [os.path.normpath(path) for path in paths if os.path.isabs(path)]
    return named, [*paths, *inner_configs]


# A wrapper script of yours that a command line runs in ssh's or a helper's place (git's
# documented `GIT_SSH=~/bin/git-ssh` holding `exec ssh -i ~/keys/deploy "$@"`, an AWS
# `credential_process = ~/bin/aws-creds` that `cat`s a key file): the keys and files its text
# names are read as the line's own. A shell script up to this size is read; one of your home
# that planloop cannot read so (another language's, larger, unreadable) makes commands ask.
MAX_WRAPPER_BYTES = 256 * 1024
# The files of yours whose keys planloop could not tell, each with what says why while it
# still cannot (`keys_untold`): a wrapper script of your home it cannot read, an ansible
# inventory or config that names a key by a template.
_UNTOLD: dict[Path, Callable[[Path], str | None]] = {}
# The scripts being read, each inside the one before.
_WRAPPERS_READING: contextvars.ContextVar[tuple[Path, ...]] = contextvars.ContextVar(
    "wrappers_reading", default=()
)


def wrapper_keys(path: Path, home: str, depth: int = 0) -> list[Path]:
    """The files the wrapper script `path` names, read as a credential helper's line is
    (`helper_reads`: the files it names and does not run, `KEY=~/keys/deploy` too) and as an
    ssh command line (`-i KEY`, and the keys of the config `-F` names); none for what is no
    script (a binary, a key file). A script of `home` that cannot be read so is noted in
    _UNTOLD, and commands ask (`keys_untold`). A script is not read again
    inside itself (`exec ~/bin/git-ssh` in ~/bin/git-ssh)."""
    reading = _WRAPPERS_READING.get()
    if depth >= MAX_SSH_COMMAND_DEPTH or path in reading:
        return []
    text, why = _wrapper_text(path)
    if why is not None and path.is_relative_to(home):
        _UNTOLD[path] = _wrapper_unread
    if text is None:
        return []
    token = _WRAPPERS_READING.set((*reading, path))
    try:
        named = helper_reads(text, home, depth + 1)
        line = shlex.join(shlex.split(text, comments=True))  # (its words, without comments)
        keys, configs = ssh_command_files(line, home, depth + 1)
    finally:
        _WRAPPERS_READING.reset(token)
    named += keys
    for config in configs:
        named += ssh_config_key_files(config, home)
    return named


def _wrapper_text(path: Path) -> tuple[str | None, str | None]:
    """(the text of `path` where it is a shell script you may run whose words planloop can
    tell, why it cannot be read where it is a script planloop cannot read as one). A file you
    may run with no `#!` line is run by the shell (execvp), so read as a shell script; a
    binary is neither."""
    looked_at(path)
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        return None, None
    try:
        start = read_file_start(path, 256)
    except OSError as error:
        return None, f"planloop cannot read it ({error.strerror or error})"
    if start.startswith(b"\x7fELF"):
        return None, None
    interpreter = _interpreter(start) if start.startswith(b"#!") else "sh"
    if interpreter not in SHELLS:
        return None, f"it is a {interpreter or 'program'} script, which planloop does not read"
    try:
        text = read_small_file(path, MAX_WRAPPER_BYTES, errors=PATH_BYTES)
        shlex.split(text, comments=True)
    except OSError as error:
        return None, f"planloop cannot read it ({error.strerror or error})"
    except ValueError as error:
        return None, f"planloop cannot tell its shell words ({error})"
    return text, None


def _interpreter(start: bytes) -> str:
    """The name of the program a `#!` line runs a script with (`#!/usr/bin/env bash`: bash)."""
    words = start[2:].partition(b"\n")[0].decode(errors="replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return os.path.basename(words[0]) if words else ""


def _wrapper_unread(path: Path) -> str | None:
    """Why the keys the wrapper script `path` of yours names cannot be told, or None."""
    _, why = _wrapper_text(path)
    if why is None:
        return None
    return (
        f"your script {path}, which a command line of your configs or variables runs, may "
        f"name a key planloop cannot tell: {why}"
    )


def keys_untold() -> str | None:
    """Why some keys your configs name cannot be told, or None: a file of yours noted in
    _UNTOLD as it was read with the keys your configs name (before this is asked) that still
    cannot be read. What it names may be any file, so commands ask; once it can be, it is."""
    for path, untold in list(_UNTOLD.items()):
        if (why := untold(path)) is not None:
            return why
        _UNTOLD.pop(path, None)
    return None


def _shell_code(words: list[str]) -> list[str]:
    """The code each shell among `words` is given to run (`sh -c CODE`, `bash -lc CODE`)."""
    codes = []
    for place, word in enumerate(words):
        if os.path.basename(word) not in SHELLS:
            continue
        for option, after in itertools.pairwise(words[place + 1 :]):
            if not re.fullmatch(r"-[a-zA-Z]+", option):
                break
            if "c" in option:
                codes.append(after)
                break
    return codes


# A shell variable in a word: `$NAME` or `${NAME}`.
SHELL_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def _shell_expanded(word: str, home: str) -> str:
    """`word` as the shell expands it: a leading `~`, and your variables ($HOME is `home`; an
    unset one is empty)."""
    word = _home_expanded(word, home)
    environment = {**os.environ, "HOME": home}
    return SHELL_VARIABLE.sub(lambda found: environment.get(found[1] or found[2], ""), word)


def _home_expanded(value: str, home: str | None) -> str:
    """`value` with a leading `~`, `$HOME` or `${HOME}` made `home` (else your $HOME)."""
    home = home if home is not None else str(Path.home())
    value = re.sub(r"^(?:~|\$HOME|\$\{HOME\})(?=/|$)", lambda _: home, value)
    return os.path.expanduser(value)  # (`~user/`: that user's home)


# The registry and HTTP tools' configs in your home (and the variables that move each), with
# their settings that name a client's private key, hidden, and its certificate, hidden where
# it may hold the key too (holds_a_private_key; the tool then reads it from there), and the
# certificate's form where the tool takes one (curl's `cert-type = P12`): npm's
# `//host/:keyfile=`, pip's `client-cert` (a certificate and key in one file, always), curl's
# `key` and `cert` (`-E`, its short form, a config takes as on the command line) and those it
# gives an HTTPS proxy (`proxy-key`, `proxy-cert`), yarn's `httpsKeyFilePath`, wget's
# `private_key` (wget drops `_` and `-` from its settings' names), Poetry's `client-cert` (a
# certificate and key in one file, as pip's).
class ToolKeySettings(NamedTuple):
    configs: tuple[str, ...]
    # Each names config files, os.pathsep between them (HGRCPATH, BOTO_PATH); a folder among
    # them stands for its `*.rc` files, as Mercurial reads one.
    variables: tuple[str, ...]
    key: re.Pattern[str] | None
    certificate: re.Pattern[str] | None
    certificate_form: re.Pattern[str] | None = None
    # Each names a folder with the config in it, under the name of the first of `configs`
    # or the one given after a `/` (`MYSQL_HOME/my.cnf`), which may be a glob pattern.
    folder_variables: tuple[str, ...] = ()
    # The system's configs, which the tool reads for every user beside yours (pip's site
    # config, wget's system rc), `~` in them your home.
    system_configs: tuple[str, ...] = ()
    # A setting whose value is a command line: the files it names and does not run are read as
    # a credential helper's are (`helper_reads`).
    command: re.Pattern[str] | None = None
    # A line that reads another config of the tool (curl's `config = FILE`, MySQL's
    # `!include`, Mercurial's `%include`), and one that reads a folder's `*.cnf` files
    # (MySQL's `!includedir`): those are read as this one, and hidden as it is.
    include: re.Pattern[str] | None = None
    include_folder: re.Pattern[str] | None = None
    # A setting whose value is ssh's options or an ssh command line (ansible's `ssh_args`,
    # rclone's `ssh`): the keys it gives ssh by `-i` or `-o IdentityFile=`, and those the ssh
    # config its `-F` names (`ssh_command_keys`).
    ssh_options: re.Pattern[str] | None = None
    # A setting that names the inventories the tool takes its hosts' variables from (ansible's
    # `inventory = ~/ansible/hosts.ini`), a list of files and folders (`inventory_key_files`).
    inventory: re.Pattern[str] | None = None
    # Whether the tool computes its key settings' paths as ansible does a path setting: your
    # variables put in as `os.path.expandvars` does (`$KEYS/deploy.pem`, an unset one left as
    # written), `~`, and a relative path from the config's folder (`ansible_key_files`).
    computed_paths: bool = False


def _setting(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?:{name})[ \t]*([^\r\n]*)", re.MULTILINE | re.IGNORECASE)


CURL_OPTION_END = r"(?:[ \t]*[=:]|[ \t])"
# The end of an npmrc's key: npm's ini parser takes a quoted key unquoted
# (`"//npm.corp/:keyfile" = ~/keys/npm.key`).
NPM_KEY_END = r"[\"']?[ \t]*="
# (npm's global config, npm_global_configs, is read with the same settings.)
NPM_KEY_SETTINGS = ToolKeySettings(
    (".npmrc",),
    ("NPM_CONFIG_USERCONFIG", "npm_config_userconfig"),
    _setting(rf"^[^#;\r\n=]*?\bkeyfile{NPM_KEY_END}"),
    _setting(rf"^[^#;\r\n=]*?\bcertfile{NPM_KEY_END}"),
)
TOOL_KEY_SETTINGS = (
    NPM_KEY_SETTINGS,
    ToolKeySettings(
        (".config/pip/pip.conf", ".pip/pip.conf"),
        ("PIP_CONFIG_FILE",),
        _setting(r"^[ \t]*client[-_]cert[ \t]*[=:]"),
        None,
        system_configs=("/etc/pip.conf", "/etc/xdg/pip/pip.conf"),
    ),
    ToolKeySettings(
        (".curlrc", ".config/.curlrc"),
        (),
        _setting(rf"^[ \t]*(?:(?:--)?(?:proxy-)?key|(?:--)?netrc-file){CURL_OPTION_END}"),
        _setting(rf"^[ \t]*(?:(?:--)?(?:proxy-)?cert|(?-i:-E)){CURL_OPTION_END}"),
        _setting(rf"^[ \t]*(?:--)?(?:proxy-)?cert-type{CURL_OPTION_END}"),
        ("CURL_HOME", "XDG_CONFIG_HOME"),  # (`$CURL_HOME/.curlrc`, read before your home's)
        include=_setting(rf"^[ \t]*(?:(?:--)?config|(?-i:-K)){CURL_OPTION_END}"),
    ),
    ToolKeySettings(
        (".yarnrc.yml",),
        (),
        _setting(r"^[ \t]*[\"']?httpsKeyFilePath[\"']?[ \t]*:"),
        _setting(r"^[ \t]*[\"']?httpsCertFilePath[\"']?[ \t]*:"),
    ),
    ToolKeySettings(
        (".wgetrc",),
        ("WGETRC", "SYSTEM_WGETRC"),  # (the system's rc moved, read before yours)
        _setting(r"^[ \t]*private[-_]?key[ \t]*="),
        _setting(r"^[ \t]*certificate[ \t]*="),
        _setting(r"^[ \t]*certificate[-_]?type[ \t]*="),
        system_configs=("/etc/wgetrc", "/usr/local/etc/wgetrc"),
    ),
    ToolKeySettings(
        (".config/pypoetry/config.toml",),  # (`[certificates.corp]`: `client-cert = "..."`)
        (),
        _setting(r"^[^#\r\n=]*?\bclient-cert[\"']?[ \t]*="),
        None,
        folder_variables=("POETRY_CONFIG_DIR",),
    ),
)

# rclone's options that name a key or secret file: sftp's key, a Google service account's,
# an Azure service principal's and its certificate with the key, Box's app settings with its
# key, S3's shared credentials, the OCI config that names Oracle's key.
RCLONE_KEY_OPTIONS = (
    r"key_file|service_account_file|service_principal_file|client_certificate_path"
    r"|box_config_file|shared_credentials_file|config_file"
)
# Other tools' configs in your home that name a key or password file by path, as the tools'
# own variables do (those are hidden: ANSIBLE_PRIVATE_KEY_FILE, PGSSLKEY, ...): ansible's
# private key and vault password, libpq's service file's client key and password file, AWS's
# web identity token, gcloud's credential file, OCI's API key, MySQL's client key, twine's
# client certificate (key and certificate in one file), conda's, Mercurial's `[auth]`,
# rclone's, Gradle's signing key ring, boto's; dbt's BigQuery service
# account, Snowflake key and database client keys, Snowflake's CLIs' key, the mail fetchers'
# and senders' password files and client keys, helm's repositories' client keys, Chef's
# client key.
CONFIG_KEY_SETTINGS = tuple(
    ToolKeySettings(configs, variables, _setting(key), None, None, folder_variables)
    for configs, variables, key, folder_variables in (
        (
            (".ansible.cfg",),
            ("ANSIBLE_CONFIG",),
            # (and its connection's and sudo's password files, galaxy's token)
            r"^[ \t]*(?:(?:private_key|vault_password|connection_password|become_password)_file"
            r"|token_path)[ \t]*[=:]",
            (),
        ),
        (
            (".pg_service.conf",),
            ("PGSERVICEFILE",),
            r"^[ \t]*(?:sslkey|passfile)[ \t]*=",
            ("PGSYSCONFDIR/pg_service.conf",),  # (libpq's system service file)
        ),
        ((".aws/config",), ("AWS_CONFIG_FILE",), r"^[ \t]*web_identity_token_file[ \t]*=", ()),
        (
            (".config/gcloud/configurations/config_*",),
            (),
            r"^[ \t]*credential_file_override[ \t]*=",
            ("CLOUDSDK_CONFIG/configurations/config_*",),
        ),
        (
            (".oci/config",),
            ("OCI_CLI_CONFIG_FILE",),
            r"^[ \t]*(?:key_file|security_token_file)[ \t]*=",  # (the API key, a session's token)
            (),
        ),
        (
            (".my.cnf",),
            (),
            # (`loose-ssl-key`: MySQL applies an option with that prefix, where an older
            # client would only warn that it does not know it; `_` and `-` are one to it)
            r"^[ \t]*(?:loose[-_])?ssl[-_]key[ \t]*=",
            ("MYSQL_HOME/my.cnf",),
        ),
        ((".pypirc",), (), r"^[ \t]*client_cert[ \t]*[=:]", ()),
        (
            (".condarc", ".conda/.condarc", ".config/conda/.condarc"),
            ("CONDARC",),
            r"^[ \t]*client_ssl_cert(?:_key)?[ \t]*:",
            (),
        ),
        (
            (".hgrc", ".config/hg/hgrc"),
            ("HGRCPATH",),
            r"^[ \t]*[^\s=#;]+\.(?:key|cert)[ \t]*=",
            (),
        ),
        (
            (".config/rclone/rclone.conf",),
            ("RCLONE_CONFIG",),
            rf"^[ \t]*(?:{RCLONE_KEY_OPTIONS})[ \t]*=",
            (),
        ),
        (
            (".gradle/gradle.properties",),
            (),
            # (and the client key store Java's TLS takes; a key of Java's properties ends at
            # `=`, `:` or a blank, as a curl option does)
            rf"^[ \t\f]*(?:signing\.secretKeyRingFile|systemProp\.javax\.net\.ssl\.keyStore)"
            rf"{CURL_OPTION_END}",
            ("GRADLE_USER_HOME",),
        ),
        ((".boto",), ("BOTO_CONFIG", "BOTO_PATH"), r"^[ \t]*gs_service_key_file[ \t]*=", ()),
        (
            (".dbt/profiles.yml",),
            (),
            # (and the client keys of dbt-postgres's and dbt-redshift's `sslkey`, of
            # dbt-mysql's `ssl_key`)
            r"^[ \t-]*[\"']?(?:keyfile|private_key_path|sslkey|ssl_key)[\"']?[ \t]*:",
            ("DBT_PROFILES_DIR/profiles.yml",),
        ),
        (
            (".snowflake/connections.toml", ".snowflake/config.toml", ".snowsql/config"),
            (),
            r"^[ \t]*private_key_(?:file|path)[ \t]*=",
            ("SNOWFLAKE_HOME/connections.toml", "SNOWFLAKE_HOME/config.toml"),
        ),
        (
            (".offlineimaprc", ".config/offlineimap/config"),
            (),
            r"^[ \t]*(?:remotepassfile|sslclientkey)[ \t]*[=:]",
            (),
        ),
        ((".mbsyncrc", ".config/isyncrc"), (), r"^[ \t]*ClientKey[ \t]", ()),
        ((".msmtprc", ".config/msmtp/config"), (), r"^[ \t]*tls_key_file[ \t]", ()),
        (
            (".config/helm/repositories.yaml",),
            ("HELM_REPOSITORY_CONFIG",),
            r"^[ \t-]*keyFile[ \t]*:",
            (),
        ),
        (
            (".chef/config.rb", ".chef/knife.rb", ".chef/credentials"),
            (),
            r"^[ \t]*(?:client_key|validation_key)(?:[ \t]*=|[ \t])",
            (),
        ),
    )
)
# The configs that read others: MySQL's option files, Mercurial's.
CONFIG_INCLUDES = {
    ".my.cnf": {
        "include": _setting(r"^[ \t]*!include[ \t]"),
        "include_folder": _setting(r"^[ \t]*!includedir[ \t]"),
    },
    ".hgrc": {"include": _setting(r"^[ \t]*%include[ \t]")},
}
# The settings of those configs that give ssh its options, or a command line, and the system's
# configs read beside yours: ansible hands its ssh, scp and sftp the options of `ssh_args` and
# its kin (as it does ANSIBLE_SSH_ARGS) and runs `ssh_executable` as its ssh (a wrapper script,
# read as one: `wrapper_keys`), rclone's sftp runs its `ssh` setting's command line,
# its webdav runs `bearer_token_command`, mbsync runs `PassCmd` and msmtp `passwordeval` for a
# password (`cat ~/keys/mail.txt`).
CONFIG_COMMANDS = {
    ".ansible.cfg": {
        "ssh_options": _setting(
            r"^[ \t]*(?:(?:ssh(?:_common|_extra)?|scp_extra|sftp_extra)_args|ssh_executable)"
            r"[ \t]*[=:]"
        ),
        "system_configs": ("/etc/ansible/ansible.cfg",),
        "inventory": _setting(r"^[ \t]*(?:inventory|hostfile)[ \t]*[=:]"),
        "computed_paths": True,
    },
    ".config/rclone/rclone.conf": {
        "ssh_options": _setting(r"^[ \t]*ssh[ \t]*="),
        "command": _setting(r"^[ \t]*bearer_token_command[ \t]*="),
    },
    ".mbsyncrc": {"command": _setting(r"^[ \t]*PassCmd[ \t]")},
    ".msmtprc": {"command": _setting(r"^[ \t]*passwordeval[ \t]")},
}
CONFIG_KEY_SETTINGS = tuple(
    tool._replace(
        **CONFIG_INCLUDES.get(tool.configs[0], {}), **CONFIG_COMMANDS.get(tool.configs[0], {})
    )
    for tool in CONFIG_KEY_SETTINGS
)


# Maven's ssh key, `<privateKey>`: an element's text, on lines of its own too, and one of
# several on a line.
CONFIG_KEY_SETTINGS += (
    ToolKeySettings(
        (".m2/settings.xml",), (), re.compile(r"<privateKey\s*>\s*([^<]*)", re.IGNORECASE), None
    ),
)


# The ssh key podman-remote drives a remote podman with (`podman system connection add
# --identity`): `identity` in containers.conf (podman 4; yours, the drop-ins beside it, the
# ones your variables name, and the system's), `"Identity"` in podman-connections.json
# (podman 5, read as JSON text, on one line or many).
CONFIG_KEY_SETTINGS += (
    ToolKeySettings(
        (".config/containers/containers.conf", ".config/containers/containers.conf.d/*.conf"),
        ("CONTAINERS_CONF", "CONTAINERS_CONF_OVERRIDE"),
        _setting(r"^[ \t]*identity[ \t]*="),
        None,
        system_configs=("/etc/containers/containers.conf", "/usr/share/containers/containers.conf"),
    ),
    ToolKeySettings(
        (".config/containers/podman-connections.json",),
        (),
        re.compile(r'"Identity"\s*:\s*"([^"]*)"', re.IGNORECASE),
        None,
    ),
)


# AWS's `credential_process = cat ~/keys/aws.json`: a command that prints the keys.
CONFIG_KEY_SETTINGS += (
    ToolKeySettings(
        (".aws/config",),
        ("AWS_CONFIG_FILE",),
        None,  # (no setting names a key file by itself)
        None,
        command=_setting(r"^[ \t]*credential_process[ \t]*="),
    ),
)


# A value in double or single quotes, on one line.
QUOTED_VALUE = r"\"[^\"\r\n]*\"|'[^'\r\n]*'"


# Mail clients' password commands: mutt and neomutt run the text between backticks on any
# line (``set imap_pass=`cat ~/keys/mail` ``) and the command of a `source "... |"` line,
# whose output they read as settings (and a plain `source FILE` reads another config); aerc
# runs its `*-cred-cmd` settings, himalaya its `*.cmd` (`backend.auth.cmd`) and older
# `*-cmd` ones. Subversion's client certificate (`ssl-client-cert-file`) is a PKCS#12 file
# with its key, in `[global]` or a server group's section. cargo runs a registry's
# `credential-provider` (`["cargo:token-from-stdout", "cat", "/keys/crates"]`).
MUTT_CONFIGS = (".muttrc", ".mutt/muttrc", ".config/mutt/muttrc")
NEOMUTT_CONFIGS = (".neomuttrc", ".neomutt/neomuttrc", ".config/neomutt/neomuttrc")
# mutt's and neomutt's client certificate, which holds its key too (`set ssl_client_cert =
# "~/certs/mutt.pem"`), also as one of several settings on a line or in a hook's quoted command.
MUTT_CLIENT_CERT = re.compile(
    rf"\bssl_client_cert[ \t]*=[ \t]*({QUOTED_VALUE}|[^\s;#]+)", re.IGNORECASE
)
CONFIG_KEY_SETTINGS += (
    ToolKeySettings(
        (*MUTT_CONFIGS, *NEOMUTT_CONFIGS),
        (),
        MUTT_CLIENT_CERT,
        None,
        command=_setting(r"^[^#\r\n`]*`|^[ \t]*source[ \t]"),
        include=_setting(r"^[ \t]*source[ \t]"),
    ),
    ToolKeySettings(
        (".config/aerc/accounts.conf",),
        (),
        None,
        None,
        command=_setting(r"^[ \t]*[\w-]*cred-cmd[ \t]*="),
    ),
    ToolKeySettings(
        (".config/himalaya/config.toml", ".himalayarc"),
        ("HIMALAYA_CONFIG",),
        None,
        None,
        command=_setting(r"^[ \t]*(?:[\w.\"'-]*[.-])?cmd[\"']?[ \t]*="),
    ),
    ToolKeySettings(
        (".subversion/servers",),
        (),
        _setting(r"^[ \t]*ssl-client-cert-file[ \t]*="),
        None,
        system_configs=("/etc/subversion/servers",),
    ),
    ToolKeySettings(
        (".cargo/config.toml", ".cargo/config"),
        (),
        None,
        None,
        folder_variables=("CARGO_HOME/config.toml", "CARGO_HOME/config"),
        command=_setting(r"^[ \t]*(?:credential-provider|global-credential-providers)[ \t]*="),
    ),
)


# The TLS client keys and certificates (which may hold the key) of fetchmail, OpenLDAP's
# clients and lftp. fetchmail's rc is free-form, with `,`, `;` and `:` read as blanks, several
# settings on a line and a value on the line below (`poll x ... sslkey "~/k.pem"`); its
# `sslcertck`, `sslcertfile` and `sslcertpath` are others. OpenLDAP takes `TLS_KEY` and
# `TLS_CERT` from your ldaprc only (and from LDAPTLS_KEY, LDAPTLS_CERT; ldaprc_key_files).
# lftp's `set` takes a setting's name shortened and without its `ssl:` (`set key-file`),
# and per site (`set ssl:key-file/ftp.example.com`), several commands on a line.
FETCHMAIL_KEY_SETTINGS = ToolKeySettings(
    (".fetchmailrc",),
    (),
    re.compile(rf"(?:^|[\s,;:])sslkey\s+({QUOTED_VALUE}|[^\s,;:]+)", re.IGNORECASE),
    re.compile(rf"(?:^|[\s,;:])sslcert\s+({QUOTED_VALUE}|[^\s,;:]+)", re.IGNORECASE),
    folder_variables=("FETCHMAILHOME/fetchmailrc",),
)
LDAPRC_KEY_SETTINGS = ToolKeySettings(
    (".ldaprc", "ldaprc"), (), _setting(r"^[ \t]*TLS_KEY[ \t]"), _setting(r"^[ \t]*TLS_CERT[ \t]")
)
LFTP_SET = r"(?:^|;)[ \t]*set[ \t]+(?:[\w-]*:)?"
LFTP_SETTING_END = rf"(?:/[^\s;]*)?[ \t]+({QUOTED_VALUE}|[^\s;]+)"
CONFIG_KEY_SETTINGS += (
    FETCHMAIL_KEY_SETTINGS,
    LDAPRC_KEY_SETTINGS,
    ToolKeySettings(
        (".lftprc", ".lftp/rc", ".config/lftp/rc"),
        (),
        re.compile(
            rf"{LFTP_SET}key(?:-(?:f(?:i(?:le?)?)?)?)?{LFTP_SETTING_END}",
            re.IGNORECASE | re.MULTILINE,
        ),
        re.compile(
            rf"{LFTP_SET}cert(?:-(?:f(?:i(?:le?)?)?)?)?{LFTP_SETTING_END}",
            re.IGNORECASE | re.MULTILINE,
        ),
        folder_variables=("LFTP_HOME/rc", "XDG_CONFIG_HOME/lftp/rc"),
        system_configs=("/etc/lftp.conf",),
        include=_setting(r"^[ \t]*source[ \t]"),
    ),
)


def ldaprc_key_files(home: str) -> list[Path]:
    """The client keys the ldaprc your LDAPRC names gives OpenLDAP's clients (`ldapsearch`):
    a name, which they look for in your home as it is and with a dot before it."""
    name = os.environ.get("LDAPRC", "")
    found: list[Path] = []
    for config in [f"{home}/{name}", f"{home}/.{name}"] if name else []:
        try:
            text = read_small_file(os.path.normpath(config), cut=True, errors=PATH_BYTES)
        except (OSError, ValueError):
            continue
        found += _keys_a_config_names(LDAPRC_KEY_SETTINGS, text, home)
    return found


def tool_key_files(home: str) -> list[Path]:
    """The client keys (and certificates that hold one) your npm, pip, curl, yarn and wget
    configs name by path (TOOL_KEY_SETTINGS), the system's and npm's global one too, and the
    key and password files other tools' configs name (CONFIG_KEY_SETTINGS): the configs are
    hidden, the keys may lie anywhere. A relative path is from where the tool runs, unknown
    here. The configs they include are read too, and hidden. (Read for each command: a few
    small files.)"""
    found: list[Path] = []
    for tool in (*TOOL_KEY_SETTINGS, *CONFIG_KEY_SETTINGS):
        configs = _configs_of(tool, home)
        if tool is NPM_KEY_SETTINGS:  # (nvm's ~/.nvm/versions/node/v20/etc/npmrc)
            configs += [str(config) for config in npm_global_configs()]
        waiting = [(config, 0) for config in configs if os.path.isabs(config)]
        read: set[str] = set()
        while waiting and len(read) < MAX_TOOL_CONFIGS:
            config, depth = waiting.pop(0)
            if config in read:
                continue
            read.add(config)
            try:
                text = read_small_file(config, cut=True, errors=PATH_BYTES)  # (its first MiB)
            except (OSError, ValueError):
                continue
            found += _keys_a_config_names(tool, text, home)
            if tool.computed_paths and tool.key is not None:
                found += ansible_key_files(tool.key, text, config, home)
            for value in _setting_values(tool.inventory, text):
                folder = os.path.dirname(config)  # (a relative one is from the config's folder)
                found += inventory_key_files(value.split(","), home, folder)
            included = _included_configs(tool, text, config, home)
            found += [Path(path) for path in included]
            waiting += [(path, depth + 1) for path in included if depth < MAX_CONFIG_INCLUDES]
    inventories = [DEFAULT_ANSIBLE_INVENTORY, *os.environ.get("ANSIBLE_INVENTORY", "").split(",")]
    return found + inventory_key_files(inventories, home)


# The inventory ansible reads where no config or variable names one, and its settings that give
# a host's ssh its key (by any of their names) or its options, in an INI inventory's host line
# (`web1 ansible_ssh_private_key_file=~/keys/web.pem`) and `[group:vars]`, or a YAML one's
# mapping, there and in the `group_vars/` and `host_vars/` files beside it.
DEFAULT_ANSIBLE_INVENTORY = "/etc/ansible/hosts"
INVENTORY_KEY = re.compile(
    r"\bansible_(?:ssh_)?private_key_file[\"']?[ \t]*[=:][ \t]*([^\r\n]*)", re.IGNORECASE
)
INVENTORY_SSH_ARGS = re.compile(
    r"\bansible_(?:ssh_common|ssh_extra|scp_extra|sftp_extra)_args[\"']?[ \t]*[=:][ \t]*([^\r\n]*)",
    re.IGNORECASE,
)
# How many files of your inventories are read, at most (past that, the rest is not read).
MAX_INVENTORY_FILES = 512


def inventory_key_files(sources: list[str], home: str, folder: str = "") -> list[Path]:
    """The keys ansible's inventories `sources` (files or folders, a relative one from
    `folder`) give their hosts' ssh: `ansible_ssh_private_key_file` and the `-i` of
    `ansible_ssh_common_args` (INVENTORY_KEY, INVENTORY_SSH_ARGS), in the inventories and in
    the `group_vars/` and `host_vars/` files ansible reads beside them."""
    files: list[str] = []
    for source in filter(None, (source.strip() for source in sources)):
        path = os.path.normpath(os.path.join(folder, _home_expanded(source, home)))
        if not os.path.isabs(path):
            continue
        base = path if os.path.isdir(path) else os.path.dirname(path)
        files += [path] if not os.path.isdir(path) else _files_under(path)
        files += _files_under(os.path.join(base, "group_vars"))
        files += _files_under(os.path.join(base, "host_vars"))
    found: list[Path] = []
    for file in list(dict.fromkeys(files))[:MAX_INVENTORY_FILES]:
        try:
            text = read_small_file(file, cut=True, errors=PATH_BYTES)
        except (OSError, ValueError):
            continue
        if TEMPLATED_INVENTORY_KEY.search(text):  # (`"{{ key_dir }}/web.pem"`: commands ask)
            _UNTOLD[Path(file)] = _templated_inventory
        for value in INVENTORY_KEY.findall(text):
            for word in _inventory_values(value):
                found += _absolute(_home_expanded(word, home))
        for value in INVENTORY_SSH_ARGS.findall(text):
            for words in (value, *_inventory_values(value)):
                found += ssh_command_keys(f"ssh {words}", home)
        found += _structured_inventory_keys(text, home)
    return found


# The names of those settings, as a YAML or JSON inventory's keys.
INVENTORY_KEY_NAMES = ("ansible_ssh_private_key_file", "ansible_private_key_file")
INVENTORY_SSH_ARGS_NAMES = tuple(
    f"ansible_{kind}_args" for kind in ("ssh_common", "ssh_extra", "scp_extra", "sftp_extra")
)


def _structured_inventory_keys(text: str, home: str) -> list[Path]:
    """The keys an inventory or vars file read as YAML or JSON (ansible reads `.json` vars
    files and YAML flow style, `web1: {ansible_host: x, ansible_ssh_private_key_file: k}`)
    gives, wherever its lines put the value: on the next line, escaped (`"~\\/k.pem"`)."""
    data = None
    with contextlib.suppress(ValueError):  # (not JSON, or JSON no YAML reader takes: tabs)
        data = json.loads(text)
    if data is None:
        with contextlib.suppress(ValueError):  # (an INI inventory, or a `!vault` value)
            data = read_yaml(text)
    found: list[Path] = []
    for value in _values_of_keys(data, INVENTORY_KEY_NAMES):
        found += _absolute(_home_expanded(value, home))
    for value in _values_of_keys(data, INVENTORY_SSH_ARGS_NAMES):
        found += ssh_command_keys(f"ssh {value}", home)
    return found


def _inventory_values(value: str) -> list[str]:
    """What an inventory's setting may be set to: the first word of an INI host line, as its
    shell-like split takes it (`'~/my keys/a.pem' other=1`), a YAML line's whole value, and
    a flow mapping's or a JSON object's value, which ends at a `,` or a `}` (`~/k.pem, x: y}`,
    `"~/k.pem", "x": "y"}`)."""
    try:
        first = shlex.split(value, comments=True)[:1]
    except ValueError:
        first = []
    return [*first, value.strip().strip("\"'"), _flow_value(value)]


# A value in a YAML flow mapping or a JSON object: double-quoted (a `\"` inside), single-quoted
# (a `''` inside), or plain, up to a `,`, a `}` or a `]`.
FLOW_VALUE = re.compile(r"""[ \t]*(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^,}\]]*))""")


def _flow_value(value: str) -> str:
    """The value a line's rest (`value`) begins with, read as a flow mapping's or a JSON
    object's: unquoted as YAML and JSON unquote it, a plain one without its ` #` comment."""
    double, single, plain = FLOW_VALUE.match(value).groups()
    if double is not None:
        with contextlib.suppress(ValueError):  # (JSON's escapes, as YAML's double quotes take)
            return json.loads(f'"{double}"')
        return double
    if single is not None:
        return single.replace("''", "'")
    return re.sub(r"[ \t]#.*", "", plain).strip()


def _files_under(folder: str) -> list[str]:
    """The files in `folder` and below it (ansible reads a vars folder's files in all their
    subfolders), at most MAX_INVENTORY_FILES."""
    found: list[str] = []
    for parent, _folders, files in itertools.islice(os.walk(folder), MAX_INVENTORY_FILES):
        found += [os.path.join(parent, name) for name in files]
    return found[:MAX_INVENTORY_FILES]


# An inventory's key setting whose value is a template, which ansible works out as it connects
# (`ansible_ssh_private_key_file="{{ lookup('env', 'HOME') }}/keys/web.pem"`, `{{ key_dir }}`):
# what it names is not there to read.
TEMPLATED_INVENTORY_KEY = re.compile(
    r"\bansible_(?:(?:ssh_)?private_key_file|(?:ssh_common|ssh_extra|scp_extra|sftp_extra)_args)"
    r"[\"']?[ \t]*[=:][^\r\n]*?(?:\{\{|\{%)",
    re.IGNORECASE,
)


def _templated_inventory(path: Path) -> str | None:
    """Why the keys the inventory file `path` gives its hosts cannot be told, or None: a key
    setting of it is a template (TEMPLATED_INVENTORY_KEY), which may name any file."""
    try:
        text = read_small_file(path, cut=True, errors=PATH_BYTES)
    except (OSError, ValueError):
        return None
    if not TEMPLATED_INVENTORY_KEY.search(text):
        return None
    return (
        f"your ansible inventory {path} gives a host its ssh key by a template (`{{{{ ... }}}}`), "
        "which ansible works out as it connects and planloop cannot tell"
    )


# Your variable in a path setting, as `os.path.expandvars` puts it in: `$NAME` or `${NAME}`.
EXPANDVARS_VARIABLE = re.compile(r"\$(?:(\w+)|\{([^}]*)\})")


def ansible_key_files(setting: re.Pattern[str], text: str, config: str, home: str) -> list[Path]:
    """The files the path settings `setting` of the ansible config `config` (its `text`)
    name as ansible computes a path setting: your variables put in as `os.path.expandvars`
    does (an unset one stays as written), `~` (`home`), and a relative path from the config's
    folder. A value with a template (`{{CWD}}`, the folder ansible runs in) is none of these:
    it is noted, and commands ask (`keys_untold`)."""
    folder = os.path.dirname(config)
    environment = {**os.environ, "HOME": home}
    found = []
    for value in _setting_values(setting, text):
        for cut in dict.fromkeys([value, INLINE_COMMENT.sub("", value).strip().strip("\"'")]):
            if "{{" in cut or "{%" in cut:
                _UNTOLD[Path(config)] = functools.partial(_templated_config, setting)
                continue
            put_in = EXPANDVARS_VARIABLE.sub(
                lambda found: environment.get(found[1] or found[2], found[0]), cut
            )
            found += _absolute(os.path.join(folder, _home_expanded(put_in, home)))
    return found


def _templated_config(setting: re.Pattern[str], path: Path) -> str | None:
    """Why the files the ansible config `path` names by `setting` cannot be told, or None: a
    value of it holds a template."""
    try:
        text = read_small_file(path, cut=True, errors=PATH_BYTES)
    except (OSError, ValueError):
        return None
    if not any("{{" in value or "{%" in value for value in _setting_values(setting, text)):
        return None
    return (
        f"your ansible config {path} names a key or password file by a template (`{{{{CWD}}}}`, "
        "the folder ansible runs in), which planloop cannot tell"
    )


# How deep a tool's config includes are followed, and how many of its configs are read.
MAX_CONFIG_INCLUDES = 16
MAX_TOOL_CONFIGS = 64


def _configs_of(tool: ToolKeySettings, home: str) -> list[str]:
    """The configs of `tool` in `home`, where your variables put them, and the system's."""
    configs = [
        path for name in tool.configs for path in glob.glob(os.path.join(glob.escape(home), name))
    ]
    configs += where_your_xdg_config_home_moves(tool.configs)
    for variable in tool.variables:
        for value in os.environ.get(variable, "").split(os.pathsep):
            rc_files = os.path.join(glob.escape(value), "*.rc")  # (Mercurial's, in a folder)
            configs += sorted(glob.glob(rc_files)) if os.path.isdir(value) else [value]
    for entry in tool.folder_variables:
        variable, _, name = entry.partition("/")
        folder = os.environ.get(variable, "")
        name = name or os.path.basename(tool.configs[0])
        configs += sorted(glob.glob(os.path.join(glob.escape(folder), name))) if folder else []
    return [*configs, *tool.system_configs]


def where_your_xdg_config_home_moves(names: tuple[str, ...]) -> list[str]:
    """The configs of `names` (home-relative, glob patterns) under `.config/` that are where
    your XDG_CONFIG_HOME moves them: each tool that reads `~/.config/<tool>` reads
    `$XDG_CONFIG_HOME/<tool>` instead once it is set (a relative one is ignored, as the XDG
    specification says)."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(xdg):
        return []
    moved = [name.removeprefix(".config/") for name in names if name.startswith(".config/")]
    return [path for name in moved for path in glob.glob(os.path.join(glob.escape(xdg), name))]


def _included_configs(tool: ToolKeySettings, text: str, config: str, home: str) -> list[str]:
    """The configs the config `config` of `tool` (its `text`) reads: its include lines'
    files, a relative one from its own folder, as Mercurial takes it, and the `*.cnf` files of
    its included folders."""
    folder = os.path.dirname(config)
    files = [
        os.path.normpath(os.path.join(folder, _shell_expanded(value, home)))
        for value in _setting_values(tool.include, text)
    ]
    for value in _setting_values(tool.include_folder, text):
        included = os.path.join(folder, _shell_expanded(value, home))
        files += sorted(glob.glob(os.path.join(glob.escape(os.path.normpath(included)), "*.cnf")))
    return files


def _setting_values(setting: re.Pattern[str] | None, text: str) -> list[str]:
    """The values of `setting` in `text`, unquoted."""
    if setting is None:
        return []
    return [value.strip().strip("\"'") for value in setting.findall(text) if value.strip()]


def _keys_a_config_names(tool: ToolKeySettings, text: str, home: str) -> list[Path]:
    """The keys, and certificates that may hold one, that a config of `tool` (its `text`)
    names."""
    found = _setting_paths(tool.key, text, home) if tool.key is not None else []
    for line in tool.command.findall(text) if tool.command is not None else ():
        found += helper_reads(line, home)
    for line in tool.ssh_options.findall(text) if tool.ssh_options is not None else ():
        found += ssh_command_keys(f"ssh {line}", home)
    if tool.certificate is not None:
        certificates = _setting_paths(tool.certificate, text, home)
        certificates += [file for path in certificates if (file := _without_password(path))]
        forms = tool.certificate_form.findall(text) if tool.certificate_form else []
        found += certificates_with_a_key(certificates, forms)
    return found


# Your variables that give a tool its client certificate, with the one that gives its form:
# git's http.sslCert (a CI runner's) and http.proxySSLCert, yarn's httpsCertFilePath (yarn
# reads each setting from `YARN_<SETTING>`), conda's client_ssl_cert.
CERTIFICATE_VARIABLES = {
    "GIT_SSL_CERT": "GIT_SSL_CERT_TYPE",
    "GIT_PROXY_SSL_CERT": "GIT_PROXY_SSL_CERT_TYPE",
    "YARN_HTTPS_CERT_FILE_PATH": "",
    "CONDA_CLIENT_SSL_CERT": "",
    "LDAPTLS_CERT": "",  # (OpenLDAP's)
}


def certificates_of_your_environment(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The client certificates your environment gives your tools (CERTIFICATE_VARIABLES),
    where they may hold the key (`certificates_with_a_key`, with the form given)."""
    found = []
    for variable, form in CERTIFICATE_VARIABLES.items():
        certificate = environ.get(variable, "")
        if os.path.isabs(certificate):
            found += certificates_with_a_key([Path(certificate)], [environ.get(form, "")])
    return found


# Your variables that give Java its options, read by every JVM (JAVA_TOOL_OPTIONS,
# _JAVA_OPTIONS, JDK_JAVA_OPTIONS) or by a launcher (Maven's, Gradle's, sbt's, Ant's, and the
# usual start scripts' JAVA_OPTS), and the option among them that names the client key store
# Java's TLS logs in with (as Gradle's `systemProp.javax.net.ssl.keyStore` does).
JAVA_OPTION_VARIABLES = (
    *("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_OPTS"),
    *("MAVEN_OPTS", "GRADLE_OPTS", "SBT_OPTS", "ANT_OPTS"),
)
JAVA_KEY_STORE_OPTION = re.compile(r"-Djavax\.net\.ssl\.keyStore=(.*)", re.IGNORECASE | re.DOTALL)


def key_stores_of_your_environment(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The client key stores your Java options name (JAVA_OPTION_VARIABLES), each word of
    them taken both as Java splits it (quotes group) and at blanks, so a quote no shell would
    close still leaves the path found."""
    found = []
    for variable in JAVA_OPTION_VARIABLES:
        value = environ.get(variable, "")
        try:
            words = [*shlex.split(value), *value.split()]
        except ValueError:
            words = value.split()
        for word in words:
            if option := JAVA_KEY_STORE_OPTION.fullmatch(word):
                found += _absolute(_home_expanded(option[1].strip("\"'"), None))
    return found


# Kerberos' variables that name your ticket cache (a live ticket-granting ticket) and your
# keytabs (each a password's equal): a cache's type before a colon, `FILE:` or none a file,
# `DIR:` a folder of caches (`DIR::PATH` one cache in it), `WRFILE:` a keytab written to; the
# other types (`KEYRING:`, `KCM:`, `MEMORY:`) are no file.
KERBEROS_VARIABLES = ("KRB5CCNAME", "KRB5_CLIENT_KTNAME", "KRB5_KTNAME")
KERBEROS_FILE_TYPES = ("FILE", "WRFILE")


# Kerberos' config (or those your KRB5_CONFIG lists), its settings that name the default cache
# and client keytab, as the variables do, and the configs it reads in turn; and its tokens
# (`FILE:/home/%{username}/.krb5cc`).
KERBEROS_CONFIG = "/etc/krb5.conf"
KERBEROS_FILE_SETTING = re.compile(
    r"^[ \t]*(?:default_ccache_name|default_client_keytab_name)[ \t]*=[ \t]*([^\r\n]*)",
    re.MULTILINE,
)
KERBEROS_INCLUDE = re.compile(r"^[ \t]*include(dir)?[ \t]+([^\r\n]*)", re.MULTILINE)
KERBEROS_TOKEN = re.compile(r"%\{(\w+)\}")
MAX_KERBEROS_CONFIGS = 64


def kerberos_files_of_your_environment(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The ticket cache and keytab files your Kerberos variables (KERBEROS_VARIABLES) and
    config name."""
    found = []
    for kind, path in map(_kerberos_name, _kerberos_names(environ)):
        if kind in KERBEROS_FILE_TYPES or (kind == "DIR" and path.startswith(":")):
            found += _absolute(path.removeprefix(":"))
    return found


def kerberos_folders_of_your_environment(environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The folders of ticket caches your KRB5CCNAME or Kerberos config names
    (`DIR:~/.krb5/caches`): each `kinit` of another principal makes a new cache there."""
    found = []
    for kind, path in map(_kerberos_name, _kerberos_names(environ)):
        found += _absolute(path) if kind == "DIR" and not path.startswith(":") else []
    return found


def _kerberos_names(environ: Mapping[str, str]) -> list[str]:
    """The cache and keytab names your Kerberos variables hold and your Kerberos configs set
    (KERBEROS_FILE_SETTING), theirs with the tokens put in; each config once, the files an
    `include` names and those of an `includedir`, up to MAX_KERBEROS_CONFIGS."""
    names = [environ.get(name, "") for name in KERBEROS_VARIABLES]
    waiting = environ.get("KRB5_CONFIG", KERBEROS_CONFIG).split(":")
    read: set[str] = set()
    while waiting and len(read) < MAX_KERBEROS_CONFIGS:
        config = waiting.pop(0)
        if config in read or not os.path.isabs(config):
            continue
        read.add(config)
        looked_at(config)
        try:
            text = read_small_file(config, cut=True, errors=PATH_BYTES)
        except (OSError, ValueError):
            continue
        names += [
            _kerberos_tokens_put_in(value.strip()) for value in KERBEROS_FILE_SETTING.findall(text)
        ]
        for folder, included in KERBEROS_INCLUDE.findall(text):
            included = included.strip()
            if folder:  # (a folder's files, as `includedir` reads them)
                waiting += sorted(glob.glob(os.path.join(glob.escape(included), "*")))
            else:
                waiting.append(included)
    return names


def _kerberos_tokens_put_in(value: str) -> str:
    """A Kerberos config's name with its tokens put in as Kerberos does: your uid, euid and
    user name, the temporary folder; an unknown one is left as it is."""
    tokens = {
        "uid": str(os.getuid()),
        "euid": str(os.geteuid()),
        "username": _user_name(),
        "TEMP": os.environ.get("TMPDIR", "/tmp"),
        "null": "",
    }
    return KERBEROS_TOKEN.sub(lambda found: tokens.get(found[1], found[0]), value)


def _kerberos_name(value: str) -> tuple[str, str]:
    """A Kerberos cache or keytab name's type, in capitals, and its path: the text before the
    first colon is the type unless it holds a `/` (Kerberos' own rule), else the type is FILE."""
    kind, colon, path = value.partition(":")
    return (kind.upper(), path) if colon and "/" not in kind else ("FILE", value)


# A password after a certificate's name (curl's `cert = ~/certs/client.p12:secret`): from the
# first colon that no backslash escapes.
PASSWORD_AFTER_NAME = re.compile(r"(?<!\\):.*")


def _without_password(certificate: Path) -> Path | None:
    """The certificate's file where its name ends in a password (PASSWORD_AFTER_NAME)."""
    name = PASSWORD_AFTER_NAME.sub("", str(certificate)).replace("\\:", ":")
    return Path(name) if name != str(certificate) else None


# Your variable in a setting's value (`keyfile=${CI_KEYS}/npm.key`), which npm and yarn put
# in (npm's `${NAME?}` too), and Maven's properties (`${user.home}`, `${env.CI_KEYS}`).
SETTING_VARIABLE = re.compile(r"\$\{([\w.]+)\??\}")


# A comment after a setting's value (`keyfile=~/keys/npm.key ; work`), which npm's, MySQL's
# and ansible's parsers leave out of it: a path is taken both with and without it.
INLINE_COMMENT = re.compile(r"[#;].*")


def _setting_paths(setting: re.Pattern[str], text: str, home: str) -> list[Path]:
    # (`<privateKey>~/.ssh/deploy</privateKey>`: the value ends at the tag)
    values = [value.partition("<")[0] for value in setting.findall(text)]
    values += [cut for value in values if (cut := INLINE_COMMENT.sub("", value)) != value]
    values = (value.strip().strip("\"'") for value in values)
    values = (SETTING_VARIABLE.sub(lambda found: _variable(found[1], home), v) for v in values)
    return [path for value in values for path in _absolute(_home_expanded(value, home))]


def _variable(name: str, home: str) -> str:
    """The value of your variable `name` in a setting, or of Maven's property of your home
    (`user.home`) or your environment (`env.NAME`); empty when unset."""
    if name == "user.home":
        return home
    return os.environ.get(name.removeprefix("env."), "")


# A line of an npmrc that holds a registry login (`//registry.npmjs.org/:_authToken=...`).
NPM_LOGIN_LINE = re.compile(
    rf"^[^#;\n]*(?:_authToken|_auth|_password|certfile|keyfile){NPM_KEY_END}", re.MULTILINE
)


def npm_global_configs() -> list[Path]:
    """npm's global config (`npm config set --location=global`) where it holds a registry
    login: `etc/npmrc` under npm's prefix, which is where your NPM_CONFIG_PREFIX says, or the
    folder above the one on your PATH that node is run from (nvm's
    `~/.nvm/versions/node/v20/bin`); or the file your NPM_CONFIG_GLOBALCONFIG names, in any
    letter case (`npm_variable`). One without a login stays readable: npm inside the sandbox
    reads its registry settings there."""
    prefixes = npm_variable("NPM_CONFIG_PREFIX")
    prefixes += [os.path.dirname(folder) for folder in os.environ.get("PATH", "").split(":")]
    candidates = [os.path.join(prefix, "etc", "npmrc") for prefix in prefixes if prefix]
    candidates += npm_variable("NPM_CONFIG_GLOBALCONFIG")
    found = []
    for candidate in dict.fromkeys(path for path in candidates if os.path.isabs(path)):
        try:
            text = read_small_file(candidate, cut=True)
        except (OSError, ValueError):
            continue
        if NPM_LOGIN_LINE.search(text):
            found.append(Path(os.path.normpath(candidate)))
    return found


def npm_variable(name: str, environ: Mapping[str, str] = os.environ) -> list[str]:
    """The values of your variables that npm takes as `name` (`NPM_CONFIG_PREFIX`): npm reads
    its `npm_config_*` variables in any letter case (`npm_config_prefix`, which its own
    scripts set, is the usual one)."""
    wanted = name.lower()
    return [value for variable, value in environ.items() if variable.lower() == wanted and value]


# chezmoi's configs (`chezmoi.toml`, `.yaml`, `.json`, `.jsonc`; it reads the one there is),
# in your XDG_CONFIG_HOME's `chezmoi/`, else ~/.config/chezmoi, and in the system's XDG folders.
CHEZMOI_CONFIG_NAMES = (
    *("chezmoi.toml", "chezmoi.yaml", "chezmoi.yml", "chezmoi.json", "chezmoi.jsonc"),
)
# Its age identity settings, as a line: `identity = "~/key.txt"`, `identities: [a, b]`,
# `age.identity = ...` (whose values are read as a flow list's or a JSON one's strings).
CHEZMOI_IDENTITY_LINE = re.compile(
    r"^[ \t]*[\"']?(?:age\.)?identit(?:y|ies)[\"']?[ \t]*[=:][ \t]*\[?([^\r\n]*)",
    re.IGNORECASE | re.MULTILINE,
)
# age's options that name an identity file, as chezmoi's `age.args` may hand them to age.
AGE_IDENTITY_OPTIONS = ("-i", "--identity")


def chezmoi_age_identities(home: str) -> list[Path]:
    """The age identities your chezmoi config names (`[age] identity = "~/key.txt"`, and the
    list of `identities`, the `-i` of its `args`): each decrypts every file chezmoi keeps
    encrypted in its source folder, which stays readable, so it is hidden where it lies, as
    the default `~/.config/chezmoi/key.txt` is. The config is read as chezmoi reads it, and its
    lines too, for one no parser here takes (chezmoi's keys have no letter case)."""
    folders = [os.path.join(home, ".config"), os.environ.get("XDG_CONFIG_HOME", "")]
    folders += os.environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep)
    found: list[Path] = []
    for folder in filter(os.path.isabs, dict.fromkeys(folders)):
        for name in CHEZMOI_CONFIG_NAMES:
            config = os.path.join(folder, "chezmoi", name)
            looked_at(config)
            try:
                text = read_small_file(config, cut=True, errors=PATH_BYTES)
            except (OSError, ValueError):
                continue
            values = _chezmoi_age_values(config, text)
            for rest in CHEZMOI_IDENTITY_LINE.findall(text):
                values += [_flow_value(rest), *_quoted_strings(rest)]
            found += [path for value in values for path in _absolute(_home_expanded(value, home))]
    return found


# A quoted string on a line (a flow list's item, `["~/a.txt", '~/b.txt']`).
QUOTED_STRING = re.compile(r"\"([^\"\r\n]*)\"|'([^'\r\n]*)'")


def _quoted_strings(line: str) -> list[str]:
    return [double or single for double, single in QUOTED_STRING.findall(line)]


def _chezmoi_age_values(config: str, text: str) -> list[str]:
    """The identity files a chezmoi config (`config`, its `text`) names in its `age` table:
    `identity`, `identities`, and the `-i FILE` or `--identity=FILE` of its `args`."""
    data: object = None
    with contextlib.suppress(ValueError):  # (read by its lines alone, then)
        if config.endswith(".toml"):
            data = toml_data(text)
        elif config.endswith((".json", ".jsonc")):
            data = json.loads(without_comments(text))
        else:
            data = read_yaml(text)
    age = _setting_of(data, "age")
    values = [_setting_of(age, "identity"), *_list_of(_setting_of(age, "identities"))]
    arguments = [str(argument) for argument in _list_of(_setting_of(age, "args"))]
    for argument, after in itertools.pairwise([*arguments, ""]):
        values.append(after if argument in AGE_IDENTITY_OPTIONS else None)
        values.append(
            argument[len("--identity=") :] if argument.startswith("--identity=") else None
        )
    return [value for value in values if isinstance(value, str)]


def _setting_of(table: object, name: str) -> object:
    """A table's setting `name`, in any letter case (as chezmoi reads its config), or None."""
    if not isinstance(table, dict):
        return None
    return next((value for key, value in table.items() if str(key).lower() == name), None)


def _list_of(value: object) -> list[object]:
    return value if isinstance(value, list) else []
