"""Tool rules (KL0xx): reported by the engine itself, documented like every other rule."""
