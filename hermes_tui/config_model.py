"""The configuration's shape: one frozen dataclass per config.yaml section (each key, its type
and default, Hermes' name where it has one), the whole `Config` of a home, and the command
line's `Overrides`. Reading, checking and writing them is config.py's (which re-exports these).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from hermes_tui.core.records import datarecord

PROVIDERS = ("openai", "anthropic", "openrouter", "demo")


@datarecord
class ModelConfig:
    """model.*: which provider and model, and how patiently to call it."""

    provider: str | None = None
    name: str | None = None
    base_url: str | None = None
    context_length: int = 128_000
    max_retries: int = 3
    retry_base_delay: float = 1.0
    # Seconds: the longest silence in a reply before the attempt fails (and is retried), and the
    # longest wait from sending a request to its first byte back. Unset, `timeout` comes from
    # Hermes' providers.<provider>.request_timeout_seconds (or models.<model>.timeout_seconds
    # there), then HERMES_API_TIMEOUT, then 120.
    timeout: float = 120.0
    first_byte_timeout: float = 60.0


@datarecord
class MemoryConfig:
    """memory.*: the two memory stores, their limits and the nudge interval."""

    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = 2200
    user_char_limit: int = 1375
    nudge_interval: int = 10
    write_approval: bool = False


@datarecord
class SkillsConfig:
    """skills.*: the skill library's roots, nudges, index size and trust."""

    creation_nudge_interval: int = 10
    external_dirs: tuple[str, ...] = ()
    write_approval: bool = False
    index_max_chars: int = 6000
    trusted_sources: tuple[str, ...] = ()  # skills rated "caution" from these install unforced
    # Hermes' per-skill settings: skill name -> {key: value}, shown with the skill when loaded.
    config: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Hermes: a skill's !`command` runs (through the terminal tool) only when this is on.
    inline_shell: bool = False
    inline_shell_timeout: float = 10.0


@datarecord
class CuratorConfig:
    """curator.*: when the curator runs and what it may archive."""

    enabled: bool = True
    interval_hours: int = 168
    # Hermes: a scheduled pass waits until nobody has used the agent for this long.
    min_idle_hours: float = 2.0
    stale_after_days: int = 30
    archive_after_days: int = 90
    consolidate: bool = False
    # Hermes: bundled skills are curated too. Ours are read-only in the package, so "on" lets
    # the curator count them as unused but never archive them (said in `curator status`).
    prune_builtins: bool = True
    # Hermes' `backup: {enabled, keep}`; `backup: false` is accepted as well.
    backup: tuple[bool, int] = (True, 5)


@datarecord
class AgentConfig:
    """agent.*: the tool loop's bound and the reasoning effort asked for."""

    max_turns: int = 90
    reasoning_effort: str = ""  # Hermes: none minimal low medium high xhigh; "" the model's own


@datarecord
class ReviewConfig:
    """review.*: how long and how far a background review may go."""

    timeout_s: float = 120.0
    max_iterations: int = 16


@datarecord
class DisplayConfig:
    """display.*: how the faces show things (theme, panel, prices, persona)."""

    theme: str = "hermes-dark"
    memory_notifications: bool = True
    panel_width: int = 44  # the side panel's columns (alt+←/→ change it; remembered here)
    # Model name -> core.pricing.ModelPrice (USD per million tokens), beside the built-in table.
    prices: Mapping[str, Any] = field(default_factory=dict)
    show_reasoning: bool = True  # reasoning drawn as a collapsed block (/reasoning show|hide)
    personality: str = ""  # one of `personalities` (Hermes), applied to new conversations


@datarecord
class FilesConfig:
    """files.*: where the file tools may reach beyond the working directory."""

    # Folders besides the working directory the files tool may use without asking.
    allowed_roots: tuple[str, ...] = ()


@datarecord
class ToolsConfig:
    """tools.*: bounds shared by every tool."""

    # The most characters of a tool result kept in the conversation; the rest is saved to the
    # session's scratch folder and the model is told how to page through it.
    max_result_chars: int = 30_000


@datarecord
class TerminalConfig:
    """terminal.*: the sandbox, the approval mode and the command policy's lists."""

    # Command prefixes that run without asking; Hermes' `command_allowlist` maps here.
    allow: tuple[str, ...] = ()
    # Command prefixes never run, wherever they appear in a command line.
    deny: tuple[str, ...] = ()
    # bubblewrap around every command: auto (when bwrap is installed), on (required), off.
    sandbox: str = "auto"
    # What asks (README, "Approval modes"): sandboxed, strict, plan, yolo; auto is sandboxed
    # where the sandbox works and strict where it cannot.
    mode: str = "auto"
    # Sandboxed commands' network: off, allowlist (through the filtering proxy), on.
    network: str = "allowlist"
    # Hosts reachable in allowlist mode besides the package registries (a subdomain counts).
    network_allow: tuple[str, ...] = ()
    # Variables children may see although their names look secret (*KEY*, *TOKEN*, ...).
    env_passthrough: tuple[str, ...] = ()
    # Folders commands may write besides the working directory.
    writable_roots: tuple[str, ...] = ()
    # Files and folders commands may not read, besides the built-in credential list.
    deny_read: tuple[str, ...] = ()
    # Under the home (sandboxed commands see it empty but for what they need): what they may
    # read besides (the credential files in it stay hidden).
    allow_read: tuple[str, ...] = ()


@datarecord
class Config:
    """The whole configuration of one home: every section, its warnings and the environment."""

    home: Path
    model: ModelConfig = field(default_factory=ModelConfig)
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    curator: CuratorConfig = field(default_factory=CuratorConfig)
    agent: AgentConfig = field(default_factory=AgentConfig)
    review: ReviewConfig = field(default_factory=ReviewConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    terminal: TerminalConfig = field(default_factory=TerminalConfig)
    files: FilesConfig = field(default_factory=FilesConfig)
    tools: ToolsConfig = field(default_factory=ToolsConfig)
    mcp_servers: Mapping[str, Any] = field(default_factory=dict)  # Hermes' mcp_servers as written
    # Hermes' `quick_commands:` and `personalities:` as written, read by core/custom_commands.py.
    hermes_sections: Mapping[str, Any] = field(default_factory=dict)
    # Keys that were ignored or only partly mapped, each with file, line and reason.
    warnings: tuple[str, ...] = ()
    # Hermes keys set in config.yaml that hermes-tui does not use (`section` for a whole
    # section, `section.key` for one key), for `doctor` and the app's one-time notice.
    unused_hermes_keys: tuple[str, ...] = ()
    # Environment as the provider sees it: .env under the real environment.
    env: Mapping[str, str] = field(default_factory=dict)
    # What config.yaml holds that is secret, label -> value (core/redaction/recognise.py's
    # tree_secrets: Hermes' model.api_key, a token in an MCP server's args), for the redaction.
    secrets: Mapping[str, str] = field(default_factory=dict)

    @property
    def config_path(self) -> Path:
        return self.home / "config.yaml"


@datarecord
class Overrides:
    """Values given on the command line; None means "not given"."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    mode: str | None = None  # --mode / --yolo: terminal.mode for this run
    sandbox: str | None = None  # --no-sandbox: terminal.sandbox off for this run


SECTIONS: dict[str, type] = {
    "model": ModelConfig,
    "memory": MemoryConfig,
    "skills": SkillsConfig,
    "curator": CuratorConfig,
    "agent": AgentConfig,
    "review": ReviewConfig,
    "display": DisplayConfig,
    "terminal": TerminalConfig,
    "files": FilesConfig,
    "tools": ToolsConfig,
}
