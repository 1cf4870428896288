"""The SKILL.md editor: live validation beside the text, a diff preview before every save.

Saving writes through the library with origin "user" (history kept). If the file changed on
disk since it was opened, the preview says so and diffs against what is on disk now. A secret
in the file (a hand edit, an install) is shown as its redaction label, here and in the diffs;
a save that still holds that label is refused (it would write the label over the secret).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, OptionList, Static, TextArea
from textual_diff_view import DiffView

from hermes_tui.core.redaction import kept_labels
from hermes_tui.core.skills import frontmatter, guard
from hermes_tui.core.skills.frontmatter import SkillFormatError
from hermes_tui.core.skills.history import Version
from hermes_tui.core.skills.library import DEFAULT_CATEGORY, SkillError, SkillLibrary
from hermes_tui.core.text import is_clean, neutralise
from hermes_tui.ui.text import literal, local_time, stamp_time
from hermes_tui.ui.textual_compat import QuietScreen

TEMPLATE_NAME = "my-skill"
FRONTMATTER_NAME = re.compile(r"\A---\n(?:.*\n)*?name:[ \t]*(\S*)[ \t]*$", re.M)
TEMPLATE = """---
name: {name}
description: One line saying when to use this skill and what it achieves.
metadata:
  hermes:
    tags:
      - example
---

# {title}

Use when …

1. First step (the exact command).
2. Check the result.

Pitfalls: …
"""


_SECRET_KEPT = (
    "the file holds a secret, shown as {}: saving would write that label over it; take the "
    "label out to drop the secret, or edit SKILL.md outside the app to keep it"
)


@dataclass(frozen=True)
class Problem:
    """One line next to the editor: an error the save would refuse, or a warning."""

    text: str
    error: bool = False

    def __str__(self) -> str:
        return f"{'✗' if self.error else '⚠'} {self.text}"


def validate(text: str, name: str | None, *, new: bool = False) -> list[Problem]:
    """Problems to show next to the editor; an empty list means it can be saved. `name` is the
    name the save uses; a `new` skill's name must meet the spec (an old one keeps its own)."""
    problems = []
    try:
        document = frontmatter.parse_for_write(text, "SKILL.md", None if new else name)
        if name and document.name != name:
            rule = "match the name box" if new else "stay"
            problems.append(Problem(f"name {document.name!r} must {rule} {name!r}", error=True))
    except SkillFormatError as exc:
        problems.append(Problem(str(exc), error=True))
    findings = guard.scan_text(text, "SKILL.md")
    problems += [
        Problem(f"{f.id} ({f.severity}) line {f.line or '?'}: {f.description}") for f in findings
    ]
    return problems


class DiffPreview(QuietScreen, ModalScreen[bool]):
    DEFAULT_CSS = """
    DiffPreview { align: center middle; }
    DiffPreview > Vertical { width: 95%; height: 90%; border: thick $primary; background: $surface; }
    DiffPreview .changed { color: $warning; padding: 0 1; }
    DiffPreview VerticalScroll { height: 1fr; }
    DiffPreview Horizontal { height: 3; align-horizontal: right; }
    """
    BINDINGS = [Binding("escape", "cancel", "Back to editing"), Binding("enter", "confirm", "Save")]

    def __init__(self, title: str, before: str, after: str, changed_on_disk: bool) -> None:
        super().__init__()
        self.title_text, self.before, self.after, self.changed = (
            title,
            before,
            after,
            changed_on_disk,
        )

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(neutralise(self.title_text), markup=False)
            if self.changed:
                yield Static(
                    "The file changed on disk since you opened it; this diff is against the disk.",
                    classes="changed",
                )
            with VerticalScroll():
                yield DiffView(
                    "on disk",
                    "your edit",
                    neutralise(self.before),
                    neutralise(self.after),
                    split=False,
                    annotations=True,
                    wrap=True,  # its lines would scroll sideways with no bar: cut, unmarked
                )
            with Horizontal():
                yield Button("Back (esc)", id="back")
                yield Button("Save (enter)", id="confirm", variant="primary")

    @on(Button.Pressed, "#confirm")
    def action_confirm(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#back")
    def action_cancel(self) -> None:
        self.dismiss(False)


class SkillEditor(QuietScreen, Screen):
    DEFAULT_CSS = """
    SkillEditor #editor-body { height: 1fr; }
    SkillEditor TextArea { width: 3fr; }
    SkillEditor #problems { width: 2fr; min-width: 30; padding: 0 1; border-left: solid $panel; }
    SkillEditor #problems .ok { color: $success; }
    SkillEditor #problems .bad { color: $error; }
    SkillEditor #new-name { width: 40; }
    SkillEditor #new-row { height: auto; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save…"),
        # Priority: the body is a code editor, which takes esc to mean "focus the next widget".
        Binding("escape", "close", "Close", priority=True),
        Binding("ctrl+e", "external", "$EDITOR"),
    ]

    def __init__(self, library: SkillLibrary, name: str | None) -> None:
        super().__init__()
        self.library = library
        self.skill_name = name
        skill = library.get(name) if name else None
        self.path = skill.skill_md if skill else None
        self.original = self.path.read_text(encoding="utf-8") if self.path else ""
        # Control characters are shown (and saved) as their visible stand-ins: an editor must
        # not replay a file's escape sequences to the terminal.
        self.had_controls = not is_clean(self.original)
        self.shown = library.shown(self.original)  # its secrets as their labels

    def compose(self) -> ComposeResult:
        title = (
            f"Editing {self.skill_name} — {self.path.parent.name}/SKILL.md"
            if self.path
            else "New skill"
        )
        yield Label(neutralise(title), markup=False)
        if not self.skill_name:
            with Horizontal(id="new-row"):
                yield Label("name: ")
                yield Input(placeholder="my-skill", id="new-name")
                yield Label("  category: ")
                yield Input(placeholder=DEFAULT_CATEGORY, id="new-category")
        with Horizontal(id="editor-body"):
            text = neutralise(self.shown) or TEMPLATE.format(name=TEMPLATE_NAME, title="My skill")
            yield TextArea.code_editor(text, language="markdown", id="skill-text", soft_wrap=True)
            yield VerticalScroll(Static("", id="problem-text", markup=False), id="problems")
        yield Footer()

    def on_mount(self) -> None:
        self._auto_name = TEMPLATE_NAME
        self._loaded = self.query_one(TextArea).text
        self._warned = False
        self._check()
        # A new skill starts with its name (the frontmatter follows it); an edit, in the body.
        self.query_one("#new-name" if not self.skill_name else "#skill-text").focus()

    def _problems(self) -> list[Problem]:
        """What the save would say of the buffer, under the very name it would save it as."""
        text = self.query_one(TextArea).text
        if self.skill_name:
            problems = validate(text, self.skill_name)
            if kept := kept_labels(self.original, self.shown, text):
                problems.insert(0, Problem(_SECRET_KEPT.format(" ".join(kept)), error=True))
            return problems
        name = self._new_name()
        if not name:
            return [Problem("the new skill has no name yet: type it in the name box", error=True)]
        problems = validate(text, name, new=True)
        category = self.query_one("#new-category", Input).value.strip()
        if category and (problem := frontmatter.check_name(category, "category")):
            problems.insert(0, Problem(problem, error=True))
        if self.library.get(name) is not None:
            problems.insert(0, Problem(f"a skill named {name!r} already exists", error=True))
        return problems

    @on(TextArea.Changed)
    def _check(self) -> None:
        problems = self._problems()
        label = self.query_one("#problem-text", Static)
        if self.had_controls:
            problems.append(
                Problem(
                    "the file on disk holds control characters or escape sequences; they are "
                    "shown as ␛… and saving writes them as shown"
                )
            )
        label.update(
            neutralise("\n".join(map(str, problems)))
            if problems
            else "✓ valid: frontmatter, name and size are fine; no findings"
        )
        label.set_classes("bad" if any(p.error for p in problems) else "ok")

    @on(Input.Changed, "#new-category")
    def _recategorised(self) -> None:
        self._check()

    @on(Input.Changed, "#new-name")
    def _renamed(self, event: Input.Changed) -> None:
        """The frontmatter's name follows the name box, as long as the user has not changed it."""
        area = self.query_one(TextArea)
        wanted = event.value.strip() or TEMPLATE_NAME
        match = FRONTMATTER_NAME.search(area.text)
        if match and match.group(1) == self._auto_name and wanted != self._auto_name:
            area.text = area.text[: match.start(1)] + wanted + area.text[match.end(1) :]
            self._auto_name = wanted
        self._check()

    def _new_name(self) -> str:
        """The name a new skill is saved under: the name box's, else one the user wrote in the
        frontmatter (the template's placeholder is no name)."""
        if self.skill_name:
            return ""
        if typed := self.query_one("#new-name", Input).value.strip():
            return typed
        match = FRONTMATTER_NAME.search(self.query_one(TextArea).text)
        written = match.group(1) if match else ""
        return "" if written == TEMPLATE_NAME else written

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        if errors := [p for p in self._problems() if p.error]:
            self.app.notify(f"Not saved: {errors[0].text}", severity="error", timeout=8)
            return
        on_disk = self.path.read_text(encoding="utf-8") if self.path and self.path.exists() else ""
        changed = on_disk != self.original

        def confirmed(ok: bool | None) -> None:
            if ok:
                self._write(text)

        title = f"Save {self.skill_name or self._new_name() or 'new skill'}?"
        shown = self.library.shown(on_disk)
        self.app.push_screen(DiffPreview(title, shown, text, changed), confirmed)

    def _write(self, text: str) -> None:
        try:
            if self.skill_name:
                self.library.edit_shown(self.skill_name, self.original, text, origin="user")
                message = f"Saved {self.skill_name} (the previous version is in its history)"
            else:
                name = self._new_name()
                # The tree files an uncategorised skill under "general": so does the disk.
                category = self.query_one("#new-category", Input).value.strip() or DEFAULT_CATEGORY
                self.library.create(name, text, category=category, origin="user")
                self.skill_name = name
                self.path = self.library.require(name).skill_md
                message = f"Created {name} in skills/{category}/{name}/SKILL.md"
        except SkillError as exc:
            self.app.notify(str(exc), severity="error", timeout=10)
            return
        self.original = text
        self.app.notify(message)
        self.dismiss(self.skill_name)

    def action_close(self) -> None:
        text = self.query_one(TextArea).text
        if text != self._loaded and not self._warned:
            self._warned = True
            self.app.notify(
                "Unsaved changes: ctrl+s to save, or escape again to discard them",
                severity="warning",
            )
            return
        self.dismiss(None)

    def action_external(self) -> None:
        """Edit the buffer in $EDITOR (the app is suspended meanwhile), started in a folder of
        its own, not the working directory (core/external_edit.py)."""
        import subprocess

        from hermes_tui.core import host_programs
        from hermes_tui.core.external_edit import edit_text, editor_words

        words = editor_words()
        editor = " ".join(words)
        try:  # never a `vi` a command put in the project's `.venv/bin` (host_programs)
            words[0] = host_programs.programs().command(words[0])
        except host_programs.ProgramRefused as exc:
            self.app.notify(f"could not run {editor}: {exc}", severity="error")
            return

        def suspended(*args: object, **kwargs: object) -> object:
            with self.app.suspend():
                return subprocess.run(*args, **kwargs)  # type: ignore[call-overload]

        try:
            self.query_one(TextArea).text = edit_text(
                words, self.query_one(TextArea).text, suspended
            )
        except OSError as exc:
            self.app.notify(f"could not run {editor}: {exc}", severity="error")


def when(version: Version) -> str:
    """When a saved version was made, in local time with its age (its file stamp is UTC)."""
    moment = version.time or stamp_time(version.stamp)
    return local_time(moment) if moment else version.stamp


class HistoryScreen(QuietScreen, ModalScreen[None]):
    """A skill's saved versions; selecting one diffs it against the current SKILL.md."""

    DEFAULT_CSS = """
    HistoryScreen { align: center middle; }
    HistoryScreen > Vertical { width: 95%; height: 90%; border: thick $primary; background: $surface; }
    HistoryScreen #versions { height: 10; }
    HistoryScreen VerticalScroll { height: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+r", "restore", "Restore this version"),
    ]

    def __init__(self, library: SkillLibrary, name: str) -> None:
        super().__init__()
        self.library, self.skill_name = library, name
        self.versions = library.history.versions(name)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                f"History of {self.skill_name}: {len(self.versions)} saved "
                f"version{'' if len(self.versions) == 1 else 's'} (ctrl+r restores)",
                markup=False,
            )
            yield OptionList(
                *[literal(f"{when(v)}  {v.action} by {v.origin}  {v.file}") for v in self.versions],
                id="versions",
            )
            yield VerticalScroll(id="version-diff")

    @on(OptionList.OptionHighlighted)
    async def _show(self, event: OptionList.OptionHighlighted) -> None:
        version = self.versions[event.option_index]
        skill = self.library.get(self.skill_name)
        current_path = (skill.directory / version.file) if skill else None
        current = (
            current_path.read_text(encoding="utf-8")
            if current_path and current_path.exists()
            else ""
        )
        container = self.query_one("#version-diff", VerticalScroll)
        await container.remove_children()
        await container.mount(
            DiffView(
                f"version of {when(version)}",
                "current",
                neutralise(self.library.shown(version.read() or "")),
                neutralise(self.library.shown(current)),
                split=False,
                annotations=True,
                wrap=True,  # its lines would scroll sideways with no bar: cut, unmarked
            )
        )

    def action_restore(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None:
            return
        try:
            self.library.restore_version(self.skill_name, self.versions[index].stamp, origin="user")
        except SkillError as exc:
            self.app.notify(str(exc), severity="error")
            return
        self.app.notify(
            f"Restored the version of {when(self.versions[index])} of {self.skill_name}"
        )
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
