"""The suite's own order (tests/conftest.py): the alone tests first, then the heavy ones, then
the rest, each group in the order it was collected."""

from __future__ import annotations

import conftest


class Item:
    def __init__(self, name: str, *marks: str):
        self.name, self.marks = name, set(marks)

    def get_closest_marker(self, mark: str):
        return mark if mark in self.marks else None


def test_alone_then_heavy_then_the_rest_each_in_collection_order():
    items = [Item("a"), Item("h1", "heavy"), Item("b"), Item("s1", "alone"), Item("h2", "heavy"),
             Item("s2", "alone", "heavy"), Item("c")]
    conftest.pytest_collection_modifyitems(None, items)
    assert [i.name for i in items] == ["s1", "s2", "h1", "h2", "a", "b", "c"]
