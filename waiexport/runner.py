"""The reference runner of a pack, for a device: copy this one file and a pack
(``waiexport vectors pack``) to the device, and run

    python runner.py PACK --runtime onnxruntime [--provider cpu | qnn] [--htp-arch 73]
    python runner.py PACK --runtime litert [--kernels builtin | ref | default]
    python runner.py PACK --runtime tflm

Each decode of each vector in ``PACK/manifest.json`` runs its model on its inputs (``.npy``,
in the listed order; a state input is the named output of the named earlier decode), and each
output is written where the manifest says (``outputs/<key>/<decode>/<name>.npy``); a decode
that cannot run writes its error to ``errors/<key>/<decode>.txt`` and the vector's later
decodes are not run; then ``results.json`` says which pack ran (its identity), on which
runtime and kernel path (``path``) and where. Judge the folder where waiexport is:
``waiexport validate --results PACK --pack YOUR_COPY``; it refuses to judge a QDQ or TFLite
pack run on a path that requantises in float32 (onnxruntime's CPU provider, LiteRT's default
XNNPACK delegate): §6 of the spec forbids floating point on a graph value.

``--provider qnn`` runs on Qualcomm's HTP through onnxruntime's QNN provider (the plug-in
``onnxruntime-qnn``), with no fallback to the CPU: neither onnxruntime's CPU fallback nor its
Python session's rerun on the CPU provider after a failed run. It needs the standard library,
numpy and the runtime it drives, and no waiexport.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np


def onnxruntime_session(provider: str, htp_arch: str):
    """A function from a model's path to a run (inputs by name in, outputs in order out) on
    onnxruntime's ``provider``, and the path in words."""
    import onnxruntime as ort

    if provider == "cpu":
        make = lambda path: ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])  # noqa: E731
    else:
        import onnxruntime_qnn as oq

        if oq.get_ep_name() not in {d.ep_name for d in ort.get_ep_devices()}:
            ort.register_execution_provider_library(oq.get_ep_name(), oq.get_library_path())
        devices = [d for d in ort.get_ep_devices() if d.ep_name == oq.get_ep_name()]

        def make(path):
            opts = ort.SessionOptions()
            opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
            opts.add_provider_for_devices(
                devices, {"backend_path": oq.get_qnn_htp_path(), "htp_arch": htp_arch}
            )
            return ort.InferenceSession(str(path), opts, enable_fallback=0)

    def opened(path):
        s = make(path)
        names = [o.name for o in s.get_outputs()]
        return lambda feed: dict(zip(names, s.run(names, feed)))

    where = "CPU provider" if provider == "cpu" else f"QNN provider, HTP v{htp_arch}"
    return opened, f"onnxruntime {ort.__version__}, {where}"


def tflite_session(runtime: str, kernels: str):
    """The same for a TFLite model on TensorFlow Lite Micro or on LiteRT's ``kernels``; its
    inputs are fed in the listed order, its outputs named ``out0, …``."""
    if runtime == "tflm":
        from tflite_micro.python.tflite_micro import runtime as tflm

        def opened(path):
            it = tflm.Interpreter.from_bytes(Path(path).read_bytes(), arena_size=64 << 20)
            count = 0  # its interpreter gives no count of outputs: each is asked for in turn
            while True:
                try:
                    it.get_output_details(count)
                except Exception:  # past the last: the runtime's own error type
                    break
                count += 1

            def run(feed):
                for k, x in enumerate(feed.values()):
                    it.set_input(x, k)
                it.invoke()
                return {f"out{j}": it.get_output(j).copy() for j in range(count)}

            return run

        return opened, f"tflite-micro {version('tflite-micro')}, TensorFlow Lite Micro's kernels"
    from ai_edge_litert import interpreter as litert

    kind = {
        "builtin": litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        "ref": litert.OpResolverType.BUILTIN_REF,
        "default": litert.OpResolverType.AUTO,
    }[kernels]

    def opened(path):
        it = litert.Interpreter(model_path=str(path), experimental_op_resolver_type=kind)
        it.allocate_tensors()
        ins = [d["index"] for d in it.get_input_details()]
        outs = [d["index"] for d in it.get_output_details()]

        def run(feed):
            for index, x in zip(ins, feed.values()):
                it.set_tensor(index, x)
            it.invoke()
            return {f"out{j}": it.get_tensor(index).copy() for j, index in enumerate(outs)}

        return run

    return opened, f"ai-edge-litert {version('ai-edge-litert')}, LiteRT's {kernels} kernels"


def run_vector(pack: Path, vector: dict, session) -> None:
    """Every decode of ``vector``, its outputs written where the manifest says, or its error
    where one cannot run (then the later decodes, which may read its state, are not run)."""
    done: dict = {}
    runs: dict = {}
    for k, d in enumerate(vector["decodes"]):
        if "host_refuses" in d:
            continue
        try:
            feed = {i["name"]: np.load(pack / i["path"], allow_pickle=False) for i in d["inputs"]}
            feed.update({s["name"]: done[int(s["from_decode"])][s["output"]] for s in d["state"]})
            path = pack / d["model"]["path"]
            if path not in runs:
                runs[path] = session(path)
            done[k] = runs[path](feed)
            for o in d["outputs"]:
                out = pack / o["path"]
                out.parent.mkdir(parents=True, exist_ok=True)
                np.save(out, done[k][o["name"]])
        except Exception as e:  # the runtime's own error, of its own types: the decode's
            error = pack / "errors" / vector["key"] / f"{k}.txt"
            error.parent.mkdir(parents=True, exist_ok=True)
            error.write_text(f"{type(e).__name__}: {e}"[:2000])
            return


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pack", type=Path, help="the pack folder (a copy), written into")
    p.add_argument("--runtime", choices=["onnxruntime", "litert", "tflm"], default="onnxruntime")
    p.add_argument("--provider", choices=["cpu", "qnn"], default="cpu", help="onnxruntime's")
    p.add_argument("--htp-arch", default="73", help="the HTP generation, for --provider qnn")
    p.add_argument(
        "--kernels", choices=["builtin", "ref", "default"], default="builtin", help="LiteRT's"
    )
    p.add_argument("--ran-on", default="", help="the device, in words, for the claim")
    a = p.parse_args(argv)
    manifest = a.pack / "manifest.json"
    try:
        vectors = json.loads(manifest.read_text())["vectors"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{manifest}: not a pack's manifest: {e}", file=sys.stderr)
        return 2
    if a.runtime == "onnxruntime":
        session, runs_on = onnxruntime_session(a.provider, a.htp_arch)
        path = f"onnxruntime:{a.provider}"
    else:
        session, runs_on = tflite_session(a.runtime, a.kernels)
        path = "tflm" if a.runtime == "tflm" else f"litert:{a.kernels}"
    for n, vector in enumerate(vectors, 1):
        run_vector(a.pack, vector, session)
        print(f"\r{n}/{len(vectors)} vectors", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    where = a.ran_on or f"{runs_on}, {platform.machine()} {platform.platform()}"
    identity = hashlib.sha256(manifest.read_bytes()).hexdigest()
    results = {"pack": identity, "path": path, "ran_on": where[:200]}
    (a.pack / "results.json").write_text(json.dumps(results))
    print(f"{a.pack / 'results.json'}: {len(vectors)} vectors run for pack {identity} on {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
