"""A stored scan read back whole and checked against its SHA-256 and size before any of it is
used: bytes that are not the scan's (another object written under its key, a version that does
not hold it) are never served."""

from storage.uploads import HashingSpool, TooLarge

CHUNK = 256 * 1024


class ScanAltered(Exception):
    """The bytes the store gave for a scan are not the scan's."""

    def __init__(self, key, version_id, found):
        super().__init__(f"object {key} (version {version_id or 'as it stands'}) holds {found}, not the scan")
        self.key, self.version_id, self.found = key, version_id, found


def read_verified(store, key, *, sha256, size, version_id=None) -> HashingSpool:
    """The object's bytes (that version's, when given), spooled (in memory up to a couple of
    megabytes, then on disk) and rewound once their SHA-256 and size are the scan's; raises
    `ScanAltered` otherwise, and the store's own errors when it cannot be read."""
    spool = HashingSpool(size, memory=HashingSpool.ONE_SCAN_MEMORY)
    try:
        body = store.open(key, version_id)
        try:
            while data := body.read(CHUNK):
                spool.write(data)
        finally:
            body.close()
        if spool.sha256 != sha256 or spool.size != size:
            raise ScanAltered(key, version_id, f"{spool.size} bytes of SHA-256 {spool.sha256}")
    except TooLarge:
        spool.close()
        raise ScanAltered(key, version_id, f"more than the scan's {size} bytes") from None
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool
