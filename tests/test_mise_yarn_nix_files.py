"""What mise, yarn's Plug'n'Play and a nix flake read besides their first file.

mise reads `config.local.toml` and `config.<env>.toml` in `mise/` and `.config/mise/`; yarn berry
loads packages from `.yarn/cache` and `.yarn/unplugged`, not node_modules; a flake evaluates
the files it imports (`./nix/devshell.nix`, whose shellHook runs in your shell). Each is read by
a host tool outside the sandbox, so a command must not be able to change it unseen.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from tools.paths import is_host_tool_config, scan_for_file_tools
from tools.shell_config import held_when_there, loaded_by_envrc, nix_files
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


@pytest.mark.parametrize(("name", "parent"), [(".miserc.toml", ""), ("miserc.toml", "mise")])
def test_mises_early_settings_are_its_config(name, parent):
    # Read before any mise.toml: they pick the MISE_ENV whose mise.<env>.toml is loaded, and
    # their templates can run a command (tera's `exec`).
    assert is_host_tool_config(name, parent)


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


def relative(root: Path, paths: Iterable[Path | None]) -> set[str]:
    return {str(path.relative_to(root)) for path in paths if path and path.is_relative_to(root)}


@pytest.mark.parametrize(
    "reference",
    [
        '"$PWD"',
        '"${PWD}"',
        '"$(pwd)"',
        '"path:$PWD#dev"',
        '"git+file://$PWD"',
        "path:${PWD}?dir=.#dev",
    ],
)
def test_use_flake_with_pwd_holds_the_flake_in_the_envrcs_folder(tmp_path: Path, reference):
    # direnv runs the .envrc in its own folder: `$PWD` is that folder, whatever the scheme.
    (tmp_path / ".envrc").write_text(f"use flake {reference}\n")
    (tmp_path / "flake.nix").write_text("{ outputs = _: { }; }\n")
    assert {"flake.nix", "flake.lock"} <= relative(tmp_path, loaded_by_envrc(tmp_path / ".envrc"))


@pytest.mark.parametrize(
    ("reference", "held"),
    [
        ('"path:$PWD?dir=nix#dev"', {"nix/flake.nix", "nix/flake.lock"}),
        ("git+file://{root}/nix", {"nix/flake.nix", "nix/flake.lock"}),
        ('"$SOMEWHERE"', set()),  # only the shell can tell: left as before
        ("github:numtide/devshell", set()),
    ],
)
def test_use_flake_takes_the_folder_its_reference_names(tmp_path: Path, reference, held):
    (tmp_path / ".envrc").write_text(f"use flake {reference.format(root=tmp_path)}\n")
    (tmp_path / "nix").mkdir()
    (tmp_path / "nix/flake.nix").write_text("{ outputs = _: { }; }\n")
    found = relative(tmp_path, loaded_by_envrc(tmp_path / ".envrc"))
    assert {name for name in found if "flake" in name} == held


def test_a_flake_holds_the_flake_of_each_input_in_a_folder_here(tmp_path: Path):
    # nix evaluates sub/flake.nix (with its own `self`) for `path:./sub`, not sub/default.nix.
    (tmp_path / "flake.nix").write_text(
        '{ inputs.sub.url = "path:./sub";\n'
        '  inputs.web = { url = "git+file:./web"; };\n'
        '  inputs.nixpkgs.url = "github:NixOS/nixpkgs";\n'
        "  outputs = { self, sub, web, nixpkgs }: sub.outputs; }\n"
    )
    for folder in ("sub", "web"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "flake.nix").write_text(
            '{ outputs = { self }: { x = import (self + "/shell.nix"); }; }\n'
        )
    (tmp_path / "sub/flake.lock").write_text("{}\n")
    found = relative(tmp_path, nix_files("flake", [], tmp_path))
    assert {"sub/flake.nix", "sub/flake.lock", "sub/shell.nix"} <= found
    assert {"web/flake.nix", "web/shell.nix"} <= found
    # Neither is imported as a folder: a missing default.nix or flake.lock would make commands
    # ask for nothing nix reads.
    assert not {"sub/default.nix", "web/default.nix", "web/flake.lock"} & found


def test_a_flake_holds_the_files_it_names_through_self_and_inside_a_folder(tmp_path: Path):
    (tmp_path / "flake.nix").write_text(
        "{ outputs = { self, nixpkgs }: { devShells.x.default = mkShell {\n"
        '  inputsFrom = [ (import (self + "/nix/shell.nix")) (import "${self}/nix/more.nix") ];\n'
        '  shellHook = builtins.readFile "${./scripts}/hook.sh";\n'
        "}; }; }\n"
    )
    (tmp_path / "nix").mkdir()
    (tmp_path / "nix/shell.nix").write_text("{ }\n")
    (tmp_path / "nix/more.nix").write_text('{ self }: import "${self}/nix/deep.nix"\n')
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts/hook.sh").write_text("echo hi\n")
    found = relative(tmp_path, nix_files("flake", [], tmp_path))
    assert {"nix/shell.nix", "nix/more.nix", "nix/deep.nix", "scripts/hook.sh"} <= found
    assert "scripts/default.nix" not in found  # the folder is copied, not imported


def test_use_nix_has_no_self(tmp_path: Path):
    # `self` is a flake's; in a shell.nix it is some variable, whose folder is not known.
    (tmp_path / "shell.nix").write_text('import (self + "/nix/x.nix")\n')
    assert "nix/x.nix" not in relative(tmp_path, nix_files("nix", [], tmp_path))


def test_use_devenv_holds_its_local_files_and_the_folders_devenv_yaml_imports(tmp_path: Path):
    files = {
        "devenv.nix": "{ }\n",
        "devenv.yaml": "imports:\n  - ./frontend\n  - ./nix/extra.nix\n  - my-input/module\n",
        "devenv.local.nix": "{ imports = [ ./nix/mine.nix ]; }\n",
        "frontend/devenv.nix": "{ }\n",
        "frontend/devenv.yaml": "imports: [ ../shared ]\n",
        "shared/devenv.nix": "{ }\n",
    }
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(content)
    found = relative(tmp_path, nix_files("devenv", [], tmp_path))
    assert {"devenv.nix", "devenv.yaml", "devenv.lock", "devenv.local.nix"} <= found
    assert {"nix/mine.nix", "nix/extra.nix"} <= found  # what the local file imports, too
    assert {"frontend/devenv.nix", "frontend/devenv.yaml", "shared/devenv.nix"} <= found
    assert not any(name.startswith("my-input") for name in found)  # an input's, fetched
    # Missing local files are held once made (reported then), not asked about.
    assert "devenv.local.yaml" not in found and "shared/devenv.yaml" not in found
    (tmp_path / ".envrc").write_text("use devenv\n")
    later = relative(
        tmp_path, (path for path, _ in held_when_there(tmp_path, [tmp_path / ".envrc"]))
    )
    assert {"devenv.local.yaml", "devenv.local.nix", "shared/devenv.yaml"} <= later
