"""The nudge bar: the approval mode, how close the next background review is, whether one is
running, and cost; while the provider's server is silent, a live "waiting for the server (Ns)"
first."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from hermes_tui.core.events import UsageUpdated
from hermes_tui.core.pricing import format_cost, format_tokens

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class NudgeBar(Static):
    DEFAULT_CSS = """
    NudgeBar { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    NudgeBar.-reviewing { color: $accent; }
    NudgeBar.-waiting { color: $warning; }
    NudgeBar.-plan { color: $accent; }
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
    waiting = reactive(0)  # whole seconds the server has been silent in this turn's call; 0: not
    mode = reactive("")  # the approval mode (ui/modes.py); "" until known

    def watch_mode(self, mode: str) -> None:
        self.set_class(mode == "plan", "-plan")

    def _mode(self) -> list[list[str]]:
        """The mode's label, long then short ("plan mode", "plan"); none while unknown."""
        return [[f"{self.mode} mode"], [self.mode]] if self.mode else [[]]

    def watch_waiting(self, seconds: int) -> None:
        self.set_class(seconds > 0, "-waiting")

    _spinner: Timer | None = None

    def on_mount(self) -> None:
        # The spinner turns only while a review runs: an idle app is not woken 8 times a second.
        self._spinner = self.set_interval(0.12, self._tick, pause=not self.reviews_running)

    def _tick(self) -> None:
        if self.reviews_running:
            self.frame = (self.frame + 1) % len(SPINNER)

    def watch_reviews_running(self, running: int) -> None:
        self.set_class(running > 0, "-reviewing")
        if self._spinner is None:
            return
        if running:
            self._spinner.resume()
        else:
            self._spinner.pause()

    def watch_usage(self, usage: UsageUpdated | None) -> None:
        if usage is not None and usage.cost_usd is None:
            self.tooltip = (
                f"No price is known for {usage.model!r}, so its cost is not shown: add it under "
                "display.prices in config.yaml (USD per million tokens: input, output, "
                "cached_input, cache_write)."
            )
        else:
            self.tooltip = None

    def new_session(self) -> None:
        """/new, or another provider or home: nothing of the last conversation's figures stays."""
        self.usage = None
        self.context_share = self.cached_share = 0.0
        self.waiting = 0

    def spend(self, compact: bool, reviews: bool = True) -> str:
        """Tokens in and out so far (the long form shows the background reviews' apart, unless
        not `reviews`) and what both cost (long: two parts, tab-separated), or '' before the
        first model call."""
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
            cost = "cost n/a" if usage.cost_usd is None else format_cost(usage.cost_usd)
            return f"{text} {cost}"  # an unknown price is said in both forms
        text = f"tokens {tokens_in} in · {tokens_out} out"
        review = usage.review
        if reviews and (review.input_tokens or review.output_tokens):
            text += (
                f" · reviews {format_tokens(review.input_tokens)} in"
                f" · {format_tokens(review.output_tokens)} out"
            )
        if usage.cost_usd is None:
            return f"{text}\tcost n/a"
        return f"{text}\t{format_cost(usage.cost_usd)}"

    def render(self) -> Content:
        """The long form when it fits (without the provider, which the header also shows, if
        need be), else the short one; the mode comes first in both."""
        room = self.content_size.width or self.size.width
        if self.waiting:  # it matters more than the counters while it lasts (not the mode)
            status = f"waiting for the server ({self.waiting}s)"
            if len(status) + len(self.mode) + 3 > room:
                status = f"waiting {self.waiting}s"
            return Content(self._short(room, lead=(status,)))
        if room >= 100:
            # The spend says less before the long form gives way: the reviews' tokens go
            # first, then its words (`48.2k↑ 3.1k↓ $0.084`).
            spends = [self.spend(compact=False), self.spend(compact=False, reviews=False)]
            for spend in [*dict.fromkeys(spends), self.spend(compact=True)]:
                parts = self._long_parts(spend.split("\t") if spend else [])
                bare = parts[:-1] if self.provider else parts
                quiet = [part for part in bare if part != "review idle"]
                for separator, body in (
                    ("  │  ", parts),
                    ("  │  ", bare),
                    (" │ ", bare),
                    (" │ ", quiet),  # an idle review says least: it goes before the mode does
                ):
                    for mode in self._mode():
                        text = separator.join([*mode, *body])
                        if len(text) <= room:
                            return Content(text)
        return Content(self._short(room))

    def _counter(self, value: int, interval: int, unit: str = "") -> str:
        if not interval:
            return "off"
        return f"{value}/{interval} {unit}".rstrip()

    def _long_parts(self, spend: list[str]) -> list[str]:
        spinner = SPINNER[self.frame]
        review = f"{spinner} review running" if self.reviews_running else "review idle"
        parts = [
            f"memory {self._counter(self.memory, self.memory_interval, 'turns')}",
            f"skills {self._counter(self.skills, self.skills_interval, 'iterations')}",
            review,
            f"context {self.context_share:.0%}",
            f"cached {self.cached_share:.0%}",
        ]
        parts.extend(spend)
        if self.provider:
            parts.append(self.provider)
        return parts

    def _short(self, room: int | None = None, lead: tuple[str, ...] = ()) -> str:
        """The counters in brief, the mode first (after `lead`: the mode is safety-relevant and
        is never dropped); where `room` is short, the least important parts go first: an idle
        review's word, the cache share, the context share, the spend, then the counters."""
        spinner = SPINNER[self.frame]
        mode = [self.mode] if self.mode else []
        review = [f"{spinner} reviewing"] if self.reviews_running else []
        idle = [] if self.reviews_running else ["idle"]
        counters = [
            f"mem {self._counter(self.memory, self.memory_interval)}",
            f"skills {self._counter(self.skills, self.skills_interval)}",
        ]
        context, cache = f"ctx {self.context_share:.0%}", f"cache {self.cached_share:.0%}"
        spend = [text] if (text := self.spend(compact=True)) else []
        head = [*mode, *lead, *review]
        candidates = [
            [*head, *counters, *idle, f"{context} {cache}", *spend],
            [*head, *counters, f"{context} {cache}", *spend],
            [*head, *counters, context, *spend],
            [*head, *counters, *spend],
            [*head, *counters],
            [*head, counters[0]],
            head,
            mode,
        ]
        texts = [" │ ".join(parts) for parts in candidates]
        return next((t for t in texts if room is None or len(t) <= room), texts[-1])
