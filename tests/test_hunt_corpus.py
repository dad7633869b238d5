"""The hunt corpus (benchmarks/hunt): every program against eager on every input set.

Fallbacks are allowed here (``full_graph=False``); the single-graph rate is
what ``python -m benchmarks.hunt`` measures. A wrong result is not allowed: a
program that differs from eager today is listed in ``registry.XFAIL`` with the
reason (xfail, strict), one whose conversion does not finish in
``registry.HANGS`` (not run).
"""

import sys
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.hunt import CATEGORIES, HANGS, XFAIL, XFAIL_ON_SOME_CPUS, load_all  # noqa: E402
from helpers import check_program, corpus_params  # noqa: E402

pytestmark = pytest.mark.slow   # minutes: deselected by -m "not slow"

ALL = load_all()
# the corpus's first 98 programs run here, with the report's agreement on them; the later
# modules (written to find wrong results) in test_hunt_corpus_aliasing.py and
# test_hunt_corpus_kinds.py: each file runs on one worker (--dist loadfile), so the corpus is split
LATER = {"aliasing": "aliasing", "edges": "aliasing", "objects": "aliasing",
         "dtypes": "kinds", "effects": "kinds", "loops": "kinds", "kinds": "kinds", "outside": "kinds"}


def part(name: str | None) -> list:
    """The programs of the corpus whose module goes to the file ``name``
    (None: this one)."""
    return [p for p in ALL if LATER.get(p.module.rsplit(".", 1)[-1]) == name]


CORPUS = part(None)


def test_corpus_size_and_categories():
    assert len(ALL) >= 200 and len(CORPUS) >= 80
    assert {p.category for p in ALL} == set(CATEGORIES)
    assert all(p.runs >= 1 for p in ALL)
    assert sorted(p.name for p in ALL) == sorted(p.name for name in (None, "aliasing", "kinds") for p in part(name))


OUTCOMES: dict[str, dict] = {}   # what each program's run did, for the report's agreement below


@pytest.mark.parametrize("prog", corpus_params(CORPUS, HANGS, XFAIL, XFAIL_ON_SOME_CPUS))
def test_program_equals_eager(prog):
    check_program(prog, HANGS, OUTCOMES)


def test_report_agrees_with_the_run():
    """The default report lists a program exactly when it falls back at run
    time (issue 17; the table of known disagreements and the floors are in
    tests/test_report_agreement.py), on the runs the tests above made."""
    from benchmarks.report_agreement import rows
    from test_report_agreement import HUNT_PRECISION_FLOOR, HUNT_RECALL_FLOOR, check_agreement

    check_agreement(rows(OUTCOMES, {p.name for p in CORPUS}, corpus="hunt"), HUNT_RECALL_FLOOR, HUNT_PRECISION_FLOOR)
