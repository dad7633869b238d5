"""Generator extensions: the hazards of issue 14, mixed into the classic programs.

Requires: a ``Generator`` (tests/fuzz/generator.py) that this class is mixed
into: ``self.r`` (the classic random stream), ``self.p``/``pick``/``uid``/
``emit``, the expression makers (``vexpr``, ``sexpr``, ``cond``,
``traced_cond``, ``static_cond``, ``bounded_v``) and ``_Ctx`` scopes.

Produces: module-level state and helper definitions (``ext_prelude``), an
auxiliary module (``aux_source``), statements mixed into the body of ``f`` and
of the helpers (``ext_stmt``), the extra parameters of ``f`` and their
argument expressions per call (``ext_params``, ``ext_args``), the statements
the caller runs between calls (``ext_mutations``) and the expression that
snapshots the state after every call (``ext_state_expr``).

Invariants: every extension decision is drawn from ``self.x``, a random stream
of its own, so a program with no extension is exactly the classic program of
its seed; every list a statement indexes keeps at least one element through
the mutations (``self.lens`` models the lengths); loops over state have at
most 4 trips and a one-statement body; Python numbers are dyadic (exact in
float32 and float64) except the 64-bit data, which is built to need 64 bits.

The extensions (``EXTENSIONS``):

* ``state``: module globals (a number, an int, a list, a nested dict), the
  attributes of a second module ``hm`` (numbers, an array, a function
  reassigned), a closure list (``f`` made by a factory ``make_f(taps)``), the
  attributes of a config object and of a small callable class instance; the
  caller changes them between calls (append, pop, insert, reverse, setitem,
  ``+=`` on an element, attribute reassignment, an equal fresh object);
* ``cfg_arg``: a fresh config object on every call (a ``@dataclass`` or a plain
  class, mostly equal to the last one) and a fresh config dict;
* ``wide``: NumPy int64 arrays beyond int32, float64 arrays and a NumPy float64
  scalar whose values need 64 bits, Python float and int arguments that take a
  new value on every one of 6-7 calls (traced from the fifth);
* ``introspect``: ``isinstance(v, np.ndarray)``, ``type(v) is np.ndarray``,
  ``type(v).__name__``, ``str(a.dtype)``, ``callable(fn)``,
  ``type(local_fn).__name__``, in branches and returned;
* ``del``: ``del`` of a local in straight code, in one or both branches of a
  traced or static ``if`` and in a loop, then a read (eager raises
  ``UnboundLocalError``) or a new binding;
* ``dict_order``: the result dict ``out`` built in an order that depends on
  static and traced conditions (``pop``, ``setdefault``, ``update``, ``del`` and
  re-insert, reversed); the other extensions name their keys of ``out`` so
  that they sort in the order the text inserts them (``k007_w``), so that only
  these programs insert keys out of sorted order;
* ``effects``: a closure counter (``n[0] += 1``), a ``nonlocal`` counter, a
  list a helper appends to, a helper that prints, called from ``f`` and from
  the helpers (in loops and traced branches too);
* ``traced_args``: ``n`` and ``c`` take a new value on each of 6-7 calls, so
  they become traced from the fifth call.
"""

from __future__ import annotations

EXTENSIONS = ("state", "cfg_arg", "wide", "introspect", "del", "dict_order", "effects", "traced_args")
STATE_ITEMS = ("gnum", "glist", "gdict", "aux", "closure", "obj", "inst")

EXT_SHARE = 0.5        # share of programs with at least one extension
EXT_STMT_RATE = 0.3    # share of statements that are extension statements, in such programs

DY = ["0.5", "0.25", "1.5", "0.75", "1.25", "-0.5", "2.0", "0.125"]
C_TRACED = [0.5, -1.25, 2.0, 0.75, -0.25, 1.5, -0.5, 0.125]
ACTS = ["tanh", "sin", "none"]
KEYS = ["a", "b", "c", "d", "e"]

AUX_SOURCE = '''"""Auxiliary module of a fuzz program: its attributes change between calls."""

import jax.numpy as jnp

SCALE = {scale}
K = {k}
W = jnp.full(4, {w}, dtype=jnp.float32)


def act_tanh(v):
    return jnp.tanh(v)


def act_sin(v):
    return jnp.sin(v) * SCALE


def act_clip(v):
    return jnp.clip(v, -0.5, 0.5)


act = act_{act}
'''


class ExtensionsMixin:
    """Extension statements and call sequences (see the module docstring)."""

    # ------------------------------------------------------------ set-up
    def ext_setup(self, extensions) -> None:
        import random
        self.x = random.Random(f"a2g-fuzz-ext-{self.seed}")
        if extensions is None:
            chosen: set[str] = set()
            if self.x.random() < EXT_SHARE:
                while not chosen:
                    chosen = {e for e in EXTENSIONS if self.x.random() < 0.35}
        elif extensions == "all":
            chosen = set(EXTENSIONS)
        else:
            unknown = set(extensions) - set(EXTENSIONS)
            if unknown:
                raise ValueError(f"unknown extensions {sorted(unknown)}; known: {EXTENSIONS}")
            chosen = set(extensions)
        self.ext = chosen
        self.items: set[str] = set()
        if "state" in chosen:
            self.items = set(self.x.sample(STATE_ITEMS, self.x.randint(2, 4)))
        self.lens = {"G_L": 2, 'G_D["taps"]': 2, "TAPS": 2, "CFG.scales": 2, "SC.scales": 1}
        self.cfg_class = self.x.choice(["DCfg", "PCfg"])
        self.cfg_dict = self.x.random() < 0.5
        self.log_kind = self.x.choice(["len", "sum", "tag"])
        self.features |= {"ext:" + e for e in chosen} | {"state:" + i for i in self.items}
        # how many calls the program makes (0: the classic 2-3)
        self.n_calls = 0
        if chosen & {"state", "cfg_arg", "effects"}:
            self.n_calls = self.x.randint(4, 6)
        if chosen & {"wide", "traced_args"}:
            self.n_calls = max(self.n_calls, self.x.randint(6, 7))
        self.ext_plan_args(self.n_calls)

    # ------------------------------------------------------------ module text
    def ext_imports(self) -> list[str]:
        lines = []
        if self.ext & {"wide", "introspect"}:
            lines.append("import numpy as np")
        if "cfg_arg" in self.ext and self.cfg_class == "DCfg":
            lines.append("from dataclasses import dataclass")
        if "aux" in self.items:
            lines.append(f"import {self.aux_name} as hm")
        return lines

    @property
    def aux_name(self) -> str:
        return f"a2g_fuzz_aux_{self.seed}"

    def aux_source(self) -> str:
        if "aux" not in self.items:
            return ""
        return AUX_SOURCE.format(scale=self.x.choice(DY), k=self.x.randint(0, 2), w=self.x.choice(DY),
                                 act=self.x.choice(["tanh", "sin", "clip"]))

    def ext_prelude(self) -> list[str]:
        """Module-level state and helper definitions (before the helpers and ``f``)."""
        X, L = self.x, []
        if "gnum" in self.items:
            L += [f"G_S = {X.choice(DY)}", f"G_K = {X.randint(0, 3)}"]
        if "glist" in self.items:
            L += [f"G_L = [{X.choice(DY)}, {X.choice(DY)}]"]
        if "gdict" in self.items:
            L += ['G_D = {"scale": %s, "act": "%s", "taps": [%s, %s], "inner": {"k": %d, "w": [%s, %s]}}'
                  % (X.choice(DY), X.choice(ACTS), X.choice(DY), X.choice(DY), X.randint(0, 3), X.choice(DY),
                     X.choice(DY))]
        if "closure" in self.items:
            L += [f"TAPS = [{X.choice(DY)}, {X.choice(DY)}]"]
        if L:
            L += ["", ""]
        if "obj" in self.items:
            L += ["class Cfg:",
                  "    def __init__(self, scale=0.5, name=\"tanh\", flag=True, scales=None, depth=2):",
                  "        self.scale = scale",
                  "        self.name = name",
                  "        self.flag = flag",
                  "        self.scales = [0.5, 1.0] if scales is None else scales",
                  "        self.depth = depth",
                  "",
                  "    def clone(self):",
                  "        return Cfg(self.scale, self.name, self.flag, list(self.scales), self.depth)",
                  "", "",
                  f'CFG = Cfg({X.choice(DY)}, "{X.choice(ACTS)}", {X.choice([True, False])}, '
                  f"[{X.choice(DY)}, {X.choice(DY)}], {X.randint(0, 3)})",
                  "", ""]
        if "inst" in self.items:
            L += ["class Scaler:",
                  "    def __init__(self, k, scales):",
                  "        self.k = k",
                  "        self.scales = scales",
                  "",
                  "    def __call__(self, v):",
                  "        for s in self.scales:",
                  "            v = jnp.tanh(v * s + self.k)",
                  "        return v",
                  "",
                  "    def shift(self):",
                  "        return self.k * 0.5",
                  "", "",
                  f"SC = Scaler({X.choice(DY)}, [{X.choice(DY)}])",
                  "", ""]
        if "cfg_arg" in self.ext:
            if self.cfg_class == "DCfg":
                L += ["@dataclass",
                      "class DCfg:",
                      "    scale: float = 0.5",
                      "    flag: bool = True",
                      "    depth: int = 2",
                      "    name: str = \"tanh\"",
                      "", ""]
            else:
                L += ["class PCfg:",
                      "    def __init__(self, scale=0.5, flag=True, depth=2, name=\"tanh\"):",
                      "        self.scale = scale",
                      "        self.flag = flag",
                      "        self.depth = depth",
                      "        self.name = name",
                      "", ""]
        if "effects" in self.ext:
            log = {"len": "LOG.append(len(LOG))", "sum": "LOG.append(v.sum())", "tag": 'LOG.append("t")'}
            L += ["def make_counter():",
                  "    n = [0]",
                  "",
                  "    def tick(v):",
                  "        n[0] += 1",
                  "        return v * 0.5 + 0.25",
                  "    return tick, n",
                  "", "",
                  "tick, TICKS = make_counter()",
                  "", "",
                  "def make_meter():",
                  "    count = 0",
                  "",
                  "    def meter(v):",
                  "        nonlocal count",
                  "        count += 1",
                  "        return v",
                  "",
                  "    def read():",
                  "        return count",
                  "    return meter, read",
                  "", "",
                  "meter, METER = make_meter()",
                  "LOG = []",
                  "", "",
                  "def log_it(v):",
                  f"    {log[self.log_kind]}",
                  "    return v",
                  "", "",
                  "def say(v):",
                  '    print(f"say {len(LOG)} {v.sum():.3f}")',
                  "    return v",
                  "", ""]
        return L

    # ------------------------------------------------------------ signature and calls
    def ext_params(self) -> list[str]:
        ps = []
        if "cfg_arg" in self.ext:
            ps += ["cfg"] + (["cd"] if self.cfg_dict else [])
        if "wide" in self.ext:
            ps += ["q", "d", "ds", "pf", "pi"]
        return ps

    def ext_plan_args(self, calls: int) -> None:
        """Draw the argument values of every call (before the body: branch
        thresholds on the 64-bit arguments lie between their values)."""
        X = self.x
        self.wide_j = X.sample(range(1, 9), calls) if calls else []
        base = X.choice([300000000.0, 16777216.0, 1.0])
        step = 2.0 ** -30 if base == 1.0 else 0.25
        self.pf_values = [base + step * j for j in self.wide_j]
        ibase = X.choice([2 ** 31, -(2 ** 33), 0])
        self.pi_values = [ibase + 3 * j for j in self.wide_j]
        cfg = [X.choice(DY), X.choice([True, False]), X.randint(0, 3), X.choice(ACTS)]
        cd = [X.choice(DY), X.choice(ACTS)]
        self.cfg_values, self.cd_values = [], []
        for _ in range(max(calls, 1)):
            if X.random() < 0.35:
                k = X.randrange(4)
                cfg[k] = [X.choice(DY), not cfg[1], X.randint(0, 3), X.choice(ACTS)][k]
            if X.random() < 0.3:
                cd = [X.choice(DY), X.choice(ACTS)]
            self.cfg_values.append(list(cfg))
            self.cd_values.append(list(cd))

    def ext_args(self, k: int) -> list[str]:
        """The extra arguments of call ``k``, as expressions evaluated in the program's module."""
        out = []
        if "cfg_arg" in self.ext:
            scale, flag, depth, name = self.cfg_values[k]
            out.append(f'{self.cfg_class}({scale}, {flag}, {depth}, "{name}")')
            if self.cfg_dict:
                out.append('{"scale": %s, "act": "%s"}' % tuple(self.cd_values[k]))
        if "wide" in self.ext:
            j = self.wide_j[k]
            q = [3_000_000_007 + j, -(2 ** 33) + 5 * j, 7 + j, 2 ** 40 + j]
            d = [300000000.5 + j, 0.1 + 2.0 ** -30 * j, -2.5 - 0.125 * j, 1e-3 * (j + 1)]
            out += [f"np.array({q!r}, dtype=np.int64)", f"np.array({d!r}, dtype=np.float64)",
                    f"np.float64({300000001.5 + j!r})", repr(self.pf_values[k]), repr(self.pi_values[k])]
        return out

    def ext_mutations(self) -> list[str]:
        """What the caller changes before a call (after the first)."""
        kinds = sorted(self.items) + (["effects"] if "effects" in self.ext else [])
        if not kinds or self.x.random() < 0.2:
            return []
        return [getattr(self, "_mut_" + self.x.choice(kinds))() for _ in range(self.x.choice([1, 1, 2]))]

    def ext_state_expr(self) -> str:
        """An expression of the state compared after every call."""
        parts = []
        if "gnum" in self.items:
            parts += ["G_S", "G_K"]
        if "glist" in self.items:
            parts += ["G_L"]
        if "gdict" in self.items:
            parts += ["G_D"]
        if "aux" in self.items:
            parts += ["hm.SCALE", "hm.K", "hm.W", "hm.act.__name__"]
        if "closure" in self.items:
            parts += ["TAPS"]
        if "obj" in self.items:
            parts += ["CFG"]
        if "inst" in self.items:
            parts += ["SC"]
        if "effects" in self.ext:
            parts += ["TICKS[0]", "METER()", "LOG"]
        return "(" + ", ".join(parts) + ",)" if parts else ""

    # ------------------------------------------------------------ mutations
    def _list_mut(self, name: str) -> str:
        X, n = self.x, self.lens[name]
        ops = ["setitem", "iadd", "reverse"]
        if n < 4:
            ops += ["append", "append", "insert"]
        if n > 1:
            ops += ["pop", "pop"]
        op = X.choice(ops)
        if op == "append":
            self.lens[name] += 1
            return f"{name}.append({X.choice(DY)})"
        if op == "insert":
            self.lens[name] += 1
            return f"{name}.insert(0, {X.choice(DY)})"
        if op == "pop":
            self.lens[name] -= 1
            return f"{name}.pop({X.choice(['', '0'])})"
        if op == "setitem":
            return f"{name}[{X.randrange(n)}] = {X.choice(DY)}"
        if op == "iadd":
            return f"{name}[{X.randrange(n)}] += 0.5"
        return f"{name}.reverse()"

    def _mut_gnum(self) -> str:
        return self.x.choice([f"G_S = {self.x.choice(DY)}", "G_S += 0.25", f"G_K = {self.x.randint(0, 3)}"])

    def _mut_glist(self) -> str:
        return "G_L = list(G_L)" if self.x.random() < 0.15 else self._list_mut("G_L")

    def _mut_gdict(self) -> str:
        X = self.x
        k = X.randrange(9)
        if k == 2:
            return self._list_mut('G_D["taps"]')
        return [f'G_D["scale"] = {X.choice(DY)}', f'G_D["act"] = "{X.choice(ACTS)}"', None,
                f'G_D["inner"]["k"] = {X.randint(0, 3)}', 'G_D["inner"]["w"][0] += 0.5', 'G_D["extra"] = 1',
                'G_D.pop("extra", None)', "G_D = dict(G_D)", 'G_D["inner"] = dict(G_D["inner"])'][k]

    def _mut_aux(self) -> str:
        X = self.x
        return X.choice([f"hm.SCALE = {X.choice(DY)}", f"hm.K = {X.randint(0, 2)}",
                         f"hm.W = jnp.full(4, {X.choice(DY)}, dtype=jnp.float32)", "hm.W = hm.W * 0.5",
                         f"hm.act = hm.act_{X.choice(['tanh', 'sin', 'clip'])}"])

    def _mut_closure(self) -> str:
        return self._list_mut("TAPS")

    def _mut_obj(self) -> str:
        X = self.x
        k = X.randrange(7)
        if k == 3:
            return self._list_mut("CFG.scales")
        return [f"CFG.scale = {X.choice(DY)}", "CFG.flag = not CFG.flag", f'CFG.name = "{X.choice(ACTS)}"', None,
                "CFG.scales = list(CFG.scales)", "CFG = CFG.clone()", f"CFG.depth = {X.randint(0, 3)}"][k]

    def _mut_inst(self) -> str:
        X = self.x
        k = X.randrange(4)
        if k == 1:
            return self._list_mut("SC.scales")
        return [f"SC.k = {X.choice(DY)}", None, "SC = Scaler(SC.k, list(SC.scales))", "SC.scales = list(SC.scales)"][k]

    def _mut_effects(self) -> str:
        return self.x.choice(["TICKS[0] = 0", "LOG.clear()", 'LOG.append("caller")'])

    # ------------------------------------------------------------ statements
    def ext_stmt(self, ctx, ind: int) -> bool:
        """Maybe emit one extension statement instead of a classic one."""
        if not self.ext or self.x.random() >= EXT_STMT_RATE:
            return False
        kinds = self._stmt_kinds(ctx)
        if not kinds:
            return False
        getattr(self, "_x_" + self.x.choice(kinds))(ctx, ind)
        return True

    def _stmt_kinds(self, ctx) -> list[str]:
        if ctx.helper:
            return ["effects"] if "effects" in self.ext else []
        kinds = [k for k in ("wide", "introspect", "del", "dict_order", "effects") if k in self.ext]
        kinds += ["cfg_arg"] * ("cfg_arg" in self.ext)
        kinds += ["state"] * (2 * bool(self.items))
        if ctx.depth >= self.MAX_DEPTH:   # these open a block
            kinds = [k for k in kinds if k not in ("del",)]
        return kinds

    def ext_prologue(self, ind: int) -> None:
        if not self.ext:
            return
        self.emit(ind, "out = {}")
        if "introspect" in self.ext:
            self.emit(ind, "na = np.linspace(-1.0, 1.0, 4)")
            self.emit(ind, "nb = np.arange(4)")

    def ext_epilogue(self, ctx, ind: int) -> None:
        """Every enabled extension at least once, at the top level, before the final return."""
        for item in sorted(self.items):
            self._x_state(ctx, ind, item)
        for kind in ("cfg_arg", "wide", "introspect", "del", "dict_order", "effects"):
            if kind in self.ext:
                getattr(self, "_x_" + kind)(ctx, ind)

    def _fits(self, ctx, trips: int = 4) -> bool:
        return ctx.copies * trips <= 2 * self.COPY_BUDGET and ctx.iters * trips <= 2 * self.ITER_BUDGET

    def _names(self, ctx):
        sc = ctx.scope
        return self.pick(sc.assign_V), self.pick(sc.V), self.pick(sc.assign_S), self.pick(sc.assign_I)

    def _branch(self, ind: int, cond: str, then: list[str], other: list[str] | None = None) -> None:
        self.emit(ind, f"if {cond}:")
        for line in then:
            self.emit(ind + 1, line)
        if other:
            self.emit(ind, "else:")
            for line in other:
                self.emit(ind + 1, line)

    def _loop(self, ctx, ind: int, head: str, body: str, fallback: str) -> None:
        if self._fits(ctx):
            self.emit(ind, head)
            self.emit(ind + 1, body)
        else:
            self.emit(ind, fallback)

    # state ---------------------------------------------------------------
    def _x_state(self, ctx, ind: int, item: str | None = None) -> None:
        item = item or self.x.choice(sorted(self.items))
        V, Vr, S, I = self._names(ctx)
        u = self.uid()
        X = self.x
        k = X.randrange(5)
        if item == "gnum":
            [lambda: self.emit(ind, f"{V} = jnp.tanh({V} * G_S + {Vr})"),
             lambda: self.emit(ind, f"{S} = {S} * 0.5 + G_S"),
             lambda: self._branch(ind, "G_S > 0.6", [f"{V} = jnp.sin({V})"], [f"{V} = jnp.tanh({V} - G_S)"]),
             lambda: self._loop(ctx, ind, f"for g{u} in range(G_K):", f"{V} = jnp.tanh({V} + g{u} * 0.25)",
                                f"{I} += G_K"),
             lambda: self.emit(ind, f"{I} += G_K")][k]()
        elif item == "glist":
            [lambda: self._loop(ctx, ind, f"for t{u} in G_L:", f"{V} = jnp.tanh({V} * t{u} + {Vr})",
                                f"{V} = jnp.tanh({V} * G_L[0])"),
             lambda: self.emit(ind, f"{S} = {S} * 0.5 + sum(G_L) * 0.125"),
             lambda: self.emit(ind, f"{I} += len(G_L)"),
             lambda: self._branch(ind, "len(G_L) > 2", [f"{V} = jnp.sin({V} + G_L[1])"]),
             lambda: self.emit(ind, f"{V} = jnp.tanh({V} * G_L[-1])")][k]()
        elif item == "gdict":
            [lambda: self._act(ind, 'G_D["act"]', V),
             lambda: self._loop(ctx, ind, f'for t{u} in G_D["taps"]:', f"{V} = jnp.tanh({V} * t{u})",
                                f'{V} = jnp.tanh({V} * G_D["taps"][0])'),
             lambda: self._loop(ctx, ind, f'for g{u} in range(G_D["inner"]["k"]):', f"{V} = jnp.sin({V} + 0.5)",
                                f'{I} += G_D["inner"]["k"]'),
             lambda: self.emit(ind, f'{S} = {S} * 0.5 + G_D["inner"]["w"][0]'),
             lambda: self._branch(ind, '"extra" in G_D', [f"{I} += 1", f'{V} = jnp.tanh({V} * G_D["scale"])'])][k]()
        elif item == "aux":
            [lambda: self.emit(ind, f"{V} = jnp.clip(hm.act({V} * hm.SCALE) + hm.W, -3.0, 3.0)"),
             lambda: self._loop(ctx, ind, f"for g{u} in range(hm.K):", f"{V} = hm.act({V} + {Vr})",
                                f"{V} = hm.act({V})"),
             lambda: self.emit(ind, f"{S} = {S} * 0.5 + hm.SCALE"),
             lambda: self.emit(ind, f"{V} = jnp.tanh({V} + hm.W * {S})"),
             lambda: self.emit(ind, f"{V} = hm.act({Vr})")][k]()
        elif item == "closure":
            [lambda: self._loop(ctx, ind, f"for t{u} in taps:", f"{V} = jnp.tanh({V} * t{u})",
                                f"{V} = jnp.tanh({V} * taps[0])"),
             lambda: self.emit(ind, f"{I} += len(taps)"),
             lambda: self.emit(ind, f"{S} = {S} * 0.5 + taps[0]"),
             lambda: self.emit(ind, f"{V} = jnp.tanh({V} + taps[-1] * {Vr})"),
             lambda: self._branch(ind, "len(taps) >= 3", [f"{V} = jnp.sin({V} * taps[2])"])][k]()
        elif item == "obj":
            [lambda: self._branch(ind, "CFG.flag", [f"{V} = jnp.tanh({V} * CFG.scale)"], [f"{V} = jnp.sin({V})"]),
             lambda: self._act(ind, "CFG.name", V),
             lambda: self._loop(ctx, ind, f"for t{u} in CFG.scales:", f"{V} = jnp.tanh({V} * t{u} + {Vr})",
                                f"{V} = jnp.tanh({V} * CFG.scales[0])"),
             lambda: self._loop(ctx, ind, f"for g{u} in range(CFG.depth):", f"{V} = jnp.tanh({V} + 0.25)",
                                f"{I} += CFG.depth"),
             lambda: self.emit(ind, f"{S} = {S} * 0.5 + CFG.scale")][k]()
        else:  # inst
            [lambda: self.emit(ind, f"{V} = SC({V})"),
             lambda: self.emit(ind, f"{S} = {S} * 0.5 + SC.shift()"),
             lambda: self.emit(ind, f"{V} = SC({Vr} * 0.5)"),
             lambda: self._branch(ind, "SC.k > 0.6", [f"{V} = SC({V})"]),
             lambda: self.emit(ind, f"{I} += len(SC.scales)")][k]()

    def _act(self, ind: int, what: str, V: str) -> None:
        self.emit(ind, f'if {what} == "tanh":')
        self.emit(ind + 1, f"{V} = jnp.tanh({V})")
        self.emit(ind, f'elif {what} == "sin":')
        self.emit(ind + 1, f"{V} = jnp.sin({V})")
        self.emit(ind, "else:")
        self.emit(ind + 1, f"{V} = jnp.clip({V}, -1.0, 1.0)")

    def _x_cfg_arg(self, ctx, ind: int) -> None:
        V, Vr, S, I = self._names(ctx)
        u = self.uid()
        forms = [lambda: self._branch(ind, "cfg.flag", [f"{V} = jnp.tanh({V} * cfg.scale)"], [f"{V} = jnp.sin({V})"]),
                 lambda: self.emit(ind, f"{V} = jnp.tanh({V} * cfg.scale + {Vr})"),
                 lambda: self._loop(ctx, ind, f"for g{u} in range(cfg.depth):", f"{V} = jnp.tanh({V} + 0.25)",
                                    f"{I} += cfg.depth"),
                 lambda: self._act(ind, "cfg.name", V),
                 lambda: self.emit(ind, f"{S} = {S} * 0.5 + cfg.scale")]
        if self.cfg_dict:
            forms += [lambda: self.emit(ind, f'{V} = jnp.tanh({V} * cd["scale"])'),
                      lambda: self._act(ind, 'cd["act"]', V)]
        self.x.choice(forms)()

    # 64-bit data --------------------------------------------------------
    def _x_wide(self, ctx, ind: int) -> None:
        V, Vr, S, I = self._names(ctx)
        X = self.x
        key = f'out["k{self.uid():03d}_w"]'   # keys sort in the order the text inserts them
        exprs = ["q * 3 + pi", "q.sum() + pi", "(q // 7) % 5 + q.max()", "d * 0.5 + ds", "d.max() - pf",
                 "pf * 2.0 + 1.0", "pi * 3 + 7", "np.tanh(d - 3e8)", "float(d[0]) + pf", "int(q[0]) + pi",
                 "d[0] - ds", "q[1] + pi * 2", "(q % 1000).astype(np.float64) * 0.5", "np.int64(pi) * 3",
                 "pf - 3e8", "d.mean()", "q[3] - q[0]"]
        pf = sorted(self.pf_values)
        k = X.randrange(8)
        if k < 4:
            self.emit(ind, f"{key} = {X.choice(exprs)}")
        elif k == 4:
            i = X.randrange(1, len(pf))
            thr = (pf[i - 1] + pf[i]) / 2
            self._branch(ind, f"pf > {thr!r}", [f"{key} = d.sum()"], [f"{key} = d.min()"])
        elif k == 5:
            j = sorted(self.wide_j)[X.randrange(1, len(self.wide_j))]
            self._branch(ind, f"q[0] > {3_000_000_007 + j - 1}", [f"{key} = q[0] - 1"], [f"{key} = q[3]"])
        elif k == 6:
            self.emit(ind, X.choice([f"{V} = jnp.tanh({V} + (d[0] - 3e8) * 0.25)",
                                     f"{V} = jnp.tanh({V} + (ds - 300000000.0))",
                                     f"{V} = jnp.tanh({V} * (pf - {pf[0]!r}))"]))
        else:
            self.features.add("print")
            self.emit(ind, f'print("w", pf, pi, q.sum(), ds, d[0])')

    # introspection ------------------------------------------------------
    def _x_introspect(self, ctx, ind: int) -> None:
        V, Vr, S, I = self._names(ctx)
        X = self.x
        u = self.uid()
        key = f'out["k{u:03d}_t"]'
        arrays = ["na", "nb", "np.tanh(na)", "na * 2.0", "nb + 1", "x", Vr, "na.sum()", "nb.max()"]
        scalars = ["na.sum()", "nb.max()", "na[1]", "nb[0]", S]
        if "wide" in self.ext:
            arrays += ["q", "d", "ds", "d * 0.5"]
            scalars += ["ds", "pf", "pi", "d[0]", "q[0]", "d.sum()"]
        k = X.randrange(9)
        if k == 0:
            self.emit(ind, f"{key} = isinstance({X.choice(arrays)}, np.ndarray)")
        elif k == 1:
            self.emit(ind, f"{key} = type({X.choice(arrays)}) is np.ndarray")
        elif k == 2:
            self.emit(ind, f"{key} = type({X.choice(scalars + ['na', 'nb'])}).__name__")
        elif k == 3:
            dtypes = ["str(na.dtype)", "str(nb.dtype)", "str((na * 2).dtype)"]
            dtypes += ["str(d.dtype)", "str(q.dtype)"] if "wide" in self.ext else []
            self.emit(ind, f"{key} = {X.choice(dtypes)}")
        elif k == 4:
            a = X.choice(arrays)
            self._branch(ind, f"isinstance({a}, np.ndarray)", [f"{V} = jnp.tanh({V} + 0.5)"],
                         [f"{V} = jnp.tanh({V} - 0.5)"])
        elif k == 5:
            self.emit(ind, f"fn{u} = lambda t: t * 0.5")
            self._branch(ind, f"callable(fn{u})", [f"{V} = fn{u}({V})"])
            self.emit(ind, f"{key} = type(fn{u}).__name__")
        elif k == 6:
            self.emit(ind, f"def loc{u}(t):")
            self.emit(ind + 1, "return jnp.tanh(t)")
            self._branch(ind, f'type(loc{u}).__name__ == "function" and callable(loc{u})', [f"{V} = loc{u}({V})"])
        elif k == 7:
            self.emit(ind, f"{key} = {X.choice(['na * 3.0 + 1.0 / 3.0', 'nb * 2 ** 33', 'np.cumsum(na)'])}")
        else:
            kind = X.choice(["float", "int", "np.floating", "np.integer"])
            self.emit(ind, f"{key} = isinstance({X.choice(scalars)}, {kind})")

    # del ----------------------------------------------------------------
    def _x_del(self, ctx, ind: int) -> None:
        V, Vr, S, I = self._names(ctx)
        X = self.x
        t = f"t{self.uid()}"
        self.features.add("del")
        sc = ctx.scope
        self.emit(ind, f"{t} = {X.choice([self.bounded_v(sc), '0.5', 'n + 1'])}")
        cond = self.cond(sc) if X.random() < 0.5 else (self.traced_cond(sc, 2) if X.random() < 0.6
                                                       else self.static_cond(sc))
        k = X.randrange(4)
        if k == 0:
            self.emit(ind, f"{V} = jnp.tanh({V} + {t})")
            self.emit(ind, f"del {t}")
            self.features.add("del:straight")
        elif k == 1:
            self._branch(ind, cond, [f"{V} = jnp.tanh({V} * {t})", f"del {t}"], [f"del {t}"])
            self.features.add("del:both_branches")
        elif k == 2:
            other = [f"{V} = jnp.tanh({V} + {t})"] if X.random() < 0.5 else None
            self._branch(ind, cond, [f"del {t}"], other)
            self.features.add("del:one_branch")
        else:
            j = f"j{self.uid()}"
            self.emit(ind, f"for {j} in range(2):")
            self.emit(ind + 1, f"{t} = jnp.tanh({Vr} + {j})")
            self.emit(ind + 1, f"{V} = jnp.tanh({V} + {t})")
            self.emit(ind + 1, f"del {t}")
            self.features.add("del:loop")
        if X.random() < 0.35:      # a read: eager raises UnboundLocalError on the paths that deleted it
            self.features.add("del:read")
            self.emit(ind, f"{V} = jnp.tanh({V} + {t})")
        else:
            self.emit(ind, f"{t} = {X.choice(['0.25', self.bounded_v(sc)])}")
            self.emit(ind, f"{V} = jnp.tanh({V} - {t})")

    # dict order ---------------------------------------------------------
    def _x_dict_order(self, ctx, ind: int) -> None:
        V, Vr, S, I = self._names(ctx)
        X = self.x
        sc = ctx.scope
        a, b = X.sample(KEYS, 2)
        val = lambda: X.choice([self.pick(sc.V), self.bounded_v(sc), '"s"', str(X.randint(0, 9))])  # noqa: E731
        k = X.randrange(8)
        if k == 0:
            self.emit(ind, f'out["{a}"] = {val()}')
        elif k == 1:
            va, vb = val(), val()
            cond = self.cond(sc)
            self._branch(ind, cond, [f'out["{a}"] = {va}', f'out["{b}"] = {vb}'],
                         [f'out["{b}"] = {vb}', f'out["{a}"] = {va}'])
            self.features.add("dict_order:branch")
        elif k == 2:
            self.emit(ind, f'out.pop("{a}", None)')
        elif k == 3:
            self.emit(ind, f'out.setdefault("{a}", {val()})')
        elif k == 4:
            self.emit(ind, f'out.update({{"{a}": {val()}, "{b}": {val()}}})')
        elif k == 5:
            self._branch(ind, f'"{a}" in out', [f'del out["{a}"]'])
            self.emit(ind, f'out["{a}"] = {val()}')
        elif k == 6:
            self.emit(ind, "out = dict(reversed(list(out.items())))")
        else:
            cond = self.cond(sc)
            self._branch(ind, cond, [f'out["{a}"] = {X.randint(0, 4)}'], [f'out["{a}"] = {X.randint(5, 9)}'])
            self.features.add("dict_order:python_value_in_branch")

    # effects ------------------------------------------------------------
    def _x_effects(self, ctx, ind: int) -> None:
        V, Vr, S, I = self._names(ctx)
        X = self.x
        fn = X.choice(["tick", "tick", "meter", "log_it", "say"])
        self.features.add("effect:" + fn)
        if not ctx.helper and self.ext and X.random() < 0.2:
            self.emit(ind, f'out["k{self.uid():03d}_n"] = {X.choice(["TICKS[0]", "METER()", "len(LOG)"])}')
        else:
            self.emit(ind, f"{V} = {fn}({V})")
