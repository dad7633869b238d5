"""Differential fuzzer for ast2graph: random programs, eager vs converted.

``generate(seed)`` writes a random, well-formed Python module as *source text*
(so that ast2graph can read it back): an entry function ``f(x, m, n, c)`` with
array arguments (``x``: f32[4], ``m``: f32[R, 4]) and static Python scalars
(``n``: int, ``c``: float), helper functions in the same module, and 2-3
input sets. The programs cover arithmetic, comparisons, ``jnp`` calls, traced
and static ``if``/``elif``/``else``, conditional expressions, ``and``/``or``/
``not``, bounded ``while`` loops on traced conditions, ``for`` over small and
large ``range``\\ s, over array rows and Python lists, nested loops,
``break``/``continue``/``return`` at every depth, ``for``/``while ... else``,
loop-carried Python numbers, tuple state, list appends + ``jnp.stack``,
``x.at[i].set(v)``, prints of traced values, helper calls, and a few
constructs that must fall back (``int()`` of a traced value in ``range``,
``with open(os.devnull)``, ``.item()``, ``raise`` under a traced condition).

``run_program(program, workdir)`` imports the module from a file, runs ``f``
eagerly and ``to_static(f)`` (``full_graph=False``, one converted function for
all input sets, so the specialisation cache is exercised too) on every input
set, and compares what the helpers' ``check`` compares: values (rtol=atol=1e-4),
printed output, exception type and message, arguments afterwards. It reports
the first difference (a *mismatch*), an exception that only the converted run
raised (a *crash*), and whether every call ran as one graph with no fallback.

Values are kept bounded so that eager and compiled float32 results can only
differ by rounding: every array assignment goes through ``jnp.tanh`` or
``jnp.clip``, the constants that Python numbers are combined with are dyadic
(exact in float32 and float64), comparison thresholds are not dyadic, integer
arithmetic is small, and every loop has a static or counter bound.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import os
import random
import re
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

try:
    from .extensions import C_TRACED, ExtensionsMixin
except ImportError:           # run as a script: python tests/fuzz/generator.py SEED
    from extensions import C_TRACED, ExtensionsMixin

# --------------------------------------------------------------------------
# generation
# --------------------------------------------------------------------------

DYADIC = ["0.5", "0.25", "1.5", "0.75", "2.0", "1.25", "0.125"]
THRESH = ["0.3", "-0.7", "1.1", "2.3", "-1.9", "0.1", "-0.3", "0.9", "1.7", "-1.3"]
C_VALUES = [0.5, -1.25, 2.0, 0.75, -0.25]
N_VALUES = list(range(0, 8))
ROWS = [3, 5, 20]

ITER_BUDGET = 200      # product of enclosing trip counts (bounds eager run time)
COPY_BUDGET = 24       # product of unrolled copies (bounds conversion time)
UNROLL_LIMIT = 16      # ast2graph's default: static loops above it roll


@dataclass
class Program:
    seed: int
    source: str
    inputs: list[tuple]          # (x, m, n, c) per call, as plain Python lists / numbers
    rows: int
    features: set[str] = field(default_factory=set)
    aux_source: str = ""         # the module the program imports as `hm` (extension "state")
    aux_name: str = ""
    extra: list[list[str]] = field(default_factory=list)  # per call: the extra arguments, as expressions
    pre: list[list[str]] = field(default_factory=list)    # per call: statements the caller runs before it
    state: str = ""              # an expression of the module state compared after every call
    extensions: frozenset = frozenset()

    @property
    def calls(self) -> int:
        return len(self.inputs)

    def arg_sets(self) -> list[tuple]:
        """The (x, m, n, c) arguments of every call (without the extra ones)."""
        out = []
        for x, m, n, c in self.inputs:
            out.append((jnp.asarray(x, dtype=jnp.float32), jnp.asarray(m, dtype=jnp.float32), n, c))
        return out

    def args(self, k: int, namespace: dict, nudge: float = 0.0) -> tuple:
        """The arguments of call ``k``, made fresh in the module ``namespace``
        (config objects are instances of that module's classes). ``nudge``
        scales the float32 inputs and ``c`` by ``1 + nudge``."""
        x, m, n, c = self.inputs[k]
        x, m = jnp.asarray(x, dtype=jnp.float32), jnp.asarray(m, dtype=jnp.float32)
        if nudge:
            x, m = x * (1 + nudge), m * (1 + nudge)
            c = c * (1 + nudge) if type(c) is float else c
        extra = self.extra[k] if self.extra else []
        return (x, m, n, c) + tuple(eval(e, namespace) for e in extra)

    def where(self, k: int) -> str:
        x, m, n, c = self.inputs[k]
        text = f"call {k} (n={n}, c={c}"
        if self.pre and self.pre[k]:
            text += "; before it: " + "; ".join(self.pre[k])
        return text + ")"

    def reproducer(self) -> str:
        """The program plus its calls, runnable on its own: eager, then
        converted, each in a fresh copy of the module (its own state)."""
        lines = [f"# ast2graph fuzz program, seed {self.seed}"]
        if self.extensions:
            lines.append(f"# extensions: {', '.join(sorted(self.extensions))}")
        if self.aux_source:
            lines += ["import os as _os, sys as _sys, tempfile as _tempfile",
                      f"_AUX_SOURCE = {self.aux_source!r}",
                      "_aux_dir = _os.path.join(_tempfile.gettempdir(), 'a2g_fuzz_aux')",
                      "_os.makedirs(_aux_dir, exist_ok=True)",
                      f"with open(_os.path.join(_aux_dir, '{self.aux_name}.py'), 'w') as _fh:",
                      "    _fh.write(_AUX_SOURCE)",
                      "_sys.path.insert(0, _aux_dir)", "# ---- the program"]
        lines += [self.source.rstrip(), "", "", "INPUTS = ["]
        for x, m, n, c in self.inputs:
            lines.append(f"    ({x!r},\n     {m!r},\n     {n!r}, {c!r}),")
        lines += ["]"]
        extended = bool(self.extensions)
        if extended:
            lines += [f"EXTRA = {self.extra!r}   # extra arguments of each call (expressions)",
                      f"PRE = {self.pre!r}   # what the caller changes before each call",
                      f"STATE = {self.state!r}   # state compared after each call"]
        lines += ["", "",
                  "if __name__ == '__main__':",
                  "    import importlib.util",
                  "    import sys",
                  "    from ast2graph import to_static",
                  "",
                  "    def world(tag):   # a fresh copy of this module: one run does not see the other's state",
                  f"        sys.modules.pop({self.aux_name!r}, None)" if self.aux_name else "        pass",
                  "        spec = importlib.util.spec_from_file_location('world_' + tag, __file__)",
                  "        w = sys.modules['world_' + tag] = importlib.util.module_from_spec(spec)",
                  "        spec.loader.exec_module(w)",
                  "        return w",
                  "",
                  "    for tag in ('eager', 'converted'):",
                  "        w = world(tag)",
                  "        fn = w.f if tag == 'eager' else to_static(w.f)",
                  "        for k, (x, mm, n, c) in enumerate(INPUTS):",
                  "            args = (jnp.asarray(x, jnp.float32), jnp.asarray(mm, jnp.float32), n, c)"]
        if extended:
            lines += ["            for stmt in PRE[k]:",
                      "                exec(stmt, vars(w))",
                      "            args += tuple(eval(e, vars(w)) for e in EXTRA[k])"]
        lines += ["            try:",
                  "                print(tag, k, fn(*args))",
                  "            except Exception as e:",
                  "                print(tag, k, 'raised', repr(e))"]
        if extended and self.state:
            lines += ["            print(tag, k, 'state', eval(STATE, vars(w)))"]
        lines.append("")
        return "\n".join(lines)


class _Scope:
    """Names of each kind visible at a point of the generated function."""

    def __init__(self, V, S, I, M, SI, assign_V, assign_S, assign_I):
        self.V, self.S, self.I, self.M, self.SI = V, S, I, M, SI
        self.assign_V, self.assign_S, self.assign_I = assign_V, assign_S, assign_I

    def child(self, **extra) -> "_Scope":
        s = _Scope(list(self.V), list(self.S), list(self.I), list(self.M), list(self.SI),
                   self.assign_V, self.assign_S, self.assign_I)
        for k, v in extra.items():
            getattr(s, k).extend(v)
        return s


@dataclass
class _Ctx:
    scope: _Scope
    depth: int = 0            # compound-statement nesting
    loops: int = 0            # enclosing loops
    iters: int = 1            # product of enclosing trip counts
    copies: int = 1           # product of enclosing unrolled copies
    helper: bool = False      # inside a helper (returns one array)
    ret: str = ""             # how a `return` in this function reads (filled per use)

    def inner(self, scope=None, loop=False, trips=1, unrolled=True) -> "_Ctx":
        return _Ctx(scope or self.scope, self.depth + 1, self.loops + (1 if loop else 0),
                    self.iters * max(trips, 1), self.copies * (max(trips, 1) if unrolled else 1),
                    self.helper)


class Generator(ExtensionsMixin):
    """One random program per seed (deterministic: ``random.Random(seed)``).

    ``extensions``: None draws them from the seed (half of the programs have
    none and are the classic program of their seed), ``"all"`` or a set of
    names from ``extensions.EXTENSIONS`` forces them."""

    MAX_DEPTH = 3
    COMPOUND_WEIGHT = (1.0, 0.55, 0.3)   # compound statements get rarer with depth
    ITER_BUDGET = ITER_BUDGET
    COPY_BUDGET = COPY_BUDGET

    def __init__(self, seed: int, extensions=None):
        self.max_expr = 2
        self.seed = seed
        self.r = random.Random(seed)
        self.lines: list[str] = []
        self.counter = itertools.count()
        self.helpers: list[tuple[str, int]] = []   # (name, arity) callable from f
        self.features: set[str] = set()
        self.rows = self.r.choice(ROWS)
        self.ext_setup(extensions)

    # ------------------------------------------------------------ helpers
    def p(self, prob: float) -> bool:
        return self.r.random() < prob

    def pick(self, seq):
        return self.r.choice(seq)

    def uid(self) -> int:
        return next(self.counter)

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    # ------------------------------------------------------------ expressions
    def int_expr(self, sc: _Scope, d: int = 0) -> str:
        r = self.r.random()
        if d >= 2 or r < 0.5:
            return self.pick(sc.I + [str(self.r.randint(0, 5))])
        a, b = self.int_expr(sc, d + 1), self.int_expr(sc, d + 1)
        return self.pick([f"({a} + {b})", f"({a} * 2)", f"({a} % 3)", f"({a} - {b})", f"({a} // 2)"])

    def index(self, sc: _Scope, size: int = 4) -> str:
        if self.p(0.3):
            return str(self.r.randint(0, size - 1))
        return f"({self.int_expr(sc)}) % {size}"

    def vexpr(self, sc: _Scope, d: int = 0) -> str:
        r = self.r.random()
        if d >= self.max_expr or r < 0.3:
            atoms = list(sc.V) * 3 + [f"m[{self.index(sc, self.rows)}]", "jnp.ones(4)",
                                      f"({self.pick(sc.V)} * c)", "(jnp.arange(4.0) * 0.25)"]
            return self.pick(atoms)
        d += 1
        k = self.r.randrange(17)
        A = lambda: self.vexpr(sc, d)  # noqa: E731
        if k == 0:
            return f"({A()} + {A()})"
        if k == 1:
            return f"({A()} - {A()})"
        if k == 2:
            return f"({A()} * {A()})"
        if k == 3:
            return f"({A()} * {self.pick(DYADIC)})"
        if k == 4:
            return f"({A()} + {self.sexpr(sc, d)})"
        if k == 5:
            a = A()
            return f"({a} / (1.0 + {a} * {a}))"
        if k == 6:
            return f"jnp.{self.pick(['sin', 'tanh', 'abs', 'cos'])}({A()})"
        if k == 7:
            return f"jnp.exp(jnp.tanh({A()}))"
        if k == 8:
            return f"jnp.clip({A()}, -1.0, 1.0)"
        if k == 9:
            return f"jnp.where({A()} > {self.pick(THRESH)}, {A()}, {A()})"
        if k == 10:
            return f"jnp.maximum({A()}, {A()})"
        if k == 11:
            self.features.add("ifexp")
            return f"({A()} if {self.cond(sc, d)} else {A()})"
        if k == 12 and self.helpers:
            name, arity = self.pick(self.helpers)
            self.features.add("helper_call")
            args = [A(), self.sexpr(sc, d)][:arity]
            return f"{name}({', '.join(args)})"
        if k == 13:
            return self.pick(["(m.sum(axis=0) * 0.125)", "jnp.tanh(m).mean(axis=0)", "m.max(axis=0)"])
        if k == 14:
            return f"(-{A()})"
        if k == 15:
            return f"({A()} * {self.int_expr(sc)})"
        return f"({A()} - {self.sexpr(sc, d)})"

    def sexpr(self, sc: _Scope, d: int = 0) -> str:
        r = self.r.random()
        if d >= self.max_expr or r < 0.3:
            return self.pick(list(sc.S) * 2 + [self.pick(DYADIC), "c", f"{self.pick(sc.V)}.sum()"])
        d += 1
        k = self.r.randrange(14)
        A = lambda: self.sexpr(sc, d)  # noqa: E731
        V = lambda: self.vexpr(sc, d)  # noqa: E731
        if k == 0:
            return f"({A()} + {A()})"
        if k == 1:
            return f"({A()} * {A()})"
        if k == 2:
            return f"{V()}.sum()"
        if k == 3:
            return f"jnp.max({V()})"
        if k == 4:
            return f"{V()}.mean()"
        if k == 5:
            return f"{V()}[{self.index(sc)}]"
        if k == 6:
            return f"jnp.tanh({A()})"
        if k == 7:
            return f"jnp.sum({V()} * {V()})"
        if k == 8:
            return f"({A()} - {A()})"
        if k == 9:
            self.features.add("ifexp")
            return f"({A()} if {self.cond(sc, d)} else {A()})"
        if k == 10:
            return f"({self.int_expr(sc)} * {self.pick(DYADIC)})"
        if k == 11:
            self.features.add("value_and_or")
            return f"({A()} {self.pick(['and', 'or'])} {A()})"
        if k == 12:
            return f"jnp.sin({A()})"
        return f"m[{self.index(sc, self.rows)}, {self.index(sc)}]"

    def traced_cond(self, sc: _Scope, d: int = 0) -> str:
        k = self.r.randrange(7)
        T = self.pick(THRESH)
        V = lambda: self.vexpr(sc, max(d, 2))  # noqa: E731
        if k == 0:
            return f"{V()}.sum() > {T}"
        if k == 1:
            return f"jnp.max({V()}) < {T}"
        if k == 2:
            return f"{self.sexpr(sc, max(d, 2))} > {T}"
        if k == 3:
            return f"{self.pick(sc.V)}[{self.index(sc)}] < {self.sexpr(sc, 3)}"
        if k == 4:
            return f"jnp.any({V()} > {T})"
        if k == 5:
            self.features.add("chained_compare")
            return f"-1.5 < {self.sexpr(sc, max(d, 2))} < {T}"
        return f"{V()}.mean() >= {T}"

    def static_cond(self, sc: _Scope) -> str:
        k = self.r.randrange(5)
        name = self.pick(sc.SI) if sc.SI else self.pick(sc.I)
        if k == 0:
            return f"{name} > {self.r.randint(0, 4)}"
        if k == 1:
            return f"{name} % 2 == 0"
        if k == 2:
            return f"c > {self.pick(['0', '0.6', '-1.0'])}"
        if k == 3:
            return f"{self.pick(sc.I)} > {self.r.randint(1, 6)}"
        return f"{name} != {self.r.randint(0, 5)}"

    def cond(self, sc: _Scope, d: int = 0) -> str:
        r = self.r.random()
        base = self.traced_cond(sc, d) if self.p(0.65) else self.static_cond(sc)
        if r < 0.55 or d >= 3:
            return base
        other = self.traced_cond(sc, 3) if self.p(0.5) else self.static_cond(sc)
        if r < 0.7:
            self.features.add("bool_and")
            return f"({base}) and ({other})"
        if r < 0.85:
            self.features.add("bool_or")
            return f"({base}) or ({other})"
        self.features.add("bool_not")
        return f"not ({base})"

    # ------------------------------------------------------------ statements
    def bounded_v(self, sc: _Scope) -> str:
        e = self.vexpr(sc)
        return self.pick([f"jnp.tanh({e})", f"jnp.clip({e}, -3.0, 3.0)", f"jnp.sin({e})"])

    def bounded_s(self, sc: _Scope) -> str:
        e = self.sexpr(sc)
        return self.pick([f"jnp.tanh({e})", f"jnp.clip({e}, -4.0, 4.0)"])

    def ret_value(self, ctx: _Ctx) -> str:
        sc = ctx.scope
        if ctx.helper:
            return self.bounded_v(sc)
        extra = ", out" if self.ext else ""      # the extensions' result dict
        return f"{self.bounded_v(sc)}, {self.pick(sc.S)}, {self.pick(sc.assign_I)}{extra}"

    def block(self, ctx: _Ctx, indent: int, n_min: int = 1, n_max: int = 4) -> None:
        n = self.r.randint(n_min, n_max)
        for _ in range(n):
            self.stmt(ctx, indent)

    def stmt(self, ctx: _Ctx, indent: int) -> None:
        if self.ext_stmt(ctx, indent):
            return
        sc = ctx.scope
        compound_ok = ctx.depth < self.MAX_DEPTH
        choices = [("assign_v", 6), ("assign_s", 4), ("counter", 2), ("at_set", 2), ("print", 2),
                   ("swap", 1)]
        if compound_ok:
            w = self.COMPOUND_WEIGHT[ctx.depth]
            choices += [("if", 5 * w), ("for_range", 4 * w), ("while", 2 * w), ("for_rows", 1.5 * w),
                        ("for_list", 1.5 * w), ("list_stack", 1 * w), ("tuple_state", 1 * w)]
            if not ctx.helper:
                choices += [("fallback", 0.5), ("raise", 0.3)]
        if ctx.loops:
            choices += [("break", 1.5), ("continue", 1.5)]
        choices += [("return", 0.6 if ctx.depth else 0.15)]
        kind = self.r.choices([c for c, _ in choices], [w for _, w in choices])[0]
        getattr(self, "s_" + kind)(ctx, indent)

    def s_assign_v(self, ctx, ind):
        sc = ctx.scope
        self.emit(ind, f"{self.pick(sc.assign_V)} = {self.bounded_v(sc)}")

    def s_assign_s(self, ctx, ind):
        sc = ctx.scope
        target = self.pick(sc.assign_S)
        r = self.r.random()
        if r < 0.3:
            # stays a Python number while everything it meets is Python
            self.features.add("python_scalar_carry")
            self.emit(ind, f"{target} = {target} * {self.pick(['0.5', '0.75'])} + {self.pick(DYADIC)}")
        elif r < 0.5:
            self.emit(ind, f"{target} = jnp.clip({target} + {self.sexpr(sc, 1)}, -50.0, 50.0)")
        else:
            self.emit(ind, f"{target} = {self.bounded_s(sc)}")

    def s_counter(self, ctx, ind):
        sc = ctx.scope
        t = self.pick(sc.assign_I)
        self.emit(ind, self.pick([f"{t} = {t} + 1", f"{t} += {self.pick(sc.I)} % 3",
                                  f"{t} = ({t} * 3 + 1) % 7", f"{t} -= 1"]))

    def s_at_set(self, ctx, ind):
        sc = ctx.scope
        self.features.add("at_set")
        t = self.pick(sc.assign_V)
        op = self.pick(["set", "set", "add"])
        self.emit(ind, f"{t} = {t}.at[{self.index(sc)}].{op}(jnp.tanh({self.sexpr(sc, 1)}))")

    def s_print(self, ctx, ind):
        sc = ctx.scope
        tag = f"p{self.uid()}"
        self.features.add("print")
        k = self.r.randrange(4)
        if k == 0:
            self.emit(ind, f'print(f"{tag} {{{self.pick(sc.V)}.sum():.3f}}")')
        elif k == 1:
            self.emit(ind, f"print({self.pick(sc.V)})")
        elif k == 2:
            self.emit(ind, f'print(f"{tag} {{{self.pick(sc.S)}:.3f}} {{{self.pick(sc.assign_I)}}}")')
        else:
            self.emit(ind, f'print("{tag}", {self.pick(sc.I)}, {self.pick(sc.V)}.max())')

    def s_swap(self, ctx, ind):
        sc = ctx.scope
        if len(sc.assign_V) >= 2:
            a, b = self.r.sample(sc.assign_V, 2)
            self.features.add("tuple_assign")
            self.emit(ind, f"{a}, {b} = {b}, jnp.tanh({a} + {b})")
        else:
            self.s_assign_v(ctx, ind)

    def s_if(self, ctx, ind):
        sc = ctx.scope
        self.features.add("if")
        self.emit(ind, f"if {self.cond(sc)}:")
        inner = ctx.inner()
        self.block(inner, ind + 1, 1, 2)
        n_elif = self.r.choice([0, 0, 0, 1, 2])
        for _ in range(n_elif):
            self.features.add("elif")
            self.emit(ind, f"elif {self.cond(sc)}:")
            self.block(inner, ind + 1, 1, 1)
        if self.p(0.55):
            self.emit(ind, "else:")
            self.block(inner, ind + 1, 1, 2)

    def _loop_else(self, ctx, ind):
        if self.p(0.2):
            self.features.add("loop_else")
            self.emit(ind, "else:")
            self.block(ctx.inner(), ind + 1, 1, 1)

    def s_for_range(self, ctx, ind):
        sc = ctx.scope
        var = f"i{self.uid()}"
        r = self.r.random()
        room = ITER_BUDGET // ctx.iters
        if r < 0.15 and room >= 24 and ctx.iters * 2 <= ITER_BUDGET:
            trips = self.r.randint(UNROLL_LIMIT + 1, min(40, room))   # rolls: lax.fori_loop
            bound, unrolled, static = str(trips), False, True
            self.features.add("for_range_rolled")
        elif r < 0.35 and "n" in sc.SI:        # not in helpers: they have no `n`
            bound, trips, unrolled, static = "n", 7, True, True
            self.features.add("for_range_n")
        elif r < 0.45:
            bound, trips, unrolled, static = f"{self.pick(sc.assign_I)} % 4", 3, False, False
            self.features.add("for_range_dynamic")
        else:
            trips = self.r.randint(0 if self.p(0.1) else 1, 5)
            bound, unrolled, static = str(trips), True, True
            self.features.add("for_range_small")
        if ctx.iters * max(trips, 1) > ITER_BUDGET or (unrolled and ctx.copies * max(trips, 1) > COPY_BUDGET):
            bound, trips, unrolled = "2", 2, True
        if self.p(0.15) and bound not in ("n",) and static:
            start = self.r.randint(0, 2)
            head = f"range({start}, {bound} + {start})"
        else:
            head = f"range({bound})"
        self.emit(ind, f"for {var} in {head}:")
        inner = ctx.inner(sc.child(I=[var], SI=[var] if unrolled else []), loop=True, trips=trips,
                          unrolled=unrolled)
        self.block(inner, ind + 1, 1, 3)
        self._loop_else(ctx, ind)
        if bound.isdigit() and int(bound) >= 1 and self.p(0.2):
            # the loop variable read after the loop
            self.features.add("loop_var_after")
            self.emit(ind, f"{self.pick(sc.assign_I)} += {var}")

    def s_while(self, ctx, ind):
        sc = ctx.scope
        self.features.add("while")
        w = f"w{self.uid()}"
        K = self.r.randint(2, 8) if self.p(0.8) else self.r.randint(10, 25)
        if ctx.iters * K > ITER_BUDGET:
            K = max(1, ITER_BUDGET // ctx.iters)
        self.emit(ind, f"{w} = 0")
        r = self.r.random()
        if r < 0.6:
            cond = f"{w} < {K} and {self.traced_cond(sc, 2)}"
        elif r < 0.8:
            cond = f"{self.traced_cond(sc, 2)} and {w} < {K}"
        else:
            cond = f"{w} < {K}"
        self.emit(ind, f"while {cond}:")
        self.emit(ind + 1, f"{w} = {w} + 1")      # first, so continue can never skip it
        inner = ctx.inner(sc.child(I=[w]), loop=True, trips=K, unrolled=False)
        self.block(inner, ind + 1, 1, 3)
        self._loop_else(ctx, ind)

    def s_for_rows(self, ctx, ind):
        sc = ctx.scope
        self.features.add("for_rows")
        var = f"r{self.uid()}"
        trips = self.rows
        src = "m"
        if ctx.iters * trips > ITER_BUDGET or ctx.copies * trips > COPY_BUDGET:
            src, trips = "m[:2]", 2
        self.emit(ind, f"for {var} in {src}:")
        inner = ctx.inner(sc.child(V=[var]), loop=True, trips=trips, unrolled=trips <= UNROLL_LIMIT)
        self.block(inner, ind + 1, 1, 2)
        self._loop_else(ctx, ind)

    def s_for_list(self, ctx, ind):
        sc = ctx.scope
        self.features.add("for_list")
        var = f"e{self.uid()}"
        if self.p(0.5):
            items = self.r.sample(DYADIC + ["c", "-1.0"], self.r.randint(1, 4))
            self.emit(ind, f"for {var} in [{', '.join(items)}]:")
            child = sc.child(S=[var])
        else:
            items = [self.pick(sc.V) for _ in range(self.r.randint(1, 3))]
            self.emit(ind, f"for {var} in ({', '.join(items)},):")
            child = sc.child(V=[var])
        trips = len(items)
        inner = ctx.inner(child, loop=True, trips=trips)
        self.block(inner, ind + 1, 1, 2)
        self._loop_else(ctx, ind)

    def s_list_stack(self, ctx, ind):
        sc = ctx.scope
        self.features.add("list_stack")
        ys, j = f"ys{self.uid()}", f"j{self.uid()}"
        trips = self.r.randint(1, 5)
        bound = str(trips) if self.p(0.7) or "n" not in sc.SI else "n + 1"
        self.emit(ind, f"{ys} = []")
        self.emit(ind, f"for {j} in range({bound}):")
        child = sc.child(I=[j], SI=[j])
        self.emit(ind + 1, f"{ys}.append({self.bounded_v(child)} * {j})")
        if self.p(0.3):
            self.emit(ind + 1, f"{ys}.append(jnp.tanh({self.pick(sc.V)} + {j}))")
        t = self.pick(sc.assign_V)
        self.emit(ind, f"{t} = jnp.tanh(jnp.stack({ys}).{self.pick(['sum', 'mean', 'max'])}(axis=0))")

    def s_tuple_state(self, ctx, ind):
        sc = ctx.scope
        self.features.add("tuple_state")
        st, a, b, i = f"st{self.uid()}", f"ta{self.uid()}", f"tb{self.uid()}", f"q{self.uid()}"
        v, s = self.pick(sc.assign_V), self.pick(sc.assign_S)
        trips = self.r.choice([2, 3, 4, 20]) if ctx.depth == 0 else self.r.choice([2, 3])
        if ctx.iters * trips > ITER_BUDGET or ctx.copies * trips > COPY_BUDGET:
            trips = 1
        self.emit(ind, f"{st} = ({v}, {s})")
        self.emit(ind, f"for {i} in range({trips}):")
        self.emit(ind + 1, f"{a}, {b} = {st}")
        child = sc.child(V=[a], S=[b], I=[i])
        self.emit(ind + 1, f"{st} = (jnp.tanh({a} * 0.5 + {self.vexpr(child, 2)}), "
                            f"{b} * 0.5 + {self.pick([self.sexpr(child, 2), self.pick(DYADIC)])})")
        self.emit(ind, f"{v}, {s} = {st}")

    def s_break(self, ctx, ind):
        self._exit(ctx, ind, "break")

    def s_continue(self, ctx, ind):
        self._exit(ctx, ind, "continue")

    def s_return(self, ctx, ind):
        self._exit(ctx, ind, "return " + self.ret_value(ctx))

    def _exit(self, ctx, ind, what):
        self.features.add(what.split()[0] + ("_in_loop" if ctx.loops else ""))
        if self.p(0.8):
            cond = self.cond(ctx.scope)
            self.emit(ind, f"if {cond}:")
            self.emit(ind + 1, what)
        else:
            # unconditional: the rest of the block is dead code, which is fine
            self.emit(ind, what)

    def s_fallback(self, ctx, ind):
        sc = ctx.scope
        k = self.r.randrange(4)
        t = self.pick(sc.assign_V)
        self.features.add("fallback")
        if k == 0:
            j = f"j{self.uid()}"
            self.emit(ind, f"for {j} in range(int(jnp.abs({self.pick(sc.V)}).sum()) % 3 + 1):")
            self.emit(ind + 1, f"{t} = jnp.tanh({t} + {j} * 0.5)")
        elif k == 1:
            self.emit(ind, "with open(os.devnull) as fh:")
            self.emit(ind + 1, f"{t} = jnp.tanh({self.vexpr(sc, 1)})")
            if self.p(0.3):
                self.emit(ind + 1, f'print("in with", fh.closed)')
        elif k == 2:
            s = self.pick(sc.assign_S)
            self.emit(ind, f"{s} = {s} * 0.5 + {self.pick(sc.V)}.sum().item()")
        else:
            s = self.pick(sc.assign_S)
            self.emit(ind, f"{s} = float(jnp.max({self.pick(sc.V)})) * 0.5")

    def s_raise(self, ctx, ind):
        sc = ctx.scope
        self.features.add("raise")
        if self.p(0.6):
            self.emit(ind, f"if n > {self.r.randint(4, 7)}:")
            self.emit(ind + 1, f'raise ValueError(f"n too large: {{n}}")')
        else:
            self.emit(ind, f"if {self.traced_cond(sc, 2)}:")
            self.emit(ind + 1, f'raise {self.pick(["ValueError", "RuntimeError"])}("traced condition")')

    # ------------------------------------------------------------ program
    def helper(self, idx: int) -> None:
        name = f"h{idx}"
        arity = self.r.choice([1, 2])
        params = ["a", "t"][:arity]
        self.emit(0, f"def {name}({', '.join(params)}):")
        S = ["t"] if arity == 2 else []
        sc = _Scope(V=["a", "u"], S=S + ["z"], I=["hk"], M=["m"], SI=[],
                    assign_V=["a", "u"], assign_S=["z"], assign_I=["hk"])
        self.emit(1, "u = jnp.tanh(a)")
        self.emit(1, "z = 0.25")
        self.emit(1, "hk = 0")
        # `m` and `c` in a helper are the module-level globals of that name
        ctx = _Ctx(sc, depth=1, helper=True)
        saved = self.helpers
        self.helpers = []     # no recursion between helpers
        self.block(ctx, 1, 1, 2)
        self.helpers = saved
        self.emit(1, f"return {self.bounded_v(sc)}")
        self.emit(0, "")
        self.emit(0, "")
        self.helpers.append((name, arity))

    def generate(self) -> Program:
        self.emit(0, "import os")
        self.emit(0, "")
        self.emit(0, "import jax.numpy as jnp")
        for line in self.ext_imports():
            self.emit(0, line)
        self.emit(0, "")
        self.emit(0, f"c = 0.5        # helpers read these module-level names")
        self.emit(0, f"m = jnp.linspace(-1.0, 1.0, {self.rows * 4}, dtype=jnp.float32).reshape({self.rows}, 4)")
        self.emit(0, "")
        self.emit(0, "")
        for line in self.ext_prelude():
            self.emit(0, line)
        for i in range(self.r.choice([0, 1, 1, 2])):
            self.helper(i)
        closure = "closure" in self.items      # f is made by a factory and closes over the list `taps`
        base = 2 if closure else 1
        if closure:
            self.emit(0, "def make_f(taps):")
        self.emit(base - 1, f"def f({', '.join(['x', 'm', 'n', 'c'] + self.ext_params())}):")
        sc = _Scope(V=["x", "v0", "v1"], S=["s0", "s1"], I=["k0", "n"], M=["m"], SI=["n"],
                    assign_V=["x", "v0", "v1"], assign_S=["s0", "s1"], assign_I=["k0"])
        self.emit(base, "v0 = " + self.pick(["x * 0.5", "jnp.zeros(4)", "jnp.tanh(x)"]))
        self.emit(base, "v1 = " + self.pick(["m[0]", "jnp.ones(4) * c", "jnp.sin(x)"]))
        self.emit(base, "s0 = " + self.pick(["0.0", "0", "c", "1.5"]))
        self.emit(base, "s1 = " + self.pick(["x.sum()", "0.0", "jnp.float32(0.25)"]))
        self.emit(base, "k0 = 0")
        self.ext_prologue(base)
        ctx = _Ctx(sc)
        self.block(ctx, base, 2, 6)
        self.ext_epilogue(ctx, base)
        self.emit(base, f"return {self.ret_value(ctx)}")
        if closure:
            self.emit(1, "return f")
            self.emit(0, "")
            self.emit(0, "")
            self.emit(0, "f = make_f(TAPS)")
        source = "\n".join(self.lines) + "\n"
        inputs = []
        n_sets = self.r.choice([2, 3])
        n, cval = self.pick(N_VALUES), self.pick(C_VALUES)
        for k in range(n_sets):
            if k == 2:            # the third set re-specialises on new static arguments
                n, cval = self.pick(N_VALUES), self.pick(C_VALUES)
            x = [float(np.float32(self.r.uniform(-2, 2))) for _ in range(4)]
            mm = [[float(np.float32(self.r.uniform(-1.5, 1.5))) for _ in range(4)] for _ in range(self.rows)]
            inputs.append((x, mm, n, cval))
        # the extensions' calls: more of them, the caller's state changed between them
        X = self.x
        for k in range(n_sets, self.n_calls):
            x = [float(np.float32(X.uniform(-2, 2))) for _ in range(4)]
            mm = [[float(np.float32(X.uniform(-1.5, 1.5))) for _ in range(4)] for _ in range(self.rows)]
            inputs.append((x, mm, n, cval))
        if "traced_args" in self.ext:      # a new n and c on every call: traced from the fifth
            ns, cs = X.sample(N_VALUES, len(inputs)), X.sample(C_TRACED, len(inputs))
            inputs = [(x, mm, ns[k], cs[k]) for k, (x, mm, _, _) in enumerate(inputs)]
        calls = len(inputs)
        extra = [self.ext_args(k) for k in range(calls)] if self.ext else [[] for _ in range(calls)]
        pre = [[]] + [self.ext_mutations() for _ in range(1, calls)]
        return Program(self.seed, source, inputs, self.rows, set(self.features), aux_source=self.aux_source(),
                       aux_name=self.aux_name if "aux" in self.items else "", extra=extra, pre=pre,
                       state=self.ext_state_expr(), extensions=frozenset(self.ext))


def generate(seed: int, extensions=None) -> Program:
    """The program of ``seed``; ``extensions``: None (drawn from the seed),
    ``"all"``, or a set of names from ``extensions.EXTENSIONS``."""
    return Generator(seed, extensions).generate()


def program_seed(campaign_seed: int, index: int) -> int:
    """The seed of program ``index`` of a campaign (stable, printable)."""
    return campaign_seed * 1_000_000 + index


# --------------------------------------------------------------------------
# running and comparing
# --------------------------------------------------------------------------

RTOL = ATOL = 1e-4

_NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


def _significant_digits(number: str) -> int:
    mantissa = re.split(r"[eE]", number)[0].lstrip("+-").replace(".", "").lstrip("0")
    return len(mantissa)


def _same_text(eager: str, conv: str) -> bool:
    """Printed output: exact, or equal up to float32 rounding of the numbers.

    Compiled and eager float32 results may differ in the last bit; a number
    printed with ``:.3f`` may then differ by one unit in its last digit, and
    numpy's array printing may pad differently. Text between numbers must be
    equal (runs of whitespace compare equal); numbers within rtol/atol plus one
    unit of their last printed digit. A number printed with more than 9
    significant digits is 64-bit data (float32 never prints more): it must
    agree to 64-bit precision (1e-11 relative) plus one unit of its last digit.
    """
    if eager == conv:
        return True
    ne, nc = _NUM.findall(eager), _NUM.findall(conv)
    te = [" ".join(t.split()) for t in _NUM.split(eager)]
    tc = [" ".join(t.split()) for t in _NUM.split(conv)]
    if te != tc or len(ne) != len(nc):
        return False
    for a, b in zip(ne, nc):
        if a == b:
            continue
        fa, fb = float(a), float(b)
        if "." not in a + b and "e" not in (a + b).lower() and fa != fb:
            return False           # integers print exactly
        decimals = max(len(s.split(".")[1].split("e")[0].split("E")[0]) if "." in s else 0 for s in (a, b))
        unit = 10.0 ** -decimals
        wide = max(_significant_digits(a), _significant_digits(b)) > 9
        rtol, atol = (1e-11, 0.0) if wide else (RTOL, ATOL)
        if not (abs(fa - fb) <= atol + rtol * abs(fa) + unit * 1.01):
            return False
    return True


def compare_values(expected: Any, got: Any) -> None:
    """The helpers' ``assert_same`` (rtol=atol=1e-4), exact on kinds: a
    variable that is a Python number on one path of a traced ``if``/loop and
    an array on another comes back as what eager has on the path taken (the
    construct runs in Python where that cannot be one graph)."""
    from helpers import assert_same

    assert_same(expected, got, RTOL, ATOL)


def _plain(v: Any) -> Any:
    """``v`` with objects made comparable across two copies of a module: an
    instance becomes ``{"__class__": name, **attributes}``, a function its
    name; containers and arrays are copied (the state goes on changing)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    if isinstance(v, np.ndarray):
        return v.copy()
    if v is None or isinstance(v, (jax.Array, np.generic, bool, int, float, complex, str, bytes)):
        return v
    if callable(v) and hasattr(v, "__name__"):
        return f"<function {v.__name__}>"
    if hasattr(v, "__dict__"):
        return {"__class__": type(v).__name__, **{k: _plain(x) for k, x in vars(v).items()}}
    return repr(v)


@dataclass
class Outcome:
    seed: int
    status: str                   # "ok" | "mismatch" | "crash" | "ill-conditioned" (| "timeout", fuzz_long.py)
    detail: str = ""
    one_graph: bool | None = None  # None: not applicable (every call raised)
    fallback_codes: set[str] = field(default_factory=set)
    program: Program | None = None
    unchecked: str | None = None   # status with the IR verifier off, after a verifier crash

    def report(self) -> str:
        src = self.program.reproducer() if self.program else ""
        return (f"fuzz {self.status} (program seed {self.seed}): {self.detail}\n"
                f"--- program ---\n{src}")

    @property
    def kind(self) -> str:
        """What differed first, in a few words (for the campaign's summary;
        the cause is for a person to find)."""
        if self.status not in ("mismatch", "crash"):
            return self.status
        first = self.detail.splitlines()[0] if self.detail else ""
        for pattern, kind in _KINDS:
            if re.search(pattern, first):
                return f"{self.status}: {kind}"
        return f"{self.status}: other"


_KINDS = [
    (r"dict keys \(in order\) differ", "dict key order"),
    (r"dtype differs", "dtype"),
    (r"kind differs", "leaf kind"),
    (r": type differs", "container or value type"),
    (r"structure differs|length differs", "structure"),
    (r"state afterwards", "state after the call"),
    (r"arguments afterwards", "arguments after the call"),
    (r"printed output differs", "printed output"),
    (r"eager raised .*, converted returned", "missing exception"),
    (r"eager returned .*, converted raised", "unexpected exception"),
    (r"eager raised .*, converted raised", "other exception"),
    (r"internal error fallback", "internal error (A2G015)"),
    (r"to_static raised", "conversion"),
    (r"result differs", "value"),
]


def _run(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return fn(*args), None, out.getvalue()
        except Exception as e:  # noqa: BLE001
            return None, e, out.getvalue()


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _write(workdir: Path, stem: str, text: str) -> Path:
    """A file named by its content, so that a cached source (linecache, the
    conversion cache) never belongs to another program of the same seed."""
    import hashlib
    path = Path(workdir) / f"{stem}_{hashlib.sha1(text.encode()).hexdigest()[:10]}.py"
    if not path.exists():
        path.write_text(text)
    return path


def _world(program: Program, workdir: Path, tag: str):
    """A fresh copy of the program's module (and of its auxiliary module
    ``hm``): its own state, which the other copies' calls do not change."""
    if program.aux_source:
        _load(program.aux_name, _write(workdir, program.aux_name, program.aux_source))
    name = f"a2g_fuzz_{program.seed}_{tag}"
    return name, _load(name, _write(workdir, f"a2g_fuzz_{program.seed}", program.source))


def _is_internal(exc: BaseException) -> bool:
    """Raised on ast2graph's own account (a crash) rather than by the program."""
    from ast2graph.diagnostics import Ast2GraphError
    if isinstance(exc, Ast2GraphError):
        return True
    tb = traceback.extract_tb(exc.__traceback__)
    return bool(tb) and "ast2graph" in Path(tb[-1].filename).parts


def run_program(program: Program, workdir: Path) -> Outcome:
    """Eager vs ``to_static`` on every call of ``program``.

    A crash of the IR verifier (``AST2GRAPH_CHECKS=1``, as in the test suite)
    is re-run with the verifier off, and the detail says whether the results
    are then right (an invariant violation only) or not.
    """
    outcome = _run_program(program, workdir)
    if outcome.status == "crash" and "VerificationError" in outcome.detail \
            and os.environ.get("AST2GRAPH_CHECKS", "") not in ("", "0"):
        saved = os.environ["AST2GRAPH_CHECKS"]
        os.environ["AST2GRAPH_CHECKS"] = "0"
        try:
            unchecked = _run_program(program, workdir)
        finally:
            os.environ["AST2GRAPH_CHECKS"] = saved
        outcome.unchecked = unchecked.status
        first = unchecked.detail.splitlines()[0] if unchecked.detail else "same values, output and exceptions as eager"
        outcome.detail = (outcome.detail.splitlines()[0] + f"\n[with AST2GRAPH_CHECKS=0: {unchecked.status}: {first}]\n"
                          + "\n".join(outcome.detail.splitlines()[1:]))
    return outcome


def _snapshot(program: Program, module) -> Any:
    return _plain(eval(program.state, vars(module))) if program.state else None


def _strictly(compare, *args) -> str | None:
    """The difference ``compare`` finds, or None; an error while comparing
    (a leaked tracer, say) is a difference too."""
    try:
        compare(*args)
    except AssertionError as e:
        text = str(e).strip()
        if text.startswith("Not equal to tolerance"):     # numpy's message: the path on its second line
            lines = text.splitlines()
            worst = [line.strip() for line in lines if line.startswith("Max ")]
            text = f"{lines[1]}: values differ ({lines[0]}; {'; '.join(worst)})\n" + "\n".join(lines[2:])
        return text
    except Exception as e:  # noqa: BLE001
        return f"comparison failed: {e!r}"
    return None


def _run_program(program: Program, workdir: Path) -> Outcome:
    """Two copies of the program's module: the eager one runs ``f``, the
    other ``to_static(f)`` (one converted function for all calls, so the
    specialisation cache and its guards are exercised). Before call ``k`` the
    caller's statements ``program.pre[k]`` run in both copies; the arguments
    are made fresh in each. Compared per call: exception (type and message) or
    result, printed output, the arguments afterwards and the module state
    (``program.state``)."""
    from ast2graph import explain, to_static
    from helpers import assert_same   # the tests' comparison of values (and of arguments)

    names: list[str] = []
    try:
        name, eager = _world(program, workdir, "eager")
        names.append(name)
        name, conv = _world(program, workdir, "converted")
        names.append(name)
        fn = eager.f
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                static = to_static(conv.f, full_graph=False)
        except Exception as e:  # noqa: BLE001
            return Outcome(program.seed, "crash", f"to_static raised {e!r}\n{traceback.format_exc()}",
                           program=program)
        one_graph: bool | None = None
        codes: set[str] = set()
        for k in range(program.calls):
            for module in (eager, conv):
                for stmt in program.pre[k] if program.pre else []:
                    exec(stmt, vars(module))
            eager_args, conv_args = program.args(k, vars(eager)), program.args(k, vars(conv))
            expected, eager_exc, eager_out = _run(fn, eager_args)
            eager_state = _snapshot(program, eager)
            box: dict = {}

            def call(*a):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    box["explanation"] = e = explain(static)(*a)
                box["warnings"] = [str(w.message) for w in caught]
                return e.result

            got, conv_exc, conv_out = _run(call, conv_args)
            conv_state = _snapshot(program, conv)
            where = program.where(k)
            internal = [w for w in box.get("warnings", []) if "A2G015" in w]
            if internal:
                return Outcome(program.seed, "crash", f"{where}: internal error fallback: {internal[0]}",
                               program=program)
            if eager_exc is not None:
                if conv_exc is None:
                    return Outcome(program.seed, "mismatch",
                                   f"{where}: eager raised {eager_exc!r}, converted returned {got!r}",
                                   program=program)
                if type(conv_exc) is not type(eager_exc) or str(conv_exc) != str(eager_exc):
                    status = "crash" if _is_internal(conv_exc) else "mismatch"
                    tb = "".join(traceback.format_exception(conv_exc))
                    return Outcome(program.seed, status,
                                   f"{where}: eager raised {eager_exc!r}, converted raised {conv_exc!r}\n{tb}",
                                   program=program)
            else:
                if conv_exc is not None:
                    status = "crash" if _is_internal(conv_exc) else "mismatch"
                    tb = "".join(traceback.format_exception(conv_exc))
                    return Outcome(program.seed, status,
                                   f"{where}: eager returned {expected!r}, converted raised {conv_exc!r}\n{tb}",
                                   program=program)
                diff = _strictly(compare_values, expected, got)
                if diff is not None:
                    numeric = "Not equal to tolerance" in diff or "value differs" in diff
                    status = ("ill-conditioned" if numeric and (_ill_conditioned(program, workdir, k, expected)
                                                                or _rounding_amplified(program, workdir, k, expected))
                              else "mismatch")
                    return Outcome(program.seed, status,
                                   f"{where}: result differs: {diff}\neager:     {expected!r}\nconverted: {got!r}",
                                   program=program)
                e = box["explanation"]
                this_one = e.graph_count == 1 and not e.fallback_sites
                codes |= {s.code.code for s in e.fallback_sites}
                one_graph = this_one if one_graph is None else (one_graph and this_one)
            if not _same_text(eager_out, conv_out):
                status = "ill-conditioned" if _ill_conditioned(program, workdir, k, expected, eager_out) else "mismatch"
                return Outcome(program.seed, status,
                               f"{where}: printed output differs\n--- eager ---\n{eager_out}"
                               f"--- converted ---\n{conv_out}", program=program)
            diff = _strictly(assert_same, _plain(eager_args), _plain(conv_args), RTOL, ATOL)
            if diff is not None:
                return Outcome(program.seed, "mismatch", f"{where}: arguments afterwards differ: {diff}",
                               program=program)
            diff = _strictly(assert_same, eager_state, conv_state, RTOL, ATOL, True, "state")
            if diff is not None:
                return Outcome(program.seed, "mismatch",
                               f"{where}: state afterwards ({program.state}) differs: {diff}\n"
                               f"eager:     {eager_state!r}\nconverted: {conv_state!r}", program=program)
        return Outcome(program.seed, "ok", one_graph=one_graph, fallback_codes=codes, program=program)
    finally:
        for name in names:
            sys.modules.pop(name, None)
        if program.aux_name:
            sys.modules.pop(program.aux_name, None)


def _ill_conditioned(program: Program, workdir: Path, k: int, expected: Any, printed: str | None = None) -> bool:
    """Eager itself moves beyond the tolerance when its float32 inputs (and
    ``c``) move by one part in 10^6: a chaotic recurrence (``v = sin(k * v +
    v.sum())`` iterated), where XLA's fused float32 rounding and eager's
    op-by-op rounding legitimately diverge (plain ``jax.jit`` diverges the same
    way). Such a program proves nothing either way; it is counted apart, never
    as a pass. The calls up to ``k`` are replayed eagerly in a fresh copy of
    the module, with the same changes of state between them. The 64-bit
    arguments are not nudged: their values are exact by construction."""
    name, module = _world(program, workdir, "nudged")
    try:
        for j in range(k + 1):
            for stmt in program.pre[j] if program.pre else []:
                exec(stmt, vars(module))
            again, exc, out = _run(module.f, program.args(j, vars(module), nudge=1e-6))
    finally:
        sys.modules.pop(name, None)
    if exc is not None:
        return False
    if printed is not None:
        return not _same_text(printed, out)
    return _moves(expected, again)


def _rounding_amplified(program: Program, workdir: Path, k: int, expected: Any) -> bool:
    """Eager's own float32 result is not within the tolerance of the same
    program run in float64 (x64 on, the float32 inputs widened): the program
    amplifies rounding (a recurrence whose inputs saturate, ``tanh`` near 1,
    so that ``_ill_conditioned``'s input nudge cannot see it), and XLA's fused
    float32 rounding legitimately differs from eager's op-by-op rounding
    (``jax.jit`` of the same function differs from eager as much). Such a
    program proves nothing either way. The calls before ``k`` are replayed in
    a fresh copy of the module first."""
    if program.extensions & {"wide", "traced_args"}:
        return False   # 64-bit data and traced Python numbers: x64 on is another program there
    name, module = _world(program, workdir, "wide")
    try:
        with jax.enable_x64(True), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for j in range(k + 1):
                for stmt in program.pre[j] if program.pre else []:
                    exec(stmt, vars(module))
                args = tuple(jnp.asarray(a, jnp.float64) if isinstance(a, jax.Array) and a.dtype == jnp.float32
                             else a for a in program.args(j, vars(module)))
                truth, exc, _ = _run(module.f, args)
    except Exception:  # noqa: BLE001 - no verdict
        return False
    finally:
        sys.modules.pop(name, None)
    return exc is None and _moves(truth, expected)


def _moves(expected: Any, nudged: Any) -> bool:
    """The nudged eager result is not the same up to float32 tolerance, for
    every float (a 64-bit one moves by the nudge itself, 1e-6, which is no
    sign of chaos)."""
    le, te = jax.tree_util.tree_flatten(expected)
    ln, tn = jax.tree_util.tree_flatten(nudged)
    if te != tn:
        return True
    for a, b in zip(le, ln):
        if isinstance(a, (str, bytes, type(None))) or isinstance(b, (str, bytes, type(None))):
            if a != b:
                return True
            continue
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return True
        if not np.allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=RTOL, atol=ATOL, equal_nan=True):
            return True
    return False


def run_seed(seed: int, workdir: Path, extensions=None) -> Outcome:
    program = generate(seed, extensions)
    try:
        return run_program(program, workdir)
    except Exception as e:  # noqa: BLE001 - the harness itself must keep going
        return Outcome(seed, "crash", f"harness error {e!r}\n{traceback.format_exc()}", program=program)


if __name__ == "__main__":  # print one program: python tests/fuzz/generator.py SEED [EXTENSIONS|all]
    ext = None
    if len(sys.argv) > 2:
        ext = "all" if sys.argv[2] == "all" else set(sys.argv[2].split(","))
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0, ext).reproducer())
