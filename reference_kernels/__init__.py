"""Bundled bad/good reference kernel pairs, one folder per rule."""
