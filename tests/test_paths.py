"""safe_path keeps file tools inside the workspace; protected_reason names the special paths."""

import os
import time
from pathlib import Path

import pytest

from tools import ToolError, paths, protected_reason, safe_path
from tools.paths import scan_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret\n")
    return root


def escape_message(workspace: Path, path: str) -> str:
    with pytest.raises(ToolError) as caught:
        safe_path(workspace, path)
    return str(caught.value)


def test_relative_path_resolves_inside_the_workspace(workspace: Path):
    assert safe_path(workspace, "src/app.py") == workspace.resolve() / "src" / "app.py"


def test_path_that_does_not_exist_yet_is_allowed(workspace: Path):
    assert safe_path(workspace, "new/dir/file.txt") == workspace.resolve() / "new/dir/file.txt"


def test_absolute_path_inside_the_workspace_is_allowed(workspace: Path):
    inside = str(workspace / "src" / "app.py")
    assert safe_path(workspace, inside) == workspace.resolve() / "src" / "app.py"


def test_dot_dot_that_stays_inside_is_allowed(workspace: Path):
    assert safe_path(workspace, "src/../src/app.py") == workspace.resolve() / "src" / "app.py"


def test_dot_dot_escape_is_refused_and_names_the_workspace(workspace: Path):
    message = escape_message(workspace, "../outside/secret.txt")
    assert "escapes the workspace" in message
    assert str(workspace.resolve()) in message
    assert "relative to the workspace" in message


def test_absolute_path_elsewhere_is_refused(workspace: Path):
    assert "escapes the workspace" in escape_message(workspace, "/etc/passwd")


def test_symlinked_file_pointing_out_is_refused(workspace: Path):
    (workspace / "link.txt").symlink_to(workspace.parent / "outside" / "secret.txt")
    assert "escapes the workspace" in escape_message(workspace, "link.txt")


def test_symlinked_directory_pointing_out_is_refused(workspace: Path):
    (workspace / "linked").symlink_to(workspace.parent / "outside")
    assert "escapes the workspace" in escape_message(workspace, "linked/secret.txt")
    assert "escapes the workspace" in escape_message(workspace, "linked/new.txt")


def test_symlink_that_stays_inside_is_allowed(workspace: Path):
    (workspace / "alias.py").symlink_to(workspace / "src" / "app.py")
    assert safe_path(workspace, "alias.py") == workspace.resolve() / "src" / "app.py"


def test_workspace_given_through_a_symlink_still_works(workspace: Path, tmp_path: Path):
    (tmp_path / "ws-link").symlink_to(workspace)
    assert safe_path(tmp_path / "ws-link", "src/app.py") == workspace.resolve() / "src/app.py"


def test_nul_byte_is_refused(workspace: Path):
    assert "NUL byte" in escape_message(workspace, "src/app.py\0.txt")


def test_empty_path_is_refused(workspace: Path):
    assert "path is empty" in escape_message(workspace, "")
    assert "path is empty" in escape_message(workspace, "   ")


def test_symlink_loop_is_refused_rather_than_crashing(workspace: Path):
    (workspace / "loop").symlink_to(workspace / "loop")
    with pytest.raises(ToolError):
        safe_path(workspace, "loop/file.txt")


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        ".git",
        "vendor/lib/.git/config",
        ".env",
        ".env.local",
        "deploy/.envrc",
        "./src/../.env",
    ],
)
def test_git_and_env_paths_are_protected(workspace: Path, path: str):
    assert protected_reason(workspace, path) is not None


@pytest.mark.parametrize("path", ["src/app.py", "gitignore", "my.env", ".gitignore", "env/x"])
def test_ordinary_paths_are_not_protected(workspace: Path, path: str):
    assert protected_reason(workspace, path) is None


def test_a_link_to_a_protected_file_is_protected(workspace: Path):
    (workspace / ".git").mkdir()
    (workspace / "notes").symlink_to(workspace / ".git")
    assert "git" in protected_reason(workspace, "notes/config")


def test_a_dotenv_link_to_an_ordinary_file_is_protected(workspace: Path):
    (workspace / ".env").symlink_to(workspace / "src" / "app.py")
    assert "ANTHROPIC_BASE_URL" in protected_reason(workspace, ".env")


def test_planloop_home_inside_the_workspace_is_protected(workspace: Path, monkeypatch):
    monkeypatch.setenv("PLANLOOP_HOME", str(workspace / ".planloop"))
    assert "planloop" in protected_reason(workspace, ".planloop/sessions/x/1.json")
    assert protected_reason(workspace, "src/app.py") is None


def test_the_sandbox_finds_every_existing_protected_file(workspace: Path):
    (workspace / ".git" / "hooks").mkdir(parents=True)
    (workspace / ".git" / "config").write_text("")
    (workspace / "deep" / "er").mkdir(parents=True)
    (workspace / "deep" / "er" / ".env.test").write_text("")
    (workspace / ".env").write_text("")
    scan = scan_workspace(workspace)
    found = {str(p.relative_to(workspace)) for p in [*scan.env_files, *scan.git_entries]}
    assert found == {".git", "deep/er/.env.test", ".env"}


@pytest.mark.parametrize("change", ["rewritten", "replaced"])
def test_a_git_config_changed_since_it_was_read_is_read_again(tmp_path, monkeypatch, change):
    # A reading is kept while the file stays as it was (a look reads the same configs many
    # times, at half a second a MiB); a command that changed it must not be answered from it.
    later = time.time_ns() + 10**10
    monkeypatch.setattr(paths.time, "time_ns", lambda: later)  # as if read 10 s after it was made
    config = tmp_path / "config"
    config.write_text("[core]\n\tpager = less\n")
    assert ("core.pager", "less") in paths.read_git_config(config)
    assert str(config) in paths._GIT_CONFIGS_READ  # (kept: else the test shows nothing)
    if change == "rewritten":  # (one of the same size in the same clock tick is not kept)
        config.write_text("[core]\n\tpager = ./pager\n")
    else:
        (tmp_path / "new").write_text("[core]\n\tfsmonitor = ./fs\n")
        os.replace(tmp_path / "new", config)
    found = paths.read_git_config(config)
    assert ("core.pager", "./pager") in found or ("core.fsmonitor", "./fs") in found, found
