"""Forgery-evident transcripts: every line, header included, is covered by the hash chain
and the chain's end is signed (Ed25519) with this installation's key, so a transcript
rewritten with every hash recomputed fails verification; `gm replay` says what it could
and could not verify.

Each forgery below edits one field a replay cannot re-derive (the header's engine,
system, backend, assets, the `auto` option, the model of an adventure, a model
response's content, usage and call ids) and recomputes the whole chain as a forger
would. Before format 2 every one of them replayed as genuine."""

from __future__ import annotations

import shutil
import stat
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from gm_engine.cli import main
from gm_engine.llm.offline import OfflineBackend
from gm_engine.sessions.base import SessionIO, SessionSpec
from gm_engine.sessions.humans import ScriptedHuman
from gm_engine.transcripts.format import (
    TranscriptFormatError,
    TranscriptTampered,
    TranscriptWriter,
    read_transcript,
)
from gm_engine.transcripts.record import record_session
from gm_engine.transcripts.replay import replay_transcript
from gm_engine.transcripts.resume import ResumeError, resume_session
from gm_engine.transcripts.signing import key_file, load_or_create_key, public_key_text, sign_end
from tests.forge_chain import opened, rechain, written

Objs = list[dict[str, Any]]


@pytest.fixture(autouse=True)
def _english_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the English catalogue's texts (the Japanese ones are tested where
    they say so, by unsetting GM_LOCALE)."""
    monkeypatch.setenv("GM_LOCALE", "en")


FORGER = Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64)))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An adventure and a werewolf --auto game, recorded once under one data directory."""
    folder = tmp_path_factory.mktemp("signed")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GM_DATA_DIR", str(folder / "data"))
        adventure = folder / "adventure.jsonl"
        spec = SessionSpec(
            kind="adventure", seed=0, options={"system": "DiceBot"}, backend="offline", model="gm-model"
        )
        human = ScriptedHuman(["アリア 駆け出し おまかせ", "慎重に進む"], when_done="次へ")
        io = SessionIO(backend=OfflineBackend(), human=human, show=lambda _: None)
        record_session(spec, io, adventure, durable=False, remember_seed=False)
        werewolf = folder / "werewolf.jsonl"
        assert main(["werewolf", "play", "--auto", "--plain", "--seed", "3", "--record", str(werewolf)]) == 0
    return {"adventure": adventure, "werewolf": werewolf, "data": folder / "data"}


@pytest.fixture
def same_installation(recorded: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GM_DATA_DIR", str(recorded["data"]))


def copy(recorded: dict[str, Path], name: str, tmp_path: Path) -> Path:
    target = tmp_path / f"{name}.jsonl"
    shutil.copyfile(recorded[name], target)
    return target


def load(path: Path) -> Objs:
    return opened(path)


def forge(path: Path, objs: Objs, *, key: Ed25519PrivateKey | None = None, strip: bool = False) -> None:
    """Write ``objs`` back with the chain and the end's hash recomputed. The signature: kept
    as it was (the forger does not have the recorder's key), made anew with ``key`` (the
    forger's own, named in the header), or removed with the signer (``strip``)."""
    if key is not None:
        objs[0]["signer"] = public_key_text(key)
    if strip:
        objs[0]["signer"] = None
    sign: Callable[[str], str | None] | None = None
    if key is not None:
        sign = partial(sign_end, key)
    elif strip:
        sign = lambda digest: None  # noqa: E731
    path.write_bytes(rechain(objs, sign=sign))


def first(
    objs: Objs, event_type: str, test: Callable[[dict[str, Any]], bool] = lambda _: True
) -> dict[str, Any]:
    return next(obj for obj in objs if obj["type"] == event_type and test(obj))


def _engine(objs: Objs) -> None:
    objs[0]["engine"] = "9.9.9"


def _backend(objs: Objs) -> None:
    objs[0]["backend"] = "openai"


def _asset(objs: Objs) -> None:
    name = sorted(objs[0]["assets"])[0]
    objs[0]["assets"][name] = "0" * 64


def _model(objs: Objs) -> None:
    objs[0]["model"] = "another-model"


def _auto(objs: Objs) -> None:
    objs[0]["options"]["auto"] = False


def _content(objs: Objs) -> None:
    response = first(objs, "model_response", lambda o: o["actor"] != "GM" and bool(o.get("tool_calls")))
    response["content"] = "（心の声）改竄された本音。"


def _usage(objs: Objs) -> None:
    response = first(objs, "model_response", lambda o: o.get("usage") is not None)
    response["usage"]["prompt_tokens"] += 1000


def _call_id(objs: Objs) -> None:
    response = first(objs, "model_response", lambda o: bool(o.get("tool_calls")))
    response["tool_calls"][0]["id"] = "forged-id"


# Each was checked against the code before format 2 (chain recomputed, `replay_file`):
# every one replayed OK. (An adventure's content, usage and call ids feed back into
# its later requests or its figures, so replay alone catches those there.)
FORGERIES: list[tuple[str, str, Callable[[Objs], None]]] = [
    ("adventure", "engine", _engine),
    ("adventure", "backend", _backend),
    ("adventure", "assets", _asset),
    ("adventure", "model", _model),
    ("werewolf", "auto", _auto),
    ("werewolf", "content", _content),
    ("werewolf", "usage", _usage),
    ("werewolf", "call id", _call_id),
]


@pytest.mark.usefixtures("same_installation")
@pytest.mark.parametrize(("name", "field", "edit"), FORGERIES, ids=[f"{n}-{f}" for n, f, _ in FORGERIES])
def test_a_rewritten_field_fails_the_signature_though_every_hash_is_recomputed(
    recorded: dict[str, Path], tmp_path: Path, name: str, field: str, edit: Callable[[Objs], None]
) -> None:
    path = copy(recorded, name, tmp_path)
    objs = load(path)
    edit(objs)
    forge(path, objs)
    with pytest.raises(TranscriptTampered, match="signature"):
        read_transcript(path)


@pytest.mark.usefixtures("same_installation")
@pytest.mark.parametrize(("name", "field", "edit"), FORGERIES, ids=[f"{n}-{f}" for n, f, _ in FORGERIES])
def test_a_rewritten_field_resigned_by_another_key_is_not_verified(
    recorded: dict[str, Path],
    tmp_path: Path,
    name: str,
    field: str,
    edit: Callable[[Objs], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = copy(recorded, name, tmp_path)
    objs = load(path)
    edit(objs)
    forge(path, objs, key=FORGER)
    authenticity = read_transcript(path).authenticity
    assert authenticity.status == "signed" and not authenticity.verified
    assert authenticity.signer == public_key_text(FORGER)
    assert main(["replay", "--require-signature", str(path)]) == 1
    out = capsys.readouterr().out
    assert "key not known here" in out and "0 signed by a trusted key" in out


@pytest.mark.usefixtures("same_installation")
def test_a_genuine_transcript_is_verified_and_gm_replay_says_so(
    recorded: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("adventure", "werewolf"):
        transcript = read_transcript(recorded[name])
        assert transcript.authenticity.verified
        assert transcript.header.signer == public_key_text(load_or_create_key())
        assert replay_transcript(transcript).ok
    assert main(["replay", "--require-signature", str(recorded["adventure"])]) == 0
    out = capsys.readouterr().out
    assert "signature verified: signed by this installation's key" in out
    assert "1 of 1 transcripts match, 1 signed by a trusted key" in out


def test_on_another_installation_the_key_is_unknown_unless_trusted(
    recorded: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(recorded["adventure"])
    assert main(["replay", path]) == 0  # the rules replay; the signature is only not vouched for
    assert "key not known here" in capsys.readouterr().out
    assert main(["replay", "--require-signature", path]) == 1
    capsys.readouterr()
    signer = read_transcript(path).header.signer
    assert signer is not None
    assert main(["replay", "--require-signature", "--trust-key", signer, path]) == 0
    assert "signed by a key given as trusted" in capsys.readouterr().out


def test_an_unknown_key_is_shown_whole_so_it_can_be_trusted_as_shown(
    recorded: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(recorded["adventure"])
    signer = read_transcript(path).header.signer
    assert signer is not None
    assert main(["replay", path]) == 0
    out = capsys.readouterr().out
    assert f"({signer})" in out and f"--trust-key {signer}" in out


def test_require_signature_says_why_it_failed(
    recorded: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "--require-signature", str(recorded["adventure"])]) == 1
    captured = capsys.readouterr()
    assert "1 of 1 transcripts match, 0 signed by a trusted key" in captured.out
    assert "--require-signature: 1 not signed by a trusted key, so failed" in captured.err


@pytest.mark.parametrize(
    "given",
    [
        "foo",
        "ed25519:1e88cdedd2799c4c",  # the prefix older versions showed
        "ed25519:" + "g" * 64,
        "rsa:" + "0" * 64,
        "ed25519:" + "0" * 66,
    ],
)
def test_a_trust_key_that_is_not_a_whole_key_is_refused_in_words(
    given: str, recorded: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["replay", "--trust-key", given, str(recorded["adventure"])])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f'"{given}" is not a key' in err and "64 hex digits" in err


def test_a_trust_key_is_read_whatever_the_case_of_its_digits(
    recorded: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(recorded["adventure"])
    signer = read_transcript(path).header.signer
    assert signer is not None
    shouted = "ed25519:" + signer.removeprefix("ed25519:").upper()
    assert main(["replay", "--require-signature", "--trust-key", shouted, path]) == 0
    assert "signed by a key given as trusted" in capsys.readouterr().out


@pytest.mark.usefixtures("same_installation")
def test_a_stripped_signature_is_tampering_and_a_stripped_signer_is_unsigned(
    recorded: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copy(recorded, "adventure", tmp_path)
    objs = load(path)
    objs[-1].pop("signature")
    forge(path, objs)
    with pytest.raises(TranscriptTampered, match="no signature, though the header names its signer"):
        read_transcript(path)
    objs = load(copy(recorded, "werewolf", tmp_path))
    _content(objs)
    forge(path, objs, strip=True)
    authenticity = read_transcript(path).authenticity
    assert authenticity.status == "unsigned" and not authenticity.verified
    assert main(["replay", "--require-signature", str(path)]) == 1
    assert "not signed (recorded without a signing key)" in capsys.readouterr().out


@pytest.mark.usefixtures("same_installation")
def test_a_blob_rewritten_with_its_key_recomputed_fails_the_signature(
    recorded: dict[str, Path], tmp_path: Path
) -> None:
    path = copy(recorded, "adventure", tmp_path)
    objs = load(path)
    blob = first(objs, "blob", lambda o: isinstance(o["body"], str))
    blob["body"] = blob["body"].replace("。", "！")
    # a format-3 blob is named by its number, and its content covered by the running
    # hash: the forger recomputes that (checkpoints and the end's hash), and the
    # signature over it still fails
    forge(path, objs)
    with pytest.raises(TranscriptTampered, match="signature"):
        read_transcript(path)
    copy(recorded, "adventure", tmp_path)  # the same edit, hashes left as they were
    objs = load(path)
    edited = first(objs, "blob", lambda o: isinstance(o["body"], str))
    edited["body"] = edited["body"].replace("。", "！")
    path.write_bytes(written(objs))
    with pytest.raises(TranscriptTampered, match="running hash"):
        read_transcript(path)


@pytest.mark.usefixtures("same_installation")
def test_the_system_must_follow_the_options_even_when_signed(
    recorded: dict[str, Path], tmp_path: Path
) -> None:
    path = copy(recorded, "adventure", tmp_path)
    objs = load(path)
    objs[0]["system"] = "Cthulhu7th"
    forge(path, objs, key=FORGER)
    with pytest.raises(TranscriptFormatError, match="system 'Cthulhu7th' is not the one its options give"):
        read_transcript(path)


def test_the_key_is_kept_apart_owner_only_and_made_once(tmp_path: Path) -> None:
    key = load_or_create_key()
    path = key_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert public_key_text(load_or_create_key()) == public_key_text(key)
    target = tmp_path / "t.jsonl"
    spec = SessionSpec(kind="roll", seed=1, options={"system": "DiceBot"}, backend="none")
    writer = TranscriptWriter.create(target, spec, durable=False)
    writer.close()
    raw = target.read_bytes()
    assert public_key_text(key).encode() in raw
    assert key.private_bytes_raw().hex().encode() not in raw


def test_a_session_signed_elsewhere_is_not_resumed_here(
    recorded: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cut.jsonl"
    spec = SessionSpec(kind="roll", seed=1, options={"system": "DiceBot"}, backend="none")
    monkeypatch.setenv("GM_DATA_DIR", str(recorded["data"]))
    TranscriptWriter.create(path, spec, durable=False).close()
    monkeypatch.setenv("GM_DATA_DIR", str(tmp_path / "elsewhere"))
    from gm_engine.sessions.roll import NoModelBackend

    io = SessionIO(backend=NoModelBackend(), human=ScriptedHuman(["/quit"]), show=lambda _: None)
    before = path.read_bytes()
    with pytest.raises(ResumeError, match="another installation's key"):
        resume_session(path, io, seed=1)
    assert path.read_bytes() == before
