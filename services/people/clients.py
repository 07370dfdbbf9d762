"""OAuth clients: created for one principal, listed, revoked, their secrets rotated."""

import secrets

from sqlalchemy import select

from auth.credentials import sha256_hex
from auth.scopes import ROLE_SCOPES
from domain.clock import now
from storage.models import DisposalSite, Fse, Hauler, Jurisdiction, OAuthClient, OAuthToken


class ClientError(ValueError):
    pass


def _subject(session, role, subject):
    """Resolve the subject of a role: a hauler id, FSE ids, a jurisdiction code or id, or a
    disposal site id."""
    import uuid

    def parse(value):
        try:
            return uuid.UUID(str(value))
        except ValueError:
            return None

    if role == "hauler":
        hauler = session.get(Hauler, parse(subject[0])) if len(subject) == 1 else None
        if hauler is None:
            raise ClientError("a hauler client needs exactly one existing hauler id")
        return {"hauler_id": hauler.id}
    if role == "site":
        site = session.get(DisposalSite, parse(subject[0])) if len(subject) == 1 else None
        if site is None:
            raise ClientError("a site client needs exactly one existing disposal site id")
        return {"site_id": site.id}
    if role == "fse":
        fses = [session.get(Fse, parse(s)) for s in subject]
        if not fses or None in fses:
            raise ClientError("an fse client needs one or more existing FSE ids")
        return {"fses": fses}
    if len(subject) != 1:
        raise ClientError(f"an {role} client needs exactly one jurisdiction")
    jurisdiction = session.scalar(select(Jurisdiction).where(Jurisdiction.code == subject[0])) or session.get(
        Jurisdiction, parse(subject[0])
    )
    if jurisdiction is None:
        raise ClientError(f"unknown jurisdiction {subject[0]!r}")
    return {"jurisdiction_id": jurisdiction.id}


def create_client(session, *, role, subject, scopes=None, name=None, client_id=None, client_secret=None):
    """A new client; returns (row, plain secret). The secret is shown once and kept hashed."""
    if role not in ROLE_SCOPES:
        raise ClientError(f"role must be one of {', '.join(ROLE_SCOPES)}")
    allowed = ROLE_SCOPES[role]
    scopes = list(scopes or allowed)
    refused = [s for s in scopes if s not in allowed]
    if refused:
        raise ClientError(f"a {role} client cannot hold {' '.join(refused)}")
    subject_fields = _subject(session, role, list(subject))
    client_id = client_id or f"{role}-{secrets.token_urlsafe(12)}"
    if session.scalar(select(OAuthClient).where(OAuthClient.client_id == client_id)):
        raise ClientError(f"client {client_id!r} exists")
    client_secret = client_secret or secrets.token_urlsafe(32)
    row = OAuthClient(
        client_id=client_id,
        secret_sha256=sha256_hex(client_secret),
        name=name or client_id,
        role=role,
        scope=" ".join(scopes),
        created_at=now(),
        **subject_fields,
    )
    session.add(row)
    session.commit()
    return row, client_secret


def find_client(session, client_id) -> OAuthClient:
    row = session.scalar(select(OAuthClient).where(OAuthClient.client_id == client_id))
    if row is None:
        raise ClientError(f"no client {client_id!r}")
    return row


def revoke_client(session, client_id):
    """Revoke the client and every token it holds; its tokens fail on the next call."""
    row = find_client(session, client_id)
    at = now()
    row.revoked_at = row.revoked_at or at
    _revoke_tokens(session, row, at)
    session.commit()
    return row


def _revoke_tokens(session, row, at):
    for token in session.scalars(
        select(OAuthToken).where(OAuthToken.client_id == row.id, OAuthToken.revoked_at.is_(None))
    ):
        token.revoked_at = at


def rotate_secret(session, client_id):
    """A new secret for the client; the tokens issued on the old one are revoked with it (a
    secret is rotated because it may have leaked, and so may what it obtained)."""
    row = find_client(session, client_id)
    if row.revoked_at:
        raise ClientError(f"client {client_id!r} is revoked")
    secret = secrets.token_urlsafe(32)
    row.secret_sha256 = sha256_hex(secret)
    row.secret_rotated_at = now()
    _revoke_tokens(session, row, row.secret_rotated_at)
    session.commit()
    return row, secret


def all_clients(session) -> list[OAuthClient]:
    """Every client, the oldest first, revoked ones included."""
    return session.scalars(select(OAuthClient).order_by(OAuthClient.created_at)).all()


def describe(row: OAuthClient) -> dict:
    return {
        "client_id": row.client_id,
        "name": row.name,
        "role": row.role,
        "scope": row.scope,
        "hauler_id": str(row.hauler_id) if row.hauler_id else None,
        "jurisdiction_id": str(row.jurisdiction_id) if row.jurisdiction_id else None,
        "fse_ids": [str(f.id) for f in row.fses],
        "created_at": row.created_at.isoformat(),
        "revoked_at": row.revoked_at.isoformat() if row.revoked_at else None,
    }
