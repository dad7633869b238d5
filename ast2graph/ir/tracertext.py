"""No JAX tracer becomes text while ast2graph traces the user's calls.

Requires: JAX's ``Tracer`` class (``jax._src.core``).
Produces: ``watching()``/``suspended()``, context managers around the code that runs a
Python function on tracers at trace time (``Interpreter._jax_eval``): inside
it, ``str``/``repr``/``format`` of a tracer raises ``TracerText`` and marks the
watch ``tripped``; ``TracerText``; ``standin_text`` (the text of a graph
``Value``, which raises ``StandinSeen`` inside a watch) and ``StandinSeen``.
Invariants: outside a watch a tracer prints as JAX prints it; inside one,
no text of a tracer (``"p0=%s" % p0`` giving ``'p0=JitTracer(float32[])'``,
``"{}".format(x)``, a library's log message) can become a trace-time
constant: eager formats the value, so the site falls back (or ast2graph
formats it on the host). A function that catches the exception does not
hide it: the caller checks ``tripped`` after the call too.

Why a patch of JAX's class: a tracer reaches Python code ast2graph does
not control (NumPy, a library's string formatting, a user's helper), and
``__repr__`` is the one door all text goes through (``str``, ``%s``,
``format`` with an empty spec, f-strings). The patch is installed once and
does nothing unless a watch is active on this thread.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

_STATE = threading.local()


class StandinSeen(TypeError):
    """Python code run at trace time looked at one of ast2graph's trace-time
    stand-ins (a graph ``Value``) where eager has an array."""


class TracerText(Exception):
    """A tracer's text was asked for while ast2graph traced a call."""


class Watch:
    tripped = False


def _watch() -> "Watch | None":
    stack = getattr(_STATE, "stack", None)
    return stack[-1] if stack else None


def _patched(original):
    def text(self, *args):
        watch = _watch()
        if watch is not None:
            watch.tripped = True
            raise TracerText("the text of a traced array was asked for at trace time (eager formats its value)")
        return original(self, *args)

    text.__name__ = original.__name__
    text.__qualname__ = getattr(original, "__qualname__", original.__name__)
    text._a2g_original = original  # type: ignore[attr-defined]
    return text


def _install() -> None:
    from jax._src import core

    def classes(k: type) -> Iterator[type]:
        yield k
        for sub in k.__subclasses__():
            yield from classes(sub)

    for cls in set(classes(core.Tracer)):
        for name in ("__repr__", "__str__", "__format__"):
            method = vars(cls).get(name)
            if name == "__repr__" and cls is core.Tracer and method is None:
                method = object.__repr__
            if method is not None and not hasattr(method, "_a2g_original"):
                setattr(cls, name, _patched(method))
    if "__format__" not in vars(core.Tracer):
        core.Tracer.__format__ = _patched(object.__format__)  # type: ignore[method-assign]


_install()


def standin_text(value: object, spec: str | None) -> str:
    """``repr``/``str``/``format`` (``spec``; None: ``repr``) of a graph
    ``Value``: inside a watch (Python code run at trace time formats it) the
    watch trips and ``StandinSeen`` is raised; outside (ast2graph's own
    messages) its debugging text."""
    watch = _watch()
    if watch is not None:
        watch.tripped = True
        raise StandinSeen("the text of a traced array was asked for at trace time (eager formats its value)")
    text = value.debug_text()  # type: ignore[attr-defined]
    return text if spec is None else format(text, spec)


@contextlib.contextmanager
def watching() -> Iterator[Watch]:
    """Within: a tracer's text raises ``TracerText`` and trips the watch."""
    stack = getattr(_STATE, "stack", None)
    if stack is None:
        stack = _STATE.stack = []
    watch = Watch()
    stack.append(watch)
    try:
        yield watch
    finally:
        stack.pop()


@contextlib.contextmanager
def suspended() -> Iterator[None]:
    """Within: no watch (ast2graph's interpreter runs again, a local function
    called by Python code at trace time; its own messages may show a Value)."""
    stack = getattr(_STATE, "stack", None)
    if stack is None:
        stack = _STATE.stack = []
    stack.append(None)
    try:
        yield
    finally:
        stack.pop()
