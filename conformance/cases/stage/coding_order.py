"""E13 ``coding_order`` cases: raster, both checkerboards on odd and even sizes, and an
unknown order refused."""

CASES = [
    ("coding_order_raster", {"shape": [2, 3, 2], "order": "raster", "anchor": False}, {}),
    (
        "coding_order_checkerboard_anchor",
        {"shape": [2, 3, 3], "order": "checkerboard", "anchor": True},
        {},
    ),
    (
        "coding_order_checkerboard_rest",
        {"shape": [2, 3, 3], "order": "checkerboard", "anchor": False},
        {},
    ),
    (
        "coding_order_checkerboard_even",
        {"shape": [1, 4, 4], "order": "checkerboard", "anchor": True},
        {},
    ),
    (
        "coding_order_one_element_rest",
        {"shape": [1, 1, 1], "order": "checkerboard", "anchor": False},
        {},
    ),
    ("coding_order_unknown_refused", {"shape": [1, 2, 2], "order": "zigzag", "anchor": False}, {}),
]
