"""cuTile rules (KL4xx). One module per rule."""
