"""What a one-shot `chat -q` turn loads: the modules its turn uses, not those it might.

Timings live in bench/oneshot.py (ratios against `import openai` measured in the same run);
this keeps the start's shape, which is what those timings are made of. The turn calls a tool
(`skills_list`, its arguments validated) as the bench's does; it is the second turn in the
home, so the scanner's verdicts are remembered as after any earlier session.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fakes.llm_server import FakeLLM, Reply
from helpers import cli_env, write_config

# Each is needed only by something the turn did not do: a curator pass or its backup (tarfile;
# whether one is due is read without the curator), a rewind's diff (difflib), a scan of a
# changed text (xaidr), arguments that fail validation (jsonschema) or are not plain enough
# to be seen valid at a glance (fastjsonschema: plain_schema.py), the TUI, another
# provider's SDK, MCP servers (none configured), other commands' arguments, the platform's
# folders (--home is given; the sandbox's cache folder is found when a command needs it), the
# sandbox's network proxy (no command ran), the background review (none was due), the skills
# guard (no skill was written), the path policy and the fuzzy matcher (no file was touched),
# the MCP servers' parser (none configured), Hermes' config keys (config.yaml holds only ours),
# the catalog of Hermes' sessions (session_search was not called), the transcript a face draws
# (chat -q prints as it goes), the sandbox's wall and network namespace (no command ran: what
# `terminal.mode: auto` needs, whether bubblewrap works, is sandbox_probe.py), our threat
# pattern table and the word lists it and the views' englishness score are built from (every
# text the turn judged was remembered: loaded by the first scan), shlex (no command's words
# were read), importlib.resources' readers (the package's shipped folders lie beside it),
# argparse and its gettext (a plainly written `chat -q` line is read by cli_quick.py), the
# terminal, web and files tools' code (none was called: their schemas are core/tools/schemas.py),
# the idna codec and its stringprep tables (the server's name is ASCII: core/llm/plain_http.py),
# httpcore2 and the trust store it imports (a plain-http server is reached by our own transport
# on h11: core/llm/plain_http.py).
UNNEEDED = (
    "tarfile",
    "difflib",
    "xaidr",
    "jsonschema",
    "fastjsonschema",
    "textual",
    "anthropic",
    "mcp",
    "hermes_tui.ui",
    "hermes_tui.core.tools.mcp",
    "hermes_tui.core.skills.curator",
    "hermes_tui.cli_eval",
    "hermes_tui.cli_mcp",
    "hermes_tui.cli_skills_hub",
    "platformdirs",
    "hermes_tui.core.tools.netproxy",
    "socketserver",
    "hermes_tui.core.agent.review",
    "hermes_tui.core.skills.guard",
    "hermes_tui.core.tools.path_policy",
    "hermes_tui.core.skills.fuzzy",
    "hermes_tui.core.tools.mcp_config",
    "hermes_tui.hermes_keys",
    "hermes_tui.core.session_catalog",
    "hermes_tui.core.hermes_state",
    "hermes_tui.core.transcript",
    "hermes_tui.core.tools.sandbox",
    "hermes_tui.core.tools.netns",
    "hermes_tui.core.tools.gitdirs",
    "hermes_tui.core.threats.patterns",
    "hermes_tui.core.threats.lexicon",
    "shlex",
    "importlib.readers",
    "argparse",
    "gettext",
    "hermes_tui.core.tools.terminal",
    "hermes_tui.core.tools.web",
    "hermes_tui.core.tools.files",
    "encodings.idna",
    "stringprep",
    "httpcore2",
    "truststore",
)

PROBE = """
import sys
from hermes_tui.cli import main
code = main(sys.argv[1:])
from hermes_tui.core.threats import sensor
loaded = sorted(m for m in {unneeded!r} if m in sys.modules)
compiled = sum(
    f.cache_info().currsize for f in (sensor._prompt_requested, sensor._prompt_as_object)
)
import dataclasses, inspect
undocumented = sorted(
    f"{{name}}.{{attr}}"
    for name, module in list(sys.modules.items()) if name.startswith("hermes_tui")
    for attr, value in vars(module).items()
    if inspect.isclass(value) and value.__module__ == name and dataclasses.is_dataclass(value)
    and (value.__doc__ or "").startswith(value.__name__ + "(")
)
print(f"EXIT={{code}} UNNEEDED={{loaded}} SENSOR_PATTERNS={{compiled}}", file=sys.stderr)
print(f"UNDOCUMENTED={{undocumented}}", file=sys.stderr)
from hermes_tui.core import records
generated = sorted(
    f"{{name}}.{{attr}}"
    for name, module in list(sys.modules.items()) if name.startswith("hermes_tui")
    for attr, value in vars(module).items()
    if inspect.isclass(value) and value.__module__ == name and dataclasses.is_dataclass(value)
    and value.__eq__ is not records._eq
)
print(f"GENERATED={{generated}}", file=sys.stderr)
from openai.types.chat import ChatCompletionChunk
from pydantic._internal._mock_val_ser import MockValSer
built = not isinstance(vars(ChatCompletionChunk)["__pydantic_validator__"], MockValSer)
print(f"CHUNK_MODEL_BUILT={{built}}", file=sys.stderr)
from hermes_tui.core.agent import provenance
print(f"WORD_PATTERN={{provenance._word.cache_info().currsize}}", file=sys.stderr)
"""


def test_a_one_shot_turn_imports_only_what_it_uses(home: Path, tmp_path: Path) -> None:
    with FakeLLM(default=Reply(text="ok")) as llm:
        write_config(home, llm.openai_url)
        argv = ["--home", str(home), "chat", "-q", "which skills are there?"]
        env = cli_env(OPENAI_API_KEY="test-key")
        for _ in range(2):  # the first turn remembers the scanner's verdicts
            llm.script(Reply(tool_calls=[("skills_list", {})]), Reply(text="none yet"))
            done = subprocess.run(
                [sys.executable, "-c", PROBE.format(unneeded=UNNEEDED), *argv],
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp_path,
                timeout=120,
            )
            assert "EXIT=0 " in done.stderr, done.stderr
        assert "✓ skills_list" in done.stderr and done.stdout.strip() == "none yet"
        assert "UNNEEDED=[] SENSOR_PATTERNS=0" in done.stderr, done.stderr
        # A dataclass without a docstring gets one made from inspect.signature() as it is
        # created: measured on six of our modules, their bodies ran 14% faster once their
        # dataclasses had docstrings (71 of them did not).
        assert "UNDOCUMENTED=[]" in done.stderr, done.stderr
        # Each dataclass @dataclass makes carries its own compiled __repr__, __eq__, __hash__
        # (and a frozen one's __setattr__, __delattr__): ~6.6 KiB a class. The turn's are
        # records (core/records.py), sharing one of each; Runtime's module is at its line limit.
        assert "GENERATED=['hermes_tui.runtime.Runtime']" in done.stderr, done.stderr
        # The stream's chunks are read as the JSON the server sent (core/llm/openai_compat.py):
        # the SDK's chunk model, whose validators it builds on first use, is never built.
        assert "CHUNK_MODEL_BUILT=False" in done.stderr, done.stderr
        # No tool result was indexed for taint by content (skills_list's is the home's own):
        # provenance's word pattern, ~3 ms to compile, never was.
        assert "WORD_PATTERN=0" in done.stderr, done.stderr
