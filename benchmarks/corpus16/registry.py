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

A corpus is a ``Registry`` (this one is ``CORPUS16``; ``benchmarks/hunt`` has
its own), sharing ``measure.py`` and the runner in ``__main__.py``.
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


class Registry:
    """One corpus: its categories, its programs, and the programs known to
    differ from eager (``xfail``) or not to finish converting (``hangs``).
    ``modules`` are the category modules (relative to ``package``) that
    register the programs when imported."""

    def __init__(self, title: str, package: str, modules: list[str], categories: dict[str, str],
                 xfail: dict[str, str] | None = None, hangs: dict[str, str] | None = None):
        self.title, self.package, self.modules, self.categories = title, package, modules, categories
        self.programs: list[Program] = []
        self.xfail: dict[str, str] = {} if xfail is None else xfail
        self.hangs: dict[str, str] = {} if hangs is None else hangs

    def _add(self, p: Program) -> None:
        assert p.category in self.categories, p.category
        assert all(q.name != p.name for q in self.programs), f"duplicate program name {p.name}"
        self.programs.append(p)

    def program(self, category: str, *inputs: tuple, exact_kinds: bool = True, rtol: float = 1e-5,
                atol: float = 1e-6) -> Callable[[Callable], Callable]:
        """A stateless program compared with eager on each input set."""
        def deco(fn: Callable) -> Callable:
            self._add(Program(fn.__name__, category, fn=fn, inputs=[tuple(a) for a in inputs],
                              exact_kinds=exact_kinds, rtol=rtol, atol=atol, module=fn.__module__))
            return fn
        return deco

    def stateful(self, category: str, steps: list[Callable], rtol: float = 1e-5,
                 atol: float = 1e-6) -> Callable[[Callable], Callable]:
        """A program with state: ``make()`` gives ``(fn, world)``; ``steps`` change the world and call."""
        def deco(make: Callable) -> Callable:
            name = make.__name__.removeprefix("make_")
            self._add(Program(name, category, make=make, steps=list(steps), rtol=rtol, atol=atol,
                              module=make.__module__))
            return make
        return deco

    def load_all(self) -> list[Program]:
        """Import every category module (registering its programs) and return the corpus."""
        import importlib
        for m in self.modules:
            importlib.import_module(f"{self.package}.{m}")
        order = list(self.categories)
        return sorted(self.programs, key=lambda p: order.index(p.category))


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

CORPUS16 = Registry("issue-16 corpus", "benchmarks.corpus16",
                    ["containers", "context", "control", "decoders", "generators", "numpy_algos", "pynum",
                     "samplers", "schedulers", "simulation", "state", "training"],
                    CATEGORIES, XFAIL, HANGS)
PROGRAMS = CORPUS16.programs
program = CORPUS16.program
stateful = CORPUS16.stateful
load_all = CORPUS16.load_all
