"""The support-ops refund task ported to Inspect AI, for bench/inspect_peer.py.

Runs only in the bench's own venv (inspect-ai and this repo installed there), never in vwt's.
"""
