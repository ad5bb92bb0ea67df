"""The core of the model: bindings, values, reaching definitions, data flow, loops and calls
within one file. Imports nothing else of the model but the DSL knowledge tables."""
