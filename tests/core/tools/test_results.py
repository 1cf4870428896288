"""Tool results as they leave a call: secrets redacted, long ones cut with a way to read the rest."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from hermes_tui.core.tools.results import (
    Redactor,
    ResultLimits,
    bound_result,
    collect_secrets,
)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_collect_secrets_takes_dotenv_values_and_secret_looking_variables() -> None:
    found = collect_secrets(
        {"STRIPE": "rk_live_abcdefgh", "DEBUG": "1", "NAME": "hermes"},
        {
            "OPENAI_API_KEY": "sk-proj-abcdefgh",
            "GH_TOKEN": "gho_12345678",
            "HOME": "/home/someone-long",
            "KEYMAP_DIR": "/usr/share/keymaps",
            "EDITOR": "vim-is-great",
            "AUTH_HEADER": "Bearer abcdefghijk",
        },
    )
    assert found == {
        "STRIPE": "rk_live_abcdefgh",
        "OPENAI_API_KEY": "sk-proj-abcdefgh",
        "GH_TOKEN": "gho_12345678",
    }


def test_redactor_prefers_the_longest_secret_and_walks_nested_values() -> None:
    redactor = Redactor({"SHORT": "abcdefgh", "LONG": "abcdefgh-and-more"})
    value = {"out": "x abcdefgh-and-more y abcdefgh", "list": [{"abcdefgh": 1}]}
    assert redactor.value(value) == {
        "out": "x [REDACTED LONG] y [REDACTED SHORT]",
        "list": [{"[REDACTED SHORT]": 1}],
    }
    assert not Redactor({"X": "short"})


def test_a_small_result_passes_unchanged() -> None:
    raw = {"success": True, "output": "hello"}
    bounded = bound_result("terminal", raw, ResultLimits(), "s1")
    assert bounded.result == raw and bounded.saved_to is None
    assert json.loads(bounded.full_text) == raw


def test_a_long_field_keeps_head_and_tail_and_is_saved_whole(tmp_path: Path) -> None:
    lines = "".join(f"line {n}\n" for n in range(1, 200_001))
    limits = ResultLimits(max_chars=30_000, scratch_root=tmp_path / "scratch")
    bounded = bound_result(
        "terminal", {"success": True, "output": lines, "exit_code": 0}, limits, "abc"
    )
    kept = bounded.result
    assert len(json.dumps(kept, ensure_ascii=False)) <= 30_000
    assert kept["output"].startswith("line 1\nline 2\n") and kept["output"].endswith(
        "line 200000\n"
    )
    assert kept["exit_code"] == 0 and kept["success"] is True
    left_out = (
        len(lines)
        - len(kept["output"].split("\n[...")[0])
        - len(kept["output"].split("...]\n")[-1])
    )
    assert f"{left_out:,} characters left out" in kept["output"]
    note = kept["truncation"]
    assert f"{left_out:,} of {len(lines):,} characters left out" in note
    assert str(bounded.saved_to) in note and "read_file" in note
    assert bounded.saved_to.parent == tmp_path / "scratch" / "abc"
    assert bounded.saved_to.read_text(encoding="utf-8") == lines
    assert _mode(bounded.saved_to) == 0o600
    assert _mode(bounded.saved_to.parent) == 0o700 and _mode(tmp_path / "scratch") == 0o700
    assert json.loads(bounded.full_text)["output"] == lines


def test_a_long_list_keeps_items_from_both_ends() -> None:
    matches = [f"src/file{n}.py:{n}: match number {n}" for n in range(5_000)]
    bounded = bound_result(
        "search_files", {"success": True, "matches": matches}, ResultLimits(), None
    )
    kept = bounded.result["matches"]
    assert len(json.dumps(bounded.result)) <= 30_000
    assert kept[0] == matches[0] and kept[-1] == matches[-1]
    marker = next(item for item in kept if item.startswith("[..."))
    assert marker == f"[... {len(matches) - len(kept) + 1:,} items left out ...]"
    assert "not saved" in bounded.result["truncation"]


def test_many_medium_fields_fall_back_to_the_json_text() -> None:
    raw = {"success": True, **{f"field{n}": "y" * 2_000 for n in range(40)}}
    bounded = bound_result("skills_list", raw, ResultLimits(max_chars=10_000), None)
    assert len(json.dumps(bounded.result)) <= 10_000
    assert bounded.result["result_text"].startswith('{"success": true, "field0": "yyy')
    assert "characters left out" in bounded.result["truncation"]


def test_escapes_count_against_the_cap() -> None:
    raw = {"output": '\x1b[31m"quoted"\n' * 10_000}
    bounded = bound_result("terminal", raw, ResultLimits(max_chars=5_000), None)
    assert len(json.dumps(bounded.result, ensure_ascii=False)) <= 5_000


def test_redaction_happens_before_the_cut_and_the_save(tmp_path: Path) -> None:
    key = "sk-ant-0123456789"
    limits = ResultLimits(
        max_chars=3_000,
        redactor=Redactor({"ANTHROPIC_API_KEY": key}),
        scratch_root=tmp_path,
    )
    bounded = bound_result("terminal", {"output": f"{key}\n" * 2_000}, limits, "s")
    assert key not in json.dumps(bounded.result) and key not in bounded.full_text
    assert key not in bounded.saved_to.read_text(encoding="utf-8")
