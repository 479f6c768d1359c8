"""Folders written whole when other writers write the same folder at the same moment: the
last writer's folder stands, whole, and nothing is left aside."""

import os
from contextlib import nullcontext

import pytest

import waiexport.files as files

from _helpers import nested


def _tree(root):
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


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
    tmp_path, monkeypatch, times
):
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


def test_writers_that_never_stop_end_in_an_error_with_the_folder_whole(tmp_path, monkeypatch):
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


def _output(dest, command="make", **entries):
    with files.output_folder(dest, command) as work:
        for name, data in entries.items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(data)


def test_an_earlier_output_of_the_same_command_is_replaced_whole(tmp_path):
    dest = tmp_path / "out"
    _output(dest, **{"a.json": b"1", "models/m.onnx": b"2"})
    _output(dest, **{"b.json": b"3"})
    assert _tree(dest) == {"b.json": b"3", files.MARK: _tree(dest)[files.MARK]}


@pytest.mark.parametrize(
    "mine",
    [
        {"models/m.onnx": b"mine", "inputs/i.npy": b"mine"},  # a user's project
        {"manifest.json": b"{}"},  # named like ours, no mark
    ],
)
def test_a_folder_without_the_command_s_mark_is_not_replaced(tmp_path, mine):
    dest = tmp_path / "out"
    for name, data in mine.items():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / name).write_bytes(data)
    with pytest.raises(files.NotOurs, match="which no earlier output of 'make' holds"):
        _output(dest, **{"a.json": b"1"})
    assert _tree(dest) == mine
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def _add_results(dest):
    (dest / "outputs").mkdir()
    (dest / "outputs" / "r.npy").write_bytes(b"a board's result")


def _nest(dest):
    return nested(dest / "models")


def _link(dest):
    (dest / "a.json").unlink()
    (dest / "a.json").symlink_to("/etc/hostname")


def _other_command(dest):
    import json

    mark = json.loads((dest / files.MARK).read_text())
    (dest / files.MARK).write_text(json.dumps({**mark, "command": "other"}))


@pytest.mark.parametrize(
    "change, held",
    [(_add_results, "outputs"), (_nest, "models/d"), (_link, "a.json"), (_other_command, "a.json")],
)
def test_an_earlier_output_holding_what_it_did_not_write_is_not_replaced(tmp_path, change, held):
    dest = tmp_path / "out"
    _output(dest, **{"a.json": b"1", "models/m.onnx": b"2"})
    with change(dest) or nullcontext():
        before = sorted(os.listdir(dest)), sorted(os.listdir(dest / "models"))
        with pytest.raises(files.NotOurs, match=f"holds {held},"):
            _output(dest, **{"b.json": b"3"})
        assert (sorted(os.listdir(dest)), sorted(os.listdir(dest / "models"))) == before


def test_a_folder_that_changes_during_the_write_is_not_replaced(tmp_path):
    dest = tmp_path / "out"
    _output(dest, **{"a.json": b"1"})
    with pytest.raises(files.NotOurs):
        with files.output_folder(dest, "make") as work:
            (work / "b.json").write_bytes(b"2")
            (dest / "notes.txt").write_text("written meanwhile")
    assert (dest / "notes.txt").read_text() == "written meanwhile"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


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

    def stale(fd):  # the size read before the file grew
        st = real(fd)
        return os.stat_result((*st[:6], 4, *st[7:])) if fd > 2 else st

    path.write_bytes(b"1234567890")
    monkeypatch.setattr(files.os, "fstat", stale)
    with pytest.raises(files.TooLarge):
        files.read_bounded(path, 8)
    assert files.read_bounded(path, 10) == b"1234567890"


@pytest.mark.parametrize(
    "mask, file_mode, folder_mode",
    [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700), (0o002, 0o664, 0o775)],
)
def test_outputs_take_their_mode_from_the_umask(tmp_path, mask, file_mode, folder_mode):
    """Every output was 0600 or 0700 whatever the umask, and an existing 0644 file was
    replaced by a 0600 one."""
    old = os.umask(mask)
    try:
        (tmp_path / "kept.onnx").write_bytes(b"earlier")
        (tmp_path / "kept.onnx").chmod(0o644)
        for name in ("new.onnx", "kept.onnx"):
            files.write_atomic(tmp_path / name, b"model")
        _output(tmp_path / "out", **{"a.json": b"1"})
    finally:
        os.umask(old)
    for name in ("new.onnx", "kept.onnx", "out/a.json"):
        assert (tmp_path / name).stat().st_mode & 0o777 == file_mode, name
    assert (tmp_path / "out").stat().st_mode & 0o777 == folder_mode


def test_a_name_of_255_characters_is_written(tmp_path):
    """Output names of 241 to 255 characters failed with "File name too long": the temporary
    name beside them had the whole name in it."""
    name = "m" * 250 + ".onnx"
    files.write_atomic(tmp_path / name, b"model")
    _output(tmp_path / ("d" * 255), **{"a.json": b"1"})
    assert (tmp_path / name).read_bytes() == b"model" and (tmp_path / ("d" * 255)).is_dir()


def test_what_a_killed_writer_left_is_removed_by_the_next_and_no_more(tmp_path):
    """A writer killed outright left ``.NAME.xxxx.part`` folders that no later run removed;
    now the next writer of NAME removes those of processes that ended, and nothing else:
    not a running process's, not a file of another name."""
    import subprocess
    import sys

    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    left = {
        f".out.{ended}.abc.part": "folder",
        f".m.onnx.{ended}.def.part": "file",
        ".out.1.ghi.part": "folder",
        ".other.5.part": "file",
        "out.7.x.part": "file",
    }
    for name, kind in left.items():
        if kind == "folder":
            (tmp_path / name).mkdir()
            (tmp_path / name / "a.json").write_text("1")
        else:
            (tmp_path / name).write_text("1")
    _output(tmp_path / "out", **{"a.json": b"1"})
    files.write_atomic(tmp_path / "m.onnx", b"model")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".out.1.ghi.part", ".other.5.part", "out.7.x.part", "out", "m.onnx"]
    )


def test_a_relative_cache_home_is_ignored(tmp_path, monkeypatch):
    """A relative ``XDG_CACHE_HOME`` was used relative to the current folder."""
    from waiexport.caches import user_cache

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache("test-kind") == tmp_path / "home" / ".cache" / "waiexport" / "test-kind"
    assert not (tmp_path / "relative").exists()
