"""Containers: dict order, comprehensions, generators, sorting and ties, string keys, *args/**kwargs."""

from __future__ import annotations

import collections
import heapq
import itertools

import jax.numpy as jnp
import numpy as np

from .registry import program

SCORES = jnp.array([0.3, 0.9, 0.3, 0.1, 0.9])
NAMES = ["ann", "bob", "cat", "dan", "eve"]


@program("containers", (SCORES,), (jnp.array([1.0, 1.0, 1.0, 1.0, 1.0]),))
def leaderboard(scores):
    table = {name: float(s) for name, s in zip(NAMES, scores)}
    ranked = sorted(table.items(), key=lambda kv: kv[1], reverse=True)
    best = max(table, key=table.get)
    return ranked[:3], best, list(table)


@program("containers", (SCORES,), (jnp.array([0.5, 0.1, 0.7, 0.2, 0.0]),))
def bucket_by_threshold(scores):
    buckets = {}
    for name, s in zip(NAMES, scores):
        if s > 0.5:
            key = "high"
        elif s > 0.2:
            key = "mid"
        else:
            key = "low"
        buckets.setdefault(key, []).append(name)
    return buckets


@program("containers", (jnp.array([3, 1, 3, 2, 1, 3]),), (jnp.array([5, 5, 5]),))
def counter_of_labels(labels):
    c = collections.Counter(int(v) for v in labels)
    common = c.most_common(2)
    return dict(c), common, sorted(c)


@program("containers", (jnp.array([[0.0, 4.0, 1.0], [4.0, 0.0, 2.0], [1.0, 2.0, 0.0]]), 0),
         (jnp.array([[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [5.0, 1.0, 0.0]]), 2))
def dijkstra_heapq(W, src):
    n = W.shape[0]
    dist = [float("inf")] * n
    dist[src] = 0.0
    heap = [(0.0, src)]
    visited = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in visited:
            continue
        visited.add(u)
        for v in range(n):
            w = float(W[u, v])
            if v != u and d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(heap, (dist[v], v))
    return dist


def running_means(xs):
    total = 0.0
    for i, x in enumerate(xs, start=1):
        total += x
        yield total / i


@program("containers", (jnp.array([1.0, 2.0, 3.0, 10.0]),), (jnp.array([-1.0]),))
def generator_running_means(x):
    means = list(running_means(x))
    first_big = next((i for i, m in enumerate(means) if m > 2), None)
    return means, first_big


@program("containers", (jnp.arange(6.0).reshape(3, 2),), (jnp.ones((2, 2)),))
def nested_comprehensions(M):
    rows = [[float(v) for v in row] for row in M]
    flat = [v for row in rows for v in row if v % 2 == 0]
    pairs = {(i, j): rows[i][j] for i in range(len(rows)) for j in range(len(rows[0])) if i <= j}
    return rows, flat, pairs, sum(flat)


def combine(*arrays, weights=None, **opts):
    if weights is None:
        weights = [1.0] * len(arrays)
    out = sum(w * a for w, a in zip(weights, arrays))
    if opts.get("normalize"):
        out = out / sum(weights)
    return out, sorted(opts)


@program("containers", (jnp.ones(2), jnp.arange(2.0), None, False), (jnp.ones(2), jnp.arange(2.0), [0.5, 2.0], True))
def star_args_kwargs(a, b, weights, normalize):
    r1 = combine(a, b, weights=weights, normalize=normalize, tag="x")
    r2 = combine(*[a, b, a])
    return r1, r2


@program("containers", (jnp.array([3.0, 1.0, 2.0]),), (jnp.array([2.0, 2.0, 1.0]),))
def sort_records_with_ties(x):
    recs = [{"id": i, "score": float(v), "name": f"item{i}"} for i, v in enumerate(x)]
    recs.sort(key=lambda r: (-r["score"], r["name"]))
    order = [r["id"] for r in recs]
    asc = sorted(range(len(x)), key=lambda i: float(x[i]))
    return order, asc, recs[0]


@program("containers", (jnp.array([1.0, 5.0, 2.0, 8.0, 3.0]), 2), (jnp.array([4.0, 4.0, 4.0]), 3))
def sliding_window_max(x, k):
    dq = collections.deque()
    out = []
    for i, v in enumerate(x):
        while dq and x[dq[-1]] <= v:
            dq.pop()
        dq.append(i)
        if dq[0] <= i - k:
            dq.popleft()
        if i >= k - 1:
            out.append(x[dq[0]])
    return jnp.stack(out), list(dq)


@program("containers", (jnp.array([1, 2, 3, 4]),), (jnp.array([0, 0]),))
def itertools_pipeline(x):
    vals = [int(v) for v in x]
    acc = list(itertools.accumulate(vals))
    pairs = list(itertools.combinations(vals, 2))
    groups = {k: len(list(g)) for k, g in itertools.groupby(sorted(v % 2 for v in vals))}
    chunks = [list(c) for c in itertools.zip_longest(*[iter(vals)] * 3, fillvalue=-1)]
    return acc, pairs, groups, chunks


@program("containers", (jnp.array([0.2, 0.8]), {"lr": 0.1, "decay": 0.5}),
         (jnp.array([0.2, 0.8]), {"decay": 0.5, "lr": 0.1, "extra": 3}))
def config_dict_order(x, cfg):
    out = {}
    for k, v in cfg.items():
        out[k.upper()] = x * v
    merged = {**cfg, "lr": cfg["lr"] * 2}
    return out, merged, list(merged)


@program("containers", (jnp.array([1.0, -2.0, 3.0]),), (jnp.array([0.0, 0.0, 0.0]),))
def any_all_generators(x):
    has_neg = any(v < 0 for v in x)
    all_pos = all(v > 0 for v in x)
    n_nonzero = sum(1 for v in x if v != 0)
    first = next(iter(x))
    return has_neg, all_pos, n_nonzero, first, min(x, key=lambda v: abs(v))


@program("containers", (jnp.array([[1.0, 2.0], [3.0, 4.0]]),), (jnp.zeros((2, 2)),))
def tolist_roundtrip(M):
    lst = M.tolist()
    lst[0][0] = 99.0
    back = jnp.array(lst)
    rows = list(M)
    return lst, back, len(rows), rows[1]


class Vocab:
    def __init__(self, words):
        self.itos = list(words)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def __getitem__(self, i):
        return self.itos[i]

    def __contains__(self, w):
        return w in self.stoi


@program("containers", (jnp.array([2, 0, 1, 1]),), (jnp.array([3, 3]),))
def decode_with_vocab(ids):
    v = Vocab(["<s>", "hi", "there", "</s>"])
    words = []
    for i in ids:
        w = v[int(i)]
        if w == "</s>":
            break
        if words and words[-1] == w:
            continue
        words.append(w)
    return " ".join(words), len(v), "hi" in v, [w in v for w in ("x", "there")]
