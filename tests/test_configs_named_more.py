"""Workspace files your configuration names, however your home and the workspace are laid out.

A sandboxed command must not change a file that a program of yours runs later outside the
sandbox because your configuration names it: in a dot folder that is a link (GNU stow's
`~/.vim -> dotfiles/vim`), deep in a dot folder (`~/.vim/plugin/x.vim`, `~/.ssh/config.d/x`),
in a file whose name sounds like a program's store (`backup.service`), through a link to the
workspace, in a workspace whose name has a space, in a cache variable that names code
(PYTHONPYCACHEPREFIX, CCACHE_PREFIX), or as the folder vim loads a plugin from
(`set rtp+=~/proj`). Each end-to-end test drives `python agent.py` against the fake API, as
root and as an unprivileged user.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_hostile_pass4 import NOBODY, needs_bwrap
from test_named_by_your_configs import each_writes, project, run, user_folders, write

from tools.your_configs import MAX_CONFIG_FILES, config_files, paths_named_in

__all__ = ["project", "user_folders"]  # the fixtures, used by name


def link(path: Path, target: str, user: str) -> None:
    """A symbolic link owned by the test's user."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    if user == "nobody":
        os.lchown(path, NOBODY, NOBODY)


def assert_held(output: str, workspace: Path, files: list[str]) -> None:
    for name in files:
        assert f"{name} rc=1" in output, output
        assert (workspace / name).read_text() == "\n"


def assert_writable(output: str, workspace: Path, files: list[str]) -> None:
    for name in files:
        assert f"{name} rc=0" in output, output
        assert (workspace / name).read_text() == "\nplanted\n"


def assert_held_and_writable(api, env, project, held: list[str], free: list[str]) -> None:
    """Makes each file of `held` and `free` in the workspace, then tries to change them all in
    one command: those of `held` stay as they were, the others change."""
    user, workspace, _planloop_home, _home = project
    for name in held + free:
        write(workspace / name, "\n", user)
    output = run(api, env, project, each_writes(held + free))
    assert_held(output, workspace, held)
    assert_writable(output, workspace, free)


@needs_bwrap
def test_configuration_through_links_and_in_program_like_names_is_held(api, env, project):
    # Dotfile managers link ~/.vim and ~/.config/nvim to a dotfiles checkout; systemd runs
    # backup.service's ExecStart and lxsession its autostart at login; and ~/code -> ~ or
    # ~/work -> ~/proj reach the workspace by another name. vim, nvim and systemd would run what
    # a command wrote there.
    user, workspace, _planloop_home, home = project
    write(home / "dotfiles/nvim/init.vim", "source ~/proj/tools/nvim.vim\n", user)
    write(home / "dotfiles/vim/vimrc", "source ~/proj/tools/vim.vim\nso ~/proj/new.vim\n", user)
    link(home / ".config/nvim", "../dotfiles/nvim", user)
    link(home / ".vim", "dotfiles/vim", user)
    link(home / "dotfiles/vim/again", "..", user)  # a loop: read once, the walk ends
    write(
        home / ".config/systemd/user/backup.service",
        "[Service]\nExecStart=%h/proj/scripts/backup.sh\n",
        user,
    )
    write(home / ".config/lxsession/LXDE/autostart", "@/root/x\n@~/proj/bin/start\n", user)
    link(home / "code", str(home), user)
    link(home / "work", str(workspace), user)
    write(home / ".gvimrc", "source ~/code/proj/tools/code.vim\nsource ~/work/tools/w.vim\n", user)
    held = ["tools/nvim.vim", "tools/vim.vim", "scripts/backup.sh", "bin/start"]
    held += ["tools/code.vim", "tools/w.vim"]
    for name in held:
        write(workspace / name, "\n", user)
    output = run(api, env, project, each_writes(held), write_to="new.vim")
    assert "your own configuration names" in output  # the file tools ask, and none can here
    assert not (workspace / "new.vim").exists()
    assert_held(output, workspace, held)


@needs_bwrap
def test_configuration_deep_in_dot_folders_is_held_and_program_stores_are_not(api, env, project):
    # vim sources every ~/.vim/plugin/*.vim, ssh reads ~/.ssh/config.d/* by Include and runs its
    # ProxyCommand, launchers run a .desktop file's Exec=, oh-my-zsh sources custom/*.zsh. What
    # programs write for themselves deep down (an editor's file history, vim's backup copies,
    # nvim's shada, a recent-files list) names files you opened, and they stay editable.
    user, workspace, _planloop_home, home = project
    configs = {
        ".vim/plugin/proj.vim": "source ~/proj/tools/plugin.vim\n",
        ".ssh/config": "Include ~/.ssh/config.d/*\n",
        ".ssh/config.d/proj": "Host dev\n  ProxyCommand ~/proj/bin/proxy %h\n",
        ".local/share/applications/proj.desktop": "[Desktop Entry]\nExec=~/proj/bin/launch\n",
        ".oh-my-zsh/custom/proj.zsh": "source ~/proj/tools/aliases.zsh\n",
        ".config/Code/User/History/1a/entries.json": f'"{workspace}/src/a.py"',
        ".vim/backup/app.py~": "import sys  # ~/proj/src/b.py\n",
        ".local/state/nvim/shada/main.shada": "~/proj/src/c.py\n",
        ".local/share/recently-used.xbel": f'<bookmark href="{workspace}/src/d.py"/>',
    }
    for name, content in configs.items():
        write(home / name, content, user)
    held = ["tools/plugin.vim", "bin/proxy", "bin/launch", "tools/aliases.zsh"]
    free = ["src/a.py", "src/b.py", "src/c.py", "src/d.py"]
    for name in held + free:
        write(workspace / name, "\n", user)
    output = run(api, env, project, each_writes(held + free))
    assert_held(output, workspace, held)
    assert_writable(output, workspace, free)


@needs_bwrap
def test_paths_in_a_workspace_whose_name_has_a_space_are_held(api, env, project):
    # vim escapes the space, tmux quotes it: both still run the file.
    user, _proj, planloop_home, home = project
    workspace = home / "My Project"
    workspace.mkdir()
    if user == "nobody":
        os.chown(workspace, NOBODY, NOBODY)
    write(home / ".vimrc", "source ~/My\\ Project/tools/a.vim\n", user)
    write(home / ".tmux.conf", 'run-shell "~/My Project/bin/tmux start"\n', user)
    escaped = str(workspace).replace(" ", "\\ ")
    write(home / ".gvimrc", f"source {escaped}/tools/my\\ b.vim\n", user)
    held = ["tools/a.vim", "bin/tmux start", "tools/my b.vim"]
    for name in [*held, "tools/other.vim"]:
        write(workspace / name, "\n", user)
    command = "; ".join(
        f'echo planted >> "{name}" 2>/dev/null; echo "{name} rc=$?"'
        for name in [*held, "tools/other.vim"]
    )
    output = run(api, env, (user, workspace, planloop_home, home), command)
    assert_held(output, workspace, held)
    assert_writable(output, workspace, ["tools/other.vim"])


@needs_bwrap
def test_cache_variables_that_name_code_are_held(api, env, project):
    # python runs the bytecode PYTHONPYCACHEPREFIX holds instead of the module it imports (the
    # standard library's too, in planloop itself), ccache runs CCACHE_PREFIX and what
    # CCACHE_CONFIGPATH's file names; a cache folder (PIP_CACHE_DIR) is only scratch space.
    user, workspace, _planloop_home, home = project
    write(workspace / ".envrc", 'export PYTHONPYCACHEPREFIX="$PWD/.pycache"\n', user)
    held = [".pycache/json/__init__.cpython-311.pyc", "tools/wrap.sh", "tools/ccache.conf"]
    free = [".pip-cache/http/x"]
    for name in held + free:
        write(workspace / name, "\n", user)
    variables = {
        "CCACHE_PREFIX": f"{workspace}/tools/wrap.sh",
        "CCACHE_CONFIGPATH": f"{workspace}/tools/ccache.conf",
        "PIP_CACHE_DIR": f"{workspace}/.pip-cache",
    }
    output = run(api, env, project, each_writes(held + free), variables)
    assert_held(output, workspace, held)
    assert_writable(output, workspace, free)


@needs_bwrap
def test_the_workspace_as_a_folder_vim_loads_plugins_from_holds_what_vim_loads(api, env, project):
    # Developing a vim or neovim plugin: ~/.vimrc adds the checkout to the runtimepath, lazy.nvim
    # loads it by `dir`. vim then sources plugin/*.vim at every start, anywhere, and nvim a
    # lua/ module when asked: a new plugin/zz.vim runs as well as a changed one. The plugin's
    # tests and docs are not loaded, and stay writable.
    user, workspace, _planloop_home, home = project
    write(home / ".vimrc", "set nocompatible\nset runtimepath+=~/proj\n", user)
    write(home / ".config/nvim/lua/plugins/dev.lua", 'return { { dir = "~/proj" } }\n', user)
    held = ["plugin/mine.vim", "plugin/zz_new.vim", "autoload/mine.vim", "lua/mine/init.lua"]
    free = ["README.md", "tests/mine_spec.vim"]
    for name in ["plugin/mine.vim", "autoload/mine.vim", "lua/mine/init.lua", *free]:
        write(workspace / name, "\n", user)
    output = run(api, env, project, each_writes(held + free))
    for name in held:
        assert f"{name} rc=1" in output, output
    assert not (workspace / "plugin/zz_new.vim").exists()
    assert (workspace / "plugin/mine.vim").read_text() == "\n"
    assert_writable(output, workspace, free)


@needs_bwrap
def test_the_files_vim_runs_at_the_top_of_a_plugin_folder_are_held(api, env, project):
    # `filetype plugin indent on` (vim's defaults, neovim's) runs ftplugin.vim and indent.vim at
    # the top of every runtimepath folder, and `set spell` spell/en.vim in each.
    user, _workspace, _planloop_home, home = project
    write(home / ".vimrc", "set rtp+=~/proj\nfiletype plugin indent on\n", user)
    held = ["ftplugin.vim", "indent.vim", "spell/en.vim", "import/util.vim"]
    assert_held_and_writable(api, env, project, held, ["README.md"])


@needs_bwrap
def test_a_path_your_configs_write_from_a_variable_that_names_the_workspace_is_held(
    api, env, project
):
    # A "project helpers" line of ~/.bashrc sources a script through a variable it sets (to
    # the workspace, however quoted, or to a folder above it), and tmux puts in your
    # environment's variables: your next shell or tmux runs the file.
    user, workspace, _planloop_home, home = project
    bashrc = (
        'export APP=~/proj\n[ -f "$APP/scripts/aliases.sh" ] && . "${APP}/scripts/aliases.sh"\n'
        'PROJ="$HOME"/proj\n. "$PROJ/scripts/quoted.sh"\n'
        f'UP={home.parent}\n. "$UP/{home.name}/proj/scripts/above.sh"\n'
    )
    write(home / ".bashrc", bashrc, user)
    write(home / ".tmux.conf", 'source-file -q "$TOOLS/tmux/dev.conf"\n', user)
    held = ["scripts/aliases.sh", "scripts/quoted.sh", "scripts/above.sh", "tmux/dev.conf"]
    for name in held:
        write(workspace / name, "\n", user)
    output = run(api, env, project, each_writes(held), {"TOOLS": str(workspace)})
    assert_held(output, workspace, held)


@needs_bwrap
def test_a_path_your_editor_writes_from_a_variable_it_sets_itself_is_held(api, env, project):
    # vim's `let $APP = ...` and neovim's `vim.env.APP = ...` set a variable the way a shell
    # line does, joined with `.` or `..`: the next vim sources the project's file through it.
    user, workspace, _planloop_home, home = project
    vimrc = (
        "let $APP = $HOME . '/proj'\nsource $APP/.vim/project.vim\n"
        "let $UP = expand('~') . '/proj'\nexe 'source ' . $UP . '/.vim/joined.vim'\n"
        "let $RTP = '~/proj/tools/vim'\nset rtp+=$RTP\n"
    )
    write(home / ".vimrc", vimrc, user)
    init = 'vim.env.APP = vim.env.HOME .. "/proj"\ndofile(vim.env.APP .. "/dev/init.lua")\n'
    write(home / ".config/nvim/init.lua", init, user)
    held = [".vim/project.vim", ".vim/joined.vim", "tools/vim/plugin/x.vim", "dev/init.lua"]
    assert_held_and_writable(api, env, project, held, [".vim/notes.txt"])


# Plugin folders your configuration names by the folder above them: a vim 'runtimepath' entry
# with a wildcard, which vim expands; vim's packages, pack/*/start/* of each 'packpath' folder;
# lazy.nvim's dev mode, which loads a spec marked `dev = true` from `<dev.path>/<its name>`.
LAZY_DEV = """require("lazy").setup({ { "me/mine.nvim", dev = true } }, {
  dev = {
    patterns = { "me" },
    path = "~/projects",
  },
})
"""
PLUGIN_FOLDER_PARENTS = [
    ("projects/mine", ".vimrc", "set nocompatible\nset rtp+=~/projects/*\n"),
    ("projects/pack/dev/start/mine", ".vimrc", "set nocompatible\nset packpath+=~/projects\n"),
    ("projects/mine.nvim", ".config/nvim/init.lua", LAZY_DEV),
]


@needs_bwrap
@pytest.mark.parametrize(("layout", "config", "text"), PLUGIN_FOLDER_PARENTS)
def test_a_plugin_folder_your_configs_name_by_the_folder_above_holds_what_vim_loads(
    api, env, project, layout, config, text
):
    # Developing a vim or neovim plugin in a folder your configuration names by its parent:
    # vim sources plugin/*.vim of every plugin folder there at every start, anywhere.
    user, _proj, planloop_home, home = project
    workspace = home / layout
    write(home / config, text, user)
    for name in ["plugin/mine.vim", "lua/mine/init.lua", "README.md"]:
        write(workspace / name, "\n", user)
    held = ["plugin/mine.vim", "plugin/zz_new.vim", "lua/mine/init.lua"]
    command = each_writes([*held, "README.md"])
    output = run(api, env, (user, workspace, planloop_home, home), command)
    for name in held:
        assert f"{name} rc=1" in output, output
    assert not (workspace / "plugin/zz_new.vim").exists()
    assert (workspace / "plugin/mine.vim").read_text() == "\n"
    assert_writable(output, workspace, ["README.md"])


@needs_bwrap
def test_a_compiler_caches_config_and_a_deep_neovim_plugin_spec_are_held(api, env, project):
    # ccache runs its config's prefix_command before every compile of every build of yours;
    # its folder's name holds "cache" but it is no cache. kickstart.nvim keeps lazy.nvim specs
    # five folders down: `dir = "~/proj"` there makes neovim load plugin/ at every start.
    user, workspace, _planloop_home, home = project
    write(home / ".config/ccache/ccache.conf", "prefix_command = ~/proj/bin/wrap\n", user)
    write(home / ".ccache/ccache.conf", "compiler_check = ~/proj/bin/check\n", user)
    spec = 'return { { dir = "~/proj", name = "mine" } }\n'
    write(home / ".config/nvim/lua/custom/plugins/init.lua", spec, user)
    write(home / ".cache/editor/recent", "~/proj/src/app.py\n", user)  # a cache: not read
    held = ["bin/wrap", "bin/check", "plugin/mine.lua"]
    free = ["src/app.py"]
    assert_held_and_writable(api, env, project, held, free)


def test_reading_linked_and_deep_configuration_stays_bounded(tmp_path):
    # Links that loop, and a program's large tree under a dot folder, cost a bounded walk; a
    # dot file is still read first.
    home = tmp_path / "home"
    (home / ".vim").mkdir(parents=True)
    (home / ".vim" / "up").symlink_to("..")
    (home / ".vim" / "self").symlink_to(".")
    for index in range(MAX_CONFIG_FILES + 500):
        folder = home / ".tool" / "share" / f"{index // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}").write_text("x")
    (home / ".vimrc").write_text("source ~/proj/x.vim\n")
    started = time.monotonic()
    files = config_files(home, home / ".config")
    assert time.monotonic() - started < 10
    assert len(files) <= MAX_CONFIG_FILES
    assert files[0] == home / ".vimrc"
    assert len(files) == len(set(map(os.path.realpath, files)))  # each file once, loops or not


def test_a_path_is_compared_by_where_it_leads_and_unescaped(tmp_path):
    home = tmp_path / "home"
    root = home / "a b'c"
    (root / "x").mkdir(parents=True)
    (home / "code").symlink_to(root)  # ~/code -> "~/a b'c"
    text = "source ~/a\\ b\\'c/x/one.vim\nsource \"~/a b'c/x/two words.vim\"\n"
    text += "source ~/code/x/three.vim\nsource ~/a\\ b\\'cd/x/not.vim\ncd ~/a\\ b\\'c\n"
    assert set(paths_named_in(text, root, home)) == {
        root / "x/one.vim",
        root / "x/two words.vim",
        root / "x/three.vim",
    }


@needs_bwrap
def test_what_a_pattern_or_relative_include_of_your_configs_names_is_held_or_told(
    api, env, project
):
    # ssh reads every file an `Include` pattern matches, a relative one from ~/.ssh, and tmux
    # every file a `source-file` pattern matches: a `Match exec` or `run-shell` a command
    # writes into one runs at your next ssh or tmux. What matches now stays as it is, a folder
    # of the workspace the pattern's files lie in takes no new one, a file a command makes
    # elsewhere that the pattern matches is told, and the file tools ask before making one.
    user, workspace, _planloop_home, home = project
    includes = "Include ~/proj/ssh/extra-*.conf ../proj/ssh/relative.conf\n"
    includes += "Include ~/proj/*/ssh.conf\nInclude ~/*/ssh_config\n"
    write(home / ".ssh/config", includes + "Host x\n  User me\n", user)
    write(home / ".tmux.conf", "source-file -q ~/proj/tmux/local-?.conf\n", user)
    held = ["ssh/extra-1.conf", "ssh/relative.conf", "pkg/ssh.conf", "tmux/local-1.conf"]
    made = ["newpkg/ssh.conf", "ssh_config"]
    for name in held:
        write(workspace / name, "\n", user)
    write(workspace / "newpkg/README", "\n", user)
    command = each_writes([*held, "ssh/extra-2.conf", *made])
    output = run(api, env, project, command, write_to="other/ssh.conf")
    assert_held(output, workspace, held)
    assert not (workspace / "ssh/extra-2.conf").exists()
    assert not (workspace / "other/ssh.conf").exists()
    for name in made:
        assert f"[{name} is new." in output, output


@needs_bwrap
@pytest.mark.parametrize(("layout", "config", "text"), PLUGIN_FOLDER_PARENTS[::2])
def test_in_the_folder_that_holds_your_plugin_folders_only_what_vim_loads_is_held(
    api, env, project, layout, config, text
):
    # planloop run in ~/projects, the folder of your plugins and of other projects: vim loads
    # plugin/ and the like of each folder in it, and the rest stays yours to change. A new
    # plugin/ a command makes is told; the file tools ask before making one.
    user, _proj, planloop_home, home = project
    plugin = Path(layout).name
    workspace = home / "projects"
    write(home / config, text, user)
    for name in [f"{plugin}/plugin/mine.vim", f"{plugin}/README.md", "notes.md", "app/main.py"]:
        write(workspace / name, "\n", user)
    held = [f"{plugin}/plugin/mine.vim", "other/plugin/new.vim"]
    free = [f"{plugin}/README.md", "notes.md", "app/main.py"]
    command = "mkdir -p other/plugin; " + each_writes([*held, *free])
    write_to = "third/plugin/a.vim"
    output = run(api, env, (user, workspace, planloop_home, home), command, write_to=write_to)
    assert f"{plugin}/plugin/mine.vim rc=1" in output, output
    assert "[other/plugin is new." in output, output
    assert not (workspace / "third/plugin/a.vim").exists()
    assert_writable(output, workspace, free)


@needs_bwrap
def test_your_editor_and_shell_configs_are_read_beside_a_large_config_folder(api, env, project):
    # A desktop home's ~/.config holds thousands of files (browsers', IDEs', apps' states): the
    # files vim and ssh read from your dot folders are read all the same.
    user, workspace, _planloop_home, home = project
    for app in range(60):
        folder = home / ".config" / f"app{app}" / "conf"
        folder.mkdir(parents=True)
        for index in range(40):
            (folder / f"f{index}.conf").write_text("x = 1\n")
    write(home / ".vim/plugin/proj.vim", "source ~/proj/vim/project.vim\n", user)
    write(home / ".ssh/config.d/proj", "Host dev\n  ProxyCommand ~/proj/bin/proxy %h\n", user)
    assert_held_and_writable(api, env, project, ["vim/project.vim", "bin/proxy"], [])


@needs_bwrap
def test_what_your_vim_and_neovim_package_plugins_name_is_held(api, env, project):
    # vim loads ~/.vim/pack/*/start/*/plugin/*.vim at every start, and neovim its own from
    # ~/.local/share/nvim/site: a plugin of your own there is as deep as it is. A package's
    # docs are not loaded, and what they name stays writable.
    user, workspace, _planloop_home, home = project
    write(home / ".vim/pack/me/start/local/plugin/proj.vim", "source ~/proj/vim/a.vim\n", user)
    nvim = home / ".local/share/nvim/site/pack/me/opt/local"
    write(nvim / "lua/me/deep/init.lua", 'vim.cmd("source ~/proj/vim/b.vim")\n', user)
    write(home / ".vim/pack/me/start/local/doc/notes.txt", "see ~/proj/src/app.py\n", user)
    held = ["vim/a.vim", "vim/b.vim"]
    free = ["src/app.py"]
    assert_held_and_writable(api, env, project, held, free)
