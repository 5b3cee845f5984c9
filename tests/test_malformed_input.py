"""Malformed input is exit 2 naming where it is, never a traceback (issue 50, item 7c): an EC,
Ed25519 or encrypted client-credentials key (conformance/auth/targets.py), a HAR entry whose
status, time or URL is no such thing (conformance/passive/har.py: `"status": 1e400` is inf
to Python's json), and a URL urlsplit cannot read (`http://[::1/x`) in a profile
(conformance/profiles.py) or a command's option (conformance/urls.py). Each of these ended
in a traceback and exit 4 (or 1) before."""

from __future__ import annotations

import http.server
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import forked_cli
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from test_hostile_input import entry, har_file, traffic

from conformance.auth.targets import build_targets
from conformance.errors import ConfigError
from conformance.passive.har import read_har
from conformance.paths import CHECKOUT
from conformance.profiles import load_profile


def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    proc = forked_cli.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=CHECKOUT, env={**os.environ, **(env or {})})
    return proc.returncode, proc.stdout + proc.stderr


# --------------------------------------------------------------------------- private keys
def pem(key: Any, password: bytes | None = None) -> bytes:
    encryption = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


KEYS = {
    "ec": (lambda: pem(ec.generate_private_key(ec.SECP256R1())), "is not an RSA key (an EC key; the seed's "
                                                                  "assertion is RS256)"),
    "ed25519": (lambda: pem(ed25519.Ed25519PrivateKey.generate()), "is not an RSA key (an Ed25519 key; the "
                                                                   "seed's assertion is RS256)"),
    "encrypted": (lambda: pem(rsa.generate_private_key(public_exponent=65537, key_size=2048), b"pass"),
                  "is encrypted; give an unencrypted PEM"),
    "no key": (lambda: b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "is not a PEM private key"),
}


def auth_profile(tmp_path: Path, auth_url: str, keys: str) -> Path:
    path = tmp_path / "vendor.toml"
    path.write_text(f'[profile]\nname = "vendor"\ndescription = "d"\n[services.auth]\nmock = false\n'
                    f'auth_url = "{auth_url}"\ninquiry_base = "{auth_url}/inquiry"\n'
                    f'[services.auth.clients]\nclient_credentials = "cc"\n{keys}', encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", KEYS)
def test_a_key_that_cannot_sign_rs256_is_exit_2_naming_where_it_is(tmp_path: Path, kind: str) -> None:
    make, said = KEYS[kind]
    key_file = tmp_path / "client.key.pem"
    key_file.write_bytes(make())
    profile = load_profile(str(auth_profile(tmp_path, "https://auth.example",
                                            '[services.auth.keys]\nprivate_key_file = "client.key.pem"\nkid = "k1"\n')))
    with pytest.raises(ConfigError) as info:
        build_targets(profile.auth, info={}, secrets={}, clock=None)
    assert str(info.value) == (f"the client-credentials private key, services.auth.keys.private_key_file "
                               f"({key_file}), {said}")
    # The same key in the variable the profile names: the message names it, and holds no PEM.
    profile = load_profile(str(auth_profile(
        tmp_path, "https://auth.example",
        '[services.auth.secrets]\nprivate_key = "CLIENT_KEY"\n[services.auth.keys]\nkid = "k1"\n')))
    with pytest.raises(ConfigError) as info:
        build_targets(profile.auth, info={}, secrets={"CLIENT_KEY": make().decode()}, clock=None)
    assert str(info.value) == ("the client-credentials private key, services.auth.secrets.private_key (the "
                               f"variable CLIENT_KEY), {said}")


@pytest.fixture
def answering() -> Iterator[str]:
    """A loopback server that answers every request 404: the run reaches the key."""
    class NotFound(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self.send_error(404)

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_ec_key_through_the_command_is_exit_2_not_4(tmp_path: Path, answering: str) -> None:
    (tmp_path / "client.key.pem").write_bytes(KEYS["ec"][0]())
    path = auth_profile(tmp_path, answering, '[services.auth.keys]\nprivate_key_file = "client.key.pem"\nkid = "k1"\n')
    code, out = cli("run", "--profile", str(path), "--suite", "auth", "--no-html", "--report-dir", str(tmp_path / "r"))
    assert code == 2, out[-3000:]
    assert "services.auth.keys.private_key_file" in out and "is not an RSA key (an EC key" in out
    assert "Traceback" not in out and "INTERNALERROR" not in out


# --------------------------------------------------------------------------- HAR entries
GOOD = entry("GET", "http://127.0.0.1:1/adressen?postcode=1234AB&huisnummer=1", 200, "application/json", "{}")


@pytest.mark.parametrize("change, said", [
    ({"response": {"status": 1e400}}, "response.status inf is not an HTTP status (a three-digit integer, or 0: "
                                      "no answer)"),
    ({"response": {"status": 200.5}}, "response.status 200.5 is not an HTTP status"),
    ({"response": {"status": 1000}}, "response.status 1000 is not an HTTP status"),
    ({"response": {"status": True}}, "response.status True is not an HTTP status"),
    ({"response": {"status": "200"}}, "response.status '200' is not an HTTP status"),
    ({"response": {"status": 10 ** 100}}, f"response.status 1{'0' * 36}... is not an HTTP status"),
    ({"time": 1e400}, "time inf is not a number of milliseconds (finite, 0 or more)"),
    ({"time": -3}, "time -3 is not a number of milliseconds"),
    ({"time": "12"}, "time '12' is not a number of milliseconds"),
    ({"request": {"url": "http://[::1/x?api_key=SECRET-IN-URL"}}, "request.url is not a URL (Invalid IPv6 URL)"),
    ({"request": {"url": "http://h:99999/"}}, "request.url is not a URL (Port out of range 0-65535)"),
], ids=["status-1e400", "status-fraction", "status-1000", "status-true", "status-string", "status-huge",
        "time-1e400", "time-negative", "time-string", "url-ipv6", "url-port"])
def test_a_member_that_is_no_such_thing_names_the_file_and_entry(tmp_path: Path, change: dict[str, Any],
                                                                 said: str) -> None:
    broken = json.loads(json.dumps(GOOD))
    for part, members in change.items():
        if isinstance(members, dict):
            broken[part].update(members)
        else:
            broken[part] = members
    # Written as Python's json writes it: 1e400 (inf) as the literal Infinity would be refused
    # as a constant already; a capture says 1e400.
    har = tmp_path / "broken.har"
    har.write_text(json.dumps({"log": {"entries": [GOOD, broken]}}).replace("Infinity", "1e400"), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        read_har(har)
    assert str(info.value).startswith(f"{har}: log.entries[1] is not a HAR entry (ValueError: {said}")
    assert "SECRET-IN-URL" not in str(info.value)


def test_status_0_is_no_answer_and_is_read(tmp_path: Path) -> None:
    """A browser's aborted request, and the harness's own record of a request it cut short."""
    aborted = json.loads(json.dumps(GOOD))
    aborted["response"]["status"], aborted["time"] = 0, 0.5
    (exchange,) = read_har(har_file(tmp_path / "aborted.har", [aborted]))
    assert (exchange.status, exchange.elapsed_ms) == (0, 0.5)


@pytest.mark.parametrize("url, status", [("http://[::1/x", 200), ("http://127.0.0.1:1/adressen", "1e400")])
def test_conformance_traffic_is_exit_2_not_a_traceback(tmp_path: Path, url: str, status: str | int) -> None:
    har = tmp_path / "capture.har"
    har.write_text(json.dumps({"log": {"entries": [entry("GET", url, 200, "application/json", "{}")]}})
                   .replace('"status": 200', f'"status": {status}'), encoding="utf-8")
    code, out, summary = traffic(har, tmp_path / "report")
    assert code == 2 and f"{har}: log.entries[0] is not a HAR entry" in out, out[-3000:]
    assert "Traceback" not in out and "INTERNALERROR" not in out and not summary


# --------------------------------------------------------------------------- URLs
@pytest.mark.parametrize("url, said", [
    ("http://[::1/x", "Invalid IPv6 URL"),
    ("https://vendor.example:port/v2", "Port could not be cast to integer value as 'port'"),
    ("https://vendor.example:70000/v2", "Port out of range 0-65535"),
    ("https:///v2", "no host"),
])
def test_a_profile_url_that_does_not_parse_is_exit_2_naming_its_key(tmp_path: Path, url: str, said: str) -> None:
    path = tmp_path / "vendor.toml"
    path.write_text('[profile]\nname = "vendor"\ndescription = "d"\n[services.address]\nmock = false\n'
                    f'base_url = "https://vendor.example/v2"\nmaintenance_url = "{url}"\n'
                    '[services.address.secrets]\napi_key = "VENDOR_KEY"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_profile(str(path))
    assert str(info.value) == f"{path}: key services.address.maintenance_url = {url!r} is not a URL ({said})"
    if url == "http://[::1/x":  # through the command once: a traceback from httpx before
        code, out = cli("run", "--profile", str(path), "--suite", "address", "--no-html", "--report-dir",
                        str(tmp_path / "r"), env={"VENDOR_KEY": "k" * 32})
        assert code == 2 and "key services.address.maintenance_url = 'http://[::1/x' is not a URL" in out, out[-3000:]
        assert "Traceback" not in out


@pytest.mark.parametrize("args, said", [
    (["soap", "wsdl", "--url", "http://[::1/x"], "--url http://[::1/x: not a usable URL (Invalid IPv6 URL)"),
    (["soap", "wsdl", "--url", "https://op:pw-canary@soap.example/x"],
     "--url https://soap.example/x: not a usable URL (a user name or password before its host)"),
    (["pki", "init", "--crl-base", "http://crl.example:x/"],
     "--crl-base http://crl.example:x/: not a usable URL (Port could not be cast to integer value as 'x')"),
], ids=["wsdl-ipv6", "wsdl-userinfo", "crl-port"])
def test_a_command_s_url_option_is_exit_2_naming_it(tmp_path: Path, args: list[str], said: str) -> None:
    code, out = cli(*args, "--out", str(tmp_path / "out"))
    assert code == 2 and said in out and "pw-canary" not in out, out[-2000:]
    assert not (tmp_path / "out").exists()
