"""People's memberships of organisations: invitations by email, acceptance, who may manage
whom, and removal, which ends the membership's tokens at once.

A membership acts through a principal of its own (`storage.people`): an OAuth client of the
role and subject its organisation gives, holding that role's scopes, with no usable secret.
"""

import secrets
import uuid
from datetime import timedelta

from sqlalchemy import and_, or_, select, update

from auth.credentials import sha256_hex
from auth.scopes import ROLE_SCOPES
from auth.signins import revoke_membership
from domain.clock import now
from schemas.registry import CONTROL
from services.errors import Forbidden, Invalid, NotFound
from services.ids import id_or_none
from services.notices import account_mail
from services.people.passwords import (
    LinkInvalid,
    LinkUnknown,
    checked,
    digest,
    find_person,
    normal_email,
    verify_password,
)
from storage import reach
from storage.models import DisposalSite, Fse, Hauler, Jurisdiction, OAuthClient, OAuthClientFse, OAuthToken, new_id
from storage.people import ORGANISATION_ROLES, Invitation, Membership, Person


def principal_role(organisation, role) -> str:
    """The principal kind a person's role in an organisation acts as."""
    return {"hauler": "hauler", "restaurant": "fse", "site": "site"}.get(organisation) or role


def membership_of(session, principal) -> Membership | None:
    """The membership a person's token acts for; None for a client's."""
    if getattr(principal, "person_id", None) is None:
        return None
    return session.scalar(select(Membership).where(Membership.principal_id == principal.client_pk))


def make_membership(
    session,
    person,
    *,
    organisation,
    role,
    hauler_id=None,
    jurisdiction_id=None,
    site_id=None,
    fse_ids=(),
    invited_by_client_id=None,
) -> Membership:
    """A membership and its principal (added to the session, not committed)."""
    kind = principal_role(organisation, role)
    principal = OAuthClient(
        client_id=f"person-{new_id().hex}",
        secret_sha256=sha256_hex(secrets.token_urlsafe(32)),
        name=f"{person.email} ({organisation} {role})",
        role=kind,
        scope=" ".join(ROLE_SCOPES[kind]),
        hauler_id=hauler_id,
        jurisdiction_id=jurisdiction_id,
        site_id=site_id,
        created_at=now(),
        fses=[session.get(Fse, fse_id) for fse_id in fse_ids],
    )
    membership = Membership(
        person=person,
        organisation=organisation,
        role=role,
        hauler_id=hauler_id,
        jurisdiction_id=jurisdiction_id,
        site_id=site_id,
        principal=principal,
        invited_by_client_id=invited_by_client_id,
        created_at=now(),
    )
    session.add(membership)
    return membership


def organisation_name(session, membership) -> str:
    return _name_of(
        session,
        membership.organisation,
        hauler_id=membership.hauler_id,
        jurisdiction_id=membership.jurisdiction_id,
        site_id=membership.site_id,
        fse_ids=[f.id for f in membership.principal.fses],
    )


def name_of_invitation(session, invitation) -> str:
    return _name_of(
        session,
        invitation.organisation,
        hauler_id=invitation.hauler_id,
        jurisdiction_id=invitation.jurisdiction_id,
        site_id=invitation.site_id,
        fse_ids=[uuid.UUID(f) for f in invitation.fse_ids],
    )


def _name_of(session, organisation, *, hauler_id=None, jurisdiction_id=None, site_id=None, fse_ids=()) -> str:
    if organisation == "city":
        return session.get(Jurisdiction, jurisdiction_id).name
    if organisation in ("hauler", "site"):
        row = session.get(Hauler, hauler_id) if organisation == "hauler" else session.get(DisposalSite, site_id)
        # A membership a city granted reaches that city alone: say which, as a person may have one in each.
        return f"{row.name} ({session.get(Jurisdiction, jurisdiction_id).name})" if jurisdiction_id else row.name
    return ", ".join(sorted(session.get(Fse, f).name for f in fse_ids))


def certifier_of(session, principal) -> dict | None:
    """Who certifies a person's filing: their id, name and organisation; None for a program."""
    membership = membership_of(session, principal)
    if membership is None:
        return None
    return {
        "person_id": membership.person_id,
        "name": membership.person.name,
        "organisation": organisation_name(session, membership),
    }


# Who may manage whom --------------------------------------------------------------------------


def standing(session, principal) -> str:
    """Whose people the caller manages: a city admin (client or person) those of its city and
    of the haulers, restaurants and sites within it; a hauler's, restaurant's or site's admin its own."""
    if principal.role == "admin":
        return "city"
    membership = membership_of(session, principal)
    if (
        membership is not None
        and membership.role == "admin"
        and membership.organisation in ("hauler", "restaurant", "site")
    ):
        return membership.organisation
    raise Forbidden("Only a city's or an organisation's admin manages people.", error="not_an_admin")


def _within(organisation, field, message):
    return Invalid(f"No such {organisation} within your reach.", errors={field: [message]})


def target_of(session, principal, *, manager, data) -> dict:
    """The organisation an invitation names, checked to be within the caller's reach: a foreign
    one is refused exactly as one that does not exist."""
    organisation = data["organisation"]
    if manager != "city" and organisation != manager:
        raise Forbidden(f"A {manager}'s admin invites its own people only.", error="not_an_admin")
    if organisation == "city":
        code = data.get("jurisdiction")
        found = session.scalar(reach.jurisdiction_by_code(principal, code)) if code else None
        if found is None or found.id != principal.jurisdiction_id:
            raise _within("city", "jurisdiction", "Not a city you administer.")
        return {"jurisdiction_id": found.id}
    # A shared hauler's or site's person made by a city (or by an admin a city made) reaches that
    # city alone; only the exchange operator makes one of the whole company (`invite_for_company`).
    scope = principal.jurisdiction_id
    if organisation == "hauler":
        hauler_id = data.get("hauler_id") or principal.hauler_id
        if (
            hauler_id is None
            or session.scalar(
                select(Hauler.id).where(Hauler.id == hauler_id, Hauler.id.in_(reach.hauler_ids(principal)))
            )
            is None
        ):
            raise _within("hauler", "hauler_id", "Not a hauler you manage.")
        return {"hauler_id": hauler_id, "jurisdiction_id": scope}
    if organisation == "site":
        site_id = data.get("site_id") or principal.site_id
        if (
            site_id is None
            or (manager == "site" and str(site_id) != str(principal.site_id))
            or session.scalar(
                select(DisposalSite.id).where(
                    DisposalSite.id == site_id, DisposalSite.id.in_(reach.site_ids(principal))
                )
            )
            is None
        ):
            raise _within("site", "site_id", "Not a disposal site you manage.")
        return {"site_id": site_id, "jurisdiction_id": scope}
    fse_ids = list(dict.fromkeys(data.get("fse_ids") or principal.fse_ids))
    found = set(
        session.scalars(select(Fse.id).where(Fse.id.in_(fse_ids or [None]), Fse.id.in_(reach.fse_ids(principal))))
    )
    if not fse_ids or found != set(fse_ids):
        raise _within("restaurant", "fse_ids", "Each must be an FSE you manage.")
    return {"fse_ids": fse_ids}


def visible(principal):
    """A select of the membership ids the caller manages: a city's admin, those of its city
    (its staff, and the hauler and site memberships it scoped to itself) and of its restaurants;
    a hauler's or a site's admin, its own within its own scope; a restaurant's admin, its restaurants'."""
    if principal.role == "admin":
        return select(Membership.id).where(
            or_(Membership.jurisdiction_id == principal.jurisdiction_id, _restaurants_within(reach.fse_ids(principal)))
        )
    if principal.person_id is not None and principal.role == "hauler":
        return select(Membership.id).where(
            Membership.organisation == "hauler",
            Membership.hauler_id == principal.hauler_id,
            reach.in_scope(principal, Membership.jurisdiction_id),
        )
    if principal.person_id is not None and principal.role == "fse":
        return select(Membership.id).where(_restaurants_within(list(principal.fse_ids) or [None]))
    if principal.person_id is not None and principal.role == "site":
        return select(Membership.id).where(
            Membership.organisation == "site",
            Membership.site_id == principal.site_id,
            reach.in_scope(principal, Membership.jurisdiction_id),
        )
    return select(Membership.id).where(Membership.id.is_(None))


def _restaurants_within(fse_ids):
    """A restaurant membership every FSE of which is among `fse_ids`: one that also holds
    another city's (or another company's) FSE is not this caller's to show or end."""
    holders = select(OAuthClientFse.client_id)
    return and_(
        Membership.principal_id.in_(holders.where(OAuthClientFse.fse_id.in_(fse_ids))),
        Membership.principal_id.not_in(holders.where(OAuthClientFse.fse_id.not_in(fse_ids))),
    )


def listing(session, principal) -> list[Membership]:
    standing(session, principal)
    return session.scalars(
        select(Membership).where(Membership.id.in_(visible(principal))).order_by(Membership.created_at)
    ).all()


# Invitations ---------------------------------------------------------------------------------


def invite(session, principal, *, data, config) -> Invitation:
    """An invitation, mailed with its link (valid `INVITATION_TTL_HOURS`); committed once sent."""
    manager = standing(session, principal)
    _check_role(data["organisation"], data["role"])
    target = target_of(session, principal, manager=manager, data=data)
    return _issue(
        session,
        email=data["email"],
        organisation=data["organisation"],
        role=data["role"],
        target=target,
        by=principal,
        config=config,
        language=data.get("language"),
    )


def invite_for_company(session, *, email, role, hauler_id=None, site_id=None, config) -> Invitation:
    """The exchange operator's invitation to a whole hauler or disposal site, in every city it
    serves (the command line's: no city grants this)."""
    organisation = "hauler" if hauler_id else "site"
    _check_role(organisation, role)
    model, found = (Hauler, id_or_none(hauler_id)) if hauler_id else (DisposalSite, id_or_none(site_id))
    if found is None or session.get(model, found) is None:
        raise NotFound(f"No such {organisation}.")
    target = {"hauler_id": found} if hauler_id else {"site_id": found}
    return _issue(session, email=email, organisation=organisation, role=role, target=target, by=None, config=config)


def _check_role(organisation, role):
    if role not in ORGANISATION_ROLES[organisation]:
        raise Invalid(
            "No such role in that organisation.",
            errors={"role": [f"One of {', '.join(ORGANISATION_ROLES[organisation])}."]},
        )


def _issue(session, *, email, organisation, role, target, by, config, language=None) -> Invitation:
    token = secrets.token_urlsafe(32)
    at = now()
    invitation = Invitation(
        email=normal_email(email),
        organisation=organisation,
        role=role,
        hauler_id=target.get("hauler_id"),
        jurisdiction_id=target.get("jurisdiction_id"),
        site_id=target.get("site_id"),
        fse_ids=[str(f) for f in target.get("fse_ids", [])],
        token_sha256=digest(token),
        invited_by_client_id=by and by.client_pk,
        invited_by_person_id=by and by.person_id,
        created_at=at,
        expires_at=at + timedelta(hours=config["INVITATION_TTL_HOURS"]),
    )
    session.add(invitation)
    session.flush()
    link = f"{config['PUBLIC_BASE_URL']}/signin/invitations/{token}"
    where = _name_of(session, invitation.organisation, **target)
    account_mail.invitation(
        session,
        config,
        to=invitation.email,
        role=invitation.role,
        where=where,
        link=link,
        ttl_hours=config["INVITATION_TTL_HOURS"],
        jurisdiction_id=invitation.jurisdiction_id,
        language=language,
    )
    session.commit()
    return invitation


def invitation_of(session, token) -> Invitation:
    """The invitation a link names while it still works: not accepted, withdrawn or expired, and
    its inviter (a client, or a membership's principal) not revoked or removed since."""
    invitation = session.scalar(select(Invitation).where(Invitation.token_sha256 == digest(token or "")))
    if invitation is None:
        raise LinkUnknown("This link is not one fogx sent. Check that it was copied whole, or ask for a new one.")
    inviter = invitation.invited_by_client_id and session.get(OAuthClient, invitation.invited_by_client_id)
    if (
        invitation.accepted_at is not None
        or invitation.withdrawn_at is not None
        or invitation.expires_at <= now()
        or (inviter and inviter.revoked_at is not None)
    ):
        raise LinkInvalid(
            "This invitation no longer works: it has expired, been withdrawn or been accepted. Ask for a new one."
        )
    return invitation


def accept(session, token, *, name, password, config) -> Membership:
    """Join the invitation's organisation: a new account sets its name and password; an
    existing one proves it with its password."""
    invitation = invitation_of(session, token)
    person = find_person(session, invitation.email)
    if person is not None and person.password_hash is not None:
        person = verify_password(session, invitation.email, password=password, config=config)
    else:
        if not (name or "").strip() or CONTROL.search(name):
            raise Invalid("Give your name.", errors={"name": ["Required, in printable characters."]})
        hashed = checked(password, invitation.email)
        if person is None:
            person = Person(
                email=invitation.email, name=name.strip()[:200], status="active", failed_sign_ins=0, created_at=now()
            )
            session.add(person)
        person.password_hash, person.password_changed_at = hashed, now()
    membership = make_membership(
        session,
        person,
        organisation=invitation.organisation,
        role=invitation.role,
        hauler_id=invitation.hauler_id,
        jurisdiction_id=invitation.jurisdiction_id,
        site_id=invitation.site_id,
        fse_ids=[uuid.UUID(f) for f in invitation.fse_ids],
        invited_by_client_id=invitation.invited_by_client_id,
    )
    session.flush()
    taken = session.execute(
        update(Invitation)
        .where(Invitation.id == invitation.id, Invitation.accepted_at.is_(None))
        .values(accepted_at=now(), membership_id=membership.id)
    )
    if taken.rowcount != 1:
        session.rollback()
        raise LinkInvalid("This invitation has been accepted already.")
    session.commit()
    return membership


# Removal -------------------------------------------------------------------------------------


def remove(session, principal, *, membership_id) -> Membership:
    """Take a person out of an organisation: its principal is revoked with every token and
    sign-in it has, so the very next call with one of them is refused."""
    standing(session, principal)
    membership = session.scalar(
        select(Membership).where(Membership.id == id_or_none(membership_id), Membership.id.in_(visible(principal)))
    )
    if membership is None:
        raise NotFound("No such membership within your reach.")
    return _end(session, membership, by_client_id=principal.client_pk)


def remove_for_company(session, membership_id) -> Membership:
    """The exchange operator's removal (the command line's): any membership, a whole company's
    too, which no city's admin reaches."""
    membership = session.get(Membership, found) if (found := id_or_none(membership_id)) else None
    if membership is None:
        raise NotFound("No such membership.")
    return _end(session, membership, by_client_id=None)


def _end(session, membership, *, by_client_id) -> Membership:
    if membership.removed_at is None:
        at = now()
        membership.removed_at, membership.removed_by_client_id = at, by_client_id
        membership.principal.revoked_at = at
        session.execute(
            update(OAuthToken)
            .where(OAuthToken.client_id == membership.principal_id, OAuthToken.revoked_at.is_(None))
            .values(revoked_at=at)
        )
        revoke_membership(session, membership.id, reason="removed")
        session.commit()
    return membership
