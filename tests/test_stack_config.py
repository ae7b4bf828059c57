"""The names a stack is placed in and derives, checked when the config is read (issue 11, points 13 and 15).

Through the program under Pulumi's mocks, as `pulumi preview` runs it.
"""

import pytest

from stack_config import ConfigError
from tests.fixtures import docs_request_body
from tests.program import Recorder, render


def config(teams=None, environment="dev", **keys) -> dict:
    return {
        "gcp:project": "acme-ml-dev",
        "gcp:region": "us-central1",
        "spot-training:environment": environment,
        "spot-training:teams": teams or {"vision": {"jobs": {"resnet": docs_request_body()["jobSpec"]}}},
        **keys,
    }


def failures_of(cfg: dict) -> str:
    recorder = Recorder()
    with pytest.raises(ConfigError) as raised:
        render(cfg, recorder=recorder)
    assert [r for r in recorder.resources if r.typ != "pulumi:pulumi:Stack"] == []  # nothing registered first
    return str(raised.value)


# --- gcp:project and gcp:region (point 13) ---


@pytest.mark.parametrize("project", ["Acme_ML", "acme", "1acme-ml-dev", "acme-ml-dev-", "a" * 31])
def test_a_project_id_google_would_refuse_is_an_error_naming_gcp_project(project):
    # https://cloud.google.com/resource-manager/docs/creating-managing-projects: 6-30 characters of
    # lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen.
    message = failures_of({**config(), "gcp:project": project})
    assert f"gcp:project: {project!r} is not a project id" in message


def test_a_legacy_domain_scoped_project_id_is_accepted():
    cfg = {**config(), "gcp:project": "example.com:acme-ml"}
    cfg["spot-training:teams"]["vision"]["bucket"] = {"name": "acme-ml-vision-staging"}  # ':' is no bucket character
    render(cfg)


def test_an_unknown_region_is_an_error_with_a_did_you_mean_and_the_way_to_allow_it():
    message = failures_of({**config(), "gcp:region": "us central"})
    assert "gcp:region: 'us central' is not a region Vertex AI custom training runs in; did you mean us-central1?" in message
    assert "spot-training:extraRegions" in message


def test_a_region_google_lists_renders_and_one_not_yet_listed_renders_once_allowed():
    # The table: https://cloud.google.com/vertex-ai/docs/general/locations
    render({**config(), "gcp:region": "europe-west4"})
    assert "gcp:region" in failures_of({**config(), "gcp:region": "us-central9"})
    render({**config(), "gcp:region": "us-central9", "spot-training:extraRegions": ["us-central9"]})


def test_extra_regions_are_region_ids():
    message = failures_of({**config(), "spot-training:extraRegions": ["us-central9", "US Central"]})
    assert "spot-training:extraRegions[1]: 'US Central' is not a region id" in message
    assert "spot-training:extraRegions: must be a list" in failures_of({**config(), "spot-training:extraRegions": "us-central9"})
