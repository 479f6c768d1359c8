"""IREE as an independent executor of the TOSA models: the same vectors pass as on the TOSA
reference model, a warm cache compiles nothing, and drawn graphs run bit-exact or are
refused by name."""

import os

from hypothesis import HealthCheck, assume, given, settings

from waiexport.conformance.generate import CORPUS
from waiexport.conformance.validate import files_under, validate
from waiexport.probes import probe_inputs
from waiexport.targets.engines.iree import IreeCpuEngine
from waiexport.targets.engines.tosa_ref import TosaRefEngine
from waiexport.targets.errors import EngineFailure

from _helpers import exact_or_refused, examples, in_npu_acc32, needs
from _strategies import requantisation

needs("iree.runtime", "iree")

#: Examples per property here: each compile takes about a second. The long run is
#: WAIEXPORT_IREE_EXAMPLES=300 python -m pytest tests/targets/test_iree.py (CONTRIBUTING.md).
EXAMPLES = int(os.environ.get("WAIEXPORT_IREE_EXAMPLES", "8"))


def test_iree_passes_the_vectors_tosa_ref_passes_and_a_warm_cache_compiles_nothing(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    files = files_under([CORPUS])
    ref = {r.vid: r.status for r in validate(TosaRefEngine(), files)}
    cold = IreeCpuEngine()
    got = {r.vid: r.status for r in validate(cold, files)}
    assert got == ref and "fail" not in got.values()
    assert cold.compiled >= sum(s == "pass" for s in ref.values()) // 2
    warm = IreeCpuEngine()
    assert {r.vid: r.status for r in validate(warm, files)} == ref
    assert warm.compiled == 0


@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))
@given(requantisation())
def test_requantisations_run_exactly_on_iree_or_are_refused(drawn):
    g, decodes = drawn
    assume(in_npu_acc32(g))
    exact_or_refused(g, decodes + probe_inputs(g), IreeCpuEngine)


def test_a_compile_error_is_a_failure_with_iree_s_message(monkeypatch, tmp_path):
    import iree.compiler as ic

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def broken(*args, **kwargs):
        raise RuntimeError("error: a compiler that fails")

    monkeypatch.setattr(ic, "compile_file", broken)
    results = validate(IreeCpuEngine(), files_under([CORPUS / "vectors" / "relu.jsonl"]))
    assert (
        results[0].status == "fail"
        and "IREE compiler: error: a compiler that fails" in results[0].reason
    )
    assert issubclass(EngineFailure, Exception)


def test_outputs_stay_what_iree_wrote_after_later_allocations():
    # a view of IREE's output outlived its buffer: in this process, arrays allocated after a
    # decode overwrote its outputs (386 of 5,600 values wrong here; a differential fuzz run
    # found it as wrong values on an identity rescale)
    import numpy as np
    from waiexport import write
    from waiexport import params as P
    from waiexport.builder import GraphBuilder, rq
    from waiexport.reference import decode

    b = GraphBuilder()
    b.output(b.op("rescale", b.input(1, -3, 3), P.Rescale(rq(shift=0, round="half_up"))))
    g = b.build()
    loaded = IreeCpuEngine().load(write(g))
    wrong = 0
    for n in range(40):
        for inputs, scalars in probe_inputs(g):
            got = loaded.decode(inputs, scalars)
            junk = [np.full(1000, n) for _ in range(50)]
            want = decode(g, inputs, scalars)
            wrong += sum(int((a != b).sum()) for a, b in zip(want, got))
            del junk
    assert wrong == 0
