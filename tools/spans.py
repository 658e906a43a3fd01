"""Spans of untrusted text between an opener and a closer, found in time linear in the text.

The readers of build files and tool settings look for `<parent>...</parent>` in a pom, for
`<!--...-->`, for a mise template `{{...}}`. The obvious regex, `<parent>(.*?)</parent>`, is
quadratic when the closer is missing: re.finditer tries again at every later opener and reads
to the end each time. A workspace file is the repository's to write, and a pom of `<parent>`
tags alone took 37 s at 256 KiB. Python's `re` holds the interpreter for a whole search, so
planloop answered no signal (Ctrl-C, SIGTERM) until it was done.

The functions here find what that regex finds, with one look for each closer: a closer
missing after one opener is missing after every later one too.
"""

from __future__ import annotations

from collections.abc import Iterator


def delimited(text: str, *pairs: tuple[str, str]) -> Iterator[tuple[int, int]]:
    """(start, end) of each span of `text` from an opener of `pairs` to the first closer of its
    pair after it: leftmost first and not overlapping, as `re.finditer` finds them with
    "opener.*?closer|..." (re.DOTALL). No two openers may start at one place ("{{", "{%")."""
    closers = dict(pairs)
    upcoming = {opener: text.find(opener) for opener in closers}  # each opener's next place
    upcoming = {opener: place for opener, place in upcoming.items() if place != -1}
    while upcoming:
        opener = min(upcoming, key=upcoming.__getitem__)
        start = upcoming[opener]
        end = text.find(closers[opener], start + len(opener))
        if end == -1:
            del upcoming[opener]  # and none of its later ones can close either
            continue
        end += len(closers[opener])
        yield start, end
        for other, place in list(upcoming.items()):  # openers inside the span are passed over
            if place < end:
                upcoming[other] = text.find(other, end)
                if upcoming[other] == -1:
                    del upcoming[other]


def insides(text: str, *pairs: tuple[str, str]) -> Iterator[str]:
    """What lies between the opener and the closer of each span `delimited` finds: as
    `re.findall("opener(.*?)closer|...", text, re.DOTALL)`."""
    for start, end in delimited(text, *pairs):
        opener, closer = next(pair for pair in pairs if text.startswith(pair[0], start))
        yield text[start + len(opener) : end - len(closer)]


def delimited_in_lines(text: str, *pairs: tuple[str, str]) -> Iterator[tuple[int, int]]:
    """`delimited` within each line: as `re.finditer` finds "opener.*?closer" without re.DOTALL,
    where a span cannot cross a line break. No opener or closer may hold one."""
    offset = 0
    for line in text.split("\n"):
        for start, end in delimited(line, *pairs):
            yield offset + start, offset + end
        offset += len(line) + 1


def replaced(text: str, spans: Iterator[tuple[int, int]], replacement: str) -> str:
    """`text` with each of `spans` (in order, not overlapping) replaced by `replacement`."""
    pieces, kept = [], 0
    for start, end in spans:
        pieces += [text[kept:start], replacement]
        kept = end
    return "".join([*pieces, text[kept:]])
