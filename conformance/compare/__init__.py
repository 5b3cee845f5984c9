"""Differential conformance: a vendor's environment judged against the register's own.

The same read-only requests go to both environments (`conformance compare --profile VENDOR
--reference REFERENCE`); every difference that matters is a finding, grouped by operation
and JSON path pattern. Each request goes to the reference twice: what differs between two
identical reference answers is volatile and never reported (Diffy's noise cancellation).

Modules: `jsondiff` (normalising and diffing two answers), `corpus` (which requests),
`address` (sending them to both sides and judging per operation), `reference` (the
reference side of a run: its mocks, keys and samples).
"""
