"""Generator functions called from a converted function (issue 16 item 4).

A function that only *contains* a generator (a nested def, a lambda, a
generator expression) is not itself a generator function. A call of a
generator function whose items are known at trace time, consumed where it is
made by iteration only, is interpreted at trace time (its items may be traced
values); everything else (a real generator is needed) falls back at the call
with A2G013 and the cause. Each case is compared with eager.
"""

import itertools
import warnings

import gast
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from ast2graph.typeinfer.state import TreeFacts
from helpers import check, check_sequence

X = jnp.arange(3.0)


def codes(e):
    return [s.code.code for s in e.fallback_sites]


def causes(e):
    return " | ".join(s.cause for s in e.fallback_sites)


def one_graph(e):
    assert e.graph_count == 1 and not e.fallback_sites, str(e)


# ------------------------------------------------------------ item 1: scopes
def _facts(src):
    return TreeFacts.of(gast.parse(src).body[0])


@pytest.mark.parametrize("src, generator", [
    ("def f():\n    def g():\n        yield 1\n    return 1", False),
    ("def f():\n    g = lambda: (yield)\n    return g", False),
    ("def f():\n    class C:\n        def m(self):\n            yield 1\n    return C", False),
    ("def f(xs):\n    return (x for x in xs)", False),
    ("def f(xs):\n    return [(yield x) for x in xs] if False else 1", False),   # a SyntaxError in CPython; its own scope
    ("def f():\n    yield 1", True),
    ("def f(xs):\n    for x in xs:\n        if x:\n            yield from xs", True),
    ("def f():\n    def g(a=(yield)):\n        return a\n    return g", True),   # a default is evaluated in f
])
def test_only_a_yield_of_its_own_body_makes_a_generator_function(src, generator):
    assert _facts(src).generator is generator


def nested_sum(x):
    def gen(n):
        for i in range(n):
            yield i

    return x + sum(gen(3))


def test_nested_generator_function_is_one_graph():
    """Fails on main before issue 16: the whole of ``nested_sum`` ran eagerly (A2G013)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no "runs eagerly" warning at to_static
        to_static(nested_sum)
    one_graph(check(nested_sum, X))


# ------------------------------------------------------- item 2: inlining
def consumers(x):
    def powers(n):
        p = x
        for _ in range(n):
            yield p
            p = p * x

    total = 0.0
    for v in powers(3):
        total = total + v
    pairs = [a * b for a, b in zip(powers(2), [10.0, 20.0])]
    indexed = [i * v for i, v in enumerate(powers(3))]
    return (sum(powers(4)), list(powers(2)), tuple(powers(2)), total, pairs, indexed,
            [v * 2 for v in powers(2)])


def test_nested_generator_consumed_by_builtins_and_loops():
    one_graph(check(consumers, jnp.float32(1.5)))


def static_itertools(x):
    def items(n):
        for i in range(n):
            yield i * 2

    return (x * sum(itertools.chain(items(2), items(3))), list(itertools.islice(items(5), 2)),
            list(itertools.accumulate(items(4))), [x * a for a in itertools.chain(items(2), [7])],
            [x * a + b for a, b in itertools.product(items(2), items(2))])


def test_generator_consumed_by_itertools():
    one_graph(check(static_itertools, X))


def static_sorted(n):
    def gen():
        for i in range(n):
            yield (i * 7) % 5

    return sorted(gen()), any(gen()), all(gen()), max(gen()), min(gen())


def test_static_items_sorted_any_all():
    one_graph(check(static_sorted, 5))


def scaled_rows(m, scales):
    for row, s in zip(m, scales):
        yield row * s


def uses_module_helper(m):
    return jnp.stack(list(scaled_rows(m, (1.0, 2.0)))) + sum(scaled_rows(m, [3.0, 4.0]))


def test_module_level_generator_with_traced_items():
    one_graph(check(uses_module_helper, jnp.arange(6.0).reshape(2, 3)))


def until_negative(xs):
    for v in xs:
        if v < 0:
            return
        yield v
    yield 100


def early_return(x):
    return x * sum(until_negative([1, 2, -1, 5])), list(until_negative([1])), x


def test_return_ends_the_generator():
    one_graph(check(early_return, X))


def returns_a_value(x):
    def gen():
        yield x
        return 7   # StopIteration.value: unseen by iteration

    return list(gen())


def test_return_value_is_unseen_by_iteration():
    one_graph(check(returns_a_value, X))


# --------------------------------------------------------------- fallbacks
def traced_if(x):
    def gen():
        if x.sum() > 0:
            yield x
        yield x + 1

    return sum(gen())


def traced_while(x):
    def gen():
        v = x
        while v.sum() < 10:
            yield v
            v = v + 4

    return list(gen())


def printing(x):
    def gen():
        for i in range(2):
            print("yield", i)
            yield x * i

    out = []
    for v in gen():
        print("got")
        out.append(v)
    return out


def delegating(x):
    def inner():
        yield x

    def gen():
        yield from inner()
        yield x

    return sum(gen())


def returned(x):
    def gen():
        yield x
        yield x + 1

    return gen()


def partially_next(x):
    def gen():
        yield x
        raise ValueError("never reached")

    return next(gen()) * 2


def bound_then_sent(x):
    def gen():
        got = yield x
        yield got

    g = gen()
    first = next(g)
    return first, g.send(5)


def raising(x):
    def gen():
        yield x
        raise ValueError("bad item")

    return sum(a * b for a, b in zip([1.0], gen()))   # zip stops before gen raises


def raising_consumed(x):
    def gen():
        yield x
        raise ValueError("bad item")

    return sum(gen())


def test_generator_raising_when_consumed_raises_as_eager():
    assert check(raising_consumed, X, full_graph=False) is None   # eager raises ValueError: so does the converted call


def too_many(x):
    def gen():
        for i in range(40):
            yield i

    return x + sum(gen())


def consumer_changes_what_it_reads(x):
    seen = []

    def gen():
        for _ in range(3):
            yield len(seen)

    for v in gen():
        seen.append(v)
    return x, seen


def consumer_rebinds_closure(x):
    k = 1

    def gen():
        for _ in range(3):
            yield k

    out = []
    for v in gen():
        k = k + 1
        out = out + [v]
    return x, out


@pytest.mark.parametrize("fn, cause", [
    (traced_if, "traced condition"),
    (traced_while, "traced condition"),
    (delegating, "yield from"),
    (too_many, "unroll_limit"),
])
def test_real_generator_needed_falls_back(fn, cause):
    e = check(fn, X, full_graph=False)
    assert "A2G013" in codes(e), str(e)
    assert cause in causes(e), str(e)


def test_generator_sent_a_value_is_one_graph():
    """``g.send(v)`` resumes the body with ``v`` as its yield's value (it
    fell back before: test_fallbacks_hunt8 has the edge cases)."""
    check(bound_then_sent, X, full_graph=True)


@pytest.mark.parametrize("fn", [printing, raising, consumer_changes_what_it_reads])
def test_generator_interleaved_with_its_consumer_is_one_graph(fn):
    """The body runs item by item as the consumer pulls (generator objects,
    generators.py): its prints between the consumer's, the consumer's writes
    seen by the body, zip stopping before the body raises, as in eager
    (these fell back with A2G013 before)."""
    check(fn, X, full_graph=True)


def test_next_of_a_generator_runs_it_to_its_first_yield():
    # eager never resumes it: the raise after the first yield is never reached
    check(partially_next, X, graphs=1)


def test_returned_generator_is_a_real_generator():
    e = explain(to_static(returned))(X)
    assert "A2G013" in codes(e) and "returned" in causes(e), str(e)
    assert type(e.result).__name__ == "generator"
    assert [float(v.sum()) for v in e.result] == [3.0, 6.0]


def test_loop_rebinding_what_the_generator_reads_is_one_graph():
    # the body reads k when the loop pulls the next item, after the loop body rebound it (was A2G013)
    check(consumer_rebinds_closure, X, full_graph=True)


# the loop runs in Python around its compiled body: before it pulls the next item, the body's
# assignment of k reaches the cell the generator's closure reads (it gave [1, 1, 2])
def test_loop_rebinding_what_the_generator_reads_matches_eager():
    check(consumer_rebinds_closure, X, full_graph=False)


# ----------------------------------------------------- state between calls
def test_generator_reads_a_module_list_that_changes():
    def make():
        weights = [1.0, 2.0]

        def gen(x):
            for w in weights:
                yield x * w

        def fn(x):
            return sum(gen(x))

        return fn, weights

    def call(fn, _):
        return fn(X)

    def grow(fn, weights):
        weights.append(5.0)
        return fn(X)

    def change(fn, weights):
        weights[0] = -3.0
        return fn(X)

    check_sequence(make, [call, grow, change, call])


# ------------------------------------------------- item 3: generator expressions
def genexp_reductions(x):
    return (sum(v * 2 for v in x), list(v + 1 for v in x), tuple(v for v in (x, x)),
            max(v for v in [1, 5, 2]), any(v > 1 for v in [0, 2]))


def test_generator_expressions_consumed_by_reductions():
    one_graph(check(genexp_reductions, X))


def genexp_traced_reductions(x):
    def gen():
        yield x[0]
        yield x[2]

    return (any(v > 1 for v in x), all(v >= 0 for v in x), any(v > 5 for v in x), all(v > 0 for v in x),
            any([x[0] > 1, True]), all(v < 9 for v in gen()), max(v for v in x), min(x[i] for i in range(3)),
            max(gen()), min(gen()), max([x[1], x[1] * 1.0]), any([]), all([]))


def test_traced_any_all_max_min_reduce_in_the_graph():
    one_graph(check(genexp_traced_reductions, X))
    one_graph(check(genexp_traced_reductions, -X))


def empty_max(x):
    return x, max(v for v in x if v > 10)


def test_max_of_nothing_raises_as_eager():
    check(empty_max, X, full_graph=False)


# ------------------------------------------ the loop consuming a generator
def loop_prints_and_fills(x):
    def gen():
        for i in range(3):
            yield x * i

    out = []
    for v in gen():
        print("got", i := len(out))
        out.append(v + i)
    return out, [print("c", v) for v in gen()]


def test_loop_printing_and_filling_its_own_list_is_one_graph():
    one_graph(check(loop_prints_and_fills, X))


def consumer_calls_local_mutator(x):
    seen = []

    def note(v):
        seen.append(v)

    def gen():
        for _ in range(3):
            yield len(seen)

    for v in gen():
        note(v)
    return x, seen


def consumer_passes_argument(x, xs):
    def gen(ys):
        for _ in range(2):
            yield len(ys)

    def grow(zs):
        zs.append(1)

    out = []
    for v in gen(xs):
        grow(xs)
        out.append(v)
    return x, out


def generator_reads_attribute(x):
    class Box:
        pass

    box = Box()
    box.n = 0

    def gen():
        for _ in range(3):
            yield box.n

    out = []
    for v in gen():
        box.n = box.n + 1
        out.append(v)
    return x, out


@pytest.mark.parametrize("fn, args, one", [
    (consumer_calls_local_mutator, (X,), True),
    (consumer_passes_argument, (X, [1, 2]), True),
    (generator_reads_attribute, (X,), False),
])
def test_loop_changing_what_the_generator_reads_matches_eager(fn, args, one):
    """The body reads what the loop changed before pulling the next item
    (was A2G013; the local class Box still falls back on its own)."""
    e = check(fn, *args, full_graph=one)
    assert "A2G013" not in codes(e), str(e)


def zip_with_map(x):
    seen = []

    def gen():
        for _ in range(3):
            yield len(seen)

    def note(v):
        seen.append(v)
        return v

    return x, [a + b for a, b in zip(gen(), map(note, [1, 2, 3]))]


def accumulate_with_lambda(x):
    def gen():
        yield x
        yield x * 2

    return list(itertools.accumulate(gen(), lambda a, b: a * b))


@pytest.mark.parametrize("fn", [zip_with_map, accumulate_with_lambda])
def test_wrapper_calling_a_function_between_items_matches_eager(fn):
    # the wrapper's function runs between the generator's items, as in eager (was A2G013)
    check(fn, X, full_graph=True)


class Stack:
    def __init__(self):
        self.scales = [1.0, 2.0]

    def __call__(self, x):
        def gen():
            for s in self.scales:
                yield x * s

        return [v * s for v, s in zip(gen(), self.scales)], sum(gen())


def test_generator_in_a_method_zipped_with_an_attribute_is_one_graph():
    one_graph(check(Stack(), X))


def sparse_yields(x):
    def gen():
        t = x
        for i in range(30):   # above unroll_limit: cannot roll (a yield), unrolled
            t = t + 1
            if i % 10 == 0:
                yield t

    def counted():
        n = 0
        while n < 100:
            n += 7
            if n % 20 == 1:
                yield n

    return list(gen()), x * sum(counted())


def in_rolled_loop_and_branch(x):
    def gen(s):
        for k in range(3):
            yield k * s

    acc = x
    for _ in range(40):   # rolled: the generator's items are traced values of the loop body
        acc = acc + sum(gen(acc[0] * 0 + 1))
    if x.sum() > 1:
        out = list(gen(x))
    else:
        out = [x, x, x]
    return acc, out


@pytest.mark.parametrize("arg", [X, -X])
def test_generator_in_loops_and_branches_is_one_graph(arg):
    one_graph(check(sparse_yields, arg))
    one_graph(check(in_rolled_loop_and_branch, arg))


# ------------------------------------------- map and filter are lazy, as in eager
def map_of_local_reads_what_the_loop_changed(x):
    k = 1
    out = []
    for v in map(lambda _: k, range(3)):   # eager calls the lambda when the loop pulls the item
        k = k + 1
        out.append(v)
    return out, x


def map_of_traced_reads_what_the_loop_changed(x):
    k = 1.0
    out = []
    for v in map(lambda a: a * k, [x, x, x]):
        k = k + 1.0
        out.append(v)
    return out


def filter_of_local(x):
    lim = [0.5]
    out = []
    for v in filter(lambda a: a > lim[0], [1.0, 2.0, 0.1]):
        out.append(v * x)
    return out


def map_consumed_by_builtins(x):
    return list(map(lambda a: a * 2, [x, x + 1])), sum(map(lambda a: a.sum(), [x, x]))


@pytest.mark.parametrize("fn", [map_of_local_reads_what_the_loop_changed, map_of_traced_reads_what_the_loop_changed,
                                filter_of_local, map_consumed_by_builtins])
def test_map_and_filter_items_are_made_when_pulled(fn):
    # the items were all made when the loop started: [1, 1, 1] where eager gives [1, 2, 3]
    check(fn, X)


def _gen_checked(x):
    yield x
    if x.sum() > 10:
        raise ValueError("too big")
    yield x * 2


def _gen_printing(x):
    for k in range(3):
        print("item", k)
        yield x[k] > 0


def test_a_check_after_a_yield_the_consumer_never_reaches_does_not_fire():
    """``for v in gen(x): return v`` pulls one item: eager never resumes the
    body, so a check (or a print) after the first yield never runs."""
    def first(x):
        for v in _gen_checked(x):
            return v
        return None

    def all_items(x):
        return [v for v in _gen_checked(x)]

    check(first, np.full(3, 5.0), full_graph=False)
    check(first, np.full(3, 1.0), full_graph=False)
    check(all_items, np.full(3, 5.0))   # pulls every item: eager raises, so does the graph's check
    check(all_items, np.full(3, 1.0))


def test_any_of_a_printing_generator_prints_what_eager_prints():
    """``any`` stops at the first true item: eager prints only up to it."""
    def f(x):
        return any(_gen_printing(x))

    check(f, np.array([1.0, -1.0, 2.0]), full_graph=False)
    check(f, np.array([-1.0, -1.0, 2.0]), full_graph=False)
