"""The kinds of notice fogx sends, the states a notice is kept in, and the languages it writes."""

LANGUAGES = ("en", "es")
NOTICE_STATES = ("queued", "sent", "failed", "bounced")

DUE_SOON, OVERDUE = "device_due_soon", "device_overdue"
FINDINGS, DISPUTED, CORRECTION = "manifest_findings", "delivery_disputed", "correction_decided"
UNRECORDED = "disposal_unrecorded"
# A delivery a manifest names that its site has not reported receiving by the manifest deadline.
UNRECEIVED = "delivery_unreceived"
AWAITING, DIGEST = "deliveries_awaiting", "auditor_digest"
INVITATION, RESET = "invitation", "password_reset"
# The kinds a person may turn off; invitations and password resets are always sent.
CHOOSABLE = (DUE_SOON, OVERDUE, FINDINGS, DISPUTED, UNRECORDED, UNRECEIVED, CORRECTION, AWAITING, DIGEST)
KINDS = (*CHOOSABLE, INVITATION, RESET)
