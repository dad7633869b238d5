"""Differences and hangs the hunt corpus (benchmarks/hunt) found, minimised; each compared with eager."""

import jax.numpy as jnp

from helpers import check


def test_while_true_mutating_a_list_with_a_traced_break_falls_back_after_max_unroll():
    # a bubble sort: `while True:` whose only exit is a traced `break`, swapping list items; it
    # never tried to roll (it mutates the list), so it unrolled up to static_iteration_limit
    # (100 000) iterations, each nested under the last one's traced exit: conversion did not finish
    def bubble_sort(x):
        a = [float(v) for v in x]
        swaps = 0
        while True:
            swapped = False
            for i in range(len(a) - 1):
                if a[i] > a[i + 1]:
                    a[i], a[i + 1] = a[i + 1], a[i]
                    swapped = True
                    swaps += 1
            if not swapped:
                break
        return a, swaps

    for x in (jnp.array([3.0, 1.0, 2.0]), jnp.array([1.0, 2.0, 3.0])):
        e = check(bubble_sort, x, full_graph=False, max_unroll=16)
        assert [s.code.code for s in e.fallback_sites] == ["A2G007"], e.fallback_sites
