"""Work, counted as calls, not timed: an export reads its WHG1 once and makes at most two
bounds passes; a rewrite's trials re-derive only what they reach, so its rule evaluations
grow with the graph; a trial that changes an interval re-derives what lies downstream, and
the bounds kept that way are the ones a fresh pass gives."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiexport import read, write
from waiexport.bounds import certify_graph
from waiexport.bounds.live import LiveBounds
from waiexport.builder import GraphBuilder, conv, rq
from waiexport.certificate import Member, certify
from waiexport.descriptions import target
from waiexport.rewrites.manager import rewrite_for
from waiexport.targets.exporter import export
from waiexport.work import CALLS

from _helpers import ROOT, examples, with_extra
from _strategies import case


def counted(fn):
    """``fn()``'s result and the work it did, by kind."""
    before = dict(CALLS)
    out = fn()
    return out, {k: CALLS[k] - before.get(k, 0) for k in ("read", "pass", "rule")}


def _hs_y() -> bytes:
    from waiexport.capabilities.jpegai import lower_jpegai

    return write(lower_jpegai(ROOT / "examples" / "jpegai")["hs_y"])


@pytest.mark.parametrize(
    "graph, name",
    [
        ("tiny_synth", "ort-cpu"),
        ("hs_y", "npu-int8"),
        ("hs_y", "ort-cpu-acc64"),
        pytest.param("tiny_synth", "tosa", marks=with_extra("tosa_reference_model", "tosa")),
    ],
)
def test_an_export_reads_once_and_makes_at_most_two_bounds_passes(graph, name):
    data = (
        (ROOT / "examples" / "tiny_synth.whg1").read_bytes() if graph == "tiny_synth" else _hs_y()
    )
    exp, work = counted(lambda: export(data, target(name)))
    assert work["read"] <= 1 and work["pass"] <= 2, work


def chain(n: int, clamp: bool = True):
    """``n`` 1×1 convolutions in a row, each with a floor rq that npu-int8 rewrites to
    half_up and a clamp to ``[-100, 100]``: a trial per node that leaves its output interval
    as it was (floor and half_up's rules give other intervals of the same values, §8.3, and
    the clamp makes both ``[-100, 100]``)."""
    b = GraphBuilder()
    t = b.input(2, -100, 100, max_h=4, max_w=4)
    for _ in range(n):
        t = b.op(
            "conv",
            t,
            conv(np.array([[[[1]], [[1]]], [[[1]], [[-1]]]]), rq=rq(shift=1, bias=[1, 2])),
            **(dict(policy="clamp", lo=-100, hi=100) if clamp else {}),
        )
    b.output(t)
    return b.build()


def test_rewrite_evaluations_grow_with_the_graph_not_its_square():
    npu = target("npu-int8")
    counts = {}
    for n in (50, 500):
        g = chain(n)
        member = Member.of("g", write(g), g)
        outcome, work = counted(lambda: rewrite_for(member, npu))
        assert sum(c.applied for c in outcome.changes) == n
        assert work["pass"] == 0
        counts[n] = work["rule"]
    assert counts[500] <= 20 * counts[50], counts


def test_a_change_that_moves_an_interval_re_derives_what_lies_downstream():
    g = chain(30, clamp=False).copy()
    live = LiveBounds(g, certify_graph(g))
    first = g.ops[0]
    before = live.evaluations
    with g.journal() as change:  # weights ten times larger: every interval after it grows
        g.set_params(
            first.uid,
            conv(np.array([[[[10]], [[10]]], [[[10]], [[-10]]]]), rq=rq(shift=1, bias=[1, 2])),
        )
    live.rederive(change.touched)
    assert live.evaluations - before == 30
    fresh = certify_graph(g)
    assert [live.nodes[op.uid].outs for op in g.ops] == [nb.outs for nb in fresh.nodes]
    change.undo()
    assert g == chain(30, clamp=False)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    data=st.data(),
    name=st.sampled_from(["conv", "conv_transpose", "rescale", "mul", "chscale"]),
    tgt=st.sampled_from(["npu-int8", "tosa", "ort-cpu"]),
)
def test_the_kept_bounds_are_a_fresh_pass_s(data, name, tgt):
    g, _, _ = data.draw(case(name))
    outcome = rewrite_for(g, target(tgt))
    fresh = read(outcome.data)
    assert fresh == outcome.graph
    assert outcome.after == certify([Member.of("graph", outcome.data, fresh)])
