"""What ``waiexport check`` prints for a person: the verdict per profile, why a set is outside
``wai-ops/1-npu``, and per node its widths, ``mac`` operands and flags (§8.5, §9.2, §9.4)."""

from __future__ import annotations

from waiexport.optable import info

__all__ = ["render_check", "FLAG_REWRITES", "REASON_WORDS"]

#: For each §9.2 flag, the §9.4 rewrite that addresses it, or what a unit must support.
FLAG_REWRITES = {
    "rq_post_bias": "§9.4 post bias → pre bias b·2^s/m (floor, half_up, or half_even with an "
    "even b; m must divide b·2^s)",
    "rq_neg_mult": "§9.4 negative multiplier → positive, with that channel's weights and pre "
    "bias negated (conv, conv_transpose only)",
    "rq_shift_range": "§9.4 shift rescaling: m·2^k with s + k, or m/2^k with s − k when 2^k "
    "divides m",
    "rq_floor_mult": "none: a unit must support floor rounding with a multiplier",
    "rq_half_even": "none: a unit must support half_even rounding",
    "lut16": "none: a unit must support a 65,536-entry table lookup",
    "chscale": "none: a unit must support a multiplier row chosen at run time",
    "state_add": "none: a unit must keep a value across decodes",
}

#: The words for each reason of §8.5's closed vocabulary.
REASON_WORDS = {
    "acc32": "the set does not meet acc32",
    "conv_groups": "a conv whose groups is neither 1 nor depthwise",
    "crop_scalar": "a crop whose window comes from a scalar, so its shape depends on a value",
}


def _failure(f: dict) -> str:
    where = f"{f['where']} {f['index']} of {f['graph']}"
    if f["key"] == "saturated":
        return f"{where}: an interval passed 2^255 (saturated)"
    if f["key"] == "range":
        return f"{where}: its declared range needs {f['bits']} bits"
    if f["key"] == "policy.check":
        return f"{where}: a check policy inside the graph"
    if "bits" in f:
        return f"{where}: {f['key']} needs {f['bits']} bits"
    return f"{where}: parameter condition {f['key']} fails (§7.2)"


def _reason_nodes(reason: str, graph: dict) -> list[str]:
    def uses(node):
        if reason.startswith("op:"):
            return node["op"] == reason[3:]
        return {"conv_groups": "conv", "crop_scalar": "crop"}.get(reason) == node["op"]

    return [f"node {n['index']} ({n['op']}) of {graph['name']}" for n in graph["nodes"] if uses(n)]


def render_check(cert: dict, profile: str, subset: str) -> str:
    """The report for a certificate, checked against ``profile`` and ``subset``."""
    v = cert["verdict"]
    yes = {True: "yes", False: "no"}
    lines = [
        f"verdict: acc64 {yes[v['acc64']]}, acc32 {yes[v['acc32']]}, wai-ops/1-npu {yes[v['npu']]}"
    ]
    for p in ("acc64", "acc32"):
        if not v[p]:
            lines.append(f"  {p} first failure: {_failure(v[p + '_first_failure'])}")
    if v["npu_reasons"]:
        lines.append("outside wai-ops/1-npu because:")
    for reason in v["npu_reasons"]:
        if reason.startswith("op:"):
            words = f"{reason[3:]} is not in the subset: {info(reason[3:]).npu_reason}"
        else:
            words = REASON_WORDS[reason]
        nodes = [n for g in cert["graphs"] for n in _reason_nodes(reason, g)]
        lines.append(f"  {reason}: {words}" + (f" ({', '.join(nodes)})" if nodes else ""))
    for g in cert["graphs"]:
        lines.append(f"graph {g['name']} (sha256 {g['graph_sha256'][:16]}…):")
        lines.append("  node  op               out bits  fits          mac (input × weight bits)")
        for n in g["nodes"]:
            out_bits = max(int(o["result"]["bits"]) for o in n["out"])
            line = (
                f"  {n['index']:>4}  {n['op']:<16} {out_bits:>3} "
                f"{'≤' if out_bits <= 32 else '>'}32   {','.join(n['fits']) or '-':<12}"
            )
            if "mac" in n:
                line += f"  {'/'.join(map(str, n['mac']['a_bits']))}" + (
                    f" × {n['mac']['w_bits']}" if "w_bits" in n["mac"] else ""
                )
            lines.append(line.rstrip())
            for flag in n["npu_flags"]:
                lines.append(f"        flag {flag}: {FLAG_REWRITES[flag]}")
    meets = v[profile] and (subset != "npu" or v["npu"])
    target = profile + (" and wai-ops/1-npu" if subset == "npu" else "")
    lines.append(f"{'meets' if meets else 'does not meet'} {target}")
    return "\n".join(lines)
