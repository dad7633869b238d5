import os
import sys

# The verifier runs after every specialisation in tests.
os.environ.setdefault("AST2GRAPH_CHECKS", "1")
sys.path.insert(0, os.path.dirname(__file__))
