"""Who pumped and where the load went, as the registry names them when a revision is filed.
Kept on every city's revisions as exchange policy; Victorville 10.03.170(c) ("records of waste
haulers and disposal site location(s)") and Tracy 5.26 records ("disposal carrier and disposal
site location") ask their permittees for them. A later change to the registry does not rewrite
them."""

from datetime import date

from domain import registry as reg
from services.filing.filing_facts import Facts


def at_filing(facts: Facts, *, hauler_id, licences, site_id, service_day: date) -> dict:
    """The revision's columns: the hauler's name and the licence it held on the service's
    local date (else its latest), the site's name and address."""
    name = facts.hauler_name(hauler_id)
    licence = reg.licence_on(licences, service_day) or reg.licence_on(licences, date.max)
    site = site_id and facts.site_named(site_id)
    return dict(
        hauler_name=name,
        hauler_licence_number=licence.licence_number if licence else None,
        disposal_site_name=site.name if site else None,
        disposal_site_address=site.address if site else None,
    )
