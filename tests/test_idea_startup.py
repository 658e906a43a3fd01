"""JetBrains IDEs' startup tasks: what the run configurations they name run is held.

`.idea/startup.xml` (and your own list in `.idea/workspace.xml`) names run configurations the
IDE runs when the project opens, with no click, as VS Code runs a folderOpen task. `.idea/` is
held whole; the script, the Python file or the package.json such a configuration runs lies
elsewhere in the tree, and a command that rewrote it would have the IDE run it outside the
sandbox.
"""

from __future__ import annotations

from pathlib import Path

from test_git_programs import make
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders
from test_tool_scripts import named

from fakeapi import text, tool_use
from tools.paths import protected_reason, scan_for_file_tools
from tools.tool_scripts import tool_script_not_held, tool_scripts

__all__ = ["user_folders"]  # a fixture, used by name below


SHARED = "ProjectStartupSharedConfiguration"  # .idea/startup.xml's; yours: Local, in workspace.xml


def startup(component: str, *names: str) -> str:
    tasks = "".join(f'<configuration id="x.{name}" name="{name}" />' for name in names)
    tasks = f'<component name="{component}"><configurations>{tasks}</configurations></component>'
    return f'<project version="4">{tasks}</project>'


def configuration(name: str, kind: str, body: str) -> str:
    return (
        '<component name="ProjectRunConfigurationManager">'
        f'<configuration default="false" name="{name}" type="{kind}">{body}</configuration>'
        "</component>"
    )


def option(name: str, value: str) -> str:
    return f'<option name="{name}" value="{value}" />'


PROJECT = {
    ".idea/startup.xml": startup(SHARED, "start", "gen", "watch"),
    ".idea/runConfigurations/start.xml": configuration(
        "start",
        "ShConfigurationType",
        option("SCRIPT_PATH", "$PROJECT_DIR$/scripts/start.sh")
        + option("INTERPRETER_PATH", "$PROJECT_DIR$/tools/shell")
        + option("INTERPRETER_OPTIONS", "tools/pre.sh")  # `tools/shell tools/pre.sh scripts/...`
        + option("EXECUTE_SCRIPT_FILE", "true"),
    ),
    ".idea/runConfigurations/gen.xml": configuration(
        "gen",
        "PythonConfigurationType",
        option("SCRIPT_NAME", "$PROJECT_DIR$/tools/gen.py")
        + option("IS_MODULE_SDK", "false")  # the IDE runs SDK_HOME, not the module's python
        + option("SDK_HOME", "$PROJECT_DIR$/tools/py")
        + option("INTERPRETER_OPTIONS", "tools/pre.py"),  # `tools/py tools/pre.py gen.py`
    ),
    ".run/watch.run.xml": configuration(
        "watch",
        "js.build_tools.npm",
        '<package-json value="$PROJECT_DIR$/web/package.json" /><command value="run" />'
        '<scripts><script value="watch" /></scripts>',
    ),
    ".idea/runConfigurations/other.xml": configuration(
        "other", "ShConfigurationType", option("SCRIPT_PATH", "$PROJECT_DIR$/scripts/other.sh")
    ),
    "scripts/start.sh": "echo start\n",
    "scripts/other.sh": "echo other\n",
    "tools/shell": "#!/bin/sh\n",
    "tools/py": '#!/bin/sh\nexec python3 "$@"\n',
    "tools/pre.py": "print(0)\n",
    "tools/pre.sh": "echo pre\n",
    "tools/gen.py": "print(1)\n",
    "web/package.json": '{"scripts": {"watch": "node w.js"}}\n',
    "web/w.js": "// watch\n",
}


def project(root: Path, user: str = "root") -> None:
    for name, content in PROJECT.items():
        make(root / name, content, user, mode=0o644)


def one_command(api, env, user_folders, command: str) -> tuple[str, str]:
    """planloop run as the user on one bash `command`: its tool result, and what the terminal
    was told."""
    user, workspace, planloop_home, home = user_folders
    api.add({"content": [tool_use("bash", {"command": command})]})
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    (ran,) = tool_results(api)
    return ran, result.stderr


def test_what_the_run_configurations_a_startup_task_names_run_is_held(tmp_path):
    project(tmp_path)
    held = named(tmp_path)
    assert {"scripts/start.sh", "tools/shell", "tools/pre.sh", "tools/gen.py"} <= held
    assert {"tools/py", "tools/pre.py"} <= held  # the Python interpreter and its options
    assert {"web/package.json", "web/w.js", ".run/watch.run.xml"} <= held  # (.run: not .idea)
    assert "scripts/other.sh" not in held  # run from the menu: the project's code
    assert tool_script_not_held(tmp_path, [tmp_path / ".idea"]) is None


def test_your_own_startup_tasks_a_module_and_a_scripts_text_count_too(tmp_path):
    local = startup("ProjectStartupLocalConfiguration", "fmt", "lint")
    manager = (
        configuration(
            "fmt",
            "PythonConfigurationType",
            option("SCRIPT_NAME", "fmt") + option("MODULE_MODE", "true"),
        )
        + configuration(
            "lint",
            "ShConfigurationType",
            option("EXECUTE_SCRIPT_FILE", "false") + option("SCRIPT_TEXT", "./tools/lint.sh --all"),
        )
    ).replace("ProjectRunConfigurationManager", "RunManager")
    make(
        tmp_path / ".idea/workspace.xml",
        local.replace("</project>", f"{manager}</project>"),
        "root",
    )
    make(tmp_path / "tools/lint.sh", "true\n", "root")
    make(tmp_path / "fmt.py", "# the module\n", "root")
    configs = scan_for_file_tools(tmp_path).tool_configs
    scripts = tool_scripts(tmp_path, configs)
    assert "tools/lint.sh" in named(tmp_path)
    assert tmp_path / "fmt.py" in [path for path, _ in scripts.when_there]  # python -m fmt


def test_a_startup_task_that_names_what_planloop_cannot_tell_makes_commands_ask(tmp_path):
    make(tmp_path / ".idea/startup.xml", startup(SHARED, "made later"), "root")
    why = tool_script_not_held(tmp_path, [tmp_path / ".idea"])
    assert why and "'made later' of a startup task, defined nowhere" in why  # (.run/ is open)
    make(tmp_path / ".idea/startup.xml", startup(SHARED, "app"), "root")
    gradle = configuration("app", "GradleRunConfiguration", "")
    make(tmp_path / ".idea/runConfigurations/app.xml", gradle, "root")
    why = tool_script_not_held(tmp_path, [tmp_path / ".idea"])
    assert why and "the GradleRunConfiguration run configuration 'app'" in why


@needs_bwrap
def test_a_command_cannot_rewrite_what_a_startup_task_runs(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    project(workspace, user)
    attacked = ["scripts/start.sh", "tools/gen.py", "web/package.json", ".run/watch.run.xml"]
    attacked += ["tools/py", "tools/pre.py", "tools/pre.sh"]  # interpreters and their options
    plant = "; ".join(f"echo planted >> {name}" for name in attacked)
    new = "echo '<project/>' > .idea/other-startup.xml"  # .idea/ is held whole
    edit = "echo '# edited' >> scripts/other.sh"  # the project's code
    ran, _ = one_command(api, env, user_folders, f"{plant}; {new}; {edit}; echo finished")
    assert ran.count("Read-only file system") == len(attacked) + 1 and "finished" in ran, ran
    for name in attacked:
        assert "planted" not in (workspace / name).read_text(), name
    assert not (workspace / ".idea/other-startup.xml").exists()
    assert (workspace / "scripts/other.sh").read_text().endswith("# edited\n")


def test_a_large_workspace_xml_without_startup_tasks_makes_no_command_ask(tmp_path):
    # A big project's workspace.xml (history, layouts) passes the 1 MiB other settings may have.
    (tmp_path / ".idea").mkdir()
    history = "".join(f'<entry key="recent.{n}" value="{"x" * 60}" />' for n in range(30_000))
    (tmp_path / ".idea" / "workspace.xml").write_text(
        f'<project version="4"><component name="PropertiesComponent">{history}</component>'
        "</project>"
    )
    assert (tmp_path / ".idea" / "workspace.xml").stat().st_size > 2 * 1024 * 1024
    configs = scan_for_file_tools(tmp_path).tool_configs
    assert tool_script_not_held(tmp_path, configs) is None


def test_an_interpreter_the_ide_does_not_take_from_the_workspace_makes_no_command_ask(tmp_path):
    # The module's own python (SDK_HOME left from before), or one on another machine.
    make(tmp_path / ".idea/startup.xml", startup(SHARED, "a", "b"), "root")
    stale = option("IS_MODULE_SDK", "true") + option("SDK_HOME", "$PROJECT_DIR$/gone/python")
    remote = option("SDK_HOME", "ssh://me@host:22/usr/bin/python3")
    for name, sdk in (("a", stale), ("b", remote)):
        body = configuration(name, "PythonConfigurationType", sdk + option("SCRIPT_NAME", "m.py"))
        make(tmp_path / f".idea/runConfigurations/{name}.xml", body, "root")
    make(tmp_path / "m.py", "print(1)\n", "root")
    assert tool_script_not_held(tmp_path, [tmp_path / ".idea"]) is None


def test_a_run_configuration_file_anywhere_in_the_project_counts_and_is_held(tmp_path):
    # The IDE reads a shared run configuration from any `*.run.xml` of the project.
    make(tmp_path / ".idea/startup.xml", startup(SHARED, "sh"), "root")
    defined = configuration(
        "sh", "ShConfigurationType", option("SCRIPT_PATH", "$PROJECT_DIR$/scripts/s.sh")
    )
    make(tmp_path / "ide/sh.run.xml", defined, "root")
    make(tmp_path / "scripts/s.sh", "echo s\n", "root")
    assert "scripts/s.sh" in named(tmp_path)
    assert tool_script_not_held(tmp_path, scan_for_file_tools(tmp_path).tool_configs) is None
    assert "JetBrains" in protected_reason(tmp_path, "ide/sh.run.xml")
    assert "JetBrains" in protected_reason(tmp_path, ".run/new.run.xml")  # the file tools ask


@needs_bwrap
def test_a_command_that_defines_a_startup_tasks_name_again_is_reported(api, env, user_folders):
    # `sh` is defined in workspace.xml; a new .run/sh.run.xml defines it again with a text of
    # its own, which the IDE may take when the project next opens.
    user, workspace, planloop_home, home = user_folders
    defined = configuration(
        "sh", "ShConfigurationType", option("SCRIPT_PATH", "$PROJECT_DIR$/scripts/s.sh")
    ).replace("ProjectRunConfigurationManager", "RunManager")
    make(workspace / ".idea/startup.xml", startup(SHARED, "sh"), user, mode=0o644)
    make(workspace / ".idea/workspace.xml", f"<project>{defined}</project>", user, mode=0o644)
    make(workspace / "scripts/s.sh", "echo s\n", user, mode=0o644)
    other = configuration("sh", "ShConfigurationType", option("SCRIPT_TEXT", "touch /tmp/x"))
    command = f"mkdir -p .run && echo '{other}' > .run/sh.run.xml && echo finished"
    ran, told = one_command(api, env, user_folders, command)
    assert ".run/sh.run.xml is new. It was kept, and the user was told" in ran, ran
    assert ".run/sh.run.xml (a host tool's configuration)" in told


def test_run_configurations_past_what_a_look_parses_make_commands_ask(tmp_path):
    # Each file of runConfigurations is looked up for the startup task's name: four of 16 MiB
    # of empty tags took 14 s a look, before every command.
    make(tmp_path / ".idea/startup.xml", startup(SHARED, "a"), "root")
    empty_tags = "<x/>" * 200_000
    for n in range(3):  # 600,000 tags in all, before the file that defines the task
        body = configuration(f"b{n}", "ShConfigurationType", empty_tags)
        make(tmp_path / f".idea/runConfigurations/b{n}.xml", body, "root")
    script = option("SCRIPT_PATH", "$PROJECT_DIR$/scripts/s.sh")
    make(
        tmp_path / ".idea/runConfigurations/z.xml",
        configuration("a", "ShConfigurationType", script),
        "root",
    )
    make(tmp_path / "scripts/s.sh", "echo s\n", "root")
    why = tool_script_not_held(tmp_path, [tmp_path / ".idea"])
    assert why and ".idea/startup.xml" in why, why


def test_a_large_projects_workspace_xml_with_a_startup_task_is_read_whole(tmp_path):
    # 150,000 entries of history and a startup task of your own, defined in the same file.
    history = "".join(f'<entry key="recent.{n}" value="{"x" * 70}" />' for n in range(150_000))
    script = option("SCRIPT_PATH", "$PROJECT_DIR$/scripts/s.sh")
    defined = configuration("s", "ShConfigurationType", script)
    workspace_xml = (
        f'<project version="4"><component name="PropertiesComponent">{history}</component>'
        + startup("ProjectStartupLocalConfiguration", "s").removeprefix('<project version="4">')
    ).replace("</project>", defined.replace("ProjectRunConfigurationManager", "RunManager"))
    make(tmp_path / ".idea/workspace.xml", workspace_xml + "</project>", "root")
    assert (tmp_path / ".idea/workspace.xml").stat().st_size > 15 * 1024 * 1024
    make(tmp_path / "scripts/s.sh", "echo s\n", "root")
    assert "scripts/s.sh" in named(tmp_path)
    assert tool_script_not_held(tmp_path, [tmp_path / ".idea"]) is None
