"""Backend selection, the image build's inputs, ``sandbox build-image`` and ``sandbox doctor``.

The offline build itself takes minutes (debootstrap), so CI runs it once in
``.ci/docker-setup.sh``; here the build command is checked to reuse the existing image
(idempotence), and the part that decides *what* it would build from (the host's apt
sources) is checked on hand-written source files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derivative._errors import SandboxUnavailable
from derivative.cli import main
from derivative.forge.sandbox._docker import DockerLauncher
from derivative.forge.sandbox._image import DEFAULT_TAG, apt_sources, debian_mirror
from derivative.forge.sandbox._process import ProcessLauncher
from derivative.forge.sandbox._sandbox import Launcher, make_launcher

MISSING = "derivative-sandbox-missing:0"


def write_sources(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "etc/apt" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_deb822_sources_give_the_base_suite_and_keyring(tmp_path: Path) -> None:
    root = write_sources(tmp_path, {
        "sources.list.d/debian.sources": (
            "Types: deb\n"
            "# a comment\n"
            "URIs: http://mirror.example/debian\n"
            "Suites: bookworm-updates bookworm\n"
            "Components: main contrib\n"
            "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
            "\n"
            "Types: deb-src\n"
            "URIs: http://src.example/debian\n"
            "Suites: bookworm\n"
            "Components: main\n"
        ),
        "sources.list.d/other.list.disabled": "deb http://disabled.example/ bookworm main\n",
    })
    source, suite = debian_mirror(apt_sources(str(root)))
    assert (source.uri, suite) == ("http://mirror.example/debian", "bookworm")
    assert source.signed_by == "/usr/share/keyrings/debian-archive-keyring.gpg"


def test_one_line_sources_are_read_in_apt_order(tmp_path: Path) -> None:
    root = write_sources(tmp_path, {
        "sources.list": (
            "# deb http://commented.example/debian bookworm main\n"
            "deb http://security.example/debian-security bookworm-security main\n"
            "deb [arch=amd64 signed-by=/k.gpg] https://mirror.example/debian trixie main\n"
        ),
        "sources.list.d/z.list": "deb http://later.example/debian bookworm main\n",
    })
    source, suite = debian_mirror(apt_sources(str(root)))
    assert (source.uri, suite, source.signed_by) == ("https://mirror.example/debian", "trixie",
                                                     "/k.gpg")


def test_no_usable_mirror_is_a_clear_error(tmp_path: Path) -> None:
    root = write_sources(tmp_path, {
        "sources.list.d/node.sources": (
            "Types: deb\nURIs: https://deb.example/node\nSuites: nodistro\nComponents: extra\n"
        ),
    })
    with pytest.raises(SandboxUnavailable, match="no Debian mirror"):
        debian_mirror(apt_sources(str(root)))


def test_this_machines_sources_name_a_mirror() -> None:
    source, suite = debian_mirror(apt_sources())
    assert source.uri.startswith(("http://", "https://", "file:/")) and suite


def test_docker_never_falls_back_silently_and_never_pulls() -> None:
    with pytest.raises(SandboxUnavailable, match=r"build-image --offline|no Docker engine|docker"):
        DockerLauncher.connect(MISSING)
    with pytest.raises(SandboxUnavailable):
        make_launcher("docker", image=MISSING)
    assert isinstance(make_launcher("auto", image=MISSING), ProcessLauncher)
    assert isinstance(make_launcher("process"), ProcessLauncher)


@pytest.mark.docker
def test_auto_prefers_docker_when_the_engine_and_image_are_there(
    docker_launcher: Launcher,
) -> None:
    assert isinstance(make_launcher("auto"), DockerLauncher)


@pytest.mark.docker
def test_build_image_reuses_an_existing_tag(
    docker_launcher: Launcher, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sandbox", "build-image", "--offline", "--tag", DEFAULT_TAG])
    out = capsys.readouterr().out
    assert code == 0 and "reused" in out
    assert docker_launcher.image_id in out  # type: ignore[attr-defined]


@pytest.mark.slow
def test_doctor_reports_what_this_machine_gives(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox", "doctor", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    topics = {f["topic"]: f for f in report["findings"]}
    assert topics["process sandbox"]["ok"], topics["process sandbox"]
    assert "namespace:user" in report["process_isolation"]
    assert report["auto"] in ("docker", "process")
    # this machine (and CI) gives a memory cgroup and seccomp filters
    assert report["memory_budget"] in ("cgroup-v1", "cgroup-v2"), topics["memory budget"]
    assert topics["memory budget"]["ok"] and report["seccomp"] is True, topics["seccomp"]
    assert "seccomp:filter" in report["process_isolation"]
    assert any(i.startswith("memory:cgroup-") for i in report["process_isolation"])
    assert "offline image build" in topics
    assert main(["sandbox", "doctor"]) == 0
    text = capsys.readouterr().out
    assert "process sandbox" in text and "--sandbox auto would use" in text
    assert "memory budget" in text and "seccomp" in text


def test_cli_errors_are_exit_codes_not_exceptions(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sandbox", "build-image", "--tag", "bad tag"])
    assert code == 2
    assert "not an image tag" in capsys.readouterr().err
