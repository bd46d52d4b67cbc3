"""Every command and subcommand of valkey-server 8.0.1's COMMAND table against Vireo
(tests/compat/command_sweep.py): arity errors, wrong types, missing keys, bad numbers and each
documented option, under RESP2 and RESP3. Fails on any difference not in the tool's ALLOWED
list (docs/sweep_differences.md says why each one is there).
"""

import io
import os
import sys

import pytest

from conftest import REPO_ROOT, SERVER_BINARY, VALKEY_SERVER

sys.path.insert(0, str(REPO_ROOT / "tests" / "compat"))
import command_sweep  # noqa: E402


@pytest.fixture(scope="module")
def servers():
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    vireo = command_sweep.Server(SERVER_BINARY, "vireo")
    valkey = command_sweep.Server(VALKEY_SERVER, "valkey")
    try:
        valkey.start()
        vireo.start()
        yield vireo, valkey
    finally:
        vireo.cleanup()
        valkey.cleanup()


def test_every_command_answers_as_valkey(servers):
    vireo, valkey = servers
    report = io.StringIO()
    names, cases, diffs, allowed = command_sweep.sweep(vireo, valkey, out=report)
    # The reference's 8.0.1 table: 241 commands, with their subcommands 373 entries.
    assert sum(1 for n in names if "|" not in n) == 241, report.getvalue()
    assert len(names) == 373, report.getvalue()
    assert cases > 5000, report.getvalue()
    assert not diffs, report.getvalue()


def test_allowed_list_is_documented():
    """Each ALLOWED pattern has its row in docs/sweep_differences.md."""
    # A table cell escapes "|" as "\\|".
    text = (REPO_ROOT / "docs" / "sweep_differences.md").read_text().replace("\\|", "|")
    missing = [p for p in command_sweep.ALLOWED if f"`{p}`" not in text]
    assert not missing, missing
