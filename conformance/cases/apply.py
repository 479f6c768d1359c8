"""``apply`` (§5.9) vectors."""

import numpy as np

from waiexport import params as P
from waiexport.builder import GraphBuilder, rq

from ._make import Case, covers


def _graph(shift: int):
    b = GraphBuilder()
    a = b.input(4, -50, 50, max_h=1, max_w=2)
    v = b.input(4, -50, 50, max_h=3, max_w=5)
    b.output(b.op("apply", [a, v], P.Contraction(2, rq(shift=shift, round="half_even"))))
    return b.build()


@covers("3:odd-sizes")
def apply_basic():
    rng = np.random.default_rng(11)
    return Case(
        _graph(3),
        [
            ([rng.integers(-50, 51, (4, 1, 2)), rng.integers(-50, 51, (4, 3, 5))], []),
            ([np.full((4, 1, 2), -50), np.full((4, 3, 5), 50)], []),
        ],
    )


@covers("5:plan:apply")
def apply_matrix_of_the_wrong_size():
    return Case(_graph(0), [([np.ones((4, 1, 1), int), np.ones((4, 3, 5), int)], [])])


CASES = [apply_basic, apply_matrix_of_the_wrong_size]
