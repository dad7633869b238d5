"""h-hunt18: silent wrong results found by probing realistic programs
(consumers of generator expressions with effects, augmented assignments into
held NumPy arrays, printed objects holding traced values, math.prod), each
compared with eager over calls whose data take every path."""

from __future__ import annotations

import math
import operator

import jax.numpy as jnp
import numpy as np

from ast2graph import to_static
from helpers import assert_same, check_calls, check_sequence


# ------------------------------------------- any/all/next/for-break stop pulling a generator expression
def _checked(v):
    print("checking", v)
    return v < 0


def test_any_and_all_of_a_generator_expression_stop_where_eager_stops():
    def has_negative(x):
        return any(_checked(v) for v in x)

    def all_negative(x):
        vals = (_checked(v) for v in x)
        return all(vals)

    def logged(x):
        seen = []
        return any(seen.append(float(v)) or v > 1 for v in x), seen

    def first_negative(x):
        n = 0
        for flag in (_checked(v) for v in x):
            n += 1
            if flag:
                break
        return n

    def checked_index(x):
        return any([1, 2][int(v)] > 1 for v in x)   # eager never reaches the bad index once one is True

    calls = [(np.array([1.0, -1.0, 2.0]),), (np.array([1.0, 2.0]),), (np.array([-3.0, 2.0]),)]
    for fn in (has_negative, all_negative, logged, first_negative):
        check_calls(fn, calls, full_graph=False)
    check_calls(checked_index, [(np.array([1.0, 5.0]),), (np.array([0.0, 1.0]),)], full_graph=False)


def test_a_pure_generator_expression_under_any_and_all_stays_one_graph():
    def flags(x):
        return any(v > 0 for v in x), all(v > 0 for v in x), any(v > 0 for v in [1.0, x[0]])

    check_calls(flags, [(np.array([1.0, -1.0, 2.0]),), (np.array([-1.0, -2.0, -3.0]),)])


# ------------------------------------------- `lst[k] op= v` / `obj.w op= v` on a NumPy array writes it in place
class _Holder:
    def __init__(self, w):
        self.w = w


def test_an_augmented_assignment_into_a_held_numpy_array_writes_that_array():
    def shared_items(lst, x):
        lst[0] += x   # lst[1] is the same array: eager's write shows through it
        return lst[1]

    def params_step(x):
        w = np.zeros(2)
        params = {"w": w, "b": np.zeros(())}
        for _ in range(3):
            params["w"] += x
            params["b"] += 1.0
        return w, params

    def attribute_of_a_new_object(x):
        w = np.zeros(2)
        h = _Holder(w)
        h.w += x
        return w, h.w is w

    def jax_operand_rebinds(d, x):
        kept = d["a"]
        d["a"] += jnp.asarray(x)   # NumPy defers to the jax.Array: a new object, `kept` unchanged
        d["n"] += 1
        return kept, d

    xs = [(np.array([1.0, 2.0]),), (np.array([-1.0, 0.5]),)]
    check_calls(shared_items, [([np.zeros(2)] * 2, np.array([1.0, 2.0]))], full_graph=False)
    check_calls(params_step, xs)
    check_calls(attribute_of_a_new_object, xs)
    check_calls(jax_operand_rebinds, [({"a": np.ones(2), "n": 1}, np.ones(2))])


def test_an_augmented_assignment_into_an_arguments_array_keeps_the_callers_array():
    def scale_all(d, x):
        for k in d:
            d[k] *= x

    def shift(o, x):
        o.w -= x
        return o.w.sum()

    for fn, make in ((scale_all, lambda: {"a": np.ones(2), "b": np.arange(2.0)}), (shift, lambda: _Holder(np.ones(2)))):
        converted = to_static(fn)
        for x in (np.array([2.0, 3.0]), np.array([-1.0, 0.5])):
            theirs, mine = make(), make()
            held_theirs = list(theirs.values()) if isinstance(theirs, dict) else [theirs.w]
            held_mine = list(mine.values()) if isinstance(mine, dict) else [mine.w]
            assert_same(fn(theirs, x), converted(mine, x))
            now_mine = list(mine.values()) if isinstance(mine, dict) else [mine.w]
            assert all(a is b for a, b in zip(held_mine, now_mine))   # the caller's very arrays, written
            assert_same(held_theirs, held_mine)


# ------------------------------------------- print of an object of the user's holding traced values
class _Point:
    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return f"Point({self.v:.2f})"


class _Named:
    def __init__(self, v):
        self.v = v

    def __str__(self):
        return "named " + str(self.v)


def test_printing_an_object_holding_traced_values_prints_its_text():
    def show(x):
        p = _Point(x[0])
        print(p)
        print("and", _Named(x[1]), sep=": ")
        return x

    def in_a_list(x):
        print([_Point(x[0])])   # a container of them: the text is made in Python
        return x

    calls = [(np.array([1.5, -2.0]),), (jnp.array([-1.0, 3.0]),)]
    check_calls(show, calls)
    check_calls(in_a_list, calls, full_graph=False)


# ------------------------------------------- a generator expression with effects, interleaved with its consumer
def _shown(v):
    print("show", v)
    return v * 2


def _gen_logged(x):
    for v in x:
        print("gen", v)
        yield v


def test_a_generator_expression_with_a_print_interleaves_with_its_consumer_as_eager():
    def comprehension_over_it(x):
        return [_shown(v) for v in (_checked(v) for v in x)]

    def summed(x):
        return sum(_shown(v) for v in (_checked(v) for v in x))

    def for_over_it(x):
        out = []
        for flag in (_checked(v) for v in x):
            out.append(_shown(flag))
        return out

    def mapped(x):   # map's function runs between the items: in Python
        return list(map(_shown, (_checked(v) for v in x)))

    def mapped_generator(x):
        return list(map(_shown, _gen_logged(x)))

    calls = [(np.array([1.5, -2.0]),), (np.array([-1.0, 3.0, 0.5]),)]
    for fn in (comprehension_over_it, summed, for_over_it):
        check_calls(fn, calls)
    for fn in (mapped, mapped_generator):   # (tracing must not run the function natively: no text printed then)
        check_calls(fn, calls, full_graph=False)


# ------------------------------------------- math.prod multiplies as eager's `*` does
def test_math_prod_of_traced_numbers_multiplies_in_eagers_kinds():
    def products(x):
        floats = x.tolist()
        return math.prod(floats), math.prod(floats, start=2), math.prod(x), math.prod([x[0], x[1]]), math.prod([])

    check_calls(products, [(np.array([0.1, 0.2, 0.3]),), (np.array([0.1, 0.2, 0.3], np.float32),)])
    check_calls(products, [(np.array([1, 2, 3]),)], full_graph=False)   # (a Python int may leave int64)


# ------------------------------------------- an f-string evaluates each field once, in eager's order
class _Logged:
    def __init__(self, v):
        self._v = v

    @property
    def v(self):
        print("read v")
        return self._v


def test_an_f_string_of_traced_fields_evaluates_each_field_once():
    def describe(x):
        p = _Logged(x[0])
        it = iter([10, 20, 30])
        return f"{next(it)}: {p.v:.1f} then {p.v * 2} and {next(it)}", next(it)

    check_calls(describe, [(np.array([1.5, 2.0]),), (np.array([-1.0, 3.0]),)])


# ------------------------------------------- out= into an array held by an attribute
class _Weights:
    def __init__(self):
        self.w = np.ones(2)


def test_a_numpy_call_writing_out_into_an_attribute_writes_that_array():
    def made_here(x):
        o = _Weights()
        o.w = np.zeros(2)
        np.add(o.w, x, out=o.w)
        return o.w

    def argument_objects(x, o):
        np.multiply(o.w, x, out=o.w)
        np.copyto(o.w, o.w + 1)
        return o.w

    check_calls(made_here, [(np.array([1.0, 2.0]),), (np.array([-1.0, 0.5]),)], full_graph=False)
    converted = to_static(argument_objects)
    for x in (np.array([2.0, 3.0]), np.array([-1.0, 0.5])):
        theirs, mine = _Weights(), _Weights()
        held_theirs, held_mine = theirs.w, mine.w
        assert_same(argument_objects(x, theirs), converted(x, mine))
        assert mine.w is held_mine
        assert_same(held_theirs, held_mine)


def test_a_numpy_method_writing_an_attributes_array_in_place_writes_it():
    # o.w.sort(), o.w.fill(v), np.add.at(o.w, ...), np.cumsum(x, out=o.w), np.clip(.., out=o.w):
    # the write reaches the object's very array (the graph dropped it)
    def sort_it(o, x):
        o.w.sort()
        return o.w

    def fill_it(o, x):
        o.w.fill(x[0])
        return o.w

    def add_at(o, x):
        np.add.at(o.w, [0, 0], x[0])
        return o.w

    def cumsum_into(o, x):
        np.cumsum(x, out=o.w)
        return o.w

    def clip_in_place(o, x):
        np.clip(o.w, 0, x[1], out=o.w)
        return o.w

    for fn in (sort_it, fill_it, add_at, cumsum_into, clip_in_place):
        converted = to_static(fn)
        for x in (np.array([5.0, 6.0]), np.array([-1.0, 0.5])):
            theirs, mine = _Weights(), _Weights()
            theirs.w[:] = mine.w[:] = [3.0, 1.0]
            held_theirs, held_mine = theirs.w, mine.w
            assert_same(fn(theirs, x), converted(mine, x))
            assert mine.w is held_mine
            assert_same(held_theirs, held_mine)


# ------------------------------------------- operator.iadd & co. of a NumPy array write it in place
def test_operator_iadd_of_a_numpy_array_writes_it_in_place():
    def accumulate(a, x):
        operator.imul(a, 2)
        b = operator.iadd(a, x)
        return b is a, a

    def summed(a, x):
        s = x.copy()
        for v in a:
            operator.isub(s, v)
        return s

    def through_a_list(a, x):
        operator.iadd([a][0], x)
        return a

    calls = [(np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0])), (np.array([-1.0, 0.0, 2.0]), np.ones(3))]
    check_calls(accumulate, calls)
    check_calls(summed, calls)
    check_calls(through_a_list, calls, full_graph=False)


# ------------------------------------------- `d[key(v)] += 1` evaluates the container and the key once
def _bucket(v):
    print("bucket", v)
    return "pos" if v > 0 else "neg"


class _Box:
    def __init__(self):
        self.n = 0


_BOX = _Box()


def _get_box():
    print("get")
    return _BOX


def test_an_augmented_assignment_evaluates_its_target_once():
    def histogram(x):
        counts = {"pos": 0, "neg": 0}
        for v in x.tolist():
            counts[_bucket(v)] += 1
        return counts

    def via_call(x):
        _get_box().n += 1
        return x * 2

    calls = [(np.array([1.0, -2.0, 3.0]),), (np.array([-1.0, -2.0]),)]
    check_calls(histogram, calls, full_graph=False)
    check_calls(via_call, calls, full_graph=False)


def test_a_pure_generator_expression_zipped_in_a_breaking_loop_stays_one_graph():
    def paired(x, y):   # (NumPy's float64 products: their RuntimeWarnings never stop the list)
        out = []
        for a, b in zip((v * 2 for v in x), y):
            if a > b:
                break
            out.append(a - b)
        return out

    check_calls(paired, [(np.array([1.0, 2.0, 3.0]), np.array([1.0, 5.0, 0.5])),
                         (np.array([1.0, 2.0, 3.0]), np.array([5.0, 5.0, 9.0]))])


# ------------------------------------------- a realistic NumPy optimizer: momentum buffers and parameters in place
class _SGD:
    def __init__(self, params, lr=0.1, momentum=0.9):
        self.params, self.lr, self.m = params, lr, momentum
        self.v = {k: np.zeros_like(p) for k, p in params.items()}
        self.steps = 0

    def step(self, grads):
        self.steps += 1
        for k, g in grads.items():
            self.v[k] *= self.m
            self.v[k] -= self.lr * g
            self.params[k] += self.v[k]


def test_a_numpy_momentum_optimizer_updates_its_callers_arrays_in_place():
    def make():
        params = {"w": np.ones(2), "b": np.zeros(1)}
        opt = _SGD(params)

        def run(gw, gb):
            opt.step({"w": gw, "b": gb})
            return opt.steps
        return run, (opt, dict(params))

    def step(a):
        def call(f, world):
            opt, held = world
            out = f(np.array([a, -a]), np.array([a]))
            return out, opt.params, opt.v, [opt.params[k] is held[k] for k in held], held
        return call

    check_sequence(make, [step(1.0), step(0.5), step(-2.0)], full_graph=False)


class _Accumulator:
    def __init__(self):
        self.buf = np.zeros(2)
        self.hist = {"s": np.zeros(2)}

    def add(self, v):
        self.buf += v
        self.hist["s"] -= v


def test_augmented_writes_of_a_new_objects_arrays_under_a_traced_if_in_a_rolled_loop():
    def accumulate(x):
        acc = _Accumulator()
        for i in range(x.shape[0]):   # 40 rows: a rolled loop, the writes joined under the traced `if`
            if x[i, 0] > 0:
                acc.add(x[i])
        return acc.buf, acc.hist

    rng = np.random.default_rng(1)
    check_calls(accumulate, [(rng.normal(size=(40, 2)),), (rng.normal(size=(40, 2)),)])
