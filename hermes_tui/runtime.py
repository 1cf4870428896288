"""Composition root: the only place that builds config, stores and (later) providers and tools.

Faces (the TUI, the CLI) call `Runtime.open()` and use what it holds; nothing else constructs
stores, so every face sees the same files with the same limits.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.config import (
    Config,
    ConfigError,
    Overrides,
    load_config,
    parse_env_file,
    resolve_home,
)
from hermes_tui.core.audit import AuditLog
from hermes_tui.core.events import Notice, Sink, discard
from hermes_tui.core.memory import MemoryStore
from hermes_tui.core.pending import PendingStore
from hermes_tui.core.redaction import Redactor, collect_secrets, redacting_sink
from hermes_tui.core.skills.header_cache import HeaderCache
from hermes_tui.core.skills.header_cache import cache_path as header_cache_path
from hermes_tui.core.skills.history import SkillHistory
from hermes_tui.core.skills.library import SkillLibrary
from hermes_tui.core.skills.usage import UsageStore
from hermes_tui.core.storage import ensure_private_dir, make_private
from hermes_tui.core.threats import Scanner
from hermes_tui.core.threats.cache import VerdictCache, cache_path
from hermes_tui.resources import bundled_skills_dir
from hermes_tui.runtime_learning import LearningParts
from hermes_tui.runtime_skills import SkillParts

if TYPE_CHECKING:  # the agent stack is imported when a conversation starts, not for `memory show`
    from hermes_tui.core.agent.review import ReviewManager, ReviewStore
    from hermes_tui.core.agent.session import Reviewer, Session
    from hermes_tui.core.llm.base import Provider
    from hermes_tui.core.llm.retry import RetryPolicy
    from hermes_tui.core.llm.select import ProviderSpec
    from hermes_tui.core.pricing import ModelPrice
    from hermes_tui.core.session_catalog import SessionCatalog
    from hermes_tui.core.sessions import SessionStore
    from hermes_tui.core.skills.install import SkillInstaller
    from hermes_tui.core.tools.approvals import AskHuman
    from hermes_tui.core.tools.mcp import McpManager
    from hermes_tui.core.tools.registry import ApprovalMode, Tool, ToolRegistry
    from hermes_tui.core.tools.results import ResultLimits
    from hermes_tui.core.tools.sandbox_probe import SandboxStatus


log = logging.getLogger(__name__)

DEMO_MARKER = "chosen"  # <home>/demo/chosen: the user picked the demo; kept until a provider is set


def demo_home(home: Path) -> Path:
    """Where the demo keeps its memory, skills and sessions: never the user's own stores."""
    return home if is_demo_home(home) else home / "demo" / "home"


def is_demo_home(home: Path) -> bool:
    return home.name == "home" and home.parent.name == "demo"


def remember_demo(home: Path, chosen: bool) -> None:
    """Remember (or forget) that the demo was chosen, so the next start opens it again."""
    marker = home / "demo" / DEMO_MARKER
    if chosen:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text("the demo was chosen; setting up a provider forgets this\n")
    else:
        marker.unlink(missing_ok=True)


def demo_remembered(home: Path) -> bool:
    return (home / "demo" / DEMO_MARKER).exists()


@dataclass
class Runtime(LearningParts, SkillParts):
    """The composition root: one home's configuration, stores, provider and tools."""

    config: Config
    audit: AuditLog
    memory: MemoryStore
    skills: SkillLibrary
    pending: PendingStore
    sink: Sink = discard
    # One per runtime: it builds the xaidr sensor on first use and caches verdicts.
    scanner: Scanner = field(default_factory=Scanner)
    redactor: Redactor = field(default_factory=Redactor)
    _provider: Provider | None = field(default=None, repr=False)
    _sessions: SessionStore | None = field(default=None, repr=False)
    _reviewer: ReviewManager | None = field(default=None, repr=False)
    _mcp: McpManager | None = field(default=None, repr=False)
    _overrides: Overrides | None = field(default=None, repr=False)
    _environ: dict[str, str] | None = field(default=None, repr=False)
    # The MCP tools frozen for the session opened last (reviews reuse them: cache parity).
    _mcp_tools: list[Tool] = field(default_factory=list, repr=False)
    # When this process opened the home, and the last session activity before it (the curator's
    # min_idle_hours): a one-element tuple once read, since None is a valid answer.
    started_at: float = field(default_factory=time.time, repr=False)
    _last_activity: tuple[float | None] | None = field(default=None, repr=False)
    _catalog: SessionCatalog | None = field(default=None, repr=False)
    _sandbox_status: SandboxStatus | None = field(default=None, repr=False)
    # The tool registries handed out (a conversation's each), closed with the runtime.
    _registries: weakref.WeakSet[ToolRegistry] = field(default_factory=weakref.WeakSet, repr=False)
    # Where this Python and PATH's programs live, read once (sandbox.current_programs).
    _programs: tuple[Path, ...] | None = field(default=None, repr=False)

    @property
    def home(self) -> Path:
        return self.config.home

    @property
    def is_demo(self) -> bool:
        return is_demo_home(self.home)

    @property
    def user_home(self) -> Path:
        """The user's own home: the demo's lives inside it at demo/home."""
        return self.home.parent.parent if self.is_demo else self.home

    @classmethod
    def open(
        cls,
        home: str | Path | None = None,
        overrides: Overrides | None = None,
        *,
        environ: dict[str, str] | None = None,
        sink: Sink = discard,
    ) -> Runtime:
        home_path = resolve_home(home, environ)
        # An older home made these world-readable; they hold conversations and learning writes.
        for private, mode in (("logs", 0o700), ("pending", 0o700), ("scratch", 0o700)):
            make_private(home_path / private, mode)
        _check_home(home_path)
        config = load_config(home_path, overrides, environ)
        # The user's own keys stay secret in the demo too (its home is a folder in theirs).
        user_dotenv = parse_env_file(home_path / ".env")
        if config.model.provider == "demo" and not is_demo_home(home_path):
            # The demo learns for show: in a home of its own, so the user's memory and skills
            # never receive its facts and its skill.
            home_path = demo_home(home_path)
            demo = Overrides(
                provider="demo",
                model=overrides.model if overrides else None,
            )
            config = load_config(home_path, demo, environ)
        # Every road out (events, sessions.db, logs, pending/, exports) is redacted the same way.
        dotenv = parse_env_file(home_path / ".env")
        redactor = Redactor(
            collect_secrets(dotenv, config.env, mcp_secrets(config), also=[user_dotenv])
        )
        sink = redacting_sink(sink, redactor)
        audit = AuditLog(home_path / "logs" / "audit.jsonl", redact=redactor.text)
        verdicts = cache_path(home_path)
        # Made now, before any terminal command can run: the sandbox keeps an existing cache/
        # read-only, and one a command created itself could hold forged verdicts. In a
        # read-only home nothing is remembered and every start scans.
        with contextlib.suppress(OSError):
            ensure_private_dir(verdicts.parent)
        scanner = Scanner(remembered=VerdictCache(verdicts, redact=redactor.text))
        memory = MemoryStore(
            home_path / "memories",
            memory_char_limit=config.memory.memory_char_limit,
            user_char_limit=config.memory.user_char_limit,
            audit=audit,
            sink=sink,
            scanner=scanner,
            redact=redactor.text,
        )
        skills_dir = home_path / "skills"
        skills = SkillLibrary(
            skills_dir,
            external_dirs=[Path(p) for p in config.skills.external_dirs],
            bundled_dir=bundled_skills_dir(),
            usage=UsageStore(skills_dir / ".usage.json"),
            history=SkillHistory(skills_dir),
            audit=audit,
            sink=sink,
            headers=HeaderCache(header_cache_path(home_path)),
            redact=redactor.text,
        )
        return cls(
            config=config,
            audit=audit,
            memory=memory,
            skills=skills,
            sink=sink,
            pending=PendingStore(home_path / "pending", redact=redactor.value),
            redactor=redactor,
            _overrides=overrides,
            _environ=environ,
            scanner=scanner,
        )

    # ---- lazily built parts: only what a command uses is opened ---------------------------

    @property
    def reviews(self) -> ReviewStore:
        from hermes_tui.core.agent.review import ReviewStore

        return ReviewStore(self.home / "logs" / "reviews", redact=self.redactor.text)

    @property
    def sessions(self) -> SessionStore:
        from hermes_tui.core.sessions import SessionStore

        if self._sessions is None:
            self._sessions = SessionStore(
                self.home / "sessions.db",
                redact=self.redactor.text,
                redact_pair=self.redactor.pair,
            )
            if self._sessions.recovered is not None:
                self.sink(Notice("warning", self._sessions.recovered.message()))
        return self._sessions

    def provider_spec(self) -> ProviderSpec:
        """Which provider and model the config selects; raises ProviderNotConfigured."""
        from hermes_tui.core.llm import select

        if self._provider is not None:
            provider = self._provider
            return select.ProviderSpec(
                provider.name, provider.model, getattr(provider, "base_url", None), api_key=""
            )
        return select.choose(self.config)

    def provider(self) -> Provider:
        """The configured provider; raises ProviderNotConfigured with what to set."""
        from hermes_tui.core.llm import select

        if self._provider is None:
            self._provider = select.open_provider(
                select.choose(self.config),
                timeout=self.config.model.timeout,
                first_byte_timeout=self.config.model.first_byte_timeout,
                reasoning_effort=self.config.agent.reasoning_effort,
            )
        return self._provider

    def retry_policy(self) -> RetryPolicy:
        from hermes_tui.core.llm.retry import RetryPolicy

        return RetryPolicy(
            max_retries=self.config.model.max_retries, base_delay=self.config.model.retry_base_delay
        )

    def tool_registry(self) -> ToolRegistry:
        from hermes_tui.runtime_tools import tool_registry

        registry = tool_registry(self)
        self._registries.add(registry)
        return registry

    def result_limits(self) -> ResultLimits:
        """Tool-result bounds: the configured cap, the secrets to redact, the scratch folder."""
        from hermes_tui.core.tools.results import ResultLimits

        return ResultLimits(
            max_chars=self.config.tools.max_result_chars,
            redactor=self.redactor,
            scratch_root=self.home / "scratch",
        )

    # ---- MCP servers --------------------------------------------------------------------

    @property
    def mcp(self) -> McpManager | None:
        """The MCP servers of `mcp_servers:` (None when none is configured); not yet started."""
        if self._mcp is None and self.config.mcp_servers:
            from hermes_tui.core.tools.mcp import McpManager
            from hermes_tui.core.tools.mcp_config import parse_servers

            servers = parse_servers(self.config.mcp_servers, self.config.env)
            self._mcp = McpManager(
                servers, sink=self.sink, redact=self.redactor.text, home=self.home
            )
        return self._mcp

    def start_mcp(self) -> None:
        """Start the configured MCP servers in the background (returns at once)."""
        if self.mcp is not None:
            self.mcp.start()

    def stop_mcp(self) -> None:
        if self._mcp is not None:
            self._mcp.stop()

    def reload_mcp(self) -> McpManager | None:
        """Re-read mcp_servers from config.yaml and restart the servers (next session uses them)."""
        from hermes_tui.config import load_config

        self.stop_mcp()
        self._mcp = None
        self.config = load_config(self.home, self._overrides, self._environ)
        self.start_mcp()
        return self.mcp

    def close(self, review_wait: float = 0.0) -> None:
        """Stop the MCP servers and close sessions.db. A background review still writing gets
        up to `review_wait` seconds first; the store is left open for one that is still running
        (its daemon thread ends with the process). The conversations' tools stop what they keep
        running (the sandbox's network namespace and its bridge)."""
        for registry in list(self._registries):
            registry.close()
        self.stop_mcp()
        if self._sessions is not None and self.wait_for_reviews(review_wait):
            self._sessions.close()
            self._sessions = None

    def reviewer(self) -> ReviewManager:
        """The background-review manager (one per runtime, so `wait_for_reviews` sees them all)."""
        from hermes_tui.core.agent.review import ReviewManager

        if self._reviewer is None:
            config = self.config
            self._reviewer = ReviewManager(
                provider=self.provider,
                registry=self.tool_registry,
                memory=self.memory,
                skills=self.skills,
                pending=self.pending,
                store=self.reviews,
                sink=self.sink,
                max_iterations=config.review.max_iterations,
                retry=self.retry_policy(),
                memory_approval=config.memory.write_approval,
                skills_approval=config.skills.write_approval,
                gate=self.write_gate(),
                sessions=self.sessions,
            )
        return self._reviewer

    def wait_for_reviews(self, timeout: float) -> bool:
        return True if self._reviewer is None else self._reviewer.wait(timeout)

    @property
    def catalog(self) -> SessionCatalog:
        """Our sessions and Hermes' (`<home>/state.db`, read-only) as one list."""
        from hermes_tui.core.hermes_state import HermesSessions
        from hermes_tui.core.session_catalog import SessionCatalog

        if self._catalog is None:
            self._catalog = SessionCatalog(
                self.sessions, HermesSessions(self.home / "state.db"), self.sink
            )
        return self._catalog

    def _fork_hermes_session(self, session_id: str, spec: ProviderSpec, cwd: Path):
        """Resume a Hermes session as a new one of ours (state.db is never written), titled so."""
        entry = self.catalog.get(session_id)
        messages = [stored.message for stored in self.catalog.messages(entry.info.id)]
        info = self.sessions.create(
            provider=spec.name,
            model=spec.model,
            system_prompt=self.build_system_prompt(cwd),
        )
        for message in messages:
            self.sessions.append(info.id, message)
        from hermes_tui.core.agent.taint import foreign_channel

        if (channel := foreign_channel(entry.info.id, entry.source, messages)) is not None:
            self.sessions.set_taint(info.id, channel)  # a gateway's session: others' words
        self.sessions.rename(info.id, f"{entry.info.title} (from {entry.info.id})")
        return self.sessions.get(info.id), messages

    def hermes_keys_to_report(self) -> tuple[str, ...]:
        """Hermes keys in config.yaml that hermes-tui does not use, said once per set of them."""
        from hermes_tui.config_files import said_once

        return said_once(
            self.config.unused_hermes_keys, self.home / "cache" / "hermes_keys_reported"
        )

    def sandbox_status(self) -> SandboxStatus:
        """Whether commands run in the OS sandbox here, and why not (probed once; bwrap, socat,
        nsenter and git found outside where commands may write, core/host_programs.py)."""
        from hermes_tui.core import host_programs
        from hermes_tui.core.tools.sandbox_probe import probe

        if self._sandbox_status is None:
            found = host_programs.settle(self.config.terminal.writable_roots).which
            self._sandbox_status = probe(self.config.terminal.sandbox, found)  # type: ignore[arg-type]
        return self._sandbox_status

    def skill_installer(self) -> SkillInstaller:
        """`skills install`/`update`: vetting with the terminal's strict judgement of shell and
        the trust tiers (bundled, `skills.trusted_sources`, community)."""
        from hermes_tui.core.skills.install import SkillInstaller, Vetter
        from hermes_tui.core.tools.shell_policy.skill_judge import judge_skill_shell

        vetter = Vetter(
            judge_skill_shell, tuple(self.config.skills.trusted_sources), bundled_skills_dir()
        )
        return SkillInstaller(self.skills, vetter)

    def approval_mode(self) -> ApprovalMode:
        """terminal.mode, with auto resolved: sandboxed where the sandbox works, else strict."""
        mode = self.config.terminal.mode
        if mode == "auto":
            return "sandboxed" if self.sandbox_status().active else "strict"
        return mode  # type: ignore[return-value]

    def programs(self) -> tuple[Path, ...]:
        """Where this Python and the programs on PATH live, read once, when the first
        conversation's tools are made (before any command ran): the sandbox mounts back those
        under /tmp (core/tools/sandbox.py)."""
        if self._programs is None:
            from hermes_tui.core.tools.sandbox_probe import current_programs

            self._programs = current_programs()
        return self._programs

    def sandbox_cache_dir(self) -> Path:
        """The sandbox's private cache: tools' caches go here, never onto PATH."""
        import platformdirs

        return Path(platformdirs.user_cache_dir("hermes-tui")) / "sandbox"

    def build_system_prompt(self, cwd: Path) -> str:
        from hermes_tui.core.agent.prompt import PromptInputs, build_system_prompt

        soul = self.home / "SOUL.md"
        with self.scanner.batch():  # every text it scans, remembered in one write
            prompt = build_system_prompt(
                PromptInputs(
                    skills_index=self.skills.index(
                        self.config.skills.index_max_chars, screen=self.scanner.refused
                    ),
                    memory=self.memory.freeze(),
                    cwd=cwd,
                    today=datetime.date.today(),
                    soul=(
                        soul.read_text(encoding="utf-8", errors="replace")
                        if soul.is_file()
                        else None
                    ),
                    memory_enabled=self.config.memory.memory_enabled,
                    user_enabled=self.config.memory.user_profile_enabled,
                    scanner=self.scanner,
                )
            )
        # Redacted once, as it is built (it stays byte-identical for the session): a known
        # secret in SOUL.md, a context file or a skill's description never reaches the model.
        return self.redactor.text(prompt)

    def price_of(self, provider: str, model: str) -> ModelPrice | None:
        """What the model's tokens cost (display.prices first); the scripted demo is free."""
        from hermes_tui.core.pricing import ModelPrice, price_for

        if provider == "demo":
            return ModelPrice(0.0, 0.0)
        return price_for(model, self.config.display.prices)

    def open_session(
        self,
        session_id: str | None = None,
        *,
        cwd: Path | None = None,
        ask: AskHuman | None = None,
        reviewer: Reviewer | None = None,
        without_provider: bool = False,
    ) -> Session:
        """A new conversation, or the stored one with `session_id`, ready for `submit()`.

        `ask` is the face's way to ask the human (approvals.py); without one, whatever needs
        approval is refused. The session keeps the grants its answers make. `without_provider`:
        with none configured it opens all the same (for `!commands`); its model calls raise
        ProviderNotConfigured."""
        from hermes_tui.core.agent.loop import Agent, AgentSettings
        from hermes_tui.core.agent.nudges import NudgeEngine
        from hermes_tui.core.agent.session import Session
        from hermes_tui.core.checkpoints import CheckpointStore
        from hermes_tui.core.tools.approvals import Approvals
        from hermes_tui.core.tools.registry import ToolContext

        cwd = (cwd or Path.cwd()).resolve()
        self.sessions  # noqa: B018 - first: an unusable sessions.db (read-only home) is the error shown
        # Which provider and model, without building it yet: the SDK's import (the slowest
        # part of a cold start, preloaded on a thread by `chat -q`) overlaps the work below.
        from hermes_tui.core.llm.base import NoProvider, ProviderNotConfigured
        from hermes_tui.core.llm.select import ProviderSpec

        missing: NoProvider | None = None
        try:
            spec = self.provider_spec()
        except ProviderNotConfigured as exc:
            if not without_provider:
                raise
            missing, spec = NoProvider(str(exc)), ProviderSpec("none", "", None, "")
        if self.mcp is not None:
            # The session's tools are frozen now (prompt-cache stability): servers still
            # starting get until their connect timeout, later ones join the next session.
            self.mcp.start()
            self._mcp_tools = self.mcp.freeze()
        config = self.config
        memory_interval = config.memory.nudge_interval
        skills_interval = config.skills.creation_nudge_interval
        if spec.name == "demo":
            # The demo works only in its sandbox and reviews after every run, so a newcomer
            # sees the agent learn within three messages.
            from hermes_tui.core.llm.demo import ensure_sandbox

            cwd = ensure_sandbox(self.user_home / "demo")
            memory_interval = skills_interval = 1
        if session_id and session_id.startswith("hermes:"):
            info, history = self._fork_hermes_session(session_id, spec, cwd)
        elif session_id:
            info = self.sessions.get(session_id)
            history = [stored.message for stored in self.sessions.messages(info.id)]
        else:
            info = self.sessions.create(
                provider=spec.name,
                model=spec.model,
                system_prompt=self.build_system_prompt(cwd),
            )
            history = []
        memory_on = config.memory.memory_enabled or config.memory.user_profile_enabled
        nudges = NudgeEngine(
            memory_interval if memory_on else 0,
            skills_interval,
            info.nudge_memory,
            info.nudge_skills,
        )
        session = Session(
            info=info,
            sessions=self.sessions,
            skills=self.skills,
            nudges=nudges,
            build_prompt=lambda: self.build_system_prompt(cwd),
            reviewer=reviewer,
            model=spec.model,
            price=self.price_of(spec.name, spec.model),
            checkpoints=CheckpointStore(self.home / "checkpoints", info.id, self.redactor.text),
            approvals=Approvals(ask),
        )
        context = ToolContext(
            origin="agent",
            cwd=cwd,
            workdir=cwd,
            approvals=session.approvals,
            session_id=info.id,
            approval_mode=self.approval_mode(),
        )
        agent = Agent(
            provider=missing or self.provider(),
            registry=self.tool_registry(),
            system_prompt=info.system_prompt,
            history=history,
            context=context,
            settings=AgentSettings(
                config.agent.max_turns, config.model.context_length, self.retry_policy()
            ),
            sink=self.sink,
            persist=session.persist,
            record_usage=session.record_usage,
            nudges=nudges,
            on_compress=session.continue_compressed,
            gate=self.write_gate(),
        )
        session.attach(agent)
        return session


def _check_home(home: Path) -> None:
    """A home that is (or sits under) a file is a configuration error, not a traceback later."""
    for candidate in (home, *home.parents):
        if candidate.exists():
            if not candidate.is_dir():
                raise ConfigError(
                    f"the home {home} cannot be used: {candidate} is a file, not a directory. "
                    "Point --home (or HERMES_HOME) at a folder."
                )
            return


def mcp_secrets(config: Config) -> dict[str, str]:
    """What config.yaml holds that is secret (recognise.tree_secrets: Hermes' model.api_key, a
    token in an MCP server's args or URL) and what its MCP servers are given once `${VAR}`s are
    filled in (mcp_config.server_secrets): a server or a script may print it."""
    if not config.mcp_servers:
        return dict(config.secrets)  # without servers, no parser to import
    from hermes_tui.core.redaction import labelled
    from hermes_tui.core.tools.mcp_config import parse_servers, server_secrets

    servers = server_secrets(parse_servers(config.mcp_servers, config.env).servers)
    return labelled((name, [value]) for name, value in [*config.secrets.items(), *servers.items()])
