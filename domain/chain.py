"""Revision hashes: each revision's SHA-256 covers its canonical JSON and the previous hash."""

import hashlib
import json


def canonical_json(document: dict) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def seal(document: dict) -> str:
    """The SHA-256 of a revision document, which names the previous revision's hash."""
    return hashlib.sha256(canonical_json(document)).hexdigest()


def verify(revisions) -> list[str]:
    """Problems in a chain of (revision number, document, stored sha256), oldest first."""
    problems = []
    previous = None
    for number, document, stored in revisions:
        if document.get("previous_sha256") != previous:
            problems.append(f"revision {number} does not name revision {number - 1}'s hash")
        if seal(document) != stored:
            problems.append(f"revision {number} does not match its hash")
        previous = stored
    return problems
