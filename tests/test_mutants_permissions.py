"""The permission table (/permissions) tells the truth in every mode, row by row.

Found unchecked by mutation testing (bench/mutation.sh): with --yes, or without the sandbox,
single rows of the table could change without any test noticing.
"""

import pytest

from middleware.permissions import PermissionPolicy

PROTECTED_ROW = "write_file, edit_file on .git/, .env*, planloop's sessions folder"
FILE_TOOLS_ROW = "read_file, write_file, edit_file"
OUTSIDE_ROW = "any path outside the workspace"


def never_asked(question: str) -> str:
    raise AssertionError(f"nobody should be asked: {question}")


def table(**options) -> dict[str, str]:
    return {rule.what: rule.verdict for rule in PermissionPolicy(**options).rules()}


@pytest.mark.parametrize(
    ("options", "asks"),
    [
        ({"ask": never_asked}, "asks"),
        ({"ask": None}, "refused"),
        ({"ask": None, "allow_all": True}, "runs freely"),
    ],
)
def test_the_whole_table_with_the_sandbox(options, asks):
    assert table(sandboxed=True, **options) == {
        "bash": "runs freely",
        "bash with outside_sandbox": asks,
        FILE_TOOLS_ROW: "runs freely",
        PROTECTED_ROW: asks,
        OUTSIDE_ROW: "refused",
    }


@pytest.mark.parametrize(
    ("options", "asks"),
    [
        ({"ask": never_asked}, "asks"),
        ({"ask": None}, "refused"),
        ({"ask": None, "allow_all": True}, "runs freely"),
    ],
)
def test_the_whole_table_without_the_sandbox(options, asks):
    assert table(sandboxed=False, **options) == {
        "bash": asks,
        FILE_TOOLS_ROW: "runs freely",
        PROTECTED_ROW: asks,
        OUTSIDE_ROW: "refused",
    }


def test_every_row_says_why():
    for sandboxed in (True, False):
        for rule in PermissionPolicy(ask=None, sandboxed=sandboxed).rules():
            assert rule.why, rule
    protected = next(
        r for r in PermissionPolicy(ask=None, sandboxed=True).rules() if r.what == PROTECTED_ROW
    )
    assert protected.why.count("; ") == 2  # one reason for each protected kind
