"""Triton rules: KL1xx correctness, KL2xx performance. One module per rule."""
