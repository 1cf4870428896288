"""Streamed text redacted as a whole, not per delta (see the package docstring)."""

from __future__ import annotations

import logging
import re
import threading

from hermes_tui.core.events import (
    Event,
    MemoryChanged,
    Notice,
    NudgeCounters,
    ReasoningDelta,
    ServerWaiting,
    Sink,
    SkillChanged,
    TextDelta,
    TextReset,
    TodoChanged,
    ToolCallFinished,
    ToolCallStarted,
    UsageUpdated,
    WriteHeld,
)
from hermes_tui.core.records import datarecord
from hermes_tui.core.redaction.known import Redactor
from hermes_tui.core.redaction.shapes import (
    DISGUISE_CAP,
    KEY_CHARACTERS,
    encoded_key,
    ends_with_key_line,
)

# Held back at most, outside a private key: no key shape is this long, and a longer run of key
# characters would make every delta scan it again.
MAX_HELD = 1024
# Inside a run of key characters longer than DISGUISE_CAP (encoded data, most likely), the last
# RUN_WINDOW characters are held (longer than any key's encoding) and the rest goes in whole
# groups of four from the run's start, at least RUN_STEP at a time.
_BASE64_LINE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\r"
RUN_WINDOW = 512
RUN_STEP = 256
# A private key's header, or its END line reversed (the key reversed), and what ends each.
_KEY_OPEN = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----|(?P<reversed>-----YEK ETAVIRP [A-Z ]*DNE-----)"
)
_KEY_END = re.compile(r"-----END [A-Z ]*PRIVATE KEY-----")
_REVERSED_KEY_END = re.compile(r"-----YEK ETAVIRP [A-Z ]*NIGEB-----")


Delta = TextDelta | ReasoningDelta


@datarecord(frozen=False)
class _Stream:
    """One thread's stream of text (or reasoning) deltas, as redaction sees it.

    When the kind changes (reasoning, then the reply), the old kind's held tail stays held as
    `prior`, ahead of the new kind's text: a secret that ends the thought and begins the reply
    is one secret, shown as one label where it began."""

    kind: type[TextDelta] | type[ReasoningDelta]
    held: str = ""  # the tail that could still grow into a secret
    in_key: str | None = None  # inside a private key: its last characters (for its END)
    key_end: re.Pattern[str] = _KEY_END  # what ends the private key `in_key` is inside
    carried: int = 0  # how much of `held` an earlier model call of the turn streamed
    prior: str = ""  # the tail the stream of the other kind left held, before `held`
    in_run: bool = False  # `held` is the end of a long run still coming (`_run`)
    swallow: bool = False  # the rest of a run that held a key: dropped up to its end
    # Inside a wrapped block of base64 whose first line decoded to a key: the line coming
    # (`_block`); `dropped`: a line break of it was left out (shown again if the block ends
    # at a line of its own).
    block: str | None = None
    dropped: str = ""

    def feed(self, redactor: Redactor, text: str) -> list[Delta]:
        """What may be shown now of the stream with `text` added, redacted."""
        if self.in_key is not None:
            # The key is already shown as one label; everything up to its END is swallowed
            # (the whole text redacts the same way), and only its END is looked for.
            seen = self.in_key + text
            end = self.key_end.search(seen)
            if end is None:
                self.in_key = seen[-64:]
                return []
            self.in_key, text = None, seen[end.end() :]
        if self.block is not None:
            return self._block(redactor, text)
        if self.swallow:
            rest = text.lstrip(KEY_CHARACTERS)
            if not rest:
                return []
            self.swallow, text = False, rest
        if self.in_run:
            return self._run(redactor, text)
        if (
            not self.prior
            and len(self.held) + len(text) <= DISGUISE_CAP
            and not (self.held + text).strip(KEY_CHARACTERS)
        ):  # a word still coming: it waits whole (the answer held_from would give, at once)
            self.held += text
            return []
        shown: list[Delta] = []
        text = self.prior + self.held + text
        cut = redactor.held_from(text)
        run = len(text.rstrip(KEY_CHARACTERS))
        if not self.prior and len(text) - run > DISGUISE_CAP and cut >= run:
            # Encoded data, most likely: a key hidden in it may begin anywhere (`_run`).
            self.held, self.in_run, self.carried = "", True, 0
            before = self.kind(redactor.text(text[:run]))
            return [delta for delta in (before, *self._run(redactor, text[run:])) if delta.text]
        if len(text) - cut > MAX_HELD:
            cut = len(text)
        if self.prior:
            if cut < len(self.prior):  # not even the other kind's tail may go yet
                shown.append(self.other(redactor.text(text[:cut])))
                self.prior, self.held = text[cut : len(self.prior)], text[len(self.prior) :]
                self.carried = 0
                return [delta for delta in shown if delta.text]
            split = redactor.split_at(text[:cut], len(self.prior))
            shown.append(self.other(redactor.text(text[:split])))
            text, cut, self.prior = text[split:], cut - split, ""
        self.held = text[cut:]
        self.carried = max(0, self.carried - cut)
        opened = _KEY_OPEN.search(self.held)
        ends = _REVERSED_KEY_END if opened and opened.group("reversed") else _KEY_END
        if opened and not ends.search(self.held, opened.end()):
            self.key_end = ends
            shown.append(self.kind(redactor.text(text[:cut] + self.held[: opened.start()])))
            shown.append(self.kind("[REDACTED private key]"))
            self.in_key, self.held = self.held[opened.end() :][-64:], ""
            return [delta for delta in shown if delta.text]
        if ends_with_key_line(text[:cut]):  # the rest of the wrapped block is the key's
            # Its line break waits: the block is one label, as in the whole text.
            line = text[:cut].rstrip("\r\n")
            shown.append(self.kind(redactor.text(line)))
            self.block, self.dropped = "", text[len(line) : cut]
            held, self.held = self.held, ""
            return [delta for delta in (*shown, *self._block(redactor, held)) if delta.text]
        shown.append(self.kind(redactor.text(text[:cut])))
        if len(self.held) > MAX_HELD:
            shown.append(self.kind(redactor.text(self.held)))
            self.held = ""
        self.carried = min(self.carried, len(self.held))
        return [delta for delta in shown if delta.text]

    def _run(self, redactor: Redactor, text: str) -> list[Delta]:
        """`text` added to a long run of key characters: what of the run may go now, in whole
        groups of four from its start (its decoding stays aligned), its last RUN_WINDOW
        characters held. A key its decoding holds is shown as its label where it begins,
        and the rest of the run is dropped (the earlier groups went, and decoded to no key)."""
        size = len(text) - len(text.lstrip(KEY_CHARACTERS))
        buffer, after = self.held + text[:size], text[size:]
        final = bool(after)  # the run ended
        if not final and len(buffer) < RUN_WINDOW + RUN_STEP:
            self.held = buffer
            return []
        limit = len(buffer) if final else len(buffer) - RUN_WINDOW
        shown: list[Delta] = []
        found = encoded_key(buffer[: len(buffer) - len(buffer) % 4])
        if found is not None and found[0] < limit:
            start = found[0] - found[0] % 4
            shown += [self.kind(redactor.text(buffer[:start])), self.kind(f"[REDACTED {found[1]}]")]
            self.held, self.in_run, self.swallow = "", False, not final
        else:
            limit = limit if final else redactor.cut_before(buffer, limit, 4)
            shown.append(self.kind(redactor.text(buffer[:limit])))
            self.held, self.in_run = buffer[limit:], not final
        if after:
            shown += self.feed(redactor, after)
        return [delta for delta in shown if delta.text]

    def _block(self, redactor: Redactor, text: str) -> list[Delta]:
        """`text` added inside a wrapped block of base64 whose first line held a key: each
        line of it (4 characters of base64 or more) is dropped with its line break, up to the
        first other character, as the whole text is redacted (`_WRAPPED_RUN`)."""
        buffer = str(self.block) + text
        while True:
            lead = len(buffer) - len(buffer.lstrip(_BASE64_LINE))
            if lead == len(buffer):  # the line is still coming
                self.block = buffer
                return []
            line = buffer[:lead].rstrip("\r")
            if len(line) >= 4 and buffer[lead] == "\n":
                buffer, self.dropped = buffer[lead + 1 :], buffer[len(line) : lead + 1]
                continue
            break
        rest = buffer[lead:] if len(line) >= 4 else self.dropped + buffer
        self.block = None
        return self.feed(redactor, rest)

    def word_ended(self, redactor: Redactor) -> list[Delta]:
        """The model call ended (a tool call begins): the word it was streaming is whole. What
        no secret could go on from, were a separator to follow, is shown now, in the message it
        belongs to; what could still begin a secret waits on for the next call's text."""
        if self.in_run:  # the run is whole: it goes as one text (redacted so)
            self.in_run, shown, self.held = False, self.held, ""
            return [delta for delta in (self.kind(redactor.text(shown)),) if delta.text]
        self.swallow = False
        if self.prior or self.in_key is not None or not self.held:
            return []
        cut = min(redactor.held_from(self.held + " ", call_ended=True), len(self.held))
        shown, self.held = self.held[:cut], self.held[cut:]
        return [delta for delta in (self.kind(redactor.text(shown)),) if delta.text]

    def other(self, text: str) -> Delta:
        return (ReasoningDelta if self.kind is TextDelta else TextDelta)(text)

    def let_go(self, redactor: Redactor) -> list[Delta]:
        """The held tails, redacted, as the stream ends."""
        if self.block is not None:  # the block's last line, if it may be one, is dropped
            line = self.block.rstrip("\r")
            self.held = "" if len(line) >= 4 else self.dropped + line
            self.block = None
        first, second = redactor.pair(self.prior, self.held)
        return [delta for delta in (self.other(first), self.kind(second)) if delta.text]


# What happens within a turn, between or during its model calls (its tools run, a retry is
# announced): the tail held back goes on waiting across them, so text that ends a call with the
# start of a secret and begins the next call with the rest shows it as one label. Any other
# event (the turn's end, an error) lets it go.
_WITHIN_TURN = (
    ServerWaiting,
    Notice,
    ToolCallStarted,
    ToolCallFinished,
    TodoChanged,
    MemoryChanged,
    SkillChanged,
    WriteHeld,
    UsageUpdated,
    NudgeCounters,
)


def redacting_sink(sink: Sink, redactor: Redactor) -> Sink:
    """`sink`, handed every event with its text redacted (what the faces print and show).

    Text and reasoning deltas are redacted as one stream per thread (each turn streams on its
    own): the tail that could still grow into a secret waits for the next delta, and is let go
    (redacted) by any other event of that thread but those within a turn (`_WITHIN_TURN`): a
    secret split across two model calls of a turn, around a tool call, is redacted whole. A
    retried call's reset drops the attempt's text, held or not, but keeps what an earlier call
    left held.
    """
    lock = threading.Lock()
    streams: dict[int, _Stream] = {}  # thread → its stream

    def let_go(stream: _Stream | None) -> None:
        if stream is not None:
            for delta in stream.let_go(redactor):
                sink(delta)

    def forward(event: Event) -> None:
        thread = threading.get_ident()
        if isinstance(event, (TextDelta, ReasoningDelta)):
            with lock:
                stream = streams.get(thread)
                if stream is None or stream.kind is not type(event):
                    streams[thread] = _Stream(type(event))
            if stream is not None and stream.kind is not type(event):
                # The other kind's tail waits on, ahead of this one (a secret split between
                # the thought and the reply); a tail older than that goes now.
                if stream.prior:
                    sink(stream.other(redactor.text(stream.prior)))
                if stream.in_key is None:
                    streams[thread].prior = stream.held
                stream = None
            stream = stream or streams[thread]
            for delta in stream.feed(redactor, event.text):
                sink(delta)
            return
        ended: list[Delta] = []
        with lock:
            stream = streams.get(thread)
            if isinstance(event, _WITHIN_TURN):
                if stream is not None and isinstance(event, ToolCallStarted):
                    ended = stream.word_ended(redactor)
                    stream.carried = len(stream.held)  # the call that streamed it is over
                stream = None
            elif isinstance(event, TextReset) and stream is not None and stream.carried:
                # A retry drops the attempt's text, held or not; what an earlier call of the
                # turn streamed is kept, still held.
                stream.held, stream.in_key = stream.held[: stream.carried], None
                stream.in_run = stream.swallow = False
                stream.block = None
                stream = None
            else:
                stream = streams.pop(thread, None)
        for delta in ended:
            sink(delta)
        if not isinstance(event, TextReset):
            let_go(stream)
        sink(redactor.deep(event))

    return forward


class RedactingFilter(logging.Filter):
    """A handler filter: the formatted message and any traceback redacted before it is written."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.redactor.text(record.getMessage())
        record.args = None
        if record.exc_info:
            record.exc_text = self.redactor.text(
                logging.Formatter().formatException(record.exc_info)
            )
            record.exc_info = None
        return True
