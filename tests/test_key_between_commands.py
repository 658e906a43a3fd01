"""The key pasted into a file of any name while no command runs is hidden from the next one.

The model asks the person to put their key into the app's settings; they do, while the model
is thinking. The search for copies of the key ran at start, and each command's watch sees only
what is written while it runs: the next command read the file. Now the workspace stays watched
between commands, and what came to hold the key is hidden like any copy found.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import API_KEY
from test_hostile_pass4 import needs_bwrap, run_as, tool_results, user_folders
from test_key_file_events import REVERSED, write_owned

from fakeapi import text, tool_use

__all__ = ["user_folders"]  # a fixture, used by name

SETTINGS = json.dumps({"anthropic_api_key": API_KEY}) + "\n"
SHOW = "rev config/settings.json; base64 -w0 config/settings.json; wc -c < config/settings.json"


@needs_bwrap
@pytest.mark.parametrize("user_folders", ["root", "nobody"], indirect=True)
def test_a_key_pasted_between_two_commands_is_hidden_from_the_next(api, env, user_folders):
    user, workspace, planloop_home, home = user_folders
    (workspace / "config").mkdir()
    write_owned(workspace / "config" / "settings.json", '{"anthropic_api_key": ""}\n', user)
    if user == "nobody":
        os.chown(workspace / "config", 65534, 65534)

    def the_person_pastes_it(_body: dict) -> dict:
        # The first command has ended; the model is thinking: no command runs now.
        write_owned(workspace / "config" / "settings.json", SETTINGS, user)
        return {"content": [tool_use("bash", {"command": SHOW})]}

    api.add({"content": [tool_use("bash", {"command": "cat config/settings.json"})]})
    api.add(the_person_pastes_it)
    api.add({"content": [text("Done.")]})
    result = run_as(user, api, {**env, "PLANLOOP_HOME": str(planloop_home)}, workspace, home)
    assert result.returncode == 0, result.stderr
    first, second = tool_results(api)
    assert '"anthropic_api_key": ""' in first  # the file was readable before the key came
    assert "0\n" in second  # hidden: the command finds it empty
    sent = json.dumps(api.requests)
    assert API_KEY not in sent and REVERSED not in sent
    assert (workspace / "config" / "settings.json").read_text() == SETTINGS


def test_the_watch_between_commands_is_one_per_workspace_and_few(tmp_path):
    # Each is an inotify instance (128 a user by default): a process that runs agents in
    # many folders, as this test suite does, keeps only the newest few; and none stays while
    # a command runs, which its own watch judges.
    import asyncio

    import tools.between_commands as between

    async def run() -> tuple[int, int]:
        for index in range(between.MAX_WATCHED + 3):
            folder = tmp_path / f"w{index}"
            folder.mkdir()
            between.watch_until_the_next_command(folder)
        kept = len(between._watches)
        between.key_files_written_between(tmp_path / "w6", print)  # a command starts there
        return kept, len(between._watches)

    assert asyncio.run(run()) == (between.MAX_WATCHED, between.MAX_WATCHED - 1)
