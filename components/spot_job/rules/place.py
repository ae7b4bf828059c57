"""Where the job runs: its project and its location are required and well formed."""

from __future__ import annotations

import re

from components.spot_job.rules.known import Fail, Known

# A project id (6-30 lowercase letters, digits and '-', starting with a letter,
# not ending with '-'; legacy domain-scoped ids as `example.com:my-project`),
# or a project number.
# https://cloud.google.com/resource-manager/docs/creating-managing-projects#before_you_begin
PROJECT = re.compile(r"^(?:[a-z][a-z0-9.-]*:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$|^\d{6,}$")
# A Google Cloud region id such as us-central1 or northamerica-northeast2.
# https://cloud.google.com/vertex-ai/docs/general/locations
LOCATION = re.compile(r"^[a-z]+(?:-[a-z]+)+\d+$")


def required_place(k: Known, fail: Fail) -> None:
    for key, pattern, example in (
        ("project", PROJECT, "acme-ml-dev"),
        ("location", LOCATION, "us-central1"),
    ):
        if not k.has(k.inputs, key):
            fail(key, f"is required (e.g. {example!r}); set it on the job or as gcp:{'region' if key == 'location' else key}")
        elif (value := k.text(k.inputs, key)) is not None and not pattern.match(value):
            fail(key, f"{value!r} is not a valid {key} (e.g. {example!r})")
