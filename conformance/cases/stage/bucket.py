"""E3 ``bucket`` cases: both rules, ``σ`` exactly at each edge and beside it (§14.1 item 6),
below ``e_0``, one edge, equal edges, and every condition refused."""

EDGES = [-10, 0, 7, 7, 20]


def _at_edges(rule: str, edges: list[int]):
    for e in sorted(set(edges)):
        for d, name in ((-1, "below"), (0, "at"), (1, "above")):
            yield (
                f"bucket_{rule}_{name}_edge_{e}".replace("-", "m"),
                {"sigma": e + d, "edges": edges},
                {"bucket": rule},
            )


CASES = [
    *_at_edges("ceil", EDGES),
    ("bucket_ceil_below_e0", {"sigma": -1000, "edges": EDGES}, {"bucket": "ceil"}),
    ("bucket_ceil_above_all", {"sigma": 1000, "edges": EDGES}, {"bucket": "ceil"}),
    ("bucket_ceil_one_edge", {"sigma": 5, "edges": [9]}, {"bucket": "ceil"}),
    ("bucket_ceil_unsorted_edges", {"sigma": 3, "edges": [5, -2, 9, 1]}, {"bucket": "ceil"}),
    ("bucket_ceil_no_edge_refused", {"sigma": 5, "edges": []}, {"bucket": "ceil"}),
    *_at_edges("floor", EDGES),
    ("bucket_floor_below_all", {"sigma": -1000, "edges": EDGES}, {"bucket": "floor"}),
    ("bucket_floor_one_edge", {"sigma": 0, "edges": [0]}, {"bucket": "floor"}),
    ("bucket_floor_no_edge_refused", {"sigma": 0, "edges": []}, {"bucket": "floor"}),
    ("bucket_floor_decreasing_refused", {"sigma": 0, "edges": [1, 3, 2]}, {"bucket": "floor"}),
    ("bucket_unknown_rule_refused", {"sigma": 0, "edges": [1]}, {"bucket": "round"}),
]
