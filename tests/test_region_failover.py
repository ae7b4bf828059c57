"""A job that keeps being preempted moves to another region, as its fallback ladder says.

End to end as the engine drives `pulumi up`: the inputs the program registers
for a stack config with a region ladder, the SDK's dynamic provider host, and
the emulator serving every region, with Spot capacity gone per region.
"""

import copy

import pytest
from pulumi.runtime.proto import provider_pb2

from components.spot_job.model import spec
from components.spot_job.provider import SpotTrainingJobProvider
from operations import sweep
from operations.stack import Stack
from operations.state import StackState
from tests.fixtures import docs_request_body
from tests.program import render
from tests.provider_host import JOB_TYPE, deserialize
from tests.shared_host import emulator, host  # noqa: F401 (fixtures: one host per module)

URN = f"urn:pulumi:dev::spot-training::{JOB_TYPE}::vision-resnet"
HOME, AWAY = "us-central1", "us-east1"
# SPOT at home; after the 1st STOCKOUT, SPOT in us-east1; after the 2nd, STANDARD there.
LADDER = {"maxResubmissions": 3, "fallback": [{"afterStockouts": 1, "location": AWAY}, {"afterStockouts": 2, "strategy": "STANDARD"}]}


def config(resubmission: dict = LADDER) -> dict:
    job = {**docs_request_body()["jobSpec"], "resubmission": resubmission}
    return {
        "gcp:project": "acme-ml-dev",
        "gcp:region": HOME,
        "spot-training:environment": "dev",
        "spot-training:teams": {"vision": {"jobs": {"resnet": job}}},
    }


def program_inputs(resubmission: dict = LADDER) -> dict:
    [job] = render(config(resubmission)).of_type("SpotTrainingJob")
    return dict(job.inputs)


def up(host, id_: str, state: dict, inputs: dict) -> tuple[dict, str]:
    """One `pulumi up` (refresh on): read, diff, update if due; the state after, and what the preview showed."""
    host.clear_log()
    state = deserialize(host.read(URN, id_, state).properties)
    diff = host.diff(URN, id_, state, inputs)
    assert list(diff.replaces) == []
    preview = host.log
    if diff.changes == provider_pb2.DiffResponse.DIFF_SOME:
        state = deserialize(host.update(URN, id_, state, inputs).properties)
    return state, preview


def region(name: str) -> str:
    return name.split("/")[3]


def test_a_job_moves_from_us_central1_spot_to_us_east1_spot_to_standard_through_the_host(host, emulator, tmp_path):
    emulator.spot_stockout(HOME)
    emulator.spot_stockout(AWAY)
    inputs = deserialize(host.check(URN, {}, program_inputs()).inputs)
    created = host.create(URN, inputs)
    state = deserialize(created.properties)
    assert region(created.id) == HOME and state["strategy"] == "SPOT"

    state, preview = up(host, created.id, state, inputs)  # preempted at home: the next attempt moves
    assert f"will be submitted again as attempt 2 on SPOT moved from {HOME} to {AWAY} after 1 STOCKOUT" in preview
    assert region(state["jobName"]) == AWAY and state["strategy"] == "SPOT" and state["attempt"] == 2

    state, preview = up(host, created.id, state, inputs)  # preempted there too: off Spot, where it is
    assert f"will be submitted again as attempt 3 on STANDARD in {AWAY}, where resubmission.fallback moved it" in preview
    assert region(state["jobName"]) == AWAY and state["strategy"] == "STANDARD" and state["attempt"] == 3

    state, preview = up(host, created.id, state, inputs)  # STANDARD is not preempted: it stays
    assert "will be submitted again" not in preview and state["state"] != "JOB_STATE_FAILED"

    jobs = {job.name: job for job in emulator.jobs()}
    assert len(jobs) == 3  # no duplicate: one CustomJob per attempt
    assert [(region(n), jobs[n].job_spec.scheduling.strategy.name) for n in sorted(jobs, key=lambda n: jobs[n].create_time)] == [
        (HOME, "SPOT"), (AWAY, "SPOT"), (AWAY, "STANDARD"),
    ]
    # Every attempt writes to the same directory of the team's bucket: AIP_CHECKPOINT_DIR survives the moves.
    outputs = {job.job_spec.base_output_directory.output_uri_prefix for job in jobs.values()}
    assert outputs == {"gs://acme-ml-dev-vision-staging/jobs/resnet"}
    # History keeps each attempt's full name, in the region it ran in.
    assert [h["jobName"] for h in state["history"]] == [created.id, state["history"][1]["jobName"]]
    assert [region(h["jobName"]) for h in state["history"]] == [HOME, AWAY]

    # No orphan: the sweep, over every region the state's attempts and ladder name, finds nothing
    # the state does not point to; a state that lost the current attempt would show it.
    assert _sweep(tmp_path, created.id, state) == 0
    assert _sweep(tmp_path, created.id, {**state, "jobName": state["history"][-1]["jobName"]}) == 1

    host.delete(URN, created.id, state)  # destroy: every attempt, in every region it ran in
    assert emulator.jobs() == []


def test_a_region_rung_carries_the_cmek_key_of_its_region_and_the_key_derivation_stays(emulator, fast_pace):
    home_key = f"projects/acme-ml-dev/locations/{HOME}/keyRings/ml/cryptoKeys/jobs"
    away_key = f"projects/acme-ml-dev/locations/{AWAY}/keyRings/ml/cryptoKeys/jobs"
    provider = SpotTrainingJobProvider()
    news = {
        "project": "acme-ml-dev", "location": HOME, **docs_request_body(),
        "encryptionSpec": {"kmsKeyName": home_key}, "submissionScope": "spot-training/dev/vision-resnet",
        "resubmission": {"fallback": [{"afterStockouts": 1, "location": AWAY, "kmsKeyName": away_key}]},
    }
    created = provider.create(news)
    emulator.preempt(created.id)
    state = provider.read(created.id, created.outs).outs
    updated = provider.update(created.id, state, news).outs
    moved = emulator.job(updated["jobName"])
    assert region(moved.name) == AWAY and moved.encryption_spec.kms_key_name == away_key
    # The submission key is the job's wherever it runs: derived from its inputs, as before.
    assert updated["submissionKey"] == spec.submission_key(news, 2)


def preempted_with_a_region_rung(emulator):
    """A job with the rung {afterStockouts: 1, location: us-east1}, created and preempted at home:
    (the provider, its inputs, the create's result, its state refreshed as FAILED)."""
    provider = SpotTrainingJobProvider()
    news = {
        "project": "acme-ml-dev", "location": HOME, **docs_request_body(), "submissionScope": "spot-training/dev/vision-resnet",
        "resubmission": {"fallback": [{"afterStockouts": 1, "location": AWAY}]},
    }
    created = provider.create(news)
    emulator.preempt(created.id)
    return provider, news, created, provider.read(created.id, created.outs).outs


def test_an_attempt_submitted_before_a_crash_is_adopted_in_its_region_after_the_ladder_changed(emulator, fast_pace):
    """`up` submitted attempt 2 to us-east1 and died before the state recorded it; the
    ladder was then changed to europe-west4. The next `up` finds the job in us-east1."""
    provider, news, created, failed = preempted_with_a_region_rung(emulator)
    lost = provider.update(created.id, failed, news).outs  # landed in us-east1; its answer never reached the state
    assert region(lost["jobName"]) == AWAY

    changed = copy.deepcopy(news)
    changed["resubmission"]["fallback"][0]["location"] = "europe-west4"
    emulator.reset_calls()
    again = provider.update(created.id, failed, changed).outs
    assert again["jobName"] == lost["jobName"]  # adopted where it landed, not submitted twice
    assert emulator.calls["CreateCustomJob"] == 0 and len(emulator.jobs()) == 2
    assert again["strategy"] == "SPOT" and region(again["jobName"]) == AWAY  # recorded as it runs


def test_an_adopted_attempt_is_waited_on_in_its_own_region(emulator, fast_pace, monkeypatch):
    """waitFor polls the adopted job through its own region's endpoint, never the placement's."""
    from components.spot_job.client import job_service

    provider, news, created, failed = preempted_with_a_region_rung(emulator)
    lost = provider.update(created.id, failed, news).outs
    changed = copy.deepcopy({**news, "waitFor": "running", "waitTimeout": "1s"})  # it stays QUEUED: polled for 1 s
    changed["resubmission"]["fallback"][0]["location"] = "europe-west4"
    polled, real_init, real_get = [], job_service.JobService.__init__, job_service.JobService.get

    def init(self, location, quotas=None):  # remembers which region's endpoint the service is for
        real_init(self, location, quotas)
        self.test_location = location

    monkeypatch.setattr(job_service.JobService, "__init__", init)
    monkeypatch.setattr(job_service.JobService, "get", lambda self, name: polled.append(self.test_location) or real_get(self, name))
    again = provider.update(created.id, failed, changed).outs
    assert again["jobName"] == lost["jobName"] and again["state"] == "JOB_STATE_QUEUED"
    assert polled and set(polled) == {AWAY}


def test_a_state_written_before_attempts_could_move_still_deletes_every_attempt(emulator, fast_pace):
    """History entries of older states hold only the job id: those attempts ran in the job's own region."""
    provider = SpotTrainingJobProvider()
    news = {"project": "acme-ml-dev", "location": HOME, **docs_request_body(), "submissionScope": "spot-training/dev/x"}
    created = provider.create(news)
    emulator.preempt(created.id)
    updated = provider.update(created.id, provider.read(created.id, created.outs).outs, news).outs
    old_style = {**updated, "history": [{k: v for k, v in h.items() if k != "jobName"} for h in updated["history"]]}
    assert "jobName" not in old_style["history"][0]
    provider.delete(created.id, old_style)
    assert emulator.jobs() == []


def test_failover_costs_one_list_per_other_region_of_the_ladder(emulator, fast_pace):
    provider, news, created, failed = preempted_with_a_region_rung(emulator)
    emulator.reset_calls()
    provider.update(created.id, failed, news)
    # The resubmission's own list, create and look after it in us-east1, and one list at home for an
    # attempt landed there.
    assert emulator.calls == {"ListCustomJobs": 3, "CreateCustomJob": 1}


@pytest.mark.parametrize(
    "extra, path, words",
    [
        ({"encryptionSpec": {"kmsKeyName": f"projects/p/locations/{HOME}/keyRings/r/cryptoKeys/k"}}, "resubmission.fallback[0].kmsKeyName", "name a key in us-east1"),
        ({"tensorboard": f"projects/p/locations/{HOME}/tensorboards/1"}, "resubmission.fallback[0].location", "TensorBoard"),
        ({"pscInterfaceConfig": {"networkAttachment": "na"}}, "resubmission.fallback[0].location", "network attachment is regional"),
        ({"experiment": f"projects/p/locations/{HOME}/metadataStores/default/contexts/exp"}, "resubmission.fallback[0].location", "metadata store"),
    ],
)
def test_what_cannot_follow_the_job_refuses_the_move_by_path_before_any_call(extra, path, words):
    inputs = {"project": "acme-ml-dev", "location": HOME, **docs_request_body(), "resubmission": {"fallback": [{"afterStockouts": 1, "location": AWAY}]}}
    for key, value in extra.items():
        (inputs if key == "encryptionSpec" else inputs["jobSpec"])[key] = value
    failures = [f for f in spec.validate(inputs) if f.path.startswith("resubmission")]
    assert [f.path for f in failures] == [path] and words in failures[0].reason


def test_a_rung_back_home_needs_no_key_and_a_key_in_the_wrong_region_is_named():
    home_key = f"projects/p/locations/{HOME}/keyRings/r/cryptoKeys/k"
    inputs = {
        "project": "acme-ml-dev", "location": HOME, **docs_request_body(), "encryptionSpec": {"kmsKeyName": home_key},
        "resubmission": {"fallback": [
            {"afterStockouts": 1, "location": AWAY, "kmsKeyName": home_key},
            {"afterStockouts": 2, "location": HOME},
        ]},
    }
    [failure] = spec.validate(inputs)
    assert failure.path == "resubmission.fallback[0].kmsKeyName" and f"an attempt in '{AWAY}' needs a key there" in failure.reason


def test_a_mistyped_rung_region_is_named_by_its_config_path_with_a_did_you_mean():
    from tests.test_stack_config import failures_of

    failures = failures_of(config({"fallback": [{"afterStockouts": 1, "location": "us-eats1"}]}))
    assert "spot-training:teams.vision.jobs.resnet.resubmission.fallback[0].location: 'us-eats1' is not a region" in failures
    assert "did you mean us-east1?" in failures
    # A region Google's table does not list yet is let through by spot-training:extraRegions.
    [job] = render({**config({"fallback": [{"afterStockouts": 1, "location": "us-east9"}]}), "spot-training:extraRegions": ["us-east9"]}).of_type("SpotTrainingJob")
    assert job.inputs["resubmission"]["fallback"][0]["location"] == "us-east9"


def _sweep(tmp_path, id_: str, outputs: dict) -> int:
    """`spot-training sweep dev --state FILE` on a state holding this one job: its exit code."""
    import json

    resource = {"urn": URN, "type": JOB_TYPE, "id": id_, "outputs": outputs}
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"version": 3, "deployment": {"resources": [resource]}}))
    return sweep.main(["dev", "--state", str(path)])


def test_the_sweep_searches_every_region_the_configs_ladders_name(tmp_path, monkeypatch):
    import yaml

    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text("name: spot-training\n")
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": config()}))
    stack = Stack.load("dev", root=tmp_path)
    empty = StackState.parse('{"version": 3, "deployment": {"resources": []}}', "test", stack)
    assert sweep.parents_crossed(stack, empty, []) == [f"projects/acme-ml-dev/locations/{HOME}", f"projects/acme-ml-dev/locations/{AWAY}"]


def test_the_typed_rung_writes_the_rest_rung():
    from components.spot_job.model.typed_spec import FallbackRung

    assert FallbackRung(after_stockouts=1, location=AWAY).to_rest() == {"afterStockouts": 1, "location": AWAY}
    assert FallbackRung(after_stockouts=3).to_rest() == {"afterStockouts": 3, "strategy": "auto"}  # as before
    assert FallbackRung(after_stockouts=2, strategy="STANDARD", location=HOME).to_rest() == {
        "afterStockouts": 2, "strategy": "STANDARD", "location": HOME,
    }


def test_a_rung_to_a_region_that_does_not_offer_the_jobs_gpu_is_refused_naming_the_rung_and_the_pool():
    inputs = {
        "project": "acme-ml-dev", "location": HOME, **docs_request_body(),
        "resubmission": {"fallback": [{"afterStockouts": 1, "location": "europe-west6"}]},
    }
    inputs["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] = {"machineType": "g2-standard-8", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 1}
    [failure] = spec.validate(inputs)
    assert failure.path == "resubmission.fallback[0].location"
    assert "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType" in failure.reason and "europe-west6" in failure.reason
    inputs["resubmission"]["fallback"][0]["location"] = AWAY  # us-east1 offers L4 for training
    assert spec.validate(inputs) == []


# --- images: a replica repository per region a ladder goes to (issue 14.3) ---

def replica_config() -> dict:
    cfg = config()
    cfg["spot-training:teams"]["vision"].update(
        repository={"replicaRegions": [AWAY]},
        images={"trainer": {"name": "trainer", "tag": "v1"}},
    )
    cfg["spot-training:teams"]["vision"]["jobs"]["resnet"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] = "${images.trainer}"
    return cfg


def test_a_replica_region_gets_a_remote_repository_reading_through_to_the_teams_and_the_job_its_mirror():
    recorder = render(replica_config())
    repositories = {r.name: r.inputs for r in recorder.of_type("artifactregistry/repository:Repository")}
    replica = repositories[f"vision-images-{AWAY}"]
    assert replica["location"] == AWAY and replica["mode"] == "REMOTE_REPOSITORY" and replica["format"] == "DOCKER"
    assert replica["remoteRepositoryConfig"]["commonRepository"]["uri"] == "vision-images-id"  # the home repository
    assert replica["repositoryId"] == repositories["vision-images"]["repositoryId"] == "vision"
    grants = {(r.inputs["location"], r.inputs["member"]) for r in recorder.of_type("RepositoryIamMember")}
    # The registry's service agent reads home for the replica; whoever pulls at home pulls from the replica too.
    assert (HOME, f"serviceAccount:service-{recorder.project_number}@gcp-sa-artifactregistry.iam.gserviceaccount.com") in grants
    assert {m for loc, m in grants if loc == AWAY} == {m for loc, m in grants if loc == HOME} - {
        f"serviceAccount:service-{recorder.project_number}@gcp-sa-artifactregistry.iam.gserviceaccount.com"
    }
    [job] = recorder.of_type("SpotTrainingJob")
    assert job.inputs["imageMirrors"] == [{
        "location": AWAY, "from": f"{HOME}-docker.pkg.dev/acme-ml-dev/vision/", "to": f"{AWAY}-docker.pkg.dev/acme-ml-dev/vision/",
    }]


def test_an_attempt_moved_to_a_replica_region_pulls_its_image_there_and_home_pulls_from_home(emulator, fast_pace):
    [job] = render(replica_config()).of_type("SpotTrainingJob")
    news = {k: v for k, v in job.inputs.items() if k != "__provider"}
    home_image = news["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"]
    assert home_image.startswith(f"{HOME}-docker.pkg.dev/acme-ml-dev/vision/trainer@sha256:")
    provider = SpotTrainingJobProvider()
    created = provider.create(news)
    assert emulator.job(created.id).job_spec.worker_pool_specs[0].container_spec.image_uri == home_image
    emulator.preempt(created.id)
    moved = provider.update(created.id, provider.read(created.id, created.outs).outs, news).outs
    pulled = emulator.job(moved["jobName"]).job_spec.worker_pool_specs[0].container_spec.image_uri
    assert region(moved["jobName"]) == AWAY and pulled == home_image.replace(f"{HOME}-docker.pkg.dev", f"{AWAY}-docker.pkg.dev")
    assert news["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["imageUri"] == home_image  # the inputs stay as they are


@pytest.mark.parametrize(
    "regions, words",
    [([HOME], "is the team's own region"), (["us-eats1"], "did you mean us-east1?"), ([AWAY, AWAY], "is listed twice")],
)
def test_a_wrong_replica_region_is_named_by_its_config_path(regions, words):
    from tests.test_stack_config import failures_of

    cfg = config()
    cfg["spot-training:teams"]["vision"]["repository"] = {"replicaRegions": regions}
    failures = failures_of(cfg)
    assert "spot-training:teams.vision.repository.replicaRegions[" in failures and words in failures


@pytest.mark.parametrize("jobs", [["resnet"], {"resnet": {**docs_request_body()["jobSpec"], "resubmission": "often"}}])
def test_a_malformed_job_or_ladder_is_a_config_error_by_path_not_a_traceback_in_the_program_or_the_sweep(jobs, tmp_path):
    import yaml

    from tests.test_stack_config import failures_of

    cfg = {**config(), "spot-training:teams": {"vision": {"jobs": jobs}}}
    assert "spot-training:teams.vision.jobs" in failures_of(cfg)
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text("name: spot-training\n")
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": cfg}))
    assert Stack.load("dev", root=tmp_path).ladder_regions == ()  # the sweep still searches gcp:region
