"""spot-training: the stack's Spot training jobs, one SpotTrainingJob per `spot-training:jobs` entry."""

import pulumi

from components.config import load_jobs
from components.spot_job.resource import SpotTrainingJob

jobs = load_jobs(pulumi.Config(), pulumi.Config("gcp"))  # raises, naming the path, before anything is registered
for name, args in jobs.items():
    job = SpotTrainingJob(name, args)
    pulumi.export(name, {"name": job.id, "state": job.state, "consoleUrl": job.consoleUrl})
