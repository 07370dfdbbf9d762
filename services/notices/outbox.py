"""The notice outbox: notices queued in the transaction that caused them, sent after it by
whichever instance claims each first, retried with backoff, each kept with its state.

A notice is claimed alone (FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite's one write lock
elsewhere), sent, and its state committed before the next is claimed: two instances never
send one notice, and a notice a server refused for now waits its backoff, then goes once.
"""

import hashlib
import smtplib
from datetime import timedelta

from sqlalchemy import func, insert, select, text
from sqlalchemy.dialects import postgresql, sqlite

from auth.keys import secret_key
from domain.clock import now as clock_now
from services.notices import messages
from services.notices.words import CHOOSABLE, written
from services.outbound import mail
from storage.base import new_id
from storage.notice_models import Notice

MAX_ATTEMPTS = 8
MAX_BACKOFF = timedelta(hours=1)


def queue(
    session,
    *,
    kind,
    recipient,
    language,
    subject,
    body,
    jurisdiction_id=None,
    person_id=None,
    dedupe_key=None,
) -> bool:
    """Queue one notice in the session's transaction; False where one with its `dedupe_key`
    is queued or sent already (by this pass, or another instance's)."""
    at = clock_now()
    if dedupe_key is not None:
        dedupe_key = hashlib.sha256(dedupe_key.encode()).hexdigest()
    values = {
        "id": new_id(),
        "jurisdiction_id": jurisdiction_id,
        "kind": kind,
        "person_id": person_id,
        "recipient": recipient,
        "language": language,
        "subject": subject,
        "body": body,
        "dedupe_key": dedupe_key,
        "state": "queued",
        "attempts": 0,
        "next_attempt_at": at,
        "created_at": at,
    }
    dialect = session.get_bind().dialect.name
    if dedupe_key is None:
        statement = insert(Notice).values(**values)
    else:
        make = postgresql.insert if dialect == "postgresql" else sqlite.insert
        statement = make(Notice).values(**values).on_conflict_do_nothing(index_elements=["dedupe_key"])
    return session.execute(statement).rowcount == 1


def _claim_one(session, at, ids):
    query = select(Notice).where(Notice.state == "queued", Notice.next_attempt_at <= at)
    if ids is not None:
        query = query.where(Notice.id.in_(ids))
    query = query.order_by(Notice.next_attempt_at, Notice.id).limit(1)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    else:
        # SQLite has no row locks: its one write lock, taken before reading, keeps a second
        # sender waiting until this one's notice is committed as sent.
        session.execute(text("UPDATE notices SET attempts = attempts WHERE 1 = 0"))
    return session.scalars(query).first()


def send_due(session, config, *, limit=200, ids=None) -> dict:
    """Send the queued notices that are due (of `ids` alone, where given), one claim and one
    commit each; counts of what was sent, what bounced, failed, or waits for a retry."""
    counts = {"sent": 0, "bounced": 0, "failed": 0, "retry": 0}
    for _ in range(limit):
        at = clock_now()
        notice = _claim_one(session, at, ids)
        if notice is None:
            session.rollback()
            break
        counts[_send(notice, config, at)] += 1
        session.commit()
    return counts


def _send(notice, config, at) -> str:
    unsubscribe = None
    if notice.kind in CHOOSABLE:
        token = messages.unsubscribe_token(secret_key(config), address=notice.recipient, kind=notice.kind)
        unsubscribe = f"{config['PUBLIC_BASE_URL']}/notices/unsubscribe/{token}"
    notice.attempts += 1
    try:
        mail.transmit(
            config,
            messages.message(
                notice, sender=config["MAIL_FROM"], unsubscribe_url=unsubscribe, secret=secret_key(config)
            ),
        )
    except smtplib.SMTPRecipientsRefused as error:
        codes = [code for code, _ in error.recipients.values()]
        return _refused(notice, at, error, permanent=all(code >= 500 for code in codes))
    except smtplib.SMTPResponseException as error:
        return _refused(notice, at, error, permanent=error.smtp_code >= 500)
    except (OSError, smtplib.SMTPException) as error:
        return _refused(notice, at, error, permanent=False)
    notice.state, notice.sent_at, notice.last_error = "sent", at, None
    _forget_link(notice)
    return "sent"


def _refused(notice, at, error, *, permanent) -> str:
    """A 5xx answer is a bounce, never retried; anything else is tried again after 2^n
    seconds, up to an hour, and counts as failed after `MAX_ATTEMPTS`."""
    notice.last_error = f"{type(error).__name__}: {error}"[:2000]
    if permanent:
        notice.state = "bounced"
        _forget_link(notice)
        return "bounced"
    if notice.attempts >= MAX_ATTEMPTS:
        notice.state = "failed"
        _forget_link(notice)
        return "failed"
    notice.next_attempt_at = at + min(timedelta(seconds=2**notice.attempts), MAX_BACKOFF)
    return "retry"


def _forget_link(notice):
    """A sealed body (a link that opens an account) is dropped once the notice is done with."""
    if messages.SEALED in notice.body:
        notice.body = {"text": "(a link, not kept once sent)"}


def tell(session, person, *, kind, facts, link, key, jurisdiction_id, extra_lines=(), attachments=()) -> bool:
    """`kind` written for one recipient in their language and queued, once for `key` and their
    address; False where it was queued already."""
    subject, paragraphs = written(kind, person.language, facts=facts, extra_lines=extra_lines)
    return queue(
        session,
        kind=kind,
        recipient=person.address,
        language=person.language,
        subject=subject,
        body=messages.body(language=person.language, paragraphs=paragraphs, link=link, attachments=attachments),
        jurisdiction_id=jurisdiction_id,
        person_id=person.person_id,
        dedupe_key=f"{key}:{person.address}",
    )


def queued_count(session) -> int:
    return session.scalar(select(func.count()).select_from(Notice).where(Notice.state == "queued"))
