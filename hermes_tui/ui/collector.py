"""Python's full garbage collections, moved to the moments when nobody is waiting for the screen.

Drawing a streamed reply allocates heavily (strips, segments and caches for every frame), so
CPython's automatic collector runs full, oldest-generation collections while a reply streams.
Such a pass walks every object the app holds, and with a long conversation on screen it stopped
the event loop for 150-900 ms when replies were drawn with Textual's Markdown widget: keys
typed meanwhile appeared late, whatever the frame cost. Replies are now drawn as lines
(`markdown_lines.py`) and leave far less garbage, and a collection here after a 20 KB reply
takes about 50-110 ms; it still belongs where nobody waits for the screen.

The app therefore takes the objects alive after start-up out of collection altogether
(`gc.freeze`: modules, classes, styles; they live as long as the process) and raises the
oldest generation's threshold so that CPython collects it only as a last resort. The young
generations are still collected as usual (a few milliseconds each). Full collections happen
here instead: the app calls `settled()` when a turn has ended, its reply is drawn and the user
has paused (or, at the latest, a few seconds later), and what survives is frozen as well.
Nothing is leaked for long: every tenth such collection walks everything but the start-up
objects again, and the raised threshold bounds how long a collection can wait.
"""

from __future__ import annotations

import gc

# The oldest generation is collected after this many collections of the middle one (CPython's
# default is 10). Each middle collection follows 10 young ones, each after 700 allocations, so
# the last resort comes after about 7 million allocations: a couple of minutes of drawing.
LAST_RESORT = 1000
FULL_EVERY = 10  # every so many quiet-moment collections, one also walks what earlier ones froze


class Collector:
    """Owns the process's collector settings while the app runs; restores them on `stop()`."""

    def __init__(self) -> None:
        self._saved: tuple[int, int, int] | None = None
        self._since_full = 0  # quiet-moment collections since one walked everything
        self.full_collections = 0  # run by `settled()` (tests read it)

    def start(self) -> None:
        """After start-up: freeze what exists, and keep full collections for quiet moments."""
        if self._saved is not None:
            return
        gc.collect()  # only live objects go into the permanent generation
        gc.freeze()
        self._saved = gc.get_threshold()
        young, middle, _ = self._saved
        gc.set_threshold(young, middle, LAST_RESORT)

    def settled(self) -> None:
        """Nothing is being drawn and no turn runs: a full collection now costs nobody a key.

        What survives it is frozen too, so the next one walks only what the next turn made
        and its pause stays the size of one reply, however long the session. Every
        FULL_EVERY-th one walks everything again (`unfreeze`), which frees what left the
        screen since (turns pruned from the chat, closed dialogs).
        """
        if self._saved is None:
            return
        self._since_full += 1
        if self._since_full >= FULL_EVERY:
            self._since_full = 0
            gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.full_collections += 1

    def stop(self) -> None:
        if self._saved is None:
            return
        gc.set_threshold(*self._saved)
        gc.unfreeze()
        self._saved = None
