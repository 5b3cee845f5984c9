"""Conformance suites shipped with the package (collected by `conformance run`)."""
