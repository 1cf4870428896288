"""The background review against the loopback LLM: cache parity, whitelist, guards, approvals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import open_runtime, skill_text

from hermes_tui.core import events as ev
from hermes_tui.core.pending import PendingError


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def _review_requests(llm: FakeLLM) -> list:
    return [r for r in llm.requests if "[Background review]" in json.dumps(r.body["messages"])]


def test_nudge_fires_a_review_with_the_parents_prompt_and_tools_and_only_whitelisted_tools_run(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    events: list = []
    runtime = open_runtime(
        home,
        llm.openai_url,
        sink=events.append,
        memory={"nudge_interval": 2},
        skills={"creation_nudge_interval": 0},
    )
    llm.script(
        Reply(text="first answer"),
        Reply(text="second answer"),
        Reply(tool_calls=[("terminal", {"command": "touch hacked"})]),
        Reply(
            tool_calls=[
                (
                    "memory",
                    {"action": "add", "target": "user", "content": "Prefers concise answers."},
                )
            ]
        ),
        Reply(text="Saved one user fact."),
    )
    session = runtime.open_session(cwd=tmp_path, reviewer=runtime.reviewer())
    session.submit("hello")
    assert not any(isinstance(e, ev.ReviewStarted) for e in events)
    session.submit("and again")
    assert runtime.wait_for_reviews(30)
    parent, reviews = llm.requests[0], _review_requests(llm)
    assert len(reviews) == 3
    for request in reviews:
        assert request.system == parent.system
        assert json.dumps(request.body["tools"]) == json.dumps(parent.body["tools"])
    denied = [json.loads(m["content"]) for m in reviews[1].body["messages"] if m["role"] == "tool"][
        -1
    ]
    assert "not available here" in denied["error"] and not (tmp_path / "hacked").exists()
    assert runtime.memory.entries("user") == ["Prefers concise answers."]
    audit = [r for r in runtime.audit.records() if r.kind == "memory"]
    assert [(r.origin, r.target) for r in audit] == [("review", "user")]
    finished = next(e for e in events if isinstance(e, ev.ReviewFinished))
    assert finished.summary == "memory +1 (user)" and finished.status == "done"
    assert (
        finished.changes[0].before == "" and finished.changes[0].after == "Prefers concise answers."
    )
    record = runtime.reviews.list()[0]
    assert record.status == "done" and record.reply == "Saved one user fact."
    history = [m.message.content for m in runtime.sessions.messages(session.id)]
    assert not any("[Background review]" in text for text in history), (
        "the review stays out of the session"
    )


def _agent_skill(runtime, name: str, pinned: bool = False) -> None:
    runtime.skills.create(name, skill_text(name), origin="review")
    if pinned:
        runtime.skills.set_pinned(name, True)


def test_review_may_not_patch_a_skill_it_did_not_view_or_one_that_is_pinned(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.openai_url)
    _agent_skill(runtime, "deploy")
    _agent_skill(runtime, "pinned-one", pinned=True)
    runtime.skills.create("users-own", skill_text("users-own"), origin="user")
    patch = {"action": "patch", "old_string": "Do it.", "new_string": "Do it twice."}
    llm.script(
        Reply(tool_calls=[("skill_manage", {**patch, "name": "deploy"})]),
        Reply(
            tool_calls=[
                ("skill_view", {"name": "pinned-one"}),
                ("skill_view", {"name": "users-own"}),
            ]
        ),
        Reply(
            tool_calls=[
                ("skill_manage", {**patch, "name": "pinned-one"}),
                ("skill_manage", {**patch, "name": "users-own"}),
            ]
        ),
        Reply(text="Nothing to save."),
    )
    record = runtime.reviewer().run("SYSTEM", [], "s1", tmp_path, "skills")
    errors = [
        json.loads(m["content"])["error"]
        for r in llm.requests
        for m in r.body["messages"]
        if m["role"] == "tool" and "error" in json.loads(m["content"])
    ]
    assert "view 'deploy' with skill_view in this review" in errors[0]
    assert any("pinned by the user" in e for e in errors) and any(
        "not created by the agent" in e for e in errors
    )
    for name in ("deploy", "pinned-one", "users-own"):
        assert "Do it twice." not in runtime.skills.require(name).skill_md.read_text()
    assert record.summary == "nothing to save"


def test_review_delete_archives_the_skill(home: Path, tmp_path: Path, llm: FakeLLM) -> None:
    runtime = open_runtime(home, llm.openai_url)
    _agent_skill(runtime, "obsolete")
    llm.script(
        Reply(tool_calls=[("skill_view", {"name": "obsolete"})]),
        Reply(tool_calls=[("skill_manage", {"action": "delete", "name": "obsolete"})]),
        Reply(text="done"),
    )
    record = runtime.reviewer().run("SYSTEM", [], "s1", tmp_path, "skills")
    assert record.summary == "skill obsolete archived"
    assert "obsolete" in runtime.skills.archived_skills()


def test_with_write_approval_nothing_changes_until_approved(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(
        home, llm.openai_url, memory={"write_approval": True}, skills={"write_approval": True}
    )
    llm.script(
        Reply(
            tool_calls=[
                (
                    "memory",
                    {"action": "add", "target": "memory", "content": "CI runs on GitHub Actions."},
                ),
                (
                    "skill_manage",
                    {"action": "create", "name": "ci-fix", "content": skill_text("ci-fix")},
                ),
            ]
        ),
        Reply(text="staged two"),
    )
    record = runtime.reviewer().run("SYSTEM", [], "s1", tmp_path, "combined")
    assert runtime.memory.entries("memory") == [] and runtime.skills.get("ci-fix") is None
    assert "awaiting approval" in record.summary
    pending = runtime.pending.list()
    assert [(p.kind, p.target) for p in pending] == [("memory", "memory"), ("skill", "ci-fix")]
    assert pending[0].after == "CI runs on GitHub Actions."
    assert runtime.approve_pending(pending[0].id).id == pending[0].id
    assert runtime.memory.entries("memory") == ["CI runs on GitHub Actions."]
    runtime.skills.create("ci-fix", skill_text("ci-fix", "Made by hand meanwhile."), origin="user")
    with pytest.raises(PendingError, match="changed since this write was staged"):
        runtime.approve_pending(pending[1].id)
    runtime.pending.reject(pending[1].id)
    assert (
        runtime.pending.list() == []
        and (home / "pending" / ".rejected" / f"{pending[1].id}.json").exists()
    )


def test_resumed_session_keeps_its_counters(home: Path, tmp_path: Path, llm: FakeLLM) -> None:
    runtime = open_runtime(
        home, llm.openai_url, memory={"nudge_interval": 5}, skills={"creation_nudge_interval": 50}
    )
    llm.script(
        Reply(tool_calls=[("terminal", {"command": "true"})]), Reply(text="one"), Reply(text="two")
    )
    session = runtime.open_session(cwd=tmp_path)
    session.submit("first")
    session.submit("second")
    resumed = open_runtime(
        home, llm.openai_url, memory={"nudge_interval": 5}, skills={"creation_nudge_interval": 50}
    ).open_session(session.id, cwd=tmp_path)
    assert (resumed.nudges.memory, resumed.nudges.skills) == (2, 3)
    assert [m.content for m in resumed.agent.history][:1] == ["first"]


def test_outcomes_are_recorded_and_poor_skills_are_named_to_the_review(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.openai_url)
    runtime.skills.create("flaky", skill_text("flaky"), origin="review")
    view = Reply(tool_calls=[("skill_view", {"name": "flaky"})])
    fail = Reply(tool_calls=[("terminal", {"command": "exit 1"})])
    llm.script(
        view,
        fail,
        Reply(text="failed"),
        view,
        fail,
        Reply(text="failed again"),
        view,
        Reply(text="worked"),
    )
    session = runtime.open_session(cwd=tmp_path)
    for text in ("one", "two", "three"):
        session.submit(text)
    usage = runtime.skills.usage.get("flaky")
    assert (usage["success_count"], usage["failure_count"]) == (1, 2)
    llm.script(Reply(text="Nothing to save."))
    runtime.reviewer().run("SYSTEM", [], session.id, tmp_path, "skills")
    assert (
        "poor record" in llm.requests[-1].last_user_text
        and "flaky" in llm.requests[-1].last_user_text
    )


def test_curator_consolidation_merges_with_absorbed_into(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.openai_url)
    _agent_skill(runtime, "deploy-api")
    _agent_skill(runtime, "deploy-api-v2")
    llm.script(
        Reply(
            tool_calls=[
                ("skill_view", {"name": "deploy-api"}),
                ("skill_view", {"name": "deploy-api-v2"}),
            ]
        ),
        Reply(tool_calls=[("skill_manage", {"action": "delete", "name": "deploy-api-v2"})]),
        # Blank is no survivor either (it used to archive the skill naming nobody).
        Reply(
            tool_calls=[
                (
                    "skill_manage",
                    {"action": "delete", "name": "deploy-api-v2", "absorbed_into": "   "},
                )
            ]
        ),
        Reply(
            tool_calls=[
                (
                    "skill_manage",
                    {
                        "action": "patch",
                        "name": "deploy-api",
                        "old_string": "Do it.",
                        "new_string": "Do it (covers v2 too).",
                    },
                ),
                (
                    "skill_manage",
                    {"action": "delete", "name": "deploy-api-v2", "absorbed_into": "deploy-api"},
                ),
            ]
        ),
        Reply(text="Merged."),
    )
    runtime.curator().run()  # the first run only records the time
    report = runtime.run_curator(consolidate=True)
    errors = [m["content"] for m in llm.requests[-1].body["messages"] if m["role"] == "tool"]
    assert sum("set absorbed_into" in e for e in errors) == 2
    assert runtime.skills.get("deploy-api-v2") is None
    assert runtime.skills.usage.get("deploy-api-v2")["absorbed_into"] == "deploy-api"
    assert "covers v2 too" in runtime.skills.require("deploy-api").skill_md.read_text()
    assert {(a.name, a.action) for a in report.actions} == {
        ("deploy-api", "consolidate"),
        ("deploy-api-v2", "consolidate"),
    }


def test_a_cancelled_turn_is_no_skill_failure_and_no_nudge(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    import threading

    from hermes_tui.core import events as ev

    cancel = threading.Event()

    def cancel_after_the_view(event: ev.Event) -> None:
        if isinstance(event, ev.ToolCallFinished) and event.name == "skill_view":
            cancel.set()

    runtime = open_runtime(
        home,
        llm.openai_url,
        sink=cancel_after_the_view,
        memory={"nudge_interval": 1},
        skills={"creation_nudge_interval": 1},
    )
    runtime.skills.create("steady", skill_text("steady"), origin="review")
    llm.script(
        Reply(tool_calls=[("skill_view", {"name": "steady"}), ("terminal", {"command": "true"})]),
        Reply(text="never reached"),
    )
    session = runtime.open_session(cwd=tmp_path)
    result = session.submit("use the skill", cancel)
    assert result.interrupted
    usage = runtime.skills.usage.get("steady")
    assert (usage["success_count"], usage["failure_count"]) == (0, 0)
    assert (session.nudges.memory, session.nudges.skills) == (0, 0)
    assert not runtime.reviews.list(), "no review fired"


@pytest.mark.parametrize("old_string", ["TOP SECRET", "TOP SECRXT"])
def test_review_patch_with_a_path_out_of_the_skill_reads_and_stages_nothing(
    home: Path, tmp_path: Path, llm: FakeLLM, old_string: str
) -> None:
    runtime = open_runtime(home, llm.openai_url, skills={"write_approval": True})
    _agent_skill(runtime, "deploy")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET: the launch code is 0000\n", encoding="utf-8")
    llm.script(
        Reply(tool_calls=[("skill_view", {"name": "deploy"})]),
        Reply(
            tool_calls=[
                (
                    "skill_manage",
                    {
                        "action": "patch",
                        "name": "deploy",
                        "file_path": "../../../outside/secret.txt",
                        "old_string": old_string,
                        "new_string": "nothing",
                    },
                )
            ]
        ),
        Reply(text="done"),
    )
    record = runtime.reviewer().run("SYSTEM", [], "s1", tmp_path, "skills")
    assert runtime.pending.list() == [] and record.changes == []
    replies = [
        m["content"] for r in llm.requests for m in r.body["messages"] if m["role"] == "tool"
    ]
    refusal = json.loads(replies[-1])
    assert refusal["success"] is False and "must not contain '..'" in refusal["error"]
    assert not any("launch code" in reply or "SECRET" in reply for reply in replies)
    assert (outside / "secret.txt").read_text(encoding="utf-8").startswith("TOP SECRET")


def test_review_patch_naming_skill_md_as_its_file_still_patches_the_main_file(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = open_runtime(home, llm.openai_url)
    _agent_skill(runtime, "deploy")
    llm.script(
        Reply(tool_calls=[("skill_view", {"name": "deploy"})]),
        Reply(
            tool_calls=[
                (
                    "skill_manage",
                    {
                        "action": "patch",
                        "name": "deploy",
                        "file_path": "SKILL.md",
                        "old_string": "Do it.",
                        "new_string": "Do it twice.",
                    },
                )
            ]
        ),
        Reply(text="done"),
    )
    record = runtime.reviewer().run("SYSTEM", [], "s1", tmp_path, "skills")
    assert "Do it twice." in runtime.skills.require("deploy").skill_md.read_text()
    assert [c.action for c in record.changes] == ["patch"]
