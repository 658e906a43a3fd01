"""TOML a repository ships (mise.toml, Cargo.toml, bunfig.toml, a pixi manifest), read with
tomllib once no key in it has more parts than any real one.

tomllib checks every prefix of a dotted key against the tables defined so far: a key of N parts
(`a.a.a.….a = 1`) costs time and memory in N², half a second at 16 KB, some 14 GB at 120 KB,
all of it on the event loop, where no Ctrl-C or SIGTERM is served meanwhile. Keys of at most
MAX_KEY_PARTS parts keep a whole file of 1 MiB under half a second.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

MAX_KEY_PARTS = 32

# MAX_KEY_PARTS parts, each followed by a dot: bare, or quoted on one line. Found in time
# linear in the text: a run starts only where no key character stands before it, and each
# part is taken whole (`++`, `*+`) or not at all.
KEY_PART = r"""(?:[A-Za-z0-9_-]++|"[^"\n]*+"|'[^'\n]*+')"""
LONG_KEY = re.compile(rf"(?<![A-Za-z0-9_-])(?>{KEY_PART}[ \t]*+\.[ \t]*+){{{MAX_KEY_PARTS}}}")


def toml_data(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`; ValueError for a key of more than MAX_KEY_PARTS parts (as for TOML
    tomllib cannot read: its TOMLDecodeError is a ValueError too)."""
    if LONG_KEY.search(text):
        raise ValueError(f"a TOML key of more than {MAX_KEY_PARTS} parts")
    return tomllib.loads(text)
