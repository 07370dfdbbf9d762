"""The demo's people: one per role of each kind of organisation, with one documented
password, and the app they sign in through. Nothing else creates a fixed password."""

from sqlalchemy import select

from auth.people import DRIVER_APP, PORTAL_APP, portal_redirects
from services.people import apps
from services.people.accounts import make_membership
from services.people.passwords import checked
from storage.people import OAuthApp, Person

DEMO_PASSWORD = "fogx-demo-password"
DEMO_APP = PORTAL_APP


# email: (name, organisation, role)
DEMO_PEOPLE = {
    "dispatcher@demo.fogx.test": ("Dana Dispatch", "hauler", "dispatcher"),
    "driver@demo.fogx.test": ("Sam Ortiz", "hauler", "driver"),
    "hauler-admin@demo.fogx.test": ("Hal Owner", "hauler", "admin"),
    "operator@demo.fogx.test": ("Ana Ruiz", "restaurant", "operator"),
    "auditor@demo.fogx.test": ("Avery Audit", "city", "auditor"),
    "admin@demo.fogx.test": ("Casey Admin", "city", "admin"),
    "clerk@demo.fogx.test": ("Gate Clerk", "site", "clerk"),
    "site-admin@demo.fogx.test": ("Sol Gatekeeper", "site", "admin"),
}


def load(session, *, hauler, fses, city, site, base_url):
    """The people (the restaurant's operator runs both Victorville restaurants) and the app."""
    subjects = {
        "hauler": {"hauler_id": hauler.id},
        "restaurant": {"fse_ids": [f.id for f in fses]},
        "city": {"jurisdiction_id": city.id},
        "site": {"site_id": site.id},
    }
    hashed = checked(DEMO_PASSWORD, "")
    for email, (name, organisation, role) in DEMO_PEOPLE.items():
        person = Person(email=email, name=name, password_hash=hashed, status="active", failed_sign_ins=0)
        session.add(person)
        make_membership(session, person, organisation=organisation, role=role, **subjects[organisation])
    session.commit()
    for client_id, name in ((DEMO_APP, "fogx portal"), (DRIVER_APP, "fogx driver")):
        made = session.scalar(select(OAuthApp).where(OAuthApp.client_id == client_id))
        if made is not None:  # made already, the first time someone signed in through it
            made.redirect_uris = portal_redirects(base_url, client_id)
            session.commit()
            continue
        apps.create_app(
            session,
            name=name,
            redirect_uris=portal_redirects(base_url, client_id),
            public=True,
            first_party=True,
            client_id=client_id,
        )
