"""What planloop takes from your environment and from a workspace's .env (settings.py), and
what a command's environment keeps (tools/environment.py)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from conftest import run_cli

from fakeapi import text, tool_use
from settings import SettingsError, read_settings
from tools.environment import command_environment, without_secrets
from tools.landlock import READY_VARIABLE
from tools.sandbox import Bubblewrap, NoSandbox

REPOSITORY_ENDPOINT = "http://repository.test"


def settings_with(workspace: Path, dotenv: str, **environ: str):
    (workspace / ".env").write_text(dotenv)
    return read_settings(workspace, environ)


def test_your_key_comes_with_your_endpoint_or_none(workspace):
    dotenv = f"ANTHROPIC_BASE_URL={REPOSITORY_ENDPOINT}\nANTHROPIC_AUTH_TOKEN=theirs\n"
    settings = settings_with(workspace, dotenv, ANTHROPIC_API_KEY="yours")
    assert (settings.api_key, settings.auth_token, settings.base_url) == ("yours", None, None)
    assert len(settings.notices) == 1 and "ANTHROPIC_BASE_URL" in settings.notices[0]
    assert settings.client_options() == {"api_key": "yours", "base_url": None}


def test_your_token_is_yours_too(workspace):
    dotenv = f"ANTHROPIC_API_KEY=theirs\nANTHROPIC_BASE_URL={REPOSITORY_ENDPOINT}\n"
    settings = settings_with(workspace, dotenv, ANTHROPIC_AUTH_TOKEN="yours")
    assert settings.client_options() == {"auth_token": "yours", "base_url": None}


def test_a_key_from_the_file_may_bring_its_endpoint_and_yours_still_wins(workspace):
    dotenv = f"ANTHROPIC_API_KEY=theirs\nANTHROPIC_BASE_URL={REPOSITORY_ENDPOINT}\n"
    assert settings_with(workspace, dotenv).base_url == REPOSITORY_ENDPOINT
    mine = settings_with(workspace, dotenv, ANTHROPIC_BASE_URL="http://mine.test")
    assert (mine.api_key, mine.base_url, mine.notices) == ("theirs", "http://mine.test", ())


def test_only_planloop_names_are_read_and_os_environ_is_untouched(workspace, monkeypatch):
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    before = dict(os.environ)
    dotenv = "LD_PRELOAD=./evil.so\nPLANLOOP_HOME=.planloop\nMODEL_ID=their-model\n"
    settings = settings_with(workspace, dotenv, MODEL_ID="", ANTHROPIC_API_KEY="yours")
    assert settings.model == "their-model"  # an empty variable counts as unset
    assert dict(os.environ) == before
    assert any("PLANLOOP_HOME" in notice for notice in settings.notices)


def test_lines_of_the_file_that_cannot_be_parsed_are_named_once(workspace, capfd):
    settings = settings_with(workspace, "MODEL_ID=x\n" + "not a line\n" * 4)
    assert settings.model == "x"
    assert settings.notices == (
        f"{workspace / '.env'}: lines 2 and on could not be parsed (4 in all), and set nothing.",
    )
    assert capfd.readouterr().err == ""  # not a warning a line, as python-dotenv prints them
    one = settings_with(workspace, "bad line\nMODEL_ID=y\n")
    assert one.notices == (f"{workspace / '.env'}: line 1 could not be parsed, and set nothing.",)


def test_a_dotenv_of_more_lines_than_planloop_reads_is_refused_in_one_line(workspace):
    # 15 MiB of short lines made every start take 80 s, parsing.
    with pytest.raises(SettingsError, match="more than 100,000 lines"):
        settings_with(workspace, "MODEL_ID=x\n" + "x\n" * 100_000)


def test_no_workspace_means_the_environment_alone(workspace):
    (workspace / ".env").write_text("ANTHROPIC_API_KEY=theirs\nMODEL_ID=their-model\n")
    settings = read_settings(None, {"MODEL_ID": "yours"})
    assert (settings.api_key, settings.model) == (None, "yours")


PERSON = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/someone",
    "LANG": "C.UTF-8",
    "TERM": "xterm",
    "ANTHROPIC_API_KEY": "key",
    "anthropic_base_url": "http://lower.test",
    "LD_PRELOAD": "/x.so",
    "LD_AUDIT": "/y.so",
    "BASH_ENV": "/hidden.sh",
    "BASH_FUNC_ls%%": "() { evil; }",
    "PYTHONPATH": "/x",
    "GIT_SSH_COMMAND": "evil",
    "GIT_CONFIG_COUNT": "1",
    "NODE_OPTIONS": "--require /x.js",
    "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
    "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus",
    "DOCKER_HOST": "unix:///var/run/docker.sock",
}
KEPT = {"PATH", "HOME", "LANG", "TERM"}
SOCKETS = {"SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST"}


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_command_gets_your_environment_without_code_runners_or_the_key(sandboxed):
    environment = command_environment(sandboxed, PERSON)
    assert set(environment) == (KEPT if sandboxed else KEPT | SOCKETS)


# Tokens of well-known services at their real lengths, in variables whose names say nothing.
RANDOM = "Q7xK2mP9vL4nR8sT1wY6zA3bC5dE0fG"
HEX = "0123456789abcdef0123456789abcdef"
SERVICE_TOKENS = {
    "slack webhook": f"https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/{RANDOM[:24]}",
    "discord webhook": f"https://discord.com/api/webhooks/123456789012345678/{RANDOM * 2}",
    "grafana": f"glsa_{RANDOM}_0a1b2c3d",
    "sentry": f"sntrys_eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoi{RANDOM}",
    "linear": f"lin_api_{RANDOM}abcdefghij",
    "replicate": f"r8_{RANDOM}abcdefgh",
    "perplexity": f"pplx-{RANDOM}abcdefghijklmnopq",
    "notion": f"ntn_{RANDOM}abcdefghijklmno",
    "figma": f"figd_{RANDOM}abcdefghij",
    "atlassian": f"ATATT3xFfGF0{RANDOM * 2}=ABCD1234",
    "doppler": f"dp.st.prd.{RANDOM}abcdefghij",
    "vault": f"hvs.CAESI{RANDOM}abcdefghijklmnopqrstuvwxyz0123",
    "terraform cloud": f"abcdEFGH12345.atlasv1.{RANDOM * 2}",
    "1password": f"ops_eyJzaWduSW5BZGRyZXNzIjoibXkuMXBh{RANDOM}",
    "fly": f"FlyV1 fm2_lJPECAAAAAAAA{RANDOM * 2}",
    "supabase": f"sbp_{HEX}01234567",
    "planetscale": f"pscale_tkn_{RANDOM}abcdefghij",
    "mailgun": f"key-{HEX}",
    "rubygems": f"rubygems_{HEX}{HEX[:16]}",
    "postman": f"PMAK-{HEX[:24]}-{HEX}01",
    "databricks": f"dapi{HEX}",
    "telegram bot": f"123456789:AAF{RANDOM}abc",
    "mapbox": f"sk.eyJ1IjoibWFwYm94IiwiYSI6ImNrMDEy.{RANDOM[:22]}",
    "netlify": f"nfp_{RANDOM}abcdefghi",
    "cloudflare origin ca": f"v1.0-{HEX[:24]}-{HEX * 4}",
    "heroku": f"HRKU-{HEX}{HEX[:13]}",
    # An address whose query or fragment carries the token (a feed's, a webhook's, maps').
    "query token": "https://api.example.com/hook?token=S3cretTok12",
    "query access token": "https://api.example.com/feed?access_token=S3cretTok12",
    "fragment access token": "https://example.com/cb#access_token=S3cretTok12",
    # ... however the parameter is spelt: GitLab's feed, S3's presigned address, and kin.
    "query private token": "https://gitlab.example.com/x.atom?private_token=S3cretTok12",
    "query auth token": "https://api.example.com/x?auth_token=S3cretTok12",
    "query api key in camel case": "https://api.example.com/x?apiKey=S3cretTok12",
    "query token in capitals": "https://api.example.com/x?Token=S3cretTok12",
    "query token with a dash": "https://api.example.com/x?access-token=S3cretTok12",
    "presigned address": "https://b.s3.amazonaws.com/k?X-Amz-Signature=0a1b2c3d4e5f6a7b",
    # Keys by their form: a PEM private key, a service account's JSON.
    "pem private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=",
    "service account": '{"type": "service_account", "private_key": "x"}',
    # and private keys in other forms than PEM: armored PGP (Gradle's in-memory signing key),
    # an age identity, a WireGuard config, a PuTTY key.
    "pgp private key": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBGXabc\n",
    "age identity": "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS6S5F",
    "wireguard config": "[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\n",
    "putty key": "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n",
    # RFC 4716's form (PuTTYgen's export), a PEM key base64'd onto one line as CI carries it,
    # and a JSON Web Key with its private part.
    "ssh2 private key": "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: x\nP2/56wAAAi4\n",
    "base64 pem key": base64.b64encode(b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n").decode(),
    "jwk private key": '{"kty": "EC", "crv": "P-256", "d": "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fC"}',
}


@pytest.mark.parametrize("token", SERVICE_TOKENS.values(), ids=SERVICE_TOKENS.keys())
def test_a_well_known_services_token_never_reaches_a_sandboxed_command(token):
    person = {"PATH": "/usr/bin", "SETTING": token, "LANG": "C.UTF-8"}
    assert set(command_environment(True, person)) == {"PATH", "LANG"}
    assert set(command_environment(False, person)) == set(person)  # (a command you approved)


@pytest.mark.parametrize(
    "value",
    [
        *("key-value", "https://hooks.slack.com/", "12345:abc", "dapi", "fm2_short", "v1.0-3"),
        *("https://example.com/?page=12345678", "-----BEGIN PUBLIC KEY-----"),
        *("-----BEGIN PGP PUBLIC KEY BLOCK-----", "AGE-SECRET-KEY-1", "PrivateKeyPath=/k.pem"),
        "PublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=",
        # a certificate base64'd, a public JWK, a JSON "d" of no key
        base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n").decode(),
        '{"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"}',
        '{"d": "2026-12-07T03:00:00Z", "n": 1}',
    ],
)
def test_a_value_that_only_begins_like_a_token_is_passed_on(value):
    assert command_environment(True, {"SETTING": value}) == {"SETTING": value}


def test_no_anthropic_variable_is_put_into_a_repository_s_text(monkeypatch):
    # A gateway's header (`x-portkey-virtual-key: ...`) says nothing secret by its form; no
    # command gets it, and a repository's `${env:ANTHROPIC_CUSTOM_HEADERS}` is no way round.
    person = {"PATH": "/usr/bin", "ANTHROPIC_CUSTOM_HEADERS": "x-portkey-virtual-key: 7f3c9a1e5b"}
    assert without_secrets(person) == {"PATH": "/usr/bin"}


def test_both_sandboxes_and_bwrap_itself_use_the_command_environment(workspace, monkeypatch):
    for name, value in PERSON.items():
        monkeypatch.setenv(name, value)
    _, bwrap_env = Bubblewrap().wrap(workspace, "true")
    _, direct_env = NoSandbox().wrap(workspace, "true")
    # (and one name of planloop's own: its sandbox says when bwrap is done, tools/process.py)
    made = {READY_VARIABLE: ""} if Bubblewrap().landlock else {}
    assert bwrap_env == {**command_environment(True), **made} and "LD_PRELOAD" not in bwrap_env
    assert direct_env == command_environment(False) and "SSH_AUTH_SOCK" in direct_env


@pytest.mark.parametrize("padded", ['" {key}"', '"{key}\\t"'])
def test_a_key_with_blanks_around_it_is_used_and_redacted_bare(api, env, workspace, padded):
    # Pasted with a blank before it or a tab after: the blanks are no part of the key, and the
    # bare key in a file the model reads is blanked out as the padded one would be.
    key = env.pop("ANTHROPIC_API_KEY")
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={padded.format(key=key)}\n")
    (workspace / "notes.txt").write_text(f"deploy with {key}\n")
    api.add({"content": [tool_use("read_file", {"path": "notes.txt"})]})
    api.add({"content": [text("Read.")]})
    result = run_cli("-p", "read the notes", cwd=workspace, env=env)
    assert result.returncode == 0, result.stderr
    [_, second] = api.accepted
    assert key not in str(second) and "[redacted]" in str(second)


def test_a_dotenv_past_sixteen_mib_is_refused_not_read(workspace):
    (workspace / ".env").write_bytes(b"ANTHROPIC_MODEL=x\n" + b"#" * (17 * 1024 * 1024))
    with pytest.raises(SettingsError, match="larger than planloop reads"):
        read_settings(workspace, {"ANTHROPIC_API_KEY": "yours-1234567890"})
