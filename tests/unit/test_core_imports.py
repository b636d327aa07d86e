"""The core and the command line import without Textual (STYLE: the core knows no screen)."""

import subprocess
import sys


def test_core_and_cli_do_not_import_textual():
    code = ("import sys, inspector.store.load, inspector.store.beliefs, inspector.store.ingest, "
            "inspector.store.audit, inspector.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
