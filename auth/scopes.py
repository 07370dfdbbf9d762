"""Scopes and the roles that may hold them."""

MANIFESTS_WRITE = "manifests:write"
MANIFESTS_READ = "manifests:read"
RECORDS_READ = "records:read"
AUDIT_READ = "audit:read"
REGISTRY_WRITE = "registry:write"
RECEIPTS_WRITE = "receipts:write"
# The restaurant's own log of the grease traps its kitchen cleans itself.
MAINTENANCE_WRITE = "maintenance:write"
# Approve or reject the corrections that would move a manifest (the city's auditors and admins).
CORRECTIONS_REVIEW = "corrections:review"

ALL_SCOPES = (
    MANIFESTS_WRITE,
    MANIFESTS_READ,
    RECORDS_READ,
    AUDIT_READ,
    REGISTRY_WRITE,
    RECEIPTS_WRITE,
    CORRECTIONS_REVIEW,
    MAINTENANCE_WRITE,
)

ROLE_SCOPES = {
    "hauler": (MANIFESTS_WRITE, MANIFESTS_READ),
    "fse": (RECORDS_READ, MAINTENANCE_WRITE),
    "auditor": (AUDIT_READ, RECORDS_READ, MANIFESTS_READ, CORRECTIONS_REVIEW),
    "admin": (REGISTRY_WRITE, AUDIT_READ, RECORDS_READ, MANIFESTS_READ, CORRECTIONS_REVIEW),
    # A disposal site's weighbridge or gate software: it posts the loads the site received.
    "site": (RECEIPTS_WRITE,),
}
ROLES = tuple(ROLE_SCOPES)
