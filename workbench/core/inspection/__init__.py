"""Inspection of snapshots: gate, attention and gradient probes, next-token views."""
