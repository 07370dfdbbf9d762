"""Uploaded scans on their way in: spooled to disk while hashed and counted, then sniffed.

Memory stays flat whatever the file size: bytes go straight to a temporary file.
"""
import hashlib
import os
import tempfile

# Scans are accepted by what their bytes are, not by what the client calls them.
MAGIC = (
    (b"%PDF-", "application/pdf"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
)


class TooLarge(Exception):
    pass


class HashingSpool:
    """A writable, readable temporary file that hashes and counts what is written to it."""

    def __init__(self, limit, directory=None):
        self.limit = limit
        self._file = tempfile.NamedTemporaryFile(prefix="fogx-upload-", dir=directory, delete=False)
        self.path = self._file.name
        self._hash = hashlib.sha256()
        self.size = 0
        self.head = b""

    def write(self, data):
        self.size += len(data)
        if self.size > self.limit:
            raise TooLarge(self.limit)
        if len(self.head) < 16:
            self.head += bytes(data[: 16 - len(self.head)])
        self._hash.update(data)
        return self._file.write(data)

    @property
    def sha256(self):
        return self._hash.hexdigest()

    def sniff(self):
        """The content type the bytes declare, or None."""
        for magic, content_type in MAGIC:
            if self.head.startswith(magic):
                return content_type
        return None

    # What Werkzeug needs of a file stream, and what callers read back.
    def read(self, *args):
        return self._file.read(*args)

    def read1(self, *args):
        return self._file.read(*args)

    def readable(self):
        return True

    def writable(self):
        return True

    def seekable(self):
        return True

    def readline(self, *args):
        return self._file.readline(*args)

    def seek(self, *args):
        return self._file.seek(*args)

    def tell(self):
        return self._file.tell()

    def flush(self):
        return self._file.flush()

    def close(self):
        if not self._file.closed:
            self._file.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    @property
    def closed(self):
        return self._file.closed
