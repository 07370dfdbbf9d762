"""The object store for scans: a local folder or S3, behind one small interface.

Keys are the content's SHA-256, so storing the same bytes twice stores them once. Where the
bucket keeps versions, each write names the version that holds the bytes, and that version is
what is read and locked: anything written under the key later is not.
"""

import base64
import hashlib
import logging
import os
import re
import shutil
import uuid
from datetime import UTC, date, datetime, time
from pathlib import Path
from time import sleep
from typing import NamedTuple

log = logging.getLogger("fogx.storage")

CHUNK = 1024 * 1024
# Scans up to this size go up in one PUT (S3 takes up to 5 GB so): one request, conditional,
# with no parts to assemble at the end. Larger ones go in parts of 16 MiB, four at a time.
MULTIPART_THRESHOLD = 128 * CHUNK
MULTIPART_CHUNK = 16 * CHUNK
# A PUT of a file that S3 answers 5xx, or that cannot reach it, is sent again, this many
# times in all, waiting 0.1 s, then 0.2 s.
PUT_ATTEMPTS = 3
PUT_BACKOFF_SECONDS = 0.1


class StoreUnavailable(Exception):
    """The object store could not be reached or refused the operation."""


class Stored(NamedTuple):
    """What a write did: whether it wrote the bytes (False: they were there already), and the
    version that holds them where the store keeps versions (None where it keeps one copy)."""

    wrote: bool
    version_id: str | None = None


class ObjectStore:
    # Whether `put_stream` can store a body while it arrives (before it is hashed and checked).
    streams = False

    def ping(self):
        """Raise StoreUnavailable unless the store answers."""
        raise NotImplementedError

    def put_file(self, key, path, content_type) -> Stored:
        """Store the file at `path` under `key` (no-op when the key is already there)."""
        raise NotImplementedError

    def put_stream(self, key, body, length, content_type) -> Stored:
        """Store `length` bytes read from `body` under `key`."""
        raise NotImplementedError

    def open(self, key, version_id=None):
        """A binary file-like object over the stored bytes (of that version, when given)."""
        raise NotImplementedError

    def exists(self, key):
        raise NotImplementedError

    def delete(self, key):
        raise NotImplementedError

    def set_retention(self, key, until: date, version_id=None):
        """Lock the object (that version, when given) until the end of `until`; a no-op where
        the store cannot lock."""
        raise NotImplementedError

    def keys(self):
        """(key, last modified, aware UTC) of every stored object."""
        raise NotImplementedError

    def abandoned(self):
        """(name, last modified, aware UTC) of writes that never finished; none by default."""
        return iter(())

    def discard(self, name):
        """Remove an abandoned write named by `abandoned`."""
        raise NotImplementedError


class LocalStore(ObjectStore):
    """A folder; objects are fanned out by the first two hex digits of their key."""

    def __init__(self, root):
        self.root = Path(root)

    def _path(self, key):
        return self.root / key[:2] / key

    def ping(self):
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            if not os.access(self.root, os.W_OK):
                raise StoreUnavailable(f"{self.root} is not writable")
        except OSError as error:
            raise StoreUnavailable(str(error)) from error

    def put_file(self, key, path, content_type):
        target = self._path(key)
        if target.exists():
            return Stored(False)
        target.parent.mkdir(parents=True, exist_ok=True)
        # A name of its own for each upload: two uploads of the same bytes at once each rename
        # a whole copy into place, whichever is last.
        partial = target.with_name(f"{key}.{uuid.uuid4().hex}.partial")
        try:
            shutil.copyfile(path, partial)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)  # left only when the copy failed
        return Stored(True)

    def open(self, key, version_id=None):
        return open(self._path(key), "rb")

    def exists(self, key):
        return self._path(key).exists()

    def delete(self, key):
        self._path(key).unlink(missing_ok=True)

    def set_retention(self, key, until, version_id=None):
        pass

    def keys(self):
        for path in self._files():
            if not path.name.endswith(".partial"):
                yield path.name, _modified(path)

    def abandoned(self):
        """Partial copies a crashed or failed upload left behind."""
        for path in self._files():
            if path.name.endswith(".partial"):
                yield path.name, _modified(path)

    def discard(self, name):
        (self.root / name[:2] / name).unlink(missing_ok=True)

    def _files(self):
        return self.root.glob("??/*") if self.root.exists() else iter(())


class S3Store(ObjectStore):
    """S3 through boto3; any endpoint speaking the protocol (AWS, MinIO, Ceph)."""

    streams = True

    def __init__(self, *, bucket, endpoint_url=None, region=None, object_lock="compliance"):
        import boto3
        from botocore.config import Config as BotoConfig

        self.bucket = bucket
        self.object_lock = object_lock
        self._session = boto3.session.Session()
        self._client_args = dict(
            endpoint_url=endpoint_url,
            region_name=region,
            config=BotoConfig(
                retries={"max_attempts": 3, "mode": "standard"},
                connect_timeout=5,
                read_timeout=30,
                # Parts of large files go up unsigned: S3 checks each part's checksum, and
                # hashing every byte a second time for the signature would only double the CPU.
                s3={"payload_signing_enabled": False},
                # A scan read back is checked against its SHA-256 whole (storage.verified): a
                # checksum of S3's own, computed again on the way, would only cost CPU.
                response_checksum_validation="when_required",
            ),
        )
        self.client = self._session.client("s3", **self._client_args)
        # The version each multipart upload completed, by key (boto3's transfer keeps it to itself).
        self._completed = {}
        self.client.meta.events.register("after-call.s3.CompleteMultipartUpload", self._remember_version)
        self._direct_put = None
        self._put_region = None

    def _remember_version(self, parsed, **_):
        if parsed.get("Key") and parsed.get("VersionId"):
            self._completed[parsed["Key"]] = parsed["VersionId"]

    def _call(self, method, **kwargs):
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return getattr(self.client, method)(Bucket=self.bucket, **kwargs)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound", "NoSuchVersion"):
                raise KeyError(kwargs.get("Key")) from error
            raise StoreUnavailable(str(error)) from error
        except BotoCoreError as error:
            raise StoreUnavailable(str(error)) from error

    def ping(self):
        self._call("head_bucket")

    def exists(self, key):
        try:
            self._call("head_object", Key=key)
            return True
        except KeyError:
            return False

    def put_file(self, key, path, content_type):
        size = os.path.getsize(path)
        if size <= MULTIPART_THRESHOLD:
            # A key that is not the file's SHA-256 (a record's kept binder is named by its state)
            # has the file hashed here, so that S3 still checks the bytes it is sent.
            sha256 = None if _SHA256.fullmatch(key) else _file_sha256(path)
            with open(path, "rb") as body:
                return self.put_stream(key, body, size, content_type, sha256=sha256)
        if self.exists(key):
            return Stored(False, self._found_version(key))
        from boto3.s3.transfer import TransferConfig
        from botocore.exceptions import BotoCoreError, ClientError

        # Multipart above the threshold, streamed from the spool file: memory does not grow.
        config = TransferConfig(
            multipart_threshold=MULTIPART_THRESHOLD, multipart_chunksize=MULTIPART_CHUNK, max_concurrency=4
        )
        try:
            self.client.upload_file(path, self.bucket, key, Config=config, ExtraArgs={"ContentType": content_type})
        except (BotoCoreError, ClientError) as error:
            raise StoreUnavailable(str(error)) from error
        version_id = self._completed.pop(key, None)
        return Stored(True, version_id if version_id is not None else self._found_version(key))

    def put_stream(self, key, body, length, content_type, *, sha256=None):
        """One conditional PUT of `length` bytes read from `body` as they come: written unless
        the key is there already (If-None-Match: *), so a retried upload neither stores a second
        version nor costs a second request. The content's SHA-256 (`sha256`, or else the key,
        a scan's name) goes as the object's checksum: S3 refuses bytes that do not hash to it. `wrote` when this call
        wrote the object, not when the same bytes were stored already; either way the version
        that holds them.

        A file may be refused unsent (412) after S3's `100 Continue`; a body streamed from a
        client is read whole whatever S3 answers (it is hashed and checked on the way), so it
        goes without waiting for one."""
        from botocore.exceptions import BotoCoreError

        from storage.s3put import PutRefused

        headers = {"If-None-Match": "*", "x-amz-checksum-sha256": _base64_digest(sha256 or key)}
        if body.seekable():
            # A file can be sent again: S3 busy or gone for a moment is tried twice more, as
            # boto3's standard retries would. A stream is read once: its failure is the caller's.
            attempts, start = PUT_ATTEMPTS, body.tell()
            headers["Expect"] = "100-continue"
        else:
            attempts, start = 1, None
        attempt = 1
        while True:
            try:
                return Stored(True, self._put()(key, body, length=length, content_type=content_type, headers=headers))
            except PutRefused as refusal:
                if refusal.code == "PreconditionFailed":
                    return Stored(False, self._found_version(key))  # the same bytes are stored already
                if refusal.region and refusal.status in (301, 307, 400):
                    # The bucket is in another region than S3_REGION (boto3's own calls follow
                    # such redirects by themselves): the PUTs go there from now on. A file is
                    # sent again as after a 5xx; a stream was read, and its client retries.
                    self._follow(refusal.region)
                    if attempt == attempts:
                        raise StoreUnavailable(str(refusal)) from refusal
                elif refusal.code == "ConditionalRequestConflict" and self.exists(key):
                    return Stored(False, self._found_version(key))  # another upload of the same bytes finished first
                elif refusal.status < 500 or attempt == attempts:
                    raise StoreUnavailable(str(refusal)) from refusal
            except BotoCoreError as error:
                if attempt == attempts:
                    raise StoreUnavailable(str(error)) from error
            sleep(PUT_BACKOFF_SECONDS * 2 ** (attempt - 1))
            body.seek(start)
            attempt += 1

    def _follow(self, region):
        log.warning(
            "the bucket %s answers from region %s, not %s: scan PUTs go there from now on",
            self.bucket,
            region,
            self._put_region or self._client_args["region_name"],
        )
        self._put_region, self._direct_put = region, None

    def _put(self):
        """The PUT of `storage.s3put`, made on first use (it needs the credentials), for the
        bucket's region (the configured one until S3 names another)."""
        if self._direct_put is None:
            from botocore.exceptions import BotoCoreError

            from storage.s3put import DirectPut

            credentials = self._session.get_credentials()
            if credentials is None:
                raise StoreUnavailable("no AWS credentials are configured")
            try:
                probe = self._session.client(
                    "s3", **{**self._client_args, "region_name": self._put_region or self._client_args["region_name"]}
                )
                self._direct_put = DirectPut(self.client, probe, self.bucket, credentials)
            except (BotoCoreError, ValueError) as error:
                raise StoreUnavailable(str(error)) from error
        return self._direct_put

    def open(self, key, version_id=None):
        return self._call("get_object", Key=key, **_version(version_id))["Body"]

    def _found_version(self, key):
        """`version_of`, or None where the store cannot tell now: the bytes are stored all the
        same, and a scan read as its key stands is checked against its SHA-256 too."""
        try:
            return self.version_of(key)
        except (StoreUnavailable, KeyError) as error:
            log.warning("the version of %s that holds its bytes could not be found: %s", key, error)
            return None

    def version_of(self, key):
        """The oldest version under `key` that holds the bytes the key is the SHA-256 of, told
        by the checksum S3 keeps (or, where it keeps none, by hashing the bytes); None where
        the bucket keeps no versions or none holds them (then the key is read as it stands,
        and checked)."""
        listing = self._call("list_object_versions", Prefix=key)
        # S3 lists a key's versions newest first.
        for version in reversed([v for v in listing.get("Versions", []) if v["Key"] == key]):
            version_id = version["VersionId"]
            if version_id == "null":  # written while the bucket kept no versions
                continue
            head = self._call("head_object", Key=key, VersionId=version_id, ChecksumMode="ENABLED")
            checksum = head.get("ChecksumSHA256")
            if checksum and "-" not in checksum:  # a whole object's, not a multipart composite
                if checksum == _base64_digest(key):
                    return version_id
                continue
            digest = hashlib.sha256()
            body = self.open(key, version_id)
            try:
                while chunk := body.read(CHUNK):
                    digest.update(chunk)
            finally:
                body.close()
            if digest.hexdigest() == key:
                return version_id
        return None

    def delete(self, key):
        """Remove every version (a plain delete would only add a marker over a locked one)."""
        versions = self._call("list_object_versions", Prefix=key)
        entries = [v for v in versions.get("Versions", []) + versions.get("DeleteMarkers", []) if v["Key"] == key]
        for version in entries:
            self._call("delete_object", Key=key, VersionId=version["VersionId"])

    def set_retention(self, key, until, version_id=None):
        if self.object_lock == "off":
            return
        retain_until = datetime.combine(until, time.max, tzinfo=UTC).replace(microsecond=0)
        current = self.retention(key, version_id)
        if current and current[1] >= retain_until:
            return  # already locked as long or longer; a lock is only ever extended
        self._call(
            "put_object_retention",
            Key=key,
            Retention={"Mode": self.object_lock.upper(), "RetainUntilDate": retain_until},
            **_version(version_id),
        )

    def retention(self, key, version_id=None):
        """(mode, retain until) of the object's lock (that version's, when given), or None."""
        head = self._call("head_object", Key=key, **_version(version_id))
        if head.get("ObjectLockMode") and head.get("ObjectLockRetainUntilDate"):
            return head["ObjectLockMode"], head["ObjectLockRetainUntilDate"]
        return None

    def keys(self):
        token = None
        while True:
            kwargs = {"ContinuationToken": token} if token else {}
            page = self._call("list_objects_v2", **kwargs)
            for item in page.get("Contents", []):
                yield item["Key"], item["LastModified"]
            if not page.get("IsTruncated"):
                return
            token = page["NextContinuationToken"]


def _modified(path):
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)


_SHA256 = re.compile(r"[0-9a-f]{64}")


def _file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as body:
        for block in iter(lambda: body.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _base64_digest(hex_digest):
    return base64.b64encode(bytes.fromhex(hex_digest)).decode()


def _version(version_id):
    return {} if version_id is None else {"VersionId": version_id}


def make_store(config):
    if config["STORAGE_BACKEND"] == "s3":
        return S3Store(
            bucket=config["S3_BUCKET"],
            endpoint_url=config["S3_ENDPOINT_URL"],
            region=config["S3_REGION"],
            object_lock=config["S3_OBJECT_LOCK"],
        )
    return LocalStore(config["STORAGE_DIR"])
