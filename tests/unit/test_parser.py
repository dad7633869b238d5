"""Unit tests for ast2graph.parser: locating, normalising, source map, errors."""

from __future__ import annotations

import functools
import inspect
import textwrap

import gast
import pytest

from ast2graph.diagnostics import ConversionError, NoSourceError, UnsupportedSyntaxError
from ast2graph.parser import ParsedFunction, parse_function, unwrap_callable


def module_level(x, y=2):
    z = x + y
    return z * 2


class Model:
    scale = 3

    def method(self, x):
        return x * self.scale

    @staticmethod
    def static(x):
        return x + 1

    @classmethod
    def klass(cls, x):
        return x * cls.scale

    def __call__(self, x):
        return x - 1


def make_closure(k):
    def inner(x):
        return x + k
    return inner


def outer():
    def nested(a):
        return a
    return nested


def deco(fn):
    return fn


@deco
@deco
def decorated(x):
    return x


F, G = lambda x: x + 1, lambda y: y * 2
SINGLE = lambda a, b: a * b  # noqa: E731
CURRY = lambda p: lambda q: p + q  # noqa: E731


def _def_loc(fn) -> tuple[int, int]:
    """The file line and column of the ``def`` keyword of ``fn``."""
    lines, start = inspect.getsourcelines(fn)
    offset = next(i for i, text in enumerate(lines) if text.lstrip().startswith("def "))
    text = lines[offset]
    return start + offset, len(text) - len(text.lstrip())


def test_module_level_function():
    pf = parse_function(module_level)
    assert isinstance(pf, ParsedFunction)
    assert isinstance(pf.tree, gast.FunctionDef)
    assert pf.tree.name == "module_level"
    assert [a.id for a in pf.tree.args.args] == ["x", "y"]
    assert pf.filename == __file__
    assert pf.qualname == "module_level"
    assert pf.globals is globals()
    assert pf.closure == {}
    assert not pf.is_lambda


def test_loc_matches_the_file():
    pf = parse_function(module_level)
    line, col = _def_loc(module_level)
    loc = pf.loc(pf.tree)
    assert (loc.file, loc.line, loc.col, loc.function) == (__file__, line, col, "module_level")
    ret = pf.tree.body[1]
    assert pf.loc(ret).line == line + 2
    assert pf.loc(ret).col == 4
    assert pf.source_segment(ret.value) == "z * 2"
    assert pf.loc(gast.Load()) == pf.loc(pf.tree)


def test_method_and_qualname():
    pf = parse_function(Model.method)
    assert pf.tree.name == "method"
    assert pf.qualname == "Model.method"
    assert (pf.loc(pf.tree).line, pf.loc(pf.tree).col) == _def_loc(Model.method)
    assert pf.loc(pf.tree).col == 4


def test_bound_method_is_unwrapped_for_parsing():
    assert parse_function(Model().method).fn is Model.method


def test_nested_function():
    pf = parse_function(outer())
    assert pf.tree.name == "nested"
    assert pf.qualname == "outer.<locals>.nested"
    assert (pf.loc(pf.tree).line, pf.loc(pf.tree).col) == _def_loc(outer())


def test_closure_holds_the_cells():
    fn = make_closure(10)
    pf = parse_function(fn)
    assert set(pf.closure) == {"k"}
    assert pf.closure["k"] is fn.__closure__[0]
    assert pf.closure["k"].cell_contents == 10


def test_tree_is_cached_per_code_but_namespaces_are_per_function():
    a, b = make_closure(1), make_closure(2)
    pa, pb = parse_function(a), parse_function(b)
    assert pa.tree is pb.tree
    assert pa.closure["k"].cell_contents == 1
    assert pb.closure["k"].cell_contents == 2
    assert pa.fn is a and pb.fn is b


def test_decorators_are_stripped_and_source_untouched():
    pf = parse_function(decorated)
    assert pf.tree.decorator_list == []
    line, col = _def_loc(decorated)
    assert (pf.loc(pf.tree).line, pf.loc(pf.tree).col) == (line, col)
    # The shared parsed def keeps its decorators; the body nodes are shared.
    original = pf._source.function("decorated", decorated.__code__.co_firstlineno)
    assert len(original.decorator_list) == 2
    assert original.body is pf.tree.body
    # the block parsed alone has the whole file's positions
    (whole,) = [n for n in gast.walk(pf._source.module) if isinstance(n, gast.FunctionDef) and n.name == "decorated"]
    assert (whole.lineno, whole.col_offset, whole.end_lineno) == (original.lineno, original.col_offset, original.end_lineno)


class _Indented:
    @staticmethod
    def method(x):
        s = """a string
at column 0"""
        return (x,
                s)


def test_an_indented_method_block_parses_alone_at_its_own_columns():
    pf = parse_function(_Indented.method)
    ret = pf.tree.body[-1]
    assert pf.source_segment(ret.value) == "(x,\n                s)"
    assert pf.loc(pf.tree).line == _Indented.method.__code__.co_firstlineno + 1


def _lambda_of(pf: ParsedFunction) -> str:
    (ret,) = pf.tree.body
    assert isinstance(ret, gast.Return)
    return pf.source_segment(ret.value)


def test_single_lambda():
    pf = parse_function(SINGLE)
    assert pf.is_lambda
    assert pf.tree.name == "<lambda>"
    assert pf.tree.decorator_list == []
    assert [a.id for a in pf.tree.args.args] == ["a", "b"]
    assert _lambda_of(pf) == "a * b"
    assert pf.loc(pf.tree).line == SINGLE.__code__.co_firstlineno


def test_two_lambdas_on_one_line_pick_the_right_one():
    pf, pg = parse_function(F), parse_function(G)
    assert _lambda_of(pf) == "x + 1"
    assert _lambda_of(pg) == "y * 2"
    text = inspect.getsourcelines(F)[0][0]
    assert pf.loc(pf.tree).col == text.index("lambda x")
    assert pg.loc(pg.tree).col == text.index("lambda y")


def test_nested_lambdas_on_one_line():
    assert _lambda_of(parse_function(CURRY)) == "lambda q: p + q"
    inner = parse_function(CURRY(1))
    assert _lambda_of(inner) == "p + q"
    assert set(inner.closure) == {"p"}


def test_exec_defined_function_has_no_source():
    namespace: dict = {}
    exec("def from_exec(x):\n    return x\n", namespace)
    with pytest.raises(NoSourceError, match="from_exec") as info:
        parse_function(namespace["from_exec"])
    assert "<string>" in str(info.value)


def test_builtin_has_no_source():
    with pytest.raises(NoSourceError, match="builtin or C function") as info:
        parse_function(len)
    assert "len" in str(info.value)


def test_async_def_is_unsupported():
    async def coro(x):
        return x

    with pytest.raises(UnsupportedSyntaxError, match="async def") as info:
        parse_function(coro)
    assert info.value.loc.line == coro.__code__.co_firstlineno
    assert info.value.loc.file == __file__


def test_unparsable_file_names_file_and_line(tmp_path, monkeypatch):
    path = tmp_path / "broken_mod.py"
    path.write_text("def f(x):\n    return x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import broken_mod

    path.write_text("def f(x):\n    return x +\n")
    with pytest.raises(ConversionError, match=r"broken_mod\.py.*:2"):
        parse_function(broken_mod.f)


def test_unwrap_plain_function():
    assert unwrap_callable(module_level) == (module_level, (), {})


def test_unwrap_bound_method():
    m = Model()
    assert unwrap_callable(m.method) == (Model.method, (m,), {})


def test_unwrap_partial():
    p = functools.partial(functools.partial(module_level, 1), y=5)
    assert unwrap_callable(p) == (module_level, (1,), {"y": 5})
    m = Model()
    fn, args, kwargs = unwrap_callable(functools.partial(m.method, 4))
    assert (fn, args, kwargs) == (Model.method, (m, 4), {})


def test_unwrap_callable_object():
    m = Model()
    assert unwrap_callable(m) == (Model.__call__, (m,), {})


def test_unwrap_static_and_class_methods():
    raw_static = Model.__dict__["static"]
    raw_class = Model.__dict__["klass"]
    assert unwrap_callable(raw_static) == (raw_static.__func__, (), {})
    assert unwrap_callable(Model.static) == (raw_static.__func__, (), {})
    assert unwrap_callable(raw_class) == (raw_class.__func__, (), {})
    assert unwrap_callable(Model.klass) == (raw_class.__func__, (Model,), {})


def test_unwrap_leaves_wraps_wrappers_alone():
    @functools.wraps(module_level)
    def wrapper(*a, **k):
        return module_level(*a, **k)

    assert unwrap_callable(wrapper)[0] is wrapper


def test_unwrap_builtin_raises():
    for obj in (len, [].append, str.join, object()):
        with pytest.raises(NoSourceError):
            unwrap_callable(obj)


def multiline(x):
    return (x +
            1)


def test_source_segment_multiline():
    pf = parse_function(multiline)
    assert pf.source_segment(pf.tree.body[0].value) == "x +\n            1"
    assert pf.source_segment(parse_function(module_level).tree.body[0]) == "z = x + y"
    whole = pf.source_segment(pf.tree)
    assert whole == textwrap.dedent(inspect.getsource(multiline)).rstrip("\n")


def test_notebook_cell_source_from_linecache():
    import linecache

    name = "<ipython-input-7-ast2graph>"
    src = "def cell_fn(x):\n    return x * 3\n"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    try:
        namespace: dict = {}
        exec(compile(src, name, "exec"), namespace)
        pf = parse_function(namespace["cell_fn"])
        assert pf.filename == name
        assert pf.source_segment(pf.tree.body[0]) == "return x * 3"
        assert (pf.loc(pf.tree).line, pf.loc(pf.tree).col) == (1, 0)
    finally:
        linecache.cache.pop(name, None)


def test_only_the_functions_block_is_parsed(tmp_path, monkeypatch):
    import importlib

    (tmp_path / "block_mod.py").write_text("import math\n\nBROKEN = 'x'\n\n\ndef f(x):\n    return x + 1\n\n\nclass C:\n    def g(self, x):\n        return x * 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("block_mod")
    pf, pg = parse_function(mod.f), parse_function(mod.C.g)
    assert pf._source._module is None   # the file was not parsed whole
    assert (pf.loc(pf.tree).line, pg.loc(pg.tree).line, pg.loc(pg.tree).col) == (6, 11, 4)
