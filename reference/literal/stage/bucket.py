"""E3, literally."""

from ._common import refuse_unless


def run(inp, modes):
    sigma, e, rule = inp["sigma"], inp["edges"], modes.get("bucket")
    if rule == "ceil":
        refuse_unless(len(e) >= 1, "N")
        n = len(e)
        s2 = max(sigma, e[0])
        count = 0
        for i in range(n - 1):
            if s2 <= e[i]:
                count += 1
        return {"index": (n - 1) - count}
    if rule == "floor":
        refuse_unless(len(e) >= 1, "N")
        for i in range(len(e) - 1):
            refuse_unless(e[i] <= e[i + 1], "order")
        count = 0
        for x in e:
            if x <= sigma:
                count += 1
        return {"index": count}
    refuse_unless(False, "rule")
