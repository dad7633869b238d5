"""The runtime of a converted function's calls.

The layer above the compiler (``typeinfer``, ``lowering``) and below the
public face (``api``): ``function.StaticFunction`` (the converted function
object) hands a ``state.FunctionState`` (declared fields) to the block
executor (``block.Block``), the plans it runs (``plans``: compiled segments,
interpreted statements; Python control flow is ``fallback.control``), the
warm-call fast path (``fastpath``), ``jax.jit`` options (``jit_options``) and
the export (``export``). Nothing here is imported by the compiler's stages.
"""
