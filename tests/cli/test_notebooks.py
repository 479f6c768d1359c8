"""Every notebook is stored with its outputs (its figures readable without running it), runs
from a clean kernel, and prints today what it stored; one that breaks fails CI."""

import re

import pytest

from _helpers import ROOT, needs

nbformat = needs("nbformat", "notebooks")
NotebookClient = needs("nbclient", "notebooks").NotebookClient

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) == 3


def _printed(nb) -> list[str]:
    """What each code cell printed, joined (a kernel splits its stream where it likes),
    timings and model sizes masked (they differ run to run, and with the kernels a CPU's
    probe chooses)."""
    return [
        re.sub(
            r"\d+(\.\d+)? (ms|nodes|bytes)\b",
            r"… \2",
            "".join(
                o.get("text", "") or o.get("data", {}).get("text/plain", "")
                for o in c.outputs
                if o.output_type in ("stream", "execute_result")
            ),
        )
        for c in nb.cells
        if c.cell_type == "code"
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_prints_what_it_stored(path):
    nb = nbformat.read(path, as_version=4)
    stored = _printed(nb)
    assert any(stored) and any(
        "image/png" in o.get("data", {})
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
    ), "stored without its outputs: jupyter execute --inplace notebooks/*.ipynb"
    assert not any(
        o.output_type == "error" for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    assert _printed(nb) == stored


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_uses_the_public_library_only(path):
    code = "\n".join(
        c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"
    )
    assert "import waiexport" in code
    assert not re.search(r"(from|import) waiexport\.", code), "an internal module"
