"""Where shell commands run: directly, or inside a bubblewrap sandbox.

A sandbox is any object with one method, `wrap(workspace, command) -> (argv, env)`: the argv to
spawn and the environment to give it. The bash tool and background tasks both spawn through it,
and call `before_command` / `after_command` around each command when the sandbox has them.

    NoSandbox()                 /bin/bash -c COMMAND, with a clean environment
    Bubblewrap(allow_network)   the same command inside bwrap (https://github.com/containers/bubblewrap):

        /                     read-only         the system is there to use, not to change
        pipes, devices        no writes         outside the workspace, /tmp and /dev: Landlock
                                                (tools/landlock.py), since a read-only mount
                                                does not stop a write to a FIFO or device
        the workspace         writable          ... except its protected paths:
          every .git          read-only whole   folder or gitdir: file, what it points to
                                                inside the workspace, core.hooksPath (yours
                                                too), includes; also a folder that is a git
                                                repository by its content (a bare one)
          what hooks link to  read-only         a hook that is a link: its target, such as
                                                scripts/pre-commit.sh
          what links lead to  read-only         a link in a held folder (a PATH folder, here or
                                                outside, .vscode/, a venv's bin/): its target,
                                                such as scripts/deploy.sh for bin/deploy
          what runs later     read-only         what your environment names (ZDOTDIR, PERL5LIB),
                                                your start-up files or an .envrc source, a
                                                virtualenv's bin/ (tools/shell_config.py)
          git's programs      read-only         what git's config runs by a path here:
                                                core.pager, ./fsmon.sh, init.templateDir
                                                (tools/git_programs.py)
          host tools' scripts read-only         what a folderOpen task, an initializeCommand,
                                                an agent's hook or MCP server, mise's hooks
                                                run here (tools/tool_scripts.py)
          no .git at the top  an empty one      read-only, so `git init` fails there
          existing .env*      read-only         they steer where the API key goes; one that
                                                holds planloop's own key appears empty
          folders above them  pinned            bound onto themselves: no command moves them
        secrets in ~          hidden (empty)    ~/.ssh, ~/.aws, ... and planloop's home
        /tmp                  private, empty    a tmpfs only this command sees
        /proc, /dev           fresh, minimal    mounted last: nothing bound earlier covers them
        /proc/sys             read-only         the kernel's settings, also for the sandbox's root
        capabilities          none              --cap-drop ALL; as root, a user namespace too
        unix sockets, vsock   refused           a seccomp filter (tools/seccomp.py), which also
        kernel keyrings       refused             refuses keyctl, add_key and request_key
        network               none              unless allow_network (--allow-network)

Every protected path is bound only when it, and what it resolves to, is a file or folder inside
the workspace. The binds are made from file descriptors that a small launcher opens and checks
just before bwrap starts (tools/sandbox_launch.py), so a command running at the same time
cannot swap a checked path for a link to the host's / or /proc. bwrap mounts in argv order, and
a folder bound from the host covers what was mounted inside it before: every mount that empties
a path (a hidden key, a hidden folder) comes after every bind (`in_mount_order`), and `wrap`
checks that before any command runs (`emptied_then_covered`).

Nothing is ever deleted: a `.env*` or `.git` that a command creates is reported (in the tool
result, on the terminal through `notify`, and again at exit through `closing_report`).

Where the sandbox cannot keep its promise (a workspace too large to scan, no seccomp filter for
this machine, no Landlock in its kernel, bwrap, the launcher's Python or planloop's own Python
code, a virtual environment for example, inside the workspace), `must_ask` holds the reason and
the permission policy makes bash ask, as without a sandbox.

The environment is built on purpose either way (tools/environment.py): no `ANTHROPIC_*`
variable (the key, an auth token, the base URL) and nothing that makes bash or the dynamic
loader run extra code reaches a command, or bwrap itself; sandboxed commands also get no
addresses of your agents and daemons (SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS, ...) and no
variable whose name says it is a secret (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, ...).

`bubblewrap_works()` is the start-up probe: it runs `true` in the same sandbox once.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import functools
import itertools
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from redaction import secret_encodings, secret_values
from tools import landlock, sandbox_launch
from tools.base import ToolError
from tools.beneath import located
from tools.between_commands import (
    key_files_written_between,
    key_files_written_while_it_started,
    watch_until_the_next_command,
)
from tools.bind_watch import holds_the_key, read_allocated
from tools.build_files import BUILD_FILE_REASON
from tools.environment import (
    WordTooLong,
    command_environment,
    host_program,
    path_folders_in,
)
from tools.event_queues import SignalCheck, open_own, own_read_done
from tools.file_call import current_file_call
from tools.git_programs import (
    PATH_VARIABLE_REASON,
    PYTHON_FOLDER_REASON,
    PYTHON_MODULE_REASON,
    PYTHON_NEW_MODULE_REASON,
    TOLD_ONLY,
    any_file_git_may_run,
    git_files_when_there,
    git_program_not_held,
    git_programs_in,
)
from tools.homes import account_home, your_homes
from tools.key_copies import cut_short_notice, key_copy_search, mount_table, other_paths
from tools.letter_case import ignores_case
from tools.named_keys import (
    GIT_CONFIG_VARIABLES,
    RCLONE_KEY_OPTIONS,
    certificates_of_your_environment,
    chezmoi_age_identities,
    configs_holding_a_credential,
    files_your_secret_commands_read,
    git_includes_cut,
    git_key_files,
    git_key_files_of_settings,
    git_settings_in_your_environment,
    kerberos_files_of_your_environment,
    kerberos_folders_of_your_environment,
    key_stores_of_your_environment,
    keys_untold,
    kubeconfig_key_files,
    ldaprc_key_files,
    npm_global_configs,
    ssh_command_keys,
    ssh_key_files,
    tool_key_files,
)
from tools.node_packages import NODE_PACKAGE_REASON
from tools.paths import (
    GIT_DIR_NAME,
    OPTION_NAME_REASON,
    VENV_LINK_REASON,
    FolderListing,
    WorkspaceScan,
    common_dir_of,
    config_too_big,
    git_config_paths,
    git_dir_of,
    git_paths_around,
    held_folder_links,
    held_link_not_held,
    held_link_targets,
    home_file_hard_linked,
    home_link_not_held,
    home_link_to_workspace,
    home_links_into,
    hook_links,
    hook_links_around,
    host_tool_settings,
    is_env_name,
    link_identity,
    linked_outside,
    open_workspace,
    path_entries,
    path_link_not_held,
    planloop_home,
    protected_reason,
    read_small_file,
    real_workspace,
    scan_for_file_tools,
    scan_workspace,
    workspace_identity,
)
from tools.per_file_configs import PER_FILE_CONFIG_REASON
from tools.process import parent_of, processes_below, running_sandbox_pids
from tools.seccomp import UnsupportedMachine, unix_socket_filter
from tools.shell_config import (
    PYTHON_PATH_REASON,
    PYTHON_START_REASON,
    SITE_FOLDER_NAMES,
    YOUR_CONFIG_REASON,
    YOUR_ENVIRONMENT_REASON,
    cd_hook_names,
    held_when_there,
    identities,
    made_since,
    python_start_files,
    run_later,
    sets_a_secret,
    sourced_by_your_shell,
    untold_by_envrcs,
    untold_by_your_shell,
)
from tools.shell_config import loaded_as_settings as settings_files
from tools.shell_config import not_held as run_later_not_held
from tools.shell_config import read_only as run_later_read_only
from tools.tool_scripts import (
    ANY_FILE_MAY_RUN,
    COMPOSE_REASON,
    EDITOR_CODE_REASON,
    EDITOR_ENV_FILE_REASON,
    EDITOR_PROGRAM_REASON,
    FILE_TOOLS_ASK_TOO,
    LOCAL_PACKAGE_REASON,
    NPM_SETTINGS_REASON,
    any_file_may_run,
    npm_settings,
    per_file_config_not_held,
    per_file_configs,
    read_once,
    tool_files_when_there,
    tool_script_not_held,
    tool_scripts_in,
)

INSTALL_HINT = "install it with: apt-get install bubblewrap"
# A key file is read whole for the key planloop uses (holds_known_secret), this much at a time;
# one larger than MAX_SECRET_SCAN_BYTES counts as holding it: settings.py reads a .env whole, so
# the key may sit anywhere in it, and a bound is still needed for a file that grows as it is read.
MAX_SECRET_SCAN_BYTES = 16 * 1024 * 1024


def clean_environment(sandboxed: bool = True) -> dict[str, str]:
    """The environment of a command, and of bwrap when `sandboxed` (tools/environment.py)."""
    return command_environment(sandboxed)


class NoSandbox:
    """Run the command directly with bash; only the environment is cleaned."""

    confines_writes = False

    def wrap(self, workspace: Path, command: str) -> tuple[list[str], dict[str, str]]:
        real_workspace(workspace)  # still the folder planloop started in (WorkspaceMoved)
        return ["/bin/bash", "-c", command], clean_environment(sandboxed=False)


# What runs outside the sandbox before each command, fixed when planloop starts: bwrap, and the
# launcher as source code given to the base interpreter (not a virtualenv's python, which may
# lie in the workspace and be replaced by a command; not a file read again per command).
# Found outside the workspace only: the probes below run it before any sandbox exists.
BWRAP = (found := host_program("bwrap")) and os.path.realpath(found)
LAUNCHER_PYTHON = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
if not os.access(LAUNCHER_PYTHON, os.X_OK):
    # The base interpreter may lie where this user cannot reach it (a pyenv under /root, run by
    # another user). The interpreter running planloop is the same program, and the kernel hands
    # it over as /proc/self/exe; a running executable cannot be rewritten (ETXTBSY) either.
    LAUNCHER_PYTHON = "/proc/self/exe"
LAUNCHER_SOURCE = Path(sandbox_launch.__file__).read_text()
LANDLOCK_SOURCE = Path(landlock.__file__).read_text()


def landlock_python() -> str | None:
    """An interpreter for the step inside the sandbox that applies Landlock (tools/landlock.py).

    There /proc/self/exe would be bwrap itself, so it needs a real path this user may run: the
    interpreter running planloop, else the system's Python 3 (the base interpreter may lie where
    this user cannot reach it, see LAUNCHER_PYTHON). Any Python 3 does: the step is a few lines.
    """
    base = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    for candidate in (base, host_program("python3")):
        if candidate and os.access(os.path.realpath(candidate), os.X_OK):
            return os.path.realpath(candidate)
    return None


LANDLOCK_PYTHON = landlock_python()

# zsh's start-up files and usual histories: in your home folder, and in $ZDOTDIR when you set it.
ZSH_FILES = (
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".zshrc.local",
    ".zsh_history",
    ".zhistory",
    ".histfile",  # zsh-newuser-install's HISTFILE
)

# Credentials in the home folder that a command has no business reading: hidden by default,
# re-opened one by one with --sandbox-allow-read. First the usual cloud, ssh and registry ones.
# The user folders of VS Code and its forks, in ~/.config.
VS_CODES = ("Code", "Code - Insiders", "Code - OSS", "VSCodium", "Cursor", "Windsurf")
# The folders of their servers, on the machine they edit over Remote-SSH (where an agent runs):
# each keeps its own state, in `data/User`.
VS_CODE_SERVERS = (
    *(".vscode-server", ".vscode-server-insiders", ".vscodium-server"),
    *(".cursor-server", ".windsurf-server"),
)
MINIKUBE_CA_KEYS = ("ca.key", "proxy-client-ca.key")
SECRET_HOME_PATHS = (
    ".ssh",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker",
    ".gnupg",
    ".netrc",
    ".authinfo",  # .netrc's format, for Emacs (auth-source): gptel and ellama keep keys there
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    # Not named in the list above but the same kind: tokens of common tools.
    ".config/gh",
    ".config/git/credentials",
    ".gitcookies",  # Gerrit's auth cookies, which git sends where http.cookiefile names them
    ".gcm",  # Git Credential Manager's plain-text store (credential.credentialStore=plaintext)
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".terraformrc",
    ".dockercfg",
    ".pgpass",
    # libpq's client key (postgresql.key) lies beside the server's public root.crt: the folder is
    # hidden whole, as ~/.ssh is with its public keys and known_hosts, since the key may have
    # been given any name there, and certificates alone let no command in.
    ".postgresql",
    ".pg_service.conf",  # libpq's named connections, a password= in them
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".databrickscfg",
    ".kaggle",
    ".config/kaggle",  # kaggle.json, where newer kaggle versions keep it
    ".modal.toml",  # Modal's token
    ".passwd-s3fs",  # s3fs's keys
    ".smbcredentials",  # the password a cifs mount of /etc/fstab logs in with
    ".davfs2",  # davfs2's secrets file and its client certificates' keys (certs/private)
    ".twilio-cli",
    ".config/turso",
    ".oci",
    ".pulumi",
    ".config/rclone",
    ".config/hub",
    ".config/op",
    ".config/configstore",
    ".config/doctl",
    ".config/composer/auth.json",
    ".composer/auth.json",
    ".gradle/gradle.properties",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".nuget/NuGet/NuGet.Config",
    ".huggingface",
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",  # every token `hf auth login` saved, by name
    ".yarnrc.yml",  # yarn's npmAuthToken, the token ~/.npmrc holds for npm
    ".config/pip/pip.conf",  # index URLs with a password in them
    ".pip/pip.conf",  # pip's older place for the same
    ".config/containers/auth.json",  # podman's, buildah's and skopeo's registry logins
    ".config/glab-cli",  # GitLab's CLI: its token, as ~/.config/gh is GitHub's
    ".local/share/com.vercel.cli",  # Vercel's CLI: auth.json
    ".vercel",  # Vercel's CLI before it moved to the XDG folders
    ".netlify",  # Netlify's CLI, older versions
    ".config/netlify",  # Netlify's CLI: config.json holds its token
    ".fly/config.yml",  # flyctl's token (its folder also holds flyctl itself)
    ".wrangler",  # Cloudflare's wrangler, older versions
    ".config/.wrangler",  # wrangler: config/default.toml holds its OAuth token
    ".snowsql/config",  # SnowSQL's connections, passwords in them
    ".dbt/profiles.yml",  # dbt's warehouse connections, passwords in them
    ".yarnrc",  # yarn 1's registry settings, an _authToken among them
    ".bunfig.toml",  # bun's registry token
    ".pub-cache/credentials.json",  # Dart's and Flutter's pub login
    ".config/dart/pub-tokens.json",  # pub's tokens for other package hosts
    ".config/helm/repositories.yaml",  # Helm's chart repositories, passwords in them
    ".config/tea/config.yml",  # Gitea's CLI: its token
    ".config/hut",  # sourcehut's CLI: its access token
    ".config/hcloud/cli.toml",  # Hetzner Cloud's CLI: its token
    ".supabase/access-token",  # Supabase's CLI login
    ".config/heroku/config.json",  # Heroku's CLI
    ".config/stripe/config.toml",  # Stripe's CLI: API keys
    ".config/ngrok/ngrok.yml",  # ngrok's authtoken
    ".ngrok2/ngrok.yml",  # ngrok 2's place for the same
    ".sentryclirc",  # sentry-cli's auth token
    ".circleci/cli.yml",  # CircleCI's CLI token
    # minikube's certificate authorities (MINIKUBE_CA_KEYS): they sign what the cluster trusts
    *(f".minikube/{key}" for key in MINIKUBE_CA_KEYS),
    ".config/argocd",  # Argo CD's CLI: its auth token
    ".config/helm/registry",  # helm's OCI registry logins
    ".config/twilio-cli",  # Twilio's API key and secret
    ".jira.d",  # go-jira's settings, a password source among them
    # VS Code remote's state, and its forks': extensions' tokens
    *(f"{server}/data/User/globalStorage" for server in VS_CODE_SERVERS),
    ".wgetrc",  # wget's settings: a plain-text password among them
    ".lftp",  # lftp's bookmarks, passwords in them when it saves them
    ".local/share/lftp",
    ".config/exercism",  # exercism's CLI: user.json holds its token
    ".qwen/oauth_creds.json",  # Qwen Code's login: another coding agent's
    ".local/share/amp/secrets.json",  # Amp's API key
    ".local/share/crush",  # Crush's providers' keys
    ".config/crush",
    ".config/gptme/config.toml",  # gptme's [env]: API keys
    ".cf/config.json",  # Cloud Foundry's CLI: access and refresh tokens
    ".step/secrets",  # step-ca's CA private keys
    ".config/exoscale",  # exo's key and secret
    ".upcloud.yaml",  # upctl's password
    ".edgerc",  # Akamai's EdgeGrid client secret and access token
    ".civo.json",  # Civo's API keys
    ".config/equinix",  # Equinix Metal's token (metal.yaml)
    ".config/lab",  # lab's GitLab token (lab.toml)
    ".b2_account_info",  # Backblaze B2's CLI: its auth token
    ".config/openstack",  # OpenStack's clouds.yaml and secure.yaml: passwords, tokens
    ".config/JetBrains",  # JetBrains IDEs' saved passwords (c.kdbx, with c.pwd to open it)
    ".local/share/kwalletd",  # KDE Wallet's files
    ".config/dvc/config",  # DVC's global config: its remotes' credentials
    ".config/b2",  # Backblaze's b2 CLI, newer versions: account_info holds its key
    ".config/pnpm/rc",  # pnpm's global settings: registry auth tokens, as ~/.npmrc holds
    ".config/Claude",  # Claude Desktop: claude_desktop_config.json gives MCP servers their keys
    # Shell histories at places many shell settings choose (what you typed, passwords too):
    ".bash_eternal_history",
    ".local/share/zsh",
    ".local/share/bash",
    ".cache/zsh",
    # Keys and passwords other tools keep in the home:
    ".config/sops/age/keys.txt",  # sops' age keys, which decrypt a repository's secrets
    ".android/adbkey",  # adb's key: every device that trusts it lets it in
    ".ollama/id_ed25519",  # ollama's key for its model registry
    ".minikube/profiles",  # minikube's client keys, one folder per cluster
    ".minikube/certs",  # minikube's docker client key and its CA's key
    ".minikube/machines",  # the ssh keys into minikube's VMs
    ".minikube/apiserver.key",  # older minikube's place for the API server's key
    ".minikube/client.key",
    ".local/share/gem/credentials",  # RubyGems' API key, where gem keeps it by default now
    ".config/cabal/config",  # cabal's Hackage password
    ".cabal/config",
    ".config/pdm/config.toml",  # PDM's registry passwords
    ".local/share/uv/credentials",  # uv's stored index logins (`uv auth login`)
    ".config/nix/netrc",  # nix's logins to binary caches
    ".config/cachix",  # cachix's token, which pushes to a cache other machines trust
    ".config/dart/pub-credentials.json",  # pub's login, where newer Dart keeps it
    ".conan2/credentials.json",  # Conan's remotes' logins
    ".vagrant.d/data/vagrant_login_token",  # Vagrant Cloud's token
    ".serverlessrc",  # the Serverless Framework's access keys
    ".lein/profiles.clj",  # Leiningen's repository credentials
    ".lein/credentials.clj.gpg",
    ".secrets",  # where people export their tokens from, sourced by their shell's start-up
    # (and the other names dotfiles give such a file, which a loop may source: `for f in
    # ~/.{exports,extra}; do . "$f"; done`)
    *(".extra", ".exports", ".localrc", ".bash_secrets", ".zsh_secrets"),
    ".comet.config",  # Comet ML's API key
    ".clearml.conf",  # ClearML's keys
    ".minisign",  # minisign's secret key
    ".foundry/keystores",  # Foundry's wallets
    ".near-credentials",  # NEAR's account keys
    ".s3ql/authinfo2",  # s3ql's storage passwords
    ".local/share/mkcert",  # mkcert's root CA key, which your browsers trust
    ".local/share/caddy",  # Caddy's local CA keys and site certificates' keys
    ".lima/_config",  # lima's ssh key into its VMs
    ".local/share/containers/podman/machine/machine",  # podman machine's ssh key into its VM
    ".colima/_lima/_config",  # colima's (lima's) ssh key
    ".config/chezmoi/key.txt",  # chezmoi's age identity, which decrypts your dotfiles' secrets
    ".saml2aws",  # saml2aws' saved login
    ".msmtprc",  # msmtp's mail accounts, passwords in them
    ".config/msmtp",  # the same, where msmtp also looks
    # Other mail clients' and fetchers' accounts, passwords in them:
    ".muttrc",
    ".mutt",
    ".config/mutt",
    ".config/neomutt",
    ".config/aerc",
    ".mbsyncrc",
    ".config/isyncrc",
    ".offlineimaprc",
    ".config/offlineimap",
    ".fetchmailrc",
    ".config/himalaya",
    ".config/Slack",  # Slack's session cookies
    ".gitlab-runner",  # GitLab runner's registration token
    ".chef",  # Chef's client key (knife's `<user>.pem`) and its config
    ".ansible/galaxy_token",  # Ansible Galaxy's token
    ".sfdx",  # Salesforce CLI's org logins
    ".sf",  # (its newer place)
    ".talos",  # Talos' cluster admin keys
    ".doppler",  # Doppler's token
    ".railway",  # Railway's token
    ".expo",  # Expo's session
    ".local/share/jupyter/runtime",  # running Jupyter servers' tokens
    ".restic-password",  # a common place for restic's repository password
    ".config/restic",
    ".mongodb/mongosh",  # mongosh's history and logs (its commands, passwords in them)
    ".mongoshrc.js",  # and the start-up file it runs
    ".bundle/config",  # bundler's tokens for private gem sources
    ".hex",  # Hex's registry key
    ".local/share/python_keyring",  # keyrings.alt's plain-text keyring
    ".streamlit/secrets.toml",
    ".cert",  # NetworkManager's VPN keys
    ".config/Signal",  # Signal Desktop's database key
    ".weechat/sec.conf",  # IRC clients' passwords
    ".config/weechat/sec.conf",
    ".irssi",
    ".config/hexchat/servlist.conf",  # HexChat's server and NickServ passwords
    ".config/senpai",  # senpai's password (senpai.scfg)
    ".config/halloy/config.toml",  # halloy's nick and server passwords
    ".config/konversationrc",  # Konversation's server passwords
    ".config/toot",  # toot's Mastodon access token
    ".local/share/gopass",  # gopass's stores
    ".tarsnap.key",
    ".curlrc",  # `user = name:password`
    ".sbt/credentials",
    ".jupyter/jupyter_server_config.json",  # its password hash or token
    ".hgrc",  # Mercurial's settings: its [auth] section holds passwords (hg runs without them)
    ".config/hg/hgrc",  # the same, where Mercurial also looks
    ".subversion/auth",  # Subversion's saved logins
    ".config/borg/keys",  # borg's backup keys
    ".wakatime.cfg",  # WakaTime's API key
    ".config/filezilla",  # FileZilla's saved sites, passwords in them
    ".mc/config.json",  # MinIO's client: storage keys
    ".config/scw",  # Scaleway's CLI: its keys
    ".config/linode-cli",  # Linode's CLI token
    ".purple/accounts.xml",  # Pidgin's saved passwords
    ".config/Bitwarden CLI",  # Bitwarden's CLI: the vault and its session
    ".config/discord",  # Discord's login token
    # More clouds', registries' and services' CLIs, each its keys or token:
    ".aliyun",  # Alibaba Cloud
    ".tccli",  # Tencent Cloud
    ".config/yandex-cloud",  # Yandex Cloud
    ".config/vultr-cli.yaml",  # Vultr
    ".ovh.conf",  # OVHcloud
    ".ibmcloud",  # IBM Cloud
    ".bluemix",  # IBM Cloud, its older name
    ".linode-cli",  # Linode, its older place
    ".jfrog",  # JFrog's registries
    ".config/pypoetry/auth.toml",  # Poetry's registry passwords
    ".sbt/.credentials",  # sbt's publishing login
    ".ivy2/.credentials",  # Ivy's (sbt's, older)
    ".config/NuGet",  # NuGet's feeds, passwords in them
    ".condarc",  # conda's channels, tokens in them
    ".tsh",  # Teleport's keys and certificates
    ".cloudflared",  # cloudflared's tunnel certificate
    ".snowflake",  # Snowflake's CLI connections
    ".influxdbv2",  # InfluxDB's CLI tokens
    ".travis",  # Travis CI's CLI token
    ".config/copr",  # Fedora's Copr: its API token
    ".config/osc",  # the Open Build Service's osc: oscrc, a password in it
    ".oscrc",  # (its older place)
    ".local/state/osc/cookiejar",  # osc's session cookie
    ".osc_cookiejar",  # (its older place)
    ".transifexrc",  # Transifex's token
    ".config/onedrive/refresh_token",  # the OneDrive client's login
    ".lftp",  # lftp's bookmarks, passwords in them
    ".config/sentry",  # sentry-cli's newer place
    # Wallets' keys, and desktop programs' saved logins and keys:
    ".config/solana",  # Solana's CLI keypair (id.json)
    ".ethereum",  # geth's keystore
    ".electrum",  # Electrum's wallets
    ".bitcoin",  # Bitcoin Core's wallets
    ".thunderbird",  # Thunderbird's saved passwords and keys
    ".local/share/TelegramDesktop",  # Telegram's session
    ".pki/nssdb",  # NSS's certificates and private keys (Chromium's, on Linux)
    ".config/remmina",  # Remmina's remote desktops, passwords in them
    ".local/share/remmina",
    ".vnc/passwd",  # the VNC server's password (x11vnc's, TigerVNC's older place)
    ".config/tigervnc/passwd",
    ".config/httpie/sessions",  # HTTPie's saved sessions: Authorization headers and cookies
    ".httpie/sessions",  # (its older place)
    ".local/share/DBeaverData",  # DBeaver's connections' passwords, under a key DBeaver ships
    ".odbc.ini",  # unixODBC's data sources of yours, passwords in them
    ".cassandra",  # cqlsh's cqlshrc and credentials: its password (and its history)
    ".clickhouse-client",  # clickhouse-client's config: its password
    ".pause",  # CPAN's upload password
    ".ossutilconfig",  # Alibaba Cloud OSS's keys
    ".singularity/remote.yaml",  # Singularity's and Apptainer's registry tokens
    ".apptainer/remote.yaml",
    ".zuliprc",  # Zulip's API key
    ".config/Insomnia",  # Insomnia's environments: the APIs' tokens
    ".config/Element",  # Element's (Matrix) session: its access token
    ".config/Postman",  # Postman's session
    ".config/syncthing",  # Syncthing's device key
    ".local/state/syncthing",  # (its newer place)
    # VS Code's (and its forks') state: extensions' tokens, and their secrets where no keyring
    # holds them (`--password-store=basic`), under a key every copy of it knows.
    # (SQLite writes it in place; a file replaced by rename would stop running tasks.)
    *(f".config/{editor}/User/globalStorage/state.vscdb" for editor in VS_CODES),
    # Other agents' logins, and the stores of browsers and desktops: cookies, saved
    # passwords, the keyring's files.
    ".claude",
    ".claude.json",
    ".codex",
    ".config/anthropic",
    ".local/share/keyrings",
    ".password-store",
    ".mozilla",
    ".config/mozilla",  # Firefox's profiles since it follows the XDG folders (147)
    ".config/firefox",
    ".config/google-chrome",
    ".config/google-chrome-beta",
    ".config/google-chrome-unstable",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    # Other coding agents' and LLM tools' keys and settings (llm's keys.json, aider's and
    # continue's configs, gemini-cli's .env, copilot's token, ...).
    ".config/io.datasette.llm",
    ".config/llm",
    ".aider.conf.yml",
    ".continue",
    ".gemini",
    ".cursor",
    ".codeium",
    ".config/github-copilot",
    ".config/goose",
    ".config/opencode",
    ".local/share/opencode",
    ".config/aichat",
    ".config/mods",
    ".config/shell_gpt",
    ".config/fabric",
    ".openhands",  # OpenHands' settings.json: its LLM's API key
    ".grok",  # Grok CLI's user-settings.json: its API key
    ".vibe",  # Mistral's Vibe: its .env of keys
    ".kimi",  # Kimi CLI's config.json: its API key
    ".copilot",  # GitHub Copilot CLI's login
    ".factory",  # Factory's droid: auth.json
    ".kiro/settings/mcp.json",  # Kiro's MCP servers, their tokens in `env`
    # The MCP servers editors start, with the tokens they are given in `env`:
    *(f".config/{editor}/User/mcp.json" for editor in VS_CODES),
    # Where people keep `export ANTHROPIC_API_KEY=...` and their shell history, which holds
    # every key typed on a command line: a command could read the key there.
    # bash and sh:
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".bash_login",
    ".bash_aliases",  # sourced by Debian's and Ubuntu's .bashrc
    ".bashrc.d",
    ".bashrc.local",
    ".bash_history",
    ".local/state/bash",  # an XDG layout's history
    ".sh_history",
    # zsh (also in $ZDOTDIR, see ZSH_FILES), with the folders its config is often moved to:
    *ZSH_FILES,
    ".zsh",
    ".config/zsh",
    ".local/state/zsh",
    ".cache/zsh/history",
    ".zsh_sessions",  # macOS's per-terminal histories
    # What shell frameworks and direnv source at every start, beside those: oh-my-zsh's and
    # bash-it's folders of your own settings, prezto's start-up files, direnv's own rc and lib
    # (sourced before every .envrc):
    ".oh-my-zsh/custom",
    ".bash_it/custom",
    ".zprezto/runcoms",
    ".direnvrc",
    ".config/direnv/direnvrc",
    ".config/direnv/lib",
    # fish, nushell, tcsh/csh, ksh/mksh, xonsh, elvish, yash, PowerShell:
    ".config/fish",
    ".local/share/fish/fish_history",
    ".config/nushell",
    ".tcshrc",
    ".cshrc",
    ".login",
    ".history",  # tcsh's history file (a folder of histories for some)
    ".kshrc",
    ".mkshrc",
    ".config/xonsh",
    ".xonshrc",
    ".local/share/xonsh",
    ".config/elvish",
    ".elvish",
    ".local/state/elvish",
    ".yashrc",
    ".yash_history",
    ".config/powershell",
    ".local/share/powershell",  # PSReadLine's history
    # History tools, and tmux-resurrect's saved pane contents:
    ".local/share/atuin",
    ".local/share/mcfly",
    ".hishtory",
    ".histdb",
    ".tmux/resurrect",
    ".local/share/tmux/resurrect",
    # The session's environment: systemd's, PAM's and the X session's start-up files.
    ".config/environment.d",
    ".pam_environment",
    ".xprofile",
    ".xsessionrc",
    ".xinitrc",
    ".config/plasma-workspace/env",
    ".env",  # a home-wide .env, loaded by dotenv tools and direnv
    ".envrc",
    # REPLs and database shells: start-up files (R's .Renviron is where R's LLM packages say to
    # put the key) and histories.
    ".python_history",
    ".pythonrc",
    ".pythonrc.py",
    ".pythonhist",
    ".local/share/ptpython",
    ".ipython",  # its history database holds every line typed in IPython and Jupyter
    ".Renviron",
    ".Rprofile",
    ".Rhistory",
    ".radian_history",
    ".julia/config",
    ".julia/logs",  # repl_history.jl
    ".irbrc",
    ".irb_history",
    ".config/irb",
    ".local/share/irb",
    ".pryrc",
    ".pry_history",
    ".node_repl_history",
    ".psqlrc",
    ".psql_history",
    ".mysql_history",
    ".mylogin.cnf",
    ".sqliterc",
    ".sqlite_history",
    ".rediscli_history",
    ".dbshell",
    ".mongosh",
    ".config/pgcli",  # pgcli's history, log and named connections (a password in them)
    ".mycli-history",
    ".myclirc",  # (mycli's named connections, a password in them)
    ".config/mycli",
    ".usql_history",
    ".usqlpass",  # usql's passwords, as ~/.pgpass
    ".config/usql",  # (usql's named connections)
    ".clickhouse-client-history",
    ".valkeycli_history",
    ".iredis_history",
    ".duckdb_history",  # (`CREATE SECRET` with a cloud's key)
    # Editors and pagers: registers, command lines and searches typed.
    ".viminfo",
    ".local/state/nvim/shada",
    ".local/share/nvim/shada",  # neovim before 0.8
    ".lesshst",
    # Copies editors and the desktop keep of the files you save or delete, the workspace's
    # hidden .env among them: VS Code's Local History (on by default) and its forks', the
    # freedesktop Trash, JetBrains' LocalHistory (in its caches), vim's and Emacs' backups.
    # A key copied anywhere else in reach is found by its content (`KeyCopySearch`).
    ".config/Code/User/History",
    ".config/Code - OSS/User/History",
    ".config/VSCodium/User/History",
    ".config/Cursor/User/History",
    ".config/Windsurf/User/History",
    ".config/Code - Insiders/User/History",
    *(f"{server}/data/User/History" for server in VS_CODE_SERVERS),  # (on the remote machine)
    # and hot exit's backups of the editors left open, unsaved and untitled ones' text
    *(f".config/{editor}/Backups" for editor in VS_CODES),
    ".local/share/Trash",
    ".cache/JetBrains",
    ".local/share/JetBrains",
    ".vim/backup",
    ".vim/swap",
    ".vim/undo",
    ".local/state/nvim/swap",
    ".local/state/nvim/backup",
    ".local/state/nvim/undo",
    ".local/share/nvim/swap",  # (neovim before 0.8)
    ".local/share/nvim/backup",
    ".local/share/nvim/undo",
    ".emacs.d/backups",
    ".emacs.d/backup",
    ".emacs.d/auto-save-list",
    ".config/emacs/backups",  # (Emacs' XDG folder, since Emacs 27)
    ".config/emacs/backup",
    ".config/emacs/auto-save-list",
)

# Your own variables that move the paths above: an entry under .config/ is also looked for in
# $XDG_CONFIG_HOME, and so on. Your environment is trusted; a relative value is ignored, as the
# XDG specification says.
XDG_FOLDERS = {
    ".config/": "XDG_CONFIG_HOME",
    ".local/share/": "XDG_DATA_HOME",
    ".local/state/": "XDG_STATE_HOME",
    ".cache/": "XDG_CACHE_HOME",
}
# Your variables that name a start-up, history or token file themselves (a regular file, or
# none yet).
SECRET_FILE_VARIABLES = (
    "HISTFILE",
    "ENV",  # sh's and ksh's start-up file
    "BASH_ENV",
    "PYTHONSTARTUP",
    "PYTHON_HISTORY",
    "NODE_REPL_HISTORY",
    "PSQLRC",
    "PSQL_HISTORY",
    "MYSQL_HISTFILE",
    "SQLITE_HISTORY",
    "REDISCLI_HISTFILE",
    "VALKEYCLI_HISTFILE",
    "MYCLI_HISTFILE",
    "USQLPASS",  # ~/.usqlpass moved
    "R_ENVIRON_USER",
    "R_PROFILE_USER",
    "R_HISTFILE",
    "LESSHISTFILE",
    "AWS_SHARED_CREDENTIALS_FILE",  # ~/.aws/credentials moved
    "AWS_CONFIG_FILE",  # ~/.aws/config moved: it can hold keys too
    "NPM_CONFIG_USERCONFIG",  # ~/.npmrc moved
    "PIP_CONFIG_FILE",  # pip.conf moved
    "NETRC",  # ~/.netrc moved (curl, Python's netrc)
    "REGISTRY_AUTH_FILE",  # podman's auth.json moved
    "HF_TOKEN_PATH",  # Hugging Face's token moved
    "WGETRC",  # ~/.wgetrc moved
    "PGPASSFILE",  # ~/.pgpass moved
    "BOTO_CONFIG",  # ~/.boto moved
    "TF_CLI_CONFIG_FILE",  # ~/.terraformrc moved
    "OCI_CLI_CONFIG_FILE",  # ~/.oci/config moved
    "SOPS_AGE_KEY_FILE",  # the age key that opens the repository's encrypted secrets
    "SOPS_AGE_SSH_PRIVATE_KEY_FILE",  # the ssh key sops takes as an age one
    "RCLONE_CONFIG",  # ~/.config/rclone/rclone.conf moved
    "GOOGLE_APPLICATION_CREDENTIALS",  # a service account's key
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "HELM_REGISTRY_CONFIG",  # helm's registry logins
    "RESTIC_PASSWORD_FILE",
    "RESTIC_FROM_PASSWORD_FILE",  # (the repository `restic copy` reads from)
    "TELEPORT_IDENTITY_FILE",  # tsh's identity file: its ssh and TLS keys
    "VAULT_CLIENT_KEY",
    # Client keys and token files other tools take from your environment:
    "GIT_SSL_KEY",  # http.sslKey, from the environment
    "GIT_PROXY_SSL_KEY",  # http.proxySSLKey, the key git gives an HTTPS proxy
    # (a certificate and its key in one file: uv's client certificate, restic's)
    *("SSL_CLIENT_CERT", "RESTIC_TLS_CLIENT_CERT"),
    "PGSSLKEY",  # libpq's client key (~/.postgresql/postgresql.key moved)
    "PGSERVICEFILE",  # ~/.pg_service.conf moved
    "MYSQL_TEST_LOGIN_FILE",  # ~/.mylogin.cnf moved
    "ODBCINI",  # ~/.odbc.ini moved
    "ETCDCTL_KEY",  # etcdctl's client key
    "ETCDCTL_KEY_FILE",  # (etcdctl's v2 API)
    "CONSUL_CLIENT_KEY",
    "CONSUL_HTTP_TOKEN_FILE",
    "NOMAD_CLIENT_KEY",
    "LDAPTLS_KEY",  # OpenLDAP's client key (`TLS_KEY` of your ldaprc)
    "TALOSCONFIG",  # talosctl's config, its admin key in it (~/.talos moved)
    "HELM_REPOSITORY_CONFIG",  # ~/.config/helm/repositories.yaml moved
    "BORG_KEY_FILE",  # a borg repository's key
    "ANSIBLE_VAULT_PASSWORD_FILE",  # opens the repository's vault-encrypted secrets
    "ANSIBLE_PRIVATE_KEY_FILE",  # the ssh key ansible logs in to your hosts with
    "ANSIBLE_CONNECTION_PASSWORD_FILE",
    "ANSIBLE_BECOME_PASSWORD_FILE",  # the sudo password on your hosts
    "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",  # gcloud's service account key
    "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE",  # gcloud's access token
    "AZURE_CLIENT_CERTIFICATE_PATH",  # an Azure service principal's certificate and key
    "ARM_CLIENT_CERTIFICATE_PATH",  # the same, for Terraform's azurerm
    "AZURE_FEDERATED_TOKEN_FILE",  # as AWS_WEB_IDENTITY_TOKEN_FILE, for Azure
    "OS_CLIENT_CONFIG_FILE",  # OpenStack's clouds.yaml moved
    "DATABRICKS_CONFIG_FILE",  # ~/.databrickscfg moved: its tokens
    # More tools' own variables that move a file hidden in your home (their names as above):
    "BUNDLE_USER_CONFIG",  # ~/.bundle/config
    "S3CMD_CONFIG",  # ~/.s3cfg
    "SBT_CREDENTIALS",  # ~/.sbt/.credentials
    "HCLOUD_CONFIG",  # ~/.config/hcloud/cli.toml
    "SCW_CONFIG_PATH",  # ~/.config/scw/config.yaml
    "OCI_CLI_KEY_FILE",  # ~/.oci/oci_api_key.pem
    "HUB_CONFIG",  # ~/.config/hub
    "INFLUX_CONFIGS_PATH",  # ~/.influxdbv2/configs
    "CONDARC",  # ~/.condarc
    "B2_ACCOUNT_INFO",  # ~/.b2_account_info
    "MODAL_CONFIG_PATH",  # ~/.modal.toml
    "LINODE_CLI_CONFIG",  # ~/.config/linode-cli
    "TUNNEL_ORIGIN_CERT",  # ~/.cloudflared/cert.pem: cloudflared's account token
    "TUNNEL_CRED_FILE",  # a cloudflared tunnel's secret
    # The environment's forms of npm's `keyfile` and pip's `client-cert` (tools/named_keys.py
    # reads them in the configs); npm takes its variables in either case.
    *("NPM_CONFIG_KEYFILE", "npm_config_keyfile", "PIP_CLIENT_CERT"),
    # and yarn's, conda's and twine's (a certificate and key in one file, as pip's)
    *("YARN_HTTPS_KEY_FILE_PATH", "CONDA_CLIENT_SSL_CERT_KEY", "TWINE_CLIENT_CERT"),
)
# Variables of a form that name such a file: Poetry's client certificate for each repository,
# its key in the same file (`POETRY_CERTIFICATES_<NAME>_CLIENT_CERT`), npm's user config
# and client key in any letter case, as npm reads its `npm_config_*` variables, and rclone's
# options that name a key file, for a backend or a remote (`RCLONE_SFTP_KEY_FILE`,
# `RCLONE_CONFIG_<REMOTE>_KEY_FILE`), and its own client key (`RCLONE_CLIENT_KEY`).
SECRET_FILE_VARIABLE_FORM = re.compile(
    r"POETRY_CERTIFICATES_\w+_CLIENT_CERT|(?i:npm_config_(?:userconfig|keyfile))"
    rf"|RCLONE_\w+_(?:{RCLONE_KEY_OPTIONS.upper()})|RCLONE_CLIENT_KEY"
)
# Your variables that hold a list of such files, `os.pathsep` between them.
SECRET_LIST_VARIABLES = (
    "KUBECONFIG",  # each kubeconfig holds its clusters' tokens
    "HGRCPATH",  # Mercurial's hgrc files (~/.hgrc moved): its [auth] passwords
    "BOTO_PATH",  # boto's and gsutil's configs (~/.boto moved): their keys
)
# Your variables that move a tool's folder: the token files in it, as they are in the folder
# the variable stands for (hidden above, or in a folder of no home).
SECRET_FOLDER_VARIABLES = {
    "CARGO_HOME": ("credentials", "credentials.toml"),  # crates.io's token
    "DOCKER_CONFIG": ("config.json",),  # docker's registry logins
    "GH_CONFIG_DIR": ("hosts.yml",),  # gh's token
    "HF_HOME": ("token", "stored_tokens"),  # Hugging Face's tokens
    "XDG_RUNTIME_DIR": ("containers/auth.json",),  # podman's registry logins, by default
    "KAGGLE_CONFIG_DIR": ("kaggle.json",),  # Kaggle's key
    "PULUMI_HOME": ("credentials.json",),  # Pulumi's access tokens (its plugins beside them)
    "GLAB_CONFIG_DIR": ("config.yml",),  # glab's token
    "MC_CONFIG_DIR": ("config.json",),  # the MinIO client's keys
    "POETRY_CONFIG_DIR": ("auth.toml",),  # Poetry's registry passwords
    "CURL_HOME": (".curlrc",),  # curl's `user = name:password`, read from there first
    "GRADLE_USER_HOME": ("gradle.properties",),  # signing keys, repositories' passwords
    "DBT_PROFILES_DIR": ("profiles.yml",),  # warehouse passwords
    "COMPOSER_HOME": ("auth.json",),
    "SNOWFLAKE_HOME": ("connections.toml", "config.toml"),
    "JUPYTER_CONFIG_DIR": ("jupyter_server_config.json", "jupyter_notebook_config.json"),
    "BUNDLE_USER_HOME": ("config",),  # bundler's tokens for private gem sources
    "ANDROID_USER_HOME": ("adbkey",),
    "ANDROID_SDK_HOME": (".android/adbkey",),  # (adb's older variable, above .android)
    # minikube's CA keys, in the folder given or a .minikube it makes in it
    "MINIKUBE_HOME": tuple(
        f"{folder}{key}" for folder in ("", ".minikube/") for key in MINIKUBE_CA_KEYS
    ),
    "WAKATIME_HOME": (".wakatime.cfg",),
    "CF_HOME": (".cf/config.json",),  # Cloud Foundry's tokens
    "IBMCLOUD_HOME": (".bluemix/config.json", ".ibmcloud/config.json"),
    "PUB_CACHE": ("credentials.json",),  # pub's login
    "FETCHMAILHOME": ("fetchmailrc",),
    "WEECHAT_HOME": ("sec.conf",),
    "MYSQL_HOME": ("my.cnf",),
    "PGSYSCONFDIR": ("pg_service.conf",),  # libpq's system service file: its passwords
}
# Your variables that move a folder of secrets hidden whole in your home (SECRET_HOME_PATHS):
# hidden whole where they put it.
SECRET_WHOLE_FOLDER_VARIABLES = (
    "GNUPGHOME",  # ~/.gnupg: the private keys
    "ZSH_CUSTOM",  # ~/.oh-my-zsh/custom: the settings oh-my-zsh sources at every start
    "CLOUDSDK_CONFIG",  # ~/.config/gcloud
    "AZURE_CONFIG_DIR",  # ~/.azure
    "CLAUDE_CONFIG_DIR",  # ~/.claude: another agent's login
    "CODEX_HOME",  # ~/.codex
    "DOCKER_CERT_PATH",  # the client key docker talks to a remote daemon with
    "GCM_PLAINTEXT_STORE_PATH",  # ~/.gcm/store: Git Credential Manager's password files
    "IPYTHONDIR",  # ~/.ipython: the history of every line typed
    "JUPYTER_RUNTIME_DIR",  # running Jupyter servers' tokens
    "BITWARDENCLI_APPDATA_DIR",  # ~/.config/Bitwarden CLI
    "HEX_HOME",  # ~/.hex
    "PASSWORD_STORE_DIR",  # ~/.password-store
    "LLM_USER_PATH",  # ~/.config/io.datasette.llm: llm's keys
    "CONTINUE_GLOBAL_DIR",  # ~/.continue
    "AICHAT_CONFIG_DIR",  # ~/.config/aichat
    "OP_CONFIG_DIR",  # ~/.config/op: 1Password's CLI
    "TELEPORT_HOME",  # ~/.tsh: Teleport's keys
    "JFROG_CLI_HOME_DIR",  # ~/.jfrog
    "BORG_KEYS_DIR",  # ~/.config/borg/keys
)
# Your variables that move a tool's folder with a folder of secrets in it, hidden whole there.
SECRET_INNER_FOLDER_VARIABLES = {
    "STEPPATH": ("secrets",),  # step-ca's CA private keys
    "HTTPIE_CONFIG_DIR": ("sessions",),  # HTTPie's sessions: Authorization headers, cookies
    "MINIKUBE_HOME": ("profiles", ".minikube/profiles"),  # minikube's client keys
}

# The kernel's settings under /proc, read-only over the sandbox's fresh /proc. Run as root, the
# sandbox's root is the host's root user (uid 0 mapped to 0), and /proc/sys files are checked
# against that user only, not against capabilities: without this, a command could write
# /proc/sys/kernel/core_pattern and have the kernel run its program as root outside any
# sandbox at the next crash. bwrap means to cover /proc/sys itself, but skips it when the
# folder's own mode says read-only (0555), while the files in it stay writable (0644).
# The bind's source is the host's /proc/sys: sysctl files answer for the namespaces of the
# process reading them, so nothing of the host's processes comes in with it.
KERNEL_SETTINGS_READ_ONLY = [
    word
    for path in ("/proc/sys", "/proc/sysrq-trigger")
    if os.path.exists(path)
    for word in ("--ro-bind", path, path)
]

GIT_WRITES_REFUSED = (
    "Git metadata is read-only here: git init, git commit, git config and the like fail. "
    "Tell the user which git command to run, or ask to run it outside the sandbox."
)
PACKAGES_REFUSED = (
    "A virtualenv's installed packages are read-only here (the user's editor, terminals and "
    "hooks run them outside the sandbox): pip install and the like fail. Run the install again "
    "with outside_sandbox: true, which the user is asked about."
)


def secret_paths() -> list[Path]:
    """SECRET_HOME_PATHS in your home folder and where your XDG_* variables move them, zsh's
    files in your $ZDOTDIR, the files your variables name, and planloop's home (the one
    in use, and the usual ~/.planloop when PLANLOOP_HOME points elsewhere for a run: every
    other project's conversations are there); whether they exist or not."""
    candidates = secrets_of_your_homes()
    account = account_home()
    if account is not None:
        candidates.append(account / ".planloop")
    # A file or none yet: HISTFILE=/dev/null is no secret, and a folder is not what it names.
    candidates += [named for named in named_by_your_variables() if file_or_none(named)]
    candidates += folders_named_by_your_variables()
    candidates += [named for named in keys_your_configs_name() if file_or_none(named)]
    # What your start-up files source, where it sets a secret (`. ~/.config/shell/tokens.sh`):
    # hidden as they are, which no sandboxed shell runs either.
    candidates += [path for path in sourced_by_your_shell() if _sets_a_secret(path)]
    own, usual = planloop_home(), Path.home() / ".planloop"
    candidates += [own] if own == usual else [own, usual]
    return candidates


def secrets_of_your_homes() -> list[Path]:
    """SECRET_HOME_PATHS in your home folder and where your XDG_* variables and ZDOTDIR move
    them, and in your account's home where a run's HOME is another (CI, `sudo -E`, a wrapper):
    whether they exist or not; and those in the homes Snap and Flatpak give your apps in
    each, that exist (`secrets_of_app_homes`)."""
    moved = tuple(os.environ.get(name, "") for name in (*XDG_FOLDERS.values(), "ZDOTDIR"))
    candidates = list(home_secret_paths(str(Path.home()), moved))
    account = account_home()
    if account is not None:
        unmoved = ("",) * (len(XDG_FOLDERS) + 1)
        candidates += home_secret_paths(str(account), unmoved)
    for home in your_homes():  # (Ubuntu's Firefox: ~/snap/firefox/common/.mozilla)
        candidates += secrets_of_app_homes(home)
    return candidates


# Snap and Flatpak give each app a home of its own inside yours, where it keeps what it would
# keep in your home: Snap's ~/snap/<app>/<revision> (the app's $HOME, a folder each revision)
# and ~/snap/<app>/common, which some snaps make their XDG_CONFIG_HOME (Chromium's profile is
# common/chromium); Flatpak's ~/.var/app/<id>, with the XDG folders it gives the app in it.
SNAP_APPS = "snap"
FLATPAK_APPS = ".var/app"
FLATPAK_XDG_FOLDERS = {".config/": "config", ".local/share/": "data", ".cache/": "cache"}


def app_homes(home: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The homes Snap and Flatpak give the apps in `home`, each with where XDG_FOLDERS are
    moved there (`home_secret_paths`' `moved`). Links are left out: snap's `current` leads to
    a revision's folder beside it."""
    homes = []
    for app in _folders_in(Path(home, SNAP_APPS)):
        homes += [
            (str(folder), _moved_to({".config/": str(folder)})) for folder in _folders_in(app)
        ]
    for app in _folders_in(Path(home, FLATPAK_APPS)):
        xdg = {prefix: str(app / name) for prefix, name in FLATPAK_XDG_FOLDERS.items()}
        homes.append((str(app), _moved_to(xdg)))
    return homes


def _moved_to(folders: dict[str, str]) -> tuple[str, ...]:
    """`home_secret_paths`' `moved` for the XDG_FOLDERS moved to `folders` (by their prefix)."""
    return (*(folders.get(prefix, "") for prefix in XDG_FOLDERS), "")  # (and no ZDOTDIR)


def _folders_in(folder: Path) -> list[Path]:
    """The folders in `folder` (not links to one); none where it is not there."""
    try:
        with os.scandir(folder) as entries:
            return [Path(entry.path) for entry in entries if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def secrets_of_app_homes(home: Path) -> list[Path]:
    """SECRET_HOME_PATHS in each app's home of `home` (`app_homes`) that are there now: the
    same browser profile, session or login as in your home.

    Only those there: tens of app homes of hundreds of names each would be thousands of paths
    looked at before every command, and views made of folders that hold no secret. So only the
    folders on their way that are there are listed, each once. A secret an app makes while a
    command runs is hidden from the commands after it."""
    found: list[Path] = []
    for app_home, moved in app_homes(home):
        found += _secrets_there(app_home, _secret_tree(app_home, moved))
    return found


# The names in a folder, each with the tree of the names in it, or SECRET: a secret itself,
# hidden whole with what lies in it.
SecretTree = dict[str, "SecretTree | None"]
SECRET = None


@functools.lru_cache(maxsize=256)
def _secret_tree(home: str, moved: tuple[str, ...]) -> SecretTree:
    """`home_secret_paths(home, moved)` in `home`, as a tree of names."""
    tree: SecretTree = {}
    for path in sorted(home_secret_paths(home, moved), key=lambda path: len(path.parts)):
        *folders, name = path.relative_to(home).parts
        node = tree
        for folder in folders:
            inner = node.setdefault(folder, {})
            if inner is SECRET:
                break  # (in a secret hidden whole already)
            node = inner
        else:
            node[name] = SECRET
    return tree


def _secrets_there(folder: str, tree: SecretTree) -> list[Path]:
    """The secrets of `tree` (`_secret_tree`) in `folder` that are there: none in one planloop
    cannot list, whose secrets no command can read either."""
    try:
        names = set(os.listdir(folder))
    except OSError:
        return []
    found: list[Path] = []
    for name in sorted(names & tree.keys()):
        path = os.path.join(folder, name)
        inner = tree[name]
        found += [Path(path)] if inner is SECRET else _secrets_there(path, inner)
    return found


# Your variables that give a program the ssh command line it runs, `-i KEY` in it: git's, and
# the remote shells of borg, rsync, cvs and Subversion (borg's documented way to pick a key).
SSH_COMMAND_VARIABLES = ("GIT_SSH_COMMAND", "BORG_RSH", "RSYNC_RSH", "CVS_RSH", "SVN_SSH")
# Your variables that name the program run as ssh, a wrapper script often, whose text gives ssh
# its key (`exec ssh -i ~/keys/deploy "$@"`): git's (which takes no options there) and ansible's.
SSH_PROGRAM_VARIABLES = ("GIT_SSH", "ANSIBLE_SSH_EXECUTABLE")
# Your variables that give ssh its options alone: ansible's (also those it gives scp and sftp).
SSH_OPTION_VARIABLES = (
    *("ANSIBLE_SSH_ARGS", "ANSIBLE_SSH_COMMON_ARGS", "ANSIBLE_SSH_EXTRA_ARGS"),
    *("ANSIBLE_SCP_EXTRA_ARGS", "ANSIBLE_SFTP_EXTRA_ARGS"),
)


def keys_your_configs_name() -> list[Path]:
    """The key and password files your ssh, kubectl, git, npm, pip, curl, yarn and wget
    configs name by path, in each of your homes and where your variables move those configs,
    and npm's global config where it holds a login (tools/named_keys.py)."""
    named: list[Path] = []
    for home in your_homes():  # (`IdentityFile ~/keys/deploy.pem`: a key outside ~/.ssh)
        named += ssh_key_files(str(home))
        named += tool_key_files(str(home))  # (`//npm.corp/:keyfile=~/certs/npm.key`)
        named += configs_holding_a_credential(str(home))  # (uv.toml's index URL, a password in it)
        named += chezmoi_age_identities(str(home))  # (`[age] identity = "~/key.txt"`)
        named += ldaprc_key_files(str(home))  # (LDAPRC=work.ldaprc: `TLS_KEY ~/certs/ldap.key`)
    kubeconfigs = os.environ.get("KUBECONFIG", "").split(os.pathsep)
    kubeconfigs = [value for value in kubeconfigs if os.path.isabs(value)]
    kubeconfigs += [str(home / ".kube" / "config") for home in your_homes()]
    named += kubeconfig_key_files(tuple(kubeconfigs))
    your_git = (str(Path.home()), *(os.environ.get(name, "") for name in GIT_CONFIG_VARIABLES))
    named += git_key_files(*your_git)
    account = account_home()
    if account is not None:  # (what git in your other terminals reads: your account's config)
        named += git_key_files(str(account))
    # (`GIT_CONFIG_KEY_0=http.sslKey`: settings every git you start reads, a CI runner's)
    named += git_key_files_of_settings(str(Path.home()), git_settings_in_your_environment())
    for variable in SSH_COMMAND_VARIABLES:  # (`-i ~/keys/ci.pem`)
        named += ssh_command_keys(os.environ.get(variable, ""))
    for variable in SSH_OPTION_VARIABLES:
        named += ssh_command_keys("ssh " + os.environ.get(variable, ""))
    named += files_your_secret_commands_read()  # (BORG_PASSCOMMAND's `cat ~/.borg-passphrase`)
    for variable in SSH_PROGRAM_VARIABLES:  # (a path, with no shell between)
        named += ssh_command_keys(shlex.quote(os.environ.get(variable, "")))
    named += certificates_of_your_environment()  # (GIT_SSL_CERT: a PEM with its key, a P12)
    named += key_stores_of_your_environment()  # (JAVA_TOOL_OPTIONS' `-Djavax.net.ssl.keyStore=`)
    named += kerberos_files_of_your_environment()  # (KRB5CCNAME=FILE:~/krb/cc: a live ticket)
    named += npm_global_configs()  # (nvm's ~/.nvm/versions/node/v20/etc/npmrc)
    return named


@functools.lru_cache(maxsize=8)
def home_secret_paths(home: str, moved: tuple[str, ...]) -> tuple[Path, ...]:
    """SECRET_HOME_PATHS in `home`, and where XDG_FOLDERS' and ZDOTDIR's values `moved` move
    them: the same for every command of a run, so worked out once."""
    candidates = [Path(home, name) for name in SECRET_HOME_PATHS]
    for prefix, value in zip(XDG_FOLDERS, moved, strict=False):
        if os.path.isabs(value):  # a relative one is ignored, as the XDG specification says
            names = (name for name in SECRET_HOME_PATHS if name.startswith(prefix))
            candidates += [Path(value, name.removeprefix(prefix)) for name in names]
    if os.path.isabs(moved[-1]):
        candidates += [Path(moved[-1], name) for name in ZSH_FILES]
    return tuple(dict.fromkeys(Path(os.path.normpath(path)) for path in candidates))


def named_by_your_variables() -> list[Path]:
    """The secret files SECRET_FILE_VARIABLES, SECRET_LIST_VARIABLES and
    SECRET_FOLDER_VARIABLES name: your environment's, never the workspace's."""
    named = [your_path(variable) for variable in SECRET_FILE_VARIABLES]
    named += [your_path(name) for name in os.environ if SECRET_FILE_VARIABLE_FORM.fullmatch(name)]
    for variable in SECRET_LIST_VARIABLES:
        values = os.environ.get(variable, "").split(os.pathsep)
        named += [Path(os.path.normpath(value)) for value in values if os.path.isabs(value)]
    for variable, names in SECRET_FOLDER_VARIABLES.items():
        folder = your_path(variable)
        named += [folder / name for name in names] if folder is not None else []
    # yarn's rc in your home under the name YARN_RC_FILENAME gives, with its npmAuthToken.
    yarn_rc = os.path.basename(os.environ.get("YARN_RC_FILENAME", ""))
    named += [home / yarn_rc for home in your_homes()] if yarn_rc not in ("", ".", "..") else []
    # ansible's vault identities, `dev@~/.vault/dev.txt,prod@prompt`: each file's password.
    for identity in os.environ.get("ANSIBLE_VAULT_IDENTITY_LIST", "").split(","):
        source = os.path.expanduser(identity.rpartition("@")[2].strip())
        named += [Path(os.path.normpath(source))] if os.path.isabs(source) else []
    return [path for path in named if path is not None]


def folders_named_by_your_variables() -> list[Path]:
    """The folders SECRET_WHOLE_FOLDER_VARIABLES name, and those SECRET_INNER_FOLDER_VARIABLES
    name in theirs, but none that holds a home of yours: hidden whole, as where they usually
    lie."""
    named = [your_path(variable) for variable in SECRET_WHOLE_FOLDER_VARIABLES]
    named += kerberos_folders_of_your_environment()  # (KRB5CCNAME=DIR:~/.krb5: tickets)
    for variable, names in SECRET_INNER_FOLDER_VARIABLES.items():
        folder = your_path(variable)
        named += [folder / name for name in names] if folder is not None else []
    homes = your_homes()
    return [
        folder
        for folder in named
        if folder is not None and not any(home.is_relative_to(folder) for home in homes)
    ]


def _sets_a_secret(shell_file: Path) -> bool:
    """Whether the shell file sets a variable no sandboxed command gets (`sets_a_secret`), as
    far as its first MiB tells: judged once while the file stays as it is (`judged_as`), since
    reading its commands takes a while (most of a second for 50 KiB that name a secret)."""
    try:
        judged = judged_as(os.stat(shell_file))
    except OSError:
        return False
    if judged is None:  # (changed just now, or no regular file)
        return _shell_file_sets_a_secret.__wrapped__(shell_file, judged)
    return _shell_file_sets_a_secret(shell_file, judged)


@functools.lru_cache(maxsize=64)
def _shell_file_sets_a_secret(shell_file: Path, _judged: tuple[int, ...] | None) -> bool:
    try:
        return sets_a_secret(read_small_file(shell_file, cut=True))
    except (OSError, ValueError):
        return False


def file_or_none(path: Path) -> bool:
    """Whether `path` is a regular file (through links) or nothing yet."""
    return os.path.isfile(path) or not os.path.lexists(path)


def your_path(variable: str) -> Path | None:
    """The absolute path your environment variable `variable` holds, or None. A leading `~`
    counts as your home: `export X="~/creds"` leaves it, and the tools expand it themselves."""
    value = os.environ.get(variable, "")
    value = str(Path.home()) + value[1:] if re.match(r"~(/|$)", value) else value
    return Path(os.path.normpath(value)) if os.path.isabs(value) else None


def hidden_paths(allow_read: Iterable[Path] = (), workspace: Path | None = None) -> list[Path]:
    """The secrets the sandbox hides: those of `secret_paths` that planloop can read, what
    the links in a hidden folder lead to (`linked_secrets`), and the system's private files
    (`private_system_files`), but no path inside another.

    A path in `allow_read`, or under one, stays visible.
    """
    allowed = [Path(os.path.abspath(path)) for path in allow_read]

    def hidden(path: Path) -> bool:
        if any(path == opened or path.is_relative_to(opened) for opened in allowed):
            return False
        return os.access(path, os.R_OK)  # what planloop's user cannot read, no command can

    found = [path for path in secret_paths() if hidden(path)]
    for folder in [path for path in found if os.path.isdir(path)]:
        found += [target for target in linked_secrets(folder, workspace) if hidden(target)]
    private = private_system_files(PRIVATE_SYSTEM_FOLDERS)
    found += [path for path in private if kept_private(path, allowed, workspace)]
    return outermost(found)


# Entries of the hidden secrets looked through, at most, for files with several names
# (`secret_identities`): ~/.ssh and ~/.aws hold a few, a browser profile tens of thousands.
# The walk is done once a run for the same secrets (some 0.5 s at the bound).
MAX_SECRET_ENTRIES = 200_000


def hard_linked_secrets(files: Iterable[Path], hidden: Iterable[Path]) -> list[Path]:
    """Those of `files` that are one of the `hidden` secrets by another name: a hard link
    (`ln ~/.aws/credentials dotfiles/aws/`, or a dotfiles manager that links so). Hidden by its
    own path alone, the secret would be read at the workspace's. Where the hidden folders hold
    more than MAX_SECRET_ENTRIES entries, each of `files` counts as one."""
    wanted: dict[tuple[int, int], list[Path]] = {}
    for path in files:
        with contextlib.suppress(OSError):
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                wanted.setdefault((info.st_dev, info.st_ino), []).append(path)
    own_names = {path for paths in wanted.values() for path in paths}
    found = secret_identities(set(wanted), hidden, own_names)
    return [path for identity in found for path in wanted[identity]]


def secret_identities(
    wanted: set[tuple[int, int]], hidden: Iterable[Path], own_names: set[Path]
) -> set[tuple[int, int]]:
    """Those of the files `wanted` (device and inode) that are among the `hidden` secrets or
    inside a hidden folder, by a name other than `own_names`; all of them where the walk
    through the folders is cut (MAX_SECRET_ENTRIES): what was not seen may be there."""
    if not wanted:
        return set()
    # Each from where it leads: a hidden folder or file is often a link itself (stow's
    # `~/.aws -> dotfiles/aws`, `~/.netrc -> .dotfiles-private/netrc`).
    linked, cut = _several_names_in(tuple(sorted({os.path.realpath(path) for path in hidden})))
    if cut:
        return set(wanted)
    return {
        identity
        for identity in wanted
        if any(path not in own_names for path in linked.get(identity, ()))
    }


# Entries of your homes looked through, at most, for the other names of a hidden secret there
# that has names outside the hidden folders and the workspace (a dotfiles manager that keeps
# `~/.aws/credentials` as a hard link of `~/dotfiles/aws/credentials`). Only for such a secret,
# and the look ends once each name is found; past it, commands ask.
MAX_HOME_LINK_ENTRIES = 100_000


def secrets_linked_in_homes(
    roots: list[Path], hidden: list[Path], workspace_names: list[Path], workspace: Path
) -> tuple[list[Path], str | None]:
    """The other names, in your homes `roots` but outside the `workspace`, of the `hidden`
    secrets that lie in them; and why a command could still read one, or None.

    A home is shown with its folders bound whole but on the way to a secret (`home_views`):
    hidden at its own path alone, the secret would be read at `~/dotfiles/aws/credentials`.
    A file's count of names tells how many it has besides those in the hidden folders and
    those the sandbox hides in the workspace (`workspace_names`); where one of them is not
    found (outside your homes, or past MAX_HOME_LINK_ENTRIES), or the hidden folders hold more
    than MAX_SECRET_ENTRIES entries, commands ask."""
    inside = [
        real
        for real in {Path(os.path.realpath(path)) for path in hidden}
        if any(real.is_relative_to(home) for home in roots)
    ]
    if not inside:
        return [], None
    linked, cut = _several_names_in(tuple(sorted(map(str, inside))))
    if cut:
        return [], (
            f"the secrets the sandbox hides in your home hold more than {MAX_SECRET_ENTRIES:,} "
            "entries, too many to find which has another name (a hard link) that a command "
            "could read, so sandboxed commands ask before they run"
        )
    known = collections.Counter(_identity(path) for path in workspace_names)
    unfound: dict[tuple[int, int], int] = {}  # names of each secret not found yet
    for identity, paths in linked.items():
        with contextlib.suppress(OSError):
            info = os.lstat(paths[0])  # (its count now: a name made since counts)
            left = info.st_nlink - len(set(paths)) - known[identity]
            if (info.st_dev, info.st_ino) == identity and left > 0:
                unfound[identity] = left
    if not unfound:
        return [], None
    skipped = frozenset([*map(str, inside), str(os.path.realpath(workspace))])
    key = (tuple(roots), tuple(sorted(unfound.items())), skipped)
    found = _other_names_in(*key)
    if any(_identity(path) not in unfound for path in found):  # (renamed since: look again)
        _other_names_in.cache_clear()
        found = _other_names_in(*key)
    for identity in map(_identity, found):
        if identity in unfound:
            unfound[identity] -= 1
    missing = [identity for identity, left in unfound.items() if left > 0]
    if not missing:
        return list(found), None
    secret = linked[missing[0]][0]
    return list(found), (
        f"{secret}, a secret the sandbox hides, has another name (a hard link) that planloop "
        f"did not find in your home (in its first {MAX_HOME_LINK_ENTRIES:,} entries), where "
        f"a command could read it, so sandboxed commands ask before they run (`find / -xdev "
        f"-samefile {secret}` finds it)"
    )


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the file `path`, not following a link; None where there is none."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


@functools.lru_cache(maxsize=4)
def _other_names_in(
    roots: tuple[Path, ...], wanted: tuple[tuple[tuple[int, int], int], ...], skipped: frozenset
) -> tuple[Path, ...]:
    """Up to the count `wanted` of each file's names found in the folders `roots` (breadth
    first, never through a link, nor into a folder of `skipped` or on another file system:
    a hard link never crosses one, and a network mount in a home would make the look slow),
    in MAX_HOME_LINK_ENTRIES entries at most.

    Worked out once while the files keep their counts of names and the names found stay
    theirs: each command would look again."""
    left = dict(wanted)
    devices = {device for (device, _), _ in wanted}
    found: list[Path] = []
    pending = collections.deque(roots)
    for _ in range(MAX_HOME_LINK_ENTRIES):
        if not pending or not left:
            break
        path = pending.popleft()
        try:
            info = os.lstat(path)
        except OSError:
            continue
        identity = (info.st_dev, info.st_ino)
        if stat.S_ISDIR(info.st_mode) and info.st_dev in devices and str(path) not in skipped:
            with contextlib.suppress(OSError), os.scandir(path) as entries:
                pending.extend(Path(entry.path) for entry in entries)
        elif stat.S_ISREG(info.st_mode) and identity in left and str(path) not in skipped:
            found.append(path)
            left[identity] -= 1
            if not left[identity]:
                del left[identity]
    return tuple(found)


def hidden_from_commands(path: Path) -> bool:
    """Whether the sandbox hides the file `path` from commands: one of `hidden_paths`, in one
    (each as it leads), or another name of one (`secret_identities`). planloop's readers of
    what runs later read no such file for a workspace's sake (an `.envrc`'s `source_env
    ~/.config/shell/secrets.sh`): what they find there goes into reasons the model reads."""
    real = Path(os.path.realpath(path))
    hidden = [Path(os.path.realpath(secret)) for secret in hidden_paths()]
    if any(real == secret or real.is_relative_to(secret) for secret in hidden):
        return True
    try:
        info = os.stat(real)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_nlink < 2:
        return False
    return bool(secret_identities({(info.st_dev, info.st_ino)}, hidden, {real}))


@functools.lru_cache(maxsize=4)
def _several_names_in(hidden: tuple[str, ...]) -> tuple[dict[tuple[int, int], list[Path]], bool]:
    """The files with more than one name among `hidden` and in the hidden folders, by device
    and inode, with their paths there; and whether the walk was cut (MAX_SECRET_ENTRIES).

    Worked out once a run for the same secrets: a read_file of a package's file that pnpm
    links from its store asks it again and again. What lies in them is yours, and no
    sandboxed command can make a hard link (tools/seccomp.py)."""
    linked: dict[tuple[int, int], list[Path]] = {}
    pending = collections.deque(Path(path) for path in hidden)
    for _ in range(MAX_SECRET_ENTRIES):
        if not pending:
            return linked, False
        path = pending.popleft()
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            with contextlib.suppress(OSError), os.scandir(path) as entries:
                pending.extend(Path(entry.path) for entry in entries)
        elif stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            linked.setdefault((info.st_dev, info.st_ino), []).append(path)
    return linked, bool(pending)


def kept_private(path: Path, allowed: list[Path], workspace: Path | None) -> bool:
    """Whether a private system path (`private_system_files`) stays hidden: not re-opened
    with --sandbox-allow-read, and neither holding nor inside your home or the workspace (a
    service account's home is often a private folder of /var/lib, and your home has rules of
    its own), nor holding the Python that starts each command (`LANDLOCK_PYTHON`)."""
    if any(path == opened or path.is_relative_to(opened) for opened in allowed):
        return False
    yours = [Path.home(), *([workspace] if workspace else [])]
    if any(path.is_relative_to(own) or own.is_relative_to(path) for own in yours):
        return False
    return not (LANDLOCK_PYTHON and Path(LANDLOCK_PYTHON).is_relative_to(path))


# System folders whose private files and folders the sandbox hides. What the system keeps from
# its other users is a secret by its own account: /etc/shadow, /etc/ssl/private, the ssh host
# keys, NetworkManager's saved passwords, a database's files in /var/lib, debconf's stored
# passwords in /var/cache, the logs of logins and sudo, a mail spool. planloop run as root (a
# container, CI) reads them all, and a command run as root would too, with no capability.
PRIVATE_SYSTEM_FOLDERS = ("/etc", "/var/lib", "/var/backups", "/var/spool", "/var/cache")
PRIVATE_SYSTEM_FOLDERS += ("/var/log", "/var/mail", "/srv")
# How far the walk goes, in each of them. They sit near the top (/etc/ssl/private,
# /var/lib/postgresql/15/main), while /var/lib may hold a flatpak or snap store of a hundred
# thousand public files: each folder has its own count, so such a store leaves the others read.
PRIVATE_SYSTEM_DEPTH = 5
PRIVATE_SYSTEM_ENTRIES = 50_000


@functools.lru_cache(maxsize=1)
def private_system_files(folders: tuple[str, ...]) -> tuple[Path, ...]:
    """The files in `folders` that not everyone may read, and the folders not everyone may
    enter (hidden whole, not looked into), that planloop's user can read or enter: through
    its group, or as root. Links are not followed: a private file that a link there leads
    to elsewhere stays as it is.

    Worked out once a run (a walk of /etc and /var/lib takes tens of milliseconds, at most
    PRIVATE_SYSTEM_ENTRIES entries of each, PRIVATE_SYSTEM_DEPTH folders deep): these are the
    system's files, which no sandboxed command can change; one the system makes private
    during the run shows until the next.
    """
    found: list[Path] = []
    for top in folders:
        found += _private_files_in(top)
    return tuple(found)


def _private_files_in(top: str) -> list[Path]:
    """`private_system_files` of the one folder `top`, within its own bounds."""
    found: list[Path] = []
    pending = [(top, 1)] if os.path.isdir(top) else []
    seen = 0
    while pending and seen < PRIVATE_SYSTEM_ENTRIES:
        folder, depth = pending.pop()
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in itertools.islice(entries, PRIVATE_SYSTEM_ENTRIES - seen):
                seen += 1
                with contextlib.suppress(OSError):
                    mode = entry.stat(follow_symlinks=False).st_mode
                    is_folder = stat.S_ISDIR(mode)
                    if is_folder and mode & stat.S_IXOTH and depth < PRIVATE_SYSTEM_DEPTH:
                        pending.append((entry.path, depth + 1))
                    elif is_folder and not mode & stat.S_IXOTH and os.access(entry.path, os.X_OK):
                        found.append(Path(entry.path))
                    elif stat.S_ISREG(mode) and not mode & stat.S_IROTH:
                        found += [Path(entry.path)] if os.access(entry.path, os.R_OK) else []
    return found


def outermost(paths: list[Path]) -> list[Path]:
    """`paths` without those that lead into a folder of another, or to where another leads.

    A hidden folder is an empty read-only tmpfs: bwrap cannot make a mount point in it for a
    path inside, and need not. Both are compared where they lead: that is where bwrap mounts.
    """
    kept: dict[Path, Path] = {}  # where each kept path leads -> the path
    leads = [(Path(os.path.realpath(path)), path) for path in paths]
    for real, path in sorted(leads, key=lambda pair: len(pair[0].parts)):
        # (its own path and its folders looked up, not each kept path compared: a home of
        # a thousand secrets made this a million comparisons, asked several times a look)
        if real not in kept and not any(folder in kept for folder in real.parents):
            kept[real] = path
    return list(kept.values())


# What a link in a hidden folder may never make the sandbox hide: what every command needs (the
# shell, its libraries, /etc's users and resolver), the kernel's folders, the private /tmp, nor
# anything holding one of them. Nor a folder of / itself (/var, /opt, /nix): a link there is a
# shortcut, not a secret.
NEVER_HIDDEN = tuple(
    Path(folder)
    for folder in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
    + ("/proc", "/sys", "/dev", "/run", "/boot", "/tmp")
)
# Where a hidden folder's link may lead and stay visible: the system's code, and what the
# sandbox has of its own (/proc, /dev, a private /tmp). A file of /etc, /run or /var it leads
# to is hidden, as a secrets manager puts it there.
LINKED_NEVER_HIDDEN = tuple(
    Path(folder)
    for folder in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot")
    + ("/proc", "/sys", "/dev", "/tmp")
)
# How much of a hidden folder is looked through for links: stow's and home-manager's links sit
# in the first levels of small config folders, while a hidden folder can be a browser profile
# of many thousands of files, and this runs before every command (LINK_SEARCH_ENTRIES entries
# take 20 to 50 ms: bench/link_search.py). Each folder in it counts LINK_SEARCH_FOLDER_ENTRIES at
# most, so that one big folder of logs or a cache leaves the budget to its neighbours. The same
# bounds hold for each folder a link leads to, followed on for LINK_SEARCH_STEPS steps.
LINK_SEARCH_DEPTH = 3
LINK_SEARCH_ENTRIES = 5000
LINK_SEARCH_FOLDER_ENTRIES = 1000
LINK_SEARCH_STEPS = 4


def linked_secrets(folder: Path, workspace: Path | None = None) -> list[Path]:
    """Where the links inside the hidden `folder` lead, and where the links inside a folder so
    reached lead in turn, up to LINK_SEARCH_STEPS steps (a pass store's `~/.password-store/work
    -> ~/work-store`, whose `shared -> ~/team-store`).

    GNU stow links each file of a package into a folder that two packages share
    (`~/.ssh/id_ed25519 -> ../dotfiles/ssh/.ssh/id_ed25519`), as does home-manager (into
    /nix/store), and agenix and sops-nix link a decrypted secret into /run
    (`/run/agenix/<name>`, `/run/user/<uid>/secrets/<name>`): the tmpfs over the folder hides
    the link, not the file it leads to, where a command would read the key. So that file is
    hidden too, also in the workspace (planloop run in the dotfiles repository): only the
    workspace itself and what holds it stay visible, with the system's code and what the
    sandbox has of its own (LINKED_NEVER_HIDDEN).
    """
    home = Path(os.path.realpath(Path.home()))
    root = Path(os.path.realpath(workspace)) if workspace else None
    kept: list[Path] = []
    folders = [folder]
    for _step in range(LINK_SEARCH_STEPS):
        targets = dict.fromkeys(target for found in folders for target in _links_in(found))
        new = [target for target in targets if target not in kept and _may_hide(target, home, root)]
        kept += new
        folders = [target for target in new if os.path.isdir(target)]
    return kept


def _links_in(folder: Path) -> list[Path]:
    """Where the links in `folder` lead, within LINK_SEARCH_DEPTH and LINK_SEARCH_ENTRIES."""
    targets: list[Path] = []
    pending, seen = collections.deque([(folder, 0)]), 0
    while pending and seen < LINK_SEARCH_ENTRIES:
        current, depth = pending.popleft()
        allowed = min(LINK_SEARCH_FOLDER_ENTRIES, LINK_SEARCH_ENTRIES - seen)
        try:
            with os.scandir(current) as entries:
                for entry in itertools.islice(entries, allowed):
                    seen += 1
                    if entry.is_symlink():
                        targets.append(Path(os.path.realpath(entry.path)))
                    elif depth + 1 < LINK_SEARCH_DEPTH and entry.is_dir(follow_symlinks=False):
                        pending.append((Path(entry.path), depth + 1))
        except OSError:
            continue  # not readable by planloop: not by a command either
    return targets


def _may_hide(target: Path, home: Path, root: Path | None) -> bool:
    """Whether a link's `target` may be hidden: not the system's code, what every command
    needs, the workspace or what holds it, your home, a folder of /, nor a socket or nothing."""
    in_workspace = root is not None and target.is_relative_to(root)  # (bound, in /tmp too)
    if not in_workspace and any(target.is_relative_to(other) for other in LINKED_NEVER_HIDDEN):
        return False
    if any(other.is_relative_to(target) for other in NEVER_HIDDEN):
        return False  # (a link to / or to /etc itself)
    if root is not None and root.is_relative_to(target):
        return False  # the workspace, or a folder that holds it
    if home.is_relative_to(target) or len(target.parts) <= 2:
        return False  # your whole home folder, or a folder of /, is not a secret
    return os.path.isfile(target) or os.path.isdir(target)


# Each command's sandbox judges the workspace's key files again, a repository's big ones too
# (three of a megabyte each took 20 s a command). A file unchanged since it was judged is not
# read again: same file, size, and times of the last change of its bytes and of the file. Only
# a file whose last change is a second old counts as unchanged: a clock that ticks in
# milliseconds would give a change just after the judgement the same times.
JUDGED: dict[tuple, bool] = {}
MAX_JUDGED = 10_000
SETTLED_NS = 1_000_000_000


def judged_as(info: os.stat_result) -> tuple[int, ...] | None:
    """What identifies a regular file's content for JUDGED, or None when it changed too lately."""
    if not stat.S_ISREG(info.st_mode) or time.time_ns() - info.st_ctime_ns < SETTLED_NS:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def holds_known_secret(path: Path, unreadable: bool = True) -> bool:
    """Whether the file at `path` holds the API key or auth token planloop uses (redaction.py).

    A workspace `.env` is where the README suggests keeping the key. A file that cannot be read
    here is treated as holding one (`unreadable`): hiding a file a command needed is a failure
    it reports, a key it read is not. The key is looked for in UTF-16 and UTF-32 too, of either
    byte order and with or without a BOM (`secret_encodings`): Windows PowerShell 5 writes `echo
    ... > .env.local` in UTF-16, and `iconv` reads it back. And as python-dotenv gives it,
    `${...}` expanded (`holds_the_key`): `K1=sk-ant-...` then `ANTHROPIC_API_KEY=${K1}rest`.
    """
    secrets = tuple(secret_values())  # (what holds_the_key looks for)
    if not secret_encodings():
        return False
    with contextlib.suppress(OSError):
        known = JUDGED.get((judged_as(os.stat(path)), secrets))
        if known is not None:
            return known
    try:
        fd = open_own(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return unreadable
    data = None  # until read: a read that failed leaves its watches assuming the worst
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            data = b""  # no key file's bytes were read
            return unreadable
        # Past MAX_SECRET_SCAN_BYTES of data the answer is yes: a file hidden that needed no
        # hiding is a failure a command reports, a key read is not. Holes cost nothing.
        data = read_allocated(fd, MAX_SECRET_SCAN_BYTES)
        found = True if data is None else holds_the_key(data)
        identity = judged_as(info)
        if identity is not None and judged_as(os.fstat(fd)) == identity:
            JUDGED[(identity, secrets)] = found
            if len(JUDGED) > MAX_JUDGED:
                del JUDGED[next(iter(JUDGED))]  # the oldest goes
        return found
    except OSError:
        return unreadable
    finally:
        os.close(fd)
        own_read_done(path, data)


def git_path_not_held(root: Path, scan: WorkspaceScan) -> str | None:
    """Why a path in the workspace that git obeys cannot be made read-only, or None.

    A read-only bind holds a file or folder, not a link to one: a mount lands on the link's
    target, and the link itself can still be replaced by a file of the command's making. Nor
    can it hold a config file that git would include but that does not exist yet. Either way
    a command could change what git runs on the host, so commands ask instead.
    """
    above_hooks, above_includes = git_paths_around(root.parent, root)
    # A `.git` counts when it leads to a repository inside the workspace (one outside, or a
    # link to /proc, is not bound, and is reported as such).
    repositories = [
        entry
        for entry in scan.git_entries
        if git_dir_of(entry) is not None and Path(os.path.realpath(entry)).is_relative_to(root)
    ]
    paths = [*repositories, *above_hooks, *above_includes]
    includes = list(above_includes)
    linked = hook_links_around(root.parent)
    for entry in scan.git_entries:
        hooks, included = git_config_paths(entry)
        paths += hooks + included
        includes += included
        linked += hook_links(entry)
    for path in dict.fromkeys(paths + linked):
        if not (path == root or path.is_relative_to(root)):
            continue
        if os.path.realpath(path) != os.path.normpath(path):
            return f"{shown(root, path)}, which git obeys, is a link or lies behind one"
        if path in includes and not os.path.lexists(path):
            return f"{shown(root, path)}, a config file git would include, does not exist"
        if path in linked and not os.path.lexists(path):
            # A command could create it, and git would run it as the hook.
            return f"{shown(root, path)}, which a git hook links to, does not exist"
    return None


def protected_candidates(scan: WorkspaceScan) -> list[Path]:
    """Everything a scan says must be read-only: each `.git` and what it names, each `.env*`,
    each host tool's configuration, and each folder the scan could not look into."""
    paths: list[Path] = []
    for entry in scan.git_entries:
        paths.append(entry)
        git_dir = git_dir_of(entry)
        if git_dir is not None:
            paths.append(git_dir)
            common = common_dir_of(git_dir)
            if common is not None:
                paths.append(common)
        hooks, includes = git_config_paths(entry)
        paths += hooks + includes
    return paths + scan.env_files + scan.tool_configs + scan.closed_folders


def read_only_candidates(root: Path, scan: WorkspaceScan) -> list[Path]:
    """Every path in or around the workspace that sandboxed commands must not change, as
    named (a link among them is held where it leads): what `protected_candidates` lists, and
    what git, your shell, your PATH or a held folder's links name (package folders held for
    their hard links aside: `wrap` adds those). The file tools ask before writing any of them
    too (`held_for_commands_reason`): what a command cannot change, neither can the model."""
    if scan.read_only is None:
        # The repositories above the workspace are read-only already, but the hooks folder or
        # an included config they name may lie inside it.
        above_hooks, above_includes = git_paths_around(root.parent, root)
        linked = hook_link_targets(root, scan)
        candidates = [*protected_candidates(scan), *above_hooks, *above_includes, *linked]
        candidates += home_links_into(root)  # your dot files, kept in this workspace
        candidates += path_folders_in(root)[0]  # your PATH's folders here: .venv/bin
        candidates += run_later_read_only(root, run_later_paths(root, scan))
        # (What is only told when made, a new module of the project's own name, is not held.)
        there = [
            (path, why) for path, why in held_when_there_paths(root, scan) if why not in TOLD_ONLY
        ]
        held_there = run_later_read_only(root, there)
        candidates += [path for path in held_there if path.is_relative_to(root)]  # rest: held
        candidates += git_programs_in(root, [*scan.git_entries])  # core.pager = ./x, ...
        # a folderOpen task's script, the Makefile of a hook's `make lint`
        candidates += tool_scripts_in(root, host_tool_settings(root, scan))
        candidates += linked_from_held_folders(root, scan)  # bin/deploy -> ../scripts/x
        candidates += files_linked_outside(root, scan)  # nvim/init.lua, ~/.config/nvim's too
        scan.read_only = list(dict.fromkeys(candidates))
    return list(scan.read_only)  # a copy: `wrap` adds to it


def held_for_commands_reason(workspace: Path, relative: str) -> str | None:
    """Why the file tools must ask before writing `relative`: it is, or lies in, a path that
    sandboxed commands find read-only (`read_only_candidates`), compared where each leads.

    The file tools' own reasons (`protected_reason`) name the path by what it is; this one
    catches the rest by the same list the sandbox binds, so the two cannot drift apart: the
    folder a nested repository's core.hooksPath names beside it, a config git includes
    through a link, the file a `.claude` or `.envrc` link leads to (or would lead to, once
    made: a link to a missing file resolves to the name a write would create).
    """
    root = real_workspace(workspace)
    target = Path(os.path.realpath(root / relative))
    for path in read_only_candidates(root, scan_for_file_tools(root)):
        if path == root:
            continue  # the workspace as a git directory: commands ask instead (_cannot_confine)
        held = Path(os.path.realpath(path))
        if held != root and (target == held or target.is_relative_to(held)):
            name = shown(root, path) if path.is_relative_to(root) else str(path)
            where = shown(root, held) if held.is_relative_to(root) else str(held)
            leads = "" if held == Path(os.path.normpath(path)) else f" (a link to {where})"
            if path in scan_for_file_tools(root).linked:
                return (
                    f"{name} is protected: it has another name outside the workspace (a hard "
                    "link), and sandboxed commands cannot change it, since that file would change "
                    "too"
                )
            return (
                f"{name}{leads} is protected: sandboxed commands cannot change it, because "
                "git, your shell or a host tool runs what it holds outside the sandbox"
            )
    return None


def dangling_link_not_held(root: Path, scan: WorkspaceScan) -> str | None:
    """Why a protected name that is a link to nothing yet cannot be held, or None.

    A bind needs something to hold; a command could create the file the link leads to, and a
    `.env -> config/dev.env` would then be a `.env` of its making, which no scan reports as new
    (the name was there before).
    """
    for path in read_only_candidates(root, scan):
        if path == root or not os.path.islink(path):
            continue
        real = Path(os.path.realpath(path))
        if real.is_relative_to(root) and not os.path.lexists(real):
            return (
                f"{shown(root, path)} is a link to {shown(root, real)}, which does not exist "
                "yet: a command could create it"
            )
    return None


def hook_link_targets(root: Path, scan: WorkspaceScan) -> list[Path]:
    """What the hooks that are links lead to, resolved, inside the workspace (`hook_links`), of
    every repository the scan found and those above the workspace.

    A bind holds the file, not a link to it. One that does not exist, or that is reached
    through another link, makes commands ask instead (`git_path_not_held`); one outside the
    workspace is read-only already.
    """
    linked = hook_links_around(root.parent)
    for entry in scan.git_entries:
        linked += hook_links(entry)
    resolved = (Path(os.path.realpath(target)) for target in linked if os.path.exists(target))
    return [target for target in resolved if target.is_relative_to(root)]


def links_in_held_folders(
    root: Path, scan: WorkspaceScan
) -> tuple[list[tuple[Path, Path, Path]], list[Path]]:
    """The links in the folders held read-only (`held_folder_links`), and those folders: each
    host tool's configuration, hooks folder, PATH folder, folder that runs later (a
    virtualenv's bin/, what your environment names), your dot files' folders kept here and
    git's programs. Worked out once per scan: `before_command` and `wrap` both need them.

    Not the `.git` folders (`hook_links` looks at their links) nor the package folders held
    for their hard links (installed code, whose links stay inside them).
    """
    if scan.held_links is None:
        folders = [*scan.tool_configs, *git_paths_around(root.parent, root)[0]]
        folders += [hook for entry in scan.git_entries for hook in git_config_paths(entry)[0]]
        folders += [*path_folders_in(root)[0], *path_entries()]  # ~/bin/tool -> ~/proj/tool
        folders += run_later_read_only(root, run_later_paths(root, scan))
        folders += home_links_into(root)
        folders += git_programs_in(root, [*scan.git_entries])
        folders += tool_scripts_in(root, host_tool_settings(root, scan))  # mise's _.path
        scan.held_folders = [path for path in dict.fromkeys(folders) if os.path.isdir(path)]
        scan.held_links = held_folder_links(root, scan.held_folders)
    return scan.held_links, scan.held_folders


# Targets of links in held folders bound at most: each is one more mount, and one more open
# descriptor (with those of the folders pinned above it) when the sandbox is made. More than
# this (a large node_modules/.bin on your PATH) makes commands ask instead.
MAX_HELD_LINK_TARGETS = 128


def linked_from_held_folders(root: Path, scan: WorkspaceScan) -> list[Path]:
    """What the links in held folders lead to, to bind read-only (`held_link_targets`)."""
    links, folders = links_in_held_folders(root, scan)
    return held_link_targets(root, links, folders)[:MAX_HELD_LINK_TARGETS]


def held_folder_link_not_held(root: Path, scan: WorkspaceScan) -> str | None:
    """Why what a link in a held folder leads to cannot be held, or None."""
    links, folders = links_in_held_folders(root, scan)
    targets = held_link_targets(root, links, folders)
    if len(targets) > MAX_HELD_LINK_TARGETS:
        return (
            f"{len(targets)} links in folders held read-only (your PATH's, host tools' "
            "configuration) lead to files in the workspace, more than can be held one by one"
        )
    return held_link_not_held(root, links, folders)


def envrcs_of(scan: WorkspaceScan) -> list[Path]:
    """The `.envrc` files the scan found in the workspace (and autoenv's, where you use it:
    `cd_hook_names`)."""
    names = cd_hook_names()
    return [path for path in scan.env_files if path.name in names]


def run_later_paths(root: Path, scan: WorkspaceScan) -> list[tuple[Path, str]]:
    """What your shell, direnv or editor runs from the workspace later (tools/shell_config.py),
    with the `.envrc` files the scan found."""
    return run_later(root, envrcs_of(scan), venvs=scan.venvs)


def run_later_state(
    root: Path, scan: WorkspaceScan
) -> dict[Path, tuple[str, tuple[int, int, int] | None]]:
    """Each path `run_later_paths` names, with why, and its identity (`link_identity`), or
    None where it does not exist: held paths cannot change under a command, so one that is new
    here, or changed, came from the command (a virtualenv it made) or from outside it."""
    state: dict[Path, tuple[str, tuple[int, int, int] | None]] = {}
    for path, why in run_later_paths(root, scan):
        try:
            identity: tuple[int, int, int] | None = link_identity(os.lstat(path))
        except OSError:
            identity = None
        state.setdefault(path, (why, identity))
    return state


def held_when_there_paths(root: Path, scan: WorkspaceScan) -> list[tuple[Path, str]]:
    """What runs later only if it exists (tools/shell_config.py), with the scan's `.envrc`s."""
    envrcs = envrcs_of(scan)
    settings = host_tool_settings(root, scan)  # (what host tools run, git's hooks too)
    found = held_when_there(root, envrcs) + npm_settings(root, settings)
    found += per_file_configs(root, settings, scan.per_file_configs)  # web/.prettierrc.json
    return (
        found + tool_files_when_there(root, settings) + git_files_when_there(root, scan.git_entries)
    )


def shown(root: Path, path: Path) -> str:
    """A path in the workspace as the person and the model are told it: on one line.

    A command chooses the names it creates; one with a line break in it would otherwise end
    the note early and start a line of its own choosing ("planloop: all clear").
    """
    return str(path.relative_to(root)).replace("\r", "\\r").replace("\n", "\\n")


NOT_A_FILE_OR_FOLDER = "it is neither a file nor a folder"


def not_bindable(root: Path, path: Path) -> str | None:
    """Why a protected path cannot be bound read-only, or None when it can.

    Only a file or folder that is inside the workspace, and resolves to one inside it, is
    bound; anything else (a link to /proc, a socket) would bring something else into the
    sandbox. Paths outside the workspace are read-only already.
    """
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(root):
        return f"it points to {real}, outside the workspace"
    if not os.path.lexists(real):
        # Gone, or never there (a home link to a file not made yet): commands ask for the
        # latter (`home_link_not_held`); a command allowed to run could create it.
        return "it does not exist"
    if not (os.path.isdir(real) or os.path.isfile(real)):
        return NOT_A_FILE_OR_FOLDER
    return None


def replaced(link: Path, was: tuple[int, int, int]) -> bool:
    """Whether something else stands where the link `link` was (gone is not replaced)."""
    try:
        return link_identity(os.stat(link, follow_symlinks=False)) != was
    except OSError:
        return False


# Entries of one protected folder looked at for hard links (`hard_link_not_held`).
MAX_ENTRIES_FOR_LINKS = 1000


def hard_link_not_held(root: Path, scan: WorkspaceScan) -> str | None:
    """A protected file with another name (a hard link) that a command could write, or None.

    A read-only bind holds a path, not the file: a hook made with `ln scripts/pre-commit.sh
    .git/hooks/pre-commit` is one file with two names, and the writable one rewrites the hook
    in place. The other name cannot be found without a search of the whole workspace, and one
    mount per name would not scale; so any such file on the workspace's file system makes
    commands ask. Looked at: each protected file, and the files directly in each protected
    folder and in its `hooks` folder (a repository's config, HEAD, hooks), not deeper.
    """
    above_hooks, above_includes = git_paths_around(root.parent, root)
    paths = [*protected_candidates(scan), *above_hooks, *above_includes]
    paths += hook_link_targets(root, scan) + home_links_into(root)
    try:
        device = os.stat(root).st_dev
    except OSError:
        return None
    seen: set[Path] = set()
    for path in dict.fromkeys(paths):
        if path in scan.closed_folders:
            continue  # bound whole; what is in it cannot be listed
        files = [path]
        if os.path.isdir(path):
            files = []
            for folder in (path, path / "hooks"):
                with contextlib.suppress(OSError), os.scandir(folder) as entries:
                    some = itertools.islice(entries, MAX_ENTRIES_FOR_LINKS)
                    files += [Path(entry.path) for entry in some]
        for file in files:
            if file in seen:
                continue
            seen.add(file)
            try:
                info = os.stat(file)  # through a link: the file git or the shell opens
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1 and info.st_dev == device:
                named = shown(root, file) if file.is_relative_to(root) else str(file)
                return (
                    f"{named} is protected but has {info.st_nlink} names (hard links): a "
                    "command could rewrite it through another name, which no read-only bind "
                    "holds; make it a copy or a symbolic link instead"
                )
    return None


# Package folders whose files are hard links to a cache outside the workspace: the answer is
# kept per folder while its change time stays the same (an install changes it).
_LINKED_PACKAGES: dict[Path, tuple[tuple[int, int, int], Path | None]] = {}
# Entries of a package folder looked at, and files of each entry: uv, pnpm and bun link every
# file of a package, so a few per package tell.
MAX_PACKAGES_SAMPLED = 5000
FILES_SAMPLED_PER_PACKAGE = 2


# The stores inside a node_modules that hold its packages' files, its other entries only
# linking into them: pnpm's, and Deno's (its own files first, so a look at node_modules's first
# files would find only those).
NODE_STORES = (".pnpm", ".deno")


def _package_folders(package_root: Path) -> list[Path]:
    """Where the installed files are: site-packages, a conda environment, or node_modules (its
    stores, `NODE_STORES`, when it has any)."""
    if package_root.name == "node_modules":
        stores = [package_root / name for name in NODE_STORES]
        stores = [store for store in stores if os.path.isdir(store) and not os.path.islink(store)]
        if stores:
            return stores
    return [package_root]


def _first_files(folder: str, count: int, depth: int) -> list[os.DirEntry]:
    """Up to `count` files of one package: those directly in `folder`, else those of its first
    subfolder that has any, `depth` levels down at most (pnpm's `name@1.0/node_modules/name`)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        children = list(itertools.islice(entries, MAX_ENTRIES_FOR_LINKS))
        files = [entry for entry in children if entry.is_file(follow_symlinks=False)]
        if files or depth == 0:
            return files[:count]
        for entry in children:
            if entry.is_dir(follow_symlinks=False):
                found = _first_files(entry.path, count, depth - 1)
                if found:
                    return found
    return []


def _holds_hard_links(folder: Path) -> bool:
    """Whether files of the packages in `folder` are hard links (have more than one name).

    A few files of each package are looked at: uv, pnpm and bun link every file of a package
    they install, and a package installed otherwise (pip's copies) has none."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in itertools.islice(entries, MAX_PACKAGES_SAMPLED):
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    files = _first_files(entry.path, FILES_SAMPLED_PER_PACKAGE, depth=4)
                elif entry.is_file(follow_symlinks=False):
                    files = [entry]
                else:
                    continue
                if any(file.stat(follow_symlinks=False).st_nlink > 1 for file in files):
                    return True
    return False


def hard_linked_packages(root: Path, scan: WorkspaceScan) -> list[Path]:
    """The package folders in the workspace whose files are hard links: to be read-only.

    uv installs a virtual environment's packages as hard links to its cache (~/.cache/uv) by
    default, pnpm, bun and Deno their node_modules to their store, and conda (mamba, pixi) a
    whole environment to its package cache, python and standard library included: one file, a
    name in the workspace and one outside. A command that wrote such a file in place would
    change the cache, and with it every environment made from it, in any project, outside the
    sandbox. So the whole package folder is bound read-only (one mount, not one per file);
    packages are then installed outside the sandbox, or the environment made of copies
    (UV_LINK_MODE=copy, `conda create --copy`).
    """
    held: list[Path] = []
    for package_root in dict.fromkeys(scan.package_roots):
        for folder in _package_folders(package_root):
            try:
                # Followed: a linked package folder is looked at again when it, not the link,
                # changes (an install into it), or the link leads elsewhere.
                info = os.stat(folder)
            except OSError:
                continue
            identity = link_identity(info)
            known = _LINKED_PACKAGES.get(folder)
            if known is None or known[0] != identity:
                known = (identity, folder if _holds_hard_links(folder) else None)
                _LINKED_PACKAGES[folder] = known
            if known[1] is not None and Path(os.path.realpath(folder)).is_relative_to(root):
                held.append(folder)
    # A conda environment's site-packages is held with it: one mount, and one note.
    return [path for path in held if not any(path.parent.is_relative_to(top) for top in held)]


# Files with a name outside the workspace bound read-only one by one, at most: past it (a build
# tree hard-linked to a cache, ccache's hard_link mode), commands ask instead.
MAX_LINKED_HELD = 500
# `.env` files a sandbox keeps read-only, one bind each, at most: past it, no command runs.
MAX_ENV_FILES_HELD = 500


def files_linked_outside(root: Path, scan: WorkspaceScan) -> list[Path]:
    """The files of the workspace with another name outside it (`linked_outside`), but those of
    the package folders held whole for their hard links (`hard_linked_packages`): to be read-only.

    `ln ~/.config/nvim/init.lua dotfiles/nvim/` (some keep their dot files so, or `cp -al`) makes
    one file of the two: a command that wrote the workspace's name in place would rewrite your
    editor's config, which runs outside the sandbox. A file made anew under that name (the file
    tools write so, and `sed -i`) leaves the other name as it was; a write in place does not."""
    if scan.linked_held is None:
        linked = linked_outside(scan)
        held = hard_linked_packages(root, scan) if linked else []
        scan.linked_held = [
            path for path in linked if not any(path.is_relative_to(folder) for folder in held)
        ]
    return list(scan.linked_held)


def hide_key_outside(env_file: Path) -> list[str]:
    """bwrap's words that empty the file a workspace `.env` links to outside it, when that file
    holds planloop's key (a monorepo's `.env -> ../../.env`, one key file linked everywhere).

    The file is bound over where the link leads now, by that path: a command that changes the
    link afterwards changes nothing, and the key file itself reads as empty by any name; later
    sandboxes hide it again, whatever became of the link (KEY_FILES). Read-only it is already;
    hidden it must be too.
    """
    real = Path(os.path.realpath(env_file))
    if not os.path.isfile(real) or not holds_known_secret(real):
        return []
    return ["--ro-bind", str(private_folder() / "empty"), str(real)]


# The usual names of `.env*` files, tried in a folder above the workspace that planloop may
# enter but not list (0711, a shared /srv/app): anyone can open a name they know there.
ENV_FILE_NAMES = (
    *(".env", ".envrc", ".envrc.local", ".env.local", ".env.keys", ".env.vault"),
    *(".env.development", ".env.development.local", ".env.dev", ".env.dev.local"),
    *(".env.test", ".env.test.local", ".env.staging", ".env.staging.local"),
    *(".env.production", ".env.production.local", ".env.prod", ".env.prod.local"),
    *(".env.secret", ".env.secrets", ".env.shared", ".env.defaults", ".env.example"),
    *(".env.sample", ".env.template", ".env.docker", ".env.ci", ".env.override"),
)


def hide_keys_above(root: Path) -> list[str]:
    """bwrap's words that empty each `.env*` file (direnv's `.envrc` among them) in a folder
    above the workspace that holds planloop's key: a monorepo's root, the folder direnv loaded
    the key from. The rest of the file system is read-only in the sandbox, not hidden, and a
    command would read the key there. Under /tmp there is nothing to do: it is private.

    The folders above are those of the workspace's resolved path and of the path your shell
    entered it by (`logical_workspace`), which are the ones direnv loads from.
    """
    logical = logical_workspace(root)
    folders = dict.fromkeys([*root.parents, *(logical.parents if logical else ())])
    words: list[str] = []
    for folder in folders:
        if folder.is_relative_to("/tmp"):
            continue
        try:
            with os.scandir(folder) as entries:
                found = [Path(entry.path) for entry in entries if is_env_name(entry.name)]
        except OSError:
            # Listing refused: a folder planloop (and so a command) may still enter opens
            # known names. One it cannot enter either opens none, and this finds none.
            found = [folder / name for name in ENV_FILE_NAMES]
        for path in found:
            words += hide_key_outside(path)
    return words


def hide_keys_loaded_as_settings(root: Path, scan: WorkspaceScan) -> list[str]:
    """bwrap's words that empty each file your start-up files source or read, or an `.envrc`
    loads or reads (`loaded_as_settings`), that holds planloop's key: `~/.secrets` that
    ~/.bashrc sources, `secrets.env` that `dotenv` loads, `$(cat ~/keys/anthropic)`. Hidden
    start-up files do not hide what they source. One in the workspace is bound read-only
    already (`run_later`) and is emptied over that bind, as a `.env` holding the key is; under
    /tmp, outside the workspace, the sandbox's /tmp is private, and a file planloop cannot
    read no command can read either."""
    envrcs = envrcs_of(scan)
    words: list[str] = []
    for path in settings_files(root, envrcs):
        real = Path(os.path.realpath(path))
        if real.is_relative_to("/tmp") and not real.is_relative_to(root):
            continue
        if os.access(real, os.R_OK):
            words += hide_key_outside(real)
    return words


def logical_workspace(root: Path) -> Path | None:
    """The workspace by the path your shell entered it (PWD), when that is not `root` itself:
    `/x/mono/proj` where `proj` is a link to `../data/proj`. Your shell and direnv look above
    that path (direnv loads `/x/mono/.envrc`), and the folders above it are not those above the
    resolved path. PWD counts only when it leads to the workspace or a folder holding it."""
    pwd = your_path("PWD")
    if pwd is None:
        return None
    real = Path(os.path.realpath(pwd))
    if not root.is_relative_to(real):
        return None
    logical = pwd / root.relative_to(real)
    return logical if logical != root else None


# System-wide start-up files, where servers often keep such keys (`/etc/environment`, a script
# in `/etc/profile.d`). Commands need them, so one is emptied only when it holds planloop's key.
SYSTEM_START_UP_FILES = (
    *("/etc/environment", "/etc/security/pam_env.conf", "/etc/profile", "/etc/bash.bashrc"),
    *("/etc/bashrc", "/etc/zshenv", "/etc/zsh/zshenv", "/etc/zprofile", "/etc/zsh/zprofile"),
    *("/etc/zshrc", "/etc/zsh/zshrc", "/etc/csh.cshrc", "/etc/csh.login", "/etc/ksh.kshrc"),
    "/etc/fish/config.fish",
)
SYSTEM_START_UP_FOLDERS = ("/etc/profile.d", "/etc/environment.d", "/etc/fish/conf.d")
MAX_SYSTEM_START_UP_ENTRIES = 200  # per folder: a few dozen is usual


def hide_keys_in_system_files() -> list[str]:
    """bwrap's words that empty each of SYSTEM_START_UP_FILES, and each file in
    SYSTEM_START_UP_FOLDERS, that holds planloop's key."""
    paths = [Path(path) for path in SYSTEM_START_UP_FILES]
    for folder in SYSTEM_START_UP_FOLDERS:
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            paths += [Path(e.path) for e in itertools.islice(entries, MAX_SYSTEM_START_UP_ENTRIES)]
    words: list[str] = []
    for path in paths:
        if os.access(path, os.R_OK):  # one planloop cannot read, no command can either
            words += hide_key_outside(path)
    return words


# The real path of every file a sandbox of this run emptied for holding planloop's key. What
# made each one hidden is the state of the moment: a `.env` link that led to it, a folder the
# scan could list. A command may change that (`rm .env`, `chmod 311 config`) and read the file
# by its path in the next one; so every later sandbox hides these again while they exist
# (`hide_remembered_keys`), and the file tools ask before changing one (`key_file_reason`).
KEY_FILES: dict[Path, None] = {}
KEY_FILE_REASON = (
    "a file that holds planloop's API key is protected: the sandbox hides it from commands"
)
# The largest file the file tools judge by its content (a key pasted into config/local.json);
# a bigger one is judged by the key-copy search, which reads on.
MAX_KEY_JUDGED_BYTES = 1024 * 1024


def remembered_key_files(root: Path) -> list[Path]:
    """Those of KEY_FILES a sandbox for the workspace `root` hides: a file still at that path,
    reached without a link (a bind would land where the link leads), and not in a folder of
    /tmp outside the workspace (the sandbox's /tmp is its own)."""
    found = []
    for path in KEY_FILES:
        if path.is_relative_to("/tmp") and not path.is_relative_to(root):
            continue
        try:
            info = os.lstat(path)
        except OSError:
            # Gone (it stays remembered, should it come back), or in a folder planloop may not
            # enter: no command may either, and it cannot open one up; in the workspace such
            # a folder is bound read-only as it is, elsewhere all is read-only.
            continue
        if stat.S_ISREG(info.st_mode) and os.path.realpath(path) == str(path):
            found.append(path)
    return found


def hide_remembered_keys(argv: list[str], remembered: list[Path]) -> list[str]:
    """bwrap's words that empty each of `remembered` (`remembered_key_files`) that `argv`, the
    sandbox's words so far, does not empty already; and KEY_FILES learns what `argv` empties,
    each file bound over by the empty file being one that holds the key."""
    empty = str(private_folder() / "empty")
    emptied = {
        Path(os.path.realpath(path))
        for flag, source, path in zip(argv, argv[1:], argv[2:], strict=False)
        if flag == "--ro-bind" and source == empty
    }
    KEY_FILES.update(dict.fromkeys(emptied))
    words: list[str] = []
    for path in remembered:
        if path not in emptied:
            words += ["--ro-bind", empty, str(path)]
    return words


def key_file_reason(
    workspace: Path, relative: str, opened: tuple[os.stat_result, bytes] | None = None
) -> str | None:
    """Why the file tools ask before changing the workspace's file `relative`: the sandbox
    hides it for holding planloop's key, as the file a `.env*` leads to (by a link or as
    another name of the same file), as a key file of another name (`docker.env`, a file in
    `.envs/`), or one it hid earlier in this run; or it holds the key now, in any form a
    program reads (`holds_known_secret`: `config/local.json` with the key pasted in, which the
    key-copy search may not have reported yet); or None.

    Changed unasked, the key would no longer be the value read_file redacts (one character
    put into it, and the next read shows the rest), and an edit's answer (found, not found)
    tells what the file holds.

    `opened`: the status and the whole content of the file a tool has open at `relative`
    (read_file's): judged as they are, with no second look at the path, which a command may
    have pointed elsewhere meanwhile.
    """
    root = real_workspace(workspace)
    if opened is not None:
        info, data = opened
    else:
        try:
            info = os.stat(root / relative)
        except OSError:
            return None
    if not stat.S_ISREG(info.st_mode):
        return None
    same = (info.st_dev, info.st_ino)
    remembered = [path for path in KEY_FILES if path.is_relative_to(root)]
    scan = scan_for_file_tools(root)
    names = [root / relative]  # and the key files that are this file by another name
    for path in [*remembered, *scan.env_files, *scan.key_files]:
        try:
            other = os.stat(path)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) != same:
            continue
        if path in KEY_FILES:
            return KEY_FILE_REASON
        names.append(path)
    # One read of the file, whichever name: a key file by name is judged as the sandbox judges
    # it (one it cannot read, or too big to read, holds the key); another only up to
    # MAX_KEY_JUDGED_BYTES, and one no tool can read holds nothing a tool could show.
    named = len(names) > 1
    if opened is not None:
        holds = bool(secret_encodings()) and holds_the_key(data)
    else:
        judged = named or info.st_size <= MAX_KEY_JUDGED_BYTES
        holds = judged and holds_known_secret(names[-1], named)
    if holds:
        hidden = names[1:] or names  # by its key-file names, else by its own
        KEY_FILES.update(dict.fromkeys(Path(os.path.realpath(name)) for name in hidden))
        return KEY_FILE_REASON  # and the next sandbox hides it
    return None


# The sandbox's own folders: nothing of the host's shows there to hide.
SANDBOX_OWN_FOLDERS = (Path("/proc"), Path("/dev"))


def hiding_point(secret: Path, root: Path) -> Path | None:
    """Where the sandbox hides `secret`: the path it leads to, through every link on the way
    (`~/.bashrc -> /home/u/dotfiles/bashrc`, as dotfile managers and home-manager write them;
    `~/.cache -> /scratch/cache`). bwrap follows a link in a mount's path inside the sandbox
    it is making, where an absolute one leads nowhere yet: mounted at the link's own path, one
    such secret kept every command from running. The link itself shows as it is, and reads
    what is hidden. None where it leads into the sandbox's own /proc, /dev, or /tmp (but for
    a workspace there): `~/.bash_history -> /dev/null` holds nothing of yours."""
    real = Path(os.path.realpath(secret))
    own = [*SANDBOX_OWN_FOLDERS, *([] if root.is_relative_to("/tmp") else [Path("/tmp")])]
    if any(real.is_relative_to(folder) for folder in own):
        return None
    return real


def hide_at_other_paths(root: Path, words: list[str]) -> list[str]:
    """bwrap's words that empty, at every other path the mount table shows for it, each file
    and folder that the mount `words` empty: a workspace whose folder is also mounted
    elsewhere (`/data/home` bound on `/home`) would show its `.env` there, key and all
    (tools/key_copies.py `other_paths`). Not under a folder emptied as a whole (no mount
    point can be made there, and nothing shows), nor in /tmp outside the workspace, /proc or
    /dev: the sandbox's own."""
    mounts = [mount for mount in mounts_of(words) if empties(mount)]
    if not mounts:
        return []
    table = mount_table()
    devices = collections.Counter(mount.device for mount in table)
    if all(count == 1 for count in devices.values()):
        return []  # no filesystem is mounted twice: no file has a second path
    emptied_folders = [mount_point(mount) for mount in mounts if mount[0] == "--tmpfs"]
    avoid = [*emptied_folders, Path("/proc"), Path("/dev")]
    if not root.is_relative_to("/tmp"):
        avoid.append(Path("/tmp"))
    extra: list[str] = []
    for mount in mounts:
        hidden = mount[MOUNT_OPTIONS[mount[0]]]
        for other in other_paths(Path(hidden), table, avoid):
            if other.is_relative_to("/tmp") and not other.is_relative_to(root):
                continue
            if mount[0] == "--tmpfs":
                extra += ["--tmpfs", str(other), "--remount-ro", str(other)]
            else:
                extra += ["--ro-bind", mount[1], str(other)]
    return extra


def link_to_the_home_inside(root: Path) -> Path | None:
    """A link inside the workspace on the way to planloop's home as your PLANLOOP_HOME names it
    (`project/lnk/home`, `lnk -> real`), or None."""
    given = Path(os.path.abspath(os.environ.get("PLANLOOP_HOME") or Path.home() / ".planloop"))
    for step in [*reversed(given.parents), given]:
        if os.path.islink(step) and Path(os.path.realpath(step.parent)).is_relative_to(root):
            return step
    return None


def beyond_running_tasks(
    root: Path, words: list[str], stand_ins: set[Path]
) -> tuple[list[str], list[Path]]:
    """The mounts of `words` a sandboxed command running now cannot move on the way (as
    words), and where those it could move land that hide a secret (a hooks folder's stand-in,
    `stand_ins`, hides none).

    bwrap finds where each mount goes by its path, and makes a missing one with mkdir, following
    links on the way. A background task (this session's, or another planloop session's in the
    same project or around it: `running_sandbox_pids`) shares the workspace: had it swapped a
    folder on that way for a link into bwrap's view of the host (`/oldroot/...`) at that
    moment, the next sandbox's bwrap would make a folder on the host. A task cannot rename
    what is a mount point in its own sandbox (the read-only paths and the folders pinned above
    them when it started), nor anything inside a read-only mount there (`fixed_in`). What it
    can rename it can also change or read: it was made, or protected, after the task started,
    and the task's sandbox does not protect it. So such a mount is left out of new sandboxes
    while the task runs: they hold nothing the task cannot reach already. But one that hides a
    file holding the key (you pasted it while the task ran, and its watch will stop it) cannot
    be left out, nor made safely: no command may run until the task is gone."""
    running = [points for pid in running_sandbox_pids() if (points := sandbox_mounts(pid))]
    if not running:
        return words, []
    ours = _mounts_listed(Path("/proc/self/mountinfo"))
    kept: list[str] = []
    hiding: list[Path] = []
    for mount in mounts_of(words):
        if first_movable(root, mount, running, ours) is None:
            kept += mount
        elif empties(mount) and not {written_point(mount), mount_point(mount)} & stand_ins:
            hiding.append(mount_point(mount))
    return kept, hiding


# A sandbox's mount points, each with whether it is read-only and its file system's device
# (mountinfo's `major:minor`).
Mounts = dict[str, tuple[bool, bytes]]


def first_movable(root: Path, mount: list[str], running: list[Mounts], ours: Mounts) -> Path | None:
    """The first path on the way to `mount`'s destination in the workspace (as written, and as
    followed) that a sandbox in `running` could rename, or None. `ours`: planloop's own."""
    for destination in dict.fromkeys((written_point(mount), mount_point(mount))):
        if not destination.is_relative_to(root) or destination == root:
            continue
        inside = destination.relative_to(root)
        for step in [*reversed(inside.parents[:-1]), inside]:  # outermost first
            if not all(fixed_in(points, root / step, ours) for points in running):
                return root / step
    return None


def fixed_in(mounts: Mounts, path: Path, ours: Mounts) -> bool:
    """Whether no command in a sandbox whose mounts are `mounts` can rename `path`: it is a mount
    point there, or lies inside a read-only mount, or inside one of another file system than
    planloop finds it on (`ours`): that sandbox's own empty /tmp holds none of a workspace
    under the host's /tmp."""
    if str(path) in mounts:
        return True
    theirs, here = _nearest(mounts, path), _nearest(ours, path)
    if theirs is None:
        return False
    read_only, device = theirs
    return read_only or (here is not None and here[1] != device)


def _nearest(mounts: Mounts, path: Path) -> tuple[bool, bytes] | None:
    """The mount of `mounts` that `path` lies in: the nearest folder above it that is one."""
    for folder in path.parents:
        if str(folder) in mounts:
            return mounts[str(folder)]
    return None


def sandbox_mounts(pid: int) -> Mounts | None:
    """The mounts of the sandbox that bwrap `pid` made, as bwrap's own process in there sees
    them once it has started the command; None when none runs there (yet, or any more).

    Not before: until bwrap has made every mount, its namespace is a copy of the host's, every
    mount as writable as on the host, and each path would count as movable there. It starts
    the command once it is done, so a process whose parent is bwrap's in the sandbox tells
    that it is. And never from a process of the command: one in a user namespace of its own
    can chroot into a folder, whose mount table then shows nothing that could move."""
    ours = os.readlink("/proc/self/ns/mnt")
    inits: list[int] = []  # bwrap's process in the sandbox: its parent is outside
    parents: set[int] = set()  # of the processes whose parent is in the sandbox
    for inside, _ in processes_below([pid]):
        try:
            parent = parent_of(inside)
            if parent is None or os.readlink(f"/proc/{inside}/ns/mnt") == ours:
                continue  # bwrap outside
            if os.readlink(f"/proc/{parent}/ns/mnt") == ours:
                inits.append(inside)
            else:
                parents.add(parent)
        except OSError:
            continue
    for init in inits:
        if init in parents:  # (it has started the command: the sandbox is made)
            with contextlib.suppress(OSError):
                return _mounts_listed(Path(f"/proc/{init}/mountinfo"))
    return None


def _mounts_listed(mountinfo: Path) -> Mounts:
    """The mounts a mountinfo file lists; the last at a point is the one seen there."""
    mounts: Mounts = {}
    for line in mountinfo.read_bytes().splitlines():
        fields = line.split()
        point = MOUNTINFO_ESCAPE.sub(lambda found: bytes([int(found[1], 8)]), fields[4])
        mounts[os.fsdecode(point)] = (b"ro" in fields[5].split(b","), fields[2])
    return mounts


# How /proc's mountinfo writes a blank, a tab, a line break or a backslash in a path: `\040`.
MOUNTINFO_ESCAPE = re.compile(rb"\\([0-7]{3})")


def pinned_folders(root: Path, read_only: list[Path]) -> list[str]:
    """bwrap's words that bind every folder between the workspace and a read-only path onto
    itself, outermost first.

    A mount point cannot be renamed. Pinned in every sandbox, these folders stay where they
    are while a command runs on (a background task), so it cannot swap one for a decoy just as
    the next sandbox is made, to make that sandbox's read-only bind land on the decoy and leave
    the real `.git` or hooks folder writable. Folders inside a read-only path need no pin.
    """
    folders: set[Path] = set()
    for path in read_only:
        folders.update(folder for folder in path.parents if folder.is_relative_to(root))
    folders.discard(root)  # bound already, and a mount point
    # Only existing folders pin: a missing hooks folder's missing parents are made before the
    # argv is built (Bubblewrap.wrap), so that bwrap makes none it would leave unpinned.
    folders = {folder for folder in folders if os.path.isdir(folder)}
    held = set(read_only)  # (looked up by each folder and those above it: thousands of `.env`)
    words: list[str] = []
    for folder in sorted(folders, key=lambda folder: len(folder.parts)):
        if not any(each in held for each in (folder, *folder.parents)):
            words += ["--bind-fd", sandbox_launch.pin_marker(folder), str(folder)]
    return words


# bwrap's options that mount something, and how many words follow each. `--remount-ro` belongs
# to the mount just before it.
MOUNT_OPTIONS = {
    **dict.fromkeys(("--bind", "--ro-bind", "--dev-bind", "--bind-fd", "--ro-bind-fd"), 2),
    **dict.fromkeys(("--ro-bind-try", "--symlink"), 2),
    **dict.fromkeys(("--tmpfs", "--proc", "--dev", "--remount-ro"), 1),
}


def mounts_of(words: list[str]) -> list[list[str]]:
    """bwrap's `words`, all of them mounts, one list per mount (with its `--remount-ro`).

    A word that is no mount option makes a ValueError: the order of the mounts is checked
    (`emptied_then_covered`), and an option this does not know could not be placed.
    """
    mounts: list[list[str]] = []
    position = 0
    while position < len(words):
        option = words[position]
        if option not in MOUNT_OPTIONS or position + MOUNT_OPTIONS[option] >= len(words):
            raise ValueError(f"{option!r} is not a mount option bwrap is given here")
        mount = words[position : position + 1 + MOUNT_OPTIONS[option]]
        position += len(mount)
        if option == "--remount-ro" and mounts and mounts[-1][-1] == mount[1]:
            mounts[-1] += mount
        else:
            mounts.append(mount)
    return mounts


def written_point(mount: list[str]) -> Path:
    """Where one mount (`mounts_of`) lands as its destination is written, no link followed."""
    return Path(os.path.normpath(mount[MOUNT_OPTIONS[mount[0]]]))


def mount_point(mount: list[str]) -> Path:
    """Where one mount (`mounts_of`) lands: its destination, resolved as the kernel follows it."""
    return Path(os.path.realpath(mount[MOUNT_OPTIONS[mount[0]]]))


def empties(mount: list[str]) -> bool:
    """Whether the mount shows nothing of the host's where it lands: the empty file bound over
    a secret, or an empty tmpfs (a hidden folder, a missing hooks folder's stand-in)."""
    if mount[0] == "--tmpfs":
        return True
    return mount[0] == "--ro-bind" and mount[1] == str(private_folder() / "empty")


def brings_host_files(mount: list[str]) -> bool:
    """Whether the mount shows a file or folder of the host's: a bind other than the empty file.
    `--proc` and `--dev` are the sandbox's own, fresh; a link made (`--symlink`) and a view's
    tmpfs made read-only once its entries are in (`home_views`) bring nothing."""
    own = ("--tmpfs", "--proc", "--dev", "--symlink", "--remount-ro")
    return mount[0] not in own and not empties(mount)


def in_mount_order(words: list[str]) -> list[str]:
    """bwrap's mount `words` in an order where no mount covers one that empties a path.

    bwrap mounts in argv order, and a folder bound from the host's descriptor has none of the
    sandbox's mounts inside it: bound after the empty file that hides `.vscode/.env`, the
    `.vscode` bind brings the real file, and the key in it, back. So the writable binds (the
    pins, outermost first as given) go first, then the read-only ones outermost first, and
    every mount that empties a path last, in the order given. No writable bind comes after a
    read-only one: it could make writable what is inside it.
    """
    mounts = mounts_of(words)
    bringing = sorted(
        (mount for mount in mounts if not empties(mount)),
        key=lambda mount: (mount[0].startswith("--ro-"), len(mount_point(mount).parts)),
    )
    emptying = [mount for mount in mounts if empties(mount)]
    return [word for mount in bringing + emptying for word in mount]


def emptied_then_covered(words: list[str]) -> str | None:
    """A path that one of bwrap's mount `words` empties and a later one brings back from the
    host (a bind of it or of a folder holding it), or None when there is none."""
    try:
        mounts = mounts_of(words)
    except ValueError as err:
        return f"the sandbox's mounts could not be checked: {err}"
    points = [mount_point(mount) for mount in mounts]
    for position, mount in enumerate(mounts):
        if not empties(mount) or opens_a_view(mount, mounts[position + 1 :]):
            continue
        hidden = points[position]
        for later, covering in zip(mounts[position + 1 :], points[position + 1 :], strict=True):
            if brings_host_files(later) and hidden.is_relative_to(covering):
                return f"{hidden} would be emptied, then bound again from the host by {covering}"
    return None


# How many entries the views of your homes show in all (`home_views`): each is three of bwrap's
# words, and bwrap takes 9,000 at most, with the workspace's held `.env` files (MAX_ENV_FILES_HELD,
# four words each), the files held for their links (MAX_LINKED_HELD, three each) and the hidden
# paths besides. The folders of a home shown so hold a few dozen to a few hundred entries.
MAX_VIEW_ENTRIES = 1000


def home_views(root: Path, mounts: list[str]) -> list[str]:
    """bwrap's words that show your homes, and each of their folders on the way to a secret,
    as views: an empty tmpfs with each entry that is not hidden bound back read-only onto it (a
    link made again as the same link, a folder bound whole unless it is a view in turn), each
    hidden one made empty there, and the tmpfs then made read-only.

    A bind of the empty file over a secret sits on the host's folder entry: a program of yours
    that saves the file by rename (git's credential store, `npm login`, a closing terminal's
    history) takes the bind away in every running sandbox, and a secret folder you make while
    a task runs (your first `aws configure`) is in no mount at all. In a view, the entries are
    the tmpfs's own: nothing made or replaced on the host in that folder reaches a sandbox
    that is running. `mounts`: the hiding that comes after the view, whose emptied paths the
    view makes empty too (an entry bound back would show the file again once a rename on the
    host took away the empty file bound over it).
    """
    emptied = {mount_point(mount) for mount in mounts_of(mounts) if empties(mount)}
    roots = view_roots(root)
    points = [*secrets_of_your_homes(), *emptied]
    views = view_folders(roots, points, emptied, Path(os.path.realpath(root)))
    left = [MAX_VIEW_ENTRIES]  # entries all views may still show
    words: list[str] = []
    for folder in sorted(views, key=lambda folder: len(folder.parts)):
        if folder.parent not in views:
            words += _view_of(folder, views, emptied, left)
    return words


def view_roots(root: Path) -> list[Path]:
    """Where your homes lead, as views start from them: not one in the workspace (whose files
    stay writable, their secrets hidden by binds), nor one under /tmp (each sandbox has its
    own), nor / or a folder of the system's."""
    real_root = Path(os.path.realpath(root))
    roots = []
    for home in your_homes():
        real = Path(os.path.realpath(home))
        if real.is_relative_to(real_root) or len(real.parts) < 2 or not os.path.isdir(real):
            continue
        if any(other.is_relative_to(real) or real.is_relative_to(other) for other in NEVER_HIDDEN):
            continue
        roots.append(real)
    return roots


def view_folders(
    roots: list[Path], points: list[Path], emptied: set[Path], root: Path
) -> set[Path]:
    """Each folder from a home of `roots` down to the folder of each of `points` (as they
    lead) that is there, that planloop can list, and that is neither a link, hidden whole
    (`emptied`), nor the workspace `root` or in it.

    Worked out on strings, each folder looked at once: it runs before every command, for the
    hundreds of SECRET_HOME_PATHS in each home."""
    homes = [str(home) + os.sep for home in roots]
    stops = {str(path) for path in emptied}
    inside = str(root) + os.sep
    folders: dict[str, bool] = {}  # each folder looked at: whether it is a view
    leads: dict[str, str] = {}  # where each folder of `points` leads
    for point in map(str, points):
        folder, _ = os.path.split(point)
        if os.path.islink(point):  # (`~/.aws -> dotfiles/aws`, there yet or not)
            folder = os.path.dirname(os.path.realpath(point))
        elif folder not in leads:
            folder = leads[folder] = os.path.realpath(folder)
        else:
            folder = leads[folder]
        if folder in folders:
            continue  # its way was gone down already
        home = next((home for home in homes if (folder + os.sep).startswith(home)), None)
        if home is None or (folder + os.sep).startswith(inside):
            continue  # (the workspace's own are hidden by binds over its writable files)
        at = home[:-1]
        for part in ["", *folder[len(home) :].split(os.sep)]:
            at = os.path.join(at, part) if part else at
            if at not in folders:
                workspace = (at + os.sep).startswith(inside)
                folders[at] = at not in stops and not workspace and _listable(Path(at))
            if not folders[at]:
                break
    return {Path(folder) for folder, view in folders.items() if view}


def _listable(folder: Path) -> bool:
    """Whether `folder` is a folder (not a link to one) that planloop can list and enter."""
    try:
        is_folder = stat.S_ISDIR(os.lstat(folder).st_mode)
    except OSError:
        return False
    return is_folder and os.access(folder, os.R_OK | os.X_OK)


def _view_of(folder: Path, views: set[Path], emptied: set[Path], left: list[int]) -> list[str]:
    """bwrap's words for the view of `folder` (`home_views`), its inner views in it; `left`
    counts down the entries all views may show, and past it no command runs."""
    try:
        with os.scandir(folder) as scanned:
            entries = sorted(itertools.islice(scanned, left[0] + 1), key=lambda e: e.name)
    except OSError as err:
        raise ToolError(
            f"bash: the command did not run: {folder}, which holds secrets the sandbox hides, "
            f"could not be listed to make its view ({err.strerror})."
        ) from err
    if len(entries) > left[0]:
        raise ToolError(
            f"bash: the command did not run: {folder}, which holds secrets the sandbox hides, "
            f"holds more entries than a sandbox can show around them (with the other folders "
            f"shown so, {MAX_VIEW_ENTRIES:,} at most). Tell the user: moving some of them into "
            "a folder of their own lets commands run."
        )
    left[0] -= len(entries)
    words = ["--tmpfs", str(folder)]
    for entry in entries:
        path = Path(entry.path)
        if entry.is_symlink():
            words += ["--symlink", _link_text(path), entry.path]
        elif path in emptied and entry.is_dir(follow_symlinks=False):
            words += ["--tmpfs", entry.path, "--remount-ro", entry.path]
        elif path in emptied:
            words += ["--ro-bind", str(private_folder() / "empty"), entry.path]
        elif path in views:
            words += _view_of(path, views, emptied, left)
        else:
            # `-try`: an entry removed on the host since it was listed is left out, not an error.
            words += ["--ro-bind-try", entry.path, entry.path]
    return [*words, "--remount-ro", str(folder)]


def _link_text(link: Path) -> str:
    """What `link` holds, as bwrap's `--symlink` gets it: one that reads like an option or a
    launcher's marker (`-x`, `@open:...`) with `./` before it, which leads to the same place."""
    try:
        text = os.readlink(link)
    except OSError:
        return "/nonexistent"  # (gone meanwhile: a link to nothing stands for it)
    return "./" + text if text.startswith(("-", "@")) else text


def opens_a_view(mount: list[str], later: list[list[str]]) -> bool:
    """Whether `mount` is a view's tmpfs (`home_views`), its entries bound back onto it, and
    made read-only by a `--remount-ro` of its own among the `later` mounts."""
    return len(mount) == 2 and mount[0] == "--tmpfs" and ["--remount-ro", mount[1]] in later


@functools.cache
def private_folder() -> Path:
    """A folder of planloop's own, outside any workspace, for the files bwrap is given."""
    folder = Path(tempfile.mkdtemp(prefix="planloop-sandbox-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    (folder / "empty").write_bytes(b"")  # what a hidden secret file reads as
    return folder


@functools.cache
def seccomp_filter_file() -> Path | str:
    """The unix-socket filter, written once to planloop's private folder; or why there is none."""
    try:
        program = unix_socket_filter()
    except UnsupportedMachine as err:
        return str(err)
    path = private_folder() / "unix-sockets.bpf"
    path.write_bytes(program)
    return path


class Bubblewrap:
    """Run the command in bubblewrap: read-only system, writable workspace, no network."""

    confines_writes = True
    # A pid namespace and --die-with-parent: its processes die with planloop, no supervisor needed.
    confines_processes = True

    def __init__(
        self,
        allow_network: bool = False,
        allow_read: Iterable[Path] = (),
        user_namespace: bool | None = None,
    ) -> None:
        self.allow_network = allow_network
        self.allow_read = list(allow_read)
        # As root, a user namespace makes the sandbox's root powerless outside it.
        self.user_namespace = (
            os.geteuid() == 0 and user_namespace_works()
            if user_namespace is None
            else user_namespace
        )
        # Why commands must ask first although sandboxed (set once, said once), or None.
        filter_file = seccomp_filter_file()
        self.filter_file = filter_file if isinstance(filter_file, Path) else None
        self.must_ask: str | None = (
            None if self.filter_file else f"{filter_file}, so unix sockets cannot be refused"
        )
        # Read-only mounts do not stop a write to a FIFO, socket or device outside the
        # workspace; Landlock does (tools/landlock.py). Without it, commands ask first.
        self.landlock = LANDLOCK_PYTHON is not None and landlock.abi_version() > 0
        if not self.landlock and not self.must_ask:
            missing = (
                "no Python 3 this user can run was found for it"
                if LANDLOCK_PYTHON is None
                else "this kernel has no Landlock (Linux 5.13 or newer, with Landlock on)"
            )
            self.must_ask = (
                f"{missing}, so a command could write to pipes and devices outside the "
                "workspace; sandboxed commands ask before they run"
            )
        self.notify: Callable[[str], None] | None = None  # the terminal, set by the CLI
        self.created: list[str] = []  # every .env / .git a command made, for the closing note
        # Why a command could read the key after all (tools/bind_watch.py), not yet acted on:
        # middleware/exposure.py stops the run, or asks, and empties it.
        self.exposures: list[str] = []
        self.placed_git_dirs: set[Path] = set()
        self.scan_cache: dict[str, FolderListing] = {}  # folder listings, reused while unchanged
        # What code_inside last found, and for which workspace and import state.
        self.code_check: tuple[tuple, str | None] = ((), None)
        self.skipped: dict[Path, str] = {}  # protected paths that could not be bound, and why
        self.skips_reported: set[Path] = set()
        # Protected names no bind could hold for being neither a file nor a folder (a FIFO),
        # with what stood there: one a command then made a file is told as a new one.
        self.not_files: dict[Path, tuple[int, int, int]] = {}
        # Missing hooks folders an empty read-only stand-in was mounted for (see `wrap`).
        self.hooks_stand_ins: set[Path] = set()
        # Package folders held read-only for their hard links (`hard_linked_packages`): said?
        self.packages_held: dict[Path, bool] = {}
        # Files held read-only for a name outside the workspace (`files_linked_outside`): said?
        self.linked_held: dict[Path, bool] = {}
        self.search_cut_said = False  # the search for copies of the key stopped at a bound
        self.searches_key_copies = True  # not the start-up probe's: it runs `true`, reads nothing
        self.started_in: set[Path] = set()  # workspaces `before_command(starting=True)` began

    @property
    def description(self) -> str:
        """What the model is told, so a read-only error does not surprise it."""
        network = "" if self.allow_network else " There is no network."
        return (
            " Commands run in a sandbox: only the workspace is writable, and not its .git "
            "folders, git hooks, existing .env files (one that holds planloop's own API key "
            "appears empty) or the configuration host tools run on their own (.vscode, .idea, "
            f".direnv, .hg, .jj, .sl, mise's files, ...). {GIT_WRITES_REFUSED} /tmp is private "
            "and empty, secrets in the home folder (~/.ssh, ~/.aws, ...) appear empty, and unix "
            f"sockets (and vsocks) cannot be opened, nor hard links made (tools see a link "
            f"between two file systems, and copy).{network}"
        )

    def before_command(self, workspace: Path, starting: bool = False) -> WorkspaceScan:
        """Scan the workspace for what to protect; the result is also `after_command`'s base.
        `starting`: planloop starts, and no command follows yet; the workspace is watched from
        the search's start until the first command (between_commands.py).

        When this scan finds that the sandbox can no longer keep its promise, `must_ask` is set
        from now on, and the scan says so in `confinement_lost`: the command waiting for it was
        let through unasked, on the promise that no longer holds, so `wrap` refuses it.
        """
        scan = scan_workspace(workspace, cache=self.scan_cache)
        scan.python_start = python_start_files(scan.package_roots)
        root = real_workspace(workspace)  # (WorkspaceMoved if it is not the same folder)
        # Started at the first command (planloop's start, cli/app.py), in a thread: the
        # search for copies of the key is done, or nearly, when the first command runs.
        search = key_copy_search(root, hidden_paths(self.allow_read, root))
        if self.searches_key_copies:
            # And what came to hold it since the command before ended (between_commands.py);
            # one with a name not found is the search's `linked`, which `wrap` refuses on.
            linked = search.linked if search is not None else None
            KEY_FILES.update(dict.fromkeys(key_files_written_between(root, self._tell, linked)))
            if starting:
                watch_until_the_next_command(root)  # the search has listed what it reads
        if starting:
            self.started_in.add(root)
        try:
            scan.run_later = run_later_state(root, scan)
            scan.held_when_there = identities(held_when_there_paths(root, scan))
            cannot = None if self.must_ask else self._cannot_confine(root, scan)
        except (ValueError, UnicodeError) as error:
            # A file of the workspace names what no path can be (a NUL byte, a lone
            # surrogate): what host tools run from it cannot be told, so commands ask.
            cannot = f"a file of the workspace names a path no file can have ({error})"
            if isinstance(error, WordTooLong):
                cannot = (
                    f"a file of the workspace holds {error}, so planloop cannot tell what it runs"
                )
        if not self.must_ask:
            self.must_ask = cannot
            if self.must_ask:
                scan.confinement_lost = self.must_ask
                self._tell(f"planloop: {self.must_ask}.")
        return scan

    def reading_once(self) -> contextlib.AbstractContextManager:
        """A span in which the workspace's host tool settings are read once
        (tools/tool_scripts.py `read_once`): one command made ready, or taken stock of."""
        return read_once()

    def watch_from_now(self, workspace: Path) -> None:
        """Watch the workspace until the next command from now on: called as a command or a
        background task ends, before its own watch takes its last look, and once a task's
        own watch has begun, so that the two overlap and no moment goes unwatched
        (tools/between_commands.py)."""
        if self.searches_key_copies:
            watch_until_the_next_command(real_workspace(workspace))

    def written_while_it_started(self, workspace: Path) -> dict[str, str]:
        """The key files the watch between commands saw exposed while the command was made
        ready, as `FolderWatch.finish` gives them; called once the command's own watch has
        begun, which counts them as its own (tools/between_commands.py)."""
        if not self.searches_key_copies:
            return {}
        return key_files_written_while_it_started(real_workspace(workspace))

    def _cannot_confine(self, root: Path, scan: WorkspaceScan) -> str | None:
        """Why sandboxed commands must ask before they run in `root`, or None."""
        changeable = self.code_inside(root)
        if changeable:
            # Both run outside the sandbox before every command: one that a command could
            # replace would run the next command's choice of code unconfined.
            return (
                f"{changeable} lies inside the workspace, where commands could change it, "
                "so sandboxed commands ask before they run"
            )
        private = Path(os.path.realpath(private_folder()))
        if private.is_relative_to(root):
            # The filter bwrap loads before every command, and the empty file bound over hidden
            # secrets, are read from there: a command could loosen the next command's sandbox.
            return (
                f"planloop's private folder {private} lies inside the workspace (it is made in "
                "TMPDIR or /tmp), where commands could change the sandbox's own files, so "
                "sandboxed commands ask before they run; set TMPDIR to a folder outside it"
            )
        link = link_to_the_home_inside(root)
        if link is not None:
            # A link cannot be bound read-only: a command could point it at a home of its own
            # (saved rules, confirmed endpoints, sessions), which the next start would use.
            return (
                f"PLANLOOP_HOME reaches planloop's home through the link {link}, which lies "
                "inside the workspace, where a command could point it elsewhere, so sandboxed "
                "commands ask before they run; set PLANLOOP_HOME to the folder itself"
            )
        linked = files_linked_outside(root, scan)
        if len(linked) > MAX_LINKED_HELD:
            return (
                f"the workspace holds {len(linked):,} files with another name outside it (hard "
                f"links, such as {shown(root, linked[0])}), more than the sandbox holds read-only "
                f"({MAX_LINKED_HELD}), so sandboxed commands ask before they run"
            )
        path_unheld = path_folders_in(root)[1]
        if path_unheld:
            return (
                f"{path_unheld}: a program a command put there would run when you type its "
                "name, and no read-only bind can hold it, so sandboxed commands ask before "
                "they run"
            )
        known = scan.run_later  # `before_command` looked already: reading shells' files is slow
        later = (
            run_later_paths(root, scan)
            if known is None
            else [(path, why) for path, (why, _) in known.items()]
        )
        too_big = config_too_big(root, scan)  # a `.git/config` padded past 1 MiB
        if too_big:
            return f"{too_big}, so sandboxed commands ask before they run"
        later_unheld = run_later_not_held(root, later)
        if later_unheld:
            return (
                f"{later_unheld}: what a command put there would run outside the sandbox later, "
                "and no read-only bind can hold it, so sandboxed commands ask before they run"
            )
        untold = untold_by_envrcs(root, envrcs_of(scan)) or untold_by_your_shell(root)
        if untold:
            # What it loads, sources or puts on PATH may be any file, written now and run by
            # direnv, or by your next shell.
            return (
                f"{untold}, {ANY_FILE_MAY_RUN}: sandboxed commands ask before they run, "
                f"{FILE_TOOLS_ASK_TOO}"
            )
        linked = home_link_to_workspace(root)
        if linked:
            return (
                f"{linked} links to the workspace (or a folder holding it), so what commands "
                "write here your shell or editor reads as your own settings; sandboxed "
                "commands ask before they run"
            )
        homes = [Path(os.path.realpath(home)) for home in your_homes()]
        for home in (home for home in homes if home.is_relative_to(root)):
            # The shell's and git's start-up files there (~/.bashrc, ~/.gitconfig, ...) run
            # outside the sandbox later, each time the person opens a terminal or runs git.
            return (
                f"your home folder {home} lies inside the workspace, where commands could "
                "change what your shell and git run, so sandboxed commands ask before they run"
            )
        if root in scan.git_entries:
            # The workspace itself is a git directory (a bare repository, `git init --bare .`):
            # its config and hooks cannot be made read-only without the whole workspace.
            return (
                "the workspace itself is a git repository by its content (HEAD, objects/, "
                "refs/), whose config and hooks git obeys, so sandboxed commands ask before "
                "they run"
            )
        if scan.incomplete:
            return f"{scan.incomplete}, so sandboxed commands ask before they run"
        options = [path for path in scan.option_named if "node_modules" not in path.parts]
        if options:
            # Staged, it reaches a linter as an option: what that loads (`--plugin=p.mjs`'s
            # p.mjs, which a command may rewrite) is the name's to say, not any config's.
            return (
                f"{shown(root, options[0])} is in the workspace: {OPTION_NAME_REASON}, so "
                "sandboxed commands ask before they run"
            )
        if ignores_case(root):
            # A bind holds one spelling; on FUSE or 9p (WSL's /mnt/c) `.GIT/hooks` is another
            # way to the same folder, past it.
            return (
                "the workspace's file system ignores letter case (`.GIT` is `.git`), so a "
                "command could write a protected path by another spelling; sandboxed commands "
                "ask before they run"
            )
        passable = next((p for p in scan.closed_folders if os.access(p, os.X_OK)), None)
        if passable:
            # Entered by name though planloop cannot list it (`chmod 311`): a key file in it
            # can be neither found nor hidden, and a command reads it by its name.
            return (
                f"{passable} can be entered but not listed by planloop, so a key file in it "
                "could be read unseen; sandboxed commands ask before they run (`chmod u+r` "
                "it to let planloop look)"
            )
        your_git = (str(Path.home()), *(os.environ.get(name, "") for name in GIT_CONFIG_VARIABLES))
        if cut := git_includes_cut(*your_git):  # (the keys past it are not hidden)
            return f"{cut}, so sandboxed commands ask before they run"
        if unread := keys_untold():  # (read with the keys your configs name, before)
            return f"{unread}, so sandboxed commands ask before they run"
        unheld = git_path_not_held(root, scan) or git_program_not_held(root, [*scan.git_entries])
        settings = host_tool_settings(root, scan)
        git_untold = any_file_git_may_run(root, [*scan.git_entries])
        any_file = f"{git_untold}, {ANY_FILE_MAY_RUN}" if git_untold else None
        any_file = any_file or (None if unheld else any_file_may_run(root, settings))
        if any_file:
            return f"{any_file}: sandboxed commands ask before they run, {FILE_TOOLS_ASK_TOO}"
        unheld = unheld or tool_script_not_held(root, settings)
        unheld = unheld or per_file_config_not_held(root, settings, scan.per_file_configs)
        if unheld:
            return f"{unheld}, so sandboxed commands ask before they run"
        unheld = home_link_not_held(root) or path_link_not_held(root)
        unheld = unheld or hard_link_not_held(root, scan) or home_file_hard_linked(root)
        unheld = unheld or held_folder_link_not_held(root, scan)
        unheld = unheld or dangling_link_not_held(root, scan)
        if unheld:
            return f"{unheld}, so sandboxed commands ask before they run"
        return None

    def code_inside(self, root: Path) -> str | None:
        """The first of bwrap, the launcher and planloop's code folders inside `root`, if any.

        Resolving every folder planloop imports from takes about 10 ms, so it is done again
        only when the workspace or the import state changed (a module loaded since may come
        from a new folder).
        """
        key = (root, len(sys.path), len(sys.modules))
        if self.code_check[0] != key:
            programs = (LAUNCHER_PYTHON, BWRAP, LANDLOCK_PYTHON, *planloop_code_folders())
            inside = (p for p in programs if p and Path(os.path.realpath(p)).is_relative_to(root))
            self.code_check = (key, next(inside, None))
        return self.code_check[1]

    def secrets_not_there(self) -> frozenset[str]:
        """The secrets of your home a sandbox would hide, were they there (`secret_paths`)."""
        return frozenset(str(path) for path in secret_paths() if not os.path.lexists(path))

    def _made_files(self, root: Path) -> list[Path]:
        """Those of `not_files` in `root` that a command made a file or folder since."""
        made = []
        for path, was in list(self.not_files.items()):
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)) and path.is_relative_to(
                root
            ):
                del self.not_files[path]
                if link_identity(info) != was:
                    made.append(path)
        return made

    def after_command(self, workspace: Path, before: WorkspaceScan) -> list[str]:
        """Notes for the tool result about each `.env*` or `.git` the command created.

        Nothing is deleted: the person is told, here and at exit, and decides.
        """
        root = real_workspace(workspace)
        if self.searches_key_copies:
            watch_until_the_next_command(root)  # a key pasted meanwhile (between_commands.py)
        after = scan_workspace(root, cache=self.scan_cache)
        started = before.python_start
        python_start = [
            path
            for path, identity in python_start_files(after.package_roots).items()
            if started.get(path) != identity
        ]
        existed = set(before.env_files)
        new_env = [path for path in after.env_files if path not in existed]
        option_named = set(before.option_named)
        new_options = [path for path in after.option_named if path not in option_named]
        links = before.protected_links
        replaced_links = [path for path, was in links.items() if replaced(path, was)]
        configured = set(before.tool_configs)
        new_configs = [path for path in after.tool_configs if path not in configured]
        # A site-packages a command replaced by a link (or made as one): python follows it to
        # the start-up files there, wherever it leads.
        new_package_links = sorted(
            path
            for path in after.package_links - before.package_links
            if path.name in SITE_FOLDER_NAMES
        )
        made = made_since(before.held_when_there, held_when_there_paths(root, after))
        new_git = [
            path
            for path, identity in after.git_entries.items()
            if before.git_entries.get(path) != identity and not self._is_placeholder(path)
        ]
        notes = []
        for path, why_not in self.skipped.items():
            if path not in self.skips_reported and path.is_relative_to(root):
                self.skips_reported.add(path)
                notes.append(f"[sandbox: {shown(root, path)} was not made read-only: {why_not}]")
        notes += self._packages_held_notes(root)
        notes += self._linked_held_notes(root)
        for path in new_env:
            name = shown(root, path)
            self._record(f"{name} (a new .env file)")
            notes.append(
                f"[{name} is a new .env file. It was kept, and the user was told: .env files "
                "steer where API keys go. Change .env files with write_file, which asks.]"
            )
        for path in replaced_links:
            name = shown(root, path)
            why = protected_reason(root, path) or VENV_LINK_REASON  # (what it leads to now)
            self._record(f"{name} (a link replaced)")
            notes.append(
                f"[{name} was replaced by the command (it was a link, which no read-only bind "
                f"holds). It was kept, and the user was told: {why}. "
                "Change such files with write_file, which asks.]"
            )
        for path in after.closed_folders:
            if path not in before.closed_folders:
                # What a command put in a folder it then closed (chmod 311: the person's shell
                # and git can still enter it) cannot be known, let alone reported.
                name = shown(root, path)
                self._record(f"{name} (a folder closed to planloop; what is in it is unchecked)")
                notes.append(f"[{name} can no longer be read by planloop; the user was told.]")
        if after.incomplete and not before.incomplete:
            self._record(f"what the command made where the scan stopped ({after.incomplete})")
        for path in self._made_files(root):
            name = shown(root, path)
            self._record(f"{name} (made a file where a FIFO or the like stood)")
            notes.append(
                f"[{name} is a file now; it was not read-only while the command ran (it was "
                "neither a file nor a folder). It was kept, and the user was told: "
                f"{protected_reason(root, path) or 'it is protected'}. Change such files with "
                "write_file, which asks.]"
            )
        for path in new_configs:
            name = shown(root, path)
            self._record(f"{name} (a host tool's configuration)")
            why = protected_reason(root, path)
            notes.append(
                f"[{name} is new. It was kept, and the user was told: {why}. Change such "
                "files with write_file, which asks.]"
            )
        for path in new_options:
            name = shown(root, path)
            self._record(f"{name} (a name a formatter takes for an option)")
            notes.append(
                f"[{name} is new. It was kept, and the user was told: {OPTION_NAME_REASON}.]"
            )
        for path in new_package_links:
            name = shown(root, path)
            self._record(f"{name} (a site-packages folder made a link)")
            notes.append(
                f"[{name} is now a link. It was kept, and the user was told: "
                f"{PYTHON_START_REASON}. Install packages outside the sandbox.]"
            )
        reasons: dict[Path, str] = {}
        for path, why in made:
            reasons.setdefault(path, why)  # each path told once, with the first reason found
        for path, why in reasons.items():
            if path in python_start:
                continue  # told below, as a site folder's start-up file
            name = shown(root, path)
            runs = {
                PYTHON_PATH_REASON: "python runs it at start",
                NPM_SETTINGS_REASON: "a package manager reads it for the scripts a host tool runs",
                PYTHON_MODULE_REASON: "python imports it for a program git or a host tool runs",
                PYTHON_FOLDER_REASON: "python takes modules from here for a program git or "
                "a host tool runs",
                PYTHON_NEW_MODULE_REASON: "python takes modules from here for a program git "
                "or a host tool runs",
                NODE_PACKAGE_REASON: "node or npm takes it by name for a program a host tool runs",
                BUILD_FILE_REASON: "a build tool a host tool runs reads it",
                COMPOSE_REASON: "docker compose reads it for a host tool",
                LOCAL_PACKAGE_REASON: "a host tool's install runs its install scripts",
                PER_FILE_CONFIG_REASON: "a linter or hook runner a host tool runs reads it",
                EDITOR_CODE_REASON: "an editor extension loads code from it",
                EDITOR_PROGRAM_REASON: "an editor extension runs it",
                EDITOR_ENV_FILE_REASON: "an editor extension loads its variables",
                PATH_VARIABLE_REASON: "a PATH a host tool sets names it",
                YOUR_CONFIG_REASON: "a program your own configuration sets up, your editor, "
                "tmux, ssh or your shell, may run it",
                YOUR_ENVIRONMENT_REASON: "a program that reads a variable of your environment "
                "may run it",
            }.get(why, "your shell or direnv runs it later")
            if why.startswith("git's hook"):
                runs = "git's hook runs it at your next commit"
            self._record(f"{name} ({runs})")
            asks = "" if why in TOLD_ONLY else " Change such files with write_file, which asks."
            notes.append(f"[{name} is new. It was kept, and the user was told: {why}.{asks}]")
        for path in python_start:
            name, new = shown(root, path), path not in started
            self._record(f"{name} ({'a new' if new else 'a changed'} python start-up file)")
            notes.append(
                f"[{name} {'is new' if new else 'was changed'}. It was kept, and the user was "
                f"told: {PYTHON_START_REASON}. Change such files with write_file, which asks.]"
            )
        notes += self._run_later_notes(root, before, after)
        for path in self._hooks_filled():
            name = shown(root, path)
            self._record(f"{name} (a new git hooks folder)")
            notes.append(
                f"[{name} is a new git hooks folder. It was kept, and the user was told: git on "
                f"the host runs the hooks in it. {GIT_WRITES_REFUSED}]"
            )
        for path in new_git:
            name = shown(root, path) if path != root else "the workspace itself"
            self._record(f"{name} (a new git repository)")
            # Git metadata in the workspace's own folder cannot be made read-only: from now
            # on commands ask (before_command), which the model learns here.
            after = GIT_WRITES_REFUSED if path != root else "Commands now ask the user first."
            notes.append(
                f"[{name} is a new git repository. The user was told: git on the host obeys its "
                f"config and hooks. {after}]"
            )
        return notes

    def _run_later_notes(
        self, root: Path, before: WorkspaceScan, after: WorkspaceScan
    ) -> list[str]:
        """Notes (and records for the exit) for each path something of yours runs later
        (`run_later_paths`) that is there now and was not, or is not the same: a virtualenv a
        command made (pyvenv.cfg and a bin/ of its own), a file an `.envrc` names that it
        wrote. From the next command on such a path is held as if it were yours, so it is said
        at once, like a new host tool's configuration."""
        if before.run_later is None:
            return []  # not a scan `before_command` made: nothing to compare with
        notes = []
        said: set[str] = set()
        for path, (why, identity) in run_later_state(root, after).items():
            was = before.run_later.get(path)
            if identity is None or (was is not None and was[1] == identity):
                continue  # missing (commands ask: `not_held`), or as it was
            real = os.path.realpath(path)
            if real in said:
                continue  # the same file under its resolved name
            said.add(real)
            name, new = shown(root, path), was is None or was[1] is None
            what = why.split(" is protected")[0]
            self._record(f"{name} ({what}, {'new' if new else 'changed'})")
            notes.append(
                f"[{name} {'is new' if new else 'changed while the command ran'}. It was kept, "
                f"and the user was told: {why}. Change such files with write_file, which asks.]"
            )
        return notes

    @staticmethod
    def explain(output: str, returncode: int | None) -> list[str]:
        """A note for the model when a command failed because git metadata, or a virtualenv's
        installed packages, are read-only here."""
        read_only = "Read-only file system" in output or "Device or resource busy" in output
        notes = []
        if returncode and read_only and ".git" in output:
            notes.append(f"[sandbox: {GIT_WRITES_REFUSED}]")
        if returncode and read_only and any(name in output for name in SITE_FOLDER_NAMES):
            notes.append(f"[sandbox: {PACKAGES_REFUSED}]")
        return notes

    def closing_report(self) -> str:
        """One sentence for planloop's exit, or "" when commands created nothing to check."""
        if not self.created:
            return ""
        return (
            "These appeared while sandboxed commands ran; check them before you use git, load a "
            ".env, open the folder in an editor or start another agent in it: "
            + ", ".join(self.created)
            + "."
        )

    def wrap(
        self,
        workspace: Path,
        command: str,
        snapshot: WorkspaceScan | None = None,
        launching: bool = True,
    ) -> tuple[list[str], dict[str, str]]:
        """The argv (launcher, then bwrap) and environment; `snapshot` is `before_command`'s.
        `launching`: False for a sandbox only looked at (`view_now`), never made."""
        root = real_workspace(workspace)
        if snapshot is None:
            snapshot = self.before_command(root)
        if snapshot.confinement_lost and permission_was_checked():
            raise ToolError(
                f"bash: the command did not run: {snapshot.confinement_lost}. It was let "
                "through unasked just before that was found. Send it again: the user is asked "
                "first now (a headless run without --yes refuses it)."
            )
        try:
            return self._sandboxed(root, command, snapshot, launching)
        except (ValueError, UnicodeError) as error:
            # A file of the workspace names what no path can be (a NUL byte, a lone
            # surrogate): before_command made commands ask, and no sandbox can be built either.
            raise ToolError(
                "bash: the command did not run: a file of the workspace names a path no file "
                f"can have ({error}), so planloop cannot tell what to protect. Ask the user to "
                "fix that file (`git status` shows what changed)."
            ) from None

    def _sandboxed(
        self, root: Path, command: str, snapshot: WorkspaceScan, launching: bool = True
    ) -> tuple[list[str], dict[str, str]]:
        """`wrap`'s argv and environment, once the workspace is scanned."""
        if len(snapshot.env_files) > MAX_ENV_FILES_HELD:
            # bwrap takes 9,000 words at most, and each file held is three or four of them;
            # working out thousands of binds would also hold the event loop for seconds.
            raise ToolError(
                f"bash: the command did not run: the workspace holds {len(snapshot.env_files):,} "
                f".env files, more than a sandbox can keep read-only ({MAX_ENV_FILES_HELD:,}). "
                "Tell the user: removing the ones not needed lets commands run."
            )
        argv = ["--ro-bind", "/", "/"]
        under_tmp = root.is_relative_to("/tmp")
        if under_tmp:
            # The workspace must be mounted over the empty /tmp, not hidden under it.
            argv += ["--tmpfs", "/tmp"]
        # By a descriptor the launcher opens and checks (no link on the way): between this
        # look and bwrap's, a command of another session whose workspace holds this one could
        # have moved it and put a link to anywhere in its place.
        argv += ["--bind-fd", sandbox_launch.pin_marker(root), str(root)]
        if not os.path.lexists(root / GIT_DIR_NAME) and os.access(root, os.W_OK):
            # An empty read-only .git: `git init` fails here, and git on the host ignores an
            # empty .git and looks further up, as if it were not there.
            # It stays until planloop exits: removed while a background task runs, it would
            # no longer cover .git in that task's sandbox, which could then make a repository.
            if root / GIT_DIR_NAME not in self.placed_git_dirs:
                atexit.register(self._remove_placeholder, root)
            self.placed_git_dirs.add(root / GIT_DIR_NAME)
            argv += ["--tmpfs", str(root / GIT_DIR_NAME), "--remount-ro", str(root / GIT_DIR_NAME)]
        above_hooks = git_paths_around(root.parent, root)[0]
        candidates = read_only_candidates(root, snapshot)
        for folder in hard_linked_packages(root, snapshot):  # files shared with a cache outside
            candidates.append(folder)
            if folder not in self.packages_held:
                self.packages_held[folder] = False  # said once, in after_command's notes
        for path in files_linked_outside(root, snapshot):  # in candidates already
            self.linked_held.setdefault(path, False)  # said once, in after_command's notes
        protected: list[str] = []  # bwrap's words for the protected paths, in order
        env_files = set(snapshot.env_files)
        read_only: list[Path] = []  # where they resolve to
        # Each `.env` is read and judged for the key (up to 16 MiB each: some 0.7 s) while the
        # event loop waits: a Ctrl-C or SIGTERM meanwhile stops here, and the command does not run.
        signals = SignalCheck()
        for path in dict.fromkeys(candidates):
            if why := signals.stop_why():
                raise ToolError(f"bash: the command did not run: {why} as its sandbox was made.")
            if path == root:
                continue  # the workspace as a git directory: must_ask stands for it instead
            if path in self.hooks_folders(snapshot, above_hooks) and not os.path.lexists(path):
                real = Path(os.path.realpath(path))
                # Inside a folder bound read-only as a whole (a bare repository's own hooks),
                # no command can create it, and no mount point could be made for a stand-in.
                covered = any(
                    real.is_relative_to(os.path.realpath(other)) and os.path.isdir(other)
                    for other in candidates
                    if other != path and other != root
                )
                if real.is_relative_to(root) and not covered:
                    # A hooks folder git would use but that is missing: an empty read-only one
                    # stands in its place, so no command can create it with a hook inside.
                    # Its missing parents are made here, beneath the workspace without following
                    # a link out, so that they exist now and are pinned like any other: made
                    # by bwrap, they could be renamed away, stand-in and all.
                    with (
                        contextlib.suppress(OSError, ToolError),
                        located(root, str(path), make_parents=True),
                    ):
                        pass
                    protected += ["--tmpfs", str(path), "--remount-ro", str(path)]
                    read_only.append(Path(os.path.realpath(path)))  # its folders are pinned too
                    self.hooks_stand_ins.add(path)
                continue
            why_not = not_bindable(root, path)
            if why_not:
                self.skipped.setdefault(path, why_not)  # said once, in after_command's notes
                if why_not == NOT_A_FILE_OR_FOLDER:  # a FIFO: a command may make it a file
                    with contextlib.suppress(OSError):
                        self.not_files[path] = link_identity(os.lstat(path))
                if path in env_files:
                    protected += hide_key_outside(path)
                continue
            read_only.append(Path(os.path.realpath(path)))
            # The launcher opens and checks each one again: it may have changed since.
            protected += ["--ro-bind-fd", sandbox_launch.open_marker(path), str(path)]
            if path in env_files and holds_known_secret(path):
                # The key planloop sends with every request: no command may read it, so the
                # file that holds it appears empty (bound over the read-only binds, after them:
                # `in_mount_order`).
                protected += ["--ro-bind", str(private_folder() / "empty"), str(path)]
        hidden = hidden_paths(self.allow_read, root)
        # A hidden secret's other name in the workspace is hidden by that name too, and so is
        # one in your homes, which are shown whole but for the way to each secret.
        in_workspace = hard_linked_secrets(files_linked_outside(root, snapshot), hidden)
        in_homes, unfound = secrets_linked_in_homes(view_roots(root), hidden, in_workspace, root)
        hidden += in_workspace + in_homes
        if unfound:
            self._ask_from_now(unfound)
        # Copies of the key in your other projects and config files, found by their content
        # (tools/key_copies.py): hidden like any file a sandbox of this run emptied.
        search = key_copy_search(root, hidden) if self.searches_key_copies else None
        if search is not None:
            found = search.result()
            if found is None:
                raise ToolError(
                    "bash: the command did not run: it was stopped (Ctrl-C, or planloop is "
                    "ending) while the search for copies of the API key, which it waits for, ran."
                )
            KEY_FILES.update(dict.fromkeys(found))
            if search.linked:
                # A copy of the key with another name in the workspace that the search did not
                # reach in time: hidden at the names found, it would be read at that one.
                self._tell(
                    f"planloop: {search.linked[0]} holds the API key and has another name in "
                    "the workspace that the search could not find in time (`find . -samefile` "
                    "finds it); no command runs in this run: remove that name and start again."
                )
                raise ToolError(
                    "bash: the command did not run: a file that holds planloop's API key has "
                    "another name in the workspace that the sandbox cannot hide; the user was told."
                )
            if search.cut_short and not self.search_cut_said:
                self.search_cut_said = True
                self._tell(cut_short_notice(search))
            unread = search.workspace_left()
            if unread is not None:
                # A repository can ship files enough to stop the search before it reaches the
                # one the person keeps the key in: no command may count on its being hidden.
                self._ask_from_now(
                    f"the search for copies of the API key stopped ({search.cut_short}) before "
                    f"it had read all of {unread}, where a copy could be read unseen, so "
                    "sandboxed commands ask before they run"
                )
        for path in snapshot.key_files:  # docker.env, .envs/.local/.django
            hiding = hide_key_outside(path)
            protected += hiding
            if hiding:  # pinned, as read-only paths are: its folder cannot be moved away
                read_only.append(Path(os.path.realpath(path)))
        remembered = remembered_key_files(root)
        # Those in the workspace are pinned like a read-only path: moved away with their
        # folder, a file would be read by its new name in the next command. So are the hidden
        # ones (planloop's home set to `state/home`): `mv state state2` would take the real
        # home out of the next sandbox's hiding, which would cover a new, empty one.
        inside = [Path(os.path.realpath(path)) for path in [*remembered, *hidden]]
        read_only += [path for path in inside if path.is_relative_to(root)]
        mounts = pinned_folders(root, read_only) + protected + hide_keys_above(root)
        mounts += hide_keys_loaded_as_settings(root, snapshot)
        mounts += hide_keys_in_system_files()
        mounts += hide_remembered_keys(mounts, remembered)
        for path in filter(None, (hiding_point(path, root) for path in hidden)):
            if os.path.isdir(path):
                mounts += ["--tmpfs", str(path), "--remount-ro", str(path)]
            else:
                mounts += ["--ro-bind", str(private_folder() / "empty"), str(path)]
        mounts += hide_at_other_paths(root, mounts)
        if launching:
            # What a running task could move is left out (its notes say so: tools/tasks.py,
            # `compare_sandboxes`); a hidden secret there stops the command instead.
            # (As written and as followed now: a task swapping a folder on the way meanwhile
            # must not make a stand-in pass for a hidden secret.)
            stand_ins = {Path(os.path.realpath(path)) for path in self.hooks_stand_ins}
            stand_ins |= {Path(os.path.normpath(path)) for path in self.hooks_stand_ins}
            mounts, hiding = beyond_running_tasks(root, mounts, stand_ins)
            if hiding:
                shown = ascii(os.path.relpath(hiding[0], root))[1:-1]
                raise ToolError(
                    f"bash: the command did not run: {shown} holds the API key or a secret, and "
                    "a sandboxed background task that started before (of this session or of "
                    "another planloop session here) could move it while this command's sandbox, "
                    "which hides it, is made. Stop the task (task_stop) or wait until it ends, "
                    "then send the command again."
                )
        # Your homes shown as views (`home_views`), right after / itself: the workspace, /tmp,
        # the protected paths and the hiding above are mounted over them as before.
        argv[3:3] = home_views(root, mounts)
        argv += in_mount_order(mounts)
        if not under_tmp:
            argv += ["--tmpfs", "/tmp"]
        # The sandbox's own /proc and /dev come last, so that nothing bound above covers them.
        argv += ["--proc", "/proc", *KERNEL_SETTINGS_READ_ONLY, "--dev", "/dev"]
        uncovered = emptied_then_covered(argv)
        if uncovered:
            # What the sandbox hides (planloop's key, ~/.ssh) would show: run nothing.
            raise ToolError(f"bash: the command did not run: {uncovered}")
        if self.user_namespace:
            argv.append("--unshare-user")
        # No capability: not even root can remount / read-write. A new pid namespace (its
        # init's death kills everything in it), the command dies with planloop, and a new
        # session so it cannot push keys into our terminal.
        argv += ["--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--die-with-parent"]
        argv.append("--new-session")
        if not self.allow_network:
            argv.append("--unshare-net")
        if self.filter_file is not None:
            argv += ["--seccomp", sandbox_launch.open_marker(self.filter_file, check=False)]
        argv += ["--chdir", str(root), "--"]
        if self.landlock:
            # The workspace and the sandbox's own /tmp and /dev: nothing else is written. The
            # step opens the workspace by its path, as bwrap bound it; a task of another session
            # can swap that path for a link meanwhile, so the step checks it opened the folder
            # planloop pinned (`=DEV:INO`).
            pinned = workspace_identity(root)
            step = [LANDLOCK_PYTHON, "-I", "-S", "-c", LANDLOCK_SOURCE, str(root), pinned]
            argv += [*step, "/tmp", "/dev", "--"]
        argv += ["/bin/bash", "-c", command]
        launcher = [LAUNCHER_PYTHON, "-I", "-S", "-c", LAUNCHER_SOURCE, str(root), str(os.getpid())]
        launcher.append(BWRAP or "bwrap")
        environment = clean_environment()
        if self.landlock:  # its step says when bwrap is done (tools/process.py: start_command)
            environment[landlock.READY_VARIABLE] = ""
        return launcher + argv, environment

    def view_of(self, argv: list[str]) -> tuple[frozenset[str], frozenset[str]]:
        """What a sandbox made by `wrap` holds read-only, and what it shows empty (the files
        holding the key, and your secrets), read back from its argv."""
        empty = str(private_folder() / "empty")
        words = argv[: argv.index("--")] if "--" in argv else argv
        held, hidden = set(), set()
        for word, first, second in zip(words, words[1:], words[2:], strict=False):
            if word in ("--ro-bind", "--ro-bind-fd"):
                (hidden if first == empty else held).add(second)
            elif word == "--remount-ro":
                held.add(first)
        return frozenset(held), frozenset(hidden)

    def views_of(self, argv: list[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The folders a sandbox made by `wrap` shows as views (`home_views`), and the entries
        it shows in them from the host (bound back, or a link made again), read back from its
        argv: nothing else in those folders is there for its commands."""
        words = argv[: argv.index("--")] if "--" in argv else argv
        views, shown = set(), set()
        for position, word in enumerate(words[:-2]):
            point = words[position + 1]
            if word in ("--ro-bind-try", "--symlink"):
                shown.add(words[position + 2])
            elif word == "--remount-ro" and words[position - 2 : position] != ["--tmpfs", point]:
                views.add(point)  # a view's own, not the one just after a hidden folder's tmpfs
        return frozenset(views), frozenset(shown)

    def view_now(self, workspace: Path) -> tuple[frozenset[str], frozenset[str]] | None:
        """What a sandbox made now would hold and hide (see `view_of`); None when none can be
        made now (`wrap` refuses), so that nothing can be told of it.

        A background task keeps the sandbox it started with: a repository, a virtualenv or a
        file holding the key that appeared since is held or hidden from new commands but not
        from it. tools/tasks.py compares the two before the task's output reaches the model.
        """
        try:
            # (A look stopped by Ctrl-C or SIGTERM tells nothing either: SettingsReadStopped.)
            snapshot = self.before_command(workspace)
            # Asked for or not, a command now would run in this sandbox: what commands asking
            # changes is who lets it run, not what it can read.
            snapshot.confinement_lost = None
            argv, _ = self.wrap(workspace, "true", snapshot, launching=False)
        except ToolError:
            return None
        return self.view_of(argv)

    def _packages_held_notes(self, root: Path) -> list[str]:
        """Said once for each package folder `wrap` held for its hard links."""
        notes = []
        for folder, said in self.packages_held.items():
            if said or not folder.is_relative_to(root):
                continue
            self.packages_held[folder] = True
            name = shown(root, folder)
            self._tell(f"planloop: {name} is read-only in sandboxed commands (hard links).")
            notes.append(
                f"[sandbox: {name} is read-only: its files are hard links to a package cache "
                "outside the workspace (uv, pnpm, bun, Deno and conda link them by default), "
                "which writing them in place would change for every project. Install packages "
                "outside the sandbox, or remake the environment with copies (UV_LINK_MODE=copy, "
                "pnpm's package-import-method=copy, bun install --backend=copyfile, conda create "
                "--copy).]"
            )
        return notes

    def _linked_held_notes(self, root: Path) -> list[str]:
        """Said once for the files `wrap` held for a name outside the workspace."""
        new = [path for path, said in self.linked_held.items() if not said]
        new = [path for path in new if path.is_relative_to(root)]
        if not new:
            return []
        for path in new:
            self.linked_held[path] = True
        names = ", ".join(shown(root, path) for path in new[:5])
        more = f" and {len(new) - 5} more" if len(new) > 5 else ""
        are = "is" if len(new) == 1 else "are"
        self._tell(
            f"planloop: {names}{more} {are} read-only in sandboxed commands: another name "
            "outside the workspace (hard links)."
        )
        return [
            f"[sandbox: {names}{more} {are} read-only: each has another name outside the "
            "workspace (a hard link), so writing it in place would change that file too. Ask the "
            "user to change it, or to replace the link with a copy.]"
        ]

    @staticmethod
    def hooks_folders(scan: WorkspaceScan, above: list[Path]) -> list[Path]:
        """Every hooks folder named by core.hooksPath, in the workspace's repositories or above."""
        return [hook for entry in scan.git_entries for hook in git_config_paths(entry)[0]] + above

    def _hooks_filled(self) -> list[Path]:
        """Hooks folders that had a stand-in and now hold something: no command should have
        been able to make them, but one that did must be told like a new `.git`."""
        filled = []
        for path in sorted(self.hooks_stand_ins):
            try:
                # bwrap leaves the stand-in's mount point behind: an empty folder is that.
                empty = os.path.isdir(path) and not os.path.islink(path) and not any(path.iterdir())
            except OSError:
                empty = False
            if not empty and os.path.lexists(path):
                self.hooks_stand_ins.discard(path)  # said once; bound read-only from now on
                filled.append(path)
        return filled

    def _is_placeholder(self, path: Path) -> bool:
        """An empty `.git` the sandbox made (another command may still use it): no repository."""
        try:
            return path in self.placed_git_dirs and os.path.isdir(path) and not any(path.iterdir())
        except OSError:
            return False

    def _remove_placeholder(self, root: Path) -> None:
        """Take away the empty .git mount point the sandbox made, if it is still empty."""
        placeholder = root / GIT_DIR_NAME
        if placeholder not in self.placed_git_dirs:
            return
        try:
            # In the workspace as opened and checked: moved away, with a link in its place
            # (another session's command), its path leads to another folder's `.git`.
            folder = open_workspace(root)
        except (OSError, ToolError):
            return
        try:
            os.rmdir(GIT_DIR_NAME, dir_fd=folder)  # only an empty folder goes: nothing is lost
        except (FileNotFoundError, NotADirectoryError):
            pass
        except OSError:
            self.placed_git_dirs.discard(placeholder)  # something is in it: report it
        finally:
            os.close(folder)

    def _record(self, what: str) -> None:
        if what not in self.created:
            self.created.append(what)
        # "appeared while", not "a command made": what a scan finds new after a long-running
        # background task may as well be the person's own, made while the task ran.
        self._tell(
            f"sandbox: {what} appeared while a command ran; it was kept, check it before use."
        )

    def _ask_from_now(self, why: str) -> None:
        """Have sandboxed commands ask from now on, for `why` (where none asks yet), and tell
        the person; a command let through unasked just before does not run."""
        if self.must_ask:
            return
        self.must_ask = why
        self._tell(f"planloop: {why}.")
        if permission_was_checked():
            raise ToolError(
                f"bash: the command did not run: {why}. It was let through unasked just before "
                "that was found. Send it again: the user is asked first now (a headless run "
                "without --yes refuses it)."
            )

    def _tell(self, line: str) -> None:
        if self.notify is not None:
            self.notify(line)


def permission_was_checked() -> bool:
    """Whether a permission policy decided about the call being run (tools/file_call.py); with
    none (the bare loop, a script) nobody is ever asked, and `must_ask` changes nothing."""
    call = current_file_call()
    return call is not None and call.approved is not None


@functools.cache
def planloop_code_folders() -> tuple[str, ...]:
    """Where the Python code planloop runs comes from: its import path, its loaded modules.

    A virtual environment or planloop's own source inside the workspace is writable by every
    command; what a command plants there runs outside the sandbox, with the key, when planloop
    imports a module it had not needed yet (a code block's syntax highlighter) or starts again.
    """
    folders = {os.getcwd() if entry == "" else entry for entry in sys.path}
    for module in list(sys.modules.values()):
        origin = getattr(module, "__file__", None)
        if origin:
            folders.add(os.path.dirname(origin))
    return tuple(sorted(folders))


@functools.cache
def user_namespace_works() -> bool:
    """Whether bwrap can make a user namespace here (some systems and containers refuse)."""
    if BWRAP is None:
        return False
    probe = [BWRAP, "--ro-bind", "/", "/", "--unshare-user", "--cap-drop", "ALL", "true"]
    try:
        # The same environment as every sandboxed start: no LD_PRELOAD and kin reach bwrap.
        run = subprocess.run(probe, env=clean_environment(), capture_output=True, timeout=10)
        return run.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def bubblewrap_works() -> bool | str:
    """True if bwrap can start a sandbox here, else a one-line reason (test it with `is True`).

    bwrap may be missing, too old to bind a checked descriptor (`--ro-bind-fd`, bubblewrap
    0.8), or present but refused by the system (no user namespaces in a container, for
    example); all are found by running `true` once in a workspace with a protected file.
    """
    if BWRAP is None:
        return f"bubblewrap (bwrap) is not installed; {INSTALL_HINT}"
    try:
        with tempfile.TemporaryDirectory() as probe_workspace:
            (Path(probe_workspace) / ".env").write_text("")  # so that a protected bind is made
            sandbox = Bubblewrap()
            sandbox.searches_key_copies = False  # the run's own search starts with its workspace
            argv, env = sandbox.wrap(Path(probe_workspace), "true")
            probe = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bubblewrap cannot start ({err})"
    if probe.returncode != 0:
        first_line = (probe.stderr.strip().splitlines() or ["no message"])[0]
        if "--ro-bind-fd" in first_line:
            return f"bubblewrap 0.8 or newer is needed ({first_line})"
        return f"bubblewrap cannot start a sandbox here ({first_line})"
    return True


def choose_sandbox(
    wanted: bool, allow_network: bool = False, allow_read: Iterable[Path] = ()
) -> tuple[object, str | None]:
    """The sandbox to use, and why there is none when one was wanted but cannot run here.

    Returns (Bubblewrap, None) when it works, else (NoSandbox, reason); with `wanted` False
    (--no-sandbox), (NoSandbox, None).
    """
    if not wanted:
        return NoSandbox(), None
    works = bubblewrap_works()
    if works is True:
        return Bubblewrap(allow_network=allow_network, allow_read=allow_read), None
    return NoSandbox(), str(works)
