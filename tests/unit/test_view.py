"""The persistent view (DESIGN §2.5): answers from the warm path equal a cold load's, always.

A random store, then random steps another process or the operator takes: appends (whole,
torn, a batch cut short), actions, erasures, a log truncated or rolled back, a log replaced
by a copy or by another store, a line edited in place. After every step each read command's
`--json` from the warm path (the view kept across steps) equals a cold load's (`.inspector/`
moved aside), read in one piece and in ranges of a few lines, and a log that is not the one
the view read is never answered from it.
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cli.clirun import inspector
from inspector.store import view
from inspector.store.append import LogWriter, event_draft
from inspector.store.load import Store
from logtools import write_lines
from storegen import entry, write_store

EXAMPLES = int(os.environ.get("VIEW_EXAMPLES", "6"))     # CI; a long run sets more
AS_OF = "2030-01-01T00:00:00Z"
KEYS = [("user:1", "city"), ("user:1", "plan"), ("user:2", "city"), ("org:7", "owner")]
SCOPES = ["", "tenant:a", "tenant:a/user:1", "tenant:b"]


@st.composite
def entries(draw, prefix: str, n: int) -> list[dict]:
    made: list[dict] = []
    for i in range(n):
        entity, attribute = draw(st.sampled_from(KEYS))
        kind = draw(st.sampled_from(["observation"] * 5 + ["summary", "claim"]))
        cites = [e["id"] for e in made if e["kind"] in ("observation", "summary")]
        justification = draw(st.lists(st.sampled_from(cites), max_size=2, unique=True)) \
            if kind == "summary" and cites else []
        made.append(entry(f"{prefix}{i}", entity=entity, attribute=attribute,
                          value=draw(st.sampled_from(["x", "y", 3])), kind=kind,
                          source=draw(st.sampled_from(["tool:a", "user:1", "agent:2"])),
                          authority=draw(st.integers(0, 3)),
                          scope=draw(st.sampled_from(SCOPES)), justification=justification,
                          subject=draw(st.sampled_from([None, "user:1", "user:2"])),
                          status=draw(st.sampled_from(["active"] * 4 + ["held"]))))
    return made


STEPS = ["append", "append_torn", "append_cut_batch", "quarantine", "approve", "erase",
         "truncate", "rollback", "replace_copy", "replace_other", "tamper_last", "nothing"]


@st.composite
def scenario(draw):
    first = draw(entries("M", draw(st.integers(3, 9))))
    steps = draw(st.lists(st.tuples(st.sampled_from(STEPS), st.integers(0, 10 ** 6)),
                          min_size=1, max_size=5))
    return first, steps


def reads(root: Path, ids: list[str]) -> dict[str, tuple[int, str]]:
    """Each read command's exit code and --json document (stdout) on the store."""
    pick = ids[len(ids) // 2] if ids else "M0"
    commands = {
        "beliefs": ["beliefs", root, "--json", "--as-of", AS_OF],
        "beliefs_scoped": ["beliefs", root, "--json", "--as-of", AS_OF, "--scope", "tenant:a"],
        "held": ["held", root, "--json"],
        "conflicts": ["conflicts", root, "--json", "--as-of", AS_OF],
        "show": ["show", root, pick, "--json"],
        "lineage": ["lineage", root, pick, "--json"],
        "audit": ["audit", root, "--json"],
    }
    out = {}
    for name, args in commands.items():
        result = inspector(*args)
        out[name] = (result.code, result.stdout)
    return out


def cold_reads(root: Path, ids: list[str], chunk: int | None = None) -> dict[str, tuple[int, str]]:
    """The same commands with no view (the warm one is moved aside and put back after); with
    `chunk`, the cold load reads the log in ranges of that many bytes and moves what it read
    into the view file it writes before every range (viewbuild.Build.fold)."""
    cache, aside = root / ".inspector", root.parent / "view-aside"
    if cache.exists():
        os.rename(cache, aside)
    if chunk is not None:
        os.environ["INSPECTOR_COLD_CHUNK_BYTES"] = str(chunk)
        os.environ["INSPECTOR_COLD_FOLD_BYTES"] = "0"
    try:
        return reads(root, ids)
    finally:
        os.environ.pop("INSPECTOR_COLD_CHUNK_BYTES", None)
        os.environ.pop("INSPECTOR_COLD_FOLD_BYTES", None)
        shutil.rmtree(cache, ignore_errors=True)
        if aside.exists():
            os.rename(aside, cache)


def read_lines(root: Path) -> list[bytes]:
    """The complete lines of the log (a torn last line left out)."""
    return (root / "events.jsonl").read_bytes().split(b"\n")[:-1]


def ids_of(root: Path) -> list[str]:
    found = []
    for line in read_lines(root):
        try:
            found.append(json.loads(line)["memory_id"])
        except (ValueError, KeyError):
            pass
    return sorted(set(found))


def append(root: Path, made: list[dict]) -> None:
    with LogWriter(root_paths(root)) as writer:
        writer.append([event_draft("write", e["id"], "agent:9", after=e) for e in made])


def root_paths(root: Path):
    from inspector.store.logfile import store_paths
    return store_paths(root)


KEEPS = {"append", "append_torn", "append_cut_batch", "quarantine", "approve", "nothing"}
BREAKS = {"rollback", "replace_copy", "replace_other"}     # a new file
CUTS = {"truncate"}          # in place: breaks the view when it cuts lines the view had read


def view_seq(root: Path) -> int:
    """The seq the view file records (0: no view)."""
    import duckdb
    file = root / ".inspector" / "view.duckdb"
    if not file.exists():
        return 0
    con = duckdb.connect()
    try:
        con.execute(f"ATTACH '{file}' AS v (READ_ONLY)")
        return con.execute("SELECT seq FROM v.view_meta").fetchone()[0]
    finally:
        con.close()


def take_step(root: Path, other: Path, step: str, n: int, data) -> bool:
    """Take the step; whether it did anything."""
    ids = ids_of(root)
    target = ids[n % len(ids)] if ids else None
    lines = read_lines(root)
    if step == "append":
        append(root, data.draw(entries(f"A{n}-", 1 + n % 3)))
    elif step == "append_torn":
        append(root, data.draw(entries(f"T{n}-", 1)))
        with open(root / "events.jsonl", "ab") as f:
            f.write(b'{"seq": 999, "at": "2026-')                 # a crash mid-line
    elif step == "append_cut_batch":
        # a batch whose last line never came: readers set the whole batch aside
        made = data.draw(entries(f"B{n}-", 2))
        drafts = [event_draft("write", e["id"], "agent:9", after=e) for e in made]
        with LogWriter(root_paths(root)) as writer:
            for d in drafts:
                d["batch"] = f"b-cut{n}"
            sealed = writer.append(drafts)
        kept = read_lines(root)[:-1]
        write_lines(root, kept)
        assert len(kept) == sealed[-1]["seq"] - 1
    elif step in ("quarantine", "approve") and target:
        inspector(step, root, target, "--reason", f"step {n}", "--operator", "olga", "--json")
    elif step == "erase" and target:
        inspector("erase", root, target, "--reason", f"DSR {n}", "--operator", "dana", "--json")
    elif step == "truncate" and len(lines) > 2:
        write_lines(root, lines[: 1 + n % (len(lines) - 1)])          # in place: same inode
    elif step == "rollback" and len(lines) > 2:
        keep = lines[: 1 + n % (len(lines) - 1)]
        tmp = root / "rolled"
        tmp.write_bytes(b"".join(line + b"\n" for line in keep))
        os.replace(tmp, root / "events.jsonl")                          # a restored backup
        append(root, data.draw(entries(f"R{n}-", 1 + n % 2)))           # then life goes on
    elif step == "replace_copy":
        tmp = root / "copy"
        shutil.copyfile(root / "events.jsonl", tmp)
        os.replace(tmp, root / "events.jsonl")
    elif step == "replace_other":
        shutil.copyfile(other / "events.jsonl", root / "events.jsonl.new")
        os.replace(root / "events.jsonl.new", root / "events.jsonl")
    elif step == "tamper_last" and lines:
        event = json.loads(lines[-1])
        event["hash"] = "0" * 64                                      # same length, in place
        lines[-1] = json.dumps(event, separators=(",", ":")).encode()
        write_lines(root, lines)
    else:
        return step == "nothing"
    return True


def view_notes(root: Path) -> list[str]:
    """What opening the store said about its view (and it was opened from the view at all)."""
    s = Store(root, warn=False)
    notes = [w for w in s.state.warnings if "read the whole log again" in w]
    used = s.base_seq > 0
    s.close()
    return notes if notes or used else ["no view was used"]


@pytest.mark.heavy
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=scenario(), data=st.data())
def test_warm_answers_equal_cold_ones_after_every_step(tmp_path_factory, case, data):
    first, steps = case
    base = tmp_path_factory.mktemp("view")
    root = write_store(base / "s", [("2025-01-01T00:00:00Z", "write", e) for e in first])
    other = write_store(base / "other", [("2025-02-01T00:00:00Z", "write", e)
                                          for e in data.draw(entries("O", 3))])
    reads(root, ids_of(root))                                        # builds the view
    assert (root / ".inspector" / "view.duckdb").is_file()
    for step, n in steps:
        read = view_seq(root)
        done = take_step(root, other, step, n, data)
        kept = len(read_lines(root))
        if done and step in KEEPS:
            assert view_notes(root) == [], f"after {step} the view was not used"
        elif done and (step in BREAKS or step in CUTS and kept < read):
            assert len(view_notes(root)) == 1, f"after {step} the view was used"
        elif done and step in CUTS:
            assert view_notes(root) == [], f"after {step} (of lines the view had not read)"
        ids = ids_of(root)
        warm = reads(root, ids)
        cold = cold_reads(root, ids)
        chunk = data.draw(st.integers(1, 4000), label="cold load range bytes")
        ranged = cold_reads(root, ids, chunk)
        for name in warm:
            assert warm[name] == cold[name], f"after {step}: `{name}` warm differs from cold"
            assert ranged[name] == cold[name], \
                f"after {step}: `{name}` read in ranges of {chunk} bytes differs from cold"


# -- the proof of currency, step by step --------------------------------------------------------

@pytest.fixture
def store(tmp_path) -> Path:
    return write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", entry(f"M{i}", value=i))
                                        for i in range(6)])


def test_a_second_store_reads_the_view_and_only_the_appended_lines(store):
    Store(store, warn=False).close()                                 # cold: writes the view
    append(store, [entry("N1", value="new")])
    s = Store(store, warn=False)
    assert s.base_seq == 6 and s.state.seq == 7
    assert s.con.execute("SELECT count(*) FROM versions_new").fetchone() == (1,)
    assert s.con.execute("SELECT count(*) FROM base.versions").fetchone() == (6,)
    assert s.con.execute("SELECT count(*), max(seq) FROM versions").fetchone() == (7, 7)
    assert s.state.warnings == []
    s.close()


@pytest.mark.parametrize("change, why", [
    ("replace", "the log was replaced"),
    ("shorter", "the log is shorter than when the view read it"),
    ("rewritten", "no longer holds seq 6 with the hash the view read"),
])
def test_a_log_that_is_not_the_one_read_is_read_again_and_says_why(store, change, why):
    Store(store, warn=False).close()
    lines = read_lines(store)
    if change == "replace":
        shutil.copyfile(store / "events.jsonl", store / "x")
        os.replace(store / "x", store / "events.jsonl")
    elif change == "shorter":
        write_lines(store, lines[:4])
    else:                                   # same length, another hash on the recorded line
        event = json.loads(lines[-1])
        event["hash"] = "f" * 64
        lines[-1] = json.dumps(event, separators=(",", ":")).encode()
        write_lines(store, lines)
        assert len(b"".join(lines)) == len(b"".join(read_lines(store)))
    s = Store(store, warn=False)
    notes = [w for w in s.state.warnings if "read the whole log again" in w]
    assert len(notes) == 1 and why in notes[0], s.state.warnings
    assert s.base_seq == s.state.seq == (4 if change == "shorter" else 6)   # republished
    s.close()


def test_a_log_replaced_while_the_new_view_waits_for_its_rename_is_said(store, monkeypatch):
    """A log replaced (an erasure, a rollback) in the last step of a cold load, while the view
    it wrote waited for its rename, was read again without a word (helper-71). The note says
    so, and what is answered is the log there now."""
    lines = read_lines(store)
    (store / "shorter").write_bytes(b"".join(line + b"\n" for line in lines[:4]))
    renaming = view.rename_if_current

    def replaced_first(paths, temp, mark, target):
        if (store / "shorter").exists():
            os.replace(store / "shorter", store / "events.jsonl")
        return renaming(paths, temp, mark, target)
    monkeypatch.setattr(view, "rename_if_current", replaced_first)
    s = Store(store, warn=False)
    assert s.state.warnings == [f"{store}: read the whole log again: the log was replaced while it "
                                "was read (an erasure or a rollback)"]
    assert s.state.seq == 4 and s.con.execute("SELECT count(*) FROM versions").fetchone() == (4,)
    s.close()


def test_the_note_of_a_log_read_again_is_said_once_while_a_writer_holds_the_lock(store):
    """A replaced log and a writer holding the lock: the new view cannot be renamed into
    place, so the load reads the log once more past the old view, and the note was said twice
    (helper-71)."""
    import fcntl
    Store(store, warn=False).close()
    shutil.copyfile(store / "events.jsonl", store / "x")
    os.replace(store / "x", store / "events.jsonl")
    lock = os.open(store / ".lock", os.O_RDWR)
    fcntl.flock(lock, fcntl.LOCK_EX)                     # as a writer at work holds it
    try:
        s = Store(store, warn=False)
    finally:
        os.close(lock)
    assert s.state.warnings == [f"{store}: read the whole log again: the log was replaced (an "
                                "erasure, a restore or another copy)"]
    assert s.state.seq == 6
    s.close()


def test_a_view_of_another_version_of_the_code_is_not_used(store, monkeypatch):
    Store(store, warn=False).close()
    monkeypatch.setattr(view, "code_digest", lambda: "another")
    s = Store(store, warn=False)
    assert any("another version of the inspector" in w for w in s.state.warnings)
    s.close()


def test_audit_verify_finding_tampering_discards_the_view(store):
    Store(store, warn=False).close()
    lines = read_lines(store)
    event = json.loads(lines[2])
    event["actor"] = "agent:X"                                       # a middle line, in place
    lines[2] = json.dumps(event, separators=(",", ":")).encode()
    write_lines(store, lines)
    assert (store / ".inspector" / "view.duckdb").is_file()
    result = inspector("audit", store, "--verify", "--json")
    assert result.code == 1 and result.json["first_bad_seq"] == 3
    assert not (store / ".inspector" / "view.duckdb").exists()


def tamper_third_line(root: Path) -> None:
    lines = read_lines(root)
    event = json.loads(lines[2])
    event["actor"] = "agent:X"                                       # a middle line, in place
    lines[2] = json.dumps(event, separators=(",", ":")).encode()
    write_lines(root, lines)


def verdict_of_third_line_tampered(root: Path) -> dict:
    head = json.loads(read_lines(root)[-1])
    problem = "seq 3: hash does not match the line (a header was changed)"
    return {"ok": False, "events": 6, "head": f"6:{head['hash']}", "redacted": 0, "unchained": 0,
            "first_bad_seq": 3, "problem": problem, "torn_bytes": 0,
            "problems": [{"seq": 3, "problem": problem}]}


def test_audit_verify_of_a_read_only_store_gives_its_verdict(store, monkeypatch):
    """The view of a tampered log cannot be deleted (EROFS: a read-only evidence copy): the
    verdict stands, exit 1, and one note says the view is still there (before: exit 2, no verdict)."""
    import errno
    Store(store, warn=False).close()
    tamper_third_line(store)
    real = os.unlink

    def read_only(path, *args, **kwargs):
        if ".inspector" in str(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real(path, *args, **kwargs)
    monkeypatch.setattr(os, "unlink", read_only)
    result = inspector("audit", store, "--verify", "--json", subprocess_run=False)
    assert (result.code, result.json) == (1, verdict_of_third_line_tampered(store))
    assert result.stderr == (f"note: {store}: the view of the log (.inspector/) could not be deleted "
                             "(Read-only file system); other commands may answer from it rather than "
                             "from the log as it is now: delete it where the store can be written\n")
    assert (store / ".inspector" / "view.duckdb").is_file()


@pytest.fixture
def read_only_mount(tmp_path):
    """A read-only bind mount of a directory (root only; skipped where mounting is not allowed)."""
    import subprocess
    mounted = []

    def mount(root: Path) -> Path:
        at = tmp_path / f"ro{len(mounted)}"
        at.mkdir()
        if os.geteuid() != 0 or subprocess.run(["mount", "--bind", str(root), str(at)],
                                               capture_output=True).returncode != 0:
            pytest.skip("a read-only bind mount needs root and mount(8)")
        mounted.append(at)
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(at)], capture_output=True).returncode:
            pytest.skip("this system does not remount a bind mount read-only")
        return at
    yield mount
    for at in reversed(mounted):
        subprocess.run(["umount", str(at)], capture_output=True)


def test_read_commands_answer_on_a_read_only_mount(store, read_only_mount):
    """On a real read-only mount: audit --verify gives its verdict, and beliefs answers as on
    the writable store, with a view there and without one."""
    Store(store, warn=False).close()
    tamper_third_line(store)
    ro = read_only_mount(store)
    verified = inspector("audit", ro, "--verify", "--json", subprocess_run=True)
    assert (verified.code, verified.json) == (1, verdict_of_third_line_tampered(store))
    assert "could not be deleted (Read-only file system)" in verified.stderr
    with_view = inspector("beliefs", ro, "--as-of", AS_OF, "--json", subprocess_run=True)
    shutil.rmtree(store / ".inspector")
    without = inspector("beliefs", ro, "--as-of", AS_OF, "--json", subprocess_run=True)
    assert (with_view.code, without.code) == (0, 0) and with_view.json == without.json
    assert with_view.stderr == ""                                    # the view was current
    assert without.stderr == (f"note: {ro}: the store is on a read-only file system: the log was "
                              "read whole and no view of it kept (every command reads it whole again)\n")
    assert [b["memory_id"] for b in without.json["beliefs"]] == ["M5"]       # one key: the last write
    assert not (store / ".inspector").exists()                       # nothing written there


def test_the_view_file_is_private_and_lives_only_in_the_store(store):
    Store(store, warn=False).close()
    cache = store / ".inspector"
    assert sorted(p.name for p in cache.iterdir()) == ["view.duckdb"]
    assert os.stat(cache).st_mode & 0o777 == 0o700
    assert os.stat(cache / "view.duckdb").st_mode & 0o777 == 0o600


def test_a_linked_cache_directory_is_neither_read_nor_written(store, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, store / ".inspector")
    s = Store(store, warn=False)
    assert s.base_seq == 0 and s.state.seq == 6
    s.close()
    assert list(elsewhere.iterdir()) == []


def test_a_publish_never_puts_back_a_view_of_a_log_an_erasure_replaced(store):
    s = Store(store, warn=False)                  # loaded; now the log is replaced under it
    shutil.rmtree(store / ".inspector")
    shutil.copyfile(store / "events.jsonl", store / "x")
    os.replace(store / "x", store / "events.jsonl")
    assert view.publish(s.con, s.paths, s.mark()) is False
    assert sorted(p.name for p in (store / ".inspector").iterdir()) == []
    s.close()


@pytest.fixture
def ranged(tmp_path, monkeypatch) -> Path:
    """30 entries about user:0, user:1 and user:2, read cold in ranges of about 2,000 bytes."""
    monkeypatch.setenv("INSPECTOR_COLD_CHUNK_BYTES", "2000")
    return write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry(f"M{i}", entity=f"user:{i % 3}", subject=f"user:{i % 3}",
                                                attribute=f"a{i}", value=f"SECRET-{i}-" + "x" * 300))
        for i in range(30)])


def erased_log(root: Path, tmp_path: Path) -> Path:
    """The log an erasure of user:1 makes of `root`'s (M1 is redacted: every offset moves)."""
    other = tmp_path / "erased"
    shutil.copytree(root, other)
    result = inspector("erase", other, "--subject", "user:1", "--reason", "DSR-1", "--operator", "a",
                       subprocess_run=False)
    assert result.code == 0, result.stderr
    return other / "events.jsonl"


def beliefs_json(root: Path):
    return inspector("beliefs", root, "--as-of", AS_OF, "--json", subprocess_run=False)


def rename_over(root: Path, logs: list[Path]):
    """A hook that renames the next of `logs` over root's log, as an erasure renames its rewrite."""
    def replace_log():
        if logs:
            shutil.copyfile(logs.pop(0), root / "spare")
            os.replace(root / "spare", root / "events.jsonl")
    return replace_log


def replaced_after_first_range(monkeypatch, replace_log) -> None:
    from inspector.store import coldload
    real = coldload._take_range

    def taking(store, start, end, exact, torn, ends):
        real(store, start, end, exact, torn, ends)
        if start == 0:
            replace_log()
    monkeypatch.setattr(coldload, "_take_range", taking)


def test_a_log_replaced_during_a_cold_load_is_read_again_from_the_start(ranged, tmp_path, monkeypatch):
    """The erasure renames its rewrite in after the first range: the load starts again on the
    new log and answers from it alone (before: a JSONDecodeError traceback, exit 1)."""
    erased = erased_log(ranged, tmp_path)
    expected = beliefs_json(erased.parent)
    assert sorted(b["memory_id"] for b in expected.json["beliefs"]) == sorted(f"M{i}" for i in range(30) if i % 3 != 1)
    shutil.rmtree(erased.parent / ".inspector")
    replaced_after_first_range(monkeypatch, rename_over(ranged, [erased]))
    result = beliefs_json(ranged)
    assert (result.code, result.stderr) == (0, f"{ranged}: read the whole log again: the log was "
                                               "replaced while it was read (an erasure or a rollback)\n")
    assert result.json == expected.json and "SECRET-1-" not in result.stdout
    assert Store(ranged, warn=False).state.warnings == []      # the view published is of the new log


def test_a_log_replaced_again_during_the_second_read_is_one_line_and_exit_3(ranged, tmp_path, monkeypatch):
    again = tmp_path / "again.jsonl"
    shutil.copyfile(ranged / "events.jsonl", again)
    replaced_after_first_range(monkeypatch, rename_over(ranged, [erased_log(ranged, tmp_path), again]))
    result = beliefs_json(ranged)
    assert (result.code, result.stdout) == (3, "")
    assert result.stderr == (f"error: {ranged}: the log was replaced while it was read (an erasure or "
                             "a rollback); run the command again\n")


def test_a_log_replaced_while_the_lines_after_the_view_are_read_is_read_again(ranged, tmp_path, monkeypatch):
    """The view is current, the lines appended since are read, and the log is replaced just after:
    what was read is of the old log, so the store is read again from the new one."""
    from inspector.store import load
    erased = erased_log(ranged, tmp_path)
    expected = beliefs_json(erased.parent)
    Store(ranged, warn=False).close()                                # the view
    append(ranged, [entry("N1", entity="user:1", attribute="new", value="SECRET-N1")])
    replace_log, real = rename_over(ranged, [erased]), load.decode_lines

    def decoding(lines):
        replace_log()
        return real(lines)
    monkeypatch.setattr(load, "decode_lines", decoding)
    result = beliefs_json(ranged)
    assert (result.code, result.stderr) == (0, f"{ranged}: read the whole log again: the log was "
                                               "replaced while it was read (an erasure or a rollback)\n")
    assert result.json == expected.json and "SECRET-1-" not in result.stdout


def test_a_publish_that_fails_after_letting_the_tables_go_reads_the_store_again(store, monkeypatch):
    """A cold load writes its rows into the view file as it reads (viewbuild.py), as
    publish(release=True) empties each table once written; when the view is then not put in
    place (here: the log no longer the one read), the store is read again, once, and answers
    as a cold load does."""
    tries = []
    monkeypatch.setattr(view, "rename_if_current", lambda *args: tries.append(args) or False)
    s = Store(store, warn=False)
    assert len(tries) == 1 and not (store / ".inspector" / "view.duckdb").exists()
    assert (s.base_seq, s.state.seq) == (0, 6)
    assert s.con.execute("SELECT count(*), max(seq) FROM versions").fetchone() == (6, 6)
    assert s.con.execute("SELECT memory_id, value FROM entries ORDER BY memory_id").fetchall() == [
        (f"M{i}", str(i)) for i in range(6)]
    assert s.con.execute("SELECT count(*) FROM edges").fetchone() == (0,)
    s.close()
    monkeypatch.undo()
    s = Store(store, warn=False)                     # the next command writes the view
    assert (store / ".inspector" / "view.duckdb").exists() and s.base_seq == 6
    s.close()


def test_a_publish_skips_while_a_writer_holds_the_lock(store):
    s = Store(store, warn=False)
    os.unlink(store / ".inspector" / "view.duckdb")
    with LogWriter(s.paths):
        assert view.publish(s.con, s.paths, s.mark()) is False
    assert sorted(p.name for p in (store / ".inspector").iterdir()) == []
    assert view.publish(s.con, s.paths, s.mark()) is True
    s.close()


# -- incremental beliefs: the TUI's live path ---------------------------------------------------

PATCH_TIMES = ["2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z", "2025-02-20T00:00:00Z",
               "2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z", "2025-04-01T00:00:00Z"]


@st.composite
def timed_entries(draw, prefix: str, n: int, cite_from: list[str]) -> list[dict]:
    made = draw(entries(prefix, n))
    for e in made:
        e["observed_at"] = draw(st.sampled_from(PATCH_TIMES[:5]))
        e["valid_from"] = draw(st.sampled_from([None, None, *PATCH_TIMES]))
        e["valid_to"] = draw(st.sampled_from([None, None, None, *PATCH_TIMES[2:]]))
        if e["kind"] == "summary" and cite_from:
            e["justification"] = draw(st.lists(st.sampled_from(cite_from), min_size=1, max_size=2,
                                               unique=True))
    return made


def table_rows(con, name: str) -> list[tuple]:
    return sorted(map(repr, con.execute(f"SELECT * FROM {name}").fetchall()))


@contextmanager
def drawn_places(data, con):
    """How a patch finds its keys and moves the rest, drawn: key_places' fences every 1, 2 or
    3 rows (a small table's keys in many windows) or 256 (one window), and the moves a range
    at a time or in one statement."""
    from inspector.store import beliefs
    con.execute(f"CREATE OR REPLACE MACRO key_fence_every() AS {data.draw(st.sampled_from([1, 2, 3, 256]))}")
    saved = beliefs.SHIFT_RANGES_MAX
    beliefs.SHIFT_RANGES_MAX = data.draw(st.sampled_from([0, 64]))
    try:
        yield
    finally:
        beliefs.SHIFT_RANGES_MAX = saved


@pytest.mark.heavy
@settings(max_examples=EXAMPLES * 3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), context=st.sampled_from([None, "tenant:a", "tenant:a/user:1"]))
def test_a_belief_patch_equals_a_rebuild(tmp_path_factory, data, context):
    from datetime import datetime, timezone
    from inspector.store import beliefs
    first = data.draw(timed_entries("M", data.draw(st.integers(2, 8)), []))
    root = write_store(tmp_path_factory.mktemp("patch") / "s",
                       [("2025-01-01T00:00:00Z", "write", e) for e in first])
    s = Store(root, warn=False)
    t0 = datetime(2025, 2, 15, tzinfo=timezone.utc)
    t1 = datetime(2025, 3, 15, tzinfo=timezone.utc)
    beliefs.materialize(s.con, beliefs.ViewSpec(context, beliefs.Moment(t0, t0)))
    # another process appends: new entries (citing old ones) and new versions of old ones
    later = data.draw(timed_entries("N", data.draw(st.integers(0, 3)), [e["id"] for e in first]))
    for e in data.draw(st.lists(st.sampled_from(first), max_size=3, unique_by=lambda e: e["id"])):
        later.append({**e, "status": data.draw(st.sampled_from(["active", "quarantined", "held"])),
                      "value": data.draw(st.sampled_from(["x", "z"]))})
    drafts = [event_draft("write" if e["id"].startswith("N") else "update", e["id"], "agent:9",
                          after=e) for e in later]
    for d in drafts:
        d["at"] = "2025-03-01T00:00:00Z"
    with LogWriter(s.paths) as writer:
        writer.append(drafts)
    s.refresh()
    spec = beliefs.ViewSpec(context, beliefs.Moment(t1, t1))
    with drawn_places(data, s.con):
        count = beliefs.patch(s.con, spec, t0, [e["id"] for e in later])
    patched = table_rows(s.con, "beliefs")
    rebuilt_count = beliefs.materialize(s.con, spec)
    assert count == rebuilt_count
    assert patched == table_rows(s.con, "beliefs")
    assert table_rows(s.con, "judged") == []          # scratch: one range at a time, none kept
    s.close()


TUI_TABLES = ("beliefs", "tui_all", "tui_conflicts", "tui_held", "tui_quarantine")


def later_drafts(data, first: list[dict]) -> list[dict]:
    """What another process appends after `first`: new entries (N…, citing old ones) and new
    versions of old ones (another status, value or scope)."""
    later = data.draw(timed_entries("N", data.draw(st.integers(0, 4)), [e["id"] for e in first]))
    for e in data.draw(st.lists(st.sampled_from(first), max_size=3, unique_by=lambda e: e["id"])):
        later.append({**e, "status": data.draw(st.sampled_from(["active", "quarantined", "held"])),
                      "value": data.draw(st.sampled_from(["x", "z"])),
                      "scope": data.draw(st.sampled_from([e["scope"], *SCOPES]))})
    return [event_draft("write" if e["id"].startswith("N") else "update", e["id"], "agent:9",
                        after=e) for e in later]


def tui_tables(con) -> dict[str, list[tuple]]:
    return {name: table_rows(con, name) for name in TUI_TABLES}


@pytest.mark.heavy
@settings(max_examples=EXAMPLES * 3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), context=st.sampled_from([None, "tenant:a/user:1"]))
def test_the_tui_rows_after_a_patch_equal_a_rebuild(tmp_path_factory, data, context):
    """The live path (Session.take_appended: beliefs.patch, then each screen's rows patched in
    place) leaves every screen table, positions included, as a full rebuild builds it."""
    from inspector.tui.session import Session
    first = data.draw(timed_entries("M", data.draw(st.integers(2, 8)), []))
    root = write_store(tmp_path_factory.mktemp("tuipatch") / "s",
                       [("2025-01-01T00:00:00Z", "write", e) for e in first])
    session = Session(root)
    session.open()
    session.set_view(context, None, None)
    session.rebuild_view()
    drafts = later_drafts(data, first)
    with LogWriter(session.store.paths) as writer:
        writer.append(drafts)
    session.store.refresh()
    con = session.store.con
    with drawn_places(data, con):
        session.take_appended()
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'patch_shift'"
                       ).fetchone() == (1,), "the live path rebuilt instead of patching"
    patched = tui_tables(con)
    session.rebuild_view()
    rebuilt = tui_tables(con)
    for name in TUI_TABLES:
        assert [r for r in patched[name] if r not in rebuilt[name]] == \
            [r for r in rebuilt[name] if r not in patched[name]], name
    session.store.close()


def test_a_patch_moves_the_rows_of_other_keys_and_places_new_keys_between_them(tmp_path):
    """Keys a < c < e believed; then b and d appear (new keys between), c gains a scope and e
    loses its only belief: rows after each change move, new rows land in key order."""
    from inspector.tui.session import Session
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", entity="a", attribute="k")),
        ("2025-01-01T00:00:00Z", "write", entry("C", entity="c", attribute="k")),
        ("2025-01-01T00:00:00Z", "write", entry("E", entity="e", attribute="k")),
        ("2025-01-01T00:00:00Z", "write", entry("F", entity="f", attribute="k"))])
    session = Session(root)
    session.open()
    session.rebuild_view()
    with LogWriter(session.store.paths) as writer:
        writer.append([
            event_draft("write", "B", "agent:9", after=entry("B", entity="b", attribute="k")),
            event_draft("write", "D1", "agent:9", after=entry("D1", entity="d", attribute="k")),
            event_draft("write", "D2", "agent:9", after=entry("D2", entity="d", attribute="j")),
            event_draft("write", "C2", "agent:9", after=entry("C2", entity="c", attribute="k",
                                                              scope="tenant:a")),
            event_draft("quarantine", "E", "operator:o",
                        after={**entry("E", entity="e", attribute="k"), "status": "quarantined"})])
    session.store.refresh()
    session.take_appended()
    rows = session.store.con.execute("SELECT vpos, memory_id FROM tui_all ORDER BY vpos").fetchall()
    assert rows == [(0, "A"), (1, "B"), (2, "C"), (3, "C2"), (4, "D2"), (5, "D1"), (6, "F")]
    assert session.store.con.execute("SELECT pos, memory_id FROM beliefs ORDER BY pos").fetchall() \
        == [(p + 1, m) for p, m in rows]
    # The patch's scratch keeps no row, values included (an erasure's reload would leave them).
    assert session.store.con.execute(
        "SELECT (SELECT count(*) FROM patch_rows), (SELECT count(*) FROM conflict_patch_rows), "
        "(SELECT count(*) FROM focus_version_rows), (SELECT count(*) FROM patch_plan)").fetchone() \
        == (0, 0, 0, 5)
    session.store.close()


def test_a_patch_moves_the_conflict_rows_after_a_new_contested_key(tmp_path):
    """Keys a and f are contested; then b becomes contested (f's Conflicts row moves down, b's
    lands between), then a stops being contested (one side quarantined: f's row moves up), each
    as a rebuild numbers them."""
    from inspector.tui.session import Session
    contest = lambda i, e, v: entry(i, entity=e, attribute="k", value=v,  # noqa: E731
                                    source="tool:" + i)
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", contest("A1", "a", "x")),
        ("2025-01-01T00:00:00Z", "write", contest("A2", "a", "y")),
        ("2025-01-01T00:00:00Z", "write", contest("F1", "f", "x")),
        ("2025-01-01T00:00:00Z", "write", contest("F2", "f", "y"))])
    session = Session(root)
    session.open()
    session.rebuild_view()
    con = session.store.con
    conflicts = lambda: con.execute("SELECT vpos, entity, marker FROM tui_conflicts "  # noqa: E731
                                    "ORDER BY vpos").fetchall()
    assert conflicts() == [(0, "a", "contested"), (1, "f", "contested")]
    steps = [([event_draft("write", "B1", "agent:9", after=contest("B1", "b", "x")),
               event_draft("write", "B2", "agent:9", after=contest("B2", "b", "y")),
               event_draft("write", "C1", "agent:9", after=contest("C1", "c", "x"))],
              [(0, "a", "contested"), (1, "b", "contested"), (2, "f", "contested")]),
             ([event_draft("quarantine", "A2", "operator:o",
                           after={**contest("A2", "a", "y"), "status": "quarantined"})],
              [(0, "b", "contested"), (1, "f", "contested")])]
    for drafts, expected in steps:
        with LogWriter(session.store.paths) as writer:
            writer.append(drafts)
        session.store.refresh()
        session.take_appended()
        assert conflicts() == expected
        assert con.execute("SELECT count(*) FROM conflict_patch_rows").fetchone() == (0,)  # no copies
        patched = tui_tables(con)
        session.rebuild_view()
        assert patched == tui_tables(con)
    session.store.close()


def test_a_patch_closes_the_gaps_in_review_and_quarantine_and_puts_new_rows_in_place(tmp_path):
    """Held H0..H3 and quarantined Q0, Q1; then H1 is approved, H2 quarantined and Q1
    released: Review closes H1's gap (H3 moves up), Quarantine takes H2 first (newest) and
    Q0 moves up past Q1's gap — as a rebuild numbers them."""
    from inspector.tui.session import Session
    held = lambda i, **kw: entry(i, entity=i.lower(), attribute="k", source="web:x", **kw)  # noqa: E731
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", held("Q0", status="quarantined")),
        ("2025-01-01T00:00:00Z", "write", held("Q1", status="quarantined")),
        *[("2025-01-01T00:00:00Z", "write", held(f"H{i}", status="held")) for i in range(4)]])
    session = Session(root)
    session.open()
    session.rebuild_view()
    con = session.store.con
    rows = lambda t: con.execute(f"SELECT vpos, memory_id FROM {t} ORDER BY vpos").fetchall()  # noqa: E731
    assert rows("tui_held") == [(0, "H0"), (1, "H1"), (2, "H2"), (3, "H3")]
    assert rows("tui_quarantine") == [(0, "Q1"), (1, "Q0")]
    with LogWriter(session.store.paths) as writer:
        writer.append([event_draft("approve", "H1", "operator:o", after=held("H1", status="active")),
                       event_draft("quarantine", "H2", "operator:o",
                                   after=held("H2", status="quarantined")),
                       event_draft("release", "Q1", "operator:o", after=held("Q1", status="active"))])
    session.store.refresh()
    session.take_appended()
    assert rows("tui_held") == [(0, "H0"), (1, "H3")]
    assert rows("tui_quarantine") == [(0, "H2"), (1, "Q0")]
    patched = tui_tables(con)
    session.rebuild_view()
    assert patched == tui_tables(con)
    session.store.close()


def test_a_patch_judges_again_what_rests_on_a_changed_entry(tmp_path):
    from datetime import datetime, timezone
    from inspector.store import beliefs
    observed = entry("O", entity="user:1", attribute="city", value="Lyon")
    summary = entry("S", entity="user:1", attribute="home", value="Lyon", kind="summary",
                    justification=["O"])
    upper = entry("U", entity="org:7", attribute="hq", value="Lyon", kind="summary",
                  justification=["S"])
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write", e)
                                        for e in (observed, summary, upper)])
    s = Store(root, warn=False)
    t0, t1 = (datetime(2025, m, 1, tzinfo=timezone.utc) for m in (2, 4))
    beliefs.materialize(s.con, beliefs.ViewSpec(None, beliefs.Moment(t0, t0)))
    believed = lambda: s.con.execute("SELECT memory_id FROM beliefs ORDER BY pos").fetchall()
    assert believed() == [("U",), ("O",), ("S",)]
    draft = event_draft("quarantine", "O", "operator:o", before=observed,
                        after={**observed, "status": "quarantined"})
    draft["at"] = "2025-03-01T00:00:00Z"
    with LogWriter(s.paths) as writer:
        writer.append([draft])
    s.refresh()
    spec = beliefs.ViewSpec(None, beliefs.Moment(t1, t1))
    assert beliefs.patch(s.con, spec, t0, ["O"]) == 0     # S and U lost their support, two levels up
    assert believed() == []
    s.close()


def test_compacted_tui_tables_patch_and_answer_as_built(tmp_path, monkeypatch):
    """With compaction at every build (COMPACT_BYTES 0), the TUI's tables after a rebuild and a
    live patch on the compressed tables equal a fresh session's built without compaction."""
    from inspector.store import load
    from inspector.tui.session import Session
    root = write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", entity="a", attribute="k", value="x")),
        ("2025-01-01T00:00:00Z", "write", entry("B", entity="a", attribute="k", value="y")),
        ("2025-01-01T00:00:00Z", "write", entry("C", entity="c", attribute="k")),
        ("2025-01-01T00:00:00Z", "write", entry("H", entity="h", attribute="k", status="held"))])
    did = []
    real = Store.compact
    monkeypatch.setattr(Store, "compact", lambda self: did.append(real(self)) or did[-1])
    monkeypatch.setattr(load, "COMPACT_BYTES", 0)
    session = Session(root)
    session.open()
    session.rebuild_view()
    # after the belief table, after each of the five screens with rows of their own, at the end
    assert did == [True] * 7
    with LogWriter(session.store.paths) as writer:
        writer.append([
            event_draft("write", "D", "agent:9", after=entry("D", entity="b", attribute="k")),
            event_draft("quarantine", "A", "operator:o",
                        after={**entry("A", entity="a", attribute="k", value="x"),
                               "status": "quarantined"})])
    session.store.refresh()
    session.take_appended()
    patched = tui_tables(session.store.con)
    assert [m for (m,) in session.store.con.execute(
        "SELECT memory_id FROM beliefs ORDER BY pos").fetchall()] == ["B", "D", "C"]
    session.store.close()
    monkeypatch.setattr(load, "COMPACT_BYTES", 1 << 60)
    fresh = Session(root)
    fresh.open()
    fresh.rebuild_view()
    assert did == [True] * 7 + [False] * 7
    assert tui_tables(fresh.store.con) == patched
    fresh.store.close()


def test_compaction_gives_way_to_another_cursor_inside_a_write(store, monkeypatch):
    """A checkpoint cannot run while another cursor has uncommitted changes: compact() then
    does nothing and says so, and runs once that cursor is done."""
    from inspector.store import load
    monkeypatch.setattr(load, "COMPACT_BYTES", 0)
    s = Store(store, warn=False)
    other = s.cursor()
    other.execute("BEGIN")
    other.execute("CREATE TABLE pending (x INTEGER)")
    assert s.compact() is False
    other.execute("ROLLBACK")
    assert s.compact() is True
    assert s.con.execute("SELECT count(*) FROM versions").fetchone()[0] == s.state.seq
    s.close()


def test_readers_never_fail_while_rebuilds_compact(tmp_path, monkeypatch):
    """Three threads read the TUI's tables through their own cursors while the view is rebuilt
    and compacted again and again (each checkpoint either runs or gives way): no read fails,
    and every read sees the whole table."""
    import threading
    import time
    from inspector.store import load
    from inspector.tui.session import Session
    monkeypatch.setattr(load, "COMPACT_BYTES", 0)
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write",
                                         entry(f"M{i}", entity=f"e{i % 40}", attribute=f"a{i % 7}"))
                                        for i in range(300)])
    session = Session(root)
    session.open()
    session.rebuild_view()
    expected = session.store.con.execute("SELECT count(*) FROM tui_all").fetchone()[0]
    assert expected > 0
    errors: list[str] = []
    counts: set[int] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                with session.reader() as cur:
                    counts.add(cur.execute("SELECT count(*) FROM tui_all").fetchone()[0])
                    cur.execute("SELECT * FROM beliefs ORDER BY pos LIMIT 20 OFFSET 10").fetchall()
            except Exception as exc:       # noqa: BLE001 (any failure is the finding)
                errors.append(repr(exc))

    readers = [threading.Thread(target=read) for _ in range(3)]
    for thread in readers:
        thread.start()
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            session.rebuild_view()
    finally:
        stop.set()
        for thread in readers:
            thread.join()
    assert errors == []
    assert counts == {expected}
    session.store.close()


def test_a_search_for_residue_sees_into_the_view(tmp_path):
    canary = "canary-7f3a-ünï"
    root = write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write",
                                         entry("A", value={"note": canary}))])
    Store(root, warn=False).close()
    from logtools import readable_bytes
    assert canary.encode() in readable_bytes(root / ".inspector" / "view.duckdb")


def test_the_beliefs_filter_searches_values_and_follows_a_live_patch(tmp_path):
    """The filter lower-cases what it searches as it searches (no lower-cased copy is kept)
    and keeps the row keys it matched: the rows it shows are tui_all's, values and all, and a
    live patch renumbers them."""
    from inspector.tui.session import Session
    at = "2025-01-01T00:00:00Z"
    root = write_store(tmp_path / "s", [
        (at, "write", entry("A", entity="a", attribute="k", value="Zürich office")),
        (at, "write", entry("B", entity="b", attribute="k", value="Lyon")),
        (at, "write", entry("C", entity="c", attribute="k", value="zÜRICH depot"))])
    session = Session(root)
    session.open()
    session.rebuild_view()

    def shown():
        return [(r["vpos"], r["memory_id"], r["value"])
                for r in session.table_source("tui_beliefs").fetch(0, 99)]
    assert session.refilter("ZÜRICH") == 2
    assert shown() == [(0, "A", '"Zürich office"'), (1, "C", '"zÜRICH depot"')]
    assert session.store.con.execute("SELECT * FROM tui_filtered ORDER BY vpos").fetchall() == [
        (0, "A\x1f"), (1, "C\x1f")]
    with LogWriter(session.store.paths) as writer:
        writer.append([event_draft("write", "D", "agent:9",
                                   after=entry("D", entity="b", attribute="k", value="Zürich airport",
                                               observed_at="2025-01-02T00:00:00Z"))])
    session.store.refresh()
    session.take_appended()
    assert shown() == [(0, "A", '"Zürich office"'), (1, "D", '"Zürich airport"'),
                       (2, "C", '"zÜRICH depot"')]
    assert session.refilter("lyon") == 0 and shown() == []
    session.store.close()
