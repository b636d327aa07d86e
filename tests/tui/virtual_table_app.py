"""A VirtualTable over 100 computed rows, for the snapshot test in test_virtual_table.py."""

from __future__ import annotations

from textual.app import App, ComposeResult

from inspector.tui.widgets.virtual_table import Column, VirtualTable


class HundredRows:
    """100 rows computed on demand; row 5 holds markup and a terminal escape."""

    def count(self) -> int:
        return 100

    def fetch(self, first: int, last: int) -> list[dict[str, object]]:
        return [self.row(i) for i in range(first, last + 1)]

    @staticmethod
    def row(i: int) -> dict[str, object]:
        value = "[bold]x[/bold] \x1b]52;c;cHduZWQ=\x07" if i == 5 else f"belief number {i} " * 4
        return {"id": f"M{i:03d}", "entity": "svc", "value": value}


class VirtualTableApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VirtualTable(
            [Column("id", "ID", width=6), Column("entity", "ENTITY", width=8), Column("value", "VALUE")],
            key="id",
        )

    def on_mount(self) -> None:
        self.query_one(VirtualTable).load(HundredRows())


if __name__ == "__main__":
    VirtualTableApp().run()
