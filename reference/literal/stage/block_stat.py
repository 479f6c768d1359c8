"""E6, literally: every position finds its block and sums it."""

from ._common import r_half_up, refuse_unless


def run(inp, modes):
    x, b, s, lo, hi = inp["x"], inp["b"], inp["s"], inp["lo"], inp["hi"]
    refuse_unless(b >= 1, "b")
    refuse_unless(0 <= s <= 127, "s")
    refuse_unless(lo <= hi, "lo")
    c, h, w = x["shape"]
    data = x["data"]
    out = []
    for ch in range(c):
        for y in range(h):
            for xx in range(w):
                y0, x0 = (y // b) * b, (xx // b) * b
                total = 0
                for yy in range(y0, min(y0 + b, h)):
                    for x1 in range(x0, min(x0 + b, w)):
                        total += data[(ch * h + yy) * w + x1]
                out.append(min(max(r_half_up(total, s), lo), hi))
    return {"out": {"data": out, "shape": [c, h, w]}}
