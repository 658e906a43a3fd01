"""The path checks, where small slips would go unnoticed: git configs that name hooks folders or
include other files, worktrees, and the scan that finds every `.env` and `.git` for the sandbox.

Each test here fails when one part of tools/paths.py is changed in a way a user would feel
(a hooks folder left writable, a `.env` the scan misses, a stale listing reused); see
bench/mutation.sh.
"""

import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tools import ToolError, protected_reason, safe_path
from tools.paths import (
    ENV_REASON,
    GIT_REASON,
    HOOKS_REASON,
    FolderListing,
    list_folder,
    scan_workspace,
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    return root.resolve()


def write_git_config(repository: Path, text: str) -> None:
    (repository / ".git").mkdir(parents=True, exist_ok=True)
    (repository / ".git" / "config").write_text(text)


# --- git configs: hooks folders and included files -------------------------------------------


def test_a_hooks_folder_named_in_the_config_is_protected_with_everything_in_it(workspace: Path):
    write_git_config(
        workspace,
        "# a comment first\n; and another\n\n[Core]\n\teditor =\n\tHooksPath = .husky  # husky\n",
    )
    assert protected_reason(workspace, ".husky") == HOOKS_REASON
    assert protected_reason(workspace, ".husky/pre-commit") == HOOKS_REASON
    assert protected_reason(workspace, ".husky-notes/todo.md") is None
    assert protected_reason(workspace, "src/app.py") is None


def test_a_quoted_hooks_path_with_a_trailing_comment_is_understood(workspace: Path):
    write_git_config(workspace, '[core]\n\thooksPath = "git hooks" ; shared hooks\n')
    assert protected_reason(workspace, "git hooks/pre-push") == HOOKS_REASON


def test_a_hooks_path_in_another_section_protects_nothing(workspace: Path):
    write_git_config(workspace, "[alias]\n\thooksPath = .husky\n")
    assert protected_reason(workspace, ".husky/pre-commit") is None


def test_files_that_the_config_includes_are_protected(workspace: Path):
    write_git_config(
        workspace,
        "[include]\n\tpath = ../shared.gitconfig\n"
        '[includeIf "gitdir:~/work/"]\n\tpath = "../work.cfg"\n',
    )
    assert protected_reason(workspace, "shared.gitconfig") == GIT_REASON
    assert protected_reason(workspace, "work.cfg") == GIT_REASON
    assert protected_reason(workspace, "other.cfg") is None


def test_a_worktree_is_protected_by_its_main_repositorys_config(tmp_path: Path):
    main = tmp_path / "main"
    write_git_config(main, "[core]\n\thooksPath = .hooks\n")
    worktree_dir = main / ".git" / "worktrees" / "feature"
    worktree_dir.mkdir(parents=True)
    (worktree_dir / "commondir").write_text("../..\n")
    (worktree_dir / "config.worktree").write_text(
        "[include]\n\tpath = ../../../../feature/local.cfg\n"
    )
    feature = tmp_path / "feature"
    feature.mkdir()
    (feature / ".git").write_text(f"gitdir: {worktree_dir}\n")

    assert protected_reason(feature, ".hooks/pre-commit") == HOOKS_REASON
    assert protected_reason(feature, "src/app.py") is None
    # config.worktree's include is relative to that file, which lies in the main repository.
    assert protected_reason(feature, "local.cfg") == GIT_REASON


def test_a_repository_above_the_workspace_can_protect_a_folder_inside_it(tmp_path: Path):
    monorepo = tmp_path / "monorepo"
    app = monorepo / "packages" / "app"
    app.mkdir(parents=True)
    write_git_config(monorepo, "[core]\n\thooksPath = packages/app/.hooks\n")
    assert protected_reason(app, ".hooks/pre-commit") == HOOKS_REASON
    assert protected_reason(app, "main.py") is None


def test_a_git_file_that_is_not_a_gitdir_pointer_protects_nothing_more(workspace: Path):
    (workspace / ".git").write_text("not a pointer\n")
    (workspace / "hooks").mkdir()
    assert protected_reason(workspace, "hooks/pre-commit") is None
    assert protected_reason(workspace, ".git") == GIT_REASON


# --- protected_reason with links and unresolvable paths ---------------------------------------


def test_a_link_that_leaves_the_workspace_is_checked_without_crashing(
    workspace: Path, tmp_path: Path
):
    (tmp_path / "elsewhere").mkdir()
    (workspace / "out").symlink_to(tmp_path / "elsewhere")
    assert protected_reason(workspace, "out/notes.txt") is None
    (tmp_path / "elsewhere" / ".env").write_text("KEY=1\n")
    assert protected_reason(workspace, "out/.env") == ENV_REASON


def test_a_link_loop_is_judged_by_its_name_without_crashing(workspace: Path):
    (workspace / ".env").symlink_to(workspace / ".env")
    (workspace / "loop").symlink_to(workspace / "loop")
    assert protected_reason(workspace, ".env") == ENV_REASON
    assert protected_reason(workspace, "loop/file.txt") is None


def test_an_unresolvable_path_is_refused_with_the_reason(workspace: Path):
    (workspace / "loop").symlink_to(workspace / "loop")
    with pytest.raises(ToolError) as caught:
        safe_path(workspace, "loop/file.txt")
    assert "'loop/file.txt' cannot be resolved" in str(caught.value)


# --- the scan the sandbox relies on -----------------------------------------------------------


def found(scan, workspace: Path) -> set[str]:
    return {str(p.relative_to(workspace)) for p in [*scan.env_files, *scan.git_entries]}


def test_the_scan_searches_every_branch_of_the_tree(workspace: Path):
    for folder in ("a/one", "b/two", "c"):
        (workspace / folder).mkdir(parents=True)
    (workspace / "a" / "one" / ".env").write_text("")
    (workspace / "b" / "two" / ".env.local").write_text("")
    (workspace / "c" / ".envrc").write_text("")
    (workspace / ".envs" / "inner").mkdir(parents=True)
    (workspace / ".envs" / "inner" / ".env").write_text("")
    scan = scan_workspace(workspace)
    assert found(scan, workspace) == {
        "a/one/.env",
        "b/two/.env.local",
        "c/.envrc",
        ".envs/inner/.env",
    }
    assert scan.incomplete is None


def test_the_scan_does_not_follow_links_but_lists_them(workspace: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".env").write_text("")
    (workspace / "linked").symlink_to(outside)
    (workspace / ".env.shared").symlink_to(outside)  # a link named .env*, to a folder
    (workspace / "vendored").mkdir()
    (workspace / "vendored" / ".git").symlink_to(outside)
    scan = scan_workspace(workspace)
    assert found(scan, workspace) == {".env.shared", "vendored/.git"}
    link = os.lstat(workspace / "vendored" / ".git")
    assert scan.git_entries[workspace / "vendored" / ".git"] == (link.st_dev, link.st_ino)


def test_the_scan_stops_when_the_workspace_has_more_entries_than_the_limit(workspace: Path):
    # The workspace holds 3 + 1 + 2 + 2 = 8 entries over four folders, none over 3 alone.
    for folder in ("a", "b"):
        (workspace / folder).mkdir()
        (workspace / folder / "x").write_text("")
        (workspace / folder / "y").write_text("")
    (workspace / "src" / "app.py").unlink()
    (workspace / "src" / "lib.py").write_text("")
    total = 8
    assert scan_workspace(workspace, entry_limit=total).incomplete is None
    stopped = scan_workspace(workspace, entry_limit=total - 1, seconds_limit=3600)
    assert "too large to scan" in stopped.incomplete


def root_listing(workspace: Path, subfolders: list[str], **extra) -> dict[str, FolderListing]:
    info = os.stat(workspace)
    identity = (info.st_dev, info.st_ino, info.st_ctime_ns)
    listing = FolderListing(identity, True, len(subfolders), subfolders, [], {}, **extra)
    return {str(workspace): listing}


def test_a_folder_gone_or_replaced_during_the_scan_does_not_end_it(workspace: Path):
    (workspace / "a").mkdir()
    (workspace / "a" / ".env").write_text("")
    (workspace / "now_a_file").write_text("")
    # A listing taken just before "gone" was removed and "now_a_file" replaced a folder;
    # the scan takes folders from the end of the list.
    cache = root_listing(
        workspace, [str(workspace / "a"), str(workspace / "now_a_file"), str(workspace / "gone")]
    )
    assert found(scan_workspace(workspace, cache=cache), workspace) == {"a/.env"}


def test_a_cached_listing_is_reused_only_while_the_folder_is_unchanged(workspace: Path):
    (workspace / ".env").write_text("")
    cache = root_listing(workspace, [])  # an unchanged folder that held nothing, as cached
    assert found(scan_workspace(workspace, cache=cache), workspace) == set()

    cache = root_listing(workspace, [])
    listing = cache[str(workspace)]
    listing.identity = (listing.identity[0], listing.identity[1], listing.identity[2] - 1)
    assert found(scan_workspace(workspace, cache=cache), workspace) == {".env"}
    assert cache[str(workspace)].env_files == [workspace / ".env"]


def folder_info(folder: Path, changed_seconds_ago: float) -> SimpleNamespace:
    info = os.stat(folder)
    ctime = time.time_ns() - int(changed_seconds_ago * 1e9)
    return SimpleNamespace(st_dev=info.st_dev, st_ino=info.st_ino, st_ctime_ns=ctime)


def test_a_listing_is_reusable_only_when_the_folder_changed_a_while_ago(workspace: Path):
    fresh = list_folder(str(workspace), folder_info(workspace, 0))
    old_info = folder_info(workspace, 10)
    old = list_folder(str(workspace), old_info)
    assert fresh.reusable is False
    assert old.reusable is True
    assert old.identity == (old_info.st_dev, old_info.st_ino, old_info.st_ctime_ns)
    assert (old.entries, old.subfolders) == (1, [str(workspace / "src")])


def test_an_unreadable_folder_is_listed_again_next_time(workspace: Path):
    gone = list_folder(str(workspace / "gone"), folder_info(workspace, 10))
    assert gone.reusable is False
    assert gone.entries == 0
