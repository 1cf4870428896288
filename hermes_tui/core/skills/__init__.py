"""Skills: the agent's procedural memory (DESIGN.md section 7)."""
