"""The detector streams a recording read from a path through every door in
bounded memory: `hearth.detect` (hearth_trace_read + hearth_detector_feed_trace)
peaks at the same RSS for a recording four times as long."""

import json
import subprocess
import sys

import numpy as np

from conftest import ROOT

# What the child runs: the detector on the recording at argv[2], then its
# peak RSS (kB) and the number of rows the report has.
CHILD = """
import json, resource, sys
sys.path.insert(0, sys.argv[1])
import hearth
frame = hearth.detect(sys.argv[2], vehicle_gate="on")
print(json.dumps({"peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "rows": len(frame),
                  "outcome": frame.outcome.iloc[0], "hours": float(frame.measured.iloc[0])}))
"""


def write_sensor_logger(folder, seconds: int) -> int:
    """A quiet Sensor Logger export of `seconds` s: 100 Hz accelerometer
    (gravity included), 50 Hz gyroscope, 1 Hz fixes. Returns its bytes."""
    folder.mkdir()
    (folder / "Metadata.csv").write_text(
        "version,device name,recording epoch time,platform,standardisation\n3,MemoryTest,1700000000000,android,false\n")
    rng = np.random.default_rng(7)
    origin_ns = 1_700_000_000_000_000_000

    def write(name, header, rate_hz, columns):
        n = seconds * rate_hz
        step_ns = 1_000_000_000 // rate_hz
        with open(folder / name, "w") as f:
            f.write(header + "\n")
            for start in range(0, n, 100_000):
                i = np.arange(start, min(n, start + 100_000))
                values = columns(len(i))
                lines = [f"{origin_ns + k * step_ns},{k / rate_hz:.3f}," + ",".join(f"{v:.5f}" for v in row)
                         for k, row in zip(i.tolist(), values.tolist())]
                f.write("\n".join(lines) + "\n")

    write("TotalAcceleration.csv", "time,seconds_elapsed,z,y,x", 100,
          lambda n: np.column_stack([9.81 + rng.uniform(-0.3, 0.3, n), rng.uniform(-0.5, 0.5, (n, 2))]))
    write("Gyroscope.csv", "time,seconds_elapsed,z,y,x", 50, lambda n: rng.uniform(-0.2, 0.2, (n, 3)))
    write("Location.csv", "time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude", 1,
          lambda n: np.column_stack([rng.uniform(3, 10, n), rng.uniform(10, 30, n), np.full(n, 90.0), np.full(n, 100.0),
                                     -75 + rng.uniform(0, 0.1, n), np.full(n, 40.1)]))
    return sum(p.stat().st_size for p in folder.iterdir())


def peak(path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "python"), str(path)], capture_output=True, check=True)
    return json.loads(out.stdout)


def test_detect_streams_a_recording_in_memory_that_does_not_grow_with_it(tmp_path):
    short_seconds, long_seconds = 2_000, 20_000
    short_bytes = write_sensor_logger(tmp_path / "short", short_seconds)
    long_bytes = write_sensor_logger(tmp_path / "long", long_seconds)
    short, long = peak(tmp_path / "short"), peak(tmp_path / "long")
    # Both read whole: a quiet row each, with the hours the recording holds.
    assert short["outcome"] == long["outcome"] == "noJolt"
    grown_mb = (long["peak_kb"] - short["peak_kb"]) / 1024
    data_mb = (long_bytes - short_bytes) / 2**20
    # A whole read keeps every sample (32 bytes each: 86 MB more here);
    # the stream keeps a chunk and a window whatever the length.
    assert data_mb > 100
    assert grown_mb < 12, f"peak RSS grew {grown_mb:.1f} MB for {data_mb:.0f} MB more recording ({short['peak_kb']} → {long['peak_kb']} kB)"
