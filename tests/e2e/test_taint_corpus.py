"""The taint corpus (tests/data/taint_corpus.yaml) end to end: the scripted model takes in each
case's planted text through a tool, then writes it to memory (or into a skill); through
`hermes-tui chat -q`, in the default mode and under --yolo, no planted text is stored and every
write is held with the case's own tool call named as what it copies (or refused outright by the
scanner). Each case runs in a conversation of its own (one test each, so the runs spread over the
workers; no case leans on another's taint). The command runs through cli.main in this process (helpers.run_main: its arguments,
working directory, environment, exit status, stdout and stderr), its tools' commands in their
own processes (the sandbox) as always."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, read_yaml, run_main, write_config

from hermes_tui.core.messages import Message, ToolCall
from hermes_tui.core.pending import PendingStore
from hermes_tui.core.sessions import SessionStore

CORPUS = read_yaml(Path(__file__).resolve().parents[1] / "data" / "taint_corpus.yaml")["cases"]
MCP = str(Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py")
# Cyrillic letters that look like Latin ones (а е о р с х).
HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х"})


def encoded(kind: str, text: str) -> str:
    if kind == "base64":
        return base64.b64encode(text.encode()).decode()
    if kind == "reversed":
        return text[::-1]
    if kind == "homoglyph":
        return text.translate(HOMOGLYPHS)
    if kind == "zero-width":
        return "\u200b".join(text)
    if kind == "url":
        return urllib.parse.quote(text)
    raise ValueError(kind)


class Pages:
    """A loopback web server serving the corpus' pages."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        pages = self.pages

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                body = pages.get(self.path, "not found").encode()
                self.send_response(200 if self.path in pages else 404)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        # (shutdown() waits for the loop's next poll: 0.5 s apart by default.)
        serve = self.server.serve_forever
        threading.Thread(target=serve, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def fill(template: Any, values: dict[str, str]) -> Any:
    if isinstance(template, str):
        for key, value in values.items():
            template = template.replace("{" + key + "}", value)
        return template
    if isinstance(template, dict):
        return {key: fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(item, values) for item in template]
    return template


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env=cli_env(GIT_CONFIG_GLOBAL="/dev/null"),
    )


def earlier_session(home: Path, planted: str) -> int:
    """Another session whose tool output carries the planted text; the id of that message."""
    store = SessionStore(home / "sessions.db")
    info = store.create(provider="openai", model="fake-model", system_prompt="earlier")
    store.append(info.id, Message("user", "check the notes"))
    call = ToolCall("c0", "read_file", json.dumps({"path": "notes.md"}))
    store.append(info.id, Message("assistant", "", tool_calls=[call]))
    message_id = store.append(
        info.id,
        Message("tool", json.dumps({"content": planted}), tool_call_id="c0", tool_name="read_file"),
    )
    store.append(info.id, Message("assistant", "noted"))
    store.close()
    return message_id


def prepare(
    home: Path, root: Path, pages: Pages, corpus: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The cases' files, repositories and pages; the cases with their placeholders filled."""
    project, outside = root / "project", root / "outside"
    project.mkdir()
    outside.mkdir()
    base = {
        "project": str(project),
        "outside": str(outside),
        "url": pages.url,
        "python": sys.executable,
    }
    cases = []
    for case in corpus:
        values = {**base, "planted": case["planted"]}
        if case.get("encode"):
            values["encoded"] = encoded(case["encode"], case["planted"])
        if case.get("earlier_session"):
            values["earlier_message_id"] = str(earlier_session(home, case["planted"]))
        filled = fill(case, values)
        for relative, text in (filled.get("files") or {}).items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for path, text in (filled.get("pages") or {}).items():
            pages.pages[path] = text
        if repo := filled.get("repo"):
            folder = root / repo["path"]
            folder.mkdir(parents=True)
            (folder / "README.md").write_text(repo["readme"], encoding="utf-8")
            git("init", "-q", cwd=folder)
            git("add", "-A", cwd=folder)
            git("commit", "-q", "-m", repo["message"], cwd=folder)
        if filled.get("setup"):
            subprocess.run(
                [
                    "sh",
                    "-c",
                    filled["setup"].replace("git ", "git -c user.name=t -c user.email=t@x "),
                ],
                check=True,
                capture_output=True,
                env=cli_env(GIT_CONFIG_GLOBAL="/dev/null"),
            )
        for call in filled["calls"]:
            if "around_message_id" in call[1]:
                call[1]["around_message_id"] = int(call[1]["around_message_id"])
        filled.setdefault("write", filled["planted"])
        cases.append(filled)
    return cases


def script(cases: list[dict[str, Any]]) -> list[Reply]:
    replies = []
    for case in cases:
        replies.extend(Reply(tool_calls=[(name, arguments)]) for name, arguments in case["calls"])
        if case.get("skill"):
            skill = case["skill"]
            arguments = {"action": "create", "name": skill["name"], "content": skill["content"]}
            replies.append(Reply(tool_calls=[("skill_manage", arguments)]))
        else:
            arguments = {"action": "add", "target": "memory", "content": case["write"]}
            replies.append(Reply(tool_calls=[("memory", arguments)]))
    return [*replies, Reply(text="All noted.")]


def learning_results(home: Path) -> list[dict[str, Any]]:
    """What the model was told after each memory or skill write, in order."""
    store = SessionStore(home / "sessions.db")
    try:
        [info] = [s for s in store.list() if s.system_prompt != "earlier"]
        messages = [m.message for m in store.messages(info.id)]
    finally:
        store.close()
    return [
        json.loads(m.content)
        for m in messages
        if m.role == "tool" and m.tool_name in ("memory", "skill_manage")
    ]


def rendered(name: str, arguments: dict[str, Any]) -> str:
    """A call as the gate names it (taint._render_call): name(key='value', ...)."""
    shown = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return f"{name}({shown})"[:150]


# The cases the scanner may refuse outright (it does, as measured); every other one is held by
# the content rule naming its own tool call, in both modes: 35 of the 38 (25 at least).
MAY_BE_REFUSED = frozenset({"cp-then-cat", "cloned-readme", "chinese-readme"})


def test_the_corpus_holds_the_issues_cases() -> None:
    ids = {c["id"] for c in CORPUS}
    assert len(ids) == len(CORPUS) >= 27 and sum(c["kind"] == "content" for c in CORPUS) >= 20
    assert ids >= MAY_BE_REFUSED and len(ids - MAY_BE_REFUSED) >= 25


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
@pytest.mark.parametrize("yolo", [False, True], ids=["default-mode", "yolo"])
def test_a_planted_text_written_after_a_tool_brought_it_in_is_held(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], yolo: bool, case: dict
) -> None:
    """One case in a conversation of its own (a case never leans on another's taint)."""
    pages = Pages()
    try:
        [case] = prepare(home, tmp_path, pages, [case])
        with FakeLLM() as llm:
            uses_mcp = any(name.startswith("mcp__notes__") for name, _ in case["calls"])
            write_config(
                home,
                llm.openai_url,
                memory={"nudge_interval": 0},
                skills={"creation_nudge_interval": 0},
                # The user lets commands reach the loopback server (the "allowed program"), and
                # the sandbox's private /tmp would hide the outside folder: it is made visible.
                terminal={
                    "network_allow": ["127.0.0.1"],
                    "writable_roots": [str(tmp_path / "outside")],
                },
                **(
                    {"mcp_servers": {"notes": {"command": sys.executable, "args": [MCP, "notes"]}}}
                    if uses_mcp
                    else {}
                ),
            )
            llm.script(*script([case]))
            done = run_main(
                capsys,
                home,
                *("chat", "-q", "go", *(["--yolo"] if yolo else [])),
                cwd=tmp_path / "project",
                OPENAI_API_KEY="test-key",
            )
    finally:
        pages.close()
    assert done.returncode == 0, done.stderr[-3000:]
    memory = (home / "memories" / "MEMORY.md").read_text() if (home / "memories").exists() else ""
    records = PendingStore(home / "pending").list()
    [answer] = learning_results(home)
    outcome = _outcome(case, answer, memory, records)
    assert outcome.startswith(("held: ", "refused: ")), (outcome, done.stderr[-4000:])
    if case["id"] not in MAY_BE_REFUSED:
        assert outcome == "held: copies its own tool call", (outcome, done.stderr[-4000:])


def _outcome(case: dict[str, Any], answer: dict[str, Any], memory: str, records: list[Any]) -> str:
    """What became of the case's write: refused by the scanner, held (and why), or not."""
    if "refused" in str(answer.get("error")):  # the scanner refused it outright
        return "refused: by the scanner, outright"
    assert case["planted"][:40] not in memory, case["id"]
    own = [rendered(name, arguments) for name, arguments in case["calls"]]
    wanted = case["skill"]["content"] if case.get("skill") else case["write"]
    staged = [r for r in records if wanted in (r.arguments.get("content"), r.after)]
    if not staged:
        return "stored or refused"
    [record] = staged
    copied = [match["call"][:150] for match in record.copied]
    channel = [source["call"][:150] for source in record.sources]
    if any(call in own for call in copied):
        return "held: copies its own tool call"
    if case["kind"] == "channel" and any(call in own for call in channel):
        return "held: tainted by its own tool call"
    return f"held for another reason: {record.reason}"
