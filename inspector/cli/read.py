"""The read commands: beliefs, show, held, conflicts, lineage, scan, diff, audit (and its
--log), report. Each loads the store (or the part inside --scope), asks the core, and prints
one JSON document with --json or sanitized tables without it (ids whole; --wide: values whole
too; secret values masked unless --reveal-secrets)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional

import typer

from ..store import audit as audit_mod
from ..store import auditlog
from ..store import beliefs as beliefs_mod
from ..store import diff as diff_mod
from ..store import entries, lineage as lineage_mod
from ..store import view
from ..store.reports import masking_fields
from ..store.errors import BadInput
from ..store.lean import WHOLE_CAP, capped
from ..store.load import Store
from ..store.logfile import store_paths
from ..store.model import format_time, is_within, scope_filter_error
from ..store.queries import sql
from ..store.recovery import settle_if_idle
from . import jsonout
from .common import (JSON, NO_SCOPE, SCOPE, app, lazy, open_store, refuse_scope, run, time_option,
                     where)

output = lazy("inspector.cli.output")     # Rich tables: imported only when a command prints them

WIDE = typer.Option(False, "--wide", help="Show whole values and cut no column (lines may be "
                                          "longer than the terminal). Ids are never cut.")
REVEAL = typer.Option(False, "--reveal-secrets",
                      help="Show secret values whole (they are masked by default; --json never masks).")


def display(con, ids, wide: bool, reveal: bool) -> output.Display:
    """How to print: whole or cut values, and what masking needs to know about `ids`."""
    return output.Display(wide, reveal, {} if reveal else masking_fields(con, sorted(set(ids))))


def context_option(context: str | None, scope: str | None) -> None:
    """BadInput for a --context with an empty segment (helper-63: `beliefs --context 'a//b'`
    answered nothing, while `--scope 'a//b'` was refused with the scope meant), and for one
    outside --scope: an entry is seen from a context only from its own scope or an ancestor,
    and --scope keeps only entries inside it, so nothing could be seen (it answered nothing,
    without a word: helper-78)."""
    if (why := scope_filter_error(context, "--context")) is not None:
        raise BadInput(why)
    if context is not None and scope and not is_within(context, scope):
        raise BadInput(f"--context {context!r} is outside --scope {scope!r}, so no entry of the "
                       f"scope is visible from it; give a context inside {scope!r} (or "
                       f"{scope!r} itself)")


@app.command()
def beliefs(store: Path, context: Optional[str] = typer.Option(None, "--context", metavar="C",
                                                               help="Answer for an agent working in scope C."),
            as_of: Optional[str] = typer.Option(None, "--as-of", metavar="T",
                                                help="Knowledge time (and valid time unless --valid-at)."),
            valid_at: Optional[str] = typer.Option(None, "--valid-at", metavar="T", help="Valid time."),
            as_json: bool = JSON, scope: Optional[str] = SCOPE, wide: bool = WIDE,
            reveal_secrets: bool = REVEAL):
    """What the agent believes by the inspector's rule: one row per scope and key."""
    def go():
        moment = beliefs_mod.Moment.resolve(time_option(as_of, "--as-of"), time_option(valid_at, "--valid-at"))
        context_option(context, scope)
        spec = beliefs_mod.ViewSpec(context, moment)
        loaded = open_store(store, scope)
        rows = map(beliefs_mod.belief_json, beliefs_mod.each_belief_of(loaded.con, spec, WHOLE_CAP))
        rest = {"context": context, "as_of": format_time(moment.tk),
                "valid_at": format_time(moment.tv), "rule": beliefs_mod.RULE_NOTE}
        if as_json:
            return jsonout.print_json_list("beliefs", rows, rest)
        rows = list(rows)
        doc = {"beliefs": rows, **rest}
        output.print_beliefs(doc, display(loaded.con, [r["memory_id"] for r in rows], wide, reveal_secrets))
    run(go, store)


@app.command()
def show(store: Path, memory_id: str = typer.Argument(..., metavar="ID"), as_json: bool = JSON,
         scope: Optional[str] = SCOPE, wide: bool = WIDE, reveal_secrets: bool = REVEAL):
    """One entry: its state, history, rivals in its own scope, and lineage."""
    def go():
        loaded = open_store(store, scope)
        doc = capped(loaded.con, lambda: entries.show(loaded.con, memory_id, where(loaded)))
        if as_json:
            return jsonout.print_json(doc)
        ids = [memory_id] + [r["memory_id"] for r in doc["rivals"]]
        output.print_show(doc, display(loaded.con, ids, wide, reveal_secrets))
    run(go, store)


@app.command()
def held(store: Path, as_json: bool = JSON, scope: Optional[str] = SCOPE, wide: bool = WIDE,
         reveal_secrets: bool = REVEAL):
    """The held queue: writes the gate held for review, with the reason each was held."""
    def go():
        loaded = open_store(store, scope)
        if as_json:
            return jsonout.print_json_list("held", entries.each_held(loaded.con), {})
        doc = {"held": list(entries.each_held(loaded.con))}
        output.print_held(doc, output.Display(wide, reveal_secrets))
    run(go, store)


@app.command()
def conflicts(store: Path, as_json: bool = JSON, scope: Optional[str] = SCOPE, wide: bool = WIDE):
    """Beliefs with markers (contested, claim/inference disagrees, vetoed newer)."""
    def go():
        loaded = open_store(store, scope)
        found = beliefs_mod.each_conflict_of(loaded.con, beliefs_mod.ViewSpec(None, beliefs_mod.Moment.resolve()),
                                             WHOLE_CAP)
        if as_json:
            return jsonout.print_json_list("conflicts", found, {})
        output.print_conflicts({"conflicts": list(found)}, output.Display(wide))
    run(go, store)


@app.command()
def lineage(store: Path, memory_id: str = typer.Argument(..., metavar="ID"), as_json: bool = JSON,
            scope: Optional[str] = SCOPE):
    """What an entry rests on, what rests on it, and how many independent sources it has."""
    def go():
        loaded = open_store(store, scope)
        entries.require(loaded.con, memory_id, where(loaded))
        doc = capped(loaded.con, lambda: lineage_mod.lineage(loaded.con, memory_id).as_json())
        jsonout.print_json(doc) if as_json else output.print_lineage(doc)
    run(go, store)


@app.command()
def scan(store: Path, fail_on: Optional[str] = typer.Option(None, "--fail-on", metavar="SEV",
                                                          help="Exit 1 when a finding at or above SEV (low, medium, high) exists."),
         as_json: bool = JSON, scope: Optional[str] = SCOPE, wide: bool = WIDE,
         reveal_secrets: bool = REVEAL):
    """Findings: planted instructions, credentials, scope leaks, echoes, cycles, personal data."""
    def go():
        from ..store import scan as scan_mod
        if fail_on is not None and fail_on not in ("low", "medium", "high"):
            raise BadInput(f"--fail-on must be low, medium or high, not {fail_on!r}")
        loaded = open_store(store, scope)
        findings = scan_mod.findings(loaded, cap=WHOLE_CAP)
        if as_json:
            jsonout.print_json_list("findings", (f.as_json() for f in findings), {})
        else:
            from ..report.incident import masked_findings
            doc = {"findings": [f.as_json() for f in findings]}
            shown = doc if reveal_secrets else {"findings": masked_findings(loaded, doc["findings"])}
            output.print_findings(shown, output.Display(wide, reveal_secrets))
        if fail_on and findings.at_or_above(fail_on):
            raise typer.Exit(1)
    run(go, store)


@app.command()
def audit(store: Path, verify: bool = typer.Option(False, "--verify", help="Check every digest and link of the chain."),
          expect_heads: Optional[List[str]] = typer.Option(None, "--expect-head", metavar="SEQ:HASH",
                                                           help="Check that the line at SEQ still has HASH."),
          log: bool = typer.Option(False, "--log", help="List the events: who did what, when, to "
                                                        "which entry, in which batch, why."),
          since: Optional[str] = typer.Option(None, "--since", metavar="T",
                                              help="With --log: events at or after T."),
          until: Optional[str] = typer.Option(None, "--until", metavar="T",
                                              help="With --log: events at or before T."),
          memory: Optional[str] = typer.Option(None, "--memory", metavar="ID",
                                               help="With --log: events of entry ID only."),
          as_json: bool = JSON, scope: Optional[str] = NO_SCOPE, wide: bool = WIDE):
    """The log's head and counts; --verify checks the chain line by line; --log lists the events."""
    def go():
        refuse_scope(scope, "audit")
        expect_head = _one_head(expect_heads)
        if log:
            return _audit_log(store, since, until, memory, as_json, wide,
                              verify or expect_head is not None)
        if since or until or memory:
            raise BadInput("--since, --until and --memory filter the event list: add --log")
        paths = store_paths(store)
        if expect_head is not None:
            try:
                audit_mod.parse_head(expect_head)
            except ValueError as exc:
                raise BadInput(f"--expect-head: {exc}") from None
        if verify or expect_head is not None:
            if (settled := settle_if_idle(paths)) is not None:     # a crashed erasure: the
                output.say(f"note: {settled}")      # log is checked as it ends
            doc = audit_mod.verify(paths, expect_head).as_json()
            if doc["ok"] is False:
                _discard_view(paths)      # never answer from a view of a log found tampered with
        else:
            doc = audit_summary(open_store(store))
        jsonout.print_json(doc) if as_json else output.print_audit(doc)
        if doc["ok"] is False:
            raise typer.Exit(1)
    run(go, store)


def _discard_view(paths) -> None:
    """Delete the view of a log found tampered with; where it cannot be deleted (a read-only
    store: the copy one verifies as evidence) the verdict stands and one note says so."""
    failed = view.discard(paths)
    if failed is not None:
        output.say(f"note: {paths.root}: the view of the log (.inspector/) could not be deleted "
                   f"({failed.strerror or failed}); other commands may answer from it rather than from the "
                   "log as it is now: delete it where the store can be written")


def _one_head(heads: Optional[List[str]]) -> Optional[str]:
    """The one --expect-head given: a second would silently replace the first (the last wins),
    so a head that is checked could be a different one from the head the caller meant."""
    if heads and len(heads) > 1:
        raise BadInput(f"--expect-head is given {len(heads)} times: give one SEQ:HASH (run "
                       "`inspector audit` once per head to check several)")
    return heads[0] if heads else None


def _audit_log(store: Path, since: Optional[str], until: Optional[str], memory: Optional[str],
               as_json: bool, wide: bool, checking) -> None:
    if checking:
        raise BadInput("--log lists events; --verify and --expect-head check the chain: run them "
                       "as two commands")
    t1, t2 = time_option(since, "--since"), time_option(until, "--until")
    loaded = open_store(store)
    if as_json:
        return jsonout.print_json_list("events", auditlog.each_event(loaded.con, t1, t2, memory),
                                      auditlog.filters(t1, t2, memory))
    output.print_audit_log(auditlog.document(loaded.con, t1, t2, memory), output.Display(wide))


def audit_summary(store: Store) -> dict:
    """Counts and head from a structural load; the chain itself is not checked (ok: null)."""
    counts = store.con.execute(sql("audit_counts")).fetchone()
    return {"ok": None, "events": counts[0], "head": store.head, "redacted": counts[1],
            "unchained": store.state.unchained, "first_bad_seq": None,
            "problem": "not verified: run with --verify to check the chain",
            "torn_bytes": len(store.state.torn)}


@app.command()
def diff(store: Path,
         since: str = typer.Option(..., "--from", metavar="T1", help="The earlier time."),
         to: Optional[str] = typer.Option(None, "--to", metavar="T2", help="The later time (default: now)."),
         context: Optional[str] = typer.Option(None, "--context", metavar="C",
                                               help="Compare what an agent working in scope C sees."),
         as_json: bool = JSON, scope: Optional[str] = SCOPE, wide: bool = WIDE,
         reveal_secrets: bool = REVEAL):
    """What the agent started or stopped believing between two times, and the events that made it."""
    def go():
        t1 = time_option(since, "--from")
        t2 = time_option(to, "--to") or beliefs_mod.Moment.resolve().tk
        context_option(context, scope)
        loaded = open_store(store, scope)
        doc = diff_mod.document(loaded.con, t1, t2, context)
        if as_json:
            return jsonout.print_json(doc)
        ids = [side["memory_id"] for c in doc["changes"] for side in (c["before"], c["after"]) if side]
        output.print_diff(doc, display(loaded.con, ids, wide, reveal_secrets))
    run(go, store)


def _inside_but_not_reports(store: Path, out: Path) -> bool:
    """Whether `out` lands in the store's directory, but not under its reports/ (links and
    `..` followed as far as they exist)."""
    root, where = store.resolve(), _resolved(out)
    return where.is_relative_to(root) and not where.is_relative_to(root / "reports")


def _resolved(out: Path) -> Path:
    return out.parent.resolve() / out.name


@app.command()
def report(store: Path,
           since: Optional[str] = typer.Option(None, "--since", metavar="T",
                                               help="Start of the window (default: the first event)."),
           until: Optional[str] = typer.Option(None, "--until", metavar="T",
                                               help="End of the window (default: now)."),
           fmt: str = typer.Option("html", "--format", metavar="html|md", help="html (default) or md."),
           out: Optional[str] = typer.Option(None, "--out", metavar="FILE",
                                              help="Write here instead of <store>/reports/ (erasure "
                                                   "will not find it there)."),
           as_json: bool = JSON, scope: Optional[str] = NO_SCOPE):
    """An incident report for a window: one self-contained HTML or Markdown file, secrets masked."""
    def go():
        from .. import report as report_mod
        refuse_scope(scope, "report")
        t1, t2 = time_option(since, "--since"), time_option(until, "--until")
        if out == "":           # Path("") is ".", which names no file
            raise BadInput("--out '' names no file: give the path of a new file, or leave --out "
                           "out to write under the store's reports/")
        if out is not None and (out.endswith(("/", os.sep)) or Path(out).is_dir()
                                or _resolved(Path(out)) == store.resolve() / "reports"):
            raise BadInput(f"--out {out}: a directory, not a file: give the path of a new file "
                           "(reports/NAME inside the store), or leave --out out to write under "
                           "the store's reports/; nothing written")
        if out is not None and _inside_but_not_reports(store, Path(out)):
            raise BadInput(f"--out {out}: inside the store but outside its reports/, where erasure "
                           "would neither find nor delete it: write it under reports/ (leave "
                           "--out out, or give reports/NAME) or outside the store; nothing written")
        written = report_mod.write(open_store(store), t1, t2, fmt, None if out is None else Path(out))
        doc = written.as_json()
        jsonout.print_json(doc) if as_json else output.print_report(doc, written.in_reach)
        if as_json and not written.in_reach:
            output.say(f"note: {doc['path']} is outside the store's reports/ directory: erasure "
                       "will not find or delete it; keep it as carefully as the store")
    run(go, store)
