"""The client side of the token flows of seed 001 part (a): PKCE, JWKs, client assertions,
the test PKI, the token endpoint client and the flows composed of them.

Modules are named after the standard they implement (see docs/auth-design.md).
"""
