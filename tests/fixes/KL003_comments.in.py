"""Unused suppressions: each goes, and only it; other tools' codes and comments stay."""
import triton

x = 1  # noqa: KL002
y = 2  # noqa: KL002, E501
z = 3  # noqa: E501,KL002  # keep me
# kernelint: disable=internal-error
w = 4
v = 5  # kernelint: disable=KL002,no-such-rule
u = 6  # type: ignore  # noqa: KL002
