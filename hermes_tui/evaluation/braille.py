"""Curves drawn in Braille characters for a terminal (the Insights screen's Evals tab).

Each character cell holds 2 × 4 dots, so a W × H canvas has 2W × 4H points. Each series is
drawn as straight segments between its points; a cell remembers which series drew in it last
(the face colours it). Plain text out, no UI imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

BRAILLE = 0x2800
# The dot bit for (row within the cell, column within the cell), row 0 at the top.
DOTS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def plot(
    series: Mapping[str, Sequence[float | None]],
    width: int,
    height: int,
    low: float | None = None,
    high: float | None = None,
) -> list[list[tuple[str, str | None]]]:
    """Rows of (character, series name or None) for `series` on a width × height canvas."""
    values = [v for s in series.values() for v in s if v is not None]
    low = min(values, default=0.0) if low is None else low
    high = max(values, default=1.0) if high is None else high
    if high <= low:
        high = low + 1.0
    dots_w, dots_h = width * 2, height * 4
    bits = [[0] * width for _ in range(height)]
    owner: list[list[str | None]] = [[None] * width for _ in range(height)]

    def put(x: int, y: int, name: str) -> None:
        row, col = (dots_h - 1 - y) // 4, x // 2
        if 0 <= row < height and 0 <= col < width:
            bits[row][col] |= DOTS[(dots_h - 1 - y) % 4][x % 2]
            owner[row][col] = name

    for name, points in series.items():
        n = len(points)
        coords = [
            (
                round(0 if n <= 1 else i * (dots_w - 1) / (n - 1)),
                round((v - low) / (high - low) * (dots_h - 1)),
            )
            for i, v in enumerate(points)
            if v is not None
        ]
        for (x0, y0), (x1, y1) in zip(coords, coords[1:], strict=False):
            steps = max(abs(x1 - x0), abs(y1 - y0), 1)
            for step in range(steps + 1):
                put(
                    round(x0 + (x1 - x0) * step / steps), round(y0 + (y1 - y0) * step / steps), name
                )
        if len(coords) == 1:
            put(*coords[0], name)
    return [
        [(chr(BRAILLE + bits[r][c]) if bits[r][c] else " ", owner[r][c]) for c in range(width)]
        for r in range(height)
    ]


def as_text(rows: Sequence[Sequence[tuple[str, str | None]]]) -> str:
    return "\n".join("".join(ch for ch, _ in row) for row in rows)
