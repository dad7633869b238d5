"""Differential fuzzing, bounded: random programs, eager vs ``to_static``.

A fixed campaign seed, so the programs are the same on every run. Each
program (tests/fuzz/generator.py) runs eagerly and converted
(``full_graph=False``) on 2-3 input sets, or on a sequence of 4-7 calls with
the caller's state changed between them (about half of the programs have
extensions: module, object, closure and config state, fresh config arguments,
64-bit data, NumPy-kind introspection, ``del``, dict order, effects and
traced Python scalars; tests/fuzz/extensions.py); values (exact dtypes and
leaf kinds, dict key order, 64-bit floats to 64-bit precision), printed
output, exception type and message, arguments and state after every call must
be equal. A failure prints the program seed, the
difference, and the whole program with its inputs (runnable on its own:
save it and run it with python). The long campaign is
``benchmarks/fuzz_long.py`` (docs/fuzzing.md).
"""

from __future__ import annotations

import collections
import re
import time

import pytest

from fuzz.extensions import EXTENSIONS
from fuzz.generator import generate, program_seed, run_program

pytestmark = pytest.mark.slow   # minutes: deselected by -m "not slow"

CAMPAIGN_SEED = 1
COUNT = 120

# Failures of known, reported ast2graph bugs that the bounded campaign hits:
# name -> a regular expression searched in the failure detail (the first line
# names the input set and the difference; a verifier crash has a second line
# "[with AST2GRAPH_CHECKS=0: ok: ...]" when the results are right without the
# verifier). A match is an xfail, not a pass. Each entry gets a comment line
# "# KNOWN BUG: <one line>"; fix the bug and delete the entry. Empty: the
# bounded campaign currently passes as it is (the bugs found so far are listed
# in docs/fuzzing.md).
KNOWN_BUGS: dict[str, str] = {}


def known_bug(detail: str) -> str | None:
    for name, pattern in KNOWN_BUGS.items():
        if re.search(pattern, detail):
            return name
    return None


_STATS = {"programs": 0, "one_graph": 0, "applicable": 0, "known": 0, "seconds": 0.0,
          "ext_one_graph": 0, "ext_applicable": 0}
_EXTENSIONS: collections.Counter = collections.Counter()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz_programs")


@pytest.mark.parametrize("index", range(COUNT))
def test_fuzz_program(index, workdir):
    seed = program_seed(CAMPAIGN_SEED, index)
    program = generate(seed)
    start = time.perf_counter()
    outcome = run_program(program, workdir)
    _STATS["seconds"] += time.perf_counter() - start
    _STATS["programs"] += 1
    _EXTENSIONS.update(program.extensions)
    if outcome.one_graph is not None:
        prefix = "ext_" if program.extensions else ""      # the classic programs' share is the one asserted
        _STATS[prefix + "applicable"] += 1
        _STATS[prefix + "one_graph"] += outcome.one_graph
    if outcome.status == "ill-conditioned":
        pytest.skip(f"eager itself is ill-conditioned on these inputs, program seed {seed}")
    if outcome.status != "ok":
        name = known_bug(outcome.detail)
        if name is not None:
            _STATS["known"] += 1
            pytest.xfail(f"known bug ({name}), program seed {seed}")
        pytest.fail(outcome.report(), pytrace=False)


def test_fuzz_summary(capsys):
    """Prints the one-graph share of the bounded campaign (run with -s to see it)."""
    if _STATS["programs"] < COUNT:
        pytest.skip("runs after the whole bounded campaign")
    share = 100.0 * _STATS["one_graph"] / max(_STATS["applicable"], 1)
    ext_share = 100.0 * _STATS["ext_one_graph"] / max(_STATS["ext_applicable"], 1)
    with capsys.disabled():
        print(f"\nfuzz: {_STATS['programs']} programs in {_STATS['seconds']:.1f} s, "
              f"one graph {share:.1f}% of {_STATS['applicable']} classic programs that returned "
              f"({ext_share:.1f}% of {_STATS['ext_applicable']} with extensions), "
              f"{_STATS['known']} on known bugs; extensions: "
              + ", ".join(f"{k} {v}" for k, v in sorted(_EXTENSIONS.items())))
    # Most classic programs have no fallback construct; a drop far below the
    # measured share means constructs stopped being graph. Measured 59.3% on
    # this campaign (35 of 59) once eager's kinds were required exactly: 26
    # fallbacks are a value that is a Python number on one path and an array
    # on another leaving the graph (its kind is decided per call by eager;
    # README, Status); it was about 85% when such values came back as arrays.
    assert share > 50.0
    # every extension of the generator is in the bounded campaign
    assert set(_EXTENSIONS) == set(EXTENSIONS), set(EXTENSIONS) - set(_EXTENSIONS)
