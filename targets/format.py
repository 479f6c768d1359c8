"""The format interface: what the exporter, the engines, ``export`` and the packs ask of a
model format, so that none of them branches on a format's name. A format is one folder,
``targets/<format>/``, whose ``format.py`` provides one :class:`Format`; :data:`FORMATS` names
them (a table, imported only when asked for).

A target whose models a compiler takes further for its hardware (Vela, for an Ethos-U NPU)
names that compile step (:class:`Step`, :data:`STEPS`); its models are the format's,
compiled after each is saved (:class:`Compiled`).

A format builds the model of an export (once, or per decode shape where its shapes are
static), says its inputs and outputs by name with their numpy types, feeds it the host's
inputs (§4's run steps 1–3 and the input policies, :func:`host_feed`) in its layout and
types, runs it on the format's own judge (the runtime the export's self-check uses), gives
a result back in CHW, and says what a saved export and a pack hold.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from importlib import import_module
from pathlib import Path
from typing import Callable

import numpy as np
from waiexport.reference import apply_policy
from waiexport.reference.arrays import compact

from waiexport.files import output_folder, write_atomic
from waiexport.graph import Graph
from waiexport.plan import run_plan

from .errors import EngineUnavailable
from .forked import cores

__all__ = [
    "Model",
    "Format",
    "FORMATS",
    "format_named",
    "format_of",
    "host_feed",
    "input_names",
    "graph_outputs",
]

#: Each format's name → where its :class:`Format` lives.
FORMATS = {
    "onnx": "waiexport.targets.onnx.format:ONNX",
    "tosa": "waiexport.targets.tosa.format:TOSA",
    "qdq": "waiexport.targets.onnx.qdq.format:QDQ",
    "tflite": "waiexport.targets.tflite.format:TFLITE",
}
#: Each compile step's name → where its :class:`Step` lives.
STEPS = {"vela": "waiexport.targets.vela.step:VELA"}


@dataclass
class Model:
    """One exported model: its bytes, its inputs and outputs by name (in the model's order)
    with their numpy type names, the input shapes it was built for (``None`` where its
    shapes are not static) and the format's own object (an ``onnx.ModelProto``, a
    :class:`~waiexport.targets.tosa.export.TosaModel`)."""

    data: bytes
    inputs: dict
    outputs: dict
    shapes: tuple | None
    native: object


class Format:
    """A model format (see the module's text). Subclasses set the class attributes and
    implement the methods that raise ``NotImplementedError``."""

    name = ""  # as targets' descriptions and FORMATS name it
    layout = ""  # a graph tensor's layout in the model, in words
    suffix = ""  # a saved model's file suffix
    static = False  # a model per decode shape
    judge = ""  # what the export's self-check runs the model on, in words
    judge_at_size = ""  # a static format's engine for the model at its own size, where the
    # self-check ran a smaller one (targets/exporter.py, check_size);
    # "" where no engine here runs this format's models at any size
    checked_on = ""  # the engine that judges this format's models where the target names
    # none (its own runtime's, where the format has one here)
    forks = False  # the judge computes on one core, holding the interpreter, and may
    # run decodes side by side in forked processes (targets/forked.py)

    def require(self) -> None:
        """Raise :class:`~.errors.EngineUnavailable`, naming the extra to install, when what
        the format needs to build or check a model is not installed."""

    def prepare(self, exp, chosen: dict) -> None:
        """What an export does at once, before any model is asked for (the ONNX model, built
        for the kernels the runtime's probes found exact, ``chosen``: each of
        :attr:`choices` by name, True where exact, so that a node it cannot map is found at
        export); nothing by default."""

    def build(self, exp, shapes: tuple | None) -> Model:
        """The model of ``exp`` (a :class:`~waiexport.targets.exporter.Export`), for these
        input shapes when the format is static."""
        raise NotImplementedError

    def feed(self, g: Graph, model: Model, inputs, scalars) -> dict:
        """The model's inputs for one decode (every input, state inputs included, and the
        scalars), after what the host does (:func:`host_feed`), in its layout and types."""
        raise NotImplementedError

    def run(self, model: Model, feed: dict) -> dict:
        """The model run on the format's judge: its outputs by name."""
        raise NotImplementedError

    def runner(self, model: Model) -> Callable[[dict], dict]:
        """The judge's run of ``model`` for several decodes, whatever it opens for a model
        (an onnxruntime session) opened once: a function from a feed to the outputs by
        name."""
        return partial(self.run, model)

    def chw(self, a: np.ndarray) -> np.ndarray:
        """One model output, ``[1, …]`` in the layout, as ``[C, H, W]``."""
        raise NotImplementedError

    def shape(self, chw: tuple) -> list:
        """The model's shape of a tensor whose CHW shape is ``chw``."""
        raise NotImplementedError

    writes_folder = ""  # an export's -o names a folder, written whole, not a file: the
    # command whose output it is (:func:`waiexport.files.output_folder`)
    probes: tuple = ()  # probes of a runtime that reads this format (see onnx/probes.py)
    choices: tuple = ()  # the probes whose verdict chooses a kernel of the export rather
    # than marking what a model uses inexact (:meth:`prepare`)
    cuts = False  # the model can be cut after any tensor (:meth:`prefix`)

    def used(self, model: Model) -> set:
        """The ``(operator, input type)`` pairs ``model`` uses, for its probes."""
        return set()

    def joined(self, probes: tuple):
        """One probe that runs every probe of ``probes`` in one model (its ``feed`` and
        ``exact(outputs)``), or ``None`` where the format has none."""
        return None

    def chosen_words(self, found: dict) -> str:
        """What the probes of :attr:`choices` found (``found``: by name, ``None`` where
        exact) and what the export does about it, in words for the claim; ``""`` where the
        format has none."""
        return ""

    def model_of(
        self,
        data: bytes,
        inputs: dict | None = None,
        outputs: dict | None = None,
        nodes: int | None = None,
    ) -> Model:
        """A model given as bytes (a probe's, or one kept on disk with its inputs' and
        outputs' types by name and its count of nodes), as the format holds it."""
        raise NotImplementedError

    def nodes(self, model: Model) -> int:
        """How many nodes (operators that compute) the model holds."""
        raise NotImplementedError

    def prefix(self, exp, t: int, shapes: list | None = None) -> Model | None:
        """The model cut after graph tensor ``t``, whose one output is that tensor (for
        locating a difference on a runtime that fuses: each prefix runs as the runtime runs
        the whole), on ``shapes`` for a static format, or ``None`` where the format has
        none."""
        return None

    def known(self, exp) -> dict:
        """Each operator of ``exp``'s graph that the target's description says its runtime
        computes otherwise (a generic export's inexact scale), by index, in words: a located
        difference there names it. None by default."""
        return {}

    def files(self, exp, model: Model, name: str) -> dict:
        """What saving ``model`` as ``name`` writes: file name → bytes (the model, and any
        provenance beside it)."""
        return {name: model.data}

    def save(self, exp, model: Model, output: Path, stem: str) -> dict:
        """Write ``model`` as ``output`` (each file under a temporary name, renamed into
        place when complete); what the report says of it: ``{"model", "bytes"}``, and what a
        format that compiles the model further adds: ``report`` (members of ``export
        --json``'s report) and ``lines`` (of its summary)."""
        for name, data in self.files(exp, model, output.name).items():
            write_atomic(output.parent / name, data)
        return {"model": str(output), "bytes": len(model.data)}

    def report(self, exp, model: Model) -> dict:
        """What ``export --json`` says of the model beside its bytes and path."""
        return {"metadata": exp.metadata}

    def summary(self, exp, model: Model, path: str, decodes: int) -> str:
        """The line ``export`` prints for the model written at ``path``."""
        raise NotImplementedError

    @contextmanager
    def packing(self):
        """Around the writing of a pack's models: what :meth:`packed` is given to leave
        work to (``None`` by default); every model's entry is complete when the block
        ends."""
        yield None

    def packed(self, exp, model: Model, folder: Path, stem: str, later) -> dict:
        """The model as a pack holds it, written under ``folder`` as ``models/<stem>…``:
        ``{"path", "sha256"}`` relative to ``folder``; ``later``: what :meth:`packing`
        yielded."""
        rel = f"models/{stem}{self.suffix}"
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(model.data)
        return {"path": rel, "sha256": hashlib.sha256(model.data).hexdigest()}


class Step:
    """A compiler run on a format's saved model for one configuration of the hardware
    (:attr:`~waiexport.descriptions.Target.compiler_config`): Vela after TOSA, for an Ethos-U.
    Its numerics are not checked where nothing here runs its output; a board or an FVP does,
    on the vectors (``waiexport vectors pack``)."""

    name = ""  # as targets' descriptions and STEPS name it
    needs = ""  # what to install where the format it follows is missing, in words

    def require(self) -> None:
        """Raise :class:`~.errors.EngineUnavailable`, naming the extra to install, when the
        compiler is not installed."""

    def compile(self, model: Path, config: str, outdir: Path):
        """Compile the saved ``model`` for ``config`` into ``outdir``, nothing else there read
        or overwritten; a report with ``output`` (the compiled file), ``cpu_ops`` (operators
        left to the host's CPU), ``as_dict()`` and ``lines()``. Raises
        :class:`~.errors.CompileError` with the compiler's message."""
        raise NotImplementedError


class Compiled:
    """``base``'s models, each compiled by ``step`` after it is saved, for the target's
    configuration: an export writes a folder (the model, its provenance, the compiled model
    and the compiler's summary), whole or not at all; a pack holds the compiled model beside
    the one it came from. Everything else is ``base``'s."""

    writes_folder = "export"
    judge_at_size = ""  # the base format's engine runs its own target's models, not these

    def __init__(self, base: Format, step: Step):
        self.base, self.step, self.name = base, step, step.name

    def __getattr__(self, name: str):
        return getattr(self.base, name)

    def require(self) -> None:
        try:
            self.base.require()
        except EngineUnavailable:
            raise EngineUnavailable(self.step.needs) from None
        self.step.require()

    def save(self, exp, model: Model, output: Path, stem: str) -> dict:
        with output_folder(output, self.writes_folder) as work:
            saved = work / f"{stem}{self.base.suffix}"
            for name, data in self.base.files(exp, model, saved.name).items():
                (work / name).write_bytes(data)
            report = self.step.compile(saved, exp.target.compiler_config, work)
        report.output = output / report.output.name
        name = exp.target.name
        lines = [
            f"every node fits {name} (its limits: waiexport targets show {name})",
            *report.lines(),
        ]
        if report.cpu_ops:
            lines.append(f"  {report.cpu_ops} operators are not on the NPU")
        return {
            "model": str(output / saved.name),
            "bytes": len(model.data),
            "report": {self.step.name: report.as_dict()},
            "lines": lines,
        }

    @contextmanager
    def packing(self):
        """The compiles of a pack's models run beside the rest of the packing, one a core
        (each is a process of its own: Vela's take 0.35 s, most of a pack's time); each
        model's entry is filled in when every compile has ended. A compile the compiler
        refuses ends the pack with its message (:class:`~.errors.CompileError`)."""
        compiles: list = []
        with ThreadPoolExecutor(cores()) as pool:
            try:
                yield pool, compiles
                for entry, folder, job in compiles:
                    source, made = entry[self.base.name], job.result().output
                    entry.clear()
                    entry.update(
                        {
                            "path": str(made.relative_to(folder)),
                            self.base.name: source,
                            "sha256": hashlib.sha256(made.read_bytes()).hexdigest(),
                        }
                    )
            except BaseException:  # nothing more is compiled for a pack that will not be
                pool.shutdown(cancel_futures=True)
                raise

    def packed(self, exp, model: Model, folder: Path, stem: str, later) -> dict:
        source = self.base.packed(exp, model, folder, stem, None)
        pool, compiles = later
        entry = {self.base.name: source}
        compiles.append(
            (
                entry,
                folder,
                pool.submit(
                    self.step.compile,
                    folder / source["path"],
                    exp.target.compiler_config,
                    folder / "models",
                ),
            )
        )
        return entry


def format_named(name: str) -> Format:
    """The format called ``name`` (:data:`FORMATS`); ``KeyError`` for another."""
    module, attr = FORMATS[name].split(":")
    return getattr(import_module(module), attr)


def format_of(target) -> Format:
    """The format a target's models are written in: its format's, compiled by its compile
    step where it names one."""
    fmt = format_named(target.fmt)
    if not target.compiler:
        return fmt
    module, attr = STEPS[target.compiler].split(":")
    return Compiled(fmt, getattr(import_module(module), attr))


def input_names(g: Graph) -> list[str]:
    """Each graph input's name in a model: ``in<k>`` or ``state<k>`` by kind and order."""
    counts = {"data": 0, "state": 0}
    names = []
    for inp in g.inputs:
        names.append(f"{'in' if inp.kind == 'data' else 'state'}{counts[inp.kind]}")
        counts[inp.kind] += 1
    return names


def host_feed(g: Graph, inputs, scalars, dtype=np.int32) -> dict:
    """What the host does before a model runs, for one decode: §4's run steps 1–3 and the
    input policies (refusals with their codes); each input ``[1, C, H, W]`` as ``dtype``, or
    as the type ``dtype`` gives its name where it is a model's inputs by name
    (:attr:`Model.inputs`: an ONNX model takes an input that fits 8 bits as one), named
    ``in<k>`` or ``state<k>`` by kind and order, each scalar an int64 ``[1]`` named
    ``scalar<j>``."""
    run_plan(g, [tuple(np.shape(x)) for x in inputs], [int(s) for s in scalars])
    feed = {}
    for i, (inp, x, name) in enumerate(zip(g.inputs, inputs, input_names(g))):
        value = apply_policy(compact(x), g.tensor(inp.tensor), f"input {i}")
        feed[name] = value.astype(dtype[name] if isinstance(dtype, dict) else dtype)[None]
    for j, s in enumerate(scalars):
        feed[f"scalar{j}"] = np.array([int(s)], dtype=np.int64)
    return feed


def graph_outputs(g: Graph, fmt: Format, raw: dict) -> dict:
    """A model's raw outputs as the engine interface returns them: the host's checks of its
    ``check<t>`` outputs first (the unclamped values of an acc64 graph's internal ``check``
    tensors, in graph order: a refused decode returns nothing), then each ``out<j>`` in CHW,
    its type and shape as the model gave them."""
    for name in sorted((n for n in raw if n.startswith("check")), key=lambda n: int(n[5:])):
        t = int(name[5:])
        apply_policy(np.asarray(fmt.chw(raw[name])).astype(np.int64), g.tensor(t), f"tensor {t}")
    return {n: fmt.chw(v) for n, v in raw.items() if not n.startswith("check")}
