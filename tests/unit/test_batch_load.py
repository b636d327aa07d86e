"""All or nothing, as the loaders read it (DESIGN §5): a batch cut short in the middle of the
log (a crash, then another tool's lines after it) stops every load, in the audit's words, and
is never applied in part (stop 56's helper-61: every reader applied its first events). The
runs of a batch are joined across a cold load's ranges and across the view's catch-up, so a
whole batch cut by a range boundary still loads."""

from __future__ import annotations

import pytest

from storegen import entry
from inspector.store.batches import Run, cut_short, join_runs
from inspector.store.chain import GENESIS, canonical, seal_after
from inspector.store.errors import LogProblem
from inspector.store.load import Store

# 1: a range a line; 97 and 300: ranges that cut batches in places; None: one piece
CHUNKS = (1, 97, 300, None)


def draft(memory_id: str, batch: str | None = None, size: int | None = None) -> dict:
    out = {"actor": "operator:alice", "op": "write", "memory_id": memory_id, "batch": batch,
           "body": {"before": None, "after": entry(memory_id, entity=memory_id, value=memory_id),
                    "reason": None}}
    if size is not None:
        out["batch_size"] = size
    return out


def write_log(root, drafts: list[dict], seq: int = 0, prev: str = GENESIS) -> list[dict]:
    """Chain `drafts` after (seq, prev) and append them to root's log."""
    events = seal_after(drafts, seq, prev, "2025-01-01T00:00:00Z")
    root.mkdir(exist_ok=True)
    with open(root / "events.jsonl", "ab") as f:
        f.write(b"".join(canonical(e) + b"\n" for e in events))
    return events


def load(root, monkeypatch, chunk: int | None) -> Store:
    if chunk is None:
        monkeypatch.delenv("INSPECTOR_COLD_CHUNK_BYTES", raising=False)
    else:
        monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", str(chunk))
    for view in (root / ".inspector").glob("view*"):
        view.unlink()                       # a cold load each time
    return Store(root, warn=False)


def ids(store: Store) -> list[str]:
    return [r[0] for r in store.con.execute("SELECT memory_id FROM entries ORDER BY memory_id")
            .fetchall()]


@pytest.mark.parametrize("chunk", CHUNKS)
def test_whole_batches_load_whatever_ranges_cut_them(tmp_path, monkeypatch, chunk):
    root = tmp_path / "s"
    write_log(root, [draft("M1"), draft("M2", "B2", 3), draft("M3", "B2", 3), draft("M4", "B2", 3),
                     draft("M5", "B3", 2), draft("M6", "B3", 2), draft("M7")])
    store = load(root, monkeypatch, chunk)
    assert (ids(store), store.state.seq, store.state.open_batch) == (
        ["M1", "M2", "M3", "M4", "M5", "M6", "M7"], 7, None)


@pytest.mark.parametrize("chunk", CHUNKS)
def test_a_batch_cut_short_with_lines_after_it_stops_the_load(tmp_path, monkeypatch, chunk):
    root = tmp_path / "s"
    write_log(root, [draft("M1"), draft("M2", "B2", 3), draft("M3", "B2", 3),
                     draft("M4", "B3", 2), draft("M5", "B3", 2), draft("M6")])
    with pytest.raises(LogProblem) as refused:
        load(root, monkeypatch, chunk)
    assert (refused.value.line, refused.value.seq, refused.value.reason, refused.value.more) == (
        2, 2, "batch B2 has 2 of its 3 events, and lines follow it: it was cut short, and an "
              "action is applied whole or not at all", 0)


@pytest.mark.parametrize("chunk", CHUNKS)
def test_a_cut_batch_before_the_unfinished_last_batch_stops_the_load(tmp_path, monkeypatch, chunk):
    """The last batch, unfinished, is set aside like a torn line; the one cut short before it
    has lines after it (the set-aside ones)."""
    root = tmp_path / "s"
    write_log(root, [draft("M1"), draft("M2", "B2", 2), draft("M3", "B3", 3), draft("M4", "B3", 3)])
    with pytest.raises(LogProblem) as refused:
        load(root, monkeypatch, chunk)
    assert (refused.value.line, refused.value.seq, refused.value.reason, refused.value.more) == (
        2, 2, cut_short("B2", 1, 2), 0)


@pytest.mark.parametrize("chunk", CHUNKS)
def test_two_cut_batches_name_the_first_and_count_the_other(tmp_path, monkeypatch, chunk):
    root = tmp_path / "s"
    write_log(root, [draft("M1", "B1", 2), draft("M2"), draft("M3", "B3", 4), draft("M4", "B3", 4),
                     draft("M5")])
    with pytest.raises(LogProblem) as refused:
        load(root, monkeypatch, chunk)
    assert (refused.value.line, refused.value.seq, refused.value.reason) == (
        1, 1, cut_short("B1", 1, 2))
    # a load in ranges reads the rest of the log in one piece once a range is refused, so the
    # count is the same whatever the ranges
    assert refused.value.more == 1


def test_a_line_written_after_an_unfinished_batch_stops_the_catch_up(tmp_path, monkeypatch):
    """The batch set aside while it was the last; another tool then writes after it (the
    inspector's writer moves it to torn/ first): the running reader refuses the catch-up, and
    so does a new one, instead of applying the batch's first event."""
    root = tmp_path / "s"
    (first,) = write_log(root, [draft("M1")])
    (cut,) = write_log(root, [draft("M2", "B2", 2)], 1, first["hash"])
    store = load(root, monkeypatch, None)
    assert (ids(store), store.state.seq, store.state.offset) == (
        ["M1"], 1, len(canonical(first)) + 1)
    assert store.state.warnings == [
        f"{store.paths.log}: ignored an incomplete last line or an unfinished batch "
        f"({len(canonical(cut)) + 1} bytes at offset {len(canonical(first)) + 1}); the next "
        f"append moves it to torn/{len(canonical(first)) + 1}"]
    write_log(root, [draft("M3")], 2, cut["hash"])
    for reader in (store.refresh, lambda: Store(root, warn=False)):
        with pytest.raises(LogProblem) as refused:
            reader()
        assert (refused.value.line, refused.value.seq, refused.value.reason) == (
            2, 2, cut_short("B2", 1, 2))
    assert (ids(store), store.state.seq) == (["M1"], 1)


def test_join_runs_goes_on_with_the_run_the_lines_before_left_short():
    b2 = Run(first_line=9, last_line=10, first_seq=9, batch="B2", size=4, n=2)
    # the next range starts with the rest of B2, and ends inside B5
    runs = [Run(11, 12, 11, "B2", 4, 2), Run(20, 20, 20, "B5", 3, 1)]
    assert join_runs(b2, runs, 11, 20, ends=False) == (Run(20, 20, 20, "B5", 3, 1), [])
    assert join_runs(b2, runs, 11, 20, ends=True) == (None, [Run(20, 20, 20, "B5", 3, 1)])
    # a line of another batch, or none, comes first: B2 was cut short
    assert join_runs(b2, [], None, None, ends=False) == (None, [b2])
    assert join_runs(b2, [Run(11, 11, 11, "B7", 2, 1)], 11, 11, ends=False) == (
        Run(11, 11, 11, "B7", 2, 1), [b2])
    # the same batch id again, but not where B2 left off, is another run
    assert join_runs(b2, [Run(12, 13, 12, "B2", 4, 2)], 11, 13, ends=True) == (
        None, [b2, Run(12, 13, 12, "B2", 4, 2)])
