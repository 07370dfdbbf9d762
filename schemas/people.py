"""Invitations, memberships and the record access log, as asked for and as shown."""

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from domain.notice_kinds import LANGUAGES
from schemas.manifest import Flag
from schemas.manifest_views import iso
from schemas.registry import printable

# organisation: roles a person may have in it (as `storage.people.ORGANISATION_ROLES`)
ROLES = {
    "hauler": ("dispatcher", "driver", "admin"),
    "restaurant": ("operator", "admin"),
    "city": ("auditor", "admin"),
    "site": ("clerk", "admin"),
}


class InvitationIn(Schema):
    class Meta:
        unknown = RAISE

    email = fields.Email(required=True, validate=[validate.Length(max=254), printable])
    organisation = fields.String(required=True, validate=validate.OneOf(tuple(ROLES)))
    role = fields.String(required=True, validate=validate.OneOf(sorted({r for rs in ROLES.values() for r in rs})))
    jurisdiction = fields.String(validate=[validate.Length(min=1, max=40), printable])
    hauler_id = fields.UUID()
    site_id = fields.UUID()
    fse_ids = fields.List(fields.UUID(), validate=validate.Length(min=1, max=100))
    # The language of the invitation mail, and of the person's notices until they choose one.
    language = fields.String(validate=validate.OneOf(LANGUAGES))

    @validates_schema
    def _role_of_organisation(self, data, **_kwargs):
        if data.get("organisation") in ROLES and data.get("role") and data["role"] not in ROLES[data["organisation"]]:
            raise ValidationError(
                f"A {data['organisation']}'s roles are {', '.join(ROLES[data['organisation']])}.", "role"
            )


class SignInPolicyIn(Schema):
    class Meta:
        unknown = RAISE

    staff_totp_required = Flag(required=True)


def invitation_view(invitation) -> dict:
    return {
        "id": str(invitation.id),
        "email": invitation.email,
        "organisation": invitation.organisation,
        "role": invitation.role,
        "hauler_id": str(invitation.hauler_id) if invitation.hauler_id else None,
        "jurisdiction_id": str(invitation.jurisdiction_id) if invitation.jurisdiction_id else None,
        "site_id": str(invitation.site_id) if invitation.site_id else None,
        "fse_ids": list(invitation.fse_ids),
        "created_at": iso(invitation.created_at),
        "expires_at": iso(invitation.expires_at),
        "withdrawn_at": iso(invitation.withdrawn_at),
    }


def membership_view(membership) -> dict:
    person = membership.person
    return {
        "id": str(membership.id),
        "person": {"id": str(person.id), "name": person.name, "email": person.email},
        "organisation": membership.organisation,
        "role": membership.role,
        "hauler_id": str(membership.hauler_id) if membership.hauler_id else None,
        "jurisdiction_id": str(membership.jurisdiction_id) if membership.jurisdiction_id else None,
        "site_id": str(membership.site_id) if membership.site_id else None,
        "fse_ids": sorted(str(f.id) for f in membership.principal.fses),
        "created_at": iso(membership.created_at),
        "removed_at": iso(membership.removed_at),
    }


def policy_view(policy) -> dict:
    return {"staff_totp_required": policy.staff_totp_required, "updated_at": iso(policy.updated_at)}
