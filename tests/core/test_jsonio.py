"""Canonical JSON (§8.5) and the §14.1 tensor and decode forms."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from waiexport.jsonio import (
    MAX_DEPTH,
    BadInput,
    decimals,
    dumps,
    loads,
    parse_decode,
    parse_int,
    parse_tensor,
    tensor_json,
)

from _helpers import examples


def test_canonical_json_rules():
    assert (
        dumps({"b": 1, "a": [0, -5, None, True, False], "B": "x"})
        == '{"B":"x","a":["0","-5",null,true,false],"b":"1"}'
    )
    assert dumps(np.int64(-(2**63))) == '"-9223372036854775808"'
    assert dumps(2**200) == f'"{2**200}"'
    assert dumps('say "hi" \\ there') == '"say \\"hi\\" \\\\ there"'


def test_canonical_json_refuses_what_it_cannot_write():
    with pytest.raises(ValueError):
        dumps("tab\there")
    with pytest.raises(TypeError):
        dumps(1.5)


@pytest.mark.parametrize("value, want", [("0", 0), ("-17", -17), (12, 12), (str(2**70), 2**70)])
def test_parse_int(value, want):
    assert parse_int(value, "x") == want


@pytest.mark.parametrize("value", ["-0", "007", "1e3", " 1", "", 1.0, None, False, [1]])
def test_parse_int_refuses(value):
    with pytest.raises(BadInput):
        parse_int(value, "x")


def test_tensor_round_trip():
    a = np.arange(6).reshape(1, 2, 3) - 3
    t = tensor_json(a)
    inputs, scalars = parse_decode({"inputs": [t], "scalars": ["4"]}, 1, 1, "d")
    assert inputs[0].tolist() == a.tolist() and scalars == [4]
    assert dumps(t) == '{"data":["-3","-2","-1","0","1","2"],"shape":["1","2","3"]}'


def test_reports_escape_what_certificates_refuse():
    import json

    text = dumps({"why": "x → y 𝄞"}, strict=False)
    assert text == '{"why":"x \\u2192 y \\ud834\\udd1e"}'
    assert json.loads(text) == {"why": "x → y 𝄞"}


@pytest.mark.parametrize("bad", [True, 1.0, None, "1e3", [1]])
def test_a_tensor_value_that_is_not_an_integer_is_named_by_its_index(bad):
    with pytest.raises(BadInput, match=r"t data\[2\]"):
        parse_tensor({"data": [1, -2, bad, 4], "shape": [1, 2, 2]}, "t")


def test_a_tensor_takes_numbers_and_decimal_strings_alike():
    a = parse_tensor({"data": [1, str(2**70), -3, 0], "shape": [1, 2, 2]}, "t")
    assert a.dtype == object and a.tolist() == [[[1, 2**70], [-3, 0]]]
    assert parse_tensor({"data": [5, 6], "shape": [2, 1, 1]}, "t").tolist() == [[[5]], [[6]]]


@pytest.mark.parametrize("bad", ["-0", "07", "1,2", " 3", "4_0", "9" * 5000, "", "+1"])
def test_a_decimal_string_that_is_not_one_is_named_by_its_index(bad):
    for data in (["1", bad, "2", "3"], [1, bad, "2", 3]):  # strings alone, and among numbers
        with pytest.raises(BadInput, match=r"t data\[1\]"):
            parse_tensor({"data": data, "shape": [1, 2, 2]}, "t")


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(-(2**70), 2**70).map(str),
            st.sampled_from(["-0", "07", "1,2", " 3", "+1", "", "x", "1.0"]),
            st.integers(-5, 5),
            st.booleans(),
        ),
        max_size=8,
    )
)
def test_decimals_in_one_pass_are_the_values_parsed_one_by_one(values):
    # the one-pass form (tensors' data, stage vectors) against parse_int, value by value
    try:
        want = [parse_int(v, "x") for v in values]
        ok = all(type(v) is str for v in values)
    except BadInput:
        ok = False
    got = decimals(values)
    assert got == (want if ok and values else None)


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


_TEXT = st.text(alphabet='ab[]{}"\\,: ', max_size=6)


@settings(max_examples=examples(200), deadline=None)
@given(
    inner=st.recursive(
        st.one_of(_TEXT, st.integers(-9, 9)),
        lambda kids: st.one_of(
            st.lists(kids, max_size=3), st.dictionaries(_TEXT, kids, max_size=3)
        ),
        max_leaves=8,
    ),
    wraps=st.integers(0, 40),
)
def test_loads_refuses_exactly_what_nests_deeper_than_its_limit(inner, wraps):
    # brackets inside strings (escaped quotes and backslashes among them) are not nesting
    value = inner
    for _ in range(wraps):
        value = [value]
    text = json.dumps(value)
    if _depth(value) > MAX_DEPTH:
        with pytest.raises(ValueError, match="nested deeper"):
            loads(text)
    else:
        assert loads(text) == value
