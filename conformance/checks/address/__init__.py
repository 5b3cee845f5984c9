"""Checks of the address API (seed 000). catalogue.py declares every check id."""
