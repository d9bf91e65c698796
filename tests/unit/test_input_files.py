"""Input files named by a path: only regular files, only up to a size, and a file reached
by ``use`` is quoted in a message only once it is recognisably a spec.

The commands that could hang or fill the memory on the old code (a FIFO, ``/dev/zero``)
run in a child process with a timeout and an address-space limit, so that a regression
fails the test instead of stalling or exhausting the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from derivative._errors import SpecError, UsageError
from derivative._files import (
    MAX_CERTIFICATE_BYTES,
    MAX_SPEC_BYTES,
    FileRefused,
    read_regular_file,
    size_text,
)
from derivative.cli import main
from derivative.grammar import load

SECRET = "password = hunter2"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _limited() -> None:
    """In the child: at most 2 GiB of address space, so reading /dev/zero cannot take the
    machine's memory."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def derivative(repo_root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The command line in a child process that cannot hang or grow without bound."""
    return subprocess.run(
        [sys.executable, "-m", "derivative", *argv],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limited,
    )


# --------------------------------------------------------------------------- the reader


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = write(tmp_path, "a.req", "spec a version 1\n")
    assert read_regular_file(path, limit=100, what="spec") == b"spec a version 1\n"


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_without_reading(device: str) -> None:
    with pytest.raises(FileRefused) as info:
        read_regular_file(device, limit=MAX_SPEC_BYTES, what="spec")
    assert info.value.reason == "is a device, not a spec file: only regular files are read"
    assert str(info.value) == f"{device}: {info.value.reason}"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.req"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match="is a FIFO"):
        read_regular_file(fifo, limit=100, what="spec")


def test_a_directory_and_a_missing_path_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="is a directory, not a certificate file"):
        read_regular_file(tmp_path, limit=100, what="certificate")
    with pytest.raises(FileRefused, match="cannot be read: No such file"):
        read_regular_file(tmp_path / "nope.req", limit=100, what="spec")


def test_a_symbolic_link_is_judged_by_what_it_names(tmp_path: Path) -> None:
    (tmp_path / "real.req").write_text("spec a version 1\n", encoding="utf-8")
    (tmp_path / "link.req").symlink_to(tmp_path / "real.req")
    (tmp_path / "zero.req").symlink_to("/dev/zero")
    assert read_regular_file(tmp_path / "link.req", limit=100, what="spec").startswith(b"spec")
    with pytest.raises(FileRefused, match="is a device"):
        read_regular_file(tmp_path / "zero.req", limit=100, what="spec")


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.req"
    with open(big, "wb") as fh:
        fh.truncate(MAX_SPEC_BYTES + 1)  # sparse: nothing is written or read
    with pytest.raises(FileRefused) as info:
        read_regular_file(big, limit=MAX_SPEC_BYTES, what="spec")
    assert info.value.reason == (
        f"is {size_text(MAX_SPEC_BYTES + 1)}, larger than the 16 MiB a spec file may be"
    )
    exact = tmp_path / "exact.req"
    exact.write_bytes(b"x" * 10)
    assert len(read_regular_file(exact, limit=10, what="spec")) == 10


def test_a_file_that_reads_longer_than_its_size_stops_at_the_limit() -> None:
    """/proc files say they are empty and are not: the read itself stops past the limit."""
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(FileRefused, match="is larger than the 16 bytes a spec file may be"):
        read_regular_file("/proc/self/status", limit=16, what="spec")


def test_the_limits_are_the_documented_ones(repo_root: Path) -> None:
    text = (repo_root / "docs" / "cli.md").read_text(encoding="utf-8")
    assert size_text(MAX_SPEC_BYTES) == "16 MiB" and size_text(MAX_CERTIFICATE_BYTES) == "64 MiB"
    assert "| spec (named or reached by `use`) | 16 MiB |" in text
    assert "| certificate (`certificate verify`) | 64 MiB |" in text
    assert "| posture policy (`--policy FILE`) | 4 MiB |" in text


# --------------------------------------------------------------------------- `use`


def test_use_of_a_file_that_is_not_a_req_is_refused_before_it_is_opened(
    tmp_path: Path,
) -> None:
    write(tmp_path, "private/notes.txt", SECRET + "\n")
    main_req = write(tmp_path, "a/b/main.req", 'spec a version 1\nuse "../../private/notes.txt"\n')
    with pytest.raises(SpecError) as info:
        load([main_req])
    err = info.value
    assert (err.file, err.line, err.column) == (str(main_req), 2, 5)
    assert err.message == (
        "`use` reads only spec files, and '../../private/notes.txt' does not end in .req"
    )
    assert SECRET not in err.render()


@pytest.mark.parametrize(
    "content",
    [
        SECRET + "\nsecond line\n",  # text, but not a spec
        "spec\n" + SECRET + "\n",  # a header that is not whole
        "# a comment\n" + SECRET + "\n",
        "spec a version 1 " + SECRET + "\n",
    ],
)
def test_a_used_req_that_is_not_a_spec_is_never_quoted(tmp_path: Path, content: str) -> None:
    write(tmp_path, "private/notes.req", content)
    main_req = write(tmp_path, "a/main.req", 'spec a version 1\nuse "../private/notes.req"\n')
    with pytest.raises(SpecError) as info:
        load([main_req])
    rendered = info.value.render()
    assert info.value.file == str(main_req) and info.value.line == 2
    assert "is not a spec file: its first line is not `spec NAME version N`" in rendered
    assert "hunter2" not in rendered and "second line" not in rendered


def test_a_used_file_that_is_not_utf8_is_never_quoted(tmp_path: Path) -> None:
    (tmp_path / "bin.req").write_bytes(b"secret\xff\xfe more secret\n")
    main_req = write(tmp_path, "main.req", 'spec a version 1\nuse "bin.req"\n')
    with pytest.raises(SpecError) as info:
        load([main_req])
    rendered = info.value.render()
    assert "is not a spec file: it is not UTF-8 text" in rendered
    assert "secret" not in rendered.replace("is not a spec file", "")


def test_a_used_spec_is_quoted_as_before(tmp_path: Path) -> None:
    """A used file that begins with its header is a spec: its errors show their line."""
    write(tmp_path, "lib.req", "# shared\n\nspec lib version 1  # the header\nparam x: int\n"
          "requirement R: x >=\n")
    main_req = write(tmp_path, "main.req", 'spec a version 1\nuse "lib.req"\n')
    with pytest.raises(SpecError) as info:
        load([main_req])
    assert info.value.file == str(tmp_path / "lib.req") and info.value.line == 5
    assert "requirement R: x >=" in info.value.render()
    (tmp_path / "lib.req").write_bytes(b"spec lib version 1\nparam x: int\n# caf\xe9\n")
    with pytest.raises(SpecError, match="not valid UTF-8") as bad:
        load([main_req])
    assert bad.value.file == str(tmp_path / "lib.req") and bad.value.line == 3


def test_the_named_file_is_quoted_whatever_its_name(tmp_path: Path) -> None:
    """The file a user names is theirs: its first line is shown, as every error shows it."""
    notes = write(tmp_path, "notes.txt", SECRET + "\n")
    with pytest.raises(SpecError) as info:
        load([notes])
    assert SECRET in info.value.render()


def test_use_of_a_large_file_is_an_error_at_the_use_line(tmp_path: Path) -> None:
    with open(tmp_path / "big.req", "wb") as fh:
        fh.truncate(MAX_SPEC_BYTES + 1)
    main_req = write(tmp_path, "main.req", 'spec a version 1\n\nuse "big.req"\n')
    with pytest.raises(SpecError) as info:
        load([main_req])
    assert info.value.line == 3
    assert info.value.message == (
        f"the used file {str(tmp_path / 'big.req')!r} is 16777217 bytes, larger than the "
        "16 MiB a spec file may be"
    )


def test_a_named_device_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    """``/dev/null`` ends at once, so this runs in-process even where devices were read."""
    assert main(["parse", "/dev/null"]) == 2
    assert capsys.readouterr().err == (
        "error: /dev/null: is a device, not a spec file: only regular files are read\n"
    )
    with pytest.raises(UsageError, match="is a device"):
        load(["/dev/null"])


# --------------------------------------------------------------------------- every command


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.req"
    os.mkfifo(path)
    return path


def test_parse_of_a_fifo_exits_2_at_once(repo_root: Path, fifo: Path) -> None:
    done = derivative(repo_root, "parse", str(fifo))
    assert done.returncode == 2, done.stderr
    assert "is a FIFO (named pipe), not a spec file" in done.stderr


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_parse_of_an_endless_device_exits_2(repo_root: Path, device: str) -> None:
    done = derivative(repo_root, "parse", device)
    assert (done.returncode, done.stderr) == (
        2, f"error: {device}: is a device, not a spec file: only regular files are read\n"
    )


def test_use_of_a_fifo_is_an_error_at_the_use_line(
    repo_root: Path, tmp_path: Path, fifo: Path
) -> None:
    main_req = write(tmp_path, "main.req", 'spec a version 1\nuse "pipe.req"\n')
    done = derivative(repo_root, "parse", str(main_req))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(
        f"{main_req}:2:5: error: the used file {str(fifo)!r} is a FIFO (named pipe), not a "
        "spec file: only regular files are read\n"
    )


def test_use_of_dev_zero_through_a_link_exits_2(repo_root: Path, tmp_path: Path) -> None:
    (tmp_path / "zero.req").symlink_to("/dev/zero")
    main_req = write(tmp_path, "main.req", 'spec a version 1\nuse "zero.req"\n')
    done = derivative(repo_root, "parse", str(main_req))
    assert done.returncode == 2, done.stderr
    assert "zero.req' is a device, not a spec file" in done.stderr


def test_certificate_verify_of_a_fifo_exits_2(repo_root: Path, fifo: Path) -> None:
    done = derivative(repo_root, "certificate", "verify", str(fifo))
    assert done.returncode == 2, done.stderr
    assert "is a FIFO (named pipe), not a certificate file" in done.stderr


def test_certificate_verify_with_a_fifo_spec_exits_2(
    repo_root: Path, tmp_path: Path, fifo: Path
) -> None:
    cert = write(tmp_path, "cert.json", "{}")
    done = derivative(repo_root, "certificate", "verify", str(cert), "--spec", str(fifo))
    assert done.returncode == 2, done.stderr
    assert "not a spec file" in done.stderr


def test_a_certificate_over_the_limit_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(MAX_CERTIFICATE_BYTES + 1)
    assert main(["certificate", "verify", str(big)]) == 2
    assert "larger than the 64 MiB a certificate file may be" in capsys.readouterr().err


def test_a_policy_that_is_a_fifo_exits_2(repo_root: Path, tmp_path: Path) -> None:
    pipe = tmp_path / "policy.json"
    os.mkfifo(pipe)
    code = write(tmp_path, "candidate.py", "def f(x):\n    return x\n")
    done = derivative(repo_root, "validate-code", str(code), "--policy", str(pipe))
    assert done.returncode == 2, done.stderr
    assert "is a FIFO (named pipe), not a policy file" in done.stderr
