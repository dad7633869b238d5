"""The code a function was loaded with is what runs, and only ast2graph's own
text reaches the source it generates (issue 15, items 1 and 2).

A module edited on disk after it was imported still runs its loaded code:
the converted function must too (it runs eagerly, warned about, naming the
file), and nothing added to the file may run. Every function whose source
still compiles to its code keeps converting (full_graph=True). Generated
Python source holds only names ast2graph made and ``repr``s of values.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import linecache
import os
import sys
import textwrap
import warnings

import jax.numpy as jnp
import pytest
from helpers import assert_same, check

from ast2graph import FullGraphError, explain, to_static
from ast2graph.parser import codecheck, parse_function

X = jnp.arange(3.0)
_COUNTER = itertools.count()


@pytest.fixture(autouse=True)
def _no_bytecode(monkeypatch):
    # a rewritten file of the same size and mtime must not load a stale .pyc
    monkeypatch.setattr(sys, "dont_write_bytecode", True)


def load(tmp_path, text: str, stem: str = "loaded"):
    """Write ``text`` to a fresh module file, import it under a unique name."""
    name = f"{stem}_{next(_COUNTER)}_{os.getpid()}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def edit(path, text: str, clear_linecache: bool) -> None:
    """Rewrite the file as an editor does (a new mtime). ``clear_linecache``:
    the cache is emptied (as IPython's autoreload leaves it); otherwise it
    still holds the text read before the edit."""
    linecache.getlines(str(path))      # the old text is in linecache now
    stat = os.stat(path)
    path.write_text(textwrap.dedent(text))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    if clear_linecache:
        linecache.clearcache()


def runs_eagerly_warning(path) -> pytest.WarningsRecorder:
    return pytest.warns(UserWarning, match=r"runs eagerly.*" + str(path.name).replace(".", r"\."))


# ------------------------------------------------ item 1: the loaded code wins
ORIGINAL = textwrap.dedent("""\
    import jax.numpy as jnp

    def f(x):
        return x + 1
    """)

EDITED = textwrap.dedent("""\
    import jax.numpy as jnp

    def f(x):
        return x + 1000
    """)


@pytest.mark.parametrize("clear", [True, False], ids=["linecache-cleared", "linecache-stale"])
def test_edited_function_runs_the_loaded_code(tmp_path, clear):
    mod, path = load(tmp_path, ORIGINAL)
    edit(path, EDITED, clear)
    with runs_eagerly_warning(path):
        converted = to_static(mod.f)
    assert_same(mod.f(X), converted(X))
    assert_same(mod.f(2.0), converted(2.0))
    assert float(converted(2.0)) == 3.0
    e = explain(converted)(X)
    assert e.graph_count == 0 and [s.code.code for s in e.fallback_sites] == ["A2G012"]
    assert path.name in e.fallback_sites[0].cause


@pytest.mark.parametrize("clear", [True, False], ids=["linecache-cleared", "linecache-stale"])
def test_edited_function_full_graph_names_the_file(tmp_path, clear):
    mod, path = load(tmp_path, ORIGINAL)
    edit(path, EDITED, clear)
    with pytest.raises(FullGraphError, match=str(path.name).replace(".", r"\.")):
        to_static(mod.f, full_graph=True)


@pytest.mark.parametrize("clear", [True, False], ids=["linecache-cleared", "linecache-stale"])
@pytest.mark.parametrize("where", ["in-body", "above-def", "same-line-count"])
def test_statement_added_to_the_file_never_runs(tmp_path, clear, where):
    marker = tmp_path / "marker"
    mod, path = load(tmp_path, ORIGINAL)
    bad = f"open({str(marker)!r}, 'w').write('ran')"
    edited = {
        "in-body": f"import jax.numpy as jnp\n\ndef f(x):\n    {bad}\n    return x + 1\n",
        "above-def": f"import jax.numpy as jnp\n{bad}\n\ndef f(x):\n    return x + 1\n",
        "same-line-count": f"import jax.numpy as jnp\n\ndef f(x):\n    return {bad} and x + 1\n",
    }[where]
    edit(path, edited, clear)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        converted = to_static(mod.f)
        check(mod.f, X, full_graph=False)
        assert_same(mod.f(X), converted(X))
    assert not marker.exists()


@pytest.mark.parametrize("clear", [True, False], ids=["linecache-cleared", "linecache-stale"])
def test_file_edited_into_a_syntax_error_runs_the_loaded_code(tmp_path, clear):
    mod, path = load(tmp_path, ORIGINAL)
    edit(path, ORIGINAL.replace("x + 1", "x +"), clear)
    with runs_eagerly_warning(path):
        converted = to_static(mod.f)
    assert_same(mod.f(X), converted(X))
    e = explain(converted)(X)
    assert [s.code.code for s in e.fallback_sites] == ["A2G012"]

    def outer(x):
        return mod.f(x) * 2

    e = check(outer, X, full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G012"], str(e)


def test_linecache_holding_the_loaded_text_converts(tmp_path):
    """The file changed but linecache (same size and mtime) still serves the
    text the code was compiled from: that text is the function's, it converts."""
    mod, path = load(tmp_path, ORIGINAL)
    linecache.getlines(str(path))
    stat = os.stat(path)
    path.write_text(textwrap.dedent(ORIGINAL).replace("x + 1", "x + 7"))   # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    check(mod.f, X, full_graph=True, graphs=1)


def test_linecache_holding_older_text_than_the_code_runs_eagerly(tmp_path):
    """linecache holds text read before the file was rewritten (same size and
    mtime) and the module was imported from the new file: what linecache
    serves is not the code, so the code runs as loaded."""
    path = tmp_path / f"older_{next(_COUNTER)}.py"
    path.write_text(textwrap.dedent(ORIGINAL))
    linecache.getlines(str(path))
    stat = os.stat(path)
    path.write_text(textwrap.dedent(ORIGINAL).replace("x + 1", "x * 5"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert linecache.getlines(str(path))[3].strip() == "return x + 1"   # the stale text
    with runs_eagerly_warning(path):
        converted = to_static(mod.f)
    assert_same(mod.f(X), converted(X))
    assert float(converted(2.0)) == 10.0


HELPERS = textwrap.dedent("""\
    def helper(x):
        print("helper", x.shape)
        return x + 1

    def caller(x):
        return helper(x) * 2
    """)


@pytest.mark.parametrize("clear", [True, False], ids=["linecache-cleared", "linecache-stale"])
def test_edited_helper_runs_the_loaded_code(tmp_path, clear):
    """A helper inlined into a converted function: its file edited, it runs as
    loaded (a Python call, printing on every call as eager does); the
    caller, unchanged at the same lines, stays converted."""
    mod, path = load(tmp_path, HELPERS)
    edit(path, HELPERS.replace("x + 1", "x - 9"), clear)

    def outer(x):
        return mod.helper(x) + 1

    for fn in (outer, mod.caller):
        e = check(fn, X, full_graph=False)
        assert [s.code.code for s in e.fallback_sites] == ["A2G012"], str(e)
        assert path.name in e.fallback_sites[0].cause
    with pytest.raises(FullGraphError, match=str(path.name).replace(".", r"\.")):
        to_static(outer, full_graph=True)(X)


def test_helper_unchanged_in_an_edited_file_converts(tmp_path):
    """Only another function of the file changed (same line count): the
    helper's source still compiles to its code, so it converts."""
    mod, path = load(tmp_path, HELPERS + "\n\ndef other(x):\n    return x\n")
    edit(path, HELPERS + "\n\ndef other(x):\n    return -x\n", True)

    def outer(x):
        return mod.helper(x) + 1

    check(outer, X, full_graph=True, graphs=1)
    check(mod.caller, X, full_graph=True, graphs=1)


# ------------------------------------- functions whose source matches: converted
CASES = '''\
from __future__ import annotations

import functools
import jax.numpy as jnp
import numpy as np
from jax import numpy as jnp2


def plain(x: jnp.ndarray) -> jnp.ndarray:
    y: float = 2.0
    return jnp.sin(x) * y + np.float32(1)


square = lambda x: x * x
pair = (lambda x: x + 1, lambda x: x - 1)


def deco(fn):
    return fn


def wrapping(fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        return fn(*a, **k) + 1
    return wrapper


@deco
@deco
def decorated(x):
    return jnp.cos(x)


@wrapping
def wrapped(x):
    return jnp.cos(x)


class Base:
    def __init__(self, k):
        self.k = k

    def scale(self, x):
        return x * self.k


class Model(Base):
    def __init__(self, k):
        super().__init__(k)
        self.bias = 2.0

    def __call__(self, x):
        return super().scale(x) + self.bias


    @staticmethod
    def static(x):
        return jnp2.tanh(x)

    @classmethod
    def klass(cls, x):
        return x + len(cls.__name__)

    class Inner:
        def method(self, x):
            return x - 1


class _Private:
    def __init__(self, k):
        self.__k = k

    def scale(self, x):
        return x * self.__k


def make_closure(k):
    def inner(x):
        return x * k + offset
    offset = 3.0
    return inner


def make_nested(k):
    def middle(j):
        class Local:
            def apply(self, x):
                return x * k + j
        return Local()
    return middle


def make_lambda(k):
    return lambda x: x * k


def lambdas_in_a_comprehension():
    return [lambda x, i=i: x + i for i in range(3)]


if True:
    def under_if(x):
        return x + 10

try:
    def under_try(x):
        return jnp.exp(x)
except Exception:
    pass


def tabs(x):
\tif x.sum() > 0:
\t\treturn x * 2
\treturn x
'''


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    mod, _ = load(tmp_path_factory.mktemp("cases"), CASES, "cases")
    return mod


def _converts(fn, *args):
    check(fn, *args, full_graph=True, graphs=1)


@pytest.mark.parametrize("get", [
    lambda m: m.plain, lambda m: m.square, lambda m: m.pair[0], lambda m: m.pair[1],
    lambda m: m.decorated, lambda m: m.wrapped, lambda m: m.Model(3.0), lambda m: m.Model(3.0).scale,
    lambda m: m.Model.static, lambda m: m.Model.klass, lambda m: m.Model.Inner().method,
    lambda m: m.make_closure(2.0), lambda m: m.make_nested(2.0)(5.0).apply, lambda m: m.make_lambda(4.0),
    lambda m: m.lambdas_in_a_comprehension()[2], lambda m: m.under_if, lambda m: m.under_try, lambda m: m.tabs,
], ids=["annotations", "lambda", "lambda-pair-0", "lambda-pair-1", "decorated", "wraps", "callable-object",
        "method", "staticmethod", "classmethod", "nested-class", "closure", "method-in-closure",
        "closure-lambda", "lambda-in-comprehension", "under-if", "under-try", "tabs"])
def test_functions_in_a_module_still_convert(cases, get):
    _converts(get(cases), X)


def test_common_functions_are_checked_without_compiling_the_whole_file(tmp_path):
    """The cheap check (the function's own lines in a skeleton of its scopes)
    proves them; the whole file is compiled only when it cannot (a lambda in
    a comprehension)."""
    cases, _ = load(tmp_path, CASES, "cases")
    for fn in (cases.plain, cases.square, cases.pair[1], cases.decorated, cases.Model.__call__,
               cases.Model.Inner.method, cases.make_closure(1.0), cases.make_nested(1.0)(1.0).apply,
               cases.make_lambda(1.0), cases.under_if, cases.under_try, cases.tabs, cases._Private.scale):
        pf = parse_function(fn)
        assert codecheck._skeleton(pf._source, _node(pf), fn.__code__) is not None, fn
        assert codecheck.compiles_to(pf._source, _node(pf), fn.__code__)
    assert not codecheck.whole_file_compiled(parse_function(cases.plain)._source)
    fn = cases.lambdas_in_a_comprehension()[0]
    pf = parse_function(fn)
    assert codecheck._skeleton(pf._source, _node(pf), fn.__code__) is None
    assert codecheck.whole_file_compiled(pf._source)


def _node(pf):
    from ast2graph.parser.locate import find_node

    return find_node(pf._source, pf.fn)


def test_the_check_runs_once_per_code_object(cases, monkeypatch):
    import ast2graph.parser as parser

    calls = []
    real = parser.compiles_to
    monkeypatch.setattr(parser, "compiles_to", lambda *a: calls.append(a) or real(*a))
    fn = cases.make_closure(5.0)
    parser._CODE_CACHE.pop((fn.__code__, fn.__code__.co_filename), None)
    for k in (1.0, 2.0, 3.0):
        to_static(cases.make_closure(k), full_graph=True)(X)
    assert len(calls) == 1


def test_notebook_cell_converts():
    name = "<ipython-input-3-a2g15>"
    src = "import jax.numpy as jnp\ndef cell_fn(x):\n    return jnp.sin(x) * 3\nsq = lambda x: x * x\n"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    try:
        namespace: dict = {}
        exec(compile(src, name, "exec"), namespace)
        _converts(namespace["cell_fn"], X)
        _converts(namespace["sq"], X)
    finally:
        linecache.cache.pop(name, None)


def test_exec_with_registered_source_converts_and_stale_registration_does_not():
    name = "<string-a2g15>"
    src = "def from_exec(x):\n    return x + 1\n"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    try:
        namespace: dict = {}
        exec(compile(src, name, "exec"), namespace)
        _converts(namespace["from_exec"], X)
        # the registered text is not the text the next code is compiled from
        other = src.replace("x + 1", "x + 2")
        linecache.cache[name] = (len(other), None, other.splitlines(True), name)
        namespace2: dict = {}
        exec(compile(src.replace("x + 1", "x + 3"), name, "exec"), namespace2)
        with pytest.raises(FullGraphError, match="a2g15"):
            to_static(namespace2["from_exec"], full_graph=True)
    finally:
        linecache.cache.pop(name, None)


def test_future_annotations_flag_is_used(cases):
    assert cases.plain.__code__.co_flags & codecheck.future_flags(cases.plain.__code__)
    assert parse_function(cases.plain).tree.name == "plain"


def test_function_on_the_first_line_of_its_file(tmp_path):
    """No room above it for a skeleton: the whole file is compiled instead."""
    mod, _ = load(tmp_path, "def f(x): return x * 2\ng = (lambda x: x + 1)\n")
    _converts(mod.f, X)
    _converts(mod.g, X)


def test_partial_of_a_module_function(cases):
    check(functools.partial(cases.plain), X, full_graph=True, graphs=1)


# ------------------------------- item 2: only ast2graph's text in generated source
LINE_BREAKS = ["\n", "\r", "\r\n", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


def _clean(source: str) -> None:
    """Generated source: printable characters and newlines only, and every
    statement ast2graph's (no line the user wrote)."""
    assert all(c.isprintable() or c == "\n" for c in source), repr(source)
    for line in source.splitlines():
        code = line.split("#", 1)[0].strip()
        assert "open(" not in code and "system" not in code, line


def _lowered(fn, *args) -> str:
    e = explain(to_static(fn, full_graph=True))(*args)
    return e.lowered_source


@pytest.mark.parametrize("brk", LINE_BREAKS, ids=[repr(b) for b in LINE_BREAKS])
def test_qualname_with_a_line_break_never_runs(tmp_path, brk):
    import jax

    marker = tmp_path / "marker"
    h = jax.jit(lambda x: x * 2)
    h.__qualname__ = f"x{brk}    open({str(marker)!r}, 'w').write('ran')"

    def f(x):
        return h(x) + 1

    check(f, X, full_graph=True, graphs=1)
    _clean(_lowered(f, X))
    assert not marker.exists()


class _Evil(str):
    """A str whose every spelling is code."""

    code = ""

    def __repr__(self):
        return self.code

    __str__ = __repr__

    def __format__(self, spec):
        return self.code


def test_str_subclass_qualname_and_dict_key_never_run(tmp_path):
    import jax

    marker = tmp_path / "marker"
    _Evil.code = f"'a'}}) or open({str(marker)!r}, 'w').write('ran') or ({{'b'"
    h = jax.jit(lambda x, d: x * 2 + d["a"])
    h.__qualname__ = _Evil("h")
    key = _Evil("a")

    def f(x):
        return h(x, {key: x}) + 1

    check(f, X, full_graph=True, graphs=1)
    _clean(_lowered(f, X))
    assert not marker.exists()


def test_keywords_given_through_double_star_are_not_source(tmp_path):
    import jax

    marker = tmp_path / "marker"
    h = jax.jit(lambda x, **kw: x + sum(v * (i + 1) for i, v in enumerate(kw.values())))
    evil = f"a=1)\n    open({str(marker)!r}, 'w').write('ran')\n    (b"
    keywords = {"ok": 1.0, "a b": 2.0, "class": 3.0, "ﬁ": 4.0, "fi": 5.0, "ñ": 6.0, evil: 7.0}

    def f(x):
        return h(x, **{k: x * v for k, v in keywords.items()})

    check(f, X, full_graph=True, graphs=1)
    _clean(_lowered(f, X))
    assert not marker.exists()


def test_odd_function_qualname_names_a_valid_lowered_function():
    def g(x):
        return x * 3

    for name in ("a b²", "x\n    import os", "función", "f\u2028g", "1st"):
        g.__qualname__ = name
        check(g, X, full_graph=True, graphs=1)
        _clean(_lowered(g, X))


class _Obj:
    def __init__(self):
        self.ñ = 2.0
        self.fi = 3.0

    def __eq__(self, other):
        return type(other) is _Obj and vars(self) == vars(other)


def non_ascii_names(ñ, obj):
    ß = ñ * obj.ñ
    ﬁ = ß + obj.ﬁ      # NFKC: the attribute `fi` and the variable `fi`
    Ω = [ﬁ, fi]
    return Ω[0] + Ω[1] + ñ


def test_non_ascii_variable_parameter_and_attribute_names():
    check(non_ascii_names, X, _Obj(), full_graph=True, graphs=1)
    _clean(_lowered(non_ascii_names, X, _Obj()))


def asserting(x, n):
    assert n > 0, "n must be positive"
    assert x.shape == (3,)
    return x * n


def test_function_with_asserts_in_a_module_pytest_rewrote_converts():
    """pytest rewrote this module's asserts: the code runs pytest's assert,
    the reference compile rewrites them the same way, and it matches."""
    if "@pytest_ar" not in globals():
        pytest.skip("pytest did not rewrite this module (--assert=plain)")
    check(asserting, X, 2, graphs=1)
    pf = parse_function(asserting)   # the cheap check proves it
    text = codecheck._skeleton(pf._source, _node(pf), asserting.__code__)
    rewrite = codecheck._assert_rewriter(globals())
    assert codecheck._contains(codecheck._compile(text, pf.filename, codecheck.future_flags(asserting.__code__), rewrite), asserting.__code__)
    assert not codecheck._contains(codecheck._compile(text, pf.filename, codecheck.future_flags(asserting.__code__), None), asserting.__code__)
    fn = lambda x: [x for _ in range(1) if _ == 0 or (lambda: 0)()][0]   # noqa: E731 - whole-file path
    check(fn, X, graphs=1)
