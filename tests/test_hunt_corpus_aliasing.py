"""The hunt corpus's programs of the modules aliasing, edges and objects
(benchmarks/hunt), each against eager on every input set, as in
test_hunt_corpus.py (a file of its own: each file runs on one worker).
The report's agreement on them is asserted as in test_hunt_corpus.py, on the
runs the tests here made (floors and known disagreements in
tests/test_report_agreement.py)."""

import pytest

from test_hunt_corpus import HANGS, XFAIL, XFAIL_ON_SOME_CPUS, check_program, corpus_params, part

pytestmark = pytest.mark.slow   # minutes: deselected by -m "not slow"


OUTCOMES: dict[str, dict] = {}   # what each program's run did, for the report's agreement below


@pytest.mark.parametrize("prog", corpus_params(part("aliasing"), HANGS, XFAIL, XFAIL_ON_SOME_CPUS))
def test_program_equals_eager(prog):
    check_program(prog, HANGS, OUTCOMES)


def test_report_agrees_with_the_run():
    """The default report lists a program exactly when it falls back at run
    time but for the known disagreements (issue 17; tests/test_report_agreement.py)."""
    from benchmarks.report_agreement import rows
    from test_report_agreement import HUNT_ALIASING_PRECISION_FLOOR, HUNT_ALIASING_RECALL_FLOOR, check_agreement

    check_agreement(rows(OUTCOMES, {p.name for p in part("aliasing")}, corpus="hunt"), HUNT_ALIASING_RECALL_FLOOR,
                    HUNT_ALIASING_PRECISION_FLOOR)
