"""The installation's transcript signing key (Ed25519) and the signature over a transcript's end.

Why a signature: the running hash (the hash chain in format 2) shows that a file was
not edited after it was written, but anyone can rewrite a transcript and recompute
every hash. The recorder therefore signs the final running hash with a private key it
keeps apart from every transcript, in the user data directory
(``keys/transcript-ed25519.key``, readable by the user only, created on first use).
The header names the public key (``ed25519:<64 hex>``), so a reader can check the
signature and compare the key with one it trusts; a rewritten transcript fails unless
the forger also holds that private key.

What is signed: the end line's ``hash``, which (format 3) is a running SHA-256 over
every byte of the file from the header to the end line's own content (in format 2: the
SHA-256 of the end line, which holds the hash of the line before it, and so on back to
the header), prefixed with :data:`SIGNATURE_CONTEXT` so that a
signature over a transcript can never be mistaken for one over anything else.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from gm_engine.transcripts.paths import data_dir

#: What a signature is over, before the end line's hash: ties it to this use.
SIGNATURE_CONTEXT = b"gm_engine transcript end v2\n"

#: How a header names its key.
KEY_PREFIX = "ed25519:"


class SigningKeyError(ValueError):
    """The key file exists but is not a key, or a key or signature text is malformed."""


def key_file() -> Path:
    """Where this installation's private key is kept."""
    return data_dir() / "keys" / "transcript-ed25519.key"


def _read_key(path: Path) -> Ed25519PrivateKey:
    text = path.read_text(encoding="ascii").strip()
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise SigningKeyError(f"{path} does not hold a signing key (64 hex digits)") from None
    if len(raw) != 32:
        raise SigningKeyError(f"{path} does not hold a signing key (64 hex digits)")
    return Ed25519PrivateKey.from_private_bytes(raw)


def load_or_create_key() -> Ed25519PrivateKey:
    """This installation's private key, created (owner-only, ``O_EXCL``) on first use.

    Raises:
        OSError: the key file cannot be read or created.
        SigningKeyError: the key file holds something else.
    """
    path = key_file()
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        key = Ed25519PrivateKey.generate()
        raw = key.private_bytes_raw().hex()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process created it meanwhile: use that one
            return _read_key(path)
        try:
            os.write(fd, f"{raw}\n".encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        return key
    return _read_key(path)


_PUBLIC_KEYS: dict[tuple[str, int, int, int], str] = {}


def installation_public_key() -> str | None:
    """The public key of this installation as a header names it, or None when none was made yet.

    Kept per key file (by its path, inode, size and change time), so that replaying many
    transcripts reads the key once, and a key made or replaced meanwhile is seen."""
    path = key_file()
    try:
        info = path.stat()
        stamp = (str(path), info.st_ino, info.st_size, info.st_mtime_ns)
        known = _PUBLIC_KEYS.get(stamp)
        if known is None:
            known = _PUBLIC_KEYS[stamp] = public_key_text(_read_key(path))
        return known
    except (OSError, SigningKeyError):
        return None


def public_key_text(key: Ed25519PrivateKey) -> str:
    """``ed25519:<hex>`` of ``key``'s public half."""
    return KEY_PREFIX + key.public_key().public_bytes_raw().hex()


def sign_end(key: Ed25519PrivateKey, end_hash: str) -> str:
    """The hex signature over an end line's hash."""
    return key.sign(SIGNATURE_CONTEXT + end_hash.encode("ascii")).hex()


def verify_end(public_key: str, end_hash: str, signature: str) -> bool:
    """Whether ``signature`` is ``public_key``'s over ``end_hash``.

    Raises:
        SigningKeyError: the key or the signature is not well-formed text.
    """
    if not public_key.startswith(KEY_PREFIX):
        raise SigningKeyError(f"unknown kind of key {public_key[:20]!r} (only {KEY_PREFIX} keys are known)")
    try:
        raw_key = bytes.fromhex(public_key[len(KEY_PREFIX) :])
        raw_signature = bytes.fromhex(signature)
    except ValueError:
        raise SigningKeyError("the key or the signature is not hex") from None
    if len(raw_key) != 32 or len(raw_signature) != 64:
        raise SigningKeyError("the key or the signature has the wrong length")
    try:
        Ed25519PublicKey.from_public_bytes(raw_key).verify(
            raw_signature, SIGNATURE_CONTEXT + end_hash.encode("ascii")
        )
    except InvalidSignature:
        return False
    return True
