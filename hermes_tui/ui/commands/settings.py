"""Commands that show or change how the agent works: /usage /insights /tools /reload-skills
/yolo /reasoning /personality."""

from __future__ import annotations

from typing import Any

from hermes_tui.ui.commands import state


def _chat(app: Any) -> Any:
    from hermes_tui.ui.widgets.chat import ChatView

    return app.query_one(ChatView)


# ---- what the session used and has ---------------------------------------------------------


def usage_text(update: Any) -> str:
    """A session's UsageUpdated as lines: its turns, its background reviews, the cost."""

    def line(label: str, totals: Any) -> str:
        return (
            f"{label}: {totals.input_tokens:,} in ({totals.cached_tokens:,} cached, "
            f"{totals.cache_write_tokens:,} cache writes) · {totals.output_tokens:,} out"
        )

    cost = "cost n/a (no price known for this model)"
    if update.cost_usd is not None:
        cost = f"cost ${update.cost_usd:,.4f} (turns and reviews)"
    return "\n".join(
        [
            f"Usage of session {update.session_id} · {update.model}",
            line("turns", update.totals),
            line("reviews", update.review),
            cost,
        ]
    )


async def usage(app: Any, argument: str) -> None:
    """/usage: tokens and cost of this conversation, its background reviews counted apart."""
    if app.session is None:
        app.notify("No tokens used yet: send a message first", timeout=4)
        return
    await _chat(app).note(usage_text(app.session.usage()), "/usage")


async def insights(app: Any, argument: str) -> None:
    app.action_insights()


def tools_text(app: Any) -> str:
    """Every tool of the conversation (its own frozen list, else what a new one would get) and
    the MCP servers whose tools are missing, with why."""
    session = app.session
    registry = session.agent.registry if session is not None else app.runtime.tool_registry()
    mode = session.agent.context.approval_mode if session else app.runtime.approval_mode()
    lines = [f"Tools ({mode} mode):"]
    for name in registry.names():
        tool = registry.get(name)
        off = mode == "plan" and not tool.plan_allowed and name != "terminal"
        mark = "✗" if off else "✓"
        notes = [tool.toolset] + (["read-only"] if tool.read_only else [])
        notes += ["changes only this conversation"] if tool.conversation_only else []
        notes += ["off in plan mode"] if off else []
        lines.append(f"{mark} {name} ({', '.join(notes)})")
    mcp = app.runtime.mcp
    for server in mcp.describe() if mcp is not None else []:
        if server["status"] == "ready":
            left_out = server["left_out"]
            kept = server["tools"] - len(left_out)
            more = f", {len(left_out)} left out" if left_out else ""
            lines.append(f"✓ MCP server {server['name']}: {kept} tool(s){more}")
            for name, why in left_out.items():
                lines.append(f"✗ {name} (left out: {why})")
        else:
            why = f": {server['error']}" if server.get("error") else ""
            lines.append(f"✗ MCP server {server['name']} ({server['status']}{why})")
    if session is not None and mcp is not None:
        lines.append("(MCP servers started later join the next conversation: /new)")
    return "\n".join(lines)


async def tools(app: Any, argument: str) -> None:
    """/tools: what the model may call here, MCP tools included, and what is off."""
    await _chat(app).note(tools_text(app), "/tools")


async def reload_skills(app: Any, argument: str) -> None:
    """/reload-skills: read the skills folders again; new skills are /<skill-name> at once
    (the system prompt's index keeps its list until the next conversation, for its cache)."""
    from hermes_tui.ui.widgets.skills_pane import SkillsPane

    before = state(app).skill_names
    after = state(app).skill_names = {skill.name for skill in app.runtime.skills.rescan()}
    added, gone = sorted(after - before), sorted(before - after)
    text = f"Skills rescanned: {len(after)}"
    if added:
        text += f"; new: {', '.join(added)}"
    if gone:
        text += f"; gone: {', '.join(gone)}"
    app.part(SkillsPane).refresh_view()
    app.notify(text, timeout=6)


# ---- approval mode, reasoning, personality --------------------------------------------------


def _mode_without_yolo(app: Any) -> str:
    before = state(app).mode_before_yolo
    if before and before != "yolo":
        return before
    return "sandboxed" if app.runtime.sandbox_status().active else "strict"


async def yolo(app: Any, argument: str) -> None:
    """/yolo: commands run without asking, for this run's conversations; again to turn it off.
    The OS sandbox still holds, and a command that reaches the hermes home still asks. Unlike
    `/mode yolo` (ui/modes.py) it is not saved: the next start is back in the configured mode."""
    import dataclasses

    from hermes_tui.ui.modes import current_mode
    from hermes_tui.ui.widgets.nudge_bar import NudgeBar

    found = state(app)
    current = current_mode(app)
    if current == "yolo":
        mode = _mode_without_yolo(app)
        text = f"YOLO off: back to {mode} mode"
    else:
        found.mode_before_yolo, mode = current, "yolo"
        text = (
            "YOLO on: commands run without asking (the sandbox still applies; /yolo again ends it)"
        )
    runtime = app.runtime  # new conversations of this run open in it too
    runtime.config = dataclasses.replace(
        runtime.config, terminal=dataclasses.replace(runtime.config.terminal, mode=mode)
    )
    if app.session is not None:
        app.session.set_approval_mode(mode)
    app.part(NudgeBar).mode = mode
    app.notify(text, severity="warning" if mode == "yolo" else "information", timeout=6)


def reasoning_shown(app: Any) -> bool:
    shown = state(app).show_reasoning
    return app.runtime.config.display.show_reasoning if shown is None else shown


async def reasoning(app: Any, argument: str) -> None:
    """/reasoning [LEVEL|show|hide]: the effort the model is asked for (this run), and whether
    its reasoning is drawn (saved as display.show_reasoning)."""
    from hermes_tui.config import ConfigError, set_config_value
    from hermes_tui.core.llm.base import REASONING_EFFORTS, ProviderNotConfigured

    word = argument.strip().lower()
    try:
        provider = app.session.agent.provider if app.session else app.runtime.provider()
    except ProviderNotConfigured:
        provider = None
    effort = getattr(provider, "reasoning_effort", None)
    if word in ("show", "hide", "on", "off"):
        shown = word in ("show", "on")
        state(app).show_reasoning = shown
        try:
            set_config_value(app.runtime.user_home, "display", "show_reasoning", shown)
        except (ConfigError, OSError) as exc:
            app.notify(f"Not saved to config.yaml: {exc}", severity="warning")
        app.notify(f"Reasoning is {'shown' if shown else 'hidden'} in the chat")
        return
    if not word:
        level = effort or "the model's default"
        display = "shown" if reasoning_shown(app) else "hidden"
        app.notify(
            f"Reasoning effort: {level} · display: {display}. "
            f"/reasoning {'|'.join(REASONING_EFFORTS)}|default, or show|hide",
            timeout=10,
        )
        return
    if word == "default":
        word = ""
    elif word not in REASONING_EFFORTS:
        app.notify(
            f"unknown reasoning level {word!r}: one of {', '.join(REASONING_EFFORTS)}, default, "
            "show, hide",
            severity="error",
        )
        return
    if effort is None:
        app.notify("This provider takes no reasoning effort (the demo, or none set up)")
        return
    provider.reasoning_effort = word
    app.notify(
        f"Reasoning effort: {word or 'the model default'} from the next model call "
        "(agent.reasoning_effort in config.yaml sets it for every start)"
    )


def _personalities(app: Any) -> dict[str, Any]:
    from hermes_tui.core.custom_commands import load_personalities

    found, problems = load_personalities(app.runtime.config.hermes_sections.get("personalities"))
    for problem in problems:
        app.notify(problem, severity="warning")
    return found


async def personality(app: Any, argument: str) -> None:
    """/personality [NAME|none]: Hermes' personalities from config.yaml `personalities:`; the
    choice reaches the model with the next message and is saved as display.personality."""
    from hermes_tui.config import ConfigError, set_config_value
    from hermes_tui.core.custom_commands import NO_PERSONALITY, personality_note

    known = _personalities(app)
    name = argument.strip().lower()
    current = state(app).personality
    if current is None:
        current = app.runtime.config.display.personality
    if not name:
        listed = "\n".join(
            f"{'●' if key == current else '○'} {key}: {p.description or p.instructions[:70]}"
            for key, p in sorted(known.items())
        )
        await _chat(app).note(
            (f"Personalities (config.yaml personalities):\n{listed}" if known else "No "
             "personalities in config.yaml (`personalities: {name: instructions}`)")
            + "\n/personality NAME chooses one, /personality none clears it",
            "/personality",
        )  # fmt: skip
        return
    if name in NO_PERSONALITY:
        chosen = None
    elif name in known:
        chosen = known[name]
    else:
        choices = ", ".join(sorted(known)) or "none configured"
        app.notify(f"no personality {name!r} ({choices})", severity="error")
        return
    state(app).personality = chosen.name if chosen else ""
    if app.session is not None:
        app.session.pending_note = personality_note(chosen)
    try:
        set_config_value(app.runtime.user_home, "display", "personality", state(app).personality)
    except (ConfigError, OSError) as exc:
        app.notify(f"Not saved to config.yaml: {exc}", severity="warning")
    app.notify(f"Personality: {chosen.name if chosen else 'none'} (from your next message)")


def adopt_settings(app: Any, session: Any, new: bool) -> None:
    """A new conversation opened: it takes the chosen personality."""
    from hermes_tui.core.custom_commands import personality_note

    found = state(app)
    name = found.personality
    if name is None:
        name = app.runtime.config.display.personality
    if new and name:
        chosen = _personalities(app).get(name.lower())
        if chosen is not None:
            session.pending_note = personality_note(chosen)
