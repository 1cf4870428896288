"""The agent: system prompt, the tool loop, nudges, background review and compression."""
