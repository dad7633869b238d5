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

from benchmarks.hunt import CATEGORIES, HANGS, XFAIL, load_all  # noqa: E402
from helpers import check_program, corpus_params  # noqa: E402

pytestmark = pytest.mark.slow   # minutes: deselected by -m "not slow"

CORPUS = load_all()


def test_corpus_size_and_categories():
    assert len(CORPUS) >= 80
    assert {p.category for p in CORPUS} == set(CATEGORIES)
    assert all(p.runs >= 1 for p in CORPUS)


OUTCOMES: dict[str, dict] = {}   # what each program's run did, for the report's agreement below


@pytest.mark.parametrize("prog", corpus_params(CORPUS, HANGS, XFAIL))
def test_program_equals_eager(prog):
    check_program(prog, HANGS, OUTCOMES)


def test_report_agrees_with_the_run():
    """The default report lists a program exactly when it falls back at run
    time (issue 17; the table of known disagreements and the floors are in
    tests/test_report_agreement.py), on the runs the tests above made."""
    from benchmarks.report_agreement import rows
    from test_report_agreement import HUNT_PRECISION_FLOOR, HUNT_RECALL_FLOOR, check_agreement

    check_agreement(rows(OUTCOMES, corpus="hunt"), HUNT_RECALL_FLOOR, HUNT_PRECISION_FLOOR)
