"""The product stands alone: a wheel built from this checkout carries every module, query and
sample store, and once installed it works from `/` without the checkout.

The wheel is built offline (`pip wheel --no-index --no-build-isolation`: the venv's own
setuptools, a test dependency, is the build backend) from a copy of the files the build reads,
so the checkout gets no build/ or egg-info. It is installed with `pip install --target`, and
every command below runs with that directory first on PYTHONPATH and `/` as the working
directory. Deselect these with `-m "not wheel"`."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
import tomllib
import zipfile
from pathlib import Path

import pytest

from inspector.samples import NAMES

pytestmark = pytest.mark.xdist_group("wheel")      # one worker builds the wheel once

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".lock", ".inspector")
# The beliefs of sample branch-contamination at its last event (its README tells the story).
BRANCH_BELIEFS = ["M0", "M1", "M10", "M2", "M6", "M7", "M8", "M9"]


def sources() -> dict[str, Path]:
    """Where each package directory of the wheel comes from: `inspector` plus pyproject's
    [tool.setuptools.package-dir] (queries/, sample_stores/)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = {package.replace(".", "/"): ROOT / folder
              for package, folder in config.get("package-dir", {}).items() if package}
    return {"inspector": ROOT / "inspector", **mapped}


def checkout_files() -> set[str]:
    """Every file of the package sources, named as the wheel names it."""
    names = set()
    for prefix, folder in sources().items():
        for path in folder.rglob("*"):
            rel = path.relative_to(folder)
            if path.is_file() and not any(SKIPPED("", [part]) for part in rel.parts):
                names.add(f"{prefix}/{rel.as_posix()}")
    return names


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(site directory, wheel path, environment that runs the installed package)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", src)
    shutil.copy2(ROOT / "README.md", src)
    for folder in set(sources().values()):
        shutil.copytree(folder, src / folder.relative_to(ROOT), ignore=SKIPPED)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    build = subprocess.run([*pip, "wheel", "--no-deps", "--no-index", "--no-build-isolation",
                            "-w", str(tmp / "dist"), str(src)], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = (tmp / "dist").glob("memory_inspector-*.whl")
    site = tmp / "site"
    install = subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
                             capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    (tmp / "temp").mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "TMPDIR": str(tmp / "temp"),
           "INSPECTOR_OPERATOR": "wheel-test", "COLUMNS": "100"}
    env.pop("PYTHONHOME", None)
    return site, wheel, env


def run(args, env, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd="/", env=env, capture_output=True, text=True, timeout=60, **kwargs)


def test_names_are_the_sample_directories():
    """NAMES lists exactly the directories of sample_stores/ that hold a log (no more, no less)."""
    on_disk = {path.parent.name for path in (ROOT / "sample_stores").glob("*/events.jsonl")}
    assert set(NAMES) == on_disk and len(NAMES) == len(on_disk)


@pytest.mark.wheel
def test_the_wheel_carries_every_source_file_and_no_store_state(installed):
    _, wheel, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if not name.startswith("memory_inspector-")}
    missing = checkout_files() - shipped
    assert not missing, f"files the wheel lacks (pyproject packages or package-data): {sorted(missing)}"
    assert not [name for name in shipped if "/.lock" in name or "/.inspector/" in name]
    for name in NAMES:
        assert f"inspector/samples_data/{name}/events.jsonl" in shipped


@pytest.mark.wheel
def test_the_installed_package_copies_every_sample_from_anywhere(installed):
    site, _, env = installed
    script = ("import json, os, inspector\n"
              "from inspector.samples import NAMES, copy_sample, installed_names\n"
              "copies = {name: str(copy_sample(name)) for name in NAMES}\n"
              "print(json.dumps({'file': inspector.__file__, 'names': list(installed_names()),\n"
              "    'copies': copies, 'listing': {n: sorted(os.listdir(p)) for n, p in copies.items()},\n"
              "    'modes': {n: oct(os.stat(p).st_mode & 0o777) for n, p in copies.items()}}))\n")
    result = run([sys.executable, "-c", script], env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert Path(report["file"]).is_relative_to(site), report["file"]
    assert sorted(report["names"]) == sorted(NAMES)
    for name, path in report["copies"].items():
        assert Path(path).is_relative_to(env["TMPDIR"]) and Path(path).name == name
        assert report["listing"][name] == sorted(p.name for p in (ROOT / "sample_stores" / name).iterdir()
                                                 if not SKIPPED("", [p.name]))
        assert report["modes"][name] == "0o700"
        assert (Path(path) / "events.jsonl").read_bytes() == (ROOT / "sample_stores" / name / "events.jsonl").read_bytes()
    beliefs = run([str(site / "bin" / "inspector"), "beliefs", report["copies"]["branch-contamination"], "--json"], env)
    assert beliefs.returncode == 0, beliefs.stderr
    assert sorted(b["memory_id"] for b in json.loads(beliefs.stdout)["beliefs"]) == BRANCH_BELIEFS


def read_until(fd: int, sink: bytearray, done, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if done(sink):
            return True
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return done(sink)
            if not chunk:
                return done(sink)
            sink.extend(chunk)
    return done(sink)


@pytest.mark.wheel
def test_inspector_demo_runs_from_root_in_a_terminal(installed):
    """`inspector demo branch-contamination` from `/`, in a pseudo-terminal: the TUI paints the
    private copy, ctrl+q quits with 0, and the copy it names holds the sample's beliefs."""
    site, _, env = installed
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    proc = subprocess.Popen([str(site / "bin" / "inspector"), "demo", "branch-contamination"],
                            cwd="/", stdin=slave, stdout=slave, stderr=slave, close_fds=True,
                            env={**env, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "40"})
    os.close(slave)
    out = bytearray()
    try:
        painted = read_until(master, out, lambda data: b"timeout_repair" in data, 40)
        os.write(master, b"\x11")                                  # ctrl+q
        read_until(master, out, lambda data: b"the copy is kept at" in data and proc.poll() is not None, 20)
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = re.sub(r"\x1b\[[\x20-\x3f]*[\x40-\x7e]", "", out.decode("utf-8", "replace"))
    assert painted, f"the TUI never showed the sample: {text[-2000:]!r}"
    assert code == 0, text[-2000:]
    kept = re.search(r"the copy is kept at (\S+)", text)
    assert kept and re.search(r"working on a private copy: " + re.escape(kept.group(1)), text)
    copy = Path(kept.group(1))
    assert copy.is_relative_to(env["TMPDIR"]) and copy.name == "branch-contamination"
    beliefs = run([sys.executable, "-m", "inspector", "beliefs", str(copy), "--json"], env)
    assert beliefs.returncode == 0, beliefs.stderr
    assert sorted(b["memory_id"] for b in json.loads(beliefs.stdout)["beliefs"]) == BRANCH_BELIEFS
