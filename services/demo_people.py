"""The demo's people: one per role of each kind of organisation, with one documented
password, and the app they sign in through. Nothing else creates a fixed password."""

from services import apps
from services.accounts import make_membership
from services.passwords import checked
from storage.people import Person

DEMO_PASSWORD = "fogx-demo-password"
DEMO_APP = "fogx-portal"


def demo_redirects(base_url: str) -> list[str]:
    """Where the demo app may send people back to: the portal and the driver's app at the
    instance's public address (and, on loopback, under `localhost` too)."""
    bases = [base_url]
    if base_url.startswith("http://127.0.0.1:"):
        bases.append(base_url.replace("127.0.0.1", "localhost", 1))
    return [f"{base}{page}" for base in bases for page in ("/portal/", "/portal/driver/")]


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
    apps.create_app(
        session,
        name="fogx portal",
        redirect_uris=demo_redirects(base_url),
        public=True,
        first_party=True,
        client_id=DEMO_APP,
    )
