"""Benchmarks. Servers they start run load from one address (loopback), so the
per-address limits are lifted (0) unless a bench sets them (README, "Limits")."""

import os

os.environ.setdefault("SAMEDEAL_MAX_CONNECTIONS_PER_IP", "0")
os.environ.setdefault("SAMEDEAL_MAX_REGISTRATIONS_PER_MINUTE", "0")
os.environ.setdefault("SAMEDEAL_MAX_SIGN_INS_PER_MINUTE", "0")
