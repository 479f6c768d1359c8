"""Loading a graph with every check of §10.5: steps 1–7 (:func:`waiexport.whg1.read`), then
step 8, the bounds pass and the declared profile and subset against the verdict (§8.6)."""

from __future__ import annotations

import gc
import hashlib
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import replace

from .certificate import Member, Verdict
from .refusal import Refusal
from .whg1 import read

__all__ = ["load", "admit", "read_member", "remembered", "SUBSETS"]


@contextmanager
def _no_collection():
    """Python's cycle collector paused while a graph's many small objects are built: its
    full passes grow with the heap, which made loading superlinear (measured,
    ``benchmarks/load.py``); nothing built here is a cycle that needs collecting early."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


SUBSETS = ("full", "npu")


def load(
    data: bytes, *, profile: str = "acc64", subset: str = "full", name: str = "graph"
) -> Member:
    """Load a WHG1 file against ``profile`` (``acc32`` or ``acc64``) and ``subset``.

    Returns
    -------
    Member
        The graph with its bounds, ready to certify.

    Raises
    ------
    Refusal
        Steps 1–7's codes; step 8's ``model_mismatch`` for a ``lut16`` whose input may leave
        the table, an empty ``check`` interval, or a verdict that does not meet ``profile``,
        or, with ``subset="npu"``, a graph outside ``wai-ops/1-npu``.
    """
    member = read_member(data, name)
    admit(member, profile=profile, subset=subset)
    return member


_MEMBERS: OrderedDict = OrderedDict()
_HELD = 0  # the bytes of the files _MEMBERS holds
#: At most this many members, of files of up to 4 MiB each, 32 MiB in all (a member of a
#: small corpus graph holds about 12× its file in Python objects, so the count bounds those).
_KEEP, _KEEP_BYTES, _KEEP_TOTAL = 1024, 4 << 20, 32 << 20


def read_member(data: bytes, name: str = "graph") -> Member:
    """Load steps 1–7 and the bounds pass of step 8 (``Refusal`` at the first that fails),
    remembered by the file's digest for the last files (:data:`_KEEP`), so a graph that
    several stages load (validate's subset check, then each engine's export) is read and
    bounded once. The member is shared: nothing here or above changes a loaded graph (the
    rewrites work on a copy)."""
    global _HELD
    key = hashlib.sha256(data).digest()
    member = _MEMBERS.get(key)
    if member is None:
        with _no_collection():
            member = Member.of(name, bytes(data), read(data))
        if len(data) <= _KEEP_BYTES:
            _MEMBERS[key] = member
            _HELD += len(data)
            while len(_MEMBERS) > _KEEP or _HELD > _KEEP_TOTAL:
                _HELD -= len(_MEMBERS.popitem(last=False)[1].data)
    else:
        _MEMBERS.move_to_end(key)
    return member if member.name == name else replace(member, name=name)


def remembered(data: bytes) -> Member | None:
    """The member :func:`read_member` made of ``data`` in this process, while it is
    remembered; ``None`` otherwise (nothing is read)."""
    return _MEMBERS.get(hashlib.sha256(data).digest())


def admit(member: Member, *, profile: str, subset: str) -> Member:
    """Load step 8's last check on a graph already read and bounded: its verdict against
    ``profile`` and ``subset`` (§8.6), so one loaded member can be judged against several
    targets without being read again. Raises ``Refusal`` (``model_mismatch``)."""
    verdict = Verdict.over([member])
    problems, where = [], "graph"
    failure = verdict.failures[profile]
    if failure is not None:
        where = failure.place
        problems.append(
            f"it does not meet {profile}: {failure.key}"
            + (f" needs {failure.bits} bits" if failure.bits is not None else "")
        )
    reasons = [r for r in verdict.npu_reasons if r != "acc32" or profile != "acc32"]
    if subset == "npu" and reasons:
        problems.append("it is outside wai-ops/1-npu: " + ", ".join(reasons))
    if problems:
        raise Refusal("model_mismatch", where, "; ".join(problems))
    return member
