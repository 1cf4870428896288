"""The ACP face: hermes-tui as an Agent Client Protocol agent for editors (Zed, JetBrains,
Neovim, Emacs) and Toad. Imported only by `hermes-tui acp`, so neither `chat -q` nor the app pays
for the SDK."""
