"""Case factories shared by several operator modules."""

from __future__ import annotations

from waiexport.probes import extremes

from ._make import Case, covers, one, seeded

__all__ = ["basic", "named"]


def named(name: str, fn):
    """``fn`` under the id ``name`` (for cases a factory makes in a loop)."""
    fn.__name__ = fn.__qualname__ = name
    return fn


def basic(
    op: str,
    params=None,
    *,
    shape=(2, 3, 5),
    lo=-100,
    hi=100,
    n_in=1,
    scalars=(),
    scalar_values=(),
    items=(),
    **kw,
):
    """A case: one ``op`` on ``n_in`` inputs of ``shape``, ``check [lo, hi]``, decoded at the
    ends of the range and once at random (odd sizes by default: item 3)."""

    def case():
        g = one(
            op,
            params,
            channels=shape[0],
            lo=lo,
            hi=hi,
            n_in=n_in,
            scalars=scalars,
            size=shape[1:],
            **kw,
        )
        rng = seeded(op)
        return Case(g, extremes(g, lambda i: shape, rng, scalar_values))

    return covers("3:odd-sizes", *items)(named(f"{op}_basic", case))
