"""Install skills from a folder, an archive or a git repository (the Skills pane's `i`).

The user names a source; the dialog fetches it on a worker thread and lists every skill in it
with the security scan's verdict. Safe skills start selected; cautious ones from a community
source can be chosen once the user ticks that they read the findings (from a trusted or bundled
source they install with a notice); dangerous and invalid ones cannot be chosen. The
installer (core/skills/install/) fetches again and installs what was chosen, so what lands is
vetted at the moment it lands.
"""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from hermes_tui.core.skills.install import (
    Candidate,
    InstallError,
    InstallResult,
    SkillInstaller,
    fetch,
    parse_source,
)
from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.text import neutralise
from hermes_tui.ui.textual_compat import QuietScreen

_MARK = {
    "safe": "✓ safe",
    "caution": "! caution",
    "dangerous": "✗ dangerous",
    "invalid": "✗ invalid",
}


class InstallScreen(QuietScreen, ModalScreen[list[str]]):
    DEFAULT_CSS = """
    InstallScreen { align: center middle; }
    InstallScreen > Vertical { width: 90%; max-width: 120; height: 80%; border: thick $primary; background: $surface; padding: 1 2; }
    InstallScreen #install-source-row { height: auto; }
    InstallScreen #install-source { width: 1fr; }
    InstallScreen SelectionList { height: 1fr; min-height: 4; }
    InstallScreen #install-findings { height: auto; max-height: 8; color: $text-muted; }
    InstallScreen #install-status { height: auto; }
    InstallScreen #install-status.-error { color: $error; }
    InstallScreen #install-buttons { height: auto; align-horizontal: right; }
    """
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(
        self, library: SkillLibrary, installer: SkillInstaller, cwd: Path | None = None
    ) -> None:
        super().__init__()
        self.library = library
        self.installer = installer
        self.needs_force: set[str] = set()
        self.cwd = cwd or Path.cwd()
        self.candidates: dict[str, Candidate] = {}
        self.source = ""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Install skills from a folder, a .zip/.tar.gz (path or https URL) or git")
            with Horizontal(id="install-source-row"):
                yield Input(placeholder="path, archive or repo[#ref][:subdir]", id="install-source")
                yield Button("Look", id="install-look")
            yield SelectionList[str](id="install-list")
            yield Static("", id="install-findings", markup=False)
            yield Checkbox("I read the findings: allow skills rated caution", id="install-force")
            yield Static("", id="install-status", markup=False)
            with Horizontal(id="install-buttons"):
                yield Button("Close", id="install-close")
                yield Button("Install selected", id="install-go", variant="primary", disabled=True)

    # ---- looking at a source --------------------------------------------------------------

    @on(Input.Submitted, "#install-source")
    @on(Button.Pressed, "#install-look")
    def _look(self) -> None:
        self.source = self.query_one("#install-source", Input).value.strip()
        if not self.source:
            return
        self._status(f"Fetching {self.source}…")
        self.query_one("#install-go", Button).disabled = True
        self.inspect(self.source)

    @work(thread=True, exclusive=True, group="install", exit_on_error=False)
    def inspect(self, source: str) -> None:
        try:
            with fetch(parse_source(source, self.cwd)) as fetched:
                candidates = self.installer.candidates(fetched)
                needs_force = {
                    c.name for c in candidates if self.installer.action(fetched, c) == "force"
                }
        except InstallError as exc:
            self.app.call_from_thread(self._status, str(exc), error=True)
            return
        self.app.call_from_thread(self._show_candidates, candidates, needs_force)

    def _show_candidates(self, candidates: list[Candidate], needs_force: set[str]) -> None:
        self.candidates = {c.name: c for c in candidates}
        self.needs_force = needs_force
        listing = self.query_one("#install-list", SelectionList)
        listing.clear_options()
        existing = {s.name for s in self.library.scan()}
        for candidate in candidates:
            taken = candidate.name in existing
            label = f"{candidate.name}  [{_MARK[candidate.verdict]}]  {candidate.relative}"
            if taken:
                label += "  (already installed)"
            listing.add_option(
                Selection(
                    neutralise(label),
                    candidate.name,
                    initial_state=candidate.verdict == "safe" and not taken,
                    disabled=taken or candidate.verdict in ("dangerous", "invalid"),
                )
            )
        findings = [
            f"{c.name}: {c.explain()}" for c in candidates if c.verdict != "safe"
        ]  # what the user must read before choosing a cautious skill
        self.query_one("#install-findings", Static).update(neutralise("\n".join(findings)))
        self.query_one("#install-go", Button).disabled = not candidates
        count = len(candidates)
        self._status(
            f"{count} skill{'s' if count != 1 else ''} in this source"
            if count
            else "No SKILL.md in this source.",
            error=not count,
        )

    # ---- installing ---------------------------------------------------------------------------

    @on(Button.Pressed, "#install-go")
    def _install(self) -> None:
        names = list(self.query_one("#install-list", SelectionList).selected)
        if not names:
            self._status("Select at least one skill.", error=True)
            return
        force = self.query_one("#install-force", Checkbox).value
        cautious = [n for n in names if n in self.needs_force]
        if cautious and not force:
            self._status(
                f"{', '.join(cautious)}: rated caution; read the findings and tick the box.",
                error=True,
            )
            return
        self._status(f"Installing {', '.join(names)}…")
        self.query_one("#install-go", Button).disabled = True
        self.run_install(self.source, names, force)

    @work(thread=True, exclusive=True, group="install", exit_on_error=False)
    def run_install(self, source: str, names: list[str], force: bool) -> None:
        try:
            with fetch(parse_source(source, self.cwd)) as fetched:
                chosen = [c for c in self.installer.candidates(fetched) if c.name in names]
                results = self.installer.install(fetched, chosen, force=force)
        except InstallError as exc:
            self.app.call_from_thread(self._status, str(exc), error=True)
            self.app.call_from_thread(self._enable_install)
            return
        self.app.call_from_thread(self._installed, results)

    def _enable_install(self) -> None:
        self.query_one("#install-go", Button).disabled = False

    def _installed(self, results: list[InstallResult]) -> None:
        names = [r.name for r in results]
        self.app.notify(neutralise(f"Installed {', '.join(names)} (provenance hub)"))
        for result in results:
            if result.notice:
                self.app.notify(neutralise(f"{result.name}: {result.notice}"), severity="warning")
        self.dismiss(names)

    # ---- small helpers -----------------------------------------------------------------------

    def _status(self, text: str, *, error: bool = False) -> None:
        status = self.query_one("#install-status", Static)
        status.update(neutralise(text))
        status.set_class(error, "-error")

    @on(Button.Pressed, "#install-close")
    def action_close(self) -> None:
        self.dismiss([])

    def on_mount(self) -> None:
        self.query_one("#install-source", Input).focus()
