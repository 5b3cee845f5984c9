"""The SOAP message-service mock (seed 001, part (b)): app.py, response.py, faults.py."""
