"""Each city's permit term, from its own text: refused past it where the text sets the term,
warned where it says permits are issued annually, no limit where it is silent; through the
API and the CSV import alike."""

import io

import pytest

from tests import factories

VICTORVILLE = "Victorville 10.03.080(a)"
SAN_CLEMENTE = "San Clemente 13.30.050(E)"
PLACENTIA = "Placentia 16.24 FOG Wastewater Discharge Permits (f)"


@pytest.fixture
def admin(client, session):
    def token(city):
        return factories.token(client, *factories.oauth_client(session, role="admin", subject=[city]))

    return token


def post_permit(client, token, fse, number, issued_on, expires_on):
    return client.post(
        "/v1/permits",
        headers=factories.bearer(token),
        json={
            "permit_number": number,
            "fse_id": str(fse.id),
            "kind": "regular",
            "issued_on": issued_on,
            "expires_on": expires_on,
        },
    )


def test_victorvilles_permit_is_issued_for_one_year(client, session, admin):
    """10.03.080(a): "The FOG permit shall be issued for a one-year period and shall be renewed
    annually." Issued 1 January, it may run through 31 December; a day more is refused."""
    fse, token = factories.fse(session, city="victorville"), admin("victorville")
    year = post_permit(client, token, fse, "VV-1", "2026-01-01", "2026-12-31")
    assert year.status_code == 201 and year.json["warnings"] == []
    longer = post_permit(client, token, fse, "VV-2", "2026-01-01", "2027-01-01")
    assert longer.status_code == 422 and longer.mimetype == "application/problem+json"
    assert longer.json["errors"] == {
        "expires_on": [f"A permit issued on 2026-01-01 runs at most one year, through 2026-12-31 ({VICTORVILLE})."]
    }
    # Mid-year too: 1 July to 30 June.
    assert post_permit(client, token, fse, "VV-3", "2026-07-01", "2027-06-30").status_code == 201
    assert post_permit(client, token, fse, "VV-4", "2026-07-01", "2027-07-01").status_code == 422


def test_san_clementes_permit_is_valid_at_most_five_years(client, session, admin):
    """13.30.050(E): "Discharge Permits shall be valid for a maximum period of five (5) years or
    until a new Operator commences operation of the Food Service Establishment, whichever occurs
    first.\""""
    fse, token = factories.fse(session, city="san-clemente"), admin("san-clemente")
    assert post_permit(client, token, fse, "SC-1", "2026-03-01", "2031-02-28").status_code == 201
    longer = post_permit(client, token, fse, "SC-2", "2026-03-01", "2031-03-01")
    assert longer.status_code == 422
    assert longer.json["errors"]["expires_on"] == [
        f"A permit issued on 2026-03-01 runs at most 5 years, through 2031-02-28 ({SAN_CLEMENTE})."
    ]


def test_placentias_permits_are_issued_annually_and_a_longer_one_is_warned(client, session, admin):
    """Placentia 16.24 FOG Wastewater Discharge Permits (f): "FOG Wastewater Discharge Permits
    shall be issued annually." The section speaks of how often permits are issued, not of a
    longest validity: a longer permit is registered with a warning citing it."""
    fse, token = factories.fse(session, city="placentia"), admin("placentia")
    assert post_permit(client, token, fse, "PL-1", "2026-01-01", "2026-12-31").json["warnings"] == []
    longer = post_permit(client, token, fse, "PL-2", "2026-01-01", "2027-01-01")
    assert longer.status_code == 201
    assert longer.json["warnings"] == [
        {
            "code": "permit_term_exceeded",
            "citation": PLACENTIA,
            "message": f"A permit issued on 2026-01-01 runs at most one year, through 2026-12-31 ({PLACENTIA}).",
        }
    ]


@pytest.mark.parametrize("city", ["colusa", "tracy"])
def test_a_city_whose_text_sets_no_term_takes_any(client, session, admin, city):
    """Colusa 15A and Tracy 5.26 set no permit term: a ten-year permit is registered as it is."""
    fse = factories.fse(session, city=city)
    response = post_permit(client, admin(city), fse, "P-10", "2026-01-01", "2035-12-31")
    assert response.status_code == 201 and response.json["warnings"] == []


def test_the_csv_import_refuses_and_warns_as_the_api_does(client, session, admin):
    """The same terms for a permit imported from a CSV row: Victorville's two-year row is
    rejected by its row number with the section; Placentia's is created with the warning."""
    header = "permit_number,fse_apn,fse_name,kind,status,issued_on,expires_on\n"

    def upload(city, rows):
        fse = factories.fse(session, city=city)
        content = header + "".join(f"{n},{fse.apn},{fse.name},regular,active,{i},{e}\n" for n, i, e in rows)
        return client.post(
            "/v1/imports/permits",
            headers=factories.bearer(admin(city)),
            data={"file": (io.BytesIO(content.encode()), "permits.csv")},
            content_type="multipart/form-data",
        ).json

    victorville = upload("victorville", [("VV-1", "2026-01-01", "2026-12-31"), ("VV-2", "2026-01-01", "2027-12-31")])
    assert (victorville["created"], victorville["rejected"]) == (1, 1)
    [rejection] = victorville["rejections"]
    assert rejection["row"] == 3 and VICTORVILLE in rejection["errors"]["expires_on"][0]
    placentia = upload("placentia", [("PL-1", "2026-01-01", "2027-12-31")])
    assert placentia["created"] == 1
    assert [(w["row"], w["code"], w["citation"]) for w in placentia["warnings"]] == [
        (2, "permit_term_exceeded", PLACENTIA)
    ]
