"""An example third-party engine: what a plug-in provides, and nothing more.

It subclasses :class:`waiexport.targets.engines.base.ModelEngine`, which exports each graph
for the engine's target (the ``ort-cpu`` ONNX model unless ``--target`` names another),
feeds each decode what the host computes (the load, §4's run steps 1–3, the input
policies), and checks the outputs it returns by name, shape and type. The runtime only says
how it opens a model: here onnxruntime's CPU provider on one thread, nodes in sequence.
``waiexport validate --engine example-ort-sequential`` runs it in a worker process.
"""

from waiexport.targets.engines.base import ModelEngine, versions

__all__ = ["SequentialOrt"]


class SequentialOrt(ModelEngine):
    """The target's ONNX model on onnxruntime, one thread, sequential execution."""

    name = "example-ort-sequential"

    def __init__(self, target_name: str = "ort-cpu"):
        super().__init__(target_name)

    def open(self, model):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        session = ort.InferenceSession(model.data, opts, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        return lambda feed: dict(zip(names, session.run(names, feed)))

    def describe(self) -> dict:
        return {
            "runs_on": "onnxruntime's CPU provider, one thread, sequential execution "
            "(the waiexport example plug-in)",
            "packages": versions("waiexport-example-engine", "onnxruntime", "waiexport"),
        }
