"""Every check of the address suite, declared once (id, requirements, severity).

Split by family so that each file stays readable:
  catalogue_contract.py   contract fuzzing from the OpenAPI description
  catalogue_general.py    media types, errors, headers, authentication, rate limits, paging
  catalogue_endpoints.py  query kinds, parameter limits and semantics per endpoint
  catalogue_params.py     what pages hold, /adressenuitgebreid's parameter rules, q by part
  catalogue_responses.py  every answer of the run against its described response schema
"""

from conformance.checks.address import (
    catalogue_contract,
    catalogue_endpoints,
    catalogue_general,
    catalogue_params,
    catalogue_responses,
)

__all__ = ["catalogue_contract", "catalogue_endpoints", "catalogue_general", "catalogue_params", "catalogue_responses"]
