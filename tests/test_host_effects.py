"""print and logging of traced values: ordered host callbacks inside the one
graph, same text and order as eager, on every call (issue 4: no cliff)."""

import logging

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import to_static
from helpers import check, modes

X = jnp.arange(3.0)
INPUTS = [X, -X - 1, X * 10]
IDS = ["small", "negative", "large"]


def print_in_rolled_loop(x):
    for i in range(30):
        x = x * 1.1
        if i % 10 == 0:
            print("step", i, x)
    return x


def print_in_traced_branch(x):
    if x.sum() > 0:
        print("positive", x.sum())
        x = x * 2
    else:
        print("not positive", x.min(), sep=" | ", end="!\n")
    return x


def print_fstrings(x):
    s = x.sum()
    print(f"sum={s:.3f} max={x.max()} first={x[0]!r} shape={x.shape}")
    return s


def print_in_while_with_break(x):
    n = 0
    while n < 100:
        x = x * 2 + 1
        n += 1
        print(f"iteration {n}: {x.max():.1f}")
        if x.max() > 50:
            print("stop")
            break
    return x, n


def print_in_helper(x):
    def report(tag, v):
        print(tag, v.mean())
        return v
    for k in range(3):
        x = report(f"layer {k}", x + k)
    return x


PROGRAMS = [print_in_rolled_loop, print_in_traced_branch, print_fstrings, print_in_while_with_break,
            print_in_helper]


@pytest.mark.parametrize("fn", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
@pytest.mark.parametrize("x", INPUTS, ids=IDS)
def test_print_is_a_host_callback_in_one_graph(fn, x):
    e = check(fn, x, graphs=1)
    assert ("call", "host callback") in modes(e)
    assert not e.fallback_sites


def test_print_runs_on_every_call(capsys):
    f = to_static(print_in_traced_branch, full_graph=True)
    for _ in range(3):
        f(X)
    assert capsys.readouterr().out == "positive 3.0\n" * 3


LOG = logging.getLogger("ast2graph.test_host_effects")


def log_values(x):
    for i in range(20):
        x = x + 1
        LOG.warning("x is %s at %d", x, 7)
    return x


def test_logging_of_traced_values(caplog):
    with caplog.at_level(logging.WARNING, logger=LOG.name):
        expected = log_values(X)
        eager_records = [r.getMessage() for r in caplog.records]
        caplog.clear()
        got = to_static(log_values, full_graph=True)(X)
        assert [r.getMessage() for r in caplog.records] == eager_records
    assert jnp.allclose(expected, got)


def fstring_escapes(x):
    label = f"total {x.sum()}"
    return label


def test_fstring_of_traced_value_used_as_a_value():
    # formatted on the host per call, from the graph's outputs as eager's objects
    check(fstring_escapes, X, graphs=1)


def opaque_numpy(v):
    data = np.frombuffer(np.asarray(v, dtype=np.float64).tobytes())   # .tobytes(): only on the host
    return np.asarray([float(np.prod(data))] * 3, dtype=np.float32)


def declared_host_call(x):
    for i in range(20):
        y = opaque_numpy(x)  # ast2graph: returns f32[3]
        x = x + y * 1e-3
    return x


def undeclared_host_call(x):
    for i in range(20):
        y = opaque_numpy(x)
        x = x + y * 1e-3
    return x


def test_declared_result_type_makes_a_host_callback_in_the_loop():
    e = check(declared_host_call, X + 1, graphs=1, rtol=1e-4)
    assert ("call", "host callback") in modes(e)


def test_undeclared_opaque_call_falls_back():
    e = check(undeclared_host_call, X + 1, full_graph=False, rtol=1e-4)
    # only the call runs in Python: the loop is Python control flow around it,
    # and `x = x + y * 1e-3` stays compiled (one graph run per iteration)
    loop, call = e.fallback_sites
    assert (loop.code.code, loop.construct, loop.loc.line) == ("A2G003", "for", undeclared_host_call.__code__.co_firstlineno + 1)
    assert (call.code.code, call.construct, call.loc.line) == ("A2G003", "call", opaque_numpy.__code__.co_firstlineno + 1)
    assert e.graph_count == 20 + 1   # 20 iterations, then `return x`


def test_returns_annotation_parser():
    from ast2graph.graphlib.arrays import parse_returns_annotation

    (t,) = parse_returns_annotation("y = f(x)  # ast2graph: returns f32[3, 4]")
    assert t.shape == (3, 4) and str(t.dtype) == "float32"
    assert len(parse_returns_annotation("# ast2graph: returns f32[], i32[2]")) == 2
    assert parse_returns_annotation("y = f(x)  # returns f32[3]") is None
    assert parse_returns_annotation("# ast2graph: returns q7[3]") is None


def numpy_namespaces(x):
    return np.linalg.norm(x), np.fft.fft(x).real, np.sum(x ** 2)


def test_numpy_submodules_on_traced_values_run_as_jnp():
    check(numpy_namespaces, X, graphs=1, rtol=1e-4)


def failing_opaque(v):
    raise ValueError(f"bad value {np.asarray(v).shape}")


def host_call_raises(x):
    for i in range(20):
        y = failing_opaque(x)  # ast2graph: returns f32[3]
        x = x + y
    return x


def test_exception_in_a_host_callback_keeps_its_type_and_message():
    check(host_call_raises, X, graphs=None)  # check compares exception type and message with eager


def debug_print_in_loop(x):
    for i in range(20):
        x = x * 1.1
        if i % 7 == 0:
            jax.debug.print("step {i}: {s}", i=i, s=x.sum())
    return x


def test_jax_debug_print_stays_in_the_graph():
    e = check(debug_print_in_loop, X, graphs=1)
    assert ("call", "host callback") in modes(e)


# ---- NumPy calls that read or write files (or change NumPy's settings) on static values:
# eager does it on every call, so they are never run once at trace time
def _saves(x, path):
    np.save(path, np.zeros(2))
    return x * 2


def _writes_tofile(x, path):
    np.arange(3.0).tofile(path)
    return x + 1


@pytest.mark.parametrize("fn", [_saves, _writes_tofile])
def test_numpy_file_writes_happen_on_every_call(fn, tmp_path):
    import os
    path = str(tmp_path / ("out.npy" if fn is _saves else "out.bin"))   # (np.save adds .npy)
    f = to_static(fn)
    for _ in range(3):
        out = f(jnp.ones(2), path)
        assert os.path.exists(path)   # written by this call, as eager writes it
        os.remove(path)
    np.testing.assert_array_equal(out, fn(jnp.ones(2), path))
    explanation = check(fn, jnp.ones(2), path, full_graph=False)
    assert "A2G002" in {s.code.code for s in explanation.fallback_sites}


def test_report_does_not_run_a_numpy_file_write(tmp_path):
    """``ast2graph report`` surveys the function without running its NumPy I/O."""
    from ast2graph.report import report_path
    target = tmp_path / "written.npy"
    src = tmp_path / "saver.py"
    src.write_text("import numpy as np\n\n\ndef saver(x):\n"
                   f"    np.save({str(target)!r}, np.zeros(2))\n    return x * 2\n")
    reports = report_path(str(src), None)
    assert not target.exists()
    assert any(s.site.code.code == "A2G002" for r in reports for s in r.sites)


def print_after_int_check(x):
    print("start", x.shape)
    k = int(x.sum())
    print("k is", k)          # eager never gets here for a NaN sum: int() raised
    return x * k


def warn_after_checked_raise(x):
    import warnings
    print("before")
    if x.sum() > 5:
        raise ValueError(f"too big: {x.shape}")
    warnings.warn("after the check")
    print("after", x.max())
    return x + 1


@pytest.mark.parametrize("x", [jnp.ones(3), jnp.full(3, jnp.nan), jnp.full(3, jnp.inf)], ids=["fits", "nan", "inf"])
def test_a_print_after_a_check_that_fires_does_not_print(x):
    """The checks and the prints are one chain of ordered host effects, and a
    print or warning after a check that raised in the same call does not run:
    eager stopped at the check (the print of ``int()``'s value printed 0 here)."""
    check(print_after_int_check, x)


@pytest.mark.parametrize("x", [jnp.ones(3), jnp.full(3, 3.0)], ids=["passes", "raises"])
def test_a_warning_after_a_checked_raise_that_fires_is_not_issued(x):
    import warnings
    with warnings.catch_warnings(record=True) as eager_warnings:
        warnings.simplefilter("always")
        check(warn_after_checked_raise, x, full_graph=False, warm=False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            warn_after_checked_raise(x)
        except ValueError:
            pass
        n_eager = len(seen)
        try:
            to_static(warn_after_checked_raise)(x)
        except ValueError:
            pass
    assert len(seen) == 2 * n_eager
