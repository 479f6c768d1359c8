""":func:`lower`: a set in a registered form to canonical WHG1 graphs and its certificate
(§13)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from waiexport.capabilities.lower import lower_set
from waiexport.certificate import certificate_bytes
from waiexport.files import output_folder
from waiexport.jsonio import report_json
from waiexport.whg1 import write

__all__ = ["Lowered", "lower", "FORMS"]

#: The registered forms ``lower`` reads.
FORMS = ("int_synth", "jpegai")


@dataclass(frozen=True)
class Lowered:
    """The set's graphs by role, its certificate (§8.5, with its lowering and capability),
    the files they make (``<role>.whg1``, ``certificate.json``) and where they were written
    (empty where no folder was given)."""

    graphs: dict
    certificate: dict
    files: dict
    written: tuple = ()

    def to_json(self) -> str:
        """``lower --json``: {verdict, written: [paths]}."""
        return report_json({"verdict": self.certificate["verdict"], "written": list(self.written)})


def lower(form: str, source: str | Path, output: str | Path | None = None) -> Lowered:
    """Lower ``source`` (an ``int_synth.json`` file, §13.1, or a ``wai.image.jpegai`` bundle
    folder holding ``norm.json`` and ``weights/``, §13.6.1) to its graphs; with ``output``,
    write them as that folder, replaced whole and marked as ``lower``'s output.

    Parameters
    ----------
    form : str
        ``int_synth`` or ``jpegai`` (:data:`FORMS`).
    source : str or Path
        The set's file or bundle folder.
    output : str or Path, optional
        A folder to write the graphs and the certificate to.

    Returns
    -------
    Lowered
        The graphs by role, the certificate, the files and where they were written.

    Raises
    ------
    ValueError
        A form other than :data:`FORMS`.
    Refusal
        The set refused (``payload_malformed`` for int_synth, ``model_mismatch`` for
        jpegai).
    OSError
        ``source`` cannot be read, or ``output`` written (``NotOurs`` for a folder that holds
        what no earlier ``lower`` wrote there).
    """
    if form not in FORMS:
        raise ValueError(f"form {form!r}: one of {', '.join(FORMS)}")
    graphs, cert = lower_set(form, Path(source))
    files = {f"{role}.whg1": write(g) for role, g in graphs.items()}
    files["certificate.json"] = certificate_bytes(cert)
    if output is None:
        return Lowered(graphs, cert, files)
    with output_folder(Path(output), "lower") as work:
        for name, data in files.items():
            (work / name).write_bytes(data)
    return Lowered(graphs, cert, files, tuple(str(Path(output) / name) for name in files))
