"""Reporting: summary.json, and the Allure adapter (the only module that imports allure)."""
