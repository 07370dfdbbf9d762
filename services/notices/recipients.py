"""Who hears of what: the people with a role on the restaurant, hauler, site or city, each in
the language they chose and only for the kinds they did not turn off; a restaurant or hauler
with no people yet, at the contact address on its record (a restaurant's operator's address
where it has none), in English, unless that address turned the kind off."""

from dataclasses import dataclass

from sqlalchemy import or_, select

from services.notices.words import language_of
from storage.models import Fse, Hauler, OAuthClientFse
from storage.notice_models import NoticePreference
from storage.people import Membership, Person


@dataclass(frozen=True)
class Recipient:
    address: str
    language: str
    person_id: object = None


def _people(session, *conditions):
    query = (
        select(Person.id, Person.email)
        .join(Membership, Membership.person_id == Person.id)
        .where(Membership.removed_at.is_(None), Person.status == "active", *conditions)
        .distinct()
    )
    return [(row.id, row.email) for row in session.execute(query)]


def _chosen(session, kind, people) -> list[Recipient]:
    """`people` ((person id | None, address)) less those who turned `kind` off, in their language."""
    addresses = [address for _, address in people]
    choices = {
        p.address: p
        for p in session.scalars(select(NoticePreference).where(NoticePreference.address.in_(addresses or [""])))
    }
    chosen = []
    for person_id, address in sorted(set(people), key=lambda p: p[1]):
        choice = choices.get(address)
        if choice is not None and kind in (choice.muted or []):
            continue
        chosen.append(Recipient(address, language_of(choice.language if choice else None), person_id))
    return chosen


def _contact(session, kind, address) -> list[Recipient]:
    """The record's contact address, in English (no person chose a language for it), unless an
    unsubscribe link turned `kind` off for it (a preference row keyed by the address alone)."""
    if not address:
        return []
    choice = session.get(NoticePreference, address)
    if choice is not None and kind in (choice.muted or []):
        return []
    return [Recipient(address, "en")]


def restaurant(session, fse_id, *, kind) -> list[Recipient]:
    people = _people(
        session,
        Membership.organisation == "restaurant",
        Membership.principal_id.in_(select(OAuthClientFse.client_id).where(OAuthClientFse.fse_id == fse_id)),
    )
    if people:
        return _chosen(session, kind, people)
    record = session.execute(select(Fse.contact_email, Fse.operator_email).where(Fse.id == fse_id)).one_or_none()
    return _contact(session, kind, record and (record.contact_email or record.operator_email))


def hauler_office(session, hauler_id, *, jurisdiction_id, kind) -> list[Recipient]:
    """The hauler's admins and dispatchers: the whole company's, and those the city scoped; the
    hauler's contact address while it has none for the city (its drivers hear of no office mail)."""
    if hauler_id is None:
        return []
    people = _people(
        session,
        Membership.organisation == "hauler",
        Membership.hauler_id == hauler_id,
        Membership.role.in_(("admin", "dispatcher")),
        or_(Membership.jurisdiction_id.is_(None), Membership.jurisdiction_id == jurisdiction_id),
    )
    if people:
        return _chosen(session, kind, people)
    return _contact(session, kind, session.scalar(select(Hauler.contact_email).where(Hauler.id == hauler_id)))


def site_clerks(session, site_id, *, jurisdiction_id, kind) -> list[Recipient]:
    """The site's clerks (its admin manages its people, and confirms no load)."""
    people = _people(
        session,
        Membership.organisation == "site",
        Membership.site_id == site_id,
        Membership.role == "clerk",
        or_(Membership.jurisdiction_id.is_(None), Membership.jurisdiction_id == jurisdiction_id),
    )
    return _chosen(session, kind, people)


def auditors(session, jurisdiction_id, *, kind) -> list[Recipient]:
    people = _people(
        session,
        Membership.organisation == "city",
        Membership.role == "auditor",
        Membership.jurisdiction_id == jurisdiction_id,
    )
    return _chosen(session, kind, people)
