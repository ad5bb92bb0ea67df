"""Unused suppressions: each goes, and only it; other tools' codes and comments stay."""
import triton

x = 1
y = 2  # noqa: E501
z = 3  # noqa: E501  # keep me
w = 4
v = 5
u = 6  # type: ignore
