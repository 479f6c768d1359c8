"""Runners as a board would be, for the pack tests: each decode's model on its inputs, on
onnxruntime or the TOSA reference model, outputs saved where the manifest says."""

import hashlib
import json
import shutil

import numpy as np


def on_onnxruntime(path, feed, order):
    import onnxruntime as ort

    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, feed)))


def on_qnn_htp(path, feed, order):
    """As a Snapdragon device's runner would: onnxruntime with Qualcomm's QNN provider
    registered, its HTP backend, no fallback to the CPU (here the HTP is emulated)."""
    import onnxruntime as ort
    import onnxruntime_qnn as oq

    if oq.get_ep_name() not in {d.ep_name for d in ort.get_ep_devices()}:
        ort.register_execution_provider_library(oq.get_ep_name(), oq.get_library_path())
    opts = ort.SessionOptions()
    opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    opts.add_provider_for_devices(
        [d for d in ort.get_ep_devices() if d.ep_name == oq.get_ep_name()],
        {"backend_path": oq.get_qnn_htp_path()},
    )
    s = ort.InferenceSession(str(path), opts, enable_fallback=0)
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, feed)))


def on_tosa_reference(path, feed, order):
    import tosa_reference_model as rm

    outs, status = rm.run(path.read_bytes(), [feed[n] for n in order])
    assert status == rm.GraphStatus.TOSA_VALID
    return {f"out{j}": o for j, o in enumerate(outs)}


def run_pack(pack, execute, mistake=None):
    """A runner as a board would be: each decode's model on its inputs, state carried from
    the outputs the manifest names, the outputs written where the manifest says."""
    m = json.loads((pack / "manifest.json").read_text())
    for v in m["vectors"]:
        done = {}
        for k, d in enumerate(v["decodes"]):
            if "host_refuses" in d:
                continue
            feed = {i["name"]: np.load(pack / i["path"]) for i in d["inputs"]}
            feed.update({s["name"]: done[int(s["from_decode"])][s["output"]] for s in d["state"]})
            done[k] = execute(pack / d["model"]["path"], feed, d["order"])
            for o in d["outputs"]:
                a = done[k][o["name"]]
                if mistake == (v["id"], k):
                    a = a.copy()
                    a.reshape(-1)[0] += 1
                (pack / o["path"]).parent.mkdir(parents=True, exist_ok=True)
                np.save(pack / o["path"], a)
    (pack / "results.json").write_text(
        json.dumps({"pack": identity(pack), "ran_on": "a test runner, in process"})
    )


def identity(pack) -> str:
    return hashlib.sha256((pack / "manifest.json").read_bytes()).hexdigest()


def packed_and_run(root, target: str, files: list, execute=on_onnxruntime) -> tuple:
    """A pack of ``files`` for ``target`` written by ``vectors pack`` (``root/pack``), and a
    faithful runner's results in a copy of it (``root/results``)."""
    from click.testing import CliRunner
    from waiexport.cli import main

    pack = root / "pack"
    r = CliRunner().invoke(main, ["vectors", "pack", "--target", target, str(pack), *files])
    assert r.exit_code == 0, r.output
    shutil.copytree(pack, root / "results")
    run_pack(root / "results", execute)
    return pack, root / "results"
