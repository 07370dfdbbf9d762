"""The pending invitations an admin manages, and withdrawing one before it is accepted.

An admin manages the invitations to what it manages (`services.people.accounts.visible`): a city's
admin those to its city, to the hauler and site memberships scoped to it and to its
restaurants; a hauler's (or a site's) admin those to its hauler (or site) within its scope; a
restaurant's admin those to its restaurants. Another city's invitation is answered as one that does not exist.
"""

import uuid

from sqlalchemy import false, or_, select

from domain.clock import now
from services.errors import Conflict, NotFound
from services.people.accounts import standing
from storage import reach
from storage.models import Fse
from storage.people import Invitation


def pending(session, principal) -> list[Invitation]:
    """The caller's pending invitations (not accepted, withdrawn or expired), oldest first."""
    standing(session, principal)
    rows = session.scalars(
        _candidates(principal)
        .where(Invitation.accepted_at.is_(None), Invitation.withdrawn_at.is_(None), Invitation.expires_at > now())
        .order_by(Invitation.created_at, Invitation.id)
    ).all()
    return _managed(session, principal, rows)


def withdraw(session, principal, *, invitation_id) -> Invitation:
    """End a pending invitation: its link no longer works. Withdrawn before: answered as it is."""
    standing(session, principal)
    try:
        found = uuid.UUID(str(invitation_id))
    except ValueError:
        found = None
    invitation = found and session.scalar(_candidates(principal).where(Invitation.id == found))
    if not invitation or not _managed(session, principal, [invitation]):
        raise NotFound("No such invitation within your reach.")
    if invitation.accepted_at is not None:
        raise Conflict("The invitation was accepted; remove the membership instead.")
    if invitation.withdrawn_at is None:
        invitation.withdrawn_at, invitation.withdrawn_by_client_id = now(), principal.client_pk
        session.commit()
    return invitation


def withdraw_for_company(session, invitation_id) -> Invitation:
    """The exchange operator's withdrawal (the command line's), of any pending invitation."""
    try:
        invitation = session.get(Invitation, uuid.UUID(str(invitation_id)))
    except ValueError:
        invitation = None
    if invitation is None:
        raise NotFound("No such invitation.")
    if invitation.accepted_at is not None:
        raise Conflict("The invitation was accepted; remove the membership instead.")
    if invitation.withdrawn_at is None:
        invitation.withdrawn_at = now()
        session.commit()
    return invitation


def _candidates(principal):
    """Invitations the caller may manage; a restaurant's are checked FSE by FSE (`_managed`)."""
    if principal.role == "admin":
        return select(Invitation).where(
            or_(Invitation.jurisdiction_id == principal.jurisdiction_id, Invitation.organisation == "restaurant")
        )
    if principal.role == "hauler":
        return select(Invitation).where(
            Invitation.organisation == "hauler",
            Invitation.hauler_id == principal.hauler_id,
            reach.in_scope(principal, Invitation.jurisdiction_id),
        )
    if principal.role == "site":
        return select(Invitation).where(
            Invitation.organisation == "site",
            Invitation.site_id == principal.site_id,
            reach.in_scope(principal, Invitation.jurisdiction_id),
        )
    if principal.role == "fse":
        return select(Invitation).where(Invitation.organisation == "restaurant")
    return select(Invitation).where(false())


def _managed(session, principal, rows) -> list[Invitation]:
    """`rows` less the restaurant invitations naming an FSE outside the caller's reach."""
    named = {uuid.UUID(f) for row in rows if row.organisation == "restaurant" for f in row.fse_ids}
    within = set(session.scalars(select(Fse.id).where(Fse.id.in_(named), Fse.id.in_(reach.fse_ids(principal)))))
    return [row for row in rows if row.organisation != "restaurant" or {uuid.UUID(f) for f in row.fse_ids} <= within]
