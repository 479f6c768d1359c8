"""How much work this process has done, by kind: WHG1 reads (``read``), bounds passes
(``pass``) and bound-rule evaluations (``rule``). Tests count work this way, never by a clock:
the number of passes an export makes, the rule evaluations a rewrite makes per node."""

from collections import Counter

__all__ = ["CALLS"]

CALLS: Counter = Counter()
