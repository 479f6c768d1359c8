"""A pack's runner for a device with onnxruntime (README, "Validating an accelerator this
process cannot drive"): copy this file and a pack (``waiexport vectors pack``) to the device,
and run

    python onnxruntime_runner.py PACK [--provider cpu | qnn] [--htp-arch 73] [--ran-on TEXT]

Each decode of each vector in ``PACK/manifest.json`` runs its model on its inputs (a state
input is the named output of the named earlier decode), and each output is written where the
manifest says (``outputs/<key>/<decode>/<name>.npy``); a decode that cannot run writes its
error to ``errors/<key>/<decode>.txt`` and the vector's later decodes are not run; then
``results.json`` says which pack ran (its identity) and where. Judge the folder where
waiexport is: ``waiexport validate --results PACK --pack YOUR_COPY``.

``--provider qnn`` runs on Qualcomm's HTP through onnxruntime's QNN provider (the plug-in
``onnxruntime-qnn``), with no fallback to the CPU: neither onnxruntime's CPU fallback nor its
Python session's rerun on the CPU provider after a failed run (float32 there is no NPU's
arithmetic). It needs the standard library, numpy and onnxruntime, and no waiexport.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort


def session_maker(provider: str, htp_arch: str):
    """A function from a model's path to its onnxruntime session on ``provider``."""
    if provider == "cpu":
        return lambda path: ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
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

    return make


def run_vector(pack: Path, vector: dict, session) -> None:
    """Every decode of ``vector``, its outputs written where the manifest says, or its error
    where one cannot run (then the later decodes, which may read its state, are not run)."""
    done: dict = {}
    sessions: dict = {}
    for k, d in enumerate(vector["decodes"]):
        if "host_refuses" in d:
            continue
        try:
            feed = {i["name"]: np.load(pack / i["path"], allow_pickle=False) for i in d["inputs"]}
            feed.update({s["name"]: done[int(s["from_decode"])][s["output"]] for s in d["state"]})
            path = pack / d["model"]["path"]
            if path not in sessions:
                sessions[path] = session(path)
            s = sessions[path]
            names = [o.name for o in s.get_outputs()]
            done[k] = dict(zip(names, s.run(names, feed)))
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
    p.add_argument("pack", type=Path, help="the pack folder, written into")
    p.add_argument("--provider", choices=["cpu", "qnn"], default="cpu")
    p.add_argument("--htp-arch", default="73", help="the HTP generation, for --provider qnn")
    p.add_argument("--ran-on", default="", help="where it ran, in words, for the claim")
    a = p.parse_args(argv)
    manifest = a.pack / "manifest.json"
    try:
        vectors = json.loads(manifest.read_text())["vectors"]
    except (OSError, ValueError, KeyError) as e:
        print(f"{manifest}: not a pack's manifest: {e}", file=sys.stderr)
        return 2
    session = session_maker(a.provider, a.htp_arch)
    for n, vector in enumerate(vectors, 1):
        run_vector(a.pack, vector, session)
        print(f"\r{n}/{len(vectors)} vectors", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    where = a.ran_on or (
        f"onnxruntime {ort.__version__}, "
        + ("CPU provider" if a.provider == "cpu" else f"QNN provider, HTP v{a.htp_arch}")
        + f", {platform.machine()} {platform.platform()}"
    )
    identity = hashlib.sha256(manifest.read_bytes()).hexdigest()
    (a.pack / "results.json").write_text(json.dumps({"pack": identity, "ran_on": where[:200]}))
    print(f"{a.pack / 'results.json'}: {len(vectors)} vectors run for pack {identity}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
