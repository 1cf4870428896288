"""`/rewind` and esc esc on an empty message box: choose a turn in the rewind dialog, then put
the files back (asking first about any file the files tools would ask about, one that runs later
outside the sandbox say, and any file changed since the agent's edit), the conversation (the session goes on in a child; the old one
stays resumable), or both. The decisions are the core's (core/checkpoints.py,
Session.rewind_conversation); this wires the dialog to them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the dialog and the core's checkpoints load when first used, not at start-up
    from hermes_tui.ui.screens.rewind import RewindChoice

DOUBLE_ESCAPE = 0.8  # seconds within which a second esc on an empty box opens the dialog


class Rewinder:
    def __init__(self, app: Any) -> None:
        self.app = app
        self._last_escape = 0.0

    def escape(self, box_text: str) -> None:
        """An esc in the message box: the second within DOUBLE_ESCAPE, on an empty box with no
        turn running, opens the dialog."""
        now = time.monotonic()
        if box_text.strip() or self.app.turn_running:
            self._last_escape = 0.0
            return
        if now - self._last_escape <= DOUBLE_ESCAPE:
            self._last_escape = 0.0
            self.open()
        else:
            self._last_escape = now

    def open(self) -> None:
        from hermes_tui.ui.screens.rewind import RewindScreen

        app = self.app
        if app.turn_running:
            app.notify("Wait for the running turn (or esc) first", severity="warning")
            return
        session = app.session
        checkpoints = getattr(session, "checkpoints", None)
        if checkpoints is None or not checkpoints.turns():
            app.notify("Nothing to rewind yet: no turn of this conversation", severity="warning")
            return
        app.push_screen(RewindScreen(checkpoints), self._chosen)

    async def _chosen(self, choice: RewindChoice | None) -> None:
        if choice is None:
            return
        from hermes_tui.ui.screens.modals import ConfirmScreen

        files = choice.what != "conversation"
        asked = choice.plan.asked if files else ()
        conflicts = choice.plan.conflicts if files else ()

        async def ask_conflicts(asked_ok: bool) -> None:
            if not conflicts:
                await self._apply(choice, overwrite=False, asked_ok=asked_ok)
                return
            names = ", ".join(Path(item.path).name for item in conflicts)
            question = (
                f"{names} changed after the agent's edit (by hand or a command). Rewinding "
                "overwrites those changes. Overwrite them? (No restores the other files and "
                "keeps these as they are.)"
            )

            async def answered(yes: bool | None) -> None:
                await self._apply(choice, overwrite=bool(yes), asked_ok=asked_ok)

            self.app.push_screen(ConfirmScreen(question), answered)

        if not asked:
            await ask_conflicts(False)
            return
        # A file the files tools would ask about (it runs later outside the sandbox, lies
        # outside the working directory, holds secrets) is written back only when the user says
        # so, with the same reason.
        reasons = "; ".join(item.asks for item in asked)
        question = (
            f"Rewinding {reasons}. Write {'it' if len(asked) == 1 else 'them'} back? (No "
            "restores the other files and keeps these as they are.)"
        )

        async def decided(yes: bool | None) -> None:
            await ask_conflicts(bool(yes))

        self.app.push_screen(ConfirmScreen(question), decided)

    async def _apply(self, choice: RewindChoice, *, overwrite: bool, asked_ok: bool) -> None:
        from hermes_tui.core.checkpoints import CheckpointError
        from hermes_tui.core.mentions import without_attachments
        from hermes_tui.ui.widgets.chat import ChatView
        from hermes_tui.ui.widgets.input import ChatInput

        app, session, plan = self.app, self.app.session, choice.plan
        said: list[str] = []
        try:
            if choice.what in ("both", "files"):
                restored = session.checkpoints.restore(
                    plan, overwrite_changed=overwrite, asked_ok=asked_ok
                )
                kept = [Path(c.path).name for c in plan.conflicts if c.path not in restored]
                held = [Path(c.path).name for c in plan.asked if c.path not in restored]
                said.append(
                    f"{len(restored)} file{'' if len(restored) == 1 else 's'} restored"
                    + (f", your changes to {', '.join(kept)} kept" if kept else "")
                    + (f", {', '.join(held)} not written back" if held else "")
                )
                if plan.refused:  # a command swapped a folder (or the file) for a link
                    app.notify(
                        "Not restored, left as they are: "
                        + "; ".join(item.refused for item in plan.refused),
                        severity="warning",
                        timeout=15,
                    )
            if choice.what in ("both", "conversation"):
                text = session.rewind_conversation(plan.turn.number)
                await app.action_new_session_view()
                await app.query_one(ChatView).load_history(session.transcript())
                # The message of the turn undone, to edit and send again (its @-mentions
                # attach their files again on send).
                app.query_one(ChatInput).put_back(without_attachments(text))
                app.title = f"hermes-tui — {session.id}"
                said.append(f"the conversation is back to before turn {plan.turn.number}")
        except (CheckpointError, OSError) as exc:
            app.notify(f"Rewind stopped: {exc}", severity="error", timeout=10)
            return
        app.notify("Rewound: " + "; ".join(said), timeout=8)
