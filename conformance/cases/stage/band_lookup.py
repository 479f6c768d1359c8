"""E7 ``band_lookup`` cases: §13.6.1's edges and table, ``v`` at and beside each edge, both
rows, no edges, and every condition refused."""

EDGES = [1003, 1352, 1937]
TABLE = [[-31, 20, 122, 181], [-80, -31, 71, 130]]

CASES = [
    (
        f"band_lookup_row_{row}_{name}_{e}",
        {"v": e + d, "edges": EDGES, "table": TABLE, "row": row},
        {},
    )
    for row in (0, 1)
    for e in EDGES
    for d, name in ((-1, "below"), (0, "at"))
] + [
    ("band_lookup_past_every_edge", {"v": 10**6, "edges": EDGES, "table": TABLE, "row": 0}, {}),
    ("band_lookup_below_every_edge", {"v": -(10**6), "edges": EDGES, "table": TABLE, "row": 1}, {}),
    (
        "band_lookup_unsorted_edges",
        {"v": 5, "edges": [9, 1, 5], "table": [[0, 1, 2, 3]], "row": 0},
        {},
    ),
    ("band_lookup_no_edges", {"v": 5, "edges": [], "table": [[42]], "row": 0}, {}),
    ("band_lookup_row_past_refused", {"v": 5, "edges": EDGES, "table": TABLE, "row": 2}, {}),
    ("band_lookup_row_negative_refused", {"v": 5, "edges": EDGES, "table": TABLE, "row": -1}, {}),
    (
        "band_lookup_short_row_refused",
        {"v": 5, "edges": EDGES, "table": [[1, 2, 3, 4], [1, 2]], "row": 0},
        {},
    ),
]
