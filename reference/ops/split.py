"""``split`` (§5.10): a run of channels."""


def run(p, ins, ctx):
    """``out[c] = in[start + c]``."""
    return [ins[0][p.start:p.start + p.count]]
