"""The nudge bar: how close the next background review is, whether one is running, and cost."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class NudgeBar(Static):
    DEFAULT_CSS = """
    NudgeBar { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    NudgeBar.-reviewing { color: $accent; }
    """

    memory = reactive(0)
    memory_interval = reactive(10)
    skills = reactive(0)
    skills_interval = reactive(10)
    reviews_running = reactive(0)
    context_share = reactive(0.0)
    cached_share = reactive(0.0)
    provider = reactive("")
    frame = reactive(0)

    def on_mount(self) -> None:
        self.set_interval(0.12, self._tick)

    def _tick(self) -> None:
        if self.reviews_running:
            self.frame = (self.frame + 1) % len(SPINNER)

    def watch_reviews_running(self, running: int) -> None:
        self.set_class(running > 0, "-reviewing")

    def render(self) -> Content:
        compact = self.size.width < 100

        def counter(value: int, interval: int, unit: str) -> str:
            if not interval:
                return "off"
            return f"{value}/{interval}" if compact else f"{value}/{interval} {unit}"

        spinner = SPINNER[self.frame]
        if compact:
            review = f"{spinner} reviewing" if self.reviews_running else "idle"
            return Content(
                f"mem {counter(self.memory, self.memory_interval, '')} │ skills "
                f"{counter(self.skills, self.skills_interval, '')} │ {review} │ ctx "
                f"{self.context_share:.0%} cache {self.cached_share:.0%}"
            )
        review = f"{spinner} review running" if self.reviews_running else "review idle"
        parts = [
            f"memory {counter(self.memory, self.memory_interval, 'turns')}",
            f"skills {counter(self.skills, self.skills_interval, 'iterations')}",
            review,
            f"context {self.context_share:.0%}",
            f"cached {self.cached_share:.0%}",
        ]
        if self.provider:
            parts.append(self.provider)
        return Content("  │  ".join(parts))
