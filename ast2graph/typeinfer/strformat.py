"""``template % values`` and ``template.format(...)`` of traced values, as
strings formatted on the host (``arrays.DeferredStr``).

Requires: nothing of ast2graph but the part format of ``DeferredStr``.
Produces: ``percent_parts(template, operand, ...)`` and
``format_parts(template, args, kwargs, ...)``: ``(parts, values)`` of a
``DeferredStr``, or ``None`` where eager's result (or exception) cannot be
reproduced that way (the caller runs the site in Python).
Invariants: a slot is made only for a traced value whose formatting cannot
fail on the host in a way eager fails at the formatting line: ``%s``/``%r``/
``%a`` and an empty ``format`` spec take any array; a numeric directive or
spec needs a 0-d value and must format every exemplar of the value's eager
kinds (``exemplars(v)``); ``%c`` and ``c`` (whose failure depends on the
value) never make a slot. Static operands are formatted at trace time by
``static(fmt, x)`` (the caller's guarded call) into literal text.
"""

from __future__ import annotations

import re
import string
from typing import Any, Callable

_DIRECTIVE = re.compile(r"%(?P<key>\([^)]*\))?(?P<flags>[-#0 +]*)(?P<width>\*|\d+)?(?P<prec>\.(?:\*|\d*))?"
                        r"[hlL]?(?P<conv>[diouxXeEfFgGcrsa%])")


def _slot_ok(value: Any, check: Callable[[Any], Any], any_shape: bool, exemplars: Callable[[Any], tuple]) -> bool:
    """``check(e)`` succeeds on every exemplar of the value's eager kinds
    (and the value is 0-d unless ``any_shape``)."""
    if not any_shape and value.type.shape:
        return False
    samples = exemplars(value)
    if not samples:
        return False
    for e in samples:
        try:
            check(e)
        except Exception:  # noqa: BLE001 - eager could fail here: not a slot
            return False
    return True


def percent_parts(template: str, operand: Any, traced: Callable[[Any], bool], opaque: Callable[[Any], bool],
                  static: Callable[[str, Any], str], exemplars: Callable[[Any], tuple]) -> tuple | None:
    """``template % operand``. ``traced(x)``: x is a graph value; ``opaque(x)``:
    x holds a trace-time stand-in (it cannot be formatted now)."""
    items = operand if type(operand) is tuple else (operand,)
    parts: list = []
    values: list = []
    pos = k = 0
    for m in _DIRECTIVE.finditer(template):
        literal = template[pos:m.start()]
        if "%" in literal:
            return None   # a directive eager rejects (or one this parser does not know)
        parts.append(literal)
        pos = m.end()
        directive = m.group(0)
        if m.group("key") is not None or "*" in (m.group("width") or "") + (m.group("prec") or ""):
            return None
        if m.group("conv") == "%":
            if directive != "%%":
                return None
            parts.append("%")
            continue
        if k >= len(items):
            return None
        item = items[k]
        k += 1
        if traced(item):
            conv = m.group("conv")
            if conv == "c" or not _slot_ok(item, lambda e: directive % (e,), conv in "sra", exemplars):
                return None
            parts.append(("%", directive))
            values.append(item)
        elif opaque(item):
            return None
        else:
            parts.append(static(directive, item))
    tail = template[pos:]
    if "%" in tail or k != len(items):
        return None
    parts.append(tail)
    return _merge(parts), tuple(values)


def format_parts(template: str, args: tuple, kwargs: dict, traced: Callable[[Any], bool], opaque: Callable[[Any], bool],
                 static: Callable[[str, Any, Callable], str], exemplars: Callable[[Any], tuple]) -> tuple | None:
    """``template.format(*args, **kwargs)``: plain fields only (``{}``,
    ``{0}``, ``{name}``, a conversion and a literal spec); an attribute or
    index in a field, a nested spec, or a numbering eager rejects: None."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return None
    parts: list = []
    values: list = []
    auto = None
    next_index = 0
    for literal, name, spec, conv in fields:
        parts.append(literal)
        if name is None:
            continue
        if "{" in (spec or "") or "." in name or "[" in name:
            return None
        if name == "":
            if auto is False:
                return None
            auto, index = True, next_index
            next_index += 1
        elif name.isdigit():
            if auto is True:
                return None
            auto, index = False, int(name)
        else:
            index = name
        if isinstance(index, int):
            if index >= len(args):
                return None
            item = args[index]
        else:
            if index not in kwargs:
                return None
            item = kwargs[index]
        spec = spec or ""
        if conv not in (None, "s", "r", "a"):
            return None
        converter = {"s": str, "r": repr, "a": ascii}.get(conv)
        if traced(item):
            if spec.endswith("c") or not _slot_ok(item, lambda e: format(converter(e) if converter else e, spec), not spec,
                                                        exemplars):
                return None
            parts.append((conv or "", spec))
            values.append(item)
        elif opaque(item):
            return None
        else:
            parts.append(static(spec, item, converter))
    return _merge(parts), tuple(values)


def _merge(parts: list) -> tuple:
    """Adjacent literal strings joined; empty ones dropped."""
    out: list = []
    for p in parts:
        if isinstance(p, str):
            if not p:
                continue
            if out and isinstance(out[-1], str):
                out[-1] += p
                continue
        out.append(p)
    return tuple(out)
