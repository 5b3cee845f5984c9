"""Checks of what a client sends (judged from observed traffic)."""
