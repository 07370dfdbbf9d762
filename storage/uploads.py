"""Uploaded scans on their way in: spooled while hashed and counted, then sniffed.

Memory stays bounded whatever the file size: past a couple of megabytes, bytes go to a
temporary file.
"""

import hashlib
import io
import os
import queue
import tempfile

# Scans are accepted by what their bytes are, not by what the client calls them.
MAGIC = (
    (b"%PDF-", "application/pdf"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"II*\x00", "image/tiff"),
    (b"MM\x00*", "image/tiff"),
)


# A scan larger than this many pixels is no scan: it is built to exhaust whoever renders it.
MAX_PIXELS = 60_000_000
MAX_PDF_PAGES = 2_000
# What all of a PDF's page contents may decompress to, together.
MAX_PDF_CONTENT_BYTES = 200 * 1024 * 1024


def sniff(head):
    """The content type a file's first bytes declare, or None."""
    for magic, content_type in MAGIC:
        if head.startswith(magic):
            return content_type
    return None


class TooLarge(Exception):
    pass


class ShortBody(Exception):
    """The body ended before its declared Content-Length: the client went away mid-upload."""


class HashingSpool:
    """A writable, readable spool that hashes and counts what is written to it.

    Up to `memory` bytes are kept in memory; past that (or once a path is asked for) the
    spool is a temporary file. A request that spools one scan keeps up to `ONE_SCAN_MEMORY`
    in memory, so a scan of a page or two never touches the disk; a form, which may carry
    any number of files, spools them all to disk (memory=0): memory stays bounded whatever
    the sizes."""

    ONE_SCAN_MEMORY = 2 * 1024 * 1024

    def __init__(self, limit, directory=None, memory=0):
        self.limit = limit
        self._directory = directory
        self._memory_limit = memory
        self._memory = io.BytesIO()
        self._file = None
        self._closed = False
        self._hash = hashlib.sha256()
        self.size = 0
        self.head = b""

    @property
    def _current(self):
        if self._closed:
            raise ValueError("I/O operation on a closed spool")
        return self._memory if self._file is None else self._file

    @property
    def file(self):
        """The spool on disk: what was kept in memory is moved there, at the same position."""
        if self._file is None:
            at = self._current.tell()
            self._file = tempfile.NamedTemporaryFile(prefix="fogx-upload-", dir=self._directory, delete=False)
            self._file.write(self._memory.getbuffer())
            self._file.seek(at)
            self._memory = None
        return self._file

    @property
    def on_disk(self):
        return self._file is not None

    @property
    def path(self):
        return self.file.name

    def write(self, data):
        self.size += len(data)
        if self.size > self.limit:
            raise TooLarge(self.limit)
        if len(self.head) < 16:
            self.head += bytes(data[: 16 - len(self.head)])
        self._hash.update(data)
        if self._file is None and self.size <= self._memory_limit:
            return self._current.write(data)
        return self.file.write(data)

    @property
    def sha256(self):
        return self._hash.hexdigest()

    def sniff(self):
        """The content type the bytes declare, or None."""
        return sniff(self.head)

    def defect(self, content_type):
        """Why the file is not a sound scan of its type (a bomb, a polyglot, a torso), or None."""
        self.flush()
        tail = self._tail(1024)
        if content_type == "application/pdf":
            if not tail.rstrip(b"\x00\r\n\t ").endswith(b"%%EOF"):
                return "the PDF has no end-of-file marker (truncated, or something else appended)"
            return _pdf_defect(self._readable())
        if content_type == "image/jpeg" and not tail.rstrip(b"\x00\r\n ").endswith(b"\xff\xd9"):
            return "the JPEG does not end where a JPEG ends (truncated, or something appended)"
        if content_type == "image/png" and not tail.endswith(b"IEND\xaeB`\x82"):
            return "the PNG does not end with its IEND chunk (truncated, or something appended)"
        return _image_defect(self._readable())

    def _tail(self, n):
        if self._file is None:
            return bytes(self._memory.getbuffer()[max(self.size - n, 0) :])
        with open(self._file.name, "rb") as handle:
            handle.seek(max(self.size - n, 0))
            return handle.read()

    def _readable(self):
        """What a parser may read the bytes from, without moving the spool's position."""
        return io.BytesIO(self._memory.getvalue()) if self._file is None else self._file.name

    # What Werkzeug needs of a file stream, and what callers read back.
    def read(self, *args):
        return self._current.read(*args)

    def read1(self, *args):
        return self._current.read(*args)

    def readable(self):
        return True

    def writable(self):
        return True

    def seekable(self):
        return True

    def readline(self, *args):
        return self._current.readline(*args)

    def seek(self, *args):
        return self._current.seek(*args)

    def tell(self):
        return self._current.tell()

    def flush(self):
        return self._current.flush()

    def close(self):
        self._closed = True
        self._memory = None
        if self._file is None:
            return
        if not self._file.closed:
            self._file.close()
        try:
            os.unlink(self._file.name)
        except FileNotFoundError:
            pass

    @property
    def closed(self):
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


class Passing:
    """A request body read once, by the object store's PUT, while it arrives.

    The PUT reads the body through `read` (on the request's thread); each block it reads is
    handed to another thread, which hashes and spools it (`spool_as_read`) while the PUT goes
    on sending: the hashing is not on the upload's path. At most `ahead` blocks wait to be
    spooled, so memory stays bounded whatever the size (and `spool_as_read` must run, or the
    PUT waits for it). `head` is what was read of the body already (to sniff it); it is
    spooled first, by whichever thread spools. The source is read in blocks of at least
    `block` bytes, whatever smaller reads the HTTP client makes, and a whole block is handed
    on as read, uncopied.
    """

    def __init__(self, source, spool, length, head=b"", block=256 * 1024, ahead=4):
        self._source, self._spool, self._block = source, spool, block
        self._left = length - len(head)
        self._bytes = head
        self._chunk = memoryview(head)
        self._at = 0
        self._handed = queue.Queue(maxsize=ahead)
        self._direct = False
        self._head = head  # spooled with the first block, by the thread that spools

    def read(self, size=-1):
        if self._at == len(self._chunk):
            if self._left <= 0:
                return b""
            self._refill()
        end = len(self._chunk) if size is None or size < 0 else min(self._at + size, len(self._chunk))
        # A whole block goes as it came, uncopied.
        data = self._bytes if self._at == 0 and end == len(self._bytes) else bytes(self._chunk[self._at : end])
        self._at = end
        return data

    def _refill(self):
        chunk = self._source.read(min(self._block, self._left))
        if not chunk:
            raise ShortBody(self._left)
        self._left -= len(chunk)
        if self._direct:
            self._spool.write(chunk)
        else:
            self._handed.put(chunk)
            if self._left <= 0:
                self._handed.put(None)
        self._bytes, self._chunk, self._at = chunk, memoryview(chunk), 0

    def stop_handing(self):
        """The store has stopped reading (done, or failed): `spool_as_read` need wait no more."""
        self._handed.put(None)

    def spool_as_read(self):
        """Hash and spool the blocks the store reads, as it reads them, until the body has
        ended or the store has stopped reading."""
        self._spool_head()
        while (chunk := self._handed.get()) is not None:
            self._spool.write(chunk)

    def _spool_head(self):
        if self._head is not None:
            self._spool.write(self._head)
            self._head = None

    @property
    def complete(self):
        """Whether the whole body is read (and, after `spool_as_read`, spooled)."""
        return self._left <= 0

    def drain(self):
        """Once the store is done with it: spool what it left behind (it answered early, or
        failed), so that the whole body is hashed."""
        self._spool_head()
        self._direct = True
        while True:
            try:
                chunk = self._handed.get_nowait()
            except queue.Empty:
                break
            if chunk is not None:
                self._spool.write(chunk)
        self._at = len(self._chunk)
        while self._left > 0:
            self._refill()
        self._at = len(self._chunk)

    def readable(self):
        return True

    def seekable(self):
        return False


def _image_defect(source):
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(source) as image:  # reads the header only
            width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError) as error:
        return f"the image cannot be read ({error})"
    except Image.DecompressionBombError:
        return "the image declares more pixels than any scan has"
    if width * height > MAX_PIXELS:
        return f"the image declares {width} x {height} pixels, more than any scan has"
    return None


def _pdf_defect(source):
    """Open the PDF and decompress its page contents, within bounds."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError, PyPdfError

    try:
        reader = PdfReader(source, strict=False)
        if len(reader.pages) > MAX_PDF_PAGES:
            return f"the PDF has more than {MAX_PDF_PAGES} pages"
        total = 0
        for page in reader.pages:
            contents = page.get_contents()
            total += len(contents.get_data()) if contents is not None else 0
            if total > MAX_PDF_CONTENT_BYTES:
                return "the PDF's pages decompress to more than any scan holds"
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, RecursionError) as error:
        return f"the PDF cannot be read ({type(error).__name__}: {str(error)[:120]})"
    return None
