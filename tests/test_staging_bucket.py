"""StagingBucket under Pulumi's mocks, with the real pulumi_gcp classes."""

import pytest

from components.staging_bucket import StagingBucket, StagingBucketArgs
from tests.program import render_components


def render(**overrides):
    args = StagingBucketArgs(**{"project": "acme-ml-dev", "location": "us-central1", "team": "vision", "environment": "dev", **overrides})
    seen = {}

    def build():
        bucket = StagingBucket("vision-staging", args)
        return bucket.url.apply(lambda url: seen.setdefault("url", url))

    recorder = render_components(build)
    [bucket] = recorder.of_type("storage/bucket:Bucket")
    return recorder, bucket, seen["url"]


def test_the_bucket_is_private_regional_labelled_and_cleans_up_after_itself():
    _, bucket, url = render()
    inputs = bucket.inputs
    assert inputs["name"] == "acme-ml-dev-vision-staging" and url == "gs://acme-ml-dev-vision-staging"
    assert inputs["location"] == "US-CENTRAL1"
    assert inputs["uniformBucketLevelAccess"] is True
    assert inputs["publicAccessPrevention"] == "enforced"
    assert inputs["labels"] == {"team": "vision", "environment": "dev"}
    rules = {(r["action"]["type"], tuple(r["condition"].get("matchesPrefixes", []))): r["condition"]["age"] for r in inputs["lifecycleRules"]}
    assert rules == {("Delete", ("packages/",)): 30, ("Delete", ("jobs/",)): 90, ("AbortIncompleteMultipartUpload", ()): 1}


def test_dev_is_destroyable_and_prod_is_not_by_default():
    dev_recorder, dev, _ = render()
    assert dev.inputs["forceDestroy"] is True and not dev_recorder.protects(dev)
    recorder, prod, _ = render(environment="prod")
    assert prod.inputs["forceDestroy"] is False
    assert recorder.protects(prod)
    assert render(environment="prod", force_destroy=True)[1].inputs["forceDestroy"] is True


def test_versioning_and_cmek_when_asked():
    key = "projects/acme-ml-dev/locations/us-central1/keyRings/ml/cryptoKeys/staging"
    inputs = render(versioning=True, kms_key_name=key)[1].inputs
    assert inputs["versioning"] == {"enabled": True}
    assert inputs["encryption"] == {"defaultKmsKeyName": key}


def test_grants_are_bucket_scoped_members_named_by_role_and_key():
    recorder, _, _ = render(iam={"roles/storage.objectCreator": {"trainer": "serviceAccount:t@acme-ml-dev.iam.gserviceaccount.com"}})
    [grant] = recorder.of_type("storage/bucketIAMMember:BucketIAMMember")
    assert grant.name == "vision-staging-storage-objectcreator-trainer"
    assert grant.inputs["role"] == "roles/storage.objectCreator"
    assert grant.inputs["bucket"] == "acme-ml-dev-vision-staging"


def test_a_public_member_is_refused():
    with pytest.raises(ValueError, match="allUsers would make the resource public"):
        render(iam={"roles/storage.objectViewer": {"world": "allUsers"}})
