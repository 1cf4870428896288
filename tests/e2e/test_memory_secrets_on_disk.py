"""Memory entries already on disk that hold a secret (MEMORY.md or USER.md edited by hand, or
written by an older version) reach the model redacted, the user is told which entries hold one
(`doctor`, `memory show`), and their files are left as they are."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import run_main, write_config
from secret_forms import forms

from hermes_tui.core.memory import MemoryStoreError

KNOWN = "Zq9-memfile-secret-7781xy"  # no shape: only the .env knows it
SHAPED = "ghp_M2w3E4r5T6y7U8i9O0pA1sD2fG3hJ4kL5zX6"  # configured nowhere
MEMORY = (
    f"Deploys read the token {KNOWN} from the vault.\n§\n"
    f"Backup key (base64): {base64.b64encode(KNOWN.encode()).decode()}\n§\n"
    "The user prefers short answers."
)
USER = f"Their GitHub token is {SHAPED}.\n§\nSpelled: {' '.join(KNOWN)}"


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def memory_home(home: Path, llm: FakeLLM) -> Path:
    (home / ".env").write_text(f"OPENAI_API_KEY=test-key\nDB_TOKEN={KNOWN}\n", encoding="utf-8")
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (home / "memories" / "USER.md").write_text(USER, encoding="utf-8")
    return home


def assert_no_secret(text: str, where: str) -> None:
    flat = "".join(text.split())
    for form in [*forms(KNOWN), SHAPED]:
        assert form not in text and form not in flat, f"{where}: {form!r}"


def test_the_system_prompt_carries_memory_entries_redacted(
    memory_home: Path, llm: FakeLLM, capsys
) -> None:
    llm.script(Reply(text="ok"))
    done = run_main(capsys, memory_home, "chat", "-q", "hi", cwd=memory_home)
    assert done.returncode == 0, done.stderr
    system = llm.requests[0].system
    assert "The user prefers short answers." in system  # the entries are there
    assert "Deploys read the token [REDACTED DB_TOKEN] from the vault." in system
    assert "Spelled: [REDACTED DB_TOKEN]" in system  # the github token: blocked by the scanner
    assert_no_secret(system, "system prompt")
    # The user's files are theirs: nothing rewritten behind their back.
    assert (memory_home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == MEMORY
    assert (memory_home / "memories" / "USER.md").read_text(encoding="utf-8") == USER


def test_doctor_and_memory_show_say_which_entries_hold_a_secret(memory_home: Path, capsys) -> None:
    doctor = run_main(capsys, memory_home, "doctor", cwd=memory_home)
    memory_lines = [line for line in doctor.stdout.splitlines() if "memory " in line]
    assert any(
        "entries 1, 2 hold a secret (DB_TOKEN)" in line and line.startswith("[warn]")
        for line in memory_lines
    ), doctor.stdout
    assert any("entries 1, 2 hold a secret" in line for line in memory_lines), doctor.stdout
    shown = run_main(capsys, memory_home, "memory", "show", cwd=memory_home)
    assert "! entries 1, 2 hold a secret (DB_TOKEN)" in shown.stdout, shown.stdout
    assert "! entries 1, 2 hold a secret (DB_TOKEN, github token)" in shown.stdout, shown.stdout
    assert_no_secret(doctor.stdout + shown.stdout, "doctor and memory show")


async def test_the_memory_pane_says_an_entry_holds_a_secret(memory_home: Path) -> None:
    from helpers import make_app

    from hermes_tui.ui.widgets.memory_pane import MemorySection

    app = make_app(memory_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")  # leave the welcome screen: offline works
        await pilot.pause()
        error = str(app.query_one("#memory-memory", MemorySection).query_one(".error").content)
    assert error.startswith("entries 1, 2 hold a secret (DB_TOKEN)"), error
    assert "take the secret out of MEMORY.md" in error


async def test_the_memory_pane_shows_and_edits_entries_redacted_and_never_writes_a_label(
    memory_home: Path,
) -> None:
    from helpers import make_app
    from textual.widgets import Static, TextArea

    from hermes_tui.ui.screens.modals import ConfirmScreen
    from hermes_tui.ui.widgets.memory_pane import EntryEditor, EntryItem, MemoryPane, MemorySection

    memory_file = memory_home / "memories" / "MEMORY.md"
    app = make_app(memory_home)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")  # leave the welcome screen: offline works
        await pilot.pause()
        section = app.query_one("#memory-memory", MemorySection)
        shown = [str(item.query_one(Static).content) for item in section.query(EntryItem)]
        assert shown[0] == "Deploys read the token [REDACTED DB_TOKEN] from the vault."
        everything = [str(s.content) for s in app.query(Static)]
        assert_no_secret("\n".join(everything), "the memory pane")

        async def edit(text_of) -> str:
            listing = section.query_one("ListView")
            listing.index = 0
            section.action_edit()
            await pilot.pause()
            assert isinstance(app.screen, EntryEditor)
            area = app.screen.query_one(TextArea)
            assert_no_secret(area.text, "the entry editor")
            area.text = text_of(area.text)
            await pilot.press("ctrl+s")
            await pilot.pause()
            return str(section.query_one(".error").content)

        # Saved as shown: nothing to write. A typo fixed around the label: refused, and the
        # file keeps the secret (no label written over it).
        await edit(lambda text: text)
        assert memory_file.read_text(encoding="utf-8") == MEMORY
        error = await edit(lambda text: text.replace("Deploys", "Deploy jobs"))
        assert error.startswith("not saved: this entry holds a secret (DB_TOKEN)"), error
        assert memory_file.read_text(encoding="utf-8") == MEMORY
        # The label taken out: the secret leaves the entry, on purpose.
        await edit(lambda text: "Deploys read the token from the vault.")
        entries = app.runtime.memory.entries("memory")
        assert entries[0] == "Deploys read the token from the vault."
        assert KNOWN not in memory_file.read_text(encoding="utf-8")
        # The archive (the replaced entry) and the delete question show it redacted too.
        pane = app.query_one(MemoryPane)
        archived = [str(s.content) for s in pane.query_one("#archive-list").query(Static)]
        assert any("[REDACTED DB_TOKEN]" in line for line in archived), archived
        assert_no_secret("\n".join(archived), "the archive")
        listing = section.query_one("ListView")
        listing.index = 1  # the base64 one
        section.action_delete()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        question = "\n".join(str(s.content) for s in app.screen.query(Static))
        assert "[REDACTED DB_TOKEN]" in question
        assert_no_secret(question, "the delete question")


def test_an_entry_holding_a_label_as_text_and_a_secret_keeps_the_secret_on_save(
    memory_home: Path,
) -> None:
    """The entry already says `[REDACTED DB_TOKEN]` as text, and holds the real secret too: its
    shown form has the label twice, and a save keeping both is refused."""
    from hermes_tui.runtime import Runtime

    memory = Runtime.open(memory_home, environ={}).memory
    entry = f"Docs show [REDACTED DB_TOKEN] where the real {KNOWN} goes."
    path = memory_home / "memories" / "USER.md"
    path.write_text(entry, encoding="utf-8")
    shown = memory.shown(entry)
    assert shown.count("[REDACTED DB_TOKEN]") == 2
    with pytest.raises(MemoryStoreError, match="holds a secret"):
        memory.replace_shown("user", entry, shown.replace("Docs", "The docs"))
    assert path.read_text(encoding="utf-8") == entry
    dropped = "Docs show [REDACTED DB_TOKEN] where the real token goes."
    memory.replace_shown("user", entry, dropped)  # one label left: the user's own text
    assert path.read_text(encoding="utf-8") == dropped
