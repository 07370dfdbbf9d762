"""Scan uploads against a direct S3 PUT, and the busiest FSE's binder and ZIP."""

import hashlib
import http.client
import io
import os
import statistics
import time
from urllib.parse import urlsplit

import requests

from bench.cpu import peak_rss_mb
from bench.filing import manifest_bodies
from bench.harness import WARM_UP_UPLOADS


def random_png(side):
    from PIL import Image

    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, format="PNG", compress_level=0)
    return out.getvalue()


def uploads(server, hauler_token, s3, city, *, prefix="UP", runs=15):
    """Each size `runs` times, fresh bytes each time (nothing deduplicated): the medians.

    The API is sent the scan as a raw `PUT` to its SHA-256 from `http.client`, whose cost
    per request is close to nothing; the hash is computed by the client inside the timing,
    as boto3 hashes the body it signs for the direct `put_object`.
    """
    body = manifest_bodies(city, 1, prefix, offset=len(city.devices) - 1)[0]
    receipt = requests.post(
        f"{server.base}/v1/manifests", json=body, timeout=60, headers={"Authorization": f"Bearer {hauler_token}"}
    ).json()
    documents = f"/v1/manifests/{receipt['id']}/documents"
    for _ in range(WARM_UP_UPLOADS):  # each worker's first scan meets its S3 client and threads cold
        put_scan(server.base, documents, hauler_token, random_png(100))
    figures = {}
    for label, side in (("1 MB", 580), ("50 MB", 4090)):
        apis, directs = [], []
        for run in range(runs if side < 1000 else 7):
            data = random_png(side)
            size_mb = len(data) / 2**20
            started = time.perf_counter()
            s3.put_object(Bucket="fogx-bench", Key=f"direct-{label}-{run}", Body=data)
            directs.append(size_mb / (time.perf_counter() - started))
            started = time.perf_counter()
            status, answer = put_scan(server.base, documents, hauler_token, data)
            apis.append(size_mb / (time.perf_counter() - started))
            assert status == 201, answer
            time.sleep(0.2)  # the lock the outbox applies after the receipt is not the next upload's
        figures[label] = (
            statistics.median(apis),
            statistics.median(directs),
            peak_rss_mb(server.worker_pids()),
            size_mb,
        )
    return figures


def put_scan(base, documents, bearer, data):
    key = hashlib.sha256(data).hexdigest()  # the client names the scan by its hash
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=300)
    try:
        connection.request(
            "PUT",
            f"{documents}/{key}",
            body=data,
            headers={"Authorization": f"Bearer {bearer}", "Content-Type": "image/png"},
        )
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def busy_fse_exports(base, fse_token, city, hauler_token):
    fse_id = city.devices[0][1]
    # A few scans on the busy FSE's manifests, for the ZIP.
    listing = requests.get(
        f"{base}/v1/manifests",
        params={"fse_id": str(fse_id), "limit": 5},
        timeout=60,
        headers={"Authorization": f"Bearer {hauler_token}"},
    ).json()["items"]
    from reportlab.pdfgen import canvas

    for n, manifest in enumerate(listing):
        out = io.BytesIO()
        page = canvas.Canvas(out)
        page.drawString(100, 700, f"scan {n}")
        page.showPage()
        page.save()
        requests.post(
            f"{base}/v1/manifests/{manifest['id']}/documents",
            timeout=60,
            headers={"Authorization": f"Bearer {hauler_token}"},
            files={"documents": (f"scan{n}.pdf", out.getvalue(), "application/pdf")},
        )
    times = {}
    for fmt in ("pdf", "zip"):
        started = time.perf_counter()
        response = requests.get(
            f"{base}/v1/fses/{fse_id}/records",
            params={"format": fmt},
            timeout=300,
            headers={"Authorization": f"Bearer {fse_token}"},
        )
        times[fmt] = (time.perf_counter() - started, len(response.content))
        assert response.status_code == 200, response.text
    count = requests.get(
        f"{base}/v1/fses/{fse_id}/records", timeout=120, headers={"Authorization": f"Bearer {fse_token}"}
    ).json()["summary"]["manifests"]
    return times, count
