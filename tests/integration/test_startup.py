"""Start-up: command line, config files and their errors, daemonize, pidfile, logfile, dir."""

import os
import re
import subprocess
import time

import redis

from conftest import SERVER_BINARY, free_port, wait_for


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


def startup_lines(server, last="Ready to accept connections tcp"):
    """The server's log lines up to the line ending in `last`, without the pid/role/time
    prefix."""
    wait_for(lambda: last in server.log())
    lines = []
    for line in server.log().splitlines():
        if line.startswith("### "):  # the harness's own header
            continue
        lines.append(re.sub(r"^\d+:[A-Z] \d\d \w{3} \d{4} [\d:.]+ ", "", line))
        if line.endswith(last):
            return lines
    return lines


def test_startup_lines_as_valkey_writes_them(start_server, tmp_path):
    s = start_server("--unixsocket", str(tmp_path / "v.sock"), config="always-show-logo yes\n")
    lines = startup_lines(s, last="Ready to accept connections unix")
    assert lines[0] == "* oO0OoO0OoO0Oo Vireo is starting oO0OoO0OoO0Oo"
    assert re.fullmatch(r"\* Vireo version=[\d.]+, bits=64, commit=00000000, modified=0, "
                        r"pid=%d, just started" % s.proc.pid, lines[1])
    assert lines[2] == "* Configuration loaded"
    text = "\n".join(lines)
    assert "Port: %d" % s.port in text and "PID: %d" % s.proc.pid in text
    assert text.index("PID: ") < text.index("* Server initialized")
    assert lines[-2:] == ["* Ready to accept connections tcp",
                          "* Ready to accept connections unix"]
    # Without the banner: one line for it.
    plain = startup_lines(start_server())
    assert "* Running mode=standalone, port=%d." % plain_port(plain) in plain
    assert plain.index("* Server initialized") < plain.index("* Ready to accept connections tcp")


def plain_port(lines):
    return int(next(re.search(r"port=(\d+)\.", l).group(1) for l in lines if "Running mode" in l))


def test_startup_lines_match_valkey(start_server, valkey_process, tmp_path):
    ours = startup_lines(start_server())
    theirs = startup_lines(valkey_process)
    def shape(lines):
        # The words, without names, numbers and the banner.
        # Notices only: warnings depend on the machine (overcommit, io-threads vs CPUs).
        keep = [l for l in lines if l.startswith("* ") and "monotonic clock" not in l
                and "I/O threads" not in l]
        return [re.sub(r"\d+|Valkey|valkey|Vireo|vireo", "N", l) for l in keep]
    assert shape(ours) == shape(theirs)


def test_bare_start_warns_that_defaults_apply(tmp_path):
    # No config file and no option at all, as Valkey warns then.
    proc = subprocess.Popen([SERVER_BINARY], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        first = [proc.stdout.readline().decode() for _ in range(3)]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert any("# Warning: no config file specified, using the default config. In order to "
               "specify a config file use vireo-server /path/to/vireo.conf" in l for l in first)
