"""Where requests may go (conformance/http/origins.py): a service's credentials only below its
base URLs, never over plain http to another host without consent, only to a server the run
trusts (its CA file, its pinned keys). Each refusal happens before a byte is sent: the other
origin's listener counts its requests."""

from __future__ import annotations

import http.server
import json
import ssl
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import forked_cli
import pytest

from conformance.auth import login
from conformance.auth.login import LoginError
from conformance.checks.address import general as g
from conformance.checks.address import hal
from conformance.errors import ConfigError
from conformance.findings import Finding
from conformance.http import origins
from conformance.http.client import ApiClient, Recorder, probe
from conformance.http.limits import UntrustedServer, spki_pin
from conformance.http.origins import Base, OutsideBase
from conformance.http.redaction import Redactor
from conformance.mocks.soap.tls import ensure_test_tls
from conformance.paths import CHECKOUT
from conformance.profiles import Trust, load_profile

KEY = "origin-test-key-0123456789"


class Listener:
    """A loopback HTTP(S) server that counts the requests it gets and answers each with a
    HAL page whose `next` link is `next_href` (when given)."""

    def __init__(self, *, next_href: str | None = None, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[tuple[str, str | None]] = []
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the standard library's name
                listener.requests.append((self.path, self.headers.get("X-Api-Key")))
                links = {"self": {"href": listener.url + self.path}}
                if next_href:
                    links["next"] = {"href": next_href}
                body = json.dumps({"_links": links, "_embedded": {"adressen": []}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/hal+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                return None

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def other_origin() -> Iterator[Listener]:
    with Listener() as listener:
        yield listener


def _client(base_url: str, **kwargs) -> ApiClient:
    redactor = Redactor([KEY])
    return ApiClient(base_url, redactor=redactor, recorder=Recorder(), default_headers={"X-Api-Key": KEY}, **kwargs)


def test_a_base_holds_its_own_paths_and_nothing_else() -> None:
    base = Base.of("https://api.example/lvbag/v2")
    assert base.holds("https://api.example/lvbag/v2/adressen?page=2")
    assert base.holds("https://API.example:443/lvbag/v2")
    assert not base.holds("http://api.example/lvbag/v2/adressen")  # another scheme
    assert not base.holds("https://api.example:8443/lvbag/v2/adressen")  # another port
    assert not base.holds("https://api.example.evil/lvbag/v2/adressen")  # another host
    assert not base.holds("https://api.example/lvbag/v2x/adressen")  # a sibling path
    assert not base.holds("https://api.example/lvbag/v2/../admin")  # dot segments resolved
    assert not base.holds("https://api.example/lvbag/v2/%2e%2e/admin")  # encoded ones too
    assert not base.holds("https://api.example:notaport/lvbag/v2")


def test_a_link_to_another_origin_is_a_finding_and_is_not_followed(other_origin: Listener) -> None:
    with Listener(next_href=other_origin.url + "/lvbag/v2/adressen?page=2") as server:
        client = _client(server.url + "/lvbag/v2")
        first = client.get("/adressen")
        with pytest.raises(Finding, match="1 link\\(s\\) point outside the base URL"):
            hal.links_within_base(first, client.base_url)
        with pytest.raises(OutsideBase, match="not requested"):
            g.follow_next(client, first)
        client.close()
    assert [key for _path, key in server.requests] == [KEY]
    assert other_origin.requests == []  # the other origin received nothing, no key


def test_a_link_outside_the_base_path_on_the_same_host_is_not_followed() -> None:
    with Listener() as server:
        client = _client(server.url + "/lvbag/v2")
        with pytest.raises(OutsideBase):
            client.get(server.url + "/admin/keys")
        client.close()
        assert server.requests == []


def test_plain_http_to_another_host_carries_no_credential_unless_allowed() -> None:
    refused = _client("http://192.0.2.10/lvbag/v2", trust=Trust("services.address"))
    with pytest.raises(ConfigError, match="services.address.allow_plain_http"):
        refused.get("/adressen")  # refused before it connects: nothing leaves this machine
    assert refused._pacer.sent == 0
    refused.close()
    # Loopback is this machine: no network is crossed.
    with Listener() as server:
        client = _client(server.url + "/v2")
        assert client.get("/adressen").status == 200
        client.close()


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("[::1]", True),
    # Names are what a resolver makes of them (/etc/hosts, a search domain, DNS): the network,
    # maybe (issue 50, 7b). Only a literal loopback address is certainly this machine.
    ("localhost", False), ("LOCALHOST", False), ("api.localhost", False), ("localhost.", False),
    ("128.0.0.1", False), ("0.0.0.0", False), ("192.0.2.10", False),
])
def test_only_a_literal_loopback_address_is_loopback(host: str, loopback: bool) -> None:
    assert origins.is_loopback(host) is loopback
    url = f"http://{host if ':' not in host or host.startswith('[') else f'[{host}]'}:8080/v2"
    assert origins.exposed_by_plain_http(url) is not loopback
    if not loopback:  # the login drivers ask the same function before a password goes
        with pytest.raises(LoginError, match="refusing to send the password over plain http"):
            login._refuse_plain_http(url + "/login")
    else:
        login._refuse_plain_http(url + "/login")


def test_a_profile_with_plain_http_to_localhost_needs_the_consent(tmp_path: Path) -> None:
    from conformance.run_setup import plain_http_consent

    path = _profile(tmp_path)
    path.write_text(path.read_text().replace("192.0.2.10", "registry.localhost:8080"), encoding="utf-8")
    with pytest.raises(ConfigError, match="services.address.allow_plain_http = true"):
        plain_http_consent(load_profile(str(path)))


def _profile(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "plain.toml"
    path.write_text(
        '[profile]\nname = "plain"\ndescription = "a vendor over plain http"\n'
        '[services.address]\nmock = false\nbase_url = "http://192.0.2.10/lvbag/individuelebevragingen/v2"\n'
        f'{extra}[services.address.secrets]\napi_key = "PLAIN_TEST_KEY"\n', encoding="utf-8")
    return path


def test_a_profile_with_plain_http_to_another_host_is_refused_before_any_request(tmp_path: Path) -> None:
    from conformance.run_setup import plain_http_consent

    with pytest.raises(ConfigError, match="services.address.allow_plain_http = true"):
        plain_http_consent(load_profile(str(_profile(tmp_path))))
    allowed = load_profile(str(_profile(tmp_path, "allow_plain_http = true\n")))
    assert plain_http_consent(allowed) == [
        "address API at http://192.0.2.10/lvbag/individuelebevragingen/v2 (services.address.allow_plain_http = true)"]
    proc = forked_cli.run(
        [sys.executable, "-m", "conformance.cli", "run", "--profile", str(_profile(tmp_path)), "--report-dir",
         str(tmp_path / "report")], capture_output=True, text=True, timeout=120, cwd=CHECKOUT,
        env={"PATH": "/usr/bin:/bin", "PLAIN_TEST_KEY": KEY, "HOME": str(tmp_path)})
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "allow_plain_http" in proc.stdout + proc.stderr and KEY not in proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def private_ca(tmp_path_factory: pytest.TempPathFactory):
    files = ensure_test_tls(tmp_path_factory.mktemp("tls"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(files.server_cert, files.server_key)
    return files, context


def test_a_private_ca_service_is_reached_with_its_ca_file_and_refused_without(private_ca) -> None:
    files, context = private_ca
    with Listener(tls=context) as server:
        with pytest.raises(UntrustedServer, match="services.address.ca_file"):
            probe(server.url + "/v2", trust=Trust("services.address"))
        refused = _client(server.url + "/v2", trust=Trust("services.address"))
        with pytest.raises(UntrustedServer):
            refused.get("/adressen")
        refused.close()
        assert server.requests == []  # the handshake failed: no request, no key
        trusted = Trust("services.address", ca_file=str(files.ca_file))
        probe(server.url + "/v2", trust=trusted)
        client = _client(server.url + "/v2", trust=trusted)
        assert client.get("/adressen").status == 200
        client.close()
        assert server.requests[-1] == ("/v2/adressen", KEY)


def test_a_pinned_key_must_match_before_anything_is_sent(private_ca) -> None:
    files, context = private_ca
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    der = x509.load_pem_x509_certificate(files.server_cert.read_bytes()).public_bytes(Encoding.DER)
    right, wrong = spki_pin(der), "sha256//" + "A" * 43 + "="
    with Listener(tls=context) as server:
        pinned = _client(server.url + "/v2", trust=Trust("services.address", ca_file=str(files.ca_file), pins=(wrong,)))
        with pytest.raises(UntrustedServer, match="services.address.pinned_keys"):
            pinned.get("/adressen")
        pinned.close()
        assert server.requests == []  # the key did not match: the request was never written
        good = _client(server.url + "/v2", trust=Trust("services.address", ca_file=str(files.ca_file), pins=(right,)))
        assert good.get("/adressen").status == 200
        good.close()
