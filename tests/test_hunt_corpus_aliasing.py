"""The hunt corpus's programs of the modules aliasing, edges and objects
(benchmarks/hunt), each against eager on every input set, as in
test_hunt_corpus.py (a file of its own: each file runs on one worker).
The report's agreement is not asserted on these yet."""

import pytest

from test_hunt_corpus import HANGS, XFAIL, XFAIL_ON_SOME_CPUS, check_program, corpus_params, part

pytestmark = pytest.mark.slow   # minutes: deselected by -m "not slow"


@pytest.mark.parametrize("prog", corpus_params(part("aliasing"), HANGS, XFAIL, XFAIL_ON_SOME_CPUS))
def test_program_equals_eager(prog):
    check_program(prog, HANGS)
