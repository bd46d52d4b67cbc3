"""Start-up: command line, config files and their errors, daemonize, pidfile, logfile, dir."""

import os
import subprocess
import time

import redis

from conftest import SERVER_BINARY, free_port


def run_binary(*args, cwd=None, timeout=10):
    return subprocess.run([SERVER_BINARY, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout)


def test_version_and_help():
    out = run_binary("--version")
    assert out.returncode == 0
    assert "v=" in out.stdout and "malloc=" in out.stdout
    assert run_binary("-v").returncode == 0
    helped = run_binary("--help")
    assert helped.returncode == 0
    assert "Usage" in helped.stderr + helped.stdout


def test_bad_config_file_line_is_named(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("# comment\nport 1234\nport abc\n")
    out = run_binary(str(conf))
    assert out.returncode == 1
    assert "FATAL CONFIG FILE ERROR" in out.stderr
    assert "at line 3" in out.stderr
    assert ">>> 'port abc'" in out.stderr
    assert "argument couldn't be parsed into an integer" in out.stderr


def test_unknown_directive_is_fatal(tmp_path):
    conf = tmp_path / "bad.conf"
    conf.write_text("\nnosuchdirective yes\n")
    out = run_binary(str(conf))
    assert out.returncode == 1
    assert "at line 2" in out.stderr
    assert "Bad directive or wrong number of arguments" in out.stderr


def test_loadmodule_is_refused_with_the_reason(tmp_path):
    """Valkey aborts when a module fails to load; Vireo can load none, and says so."""
    conf = tmp_path / "valkey.conf"
    conf.write_text("port 0\nloadmodule /usr/lib/valkey/json.so\n")
    out = run_binary(str(conf))
    assert out.returncode == 1
    assert ">>> 'loadmodule /usr/lib/valkey/json.so'" in out.stderr
    assert "Vireo has no module API, so it cannot load modules" in out.stderr
    assert run_binary("--loadmodule", "/x.so").returncode == 1


def test_bad_flag_is_fatal():
    out = run_binary("--port", "99999")
    assert out.returncode == 1
    assert "argument must be between 0 and 65535 inclusive" in out.stderr


def test_missing_config_file():
    out = run_binary("/nonexistent/vireo.conf")
    assert out.returncode == 1
    assert "can't open config file" in out.stderr


def test_seed_flags(start_server):
    # The first seed's command line: password, io-threads, no snapshots.
    s = start_server("--requirepass", "e41fb9818502071d592b36b99f63003019861dad",
                     "--io-threads", "1", "--save", "", wait=False)
    c = redis.Redis(host="127.0.0.1", port=s.port, password="e41fb9818502071d592b36b99f63003019861dad",
                    decode_responses=True)
    for _ in range(100):
        try:
            assert c.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    assert c.config_get("save") == {"save": ""}
    assert c.config_get("io-threads") == {"io-threads": "1"}


def test_io_threads_flag_accepted(start_server):
    s = start_server("--io-threads", "4")
    assert s.client().ping()


def test_config_file_and_flags_combine(start_server, tmp_path):
    s = start_server(config="hz 20\nmaxclients 123\n", defaults=True)
    c = s.client()
    assert c.config_get("hz")["hz"] == "20"
    assert c.config_get("maxclients")["maxclients"] == "123"


def test_daemonize_pidfile_logfile(tmp_path):
    port = free_port()
    pidfile = tmp_path / "v.pid"
    logfile = tmp_path / "v.log"
    out = run_binary("--port", str(port), "--bind", "127.0.0.1", "--daemonize", "yes",
                     "--pidfile", str(pidfile), "--logfile", str(logfile), "--dir", str(tmp_path),
                     "--save", "")
    assert out.returncode == 0
    pid = None
    try:
        for _ in range(200):
            if pidfile.exists() and pidfile.read_text().strip():
                pid = int(pidfile.read_text().strip())
                break
            time.sleep(0.05)
        assert pid is not None
        c = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
        for _ in range(200):
            try:
                c.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        assert c.ping()
        assert c.config_get("dir")["dir"] == str(tmp_path)
        assert "Ready to accept connections" in logfile.read_text()
    finally:
        if pid is not None:
            os.kill(pid, 15)
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                    time.sleep(0.05)
                except ProcessLookupError:
                    break
    assert not pidfile.exists()
