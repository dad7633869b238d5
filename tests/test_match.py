"""`match` (issue 16): a static subject is pruned at trace time; a traced
scalar subject with literal cases becomes lax.cond/lax.switch."""

import collections
from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, check_sequence, modes

X = jnp.linspace(-2.0, 2.0, 6)
M = jnp.arange(6.0).reshape(2, 3)


def codes(e):
    return [s.code.code for s in e.fallback_sites]


def act(x, name):
    match name:
        case "relu":
            return jnp.maximum(x, 0)
        case "tanh" | "th":
            return jnp.tanh(x)
        case _:
            return x


@pytest.mark.parametrize("name", ["relu", "tanh", "th", "other"])
def test_static_string_selects_activation(name):
    e = check(act, X, name)
    assert ("match", "pruned") in modes(e)


def by_shape(x):
    match x.shape:
        case (n,):
            y = x * n
        case (r, *rest):
            y = x.sum(axis=0) * r + len(rest)
        case _:
            y = x
    return y + 1


@pytest.mark.parametrize("x", [X, M, jnp.float32(2.0)], ids=["vector", "matrix", "scalar"])
def test_match_on_shape(x):
    check(by_shape, x)


def mapping(x, cfg):
    match cfg:
        case {"scale": s, **rest}:
            return x * s + len(rest)
        case {"shift": b}:
            return x + b
    return x


@pytest.mark.parametrize("cfg", [{"scale": 2.0}, {"scale": 3.0, "a": 1, "b": 2}, {"shift": 1.0}, {}])
def test_mapping_pattern(cfg):
    check(mapping, X, cfg)


@dataclass
class Norm:
    kind: str
    eps: float = 1e-5


class Point:
    __match_args__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return type(other) is Point and (self.a, self.b) == (other.a, other.b)


def klass(x, spec):
    match spec:
        case Norm(kind="layer", eps=eps):
            return (x - x.mean()) / jnp.sqrt(x.var() + eps)
        case Norm("scale" as k):
            return x * len(k)
        case Point(1, b):
            return x + b
        case Point(a=a):
            return x - a
        case int(n) if n > 0:
            return x * n
        case float() | int():
            return -x
    return x


@pytest.mark.parametrize("spec", [Norm("layer"), Norm("scale"), Norm("none"), Point(1, 5.0), Point(2, 3.0), 3, -1, 2.5, None])
def test_class_patterns_and_guards(spec):
    check(klass, X, spec)


def no_case(x, mode):
    y = x
    match mode:
        case 1:
            y = x * 2
        case 2:
            y = x * 3
    return y


def test_no_case_matches():
    check(no_case, X, 5)
    check(no_case, X, 2)


def guard_binds(x, pair):
    n = 0
    match pair:
        case (a, b) if a > b:
            n = a - b
        case (a, _):
            n = a
    return x * n


@pytest.mark.parametrize("pair", [(3, 1), (1, 3), [2, 2], "ab"])
def test_guards_and_sequence(pair):
    check(guard_binds, X, pair)


def traced(x, k):
    match k:
        case 0:
            y = x + 1
        case 1 | 2:
            y = x * 2
        case -3:
            return x - 3
        case other:
            y = x * other
    return y


@pytest.mark.parametrize("k", [0, 1, 2, -3, 7])
def test_traced_scalar_literal_cases_are_one_graph(k):
    e = check(traced, X, jnp.int32(k), graphs=1)
    assert ("match", "lax.switch") in modes(e)


def traced_one(x, k):
    y = x
    match k:
        case 4:
            y = x * 4
    return y


@pytest.mark.parametrize("k", [4, 5])
def test_traced_scalar_single_case(k):
    e = check(traced_one, X, jnp.int32(k), graphs=1)
    assert ("match", "lax.cond") in modes(e)


def traced_sequence(x):
    match x:
        case [a, b, *_]:
            return a + b
    return x


def test_traced_subject_with_non_literal_pattern_falls_back():
    e = check(traced_sequence, X, full_graph=False)
    assert codes(e) == ["A2G001"]


def test_changed_global_config_respecialises():
    def make():
        global MODE
        MODE = "relu"

        def f(x):
            match MODE:
                case "relu":
                    return jnp.maximum(x, 0)
                case "neg":
                    return -x
            return x
        return f, None

    def change(f, _):
        global MODE
        MODE = "neg"
        return f(X)

    def other(f, _):
        global MODE
        MODE = "zzz"
        return f(X)

    check_sequence(make, [lambda f, _: f(X), change, other, lambda f, _: f(X)])


def test_changed_global_dict_config_respecialises():
    def make():
        global CFG
        CFG = {"scale": 2.0}

        def f(x):
            match CFG:
                case {"scale": s}:
                    return x * s
            return x
        return f, None

    def change(f, _):
        CFG["scale"] = 5.0
        return f(X)

    def drop(f, _):
        del CFG["scale"]
        return f(X)

    check_sequence(make, [lambda f, _: f(X), change, drop])


def rejected(x, spec):
    match spec:
        case Point(1, 2, 3):
            return x
        case _:
            return -x


def not_a_class(x, spec):
    cls = 3
    match spec:
        case cls():
            return x
    return -x


@pytest.mark.parametrize("fn,arg", [(rejected, Point(1, 2)), (rejected, 4), (not_a_class, 1)],
                         ids=["positional", "skipped", "not-a-class"])
def test_patterns_eager_rejects_raise_as_eager(fn, arg):
    check(fn, X, arg, full_graph=False)


def side_effects(x, cfg):
    match cfg:
        case (a, b) if print("guard", a, b) or a > b:
            print("first")
            return x * a
        case [*head, last]:
            print("second", head, last)
            return x + last
    return x


@pytest.mark.parametrize("cfg", [(2, 1), (1, 2), [1, 2, 3], ()])
def test_guard_and_body_print_as_eager(cfg):
    check(side_effects, X, cfg)


def value_patterns(x, c):
    match c:
        case Norm.__name__:
            return x
        case np.float32:
            return x * 2
    return -x


@pytest.mark.parametrize("c", ["Norm", np.float32, 1])
def test_dotted_value_patterns(c):
    check(value_patterns, X, c)


def traced_in_tuple(x, mode):
    match (mode, x):
        case ("double", y):
            return y * 2
        case (_, y):
            return y
    return x


@pytest.mark.parametrize("mode", ["double", "id"])
def test_static_tuple_with_traced_capture(mode):
    check(traced_in_tuple, X, mode, graphs=1)


def in_loop(x, ks):
    total = x
    for k in ks:
        match k:
            case 0:
                total = total + 1
            case 1:
                continue
            case _:
                break
    return total


def test_traced_literal_match_in_loop_with_exits():
    e = check(in_loop, X, jnp.array([0, 0, 1, 0, 2, 0]), graphs=1)
    assert ("match", "lax.switch") in modes(e)


def test_changed_global_list_and_object_respecialise():
    def make():
        global SHAPE, SPEC
        SHAPE = [2, 3]
        SPEC = Point(1, 2.0)

        def f(x):
            match SHAPE:
                case [a, b]:
                    x = x * a + b
                case [a]:
                    x = x - a
            match SPEC:
                case Point(1, b):
                    return x + b
                case Point(a=a):
                    return x * a
            return x
        return f, None

    def append(f, _):
        SHAPE.append(4)
        return f(X)

    def shrink(f, _):
        SHAPE[:] = [7]
        return f(X)

    def attr(f, _):
        SPEC.a = 5
        return f(X)

    def rebind(f, _):
        global SPEC
        SPEC = Point(1, -1.0)
        return f(X)

    check_sequence(make, [lambda f, _: f(X), append, shrink, attr, rebind, lambda f, _: f(X)])


def traced_guard(x, mode):
    y = x
    match mode:
        case "a" if x.sum() > 0:
            y = x * 2
        case "a":
            y = x * 3
    return y + 1


def traced_element(x, mode):
    match (mode, x[0]):
        case ("a", 1.0):
            return x * 2
        case (_, v):
            return x + v
    return x


@pytest.mark.parametrize("fn,x", [(traced_guard, X), (traced_guard, -X), (traced_element, X), (traced_element, X * 0 + 1)],
                         ids=["guard-true", "guard-false", "element", "element-equal"])
def test_traced_guard_or_element_falls_back(fn, x):
    e = check(fn, x, "a", full_graph=False)
    assert codes(e) == ["A2G001"]


def semantics(x, s):
    match s:
        case True:
            return x, "true"
        case 1:
            return x, "one"
        case "ab" | b"ab":
            return x, "str"
        case [1, 2] | (3, _) as pair:
            return x, ("pair", pair)
        case [[a, *_], *rest] if rest:
            return x * a, ("nested", rest)
        case range(start=0) as r:
            return x, ("range", len(r))
        case collections.OrderedDict() as d if not d:
            return x, "empty-od"
        case {**kw}:
            return x, ("map", sorted(kw))
        case str(t):
            return x, ("s", t)
        case _:
            return x, None


SUBJECTS = [True, 1, 1.0, "ab", b"ab", [1, 2], (3, 9), ([5, 6], 2), ([5],), range(0, 4),
            collections.OrderedDict(), {"z": 1}, "zz", None, collections.deque([3, 0])]


@pytest.mark.parametrize("s", SUBJECTS, ids=[repr(s) for s in SUBJECTS])
def test_python_matching_semantics(s):
    """`is` for True, == for 1 (1.0 and True-vs-1), str is no sequence,
    `|` with `as`, nested star, keyword class pattern, mapping rest, a
    builtin matching itself positionally, a deque as a sequence."""
    check(semantics, X, s)
