"""Loading a log: exact reports of bad lines, the torn tail, unchained prefixes, tailing."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from logtools import edit_line, log_path, read_lines, write_lines
from storegen import entry, write_store
from inspector.store import batches, logfile
from inspector.store.append import LogWriter, event_draft
from inspector.store.errors import LogProblem
from inspector.store.load import Store
from inspector.store.logfile import store_paths


def load_error(store) -> LogProblem:
    with pytest.raises(LogProblem) as caught:
        Store(store, warn=False)
    return caught.value


def small(tmp_path, n=5):
    events = [(f"2025-01-0{i}T00:00:00Z", "write", entry(f"M{i}", attribute=f"a{i}", value=i))
              for i in range(1, n + 1)]
    return write_store(tmp_path / "s", events)


def test_loads_every_event_and_reports_the_head(tmp_path):
    store = Store(small(tmp_path), warn=False)
    last = json.loads(read_lines(store.root)[-1])
    assert store.head == f"5:{last['hash']}"
    assert store.con.execute("SELECT count(*) FROM versions").fetchone() == (5,)
    assert store.con.execute("SELECT count(*) FROM entries").fetchone() == (5,)


@pytest.mark.parametrize("damage, line, seq, reason", [
    (lambda ls: ls.__setitem__(2, ls[2][:40]), 3, None, "not valid JSON"),
    (lambda ls: ls.__setitem__(2, b"[1, 2]"), 3, None, "not a JSON object"),
    (lambda ls: ls.__setitem__(2, b""), 3, None, "empty line"),
    (lambda ls: ls.__setitem__(2, b'{"seq": 3, "x": "\xff"}'), 3, None, "not valid UTF-8"),
    (lambda ls: ls.__delitem__(2), 3, 4, "seq gap: expected 3, found 4"),
    (lambda ls: ls.insert(2, ls[1]), 3, 2, "seq 2 repeats or goes back (expected 3)"),
    (lambda ls: ls.__setitem__(1, ls[1].replace(b'"seq":2', b'"seq":"2"')), 2, None,
     'field "seq" is missing or not an integer'),
])
def test_a_bad_line_is_named_by_line_and_seq(tmp_path, damage, line, seq, reason):
    store = small(tmp_path)
    lines = read_lines(store)
    damage(lines)
    write_lines(store, lines)
    problem = load_error(store)
    assert (problem.line, problem.seq, problem.reason) == (line, seq, reason)
    assert str(problem).startswith(f"events.jsonl line {line}")
    assert f"audit --verify {store}" in str(problem)


@pytest.mark.parametrize("field, value, reason", [
    ("at", "2025-01-03 00:00:00", 'field "at" is missing or not an RFC 3339 time'),
    ("actor", "nobody", 'field "actor" is missing or not of the form class:id'),
    ("op", "delete", 'field "op" is missing or unknown'),
    ("memory_id", "", 'field "memory_id" is missing or empty'),
    ("body_digest", "abc", 'field "body_digest" is missing or not a SHA-256 (64 lower-case hex digits)'),
])
def test_envelope_fields_are_checked(tmp_path, field, value, reason):
    store = small(tmp_path)
    edit_line(store, 3, lambda e: e.__setitem__(field, value))
    problem = load_error(store)
    assert (problem.line, problem.seq, problem.reason) == (3, 3, reason)


@pytest.mark.parametrize("field, value, reason", [
    ("kind", "rumour", 'field "kind" must be observation, claim, inference or summary'),
    ("authority", "3", 'field "authority" must be an integer'),
    ("authority", 2.5, 'field "authority" must be an integer'),
    ("confidence", 1.5, 'field "confidence" must be a number from 0 to 1 or null'),
    ("observed_at", "yesterday", 'field "observed_at" must be an RFC 3339 time: a real calendar '
                                 'date, an offset within ±23:59, in the years 1 to 9999 once in '
                                 'UTC (e.g. 2025-03-01T04:06:55Z)'),
    # in UTC a day before year 1 (helper-73: the message did not say why it was refused)
    ("valid_to", "0001-01-01T00:00:00+00:01", 'field "valid_to" must be an RFC 3339 time: a real '
                                              'calendar date, an offset within ±23:59, in the years '
                                              '1 to 9999 once in UTC (e.g. 2025-03-01T04:06:55Z)'),
    ("source", "somewhere", 'field "source" must be class:id[/detail] with class user, operator, '
                            'system, agent, tool, document or web'),
    ("justification", "M1", 'field "justification" must be a list of ids'),
    ("status", "deleted", 'field "status" must be one of held, active, rejected, quarantined, '
                          'retracted, expired, erased'),
])
def test_an_entry_state_that_breaks_the_contract_loads_as_malformed(tmp_path, field, value, reason):
    """DESIGN §2.2: malformed entries stay curatable — loaded with field and reason, never a
    belief; the load does not stop."""
    store = small(tmp_path)
    edit_line(store, 4, lambda e: e["body"]["after"].__setitem__(field, value))
    loaded = Store(store, warn=False)
    memory_id = loaded.con.execute("SELECT memory_id FROM versions WHERE seq = 4").fetchone()[0]
    assert loaded.con.execute("SELECT malformed FROM entries WHERE memory_id = ?",
                              [memory_id]).fetchone()[0] == reason


def test_a_state_whose_id_is_not_its_events_stops_the_load(tmp_path):
    store = small(tmp_path)
    edit_line(store, 4, lambda e: e["body"]["after"].__setitem__("id", "M99"))
    problem = load_error(store)
    assert (problem.line, problem.seq, problem.reason) == (4, 4, "body.after.id does not match memory_id")


def test_the_first_of_several_bad_lines_is_named_with_a_count(tmp_path):
    store = small(tmp_path)
    lines = read_lines(store)
    lines[1], lines[3] = b"garbage", b"{}"
    write_lines(store, lines)
    problem = load_error(store)
    assert (problem.line, problem.more) == (2, 1)
    assert "(and 1 more bad line)" in str(problem)


@pytest.mark.parametrize("cut", [1, 30, -1])
def test_a_torn_last_line_is_ignored_and_reported(tmp_path, cut):
    store = small(tmp_path)
    lines = read_lines(store)
    torn = lines[-1][:cut] if cut > 0 else lines[-1]      # -1: the whole line, newline lost
    write_lines(store, lines[:-1] + [torn], newline_at_end=False)
    loaded = Store(store, warn=False)
    assert loaded.state.seq == 4
    assert loaded.state.torn == torn
    assert loaded.con.execute("SELECT count(*) FROM versions").fetchone() == (4,)
    assert any("ignored an incomplete last line" in w for w in loaded.state.warnings)


def test_the_next_append_moves_a_torn_tail_aside(tmp_path):
    store = small(tmp_path)
    lines = read_lines(store)
    write_lines(store, lines + [b'{"seq":6,"at":"20'], newline_at_end=False)
    offset = log_path(store).stat().st_size - len(b'{"seq":6,"at":"20')
    with LogWriter(store_paths(store)) as writer:
        writer.append([event_draft("write", "M6", "agent:1", after=entry("M6", attribute="a6"))])
    assert (store / "torn" / str(offset)).read_bytes() == b'{"seq":6,"at":"20'
    assert [json.loads(l)["seq"] for l in read_lines(store)] == [1, 2, 3, 4, 5, 6]
    assert Store(store, warn=False).state.torn == b""


def test_an_unchained_prefix_loads_and_is_counted(tmp_path):
    store = small(tmp_path)
    for seq in (1, 2):
        edit_line(store, seq, lambda e: (e.pop("prev"), e.pop("hash")))
    loaded = Store(store, warn=False)
    assert (loaded.state.unchained, loaded.state.seq) == (2, 5)


def test_an_unchained_line_after_a_chained_one_stops_loading(tmp_path):
    store = small(tmp_path)
    edit_line(store, 3, lambda e: (e.pop("prev"), e.pop("hash")))
    problem = load_error(store)
    assert (problem.line, problem.reason) == (3, "unchained line after a chained one")


def test_refresh_takes_appended_lines(tmp_path):
    root = small(tmp_path)
    store = Store(root, warn=False)
    with LogWriter(store_paths(root)) as writer:
        writer.append([event_draft("update", "M2", "agent:1", after=entry("M2", attribute="a2", value=20))])
    assert store.refresh() == 1
    value = store.con.execute("SELECT value FROM entries WHERE memory_id = 'M2'").fetchone()[0]
    assert (store.state.seq, json.loads(value)) == (6, 20)
    assert store.refresh() == 0


def test_refresh_refuses_a_bad_appended_line_and_keeps_what_it_had(tmp_path):
    root = small(tmp_path)
    store = Store(root, warn=False)
    with open(log_path(root), "ab") as f:
        f.write(b'{"seq": 9}\n')
    with pytest.raises(LogProblem) as caught:
        store.refresh()
    assert (caught.value.line, caught.value.reason) == (6, "seq gap: expected 6, found 9")
    assert store.con.execute("SELECT count(*) FROM versions").fetchone() == (5,)


def test_unknown_entry_fields_are_kept_verbatim(tmp_path):
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write",
                                        entry("M1", x_origin={"crawler": "v2"}, value=[1, {"b": 2}]))])
    state = json.loads(Store(root, warn=False).con.execute(
        "SELECT state FROM entries WHERE memory_id = 'M1'").fetchone()[0])
    assert state["x_origin"] == {"crawler": "v2"} and state["value"] == [1, {"b": 2}]


def test_offsets_are_kept_as_instants(tmp_path):
    root = write_store(tmp_path / "s", [("2025-01-01T04:00:00+02:00", "write",
                                        entry("M1", observed_at="2025-01-01T03:00:00+02:00"))])
    row = Store(root, warn=False).con.execute(
        """SELECT strftime("at", '%H:%M'), strftime(observed_at, '%H:%M') FROM versions""").fetchone()
    assert row == ("02:00", "01:00")


# -- a cold load in ranges (coldload.COLD_CHUNK_BYTES) -----------------------------------------

def test_the_log_is_cut_into_ranges_of_whole_lines(tmp_path):
    from inspector.store.logfile import chunk_bounds
    log = tmp_path / "log"
    log.write_bytes(b"aaaa\nbb\n\ncccccccc\nd\n")         # lines end at 5, 8, 9, 18, 20
    assert chunk_bounds(log, 20, 1) == [(0, 5), (5, 8), (8, 9), (9, 18), (18, 20)]
    assert chunk_bounds(log, 20, 6) == [(0, 8), (8, 18), (18, 20)]
    assert chunk_bounds(log, 20, 5) == [(0, 5), (5, 18), (18, 20)]
    assert chunk_bounds(log, 20, 4) == [(0, 5), (5, 9), (9, 18), (18, 20)]
    assert chunk_bounds(log, 20, 12) == [(0, 18), (18, 20)]
    assert chunk_bounds(log, 20, 14) == [(0, 20)]              # 20 < 14 + 7: one range
    assert chunk_bounds(log, 18, 100) == [(0, 18)]
    assert chunk_bounds(log, 0, 100) == []


def ranged_load(store, monkeypatch, size: int) -> Store:
    monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", str(size))
    return Store(store, warn=False)


@pytest.mark.parametrize("size, compact", [(1, False), (700, False), (2500, False), (1, True)])
def test_a_load_in_ranges_equals_a_load_in_one_piece(tmp_path, monkeypatch, size, compact):
    """compact: the tables loaded so far are compressed before every range (a big log's)."""
    root = small(tmp_path, 9)
    with LogWriter(store_paths(root)) as writer:        # an update and a cited summary
        writer.append([event_draft("update", "M3", "agent:1", before=entry("M3", attribute="a3",
                                                                                value=3),
                                   after=entry("M3", attribute="a3", value="new"))])
    lines = read_lines(root)
    write_lines(root, lines + [lines[-1][:30]], newline_at_end=False)     # a torn tail
    tables = ("SELECT * FROM versions ORDER BY seq", "SELECT * FROM entries ORDER BY memory_id",
              "SELECT * FROM edges ORDER BY ALL")
    whole = Store(root, warn=False)
    expected = [whole.con.execute(q).fetchall() for q in tables]
    assert (whole.head, len(expected[0]), len(expected[1])) == (f"10:{json.loads(lines[-1])['hash']}", 10, 9)
    if compact:
        import inspector.store.coldload as coldload
        monkeypatch.setattr(coldload, "COLD_COMPACT_BYTES", 0)
    ranged = ranged_load(root, monkeypatch, size)
    assert [ranged.con.execute(q).fetchall() for q in tables] == expected
    assert (ranged.head, ranged.state.offset, ranged.state.torn) == \
        (whole.head, whole.state.offset, lines[-1][:30])


def test_a_bad_line_in_a_later_range_is_named_with_the_count_of_the_whole_log(tmp_path,
                                                                              monkeypatch):
    root = small(tmp_path, 9)
    lines = read_lines(root)
    lines[5], lines[7] = b"not json", lines[7][:50]
    write_lines(root, lines)
    whole = load_error(root)
    assert (whole.line, whole.seq, whole.more) == (6, None, 1)
    monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", "1")
    ranged = load_error(root)
    assert (ranged.line, ranged.seq, ranged.reason, ranged.more) == (6, None, whole.reason, 1)
    assert str(ranged) == str(whole)


@pytest.fixture(params=["copy", "pipe"])
def range_source(request, monkeypatch) -> str:
    """How a range reaches DuckDB: an anonymous copy, or (where none can be made) a pipe."""
    if request.param == "pipe":
        import inspector.store.coldload as coldload
        monkeypatch.setattr(coldload, "copy_range", lambda path, start, end: None)
    return request.param


def test_a_range_duckdb_cannot_read_is_read_line_by_line(tmp_path, monkeypatch, range_source):
    """A range whose fast read fails (simulated: the read fails before it takes a byte) is read
    exactly; the pipe that fed it stops, or its copy is closed: the load neither hangs on a
    full pipe (the ranges, 100 KB, are larger than a pipe's buffer) nor loses a line nor keeps
    a descriptor, and no file is left beside the log."""
    import threading
    import inspector.store.coldload as coldload
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry(f"M{i}", attribute=f"a{i}", value="x" * 1000))
        for i in range(300)])
    assert log_path(root).stat().st_size > 250_000
    monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", "100000")
    real = coldload.sql

    def refusing(name):
        text = real(name)
        return "SELECT error('no fast read of ' || $path)" if name == "read_log" else text
    monkeypatch.setattr(coldload, "sql", refusing)
    fds, names = len(os.listdir("/proc/self/fd")), sorted(os.listdir(root))
    loaded = []
    worker = threading.Thread(target=lambda: loaded.append(Store(root, warn=False)), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the load hung on the pipe of a range DuckDB stopped reading"
    store = loaded[0]
    assert sorted(n for n in os.listdir(root) if n != ".inspector") == names
    assert store.con.execute("SELECT count(*) FROM versions").fetchone() == (300,)
    assert store.head == f"300:{json.loads(read_lines(root)[-1])['hash']}"
    store.close()                                   # (it holds the view file it attached)
    assert len(os.listdir("/proc/self/fd")) == fds


def test_a_feed_that_stops_short_is_not_taken_for_the_whole_range(tmp_path, monkeypatch,
                                                                  range_source):
    """The copy or the pipe delivered whole lines, but fewer than the range holds (the log
    could not be read to the end of the range): the rows agree with the lines fed, yet the
    range is read again line by line, so no line is skipped."""
    import inspector.store.coldload as coldload
    root = small(tmp_path, 8)
    monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", "2000")
    real_feed, real_copy = coldload.feed_pipe, coldload.copy_range

    def one_line_less(path, start, end):
        cut = path.read_bytes().rindex(b"\n", start, end - 1) + 1
        return cut if cut > start else end

    def short_feed(path, start, end, pipe, fed):
        real_feed(path, start, one_line_less(path, start, end), pipe, fed)

    def short_copy(path, start, end):
        return real_copy(path, start, one_line_less(path, start, end))
    monkeypatch.setattr(coldload, "feed_pipe", short_feed)
    if range_source == "copy":
        monkeypatch.setattr(coldload, "copy_range", short_copy)
    store = Store(root, warn=False)
    assert store.con.execute("SELECT count(*) FROM versions").fetchone() == (8,)
    assert [r[0] for r in store.con.execute("SELECT seq FROM versions ORDER BY seq").fetchall()] \
        == list(range(1, 9))


# -- reading backwards: exact at any block size, linear in a long line ------------------------

LINES = st.lists(st.one_of(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),
                           st.just(b"x" * 300)), max_size=12)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=LINES, torn=st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"")),
       block=st.integers(1, 9), cut=st.data())
def test_reading_backwards_finds_the_lines_a_forward_split_finds(tmp_path, monkeypatch, lines, torn,
                                                                block, cut):
    """read_tail and batches' last lines, read backwards a block at a time (small blocks here,
    so that a line spans many), against a plain split of the same bytes."""
    monkeypatch.setattr(logfile, "TAIL_BLOCK", block)
    monkeypatch.setattr(batches, "BLOCK", block)
    data = b"".join(line + b"\n" for line in lines) + torn
    path = tmp_path / "log"
    path.write_bytes(data)
    start = cut.draw(st.sampled_from([0] + [i + 1 for i, b in enumerate(data) if b == 10]))
    tail = logfile.read_tail(path, start)
    end = data.rfind(b"\n", start) + 1 if data.rfind(b"\n", start) >= 0 else start
    assert (tail.size, tail.end, tail.torn) == (len(data), end, data[end:])
    expected, offset = [], start
    for line in data[start:end].split(b"\n")[:-1]:
        if line:
            expected.append((offset, line))
        offset += len(line) + 1
    count = cut.draw(st.integers(1, 6))
    assert batches._last_lines(path, start, end, count) == expected[::-1][:count]
