"""A new stack's life under the real Pulumi CLI: preview, up, an up with nothing changed, a spec edit, destroy.

The program is __main__.py with the engine tests' stack (tests/engine/stack.py),
the jobs go to the Vertex AI emulator through the dynamic provider host the
engine launches, the rest to the stand-in Google provider.
"""

from __future__ import annotations

import json

import pytest
import yaml

from tests.engine.stack import PROJECT, REGION

pytestmark = pytest.mark.engine

JOB_TYPE = "spot-training:index:SpotTrainingJob"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # how the engine carries a value not known yet


def _up(project, **kwargs):
    """`pulumi up` and what it printed on the terminal (stdout and stderr)."""
    lines: list[str] = []
    result = project.stack().up(on_output=lines.append, on_error=lines.append, color="never", **kwargs)
    return result, "\n".join(lines)


def _steps(events) -> dict[str, tuple[str, str, dict]]:
    """The preview's steps, by URN: (operation, type, the inputs it planned)."""
    steps = {}
    for event in events:
        if event.resource_pre_event:
            step = event.resource_pre_event.metadata
            steps[step.urn] = (step.op.value, step.type, dict(step.new.inputs or {}) if step.new else {})
    return steps


def test_the_preview_of_a_new_stack_plans_every_create_and_submits_nothing(engine_project):
    project, emulator = engine_project, engine_project.emulator
    events: list = []
    lines: list[str] = []

    preview = project.stack().preview(color="never", on_output=lines.append, on_event=events.append)

    shown = "\n".join(lines)
    steps = _steps(events)
    assert {urn: op for urn, (op, _, _) in steps.items()} == {urn: "create" for urn in steps}, shown
    jobs = {urn.rsplit("::", 1)[1]: op for urn, (op, type_, _) in steps.items() if type_.endswith("SpotTrainingJob")}
    assert jobs == {"vision-resnet": "create", "vision-eval": "create"}, shown
    resources = [urn for urn, (_, type_, _) in steps.items() if not type_.startswith("pulumi:providers:")]
    assert preview.change_summary == {"create": len(resources)}  # the summary leaves out the provider plugins' steps
    assert emulator.jobs() == [] and sum(emulator.calls.values()) == 0, emulator.calls  # no Vertex call at all
    # What Google computes is unknown at preview, as a bridged provider answers it: the account's email
    # in its bindings' members, the bucket's URL and the account in each job's spec.
    assert {c["urn"].rsplit("::", 1)[1] for c in project.gcp_calls("Create")} >= {"vision-trainer", "vision-staging", "vision-images"}
    assert all(c["preview"] for c in project.gcp_calls("Create"))
    bindings = [inputs for urn, (_, _, inputs) in steps.items() if urn.endswith("-trainer") and "member" in inputs]
    assert bindings and all(b["member"] == UNKNOWN for b in bindings), bindings
    for _, type_, inputs in steps.values():
        if not type_.endswith("SpotTrainingJob"):
            continue
        spec = inputs["jobSpec"]
        assert spec["serviceAccount"] == UNKNOWN and spec["baseOutputDirectory"]["outputUriPrefix"] == UNKNOWN


def test_preview_then_up_of_a_new_stack_resolves_every_unknown(engine_project):
    """`pulumi up` as typed at a shell: the preview (with Google's outputs unknown), then the update."""
    project, emulator = engine_project, engine_project.emulator
    stack = project.stack()
    assert stack.preview(color="never").change_summary.get("create")

    result, output = _up(project)

    assert result.summary.result == "succeeded", output
    email = f"vision-train-test@{PROJECT}.iam.gserviceaccount.com"
    assert emulator.calls["CreateCustomJob"] == 2
    assert {j.job_spec.service_account for j in emulator.jobs()} == {email}
    assert all(j.job_spec.base_output_directory.output_uri_prefix.startswith("gs://") for j in emulator.jobs())
    made = [c for c in project.gcp_calls("Create") if not c["preview"]]
    assert made and UNKNOWN not in json.dumps([c["outputs"] for c in made])


def test_up_of_a_new_stack_submits_each_job_once_and_outputs_are_typed(engine_project):
    project, emulator = engine_project, engine_project.emulator

    result, _ = _up(project)  # --skip-preview, as the Automation API runs it
    assert result.summary.result == "succeeded"
    jobs = emulator.jobs()
    assert emulator.calls["CreateCustomJob"] == 2
    assert sorted(j.display_name for j in jobs) == sorted({j.display_name for j in jobs})  # two distinct jobs
    assert all(j.name.startswith(f"projects/{PROJECT}/locations/{REGION}/customJobs/") for j in jobs)

    outputs = json.loads(project.cli("stack", "output", "--json", "--show-secrets").stdout)
    vision = outputs["vision"]
    assert vision["serviceAccount"] == f"vision-train-test@{PROJECT}.iam.gserviceaccount.com"
    assert vision["bucket"].startswith("gs://")
    assert set(vision["jobs"]) == {"resnet", "eval"}
    by_name = {j.name for j in jobs}
    for job in vision["jobs"].values():
        assert job["jobName"] in by_name
        assert isinstance(job["attempt"], int) and job["attempt"] == 1
        assert job["state"].startswith("JOB_STATE_")
    # The Google provider (the stand-in) was asked the program's invokes, and created the rest.
    invoked = {c["token"] for c in project.gcp_calls("Invoke")}
    assert {"gcp:organizations/getProject:getProject", "gcp:artifactregistry/getDockerImage:getDockerImage"} <= invoked
    assert any(c["urn"].endswith("gcp:serviceaccount/account:Account::vision-trainer") for c in project.gcp_calls("Create"))
    # The image the program pinned is the digest the (stand-in) registry resolved the tag to.
    assert vision["images"]["trainer"].startswith(f"{REGION}-docker.pkg.dev/{PROJECT}/vision/trainer@sha256:")


def test_a_second_up_with_nothing_changed_reads_and_submits_nothing(engine_project):
    project, emulator = engine_project, engine_project.emulator
    _up(project)
    emulator.reset_calls()
    project.gcp_log.write_text("")

    result, output = _up(project)

    changes = {k: v for k, v in result.summary.resource_changes.items() if v}
    assert set(changes) == {"same"}, output
    # The refresh reads each job (its 2 jobs from one listing by the stack's label, or, a read that arrived
    # alone, its own Get): at most a call per job; nothing submits, cancels or deletes.
    assert set(emulator.calls) <= {"GetCustomJob", "ListCustomJobs"}, emulator.calls
    assert 1 <= emulator.calls["GetCustomJob"] + emulator.calls["ListCustomJobs"] <= 2, emulator.calls
    assert not project.gcp_calls("Create") and not project.gcp_calls("Update") and not project.gcp_calls("Delete")


def _edit_eval_args(project, args: list[str], replace_order: str | None = None) -> None:
    config = yaml.safe_load(project.stack_file.read_text())
    job = config["config"]["spot-training:teams"]["vision"]["jobs"]["eval"]
    job["workerPoolSpecs"][0]["containerSpec"]["args"] = args
    if replace_order:
        job["replaceOrder"] = replace_order
        job["onDelete"] = "cancel"  # the old job's record stays, to tell when it was cancelled
    project.stack_file.write_text(yaml.safe_dump(config, sort_keys=False))


@pytest.mark.parametrize("replace_order", ["cancelFirst", "submitFirst"])
def test_a_spec_edit_is_previewed_by_path_and_resubmits_once(engine_project, replace_order):
    project, emulator = engine_project, engine_project.emulator
    _edit_eval_args(project, ["--eval"], replace_order)
    _up(project)
    old = {j.display_name: j.name for j in emulator.jobs()}
    emulator.reset_calls()

    _edit_eval_args(project, ["--eval", "--full"], replace_order)
    lines: list[str] = []
    preview = project.stack().preview(diff=True, color="never", on_output=lines.append, on_error=lines.append)
    shown = "\n".join(lines)
    assert preview.change_summary.get("replace", 0) == 1, shown
    assert "args" in shown and "--full" in shown
    # The provider's reason, which the dynamic provider host writes to its stderr, reaches the
    # user's terminal: the engine copies it to its own stderr (not beside the resource).
    assert "vision-eval: will be submitted again as a new job" in shown
    assert "jobSpec.workerPoolSpecs[0].containerSpec.args: ['--eval'] -> ['--eval', '--full']" in shown
    assert emulator.calls["CreateCustomJob"] == 0

    result, output = _up(project)
    assert result.summary.result == "succeeded"
    assert emulator.calls["CreateCustomJob"] == 1, output
    assert emulator.calls["CancelCustomJob"] == 1 and emulator.calls["DeleteCustomJob"] == 0  # onDelete: cancel
    eval_name = json.loads(project.cli("stack", "output", "--json", "--show-secrets").stdout)["vision"]["jobs"]["eval"]["jobName"]
    old_eval = next(name for display, name in old.items() if "eval" in display)
    assert eval_name != old_eval
    new, cancelled = emulator.job(eval_name), emulator.job(old_eval)
    assert cancelled.state.name == "JOB_STATE_CANCELLED"
    cancelled_at, submitted_at = cancelled.update_time, new.create_time
    if replace_order == "cancelFirst":
        assert cancelled_at <= submitted_at  # the old job stopped before its successor was submitted
    else:
        assert submitted_at <= cancelled_at  # the successor was submitted first


def test_destroy_leaves_no_job(engine_project):
    project, emulator = engine_project, engine_project.emulator
    _up(project)
    assert emulator.jobs()

    result = project.stack().destroy(color="never")

    assert result.summary.result == "succeeded"
    live = [j for j in emulator.jobs() if j.state.name not in ("JOB_STATE_CANCELLED", "JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED")]
    assert live == []
    assert project.job_resources() == []


def test_a_job_record_deleted_out_of_band_is_refreshed_as_gone_and_not_run_again(engine_project):
    project, emulator = engine_project, engine_project.emulator
    _up(project)
    resnet = next(r for r in project.job_resources() if r["urn"].endswith("::vision-resnet"))
    name = resnet["outputs"]["jobName"]
    emulator.set_state(name, "JOB_STATE_SUCCEEDED")
    project.stack().refresh(color="never")  # the stack sees it succeed
    emulator.remove(name)  # deleted from the console: Vertex deletes only jobs that ended

    project.stack().refresh(color="never")
    gone = next(r for r in project.job_resources() if r["urn"].endswith("::vision-resnet"))
    assert gone["outputs"].get("gone") is True and gone["outputs"]["jobName"] == name
    lines: list[str] = []
    project.stack().preview(color="never", on_output=lines.append, on_error=lines.append)
    shown = "\n".join(lines)
    assert "was deleted outside Pulumi after it ended (last seen JOB_STATE_SUCCEEDED); it is not run again" in shown, shown

    emulator.reset_calls()
    result, output = _up(project)
    assert result.summary.result == "succeeded" and emulator.calls["CreateCustomJob"] == 0, output
    assert project.stack().destroy(color="never").summary.result == "succeeded"
    assert [j for j in emulator.jobs() if j.state.name != "JOB_STATE_CANCELLED"] == []
