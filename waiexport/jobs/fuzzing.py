"""The fuzz job: a campaign of random graphs against an engine (:mod:`waiexport.conformance.
campaign`), on local processes, each difference reduced and kept once per signature as a bug
bundle; bundles of shards merged."""

from __future__ import annotations

import multiprocessing as mp
from itertools import count
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from waiexport.conformance.campaign import CLASSES, Bug, Campaign, cpu, hunt
from waiexport.conformance.vectors import write_lines
from waiexport.files import read_bounded
from waiexport.jsonio import BadInput, dumps, loads, report_json
from waiexport.targets import engines
from waiexport.targets.engines.base import Engine
from waiexport.targets.errors import EngineUnavailable

__all__ = ["fuzz", "Fuzzed", "merge", "bundle_files", "read_bundles"]

#: How a bug bundle's folder and summary name what they are.
FORMAT = "waiexport-fuzz/1"


@dataclass(frozen=True)
class Fuzzed:
    """A campaign's result: its counts, its bugs, and the files of ``-o BUGS/``."""

    campaign: Campaign
    shard: tuple = (1, 1)

    @property
    def ok(self) -> bool:
        """Whether no difference was found."""
        return not self.campaign.bugs

    def summary(self) -> dict:
        """``BUGS/summary.json``'s object: the run, the counts by class, each bug."""
        c = self.campaign
        return {
            "bugs": [
                {"bundle": bug.name, **_entry(bug)}
                for bug in sorted(c.bugs.values(), key=lambda b: b.first)
            ],
            "counts": c.counts,
            "engine": c.engine,
            "format": FORMAT,
            "graphs": c.graphs,
            "seed": c.seed,
            "shard": f"{self.shard[0]}/{self.shard[1]}",
            "target": c.target,
        }

    def to_json(self) -> str:
        return dumps(self.summary())

    def text(self) -> str:
        """The summary table, as a person reads it."""
        c = self.campaign
        lines = [
            f"{c.graphs} graphs on {c.engine}"
            + (f" (the {c.target} target's models)" if c.target else "")
            + f" (seed {c.seed}): "
            + ", ".join(f"{n} {cls}" for cls, n in c.counts.items() if n)
        ]
        if c.bugs:
            lines.append(f"{'bundle':48} {'class':17} {'graphs':>6}  diagnosis")
            for bug in sorted(c.bugs.values(), key=lambda b: b.first):
                lines.append(
                    f"{bug.name[:48]:48} {bug.signature[2]:17} {bug.count:>6}  "
                    f"{bug.signature[3] or '-'}"
                )
        else:
            lines.append("no difference found")
        return "\n".join(lines)

    def files(self) -> dict:
        """``BUGS/``'s files: ``summary.json`` and each bundle's, by relative path."""
        out = {"summary.json": (self.to_json() + "\n").encode()}
        machine = (report_json(_machine(self.campaign)) + "\n").encode()  # once, not per bug
        for bug in self.campaign.bugs.values():
            files = bundle_files(bug, self.campaign, machine)
            out.update({f"{bug.name}/{n}": d for n, d in files.items()})
        return out


def _entry(bug: Bug) -> dict:
    """A bug as its summary entry and ``bug.json`` say it: its signature, count and first
    graph."""
    _, op, cls, diagnosis = bug.signature
    return {
        "class": cls,
        "count": bug.count,
        "diagnosis": diagnosis,
        "first_graph": bug.first,
        "operator": op,
    }


def bundle_files(bug: Bug, campaign: Campaign, machine: bytes) -> dict:
    """One bug's bundle: the reduced graph and its vector (the decode and the exact
    outputs), what the engine gave, ``machine`` (the engine's packages and this machine's,
    as ``machine.json``), and ``repro.sh``, one command that exits 1 while the bug shows (0
    once it is fixed)."""
    vector = bug.vector
    engine, op, cls, diagnosis = bug.signature
    repro = (
        "#!/bin/sh\n"
        f"# {engine}: {op}, {cls}{f' ({diagnosis})' if diagnosis else ''}.\n"
        "# Exits 1 while the engine still differs from the reference on this vector, 0 once\n"
        "# it agrees; --locate names the first operator that differs and why.\n"
        'cd "$(dirname "$0")" && exec waiexport validate --engine '
        f"{engine}{f' --target {campaign.target}' if campaign.target else ''} --locate "
        "vector.jsonl\n"
    )
    return {
        "bug.json": (
            dumps(
                {
                    **_entry(bug),
                    "engine": engine,
                    "format": FORMAT,
                    "seed": campaign.seed,
                    "target": campaign.target,
                }
            )
            + "\n"
        ).encode(),
        "graph.whg1": bytes.fromhex(vector["graph"]),
        "vector.jsonl": write_lines([vector]),
        "outcome.json": (report_json(bug.outcome) + "\n").encode(),
        "machine.json": machine,
        "repro.sh": repro.encode(),
    }


def _machine(campaign: Campaign) -> dict:
    """The engine's packages and this machine, as a bundle records them."""
    try:
        said = engines.engine(campaign.engine, target=campaign.target).describe()
    except Exception as e:  # an engine that cannot be made again here: say so
        said = {"unavailable": f"{type(e).__name__}: {e}"[:200]}
    return {
        "cpu": cpu(),
        "engine": said,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
    }


def _shard_indices(graphs: int | None, shard: tuple) -> Iterator[int]:
    """Shard ``(K, N)``'s graph indices, ``K − 1, K − 1 + N, …``, below ``graphs`` (else
    without end)."""
    k, n = shard
    return count(k - 1, n) if graphs is None else iter(range(k - 1, graphs, n))


def _worker(args: tuple) -> Campaign:
    """One process's part of a campaign (its engine made there, by name)."""
    name, target, indices, seed, until = args
    made = engines.engine(name, isolate=True, target=target)
    return hunt(made, indices, seed, until, target=target)


def fuzz(
    engine: str | Engine,
    *,
    target: str | None = None,
    graphs: int | None = None,
    minutes: float | None = None,
    seed: int = 0,
    shard: tuple = (1, 1),
    jobs: int = 1,
    executor: str = "local",
    progress: Callable[[int, float], None] | None = None,
) -> Fuzzed:
    """A campaign of random graphs on ``engine`` (a name, or an engine already made, as
    ``validate`` takes one): graphs ``0 .. graphs − 1`` of seed ``seed`` (those of shard
    ``K/N``: index ≡ K − 1 mod N), or as many as ``minutes`` allow, on ``jobs`` processes.

    Parameters
    ----------
    engine : str or Engine
        The engine, by name (needed for ``jobs`` > 1) or made.
    target : str, optional
        The target whose models the engine runs (its own by default): an engine given by
        name is made to run them; one given made is taken to, and the bundles say so.
    graphs : int, optional
        How many graph indices the campaign covers.
    minutes : float, optional
        The time it may take, where ``graphs`` is not given.
    seed : int
        The campaign's seed: graph ``k`` is the same in every run of it.
    shard : tuple
        ``(K, N)``: this run's indices of ``N`` disjoint shards.
    jobs : int
        Processes (or, with the ``ray`` executor, Ray workers).
    executor : str
        ``"local"`` (this machine's processes) or ``"ray"`` (a Ray cluster's workers, through
        Ray's drop-in ``Pool``: the one ``ray.init`` started or joined, else a local one).
    progress : callable, optional
        Told ``(graphs done, seconds)`` as graphs finish (one process).

    Returns
    -------
    Fuzzed
        The counts by class and each distinct bug, reduced.

    Raises
    ------
    KeyError
        An unknown engine.
    ValueError
        Neither ``graphs`` nor ``minutes``, a shard outside ``1..N``, ``jobs`` < 1, an
        unknown executor, or ``jobs`` > 1 or Ray for an engine not given by name.
    EngineUnavailable
        The ``ray`` executor without Ray installed.
    """
    if (graphs is None) == (minutes is None):
        raise ValueError("give one of graphs and minutes")
    k, n = shard
    if not 1 <= k <= n or jobs < 1:
        raise ValueError(f"shard {k}/{n} or jobs {jobs}: a shard is K/N with 1 <= K <= N")
    if executor not in ("local", "ray"):
        raise ValueError(f"executor {executor!r}: local or ray")
    until = None if minutes is None else time.monotonic() + 60 * minutes
    if jobs == 1 and executor == "local":
        made = (
            engines.engine(engine, isolate=True, target=target)
            if isinstance(engine, str)
            else engine
        )
        found = hunt(made, _shard_indices(graphs, shard), seed, until, progress, target)
        return Fuzzed(found, shard)
    if not isinstance(engine, str):
        raise ValueError("processes need the engine by name: each makes its own")
    engines.engine(engine, target=target)  # unknown or unavailable: here, not in a worker
    parts = [(engine, target, _sub(graphs, shard, j, jobs), seed, until) for j in range(jobs)]
    with _pool(executor, jobs) as pool:
        found = pool.map(_worker, parts)
    total = found[0]
    for other in found[1:]:
        total = total.merged(other)
    return Fuzzed(total, shard)


def _pool(executor: str, jobs: int) -> Any:
    """A pool of ``jobs`` workers: this machine's processes, or Ray's drop-in ``Pool``."""
    if executor == "local":
        return mp.get_context("spawn").Pool(jobs)
    try:
        from ray.util.multiprocessing import Pool  # the optional ray extra
    except ImportError:
        raise EngineUnavailable("ray is not installed: pip install 'waiexport[ray]'") from None
    return Pool(jobs)


def _sub(graphs: int | None, shard: tuple, j: int, jobs: int) -> Iterable[int]:
    """Process ``j`` of ``jobs``'s indices of the shard: every ``jobs``-th one of them."""
    k, n = shard
    if graphs is None:
        return _shard_indices(None, (k + n * j, n * jobs))
    return list(_shard_indices(graphs, shard))[j::jobs]


def read_bundles(folder: Path) -> Fuzzed:
    """A ``-o BUGS/`` folder read back (for a merge): its summary and each bundle's files;
    :class:`BadInput` naming what is not one."""
    where = folder / "summary.json"
    try:
        summary = loads(read_bounded(where, 64 << 20))
        if not isinstance(summary, dict) or summary.get("format") != FORMAT:
            raise BadInput(f"{where}: not a {FORMAT} summary")
        camp = Campaign(
            summary["engine"],
            int(summary["seed"]),
            {c: int(summary["counts"][c]) for c in CLASSES},
            target=summary.get("target"),
        )
        camp.graphs = int(summary["graphs"])
        for entry in summary["bugs"]:
            where = folder / str(entry["bundle"])
            vector = loads(read_bounded(where / "vector.jsonl", 64 << 20).splitlines()[0])
            outcome = loads(read_bounded(where / "outcome.json", 64 << 20))
            sig = (summary["engine"], entry["operator"], entry["class"], entry["diagnosis"])
            first = int(entry["first_graph"])
            camp.bugs[sig] = Bug(sig, int(entry["count"]), first, vector, outcome)
    except OSError as e:
        raise BadInput(f"{where}: {e.strerror or e}: not a fuzz output") from None
    except (KeyError, TypeError, ValueError, IndexError) as e:
        if isinstance(e, BadInput):
            raise
        raise BadInput(f"{where}: not a fuzz output ({type(e).__name__}: {e})"[:300]) from None
    return Fuzzed(camp)


def merge(folders: list[Path]) -> Fuzzed:
    """The bundles and counts of several ``-o BUGS/`` folders of one engine and seed (shards
    of one campaign) as one: each bug once, its earliest graph's bundle, counts summed."""
    parts = [read_bundles(f) for f in folders]
    first = parts[0].campaign
    for p, f in zip(parts[1:], folders[1:]):
        if (p.campaign.engine, p.campaign.seed, p.campaign.target) != (
            first.engine,
            first.seed,
            first.target,
        ):
            raise BadInput(
                f"{f}: engine {p.campaign.engine}, seed {p.campaign.seed}; {folders[0]} has "
                f"engine {first.engine}, seed {first.seed}: only shards of one campaign merge"
            )
    total = first
    for p in parts[1:]:
        total = total.merged(p.campaign)
    return Fuzzed(total)
