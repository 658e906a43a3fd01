"""A host tool's line that runs a build tool holds the build file it reads (tools/build_files.py).

`make lint` in a hook, `make watch` as a VS Code folder-open task, `cargo check` after each edit:
the Makefile's recipe and a crate's build script run outside the sandbox then, as package.json's
scripts do for `npm run lint`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from test_git_programs import make, prefix
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders

from fakeapi import text, tool_use
from tools.build_files import CannotTell, build_files
from tools.paths import host_tool_settings, protected_reason, scan_for_file_tools
from tools.sandbox import held_for_commands_reason
from tools.tool_scripts import per_file_config_not_held, per_file_configs, tool_scripts

__all__ = ["user_folders"]  # a fixture, used by name below


def names(root: Path, paths: list[Path]) -> set[str]:
    return {str(path.relative_to(root)) for path in paths}


def test_make_reads_its_makefile_there_or_where_dash_c_and_dash_f_say(tmp_path):
    (tmp_path / "Makefile").write_text("include common.mk\nlint:\n\t./lint.sh\n")
    (tmp_path / "common.mk").write_text("")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "build.mk").write_text("")
    held, told = build_files("make", ("lint",), tmp_path, tmp_path)
    assert names(tmp_path, held) == {"Makefile", "common.mk"}
    assert {"GNUmakefile", "makefile", "Makefile"} <= names(tmp_path, told)  # GNUmakefile first
    held, told = build_files("make", ("-C", "web", "-f", "build.mk"), tmp_path, tmp_path)
    assert names(tmp_path, held) == {"web/build.mk"}
    held, _ = build_files("make", ("--directory=web",), tmp_path, tmp_path)
    assert held == []


def test_make_holds_the_includes_as_make_splits_and_joins_the_lines(tmp_path):
    # make splits the names at a space or a tab only (`a<VT>b.mk` is one file), joins a line
    # ending in a backslash to the next, drops a comment, takes `\ ` as a blank in a name,
    # and reads `-include` lines and the includes of an included file too.
    makefile = "include a\vb.mk \\\n  c.mk # d.mk\n-include e\\ f.mk\nall:\n\ttrue\n"
    (tmp_path / "Makefile").write_text(makefile)
    for name in ("a\vb.mk", "d.mk", "e f.mk", "g.mk"):
        (tmp_path / name).write_text("X = 1\n")
    (tmp_path / "c.mk").write_text("sinclude g.mk\n")
    held, _ = build_files("make", (), tmp_path, tmp_path)
    assert names(tmp_path, held) == {"Makefile", "a\vb.mk", "c.mk", "e f.mk", "g.mk"}


def test_just_and_task_read_theirs(tmp_path):
    (tmp_path / "justfile").write_text("lint:\n  ./lint.sh\n")
    (tmp_path / "sub").mkdir()
    held, told = build_files("just", ("lint",), tmp_path / "sub", tmp_path)
    assert names(tmp_path, held) == {"justfile"} and "sub/justfile" in names(tmp_path, told)
    (tmp_path / "Taskfile.yml").write_text("version: '3'\n")
    held, _ = build_files("task", ("lint",), tmp_path, tmp_path)
    assert names(tmp_path, held) == {"Taskfile.yml"}


def test_just_and_task_hold_the_files_they_import_and_include(tmp_path):
    # just reads what `import` names and a module's file (`mod deploy`: deploy.just, or
    # deploy/mod.just or a justfile there; `mod ci 'path'`), and those read theirs in turn;
    # Task reads each Taskfile its `includes:` name, or the one in a folder named.
    files = {
        "justfile": "import 'tasks.just'\nimport? \"t\\u{61}sks2.just\"\nmod deploy\n"
        "[private]\nmod? ci 'ci/build.just'\nmodules := 'x'\n",
        "tasks.just": "mod lint\n",
        "tasks2.just": "",
        "deploy.just": "",
        "lint/Justfile": "",
        "ci/build.just": "",
        "Taskfile.yml": "version: '3'\nincludes:\n  ci: ./ci/Taskfile.yml\n"
        "  docs: {taskfile: docs}\n  web: {taskfile: ./web/Tasks.yml}\n",
        "ci/Taskfile.yml": "version: '3'\nincludes:\n  more: ../more.yml\n",
        "more.yml": "version: '3'\n",
        "docs/Taskfile.yml": "version: '3'\n",
    }
    for name, content in files.items():
        make(tmp_path / name, content, "root")
    held, told = build_files("just", ("build",), tmp_path, tmp_path)
    just_held = {"justfile", "tasks.just", "tasks2.just", "deploy.just", "lint/Justfile"}
    assert names(tmp_path, held) == just_held | {"ci/build.just"}
    assert "deploy/mod.just" in names(tmp_path, told)  # made there, just would refuse both
    held, told = build_files("task", (), tmp_path, tmp_path)
    task_held = {"Taskfile.yml", "ci/Taskfile.yml", "more.yml", "docs/Taskfile.yml"}
    assert names(tmp_path, held) == task_held
    assert "web/Tasks.yml" in names(tmp_path, told)


def test_make_holds_what_an_eval_includes(tmp_path):
    # `$(eval include x)` has make read the line as its own: x is included like any other.
    (tmp_path / "Makefile").write_text("MK := mk\n$(eval include $(MK)/extra.mk)\nlint:\n\ttrue\n")
    (tmp_path / "mk").mkdir()
    (tmp_path / "mk" / "extra.mk").write_text("")
    held, _ = build_files("make", ("lint",), tmp_path, tmp_path)
    assert names(tmp_path, held) == {"Makefile", "mk/extra.mk"}
    (tmp_path / "Makefile").write_text("x := ${eval -include $(shell ls mk)}\n")
    with pytest.raises(CannotTell, match="only make can tell"):
        build_files("make", ("lint",), tmp_path, tmp_path)


def test_a_taskfile_planloop_cannot_parse_makes_commands_ask(tmp_path):
    # Go's YAML takes the first document and leaves the rest: task reads this Taskfile's
    # includes, which PyYAML, refusing a second document, never saw.
    (tmp_path / "Taskfile.yml").write_text(
        "version: '3'\nincludes:\n  ci: ./ci/Taskfile.yml\n---\n# generated\n"
    )
    with pytest.raises(CannotTell, match="Taskfile.yml"):
        build_files("task", (), tmp_path, tmp_path)


def test_cargo_reads_the_manifests_up_the_tree_and_each_members_build_script(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["crates/*"]\n')
    for crate, manifest in {
        "a": "[package]\nname = 'a'\n",
        "b": "[package]\nbuild = 'gen.rs'\n",
    }.items():
        (tmp_path / "crates" / crate).mkdir(parents=True)
        (tmp_path / "crates" / crate / "Cargo.toml").write_text(manifest)
    (tmp_path / "crates/b/gen.rs").write_text("fn main() {}\n")
    held, told = build_files("cargo", ("check",), tmp_path / "crates" / "a", tmp_path)
    assert {"Cargo.toml", "crates/a/Cargo.toml", "crates/b/Cargo.toml"} <= names(tmp_path, held)
    assert {"crates/a/build.rs", "crates/b/gen.rs", "build.rs"} <= names(tmp_path, told)


def cargo_workspace(root: Path, user: str = "root") -> None:
    """A workspace whose build runs code of its own: a proc macro (with a local crate it
    uses), a build script's local dependency; and a plain library, which only the built
    program runs."""
    crates = {
        "Cargo.toml": '[workspace]\nmembers = ["app", "macros"]\n',
        "app/Cargo.toml": "[package]\nname = 'app'\n[dependencies]\n"
        "macros = { path = '../macros' }\nutil = { path = '../util' }\n"
        "[build-dependencies]\ngen = { path = '../gen' }\n",
        "macros/Cargo.toml": "[package]\nname = 'macros'\n[lib]\nproc-macro = true\n"
        "[dependencies]\nmacros-core = { path = '../core' }\n",
        "core/Cargo.toml": "[package]\nname = 'macros-core'\n",
        "gen/Cargo.toml": "[package]\nname = 'gen'\n[lib]\npath = 'lib/gen.rs'\n",
        "util/Cargo.toml": "[package]\nname = 'util'\n",
    }
    for name, manifest in crates.items():
        make(root / name, manifest, user, mode=0o644)
    for source in ("app/src/main.rs", "macros/src/lib.rs", "core/src/lib.rs", "gen/lib/gen.rs"):
        make(root / source, "// the crate's code\n", user, mode=0o644)
    make(root / "util/src/lib.rs", "// the crate's code\n", user, mode=0o644)


def test_cargo_holds_the_source_of_the_crates_the_compiler_runs(tmp_path):
    cargo_workspace(tmp_path)
    held, told = build_files("cargo", ("build",), tmp_path, tmp_path)
    held_names = names(tmp_path, held)
    assert {"macros/src", "core/src", "gen/lib"} <= held_names
    assert not {"app/src", "util/src"} & held_names  # run by the program built, not the build
    assert {"util/Cargo.toml", "gen/Cargo.toml"} <= held_names  # local crates' manifests
    assert "util/build.rs" in names(tmp_path, told)


@pytest.mark.parametrize(
    ("settings_file", "settings"),
    [
        (".claude/settings.json", {"hooks": {"Stop": [{"hooks": [{"command": "make lint"}]}]}}),
        (
            ".vscode/tasks.json",
            {
                "tasks": [
                    {"label": "w", "command": "make watch", "runOptions": {"runOn": "folderOpen"}}
                ]
            },
        ),
        (".devcontainer.json", {"initializeCommand": "make init"}),
    ],
)
def test_each_host_tool_that_runs_make_holds_the_makefile(tmp_path, settings_file, settings):
    (tmp_path / "Makefile").write_text("lint:\n\ttrue\n")
    (tmp_path / settings_file).parent.mkdir(exist_ok=True)
    (tmp_path / settings_file).write_text(json.dumps(settings))
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    assert "Makefile" in names(tmp_path, [path for path, _ in scripts.named])
    assert "GNUmakefile" in names(tmp_path, [path for path, _ in scripts.when_there])


@needs_bwrap
def test_a_command_cannot_rewrite_the_makefile_a_hook_runs_and_a_new_one_is_told(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    hook = {"hooks": {"PostToolUse": [{"hooks": [{"command": "make -s lint"}]}]}}
    make(workspace / ".claude/settings.json", json.dumps(hook), user, mode=0o644)
    make(workspace / "Makefile", "lint:\n\t@echo linted\n", user, mode=0o644)
    marker = home / "planted-ran"
    planted = f"lint:\\n\\t@touch {marker}\\n"
    command = f"printf '{planted}' >> Makefile; printf '{planted}' > GNUmakefile; echo finished"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert "Makefile: Read-only file system" in ran and "finished" in ran, ran
    assert "GNUmakefile is new. It was kept, and the user was told" in ran, ran
    assert "GNUmakefile (a build tool a host tool runs reads it)" in result.stderr
    assert (workspace / "Makefile").read_text() == "lint:\n\t@echo linted\n"
    (workspace / "GNUmakefile").unlink()  # the person, told, removes it; then the hook runs
    subprocess.run([*prefix(user), "make", "-s", "lint"], cwd=workspace, capture_output=True)
    assert not marker.exists()


@needs_bwrap
def test_a_command_cannot_rewrite_a_proc_macro_a_folder_open_cargo_task_runs(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    cargo_workspace(workspace, user)
    task = {"label": "b", "command": "cargo build", "runOptions": {"runOn": "folderOpen"}}
    make(workspace / ".vscode/tasks.json", json.dumps({"tasks": [task]}), user, mode=0o644)
    plant = "echo '// planted' >> macros/src/lib.rs; echo '// planted' >> core/src/lib.rs"
    edit = "echo '// edited' >> util/src/lib.rs; echo finished"
    api.add({"content": [tool_use("bash", {"command": f"{plant}; {edit}"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert ran.count("Read-only file system") == 2 and "finished" in ran, ran
    assert (workspace / "macros/src/lib.rs").read_text() == "// the crate's code\n"
    assert (workspace / "util/src/lib.rs").read_text().endswith("// edited\n")  # the project's


def test_cargo_from_a_member_manifest_reads_the_workspace_above_it(tmp_path):
    # `cargo build --manifest-path app/Cargo.toml` finds the workspace's root above app/, and
    # with it the proc macro a member takes with `{ workspace = true }`.
    make(tmp_path / "Cargo.toml", '[workspace]\nmembers = ["app", "macros"]\n'
         '[workspace.dependencies]\nmacros = { path = "macros" }\n', "root", 0o644)  # fmt: skip
    make(tmp_path / "app/Cargo.toml", "[package]\nname = 'app'\n[dependencies]\n"
         "macros = { workspace = true }\n", "root", 0o644)  # fmt: skip
    make(tmp_path / "macros/Cargo.toml", "[package]\nname = 'macros'\n[lib]\nproc-macro = true\n",
         "root", 0o644)  # fmt: skip
    make(tmp_path / "macros/src/lib.rs", "// the crate's code\n", "root", 0o644)
    words = ("build", "--manifest-path", "app/Cargo.toml")
    held, _ = build_files("cargo", words, tmp_path, tmp_path)
    assert {"Cargo.toml", "app/Cargo.toml", "macros/src"} <= names(tmp_path, held)


def test_cargo_holds_the_crates_its_settings_put_in_place_of_published_ones(tmp_path):
    # `[patch.crates-io]` and `[replace]` in the manifest, `paths` and a vendored source (what
    # `cargo vendor` writes) in .cargo/config.toml: cargo builds those, proc macros included.
    make(tmp_path / "Cargo.toml", "[package]\nname = 'app'\n[dependencies]\npm = '0.1'\n"
         "[patch.crates-io]\npm = { path = 'patched/pm' }\n"
         "[replace]\n'old:0.1.0' = { path = 'replaced/old' }\n", "root", 0o644)  # fmt: skip
    config = ('paths = ["overrides/ov"]\n[source.crates-io]\nreplace-with = "v"\n'
              '[source.v]\ndirectory = "vendor"\n')  # fmt: skip
    make(tmp_path / ".cargo/config.toml", config, "root", 0o644)
    for crate in ("patched/pm", "replaced/old", "overrides/ov"):
        make(
            tmp_path / crate / "Cargo.toml", "[package]\n[lib]\nproc-macro = true\n", "root", 0o644
        )
        make(tmp_path / crate / "src/lib.rs", "// the crate's code\n", "root", 0o644)
    make(tmp_path / "vendor/vm/src/lib.rs", "// a vendored crate\n", "root", 0o644)
    held, told = build_files("cargo", ("build",), tmp_path, tmp_path)
    expected = {"patched/pm/src", "replaced/old/src", "overrides/ov/src", "vendor"}
    assert expected <= names(tmp_path, held)
    assert ".cargo/config.toml" in names(tmp_path, told)


def test_cargo_holds_a_local_registry_whole_but_not_the_lock(tmp_path):
    # `local-registry = "reg"`: cargo builds the `.crate` files there that the index lists, so
    # a command that added a version with a build script would have it run. Cargo.lock stays
    # the command's to write (`cargo add`), choosing only among versions already there.
    make(tmp_path / "Cargo.toml", "[package]\nname = 'app'\n[dependencies]\nfoo = '1'\n", "root")
    config = '[source.crates-io]\nreplace-with = "loc"\n[source.loc]\nlocal-registry = "reg"\n'
    make(tmp_path / ".cargo/config.toml", config, "root")
    make(tmp_path / "reg/index/3/f/foo", '{"name": "foo", "vers": "1.0.0"}\n', "root")
    make(tmp_path / "Cargo.lock", "version = 3\n", "root")
    held, _ = build_files("cargo", ("check",), tmp_path, tmp_path)
    assert "reg" in names(tmp_path, held)
    assert "Cargo.lock" not in names(tmp_path, held)


def gradle_build(root: Path, user: str = "root") -> None:
    """A Gradle build with its wrapper: settings that include two projects and a build of
    convention plugins, scripts the root's build applies, buildSrc, and a version catalog."""
    files = {
        "gradlew": "#!/bin/sh\n",
        "gradle/wrapper/gradle-wrapper.jar": "jar\n",
        "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=https://x/gradle.zip\n",
        "settings.gradle": "includeBuild 'build-logic'\ninclude ':app',\n  ':lib:core'\n",
        "build.gradle": "apply from: 'gradle/extra.gradle'\n",
        "gradle/extra.gradle": "apply from: 'more.gradle'\n",
        "gradle/more.gradle": "// applied in turn\n",
        "gradle/libs.versions.toml": "[versions]\n",
        "gradle.properties": "org.gradle.jvmargs=-Xmx2g\n",
        "buildSrc/src/main/groovy/Plugin.groovy": "// compiled and run\n",
        "build-logic/src/main/kotlin/conventions.gradle.kts": "// compiled and run\n",
        "app/build.gradle.kts": "plugins { java }\n",
        "lib/core/build.gradle": "// the core's build\n",
    }
    for name, content in files.items():
        make(root / name, content, user, mode=0o755 if name == "gradlew" else 0o644)


def test_gradle_reads_its_settings_up_the_tree_and_what_they_include(tmp_path):
    gradle_build(tmp_path)
    held, told = build_files("gradlew", ("build",), tmp_path / "app", tmp_path)
    assert names(tmp_path, held) == {
        "settings.gradle",
        "build.gradle",
        "gradle/extra.gradle",
        "gradle/more.gradle",
        "app/build.gradle.kts",
        "lib/core/build.gradle",
        "gradle.properties",
        "buildSrc",
        "build-logic",
        "gradle/wrapper/gradle-wrapper.jar",
        "gradle/wrapper/gradle-wrapper.properties",
        "gradle/libs.versions.toml",
    }
    # A settings file made nearer would be the build's root; lib has no build file yet.
    assert {"app/settings.gradle.kts", "lib/build.gradle"} <= names(tmp_path, told)


def test_gradle_holds_the_version_catalogs_that_choose_the_plugins_it_runs(tmp_path):
    # `alias(libs.plugins.fmt)` in build.gradle applies the plugin id and version the catalog
    # gives: rewriting the catalog is rewriting the build.
    gradle_build(tmp_path)
    catalogs = 'versionCatalogs {\n  create("tools") {\n    from(files("gradle/tools.toml"))\n'
    make(
        tmp_path / "settings.gradle.kts",
        f"dependencyResolutionManagement {{ {catalogs} }} }}",
        "root",
    )
    make(tmp_path / "gradle/tools.toml", "[plugins]\n", "root")
    held, _ = build_files("gradle", ("build",), tmp_path, tmp_path)
    assert {"gradle/libs.versions.toml", "gradle/tools.toml"} <= names(tmp_path, held)


# The wrapper runs a Gradle kept in the project: unpacked under distributionPath, or taken from
# a zip its `file:` URL names from the properties' folder (`\\:` is how .properties write `:`).
WORKSPACE_GRADLE = {
    "gradle/wrapper/gradle-wrapper.properties": "distributionBase=PROJECT\n"
    "distributionPath=.gradle/wrapper/\\\n    dists\nzipStoreBase=PROJECT\nzipStorePath=zips\n"
    "distributionUrl=file\\:../../dist/gradle-8-bin.zip\n",
    "dist/gradle-8-bin.zip": "zip\n",
    ".gradle/wrapper/dists/gradle-8-bin/h/gradle-8/bin/gradle": "#!/bin/sh\n",
}


def test_the_wrapper_holds_the_gradle_it_runs_from_the_project(tmp_path):
    gradle_build(tmp_path)
    for name, content in WORKSPACE_GRADLE.items():
        make(tmp_path / name, content, "root")
    held, told = build_files("gradlew", ("build",), tmp_path, tmp_path)
    assert {"dist/gradle-8-bin.zip", ".gradle/wrapper/dists/gradle-8-bin"} <= names(tmp_path, held)
    assert "zips/gradle-8-bin" in names(tmp_path, told)  # its zip, when a command puts one there
    # A URL without a scheme is a path from the same folder; one with a host's is not here.
    for url, expected in (("../gradle.zip", {"gradle/gradle.zip"}), ("https://x/g.zip", set())):
        properties = f"distributionUrl={url}\n"
        make(tmp_path / "gradle/wrapper/gradle-wrapper.properties", properties, "root")
        _, told = build_files("gradlew", ("build",), tmp_path, tmp_path)
        assert names(tmp_path, told) & {"gradle/gradle.zip", "x/g.zip"} == expected


def test_plain_gradle_reads_the_project_dash_p_names_and_no_wrapper(tmp_path):
    gradle_build(tmp_path)
    held, _ = build_files("gradle", ("-p", "lib/core", "-I", "init.gradle"), tmp_path, tmp_path)
    assert "settings.gradle" in names(tmp_path, held)  # found above lib/core
    assert not any("wrapper" in name for name in names(tmp_path, held))
    (tmp_path / "init.gradle").write_text("// run first\n")
    held, _ = build_files("gradle", ("--init-script=init.gradle",), tmp_path, tmp_path)
    assert "init.gradle" in names(tmp_path, held)


def folder_open_scripts(root: Path, command: str, env: dict | None = None) -> tuple[set, set]:
    """(held, told when made) for a VS Code task that runs `command` when the folder opens."""
    task = {"label": "t", "command": command, "runOptions": {"runOn": "folderOpen"}}
    task |= {"options": {"env": env}} if env else {}
    make(root / ".vscode/tasks.json", json.dumps({"tasks": [task]}), "root")
    return held_and_told(root)


def held_and_told(root: Path) -> tuple[set, set]:
    """(held, told when made) for what the host tools' settings in `root` run."""
    scripts = tool_scripts(root, scan_for_file_tools(root).tool_configs)
    held = names(root, [path for path, _ in scripts.named])
    return held, names(root, [path for path, _ in scripts.when_there])


@pytest.mark.parametrize(
    ("command", "env"),
    [
        ("./gradlew -g .gh build", None),
        ("./gradlew --gradle-user-home=.gh build", None),
        ("GRADLE_USER_HOME=.gh ./gradlew build", None),
        ("./gradlew build", {"GRADLE_USER_HOME": ".gh"}),
        # The java options gradlew passes to java: Gradle takes the property before the variable.
        ("GRADLE_OPTS=-Dgradle.user.home=.gh ./gradlew build", None),
        ("JAVA_OPTS='-Xmx1g -Dgradle.user.home=.gh' ./gradlew build", None),
        ("./gradlew build", {"GRADLE_OPTS": "-Dgradle.user.home=.gh"}),
    ],
)
def test_gradle_holds_a_user_home_in_the_workspace_whole(tmp_path, command, env):
    # Every build runs the user home's init.gradle and init.d/ scripts and takes JVM options
    # from its gradle.properties; one not made yet is reported when a command makes it.
    gradle_build(tmp_path)
    held, told = folder_open_scripts(tmp_path, command, env)
    assert ".gh" not in held and ".gh" in told
    make(tmp_path / ".gh/init.d/a.gradle", "// run by every build\n", "root")
    held, _ = folder_open_scripts(tmp_path, command, env)
    assert {".gh", "settings.gradle"} <= held


@pytest.mark.parametrize(
    ("command", "env"),
    [
        ("./gradlew build", {"JAVA_OPTS": "-Xmx1g -javaagent:tools/a.jar=verbose"}),
        ("GRADLE_OPTS=-agentpath:tools/a.jar ./gradlew build", None),
        ("./mvnw compile", {"MAVEN_OPTS": "-javaagent:tools/a.jar"}),
        ("MAVEN_OPTS=-javaagent:tools/a.jar mvn compile", None),
    ],
)
def test_the_java_agents_of_a_build_tools_options_are_held(tmp_path, command, env):
    # The start scripts pass these variables to java, which runs each agent's code; the other
    # options (`-Xmx1g`) name nothing that runs.
    make(tmp_path / "tools/a.jar", "jar\n", "root")
    make(tmp_path / "tools/b.jar", "jar\n", "root")
    held, _ = folder_open_scripts(tmp_path, command, env)
    assert "tools/a.jar" in held and "tools/b.jar" not in held


def maven_build(root: Path, user: str = "root") -> None:
    """A Maven build with its wrapper and .mvn settings, and modules named by folder and by
    pom file, one with a module of its own."""
    poms = {
        "pom.xml": "<modules><module>core</module><module>web/pom.xml</module></modules>",
        "core/pom.xml": "<modules>\n  <module>sub</module>\n</modules>",
        "core/sub/pom.xml": "<project/>",
        "web/pom.xml": "<project/>",
    }
    files = {
        "mvnw": "#!/bin/sh\n",
        ".mvn/wrapper/maven-wrapper.jar": "jar\n",
        ".mvn/wrapper/maven-wrapper.properties": "distributionUrl=https://x/maven.zip\n",
        ".mvn/jvm.config": "-Xmx1g\n",
        ".mvn/extensions.xml": "<extensions/>\n",
        **poms,
    }
    for name, content in files.items():
        make(root / name, content, user, mode=0o755 if name == "mvnw" else 0o644)


def test_maven_reads_the_pom_its_modules_and_the_base_folders_mvn(tmp_path):
    maven_build(tmp_path)
    held, told = build_files("mvnw", ("-fae", "compile"), tmp_path, tmp_path)  # -fae: no file
    poms = {"pom.xml", "core/pom.xml", "core/sub/pom.xml", "web/pom.xml"}
    assert names(tmp_path, held) == {".mvn", *poms}
    held, told = build_files("mvn", ("-f", "core", "compile"), tmp_path, tmp_path)
    assert names(tmp_path, held) == {".mvn", "core/pom.xml", "core/sub/pom.xml", "pom.xml"}
    assert "core/.mvn" in names(tmp_path, told)  # made there, it would be the base folder


# Maven inherits the build's plugins from the pom each `<parent>`'s `<relativePath>` names (a
# folder: its pom.xml; none: ../pom.xml; empty: the repository's), wherever it lies.
PARENT_POMS = {
    "pom.xml": "<project><parent><relativePath>parent</relativePath></parent>"
    "<modules><module>libs/x</module></modules></project>",
    "parent/pom.xml": "<project><parent>\n<relativePath>../base/pom.xml</relativePath>\n</parent>",
    "base/pom.xml": "<!-- <parent><relativePath>../decoy.xml</relativePath></parent> -->"
    "<project><parent><relativePath/></parent></project>",
    "libs/x/pom.xml": "<project><parent><artifactId>libs</artifactId></parent></project>",
}


def test_maven_holds_the_parents_its_poms_name_wherever_they_lie(tmp_path):
    for name, content in PARENT_POMS.items():
        make(tmp_path / name, content, "root")
    held, told = build_files("mvn", ("compile",), tmp_path, tmp_path)
    assert {"parent/pom.xml", "base/pom.xml", "libs/x/pom.xml"} <= names(tmp_path, held)
    assert "libs/pom.xml" in names(tmp_path, told)  # the module's, once a command makes it
    assert "decoy.xml" not in names(tmp_path, told)  # (a comment)


@pytest.mark.parametrize(
    ("gradle", "maven"),
    [
        ("./gradlew build", "./mvnw -q compile"),
        ("sh gradlew build", "bash ./mvnw -q compile"),  # the wrapper run by a shell
        ("bash -c './gradlew build'", "sh -e mvnw compile"),
    ],
)
def test_a_folder_open_wrapper_task_holds_what_the_wrapper_runs(tmp_path, gradle, maven):
    gradle_build(tmp_path)
    maven_build(tmp_path)
    tasks = [
        {"label": name, "command": command, "runOptions": {"runOn": "folderOpen"}}
        for name, command in (("g", gradle), ("m", maven))
    ]
    make(tmp_path / ".vscode/tasks.json", json.dumps({"tasks": tasks}), "root")
    scripts = tool_scripts(tmp_path, scan_for_file_tools(tmp_path).tool_configs)
    held = names(tmp_path, [path for path, _ in scripts.named])
    assert {"gradlew", "gradle/wrapper/gradle-wrapper.jar", "settings.gradle", "buildSrc"} <= held
    assert {"mvnw", ".mvn", "pom.xml", "web/pom.xml"} <= held
    assert "lib/build.gradle" in names(tmp_path, [path for path, _ in scripts.when_there])


@needs_bwrap
def test_a_command_cannot_rewrite_what_a_folder_open_gradle_or_maven_task_runs(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    gradle_build(workspace, user)
    maven_build(workspace, user)
    for name, content in WORKSPACE_GRADLE.items():
        make(workspace / name, content, user, mode=0o644)
    make(workspace / "web/pom.xml", PARENT_POMS["pom.xml"], user, mode=0o644)  # parent: web/parent
    make(workspace / "web/parent/pom.xml", "<project/>", user, mode=0o644)
    tasks = [
        {"label": name, "command": command, "runOptions": {"runOn": "folderOpen"}}
        for name, command in (("g", "./gradlew build"), ("m", "./mvnw compile"))
    ]
    make(workspace / ".vscode/tasks.json", json.dumps({"tasks": tasks}), user, mode=0o644)
    attacked = [
        "dist/gradle-8-bin.zip",
        "gradle/libs.versions.toml",
        "web/parent/pom.xml",
        ".gradle/wrapper/dists/gradle-8-bin/h/gradle-8/bin/gradle",
        "gradle/wrapper/gradle-wrapper.jar",
        "gradle/wrapper/gradle-wrapper.properties",
        "settings.gradle",
        "build.gradle",
        "buildSrc/src/main/groovy/Plugin.groovy",
        ".mvn/jvm.config",
        ".mvn/wrapper/maven-wrapper.jar",
        "pom.xml",
    ]
    new = "echo '// made' > lib/build.gradle"  # lib is included, and has no build file yet
    refused_and_told(api, env, user_folders, attacked, new, "lib/build.gradle")


def refused_and_told(api, env, user_folders, attacked: list[str], new: str, made: str) -> None:
    """A command appends to each file of `attacked`, then runs `new`, which makes `made`: each
    write is refused while the rest runs, and the person is told of the new file."""
    user, workspace, planloop_home, home = user_folders
    plant = "; ".join(f"echo planted >> {name}" for name in attacked)
    api.add({"content": [tool_use("bash", {"command": f"{plant}; {new}; echo finished"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert ran.count("Read-only file system") == len(attacked) and "finished" in ran, ran
    assert f"{made} is new. It was kept, and the user was told" in ran, ran
    for name in attacked:
        assert "planted" not in (workspace / name).read_text(), name


@needs_bwrap
def test_a_file_named_like_an_option_is_told_and_the_file_tools_ask(api, env, user_folders):
    # pre-commit hands `--plugin=fmt.mjs`, a staged file, to prettier: an option that loads code.
    # `git diff --name-only | xargs prettier` splits `b.js --plugin=p.mjs` into two. While one
    # is there, what it loads is its own to say: later commands ask (refused, headless).
    user, workspace, planloop_home, home = user_folders
    made = "touch -- --plugin=fmt.mjs 'b.js --plugin=p.mjs'; echo finished"
    api.add({"content": [tool_use("bash", {"command": made})]})
    api.add({"content": [tool_use("write_file", {"path": "--config=x.mjs", "content": "x"})]})
    api.add({"content": [tool_use("write_file", {"path": "c.js -c=y.mjs", "content": "x"})]})
    api.add({"content": [tool_use("bash", {"command": "echo the next command ran"})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    ran, wrote, wrote_blank, next_command = tool_results(api)
    for name in ("--plugin=fmt.mjs", "b.js --plugin=p.mjs"):
        assert f"{name} is new. It was kept, and the user was told" in ran, ran
        assert name in result.stderr  # (on the terminal, and in the closing words)
    assert "an option" in wrote and not (workspace / "--config=x.mjs").exists()
    assert "an option" in wrote_blank and not (workspace / "c.js -c=y.mjs").exists()
    assert "the next command ran" not in next_command
    assert "is in the workspace: a name that begins with `-`" in next_command, next_command


@pytest.mark.parametrize(
    ("name", "an_option"),
    [
        ("--plugin=fmt.mjs", True),
        ("b.js --plugin=p.mjs", True),
        ("notes\t-c=x.mjs", True),
        # (xargs takes quotes and backslashes out: each of these hands prettier `--plugin=...`)
        ("b.js ''--plugin=p.mjs", True),
        ("b.js '-'-plugin=p.mjs", True),
        ('b.js "-"-plugin=p.mjs', True),
        ("b.js \\--plugin=p.mjs", True),
        ("Report - Copy.txt", False),  # (a dash alone is no option: xargs hands `-` on)
        ("2024-report.txt", False),
    ],
)
def test_a_name_is_an_option_only_where_a_dash_starts_a_word(tmp_path, name, an_option):
    reason = protected_reason(tmp_path, name) or ""
    assert ("is an option to the linters" in reason) == an_option


@pytest.mark.parametrize(
    ("command", "env"),
    [
        ("MAKEFILES=mk/common.mk make watch", None),
        ("make watch", {"MAKEFILES": "mk/common.mk"}),
        ("make MAKEFILES=mk/common.mk watch", None),
        ("export MAKEFILES='x.mk mk/common.mk'; make watch", None),
        ("MAKEFLAGS='-f mk/common.mk' make watch", None),
        ("make watch", {"MAKEFLAGS": "--file=mk/common.mk"}),
        ("MAKEFLAGS='MAKEFILES=mk/common.mk' make watch", None),
    ],
)
def test_make_holds_the_makefiles_its_variables_name(tmp_path, command, env):
    # make reads MAKEFILES' files before the Makefile, from the line or the task's variables.
    make(tmp_path / "Makefile", "watch:\n\ttrue\n", "root")
    make(tmp_path / "mk/common.mk", "include rules.mk\n", "root")
    make(tmp_path / "mk/rules.mk", "X = 1\n", "root")
    held, _ = folder_open_scripts(tmp_path, command, env)
    assert {"Makefile", "mk/common.mk"} <= held
    (tmp_path / "mk/common.mk").unlink()  # not there: reported when a command makes it
    held, told = folder_open_scripts(tmp_path, command, env)
    assert "mk/common.mk" not in held and "mk/common.mk" in told


@pytest.mark.parametrize(
    ("command", "env"),
    [
        ("make -I mk watch", None),
        ("make --include-dir=mk watch", None),
        ("MAKEFLAGS=-Imk make watch", None),
        ("make watch", {"MAKEFLAGS": "I mk"}),  # a first word without a dash: its letters
        ("make watch", {"MAKEFLAGS": "--include-dir mk"}),
    ],
)
def test_make_holds_what_it_includes_from_an_include_folder(tmp_path, command, env):
    make(tmp_path / "Makefile", "include common.mk\nwatch:\n\ttrue\n", "root")
    make(tmp_path / "common.mk", "X = 1\n", "root")
    make(tmp_path / "mk/common.mk", "X = 2\n", "root")
    held, _ = folder_open_scripts(tmp_path, command, env)
    assert "common.mk" in held and "mk/common.mk" not in held  # make reads the folder's first
    (tmp_path / "common.mk").unlink()
    held, _ = folder_open_scripts(tmp_path, command, env)
    assert {"Makefile", "mk/common.mk"} <= held


MAKEFILES_TASK = {"label": "w", "command": "MAKEFILES=mk/common.mk make -s watch"}
MAKEFILES_TASK["runOptions"] = {"runOn": "folderOpen"}


@needs_bwrap
@pytest.mark.parametrize(
    ("config", "settings"),
    [
        (".vscode/tasks.json", {"tasks": [MAKEFILES_TASK]}),
        # Every VS Code terminal starts with it, and the person types `make -s watch` there.
        (".vscode/settings.json", {"terminal.integrated.env.linux": {"MAKEFILES": "mk/common.mk"}}),
    ],
    ids=["task", "terminal"],
)
def test_a_command_cannot_rewrite_the_makefile_that_makefiles_names(
    api, env, user_folders, config, settings
):
    user, workspace, planloop_home, home = user_folders
    make(workspace / config, json.dumps(settings), user, mode=0o644)
    make(workspace / "Makefile", "watch:\n\t@echo watching\n", user, mode=0o644)
    make(workspace / "mk/common.mk", "X = 1\n", user, mode=0o644)
    marker = home / "planted-ran"
    command = f"printf 'X := $(shell touch {marker})\\n' > mk/common.mk; echo finished"
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    assert "mk/common.mk: Read-only file system" in ran and "finished" in ran, ran
    line = MAKEFILES_TASK["command"]
    subprocess.run([*prefix(user), "sh", "-c", line], cwd=workspace, capture_output=True)
    assert not marker.exists()


PRE_COMMIT_LOCAL = """repos:
- repo: local
  hooks:
  - {id: a, name: a, entry: lint.sh, language: script}
  - {id: b, name: b, entry: python, args: [scripts/check.py], language: python}
  - {id: c, name: c, entry: 'TODO|a/b', language: pygrep}
"""


def test_tox_reads_the_first_file_that_has_its_settings_here_or_above(tmp_path):
    # tox takes tox.ini, then a setup.cfg with [tox:tox], then pyproject.toml's [tool.tox].
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "setup.cfg").write_text("[tox:tox]\nenv_list = py\n")
    (tmp_path / "sub").mkdir()
    held, told = build_files("tox", ("-e", "dev"), tmp_path / "sub", tmp_path)
    # (and the package beside it, which tox builds for each run: its build runs setup.py)
    assert names(tmp_path, held) == {"setup.cfg", "pyproject.toml"}
    assert {"sub/tox.ini", "tox.ini", "toxfile.py", "setup.py"} <= names(tmp_path, told)
    (tmp_path / "tox.ini").write_text("[tox]\n")
    (tmp_path / "toxfile.py").write_text("")  # a plugin tox loads
    held, _ = build_files("tox", ("-e", "dev"), tmp_path, tmp_path)
    assert names(tmp_path, held) == {"tox.ini", "toxfile.py", "setup.cfg", "pyproject.toml"}
    held, told = build_files("tox", ("-cci/tox.ini",), tmp_path, tmp_path)
    assert "ci/tox.ini" not in names(tmp_path, held) and "ci/tox.ini" in names(tmp_path, told)


def test_nox_and_pre_commit_read_theirs_and_what_a_local_hook_runs(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "noxfile.py").write_text("")
    held, _ = build_files("nox", ("-fb", "venv", "-s", "dev"), tmp_path, tmp_path)  # -fb: not -f
    assert names(tmp_path, held) == {"noxfile.py"}
    held, told = build_files("nox", ("--noxfile=ci/nox.py",), tmp_path, tmp_path)
    assert held == [] and names(tmp_path, told) == {"ci/nox.py"}
    (tmp_path / ".pre-commit-config.yaml").write_text(PRE_COMMIT_LOCAL)
    (tmp_path / "lint.sh").write_text("#!/bin/sh\n")
    (tmp_path / "sub").mkdir()  # pre-commit moves to the top of the git tree
    held, told = build_files("pre-commit", ("run", "--all-files"), tmp_path / "sub", tmp_path)
    assert names(tmp_path, held) == {".pre-commit-config.yaml", "lint.sh"}
    assert {"sub/.pre-commit-config.yaml", "scripts/check.py"} <= names(tmp_path, told)
    assert "a/b" not in names(tmp_path, told)  # a pygrep hook's entry is a pattern


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("tox -e dev", {"tox.ini": "[testenv:dev]\ncommands = true\n"}),
        ("nox -s dev", {"noxfile.py": "def dev(session): pass\n"}),
        ("pre-commit run --all-files", {".pre-commit-config.yaml": PRE_COMMIT_LOCAL}),
    ],
)
def test_a_folder_open_tox_nox_or_pre_commit_task_holds_its_config(tmp_path, command, files):
    for name, content in files.items():
        make(tmp_path / name, content, "root")
    make(tmp_path / "lint.sh", "#!/bin/sh\n", "root")
    held, _ = folder_open_scripts(tmp_path, command)
    assert set(files) <= held
    assert ("lint.sh" in held) == command.startswith("pre-commit")


@needs_bwrap
def test_a_command_cannot_rewrite_what_a_folder_open_tox_or_pre_commit_task_runs(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    tasks = [
        {"label": name, "command": command, "runOptions": {"runOn": "folderOpen"}}
        for name, command in (("t", "tox -e dev"), ("p", "pre-commit run --all-files"))
    ]
    make(workspace / ".vscode/tasks.json", json.dumps({"tasks": tasks}), user, mode=0o644)
    make(workspace / "tox.ini", "[testenv:dev]\ncommands = true\n", user, mode=0o644)
    make(workspace / ".pre-commit-config.yaml", PRE_COMMIT_LOCAL, user, mode=0o644)
    make(workspace / "lint.sh", "#!/bin/sh\ntrue\n", user, mode=0o755)
    attacked = ["tox.ini", ".pre-commit-config.yaml", "lint.sh"]
    new = "echo 'import os' > toxfile.py"  # a plugin tox would load at the next folder open
    refused_and_told(api, env, user_folders, attacked, new, "toxfile.py")


def terminal_scripts(root: Path, env: dict) -> tuple[set, set]:
    """(held, told when made) for VS Code terminals that start with the variables `env`."""
    settings = {"terminal.integrated.env.linux": env}
    make(root / ".vscode/settings.json", json.dumps(settings), "root")
    return held_and_told(root)


@pytest.mark.parametrize(
    "env",
    [
        {"MAKEFILES": "mk/common.mk"},
        {"MAKEFLAGS": "-f mk/common.mk"},
        {"MAKEFILES": "common.mk", "MAKEFLAGS": "-I mk"},  # found in the -I folder
    ],
)
def test_a_terminal_s_make_variables_hold_the_makefiles_they_name(tmp_path, env):
    # Every make the person types in such a terminal reads them before the project's Makefile,
    # which stays the project's code to change.
    make(tmp_path / "Makefile", "all:\n\ttrue\n", "root")
    make(tmp_path / "mk/common.mk", "include rules.mk\n", "root")
    make(tmp_path / "mk/rules.mk", "X = 1\n", "root")
    held, _ = terminal_scripts(tmp_path, env)
    assert "mk/common.mk" in held and "Makefile" not in held
    (tmp_path / "mk/common.mk").unlink()  # not there: reported when a command makes it
    held, told = terminal_scripts(tmp_path, env)
    assert "mk/common.mk" not in held and "mk/common.mk" in told


@pytest.mark.parametrize(
    ("command", "config"),
    [
        ("uvx tox -e dev", "tox.ini"),
        ("uvx --from tox tox -e dev", "tox.ini"),
        ("uv tool run tox -e dev", "tox.ini"),
        ("uv run --with tox-uv tox -e dev", "tox.ini"),
        ("pipx run tox -e dev", "tox.ini"),
        ("python3 -m tox -e dev", "tox.ini"),
        ("python3 -W ignore -mtox -e dev", "tox.ini"),
        ("uv run python -m tox -e dev", "tox.ini"),
        ("uvx nox -s dev", "noxfile.py"),
        ("python3 -m nox -s dev", "noxfile.py"),
        ("uvx pre-commit run -a", ".pre-commit-config.yaml"),
        ("python3 -m pre_commit run -a", ".pre-commit-config.yaml"),
        ("poetry run tox -e dev", "tox.ini"),
        ("poetry -C . run pre-commit run -a", ".pre-commit-config.yaml"),
        ("pdm run tox -e dev", "tox.ini"),
        ("hatch run nox -s dev", "noxfile.py"),
        ("pipenv run tox -e dev", "tox.ini"),
        ("rye run tox -e dev", "tox.ini"),
        ("poetry run python -m tox -e dev", "tox.ini"),
    ],
)
def test_a_tool_a_runner_starts_holds_its_config_as_the_tool_does(tmp_path, command, config):
    # The runner starts the tool, which reads its config and runs what it says, as plain `tox`.
    make(tmp_path / config, "[testenv:dev]\n" if config == "tox.ini" else "", "root")
    held, _ = folder_open_scripts(tmp_path, command)
    assert config in held


@pytest.mark.parametrize(
    ("command", "config", "new"),
    [
        ("npx eslint .", "eslint.config.js", ".eslintrc.cjs"),
        ("npx prettier --check .", ".prettierrc.cjs", "prettier.config.mjs"),
        ("npx jest", "jest.config.ts", "jest.config.js"),
        ("npx vite build", "vite.config.ts", "vite.config.mjs"),
        ("vitest run", "vite.config.ts", "vitest.config.ts"),
    ],
)
def test_a_folder_open_javascript_tool_holds_the_config_it_imports(tmp_path, command, config, new):
    # The tool imports its config as it starts, and runs it outside the sandbox at folder open.
    make(tmp_path / config, "module.exports = {}\n", "root")
    held, told = folder_open_scripts(tmp_path, command)
    assert config in held and new in told and new not in held


@needs_bwrap
def test_a_command_cannot_rewrite_the_config_of_a_tool_a_folder_open_runner_starts(
    api, env, user_folders
):
    user, workspace, planloop_home, home = user_folders
    lines = ("uvx tox -e dev", "python3 -m pre_commit run -a", "npx eslint .")
    tasks = [
        {"label": line, "command": line, "runOptions": {"runOn": "folderOpen"}} for line in lines
    ]
    make(workspace / ".vscode/tasks.json", json.dumps({"tasks": tasks}), user, mode=0o644)
    make(workspace / "tox.ini", "[testenv:dev]\ncommands = true\n", user, mode=0o644)
    make(workspace / ".pre-commit-config.yaml", "repos: []\n", user, mode=0o644)
    make(workspace / "eslint.config.js", "export default []\n", user, mode=0o644)
    attacked = ["tox.ini", ".pre-commit-config.yaml", "eslint.config.js"]
    new = "echo 'export default []' > eslint.config.mjs"  # what another eslint version imports
    refused_and_told(api, env, user_folders, attacked, new, "eslint.config.mjs")


@pytest.mark.parametrize(
    "words", [("-sC", "web", "lint"), ("-sCweb",), ("--dir=web",), ("--direc", "web")]
)
def test_make_s_folder_is_read_in_every_spelling_make_takes(tmp_path, words):
    # getopt takes `-C` after other flags, and a long option shortened while it stays unique.
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "Makefile").write_text("lint:\n\ttrue\n")
    held, _ = build_files("make", words, tmp_path, tmp_path)
    assert names(tmp_path, held) == {"web/Makefile"}


@pytest.mark.parametrize("include", ["-include mk/*.mk", "include $(wildcard mk/*.mk)"])
def test_the_folder_a_makefile_s_glob_include_searches_is_held_whole(tmp_path, include):
    # What the glob matches later is read too: a new mk/zz.mk would run at the next make.
    (tmp_path / "Makefile").write_text(f"{include}\nlint:\n\ttrue\n")
    (tmp_path / "mk").mkdir()
    (tmp_path / "mk" / "a.mk").write_text("")
    held, _ = build_files("make", ("lint",), tmp_path, tmp_path)
    assert {"mk", "mk/a.mk"} <= names(tmp_path, held)


def test_the_shell_and_dotenv_files_make_just_and_task_are_told_to_use_are_held(tmp_path):
    # Each runs every recipe line with that shell, or loads those variables into it
    # (`BASH_ENV=ci/env.sh`): what the recipes' own words never name.
    (tmp_path / "ci").mkdir()
    for name in ("shell", "vars", "task.env"):
        (tmp_path / "ci" / name).write_text("")
    (tmp_path / "Makefile").write_text("SHELL := ./ci/shell\nlint:\n\techo ok\n")
    held, _ = build_files("make", ("lint",), tmp_path, tmp_path)
    assert "ci/shell" in names(tmp_path, held)
    (tmp_path / "justfile").write_text(
        'set dotenv-path := "ci/vars"\nset shell := ["./ci/shell", "-c"]\nlint:\n  echo ok\n'
    )
    held, _ = build_files("just", ("lint",), tmp_path, tmp_path)
    assert {"ci/vars", "ci/shell"} <= names(tmp_path, held)
    (tmp_path / "Taskfile.yml").write_text(
        "version: '3'\ndotenv: ['ci/vars']\ntasks:\n  lint:\n    dotenv: ['ci/task.env']\n"
        "    cmds: [echo ok]\n"
    )
    held, _ = build_files("task", ("lint",), tmp_path, tmp_path)
    assert {"ci/vars", "ci/task.env"} <= names(tmp_path, held)


# What else a makefile gives its recipes' shell, which no recipe's words name: the options it
# starts with, a PATH or a variable that names code (set or exported, also for one target),
# lines made from a command's output.
MAKEFILES_GIVING_THE_SHELL = {
    "shell-flags": '.SHELLFLAGS = -c ". tools/env.sh;"\n',
    "exported-path": "export PATH := $(CURDIR)/bin:$(PATH)\n",
    "path-from-the-environment": "PATH := $(CURDIR)/bin:$(PATH)\n",
    "bash-env": "SHELL := /bin/bash\nexport BASH_ENV := tools/env.sh\n",
    "bash-env-for-one-target": "lint: export BASH_ENV = tools/env.sh\n",
    "eval-of-output": "$(eval $(shell cat tools/gen.mk))\n",
}


@pytest.mark.parametrize(
    "text", MAKEFILES_GIVING_THE_SHELL.values(), ids=MAKEFILES_GIVING_THE_SHELL
)
def test_what_a_makefile_gives_its_recipes_shell_cannot_be_told(tmp_path, text):
    (tmp_path / "Makefile").write_text(f"{text}lint:\n\t@golangci-lint run\n")
    with pytest.raises(CannotTell):
        build_files("make", ("lint",), tmp_path, tmp_path)
    # (variables of the recipes' own are data, and one that names code, kept to make)
    (tmp_path / "Makefile").write_text("export APP_ENV := dev\nCFLAGS = -O2\nlint:\n\ttrue\n")
    held, _ = build_files("make", ("lint",), tmp_path, tmp_path)
    assert "Makefile" in names(tmp_path, held)


def test_a_maven_local_repository_in_the_workspace_is_held_whole(tmp_path):
    # Maven runs the plugins' jars it finds there.
    (tmp_path / "pom.xml").write_text("<project></project>\n")
    (tmp_path / ".m2" / "repository").mkdir(parents=True)
    held, _ = build_files(
        "mvn", ("-Dmaven.repo.local=.m2/repository", "verify"), tmp_path, tmp_path
    )
    assert ".m2/repository" in names(tmp_path, held)
    (tmp_path / ".mvn").mkdir()
    (tmp_path / ".mvn" / "maven.config").write_text("-Dmaven.repo.local=.m2/repository\n")
    held, _ = build_files("mvn", ("verify",), tmp_path, tmp_path)
    assert ".m2/repository" in names(tmp_path, held)


def file_tools_ask(root: Path, path: str) -> str | None:
    """Why the file tools ask before writing `path`: by its name, or as commands find it held."""
    return protected_reason(root, path) or held_for_commands_reason(root, path)


def per_file_held(root: Path) -> set[str]:
    """What the host tools' per-file linters hold in `root` (tools/per_file_configs.py)."""
    scan = scan_for_file_tools(root)
    found = per_file_configs(root, host_tool_settings(root, scan), scan.per_file_configs)
    return names(root, [path for path, _ in found])


@pytest.mark.parametrize(
    ("hook", "config", "code"),
    [
        ("npx prettier --check .", "web/.prettierrc.json", '{"plugins": ["./plug.mjs"]}'),
        ("eslint packages", "packages/a/.eslintrc.json", '{"parser": "./plug.mjs"}'),
        ("npx stylelint '**/*.css'", "web/.stylelintrc.json", '{"plugins": ["./plug.mjs"]}'),
        (
            "markdownlint-cli2 '**/*.md'",
            "web/.markdownlint-cli2.jsonc",
            '{"customRules": ["./plug.mjs"]}',
        ),
        ("npx lint-staged", "web/.lintstagedrc.json", '{"*.js": "node plug.mjs"}'),
        ("npx lint-staged", "web/package.json", '{"lint-staged": {"*.js": "sh plug.mjs"}}'),
        (
            "prek run",
            "web/.pre-commit-config.yaml",
            "repos:\n- repo: local\n  hooks:\n"
            "  - {id: x, entry: sh plug.mjs, language: system}",  # (run from web/)
        ),
    ],
)
def test_a_linter_s_config_beside_the_files_it_checks_is_held_at_any_depth(
    tmp_path, hook, config, code
):
    # The tool takes each file's config from that file's folder, not only from where it runs,
    # and loads the plugin the config names when the person's next commit runs the hook.
    make(tmp_path / ".git/hooks/pre-commit", f"#!/bin/sh\n{hook}\n", "root")
    make(tmp_path / config, code, "root", 0o644)
    plugin = str(Path(config).parent / "plug.mjs")
    make(tmp_path / plugin, "export default {}\n", "root", 0o644)
    make(tmp_path / "node_modules/x" / Path(config).name, code, "root", 0o644)
    make(tmp_path / "node_modules/x/plug.mjs", "export default {}\n", "root", 0o644)
    held = per_file_held(tmp_path)
    assert {config, plugin} <= held
    # prettier and ESLint pass node_modules by. stylelint's globs follow a link into it (`web
    # -> node_modules/x`), markdownlint-cli2's walk into it, and lint-staged and prek pass by
    # only what git ignores, which is nothing here.
    in_packages = {"node_modules/x/" + Path(config).name, "node_modules/x/plug.mjs"}
    program = next(word for word in hook.split() if word != "npx")
    passes_packages_by = program in ("prettier", "eslint")
    assert held & in_packages == (set() if passes_packages_by else in_packages)
    # The file tools ask before writing one, and before making one anywhere below.
    assert "is protected" in file_tools_ask(tmp_path, plugin)
    assert "config of each file" in file_tools_ask(tmp_path, f"docs/deep/{Path(config).name}")
    in_new_package = file_tools_ask(tmp_path, f"node_modules/y/{Path(config).name}")
    assert (in_new_package is None) == passes_packages_by
    assert file_tools_ask(tmp_path, "web/other.json") is None


@pytest.mark.parametrize("name", ["stylelintrc", "stylelintrc.json", "stylelintrc.mjs"])
def test_stylelint_s_config_in_a_nested_config_folder_is_held_in_each_form(tmp_path, name):
    # cosmiconfig also looks in each folder's `.config`, where a name without a suffix is YAML.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx stylelint '**/*.css'\n", "root")
    make(tmp_path / "css/.config" / name, '{"plugins": ["./rules.mjs"]}', "root", 0o644)
    make(tmp_path / "css/.config/rules.mjs", "export default {}\n", "root", 0o644)
    held = per_file_held(tmp_path)
    assert f"css/.config/{name}" in held
    if not name.endswith(".mjs"):  # (what a JavaScript config imports is the project's code)
        assert "css/.config/rules.mjs" in held
    assert "config of each file" in file_tools_ask(tmp_path, f"docs/.config/{name}")


@pytest.mark.parametrize(
    ("line", "config"),
    [
        ("npx prettier --with-node-modules --check .", ".prettierrc.json"),
        ("prettier --with-node-modules=true -c .", ".prettierrc.json"),
        ("npx stylelint --disable-default-ignores '**/*.css'", ".stylelintrc.json"),
        ("stylelint --di '**/*.css'", ".stylelintrc.json"),
    ],
)
def test_a_linter_told_to_walk_node_modules_takes_the_configs_there(tmp_path, line, config):
    make(tmp_path / ".git/hooks/pre-commit", f"#!/bin/sh\n{line}\n", "root")
    make(tmp_path / "node_modules/x" / config, '{"plugins": ["./p.mjs"]}', "root", 0o644)
    make(tmp_path / "node_modules/x/p.mjs", "export default {}\n", "root", 0o644)
    held = per_file_held(tmp_path)
    assert {f"node_modules/x/{config}", "node_modules/x/p.mjs"} <= held
    asked = file_tools_ask(tmp_path, f"node_modules/y/{config}")
    assert "config of each file" in (asked or "")
    # Told not to, as by default, it passes them by.
    off = line.replace("--with-node-modules=true", "--with-node-modules=false")
    if off != line:
        make(tmp_path / ".git/hooks/pre-commit", f"#!/bin/sh\n{off}\n", "root")
        assert f"node_modules/x/{config}" not in per_file_held(tmp_path)


def test_a_package_json_counts_for_a_per_file_linter_only_with_its_key(tmp_path):
    # Every package of a monorepo has a package.json; prettier passes by those without its key.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nprettier --check .\n", "root")
    make(tmp_path / "a/package.json", '{"name": "a", "eslintConfig": {}}', "root", 0o644)
    make(tmp_path / "b/package.json", '{"prettier": {"plugins": ["./p.cjs"]}}', "root", 0o644)
    make(tmp_path / "c/package.json", "not json", "root", 0o644)
    make(tmp_path / "d/package.yaml", "name: d\nprettier: ./shared.cjs\n", "root", 0o644)
    held = per_file_held(tmp_path)
    assert {"b/package.json", "b/p.cjs", "d/package.yaml", "d/shared.cjs"} <= held
    assert not held & {"a/package.json", "c/package.json"}


def test_a_package_file_the_tools_read_more_leniently_than_python_still_counts(tmp_path):
    # prettier strips a BOM before JSON.parse; lint-staged's YAML takes a control character
    # PyYAML refuses. Neither is "no key of theirs".
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nprettier -c .\nnpx lint-staged\n", "root")
    bom = '\ufeff{"prettier": {"plugins": ["./fmt.mjs"]}}'
    make(tmp_path / "web/package.json", bom, "root", 0o644)
    make(tmp_path / "web/fmt.mjs", "export default {}\n", "root", 0o644)
    assert {"web/package.json", "web/fmt.mjs"} <= per_file_held(tmp_path)
    yaml_text = "# web \x01\n{name: api, lint-staged: {'*.js': node check.js}}\n"
    make(tmp_path / "api/package.yaml", yaml_text, "root", 0o644)
    scan = scan_for_file_tools(tmp_path)
    settings = host_tool_settings(tmp_path, scan)
    why = per_file_config_not_held(tmp_path, settings, scan.per_file_configs)
    assert why is not None and "api/package.yaml" in why and "cannot parse" in why, why


def test_a_per_file_config_s_plugin_is_held_however_its_path_is_spelt_or_found(tmp_path):
    # `\u002e` is a dot to the tool's JSON reader; stylelint tries a plugin's relative path
    # from where it runs too, when the config's folder has none.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx stylelint '**/*.css'\n", "root")
    config = '{"plugins": ["./fmt\\u002emjs", ".\\/x.mjs", "./top.mjs"]}'
    make(tmp_path / "css/.stylelintrc.json", config, "root", 0o644)
    for name in ("css/fmt.mjs", "css/x.mjs", "top.mjs"):
        make(tmp_path / name, "export default {}\n", "root", 0o644)
    assert {"css/fmt.mjs", "css/x.mjs", "top.mjs"} <= per_file_held(tmp_path)


@pytest.mark.parametrize(
    ("config", "plugin"),
    [
        (".prettierrc", "plugins: ['./p;.mjs']"),  # (`;`, `(`, `&` end no name)
        (".prettierrc", "plugins: ['./p(.mjs', './q&.mjs']"),
        (".prettierrc", "plugins: ['./p\u00a0.mjs']"),  # (nor a blank other than ASCII's)
        (".prettierrc", "plugins: ['./p\u0085.mjs']"),
        (".prettierrc.json5", "{plugins: ['./\\p.mjs']}"),  # (`\p` is `p` to JSON5)
        (".prettierrc.json5", "{plugins: ['./p\\\n.mjs']}"),  # (a backslash goes on a line)
    ],
)
def test_a_plugin_path_is_held_whatever_characters_its_name_holds(tmp_path, config, plugin):
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx prettier -c .\n", "root")
    make(tmp_path / "web" / config, plugin, "root", 0o644)
    names = re.findall(r"p[^.']?\.mjs|q&\.mjs", plugin.replace("\\\n", "").replace("\\", ""))
    for name in names:
        make(tmp_path / "web" / name, "export default {}\n", "root", 0o644)
    assert {f"web/{name}" for name in names} <= per_file_held(tmp_path)


# A config that is JSON with comments and YAML alike, and names a plugin (or a command) only to
# YAML, which has no `/* */` comments: there `"plugins"` is a key, not a comment's text.
HIDDEN_FROM_JSON = '{"x": /* ", "plugins": ["%s"], "b": " */ 1} // "}'


@pytest.mark.parametrize(
    ("hook", "config", "text", "loaded"),
    [
        ("npx prettier -c .", "web/.prettierrc", HIDDEN_FROM_JSON % "./p;.mjs", "web/p;.mjs"),
        # (a bare name prettier first tries as a file where it runs)
        ("npx prettier -c .", ".prettierrc", HIDDEN_FROM_JSON % "p.mjs", "p.mjs"),
        (
            "npx prettier -c .",
            "web/.prettierrc.yaml",
            HIDDEN_FROM_JSON % "prettier-plugin-x",
            "node_modules/prettier-plugin-x",
        ),
        (
            "npx stylelint '**/*.css'",
            "css/.stylelintrc",
            HIDDEN_FROM_JSON % "./p;.mjs",
            "css/p;.mjs",
        ),
        (
            "npx lint-staged",
            "web/.lintstagedrc",
            '{"a": "true", /* ": 1, "*.js": "node p.mjs", \' */ "c": "true"} // \': 1}',
            "web/p.mjs",
        ),
        # (a legacy .eslintrc is YAML to ESLint once its JSON comments are blanked: a `/*` after
        # YAML's own `#` then ends the string that holds the parser)
        (
            "eslint packages",
            "packages/a/.eslintrc",
            'a: "x" # /*\nb: \'q */\nparser: "./p;.mjs"\n# \'\n',
            "packages/a/p;.mjs",
        ),
    ],
)
def test_a_config_its_tool_reads_as_yaml_holds_what_yaml_names_in_it(
    tmp_path, hook, config, text, loaded
):
    # prettier, stylelint (cosmiconfig) and lint-staged read a config without a suffix as
    # YAML: the person's next commit loads what YAML reads there, whatever JSON reads.
    make(tmp_path / ".git/hooks/pre-commit", f"#!/bin/sh\n{hook}\n", "root")
    make(tmp_path / config, text, "root", 0o644)
    if loaded.startswith("node_modules/"):
        make(tmp_path / loaded / "package.json", "{}", "root", 0o644)
    else:
        make(tmp_path / loaded, "export default {}\n", "root", 0o644)
    assert {config, loaded} <= per_file_held(tmp_path)
    assert "is protected" in file_tools_ask(tmp_path, loaded)


@pytest.mark.parametrize("separator", ["\u2028", "\u2029"])
def test_a_json5_config_ends_a_line_comment_where_json5_does(tmp_path, separator):
    # JSON5 (prettier's reader of .prettierrc.json5) ends a `//` comment at U+2028 and U+2029
    # too: what follows on that line is read, and the plugin it names is loaded.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx prettier -c .\n", "root")
    text = '{"semi": true // ' + separator + ', "plugins": ["p.mjs"]\n}'
    make(tmp_path / ".prettierrc.json5", text, "root", 0o644)
    make(tmp_path / "p.mjs", "export default {}\n", "root", 0o644)
    assert {".prettierrc.json5", "p.mjs"} <= per_file_held(tmp_path)


@pytest.mark.parametrize("escape", ["\\x78", "\\x", "\\\nx"])
def test_a_package_a_json5_config_names_with_an_escape_is_the_one_held(tmp_path, escape):
    # JSON5 (no JSON python reads) spells `x` as `\x78`, or `\x`, or after a backslash that
    # goes on to the next line: the tool loads prettier-plugin-x.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx prettier -c .\n", "root")
    config = f"{{plugins: ['prettier-plugin-{escape}'], // mine\n}}"
    make(tmp_path / "web/.prettierrc.json5", config, "root", 0o644)
    make(tmp_path / "node_modules/prettier-plugin-x/package.json", "{}", "root", 0o644)
    assert "node_modules/prettier-plugin-x" in per_file_held(tmp_path)
    # A control character PyYAML refuses, which the tool's YAML reader takes.
    (tmp_path / "web/.prettierrc.json5").unlink()
    make(tmp_path / "web/.prettierrc.yaml", "# x \x01\nplugins: [prettier-plugin-x]\n", "root")
    assert "node_modules/prettier-plugin-x" in per_file_held(tmp_path)


@pytest.mark.parametrize("character", ["\x85", "\u2028"])
@pytest.mark.parametrize(
    ("config", "listed"),
    [
        (".prettierrc", "plugins:\n  - {}\n"),
        (".prettierrc.yaml", 'plugins: ["{}"]\n'),
        (".lintstagedrc", '"*.js": ./{}\n'),
        (".lintstagedrc.yml", "'*.js': ./{}\n"),
    ],
)
def test_a_yaml_config_s_name_keeps_a_character_pyyaml_reads_apart(
    tmp_path, config, listed, character
):
    # The tools' YAML readers (YAML 1.2) take NEL and LS for characters of a name, where PyYAML
    # breaks a line (and planloop's reading once took NEL out): prettier loads `p<NEL>.mjs`,
    # not `p.mjs` nor `p .mjs`, and lint-staged runs `./p<NEL>.mjs`.
    tool = "npx lint-staged" if "lintstaged" in config else "prettier --check ."
    named = f"p{character}.mjs"
    make(tmp_path / ".git/hooks/pre-commit", f"#!/bin/sh\n{tool}\n", "root")
    make(tmp_path / config, listed.format(named), "root", 0o644)
    make(tmp_path / named, "export default {}\n", "root", 0o755)
    assert named in per_file_held(tmp_path)


def test_a_package_json_given_the_key_later_counts_at_the_next_look(tmp_path):
    # Those without the key are not read again at each look while unchanged; a change of the
    # same size, the time set back, still counts.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx lint-staged\n", "root")
    package = tmp_path / "node_modules/x/package.json"
    keyed = '{"lint-staged": {"*.js": "sh ./p"}}'
    make(package, '{"name": "' + "x" * (len(keyed) - 12) + '"}', "root", 0o644)
    assert "node_modules/x/package.json" not in per_file_held(tmp_path)
    before = package.stat()
    package.write_text(keyed)
    os.utime(package, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert package.stat().st_size == before.st_size
    assert "node_modules/x/package.json" in per_file_held(tmp_path)


# A background task maps web/package.json and makes its page dirty (the change time is stamped
# then, and not again), waits until planloop has looked at the file unchanged and settled, then
# gives it prettier's key through the mapping: a write the kernel stamps no time for.
MAPPED_WRITER = """python3 - <<'EOF'
import mmap, os, time
os.makedirs("web", exist_ok=True)
with open("web/plug.mjs", "w") as plug:
    plug.write("export default {}\\n")
package = open("web/package.json", "r+b")
mapped = mmap.mmap(package.fileno(), 0)
mapped[0:1] = mapped[0:1]
open(".mapped", "w").close()
while not os.path.exists(".go"):
    time.sleep(0.05)
keyed = b'{"name": "web", "prettier": {"plugins": ["./plug.mjs"]}}'
mapped[0 : len(keyed)] = keyed
open(".written", "w").close()
while True:
    time.sleep(1)
EOF"""
# Until a file's change time is SETTLED_NS old, as planloop must see it before it remembers.
SETTLED = "until [ -e {0} ] && [ $(( $(date +%s) - $(stat -c %Z {0}) )) -ge 3 ]; do sleep 0.1; done"


@needs_bwrap
def test_a_package_json_a_running_task_rewrites_through_a_mapping_is_told(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    make(workspace / ".git/hooks/pre-commit", "#!/bin/sh\nprettier --check .\n", user)
    make(workspace / "web/package.json", '{"name": "web"}'.ljust(80) + "\n", user, mode=0o644)
    background = {"command": MAPPED_WRITER, "run_in_background": True}
    api.add({"content": [tool_use("bash", background)]})
    settled = SETTLED.format("web/package.json") + "; [ -e .mapped ] && echo settled"
    api.add(
        {
            "content": [
                tool_use(
                    "bash", {"command": f"until [ -e .mapped ]; do sleep 0.1; done; {settled}"}
                )
            ]
        }
    )
    written = "touch .go; until [ -e .written ]; do sleep 0.1; done; echo written"
    api.add({"content": [tool_use("bash", {"command": written})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    _, settled_result, written_result = tool_results(api)
    assert "settled" in settled_result and "written" in written_result, written_result
    assert b"prettier" in (workspace / "web/package.json").read_bytes()
    assert "[web/package.json is new. It was kept, and the user was told" in written_result
    assert "sandbox: web/package.json (a linter" in result.stderr  # (and on the terminal)


def test_no_per_file_config_is_held_where_no_host_tool_runs_its_linter(tmp_path):
    # The project's own configs, for the person's editor and their own runs: the project's code.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nmake lint\n", "root")
    make(tmp_path / "web/.prettierrc.json", '{"plugins": ["./plug.mjs"]}', "root", 0o644)
    assert per_file_held(tmp_path) == set()
    assert file_tools_ask(tmp_path, "web/.prettierrc.json") is None


def test_a_per_file_config_that_is_a_link_makes_commands_ask(tmp_path):
    # No bind holds a link: a command could point it at a config of its own.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nprettier --check .\n", "root")
    make(tmp_path / "shared/prettier.json", "{}", "root", 0o644)
    (tmp_path / "web").mkdir()
    (tmp_path / "web/.prettierrc.json").symlink_to("../shared/prettier.json")
    scan = scan_for_file_tools(tmp_path)
    settings = host_tool_settings(tmp_path, scan)
    why = per_file_config_not_held(tmp_path, settings, scan.per_file_configs)
    assert why is not None and why.startswith("web/.prettierrc.json is a link"), why


@needs_bwrap
def test_a_command_cannot_rewrite_a_nested_linter_config_and_a_new_one_is_told(
    api, env, user_folders
):
    # The hook's prettier takes web/a.js's config from web/, and a new docs/.prettierrc.json
    # would load docs/plug.mjs at the person's next commit.
    user, workspace, planloop_home, home = user_folders
    make(workspace / ".git/hooks/pre-commit", "#!/bin/sh\nnpx prettier --check .\n", user)
    make(workspace / "web/.prettierrc.json", '{"plugins": ["./plug.mjs"]}', user, mode=0o644)
    make(workspace / "web/plug.mjs", "export default {}\n", user, mode=0o644)
    new = 'mkdir docs && echo \'{"plugins": ["./plug.mjs"]}\' > docs/.prettierrc.json'
    attacked = ["web/.prettierrc.json", "web/plug.mjs"]
    refused_and_told(api, env, user_folders, attacked, new, "docs/.prettierrc.json")


def test_a_nested_lint_staged_line_only_its_shell_can_tell_makes_commands_ask(tmp_path):
    # lint-staged runs it from web/ at the person's next commit, whatever `$(cat x)` gives then.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx lint-staged\n", "root")
    make(tmp_path / "web/.lintstagedrc.json", '{"*.js": "$(cat x) --fix"}', "root", 0o644)
    scan = scan_for_file_tools(tmp_path)
    settings = host_tool_settings(tmp_path, scan)
    why = per_file_config_not_held(tmp_path, settings, scan.per_file_configs)
    assert why is not None and "web/.lintstagedrc.json" in why, why


def test_a_lint_staged_config_without_a_suffix_too_big_to_read_as_yaml_makes_commands_ask(
    tmp_path,
):
    # lint-staged reads `.lintstagedrc` as YAML: past the size planloop reads YAML settings to
    # (parsing one takes seconds a MiB, in one call), what it runs cannot be told.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx lint-staged\n", "root")
    padding = "# " + "x" * 1000 + "\n"
    text = '"*.js": "node tools/fmt.js"\n' + padding * 300
    make(tmp_path / "web/.lintstagedrc", text, "root", 0o644)
    scan = scan_for_file_tools(tmp_path)
    settings = host_tool_settings(tmp_path, scan)
    why = per_file_config_not_held(tmp_path, settings, scan.per_file_configs)
    assert why is not None and "web/.lintstagedrc" in why, why


def test_what_python_runs_in_place_of_a_tool_s_python_file_is_held_and_told(tmp_path):
    # tox imports toxfile.py (or else `☣.py`), nox noxfile.py: python runs a compiled copy in
    # __pycache__ whose header gives the source's time and size, and for tox's import by name
    # a package folder or an extension module of that name before the source.
    make(tmp_path / "tox.ini", "[tox]\n", "root", 0o644)
    make(tmp_path / "toxfile.py", "", "root", 0o644)
    make(tmp_path / "noxfile.py", "", "root", 0o644)
    for name in ("toxfile.cpython-311.pyc", "noxfile.cpython-312.opt-1.pyc", "other.pyc"):
        make(tmp_path / "__pycache__" / name, "", "root", 0o644)
    held, told = build_files("tox", ("-e", "lint"), tmp_path, tmp_path)
    assert "__pycache__/toxfile.cpython-311.pyc" in names(tmp_path, held)
    told = names(tmp_path, told)
    assert {"☣.py", "toxfile", "toxfile.so", "__pycache__/toxfile.cpython-311.pyc"} <= told
    held, _ = build_files("nox", ("-s", "lint"), tmp_path, tmp_path)
    assert names(tmp_path, held) == {"noxfile.py", "__pycache__/noxfile.cpython-312.opt-1.pyc"}


def test_a_compiled_copy_past_thousands_of_others_is_still_held(tmp_path):
    from tools.build_files import MAX_CACHE_ENTRIES

    make(tmp_path / "tox.ini", "[tox]\n", "root", 0o644)
    make(tmp_path / "toxfile.py", "", "root", 0o644)
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    copies = [f"toxfile.cpython-3{minor}{opt}.pyc" for minor in range(8, 16) for opt in OPTS]
    for name in copies:
        (cache / name).touch()
    for number in range(2 * MAX_CACHE_ENTRIES):
        (cache / f"junk{number}.cpython-311.pyc").touch()
    late = [name for name in os.listdir(cache)[MAX_CACHE_ENTRIES:] if name.startswith("tox")]
    assert late, "no copy lies past the listing: the test proves nothing"
    held, _ = build_files("tox", ("-e", "lint"), tmp_path, tmp_path)
    assert {f"__pycache__/{name}" for name in late} <= names(tmp_path, held)


OPTS = ("", ".opt-1", ".opt-2")


def test_the_modules_compiled_into_a_build_script_are_held(tmp_path):
    # rustc compiles build/gen.rs into build/main.rs for `mod gen;`, and cargo runs the result.
    make(tmp_path / "Cargo.toml", "[package]\nname = 'a'\nbuild = 'build/main.rs'\n", "root")
    script = 'mod gen;\n#[path = "../ci/paths.rs"] mod paths;\ninclude!("consts.rs");\n'
    make(tmp_path / "build/main.rs", script + "fn main() {}\n", "root")
    make(tmp_path / "build/gen.rs", "pub mod tables;\n", "root")
    make(tmp_path / "build/gen/tables.rs", "", "root")
    make(tmp_path / "ci/paths.rs", "", "root")
    held, told = build_files("cargo", ("check",), tmp_path, tmp_path)
    assert {"build/gen.rs", "build/gen/tables.rs", "ci/paths.rs"} <= names(tmp_path, held)
    assert {"build/consts.rs", "build/gen/mod.rs"} <= names(tmp_path, told)  # when made
    # A module declared inside an inline one lies where only rustc's nesting says: ask.
    make(tmp_path / "build/gen.rs", "mod inner {\n    mod deeper;\n}\n", "root")
    with pytest.raises(CannotTell):
        build_files("cargo", ("check",), tmp_path, tmp_path)


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("nix develop -c make lint", {"flake.nix", "flake.lock", "nix/shell.nix", "Makefile"}),
        ("nix develop .#ci --command make lint", {"flake.nix", "nix/shell.nix"}),
        ("nix-shell --run 'make lint'", {"shell.nix", "Makefile"}),
        ("pixi run lint", {"pixi.toml", "scripts/activate.sh"}),
        # Options before the subcommand, or taking values; a folder given to nix-shell.
        ("nix --extra-experimental-features 'nix-command flakes' develop -c make", {"flake.nix"}),
        ("nix develop --override-input nixpkgs ./pinned -c make", {"pinned/flake.nix"}),
        ("nix-shell nix --run 'make lint'", {"nix/default.nix"}),
        ("pixi run --manifest-path tools/pixi.toml lint", {"tools/pixi.toml"}),
        ("devbox run lint", {"devbox.json"}),
    ],
)
def test_a_tool_that_starts_a_command_in_its_environment_holds_what_its_shell_runs(
    tmp_path, command, files
):
    # nix runs flake.nix's shellHook (and what it imports) before `make`, pixi the activation
    # scripts its manifest names, devbox its init_hook: outside the sandbox, at the next commit.
    make(tmp_path / "flake.nix", "{ outputs = _: import ./nix/shell.nix; }\n", "root", 0o644)
    make(tmp_path / "flake.lock", "{}\n", "root", 0o644)
    make(tmp_path / "nix/shell.nix", "{ shellHook = ''echo hi''; }\n", "root", 0o644)
    make(tmp_path / "shell.nix", "{}\n", "root", 0o644)
    make(tmp_path / "Makefile", "lint:\n\ttrue\n", "root", 0o644)
    make(tmp_path / "pixi.toml", '[activation]\nscripts = ["scripts/activate.sh"]\n', "root")
    make(tmp_path / "scripts/activate.sh", "export A=1\n", "root")
    make(tmp_path / "devbox.json", '{"shell": {"init_hook": ["echo hi"]}}\n', "root", 0o644)
    for name in ("pinned/flake.nix", "nix/default.nix", "tools/pixi.toml"):
        make(tmp_path / name, "{}\n", "root", 0o644)
    held, _ = folder_open_scripts(tmp_path, command)
    assert files <= held


def test_mise_run_holds_what_its_configs_tasks_run(tmp_path):
    # mise runs a task's `run` lines and its `file` from the config's folder, and the tasks of
    # the files and folders `[task_config] includes` names.
    config = (
        '[task_config]\nincludes = ["ci/tasks.toml", "more-tasks"]\n'
        '[tasks.lint]\nrun = ["./scripts/lint.sh", "make -s fmt"]\n'
        '[tasks.build]\nfile = "scripts/build.sh"\n'
    )
    make(tmp_path / "mise.toml", config, "root", 0o644)
    make(tmp_path / "ci/tasks.toml", '[check]\nrun = "sh scripts/check.sh"\n', "root", 0o644)
    for name in ("scripts/lint.sh", "scripts/build.sh", "scripts/check.sh", "more-tasks/x"):
        make(tmp_path / name, "#!/bin/sh\ntrue\n", "root")
    make(tmp_path / "Makefile", "fmt:\n\ttrue\n", "root", 0o644)
    held, _ = folder_open_scripts(tmp_path, "mise run lint")
    expected = {"scripts/lint.sh", "Makefile", "ci/tasks.toml", "scripts/check.sh", "more-tasks"}
    assert expected | {"scripts/build.sh"} <= held
    # A template only mise fills in (`{{arg()}}`) makes the line one only it can tell: ask.
    make(tmp_path / "mise.toml", "[tasks.x]\nrun = \"{{arg(name='t')}} --fix\"\n", "root", 0o644)
    with pytest.raises(CannotTell):
        build_files("mise", ("run", "x"), tmp_path, tmp_path)


def test_poe_holds_what_its_tasks_run_and_the_task_files_it_includes(tmp_path):
    # poe runs a task's `cmd` and `shell` lines, imports a `script` task's module, loads its
    # `envfile`, and takes more tasks from the files `include` names. (The package a script
    # task imports is held whole, as for `python -m` in a hook.)
    pyproject = (
        '[tool.poe]\ninclude = "ci/tasks.toml"\nenvfile = ".poe.env"\n'
        '[tool.poe.tasks]\nlint = "./scripts/lint.sh"\nfmt = {shell = "make -s fmt"}\n'
        'gen = {script = "tools.gen:main"}\n'
    )
    make(tmp_path / "pyproject.toml", pyproject, "root", 0o644)
    make(tmp_path / "ci/tasks.toml", '[tasks.check]\ncmd = "sh check.sh"\n', "root", 0o644)
    for name in ("scripts/lint.sh", "ci/check.sh", "tools/gen.py", ".poe.env"):
        make(tmp_path / name, "true\n", "root")
    make(tmp_path / "Makefile", "fmt:\n\ttrue\n", "root", 0o644)
    held, _ = build_files("poe", ("lint",), tmp_path, tmp_path)
    expected = {"scripts/lint.sh", "Makefile", "tools", "ci/tasks.toml", "ci/check.sh"}
    assert expected | {".poe.env"} <= names(tmp_path, held)


def test_uv_run_holds_the_local_projects_it_builds_and_hatch_s_build_hooks(tmp_path):
    # `uv run` syncs first: it builds each workspace member and `path` source, whose setup.py
    # or build hook runs, and hatch runs the build hook its settings name.
    pyproject = (
        '[tool.uv.sources]\nlib = { path = "libs/lib" }\n'
        '[tool.uv.workspace]\nmembers = ["packages/*"]\n'
        '[tool.hatch.build.hooks.custom]\npath = "ci/hook.py"\n'
    )
    make(tmp_path / "pyproject.toml", pyproject, "root", 0o644)
    make(tmp_path / "ci/hook.py", "", "root", 0o644)
    make(tmp_path / "libs/lib/setup.py", "", "root", 0o644)
    make(tmp_path / "packages/a/pyproject.toml", "[tool.hatch.build.hooks.custom]\n", "root")
    make(tmp_path / "packages/a/hatch_build.py", "", "root", 0o644)
    held, told = build_files("uv", ("run", "pytest"), tmp_path, tmp_path)
    expected = {"ci/hook.py", "libs/lib/setup.py", "packages/a/pyproject.toml"}
    assert expected | {"packages/a/hatch_build.py"} <= names(tmp_path, held)
    assert "libs/lib/pyproject.toml" in names(tmp_path, told)  # (when made)


def per_file_told(root: Path) -> set[str]:
    """What the host tools' per-file linters hold once there, made yet or not."""
    scan = scan_for_file_tools(root)
    found = per_file_configs(root, host_tool_settings(root, scan), scan.per_file_configs)
    return names(root, [path for path, _ in found if path.is_relative_to(root)])


def test_what_a_nested_config_runs_is_read_from_where_its_tool_runs_it(tmp_path):
    # lint-staged runs a lone nested config's lines from the top, several configs' from their
    # folders, with each node_modules/.bin up the tree first on PATH; prek runs a nested
    # config's entries from its folder; prettier loads a nested config's plugin by its name.
    hook = "#!/bin/sh\nnpx lint-staged\nprek run\nprettier --check .\n"
    make(tmp_path / ".git/hooks/pre-commit", hook, "root")
    make(tmp_path / "web/.lintstagedrc.json", '{"*.js": ["sh scripts/check.sh", "fmt"]}', "root")
    entry = "repos:\n- repo: local\n  hooks:\n  - {id: x, entry: make lint, language: system}\n"
    make(tmp_path / "web/.pre-commit-config.yaml", entry, "root")
    make(tmp_path / "web/Makefile", "lint:\n\ttrue\n", "root")
    make(tmp_path / "docs/.prettierrc.json", '{"plugins": ["prettier-plugin-x"]}', "root")
    for name in ("scripts/check.sh", "web/scripts/check.sh"):
        make(tmp_path / name, "true\n", "root")
    told = per_file_told(tmp_path)
    assert {"scripts/check.sh", "web/scripts/check.sh", "web/Makefile"} <= told
    assert {"web/node_modules/.bin/fmt", "node_modules/prettier-plugin-x"} <= told


def test_the_shell_and_dotenv_files_in_their_other_spellings_are_held(tmp_path):
    # make's SHELL for one target or with $(CURDIR); just's shell list over several lines, a
    # script recipe's interpreter, a dotenv path in parentheses; task's own variables in a
    # dotenv entry and an include.
    for name in ("ci/sh", "ci/script-sh", "ci/vars", "ci/task.env", "linux/Taskfile.yml"):
        make(tmp_path / name, "true\n", "root")
    make(tmp_path / "Makefile", "lint: SHELL := $(CURDIR)/ci/sh\nlint:\n\techo ok\n", "root")
    held, _ = build_files("make", ("lint",), tmp_path, tmp_path)
    assert "ci/sh" in names(tmp_path, held)
    make(tmp_path / "Makefile", "SHELL != command -v bash\nlint:\n\techo ok\n", "root")
    with pytest.raises(CannotTell):  # (a command's output: only make can tell)
        build_files("make", ("lint",), tmp_path, tmp_path)
    justfile = (
        'set shell := [\n  "./ci/sh",\n  "-c",\n]\nset dotenv-path := ("ci/vars")\n'
        '[script("./ci/script-sh")]\nlint:\n  echo ok\n'
    )
    make(tmp_path / "justfile", justfile, "root")
    held, _ = build_files("just", ("lint",), tmp_path, tmp_path)
    assert {"ci/sh", "ci/vars", "ci/script-sh"} <= names(tmp_path, held)
    taskfile = (
        "version: '3'\ndotenv: ['{{.ROOT_DIR}}/ci/task.env']\n"
        "includes:\n  os: ./{{OS}}/Taskfile.yml\ntasks:\n  lint:\n    cmds: [echo ok]\n"
    )
    make(tmp_path / "Taskfile.yml", taskfile, "root")
    held, _ = build_files("task", ("lint",), tmp_path, tmp_path)
    assert {"ci/task.env", "linux/Taskfile.yml"} <= names(tmp_path, held)


@pytest.mark.parametrize(
    "line",
    [
        "mvn -q -D maven.repo.local=.m2/repository validate",
        "mvn -q --define maven.repo.local=.m2/repository validate",
        "export MAVEN_OPTS=-Dmaven.repo.local=.m2/repository; mvn -q validate",
    ],
)
def test_a_maven_local_repository_is_held_in_every_spelling_maven_takes(tmp_path, line):
    make(tmp_path / "pom.xml", "<project></project>\n", "root", 0o644)
    (tmp_path / ".m2" / "repository").mkdir(parents=True)
    held, _ = folder_open_scripts(tmp_path, line)
    assert ".m2/repository" in held


@pytest.mark.parametrize(
    "line",
    [
        '#[path = "codegen.rs"] #[allow(dead_code)] mod gen;',
        '#[cfg_attr(unix, path = "codegen.rs")] mod gen;',
        'include!["codegen.rs"];',
        'include!(r"codegen.rs");',
    ],
)
def test_a_build_script_s_module_is_held_in_every_form_rustc_takes(tmp_path, line):
    make(tmp_path / "Cargo.toml", "[package]\nname = 'a'\n", "root", 0o644)
    make(tmp_path / "build.rs", f"{line}\nfn main() {{}}\n", "root", 0o644)
    make(tmp_path / "codegen.rs", "", "root", 0o644)
    held, _ = build_files("cargo", ("check",), tmp_path, tmp_path)
    assert "codegen.rs" in names(tmp_path, held)
    # A path built by macros (`concat!(env!("CARGO_MANIFEST_DIR"), ...)`) only rustc can tell.
    make(tmp_path / "build.rs", 'include!(concat!(env!("OUT_DIR"), "/x.rs"));\n', "root", 0o644)
    with pytest.raises(CannotTell):
        build_files("cargo", ("check",), tmp_path, tmp_path)


def test_a_nested_lint_staged_line_that_runs_prettier_makes_prettier_s_configs_count(tmp_path):
    # lint-staged runs web/'s `prettier --check` from web/: prettier then takes each file's
    # config from its folder, web/sub/.prettierrc.json and the plugin it names too.
    make(tmp_path / ".git/hooks/pre-commit", "#!/bin/sh\nnpx lint-staged\n", "root")
    make(tmp_path / "web/.lintstagedrc.json", '{"*.js": "prettier --check"}', "root", 0o644)
    make(tmp_path / "web/sub/.prettierrc.json", '{"plugins": ["./plug.mjs"]}', "root", 0o644)
    make(tmp_path / "web/sub/plug.mjs", "export default {}\n", "root", 0o644)
    assert {"web/sub/.prettierrc.json", "web/sub/plug.mjs"} <= per_file_told(tmp_path)
    # The file tools ask before making one there too, as for a tool the hook runs itself.
    assert "config of each file" in file_tools_ask(tmp_path, "web/new/.prettierrc.json")
    assert file_tools_ask(tmp_path, "web/new/.eslintrc.json") is None  # (no eslint runs)
