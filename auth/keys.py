"""Keys kept in a file under instance/, made at first use, where no variable gives them."""

import os
import secrets
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def kept(path, make) -> str:
    """The text in `path`; made by `make()` at first use, readable by its owner only. Written
    whole beside it, then linked into place: a process that finds the file never reads half a
    key, and of two making it at once, the first one's stands."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(make())
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text()


def secret_key(config) -> str:
    """Signs the sign-in pages' state between steps: `SECRET_KEY` or a kept random one."""
    return config["SECRET_KEY"] or kept(config["SECRET_KEY_FILE"], lambda: secrets.token_hex(32)).strip()


def _new_rsa_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def oidc_signing_pem(config) -> str:
    """The RSA key ID tokens are signed with (RS256): `OIDC_SIGNING_KEY` (PEM) or a kept one.
    Every host must have the same: set the variable where several run fogx."""
    return config["OIDC_SIGNING_KEY"] or kept(config["OIDC_SIGNING_KEY_FILE"], _new_rsa_pem)
