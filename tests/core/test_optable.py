"""The operator table (§5) is data every part reads: pin it against the spec's table."""

from waiexport.optable import BY_CODE, BY_NAME, OPS, info
from waiexport.layouts import LAYOUTS
from waiexport.plan import SHAPES

# §5's table, transcribed independently: code, name, in, out, i32 column, npu column.
SPEC_TABLE = """
01 conv 1 1 yes yes
02 rescale 1 1 yes yes
03 chscale 1 1 yes flagged
04 lut16 1 1 yes flagged
05 add 2 1 yes yes
06 concat 2+ 1 yes yes
07 chunk_add 1 1 yes yes
08 split 1 1 yes yes
09 pixel_shuffle 1 1 yes yes
0A pixel_unshuffle 1 1 yes yes
0B clamp 1 1 yes yes
0C relu 1 1 yes yes
0D leaky 1 1 yes yes
0E pad_rep 1 1 yes yes
0F crop_to 2 1 yes yes
10 mul 2 1 yes yes
11 conv_transpose 1 1 yes yes
12 igdn 1 1 yes no
13 abs 1 1 yes yes
14 crop 1 1 yes yes
15 subpos_split 1 4 yes yes
16 subpos_merge 4 1 yes yes
17 fill 1 1 yes yes
18 layernorm_c 1 1 no no
19 l2norm 1 1 no no
1A softmax 1 1 no no
1B sigmoid 1 1 no no
1C elu 1 1 no no
1D gram 2 1 yes no
1E apply 2 1 yes no
"""


def test_table_matches_spec():
    rows = [line.split() for line in SPEC_TABLE.strip().splitlines()]
    assert len(OPS) == len(rows) == 30
    for (code, name, n_in, n_out, i32, npu), op in zip(rows, OPS):
        assert op.code == int(code, 16) and op.name == name
        assert op.min_in == int(n_in.rstrip("+")) and op.n_out == int(n_out)
        assert op.max_in == (255 if n_in.endswith("+") else int(n_in))
        assert op.i32 == (i32 == "yes") and op.npu == npu
    assert BY_CODE[0x11] is info("conv_transpose") is BY_NAME["conv_transpose"]


def test_arity():
    assert info("concat").arity_ok(2, 1) and info("concat").arity_ok(255, 1)
    assert not info("concat").arity_ok(1, 1)
    assert info("subpos_split").arity_ok(1, 4) and not info("subpos_split").arity_ok(1, 1)
    assert info("subpos_merge").arity_ok(4, 1) and not info("subpos_merge").arity_ok(3, 1)


def test_i32_subset_is_the_25_operators_of_section_7_3():
    assert sorted(op.name for op in OPS if not op.i32) == [
        "elu",
        "l2norm",
        "layernorm_c",
        "sigmoid",
        "softmax",
    ]


def test_every_part_covers_the_table():
    """Everything about an operator is findable from its name (STYLE.md): the parameter
    layout, the shape rule, both reference implementations, the bounds rule, the vector
    cases, and the ONNX lowering."""
    from waiexport.bounds import RULES
    from waiexport.conformance.cases import OPERATORS
    from waiexport.reference import REFERENCE
    from waiexport.reference.literal import LITERAL
    from waiexport.targets.onnx.lower import LOWER

    names = set(BY_NAME)
    for table in (LAYOUTS, SHAPES, REFERENCE, LITERAL, RULES, OPERATORS):
        assert set(table) == names
    assert set(LOWER) == names
