"""Exceptions raised from the graph (issue 15, item 6): a `raise` or an
`assert` under a traced condition is a run-time check, and the call raises
the very exception eager raises -- made by the constructor as written
(keyword-only arguments too), a pre-built instance itself, traced arguments
as eager's kinds -- with eager's traceback: it ends at the user's line,
through the user's inlined calls, without ast2graph's or JAX's frames.
`SystemExit` and `KeyboardInterrupt` reach the caller without a stray log.
Every case against the eager run, called from the same line."""

import logging
import math
import traceback

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from exception_programs import (PREBUILT, CodedError, asserts_call, asserts_compare, asserts_multi_line, asserts_name,
                                asserts_one_line, bare_class, calls_helper, exits, interrupts, keyword_only, multi_line,
                                numpy_arguments, prebuilt, traced_arguments, unbuildable)


X = jnp.ones(3)
RAISERS = [keyword_only, prebuilt, bare_class, traced_arguments, unbuildable, multi_line, calls_helper,
           asserts_compare, asserts_call, asserts_multi_line, asserts_name, asserts_one_line, exits, interrupts]


def _raised(fn, *args):
    """What ``fn(*args)`` raises (called from this one line, so eager's and
    the converted function's tracebacks can be compared in full)."""
    try:
        fn(*args)
    except BaseException as e:  # noqa: BLE001
        return e
    raise AssertionError(f"{fn} raised nothing")


def _same(eager: BaseException, got: BaseException) -> None:
    assert type(got) is type(eager)
    assert got.args == eager.args and [type(a) for a in got.args] == [type(a) for a in eager.args]
    assert got.__dict__ == eager.__dict__
    assert (got.__cause__, got.__context__, got.__suppress_context__) == \
        (eager.__cause__, eager.__context__, eager.__suppress_context__)
    # the whole printed traceback: frames, lines, source and carets
    assert traceback.format_exception(got) == traceback.format_exception(eager)


@pytest.mark.parametrize("fn", RAISERS, ids=[f.__name__ for f in RAISERS])
def test_raises_what_eager_raises(fn):
    static = to_static(fn, full_graph=True)
    assert explain(static)(-X).graph_count == 1
    eager = _raised(fn, X)
    for call in range(2):   # the first call compiles, the second is the fast path
        _same(eager, _raised(static, X))


def test_keyword_only_constructor_and_attributes():
    e = _raised(to_static(keyword_only, full_graph=True), X)
    assert type(e) is CodedError and e.args == ("bad",) and e.code == 3 and e.tags == ["made"]


def test_prebuilt_instance_is_raised_itself():
    static = to_static(prebuilt, full_graph=True)
    with pytest.raises(ValueError) as info:
        static(X)
    assert info.value is PREBUILT
    # raising it again grows its traceback, as eager's does
    PREBUILT.__traceback__ = None
    eager = [len(traceback.extract_tb(_raised(prebuilt, X).__traceback__)) for _ in range(2)]
    PREBUILT.__traceback__ = None
    got = [len(traceback.extract_tb(_raised(static, X).__traceback__)) for _ in range(2)]
    assert got == eager


def test_a_new_instance_per_call():
    static = to_static(keyword_only, full_graph=True)
    first, second = _raised(static, X), _raised(static, X)
    assert first is not second and first.tags is not second.tags
    static = to_static(bare_class, full_graph=True)
    assert _raised(static, X) is not _raised(static, X)


def test_traced_arguments_arrive_as_eager_kinds():
    e = _raised(to_static(traced_arguments, full_graph=True), X)
    assert e.args[0] == "sum is 3.0, max 1.00" and isinstance(e.args[1], jax.Array) and e.args[2] == (3,)
    e = _raised(to_static(numpy_arguments, full_graph=True), np.ones(3))
    assert type(e.args[1]) is np.float64 and type(e.args[2]) is np.bool_


def test_traceback_ends_at_the_users_line():
    e = _raised(to_static(keyword_only, full_graph=True), X)
    last = traceback.extract_tb(e.__traceback__)[-1]
    code = keyword_only.__code__
    line = 'raise CodedError("bad", code=3)'
    assert (last.filename, last.name, last.line) == (code.co_filename, "keyword_only", line)
    assert last.lineno == code.co_firstlineno + 2
    frames = traceback.extract_tb(e.__traceback__)
    assert not any("/jax/" in f.filename or "/ast2graph/" in f.filename for f in frames)
    assert line in "".join(traceback.format_exception(e))


def test_traceback_through_inlined_calls():
    e = _raised(to_static(calls_helper, full_graph=True), X)
    names = [(f.name, f.line) for f in traceback.extract_tb(e.__traceback__)][-2:]
    assert names == [("calls_helper", "y = checked_helper(x) + 1"),
                     ("checked_helper", 'raise CodedError("in helper", code=1)')]


def test_context_is_the_callers():
    def caller(fn):
        try:
            raise LookupError("being handled")
        except LookupError:
            return _raised(fn, X)

    eager, got = caller(keyword_only), caller(to_static(keyword_only, full_graph=True))
    assert type(got.__context__) is LookupError and got.__context__.args == eager.__context__.args
    assert got.__suppress_context__ is False


def test_traceback_filtering_off_keeps_the_frames():
    static = to_static(keyword_only, full_graph=True)
    jax.config.update("jax_traceback_filtering", "off")
    try:
        e = _raised(static, X)
    finally:
        jax.config.update("jax_traceback_filtering", "auto")
    frames = traceback.extract_tb(e.__traceback__)
    assert frames[-1].name == "keyword_only" and any("/ast2graph/" in f.filename for f in frames)


@pytest.mark.parametrize("fn", [exits, interrupts], ids=["SystemExit", "KeyboardInterrupt"])
def test_base_exceptions_without_a_stray_log(fn, capfd, caplog):
    static = to_static(fn, full_graph=True)
    with caplog.at_level(logging.DEBUG):
        for call in range(2):
            with pytest.raises(type(_raised(fn, X))) as info:
                static(X)
            assert info.value.args == _raised(fn, X).args
    out, err = capfd.readouterr()
    assert "callback failed" not in err and "Traceback" not in err
    assert not [r for r in caplog.records if r.exc_info]


def test_under_an_outer_jit_the_error_names_the_exception():
    with pytest.raises(Exception, match="CodedError"):
        jax.jit(to_static(keyword_only, full_graph=True))(X)
    _same(_raised(keyword_only, X), _raised(to_static(keyword_only, full_graph=True), X))


# ----------------------------------------- what cannot be a check runs in Python
def fresh_list_argument(x):
    if x.sum() > 0:
        raise ValueError([1, 2])
    return x + 1


def local_instance(x):
    err = ValueError("made in the call")
    if x.sum() > 0:
        raise err
    return x + 1


def local_coded_instance(x):
    err = CodedError("made in the call", code=7)
    if x.sum() > 0:
        raise err
    return x + 1


@pytest.mark.parametrize("fn", [fresh_list_argument, local_instance, local_coded_instance])
def test_fresh_objects_are_made_per_call(fn):
    """Eager makes a new list (a new exception) on every call: so does the
    call (the raise of a fresh list runs in Python rather than reuse one
    made at trace time; an exception made in the call is made anew by the
    check, with its arguments and attributes)."""
    static = to_static(fn)
    first, second = _raised(static, X), _raised(static, X)
    assert first is not second and type(first) is type(second) is type(_raised(fn, X))
    assert first.args == _raised(fn, X).args and vars(first) == vars(_raised(fn, X))
    if fn is fresh_list_argument:
        assert first.args[0] is not second.args[0]
    np.testing.assert_allclose(static(-X), fn(-X))


def test_side_effect_in_the_message_runs_in_python():
    seen = []

    def note(v):
        seen.append(1)
        return "noted"

    def f(x):
        if x.sum() > 0:
            raise ValueError(note(x))
        return x + 1

    static = to_static(f)
    np.testing.assert_allclose(static(-X), f(-X))
    assert seen == []   # the message is made only when raising, as eager makes it
    with pytest.raises(ValueError, match="noted"):
        static(X)
    assert seen == [1]


def test_traceback_of_an_exception_from_a_host_callback():
    class Loud:
        def __str__(self):
            raise RuntimeError("no text")

    def f(x):
        print(Loud())
        return x + 1

    e = _raised(to_static(f), X)
    assert type(e) is RuntimeError
    assert traceback.extract_tb(e.__traceback__)[-1].name == "__str__"


# ------------------------------ jax.grad through a loop without max_iters
def newton_sqrt(a):
    x = a
    while jnp.abs(x * x - a).max() > 1e-5:
        x = 0.5 * (x + a / x)
    return x


def power(a, n):
    acc = a
    for i in range(n):
        acc = acc * a
    return acc


def _while_sqrt(a):
    """The same loop written for JAX: what the graph must equal."""
    return jax.lax.while_loop(lambda x: jnp.abs(x * x - a).max() > 1e-5, lambda x: 0.5 * (x + a / x), a)


A = jnp.array([2.0, 3.0])


@pytest.mark.parametrize("transform", ["grad", "jit(grad)", "vmap(grad)", "jacrev"])
def test_grad_through_an_unbounded_loop_names_the_loop_and_max_iters(transform):
    f = to_static(newton_sqrt, full_graph=True)
    loss = jax.grad(lambda a: f(a).sum())
    g = {"grad": loss, "jit(grad)": jax.jit(loss), "vmap(grad)": jax.vmap(loss), "jacrev": jax.jacrev(f)}[transform]
    with pytest.raises(ValueError, match=r"`while` loop at .*test_graph_exceptions.py:\d+.*max_iters=N") as info:
        g(jnp.stack([A, A]) if transform == "vmap(grad)" else A)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.name, last.line) == ("newton_sqrt", "while jnp.abs(x * x - a).max() > 1e-5:")
    assert f"test_graph_exceptions.py:{last.lineno}" in str(info.value)


def test_grad_through_a_traced_range_names_the_for_loop():
    f = to_static(power, full_graph=True)
    with pytest.raises(ValueError, match=r"`for` loop at .*max_iters=N"):
        jax.grad(lambda a: f(a, jnp.array(3)).sum())(A)


def test_forward_mode_and_plain_calls_are_unchanged():
    f = to_static(newton_sqrt, full_graph=True)
    np.testing.assert_array_equal(f(A), _while_sqrt(A))
    for got, want in [(jax.jvp(f, (A,), (jnp.ones(2),)), jax.jvp(_while_sqrt, (A,), (jnp.ones(2),))),
                      (jax.jacfwd(f)(A), jax.jacfwd(_while_sqrt)(A)),
                      (jax.jacfwd(jax.jacfwd(f))(A), jax.jacfwd(jax.jacfwd(_while_sqrt))(A)),
                      (jax.vmap(f)(jnp.stack([A, A + 1])), jax.vmap(_while_sqrt)(jnp.stack([A, A + 1]))),
                      (jax.linearize(f, A)[1](jnp.ones(2)), jax.linearize(_while_sqrt, A)[1](jnp.ones(2)))]:
        jax.tree_util.tree_map(np.testing.assert_array_equal, got, want)
    # the marker is compiled away: the compiled graph is the plain while loop's
    assert "forward_only" not in jax.jit(f).lower(A).as_text()
    bounded = to_static(newton_sqrt, max_iters=20, full_graph=True)
    np.testing.assert_allclose(jax.grad(lambda a: bounded(a).sum())(A), jax.jacfwd(_while_sqrt)(A).sum(0), rtol=1e-5)


# --------------------- exceptions of the graph's own checks and host calls: from the user's line
# An op that runs a host callback (a run-time check of a builtin, a print, a
# function run on the host) raises from the user's statement that made it,
# through the user's inlined calls, as eager's traceback runs.

def _int_of_traced(x):
    y = x * 2
    return int(y.max())


def _root(v):
    return math.sqrt(float(v))


def _calls_root(x):
    total = x.sum()
    return _root(total) + 1.0


def _index_by_traced(x, xs):
    i = int(x.sum())
    return xs[i] * x


def _singular(m):
    return np.linalg.inv(m) @ m


def _prints_loud(x):
    print(_Loud())
    return x + 1


class _Loud:
    def __str__(self):
        raise RuntimeError("no text")


@pytest.mark.parametrize("fn, args", [
    (_int_of_traced, (jnp.array([jnp.nan]),)), (_int_of_traced, (jnp.array([jnp.inf]),)),
    (_calls_root, (-X,)), (_index_by_traced, (jnp.array([5.0]), [1.0, 2.0])),
    (_singular, (np.zeros((2, 2)),)), (_prints_loud, (X,)),
])
def test_host_callback_errors_raise_from_the_users_line(fn, args):
    static = to_static(fn, full_graph=True)
    for _ in range(2):   # the converting call and a warm one
        eager, got = _raised(fn, *args), _raised(static, *args)
        assert (type(got), got.args) == (type(eager), eager.args)
        # the user's frames, lines and carets (eager's runs on into JAX's or NumPy's own Python)
        assert _user_frames(got) == _user_frames(eager)


def _user_frames(e: BaseException) -> list:
    return [(f.filename, f.lineno, f.name, f.line, f.colno, f.end_colno) for f in traceback.extract_tb(e.__traceback__)
            if "site-packages" not in f.filename]


def test_an_interpreted_statement_is_a_frame_of_the_users_function():
    def reads_missing_key(d, x):
        y = x + 1
        return d["missing"], y

    _same(_raised(reads_missing_key, {"a": 1}, X), _raised(to_static(reads_missing_key), {"a": 1}, X))
