"""Checks of a comparison with the register's own environment (`conformance compare`)."""
