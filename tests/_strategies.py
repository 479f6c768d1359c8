"""Hypothesis strategies over the random-graph generator
(:mod:`waiexport.conformance.random_graphs`), so the property tests draw from the same
generator as the differential benchmark and shrink what fails."""

from __future__ import annotations

from hypothesis import strategies as st

from waiexport.conformance import random_graphs as R
from waiexport.conformance.random_graphs import FULL, MID, NARROW, PARAMS

__all__ = ["case", "requantisation", "FULL", "MID", "NARROW", "PARAMS"]


@st.composite
def case(draw, name: str, r=FULL):
    """``(graph, inputs, scalars)`` for one operator ``name`` (:func:`random_graphs.case`)."""
    return R.case(R.Drawn(draw), name, r)


@st.composite
def requantisation(draw, eight_bit: bool = False):
    """``(graph, decodes)``: a requantisation at its ties (:func:`random_graphs.requantisation`)."""
    return R.requantisation(R.Drawn(draw), eight_bit)
