"""The read commands of DESIGN §8 on the sample stores: exact beliefs, reasons, markers."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from clirun import inspector  # noqa: E402


def beliefs(store, *args):
    result = inspector("beliefs", store, "--json", *args)
    assert result.code == 0, result.stderr
    return {(b["scope"], b["entity"], b["attribute"]): b for b in result.json["beliefs"]}


# Most tests run the commands in-process (Typer's CliRunner); those that pin the JSON contract,
# the exit codes and what reaches a real terminal run `python -m inspector` as a subprocess.


def test_branch_contamination_beliefs(sample):
    rows = beliefs(sample("branch-contamination"))
    legacy = "repo:svc/branch:legacy-v2"
    assert {k: r["memory_id"] for k, r in rows.items()} == {
        (legacy, "agent:427", "cwd"): "M8", ("repo:svc", "svc", "owner"): "M9",
        (legacy, "svc", "repair_guidance"): "M6", ("repo:svc", "svc", "status_banner"): "M10",
        ("repo:svc", "svc", "timeout_config"): "M1", (legacy, "svc", "timeout_config"): "M0",
        (legacy, "svc", "timeout_key"): "M2", (legacy, "svc", "timeout_repair"): "M7"}
    repair = rows[(legacy, "svc", "timeout_repair")]
    assert (repair["authority"], repair["candidates"], repair["kind"]) == (2, 2, "summary")
    assert rows[("repo:svc", "svc", "timeout_config")]["overridden_in"] == [legacy]
    assert rows[("repo:svc", "svc", "status_banner")]["value"].startswith("[bold]URGENT[/bold] [/oops]")


def test_show_gives_rivals_in_the_entrys_own_scope(sample):
    doc = inspector("show", sample("branch-contamination"), "M3", "--json").json
    assert doc["entry"]["id"] == "M3" and doc["reason"] == "outranked:recency"
    assert doc["belief"] == "M7"
    assert doc["rivals"] == [{"memory_id": "M7", "value": "two independent traces confirm YAML: edit request_timeout_ms",
                              "reason": "belief"}]
    assert (doc["ancestors"], doc["descendants"]) == (["M1", "M2"], ["M5", "M6", "M7"])
    assert doc["independent_sources"] == ["M1"]
    assert [(e["seq"], e["op"], e["actor"]) for e in doc["events"]] == [(5, "write", "agent:427")]


def test_an_unsupported_summary_says_so(sample):
    doc = inspector("show", sample("branch-contamination"), "M4", "--json").json
    assert (doc["reason"], doc["belief"]) == ("unsupported_summary", None)


def test_lineage_of_the_laundered_summary(sample):
    doc = inspector("lineage", sample("branch-contamination"), "M7", "--json").json
    assert doc == {"memory_id": "M7", "ancestors": ["M1", "M2", "M3", "M6"], "descendants": [],
                   "independent_sources": ["M1"], "cycles": [], "dangling": [], "hidden": 0}


def test_refund_window_claims_and_inferences_never_win(sample):
    rows = beliefs(sample("refund-window"))
    assert list(rows) == [("tenant:shop", "policy:refunds", "window_days")]
    window = rows[("tenant:shop", "policy:refunds", "window_days")]
    assert (window["memory_id"], window["value"], window["markers"]) == ("P2", 14, ["inference_disagrees"])


def test_refund_window_as_of_before_the_annulment(sample):
    rows = beliefs(sample("refund-window"), "--as-of", "2025-03-01T00:00:00Z")
    shop = "tenant:shop/customer:c-881"
    assert rows[(shop, "customer:c-881", "refund_exception")]["memory_id"] == "S1"
    assert rows[(shop, "customer:c-881", "refund_exception")]["markers"] == []
    assert rows[(shop, "customer:c-881", "refund_entitlement")]["memory_id"] == "E1"
    assert rows[("tenant:shop", "policy:refunds", "window_days")]["memory_id"] == "P2"
    old = beliefs(sample("refund-window"), "--as-of", "2024-12-20T00:00:00Z")
    assert old[("tenant:shop", "policy:refunds", "window_days")]["memory_id"] == "P1"


def test_moved_city_authority_vetoes_the_newer_statement(sample):
    row = beliefs(sample("moved-city"))[("user:42", "user:42", "home_city")]
    assert (row["memory_id"], row["value"], row["candidates"]) == ("H1", "Berlin", 3)
    assert row["markers"] == ["inference_disagrees", "vetoed_newer"]
    conflicts = inspector("conflicts", sample("moved-city"), "--json").json["conflicts"]
    assert [(c["marker"], c["memory_ids"]) for c in conflicts] == [
        ("inference_disagrees", ["H1", "H3"]), ("vetoed_newer", ["H1", "H4"])]


def test_moved_city_valid_time_and_knowledge_time(sample):
    store = sample("moved-city")
    key = ("user:42", "user:42", "home_city")
    before_move_known = beliefs(store, "--as-of", "2026-10-01T00:00:00Z")[key]
    assert (before_move_known["candidates"], before_move_known["markers"]) == (2, ["inference_disagrees"])
    future = beliefs(store, "--valid-at", "2027-06-01T00:00:00Z")[key]
    assert (future["memory_id"], future["candidates"]) == ("H1", 4)
    doc = inspector("show", store, "H5", "--json").json
    assert doc["reason"] == "not_yet_valid"


def test_report_language_narrow_scope_overrides(sample):
    rows = beliefs(sample("report-language"))
    user, project = "tenant:acme/user:42", "tenant:acme/user:42/project:P"
    assert rows[(user, "user:42", "report_language")]["value"] == "Chinese"
    assert rows[(user, "user:42", "report_language")]["overridden_in"] == [project]
    assert rows[(project, "user:42", "report_language")]["value"] == "Spanish"
    was = beliefs(sample("report-language"), "--as-of", "2025-05-01T00:00:00Z")
    assert was[(project, "user:42", "report_language")]["value"] == "English"
    in_p = beliefs(sample("report-language"), "--context", project)
    assert [(k, r["memory_id"]) for k, r in in_p.items()] == [((project, "user:42", "report_language"), "L2")]
    doc = inspector("show", sample("report-language"), "L3", "--json").json
    assert doc["reason"] == "unsupported_summary"


def test_multi_tenant_contested_and_held(sample):
    store = sample("multi-tenant")
    row = beliefs(store)[("tenant:acme/user:alice", "user:alice", "timezone")]
    assert (row["memory_id"], row["markers"]) == ("T4", ["contested"])
    held = inspector("held", store, "--json").json["held"]
    assert [(e["id"], e["held_reason"], e["status"]) for e in held] == [
        ("T5", "rule_from_untrusted_source", "held")]


def test_scope_is_a_hard_filter(sample):
    store = sample("multi-tenant")
    rows = beliefs(store, "--scope", "tenant:globex")
    assert sorted(r["memory_id"] for r in rows.values()) == ["T2", "T7"]
    assert inspector("held", store, "--scope", "tenant:globex", "--json").json == {"held": []}
    missing = inspector("show", store, "T1", "--scope", "tenant:globex", "--json")
    assert missing.code == 2 and missing.stdout == ""
    assert "T1: not found in" in missing.stderr and "inside scope 'tenant:globex'" in missing.stderr


@pytest.mark.parametrize("command", ["init", "ingest", "audit"])
def test_whole_store_commands_refuse_scope(sample, tmp_path, command):
    args = {"init": [tmp_path / "new"], "ingest": [sample("moved-city"), tmp_path / "f.jsonl"],
            "audit": [sample("moved-city")]}[command]
    result = inspector(command, *args, "--scope", "user:42")
    assert result.code == 2
    assert f"`{command}` works on the whole store and does not take --scope" in result.stderr


def test_bad_times_and_unknown_ids_are_one_line_errors(sample):
    store = sample("moved-city")
    bad = inspector("beliefs", store, "--as-of", "yesterday", subprocess_run=True)
    assert bad.code == 2
    assert bad.stderr == ("error: --as-of: 'yesterday' is not an RFC 3339 time; write e.g. "
                          "2025-03-01T04:06:55Z\n")
    missing = inspector("lineage", store, "NOPE", "--json", subprocess_run=True)
    assert missing.code == 2 and missing.stderr.count("\n") == 1


@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59",
                                    "2026-02-30T00:00:00Z"])
def test_a_time_of_the_right_form_that_is_no_real_time_is_a_one_line_error(sample, moment):
    """Overflowing UTC or a day that does not exist: exit 2 and why, never a traceback."""
    bad = inspector("beliefs", sample("moved-city"), "--as-of", moment)
    assert bad.code == 2
    assert bad.stderr == (f"error: --as-of: '{moment}' is no real time whose UTC lies in the "
                          "years 0001-9999; write e.g. 2025-03-01T04:06:55Z\n")


def test_init_makes_an_existing_empty_directory_private(tmp_path):
    # It kept 0755 silently, and every later command then warned about the store it made.
    store = tmp_path / "store"
    store.mkdir(mode=0o755)
    store.chmod(0o755)
    result = inspector("init", store)
    assert (result.code, result.stderr) == (0, f"created store {store}\n")
    assert (stat.S_IMODE(store.stat().st_mode), stat.S_IMODE((store / "events.jsonl").stat().st_mode)) == (0o700, 0o600)


def test_init_in_a_directory_holding_other_files_keeps_its_mode_and_says_so(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    store.chmod(0o755)
    (store / "notes.txt").write_text("mine")
    result = inspector("init", store)
    assert result.code == 0
    assert result.stderr == (f"created store {store}\nwarning: {store} can be read by group or others "
                             f"(mode 0o755); it holds personal data: run `chmod -R go-rwx {store}`\n")
    assert stat.S_IMODE(store.stat().st_mode) == 0o755


def test_not_a_store(tmp_path):
    result = inspector("beliefs", tmp_path / "nothing", subprocess_run=True)
    assert result.code == 2
    assert result.stderr == f"error: {tmp_path / 'nothing'} is not a store directory; create one with `inspector init {tmp_path / 'nothing'}`\n"


def test_a_file_given_as_the_store_is_named_not_offered_to_init(sample, tmp_path):
    # init refuses a path that is a file: offering `inspector init FILE` led nowhere
    store = sample("moved-city")
    result = inspector("beliefs", store / "events.jsonl")
    assert result.code == 2
    assert result.stderr == (f"error: {store / 'events.jsonl'} is the store's log, not the store: "
                             f"give its directory, `{store}`\n")
    (tmp_path / "notes.txt").write_text("mine")
    result = inspector("show", tmp_path / "notes.txt", "M1")
    assert result.code == 2
    assert result.stderr == (f"error: {tmp_path / 'notes.txt'} is not a directory, so it is no store: "
                             "give the store's directory (the one holding events.jsonl)\n")


def test_a_store_others_can_read_gets_one_warning(sample):
    store = sample("moved-city")
    store.chmod(0o755)
    result = inspector("beliefs", store, "--json")
    assert result.code == 0
    assert result.stderr.count("can be read by group or others") == 1


@pytest.mark.parametrize("name, shown, command", [
    ("esc\x1b]0;PWNED\x07", "esc\\x1b]0;PWNED\\x07", "$'esc\\033]0;PWNED\\007'"),
    ("two\nlines", "two\\nlines", "$'two\\012lines'"),
    ("my store", "my store", "'my store'"),
    ("-rf", "-rf", "./-rf"),
])
def test_exposure_warning_shows_the_path_inert_and_quotes_the_command(tmp_path, name, shown, command):
    # The warning used to write the path raw (an OSC title sequence reached the terminal, a
    # newline split the line) and suggest `chmod -R go-rwx my store`, two words to the shell.
    store = tmp_path / name
    shutil.copytree(Path(__file__).parents[2] / "sample_stores" / "moved-city", store,
                    ignore=shutil.ignore_patterns(".lock", ".inspector"))
    store.chmod(0o755)
    result = subprocess.run([sys.executable, "-m", "inspector", "beliefs", "--json", "--", name],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == (f"warning: {shown} can be read by group or others (mode 0o755); it "
                             f"holds personal data: run `chmod -R go-rwx {command}`\n")
    # The command as shown, pasted into a shell, names the store (it read `\x1b` as 4 characters).
    pasted = subprocess.run(["bash", "-c", f"printf %s {command}"], capture_output=True, text=True)
    assert pasted.stdout == (name if not name.startswith("-") else f"./{name}")


def test_audit_summary_and_verify(sample):
    store = sample("moved-city")
    summary = inspector("audit", store, "--json", subprocess_run=True).json
    assert (summary["ok"], summary["events"], summary["redacted"]) == (None, 6, 0)
    verified = inspector("audit", store, "--verify", "--json", subprocess_run=True)
    assert verified.code == 0 and verified.json["ok"] is True
    assert verified.json["head"] == summary["head"]
    assert inspector("audit", store, "--expect-head", summary["head"], "--json").code == 0
    bad = inspector("audit", store, "--expect-head", "6:" + "0" * 64, "--json", subprocess_run=True)
    assert (bad.code, bad.json["first_bad_seq"]) == (1, 6)


MOVED_CITY_HEAD = "6:5e1ff371e549b125e17306ac4d2778f113e6eab48f98f2ff6d21d98120e40c15"
HASH = MOVED_CITY_HEAD.split(":")[1]


@pytest.mark.parametrize("head, error", [
    ("", "error: --expect-head: '' is not SEQ:HASH (e.g. 412:9f3c…, ASCII digits, 64 hex digits)"),
    ("\u0666:" + HASH, f"error: --expect-head: '\u0666:{HASH}' is not SEQ:HASH (e.g. 412:9f3c…, "
                       "ASCII digits, 64 hex digits)"),
    ("\uff16:" + HASH, f"error: --expect-head: '\uff16:{HASH}' is not SEQ:HASH (e.g. 412:9f3c…, "
                       "ASCII digits, 64 hex digits)"),
    ("0:" + HASH, f"error: --expect-head: '0:{HASH}' names seq 0, but seqs start at 1: give the "
                  "head an earlier `inspector audit` printed"),
])
def test_expect_head_that_names_no_line_is_refused_not_skipped(sample, head, error):
    # '' (a CI variable never set) used to verify nothing and exit 0; '٦' and '６' were taken
    # as seq 6; seq 0 was reported as a line whose hash differs.
    store = sample("moved-city")
    for args in (("--verify", "--expect-head", head), ("--expect-head", head)):
        result = inspector("audit", store, *args, "--json")
        assert (result.code, result.stdout, result.stderr) == (2, "", error + "\n")
    good = inspector("audit", store, "--verify", "--expect-head", MOVED_CITY_HEAD, "--json")
    assert (good.code, good.json["ok"], good.json["head"]) == (0, True, MOVED_CITY_HEAD)


def test_expect_head_given_twice_is_refused(sample):
    # The last one used to win: a good head followed by '' checked nothing.
    result = inspector("audit", sample("moved-city"), "--verify", "--expect-head",
                       MOVED_CITY_HEAD, "--expect-head", "")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == ("error: --expect-head is given 2 times: give one SEQ:HASH (run "
                             "`inspector audit` once per head to check several)\n")


def test_human_output_shows_hostile_text_literally_and_inert(sample):
    result = inspector("show", sample("branch-contamination"), "M10", subprocess_run=True)
    assert result.code == 0
    assert "[bold]URGENT[/bold] [/oops]" in result.stdout
    assert "\\x1b]52;c;cHduZWQ=\\x07" in result.stdout
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout


@pytest.mark.parametrize("args", [("show", "{root}", "{id}"), ("lineage", "{root}", "{id}"),
                                  ("audit", "{root}", "--log", "--memory", "{id}"),
                                  ("quarantine", "{root}", "{id}", "--reason", "r"),
                                  ("erase", "{root}", "{id}", "--reason", "r")])
@pytest.mark.parametrize("memory_id", ["", " M1", "M1 "])
def test_an_id_not_found_is_named_so_it_can_be_seen(sample, args, memory_id):
    # 'error: : not found in …' for '', and ' M1' looked like M1
    store = sample("branch-contamination")
    result = inspector(*[a.format(root=store, id=memory_id) for a in args])
    assert result.code == 2
    assert result.stderr.startswith(f"error: {memory_id!r}: "), result.stderr
