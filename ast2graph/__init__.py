"""ast2graph: a Python-AST source-to-graph compiler lowering to JAX/XLA.

    from ast2graph import to_static, explain

    @to_static
    def f(x):
        if x.sum() > 0:          # a traced condition: lax.cond
            x = x * 2
        return x
"""

from .api import Explanation, RecompileWarning, StaticFunction, clear_caches, explain, to_static
from .diagnostics import (Ast2GraphError, ConversionError, FullGraphError, Loc,
                          LoopBoundError, NoSourceError, UnsupportedSyntaxError)
from .typeinfer.control import UnrollWarning

__all__ = [
    "Ast2GraphError", "ConversionError", "Explanation", "FullGraphError", "Loc",
    "LoopBoundError", "NoSourceError", "RecompileWarning", "StaticFunction", "UnsupportedSyntaxError", "UnrollWarning", "clear_caches",
    "explain", "to_static",
]
__version__ = "0.1.0"
