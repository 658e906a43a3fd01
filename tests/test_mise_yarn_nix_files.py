"""What mise, yarn's Plug'n'Play and a nix flake read besides their first file.

mise reads `config.local.toml` and `config.<env>.toml` in `mise/` and `.config/mise/`; yarn berry
loads packages from `.yarn/cache` and `.yarn/unplugged`, not node_modules; a flake evaluates
the files it imports (`./nix/devshell.nix`, whose shellHook runs in your shell). Each is read by
a host tool outside the sandbox, so a command must not be able to change it unseen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.paths import is_host_tool_config, scan_for_file_tools
from tools.shell_config import nix_files
from tools.tool_scripts import npm_settings


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("config.toml", True),
        ("config.local.toml", True),
        ("config.dev.toml", True),
        ("config.dev.local.toml", True),
        ("conf.d", True),
        ("notes.toml", False),
        ("config.py", False),
    ],
)
def test_mises_folder_entries_are_its_config(name, counts):
    assert is_host_tool_config(name, "mise") is counts


@pytest.mark.parametrize("name", [".rtx.toml", ".rtx.local.toml", "rtx.toml", "mise.dev.toml"])
def test_mises_files_by_its_old_name_too(name):
    assert is_host_tool_config(name)


def test_yarns_package_store_is_held_beside_a_package_a_hook_runs(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"lint": "eslint ."}}))
    (tmp_path / ".yarn/cache").mkdir(parents=True)
    (tmp_path / ".yarn/unplugged").mkdir()
    hook = {"hooks": {"Stop": [{"hooks": [{"command": "yarn lint"}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps(hook))
    held = {
        str(path.relative_to(tmp_path))
        for path, _ in npm_settings(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    }
    assert {".pnp.cjs", ".yarn/cache", ".yarn/unplugged", ".yarn/releases"} <= held


def test_a_flake_holds_the_nix_files_it_imports_but_not_its_source_folder(tmp_path: Path):
    (tmp_path / "flake.nix").write_text(
        "{ outputs = { self, nixpkgs }: {\n"
        "  devShells.x86_64-linux.default = import ./nix/devshell.nix { };\n"
        "  packages.x86_64-linux.default = mkDerivation { src = ./.; };\n"
        "  modules = import ../shared { };\n"  # (above the folder: not in the workspace)
        "}; }\n"
    )
    (tmp_path / "nix").mkdir()
    (tmp_path / "nix/devshell.nix").write_text("{ }: { shellHook = import ./hook.nix; }\n")
    (tmp_path / "nix/hook.nix").write_text('"echo hi"\n')
    (tmp_path / "nix/lib").mkdir()
    (tmp_path / "nix/lib/default.nix").write_text("{ }\n")
    (tmp_path / "nix/devshell.nix").write_text(
        "{ }: { shellHook = import ./hook.nix; lib = import ./lib; }\n"
    )
    found = {str(p.relative_to(tmp_path)) for p in nix_files("flake", [], tmp_path) if p}
    assert {"flake.nix", "flake.lock", "nix/devshell.nix", "nix/hook.nix"} <= found
    assert "nix/lib/default.nix" in found
    assert "." not in found  # the project's source, data to the flake, stays the project's
    assert "nix/lib" not in found and "nix" not in found


def test_a_flake_holds_the_files_it_reads_into_the_shell_hook(tmp_path: Path):
    # `builtins.readFile ./scripts/hook.sh`, `"${./scripts/env.sh}"` and `./nix + "/dev.nix"`.
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts/hook.sh").write_text("echo hi\n")
    (tmp_path / "scripts/env.sh").write_text("export A=1\n")
    (tmp_path / "nix").mkdir()
    (tmp_path / "nix/dev.nix").write_text("{ }\n")
    (tmp_path / "flake.nix").write_text(
        "{ outputs = _: { devShells.x.default = mkShell {\n"
        '  shellHook = builtins.readFile ./scripts/hook.sh + "source ${./scripts/env.sh}";\n'
        '  inputsFrom = [ (import (./nix + "/dev.nix")) ];\n'
        "}; }; }\n"
    )
    found = {str(p.relative_to(tmp_path)) for p in nix_files("flake", [], tmp_path) if p}
    assert {"scripts/hook.sh", "scripts/env.sh", "nix/dev.nix"} <= found
