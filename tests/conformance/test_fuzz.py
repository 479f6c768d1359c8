"""Random mutations and truncations of valid files: each loads or raises ``Refusal``, never
another exception, and a hostile count allocates nothing in proportion to it (§3, §10.5)."""

import struct
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiexport import Refusal, read, write

from _helpers import SMALL, every_op_builder, examples, op_offsets, params_offset, state_graph

STATE = write(state_graph().graph())
EVERY = write(every_op_builder().build())
# The offsets worth aiming at: the header, the tables and every operator record and its
# first parameter bytes (the lut16 table is 128 KiB of data that any value fits).
_TARGETS = {
    name: sorted(
        {
            *range(0, min(len(d), 400)),
            *(o + k for o in op_offsets(d) for k in range(0, 80)),
            *(params_offset(d, i) + k for i in range(len(op_offsets(d))) for k in range(64)),
        }
    )
    for name, d in (("small", SMALL), ("state", STATE), ("every", EVERY))
}
_FILES = {"small": SMALL, "state": STATE, "every": EVERY}
HOSTILE = [
    0,
    1,
    2,
    3,
    4,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0xFFFF,
    0x10000,
    2**26,
    2**26 + 1,
    2**31 - 1,
    2**31,
    2**32 - 1,
]


def _loads_or_refuses(data: bytes) -> None:
    try:
        g = read(data)
    except Refusal as r:
        assert r.code in ("model_mismatch", "too_large"), str(r)
        assert "\n" not in str(r)
        return
    assert write(g) == data  # a file that loads is canonical for its graph


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(_FILES)))
    data = bytearray(_FILES[name])
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["byte", "u32", "truncate", "insert", "delete"]))
        off = draw(st.sampled_from(_TARGETS[name]))
        off = min(off, max(len(data) - 1, 0))
        if kind == "byte" and data:
            data[off] = draw(st.integers(0, 255))
        elif kind == "u32" and len(data) >= off + 4:
            struct.pack_into("<I", data, off, draw(st.sampled_from(HOSTILE)))
        elif kind == "truncate":
            del data[off:]
        elif kind == "insert":
            data[off:off] = draw(st.binary(min_size=1, max_size=8))
        else:
            del data[off : off + draw(st.integers(1, 8))]
    return bytes(data)


@settings(max_examples=examples(3000), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutations_load_or_refuse(data):
    _loads_or_refuses(data)


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_after_a_valid_header_refuse(tail):
    _loads_or_refuses(SMALL[:32] + tail)


def test_every_truncation_of_a_valid_file_refuses():
    for n in range(len(STATE)):
        try:
            read(STATE[:n])
        except Refusal:
            continue
        raise AssertionError(f"a file truncated to {n} bytes loaded")


def _peak(data: bytes) -> int:
    tracemalloc.start()
    try:
        read(data)
    except Refusal:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_hostile_counts_cost_nothing():
    # Each count at its largest value in an otherwise valid header, over a small file.
    for off, fmt, value in (
        (8, "I", 2**32 - 1),
        (12, "I", 2**32 - 1),
        (16, "H", 0xFFFF),
        (18, "H", 0xFFFF),
        (20, "H", 0xFFFF),
    ):
        bad = bytearray(SMALL)
        struct.pack_into("<" + fmt, bad, off, value)
        assert _peak(bytes(bad)) < 1 << 20
    # A conv whose cout makes its weight array 2^32 · cin · kh · kw elements.
    bad = bytearray(SMALL)
    struct.pack_into("<I", bad, params_offset(SMALL, 0), 2**32 - 1)
    assert _peak(bytes(bad)) < 1 << 20
