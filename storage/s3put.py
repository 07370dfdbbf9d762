"""One S3 PUT of a body while it arrives, without the client's per-call machinery.

A boto3 client's `put_object` does much work before its first byte leaves (the endpoint rules
evaluated again for every key, parameter validation and serialization, a dozen event hooks),
and on a scan upload that work sits between the request's last check and the first byte S3
sees. `DirectPut` asks the client once
where the bucket's objects go (path or virtual-hosted style, as the client resolves them for
its endpoint and region) and which region it signs for, then per PUT builds the request,
signs it with botocore's SigV4 signer and sends it on the client's own HTTP session (its
pool, proxies, TLS settings and timeouts); `bench/s3put.py` compares the two. What it leaves out
does not apply to it or is its caller's: a stream is read once and cannot be sent again (a
file is, by `S3Store.put_stream`); a bucket in another region is named in the refusal,
and `S3Store.put_stream` makes a `DirectPut` for that region; the checksum is given, not
computed; the keys are hex digests, with nothing to escape.
"""

import re

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest, AWSResponse

_SCOPE = re.compile(r"Credential=[^/]+/\d{8}/([a-z0-9-]+)/s3/aws4_request")
_CODE = re.compile(rb"<Code>([^<]{1,100})</Code>")
_MESSAGE = re.compile(rb"<Message>([^<]{1,500})</Message>")
_REGION = re.compile(rb"<Region>([a-z0-9-]{1,50})</Region>")


class PutRefused(Exception):
    """S3 answered the PUT with an error: its HTTP status and error code, and the bucket's
    region where S3 names one (a bucket elsewhere than the PUT was signed for)."""

    def __init__(self, status, code, message, region=None):
        super().__init__(f"PUT refused: {status} {code}: {message}")
        self.status, self.code, self.region = status, code, region


class _UnsignedPayload(S3SigV4Auth):
    """SigV4 with the body left out of the signature: its SHA-256 goes as the object's
    checksum, which S3 verifies; hashing it again for the signature would double the CPU
    spent per byte (and a stream cannot be read twice)."""

    def _should_sha256_sign_payload(self, request):
        return False


class DirectPut:
    def __init__(self, client, probe, bucket, credentials):
        """`probe` is a client made as `client` was, for this once: where and how it would send
        a PutObject is seen on the way out and the request answered before it leaves."""
        seen = {}

        def see(request, **_):
            authorization = request.headers["Authorization"]
            seen.update(
                url=request.url,
                authorization=authorization.decode() if isinstance(authorization, bytes) else authorization,
            )
            return AWSResponse(request.url, 200, {}, _NoBody())

        probe.meta.events.register_first("before-send.s3.PutObject", see)
        probe.put_object(Bucket=bucket, Key="-", Body=b"")
        scope = _SCOPE.search(seen["authorization"])
        if not seen["url"].endswith("/-") or scope is None:
            raise ValueError(f"cannot PUT directly where the client sends {seen['url']} (signed as {scope})")
        self.base = seen["url"][: -len("-")]
        self.region = scope.group(1)
        self._credentials = credentials
        self._http = client._endpoint.http_session  # the client's pool, proxies and TLS

    def __call__(self, key, body, *, length, content_type, headers=None):
        """PUT `length` bytes read from `body` to `key`; returns the version S3 stored them as
        (None where the bucket keeps no versions), raises `PutRefused` for an answer other
        than 200, botocore's exceptions when S3 cannot be reached."""
        request = AWSRequest(
            method="PUT",
            url=self.base + key,
            data=_blocks(body),
            headers={"Content-Type": content_type, "Content-Length": str(length), **(headers or {})},
        )
        credentials = self._credentials.get_frozen_credentials()
        _UnsignedPayload(credentials, "s3", self.region).add_auth(request)
        response = self._http.send(request.prepare())
        if response.status_code != 200:
            content = response.content
            region = response.headers.get("x-amz-bucket-region") or _first(_REGION, content) or None
            raise PutRefused(
                response.status_code,
                _first(_CODE, content),
                _first(_MESSAGE, content),
                region=region if region != self.region else None,
            )
        return response.headers.get("x-amz-version-id")


def _blocks(body, size=256 * 1024):
    """The body in blocks of up to `size` bytes: given a file, the HTTP connection would read
    it 16 KiB at a time, a read and a system call each (64 of them a megabyte)."""
    while block := body.read(size):
        yield block


class _NoBody:
    """The body of the probe's answer: none."""

    def stream(self, *_, **__):
        return iter(())


def _first(pattern, content):
    found = pattern.search(content or b"")
    return found.group(1).decode("utf-8", "replace") if found else ""
