"""Imported only by ``test_imports.relative_import_late``, inside the function
(a module not imported yet when the converted function first runs)."""

LOADS: list = []
LOADS.append("loaded")
SCALE = 3.0
