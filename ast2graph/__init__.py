"""ast2graph: a Python-AST source-to-graph compiler lowering to JAX/XLA.

    from ast2graph import to_static, explain

    @to_static
    def f(x):
        if x.sum() > 0:          # a traced condition: lax.cond
            x = x * 2
        return x

The public names are imported on first use (PEP 562): ``import ast2graph``
and the command line's ``--help`` do not import JAX.
"""

from __future__ import annotations

import importlib
from typing import Any

# public name -> the module that defines it
_PUBLIC = {
    "Explanation": ".api", "RecompileWarning": ".api", "StaticFunction": ".api", "clear_caches": ".api",
    "explain": ".api", "to_static": ".api",
    "Ast2GraphError": ".diagnostics", "ConversionError": ".diagnostics", "FullGraphError": ".diagnostics",
    "Loc": ".diagnostics", "LoopBoundError": ".diagnostics", "NoSourceError": ".diagnostics",
    "UnsupportedSyntaxError": ".diagnostics",
    "UnrollWarning": ".typeinfer.control",
}

__all__ = sorted(_PUBLIC)
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'ast2graph' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value   # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
