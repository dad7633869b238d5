"""The kinds and texts of jax values in Python code: str/repr/format of
float32 scalars, type() and isinstance of traced arrays, round/max/min
returning whichever operand, .item()/.tolist(), strings built in loops."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program


@program("dtypes", (jnp.array([0.1, 2.5, -1.0]),), (jnp.array([1e-7, 3.0]),))
def fstring_of_float32_elements(x):
    parts = []
    for v in x:
        parts.append(f"{v}")
    s = ",".join(parts)
    print(x[0], str(x[1]), repr(x[0]))
    print(f"{x[0]:.3f} {x.sum()} {x.mean()!s}")
    return s, len(s)


@program("dtypes", (jnp.array([1.0, 2.0]),), (np.array([1.0, 2.0]),))
def type_and_isinstance_of_values(x):
    y = x * 2
    kind = type(y).__name__
    return kind, isinstance(y, jax.Array), isinstance(y, np.ndarray), type(x) is type(y), y.dtype.name


@program("dtypes", (jnp.array([2.5, -1.0]),), (jnp.array([-3.5, 4.0]),))
def round_max_min_pick_an_operand(x):
    a = max(x[0], 0)
    b = min(x[1], 0.5)
    r = round(x[0])
    r2 = round(float(x[0]), 0)
    f = math.floor(x[1])
    return a, b, r, r2, f


@program("dtypes", (jnp.array([1, 2, 3]),), (jnp.array([7]),))
def item_and_tolist(x):
    first = x[0].item()
    as_list = x.tolist()
    rows = list(x)
    total = sum(as_list)
    return first, as_list, rows, total, type(first).__name__


@program("dtypes", (jnp.array([0.5, 1.25, 3.0]),), (jnp.array([2.0]),))
def csv_line_built_in_loop(x):
    line = ""
    for i, v in enumerate(x):
        if i:
            line += ","
        line += f"{float(v):.2f}"
    line += "\n"
    return line, line.count(",")


@program("dtypes", (jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0])), (jnp.array([1.0, 2.0]), jnp.array([1.0, 3.0])))
def array_equality_as_python(a, b):
    same = bool((a == b).all())
    lst = a.tolist() == b.tolist()
    near = jnp.allclose(a, b)
    return same, lst, near, bool(near) and same


@program("dtypes", (np.array([1.5, 2.5], dtype=np.float32),), (np.array([0.1], dtype=np.float32),))
def numpy_float32_scalar_texts(x):
    v = x[0]
    print(v, repr(v), f"{v}", f"{v:.3f}", str(v * 2), float(v))
    w = v + 1
    print(type(w).__name__, w)
    return v, w


@program("dtypes", (jnp.array([3, 4], dtype=jnp.int32),), (jnp.array([-7, 2], dtype=jnp.int32),))
def int32_scalar_python_ops(x):
    a = x[0] // 2
    b = int(x[0]) // 2
    c = x[0] % 3
    d = divmod(int(x[0]), 3)
    e = x[0] / x[1]
    f = -x[0] ** 2
    return a, b, c, d, e, f
