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
    return isinstance(x, (Value, bool, int, float, complex, str, bytes, type(None), np.generic, np.ndarray, jax.Array))


class _Log:
    """The containers written inside one traced branch: id -> (object, snapshot)."""

    def __init__(self, depth: int):
        self.depth = depth
        self.saved: dict[int, tuple[Any, Any]] = {}


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
    def log_container_write(self, obj: Any, created: int) -> bool:
        """A write into ``obj`` (made at traced depth ``created``) from a deeper
        traced depth: allowed when ``obj`` is a list or dict and every traced
        level in between is a branch that logs its writes; the contents are
        then snapshotted in each of those branches (at its first write)."""
        if type(obj) not in JOINABLE:
            return False
        logs = {log.depth: log for log in self.container_logs}
        levels = range(created + 1, self.traced_depth + 1)
        if not levels or any(d not in logs for d in levels):
            return False
        for d in levels:
            saved = logs[d].saved
            if id(obj) not in saved:
                saved[id(obj)] = (obj, self.contents(obj))
        return True

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
        names = [k for k, v in self.frame.env.items() if v is obj and not k.startswith("<")]
        where = f" '{names[0]}'" if names else ""
        return f"the {type(obj).__name__}{where}"

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
        if entry is not None and entry[0] != self.traced_depth and not self.log_container_write(obj, entry[0]):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{self.container_label(obj)} is written under a "
                                   "traced condition inside a construct whose writes are not joined", "if")
        self.set_contents(obj, joined)

    def no_container_writes(self, log: _Log, outcome: Any, node: Any) -> None:
        """A branch that returns, breaks or continues after writing a container
        from outside it: not joined (the contents would have to follow the
        exit); it falls back."""
        if log.saved and outcome is not None:
            obj = next(iter(log.saved.values()))[0]
            raise self.graph_break(FallbackCode.EARLY_EXIT, outcome[1] or node, f"`{outcome[0]}` under a traced "
                                   f"condition after writing {self.container_label(obj)}", outcome[0])
