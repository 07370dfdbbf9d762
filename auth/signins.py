"""Sign-ins: the family of tokens one sign-in through an app issued, and their end."""

from sqlalchemy import select, update

from domain.clock import now
from storage.models import OAuthToken
from storage.people import AuthorizationCode, SignIn


def revoke(session, sign_in_ids, *, reason):
    """End these sign-ins and every access and refresh token they issued (not committed)."""
    sign_in_ids = list(sign_in_ids)
    if not sign_in_ids:
        return 0
    at = now()
    session.execute(
        update(SignIn)
        .where(SignIn.id.in_(sign_in_ids), SignIn.revoked_at.is_(None))
        .values(revoked_at=at, revoked_reason=reason)
    )
    session.execute(
        update(OAuthToken)
        .where(OAuthToken.sign_in_id.in_(sign_in_ids), OAuthToken.revoked_at.is_(None))
        .values(revoked_at=at)
    )
    return len(sign_in_ids)


def revoke_all(session, person_id, *, reason):
    """End every sign-in of the person, and the codes not yet exchanged for one (not committed)."""
    at = now()
    session.execute(
        update(AuthorizationCode)
        .where(
            AuthorizationCode.person_id == person_id,
            AuthorizationCode.used_at.is_(None),
            AuthorizationCode.expires_at > at,
        )
        .values(expires_at=at)
    )
    return revoke(
        session,
        session.scalars(select(SignIn.id).where(SignIn.person_id == person_id, SignIn.revoked_at.is_(None))),
        reason=reason,
    )


def revoke_membership(session, membership_id, *, reason):
    return revoke(
        session,
        session.scalars(select(SignIn.id).where(SignIn.membership_id == membership_id, SignIn.revoked_at.is_(None))),
        reason=reason,
    )
