"""The OpenAPI description of the address API, and loading it for a profile."""
