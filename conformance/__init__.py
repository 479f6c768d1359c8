"""Conformance vectors (§14): generator, independent checker, committed corpus."""
