"""What erasure also guarantees (DESIGN §6): the reason cannot carry what it erases; no links,
no strangers; a full disk is an error, not a leftover; ownership stays."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from logtools import failing_write, fill
from storegen import entry, write_store
from inspector.store import erasure, files, registry
from inspector.store.actions import Request
from inspector.store.append import LogWriter, event_draft, init_store
from inspector.store.audit import verify
from inspector.store.errors import BadInput, InspectorError, Refused
from inspector.store.load import Store
from inspector.store.logfile import check_writable, exposure_warning, store_paths

ROOT = Path(__file__).resolve().parents[2]
CANARY = "canary-7f3a9c-Seattle Washington"


def erase(root: Path, reason: str = "DSR-5", **request) -> erasure.ErasurePlan:
    store = Store(root, warn=False)
    try:
        request = request or {"subject": "user:5"}
        return registry.apply(store, registry.plan(store, Request("erase", reason, "dana", **request)))
    finally:
        store.con.close()


def plan(root: Path, reason: str, **request):
    store = Store(root, warn=False)
    try:
        return registry.plan(store, Request("erase", reason, "dana", **(request or {"subject": "user:5"})))
    finally:
        store.con.close()


def guarded_store(tmp_path: Path) -> Path:
    """user:5's entry A (a nested value, a context, tags), quarantined and released with
    reasons; its descendant S; and K, someone else's."""
    root = tmp_path / "s"
    init_store(root)
    a = entry("A", entity="user:5", subject="user:5", scope="user:5",
              value={"home": [{"city": CANARY}], "note": "NY"},
              context="met at the Lisbon harbour festival", tags=["vegetarian-diet", "ok"])
    quarantined = {**a, "status": "quarantined"}
    s = entry("S", entity="report", attribute="summary", kind="summary",
              value="weekly digest for the team", justification=["A"])
    k = entry("K", entity="other", attribute="k", value="kept-value")
    drafts = [event_draft("write", "A", "agent:1", after=a),
              event_draft("quarantine", "A", "operator:ops", before=a, after=quarantined,
                          reason="complaint filed by Rosa Delgado"),
              event_draft("release", "A", "operator:ops", before=quarantined, after=a,
                          reason="checked with the team"),
              event_draft("write", "S", "agent:1", after=s),
              event_draft("write", "K", "agent:1", after=k)]
    with LogWriter(store_paths(root)) as writer:
        writer.append(drafts)
    return root


# -- 1. the reason cannot carry what it erases ----------------------------------------------

@pytest.mark.parametrize("reason, what", [
    ("quote: Met at the Lisbon HARBOUR festival.", "a context"),
    ("see complaint filed by rosa delgado", "an earlier reason"),
    ("DSR: canary-7f3a9c-Sea\u200bttle\u2060 Washington", "a value"),
    ("DSR: ｃａｎａｒｙ－７ｆ３ａ９ｃ－ＳＥＡＴＴＬＥ　ＷＡＳＨＩＮＧＴＯＮ", "a value"),
    ("CANARY-7F3A9C-SEATTLE   WASHINGTON", "a value"),
    ("Vegetarian\u00ad-Diet request", "a tag"),
    ("digest: Weekly Digest for the team", "a value"),          # a descendant's value
    ("erase USER:5 now", "subject"),
    ("erase ｕｓｅｒ：５ now", "subject"),
])
def test_the_reason_may_not_quote_what_is_erased(tmp_path, reason, what):
    root = guarded_store(tmp_path)
    before = (root / "events.jsonl").read_bytes()
    with pytest.raises(Refused) as caught:
        plan(root, reason)
    assert caught.value.exit_code == 3 and what in str(caught.value)
    assert "\n" not in str(caught.value) and "Lisbon" not in str(caught.value)
    assert (root / "events.jsonl").read_bytes() == before


def test_the_reason_guard_also_holds_for_erasure_by_id(tmp_path):
    root = guarded_store(tmp_path)
    with pytest.raises(Refused, match="an earlier reason"):
        plan(root, "per CHECKED WITH THE TEAM", ids=("A",))


@pytest.mark.parametrize("reason", ["DSR-5", "NY office ticket 12", "ok per legal", "ticket about a team"])
def test_a_reason_without_erased_text_passes(tmp_path, reason):
    root = guarded_store(tmp_path)        # "NY" and "ok" are shorter than 4: never looked for
    doc = erase(root, reason).certificate
    assert doc["erased_ids"] == ["A", "S"] and doc["reason"] == reason


def test_what_an_erasure_says_it_did_counts_in_words(tmp_path):
    """"erased 1 entries" (helper-59, stop 54)."""
    root = guarded_store(tmp_path)
    one = erase(root, "DSR-5", ids=("K",))            # K alone: nothing rests on it
    assert one.done() == f"erased 1 entry; certificate {one.certificate['id']}"
    two = erase(guarded_store(tmp_path / "again"), "DSR-6")
    assert two.done() == f"erased 2 entries; certificate {two.certificate['id']}"


def test_the_walk_over_a_value_never_recurses():
    value: object = "deep-secret-text"
    for _ in range(100_000):
        value = [{"k": value}]
    assert "deep-secret-text" in set(erasure._strings(value))
    assert erasure.fold("Ｄeep\u200b-SECRET") == "deep-secret"


# -- 3 and 6. no links, no strangers ----------------------------------------------------------

def small_store(tmp_path: Path) -> Path:
    return write_store(tmp_path / "s", [
        ("2025-01-01T00:00:00Z", "write", entry("A", entity="user:5", subject="user:5", value=CANARY)),
        ("2025-01-01T00:00:01Z", "write", entry("K", entity="other", attribute="k", value="kept-value"))])


@pytest.mark.parametrize("name, directory", [
    ("torn", True), ("certificates", True), (".inspector", True), (".lock", False)])
def test_a_linked_store_path_is_refused_by_writers(tmp_path, name, directory):
    root = small_store(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere if directory else elsewhere / "file"
    if not directory:
        target.write_bytes(b"victim")
    (root / name).unlink(missing_ok=True)
    (root / name).symlink_to(target)
    with pytest.raises(BadInput) as caught:
        with LogWriter(store_paths(root)):
            pass
    assert caught.value.exit_code == 2 and str(root / name) in str(caught.value)
    assert "symbolic link" in str(caught.value)
    with pytest.raises(BadInput, match="symbolic link"):
        erase(root)
    assert sorted(p.name for p in elsewhere.iterdir()) == ([] if directory else ["file"])
    assert directory or target.read_bytes() == b"victim"


def test_a_linked_log_makes_erase_refuse_and_keeps_the_target_untouched(tmp_path):
    root = small_store(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.move(root / "events.jsonl", elsewhere / "events.jsonl")
    (root / "events.jsonl").symlink_to(elsewhere / "events.jsonl")
    data = (elsewhere / "events.jsonl").read_bytes()
    result = subprocess.run([sys.executable, "-m", "inspector", "erase", str(root), "--subject",
                             "user:5", "--reason", "DSR-5", "--operator", "dana"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "symbolic link" in result.stderr and str(root / "events.jsonl") in result.stderr
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert (root / "events.jsonl").is_symlink()
    assert (elsewhere / "events.jsonl").read_bytes() == data
    assert not (root / "certificates").exists() or not any((root / "certificates").iterdir())
    with pytest.raises(BadInput, match="symbolic link"):
        files.replace_file(root / "events.jsonl", [b""], "erase")   # the rewrite itself refuses too


def test_a_planted_torn_file_link_is_never_written_through(tmp_path):
    root = small_store(tmp_path)
    log = root / "events.jsonl"
    size = log.stat().st_size
    with log.open("ab") as f:
        f.write(b'{"seq":3,"body":"torn tail')
    victim = tmp_path / "victim"
    victim.write_bytes(b"victim")
    (root / "torn").mkdir(mode=0o700)
    (root / "torn" / str(size)).symlink_to(victim)           # where the torn tail would go
    with LogWriter(store_paths(root)) as writer:
        writer.set_torn_aside()
    assert victim.read_bytes() == b"victim"
    assert (root / "torn" / f"{size}.1").read_bytes() == b'{"seq":3,"body":"torn tail'
    assert log.stat().st_size == size


def test_recovering_the_same_torn_tail_twice_keeps_one_copy(tmp_path):
    root = small_store(tmp_path)
    size = (root / "events.jsonl").stat().st_size
    (root / "torn").mkdir(mode=0o700)
    (root / "torn" / str(size)).write_bytes(b'{"seq":3')   # moved aside, then a crash before the cut
    with (root / "events.jsonl").open("ab") as f:
        f.write(b'{"seq":3')
    with LogWriter(store_paths(root)) as writer:
        writer.set_torn_aside()
    assert sorted(p.name for p in (root / "torn").iterdir()) == [str(size)]


def test_a_stale_temp_link_is_removed_not_followed(tmp_path):
    root = small_store(tmp_path)
    victim = tmp_path / "victim"
    victim.write_bytes(b"victim")
    (root / ".events.jsonl.tmp-4242").symlink_to(victim)
    (root / ".events.jsonl.tmp-4343-ab12").write_bytes(CANARY.encode())
    with LogWriter(store_paths(root)):
        pass
    assert not [p for p in root.iterdir() if p.name.startswith(".events.jsonl.tmp-")]
    assert victim.read_bytes() == b"victim"


def test_new_files_never_replace_or_follow(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_bytes(b"old")
    with pytest.raises(FileExistsError):
        files.write_file(tmp_path / "d" / "x", b"new")
    (tmp_path / "d" / "y").symlink_to(tmp_path / "target")
    with pytest.raises((FileExistsError, BadInput)):
        files.write_new(tmp_path / "d", "y", b"new")
    assert (tmp_path / "d" / "x").read_bytes() == b"old" and not (tmp_path / "target").exists()


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_writers_refuse_a_store_others_can_write(tmp_path, mode):
    root = small_store(tmp_path)
    root.chmod(mode)
    with pytest.raises(BadInput) as caught:
        with LogWriter(store_paths(root)):
            pass
    assert f"chmod 700 {root}" in str(caught.value) and caught.value.exit_code == 2
    result = subprocess.run([sys.executable, "-m", "inspector", "erase", str(root), "--subject",
                             "user:5", "--reason", "DSR-5", "--operator", "dana"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2 and "chmod 700" in result.stderr and "Traceback" not in result.stderr
    assert CANARY.encode() in (root / "events.jsonl").read_bytes()


def test_readers_warn_when_others_can_write(tmp_path):
    root = small_store(tmp_path)
    root.chmod(0o733)
    warning = exposure_warning(store_paths(root))
    assert warning and "can be written by group or others" in warning
    root.chmod(0o755)
    assert "can be read by group or others" in exposure_warning(store_paths(root))
    root.chmod(0o777)
    assert "can be read and written by group or others" in exposure_warning(store_paths(root))
    root.chmod(0o700)
    assert exposure_warning(store_paths(root)) is None
    check_writable(store_paths(root))


# -- 4. a full disk is an error, not a leftover ----------------------------------------------

def big_store(tmp_path: Path, n: int = 300) -> Path:
    return write_store(tmp_path / "s", [
        (f"2025-01-01T00:00:{i % 60:02d}Z", "write",
         entry(f"M{i}", entity="user:5" if i % 3 == 0 else "other", attribute=f"a{i}",
               subject="user:5" if i % 3 == 0 else None, value=f"{CANARY}-{i}" + "x" * 200))
        for i in range(n)])


@pytest.mark.parametrize("marker, after", [(".events.jsonl.tmp-", 3), (".events.jsonl.tmp-", 0),
                                            (".json.pending", 0)])
def test_a_full_disk_stops_erasure_with_nothing_left_behind(tmp_path, monkeypatch, marker, after):
    root = big_store(tmp_path)
    before = (root / "events.jsonl").read_bytes()
    store = Store(root, warn=False)
    reviewed = registry.plan(store, Request("erase", "DSR-5", "dana", subject="user:5"))
    calls = failing_write(monkeypatch, marker, after)
    with pytest.raises(InspectorError) as caught:
        registry.apply(store, reviewed)
    monkeypatch.undo()
    assert calls[0] > after, "the failure was never injected"
    message = str(caught.value)
    assert caught.value.exit_code == 2 and "\n" not in message
    assert "No space left on device" in message and "nothing was changed" in message
    assert (root / "events.jsonl").read_bytes() == before
    # The persistent view of the (unchanged) log stays: it holds nothing the log does not.
    assert sorted(p.name for p in root.iterdir()) in (
        [".inspector", ".lock", "certificates", "events.jsonl"], [".inspector", ".lock", "events.jsonl"])
    assert sorted(p.name for p in (root / ".inspector").iterdir()) == ["view.duckdb"]
    assert not (root / "certificates").exists() or not any((root / "certificates").iterdir())
    store.con.close()
    assert erase(root).certificate["counts"]["entries"] == 100     # with space again, it works


def test_a_really_full_disk_is_one_line_and_no_leftover(small_disk):
    root = big_store(small_disk, n=500)
    filler = fill(small_disk, leave=40_000)                # less room than the rewrite needs
    before = (root / "events.jsonl").read_bytes()
    assert len(before) > 60_000
    result = subprocess.run([sys.executable, "-m", "inspector", "erase", str(root), "--subject",
                             "user:5", "--reason", "DSR-5", "--operator", "dana"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "No space left on device" in result.stderr
    assert (root / "events.jsonl").read_bytes() == before
    assert not [p for p in root.rglob("*") if ".tmp-" in p.name or p.name.endswith(".pending")]
    filler.unlink()
    assert erase(root).certificate["counts"]["entries"] == 167


# -- 5. ownership stays ----------------------------------------------------------------------

@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_the_rewrite_keeps_owner_group_and_mode(tmp_path):
    root = small_store(tmp_path)
    log = root / "events.jsonl"
    os.chown(log, 1000, 1001)
    log.chmod(0o640)
    erase(root)
    st = log.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (1000, 1001, 0o640)
    assert CANARY.encode() not in log.read_bytes()
    assert verify(store_paths(root)).ok


def test_a_rewrite_that_cannot_keep_the_owner_changes_nothing(tmp_path, monkeypatch):
    root = small_store(tmp_path)
    before = (root / "events.jsonl").read_bytes()
    real = os.fstat

    def other_owner(fd):
        st = real(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid + 1,
                               st.st_gid, st.st_size, st.st_atime, st.st_mtime, st.st_ctime))

    def refuse(fd, uid, gid):
        raise PermissionError(errno.EPERM, "Operation not permitted")
    monkeypatch.setattr(os, "fstat", other_owner)
    monkeypatch.setattr(os, "fchown", refuse)
    with pytest.raises(InspectorError, match="cannot keep the owner"):
        erase(root)
    monkeypatch.undo()
    assert (root / "events.jsonl").read_bytes() == before
    assert not [p for p in root.rglob("*") if ".tmp-" in p.name or p.name.endswith(".pending")]


@pytest.mark.parametrize("where", [".inspector", "torn"])
def test_a_view_or_torn_directory_erase_cannot_change_refuses_before_anything_is_written(
        tmp_path, monkeypatch, where):
    """Another account's .inspector (a command run with sudo -u): the erasure rewrote the log,
    then could not delete the view, which kept the erased values, and said only "the next
    command that writes finishes it", which none could (helper-68 #3). Now it finds out first:
    refused in one line naming the directory, the log and the view untouched."""
    root = guarded_store(tmp_path)
    Store(root, warn=False).con.close()              # a view of the whole log
    (root / "torn").mkdir(exist_ok=True)
    (root / "torn" / "kept").mkdir()                 # a folder inside: walked too
    before = (root / "events.jsonl").read_bytes()
    real = os.open
    locked = str(root / where)

    def denied(path, flags, mode=0o777, **kw):
        if os.path.basename(str(path)).startswith(".erase-probe-") and \
                str(path).startswith(locked):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(path, flags, mode, **kw)
    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(InspectorError) as refused:
        erase(root)
    monkeypatch.undo()
    assert str(refused.value).startswith(f"cannot erase: {root / where}")
    assert str(refused.value).endswith("then run erase again; nothing was changed")
    assert (root / "events.jsonl").read_bytes() == before
    assert not list(root.glob("certificates/*"))
    assert erase(root).erased == ["A", "S"]          # once it can: erased, nothing left
    assert not any(CANARY.encode() in p.read_bytes() for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("linked", ["events.jsonl", "reports/report-x.md", "torn/120"])
def test_a_file_with_another_name_refuses_the_erasure_before_anything_is_written(tmp_path, linked):
    """A hard link to the log (`ln events.jsonl keep`, a backup made with `cp -l`): the erasure
    renamed a new log into place and the old one, every erased value in it, stayed whole under
    its other name, while the certificate said the erasure was done. A report or a torn file
    it deletes by name, the same. Now refused in one line naming the file; once the other name
    is gone, the erasure runs and leaves nothing."""
    root = guarded_store(tmp_path)
    path = root / linked
    if not path.exists():
        path.parent.mkdir(mode=0o700, exist_ok=True)
        path.write_text(f"mentions A: {CANARY}\n")
    keep = tmp_path / "keep"
    os.link(path, keep)
    before = (root / "events.jsonl").read_bytes()
    with pytest.raises(InspectorError) as refused:
        erase(root)
    assert refused.value.exit_code == 2
    assert str(refused.value).startswith(f"cannot erase: {path} has 1 other name (a hard link)")
    assert str(refused.value).endswith("then run erase again; nothing was changed")
    assert (root / "events.jsonl").read_bytes() == before and path.exists()
    assert not list(root.glob("certificates/*"))
    keep.unlink()
    assert erase(root).erased == ["A", "S"]
    assert not any(CANARY.encode() in p.read_bytes() for p in root.rglob("*") if p.is_file())
