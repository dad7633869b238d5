"""Generator objects kept by the function (issue 16 part 4): a call of a
generator function bound to a name, given to another generator, to
``next()``, ``itertools.islice``/``zip``/``enumerate``/``chain`` or to a
builtin is a trace-time iterator whose body is interpreted item by item as
the consumer pulls (typeinfer/generators.py, ``TraceGenerator``): one graph,
the body's prints and writes in eager's order, a generator dropped part way
never running the rest of its body. Each case is compared with eager.
"""

import itertools

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check

X = jnp.array([0.5, -1.0, 2.0, -0.1, 0.3, 0.7])
Y = jnp.array([-0.5, -1.0, -2.0, -0.1, -0.3, -0.7])


def codes(e):
    return [s.code.code for s in e.fallback_sites]


def causes(e):
    return " | ".join(s.cause for s in e.fallback_sites)


def helper_squares(x):
    for v in x:
        yield v * v


# ------------------------------------------------------------------ next()
def next_with_and_without_default(x):
    def gen(x):
        yield x
        yield x * 2

    g = gen(x)
    a = next(g)
    b = next(g, None)
    c = next(g, None)
    d = next(g, x.sum())
    return a, b, c, d


def next_of_a_module_helper(x):
    g = helper_squares(x[:3])
    first = next(g)
    rest = list(g)
    return first, rest


def exhausted_next_raises_stop_iteration(x):
    def gen(x):
        yield x + 1

    g = gen(x)
    a = next(g)
    try:
        b = next(g)
    except StopIteration:
        b = x * 0
    return a, b


def return_value_ends_generator(x):
    def gen(x):
        yield x
        return x.sum()
        yield x * 3   # never reached

    g = gen(x)
    items = [next(g)]
    try:
        next(g)
    except StopIteration as e:
        items.append(e.value)
    items.append(next(g, "done"))
    return items


def uncaught_stop_iteration(x):
    def gen(x):
        yield x

    g = gen(x)
    next(g)
    return next(g)


@pytest.mark.parametrize("fn", [next_with_and_without_default, next_of_a_module_helper,
                                exhausted_next_raises_stop_iteration, return_value_ends_generator])
def test_next_on_generator_objects(fn):
    check(fn, X, full_graph=True)


def test_next_on_an_exhausted_generator_raises_eagers_stop_iteration():
    check(uncaught_stop_iteration, X, full_graph=False)


# ------------------------------------------------------------------ islice over infinite generators
def islice_infinite(x, n):
    def geometric(x):
        while True:
            yield x
            x = x * 0.5

    return [v.sum() for v in itertools.islice(geometric(x), n)]


def islice_start_stop(x):
    def counter(x):
        k = 0
        while True:
            yield x * k
            k += 1

    return list(itertools.islice(counter(x), 2, 7, 2))


def islice_then_resume(x):
    def naturals():
        k = 0
        while True:
            yield k
            k += 1

    g = naturals()
    head = list(itertools.islice(g, 3))
    more = list(itertools.islice(g, 2))
    return x * sum(head), x + sum(more)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_islice_over_an_infinite_generator(n):
    check(islice_infinite, X, n, full_graph=True)


@pytest.mark.parametrize("fn", [islice_start_stop, islice_then_resume])
def test_islice_keeps_the_generators_position(fn):
    check(fn, X, full_graph=True)


# ------------------------------------------------------------------ pipelines
def pipeline_two(x, thr):
    def scaled(xs, k):
        for v in xs:
            yield v * k

    def clipped(xs, t):
        for v in xs:
            yield jnp.clip(v, -t, t)

    return jnp.stack(list(clipped(scaled(x, 3.0), thr)))


def pipeline_three(x):
    def source(x):
        for i in range(x.shape[0]):
            yield x[i]

    def shifted(xs, k):
        for v in xs:
            yield v + k

    def pairs(xs):
        prev = None
        for v in xs:
            if prev is not None:
                yield prev * v
            prev = v

    return sum(pairs(shifted(source(x), 1.0)))


def pipeline_with_helper_and_enumerate(x):
    def weighted(xs):
        for i, v in enumerate(xs):
            yield i * v

    return [w for w in weighted(helper_squares(x))]


@pytest.mark.parametrize("args", [(X, 1.0), (Y, 0.1)])
def test_pipeline_of_two_generators(args):
    check(pipeline_two, *args, full_graph=True)


@pytest.mark.parametrize("fn", [pipeline_three, pipeline_with_helper_and_enumerate])
def test_pipelines_of_generators(fn):
    check(fn, X, full_graph=True)


# ------------------------------------------------------------------ a generator bound to a name
def two_loops_share_position(x):
    def gen(x):
        for i in range(5):
            yield x * i

    g = gen(x)
    first = []
    for v in g:
        first.append(v)
        if len(first) == 2:
            break
    rest = [v.sum() for v in g]
    return first, rest


def zip_enumerate_chain(x, y):
    def gen(x):
        for i in range(3):
            yield x + i

    a, b = gen(x), gen(y)
    pairs = [u * v for u, v in zip(a, b)]
    numbered = [(i, v) for i, v in enumerate(gen(x), start=1)]
    chained = list(itertools.chain(gen(x), gen(y)))
    return pairs, numbered, chained


def builtins_over_generator_objects(x):
    def gen(x):
        for i in range(4):
            yield x[i]

    g = gen(x)
    return sum(gen(x)), max(gen(x)), min(g), any(v > 1 for v in gen(x)), all(gen(x))


def any_all_over_static_items(x):
    def flags(n):
        for i in range(n):
            print("flag", i)
            yield i % 3 == 2

    g = flags(6)
    return x * any(g), list(g), all(flags(4))


@pytest.mark.parametrize("fn", [two_loops_share_position, builtins_over_generator_objects, any_all_over_static_items])
def test_generator_bound_to_a_name(fn):
    check(fn, X, full_graph=True)


def test_zip_enumerate_chain_of_generator_objects():
    check(zip_enumerate_chain, X, Y, full_graph=True)


# ------------------------------------------------------------------ effects in the body, in eager's order
def printing_body(x):
    def gen(x):
        for i in range(3):
            print("make", i)
            yield x * i
            print("after", i)

    g = gen(x)
    out = []
    for v in g:
        print("use")
        out.append(v)
    return out


def printing_body_abandoned(x, n):
    def gen(x):
        k = 0
        while True:
            print("make", k)
            yield x * k
            print("resume", k)   # not printed after the last item taken
            k += 1

    return [v.sum() for v in itertools.islice(gen(x), n)]


def closing_over_a_list(x):
    log = []

    def gen(x):
        for i in range(4):
            log.append(i)
            yield x * i

    g = gen(x)
    first = next(g)
    seen = len(log)
    second = next(g)
    return first, second, seen, log


def appending_abandoned(x):
    log = []

    def gen(x):
        i = 0
        while True:
            yield x + i
            log.append(i)   # runs only when eager resumes the body
            i += 1

    items = list(itertools.islice(gen(x), 3))
    return items, log


@pytest.mark.parametrize("fn", [printing_body, closing_over_a_list, appending_abandoned])
def test_body_effects_in_eagers_order(fn):
    check(fn, X, full_graph=True)


@pytest.mark.parametrize("n", [0, 2])
def test_abandoned_generator_runs_no_more_of_its_body(n):
    check(printing_body_abandoned, X, n, full_graph=True)


# ------------------------------------------------------------------ where the item count depends on data
def traced_count(x):
    def gen(x):
        while x.sum() < 10.0:   # how many items depends on the data
            yield x
            x = x * 2 + 1

    return [v.sum() for v in gen(x)]


def next_under_traced_condition(x):
    def gen(x):
        yield x
        yield x * 2

    g = gen(x)
    if x.sum() > 0:
        next(g)
    return list(g)


def traced_break_over_printing_generator(x):
    def gen(x):
        for i in range(4):
            print("make", i)
            yield x * i

    total = x * 0
    for v in gen(x):
        total = total + v
        if total.sum() > 2.0:
            break
    return total


def traced_break_over_pure_generator(x):
    def gen(x):
        for i in range(4):
            yield x * i

    total = x * 0
    for v in gen(x):
        total = total + v
        if total.sum() > 2.0:
            break
    return total


def test_traced_item_count_falls_back():
    for x in (X, Y):
        e = check(traced_count, x, full_graph=False)
        assert "A2G013" in codes(e), str(e)


def test_next_under_a_traced_condition_falls_back():
    for x in (X, Y):
        e = check(next_under_traced_condition, x, full_graph=False)
        assert "A2G013" in codes(e), str(e)


def test_traced_break_over_a_printing_generator_falls_back():
    for x in (X, Y):
        e = check(traced_break_over_printing_generator, x, full_graph=False)
        assert "A2G013" in codes(e) and "depends on data" in causes(e), str(e)


def test_traced_break_over_a_pure_generator_is_one_graph():
    for x in (X, Y):
        check(traced_break_over_pure_generator, x, full_graph=True)


# ------------------------------------------------------------------ a real generator is needed
def yield_inside_try(x):
    def gen(x):
        try:
            yield x
            yield x * 2
        except GeneratorExit:   # eager's drop of the generator throws GeneratorExit in here
            raise

    g = gen(x)
    return next(g) + 1


def returned_generator_object(x):
    def gen(x):
        yield x

    g = gen(x)
    return g


def test_yield_inside_try_dropped_part_way_falls_back():
    e = check(yield_inside_try, X, full_graph=False)
    assert "A2G013" in codes(e) and "inside `try`" in causes(e), str(e)


def test_returned_generator_object_is_eagers():
    from ast2graph import explain, to_static

    e = explain(to_static(returned_generator_object))(X)
    assert "A2G013" in codes(e), str(e)
    assert type(e.result).__name__ == "generator"
    assert [float(v.sum()) for v in e.result] == [float(X.sum())]


# ------------------------------------------------------------------ exceptions, loops, limits
def body_raises_when_pulled(x):
    def gen(x):
        yield x
        raise ValueError("no more")

    g = gen(x)
    out = [next(g)]
    try:
        out.append(next(g))
    except ValueError as e:
        out.append(str(e))
    out.append(next(g, "finished"))   # the exception ended the generator, as in eager
    return out


def pulled_in_a_long_loop(x):
    def naturals():
        k = 0
        while True:
            yield k
            k += 1

    g = naturals()
    acc = x * 0
    for _ in range(40):   # a loop that would roll: the pull makes it unroll, as eager's Python loop
        acc = acc + next(g)
    return acc


def made_in_a_helper(x):
    def make(x):
        return helper_squares(x)

    g = make(x)
    return next(g), sum(g)


def too_many_items(x):
    def naturals():
        k = 0
        while True:
            yield k
            k += 1

    return x + sum(itertools.islice(naturals(), 1000))


@pytest.mark.parametrize("fn", [body_raises_when_pulled, pulled_in_a_long_loop, made_in_a_helper])
def test_generator_objects_in_more_places(fn):
    check(fn, X, full_graph=True)


def test_more_items_than_max_unroll_falls_back():
    e = check(too_many_items, X, full_graph=False)
    assert "A2G013" in codes(e) and "max_unroll" in causes(e), str(e)


def long_static_while_consumer(x):
    def halves(x):
        for _ in range(30):
            yield x
            x = x * 0.5

    g = halves(x)
    acc = x * 0
    while True:   # past unroll_limit iterations with array work: it must not restart to roll
        v = next(g, None)
        if v is None:
            break
        acc = acc + v
    return acc


def long_infinite_body(x, n):
    def geometric(x):
        while True:   # a static while in the body, suspended at each yield, more than unroll_limit items
            yield x
            x = x * 0.5 + 1.0

    return jnp.stack(list(itertools.islice(geometric(x), n)))


def test_static_while_loops_around_pulls_and_yields():
    check(long_static_while_consumer, X, full_graph=True)
    for n in (17, 40):
        check(long_infinite_body, X, n, full_graph=True)


def genexp_summed(x):
    def gen(x):
        for i in range(3):
            print("make", i)
            yield x * i

    g = gen(x)
    return sum(v.sum() for v in g), list(g)


def genexp_kept(x):
    def gen(x):
        for i in range(3):
            print("make", i)
            yield x * i

    h = (v * 2 for v in gen(x))
    print("before")
    return [w for w in h]


def genexp_any_stops_early(x):
    def gen(x):
        for i in range(4):
            print("make", i)
            yield i

    g = gen(x)
    found = any(v > 0 for v in g)
    return x * found, list(g)


def test_generator_expression_over_a_generator_object_consumed_at_once():
    check(genexp_summed, X, full_graph=True)


def test_generator_expression_over_a_generator_object_kept_is_a_lazy_one():
    # bound to a name, it is a generator object too: both pulled item by item, the prints in eager's order
    check(genexp_kept, X, full_graph=True)


def test_generator_expression_over_a_generator_object_stopping_early_pulls_as_eager():
    # any() of a generator expression is a generator object pulled up to the deciding item (h-hunt18):
    # the generator it pulls from is left where eager leaves it, in one graph
    check(genexp_any_stops_early, X, full_graph=True)


# ------------------------------------------------------------------ ast2graph's object never seen as eager's
def dunder_next(x):
    g = helper_squares(x)
    return g.__next__(), next(g)


def isinstance_of_generator(x):
    import types

    g = helper_squares(x)
    return isinstance(g, types.GeneratorType), next(g)


def type_name_of_generator(x):
    g = helper_squares(x)
    n = next(g)
    return type(g).__name__, n


def len_of_generator(x):
    g = helper_squares(x)
    try:
        len(g)
    except TypeError as e:
        return str(e)


def test_dunder_next_pulls():
    check(dunder_next, X, full_graph=True)


@pytest.mark.parametrize("fn", [isinstance_of_generator, type_name_of_generator, len_of_generator])
def test_generator_object_given_to_other_builtins_is_eagers(fn):
    e = check(fn, X, full_graph=False)
    assert "A2G013" in codes(e), str(e)


def stop_iteration_inside_body(x):
    def inner(x):
        yield x

    def outer(x):
        it = inner(x)
        while True:
            yield next(it)   # PEP 479: the StopIteration becomes eager's RuntimeError

    g = outer(x)
    first = next(g)
    try:
        next(g)
    except StopIteration:
        return first, "stopped"
    except RuntimeError as e:
        return first, str(e)


def try_around_yield_stopped_early(x):
    def gen(x):
        for i in range(4):
            try:
                yield x * i
            except ValueError:
                pass

    for v in gen(x):
        if v.shape[0] == 6:
            break
    return v


def test_stop_iteration_raised_in_the_body_is_eagers_runtime_error():
    e = check(stop_iteration_inside_body, X, full_graph=False)
    assert "A2G013" in codes(e), str(e)


def test_try_around_a_yield_stopped_early_is_interpreted_whole_as_before():
    check(try_around_yield_stopped_early, X, full_graph=True)


def float64_items(x):
    def gen(x):
        for i in range(3):
            yield x * 0.1 + np.float64(i)

    g = gen(x)
    a = next(g)
    return a, list(g), a.dtype


def test_body_traced_under_the_callers_thread_local_jax_settings():
    import jax

    with jax.enable_x64(True):   # thread-local: the body's thread gets it too
        check(float64_items, jnp.arange(3.0), full_graph=True)
    check(float64_items, jnp.arange(3.0), full_graph=True)


def iterator_advanced_in_a_long_loop(x):
    it = iter(list(range(100)))
    acc = x * 0
    for _ in range(40):   # would roll: a rolled body is traced once, its next() would run once
        acc = acc + next(it)
    return acc


def iterator_advanced_under_traced_condition(x):
    it = iter([1.0, 2.0, 3.0])
    if x.sum() > 0:
        next(it)
    return x + next(it)


def test_plain_iterator_advanced_in_a_rolled_loop_unrolls():
    # (was a silent wrong result: 0 added 40 times)
    check(iterator_advanced_in_a_long_loop, X, full_graph=True)


def test_plain_iterator_advanced_under_a_traced_condition_falls_back():
    for x in (X, Y):
        check(iterator_advanced_under_traced_condition, x, full_graph=False)



# ------------------------------------------------------------------ more shapes of use
def nonlocal_count(x):
    count = 0
    def gen():
        nonlocal count
        for i in range(3):
            count += 1
            yield x * i
    g = gen()
    a = next(g)
    c1 = count
    b = next(g)
    return a, b, c1, count


def zip_same(x):
    def gen(x):
        for i in range(6):
            yield x * i
    a = gen(x)
    return [u + v for u, v in zip(a, a)]


def recursive(x):
    def walk(v, n):
        if n == 0:
            yield v
            return
        for w in walk(v * 2, n - 1):
            yield w
        for w in walk(v + 1, n - 1):
            yield w
    return list(walk(x, 3))


def list_of_generators(x):
    def gen(x, k):
        for i in range(3):
            yield x * k + i
    gens = [gen(x, k) for k in range(3)]
    return [sum(t) for t in zip(*gens)]


def sorted_key(x):
    def gen(x):
        for i in [3, 1, 2]:
            yield (i, x * i)
    return sorted(gen(x), key=lambda t: t[0])


def dict_enumerate(x):
    def gen(x):
        for i in range(3):
            yield x * i
    return dict(enumerate(gen(x)))


def gen_in_traced_branch(x):
    def gen(x):
        for i in range(3):
            yield x * i
    if x.sum() > 0:
        g = gen(x)
        out = list(g)
    else:
        out = [x, x, x]
    return out


def chain_of_objects(x):
    def gen(x, n):
        for i in range(n):
            yield x + i
    a, b = gen(x, 2), gen(x, 3)
    first = next(b)
    return list(itertools.chain(a, b)), first


@pytest.mark.parametrize("fn", [nonlocal_count, zip_same, recursive, list_of_generators, sorted_key, dict_enumerate,
                                gen_in_traced_branch, chain_of_objects])
def test_more_shapes_of_use_are_one_graph(fn):
    for x in (X, Y):
        check(fn, x, full_graph=True)


def map_with_static_break(x):
    def show(v):
        print("pulled", v)
        return v * x

    for y in map(show, [1, 2, 3]):
        break
    return y


def test_loop_pulls_no_item_after_a_static_break():
    # (the loop pulled the next item before seeing it had broken: "pulled 2" printed on main)
    check(map_with_static_break, X, full_graph=True)


def _checked_items(x):
    for v in x:
        if v < 0:
            raise ValueError("negative item")
        yield v * 2


def pulled_inside_try(x):
    g = _checked_items(x)
    try:
        a = next(g)
    except ValueError:
        a = -1.0
    return a


def test_a_check_in_the_body_sees_the_consumers_handlers():
    # the body's raise is a run-time check where no handler around the pull could catch it
    check(pulled_inside_try, jnp.array([1.0, 2.0]), full_graph=False)
    check(pulled_inside_try, jnp.array([-1.0, 2.0]), full_graph=False)
