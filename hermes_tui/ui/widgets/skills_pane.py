"""The Skills browser: a tree by category with a fuzzy filter, and the selected skill's detail.

Keys: p pin/unpin, x archive, r restore (archived skills sit under "archived"), h history with
diffs, e edit in the SKILL.md editor, n new skill from a template, i install skills from a
folder, an archive or a git repository.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Markdown, Static, Tree
from textual.widgets.tree import TreeNode

from hermes_tui.core.skills.finder import rank
from hermes_tui.core.skills.library import DEFAULT_CATEGORY, Skill, SkillError, SkillLibrary
from hermes_tui.core.skills.usage import parse_time
from hermes_tui.core.text import neutralise
from hermes_tui.ui.text import literal_text, local_time

if TYPE_CHECKING:
    from hermes_tui.core.skills.install import SkillInstaller


def _when(value: Any) -> str:
    """A usage time in local time with its age, as the history shows versions."""
    moment = parse_time(value)
    return local_time(moment) if moment else "never"


def _flatten(values: dict[str, Any], prefix: str = "") -> list[str]:
    """`metadata.hermes.tags: deploy, k8s` rather than a Python dict."""
    shown: list[str] = []
    for key, value in values.items():
        if isinstance(value, dict):
            shown += _flatten(value, f"{prefix}{key}.")
        elif isinstance(value, list):
            shown.append(f"{prefix}{key}: {', '.join(map(str, value)) or '—'}")
        else:
            shown.append(f"{prefix}{key}: {value}")
    return shown


class SkillTree(Tree):
    """The skills by category: a name wider than the tree is cut with an ellipsis, which says
    so (the tree never scrolls sideways)."""

    def render_label(self, node: TreeNode, base_style: Style, style: Style) -> Text:
        label = super().render_label(node, base_style, style)
        depth, above = 0, node.parent
        while above is not None and above is not self.root:
            depth, above = depth + 1, above.parent
        room = self.scrollable_content_region.width - self.guide_depth * depth
        if room > 1 and label.cell_len > room:
            label.truncate(room, overflow="ellipsis")
        return label


class SkillsPane(Vertical):
    DEFAULT_CSS = """
    SkillsPane Input { margin: 0 0 0 0; }
    SkillsPane #skills-body { height: 1fr; }
    SkillsPane Tree { width: 2fr; min-width: 24; border-right: solid $panel; }
    SkillsPane #skill-detail { width: 3fr; padding: 0 1; }
    SkillsPane #skill-meta { height: auto; color: $text-muted; }
    SkillsPane #skill-meta.-broken { color: $error; }
    SkillsPane.-narrow #skills-body { layout: vertical; }
    SkillsPane.-narrow Tree { width: 100%; height: 1fr; border-right: none; }
    SkillsPane.-narrow #skill-detail { width: 100%; height: 1fr; }
    """
    BINDINGS = [
        Binding("p", "pin", "Pin/unpin"),
        Binding("x", "archive", "Archive"),
        Binding("r", "restore", "Restore"),
        Binding("h", "history", "History"),
        Binding("e", "edit", "Edit"),
        Binding("n", "new", "New skill"),
        Binding("i", "install", "Install…"),
    ]

    class EditSkill(Message):
        """Ask the app to open the editor (name None: a new skill)."""

        def __init__(self, name: str | None) -> None:
            super().__init__()
            self.name = name

    class InstallSkills(Message):
        """Ask the app to open the install dialog."""

    class ShowHistory(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(
        self,
        library: SkillLibrary,
        installer: Callable[[], SkillInstaller],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.library = library
        self.installer = installer  # made when the install dialog opens: it reads the trust tiers
        self.selected: str | None = None

    _built = False  # the filter, tree and detail are made (when the pane first shows)

    def build(self) -> None:
        """Made when first shown or focused, not at start-up: a library of 1,000 skills (and
        the pane's own widgets) cost nothing until the user opens the pane."""
        if self._built:
            return
        self._built = True
        # Level by level: a widget's children given to its constructor join the DOM only
        # once it is mounted, and the tree is filled (and may be focused) at once.
        body = Horizontal(id="skills-body")
        detail = VerticalScroll(id="skill-detail")
        tree = SkillTree("skills", id="skills-tree")
        self.mount_all([Input(placeholder="filter skills (fuzzy)…", id="skills-filter"), body])
        body.mount_all([tree, detail])
        detail.mount_all(
            [
                Static("Select a skill.", id="skill-meta", markup=False),
                Markdown("", id="skill-body"),
            ]
        )
        tree.show_root = False
        self.rebuild()

    def on_resize(self) -> None:
        self.set_class(self.size.width < 70, "-narrow")
        self.build()  # the pane is shown (its Show event comes after)

    def on_show(self) -> None:
        if not self._built:
            self.build()
        else:
            self.refresh_detail()

    def refresh_detail(self) -> None:
        """The chosen skill's counters again. A turn that loads a skill changes its uses
        without a SkillChanged event (a use is counted, not a change), so the detail would
        go on showing the counts from when it was chosen."""
        if self._built and self.selected:
            self.show(self.selected)

    def focus_content(self) -> None:
        """Focus the tree (f3), on the first skill when none is chosen: p, e, h act on it."""
        self.build()
        tree = self.query_one(Tree)
        if tree.cursor_line < 0 and tree.last_line >= 0:
            tree.cursor_line = 1 if tree.last_line >= 1 else 0  # line 0 is a category
        tree.focus()

    @on(Input.Changed, "#skills-filter")
    def _filter(self) -> None:
        self.rebuild()

    def _matching(self, skills: list[Skill]) -> list[Skill]:
        return rank(self.query_one("#skills-filter", Input).value, skills)

    def use_library(self, library: SkillLibrary) -> None:
        """Show another home's skills (the demo's own, or back to the user's)."""
        self.library = library
        self.selected = None
        self.refresh_view()

    def refresh_view(self) -> None:
        """Show a change; a pane never opened stays unbuilt until it is (on_show builds it)."""
        if self._built:
            self.rebuild()

    def rebuild(self) -> None:
        tree = self.query_one(Tree)
        tree.clear()
        usage = self.library.usage.all()
        skills = self._matching(self.library.scan())
        categories: dict[str, Any] = {}
        filtering = bool(self.query_one("#skills-filter", Input).value.strip())
        # Filtered: best match first (its category first too); else by category and name.
        ordered = (
            skills
            if filtering
            else sorted(skills, key=lambda s: (s.category or DEFAULT_CATEGORY, s.name))
        )
        for skill in ordered:
            category = skill.category or DEFAULT_CATEGORY
            if category not in categories:
                categories[category] = tree.root.add(literal_text(category), expand=True)
            record = usage.get(skill.name, {})
            marks = ("⚑ " if record.get("pinned") else "") + ("⚠ " if skill.broken else "")
            marks += "◌ " if record.get("state") == "stale" else ""
            marks += "⧉ " if skill.duplicate_of is not None else ""
            categories[category].add_leaf(
                literal_text(f"{marks}{skill.address}"), data=("skill", skill.address)
            )
        archived = self.library.archived_skills()
        if archived and not self.query_one("#skills-filter", Input).value.strip():
            node = tree.root.add("archived", expand=False)
            for name in sorted(archived):
                node.add_leaf(literal_text(name), data=("archived", name))
        if self.selected:
            self.show(self.selected)

    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted) -> None:
        data = event.node.data
        if data and data[0] == "skill":
            self.show(data[1])
        elif data and data[0] == "archived":
            self.selected = None
            self.query_one("#skill-meta", Static).update(
                neutralise(f"{data[1]} is archived. Press r to restore it.")
            )
            self._show_body("")

    def show(self, name: str) -> None:
        skill = self.library.get(name)
        meta = self.query_one("#skill-meta", Static)
        if skill is None:
            self.selected = None
            meta.update(neutralise(f"{name} no longer exists."))
            self._show_body("")
            return
        self.selected = name
        record = self.library.usage.get(skill.name)
        uses = int(record.get("success_count", 0)) + int(record.get("failure_count", 0))
        rate = (
            f"{int(record.get('success_count', 0)) * 100 // uses}% of {uses} turns"
            if uses
            else "no outcomes yet"
        )
        linked = self.library.linked_files(skill)
        lines = [
            f"{skill.name}  ({skill.category or DEFAULT_CATEGORY})",
            f"provenance: {self.library.provenance(skill)} · state: {record.get('state', 'active')}"
            f" · {'pinned' if record.get('pinned') else 'not pinned'} · root: {skill.root.kind}",
            f"uses {record.get('use_count', 0)} · views {record.get('view_count', 0)} · patches "
            f"{record.get('patch_count', 0)} · last used {_when(record.get('last_used_at'))} · success {rate}",
            f"file: {skill.root.kind} skills/{skill.skill_md.relative_to(skill.root.path)}",
        ]
        if linked:
            lines.append("linked: " + ", ".join(f for files in linked.values() for f in files))
        if skill.duplicate_of is not None:
            lines.insert(1, f"DUPLICATE: the name {skill.name!r} belongs to {skill.duplicate_of}")
        lines += [f"warning: {warning}" for warning in skill.warnings]
        if skill.broken:
            lines.insert(1, f"BROKEN: {skill.error}")
        elif skill.document is not None:
            extra = {
                k: v
                for k, v in skill.document.frontmatter.items()
                if k not in ("name", "description")
            }
            lines.insert(1, f"description: {skill.description}")
            if extra:
                lines.append("frontmatter: " + ", ".join(_flatten(extra)))
        # A secret in the skill (its description, frontmatter or body) shows as its label, as
        # the model and `skills view` get it; the editor shows it so too (SkillEditor).
        meta.update(neutralise(self.library.shown("\n".join(lines))))
        meta.set_class(skill.broken, "-broken")
        self._show_body(
            neutralise(self.library.shown(skill.document.body)) if skill.document else ""
        )

    def _show_body(self, text: str) -> None:
        """The skill's body in the detail. Textual's Markdown builds a widget for every block
        anew on each update, so the body already shown (the same skill shown again: each
        filter keystroke, each return to the pane) is left as it is."""
        body = self.query_one("#skill-body", Markdown)
        if body.source != text:  # the text of the last update, finished or still mounting
            body.update(text)

    def _act(self, action: Callable[[], str]) -> None:
        """Run one library call; its error text (pinned, read-only, …) becomes a notification."""
        try:
            message = action()
        except SkillError as exc:
            self.app.notify(str(exc), severity="error", timeout=8)
            return
        self.app.notify(message)
        self.rebuild()

    def action_pin(self) -> None:
        if not self.selected:
            return
        name = self.selected
        pinned = not self.library.usage.get(name).get("pinned")

        def pin() -> str:
            self.library.set_pinned(name, pinned)
            return (
                f"{name} {'pinned: the agent and curator leave it alone' if pinned else 'unpinned'}"
            )

        self._act(pin)

    def action_archive(self) -> None:
        if not self.selected:
            return
        name = self.selected

        def archive() -> str:
            self.library.archive(name, origin="user")
            self.selected = None
            return f"{name} archived (r restores it)"

        self._act(archive)

    def action_restore(self) -> None:
        node = self.query_one(Tree).cursor_node
        if node is None or not node.data or node.data[0] != "archived":
            self.app.notify("Select an archived skill (under 'archived') to restore it", timeout=4)
            return
        name = node.data[1]

        def restore() -> str:
            self.library.restore(name, origin="user")
            return f"{name} restored"

        self._act(restore)

    def action_history(self) -> None:
        if self.selected:
            self.post_message(self.ShowHistory(self.selected))

    def action_edit(self) -> None:
        if self.selected:
            self.post_message(self.EditSkill(self.selected))

    def action_install(self) -> None:
        self.post_message(self.InstallSkills())

    def action_new(self) -> None:
        self.post_message(self.EditSkill(None))

    # The screens these open change skills: the pane shows the library again when they close.

    @on(EditSkill)
    def _edit_skill(self, message: EditSkill) -> None:
        from hermes_tui.ui.screens.editor import SkillEditor

        message.stop()
        self.app.push_screen(SkillEditor(self.library, message.name), lambda _: self.refresh_view())

    @on(InstallSkills)
    def _install_skills(self, message: InstallSkills) -> None:
        from hermes_tui.ui.screens.install import InstallScreen

        message.stop()
        self.app.push_screen(
            InstallScreen(self.library, self.installer()), lambda _: self.refresh_view()
        )

    @on(ShowHistory)
    def _skill_history(self, message: ShowHistory) -> None:
        from hermes_tui.ui.screens.editor import HistoryScreen

        message.stop()
        self.app.push_screen(
            HistoryScreen(self.library, message.name), lambda _: self.refresh_view()
        )
