"""Exported models kept on disk (targets/stored.py): a kept model is the one a fresh export
builds, computes the same and says the same of itself; an entry that does not read back
whole, or was made for another target, another probe verdict or other code, is never used;
a declined export is declined again from its entry, a refusal is found again; nothing is
kept where the cache is off; the folder keeps under its limit; a warm main job builds no
model."""

import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import waiexport.caches as caches
import waiexport.targets.engines.base as engine_base
import waiexport.targets.stored as stored
from waiexport import Refusal, write
from waiexport import params as P
from waiexport.descriptions import target
from waiexport.targets.onnx.emit import subgraph_nodes
from waiexport.probes import probe_inputs
from waiexport.reference import decode
from waiexport.targets.engines import engine
from waiexport.builder import GraphBuilder, conv_transpose, rq
from waiexport.targets.errors import DoesNotFit, ExportError

from _helpers import SMALL, examples, in_npu_acc32, small_builder, with_extra
from _strategies import NARROW, case


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """The cache on, in a folder of this test's own; the folder."""
    monkeypatch.delenv("WAIEXPORT_MODEL_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(stored, "_WRITTEN", [0])
    return tmp_path / "waiexport" / "models"


@pytest.fixture
def exports(monkeypatch):
    """Every export an engine made from here on, by the file it exported."""
    made = []
    real = engine_base.export

    def counted(data, *args, **kw):
        made.append(data)
        return real(data, *args, **kw)

    monkeypatch.setattr(engine_base, "export", counted)
    return made


def entries(folder) -> list:
    return sorted(folder.glob("*.model"))


def outcomes(run, decodes) -> list:
    """Each decode's outputs, or its refusal's code."""
    out = []
    for inputs, scalars in decodes:
        try:
            out.append([o.tolist() for o in run(inputs, scalars)])
        except Refusal as r:
            out.append(r.code)
    return out


def parts(entry: bytes) -> tuple[int, int]:
    """Where an entry's rewritten graph and its model begin."""
    start = entry.index(b"\n", len(stored.MAGIC)) + 1
    return start, len(entry) - len(engine("ort-cpu").export(SMALL).built().data)


def test_a_kept_model_is_the_fresh_exports_and_no_export_is_made_for_it(kept, exports):
    fresh = engine("ort-cpu").export(SMALL)
    assert len(exports) == 1 and len(entries(kept)) == 1
    again = engine("ort-cpu").export(SMALL)
    assert len(exports) == 1 and isinstance(again, stored.Stored)
    assert again.built().data == fresh.built().data
    assert write(again.graph) == fresh.outcome.data
    assert again.metadata == fresh.metadata
    assert write(again.source) == write(fresh.source) == SMALL


def test_a_kept_export_says_its_rewrites_and_nodes_as_the_fresh_one(kept, exports):
    # the phase rewrite applies to a stride-2 conv_transpose (§9.3): its change is kept
    b = GraphBuilder()
    x = b.input(2, -128, 127, max_h=4, max_w=4)
    w = np.arange(32).reshape(2, 1, 4, 4) % 5 - 2
    b.output(b.op("conv_transpose", x, conv_transpose(w, stride=2, pad=1, rq=rq(shift=3))))
    data = write(b.build())
    fresh, again = (engine("ort-cpu").export(data) for _ in range(2))
    assert len(exports) == 1 and isinstance(again, stored.Stored) and fresh.rewrites
    assert again.rewrites == fresh.rewrites
    assert (
        again.format.nodes(again.built())
        == fresh.format.nodes(fresh.built())
        == sum(1 for _ in subgraph_nodes(fresh.prepared.graph.node))
    )


def _declined_at_build():
    """npu-int8 maps a ``pixel_shuffle`` only onto the conv that feeds it alone: one on an
    input is declined when its model is built."""
    b = GraphBuilder()
    b.output(b.op("pixel_shuffle", b.input(4, -9, 9, max_h=4, max_w=4), P.Factor(2)))
    return write(b.build())


def _does_not_fit():
    """npu-int8 rounds half up: a ``rescale`` rounding half to even does not fit it."""
    b = GraphBuilder()
    b.output(
        b.op(
            "rescale",
            b.input(2, -9, 9, max_h=4, max_w=4),
            P.Rescale(rq(shift=1, round="half_even")),
        )
    )
    return write(b.build())


@pytest.mark.parametrize("make", [_declined_at_build, _does_not_fit])
def test_a_declined_export_is_kept_as_its_error_and_declined_again(kept, exports, make):
    data = make()
    with pytest.raises(ExportError) as first:
        engine("npu-int8").load(data)
    assert len(exports) == 1 and len(entries(kept)) == 1
    with pytest.raises(ExportError) as again:
        engine("npu-int8").load(data)
    assert len(exports) == 1  # declined from the entry, no export made
    assert type(again.value) is type(first.value) and str(again.value) == str(first.value)
    (path,) = entries(kept)
    path.write_bytes(path.read_bytes()[:-1])  # an entry that does not read back whole
    with pytest.raises(type(first.value), match=re.escape(str(first.value))):
        engine("npu-int8").load(data)
    assert len(exports) == 2


@settings(
    max_examples=examples(4),
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(
    name=st.sampled_from(["conv", "conv_transpose", "rescale", "add", "pixel_shuffle"]),
    data=st.data(),
)
def test_a_kept_model_decodes_as_the_fresh_export_and_the_reference(kept, name, data):
    g, inputs, scalars = data.draw(case(name, NARROW))
    assume(in_npu_acc32(g))
    for name_ in ("ort-cpu", "npu-int8"):
        try:
            fresh = engine(name_).load(write(g))
        except DoesNotFit as e:  # kept as its error: declined again
            with pytest.raises(DoesNotFit, match=re.escape(str(e))):
                engine(name_).load(write(g))
            continue
        again = engine(name_).load(write(g))
        decodes = [(inputs, scalars), *probe_inputs(g)]
        assert (
            outcomes(fresh.decode, decodes)
            == outcomes(again.decode, decodes)
            == outcomes(lambda i, sc: decode(g, i, sc), decodes)
        )


def test_a_kept_model_is_located_as_the_fresh_export_is(kept):
    rng = np.random.default_rng(1)
    inputs, scalars = [rng.integers(-128, 128, (4, 8, 8))], [2]
    fresh = engine("ort-cpu").load(SMALL)
    again = engine("ort-cpu").load(SMALL)
    a, b = fresh.run_all(inputs, scalars), again.run_all(inputs, scalars)
    assert sorted(a) == sorted(b) and all((a[t] == b[t]).all() for t in a)
    for op in (0, 1):  # inside an operator's lowering, node by node
        a, b = fresh.inside(op, inputs, scalars), again.inside(op, inputs, scalars)
        assert [(n, t) for n, t, _ in a] == [(n, t) for n, t, _ in b] and a
        assert all(
            (x == y).all() for (_, _, p), (_, _, q) in zip(a, b) for (x, _), (y, _) in zip(p, q)
        )


@pytest.mark.parametrize(
    "spoil", ["truncated", "model byte", "graph byte", "header", "trailing", "empty"]
)
def test_an_entry_that_does_not_read_back_whole_is_made_again(kept, exports, spoil):
    engine("ort-cpu").export(SMALL)
    (path,) = entries(kept)
    good = path.read_bytes()
    graph, model = parts(good)

    def flipped(at):
        return good[:at] + bytes([good[at] ^ 1]) + good[at + 1 :]

    bad = {
        "truncated": good[:-10],
        "model byte": flipped(model + 7),
        "graph byte": flipped(graph + 7),
        "header": flipped(len(stored.MAGIC) + 3),
        "trailing": good + b"\0",
        "empty": b"",
    }[spoil]
    path.write_bytes(bad)
    again = engine("ort-cpu").export(SMALL)
    assert len(exports) == 2 and not isinstance(again, stored.Stored)
    assert path.read_bytes() == good


def test_another_target_verdict_or_code_is_not_served_the_entry(kept, exports, monkeypatch):
    ort, npu = target("ort-cpu"), target("npu-int8")

    from waiexport.targets.onnx.probes import SATURATION

    def kept_for(t, u8s8):
        chosen = {SATURATION: u8s8}
        return stored.exported(
            SMALL, t, chosen, lambda: engine_base.export(SMALL, t, chosen=chosen)
        )

    kept_for(ort, True)
    for t, u8s8 in ((npu, True), (ort, False)):
        assert not isinstance(kept_for(t, u8s8), stored.Stored)
    assert isinstance(kept_for(ort, True), stored.Stored)
    monkeypatch.setattr(caches, "_CODE", ["another install's code"])
    assert not isinstance(kept_for(ort, True), stored.Stored)
    assert len(exports) == 4 and len(entries(kept)) == 4


def test_a_refused_file_is_refused_again_and_nothing_is_kept(kept, exports):
    for _ in range(2):
        with pytest.raises(Refusal):
            engine("ort-cpu").load(SMALL[:-3])
    assert len(exports) == 2 and not entries(kept)


def test_nothing_is_kept_where_the_cache_is_off(kept, exports, monkeypatch):
    monkeypatch.setenv("WAIEXPORT_MODEL_CACHE", "off")
    for _ in range(2):
        engine("ort-cpu").export(SMALL)
    assert len(exports) == 2 and not kept.exists()


def test_the_folder_keeps_under_its_limit_the_least_recently_used_going_first(kept, monkeypatch):
    files = [write(small_builder(max_h=h, max_w=h).build()) for h in (5, 6, 7)]
    engine("ort-cpu").export(files[0])
    (first,) = entries(kept)
    monkeypatch.setattr(stored, "LIMIT", int(2.5 * first.stat().st_size))
    engine("ort-cpu").export(files[1])
    os.utime(first, (1, 1))
    engine("ort-cpu").export(files[0])  # used: the most recent again
    monkeypatch.setattr(stored, "_WRITTEN", [0])  # a new process's first write sweeps
    engine("ort-cpu").export(files[2])
    assert first.exists() and len(entries(kept)) == 2


def test_the_probes_models_are_kept_too(kept, monkeypatch):
    import waiexport.targets.engines.ort as ort
    from waiexport.targets.onnx.probes import Probe

    built = []
    real = Probe.parts
    monkeypatch.setattr(Probe, "parts", lambda self, *a: built.append(self.name) or real(self, *a))
    found = []
    for _ in range(2):
        monkeypatch.setattr(ort, "_PROBED", {})  # a new process's probes
        found.append(engine("ort-cpu").probe())
    assert found[0] == found[1] and len(built) == len(found[0])


WARM = """
import json, sys
import numpy as np
from waiexport.targets.engines import engine
loaded = engine("ort-cpu").load(open(sys.argv[1], "rb").read())
out = loaded.decode([np.arange(256).reshape(4, 8, 8) - 128], [2])
print(json.dumps({"onnx": "onnx" in sys.modules, "out": [o.tolist() for o in out],
                  "placement": loaded.placement()}))
"""


@with_extra("onnxruntime", "ort")
def test_a_load_of_a_kept_model_and_its_placement_import_no_onnx(kept, tmp_path):
    # onnx's import alone is 0.8 s on a fresh install (docs/formats.md); a warm load
    # needs none of it
    import json
    import subprocess
    import sys

    (tmp_path / "g.whg1").write_bytes(SMALL)
    env = {k: v for k, v in os.environ.items() if k != "WAIEXPORT_MODEL_CACHE"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    first, second = (
        json.loads(
            subprocess.run(
                [sys.executable, "-c", WARM, str(tmp_path / "g.whg1")],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            ).stdout
        )
        for _ in range(2)
    )
    assert first["onnx"] and not second["onnx"]
    assert (
        first["placement"]
        == second["placement"]
        == {"CPUExecutionProvider": len(engine("ort-cpu").export(SMALL).prepared.graph.node)}
    )
    assert (
        first["out"]
        == second["out"]
        == [
            o.tolist()
            for o in decode(small_builder().build(), [np.arange(256).reshape(4, 8, 8) - 128], [2])
        ]
    )


def test_a_write_that_fails_keeps_nothing_and_leaves_no_part(kept, exports, monkeypatch):
    real = os.replace

    def full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    again = engine("ort-cpu").export(SMALL)  # the export itself stands
    assert len(exports) == 1 and again.built().data
    monkeypatch.setattr(os, "replace", real)
    assert not list(kept.iterdir())


def test_the_main_job_run_again_builds_no_model(kept, monkeypatch):
    # its own exports and every engine load of validate, declined ones included, are kept:
    # a warm run builds no model (and so imports no onnx, 0.8 s on a fresh install); a file
    # refused at load is refused again, before any model
    from pathlib import Path
    from waiexport.cli.main_job import main_job
    from waiexport.targets.onnx.format import ONNX

    built = []
    real = ONNX.prepare
    monkeypatch.setattr(
        type(ONNX),
        "prepare",
        lambda self, exp, chosen: (
            built.append(exp.metadata["wai.whg1_sha256"]) or real(exp, chosen)
        ),
    )
    root = Path(__file__).resolve().parents[2] / "examples"
    said: list = [[], []]
    assert main_job(root, said[0].append) and built
    first = len(built)
    assert main_job(root, said[1].append)
    assert len(built) == first

    def lines(run):  # what each run says, less its timings
        return [line for line in run if not line.strip().startswith("(")]

    assert lines(said[0]) == lines(said[1])


MAIN_JOB = """
import json, sys
from pathlib import Path
from waiexport.cli.main_job import main_job
ok = main_job(Path(sys.argv[1]), lambda line: None)
print(json.dumps({"ok": bool(ok), "onnx": "onnx" in sys.modules}))
"""


@with_extra("onnxruntime", "ort")
def test_the_main_job_run_again_imports_no_onnx(tmp_path):
    # run again, in a process of its own, the main job reads its kept models and the count
    # of nodes it prints from the cache: onnx (0.8 s on a fresh install) stays unimported
    import json
    import subprocess
    import sys
    from pathlib import Path

    from waiexport.caches import user_cache

    env = {k: v for k, v in os.environ.items() if k != "WAIEXPORT_MODEL_CACHE"}
    env.update(XDG_CACHE_HOME=str(tmp_path), NUMBA_CACHE_DIR=str(user_cache("numba")))
    root = Path(__file__).resolve().parents[2] / "examples"
    first, second = (
        json.loads(
            subprocess.run(
                [sys.executable, "-c", MAIN_JOB, str(root)],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            ).stdout.splitlines()[-1]
        )
        for _ in range(2)
    )
    assert first["ok"] and second["ok"] and first["onnx"] and not second["onnx"]


@pytest.fixture
def sessions(monkeypatch):
    """Each onnxruntime session opened from here on: (the model it was given, its
    optimisation level, where it saved its graph, its threads)."""
    import onnxruntime as ort

    opened = []
    real = ort.InferenceSession.__init__

    def spied(self, model, opts=None, *args, **kw):
        opened.append(
            (
                model,
                opts.graph_optimization_level,
                opts.optimized_model_filepath,
                opts.intra_op_num_threads,
            )
        )
        return real(self, model, opts, *args, **kw)

    monkeypatch.setattr(ort.InferenceSession, "__init__", spied)
    return opened


def graphs(folder) -> list:
    return sorted(folder.glob("*.graph"))


def test_a_session_opens_the_graph_onnxruntime_made_of_the_model_before(kept, sessions):
    # onnxruntime's offline mode: its optimised graph kept, opened with optimisations off
    import onnxruntime as ort
    from waiexport.targets.onnx.format import ONNX

    level = ort.GraphOptimizationLevel
    model = engine("ort-cpu").export(SMALL).built()
    rng = np.random.default_rng(2)
    inputs, scalars = [rng.integers(-128, 128, (4, 8, 8))], [3]
    feed = ONNX.feed(small_builder().build(), model, inputs, scalars)
    sessions.clear()
    first = ONNX.runner(model)(feed)
    ((given, made_at, saved, _),) = sessions
    assert given == model.data and made_at == level.ORT_ENABLE_ALL and saved
    assert len(graphs(kept)) == 1
    second = ONNX.runner(model)(feed)
    assert len(sessions) == 2 and sessions[1][1:3] == (level.ORT_DISABLE_ALL, "")
    assert sessions[1][0] != model.data and sessions[1][0] in graphs(kept)[0].read_bytes()
    assert sorted(first) == sorted(second) and all((first[k] == second[k]).all() for k in first)
    want = decode(small_builder().build(), inputs, scalars)
    got = engine("ort-cpu").load(SMALL).decode(inputs, scalars)
    assert all((a == b).all() for a, b in zip(want, got, strict=True))


def test_a_graph_kept_for_another_cpu_is_not_opened(kept, sessions, monkeypatch):
    # onnxruntime's offline mode asks for the same hardware: a machine of the same model name
    # whose features differ (a virtual machine's) makes its own
    import onnxruntime as ort

    import waiexport.targets.onnx.format as onnx_format
    from waiexport.targets.onnx.format import ONNX

    model = engine("ort-cpu").export(SMALL).built()
    ONNX.runner(model)
    monkeypatch.setattr(onnx_format, "cpu_key", lambda: caches.host_cpu() + " other features")
    sessions.clear()
    ONNX.runner(model)
    assert sessions[-1][1] == ort.GraphOptimizationLevel.ORT_ENABLE_ALL and len(graphs(kept)) == 2


@pytest.mark.parametrize("spoil", ["truncated", "not a model"])
def test_a_kept_graph_that_does_not_read_back_or_open_is_made_again(kept, sessions, spoil):
    import onnxruntime as ort
    from waiexport.targets.onnx.format import ONNX

    model = engine("ort-cpu").export(SMALL).built()
    ONNX.runner(model)
    (path,) = graphs(kept)
    good = path.read_bytes()
    if spoil == "truncated":
        path.write_bytes(good[:-10])
    else:  # whole, as far as its digests say, but not a graph
        stored._write(path, {}, [b"not a model"])
    sessions.clear()
    ONNX.runner(model)
    assert sessions[-1][1] == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    assert path.read_bytes() == good and not [
        p for p in kept.iterdir() if p.name.startswith(".part-")
    ]


def test_no_graph_is_kept_where_the_cache_is_off(kept, sessions, monkeypatch):
    import onnxruntime as ort
    from waiexport.targets.onnx.format import ONNX

    monkeypatch.setenv("WAIEXPORT_MODEL_CACHE", "off")
    model = engine("ort-cpu").export(SMALL).built()
    sessions.clear()
    for _ in range(2):
        ONNX.runner(model)
    assert sessions == [(model.data, ort.GraphOptimizationLevel.ORT_ENABLE_ALL, "", 1)] * 2
    assert not kept.exists()


def test_a_run_on_large_inputs_takes_onnxruntime_s_threads_and_computes_the_same(sessions):
    # a pool's threads cost a third of a small model's session and split no small work: a
    # session runs small inputs on one thread and opens the pool when an input is large
    from waiexport.targets.onnx.format import ONNX, THREADED

    g = small_builder(max_h=96, max_w=96).build()
    model = engine("ort-cpu").export(write(g)).built()
    sessions.clear()
    run = ONNX.runner(model)
    rng = np.random.default_rng(3)
    threads = []
    for h in (8, 96, 8, 96):
        inputs = [rng.integers(-128, 128, (4, h, h))]
        feed = ONNX.feed(g, model, inputs, [2])
        assert (sum(v.size for v in feed.values()) >= THREADED) == (h == 96)
        got = [run(feed)[f"out{j}"][0] for j in range(len(g.outputs))]
        assert all((a == b).all() for a, b in zip(decode(g, inputs, [2]), got, strict=True))
        threads.append([s[3] for s in sessions])
    assert threads == [[1], [1, 0], [1, 0], [1, 0]]  # the pool opened once, when needed
