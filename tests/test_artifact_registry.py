"""ContainerRepository under Pulumi's mocks, with the real pulumi_gcp classes."""

from components.artifact_registry import ContainerRepository, ContainerRepositoryArgs
from tests.program import Recorder, render_components

AGENT = "serviceAccount:service-123456789012@gcp-sa-aiplatform-cc.iam.gserviceaccount.com"


def render(recorder=None, **overrides):
    args = ContainerRepositoryArgs(**{"project": "acme-ml-dev", "location": "us-central1", "team": "vision", "environment": "dev", **overrides})
    seen = {}

    def build():
        repo = ContainerRepository("vision-images", args)
        return repo.pinned_image("trainer", "2026-11-30").apply(lambda uri: seen.setdefault("image", uri))

    recorder = render_components(build, recorder=recorder)
    return recorder, seen["image"]


def test_a_docker_repository_with_cleanup_policies():
    recorder, _ = render(cleanup_dry_run=True, immutable_tags=True)
    [repo] = recorder.of_type("artifactregistry/repository:Repository")
    inputs = repo.inputs
    assert (inputs["format"], inputs["location"], inputs["repositoryId"]) == ("DOCKER", "us-central1", "vision")
    assert inputs["dockerConfig"] == {"immutableTags": True}
    assert inputs["cleanupPolicyDryRun"] is True
    policies = {p["id"]: p for p in inputs["cleanupPolicies"]}
    assert policies["keep-recent"]["mostRecentVersions"] == {"keepCount": 10}
    assert policies["delete-untagged"]["condition"] == {"tagState": "UNTAGGED", "olderThan": "604800s"}


def test_readers_are_granted_on_the_repository_only():
    recorder, _ = render(readers={"vertex-code-agent": AGENT})
    [grant] = recorder.of_type("artifactregistry/repositoryIamMember:RepositoryIamMember")
    assert (grant.inputs["role"], grant.inputs["member"], grant.inputs["repository"]) == (
        "roles/artifactregistry.reader", AGENT, "vision")


def test_an_image_is_pinned_by_digest_and_a_new_push_under_the_same_tag_changes_it():
    _, before = render()
    assert before.startswith("us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer@sha256:")
    pushed = Recorder()
    pushed.image_digests["trainer:2026-11-30"] = "f" * 64
    _, after = render(recorder=pushed)
    assert after == "us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer@sha256:" + "f" * 64
    assert after != before
