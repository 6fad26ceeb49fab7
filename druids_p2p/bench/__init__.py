"""Benchmarks behind ``druids bench``: speed is measured here, never asserted in tests."""
