"""detect, report, Detector.feed_trace and both sweeps take the recording the
researcher holds (issue 31.2): the frames read_trace returned, as edited;
Arrow tables; Parquet folders; CSV with a mapping. Nothing is read again from
the path the frames came from."""

import shutil

import numpy as np
import pandas as pd
import pytest

import hearth
import hearth.distributed as hd
from conftest import DRIVE, DROP

pa = pytest.importorskip("pyarrow")
from hearth.parquet import ArrowTrace  # noqa: E402

ARGS = dict(grid={"jolt_g": [3.5, 4]}, seeds=1, hours=0, progress=False)


@pytest.fixture(scope="module")
def drop():
    return hearth.read_trace(DROP, progress=False)


def test_unedited_frames_give_the_path_s_verdicts(drop):
    by_path = hearth.detect(DROP, progress=False)
    by_frames = hearth.detect(drop, progress=False)
    pd.testing.assert_frame_equal(by_frames, by_path)
    assert (by_path.outcome != "noJolt").any(), "the drop recording has a jolt to crop away"
    assert hearth.report(drop, format="json", progress=False) == hearth.report(DROP, format="json", progress=False)


def test_a_cropped_frame_gives_the_cropped_recording_s_verdict_not_the_file_s(drop, tmp_path):
    jolt = hearth.detect(drop, progress=False).jolt_time_s.dropna().min()
    cropped = hearth.read_trace(DROP, progress=False)
    acc = cropped["accelerometer"]
    cropped["accelerometer"] = acc[acc.t_s < jolt - 1.0]
    result = hearth.detect(cropped, progress=False)
    assert list(result.outcome) == ["noJolt"], result
    # …and it is what the library says of that cropped recording written out and read back.
    ArrowTrace.from_recording(cropped).to_trace_folder(tmp_path / "cropped")
    expected = hearth.detect(tmp_path / "cropped", progress=False)
    assert result.drop(columns="file").equals(expected.drop(columns="file"))
    # The detector fed the frames directly agrees, and a sweep of the frames too.
    detector = hearth.Detector().feed_trace(cropped).finish()
    assert detector.verdicts().empty
    swept = hearth.sweep([cropped], **ARGS)
    assert swept.export("sweep.csv") == hearth.sweep([tmp_path / "cropped"], **ARGS).export("sweep.csv")
    assert swept.export("sweep.csv") != hearth.sweep([DROP], **ARGS).export("sweep.csv")


def test_the_path_is_not_read_again(drop, tmp_path):
    copy = tmp_path / "fall"
    shutil.copytree(DROP, copy)
    frames = hearth.read_trace(copy, progress=False)
    expected = hearth.detect(frames, progress=False)
    shutil.rmtree(copy)  # the file is gone: the frames are what counts
    pd.testing.assert_frame_equal(hearth.detect(frames, progress=False), expected)
    hearth.sweep([frames], **ARGS)


def test_arrow_tables_and_a_parquet_folder_are_taken_as_they_are(drop, tmp_path):
    expected = hearth.detect(drop, progress=False).drop(columns="file")
    arrow = ArrowTrace.from_recording(drop)
    arrow.write(tmp_path / "pq")
    for held in (arrow, dict(arrow.tables), tmp_path / "pq"):
        assert hearth.detect(held, progress=False).drop(columns="file").equals(expected), type(held)
    assert hearth.sweep([tmp_path / "pq"], **ARGS).export("sweep.csv") == hearth.sweep([drop], **ARGS).export("sweep.csv")


def test_the_distributed_sweep_takes_edited_frames_too(drop):
    cropped = hearth.read_trace(DROP, progress=False)
    cropped["accelerometer"] = cropped["accelerometer"].iloc[: len(cropped["accelerometer"]) // 3]
    with_threads = hearth.sweep([cropped, DRIVE], **ARGS)
    from concurrent.futures import ThreadPoolExecutor

    from concurrent.futures import ProcessPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        distributed = hd.sweep([cropped, DRIVE], client=pool, **ARGS)
    assert distributed.export("sweep.csv") == with_threads.export("sweep.csv")
    assert distributed.export("jolts.csv") == with_threads.export("jolts.csv")
    # Pickled to other processes, the edited frames go as they are.
    with ProcessPoolExecutor(2) as pool:
        in_processes = hd.sweep([cropped, DRIVE], client=pool, **ARGS)
        executor = hearth.sweep([cropped, DRIVE], executor=pool, **ARGS)
    for other in (in_processes, executor):
        assert other.export("sweep.csv") == with_threads.export("sweep.csv")
        assert other.export("jolts.csv") == with_threads.export("jolts.csv")


def test_a_csv_file_with_a_mapping_as_the_command_has_it(tmp_path):
    # The drop's accelerometer as a plain CSV and its column mapping (docs/guides/trace-formats.md).
    frames = hearth.read_trace(DROP, progress=False)
    acc = frames["accelerometer"][["t_s", "x_mps2", "y_mps2", "z_mps2"]]
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "acc.csv").write_text("t,ax,ay,az\n" + "".join(f"{t!r},{x!r},{y!r},{z!r}\n" for t, x, y, z in acc.itertuples(index=False)))
    axis = lambda c: {"column": c, "unit": "m/s^2"}  # noqa: E731
    mapping = tmp_path / "mapping.json"
    import json

    mapping.write_text(json.dumps({"name": "drop accelerometer", "files": [{"file": "acc.csv", "time": {"column": "t", "format": "relative-seconds"},
                                              "accelerometer": {"x": axis("ax"), "y": axis("ay"), "z": axis("az"), "content": "includesGravity"}}]}))
    (folder / "mapping.json").write_text(mapping.read_text())
    by_mapping = hearth.detect(folder, mapping=folder / "mapping.json", progress=False)
    read = hearth.read_trace(folder, folder / "mapping.json", progress=False)
    assert by_mapping.drop(columns="file").equals(hearth.detect(read, progress=False).drop(columns="file"))
    assert (by_mapping.outcome != "noJolt").any()
    with pytest.raises(hearth.BadInputError):
        hearth.detect(folder, progress=False)  # without the mapping the folder is no recording


def test_feed_takes_the_fixes_frame_read_trace_gives():
    frames = hearth.read_trace(DRIVE, progress=False)
    fixes = frames["fixes"]
    assert len(fixes) and "t_s" not in fixes.columns
    origin = frames.info["timeOriginMs"]
    expected_t = (fixes.time_ms.to_numpy() - origin) / 1000.0
    a = hearth.Detector().feed(frames["accelerometer"], frames["gyroscope"], frames["barometer"], fixes).finish()
    b = hearth.Detector().feed(frames["accelerometer"], frames["gyroscope"], frames["barometer"],
                               pd.DataFrame({"t_s": expected_t, "speed_mps": fixes.speed_mps.to_numpy()})).finish()
    pd.testing.assert_frame_equal(a.verdicts(), b.verdicts())
    assert a.counters() == b.counters()
    stripped = fixes.copy()
    stripped.attrs = {}
    with pytest.raises(ValueError, match="no time origin"):
        hearth.Detector().feed(fixes=stripped)


def test_an_edited_frame_missing_a_column_is_named(drop):
    broken = hearth.read_trace(DROP, progress=False)
    broken["accelerometer"] = broken["accelerometer"].drop(columns="z_mps2")
    with pytest.raises(ValueError, match=r"accelerometer frame is missing columns \['z_mps2'\]"):
        hearth.detect(broken, progress=False)
    with pytest.raises(TypeError, match="a recording"):
        hearth.detect([42], progress=False)
