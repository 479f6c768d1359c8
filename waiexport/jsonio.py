"""The JSON forms the tools read and write: canonical JSON (§8.5), tensors and decodes (§14.1).

Canonical JSON: no whitespace, object members in ascending byte order of their keys, every
integer a decimal string, printable ASCII strings with only ``"`` and ``\\`` escaped, ``null``
for absent. Reading, integers are accepted as decimal strings or JSON numbers.
"""

from __future__ import annotations

import json
import re

import numpy as np

__all__ = [
    "dumps",
    "report_json",
    "loads",
    "plain",
    "BadInput",
    "parse_int",
    "decimals",
    "parse_tensor",
    "parse_decode",
    "tensor_json",
    "ascii_text",
    "INTEGERS",
    "MAX_DEPTH",
]

_INTEGER = r"(?:0|-?[1-9][0-9]*)"
_DECIMAL = re.compile(_INTEGER + r"\Z")
_DECIMALS = re.compile(rf"(?:{_INTEGER},)*{_INTEGER}\Z")  # joined by commas

#: The deepest nesting a document we read may have: none of ours passes four levels, and
#: every reader walks what it reads, so a deeper one is refused before it is parsed.
MAX_DEPTH = 32
_STRING = re.compile(r'"(?:[^"\\]|\\.)*+"')
#: The types an integer may have here, exactly: Python's and numpy's (a subclass may say it
#: equals what it does not).
INTEGERS = frozenset({int, *(np.dtype(c).type for c in np.typecodes["AllInteger"])})


class BadInput(ValueError):
    """Malformed input to a tool (not a spec refusal): says where and what."""


def loads(text: str | bytes):
    """JSON from ``text``, refused (``ValueError``, as ``json.loads`` refuses) when its
    arrays and objects nest deeper than :data:`MAX_DEPTH` (how deep a reader may recurse
    must not depend on the interpreter's recursion limit of the moment) or an object holds
    a key twice."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode(json.detect_encoding(text), "surrogatepass")
    if "[" in text or "{" in text:  # without escapes, every other '"'-piece is a string
        bare = (
            "".join(text.split('"')[::2]) if "\\" not in text else _STRING.sub("", text)
        ).encode("utf-8", "surrogatepass")
        b = np.frombuffer(bare, np.uint8)
        step = (b == 91).astype(np.int64) + (b == 123) - (b == 93) - (b == 125)
        if step.size and int(np.cumsum(step).max()) > MAX_DEPTH:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return json.loads(text, object_pairs_hook=_unique)


def _unique(pairs: list) -> dict:
    """An object's members, refused (``ValueError``) where a key appears twice: JSON leaves
    it to the reader, and "the last wins" would read another value than a second reader."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise ValueError(f"the key {ascii_text(twice)[:60]!r} appears twice in one object")
    return out


def dumps(value, strict: bool = True) -> str:
    """``value`` as canonical JSON (§8.5). Python and numpy integers become decimal strings.
    With ``strict`` off (reports, not certificates), a character outside printable ASCII is
    written as a ``\\uXXXX`` escape instead of refused."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return f'"{int(value)}"'
    if isinstance(value, str):
        if strict and any(not " " <= ch <= "~" for ch in value):
            raise ValueError(f"{value!r} is not printable ASCII (§8.5)")
        text = value.replace("\\", "\\\\").replace('"', '\\"')
        return '"' + "".join(ch if " " <= ch <= "~" else _escape(ch) for ch in text) + '"'
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0])  # code points: ASCII's order
        return "{" + ",".join(f"{dumps(k, strict)}:{dumps(v, strict)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v, strict) for v in value) + "]"
    raise TypeError(f"{type(value).__name__} has no canonical JSON form")


def report_json(value) -> str:
    """``value``, a command's report, as canonical JSON with every character outside
    printable ASCII escaped (:func:`dumps` without ``strict``): a path in it (``café.onnx``,
    a file name that is not UTF-8) is written, never an error."""
    return dumps(value, strict=False)


_ASCII = {
    "§": "section ",
    "≤": "<=",
    "≥": ">=",
    "≠": "!=",
    "×": "x",
    "·": "*",
    "−": "-",
    "–": "-",
    "—": "-",
    "…": "...",
    "→": "->",
    "←": "<-",
    "²": "^2",
    "⌊": "floor(",
    "⌋": ")",
    "⌈": "ceil(",
    "⌉": ")",
    "′": "'",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "⁺": "+",
    "⁻": "-",
}


def plain(value, where: str = "value", other=None, _path: tuple = ()):
    """``value`` as the values canonical JSON holds (dicts by name, lists, integers, strings,
    booleans, None), each of exactly its type (a tuple and an integer array become lists);
    a value of another type, or nested deeper than :data:`MAX_DEPTH`, becomes ``other(it)``,
    or, without ``other``, ``TypeError`` says where it is."""
    kind = type(value)
    if value is None or kind in (bool, str):
        return value
    if kind in INTEGERS:
        return int(value)
    deep = len(_path) >= MAX_DEPTH
    if kind is np.ndarray and value.dtype.kind in "iu" and not deep:
        return value.tolist()
    if kind is dict and all(type(k) is str for k in value) and not deep:
        return {k: plain(v, where, other, (*_path, f".{k}")) for k, v in value.items()}
    if kind in (list, tuple) and not deep:
        return [plain(v, where, other, (*_path, f"[{i}]")) for i, v in enumerate(value)]
    if other is not None:
        return other(value)
    at = where + "".join(_path)
    raise TypeError(
        f"{at[:80]}: nested deeper than {MAX_DEPTH} levels"
        if deep
        else f"{at[:80]} is {ascii_text(kind.__name__)[:40]}"
    )


def ascii_text(text: str) -> str:
    """``text`` in printable ASCII, for messages that go into canonical JSON: the symbols our
    messages use spelled out, any other character outside printable ASCII as ``?``."""
    return "".join(ch if " " <= ch <= "~" else _ASCII.get(ch, "?") for ch in text)


def _escape(ch: str) -> str:
    """``ch`` as JSON ``\\uXXXX`` escapes (a surrogate pair past U+FFFF)."""
    units = ch.encode("utf-16-be", "surrogatepass")  # a lone surrogate: a file name's byte
    return "".join(f"\\u{units[i] << 8 | units[i + 1]:04x}" for i in range(0, len(units), 2))


def _short(value) -> str:
    """``value`` as a message shows it: at most 40 characters of its ``repr``."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def parse_int(value, where: str) -> int:
    """An integer given as a decimal string or a JSON number (not a float, not a boolean)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise BadInput(f"{where}: {_short(value)} is not an integer")
    if isinstance(value, str):
        if not _DECIMAL.match(value):
            raise BadInput(f"{where}: {_short(value)} is not a decimal integer")
        try:
            return int(value)
        except ValueError as e:  # more digits than Python converts
            raise BadInput(f"{where}: {e}") from None
    return value


def parse_tensor(obj, where: str) -> np.ndarray:
    """A §14.1 tensor ``{"data": [...], "shape": [C, H, W]}`` as an array; the data's length
    is checked against the shape before anything is allocated."""
    if (
        not isinstance(obj, dict)
        or not isinstance(obj.get("data"), list)
        or not isinstance(obj.get("shape"), list)
    ):
        raise BadInput(f'{where}: a tensor is {{"data": [...], "shape": [C, H, W]}}')
    shape = [parse_int(v, f"{where} shape") for v in obj["shape"]]
    if len(shape) != 3 or any(n < 0 for n in shape):
        raise BadInput(f"{where}: shape {shape} is not three sizes")
    if shape[0] * shape[1] * shape[2] != len(obj["data"]):
        raise BadInput(f"{where}: {len(obj['data'])} values for shape {shape}")
    return np.array(_integers(obj["data"], where), dtype=object).reshape(shape)


def _integers(data: list, where: str) -> list:
    """The values of a tensor's ``data``, each a JSON number or a decimal string: all of one
    kind are checked in one pass, anything else value by value, naming the first bad one."""
    kinds = set(map(type, data))
    if kinds <= {int}:  # bool is not int here: type() is exact
        return data
    fast = decimals(data)
    return (
        fast
        if fast is not None
        else [parse_int(v, f"{where} data[{i}]") for i, v in enumerate(data)]
    )


def decimals(values: list) -> list | None:
    """``values``, every one a decimal string, as integers in one pass; ``None`` where one
    is not (the caller then names it)."""
    if set(map(type, values)) != {str} or not _DECIMALS.match(",".join(values)):
        return None
    try:
        return list(map(int, values))
    except ValueError:  # a comma inside a value, or too many digits
        return None


def parse_decode(obj, n_data: int, n_scalars: int, where: str):
    """A §14.1 decode: ``(data inputs, scalar values)``; an ``expect`` member is ignored."""
    if not isinstance(obj, dict) or not isinstance(obj.get("inputs"), list):
        raise BadInput(f'{where}: a decode is an object with "inputs" and "scalars"')
    scalars = obj.get("scalars", [])
    if not isinstance(scalars, list):
        raise BadInput(f'{where}: "scalars" is not a list')
    if len(obj["inputs"]) != n_data or len(scalars) != n_scalars:
        raise BadInput(
            f"{where}: the graph takes {n_data} data inputs and {n_scalars} scalars, "
            f"the decode gives {len(obj['inputs'])} and {len(scalars)}"
        )
    inputs = [parse_tensor(t, f"{where} input {i}") for i, t in enumerate(obj["inputs"])]
    return inputs, [parse_int(v, f"{where} scalar {j}") for j, v in enumerate(scalars)]


def tensor_json(a: np.ndarray) -> dict:
    """An array as a §14.1 tensor (integers stay integers; :func:`dumps` writes them)."""
    return {"data": [int(v) for v in a.reshape(-1)], "shape": list(a.shape)}
