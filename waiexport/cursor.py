"""A bounded little-endian reader over bytes (§10: every multi-byte field is little-endian)."""

import numpy as np

__all__ = ["Cursor", "Short"]


class Short(ValueError):
    """Fewer bytes remain than a field needs."""


class Cursor:
    """Reads fields from ``buf[off:end]``; never reads past ``end`` and never trusts a count
    before it is checked against the bytes that remain."""

    def __init__(self, buf: memoryview, off: int = 0, end: int | None = None):
        self.buf = buf
        self.off = off
        self.end = len(buf) if end is None else end

    @property
    def left(self) -> int:
        return self.end - self.off

    def take(self, n: int, what: str) -> memoryview:
        """The next ``n`` bytes, or :class:`Short` naming ``what``."""
        if n > self.left:
            raise Short(f"{what} needs {n} bytes at byte {self.off}, {self.left} remain")
        view = self.buf[self.off : self.off + n]
        self.off += n
        return view

    def uint(self, size: int, what: str) -> int:
        return int.from_bytes(self.take(size, what), "little")

    def sint(self, size: int, what: str) -> int:
        return int.from_bytes(self.take(size, what), "little", signed=True)

    def array(self, count: int, width: int, what: str, signed: bool = True) -> np.ndarray:
        """``count`` integers of ``width`` bytes, as a read-only int64 array."""
        raw = self.take(count * width, what)
        arr = np.frombuffer(raw, dtype=f"<{'i' if signed else 'u'}{width}").astype(np.int64)
        arr.flags.writeable = False
        return arr
