"""ContainerRepository under Pulumi's mocks, with the real pulumi_gcp classes."""

import pytest
from pulumi.runtime import rpc

from components.artifact_registry import ContainerRepository, ContainerRepositoryArgs
from components.team_definition import ImageConfig
from tests.program import Recorder, render_components

AGENT = "serviceAccount:service-123456789012@gcp-sa-aiplatform-cc.iam.gserviceaccount.com"


def render(recorder=None, **overrides):
    args = ContainerRepositoryArgs(**{
        "project": "acme-ml-dev", "location": "us-central1", "team": "vision", "environment": "dev",
        "images": {"trainer": ImageConfig(name="trainer", tag="2026-11-30")}, **overrides,
    })
    seen = {}

    def build():
        repo = ContainerRepository("vision-images", args)
        return repo.images["trainer"].apply(lambda uri: seen.setdefault("image", uri))

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


def test_an_image_neither_pushed_nor_built_is_named():
    with pytest.raises(ValueError, match=r"vision-images: images.trainer needs a name and a tag"):
        render(images={"trainer": ImageConfig(name="trainer")})


def build(context, recorder=None):
    seen = {}
    args = ContainerRepositoryArgs(
        project="acme-ml-dev", location="us-central1", team="vision", environment="dev",
        images={"eval": ImageConfig(context=str(context))},
    )

    def program():
        repo = ContainerRepository("vision-images", args)
        return repo.images["eval"].apply(lambda uri: seen.setdefault("image", uri))

    recorder = render_components(program, recorder=recorder)
    return recorder, seen["image"]


def test_an_image_built_from_a_local_context_is_pushed_and_pinned_by_its_digest(tmp_path):
    (tmp_path / "Dockerfile").write_text("FROM python:3.11-slim\n")
    recorder, first = build(tmp_path)
    [image] = recorder.of_type("docker-build:index:Image")
    assert image.inputs["push"] is True and image.inputs["platforms"] == ["linux/amd64"]
    assert image.inputs["tags"] == ["us-central1-docker.pkg.dev/acme-ml-dev/vision/eval:dev"]
    registries = image.inputs["registries"]
    assert registries[rpc._special_sig_key] == rpc._special_secret_sig  # the access token is a secret in state
    assert registries["value"][0]["address"] == "us-central1-docker.pkg.dev"
    assert first.startswith("us-central1-docker.pkg.dev/acme-ml-dev/vision/eval@sha256:")
    assert build(tmp_path)[1] == first
    (tmp_path / "evaluate.py").write_text("print('eval')\n")
    assert build(tmp_path)[1] != first  # a change to the context is a new digest


class _FirstPreview:
    """A preview of the stack's first update: every resource is new, so its id is unknown."""

    def __init__(self, new_types):
        from offline.mocks import OfflineMocks

        class Mocks(OfflineMocks):
            def new_resource(self, args):
                id_, state = super().new_resource(args)
                return (None if args.typ in new_types else id_), state

        self.mocks = Mocks()


def _preview_warnings(caplog, new_types):
    import logging

    from offline.program import run, stack_config

    caplog.set_level(logging.WARNING)
    run(stack_config("dev"), "dev", _FirstPreview(new_types).mocks, preview=True)
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_the_first_preview_says_to_push_a_pushed_image_before_up_when_the_stack_creates_its_repository(caplog):
    # stacks/Pulumi.dev.yaml: vision's `trainer: {name: trainer, tag: ...}` lives in the repository the stack creates.
    warnings = _preview_warnings(caplog, {"gcp:artifactregistry/repository:Repository"})
    [said] = [w for w in warnings if "image trainer:" in w]
    assert "us-central1-docker.pkg.dev/acme-ml-dev/vision, which this update creates" in said
    assert "pulumi up --target 'urn:pulumi:dev::spot-training::" in said and "Repository::vision-images'" in said
    assert "docker push us-central1-docker.pkg.dev/acme-ml-dev/vision/trainer:" in said


def test_a_preview_against_an_existing_repository_says_nothing_about_pushing(caplog):
    assert not [w for w in _preview_warnings(caplog, set()) if "docker push" in w]


def test_the_repository_registers_its_outputs_after_its_last_child_a_built_image(tmp_path):
    """Pulumi's component contract: `register_outputs` last, so the component is complete when the engine hears it is."""
    from tests.program import render as render_program

    context = tmp_path / "eval"
    context.mkdir()
    (context / "Dockerfile").write_text("FROM python:3.12-slim\n")
    recorder = render_program({
        "gcp:project": "acme-ml-dev", "gcp:region": "us-central1", "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {
            "repository": {"replicaRegions": ["us-east1"]},
            "images": {"eval": {"build": {"context": str(context)}}, "trainer": {"name": "trainer", "tag": "v1"}},
            "jobs": {},
        }},
    })
    [repository] = [e[1] for e in recorder.events if e[0] == "resource" and e[1].endswith("ContainerRepository::vision-images")]
    children = [i for i, e in enumerate(recorder.events) if e[0] == "resource" and e[2] == repository]
    assert len(children) >= 4  # the repository, its replica, their grants, the built image
    assert any(recorder.events[i][1].endswith("::vision-images-eval") for i in children)
    [outputs] = [i for i, e in enumerate(recorder.events) if e == ("outputs", repository)]
    assert outputs > max(children)
