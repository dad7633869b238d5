"""Fallback: fallback sites as data (``sites``) and interpreted nodes
(``interpreted``: import it from there; it depends on ``typeinfer``)."""

from .sites import Decision, FallbackCode, FallbackSite, GraphBreak

__all__ = ["Decision", "FallbackCode", "FallbackSite", "GraphBreak"]
