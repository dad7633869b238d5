"""Nothing of ast2graph's reaches the user's program (issue 15, items 4 and 5).

Every value that leaves ast2graph's machinery into Python the user can see
(a result, a printed line, a string, a library call, a statement that runs in
Python, an outside list) is eager's object, or the site falls back first; an
exception of ast2graph's own is never reported as the user's code raising.
Every test compares with the eager run of the same function.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import sys
import textwrap
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from ast2graph.fallback.sites import FallbackCode
from ast2graph.typeinfer.kinds import standin_types
from helpers import check

X = jnp.arange(3.0) + 1.0   # sum 6


# ----------------------------------------------------------- observations
def range_bounds(x):
    n = jnp.sum(x).astype(jnp.int32)
    r = range(1, n, 2)
    s = 0
    for i in r:
        s += i
    return [(r.start, r.stop, r.step)], s


def test_traced_range_bounds_are_python_ints():
    # the graph returned Array(6, dtype=int32) for r.stop, eager the int 6
    check(range_bounds, X)


def value_in_traced_range(x, v):
    n = jnp.sum(x).astype(jnp.int32)
    return v in range(2, n), (v + 10) in range(2, n)


def test_value_in_traced_range_is_eagers():
    check(value_in_traced_range, X, 3, full_graph=False)


def percent_message(x):
    p0 = jnp.sum(x)
    msg = "failed to converge"
    msg += " after p0=%s" % p0    # scipy.optimize.newton builds its message so
    return msg, "p0=%s, x=%r" % (p0, 2), "%.3f|%5.1e|%d" % (p0, p0, p0), "%%s %s" % (p0,)


def test_percent_formatting_of_traced_values_is_eagers():
    # the graph gave 'p0=JitTracer(float32[])' and '<Value 0x...: f32[]>'
    check(percent_message, X, full_graph=False)


def format_message(x):
    p0 = jnp.sum(x)
    a = "p0={}".format(p0)
    b = "{0:.2f} {k!r} {0}".format(p0, k=p0 * 2)
    c = ", ".join(map(str, [p0, 1]))
    return a, b, c


def test_str_format_of_traced_values_is_eagers():
    check(format_message, X, full_graph=False)


def printed_formats(x):
    p0 = jnp.sum(x)
    print("p0=%s" % p0, "%.2f" % p0, "{:>8.3f}|{!r}".format(p0, p0))
    msg = "after"
    msg += " p0=%s" % p0
    print(msg)
    return p0


def test_printed_formats_stay_in_the_graph():
    check(printed_formats, X)


def format_mismatch(x):
    p0 = jnp.sum(x)
    return "%s %s" % (p0,)


def test_percent_format_eager_rejects_raises_eagers_error():
    check(format_mismatch, X, full_graph=False)


def comparing_methods(x):
    s = jnp.sum(x)
    t = s * 1
    a = [s, s * 2].count(t)
    b = [s, t].index(t)
    c = (s,).count(s)
    return a, b, c


def test_list_methods_comparing_traced_values_are_eagers():
    # [s, s * 2].count(t) gave 0 (identity of ast2graph's objects), eager 1
    check(comparing_methods, X, full_graph=False)


def lazy_filter(x):
    return list(filter(lambda v: v.sum() > 0, [x, -x]))


def test_lazy_python_code_seeing_a_traced_truth_falls_back():
    e = check(lazy_filter, X, full_graph=False)
    assert e.fallback_sites and e.fallback_sites[0].code is FallbackCode.CONCRETE_VALUE


# ----------------------------------------------------------- honest diagnoses
def calls_library(x):
    return jnp.cumsum(x) * 2


def test_internal_failure_is_reported_as_ours(monkeypatch):
    """A failure inside ast2graph while it traces a call (here: JAX's tracing
    entry point rejecting our arguments, as an unsupported JAX version did) is
    A2G015 naming the internal error, never A2G008 "raises in eager Python too";
    the program still gives eager's result."""
    from ast2graph.typeinfer import interpreter

    def broken(fn, types):
        raise TypeError("ShapeDtypeStruct.__init__() got an unexpected keyword argument 'weak_type'")

    monkeypatch.setattr(interpreter, "output_types", broken)
    monkeypatch.setattr(interpreter, "_EVAL_CACHE", {})
    monkeypatch.setitem(interpreter.ELEMENTWISE, jnp.cumsum, ())   # no typing rule: traced once
    monkeypatch.setenv("AST2GRAPH_CHECKS", "0")
    e = explain(to_static(calls_library))(X)
    assert e.fallback_sites, str(e)
    codes = {s.code for s in e.fallback_sites}
    assert codes == {FallbackCode.INTERNAL_ERROR}, str(e)
    assert "weak_type" in e.fallback_sites[0].cause
    assert "raises in eager" not in str(e)
    check(calls_library, X, full_graph=False)


def test_internal_failure_fails_a_test_when_checks_are_on(monkeypatch):
    from ast2graph.typeinfer import interpreter

    def broken(fn, types):
        raise TypeError("an internal failure")

    monkeypatch.setattr(interpreter, "output_types", broken)
    monkeypatch.setattr(interpreter, "_EVAL_CACHE", {})
    monkeypatch.setitem(interpreter.ELEMENTWISE, jnp.cumsum, ())
    monkeypatch.setenv("AST2GRAPH_CHECKS", "1")
    with pytest.raises(TypeError, match="an internal failure"):
        to_static(calls_library)(X)


def eager_raises(x):
    return jnp.reshape(x, (7,))


def test_users_error_is_still_the_users():
    check(eager_raises, X, full_graph=False)
    with pytest.raises(Exception, match="A2G008") as info:
        to_static(eager_raises, full_graph=True)(X)
    assert "A2G015" not in str(info.value)


# ------------------------------------------------- every stand-in, every exit
# An expression of the user's program that ast2graph holds as each of its
# trace-time stand-ins (the value of ``x`` is ``X``).
MAKERS = {
    "Value": "jnp.sum(x)",
    "LocalFunction": "(lambda v: v + 1)",
    "TracedClosure": "jax.vmap(lambda v: v * jnp.sum(x))",
    "TransformedFn": "jax.grad(lambda v: jnp.sum(v * jnp.sum(x)))",
    "TracedRange": "range(jnp.sum(x).astype(jnp.int32))",
    "TracedZip": "enumerate(range(jnp.sum(x).astype(jnp.int32)))",
    "DeferredStr": 'f"{jnp.sum(x)}"',
    "ArrayMethod": "x.sum",
    "AtHelper": "x.at",
    "AtIndexed": "x.at[1]",
    "AtMethod": "x.at[1].set",
    "SliceSpec": "slice(1, jnp.sum(x).astype(jnp.int32))",
    "VarTail": "_varlist(x)",   # a list whose length depends on the data (typeinfer/varlist.py)
    "MaskedSlice": "x[:jnp.sum(x).astype(jnp.int32) - 4]",   # a slice with a traced bound (typeinfer/masked.py)
    "MaskedMethod": "x[:jnp.sum(x).astype(jnp.int32) - 4].sum",
    # the flags of a new NumPy array: only .writeable answered (graphlib/arrays.py)
    "KnownFlags": "(__import__('numpy').asarray(x) * 2.0).flags",
    # a row of a Python list picked by a traced index (typeinfer/listindex.py)
    "PickedRow": "TABLE[jnp.sum(x).astype(jnp.int32) % 2]",
}

# Where a value goes (``{obj}``: the expression). Text that holds an address
# (a function's repr) is compared without it: every eager run makes a new one.
SINKS = {
    "return": "return {obj}",
    "container": "return [{obj}, 1], ({obj},)",
    "print": "print(_strip(repr({obj})))\n    print({obj}) if _plain({obj}) else None\n    return 0",
    "str": "return _strip(str({obj})), _strip(repr({obj}))",
    "format": 'return _strip("%s|%r" % ({obj}, {obj})), _strip("{{}}".format({obj}))',
    "type": "return type({obj}).__name__, callable({obj}), hasattr({obj}, 'shape')",
    "outside": "HOLDER.append({obj})\n    return type(HOLDER[-1]).__name__",
    "python": "o = {obj}\n    exec('pass')\n    return _strip(repr(o)), type(o).__name__",
    "attribute": "BOX.value = {obj}\n    return type(BOX.value).__name__",
}

PRELUDE = '''
import re
import jax
import jax.numpy as jnp

HOLDER = []
TABLE = [[1.0, 2.0], [3.0, 4.0]]


class Box:
    value = None


BOX = Box()


def _strip(text):
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _plain(obj):
    return not callable(obj)


def _varlist(x):
    out = []
    if jnp.sum(x) > 0:
        out.append(jnp.sum(x))
    return out
'''


@pytest.fixture(scope="module")
def sinks_module(tmp_path_factory):
    lines = [PRELUDE]
    for kind, expr in MAKERS.items():
        for sink, template in SINKS.items():
            body = template.format(obj=expr)
            lines.append(f"\ndef {kind}_{sink}(x):\n    {body}\n")
    path = tmp_path_factory.mktemp("boundary") / "standin_sinks.py"
    path.write_text("".join(lines))
    spec = importlib.util.spec_from_file_location("standin_sinks", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["standin_sinks"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("standin_sinks", None)


def test_every_standin_type_is_covered():
    """A new stand-in class fails here until it has a maker above."""
    assert {t.__name__ for t in standin_types()} == set(MAKERS)


def _strip_addresses(text: str) -> str:
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _canon(x):
    """What a user can tell of a result: its structure, the kind, dtype and
    values of arrays, the class and text (without addresses) of the rest."""
    if type(x) in (list, tuple):
        return type(x).__name__, [_canon(v) for v in x]
    if type(x) is dict:
        return "dict", [(k, _canon(v)) for k, v in x.items()]
    if isinstance(x, (jax.Array, np.ndarray, np.generic)):
        return type(x).__name__, str(x.dtype), np.asarray(x).tolist()
    return type(x).__name__, _strip_addresses(repr(x))


def _run(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _canon(fn(X)), None, _strip_addresses(out.getvalue())
        except Exception as e:  # noqa: BLE001
            return None, (type(e), str(e)), _strip_addresses(out.getvalue())


@pytest.mark.parametrize("sink", list(SINKS))
@pytest.mark.parametrize("kind", list(MAKERS))
def test_standin_never_escapes(sinks_module, kind, sink):
    fn = getattr(sinks_module, f"{kind}_{sink}")
    eager = _run(fn)
    eager_box = str(_canon(sinks_module.BOX.value))
    converted = _run(to_static(fn))
    assert converted == eager
    assert str(_canon(sinks_module.BOX.value)) == eager_box   # what an outside object holds is eager's object
    assert _run(to_static(fn)) == eager   # a second converted call too
    if sink == "outside":
        assert len({str(_canon(h)) for h in sinks_module.HOLDER[-3:]}) == 1
    for x in jax.tree_util.tree_leaves(sinks_module.HOLDER + [sinks_module.BOX.value]):
        assert not isinstance(x, standin_types()), f"ast2graph's {type(x).__name__} reached the program"


# ------------------------------------------------- the user's compile flags
from fixtures import annotations_future, annotations_plain  # noqa: E402


@pytest.mark.parametrize("module", [annotations_plain, annotations_future])
@pytest.mark.parametrize("name", ["nested_annotations", "interpreted_def", "closure_to_jax"])
def test_statements_compiled_again_keep_the_users_future_flags(module, name):
    """A statement run in Python and a closure handed to JAX are compiled
    under the user's ``__future__`` flags, never ast2graph's own: a nested
    def's annotations were strings where eager has the classes."""
    check(getattr(module, name), X, full_graph=False)


# ------------------------------------------------------------ private names
class _Private:
    def __init__(self):
        self.__k = 2.0

    def scaled(self, x):
        return x * self.__k + self.__helper(x)

    def __helper(self, x):
        return x + 1

    def with_python_statement(self, x):
        print("k", self.__k)
        n = int(x.sum().tolist())   # runs in Python: compiled again outside the class
        return x * self.__k + n

    def nested_class(self, x):
        class Inner:
            def __init__(self):
                self.__k = 7.0

            def get(self):
                return self.__k

        return x * self.__k + Inner().get() + Inner()._Inner__k


def test_private_names_are_mangled_as_python_compiles_them():
    """``self.__k`` in a method reads ``self._Private__k``, in the graph and in
    a statement run in Python (it raised AttributeError, reported as A2G008)."""
    p = _Private()
    check(p.scaled, X)
    check(p.with_python_statement, X, full_graph=False)
    check(p.nested_class, X, full_graph=False)


# ------------------------------------------------------------ python -O
OPTIMIZED = '''
import jax.numpy as jnp
from ast2graph import to_static

def f(x):
    assert x.sum() < 0, "positive"
    if x.sum() > 0:
        assert False
    return x + 1

for h in (f, to_static(f)):
    try:
        print(h(jnp.ones(2)).tolist())
    except AssertionError as e:
        print("raised", repr(e))
'''


def test_asserts_are_stripped_under_python_O(tmp_path):
    """``python -O`` strips ``assert`` from eager's code: the converted
    function checks none either (it raised AssertionError where eager ran)."""
    import os
    import subprocess

    script = tmp_path / "optimized.py"
    script.write_text(OPTIMIZED)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": root}
    out = subprocess.run([sys.executable, "-O", str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == ["[2.0, 2.0]", "[2.0, 2.0]"], out.stdout


def range_of_extreme_bounds(a, b):
    r = range(a, b)
    return r.stop - r.start, len(r), r.stop + r.stop, len(range(a, b, 3))


def test_range_bounds_are_exact_python_ints():
    """The bounds are Python ints of 64 bits in the graph: r.stop - r.start of
    int32 bounds wrapped to -2 where eager gives 4294967294."""
    check(range_of_extreme_bounds, jnp.int32(-2**31 + 1), jnp.int32(2**31 - 1))
    check(range_of_extreme_bounds, jnp.int32(3), jnp.int32(-5))
