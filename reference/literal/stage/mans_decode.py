"""E8, literally: the window's three operations, the tables slot by slot, and each group's
steps written out as §5E lists them."""

from ._common import StageRefusal, refuse_unless


def _wrap16(a):
    return (a + 32768) % 65536 - 32768


class _Exhausted(Exception):
    pass


class _W:
    def __init__(self, stream):
        self.M = [0] * 8 + list(stream)
        self.L = len(stream)

    def le64(self, i):
        v = 0
        for j in range(8):
            v += self.M[i + j] * 256**j
        return v

    def init(self):
        self.p = self.L
        self.h = self.le64(self.p)
        if self.h == 0:
            raise _Exhausted
        b = 0
        while 2 ** (b + 1) <= self.h:
            b += 1
        self.b = b
        self.h = self.h - 2**b
        self.s1 = self.read(8)
        self.s2 = self.read(8)
        self.flush()

    def read(self, k):
        if k > self.b:
            raise _Exhausted
        self.b = self.b - k
        r = self.h // 2**self.b
        self.h = self.h - r * 2**self.b
        return r

    def flush(self):
        d = 7 ^ (self.b // 8)
        if d > self.p:
            raise _Exhausted
        self.p = self.p - d
        self.h = self.le64(self.p) % 2 ** (56 + self.b % 8)
        self.b = 56 + self.b % 8

    def state(self, which):
        return self.s1 if which == 1 else self.s2

    def set_state(self, which, t):
        value = ((t // 2**16) | self.read(t // 2**24)) % 256
        if which == 1:
            self.s1 = value
        else:
            self.s2 = value


def _nb_base(nxt):
    nb = 0
    while nxt * 2**nb < 256:
        nb += 1
    return nb, (nxt * 2**nb) ^ 256


def _latent_table(P):
    C = [0]
    for v in P:
        C.append(C[-1] + v)
    T = [None] * 256
    k = 0
    while k < len(P) and C[k] < 256:
        F = [C[j] - C[j] // 2 for j in (k, k + 1)]
        G = [C[j] // 2 + 128 for j in (k, k + 1)]
        sym = k // 2 if k % 2 == 0 else -(k + 1) // 2
        for u in range(F[0], F[1]):
            nxt = P[k] + (u - F[0])
            T[u] = (sym, nxt)
        for u in range(G[0], G[1]):
            nxt = P[k] + (F[1] - F[0]) + (u - G[0])
            T[u] = (sym, nxt)
        k += 1
    out = []
    for sym, nxt in T:
        nb, base = _nb_base(nxt)
        out.append(nb * 2**24 + base * 2**16 + sym % 2**16)
    return out


def _zp():
    Zp = {}
    nb = 0
    for i in range(511, 0, -1):
        if i * 2**nb < 256:
            nb += 1
        Zp[i] = ((i * 2**nb) ^ 256) + 256 * nb
    return Zp


def _sgm(w, inp):
    pmf, bounds, spans = inp["pmf"], inp["bounds"], inp["spans"]
    tables = [_latent_table(P) for P in pmf]
    out = []
    pos = 0
    at = [0]

    def do_in(which, i, sig, syms):
        at[0] = pos + i
        t = tables[sig][w.state(which)]
        w.set_state(which, t)
        syms[i] = _wrap16(t % 2**16)

    def do_out(i, sig, syms):
        at[0] = pos + i
        beta = bounds[sig]
        if syms[i] + beta == 0:
            f = w.read(1)
            v = w.read(3 if f == 1 else 16)
            g = v % 2
            if g == 0:
                syms[i] = _wrap16(v // 2 + beta)
            else:
                syms[i] = _wrap16(-(v // 2) - beta)
            w.flush()

    try:
        for span in spans:
            mask, sigma = span["mask"], span["sigma"]
            n = len(mask)
            syms = [0] * n
            i = 0
            while i + 4 <= n:
                for j, which in ((0, 1), (1, 2), (2, 1), (3, 2)):
                    at[0] = pos + i + j
                    if mask[i + j]:
                        do_in(which, i + j, sigma[i + j], syms)
                at[0] = pos + i + 3
                w.flush()
                for j in range(4):
                    if mask[i + j]:
                        do_out(i + j, sigma[i + j], syms)
                i += 4
            if n % 4 >= 2:
                for j, which in ((0, 1), (1, 2)):
                    at[0] = pos + i + j
                    if mask[i + j]:
                        do_in(which, i + j, sigma[i + j], syms)
                        do_out(i + j, sigma[i + j], syms)
                at[0] = pos + i + 1
                w.flush()
                i += 2
            if n % 2 == 1:
                at[0] = pos + i
                if mask[i]:
                    do_in(1, i, sigma[i], syms)
                    do_out(i, sigma[i], syms)
                at[0] = pos + i
                w.flush()
            out.append(syms)
            pos += n
    except _Exhausted:
        raise StageRefusal("stream_exhausted", at[0], "window") from None
    return out


def _fac(w, inp):
    rows, lengths = inp["rows"], inp["lengths"]
    Zp = _zp()
    Tz = [0] * 256
    out = []
    pos = 0
    last = 0
    try:
        for c, n in zip(rows, lengths):
            prev = 0
            for a in range(63):
                k = c[a] - prev
                for j in range(prev, c[a]):
                    Tz[j] = Zp[k + j - prev] * 2**16 + a
                prev = c[a]
            Tz[255] = Zp[1] * 2**16 + 63
            syms = [0] * n

            def do_in(which, i):
                nonlocal last
                last = pos + i
                t = Tz[w.state(which)]
                w.set_state(which, t)
                syms[i] = t % 2**8

            def do_out(i):
                nonlocal last
                if syms[i] == 63:
                    keep = last
                    last = pos + i
                    syms[i] = w.read(6)
                    last = keep

            i = 0
            while i + 4 <= n:
                do_in(1, i)
                do_in(2, i + 1)
                do_in(1, i + 2)
                do_in(2, i + 3)
                for j in range(4):
                    do_out(i + j)
                w.flush()
                i += 4
            if n % 4 >= 2:
                do_in(1, i)
                do_out(i)
                do_in(2, i + 1)
                do_out(i + 1)
                i += 2
            if n % 2 == 1:
                do_in(1, i)
                do_out(i)
            w.flush()
            out.append(syms)
            pos += n
    except _Exhausted:
        raise StageRefusal("stream_exhausted", last, "window") from None
    return out


def _checks(inp):
    if inp["mode"] == "sgm":
        pmf = inp["pmf"]
        refuse_unless(len(set(len(P) for P in pmf)) <= 1, "width")
        for P in pmf:
            refuse_unless(len(P) >= 1, "width")
            refuse_unless(all(isinstance(v, int) and v >= 0 for v in P), "pmf")
            refuse_unless(sum(P) == 256, "pmf sum")
        for b in inp["bounds"]:
            refuse_unless(isinstance(b, int) and 0 <= b <= 255, "bound")
        for span in inp["spans"]:
            refuse_unless(len(span["mask"]) == len(span["sigma"]), "span")
            for s in span["sigma"]:
                refuse_unless(
                    isinstance(s, int) and 0 <= s < len(pmf) and s < len(inp["bounds"]), "sigma"
                )
    elif inp["mode"] == "fac":
        for c in inp["rows"]:
            refuse_unless(len(c) == 63, "row")
            refuse_unless(all(isinstance(v, int) for v in c), "row")
            refuse_unless(c[0] >= 0 and c[62] <= 255, "row")
            for j in range(62):
                refuse_unless(c[j] <= c[j + 1], "row")
        refuse_unless(len(inp["lengths"]) == len(inp["rows"]), "lengths")
        for n in inp["lengths"]:
            refuse_unless(isinstance(n, int) and n >= 0, "lengths")
    else:
        refuse_unless(False, "mode")


def run(inp, modes):
    _checks(inp)
    w = _W(bytes.fromhex(inp["memory"]))
    try:
        w.init()
    except _Exhausted:
        raise StageRefusal("stream_exhausted", 0, "init") from None
    if inp["mode"] == "sgm":
        return {"symbols": _sgm(w, inp)}
    return {"symbols": _fac(w, inp)}
