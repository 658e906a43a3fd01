"""What planloop reads for the model from files that hold its key, and what a workspace's .env
may make a secret.

The key-copy search finds the key in more forms than the plain one (base64, as a Kubernetes
Secret holds it; UTF-16 and UTF-32), and every sandbox then hides such a file from commands:
read_file, an instruction file and the other readers for the model must not show those forms
either, and must refuse a file the sandbox hides that still gives the key once they are taken
out. A repository's committed `.env` template, where the person fills in the key, must not
choose a word that planloop then treats as a secret: blanked out of what the model reads,
searched for on the disk and hidden from commands. Each test drives `python agent.py` against
the fake API, as root and as an unprivileged user.
"""

from __future__ import annotations

import base64
import json

from conftest import API_KEY
from test_hostile_pass4 import needs_bwrap, run_as, tool_results
from test_key_copies import KEY_LINE, assert_no_key, layout, plant

from fakeapi import text, tool_use
from settings import credential_like, known_secrets, read_settings
from tools.key_copies import base64_forms
from tools.textio import BINARY_CHECK_BYTES

__all__ = ["layout"]  # a fixture, used by name below


def base64_shapes() -> list[str]:
    """The key in base64 wherever it lies in what was encoded, as the search looks for it."""
    return sorted(form.decode() for form in base64_forms(API_KEY.encode()))


def run_steps(user, api, env, workspace, planloop_home, home, steps, **environ) -> tuple:
    """Run planloop with a model that calls `steps` ((tool, input) pairs) one a turn; the run
    and the tool results it sent back."""
    for name, arguments in steps:
        api.add({"content": [tool_use(name, arguments)]})
    api.add({"content": [text("Done.")]})
    env = {**env, "PLANLOOP_HOME": str(planloop_home), "HOME": str(home), **environ}
    env = {name: value for name, value in env.items() if value is not None}
    result = run_as(user, api, env, workspace, home, timeout=120)
    assert result.returncode == 0, result.stderr
    return result, tool_results(api)


# --- read_file and the forms the search knows ---------------------------------------------------


@needs_bwrap
def test_read_file_does_not_show_a_key_copy_in_base64(api, env, layout):
    # A Kubernetes Secret in the workspace: the search finds the key in it by its base64, and
    # every sandbox empties it for commands. read_file, before and after that, must not show it.
    user, workspace, planloop_home, home = layout
    encoded = base64.b64encode(API_KEY.encode()).decode()
    secret = (
        "apiVersion: v1\nkind: Secret\nmetadata: {name: app}\ndata:\n"
        f"  ANTHROPIC_API_KEY: {encoded}\n  DATABASE_HOST: ZGIuaW50ZXJuYWw=\n"
    )
    plant(workspace, {"deploy/secret.yaml": secret}, user)
    read = ("read_file", {"path": "deploy/secret.yaml"})
    steps = [read, ("bash", {"command": "wc -c deploy/secret.yaml"}), read]
    result, (first, counted, second) = run_steps(
        user, api, env, workspace, planloop_home, home, steps
    )
    assert "0 deploy/secret.yaml" in counted  # the search found it: commands see it empty
    sent = json.dumps(api.accepted)
    for form in base64_shapes():
        assert form not in sent, f"the key reached the model as {form!r}"
    assert_no_key(sent + result.stdout + result.stderr)
    for shown in (first, second):  # the rest of the file is shown, the key taken out
        assert "ANTHROPIC_API_KEY: [redacted]" in shown and "ZGIuaW50ZXJuYWw=" in shown, shown
    assert (workspace / "deploy/secret.yaml").read_text() == secret


def test_read_file_does_not_show_a_key_in_utf16_below_a_text_head(api, env, layout):
    # A log that turns to UTF-16 after its first page (a PowerShell `>>` onto a UTF-8 file):
    # read as text, the key comes with a NUL after each character, which the search finds.
    user, workspace, planloop_home, home = layout
    head = "# build log\n" * (BINARY_CHECK_BYTES // 12 + 1)
    plant(workspace, {"build.log": head.encode() + KEY_LINE.encode("utf-16-le")}, user)
    steps = [("read_file", {"path": "build.log", "offset": head.count("\n")})]
    _, (shown,) = run_steps(user, api, env, workspace, planloop_home, home, steps)
    sent = json.dumps(api.accepted)
    for encoding in ("utf-16-le", "utf-16-be"):
        wide = json.dumps(API_KEY.encode(encoding).decode("utf-8"))[1:-1]
        assert wide not in sent
    # The line is shown as it reads in UTF-8, a NUL after each character, the marker too.
    assert "[redacted]" in shown.replace("\0", ""), shown


def test_read_file_refuses_a_key_file_that_gives_the_key_only_expanded(api, env, layout):
    # `.env.local` holds the key in two halves that python-dotenv joins: no line holds the
    # key, so no redaction takes it out, and the sandbox hides the file for holding it. Shown,
    # the two halves are the key.
    user, workspace, planloop_home, home = layout
    half = len(API_KEY) // 2
    dotenv = f"K1={API_KEY[:half]}\nANTHROPIC_API_KEY=${{K1}}{API_KEY[half:]}\nDEBUG=1\n"
    plant(workspace, {".env.local": dotenv, "notes.txt": "DEBUG=1\n"}, user)
    steps = [("read_file", {"path": ".env.local"}), ("read_file", {"path": "notes.txt"})]
    _, (refused, notes) = run_steps(user, api, env, workspace, planloop_home, home, steps)
    assert "holds planloop's API key" in refused and "not read for the model" in refused
    assert f"K1={API_KEY[:half]}" not in json.dumps(api.accepted)
    assert "DEBUG=1" in notes  # a file of the workspace without the key: read as before
    assert (workspace / ".env.local").read_text() == dotenv


def test_an_instruction_file_does_not_bring_the_key_in_base64(api, env, layout):
    # AGENTS.md with a deployment note pasted in, the key in it base64'd: the system prompt
    # goes with every request. A file that holds the key is hidden from commands, and what no
    # command may read no prompt carries: it is not loaded, and the person is told why.
    user, workspace, planloop_home, home = layout
    encoded = base64.b64encode(KEY_LINE.encode()).decode()
    plant(workspace, {"AGENTS.md": f"# Deploy\nkubectl create secret: {encoded}\n"}, user)
    result, _ = run_steps(user, api, env, workspace, planloop_home, home, [])
    system = json.dumps(api.accepted[0]["system"])
    assert "# Deploy" not in system
    said = " ".join(result.stderr.split())  # as the terminal wrapped it
    assert "AGENTS.md was not loaded: a file that holds planloop's API key" in said, said
    for form in base64_shapes():
        assert form not in system, f"the key reached the model as {form!r}"


# --- what a workspace's .env makes a secret ------------------------------------------------------


@needs_bwrap
def test_a_token_in_the_env_template_does_not_become_a_secret(api, env, layout):
    # The repository commits the .env template the person fills the key into, with a token of
    # its choosing beside it: a word its own files are full of. Taken as a secret, it would be
    # blanked out of what the model reads, and every file holding it hidden from commands.
    user, workspace, planloop_home, home = layout
    template = f"# fill in your key\nANTHROPIC_API_KEY={API_KEY}\nANTHROPIC_AUTH_TOKEN=function\n"
    plant(workspace, {".env": template, "src/m1.js": "export function f1() { return 1 }\n"}, user)
    plant(home, {"notes/todo.txt": "write the function\n"}, user)
    steps = [
        ("read_file", {"path": "src/m1.js"}),
        ("bash", {"command": "wc -c src/m1.js ~/notes/todo.txt; cat src/m1.js; base64 .env"}),
    ]
    result, (shown, output) = run_steps(
        user, api, env, workspace, planloop_home, home, steps, ANTHROPIC_API_KEY=None
    )
    assert "export function f1()" in shown, shown
    assert "export function f1()" in output and "34 src/m1.js" in output, output
    assert f"19 {home}/notes/todo.txt" in output, output
    assert "Ignored ANTHROPIC_AUTH_TOKEN" in result.stderr
    assert_no_key(output)  # the key the person filled in is hidden as ever


def test_a_workspace_env_gives_one_credential(workspace):
    (workspace / ".env").write_text(
        "ANTHROPIC_API_KEY=sk-ant-filled-in-1\nANTHROPIC_AUTH_TOKEN=x\n"
    )
    settings = read_settings(workspace, {})
    assert (settings.api_key, settings.auth_token) == ("sk-ant-filled-in-1", None)
    assert any("ANTHROPIC_AUTH_TOKEN" in notice for notice in settings.notices)
    (workspace / ".env").write_text("ANTHROPIC_AUTH_TOKEN=gateway-token-7\n")
    assert read_settings(workspace, {}).auth_token == "gateway-token-7"
    assert "gateway-token-7" in known_secrets()


def test_a_word_from_the_env_is_used_but_is_no_secret(workspace):
    (workspace / ".env").write_text('ANTHROPIC_AUTH_TOKEN="return 0;"\n')
    assert read_settings(workspace, {}).auth_token == "return 0;"
    (workspace / ".env").write_text("ANTHROPIC_API_KEY=function\n")
    assert read_settings(workspace, {}).api_key == "function"
    assert "function" not in known_secrets() and "return 0;" not in known_secrets()
    # Yours is a secret whatever it looks like.
    read_settings(workspace, {"ANTHROPIC_AUTH_TOKEN": "password"})
    assert "password" in known_secrets()


def test_what_may_be_a_credential():
    for value in (API_KEY, "sk-ant-api03-" + "Ab9_" * 20, "0123456789abcdef0123", "token-123"):
        assert credential_like(value), value
    for value in ("function", "        ", "return 0", "12345678", "short-1", "tab\tbed1"):
        assert not credential_like(value), value


def test_forms_in_a_file_are_taken_out_of_what_is_shown():
    from redaction import file_forms, redact

    forms = file_forms([API_KEY])
    for form in base64_shapes():
        assert redact(f"x{form}y", forms) == "x[redacted]y"
