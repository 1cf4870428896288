"""The model picker, also the first-run welcome: provider, base URL, key and model, or the demo.

The model list is fetched from the provider (`GET /v1/models`, Anthropic's models endpoint)
and any name can be typed instead; "Test connection" makes one tiny real request
(core/llm/ping.py). Saving writes the key to <home>/.env (0600) and the rest to config.yaml.
Memory, skills and sessions work without a provider, so "Look around first" closes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Input, Label, OptionList, Select, Static

from hermes_tui.core.text import neutralise
from hermes_tui.ui.textual_compat import QuietScreen

PROVIDERS = [
    ("openai", "OpenAI, or an OpenAI-compatible server (Ollama, vLLM, llama.cpp)", "OPENAI_API_KEY"),
    ("anthropic", "Anthropic (Claude)", "ANTHROPIC_API_KEY"),
    ("openrouter", "OpenRouter", "OPENROUTER_API_KEY"),
]  # fmt: skip
NAMES = [name for name, _label, _var in PROVIDERS]


@dataclass(frozen=True)
class ProviderChoice:
    provider: str  # openai, anthropic, openrouter, demo; "" = close without changes
    key_variable: str = ""
    key: str = ""
    base_url: str = ""
    model: str = ""


class WelcomeScreen(QuietScreen, ModalScreen[ProviderChoice]):
    DEFAULT_CSS = """
    WelcomeScreen { align: center middle; }
    WelcomeScreen > VerticalScroll { width: 90; max-width: 100%; height: auto; max-height: 100%; border: thick $primary; background: $surface; padding: 0 1; }
    WelcomeScreen .lead { margin: 0 0 1 0; }
    WelcomeScreen #welcome-error { color: $warning; height: auto; }
    WelcomeScreen #welcome-error.-ok { color: $success; }
    WelcomeScreen #model-list { height: auto; max-height: 6; display: none; }
    WelcomeScreen #model-list.-visible { display: block; }
    WelcomeScreen .row { height: auto; }
    WelcomeScreen .row Input { width: 1fr; }
    WelcomeScreen #buttons { height: auto; align-horizontal: right; }
    WelcomeScreen Button { min-width: 10; }
    """
    BINDINGS = [Binding("escape", "later", "Close")]

    def __init__(self, config: Any = None, argument: str = "", *, welcome: bool = False) -> None:
        """`config` prefills what is set up; `argument` is /model's: a provider or a model name;
        `welcome`: the first screen of an app with no provider, else the model switcher."""
        super().__init__()
        self.config = config
        self.argument = argument.strip()
        self.welcome = welcome
        from hermes_tui.core.llm import select

        self.current = select.detect(config) if config is not None else None
        self.models: list[str] = []

    def compose(self) -> ComposeResult:
        model = self.config.model if self.config is not None else None
        provider = self.current if self.current in NAMES else "openai"
        model_name = (model.name if model else None) or ""
        if self.argument in NAMES:
            provider = self.argument
            model_name = "" if provider != self.current else model_name
        elif self.argument:
            model_name = self.argument
        form = VerticalScroll()
        form.can_focus = False  # a Tab stop that shows nothing and swallows typing
        with form:
            if self.welcome:
                yield Label("Welcome to hermes-tui")
            else:  # the switcher's name, on its frame: a 24-row terminal keeps every button
                form.border_title = "Model and provider"
            if self.current is None and self.welcome:
                lead = (
                    "An agent that keeps a small memory and writes its own skills, in the open. "
                    "No model is set up yet: pick a provider, start the scripted demo, or look "
                    "around first (memory, skills and sessions work offline)."
                )
            elif self.current is None:
                lead = "No model is set up yet: pick a provider and its model, or start the demo."
            else:
                from hermes_tui.core.llm.select import DEFAULT_MODELS

                configured = (model.name if model else None) or DEFAULT_MODELS.get(
                    self.current, "hermes-demo"
                )
                current = f"{self.current} · {configured}"
                lead = f"Now: {current}. Change the provider, server, key or model."
            yield Static(neutralise(lead), classes="lead", markup=False)
            yield Select(
                [(label, name) for name, label, _var in PROVIDERS],
                value=provider,
                allow_blank=False,
                id="provider",
            )
            yield Input(
                (model.base_url or "") if model is not None and provider == self.current else "",
                placeholder="base URL (optional, e.g. http://localhost:11434/v1 for Ollama)",
                id="base-url",
            )
            yield Input(placeholder=self._key_placeholder(provider), password=True, id="key")
            with Horizontal(classes="row"):
                yield Input(model_name, placeholder="model (type one, or list them)", id="model")
                yield Button("List models", id="list-models")
            yield OptionList(id="model-list")
            yield Static("", id="welcome-error", markup=False)
            with Horizontal(id="buttons"):
                yield Button("Look around" if self.current is None else "Cancel", id="later")
                yield Button("Demo", id="demo", variant="success")
                yield Button("Test connection", id="test")
                yield Button("Save", id="save", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#key" if self.current is None else "#model", Input).focus()

    def _key_placeholder(self, provider: str) -> str:
        variable = dict((n, v) for n, _l, v in PROVIDERS)[provider]
        if self.config is not None and self.config.env.get(variable):
            return f"API key ({variable} is set; leave empty to keep it)"
        return f"API key ({variable})"

    def _provider(self) -> tuple[str, str]:
        name = str(self.query_one("#provider", Select).value)
        return name, dict((n, v) for n, _l, v in PROVIDERS)[name]

    @on(Select.Changed, "#provider")
    def _provider_changed(self) -> None:
        name, _variable = self._provider()
        self.query_one("#key", Input).placeholder = self._key_placeholder(name)
        self.query_one("#model-list", OptionList).remove_class("-visible")

    def _say(self, text: str, ok: bool = False) -> None:
        status = self.query_one("#welcome-error", Static)
        status.update(neutralise(text))
        status.set_class(ok, "-ok")

    def _fields(self) -> tuple[str, str, str, str, str]:
        name, variable = self._provider()
        key = self.query_one("#key", Input).value.strip()
        if not key and self.config is not None:
            key = self.config.env.get(variable, "")
        base_url = self.query_one("#base-url", Input).value.strip()
        model = self.query_one("#model", Input).value.strip()
        return name, variable, key, base_url, model

    # ---- the model list and the connection test (one request each, on a worker) ----------

    @on(Button.Pressed, "#list-models")
    def _list_models(self) -> None:
        self._say("Asking the provider for its models…")
        self.fetch_models(*self._fields())

    @work(thread=True, exclusive=True, group="picker", exit_on_error=False)
    def fetch_models(self, name: str, _var: str, key: str, base_url: str, _model: str) -> None:
        from hermes_tui.core.llm.base import ProviderError, ProviderNotConfigured
        from hermes_tui.core.llm.models import list_models

        try:
            models = list_models(name, base_url or None, key)
        except (ProviderError, ProviderNotConfigured) as exc:
            message = exc.user_message() if isinstance(exc, ProviderError) else str(exc)
            self.app.call_from_thread(self._say, message)
            return
        self.app.call_from_thread(self._show_models, models)

    def _show_models(self, models: list[str]) -> None:
        self.models = models
        listing = self.query_one("#model-list", OptionList)
        listing.clear_options()
        listing.add_options([neutralise(m) for m in models])
        listing.set_class(bool(models), "-visible")
        if models:  # the model in the field if listed, else the first: enter takes it
            typed = self.query_one("#model", Input).value.strip()
            listing.highlighted = models.index(typed) if typed in models else 0
        self.query_one("#model", Input).suggester = SuggestFromList(models, case_sensitive=False)
        count = len(models)
        self._say(
            f"{count} model{'' if count == 1 else 's'}: pick one or type another name", ok=True
        )

    @on(OptionList.OptionSelected, "#model-list")
    def _model_picked(self, event: OptionList.OptionSelected) -> None:
        self.query_one("#model", Input).value = self.models[event.option_index]

    @on(Button.Pressed, "#test")
    def _test(self) -> None:
        self._say("Sending one tiny request…")
        self.test_connection(*self._fields())

    @work(thread=True, exclusive=True, group="picker", exit_on_error=False)
    def test_connection(self, name: str, _var: str, key: str, base_url: str, model: str) -> None:
        from hermes_tui.core.llm import select
        from hermes_tui.core.llm.base import ProviderNotConfigured
        from hermes_tui.core.llm.ping import ping

        if not key and not (name == "openai" and base_url):
            self.app.call_from_thread(self._say, f"Paste a key for {name} first.")
            return
        spec = select.ProviderSpec(
            name,
            model or select.DEFAULT_MODELS[name],
            base_url or (select.OPENROUTER_URL if name == "openrouter" else None),
            key or "not-needed",
        )
        try:
            if spec.base_url:
                select.check_base_url(spec.base_url, name)
            result = ping(select.open_provider(spec))
        except ProviderNotConfigured as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        self.app.call_from_thread(self._say, result.summary(), result.ok)

    # ---- leaving -----------------------------------------------------------------------

    @on(Button.Pressed, "#save")
    @on(Input.Submitted, "#key,#base-url,#model")
    def save(self) -> None:
        name, variable, key, base_url, model = self._fields()
        if not key and not (name == "openai" and base_url):
            self._say(f"Paste a key for {name} ({variable}), or give a base URL.")
            return
        typed_key = self.query_one("#key", Input).value.strip()
        self.dismiss(ProviderChoice(name, variable, typed_key, base_url, model))

    @on(Button.Pressed, "#demo")
    def demo(self) -> None:
        self.dismiss(ProviderChoice("demo"))

    @on(Button.Pressed, "#later")
    def action_later(self) -> None:
        self.dismiss(ProviderChoice(""))


def apply_choice(app: Any, choice: ProviderChoice | None) -> Any:
    """Save the choice (key to .env at 0600, the rest to config.yaml) and reopen the runtime.

    Returns the new Runtime, or None when the screen was closed without a change.
    """
    from hermes_tui.config import Overrides, save_env_var, set_config_value
    from hermes_tui.core.llm import select
    from hermes_tui.runtime import Runtime, remember_demo

    if choice is None or not choice.provider:
        if select.detect(app.runtime.config) is None:
            app.notify(
                "Offline: memory, skills and sessions work; /model sets a provider", timeout=6
            )
        return None
    home = app.runtime.user_home  # never the demo's own home
    if choice.provider == "demo":
        remember_demo(home, True)
        return Runtime.open(home, Overrides(provider="demo"), sink=app.forwarder)
    remember_demo(home, False)
    if choice.key:
        save_env_var(home, choice.key_variable, choice.key)
    set_config_value(home, "model", "provider", choice.provider)
    set_config_value(home, "model", "base_url", choice.base_url or None)
    set_config_value(home, "model", "name", choice.model or None)
    model = choice.model or select.DEFAULT_MODELS[choice.provider]
    where = f"; the key is in {home / '.env'}" if choice.key else ""
    app.notify(f"{choice.provider} · {model} is set up{where}")
    return Runtime.open(home, sink=app.forwarder)
