"""The nudge bar: how close the next background review is, whether one is running, and cost."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from hermes_tui.core.events import UsageUpdated
from hermes_tui.core.pricing import format_cost, format_tokens

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
    usage: reactive[UsageUpdated | None] = reactive(None)

    def on_mount(self) -> None:
        self.set_interval(0.12, self._tick)

    def _tick(self) -> None:
        if self.reviews_running:
            self.frame = (self.frame + 1) % len(SPINNER)

    def watch_reviews_running(self, running: int) -> None:
        self.set_class(running > 0, "-reviewing")

    def watch_usage(self, usage: UsageUpdated | None) -> None:
        if usage is not None and usage.cost_usd is None:
            self.tooltip = (
                f"No price is known for {usage.model!r}, so its cost is not shown: add it under "
                "display.prices in config.yaml (USD per million tokens: input, output, "
                "cached_input, cache_write)."
            )
        else:
            self.tooltip = None

    def spend(self, compact: bool) -> str:
        """Tokens in and out so far and what they cost, or '' before the first model call."""
        usage = self.usage
        if usage is None or not (usage.totals.input_tokens or usage.totals.output_tokens):
            return ""
        totals = usage.totals
        tokens_in, tokens_out = (
            format_tokens(totals.input_tokens),
            format_tokens(totals.output_tokens),
        )
        if compact:
            text = f"{tokens_in}↑ {tokens_out}↓"
            return text + (f" {format_cost(usage.cost_usd)}" if usage.cost_usd is not None else "")
        text = f"tokens {tokens_in} in · {tokens_out} out"
        if usage.cost_usd is None:
            return f"{text}  │  cost n/a (unknown model)"
        return f"{text}  │  {format_cost(usage.cost_usd)}"

    def render(self) -> Content:
        compact = self.size.width < 100

        def counter(value: int, interval: int, unit: str) -> str:
            if not interval:
                return "off"
            return f"{value}/{interval}" if compact else f"{value}/{interval} {unit}"

        spinner = SPINNER[self.frame]
        if compact:
            review = f"{spinner} reviewing" if self.reviews_running else "idle"
            spend = self.spend(compact=True)
            return Content(
                f"mem {counter(self.memory, self.memory_interval, '')} │ skills "
                f"{counter(self.skills, self.skills_interval, '')} │ {review} │ ctx "
                f"{self.context_share:.0%} cache {self.cached_share:.0%}"
                + (f" │ {spend}" if spend else "")
            )
        review = f"{spinner} review running" if self.reviews_running else "review idle"
        parts = [
            f"memory {counter(self.memory, self.memory_interval, 'turns')}",
            f"skills {counter(self.skills, self.skills_interval, 'iterations')}",
            review,
            f"context {self.context_share:.0%}",
            f"cached {self.cached_share:.0%}",
        ]
        spend = self.spend(compact=False)
        if spend:
            parts.append(spend)
        if self.provider:
            parts.append(self.provider)
        return Content("  │  ".join(parts))
