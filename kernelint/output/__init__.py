"""Output formats: text, json, sarif, github."""
