"""How a test has the gate's text questions asked (inspector/store/detect/batch.py): each text
on its own as its line is judged, or all at once as a batch, shared with a child process
however small when `shared`."""

from __future__ import annotations

from inspector.store.detect import batch


def share_every_batch(monkeypatch) -> None:
    monkeypatch.setattr(batch, "PARALLEL_MIN", 1)
    monkeypatch.setattr(batch.os, "cpu_count", lambda: 2)


def ask(monkeypatch, way: str, shared: bool = False) -> None:
    """way "alone": the batch answers nothing, so every text is asked when judged."""
    monkeypatch.undo()
    if way == "alone":
        monkeypatch.setattr(batch, "judge", lambda secret_texts, rule_texts: batch.Judged({}, {}))
    elif shared:
        share_every_batch(monkeypatch)
