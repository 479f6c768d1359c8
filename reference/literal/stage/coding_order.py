"""E13, literally."""

from ._common import refuse_unless


def run(inp, modes):
    shape, order = inp["shape"], inp["order"]
    refuse_unless(len(shape) == 3 and min(shape) >= 0, "shape")
    c, h, w = shape
    out = []
    for ch in range(c):
        for y in range(h):
            for x in range(w):
                i = (ch * h + y) * w + x
                if order == "raster":
                    out.append(i)
                elif order == "checkerboard":
                    even = (y + x) % 2 == 0
                    if even == bool(inp.get("anchor", False)):
                        out.append(i)
                else:
                    refuse_unless(False, "order")
    if order not in ("raster", "checkerboard"):
        refuse_unless(False, "order")
    return {"indices": out}
