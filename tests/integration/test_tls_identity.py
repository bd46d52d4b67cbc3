"""TLS as Valkey 9.0 grew it: tls-auth-clients-user (a client certificate's CN or SAN URI
names the ACL user it is logged in as), tls-auto-reload-interval (changed certificate files
are picked up for new connections), and certificates outside their validity period refused
at start-up and by CONFIG SET. Certificates are made at test time with the openssl command
(`openssl ca` for chosen validity dates)."""

import os
import shutil

import pytest
import redis

from conftest import free_port, wait_for
from test_tls import (EC_KEY, _openssl, certs, start_tls, tls_args, tls_client,  # noqa: F401
                      tls_raw)

CA_CONFIG = """[ca]
default_ca = c
[c]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = p
unique_subject = no
copy_extensions = copy
[p]
commonName = supplied
"""

# Validity periods: the past, now, the future.
EXPIRED = ("20200101000000Z", "20200102000000Z")
CURRENT = ("20200101000000Z", "20980101000000Z")
NOT_YET = ("20990101000000Z", "20990102000000Z")


def _signed(d, name, subject, dates, ca="ca", san=None):
    """name.key and name.crt, signed by the test CA (ca.crt of the certs fixture)."""
    _openssl("req", *EC_KEY, "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
             "-subj", subject, *(["-addext", f"subjectAltName={san}"] if san else []), cwd=d)
    _openssl("ca", "-batch", "-config", "ca.cnf", "-cert", f"{ca}.crt", "-keyfile", f"{ca}.key",
             "-in", f"{name}.csr", "-out", f"{name}.crt", "-startdate", dates[0], "-enddate",
             dates[1], "-notext", cwd=d)
    return str(d / f"{name}.crt"), str(d / f"{name}.key")


@pytest.fixture(scope="module")
def more(certs, tmp_path_factory):  # noqa: F811
    """Client certificates naming users, and certificates out of their validity period."""
    d = tmp_path_factory.mktemp("tls-identity")
    for f in ("ca.crt", "ca.key"):
        shutil.copy(os.path.join(certs["dir"], f), d / f)
    (d / "ca.cnf").write_text(CA_CONFIG)
    (d / "index.txt").write_text("")
    (d / "serial").write_text("1000\n")
    out = {}
    for name in ("alice", "bob", "nobody"):
        out[name] = _signed(d, name, f"/CN={name}", CURRENT)
    out["uri"] = _signed(d, "uri", "/CN=nobody", CURRENT,
                         san="URI:spiffe://vireo.test/unknown,URI:spiffe://vireo.test/app")
    out["server_expired"] = _signed(d, "server-expired", "/CN=server", EXPIRED,
                                    san="DNS:localhost,IP:127.0.0.1")
    out["server_notyet"] = _signed(d, "server-notyet", "/CN=server", NOT_YET,
                                   san="DNS:localhost,IP:127.0.0.1")
    out["server2"] = _signed(d, "server2", "/CN=server2", CURRENT,
                             san="DNS:localhost,IP:127.0.0.1")
    # A self-signed CA whose period is over, alone in a file and in a directory.
    _openssl("req", *EC_KEY, "-nodes", "-keyout", "oldca.key", "-out", "oldca.csr", "-subj",
             "/CN=old ca", cwd=d)
    _openssl("ca", "-batch", "-config", "ca.cnf", "-selfsign", "-keyfile", "oldca.key", "-in",
             "oldca.csr", "-out", "oldca.crt", "-startdate", EXPIRED[0], "-enddate", EXPIRED[1],
             "-notext", cwd=d)
    (d / "ca-expired").mkdir()
    shutil.copy(d / "oldca.crt", d / "ca-expired" / "old.pem")
    (d / "ca-good").mkdir()
    shutil.copy(d / "ca.crt", d / "ca-good" / "ca.pem")
    out["expired_ca"] = str(d / "oldca.crt")
    out["expired_ca_dir"] = str(d / "ca-expired")
    out["good_ca_dir"] = str(d / "ca-good")
    out["dir"] = d
    return out


def client_as(server, certs, pair, **kw):  # noqa: F811
    return tls_client(server, certs, ssl_certfile=pair[0], ssl_keyfile=pair[1], **kw)


def whoami(server, certs, pair):  # noqa: F811
    return client_as(server, certs, pair).execute_command("ACL", "WHOAMI")


def with_users(server):
    r = server.client()
    r.execute_command("ACL", "SETUSER", "alice", "on", "nopass", "+@all", "~*")
    r.execute_command("ACL", "SETUSER", "bob", "off", "nopass", "+@all", "~*")
    r.execute_command("ACL", "SETUSER", "spiffe://vireo.test/app", "on", "nopass", "+ping",
                      "+acl|whoami")
    return r


# -- tls-auth-clients-user

def test_the_certificate_cn_names_the_user(start_server, certs, more):  # noqa: F811
    s = start_tls(start_server, certs, "--tls-auth-clients-user", "CN")
    with_users(s)
    c = client_as(s, certs, more["alice"])
    assert c.execute_command("ACL", "WHOAMI") == "alice"
    assert c.set("k", "v") and c.get("k") == "v"
    assert any(cl["user"] == "alice" for cl in s.client().client_list())


def test_no_user_a_disabled_user_or_off_leaves_the_default_user(start_server, certs,
                                                               more):  # noqa: F811
    s = start_tls(start_server, certs, "--tls-auth-clients-user", "CN")
    r = with_users(s)
    assert whoami(s, certs, more["nobody"]) == "default"
    assert whoami(s, certs, more["bob"]) == "default"  # bob is off
    r.config_set("tls-auth-clients-user", "off")
    assert whoami(s, certs, more["alice"]) == "default"


def test_without_a_default_user_an_unmatched_certificate_must_auth(start_server, certs,
                                                                 more):  # noqa: F811
    s = start_tls(start_server, certs, "--tls-auth-clients-user", "CN", "--requirepass", "pw")
    r = s.client(password="pw")
    r.execute_command("ACL", "SETUSER", "alice", "on", "nopass", "+@all", "~*")
    assert whoami(s, certs, more["alice"]) == "alice"
    with pytest.raises(redis.AuthenticationError):
        client_as(s, certs, more["nobody"]).ping()
    assert client_as(s, certs, more["nobody"], password="pw").ping()


def test_a_user_logged_in_by_certificate_keeps_its_permissions(start_server, certs,
                                                               more):  # noqa: F811
    s = start_tls(start_server, certs, "--tls-auth-clients-user", "URI")
    with_users(s)
    c = client_as(s, certs, more["uri"])
    # The second URI of the certificate names an enabled user; the first names none.
    assert c.execute_command("ACL", "WHOAMI") == "spiffe://vireo.test/app"
    assert c.ping()
    with pytest.raises(redis.exceptions.NoPermissionError):
        c.set("k", "v")
    # CN is not looked at in URI mode.
    assert whoami(s, certs, more["alice"]) == "default"


def test_config_set_and_get_of_tls_auth_clients_user(start_server, certs):  # noqa: F811
    s = start_tls(start_server, certs)
    r = s.client()
    assert r.config_get("tls-auth-clients-user") == {"tls-auth-clients-user": "off"}
    r.config_set("tls-auth-clients-user", "cn")
    assert r.config_get("tls-auth-clients-user") == {"tls-auth-clients-user": "CN"}
    r.config_set("tls-auth-clients-user", "uri")
    assert r.config_get("tls-auth-clients-user") == {"tls-auth-clients-user": "URI"}
    with pytest.raises(redis.ResponseError) as e:
        r.config_set("tls-auth-clients-user", "O")
    assert str(e.value) == (
        "CONFIG SET failed (possibly related to argument 'tls-auth-clients-user') - "
        "argument(s) must be one of the following: off, CN, URI")
    assert r.config_get("tls-auth-clients-user") == {"tls-auth-clients-user": "URI"}


def test_a_plain_connection_is_never_logged_in_by_the_setting(start_server, certs):  # noqa: F811
    s = start_tls(start_server, certs, "--tls-auth-clients-user", "CN")
    assert s.client().execute_command("ACL", "WHOAMI") == "default"


# -- tls-auto-reload-interval

def test_changed_files_are_reloaded_for_new_connections(start_server, certs, more,
                                                       tmp_path):  # noqa: F811
    crt, key = tmp_path / "live.crt", tmp_path / "live.key"
    shutil.copy(certs["cert"], crt)
    shutil.copy(certs["key"], key)
    port = free_port()
    s = start_server("--tls-port", str(port), "--tls-cert-file", str(crt), "--tls-key-file",
                     str(key), "--tls-ca-cert-file", certs["ca"], "--tls-auto-reload-interval",
                     "1", "--loglevel", "debug")
    s.tls_port = port
    old = tls_raw(s, certs)
    assert served_cn(old) == "server"
    assert wait_for(lambda: "TLS reload skipped: materials unchanged" in s.log())
    shutil.copy(more["server2"][0], crt)
    shutil.copy(more["server2"][1], key)
    assert wait_for(lambda: "TLS materials reloaded successfully" in s.log(), timeout=20)
    new = tls_raw(s, certs)
    assert served_cn(new) == "server2"
    # The connection made before the reload goes on.
    assert old.call("PING") == "PONG"
    old.close()
    new.close()


def test_a_bad_reload_keeps_the_old_certificate(start_server, certs, more,
                                                tmp_path):  # noqa: F811
    crt, key = tmp_path / "live.crt", tmp_path / "live.key"
    shutil.copy(certs["cert"], crt)
    shutil.copy(certs["key"], key)
    s = start_tls(start_server, certs)
    r = s.client()
    r.config_set("tls-cert-file", str(crt), "tls-key-file", str(key))
    r.config_set("tls-auto-reload-interval", "1")
    shutil.copy(more["server_expired"][0], crt)
    shutil.copy(more["server_expired"][1], key)
    assert wait_for(lambda: "Background TLS reload failed" in s.log(), timeout=20)
    assert "Server TLS certificate is invalid" in s.log()
    with tls_raw(s, certs) as raw:
        assert served_cn(raw) == "server"
        assert raw.call("PING") == "PONG"


def test_auto_reload_interval_values(start_server, certs):  # noqa: F811
    s = start_tls(start_server, certs)
    r = s.client()
    assert r.config_get("tls-auto-reload-interval") == {"tls-auto-reload-interval": "0"}
    for value in ("5", "3600", "0"):
        assert r.config_set("tls-auto-reload-interval", value)
        assert r.config_get("tls-auto-reload-interval") == {"tls-auto-reload-interval": value}
    for value, why in (("-1", "argument must be between 0 and 2147483647 inclusive"),
                       ("abc", "argument couldn't be parsed into an integer")):
        with pytest.raises(redis.ResponseError) as e:
            r.config_set("tls-auto-reload-interval", value)
        assert str(e.value) == ("CONFIG SET failed (possibly related to argument "
                                f"'tls-auto-reload-interval') - {why}")


def served_cn(raw):
    return dict(x[0] for x in raw.sock.getpeercert()["subject"])["commonName"]


# -- invalid certificates at load

@pytest.mark.parametrize("which, message", [
    ("server_expired", "Server TLS certificate is invalid. Aborting TLS configuration."),
    ("server_notyet", "Server TLS certificate is invalid. Aborting TLS configuration."),
    ("client_expired", "Client TLS certificate is invalid. Aborting TLS configuration."),
    ("expired_ca", "One or more loaded CA certificates are invalid. Aborting TLS configuration."),
    ("expired_ca_dir",
     "One or more loaded CA certificates are invalid. Aborting TLS configuration."),
    ("key_mismatch", "Failed to load private key"),
])
def test_invalid_materials_stop_start_up(start_server, certs, more, which,
                                         message):  # noqa: F811
    args = materials_args(certs, more, which)
    s = start_server(*tls_args(certs, free_port()), *args, wait=False)
    s.proc.wait(timeout=10)
    assert s.proc.returncode != 0
    assert message in s.log(), s.log()
    assert "Failed to configure TLS. Check logs for more info." in s.log()


@pytest.mark.parametrize("which", ["server_expired", "server_notyet", "client_expired",
                                   "expired_ca", "expired_ca_dir", "key_mismatch"])
def test_config_set_refuses_invalid_materials_and_keeps_the_old(start_server, certs, more,
                                                                which):  # noqa: F811
    s = start_tls(start_server, certs)
    r = s.client()
    before = r.config_get("tls-*")
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("CONFIG", "SET", *materials_args(certs, more, which, dashes=False))
    assert "Unable to update TLS configuration. Check server logs." in str(e.value)
    assert r.config_get("tls-*") == before
    assert tls_client(s, certs).ping()


def test_a_ca_directory_of_valid_certificates_is_accepted(start_server, certs,
                                                          more):  # noqa: F811
    port = free_port()
    s = start_server("--tls-port", str(port), "--tls-cert-file", certs["cert"],
                     "--tls-key-file", certs["key"], "--tls-ca-cert-dir", more["good_ca_dir"])
    s.tls_port = port
    assert tls_client(s, certs).ping()


def materials_args(certs, more, which, dashes=True):  # noqa: F811
    pairs = {
        "server_expired": [("tls-cert-file", more["server_expired"][0]),
                           ("tls-key-file", more["server_expired"][1])],
        "server_notyet": [("tls-cert-file", more["server_notyet"][0]),
                          ("tls-key-file", more["server_notyet"][1])],
        "client_expired": [("tls-client-cert-file", more["server_expired"][0]),
                           ("tls-client-key-file", more["server_expired"][1])],
        "expired_ca": [("tls-ca-cert-file", more["expired_ca"])],
        "expired_ca_dir": [("tls-ca-cert-dir", more["expired_ca_dir"])],
        # The server's certificate with another certificate's key.
        "key_mismatch": [("tls-key-file", more["alice"][1])],
    }[which]
    out = []
    for name, value in pairs:
        out += [("--" if dashes else "") + name, value]
    return out
