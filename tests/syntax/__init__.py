"""The Python-syntax coverage suite (issue 6): every Python 3.11 statement and
expression node type converted by ``to_static`` and compared with eager
execution; the records of ``coverage.py`` generate docs/syntax-coverage.md."""
