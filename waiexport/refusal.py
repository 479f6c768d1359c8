"""The one exception a refusal raises (§4, §10.5): the spec's code, where, and why."""

__all__ = ["Refusal", "CODES"]

#: The refusal codes this toolchain reports (§4, §10.5, §13).
CODES = frozenset({
    "model_mismatch",
    "too_large",
    "field_range",
    "geometry_mismatch",
    "payload_malformed",
})


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
        super().__init__(code, where, detail)
        self.code = code
        self.where = where
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.code}: {self.where}: {self.detail}"
