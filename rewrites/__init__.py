"""Exact rewrites on the graph model (§9.3, §9.4), one module each."""
