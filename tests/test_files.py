"""The file tools: read_file, write_file and edit_file."""

import codecs
import os
import stat
import time
from pathlib import Path

import pytest

from tools import ToolError, files
from tools.files import MAX_OUTPUT_CHARS, edit_file, read_file, write_file

UTF16_BOMS = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}


def numbered(*lines: str, start: int = 1) -> str:
    return "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(lines, start))


def error_text(function, *args, **kwargs) -> str:
    with pytest.raises(ToolError) as caught:
        function(*args, **kwargs)
    return str(caught.value)


# read_file


def test_read_file_numbers_lines_from_one(tmp_path: Path):
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    assert read_file(tmp_path, "a.txt") == numbered("alpha", "beta")


def test_read_file_shows_a_window_and_says_where_to_continue(tmp_path: Path):
    (tmp_path / "ten.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    result = read_file(tmp_path, "ten.txt", offset=3, limit=2)
    assert result == (
        numbered("line 3", "line 4", start=3)
        + "\n[showing lines 3-4 of 10; call read_file with offset=5 to read more]"
    )


def test_read_file_window_reaching_the_end_has_no_note(tmp_path: Path):
    (tmp_path / "ten.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    assert read_file(tmp_path, "ten.txt", offset=9, limit=5) == numbered(
        "line 9", "line 10", start=9
    )


def test_read_file_last_line_without_a_line_break_is_shown(tmp_path: Path):
    (tmp_path / "a.txt").write_text("one\ntwo")
    assert read_file(tmp_path, "a.txt", offset=2) == numbered("two", start=2)


def test_read_file_offset_past_the_end_says_how_many_lines_there_are(tmp_path: Path):
    (tmp_path / "three.txt").write_text("a\nb\nc\n")
    assert "has 3 lines" in error_text(read_file, tmp_path, "three.txt", offset=4)
    assert "has 3 lines" in error_text(read_file, tmp_path, "three.txt", offset=50)
    (tmp_path / "unterminated.txt").write_text("a\nb")
    assert "has 2 lines" in error_text(read_file, tmp_path, "unterminated.txt", offset=3)


def test_read_file_caps_the_output_and_gives_the_next_offset(tmp_path: Path):
    (tmp_path / "wide.txt").write_text(("x" * 1000 + "\n") * 300)
    result = read_file(tmp_path, "wide.txt")
    *lines, note = result.split("\n")
    assert len(result) <= MAX_OUTPUT_CHARS + 200
    shown = len(lines)
    assert shown < 300
    assert note == (
        f"[showing lines 1-{shown} of 300; call read_file with offset={shown + 1} to read more]"
    )


def test_read_file_truncates_very_long_lines(tmp_path: Path):
    # One line of 5 MB must neither be shown whole nor read into memory whole.
    (tmp_path / "minified.js").write_text("x" * 5_000_000 + "\nsecond\n")
    first, second = read_file(tmp_path, "minified.js").split("\n")
    assert first == f"{1:>6}\t" + "x" * 2000 + " … [line truncated]"
    assert second == f"{2:>6}\tsecond"


def test_read_file_near_the_end_of_a_large_file_is_fast_and_right(tmp_path: Path):
    block = b"filler line 123\n" * 65536  # 1 MiB, 65536 lines
    path = tmp_path / "big.log"
    with open(path, "wb") as file:
        for _ in range(64):
            file.write(block)
        file.write(b"second to last\nlast\n")
    total_lines = 64 * 65536 + 2

    started = time.monotonic()
    result = read_file(tmp_path, "big.log", offset=total_lines - 2, limit=3)
    assert time.monotonic() - started < 5
    assert result == numbered("filler line 123", "second to last", "last", start=total_lines - 2)


def test_read_file_does_not_count_a_large_remainder(tmp_path: Path):
    (tmp_path / "big.log").write_bytes(b"filler line 123\n" * 20_000)  # 320 KB
    result = read_file(tmp_path, "big.log", limit=2)
    assert result.endswith(
        "[showing lines 1-2, more lines follow; call read_file with offset=3 to read more]"
    )


def test_read_file_reports_binary_files_without_dumping_them(tmp_path: Path):
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(100))
    result = read_file(tmp_path, "image.png")
    assert result.startswith("This is a binary file (116 bytes); read_file shows text only.")


def test_read_file_on_a_directory_lists_its_entries(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pkg").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    message = error_text(read_file, tmp_path, "src")
    assert "src is a directory" in message
    assert "main.py\npkg/" in message


def test_read_file_on_a_missing_file_says_file_not_found(tmp_path: Path):
    assert "file not found: nope.txt" in error_text(read_file, tmp_path, "nope.txt")


def test_read_file_on_an_empty_file(tmp_path: Path):
    (tmp_path / "empty.txt").write_text("")
    assert read_file(tmp_path, "empty.txt") == "(empty file)"


def test_read_file_replaces_bytes_that_are_not_utf8_and_hides_crlf(tmp_path: Path):
    (tmp_path / "old.txt").write_bytes(b"caf\xe9\r\nnext\r\n")
    assert read_file(tmp_path, "old.txt") == numbered("caf\ufffd", "next")


@pytest.mark.parametrize("codec", UTF16_BOMS)
def test_read_file_shows_utf16_text_with_a_bom(tmp_path: Path, codec: str):
    text = "alpha\r\ncafé\r\nlast\r\n"
    (tmp_path / "win.txt").write_bytes(UTF16_BOMS[codec] + text.encode(codec))
    assert read_file(tmp_path, "win.txt") == numbered("alpha", "café", "last")
    assert read_file(tmp_path, "win.txt", offset=2, limit=1) == (
        numbered("café", start=2)
        + "\n[showing lines 2-2 of 3; call read_file with offset=3 to read more]"
    )


def test_read_file_sends_large_utf16_files_to_bash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(files, "MAX_UTF16_READ_BYTES", 100)
    (tmp_path / "big.txt").write_bytes(codecs.BOM_UTF16_LE + "line\n".encode("utf-16-le") * 20)
    result = read_file(tmp_path, "big.txt")
    assert result.startswith("This is a UTF-16 text file (202 bytes), too large for read_file.")
    assert "iconv" in result


def test_read_file_refuses_paths_outside_the_workspace(tmp_path: Path):
    assert "escapes the workspace" in error_text(read_file, tmp_path, "../../etc/passwd")


# write_file


def test_write_file_creates_parent_directories(tmp_path: Path):
    result = write_file(tmp_path, "src/pkg/mod.py", "a = 1\nb = 2\n")
    assert (tmp_path / "src/pkg/mod.py").read_text() == "a = 1\nb = 2\n"
    assert result == "Wrote 12 bytes (2 lines) to src/pkg/mod.py (new file)."


def test_write_file_new_file_gets_the_usual_permissions(tmp_path: Path):
    write_file(tmp_path, "new.txt", "x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o666 & ~umask


def test_write_file_overwrite_keeps_the_permission_bits(tmp_path: Path):
    script = tmp_path / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o750)
    result = write_file(tmp_path, "run.sh", "echo new\n")
    assert script.read_text() == "echo new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert "overwrote" in result


def test_write_file_leaves_no_temporary_files(tmp_path: Path):
    write_file(tmp_path, "a.txt", "one")
    write_file(tmp_path, "a.txt", "two")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_write_file_failure_keeps_the_old_file_and_removes_the_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "a.txt").write_text("original")

    def failing_replace(source: str, target: str, **dir_fds: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    assert "No space left on device" in error_text(write_file, tmp_path, "a.txt", "new")
    assert (tmp_path / "a.txt").read_text() == "original"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_write_file_through_an_inner_symlink_keeps_the_link(tmp_path: Path):
    (tmp_path / "real.txt").write_text("old")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "real.txt")
    write_file(tmp_path, "alias.txt", "new")
    assert (tmp_path / "alias.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new"


def test_write_file_to_a_directory_is_refused(tmp_path: Path):
    (tmp_path / "src").mkdir()
    assert "src is a directory" in error_text(write_file, tmp_path, "src", "x")


def test_write_file_under_a_file_is_refused(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("")
    message = error_text(write_file, tmp_path, "notes.txt/inner.txt", "x")
    assert "existing file" in message


def test_write_file_refuses_paths_outside_the_workspace(tmp_path: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    assert "escapes the workspace" in error_text(write_file, workspace, "../evil.txt", "x")
    assert not (tmp_path / "evil.txt").exists()


# edit_file


def test_edit_replaces_a_unique_match(tmp_path: Path):
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    result = edit_file(tmp_path, "app.py", "return 1", "return 2")
    assert (tmp_path / "app.py").read_text() == "def f():\n    return 2\n"
    assert result == "Replaced 1 occurrence in app.py."


def test_edit_reports_text_not_found_with_a_hint(tmp_path: Path):
    (tmp_path / "app.py").write_text("x = 1\n")
    message = error_text(edit_file, tmp_path, "app.py", "y = 1", "y = 2")
    assert "old_text was not found in app.py" in message
    assert "read_file" in message
    assert (tmp_path / "app.py").read_text() == "x = 1\n"


def test_edit_not_found_points_out_copied_line_number_prefixes(tmp_path: Path):
    (tmp_path / "app.py").write_text("x = 1\n")
    message = error_text(edit_file, tmp_path, "app.py", "     1\tx = 1", "x = 2")
    assert "line-number prefixes" in message


def test_edit_refuses_ambiguous_match_and_says_how_many(tmp_path: Path):
    (tmp_path / "app.py").write_text("x = 1\nx = 1\ny = 0\nx = 1\n")
    message = error_text(edit_file, tmp_path, "app.py", "x = 1", "x = 2")
    assert "found 3 times" in message
    assert "lines 1, 2, 4" in message
    assert "replace_all" in message
    assert (tmp_path / "app.py").read_text() == "x = 1\nx = 1\ny = 0\nx = 1\n"


def test_edit_replace_all_changes_every_match(tmp_path: Path):
    (tmp_path / "app.py").write_text("x = 1\nx = 1\ny = 0\nx = 1\n")
    result = edit_file(tmp_path, "app.py", "x = 1", "x = 2", replace_all=True)
    assert (tmp_path / "app.py").read_text() == "x = 2\nx = 2\ny = 0\nx = 2\n"
    assert result == "Replaced 3 occurrences in app.py."


def test_edit_keeps_crlf_line_endings(tmp_path: Path):
    (tmp_path / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    edit_file(tmp_path, "win.txt", "one\ntwo\n", "uno\ndos\n")
    assert (tmp_path / "win.txt").read_bytes() == b"uno\r\ndos\r\nthree\r\n"


def test_edit_keeps_the_utf8_byte_order_mark(tmp_path: Path):
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfname = 'caf\xc3\xa9'\n")
    edit_file(tmp_path, "bom.txt", "café", "thé")
    assert (tmp_path / "bom.txt").read_bytes() == b"\xef\xbb\xbfname = 'th\xc3\xa9'\n"


def test_edit_keeps_bytes_of_a_latin1_file(tmp_path: Path):
    (tmp_path / "legacy.txt").write_bytes(b"caf\xe9\nold value\n\xff\xfe end\n")
    edit_file(tmp_path, "legacy.txt", "old value", "new été")
    assert (tmp_path / "legacy.txt").read_bytes() == b"caf\xe9\nnew \xe9t\xe9\n\xff\xfe end\n"


def test_edit_keeps_a_latin1_file_latin1_when_a_byte_pair_looks_like_utf8(tmp_path: Path):
    # "\xc2\xa9" (Â©) happens to be valid UTF-8, but the three other accented letters are not.
    (tmp_path / "legacy.txt").write_bytes(b"\xc2\xa9 \xe0 la cr\xe8me br\xfbl\xe9e\n")
    edit_file(tmp_path, "legacy.txt", "crème", "crêpe")
    assert (tmp_path / "legacy.txt").read_bytes() == b"\xc2\xa9 \xe0 la cr\xeape br\xfbl\xe9e\n"


def test_edit_of_utf8_with_a_stray_byte_keeps_the_byte_and_writes_utf8(tmp_path: Path):
    (tmp_path / "mixed.txt").write_bytes(b"caf\xc3\xa9 na\xc3\xafve\n\xff\n")
    edit_file(tmp_path, "mixed.txt", "naïve", "café")
    assert (tmp_path / "mixed.txt").read_bytes() == b"caf\xc3\xa9 caf\xc3\xa9\n\xff\n"


def test_edit_next_to_a_stray_byte_in_utf8_keeps_the_byte(tmp_path: Path):
    (tmp_path / "mixed.txt").write_bytes(b"caf\xc3\xa9 \xe9t\xc3\xa9\nend\n")
    edit_file(tmp_path, "mixed.txt", "té\nend", "té\nfin")
    assert (tmp_path / "mixed.txt").read_bytes() == b"caf\xc3\xa9 \xe9t\xc3\xa9\nfin\n"


@pytest.mark.parametrize("codec", UTF16_BOMS)
def test_edit_keeps_utf16_its_bom_and_crlf(tmp_path: Path, codec: str):
    bom = UTF16_BOMS[codec]
    (tmp_path / "win.txt").write_bytes(bom + "one\r\ntwo\r\nthree\r\n".encode(codec))
    edit_file(tmp_path, "win.txt", "one\ntwo\n", "uno\ndós\n")
    assert (tmp_path / "win.txt").read_bytes() == bom + "uno\r\ndós\r\nthree\r\n".encode(codec)


def test_edit_refuses_characters_a_latin1_file_cannot_hold(tmp_path: Path):
    (tmp_path / "legacy.txt").write_bytes(b"caf\xe9\nold\n")
    message = error_text(edit_file, tmp_path, "legacy.txt", "old", "new →")
    assert "not UTF-8" in message
    assert (tmp_path / "legacy.txt").read_bytes() == b"caf\xe9\nold\n"


def test_edit_keeps_the_permission_bits(tmp_path: Path):
    script = tmp_path / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    edit_file(tmp_path, "run.sh", "old", "new")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


def test_edit_rejects_empty_old_text(tmp_path: Path):
    (tmp_path / "a.txt").write_text("x\n")
    assert "old_text is empty" in error_text(edit_file, tmp_path, "a.txt", "", "y")


def test_edit_rejects_identical_old_and_new_text(tmp_path: Path):
    (tmp_path / "a.txt").write_text("x\n")
    assert "identical" in error_text(edit_file, tmp_path, "a.txt", "x", "x")


def test_edit_of_a_missing_file_suggests_write_file(tmp_path: Path):
    message = error_text(edit_file, tmp_path, "new.py", "a", "b")
    assert "file not found: new.py" in message
    assert "write_file" in message
