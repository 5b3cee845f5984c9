"""Address mock faults that prove the check of every answer against its response schema
(address.response.schema_valid, conformance/checks/address/response_schema_watch.py).

Each one a single, named deviation, asked for with `faults.on(X.name)` at the one place
where it misbehaves (conformance/mocks/address/app.py); on/off tests in
tests/test_response_schema.py.
"""

from conformance.mocks.faults import fault

# A type the description does not allow, where the seed's checks read the value leniently:
# the sample validation finds the address "not verifiable", fuzzing rarely reaches an
# existing address; only the schema of every answer shows it.
HUISNUMMER_AS_STRING = fault(
    "address.huisnummer_as_string",
    'every huisnummer in response bodies is a JSON string ("20") instead of the described integer',
    shows="huisnummer", blocks=("without an integer huisnummer",),  # the sample address every query is built from
)
