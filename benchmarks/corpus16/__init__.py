"""The issue-16 corpus: realistic programs of the kinds users decorate, by category.

``python -m benchmarks.corpus16`` prints the single-graph rate per category and
the fallbacks per reason (Markdown); ``tests/test_corpus16.py`` compares every
program with eager on every input set. See ``registry.py`` for the layout.
"""

from .registry import CATEGORIES, PROGRAMS, XFAIL, Program, load_all

__all__ = ["CATEGORIES", "PROGRAMS", "XFAIL", "Program", "load_all"]
