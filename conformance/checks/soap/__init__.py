"""Checks of the SOAP message service: catalogue.py (ids), wsdl.py and messages.py (functions)."""
