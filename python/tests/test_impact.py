"""The detector, its configuration and the incident lifecycle through the ABI:
the same output as `hearth impact detect`, whatever the chunking."""

import dataclasses
import json
import re

import numpy as np
import pandas as pd
import pytest

import hearth
from conftest import DRIVE, DROP, run

T_INCIDENT = 1_700_000_000_000


@pytest.mark.parametrize("format", ["text", "json", "csv"])
def test_report_is_the_command_s_output(command, scenario, format):
    paths = [str(scenario), str(DRIVE), str(DROP)]
    theirs = run(command, "impact", "detect", "--format", format, *paths).stdout.decode()
    assert hearth.report(paths, format=format) == theirs


def test_detect_is_the_command_s_csv_as_a_frame(command, scenario):
    frame = hearth.detect([scenario, hearth.read_trace(DROP)])
    assert set(frame.outcome) >= {"possibleImpact", "silent"}
    crash = frame[(frame.file == str(scenario)) & (frame.condition == "jolt")]
    assert crash.unit.iloc[0] == "m/s²" and crash.held.iloc[0]


def test_a_quiet_recording_still_gets_a_row(command):
    frame = hearth.detect(DRIVE)
    assert list(frame.outcome) == ["noJolt"] and frame.measured.iloc[0] > 0


def test_a_configuration_changes_the_verdict_as_the_command_s(command, scenario, tmp_path):
    config = hearth.ImpactConfig().with_thresholds(spin_radps=30, pressure_hpa=50)
    path = tmp_path / "c.json"
    config.write(path)
    theirs = run(command, "impact", "detect", "--config", path, scenario).stdout.decode()
    assert hearth.report(scenario, config) == theirs and "silent" in theirs


def test_the_configuration_file_round_trips_byte_for_byte(command, tmp_path):
    run(command, "impact", "sweep", "--jolt-g", "5", "--seeds", "1", "--hours", "0", "--out", tmp_path, check_codes=(0,))
    picked = (tmp_path / "picked-configuration.json").read_text()
    config = hearth.ImpactConfig.read(tmp_path / "picked-configuration.json")
    assert config.jolt_g == pytest.approx(5) and config.to_json() == picked


def test_a_bad_setting_is_named():
    with pytest.raises(hearth.BadInputError, match="unknown setting 'joltG'"):
        hearth.Detector({"joltG": 4})
    with pytest.raises(hearth.BadInputError, match="'spinRadiansPerSecond' must be a finite number"):
        hearth.ImpactConfig.from_json('{"spinRadiansPerSecond": "fast"}')


def columns(trace):
    a, g, b, f = trace["accelerometer"], trace["gyroscope"], trace["barometer"], trace["fixes"]
    origin = trace.info["timeOriginMs"] or 0
    fixes = pd.DataFrame({"t_s": (f.time_ms.to_numpy() - origin) / 1000.0, "speed_mps": f.speed_mps.fillna(-1).to_numpy()})
    return a, g, b, fixes


@pytest.mark.parametrize("cut_s", [0.25, 1.7, 13.0, 1e9])
def test_feeding_columns_in_any_chunks_gives_the_verdicts_of_one_call(scenario, cut_s):
    trace = hearth.read_trace(scenario)
    a, g, b, f = columns(trace)
    whole = hearth.Detector().feed(a, g, b, f).finish()
    chunked = hearth.Detector()
    start, end = a.t_s.min(), a.t_s.max()
    t = start
    while t <= end:
        window = [s[(s.t_s >= t) & (s.t_s < t + cut_s)] for s in (a, g, b, f)]
        chunked.feed(*window)
        t += cut_s
    chunked.finish()
    pd.testing.assert_frame_equal(whole.verdicts(), chunked.verdicts())
    pd.testing.assert_frame_equal(whole.conditions(), chunked.conditions())
    assert (whole.verdicts().outcome == "possibleImpact").sum() == 1
    assert whole.report("x", "csv") == chunked.report("x", "csv")


def test_feeding_after_finish_is_a_state_error_with_a_reason():
    d = hearth.Detector().finish()
    with pytest.raises(hearth.HearthError, match="finished"):
        d.feed()


def test_a_missing_recording_is_named():
    with pytest.raises(hearth.BadInputError, match="nowhere: no such file or folder"):
        hearth.read_trace("nowhere")


def test_a_wall_clock_step_is_in_the_trace_info_as_the_command_warns(command, tmp_path):
    """A Sensor Logger export whose wall clock steps back 3 s at 9.2 s: the
    fixes stay on seconds_elapsed, and the info's timeWarnings say so in the
    words `impact detect` writes on stderr."""
    origin = 1_700_000_000_000

    def wall_ns(seconds):
        return (origin + round(seconds * 1000) - (3000 if seconds >= 9.2 else 0)) * 1_000_000

    (tmp_path / "Metadata.csv").write_text(f"version,device name,recording epoch time,platform\n3,Pixel,{origin},android\n")
    (tmp_path / "TotalAcceleration.csv").write_text(
        "time,seconds_elapsed,z,y,x\n" + "".join(f"{wall_ns(i / 50)},{i / 50},9.8,0.2,0.1\n" for i in range(1000)))
    (tmp_path / "Location.csv").write_text(
        "time,seconds_elapsed,latitude,longitude,horizontalAccuracy,speed\n"
        + "".join(f"{wall_ns(k + 0.5)},{k + 0.5},48,2,5,10\n" for k in range(20)))
    frames = hearth.read_trace(tmp_path)
    assert list(frames["fixes"]["time_ms"]) == [origin + 1000 * k + 500 for k in range(20)]
    warnings = frames.info["timeWarnings"]
    assert [w.split(":")[0] for w in warnings] == ["TotalAcceleration.csv", "Location.csv"]
    assert warnings[1].startswith("Location.csv: the wall clock stepped −3.000 s at 9.500 s (line 11)")
    stderr = run(command, "impact", "detect", tmp_path).stderr.decode()
    assert all(f"{tmp_path}: warning: {w}" in stderr for w in warnings), stderr


def test_wrong_stream_columns_are_a_value_error():
    with pytest.raises(ValueError, match="missing columns"):
        hearth.Detector().feed(pd.DataFrame({"t": [0.0]}))
    with pytest.raises(ValueError, match="different lengths"):
        hearth.Detector().feed((np.zeros(2), np.zeros(2), np.zeros(3), np.zeros(2)))


def test_the_incident_lifecycle_asks_raises_and_survives_a_restart():
    incident = hearth.Incident(1_000_000, "me")
    assert incident.check(1_000_000) == {"action": "ask", "time_ms": 1_030_000}
    assert incident.check(1_029_999)["action"] in ("ask", "waitUntil")
    assert incident.check(1_030_000)["action"] == "send"
    restored = hearth.Incident.restore(incident.save())
    assert restored.check(1_031_000, "delivered") == {"action": "finished", "end": "delivered"}
    assert hearth.Incident(0, "me").check(3_600_000) == {"action": "finished", "end": "droppedAfterAnHour"}
    assert hearth.Incident(0, "me").check(10, "signedIn", account="other") == {"action": "finished", "end": "otherAccount"}
    with pytest.raises(hearth.BadInputError, match="not a saved incident"):
        hearth.Incident.restore(b"\x00garbage")
    # A verdict outside 1900–2200 is not a clock: refused before an incident exists.
    with pytest.raises(ValueError, match="verdict_ms: 7258118400000 ms is outside 1900–2200"):
        hearth.Incident(7_258_118_400_000, "me")
    assert hearth.Incident(7_258_118_399_999, "me").check(7_258_118_399_999)["action"] == "ask"
    # So is a check's clock; the incident is left as it was.
    with pytest.raises(ValueError, match="now_ms: 7258118400000 ms is outside 1900–2200"):
        incident.check(7_258_118_400_000, "networkFailure")
    assert hearth.Incident.restore(incident.save()).save() == incident.save()


def test_the_incident_waits_on_its_own_clock_when_the_wall_clock_is_set_back():
    day = 86_400_000
    incident = hearth.Incident(T_INCIDENT, "me")
    assert incident.check(T_INCIDENT + 10_000) == {"action": "ask", "time_ms": T_INCIDENT + 30_000}
    # Set back a day: still 20 s to go, on the clock as it now reads.
    assert incident.check(T_INCIDENT + 10_000 - day) == {"action": "ask", "time_ms": T_INCIDENT + 30_000 - day}
    restored = hearth.Incident.restore(incident.save())
    assert restored.check(T_INCIDENT + 30_000 - day) == {"action": "send"}


def test_a_saved_incident_carries_format_version_1_and_one_saved_without_a_version_still_restores():
    incident = hearth.Incident(T_INCIDENT, "me")
    assert incident.check(T_INCIDENT + 30_000)["action"] == "send"
    saved = json.loads(incident.save())
    assert saved["formatVersion"] == 1
    del saved["formatVersion"]  # what a tracker saved before versions were written
    old = hearth.Incident.restore(json.dumps(saved).encode())
    assert json.loads(old.save()) == json.loads(incident.save())
    assert old.check(T_INCIDENT + 45_000) == incident.check(T_INCIDENT + 45_000) == {"action": "send"}


@pytest.mark.parametrize("version", [0, 2, 99, -1, "1", 1.5])
def test_a_saved_incident_of_another_format_version_is_refused_by_name(version):
    saved = json.loads(hearth.Incident(T_INCIDENT, "me").save())
    saved["formatVersion"] = version
    with pytest.raises(hearth.BadInputError, match=r"not a saved incident \(\d+ bytes\): formatVersion: .*formatVersion"):
        hearth.Incident.restore(json.dumps(saved).encode())


@pytest.mark.parametrize("number", ["1.5", "1e30", "18446744073709551616"])
def test_a_saved_time_its_field_cannot_hold_is_named_by_its_path(number):
    # Foundation calls such a text "not valid JSON" with no path; the door names the number and where it is.
    saved = hearth.Incident(T_INCIDENT, "me").save().decode()
    edited = saved.replace(f'"verdictMilliseconds":{T_INCIDENT}', f'"verdictMilliseconds":{number}')
    assert edited != saved
    with pytest.raises(hearth.BadInputError, match=rf"not a saved incident \(\d+ bytes\): verdictMilliseconds: the number {re.escape(number)} does not fit this field"):
        hearth.Incident.restore(edited.encode())


@pytest.mark.parametrize("edit, accepted, named", [
    (dict(verdictMilliseconds=-2_208_988_800_000, clockMilliseconds=-2_208_988_800_000), True, None),
    (dict(verdictMilliseconds=7_258_118_399_999, clockMilliseconds=7_258_118_399_999), True, None),
    (dict(clockMilliseconds=T_INCIDENT - 1), False, r"clockMilliseconds: incident state: clockMilliseconds \d+ ms is before the verdict"),
    (dict(clockMilliseconds=7_258_118_400_000), False, r"clockMilliseconds: .* 7258118400000 ms is outside 1900–2200"),
    (dict(lastCheckMilliseconds=-2_208_988_800_000), True, None),
    (dict(lastCheckMilliseconds=-2_208_988_800_001), False, r"lastCheckMilliseconds: .* -2208988800001 ms is outside 1900–2200"),
    (dict(verdictMilliseconds=-2_208_988_800_001), False, r"verdictMilliseconds: incident state: verdictMilliseconds -2208988800001 ms is outside 1900–2200"),
    (dict(verdictMilliseconds=7_258_118_400_000), False, r"verdictMilliseconds: .* 7258118400000 ms is outside 1900–2200"),
    (dict(phase={"sending": {"attempts": 1, "nextMilliseconds": T_INCIDENT}}), True, None),
    (dict(phase={"sending": {"attempts": 0, "nextMilliseconds": T_INCIDENT}}), False, r"phase: incident state: sending with 0 attempts"),
    (dict(phase={"sending": {"attempts": 1, "nextMilliseconds": 7_258_118_400_000}}), False, r"phase: .*nextMilliseconds 7258118400000 ms"),
    (dict(raisedBy="silence"), True, None),
    (dict(raisedBy="robot"), False, r"raisedBy: incident state: raisedBy 'robot' is neither person nor silence"),
])
def test_a_saved_incident_s_values_are_checked_at_both_sides(edit, accepted, named):
    saved = json.loads(hearth.Incident(T_INCIDENT, "me").save())
    saved.update(edit)
    data = json.dumps(saved).encode()
    if accepted:
        assert json.loads(hearth.Incident.restore(data).save()) == saved
    else:
        with pytest.raises(hearth.BadInputError, match=named):
            hearth.Incident.restore(data)


@pytest.mark.parametrize("thresholds, named", [
    (dict(jolt_g=-4), r"joltMetersPerSecondSquared: -39\.2266 m/s² is outside \(0, 627\.6256\] m/s²"),
    (dict(jolt_g=0), r"joltMetersPerSecondSquared: 0 m/s² is outside \(0, 627\.6256\] m/s²"),
    (dict(spin_radps=-1), r"spinRadiansPerSecond: -1 rad/s is outside \[0, ∞\) rad/s"),
    (dict(free_fall_s=-1), r"freeFallSeconds: -1 s is outside \[0, ∞\) s"),
])
def test_a_detector_threshold_outside_its_domain_is_refused_naming_the_setting_and_its_range(thresholds, named):
    config = hearth.ImpactConfig().with_thresholds(**thresholds)
    with pytest.raises(hearth.BadInputError, match=named):
        hearth.Detector(config)
    with pytest.raises(hearth.BadInputError, match=named):
        hearth.ImpactConfig.from_json(json.dumps(config.to_settings()))


def test_a_recording_whose_vehicle_gate_closes_reports_as_the_command_does(command, tmp_path):
    # Quiet driving whose classifier says automotive, then walking from 40 s:
    # the command's quiet line says the gate was off (until the classifier said automotive at 0.5 s, and from 40 s); so must the library's.
    from hearth._ffi import created, ffi, lib, pointer, raise_for, text

    t = np.arange(0, 60, 0.02)
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-0.2, 0.2, len(t)), rng.uniform(-0.2, 0.2, len(t))
    z = 9.81 + rng.uniform(-0.2, 0.2, len(t))
    handle = created(lib.hearth_trace_create, text('{"format": "columns"}'))
    raise_for(lib.hearth_trace_append(handle, lib.HEARTH_STREAM_ACCELEROMETER, len(t), *(pointer(c, "double") for c in (t, x, y, z))), handle)
    when, codes = np.array([0.5, 40.0]), np.array([5.0, 2.0])
    raise_for(lib.hearth_trace_append(handle, lib.HEARTH_STREAM_ACTIVITIES, 2, pointer(when, "double"), pointer(codes, "double"), ffi.NULL, ffi.NULL), handle)
    folder = tmp_path / "gate"
    raise_for(lib.hearth_trace_write(handle, text(str(folder))), handle)
    for format in ("text", "json", "csv"):
        theirs = run(command, "impact", "detect", "--format", format, folder).stdout.decode()
        assert "vehicle gate off until 0.5 s and from 40.0 s" in theirs
        assert hearth.report(folder, format=format) == theirs
    # The recording built from columns, fed as it is, reports the same.
    detector = hearth.Detector()
    raise_for(lib.hearth_detector_feed_trace(detector._handle, handle, lib.HEARTH_GATE_RECORDING), detector._handle)
    assert detector.finish().report(str(folder), "text") == run(command, "impact", "detect", folder).stdout.decode()


# MARK: fix speeds with their accuracy (SPEC §1 unmeasured speed; hearth_detector_feed_with_accuracy)

KNOCK = hearth.impact._example_accelerometer()  # 30 s still, a 5.1 g knock at 10 s
FIX_T = np.arange(0.0, 30.0)  # a fix every second around it


def moving_from(fixes) -> str:
    """Where "moving before the jolt" was judged from for the knock: gps when
    a fix with a measured speed was current, vibration when none was."""
    verdicts = hearth.Detector().feed(KNOCK, fixes=fixes).finish().verdicts()
    assert len(verdicts) == 1
    return verdicts.moving_from[0]


@pytest.mark.parametrize(
    "speed_mps, accuracy_m, judged_from",
    [
        (0.0, 30.0, "gps"),  # a 0 on a 30 m fix is a real stop
        (0.0, 29.5, "gps"),
        (0.0, 30.5, "vibration"),  # looser: Android's "never measured"
        (0.0, 65.0, "vibration"),
        (0.1, 65.0, "gps"),  # a small measured speed is kept on any fix
        (0.1, 30.5, "gps"),
        (0.0, float("nan"), "vibration"),  # unknown accuracy: a 0 is unmeasured
        (0.0, -1.0, "vibration"),  # negative: unknown, as the readers take it
        (0.1, float("nan"), "gps"),
        (-1.0, 5.0, "vibration"),  # iOS's −1
    ],
)
def test_a_raw_fix_speed_is_judged_with_its_accuracy(speed_mps, accuracy_m, judged_from):
    n = len(FIX_T)
    assert moving_from((FIX_T, np.full(n, speed_mps), np.full(n, accuracy_m))) == judged_from
    frame = pd.DataFrame({"t_s": FIX_T, "speed_mps": np.full(n, speed_mps), "accuracy_m": np.full(n, accuracy_m)})
    assert moving_from(frame) == judged_from
    assert moving_from(frame.rename(columns={"accuracy_m": "horizontal_accuracy_m"})) == judged_from


def test_without_an_accuracy_column_speeds_are_taken_as_given():
    """hearth_detector_feed as before: a 0 is a stop, whatever fix it came from."""
    assert moving_from((FIX_T, np.zeros(len(FIX_T)))) == "gps"
    assert moving_from(pd.DataFrame({"t_s": FIX_T, "speed_mps": np.zeros(len(FIX_T))})) == "gps"
    assert moving_from((FIX_T, np.full(len(FIX_T), -1.0))) == "vibration"


def test_an_accuracy_that_is_no_reading_skips_its_fix_and_counts_it():
    accuracy = np.full(len(FIX_T), 65.0)
    accuracy[[3, 4, 5]] = [np.inf, -np.inf, 100_001.0]
    d = hearth.Detector().feed(KNOCK, fixes=(FIX_T, np.full(len(FIX_T), 12.0), accuracy)).finish()
    assert d.counters()["skipped_samples"] == 3
    assert d.verdicts().moving_from.tolist() == ["gps"]  # the other fixes still count
    fine = hearth.Detector().feed(KNOCK, fixes=(FIX_T, np.full(len(FIX_T), 12.0), np.full(len(FIX_T), 100_000.0))).finish()
    assert fine.counters()["skipped_samples"] == 0


def test_accuracy_columns_are_checked_as_the_other_columns_are():
    with pytest.raises(ValueError, match="different lengths"):
        hearth.Detector().feed(KNOCK, fixes=(FIX_T, np.zeros(30), np.zeros(29)))
    with pytest.raises(ValueError, match=r"expected 2 arrays \(t_s, speed_mps\) or 3"):
        hearth.Detector().feed(KNOCK, fixes=(FIX_T, np.zeros(30), np.zeros(30), np.zeros(30)))
    both = pd.DataFrame({"t_s": FIX_T, "speed_mps": 0.0, "accuracy_m": 5.0, "horizontal_accuracy_m": 5.0})
    with pytest.raises(ValueError, match="both accuracy_m and horizontal_accuracy_m"):
        hearth.Detector().feed(KNOCK, fixes=both)
    with pytest.raises(ValueError, match="fixes.accuracy_m"):
        hearth.Detector().feed(KNOCK, fixes=(FIX_T, np.zeros(30), np.zeros(30, dtype=np.float32)))


# MARK: the receipt time (hearth_detector_feed_received)


def _knock_fed_in_seconds(received_lag_s):
    """The knock fed a second at a time with one sample stamped 5 000 s ahead
    in the first second, each second received `received_lag_s` after its end
    (None: no receipt time)."""
    d = hearth.Detector()
    for start in range(30):
        part = KNOCK[(KNOCK.t_s >= start) & (KNOCK.t_s < start + 1)]
        if start == 0:
            part = pd.concat([part, pd.DataFrame({"t_s": [5000.0], "x_mps2": [0.0], "y_mps2": [0.0], "z_mps2": [9.81]})])
        received = None if received_lag_s is None else start + 1 + received_lag_s
        d.feed(part, received_s=received)
    return d.finish()


def test_a_sample_stamped_after_its_receipt_is_skipped_and_the_knock_still_judged():
    guarded = _knock_fed_in_seconds(0.05)
    assert guarded.counters()["skipped_samples"] == 1
    assert len(guarded.verdicts()) == 1
    # Without a receipt time the stray is taken: every later sample is old, the knock never seen.
    blind = _knock_fed_in_seconds(None)
    assert blind.counters()["skipped_samples"] == len(KNOCK) - 50
    assert len(blind.verdicts()) == 0
    assert _knock_fed_in_seconds(float("nan")).counters()["skipped_samples"] == len(KNOCK) - 50


@pytest.mark.parametrize("received", [float("inf"), float("-inf"), 1.7e18, -1e10 * (1 + 1e-15), "31", True, 10**400])
def test_a_receipt_time_that_is_no_time_is_refused_by_name(received):
    """Infinite, beyond the samples' ±1e10 s (a receipt in nanoseconds), or not a number."""
    with pytest.raises(ValueError, match="received_s"):
        hearth.Detector().feed(KNOCK, received_s=received)


def test_a_receipt_time_may_be_any_real_number_within_the_bound():
    for received in (np.float64(31.0), 31, np.int64(31), 1e10):
        assert len(hearth.Detector().feed(KNOCK, received_s=received).finish().verdicts()) == 1


def test_the_receipt_time_keeps_the_speeds_as_the_columns_say():
    """With a receipt time, fixes without an accuracy column are taken as
    given and with one are judged as raw readings, as without it."""
    zeros = (FIX_T, np.zeros(len(FIX_T)))
    assert hearth.Detector().feed(KNOCK, fixes=zeros, received_s=31.0).finish().verdicts().moving_from.tolist() == ["gps"]
    loose = (FIX_T, np.zeros(len(FIX_T)), np.full(len(FIX_T), 65.0))
    assert hearth.Detector().feed(KNOCK, fixes=loose, received_s=31.0).finish().verdicts().moving_from.tolist() == [
        "vibration"]


def test_a_crash_after_loose_android_zeros_is_reported_with_their_accuracy(scenario):
    """The generated crash with every fix before the jolt made an Android
    network fix (speed 0, never measured, 65 m): taken as given the zeros say
    "not moving" and the crash is silent; with the accuracy it is reported."""
    trace = hearth.read_trace(scenario)
    a, g, b, f = columns(trace)
    jolt = hearth.Detector().feed(a, g, b, f).finish().verdicts().query("outcome == 'possibleImpact'").jolt_time_s.iloc[0]
    before = f.t_s.to_numpy() < jolt
    speeds = np.where(before, 0.0, f.speed_mps.to_numpy())
    accuracy = np.where(before, 65.0, 5.0)
    as_given = hearth.Detector().feed(a, g, b, (f.t_s.to_numpy(), speeds)).finish().verdicts()
    assert as_given.outcome.tolist() == ["silent"] and as_given.moving_from.tolist() == ["gps"]
    judged = hearth.Detector().feed(a, g, b, (f.t_s.to_numpy(), speeds, accuracy)).finish().verdicts()
    assert judged.outcome.tolist() == ["possibleImpact"] and judged.moving_from.tolist() == ["vibration"]


def test_a_suppressed_verdict_is_not_judged_so_it_has_no_moving_from(command, tmp_path):
    """C16 (a crash, then a second jolt within the 60 s suppression): the
    second verdict is suppressed and never judged, so neither form names a
    source for it (pandas' missing value, as on the noJolt row), while the
    judged verdicts name theirs."""
    out = tmp_path / "c16"
    run(command, "sim", "generate", "scenario", "C16", "--seed", "1", "--out", out)
    rows = hearth.detect([out, DRIVE])
    assert (rows.outcome == "suppressed").any() and rows[rows.outcome.isin(["suppressed", "noJolt"])].moving_from.isna().all()
    assert set(rows[rows.outcome.isin(["possibleImpact", "silent"])].moving_from) <= {"gps", "vibration"}
    # A str column whatever the rows: .str works on a frame of noJolt rows alone.
    assert hearth.detect(DRIVE).moving_from.str.len().isna().all()
    a, g, b, f = columns(hearth.read_trace(out))
    verdicts = hearth.Detector().feed(a, g, b, f).finish().verdicts()
    assert verdicts.outcome.tolist().count("suppressed") == 1
    assert verdicts[verdicts.outcome == "suppressed"].moving_from.isna().all()
    assert verdicts[verdicts.outcome != "suppressed"].moving_from.isin(["gps", "vibration"]).all()
