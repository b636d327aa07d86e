"""A FIFO planted where the store keeps a file it reads (the policy, a certificate) is refused,
never waited on: the commands answered the outside probe that found it only when killed."""

from __future__ import annotations

import json
import os

import pytest

from clirun import inspector
from storegen import entry, write_store


def _store(tmp_path):
    return write_store(tmp_path / "s", [("2025-01-01T00:00:00Z", "write",
                                         entry("A1", "user:42", "city", "Lyon", subject="user:42"))])


@pytest.mark.parametrize("plant, why", [
    (os.mkfifo, "not a regular file"),
    (os.mkdir, "a directory, not a regular file"),       # it said "[Errno 21] Is a directory: 3"
    (lambda path: os.symlink(path.parent / "elsewhere.toml", path),
     "a symbolic link, not a regular file"),             # it was read through the link
])
def test_a_planted_policy_toml_is_an_error_naming_it(tmp_path, plant, why):
    """A FIFO is never waited on; a directory is named as one, not by a file descriptor's
    number; a link is not followed, as no other file of the store's is (helper-58, stop 54)."""
    store = _store(tmp_path)
    (store / "elsewhere.toml").write_text('[[protect]]\nentity = "*"\nattribute = "city"\n'
                                          'writers = ["operator"]\n')
    plant(store / "policy.toml")
    for command in (["scan", store], ["policy", "show", store]):
        result = inspector(*command, subprocess_run=True)      # a hang fails at the run's timeout
        assert (result.code, result.stdout) == (2, "")
        assert result.stderr == (f"error: {store}/policy.toml: cannot read it ({why}); fix or "
                                 "remove the file\n")


def test_a_fifo_as_a_certificate_is_a_missing_certificate_to_audit(tmp_path):
    store = _store(tmp_path)
    assert inspector("erase", store, "--subject", "user:42", "--reason", "DSR-1").code == 0
    (certificate,) = (store / "certificates").iterdir()
    certificate.unlink()
    os.mkfifo(certificate)
    result = inspector("audit", store, "--verify", "--json", subprocess_run=True)
    assert result.code == 1
    assert result.json["problems"] == [{"seq": 1, "problem": (
        f"seq 1: certificate {certificate.stem} is missing or does not match the digest its "
        "erase event recorded")}]


@pytest.mark.parametrize("text", ["[]", "null", '"x"', "1", "[1, 2]"])
def test_a_certificate_that_is_json_but_not_an_object_is_a_certificate_that_does_not_match(
        tmp_path, text):
    """helper-61 #1: '[]' in place of a certificate ended `audit --verify` in a traceback
    (TypeError in dict.pop); it is a certificate that does not match, as '{}' was."""
    store = _store(tmp_path)
    assert inspector("erase", store, "--subject", "user:42", "--reason", "DSR-1").code == 0
    (certificate,) = (store / "certificates").iterdir()
    certificate.write_text(text)
    result = inspector("audit", store, "--verify", "--json", subprocess_run=True)
    assert (result.code, result.stderr) == (1, "")
    assert result.json["problems"] == [{"seq": 1, "problem": (
        f"seq 1: certificate {certificate.stem} is missing or does not match the digest its "
        "erase event recorded")}]


@pytest.mark.parametrize("text", ["a = " + "[" * 600 + "]" * 600,
                                  "a = " + "{b=" * 1000 + "1" + "}" * 1000])
def test_a_policy_nested_too_deeply_is_one_line_not_a_traceback(tmp_path, text):
    """helper-61 #2: a policy.toml nested 500 deep ended every write through the gate (and
    `policy show`, `scan`, `report`) in tomllib's RecursionError, 2,500 lines of traceback."""
    store = _store(tmp_path)
    (store / "policy.toml").write_text(text)
    (store / "policy.toml").chmod(0o600)
    for command in (["scan", store], ["policy", "show", store]):
        result = inspector(*command, subprocess_run=True)
        assert (result.code, result.stdout) == (2, "")
        assert result.stderr == (f"error: {store}/policy.toml: nested too deeply to be a policy "
                                 "(expected only [[protect]] tables); fix it or remove it to use "
                                 "the default policy\n")


@pytest.mark.parametrize("target", ["/dev/zero", "/nonexistent/events.jsonl"])
def test_a_log_that_is_a_link_to_no_regular_file_is_named_as_one(tmp_path, target):
    """helper-61 #5: a log linked to a device, or dangling, was "has no events.jsonl; create a
    store with `inspector init`", which init then refused ("already a store")."""
    store = _store(tmp_path)
    (store / "events.jsonl").unlink()
    os.symlink(target, store / "events.jsonl")
    result = inspector("beliefs", store, subprocess_run=True)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (f"error: {store}/events.jsonl is a symbolic link to {target!r}, which "
                             "is not a regular file; a store's log must be one: put the real "
                             "events.jsonl back\n")


def test_what_the_process_creates_is_its_owner_s_alone(tmp_path):
    """helper-61 #6: DuckDB's write-ahead file of a view being written took the umask's mode
    (0644 under 022), the one file of a store not 0600. The command line runs with umask 077."""
    import subprocess
    import sys
    code = ("import os, sys\nfrom inspector.cli import main\nsys.argv = ['inspector', 'init', "
            f"{str(tmp_path / 's')!r}]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "open(sys.argv[2] + '/made-after', 'w').close()\nprint(oct(os.umask(0)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          preexec_fn=lambda: os.umask(0o022), timeout=120)
    assert proc.stdout.splitlines()[-1] == "0o77"
    assert oct((tmp_path / "s" / "made-after").stat().st_mode & 0o777) == "0o600"


def test_a_certificate_whose_head_after_was_edited_fails_the_audit(tmp_path):
    """The digest an erase event records leaves head_after out (the events' hashes are made
    from that digest), and nothing else read it: a certificate claiming another head verified."""
    store = _store(tmp_path)
    assert inspector("erase", store, "--subject", "user:42", "--reason", "DSR-1").code == 0
    (certificate,) = (store / "certificates").iterdir()
    document = json.loads(certificate.read_text())
    head = document["head_after"]
    document["head_after"] = "9:" + "0" * 64
    certificate.write_text(json.dumps(document))
    result = inspector("audit", store, "--verify", "--json", subprocess_run=True)
    assert (result.code, result.json["head"]) == (1, head)
    assert result.json["problems"] == [{"seq": 2, "problem": (
        f"seq 2: certificate {certificate.stem} gives another head_after than its last erase "
        f"event, {head} (the certificate was edited)")}]
    document["head_after"] = head
    certificate.write_text(json.dumps(document))
    assert inspector("audit", store, "--verify", "--json", subprocess_run=True).json["ok"] is True


def test_a_certificate_no_erase_event_names_fails_the_audit(tmp_path):
    """A certificate of an erasure the log does not hold verified as ok: one written by hand,
    or one whose erasure a restored backup of the log undid (the erased value back in it)."""
    store = _store(tmp_path)
    before = (store / "events.jsonl").read_bytes()
    assert inspector("erase", store, "--subject", "user:42", "--reason", "DSR-1").code == 0
    (certificate,) = (store / "certificates").iterdir()
    (store / "events.jsonl").write_bytes(before)
    result = inspector("audit", store, "--verify", "--json", subprocess_run=True)
    assert result.code == 1
    assert result.json["problems"] == [{"seq": 2, "problem": (
        f"certificates/{certificate.name}: no erase event in the log names this certificate "
        "(forged, or the log was restored from before the erasure: what it erased may be back)")}]
    certificate.unlink()
    assert inspector("audit", store, "--verify", "--json", subprocess_run=True).json["ok"] is True
