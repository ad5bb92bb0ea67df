"""CuTe DSL rules (KL3xx). One module per rule."""
