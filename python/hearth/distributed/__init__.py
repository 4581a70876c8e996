"""Sweeps and fleet replays on a cluster (Dask, or any concurrent.futures
executor): the single-process results, byte for byte, on any number of
workers (docs/guides/distributed.md).

    import hearth.distributed as hd
    result = hd.sweep(["recordings/*"], {"jolt_g": [3.5, 4, 5]})         # a LocalCluster here
    result = hd.sweep(paths, grid, client="tcp://scheduler:8786")         # a cluster
    events = hd.replay(history, places, circles, client=pool)             # a process pool
"""

from ._backend import CLUSTER_SETTINGS, Outcome, Progress, TimeLimitExceeded, local_cluster
from .fleet import ReplayResult, check_partition, components, partition, replay, replay_in_process
from .sweeps import DistributedSweepResult, Recording, SweepBatch, plan_batches, recordings, sweep

__all__ = [
    "CLUSTER_SETTINGS", "DistributedSweepResult", "Outcome", "Progress", "Recording", "ReplayResult", "TimeLimitExceeded", "check_partition",
    "SweepBatch", "components", "local_cluster", "partition", "plan_batches", "recordings", "replay", "replay_in_process", "sweep",
]
