"""A validate report (``validate --json``'s object) for the systems that read one: JUnit XML
(a suite per vector file, a case per vector), a baseline of an engine's known failures and
declines and what a report adds to it, and one self-contained HTML page of operators by
engines. Pure functions of reports; no file is touched here."""

from __future__ import annotations

import html
from xml.etree import ElementTree as ET

from waiexport.jsonio import BadInput, ascii_text

from .validate import NO_CLAIM

__all__ = ["junit_xml", "baseline_of", "read_baseline", "against", "matrix_html"]

#: The statuses a baseline holds: each a failure, or declined.
BASELINED = NO_CLAIM + ("declined",)
#: What a baseline file says it is.
BASELINE = "waiexport-baseline/1"


def _first(v: dict) -> str:
    """A vector's first difference in words, or its reason where it has none."""
    for d in v.get("diffs") or []:
        return (
            f"decode {d['decode']} output {d['output']}: first {d['first']}, expected "
            f"{d['expected']}, got {d['got']}, count {d['count']}, largest {d['largest']}"
        )
    return v.get("reason") or v["status"]


def junit_xml(report: dict) -> bytes:
    """``report`` as JUnit XML: a ``testsuite`` per vector file and a ``testcase`` per vector;
    failed, crashed, timed out and ran elsewhere are ``failure`` (with the first difference),
    declined and not for this engine ``skipped`` (with the reason)."""
    engine = str(report.get("engine", ""))
    top = ET.Element("testsuites", name=f"waiexport validate --engine {engine}")
    by_file: dict = {}
    for v in report["vectors"]:
        by_file.setdefault(v["file"], []).append(v)
    for file, vs in by_file.items():
        suite = ET.SubElement(
            top,
            "testsuite",
            name=file,
            tests=str(len(vs)),
            failures=str(sum(v["status"] in NO_CLAIM for v in vs)),
            skipped=str(sum(v["status"] in ("declined", "skip") for v in vs)),
            errors="0",
        )
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="engine", value=engine)
        for v in vs:
            case = ET.SubElement(suite, "testcase", classname=file, name=v["id"])
            if v["status"] in NO_CLAIM:
                ET.SubElement(case, "failure", type=v["status"], message=_first(v)).text = (
                    v.get("reason") or ""
                )
            elif v["status"] in ("declined", "skip"):
                said = "declined" if v["status"] == "declined" else "not for this engine"
                ET.SubElement(case, "skipped", message=f"{said}: {v.get('reason', '')}")
    return ET.tostring(top, encoding="utf-8", xml_declaration=True)


def baseline_of(report: dict) -> dict:
    """The baseline of ``report``: its engine and every vector that failed or was declined,
    by file, id and status."""
    return {
        "format": BASELINE,
        "engine": report.get("engine"),
        "known": [
            {"file": v["file"], "id": v["id"], "status": v["status"]}
            for v in report["vectors"]
            if v["status"] in BASELINED
        ],
    }


def read_baseline(doc, where: str) -> set:
    """The ``(file, id, status)`` triples a parsed baseline file holds; :class:`BadInput`
    naming the entry for one that is not what :func:`baseline_of` writes."""
    if not isinstance(doc, dict) or doc.get("format") != BASELINE:
        raise BadInput(f"{where}: not a {BASELINE} file (validate --write-baseline writes one)")
    known = doc.get("known")
    if not isinstance(known, list):
        raise BadInput(f"{where}: known: a list of {{file, id, status}} is expected")
    out = set()
    for k, entry in enumerate(known):
        if not (
            isinstance(entry, dict)
            and all(isinstance(entry.get(f), str) for f in ("file", "id", "status"))
        ):
            raise BadInput(f"{where}: known[{k}]: an object {{file, id, status}} of strings")
        out.add((entry["file"], entry["id"], entry["status"]))
    return out


def against(report: dict, known: set) -> tuple[list[str], list[str]]:
    """What ``report`` adds to a baseline's ``known`` triples: each vector that failed or was
    declined and is not known so, in words; and each known one that now passes."""
    new, now = [], {(v["file"], v["id"]): v for v in report["vectors"]}
    for v in report["vectors"]:
        if v["status"] in BASELINED and (v["file"], v["id"], v["status"]) not in known:
            new.append(f"{v['file']}/{v['id']}: {v['status']}, new: {ascii_text(_first(v))}")
    passing = [
        f"{file}/{vid}: now passes (known as {status})"
        for file, vid, status in sorted(known)
        if now.get((file, vid), {}).get("status") == "pass"
    ]
    return new, passing


def _histogram_svg(hist: dict) -> str:
    """A histogram of differences (difference → count) drawn as an inline SVG bar chart."""
    items = sorted(hist.items(), key=lambda kv: int(kv[0]))
    top = max(int(c) for _, c in items)
    width, bar = 24 * len(items) + 8, []
    for k, (diff, count) in enumerate(items):
        h = max(1, round(60 * int(count) / top))
        x = 8 + 24 * k
        bar.append(
            f'<rect x="{x}" y="{70 - h}" width="18" height="{h}" fill="#c0392b">'
            f"<title>{html.escape(diff)}: {html.escape(str(count))}</title></rect>"
            f'<text x="{x + 9}" y="84" font-size="9" text-anchor="middle">'
            f"{html.escape(diff)}</text>"
        )
    return (
        f'<svg width="{width}" height="90" role="img" '
        f'aria-label="histogram of differences">{"".join(bar)}</svg>'
    )


_STYLE = """body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}
td,th{border:1px solid #bbb;padding:4px 8px;text-align:center}th{background:#eee}
td.pass{background:#d5f5d5}td.fail{background:#f7c6c0}td.declined{background:#fdf0c4}
td.none{color:#999}td a{color:inherit}section{margin-top:2em}"""


def matrix_html(reports: list[tuple[str, dict]]) -> str:
    """One self-contained page (no script, no external resource) of operators (vector files)
    by engines, from ``(name, report)`` pairs: each cell its passed / failed / declined
    counts, coloured by the worst; a failing cell links to its vectors' first differences,
    each with its histogram drawn as an SVG."""
    files = sorted({f for _, r in reports for f in r["files"]})
    head = "".join(f"<th>{html.escape(name)}</th>" for name, _ in reports)
    rows, details = [], []
    for f in files:
        cells = []
        for k, (name, r) in enumerate(reports):
            c = r["files"].get(f)
            if c is None:
                cells.append('<td class="none">-</td>')
                continue
            passed = int(c["pass"])
            failed = sum(int(c[s]) for s in NO_CLAIM)
            declined = int(c["declined"])
            kind = "fail" if failed else "pass" if passed else "declined" if declined else "none"
            text = f"{passed} / {failed} / {declined}"
            attrs = (
                f'class="{kind}" data-engine="{html.escape(name)}" '
                f'data-operator="{html.escape(f)}" data-pass="{passed}" '
                f'data-fail="{failed}" data-declined="{declined}"'
            )
            if failed:
                anchor = f"d{k}-{html.escape(f)}"
                text = f'<a href="#{anchor}">{text}</a>'
                details.append(_details(anchor, name, f, r))
            cells.append(f"<td {attrs}>{text}</td>")
        rows.append(f"<tr><th>{html.escape(f)}</th>{''.join(cells)}</tr>")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>waiexport conformance matrix</title><style>{_STYLE}</style></head><body>"
        "<h1>Conformance: operators by engines</h1>"
        "<p>Each cell: passed / failed / declined vectors (failed counts crashed, timed out "
        "and ran elsewhere; a dash: no vector of that operator in the engine's report). "
        "A failing cell links to its differences.</p>"
        f"<table><thead><tr><th>operator</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>{''.join(details)}</body></html>\n"
    )


def _details(anchor: str, engine: str, file: str, report: dict) -> str:
    """The failing vectors of ``file`` on ``engine``: each first difference and histogram."""
    items = []
    for v in report["vectors"]:
        if v["file"] != file or v["status"] not in NO_CLAIM:
            continue
        hist: dict = {}
        for d in v.get("diffs") or []:
            for diff, count in (d.get("histogram") or {}).items():
                hist[diff] = hist.get(diff, 0) + int(count)
        picture = _histogram_svg(hist) if hist else ""
        items.append(
            f"<li><b>{html.escape(v['id'])}</b> ({html.escape(v['status'])}): "
            f"{html.escape(_first(v))}<br>{picture}</li>"
        )
    return (
        f'<section id="{anchor}"><h2>{html.escape(file)} on {html.escape(engine)}</h2>'
        f"<ul>{''.join(items)}</ul></section>"
    )
