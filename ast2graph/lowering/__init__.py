"""Lowering of the graph IR to a JAX function (see ``codegen``)."""

from .codegen import Lowered, lower_graph, register_lowering

__all__ = ["Lowered", "lower_graph", "register_lowering"]
