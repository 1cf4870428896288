"""First run without a provider: pick one and paste a key (saved to <home>/.env, 0600), or try the demo.

Memory, skills and sessions work without a provider, so "Look around first" closes this screen
and leaves the app usable offline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

PROVIDERS = [
    (
        "openai",
        "OpenAI, or any OpenAI-compatible server (Ollama, vLLM, llama.cpp)",
        "OPENAI_API_KEY",
    ),
    ("anthropic", "Anthropic (Claude)", "ANTHROPIC_API_KEY"),
    ("openrouter", "OpenRouter", "OPENROUTER_API_KEY"),
]


@dataclass(frozen=True)
class ProviderChoice:
    provider: str  # openai, anthropic, openrouter, demo; "" = look around offline
    key_variable: str = ""
    key: str = ""
    base_url: str = ""


class WelcomeScreen(ModalScreen[ProviderChoice]):
    DEFAULT_CSS = """
    WelcomeScreen { align: center middle; }
    WelcomeScreen > VerticalScroll { width: 90; max-width: 95%; height: auto; max-height: 100%; border: thick $primary; background: $surface; padding: 0 2; }
    WelcomeScreen .lead { margin: 0 0 1 0; }
    WelcomeScreen .error { color: $error; height: auto; }
    WelcomeScreen Horizontal { height: auto; align-horizontal: right; margin: 1 0 0 0; }
    WelcomeScreen RadioSet { width: 100%; }
    """
    BINDINGS = [Binding("escape", "later", "Look around first")]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Label("Welcome to hermes-tui", classes="lead")
            yield Static(
                "An agent that keeps a small memory and writes its own skills, in the open. "
                "No model is set up yet. Pick a provider and paste its key (stored in .env in "
                "your hermes home, readable only by you), start the scripted demo to watch it "
                "learn, or look around first: memory, skills and sessions work offline.",
                classes="lead",
            )
            with RadioSet(id="provider"):
                for index, (_name, label, _var) in enumerate(PROVIDERS):
                    yield RadioButton(label, value=index == 0)
            yield Input(placeholder="API key", password=True, id="key")
            yield Input(
                placeholder="base URL (optional, e.g. http://localhost:11434/v1 for Ollama)",
                id="base-url",
            )
            yield Static("", classes="error", id="welcome-error")
            with Horizontal():
                yield Button("Look around first", id="later")
                yield Button("Start the demo", id="demo", variant="success")
                yield Button("Save and start", id="save", variant="primary")

    def _provider(self) -> tuple[str, str]:
        index = self.query_one(RadioSet).pressed_index
        name, _label, variable = PROVIDERS[max(0, index)]
        return name, variable

    @on(Button.Pressed, "#save")
    @on(Input.Submitted)
    def save(self) -> None:
        name, variable = self._provider()
        key = self.query_one("#key", Input).value.strip()
        base_url = self.query_one("#base-url", Input).value.strip()
        if not key and not (name == "openai" and base_url):
            self.query_one("#welcome-error", Static).update(
                f"Paste a key for {name} ({variable}), or give a base URL."
            )
            return
        self.dismiss(ProviderChoice(name, variable, key, base_url))

    @on(Button.Pressed, "#demo")
    def demo(self) -> None:
        self.dismiss(ProviderChoice("demo"))

    @on(Button.Pressed, "#later")
    def action_later(self) -> None:
        self.dismiss(ProviderChoice(""))


def apply_choice(app: Any, choice: ProviderChoice | None) -> Any:
    """Save the choice (key to .env at 0600, provider to config.yaml) and reopen the runtime.

    Returns the new Runtime, or None when the user chose to look around offline.
    """
    from hermes_tui.config import Overrides, save_env_var, set_config_value
    from hermes_tui.runtime import Runtime, remember_demo

    if choice is None or not choice.provider:
        app.notify("Offline: memory, skills and sessions work; /model sets a provider", timeout=6)
        return None
    home = app.runtime.user_home  # never the demo's own home
    if choice.provider == "demo":
        remember_demo(home, True)
        return Runtime.open(home, Overrides(provider="demo"), sink=app.forwarder)
    remember_demo(home, False)
    if choice.key:
        save_env_var(home, choice.key_variable, choice.key)
    set_config_value(home, "model", "provider", choice.provider)
    if choice.base_url:
        set_config_value(home, "model", "base_url", choice.base_url)
    app.notify(f"{choice.provider} is set up; the key is in {home / '.env'}")
    return Runtime.open(home, sink=app.forwarder)
