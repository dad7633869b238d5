"""What a user sees of a converted function and of ``explain``: the one
meaning of a site's loop depth (explain, report and JSON agree: the loops of
the site's own function around its line), decisions in source order, the
reprs a notebook shows (``repr``, IPython's ``_repr_pretty_``, Jupyter's
``_repr_html_``). Every conversion is compared with eager (tests/helpers.py)."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np

from ast2graph import to_static
from ast2graph.diagnostics import Loc, loop_depth_at
from ast2graph.report import report_path
from tests.fixtures import loop_depth_sample as sample
from tests.helpers import check


def test_loop_depth_counts_the_site_s_own_function_only():
    x = np.ones(3)
    e = check(sample.nested, x, full_graph=False)
    depths = {s.loc.line: s.loop_depth for s in e.fallback_sites}
    lines = open(sample.__file__).read().splitlines()
    line_of = lambda text: next(n for n, t in enumerate(lines, 1) if text in t)   # noqa: E731
    # a loop's own header is outside it; the helper's line is in no loop of its own function
    expected = {line_of("for i in"): 0, line_of("for j in"): 1, line_of("helper(x)"): 2, line_of("np.ones(int("): 0}
    assert depths and set(depths) <= set(expected), str(e)
    for line, depth in depths.items():
        assert depth == expected[line], (line, str(e))


def test_loop_depth_is_lexical_and_excludes_the_loop_s_own_header():
    path = sample.__file__
    lines = open(path).read().splitlines()
    header = next(n for n, t in enumerate(lines, 1) if "for j in range(2)" in t)
    assert loop_depth_at(Loc(path, header, lines[header - 1].index("for"))) == 1
    assert loop_depth_at(Loc(path, header + 1, 12)) == 2
    assert loop_depth_at(Loc("<no such file>", 3, 0)) is None


def test_report_and_explain_give_one_loop_depth():
    # the report (the compiler's survey, reading the file) lists the run's sites with the run's depths
    reported = {(s.site.code.code, s.site.loc.line, s.site.loop_depth) for r in report_path(sample.__file__, "nested")
                for s in r.sites}
    e = check(sample.nested, np.ones(3), full_graph=False)
    assert reported == {(s.code.code, s.loc.line, s.loop_depth) for s in e.fallback_sites}


def branches(x, flag):
    if flag:
        y = x * 2
    else:
        y = x - 1
    for k in range(3):
        y = y + k
    if x.sum() > 0:
        y = -y
    return y


def test_decisions_are_in_source_order():
    e = check(branches, np.ones(3), True)
    keys = [(d.loc.file, d.loc.line, d.loc.col) for d in e.decisions]
    assert keys == sorted(keys) and len(keys) >= 3, str(e)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_notebook_reprs():
    e = check(sample.nested, np.ones(3), full_graph=False)
    parser = _Tags()
    parser.feed(e._repr_html_())
    text = "".join(parser.text)
    assert "table" in parser.tags and "fallback sites" in text
    assert all(s.code.code in text for s in e.fallback_sites)

    class Printer:
        out = ""

        def text(self, s):
            Printer.out += s

    e._repr_pretty_(Printer(), False)
    assert Printer.out == str(e)
    static = to_static(branches, full_graph=True)
    assert repr(static).startswith("<to_static branches at ") and "test_explain_display.py" in repr(static)
    assert "full_graph=True" in repr(static)
