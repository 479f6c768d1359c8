"""The builder's helpers: the smallest byte width that holds a parameter's values (§13.0)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waiexport.builder import smallest_width

from _helpers import examples


def _literal(values, allowed) -> int | None:
    """The first width of ``allowed`` whose signed range holds every value, by Python ints."""
    ints = [int(v) for v in np.asarray(values, dtype=object).reshape(-1)] or [0]
    return next(
        (w for w in allowed if -(1 << (8 * w - 1)) <= min(ints) and max(ints) < 1 << (8 * w - 1)),
        None,
    )


@settings(max_examples=examples(200), deadline=None)
@given(
    dtype=st.sampled_from(
        [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, object]
    ),
    data=st.data(),
    allowed=st.sampled_from([(1, 2, 4, 8), (4, 8)]),
)
def test_the_width_of_an_array_of_any_integer_type_is_the_literal_one(dtype, data, allowed):
    info = np.iinfo(dtype) if dtype is not object else np.iinfo(np.int64)
    lo, hi = int(info.min), int(info.max) + (1 << 64 if dtype is object else 0)
    values = np.array(data.draw(st.lists(st.integers(lo, hi), max_size=6)), dtype=dtype)
    want = _literal(values, allowed)
    if want is None:
        with pytest.raises(ValueError, match="fit none of the widths"):
            smallest_width(values, allowed)
    else:
        assert smallest_width(values, allowed) == want
