"""The one place code imports models from: every table of the domain, and the helpers their
columns share. The models live by subject in `storage.base`, `storage.registry_models`,
`storage.manifest_models`, `storage.maintenance_models` and `storage.client_models`."""

from storage.base import NAMING, Base, UTCDateTime, created, new_id, pk, unflushed, utcnow
from storage.client_models import (
    ONE_SUBJECT,
    IdempotencyRecord,
    OAuthClient,
    OAuthClientFse,
    OAuthToken,
    OutboxEntry,
    Webhook,
)
from storage.maintenance_models import TrapCleaning
from storage.manifest_models import Change, DisposalReceipt, Document, Finding, LegalHold, Manifest, ManifestRevision
from storage.registry_models import (
    Device,
    DeviceFrequencyChange,
    DevicePermitMove,
    DisposalSite,
    DisposalSiteJurisdiction,
    DisposalSiteStatusChange,
    Fse,
    Hauler,
    HaulerLicence,
    HaulerRegistration,
    Jurisdiction,
    Permit,
    PermitStatusChange,
    RegistryChange,
    RegistryGeneration,
    Vehicle,
)

__all__ = [
    "NAMING",
    "ONE_SUBJECT",
    "Base",
    "UTCDateTime",
    "created",
    "new_id",
    "pk",
    "unflushed",
    "utcnow",
    # The registry
    "Jurisdiction",
    "Fse",
    "Permit",
    "PermitStatusChange",
    "Device",
    "DeviceFrequencyChange",
    "DevicePermitMove",
    "Hauler",
    "HaulerLicence",
    "HaulerRegistration",
    "Vehicle",
    "DisposalSite",
    "DisposalSiteJurisdiction",
    "DisposalSiteStatusChange",
    "RegistryChange",
    "RegistryGeneration",
    # Manifests
    "Manifest",
    "ManifestRevision",
    "Finding",
    "Document",
    "LegalHold",
    "Change",
    "DisposalReceipt",
    # The FSE's own maintenance log
    "TrapCleaning",
    # Clients and plumbing
    "Webhook",
    "OutboxEntry",
    "IdempotencyRecord",
    "OAuthClient",
    "OAuthClientFse",
    "OAuthToken",
]

# The tables of people and of corrections under review share the metadata: importing any model
# brings them, so every relationship resolves however a program starts.
from storage import corrections as _corrections  # noqa: F401
from storage import receipt_corrections as _receipt_corrections  # noqa: F401
from storage import service_chain as _service_chain  # noqa: F401  (its session events)
