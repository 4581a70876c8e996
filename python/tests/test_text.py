"""Strings to the library: UTF-8 exactly, or refused by name.

A string C cannot be handed must not reach the library as another string: a
NUL ends a C string ("alice\\0x" would arrive as "alice"), a lone surrogate
has no UTF-8, and bytes that are not UTF-8 ("\\xff", "\\xfe") would both be
read as U+FFFD by a lenient decoder — SPEC §10's "a different account signed
in" would then not be noticed."""

import json
from pathlib import Path

import pytest

import hearth
from conftest import DROP
from hearth._ffi import created, ffi, lib, raise_for, take_bytes, text

VERDICT = 1_718_085_600_000
ACCOUNT = "👩‍👧 𝔄"  # four-byte sequences and a joiner
NEIGHBOUR = "👩‍👧 𝔅"  # one code point further


# MARK: the C ABI itself (bytes as a C caller passes them)


@pytest.mark.parametrize("account, offset", [(b"\xff", 0), (b"\xfe", 0), (b"ada\xc0\x80", 3), (b"\xed\xa0\xbd\xed\xb8\x80", 0)])
def test_the_library_refuses_an_account_that_is_not_utf8_naming_the_offset(account, offset):
    # \xed\xa0\xbd\xed\xb8\x80 is U+1F600 in JNI's modified UTF-8 (a surrogate pair).
    with pytest.raises(ValueError, match=f"^account is not UTF-8: byte 0x{account[offset]:02X} at offset {offset}$"):
        created(lib.hearth_incident_create, VERDICT, ffi.new("char[]", account))


def test_accounts_xff_and_xfe_are_not_taken_for_one_account():
    incident = created(lib.hearth_incident_create, VERDICT, ffi.new("char[]", b"ada"))
    action = ffi.new("hearth_incident_action *")
    for other in (b"\xff", b"\xfe", b"ada\xff"):
        status = lib.hearth_incident_check(incident, VERDICT, lib.HEARTH_INPUT_SIGNED_IN, 0, 0, ffi.new("char[]", other), action)
        assert status == lib.HEARTH_ERROR_ARGUMENT
        assert ffi.string(lib.hearth_last_error(incident)).decode().startswith("account is not UTF-8: byte 0x")
    # Refused, so nothing moved: the incident still asks.
    raise_for(lib.hearth_incident_check(incident, VERDICT, lib.HEARTH_INPUT_NOTHING, 0, 0, ffi.NULL, action), incident)
    assert action.action == lib.HEARTH_ACTION_ASK


def test_every_text_parameter_of_the_library_refuses_bytes_that_are_not_utf8(tmp_path):
    bad = b"{}\xff"
    for name, call in [
        ("path", lambda: created(lib.hearth_trace_read, bad, ffi.NULL)),
        ("mapping_path", lambda: created(lib.hearth_trace_read, str(DROP).encode(), bad)),
        ("metadata_json", lambda: created(lib.hearth_trace_create, bad)),
        ("configuration_json", lambda: created(lib.hearth_detector_create, bad)),
        ("configuration_json", lambda: take_bytes(lib.hearth_configuration_json, bad)),
        ("description_json", lambda: created(lib.hearth_ingest_create, bad)),
        ("file_name", lambda: take_bytes(lib.hearth_detector_report, created(lib.hearth_detector_create, ffi.NULL), bad, lib.HEARTH_FORMAT_TEXT)),
    ]:
        with pytest.raises(ValueError, match=f"^{name} is not UTF-8: byte 0xFF at offset 2"):
            call()
    trace = created(lib.hearth_trace_create, b"{}")
    with pytest.raises(ValueError, match="^folder is not UTF-8: byte 0xFF at offset 2$"):
        raise_for(lib.hearth_trace_write(trace, bad), trace)
    ingest = created(lib.hearth_ingest_create, b"{}")
    with pytest.raises(ValueError, match="^description_json is not UTF-8: byte 0xFF at offset 2; the pipeline is unchanged$"):
        raise_for(lib.hearth_ingest_reconfigure(ingest, bad, ffi.NULL), ingest)


# MARK: the Python door


@pytest.mark.parametrize("account, named", [
    ("alice\0x", r"^account: a NUL character at index 5, which a C string cannot carry"),
    ("\udcff", r"^account: '\\udcff' at index 0 is a lone surrogate"),
    ("ada\ud800", r"^account: '\\ud800' at index 3 is a lone surrogate"),
])
def test_an_account_c_cannot_be_handed_is_refused_before_the_call(account, named):
    with pytest.raises(ValueError, match=named):
        hearth.Incident(VERDICT, account)
    incident = hearth.Incident(VERDICT, "alice")
    with pytest.raises(ValueError, match=named):
        incident.check(VERDICT, "signedIn", account=account)
    assert incident.check(VERDICT) == {"action": "ask", "time_ms": VERDICT + 30_000}


def test_surrogate_escaped_accounts_are_not_conflated():
    # "\udcff" and "\udcfe" are what surrogateescape makes of the bytes \xff and \xfe.
    incident = hearth.Incident(VERDICT, "ada")
    for account in ("\udcff", "\udcfe"):
        with pytest.raises(ValueError, match="lone surrogate"):
            incident.check(VERDICT, "signedIn", account=account)
    assert incident.check(VERDICT)["action"] == "ask"


def test_an_account_outside_the_bmp_round_trips_exactly():
    incident = hearth.Incident(VERDICT, ACCOUNT)
    assert incident.check(VERDICT, "signedIn", account=ACCOUNT)["action"] == "ask"
    assert json.loads(incident.save())["account"] == ACCOUNT
    restored = hearth.Incident.restore(incident.save())
    assert restored.check(VERDICT, "signedIn", account=ACCOUNT)["action"] == "ask"
    assert restored.check(VERDICT, "signedIn", account=NEIGHBOUR) == {"action": "finished", "end": "otherAccount"}


def test_paths_descriptions_and_names_refuse_a_nul_by_their_name(tmp_path):
    with pytest.raises(ValueError, match="^path: a NUL character at index"):
        hearth.read_trace(str(DROP) + "\0/etc/passwd")
    with pytest.raises(ValueError, match="^path: a NUL character at index"):
        hearth.read_trace(Path(str(DROP) + "\0"))
    with pytest.raises(ValueError, match="^file: a NUL character at index 1"):
        hearth.Detector().finish().report("a\0b")
    with pytest.raises(ValueError, match="^config: a NUL character at index"):
        hearth.Detector('{"joltMetersPerSecondSquared": 50}\0{"bogus": 1}')
    with pytest.raises(ValueError, match="^description: a NUL character at index 2"):
        hearth.Ingest(description="{}\0")
    # Inside a description built from places, the NUL is a JSON escape the library reads exactly.
    place = {"id": 1, "circle": 7, "name": "a\0b", "latitude_deg": 1.0, "longitude_deg": 1.0, "radius_m": 50.0}
    hearth.Ingest([place])


def test_a_place_name_outside_the_bmp_comes_back_exactly():
    import numpy as np
    import pandas as pd

    name = "Grandma's 🏡"
    home = {"id": 1, "circle": 7, "name": name, "latitude_deg": 48.137, "longitude_deg": 11.575, "radius_m": 150.0}
    fixes = pd.DataFrame({"time_ms": [VERDICT], "latitude_deg": [48.137], "longitude_deg": [11.575],
                          "horizontal_accuracy_m": [10.0], "user": np.array([1], dtype=np.uint32)})
    pipeline = hearth.Ingest([home], {1: [7]})
    pipeline.ingest(fixes, received_ms=VERDICT + 1_000)
    assert any(event.get("placeName") == name for event in pipeline.events_json()), pipeline.events_json()


def test_the_conversion_itself():
    assert text(None, "x") == ffi.NULL
    assert ffi.string(text("Zoë 😀", "x")) == "Zoë 😀".encode()
    assert ffi.string(text(b"raw \xff", "x")) == b"raw \xff"  # bytes as they are: the library judges them
    assert ffi.string(text(Path("/tmp/é"), "x")) == "/tmp/é".encode()
    with pytest.raises(ValueError, match="^x: a NUL character at index 1"):
        text(b"a\0", "x")
    with pytest.raises(TypeError, match="^x: expected a str, not int"):
        text(5, "x")
