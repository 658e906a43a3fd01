"""Which bash commands one "always" covers: a simple command that starts with the same words.

An "always" at a bash question becomes a rule for the command's first word(s):

    npm test                      ->  npm test          a tool with subcommands: two words
    git status --short            ->  git status
    python -m pytest -q           ->  python -m pytest  an interpreter: its module or script
    ls -la src                    ->  ls                anything else: the program
    make && rm -rf /              ->  (no always)       not a simple command
    bash -c 'anything'            ->  (no always)       a program that runs the command it is given

A rule matches a later command only when that command is *simple*: one program and its
arguments, with none of ; & | < > ( ) $ ` \\ or a line break (so no second command, pipe,
redirection, substitution, background job or continuation line), and with quotes that close.
Its words (split as the shell splits them, quotes removed) must then begin with the rule's
words, exactly. So a rule for `git status` covers `git status --short` but not `git statusx`,
`git -c x=y status`, `FOO=1 git status` or `git status; curl … | sh`: those are asked about.

What a rule cannot know: the rest of the arguments. A rule for `rm` covers `rm -rf ~`, and one
for `npm test` runs whatever package.json says that day. For git, whose reading subcommands are
the ones people say "always" to, the options that make them run a program or write a file
(`--output`, `grep -O`, `rebase --exec`, `bisect run`, ... and any abbreviation of them) are
asked about anyway. Programs
that run other programs from their arguments (shells, `env`, `sudo`, `xargs`, `find`, `sed`,
`awk`, ...) get no rule at all, and an interpreter's rule names its script or module
(`python -c …` gets none).
"""

from __future__ import annotations

import re

from tools.environment import shell_words

# Any of these can start a second command, redirect, substitute or continue a line; braces and
# globs expand into words the rule never saw (`git grep {-O./x.sh,a}`, a file named `--output=x`).
NOT_SIMPLE = re.compile(r"[;&|<>()$`\\\x00-\x1f\x7f{}*?\[\]]")
# A word a rule may hold: plain characters only, so a rule reads the same on every screen.
PLAIN_WORD = re.compile(r"[A-Za-z0-9_.+/@%:,=-]+")
MAX_WORD_CHARS = 64  # longer words make no rule: a prefix is read at a glance


def names(text: str) -> frozenset[str]:
    """A set of program names, written as words."""
    return frozenset(text.split())


# Tools whose second word says what they do (`git push` is not `git status`).
SUBCOMMAND_TOOLS = names(
    "git npm pnpm yarn npx bun deno cargo go docker podman kubectl helm terraform pip pip3 uv "
    "poetry pdm hatch make just gh dotnet mvn gradle bundle rake rails composer brew apt "
    "apt-get systemctl ruff"
)
# Interpreters: the rule names the script or `-m module`; `-c` and the like get no rule.
INTERPRETERS = frozenset({"python", "python2", "python3", "node", "ruby", "php", "lua"})
# Programs that run a command, a script or code from their arguments: no rule covers them.
RUNS_OTHER_COMMANDS = names(
    "sh bash zsh dash ksh fish csh tcsh env sudo doas su xargs eval exec command builtin "
    "source . nohup nice ionice timeout time watch setsid stdbuf chroot unshare nsenter flock "
    "strace ltrace script ssh find sed awk gawk mawk perl parallel busybox"
)


def simple_command_words(command: str) -> list[str] | None:
    """The words of `command` if it is one simple command, else None."""
    if NOT_SIMPLE.search(command):
        return None
    try:
        words = shell_words(command)
    except ValueError:  # a quote that does not close, or a line too long to split
        return None
    return words or None


def prefix_for(command: str) -> tuple[str, ...] | None:
    """The words a rule for `command` would hold, or None when no rule is offered for it."""
    words = simple_command_words(command)
    if words is None:
        return None
    prefix = program_prefix(words)
    if prefix is None or not all(is_plain(word) for word in prefix):
        return None
    return prefix


def program_prefix(words: list[str]) -> tuple[str, ...] | None:
    """The first word(s) of a simple command that say what it runs (see the module docstring)."""
    program = words[0].rsplit("/", 1)[-1]
    if words[0].startswith("-") or "=" in words[0] or program in RUNS_OTHER_COMMANDS:
        return None  # an assignment (`LD_PRELOAD=… ls`) or a program that runs others
    if program in INTERPRETERS:
        if len(words) >= 3 and words[1] == "-m" and not words[2].startswith("-"):
            return tuple(words[:3])
        if len(words) >= 2 and not words[1].startswith("-"):
            return tuple(words[:2])
        return None  # `python -c …`, a bare REPL: anything at all
    if program in SUBCOMMAND_TOOLS:
        if len(words) >= 2 and not words[1].startswith("-"):
            return tuple(words[:2])
        return None  # `git -c core.pager=… log`: an option before the subcommand
    return (words[0],)


# git options and words with which a reading subcommand runs a program or writes a file: a
# rule for `git grep` must not cover `git grep -O./x.sh`, nor one for `git log` `--output=~/x`.
GIT_RUNS_OR_WRITES = (
    "--output",  # diff, log, show: write the output to any file
    "--output-directory",  # format-patch
    "-O",  # grep: the pager named after it opens the matches
    "--open-files-in-pager",
    "--ext-diff",  # the diff program named in the config, or in GIT_EXTERNAL_DIFF
    "--exec",  # rebase --exec
    "-x",  # rebase -x (same), and cherry-pick -x (harmless, asked anyway)
    "--upload-pack",  # fetch, clone, ls-remote: the program run for the other side
    "--receive-pack",  # push
    "--extcmd",  # difftool: the diff program
    "--template",  # clone, init: a template folder whose hooks the new repository runs
    "-o",  # archive -o FILE, format-patch -o DIR: write where they are told
    "run",  # bisect run COMMAND
    "foreach",  # submodule foreach COMMAND
)


def starts_with(command: str, prefix: tuple[str, ...]) -> bool:
    """Whether a rule for `prefix` covers `command` (see the module docstring)."""
    words = simple_command_words(command)
    if words is None or not prefix or tuple(words[: len(prefix)]) != prefix:
        return False
    if words[0].rsplit("/", 1)[-1] == "git":
        return not any(runs_or_writes(word) for word in words[len(prefix) :])
    return True


def runs_or_writes(word: str) -> bool:
    """Whether a word of a git command is one of GIT_RUNS_OR_WRITES (with its value joined).

    git takes any unambiguous start of a long option for the whole (`--open-files` is
    `--open-files-in-pager`), so a long option counts when it starts one of the list.
    """
    name = word.split("=", 1)[0]
    for option in GIT_RUNS_OR_WRITES:
        if name == option:
            return True
        if option.startswith("--") and name.startswith("--") and option.startswith(name):
            return len(name) > 2  # `--` alone ends the options
        if len(option) == 2 and option[0] == "-" and word.startswith(option):  # -O./x, -xcmd
            return True
    return False


def is_plain(word: str) -> bool:
    return len(word) <= MAX_WORD_CHARS and PLAIN_WORD.fullmatch(word) is not None


def is_valid_prefix(prefix: object) -> bool:
    """Whether `prefix` is a rule `prefix_for` could have made (a saved rule is checked so)."""
    if not isinstance(prefix, (list, tuple)) or not 1 <= len(prefix) <= 3:
        return False
    if not all(isinstance(word, str) for word in prefix):
        return False
    return prefix_for(" ".join(prefix)) == tuple(prefix)
