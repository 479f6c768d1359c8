"""Canonical JSON (§8.5) and the §14.1 tensor and decode forms."""

import numpy as np
import pytest

from waiexport.jsonio import BadInput, dumps, parse_decode, parse_int, parse_tensor, tensor_json


def test_canonical_json_rules():
    assert dumps({"b": 1, "a": [0, -5, None, True, False], "B": "x"}) == \
        '{"B":"x","a":["0","-5",null,true,false],"b":"1"}'
    assert dumps(np.int64(-(2**63))) == '"-9223372036854775808"'
    assert dumps(2**200) == f'"{2**200}"'
    assert dumps('say "hi" \\ there') == '"say \\"hi\\" \\\\ there"'


def test_canonical_json_refuses_what_it_cannot_write():
    with pytest.raises(ValueError):
        dumps("tab\there")
    with pytest.raises(TypeError):
        dumps(1.5)


@pytest.mark.parametrize("value, want", [("0", 0), ("-17", -17), (12, 12),
                                         (str(2**70), 2**70)])
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
    for data in (["1", bad, "2", "3"], [1, bad, "2", 3]):   # strings alone, and among numbers
        with pytest.raises(BadInput, match=r"t data\[1\]"):
            parse_tensor({"data": data, "shape": [1, 2, 2]}, "t")
