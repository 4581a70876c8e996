"""Hearth's location and sensor maths for Python: numpy columns in, numpy and
pandas out, through libhearth's C ABI (cffi in ABI mode; the GIL is released
during every call into the library).

    import hearth
    hearth.haversine(lat1, lon1, lat2, lon2)        # metres
    hearth.snap(lat, lon)                            # the 750 m privacy grid
    trace = hearth.read_trace("recording/")          # dict of DataFrames, units in the column names
    hearth.detect(trace, hearth.ImpactConfig())      # one row per verdict and condition
    hearth.sweep([trace], {"jolt_g": [3.5, 4, 5]}, seeds=2, hours=5, n_jobs=2)
    hearth.Ingest(places, circles).ingest(fixes, received_ms)

Optional modules (their extras): hearth.parquet (recordings as Parquet/Arrow
tables; pyarrow) and hearth.distributed (sweeps and fleet replays on Dask or
any executor; dask, distributed). See python/README.md for a walkthrough and
docs/guides/distributed.md for clusters.
"""

from ._ffi import BadInputError, HearthError, SchemaError, lib as _lib
from .geo import Dedupe, Grid, distances_from, haversine, snap, track_distances, validate
from .impact import BadRecordingWarning, Detector, ImpactConfig, Incident, detect, report
from .ingest import Ingest, describe, trips, uploads
from .plot import plot_verdict
from .sweep import SweepPlan, SweepResult, run_task, spec, sweep
from .trace import read_trace

ABI_VERSION = _lib.hearth_abi_version()
__version__ = "0.1.0"

__all__ = [
    "BadInputError", "BadRecordingWarning", "Dedupe", "Detector", "Grid", "HearthError", "ImpactConfig", "Incident", "Ingest",
    "SchemaError", "SweepPlan", "SweepResult", "describe", "detect", "distances_from", "haversine", "plot_verdict",
    "read_trace", "report", "run_task", "snap", "spec", "sweep", "track_distances", "trips", "uploads", "validate",
]
