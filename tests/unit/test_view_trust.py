"""What the persistent view and the belief snapshot are never read for (outside probe): a log
whose last line read was rewritten with the same seq, length and (absent) hash, as a writer of
unchained lines may after a rollback; and a view in a store others can write to, or one another
account wrote. Each is answered from the log, as a cold load answers."""

from __future__ import annotations

import hashlib
import json
import os
import pwd

import pytest

from inspector.store import view
from inspector.store.load import Store
from inspector.store.logfile import store_paths


@pytest.fixture(autouse=True)
def every_log_keeps_a_view(monkeypatch):
    monkeypatch.setenv("INSPECTOR_VIEW_MIN_BYTES", "0")


def canonical(x) -> bytes:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def unchained(seq: int, memory_id: str, value: str) -> bytes:
    """A line another tool wrote without prev and hash (docs/format.md allows them)."""
    after = {"attribute": f"a{seq}", "authority": 4, "entity": "user:42", "id": memory_id,
             "kind": "observation", "observed_at": "2025-03-01T08:00:00Z", "scope": "user:42",
             "source": "system:crm", "status": "active", "value": value}
    body = {"after": after, "before": None, "reason": None,
            "salt": "00112233445566778899aabbccddeeff"}
    return canonical({"actor": "importer:crm", "at": "2025-03-01T08:00:01Z", "batch": None,
                      "body": body, "body_digest": hashlib.sha256(canonical(body)).hexdigest(),
                      "memory_id": memory_id, "op": "write", "seq": seq}) + b"\n"


def value_of(root, memory_id: str):
    store = Store(root, warn=False)
    try:
        row = store.con.execute("SELECT value FROM entries WHERE memory_id = ?", [memory_id]).fetchone()
        return row[0], list(store.state.warnings)
    finally:
        store.close()


def test_an_unchained_last_line_rewritten_with_the_same_seq_and_length_is_read_again(tmp_path):
    root = tmp_path / "s"
    root.mkdir(mode=0o700)
    log = root / "events.jsonl"
    log.write_bytes(unchained(1, "F1", "filler") + unchained(2, "C1", "Berlin"))
    assert value_of(root, "C1") == ('"Berlin"', [])                       # writes the view
    assert (root / ".inspector" / "view.duckdb").exists()
    first = unchained(1, "F1", "filler")
    rewritten = unchained(2, "C1", "Munich")
    assert len(rewritten) == len(unchained(2, "C1", "Berlin"))
    with open(log, "r+b") as f:                  # the same file: a rollback, then seq 2 again
        f.truncate(len(first))
        f.seek(len(first))
        f.write(rewritten)
    value, warnings = value_of(root, "C1")
    assert value == '"Munich"'
    assert warnings == [f"{root}: read the whole log again: the line ending at byte "
                        f"{len(first) + len(rewritten)} of the log no longer holds seq 2 with "
                        "the hash the view read (rewritten or rolled back)"]


def planted(tmp_path):
    """A store with a view, whose view then says FORGED where the log says Berlin."""
    root = tmp_path / "s"
    root.mkdir(mode=0o700)
    (root / "events.jsonl").write_bytes(unchained(1, "C1", "Berlin"))
    assert value_of(root, "C1")[0] == '"Berlin"'
    import duckdb
    con = duckdb.connect(str(root / ".inspector" / "view.duckdb"))
    con.execute("""UPDATE entries SET value = '"FORGED"' WHERE memory_id = 'C1'""")
    con.close()
    assert value_of(root, "C1")[0] == '"FORGED"'     # the view is what was read
    return root


def test_a_view_in_a_store_others_can_write_to_is_never_read(tmp_path):
    root = planted(tmp_path)
    os.chmod(root, 0o777)
    assert value_of(root, "C1") == ('"Berlin"', [
        f"{root}: read the whole log again: others can write to the store directory (mode "
        f"0o777), so its view is not used: run chmod go-w {root}"])
    assert not view.trusted(store_paths(root), root / ".inspector" / "view.duckdb")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another account takes root")
@pytest.mark.parametrize("what", ["file", "directory"])
def test_a_view_another_account_owns_is_never_read(tmp_path, what):
    root = planted(tmp_path)
    nobody = pwd.getpwnam("nobody").pw_uid
    os.chown(root / ".inspector" / ("view.duckdb" if what == "file" else ""), nobody, -1)
    why = (f"{root}/.inspector/view.duckdb is not this account's own file, so it is not used"
           if what == "file" else f"{root}/.inspector is not a private directory of this "
           "account's, so the view in it is not used")
    assert value_of(root, "C1") == ('"Berlin"', [f"{root}: read the whole log again: {why}"])


def test_a_view_others_can_enter_is_never_read(tmp_path):
    root = planted(tmp_path)
    os.chmod(root / ".inspector", 0o755)
    assert value_of(root, "C1")[0] == '"Berlin"'
