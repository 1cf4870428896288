"""The configuration keys Hermes Agent knows, so a Hermes home's config.yaml loads unchanged.

Data, not logic (config.py decides what to do with it). Taken from Hermes Agent 0.19.0's
`hermes_cli/config.py` (PyPI `hermes-agent==0.19.0`): the top-level keys of `DEFAULT_CONFIG` plus
`_EXTRA_KNOWN_ROOT_KEYS`, and the keys of every section of `DEFAULT_CONFIG` that is a mapping. The
`model` section is a bare string in Hermes' defaults; its mapping form's keys are the ones Hermes
reads (`model_cfg.get(...)`). `EARLIER_*` hold keys that earlier Hermes releases wrote and that
homes still carry. Deeper levels are never checked: only sections hermes-tui also uses are
validated, one level down.
"""

from __future__ import annotations

HERMES_VERSION = "0.19.0"

TOP_LEVEL: frozenset[str] = frozenset(
    {
        "_config_version", "agent", "always_log_local", "approvals", "auxiliary", "bedrock",
        "browser", "checkpoints", "code_execution", "command_allowlist", "compression",
        "computer_use", "context", "context_file_max_chars", "credential_pool_strategies", "cron",
        "curator", "custom_providers", "dashboard", "delegation", "desktop", "discord", "display",
        "fallback_model", "fallback_providers", "file_read_max_chars", "filter_silence_narration",
        "gateway", "goals", "group_sessions_per_user", "honcho", "hooks", "hooks_auto_accept",
        "human_delay", "image_gen", "kanban", "known_plugin_toolsets", "logging", "lsp", "matrix",
        "mattermost", "max_concurrent_sessions", "max_live_sessions", "mcp",
        "mcp_discovery_timeout", "mcp_servers", "memory", "moa", "model", "model_catalog",
        "multiplex_profiles", "network", "onboarding", "openrouter",
        "paste_collapse_char_threshold", "paste_collapse_threshold",
        "paste_collapse_threshold_fallback", "personalities", "platform_hints",
        "platform_toolsets", "platforms", "plugins", "prefill_messages_file", "privacy",
        "profile_routes", "prompt_caching", "providers", "quick_commands", "require_mention",
        "reset_triggers", "secrets", "security", "session_reset", "sessions", "signal", "skills",
        "slack", "smart_model_routing", "streaming", "stt", "stt_echo_transcripts", "telegram",
        "terminal", "thread_sessions_per_user", "timezone", "tool_loop_guardrails", "tool_output",
        "tools", "toolsets", "tts", "unauthorized_dm_behavior", "updates", "vertex", "video_gen",
        "voice", "web", "whatsapp", "x_search",
    }
)  # fmt: skip


EARLIER_TOP_LEVEL: frozenset[str] = frozenset(
    {
        "api_server", "credentials", "dingtalk", "email", "feishu", "homeassistant", "insights",
        "profiles", "redaction", "skin", "sms", "update", "webhook", "wecom", "worktree",
    }
)  # fmt: skip


SECTION_KEYS: dict[str, frozenset[str]] = {
    "agent": frozenset(
        {
            "api_max_retries", "clarify_timeout", "coding_context", "coding_instructions",
            "disabled_toolsets", "environment_hint", "environment_probe",
            "gateway_auto_continue_freshness", "gateway_notify_interval", "gateway_timeout",
            "gateway_timeout_warning", "image_input_mode", "intent_ack_continuation",
            "local_stream_stale_timeout", "max_turns", "max_verify_nudges",
            "parallel_tool_call_guidance", "reasoning_overrides", "restart_drain_timeout",
            "service_tier", "task_completion_guidance", "tool_use_enforcement", "verify_guidance",
            "verify_on_stop",
        }
    ),
    "approvals": frozenset(
        {
            "cron_mode", "deny", "destructive_slash_confirm", "mcp_reload_confirm", "mode",
            "timeout",
        }
    ),
    "auxiliary": frozenset(
        {
            "approval", "background_review", "compression", "curator", "goal_judge",
            "kanban_decomposer", "mcp", "memory_query_rewrite", "moa_aggregator", "moa_reference",
            "monitor", "profile_describer", "skills_hub", "title_generation", "transient_retries",
            "triage_specifier", "tts_audio_tags", "vision", "web_extract",
        }
    ),
    "bedrock": frozenset(
        {
            "discovery", "guardrail", "region",
        }
    ),
    "browser": frozenset(
        {
            "allow_private_urls", "allow_unsafe_evaluate", "auto_local_for_private_urls",
            "camofox", "cdp_url", "command_timeout", "dialog_policy", "dialog_timeout_s", "engine",
            "headed", "inactivity_timeout", "record_sessions", "restrict_evaluate",
        }
    ),
    "checkpoints": frozenset(
        {
            "auto_prune", "delete_orphans", "enabled", "max_file_size_mb", "max_snapshots",
            "max_total_size_mb", "min_interval_hours", "retention_days",
        }
    ),
    "code_execution": frozenset(
        {
            "mode",
        }
    ),
    "compression": frozenset(
        {
            "abort_on_summary_failure", "codex_app_server_auto", "codex_gpt55_autoraise",
            "codex_gpt55_autoraise_notice", "enabled", "hygiene_hard_message_limit", "in_place",
            "protect_first_n", "protect_last_n", "target_ratio", "threshold",
        }
    ),
    "computer_use": frozenset(
        {
            "cua_telemetry",
        }
    ),
    "context": frozenset(
        {
            "engine",
        }
    ),
    "cron": frozenset(
        {
            "chronos", "max_parallel_jobs", "mirror_delivery", "output_retention", "provider",
            "session_db_timeout_seconds", "wrap_response",
        }
    ),
    "curator": frozenset(
        {
            "archive_after_days", "backup", "consolidate", "enabled", "interval_hours",
            "min_idle_hours", "prune_builtins", "stale_after_days",
        }
    ),
    "dashboard": frozenset(
        {
            "basic_auth", "compute_host_heartbeat_secs", "compute_host_respawn_max", "drain_auth",
            "oauth", "public_url", "show_token_analytics", "theme", "turn_isolation",
        }
    ),
    "delegation": frozenset(
        {
            "api_key", "api_mode", "base_url", "child_timeout_seconds", "inherit_mcp_toolsets",
            "max_concurrent_children", "max_iterations", "max_spawn_depth", "max_summary_chars",
            "model", "orchestrator_enabled", "provider", "reasoning_effort",
            "subagent_auto_approve",
        }
    ),
    "desktop": frozenset(
        {
            "disable_gpu", "electron_flags",
        }
    ),
    "discord": frozenset(
        {
            "allow_any_attachment", "allowed_channels", "approval_mentions", "auto_thread",
            "bots_require_inline_mention", "channel_prompts", "dm_role_auth_guild",
            "free_response_channels", "history_backfill", "history_backfill_limit",
            "max_attachment_bytes", "missed_message_backfill", "reactions", "require_mention",
            "server_actions", "thread_require_mention", "voice_fx",
            "websocket_heartbeat_ack_max_age_seconds", "websocket_liveness_failure_threshold",
            "websocket_liveness_interval_seconds", "websocket_max_latency_seconds",
        }
    ),
    "display": frozenset(
        {
            "bell_on_complete", "busy_input_mode", "busy_steer_ack_enabled",
            "cli_refresh_interval", "compact", "copy_shortcut", "credits_notices",
            "ephemeral_system_ttl", "file_mutation_verifier", "final_response_markdown",
            "friendly_tool_labels", "inline_diffs", "interface", "interim_assistant_messages",
            "language", "memory_notifications", "persist_prompts", "persistent_output",
            "persistent_output_max_lines", "personality", "pet", "platforms", "reasoning_full",
            "reasoning_style", "resume_display", "resume_exchanges", "resume_max_assistant_chars",
            "resume_max_assistant_lines", "resume_max_user_chars", "resume_skip_tool_only",
            "runtime_footer", "show_commentary", "show_cost", "show_reasoning", "skin",
            "status_phrases", "streaming", "timestamp_format", "timestamps", "tool_preview_length",
            "tool_progress_command", "tool_progress_grouping", "tool_progress_overrides",
            "tui_agents_nudge", "tui_auto_resume_recent", "tui_status_indicator",
            "turn_completion_explainer", "user_message_preview",
        }
    ),
    "gateway": frozenset(
        {
            "api_server", "delivery_ledger", "max_inbound_media_bytes",
            "media_delivery_allow_dirs", "message_timestamps", "platform_connect_timeout",
            "respawn_storm", "restart_loop_guard", "scale_to_zero", "strict", "trust_recent_files",
            "trust_recent_files_seconds", "write_sessions_json",
        }
    ),
    "goals": frozenset(
        {
            "max_turns",
        }
    ),
    "human_delay": frozenset(
        {
            "max_ms", "min_ms", "mode",
        }
    ),
    "kanban": frozenset(
        {
            "auto_decompose", "auto_decompose_per_tick", "default_assignee", "dispatch_in_gateway",
            "dispatch_interval_seconds", "dispatch_stale_timeout_seconds", "failure_limit",
            "max_in_progress_per_profile", "orchestrator_profile", "worker_log_backup_count",
            "worker_log_rotate_bytes",
        }
    ),
    "logging": frozenset(
        {
            "backup_count", "level", "max_size_mb",
        }
    ),
    "lsp": frozenset(
        {
            "enabled", "install_strategy", "servers", "wait_mode", "wait_timeout",
        }
    ),
    "matrix": frozenset(
        {
            "allowed_rooms", "free_response_rooms", "require_mention",
        }
    ),
    "mattermost": frozenset(
        {
            "allowed_channels", "channel_prompts", "free_response_channels", "require_mention",
        }
    ),
    "mcp": frozenset(
        {
            "auto_reload_on_config_change",
        }
    ),
    "memory": frozenset(
        {
            "memory_char_limit", "memory_enabled", "provider", "user_char_limit",
            "user_profile_enabled", "write_approval",
        }
    ),
    "moa": frozenset(
        {
            "active_preset", "default_preset", "presets", "save_traces", "trace_dir",
        }
    ),
    "model_catalog": frozenset(
        {
            "enabled", "providers", "ttl_hours", "url",
        }
    ),
    "network": frozenset(
        {
            "force_ipv4",
        }
    ),
    "onboarding": frozenset(
        {
            "profile_build", "seen",
        }
    ),
    "openrouter": frozenset(
        {
            "min_coding_score", "response_cache", "response_cache_ttl",
        }
    ),
    "privacy": frozenset(
        {
            "redact_pii",
        }
    ),
    "prompt_caching": frozenset(
        {
            "cache_ttl",
        }
    ),
    "secrets": frozenset(
        {
            "bitwarden", "onepassword",
        }
    ),
    "security": frozenset(
        {
            "acked_advisories", "allow_lazy_installs", "allow_private_urls", "redact_secrets",
            "tirith_enabled", "tirith_fail_open", "tirith_path", "tirith_timeout",
            "website_blocklist",
        }
    ),
    "sessions": frozenset(
        {
            "auto_prune", "min_interval_hours", "retention_days", "vacuum_after_prune",
            "write_json_snapshots",
        }
    ),
    "skills": frozenset(
        {
            "external_dirs", "guard_agent_created", "inline_shell", "inline_shell_timeout",
            "template_vars", "write_approval",
        }
    ),
    "slack": frozenset(
        {
            "allowed_channels", "channel_prompts", "free_response_channels", "require_mention",
        }
    ),
    "streaming": frozenset(
        {
            "buffer_threshold", "cursor", "edit_interval", "enabled", "fresh_final_after_seconds",
            "transport",
        }
    ),
    "stt": frozenset(
        {
            "deepinfra", "echo_transcripts", "elevenlabs", "enabled", "local", "mistral", "openai",
            "provider",
        }
    ),
    "telegram": frozenset(
        {
            "allowed_chats", "channel_prompts", "extra", "reactions",
        }
    ),
    "terminal": frozenset(
        {
            "auto_source_bashrc", "backend", "container_cpu", "container_disk", "container_memory",
            "container_persistent", "cwd", "daemon_term_grace_seconds", "daytona_image",
            "docker_env", "docker_extra_args", "docker_forward_env", "docker_image",
            "docker_mount_cwd_to_workspace", "docker_network", "docker_run_as_host_user",
            "docker_volumes", "env_passthrough", "home_mode", "modal_image", "modal_mode",
            "persistent_shell", "shell_init_files", "singularity_image", "timeout",
        }
    ),
    "tool_loop_guardrails": frozenset(
        {
            "hard_stop_after", "hard_stop_enabled", "warn_after", "warnings_enabled",
        }
    ),
    "tool_output": frozenset(
        {
            "max_bytes", "max_line_length", "max_lines",
        }
    ),
    "tools": frozenset(
        {
            "tool_search",
        }
    ),
    "tts": frozenset(
        {
            "deepinfra", "edge", "elevenlabs", "gemini", "kittentts", "minimax", "mistral",
            "neutts", "openai", "piper", "provider", "xai",
        }
    ),
    "updates": frozenset(
        {
            "backup_keep", "non_interactive_local_changes", "pre_update_backup",
            "refresh_cua_driver",
        }
    ),
    "vertex": frozenset(
        {
            "project_id", "region",
        }
    ),
    "voice": frozenset(
        {
            "auto_tts", "beep_enabled", "max_recording_seconds", "record_key", "silence_duration",
            "silence_threshold",
        }
    ),
    "web": frozenset(
        {
            "backend", "extract_backend", "extract_char_limit", "search_backend",
        }
    ),
    "x_search": frozenset(
        {
            "model", "reasoning_effort", "retries", "timeout_seconds",
        }
    ),
    "model": frozenset(
        {
            "api", "api_key", "api_mode", "auth_mode", "base_url", "context_length", "default",
            "entra", "max_tokens", "model", "ollama_num_ctx", "openai_runtime",
            "persist_switch_by_default", "provider", "supports_vision", "temperature",
        }
    ),
}  # fmt: skip


EARLIER_SECTION_KEYS: dict[str, frozenset[str]] = {
    "memory": frozenset(
        {
            "auto_flush", "flush_min_turns", "honcho", "nudge_interval",
        }
    ),
    "skills": frozenset(
        {
            "auto_load", "config", "creation_nudge_interval", "disabled", "hub",
            "platform_disabled",
        }
    ),
    "curator": frozenset(
        {
            "max_skills", "model", "notify", "provider",
        }
    ),
    "agent": frozenset(
        {
            "max_iterations", "personality", "prefill_messages_file", "quiet_mode",
            "reasoning_effort", "save_trajectories", "system_prompt", "verbose",
        }
    ),
    "review": frozenset(
        {
            "model", "provider",
        }
    ),
    "display": frozenset(
        {
            "personality", "spinner", "tool_progress",
        }
    ),
}  # fmt: skip

# `model.provider` values Hermes 0.19.0 accepts (hermes_cli/auth.py PROVIDER_REGISTRY and the
# canonical names of hermes_cli/models.py _PROVIDER_ALIASES). hermes-tui speaks only some of them.
PROVIDERS: frozenset[str] = frozenset(
    {
        "alibaba", "alibaba-coding-plan", "anthropic", "arcee", "auto", "azure-foundry", "bedrock",
        "copilot", "copilot-acp", "custom", "deepseek", "fireworks", "gemini", "gmi",
        "huggingface", "kilocode", "kimi-coding", "kimi-coding-cn", "lmstudio", "minimax",
        "minimax-cn", "minimax-oauth", "nous", "novita", "nvidia", "ollama-cloud", "openai",
        "openai-api", "openai-codex", "opencode-go", "opencode-zen", "openrouter", "qwen-oauth",
        "stepfun", "tencent-tokenhub", "vertex", "xai", "xai-oauth", "xiaomi", "zai",
    }
)  # fmt: skip
