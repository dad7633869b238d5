"""Values whose eager kind depends on the path taken: a run-time kind tag.

Eager Python decides per call, by the data, which object a variable holds
after a traced ``if`` or loop::

    s = 0.0                  # a Python float
    if x[0] > 0:             # traced: lax.cond
        s = s + x[1]         # a jax.Array on this path
    return s                 # 0.0 or Array(..., dtype=float32), by the data

Such a value is a ``KindedValue`` (``ir.core``): one variant per kind it may
have, each of its exact type (the Python float as float64, the jax.Array as
float32), and a traced int32 ``tag`` naming the variant that holds eager's
value on this call.

Requires: ``ir.core.KindedValue``; the ``Specializer`` state (mixed in):
``emit_call``, ``convert``, ``_zeros`` and the branch join of ``control``
(``_join_branch_name``, ``_emit_branch_op``), which makes ``KindedValue``
templates where paths give values of different kinds (``join_kinds``).
Produces: ``kind_class`` (the kind a variant stands for: "python:float",
"jax:float32", "none", ...); the pytree node of ``KindedValue`` (children: the
tag, then the variants), whose ``tree_unflatten`` of concrete arrays is the
object of eager's kind picked by the tag (how a segment's output, on the
general path and the fast path alike, becomes eager's object);
``KindTagMixin``: ``fit_kinds`` (one path's value in a join's form: its tag a
constant, the other variants zeros), ``split_kinds`` (an operation on kinded
operands: run once per combination of their variants, in the branches of a
``lax.switch`` on the combined tag, the results joined as a traced ``if``'s;
a select of all branches where none has an effect), ``select_join`` (the
operands of a traced ``and``/``or``), ``none_narrowing`` (``n is None``: each
branch sees what ``n`` can be there), ``collapsed_jax_call`` (a JAX function
of more kinded values than ``split_kinds`` takes, where JAX's conversions of
every kind give one dtype).
Where the kind is observed: ``interpreter``/``calls`` split operators, truth
tests, attributes, subscripts, ``is`` and calls of builtins, array functions
and printers (``print(s)``, ``isinstance(s, float)``, ``float(s)``,
``f"{s:.3f}"``) per kind; a function converted inline gets the value itself.
Invariants: each variant holds eager's value exactly on the paths whose tag
names it (its own dtype, 64-bit Python numbers included); an operation on
kinded operands computes on each path what eager computes with that path's
objects, its effects (prints, run-time checks) on the taken path only; a
``KindedValue`` is never an operand of an op (``emit_call`` refuses one: the
site falls back, as before the tag).
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import ArrayType, CallOp, IfOp, KindedValue, Region, SwitchOp, TreeVariant, Value, is_extended, walk_ops
from .carried import Traced as _Traced, flatten_carried as _flatten, flatten_joined as _flatten_joined
from .lattice import INT_BITS
from ..graphlib.trees import tree_flatten

KEEP_BINDING = object()   # a narrowing that leaves the variable as it is on one side
_PURE_TRUTH = (bool, int, type(None), str, float)   # types whose truth test runs no user code

TAG_TYPE = ArrayType((), np.dtype(np.int32))
# ``None`` on some paths (``best = None``, then an array under a traced ``if``): a
# variant of its own, a placeholder in the graph; eager's object is None
NONE_KEY = "none"
NONE_TYPE = ArrayType((), np.dtype(bool))
# A static immutable object on some paths that has no array form (a str, a
# tuple of static numbers, ``None`` inside a tuple): a variant of its own,
# like None's, named by its type and repr; eager's object is that object
CONST_PREFIX = "const:"
_CONSTANTS: dict[str, Any] = {}
_CONST_SCALARS = (bool, int, float, complex, str, bytes, type(None))
_PYTHON_NAMES = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
MAX_COMBINATIONS = 16   # variant combinations of one operation's kinded operands (each a branch)


def is_constant_alternative(x: Any) -> bool:
    """``x`` may be a constant variant: a str or bytes, or a tuple (of
    exactly that type) of such objects, static numbers, None and such
    tuples. Immutable, so the one trace-time object can be eager's on every
    call; a bare number or None has a variant of its own kind instead. A
    class (``type(r)`` where ``r``'s kind depends on the path) is one too:
    eager's ``type()`` gives the same class object on every call; so is a
    builtin NumPy dtype (``r.dtype``: NumPy's one object for float64)."""
    if type(x) in (str, bytes) or _singleton(x):
        return True
    return type(x) is tuple and all(_static_scalar(e) or type(e) is tuple and is_constant_alternative(e) for e in x)


def _singleton(x: Any) -> bool:
    """A class, or a builtin NumPy dtype: one object, compared by identity."""
    return isinstance(x, type) or isinstance(x, np.dtype) and x.isbuiltin == 1


def _static_scalar(e: Any) -> bool:
    """A number, str, bytes or None, or a NumPy scalar (all immutable)."""
    return type(e) in _CONST_SCALARS or isinstance(e, np.generic) and not isinstance(e, np.void)


# A tuple holding graph values on some paths and another object on others
# (``None``, then ``(loss, w)``): a variant of its own, a ``TreeVariant``
# (its leaves are carried), named by the tuple's structure
TREE_PREFIX = "tree:"


def is_tree_alternative(x: Any) -> bool:
    """``x`` may be a tuple variant: a tuple or namedtuple whose items are
    graph values, static numbers, None, str or such tuples, with at least one
    graph value (immutable, so eager's object is rebuilt from its leaves
    after each call without another object seeing the difference)."""
    def ok(e: Any) -> bool:
        return _graph_leaf(e) or _static_scalar(e) \
            or isinstance(e, tuple) and _plain_tuple(e) and all(ok(i) for i in e)

    return isinstance(x, tuple) and _plain_tuple(x) and all(ok(e) for e in x) and not is_constant_alternative(x)


def _graph_leaf(e: Any) -> bool:
    """A graph value, or a join's template of one (``_Traced``)."""
    return isinstance(getattr(e, "type", None), ArrayType) and type(e) is not TreeVariant


def _plain_tuple(x: tuple) -> bool:
    return type(x) is tuple or hasattr(type(x), "_fields")   # a tuple or a namedtuple


def tree_key(x: Any) -> str:
    """The variant key of a tuple variant: its structure, static leaves included."""
    leaves, treedef = tree_flatten(x, is_leaf=_graph_leaf)
    # (the static leaves by type: tuples that differ in a static number join it as a traced one)
    return f"{TREE_PREFIX}{treedef}{tuple('*' if _graph_leaf(e) else type(e).__name__ for e in leaves)}"


def variant_object(key: str, variant: Any) -> Any:
    """What eager's code sees on the paths whose tag names ``key``: None, a
    constant, a tuple variant's tuple, or the graph value itself."""
    if key.startswith(TREE_PREFIX):
        return variant.tree if isinstance(variant, TreeVariant) else variant
    return key_object(key) if placeholder_key(key) else variant


def constant_key(x: Any) -> str:
    """The variant key of a constant alternative (equal objects: one key; a
    class or dtype by its identity, as two classes may have one name and repr)."""
    key = f"{CONST_PREFIX}{type(x).__name__}:{x!r}@{id(x):x}" if _singleton(x) else \
        f"{CONST_PREFIX}{type(x).__name__}:{x!r}"
    _CONSTANTS.setdefault(key, x)
    return key


def placeholder_key(key: str) -> bool:
    """A variant whose graph value is a placeholder: None's, a constant's."""
    return key == NONE_KEY or key.startswith(CONST_PREFIX)


def key_object(key: str) -> Any:
    """The object a placeholder variant stands for."""
    return None if key == NONE_KEY else _CONSTANTS[key]


def kinded_operand(region: Region) -> str | None:
    """The first op (its name) that uses a ``KindedValue`` as an operand or a
    yield anywhere in ``region``; None when none does (the invariant)."""
    def bad(values: Any) -> bool:
        return any(type(v) is KindedValue for v in values)

    if bad(region.yields):
        return "a region's results"
    for op in walk_ops(region):
        if bad(op.operands()) or any(bad(r.yields) or bad(r.args) for r in op.regions()):
            return getattr(op, "name", "") or type(op).__name__
    return None


def kind_class(t: ArrayType) -> str | None:
    """The kind of object eager has for a value of type ``t``, with its
    dtype: "jax:float32" ("jax:float32~" weakly typed), "numpy:float64" (an
    ndarray, or a NumPy scalar when 0-d), "array0:int64" (a 0-d ndarray),
    "python:float" (and ":int", ":bool", ":complex": the dtype is the Python
    type's); None where it is not one (a path-dependent kind without a tag,
    an extended dtype)."""
    if t.mixed or is_extended(t.dtype):
        return None
    if t.python:
        return "python:" + _PYTHON_NAMES.get(t.dtype.kind, "float")
    if t.numpy:
        return ("array0:" if t.array0 else "numpy:") + t.dtype.name
    return "jax:" + t.dtype.name + ("~" if t.weak_type else "")


def kind_family(key: str) -> str:
    """A kind class without its dtype (a Python number keeps its type: an int
    and a float are different objects; each constant is its own)."""
    return key if key.startswith(("python", CONST_PREFIX, TREE_PREFIX)) else key.split(":")[0]


def variants_of(x: Any) -> list[tuple[str, ArrayType]] | None:
    """(kind class, type) of each kind a join operand may have: a
    ``KindedValue``'s variants, a value's or template's one kind, a static
    number's; None where it has no such description."""
    from .lattice import abstract_type

    if isinstance(x, KindedValue):
        return [(k, v.type) for k, v in zip(x.keys, x.variants)]
    if x is None:
        return [(NONE_KEY, NONE_TYPE)]
    if is_constant_alternative(x):
        return [(constant_key(x), NONE_TYPE)]
    if is_tree_alternative(x):
        return [(tree_key(x), NONE_TYPE)]
    t = x.type if hasattr(x, "type") and isinstance(getattr(x, "type"), ArrayType) else abstract_type(x)
    if t is None:
        return None
    key = kind_class(t)
    return None if key is None else [(key, t)]


def kinded_in(tree: Any) -> bool:
    return any(isinstance(x, KindedValue) for x in tree_flatten(tree, leaf_types=(Value,))[0])


# ----------------------------------------------------------------- host side
def eager_object(a: Any, key: str) -> Any:
    """An array computed by a graph as the object eager has for kind ``key``
    (one already of that kind is returned as it is)."""
    kind = key.split(":")[0]
    if placeholder_key(key):
        return key_object(key)
    if key.startswith(TREE_PREFIX):
        return a   # (its leaves came back each of its eager kind)
    if kind == "python":
        if type(a) in (bool, int, float, complex):
            return a
        from ..graphlib.casts import to_python_number

        return to_python_number(a)
    if kind == "numpy":
        if isinstance(a, np.generic) or isinstance(a, np.ndarray) and a.ndim:
            return a
        x = np.array(a)
        return x[()] if x.ndim == 0 else x
    if kind == "array0":
        return a if isinstance(a, np.ndarray) else np.array(a)
    return a if isinstance(a, jax.Array) else jnp.asarray(a)


def _concrete(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic, int)) or isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer)


def _flatten_kinded(k: KindedValue) -> tuple:
    return (k.tag, *k.variants), k.keys


def _unflatten_kinded(keys: tuple, children: Any) -> Any:
    tag, *variants = children
    if _concrete(tag):   # a segment's output or a host callback's argument: eager's object
        k = int(np.asarray(tag))
        return eager_object(variants[k], keys[k])
    if all(isinstance(getattr(c, "type", None), ArrayType) for c in children):
        return KindedValue(tag, variants, keys)   # a join's template (_Traced) or values
    return _Parts(children, keys)


class _Parts(tuple):
    """A kinded node rebuilt from other leaves (a tracer, a placeholder): its children."""

    def __new__(cls, children: Any, keys: tuple) -> "_Parts":
        out = super().__new__(cls, children)
        out.keys = keys   # type: ignore[attr-defined]
        return out


jax.tree_util.register_pytree_node(KindedValue, _flatten_kinded, _unflatten_kinded)


def _unflatten_tree_variant(_: Any, children: Any) -> Any:
    tree = children[0]
    graph = any(isinstance(getattr(x, "type", None), ArrayType) for x in jax.tree_util.tree_leaves(tree))
    return TreeVariant(tree) if graph else tree   # a template's, or eager's tuple after a call


jax.tree_util.register_pytree_node(TreeVariant, lambda t: ((t.tree,), None), _unflatten_tree_variant)


# ------------------------------------------------------------- graph ops
def tag_constant(k: int) -> Any:
    return jnp.asarray(k, jnp.int32)


def combined_tag(*tags: Any, sizes: tuple = ()) -> Any:
    """The index of a combination of variants: mixed radix of the tags."""
    out = jnp.asarray(0, jnp.int32)
    for tag, size in zip(tags, sizes):
        out = out * size + tag
    return out


def remap_tag(tag: Any, table: tuple) -> Any:
    """A tag of one variant order as the tag of another (``table[tag]``)."""
    return jnp.asarray(table, jnp.int32)[tag]


def select_variant(index: Any, *cases: Any) -> Any:
    return jax.lax.select_n(index, *cases)


_MAX_EVALUATED = 256   # combinations of converted kinds a collapsed JAX call is evaluated for


def _abstract_results(callee: Any, treedef: Any, leaves: list) -> tuple | None:
    """(tree, avals) of ``callee`` on abstract operands, as eager's JAX types
    them; None where it cannot be evaluated so."""
    positions = [i for i, x in enumerate(leaves) if isinstance(x, jax.ShapeDtypeStruct)]

    def run(*arrays: Any) -> Any:
        filled = list(leaves)
        for i, a in zip(positions, arrays):
            filled[i] = a
        a, kw = jax.tree_util.tree_unflatten(treedef, filled)
        return callee(*a, **kw)

    try:
        out = jax.eval_shape(run, *[leaves[i] for i in positions])
    except Exception:  # noqa: BLE001 - not a JAX function of arrays here: the caller splits or falls back
        return None
    flat, tree = jax.tree_util.tree_flatten(out)
    if not all(isinstance(a, jax.ShapeDtypeStruct) for a in flat):
        return None
    return tree, flat


def _pure(region: Region) -> bool:
    """A region whose ops are calls without effects (a select may run them all)."""
    for op in walk_ops(region):
        if not isinstance(op, CallOp) or not op.results or getattr(op.fn, "_a2g_effect", False) \
                or getattr(op.fn, "_a2g_host_print", False):
            return False
    return all(not op.regions() for op in region.ops)


class _NoFormat:
    """An exemplar no format accepts: a tuple variant is formatted in Python."""

    def __format__(self, spec: str) -> str:
        raise TypeError("a tuple variant")

    __str__ = __repr__ = lambda self: _NoFormat.__format__(self, "")


class KindTagMixin:
    """The Specializer's handling of ``KindedValue``s (see the module docstring)."""

    def tag_value(self, k: int, node: Any) -> Value:
        """The constant tag ``k`` (never folded: a join's tags are graph values)."""
        v = Value(TAG_TYPE, "kind")
        self.region.ops.append(CallOp([v], self.loc(node), tag_constant, jax.tree_util.tree_structure(((k,), {})),
                                      [k], "kind tag"))
        return v

    # ------------------------------------------------------------ joins
    def fit_kinds(self, value: Any, template: Any, node: Any) -> Any:
        """``value`` (one path's) in the form of ``template``: where the join is
        a ``KindedValue``, a value of one kind becomes one with that kind's tag
        and zeros in the other variants; a kinded one with fewer or other-ordered
        variants has its tag mapped. The same tree where the template has none."""
        from ..graphlib.trees import keyed

        tleaves, ttree = _flatten_joined(template)
        if not any(isinstance(t, KindedValue) for t in tleaves):
            return value
        vleaves, vtree = _flatten_joined(value)
        if vtree != ttree:   # a constant of another structure where the join has a kind tag: one variant
            try:
                vleaves, vtree = ttree.flatten_up_to(keyed(value)), ttree
            except (ValueError, TypeError):
                return value   # a structure the join refused already
        out = [self._fit_leaf(v, t, node) if isinstance(t, KindedValue) else v for v, t in zip(vleaves, tleaves)]
        return jax.tree_util.tree_unflatten(vtree, out)

    def _fit_leaf(self, leaf: Any, t: KindedValue, node: Any) -> KindedValue:
        slots = [v.type for v in t.variants]
        if isinstance(leaf, KindedValue):
            where = [t.keys.index(k) for k in leaf.keys]
            tag = leaf.tag if where == list(range(len(where))) else \
                self.emit_call(remap_tag, (leaf.tag, tuple(where)), {}, node, "kind tag")
            have = dict(zip(where, leaf.variants))
        else:
            key = variants_of(leaf)[0][0]
            tag = self.tag_value(t.keys.index(key), node)
            have = {t.keys.index(key): leaf}
        variants = []
        for j, s in enumerate(slots):
            if t.keys[j].startswith(TREE_PREFIX):
                variants.append(self._fit_tree(have.get(j), t.variants[j], node))
                continue
            if j in have and not placeholder_key(t.keys[j]):
                v = self.convert(have[j], s, node)
                if type(have[j]) in (bool, int) and s.python and s.dtype.kind in "iu":
                    INT_BITS[v] = abs(have[j]).bit_length()   # a static Python int: its bits are known
            else:
                v = self._zeros(s, node)   # (never read: the tag names another variant)
                if s.python and s.dtype.kind in "iu":
                    INT_BITS[v] = 0
            variants.append(v)
        return KindedValue(tag, variants, t.keys)

    def _fit_tree(self, value: Any, template: Any, node: Any) -> TreeVariant:
        """One path's tuple in the form of a tuple variant's template (its
        nested kind tags fitted; ``_coerce_all`` converts the leaves); zeros
        of the template's leaves where the path has another variant."""

        tree = template.tree
        if value is None:
            leaves, treedef = _flatten(tree)
            return TreeVariant(jax.tree_util.tree_unflatten(
                treedef, [self._zeros(x.type, node) if isinstance(x, _Traced) else x for x in leaves]))
        return TreeVariant(self.fit_kinds(value.tree if isinstance(value, TreeVariant) else value, tree, node))

    # ------------------------------------------------------- operations
    @staticmethod
    def kind_combinations(tree: Any) -> int:
        """How many combinations of variants the ``KindedValue``s in ``tree`` have."""
        leaves = tree_flatten(tree, leaf_types=(Value,))[0]
        kinded = {id(x): x for x in leaves if isinstance(x, KindedValue)}
        return math.prod(len(k.variants) for k in kinded.values())

    def split_kinds(self, tree: Any, compute: Callable[[Any], Any], node: Any) -> Any:
        """``compute(tree)`` where ``tree`` holds ``KindedValue``s: once per
        combination of their variants, each in a branch of a switch on the
        combined tag, the results joined (a ``KindedValue`` where their kinds
        differ)."""
        leaves, treedef = tree_flatten(tree, leaf_types=(Value,))
        kinded = list({id(x): x for x in leaves if isinstance(x, KindedValue)}.values())
        sizes = [len(k.variants) for k in kinded]
        if math.prod(sizes) > MAX_COMBINATIONS:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "too many operands whose kind (NumPy array, "
                                   "Python number or jax.Array) depends on the path taken")
        index = kinded[0].tag if len(kinded) == 1 else \
            self.emit_call(combined_tag, tuple(k.tag for k in kinded), {"sizes": tuple(sizes)}, node, "kind tag")
        branches = []
        for combo in itertools.product(*(range(n) for n in sizes)):
            pick = {id(k): variant_object(k.keys[c], k.variants[c]) for k, c in zip(kinded, combo)}
            filled = [pick.get(id(x), x) if isinstance(x, KindedValue) else x for x in leaves]
            region = Region()
            with self.in_region(region):
                out = compute(jax.tree_util.tree_unflatten(treedef, filled))
            branches.append((region, out))
        return self._join_split(node, index, branches)

    def _join_split(self, node: Any, index: Value, branches: list) -> Any:

        outs = [out for _, out in branches]
        template = self._join_branch_name(node, "the result (its operands' kind depends on the path taken)", outs)
        tleaves, ttree = _flatten(template)
        if not any(r.ops for r, _ in branches) and not any(isinstance(x, _Traced) for x in tleaves):
            return template   # the same static answer for every kind (``x.shape``)
        self.decide(node, "kinds", "per kind", "an operand's kind depends on the path taken: computed for each kind, "
                    "the taken one picked by its run-time kind tag")
        results = self._emit_branch_op(node, index, [(r, {"<kinds>": o}) for r, o in branches], ["<kinds>"],
                                       [template], switch=True)
        self._hoist_if_pure(node)
        out = jax.tree_util.tree_unflatten(ttree, [next(results) if isinstance(x, _Traced) else x for x in tleaves])
        if all(self._made_in_branch(o) for o in outs):
            # every kind's call made its own lists and dicts (``jax.grad(f)(params)``): so is the
            # join's, as eager's one call makes it (control._mark_built)
            self._mark_built(out)
        return out

    def _made_in_branch(self, x: Any) -> bool:
        """Every list and dict in ``x`` (through tuples, lists and dicts) was
        made inside the branch just traced (fresh, deeper than here)."""
        stack = [x]
        while stack:
            y = stack.pop()
            if type(y) in (list, dict):
                entry = self.fresh.get(id(y))
                if entry is None or entry[1] is not y or entry[0] <= self.traced_depth:
                    return False
            if type(y) in (tuple, list):
                stack.extend(y)
            elif type(y) is dict:
                stack.extend(y.values())
        return True

    def select_join(self, node: Any, pred: Value, if_true: Any, if_false: Any) -> Any:
        """``if_true if pred else if_false`` of values already computed (the
        operands of a traced ``and``/``or``), joined as a traced ``if``'s
        results: a ``KindedValue`` where their kinds differ."""

        branches = [(Region(), if_true), (Region(), if_false)]
        template = self._join_branch_name(node, "the result of `and`/`or`", [if_true, if_false])
        tleaves, ttree = _flatten(template)
        results = self._emit_branch_op(node, pred, [(r, {"<select>": o}) for r, o in branches], ["<select>"],
                                       [template], switch=False)
        self._hoist_if_pure(node)
        return jax.tree_util.tree_unflatten(ttree, [next(results) if isinstance(x, _Traced) else x for x in tleaves])

    def _hoist_if_pure(self, node: Any) -> None:
        """The switch (or if) just emitted, when no branch has an effect: its
        branches' ops run unconditionally and each result is a select (XLA
        fuses selects; a switch is a branch at run time)."""
        op = self.region.ops[-1]
        if not isinstance(op, (SwitchOp, IfOp)) or not all(_pure(r) for r in op.regions()):
            return
        self.region.ops.pop()
        branches = op.branches if isinstance(op, SwitchOp) else [op.else_region, op.then_region]
        index = op.index if isinstance(op, SwitchOp) else op.pred   # (select_n: False picks the first case)
        for r in branches:
            self.region.ops.extend(r.ops)
        for k, res in enumerate(op.results):
            cases = [r.yields[k] for r in branches]
            leaves = [index, *cases]
            tree = jax.tree_util.tree_structure(((0,) * len(leaves), {}))
            self.region.ops.append(CallOp([res], self.loc(node), select_variant, tree, leaves, "select kind"))

    # ------------------------------------------------------ `is None` tests
    def none_narrowing(self, test: Any) -> tuple | None:
        """For a test ``n is None`` / ``n is not None`` of a local variable
        holding a ``KindedValue`` that may be None: (n, its value where the
        test holds, its value where it does not): None on one side, the value
        without its None variant on the other (a branch, or the right operand
        of ``and``/``or``, sees what eager's path can have there)."""
        import gast

        if not (isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (gast.Is, gast.IsNot))
                and isinstance(test.left, gast.Name) and isinstance(test.comparators[0], gast.Constant)
                and test.comparators[0].value is None):
            return None
        name = test.left.id
        value = self.frame.env.get(name) if self.frame.owns(name) else None
        if type(value) is not KindedValue or NONE_KEY not in value.keys:
            return None
        other = self._without_none(value, test)
        return (name, None, other) if isinstance(test.ops[0], gast.Is) else (name, other, None)

    def _without_none(self, value: KindedValue, node: Any) -> Any:
        keep = [j for j, k in enumerate(value.keys) if k != NONE_KEY]
        if len(keep) == 1:
            return variant_object(value.keys[keep[0]], value.variants[keep[0]])
        table = tuple(keep.index(j) if j in keep else 0 for j in range(len(value.keys)))
        tag = self.emit_call(remap_tag, (value.tag, table), {}, node, "kind tag")
        return KindedValue(tag, [value.variants[j] for j in keep], tuple(value.keys[j] for j in keep))

    def narrowed(self, narrowing: tuple | None, holds: bool, run: Callable[[], Any]) -> Callable[[], Any]:
        """``run`` with the tested variable bound to its value where the test
        holds (``holds``) or not, for as long as it runs (``KEEP_BINDING``:
        as it is)."""
        if narrowing is None:
            return run
        name, when_true, when_false = narrowing
        value = when_true if holds else when_false
        if value is KEEP_BINDING:
            return run

        def wrapped() -> Any:
            self.frame.env[name] = value
            return run()

        return wrapped

    def test_narrowing(self, test: Any) -> tuple | None:
        """``none_narrowing``, else ``truth_narrowing``."""
        return self.none_narrowing(test) or self.truth_narrowing(test)

    def truth_narrowing(self, test: Any) -> tuple | None:
        """For a test that is a traced 0-d boolean local ``b`` of Python or
        NumPy kind (a ``bool`` or ``np.bool_`` in eager), ``not b``, or an
        ``and``/``or`` of it with terms whose truth is static: (b, its value
        where the test holds, its value where it does not), ``KEEP_BINDING``
        where the test does not decide it. A boolean's truth is its value:
        where ``if vectorized and not has_nan: return ...`` falls through,
        ``has_nan`` is ``True`` (``np.True_``), and the rest of the function
        (run in the other branch) is specialised to that."""
        facts = self._truth_facts(test)
        if facts is None:
            return None
        when_true, when_false, _ = facts
        names = set(when_true) | set(when_false)
        if len(names) != 1:
            return None
        (name,) = names
        return name, when_true.get(name, KEEP_BINDING), when_false.get(name, KEEP_BINDING)

    def _truth_facts(self, node: Any) -> tuple | None:
        """(bindings known where ``node`` is truthy, where it is falsy, its
        static truth or None); None where nothing is known."""
        import gast

        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            inner = self._truth_facts(node.operand)
            return None if inner is None else (inner[1], inner[0], None if inner[2] is None else not inner[2])
        if isinstance(node, gast.Constant) and type(node.value) in _PURE_TRUTH:
            return {}, {}, bool(node.value)
        if isinstance(node, gast.BoolOp):
            return self._bool_op_facts(node, isinstance(node.op, gast.And))
        if not isinstance(node, gast.Name):
            return None
        try:
            value = self.eval(node)
        except Exception:  # noqa: BLE001  (an unbound name: nothing known)
            return None
        if type(value) in _PURE_TRUTH:
            return {}, {}, bool(value)
        if not (isinstance(value, Value) and type(value) is Value and self.frame.owns(node.id)):
            return None
        t = value.type
        if t.shape != () or t.dtype != np.bool_ or t.mixed or t.array0 or not (t.python or t.numpy):
            return None
        yes, no = (True, False) if t.python else (np.True_, np.False_)
        return {node.id: yes}, {node.id: no}, None

    def _bool_op_facts(self, node: Any, is_and: bool) -> tuple | None:
        """``a and b and ...`` is truthy where every term is, falsy where one
        is: the bindings of a falsy ``and`` are known where every other term
        is statically truthy (``or``: the dual)."""
        parts = [self._truth_facts(v) for v in node.values]
        known: dict = {}
        for p in parts:
            if p is not None:
                known.update(p[0] if is_and else p[1])
        open_ = [p for p in parts if p is None or p[2] is None]
        if any(p is not None and p[2] is (not is_and) for p in parts) or not open_:
            return None   # (statically decided: not a traced test)
        other = open_[0][1 if is_and else 0] if len(open_) == 1 and open_[0] is not None else {}
        return (known, other, None) if is_and else (other, known, None)

    # --------------------------------------- JAX functions of many such values
    def collapsed_jax_call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``callee(*args, **kwargs)`` for a JAX function given more values of
        path-dependent kind than ``split_kinds`` runs combinations of
        (``jnp.stack`` of a list of them): eager's JAX converts each to an
        array (a Python float to a weak float32, a NumPy float64 array to
        float32, x64 off); where every combination of those conversions gives
        results of one dtype and shape (JAX's abstract evaluation, every
        combination), the function runs once on each value converted to that
        dtype, and a result's weak type, where it depends on the combination,
        is a kind of its own, picked by a tag. ``NotImplemented`` otherwise."""
        leaves, treedef = tree_flatten((args, kwargs), leaf_types=(Value,))
        kinded = list({id(x): x for x in leaves if isinstance(x, KindedValue)}.values())
        inputs = []   # per kinded value: the aval JAX gives each variant, and the distinct ones
        for k in kinded:
            avals = [self._jax_input(key, v.type) for key, v in zip(k.keys, k.variants)]
            if any(a is None for a in avals) or len({a.dtype for a in avals}) != 1:
                return NotImplemented
            inputs.append((avals, sorted(set(avals), key=lambda a: a.weak_type)))
        sizes = [len(d) for _, d in inputs]
        if math.prod(sizes) > _MAX_EVALUATED:
            return NotImplemented
        plain = {id(x): self._jax_input(variants_of(x)[0][0], x.type) for x in leaves
                 if isinstance(x, Value) and not isinstance(x, KindedValue)}
        if any(a is None for a in plain.values()):
            return NotImplemented
        where = {id(k): n for n, k in enumerate(kinded)}
        results = []
        for combo in itertools.product(*(range(n) for n in sizes)):
            abstract = [inputs[where[id(x)]][1][combo[where[id(x)]]] if isinstance(x, KindedValue) else
                        plain[id(x)] if isinstance(x, Value) else x for x in leaves]
            out = _abstract_results(callee, treedef, abstract)
            if out is None:
                return NotImplemented
            results.append(out)
        if any(r[0] != results[0][0] or [(a.shape, a.dtype) for a in r[1]] != [(a.shape, a.dtype) for a in results[0][1]]
               for r in results):
            return NotImplemented
        strong = {id(k): self._select_converted(k, inputs[n][0][0].dtype, node) for n, k in enumerate(kinded)}
        filled = [strong.get(id(x), x) if isinstance(x, KindedValue) else x for x in leaves]
        a, kw = jax.tree_util.tree_unflatten(treedef, filled)
        self.decide(node, "kinds", "per kind", "operands whose kind depends on the path taken, converted as JAX "
                    "converts each kind: one dtype whatever the path")
        out = self.call(callee, a, kw, node)
        return self._weak_by_combination(out, kinded, inputs, results, node)

    def _jax_input(self, key: str, t: ArrayType) -> Any:
        """The aval eager's JAX gives an operand of kind ``key`` (None: not modelled)."""
        from .lattice import canonical_type

        kind = key.split(":")[0]
        if placeholder_key(key) or key.startswith(TREE_PREFIX) or key == "python:int" or is_extended(t.dtype):
            return None   # (a Python int beyond int32 raises in eager's JAX)
        weak = kind == "python" and key != "python:bool" or kind == "jax" and t.weak_type
        dtype = t.dtype if self.user_x64 else canonical_type(t).dtype
        return jax.ShapeDtypeStruct(t.shape, dtype, weak_type=weak)

    def _select_converted(self, k: KindedValue, dtype: np.dtype, node: Any) -> Value:
        """A kinded value as the strong array of ``dtype`` that JAX makes of it on every path."""
        from ..graphlib import arrays

        cases = []
        for v in k.variants:
            c = self.emit_call(arrays.cast, (v, dtype, False), {}, node, "convert")
            c.type = c.type.with_kinds(("jax",))
            cases.append(c)
        out = Value(ArrayType(k.variants[0].type.shape, np.dtype(dtype)), "kinds")
        tree = jax.tree_util.tree_structure(((0,) * (len(cases) + 1), {}))
        self.region.ops.append(CallOp([out], self.loc(node), select_variant, tree, [k.tag, *cases], "select kind"))
        return out

    def _weak_by_combination(self, out: Any, kinded: list, inputs: list, results: list, node: Any) -> Any:
        """The results of a collapsed call, each whose weak type depends on the
        combination of its operands' kinds a ``KindedValue`` of its two forms."""
        from ..graphlib import arrays

        leaves, tree = tree_flatten(out, leaf_types=(Value,))
        values = [x for x in leaves if isinstance(x, Value)]
        if len(values) != len(results[0][1]):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a JAX function of values whose kind depends on "
                                   "the path taken returned another structure than its abstract evaluation")
        index = None
        fixed = {}
        for j, v in enumerate(values):
            flags = [r[1][j].weak_type for r in results]
            if len(set(flags)) == 1:
                if flags[0] != v.type.weak_type:
                    fixed[id(v)] = self.emit_call(arrays.cast, (v, v.type.dtype, flags[0]), {}, node, "convert")
                continue
            if index is None:   # which combination of converted kinds this call has
                parts = [self.emit_call(remap_tag, (k.tag, tuple(d.index(a) for a in avals)), {}, node, "kind tag")
                         for k, (avals, d) in zip(kinded, inputs)]
                index = parts[0] if len(parts) == 1 else self.emit_call(
                    combined_tag, tuple(parts), {"sizes": tuple(len(d) for _, d in inputs)}, node, "kind tag")
            strong = v if not v.type.weak_type else self.emit_call(arrays.cast, (v, v.type.dtype, False), {}, node, "convert")
            weak = self.emit_call(arrays.cast, (v, v.type.dtype, True), {}, node, "convert")
            tag = self.emit_call(remap_tag, (index, tuple(int(f) for f in flags)), {}, node, "kind tag")
            keys = (kind_class(strong.type), kind_class(weak.type))
            fixed[id(v)] = KindedValue(tag, [strong, weak], keys)
        return jax.tree_util.tree_unflatten(tree, [fixed.get(id(x), x) if isinstance(x, Value) else x for x in leaves])

    def kinded_exemplars(self, v: KindedValue) -> tuple:
        """Objects of every class eager may have for ``v`` (for formatting checks)."""
        from .kinds import array_exemplars

        return tuple(e for k, x in zip(v.keys, v.variants)
                     for e in ((key_object(k),) if placeholder_key(k) else (_NoFormat(),) if k.startswith(TREE_PREFIX)
                               else array_exemplars(x.type, self.outer_traced)))
