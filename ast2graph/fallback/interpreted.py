"""Interpreted nodes: a statement that runs as Python.

Requires: the unit (tree, scope, globals, closure) and the statement.
Produces: ``InterpretedNode.run(env)``: the original statement, compiled by
Python with the user's file name and line numbers (so a traceback points at
the user's line), with explicit inputs (the bound variables it may read) and
outputs (every local it leaves bound); a ``return`` inside it returns from
the converted function.
Invariants: the statement runs exactly as in eager Python: same globals dict,
same closure values, same objects (arguments are passed, never copied).
The converted function's cell variables (the ones its nested functions
capture) are real cells, one set per call (``CELLS`` in the environment): a
function defined by an interpreted statement closes over them, so it sees
the variable's later values, whichever segment assigns them, as in eager
Python ("one cell, one value").
"""

from __future__ import annotations

import ast
import types
from typing import Any, TYPE_CHECKING

import gast

if TYPE_CHECKING:   # (annotations only: the compiler's unit, a layer above)
    from ..typeinfer.state import Unit


_RESULT = "__a2g_locals"
CELLS = "<cells>"   # environment key of the call's cells: {name: cell}; not an identifier, never a variable


def call_cells(env: dict[str, Any], names: tuple[str, ...]) -> dict[str, types.CellType]:
    """The cells of this call's cell variables, holding their current values."""
    cells = env.get(CELLS)
    if cells is None:
        cells = env[CELLS] = {n: types.CellType() for n in names}
    for n, cell in cells.items():
        if n in env:
            cell.cell_contents = env[n]
        else:
            try:
                del cell.cell_contents
            except ValueError:
                pass
    return cells


class _ReturnRewriter(ast.NodeTransformer):
    """``return v`` → ``return (True, v)``, outside nested scopes."""

    def visit_Return(self, node: ast.Return) -> ast.Return:
        value = node.value or ast.Constant(None)
        new = ast.Return(ast.Tuple([ast.Constant(True), value], ast.Load()))
        return ast.copy_location(new, node)

    def visit_FunctionDef(self, node: ast.AST) -> ast.AST:
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef


def requalified(code: types.CodeType, wrapper: str, qualname: str) -> types.CodeType:
    """``code`` (compiled inside a generated function named ``wrapper``) with
    the qualified names of the functions and classes defined in it as they
    are in the user's program: ``qualname.<locals>.inner``, not
    ``wrapper.<locals>.inner`` (a class body holds its ``__qualname__`` as a
    constant)."""
    prefix = wrapper + ".<locals>."

    def fix(c: Any) -> Any:
        if isinstance(c, types.CodeType):
            name = c.co_qualname
            return c.replace(co_consts=tuple(fix(k) for k in c.co_consts),
                             co_qualname=qualname + name[len(wrapper):] if name.startswith(prefix) else name)
        if isinstance(c, str) and c.startswith(prefix):
            return qualname + c[len(wrapper):]
        return c

    return code.replace(co_consts=tuple(fix(k) for k in code.co_consts))


class InterpretedNode:
    """One statement of a converted function that runs in Python."""

    def __init__(self, unit: Unit, stmt: Any):
        self.unit = unit
        self.stmt = stmt
        self._compiled: dict[frozenset, types.CodeType] = {}

    def _build(self, inputs: tuple[str, ...], cellvars: tuple[str, ...]) -> types.CodeType:
        unit = self.unit
        stmt = _ReturnRewriter().visit(gast.gast_to_ast(self.stmt))
        line = getattr(self.stmt, "lineno", 1)
        body: list[ast.stmt] = []
        scope = unit.scope
        if scope.declared_global:
            body.append(ast.Global(sorted(scope.declared_global)))
        if cellvars:
            body.append(ast.Nonlocal(list(cellvars)))
        locals_ = (set(scope.params) | set(scope.locals)) - set(inputs) - set(scope.declared_global) - set(cellvars)
        if locals_:
            # Make every local of the original function local here too, so an
            # unbound one raises UnboundLocalError as it does in eager Python.
            names = [ast.Name(n, ast.Store()) for n in sorted(locals_)]
            body.append(ast.If(ast.Constant(False), [ast.Assign(names, ast.Constant(None))], []))
        body.append(stmt)
        body.append(ast.Assign([ast.Name(_RESULT, ast.Store())],
                               ast.Call(ast.Name("dict", ast.Load()), [ast.Call(ast.Name("locals", ast.Load()), [], [])], [])))
        body.append(ast.Return(ast.Tuple([ast.Constant(False), ast.Name(_RESULT, ast.Load())], ast.Load())))
        args = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in inputs], vararg=None, kwonlyargs=[],
                             kw_defaults=[], kwarg=None, defaults=[])
        fn = ast.FunctionDef(f"<ast2graph interpreted line {line}>", args, body, [], None, None)
        top: ast.stmt = fn
        if cellvars:   # the cell variables become free variables of fn: cells of an enclosing function
            binds = [ast.Assign([ast.Name(n, ast.Store()) for n in cellvars], ast.Constant(None))]
            top = ast.FunctionDef("<ast2graph cells>", ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                  kw_defaults=[], kwarg=None, defaults=[]), binds + [fn], [], None, None)
        for node in ast.walk(top):
            if not hasattr(node, "lineno") or node.lineno is None:
                node.lineno, node.col_offset = line, 0
                node.end_lineno, node.end_col_offset = line, 0
        module = ast.fix_missing_locations(ast.Module([top], []))
        namespace: dict[str, Any] = {}
        code = compile(module, unit.filename, "exec", flags=unit.future_flags, dont_inherit=True)
        exec(code, namespace)  # noqa: S102 - the user's own statement
        code, wrapper = namespace[top.name].__code__, fn.name
        if cellvars:
            code = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == fn.name)
            wrapper = f"{top.name}.<locals>.{fn.name}"
        code = requalified(code, wrapper, unit.qualname)   # nested defs: f.<locals>.g, as eager
        # a traceback through the statement names the user's function, as eager's does
        return code.replace(co_name=unit.qualname.rsplit(".", 1)[-1], co_qualname=unit.qualname)

    def run(self, env: dict[str, Any]) -> tuple[bool, Any]:
        """Run the statement; (True, value) if it returned, else (False, None) with env updated."""
        closure = {}
        for name, cell in self.unit.closure.items():
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
        cellvars = self.unit.cellvars
        values = {**closure, **env}
        values.pop(CELLS, None)
        for n in cellvars:
            values.pop(n, None)
        inputs = tuple(sorted(values))
        code = self._compiled.get(frozenset(inputs))
        if code is None:
            code = self._compiled[frozenset(inputs)] = self._build(inputs, cellvars)
        cells = call_cells(env, cellvars) if cellvars else {}
        fn = types.FunctionType(code, self.unit.globals, code.co_name, None,
                                tuple(cells[n] for n in code.co_freevars) if cellvars else None)
        returned, out = fn(*(values[n] for n in inputs))
        if returned:
            return True, out
        out.pop(_RESULT, None)
        for name in list(env):
            if name not in out and name != CELLS:
                del env[name]
        for name, value in out.items():
            if name not in closure or name in env:
                env[name] = value
        return False, None
