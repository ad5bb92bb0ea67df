"""``kernelint confirm``: turn a finding into a run of the user's own kernel on the input that
triggers it (recipes.py), as it is and from a temporary copy with only the flagged line fixed."""
