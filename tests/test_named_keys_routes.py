"""Key and password files your own environment and configs name by the other routes the tools
take: npm's variables in lower case, git's proxy variables, a shell variable in a credential
helper's line, a config of more than a megabyte, a config a variable moves and the configs a
config includes, Maven's `${user.home}`. Each must read as empty to a sandboxed `cat`.
"""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import run
from test_hostile_pass4 import AS_NOBODY, can_switch_user
from test_sandbox_escapes import home, needs_bwrap, secrets_in, secrets_read

from tools import kept, named_keys
from tools.bash import run_bash
from tools.sandbox import Bubblewrap

__all__ = ["home"]  # the fixture, used by name

PEM_KEY = "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def secrets_read_once_exported(
    home: Path, workspace: Path, monkeypatch, names: list[str], variables: dict[str, str]
) -> list[str]:
    """Those of `names` in ~/keys a sandboxed `cat` reads once your environment holds
    `variables` (`{keys}` standing for ~/keys in their values)."""
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, names)
    for name, value in variables.items():
        monkeypatch.setenv(name, value.replace("{keys}", str(keys)))
    return secrets_read(workspace, names)


@needs_bwrap
def test_npms_global_config_your_lower_case_variables_name_and_its_key_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # npm reads `npm_config_*` in any letter case, and its own scripts set the lower-case one.
    monkeypatch.setenv("HOME", str(home))
    names = ["globalrc", "global.key", "prefix.key", "userrc"]
    keys = secrets_in(home, names)
    (keys / "globalrc").write_text(
        f"//npm.example/:_authToken=SECRET-globalrc\n//npm.example/:keyfile={keys}/global.key\n"
    )
    write(
        home / "npmp/etc/npmrc",
        f"//npm.example/:_authToken=tok\n//npm.example/:keyfile={keys}/prefix.key\n",
    )
    monkeypatch.setenv("npm_config_globalconfig", str(keys / "globalrc"))
    monkeypatch.setenv("npm_config_prefix", str(home / "npmp"))
    monkeypatch.setenv("Npm_Config_UserConfig", str(keys / "userrc"))
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_the_key_and_certificate_gits_proxy_variables_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, ["proxy.key", "proxy.pem"])
    (keys / "proxy.pem").write_text(f"SECRET-proxy.pem\n{PEM_KEY}")
    monkeypatch.setenv("GIT_PROXY_SSL_KEY", str(keys / "proxy.key"))
    monkeypatch.setenv("GIT_PROXY_SSL_CERT", str(keys / "proxy.pem"))
    assert secrets_read(workspace, ["proxy.key", "proxy.pem"]) == []
    # (a certificate of another form than PEM, as GIT_PROXY_SSL_CERT_TYPE gives, holds its key)
    (keys / "proxy.pem").write_text(
        "-----BEGIN CERTIFICATE-----\nSECRET-proxy.pem\n-----END CERTIFICATE-----\n"
    )
    monkeypatch.setenv("GIT_PROXY_SSL_CERT_TYPE", "P12")
    assert secrets_read(workspace, ["proxy.key", "proxy.pem"]) == []


@needs_bwrap
def test_the_files_your_password_command_and_key_file_variables_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # borg, restic, rclone and sops run your command for a passphrase or a key (borg's own
    # example: `cat $HOME/.borg-passphrase`); sops and tsh also take a key file by a variable.
    names = ["borg", "restic", "rclone", "age.txt", "from.txt", "sops_ed25519", "identity"]
    variables = {
        "BORG_PASSCOMMAND": "cat $HOME/keys/borg",
        "RESTIC_PASSWORD_COMMAND": "cat {keys}/restic",
        "RCLONE_PASSWORD_COMMAND": "sh -c 'cat ~/keys/rclone'",
        "SOPS_AGE_KEY_CMD": 'cat "{keys}/age.txt"',
        "RESTIC_FROM_PASSWORD_COMMAND": "gpg -dq {keys}/from.txt",
        "SOPS_AGE_SSH_PRIVATE_KEY_FILE": "{keys}/sops_ed25519",
        "TELEPORT_IDENTITY_FILE": "{keys}/identity",
    }
    assert secrets_read_once_exported(home, workspace, monkeypatch, names, variables) == []


@needs_bwrap
def test_the_tickets_keytabs_and_client_keys_your_environment_names_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Kerberos' cache and keytabs after their type, uv's and restic's certificate with its key,
    # Java's client key store in the options every JVM or Maven reads, a cloudflared tunnel's
    # secret.
    names = ["cc", "me.keytab", "host.keytab", "uv.pem", "restic.pem", "tool.p12", "mvn.jks"]
    names += ["tunnel.json"]
    variables = {
        "KRB5CCNAME": "FILE:{keys}/cc",
        "KRB5_CLIENT_KTNAME": "{keys}/me.keytab",
        "KRB5_KTNAME": "WRFILE:{keys}/host.keytab",
        "SSL_CLIENT_CERT": "{keys}/uv.pem",
        "RESTIC_TLS_CLIENT_CERT": "{keys}/restic.pem",
        "JAVA_TOOL_OPTIONS": '-Xmx1g "-Djavax.net.ssl.keyStore={keys}/tool.p12" -Dx=y',
        "MAVEN_OPTS": "-Djavax.net.ssl.keyStore={keys}/mvn.jks",
        "TUNNEL_CRED_FILE": "{keys}/tunnel.json",
    }
    assert secrets_read_once_exported(home, workspace, monkeypatch, names, variables) == []


@needs_bwrap
def test_the_folder_of_ticket_caches_your_krb5ccname_names_is_hidden_whole(
    home: Path, workspace: Path, monkeypatch
):
    # A `DIR:` cache collection: each `kinit` of another principal makes a new cache in it.
    monkeypatch.setenv("HOME", str(home))
    secrets_in(home, ["tkt"])
    monkeypatch.setenv("KRB5CCNAME", f"DIR:{home}/keys")
    output = run(run_bash(workspace, "ls -A ~/keys | wc -l; cat ~/keys/tkt", sandbox=Bubblewrap()))
    assert "SECRET-tkt" not in output
    assert output.split()[0] == "0"


@needs_bwrap
def test_the_ticket_cache_and_keytab_your_kerberos_config_names_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Set in a file the config's `includedir` reads, with Kerberos' tokens (`%{uid}`).
    names = [f"cc_{os.getuid()}", "client.keytab"]
    krb5_conf = "[libdefaults]\n\tdefault_realm = EXAMPLE.COM\nincludedir {home}/krb5.conf.d\n"
    defaults = (
        "[libdefaults]\n default_ccache_name = FILE:{keys}/cc_%{uid}\n"
        " default_client_keytab_name = {keys}/client.keytab\n"
    )
    configs = {"krb5.conf": krb5_conf, "krb5.conf.d/defaults": defaults}
    configs = {name: text.replace("{home}", str(home)) for name, text in configs.items()}
    monkeypatch.setenv("KRB5_CONFIG", f"{home}/none.conf:{home}/krb5.conf")
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_password_store_a_helper_names_by_your_variable_is_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # git runs `store --file $XDG_STATE_HOME/...` through the shell, which puts the variable in.
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    keys = secrets_in(home, ["creds", "token"])
    (home / ".gitconfig").write_text(
        "[credential]\n\thelper = store --file $XDG_STATE_HOME/creds\n"
        '[credential "https://b.example"]\n\thelper = "!f() { cat ${KEYS}/token; }; f"\n'
    )
    monkeypatch.setenv("XDG_STATE_HOME", str(keys))
    monkeypatch.setenv("KEYS", str(keys))
    assert secrets_read(workspace, ["creds", "token"]) == []


@needs_bwrap
def test_keys_the_first_lines_of_a_config_past_a_megabyte_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A generated ssh config of thousands of hosts, a kubeconfig padded with comments.
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, ["ssh.pem", "kube.key"])
    hosts = "".join(f"Host h{n}.example\n  HostName 10.0.{n % 250}.1\n" for n in range(40_000))
    write(home / ".ssh/config", f"Host corp\n  IdentityFile ~/keys/ssh.pem\n{hosts}")
    padding = "#\n" * 600_000
    write(home / "kc/config", f"users:\n- user:\n    client-key: {keys}/kube.key\n{padding}")
    monkeypatch.setenv("KUBECONFIG", str(home / "kc/config"))
    assert (home / ".ssh/config").stat().st_size > 1024 * 1024
    assert secrets_read(workspace, ["ssh.pem", "kube.key"]) == []


@needs_bwrap
def test_a_key_your_ssh_or_git_config_names_while_planloop_runs_is_hidden_from_the_next_command(
    home: Path, workspace: Path, monkeypatch
):
    # `ssh-keygen -f ~/keys/prod.pem` and an IdentityFile line for it, one in a file an
    # Include's pattern reads, and git's password store named in a file ~/.gitconfig includes,
    # all made between two commands. (Each answer kept at once: the second command's look
    # checks the kept one against the configs as they are now.)
    monkeypatch.setattr(kept, "SETTLED_NS", 0)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    names = ["prod.pem", "included.pem", "creds"]
    keys = secrets_in(home, names)
    write(home / ".ssh/config", "Include config.d/*\nHost github.com\n  User git\n")
    write(home / ".gitconfig", "[include]\n\tpath = ~/.gitconfig-work\n")
    assert secrets_read(workspace, names) == names  # (named by nothing yet)
    with (home / ".ssh/config").open("a") as config:
        config.write("Host prod\n  IdentityFile ~/keys/prod.pem\n")
    write(home / ".ssh/config.d/corp", f"Host corp\n  IdentityFile {keys}/included.pem\n")
    write(home / ".gitconfig-work", "[credential]\n\thelper = store --file ~/keys/creds\n")
    assert secrets_read(workspace, names) == []


# (variable, its value from the home, a config there and the setting in it naming a key)
MOVED_CONFIGS = (
    ("CLOUDSDK_CONFIG", "gc", "gc/configurations/config_default", "credential_file_override"),
    ("HGRCPATH", "etc/hgrc", "etc/hgrc", "x.key"),
    ("HGRCPATH", "etc/hgrc.d", "etc/hgrc.d/auth.rc", "y.key"),  # (a folder: its *.rc files)
    ("MYSQL_HOME", "mysqlh", "mysqlh/my.cnf", "ssl-key"),
    ("PGSYSCONFDIR", "pgsys", "pgsys/pg_service.conf", "passfile"),
    ("BOTO_PATH", "bt/boto.cfg", "bt/boto.cfg", "gs_service_key_file"),
    ("SYSTEM_WGETRC", "wg/wgetrc", "wg/wgetrc", "private_key"),
)


@needs_bwrap
def test_keys_the_configs_your_variables_move_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    monkeypatch.setenv("HOME", str(home))
    names = [f"{number}.key" for number in range(len(MOVED_CONFIGS))]
    keys = secrets_in(home, names)
    values: dict[str, list[str]] = {}
    for name, (variable, value, config, setting) in zip(names, MOVED_CONFIGS, strict=True):
        write(home / config, f"[section]\n{setting} = {keys / name}\n")
        values.setdefault(variable, []).append(str(home / value))
    for variable, listed in values.items():  # (HGRCPATH's and BOTO_PATH's a list)
        monkeypatch.setenv(variable, ":".join(listed))
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_keys_the_configs_your_configs_include_name_are_hidden_with_those_configs(
    home: Path, workspace: Path, monkeypatch
):
    # curl's `config = FILE`, MySQL's `!include` and `!includedir`, Mercurial's `%include`
    # (from the including file's folder when relative): the included file holds passwords too.
    monkeypatch.setenv("HOME", str(home))
    names = ["curl.key", "mysql.key", "mysqldir.key", "hg.key", "auth.rc"]
    keys = secrets_in(home, names)
    configs = {
        ".curlrc": "config = ~/curl/work.rc\n",
        "curl/work.rc": f"key = {keys}/curl.key\n",
        ".my.cnf": f"[client]\n!include {home}/mysql/extra.cnf\n!includedir {home}/mysql/conf.d\n",
        "mysql/extra.cnf": f"[client]\nssl-key={keys}/mysql.key\n",
        "mysql/conf.d/work.cnf": f"[client]\nssl-key={keys}/mysqldir.key\n",
        ".hgrc": "%include keys/auth.rc\n",
        "keys/auth.rc": f"# SECRET-auth.rc\n[auth]\nx.key = {keys}/hg.key\n",
    }
    for config, text in configs.items():
        write(home / config, text)
    assert secrets_read(workspace, names) == []


@needs_bwrap
def test_the_key_mavens_settings_name_from_your_home_property_is_hidden(
    home: Path, workspace: Path, monkeypatch
):
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, ["maven.key", "env.key"])
    write(
        home / ".m2/settings.xml",
        "<settings><servers>\n<server><privateKey>${user.home}/keys/maven.key</privateKey>"
        "</server>\n<server><privateKey>${env.KEYS}/env.key</privateKey></server>\n"
        "</servers></settings>\n",
    )
    monkeypatch.setenv("KEYS", str(keys))
    assert secrets_read(workspace, ["maven.key", "env.key"]) == []


def secrets_read_once_named(
    home: Path, workspace: Path, monkeypatch, names: list[str], configs: dict[str, str]
) -> list[str]:
    """Those of `names` in ~/keys a sandboxed `cat` reads once `configs` (files in the home,
    by their text, `{keys}` standing for ~/keys) name them."""
    monkeypatch.setenv("HOME", str(home))
    keys = secrets_in(home, names)
    for config, text in configs.items():
        write(home / config, text.replace("{keys}", str(keys)))
    return secrets_read(workspace, names)


@needs_bwrap
def test_the_keys_a_quoted_npmrc_key_or_a_commented_value_names_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # npm's ini parser unquotes a key and leaves a `;` or `#` comment out of a value; a global
    # npmrc whose login is written so holds it all the same.
    names = ["quoted.key", "single.key", "commented.key", "globalrc"]
    npmrc = (
        '"//npm.example/:keyfile" = {keys}/quoted.key\n'
        "'//npm2.example/:keyfile'={keys}/single.key\n"
        "//npm3.example/:keyfile={keys}/commented.key ; the CI key\n"
    )
    globalrc = '"//npm.example/:_authToken" = SECRET-globalrc\n'
    monkeypatch.setenv("NPM_CONFIG_GLOBALCONFIG", str(home / "keys/globalrc"))
    configs = {".npmrc": npmrc, "keys/globalrc": globalrc}
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_key_a_loose_mysql_option_names_is_hidden(home: Path, workspace: Path, monkeypatch):
    # MySQL applies an option with the `loose-` prefix (an older client only warns), and takes
    # `_` for `-` in an option's name, the prefix's too.
    names = ["loose.key", "under.key", "mixed.key"]
    my_cnf = (
        "[client]\nloose-ssl-key = {keys}/loose.key\n[mysql]\nloose_ssl_key={keys}/under.key\n"
        "[mysqldump]\n  loose-ssl_key = {keys}/mixed.key\n"
    )
    configs = {".my.cnf": my_cnf}
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_keys_ansibles_ssh_options_and_password_settings_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # ansible hands its ssh, scp and sftp these settings' options, as it does its
    # ANSIBLE_SSH_ARGS, and reads the passwords of its connection and of sudo from files.
    names = ["args", "common", "extra", "scp", "sftp", "become", "galaxy", "variable"]
    ansible_cfg = (
        "[defaults]\nbecome_password_file = {keys}/become\n[galaxy]\ntoken_path: {keys}/galaxy\n"
        "[ssh_connection]\n"
        "ssh_args = -C -o ControlMaster=auto -o IdentityFile={keys}/args\n"
        "ssh_common_args = -i {keys}/common\nssh_extra_args: -i{keys}/extra\n"
        'scp_extra_args = "-o IdentityFile {keys}/scp"\nsftp_extra_args = -vi {keys}/sftp\n'
    )
    monkeypatch.setenv("ANSIBLE_SCP_EXTRA_ARGS", f"-i {home}/keys/variable")
    configs = {".ansible.cfg": ansible_cfg}
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_key_and_secret_files_rclones_other_options_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # An Azure service principal's JSON (its secret) and certificate (with the key), Box's app
    # settings, S3's shared credentials; the key its sftp's own ssh command gives, the token
    # file webdav's token command reads; and the options' variables.
    names = ["sp.json", "client.pem", "box.json", "aws", "ssh.key", "token", "env.key"]
    rclone_conf = (
        "[az]\ntype = azureblob\nservice_principal_file = {keys}/sp.json\n"
        "client_certificate_path = {keys}/client.pem\n[box]\nbox_config_file = {keys}/box.json\n"
        "[s3]\nshared_credentials_file = {keys}/aws\n"
        "[sftp]\nssh = ssh -i {keys}/ssh.key backup@host\n"
        "[dav]\nbearer_token_command = cat {keys}/token\n"
    )
    monkeypatch.setenv("RCLONE_SFTP_KEY_FILE", str(home / "keys/env.key"))
    configs = {".config/rclone/rclone.conf": rclone_conf}
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_key_rings_gradles_properties_name_with_any_separator_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Java's properties end a key at the first `=`, `:` or blank; Gradle also hands Java's TLS
    # the client key store a `systemProp.` names.
    names = ["blank.gpg", "colon.gpg", "store.jks"]
    properties = (
        "signing.secretKeyRingFile {keys}/blank.gpg\n"
        "  signing.secretKeyRingFile\t: {keys}/colon.gpg\n"
        "systemProp.javax.net.ssl.keyStore={keys}/store.jks\n"
    )
    configs = {".gradle/gradle.properties": properties}
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_ssh_keys_git_signs_with_are_hidden(home: Path, workspace: Path, monkeypatch):
    # With `gpg.format = ssh` (which a repository's config can set too), `user.signingKey` names
    # the private key, or the public one beside it, which ssh-keygen takes `.pub` off to sign
    # with; a command that picks the key reads a file of it.
    names = ["signing", "work", "work.pub", "picked"]
    gitconfig = (
        "[user]\n\tsigningKey = ~/keys/signing\n[gpg]\n\tformat = ssh\n"
        '[includeIf "gitdir:~/work/"]\n\tpath = ~/work.gitconfig\n'
    )
    work = (
        "[user]\n\tsigningkey = {keys}/work.pub\n"
        '[gpg "ssh"]\n\tdefaultKeyCommand = "sh -c \'echo key::$(cat {keys}/picked)\'"\n'
    )
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    configs = {".gitconfig": gitconfig, "work.gitconfig": work}
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_keys_your_xdg_git_config_names_beside_your_gitconfig_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # git reads ~/.config/git/config and then ~/.gitconfig, where `git config --global` (before
    # git 2.46) reads only the second when both are there.
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    configs = {
        ".gitconfig": "[user]\n\tname = Pat Example\n",
        ".config/git/config": "[http]\n\tsslKey = {keys}/xdg.key\n",
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, ["xdg.key"], configs) == []


@needs_bwrap
def test_the_keys_your_tools_configs_name_where_your_xdg_config_home_moves_them_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Each tool that reads ~/.config/<tool> reads $XDG_CONFIG_HOME/<tool> once it is set.
    names = ["pip.pem", "rclone.key", "helm.key", "poetry.pem", "msmtp.key", "podman.key"]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    configs = {
        "xdg/pip/pip.conf": "[global]\nclient-cert = {keys}/pip.pem\n",
        "xdg/rclone/rclone.conf": "[s]\ntype = sftp\nkey_file = {keys}/rclone.key\n",
        "xdg/helm/repositories.yaml": "repositories:\n- name: corp\n  keyFile: {keys}/helm.key\n",
        "xdg/pypoetry/config.toml": '[certificates.corp]\nclient-cert = "{keys}/poetry.pem"\n',
        "xdg/msmtp/config": "account corp\ntls_key_file {keys}/msmtp.key\n",
        "xdg/containers/containers.conf": '[engine]\nidentity = "{keys}/podman.key"\n',
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


def your_git_configs_in(home: Path, monkeypatch) -> None:
    """Your git configs are `home`'s, where git looks for them by default."""
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


@needs_bwrap
def test_a_git_config_that_holds_a_credential_is_hidden_and_one_without_stays_readable(
    home: Path, workspace: Path, monkeypatch
):
    # A token in an address git rewrites another to (`insteadOf`) or in a header it sends
    # makes the file it is set in a secret, an included one too; a config without one stays
    # readable, so git in the sandbox still has your name.
    your_git_configs_in(home, monkeypatch)
    token = "ghp_" + "Q7v2" * 9
    write(
        home / ".gitconfig",
        "[user]\n\tname = Pat Example\n[include]\n\tpath = ~/.gitconfig-ci\n"
        "\tpath = ~/.gitconfig-mail\n",
    )
    write(home / ".gitconfig-mail", "[sendemail]\n\tsmtpPass = SECRET-mail\n")
    write(
        home / ".gitconfig-ci",
        f'[url "https://x-access-token:{token}@github.com/"]\n\tinsteadOf = https://github.com/\n',
    )
    write(
        home / ".config/git/config",
        '[http "https://git.corp/"]\n\textraHeader = PRIVATE-TOKEN: SECRET-header\n',
    )
    command = "cat ~/.gitconfig-* ~/.config/git/config; git config --global user.name"
    output = run(run_bash(workspace, command, sandbox=Bubblewrap()))
    assert token not in output and "SECRET" not in output
    assert "Pat Example" in output


@needs_bwrap
def test_the_keys_and_password_files_data_and_mail_tools_configs_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # dbt's BigQuery service account and Snowflake key, Snowflake's CLIs' keys, the password
    # files and client keys of mail fetchers and senders (also what their password commands
    # read), helm's repositories' client keys, knife's client key.
    names = ["sa.json", "dbt.p8", "sf.p8", "snowsql.p8", "imap.txt", "imap.key", "mbsync.txt"]
    names += ["mbsync.key", "msmtp.txt", "msmtp.key", "helm.key", "chef.pem"]
    configs = {
        ".dbt/profiles.yml": (
            "bq:\n  outputs:\n    dev:\n      keyfile: {keys}/sa.json\n"
            "sf:\n  outputs:\n    dev:\n      private_key_path: '{keys}/dbt.p8'  # CI\n"
        ),
        ".snowflake/connections.toml": '[default]\nprivate_key_file = "{keys}/sf.p8"\n',
        ".snowsql/config": "[connections]\nprivate_key_path = {keys}/snowsql.p8\n",
        ".offlineimaprc": (
            "[Repository r]\nremotepassfile = {keys}/imap.txt\nsslclientkey: {keys}/imap.key\n"
        ),
        ".mbsyncrc": 'PassCmd "cat {keys}/mbsync.txt"\nClientKey {keys}/mbsync.key\n',
        ".msmtprc": "account a\npasswordeval cat {keys}/msmtp.txt\ntls_key_file {keys}/msmtp.key\n",
        ".config/helm/repositories.yaml": "repositories:\n- name: x\n  keyFile: {keys}/helm.key\n",
        ".chef/credentials": "[default]\nclient_key = '{keys}/chef.pem'\n",
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_database_client_keys_your_dbt_profiles_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # dbt-postgres's and dbt-redshift's `sslkey` (libpq's own option), dbt-mysql's `ssl_key`,
    # also under a quoted name; the certificate beside a key stays readable.
    profiles = (
        "pg:\n  outputs:\n    dev:\n      type: postgres\n"
        "      sslcert: {keys}/notes.txt\n      sslkey: {keys}/pg.key\n"
        "my:\n  outputs:\n    dev:\n      type: mysql\n      ssl_key: ~/keys/mysql.key\n"
        "rs:\n  outputs:\n    dev:\n      type: redshift\n      'sslkey': '{keys}/quoted.key'\n"
    )
    names = ["pg.key", "mysql.key", "quoted.key"]
    read = secrets_read_once_named(
        home, workspace, monkeypatch, names, {".dbt/profiles.yml": profiles}
    )
    assert read == []


@needs_bwrap
def test_the_files_mail_clients_password_commands_read_and_svns_certificate_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # mutt's and neomutt's backticks (also in a file a `source` line reads) and the command of
    # a `source "... |"` line, aerc's `*-cred-cmd`, himalaya's `*.cmd` (in a TOML table too),
    # Subversion's client certificate (a PKCS#12 file with its key), cargo's credential
    # provider. A mutt setting without a command leaves the file it names readable.
    names = ["mutt", "mutt-work", "mutt-gpg", "neomutt", "aerc", "aerc-smtp", "him", "him-smtp"]
    names += ["svn", "svn-group", "cargo"]
    configs = {
        ".muttrc": (
            "set imap_user=me\nset imap_pass=`cat ~/keys/mutt`\n"
            'source ~/mail/work.muttrc\nsource "gpg -dq {keys}/mutt-gpg |"\n'
            "set signature={keys}/notes.txt\n"
        ),
        "mail/work.muttrc": 'set smtp_pass = "`cat {keys}/mutt-work`"\n',
        ".config/neomutt/neomuttrc": 'set smtp_pass="`cat ~/keys/neomutt`"\n',
        ".config/aerc/accounts.conf": (
            "[Personal]\nsource = imaps://me@imap.example.com\nsource-cred-cmd = cat ~/keys/aerc\n"
            "outgoing-cred-cmd = cat {keys}/aerc-smtp\n"
        ),
        ".config/himalaya/config.toml": (
            '[accounts.me]\nbackend.auth.cmd = "cat ~/keys/him"\n'
            '[accounts.me.message.send.backend.auth]\ncmd = "cat {keys}/him-smtp"\n'
        ),
        ".subversion/servers": (
            "[groups]\ncorp = svn.corp.example\n[corp]\nssl-client-cert-file = ~/keys/svn-group\n"
            "[global]\nssl-client-cert-file = {keys}/svn\n"
        ),
        ".cargo/config.toml": (
            '[registries.corp]\nindex = "sparse+https://crates.corp/"\n'
            'credential-provider = ["cargo:token-from-stdout", "cat", "{keys}/cargo"]\n'
        ),
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_keys_mavens_private_key_elements_name_on_lines_of_their_own_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # Maven trims an element's text: a formatter may leave the path on a line of its own, or
    # every server on one line.
    names = ["own.key", "first.key", "second.key"]
    settings = (
        "<settings><servers><server>\n  <privateKey>\n    {keys}/own.key\n  </privateKey>\n"
        "</server><server><privateKey>{keys}/first.key</privateKey></server><server>"
        "<privateKey >{keys}/second.key</privateKey></server></servers></settings>\n"
    )
    configs = {".m2/settings.xml": settings}
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_keys_podman_remote_connects_with_are_hidden(home: Path, workspace: Path, monkeypatch):
    # `podman system connection add --identity`: podman 4 writes containers.conf, podman 5 a
    # JSON file (on one line or many).
    names = ["builder", "vm", "ci"]
    conf = (
        '[engine.service_destinations.builder]\nuri = "ssh://b/run"\nidentity = "{keys}/builder"\n'
    )
    connections = '{"Connection":{"Connections":{"vm":{"URI":"ssh://v","Identity":"{keys}/vm"}}}}'
    monkeypatch.setenv("CONTAINERS_CONF", str(home / "ci.conf"))
    configs = {
        ".config/containers/containers.conf": conf,
        ".config/containers/podman-connections.json": connections,
        "ci.conf": '[engine.service_destinations.ci]\nidentity="{keys}/ci"\n',
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_session_token_ocis_config_names_is_hidden(home: Path, workspace: Path, monkeypatch):
    # `oci session authenticate` writes the token's path beside the session's key.
    config = "[DEFAULT]\nsecurity_token_file = {keys}/token\nkey_file = {keys}/oci.pem\n"
    configs = {".oci/config": config}
    names = ["token", "oci.pem"]
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


def latin1_secrets_read(
    home: Path, workspace: Path, names: list[str], configs: dict[str, bytes]
) -> list[str]:
    """Those of `names` in ~/clés, a folder named in Latin-1 (as an old system or an archive
    leaves one: no UTF-8), that a sandboxed `cat` reads once `configs` (files in the home, by
    their bytes) name them; the command must run."""
    folder = Path(os.fsdecode(bytes(home) + b"/cl\xe9s"))
    folder.mkdir()
    for name in names:
        (folder / name).write_text(f"SECRET-{name}\n")
    for config, text in configs.items():
        (home / config).parent.mkdir(parents=True, exist_ok=True)
        (home / config).write_bytes(text)
    output = run(run_bash(workspace, "echo ran; cat ~/cl*/*", sandbox=Bubblewrap()))
    assert "ran" in output
    return [name for name in names if f"SECRET-{name}" in output]


@needs_bwrap
def test_a_latin1_git_config_of_yours_neither_stops_a_command_nor_leaves_its_key_readable(
    home: Path, workspace: Path, monkeypatch
):
    # Git reads its configs as bytes: an old config's Latin-1 name, and a key in a Latin-1
    # folder, which git opens by those bytes.
    your_git_configs_in(home, monkeypatch)
    gitconfig = b"[user]\n\tname = Jos\xe9 Garc\xeda\n[http]\n\tsslKey = ~/cl\xe9s/ssl.key\n"
    assert latin1_secrets_read(home, workspace, ["ssl.key"], {".gitconfig": gitconfig}) == []


@needs_bwrap
def test_the_keys_your_configs_name_by_a_latin1_path_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # ssh, curl and kubectl open a key by its path's bytes: the Latin-1 folder, not another.
    monkeypatch.setenv("HOME", str(home))
    folder = bytes(home) + b"/cl\xe9s"
    configs = {
        ".ssh/config": b"Host a\n  IdentityFile ~/cl\xe9s/ssh.pem\n",
        ".curlrc": b"key = " + folder + b"/curl.key\n",
        ".kube/config": b"users:\n- user:\n    client-key: " + folder + b"/kube.key\n",
    }
    names = ["ssh.pem", "curl.key", "kube.key"]
    assert latin1_secrets_read(home, workspace, names, configs) == []


@needs_bwrap
def test_the_keys_ssh_takes_from_a_users_home_by_name_or_by_an_old_keyword_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # ssh takes `~pat/` for pat's home from the passwd file (your own name, a shared deploy
    # account's), in an Include's name too, and still reads `IdentityFile2`, an old name of
    # IdentityFile, in a config and in `-o`.
    names = ["named.pem", "included.pem", "old.pem", "option.pem"]
    accounts, passwd = {"pat": SimpleNamespace(pw_dir=str(home))}, pwd.getpwnam
    monkeypatch.setattr(pwd, "getpwnam", lambda name: accounts.get(name) or passwd(name))
    configs = {
        ".ssh/config": (
            "Host a\n  IdentityFile ~pat/keys/named.pem\n  identityfile2 = ~/keys/old.pem\n"
            "Include ~pat/ssh/*.conf\n"
        ),
        "ssh/b.conf": "Host b\n  IdentityFile ~/keys/included.pem\n",
        ".gitconfig": "[core]\n\tsshCommand = ssh -o IdentityFile2={keys}/option.pem\n",
    }
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_keys_a_jump_hosts_command_line_inside_another_gives_ssh_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # ssh's `-o ProxyCommand=...` is a command line of its own (the Ansible FAQ's jump host),
    # and so is the code a shell is given in a ProxyCommand or a KnownHostsCommand.
    ansible_cfg = (
        "[ssh_connection]\nssh_args = -o ControlPersist=60s "
        '-o ProxyCommand="ssh -i {keys}/ansible.pem -W %h:%p -q bastion"\n'
    )
    gitconfig = (
        '[core]\n\tsshCommand = ssh -o \\"ProxyCommand ssh -i ~/keys/git.pem -W %h:%p b\\"\n'
    )
    ssh_config = (
        'Host a\n  ProxyCommand sh -c "ssh -i ~/keys/shell.pem -W %h:%p bastion"\n'
        "Host b\n  KnownHostsCommand /bin/bash -ec 'ssh -i ~/keys/known.pem kh cat'\n"
    )
    configs = {".ansible.cfg": ansible_cfg, ".gitconfig": gitconfig, ".ssh/config": ssh_config}
    names = ["ansible.pem", "git.pem", "shell.pem", "known.pem"]
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_keys_the_ansible_inventory_your_config_names_gives_its_hosts_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # `inventory =` in ~/.ansible.cfg (files and folders, from the config's folder), and the
    # group_vars/ and host_vars/ beside an inventory: INI host lines, `[group:vars]`, YAML.
    names = ["host.pem", "group.pem", "folder.pem", "gv.pem", "hv.pem", "args.pem"]
    configs = {
        ".ansible.cfg": "[defaults]\ninventory = ansible/hosts.ini, ~/ansible/more\n",
        "ansible/hosts.ini": (
            "web1 ansible_host=10.0.0.5 ansible_ssh_private_key_file=~/keys/host.pem\n"
            "[db:vars]\nansible_private_key_file = {keys}/group.pem\n"
        ),
        "ansible/more/prod.yml": "all:\n  vars:\n    ansible_private_key_file: ~/keys/folder.pem\n",
        "ansible/group_vars/all.yml": "ansible_private_key_file: ~/keys/gv.pem\n",
        "ansible/host_vars/web1/ssh.yml": (
            "ansible_ssh_private_key_file: '{keys}/hv.pem'\n"
            "ansible_ssh_common_args: '-o ProxyCommand=\"ssh -i ~/keys/args.pem -W %h:%p b\"'\n"
        ),
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_keys_a_json_or_flow_style_ansible_inventory_gives_its_hosts_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A YAML host on one line (`web1: {..., ansible_ssh_private_key_file: k, ...}`), and the
    # `.json` vars files ansible reads as it reads YAML: on one line, pretty-printed, with a
    # value on the line below its name or written with JSON's escapes.
    names = ["flow.pem", "quoted.pem", "gv.pem", "hv.pem", "below.pem", "escaped.pem"]
    hosts = (
        "all:\n  hosts:\n"
        "    web1: {ansible_host: 10.0.0.1, ansible_ssh_private_key_file: ~/keys/flow.pem, x: y}\n"
        "    web2: {ansible_private_key_file: '~/keys/quoted.pem', ansible_user: ubuntu}\n"
    )
    configs = {
        ".ansible.cfg": "[defaults]\ninventory = ~/ansible/hosts.yml\n",
        "ansible/hosts.yml": hosts,
        "ansible/group_vars/all.json": '{"ansible_ssh_private_key_file": "~/keys/gv.pem"}\n',
        "ansible/host_vars/web2.json": (
            '{\n  "ansible_private_key_file": "{keys}/hv.pem",\n  "ansible_user": "ubuntu"\n}\n'
        ),
        "ansible/host_vars/web3.json": (
            '{"ansible_ssh_private_key_file":\n  "~/keys/below.pem"}\n'
        ),
        "ansible/host_vars/web4.json": '{"ansible_private_key_file": "~\\/keys\\/escaped.pem"}\n',
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_age_identities_your_chezmoi_config_names_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # chezmoi's config in TOML (as its documentation writes it), in YAML under your
    # XDG_CONFIG_HOME, and in JSON with comments in the system's: `identity`, the list of
    # `identities`, an identity `args` hands age; its keys in any letter case.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(home / "etc-xdg"))
    names = ["key.txt", "first.txt", "second.txt", "args.txt", "upper.txt"]
    identities = "identities:\n    - ~/keys/first.txt\n    - '{keys}/second.txt'\n"
    configs = {
        ".config/chezmoi/chezmoi.toml": (
            'encryption = "age"\n[age]\n    identity = "~/keys/key.txt"\n    recipient = "age1x"\n'
        ),
        "xdg/chezmoi/chezmoi.yaml": f"age:\n  {identities}",
        "etc-xdg/chezmoi/chezmoi.jsonc": (
            '{"Age": {"Args": ["-i", "{keys}/args.txt"], // the backup\n'
            ' "IDENTITY": "~/keys/upper.txt"}}\n'
        ),
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_the_tls_client_keys_mutts_fetchmails_ldaps_and_lftps_configs_name_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # mutt's client certificate (its key in it), also in a hook; fetchmail's `sslkey` (its value
    # on the next line) and `sslcert`, not its CA's `sslcertfile`; OpenLDAP's ldaprc, also the
    # one LDAPRC names, and its variables; lftp's `set`, with a shortened name, per site.
    names = ["mutt.pem", "hook.pem", "fm.key", "fm.pem", "ldaprc.key", "work.key", "env.key"]
    names += ["env.pem", "lftp.key", "site.key", "lftp.pem"]
    monkeypatch.setenv("LDAPRC", "work.ldaprc")
    monkeypatch.setenv("LDAPTLS_KEY", str(home / "keys/env.key"))
    monkeypatch.setenv("LDAPTLS_CERT", str(home / "keys/env.pem"))
    configs = {
        ".muttrc": 'set imap_user=me ssl_client_cert="~/keys/mutt.pem"\n',
        ".config/neomutt/neomuttrc": "account-hook . 'set ssl_client_cert={keys}/hook.pem'\n",
        ".fetchmailrc": (
            'poll mail.example proto imap user "me", sslcertfile {keys}/notes.txt sslkey\n'
            '  "~/keys/fm.key" sslcert {keys}/fm.pem\n'
        ),
        ".ldaprc": "URI ldaps://ldap.example\nTLS_KEY ~/keys/ldaprc.key\n",
        "work.ldaprc": 'TLS_KEY "{keys}/work.key"\n',
        ".lftprc": "set ssl:ca-file {keys}/notes.txt; set key-file ~/keys/lftp.key\n",
        ".config/lftp/rc": (
            'set ssl:key-file/ftp.example "{keys}/site.key"\nset ssl:cert ~/keys/lftp.pem\n'
        ),
    }
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


def conditional_includes(home: Path, count: int, last_key: str) -> None:
    """A ~/.gitconfig with `count` conditional includes, the last of which names `last_key`."""
    gitconfig = "".join(
        f'[includeIf "gitdir:~/clients/c{n}/"]\n\tpath = ~/.config/git/c{n}.inc\n'
        for n in range(count)
    )
    write(home / ".gitconfig", gitconfig)
    for n in range(count):
        write(home / f".config/git/c{n}.inc", f"[user]\n\temail = me@c{n}.example\n")
    write(home / f".config/git/c{count - 1}.inc", f"[http]\n\tsslKey = {last_key}\n")


@needs_bwrap
def test_the_key_your_twentieth_conditional_git_include_names_is_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # A per-client layout: git reads every include, however many (only their depth is bound).
    your_git_configs_in(home, monkeypatch)
    keys = secrets_in(home, ["client.key"])
    conditional_includes(home, 20, f"{keys}/client.key")
    assert secrets_read(workspace, ["client.key"]) == []


@needs_bwrap
def test_past_the_conditional_git_includes_planloop_reads_commands_ask(
    home: Path, workspace: Path, monkeypatch
):
    # What the includes past the bound name is not read: said, and commands ask.
    your_git_configs_in(home, monkeypatch)
    monkeypatch.setattr(named_keys, "MAX_GIT_INCLUDES", 4)
    conditional_includes(home, 6, "~/keys/client.key")
    sandbox = Bubblewrap()
    sandbox.before_command(workspace)
    assert "includes more than 4 configs by `includeIf`" in (sandbox.must_ask or "")
    assert str(home) in (sandbox.must_ask or "")


def wrapper(home: Path, name: str, text: str) -> Path:
    """A script ~/bin/`name` you may run, of `text`."""
    script = home / "bin" / name
    write(script, text)
    script.chmod(0o755)
    return script


@needs_bwrap
def test_the_keys_and_tokens_a_wrapper_script_your_configs_run_names_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # GIT_SSH names a program, not a command line: its options go into a wrapper script, as
    # git documents; the same for core.sshCommand, a credential helper (by its path, or by
    # its name: `git-credential-mine` on your PATH), AWS's
    # credential_process, ansible's ssh_executable and borg's remote shell.
    your_git_configs_in(home, monkeypatch)
    names = ["deploy", "work", "gh-token", "named", "aws.json", "ansible.pem", "borg.pem"]
    wrapper(home, "git-ssh", '#!/bin/sh\nexec ssh -i "$HOME/keys/deploy" -o X=yes "$@"\n')
    wrapper(home, "ssh-work", '#!/usr/bin/env bash\n# don\'t ask\nexec ~/bin/ssh-inner "$@"\n')
    wrapper(home, "ssh-inner", 'exec ssh -i ~/keys/work "$@"\n')  # (no `#!`: sh runs it)
    wrapper(home, "git-cred", '#!/bin/sh\necho "password=$(cat $HOME/keys/gh-token)"\n')
    wrapper(home, "aws-creds", '#!/bin/sh\ncat "$HOME/keys/aws.json"\n')
    wrapper(home, "ssh-ansible", '#!/bin/bash\nKEY=~/keys/ansible.pem\nexec ssh -i "$KEY" "$@"\n')
    wrapper(home, "ssh-borg", '#!/bin/dash\nexec ssh -i ~/keys/borg.pem "$@"\n')
    configs = {
        ".gitconfig": (
            "[core]\n\tsshCommand = ~/bin/ssh-work\n[credential]\n\thelper = ~/bin/git-cred\n"
        ),
        ".aws/config": "[profile work]\ncredential_process = {keys}/../bin/aws-creds --profile w\n",
        ".ansible.cfg": "[ssh_connection]\nssh_executable = ~/bin/ssh-ansible\n",
    }
    wrapper(home, "git-credential-mine", '#!/bin/sh\necho "password=$(cat ~/keys/named)"\n')
    configs[".gitconfig"] += '[credential "https://b.example"]\n\thelper = mine --fast\n'
    monkeypatch.setenv("PATH", f"{home / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_SSH", str(home / "bin/git-ssh"))
    monkeypatch.setenv("BORG_RSH", f"{home}/bin/ssh-borg -o BatchMode=yes")
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_a_wrapper_script_of_yours_planloop_cannot_read_makes_commands_ask(
    home: Path, workspace: Path, monkeypatch
):
    # A python wrapper may name any key; planloop reads only shell scripts, so commands ask,
    # naming the script; once it is a shell script, it is read, and nothing asks.
    your_git_configs_in(home, monkeypatch)
    script = wrapper(home, "git-ssh", "#!/usr/bin/python3\nimport os\nos.execvp('ssh', [])\n")
    monkeypatch.setenv("GIT_SSH_COMMAND", f"{script} -o BatchMode=yes")
    sandbox = Bubblewrap()
    sandbox.before_command(workspace)
    assert f"your script {script}" in (sandbox.must_ask or "")
    assert "python3 script" in (sandbox.must_ask or "")
    script.write_text('#!/bin/sh\nexec ssh -i ~/keys/deploy "$@"\n')
    sandbox = Bubblewrap()
    sandbox.before_command(workspace)
    assert sandbox.must_ask is None


def test_a_helper_naming_a_file_you_cannot_reach_names_no_key(tmp_path: Path):
    # Run by another user, or with a folder of the line's closed to you: a path there is none
    # of yours to hide, and reading the line must not stop planloop (bubblewrap's start-up
    # probe reads your git's helpers too).
    if not can_switch_user():
        pytest.skip("needs root, setpriv, and a Python the unprivileged user can run")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o700)
    (locked / "token").write_text("secret\n")
    (locked / "git-credential-mine").write_text("#!/bin/sh\ncat ~/token\n")
    os.chmod(locked / "git-credential-mine", 0o755)
    os.chmod(tmp_path, 0o755)
    line = f"!cat {locked}/token; {locked}/git-credential-mine"
    probe = f"from tools.named_keys import helper_reads; print(helper_reads({line!r}))"
    looked = subprocess.run(
        [*AS_NOBODY, sys.executable, "-c", probe],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
    )
    assert looked.stdout.strip() == "[]", looked.stdout + looked.stderr


@needs_bwrap
def test_the_keys_ansible_computes_from_your_variables_and_its_configs_folder_are_hidden(
    home: Path, workspace: Path, monkeypatch
):
    # ansible puts your variables in a path setting (os.path.expandvars: `$KEYS`, no braces)
    # and takes a relative one from the config's folder.
    names = ["deploy.pem", "vault.txt", "become.txt"]
    configs = {
        ".ansible.cfg": (
            "[defaults]\nprivate_key_file = $KEYS/deploy.pem\n"
            "vault_password_file = keys/vault.txt\nbecome_password_file = ~/keys/become.txt ; x\n"
        )
    }
    monkeypatch.setenv("KEYS", str(home / "keys"))
    assert secrets_read_once_named(home, workspace, monkeypatch, names, configs) == []


@needs_bwrap
def test_an_ansible_key_path_given_by_a_template_makes_commands_ask_naming_its_file(
    home: Path, workspace: Path, monkeypatch
):
    # A template is worked out as ansible connects (an inventory's `{{ lookup('env', 'HOME') }}`,
    # a config's `{{CWD}}`): what it names cannot be told, so commands ask, naming the file.
    monkeypatch.setenv("HOME", str(home))
    inventory = home / "ansible/hosts.ini"
    write(home / ".ansible.cfg", "[defaults]\ninventory = ~/ansible/hosts.ini\n")
    write(
        inventory,
        "web1 ansible_ssh_private_key_file=\"{{ lookup('env', 'HOME') }}/keys/web.pem\"\n",
    )
    sandbox = Bubblewrap()
    sandbox.before_command(workspace)
    assert f"your ansible inventory {inventory}" in (sandbox.must_ask or "")
    write(inventory, "web1 ansible_ssh_private_key_file=~/keys/web.pem\n")
    write(home / ".ansible.cfg", "[defaults]\nprivate_key_file = {{CWD}}/keys/deploy.pem\n")
    sandbox = Bubblewrap()
    sandbox.before_command(workspace)
    assert f"your ansible config {home / '.ansible.cfg'}" in (sandbox.must_ask or "")
    write(home / ".ansible.cfg", "[defaults]\nprivate_key_file = ~/keys/deploy.pem\n")
    sandbox = Bubblewrap()
    sandbox.before_command(workspace)
    assert sandbox.must_ask is None
