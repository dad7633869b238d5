"""Tracebacks of the exceptions a graph raises: they end at the user's line.

A ``raise`` or ``assert`` under a traced condition runs as a host callback
deep inside JAX; the exception it makes reaches the user through a dozen of
JAX's and ast2graph's frames, none of them the user's. Eager Python's
traceback ends at the user's ``raise`` statement. This module rebuilds that:

- ``RaiseSite``: where the user's statement is (file, line, columns, the
  enclosing function's name and globals) and the calls of inlined functions
  that led there (``UserLine`` each), recorded at trace time;
- ``throw(error, site)``: raises ``error`` from synthetic frames of the
  user's functions at those lines (code objects compiled so that their one
  statement, ``_()`` or ``raise _``, sits at the user's file, line and
  columns, renamed to the user's function), the technique of Jinja2's
  ``fake_traceback``; eager's traceback rules then apply (a pre-built
  exception's traceback grows);
- ``hide_frames(error)``: at the converted function's boundary, drops
  ast2graph's and JAX's frames from the traceback of an exception ``throw``
  raised, as ``jax._src.traceback_util`` drops JAX's own (``off`` in
  ``jax_traceback_filtering`` keeps them).

Requires: nothing of ast2graph (a run-time library module).
Invariants: the last entry of the traceback of an exception raised by a
check is the user's statement (file, line, function name, source line); the
exception object is never touched by JAX (no frames, context or attributes
added to it on the way).
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import os
import types
from typing import Any, Callable, Iterator, NoReturn

import jax

_OWN_DIRS = (os.path.dirname(os.path.abspath(__file__)) + os.sep,
             os.path.dirname(os.path.abspath(jax.__file__)) + os.sep)
_last_thrown: list[tuple] = [()]   # (id, type) of the last exception ``throw`` raised (no reference kept)


_FALSE = "F"   # the fake assert's test: runs of this letter, bound to ``_NEVER`` (``_Names``)


class _Never:
    """False, and every comparison with it false (a fake assert's operands)."""

    def __bool__(self) -> bool:
        return False

    def _false(self, other: Any) -> bool:
        return False

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __contains__ = _false
    __hash__ = object.__hash__


_NEVER = _Never()


class _Names(dict):
    """The fake frame's names: ``_``, the operand; any run of ``_FALSE``, ``_NEVER``."""

    def __init__(self, operand: Any):
        super().__init__(_=operand)

    def __missing__(self, key: str) -> Any:
        if key and key == _FALSE * len(key):
            return _NEVER
        raise KeyError(key)


Span = tuple  # (line, col, end_line, end_col): 1-based lines, 0-based UTF-8 columns, as ``ast`` gives them


class UserLine:
    """One entry of the traceback eager Python has: a statement's ``span``
    in the user's file and the function it is in (``name``, ``qualname``,
    ``firstlineno``: its code object's; ``globals``: its module's).
    ``form``: what the statement does there: ``"call"`` (an inlined
    function's call, spanning the call), ``"raise"`` (``raise ERR``, ``raise
    Cls``), ``"raise-call"`` (``raise Cls(...)``, ``part`` the call),
    ``"assert"`` or ``"assert-msg"`` (with a message; ``part`` the test,
    ``test`` the text of a test whose carets eager places, its operands
    replaced by runs of ``_FALSE``)."""

    __slots__ = ("file", "span", "part", "form", "test", "name", "qualname", "firstlineno", "globals", "_code")

    def __init__(self, file: str, span: Span, part: Span | None, form: str, name: str, qualname: str,
                 firstlineno: int, globals: dict, test: str | None = None):
        self.file, self.span, self.part, self.form, self.test = file, span, part, form, test
        self.name, self.qualname, self.firstlineno, self.globals = name, qualname, firstlineno, globals
        self._code: types.CodeType | None = None

    def __repr__(self) -> str:
        return f"{self.file}:{self.span[0]}"

    def code(self) -> types.CodeType:
        """The statement, its operand ``_``, as a code object of the user's
        function whose instructions sit at the user's lines and columns."""
        if self._code is None:
            self._code = _fake_code(self)
        return self._code


class RaiseSite:
    """Where the user's code raises: the ``raise``/``assert`` statement last,
    before it the calls that led there through inlined functions (outermost
    first, the converted function's own)."""

    __slots__ = ("lines",)

    def __init__(self, lines: tuple[UserLine, ...]):
        self.lines = lines

    def __repr__(self) -> str:
        return repr(self.lines[-1])


def _tokens(line: UserLine) -> list[tuple[str, int, int]]:
    """The fake statement's tokens at the positions of the user's: the
    instruction that fails (the call, the ``raise``, the assert's test) has
    the user's span, so the traceback shows the user's carets."""
    (l0, c0, l1, c1), part, form = line.span, line.part, line.form
    if form == "call":
        return [("_(", l0, c0), (")", l1, c1 - 1)]
    if form == "raise-call" and part is not None:
        return [("raise", l0, c0), ("_(", part[0], part[1]), (")", part[2], part[3] - 1)]
    if form.startswith("assert") and part is not None:
        t0, tc0, t1, tc1 = part
        # a false name, not a constant (the compiler would fold ``assert 0``)
        test = [(line.test or _FALSE * (tc1 - tc0), t0, tc0)] if t0 == t1 else \
            [(f"{_FALSE}<(", t0, tc0), (f"{_FALSE})", t1, tc1 - 2)]
        return [("assert", l0, c0), *test] + ([(",_", -1, -1)] if form == "assert-msg" else [])
    return [("raise", l0, c0), ("_", l1, c1 - 1)]


def _compact(form: str) -> str:
    return {"call": "_()", "raise-call": "raise _()", "assert": f"assert {_FALSE}",
            "assert-msg": f"assert {_FALSE},_"}.get(form, "raise _")


def _layout(tokens: list[tuple[str, int, int]]) -> str | None:
    """Source text with each token at its (line, col) (-1: right after the
    previous one), lines joined by backslashes; None if they overlap."""
    out: list[str] = []
    line, col = tokens[0][1], 0
    for text, at_line, at_col in tokens:
        if at_line == -1:
            at_line, at_col = line, col
        if at_line < line or at_line == line and at_col < col:
            return None
        if at_line > line:
            out.append(" \\\n" * (at_line - line))
            line, col = at_line, 0
        out.append(" " * (at_col - col) + text)
        col = at_col + len(text)
    return "".join(out)


def _fake_code(line: UserLine) -> types.CodeType:
    first = min(line.firstlineno, line.span[0])
    if first == line.span[0] > 1 and line.span[1] > 0:   # `def f(x): assert ...`: the `if 1:` goes a line up
        first -= 1
    stmt = _layout(_tokens(line))
    if stmt is None and line.span[1] > 0:   # no room for the tokens (a name read): the compact form at its column
        stmt = " " * line.span[1] + _compact(line.form)
    if stmt is None or line.span[1] == 0 or line.span[0] == first:   # columns the user's where they can be
        text = "\n" * (line.span[0] - first) + (_compact(line.form) if stmt is None else stmt.lstrip(" "))
    else:   # indented as in the user's file (the statement alone in an `if 1:`)
        text = "\n" * (line.span[0] - first - 1) + "if 1:\n" + stmt
    code = compile(text, line.file, "exec", dont_inherit=True, optimize=0)   # optimize=0: the assert stays
    fields: dict[str, Any] = {"co_name": line.name, "co_firstlineno": first}
    if hasattr(code, "co_qualname"):
        fields["co_qualname"] = line.qualname
    return code.replace(**fields)


def throw(site: RaiseSite | None, form: str, operand: Any) -> NoReturn:
    """Raise what the user's statement at ``site`` raises, from synthetic
    frames of the user's functions (``form`` as ``UserLine.form``;
    ``operand``: the exception or class for ``raise``, the constructor
    with its arguments bound for ``raise-call``, the message for
    ``assert-msg``)."""
    try:
        if site is not None:
            step: Any = operand
            for line in reversed(site.lines):
                namespace = line.globals if "__builtins__" in line.globals else {"__builtins__": builtins}
                # exec and partial are C: no frame of ours between the user's frames
                step = functools.partial(exec, line.code(), namespace, _Names(step))
            step()   # raises
        if form.startswith("assert"):
            raise AssertionError(*([operand] if form == "assert-msg" else []))
        raise operand() if form == "raise-call" else operand
    except BaseException as e:
        _last_thrown[0] = (id(e), type(e))
        raise


def rethrow(error: BaseException, site: "PendingSite | None" = None) -> NoReturn:
    """Raise ``error``, which a host callback raised (user code it ran, or a
    run-time check), JAX's and ast2graph's frames dropped from its traceback;
    with ``site`` (the user's statement whose op made the callback), from
    synthetic frames of the user's functions at that statement first, as
    eager's traceback runs through it."""
    _last_thrown[0] = (id(error), type(error))
    error = error.with_traceback(_user_frames(error.__traceback__))
    if site is None:
        raise error
    throw(site.get(), "call", functools.partial(_reraise, error))   # the user's line "calls" the failing op


def _reraise(error: BaseException) -> NoReturn:   # (a frame of ours: dropped by ``hide_frames``)
    raise error


class PendingSite:
    """A ``RaiseSite`` made only when needed (an exception to raise): the
    interpreter records the statement of every op that runs a host callback,
    and most never raise."""

    __slots__ = ("make", "site")

    def __init__(self, make: Callable[[], RaiseSite]):
        self.make, self.site = make, None

    def get(self) -> RaiseSite:
        if self.site is None:
            self.site = self.make()
        return self.site


_CURRENT_SITE: list = [None]   # the PendingSite of the op JAX is tracing now (``at_site``)


@contextlib.contextmanager
def at_site(site: PendingSite) -> Iterator[None]:
    """While the lowered graph traces one op: the host callbacks it makes
    (``current_site``) raise from the user's statement."""
    outer, _CURRENT_SITE[0] = _CURRENT_SITE[0], site
    try:
        yield
    finally:
        _CURRENT_SITE[0] = outer


def current_site() -> PendingSite | None:
    return _CURRENT_SITE[0]


def hide_frames(error: BaseException) -> None:
    """At the converted function's boundary: the traceback of an exception
    ``throw`` raised without ast2graph's and JAX's frames; of one the user's
    code raised in Python (an interpreted statement, a function run eagerly)
    without ast2graph's frames before it (its own frames and those of what it
    called, NumPy's or JAX's, stay, as in eager's). An exception raised in
    ast2graph itself keeps every frame (an internal error, to be reported)."""
    if getattr(jax.config, "jax_traceback_filtering", "auto") == "off":
        return
    if (id(error), type(error)) == _last_thrown[0]:
        error.__traceback__ = _user_frames(error.__traceback__)
    elif _through_user_code(error.__traceback__):
        error.__traceback__ = _user_frames(error.__traceback__, _OWN_DIRS[:1])


def _own(code: types.CodeType, dirs: tuple = _OWN_DIRS) -> bool:
    return code.co_filename.startswith(dirs)


def _through_user_code(tb: types.TracebackType | None) -> bool:
    """The exception passed through a frame of the user's after ast2graph's
    (neither ast2graph's nor JAX's): the user's code raised it, or called
    what did."""
    while tb is not None:
        if not _own(tb.tb_frame.f_code):
            return True
        tb = tb.tb_next
    return False


def _user_frames(tb: types.TracebackType | None, dirs: tuple = _OWN_DIRS) -> types.TracebackType | None:
    entries = []
    while tb is not None:
        if not _own(tb.tb_frame.f_code, dirs):
            entries.append(tb)
        tb = tb.tb_next
    out = None
    for entry in reversed(entries):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out
