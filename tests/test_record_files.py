"""A restaurant's binder and ZIP, made once for each state of its record and kept in the store:
asked again, the copy is served as it was made; after a correction or a scan, a new one."""

import io
import zipfile
from datetime import timedelta

import pytest
from pypdf import PdfReader

from tests import factories
from tests.manifest_world import NOW, build, correct, filed

PDF = factories.pdf_bytes()


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


@pytest.fixture
def download(client, session, world):
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))

    def get(kind):
        response = client.get(
            f"/v1/fses/{world.device.fse_id}/records", query_string={"format": kind}, headers=factories.bearer(operator)
        )
        assert response.status_code == 200, response.data[:300]
        assert response.headers["Content-Length"] == str(len(response.data))
        return response.data

    return get


def kept(app, kind):
    return sorted(
        key for key, _ in app.extensions["fogx.store"].keys() if key.startswith("record-") and key.endswith(f".{kind}")
    )


def text_of(pdf: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def test_a_binder_asked_again_is_the_copy_made_for_that_state(app, world, download, frozen_clock):
    filed(world, completed=NOW - timedelta(hours=3))
    first = download("pdf")
    frozen_clock(NOW + timedelta(minutes=5))  # what the record shows has not changed
    assert download("pdf") == first  # its "Generated" time too: the same copy
    assert len(kept(app, "pdf")) == 1


def test_a_correction_makes_a_new_binder_and_zip(app, world, download, frozen_clock):
    manifest, body = filed(world, completed=NOW - timedelta(hours=3), gallons_removed=1180)
    before, archive_before = download("pdf"), download("zip")
    assert "1,180" in text_of(before) or "1180" in text_of(before)

    corrected = correct(world, manifest, body, gallons_removed=1234)
    assert corrected.status_code in (200, 201), corrected.json
    after = download("pdf")
    assert after != before and ("1,234" in text_of(after) or "1234" in text_of(after))
    assert len(kept(app, "pdf")) == 2
    archive_after = download("zip")
    with zipfile.ZipFile(io.BytesIO(archive_after)) as archive:
        assert archive.read("binder.pdf") == after
    assert archive_after != archive_before and len(kept(app, "zip")) == 2


def test_a_scan_attached_makes_a_new_binder(app, world, download):
    manifest, _ = filed(world, completed=NOW - timedelta(hours=3))
    before = download("pdf")
    attached = world.client.post(
        f"/v1/manifests/{manifest['id']}/documents",
        content_type="multipart/form-data",
        data={"documents": [(io.BytesIO(PDF), "scan.pdf")]},
        headers=factories.bearer(world.hauler_token),
    )
    assert attached.status_code in (200, 201), attached.json
    after = download("pdf")
    assert len(PdfReader(io.BytesIO(after)).pages) > len(PdfReader(io.BytesIO(before)).pages)
    assert len(kept(app, "pdf")) == 2
