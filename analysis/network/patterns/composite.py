"""Composite patterns (placeholder while writing)."""
PATTERNS = {}
