"""DuckDB as the product uses it: the compiled engine module.

The duckdb package (2.x) wraps its compiled engine, the top-level module ``_duckdb``, in Python
modules: the relation API, the expression builder, a version looked up through
importlib.metadata. Importing them takes about 50 ms, a fifth of a warm `show`, and the
product uses none of them: it connects, executes and fetches. So the store imports the
engine module itself when the package ships one, and the package otherwise (a release that
keeps its engine inside the package).
``connect``, the connection class and the exceptions are the same objects either way (the
package re-exports them), and ``__version__`` is the engine's, which is what the view file is
keyed on (view.py). tests/unit/test_architecture.py checks both, and that a command imports
no part of the package.
"""

try:
    import _duckdb as duckdb
except ImportError:     # a release that keeps its engine inside the package
    import duckdb

__all__ = ["duckdb"]
