"""validate's reports for the systems that read them: JUnit XML read back by a JUnit parser,
a baseline that passes with a known failure and fails naming a new one, and the HTML matrix
of four engines' reports parsed back, each cell's counts the reports' own, nothing loaded
from elsewhere (a screenshot by headless Chromium where it is installed)."""

import json
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner

from waiexport.cli import main
from waiexport.conformance.generate import CORPUS

from _helpers import mistaken, needs

VECTORS = CORPUS / "vectors"
FILES = [str(VECTORS / f) for f in ("rescale.jsonl", "relu.jsonl", "conv.jsonl")]
EVEN = lambda real, p, s, mode: real(p, s, "half_even" if mode == "half_up" else mode)  # noqa: E731
FLOOR = lambda real, p, s, mode: real(p, s, "floor")  # noqa: E731


def _validate(monkeypatch, double, *args):
    """``validate`` on the reference with one named mistake in its roundings (``double``),
    or on the reference itself (``None``)."""
    import waiexport.targets.engines as engines

    if double is not None:
        monkeypatch.setattr(engines, "engine", lambda name, **kw: mistaken("mistaken", double))
    return CliRunner().invoke(main, ["validate", *args])


def test_junit_xml_is_read_back_by_a_junit_parser(monkeypatch, tmp_path):
    junitparser = needs("junitparser", "test")
    r = _validate(monkeypatch, EVEN, "--json", "--junit-xml", str(tmp_path / "r.xml"), *FILES)
    assert r.exit_code == 1, r.output
    rep = json.loads(r.stdout)
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "r.xml"))
    suites = {s.name: s for s in xml}
    assert set(suites) == set(rep["files"])
    for name, suite in suites.items():
        cases = list(suite)
        mine = [v for v in rep["vectors"] if v["file"] == name]
        assert [c.name for c in cases] == [v["id"] for v in mine]
        failed = [c for c in cases if any(isinstance(x, junitparser.Failure) for x in c.result)]
        assert len(failed) == int(rep["files"][name]["fail"]) == suite.failures
    fail = next(v for v in rep["vectors"] if v["status"] == "fail")
    case = next(c for c in suites[fail["file"]] if c.name == fail["id"])
    message = case.result[0].message
    assert (
        message.startswith(f"decode {fail['diffs'][0]['decode']} output") and "expected" in message
    )


def test_a_baseline_passes_with_its_known_failures_and_fails_naming_a_new_one(
    monkeypatch, tmp_path
):
    base = tmp_path / "known.json"
    r = _validate(monkeypatch, EVEN, "--write-baseline", str(base), *FILES)
    assert r.exit_code == 1
    known = json.loads(base.read_text())["known"]
    assert known and all(k["status"] == "fail" for k in known)
    again = _validate(monkeypatch, EVEN, "--baseline", str(base), *FILES)
    assert again.exit_code == 0 and f"0 new against {len(known)} known, ok" in again.stderr
    worse = _validate(monkeypatch, FLOOR, "--baseline", str(base), *FILES)
    assert worse.exit_code == 1
    new = [line for line in worse.stderr.splitlines() if ": fail, new: " in line]
    assert new and all(line.startswith("baseline: ") for line in new)
    known_ids = {k["id"] for k in known}
    assert any(line.split("/")[1].split(":")[0] not in known_ids for line in new)


def test_a_bad_baseline_ends_in_one_line_before_any_vector_runs(monkeypatch, tmp_path):
    (tmp_path / "b.json").write_text('{"format": "waiexport-baseline/1", "known": [{"id": 3}]}')
    r = _validate(monkeypatch, None, "--baseline", str(tmp_path / "b.json"), *FILES)
    assert r.exit_code == 2 and "bad-baseline" in r.stderr and "known[0]" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not r.stdout


class _Cells(HTMLParser):
    """Each table cell that names an engine and an operator, with its counts; and every
    attribute that could load a resource."""

    def __init__(self):
        super().__init__()
        self.cells, self.loads = {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "data-engine" in a:
            key = (a["data-engine"], a["data-operator"])
            assert key not in self.cells
            self.cells[key] = (int(a["data-pass"]), int(a["data-fail"]), int(a["data-declined"]))
        self.loads += [v for k, v in attrs if k in ("src", "srcset", "data") or tag == "link"]
        if tag == "script":
            self.loads.append("<script>")


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """The reports of four engines on the vectors: the reference, ort-cpu, tflm, and the
    reference with half_even ties."""
    import waiexport

    out = tmp_path_factory.mktemp("reports")
    engines = {"reference": "reference", "ort-cpu": "ort-cpu", "tflm": "tflm"}
    for name, engine in engines.items():
        if name != "reference":
            needs(
                "onnxruntime" if name == "ort-cpu" else "tflite_micro",
                "ort" if name == "ort-cpu" else "tflite",
            )
        (out / f"{name}.json").write_text(waiexport.validate(FILES, engine=engine).to_json())
    (out / "even.json").write_text(
        waiexport.validate(FILES, engine=mistaken("half-even", EVEN)).to_json()
    )
    return out


def test_the_matrix_has_one_cell_per_operator_and_engine_with_the_reports_counts(reports):
    paths = sorted(reports.glob("*.json"))
    page = reports / "matrix.html"
    r = CliRunner().invoke(main, ["matrix", *map(str, paths), "-o", str(page)])
    assert r.exit_code == 0, r.output
    parsed = _Cells()
    parsed.feed(page.read_text())
    assert not parsed.loads and "http" not in page.read_text()
    want = {}
    for p in paths:
        rep = json.loads(p.read_text())
        for op, c in rep["files"].items():
            failed = sum(int(c[s]) for s in ("fail", "crashed", "timed_out", "elsewhere"))
            want[(rep["engine"], op)] = (int(c["pass"]), failed, int(c["declined"]))
    assert parsed.cells == want and len({e for e, _ in want}) == 4
    even_rescale = parsed.cells[("half-even", "rescale")]
    assert even_rescale[1] > 0 and 'href="#d' in page.read_text() and "<svg" in page.read_text()


def test_a_screenshot_of_the_matrix_by_headless_chromium(reports, tmp_path):
    browser = next(
        (
            shutil.which(b)
            for b in ("chromium", "chromium-browser", "google-chrome")
            if shutil.which(b)
        ),
        None,
    )
    if browser is None:
        pytest.skip("needs headless Chromium (chromium, chromium-browser or google-chrome)")
    page = tmp_path / "m.html"
    CliRunner().invoke(main, ["matrix", *map(str, sorted(reports.glob("*.json"))), "-o", str(page)])
    shot = tmp_path / "m.png"
    subprocess.run(
        [
            browser,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
    )
    assert shot.exists() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_report_that_is_not_one_ends_the_matrix_in_one_line(tmp_path):
    (tmp_path / "r.json").write_text('{"files": {"conv": {"pass": "x"}}, "vectors": []}')
    r = CliRunner().invoke(
        main, ["matrix", str(tmp_path / "r.json"), "-o", str(tmp_path / "m.html")]
    )
    assert r.exit_code == 2 and "bad-report" in r.stderr and "files.conv" in r.stderr
    assert not (tmp_path / "m.html").exists()
