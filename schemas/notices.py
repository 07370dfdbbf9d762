"""A person's notice choices, and the city admin's list of notices."""

from marshmallow import EXCLUDE, Schema, fields, validate

from domain.notice_kinds import CHOOSABLE, LANGUAGES, NOTICE_STATES
from schemas.manifest_views import iso


class NoticeChoicesIn(Schema):
    language = fields.String(validate=validate.OneOf(LANGUAGES))
    # kind: whether the person gets it; kinds left out stay as they were.
    notices = fields.Dict(keys=fields.String(validate=validate.OneOf(CHOOSABLE)), values=fields.Boolean())


class NoticeQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    state = fields.String(validate=validate.OneOf(NOTICE_STATES))
    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


def notice_view(notice) -> dict:
    return {
        "id": str(notice.id),
        "kind": notice.kind,
        "recipient": notice.recipient,
        "language": notice.language,
        "subject": notice.subject,
        "state": notice.state,
        "attempts": notice.attempts,
        "created_at": iso(notice.created_at),
        "sent_at": iso(notice.sent_at) if notice.sent_at else None,
        "next_attempt_at": iso(notice.next_attempt_at) if notice.state == "queued" else None,
        "last_error": notice.last_error,
    }
