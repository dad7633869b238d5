"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-6 hunt of fallback reasons). Each capability is user code compared
with the eager run under ``full_graph=True``, with the case that must stay a
fallback checked for its code.

- ``x.tolist()`` of a traced array of static shape: eager's nested lists of
  Python numbers, each a traced Python number in the graph (the structure is
  the shape's, static; only the numbers are the graph's).
"""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check

F32 = jnp.array([0.5, -1.25, 3.0])
F64 = np.array([0.5, -1.25, 3.0])
I64 = np.array([[1, -2], [3, 4]])
B = np.array([True, False, True])


def codes(explanation) -> list[str]:
    return [s.code.value[0] for s in explanation.fallback_sites]


# ------------------------------------------------------------ .tolist()
def p_tolist_append_back(x):
    lst = x.tolist()
    lst.append(10.0)
    arr = np.array(lst)
    return lst, arr, arr.dtype, type(lst[0]).__name__


def p_tolist_nested(m):
    rows = m.tolist()
    return rows, [max(r) for r in rows], rows[1][0] < 2, type(rows[0][1]).__name__


def p_tolist_zero_d(a):
    return a.tolist(), (a * 2).tolist() + 1


def p_tolist_bools(a, b):
    flags = np.isclose(a, b).tolist()
    return flags, all(flags), [not f for f in flags]


def p_tolist_in_loop(x):
    out = []
    for v in x.tolist():
        if v > 0:   # a traced Python float's test: a select
            out.append(v * 2)
        else:
            out.append(-v)
    return out


def p_tolist_zip(x):
    return list(zip(range(3), x.tolist())), dict(enumerate(x.tolist()))


def p_tolist_membership(x, v):
    return v in x.tolist(), len(x.tolist())


def p_tolist_empty(p):
    return p.argmax(axis=1).tolist() if len(p) else []


@pytest.mark.parametrize("fn,args", [
    (p_tolist_append_back, (F32,)),
    (p_tolist_append_back, (F64,)),
    (p_tolist_nested, (I64,)),
    (p_tolist_nested, (I64.astype(np.uint8),)),
    (p_tolist_zero_d, (np.array(3.5),)),
    (p_tolist_zero_d, (np.array(7, dtype=np.int32),)),
    (p_tolist_zero_d, (jnp.array(2.0),)),
    (p_tolist_bools, (F64, np.array([0.5, 1.0, 3.0]))),
    (p_tolist_in_loop, (F32,)),
    (p_tolist_in_loop, (F64,)),
    (p_tolist_zip, (F32,)),
    (p_tolist_membership, (F64, 3.0)),
    (p_tolist_empty, (np.array([[0.1, 0.9], [0.8, 0.2]]),)),
    (p_tolist_empty, (np.empty((0, 2)),)),
])
def test_tolist_is_graph(fn, args):
    check(fn, *args, full_graph=True)


def p_tolist_big(x):
    return x.tolist()


def p_tolist_complex(x):
    return (x * 1j).tolist()


def test_tolist_past_the_limit_falls_back():
    e = check(p_tolist_big, np.arange(300.0), full_graph=False)
    assert codes(e) == ["A2G003"]


def p_tolist_int64_doubled(m):
    return m.tolist()[0] * 2


def test_tolist_int64_arithmetic_keeps_its_exactness_rule():
    e = check(p_tolist_int64_doubled, np.array([2 ** 62, 1]), full_graph=False)
    assert codes(e) == ["A2G016"]   # eager's int is exact: the graph's int64 may not be


def test_tolist_of_complex_falls_back():
    e = check(p_tolist_complex, F64, full_graph=False)
    assert codes(e) == ["A2G003"]


# ------------------------------------------------ formatted strings in lists
def p_log_lines(x):
    log = []
    for step in range(4):
        msg = "step=%d v=%.5f" % (step, x[step % 3])
        if step % 2 == 0:
            log.append(msg)
            print(msg)
    return x * 2, log


def p_join_parts(x, step):
    parts = ["step=%d" % step]
    for name, v in zip(("a", "b"), x):
        parts.append("%s=%.4g" % (name, v))
    parts.insert(0, f"<{x.sum():.2f}>")
    parts.extend([f"{x[0]}", "end"])
    line = " ".join(parts)
    print(line)
    return line, ", ".join((f"{x[1]!r}",))


def p_join_comprehension(x):
    return "|".join([f"{v:+.1f}" for v in x] + ["!"])


@pytest.mark.parametrize("fn,args", [
    (p_log_lines, (F32,)),
    (p_log_lines, (F64,)),
    (p_join_parts, (F32, 3)),
    (p_join_parts, (jnp.array([1e10, -1e-10, 0.0]), 0)),
    (p_join_comprehension, (F64,)),
])
def test_formatted_strings_in_lists_are_graph(fn, args):
    check(fn, *args, full_graph=True)


def p_text_looked_at(x):
    parts = []
    parts.append(f"{x[0]:.1f}")
    return len(parts[0]), parts == ["0.5"]


def p_extend_by_characters(x):
    chars = []
    chars.extend(f"{x[0]}")
    return chars


def p_append_under_traced_if(x):
    parts = []
    if x.sum() > 0:
        parts.append(f"{x[0]}")
    else:
        parts.append(f"{x[1]}")
    return parts


@pytest.mark.parametrize("fn,code", [(p_text_looked_at, "A2G003"), (p_extend_by_characters, "A2G003"),
                                     (p_append_under_traced_if, "A2G004")])
def test_formatted_strings_whose_text_is_needed_fall_back(fn, code):
    e = check(fn, F32, full_graph=False)
    assert code in codes(e)


def p_join_generator(vals):
    return ", ".join(str(v) for v in vals), "|".join("%.2f" % v for v in vals), "-".join(s for s in ("a", "b"))


def p_join_generator_of_numbers(x):
    return ",".join(v for v in x)   # eager: TypeError (an item is not a str)


@pytest.mark.parametrize("args", [([np.float64(0.25), np.float32(2.5), 3, True],), ([],), (F32,)])
def test_join_of_a_generator_of_formatted_strings_is_graph(args):
    check(p_join_generator, *args, full_graph=True)


def test_join_of_a_generator_of_arrays_raises_eagers_error():
    check(p_join_generator_of_numbers, F32, full_graph=False)


# ------------------------------------------------ x[mask] with a traced boolean mask
def p_finite_stats(x):
    f = x[np.isfinite(x)]
    return f.mean(), f.sum(), len(f), (f * 2).min(), np.max(f)


def p_rows_by_label(points, labels):
    return [points[labels == c].mean(0) if np.any(labels == c) else points[0] for c in range(3)]


def p_loop_over_kept(x):
    total = 0.0
    for v in x[x > 0]:
        total = total + v * 2
    return total


def p_mask_2d(m):
    return m[m > 1].sum(), m[m[:, 0] > 0].sum(0), jnp.sum(m[m > 1]), m[m > 0][0]


def p_kmeans(points, k):
    centers = points[:k].copy()
    for it in range(20):
        d = ((points[:, None, :] - centers[None]) ** 2).sum(-1)
        assign = d.argmin(1)
        new = np.array([points[assign == c].mean(0) if np.any(assign == c) else centers[c] for c in range(k)])
        if np.allclose(new, centers):
            break
        centers = new
    return centers, assign, it


PTS = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0], [0.0, 0.2]])


@pytest.mark.parametrize("fn,args", [
    (p_finite_stats, (np.array([1.0, np.nan, 3.0, -np.inf]),)),
    (p_finite_stats, (jnp.array([1.0, 2.0]),)),
    (p_finite_stats, (np.array([np.nan, np.inf]),)),   # nothing kept: eager's ValueError (max of nothing)
    (p_rows_by_label, (PTS, np.array([0, 0, 2, 2, 0]))),
    (p_loop_over_kept, (np.array([1.0, -2.0, 3.0]),)),
    (p_loop_over_kept, (jnp.array([-1.0, -2.0]),)),
    (p_mask_2d, (np.array([[1.0, 2.0], [-3.0, 4.0]]),)),
    (p_mask_2d, (jnp.array([[1.0, 2.0], [-3.0, 4.0]]),)),
    (p_kmeans, (PTS, 2)),
])
def test_boolean_mask_of_traced_values_is_graph(fn, args):
    check(fn, *args, full_graph=True)


def p_mask_returned(x):
    return x[x > 0]


def p_mask_median(x):
    return np.median(x[np.isfinite(x)])


@pytest.mark.parametrize("fn", [p_mask_returned, p_mask_median])
def test_boolean_mask_whose_shape_is_needed_falls_back(fn):
    e = check(fn, np.array([1.0, np.nan, -3.0, 2.0]), full_graph=False)
    assert codes(e) == ["A2G003"]


# ------------------------------------------------ traced keys are hashed by eager: Python
def p_dict_of_zip(x):
    return dict(zip(x.tolist(), range(3)))


def p_dict_of_pairs(x):
    return dict([(int(x[0]), "a")])


def p_dict_update(x):
    d = {}
    d.update([(int(x[1]), 1)])
    return d


def p_dict_setdefault(x):
    d = {}
    d.setdefault(int(x[0]), []).append(1)
    return d


def p_fromkeys(x):
    return dict.fromkeys(x.tolist(), 0)


def p_set_add(x):
    s = set()
    s.add(int(x[0]))
    return s


@pytest.mark.parametrize("fn", [p_dict_of_zip, p_dict_of_pairs, p_dict_update, p_dict_setdefault, p_fromkeys, p_set_add])
def test_traced_numbers_as_keys_fall_back(fn):
    e = check(fn, np.array([3, 1, 3]), full_graph=False)
    assert "A2G003" in codes(e)   # (the set made before the add leaves its segment too: A2G007)


def p_dict_static_keys_traced_values(x):
    d = dict(zip(("a", "b"), x.tolist()))
    d.update([("c", float(x[0]))])
    return d, dict.fromkeys(["k"], x[1])


def test_dict_of_static_keys_and_traced_values_is_graph():
    check(p_dict_static_keys_traced_values, F32, full_graph=True)
