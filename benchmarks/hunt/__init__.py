"""The hunt corpus: realistic eager programs nobody wrote for the compiler, by category.

``python -m benchmarks.hunt`` prints, per category, programs / one graph /
eager-equivalent / MISMATCH, and the fallbacks per reason;
``tests/test_hunt_corpus.py`` compares every program with eager on every input
set. It shares corpus16's registry and runner (``benchmarks/corpus16``).
"""

from .registry import CATEGORIES, HANGS, HUNT, XFAIL, XFAIL_ON_SOME_CPUS, load_all

__all__ = ["CATEGORIES", "HANGS", "HUNT", "XFAIL", "XFAIL_ON_SOME_CPUS", "load_all"]
