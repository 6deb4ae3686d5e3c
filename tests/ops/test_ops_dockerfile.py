"""The image recipe: multi-stage, runs as a fixed non-root user, `rgs serve` by default."""

from __future__ import annotations

import re
import tomllib

from ops_toolbox import ROOT

DOCKERFILE = (ROOT / "deploy" / "Dockerfile").read_text("utf-8")


def _instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE)
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_image_is_built_in_stages_and_ships_only_the_venv() -> None:
    froms = [rest for word, rest in _instructions() if word == "FROM"]
    assert len(froms) >= 2
    assert froms[-1].endswith("AS runtime")
    copies = [rest for word, rest in _instructions() if word == "COPY"]
    runtime_copies = copies[-1:]
    assert runtime_copies == ["--from=builder /opt/rgs /opt/rgs"]


def test_runtime_user_is_numeric_and_not_root() -> None:
    users = [rest for word, rest in _instructions() if word == "USER"]
    assert users, "the runtime stage must set USER"
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) >= 1000
    assert "runAsUser: 10001" in (ROOT / "deploy/helm/rgs/values.yaml").read_text()


def test_default_command_serves_and_the_chart_migrates_with_the_same_entrypoint() -> None:
    ins = dict(_instructions())
    assert ins["ENTRYPOINT"] == '["rgs"]'
    assert ins["CMD"] == '["serve"]'
    assert "EXPOSE" in ins and "50051" in ins["EXPOSE"] and "9090" in ins["EXPOSE"]
    job = (ROOT / "deploy/helm/rgs/templates/migration-job.yaml").read_text()
    assert 'args: ["migrate"]' in job


def test_nothing_is_downloaded_outside_the_package_index() -> None:
    assert not re.search(r"\b(curl|wget)\b|ADD\s+https?://", DOCKERFILE)


def _pins(path: str) -> dict[str, str]:
    text = (ROOT / path).read_text("utf-8")
    return {m[1].lower(): m[2] for m in re.finditer(r"^([A-Za-z0-9_.\-]+)==(\S+)", text, re.M)}


def test_the_image_installs_its_lock_at_the_versions_the_tests_ran() -> None:
    python = re.search(r"^ARG PYTHON_IMAGE=python:(\d+)\.(\d+)", DOCKERFILE, re.M)
    assert python, "the Dockerfile names its Python image"
    lock = f"requirements/runtime-py{python[1]}{python[2]}.txt"
    assert f"--require-hashes --no-deps -r {lock}" in DOCKERFILE
    assert "--no-deps --no-build-isolation ." in DOCKERFILE  # nothing else from an index
    assert f"!{lock}" in (ROOT / "deploy/Dockerfile.dockerignore").read_text()
    runtime = _pins(lock)
    tested = _pins(f"requirements/lock-py{python[1]}{python[2]}.txt")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = {re.split(r"[\[<>=!~; ]", d, maxsplit=1)[0].lower()
              for d in project["project"]["dependencies"]}
    wanted |= {"pip", *(re.split(r"[<>=!~; ]", d, maxsplit=1)[0].lower()
                        for d in project["build-system"]["requires"])}
    assert wanted <= set(runtime), f"run bash .ci/lock: {sorted(wanted - set(runtime))}"
    assert {name: v for name, v in runtime.items() if tested.get(name) != v} == {}, \
        "the image's lock differs from the tested lock: run bash .ci/lock"
    assert not {"pytest", "mypy", "ruff"} & set(runtime)  # the image carries no dev tools
