"""TrainingPackage: content-addressed uploads under Pulumi's mocks."""

import pytest

from components.training_package import TrainingPackage, TrainingPackageArgs
from tests.program import render_components


def upload(source):
    seen = {}

    def build():
        package = TrainingPackage("trainer", TrainingPackageArgs(bucket="acme-ml-dev-vision-staging", source=str(source)))
        return package.uri.apply(lambda uri: seen.setdefault("uri", uri))

    recorder = render_components(build)
    return recorder.of_type("storage/bucketObject:BucketObject")[0], seen["uri"]


def package_directory(tmp_path):
    """A package directory of one module, trainer.task, built with hatchling."""
    package = tmp_path / "trainer"
    (package / "src" / "trainer").mkdir(parents=True)
    (package / "pyproject.toml").write_text(
        '[project]\nname = "trainer"\nversion = "0.1.0"\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
    )
    (package / "src" / "trainer" / "task.py").write_text("print('one')\n")
    return package


def test_the_uri_changes_exactly_when_the_code_does(tmp_path):
    sdist = tmp_path / "trainer-0.1.0.tar.gz"
    sdist.write_bytes(b"version one")
    _, first = upload(sdist)
    _, again = upload(sdist)
    sdist.write_bytes(b"version two")
    _, changed = upload(sdist)
    assert first == again
    assert first != changed
    assert first.startswith("gs://acme-ml-dev-vision-staging/packages/") and first.endswith("/trainer-0.1.0.tar.gz")


def test_the_object_carries_the_file(tmp_path):
    wheel = tmp_path / "trainer-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"wheel")
    obj, _ = upload(wheel)
    assert obj.inputs["source"].path == str(wheel)
    assert obj.inputs["contentType"] == "application/zip"


def test_a_missing_or_unbuilt_source_is_named(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        upload(tmp_path / "trainer-0.1.0.tar.gz")
    with pytest.raises(ValueError, match="must be a built sdist"):
        upload(tmp_path / "trainer.zip")
    with pytest.raises(ValueError, match="without a pyproject.toml"):
        upload(tmp_path)


def test_a_package_directory_is_built_and_addressed_by_its_source(tmp_path):
    package = package_directory(tmp_path)
    obj, first = upload(package)
    assert first.endswith("/trainer-0.1.0.tar.gz") and obj.inputs["source"].path.endswith("trainer-0.1.0.tar.gz")
    (package / "dist").mkdir()
    (package / "dist" / "stale.tar.gz").write_bytes(b"not source")
    assert upload(package)[1] == first  # build output is not code
    (package / "src" / "trainer" / "task.py").write_text("print('two')\n")
    assert upload(package)[1] != first


def test_a_built_package_is_kept_by_its_source_so_the_next_run_does_not_build_it_again(tmp_path, monkeypatch):
    import subprocess

    from components import training_package

    monkeypatch.setenv(training_package.CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(training_package, "_BUILT", {})  # a test before may have built the same source
    package = package_directory(tmp_path)
    obj, first = upload(package)
    built = obj.inputs["source"].path
    assert built.startswith(str(tmp_path / "cache" / "sdists")) and open(built, "rb").read(2) == b"\x1f\x8b"

    builds = []
    real_run = subprocess.run
    monkeypatch.setattr(training_package.subprocess, "run", lambda *a, **k: builds.append(a) or real_run(*a, **k))
    monkeypatch.setattr(training_package, "_BUILT", {})  # the next program run: a process of its own
    again, uri = upload(package)
    assert (uri, again.inputs["source"].path, builds) == (first, built, [])  # the same file, nothing built

    (package / "src" / "trainer" / "task.py").write_text("print('two')\n")
    changed, uri = upload(package)
    assert uri != first and len(builds) == 1 and changed.inputs["source"].path != built
