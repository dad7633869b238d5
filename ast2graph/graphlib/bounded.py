"""Loops of at most ``max_iters`` iterations: a ``lax.scan`` of guarded steps.

Requires: jax; the region functions the emitter generates (``cond(*c)``
returns ``(pred,)``, a while ``body(*c)`` and a for ``body(i, *c)`` return
the carried values).
Produces: ``bounded_while`` and ``bounded_fori``, what a ``WhileOp``/``ForOp``
with ``max_iters`` lowers to; ``under``, a branch function whose bound checks
know their branch predicate; ``LoopBoundError`` raised from inside the graph
(``jax.debug.callback``) when the bound was too small; ``forward_only`` for the
results of a loop without ``max_iters`` (``lax.while_loop``): ``jax.grad``
through it raises an error that names the loop and ``max_iters``.
Invariants: a loop that ends within N iterations gives exactly the carried
values of the eager loop, its body run and its condition evaluated as often as
eager runs them (the condition once more than the body); a loop that would run
longer raises instead of returning a truncated result, under ``jax.jit``,
``jax.grad`` and ``jax.vmap`` (if any element still runs). The error is
recorded in ``HostErrors`` so that a plain call re-raises it with its type
(JAX itself sees ``HostRaised``).

Under ``vmap`` a batched ``lax.cond`` runs both branches for every element,
so a check inside a branch or a bounded loop's step is masked by whether the
loop really runs for that element: the conjunction of the enclosing branch
predicates and running flags, kept on a stack while the generated function is
traced (``under``)::

    c, running = init, cond(*init)
    repeat N times:  if running: c = body(*c); running = cond(*c)
    if running (and every enclosing predicate holds): raise LoopBoundError
"""

from __future__ import annotations

import contextlib
import functools
import linecache
import logging
import threading
from typing import Any, Callable, Iterator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
try:   # what jax.extend.core exports: importing jax.extend imports Pallas too, a good part of ast2graph's import
    from jax._src.core import Primitive
except ImportError:   # pragma: no cover - another JAX layout
    from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

from ..diagnostics import Loc, LoopBoundError
from ..tracebacks import RaiseSite, UserLine, hide_frames, throw
from .hostcalls import _guarded, words_sent
from .casts import cast

_ACTIVE = threading.local()


def _active_stack() -> list:
    stack = getattr(_ACTIVE, "stack", None)
    if stack is None:
        stack = _ACTIVE.stack = []
    return stack


@contextlib.contextmanager
def _active(pred: Any) -> Iterator[None]:
    stack = _active_stack()
    stack.append(pred)
    try:
        yield
    finally:
        stack.pop()


def under(pred: Any, fn: Callable) -> Callable:
    """``fn`` (a branch taken when ``pred``) with ``pred`` masking its bound checks."""

    def run(*args: Any) -> Any:
        with _active(pred):
            return fn(*args)

    return run


def case_taken(index: Any, i: int, n: int) -> Any:
    """Whether ``lax.switch(index, n branches)`` takes branch ``i`` (it clamps)."""
    return jnp.clip(index, 0, n - 1) == i


def bounded_while(cond: Callable, body: Callable, init: tuple, n: int, loc: Loc) -> tuple:
    """``while cond(*c): c = body(*c)`` for at most ``n`` iterations."""

    def go(c: tuple) -> tuple:
        c = tuple(body(*c))
        return c, cond(*c)[0]

    def step(carry: tuple, _: Any) -> tuple:
        c, running = carry
        return lax.cond(running, under(running, go), lambda c: (c, running), c), None

    (final, running), _ = lax.scan(step, (tuple(init), cond(*init)[0]), None, length=n)
    _check(running, n, loc, "while")
    return final


def bounded_fori(lower: Any, upper: Any, body: Callable, init: tuple, n: int, done: int | None,
                 loc: Loc) -> tuple:
    """``for i in range(lower, upper): c = body(i, *c)`` for at most ``n``
    iterations; ``c[done]`` true means the loop has broken out."""

    def step(c: tuple, k: Any) -> tuple:
        i = lower + k
        run = i < upper
        index = cast(i, i.dtype, True)   # a Python int in eager: weakly typed
        return lax.cond(run, under(run, lambda c: tuple(body(index, *c))), lambda c: c, c), None

    # int64: the graph runs with x64 (its loop index is a Python int, exact)
    final, _ = lax.scan(step, tuple(init), jnp.arange(n, dtype=jnp.int64))
    still = lower + n < upper
    if done is not None:
        still = jnp.logical_and(still, jnp.logical_not(final[done]))
    _check(still, n, loc, "for")
    return final


def _check(still: Any, n: int, loc: Loc, construct: str) -> None:
    """Raise ``LoopBoundError`` at run time if ``still`` (masked by the
    enclosing predicates) holds for any element."""
    raise_if(still, functools.partial(_raise_if_running, n, loc, construct))


def raise_if(flag: Any, raiser: Callable[..., None], *payload: Any) -> None:
    """At run time, when ``flag`` (masked by the enclosing branch predicates
    and running flags) holds for some element, call ``raiser(mask, *payload)``
    on the host; it raises the error eager Python raises. The host callback
    only runs when the flag holds (a ``lax.cond``), so a check in a loop body
    costs a comparison per iteration, not a host transfer. Inside a batch of
    checks (``checks_open``) of the function being traced, the check is kept
    and emitted with the others of the batch as one callback."""
    mask = functools.reduce(jnp.logical_and, _active_stack(), jnp.asarray(flag))
    sent, decode = words_sent((mask, *payload))   # 64-bit values exact whatever thread runs the callback
    fire = _guarded(decode(raiser))   # (made now: the error is raised from the statement being traced)
    stack = _batches()
    if stack and not stack[-1].direct and stack[-1].trace is not None and stack[-1].trace is _current_trace():
        stack[-1].pending.append((mask, fire, sent))
        return
    _emit_checks([(mask, fire, sent)])


# ------------------------------------------------------------ checks in batches
# Each check is a ``lax.cond`` holding an ordered ``jax.debug.callback``; XLA
# compiles each one apart, ~50 ms a check on a CPU: a loop unrolled over 200
# list lookups by a traced index spent 10 s compiling its index checks, and
# 0.3 s once they were one callback. The generated function of a region with
# several checks (``lowering.codegen``) opens a batch; its checks are kept and
# emitted together, as one ``lax.cond`` over "any of them fires" and one
# callback that runs, on the host, the first one whose mask holds (in program
# order: the one eager raises). The batch is emitted before any op that is not
# a plain computation or a check (a host effect, a branch, a loop: an ordered
# effect must not overtake a check made before it) and at the function's end.
# Between the checks of a batch only plain computations run, which raise
# nothing and do not loop; a check that fired lets the graph run on in any
# case (its error is raised after the call), so its place among them changes
# nothing but the compile time.
_BATCH = threading.local()


class _Batch:
    __slots__ = ("trace", "pending", "direct")

    def __init__(self, trace: Any):
        self.trace, self.pending, self.direct = trace, [], 0


def _batches() -> list:
    stack = getattr(_BATCH, "stack", None)
    if stack is None:
        stack = _BATCH.stack = []
    return stack


def _current_trace() -> Any:
    """The JAX trace the generated function is being traced in (None where
    this JAX does not say: no batching)."""
    try:
        from jax._src import core as _core

        return _core.trace_ctx.trace
    except (ImportError, AttributeError):   # pragma: no cover - another JAX layout
        return None


def checks_open() -> _Batch:
    """A batch of the checks of the function being traced (its generated code
    calls ``checks_flush``/``checks_direct`` and, in a ``finally:``, ``checks_drop``)."""
    batch = _Batch(_current_trace())
    _batches().append(batch)
    return batch


def checks_flush(batch: _Batch) -> None:
    """Emit the checks kept so far (before an op that is not a plain computation, and at the end)."""
    pending, batch.pending = batch.pending, []
    _emit_checks(pending)


@contextlib.contextmanager
def checks_direct(batch: _Batch) -> Iterator[None]:
    """Around an op with host effects of its own: its checks are emitted where it makes them."""
    batch.direct += 1
    try:
        yield
    finally:
        batch.direct -= 1


def checks_drop(batch: _Batch) -> None:
    """The batch ends (also when tracing failed: nothing kept for another trace)."""
    stack = _batches()
    if batch in stack:   # (by identity: a batch has no __eq__)
        stack.remove(batch)


def _emit_checks(pending: list) -> None:
    if not pending:
        return
    if len(pending) == 1:
        mask, fire, sent = pending[0]

        def call() -> None:
            jax.debug.callback(fire, *sent, ordered=True)   # the first to fire is the first in program order

        lax.cond(jnp.any(mask), call, lambda: None)
        return
    counts = [len(sent) for _, _, sent in pending]
    fires = [fire for _, fire, _ in pending]
    words = [w for _, _, sent in pending for w in sent]
    any_fires = functools.reduce(jnp.logical_or, [jnp.any(mask) for mask, _, _ in pending])

    def host(*words: Any) -> None:
        k = 0
        for n, fire in zip(counts, fires):
            part, k = words[k:k + n], k + n
            if np.any(np.asarray(part[0])):   # its mask (a bool array, sent as it is)
                fire(*part)   # raises (kept in HostErrors) where eager raises: the first one in program order

    def call() -> None:
        jax.debug.callback(host, *words, ordered=True)

    lax.cond(any_fires, call, lambda: None)


def _raise_if_running(n: int, loc: Loc, construct: str, still: Any) -> None:
    if np.any(np.asarray(still)):
        raise LoopBoundError(
            f"the `{construct}` loop at {loc.file}:{loc.line} still runs after max_iters={n} iterations "
            f"(eager Python would keep iterating); raise max_iters (to_static(..., max_iters=...))", loc)


def forward_only(outs: tuple, loc: Loc, construct: str) -> tuple:
    """The results of a loop lowered to ``lax.while_loop`` (no ``max_iters``),
    each float one passed through ``forward_only_p``: the identity, compiled
    away, differentiated in forward mode (``jax.jvp``, ``jax.jacfwd``, any
    order, under ``vmap``) as the identity, whose transpose raises an error
    naming the user's loop and ``max_iters``. ``jax.grad`` transposes it
    before the loop, whose own transpose would raise JAX's error, which names
    neither."""
    return tuple(forward_only_p.bind(o, loc=loc, construct=construct)
                 if jnp.issubdtype(o.dtype, jnp.inexact) else o for o in outs)


def _no_transpose(ct: Any, x: Any, *, loc: Loc, construct: str) -> None:
    """Raised from the user's loop line (a synthetic frame, ``tracebacks``)."""
    error = ValueError(
        f"jax.grad (reverse-mode differentiation) cannot go through the `{construct}` loop at {loc.file}:{loc.line}: "
        "its trip count is traced, so it is compiled to lax.while_loop, which JAX differentiates in forward mode "
        "only (jax.jvp, jax.jacfwd). Give it a bound: to_static(..., max_iters=N) compiles it to a lax.scan of at "
        "most N iterations, which jax.grad differentiates (a loop still running after N iterations raises "
        "LoopBoundError).")
    text = linecache.getline(loc.file, loc.line).rstrip()
    line = UserLine(loc.file, (loc.line, loc.col, loc.line, max(len(text), loc.col + 1)), None, "raise",
                    loc.function.rsplit(".", 1)[-1] or "<module>", loc.function, max(loc.line - 1, 1), {})
    try:
        throw(RaiseSite((line,)), "raise", error)
    except ValueError as e:
        hide_frames(e)   # JAX drops its own frames; these are ours
        raise


forward_only_p = Primitive("ast2graph_forward_only")
forward_only_p.def_impl(lambda x, **_: x)
forward_only_p.def_abstract_eval(lambda x, **_: x)
ad.deflinear2(forward_only_p, _no_transpose)
batching.primitive_batchers[forward_only_p] = lambda args, dims, **p: (forward_only_p.bind(args[0], **p), dims[0])
mlir.register_lowering(forward_only_p, mlir.lower_fun(lambda x, **_: x, multiple_results=False))


class _QuietRuntimeErrors(logging.Filter):
    """JAX logs every exception a debug or pure callback raises; ours (``HostRaised``,
    standing for any ``BaseException`` the check raised) reach the user anyway."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and getattr(record.exc_info[1], "_a2g_runtime", False))


logging.getLogger("jax._src.debugging").addFilter(_QuietRuntimeErrors())
logging.getLogger("jax._src.callback").addFilter(_QuietRuntimeErrors())   # a pure_callback's (scipy_api, host_function)
