"""What the model wrote is sent back redacted: a known secret in its reply or in its tool calls'
arguments does not reach the provider again in the history (OpenAI and Anthropic wire), while
the tool still runs with the arguments the model sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import write_config
from secret_forms import forms

from hermes_tui.core.redaction import Redactor
from hermes_tui.runtime import Runtime

SECRET = "Zq9-deploy-token-5521-vault"
SHAPED = "ghp_" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34"  # a key shape nobody configured


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def _open(home: Path, llm: FakeLLM, provider: str) -> Runtime:
    url = llm.anthropic_url if provider == "anthropic" else llm.openai_url
    write_config(home, url, provider)
    key = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    return Runtime.open(home, environ={key: "test-key", "DEPLOY_TOKEN": SECRET})


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_secret_in_the_models_arguments_runs_but_is_not_sent_back(
    home: Path, tmp_path: Path, llm: FakeLLM, provider: str
) -> None:
    runtime = _open(home, llm, provider)
    target = tmp_path / "deploy-notes.txt"
    llm.script(
        Reply(
            text=f"Writing {SECRET} now.",
            tool_calls=[
                ("write_file", {"path": str(target), "content": f"TOKEN={SECRET}\nGH={SHAPED}\n"})
            ],
        ),
        Reply(text="done"),
        Reply(text="still fine"),
    )
    session = runtime.open_session(cwd=tmp_path)
    session.submit("write the deploy file")
    session.submit("and now?")

    # The tool ran with what the model asked: the file holds the real values.
    assert target.read_text(encoding="utf-8") == f"TOKEN={SECRET}\nGH={SHAPED}\n"
    later = llm.requests[1:]
    assert len(later) == 2
    for request in later:
        body = request.raw.decode("utf-8")
        for form in [*forms(SECRET), *forms(SHAPED)]:
            assert form not in body, (form, provider)
        assert "[REDACTED DEPLOY_TOKEN]" in body and "[REDACTED github token]" in body
    # The model sees one consistent history: its call, still valid JSON, then the result.
    if provider == "openai":
        call = later[0].body["messages"][2]["tool_calls"][0]["function"]
        arguments = json.loads(call["arguments"])
    else:
        blocks = later[0].body["messages"][1]["content"]
        arguments = next(b for b in blocks if b["type"] == "tool_use")["input"]
    assert arguments["path"] == str(target)
    assert arguments["content"] == "TOKEN=[REDACTED DEPLOY_TOKEN]\nGH=[REDACTED github token]\n"
    # Both requests after the call carry the same call (the prefix cache holds; Anthropic's
    # cache marks move to the newest turns).
    first, second = (json.dumps(_unmarked(r.body["messages"][:3])) for r in later)
    assert first == second


def _unmarked(value):
    if isinstance(value, dict):
        return {k: _unmarked(v) for k, v in value.items() if k != "cache_control"}
    return [_unmarked(v) for v in value] if isinstance(value, list) else value


def test_arguments_without_a_secret_are_sent_back_byte_for_byte() -> None:
    redactor = Redactor({"DEPLOY_TOKEN": SECRET})
    text = '{"command":   "ls -la",\n "why": "look"}'
    assert redactor.arguments(text) is text


def test_arguments_stay_json_when_a_secret_is_escaped_or_split() -> None:
    redactor = Redactor({"DEPLOY_TOKEN": SECRET})
    escaped = json.dumps({"content": SECRET}).replace("Z", "\\u005a")  # the model escaped a char
    assert SECRET not in json.dumps(json.loads(redactor.arguments(escaped)))
    broken = '{"content": "' + SECRET  # not JSON: redacted as text
    assert SECRET not in redactor.arguments(broken)


def test_a_secret_printed_in_three_pieces_reaches_the_model_in_none(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    key = "kQ7xWpLmZrTvBn4YhJsDfGaEuX"  # its last third holds no digit
    write_config(home, llm.openai_url, "openai")
    runtime = Runtime.open(home, environ={"OPENAI_API_KEY": "test-key", "VAULT_KEY": key})
    (tmp_path / "k").write_text(key, encoding="utf-8")
    cuts = [("1", "8"), ("9", "16"), ("17", "26")]
    llm.script(
        *[Reply(tool_calls=[("terminal", {"command": f"cut -c{a}-{b} k"})]) for a, b in cuts],
        Reply(text="done"),
    )
    runtime.open_session(cwd=tmp_path).submit("print the key in three parts")
    body = llm.requests[-1].raw.decode("utf-8")
    assert body.count("[REDACTED VAULT_KEY]") == 3
    for piece in (key[:8], key[8:16], key[16:]):
        assert piece not in body, piece


def test_the_system_prompt_carries_no_secret_from_a_context_file(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    """AGENTS.md passes the scanner (no credential planted in words) yet holds a key shape in a
    URL: the prompt, redacted as it is built, carries its label."""
    (tmp_path / "AGENTS.md").write_text(
        f"Run the tests with make check. Mirror at https://{SHAPED}@git.example.org.\n",
        encoding="utf-8",
    )
    runtime = _open(home, llm, "openai")
    llm.script(Reply(text="ok"))
    runtime.open_session(cwd=tmp_path).submit("hi")
    system = llm.requests[0].system
    assert "Mirror at https://[REDACTED github token]@git.example.org." in system
    for form in forms(SHAPED):
        assert form not in system


def test_a_tools_description_or_schema_holding_a_secret_is_sent_redacted(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    """An MCP server's tool (a face's own tools join the same way) whose description and a
    parameter's description carry a known secret: the tools list sent holds the labels, the
    tool keeps its name and still runs."""
    from hermes_tui.core.tools.registry import Tool

    runtime = _open(home, llm, "openai")
    session = runtime.open_session(cwd=tmp_path)
    info = Tool(
        name="project_info",
        toolset="mcp",
        description=f"Project info. Service token: {SECRET}",
        parameters={
            "type": "object",
            "properties": {"q": {"type": "string", "description": f"default {SECRET.upper()}"}},
        },
        handler=lambda args, context: {"success": True, "output": "fine"},
    )
    session.agent.add_tools([info])
    llm.script(Reply(tool_calls=[("project_info", {"q": "x"})]), Reply(text="done"))
    session.submit("info?")
    body = llm.requests[0].raw.decode("utf-8")
    assert "Project info. Service token: [REDACTED DEPLOY_TOKEN]" in body
    assert "default [REDACTED DEPLOY_TOKEN]" in body
    for form in [*forms(SECRET), SECRET.upper()]:
        assert form not in body
    assert '"output": "fine"' in llm.requests[1].raw.decode("utf-8").replace('\\"', '"')


def test_a_secret_in_the_models_call_id_or_tool_name_goes_back_redacted_and_matched(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    runtime = _open(home, llm, "openai")
    llm.script(
        Reply(
            tool_calls=[("terminal", {"command": "echo hi"}), (f"x_{SECRET}", {})],
            tool_call_ids=(f"call_{SECRET}", "call_two"),
        ),
        Reply(text="done"),
    )
    runtime.open_session(cwd=tmp_path).submit("go")
    body = llm.requests[1].raw.decode("utf-8")
    assert SECRET not in body and "[REDACTED DEPLOY_TOKEN]" in body
    messages = llm.requests[1].body["messages"]
    ids = [c["id"] for c in messages[2]["tool_calls"]]
    assert [m["tool_call_id"] for m in messages[3:5]] == ids  # each result answers its call


def test_a_skills_description_and_context_files_secret_in_disguise_never_reach_the_prompt(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    """ATTACK3 A3-2/A3-19: a skill whose description carries a known secret (the skills index),
    and AGENTS.md carrying it upper-cased, both passing the scanner (no word says "token"):
    the prompt sent and the one stored are redacted."""
    from helpers import skill_text, write_skill

    secret = "Vr7kumquatPlum55aa19xq"
    write_skill(home / "skills", "dbhelp", "ops", skill_text("dbhelp", f"helps with {secret}"))
    (tmp_path / "AGENTS.md").write_text(f"hermes md {secret.upper()}\n", encoding="utf-8")
    write_config(home, llm.openai_url, "openai")
    runtime = Runtime.open(home, environ={"OPENAI_API_KEY": "test-key", "DB_TOKEN": secret})
    llm.script(Reply(text="ok"))
    runtime.open_session(cwd=tmp_path).submit("hi")
    system = llm.requests[0].system
    assert "- dbhelp: helps with [REDACTED DB_TOKEN]" in system
    assert "hermes md [REDACTED DB_TOKEN]" in system
    stored = b"".join(p.read_bytes() for p in home.glob("sessions.db*"))
    for form in [*forms(secret), secret.upper()]:
        assert form not in system and form.encode() not in stored
