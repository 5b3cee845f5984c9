"""The test PKI (conformance.auth.pki), its JWKs (conformance.auth.rfc7517) and the
`conformance pki` commands: the good material passes the checks of seed 001 part 4 and
each piece of bad material fails exactly the one check it is made for."""

from __future__ import annotations

import base64
import json
import shutil
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import Encoding
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

from conformance.auth import pki as pki_module
from conformance.auth import pki_cli, rfc7517
from conformance.auth.pki import (
    OIN_REGISTERED,
    OIN_SECOND_CUSTOMER,
    OIN_TWICE,
    OIN_UNREGISTERED,
    PRIVATE_PERSONS_POLICY,
    PRIVATE_SERVICES_POLICY,
    TestPki,
    policies_of,
)
from conformance.cli import main
from conformance.errors import ConfigError

# Leaves that chain to the root through the Private Services CAs and are valid now.
GOOD_LEAVES = ("current", "next", "no_oin", "unregistered_oin", "twice_oin", "revoked", "oin_elsewhere",
               "customer_a", "customer_b")
DOCUMENT_NAMES = {"good", "current_only", "no_x5c", "untrusted", "expired", "no_oin", "mismatch",
                  "unregistered_oin", "twice_oin", "not_yet_valid", "revoked", "other_branch", "oin_elsewhere",
                  "two_customers"}


@pytest.fixture(scope="session")
def pki_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("pki")
    pki_module.init_test_pki(directory)
    return directory


@pytest.fixture(scope="session")
def pki(pki_dir: Path) -> TestPki:
    return pki_module.load_test_pki(pki_dir)


def verifier(root: x509.Certificate, at: datetime | None = None):
    return PolicyBuilder().store(Store([root])).time(at or datetime.now(UTC)).build_client_verifier()


def oin_of(cert: x509.Certificate) -> str | None:
    values = cert.subject.get_attributes_for_oid(NameOID.SERIAL_NUMBER)
    return str(values[0].value) if values else None


def private_pem_lines(directory: Path) -> set[str]:
    lines = set()
    for path in directory.glob("*.key.pem"):
        lines |= {line for line in path.read_text().splitlines() if line and not line.startswith("-----")}
    return lines


# --------------------------------------------------------------------------- the hierarchy
@pytest.mark.parametrize("name", GOOD_LEAVES)
def test_good_leaves_chain_to_the_root(pki: TestPki, name: str) -> None:
    leaf = pki.certificates[name]
    verified = verifier(pki.root).verify(leaf, pki.intermediates)
    assert verified.chain[0] == leaf
    assert verified.chain[-1] == pki.root
    assert len(verified.chain) == 4  # leaf, TSP CA, domain CA, root: the Private Services levels


def test_hierarchy_names_and_ca_extensions(pki: TestPki) -> None:
    tsp, domain = pki.intermediates
    assert pki.root.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == (
        "Test Staat der Nederlanden Private Root CA - G1")
    assert domain.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == (
        "Test Staat der Nederlanden Private Services CA - G1")
    assert pki.root.issuer == pki.root.subject
    pki.root.verify_directly_issued_by(pki.root)
    domain.verify_directly_issued_by(pki.root)
    tsp.verify_directly_issued_by(domain)
    for cert, path_length in ((pki.root, None), (domain, 1), (tsp, 0)):
        constraints = cert.extensions.get_extension_for_class(x509.BasicConstraints)
        assert constraints.critical and constraints.value.ca
        assert constraints.value.path_length == path_length
        usage = cert.extensions.get_extension_for_class(x509.KeyUsage)
        assert usage.critical and usage.value.key_cert_sign and usage.value.crl_sign
        assert not usage.value.digital_signature


@pytest.mark.parametrize("name", pki_module.LEAF_NAMES)
def test_leaf_profile(pki: TestPki, name: str) -> None:
    leaf = pki.certificates[name]
    assert leaf.subject.get_attributes_for_oid(NameOID.COUNTRY_NAME)[0].value == "NL"
    assert leaf.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)
    assert leaf.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    assert not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    usage = leaf.extensions.get_extension_for_class(x509.KeyUsage)
    assert usage.critical and usage.value.digital_signature and not usage.value.key_cert_sign
    assert list(leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        ExtendedKeyUsageOID.CLIENT_AUTH]
    assert leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName)
    assert leaf.public_key() == pki.keys[name].public_key()
    assert pki.keys[name].key_size == 2048


def test_oins_in_subject_serial_number(pki: TestPki) -> None:
    assert pki.oin == OIN_REGISTERED
    for name in ("current", "next", "expired", "untrusted", "not_yet_valid", "revoked", "other_branch", "customer_a"):
        assert oin_of(pki.certificates[name]) == OIN_REGISTERED, name
    assert oin_of(pki.certificates["no_oin"]) is None
    assert oin_of(pki.certificates["unregistered_oin"]) == OIN_UNREGISTERED == "00000099000000009000"
    assert oin_of(pki.certificates["twice_oin"]) == OIN_TWICE == "00000099000000002000"
    assert oin_of(pki.certificates["customer_b"]) == OIN_SECOND_CUSTOMER == "00000099000000004000"


def test_oin_elsewhere_has_the_registered_oin_in_organization_identifier_only(pki: TestPki) -> None:
    subject = pki.certificates["oin_elsewhere"].subject
    assert subject.get_attributes_for_oid(NameOID.SERIAL_NUMBER) == []
    assert [a.value for a in subject.get_attributes_for_oid(NameOID.ORGANIZATION_IDENTIFIER)] == [OIN_REGISTERED]
    # nothing else differs from a good leaf's subject (country, organisation, common name)
    good = pki.certificates["current"].subject
    for oid in (NameOID.COUNTRY_NAME, NameOID.ORGANIZATION_NAME):
        assert subject.get_attributes_for_oid(oid) == good.get_attributes_for_oid(oid)


def test_not_yet_valid_leaf_fails_only_on_its_dates(pki: TestPki) -> None:
    leaf = pki.certificates["not_yet_valid"]
    now = datetime.now(UTC)
    assert leaf.not_valid_before_utc > now + pki_module.MIN_REMAINING  # stays in the future while reused
    with pytest.raises(VerificationError, match="not valid"):
        verifier(pki.root).verify(leaf, pki.intermediates)
    inside = leaf.not_valid_before_utc + timedelta(days=1)
    verifier(pki.root, inside).verify(leaf, pki.intermediates)


def test_revoked_leaf_is_on_its_issuers_crl_at_its_distribution_point(pki: TestPki) -> None:
    tsp = pki.intermediates[0]
    crl = pki.crls["tsp_ca"]
    assert crl.issuer == tsp.subject and crl.is_signature_valid(tsp.public_key())
    assert crl.next_update_utc > datetime.now(UTC) + pki_module.MIN_REMAINING
    revoked = {entry.serial_number for entry in crl}
    assert revoked == {pki.certificates["revoked"].serial_number}
    for name in ("current", "next", "revoked", "customer_b"):  # the leaf says where the CRL is
        points = pki.certificates[name].extensions.get_extension_for_class(x509.CRLDistributionPoints).value
        assert [n.value for p in points for n in p.full_name] == ["http://127.0.0.1:8765/crl/tsp-ca.crl"]
    other = pki.crls["other_tsp_ca"]
    assert other.issuer == pki.other_intermediates[0].subject and list(other) == []
    assert pki.crl_url("tsp_ca") == pki_module.DEFAULT_CRL_BASE + "/tsp-ca.crl"
    assert pki_module.DEFAULT_CRL_BASE == pki_cli.DEFAULT_CRL_BASE
    assert x509.load_der_x509_crl(pki.crl_der("tsp-ca.crl")) == crl
    assert pki.crl_der("root.crl") is None


def test_other_branch_chains_to_the_root_through_another_domain(pki: TestPki) -> None:
    leaf = pki.certificates["other_branch"]
    verified = verifier(pki.root).verify(leaf, pki.other_intermediates)
    assert verified.chain[-1] == pki.root and len(verified.chain) == 4
    tsp, domain = pki.other_intermediates
    assert domain.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == (
        "Test Staat der Nederlanden Private Personen CA - G1")
    domain.verify_directly_issued_by(pki.root)
    assert domain != pki.intermediates[1]
    assert {policies_of(c) for c in (leaf, tsp, domain)} == {frozenset({PRIVATE_PERSONS_POLICY})}
    assert pki.chain("other_branch") == [leaf, tsp, domain]


@pytest.mark.parametrize("name", GOOD_LEAVES)
def test_private_services_leaves_and_cas_assert_the_branch_policy(pki: TestPki, name: str) -> None:
    for cert in (pki.certificates[name], *pki.intermediates):
        assert policies_of(cert) == {PRIVATE_SERVICES_POLICY}
    assert policies_of(pki.root) == frozenset()
    assert PRIVATE_SERVICES_POLICY.startswith("2.999.")  # the example arc: never a real PKIoverheid policy


def test_two_customers_document_holds_two_end_customers_keys(pki: TestPki) -> None:
    keys = pki.jwks_documents()["two_customers"]["keys"]
    assert [k["kid"] for k in keys] == [pki.kid("customer_a"), pki.kid("customer_b")]
    oins = [oin_of(rfc7517.chain_from_jwk(k)[0]) for k in keys]
    assert oins == [OIN_REGISTERED, OIN_SECOND_CUSTOMER]
    assert pki.signing_material("two_customers")[1] == pki.kid("customer_a")
    assert pki.signing_material("customer_b")[1] == pki.kid("customer_b")


def test_expired_leaf_fails_only_on_its_dates(pki: TestPki) -> None:
    leaf = pki.certificates["expired"]
    now = datetime.now(UTC)
    assert leaf.not_valid_after_utc < now
    leaf.verify_directly_issued_by(pki.intermediates[0])
    with pytest.raises(VerificationError, match="not valid"):
        verifier(pki.root).verify(leaf, pki.intermediates)
    inside = leaf.not_valid_before_utc + (leaf.not_valid_after_utc - leaf.not_valid_before_utc) / 2
    verifier(pki.root, inside).verify(leaf, pki.intermediates)


def test_untrusted_leaf_chains_to_the_foreign_root_only(pki: TestPki) -> None:
    leaf = pki.certificates["untrusted"]
    with pytest.raises(VerificationError):
        verifier(pki.root).verify(leaf, pki.intermediates)
    with pytest.raises(VerificationError):  # even with its own root offered as an intermediate
        verifier(pki.root).verify(leaf, [pki.foreign_root, *pki.intermediates])
    assert pki.foreign_root.subject != pki.root.subject
    assert verifier(pki.foreign_root).verify(leaf, []).chain[-1] == pki.foreign_root


def test_good_certificates_stay_valid_a_while(pki: TestPki) -> None:
    soon = datetime.now(UTC) + timedelta(days=300)
    for name in ("current", "next", "customer_a", "customer_b"):
        verifier(pki.root, soon).verify(pki.certificates[name], pki.intermediates)


# --------------------------------------------------------------------------- JWKS documents
def test_document_names(pki: TestPki) -> None:
    assert set(pki.jwks_documents()) == DOCUMENT_NAMES


def test_every_jwk_has_the_seed_members(pki: TestPki) -> None:
    for name, document in pki.jwks_documents().items():
        assert set(document) == {"keys"}, name
        for jwk in document["keys"]:
            assert jwk["alg"] == "RS256" and jwk["kty"] == "RSA" and jwk["use"] == "sig", name
            assert jwk["e"] == "AQAB"
            assert "=" not in jwk["n"] and "=" not in jwk["kid"]
            assert base64.urlsafe_b64decode(jwk["n"] + "==")[0] != 0  # unsigned, minimal octets
            assert ("x5c" in jwk) is (name != "no_x5c"), name


def test_x5c_is_standard_base64_der_matching_n_and_e(pki: TestPki) -> None:
    for name, document in pki.jwks_documents().items():
        for jwk in document["keys"]:
            if "x5c" not in jwk:
                continue
            chain = [x509.load_der_x509_certificate(base64.b64decode(e, validate=True)) for e in jwk["x5c"]]
            assert chain == rfc7517.chain_from_jwk(jwk)
            for child, parent in zip(chain, chain[1:], strict=False):
                child.verify_directly_issued_by(parent)  # each next one certifies the previous
            matches = chain[0].public_key() == rfc7517.public_key_from_jwk(jwk)
            assert matches is (name != "mismatch"), name


def test_good_document_holds_current_and_next(pki: TestPki) -> None:
    documents = pki.jwks_documents()
    kids = [jwk["kid"] for jwk in documents["good"]["keys"]]
    assert kids == [pki.kid("current"), pki.kid("next")]
    assert kids[0] != kids[1]
    assert [jwk["kid"] for jwk in documents["current_only"]["keys"]] == [pki.kid("current")]
    assert documents["no_x5c"]["keys"][0]["n"] == documents["good"]["keys"][0]["n"]
    chain = rfc7517.chain_from_jwk(documents["good"]["keys"][1])
    assert chain == [pki.certificates["next"], *pki.intermediates]


def test_mismatch_pairs_its_own_key_with_the_current_certificate(pki: TestPki) -> None:
    jwk = pki.jwks_documents()["mismatch"]["keys"][0]
    assert rfc7517.chain_from_jwk(jwk)[0] == pki.certificates["current"]
    assert rfc7517.public_key_from_jwk(jwk) == pki.keys["mismatch"].public_key()
    assert jwk["kid"] not in {pki.kid("current"), pki.kid("next")}


def test_kids_are_distinct_except_where_the_case_needs_the_current_key(pki: TestPki) -> None:
    kid_of = {name: doc["keys"][0]["kid"] for name, doc in pki.jwks_documents().items()
              if name not in ("good", "two_customers")}
    kid_of["two_customers_second"] = pki.jwks_documents()["two_customers"]["keys"][1]["kid"]
    kid_of["two_customers"] = pki.jwks_documents()["two_customers"]["keys"][0]["kid"]
    shared = {name for name, kid in kid_of.items() if kid == pki.kid("current")}
    assert shared == {"current_only", "no_x5c"}
    others = [kid for name, kid in kid_of.items() if name not in shared]
    assert len(set(others)) == len(others)
    assert not set(others) & {pki.kid("current"), pki.kid("next")}


@pytest.mark.parametrize("name", sorted(DOCUMENT_NAMES | {"next", "current", "customer_a", "customer_b"}))
def test_signing_material_belongs_to_a_key_of_its_document(pki: TestPki, name: str) -> None:
    key, kid = pki.signing_material(name)
    owner = {"current": "good", "next": "good", "customer_a": "two_customers", "customer_b": "two_customers"}
    document = pki.jwks_documents()[owner.get(name, name)]
    jwk = next(j for j in document["keys"] if j["kid"] == kid)
    assert rfc7517.public_key_from_jwk(jwk) == key.public_key()


def test_signing_material_names(pki: TestPki) -> None:
    assert pki.signing_material("good")[1] == pki.kid("current")
    assert pki.signing_material("next")[1] == pki.kid("next")
    with pytest.raises(KeyError, match="no signing material"):
        pki.signing_material("root")


def test_documents_are_fresh_copies(pki: TestPki) -> None:
    first = pki.jwks_documents()
    first["good"]["keys"].clear()
    assert len(pki.jwks_documents()["good"]["keys"]) == 2


# --------------------------------------------------------------------------- rfc7517 details
def test_kid_is_the_rfc7638_thumbprint() -> None:
    # RFC 7638 section 3.1.
    n = ("0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3"
         "oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgd"
         "AZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur"
         "-kEgU8awapJzKnqDKgw")
    key = rfc7517.public_key_from_jwk({"kty": "RSA", "n": n, "e": "AQAB"})
    assert rfc7517.kid_for(key) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    assert rfc7517.jwk_from_public_key(key, "k", None)["n"] == n


def test_jwk_without_chain_has_no_x5c_and_jwks_wraps_keys(pki: TestPki) -> None:
    jwk = rfc7517.jwk_from_public_key(pki.keys["next"].public_key(), "k1", None)
    assert "x5c" not in jwk and jwk["kid"] == "k1"
    assert rfc7517.chain_from_jwk(jwk) == []
    assert rfc7517.jwks([jwk]) == {"keys": [jwk]}


def test_chain_from_jwk_refuses_base64url_entries(pki: TestPki) -> None:
    der = pki.certificates["current"].public_bytes(Encoding.DER)
    urlsafe = base64.urlsafe_b64encode(der).decode()
    assert urlsafe != base64.b64encode(der).decode()  # a 1 kB certificate has a + or / somewhere
    with pytest.raises(ValueError, match=r"x5c\[0\]"):
        rfc7517.chain_from_jwk({"x5c": [urlsafe]})


@pytest.mark.parametrize("jwk", [{"kty": "EC", "crv": "P-256"}, {"kty": "RSA", "n": "AQAB"}, {"kty": "RSA", "n": 5, "e": "AQAB"}])
def test_public_key_from_jwk_refuses_non_rsa_or_incomplete(jwk: dict) -> None:
    with pytest.raises(ValueError):
        rfc7517.public_key_from_jwk(jwk)


# --------------------------------------------------------------------------- files
def test_files_manifest_and_private_key_modes(pki: TestPki, pki_dir: Path) -> None:
    manifest = json.loads((pki_dir / "manifest.json").read_text())
    assert manifest["oin"] == OIN_REGISTERED
    assert manifest["keys"]["current"]["kid"] == pki.kid("current")
    key_files = sorted(pki_dir.glob("*.key.pem"))
    assert {p.name for p in key_files} == {f"{name}.key.pem" for name in pki_module.KEY_NAMES}
    for path in key_files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert json.loads((pki_dir / "jwks.json").read_text()) == pki.jwks_documents()["good"]
    assert "PRIVATE" not in (pki_dir / "jwks.json").read_text()


def test_load_round_trips(pki: TestPki, pki_dir: Path) -> None:
    again = pki_module.load_test_pki(pki_dir)
    assert again.root == pki.root and again.intermediates == pki.intermediates
    assert again.oin == pki.oin
    assert again.jwks_documents() == pki.jwks_documents()
    key, kid = again.signing_material("good")
    assert kid == pki.kid("current")
    assert key.private_numbers() == pki.keys["current"].private_numbers()


def test_load_names_what_is_missing(pki_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="manifest.json"):
        pki_module.load_test_pki(tmp_path / "absent")
    copy = tmp_path / "copy"
    shutil.copytree(pki_dir, copy)
    (copy / "next.key.pem").unlink()
    with pytest.raises(ConfigError, match="next.key.pem"):
        pki_module.load_test_pki(copy)
    shutil.copy(pki_dir / "next.key.pem", copy / "next.key.pem")
    (copy / "tsp-ca.pem").write_text("not a certificate")
    with pytest.raises(ConfigError, match="tsp-ca.pem"):
        pki_module.load_test_pki(copy)
    shutil.copy(pki_dir / "tsp-ca.pem", copy / "tsp-ca.pem")
    shutil.copy(pki_dir / "current.key.pem", copy / "next.key.pem")  # a key its certificate does not certify
    with pytest.raises(ConfigError, match="next.pem"):
        pki_module.load_test_pki(copy)
    (copy / "manifest.json").write_text("{")
    with pytest.raises(ConfigError, match="manifest.json"):
        pki_module.load_test_pki(copy)


def test_ensure_reuses_a_valid_pki(pki: TestPki, pki_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(pki_dir, copy)
    reused = pki_module.ensure_test_pki(copy)
    assert reused.root == pki.root
    assert reused.kid("current") == pki.kid("current")


def test_ensure_rebuilds_a_pki_about_to_expire_or_broken(tmp_path: Path) -> None:
    directory = tmp_path / "old"
    old = pki_module.init_test_pki(directory, now=datetime.now(UTC) - timedelta(days=360),
                                   crl_base="http://127.0.0.1:9100/crl")
    assert old.certificates["current"].not_valid_after_utc > datetime.now(UTC)  # still valid, but not for long
    fresh = pki_module.ensure_test_pki(directory)
    assert fresh.root != old.root
    assert fresh.crl_base == "http://127.0.0.1:9100/crl"  # rebuilt as it was made
    assert fresh.certificates["current"].not_valid_after_utc > datetime.now(UTC) + timedelta(days=300)
    assert pki_module.ensure_test_pki(directory).root == fresh.root  # and then reused
    (directory / "manifest.json").unlink()
    assert pki_module.ensure_test_pki(directory).root != fresh.root


def test_ensure_rebuilds_when_the_not_yet_valid_leaf_is_about_to_begin(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    directory = tmp_path / "old"
    # a PKI whose not-yet-valid leaf begins in 10 days, within the reuse margin, while every
    # other certificate and the CRLs would still do
    monkeypatch.setattr(pki_module, "NOT_YET_VALID_IN", timedelta(days=10))
    old = pki_module.init_test_pki(directory)
    monkeypatch.undo()
    assert old.certificates["current"].not_valid_after_utc > datetime.now(UTC) + timedelta(days=300)
    fresh = pki_module.ensure_test_pki(directory)
    assert fresh.root != old.root
    assert fresh.certificates["not_yet_valid"].not_valid_before_utc > datetime.now(UTC) + timedelta(days=365)


def test_load_refuses_a_crl_not_signed_by_its_ca(pki_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(pki_dir, copy)
    shutil.copy(pki_dir / "other-tsp-ca.crl", copy / "tsp-ca.crl")
    with pytest.raises(ConfigError, match="tsp-ca.crl"):
        pki_module.load_test_pki(copy)
    (copy / "tsp-ca.crl").unlink()
    with pytest.raises(ConfigError, match="tsp-ca.crl"):
        pki_module.load_test_pki(copy)


@pytest.mark.parametrize("oin", ["123", "0000009900000000100a", "000000990000000010000", OIN_TWICE, OIN_SECOND_CUSTOMER])
def test_init_refuses_bad_oins(oin: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        pki_module.init_test_pki(tmp_path, oin=oin)
    assert not any(tmp_path.iterdir())  # refused before writing anything


# --------------------------------------------------------------------------- the CLI
def test_cli_init_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "made" / "here"
    oin = "00000099000000003000"
    assert main(["pki", "init", "--out", str(directory), "--oin", oin, "--crl-base", "http://harness.test:9000/crl/"]) == 0
    init_out = capsys.readouterr().out
    made = pki_module.load_test_pki(directory)
    assert made.oin == oin
    assert oin_of(made.certificates["current"]) == oin
    assert made.crl_url("tsp_ca") == "http://harness.test:9000/crl/tsp-ca.crl"
    assert main(["pki", "show", str(directory)]) == 0
    show_out = capsys.readouterr().out
    assert "JWKS URL to register" in show_out and "http://127.0.0.1:8765/jwks/good.json" in show_out
    assert main(["pki", "show", str(directory), "--port", "9100"]) == 0
    assert "http://127.0.0.1:9100/jwks/good.json" in capsys.readouterr().out
    for out in (init_out, show_out):
        assert f"OIN: {oin}" in out
        for name in pki_module.KEY_NAMES:
            assert made.kid(name) in out
        assert str(directory / "jwks.json") in out
        assert made.certificates["current"].not_valid_after_utc.isoformat() in out
        assert "http://harness.test:9000/crl/tsp-ca.crl" in out and "(revokes revoked)" in out
        assert PRIVATE_SERVICES_POLICY in out and OIN_SECOND_CUSTOMER in out
        assert "PRIVATE KEY" not in out
        assert not any(line in out for line in private_pem_lines(directory))


def test_cli_errors_exit_2_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pki", "show", str(tmp_path / "absent")]) == 2
    assert "absent" in capsys.readouterr().err
    assert main(["pki", "show", str(tmp_path)]) == 2  # a directory without a PKI
    assert "manifest.json" in capsys.readouterr().err
    assert main(["pki", "init", "--out", str(tmp_path / "x"), "--oin", "123"]) == 2
    assert "20 digits" in capsys.readouterr().err
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert main(["pki", "init", "--out", str(a_file)]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["pki"]) == 2  # argparse: a subcommand is required
    assert main(["pki", "serve", str(tmp_path / "absent")]) == 2
    assert main(["pki", "show", str(tmp_path), "--port", "70000"]) == 2
    assert "0 to 65535" in capsys.readouterr().err
    assert main(["pki", "init", "--out", str(tmp_path / "y"), "--crl-base", "ftp://x/crl"]) == 2
    assert "http(s) URL" in capsys.readouterr().err
    assert main(["pki", "init", "--out", str(tmp_path / "z"), "--oin", OIN_SECOND_CUSTOMER]) == 2
    assert "reserved" in capsys.readouterr().err


def test_cli_serve_publishes_the_jwks_on_loopback(pki: TestPki, pki_dir: Path) -> None:
    import argparse
    import io
    import re
    import threading

    import httpx

    from conformance.auth.pki_cli import cmd_pki_serve

    out, stop = io.StringIO(), threading.Event()
    args = argparse.Namespace(directory=pki_dir, port=0)
    worker = threading.Thread(target=cmd_pki_serve, args=(args, out, stop))
    worker.start()
    try:
        for _ in range(200):  # the line is written once the server listens
            if "published at" in out.getvalue():
                break
            stop.wait(0.05)
        url = re.search(r"published at (\S+)", out.getvalue())
        assert url, out.getvalue()
        document = httpx.get(url.group(1), trust_env=False).json()
        base = url.group(1).split("/jwks/")[0]
        crl = httpx.get(f"{base}/crl/tsp-ca.crl", trust_env=False)
        missing = httpx.get(f"{base}/crl/nothing.crl", trust_env=False)
    finally:
        stop.set()
        worker.join(10)
    assert [k["kid"] for k in document["keys"]] == [pki.kid("current"), pki.kid("next")]
    assert crl.status_code == 200 and crl.headers["content-type"] == "application/pkix-crl"
    assert x509.load_der_x509_crl(crl.content) == pki.crls["tsp_ca"]
    assert missing.status_code == 404
    # served on another port than the distribution points name: said so
    assert "note: the leaves name http://127.0.0.1:8765/crl/tsp-ca.crl" in out.getvalue()
    assert not worker.is_alive()


def test_private_keys_are_pkcs8_pem_without_password(pki_dir: Path) -> None:
    pem = (pki_dir / "current.key.pem").read_bytes()
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    assert serialization.load_pem_private_key(pem, password=None).key_size == 2048
