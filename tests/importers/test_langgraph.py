"""`import langgraph`: the SqliteStore files LangGraph itself wrote (see
tests/fixtures/importers/SCHEMAS.md), imported and checked entry by entry, and the refusals
that must leave nothing behind."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from inspector.importers.langgraph import import_langgraph
from importkit import FIXTURES, HOSTILE, IMPORT, beliefs, listing, log, refused_by
from inspector.store.errors import BadInput
from inspector.store.load import Store


# (entity, attribute) -> (value, observed_at, expires_at), rowid in the comment
EXPECTED = {
    ("users.alice.prefs", "seat"): (   # 1
        {"text": "Prefers window seats",
         "seat": {"position": "window", "rows": [10, 20], "exit_row": False},
         "source": {"kind": "chat", "turn": 3, "confidence": 0.9}},
        "2025-05-01T09:00:05Z", None),
    ("users.bob.prefs", "allergies"): (   # 3
        {"text": "Allergic to peanuts", "items": [{"name": "peanuts", "severity": "high"}]},
        "2025-05-01T09:01:00Z", None),
    ("users.bob.prefs", "quote"): (   # 4
        {"text": HOSTILE, "lang": "en"}, "2025-05-01T09:01:00Z", None),
    ("global", "app.config"): (   # 6: a key with a dot
        {"text": "São Paulo office opens 9:00", "unicode": "naïve café ✓", "n": 3},
        "2025-05-01T09:01:00Z", None),
    ("users.alice.prefs", "home"): (   # 7: overwritten; only the last put survives
        {"text": "Lives in Porto", "city": "Porto", "country": "PT", "since": "2025-05"},
        "2025-05-02T14:30:00Z", None),
    ("users.alice.session", "current_trip"): (   # 8: expires_at from put(ttl=60)
        {"text": "Flying LIS-OPO on May 5", "trip": {"from": "LIS", "to": "OPO"}},
        "2025-05-03T08:00:00Z", "2025-05-03T09:00:00.750000Z"),
    ("users.bob.session", "otp"): (   # 9: expires_at rewritten by a refreshing read
        {"text": "Waiting for a login code"}, "2025-05-03T08:00:00Z", "2025-05-03T08:08:00Z"),
}


# -- helpers ------------------------------------------------------------------------------------

def entries(store: Path) -> dict[tuple[str, str], dict]:
    loaded = Store(store, warn=False)
    try:
        rows = loaded.con.execute("SELECT state FROM entries").fetchall()
    finally:
        loaded.close()
    states = [json.loads(state) for (state,) in rows]
    return {(s["entity"], s["attribute"]): s for s in states}


STORE_TABLE = ("prefix text NOT NULL, key text NOT NULL, value text NOT NULL, "
               "created_at TIMESTAMP, updated_at TIMESTAMP, expires_at TIMESTAMP, "
               "ttl_minutes REAL, PRIMARY KEY (prefix, key)")


def make_store(path: Path, rows: list[tuple], columns: str = STORE_TABLE) -> Path:
    """A SqliteStore-shaped file; rows are (prefix, key, value, created, updated, expires)."""
    con = sqlite3.connect(path)
    con.execute(f"CREATE TABLE store ({columns})")
    for row in rows:
        con.execute("INSERT INTO store (prefix, key, value, created_at, updated_at, expires_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)", row)
    con.commit()
    con.close()
    return path


def refused(tmp_path: Path, source: Path, *needles: str, **options) -> str:
    return refused_by(import_langgraph, tmp_path, source, *needles, **options)


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> tuple[Path, dict]:
    store = tmp_path_factory.mktemp("lg") / "store"
    return store, import_langgraph(FIXTURES / "langgraph_store.db", store)


# -- langgraph_store.db ----------------------------------------------------------------------------

def test_summary_counts_and_no_history_note(plain):
    _store, doc = plain
    assert (doc["entries"], doc["expiring"], doc["expired"],
            doc["kind"]) == (7, 2, 2, "observation")
    assert doc["skipped_rows"] == [] and doc["held"] == {}
    assert (doc["vector_table"], doc["vector_rows"], doc["orphan_vector_rows"]) == (
        False, None, None)
    assert doc["notes"][0].startswith(
        "LangGraph keeps no history: only current values were imported; overwritten and "
        "deleted values are not recoverable")
    assert any(n.startswith("2 entries had already expired") for n in doc["notes"])


def test_every_row_maps_to_one_entry(plain):
    store, _doc = plain
    found = entries(store)
    assert set(found) == set(EXPECTED)
    for key, (value, observed_at, expires_at) in EXPECTED.items():
        state = found[key]
        assert state["value"] == value, key
        assert (state["observed_at"], state["expires_at"]) == (observed_at, expires_at), key
        assert (state["kind"], state["source"], state["subject"], state["scope"],
                state["status"]) == ("observation", "system:langgraph", None, "", "active")


def test_events_in_time_order_with_rowid_ties(plain):
    store, _doc = plain
    events = log(store)
    assert [(e["op"], e["body"]["after"]["attribute"], e["at"]) for e in events] == [
        ("write", "seat", "2025-05-01T09:00:05Z"),
        ("write", "allergies", "2025-05-01T09:01:00Z"),
        ("write", "quote", "2025-05-01T09:01:00Z"),
        ("write", "app.config", "2025-05-01T09:01:00Z"),
        ("write", "home", "2025-05-02T14:30:00Z"),
        ("write", "current_trip", "2025-05-03T08:00:00Z"),
        ("write", "otp", "2025-05-03T08:00:00Z"),
    ]
    assert [e["body"]["reason"] for e in events] == [
        f"LangGraph store rowid {n}" for n in (1, 3, 4, 6, 7, 8, 9)]
    assert {e["actor"] for e in events} == {"importer:langgraph"}


def test_ids_are_opaque_and_envelopes_hold_no_namespace(plain):
    store, _doc = plain
    events = log(store)
    ids = [e["memory_id"] for e in events]
    assert len(set(ids)) == 7 and all(i.startswith("lg-") and len(i) == 39 for i in ids)
    for event in events:
        envelope = json.dumps({k: v for k, v in event.items() if k != "body"})
        for word in ("alice", "bob", "users", "global", "prefs", "otp", "seat"):
            assert word not in envelope


def test_hostile_text_round_trips_byte_exactly(plain):
    store, _doc = plain
    con = sqlite3.connect(FIXTURES / "langgraph_store.db")
    (raw,) = con.execute("SELECT value FROM store WHERE rowid = 4").fetchone()
    con.close()
    assert isinstance(raw, bytes) and b"\x1b" not in raw          # a JSON escape on disk
    text = entries(store)[("users.bob.prefs", "quote")]["value"]["text"]
    assert text == HOSTILE == json.loads(raw)["text"]
    assert text.encode("utf-8") == HOSTILE.encode("utf-8")


def test_beliefs_as_a_user_sees_them(plain):
    store, _doc = plain
    assert beliefs(store) == {key: value for key, (value, _o, _e) in EXPECTED.items()}


def test_indexed_store_notes_the_vector_table(tmp_path):
    doc = import_langgraph(FIXTURES / "langgraph_store_indexed.db", tmp_path / "s")
    assert (doc["entries"], doc["expiring"], doc["vector_table"], doc["vector_rows"],
            doc["orphan_vector_rows"]) == (7, 2, True, 8, 1)
    assert any("store_vectors, 8 rows" in n and "1 of them belongs to keys no longer" in n
               for n in doc["notes"])
    assert set(entries(tmp_path / "s")) == set(EXPECTED)



AT = "2025-03-01 09:00:00"


def vec0_store(path: Path) -> None:
    """store_vectors as a vec0 virtual table, whose module (sqlite-vec) is not loaded."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA writable_schema=ON")
    con.execute("INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES "
                "('table', 'store_vectors', 'store_vectors', 0, "
                "'CREATE VIRTUAL TABLE store_vectors USING vec0(embedding float[4])')")
    con.commit()
    con.close()


def damaged_vectors(path: Path) -> None:
    """A store_vectors whose b-tree root page is overwritten with junk."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE store_vectors (prefix text, key text, field_name text, "
                "embedding BLOB)")
    con.execute("INSERT INTO store_vectors VALUES ('users.a', 'k', 'text', x'00')")
    con.commit()
    (root,) = con.execute("SELECT rootpage FROM sqlite_master "
                          "WHERE name = 'store_vectors'").fetchone()
    (size,) = con.execute("PRAGMA page_size").fetchone()
    con.close()
    with open(path, "r+b") as f:
        f.seek((root - 1) * size)
        f.write(b"\xff" * size)


VECTOR_UNKNOWN = ("the file also has a vector index (store_vectors) that was not imported and "
                  "that SQLite cannot read here ({}): how many rows it holds, and how many "
                  "belong to keys no longer in `store` (which the inspector's erasure does not "
                  "reach), is unknown")


@pytest.mark.parametrize("damage, problem", [
    (vec0_store, "no such module: vec0"),
    (damaged_vectors, "database disk image is malformed"),
])
def test_an_unreadable_vector_table_leaves_its_counts_unknown(tmp_path, damage, problem):
    """The vector index is reported, never imported: when SQLite cannot read it the `store`
    rows still import and the summary says the counts are unknown, and why."""
    source = make_store(tmp_path / "s.db", [("users.a", "k", b"1", AT, AT, None)])
    damage(source)
    doc = import_langgraph(source, tmp_path / "out")
    assert (doc["entries"], doc["vector_table"], doc["vector_rows"],
            doc["orphan_vector_rows"]) == (1, True, None, None)
    assert doc["notes"][2] == VECTOR_UNKNOWN.format(problem)
    assert list(entries(tmp_path / "out")) == [("users.a", "k")]


def test_vector_keys_that_cannot_be_compared_leave_the_orphans_unknown(tmp_path):
    """`store.prefix` with a collation the file names but does not define: the vector rows
    can be counted, not matched against `store`."""
    source = tmp_path / "s.db"
    con = sqlite3.connect(source)
    con.create_collation("mycoll", lambda a, b: (a > b) - (a < b))
    con.execute("CREATE TABLE store (" + STORE_TABLE.replace("prefix text NOT NULL",
                                                             "prefix text COLLATE mycoll") + ")")
    con.execute("CREATE TABLE store_vectors (prefix text, key text, field_name text, "
                "embedding BLOB)")
    con.execute("INSERT INTO store (prefix, key, value, created_at, updated_at) "
                "VALUES ('users.a', 'k', '1', ?, ?)", (AT, AT))
    con.execute("INSERT INTO store_vectors VALUES ('users.a', 'k', 'text', x'00')")
    con.commit()
    con.close()
    done = subprocess.run(IMPORT + ["langgraph", str(source), str(tmp_path / "out"), "--json"],
                          capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    doc = json.loads(done.stdout)
    assert (doc["entries"], doc["vector_table"], doc["vector_rows"],
            doc["orphan_vector_rows"]) == (1, True, 1, None)
    assert doc["notes"][2] == (
        "the file also has a vector index (store_vectors, 1 row) that was not imported; SQLite "
        "cannot compare its keys with `store` here (no such collation sequence: mycoll), so how "
        "many of them belong to keys no longer in `store` (embeddings of deleted values, which "
        "the inspector's erasure does not reach) is unknown")


def test_an_unreadable_store_table_is_one_line(tmp_path):
    source = tmp_path / "s.db"
    vec0_store(source)      # an empty file with only the virtual table …
    con = sqlite3.connect(source)
    con.execute("PRAGMA writable_schema=ON")
    con.execute("UPDATE sqlite_master SET name = 'store', tbl_name = 'store', "
                "sql = 'CREATE VIRTUAL TABLE store USING vec0(embedding float[4])'")
    con.commit()
    con.close()             # … named `store`
    assert refused(tmp_path, source) == (
        f"{source}: cannot read table `store` (no such module: vec0)")


def test_kind_option(tmp_path):
    doc = import_langgraph(FIXTURES / "langgraph_store.db", tmp_path / "c", kind="claim")
    assert doc["kind"] == "claim"
    assert {s["kind"] for s in entries(tmp_path / "c").values()} == {"claim"}
    assert beliefs(tmp_path / "c") == {}          # a claim is never a candidate
    refused(tmp_path, FIXTURES / "langgraph_store.db", "--kind 'summary' is not allowed",
            kind="summary")


# -- small files -----------------------------------------------------------------------------------

def test_text_values_and_other_time_forms(tmp_path):
    source = make_store(tmp_path / "s.db", [
        ("ns", "a", '{"x": 1}', "2025-01-01 10:00:00", None, None),
        ("ns", "b", b"[1, 2]", None, "2025-01-02T10:00:00.5+01:00", "2025-02-01 00:00:00"),
    ])
    doc = import_langgraph(source, tmp_path / "out")
    assert (doc["entries"], doc["expiring"]) == (2, 1)
    found = entries(tmp_path / "out")
    assert (found[("ns", "a")]["value"], found[("ns", "a")]["observed_at"]) == (
        {"x": 1}, "2025-01-01T10:00:00Z")
    assert (found[("ns", "b")]["value"], found[("ns", "b")]["observed_at"],
            found[("ns", "b")]["expires_at"]) == (
        [1, 2], "2025-01-02T09:00:00.500000Z", "2025-02-01T00:00:00Z")


def test_bad_rows_refuse_or_are_skipped_and_listed(tmp_path):
    source = make_store(tmp_path / "s.db", [
        ("ns", "good", b'{"ok": true}', "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "prose", b"Lives in Porto", "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "nan", b'{"x": NaN}', "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "latin1", b'"caf\xe9"', "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "when", b"{}", "soon", "soon", None),
        ("ns", "expiry", b"{}", "2025-01-01 10:00:00", "2025-01-01 10:00:00", "never"),
    ])
    refused(tmp_path, source, "table `store` rowid 2 cannot be imported: value is not JSON",
            "and 4 more bad rows", "nothing was written")
    doc = import_langgraph(source, tmp_path / "out", skip_bad_rows=True)
    assert doc["skipped_rows"] == [
        {"rowid": 2, "reason": "value is not JSON (Expecting value: line 1 column 1 (char 0))"},
        {"rowid": 3, "reason": "value holds a number that is not finite (Infinity or NaN)"},
        {"rowid": 4, "reason": "value is not valid UTF-8"},
        {"rowid": 5, "reason": "updated_at 'soon' is not a time (expected e.g. 2025-03-01 "
                               "09:00:00 or 2025-03-01T09:00:00.123456+00:00)"},
        {"rowid": 6, "reason": "expires_at 'never' is not a time (expected e.g. 2025-03-01 "
                               "09:00:00 or 2025-03-01T09:00:00.123456+00:00)"},
    ]
    assert doc["entries"] == 1 and list(entries(tmp_path / "out")) == [("ns", "good")]
    assert any("5 rows could not be mapped" in n for n in doc["notes"])


def test_skipping_every_row_is_refused_not_an_empty_store(tmp_path):
    source = make_store(tmp_path / "s.db", [
        ("ns", "prose", b"Lives in Porto", "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "when", b"{}", "soon", "soon", None)])
    refused(tmp_path, source, "no row of table `store` can be imported (rowid 1: value is not "
            "JSON", "(and 1 more bad row)); nothing was written", skip_bad_rows=True)


def test_values_ingest_refuses_are_bad_rows_in_its_words(tmp_path):
    """A duplicated key was imported keeping the last (ingest refuses the same line); 1e999
    and a lone surrogate escape were refused as "(ValueError)", "(UnicodeEncodeError)"."""
    source = make_store(tmp_path / "s.db", [
        ("ns", "dup", b'{"x": 1, "x": 2}', "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "inf", b"1e999", "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "lone", b'"\\ud800"', "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "big", b"18446744073709551616", "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "good", b'{"x": 1}', "2025-01-01 10:00:00", "2025-01-01 10:00:00", None),
        ("ns", "long", b'{"n": ' + b"7" * 5000 + b"}", "2025-01-01 10:00:00",
         "2025-01-01 10:00:00", None),
    ])
    doc = import_langgraph(source, tmp_path / "out", skip_bad_rows=True)
    assert doc["skipped_rows"] == [
        {"rowid": 1, "reason": "value is not valid JSON for a store: it holds a duplicate key 'x'"},
        {"rowid": 2, "reason": "value holds a number that is not finite (Infinity or NaN)"},
        {"rowid": 3, "reason": "value is not valid JSON for a store: it holds a lone surrogate "
                               "escape (not valid Unicode)"},
        {"rowid": 4, "reason": "value holds an integer beyond 64 bits"},
        {"rowid": 6, "reason": "value holds an integer of 5,000 digits, past the 4,300 digits "
                               "Python reads (and the store takes integers of 64 bits at most)"},
    ]
    assert list(entries(tmp_path / "out")) == [("ns", "good")]


def test_edge_times_and_deep_values_are_bad_rows(tmp_path):
    """What Python cannot take (a UTC time past year 9999, a value nested a thousand deep)
    is a bad row like any other, never a crash; the edges of the range themselves import."""
    at = "2025-01-01 10:00:00"
    source = make_store(tmp_path / "s.db", [
        ("ns", "good", b'{"ok": true}', at, at, "9999-12-31T23:59:59Z"),
        ("ns", "late", b"{}", at, at, "9999-12-31T23:59:59-23:59"),
        ("ns", "early", b"{}", at, at, "0001-01-01T00:00:00+23:59"),
        ("ns", "deep", b"[" * 1000 + b"]" * 1000, at, at, None),
        ("ns", "deeper", b'{"a":' * 100_000 + b"1" + b"}" * 100_000, at, at, None),
        ("ns", "old", b"1", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z", None),
    ])
    too_deep = 'the entry it maps to is not valid: field "value" is nested deeper than 64 levels'
    done = subprocess.run(IMPORT + ["langgraph", str(source), str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"error: {source}: table `store` rowid 2 cannot be imported: "
                           "expires_at '9999-12-31T23:59:59-23:59' is not a valid time (in UTC it "
                           "falls outside years 1 to 9999) (and 3 more bad rows); nothing was "
                           "written (pass --skip-bad-rows to import the other rows and list the "
                           "skipped ones)\n")
    doc = import_langgraph(source, tmp_path / "out", skip_bad_rows=True)
    assert doc["skipped_rows"] == [
        {"rowid": 2, "reason": "expires_at '9999-12-31T23:59:59-23:59' is not a valid time "
                               "(in UTC it falls outside years 1 to 9999)"},
        {"rowid": 3, "reason": "expires_at '0001-01-01T00:00:00+23:59' is not a valid time "
                               "(in UTC it falls outside years 1 to 9999)"},
        {"rowid": 4, "reason": too_deep},
        {"rowid": 5, "reason": too_deep},
    ]
    found = entries(tmp_path / "out")
    assert (found[("ns", "good")]["expires_at"], found[("ns", "old")]["observed_at"]) == (
        "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z")


def test_not_sqlite_is_refused(tmp_path):
    source = tmp_path / "store.db"
    source.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    refused(tmp_path, source, "is not a SQLite database", "expected a LangGraph SqliteStore file")


def test_missing_table_names_the_tables_found(tmp_path):
    refused(tmp_path, FIXTURES / "mem0_history.db", "found history, messages",
            "expected a table `store` (a LangGraph SqliteStore file)")


def test_missing_column_names_the_columns(tmp_path):
    source = make_store(tmp_path / "old.db", [], columns=(
        "prefix text, key text, value text, created_at TIMESTAMP, updated_at TIMESTAMP"))
    refused(tmp_path, source, "table `store` has columns prefix, key, value, created_at, "
            "updated_at; expected also expires_at")


def test_existing_target_is_refused_and_untouched(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "events.jsonl").write_bytes(b"")
    with pytest.raises(BadInput, match="already exists and is not empty"):
        import_langgraph(FIXTURES / "langgraph_store.db", target)
    assert listing(target) == ["events.jsonl"] and (target / "events.jsonl").read_bytes() == b""
    assert listing(tmp_path) == ["out"]


# -- command line ----------------------------------------------------------------------------------

def test_cli_json_and_human_summary(tmp_path):
    done = subprocess.run(IMPORT + ["langgraph", str(FIXTURES / "langgraph_store.db"),
                                    str(tmp_path / "j"), "--json", "--kind", "inference"],
                          capture_output=True, text=True)
    assert done.returncode == 0
    doc = json.loads(done.stdout)
    assert (doc["entries"], doc["expiring"], doc["kind"]) == (7, 2, "inference")
    human = subprocess.run(IMPORT + ["langgraph", str(FIXTURES / "langgraph_store.db"),
                                     str(tmp_path / "h")], capture_output=True, text=True)
    assert human.returncode == 0 and human.stdout == ""
    assert human.stderr.startswith("imported 7 entries (observation) from ")
    assert "  note: LangGraph keeps no history" in human.stderr


def test_cli_refusals_are_one_line_exit_2(tmp_path):
    for extra, message in ((["--scope", "users"], "does not take --scope"),
                           (["--kind", "summary"], "--kind 'summary' is not allowed")):
        done = subprocess.run(IMPORT + ["langgraph", str(FIXTURES / "langgraph_store.db"),
                                        str(tmp_path / "s")] + extra,
                              capture_output=True, text=True)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
        assert message in done.stderr
    assert listing(tmp_path) == []


# -- rows named by SQLite's row number -------------------------------------------------------------

def test_a_column_named_rowid_does_not_hide_the_row_number(tmp_path):
    """A user column `rowid` (text, NULL) is a column like any other: rows are still named
    and ordered by SQLite's own row number (read as _rowid_)."""
    at = "2025-03-01 09:00:00"
    source = make_store(tmp_path / "s.db", [], columns="rowid TEXT, " + STORE_TABLE)
    con = sqlite3.connect(source)
    con.executemany("INSERT INTO store (rowid, prefix, key, value, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [("abc", "users.a", "k", b"1", at, at), (None, "users.b", "k", b"2", at, at),
                     ("zzz", "users.c", "k", b"nope", at, at)])
    con.commit()
    con.close()
    doc = import_langgraph(source, tmp_path / "out", skip_bad_rows=True)
    assert doc["skipped_rows"] == [
        {"rowid": 3, "reason": "value is not JSON (Expecting value: line 1 column 1 (char 0))"}]
    assert [(e["body"]["after"]["entity"], e["body"]["reason"]) for e in log(tmp_path / "out")] == [
        ("users.a", "LangGraph store rowid 1"), ("users.b", "LangGraph store rowid 2")]


def test_columns_hiding_every_row_number_name_are_refused(tmp_path):
    source = make_store(tmp_path / "s.db", [], columns="ROWID TEXT, _rowid_ TEXT, oid TEXT, "
                        + STORE_TABLE)
    message = refused(tmp_path, source)
    assert message == (f"{source}: table `store` has columns named rowid, _rowid_ and oid, which "
                       "hide the row numbers an import names rows by; rename one of those "
                       "columns in a copy of the file and import the copy")


def test_the_expired_note_agrees_with_one_entry(tmp_path):
    """"1 entry had already expired but were still in the file" (tester's defect 3)."""
    source = make_store(tmp_path / "s.db", [
        ("ns", "a", '{"x": 1}', "2025-01-01 10:00:00", None, "2025-02-01 00:00:00")])
    doc = import_langgraph(source, tmp_path / "out")
    assert [n for n in doc["notes"] if "expired" in n] == [
        "1 entry had already expired but was still in the file (no TTL sweep ran, so LangGraph "
        "still returns them): imported with expires_at kept, for `expire --due`"]


def test_the_summary_counts_one_as_one(tmp_path):
    # 'imported 1 entries …, 1 rows skipped' and '1 row could not be mapped and were skipped'
    import sqlite3, subprocess, sys
    db = tmp_path / "lg.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE store (prefix TEXT, key TEXT, value TEXT, created_at TIMESTAMP, "
                "updated_at TIMESTAMP, expires_at TIMESTAMP, ttl_minutes REAL, PRIMARY KEY (prefix, key))")
    con.execute("INSERT INTO store VALUES ('users.a', 'prefs', '{\"theme\": \"dark\"}', "
                "'2025-03-01 10:00:00', '2025-03-01 10:00:00', NULL, NULL)")
    con.execute("INSERT INTO store VALUES ('users.a', 'bad', '{not json', "
                "'2025-03-01 10:00:00', '2025-03-01 10:00:00', NULL, NULL)")
    con.commit()
    con.close()
    done = subprocess.run([sys.executable, "-m", "inspector", "import", "langgraph", str(db),
                           str(tmp_path / "s"), "--skip-bad-rows"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("imported 1 entry (observation) from ")
    assert ", 1 row skipped\n" in done.stderr
    assert "note: 1 row could not be mapped and was skipped (listed in skipped_rows)" in done.stderr


def test_keys_spelled_otherwise_are_kept_apart_and_named_in_a_note(tmp_path):
    """helper-85: `café` in NFC and in NFD (two rows to LangGraph, drawn alike) imported as two
    attributes without a word. They stay two (LangGraph keeps them apart, and folding would
    merge two values into one key), and a note names both, told apart by their code points."""
    at = "2025-01-01 10:00:00"
    nfc, nfd = "caf\u00e9", "cafe\u0301"
    source = make_store(tmp_path / "s.db", [
        ("users.alice", nfc, b'{"a": 1}', at, at, None),
        ("users.alice", nfd, b'{"a": 2}', at, at, None),
        ("users.alice", "plain", b"1", at, at, None),
        ("users.bob", nfd, b"3", at, at, None)])
    doc = import_langgraph(source, tmp_path / "out")
    assert sorted(entries(tmp_path / "out")) == sorted([
        ("users.alice", nfc), ("users.alice", nfd), ("users.alice", "plain"), ("users.bob", nfd)])
    said = [n for n in doc["notes"] if "spelled otherwise" in n]
    assert said == [
        "2 keys read as another key but are spelled otherwise (case, width, Unicode form, "
        "spaces or invisible characters): imported as written, each its own attribute, as "
        f"LangGraph keeps them apart: 'users.alice' · '{nfc}' (U+00E9) and 'users.alice' · "
        f"'{nfd}' (U+0301); check which one the agent reads (`inspector beliefs STORE`)"]
    plain = import_langgraph(make_store(tmp_path / "p.db", [("ns", "a", b"1", at, at, None)]),
                             tmp_path / "out2")
    assert not any("spelled otherwise" in n for n in plain["notes"])
