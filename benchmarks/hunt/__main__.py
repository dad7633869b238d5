"""The hunt corpus: per category, programs / one graph / eager-equivalent / MISMATCH.

Run from the repository root:

    .venv/bin/python -m benchmarks.hunt              # Markdown tables
    .venv/bin/python -m benchmarks.hunt --programs   # also one line per program
    .venv/bin/python -m benchmarks.hunt --json F     # also every outcome as JSON
    .venv/bin/python -m benchmarks.hunt -k numpy     # only programs whose category or name contains it

Each program runs eagerly and through ``to_static(fn, full_graph=False)`` on
each input set (or its sequence of calls, state changed between them) and is
compared as ``tests/helpers.py`` compares. *MISMATCH*: programs whose
converted result differs from eager (a compiler bug). Exit status 1 when a
program not in ``registry.XFAIL`` / ``HANGS`` differs.
"""

import sys

from benchmarks.corpus16.__main__ import main

from .registry import HUNT

if __name__ == "__main__":
    sys.exit(main(registry=HUNT, prog="python -m benchmarks.hunt", description=__doc__.splitlines()[0],
                  mismatch=True))
