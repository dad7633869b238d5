"""Local functions handed to JAX (``jax.grad(f)``, ``lax.scan(step, ...)``,
``jax.vmap(lambda r: ...)``): compiled as plain Python closures.

Requires: a ``LocalFunction`` (a nested ``def``/``lambda`` of a converted
function) and the interpreter's frames, to read its free variables.
Produces: ``TracedClosure``, a pytree whose children are the values of the
free variables (graph values become operands of the op that receives it) and
which, called, runs the original ``def`` compiled by Python with those values
bound. JAX then traces it like any function; Python control flow on traced
values inside it raises and the call site falls back.
Invariants: the closure's code is the user's own, compiled with the user's
file name and line numbers; free variables are read when the closure is
passed (eager closures read them when called: equal unless the variable is
rebound in between, which a JAX transform call does not do).
"""

from __future__ import annotations

import copy

import ast
import types
from typing import Any, Callable

import gast
import jax

from ..fallback.interpreted import requalified
from ..graphlib.trees import keyed

_FACTORIES: dict[tuple, Callable[..., Any]] = {}


@jax.tree_util.register_pytree_node_class
class TracedClosure:
    def __init__(self, factory: Callable[..., Any], names: tuple[str, ...], values: tuple):
        self.factory, self.names, self.values = factory, names, tuple(values)
        # the user's module, not this one: ``jax.jit(closure)`` copies it, and a
        # callable from ast2graph's own modules would be taken for one of its operators
        # (NumPy's rules for NumPy operands, where eager's jitted call narrows them to 32 bits)
        self.__module__ = getattr(factory, "__module__", None)

    def tree_flatten(self):
        return keyed(self.values), (self.factory, self.names)   # a dict it closes over keeps its order

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(aux[0], aux[1], children)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.factory(*self.values)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<closure {getattr(self.factory, '__qualname__', '?')}>"


def free_names(node: Any, own: set[str]) -> list[str]:
    """Names read inside ``node`` that are not its own parameters or locals."""
    names = {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    return sorted(names - own)


def factory_for(node: Any, names: tuple[str, ...], filename: str, globals_: dict,
                enclosing: str = "", flags: int = 0) -> Callable[..., Any]:
    """``def factory(*names): <the def>; return it``, compiled once per node
    under the user's ``__future__`` flags (``flags``) and no others; the
    function it makes is named as eager names it (``enclosing.<locals>.f``)."""
    key = (id(node), names, enclosing, flags)
    cached = _FACTORIES.get(key)
    if cached is not None:
        return cached
    inner = gast.gast_to_ast(node)
    if isinstance(inner, ast.Lambda):
        body: list[ast.stmt] = [ast.Return(inner)]
    else:
        inner.decorator_list = []
        body = [inner, ast.Return(ast.Name(inner.name, ast.Load()))]
    args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    fn = ast.FunctionDef("__ast2graph_closure", args, body, [], None, None)
    ast.copy_location(fn, inner)
    module = ast.fix_missing_locations(ast.Module([fn], []))
    namespace: dict[str, Any] = {}
    exec(compile(module, filename, "exec", flags=flags, dont_inherit=True), namespace)  # noqa: S102 - the user's own def
    code = namespace[fn.name].__code__
    factory = types.FunctionType(requalified(code, fn.name, enclosing) if enclosing else code, globals_, fn.name)
    _FACTORIES[key] = factory
    return factory


_PYTHON_MATH_CALLS = frozenset({"float", "int", "abs", "round", "pow", "max", "min", "bool", "complex", "divmod"})


def python_arithmetic(node: Any, numbers: dict[str, bool], tuples: dict[str, tuple] | None = None
                      ) -> tuple[Any, str | None] | None:
    """Where the body of ``node`` (a lambda or def handed to JAX) computes a
    float from Python ints alone, one of them a traced Python number it
    closes over (``numbers``: name -> whether it is a float; ``tuples``: a
    tuple it closes over, name -> per item True/False for such a number,
    "const" for a static one, None for anything else; read as ``cfg[0]``),
    as in ``1 - 0.999 ** t`` of a rolled loop's index: eager computes it in
    Python's 64-bit floats, JAX in its default float (32 bits). None where
    there is none; (the outermost such expressions, None) where each reads
    what the function closes over alone (``hoisted_closure`` computes them
    outside it); else (one expression reading a local, the local's name).
    (A traced Python float in the expression makes JAX compute it in 64
    bits, as Python does; a number that meets an array, ``lr * g``, is the
    array's dtype in both.)"""
    kinds = dict(numbers)   # name -> a float (True) or an int (False)
    tuples = tuples or {}
    body = [node.body] if isinstance(node, gast.Lambda) else node.body

    def item(e: Any) -> Any:   # ``cfg[0]`` of a tuple closed over: its item's kind, else None
        if isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name) and e.value.id in tuples \
                and isinstance(e.slice, gast.Constant) and type(e.slice.value) is int:
            items = tuples[e.value.id]
            if -len(items) <= e.slice.value < len(items):
                return items[e.slice.value]
        return None

    def plain(e: Any) -> bool:   # evaluated from Python numbers alone
        if isinstance(e, gast.Constant):
            return isinstance(e.value, (int, float, complex)) and not isinstance(e.value, bool)
        if isinstance(e, gast.Name):
            return e.id in kinds
        if isinstance(e, gast.Subscript):
            return item(e) is not None
        if isinstance(e, gast.BinOp):
            return plain(e.left) and plain(e.right)
        if isinstance(e, gast.UnaryOp):
            return plain(e.operand)
        if isinstance(e, gast.Call) and isinstance(e.func, gast.Name) and e.func.id in _PYTHON_MATH_CALLS:
            return bool(e.args) and all(plain(a) for a in e.args) and not e.keywords
        if isinstance(e, gast.Call) and isinstance(e.func, gast.Attribute) and isinstance(e.func.value, gast.Name) \
                and e.func.value.id == "math":
            return bool(e.args) and all(plain(a) for a in e.args)
        return False

    def traced_in(e: Any) -> list[tuple[str, bool]]:   # (name, a float) of each traced number read
        out = []
        for n in gast.walk(e):
            if isinstance(n, gast.Name) and n.id in kinds:
                out.append((n.id, kinds[n.id]))
            elif item(n) in (True, False):
                out.append((n.value.id, item(n)))
        return out

    def makes_float(e: Any) -> bool:   # a float from ints: a float constant, ``/``, ``**``, a math function
        return any(isinstance(n, gast.Constant) and isinstance(n.value, (float, complex))
                   or isinstance(n, (gast.Div, gast.Pow)) or isinstance(n, gast.Call) for n in gast.walk(e))

    changed = True
    while changed:   # locals bound to such a computation (``k = t // 2``) are Python numbers too
        changed = False
        for stmt in (n for b in body for n in gast.walk(b)):
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) \
                    and stmt.targets[0].id not in kinds and plain(stmt.value) and traced_in(stmt.value):
                kinds[stmt.targets[0].id] = any(f for _, f in traced_in(stmt.value)) or makes_float(stmt.value)
                changed = True
    found = _outermost(body, lambda e: isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Call)) and plain(e)
                       and bool(traced_in(e)) and not any(f for _, f in traced_in(e)) and makes_float(e))
    if not found:
        return None
    # a number closed over that a nested scope or a walrus binds anew (``(lambda t: 0.5 ** t)(3)``,
    # ``sum(0.5 ** t for t in ...)``): a read of that name there is not the number closed over;
    # which read is which is not told apart here, so it counts as a local (the call falls back)
    shadowed = sorted(_bound_anew(node) & (set(numbers) | set(tuples)))
    if shadowed:
        return found[0], shadowed[0]
    # hoistable: each reads what the function closes over alone (no local of it)
    local = next(((e, n) for e in found for n, _ in traced_in(e) if n not in numbers and n not in tuples), None)
    return local if local is not None else (found, None)


def _bound_anew(node: Any) -> set[str]:
    """The names ``node`` (a lambda or def) binds in its own body by a
    walrus or an assignment, or a scope inside it binds (parameters,
    comprehension targets, assignments): not the outer values of those names
    there."""
    out: set[str] = set()
    for n in gast.walk(node):
        if n is not node and isinstance(n, (gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef)):
            a = n.args
            out.update(x.id for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                       if isinstance(x, gast.Name))
        elif isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out.add(n.id)
    return out


def _outermost(body: list, flagged: Callable[[Any], bool]) -> list:
    """The nodes of ``body`` (in walk order) that ``flagged`` accepts, none
    inside another."""
    out, stack = [], list(reversed(body))
    while stack:
        e = stack.pop()
        if flagged(e):
            out.append(e)
            continue
        stack.extend(reversed(list(gast.iter_child_nodes(e))))
    return out


_HOISTED: dict = {}   # (id(node), the numbers) -> (node, its copy with the hoisted names, the expressions)
HOIST_PREFIX = "__a2g_number"


def hoisted_closure(node: Any, numbers: dict[str, bool], tuples: dict[str, tuple] | None = None
                    ) -> tuple[Any, list] | None:
    """``node`` with each expression ``python_arithmetic`` finds (all reading
    the numbers closed over alone) replaced by a name of its own, and those
    expressions (name, expression): the caller computes each as eager's
    Python does and hands it to the closure as one more number. None where
    an expression reads a local of the function."""
    key = (id(node), tuple(sorted(numbers.items())), tuple(sorted((tuples or {}).items())))
    cached = _HOISTED.get(key)
    if cached is not None and cached[0] is node:
        return cached[1], cached[2]
    found = python_arithmetic(node, numbers, tuples)
    if found is None or found[1] is not None:
        return None
    twin = copy.deepcopy(node)
    body = [twin.body] if isinstance(twin, gast.Lambda) else twin.body
    targets = {id(e) for e in _outermost(body, lambda e, want=_positions(node, found[0]), pos=_Counter(): pos.next(e) in want)}
    exprs = []

    class Hoist(gast.NodeTransformer):
        def visit(self, e: Any) -> Any:
            if id(e) in targets:
                name = f"{HOIST_PREFIX}{len(exprs)}"
                exprs.append((name, e))
                return gast.copy_location(gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None), e)
            return super().visit(e)

    twin = Hoist().visit(twin)
    _HOISTED[key] = (node, twin, exprs)
    return twin, exprs


def _positions(node: Any, found: list) -> set[int]:
    """The walk positions (``_Counter`` order) of ``found`` in ``node``'s body."""
    wanted = {id(e) for e in found}
    body = [node.body] if isinstance(node, gast.Lambda) else node.body
    pos = _Counter()
    out: set[int] = set()
    stack = list(reversed(body))
    while stack:
        e = stack.pop()
        k = pos.next(e)
        if id(e) in wanted:
            out.add(k)
            continue
        stack.extend(reversed(list(gast.iter_child_nodes(e))))
    return out


class _Counter:
    """Numbers the nodes of an ``_outermost`` walk in the order visited."""

    def __init__(self) -> None:
        self.k = -1

    def next(self, _: Any) -> int:
        self.k += 1
        return self.k
