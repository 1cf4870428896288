"""Tools the model can call, grouped in toolsets (DESIGN.md section 2)."""
