"""The TUI's access to one store: the loaded Store, the belief view it shows, the row sources
its tables page from, and the planning and applying of actions. No widgets here: screens call
these from worker threads (each read takes its own DuckDB cursor) and post results back."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Iterator

from ..present.mask import mask_value
from ..store import beliefs, diff, revert, scan, snapshot
from ..store.actions import Request
from ..store.beliefs import Moment, ViewSpec
from ..store.connection import id_lists
from ..store.engine import duckdb
from ..store.load import Store
from ..store.registry import ACTIONS
from ..store.queries import sql
from .entry_detail import EntryReads, secret_row
from .overview import EventCounts, Overview, read_overview
from .sources import ListSource, TableSource, masked, rows_of  # noqa: F401 (ListSource: screens)


LIVE = ("active", "held")     # statuses a finding is still about (Findings, Overview)


def still_to_act_on(rule: str, status: str | None) -> bool:
    """A finding about a live entry; or personal data without a subject on any entry not yet
    erased (quarantined or rejected, it still holds the data, and an erasure by subject would
    miss it: `scan` reports it, and so do the Findings and Overview screens); or an id that
    holds personal data, on any entry: erased too, the id stays in the log."""
    if rule == "pii.in_id":
        return status is not None
    if rule == "pii.no_subject":
        return status is not None and status != "erased"
    return status in LIVE
# Findings the tab counts again after every change (Session.counts); more: when shown.
LIVE_COUNT_MAX = 20_000
# A belief view that started from a snapshot this many lines behind is left as the new one.
SNAPSHOT_LINES = 20_000
INDEXES = ("index_entries_id", "index_versions_id", "index_edges_src", "index_edges_dst",
           "index_known_ids_id", "index_version_keys")


def _rows(cursor) -> list[dict]:
    return rows_of(cursor)


class _BetweenLoads:
    """A reader's cursor whose statement, failing because a table it names is not there, is
    run again once the load in progress has ended. A reload (the log went back, was replaced,
    or an erasure rewrote it) empties the store's tables and swaps the view file they read
    under readers, which take no lock so that a long read never holds up a catch-up: between
    the two, `entries` is not there (helper-65's TUI run: a detail read raised, and the
    worker's error closed the app). Everything else is the cursor's own."""

    def __init__(self, cursor, lock) -> None:
        self._cursor, self._lock = cursor, lock

    def execute(self, *args, **kwargs):
        try:
            return self._cursor.execute(*args, **kwargs)
        except duckdb.CatalogException:
            with self._lock:            # the load in progress, if any, has ended
                pass
            return self._cursor.execute(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self._cursor, name)


class Session(EntryReads):
    """One store opened by the TUI, with the operator who acts on it."""

    def __init__(self, path: str | os.PathLike, *, scope: str | None = None,
                 operator: str = "operator", read_only: bool = False):
        self.path, self.scope, self.operator, self.read_only = path, scope, operator, read_only
        self.store: Store | None = None
        self.spec = ViewSpec(None, Moment.resolve())
        self.live_time = True          # the view follows "now" (no --as-of typed)
        self.as_of_typed = False       # a knowledge time was typed (the detail pane says so)
        self.valid_at_typed = False    # a valid time was typed (so does its "in context" line)
        self.needle = ""
        self.chain: dict | None = None  # the last audit --verify report
        self.last_result = None         # the plan last applied (an erasure's has its certificate)
        self._whole: Store | None = None
        self._built = None     # (spec, store generation, seq) the belief view was built for
        self._snapshot_seq = -SNAPSHOT_LINES   # the seq of the belief snapshot taken or left
        self.applied: list[tuple[str, str]] = []   # (batch, op) applied since the app opened
        self.reverted: list[str] = []   # batches of `applied` that z (or b) reverted since
        self.found: list[dict] | None = None   # the last scan's findings (Findings, Overview)
        self.found_at: tuple[int, int] | None = None   # (generation, seq) of the log it scanned
        self._scanning = threading.Lock()
        self._counts: EventCounts | None = None

    def open(self, on_whole_read=None) -> Store:
        """The store, loaded; on_whole_read(size, why) is called when the whole log is read."""
        self.store = Store(self.path, scope=self.scope, on_whole_read=on_whole_read)
        # Only the launch's read is announced: a later reload (a replaced log, taken live) is
        # the header's chain state, and a loading line set then would never be cleared.
        self.store.on_whole_read = None
        with self.store.lock:
            self.store.con.execute(sql("tui_order_create"))
            self.store.con.execute(sql("tui_changed_ids"), {"ids": []})
        return self.store

    def index(self) -> None:
        """Point-lookup indexes for what the screens ask on every keystroke."""
        with self.store.lock:
            for name in INDEXES:
                self.store.con.execute(sql(name))

    def drop_acting_store(self) -> None:
        """Forget the whole store actions plan on (a scoped view's): the next action reads the
        log again (not closed here: a worker may be reading it; it goes with its last user)."""
        self._whole = None

    def acting_store(self) -> Store:
        """The store actions plan on: the whole store, even when the view is scoped (a cascade
        that leaves the scope must be counted to be refused)."""
        if self.scope is None:
            return self.store
        if self._whole is None:
            self._whole = Store(self.path, warn=False)
        else:
            self._whole.refresh()
        return self._whole

    @contextmanager
    def reader(self) -> Iterator[Any]:
        cursor = self.store.cursor()
        try:
            yield _BetweenLoads(cursor, self.store.lock)
        finally:
            cursor.close()

    # -- the belief view ----------------------------------------------------------------------

    def set_view(self, context: str | None, as_of, valid_at) -> None:
        self.live_time = as_of is None and valid_at is None
        self.as_of_typed = as_of is not None
        self.valid_at_typed = valid_at is not None
        self.spec = ViewSpec(context, Moment.resolve(as_of, valid_at))

    def rebuild_view(self) -> int:
        """Materialize the view's beliefs and every screen's rows (each screen's spec names the
        statements); return the belief rows."""
        if self.live_time:
            self.spec = replace(self.spec, moment=Moment.resolve())
        with self.store.lock, self.reader() as cur:
            self._built = None               # until it is whole: a failure leaves it partial
            beliefs.materialize(cur, self.spec)
            beliefs.update_cites(cur)        # what the next live patch walks (only new versions)
            self.store.compact()             # before the screens' rows: a lower peak
            self._built = (self.spec, self.store.generation, self.store.state.seq)
            count = self._rows_of_screens(cur)
            self.store.compact()
            return count

    def open_view(self) -> int:
        """At launch: the belief snapshot a session left (snapshot.py) brought to now by the live
        path's patch, when there is one for this store, scope and view; else the view built
        whole. Either way every screen's rows are built."""
        if self.live_time:
            spec = replace(self.spec, moment=Moment.resolve())
            with self.store.lock, self.reader() as cur:
                store = self.store
                taken = snapshot.take(cur, store.paths, store.mark(), self.scope, spec.context)
                changed = None if taken is None else self._changed_since(cur, taken.seq)
                if changed is not None and beliefs.patch(cur, spec, taken.tk, changed) is not None:
                    self.spec = spec
                    self.store.compact()
                    self._built = (spec, store.generation, store.state.seq)
                    self._snapshot_seq = taken.seq
                    count = self._rows_of_screens(cur)
                    self.store.compact()
                    return count
        return self.rebuild_view()

    def save_snapshot(self) -> bool:
        """Leave the belief view as built for the next launch (snapshot.save), unless it came
        from a snapshot fewer than SNAPSHOT_LINES lines behind; a view at another moment than
        now is never left. Returns whether a snapshot was written."""
        with self.store.lock, self.reader() as cur:
            built, store = self._built, self.store
            if built is None or not self.live_time or built[1:] != (store.generation, store.state.seq) \
                    or store.state.seq - self._snapshot_seq < SNAPSHOT_LINES:
                return False
            written = snapshot.save(cur, store.paths, store.mark(), self.scope, built[0].context,
                                    built[0].moment.tk)
            if written:
                self._snapshot_seq = store.state.seq
            return written

    def view_behind(self) -> bool:
        """Whether the store loaded lines the belief view has not taken (False while none is
        built: the build in progress takes them)."""
        built = self._built
        return built is not None and \
            (built[1], built[2]) != (self.store.generation, self.store.state.seq)

    def take_appended(self) -> int:
        """After lines were appended and loaded: bring the view up to now by judging again only
        the keys the new events (and time) can have changed (beliefs.patch), then every
        screen's rows; a full rebuild when the view was not built live, or the store reloaded."""
        built = self._built
        if not self.live_time or built is None or built[1] != self.store.generation:
            return self.rebuild_view()
        spec = replace(self.spec, moment=Moment.resolve())
        with self.store.lock, self.reader() as cur, id_lists(cur):
            changed = self._changed_since(cur, built[2])
            if changed is None:
                return self.rebuild_view()
            count = beliefs.patch(cur, spec, built[0].moment.tk, changed)
            cur.execute(sql("tui_changed_ids"), {"ids": changed})
            if count is None:
                self._built = None           # until it is whole: a failure leaves it partial
                beliefs.materialize(cur, spec)
            self.spec = spec
            self._built = (spec, self.store.generation, self.store.state.seq)
            return self._rows_of_screens(cur, patched=count is not None)

    def _changed_since(self, cur, seq: int) -> list[str] | None:
        """The entries the lines after `seq` changed; None when one of them left the scope of
        a scoped store (the tables no longer show it, so a patch would keep its old rows: the
        view must be built whole)."""
        if self.scope is not None and \
                cur.execute(sql("ids_since_seq_left_scope"), {"seq": seq}).fetchone()[0]:
            return None
        return [i for (i,) in cur.execute(sql("ids_since_seq"), {"seq": seq}).fetchall()]

    def _rows_of_screens(self, cur, patched: bool = False) -> int:
        """Every screen's rows (each spec names its statements; after a belief patch, the
        statements that patch its rows where it has them); the caller holds the lock."""
        from .screens import specs
        scoped = self.scope is not None
        for screen in specs():
            names = screen.patch_statements(scoped) if patched else screen.rebuild_statements(scoped)
            for name in names:
                if isinstance(name, beliefs.Shift):
                    beliefs.shift(cur, name)
                else:
                    cur.execute(sql(name))
            if names and not patched:
                self.store.compact()     # each screen's new rows compressed before the next's
        return self._filter(cur)

    def refilter(self, text: str) -> int:
        self.needle = text.lower()
        with self.store.lock, self.reader() as cur:
            return self._filter(cur)

    def _filter(self, cur) -> int:
        if self.needle:
            cur.execute(sql("tui_beliefs_filtered"), {"needle": self.needle})
            cur.execute(sql("tui_beliefs_filtered_view"))
        else:
            cur.execute(sql("tui_beliefs_unfiltered"))
        return cur.execute(sql("tui_count"), {"table": "tui_beliefs"}).fetchone()[0]

    def table_source(self, table: str, **order) -> TableSource:
        """The rows of `table` (screen=, sort=, narrow=: see TableSource)."""
        return TableSource(self, table, **order)

    def visible(self, screen, ids: list[str]) -> set[str]:
        """Which of `ids` a screen's table shows (a screen without a table shows all it lists)."""
        if screen.table is None:
            return set(ids)
        with self.reader() as cur:
            return {i for (i,) in cur.execute(sql(screen.visible),
                                              {"table": screen.table, "ids": ids}).fetchall()}

    def visible_narrowed(self, screen, ids: list[str], narrow: tuple[str, str | None]) -> set[str]:
        """Which of `ids` a screen's table shows once narrowed to rows whose column narrow[0]
        reads narrow[1] (the F key); worker thread."""
        if screen.table is None:
            return set(ids)
        field, value = narrow
        with self.reader() as cur:
            return {i for (i,) in cur.execute(sql("tui_visible_narrowed"), {
                "table": screen.table, "ids": ids, "field": field, "value": value}).fetchall()}

    def find_belief(self, memory_id: str, scope: str, ordered: bool = False) -> int | None:
        """The position of `memory_id`'s belief row (in the operator's order when `ordered`)."""
        name = "tui_beliefs_find_ordered" if ordered else "tui_beliefs_find"
        with self.reader() as cur:
            row = cur.execute(sql(name), {"id": memory_id, "scope": scope}).fetchone()
        return row[0] if row else None

    def erasure_rows(self, plan) -> list[dict]:
        """The erasure preview's rows: each entry the plan erases or retains, with its fate,
        key and value (masked when secret)."""
        with self.reader() as cur:
            found = {r["memory_id"]: r for r in masked(rows_of(cur.execute(
                sql("tui_erase_preview"), {"ids": plan.erased + plan.retained})))}
        return [{**found.get(i, {}), "memory_id": i, "fate": fate}
                for fate, ids in (("erase", plan.erased), ("retain", plan.retained)) for i in ids]

    def subjects(self) -> list[dict]:
        """The data subjects the store knows ({"name", "entries"}), most entries first."""
        with self.reader() as cur:
            return rows_of(cur.execute(sql("tui_subjects")))

    def secret_ids(self, ids: list[str]) -> set[str]:
        """Which of `ids` are entries whose values are shown masked."""
        with self.reader() as cur:
            rows = rows_of(cur.execute(sql("tui_entry_tree"), {"ids": list(ids)}))
        return {r["memory_id"] for r in rows if secret_row(r)}

    def statuses(self, ids: list[str]) -> dict[str, str]:
        with self.reader() as cur:
            return dict(cur.execute(sql("tui_statuses"), {"ids": list(ids)}).fetchall())

    def hold_reasons(self, ids: list[str]) -> dict[str, str | None]:
        """The hold event's own reason of each of `ids` that is held (None: it gave none)."""
        with self.reader() as cur:
            return dict(cur.execute(sql("tui_hold_reasons"), {"ids": list(ids)}).fetchall())

    def event_pair(self, seq: int) -> tuple[dict | None, dict | None]:
        """An event's loaded row and the same entry's row before it (None: its first)."""
        with self.reader() as cur:
            rows = rows_of(cur.execute(sql("tui_event_pair"), {"seq": seq}))
        return (rows[0] if rows else None), (rows[1] if len(rows) > 1 else None)

    def hash_at(self, seq: int) -> str | None:
        with self.reader() as cur:
            row = cur.execute(sql("tui_hash_at"), {"seq": seq}).fetchone()
        return row[0] if row else None

    def counts(self) -> tuple[dict, dict]:
        """(events and entries for the header, rows per screen whose tab shows a count)."""
        from .screens import specs
        with self.reader() as cur:
            totals = _rows(cur.execute(sql("tui_counts")))[0]
            shown = {s.name: cur.execute(sql("tui_count"), {"table": s.table}).fetchone()[0]
                     for s in specs() if s.count and s.table}
        found = self.found
        if found is not None and len(found) <= LIVE_COUNT_MAX:
            # the last scan's findings still to act on, statuses as now (a bigger scan's tab
            # count is the Findings screen's, taken when it is shown: 283,000 findings at 5M
            # events cost about 1 s of statuses after every change)
            shown["findings"] = len(self.live_findings(found))
        return totals, shown

    # -- what z reverts ------------------------------------------------------------------------

    def record(self, done) -> None:
        """A plan was applied: its batch is the newest z reverts; a revert of a batch applied
        here takes that batch off the list (so z again goes one batch further back, as
        lazygit's undo). A revert of any other batch (b on the Audit screen) is the operator's
        newest batch like any action: z reverts it, putting back what it undid."""
        if done.request.action == "revert" and any(a[0] == done.request.batch for a in self.applied):
            self.reverted.append(done.request.batch)
            self.applied = [a for a in self.applied if a[0] != done.request.batch]
            return
        batch = getattr(done, "batch", None) or (getattr(done, "certificate", None) or {}).get("id")
        if batch:
            self.applied.append((batch, done.request.action))

    def drop_reverted(self) -> list[str]:
        """Take off the end of `applied` the batches a revert undid since they were applied
        here, by another process or the Audit screen's b (revert events carry body.reverts):
        z then offers the newest batch still standing, never one every plan refuses. The
        batches taken off, newest first."""
        dropped = []
        while self.applied and self.applied[-1][1] != "erase":
            batch = self.applied[-1][0]
            # the store the screens read (a scoped one sees the batch's entries in its scope):
            # loading the whole store here, as a scoped session's plans do, would stall the keys
            with self.store.lock:
                if not revert.is_reverted(self.store, batch):
                    break
            self.applied.pop()
            self.reverted.append(batch)
            dropped.append(batch)
        return dropped

    # -- the Overview, the scan, the diff ---------------------------------------------------

    def overview(self) -> Overview:
        """The Overview's numbers; the events are counted from where the last call stopped."""
        with self.store.lock, self.reader() as cur:
            found = read_overview(cur, self._counts, self.store.generation, self.store.state.seq)
        self._counts = found.counts
        return found

    def findings(self, rescan: bool = False, progress=None, cancelled=None) -> list[dict]:
        """The last scan's findings (one scan at a time: a second caller waits for the first's
        and takes it); `rescan` scans again. Raises scan.Cancelled."""
        with self._scanning:
            if rescan or self.found is None:
                at = (self.store.generation, self.store.state.seq)
                self.found = [{**f.as_json(), "row_key": n} for n, f in enumerate(
                    scan.scan(self.store, progress, cancelled, keep_view=True))]
                self.found_at = at
            return self.found

    def findings_behind(self) -> int | None:
        """None while the last scan is of the log as loaded now; else how many events were
        appended since it (0 when the log was read again whole: it may differ in any way).
        The findings' statuses are always current (live_findings); what a scan finds in
        entries written since, or in new versions, is not in them until the next scan."""
        if self.found_at is None or self.store is None:
            return None
        generation, seq = self.found_at
        if generation != self.store.generation:
            return 0
        if seq == self.store.state.seq:
            return None
        if self.scope is None:
            return max(0, self.store.state.seq - seq)
        # A --scope session scans what lies inside its scope: events outside it change none of
        # its findings (helper-64: an append to another tenant marked them stale)
        with self.reader() as cur:
            since = cur.execute(sql("tui_events_since"), {"seq": seq}).fetchone()[0]
        return since or None

    def live_findings(self, found: list[dict]) -> list[dict]:
        """The findings still to act on (still_to_act_on), with their entry's status."""
        statuses = self.statuses(sorted({f["memory_id"] for f in found}))
        return [{**f, "status": statuses[f["memory_id"]]} for f in found
                if still_to_act_on(f["rule"], statuses.get(f["memory_id"]))]

    def diff(self, t1, t2) -> tuple[list[dict], int]:
        """What changed between t1 and t2 in the view's context (DESIGN §5a), values masked
        where the entry is secret, and how many entries were erased in the window."""
        with self.store.lock, self.reader() as cur:
            changes = diff.changes(cur, t1, t2, self.spec.context)
            n_erased, _ = diff.erased(cur, t1, t2)
        secret = self.secret_ids([side["memory_id"] for c in changes
                                  for side in (c["before"], c["after"]) if side])
        for change in changes:
            for side in (change["before"], change["after"]):
                if side and side["memory_id"] in secret:
                    side["value"] = mask_value(side["value"])
        return changes, n_erased


PLACEHOLDER_REASON = "(reason asked at confirm)"


def plan_action(session: Session, name: str, ids: list[str], subject: str | None = None,
                cascade: bool | None = None, batch: str | None = None):
    """The plan of a registry action, with a placeholder reason (the modal asks for the real
    one). A whole-store action (erase) plans on the whole store, the others inside the scope.
    `batch`: the batch a revert puts back."""
    action = ACTIONS[name]
    request = Request(name, PLACEHOLDER_REASON, session.operator, tuple(ids), cascade=cascade,
                      scope=None if action.whole_store else session.scope, subject=subject,
                      batch=batch, reason_pending=True)
    store = session.store if action.whole_store else session.acting_store()
    with store.lock:
        return action.plan(store, request)


def apply_action(session: Session, plan, reason: str):
    """Apply a reviewed plan with the reason the operator typed."""
    store = session.store if plan.action.whole_store else session.acting_store()
    with store.lock:
        done = plan.action.apply(store, replace(plan, request=replace(
            plan.request, reason=reason, reason_pending=False)))
    if store is not session.store:
        session.store.refresh()
    return done
