"""A lineage picture as inline SVG: the belief on top, what it rests on in layers below it,
an arrow from each entry to what it cites. Independent sources (entries citing nothing) have
a double border; the border's colour is the entry's status. Every label is untrusted text:
escaped (dangerous code points made visible by the sanitizer, then XML-escaped), ids whole."""

from __future__ import annotations

from html import escape

from ..present.text import render
from .incident import Node, Picture

CHAR_W, LINE_H, PAD, GAP_X, GAP_Y = 7.4, 15, 8, 18, 46
LABEL_CHARS = 34
STATUS_COLOURS = {"active": "#2f7d32", "held": "#b8860b", "quarantined": "#d35400",
                  "retracted": "#8e1b1b", "rejected": "#8e1b1b", "expired": "#666666"}


def shown(value: str, limit: int | None = None) -> str:
    """Untrusted text as it will read: escapes visible, cut at `limit` characters."""
    text = render(value or "", one_line=True)
    return text if limit is None or len(text) <= limit else text[:limit - 1] + "…"


def _lines(node: Node) -> list[tuple[str, str]]:
    """(class, text) of the lines in a node's box, not yet XML-escaped; the id is never cut."""
    detail = " · ".join(p for p in (node.kind, node.status) if p)
    meta = f"{detail} · {node.source}" if node.source else detail
    return [("id", shown(node.memory_id)), ("key", shown(node.label, LABEL_CHARS)),
            ("meta", shown(meta, LABEL_CHARS))]


def _width(node: Node) -> float:
    return max(len(line) for _, line in _lines(node)) * CHAR_W + 2 * PAD


def picture(pic: Picture, number: int) -> str:
    """The SVG element (no XML prolog, no namespace: it is inlined in the HTML report);
    `number` keeps its arrow marker's id unique in the page."""
    box_h = 3 * LINE_H + 2 * PAD
    widths = {n.memory_id: _width(n) for layer in pic.layers for n in layer}
    rows = [sum(widths[n.memory_id] for n in layer) + GAP_X * (len(layer) - 1) for layer in pic.layers]
    total_w = max(rows) + 2 * GAP_X
    places: dict[str, tuple[float, float]] = {}
    for depth, layer in enumerate(pic.layers):
        x = (total_w - rows[depth]) / 2
        for node in layer:
            places[node.memory_id] = (x, GAP_X + depth * (box_h + GAP_Y))
            x += widths[node.memory_id] + GAP_X
    height = GAP_X * 2 + len(pic.layers) * box_h + (len(pic.layers) - 1) * GAP_Y
    parts = [f'<svg class="lineage" role="img" '
             f'width="{total_w:.0f}" height="{height:.0f}" viewBox="0 0 {total_w:.0f} {height:.0f}">',
             f"<title>lineage of {escape(shown(pic.memory_id))}</title>",
             f'<defs><marker id="arrow-{number}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" '
             'markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
             'fill="#555"/></marker></defs>']
    parts += [_edge(places, widths, box_h, s, d, number) for s, d in pic.edges
              if s in places and d in places]
    parts += [_box(n, places[n.memory_id], widths[n.memory_id], box_h, n.memory_id == pic.memory_id)
              for layer in pic.layers for n in layer]
    parts.append("</svg>")
    return "\n".join(parts)


def _edge(places, widths, box_h, src: str, dst: str, number: int) -> str:
    (sx, sy), (dx, dy) = places[src], places[dst]
    x1, y1 = sx + widths[src] / 2, sy + box_h
    x2, y2 = dx + widths[dst] / 2, dy
    if dy <= sy:                          # a citation back up (a cycle): along the side
        x1, y1, x2, y2 = sx, sy + box_h / 2, dx, dy + box_h / 2
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#555" '
            f'stroke-width="1.2" marker-end="url(#arrow-{number})"/>')


def _box(node: Node, place: tuple[float, float], width: float, box_h: float, top: bool) -> str:
    x, y = place
    colour = STATUS_COLOURS.get(node.status, "#333333")
    fill = "#eef4ff" if top else "#ffffff"
    out = [f'<g class="node"><rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{box_h:.1f}" '
           f'rx="5" fill="{fill}" stroke="{colour}" stroke-width="{2.5 if top else 1.5}"/>']
    if node.root:
        out.append(f'<rect x="{x + 3:.1f}" y="{y + 3:.1f}" width="{width - 6:.1f}" '
                   f'height="{box_h - 6:.1f}" rx="3" fill="none" stroke="{colour}" stroke-width="1"/>')
    for i, (cls, line) in enumerate(_lines(node)):
        weight = ' font-weight="bold"' if cls == "id" else ""
        out.append(f'<text x="{x + PAD:.1f}" y="{y + PAD + (i + 1) * LINE_H - 3:.1f}" '
                   f'class="{cls}"{weight}>{escape(line)}</text>')
    out.append("</g>")
    return "".join(out)
