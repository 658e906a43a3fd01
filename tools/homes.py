"""Which home folders are yours: $HOME, and the one your account has.

A run may point HOME elsewhere (CI, a wrapper's `HOME=$PWD/.home`, `sudo -E`). The home the
password database gives your user is still where your shell, git, ssh and editor read their
settings in every other terminal, and where your keys lie. So each rule about "your home" (the
secrets hidden from commands, the start-up files held, the configs read for what they name,
the key search) looks at both.
"""

from __future__ import annotations

import functools
import os
import pwd
from pathlib import Path


@functools.lru_cache(maxsize=1)
def account_home() -> Path | None:
    """The home folder the password database gives your user, where it is not $HOME."""
    try:
        home = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return None
    if not os.path.isabs(home) or not os.path.isdir(home):
        return None
    same = os.path.realpath(home) == os.path.realpath(Path.home())
    return None if same else Path(os.path.normpath(home))


def your_homes() -> list[Path]:
    """$HOME, then your account's home where it is another folder (`account_home`)."""
    return [Path.home(), *filter(None, [account_home()])]
