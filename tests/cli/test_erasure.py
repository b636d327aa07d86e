"""Erasure (DESIGN §6): certificate, redaction, chain, suppression, legal hold, residue."""

from __future__ import annotations

import base64
import json
import secrets
import sys
import urllib.parse
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402
from logtools import read_lines, readable_bytes  # noqa: E402
from storegen import entry, write_store  # noqa: E402
from inspector.store.chain import canonical, sha256_hex  # noqa: E402
from inspector.store.gate import subject_digest  # noqa: E402


def erase(store, *args):
    return inspector("erase", store, *args, "--operator", "dana", "--json")


def test_erase_a_subject(sample):
    store = sample("moved-city")
    head_before = inspector("audit", store, "--json").json["head"]
    result = erase(store, "--subject", "user:42", "--reason", "DSR-2291")
    assert result.code == 0, result.stderr
    cert = result.json["certificate"]
    assert cert["erased_ids"] == ["H1", "H2", "H3", "H4", "H5", "H6"] and cert["retained_ids"] == []
    assert cert["redacted_seqs"] == [1, 2, 3, 4, 5, 6]
    assert cert["counts"] == {"entries": 6, "events_redacted": 6, "retained": 0, "observation": 5,
                              "inference": 1}
    assert cert["head_before"] == head_before
    assert cert["subject_digest"] == subject_digest(cert["salt"], "user:42")
    lines = [json.loads(l) for l in read_lines(store)]
    assert [l["body"] for l in lines[:6]] == [{"erased": cert["id"]}] * 6
    assert [(l["op"], l["memory_id"]) for l in lines[6:]] == [("erase", f"H{i}") for i in range(1, 7)]
    assert lines[6]["body"]["before"] is None and lines[6]["body"]["reason"] == "DSR-2291"
    written = json.loads((store / "certificates" / f"{cert['id']}.json").read_text())
    assert written == cert
    unsigned = {k: v for k, v in cert.items() if k != "head_after"}
    assert lines[6]["body"]["after"]["certificate_digest"] == sha256_hex(canonical(unsigned))
    assert cert["head_after"] == f"12:{lines[-1]['hash']}"
    audit = inspector("audit", store, "--verify", "--expect-head", head_before, "--json")
    assert audit.code == 0 and (audit.json["redacted"], audit.json["ok"]) == (6, True)
    assert inspector("beliefs", store, "--json").json["beliefs"] == []
    assert inspector("show", store, "H1", "--json").json["entry"]["status"] == "erased"


def test_a_dry_run_erases_nothing(sample):
    store = sample("moved-city")
    before = (store / "events.jsonl").read_bytes()
    doc = erase(store, "--subject", "user:42", "--reason", "DSR-1", "--dry-run").json
    assert (doc["dry_run"], doc["certificate"]["id"], doc["certificate"]["head_after"]) == (True, None, None)
    assert doc["certificate"]["erased_ids"] == ["H1", "H2", "H3", "H4", "H5", "H6"]
    assert (store / "events.jsonl").read_bytes() == before and not (store / "certificates").exists()


def test_the_human_erasure_names_the_seqs_it_redacted(sample):
    """It printed "redacted seqs  6", a count under a label that names seqs (helper-58)."""
    store = sample("moved-city")
    out = inspector("erase", store, "--subject", "user:42", "--reason", "DSR-7",
                    "--operator", "dana").stdout.splitlines()
    assert "  redacted seqs  1, 2, 3, 4, 5, 6" in out


def test_a_later_write_about_the_subject_is_held(sample, tmp_path):
    store = sample("moved-city")
    erase(store, "--subject", "user:42", "--reason", "DSR-2291")
    feed = tmp_path / "feed.jsonl"
    feed.write_text(json.dumps({"id": "N1", "entity": "user:42", "attribute": "home_city",
                                "value": "Porto", "kind": "observation", "source": "user:42/chat",
                                "observed_at": "2026-11-01T00:00:00Z", "scope": "user:42"}) + "\n"
                    + json.dumps({"id": "N2", "entity": "user:7", "attribute": "home_city",
                                  "value": "Oslo", "kind": "observation", "source": "user:7/chat",
                                  "observed_at": "2026-11-01T00:00:00Z", "scope": "user:7"}) + "\n")
    doc = inspector("ingest", store, feed, "--actor", "agent:427", "--json").json
    assert doc["held_ids"] == {"N1": "suppressed_subject"} and doc["written"] == 1


def test_legal_hold_is_retained_but_its_descendants_are_not(tmp_path):
    store = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", entity="user:9", subject="user:9", value="x1")),
        ("2025-01-01T00:00:01Z", "write", entry("B", entity="user:9", attribute="b", subject="user:9",
                                                value="x2", retention="legal_hold")),
        ("2025-01-01T00:00:02Z", "write", entry("C", entity="report", attribute="c", kind="summary",
                                                value="x3", justification=["B"])),
        ("2025-01-01T00:00:03Z", "write", entry("D", entity="other", attribute="d", value="x4"))])
    cert = erase(store, "--subject", "user:9", "--reason", "DSR-9").json["certificate"]
    assert (cert["erased_ids"], cert["retained_ids"]) == (["A", "C"], ["B"])
    assert inspector("show", store, "B", "--json").json["entry"]["value"] == "x2"


def test_erase_by_id_takes_descendants_and_keeps_no_suppression(sample):
    store = sample("branch-contamination")
    cert = erase(store, "M2", "--reason", "INC-77").json["certificate"]
    assert cert["erased_ids"] == ["M2", "M3", "M4", "M5", "M6", "M7"]
    assert (cert["subject_digest"], cert["salt"]) == (None, None)
    assert inspector("audit", store, "--verify", "--json").json["ok"] is True
    again = erase(store, "M2", "--reason", "INC-77")
    assert again.code == 3 and again.stderr == "error: M2 is erased already; nothing written\n"


def test_a_backup_restored_from_before_the_erase_event_still_refuses_every_action(tmp_path):
    """The log cut back to a line after the redaction but before the erase events (a backup
    taken mid-erasure, restored): the entry's last line is a redacted write, with no state.
    Every action on it is refused in one line, and nothing is written."""
    import os
    store = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry(f"M{i}", value=i))
                                         for i in range(3)])
    assert erase(store, "M1", "--reason", "DSR-5").code == 0
    lines = read_lines(store)
    assert [json.loads(l)["op"] for l in lines] == ["write", "write", "write", "erase"]
    (store / "restored").write_bytes(b"".join(l + b"\n" for l in lines[:3]))
    (store / "restored").chmod(0o600)
    os.replace(store / "restored", store / "events.jsonl")
    for action, allowed in (("quarantine", "active, held"), ("approve", "held"),
                            ("retract", "active, held, quarantined")):
        done = inspector(action, store, "M1", "--reason", "r", "--operator", "olga", "--json")
        assert (done.code, done.stderr) == (3, f"error: M1 is erased: {action} applies only to "
                                               f"{allowed} entries; nothing written\n")
    again = erase(store, "M1", "--reason", "DSR-5")
    assert (again.code, again.stderr) == (3, "error: M1 is erased already; nothing written\n")
    assert read_lines(store) == lines[:3]


@pytest.mark.parametrize("reason, fragment", [
    ("erase user:42 please", "the reason names the subject"),
    ("moved to Seattle", "the reason quotes a value being erased"),
])
def test_the_reason_may_not_carry_what_is_erased(sample, reason, fragment):
    store = sample("moved-city")
    before = (store / "events.jsonl").read_bytes()
    result = erase(store, "--subject", "user:42", "--reason", reason)
    assert result.code == 3 and fragment in result.stderr
    assert (store / "events.jsonl").read_bytes() == before      # nothing written
    assert not (store / "certificates").exists()


def forms(canary: str) -> list[bytes]:
    """The canary as bytes in every encoding a file might hold it in."""
    core = canary.split(" ")[0].encode()          # plain ASCII: found inside any JSON form
    return [core, canary.encode(), json.dumps(canary).encode()[1:-1],
            json.dumps(canary, ensure_ascii=False).encode()[1:-1], base64.b64encode(canary.encode()),
            base64.b64encode(core), urllib.parse.quote(canary).encode()]


def test_no_residue_of_an_erased_subject_anywhere_under_the_store(tmp_path):
    canaries = [f"canary-{secrets.token_hex(6)}-ünï \"q\" /x" for _ in range(4)]
    store = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", entity="user:5", subject="user:5", value=canaries[0])),
        ("2025-01-02T00:00:00Z", "update", entry("A", entity="user:5", subject="user:5", value=canaries[1])),
        ("2025-01-03T00:00:00Z", "write", entry("S", entity="user:5", attribute="sum", kind="summary",
                                                value={"note": canaries[2]}, justification=["A"])),
        ("2025-01-03T00:00:01Z", "write", entry("K", entity="keep", attribute="k", value="kept-value"))])
    (store / "torn").mkdir()
    (store / "torn" / "123").write_text(canaries[3])
    (store / ".inspector").mkdir()
    (store / ".inspector" / "cache.duckdb").write_text(canaries[0])
    (store / "events.jsonl").open("a").write('{"seq":5,"body":{"after":{"value":"' + canaries[3])
    before = (store / "events.jsonl").read_bytes()
    result = erase(store, "--subject", "user:5", "--reason", "DSR-5")
    assert result.code == 0, result.stderr
    hits = [(path, form) for path in store.rglob("*") if path.is_file()
            for canary in canaries for form in forms(canary) if form in readable_bytes(path)]
    assert hits == []
    assert all(forms(c)[0] in before for c in canaries[:2]), "the canaries were never in the log"
    assert not any(form in result.stdout.encode() for c in canaries for form in forms(c))
    assert b"kept-value" in (store / "events.jsonl").read_bytes()
    assert inspector("audit", store, "--verify", "--json").json["ok"] is True


def test_show_of_an_erased_entry_says_so_in_its_header(sample):
    store = sample("moved-city")
    assert erase(store, "H6", "--reason", "DSR-1").code == 0
    result = inspector("show", store, "H6")
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines()[:3] == [
        "H6 · erased: its entity, attribute and value are gone",
        "  id             H6",
        "  status         erased"]
    assert inspector("show", store, "H5").stdout.splitlines()[0] == "user:42 · home_city = Lisbon"


@pytest.mark.parametrize("actor, ok", [("agent:rogue", False), ("importer:ingest", False),
                                       ("operator:dana", True), ("system:legal", True)])
def test_only_an_operator_or_system_writer_lifts_or_places_a_legal_hold(tmp_path, actor, ok):
    """helper-63: an agent's feed `{"id": "L1", "retention": null}` lifted a legal hold, ungated,
    and the erasure that followed took the data. Held would not do (the held state is the
    entry's state); the line is refused, nothing written, unless an operator or system writes
    it. Putting a hold on an existing entry is refused alike."""
    store = tmp_path / "s"
    assert inspector("init", store).code == 0
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps({
        "id": "L1", "entity": "user:kim", "attribute": "contract", "value": "Litigation file 42",
        "kind": "observation", "source": "system:legal", "observed_at": "2025-03-01T00:00:00Z",
        "subject": "user:kim", "retention": "legal_hold"}) + "\n")
    assert inspector("ingest", store, first).code == 0
    before = (store / "events.jsonl").read_bytes()
    lift = tmp_path / "lift.jsonl"
    lift.write_text('{"id": "L1", "retention": null}\n')
    result = inspector("ingest", store, lift, "--actor", actor)
    if ok:
        assert result.code == 0
        erased = inspector("erase", store, "--subject", "user:kim", "--reason", "DSR-10",
                           "--operator", "t", "--json")
        assert erased.json["certificate"]["erased_ids"] == ["L1"]
        return
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {lift} line 1: field \"retention\": only an operator or system writer may take "
        f"legal_hold off an entry (this writer is {actor}); have an operator write it, e.g. "
        "`inspector ingest … --actor operator:NAME`; nothing was written (fix the line, or pass "
        "--skip-bad-lines to write the others)\n")
    assert (store / "events.jsonl").read_bytes() == before
    erased = inspector("erase", store, "--subject", "user:kim", "--reason", "DSR-10",
                       "--operator", "t", "--json")
    assert (erased.code, erased.stderr) == (3, "error: nothing to erase: no live entry matches "
                                               "(retained under legal hold: 1); nothing written\n")


@pytest.mark.parametrize("actor, named", [("agent:zed@example.com", "an e-mail address"),
                                          ("agent:+1-555-123-4567", "a phone number"),
                                          ("agent:zed%40example.com", "an e-mail address"),
                                          ("agent:zed(at)example.com", "an e-mail address"),
                                          ("agent:zed{at}example{dot}com", "an e-mail address")])
def test_an_actor_that_holds_personal_data_is_refused(tmp_path, actor, named):
    """helper-63 #3: `ingest --actor agent:zed@example.com` was taken, and the address outlived
    the erasure of user:zed in every event's envelope. Refused as an id holding one is."""
    store = tmp_path / "s"
    assert inspector("init", store).code == 0
    feed = tmp_path / "f.jsonl"
    feed.write_text(json.dumps({"id": "Q1", "entity": "user:zed", "attribute": "a", "value": "x",
                                "kind": "observation", "source": "system:s",
                                "observed_at": "2025-03-01T10:00:00Z", "subject": "user:zed"}) + "\n")
    result = inspector("ingest", store, feed, "--actor", actor)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (f"error: --actor {actor!r} holds personal data ({named}): the actor "
                             "stays in the log after every erasure; use an opaque identifier "
                             "(e.g. agent:427)\n")
    assert (store / "events.jsonl").read_bytes() == b""


def test_a_retention_that_reads_as_a_legal_hold_is_warned_of_before_the_erasure(tmp_path):
    """helper-65: `retention` takes any string and only `legal_hold` exempts, so an entry a
    writer meant to hold ("Legal Hold") is erased without a word. The plan names it: on the
    dry run (before anything is erased) and after the erasure; exactly `legal_hold` is kept."""
    store = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("K1", attribute="a", subject="user:kim",
                                                retention="Legal Hold")),
        ("2025-01-01T00:00:01Z", "write", entry("K2", attribute="b", subject="user:kim",
                                                retention="legal_hold")),
        ("2025-01-01T00:00:02Z", "write", entry("K3", attribute="c", subject="user:kim",
                                                retention="30d"))])
    warning = ("warning: 1 of the erased entries gives a retention that reads as a legal hold but "
               "is not `legal_hold`: K1 ('Legal Hold'); only `legal_hold`, written exactly so, "
               "keeps an entry from erasure\n")
    dry = inspector("erase", store, "--subject", "user:kim", "--dry-run", "--json")
    before = (store / "events.jsonl").read_bytes()
    assert (dry.code, dry.json["certificate"]["erased_ids"], dry.stderr) == (
        0, ["K1", "K3"], warning)
    dry = inspector("erase", store, "--subject", "user:kim", "--dry-run")
    assert (dry.code, dry.stderr) == (0, warning)
    assert (store / "events.jsonl").read_bytes() == before          # the dry runs wrote nothing
    erased = inspector("erase", store, "--subject", "user:kim", "--reason", "DSR-11",
                       "--operator", "dana", "--json")
    assert (erased.code, erased.json["certificate"]["erased_ids"], erased.stderr) == (
        0, ["K1", "K3"], warning)
