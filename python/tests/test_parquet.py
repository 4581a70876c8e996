"""Recordings as Parquet/Arrow tables (hearth.parquet) and recordings built
from columns in the library (ABI 1.1): the layout, conversions both ways bit
for bit, chunks handed over without copies, bad tables named."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hearth
import hearth.parquet as hp
from conftest import DRIVE, DROP
from hearth._ffi import created, ffi, lib, raise_for, take_bytes, text

FILES = ["sweep.csv", "outcomes.csv", "jolts.csv", "configurations.json", "sweep.json", "report.html"]


def same_frames(a, b):
    for stream in hp.STREAMS:
        assert a[stream].reset_index(drop=True).equals(b[stream].reset_index(drop=True)), stream


@pytest.mark.parametrize("source", [DRIVE, DROP], ids=["comma2k19", "phyphox"])
@pytest.mark.parametrize("form", ["parquet", "arrow"])
def test_a_recording_goes_to_the_layout_and_back_bit_for_bit(source, form, tmp_path):
    hp.from_trace_folder(source, tmp_path / "layout", format=form, row_group_rows=1000)
    assert hp.is_arrow_trace(tmp_path / "layout") and not hp.is_arrow_trace(source)
    hp.to_trace_folder(tmp_path / "layout", tmp_path / "folder")
    original, back = hearth.read_trace(source), hearth.read_trace(tmp_path / "folder")
    same_frames(original, back)
    assert back.info["format"] == original.info["format"] and back.info["timeOriginMs"] == original.info["timeOriginMs"]
    assert hp.read(tmp_path / "layout").info()["hoursWithData"] == original.info["hoursWithData"]


def test_the_schema_carries_units_stream_and_recording(tmp_path):
    hp.from_trace_folder(DRIVE, tmp_path)
    schema = pq.read_schema(tmp_path / "accelerometer.parquet")
    meta = {k.decode(): v.decode() for k, v in schema.metadata.items()}
    assert meta["hearth.layout"] == "hearth-trace-parquet/1" and meta["hearth.stream"] == "accelerometer"
    assert json.loads(meta["hearth.units"])["x_mps2"] == "m/s²"
    assert json.loads(meta["hearth.trace"])["format"] == "comma2k19"
    assert schema.field("t_s").metadata[b"unit"] == b"s" and schema.field("t_s").type == pa.float64()
    fixes = pq.read_schema(tmp_path / "fixes.parquet")
    assert fixes.field("time_ms").type == pa.int64() and fixes.field("user").type == pa.uint32()


def test_chunks_reach_the_library_as_their_own_buffers(tmp_path):
    hp.from_trace_folder(DRIVE, tmp_path, row_group_rows=700)
    trace = hp.read(tmp_path)
    table = trace.tables["accelerometer"]
    assert table.column("x_mps2").num_chunks > 1
    for batch in table.to_batches():
        array = batch.column(1)
        view = trace._view(array, "accelerometer", "x_mps2")
        # The numpy view starts at the Arrow chunk's own data buffer (no copy).
        assert view.__array_interface__["data"][0] == array.buffers()[1].address + array.offset * 8
        assert view.flags.c_contiguous and view.dtype == np.float64
    trace.handle()
    assert trace.copies == []


def test_a_chunk_with_nulls_is_copied_once_with_nan_and_counted(tmp_path):
    hp.from_trace_folder(DROP, tmp_path)
    trace = hp.read(tmp_path)
    table = trace.tables["accelerometer"]
    x = table.column("x_mps2").to_pylist()
    x[10] = None
    nulled = table.set_column(1, table.schema.field("x_mps2"), pa.chunked_array([pa.array(x, pa.float64())]))
    damaged = hp.ArrowTrace({"accelerometer": nulled}, trace.metadata, "damaged")
    handle = damaged.handle()
    assert damaged.copies == [("accelerometer", "x_mps2", len(x))]
    # The NaN sample is rejected as a trace folder's row would be, and counted;
    # the detector gets the rest.
    accelerometer = next(f for f in json.loads(take_bytes(lib.hearth_trace_info, handle))["files"] if f["file"] == "accelerometer")
    assert accelerometer["rejectedByReason"] == {"missingValue": 1} and accelerometer["rowsKept"] == len(x) - 1
    detector = hearth.Detector()
    raise_for(lib.hearth_detector_feed_trace(detector._handle, handle, lib.HEARTH_GATE_ON), detector._handle)
    assert detector.counters()["skipped_samples"] == 0


def test_a_column_of_another_type_or_a_null_time_is_named(tmp_path):
    hp.from_trace_folder(DRIVE, tmp_path)
    trace = hp.read(tmp_path)
    table = trace.tables["accelerometer"]
    as32 = table.set_column(1, pa.field("x_mps2", pa.float32()), table.column("x_mps2").cast(pa.float32()))
    with pytest.raises(hearth.BadInputError, match=r"mine/accelerometer: column x_mps2 is float, the layout has double"):
        hp.ArrowTrace({"accelerometer": as32}, name="mine")
    with pytest.raises(hearth.BadInputError, match=r"missing columns \['z_mps2'\]"):
        hp.ArrowTrace({"accelerometer": table.drop_columns(["z_mps2"])}, name="mine")
    times = trace.tables["fixes"].column("time_ms").to_pylist()
    times[3] = None
    fixes = trace.tables["fixes"].set_column(0, trace.tables["fixes"].schema.field("time_ms"), pa.chunked_array([pa.array(times, pa.int64())]))
    with pytest.raises(hearth.BadInputError, match="column time_ms has a null at row 3"):
        hp.ArrowTrace({"fixes": fixes}, name="mine").handle()


def test_a_folder_that_is_not_the_layout_is_named(tmp_path):
    pq.write_table(pa.table({"t_s": [0.0]}), tmp_path / "accelerometer.parquet")
    with pytest.raises(hearth.BadInputError, match="not in the layout hearth-trace-parquet/1"):
        hp.read(tmp_path)
    (tmp_path / "accelerometer.parquet").write_bytes(b"not parquet")
    with pytest.raises(hearth.BadInputError, match="accelerometer.parquet: not a readable parquet file"):
        hp.read(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(hearth.BadInputError, match="no stream file"):
        hp.read(empty)


def test_files_that_disagree_about_the_recording_are_named(tmp_path):
    hp.from_trace_folder(DRIVE, tmp_path)
    gyro = pq.read_table(tmp_path / "gyroscope.parquet")
    other = gyro.replace_schema_metadata({**gyro.schema.metadata, b"hearth.trace": b'{"format": "other"}'})
    pq.write_table(other, tmp_path / "gyroscope.parquet")
    with pytest.raises(hearth.BadInputError, match="gyroscope.parquet: its recording metadata"):
        hp.read(tmp_path)


def test_sweeping_the_layout_is_sweeping_the_recording(tmp_path):
    import hearth.distributed as hd
    from concurrent.futures import ThreadPoolExecutor

    hp.from_trace_folder(DRIVE, tmp_path / "drive", row_group_rows=999)
    args = dict(grid={"jolt_g": [4, 5]}, seeds=1, hours=0)
    with ThreadPoolExecutor(2) as pool:
        original = hd.sweep([DRIVE], client=pool, progress=False, **args)
        layout = hd.sweep([tmp_path / "drive"], client=pool, progress=False, **args)
        in_memory = hd.sweep([hp.read(tmp_path / "drive")], client=pool, progress=False, **args)
    for name in FILES:
        renamed = original.export(name).replace(str(DRIVE).encode(), str(tmp_path / "drive").encode())
        assert layout.export(name) == renamed == in_memory.export(name), name


# MARK: the ABI's recordings built from columns


def test_a_read_recording_is_not_appended_to():
    handle = created(lib.hearth_trace_read, text(str(DROP)), ffi.NULL)
    t = np.zeros(1)
    assert lib.hearth_trace_append(handle, lib.HEARTH_STREAM_BAROMETER, 1, ffi.from_buffer("double[]", t), ffi.from_buffer("double[]", t), ffi.NULL, ffi.NULL) == lib.HEARTH_ERROR_STATE
    assert "read from a file is not appended to" in ffi.string(lib.hearth_last_error(handle)).decode()


def test_created_metadata_is_checked_by_name():
    with pytest.raises(hearth.BadInputError, match="unknown key 'timeOrigin'"):
        created(lib.hearth_trace_create, text('{"timeOrigin": 5}'))
    with pytest.raises(hearth.BadInputError, match="'platform' must be ios, android or unknown"):
        created(lib.hearth_trace_create, text('{"platform": "palm"}'))
    info = json.loads(hearth._ffi.take_bytes(lib.hearth_trace_info, created(lib.hearth_trace_create, text('{"hoursWithData": 3, "timeOriginMs": 7}'))))
    assert info["timeOriginMs"] == 7 and info["format"] == "columns"


def test_appends_check_their_columns_and_reject_what_is_no_activity_code_as_a_folder_does():
    handle = created(lib.hearth_trace_create, text("{}"))
    t, x = np.array([0.0, 1.0, 2.0, 3.0]), np.array([5.0, 2.5, 9.0, np.nan])
    ptr = lambda a: ffi.from_buffer("double[]", a)  # noqa: E731
    assert lib.hearth_trace_append(handle, lib.HEARTH_STREAM_GYROSCOPE, 4, ptr(t), ptr(x), ffi.NULL, ffi.NULL) == lib.HEARTH_ERROR_ARGUMENT
    assert "needs x, y and z" in ffi.string(lib.hearth_last_error(handle)).decode()
    assert lib.hearth_trace_append(handle, 9, 4, ptr(t), ptr(x), ffi.NULL, ffi.NULL) == lib.HEARTH_ERROR_ARGUMENT
    assert lib.hearth_trace_append(handle, lib.HEARTH_STREAM_ACTIVITIES, -1, ptr(t), ptr(x), ffi.NULL, ffi.NULL) == lib.HEARTH_ERROR_ARGUMENT
    assert lib.hearth_trace_append(handle, lib.HEARTH_STREAM_ACTIVITIES, 0, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL) == lib.HEARTH_OK
    raise_for(lib.hearth_trace_append(handle, lib.HEARTH_STREAM_ACTIVITIES, 4, ptr(t), ptr(x), ffi.NULL, ffi.NULL), handle)
    count = ffi.new("int64_t *")
    raise_for(lib.hearth_trace_count(handle, lib.HEARTH_STREAM_ACTIVITIES, count), handle)
    codes = np.empty(1)
    times = np.empty(1)
    raise_for(lib.hearth_trace_samples(handle, lib.HEARTH_STREAM_ACTIVITIES, 1, ffi.from_buffer("double[]", times), ffi.from_buffer("double[]", codes), ffi.NULL, ffi.NULL), handle)
    # 5 is automotive; 2.5, 9 and NaN are no activity: rejected and counted, as in a trace folder.
    assert count[0] == 1 and codes.tolist() == [5.0]
    activities = next(f for f in json.loads(take_bytes(lib.hearth_trace_info, handle))["files"] if f["file"] == "activities")
    assert activities["rowsRead"] == 4 and activities["rejectedByReason"] == {"outOfRange": 3}


def test_a_sweep_task_on_a_recording_with_no_accelerometer_names_it():
    plan = hearth.SweepPlan(hearth.spec([], {"jolt_g": [4]}, seeds=1, hours=0))
    handle = created(plan._lab.hearth_trace_create, text("{}"), library=plan._lab)
    with pytest.raises(hearth.BadInputError, match="quiet: .*no accelerometer with gravity"):
        plan.run_trace(handle, "quiet")


@pytest.mark.parametrize("declared, where", [
    ("field", "x_mps2"),
    ("schema", "x_mps2"),
])
def test_a_column_declared_in_another_unit_is_refused_by_name(tmp_path, declared, where):
    # Issue 29.8: a column declared in km/h (or g) must not be read as m/s (m/s²).
    hp.from_trace_folder(DRIVE, tmp_path)
    table = hp.read(tmp_path).tables["accelerometer"]
    if declared == "field":
        i = table.schema.get_field_index(where)
        table = table.set_column(i, table.schema.field(where).with_metadata({"unit": "g"}), table.column(where))
    else:
        units = json.loads(table.schema.metadata[b"hearth.units"])
        units[where] = "g"
        table = table.replace_schema_metadata({**table.schema.metadata, b"hearth.units": json.dumps(units).encode()})
        # The field's own unit is the first said: take it away so the schema's is read.
        i = table.schema.get_field_index(where)
        table = table.set_column(i, pa.field(where, pa.float64()), table.column(where))
    with pytest.raises(hearth.BadInputError, match=r"mine/accelerometer: column x_mps2 is declared in 'g', the layout stores it in 'm/s²'"):
        hp.ArrowTrace({"accelerometer": table}, name="mine")


def test_a_speed_declared_in_km_h_is_refused_in_a_file_and_the_layout_s_own_units_are_taken(tmp_path):
    hp.from_trace_folder(DRIVE, tmp_path)
    fixes = pq.read_table(tmp_path / "fixes.parquet")
    i = fixes.schema.get_field_index("speed_mps")
    pq.write_table(fixes.set_column(i, fixes.schema.field("speed_mps").with_metadata({"unit": "km/h"}), fixes.column(i)), tmp_path / "fixes.parquet")
    with pytest.raises(hearth.BadInputError, match=r"fixes.parquet|fixes: column speed_mps is declared in 'km/h', the layout stores it in 'm/s'"):
        hp.read(tmp_path)
    # The same column with the layout's unit, or with none declared, is read.
    pq.write_table(fixes, tmp_path / "fixes.parquet")
    assert len(hp.read(tmp_path).tables["fixes"]) == len(fixes)
    bare = fixes.set_column(i, pa.field("speed_mps", pa.float64()), fixes.column(i))
    assert hp.ArrowTrace({"fixes": bare.replace_schema_metadata(None)}, name="bare").tables["fixes"].num_rows == len(fixes)


def test_latitude_91_a_time_of_int64_min_and_nan_times_are_rejected_with_the_readers_reasons(tmp_path):
    # Issue 29.8: the column door keeps none of them, and says so in the counts.
    hp.from_trace_folder(DRIVE, tmp_path)
    trace = hp.read(tmp_path)
    fixes = trace.tables["fixes"]
    latitude = fixes.column("latitude_deg").to_numpy().copy()
    latitude[0] = 91.0
    times = fixes.column("time_ms").to_numpy().copy()
    times[1] = np.iinfo(np.int64).min
    fixes = fixes.set_column(fixes.schema.get_field_index("latitude_deg"), fixes.schema.field("latitude_deg"), pa.array(latitude))
    fixes = fixes.set_column(0, fixes.schema.field("time_ms"), pa.array(times))
    accelerometer = trace.tables["accelerometer"]
    t = accelerometer.column("t_s").to_numpy().copy()
    t[2] = np.nan
    accelerometer = accelerometer.set_column(0, accelerometer.schema.field("t_s"), pa.array(t))
    handle = hp.ArrowTrace({"fixes": fixes, "accelerometer": accelerometer}, trace.metadata, name="hostile").handle()
    report = {f["file"]: f for f in json.loads(take_bytes(lib.hearth_trace_info, handle))["files"]}
    assert report["fixes"]["rejectedByReason"] == {"outOfRange": 1, "badTime": 1}, report["fixes"]
    assert report["fixes"]["rowsKept"] == len(fixes) - 2
    assert report["accelerometer"]["rejectedByReason"] == {"badTime": 1}, report["accelerometer"]
    assert report["accelerometer"]["rowsKept"] == len(accelerometer) - 1


def test_writing_over_a_recording_replaces_its_streams_and_touches_nothing_else(tmp_path):
    # review27 R6: a cropped recording written over the original read back the stream it dropped.
    whole = hp.ArrowTrace.from_recording(DRIVE)
    assert {"accelerometer", "fixes"} <= set(whole.tables)
    folder = tmp_path / "drive"
    whole.write(folder)
    (folder / "notes.txt").write_text("mine")
    cropped = hp.ArrowTrace({k: v for k, v in whole.tables.items() if k != "fixes"}, whole.metadata, "cropped")
    cropped.write(folder)
    assert sorted(hp.ArrowTrace.read(folder).tables) == sorted(cropped.tables)
    assert (folder / "notes.txt").read_text() == "mine"
    # Arrow over Parquet: the Parquet files go (else the folder holds both forms of a stream).
    whole.write(folder, format="arrow")
    assert sorted(p.name for p in folder.iterdir()) == sorted([f"{s}.arrow" for s in whole.tables] + ["notes.txt"])
    assert sorted(hp.ArrowTrace.read(folder).tables) == sorted(whole.tables)


def test_a_failed_write_leaves_the_earlier_recording_whole(tmp_path, monkeypatch):
    whole = hp.ArrowTrace.from_recording(DRIVE)
    folder = tmp_path / "drive"
    whole.write(folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    written = []
    real = hp.pq.write_table

    def write_until_the_disk_fills(table, where, **options):
        if written:
            raise OSError(28, "No space left on device")
        written.append(where)
        real(table, where, **options)

    monkeypatch.setattr(hp.pq, "write_table", write_until_the_disk_fills)
    with pytest.raises(OSError, match="No space left"):
        whole.write(folder)
    assert written, "one stream was written before the failure"
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before, "nothing replaced, no staging folder left"


def test_a_folder_of_anything_else_is_refused_untouched(tmp_path):
    trace = hp.ArrowTrace.from_recording(DROP)
    (tmp_path / "file").write_text("x")
    with pytest.raises(hearth.BadInputError, match="exists and is not a folder"):
        trace.write(tmp_path / "file")
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.csv").write_text("a,b\n")
    with pytest.raises(hearth.BadInputError, match="holds no stream file of hearth-trace-parquet/1"):
        trace.write(other)
    # A stream file's name is not enough: another program's fixes.parquet is not replaced.
    pq.write_table(pa.table({"t": [1.0]}), other / "fixes.parquet")
    with pytest.raises(hearth.BadInputError, match="fixes.parquet is not a stream file of hearth-trace-parquet/1"):
        trace.write(other)
    assert sorted(p.name for p in other.iterdir()) == ["data.csv", "fixes.parquet"]
    assert pq.read_table(other / "fixes.parquet").column_names == ["t"]
    # Hidden names aside, an empty folder is written into.
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / ".DS_Store").write_text("")
    trace.write(hidden)
    assert sorted(hp.ArrowTrace.read(hidden).tables) == ["accelerometer"]
