"""The corpus registry: a program, its category, and the input sets that take every path.

A stateless program is a plain function decorated with ``@program(CATEGORY,
inputs...)``: each input is a tuple of arguments (``check(fn, *args)``).
A program with state (globals, a module list, an object's attributes, a NumPy
argument written in place and read back by the caller) is a ``make()``
factory decorated with ``@stateful(CATEGORY, steps)``: ``make()`` resets the
world and returns ``(fn, world)``; each step is ``step(fn, world)`` and may
change the world before calling ``fn`` (``check_sequence``).

Programs are written the way users write models and numerical code, not to
suit the compiler: a program that falls back stays as it is, and a program
whose converted result differs from eager is a bug of the compiler (listed in
``XFAIL`` with the reason, never "fixed" in the program).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

CATEGORIES = {
    "training": "training loops (early stopping, schedules)",
    "sampler": "samplers (rejection, MCMC, resampling)",
    "scheduler": "learning-rate and step-size schedulers",
    "decoder": "greedy / beam / sampling decoders",
    "numpy": "NumPy algorithms (histograms, bisection, sorting, prefix sums)",
    "simulation": "simulation steps (particles, automata, adaptive ODEs)",
    "pynum": "1. traced Python numbers (int(x.sum()), float(loss), .item())",
    "state": "2. state written back (globals, module lists, attributes, NumPy arguments)",
    "containers": "3. containers under traced branches and rolled loops",
    "generators": "4. generators and iterator tools",
    "context": "5. context managers",
    "control": "6. control-flow gaps (defined-flags, try/finally, match, ...)",
}


@dataclass
class Program:
    name: str
    category: str
    fn: Callable | None = None                 # stateless: called on each input set
    inputs: list[tuple] = field(default_factory=list)
    make: Callable[[], tuple[Callable, Any]] | None = None   # stateful: a fresh world
    steps: list[Callable] = field(default_factory=list)
    exact_kinds: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    module: str = ""

    @property
    def stateful(self) -> bool:
        return self.make is not None

    @property
    def runs(self) -> int:
        return len(self.steps) if self.stateful else len(self.inputs)


PROGRAMS: list[Program] = []

# Programs whose converted result differs from eager today (a compiler bug):
# name -> what differs. The test marks them xfail(strict=True), so an entry
# must go when the bug is fixed. (Found and fixed with the merge of issue 16:
# moving_average_window, sum() of float64 NumPy scalars in float32;
# optimizer_object, warm calls not keyed on self's state; bool_any_branch,
# bool() of an array returned as a jax bool.)
XFAIL: dict[str, str] = {}

# Programs whose conversion does not finish today (a compiler bug): name -> what
# happens. Neither the runner nor the test runs them (they would hang); the
# runner counts them as neither one graph nor eager-equivalent. (Fixed:
# rejection_halfnormal, `while True:` whose only exit is a traced return.)
HANGS: dict[str, str] = {}


def _add(p: Program) -> None:
    assert p.category in CATEGORIES, p.category
    assert all(q.name != p.name for q in PROGRAMS), f"duplicate program name {p.name}"
    PROGRAMS.append(p)


def program(category: str, *inputs: tuple, exact_kinds: bool = True, rtol: float = 1e-5,
            atol: float = 1e-6) -> Callable[[Callable], Callable]:
    """A stateless program compared with eager on each input set."""
    def deco(fn: Callable) -> Callable:
        _add(Program(fn.__name__, category, fn=fn, inputs=[tuple(a) for a in inputs], exact_kinds=exact_kinds,
                     rtol=rtol, atol=atol, module=fn.__module__))
        return fn
    return deco


def stateful(category: str, steps: list[Callable], rtol: float = 1e-5,
             atol: float = 1e-6) -> Callable[[Callable], Callable]:
    """A program with state: ``make()`` gives ``(fn, world)``; ``steps`` change the world and call."""
    def deco(make: Callable) -> Callable:
        name = make.__name__.removeprefix("make_")
        _add(Program(name, category, make=make, steps=list(steps), rtol=rtol, atol=atol, module=make.__module__))
        return make
    return deco


def load_all() -> list[Program]:
    """Import every category module (registering its programs) and return the corpus."""
    from . import (containers, context, control, decoders, generators, numpy_algos, pynum,  # noqa: F401
                   samplers, schedulers, simulation, state, training)
    order = list(CATEGORIES)
    return sorted(PROGRAMS, key=lambda p: order.index(p.category))
