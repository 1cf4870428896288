"""LLM providers behind one streaming protocol (base.py); SDKs are imported only when used."""
