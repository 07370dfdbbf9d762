"""What a person chooses to hear (their language and the kinds they turn off), the one-click
unsubscribe of any address, and a city admin's list of its city's notices."""

from sqlalchemy import select

from auth.keys import secret_key
from domain.clock import now as clock_now
from domain.notice_kinds import NOTICE_STATES
from services.errors import Invalid, NotFound
from services.notices import messages
from services.notices.words import CHOOSABLE, LANGUAGES
from services.registry.fses import decode_cursor, encode_cursor
from storage.notice_models import Notice, NoticePreference
from storage.people import Person


def _address(session, principal) -> str:
    person = principal.person_id and session.get(Person, principal.person_id)
    if not person:
        raise NotFound("Notice choices are a person's: sign in as one.")
    return person.email


def _view(address, choice) -> dict:
    muted = sorted(set(choice.muted or [])) if choice else []
    return {
        "email": address,
        "language": choice.language if choice else "en",
        "notices": {kind: kind not in muted for kind in CHOOSABLE},
    }


def of_person(session, principal) -> dict:
    address = _address(session, principal)
    return _view(address, session.get(NoticePreference, address))


def choose(session, principal, *, data: dict) -> dict:
    """Set the person's language and which notices they get; kinds left out stay as they were."""
    address = _address(session, principal)
    wanted = data.get("notices") or {}
    unknown = sorted(set(wanted) - set(CHOOSABLE))
    if unknown:
        raise Invalid(
            "No such notice.", errors={f"notices.{kind}": [f"One of {', '.join(CHOOSABLE)}."] for kind in unknown}
        )
    if "language" in data and data["language"] not in LANGUAGES:
        raise Invalid("No such language.", errors={"language": [f"One of {', '.join(LANGUAGES)}."]})
    choice = _choice(session, address)
    if "language" in data:
        choice.language = data["language"]
    muted = set(choice.muted or [])
    for kind, on in wanted.items():
        (muted.discard if on else muted.add)(kind)
    choice.muted = sorted(muted)
    choice.updated_at = clock_now()
    session.commit()
    return _view(address, choice)


def _choice(session, address) -> NoticePreference:
    choice = session.get(NoticePreference, address)
    if choice is None:
        choice = NoticePreference(address=address, language="en", muted=[], updated_at=clock_now())
        session.add(choice)
    return choice


def unsubscribe_target(config, token: str) -> tuple[str, str]:
    """(address, kind) a signed unsubscribe link names."""
    signed = messages.unsubscribe_of(secret_key(config), token)
    if signed is None or signed[1] not in CHOOSABLE:
        raise NotFound("This link is not one fogx sent.")
    return signed


def unsubscribe(session, config, *, token: str) -> tuple[str, str]:
    """Turn off the kind of notice a signed link names, for its address; (address, kind)."""
    address, kind = unsubscribe_target(config, token)
    choice = _choice(session, address)
    choice.muted = sorted({*(choice.muted or []), kind})
    choice.updated_at = clock_now()
    session.commit()
    return address, kind


def city_notices(session, principal, *, state=None, cursor=None, limit=50) -> tuple[list[Notice], str | None]:
    """The notices of the admin's city, newest first, and the next cursor."""
    if state is not None and state not in NOTICE_STATES:
        raise Invalid("No such state.", errors={"state": [f"One of {', '.join(NOTICE_STATES)}."]})
    query = select(Notice).where(Notice.jurisdiction_id == principal.jurisdiction_id)
    if state:
        query = query.where(Notice.state == state)
    if cursor:
        query = query.where(Notice.id < decode_cursor(cursor))
    rows = session.scalars(query.order_by(Notice.id.desc()).limit(limit + 1)).all()
    more, rows = len(rows) > limit, rows[:limit]
    return rows, encode_cursor(rows[-1].id) if more else None
