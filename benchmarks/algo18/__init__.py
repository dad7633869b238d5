"""h-algo18's corpus: real-world control-flow programs (tutorials, textbooks, projects), by category.

``python -m benchmarks.algo18`` prints, per category, programs / one graph /
eager-equivalent / MISMATCH, and the fallbacks per reason. It shares
corpus16's registry and runner (``benchmarks/corpus16``).
"""

from .registry import ALGO18, CATEGORIES, HANGS, XFAIL, load_all

__all__ = ["ALGO18", "CATEGORIES", "HANGS", "XFAIL", "load_all"]
