"""What every OAuth endpoint shares: how clients authenticate, what a scope token is, and the
hash secrets and tokens are stored under."""
import hashlib
import re

AUTH_METHODS = ["client_secret_basic", "client_secret_post"]
SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()
