"""Project settings for the command line: ``[tool.ast2graph]`` in ``pyproject.toml``.

Requires: nothing of the compiler (``tomllib`` only): reading settings never
imports JAX.
Produces: ``Settings`` and ``load_settings(start, explicit=None)``: the
``[tool.ast2graph]`` table of the nearest ``pyproject.toml`` at or above
``start`` (or of the ``explicit`` file), checked key by key; ``Settings.ignored``
says whether a site's code is suppressed for a file.
Invariants: an unknown key, a value of the wrong type or an unknown fallback
code is a ``SettingsError`` naming the file and the key, never ignored: a
misspelt suppression must not silently report nothing, nor silently report all.

The table::

    [tool.ast2graph]
    strict = true                      # exit 1 when an always-fallback site is found
    include-possible = false           # also list sites that fall back only for some inputs
    ignore = ["A2G002"]                # codes never reported
    max-file-size = "10MB"             # skip larger files (as an error)

    [tool.ast2graph.per-file-ignores]  # glob (relative to the pyproject's folder) -> codes
    "tests/*" = ["A2G001", "A2G002"]
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from dataclasses import dataclass, field

_KEYS = {"strict": bool, "include-possible": bool, "ignore": list, "per-file-ignores": dict,
         "max-file-size": (int, str)}


class SettingsError(Exception):
    """A ``[tool.ast2graph]`` table that cannot be used as written."""


@dataclass
class Settings:
    """The command line's defaults from a project's ``pyproject.toml`` (none: all defaults)."""

    path: str | None = None                      # the pyproject.toml read, if any
    strict: bool = False
    include_possible: bool = False
    ignore: frozenset[str] = frozenset()
    per_file_ignores: dict[str, frozenset[str]] = field(default_factory=dict)
    max_file_size: int | str | None = None

    def ignored(self, code: str, file: str) -> bool:
        """Whether sites with ``code`` in ``file`` are suppressed."""
        if code in self.ignore:
            return True
        if not self.per_file_ignores:
            return False
        root = os.path.dirname(self.path) if self.path else os.getcwd()
        rel = os.path.relpath(os.path.abspath(file), root).replace(os.sep, "/")
        return any(code in codes for pattern, codes in self.per_file_ignores.items()
                   if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(file), pattern))


def find_pyproject(start: str) -> str | None:
    """The nearest ``pyproject.toml`` in ``start``'s folder or above it."""
    here = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(os.path.abspath(start)) or ".")
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def load_settings(start: str, explicit: str | None = None) -> Settings:
    """The settings for a report of ``start`` (a file or folder): from
    ``explicit`` when given, else from the nearest ``pyproject.toml``."""
    path = explicit or find_pyproject(start)
    if path is None:
        return Settings()
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise SettingsError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SettingsError(f"{path}: not valid TOML: {e}") from None
    table = data.get("tool", {}).get("ast2graph")
    if table is None:
        return Settings(path=path if explicit else None)
    return _parse(path, table)


def _parse(path: str, table: dict) -> Settings:
    from .fallback.sites import FallbackCode   # light: no JAX

    known = {c.code for c in FallbackCode}

    def codes(key: str, value: object) -> frozenset[str]:
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise SettingsError(f"{path}: [tool.ast2graph] {key}: a list of fallback codes, e.g. [\"A2G002\"]")
        unknown = sorted(set(value) - known)
        if unknown:
            raise SettingsError(f"{path}: [tool.ast2graph] {key}: unknown fallback code(s) {', '.join(unknown)} "
                                "(`ast2graph codes` lists them)")
        return frozenset(value)

    settings = Settings(path=path)
    for key, value in table.items():
        kind = _KEYS.get(key)
        if kind is None:
            raise SettingsError(f"{path}: [tool.ast2graph] unknown key {key!r} (known: {', '.join(sorted(_KEYS))})")
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise SettingsError(f"{path}: [tool.ast2graph] {key}: {value!r} is not a valid value")
        if key == "ignore":
            settings.ignore = codes(key, value)
        elif key == "per-file-ignores":
            settings.per_file_ignores = {str(k): codes(f"per-file-ignores.{k}", v) for k, v in value.items()}
        else:
            setattr(settings, key.replace("-", "_"), value)
    return settings
