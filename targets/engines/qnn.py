"""Qualcomm's QNN HTP backend as an engine (extra ``qnn``): the Hexagon NPU, through
onnxruntime's QNN execution provider, a plug-in library (``onnxruntime-qnn``) registered
beside onnxruntime's own. It runs a target's QDQ model (``qnn-htp``'s unless ``--target``
names another, ``onnx-qdq`` say) with CPU fallback disabled, so a node the HTP does not take
fails the load, never runs on the CPU. On x86 the HTP is emulated by Qualcomm's library, one
generation a session (``htp_arch``: ``qnn-htp`` is v73, ``qnn-htp-v68`` and ``qnn-htp-v81`` the
others measured); on a Snapdragon device the same engine runs on the NPU itself, and its claim
says which. Emulation is a judge, not a runtime: a 3×3 64→64 conv at 64×64 takes 65 ms."""

from __future__ import annotations

from ..errors import EngineFailure, EngineUnavailable
from .base import ModelEngine, versions

__all__ = ["QnnEngine"]
#: This module's engines, as the registry (:mod:`waiexport.targets.engines`) reads them
#: without importing the module.
REGISTRY = (
    {
        "name": "qnn-htp",
        "help": "the qnn-htp export (or --target's QDQ) on Qualcomm's HTP through "
        "onnxruntime's QNN provider, v73 (extra qnn)",
        "cls": "QnnEngine",
        "isolated": True,
        "args": {"arch": "73"},
    },
    {
        "name": "qnn-htp-v68",
        "help": "the same on the HTP v68",
        "cls": "QnnEngine",
        "isolated": True,
        "args": {"arch": "68"},
    },
    {
        "name": "qnn-htp-v81",
        "help": "the same on the HTP v81",
        "cls": "QnnEngine",
        "isolated": True,
        "args": {"arch": "81"},
    },
)


class QnnEngine(ModelEngine):
    """A target's QDQ model on QNN's HTP backend."""

    formats = ("qdq",)

    def __init__(self, target_name: str = "qnn-htp", arch: str = "73"):
        try:
            import onnxruntime as ort
            import onnxruntime_qnn as oq
        except ImportError:
            raise EngineUnavailable(
                "onnxruntime-qnn is not installed: pip install 'waiexport[qnn]'"
            ) from None
        super().__init__(target_name)
        self.name = "qnn-htp" if arch == "73" else f"qnn-htp-v{arch}"
        self.arch, self.ort, self.oq = arch, ort, oq
        ort.set_default_logger_severity(4)
        if oq.get_ep_name() not in {d.ep_name for d in ort.get_ep_devices()}:  # once a process
            ort.register_execution_provider_library(oq.get_ep_name(), oq.get_library_path())
        self.devices = [d for d in ort.get_ep_devices() if d.ep_name == oq.get_ep_name()]
        if not self.devices:
            raise EngineUnavailable("onnxruntime's QNN provider offers no device here")

    def describe(self) -> dict:
        from onnxruntime_qnn.build_and_package_info import qnn_version

        device = self.devices[0].device
        npu = device.type == self.ort.OrtHardwareDeviceType.NPU
        where = (
            "on the NPU itself"
            if npu
            else f"emulated on this machine's CPU ({device.vendor}) by QNN's HTP library"
        )
        generic = (
            ""
            if self.target.options.exact
            else (
                f"; {self.target.name}'s models carry float32 scales as quantisation tools write "
                "them, so a pass shows those vectors only, no exactness of that export"
            )
        )
        return {
            "runs_on": f"Qualcomm QNN HTP v{self.arch}, {where}, QNN SDK {qnn_version}, "
            f"CPU fallback disabled{generic}",
            "device": f"HTP v{self.arch} ({'NPU' if npu else 'emulated'})",
            "packages": versions("onnxruntime", "onnxruntime-qnn", "waiexport", "numpy"),
            "probed": self.probed(),
        }

    def open(self, model):
        """A session of ``model`` on the HTP; one that cannot be made (a node the HTP does not
        take, whatever the export let past) is an :class:`EngineFailure` naming the model."""
        opts = self.ort.SessionOptions()
        opts.log_severity_level = 4
        opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        opts.add_provider_for_devices(
            self.devices, {"backend_path": self.oq.get_qnn_htp_path(), "htp_arch": self.arch}
        )
        try:  # no fallback: onnxruntime's Python session would redo a failed load or run
            session = self.ort.InferenceSession(model.data, opts, enable_fallback=0)
        except Exception as e:  # onnxruntime's own error, of its own types
            raise EngineFailure.said(
                "QNN",
                f"the model does not load on HTP v{self.arch}: "
                + str(e).strip().splitlines()[0][:300],
            ) from None
        if self.oq.get_ep_name() not in session.get_providers():
            raise EngineFailure(f"QNN: the session holds no HTP ({session.get_providers()})")
        names = [o.name for o in session.get_outputs()]

        def run(feed):
            try:
                return dict(zip(names, session.run(names, feed)))
            except Exception as e:
                raise EngineFailure.said("QNN", str(e).strip().splitlines()[0][:300]) from None

        return run
