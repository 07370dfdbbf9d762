"""The routes of filing: manifests, their scans and corrections."""
