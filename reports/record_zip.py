"""The record as a ZIP that proves itself: the binder, every scan, each revision's exact hashed
JSON, and SHA256SUMS over all of them. Written entry by entry as a stream."""

import hashlib
import json
import re
import time
import zipfile

from domain.chain import canonical_json

EXTENSIONS = {"application/pdf": "pdf", "image/jpeg": "jpg", "image/png": "png", "image/tiff": "tif"}
CHUNK = 256 * 1024


class _Sink:
    """A write-only stream; zipfile then writes data descriptors instead of seeking back."""

    def __init__(self):
        self.chunks = []

    def write(self, data):
        self.chunks.append(bytes(data))
        return len(data)

    def flush(self):
        pass

    def take(self):
        chunks, self.chunks = self.chunks, []
        return b"".join(chunks)


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "_"


def folder_of(manifest):
    """A manifest's folder: its number, made safe, for people; its id, for uniqueness (two
    haulers may use one number, and two numbers may be made safe alike)."""
    return f"{safe(manifest.manifest_number)}_{manifest.id}"


def render(record, binder, open_object, record_json):
    """Yield the ZIP's bytes; `binder` is a readable file, `open_object(key)` a scan's bytes.

    Each revision file holds exactly the JSON its `sha256` covers, so `sha256sum -c SHA256SUMS`
    also proves every revision hash.
    """
    sink = _Sink()
    archive = zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True)
    sums = []

    def add(name, reader, *, packed=False):
        """One entry; a `packed` one (a PDF or an image, compressed already) is stored as it is:
        deflating it again would cost the CPU and save nothing."""
        digest = hashlib.sha256()
        info = zipfile.ZipInfo(name, date_time=time.localtime()[:6])
        info.compress_type = zipfile.ZIP_STORED if packed else zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=True) as entry:
            while chunk := reader.read(CHUNK):
                digest.update(chunk)
                entry.write(chunk)
                if len(sink.chunks) > 8:
                    yield sink.take()
        sums.append(f"{digest.hexdigest()}  {name}")
        yield sink.take()

    class _Bytes:
        def __init__(self, data):
            self.data, self.pos = data, 0

        def read(self, size):
            chunk = self.data[self.pos : self.pos + size]
            self.pos += len(chunk)
            return chunk

    yield from add("binder.pdf", binder, packed=True)
    yield from add("record.json", _Bytes(json.dumps(record_json, indent=2, ensure_ascii=False).encode()))
    for manifest in record.manifests:
        folder = folder_of(manifest)
        for revision in manifest.revisions:
            yield from add(
                f"revisions/{folder}/revision-{revision.revision}.json", _Bytes(canonical_json(revision.body))
            )
        for document in manifest.documents:
            name = f"scans/{folder}/{document.sha256}.{EXTENSIONS.get(document.content_type, 'bin')}"
            with open_object(document.object_key) as body:
                yield from add(name, body, packed=True)
    archive.writestr("SHA256SUMS", "\n".join(sums) + "\n")
    archive.close()
    yield sink.take()
