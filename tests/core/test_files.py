"""Folders written whole when other writers write the same folder at the same moment: the
last writer's folder stands, whole, and nothing is left aside."""

import os

import pytest

import waiexport.files as files


def _tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _writer_between(monkeypatch, dest, times: int) -> list:
    """Another writer that puts its whole folder at ``dest`` just before this writer's
    rename into place, ``times`` times: the moment the two writers' renames race."""
    real = os.replace
    others = []

    def replace(src, dst):
        if str(dst) == str(dest) and str(src).endswith(".part") and len(others) < times:
            other = dest.parent / f"other{len(others)}"
            other.mkdir()
            (other / "g.json").write_text(f"other {len(others)}")
            real(other, dest)
            others.append(other)
        return real(src, dst)
    monkeypatch.setattr(files.os, "replace", replace)
    return others


@pytest.mark.parametrize("times", [1, 3])
def test_a_folder_another_writer_puts_in_place_meanwhile_is_replaced_whole(
        tmp_path, monkeypatch, times):
    dest = tmp_path / "D"
    dest.mkdir()
    (dest / "g.json").write_text("earlier")
    others = _writer_between(monkeypatch, dest, times)
    with files.new_folder(dest) as work:
        (work / "g.json").write_text("mine")
        (work / "g.tosa").write_bytes(b"\x01")
    assert len(others) == times
    assert _tree(dest) == {"g.json": b"mine", "g.tosa": b"\x01"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D"], "nothing left aside"


def test_writers_that_never_stop_end_in_an_error_with_the_folder_whole(tmp_path,
                                                                       monkeypatch):
    dest = tmp_path / "D"
    _writer_between(monkeypatch, dest, files._RACES)
    with pytest.raises(OSError, match="other writers"):
        with files.new_folder(dest) as work:
            (work / "g.json").write_text("mine")
    assert _tree(dest) == {"g.json": f"other {files._RACES - 1}".encode()}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D"]


def test_a_failed_rename_puts_the_earlier_folder_back(tmp_path, monkeypatch):
    dest = tmp_path / "D"
    dest.mkdir()
    (dest / "g.json").write_text("earlier")
    real = os.replace

    def replace(src, dst):
        if str(src).endswith(".part"):
            raise PermissionError(13, "Permission denied")
        return real(src, dst)
    monkeypatch.setattr(files.os, "replace", replace)
    with pytest.raises(PermissionError):
        with files.new_folder(dest) as work:
            (work / "g.json").write_text("mine")
    assert _tree(dest) == {"g.json": b"earlier"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D"]


@pytest.mark.parametrize("made", [False, True])
def test_a_new_folder_of_sets_appears_whole_or_not_at_all(tmp_path, monkeypatch, made):
    # a writer stopped between two sets' renames (examples make, SIGKILL in a CI run) left
    # the first set and not the others where the folder had been absent or empty
    dest = tmp_path / "sets"
    if made:
        dest.mkdir()
    real, renames = os.replace, []

    def replace(src, dst):
        if renames:
            raise KeyboardInterrupt     # stopped after one rename
        renames.append(dst)
        return real(src, dst)
    monkeypatch.setattr(files.os, "replace", replace)
    try:
        with files.into_folder(dest) as work:
            (work / "a.json").write_text("a")
            (work / "b").mkdir()
            (work / "b" / "c.json").write_text("c")
    except KeyboardInterrupt:
        pass
    got = _tree(dest) if dest.exists() else {}
    assert got in ({}, {"a.json": b"a", "b/c.json": b"c"}), got


def test_a_folder_under_absent_folders_is_made_with_them(tmp_path):
    # into_folder made its parents before it put an absent folder in place by one rename
    dest = tmp_path / "a" / "b"
    with files.into_folder(dest) as work:
        (work / "g.json").write_text("mine")
    assert _tree(dest) == {"g.json": b"mine"} and sorted(os.listdir(tmp_path / "a")) == ["b"]


def test_a_small_file_is_read_in_a_buffer_of_its_size_not_the_limit_s(tmp_path):
    import tracemalloc
    path = tmp_path / "small"
    path.write_bytes(b"12345")
    tracemalloc.start()
    try:
        assert files.read_bounded(path, 1 << 30) == b"12345"
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "grows"
    path.write_bytes(b"1234")
    real = os.fstat

    def stale(fd):     # the size read before the file grew
        st = real(fd)
        return os.stat_result((*st[:6], 4, *st[7:])) if fd > 2 else st
    path.write_bytes(b"1234567890")
    monkeypatch.setattr(files.os, "fstat", stale)
    with pytest.raises(files.TooLarge):
        files.read_bounded(path, 8)
    assert files.read_bounded(path, 10) == b"1234567890"
