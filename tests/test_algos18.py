"""h-algo18: real-world control-flow programs (textbook and tutorial code), each against eager.

Each fix found by running such programs through ast2graph has its reduced
test here, full_graph=True where the program is one graph.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from benchmarks.algo18.programs import adaptive_rk, conjugate_gradient, dijkstra, lu_doolittle, secant
from helpers import check, check_calls, check_sequence, check_warnings


# ------------------------------------------------ F[i][j] = v: a write through a row (a NumPy view)
def needleman_wunsch(a, b, match, mismatch, gap):
    n, m = len(a), len(b)
    F = np.zeros((n + 1, m + 1))
    for i in range(n + 1):
        F[i][0] = gap * i
    for j in range(m + 1):
        F[0][j] = gap * j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            F[i][j] = max(F[i - 1][j - 1] + s, F[i - 1][j] + gap, F[i][j - 1] + gap)
    return F


def test_needleman_wunsch_rows_written():
    check_calls(needleman_wunsch, [(np.array([0, 1, 3]), np.array([0, 2, 3]), 1, -1, -2),
                                   (np.array([1, 1]), np.array([1, 1, 1]), 2, -1, -1)])


def test_lu_doolittle_rows_written():
    check_calls(lu_doolittle, [(np.array([[4.0, 3.0, 2.0], [6.0, 3.0, 1.0], [2.0, 5.0, 7.0]]),),
                               (np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 1.0], [0.0, 1.0, 5.0]]),)])


def _row_rolled(A, n):
    A = A.copy()
    for i in range(n):          # a traced trip count once n has taken several values
        A[i][1] += i * 2.0
        A[i][0] = A[i][1] - 1
    return A


def test_row_store_traced_row_index():
    A = np.arange(12.0).reshape(4, 3)
    check_calls(_row_rolled, [(A, 1), (A, 2), (A, 3), (A, 4), (A, 0)])


def _row_under_branch(x):
    F = np.zeros((3, 3))
    if x.sum() > 0:
        F[1][1] = 5.0
    else:
        F[2][0:2] = x
    return F


def test_row_store_under_traced_branch():
    check_calls(_row_under_branch, [(jnp.ones(2),), (-jnp.ones(2),)])


def _row_alias_sees(F, v):
    r = F[1]
    col = F[:, 0]
    F[1][0] = v
    F[2][1:] *= 2
    return r, col


def test_row_store_shows_through_views_and_argument():
    """Other views of F (a row, a column) and the caller's array see the write."""
    check_calls(_row_alias_sees, [(np.arange(9.0).reshape(3, 3), 7.0), (np.ones((3, 3)), -1.0)])


def _row_of_view(M, v):
    G = M[1:]
    G[0][0] = v
    return M, G


def test_row_store_into_a_view_of_an_argument():
    check_calls(_row_of_view, [(np.arange(6.0).reshape(3, 2), 9.0), (np.zeros((3, 2)), 2.5)])


def _row_slice_and_newaxis(F):
    F = F.copy()
    F[1:3][0] = 5          # a slice of rows is a view: row 1
    F[None][0][2] = -1     # (deeper: no rewrite, as before)
    F[..., 0][1] = 4
    return F


def test_row_store_basic_slices():
    check(_row_slice_and_newaxis, np.arange(12.0).reshape(4, 3), full_graph=False)


def _row_fancy_copy(F, i):
    F = F.copy()
    F[[0, 1]][0] = 100.0    # a fancy index is a copy: eager writes nothing into F
    F[F > 3][0] = 100.0
    F[i][0] = 7.0
    return F


def test_row_store_fancy_index_is_a_copy():
    check_calls(_row_fancy_copy, [(np.arange(6.0).reshape(3, 2), 1), (np.arange(6.0).reshape(3, 2), 2)],
                full_graph=False)


def _row_scalar_raises(x):
    y = x.copy()
    y[1][0] = 3.0          # y[1] is a NumPy scalar: TypeError
    return y


def test_row_store_of_a_scalar_raises():
    check(_row_scalar_raises, np.arange(3.0), full_graph=False)


def _row_int_cast(F, v):
    F = F.copy()
    F[0][1] = v            # a float into an int array: truncated
    F[1][0] += 2
    return F


def test_row_store_casts_as_numpy():
    check_calls(_row_int_cast, [(np.arange(4).reshape(2, 2), 2.7), (np.arange(4).reshape(2, 2), -1.5)])


def _row_negative_traced(A, i):
    A = A.copy()
    A[i][0] = 99.0
    return A


def test_row_store_negative_and_out_of_bounds_traced_index():
    A = np.zeros((3, 2))
    check_calls(_row_negative_traced, [(A, 0), (A, -1), (A, 2), (A, -3), (A, 1), (A, 3), (A, -4)])


# ------------------------------------------------ a nested function calling a sibling nested function
def test_adaptive_rk_sibling_closures():
    """``step`` closes over its sibling ``f`` (a cell variable): the whole
    call is one segment, so ``f``'s cell is read by no one after it."""
    check_calls(adaptive_rk, [(1.0, 0.0, 2.0, 1e-6), (1.0, 0.0, 0.5, 1e-3)])


def _sibling_traced(x):
    def f(t):
        return jnp.sin(t) * 2

    def g(t):
        return f(t) + 1

    return g(x) + g(2 * x)


def test_sibling_closure_traced():
    check(_sibling_traced, jnp.arange(3.0))


HELD = []


def _closure_escapes(x):
    def f(t):
        return t * 2

    def step(t):
        return f(t) + 1

    HELD.append(step)
    y = step(x)

    def f(t):   # noqa: F811  (rebinds the cell ``step`` reads: the held closure sees the new f)
        return t * 3

    return y


def _closure_returned(x):
    def f(t):
        return t * 2

    def step(t):
        return f(t) + 1

    return step(x), step


def test_escaping_closures_see_their_cells():
    def make():
        HELD.clear()
        return _closure_escapes, HELD

    def call(fn, held):
        return fn(jnp.float32(2.0)), held[-1](jnp.float32(5.0)), len(held)

    check_sequence(make, [call, call], full_graph=False)

    def call2(fn, _):
        y, step = fn(jnp.float32(2.0))
        return y, step(jnp.float32(4.0))

    check_sequence(lambda: (_closure_returned, None), [call2, call2], full_graph=False)


# ------------------------------------------------ an early return in a loop, then in-place writes
def test_conjugate_gradient_early_exit():
    """The loop's return value holds ``x`` on the path that returned; the
    next iterations write ``x`` in place only on the other path."""
    spd = np.array([[4.0, 1.0], [1.0, 3.0]])
    check_calls(conjugate_gradient, [(spd, np.array([1.0, 2.0]), np.zeros(2)), (spd, np.zeros(2), np.zeros(2)),
                                     (np.eye(2), np.array([1.0, 2.0]), np.zeros(2))])


def _return_argument_then_write(x, tol):
    for i in range(4):
        x += 1.0
        if x.sum() > tol:
            return x, i
        x *= 2
    return x, -1


def test_loop_return_of_the_argument_array():
    """The returned object is the caller's array, written in place on every path."""
    check_calls(_return_argument_then_write, [(np.zeros(3), 2.0), (np.zeros(3), 10.0), (np.zeros(3), 1e9)])


def _return_in_while_rolled(x0, n, tol):
    x = x0.copy()
    k = 0
    while k < n:
        x[k % 3] += k
        if x.sum() > tol:
            return x
        x[0] -= 0.5
        k += 1
    return x


def test_loop_return_in_rolled_while():
    x = np.zeros(3)
    check_calls(_return_in_while_rolled, [(x, 5, 3.0), (x, 7, 100.0), (x, 9, 4.0), (x, 2, 1.0)])


def _return_then_finally_writes(x0, tol):
    x = x0.copy()
    try:
        for i in range(3):
            x += 1
            if x.sum() > tol:
                return x
    finally:
        x *= 2     # runs after the return: eager's returned array is doubled
    return x


def test_loop_return_seen_by_finally():
    check_calls(_return_then_finally_writes, [(np.zeros(2), 3.0), (np.zeros(2), 100.0)], full_graph=False)


def _nested_loop_return(x0, tol):
    x = x0.copy()
    for i in range(2):
        for j in range(2):
            x[j] += i + 1
            if x.sum() > tol:
                return x, i, j
        x[1] *= 3
    return x, -1, -1


def test_nested_loop_return_then_writes():
    check_calls(_nested_loop_return, [(np.zeros(2), 2.5), (np.zeros(2), 6.0), (np.zeros(2), 1e3)])


# ------------------------------------------------ `finally:` writing the array a `return` returns
def _finally_doubles_static_return(x0):
    x = x0.copy()
    try:
        x += 1
        return x
    finally:
        x *= 2     # eager returns the doubled array: the object returned is x itself


def _finally_doubles_traced_return(x0, tol):
    x = x0.copy()
    try:
        x += 1
        if x.sum() > tol:
            return x
    finally:
        x[0] *= 2
    return x + 100


def _finally_rebinds_only(x0, tol):
    x = jnp.asarray(x0)
    try:
        x = x + 1
        if x.sum() > tol:
            return x
    finally:
        x = x * 2      # a new array: the returned one is not changed
    return x


def test_finally_writes_the_returned_array():
    """Was a silent wrong result: the converted function returned the array
    as it was before the ``finally:`` block's in-place write."""
    check_calls(_finally_doubles_static_return, [(np.zeros(2),), (np.ones(2),)], full_graph=False)
    check_calls(_finally_doubles_traced_return, [(np.zeros(2), 1.0), (np.zeros(2), 5.0)], full_graph=False)
    check_calls(_finally_rebinds_only, [(np.zeros(2), 1.0), (np.zeros(2), 5.0)])


# ------------------------------------------------ a solver loop that returns, then `raise ... did not converge`
def test_secant_raises_when_not_converged():
    check_calls(secant, [(jnp.float32(1.0), jnp.float32(2.0), 50), (jnp.float32(1.0), jnp.float32(2.0), 2),
                         (jnp.float32(3.0), jnp.float32(3.0), 5), (jnp.float32(1.5), jnp.float32(2.5), 50)])


def _newton_printing(x, a, max_iter):
    for it in range(max_iter):
        x_new = 0.5 * (x + a / x)
        if it % 2 == 0:
            print("iter", it, "x", float(x_new))
        if abs(x_new - x) < 1e-6 * x:
            return x_new, it
        x = x_new
    if max_iter > 100:
        raise ValueError(f"no convergence in {max_iter} iterations, last x={float(x):.3f}")
    raise RuntimeError(f"did not converge: x={float(x):.4f}")


def _newton_messages(x, a, max_iter):
    for it in range(max_iter):
        x_new = 0.5 * (x + a / x)
        if abs(x_new - x) < 1e-6 * x:
            return x_new, it
        x = x_new
    if max_iter > 100:
        raise ValueError(f"no convergence in {max_iter} iterations, last x={float(x):.3f}")
    raise RuntimeError(f"did not converge: x={float(x):.4f}")


NEWTON_CALLS = [(jnp.float32(1.0), jnp.float32(2.0), 20), (jnp.float32(1.0), jnp.float32(2.0), 2),
                (jnp.float32(1.0), jnp.float32(9.0), 3), (jnp.float32(3.0), jnp.float32(9.0), 30),
                (jnp.float32(1.0), jnp.float32(9e9), 101)]


def test_newton_rest_raises_with_messages():
    check_calls(_newton_messages, NEWTON_CALLS)


def test_newton_rest_raises_after_prints():
    """(a segment that prints makes no run-time checks: ordered with the prints, it would not be)"""
    check_calls(_newton_printing, NEWTON_CALLS, full_graph=False)


def _while_solver(x, tol):
    k = 0
    while k < 50:
        x = jnp.cos(x)
        if abs(x - jnp.cos(x)) < tol:
            return x, k
        k += 1
    raise RuntimeError("fixed point iteration did not converge")


def test_while_returns_or_raises():
    check_calls(_while_solver, [(jnp.float32(1.0), 1e-4), (jnp.float32(1.0), 1e-12), (jnp.float32(0.5), 1e-3)])


def _for_else_raises(x, n):
    for i in range(n):
        x = x * 0.5
        if x < 1e-3:
            break
    else:
        raise RuntimeError(f"still {float(x):.3f} after {n} halvings")
    return x, i


def test_for_else_raise_is_a_check():
    check_calls(_for_else_raises, [(jnp.float32(1.0), 20), (jnp.float32(1.0), 3), (jnp.float32(1e-4), 1),
                                   (jnp.float32(1.0), 12)])


def _caller_catches(x, n):
    try:
        return _for_else_raises(x, n)
    except RuntimeError as e:
        return str(e), -1


def test_check_raised_in_a_callee_is_caught():
    check_calls(_caller_catches, [(jnp.float32(1.0), 20), (jnp.float32(1.0), 3)], full_graph=False)


def _rest_not_only_raise(x, n):
    for i in range(n):
        x = x * 0.5
        if x < 1e-3:
            return x
    x = x + 1
    return x


def test_rest_that_returns_is_a_join():
    check_calls(_rest_not_only_raise, [(jnp.float32(1.0), 20), (jnp.float32(1.0), 3)])


# ------------------------------------------------ a traced `and` whose right operand may warn (NumPy fp flags)
def test_dijkstra_and_with_checks_and_fp_flags():
    W = np.array([[0, 4, 1], [4, 0, 2], [1, 2, 0]], dtype=float)
    W2 = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float)    # node 2 unreachable: the early break
    check_calls(dijkstra, [(W, 2), (W2, 0)])


def _and_overflow(x, y, big):
    out = []
    for k in range(3):
        if x[k] > 0 and x[k] * big > y:   # "overflow encountered in scalar multiply" only where x[k] > 0
            out.append(k)
    return len(out)


def test_and_right_operand_warns_only_where_evaluated():
    check_warnings(_and_overflow, np.array([1.0, -1.0, 2.0]), 1.0, 1e308)
    check_warnings(_and_overflow, np.array([-1.0, -1.0, -2.0]), 1.0, 1e308)
    check_warnings(_and_overflow, np.array([1e-10, -1.0, 3.0]), 1.0, 1e300)


# ------------------------------------------------ a Python int summed in a loop of many trips rolls (bounded)
def bounce(pos, vel, steps, dt):
    pos = pos.copy()
    vel = vel.copy()
    bounces = 0
    for step in range(steps):
        pos += vel * dt
        mask = (pos < 0) | (pos > 1)
        vel[mask] *= -1
        bounces += int(mask.sum())
        pos = np.clip(pos, 0, 1)
    return pos, vel, bounces


def _loop_mode(explanation, construct="for"):
    return [(d.mode, d.reason) for d in explanation.decisions if d.construct == construct]


def test_bounce_counter_of_a_mask_rolls():
    """``bounces += int(mask.sum())`` grows by at most the mask's size per
    trip: 30 trips stay far inside int32, so the loop rolls (it unrolled 30
    bodies before: ~18 s of XLA compile)."""
    rng = np.random.default_rng(0)
    P, V = rng.uniform(0, 1, (6, 2)), rng.normal(0, 1, (6, 2))
    e = check(bounce, P, V, 30, 0.05)
    assert _loop_mode(e)[0][0].startswith("lax."), _loop_mode(e)


def _signed_sum(x, n):
    total = 3
    for i in range(n):
        total += int(x[i % 3] > 0) * 5 - 1
        total -= int(x[(i + 1) % 3] < 0)
    return total


def _doubling(x):
    total = 0
    for i in range(40):
        total += total + 1           # doubles every trip: leaves int32; must not roll as a 32-bit int
        total -= int(x[0] > 0)
    return total


def _summed_in_branch(x):
    total = 0
    for i in range(20):
        if x[i % 2] > 0:
            total += int(x[0] > 1)   # (a join keeps no range: unrolled, as before)
    return total


def _too_many_for_the_window(m):
    total = 0
    for i in range(20):
        total += int(m.sum())        # up to 60000 a trip: 1.2e6 after 20, beyond the window
    return total


def test_summed_python_ints_roll_only_when_bounded():
    x = jnp.array([1.0, -1.0, 2.0])
    e = check(_signed_sum, x, 40)
    assert _loop_mode(e)[0][0].startswith("lax."), _loop_mode(e)
    check(_signed_sum, -x, 40)
    e = check(_doubling, jnp.array([1.0]))
    assert _loop_mode(e)[0][0] == "unrolled", _loop_mode(e)
    e = check(_summed_in_branch, jnp.array([2.0, -1.0]))
    assert _loop_mode(e)[0][0] == "unrolled", _loop_mode(e)
    e = check(_too_many_for_the_window, np.ones(60000, bool))
    assert _loop_mode(e)[0][0] == "unrolled", _loop_mode(e)


def _finally_writes_inside_returned_dict(x0):
    x = x0.copy()
    try:
        return {"x": x, "v": x[1:]}
    finally:
        x[1] = -3.0     # the returned dict holds x and a view of it: both see the write


def _finally_in_loop(x0, c):
    x = x0.copy()
    for i in range(3):
        try:
            if x.sum() > c:
                return x
            x += 1
        finally:
            x[0] += 10
    return x


def _finally_writes_another_array(x0):
    x = x0.copy()
    y = x0.copy()
    try:
        return y
    finally:
        x[0] = 5.0      # not what is returned: stays in the graph


def test_finally_writes_seen_through_returned_containers():
    check_calls(_finally_writes_inside_returned_dict, [(np.zeros(3),)], full_graph=False)
    check_calls(_finally_in_loop, [(np.zeros(2), 1.0), (np.zeros(2), 30.0), (np.zeros(2), 12.0)], full_graph=False)
    check_calls(_finally_writes_another_array, [(np.zeros(3),)])


# ------------------------------------------------ an index by a list of data-dependent length
def find_peaks(x):
    peaks = []
    for i in range(1, len(x) - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1]:
            peaks.append(i)
    if not peaks:
        return None
    heights = x[peaks]
    return peaks, heights, int(np.argmax(heights))


def test_index_by_a_data_dependent_list_says_so():
    """Falls back (the result's shape is the list's length), reported as that
    rather than as an IndexError eager would raise (it raises none)."""
    from ast2graph import explain, to_static

    x = np.array([1.0, 3.0, 2.0, 5.0, 4.0, 4.0, 6.0, 1.0])
    check_calls(find_peaks, [(x,), (np.array([1.0, 1.0, 1.0]),)], full_graph=False)
    e = explain(to_static(find_peaks))(x)
    assert [s.code.code for s in e.fallback_sites] == ["A2G003"], str(e)
    assert "length depends on the data" in e.fallback_sites[0].cause
