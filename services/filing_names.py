"""Who pumped and where the load went, as the registry names them when a revision is filed
(Victorville 10.03.170(c): permittees keep "records of waste haulers and disposal site
location(s)"). Kept on the revision, a later change to the registry does not rewrite them."""

from datetime import date

from sqlalchemy import select

from domain import registry as reg
from storage.models import DisposalSite, Hauler


def at_filing(session, cached, *, hauler_id, licences, site_id, service_day: date) -> dict:
    """The revision's columns: the hauler's name and the licence it held on the service's
    local date (else its latest), the site's name and address. `cached(kind, key, build)`
    keeps what is read as the filing's other registry facts are kept."""
    name = cached("hauler_name", hauler_id, lambda: session.scalar(select(Hauler.name).where(Hauler.id == hauler_id)))
    licence = reg.licence_on(licences, service_day) or reg.licence_on(licences, date.max)
    site = site_id and cached(
        "site_named",
        site_id,
        lambda: session.execute(
            select(DisposalSite.name, DisposalSite.address).where(DisposalSite.id == site_id)
        ).one_or_none(),
    )
    return dict(
        hauler_name=name,
        hauler_licence_number=licence.licence_number if licence else None,
        disposal_site_name=site.name if site else None,
        disposal_site_address=site.address if site else None,
    )
