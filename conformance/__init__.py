"""registry-conformance: contract tests and conformance checks for the register's APIs."""

__version__ = "0.1.0"
