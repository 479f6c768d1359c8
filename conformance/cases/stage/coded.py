"""E4 ``coded`` cases: ``v`` at the threshold and either side of it."""

CASES = [
    (f"coded_{name}", {"v": 382 + d, "thr": 382}, {})
    for d, name in ((-1, "below"), (0, "at"), (1, "above"))
] + [("coded_negative", {"v": -5, "thr": -6}, {})]
