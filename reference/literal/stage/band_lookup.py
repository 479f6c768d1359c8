"""E7, literally."""

from ._common import refuse_unless


def run(inp, modes):
    v, e, table, row = inp["v"], inp["edges"], inp["table"], inp["row"]
    refuse_unless(len(table) >= 1 and 0 <= row < len(table), "row")
    for r in table:
        refuse_unless(len(r) == len(e) + 1, "width")
    band = 0
    for k in range(len(e)):
        if v >= e[k]:
            band += 1
    return {"value": table[row][band]}
