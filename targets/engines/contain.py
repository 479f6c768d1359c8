"""A worker's processes in a memory cgroup of their own, where the machine lets this process
make one (root, or a delegated cgroup): every process the runtime starts is in it whatever
session or process tree it moves to, and its memory counts what no process's resident set
holds (shared memory, memfds written and not mapped). cgroup v1's ``memory`` controller or
cgroup v2 with ``memory`` delegated; elsewhere :func:`new` gives ``None`` and the keeper's
view of ``/proc`` stands alone."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from .keeper import kill_all

__all__ = ["new", "memory", "holds", "end"]

PREFIX = "waiexport-"


def _mounts() -> dict:
    """The memory hierarchy's mount: ``{"v1": folder}`` or ``{"v2": folder}`` or neither."""
    found: dict = {}
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                _, where, kind, options = line.split()[:4]
                if kind == "cgroup" and "memory" in options.split(","):
                    found["v1"] = where
                elif kind == "cgroup2":
                    found.setdefault("v2", where)
    except (OSError, ValueError):
        pass
    return found


def _own(version: str, mount: str) -> Path | None:
    """This process's cgroup folder in the hierarchy ``version`` mounted at ``mount``."""
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if (version == "v1" and "memory" in controllers.split(",")) or (
                    version == "v2" and controllers == ""
                ):
                    return Path(mount) / path.lstrip("/")
    except (OSError, ValueError):
        pass
    return None


def _stale(base: Path) -> None:
    """Remove the empty cgroups this module made under ``base`` for processes that ended."""
    try:
        entries = list(base.glob(f"{PREFIX}*"))
    except OSError:
        return
    for e in entries:
        pid = e.name[len(PREFIX) :].split("-")[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            try:
                e.rmdir()
            except OSError:
                pass


def new() -> Path | None:
    """A new memory cgroup below this process's own, for a worker; ``None`` where none can
    be made or it would not count memory."""
    for version, mount in sorted(_mounts().items()):
        base = _own(version, mount)
        if base is None or not base.is_dir():
            continue
        _stale(base)
        try:
            made = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base))
        except OSError:
            continue
        if (made / "memory.stat").exists() and (made / "cgroup.procs").exists():
            return made
        try:
            made.rmdir()
        except OSError:
            pass
    return None


def memory(cgroup: Path) -> int:
    """The anonymous and shared memory (memfds, tmpfs) in bytes of every process in
    ``cgroup`` and its descendants; 0 where it cannot be read."""
    want = (
        {"total_rss", "total_shmem"}
        if (cgroup / "memory.use_hierarchy").exists()
        else {"anon", "shmem"}
    )
    total = 0
    try:
        with open(cgroup / "memory.stat") as f:
            for line in f:
                key, _, value = line.partition(" ")
                total += int(value) if key in want else 0
    except (OSError, ValueError):
        return 0
    return total


def holds(cgroup: Path, pid: int) -> bool:
    """Whether process ``pid`` is in ``cgroup``."""
    return pid in _members(cgroup)


def _members(cgroup: Path) -> list[int]:
    """The processes in ``cgroup``; none where it cannot be read."""
    try:
        with open(cgroup / "cgroup.procs") as f:
            return [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        return []


def end(cgroup: Path) -> None:
    """Kill every process in ``cgroup`` (again until none is left: one can start another
    between a look and a kill) and remove it."""
    kill_all(lambda: _members(cgroup), rounds=200, pause=0.005)
    for _ in range(50):
        try:
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # its last processes not yet reaped
            time.sleep(0.01)
