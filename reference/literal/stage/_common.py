"""What the literal stage operators share: the refusal and §2's rounding, spelled out."""

from waiexport.reference.stage import StageRefusal

__all__ = ["refuse_unless", "r_half_up", "StageRefusal"]


def refuse_unless(ok: bool, why: str, code: str = "model_mismatch") -> None:
    if not ok:
        raise StageRefusal(code, -1, why)


def r_half_up(p: int, s: int) -> int:
    """§2: ``p`` for ``s = 0``, else ``⌊(p + 2^(s−1)) / 2^s⌋``."""
    if s == 0:
        return p
    return (p + 2 ** (s - 1)) // 2**s
