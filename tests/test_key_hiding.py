"""planloop's key, where people keep it, stays out of what a sandboxed command can read.

Each test plants the key (the fake API's) where a person's own setup puts it, then a prompt-
injected model asks for those files base64'd, which the tool result's redaction of the plain
key would not catch. Each drives `python agent.py` against the fake API, as root and as an
unprivileged user where that changes what the sandbox sees.
"""

from __future__ import annotations

import base64
import binascii
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from conftest import API_KEY, outside_tmp, run
from test_hostile_pass4 import NOBODY, can_switch_user, needs_bwrap, run_as, tool_results

from fakeapi import text, tool_use
from tools import sandbox
from tools.bash import run_bash
from tools.files import is_hidden_secret

KEY_LINE = f"export ANTHROPIC_API_KEY={API_KEY}\n"
CONTROL = "an ordinary file of the home folder\n"
TOKEN_LINE = "token: glpat-another-service-token\n"  # not planloop's key


@pytest.fixture(params=["root", "nobody"])
def folders(request, isolated_home) -> Iterator[tuple[str, Path, Path, Path, Path]]:
    """(user, base, workspace, planloop home, home), outside /tmp: the sandbox's /tmp is its
    own, and a home folder there would be out of a command's sight whatever planloop hides."""
    user = request.param
    if user == "nobody" and not can_switch_user():
        pytest.skip("needs root, setpriv, and a Python the unprivileged user can run")
    base = outside_tmp("planloop-keys-")
    os.chmod(base, 0o755)
    paths = [base / name for name in ("work", "planloop-home", "home")]
    for path in paths:
        path.mkdir()
    yield user, base, *paths
    shutil.rmtree(base, ignore_errors=True)


# Token files of registries, forges and clouds at their usual places: yarn's npmAuthToken,
# pip's index URL with a password, podman's registry logins, glab's, Vercel's, Netlify's, fly's,
# wrangler's, SnowSQL's and dbt's logins, Hugging Face's saved tokens.
OTHER_TOKEN_FILES = (
    ".yarnrc.yml",
    ".config/pip/pip.conf",
    ".pip/pip.conf",
    ".config/containers/auth.json",
    ".config/glab-cli/config.yml",
    ".local/share/com.vercel.cli/auth.json",
    ".vercel/auth.json",
    ".netlify/config.json",
    ".config/netlify/config.json",
    ".fly/config.yml",
    ".wrangler/config/default.toml",
    ".config/.wrangler/config/default.toml",
    ".snowsql/config",
    ".dbt/profiles.yml",
    ".cache/huggingface/stored_tokens",
    ".yarnrc",
    ".bunfig.toml",
    ".pub-cache/credentials.json",
    ".config/dart/pub-tokens.json",
    ".config/helm/repositories.yaml",
    ".config/tea/config.yml",
    ".config/hcloud/cli.toml",
    ".supabase/access-token",
    ".config/heroku/config.json",
    ".config/stripe/config.toml",
    ".config/ngrok/ngrok.yml",
    ".ngrok2/ngrok.yml",
    ".sentryclirc",
    ".circleci/cli.yml",
    ".config/Code/User/globalStorage/state.vscdb",
    ".config/VSCodium/User/globalStorage/state.vscdb",
    ".modal.toml",
    ".passwd-s3fs",
    ".twilio-cli/config.json",
    ".config/kaggle/kaggle.json",
    ".config/turso/settings.json",
)
# Other logins at their usual places: Gerrit's cookies, libpq's client key and services file,
# network mounts' and VNC's passwords, packaging and translation services' tokens, OneDrive's,
# desktop and command-line apps' saved sessions and passwords, and database clients'.
OTHER_LOGIN_FILES = (
    ".gitcookies",
    ".gcm/store/git/https/github.com/me.credential",
    ".config/hut/config",
    ".postgresql/postgresql.key",
    ".pg_service.conf",
    ".smbcredentials",
    ".davfs2/secrets",
    ".vnc/passwd",
    ".config/tigervnc/passwd",
    ".config/copr",
    ".config/osc/oscrc",
    ".oscrc",
    ".local/state/osc/cookiejar",
    ".osc_cookiejar",
    ".transifexrc",
    ".config/onedrive/refresh_token",
    ".config/httpie/sessions/api.example.com/prod.json",
    ".httpie/sessions/api.example.com/prod.json",
    ".local/share/DBeaverData/workspace6/General/.dbeaver/credentials-config.json",
    ".zuliprc",
    ".config/Insomnia/insomnia.Environment.db",
    ".config/Element/Local Storage/leveldb/000003.log",
    ".config/Postman/Local Storage/leveldb/000003.log",
    ".odbc.ini",
    ".cassandra/cqlshrc",
    ".clickhouse-client/config.xml",
    ".pause",
    ".ossutilconfig",
    ".singularity/remote.yaml",
    ".apptainer/remote.yaml",
    ".chef/me.pem",
    ".ansible/galaxy_token",
    ".sfdx/me@example.com.json",
    ".sf/config.json",
    ".config/pgcli/history",
    ".mycli-history",
    ".usql_history",
    ".usqlpass",
    ".clickhouse-client-history",
    ".valkeycli_history",
    ".edgerc",
    ".civo.json",
    ".config/equinix/metal.yaml",
    ".config/lab/lab.toml",
    ".config/hexchat/servlist.conf",
    ".config/senpai/senpai.scfg",
    ".config/halloy/config.toml",
    ".config/konversationrc",
    ".config/toot/config.json",
    ".local/share/containers/podman/machine/machine",
    ".local/share/uv/credentials/credentials.toml",
    ".config/nix/netrc",
    ".config/cachix/cachix.dhall",
    ".config/dart/pub-credentials.json",
    ".conan2/credentials.json",
    ".vagrant.d/data/vagrant_login_token",
    ".serverlessrc",
)

# Configs the sandbox's tools read their settings from, where a person may write a credential
# too (an index URL's password, nix's access-tokens, a cargo registry's token).
CONFIGS_WITH_A_CREDENTIAL = (
    ".config/nix/nix.conf",
    ".config/uv/uv.toml",
    ".cargo/config.toml",
    ".config/hatch/config.toml",
    ".config/go/env",
    ".config/rye/config.toml",
    ".pydistutils.cfg",
)

# Your variables that move a tool's folder, and the token file in it; then those that name the
# token file itself. KUBECONFIG holds a list of files.
TOKEN_FOLDER_VARIABLES = {
    "CARGO_HOME": "credentials.toml",
    "DOCKER_CONFIG": "config.json",
    "GH_CONFIG_DIR": "hosts.yml",
    "HF_HOME": "stored_tokens",
    "XDG_RUNTIME_DIR": "containers/auth.json",  # podman's by default
    "KAGGLE_CONFIG_DIR": "kaggle.json",
    "PULUMI_HOME": "credentials.json",
    "GLAB_CONFIG_DIR": "config.yml",
    "MC_CONFIG_DIR": "config.json",
    "POETRY_CONFIG_DIR": "auth.toml",
}
TOKEN_FILE_VARIABLES = (
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "NPM_CONFIG_USERCONFIG",
    "PIP_CONFIG_FILE",
    "NETRC",
    "PGPASSFILE",
    "BOTO_CONFIG",
    "TF_CLI_CONFIG_FILE",
    "OCI_CLI_CONFIG_FILE",
    "SOPS_AGE_KEY_FILE",
    "RCLONE_CONFIG",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GIT_SSL_KEY",
    "PGSSLKEY",
    "PGSERVICEFILE",
    "MYSQL_TEST_LOGIN_FILE",
    "ODBCINI",
    "USQLPASS",
    "ETCDCTL_KEY",
    "ETCDCTL_KEY_FILE",
    "CONSUL_CLIENT_KEY",
    "CONSUL_HTTP_TOKEN_FILE",
    "NOMAD_CLIENT_KEY",
    "VAULT_CLIENT_KEY",
    "TALOSCONFIG",
    "HELM_REPOSITORY_CONFIG",
    "BORG_KEY_FILE",
    "ANSIBLE_VAULT_PASSWORD_FILE",
    "ANSIBLE_PRIVATE_KEY_FILE",
    "ANSIBLE_CONNECTION_PASSWORD_FILE",
    "ANSIBLE_BECOME_PASSWORD_FILE",
    "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
    "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE",
    "AZURE_CLIENT_CERTIFICATE_PATH",
    "ARM_CLIENT_CERTIFICATE_PATH",
    "AZURE_FEDERATED_TOKEN_FILE",
    "OS_CLIENT_CONFIG_FILE",
    "DATABRICKS_CONFIG_FILE",
    "NPM_CONFIG_KEYFILE",
    "PIP_CLIENT_CERT",
)
# Your variables that move a folder of secrets, hidden whole: a file of any name in it.
SECRET_FOLDER_VARIABLES = ("GNUPGHOME", "CLOUDSDK_CONFIG", "AZURE_CONFIG_DIR", "CODEX_HOME")


def write(path: Path, content: str = KEY_LINE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def link(path: Path, target: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


def hand_over(user: str, *folders: Path) -> None:
    """Make everything in `folders` the unprivileged user's, when the run is theirs."""
    if user != "nobody":
        return
    for folder in folders:
        os.lchown(folder, NOBODY, NOBODY)
        for parent, names, files in os.walk(folder):
            for name in names + files:
                os.lchown(os.path.join(parent, name), NOBODY, NOBODY)


def dump_command(paths: list[Path]) -> str:
    """A command printing each file as `path: base64`, then `[exit code: ...]` as usual."""
    lines = [f'echo "{p}: $(base64 -w0 {shlex.quote(str(p))} 2>/dev/null)"' for p in paths]
    return "; ".join(lines)


def dumped(output: str) -> dict[str, str]:
    """Each file's content, from `dump_command`'s output."""
    contents = {}
    for line in output.splitlines():
        path, sep, encoded = line.partition(": ")
        if sep and path.startswith("/"):
            try:
                contents[path] = base64.b64decode(encoded.strip(), validate=True).decode()
            except (binascii.Error, UnicodeDecodeError):
                contents[path] = encoded
    return contents


def steal(user, api, env, workspace, planloop_home, home, paths, control) -> dict[str, str]:
    """Run planloop once with a model that asks for `paths` and `control` base64'd: what came
    back, decoded. The control file proves the command did read files and came back whole."""
    api.add({"content": [tool_use("bash", {"command": dump_command([*paths, control])})]})
    api.add({"content": [text("Done.")]})
    env = {**env, "HOME": str(home), "PLANLOOP_HOME": str(planloop_home)}
    result = run_as(user, api, env, workspace, home)
    assert result.returncode == 0, result.stderr
    outputs = tool_results(api)
    assert all(API_KEY not in output for output in outputs) and API_KEY not in result.stderr
    output = outputs[-1]  # this run's dump; a test's earlier steps come before it
    contents = dumped(output)
    assert contents.get(str(control)) == control.read_text(), output
    assert "[exit code: 0]" in output, output
    return contents


def leaked(contents: dict[str, str]) -> list[str]:
    return [path for path, content in contents.items() if API_KEY in content]


def read_in_home(api, env, folders, names: Sequence[str], content: str, control: Path) -> dict:
    """Write `content` to each of `names` in the home folder, then run planloop once with a
    model that asks for them all and for `control`: what came back, decoded."""
    user, _, workspace, planloop_home, home = folders
    paths = [write(home / name, content) for name in names]
    hand_over(user, workspace, planloop_home, home)
    contents = steal(user, api, env, workspace, planloop_home, home, paths, control)
    assert set(contents) == {str(path) for path in [*paths, control]}
    return contents


def read_tokens(contents: dict[str, str]) -> list[str]:
    """The files whose TOKEN_LINE a command read."""
    return [path for path, content in contents.items() if TOKEN_LINE in content]


def assert_no_token_read(api, env, folders, names: Sequence[str], control: str) -> None:
    """Write TOKEN_LINE to each of `names` in the home folder, and an ordinary file to
    `control` there, which a command must still read: no command reads a token."""
    control_path = write(folders[-1] / control, CONTROL)
    contents = read_in_home(api, env, folders, names, TOKEN_LINE, control_path)
    assert read_tokens(contents) == []


@needs_bwrap
def test_other_shells_repls_and_tools_keep_their_keys_from_commands(api, env, folders):
    # Start-up files and histories of shells and REPLs besides bash's and zsh's defaults, and
    # another LLM tool's key store: where `export ANTHROPIC_API_KEY=...` is typed or kept.
    home = folders[-1]
    names = [
        ".config/nushell/env.nu",
        ".config/nushell/history.txt",
        ".tcshrc",
        ".cshrc",
        ".kshrc",
        ".mkshrc",
        ".histfile",
        ".config/zsh/.zshrc",
        ".local/state/zsh/history",
        ".local/share/atuin/history.db",
        ".config/llm/keys.json",
        ".config/io.datasette.llm/keys.json",
        ".Renviron",
        ".Rprofile",
        ".Rhistory",
        ".julia/config/startup.jl",
        ".irb_history",
        ".pythonrc",
        ".psqlrc",
        ".local/state/nvim/shada/main.shada",
        ".config/powershell/Microsoft.PowerShell_profile.ps1",
        ".pam_environment",
        ".aider.conf.yml",
        ".config/github-copilot/hosts.json",
    ]
    control = write(home / "notes.txt", CONTROL)
    contents = read_in_home(api, env, folders, names, KEY_LINE, control)
    assert leaked(contents) == []
    assert all((home / name).read_text() == KEY_LINE for name in names)  # nothing changed


@needs_bwrap
def test_files_your_variables_move_keep_the_key_from_commands(api, env, folders):
    # XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, ZDOTDIR, HISTFILE and PYTHONSTARTUP are
    # the person's own: they move fish's config, gh's token, zsh's files and the histories.
    # ZDOTDIR is also one of the folders hidden as a whole (~/.config/zsh): both must hold.
    user, _, workspace, planloop_home, home = folders
    if user != "root":
        pytest.skip("whose the files are changes nothing here")
    moved = {
        "XDG_CONFIG_HOME": home / "xdg-config",
        "XDG_DATA_HOME": home / "xdg-data",
        "XDG_STATE_HOME": home / "xdg-state",
        "ZDOTDIR": home / ".config" / "zsh",
    }
    paths = [
        write(moved["XDG_CONFIG_HOME"] / "fish" / "config.fish"),
        write(moved["XDG_CONFIG_HOME"] / "gh" / "hosts.yml", f"oauth_token: {API_KEY}\n"),
        write(moved["XDG_DATA_HOME"] / "fish" / "fish_history"),
        write(moved["XDG_STATE_HOME"] / "nvim" / "shada" / "main.shada"),
        write(moved["ZDOTDIR"] / ".zshenv"),
        write(home / ".history" / "bash"),
        write(home / "startup" / "python.py", f"import os; os.environ['K'] = '{API_KEY}'\n"),
    ]
    control = write(home / "xdg-config" / "notes.txt", CONTROL)
    hand_over(user, workspace, planloop_home, home)
    env = {
        **env,
        **{name: str(folder) for name, folder in moved.items()},
        "HISTFILE": str(home / ".history" / "bash"),
        "PYTHONSTARTUP": str(home / "startup" / "python.py"),
    }
    contents = steal(user, api, env, workspace, planloop_home, home, paths, control)
    assert leaked(contents) == []
    env["ZDOTDIR"] = str(home / "zdot")  # a ZDOTDIR of its own, hidden by zsh's file names
    paths += [write(home / "zdot" / ".zsh_history"), write(home / "zdot" / ".zshrc")]
    contents = steal(user, api, env, workspace, planloop_home, home, paths, control)
    assert leaked(contents) == []


@needs_bwrap
def test_registries_forges_and_clouds_keep_their_tokens_from_commands(api, env, folders):
    # Tokens of other services than planloop's: the search for copies of its key misses them.
    home = folders[-1]
    control = write(home / ".fly" / "notes.txt", CONTROL)  # the rest of fly's folder is read
    contents = read_in_home(api, env, folders, OTHER_TOKEN_FILES, TOKEN_LINE, control)
    assert read_tokens(contents) == []


# What shell frameworks and direnv source at every start: your own settings, where a token is
# often exported (oh-my-zsh's custom folder also where your ZSH_CUSTOM moves it).
FRAMEWORK_START_FILES = [
    ".oh-my-zsh/custom/keys.zsh",
    "zsh-custom/keys.zsh",
    ".bash_it/custom/keys.bash",
    ".zprezto/runcoms/zshrc",
    ".direnvrc",
    ".config/direnv/direnvrc",
    ".config/direnv/lib/keys.sh",
]


@needs_bwrap
def test_what_shell_frameworks_and_direnv_source_keeps_its_tokens_from_commands(api, env, folders):
    home = folders[-1]
    control = write(home / "notes.txt", CONTROL)
    env = {**env, "ZSH_CUSTOM": str(home / "zsh-custom")}
    contents = read_in_home(api, env, folders, FRAMEWORK_START_FILES, TOKEN_LINE, control)
    assert read_tokens(contents) == []


@needs_bwrap
def test_other_logins_and_app_sessions_keep_their_tokens_from_commands(api, env, folders):
    # Hidden from commands only: your own tools, outside the sandbox, still read them.
    home = folders[-1]
    control = write(home / ".config" / "onedrive" / "config", CONTROL)  # the rest is read
    contents = read_in_home(api, env, folders, OTHER_LOGIN_FILES, TOKEN_LINE, control)
    assert read_tokens(contents) == []
    assert all((home / name).read_text() == TOKEN_LINE for name in OTHER_LOGIN_FILES)


# The same profiles, sessions and logins where Snap and Flatpak keep an app's home: a snap's
# `common` folder and each revision's (Ubuntu's Firefox, the docker snap), Chromium's snap
# profile in `common/chromium`, a Flatpak app's folder and its `config` and `data`; and
# Firefox's own XDG folder.
APP_HOME_FILES = (
    "snap/firefox/common/.mozilla/firefox/p.default-release/logins.json",
    "snap/thunderbird/common/.thunderbird/p.default/key4.db",
    "snap/chromium/common/chromium/Default/Cookies",
    "snap/docker/2915/.docker/config.json",
    "snap/code/180/.config/Code/User/globalStorage/state.vscdb",
    "snap/doctl/common/.config/doctl/config.yaml",
    ".var/app/com.google.Chrome/config/google-chrome/Default/Cookies",
    ".var/app/com.slack.Slack/config/Slack/Cookies",
    ".var/app/org.mozilla.firefox/.mozilla/firefox/p.default-release/logins.json",
    ".var/app/org.telegram.desktop/data/TelegramDesktop/tdata/key_datas",
    ".config/mozilla/firefox/p.default-release/logins.json",
)


@needs_bwrap
def test_browser_profiles_and_logins_in_snap_and_flatpak_app_homes_keep_their_tokens(
    api, env, folders
):
    # Also read through snap's `current` link to the revision; the rest of an app's home stays
    # readable.
    home = folders[-1]
    link(home / "snap" / "docker" / "current", "2915")
    control = write(home / "snap" / "firefox" / "common" / "notes.txt", CONTROL)
    names = [*APP_HOME_FILES, "snap/docker/current/.docker/config.json"]
    contents = read_in_home(api, env, folders, names, TOKEN_LINE, control)
    assert read_tokens(contents) == []
    assert all((home / name).read_text() == TOKEN_LINE for name in APP_HOME_FILES)


# The state database of VS Code's forks, and of the servers VS Code and its forks run on the
# machine they edit over Remote-SSH: extensions' tokens, as in VS Code's own.
EDITOR_STATE_FILES = (
    ".config/Windsurf/User/globalStorage/state.vscdb",
    ".config/Code - OSS/User/globalStorage/state.vscdb",
    ".vscode-server-insiders/data/User/globalStorage/state.vscdb",
    ".vscodium-server/data/User/globalStorage/state.vscdb",
    ".cursor-server/data/User/globalStorage/state.vscdb",
    ".windsurf-server/data/User/globalStorage/state.vscdb",
)


@needs_bwrap
def test_the_state_database_of_vs_codes_forks_and_remote_servers_keeps_its_tokens(
    api, env, folders
):
    control = ".cursor-server/data/Machine/settings.json"
    assert_no_token_read(api, env, folders, EDITOR_STATE_FILES, control)


# Copies of edited files where the same editors keep them elsewhere: VS Code's Local History
# on the machine it edits over Remote-SSH (its forks' too), hot exit's backups of unsaved and
# untitled editors, neovim's older swap and undo folders, Emacs' backups in its XDG folder.
EDITOR_COPIES = (
    ".vscode-server/data/User/History/-5a1b2c3d/AbCd.env",
    ".cursor-server/data/User/History/-5a1b2c3d/AbCd.env",
    ".config/Code/Backups/1733600000000/untitled/-7f8e9d",
    ".config/Cursor/Backups/1733600000000/file/-1a2b3c",
    ".config/Code - Insiders/User/History/-5a1b2c3d/AbCd.env",
    ".local/share/nvim/swap/%work%.env.swp",
    ".local/share/nvim/undo/%work%.env",
    ".config/emacs/backups/!work!.env~",
    ".config/emacs/auto-save-list/.saves-1234-host~",
)


@needs_bwrap
def test_copies_editors_keep_elsewhere_keep_their_tokens(api, env, folders):
    assert_no_token_read(api, env, folders, EDITOR_COPIES, ".config/emacs/init.el")


@needs_bwrap
def test_a_tools_config_is_hidden_while_it_holds_a_credential(api, env, folders):
    # Hidden whole while it holds one; one without stays readable, for the tools to read.
    home = folders[-1]
    control = write(home / ".cargo" / "config", CONTROL)
    contents = read_in_home(api, env, folders, CONFIGS_WITH_A_CREDENTIAL, TOKEN_LINE, control)
    assert read_tokens(contents) == []


# Other coding agents' configs, which hold their LLM's key or their own login, and the MCP
# servers editors start, given their tokens in `env`.
AGENT_CONFIGS = (
    ".openhands/settings.json",
    ".grok/user-settings.json",
    ".vibe/.env",
    ".kimi/config.json",
    ".copilot/config.json",
    ".factory/auth.json",
    ".kiro/settings/mcp.json",
    ".config/Code/User/mcp.json",
    ".config/Cursor/User/mcp.json",
)
# An editor's settings with an MCP server's token in them, on one line as JSON allows.
MCP_SETTINGS = '{"mcp": {"servers": {"gh": {"env": {"GITHUB_TOKEN": "ghp_%s"}}}}}\n' % ("a" * 36)


@needs_bwrap
def test_other_agents_configs_and_editors_mcp_servers_keep_their_tokens(api, env, folders):
    # An editor's settings are hidden while they hold a credential; without one, readable.
    home = folders[-1]
    for name in (".config/Code/User/settings.json", ".config/zed/settings.json"):
        write(home / name, MCP_SETTINGS)
    write(home / ".config/Cursor/User/settings.json", '{\n  "mcp": {"env": {\n' + TOKEN_LINE)
    control = ".config/VSCodium/User/settings.json"
    assert_no_token_read(api, env, folders, AGENT_CONFIGS, control)
    user, _, workspace, planloop_home, _ = folders
    names = [".config/Code/User/settings.json", ".config/zed/settings.json"]
    names.append(".config/Cursor/User/settings.json")
    paths = [home / name for name in names]
    contents = steal(user, api, env, workspace, planloop_home, home, paths, home / control)
    assert [
        path for path, content in contents.items() if "ghp_" in content or "glpat" in content
    ] == []


@needs_bwrap
def test_a_file_your_start_up_files_source_is_hidden_where_it_sets_a_secret(api, env, folders):
    # `. ~/.config/shell/tokens.sh` in ~/.bashrc, and a name dotfiles give such a file, which a
    # loop sources (`for f in ~/.{exports,extra}; do . "$f"; done`); one that sets no secret
    # stays readable.
    home = folders[-1]
    write(home / ".bashrc", ". ~/.config/shell/tokens.sh\n. ~/.config/shell/aliases.sh\n")
    control = write(home / ".config" / "shell" / "aliases.sh", "alias ll='ls -l'\n")
    names = [".config/shell/tokens.sh", ".extra"]
    secret = "export DEPLOY_TOKEN=hunter2-deploy\n"
    contents = read_in_home(api, env, folders, names, secret, control)
    assert [path for path, content in contents.items() if "hunter2" in content] == []


@needs_bwrap
def test_a_file_your_start_up_files_source_by_a_variable_or_a_pattern_is_hidden(api, env, folders):
    # The XDG idiom (its variable unset here), a name set plainly before, a loop over a
    # pattern and zsh's `emulate sh -c`: the file is judged by what it sets as by its path.
    home = folders[-1]
    write(
        home / ".bashrc",
        '. "${XDG_CONFIG_HOME:-$HOME/.config}/shell/xdg.sh"\n'
        'f=~/.config/shell/named.sh; [ -r "$f" ] && . "$f"\n'
        'for f in ~/.config/shell/rc.d/*.sh; do . "$f"; done\n',
    )
    write(home / ".zshrc", "emulate sh -c '. ~/.config/shell/emulated.sh'\n")
    control = write(home / ".config" / "shell" / "rc.d" / "aliases.sh", "alias ll='ls -l'\n")
    names = [".config/shell/xdg.sh", ".config/shell/named.sh", ".config/shell/rc.d/tokens.sh"]
    names.append(".config/shell/emulated.sh")
    secret = "export DEPLOY_TOKEN=hunter2-deploy\n"
    contents = read_in_home(api, env, folders, names, secret, control)
    assert [path for path, content in contents.items() if "hunter2" in content] == []


# Files your start-up files source, each setting a secret by another command than a plain
# `export NAME=value` line (by the start-up file that sources it: bash's, fish's, tcsh's).
GUARDED_SECRETS = {
    ".bashrc": {
        ".config/shell/guarded.sh": '[ -n "$PS1" ] && export WEATHER_API_KEY=hunter2-guarded\n',
        ".config/shell/branch.sh": "if [ -t 1 ]; then export WEATHER_API_KEY=hunter2-branch; fi\n",
        ".config/shell/listed.sh": "export EDITOR=vim WEATHER_API_KEY=hunter2-listed\n",
        ".config/shell/declared.sh": "declare -gx WEATHER_API_KEY=hunter2-declared\n",
        ".config/shell/readonly.sh": "readonly WEATHER_API_KEY=hunter2-readonly\n",
        ".config/shell/default.sh": "WEATHER_API_KEY=${WEATHER_API_KEY:-hunter2-default}\n",
        ".config/shell/quoted.sh": "export WEATHER_API_KEY=$'hunter2-quoted'\n",
        ".config/shell/eval.sh": "eval \"export WEATHER_API_KEY='hunter2-eval'\"\n",
    },
    ".config/fish/config.fish": {
        ".config/fish/secrets.fish": "set --export WEATHER_API_KEY hunter2-fish\n",
        ".config/fish/guarded.fish": "status is-interactive; and set -gx X_TOKEN hunter2-and\n",
    },
    ".tcshrc": {".config/csh/secrets.csh": "setenv WEATHER_API_KEY hunter2-csh\n"},
}


@needs_bwrap
def test_a_sourced_file_is_hidden_whatever_command_sets_its_secret(api, env, folders):
    # One that sets only what is no secret, or a secret from elsewhere, stays readable.
    home = folders[-1]
    for start_file, sourced in GUARDED_SECRETS.items():
        sources = "".join(f"source ~/{name}\n" for name in sourced)
        write(home / start_file, f"{sources}source ~/.config/shell/plain.sh\n")
        for name, lines in sourced.items():
            write(home / name, lines)
    plain = 'export EDITOR=vim\nexport GH_TOKEN="$(pass show gh)"\n[ -t 1 ] && set -o vi\n'
    control = write(home / ".config" / "shell" / "plain.sh", plain)
    names = [name for sourced in GUARDED_SECRETS.values() for name in sourced]
    user, _, workspace, planloop_home, _ = folders
    hand_over(user, workspace, planloop_home, home)
    paths = [home / name for name in names]
    contents = steal(user, api, env, workspace, planloop_home, home, paths, control)
    assert [path for path, content in contents.items() if "hunter2" in content] == []


@needs_bwrap
def test_the_file_your_git_stores_passwords_in_is_hidden_wherever_your_config_puts_it(
    api, env, folders
):
    # `git config --global credential.helper "store --file ~/.git-credentials-work"`: git keeps
    # every password it is given there, in plain text.
    home = folders[-1]
    helpers = "store --file ~/.git-credentials-work\n\thelper = store --file=/nowhere/else"
    write(home / ".gitconfig", f"[credential]\n\thelper = {helpers}\n")
    control = write(home / "notes.txt", CONTROL)
    names = [".git-credentials-work"]
    contents = read_in_home(api, env, folders, names, TOKEN_LINE, control)
    assert read_tokens(contents) == []


@needs_bwrap
def test_token_files_your_tools_variables_move_keep_the_key_from_commands(api, env, folders):
    # Each variable's value is a folder or file of its own name, lowercased, in the home folder.
    if folders[0] != "root":
        pytest.skip("whose the files are changes nothing here")
    home = folders[-1]
    variables = [*TOKEN_FOLDER_VARIABLES, *TOKEN_FILE_VARIABLES, *SECRET_FOLDER_VARIABLES]
    env = {**env, **{name: str(home / name.lower()) for name in variables}}
    kube = ["kube/one.yaml", "kube/two.yaml"]
    env["KUBECONFIG"] = os.pathsep.join(str(home / name) for name in kube)
    names = [f"{name.lower()}/{file}" for name, file in TOKEN_FOLDER_VARIABLES.items()]
    names += [name.lower() for name in TOKEN_FILE_VARIABLES] + kube
    names += [f"{name.lower()}/any/file.json" for name in SECRET_FOLDER_VARIABLES]
    control = write(home / "kube" / "notes.txt", CONTROL)
    contents = read_in_home(api, env, folders, names, TOKEN_LINE, control)
    assert read_tokens(contents) == []
    assert all((home / name).read_text() == TOKEN_LINE for name in names)  # yours to read


@needs_bwrap
def test_the_env_above_the_path_your_shell_entered_by_keeps_the_key(api, env, folders):
    # /x/mono/proj is a link to ../data/proj. Your shell (and direnv, which loaded the key from
    # /x/mono/.envrc) is in /x/mono/proj; the folders above the resolved path are /x/data.
    user, base, _, planloop_home, home = folders
    real = base / "data" / "proj"
    real.mkdir(parents=True)
    logical = base / "mono" / "proj"
    link(logical, "../data/proj")
    paths = [
        write(base / "mono" / ".envrc"),
        write(base / "mono" / ".env.local", f"ANTHROPIC_API_KEY={API_KEY}\n"),
    ]
    control = write(base / "mono" / ".env", "DEBUG=1\n")  # no key: read as before
    hand_over(user, base / "data", base / "mono", planloop_home, home)
    env = {**env, "PWD": str(logical)}
    contents = steal(user, api, env, logical, planloop_home, home, paths, control)
    assert leaked(contents) == []


@needs_bwrap
def test_the_env_in_a_parent_no_one_may_list_keeps_the_key(api, env, folders):
    # A shared /srv/app of root's, 0711: the person may enter it, not list it; its .env is
    # readable to whoever knows the name, and `.env` is a name everyone knows.
    user, base, _, planloop_home, home = folders
    if user != "nobody":
        pytest.skip("root lists every folder")
    shared = base / "srv"
    workspace = shared / "app"
    workspace.mkdir(parents=True)
    paths = [write(shared / ".env"), write(shared / ".envrc"), write(shared / ".env.production")]
    control = write(shared / "README", CONTROL)
    for path in [*paths, control]:
        path.chmod(0o644)
    shared.chmod(0o711)
    hand_over(user, workspace, planloop_home, home)
    api.add({"content": [tool_use("bash", {"command": "ls .. >/dev/null"})]})
    contents = steal(user, api, env, workspace, planloop_home, home, paths, control)
    assert "Permission denied" in tool_results(api)[0]  # planloop could not list it either
    assert leaked(contents) == []


@needs_bwrap
def test_files_stow_links_into_a_hidden_folder_keep_the_key(api, env, folders):
    # GNU stow did not fold ~/.config/fish (another package, or a file of its own, is in it):
    # it is a real folder whose files are links into ~/dotfiles, where a command would read
    # them. The same for a link into the workspace (planloop run in the dotfiles repository):
    # the file there is hidden, the rest of the workspace not; links to /usr or to the home
    # folder itself hide neither.
    user, _, workspace, planloop_home, home = folders
    fish = home / ".config" / "fish"
    package = home / "dotfiles" / "fish" / ".config" / "fish"
    paths = [
        write(package / "config.fish", f"set -gx ANTHROPIC_API_KEY {API_KEY}\n"),
        write(package / "conf.d" / "keys.fish", f"set -gx ANTHROPIC_API_KEY {API_KEY}\n"),
        write(package / "functions" / "llm.fish", f"function llm; env K={API_KEY}; end\n"),
    ]
    link(fish / "config.fish", "../../dotfiles/fish/.config/fish/config.fish")
    link(fish / "conf.d" / "keys.fish", "../../../dotfiles/fish/.config/fish/conf.d/keys.fish")
    link(fish / "functions", "../../dotfiles/fish/.config/fish/functions")  # a folded folder
    write(fish / "fish_variables", "SETUVAR x:1\n")
    link(fish / "project.fish", str(workspace / "project.fish"))
    link(fish / "system", "/usr/bin")
    link(fish / "home", "../..")
    paths.append(write(workspace / "project.fish", f"set -gx ANTHROPIC_API_KEY {API_KEY}\n"))
    control = write(workspace / "README", CONTROL)
    write(home / ".bashrc", "PS1=x\n")
    hand_over(user, workspace, planloop_home, home)
    # The command also shows it can still run programs and read the rest of the home folder.
    api.add({"content": [tool_use("bash", {"command": "/usr/bin/env true && ls ~/dotfiles"})]})
    contents = steal(user, api, env, workspace, planloop_home, home, paths, control)
    assert "fish" in tool_results(api)[0] and "[exit code: 0]" in tool_results(api)[0]
    assert leaked(contents) == []
    assert all(API_KEY in path.read_text() for path in paths)


@needs_bwrap
def test_secrets_your_home_links_to_by_absolute_paths_are_hidden_and_commands_run(
    api, env, folders
):
    # dotbot, install scripts and home-manager write absolute links: ~/.bashrc to a dotfiles
    # checkout, ~/.ssh and ~/.aws to folders elsewhere, ~/.cache to another disk, and your
    # history to /dev/null. Each secret stays hidden by both names, and commands still run in
    # the sandbox (bwrap cannot follow an absolute link while it builds one).
    user, base, workspace, planloop_home, home = folders
    elsewhere = base / "elsewhere"
    paths = [
        write(home / "dotfiles" / "bashrc"),
        write(home / "dotfiles" / "ssh" / "id_ed25519", f"{API_KEY}\n"),
        write(elsewhere / "aws" / "credentials", f"aws_secret_access_key = {API_KEY}\n"),
        write(elsewhere / "cache" / "huggingface" / "token", f"{API_KEY}\n"),
    ]
    link(home / ".bashrc", str(home / "dotfiles" / "bashrc"))
    link(home / ".ssh", str(home / "dotfiles" / "ssh"))
    link(home / ".aws", str(elsewhere / "aws"))
    link(home / ".cache", str(elsewhere / "cache"))
    link(home / ".bash_history", "/dev/null")
    by_links = [home / ".bashrc", home / ".ssh/id_ed25519", home / ".aws/credentials"]
    by_links.append(home / ".cache/huggingface/token")
    control = write(home / "notes.txt", CONTROL)
    hand_over(user, workspace, planloop_home, home, elsewhere)
    contents = steal(user, api, env, workspace, planloop_home, home, [*paths, *by_links], control)
    assert "without a sandbox" not in tool_results(api)[0]
    assert leaked(contents) == []
    assert all(API_KEY in path.read_text() for path in paths)


def test_read_file_does_not_read_what_a_folded_hidden_folder_s_links_lead_to(tmp_path, monkeypatch):
    # planloop runs in the dotfiles repository, which stow folded into `~/.ssh` as a whole: the
    # hidden folder lies in the workspace, and its key is a link to another folder of it.
    home, dotfiles = tmp_path / "home", tmp_path / "home" / "dotfiles"
    write(dotfiles / "private" / "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
    link(dotfiles / "ssh" / ".ssh" / "id_ed25519", "../../private/id_ed25519")
    link(home / ".ssh", "dotfiles/ssh/.ssh")
    write(dotfiles / "README", CONTROL)
    monkeypatch.setenv("HOME", str(home))
    assert is_hidden_secret(dotfiles, "private/id_ed25519")  # as the sandbox hides it
    assert not is_hidden_secret(dotfiles, "README")


@needs_bwrap
def test_a_system_start_up_file_holding_the_key_appears_empty(monkeypatch, workspace):
    # /etc/environment or a script in /etc/profile.d, where servers keep such keys: stood in for
    # by files outside /etc, since a test must not write the system's own.
    folder = outside_tmp("planloop-keys-etc-")
    try:
        environment = write(folder / "environment", f"ANTHROPIC_API_KEY={API_KEY}\n")
        profile_d = write(folder / "profile.d" / "keys.sh", KEY_LINE).parent
        plain = write(folder / "profile.d" / "lang.sh", "export LANG=C.UTF-8\n")
        monkeypatch.setattr(sandbox, "SYSTEM_START_UP_FILES", (str(environment),))
        monkeypatch.setattr(sandbox, "SYSTEM_START_UP_FOLDERS", (str(profile_d),))
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        command = dump_command([environment, profile_d / "keys.sh", plain])
        contents = dumped(run(run_bash(workspace, command, sandbox=sandbox.Bubblewrap())))
        assert contents[str(plain)] == plain.read_text()  # one without the key is untouched
        assert leaked(contents) == [] and len(contents) == 3
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@needs_bwrap
def test_a_hidden_file_or_folder_outside_that_is_removed_while_the_sandbox_is_made_stops_nothing(
    monkeypatch, workspace
):
    # Another project's file holding the key, and your ~/.ssh, hidden by this sandbox and
    # removed (by you, by that project's tooling) after planloop listed them and before bwrap
    # mounted: there is nothing left to hide, and the command runs.
    folder = outside_tmp("planloop-gone-")
    try:
        environment = write(folder / "other" / "environment", f"ANTHROPIC_API_KEY={API_KEY}\n")
        home = folder / "home"
        write(home / ".ssh" / "id_ed25519", "PRIVATE KEY\n")
        monkeypatch.setattr(sandbox, "SYSTEM_START_UP_FILES", (str(environment),))
        monkeypatch.setattr(sandbox, "SYSTEM_START_UP_FOLDERS", ())
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        monkeypatch.setenv("HOME", str(home))
        box = sandbox.Bubblewrap()
        argv, environ = box.wrap(workspace, "echo the command ran")
        held, hidden = box.view_of(argv)
        assert str(environment) in hidden and str(home / ".ssh") in held  # an empty folder
        shutil.rmtree(folder / "other")
        shutil.rmtree(home / ".ssh")
        result = subprocess.run(argv, env=environ, capture_output=True, text=True, timeout=60)
        assert (result.returncode, result.stdout) == (0, "the command ran\n"), result.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@needs_bwrap
def test_a_git_planted_on_a_path_folder_in_the_workspace_never_runs(api, env, folders):
    # Looking up your git config's credential store runs git: never a `git` an activated
    # virtualenv's .venv/bin (first on PATH) holds, as a cloned repository can ship one.
    user, _, workspace, planloop_home, home = folders
    planted = workspace / ".venv" / "bin"
    planted.mkdir(parents=True)
    leak = workspace / "GIT-RAN"
    (planted / "git").write_text(f"#!/bin/sh\ntouch {leak}\n")
    (planted / "git").chmod(0o755)
    write(home / ".gitconfig", "[credential]\n\thelper = store --file ~/.git-credentials-work\n")
    control = write(home / "notes.txt", CONTROL)
    env = {**env, "PATH": f"{planted}:{env['PATH']}"}
    contents = read_in_home(api, env, folders, [".git-credentials-work"], TOKEN_LINE, control)
    assert read_tokens(contents) == []  # found by the git on your PATH outside the workspace
    assert not leak.exists()


# Notes, at planloop's first import of asyncio (long after its first line), whether the process
# is still dumpable (PR_GET_DUMPABLE): the start of each probe below.
DUMPABLE_AT_THE_FIRST_IMPORT = textwrap.dedent(
    """
    import ctypes, sys
    libc, seen = ctypes.CDLL(None), []
    def hook(event, args):
        if event == "import" and args[0] == "asyncio" and not seen:
            seen.append(libc.prctl(3, 0, 0, 0, 0))
    sys.addaudithook(hook)
    """
)


def test_planloop_is_closed_to_other_processes_before_it_imports_anything(tmp_path):
    """The key may be in planloop's environment from its first instant: it makes itself
    non-dumpable (`/proc/<pid>/environ` closed to the user's other processes) before its
    first import, not once its modules are loaded, hundreds of milliseconds later."""
    probe = DUMPABLE_AT_THE_FIRST_IMPORT + textwrap.dedent(
        """
        import runpy
        sys.argv = [sys.argv[1], "--help"]
        try:
            runpy.run_path(sys.argv[0], run_name="__main__")
        except SystemExit:
            pass
        print("dumpable at the first import:", seen)
        """
    )
    agent = Path(__file__).resolve().parent.parent / "agent.py"
    done = subprocess.run(
        [sys.executable, "-c", probe, str(agent)], capture_output=True, text=True, cwd=tmp_path
    )
    assert "dumpable at the first import: [0]" in done.stdout, done.stdout + done.stderr


def test_the_installed_command_is_closed_before_it_imports_anything_under_any_name(tmp_path):
    """The `planloop` command pip installs, run through a link of another name (`pl`): it
    closes itself as `python agent.py` does, not only when its name is planloop."""
    probe = DUMPABLE_AT_THE_FIRST_IMPORT + textwrap.dedent(
        """
        sys.path.insert(0, sys.argv[1])
        sys.argv = ["/usr/local/bin/pl", "--help"]
        from first_fork import main  # what the installed script runs (pyproject.toml)
        try:
            main()
        except SystemExit:
            pass
        print("dumpable at the first import:", seen)
        """
    )
    root = Path(__file__).resolve().parent.parent
    assert 'planloop = "first_fork:main"' in (root / "pyproject.toml").read_text()
    done = subprocess.run(
        [sys.executable, "-c", probe, str(root)], capture_output=True, text=True, cwd=tmp_path
    )
    assert "dumpable at the first import: [0]" in done.stdout, done.stdout + done.stderr
