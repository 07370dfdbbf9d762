"""What every OAuth endpoint shares: how clients authenticate, what a scope token is, and the
hash secrets and tokens are stored under."""

import hashlib
import re

AUTH_METHODS = ["client_secret_basic", "client_secret_post"]
# The token's holder may revoke it with the client id alone (`none` on the wire): holding the
# token is all the proof ending it needs, and a page that was reloaded no longer has the secret.
# A method of its own, so that Authlib's `none` (which a confidential client may never use)
# stays refused everywhere else.
HOLDER_METHOD = "token_holder"
SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()
