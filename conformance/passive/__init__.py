"""Passive conformance: judging recorded traffic (HAR) with the same checks, sending nothing."""
