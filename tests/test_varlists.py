"""Lists whose length depends on the data (``typeinfer/varlist.py``).

A list appended to under a traced condition (a traced ``if``, a traced
``break`` after the append, a rolled loop whose later iterations run under
the break flag) is a static prefix plus a buffer and a traced count; rolled
loops carry it with room for every iteration. Each function is compared with
its eager run on inputs that take every path: the break at the first
iteration, in the middle, never; empty lists; indices in and out of range.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check, check_sequence

_rng = np.random.default_rng(0)
X = jnp.asarray(_rng.normal(size=(16, 3)), jnp.float32)
Y = X @ jnp.array([1.0, -2.0, 0.5])
W0 = jnp.zeros(3)
# tolerances: a break before the first step, after some steps, never
TOLS = (1e9, 0.5, 1e-12)
X8 = jnp.array([0.5, -1.0, 2.0, 3.5, -0.25, 1.0, 4.0, 0.0])


def _sites(fn, *args, **options) -> list:
    e = explain(to_static(fn, **options))(*args)
    return [(s.code.code, s.cause) for s in e.fallback_sites]


def _modes(e) -> list[str]:
    return [d.mode for d in e.decisions if d.construct in ("for", "while")]


# ------------------------------------------------------- rolled training loops
def train_history(w, x, y, tol):
    history = []
    for epoch in range(40):   # > unroll_limit: rolls
        loss = jnp.mean((x @ w - y) ** 2)
        history.append(float(loss))
        if loss < tol:
            break
        w = w - 0.1 * x.T @ (x @ w - y) / x.shape[0]
    return w, history


@pytest.mark.parametrize("tol", TOLS)
def test_training_loop_with_history_and_traced_break_rolls(tol):
    e = check(train_history, W0, X, Y, tol)
    assert _modes(e) == ["lax.fori_loop"], e


def train_items(w, x, y, tol):
    losses, pairs, metrics = [], [], []
    for epoch in range(24):
        loss = jnp.mean((x @ w - y) ** 2)
        losses.append(loss)                                   # a jax.Array
        pairs.append((epoch, float(loss)))                    # a tuple: Python int and float
        metrics.append((loss, jnp.linalg.norm(w), w))
        if loss < tol:
            break
        w = w - 0.1 * x.T @ (x @ w - y) / x.shape[0]
    return losses, pairs, metrics, epoch


@pytest.mark.parametrize("tol", TOLS)
def test_items_of_other_kinds_and_trees(tol):
    e = check(train_items, W0, X, Y, tol)
    assert _modes(e) == ["lax.fori_loop"], e


def reads_after(x, tol):
    out = []
    for i in range(20):
        v = float(x[i % 8])
        if v > tol:
            break
        out.append(v)
    n = len(out)
    total = sum(out, 0.0)
    last = out[-1] if out else -1.0
    return n, total, last, bool(out), out


@pytest.mark.parametrize("tol", (-10.0, 0.6, 3.0, 10.0))
def test_len_sum_last_and_truth_after_the_loop(tol):
    check(reads_after, X8, tol)


def index_after(x, tol, k):
    out = []
    for i in range(20):
        v = float(x[i % 8])
        if v > tol:
            break
        out.append(v * 2)
    return out[k]


@pytest.mark.parametrize("tol", (-10.0, 0.6, 10.0))
@pytest.mark.parametrize("k", (0, 1, -1, -2, 5, 19, 20, -21))
def test_index_after_the_loop_raises_eagers_index_error(tol, k):
    check(index_after, X8, tol, k)


def extreme_after(x, tol):
    out = []
    for i in range(20):
        v = float(x[i % 8])
        if v > tol:
            break
        out.append(v)
    return max(out), min(out)


@pytest.mark.parametrize("tol", (-10.0, 0.6, 10.0))
def test_max_min_after_the_loop_raise_eagers_value_error_when_empty(tol):
    check(extreme_after, X8, tol)


def read_inside(x, tol):
    hist = []
    for i in range(20):
        v = float(x[i % 8])
        if hist:
            if abs(v - hist[-1]) < tol:   # the last item read in the body
                break
        hist.append(v)
    return hist, len(hist)


@pytest.mark.parametrize("tol", (0.0, 1.1, 100.0))
def test_last_item_read_inside_the_rolled_loop(tol):
    e = check(read_inside, X8, tol)
    assert _modes(e) == ["lax.fori_loop"], e


def read_inside_and(x, tol):
    hist = []
    for i in range(20):
        v = float(x[i % 8])
        if hist and abs(v - hist[-1]) < tol:   # the read's IndexError check must not run when hist is empty
            break
        hist.append(v)
    return hist


@pytest.mark.parametrize("tol", (0.0, 100.0))
def test_read_under_a_traced_and_runs_only_when_eager_reads(tol):
    check(read_inside_and, X8, tol, full_graph=False)


def append_some(x):
    pos = []
    for i in range(20):
        if x[i % 8] > 0:
            pos.append(x[i % 8])
    return pos, len(pos)


@pytest.mark.parametrize("x", (X8, -jnp.abs(X8) - 1.0, jnp.abs(X8) + 1.0))
def test_append_under_a_traced_if_in_a_rolled_loop(x):
    e = check(append_some, x)
    assert _modes(e) == ["lax.fori_loop"], e


def unconditional(x):
    out = []
    for i in range(20):
        out.append(x[i % 8] * i)
    return jnp.stack(out), len(out)


def test_every_iteration_appends_the_list_has_a_known_length():
    # a static trip count and no traced condition: the rows are the list's items again
    e = check(unconditional, X8)
    assert _modes(e) == ["lax.fori_loop"], e
    jitted = jax.jit(to_static(unconditional))   # under an outer transform too (no traced length)
    np.testing.assert_allclose(jitted(X8)[0], unconditional(X8)[0])


def scan_rows(xs, tol):
    kept = []
    for row in xs:
        s = jnp.sum(row)
        if s > tol:
            kept.append(s)
    return kept


@pytest.mark.parametrize("tol", (-100.0, 0.0, 100.0))
def test_scan_over_rows_appending_some(tol):
    check(scan_rows, X, tol)


def while_max_iters(x):
    out = []
    i = 0
    while x[i % 8] < 3.0:
        out.append(float(x[i % 8]))
        i += 1
    return out


def test_traced_while_with_max_iters_carries_a_tail():
    check(while_max_iters, X8, max_iters=32)


# ------------------------------------------------------ unrolled loops and ifs
EOS = 0
TABLE = jnp.asarray(_rng.normal(size=(6, 6)), jnp.float32).at[:, EOS].set(-5.0).at[3, EOS].set(5.0)


def greedy(table, start, max_len):
    tokens = [start]
    for _ in range(max_len):
        nxt = int(jnp.argmax(table[tokens[-1]]))
        tokens.append(nxt)
        if nxt == EOS:
            break
    return tokens


@pytest.mark.parametrize("args", [(TABLE, 2, 12), (TABLE.at[:, EOS].set(-9.0), 2, 12), (TABLE, 3, 12)])
def test_greedy_decoding_with_a_list_of_tokens(args):
    check(greedy, *args)


def one_branch(x):
    out = []
    if x[0] > 0:
        out.append(x[0])
    if x[1] > 0:
        out.append(x[1] * 2)
    return out


@pytest.mark.parametrize("x", (X8, -X8, jnp.abs(X8)))
def test_appends_on_one_branch_each(x):
    check(one_branch, x)


def nested_in_a_tuple(x):
    out = []
    for i in range(4):
        if x[i] > 0:
            out.append(x[i])
    return {"items": out, "n": len(out)}, (out,)


def test_a_list_leaving_twice_falls_back_with_eagers_identity():
    # eager's one list reached twice: made by Python, not twice from the buffer
    check(nested_in_a_tuple, X8, full_graph=False)
    r = to_static(nested_in_a_tuple)(X8)
    assert r[0]["items"] is r[1][0]


def other_use(x):
    out = []
    for i in range(4):
        if x[i] > 0:
            out.append(float(x[i]))
    return sorted(out)


def test_other_uses_fall_back_with_the_reason():
    check(other_use, X8, full_graph=False)
    sites = _sites(other_use, X8)
    assert sites and sites[0][0] == "A2G003" and "length depends on the data" in sites[0][1], sites


def sum_of_floats(x):
    out = []
    for i in range(4):
        if x[i] > 0:
            out.append(float(x[i]))
    return sum(out)


@pytest.mark.parametrize("x", (X8, -jnp.abs(X8) - 1.0))
def test_sum_whose_empty_result_is_an_int_falls_back(x):
    # sum([]) is the int 0, a sum of floats a float: eager's kind depends on the length
    check(sum_of_floats, x, full_graph=False)


def mixed_items(x):
    out = []
    for i in range(4):
        if x[i] > 0:
            out.append(x[i])
        else:
            out.append(float(x[i]))
    return out


def test_items_of_two_kinds_leave_through_python():
    check(mixed_items, X8, full_graph=False)


def dict_items(x):
    out = []
    for i in range(20):
        if x[i % 8] > 0:
            out.append({"v": x[i % 8]})
    return out


def test_dict_items_keep_their_identity_in_python():
    # a dict in the list is eager's object (another name may change it): not rebuilt from rows
    check(dict_items, X8, full_graph=False)


# ------------------------------------------------------------ outside lists
def _world_log():
    log: list = []

    def fn(w, x, y, tol):
        for epoch in range(30):
            loss = jnp.mean((x @ w - y) ** 2)
            if loss < tol:
                break
            log.append(float(loss))
            w = w - 0.1 * x.T @ (x @ w - y) / x.shape[0]
        log.append("done")
        return w

    return fn, log


def test_outside_list_appended_in_a_rolled_loop_with_a_break():
    def step(tol, clear=False):
        def run(fn, log):
            if clear:
                log.clear()
            log.append("call")
            return fn(W0, X, Y, tol), list(log)
        return run

    static = check_sequence(_world_log, [step(1e9), step(0.5), step(1e-12, clear=True), step(0.5)])
    e = explain(static)(W0, X, Y, 0.5)
    assert e.graph_count == 1 and not e.fallback_sites, e


class Model:
    def __init__(self):
        self.history = []

    def fit(self, x):
        for i in range(20):
            v = x[i % 8]
            if v > 0:
                self.history.append(v)
        return len(self.history)


def test_attribute_list_appended_under_a_traced_if():
    def make():
        m = Model()
        return m.fit, m

    def step(x):
        def run(fn, m):
            return fn(x), list(m.history)
        return run

    check_sequence(make, [step(X8), step(-X8), step(X8)], full_graph=False)


def test_outside_list_under_a_traced_if_at_the_top_level():
    def make():
        log: list = []

        def fn(x):
            if x[0] > 0:
                log.append(x[0])
            else:
                log.append(-x[1])
                log.append(x[1])
            return x[2]

        return fn, log

    def step(x):
        def run(fn, log):
            return fn(x), list(log)
        return run

    check_sequence(make, [step(X8), step(-X8), step(X8)])


def moving_window(x, k=3):
    out = []
    window = []
    for v in x:   # 20 rows: rolling is tried first (the list grows), then it unrolls (pop)
        window.append(v)
        if len(window) > k:
            window.pop(0)
        out.append(sum(window) / len(window))
    return np.array(out)


@pytest.mark.parametrize("x", (np.linspace(-1.0, 2.0, 20), jnp.linspace(-1.0, 2.0, 20)), ids=("numpy", "jax"))
def test_a_loop_that_cannot_roll_unrolls_on_the_lists_as_they_were_before_it(x):
    """A failed roll put back what the list held before the loop (it kept the
    buffer the attempt made: len(window) was traced in the unrolled loop and
    window.pop(0) fell back; the corpus's moving_average_window)."""
    check(moving_window, x)


# --- an outside list appended to in several traced constructs, read afterwards ---
# Each traced construct's appends are one pending list (writeback._shadow); a
# read after two of them saw each as one item, so ``len`` counted a whole
# construct's appends as 1 (an unrolled loop over a traced ``if``: 4 for 3 on
# the second call of a model whose history was not empty).

class Recorder:
    def __init__(self, first=()):
        self.history = list(first)

    def fit(self, x):
        for i in range(3):
            v = x[i]
            if v > 0:
                self.history.append(v)
        return len(self.history)


def _record(x):
    def run(fn, m):
        return fn(x), list(m.history)
    return run


@pytest.mark.parametrize("first", [(), (jnp.float32(7.0),)])
def test_outside_list_appended_in_an_unrolled_loop_then_read(first):
    def make():
        m = Recorder(first)
        return m.fit, m

    x3 = X8[:3]
    check_sequence(make, [_record(x3), _record(-x3), _record(x3), _record(jnp.zeros(3))], full_graph=False)


LOG8: list = []


def _log_step(x):
    """A call of ``fn`` on ``x``, then what the list holds."""
    def run(fn, log):
        return fn(x), list(log)
    return run


@pytest.mark.parametrize("indexed", [False, True])
def test_module_list_appended_in_two_traced_ifs_then_read(indexed):
    # len() is served in the graph; an index into the global runs in Python, after the effects
    def make():
        LOG8.clear()
        LOG8.append(jnp.float32(1.0))

        def fn(x):
            if x[0] > 0:
                LOG8.append(x[0])
            if x[1] > 0:
                LOG8.append(x[1])
                LOG8.append(x[2])
            LOG8.append(x[3])
            if indexed:
                return len(LOG8), LOG8[-2], LOG8[1]
            return len(LOG8)

        return fn, LOG8

    check_sequence(make, [_log_step(X8), _log_step(-X8), _log_step(X8[::-1]), _log_step(X8)],
                   full_graph=not indexed)


def test_outside_list_extended_under_traced_ifs_then_read():
    def make():
        LOG8.clear()

        def fn(x):
            for i in range(4):
                if x[i] > 0:
                    LOG8.extend([x[i], 2 * x[i]])
            return len(LOG8)

        return fn, LOG8

    check_sequence(make, [_log_step(X8), _log_step(-X8), _log_step(X8)], full_graph=False)


def test_outside_list_read_under_a_traced_if_after_traced_appends():
    def make():
        LOG8.clear()

        def fn(x):
            if x[0] > 0:
                LOG8.append(x[0])
            if x[1] > 0:
                LOG8.append(x[1])
            if x[2] > 0:
                return len(LOG8)
            return -1

        return fn, LOG8

    check_sequence(make, [_log_step(X8), _log_step(-X8), _log_step(X8)], full_graph=False)


# --- `+` of lists whose length depends on the data: one list of rows (varlist.extend_rows) ---
def _kept(x):
    a = []
    for i in range(4):
        if x[i] > 0:
            a.append(x[i])
    return a


def concat_front(x):
    b = [x[0]] + _kept(x)
    return len(b), b[0], b[-1], sum(b)


def concat_two_tails(x):
    a, c = _kept(x), _kept(-x)
    d = a + c
    return len(d), d[-1] if d else None, max(d) if d else None, a + a


def concat_back(x):
    e = _kept(x) + [x[3], x[2]]
    return len(e), e[-1], e[-2], e


@pytest.mark.parametrize("fn", (concat_front, concat_two_tails, concat_back))
@pytest.mark.parametrize("x", (X8[:4], -X8[:4], jnp.array([1.0, 2.0, 3.0, 4.0]), jnp.zeros(4)))
def test_lists_of_data_dependent_length_concatenated(fn, x):
    check(fn, x, full_graph=True)


def extended(x):
    b = [x[0]]
    b.extend(_kept(x))
    b.extend([x[1]])
    a = _kept(-x)
    a.extend(_kept(x))
    a.append(x[2])
    return len(b), b[-1], len(a), a[-1], a[0], a[1] if len(a) > 1 else None


@pytest.mark.parametrize("x", (X8[:4], -X8[:4], jnp.array([1.0, 2.0, 3.0, 4.0])))
def test_list_extended_by_a_list_of_data_dependent_length(x):
    check(extended, x, full_graph=True)
