"""Async: `async def` is refused by `to_static` (UnsupportedSyntaxError); a
coroutine defined and run inside a converted function runs in Python."""

import asyncio

import jax.numpy as jnp
import pytest

from ast2graph import to_static
from ast2graph.diagnostics import UnsupportedSyntaxError
from helpers import check

from .common import X, codes
from .coverage import covers


class Batches:
    """An async iterator over a few arrays."""

    def __init__(self, items):
        self.items = list(items)

    def __aiter__(self):
        self.k = 0
        return self

    async def __anext__(self):
        if self.k >= len(self.items):
            raise StopAsyncIteration
        self.k += 1
        return self.items[self.k - 1]


class Session:
    async def __aenter__(self):
        return 2.0

    async def __aexit__(self, *exc):
        return False


async def double(v):
    await asyncio.sleep(0)
    return v * 2


async def accumulate(x, batches):
    async for b in batches:
        x = x + b
    async with Session() as scale:
        x = x * scale
    return await double(x)


@covers("AsyncFunctionDef", "refused", "`to_static` of an `async def` raises UnsupportedSyntaxError")
@covers("AsyncFor", "refused", "`async for` in an `async def` given to `to_static`")
@covers("AsyncWith", "refused", "`async with` in an `async def` given to `to_static`")
@covers("Await", "refused", "`await` in an `async def` given to `to_static`")
def test_async_def_refused():
    expected = asyncio.run(accumulate(X, Batches([X, X])))   # what eager gives
    assert jnp.allclose(expected, (X * 3) * 4)
    with pytest.raises(UnsupportedSyntaxError, match="async def accumulate"):
        to_static(accumulate)


def runs_coroutine(x):
    async def pipeline(v):
        async for b in Batches([v, v * 2]):
            v = v + b
        async with Session() as scale:
            v = v * scale
        return await double(v)

    y = x + 1
    return asyncio.run(pipeline(y)) - 1


@covers("AsyncFunctionDef", "interpreted", "an `async def` inside a converted function, run by `asyncio.run`",
        code="A2G001")
@covers("AsyncFor", "interpreted", "`async for` inside a nested coroutine", code="A2G001")
@covers("AsyncWith", "interpreted", "`async with` inside a nested coroutine", code="A2G001")
@covers("Await", "interpreted", "`await` inside a nested coroutine", code="A2G001")
def test_nested_coroutine_runs_in_python():
    e = check(runs_coroutine, X, full_graph=False)
    assert codes(e)[0] == "A2G001"
