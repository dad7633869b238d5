import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# The verifier runs after every specialisation in tests.
os.environ.setdefault("AST2GRAPH_CHECKS", "1")
sys.path.insert(0, os.path.dirname(__file__))

# JAX's persistent compilation cache, on by default (ast2graph/cache.py), in a
# folder of this run: the tests never write into the user's home; their
# subprocesses inherit it
_CACHE = tempfile.mkdtemp(prefix="a2g-test-cache-")
os.environ["AST2GRAPH_CACHE_DIR"] = _CACHE
os.environ.pop("AST2GRAPH_NO_CACHE", None)
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

# `pytest -m "not slow"`: the tests listed in slow_tests.txt (measured, .ci/slow-tests) and
# the files with `pytestmark = pytest.mark.slow` are left out; plain `pytest` runs all
_SLOW = Path(__file__).with_name("slow_tests.txt")


# The longest files first, the short ones last to fill the gaps (longest-processing-time-first
# scheduling): with the README's `-n 2 --dist loadfile` each worker takes whole files in collection
# order, and a long file left for last kept one worker busy for minutes after the other finished.
# The corpora and the fuzzing campaign (minutes each) lead, then the files by their measured slow
# tests (slow_tests.txt), then by their number of tests. pytest-xdist would otherwise reorder files
# by their number of tests alone (`--loadscope-reorder`, on by default), which put a long file of
# five tests (the report's agreement over the examples) last: it is turned off below. A fixed
# order, the same in every worker process (pytest-xdist checks that they collect the same tests
# in the same order).
_LONG_FIRST = ("tests/test_corpus16.py", "tests/test_hunt_corpus.py", "tests/test_hunt_corpus_aliasing.py",
               "tests/test_hunt_corpus_kinds.py", "tests/test_library_corpus.py",
               "tests/test_fuzz.py", "tests/test_report_agreement.py", "tests/test_examples.py")


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):   # pytest-xdist: our order of files, not its own
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    slow = {line.strip() for line in _SLOW.read_text().splitlines() if line.strip() and not line.startswith("#")}
    weight: dict[str, list[int]] = {}   # file -> [its slow tests, its tests]
    for item in items:
        w = weight.setdefault(item.nodeid.split("::")[0], [0, 0])
        w[1] += 1
        if item.nodeid in slow:
            item.add_marker(pytest.mark.slow)
            w[0] += 1
    rank = {name: k for k, name in enumerate(_LONG_FIRST)}

    def order(item):
        file = item.nodeid.split("::")[0]
        slow_tests, tests = weight[file]
        return rank.get(file, len(rank)), -slow_tests, -tests, file

    items.sort(key=order)   # stable: a file's tests keep their order
