""":func:`rewrite`: the exact rewrites a target needs (§9.3, §9.4), and whether the result
fits it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from waiexport.descriptions import target as described
from waiexport.jsonio import ascii_text, report_json
from waiexport.rewrites.manager import rewrite_for
from waiexport.targets.exporter import fit

from .source import Source, member_of

if TYPE_CHECKING:
    from waiexport.rewrites.manager import RewriteOutcome
    from waiexport.targets.exporter import Fit

__all__ = ["Rewritten", "rewrite"]


@dataclass(frozen=True)
class Rewritten:
    """The rewrite's outcome (its changes, the verdict before and after, the rewritten WHG1
    bytes as ``data``), the target's name and whether the result fits it (``fit``: the answer
    export, check --target and validate give)."""

    outcome: RewriteOutcome
    fit: Fit
    target: str

    @property
    def data(self) -> bytes:
        return self.outcome.data

    @property
    def mapped_at_export(self) -> list:
        """``(node, op, limit)`` for each limit the export maps rather than rewrites."""
        return [
            (i, op, lim) for i, op, lims in self.outcome.remaining for lim in lims if lim.mapped
        ]

    def to_json(self) -> str:
        """``rewrite --json``'s report: {after, before, changes, fits, mapped_at_export,
        output_sha256, reasons, target}."""
        o = self.outcome
        return report_json(
            {
                "after": o.after["verdict"],
                "before": o.before["verdict"],
                "changes": [c.as_json() for c in o.changes],
                "fits": self.fit.fits,
                "reasons": [ascii_text(r) for r in self.fit.reasons],
                "mapped_at_export": [
                    {"mapping": ascii_text(lim.words), "node": o.sources[i], "now": i, "op": op}
                    for i, op, lim in self.mapped_at_export
                ],
                "output_sha256": o.after["graphs"][0]["graph_sha256"],
                "target": self.target,
            }
        )

    def lines(self) -> list[str]:
        """What changed node by node, what export maps, why it does not fit, and the verdict
        before and after, in words."""
        o, out = self.outcome, []
        for c in o.changes:
            what = "applied" if c.applied else f"not applied: {c.reason}"
            out.append(f"  {o.changed(c)} {c.op}: {c.rewrite}: {what}")
        if not o.changes:
            out.append("  nothing to rewrite")
        for i, op, lim in self.mapped_at_export:
            out.append(f"  {o.label(i)} {op}: at export: {lim}")
        out += [
            f"  {r}" if r.startswith("does not fit") else f"  does not fit: {r}"
            for r in self.fit.reasons
        ]
        yes = {True: "yes", False: "no"}
        b, a = o.before["verdict"], o.after["verdict"]
        out.append(
            f"acc32 before {yes[b['acc32']]}, after {yes[a['acc32']]}; "
            f"{'fits' if self.fit.fits else 'does not fit'} {self.target}"
        )
        return out


def rewrite(source: Source, *, target: str = "ort-cpu") -> Rewritten:
    """Rewrite ``source`` for ``target`` with the exact rewrites of §9.3 and §9.4, in their
    fixed order, each only where the target needs it, its precondition holds and an acc32
    graph stays acc32.

    Parameters
    ----------
    source : Source
        The graph: a path, WHG1 bytes, a graph made in Python, or a loaded member.
    target : str
        The target's name.

    Returns
    -------
    Rewritten
        The changes, the verdicts before and after, the rewritten bytes and the fit.

    Raises
    ------
    Refusal
        ``source`` refused at load.
    KeyError
        An unknown target.
    EngineUnavailable
        A tool the target's fit needs is not installed.
    """

    tgt = described(target)
    member = member_of(source)
    name = Path(source).stem if isinstance(source, (str, Path)) else member.name
    outcome = rewrite_for(member, tgt, name)
    return Rewritten(outcome, fit(member, tgt, name, outcome=outcome), tgt.name)
