"""The long differential-fuzzing campaign (docs/fuzzing.md).

    .venv/bin/python benchmarks/fuzz_long.py --count 10000 --seed 7 --out fuzz-failures

Generates ``--count`` random programs (tests/fuzz/generator.py), runs each
eagerly and with ``to_static`` on its calls (2-3 input sets; 4-7 calls with
the caller's state changed between them, for programs with the state, config,
effect or 64-bit extensions), prints progress, and at the end the number of
mismatches (a different value, printed output or exception),
crashes (an exception raised by ast2graph itself, IR verifier failures
included: AST2GRAPH_CHECKS=1 as in the test suite), time-outs and the share of
programs that ran as one graph. Every failing program is written to ``--out``
as a runnable file (program, inputs and the difference in a header comment).
Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]   # this tree's ast2graph, not an installed copy


class ProgramTimeout(BaseException):   # not caught by the program's own `except Exception`
    pass


def _alarm(signum, frame):
    raise ProgramTimeout()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10000, help="programs to run (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="campaign seed; program i has seed SEED*1000000+i")
    ap.add_argument("--start", type=int, default=0, help="first program index (to resume a campaign)")
    ap.add_argument("--out", default="fuzz-failures", help="directory for failing programs (default fuzz-failures)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per program before it counts as a time-out")
    ap.add_argument("--progress", type=int, default=100, help="print progress every N programs")
    ap.add_argument("--no-checks", action="store_true", help="do not run the IR verifier (AST2GRAPH_CHECKS=0)")
    ap.add_argument("--extensions", default="drawn",
                    help="the generator's extensions (tests/fuzz/extensions.py): 'drawn' (default: half of the "
                         "programs have some, drawn from the seed), 'none' (the classic programs only), 'all', "
                         "or a comma-separated list such as state,wide")
    args = ap.parse_args(argv)
    extensions = {"drawn": None, "none": set(), "all": "all"}.get(args.extensions)
    if extensions is None and args.extensions != "drawn":
        extensions = set(args.extensions.split(","))

    os.environ["AST2GRAPH_CHECKS"] = "0" if args.no_checks else "1"
    import jax

    from fuzz.generator import Outcome, generate, program_seed, run_program

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="a2g_fuzz_"))
    signal.signal(signal.SIGALRM, _alarm)

    counts: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    features: collections.Counter = collections.Counter()
    codes: collections.Counter = collections.Counter()
    one_graph = applicable = 0
    failures: list[Outcome] = []
    started = time.perf_counter()

    def progress(done: int) -> None:
        rate = done / max(time.perf_counter() - started, 1e-9)
        share = 100.0 * one_graph / max(applicable, 1)
        print(f"[{done}/{args.count}] {rate:.1f} programs/s  mismatches {counts['mismatch']}  "
              f"crashes {counts['crash']}  time-outs {counts['timeout']}  one graph {share:.1f}%", flush=True)

    for done, index in enumerate(range(args.start, args.start + args.count), 1):
        seed = program_seed(args.seed, index)
        program = generate(seed, extensions)
        signal.setitimer(signal.ITIMER_REAL, args.timeout)
        try:
            outcome = run_program(program, workdir)
        except ProgramTimeout:
            outcome = Outcome(seed, "timeout", f"no result within {args.timeout} s", program=program)
        except Exception as e:  # noqa: BLE001 - the campaign goes on
            outcome = Outcome(seed, "crash", f"harness error: {e!r}", program=program)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        counts[outcome.status] += 1
        if outcome.status != "ok":
            kinds[outcome.kind] += 1
        features.update(program.features)
        codes.update(outcome.fallback_codes)
        if outcome.one_graph is not None:
            applicable += 1
            one_graph += outcome.one_graph
        if outcome.status not in ("ok", "ill-conditioned"):
            failures.append(outcome)
        if outcome.status != "ok":
            path = out / f"{outcome.status}_{seed}.py"
            header = "\n".join("# " + line for line in outcome.detail.splitlines())
            path.write_text(header + "\n\n" + program.reproducer())
            first = outcome.detail.splitlines()[0] if outcome.detail else ""
            ext = ",".join(sorted(program.extensions)) or "classic"
            print(f"  {outcome.status.upper()} seed {seed} [{ext}]: {first[:200]}  -> {path}", flush=True)
        if done % args.progress == 0:
            progress(done)
        if done % 250 == 0:
            jax.clear_caches()   # keeps memory flat over thousands of programs

    elapsed = time.perf_counter() - started
    share = 100.0 * one_graph / max(applicable, 1)
    total = sum(counts.values())
    print()
    print(f"programs     {total} (seed {args.seed}, indices {args.start}..{args.start + args.count - 1})")
    print(f"time         {elapsed:.0f} s ({total / max(elapsed, 1e-9):.1f} programs/s)")
    print(f"ok           {counts['ok']}")
    print(f"mismatches   {counts['mismatch']}")
    verifier_only = sum(1 for f in failures if f.unchecked == "ok")
    print(f"crashes      {counts['crash']} ({verifier_only} IR-verifier crashes whose results are right "
          f"with the verifier off)")
    print(f"time-outs    {counts['timeout']}")
    print(f"ill-conditioned {counts['ill-conditioned']} (eager itself moves beyond the tolerance under a 1e-6 "
          "input nudge, or its float32 result is beyond it from the float64 run of the same program: "
          "float32 recurrences that amplify rounding; not counted as passes)")
    print(f"one graph    {share:.1f}% ({one_graph} of {applicable} programs whose calls all returned)")
    if kinds:
        print("what differed first: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"fallback codes seen: {dict(sorted(codes.items()))}")
    print("constructs generated (programs containing each): "
          + ", ".join(f"{k} {v}" for k, v in sorted(features.items())))
    if failures:
        print(f"failing programs written to {out}/")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
