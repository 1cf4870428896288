"""`hermes-tui chat -q` against the loopback LLM, the way a user or script runs it.

Most tests run the command through cli.main in this process (helpers.run_main: the same
arguments, environment, working directory, stdin not a terminal), since their subject is what
the command does; a process costs about a second of CPU. What is about the process itself runs
one: Ctrl-C, closing sessions.db at exit, what reaches the terminal's file descriptors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, run_main, script_a_memory_review, write_config


@pytest.fixture
def llm():
    with FakeLLM() as server:
        yield server


def spawned(
    home: Path, *args: str, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """`python -m hermes_tui --home HOME ARGS…` as its own process."""
    return subprocess.run(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=cli_env(**env),
    )


@pytest.fixture
def hermes(capsys: pytest.CaptureFixture[str]):
    """`hermes-tui --home HOME ARGS…` run by cli.main in this process."""

    def run(
        home: Path, *args: str, cwd: Path | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return run_main(capsys, home, *args, cwd=cwd, **env)

    return run


@pytest.fixture
def chat(hermes):
    """`hermes-tui --home HOME chat -q TEXT EXTRA…` with a key, in this process."""

    def run(
        home: Path, text: str, *extra: str, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return hermes(home, "chat", "-q", text, *extra, cwd=cwd, OPENAI_API_KEY="test-key")

    return run


def spawned_chat(home: Path, text: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return spawned(home, "chat", "-q", text, *extra, OPENAI_API_KEY="test-key")


def test_tools_memory_prompt_stability_and_next_session_snapshot(
    home: Path, tmp_path: Path, llm: FakeLLM, chat
) -> None:
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    (tmp_path / "notes.txt").write_text("port=8443\n")
    llm.script(
        Reply(text="Reading.", tool_calls=[("read_file", {"path": "notes.txt"})]),
        Reply(
            tool_calls=[
                (
                    "memory",
                    {
                        "action": "add",
                        "target": "memory",
                        "content": "The service listens on port 8443.",
                    },
                )
            ]
        ),
        Reply(text="It listens on 8443; I noted that."),
    )
    first = chat(home, "which port does the service use?", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip().endswith("It listens on 8443; I noted that.")
    assert (
        "→ read_file notes.txt" in first.stderr
        and "learned: MEMORY.md add by agent" in first.stderr
    )
    assert first.stderr.strip().splitlines()[-1].startswith("session: ")
    assert "port=8443" in json.dumps(llm.requests[1].body["messages"])
    assert (home / "memories" / "MEMORY.md").read_text() == "The service listens on port 8443."
    prompts = {r.system for r in llm.requests}
    assert len(prompts) == 1, "one session, one byte-identical system prompt"
    assert "8443" not in prompts.pop(), "memory written in this session waits for the next one"
    llm.script(Reply(text="still 8443"))
    assert chat(home, "remind me", cwd=tmp_path).returncode == 0
    assert "The service listens on port 8443." in llm.requests[-1].system


def test_resume_continues_history_and_sessions_can_be_found(
    home: Path, llm: FakeLLM, chat, hermes
) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(text="Noted: the release is called Aurora."))
    first = chat(home, "our next release is codenamed aurora-borealis")
    session_id = first.stderr.strip().splitlines()[-1].split()[-1]
    llm.script(Reply(text="Aurora."))
    again = chat(home, "what was the codename?", "--continue")
    assert again.returncode == 0 and again.stderr.strip().endswith(session_id)
    sent = [m["content"] for m in llm.requests[-1].body["messages"]]
    assert (
        "our next release is codenamed aurora-borealis" in sent
        and sent[-1] == "what was the codename?"
    )
    found = json.loads(hermes(home, "sessions", "search", "aurora-borealis", "--json").stdout)
    assert found and found[0]["session_id"] == session_id
    exported = [
        json.loads(line)
        for line in hermes(home, "sessions", "export", session_id).stdout.splitlines()
    ]
    assert [m["role"] for m in exported] == ["user", "assistant", "user", "assistant"]
    assert session_id in hermes(home, "sessions", "list").stdout


def test_faults_are_retried_and_a_lasting_failure_exits_3(home: Path, llm: FakeLLM, chat) -> None:
    write_config(home, llm.openai_url)
    llm.script(
        Reply(fault="429", retry_after="0"),
        Reply(text="cut me off mid way please", fault="cut"),
        Reply(text="recovered"),
    )
    ok = chat(home, "hello")
    assert ok.returncode == 0 and ok.stdout.strip().endswith("recovered")
    assert "rate limited" in ok.stderr and "Retrying" in ok.stderr
    llm.script(*[Reply(fault="500", retry_after=None)] * 3)
    failed = chat(home, "hello again")
    assert failed.returncode == 3
    assert (
        "error: openai (HTTP 500): server error" in failed.stderr
        and "conversation so far is kept" in failed.stderr
    )


def test_json_output_and_anthropic_provider(home: Path, llm: FakeLLM, hermes) -> None:
    write_config(home, llm.anthropic_url, provider="anthropic")
    llm.script(Reply(text="hello from claude", cached_tokens=42))
    result = hermes(home, "chat", "-q", "hi", "--json", ANTHROPIC_API_KEY="test-key")
    data = json.loads(result.stdout)
    assert data["text"] == "hello from claude" and data["usage"]["cached_tokens"] == 42
    assert llm.requests[0].path == "/v1/messages"


def test_no_provider_exits_2_naming_the_variables(home: Path, hermes) -> None:
    result = hermes(home, "chat", "-q", "hi")
    assert result.returncode == 2
    assert (
        "OPENAI_API_KEY" in result.stderr
        and "ANTHROPIC_API_KEY" in result.stderr
        and "--provider demo" in result.stderr
    )


def test_dangerous_command_is_refused_without_yolo(
    home: Path, tmp_path: Path, llm: FakeLLM, chat
) -> None:
    write_config(home, llm.openai_url)
    llm.script(
        Reply(tool_calls=[("terminal", {"command": "sudo touch /root/x"})]), Reply(text="could not")
    )
    result = chat(home, "do it", cwd=tmp_path)
    assert "refused (needs approval: runs a command with root or another user's rights (sudo)" in (
        result.stderr
    )
    assert "not approved" in json.dumps(llm.requests[1].body["messages"])


def test_a_review_triggered_by_chat_is_waited_for_and_summarised(
    home: Path, llm: FakeLLM, chat
) -> None:
    script_a_memory_review(llm, home, "Sure, short answers from now on.", "Wants short answers.")
    result = chat(home, "please keep answers short, always")
    assert "review: started (memory review" in result.stderr
    assert "review: memory +1 (user)" in result.stderr
    assert (home / "memories" / "USER.md").read_text() == "Wants short answers."


def test_demo_provider_learns_across_three_runs(home: Path, hermes) -> None:
    task = "Find the calls to the deprecated old_api() in this project and write a report."
    runs = [hermes(home, "--provider", "demo", "chat", "-q", task, "--json") for _ in range(3)]
    data = [json.loads(r.stdout) for r in runs]
    assert [d["tool_errors"] for d in data] == [1, 0, 0]
    calls = [d["tool_calls"] for d in data]
    assert calls[0] > calls[1] > calls[2]
    assert "· skill deprecated-calls-report created" in runs[0].stderr
    assert "review: skill deprecated-calls-report patched" in runs[1].stderr
    assert (home / "demo" / "report.md").read_text().startswith("# Deprecated calls")
    assert not list(home.glob("skills/**/deprecated-calls-report"))
    assert (home / "demo" / "home" / "skills").is_dir(), "the demo learns in its own home"
    assert not (home / "memories" / "MEMORY.md").exists()


def test_second_turn_review_with_interval_two_denies_terminal_and_writes_as_review(
    home: Path, tmp_path: Path, llm: FakeLLM, chat
) -> None:
    write_config(
        home, llm.openai_url, memory={"nudge_interval": 2}, skills={"creation_nudge_interval": 0}
    )
    llm.script(
        Reply(text="first"),
        Reply(text="second"),
        Reply(tool_calls=[("terminal", {"command": "touch from-review"})]),
        Reply(
            tool_calls=[
                ("memory", {"action": "add", "target": "memory", "content": "Builds use make."})
            ]
        ),
        Reply(text="Saved."),
    )
    one = chat(home, "we build with make", cwd=tmp_path)
    assert "review:" not in one.stderr
    two = chat(home, "and test with make test", "--continue", cwd=tmp_path)
    assert "review: memory +1 (memory)" in two.stderr
    assert "[review]   ✗ terminal" in two.stderr and not (tmp_path / "from-review").exists()
    review_requests = llm.requests[2:]
    assert {r.system for r in review_requests} == {llm.requests[1].system}
    audit = [json.loads(line) for line in (home / "logs" / "audit.jsonl").read_text().splitlines()]
    assert [(a["origin"], a["kind"], a["after"]) for a in audit] == [
        ("review", "memory", "Builds use make.")
    ]


def test_escape_sequences_from_the_reply_and_tools_reach_no_terminal(
    home: Path, llm: FakeLLM
) -> None:
    # A reply that would rename the terminal and wipe it, and a tool whose output does the same.
    write_config(home, llm.openai_url, memory={"nudge_interval": 0})
    hostile_command = r"printf '\033]0;owned\007\033[2J\233H done'"
    llm.script(
        Reply(text="Look.", tool_calls=[("terminal", {"command": hostile_command})]),
        Reply(text="\x1b]0;pwned\x07\x1b[2Jcleared \x9b31m red"),
        Reply(text="\x1b[2J\x9bH again"),
    )
    result = spawned_chat(home, "go", "--yolo")
    assert result.returncode == 0, result.stderr
    for stream in (result.stdout, result.stderr):
        assert "\x1b" not in stream and "\x07" not in stream and "\x9b" not in stream
    assert "␛]0;pwned␇␛[2Jcleared ␛[31m red" in result.stdout
    assert "→ terminal printf '\\033]0;owned" in result.stderr
    # --json stays exact: the escapes are JSON escapes that decode to the model's text.
    as_json = spawned_chat(home, "again", "--json", "--continue")
    assert "\x1b" not in as_json.stdout and "\x9b" not in as_json.stdout
    assert json.loads(as_json.stdout)["text"] == "\x1b[2J\x9bH again"


def test_an_error_frame_mid_stream_exits_3_with_json_and_no_traceback(
    home: Path, llm: FakeLLM, chat
) -> None:
    write_config(home, llm.openai_url)
    llm.script(*[Reply(text="partial words then a proxy error", fault="error_frame")] * 3)
    result = chat(home, "hello", "--json")
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    assert "upstream said overloaded_error" in data["error"] and data["exit_code"] == 3
    assert data["session_id"] and data["text"].startswith("partial")
    assert ".." not in result.stderr


@pytest.mark.parametrize(
    ("args", "env", "phrase"),
    [
        ((), {}, "OPENAI_API_KEY"),
        (("--base-url", "127.0.0.1:4000/v1"), {"OPENAI_API_KEY": "k"}, "needs http:// or https://"),
        (("--continue",), {"OPENAI_API_KEY": "k"}, "no earlier session"),
    ],
)
def test_configuration_errors_exit_2_with_a_json_object(
    home: Path, args: tuple[str, ...], env: dict[str, str], phrase: str, hermes
) -> None:
    result = hermes(home, "chat", "-q", "hi", "--json", *args, **env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    data = json.loads(result.stdout)
    assert phrase in data["error"] and phrase in result.stderr and data["exit_code"] == 2
    assert "Retrying" not in result.stderr, "a malformed setting is not a network failure"


def test_a_broken_config_file_still_gets_a_json_object(home: Path, hermes) -> None:
    (home / "config.yaml").write_text("model: [unclosed\n", encoding="utf-8")
    result = hermes(home, "chat", "-q", "hi", "--json", OPENAI_API_KEY="k")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["error"].startswith("configuration error:")


def test_an_empty_reply_says_so(home: Path, llm: FakeLLM, chat) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(text=""))
    result = chat(home, "hello")
    assert result.returncode == 0 and "empty reply" in result.stderr


def test_ctrl_c_prints_a_json_object_marked_interrupted(
    home: Path, tmp_path: Path, llm: FakeLLM
) -> None:
    import signal

    write_config(home, llm.openai_url)
    llm.script(
        Reply(text="Waiting.", tool_calls=[("terminal", {"command": "sleep 30"})]),
        Reply(text="never asked"),
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui", "--home", str(home), "chat", "-q", "wait", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env=cli_env(OPENAI_API_KEY="test-key"),
        # A suite started as a background job inherits SIGINT ignored, and so would the child:
        # give it the default a user's terminal gives it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # wait until the tool is running
        seen.append(line)
        if "→ terminal" in line:
            break
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    stderr = "".join(seen) + stderr
    assert "Traceback" not in stderr
    data = json.loads(stdout)
    assert data["interrupted"] is True and data["session_id"] and process.returncode == 0, stderr
    assert len(llm.requests) == 1


def test_reasoning_stays_out_of_stdout_and_is_kept_with_the_session(
    home: Path, llm: FakeLLM, chat, hermes
) -> None:
    write_config(home, llm.openai_url)
    llm.script(Reply(reasoning="Greet them back, briefly.", text="Hello."))
    result = chat(home, "hi", "--json")
    data = json.loads(result.stdout)
    assert (data["text"], data["reasoning"]) == ("Hello.", "Greet them back, briefly.")
    llm.script(Reply(reasoning="Think it over first.", text="Again."))
    plain = chat(home, "again", "--continue")
    assert plain.stdout.strip() == "Again.", "reasoning is not the answer"
    assert plain.stderr.count("thinking…") == 1
    shown = hermes(home, "sessions", "show", data["session_id"])
    assert "(thought: Greet them back, briefly.)\nHello." in shown.stdout


def test_a_finished_chat_closes_sessions_db_cleanly(home: Path, llm: FakeLLM) -> None:
    # The process freezes its start-up out of the garbage collector (cli_chat.QuietStart), so
    # nothing may wait for a finalizer: the store is closed by hand and its WAL folded back.
    write_config(home, llm.openai_url)
    llm.script(Reply(text="Hello."))
    assert spawned_chat(home, "hi").returncode == 0
    assert sorted(p.name for p in home.glob("sessions.db*")) == ["sessions.db"]


def test_chat_called_in_process_leaves_the_garbage_collector_alone(
    home: Path, llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gc

    from hermes_tui.cli import main

    write_config(home, llm.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    llm.script(Reply(text="Hello."))
    # Spies, not the freeze count: a test worker freezes its heap between tests, and a frozen
    # object freed during the call lowers the count without anyone touching the collector.
    touched: list[str] = []
    for name in ("freeze", "unfreeze", "disable", "set_threshold"):
        monkeypatch.setattr(gc, name, lambda *args, name=name: touched.append(name))
    assert main(["--home", str(home), "chat", "-q", "hi"]) == 0
    assert "Hello." in capsys.readouterr().out
    assert gc.isenabled() and touched == [], "only the process entry tunes it"
