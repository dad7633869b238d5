"""Local lists and dicts written under a traced branch: contents joined.

Requires: the interpreter's ``fresh`` map (the traced depth at which this
trace made each container), ``traced_depth``, ``frame``; the branch machinery
of ``control`` (``_run_branch``, ``_join_and_emit``), which calls in here.
Produces: ``ContainerMixin``: a stack of write logs, one per traced branch
being run. A ``list`` or ``dict`` this trace made outside the branch and
written inside it (``out.append(v)``, ``d["k"] = v``, ``flags[j] = False``)
is snapshotted at its first write in each enclosing branch; when the branch
ends, what it holds is recorded in the branch's environment under a
pseudo-name (``<container ID>``) and the snapshot is put back, so the next
branch starts from the contents before the ``if``. The branch op then joins
the recorded contents like variables: the same length and keys on every
path, each element joined (a Python bool or number that is traced on one
path becomes a traced value of eager's kind; a kind that differs between
paths is marked path-dependent as for any variable) and yielded by the op;
the joined elements are written into the same list or dict object, so every
alias sees them.
Invariants: a container's identity never changes; a container whose
structure (length, keys, the identity of a nested container) differs between
paths, or that is written on a path that returns or breaks, falls back
(A2G007 / A2G006) with its name; every snapshot taken is restored even when
tracing the branch fails.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import Value

# the containers whose contents a traced branch may rewrite (exact types: a
# subclass may override the methods that write)
JOINABLE = (list, dict)


class Ref:
    """A mutable object held in a joined container: one leaf, compared by
    identity (a nested list is its own container, logged on its own)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __repr__(self) -> str:
        return f"<{type(self.obj).__name__} object>"


def _plain(x: Any) -> bool:
    from .varlist import VarTail   # a list's traced tail: a pytree of graph values, joined leaf by leaf

    return isinstance(x, (Value, VarTail, bool, int, float, complex, str, bytes, type(None), np.generic, np.ndarray, jax.Array))


class _Log:
    """The containers written inside one traced branch: id -> (object, snapshot)."""

    def __init__(self, depth: int):
        self.depth = depth
        self.saved: dict[int, tuple[Any, Any]] = {}


class _JoinError(Exception):
    """Values with no one type to join them to (``control``'s joins raise it)."""


def _nested_containers(x: Any) -> dict[int, Any]:
    """The lists and dicts inside ``x`` (through tuples, lists and dicts; not ``x`` itself)."""
    found: dict[int, Any] = {}
    stack = list(x.values() if type(x) is dict else x) if type(x) in (tuple, list, dict) else []
    while stack:
        y = stack.pop()
        if type(y) in (list, dict):
            if id(y) in found:
                continue
            found[id(y)] = y
        if type(y) in (tuple, list, dict):
            stack.extend(y.values() if type(y) is dict else y)
    return found


class _Carry:
    """The containers a rolled loop being solved carries: id -> object, and
    what each held before the loop."""

    def __init__(self, depth: int):
        self.depth = depth
        self.active = True   # False while a `while` test runs (it may not write them)
        self.max_trips: int | None = None   # the loop's static maximum trip count (lists grown in it: varlist.py)
        self.trips_static = False   # and it is the trip count (no traced bound)
        self.growth: dict[str, tuple] = {}   # a grown list's pseudo-name -> (appends an iteration, rows)
        self.carried: dict[int, Any] = {}
        self.before: dict[int, Any] = {}   # the loop's entry (a grown list's: as prefix and buffer)
        self.original: dict[int, Any] = {}   # what the container held before the loop, restored after it
        self.keep: set[str] = set()
        # lists and dicts from before the loop held inside carried values
        # (``state = (x, log)``): kept as themselves while the body leaves them there
        self.held: dict[int, Any] = {}
        self.may_skip = False   # the loop may run zero times
        # a traced ``while len(xs) < n:``: id(xs) -> n, a bound on its length at every
        # iteration's start (its buffer's rows: varlist.py); and whether the
        # test is only that comparison (then the length after the loop is known)
        self.len_bounds: dict[int, int] = {}
        self.len_exit = False


def container_name(obj: Any) -> str:
    return f"<container {id(obj)}>"


class ContainerMixin:
    @property
    def container_logs(self) -> list:
        logs = self.__dict__.get("_container_logs")
        if logs is None:
            logs = self.__dict__["_container_logs"] = []
        return logs

    def _refs(self) -> dict:
        refs = self.__dict__.get("_container_refs")
        if refs is None:
            refs = self.__dict__["_container_refs"] = {}
        return refs

    def _shield(self, x: Any) -> Any:
        """``x`` with each mutable object in it as its one ``Ref`` (the same
        wrapper for the same object, so the join sees it unchanged)."""
        if _plain(x):
            return x
        if type(x) is tuple:
            return tuple(self._shield(y) for y in x)
        refs = self._refs()
        entry = refs.get(id(x))
        if entry is None or entry.obj is not x:
            entry = refs[id(x)] = Ref(x)
        return entry

    @staticmethod
    def _unshield(x: Any) -> Any:
        if isinstance(x, Ref):
            return x.obj
        if type(x) is tuple:
            return tuple(ContainerMixin._unshield(y) for y in x)
        return x

    def contents(self, obj: Any) -> Any:
        """What ``obj`` holds, as a tree the branch join flattens."""
        if type(obj) is dict:
            return {k: self._shield(v) for k, v in obj.items()}
        return [self._shield(v) for v in obj]

    def set_contents(self, obj: Any, contents: Any) -> None:
        """Put ``contents`` (from ``contents``, maybe joined) back into ``obj``, in place."""
        if type(obj) is dict:
            obj.clear()
            obj.update((k, self._unshield(v)) for k, v in contents.items())
        else:
            obj[:] = [self._unshield(v) for v in contents]

    # ------------------------------------------------------------ writes
    @property
    def container_loops(self) -> list:
        loops = self.__dict__.get("_container_loops")
        if loops is None:
            loops = self.__dict__["_container_loops"] = []
        return loops

    def log_container_write(self, obj: Any, created: int, node: Any = None) -> bool:
        """A write into ``obj`` (made at traced depth ``created``) from a deeper
        traced depth: allowed when ``obj`` is a list or dict and every traced
        level in between is a branch that logs its writes or a rolled loop's
        body that carries ``obj`` (one that does not yet is told so by a
        ``GraphBreak`` with ``carry_container``: it solves the loop again
        carrying it); the contents are then snapshotted in each of those
        branches (at its first write)."""
        if type(obj) not in JOINABLE:
            return False
        logs = {log.depth: log for log in self.container_logs}
        loops = {loop.depth: loop for loop in self.container_loops if loop.active}
        levels = range(created + 1, self.traced_depth + 1)
        if not levels or any(d not in logs and d not in loops for d in levels):
            return False
        for d in levels:
            if d not in logs and id(obj) not in loops[d].carried:
                err = self.graph_break(FallbackCode.MUTATION, node, f"{self.container_label(obj)} is written in a "
                                       "rolled loop and could not be carried by it")
                err.carry_container = (d, obj)   # type: ignore[attr-defined]
                raise err
        # a branch outside a loop that carries ``obj`` took its snapshot when
        # the loop began carrying it (``carry_container``): inside, ``obj``
        # holds the loop's per-iteration values
        inner = max((d for d in levels if d not in logs), default=0)
        for d in levels:
            if d in logs and d > inner:
                saved = logs[d].saved
                if id(obj) not in saved:
                    saved[id(obj)] = (obj, self.contents(obj))
        return True

    # ------------------------------------------------------ rolled loops
    @property
    def container_loops_done(self) -> list:
        return self.__dict__.get("_container_loops_done", [None])

    def begin_container_carry(self) -> "_Carry":
        """The rolled loop about to be solved: its body runs at the next traced depth."""
        loop = _Carry(self.traced_depth + 1)
        self.container_loops.append(loop)
        return loop

    def keep_identity(self, loop: "_Carry", names: list[str], env0: dict) -> None:
        """The carried variables that hold a list or dict this trace made: the
        loop keeps the very object in them (``Ref``), not a copy rebuilt from
        its items, while the body leaves it there (``loop_value``)."""
        by_value = self.__dict__.get("by_value_dicts", {})   # (control.sort_carried_dicts: carried by value)
        loop.keep = {n for n in names if type(env0.get(n)) in JOINABLE and self._is_fresh(env0[n])
                     and by_value.get(id(env0[n])) is not env0[n]}
        loop.held = {}
        for n in names:
            if n not in loop.keep and not n.startswith("<") and n in env0:
                loop.held.update(_nested_containers(env0[n]))

    def loop_entry(self, loop: "_Carry", name: str, value: Any) -> Any:
        """A carried variable's value before the loop, as the loop's state
        sees it: a kept list or dict, and each container the loop carries
        wherever it sits (``t = (buf, k)``), as its ``Ref``."""
        if name in loop.keep:
            return self._shield(value)
        objs = {**loop.held, **loop.carried}
        return self.shield_logged(value, objs) if objs and not name.startswith("<") else value

    def loop_exit(self, loop: "_Carry", env: dict, env0: dict, names: list[str]) -> bool:
        """The carried variables at the end of a pass, shielded as at the
        entry; False (and no longer kept) where the body bound another object
        to a kept variable."""
        lost = {n for n in loop.keep if env.get(n) is not env0[n]}
        if lost:
            loop.keep -= lost
            for n in lost:
                self._uncarry_rebound(loop, n, env0, names)
            return False
        if loop.held:
            there: dict[int, Any] = {}
            for n in names:
                if n not in loop.keep and not n.startswith("<") and n in env:
                    there.update(_nested_containers(env[n]))
            gone = [obj for key, obj in loop.held.items() if there.get(key) is not obj]
            if gone:   # the body puts another object there: carried as a copy of its items from now on
                self._check_copy_invisible(loop, gone, env0, names)
                for obj in gone:
                    del loop.held[id(obj)]
                return False
        objs = {**loop.held, **loop.carried}
        self._check_carried_once(loop, env, names, objs)
        for n in names:
            if n in loop.keep:
                env[n] = self._shield(env[n])
            elif objs and not n.startswith("<") and n in env:
                env[n] = self.shield_logged(env[n], objs)
        return True

    def _check_carried_once(self, loop: "_Carry", env: dict, names: list[str], objs: dict) -> None:
        """A list or dict the loop carries by value (its items) held twice
        at the end of the body (``t = [v]; u = t``, ``pair = (t, t)``): the
        loop's state would make two objects of it where eager has one."""
        counts: dict[int, int] = {}
        stack = [env[n] for n in names if not n.startswith("<") and n in env and n not in loop.keep]
        while stack:
            x = stack.pop()
            if type(x) in (list, dict):
                if objs.get(id(x)) is x or self.input_container(x) is not None or self.outside_container(x):
                    continue   # kept as itself (``Ref``)
                counts[id(x)] = counts.get(id(x), 0) + 1
                if counts[id(x)] > 1:
                    raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, self.current_top,
                                           f"a {type(x).__name__} the loop carries by value is held twice at the end "
                                           "of its body (two variables, or twice in one value): its state would "
                                           "make two objects of it", "loop")
                stack.extend(x.values() if type(x) is dict else x)
            elif type(x) is tuple or isinstance(x, tuple):
                stack.extend(x)

    def mark_carried_fresh(self, value: Any) -> Any:
        """A carried value just made from the loop's state: its lists and
        dicts (not the ``Ref``s of objects kept as themselves) are new
        objects of this pass, made at the loop body's depth (a write into one
        stays in the pass, as into a list the body made)."""
        depth = self.container_loops[-1].depth if self.container_loops else self.traced_depth
        stack = [value]
        while stack:
            x = stack.pop()
            if type(x) in (list, dict):
                self.fresh[id(x)] = (depth, x)
                stack.extend(x.values() if type(x) is dict else x)
            elif type(x) is tuple or isinstance(x, tuple):
                stack.extend(x)
        return value

    def outer_values(self) -> list:
        """What the enclosing scopes and the callers of an inlined call hold
        (each frame once): the places beyond this frame that may hold an object."""
        values, seen = [], set()
        for f in [self.frame.parent, *self.callers]:
            while f is not None and id(f) not in seen:
                seen.add(id(f))
                values.extend(f.env.values())
                f = f.parent
        return values

    def live_outer_values(self) -> list:
        """``outer_values`` less what the callers of the inlined calls can
        no longer read once the call returns: in a caller whose statement is
        ``a, b = g(...)`` or ``return g(...)`` with ``g(...)`` the call itself,
        nothing of the statement is left to evaluate, so its variables that
        are not live after it (and the targets, rebound by it; a ``return``:
        all of them) are dead. A variable a nested function captures (a cell)
        is never dead: the closure may read it later."""
        dead = {id(f): _dead_after_call(f, node) for f, node in zip(self.callers, self.call_nodes)}
        values, seen = [], set()
        for f in [self.frame.parent, *self.callers]:
            while f is not None and id(f) not in seen:
                seen.add(id(f))
                gone = dead.get(id(f), ())
                values.extend(v for n, v in f.env.items() if n not in gone)
                f = f.parent
        return values

    def _uncarry_rebound(self, loop: "_Carry", name: str, env0: dict, names: list[str]) -> None:
        """A kept list or dict the body writes into and also rebinds
        (``best[1] = loss`` / ``best = [loss, best[0]]``): carried by value
        from now on, no longer as a written container, where nothing but
        ``name`` holds it (which object the variable holds after the loop
        cannot be seen)."""
        obj = env0[name]
        if id(obj) not in loop.carried or self.input_container(obj) is not None or self.outside_container(obj):
            return
        others = [v for n, v in env0.items() if n != name and not n.startswith("<")]
        others += self.outer_values() + [e[2] for e in self.attr_writes.values()]
        others += [a for v in others if self._is_fresh(v) and isinstance(getattr(v, "__dict__", None), dict)
                   for a in vars(v).values()]   # (an object this trace made: its attributes)
        if id(obj) in _nested_containers(others):
            return
        del loop.carried[id(obj)]
        pseudo = container_name(obj)
        if pseudo in names:
            names.remove(pseudo)
        env0.pop(pseudo, None)
        loop.before.pop(id(obj), None)
        self.set_contents(obj, loop.original.pop(id(obj)))

    def _check_copy_invisible(self, loop: "_Carry", gone: list, env0: dict, names: list[str]) -> None:
        """A list or dict from before a loop that may run zero times, held in
        a carried value the body replaces: after zero trips eager's value
        holds that very object, which the loop's state (its items) cannot
        be. Only where nothing else can see the difference: an object this
        trace made that no other variable holds."""
        if not loop.may_skip:
            return
        elsewhere: dict[int, Any] = {}
        for n, value in env0.items():
            if n not in names and not n.startswith("<"):
                elsewhere[id(value)] = value
                elsewhere.update(_nested_containers(value))
        for obj in gone:
            if not self._is_fresh(obj) or elsewhere.get(id(obj)) is obj:
                raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, self.current_top, f"{self.container_label(obj)}"
                                       " is held in a loop-carried value the loop replaces, and the loop may run zero "
                                       "times (eager's value then holds that very object)", "loop")

    def carry_container(self, loop: "_Carry", err: Any, names: list[str], env0: dict) -> bool:
        """A write into a container from outside the loop (``err`` from
        ``log_container_write``): carry it (its contents a pseudo-variable of
        ``names``, their value before the loop in ``env0``). False: not this
        loop's to carry."""
        carry = getattr(err, "carry_container", None)
        if carry is None or carry[0] != loop.depth or id(carry[1]) in loop.carried:
            return False
        obj = carry[1]
        for log in self.container_logs:   # branches around the loop: their snapshot is from before it
            if log.depth < loop.depth and id(obj) not in log.saved:
                log.saved[id(obj)] = (obj, self.contents(obj))
        name = container_name(obj)
        loop.carried[id(obj)] = obj
        self.__dict__.setdefault("_container_objects", {})[name] = obj
        names.append(name)
        env0[name] = self.contents(obj)
        loop.before[id(obj)] = loop.original[id(obj)] = env0[name]
        return True

    def outer_carry(self, err: Any) -> bool:
        """``err`` asks a rolled loop around the current one to carry a
        container: it is that loop's to handle, not a reason to unroll this one."""
        carry = getattr(err, "carry_container", None)
        return carry is not None and carry[0] <= self.traced_depth

    def end_container_carry(self, loop: "_Carry") -> None:
        """The loop is solved (or failed): its containers hold what they held before it."""
        popped = self.container_loops.pop()
        assert popped is loop
        for key, obj in loop.carried.items():
            # (its contents as they were: a loop that failed to roll unrolls on them; a solved one writes its results)
            self.set_contents(obj, loop.original[key])
        done = self.__dict__.setdefault("_container_loops_done", [])
        done[:] = [loop]   # what finish_carried_containers reads after the loop (varlist.finish_grown)

    def bind_carried_container(self, name: str, value: Any) -> bool:
        """A carried container's pseudo-variable bound (a pass's entry, the
        loop's results): its contents set to it."""
        if not name.startswith("<container "):
            return False
        self.set_contents(self._container_object(name), value)
        self.note_pass_entry(name, value)   # a grown list's count at the pass's start (varlist.py)
        return True

    def carried_container_values(self, env: dict, names: list[str]) -> None:
        """The carried containers' contents at the end of a pass, into ``env``."""
        for name in names:
            if name.startswith("<container "):
                env[name] = self.contents(self._container_object(name))

    def finish_carried_containers(self, node: Any, names: list[str]) -> None:
        """After the loop: its results written into the containers (a write
        at the loop's depth: an enclosing branch logs it)."""
        for name in names:
            if name.startswith("<container ") and name in self.frame.env:
                self.write_joined(node, self._container_object(name), self.frame.env.pop(name))
                self.finish_grown(node, name, self._container_object(name), self.container_loops_done[-1])

    def begin_container_log(self) -> _Log:
        """A log for the branch about to run (at the next traced depth)."""
        log = _Log(self.traced_depth + 1)
        self.container_logs.append(log)
        return log

    def end_container_log(self, log: _Log, env: dict | None) -> None:
        """The branch ended: record each written container's contents in
        ``env`` (None: the branch failed, record nothing) and restore it."""
        popped = self.container_logs.pop()
        assert popped is log
        objects = self.__dict__.setdefault("_container_objects", {})
        for obj, snapshot in log.saved.values():
            if env is not None:
                env[container_name(obj)] = self.contents(obj)
                objects[container_name(obj)] = obj
            self.set_contents(obj, snapshot)

    # ------------------------------------------------------------ joins
    def branch_containers(self, outs: list[tuple[Any, dict]]) -> list[tuple[str, Any]]:
        """The containers some branch wrote: (pseudo-name, object); a branch
        that did not write one yields its contents from before the ``if``."""
        found: dict[str, Any] = {}
        for log_env in (env for _, env in outs):
            for name, value in log_env.items():
                if name.startswith("<container ") and name not in found:
                    found[name] = value
        out = []
        for name in found:
            obj = self._container_object(name)
            for _, env in outs:
                if name not in env:
                    env[name] = self.contents(obj)
            out.append((name, obj))
        return out

    def shield_logged(self, x: Any, objs: dict[int, Any]) -> Any:
        """``x`` (a variable's value) with each container in ``objs`` as its
        ``Ref``: the variable keeps that very object through the join (its
        contents are joined on their own)."""
        if id(x) in objs and objs[id(x)] is x:
            return self._shield(x)
        if type(x) in (tuple, list):
            items = [self.shield_logged(y, objs) for y in x]
            return x if all(a is b for a, b in zip(items, x)) else type(x)(items)
        if type(x) is dict:
            items = {k: self.shield_logged(v, objs) for k, v in x.items()}
            return x if all(items[k] is v for k, v in x.items()) else items
        return x

    @staticmethod
    def unshield_all(x: Any) -> Any:
        if isinstance(x, Ref):
            return x.obj
        if type(x) in (tuple, list):
            items = [ContainerMixin.unshield_all(y) for y in x]
            return x if all(a is b for a, b in zip(items, x)) else type(x)(items)
        if type(x) is dict:
            items = {k: ContainerMixin.unshield_all(v) for k, v in x.items()}
            return x if all(items[k] is v for k, v in x.items()) else items
        return x

    def _container_object(self, name: str) -> Any:
        return self.__dict__["_container_objects"][name]

    def container_label(self, obj: Any) -> str:
        """``the list 'out'``: how messages name a container."""
        names = [k for k, v in self.frame.env.items()
                 if (v is obj or isinstance(v, Ref) and v.obj is obj) and not k.startswith("<")]
        where = f" '{names[0]}'" if names else ""
        return f"the {type(obj).__name__}{where}"

    def container_names(self, name: str, env: dict) -> set[str]:
        """The variables of ``env`` holding the carried container ``name``."""
        obj = self._container_object(name)
        return {k for k, v in env.items() if (v is obj or isinstance(v, Ref) and v.obj is obj) and not k.startswith("<")}

    def container_item_name(self, name: str) -> str:
        """``counts[...]``: how a loop's message names an item of a carried container."""
        label = self.container_label(self._container_object(name))
        return label.split("'")[1] + "[...]" if "'" in label else f"an item of {label}"

    def check_container_structure(self, node: Any, obj: Any, values: list) -> None:
        """Eager's container has one length and one set of keys after the
        ``if`` only if every path leaves the same: otherwise they depend on
        the data, and the ``if`` falls back."""
        if type(obj) is dict:
            keys = [tuple(v) for v in values]
            if any(k != keys[0] for k in keys[1:]):
                raise self.graph_break(FallbackCode.MUTATION, node, f"{self.container_label(obj)} has other keys (or "
                                       "another key order) after each branch of a traced `if`: eager's keys depend on "
                                       "the data", "if", hint="write the same keys on every branch")
        elif any(len(v) != len(values[0]) for v in values[1:]):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{self.container_label(obj)} has another length after "
                                   "each branch of a traced `if`: eager's length depends on the data", "if",
                                   hint="append on every branch, or preallocate and write x[i] = v")

    def write_joined(self, node: Any, obj: Any, joined: Any) -> None:
        """The joined contents into the container (a write at the current
        depth: an enclosing branch logs it)."""
        entry = self.fresh.get(id(obj))
        if entry is not None and entry[0] != self.traced_depth and not self.log_container_write(obj, entry[0], node):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{self.container_label(obj)} is written under a "
                                   "traced condition inside a construct whose writes are not joined", "if")
        self.set_contents(obj, joined)
        self.note_joined(obj)   # its count as every branch chained it (varlist.py)

    def no_container_writes(self, log: _Log, outcome: Any, node: Any, rest: Any = None) -> None:
        """A branch that returns, breaks or continues after writing a container
        from outside it: not joined (the contents would have to follow the
        exit); it falls back. Inside a loop body the branches run on to the
        body's end (``rest``, the loop: ``exits._branches_ending_body``) and are
        joined there, containers too: allowed (a first run without ``rest`` is
        run again so)."""
        from .exits import LoopCtx, TryCtx

        loop = rest if rest is not None else self.nearest_loop()
        if isinstance(loop, (LoopCtx, TryCtx)) and rest != "function":
            return
        if log.saved and outcome is not None:
            obj = next(iter(log.saved.values()))[0]
            raise self.graph_break(FallbackCode.EARLY_EXIT, outcome[1] or node, f"`{outcome[0]}` under a traced "
                                   f"condition after writing {self.container_label(obj)}", outcome[0])

    # ------------------------------------------------- traced list indices
    def _list_join(self, node: Any, items: list, what: str) -> Any:
        """The join of ``items`` (a ``_Traced`` template or one static value),
        or a fallback naming why they have no one type."""
        try:
            return self._join_leaves(list(items))
        except _JoinError as e:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what} with a traced index: its items have "
                                   f"no one type ({e})") from None

    def _index_check(self, node: Any, idx: Value, n: int, message: str) -> None:
        """Eager's IndexError for an index outside ``-n <= i < n``, at run time."""
        import operator

        from ..graphlib import arrays

        if not self.raise_checks_allowed():
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"a traced list index that may be out of range "
                                   f"(eager raises IndexError) where a run-time check cannot raise it")
        low = self.emit_call(operator.lt, (idx, -n), {}, node, "lt")
        high = self.emit_call(operator.ge, (idx, n), {}, node, "ge")
        bad = self.emit_call(operator.or_, (low, high), {}, node, "or")
        self.emit_call(arrays.raise_when, (self.truth(bad, node), IndexError, (message,)), {}, node, "index check",
                       effect=True)

    def _hits(self, node: Any, idx: Value, n: int) -> list:
        """For each position k: the traced ``i == k or i == k - n``."""
        import operator

        out = []
        for k in range(n):
            at = self.emit_call(operator.eq, (idx, k), {}, node, "eq")
            back = self.emit_call(operator.eq, (idx, k - n), {}, node, "eq")
            out.append(self.truth(self.emit_call(operator.or_, (at, back), {}, node, "or"), node))
        return out

    @staticmethod
    def traced_int_index(idx: Any) -> bool:
        return isinstance(idx, Value) and not idx.type.shape and idx.type.dtype.kind in "iu"

    def traced_list_store(self, node: Any, obj: list, idx: Value, value: Any) -> None:
        """``xs[i] = v`` on a list with a traced integer ``i`` (a rolled loop's
        index): eager's IndexError checked at run time, then each item is
        ``v if i hits it else the item``, of the join of both types (a kind
        that differs is path-dependent, as after a traced ``if``)."""
        from ..graphlib import arrays

        if not all(isinstance(x, (Value, bool, int, float, complex, np.generic)) for x in [*obj, value]):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a traced index into a list whose items (or the "
                                   "value written) are not all traced values or numbers")
        n = len(obj)
        self._index_check(node, idx, n, "list assignment index out of range")
        new = []
        for item, hit in zip(list(obj), self._hits(node, idx, n)):
            joined = self._list_join(node, [item, value], "a list written")
            if not hasattr(joined, "type"):   # the same static value either way
                new.append(item)
                continue
            a, b = self.convert(value, joined.type, node), self.convert(item, joined.type, node)
            out = self.emit_call(arrays.select, (hit, a, b), {}, node, "select")
            out.type = joined.type
            new.append(out)
        obj[:] = new

    def traced_list_load(self, node: Any, obj: Any, idx: Value) -> Value:
        """``xs[i]`` on a list or tuple with a traced integer ``i``: eager's
        IndexError checked at run time, the item picked by selects."""
        from ..graphlib import arrays

        items = list(obj)
        if not all(isinstance(x, (Value, bool, int, float, complex, np.generic)) for x in items):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a traced index into a Python container whose "
                                   "items are not all traced values or numbers")
        if not items:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{type(obj).__name__} index out of range (eager "
                                   "raises IndexError)")
        joined = self._list_join(node, items, f"a {type(obj).__name__} read")
        self._index_check(node, idx, len(items), f"{type(obj).__name__} index out of range")
        if not hasattr(joined, "type"):
            return items[0]
        values = [self.convert(x, joined.type, node) for x in items]
        out = values[-1]
        for hit, v in list(zip(self._hits(node, idx, len(items)), values))[:-1][::-1]:
            out = self.emit_call(arrays.select, (hit, v, out), {}, node, "select")
            out.type = joined.type
        return out


def _dead_after_call(frame: Any, call: Any) -> frozenset:
    """The variables of ``frame`` no one reads after its current statement
    (``frame.calling``), when that statement is ``targets = call`` (names
    only) or ``return call``: nothing else of it runs after the call. A
    variable a nested function, lambda, class or generator expression reads
    is never dead (it may read the cell later)."""
    import gast

    from .localclass import read_by_other_scopes

    stmt = getattr(frame, "calling", None)
    if not isinstance(stmt, (gast.Assign, gast.Return)) or stmt.value is not call:
        return frozenset()
    # (a cell a comprehension alone reads is read only while the comprehension runs)
    cells = {n for n in frame.unit.cellvars if read_by_other_scopes(frame.unit.tree, n)}
    names = {n for n in frame.env if n.isidentifier()} - cells
    if isinstance(stmt, gast.Return):
        return frozenset(names)
    targets: set[str] = set()
    stack = list(stmt.targets)
    while stack:
        t = stack.pop()
        if isinstance(t, gast.Name):
            targets.add(t.id)
        elif isinstance(t, (gast.Tuple, gast.List)):
            stack.extend(t.elts)
        else:
            return frozenset()
    try:
        live = frame.unit.ssa.live_out(stmt)
    except Exception:  # noqa: BLE001 - a statement the unit's CFG does not hold: nothing is dead
        return frozenset()
    return frozenset(n for n in names if n in targets or n not in live)
