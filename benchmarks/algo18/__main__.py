"""h-algo18's corpus: per category, programs / one graph / eager-equivalent / MISMATCH.

Run from the repository root:

    .venv/bin/python -m benchmarks.algo18              # Markdown tables
    .venv/bin/python -m benchmarks.algo18 --programs   # also one line per program
    .venv/bin/python -m benchmarks.algo18 -k linalg    # only programs whose category or name contains it

Each program runs eagerly and through ``to_static(fn, full_graph=False)`` on
each input set and is compared as ``tests/helpers.py`` compares. Exit status 1
when a program not in ``registry.XFAIL`` / ``HANGS`` differs.
"""

import sys

from benchmarks.corpus16.__main__ import main

from .registry import ALGO18

if __name__ == "__main__":
    sys.exit(main(registry=ALGO18, prog="python -m benchmarks.algo18", description=__doc__.splitlines()[0],
                  mismatch=True))
