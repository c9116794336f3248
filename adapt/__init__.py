"""Adaptation: the metered gateway, the access log and kit, procedures, adapted bundles."""
