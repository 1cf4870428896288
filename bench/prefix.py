"""How much of each request repeats the previous request's prefix (prompt-cache friendliness).

Runs a 10-call session (9 tool calls reading 5 lines each, then an answer) against the loopback
OpenAI server, in a lived-in home (a dozen memory entries, 25 skills in the index), and for each
request after the first prints the share of its bytes equal to the previous request's prefix.
Target: >= 0.95. Also checks the system prompt and tools never change within the session.
Run: `.venv/bin/python bench/prefix.py`.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes.llm_server import FakeLLM, Reply  # noqa: E402

from hermes_tui.runtime import Runtime  # noqa: E402


def common_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def provider_order(body: dict) -> bytes:
    """The request in the order a provider builds its prompt (and its cache): tools, then messages."""
    return json.dumps(
        {"tools": body.get("tools"), "messages": body["messages"]}, sort_keys=False
    ).encode()


def main() -> None:
    with FakeLLM() as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        (home / "config.yaml").write_text(
            f"model: {{provider: openai, name: m, base_url: '{llm.openai_url}'}}\n"
        )
        os.chdir(tmp)
        (home / "f.txt").write_text(
            "".join(f"line {n}: some configuration value\n" for n in range(50))
        )
        step = [("read_file", {"path": "f.txt", "offset": 1, "limit": 5})]
        llm.script(
            *[
                Reply(
                    text=f"step {i}", tool_calls=[(step[0][0], {**step[0][1], "offset": 1 + 5 * i})]
                )
                for i in range(9)
            ],
            Reply(text="done"),
        )
        runtime = Runtime.open(home, environ={"OPENAI_API_KEY": "k"})
        for i in range(12):
            runtime.memory.add(
                "memory", f"Project fact {i}: the service in repo {i} deploys with make deploy-{i}."
            )
        for i in range(25):
            name = f"playbook-{i:02d}"
            runtime.skills.create(
                name,
                f"---\nname: {name}\ndescription: How to handle recurring task {i} "
                "in this codebase safely.\n---\n\nSteps.\n",
                category=f"area-{i % 5}",
                origin="user",
            )
        runtime.open_session(cwd=home).submit("read the file ten ways")
        raw_shares, prompt_shares, reused = [], [], 0
        for previous, current in zip(llm.requests, llm.requests[1:], strict=False):
            raw_shares.append(common_prefix(previous.raw, current.raw) / len(current.raw))
            before, now = provider_order(previous.body), provider_order(current.body)
            prompt_shares.append(common_prefix(before, now) / len(now))
            reused += common_prefix(before, now) >= len(before) - 2  # all but the closing "]}"
        systems = {r.system for r in llm.requests}
        tools = {str(r.body.get("tools")) for r in llm.requests}
        print(
            f"requests: {len(llm.requests)}; distinct system prompts: {len(systems)}; distinct tool lists: {len(tools)}"
        )
        print(f"requests that reuse the whole previous prompt: {reused}/{len(prompt_shares)}")
        print("prompt-order prefix share: " + " ".join(f"{s:.3f}" for s in prompt_shares))
        print(
            f"  median {statistics.median(prompt_shares):.3f}  min {min(prompt_shares):.3f}  (target >= 0.95)"
        )
        print("raw JSON body prefix share: " + " ".join(f"{s:.3f}" for s in raw_shares))
        print(
            f"  median {statistics.median(raw_shares):.3f} (the SDK writes `tools` after `messages`, so the"
            " raw body's shared prefix stops at the new messages)"
        )


if __name__ == "__main__":
    main()
