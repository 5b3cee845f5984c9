"""The mock authorization server of seed 001 part (a), with its two resource servers.

config.py (AuthMockConfig and the mock clock), app.py (create_app), authorize.py (authorize,
login, consent), token_endpoint.py (the four grants), assertion.py (client assertions),
tokens.py (codes, access and refresh tokens), resources.py (the filing and inquiry APIs),
faults.py (the auth fault catalogue). See docs/auth-design.md.
"""
