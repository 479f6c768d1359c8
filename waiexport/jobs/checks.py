"""The first job, :func:`check`: does a set fit ``wai-ops/1-npu`` (or a profile, or a target),
and why not."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from waiexport.certificate import certificate_bytes, certify
from waiexport.descriptions import target as described
from waiexport.jsonio import ascii_text, report_json

from .source import Source, member_of

__all__ = ["Checked", "check", "set_digest"]

HEX = set("0123456789abcdef")


def set_digest(value: str | None) -> str | None:
    """``value``, a set's digest for ``set_sha256``: ``None``, or 64 lowercase hexadecimal
    digits (``ValueError`` otherwise)."""
    if value is not None and (len(value) != 64 or set(value) - HEX):
        raise ValueError("64 lowercase hexadecimal digits")
    return value


@dataclass(frozen=True)
class Checked:
    """A set's verdict: its certificate (§8.5) and its bytes, the profile and subset judged,
    whether the set meets them, and, where a target was named, each graph's fit by role."""

    certificate: dict
    certificate_bytes: bytes
    profile: str
    subset: str
    meets: bool
    target: str | None = None
    fits: tuple = ()  # ((role, waiexport.targets.exporter.Fit), ...)

    @property
    def ok(self) -> bool:
        """The command's exit 0: the set meets its profile and subset, or, with a target,
        every graph fits it."""
        return all(f.fits for _, f in self.fits) if self.target else self.meets

    def to_json(self) -> str:
        """``check --json``'s report: {certificate_sha256, graphs: [{name, nodes: [{flags,
        index, op, out_bits}]}], meets, profile, subset, target, verdict}."""
        cert = self.certificate
        return report_json(
            {
                "certificate_sha256": hashlib.sha256(self.certificate_bytes).hexdigest(),
                "graphs": [
                    {
                        "name": gr["name"],
                        "nodes": [
                            {
                                "flags": n["npu_flags"],
                                "index": n["index"],
                                "op": n["op"],
                                "out_bits": [o["bits"] for o in n["out"]],
                            }
                            for n in gr["nodes"]
                        ],
                    }
                    for gr in cert["graphs"]
                ],
                "meets": self.meets,
                "profile": self.profile,
                "subset": self.subset,
                "verdict": cert["verdict"],
                "target": None
                if self.target is None
                else {
                    "name": self.target,
                    "fits": {n: f.fits for n, f in self.fits},
                    "reasons": {n: [ascii_text(r) for r in f.reasons] for n, f in self.fits},
                },
            }
        )


def check(
    sources: Sequence[Source],
    *,
    roles: Sequence[str] = (),
    capability: str | None = None,
    profile: str | None = None,
    subset: str = "npu",
    set_sha256: str | None = None,
    target: str | None = None,
) -> Checked:
    """Load every graph (§10.5 steps 1–8), certify the set (§8) and judge it against
    ``profile`` (default ``acc32`` with subset ``npu``, ``acc64`` with ``full``) and
    ``subset``; with ``target``, whether each graph fits that target after its rewrites and
    mappings (:func:`waiexport.targets.exporter.fit`).

    Parameters
    ----------
    sources : sequence of Source
        The set's graphs: paths, WHG1 bytes, graphs made in Python, or loaded members.
    roles : sequence of str, optional
        Each graph's role in the certificate (default: each file's stem).
    capability, set_sha256 : str, optional
        The certificate's capability and the set's digest (§8.5).
    profile, subset : str
        What the set is judged against: ``acc32`` or ``acc64``; ``npu`` or ``full``.
    target : str, optional
        A target whose fit each graph is judged for too.

    Returns
    -------
    Checked
        The certificate, the verdict and, with a target, each graph's fit.

    Raises
    ------
    Refusal
        A graph refused at load.
    ValueError
        A role count other than the sources', a ``set_sha256`` that is not 64 lowercase
        hexadecimal digits, a role or capability outside printable ASCII (§8.5), an unknown
        profile or subset.
    KeyError
        An unknown target.
    """
    if subset not in ("npu", "full"):
        raise ValueError(f"subset {subset!r}: npu or full")
    if profile not in (None, "acc32", "acc64"):
        raise ValueError(f"profile {profile!r}: acc32 or acc64")
    if roles and len(roles) != len(sources):
        raise ValueError(f"{len(roles)} roles for {len(sources)} files")
    set_digest(set_sha256)
    tgt = None
    if target is not None:
        tgt = described(target)
    profile = profile or ("acc32" if subset == "npu" else "acc64")
    members = [member_of(s, roles[k] if roles else None) for k, s in enumerate(sources)]
    cert = certify(members, capability=capability, set_sha256=set_sha256)
    blob = certificate_bytes(cert)
    v = cert["verdict"]
    fits: tuple = ()
    if tgt is not None:
        from waiexport.targets.exporter import fit  # with a target alone: check starts light

        fits = tuple((m.name, fit(m, tgt, m.name)) for m in members)
    return Checked(
        cert,
        blob,
        profile,
        subset,
        bool(v[profile] and (subset != "npu" or v["npu"])),
        target,
        fits,
    )
