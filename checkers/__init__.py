"""kernelint's rules, one module per family. Every ``Rule`` subclass defined here is registered."""
