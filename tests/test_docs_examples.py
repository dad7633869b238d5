"""Every Python example of docs/fallback-codes.md produces the codes it
claims (issue 17): each ```python block is preceded by an HTML comment
``<!-- check: CALL -->`` naming the call that runs it (``f(np.arange(4.0))``),
or ``<!-- check: skip: REASON -->`` naming the test that covers what it
shows. The block is written to a file and imported (so that it has source),
the call is compared with eager (tests/helpers.py), and every ``# A2Gnnn``
comment must be a fallback site of that code on that line; a block whose
comments claim no code ("one graph") must be one graph. A generator
function's items are compared (``list()`` of each). The report (which
reads the file without importing it, before the test imports it) lists
every claimed code on its line, as an always or an input-dependent site."""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import warnings
from pathlib import Path

import pytest

from ast2graph import FullGraphError, explain, to_static
from ast2graph.report import report_path
from tests.helpers import check

DOC = Path(__file__).resolve().parent.parent / "docs" / "fallback-codes.md"
_BLOCK = re.compile(r"(?:<!-- check: (?P<check>.*?) -->\n)?```python\n(?P<code>.*?)```", re.S)
_CLAIM = re.compile(r"#\s*(A2G\d{3})\b")   # a comment that starts with the code claims it
_PRELUDE = "import numpy as np\nimport jax.numpy as jnp\n"


def _examples() -> list:
    text = DOC.read_text()
    out = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        out.append(pytest.param(m.group("check"), m.group("code"), id=f"line{line}"))
    return out


def _claims(code: str) -> dict[int, set[str]]:
    """Line (of the written module) -> the codes its comment claims."""
    offset = _PRELUDE.count("\n")
    claims: dict[int, set[str]] = {}
    for n, text in enumerate(code.splitlines(), 1):
        for c in _CLAIM.findall(text):
            claims.setdefault(n + offset, set()).add(c)
    return claims


def _sites_of_raising_call(fn, args) -> set[tuple[int, str]]:
    """Eager raises: the first site, from ``full_graph=True``'s error."""
    with pytest.raises(FullGraphError) as info:
        to_static(fn, full_graph=True)(*args)
    message = str(info.value)
    code = re.search(r"\b(A2G\d{3})\b", message).group(1)
    line = int(re.search(r'line (\d+)', message).group(1))
    return {(line, code)}


@pytest.mark.parametrize("how, code", _examples())
def test_doc_example_produces_its_codes(how, code, tmp_path, monkeypatch):
    assert how, "a ```python example of docs/fallback-codes.md without <!-- check: CALL --> before it"
    if how.startswith("skip:"):
        assert re.search(r"tests/\S+\.py", how), "a skipped example names the test that covers it"
        return
    name = f"doc_example_{abs(hash(code)) % 10**8}"
    path = tmp_path / f"{name}.py"
    path.write_text(_PRELUDE + code)
    reported = {(s.site.loc.line, s.site.code.code) for r in report_path(str(path)) for s in r.sites}
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        call = re.fullmatch(r"(\w+)\((.*)\)", how.strip(), re.S)
        fn = getattr(module, call.group(1))
        args = eval(f"({call.group(2)},)", dict(vars(module)))   # noqa: S307 - the doc's own example call
        claims = _claims(code)
        if inspect.isgeneratorfunction(fn):   # runs eagerly as a whole: the same items
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                static = to_static(fn)
                e = explain(static)(*args)
            assert [str(v) for v in e.result] == [str(v) for v in fn(*args)]
            found = {(s.loc.line, s.code.code) for s in e.fallback_sites}
            assert {(ln, c) for ln, cs in claims.items() for c in cs} <= found, (claims, found)
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            explanation = check(fn, *args, full_graph=False)
            if explanation is None:   # eager raises: the converted call raised the same
                found = _sites_of_raising_call(fn, args)
                first = min(claims) if claims else None
                assert first is not None and (first, *claims[first]) in {(ln, c) for ln, c in found}, (claims, found)
                return
        found = {(s.loc.line, s.code.code) for s in explanation.fallback_sites if s.loc.file == str(path)}
        for line, codes in claims.items():
            for c in codes:
                assert (line, c) in found, f"claimed {c} on line {line}; the run gave {sorted(found)}\n{explanation}"
                assert (line, c) in reported, f"claimed {c} on line {line}; the report gave {sorted(reported)}"
        if not claims:
            assert not explanation.fallback_sites, f"claimed one graph\n{explanation}"
    finally:
        sys.modules.pop(name, None)
