"""The address API as the suites see it: a recorded client plus keys, samples and header names."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence

import httpx

from conformance.errors import NotApplicable
from conformance.http.client import ApiClient, Pacer, Recorder
from conformance.http.exchange import Exchange, from_schemathesis
from conformance.http.redaction import Redactor
from conformance.profiles import AddressService, Limits

KEY_KINDS = ("valid", "restricted", "limited", "quota", "none", "invalid")
_KEY_SECRET = {"valid": "api_key", "restricted": "restricted_api_key", "limited": "limited_api_key", "quota": "quota_api_key"}


class AddressApi:
    def __init__(
        self,
        service: AddressService,
        *,
        base_url: str,
        keys: Mapping[str, str],
        samples: Mapping[str, str],
        limits: Limits,
        redactor: Redactor,
        recorder: Recorder,
        budget_share: int = 1,
    ) -> None:
        self.service = service
        self.base_url = base_url.rstrip("/")
        self.samples = dict(samples)
        self._keys = dict(keys)  # secret name -> value
        self._invalid_key = "invalid-" + secrets.token_hex(12)
        redactor.add_secret(self._invalid_key)
        redactor.add_header(service.api_key_header)
        self._pacer = Pacer(limits.requests_per_second, limits.request_budget // max(budget_share, 1))
        self._reserve = limits.daily_quota_reserve
        self._client = ApiClient(
            self.base_url,
            redactor=redactor,
            recorder=recorder,
            pacer=self._pacer,
            timeout_s=service.timeout_s,
            default_headers={"Accept": "application/hal+json"},
            on_response=self._guard_quota,
        )

    def close(self) -> None:
        self._client.close()

    def header(self, seed_name: str) -> str:
        return self.service.header(seed_name)

    def sample(self, name: str) -> str:
        value = self.samples.get(name)
        if not value:
            raise NotApplicable(f"the profile names no sample {name!r} ([services.address.samples])")
        return value

    def has_key(self, kind: str) -> bool:
        return kind in ("none", "invalid") or bool(self._keys.get(_KEY_SECRET[kind]))

    def get(
        self,
        path: str,
        params: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        key: str = "valid",
    ) -> Exchange:
        return self.request("GET", path, params=params, headers=headers, key=key)

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        key: str = "valid",
    ) -> Exchange:
        """Any method: the read-only rule is checked by sending the others."""
        if key not in KEY_KINDS:
            raise ValueError(f"unknown key kind {key!r}")
        merged = dict(headers or {})
        header = self.service.api_key_header
        omit: list[str] = []
        if key == "none":
            omit.append(header)
        elif key == "invalid":
            merged[header] = self._invalid_key
        else:
            value = self._keys.get(_KEY_SECRET[key])
            if not value:
                raise NotApplicable(f"the profile provides no {_KEY_SECRET[key]} (services.address.secrets)")
            merged[header] = value
        return self._client.request(method, path, params=params, headers=merged, omit_headers=omit)

    def auth_headers(self) -> dict[str, str]:
        """The valid key's header, for generated requests (schemathesis sends it itself)."""
        value = self._keys.get("api_key")
        if not value:
            raise NotApplicable("the profile provides no api_key")
        return {self.service.api_key_header: value}

    def record_schemathesis(self, response: object) -> Exchange:
        """Record (redacted) a response that schemathesis's transport fetched."""
        self._pacer.acquire()
        return self._client.record(from_schemathesis(response))

    def _guard_quota(self, response: httpx.Response) -> None:
        if not self._reserve:
            return
        remaining = response.headers.get(self.header("Registry-RateLimit-DayLimit-Remaining"))
        if remaining and remaining.strip().isdigit() and int(remaining) <= self._reserve:
            self._pacer.quota_stop = (
                f"daily quota reserve reached: {remaining} requests left, reserve is {self._reserve}"
            )
