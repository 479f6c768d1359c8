"""The ``matrix`` command: validate reports of several engines as one page."""

from __future__ import annotations

from pathlib import Path

import click

from waiexport.jsonio import BadInput, loads, report_json

from .common import fail_bad_input, read_file, write_file, writable


@click.command("matrix")
@click.argument("reports", nargs=-1, required=True)
@click.option(
    "-o", "--output", required=True, metavar="FILE", help="The HTML page to write (replaced)."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print {engines, operators, written} as canonical JSON."
)
def matrix(reports, output, as_json):
    """Write one self-contained HTML page of operators by engines from REPORTS, each a
    'waiexport validate --json' report (of an engine, or of a pack's results): each cell
    the operator's passed / failed / declined vectors on that engine, a failing cell linking
    to its differences and their histogram, drawn on the page. The page loads nothing from
    elsewhere (no script, no font, no image file). An engine is named as its report names
    it, with the report's file name where two reports name one engine.

    \b
    Exit status: 0 when written; 2 when a report cannot be read or is not a validate
    report, or FILE cannot be written.
    Example: waiexport matrix examples/reports/reference.json examples/reports/ort-cpu.json
    -o /tmp/matrix.html
    """
    from waiexport.conformance.reports import matrix_html

    writable(output)
    named = []
    for path in reports:
        try:
            rep = loads(read_file(path, 256 << 20))
            _check(rep)
        except BadInput as e:
            fail_bad_input(path, "bad-report", e)
        named.append((str(rep.get("engine") or Path(path).stem), rep))
    names = [n for n, _ in named]
    named = [
        (f"{n} ({Path(p).name})" if names.count(n) > 1 else n, rep)
        for (n, rep), p in zip(named, reports)
    ]
    write_file(output, matrix_html(named).encode())
    operators = sorted({f for _, r in named for f in r["files"]})
    if as_json:
        click.echo(
            report_json(
                {"engines": [n for n, _ in named], "operators": operators, "written": output}
            )
        )
    else:
        click.echo(f"{output}: {len(operators)} operators by {len(named)} engines")


def _check(rep) -> None:
    """:class:`BadInput` for what is not a validate report's shape (its files' counts, its
    vectors), naming the first member that is not."""
    if not isinstance(rep, dict):
        raise BadInput("not a JSON object: a validate --json report is expected")
    files, vectors = rep.get("files"), rep.get("vectors")
    if not isinstance(files, dict) or not isinstance(vectors, list):
        raise BadInput("not a validate --json report (it has no files and vectors)")
    for name, counts in files.items():
        if not isinstance(counts, dict) or not all(
            isinstance(counts.get(k), str) and counts[k].isdigit()
            for k in ("pass", "fail", "crashed", "timed_out", "elsewhere", "declined")
        ):
            raise BadInput(f"files.{name[:40]}: counts of each status are expected")
    for k, v in enumerate(vectors):
        if not isinstance(v, dict) or not all(
            isinstance(v.get(f), str) for f in ("file", "id", "status")
        ):
            raise BadInput(f"vectors[{k}]: an object with file, id and status is expected")


command = matrix
