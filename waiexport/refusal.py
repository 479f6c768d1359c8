"""The one exception a refusal raises (§4, §10.5): the spec's code, where, and why."""

import re

__all__ = ["Refusal", "CODES", "brief"]

_LONG = re.compile(r"\d{41,}")


def brief(text: str) -> str:
    """``text`` with every run of more than 40 digits shown by its first 12 and its length:
    a hostile 4,000-digit value is not echoed whole into an error line."""
    return _LONG.sub(lambda m: f"{m.group()[:12]}...({len(m.group())} digits)", text)


#: The refusal codes this toolchain reports (§4, §10.5, §13; the stream codes of §5E).
CODES = frozenset(
    {
        "model_mismatch",
        "too_large",
        "field_range",
        "geometry_mismatch",
        "payload_malformed",
        "stream_exhausted",
        "stream_noncanonical",
    }
)


class Refusal(Exception):
    """A refusal with the spec's ``code``, a location ``where`` and a one-line ``detail``.

    Parameters
    ----------
    code : str
        One of :data:`CODES`.
    where : str
        The field, byte offset, operator index or vector id that the refusal points at.
    detail : str
        What was wrong, in one line.
    """

    def __init__(self, code: str, where: str, detail: str):
        if code not in CODES:
            raise ValueError(f"unknown refusal code {code!r}")
        detail = brief(str(detail))
        super().__init__(code, where, detail)
        self.code = code
        self.where = where
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.code}: {self.where}: {self.detail}"
