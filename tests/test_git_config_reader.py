"""planloop's git config reader against git itself: what git reads from a repository's config
(a hooks folder, an fsmonitor program) is what planloop guards, whatever the bytes between."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools.paths import read_git_config

# Characters that some reader takes as a line break or a blank and git does not (or does):
# the form feed family, the separators \x1c-\x1f, NEL, NBSP, the Unicode line separators, a
# lone carriage return, a tab.
ODD = [
    "\t",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1f",
    "\x85",
    "\xa0",
    "\u2028",
    "\u3000",
]

SHAPES = [
    "[core]\n\tfsmonitor = ./fs{c}mon.sh\n",
    "[core]\n\tfsmonitor = ./fs{c}\n",
    "[core]\n\tfsmonitor ={c}./fsmon.sh\n",
    '[core]\n\tfsmonitor = "./fs{c}mon.sh"\n',
    '[core]\n\thooksPath = "hk{c}"x\n',
    "[core]{c}\n\tfsmonitor = ./fsmon.sh\n",
    "[core]\n# a comment{c}fsmonitor = ./fsmon.sh\n\tpager = less\n",
    "[core]\n# a comment \\\n\tfsmonitor = ./fsmon.sh\n",
    "[core]\r\n\tfsmonitor = ./fs \\\r\n  mon.sh{c}\r\n",
    '[alias "x"]fsmonitor = ./a{c}b ; c\n[core] editor = e{c}\t# d\n',
    "[core]\n\tfsmonitor = a{c}\\\n{c}b\n",
    "[core]\n\tfsmonitor\n\teditor = ./ed{c}\n",
]


def what_git_reads(config: Path) -> list[tuple[str, str]] | None:
    """(section.key, value) as git lists them, subsections dropped; None when git refuses."""
    listed = subprocess.run(
        ["git", "config", "--file", str(config), "--list", "-z"], capture_output=True
    )
    if listed.returncode != 0:
        return None
    pairs = []
    for entry in listed.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]:
        name, _, value = entry.partition("\n")
        section, *_, key = name.split(".")
        pairs.append((f"{section}.{key}", value))
    return pairs


@pytest.mark.parametrize("shape", SHAPES)
def test_every_setting_git_reads_is_read_with_the_value_git_reads(shape, tmp_path):
    config = tmp_path / "config"
    refused = []
    for char in ODD:
        config.write_bytes(shape.replace("{c}", char).encode())
        git = what_git_reads(config)
        if git is None:
            refused.append(char)  # git runs nothing from a config it cannot read
            continue
        ours = read_git_config(config)
        assert [pair for pair in git if pair not in ours] == [], repr(char)
    assert len(refused) < len(ODD)  # the shape itself is one git reads
