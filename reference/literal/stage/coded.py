"""E4, literally."""


def run(inp, modes):
    return {"coded": inp["v"] > inp["thr"]}
