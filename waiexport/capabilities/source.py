"""Reading a lowering's JSON source: every check refuses with the lowering's code and names
the member that failed."""

from __future__ import annotations

from waiexport.refusal import Refusal

from ..jsonio import loads

__all__ = ["Source"]

I64 = (-(1 << 63), (1 << 63) - 1)


class Source:
    """A JSON document whose every failed check is a ``Refusal(code, where, why)``."""

    def __init__(self, data: bytes, where: str, code: str):
        self.code, self.where, self._refusal = code, where, Refusal
        try:
            self.doc = loads(data)
        except ValueError as e:
            # ValueError: an integer past Python's int-string limit (4,300 digits)
            raise self.refuse(where, f"not JSON: {str(e)[:200]}") from None

    def refuse(self, where: str, why: str):
        return self._refusal(self.code, where, why)

    def member(self, obj, name: str, where: str):
        if not isinstance(obj, dict) or name not in obj:
            raise self.refuse(where, f"missing member {name!r}")
        return obj[name]

    def integer(self, value, where: str, lo: int = I64[0], hi: int = I64[1]) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.refuse(where, f"{value!r} is not an integer")
        if not lo <= value <= hi:
            raise self.refuse(where, f"{value} is outside [{lo}, {hi}]")
        return value

    def integers(
        self, value, where: str, n: int | None = None, lo: int = I64[0], hi: int = I64[1]
    ) -> list[int]:
        if not isinstance(value, list):
            raise self.refuse(where, "is not a list")
        if n is not None and len(value) != n:
            raise self.refuse(where, f"has {len(value)} values, expected {n}")
        for i, v in enumerate(value):
            if type(v) is not int or not lo <= v <= hi:  # its place named only on failure
                self.integer(v, f"{where}[{i}]", lo, hi)
        return list(value)

    def nested(self, value, shape: tuple, where: str, lo: int = I64[0], hi: int = I64[1]):
        """A nested list of exactly ``shape``, flattened row-major."""
        if len(shape) == 1:
            return self.integers(value, where, shape[0], lo, hi)
        if not isinstance(value, list) or len(value) != shape[0]:
            raise self.refuse(where, f"is not a list of {shape[0]}")
        return [
            v
            for i, row in enumerate(value)
            for v in self.nested(row, shape[1:], f"{where}[{i}]", lo, hi)
        ]
