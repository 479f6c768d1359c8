"""The random-graph generator (:mod:`waiexport.conformance.random_graphs`): what its chains
cover, that a seed gives the same graphs, and that each graph it returns meets its profile."""

import collections

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from waiexport import write
from waiexport.certificate import Verdict
from waiexport.conformance.random_graphs import PARAMS, Drawn, Seeded, graph, sequence
from waiexport.load import read_member
from waiexport.optable import OPS
from waiexport.reference import Decoder
from waiexport.refusal import Refusal

from _helpers import examples


def _drawn(profile: str, n: int = 400) -> list:
    return [g for g in (graph(Seeded(s), profile) for s in range(n)) if g is not None]


def test_the_generator_draws_every_graph_operator():
    assert sorted(PARAMS) == sorted(op.name for op in OPS)


def test_chains_cover_every_operator_their_profile_admits_and_carry_state():
    # acc32: the 25 operators of wai-ops/1-i32 (§7.3); acc64: all 30
    for profile, admitted in (
        ("acc32", {o.name for o in OPS if o.i32 and o.name in PARAMS}),
        ("acc64", set(PARAMS)),
    ):
        graphs = _drawn(profile)
        seen = collections.Counter(op.name for g in graphs for op in g.ops)
        assert set(seen) == admitted, (profile, admitted ^ set(seen))
        assert len(graphs) > 200, profile
        assert sum(any(i.kind == "state" for i in g.inputs) for g in graphs) >= 5
        assert any(len(g.ops) >= 4 for g in graphs)
        policies = {g.tensor(t).policy for g in graphs for op in g.ops for t in op.outputs}
        assert policies == (
            {"derived", "clamp"} if profile == "acc32" else {"derived", "clamp", "check"}
        )


def test_clamps_and_policies_reach_the_int32_ends_and_pass_2_to_the_24():
    bounds = {
        v
        for g in _drawn("acc32")
        for op in g.ops
        for t in op.outputs
        for v in (g.tensor(t).lo, g.tensor(t).hi)
    }
    assert {-(2**31), 2**31 - 1, 2**24 + 1, 2**24 + 3} <= bounds


def test_a_seed_draws_the_same_graph():
    first = [graph(Seeded(s)) for s in range(30)]
    again = [graph(Seeded(s)) for s in range(30)]
    assert [g and write(g) for g in first] == [g and write(g) for g in again]
    assert len({write(g) for g in first if g is not None}) > 10


@settings(max_examples=examples(50), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), profile=st.sampled_from(["acc32", "acc64"]))
def test_each_drawn_graph_meets_its_profile_and_its_sequence_runs(data, profile):
    g = graph(Drawn(data.draw), profile)
    if g is None:
        return
    assert Verdict.over([read_member(write(g))]).meets(profile)
    steps = sequence(g)
    data_inputs = sum(i.kind == "data" for i in g.inputs)
    assert steps and all(len(inputs) == data_inputs for inputs, _ in steps)
    decoder = Decoder(g)
    for inputs, scalars in steps:
        try:
            decoder.step(inputs, scalars)
        except Refusal:
            pass
