"""kernelint's exit statuses, shared by every command: 0 nothing reported, 1 findings, 2 usage,
configuration or internal error."""

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
