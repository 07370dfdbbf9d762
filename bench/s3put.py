"""The CPU one PUT costs the process that sends it: boto3's `put_object` against the PUT of
`storage/s3put.py`, the same small bodies to the same local S3 server (moto), in turns.

    .venv/bin/python bench/s3put.py [rounds]

Bodies are 1 KB, so that what is measured is the cost per request, not per byte; each
round sends 200 of each, three rounds by default.
"""

import base64
import hashlib
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import start_s3  # noqa: E402
from storage.objects import S3Store  # noqa: E402

PER_ROUND = 200


class Stream(io.BytesIO):
    """A body read once, as a client's upload is."""

    def seekable(self):
        return False


def body(n):
    data = os.urandom(1000) + n.to_bytes(8, "big")
    return data, hashlib.sha256(data).hexdigest()


def no_expect(request, **_):
    if "Expect" in request.headers:
        del request.headers["Expect"]


def main(rounds):
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    process, endpoint, _ = start_s3()
    try:
        store = S3Store(bucket="fogx-bench", endpoint_url=endpoint, region="us-west-1", object_lock="off")
        # As the store's PUT does, a stream goes without waiting for `100 Continue`.
        store.client.meta.events.register("before-sign.s3.PutObject", no_expect)

        def boto3_put_object(data, key):
            store.client.put_object(
                Bucket="fogx-bench",
                Key=key,
                Body=Stream(data),
                ContentLength=len(data),
                ContentType="image/png",
                IfNoneMatch="*",
                ChecksumSHA256=base64.b64encode(bytes.fromhex(key)).decode(),
            )

        def direct_put(data, key):
            assert store.put_stream(key, Stream(data), len(data), "image/png").wrote

        ways = (boto3_put_object, direct_put)
        serial = 0
        for way in ways:  # warm both: connections, the first signing, the endpoint asked once
            for _ in range(20):
                serial += 1
                way(*body(serial))
        totals = {way.__name__: [] for way in ways}
        for round_ in range(rounds):
            for way in ways if round_ % 2 == 0 else ways[::-1]:
                cpu, wall = time.process_time(), time.perf_counter()
                for _ in range(PER_ROUND):
                    serial += 1
                    way(*body(serial))
                cpu_ms = (time.process_time() - cpu) / PER_ROUND * 1000
                wall_ms = (time.perf_counter() - wall) / PER_ROUND * 1000
                totals[way.__name__].append(cpu_ms)
                print(f"round {round_ + 1}  {way.__name__:17s} CPU {cpu_ms:.2f} ms  wall {wall_ms:.2f} ms per PUT")
        for name, figures in totals.items():
            print(f"{name:17s} CPU per PUT, rounds: {', '.join(f'{f:.2f}' for f in figures)} ms")
    finally:
        process.terminate()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
