"""The registry rules of `domain.registry`, read off stored rows (any object with their columns)."""

from datetime import date

from domain import registry as rules


def permit_status_on(permit, day: date) -> str:
    return rules.permit_status_on(
        issued_on=permit.issued_on,
        expires_on=permit.expires_on,
        day=day,
        changes=[rules.Dated(c.effective_on, c.status) for c in permit.status_changes],
    )


def licences_of(hauler, jurisdiction_id):
    """The hauler's licence as city `jurisdiction_id` records it, row by row."""
    return [
        rules.Licence(row.effective_on, row.licence_number, row.expires_on, row.status)
        for row in hauler.licences
        if row.jurisdiction_id == jurisdiction_id
    ]


def registrations_of(hauler, jurisdiction_id):
    return [
        rules.Registration(r.jurisdiction_id, r.registered_on, r.ended_on)
        for r in hauler.registrations
        if r.jurisdiction_id == jurisdiction_id
    ]


def approval_of(site, jurisdiction_id):
    """City `jurisdiction_id`'s approval of the site, or None."""
    return next((a for a in site.approvals if a.jurisdiction_id == jurisdiction_id), None)


def approval_status_on(approval, day: date) -> str:
    """`approved`, or the status that keeps the city's approval from standing on `day`
    (`suspended`, `closed`, or `not_approved` outside its dates)."""
    changes = [rules.Dated(c.effective_on, c.status) for c in approval.status_changes]
    if rules.site_approved_on(
        approved_from=approval.approved_from, approved_until=approval.approved_until, changes=changes, day=day
    ):
        return "approved"
    status = rules.value_on(changes, day, default="approved")
    return status if status != "approved" else "not_approved"
