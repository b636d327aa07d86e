"""Driving the inspector's TUI in tests: open a store, wait for workers, read the log."""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
import time
from pathlib import Path

from textual.css.query import NoMatches

from inspector.tui.app import InspectorApp
from inspector.tui.session import Session

ROOT = Path(__file__).resolve().parents[2]
SIZE = (180, 45)


def private_copy(name: str, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT / "sample_stores" / name, target, ignore=shutil.ignore_patterns(".lock", "README.md"))
    target.chmod(0o700)
    for path in target.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    return target


def make_app(store: Path, **kw) -> InspectorApp:
    return InspectorApp(Session(store, operator=kw.pop("operator", "alice"), **kw))


def _holds(predicate) -> bool:
    try:
        return bool(predicate())
    except NoMatches:
        return False


async def until(pilot, predicate, timeout: float = 30.0, what: str = "") -> None:
    """Let workers run until `predicate()` holds. A widget it asks for that is not there (yet:
    a dialog is closing, a screen is being built) is "not yet", never an error."""
    deadline = time.monotonic() + timeout
    while not _holds(predicate):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        await pilot.pause(0.05)


def loaded(app) -> bool:
    return app.session.store is not None and app.status.loading is None and \
        not app.status.verifying and app.status.chain is not None


def quiet(app) -> bool:
    """No worker of the app or of its widgets is pending or running."""
    return not any(w.is_running or not w.is_finished for w in app.workers)


async def settle(pilot, wait=None, timeout: float = 30.0) -> None:
    """Until every worker is done and `wait(app)` holds, twice in a row with a refresh between
    (a worker's result may start another): a condition, never a fixed pause."""
    app = pilot.app
    steady = 0
    while steady < 2:
        await until(pilot, lambda: quiet(app) and (wait is None or wait(app)), timeout=timeout,
                    what=f"the screen to settle{f' ({wait})' if wait else ''}")
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        steady = steady + 1 if quiet(app) and (wait is None or wait(app)) else 0


async def ready(pilot) -> None:
    """The store is loaded, its chain verified, and the first screen has settled."""
    await until(pilot, lambda: loaded(pilot.app), timeout=60, what="the store to load")
    await settle(pilot, loaded)


def events(store: Path) -> list[dict]:
    return [json.loads(l) for l in (store / "events.jsonl").read_bytes().splitlines()]


def run(coro):
    """Run a pilot coroutine; what it returns."""
    return asyncio.run(coro)


def run_within(coro, seconds: float):
    """`run`, in a thread of its own, failed if it has not returned within `seconds`: an app
    whose loop spins runs no timer, and `until` (in the same loop) would never time out."""
    done: dict = {}

    def target():
        try:
            done["value"] = run(coro)
        except BaseException as error:     # noqa: BLE001 (raised again in the test's thread)
            done["error"] = error
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"the app did not finish within {seconds} s (its loop hung)"
    if "error" in done:
        raise done["error"]
    return done["value"]


def slow_session_open(monkeypatch, seconds: float) -> None:
    """Make the app's store take `seconds` to open, so that keys land while it opens."""
    opened = Session.open

    def slow_open(self, *args, **kwargs):
        time.sleep(seconds)
        return opened(self, *args, **kwargs)
    monkeypatch.setattr(Session, "open", slow_open)


def other_process(*args: str) -> None:
    """An inspector command run by another process, as an operator in another shell runs it
    (the app under test sees its change as any other process's)."""
    import subprocess
    import sys
    subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], check=True,
                   capture_output=True)
