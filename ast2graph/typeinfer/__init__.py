"""Type inference: abstract interpretation of a unit for one call signature.

See ``interpreter`` (expressions, statements), ``control`` (branches, loops,
fixpoints), ``calls`` (call sites), ``lattice`` (abstract values) and
``specialize`` (the entry point).
"""

from .specialize import Specialization, flatten_inputs, specialize
from .state import Options, Unit, unit_of_function

__all__ = ["Options", "Specialization", "Unit", "flatten_inputs", "specialize", "unit_of_function"]
