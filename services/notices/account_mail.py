"""Invitations and password-reset links as notices: queued in the transaction that makes the
link, sent after it; a mail server that is down delays them and fails no request. Each is
text with an HTML alternative, in English or Spanish, its body sealed (the link opens an account)."""

from sqlalchemy.dialects import postgresql, sqlite

from auth.keys import secret_key
from domain.clock import now as clock_now
from services.notices import messages, outbox
from services.notices.words import INVITATION, RESET, language_of, role_word, word, written
from storage.notice_models import NoticePreference


def _stored_language(session, address) -> str | None:
    choice = session.get(NoticePreference, address)
    return choice.language if choice is not None else None


def invitation(session, config, *, to, role, where, link, ttl_hours, jurisdiction_id=None, language=None):
    """`language`: the inviter's choice; else the one the address chose already, else English.
    The inviter's choice becomes the address's own while it has none, so that the person's
    notices after they accept are in it too (they change it in their notice choices)."""
    chosen = language_of(language or _stored_language(session, to))
    if language:
        make = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
        first_choice = make(NoticePreference).values(address=to, language=chosen, muted=[], updated_at=clock_now())
        session.execute(first_choice.on_conflict_do_nothing(index_elements=["address"]))
    facts = {"role": role_word(chosen, role), "where": where, "ttl_hours": ttl_hours}
    subject, paragraphs = written(INVITATION, chosen, facts=facts)
    body = messages.body(language=chosen, paragraphs=paragraphs, link=link, label=word(chosen, "accept"))
    outbox.queue(
        session,
        kind=INVITATION,
        recipient=to,
        language=chosen,
        subject=subject,
        body=messages.seal(secret_key(config), body),
        jurisdiction_id=jurisdiction_id,
    )


def reset(session, config, *, person, link, ttl_hours):
    """In the language the person chose for their notices (English until they choose)."""
    chosen = language_of(_stored_language(session, person.email))
    subject, paragraphs = written(RESET, chosen, facts={"name": person.name, "ttl_hours": ttl_hours})
    body = messages.body(language=chosen, paragraphs=paragraphs, link=link, label=word(chosen, "choose_password"))
    outbox.queue(
        session,
        kind=RESET,
        recipient=person.email,
        language=chosen,
        subject=subject,
        body=messages.seal(secret_key(config), body),
        person_id=person.id,
    )
