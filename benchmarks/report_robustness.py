"""Robustness of the ahead-of-time analysis over real code (issue 6).

    .venv/bin/python benchmarks/report_robustness.py            # stdlib, numpy, jax
    .venv/bin/python benchmarks/report_robustness.py --limit 200 # the first 200 files of each

Runs ``ast2graph report`` (the static mode: files are parsed, never imported)
over every ``.py`` file of the installed Python standard library, numpy and
jax, and prints per tree the files, the functions analysed, the files skipped
with a reported error (unparsable, e.g. Python 2 test data), the crashes (any
other exception: a bug of ours), and the time. Exit status 1 on any crash.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import sysconfig
import time
import traceback

from ast2graph.report import ReportError, _python_files, report_file


def trees() -> list[tuple[str, str]]:
    out = [("stdlib", sysconfig.get_paths()["stdlib"])]
    for name in ("numpy", "jax"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            out.append((name, list(spec.submodule_search_locations)[0]))
    return out


def run_tree(name: str, root: str, limit: int | None) -> dict:
    files = functions = skipped = 0
    crashes: list[str] = []
    start = time.perf_counter()
    for k, path in enumerate(_python_files(root)):
        if limit is not None and k >= limit:
            break
        files += 1
        try:
            functions += len(report_file(path))
        except ReportError:
            skipped += 1
        except Exception as e:  # noqa: BLE001 - a crash of ours: counted and shown
            crashes.append(f"{path}: {e!r}\n{traceback.format_exc(limit=3)}")
    return {"tree": name, "root": root, "files": files, "functions": functions, "skipped": skipped,
            "crashes": crashes, "seconds": time.perf_counter() - start}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None, help="files per tree (default: all)")
    args = ap.parse_args(argv)
    total_crashes = 0
    print(f"{'tree':8s} {'files':>7s} {'functions':>10s} {'skipped':>8s} {'crashes':>8s} {'time':>9s}")
    for name, root in trees():
        r = run_tree(name, root, args.limit)
        total_crashes += len(r["crashes"])
        print(f"{name:8s} {r['files']:7d} {r['functions']:10d} {r['skipped']:8d} {len(r['crashes']):8d} "
              f"{r['seconds']:8.1f}s   ({r['root']})", flush=True)
        for c in r["crashes"][:5]:
            print("  CRASH " + c)
    return 1 if total_crashes else 0


if __name__ == "__main__":
    sys.exit(main())
