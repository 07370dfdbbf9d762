"""The registry rules of `domain.registry`, read off stored rows (any object with their columns)."""
from datetime import date

from domain import registry as rules


def permit_status_on(permit, day: date) -> str:
    return rules.permit_status_on(
        issued_on=permit.issued_on, expires_on=permit.expires_on, day=day,
        changes=[rules.Dated(c.effective_on, c.status) for c in permit.status_changes],
    )


def licences_of(hauler):
    return [rules.Licence(l.effective_on, l.licence_number, l.expires_on, l.status)
            for l in hauler.licences]


def site_status_on(site, day: date) -> str:
    if not rules.site_approved_on(
        approved_from=site.approved_from, approved_until=site.approved_until, day=day,
        changes=[rules.Dated(c.effective_on, c.status) for c in site.status_changes],
    ):
        status = rules.value_on([rules.Dated(c.effective_on, c.status) for c in site.status_changes],
                                day, default="approved")
        return status if status != "approved" else "not_approved"
    return "approved"
