"""The outcome model: the outcomes a test case of a check ends in, their ranking, and the groups
the verdict and the coverage read (summary.py, coverage.py, matrix, diff and console read it
from here).

* passed -- the check judged its rule and the server conforms;
* failed -- a Finding: the server does not conform;
* blocked -- a precondition failed (the flow the check starts from, its sample, the control
  request of a negative case): the check could not judge its rule;
* error -- the check broke with something other than a finding (a harness problem);
* not_applicable -- the rule does not apply here (with why);
* not_judged -- the rule applies, but the run could not judge it: it lacked material the
  profile can give (a key, a user, a clock hook, a WSDL, a sample), its request budget,
  quota or wait budget ran out, or a safety switch forbade it (with which, and how to
  provide it);
* skipped -- the check needs control of the local mock, or a service the profile lacks;
* observation -- a measured value the spec leaves open (never a failure, whatever it saw);
* waived -- failed, but a waiver of the run accepts the deviation until its date
  (conformance/reporting/waivers.py): no failure for the exit code, reported with its reason.
"""

from __future__ import annotations

OUTCOMES = ("passed", "failed", "blocked", "error", "not_applicable", "not_judged", "skipped", "observation", "waived")
# Which outcome a check with several reports (subtests, parameters) keeps: the worst. A
# check with a case not judged (a budget spent mid-check) was not judged whole.
RANK = {"not run": -1, "skipped": 0, "not_applicable": 1, "passed": 2, "observation": 3, "not_judged": 4,
        "blocked": 5, "waived": 5.5, "failed": 6, "error": 7}
# Outcomes of a check that could not judge its rule because of the server, or broke.
BLOCKED_OR_BROKEN = ("blocked", "error")
# Outcomes of a check that executed: it sent its requests (or read recorded traffic).
EXECUTED = ("passed", "failed", "blocked", "error", "observation", "waived")
BAD = ("failed", "error")
